//===- Composites.cpp - Ops built from other ops --------------------------===//
//
// stack, unstack, split, tile, clip_by_value, global_norm,
// clip_by_global_norm and moments, written with the public ops as
// TensorFlow writes them in Python: each runs eagerly, stages, interprets and
// differentiates as the ops it is made of (docs/ApiToOps.md lists them).
// Only the arguments are checked here, so that an error names the call the
// user wrote instead of an op inside it. Also stop_gradient
// (fnc/GradientTape.h), which moments uses: a new handle on the same value.
//
//===----------------------------------------------------------------------===//

#include "fnc/API/OpSupport.h"
#include "fnc/GradientTape.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace fnc {

using namespace api;

namespace {

/// The size of dim `a` of `x`, which `op` needs known while tracing.
int64_t knownDim(const char *op, const Tensor &x, int64_t a,
                 const char *because) {
  int64_t d = x.shape()[a];
  if (shapes::isDynamic(d))
    fail(ErrorKind::InvalidArgument, op,
         "dim " + std::to_string(a) + " is unknown while tracing, and " +
             because +
             "; give that dim a size in the input_signature (or call "
             "without one)",
         {&x});
  return d;
}

} // namespace

Tensor stop_gradient(const Tensor &x) {
  const TensorImpl &impl = detail::TensorAccess::impl(x);
  if (!impl.symbolic())
    return wrap(impl.array());
  return trace::makeSymbolic(impl.dtype(), impl.shape(), impl.token(),
                             impl.id(), impl.name());
}

Tensor stack(const std::vector<Tensor> &values, int64_t axis) {
  if (values.empty())
    fail(ErrorKind::InvalidArgument, "stack",
         "needs at least one tensor; pass a non-empty std::vector", {});
  const Tensor &first = values[0];
  for (const Tensor &t : values) {
    requireSameDType("stack", first, t);
    const Shape &a = first.shape(), &b = t.shape();
    bool same = a.size() == b.size();
    for (size_t i = 0; same && i < a.size(); ++i)
      same = a[i] == b[i] || shapes::isDynamic(a[i]) || shapes::isDynamic(b[i]);
    if (!same)
      fail(ErrorKind::InvalidArgument, "stack",
           "every tensor must have the same shape, got " + shapes::toString(a) +
               " and " + shapes::toString(b),
           {&first, &t});
  }
  int64_t a;
  if (!shapes::normalizeAxis(axis, first.rank() + 1, a))
    fail(ErrorKind::InvalidArgument, "stack",
         "axis " + std::to_string(axis) + " is out of range for stacking " +
             "tensors of rank " + std::to_string(first.rank()) +
             " (give an axis in [-" + std::to_string(first.rank() + 1) + ", " +
             std::to_string(first.rank()) + "])",
         {&first});
  std::vector<Tensor> parts;
  for (const Tensor &t : values)
    parts.push_back(expand_dims(t, a));
  return parts.size() == 1 ? parts[0] : concat(parts, a);
}

std::vector<Tensor> unstack(const Tensor &x, int64_t axis) {
  if (x.rank() == 0)
    fail(ErrorKind::InvalidArgument, "unstack",
         "needs a tensor of rank >= 1, got a scalar", {&x});
  int64_t a = requireAxis("unstack", x, axis);
  int64_t n = knownDim("unstack", x, a, "it is the number of results");
  std::vector<Tensor> out;
  for (int64_t i = 0; i < n; ++i)
    out.push_back(squeeze(sliceAlong(x, a, i, 1), {a}));
  return out;
}

std::vector<Tensor> split(const Tensor &x, int64_t num, int64_t axis) {
  if (x.rank() == 0)
    fail(ErrorKind::InvalidArgument, "split",
         "needs a tensor of rank >= 1, got a scalar", {&x});
  int64_t a = requireAxis("split", x, axis);
  if (num <= 0)
    fail(ErrorKind::InvalidArgument, "split",
         "the number of parts must be positive, got " + std::to_string(num),
         {&x});
  int64_t d = knownDim("split", x, a, "the parts' sizes depend on it");
  if (d % num != 0)
    fail(ErrorKind::InvalidArgument, "split",
         "dim " + std::to_string(a) + " of size " + std::to_string(d) +
             " does not split into " + std::to_string(num) +
             " equal parts; give the sizes of the parts instead",
         {&x});
  std::vector<Tensor> out;
  for (int64_t i = 0; i < num; ++i)
    out.push_back(sliceAlong(x, a, i * (d / num), d / num));
  return out;
}

