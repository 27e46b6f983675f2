//===- Gradients.cpp - The gradient rule of every differentiable op -------===//
//
// Each rule maps the gradient g of an op's output to the gradients of its
// inputs with public ops only, so the same code runs eagerly and records
// the backward ops while tracing. The elementwise ops are those of the op
// table (FncOpTable.inc): every kind the table marks differentiable must
// have a specialization of unaryRule / binaryRule here (a missing one does
// not compile); the others pass no gradient. Broadcast operands get g
// summed back to their shape (unbroadcast). Inside a trace, dims unknown
// while tracing (an input_signature with a batch of -1) are fine wherever a
// rule does not need their size: pads keep them and slices take them whole
// (size -1).
//
//===----------------------------------------------------------------------===//

#include "Gradients.h"

#include "fnc/API/OpSupport.h"
#include "fnc/Control.h"
#include "fnc/Ops.h"
#include "fnc/Shape/ShapeRules.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <variant>

namespace fnc::grad {

Tensor conformTo(const Tensor &t, const Shape &shape) {
  bool fits = t.rank() == static_cast<int64_t>(shape.size());
  for (size_t d = 0; fits && d < shape.size(); ++d)
    fits = shapes::isDynamic(shape[d]) || t.shape()[d] == shape[d];
  if (fits || std::count_if(shape.begin(), shape.end(), shapes::isDynamic) > 1)
    return t;
  Shape target = shape;
  for (int64_t &d : target)
    if (shapes::isDynamic(d))
      d = -1;
  return reshape(t, target);
}

namespace {

using ref::BinaryOp;
using ref::UnaryOp;

[[noreturn]] void noRule(const std::string &op, const std::string &why) {
  throw Error(ErrorKind::Unimplemented,
              "fnc::GradientTape::gradient: no gradient through fnc::" + op +
                  " " + why);
}

bool knownShape(const Shape &shape) {
  return std::none_of(shape.begin(), shape.end(), shapes::isDynamic);
}

/// g, of a broadcast result's shape, summed back to the shape of x (numpy's
/// broadcasting in reverse). The sums known while tracing drop the reduced
/// dims (a keepdims reduction over a leading dim compiles to slower code)
/// and the stretched 1s come back as expand_dims. A dim of x unknown while
/// tracing may be 1 at run time where g's is not (a loop value whose shape
/// changes, a slice): fnc.sum_to_shape decides those at run time.
Tensor unbroadcast(const Tensor &g, const Tensor &x) {
  const Shape &gs = g.shape(), &shape = x.shape();
  if (gs == shape && knownShape(shape))
    return g;
  int64_t lead = static_cast<int64_t>(gs.size() - shape.size());
  std::vector<int64_t> axes, ones;
  bool unknown = false;
  for (int64_t i = 0; i < lead; ++i)
    axes.push_back(i);
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == 1 && gs[lead + i] != 1) {
      axes.push_back(lead + static_cast<int64_t>(i));
      ones.push_back(static_cast<int64_t>(i));
    }
    unknown |= shapes::isDynamic(shape[i]) && gs[lead + i] != 1;
  }
  Tensor r = g;
  if (!axes.empty()) {
    r = reduce_sum(g, axes);
    for (int64_t i : ones) // ascending: each lands at its final position
      r = expand_dims(r, i);
  }
  return unknown ? api::sumToShape(r, x) : r;
}

/// x with the last two dims swapped.
Tensor transposeLast2(const Tensor &x) {
  std::vector<int64_t> perm(x.rank());
  std::iota(perm.begin(), perm.end(), 0);
  std::swap(perm[perm.size() - 2], perm[perm.size() - 1]);
  return transpose(x, perm);
}

/// a * b, unknown when either is.
int64_t times(int64_t a, int64_t b) {
  return shapes::isDynamic(a) || shapes::isDynamic(b) ? shapes::kDynamic
                                                      : a * b;
}

/// A slice size: `d`, or to the end when d is unknown while tracing.
int64_t sizeOrToEnd(int64_t d) {
  return shapes::isDynamic(d) ? shapes::kSliceToEnd : d;
}

/// g reshaped to `shape`, which may hold one dim unknown while tracing.
Tensor reshapeTo(const Tensor &g, const Shape &shape, const char *op) {
  Shape target = shape;
  int unknown = 0;
  for (int64_t &d : target)
    if (shapes::isDynamic(d)) {
      d = -1;
      ++unknown;
    }
  if (unknown > 1)
    noRule(op, "here: its backward reshapes a gradient to " +
                   shapes::toString(shape) +
                   ", which has several dims unknown while tracing; give "
                   "the function an input_signature with known dims");
  return reshape(g, target);
}

/// The reduced result (or its gradient) with the reduced dims back as 1s.
Tensor keepReducedDims(const Tensor &t, const trace::ops::Reduce &r) {
  if (r.keepDims)
    return t;
  Tensor e = t;
  for (int64_t axis : r.axes) // normalized and sorted
    e = expand_dims(e, axis);
  return e;
}

/// `t` (with x's rank) broadcast to x's shape, also for dims that are
/// unknown while tracing.
Tensor broadcastLike(const Tensor &t, const Tensor &x) {
  if (knownShape(x.shape()))
    return broadcast_to(t, x.shape());
  return t * ones_like(x);
}

Tensor asFloatMask(const Tensor &condition, DType dtype) {
  return cast(condition, dtype);
}

//===----------------------------------------------------------------------===//
// Elementwise ops of the op table
//===----------------------------------------------------------------------===//

/// d op(x) / dx times g, given y = op(x).
template <UnaryOp K>
Tensor unaryRule(const Tensor &x, const Tensor &y, const Tensor &g) = delete;

