//===- KernelCalls.cpp - Exception-free calls into the eager kernels ------===//
//
// Built with exceptions (see CMakeLists.txt). Each function does what an
// eager op does, minus the API's state (tracing, check-numerics): the shared
// shape rule, then the reference kernel, on the arrays behind the tensors.
// It runs inside guard(), which turns a thrown fnc::Error (or any other
// exception, e.g. std::bad_alloc) into an error value for the MLIR side.
//
//===----------------------------------------------------------------------===//

#include "KernelCalls.h"

#include "fnc/API/Arrays.h"
#include "fnc/API/OpSupport.h"
#include "fnc/Shape/ShapeRules.h"
#include "fnc/Strings.h"

#include <cstring>
#include <initializer_list>
#include <new>

namespace fnc::interp {

namespace {

template <typename Fn> KernelResult guard(Fn &&fn) noexcept {
  KernelResult result;
  try {
    result.value = fn();
  } catch (const Error &e) {
    result.ok = false;
    result.kind = e.kind();
    result.message = e.message();
  } catch (const std::bad_alloc &) {
    result.ok = false;
    result.kind = ErrorKind::OutOfRange;
    result.message = "out of memory";
  } catch (const std::exception &e) {
    result.ok = false;
    result.kind = ErrorKind::Internal;
    result.message = e.what();
  } catch (...) {
    result.ok = false;
    result.kind = ErrorKind::Internal;
    result.message = "unknown exception";
  }
  return result;
}

using api::arrayOf;
using api::wrap;
using Arrays = std::initializer_list<const ref::Array *>;

/// The shape of a successful rule, else InvalidArgument in the eager
/// format: "fnc::<op>: <message> (operands float32[2,3], ...)".
shapes::Shape checked(const shapes::ShapeResult &r, const char *op,
                      Arrays operands) {
  if (r.ok())
    return r.shape;
  std::string message = std::string("fnc::") + op + ": " + r.error;
  if (operands.size()) {
    message += operands.size() == 1 ? " (operand " : " (operands ";
    bool first = true;
    for (const ref::Array *a : operands) {
      message += (first ? "" : ", ") + shapes::describe(a->dtype, a->shape);
      first = false;
    }
    message += ")";
  }
  throw Error(ErrorKind::InvalidArgument, message);
}

/// `axis` normalized for `rank` (the shape rule has checked it).
int64_t normalized(int64_t axis, int64_t rank) {
  int64_t a = 0;
  shapes::normalizeAxis(axis, rank, a);
  return a;
}

/// A rank-0 array of `dtype` holding `value` converted like fnc.fill
/// converts (integers truncate toward zero, bool is value != 0).
ref::Array convertedScalar(DType dtype, double value) {
  ref::Array wide = ref::Array::scalar(DType::f64, value);
  ref::Array out = ref::Array::allocate(dtype, {});
  ref::cast(wide, out);
  return out;
}

} // namespace

KernelResult makeTensor(DType dtype, const Shape &shape,
                        const void *data) noexcept {
  return guard([&] {
    ref::Array a = ref::Array::allocate(dtype, shape);
    if (a.numBytes())
      std::memcpy(a.rawMutableData(), data, a.numBytes());
    return wrap(std::move(a));
  });
}

bool readInt(const Tensor &t, int64_t index, int64_t &value,
             std::string &error) noexcept {
  KernelResult r = guard([&] {
    const ref::Array &a = arrayOf(t);
    if (index < 0 || index >= a.numElements())
      throw Error(ErrorKind::OutOfRange, "element index out of range");
    if (isFloat(a.dtype))
      throw Error(ErrorKind::InvalidArgument,
                  std::string("expected an integer tensor, got ") +
                      dtypeName(a.dtype));
    value = a.getInt(index);
    return t;
  });
  if (!r.ok)
    error = r.message;
  return r.ok;
}

bool readBool(const Tensor &t, bool &value, std::string &error) noexcept {
  KernelResult r = guard([&] {
    value = t.item<bool>();
    return t;
  });
  if (!r.ok)
    error = r.message;
  return r.ok;
}

KernelResult fill(DType dtype, const Shape &shape, double value) noexcept {
  return guard([&] {
    ref::Array out = ref::Array::allocate(dtype, shape);
    ref::broadcastTo(convertedScalar(dtype, value), out);
    return wrap(std::move(out));
  });
}

KernelResult range(DType dtype, double start, double delta,
                   int64_t count) noexcept {
  return guard([&] {
    ref::Array a = ref::Array::allocate(dtype, {count});
    ref::range(start, delta, a);
    return wrap(std::move(a));
  });
}

KernelResult eye(DType dtype, int64_t n, int64_t m) noexcept {
  return guard([&] {
    ref::Array a = ref::Array::allocate(dtype, {n, m});
    ref::eye(a);
    return wrap(std::move(a));
  });
}

KernelResult cast(const Tensor &x, DType dtype) noexcept {
  return guard([&] {
    const ref::Array &in = arrayOf(x);
    if (in.dtype == dtype)
      return x;
    ref::Array out = ref::Array::allocate(dtype, in.shape);
    ref::cast(in, out);
    return wrap(std::move(out));
  });
}

KernelResult binary(ref::BinaryOp op, const Tensor &x,
                    const Tensor &y) noexcept {
  return guard([&] {
    if (x.dtype() == DType::str)
      return api::binaryStrings(op, x, y);
    const ref::Array &a = arrayOf(x), &b = arrayOf(y);
    const char *name = ref::binaryOpName(op);
    shapes::Shape shape =
        checked(shapes::broadcast(a.shape, b.shape), name, {&a, &b});
    ref::Array out = ref::Array::allocate(
        ref::isComparison(op) ? DType::i1 : a.dtype, std::move(shape));
    ref::binary(op, a, b, out);
    return wrap(std::move(out));
  });
}

KernelResult unary(ref::UnaryOp op, const Tensor &x) noexcept {
  return guard([&] {
    const ref::Array &a = arrayOf(x);
    ref::Array out = ref::Array::allocate(a.dtype, a.shape);
    ref::unary(op, a, out);
    return wrap(std::move(out));
  });
}

KernelResult select(const Tensor &cond, const Tensor &x,
                    const Tensor &y) noexcept {
  return guard([&] {
    const ref::Array &c = arrayOf(cond), &a = arrayOf(x), &b = arrayOf(y);
    shapes::Shape shape = checked(
        shapes::broadcast({c.shape, a.shape, b.shape}), "select", {&c, &a, &b});
    ref::Array out = ref::Array::allocate(a.dtype, std::move(shape));
    ref::select(c, a, b, out);
    return wrap(std::move(out));
  });
}

KernelResult matmul(const Tensor &x, const Tensor &y) noexcept {
  return guard([&] {
    const ref::Array &a = arrayOf(x), &b = arrayOf(y);
    shapes::Shape shape =
        checked(shapes::matmul(a.shape, b.shape), "matmul", {&a, &b});
    ref::Array out = ref::Array::allocate(a.dtype, std::move(shape));
    ref::matmul(a, b, out);
    return wrap(std::move(out));
  });
}

KernelResult conv2d(const Tensor &input, const Tensor &filter,
                    const std::vector<int64_t> &strides,
                    bool samePadding) noexcept {
  return guard([&] {
    const ref::Array &in = arrayOf(input), &f = arrayOf(filter);
    shapes::Padding pad =
        samePadding ? shapes::Padding::Same : shapes::Padding::Valid;
    shapes::Shape shape =
        checked(shapes::conv2d(in.shape, f.shape, strides[0], strides[1], pad),
                "conv2d", {&in, &f});
    int64_t padTop, padBottom, padLeft, padRight;
    shapes::conv2dPadding(in.shape[1], f.shape[0], strides[0], pad, padTop,
                          padBottom);
    shapes::conv2dPadding(in.shape[2], f.shape[1], strides[1], pad, padLeft,
                          padRight);
    ref::Array out = ref::Array::allocate(in.dtype, std::move(shape));
    ref::conv2d(in, f, strides[0], strides[1], padTop, padLeft, out);
    return wrap(std::move(out));
  });
}

KernelResult pool2d(bool max, const Tensor &input,
                    const std::vector<int64_t> &ksize,
                    const std::vector<int64_t> &strides,
                    bool samePadding) noexcept {
  return guard([&] {
    const char *op = max ? "max_pool2d" : "avg_pool2d";
    const ref::Array &in = arrayOf(input);
    shapes::Padding pad =
        samePadding ? shapes::Padding::Same : shapes::Padding::Valid;
    shapes::Shape shape =
        checked(shapes::pool2d(op, in.shape, ksize, strides, pad), op, {&in});
    ref::Array out = ref::Array::allocate(in.dtype, std::move(shape));
    ref::Window2D window = ref::Window2D::of(in.shape, ksize, strides,
                                             pad == shapes::Padding::Same);
    if (max)
      ref::maxPool2d(in, window, out);
    else
      ref::avgPool2d(in, window, out);
    return wrap(std::move(out));
  });
}

KernelResult pool2dGrad(bool max, const Tensor &input, const Tensor &gradOutput,
                        const std::vector<int64_t> &ksize,
                        const std::vector<int64_t> &strides,
                        bool samePadding) noexcept {
  return guard([&] {
    const char *op = max ? "max_pool2d_grad" : "avg_pool2d_grad";
    const ref::Array &in = arrayOf(input), &dy = arrayOf(gradOutput);
    shapes::Padding pad =
        samePadding ? shapes::Padding::Same : shapes::Padding::Valid;
    shapes::Shape shape =
        checked(shapes::pool2dGrad(op, in.shape, dy.shape, ksize, strides, pad),
                op, {&in, &dy});
    ref::Array out = ref::Array::allocate(in.dtype, std::move(shape));
    ref::Window2D window = ref::Window2D::of(in.shape, ksize, strides,
                                             pad == shapes::Padding::Same);
    if (max)
      ref::maxPool2dGrad(in, dy, window, out);
    else
      ref::avgPool2dGrad(dy, window, out);
    return wrap(std::move(out));
  });
}

KernelResult transpose(const Tensor &x,
                       const std::vector<int64_t> &perm) noexcept {
  return guard([&] {
    const ref::Array &a = arrayOf(x);
    shapes::Shape shape =
        checked(shapes::transpose(a.shape, perm), "transpose", {&a});
    ref::Array out = ref::Array::allocate(a.dtype, std::move(shape));
    ref::transpose(a, perm, out);
    return wrap(std::move(out));
  });
}

KernelResult reshape(const Tensor &x, const Shape &target) noexcept {
  return guard([&] {
    const ref::Array &a = arrayOf(x);
    return wrap(a.withShape(
        checked(shapes::reshape(a.shape, target), "reshape", {&a})));
  });
}

KernelResult broadcastTo(const Tensor &x, const Shape &target) noexcept {
  return guard([&] {
    const ref::Array &a = arrayOf(x);
    shapes::Shape shape =
        checked(shapes::broadcastTo(a.shape, target), "broadcast_to", {&a});
    if (shape == a.shape)
      return x;
    ref::Array out = ref::Array::allocate(a.dtype, std::move(shape));
    ref::broadcastTo(a, out);
    return wrap(std::move(out));
  });
}

KernelResult expandDims(const Tensor &x, int64_t axis) noexcept {
  return guard([&] {
    const ref::Array &a = arrayOf(x);
    return wrap(a.withShape(
        checked(shapes::expandDims(a.shape, axis), "expand_dims", {&a})));
  });
}

KernelResult squeeze(const Tensor &x,
                     const std::vector<int64_t> &axes) noexcept {
  return guard([&] {
    if (axes.empty())
      throw Error(ErrorKind::Internal, "squeeze with no axes");
    const ref::Array &a = arrayOf(x);
    return wrap(
        a.withShape(checked(shapes::squeeze(a.shape, axes), "squeeze", {&a})));
  });
}

KernelResult slice(const Tensor &x, const std::vector<int64_t> &offsets,
                   const std::vector<int64_t> &sizes,
                   const std::vector<int64_t> &strides) noexcept {
  return guard([&] {
    const ref::Array &a = arrayOf(x);
    shapes::Shape shape =
        checked(shapes::slice(a.shape, offsets, sizes, strides), "slice", {&a});
    ref::Array out = ref::Array::allocate(a.dtype, std::move(shape));
    ref::slice(a, offsets, strides, out);
    return wrap(std::move(out));
  });
}

KernelResult stridedSlice(const Tensor &x,
                          const shapes::SliceSpec &spec) noexcept {
  return guard([&] {
    const ref::Array &a = arrayOf(x);
    shapes::Shape shape =
        checked(shapes::stridedSlice(a.shape, spec), "strided_slice", {&a});
    shapes::SliceWindow w = shapes::resolveSlice(a.shape, spec);
    ref::Array out = ref::Array::allocate(a.dtype, std::move(w.shape));
    ref::slice(a, w.offsets, w.strides, out);
    return wrap(out.withShape(std::move(shape)));
  });
}

KernelResult stridedSliceGrad(const Tensor &x, const Tensor &grad,
                              const shapes::SliceSpec &spec) noexcept {
  return guard([&] {
    const ref::Array &a = arrayOf(x), &g = arrayOf(grad);
    shapes::Shape shape =
        checked(shapes::stridedSliceGrad(a.shape, g.shape, spec),
                "strided_slice_grad", {&a, &g});
    shapes::SliceWindow w = shapes::resolveSlice(a.shape, spec);
    ref::Array out = ref::Array::allocate(a.dtype, std::move(shape));
    ref::sliceGrad(g.withShape(std::move(w.shape)), w.offsets, w.strides, out);
    return wrap(std::move(out));
  });
}

KernelResult pad(const Tensor &x, const std::vector<int64_t> &low,
                 const std::vector<int64_t> &high,
                 const std::vector<int64_t> &interior, double value) noexcept {
  return guard([&] {
    const ref::Array &a = arrayOf(x);
    shapes::Shape shape =
        checked(shapes::pad(a.shape, low, high, interior), "pad", {&a});
    ref::Array out = ref::Array::allocate(a.dtype, std::move(shape));
    ref::pad(a, low, interior, convertedScalar(a.dtype, value), out);
    return wrap(std::move(out));
  });
}

KernelResult concat(const std::vector<Tensor> &inputs, int64_t axis) noexcept {
  return guard([&] {
    std::vector<ref::Array> arrays;
    std::vector<shapes::Shape> shapeList;
    for (const Tensor &t : inputs) {
      arrays.push_back(arrayOf(t));
      shapeList.push_back(arrays.back().shape);
    }
    shapes::Shape shape =
        checked(shapes::concat(shapeList, axis), "concat", {});
    ref::Array out = ref::Array::allocate(arrays.at(0).dtype, std::move(shape));
    ref::concat(arrays, normalized(axis, arrays[0].rank()), out);
    return wrap(std::move(out));
  });
}

KernelResult gather(const Tensor &params, const Tensor &indices,
                    int64_t axis) noexcept {
  return guard([&] {
    const ref::Array &p = arrayOf(params), &i = arrayOf(indices);
    shapes::Shape shape =
        checked(shapes::gather(p.shape, i.shape, axis), "gather", {&p, &i});
    ref::Array out = ref::Array::allocate(p.dtype, std::move(shape));
    ref::gather(p, i, normalized(axis, p.rank()), out);
    return wrap(std::move(out));
  });
}

KernelResult oneHot(const Tensor &indices, int64_t depth, int64_t axis,
                    double on, double off, DType dtype) noexcept {
  return guard([&] {
    const ref::Array &i = arrayOf(indices);
    shapes::Shape shape =
        checked(shapes::oneHot(i.shape, depth, axis), "one_hot", {&i});
    // Computed in f64, where every attribute value is exact, then converted
    // elementwise like fnc.fill converts its value.
    ref::Array wide = ref::Array::allocate(DType::f64, shape);
    ref::oneHot(i, normalized(axis, i.rank() + 1), on, off, wide);
    ref::Array out = ref::Array::allocate(dtype, std::move(shape));
    ref::cast(wide, out);
    return wrap(std::move(out));
  });
}

KernelResult reduce(ref::ReduceOp op, const Tensor &x,
                    const std::vector<int64_t> &axes, bool keepDims) noexcept {
  return guard([&] {
    const ref::Array &a = arrayOf(x);
    const char *name = ref::reduceOpName(op);
    shapes::Shape normalizedAxes =
        checked(shapes::reductionAxes(a.shape, axes), name, {&a});
    shapes::Shape shape =
        checked(shapes::reduce(a.shape, axes, keepDims), name, {&a});
    bool logical = op == ref::ReduceOp::Any || op == ref::ReduceOp::All;
    ref::Array out =
        ref::Array::allocate(logical ? DType::i1 : a.dtype, std::move(shape));
    ref::reduce(op, a, normalizedAxes, out);
    return wrap(std::move(out));
  });
}

KernelResult argmax(const Tensor &x, int64_t axis, DType dtype) noexcept {
  return guard([&] {
    const ref::Array &a = arrayOf(x);
    shapes::Shape shape =
        checked(shapes::reduceAxis(a.shape, axis), "argmax", {&a});
    ref::Array out = ref::Array::allocate(dtype, std::move(shape));
    ref::argExtreme(/*isMax=*/true, a, normalized(axis, a.rank()), out);
    return wrap(std::move(out));
  });
}

KernelResult softmax(const Tensor &x, int64_t axis, bool log) noexcept {
  return guard([&] {
    const ref::Array &a = arrayOf(x);
    checked(shapes::reduceAxis(a.shape, axis), log ? "log_softmax" : "softmax",
            {&a});
    ref::Array out = ref::Array::allocate(a.dtype, a.shape);
    ref::softmax(a, normalized(axis, a.rank()), log, out);
    return wrap(std::move(out));
  });
}

KernelResult randomUniform(DType dtype, const Shape &shape, double min,
                           double max, uint64_t key,
                           uint64_t counter) noexcept {
  return guard([&] {
    ref::Array a = ref::Array::allocate(dtype, shape);
    ref::randomUniform(key, counter, min, max, a);
    return wrap(std::move(a));
  });
}

KernelResult randomNormal(DType dtype, const Shape &shape, double mean,
                          double stddev, uint64_t key,
                          uint64_t counter) noexcept {
  return guard([&] {
    ref::Array a = ref::Array::allocate(dtype, shape);
    ref::randomNormal(key, counter, mean, stddev, a);
    return wrap(std::move(a));
  });
}

std::string valuesText(const Tensor &t) noexcept {
  try {
    if (!t.defined())
      return "";
    std::string s = t.str();
    // "fnc.Tensor(<body>, shape=(...), dtype=...)"; the body never contains
    // ", shape=(", and a multi-line body starts with an extra newline.
    constexpr const char *kPrefix = "fnc.Tensor(";
    size_t begin = s.rfind(kPrefix, 0) == 0 ? std::strlen(kPrefix) : 0;
    size_t end = s.rfind(", shape=(");
    if (end == std::string::npos || end < begin)
      return s;
    std::string body = s.substr(begin, end - begin);
    if (!body.empty() && body.front() == '\n')
      body.erase(0, 1);
    return body;
  } catch (...) {
    return "<unprintable tensor>";
  }
}

//===----------------------------------------------------------------------===//
// Strings: the eager functions of fnc/Strings.h (no trace is active here).
//===----------------------------------------------------------------------===//

KernelResult makeStrings(const Shape &shape,
                         const std::vector<std::string> &values) noexcept {
  return guard([&] { return Tensor(values, shape); });
}

KernelResult stringJoin(const std::vector<Tensor> &inputs,
                        const std::string &separator) noexcept {
  return guard([&] { return strings::join(inputs, separator); });
}

KernelResult stringFormat(const std::string &format,
                          const std::string &placeholder,
                          const std::vector<Tensor> &inputs) noexcept {
  return guard([&] { return strings::format(format, inputs, placeholder); });
}

KernelResult stringLength(const Tensor &x, bool utf8Chars) noexcept {
  return guard([&] {
    return strings::length(x, utf8Chars ? strings::Unit::UTF8Char
                                        : strings::Unit::Byte);
  });
}

KernelResult stringCase(const Tensor &x, bool upper) noexcept {
  return guard([&] { return upper ? strings::upper(x) : strings::lower(x); });
}

KernelResult stringSplit(const Tensor &x, const std::string &separator,
                         int64_t maxsplit) noexcept {
  return guard([&] { return strings::split(x, separator, maxsplit); });
}

} // namespace fnc::interp
