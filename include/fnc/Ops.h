//===- Ops.h - The tensor ops of the fnc eager API --------------*- C++ -*-===//
//
// Every op is a free function in namespace fnc with TensorFlow's name and
// numpy/TensorFlow semantics; the arithmetic and comparison operators are
// shorthands for them. Ops never modify their operands; each returns a new
// tensor. All ops are thread-safe (they only read their operands).
//
// Dtypes are never promoted silently: both operands of a binary op must have
// the same dtype (use fnc::cast). A C++ scalar operand (`x * 3`, `1.f - x`)
// adopts the tensor's dtype; it must be exactly representable in it.
//
// Errors: every op throws fnc::Error with a message that starts with the
// op name (`fnc::add: ...`), says what was wrong, names the operands' dtypes
// and shapes, and what to do.
//
//===----------------------------------------------------------------------===//

#ifndef FNC_OPS_H
#define FNC_OPS_H

#include "fnc/Tensor.h"

#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace fnc {

using Shape = std::vector<int64_t>;

//===----------------------------------------------------------------------===//
// Creation
//===----------------------------------------------------------------------===//

/// A tensor with the contents of `value` (tensors are immutable, so this
/// shares them), optionally converted to `dtype`.
Tensor constant(const Tensor &value);
Tensor constant(const Tensor &value, DType dtype);
/// A tensor of `shape` holding `values` in row-major order.
template <typename T>
Tensor constant(const std::vector<T> &values, const Shape &shape) {
  return Tensor(values, shape);
}

Tensor zeros(const Shape &shape, DType dtype = DType::f32);
Tensor ones(const Shape &shape, DType dtype = DType::f32);
/// A tensor of `shape` filled with the scalar `value` (of value's dtype).
Tensor fill(const Shape &shape, const Tensor &value);
/// A tensor of `shape` and `dtype` filled with `value`, which must be
/// representable in `dtype`.
Tensor fill(const Shape &shape, double value, DType dtype);

/// The shape of `x` as a 1-D tensor of `dtype` (int32 or int64), as
/// tf.shape. While tracing, a dim that is unknown (fnc::kUnknownDim in
/// x.shape()) is read at run time: this is how code builds tensors whose
/// dims are not known while tracing, e.g. fnc::zeros(fnc::shape(x)).
Tensor shape(const Tensor &x, DType dtype = DType::i32);

namespace detail {
Tensor fillFromShapeTensor(const Tensor &shape, const Tensor &value,
                           const char *op);
Tensor fillFromShapeTensor(const Tensor &shape, double value, DType dtype,
                           const char *op);
Tensor broadcastToShapeTensor(const Tensor &x, const Tensor &shape);
template <typename T>
using IfTensor = std::enable_if_t<std::is_same_v<T, Tensor>, int>;
} // namespace detail

/// zeros, ones and fill of a shape held in a 1-D int32/int64 tensor (of
/// known length), such as fnc::shape(x): sizes read at run time when
/// tracing. (Templates only so that `zeros({2, 3})` stays the Shape
/// overload; call them with a fnc::Tensor.)
template <typename T, detail::IfTensor<T> = 0>
Tensor zeros(const T &shape, DType dtype = DType::f32) {
  return detail::fillFromShapeTensor(shape, 0.0, dtype, "zeros");
}
template <typename T, detail::IfTensor<T> = 0>
Tensor ones(const T &shape, DType dtype = DType::f32) {
  return detail::fillFromShapeTensor(shape, 1.0, dtype, "ones");
}
template <typename T, detail::IfTensor<T> = 0>
Tensor fill(const T &shape, const Tensor &value) {
  return detail::fillFromShapeTensor(shape, value, "fill");
}
/// A tensor of x's dtype and shape holding 0 / 1 (dims that are unknown
/// while tracing are taken at run time).
Tensor zeros_like(const Tensor &x);
Tensor ones_like(const Tensor &x);