template <>
Tensor unaryRule<UnaryOp::Neg>(const Tensor &, const Tensor &,
                               const Tensor &g) {
  return -g;
}
template <>
Tensor unaryRule<UnaryOp::Abs>(const Tensor &x, const Tensor &,
                               const Tensor &g) {
  return g * sign(x);
}
template <>
Tensor unaryRule<UnaryOp::Exp>(const Tensor &, const Tensor &y,
                               const Tensor &g) {
  return g * y;
}
template <>
Tensor unaryRule<UnaryOp::Log>(const Tensor &x, const Tensor &,
                               const Tensor &g) {
  return g / x;
}
template <>
Tensor unaryRule<UnaryOp::Sqrt>(const Tensor &, const Tensor &y,
                                const Tensor &g) {
  return g * 0.5 / y;
}
template <>
Tensor unaryRule<UnaryOp::Rsqrt>(const Tensor &x, const Tensor &y,
                                 const Tensor &g) {
  return g * -0.5 * y / x;
}
template <>
Tensor unaryRule<UnaryOp::Tanh>(const Tensor &, const Tensor &y,
                                const Tensor &g) {
  return g * (1.0 - y * y);
}
template <>
Tensor unaryRule<UnaryOp::Sigmoid>(const Tensor &, const Tensor &y,
                                   const Tensor &g) {
  return g * y * (1.0 - y);
}
/// From the output (relu(x) > 0 exactly where x > 0), so that the forward
/// add + relu stays one fused loop with no pre-activation kept alive.
template <>
Tensor unaryRule<UnaryOp::Relu>(const Tensor &, const Tensor &y,
                                const Tensor &g) {
  return g * asFloatMask(y > 0.0, y.dtype());
}
template <>
Tensor unaryRule<UnaryOp::Square>(const Tensor &x, const Tensor &,
                                  const Tensor &g) {
  return g * 2.0 * x;
}
template <>
Tensor unaryRule<UnaryOp::Sign>(const Tensor &, const Tensor &,
                                const Tensor &g) {
  return g * 0.0;
}
template <>
Tensor unaryRule<UnaryOp::Sin>(const Tensor &x, const Tensor &,
                               const Tensor &g) {
  return g * cos(x);
}
template <>
Tensor unaryRule<UnaryOp::Cos>(const Tensor &x, const Tensor &,
                               const Tensor &g) {
  return -g * sin(x);
}
template <>
Tensor unaryRule<UnaryOp::Tan>(const Tensor &, const Tensor &y,
                               const Tensor &g) {
  return g * (1.0 + y * y);
}
template <>
Tensor unaryRule<UnaryOp::Erf>(const Tensor &x, const Tensor &,
                               const Tensor &g) {
  const double twoOverSqrtPi = 2.0 / std::sqrt(std::acos(-1.0));
  return g * twoOverSqrtPi * exp(-(x * x));
}
template <>
Tensor unaryRule<UnaryOp::Log1p>(const Tensor &x, const Tensor &,
                                 const Tensor &g) {
  return g / (x + 1.0);
}
template <>
Tensor unaryRule<UnaryOp::Expm1>(const Tensor &, const Tensor &y,
                                 const Tensor &g) {
  return g * (y + 1.0);
}
template <>
Tensor unaryRule<UnaryOp::Softplus>(const Tensor &x, const Tensor &,
                                    const Tensor &g) {
  return g * sigmoid(x);
}

/// The gradients of z = op(x, y) with respect to x and y (before
/// unbroadcasting), given z and g.
template <BinaryOp K>
std::pair<Tensor, Tensor> binaryRule(const Tensor &x, const Tensor &y,
                                     const Tensor &z, const Tensor &g) = delete;

template <>
std::pair<Tensor, Tensor>
binaryRule<BinaryOp::Add>(const Tensor &, const Tensor &, const Tensor &,
                          const Tensor &g) {
  return {g, g};
}
template <>
std::pair<Tensor, Tensor>
binaryRule<BinaryOp::Sub>(const Tensor &, const Tensor &, const Tensor &,
                          const Tensor &g) {
  return {g, -g};
}
template <>
std::pair<Tensor, Tensor>
binaryRule<BinaryOp::Mul>(const Tensor &x, const Tensor &y, const Tensor &,
                          const Tensor &g) {
  return {g * y, g * x};
}
template <>
std::pair<Tensor, Tensor>
binaryRule<BinaryOp::Div>(const Tensor &x, const Tensor &y, const Tensor &,
                          const Tensor &g) {
  return {g / y, -g * x / (y * y)};
}
/// d/dy is taken as 0 where x <= 0 (TF's rule), where log(x) is undefined.
template <>
std::pair<Tensor, Tensor>
binaryRule<BinaryOp::Pow>(const Tensor &x, const Tensor &y, const Tensor &z,
                          const Tensor &g) {
  Tensor dx = g * y * pow(x, y - 1.0);
  Tensor positive = x > 0.0;
  Tensor safeX = select(positive, x, ones_like(x));
  Tensor dy = select(positive, g * z * log(safeX), zeros_like(g));
  return {dx, dy};
}
/// Ties send the gradient to x, as TF does.
template <>
std::pair<Tensor, Tensor>
binaryRule<BinaryOp::Maximum>(const Tensor &x, const Tensor &y, const Tensor &,
                              const Tensor &g) {
  Tensor mask = asFloatMask(x >= y, x.dtype());
  return {g * mask, g * (1.0 - mask)};
}
template <>
std::pair<Tensor, Tensor>
binaryRule<BinaryOp::Minimum>(const Tensor &x, const Tensor &y, const Tensor &,
                              const Tensor &g) {
  Tensor mask = asFloatMask(x <= y, x.dtype());
  return {g * mask, g * (1.0 - mask)};
}
template <>
std::pair<Tensor, Tensor>
binaryRule<BinaryOp::FloorMod>(const Tensor &x, const Tensor &y, const Tensor &,
                               const Tensor &g) {
  return {g, -g * floor_div(x, y)};
}
/// z = atan2(x, y) (the angle of the point (y, x)).
template <>
std::pair<Tensor, Tensor>
binaryRule<BinaryOp::Atan2>(const Tensor &x, const Tensor &y, const Tensor &,
                            const Tensor &g) {
  Tensor norm = x * x + y * y;
  return {g * y / norm, -g * x / norm};
}

template <UnaryOp K, bool Differentiable>
Tensor unaryGradient(const Tensor &x, const Tensor &y, const Tensor &g) {
  if constexpr (Differentiable)
    return unaryRule<K>(x, y, g);
  else
    return Tensor();
}

template <BinaryOp K, bool Differentiable>
std::pair<Tensor, Tensor> binaryGradient(const Tensor &x, const Tensor &y,
                                         const Tensor &z, const Tensor &g) {
  if constexpr (Differentiable)
    return binaryRule<K>(x, y, z, g);
  else
    return {};
}

/// d, what an elementwise rule made of g, but g where g is 0: a zero
/// gradient stays zero where the derivative is not finite (0 * inf is
/// NaN). Eagerly an op that no path to the result uses is not
/// differentiated at all; staged, the values that lead only to the branch
/// a cond did not take, or to a loop variable the loop drops, get zero
/// gradients, which must not turn into NaN on the way back (a tanh of NaN,
/// a log of 0 before them). Not for rules whose derivative is always
/// finite (masks, +-1).
Tensor zeroStaysZero(const Tensor &d, const Tensor &g) {
  return d.defined() ? select(g == 0.0, g, d) : d;
}

