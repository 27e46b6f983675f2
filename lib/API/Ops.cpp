//===- Ops.cpp - Eager entry points: creation, elementwise, linalg --------===//
//
// The public ops of fnc/Ops.h for creation, elementwise arithmetic,
// comparisons, logical ops, select, matmul and conv2d. Each public op has one
// entry point here that validates dtypes, asks the shared shape rules for the
// result shape and runs the reference kernel; the binary and unary ops share
// binaryOp()/unaryOp(). Shape ops and reductions are in ShapeOps.cpp.
//
//===----------------------------------------------------------------------===//

#include "fnc/API/OpSupport.h"
#include "fnc/API/Tape.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <sstream>

namespace fnc {
namespace api {

std::string describe(const Tensor &t) {
  if (!t.defined())
    return "<null tensor>";
  return shapes::describe(t.dtype(), t.shape());
}

profile::Span liveOpSpan(const char *op, Operands operands) {
  profile::Span span("op", op);
  std::string shapes;
  for (const Tensor *t : operands)
    shapes += (shapes.empty() ? "" : ", ") + describe(*t);
  span.arg("operands", shapes);
  return span;
}

void fail(ErrorKind kind, const char *op, const std::string &message,
          Operands operands) {
  std::string full = std::string("fnc::") + op + ": " + message;
  if (operands.size()) {
    full += operands.size() == 1 ? " (operand " : " (operands ";
    bool first = true;
    for (const Tensor *t : operands) {
      full += (first ? "" : ", ") + describe(*t);
      first = false;
    }
    full += ")";
  }
  throw Error(kind, full);
}

void rejectStrings(const char *op, Operands operands) {
  fail(ErrorKind::InvalidArgument, op,
       "string tensors are not accepted here; strings support ==, !=, +, "
       "fnc::print, fnc::cond and the fnc::strings functions "
       "(fnc/Strings.h, docs/Strings.md)",
       operands);
}

void requireFloat(const char *op, const Tensor &x, Operands operands) {
  if (isFloat(x.dtype()))
    return;
  std::string message = std::string("needs a float operand, got ") +
                        dtypeName(x.dtype()) +
                        "; cast first with fnc::cast(x, fnc::DType::f32)";
  if (operands.size())
    fail(ErrorKind::InvalidArgument, op, message, operands);
  fail(ErrorKind::InvalidArgument, op, message, {&x});
}

int64_t requireAxis(const char *op, const Tensor &x, int64_t axis) {
  int64_t a;
  if (!shapes::normalizeAxis(axis, x.rank(), a))
    fail(ErrorKind::InvalidArgument, op,
         "axis " + std::to_string(axis) + " is out of range for rank " +
             std::to_string(x.rank()) + " (give an axis in [-" +
             std::to_string(x.rank()) + ", " + std::to_string(x.rank()) + "))",
         {&x});
  return a;
}

Tensor sliceAlong(const Tensor &x, int64_t axis, int64_t begin, int64_t size) {
  std::vector<int64_t> begins(x.rank(), 0), sizes(x.rank(), -1);
  begins[axis] = begin;
  sizes[axis] = size;
  return slice(x, begins, sizes);
}

void requireSameDType(const char *op, const Tensor &a, const Tensor &b) {
  if (a.dtype() != b.dtype())
    fail(ErrorKind::InvalidArgument, op,
         std::string("operands have different dtypes ") + dtypeName(a.dtype()) +
             " and " + dtypeName(b.dtype()) +
             "; fnc never converts dtypes implicitly, convert one operand "
             "with fnc::cast",
         {&a, &b});
}

void requireValidShape(const char *op, const Shape &shape) {
  for (int64_t d : shape)
    if (shapes::isDynamic(d))
      fail(ErrorKind::InvalidArgument, op,
           "shape " + shapes::toString(shape) +
               " has an unknown dim (fnc::kUnknownDim: the static shape of "
               "a tensor while tracing); take the dims at run time with "
               "fnc::" + op + "(fnc::shape(x)) or fnc::zeros_like(x) / "
               "fnc::ones_like(x)",
           {});
  for (int64_t d : shape)
    if (d < 0)
      fail(ErrorKind::InvalidArgument, op,
           "shape " + shapes::toString(shape) +
               " has a negative dimension; dims must be >= 0",
           {});
}

void requireFillValue(const char *op, const Tensor &value) {
  if (value.rank() != 0)
    fail(ErrorKind::InvalidArgument, op,
         "the fill value must be a scalar (rank 0), got shape " +
             shapes::toString(value.shape()) + "; pass a scalar tensor",
         {&value});
}

ref::Array scalarArray(DType dtype, double value, const char *op,
                       const char *what) {
  auto notRepresentable = [&]() {
    std::ostringstream os;
    os.precision(17);
    os << value;
    fail(ErrorKind::InvalidArgument, op,
         std::string("the ") + what + " " + os.str() +
             " cannot be represented exactly as " + dtypeName(dtype) +
             "; use a value of that type or cast the tensor to another "
             "dtype with fnc::cast",
         {});
  };
  switch (dtype) {
  case DType::f32:
  case DType::f64:
    return ref::Array::scalar(dtype, value);
  case DType::i1:
    if (value != 0 && value != 1)
      notRepresentable();
    return ref::Array::scalar(dtype, value);
  case DType::i32:
  case DType::i64: {
    double lo = dtype == DType::i32 ? -2147483648.0 : -9223372036854775808.0;
    double hi = dtype == DType::i32 ? 2147483648.0 : 9223372036854775808.0;
    if (!(value >= lo && value < hi) || std::trunc(value) != value)
      notRepresentable();
    return ref::Array::scalarInt(dtype, static_cast<int64_t>(value));
  }
  case DType::str:
    fail(ErrorKind::InvalidArgument, op,
         std::string("cannot combine a string and a number (the ") + what +
             "); convert the number with fnc::strings::format",
         {});
  }
  throw Error(ErrorKind::Internal, "fnc: unknown dtype");
}

} // namespace api

using namespace api;

//===----------------------------------------------------------------------===//
// C++ scalar operands
//===----------------------------------------------------------------------===//

namespace detail {

Tensor scalarLike(const Tensor &like, double value, const char *op) {
  return wrap(scalarArray(like.dtype(), value, op, "C++ scalar"));
}

Tensor scalarLike(const Tensor &like, int64_t value, const char *op) {
  DType dtype = like.dtype();
  if (isFloat(dtype))
    return wrap(ref::Array::scalar(dtype, static_cast<double>(value)));
  bool fits =
      dtype == DType::i64 ||
      (dtype == DType::i32 && value >= std::numeric_limits<int32_t>::min() &&
       value <= std::numeric_limits<int32_t>::max()) ||
      (dtype == DType::i1 && (value == 0 || value == 1));
  if (!fits)
    fail(ErrorKind::InvalidArgument, op,
         "the C++ scalar " + std::to_string(value) +
             " cannot be represented as " + dtypeName(dtype) +
             " (the dtype of the tensor operand); use a smaller value or "
             "cast the tensor with fnc::cast",
         {&like});
  return wrap(ref::Array::scalarInt(dtype, value));
}

Tensor scalarLike(const Tensor &like, bool value, const char *op) {
  return scalarLike(like, static_cast<int64_t>(value), op);
}

} // namespace detail

//===----------------------------------------------------------------------===//
// Creation
//===----------------------------------------------------------------------===//

Tensor constant(const Tensor &value) {
  (void)value.dtype(); // rejects a null handle
  return value;
}

Tensor constant(const Tensor &value, DType dtype) { return cast(value, dtype); }

Tensor fill(const Shape &shape, const Tensor &value) {
  requireValidShape("fill", shape);
  requireFillValue("fill", value);
  auto span = opSpan("fill", {&value});
  // Dispatch point.
  Tensor out;
  if (trace::Recorder *r = recording()) {
    out = record(*r, trace::ops::BroadcastTo{}, value.dtype(), shape, {&value},
                 "fill");
  } else {
    ref::Array array = ref::Array::allocate(value.dtype(), shape);
    ref::broadcastTo(arrayOf(value), array);
    out = wrap(std::move(array));
  }
  return taped(std::move(out), {&value},
               [&] { return trace::ops::BroadcastTo{}; });
}

Tensor fill(const Shape &shape, double value, DType dtype) {
  requireValidShape("fill", shape);
  return fill(shape, wrap(scalarArray(dtype, value, "fill", "fill value")));
}

Tensor zeros(const Shape &shape, DType dtype) {
  requireValidShape("zeros", shape);
  return fill(shape, 0.0, dtype);
}

Tensor ones(const Shape &shape, DType dtype) {
  requireValidShape("ones", shape);
  return fill(shape, 1.0, dtype);
}

namespace api {
Tensor setRow(const Tensor &x, const Tensor &index, const Tensor &value) {
  auto span = opSpan("set_row", {&x, &index, &value});
  // Dispatch point.
  Tensor out;
  if (trace::Recorder *r = recording();
      r && (trace::isSymbolic(x) || trace::isSymbolic(index) ||
            trace::isSymbolic(value))) {
    out = record(*r, trace::ops::SetRow{}, x.dtype(), x.shape(),
                 {&x, &index, &value}, "set_row");
  } else {
    const ref::Array &in = arrayOf(x);
    int64_t i = arrayOf(index).getInt(0), rows = in.shape.at(0);
    if (i < 0 || i >= rows)
      fail(ErrorKind::OutOfRange, "set_row",
           "row index " + std::to_string(i) + " is out of range [0, " +
               std::to_string(rows) + ")",
           {&x});
    ref::Array array = ref::Array::allocate(in.dtype, in.shape);
    size_t rowBytes = rows ? in.numBytes() / rows : 0;
    std::memcpy(array.rawMutableData(), in.rawData(), in.numBytes());
    std::memcpy(static_cast<char *>(array.rawMutableData()) + i * rowBytes,
                arrayOf(value).rawData(), rowBytes);
    out = wrap(std::move(array));
  }
  return taped(std::move(out), {&x, &index, &value},
               [] { return trace::ops::SetRow{}; });
}

Tensor sizeAlong(const Tensor &t, int64_t axis) {
  int64_t n = t.shape().at(axis);
  if (!shapes::isDynamic(n))
    return Tensor(n);
  return reshape(slice(fnc::shape(t, DType::i64), {axis}, {1}), {});
}

Tensor dynamicSlice(const Tensor &x, int64_t axis, const Tensor &start,
                    const Tensor &size) {
  for (const Tensor *t : {&start, &size})
    if (t->rank() != 0 || isFloat(t->dtype()) || t->dtype() == DType::i1)
      fail(ErrorKind::InvalidArgument, "dynamic_slice",
           "the start and the size must be 0-d integer tensors", {t});
  if (axis < 0 || axis >= x.rank())
    fail(ErrorKind::InvalidArgument, "dynamic_slice",
         "axis " + std::to_string(axis) + " is out of range", {&x});
  auto span = opSpan("dynamic_slice", {&x, &start, &size});
  // Dispatch point.
  Tensor out;
  if (trace::Recorder *r = recording();
      r && (trace::isSymbolic(x) || trace::isSymbolic(start) ||
            trace::isSymbolic(size))) {
    Shape shape = x.shape();
    shape.at(axis) = shapes::kDynamic;
    out = record(*r, trace::ops::DynamicSlice{axis}, x.dtype(), shape,
                 {&x, &start, &size}, "dynamic_slice");
  } else {
    int64_t from = arrayOf(start).getInt(0), count = arrayOf(size).getInt(0),
            dim = x.shape().at(axis);
    if (from < 0 || count < 0 || from > dim - count)
      fail(ErrorKind::OutOfRange, "dynamic_slice",
           "the range [" + std::to_string(from) + ", " +
               std::to_string(from) + " + " + std::to_string(count) +
               ") is outside a dimension of size " + std::to_string(dim),
           {&x});
    std::vector<int64_t> begin(x.rank(), 0), sizes(x.rank(), -1);
    begin[axis] = from;
    sizes[axis] = count;
    tape::Suspended quiet; // one tape entry: this op's
    out = slice(x, begin, sizes);
  }
  return taped(std::move(out), {&x, &start, &size},
               [axis] { return trace::ops::DynamicSlice{axis}; });
}

Tensor dynamicUpdateSlice(const Tensor &x, int64_t axis, const Tensor &start,
                          const Tensor &update) {
  if (start.rank() != 0 || isFloat(start.dtype()) || start.dtype() == DType::i1)
    fail(ErrorKind::InvalidArgument, "dynamic_update_slice",
         "the start must be a 0-d integer tensor", {&start});
  if (axis < 0 || axis >= x.rank())
    fail(ErrorKind::InvalidArgument, "dynamic_update_slice",
         "axis " + std::to_string(axis) + " is out of range", {&x});
  if (update.dtype() != x.dtype() || update.rank() != x.rank())
    fail(ErrorKind::InvalidArgument, "dynamic_update_slice",
         "the update must have the input's dtype and rank", {&x, &update});
  auto span = opSpan("dynamic_update_slice", {&x, &start, &update});
  // Dispatch point.
  Tensor out;
  if (trace::Recorder *r = recording();
      r && (trace::isSymbolic(x) || trace::isSymbolic(start) ||
            trace::isSymbolic(update))) {
    out = record(*r, trace::ops::DynamicUpdateSlice{axis}, x.dtype(),
                 x.shape(), {&x, &start, &update}, "dynamic_update_slice");
  } else {
    int64_t from = arrayOf(start).getInt(0), dim = x.shape().at(axis),
            count = update.shape().at(axis);
    if (from < 0 || from > dim - count)
      fail(ErrorKind::OutOfRange, "dynamic_update_slice",
           "the range [" + std::to_string(from) + ", " +
               std::to_string(from) + " + " + std::to_string(count) +
               ") is outside a dimension of size " + std::to_string(dim),
           {&x});
    for (int64_t d = 0; d < x.rank(); ++d)
      if (d != axis && update.shape()[d] != x.shape()[d])
        fail(ErrorKind::InvalidArgument, "dynamic_update_slice",
             "the update's dim " + std::to_string(d) +
                 " differs from the input's",
             {&x, &update});
    std::vector<int64_t> begin(x.rank(), 0), sizes(x.rank(), -1);
    tape::Suspended quiet; // one tape entry: this op's
    sizes[axis] = from;
    Tensor before = slice(x, begin, sizes);
    begin[axis] = from + count;
    sizes[axis] = -1;
    out = concat({before, update, slice(x, begin, sizes)}, axis);
  }
  return taped(std::move(out), {&x, &start, &update},
               [axis] { return trace::ops::DynamicUpdateSlice{axis}; });
}

void noteShapeValues(const Tensor &shape, const Shape &known) {
  if (trace::Recorder *r = recording(); r && trace::isSymbolic(shape))
    r->shapeValues.emplace_back(r->valueOf(shape, "shape"), known);
}
} // namespace api

Tensor shape(const Tensor &x, DType dtype) {
  const Shape &dims = x.shape(); // rejects a null handle
  if (dtype != DType::i32 && dtype != DType::i64)
    fail(ErrorKind::InvalidArgument, "shape",
         std::string("the dtype must be int32 or int64, got ") +
             dtypeName(dtype),
         {&x});
  bool known = std::none_of(dims.begin(), dims.end(), shapes::isDynamic);
  // Dispatch point: a shape with an unknown dim is read at run time; a
  // known one is a constant, eagerly and in a trace.
  if (trace::Recorder *r = recording(); r && !known) {
    Tensor t = record(*r, trace::ops::ShapeOf{}, dtype,
                      {static_cast<int64_t>(dims.size())}, {&x}, "shape");
    noteShapeValues(t, dims);
    return t;
  }
  ref::Array out =
      ref::Array::allocate(dtype, {static_cast<int64_t>(dims.size())});
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dtype == DType::i32)
      out.mutableData<int32_t>()[i] = static_cast<int32_t>(dims[i]);
    else
      out.mutableData<int64_t>()[i] = dims[i];
  }
  return wrap(std::move(out));
}

