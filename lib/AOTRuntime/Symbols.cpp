//===- Symbols.cpp - C functions that code compiled ahead of time calls ---===//
//
// The JIT resolves generated code's `malloc`, `calloc` and `free` to fnc's
// checked allocator and its `memrefCopy` (strided copies) to MLIR's C
// runner utilities, which link libMLIR and libLLVM. fnc-compile renames
// those calls in the object it writes to the functions below, so that a
// program built from it needs only fnc's runtime. fncMalloc and fncCalloc
// are the runtime's own (lib/Runtime).
//
//===----------------------------------------------------------------------===//

#include "fnc/Memory.h"

#include <cstdint>
#include <cstring>

extern "C" {

/// The `free` of code compiled ahead of time.
void fncFree(void *p) { fnc::memory::release(p); }

/// The `memrefCopy` of code compiled ahead of time: copies the elements of
/// one memref (of `elemSize` bytes) into another of the same sizes, both
/// with any offset and strides. Each argument is an unranked descriptor:
/// {rank, pointer to the ranked descriptor (allocated, aligned, offset,
/// sizes[rank], strides[rank])}.
struct FncUnranked {
  int64_t rank;
  void *descriptor;
};

void fncMemrefCopy(int64_t elemSize, FncUnranked *src, FncUnranked *dst) {
  struct Ranked {
    char *allocated;
    char *aligned;
    int64_t offset;
    int64_t dims[];
  };
  const auto *s = static_cast<const Ranked *>(src->descriptor);
  const auto *d = static_cast<const Ranked *>(dst->descriptor);
  int64_t rank = src->rank;
  const int64_t *sizes = s->dims;
  const int64_t *srcStrides = s->dims + rank;
  const int64_t *dstStrides = d->dims + rank;
  for (int64_t i = 0; i < rank; ++i)
    if (sizes[i] == 0)
      return;
  const char *in = s->aligned + s->offset * elemSize;
  char *out = d->aligned + d->offset * elemSize;
  // An odometer over the indices; the innermost dim is the fastest.
  int64_t index[16] = {0};
  int64_t *counter = rank <= 16 ? index : new int64_t[rank]();
  int64_t srcPos = 0, dstPos = 0;
  while (true) {
    std::memcpy(out + dstPos * elemSize, in + srcPos * elemSize, elemSize);
    int64_t axis = rank - 1;
    for (; axis >= 0; --axis) {
      srcPos += srcStrides[axis];
      dstPos += dstStrides[axis];
      if (++counter[axis] < sizes[axis])
        break;
      srcPos -= srcStrides[axis] * sizes[axis];
      dstPos -= dstStrides[axis] * sizes[axis];
      counter[axis] = 0;
    }
    if (axis < 0)
      break;
  }
  if (counter != index)
    delete[] counter;
}

} // extern "C"