std::vector<Tensor> unary(const trace::ops::Unary &op,
                          const std::vector<Tensor> &in, const Tensor &out,
                          const Tensor &g) {
  Tensor d;
  switch (op.kind) {
#define FNC_UNARY_OP(KIND, CLASS, API, DTYPES, DIFFERENTIABLE)                 \
  case UnaryOp::KIND:                                                          \
    d = unaryGradient<UnaryOp::KIND, DIFFERENTIABLE>(in[0], out, g);           \
    break;
#include "fnc/Dialect/Fnc/IR/FncOpTable.inc"
  }
  bool finite = op.kind == UnaryOp::Neg || op.kind == UnaryOp::Relu;
  return {finite ? d : zeroStaysZero(d, g)};
}

std::vector<Tensor> binary(const trace::ops::Binary &op,
                           const std::vector<Tensor> &in, const Tensor &out,
                           const Tensor &g) {
  std::pair<Tensor, Tensor> d;
  switch (op.kind) {
#define FNC_BINARY_OP(KIND, CLASS, API, DTYPES, DIFFERENTIABLE)                \
  case BinaryOp::KIND:                                                         \
    d = binaryGradient<BinaryOp::KIND, DIFFERENTIABLE>(in[0], in[1], out, g);  \
    break;
#include "fnc/Dialect/Fnc/IR/FncOpTable.inc"
  default: // comparisons: a bool result carries no gradient
    return {Tensor(), Tensor()};
  }
  if (op.kind != BinaryOp::Add && op.kind != BinaryOp::Sub &&
      op.kind != BinaryOp::Maximum && op.kind != BinaryOp::Minimum)
    d = {zeroStaysZero(d.first, g), zeroStaysZero(d.second, g)};
  return {d.first.defined() ? unbroadcast(d.first, in[0]) : Tensor(),
          d.second.defined() ? unbroadcast(d.second, in[1]) : Tensor()};
}

//===----------------------------------------------------------------------===//
// Reductions, linear algebra, shapes
//===----------------------------------------------------------------------===//

std::vector<Tensor> reduction(const trace::ops::Reduce &r,
                              const std::vector<Tensor> &in, const Tensor &out,
                              const Tensor &g) {
  const Tensor &x = in[0];
  Tensor gk = keepReducedDims(g, r);
  switch (r.kind) {
  case ref::ReduceOp::Sum:
    return {broadcastLike(gk, x)};
  case ref::ReduceOp::Mean: {
    int64_t n = 1;
    bool known = true;
    for (int64_t axis : r.axes) {
      known &= !shapes::isDynamic(x.shape()[axis]);
      n *= known ? x.shape()[axis] : 1;
    }
    Tensor sum = broadcastLike(gk, x);
    if (known)
      return {sum / static_cast<double>(n)};
    return {sum / reduce_sum(ones_like(x), r.axes, /*keepdims=*/true)};
  }
  case ref::ReduceOp::Max:
  case ref::ReduceOp::Min: {
    // Ties share the gradient equally, as in TF.
    Tensor mask = asFloatMask(equal(x, keepReducedDims(out, r)), x.dtype());
    Tensor count = reduce_sum(mask, r.axes, /*keepdims=*/true);
    return {mask * gk / count};
  }
  case ref::ReduceOp::Prod: {
    // The product of the others, exact with zeros: with none in the
    // reduced slice, prod / x; with one, the product of the nonzeros at
    // the zero and 0 elsewhere; with more, 0.
    Tensor isZero = asFloatMask(equal(x, zeros_like(x)), x.dtype());
    Tensor safe = x + isZero; // 1 where x is 0
    Tensor nonzero = reduce_prod(safe, r.axes, /*keepdims=*/true);
    Tensor zeros = reduce_sum(isZero, r.axes, /*keepdims=*/true);
    Tensor none = asFloatMask(equal(zeros, zeros_like(zeros)), x.dtype());
    Tensor one = asFloatMask(equal(zeros, ones_like(zeros)), x.dtype());
    Tensor others = none * (nonzero / safe) + one * (nonzero * isZero);
    return {broadcastLike(gk, x) * others};
  }
  default:
    return {Tensor()};
  }
}

/// zeroStaysZero's promise for a matmul: a row of g that is all zero gives
/// a zero row of da, a column of g that is all zero a zero column of db,
/// even where the other operand holds an inf (0 * inf is NaN). Staged, a
/// matmul before a cond sees a zero gradient from the branch not taken
/// where eagerly it is not differentiated at all.
std::vector<Tensor> matmulRule(const std::vector<Tensor> &in, const Tensor &g) {
  const Tensor &a = in[0], &b = in[1];
  Tensor nonzero = g != 0.0, zero = zeros({}, g.dtype());
  Tensor da = select(reduce_any(nonzero, {-1}, /*keepdims=*/true),
                     matmul(g, transposeLast2(b)), zero);
  Tensor db = select(reduce_any(nonzero, {-2}, /*keepdims=*/true),
                     matmul(transposeLast2(a), g), zero);
  return {unbroadcast(da, a), unbroadcast(db, b)};
}

std::vector<Tensor> softmaxRule(const trace::ops::Softmax &s, const Tensor &out,
                                const Tensor &g) {
  std::vector<int64_t> axis = {s.axis};
  Tensor d = s.log ? g - exp(out) * reduce_sum(g, axis, /*keepdims=*/true)
                   : out * (g - reduce_sum(g * out, axis, /*keepdims=*/true));
  // A row whose gradient is all 0 stays 0 (zeroStaysZero, row by row: a
  // 0 in a row with other values still gets a gradient).
  return {select(reduce_all(g == 0.0, axis, /*keepdims=*/true), g, d)};
}

/// Zeros of t's dtype and shape but `size` along `axis`, where `size` (an
/// int64 tensor of one element) is known only at run time, as are t's dims
/// unknown while tracing; t's other dims stay known in the result's type.
Tensor zerosAlong(const Tensor &t, int64_t axis, const Tensor &size) {
  int64_t rank = t.rank();
  std::vector<int64_t> keep(rank, 1), put(rank, 0);
  keep[axis] = 0;
  put[axis] = 1;
  Tensor dims =
      shape(t, DType::i64) * Tensor(keep, {rank}) + Tensor(put, {rank}) * size;
  Shape known = t.shape();
  known[axis] = shapes::kDynamic;
  api::noteShapeValues(dims, known);
  return zeros(dims, t.dtype());
}