namespace api {

Shape dimsOfShapeTensor(const Tensor &shapeTensor, const char *op) {
  const Shape &s = shapeTensor.shape(); // rejects a null handle
  if ((shapeTensor.dtype() != DType::i32 &&
       shapeTensor.dtype() != DType::i64) ||
      s.size() != 1 || shapes::isDynamic(s[0]))
    fail(ErrorKind::InvalidArgument, op,
         "the shape must be a 1-D int32 or int64 tensor of known length "
         "(such as fnc::shape(x))",
         {&shapeTensor});
  const TensorImpl &impl = detail::TensorAccess::impl(shapeTensor);
  Shape dims;
  if (!impl.symbolic()) {
    const ref::Array &a = impl.array();
    for (int64_t i = 0; i < s[0]; ++i)
      dims.push_back(a.getInt(i));
    return dims;
  }
  // The dims known while tracing (those of x in fnc::shape(x)).
  trace::Recorder *r = recording();
  if (!r)
    impl.array(op); // a leaked symbolic tensor: throws the leak error
  int64_t id = r->valueOf(shapeTensor, op);
  dims.assign(static_cast<size_t>(s[0]), shapes::kDynamic);
  for (const auto &[known, knownDims] : r->shapeValues)
    if (known == id)
      dims = knownDims;
  return dims;
}

} // namespace api

