//===- Dispatch.h - Dtype dispatch and strided iteration --------*- C++ -*-===//
//
// Private helpers of the reference kernels: calling a generic lambda with the
// C++ type of a DType, broadcast strides, and a row-wise iteration over an
// N-d index space used by every kernel that broadcasts or permutes.
//
//===----------------------------------------------------------------------===//

#ifndef FNC_LIB_REFERENCE_DISPATCH_H
#define FNC_LIB_REFERENCE_DISPATCH_H

#include "fnc/Reference/Kernels.h"

#include <array>
#include <string>

namespace fnc::ref {

/// Throws ErrorKind::Internal: a kernel was called with arguments its
/// caller should have rejected.
[[noreturn]] void internalError(const std::string &what);

/// Calls `fn(T{})` where T is the C++ type of `dtype`.
template <typename Fn> void dispatch(DType dtype, Fn &&fn) {
  switch (dtype) {
  case DType::f32:
    return fn(float());
  case DType::f64:
    return fn(double());
  case DType::i1:
    return fn(bool());
  case DType::i32:
    return fn(int32_t());
  case DType::i64:
    return fn(int64_t());
  case DType::str:
    break; // the numeric kernels never see strings
  }
  internalError(std::string("no numeric kernel for dtype ") + dtypeName(dtype));
}

/// Strides of an operand of shape `in` broadcast to `out` (right-aligned,
/// 0 on broadcast dims), one per dim of `out`.
Shape broadcastStrides(const Shape &in, const Shape &out);

/// Calls `fn(outOffset, offsets, length)` once per innermost row of `shape`
/// (once with length 1 for rank 0), where offsets[j] is the element offset of
/// operand j for the row start, given the per-dim element `strides[j]`
/// (each of rank shape.size()). Rows of length 0 are skipped.
template <size_t K, typename Fn>
void forEachRow(const Shape &shape, const std::array<const Shape *, K> &strides,
                Fn &&fn) {
  std::array<int64_t, K> offsets{};
  int64_t rank = shape.size();
  if (rank == 0) {
    fn(int64_t(0), offsets, int64_t(1));
    return;
  }
  for (int64_t d : shape)
    if (d == 0)
      return;
  int64_t len = shape.back();
  std::vector<int64_t> index(rank, 0);
  int64_t outOffset = 0;
  while (true) {
    fn(outOffset, offsets, len);
    outOffset += len;
    // Advance the odometer over dims [0, rank - 1).
    int64_t d = rank - 2;
    for (; d >= 0; --d) {
      ++index[d];
      for (size_t j = 0; j < K; ++j)
        offsets[j] += (*strides[j])[d];
      if (index[d] < shape[d])
        break;
      for (size_t j = 0; j < K; ++j)
        offsets[j] -= (*strides[j])[d] * shape[d];
      index[d] = 0;
    }
    if (d < 0)
      return;
  }
}

/// Splits `shape` around the normalized `axis` into (outer, size, inner)
/// element counts.
inline void splitAt(const Shape &shape, int64_t axis, int64_t &outer,
                    int64_t &size, int64_t &inner) {
  outer = inner = 1;
  for (int64_t i = 0; i < axis; ++i)
    outer *= shape[i];
  size = shape[axis];
  for (size_t i = axis + 1; i < shape.size(); ++i)
    inner *= shape[i];
}

} // namespace fnc::ref

#endif // FNC_LIB_REFERENCE_DISPATCH_H