/// Places g, the gradient of a slice of x, where the slice read it, with
/// zeros elsewhere: one pad (the stride as interior padding); the zeros
/// after a window of known size along a dim unknown while tracing are
/// counted at run time. A stride > 1 along such a dim (the interior
/// padding's count unknown) places g with the strided slice's backward
/// op, whose bounds are resolved at run time.
std::vector<Tensor> sliceRule(const trace::ops::Slice &s, const Tensor &x,
                              const Tensor &g) {
  const Shape &xs = x.shape(), &gs = g.shape();
  bool stridedUnknown = false;
  for (size_t d = 0; d < xs.size(); ++d)
    stridedUnknown |= shapes::isDynamic(xs[d]) && s.strides[d] != 1;
  if (stridedUnknown) {
    shapes::SliceSpec spec;
    for (size_t d = 0; d < xs.size(); ++d) {
      int64_t offset = s.offsets[d], size = s.sizes[d];
      spec.begin.push_back(offset);
      spec.end.push_back(size == shapes::kSliceToEnd ? shapes::kSliceMax
                         : size == 0 ? offset
                                     : offset + (size - 1) * s.strides[d] + 1);
      spec.strides.push_back(s.strides[d]);
      spec.shrink.push_back(false);
    }
    return {api::stridedSliceGrad(x, g, spec)};
  }
  std::vector<std::pair<int64_t, int64_t>> paddings;
  std::vector<int64_t> interior, runTimeRest;
  for (size_t d = 0; d < xs.size(); ++d) {
    int64_t offset = s.offsets[d], stride = s.strides[d];
    if (!shapes::isDynamic(xs[d])) {
      // The slice's size is known where x's is, also when g's type (from
      // values of a loop whose shapes may change) does not say it.
      int64_t count = gs[d];
      if (shapes::isDynamic(count))
        count = s.sizes[d] != shapes::kSliceToEnd
                    ? s.sizes[d]
                    : std::max<int64_t>(0, (xs[d] - offset + stride - 1) /
                                               stride);
      int64_t span = count == 0 ? 0 : (count - 1) * stride + 1;
      paddings.push_back({offset, xs[d] - offset - span});
      interior.push_back(count == 0 ? 0 : stride - 1);
      continue;
    }
    paddings.push_back({offset, 0});
    interior.push_back(0);
    if (s.sizes[d] != shapes::kSliceToEnd)
      runTimeRest.push_back(static_cast<int64_t>(d));
  }
  Tensor placed = pad(g, paddings, 0, interior);
  for (int64_t axis : runTimeRest) {
    // dim - offset - size zeros after the window.
    Tensor dim = slice(shape(x, DType::i64), {axis}, {1});
    Tensor rest = dim - Tensor(s.offsets[axis] + s.sizes[axis]);
    placed = concat({placed, zerosAlong(placed, axis, rest)}, axis);
  }
  return {placed};
}

/// The gradient of pad: the elements of g that came from x, a slice (a
/// dim unknown while tracing runs to the end); where values were padded
/// after such a dim, a strided slice that stops that many before the end
/// (g[low : -high : interior + 1]), resolved at run time.
std::vector<Tensor> padRule(const trace::ops::Pad &p, const Tensor &x,
                            const Tensor &g) {
  std::vector<int64_t> sizes, strides;
  bool highAfterUnknown = false;
  for (size_t d = 0; d < x.shape().size(); ++d) {
    int64_t n = x.shape()[d];
    highAfterUnknown |= shapes::isDynamic(n) && p.high[d] != 0;
    sizes.push_back(sizeOrToEnd(n));
    strides.push_back(p.interior[d] + 1);
  }
  if (!highAfterUnknown)
    return {slice(g, p.low, sizes, strides)};
  shapes::SliceSpec spec;
  spec.begin = p.low;
  spec.strides = strides;
  for (int64_t high : p.high)
    spec.end.push_back(high ? -high : shapes::kSliceMax);
  spec.shrink.assign(strides.size(), false);
  return {grad::conformTo(api::stridedSlice(g, spec, "strided_slice"),
                          x.shape())};
}

/// The gradient of max_pool2d_grad(x, g) (the input gradient of max
/// pooling: g routed to each window's first maximum of x) with respect to
/// g, given `c` (x's shape): per window, c at that maximum, TF's
/// MaxPoolGradGrad. The taps of the windows in row-major order keep the
/// first maximum as the reference kernel does (a NaN wins once), padded
/// positions never count (with the height or width unknown while tracing,
/// the padding and the windows' counts are computed at run time). Linear
/// in c, through slices and selects, so it differentiates again; x only
/// routes (its gradient is zero).
Tensor maxPoolGradRule(const trace::ops::Pool2DGrad &o, const Tensor &x,
                       const Tensor &g, const Tensor &c) {
  const Shape &xs = x.shape(), &gs = g.shape();
  int64_t n = xs[0], h = xs[1], wd = xs[2], ch = xs[3], oh = gs[1],
          ow = gs[2];
  int64_t kh = o.ksize[0], kw = o.ksize[1], sh = o.strides[0],
          sw = o.strides[1];
  Tensor xp = x, cp = c, inside = ones_like(x);
  std::function<Tensor(const Tensor &, int64_t, int64_t)> tap;
  if (knownShape({h, wd, oh, ow})) {
    shapes::Padding padding =
        o.samePadding ? shapes::Padding::Same : shapes::Padding::Valid;
    int64_t top, bottom, left, right;
    shapes::conv2dPadding(h, kh, sh, padding, top, bottom);
    shapes::conv2dPadding(wd, kw, sw, padding, left, right);
    std::vector<std::pair<int64_t, int64_t>> pads = {
        {0, 0}, {top, bottom}, {left, right}, {0, 0}};
    xp = pad(x, pads);
    cp = pad(c, pads);
    inside = pad(inside, pads);
    tap = [&](const Tensor &t, int64_t i, int64_t j) {
      return slice(t, {0, i, j, 0}, {sizeOrToEnd(n), oh, ow, sizeOrToEnd(ch)},
                   {1, sh, sw, 1});
    };
  } else {
    // The height or width unknown while tracing: the padding (SAME's
    // depends on the size) and the windows' counts at run time.
    for (int a : {1, 2}) {
      int64_t k = o.ksize[a - 1], stride = o.strides[a - 1];
      Tensor size = api::sizeAlong(x, a), zero = zeros({}, DType::i64);
      Tensor total =
          o.samePadding
              ? maximum((api::sizeAlong(g, a) - int64_t{1}) * stride + k - size,
                        zero)
              : zero;
      Tensor before = floor_div(total, Tensor(int64_t{2}));
      for (Tensor *t : {&xp, &cp, &inside})
        *t = concat({zerosAlong(*t, a, before), *t,
                     zerosAlong(*t, a, total - before)},
                    a);
    }
    tap = [&](const Tensor &t, int64_t i, int64_t j) {
      shapes::SliceSpec spec{{0, i, j, 0},
                             {shapes::kSliceMax, shapes::kSliceMax,
                              shapes::kSliceMax, shapes::kSliceMax},
                             {1, sh, sw, 1},
                             {false, false, false, false}};
      Tensor window = api::stridedSlice(t, spec, "strided_slice");
      for (int a : {1, 2})
        window = api::dynamicSlice(window, a, zeros({}, DType::i64),
                                   api::sizeAlong(g, a));
      return window;
    };
  }
  Tensor best = tap(xp, 0, 0), picked = tap(cp, 0, 0),
         seen = tap(inside, 0, 0) > 0.5;
  for (int64_t i = 0; i < kh; ++i)
    for (int64_t j = i == 0 ? 1 : 0; j < kw; ++j) {
      Tensor v = tap(xp, i, j), valid = tap(inside, i, j) > 0.5;
      Tensor better = logical_or(
          logical_not(seen),
          logical_or(v > best, logical_and(v != v, best == best)));
      Tensor take = logical_and(valid, better);
      best = select(take, v, best);
      picked = select(take, tap(cp, i, j), picked);
      seen = logical_or(seen, valid);
    }
  return grad::conformTo(picked, gs);
}