namespace detail {

Tensor fillFromShapeTensor(const Tensor &shapeTensor, const Tensor &value,
                           const char *op) {
  requireFillValue(op, value);
  Shape shape = api::dimsOfShapeTensor(shapeTensor, op);
  if (!TensorAccess::impl(shapeTensor).symbolic())
    return fill(shape, value); // known sizes: the Shape overload checks them
  // Dispatch point: sizes read at run time.
  Tensor out = record(*recording(), trace::ops::BroadcastToShape{},
                      value.dtype(), std::move(shape), {&value, &shapeTensor},
                      op);
  return api::taped(std::move(out), {&value, &shapeTensor},
                    [] { return trace::ops::BroadcastToShape{}; });
}

Tensor fillFromShapeTensor(const Tensor &shape, double value, DType dtype,
                           const char *op) {
  return fillFromShapeTensor(
      shape, wrap(scalarArray(dtype, value, op, "fill value")), op);
}

} // namespace detail

Tensor zeros_like(const Tensor &x) {
  return detail::fillFromShapeTensor(shape(x, DType::i64), 0.0, x.dtype(),
                                     "zeros_like");
}

Tensor ones_like(const Tensor &x) {
  return detail::fillFromShapeTensor(shape(x, DType::i64), 1.0, x.dtype(),
                                     "ones_like");
}

