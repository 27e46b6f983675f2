//===- Descriptors.h - Memref descriptors at the call boundary --*- C++ -*-===//
//
// Internal to fnc. What every caller of generated code does with memref
// descriptors, shared by the JIT (jit::Entry) and the ahead-of-time
// runtime (fnc::aot::Instance), in plain C++ with no LLVM: spelling a
// tensor type as a signature shows it, packing a row-major buffer into an
// expanded descriptor, and turning a returned descriptor into an owned
// row-major buffer.
//
// A descriptor expanded into int64 slots is (allocated, aligned, offset,
// sizes[rank], strides[rank]) (docs/Runtime.md).
//
//===----------------------------------------------------------------------===//

#ifndef FNC_RUNTIME_DESCRIPTORS_H
#define FNC_RUNTIME_DESCRIPTORS_H

#include "fnc/DType.h"
#include "fnc/Shape/ShapeRules.h"

#include <cstddef>
#include <cstdint>
#include <string>

namespace fnc::runtime {

/// Slots of the expanded descriptor of a memref of rank `rank`.
constexpr size_t descriptorSlots(size_t rank) { return 3 + 2 * rank; }

/// MLIR's spelling of a tensor type: "tensor<2x?xf32>" (a dim of
/// shapes::kDynamic is `?`).
std::string tensorTypeString(DType dtype, const int64_t *shape, size_t rank);

/// True if (dtype, shape) is a value of the type (`type` dims may be
/// shapes::kDynamic).
bool typeAccepts(DType typeDtype, const int64_t *type, size_t typeRank,
                 DType dtype, const int64_t *shape, size_t rank);

/// True if `strides` (in elements; nullptr: row-major) lay `shape` out
/// row-major (a dim of size 1 may have any stride).
bool isRowMajor(const int64_t *shape, const int64_t *strides, size_t rank);

/// Copies a strided view into a new row-major buffer of fnc/Memory.h;
/// nullptr when out of memory.
void *gatherRowMajor(DType dtype, const void *data, const int64_t *shape,
                     const int64_t *strides, size_t rank);

/// Writes the expanded descriptor of row-major `data` of `shape` into
/// `slots` (descriptorSlots(rank) of them).
void packRowMajor(void *data, const int64_t *shape, size_t rank,
                  int64_t *slots);

/// A descriptor returned by generated code, read from its slots.
struct ReturnedDescriptor {
  void *allocated = nullptr;
  /// The address of element 0 (aligned + offset).
  void *data = nullptr;
  const int64_t *sizes = nullptr;
  const int64_t *strides = nullptr;
  size_t rank = 0;

  ReturnedDescriptor(DType dtype, const int64_t *slots, size_t rank);
  /// False for memory the caller must not free: a constant of the code
  /// (whose `allocated` is MLIR's 0xdeadbeef).
  bool isHeap() const;
};

/// An owned row-major buffer: free `allocation` with memory::release.
struct OwnedBuffer {
  void *data = nullptr;
  void *allocation = nullptr;
};

/// The memory of `result` as an owned row-major buffer. `owned` says
/// whether the caller owns the descriptor's memory (not a constant, an
/// argument or another result): then a row-major result is taken as is,
/// and a strided one is copied and its memory released. Memory the caller
/// does not own is copied. An empty `allocation` with elements is out of
/// memory.
OwnedBuffer takeResult(DType dtype, const ReturnedDescriptor &result,
                       bool owned);

} // namespace fnc::runtime

#endif // FNC_RUNTIME_DESCRIPTORS_H