/// conv2dRule where the input's height or width, or the kernel's, is
/// unknown while tracing: the same input gradient, with the padding, the
/// kernel's extent and the rows no window reaches computed at run time
/// (SAME's padding depends on the size), per spatial axis, and the
/// filter's by one convolution of the padded input (the batch as its
/// channels) with the output gradient dilated by the strides, of which
/// the first kernel-size rows and columns are the taps.
std::vector<Tensor> conv2dRuleAtRunTime(const trace::ops::Conv2D &c,
                                        const Tensor &x, const Tensor &w,
                                        const Tensor &g) {
  int64_t stride[3] = {0, c.strides[0], c.strides[1]};
  // Per spatial axis: the input's and the kernel's sizes, the padding
  // before and in all.
  Tensor size[3], kernel[3], before[3], total[3];
  Tensor zero = zeros({}, DType::i64);
  for (int a : {1, 2}) {
    size[a] = api::sizeAlong(x, a);
    kernel[a] = api::sizeAlong(w, a - 1);
    Tensor out = api::sizeAlong(g, a);
    total[a] = c.samePadding
                   ? maximum((out - int64_t{1}) * stride[a] + kernel[a] -
                                 size[a],
                             zero)
                   : zero;
    before[a] = floor_div(total[a], Tensor(int64_t{2}));
  }
  // Input: g dilated by the strides and padded by the kernel's extent less
  // one, convolved with the flipped filter; the rows no window reaches
  // appended as zeros, then the input's rows taken back from the padded
  // coordinates.
  Tensor dilated =
      pad(g, {{0, 0}, {0, 0}, {0, 0}, {0, 0}}, 0,
          {0, stride[1] - 1, stride[2] - 1, 0});
  Tensor spread = dilated;
  for (int a : {1, 2}) {
    Tensor margin = kernel[a] - int64_t{1};
    spread = concat({zerosAlong(spread, a, margin), spread,
                     zerosAlong(spread, a, margin)},
                    a);
  }
  Tensor flipped = strided_slice(w, {0, 0, 0, 0}, {0, 0, 0, 0},
                                 {-1, -1, 1, 1}, 0b1111, 0b1111);
  Tensor dx = conv2d(spread, transpose(flipped, {0, 1, 3, 2}), {1, 1},
                     "VALID"); // [n, (oh-1)*sh + kh, (ow-1)*sw + kw, ch]
  Tensor padded = x;
  for (int a : {1, 2}) {
    Tensor unreached = size[a] + total[a] - api::sizeAlong(dx, a);
    dx = concat({dx, zerosAlong(dx, a, unreached)}, a);
    dx = api::dynamicSlice(dx, a, before[a], size[a]);
    padded = concat({zerosAlong(padded, a, before[a]), padded,
                     zerosAlong(padded, a, total[a] - before[a])},
                    a);
  }
  // Filter: dw[i, j, c, f] = sum over (n, y, x) of
  // padded[n, y*sh + i, x*sw + j, c] * g[n, y, x, f].
  const Shape &ws = w.shape();
  if ((stride[1] != 1 || stride[2] != 1) &&
      knownShape({ws[0], ws[1], ws[2], ws[3]}) && ws[2] > 0 && ws[3] > 0) {
    // Strided, per tap: the matmul of the input pixels its windows see
    // with g, as conv2dRule's, so that pixels no window sees (and the
    // zeros of a dilated g) are never multiplied (0 * inf is NaN).
    Tensor gFlat = reshape(g, {-1, ws[3]});
    std::vector<Tensor> rows;
    for (int64_t i = 0; i < ws[0]; ++i) {
      std::vector<Tensor> taps;
      for (int64_t j = 0; j < ws[1]; ++j) {
        Tensor window =
            strided_slice(padded, {0, i, j, 0}, {0, 0, 0, 0},
                          {1, stride[1], stride[2], 1}, 0b1001, 0b1111);
        for (int a : {1, 2})
          window = api::dynamicSlice(window, a, zero, api::sizeAlong(g, a));
        Tensor tap = matmul(transposeLast2(reshape(window, {-1, ws[2]})),
                            gFlat); // [c, f]
        taps.push_back(reshape(tap, {1, 1, ws[2], ws[3]}));
      }
      rows.push_back(taps.size() == 1 ? taps[0] : concat(taps, 1));
    }
    Tensor dw = rows.size() == 1 ? rows[0] : concat(rows, 0);
    return {grad::conformTo(dx, x.shape()), dw};
  }
  // Else a VALID convolution of the padded input ([c, hp, wp, n]) by the
  // dilated g ([.., .., n, f]); past the kernel's extent it runs over rows
  // no window reached.
  Tensor taps = conv2d(transpose(padded, {3, 1, 2, 0}),
                       transpose(dilated, {1, 2, 0, 3}), {1, 1}, "VALID");
  for (int a : {1, 2})
    taps = api::dynamicSlice(taps, a, zero, kernel[a]);
  Tensor dw = transpose(taps, {1, 2, 0, 3}); // [kh, kw, c, f]
  return {grad::conformTo(dx, x.shape()), grad::conformTo(dw, w.shape())};
}