std::vector<Tensor> split(const Tensor &x, const std::vector<int64_t> &sizes,
                          int64_t axis) {
  if (x.rank() == 0)
    fail(ErrorKind::InvalidArgument, "split",
         "needs a tensor of rank >= 1, got a scalar", {&x});
  int64_t a = requireAxis("split", x, axis);
  if (sizes.empty())
    fail(ErrorKind::InvalidArgument, "split",
         "needs at least one size of a part", {&x});
  int64_t known = 0, rest = -1;
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] == -1 && rest < 0) {
      rest = static_cast<int64_t>(i);
      continue;
    }
    if (sizes[i] < 0)
      fail(ErrorKind::InvalidArgument, "split",
           "sizes " + shapes::toString(sizes) +
               ": each size must be >= 0, one of them may be -1 (the rest)",
           {&x});
    known += sizes[i];
  }
  int64_t d = x.shape()[a];
  std::vector<int64_t> resolved = sizes;
  if (shapes::isDynamic(d)) {
    // Slices from known offsets: a rest only at the end, read at run time.
    if (rest >= 0 && rest != static_cast<int64_t>(sizes.size()) - 1)
      knownDim("split", x, a,
               "a size of -1 before the last part needs its size");
    if (rest < 0)
      knownDim("split", x, a, "the sizes must add up to it");
  } else {
    if (rest >= 0 && known <= d)
      resolved[rest] = d - known;
    int64_t total = known + (rest >= 0 ? resolved[rest] : 0);
    if (total != d || (rest >= 0 && known > d))
      fail(ErrorKind::InvalidArgument, "split",
           "sizes " + shapes::toString(sizes) + " do not add up to dim " +
               std::to_string(a) + " of size " + std::to_string(d),
           {&x});
  }
  std::vector<Tensor> out;
  int64_t begin = 0;
  for (int64_t size : resolved) {
    out.push_back(sliceAlong(x, a, begin, size));
    begin += size;
  }
  return out;
}

Tensor tile(const Tensor &x, const std::vector<int64_t> &multiples) {
  const Shape &xs = x.shape();
  if (multiples.size() != xs.size())
    fail(ErrorKind::InvalidArgument, "tile",
         "needs one multiple per dim, got " + shapes::toString(multiples) +
             " for rank " + std::to_string(xs.size()),
         {&x});
  for (int64_t m : multiples)
    if (m < 0)
      fail(ErrorKind::InvalidArgument, "tile",
           "multiples " + shapes::toString(multiples) + " must be >= 0", {&x});
  if (std::all_of(multiples.begin(), multiples.end(),
                  [](int64_t m) { return m == 1; }))
    return x;
  // x as [1, d0, 1, d1, ...], broadcast to [m0, d0, m1, d1, ...], read as
  // [m0 * d0, m1 * d1, ...]: a gradient sums the copies back.
  Tensor spread = x;
  Shape target, result;
  for (size_t i = 0; i < xs.size(); ++i) {
    spread = expand_dims(spread, static_cast<int64_t>(2 * i));
    target.push_back(multiples[i]);
    target.push_back(xs[i]);
    result.push_back(shapes::isDynamic(xs[i]) ? shapes::kDynamic
                                              : multiples[i] * xs[i]);
  }
  if (std::none_of(xs.begin(), xs.end(), shapes::isDynamic))
    return reshape(broadcast_to(spread, target), result);
  // Dims unknown while tracing: the sizes are read when the code runs.
  Tensor dims = shape(x, DType::i64);
  Tensor m = Tensor(multiples, {static_cast<int64_t>(multiples.size())});
  Tensor pairs = reshape(stack({m, dims}, 1), {-1});
  return reshapeToShape(broadcast_to(spread, pairs), dims * m, result);
}

Tensor clip_by_value(const Tensor &x, const Tensor &lo, const Tensor &hi) {
  // tf.clip_by_value: min then max (lo wins where lo > hi); the ops'
  // gradients send ties to x, so the gradient passes where lo <= x <= hi.
  Tensor out = maximum(minimum(x, hi), lo);
  if (out.shape() != x.shape())
    fail(ErrorKind::InvalidArgument, "clip_by_value",
         "the bounds would stretch x to " + shapes::toString(out.shape()) +
             "; give bounds that broadcast to x's shape " +
             shapes::toString(x.shape()),
         {&x, &lo, &hi});
  return out;
}

