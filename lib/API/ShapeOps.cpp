//===- ShapeOps.cpp - Eager entry points of the shape ops -----------------===//
//
// transpose, reshape, broadcast_to, expand_dims, squeeze, slice, pad,
// concat, gather and one_hot: validate, shape rule, kernel (reshape-like ops
// share the operand's buffer); and the gradient's sumToShape / broadcastLike.
//
//===----------------------------------------------------------------------===//

#include "fnc/API/OpSupport.h"

#include <algorithm>

namespace fnc {

using namespace api;

namespace {
void requireIndices(const char *op, const Tensor &indices,
                    const Tensor *other) {
  if (indices.dtype() != DType::i32 && indices.dtype() != DType::i64) {
    std::string msg = std::string("indices must be int32 or int64, got ") +
                      dtypeName(indices.dtype()) +
                      "; convert them with fnc::cast(indices, "
                      "fnc::DType::i64)";
    if (other)
      fail(ErrorKind::InvalidArgument, op, msg, {other, &indices});
    fail(ErrorKind::InvalidArgument, op, msg, {&indices});
  }
}
} // namespace

Tensor transpose(const Tensor &x, const std::vector<int64_t> &perm) {
  std::vector<int64_t> p = perm;
  if (p.empty())
    for (int64_t i = x.rank() - 1; i >= 0; --i)
      p.push_back(i);
  Shape shape = checked(shapes::transpose(x.shape(), p), "transpose", {&x});
  auto span = opSpan("transpose", {&x});
  // Dispatch point.
  Tensor out;
  if (trace::Recorder *r = recording()) {
    out = record(*r, trace::ops::Transpose{p}, x.dtype(), std::move(shape),
                 {&x}, "transpose");
  } else {
    ref::Array array = ref::Array::allocate(x.dtype(), std::move(shape));
    ref::transpose(arrayOf(x), p, array);
    out = wrap(std::move(array));
  }
  return taped(std::move(out), {&x}, [&] { return trace::ops::Transpose{p}; });
}

Tensor reshape(const Tensor &x, const Shape &target) {
  for (int64_t d : target) {
    if (shapes::isDynamic(d))
      fail(ErrorKind::InvalidArgument, "reshape",
           "target shape " + shapes::toString(target) +
               " has a dim unknown while tracing (the shape of a traced "
               "value); give -1 for the one dim to infer",
           {&x});
    if (d < -1)
      fail(ErrorKind::InvalidArgument, "reshape",
           "target shape " + shapes::toString(target) +
               " has a negative dimension other than -1; dims must be >= 0 "
               "(or -1 once, to infer it)",
           {&x});
  }
  Shape shape = checked(shapes::reshape(x.shape(), target), "reshape", {&x});
  auto span = opSpan("reshape", {&x});
  // Dispatch point.
  Tensor out;
  if (trace::Recorder *r = recording()) {
    out = record(*r, trace::ops::Reshape{}, x.dtype(), std::move(shape), {&x},
                 "reshape");
  } else {
    out = wrap(arrayOf(x).withShape(std::move(shape)));
  }
  return taped(std::move(out), {&x}, [&] { return trace::ops::Reshape{}; });
}

Tensor broadcast_to(const Tensor &x, const Shape &target) {
  for (int64_t d : target) {
    if (shapes::isDynamic(d))
      fail(ErrorKind::InvalidArgument, "broadcast_to",
           "target shape " + shapes::toString(target) +
               " has a dim unknown while tracing (the shape of a traced "
               "value); pass the shape as a tensor, "
               "fnc::broadcast_to(x, fnc::shape(y)), whose sizes are read "
               "when the code runs",
           {&x});
    if (d < 0)
      fail(ErrorKind::InvalidArgument, "broadcast_to",
           "target shape " + shapes::toString(target) +
               " has a negative dimension; dims must be >= 0",
           {&x});
  }
  Shape shape =
      checked(shapes::broadcastTo(x.shape(), target), "broadcast_to", {&x});
  if (shape == x.shape())
    return x;
  auto span = opSpan("broadcast_to", {&x});
  // Dispatch point.
  Tensor out;
  if (trace::Recorder *r = recording()) {
    out = record(*r, trace::ops::BroadcastTo{}, x.dtype(), std::move(shape),
                 {&x}, "broadcast_to");
  } else {
    ref::Array array = ref::Array::allocate(x.dtype(), std::move(shape));
    ref::broadcastTo(arrayOf(x), array);
    out = wrap(std::move(array));
  }
  return taped(std::move(out), {&x}, [&] { return trace::ops::BroadcastTo{}; });
}

Tensor expand_dims(const Tensor &x, int64_t axis) {
  Shape shape =
      checked(shapes::expandDims(x.shape(), axis), "expand_dims", {&x});
  auto span = opSpan("expand_dims", {&x});
  // Dispatch point.
  Tensor out;
  if (trace::Recorder *r = recording()) {
    out = record(*r, trace::ops::ExpandDims{axis}, x.dtype(), std::move(shape),
                 {&x}, "expand_dims");
  } else {
    out = wrap(arrayOf(x).withShape(std::move(shape)));
  }
  return taped(std::move(out), {&x},
               [&] { return trace::ops::ExpandDims{axis}; });
}

Tensor squeeze(const Tensor &x, const std::vector<int64_t> &axes) {
  Shape shape = checked(shapes::squeeze(x.shape(), axes), "squeeze", {&x});
  auto span = opSpan("squeeze", {&x});
  // Dispatch point.
  Tensor out;
  if (trace::Recorder *r = recording()) {
    out = record(*r, trace::ops::Squeeze{axes}, x.dtype(), std::move(shape),
                 {&x}, "squeeze");
  } else {
    out = wrap(arrayOf(x).withShape(std::move(shape)));
  }
  return taped(std::move(out), {&x}, [&] { return trace::ops::Squeeze{axes}; });
}

Tensor slice(const Tensor &x, const std::vector<int64_t> &begin,
             const std::vector<int64_t> &size,
             const std::vector<int64_t> &strides) {
  const Shape &in = x.shape();
  std::vector<int64_t> st = strides;
  if (st.empty())
    st.assign(in.size(), 1);
  // size -1 means "to the end" (tf.slice); the shape rule resolves it for
  // known dims, and the op keeps it for dims unknown while tracing.
  Shape shape = checked(shapes::slice(in, begin, size, st), "slice", {&x});
  std::vector<int64_t> sizes = shape;
  for (int64_t &d : sizes)
    if (shapes::isDynamic(d))
      d = shapes::kSliceToEnd;
  auto span = opSpan("slice", {&x});
  // Dispatch point.
  Tensor out;
  if (trace::Recorder *r = recording()) {
    out = record(*r, trace::ops::Slice{begin, sizes, st}, x.dtype(),
                 std::move(shape), {&x}, "slice");
  } else {
    ref::Array array = ref::Array::allocate(x.dtype(), std::move(shape));
    ref::slice(arrayOf(x), begin, st, array);
    out = wrap(std::move(array));
  }
  return taped(std::move(out), {&x}, [&] {
    return trace::ops::Slice{begin, sizes, st};
  });
}

Tensor pad(const Tensor &x,
           const std::vector<std::pair<int64_t, int64_t>> &paddings,
           double value, const std::vector<int64_t> &interior) {
  const Shape &in = x.shape(); // rejects a null handle
  std::vector<int64_t> low, high, inner = interior;
  for (const auto &[before, after] : paddings) {
    low.push_back(before);
    high.push_back(after);
  }
  if (inner.empty())
    inner.assign(in.size(), 0);
  Shape shape = checked(shapes::pad(in, low, high, inner), "pad", {&x});
  // Validates that the value fits the dtype.
  ref::Array fillValue = scalarArray(x.dtype(), value, "pad", "padding value");
  trace::ops::Pad attrs{low, high, inner, value};
  auto span = opSpan("pad", {&x});
  // Dispatch point.
  Tensor out;
  if (trace::Recorder *r = recording()) {
    out = record(*r, attrs, x.dtype(), std::move(shape), {&x}, "pad");
  } else {
    ref::Array array = ref::Array::allocate(x.dtype(), std::move(shape));
    ref::pad(arrayOf(x), low, inner, fillValue, array);
    out = wrap(std::move(array));
  }
  return taped(std::move(out), {&x}, [&] { return attrs; });
}

Tensor concat(const std::vector<Tensor> &values, int64_t axis) {
  if (values.empty())
    fail(ErrorKind::InvalidArgument, "concat",
         "needs at least one tensor; pass a non-empty std::vector", {});
  std::vector<Shape> shapes;
  for (const Tensor &t : values) {
    requireSameDType("concat", values[0], t);
    shapes.push_back(t.shape());
  }
  shapes::ShapeResult r = shapes::concat(shapes, axis);
  if (!r.ok()) {
    std::string all;
    for (const Tensor &t : values)
      all += (all.empty() ? "" : ", ") + describe(t);
    throw Error(ErrorKind::InvalidArgument,
                "fnc::concat: " + r.error + " (operands " + all + ")");
  }
  int64_t a;
  shapes::normalizeAxis(axis, values[0].rank(), a);
  auto span = opSpan("concat", {&values[0]});
  // Dispatch point.
  auto operands = [&] {
    std::vector<const Tensor *> pointers;
    for (const Tensor &t : values)
      pointers.push_back(&t);
    return pointers;
  };
  Tensor out;
  if (trace::Recorder *rec = recording()) {
    out = record(*rec, trace::ops::Concat{a}, values[0].dtype(), r.shape,
                 operands(), "concat");
  } else {
    std::vector<ref::Array> arrays;
    for (const Tensor &t : values)
      arrays.push_back(arrayOf(t));
    ref::Array array = ref::Array::allocate(values[0].dtype(), r.shape);
    ref::concat(arrays, a, array);
    out = wrap(std::move(array));
  }
  if (tape::anyActive() && isFloat(out.dtype()))
    tape::noteOp(trace::ops::Concat{a}, operands(), out);
  return out;
}

Tensor gather(const Tensor &params, const Tensor &indices, int64_t axis) {
  requireIndices("gather", indices, &params);
  Shape shape = checked(shapes::gather(params.shape(), indices.shape(), axis),
                        "gather", {&params, &indices});
  int64_t a;
  shapes::normalizeAxis(axis, params.rank(), a);
  auto span = opSpan("gather", {&params, &indices});
  // Dispatch point.
  Tensor out;
  if (trace::Recorder *r = recording()) {
    out = record(*r, trace::ops::Gather{a}, params.dtype(), std::move(shape),
                 {&params, &indices}, "gather");
  } else {
    ref::Array array = ref::Array::allocate(params.dtype(), std::move(shape));
    ref::gather(arrayOf(params), arrayOf(indices), a, array);
    out = wrap(std::move(array));
  }
  return taped(std::move(out), {&params, &indices},
               [&] { return trace::ops::Gather{a}; });
}

Tensor one_hot(const Tensor &indices, int64_t depth, double on, double off,
               int64_t axis, DType dtype) {
  requireIndices("one_hot", indices, nullptr);
  Shape shape = checked(shapes::oneHot(indices.shape(), depth, axis), "one_hot",
                        {&indices});
  int64_t a;
  shapes::normalizeAxis(axis, indices.rank() + 1, a);
  // Validates that on/off fit the dtype.
  scalarArray(dtype, on, "one_hot", "on value");
  scalarArray(dtype, off, "one_hot", "off value");
  auto span = opSpan("one_hot", {&indices});
  // Dispatch point.
  if (trace::Recorder *r = recording()) {
    return record(*r, trace::ops::OneHot{depth, a, on, off}, dtype,
                  std::move(shape), {&indices}, "one_hot");
  }
  ref::Array out = ref::Array::allocate(dtype, std::move(shape));
  ref::oneHot(arrayOf(indices), a, on, off, out);
  return wrap(std::move(out));
}

namespace api {

Tensor sumToShape(const Tensor &g, const Tensor &x) {
  const char *op = "sum_to_shape";
  const Shape &gs = g.shape(), &xs = x.shape(); // rejects null handles
  checked(shapes::broadcastTo(xs, gs), op, {&g, &x});
  trace::Recorder *r = recording();
  auto known = [](const Shape &s) {
    return std::none_of(s.begin(), s.end(), shapes::isDynamic);
  };
  if (!r || (known(gs) && known(xs))) {
    int64_t lead = static_cast<int64_t>(gs.size() - xs.size());
    std::vector<int64_t> axes;
    for (int64_t i = 0; i < static_cast<int64_t>(gs.size()); ++i)
      if (i < lead || (xs[i - lead] == 1 && gs[i] != 1))
        axes.push_back(i);
    return axes.empty() ? g : reshape(reduce_sum(g, axes), xs);
  }
  // Dispatch point: the sums are decided at run time.
  Tensor s = shape(x, DType::i64);
  Tensor out = record(*r, trace::ops::SumToShape{}, g.dtype(), xs, {&g, &s},
                      op);
  return taped(std::move(out), {&g, &s},
               [] { return trace::ops::SumToShape{}; });
}

Tensor reshapeToShape(const Tensor &x, const Tensor &shapeTensor,
                      const Shape &known) {
  Shape dims = dimsOfShapeTensor(shapeTensor, "reshape");
  trace::Recorder *r = recording();
  if (!r || !trace::isSymbolic(shapeTensor)) {
    // Sizes known now: the plain reshape checks them.
    Tensor out = reshape(x, dims);
    for (size_t i = 0; i < known.size(); ++i)
      if (!shapes::isDynamic(known[i]) && known[i] != out.shape()[i])
        fail(ErrorKind::InvalidArgument, "reshape",
             "the shape holds " + shapes::toString(out.shape()) + ", not " +
                 shapes::toString(known),
             {&x});
    return out;
  }
  // Dispatch point: sizes read at run time.
  Tensor out = record(*r, trace::ops::ReshapeToShape{}, x.dtype(), known,
                      {&x, &shapeTensor}, "reshape");
  return taped(std::move(out), {&x, &shapeTensor},
               [] { return trace::ops::ReshapeToShape{}; });
}

Tensor reshapeLike(const Tensor &x, const Tensor &like) {
  const Shape &ls = like.shape();
  if (!recording() || std::none_of(ls.begin(), ls.end(), shapes::isDynamic))
    return reshape(x, ls);
  return reshapeToShape(x, shape(like, DType::i64), ls);
}

Tensor broadcastLike(const Tensor &value, const Tensor &like) {
  const Shape &ls = like.shape();
  checked(shapes::broadcastTo(value.shape(), ls), "broadcast_to", {&value});
  trace::Recorder *r = recording();
  if (!r || std::none_of(ls.begin(), ls.end(), shapes::isDynamic))
    return broadcast_to(value, ls);
  // Dispatch point: sizes read at run time.
  Tensor s = shape(like, DType::i64);
  Tensor out = record(*r, trace::ops::BroadcastToShape{}, value.dtype(), ls,
                      {&value, &s}, "broadcast_to");
  return taped(std::move(out), {&value, &s},
               [] { return trace::ops::BroadcastToShape{}; });
}

} // namespace api

namespace detail {

Tensor broadcastToShapeTensor(const Tensor &x, const Tensor &shapeTensor) {
  Shape target = dimsOfShapeTensor(shapeTensor, "broadcast_to");
  trace::Recorder *r = recording();
  if (!r || !trace::isSymbolic(shapeTensor))
    return broadcast_to(x, target); // sizes known now: checked there
  Shape shape =
      checked(shapes::broadcastTo(x.shape(), target), "broadcast_to", {&x});
  // Dispatch point: sizes read at run time.
  Tensor out = record(*r, trace::ops::BroadcastToShape{}, x.dtype(),
                      std::move(shape), {&x, &shapeTensor}, "broadcast_to");
  return taped(std::move(out), {&x, &shapeTensor},
               [] { return trace::ops::BroadcastToShape{}; });
}

} // namespace detail

} // namespace fnc