/// The gradients of conv2d (NHWC input, HWCF filter) with respect to the
/// input (a stride-1 convolution of the dilated, padded output gradient
/// with the spatially flipped filter) and the filter (with stride 1 a
/// convolution of the input by the output gradient, else one matmul per
/// filter tap of the strided input window and the output gradient).
std::vector<Tensor> conv2dRule(const trace::ops::Conv2D &c,
                               const std::vector<Tensor> &in, const Tensor &g) {
  const Tensor &x = in[0], &w = in[1];
  const Shape &xs = x.shape(), &ws = w.shape(), &gs = g.shape();
  int64_t n = xs[0], h = xs[1], wd = xs[2], ch = xs[3];
  int64_t kh = ws[0], kw = ws[1], f = ws[3], oh = gs[1], ow = gs[2];
  if (shapes::isDynamic(ch)) // the channels may be known from the other side
    ch = ws[2];
  if (shapes::isDynamic(f))
    f = gs[3];
  int64_t sh = c.strides[0], sw = c.strides[1];
  // (The per-tap filter gradient below flattens pixels by channels: it
  // needs one of them known.)
  bool perTapFlattens = (sh != 1 || sw != 1) && shapes::isDynamic(n) &&
                        !knownShape({ch, f});
  if (!knownShape({h, wd, kh, kw}) || perTapFlattens)
    return conv2dRuleAtRunTime(c, x, w, g);
  shapes::Padding padding =
      c.samePadding ? shapes::Padding::Same : shapes::Padding::Valid;
  int64_t top, bottom, left, right;
  shapes::conv2dPadding(h, kh, sh, padding, top, bottom);
  shapes::conv2dPadding(wd, kw, sw, padding, left, right);
  int64_t hp = h + top + bottom, wp = wd + left + right;

  // Input: g dilated by the strides and padded by the kernel size less one,
  // convolved with the flipped filter; rows of the padded input that no
  // window reaches get zeros.
  Tensor spread = pad(g, {{0, 0}, {kh - 1, kh - 1}, {kw - 1, kw - 1}, {0, 0}},
                      0, {0, sh - 1, sw - 1, 0});
  std::vector<int32_t> rowsBack(kh), colsBack(kw);
  std::iota(rowsBack.rbegin(), rowsBack.rend(), 0);
  std::iota(colsBack.rbegin(), colsBack.rend(), 0);
  Tensor flipped =
      gather(gather(w, Tensor(rowsBack, {kh}), 0), Tensor(colsBack, {kw}), 1);
  Tensor full = conv2d(spread, transpose(flipped, {0, 1, 3, 2}), {1, 1},
                       "VALID"); // [n, (oh-1)*sh + kh, (ow-1)*sw + kw, ch]
  full = pad(
      full,
      {{0, 0}, {0, hp - full.shape()[1]}, {0, wp - full.shape()[2]}, {0, 0}});
  Tensor dx =
      slice(full, {0, top, left, 0}, {sizeOrToEnd(n), h, wd, sizeOrToEnd(ch)});

  Tensor padded = pad(x, {{0, 0}, {top, bottom}, {left, right}, {0, 0}});
  if (sh == 1 && sw == 1) {
    // Filter, stride 1: dw[i, j, c, f] = sum over (n, y, x) of
    // padded[n, y + i, x + j, c] * g[n, y, x, f], a VALID convolution of
    // the padded input with the batch as its channels ([c, hp, wp, n]) by
    // g as the filter ([oh, ow, n, f]). One convolution on the register-
    // blocked kernel instead of a matmul per tap.
    Tensor byChannel = transpose(padded, {3, 1, 2, 0});
    Tensor taps = conv2d(byChannel, transpose(g, {1, 2, 0, 3}), {1, 1},
                         "VALID"); // [c, kh, kw, f]
    return {dx, transpose(taps, {1, 2, 0, 3})};
  }
  // Filter, other strides: tap (i, j) sees the input window starting at
  // (i, j).
  int64_t pixels = times(n, oh * ow);
  Tensor gFlat = reshapeTo(g, {pixels, f}, "conv2d");
  std::vector<Tensor> rows;
  for (int64_t i = 0; i < kh; ++i) {
    std::vector<Tensor> taps;
    for (int64_t j = 0; j < kw; ++j) {
      Tensor window =
          slice(padded, {0, i, j, 0}, {sizeOrToEnd(n), oh, ow, sizeOrToEnd(ch)},
                {1, sh, sw, 1});
      Tensor tap =
          matmul(transposeLast2(reshapeTo(window, {pixels, ch}, "conv2d")),
                 gFlat); // [ch, f]
      taps.push_back(knownShape({ch, f}) ? reshape(tap, {1, 1, ch, f})
                                         : expand_dims(expand_dims(tap, 0), 0));
    }
    rows.push_back(taps.size() == 1 ? taps[0] : concat(taps, 1));
  }
  Tensor dw = rows.size() == 1 ? rows[0] : concat(rows, 0);
  return {dx, dw};
}

/// The gradients of the operands of a concat whose sizes along the axis
/// several are unknown while tracing: each operand's part of g, at bounds
/// read at run time (fnc.dynamic_slice).
std::vector<Tensor> concatAtRunTimeBounds(const trace::ops::Concat &c,
                                          const std::vector<Tensor> &in,
                                          const Tensor &g) {
  std::vector<Tensor> grads;
  Tensor offset(int64_t{0});
  for (const Tensor &t : in) {
    Tensor size = api::sizeAlong(t, c.axis);
    grads.push_back(isFloat(t.dtype())
                        ? conformTo(api::dynamicSlice(g, c.axis, offset, size),
                                    t.shape())
                        : Tensor());
    offset = offset + size;
  }
  return grads;
}

/// The gradients of the operands of a concat: slices of g. One operand
/// may have a size along the axis unknown while tracing: those before it
/// are sliced from the start, it and those after it from the end (a
/// strided_slice with negative bounds, resolved at run time). Other
/// unknown dims are taken whole. With several, each at bounds read at run
/// time.
std::vector<Tensor> concatRule(const trace::ops::Concat &c,
                               const std::vector<Tensor> &in, const Tensor &g) {
  size_t unknownAt = in.size();
  for (size_t k = 0; k < in.size(); ++k) {
    if (!shapes::isDynamic(in[k].shape()[c.axis]))
      continue;
    if (unknownAt != in.size())
      return concatAtRunTimeBounds(c, in, g);
    unknownAt = k;
  }
  int64_t rank = g.rank(), axis = c.axis;
  // after[k]: the size along the axis of the operands after k (known for
  // the unknown operand and those after it).
  std::vector<int64_t> after(in.size(), 0);
  for (size_t k = in.size() - 1; k > unknownAt && k < in.size(); --k)
    after[k - 1] = after[k] + in[k].shape()[axis];
  std::vector<Tensor> grads;
  int64_t offset = 0; // the size of the operands before k, up to unknownAt
  for (size_t k = 0; k < in.size(); ++k) {
    const Tensor &t = in[k];
    int64_t along = t.shape()[axis];
    if (!isFloat(t.dtype())) {
      grads.push_back(Tensor());
    } else if (k > unknownAt && along == 0) {
      // (Its bounds from the end would be -0: the start.)
      grads.push_back(zeros_like(t));
    } else if (k < unknownAt) {
      std::vector<int64_t> begin(t.rank(), 0), size;
      for (int64_t d : t.shape())
        size.push_back(sizeOrToEnd(d));
      begin[axis] = offset;
      grads.push_back(slice(g, begin, size));
    } else {
      // [offset, end - after) for the unknown operand, [end - after -
      // along, end - after) for those after it.
      std::vector<int64_t> begin(rank, 0), end(rank, 0), strides(rank, 1);
      int64_t beginMask = ((int64_t{1} << rank) - 1) & ~(int64_t{1} << axis);
      int64_t endMask = beginMask;
      begin[axis] = k == unknownAt ? offset : -(after[k] + along);
      if (after[k] == 0)
        endMask |= int64_t{1} << axis;
      else
        end[axis] = -after[k];
      Tensor part = strided_slice(g, begin, end, strides, beginMask, endMask);
      grads.push_back(conformTo(part, t.shape()));
    }
    if (k < unknownAt)
      offset += along;
  }
  return grads;
}