/// [start, start + delta, ...) up to but excluding `limit` (TensorFlow's
/// tf.range): ceil((limit - start) / delta) elements, none if that is
/// negative. For an integer dtype, start/limit/delta must be integers.
Tensor range(double start, double limit, double delta, DType dtype);
/// tf.range's dtype inference: `range(5)` and `range(0, 10, 2)` are int32
/// (int64 if an argument has a 64-bit integer type), `range(0, 1, 0.25)`
/// (any floating-point argument) is float32.
template <typename A, typename B, typename C = int,
          std::enable_if_t<std::is_arithmetic_v<A> && std::is_arithmetic_v<B> &&
                               std::is_arithmetic_v<C>,
                           int> = 0>
Tensor range(A start, B limit, C delta = 1) {
  constexpr bool anyFloat = std::is_floating_point_v<A> ||
                            std::is_floating_point_v<B> ||
                            std::is_floating_point_v<C>;
  constexpr bool wide = sizeof(A) > 4 || sizeof(B) > 4 || sizeof(C) > 4;
  return range(static_cast<double>(start), static_cast<double>(limit),
               static_cast<double>(delta),
               anyFloat ? DType::f32
               : wide   ? DType::i64
                        : DType::i32);
}
template <typename A, std::enable_if_t<std::is_arithmetic_v<A>, int> = 0>
Tensor range(A limit) {
  return range(A(0), limit);
}
/// An n x m identity matrix (m = n when m < 0).
Tensor eye(int64_t n, int64_t m = -1, DType dtype = DType::f32);
/// Element conversion: float->int truncates toward zero (saturating), any
/// dtype->bool is `x != 0`, bool->number is 0/1.
Tensor cast(const Tensor &x, DType dtype);

//===----------------------------------------------------------------------===//
// Binary elementwise ops (numpy broadcasting, same dtype on both sides)
//===----------------------------------------------------------------------===//

Tensor add(const Tensor &x, const Tensor &y);
Tensor sub(const Tensor &x, const Tensor &y);
Tensor mul(const Tensor &x, const Tensor &y);
/// Float division; integer division truncates toward zero. Integer
/// division by zero throws InvalidArgument.
Tensor div(const Tensor &x, const Tensor &y);
/// x ** y; integers need y >= 0.
Tensor pow(const Tensor &x, const Tensor &y);
/// Elementwise max/min; NaN propagates, and -0.0 orders below +0.0.
Tensor maximum(const Tensor &x, const Tensor &y);
Tensor minimum(const Tensor &x, const Tensor &y);
/// Remainder with the sign of the divisor (Python's %).
Tensor floor_mod(const Tensor &x, const Tensor &y);
/// Division rounding toward -infinity (Python's //).
Tensor floor_div(const Tensor &x, const Tensor &y);
/// The angle of the point (x, y) in [-pi, pi]: atan(y / x) in the right
/// quadrant (C's atan2(y, x)). Float only.
Tensor atan2(const Tensor &y, const Tensor &x);

/// Comparisons, with a bool result. equal/not_equal also accept bool.
Tensor equal(const Tensor &x, const Tensor &y);
Tensor not_equal(const Tensor &x, const Tensor &y);
Tensor less(const Tensor &x, const Tensor &y);
Tensor less_equal(const Tensor &x, const Tensor &y);
Tensor greater(const Tensor &x, const Tensor &y);
Tensor greater_equal(const Tensor &x, const Tensor &y);

/// Logical ops on bool tensors.
Tensor logical_and(const Tensor &x, const Tensor &y);
Tensor logical_or(const Tensor &x, const Tensor &y);
Tensor logical_not(const Tensor &x);

/// cond ? a : b elementwise, all three broadcast together; cond is bool.
Tensor select(const Tensor &cond, const Tensor &a, const Tensor &b);

namespace detail {
/// A rank-0 tensor of `like`'s dtype holding `value`; throws
/// InvalidArgument naming `op` if `value` is not exactly representable.
Tensor scalarLike(const Tensor &like, double value, const char *op);
Tensor scalarLike(const Tensor &like, int64_t value, const char *op);
Tensor scalarLike(const Tensor &like, bool value, const char *op);

template <typename S>
Tensor toScalar(const Tensor &like, S value, const char *op) {
  if constexpr (std::is_same_v<S, bool>)
    return scalarLike(like, value, op);
  else if constexpr (std::is_floating_point_v<S>)
    return scalarLike(like, static_cast<double>(value), op);
  else
    return scalarLike(like, static_cast<int64_t>(value), op);
}

template <typename S>
using EnableIfScalar = std::enable_if_t<std::is_arithmetic_v<S>, int>;
} // namespace detail