Tensor range(double start, double limit, double delta, DType dtype) {
  if (dtype == DType::i1)
    fail(ErrorKind::InvalidArgument, "range",
         "dtype bool is not supported; use a number dtype", {});
  if (isInteger(dtype) &&
      (std::trunc(start) != start || std::trunc(limit) != limit ||
       std::trunc(delta) != delta))
    fail(ErrorKind::InvalidArgument, "range",
         std::string("start, limit and delta must be integers for dtype ") +
             dtypeName(dtype) + "; use a float dtype for fractional steps",
         {});
  shapes::ShapeResult r = shapes::range(start, limit, delta);
  Shape shape = checked(r, "range", {});
  auto span = opSpan("range", {});
  // Dispatch point.
  if (trace::Recorder *r = recording()) {
    return record(*r, trace::ops::Range{start, limit, delta}, dtype, shape, {},
                  "range");
  }
  ref::Array out = ref::Array::allocate(dtype, shape);
  ref::range(start, delta, out);
  return wrap(std::move(out));
}

Tensor eye(int64_t n, int64_t m, DType dtype) {
  if (m < 0)
    m = n;
  if (n < 0)
    fail(ErrorKind::InvalidArgument, "eye",
         "the number of rows must be >= 0, got " + std::to_string(n), {});
  auto span = opSpan("eye", {});
  // Dispatch point.
  if (trace::Recorder *r = recording()) {
    return record(*r, trace::ops::Eye{}, dtype, {n, m}, {}, "eye");
  }
  ref::Array out = ref::Array::allocate(dtype, {n, m});
  ref::eye(out);
  return wrap(std::move(out));
}