/// The gradient of a dynamic_slice: g between zeros along the axis, as
/// many before it as the start and after it as the rest of the dim (sizes
/// read at run time).
Tensor dynamicSliceRule(const trace::ops::DynamicSlice &op,
                        const std::vector<Tensor> &in, const Tensor &g) {
  const Tensor &x = in[0];
  int64_t axis = op.axis, rank = x.rank();
  Tensor dims = fnc::shape(x, DType::i64);
  Tensor start = cast(in[1], DType::i64), size = cast(in[2], DType::i64);
  Tensor rest = api::sizeAlong(x, axis) - start - size;
  Shape known = x.shape();
  known[axis] = shapes::kDynamic;
  auto zerosAlong = [&](const Tensor &n) {
    Tensor shape = concat({slice(dims, {0}, {axis}), reshape(n, {1}),
                           slice(dims, {axis + 1}, {rank - axis - 1})},
                          0);
    api::noteShapeValues(shape, known);
    return zeros(shape, g.dtype());
  };
  return conformTo(concat({zerosAlong(start), g, zerosAlong(rest)}, axis),
                   x.shape());
}

/// The gradient of gather: each row of g added into the row of params it
/// came from, as one_hot(indices)^T @ g.
std::vector<Tensor> gatherRule(const trace::ops::Gather &op,
                               const std::vector<Tensor> &in, const Tensor &g) {
  const Tensor &params = in[0], &indices = in[1];
  int64_t axis = op.axis, r = indices.rank(), depth = params.shape()[axis];
  int64_t rank = g.rank(); // axis + r + (params.rank() - axis - 1)
  // g's dims: [pre (axis) | index dims (r) | post]; bring the index dims
  // first and flatten to [n, rest].
  std::vector<int64_t> perm;
  for (int64_t i = axis; i < axis + r; ++i)
    perm.push_back(i);
  for (int64_t i = 0; i < axis; ++i)
    perm.push_back(i);
  for (int64_t i = axis + r; i < rank; ++i)
    perm.push_back(i);
  Tensor moved = transpose(g, perm);
  int64_t n = shapes::numElements(indices.shape());
  Shape pre(params.shape().begin(), params.shape().begin() + axis),
      post(params.shape().begin() + axis + 1, params.shape().end());
  int64_t rest = times(shapes::numElements(pre), shapes::numElements(post));
  Shape grouped = {depth};
  grouped.insert(grouped.end(), pre.begin(), pre.end());
  grouped.insert(grouped.end(), post.begin(), post.end());
  // Reshapes to shapes with several dims unknown while tracing read them
  // at run time (from params' and the indices' shapes).
  auto dimsAt = [&](const std::vector<int64_t> &which) {
    return gather(shape(params, DType::i64),
                  Tensor(which, {static_cast<int64_t>(which.size())}));
  };
  std::vector<int64_t> others, order = {axis};
  for (int64_t i = 0; i < params.rank(); ++i)
    if (i != axis)
      others.push_back(i);
  order.insert(order.end(), others.begin(), others.end());
  // (So do those with one unknown and a known 0: an empty tensor's
  // element count does not tell the other.)
  bool readDims = shapes::isDynamic(n) ? shapes::isDynamic(rest) || rest == 0
                                       : shapes::isDynamic(rest) && n == 0;
  Tensor flat =
      readDims
          ? api::reshapeToShape(
                moved,
                concat({reshape(reduce_prod(shape(indices, DType::i64)), {1}),
                        reshape(reduce_prod(dimsAt(others)), {1})},
                       0),
                {n, rest})
          : reshapeTo(moved, {n, rest}, "gather");
  Tensor hot;
  if (!shapes::isDynamic(depth)) {
    hot = one_hot(reshape(indices, {-1}), depth, 1.0, 0.0, -1, g.dtype());
  } else {
    // The axis's size unknown while tracing (a batch of -1 gathered from):
    // the one-hot compares the indices with 0 .. depth - 1, which a staged
    // loop writes (the op set has no iota of run-time length).
    Tensor count = api::sizeAlong(params, axis);
    Tensor iota = fnc::for_range(
        zeros({}, DType::i64), count, ones({}, DType::i64),
        [](const Tensor &i, const Tensor &v) { return api::setRow(v, i, i); },
        zeros(reshape(count, {1}), DType::i64));
    hot = cast(equal(reshape(cast(indices, DType::i64), {-1, 1}),
                     reshape(iota, {1, -1})),
               g.dtype()); // [n, depth]
  }
  Tensor rows = matmul(transposeLast2(hot), flat); // [depth, rest]
  auto unknown = std::count_if(grouped.begin(), grouped.end(),
                               shapes::isDynamic);
  Tensor shaped =
      unknown > 1 || (unknown == 1 && std::count(grouped.begin(),
                                                 grouped.end(), 0) > 0)
          ? api::reshapeToShape(rows, dimsAt(order), grouped)
          : reshapeTo(rows, grouped, "gather");
  // Move the depth dim back to `axis`.
  std::vector<int64_t> back;
  for (int64_t i = 1; i <= axis; ++i)
    back.push_back(i);
  back.push_back(0);
  for (int64_t i = axis + 1; i < params.rank(); ++i)
    back.push_back(i);
  return {transpose(shaped, back), Tensor()};
}

std::vector<Tensor> squeezeRule(const trace::ops::Squeeze &s, const Tensor &x,
                                const Tensor &g) {
  std::vector<int64_t> axes;
  int64_t rank = x.rank();
  if (s.axes.empty()) {
    for (int64_t i = 0; i < rank; ++i)
      if (x.shape()[i] == 1)
        axes.push_back(i);
  } else {
    for (int64_t a : s.axes)
      axes.push_back(a < 0 ? a + rank : a);
  }
  std::sort(axes.begin(), axes.end());
  Tensor e = g;
  for (int64_t a : axes)
    e = expand_dims(e, a);
  return {e};
}

} // namespace

