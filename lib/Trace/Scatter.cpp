//===- Scatter.cpp - scatter_nd, tensor_scatter_nd_update and _add --------===//
//
// TensorFlow's scatter ops, built from other ops as gather's gradient is
// (lib/Trace/Gradients.cpp): the index rows become one-hot rows over the
// positions of the result's outer dims, and a matmul of their transpose
// with the updates sums each update into its position. Infinities and NaN
// are summed apart (a count of each per position), so that an inf update
// does not turn the other positions into 0 * inf = NaN. Each index is
// checked against its dim: eagerly here, staged by a gather of the dim's
// positions (an out-of-range index is a run-time error). Beside
// fnc::while_loop (not in lib/API) because tensor_scatter_nd_update uses
// triu, which loops along a dim unknown while tracing.
//
//===----------------------------------------------------------------------===//

#include "fnc/API/OpSupport.h"
#include "fnc/Ops.h"

#include <cmath>

namespace fnc {

using namespace api;

namespace {

/// The checked arguments of a scatter into `shape`: the flat position of
/// each index row in shape[:q] ([N], int64), and the updates as [N, R].
struct Scattered {
  Tensor flat, updates;
  int64_t positions = 1, rest = 1; // P = prod(shape[:q]), R
};

Scattered prepare(const char *op, const Tensor &indices, const Tensor &updates,
                  const Shape &shape) {
  if (indices.dtype() != DType::i32 && indices.dtype() != DType::i64)
    fail(ErrorKind::InvalidArgument, op,
         std::string("indices must be int32 or int64, got ") +
             dtypeName(indices.dtype()),
         {&indices});
  if (updates.dtype() == DType::i1)
    fail(ErrorKind::InvalidArgument, op,
         "needs numeric updates, got bool; cast them first with "
         "fnc::cast(x, fnc::DType::i32)",
         {&updates});
  requireValidShape(op, shape);
  const Shape &is = indices.shape();
  int64_t rank = static_cast<int64_t>(shape.size());
  int64_t q = is.empty() ? shapes::kDynamic : is.back();
  if (is.empty() || shapes::isDynamic(q) || q < 1 || q > rank)
    fail(ErrorKind::InvalidArgument, op,
         "indices must be [..., q] with q in [1, " + std::to_string(rank) +
             "] (the dims each index row picks), known while tracing; got " +
             shapes::toString(is) + " for shape " + shapes::toString(shape),
         {&indices});
  // updates: indices.shape[:-1] + shape[q:].
  Shape want(is.begin(), is.end() - 1);
  want.insert(want.end(), shape.begin() + q, shape.end());
  const Shape &us = updates.shape();
  bool same = us.size() == want.size();
  for (size_t i = 0; same && i < us.size(); ++i)
    same = us[i] == want[i] || shapes::isDynamic(us[i]) ||
           shapes::isDynamic(want[i]);
  if (!same)
    fail(ErrorKind::InvalidArgument, op,
         "updates must be " + shapes::toString(want) +
             " (the indices' dims but the last, then the shape's after the " +
             std::to_string(q) + " each index picks), got " +
             shapes::toString(us),
         {&indices, &updates});
  Scattered s;
  for (int64_t d = 0; d < q; ++d)
    s.positions *= shape[d];
  for (int64_t d = q; d < rank; ++d)
    s.rest *= shape[d];
  Tensor rows = reshape(cast(indices, DType::i64), {-1, q});
  if (!trace::isSymbolic(rows)) {
    std::vector<int64_t> v = rows.to_vector<int64_t>();
    for (size_t i = 0; i < v.size(); ++i) {
      int64_t d = static_cast<int64_t>(i) % q;
      if (v[i] < 0 || v[i] >= shape[d])
        fail(ErrorKind::OutOfRange, op,
             "index row " + std::to_string(i / q) + " holds " +
                 std::to_string(v[i]) + " for dim " + std::to_string(d) +
                 " of size " + std::to_string(shape[d]) + " (shape " +
                 shapes::toString(shape) + ")",
             {&indices});
    }
  }
  // Row-major strides of shape[:q]; staged, each component passes through
  // a gather of its dim's positions, which checks it at run time.
  Tensor flat;
  int64_t stride = 1;
  for (int64_t d = q - 1; d >= 0; --d) {
    Tensor part = squeeze(sliceAlong(rows, 1, d, 1), {1});
    if (trace::isSymbolic(part))
      part = gather(range(int64_t{0}, shape[d]), part);
    Tensor term = stride == 1 ? part : part * Tensor(stride);
    flat = flat.defined() ? flat + term : term;
    stride *= shape[d];
  }
  s.flat = flat;
  s.updates = s.rest == 0 ? updates : reshape(updates, {-1, s.rest});
  return s;
}

/// `hot` [N, P] (0/1, the updates' dtype) transposed times `updates`
/// [N, R]: [P, R], each position the sum of the updates sent to it;
/// float infinities and NaN summed apart, as an elementwise sum would.
Tensor spread(const Tensor &hot, const Tensor &updates) {
  Tensor routes = transpose(hot);
  if (!isFloat(updates.dtype()))
    return matmul(routes, updates);
  Tensor zero = zeros_like(updates);
  Tensor finite = logical_not(
      logical_or(not_equal(updates, updates), equal(abs(updates), INFINITY)));
  Tensor up = cast(equal(updates, INFINITY), updates.dtype());
  Tensor down = cast(equal(updates, -INFINITY), updates.dtype());
  Tensor nan = cast(not_equal(updates, updates), updates.dtype());
  // One matmul for the four: the finite parts and the counts.
  int64_t r = updates.shape()[1];
  Tensor sums =
      matmul(routes, concat({select(finite, updates, zero), up, down, nan}, 1));
  auto part = [&](int64_t i) { return sliceAlong(sums, 1, i * r, r); };
  Tensor sum = part(0), ups = part(1) > 0.0, downs = part(2) > 0.0,
         nans = logical_or(part(3) > 0.0, logical_and(ups, downs));
  Tensor inf = detail::scalarLike(sum, INFINITY, "scatter_nd");
  sum = select(ups, inf, select(downs, -inf, sum));
  return select(nans, detail::scalarLike(sum, NAN, "scatter_nd"), sum);
}

/// The checks of a tensor_scatter_nd_* target: the updates' dtype, dims
/// known while tracing.
void requireTarget(const char *op, const Tensor &tensor,
                   const Tensor &updates) {
  requireSameDType(op, tensor, updates);
  for (int64_t d : tensor.shape())
    if (shapes::isDynamic(d))
      fail(ErrorKind::InvalidArgument, op,
           "the tensor's dims must be known while tracing, got " +
               shapes::toString(tensor.shape()),
           {&tensor});
}

} // namespace

Tensor scatter_nd(const Tensor &indices, const Tensor &updates,
                  const Shape &shape) {
  Scattered s = prepare("scatter_nd", indices, updates, shape);
  if (s.positions == 0 || s.rest == 0)
    return zeros(shape, updates.dtype());
  Tensor hot = one_hot(s.flat, s.positions, 1, 0, -1, updates.dtype());
  return reshape(spread(hot, s.updates), shape);
}

Tensor tensor_scatter_nd_add(const Tensor &tensor, const Tensor &indices,
                             const Tensor &updates) {
  requireTarget("tensor_scatter_nd_add", tensor, updates);
  Scattered s =
      prepare("tensor_scatter_nd_add", indices, updates, tensor.shape());
  if (s.positions == 0 || s.rest == 0)
    return tensor;
  Tensor hot = one_hot(s.flat, s.positions, 1, 0, -1, updates.dtype());
  return tensor + reshape(spread(hot, s.updates), tensor.shape());
}

Tensor tensor_scatter_nd_update(const Tensor &tensor, const Tensor &indices,
                                const Tensor &updates) {
  const char *op = "tensor_scatter_nd_update";
  requireTarget(op, tensor, updates);
  const Shape &shape = tensor.shape();
  Scattered s = prepare(op, indices, updates, shape);
  if (s.positions == 0 || s.rest == 0)
    return tensor;
  // Of index rows that repeat a position the last wins, as TensorFlow
  // applies them in order: a row is dropped when a later one has its
  // position.
  Tensor same =
      cast(equal(expand_dims(s.flat, 1), expand_dims(s.flat, 0)), DType::i32);
  Tensor later = reduce_any(triu(same, 1) > 0, {1});
  Tensor hot = one_hot(s.flat, s.positions, 1, 0, -1, updates.dtype());
  hot = select(expand_dims(later, 1), zeros_like(hot), hot);
  Tensor hit = reduce_sum(hot, {0}) > 0.0; // [P]
  Tensor values = reshape(spread(hot, s.updates), {s.positions, s.rest});
  Tensor mask = reshape(hit, {s.positions, 1});
  Tensor out = select(mask, values, reshape(tensor, {s.positions, s.rest}));
  return reshape(out, shape);
}

} // namespace fnc