Tensor cast(const Tensor &x, DType dtype) {
  if (x.dtype() == dtype)
    return x;
  auto span = opSpan("cast", {&x});
  // Dispatch point.
  Tensor out;
  if (trace::Recorder *r = recording()) {
    out = record(*r, trace::ops::Cast{}, dtype, x.shape(), {&x}, "cast");
  } else {
    ref::Array array = ref::Array::allocate(dtype, x.shape());
    ref::cast(arrayOf(x), array);
    out = wrap(std::move(array));
  }
  return taped(std::move(out), {&x}, [&] { return trace::ops::Cast{}; });
}

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

namespace {

/// Throws unless an op whose operands must be of `dtypes` accepts `dtype`.
void requireDTypes(scalar::DTypes dtypes, DType dtype, const char *name,
                   Operands operands) {
  if (scalar::accepts(dtypes, dtype))
    return;
  bool unary = operands.size() == 1;
  std::string got = dtypeName(dtype);
  std::string why;
  if (dtypes == scalar::DTypes::Bool)
    why = unary ? "needs a bool operand, got " + got +
                      "; compare first (e.g. x == 0)"
                : "needs bool operands, got " + got +
                      "; compare first (e.g. x > 0) or convert with "
                      "fnc::cast(x, fnc::DType::i1)";
  else if (dtype == DType::i1)
    why = unary ? "is not defined for bool; use fnc::logical_not, or convert "
                  "with fnc::cast(x, fnc::DType::f32)"
                : "is not defined for bool operands; use fnc::logical_and / "
                  "fnc::logical_or / fnc::not_equal, or convert with "
                  "fnc::cast(x, fnc::DType::i32)";
  else
    why =
        std::string(unary ? "needs a float operand" : "needs float operands") +
        ", got " + got + "; cast first with fnc::cast(x, fnc::DType::f32)";
  fail(ErrorKind::InvalidArgument, name, why, operands);
}

/// The one element of a float tensor of size 1.
static double onlyElement(const Tensor &t) {
  const ref::Array &a = arrayOf(t);
  return a.dtype == DType::f32 ? a.data<float>()[0] : a.data<double>()[0];
}

Tensor binaryOp(ref::BinaryOp op, const Tensor &x, const Tensor &y) {
  if (x.dtype() == DType::str || y.dtype() == DType::str) [[unlikely]]
    return binaryStrings(op, x, y);
  const char *name = ref::binaryOpName(op);
  requireSameDType(name, x, y);
  DType dtype = x.dtype();
  requireDTypes(ref::binaryOpDTypes(op), dtype, name, {&x, &y});
  Shape shape = checked(shapes::broadcast(x.shape(), y.shape()), name, {&x, &y});
  DType resultDType = ref::isComparison(op) ? DType::i1 : dtype;
  auto span = opSpan(name, {&x, &y});
  // Dispatch point.
  Tensor out;
  if (trace::Recorder *r = recording()) {
    out = record(*r, trace::ops::Binary{op}, resultDType, std::move(shape),
                 {&x, &y}, name);
  } else {
    // pow(x, 2) is x * x (Scalar.h's Pow), on the multiply's kernel: numpy's
    // x ** 2 special-cases it too. The tapes still see pow.
    ref::BinaryOp kernelOp = op;
    const Tensor *rhs = &y;
    if (op == ref::BinaryOp::Pow && isFloat(dtype) && y.size() == 1 &&
        shape == x.shape() && onlyElement(y) == 2) {
      kernelOp = ref::BinaryOp::Mul;
      rhs = &x;
    }
    out = eagerResult(
        name, {&x, rhs}, shapes::numElements(shape),
        [&] { return kernelKey("binary", {int64_t(kernelOp)}); },
        [kernelOp](const std::vector<Tensor> &a) {
          return binaryOp(kernelOp, a[0], a[1]);
        },
        [&] {
          ref::Array array =
              ref::Array::allocate(resultDType, std::move(shape));
          ref::binary(kernelOp, arrayOf(x), arrayOf(*rhs), array);
          return result(std::move(array), name, {&x, rhs});
        });
  }
  return taped(std::move(out), {&x, &y},
               [&] { return trace::ops::Binary{op}; });
}

Tensor unaryOp(ref::UnaryOp op, const Tensor &x) {
  const char *name = ref::unaryOpName(op);
  DType dtype = x.dtype();
  requireDTypes(ref::unaryOpDTypes(op), dtype, name, {&x});
  auto span = opSpan(name, {&x});
  // Dispatch point.
  Tensor out;
  if (trace::Recorder *r = recording()) {
    out = record(*r, trace::ops::Unary{op}, dtype, x.shape(), {&x}, name);
  } else {
    out = eagerResult(
        name, {&x}, x.size(), [&] { return kernelKey("unary", {int64_t(op)}); },
        [op](const std::vector<Tensor> &a) { return unaryOp(op, a[0]); },
        [&] {
          ref::Array array = ref::Array::allocate(dtype, x.shape());
          ref::unary(op, arrayOf(x), array);
          return result(std::move(array), name, {&x});
        });
  }
  return taped(std::move(out), {&x}, [&] { return trace::ops::Unary{op}; });
}

} // namespace