std::vector<Tensor> gradientsOf(const trace::OpAttrs &op,
                                const std::vector<Tensor> &in,
                                const Tensor &out, const Tensor &g) {
  namespace ops = trace::ops;
  auto none = [&] { return std::vector<Tensor>(in.size()); };
  return std::visit(
      [&](const auto &o) -> std::vector<Tensor> {
        using Op = std::decay_t<decltype(o)>;
        if constexpr (std::is_same_v<Op, ops::Unary>)
          return unary(o, in, out, g);
        else if constexpr (std::is_same_v<Op, ops::Binary>)
          return binary(o, in, out, g);
        else if constexpr (std::is_same_v<Op, ops::Reduce>)
          return reduction(o, in, out, g);
        else if constexpr (std::is_same_v<Op, ops::Matmul>)
          return matmulRule(in, g);
        else if constexpr (std::is_same_v<Op, ops::Softmax>)
          return softmaxRule(o, out, g);
        else if constexpr (std::is_same_v<Op, ops::Select>)
          return {Tensor(),
                  unbroadcast(select(in[0], g, zeros_like(g)), in[1]),
                  unbroadcast(select(in[0], zeros_like(g), g), in[2])};
        else if constexpr (std::is_same_v<Op, ops::Cast>)
          return {isFloat(in[0].dtype()) ? cast(g, in[0].dtype()) : Tensor()};
        else if constexpr (std::is_same_v<Op, ops::Transpose>) {
          std::vector<int64_t> inverse(o.perm.size());
          for (size_t i = 0; i < o.perm.size(); ++i)
            inverse[o.perm[i]] = static_cast<int64_t>(i);
          return {transpose(g, inverse)};
        } else if constexpr (std::is_same_v<Op, ops::Reshape>)
          return {api::reshapeLike(g, in[0])};
        else if constexpr (std::is_same_v<Op, ops::ReshapeToShape>)
          return {api::reshapeLike(g, in[0]), Tensor()};
        else if constexpr (std::is_same_v<Op, ops::BroadcastTo>)
          return {unbroadcast(g, in[0])};
        else if constexpr (std::is_same_v<Op, ops::ExpandDims>)
          return {squeeze(g, {o.axis})};
        else if constexpr (std::is_same_v<Op, ops::Squeeze>)
          return squeezeRule(o, in[0], g);
        else if constexpr (std::is_same_v<Op, ops::Slice>)
          return sliceRule(o, in[0], g);
        else if constexpr (std::is_same_v<Op, ops::StridedSlice>)
          // TensorFlow's StridedSliceGrad: g scattered into zeros of x's
          // shape, its bounds resolved at run time like the forward's.
          return {api::stridedSliceGrad(in[0], g, o.spec)};
        else if constexpr (std::is_same_v<Op, ops::StridedSliceGrad>)
          // Linear in the gradient operand; the input gives only its shape.
          return {Tensor(), api::stridedSlice(g, o.spec, "strided_slice")};
        else if constexpr (std::is_same_v<Op, ops::Pad>)
          return padRule(o, in[0], g);
        else if constexpr (std::is_same_v<Op, ops::Concat>)
          return concatRule(o, in, g);
        else if constexpr (std::is_same_v<Op, ops::Gather>)
          return gatherRule(o, in, g);
        else if constexpr (std::is_same_v<Op, ops::Conv2D>)
          return conv2dRule(o, in, g);
        else if constexpr (std::is_same_v<Op, ops::Pool2D>)
          // The dedicated backward ops, as TF's MaxPoolGrad / AvgPoolGrad.
          return {api::pool2dGrad(o.max, in[0], g, o.ksize, o.strides,
                                  o.samePadding)};
        else if constexpr (std::is_same_v<Op, ops::Pool2DGrad>) {
          if (o.max)
            return {Tensor(), maxPoolGradRule(o, in[0], in[1], g)};
          // Linear in the output gradient, the transpose of avg_pool2d;
          // the input gives only its shape.
          return {Tensor(), avg_pool2d(g, o.ksize, o.strides,
                                       o.samePadding ? "SAME" : "VALID")};
        } else if constexpr (std::is_same_v<Op, ops::SetRow>) {
          // x with row `index` replaced by value. The row is read before
          // it is zeroed, so that the zeroing updates g in place (a staged
          // loop carries g: the other order copies it every iteration).
          Tensor row = gather(g, in[1], 0);
          return {api::setRow(g, in[1], zeros_like(in[2])), Tensor(), row};
        }
        else if constexpr (std::is_same_v<Op, ops::DynamicSlice>)
          return {dynamicSliceRule(o, in, g), Tensor(), Tensor()};
        else if constexpr (std::is_same_v<Op, ops::DynamicUpdateSlice>) {
          // x with [start, start + n) replaced by the update: g there is
          // the update's, zeros there the input's (read first, as above).
          Tensor part = conformTo(
              api::dynamicSlice(g, o.axis, in[1],
                                api::sizeAlong(in[2], o.axis)),
              in[2].shape());
          return {api::dynamicUpdateSlice(g, o.axis, in[1], zeros_like(in[2])),
                  Tensor(), part};
        }
        else if constexpr (std::is_same_v<Op, ops::BroadcastToShape>)
          // fill(shape(x), value): the value's gradient sums g.
          return {unbroadcast(g, in[0]), Tensor()};
        else if constexpr (std::is_same_v<Op, ops::SumToShape>)
          // Linear in g; the shape operand has no gradient.
          return {api::broadcastLike(g, in[0]), Tensor()};
        else if constexpr (std::is_same_v<Op, ops::Range> ||
                           std::is_same_v<Op, ops::Eye> ||
                           std::is_same_v<Op, ops::ArgMax> ||
                           std::is_same_v<Op, ops::OneHot> ||
                           std::is_same_v<Op, ops::ShapeOf> ||
                           std::is_same_v<Op, ops::RandomUniform> ||
                           std::is_same_v<Op, ops::RandomNormal> ||
                           std::is_same_v<Op, ops::VarRead> ||
                           std::is_same_v<Op, ops::VarUpdate> ||
                           std::is_same_v<Op, ops::Print> ||
                           std::is_same_v<Op, ops::Strings>)
          // No float tensor operand (a variable's read is a source of its
          // own), or an integer or string result: no gradient flows.
          return none();
        else
          static_assert(sizeof(Op) == 0,
                        "an op family without a gradient rule: add one to "
                        "gradientsOf, or list it among those without "
                        "float operands");
      },
      op);
}

} // namespace fnc::grad
