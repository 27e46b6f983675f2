//===- Reductions.cpp - Eager entry points of the reductions --------------===//
//
// reduce_*, argmax/argmin and (log_)softmax: validate, shape rule, kernel.
//
//===----------------------------------------------------------------------===//

#include "fnc/API/OpSupport.h"

namespace fnc {

using namespace api;

namespace {

Tensor reduceOp(ref::ReduceOp op, const Tensor &x,
                const std::vector<int64_t> &axes, bool keepdims) {
  const char *name = ref::reduceOpName(op);
  if (!ref::reduceOpSupports(op, x.dtype())) {
    if (x.dtype() == DType::i1)
      fail(ErrorKind::InvalidArgument, name,
           "is not defined for bool; use fnc::reduce_any / fnc::reduce_all, "
           "or convert with fnc::cast(x, fnc::DType::i32)",
           {&x});
    fail(ErrorKind::InvalidArgument, name,
         std::string("needs a bool operand, got ") + dtypeName(x.dtype()) +
             "; compare first (e.g. x > 0)",
         {&x});
  }
  Shape normalized = checked(shapes::reductionAxes(x.shape(), axes), name, {&x});
  Shape shape = checked(shapes::reduce(x.shape(), axes, keepdims), name, {&x});
  auto span = opSpan(name, {&x});
  // Dispatch point.
  Tensor out;
  if (trace::Recorder *r = recording()) {

    DType dtype = op == ref::ReduceOp::Any || op == ref::ReduceOp::All
                      ? DType::i1
                      : x.dtype();
    out = record(*r, trace::ops::Reduce{op, normalized, keepdims}, dtype,
                 std::move(shape), {&x}, name);
  } else {
    out = eagerResult(
        name, {&x}, x.size(),
        [&] {
          return kernelKey("reduce", {int64_t(op), keepdims}, normalized);
        },
        [op, normalized, keepdims](const std::vector<Tensor> &v) {
          return reduceOp(op, v[0], normalized, keepdims);
        },
        [&] {
          ref::Array array = ref::Array::allocate(
              op == ref::ReduceOp::Any || op == ref::ReduceOp::All
                  ? DType::i1
                  : x.dtype(),
              std::move(shape));
          ref::reduce(op, arrayOf(x), normalized, array);
          return result(std::move(array), name, {&x});
        });
  }
  return taped(std::move(out), {&x}, [&] {
    return trace::ops::Reduce{op, normalized, keepdims};
  });
}

Tensor argOp(bool isMax, const Tensor &x, int64_t axis, DType outputType) {
  const char *name = isMax ? "argmax" : "argmin";
  if (x.dtype() == DType::i1)
    fail(ErrorKind::InvalidArgument, name,
         "is not defined for bool; convert with fnc::cast(x, "
         "fnc::DType::i32)",
         {&x});
  if (outputType != DType::i32 && outputType != DType::i64)
    fail(ErrorKind::InvalidArgument, name,
         std::string("the output dtype must be int32 or int64, got ") +
             dtypeName(outputType),
         {&x});
  Shape shape = checked(shapes::reduceAxis(x.shape(), axis), name, {&x});
  int64_t a;
  shapes::normalizeAxis(axis, x.rank(), a);
  if (x.shape()[a] == 0 && shapes::numElements(shape) > 0)
    fail(ErrorKind::InvalidArgument, name,
         "axis " + std::to_string(axis) +
             " is empty, so there is no extreme element; reduce along a "
             "non-empty axis",
         {&x});
  auto span = opSpan(name, {&x});
  // Dispatch point.
  if (trace::Recorder *r = recording()) {
    return record(*r, trace::ops::ArgMax{a, !isMax}, outputType,
                  std::move(shape), {&x}, name);
  }
  ref::Array out = ref::Array::allocate(outputType, std::move(shape));
  ref::argExtreme(isMax, arrayOf(x), a, out);
  return wrap(std::move(out));
}

Tensor softmaxOp(bool log, const Tensor &x, int64_t axis) {
  const char *name = log ? "log_softmax" : "softmax";
  requireFloat(name, x);
  // The shape rule of an axis check; the result has x's shape.
  checked(shapes::reduceAxis(x.shape(), axis), name, {&x});
  int64_t a;
  shapes::normalizeAxis(axis, x.rank(), a);
  auto span = opSpan(name, {&x});
  // Dispatch point.
  Tensor out;
  if (trace::Recorder *r = recording()) {
    out = record(*r, trace::ops::Softmax{a, log}, x.dtype(), x.shape(), {&x},
                 name);
  } else {
    out = eagerResult(
        name, {&x}, x.size(), [&] { return kernelKey("softmax", {a, log}); },
        [a, log](const std::vector<Tensor> &v) {
          return softmaxOp(log, v[0], a);
        },
        [&] {
          ref::Array array = ref::Array::allocate(x.dtype(), x.shape());
          ref::softmax(arrayOf(x), a, log, array);
          return result(std::move(array), name, {&x});
        });
  }
  return taped(std::move(out), {&x}, [&] {
    return trace::ops::Softmax{a, log};
  });
}

} // namespace

// The reductions of the op table (FncOpTable.inc), then reduce_any and
// reduce_all, which are not dialect ops.
#define FNC_REDUCE_OP(KIND, CLASS, API, ...)                                   \
  Tensor API(const Tensor &x, const std::vector<int64_t> &axes,                \
             bool keepdims) {                                                  \
    return reduceOp(ref::ReduceOp::KIND, x, axes, keepdims);                   \
  }
#include "fnc/Dialect/Fnc/IR/FncOpTable.inc"
Tensor reduce_any(const Tensor &x, const std::vector<int64_t> &axes,
                  bool keepdims) {
  return reduceOp(ref::ReduceOp::Any, x, axes, keepdims);
}
Tensor reduce_all(const Tensor &x, const std::vector<int64_t> &axes,
                  bool keepdims) {
  return reduceOp(ref::ReduceOp::All, x, axes, keepdims);
}

Tensor argmax(const Tensor &x, int64_t axis, DType outputType) {
  return argOp(true, x, axis, outputType);
}
Tensor argmin(const Tensor &x, int64_t axis, DType outputType) {
  return argOp(false, x, axis, outputType);
}

Tensor softmax(const Tensor &x, int64_t axis) {
  return softmaxOp(false, x, axis);
}
Tensor log_softmax(const Tensor &x, int64_t axis) {
  return softmaxOp(true, x, axis);
}

} // namespace fnc