// One public function per elementwise op of the op table (FncOpTable.inc);
// their declarations, with the documentation, are in fnc/Ops.h.
#define FNC_BINARY_OP(KIND, CLASS, API, ...)                                   \
  Tensor API(const Tensor &x, const Tensor &y) {                               \
    return binaryOp(ref::BinaryOp::KIND, x, y);                                \
  }
#define FNC_COMPARE_OP(KIND, PREDICATE, API, ...)                              \
  Tensor API(const Tensor &x, const Tensor &y) {                               \
    return binaryOp(ref::BinaryOp::KIND, x, y);                                \
  }
#define FNC_UNARY_OP(KIND, CLASS, API, ...)                                    \
  Tensor API(const Tensor &x) { return unaryOp(ref::UnaryOp::KIND, x); }
#include "fnc/Dialect/Fnc/IR/FncOpTable.inc"

Tensor select(const Tensor &cond, const Tensor &a, const Tensor &b) {
  if (cond.dtype() != DType::i1)
    fail(ErrorKind::InvalidArgument, "select",
         std::string("the condition must be bool, got ") +
             dtypeName(cond.dtype()) + "; compare first (e.g. x > 0)",
         {&cond, &a, &b});
  requireSameDType("select", a, b);
  Shape shape = checked(shapes::broadcast({cond.shape(), a.shape(), b.shape()}),
                        "select", {&cond, &a, &b});
  auto span = opSpan("select", {&cond, &a, &b});
  // Dispatch point.
  Tensor out;
  if (trace::Recorder *r = recording()) {
    out = record(*r, trace::ops::Select{}, a.dtype(), std::move(shape),
                 {&cond, &a, &b}, "select");
  } else {
    if (wantsCompiled(shapes::numElements(shape)))
      out = runCompiled(kernelKey("select", {}), {&cond, &a, &b},
                        [](const std::vector<Tensor> &v) {
                          return select(v[0], v[1], v[2]);
                        });
    if (!out.defined()) {
      ref::Array array = ref::Array::allocate(a.dtype(), std::move(shape));
      ref::select(arrayOf(cond), arrayOf(a), arrayOf(b), array);
      out = wrap(std::move(array));
    }
  }
  return taped(std::move(out), {&cond, &a, &b},
               [&] { return trace::ops::Select{}; });
}

