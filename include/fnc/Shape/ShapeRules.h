//===- ShapeRules.h - Result-shape rules of the fnc ops ---------*- C++ -*-===//
//
// The one definition of how every fnc op computes its result shape from its
// operand shapes: numpy broadcasting, reductions, matmul, shape ops, conv2d,
// pooling.
// The dialect's result-type inference, the eager API and the tracer all call
// these functions, so a shape error reads the same wherever it is detected.
//
// Plain C++ (no MLIR, no exceptions): every rule returns a ShapeResult that
// holds either the shape or a message saying what was wrong. A dimension may
// be `kDynamic` (unknown until run time); the rules propagate it and only
// reject what is certainly wrong.
//
//===----------------------------------------------------------------------===//

#ifndef FNC_SHAPE_SHAPERULES_H
#define FNC_SHAPE_SHAPERULES_H

#include "fnc/DType.h"

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace fnc::shapes {

/// An unknown dimension; equal to mlir::ShapedType::kDynamic.
constexpr int64_t kDynamic = std::numeric_limits<int64_t>::min();

using Shape = std::vector<int64_t>;

inline bool isDynamic(int64_t dim) { return dim == kDynamic; }

/// A shape, or the reason there is none.
struct ShapeResult {
  Shape shape;
  std::string error; // empty on success

  bool ok() const { return error.empty(); }
  static ShapeResult failure(std::string message) {
    ShapeResult r;
    r.error = std::move(message);
    return r;
  }
};

/// "[2, ?, 3]".
std::string toString(const Shape &shape);

/// "(2, None, 3)", "(4,)", "()": a shape as Python prints a tuple, which is
/// how TF's messages and repr() show a TensorShape.
std::string tupleString(const Shape &shape);

/// A tensor type as messages show it: "float32[2,?,3]".
std::string describe(DType dtype, const Shape &shape);

/// Number of elements, or kDynamic if a dimension is unknown; INT64_MAX if
/// the count overflows (0 if a dim is 0, whatever the others).
int64_t numElements(const Shape &shape);

/// Maps `axis` in [-rank, rank) to [0, rank). Returns false if out of range.
bool normalizeAxis(int64_t axis, int64_t rank, int64_t &result);

/// numpy broadcasting of two or more shapes (right-aligned; 1 stretches;
/// an unknown dim against a known one N != 1 becomes N).
ShapeResult broadcast(const Shape &a, const Shape &b);
ShapeResult broadcast(const std::vector<Shape> &shapes);

/// Checks that `from` broadcasts to exactly `to`.
ShapeResult broadcastTo(const Shape &from, const Shape &to);

/// Reduction over `axes` (negative allowed, duplicates rejected; empty means
/// all axes).
ShapeResult reduce(const Shape &in, const std::vector<int64_t> &axes,
                   bool keepDims);

/// Normalized, sorted reduction axes (empty `axes` means all); the error of
/// reduce() when invalid.
ShapeResult reductionAxes(const Shape &in, const std::vector<int64_t> &axes);

/// Reduction over the single `axis` without keeping it (argmax).
ShapeResult reduceAxis(const Shape &in, int64_t axis);

/// Batched matrix product: [..., m, k] x [..., k, n] -> [..., m, n], batch
/// dims broadcast. Both operands need rank >= 2.
ShapeResult matmul(const Shape &a, const Shape &b);

/// Permutation of dims; `perm` must be a permutation of [0, rank).
ShapeResult transpose(const Shape &in, const std::vector<int64_t> &perm);

/// Reshape to `target`, in which at most one dim may be -1 or kDynamic
/// (inferred from the element count). Counts must agree when known.
ShapeResult reshape(const Shape &in, const Shape &target);

/// Inserts a dim of size 1 at `axis` in [-rank-1, rank].
ShapeResult expandDims(const Shape &in, int64_t axis);

/// Removes the size-1 dims at `axes` (all size-1 dims when empty).
ShapeResult squeeze(const Shape &in, const std::vector<int64_t> &axes);

/// A slice size meaning "to the end of the dim" (tf.slice's -1).
constexpr int64_t kSliceToEnd = -1;

/// Strided slice with static offsets, sizes and strides (strides >= 1); the
/// result shape is `sizes`, where a size kSliceToEnd takes every stride-th
/// element from the offset to the end: ceil((dim - offset) / stride), or
/// kDynamic when the dim is. Checks bounds for known dims.
ShapeResult slice(const Shape &in, const std::vector<int64_t> &offsets,
                  const std::vector<int64_t> &sizes,
                  const std::vector<int64_t> &strides);

/// Bounds of stridedSlice beyond either end of every dim. An omitted begin
/// or end (numpy's `x[:3]`, `x[1:]`, `x[::-1]`) is whichever of them clamps
/// to the side it stands for: with a positive stride begin kSliceMin and
/// end kSliceMax, with a negative stride the other way round.
constexpr int64_t kSliceMin = std::numeric_limits<int64_t>::min();
constexpr int64_t kSliceMax = std::numeric_limits<int64_t>::max();

/// One entry per input dim of a strided slice (numpy's basic indexing once
/// the ellipsis and the new axes are resolved). A range dim (`shrink`
/// false) reads Python's slice(begin, end, stride): negative bounds count
/// from the end, then clamp to [0, n] (stride > 0) or [-1, n - 1] (stride
/// < 0). An index dim (`shrink` true) reads the one element `begin`
/// (negative counts from the end; it must lie in [-n, n)) and is dropped
/// from the result; its end and stride are 0 and 1.
struct SliceSpec {
  std::vector<int64_t> begin, end, strides;
  std::vector<bool> shrink;
};

/// The elements a range dim reads: `count` of them from `start` on, a
/// stride apart.
struct SliceDim {
  int64_t start, count;
};

/// Python's slice(begin, end, stride).indices(n) for a dim of known size
/// `n` (stride != 0, > kSliceMin).
SliceDim resolveSliceDim(int64_t n, int64_t begin, int64_t end, int64_t stride);

/// The index an index dim of known size `n` reads, or -1 if `index` is
/// outside [-n, n).
int64_t resolveSliceIndex(int64_t n, int64_t index);

/// "valid: -3 to 2" for n = 3, "the dim is empty" for 0 (in messages).
std::string validIndices(int64_t n);

/// What a valid strided slice of `in` (every dim known) reads, as the
/// slice kernels take it: per dim the first element read and the signed
/// stride, and the result shape with the index dims kept as 1s.
struct SliceWindow {
  Shape shape;
  std::vector<int64_t> offsets, strides;
};
SliceWindow resolveSlice(const Shape &in, const SliceSpec &spec);

/// The result of a strided slice: the counts of the range dims in order
/// (index dims dropped). A count is kDynamic when its input dim is, unless
/// the range is empty for every size (e.g. `5:2`). Checks the entry counts,
/// the strides (non-zero, > kSliceMin), the index dims' end and stride, and
/// that an index along a known dim lies inside it.
ShapeResult stridedSlice(const Shape &in, const SliceSpec &spec);

/// The input gradient of stridedSlice (the gradient of the result placed
/// where it was read, zeros elsewhere): `in`, after checking that `grad`
/// has the shape stridedSlice gives for `in` (known dims equal).
ShapeResult stridedSliceGrad(const Shape &in, const Shape &grad,
                             const SliceSpec &spec);

/// Constant padding (XLA's pad with non-negative amounts): along dim i,
/// low[i] elements before, high[i] after and interior[i] between each two
/// neighbours: n becomes low + n + max(n - 1, 0) * interior + high
/// (kDynamic when n is).
ShapeResult pad(const Shape &in, const std::vector<int64_t> &low,
                const std::vector<int64_t> &high,
                const std::vector<int64_t> &interior);

/// Concatenation along `axis`; all other dims must agree.
ShapeResult concat(const std::vector<Shape> &inputs, int64_t axis);

/// Take along `axis`: in[:axis] + indices + in[axis+1:].
ShapeResult gather(const Shape &params, const Shape &indices, int64_t axis);

/// One-hot: inserts a dim of size `depth` at `axis` in [-rank-1, rank].
ShapeResult oneHot(const Shape &indices, int64_t depth, int64_t axis);

/// Padding mode of conv2d, with TensorFlow's meaning.
enum class Padding { Valid, Same };

/// conv2d with NHWC input, HWCF filter and strides (sh, sw).
ShapeResult conv2d(const Shape &input, const Shape &filter, int64_t strideH,
                   int64_t strideW, Padding padding);

/// Padding before/after along one spatial dim of conv2d (TF's SAME rule).
void conv2dPadding(int64_t in, int64_t kernel, int64_t stride, Padding padding,
                   int64_t &before, int64_t &after);

/// 2-D pooling (`op` is "max_pool2d" or "avg_pool2d", for the messages) of
/// an NHWC input with window `ksize` {kh, kw} and `strides` {sh, sw}: the
/// output dims of conv2d with a [kh, kw, c, c] filter. Checks the rank,
/// that ksize and strides have 2 entries >= 1, and that a valid-padding
/// window fits into known input dims.
ShapeResult pool2d(const std::string &op, const Shape &input,
                   const std::vector<int64_t> &ksize,
                   const std::vector<int64_t> &strides, Padding padding);

/// The input gradient of pool2d (`op` is "max_pool2d_grad" or
/// "avg_pool2d_grad"): the input's shape, after checking that
/// `gradOutput` has the shape pool2d gives for `input` (known dims equal).
ShapeResult pool2dGrad(const std::string &op, const Shape &input,
                       const Shape &gradOutput,
                       const std::vector<int64_t> &ksize,
                       const std::vector<int64_t> &strides, Padding padding);

/// Number of elements of range(start, limit, delta); error if delta == 0.
ShapeResult range(double start, double limit, double delta);

} // namespace fnc::shapes

#endif // FNC_SHAPE_SHAPERULES_H
