//===- Scans.cpp - cumsum, cumprod, band_part, tril, triu -----------------===//
//
// Ops built from other ops that need a staged loop where a dim is unknown
// while tracing (so they live beside fnc::while_loop, not in lib/API's
// Composites.cpp): each runs eagerly, stages, interprets and differentiates
// as the ops it is made of. Only the arguments are checked here, so that an
// error names the call the user wrote.
//
//===----------------------------------------------------------------------===//

#include "fnc/API/OpSupport.h"
#include "fnc/Control.h"
#include "fnc/Ops.h"

#include <optional>

namespace fnc {

using namespace api;

namespace {

/// x reversed along `a` (a strided slice of stride -1).
Tensor reversed(const Tensor &x, int64_t a) {
  std::vector<int64_t> zeros(x.rank(), 0), strides(x.rank(), 1);
  strides[a] = -1;
  int64_t all = (int64_t{1} << x.rank()) - 1;
  return strided_slice(x, zeros, zeros, strides, all, all);
}

/// A tensor of x's shape but `size` (an int64 scalar, read at run time
/// when staged) along `a`, every element `value` (x's dtype).
Tensor fillAlong(const Tensor &x, int64_t a, const Tensor &size, double value) {
  int64_t rank = x.rank();
  std::vector<int64_t> keep(rank, 1), put(rank, 0);
  keep[a] = 0;
  put[a] = 1;
  Tensor dims =
      shape(x, DType::i64) * Tensor(keep, {rank}) + Tensor(put, {rank}) * size;
  Shape known = x.shape();
  known[a] = shapes::kDynamic;
  noteShapeValues(dims, known);
  return detail::fillFromShapeTensor(dims, value, x.dtype(), "fill");
}

/// tf.cumsum / tf.cumprod (`product`): an inclusive scan along the axis by
/// doubling (Hillis and Steele): ceil(log2(n)) steps, each combining x with
/// x shifted by 1, 2, 4, ... along it (the identity shifted in), so every
/// step is a pad and a slice of the whole tensor, in C++ while the dim is
/// known, else a staged while_loop over the shifts.
Tensor scan(const char *op, const Tensor &x, int64_t axis, bool exclusive,
            bool reverse, bool product) {
  if (x.dtype() == DType::i1)
    fail(ErrorKind::InvalidArgument, op,
         "needs a numeric operand, got bool; cast it first with "
         "fnc::cast(x, fnc::DType::i32)",
         {&x});
  int64_t a = requireAxis(op, x, axis);
  double identity = product ? 1 : 0;
  auto combine = [&](const Tensor &u, const Tensor &v) {
    return product ? u * v : u + v;
  };
  Tensor y = reverse ? reversed(x, a) : x;
  std::vector<std::pair<int64_t, int64_t>> before(x.rank(), {0, 0});
  if (exclusive) { // the identity, then all but the last
    before[a] = {1, 0};
    std::vector<int64_t> zeros(x.rank(), 0), end(x.rank(), 0);
    end[a] = -1;
    int64_t all = (int64_t{1} << x.rank()) - 1;
    y = strided_slice(pad(y, before, identity), zeros, end, {}, all,
                      all & ~(int64_t{1} << a));
  }
  int64_t n = y.shape()[a];
  if (!shapes::isDynamic(n)) {
    for (int64_t shift = 1; shift < n; shift *= 2) {
      before[a] = {shift, 0};
      y = combine(y, pad(sliceAlong(y, a, 0, n - shift), before, identity));
    }
  } else {
    Tensor size = sizeAlong(y, a), zero = zeros({}, DType::i64);
    auto [shift, scanned] = while_loop(
        [&](const Tensor &shift, const Tensor &) { return shift < size; },
        [&](const Tensor &shift, const Tensor &v) {
          Tensor shifted = concat({fillAlong(v, a, shift, identity),
                                   dynamicSlice(v, a, zero, size - shift)},
                                  a);
          return std::tuple{shift * int64_t{2}, combine(v, shifted)};
        },
        std::tuple{ones({}, DType::i64), y});
    y = scanned;
  }
  return reverse ? reversed(y, a) : y;
}

/// 0, 1, ..., d - 1 (int64) for the dim `a` of `x` (d read at run time
/// where it is unknown while tracing).
Tensor positionsAlong(const char *op, const Tensor &x, int64_t a) {
  int64_t d = x.shape()[a];
  if (!shapes::isDynamic(d))
    return range(int64_t{0}, d);
  Tensor ones = fill(reshape(sizeAlong(x, a), {1}), Tensor(int64_t{1}));
  return scan(op, ones, 0, /*exclusive=*/true, false, false);
}

/// `x` where lo <= column - row <= hi in its last two dims (no bound where
/// absent), zeros elsewhere.
Tensor keepDiagonals(const char *op, const Tensor &x, std::optional<int64_t> lo,
                     std::optional<int64_t> hi) {
  if (x.rank() < 2)
    fail(ErrorKind::InvalidArgument, op,
         "needs a tensor of rank 2 or more (matrices in its last two dims), "
         "got rank " +
             std::to_string(x.rank()),
         {&x});
  int64_t r = x.rank();
  Tensor offset = expand_dims(positionsAlong(op, x, r - 1), 0) -
                  expand_dims(positionsAlong(op, x, r - 2), 1); // [m, n]
  Tensor keep = Tensor(true);
  if (lo)
    keep = logical_and(keep, offset >= Tensor(*lo));
  if (hi)
    keep = logical_and(keep, offset <= Tensor(*hi));
  return select(keep, x, zeros_like(x));
}

} // namespace

Tensor cumsum(const Tensor &x, int64_t axis, bool exclusive, bool reverse) {
  return scan("cumsum", x, axis, exclusive, reverse, false);
}

Tensor cumprod(const Tensor &x, int64_t axis, bool exclusive, bool reverse) {
  return scan("cumprod", x, axis, exclusive, reverse, true);
}

Tensor band_part(const Tensor &x, int64_t num_lower, int64_t num_upper) {
  return keepDiagonals(
      "band_part", x,
      num_lower < 0 ? std::nullopt : std::optional<int64_t>(-num_lower),
      num_upper < 0 ? std::nullopt : std::optional<int64_t>(num_upper));
}

Tensor tril(const Tensor &x, int64_t k) {
  return keepDiagonals("tril", x, std::nullopt, k);
}

Tensor triu(const Tensor &x, int64_t k) {
  return keepDiagonals("triu", x, k, std::nullopt);
}

} // namespace fnc