//===----------------------------------------------------------------------===//
// Linear algebra
//===----------------------------------------------------------------------===//

Tensor matmul(const Tensor &a, const Tensor &b) {
  requireSameDType("matmul", a, b);
  if (a.dtype() == DType::i1)
    fail(ErrorKind::InvalidArgument, "matmul",
         "is not defined for bool operands; cast them to a number dtype",
         {&a, &b});
  Shape shape =
      checked(shapes::matmul(a.shape(), b.shape()), "matmul", {&a, &b});
  auto span = opSpan("matmul", {&a, &b});
  // Dispatch point.
  Tensor out;
  if (trace::Recorder *r = recording()) {
    out = record(*r, trace::ops::Matmul{}, a.dtype(), std::move(shape),
                 {&a, &b}, "matmul");
  } else {
    // Work: multiply-adds, the result's elements times the inner dim.
    out = eagerResult(
        "matmul", {&a, &b},
        double(shapes::numElements(shape)) * a.shape().back(),
        [] { return kernelKey("matmul", {}); },
        [](const std::vector<Tensor> &v) { return matmul(v[0], v[1]); },
        [&] {
          ref::Array array = ref::Array::allocate(a.dtype(), std::move(shape));
          ref::matmul(arrayOf(a), arrayOf(b), array);
          return result(std::move(array), "matmul", {&a, &b});
        });
  }
  return taped(std::move(out), {&a, &b}, [&] { return trace::ops::Matmul{}; });
}

