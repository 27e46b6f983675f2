//===- Descriptors.cpp - Memref descriptors at the call boundary ----------===//
//
// Packing arguments into and taking results out of expanded memref
// descriptors, for the JIT's and the ahead-of-time runtime's calls of
// generated code.
//
//===----------------------------------------------------------------------===//

#include "fnc/Runtime/Descriptors.h"
#include "fnc/Memory.h"

#include <cstring>
#include <vector>

using namespace fnc;
using namespace fnc::runtime;

std::string fnc::runtime::tensorTypeString(DType dtype, const int64_t *shape,
                                           size_t rank) {
  std::string s = "tensor<";
  for (size_t i = 0; i < rank; ++i)
    s += (shape[i] == shapes::kDynamic ? std::string("?")
                                       : std::to_string(shape[i])) +
         "x";
  return s + mlirElementName(dtype) + ">";
}

bool fnc::runtime::typeAccepts(DType typeDtype, const int64_t *type,
                               size_t typeRank, DType dtype,
                               const int64_t *shape, size_t rank) {
  if (dtype != typeDtype || rank != typeRank)
    return false;
  for (size_t i = 0; i < rank; ++i)
    if (shape[i] < 0 || (type[i] != shapes::kDynamic && type[i] != shape[i]))
      return false;
  return true;
}

bool fnc::runtime::isRowMajor(const int64_t *shape, const int64_t *strides,
                              size_t rank) {
  if (!strides)
    return true;
  int64_t expected = 1;
  for (size_t i = rank; i-- > 0;) {
    if (shape[i] != 1 && strides[i] != expected)
      return false;
    expected *= shape[i];
  }
  return true;
}

void *fnc::runtime::gatherRowMajor(DType dtype, const void *data,
                                   const int64_t *shape, const int64_t *strides,
                                   size_t rank) {
  size_t elem = sizeOf(dtype);
  int64_t count = 1;
  for (size_t i = 0; i < rank; ++i)
    count *= shape[i];
  char *out = static_cast<char *>(memory::allocate(count * elem));
  if (!out)
    return nullptr;
  std::vector<int64_t> index(rank, 0);
  const char *base = static_cast<const char *>(data);
  for (int64_t n = 0; n < count; ++n) {
    int64_t pos = 0;
    for (size_t i = 0; i < rank; ++i)
      pos += index[i] * strides[i];
    std::memcpy(out + n * elem, base + pos * elem, elem);
    for (size_t i = rank; i-- > 0;) {
      if (++index[i] < shape[i])
        break;
      index[i] = 0;
    }
  }
  return out;
}

void fnc::runtime::packRowMajor(void *data, const int64_t *shape, size_t rank,
                                int64_t *slots) {
  slots[0] = slots[1] = reinterpret_cast<intptr_t>(data);
  slots[2] = 0;
  int64_t stride = 1;
  for (size_t d = rank; d-- > 0;) {
    slots[3 + d] = shape[d];
    slots[3 + rank + d] = stride;
    stride *= shape[d];
  }
}

ReturnedDescriptor::ReturnedDescriptor(DType dtype, const int64_t *slots,
                                       size_t rank)
    : allocated(reinterpret_cast<void *>(slots[0])),
      data(reinterpret_cast<char *>(slots[1]) + slots[2] * sizeOf(dtype)),
      sizes(slots + 3), strides(slots + 3 + rank), rank(rank) {}

bool ReturnedDescriptor::isHeap() const {
  // What MLIR puts in the `allocated` field of a memref.get_global result.
  return allocated != reinterpret_cast<void *>(0xdeadbeef);
}

OwnedBuffer fnc::runtime::takeResult(DType dtype,
                                     const ReturnedDescriptor &result,
                                     bool owned) {
  if (owned && isRowMajor(result.sizes, result.strides, result.rank))
    return {result.data, result.allocated};
  void *copy = gatherRowMajor(dtype, result.data, result.sizes, result.strides,
                              result.rank);
  if (owned)
    memory::release(result.allocated);
  return {copy, copy};
}