Tensor global_norm(const std::vector<Tensor> &tensors) {
  if (tensors.empty())
    fail(ErrorKind::InvalidArgument, "global_norm",
         "needs at least one tensor; pass a non-empty std::vector", {});
  Tensor sum;
  for (const Tensor &t : tensors) {
    requireFloat("global_norm", t);
    requireSameDType("global_norm", tensors[0], t);
    Tensor s = reduce_sum(square(t));
    sum = sum.defined() ? sum + s : s;
  }
  return sqrt(sum);
}

std::pair<std::vector<Tensor>, Tensor>
clip_by_global_norm(const std::vector<Tensor> &tensors, double clip_norm) {
  if (!(clip_norm > 0))
    fail(ErrorKind::InvalidArgument, "clip_by_global_norm",
         "clip_norm must be positive, got " + std::to_string(clip_norm), {});
  Tensor norm = global_norm(tensors);
  // As TensorFlow: a norm of inf or NaN makes every result NaN.
  Tensor scale =
      minimum(1.0 / norm, 1.0 / clip_norm) * clip_norm + (norm - norm);
  std::vector<Tensor> clipped;
  for (const Tensor &t : tensors)
    clipped.push_back(t * scale);
  return {clipped, norm};
}

std::pair<Tensor, Tensor>
moments(const Tensor &x, const std::vector<int64_t> &axes, bool keepdims) {
  requireFloat("moments", x);
  Tensor mean = reduce_mean(x, axes, true);
  // The mean's own gradient is zero here (deviations add up to 0), as
  // tf.nn.moments says with stop_gradient.
  Tensor variance = reduce_mean(square(x - stop_gradient(mean)), axes, true);
  if (keepdims)
    return {mean, variance};
  std::vector<int64_t> all = axes;
  if (all.empty())
    for (int64_t i = 0; i < x.rank(); ++i)
      all.push_back(i);
  return {squeeze(mean, all), squeeze(variance, all)};
}

std::pair<Tensor, Tensor> top_k(const Tensor &x, int64_t k, bool sorted) {
  (void)sorted; // always sorted, which TensorFlow allows for false too
  const char *op = "top_k";
  if (x.rank() == 0)
    fail(ErrorKind::InvalidArgument, op,
         "needs a tensor of rank >= 1, got a scalar", {&x});
  if (x.dtype() == DType::i1)
    fail(ErrorKind::InvalidArgument, op,
         "needs a numeric operand, got bool; cast it first with "
         "fnc::cast(x, fnc::DType::i32)",
         {&x});
  int64_t last = x.rank() - 1;
  int64_t n = knownDim(op, x, last, "it is the number of candidates");
  if (k < 0 || k > n)
    fail(ErrorKind::InvalidArgument, op,
         "k must be in [0, " + std::to_string(n) + "] (the last dim), got " +
             std::to_string(k),
         {&x});
  if (k == 0)
    return {sliceAlong(x, last, 0, 0),
            cast(sliceAlong(x, last, 0, 0), DType::i32)};
  // k rounds, each taking the first of the largest values not taken yet
  // (NaN above every number: reduce_max propagates it), so equal values
  // come in index order and a row of -inf is still taken one at a time.
  bool floating = isFloat(x.dtype());
  Tensor lowest =
      floating ? detail::scalarLike(x, -INFINITY, op)
               : detail::scalarLike(
                     x,
                     x.dtype() == DType::i64
                         ? std::numeric_limits<int64_t>::lowest()
                         : int64_t{std::numeric_limits<int32_t>::lowest()},
                     op);
  Tensor positions = range(int32_t{0}, static_cast<int32_t>(n));
  Tensor minusZero = -zeros_like(x); // x + -0.0 is x, also for -0.0
  std::vector<Tensor> values, indices;
  Tensor taken;
  for (int64_t i = 0; i < k; ++i) {
    Tensor open = taken.defined() ? select(taken, lowest, x) : x;
    Tensor top = reduce_max(open, {last}, true);
    Tensor candidate = equal(x, top);
    if (floating)
      candidate = logical_or(candidate,
                             logical_and(not_equal(x, x), not_equal(top, top)));
    if (taken.defined())
      candidate = logical_and(candidate, logical_not(taken));
    Tensor index = argmax(cast(candidate, DType::i32), last, DType::i32);
    Tensor hit = equal(positions, expand_dims(index, last));
    values.push_back(reduce_sum(select(hit, x, minusZero), {last}));
    indices.push_back(index);
    taken = taken.defined() ? logical_or(taken, hit) : hit;
  }
  return {stack(values, last), stack(indices, last)};
}

} // namespace fnc