// Overloads with a C++ scalar on either side; the scalar adopts the tensor's
// dtype.
#define FNC_SCALAR_OVERLOADS(fn)                                               \
  template <typename S, detail::EnableIfScalar<S> = 0>                         \
  Tensor fn(const Tensor &x, S y) {                                            \
    return fn(x, detail::toScalar(x, y, #fn));                                 \
  }                                                                            \
  template <typename S, detail::EnableIfScalar<S> = 0>                         \
  Tensor fn(S x, const Tensor &y) {                                            \
    return fn(detail::toScalar(y, x, #fn), y);                                 \
  }
FNC_SCALAR_OVERLOADS(add)
FNC_SCALAR_OVERLOADS(sub)
FNC_SCALAR_OVERLOADS(mul)
FNC_SCALAR_OVERLOADS(div)
FNC_SCALAR_OVERLOADS(pow)
FNC_SCALAR_OVERLOADS(maximum)
FNC_SCALAR_OVERLOADS(minimum)
FNC_SCALAR_OVERLOADS(floor_mod)
FNC_SCALAR_OVERLOADS(floor_div)
FNC_SCALAR_OVERLOADS(equal)
FNC_SCALAR_OVERLOADS(not_equal)
FNC_SCALAR_OVERLOADS(less)
FNC_SCALAR_OVERLOADS(less_equal)
FNC_SCALAR_OVERLOADS(greater)
FNC_SCALAR_OVERLOADS(greater_equal)
FNC_SCALAR_OVERLOADS(logical_and)
FNC_SCALAR_OVERLOADS(logical_or)
#undef FNC_SCALAR_OVERLOADS

// An operand passed as an rvalue (a temporary such as `square(x)` in
// `square(x) * 3 + y`) is released as soon as the result exists rather than
// at the end of the full expression, so its buffer serves the next op's
// result: a chain of operators holds two temporaries, not one per op.
#define FNC_OPERATOR(op, fn)                                                   \
  inline Tensor operator op(const Tensor &x, const Tensor &y) {                \
    return fn(x, y);                                                           \
  }                                                                            \
  inline Tensor operator op(Tensor &&x, const Tensor &y) {                     \
    Tensor r = fn(x, y);                                                       \
    x = Tensor();                                                              \
    return r;                                                                  \
  }                                                                            \
  inline Tensor operator op(const Tensor &x, Tensor &&y) {                     \
    Tensor r = fn(x, y);                                                       \
    y = Tensor();                                                              \
    return r;                                                                  \
  }                                                                            \
  inline Tensor operator op(Tensor &&x, Tensor &&y) {                          \
    Tensor r = fn(x, y);                                                       \
    x = Tensor();                                                              \
    y = Tensor();                                                              \
    return r;                                                                  \
  }                                                                            \
  template <typename S, detail::EnableIfScalar<S> = 0>                         \
  Tensor operator op(const Tensor &x, S y) {                                   \
    return fn(x, y);                                                           \
  }                                                                            \
  template <typename S, detail::EnableIfScalar<S> = 0>                         \
  Tensor operator op(Tensor &&x, S y) {                                        \
    Tensor r = fn(x, y);                                                       \
    x = Tensor();                                                              \
    return r;                                                                  \
  }                                                                            \
  template <typename S, detail::EnableIfScalar<S> = 0>                         \
  Tensor operator op(S x, const Tensor &y) {                                   \
    return fn(x, y);                                                           \
  }                                                                            \
  template <typename S, detail::EnableIfScalar<S> = 0>                         \
  Tensor operator op(S x, Tensor &&y) {                                        \
    Tensor r = fn(x, y);                                                       \
    y = Tensor();                                                              \
    return r;                                                                  \
  }
FNC_OPERATOR(+, add)
FNC_OPERATOR(-, sub)
FNC_OPERATOR(*, mul)
FNC_OPERATOR(/, div)
/// Python's `%` (and tf's): floor_mod, the remainder with the divisor's sign.
FNC_OPERATOR(%, floor_mod)
/// Elementwise comparisons returning bool tensors (as in TensorFlow).
FNC_OPERATOR(==, equal)
FNC_OPERATOR(!=, not_equal)
FNC_OPERATOR(<, less)
FNC_OPERATOR(<=, less_equal)
FNC_OPERATOR(>, greater)
FNC_OPERATOR(>=, greater_equal)
#undef FNC_OPERATOR

//===----------------------------------------------------------------------===//
// Unary elementwise ops
//===----------------------------------------------------------------------===//

/// Also on integers (wrapping on overflow).
Tensor neg(const Tensor &x);
Tensor abs(const Tensor &x);
Tensor relu(const Tensor &x);
Tensor square(const Tensor &x);
/// -1, 0 or 1 (NaN and signed zeros stay as they are).
Tensor sign(const Tensor &x);
/// Float only: cast integers first.
Tensor exp(const Tensor &x);
Tensor log(const Tensor &x);
Tensor sqrt(const Tensor &x);
Tensor rsqrt(const Tensor &x);
Tensor tanh(const Tensor &x);
Tensor sigmoid(const Tensor &x);
Tensor sin(const Tensor &x);
Tensor cos(const Tensor &x);
Tensor tan(const Tensor &x);
/// The Gauss error function.
Tensor erf(const Tensor &x);
/// log(1 + x) and e^x - 1, accurate for small x.
Tensor log1p(const Tensor &x);
Tensor expm1(const Tensor &x);
/// log(1 + e^x), without overflow for large x.
Tensor softplus(const Tensor &x);
Tensor floor(const Tensor &x);
Tensor ceil(const Tensor &x);
/// Rounds to the nearest integer, halves to even (0.5 -> 0, 1.5 -> 2), as
/// tf.round.
Tensor round(const Tensor &x);

inline Tensor operator-(const Tensor &x) { return neg(x); }

//===----------------------------------------------------------------------===//
// Linear algebra
//===----------------------------------------------------------------------===//

/// [..., m, k] x [..., k, n] -> [..., m, n]; batch dims broadcast. Both
/// operands need rank >= 2 and the same float or integer dtype.
Tensor matmul(const Tensor &a, const Tensor &b);

/// 2-D convolution of an NHWC input with an HWCF filter (TensorFlow's
/// tf.nn.conv2d): strides {sh, sw}, padding "VALID" or "SAME".
Tensor conv2d(const Tensor &input, const Tensor &filter,
              const std::vector<int64_t> &strides = {1, 1},
              const std::string &padding = "VALID");

/// 2-D max / average pooling of an NHWC tensor (tf.nn.max_pool2d /
/// tf.nn.avg_pool2d): window {kh, kw}, strides {sh, sw}, padding "VALID" or
/// "SAME". float32 and float64 only. SAME pads max pooling with -inf and
/// divides a border window of avg pooling by the number of input elements
/// it covers, as TensorFlow does. The gradient of max_pool2d goes to the
/// first maximum of each window (row-major window order).
Tensor max_pool2d(const Tensor &input, const std::vector<int64_t> &ksize,
                  const std::vector<int64_t> &strides,
                  const std::string &padding = "VALID");
Tensor avg_pool2d(const Tensor &input, const std::vector<int64_t> &ksize,
                  const std::vector<int64_t> &strides,
                  const std::string &padding = "VALID");

//===----------------------------------------------------------------------===//
// Shape ops
//===----------------------------------------------------------------------===//

/// Permutes the dims; an empty `perm` reverses them.
Tensor transpose(const Tensor &x, const std::vector<int64_t> &perm = {});
/// Same elements, new shape; one dim may be -1 (inferred).
Tensor reshape(const Tensor &x, const Shape &shape);
Tensor broadcast_to(const Tensor &x, const Shape &shape);
/// broadcast_to a shape held in a 1-D int32/int64 tensor of known length,
/// such as fnc::shape(y) (tf.broadcast_to(x, tf.shape(y))): while tracing,
/// its sizes may be known only when the code runs.
template <typename T, detail::IfTensor<T> = 0>
Tensor broadcast_to(const Tensor &x, const T &shape) {
  return detail::broadcastToShapeTensor(x, shape);
}
/// Inserts a dim of size 1 at `axis` in [-rank-1, rank].
Tensor expand_dims(const Tensor &x, int64_t axis);
/// Removes the size-1 dims at `axes` (all of them if empty).
Tensor squeeze(const Tensor &x, const std::vector<int64_t> &axes = {});
/// tf.slice: `size[i] == -1` means to the end (every strides[i]-th element
/// from begin[i]), also along a dim unknown while tracing, whose result dim
/// is then unknown too; `strides` default to 1.
Tensor slice(const Tensor &x, const std::vector<int64_t> &begin,
             const std::vector<int64_t> &size,
             const std::vector<int64_t> &strides = {});
/// tf.strided_slice: entry i of `begin`, `end` and `strides` (same length;
/// `strides` default to 1) is the Python slice begin[i]:end[i]:strides[i]
/// along the next input dim: negative bounds count from the end, bounds
/// past either end clamp, a negative stride walks backwards. Bit i of the
/// masks changes entry i: `begin_mask` / `end_mask` omit its begin / end
/// (the whole dim in the stride's direction); `ellipsis_mask` makes it
/// numpy's `...` (at most one bit); `new_axis_mask` inserts a dim of size
/// 1 (its values are ignored); `shrink_axis_mask` makes it the index
/// begin[i] (numpy's x[i]: the dim is dropped; its stride must be
/// positive, its end and masks are ignored). Dims after the last entry
/// are taken whole.
///
///   // x[1:3, ..., -1, ::-1] of a rank-5 x:
///   fnc::strided_slice(x, {1, 0, -1, 0}, {3, 0, 0, 0}, {1, 1, 1, -1},
///                      /*begin_mask=*/0b1000, /*end_mask=*/0b1000,
///                      /*ellipsis_mask=*/0b10, /*new_axis_mask=*/0,
///                      /*shrink_axis_mask=*/0b100);
///
/// Works along dims unknown while tracing (the bounds are resolved at run
/// time; such a result dim is unknown too). Errors: InvalidArgument for a
/// stride of 0, two ellipses, more entries than dims, unequal lengths or
/// mask bits past the last entry; OutOfRange for a shrink index outside
/// the dim (along a dim unknown while tracing, when the call runs).
/// Tensor::index (fnc/Index.h) is the same operation written as numpy.
Tensor strided_slice(const Tensor &x, const std::vector<int64_t> &begin,
                     const std::vector<int64_t> &end,
                     const std::vector<int64_t> &strides = {},
                     int64_t begin_mask = 0, int64_t end_mask = 0,
                     int64_t ellipsis_mask = 0, int64_t new_axis_mask = 0,
                     int64_t shrink_axis_mask = 0);
/// tf.pad with a constant: paddings[i] = {before, after} copies of `value`
/// along dim i (>= 0 each, one pair per dim). With `interior` (one amount
/// >= 0 per dim), interior[i] copies also go between each two neighbouring
/// elements along dim i: jax.lax.pad's interior padding, a dilation.
/// `value` must be representable in x's dtype. Dims unknown while tracing
/// stay unknown.
Tensor pad(const Tensor &x,
           const std::vector<std::pair<int64_t, int64_t>> &paddings,
           double value = 0, const std::vector<int64_t> &interior = {});
/// Concatenation along `axis` (negative counts from the end).
Tensor concat(const std::vector<Tensor> &values, int64_t axis);
/// params[:axis] + indices + params[axis+1:]; indices are int32 or int64
/// and must be in [0, params.shape[axis]) (OutOfRange otherwise).
Tensor gather(const Tensor &params, const Tensor &indices, int64_t axis = 0);
/// One-hot encoding along a new dim of size `depth` at `axis`; an index
/// outside [0, depth) gives an all-`off` row.
Tensor one_hot(const Tensor &indices, int64_t depth, double on = 1,
               double off = 0, int64_t axis = -1, DType dtype = DType::f32);

//===----------------------------------------------------------------------===//
// Reductions (empty `axes` means all; negative axes count from the end)
//===----------------------------------------------------------------------===//

Tensor reduce_sum(const Tensor &x, const std::vector<int64_t> &axes = {},
                  bool keepdims = false);
/// Integer mean truncates toward zero; the mean of nothing is NaN (floats).
Tensor reduce_mean(const Tensor &x, const std::vector<int64_t> &axes = {},
                   bool keepdims = false);
/// NaN propagates; the max of nothing is -inf (or the lowest integer).
Tensor reduce_max(const Tensor &x, const std::vector<int64_t> &axes = {},
                  bool keepdims = false);
Tensor reduce_min(const Tensor &x, const std::vector<int64_t> &axes = {},
                  bool keepdims = false);
Tensor reduce_prod(const Tensor &x, const std::vector<int64_t> &axes = {},
                   bool keepdims = false);
/// Logical reductions of bool tensors.
Tensor reduce_any(const Tensor &x, const std::vector<int64_t> &axes = {},
                  bool keepdims = false);
Tensor reduce_all(const Tensor &x, const std::vector<int64_t> &axes = {},
                  bool keepdims = false);
/// Index of the first max (min) along `axis` (tf.math.argmax: axis 0 by
/// default); output dtype int64 or int32.
Tensor argmax(const Tensor &x, int64_t axis = 0, DType outputType = DType::i64);
Tensor argmin(const Tensor &x, int64_t axis = 0, DType outputType = DType::i64);
/// exp(x) / sum(exp(x)) along `axis`, computed stably (float only).
Tensor softmax(const Tensor &x, int64_t axis = -1);
/// x - log(sum(exp(x))) along `axis`, computed stably (float only).
Tensor log_softmax(const Tensor &x, int64_t axis = -1);

//===----------------------------------------------------------------------===//
// Ops built from the ones above (TensorFlow's Python-level ops): they run
// eagerly, stage, interpret and differentiate as the ops they are made of
//===----------------------------------------------------------------------===//

/// tf.stack: tensors of one dtype and shape along a new dim at `axis`, in
/// [-rank-1, rank].
Tensor stack(const std::vector<Tensor> &values, int64_t axis = 0);
/// tf.unstack: the slices of `x` along `axis`, without that dim (whose size,
/// the number of results, must be known while tracing).
std::vector<Tensor> unstack(const Tensor &x, int64_t axis = 0);
/// tf.split into `num` equal parts along `axis` (its size, known while
/// tracing, divisible by num).
std::vector<Tensor> split(const Tensor &x, int64_t num, int64_t axis = 0);
/// tf.split into parts of the given `sizes` along `axis`, adding up to its
/// size; one may be -1 (the rest; along a dim unknown while tracing, only
/// the last). A braced list of one number is a count, `split(x, {3})` is
/// `split(x, 3)`: write `std::vector<int64_t>{3}` for one part.
std::vector<Tensor> split(const Tensor &x, const std::vector<int64_t> &sizes,
                          int64_t axis = 0);
/// tf.tile: `x` repeated multiples[i] >= 0 times along each dim i (dims
/// unknown while tracing are read when the code runs).
Tensor tile(const Tensor &x, const std::vector<int64_t> &multiples);
/// tf.clip_by_value: maximum(minimum(x, hi), lo), bounds that broadcast to
/// x's shape without stretching it (lo wins where lo > hi). The gradient
/// reaches x where lo <= x <= hi, the bounds elsewhere.
Tensor clip_by_value(const Tensor &x, const Tensor &lo, const Tensor &hi);
template <typename L, typename H, detail::EnableIfScalar<L> = 0,
          detail::EnableIfScalar<H> = 0>
Tensor clip_by_value(const Tensor &x, L lo, H hi) {
  return clip_by_value(x, detail::toScalar(x, lo, "clip_by_value"),
                       detail::toScalar(x, hi, "clip_by_value"));
}
/// tf.linalg.global_norm: sqrt of the sum of squares of every element of
/// the tensors (float, one dtype), a scalar.
Tensor global_norm(const std::vector<Tensor> &tensors);
/// tf.clip_by_global_norm: each tensor times clip_norm / max(global_norm,
/// clip_norm), and the global norm (of the tensors given); a norm of inf or
/// NaN makes every result NaN, as TensorFlow.
std::pair<std::vector<Tensor>, Tensor>
clip_by_global_norm(const std::vector<Tensor> &tensors, double clip_norm);
/// tf.math.cumsum: the running sums of `x` (numeric) along `axis`; with
/// `exclusive` each element leaves itself out (the first is 0), with
/// `reverse` the sums run from the end. Summed in ceil(log2(n)) doubling
/// steps (a float sum rounds as a tree's, not left to right).
Tensor cumsum(const Tensor &x, int64_t axis = 0, bool exclusive = false,
              bool reverse = false);
/// tf.math.cumprod: cumsum's running products (the first exclusive one is
/// 1). Its gradient is right where x holds zeros.
Tensor cumprod(const Tensor &x, int64_t axis = 0, bool exclusive = false,
               bool reverse = false);
/// tf.linalg.band_part: in the matrices of x's last two dims, the elements
/// at most `num_lower` below and `num_upper` above the diagonal (a negative
/// count keeps that whole triangle); zeros elsewhere.
Tensor band_part(const Tensor &x, int64_t num_lower, int64_t num_upper);
/// numpy's tril: the elements on and below the k-th diagonal (column - row
/// <= k) of the matrices of x's last two dims; zeros elsewhere.
Tensor tril(const Tensor &x, int64_t k = 0);
/// numpy's triu: the elements on and above the k-th diagonal (column - row
/// >= k); zeros elsewhere.
Tensor triu(const Tensor &x, int64_t k = 0);
/// tf.einsum: the sum over the labels the output of `equation` does not
/// name of the products of `inputs` (one dtype, numeric), e.g.
/// "bqhd,bkhd->bhqk"; a label repeated in one term takes the diagonal,
/// `...` stands for the dims no letter names (broadcast as numpy does),
/// and without "->" the output is numpy's implicit one (the labels written
/// once, in alphabetical order, after the '...' dims). Pairs of operands
/// are contracted left to right, each as a batched matmul.
Tensor einsum(const std::string &equation, const std::vector<Tensor> &inputs);
inline Tensor einsum(const std::string &equation, const Tensor &a) {
  return einsum(equation, std::vector<Tensor>{a});
}
inline Tensor einsum(const std::string &equation, const Tensor &a,
                     const Tensor &b) {
  return einsum(equation, std::vector<Tensor>{a, b});
}
/// tf.math.top_k: the `k` largest elements along the last dim of `x`
/// (numeric; that dim known while tracing, at least k) in descending order,
/// and their indices (int32): {values, indices}. Equal values come in index
/// order; NaN is larger than every number (torch.topk's order; the first
/// NaN first). Always sorted (TensorFlow allows that for `sorted = false`
/// too). k rounds of a reduction over the row: meant for small k.
std::pair<Tensor, Tensor> top_k(const Tensor &x, int64_t k = 1,
                                bool sorted = true);
/// tf.scatter_nd: zeros of `shape` with each slice of `updates` added at
/// the position its row of `indices` picks. indices: [..., q], int32 or
/// int64, q in [1, rank], each number within its dim (OutOfRange
/// otherwise; at run time when staged); updates: indices.shape[:-1] +
/// shape[q:]. Repeated positions add up (gather's gradient); an inf or NaN
/// update reaches only its position.
Tensor scatter_nd(const Tensor &indices, const Tensor &updates,
                  const Shape &shape);
/// tf.tensor_scatter_nd_update: `tensor` (its dims known while tracing)
/// with the slices the rows of `indices` pick replaced by `updates` (as
/// scatter_nd's); of rows that repeat a position the last wins.
Tensor tensor_scatter_nd_update(const Tensor &tensor, const Tensor &indices,
                                const Tensor &updates);
/// tf.tensor_scatter_nd_add: tensor + scatter_nd(indices, updates, its
/// shape).
Tensor tensor_scatter_nd_add(const Tensor &tensor, const Tensor &indices,
                             const Tensor &updates);
/// tf.nn.moments: the mean and the variance (the mean of the squared
/// deviations) of float `x` over `axes` (empty: all).
std::pair<Tensor, Tensor> moments(const Tensor &x,
                                  const std::vector<int64_t> &axes = {},
                                  bool keepdims = false);

} // namespace fnc

#endif // FNC_OPS_H