Tensor conv2d(const Tensor &input, const Tensor &filter,
              const std::vector<int64_t> &strides, const std::string &padding) {
  requireSameDType("conv2d", input, filter);
  if (input.dtype() == DType::i1)
    fail(ErrorKind::InvalidArgument, "conv2d",
         "is not defined for bool operands; cast them to a number dtype",
         {&input, &filter});
  if (strides.size() != 2)
    fail(ErrorKind::InvalidArgument, "conv2d",
         "strides must have 2 entries {stride_h, stride_w}, got " +
             std::to_string(strides.size()),
         {&input, &filter});
  shapes::Padding pad;
  if (padding == "VALID" || padding == "valid")
    pad = shapes::Padding::Valid;
  else if (padding == "SAME" || padding == "same")
    pad = shapes::Padding::Same;
  else
    fail(ErrorKind::InvalidArgument, "conv2d",
         "padding must be \"VALID\" or \"SAME\", got \"" + padding + "\"",
         {&input, &filter});
  Shape shape = checked(
      shapes::conv2d(input.shape(), filter.shape(), strides[0], strides[1], pad),
      "conv2d", {&input, &filter});
  auto span = opSpan("conv2d", {&input, &filter});
  // Dispatch point.
  Tensor out;
  if (trace::Recorder *r = recording()) {
    out = record(*r, trace::ops::Conv2D{strides, pad == shapes::Padding::Same},
                 input.dtype(), std::move(shape), {&input, &filter}, "conv2d");
  } else {
    // A kernel per shape: the register-blocked conv kernel needs known
    // dims (on [128,14,14,16] x [3,3,16,32] it takes 1.3 ms; 13.7 ms with
    // unknown dims).
    const Shape &f = filter.shape();
    out = eagerResult(
        "conv2d", {&input, &filter},
        double(shapes::numElements(shape)) * f[0] * f[1] * f[2],
        [&] {
          return kernelKey("conv2d", {strides[0], strides[1], int64_t(pad)});
        },
        [strides, padding](const std::vector<Tensor> &v) {
          return conv2d(v[0], v[1], strides, padding);
        },
        [&] {
          int64_t padTop, padBottom, padLeft, padRight;
          shapes::conv2dPadding(input.shape()[1], f[0], strides[0], pad,
                                padTop, padBottom);
          shapes::conv2dPadding(input.shape()[2], f[1], strides[1], pad,
                                padLeft, padRight);
          ref::Array array =
              ref::Array::allocate(input.dtype(), std::move(shape));
          ref::conv2d(arrayOf(input), arrayOf(filter), strides[0], strides[1],
                      padTop, padLeft, array);
          return result(std::move(array), "conv2d", {&input, &filter});
        },
        /*exactShapes=*/true);
  }
  return taped(std::move(out), {&input, &filter}, [&] {
    return trace::ops::Conv2D{strides, pad == shapes::Padding::Same};
  });
}

} // namespace fnc
