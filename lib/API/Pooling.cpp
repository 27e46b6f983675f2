//===- Pooling.cpp - Eager entry points of 2-D max and average pooling ----===//
//
// fnc::max_pool2d and fnc::avg_pool2d, and the internal input-gradient ops
// their gradient rules call (api::pool2dGrad, fnc.max_pool2d_grad and
// fnc.avg_pool2d_grad once staged). Each validates the dtype, asks the
// shared shape rule for the result shape, and runs the reference kernel or
// records the op; the gradient ops report to the tapes too, so second
// derivatives have rules (lib/Trace/Gradients.cpp), never a silently
// missing term.
//
//===----------------------------------------------------------------------===//

#include "fnc/API/OpSupport.h"

namespace fnc {
namespace api {
namespace {

shapes::Padding parsePadding(const char *op, const std::string &padding,
                             Operands operands) {
  if (padding == "VALID" || padding == "valid")
    return shapes::Padding::Valid;
  if (padding == "SAME" || padding == "same")
    return shapes::Padding::Same;
  fail(ErrorKind::InvalidArgument, op,
       "padding must be \"VALID\" or \"SAME\", got \"" + padding + "\"",
       operands);
}

Tensor pool2d(bool max, const Tensor &input, const std::vector<int64_t> &ksize,
              const std::vector<int64_t> &strides, const std::string &padding) {
  const char *op = max ? "max_pool2d" : "avg_pool2d";
  requireFloat(op, input, {&input});
  shapes::Padding pad = parsePadding(op, padding, {&input});
  Shape shape = checked(shapes::pool2d(op, input.shape(), ksize, strides, pad),
                        op, {&input});
  auto attrs = [&] {
    return trace::ops::Pool2D{max, ksize, strides,
                              pad == shapes::Padding::Same};
  };
  auto span = opSpan(op, {&input});
  // Dispatch point.
  Tensor out;
  if (trace::Recorder *r = recording()) {
    out = record(*r, attrs(), input.dtype(), std::move(shape), {&input}, op);
  } else {
    // Work: the window's elements per result element.
    out = eagerResult(
        op, {&input}, double(shapes::numElements(shape)) * ksize[0] * ksize[1],
        [&] {
          return kernelKey("pool2d", {max, pad == shapes::Padding::Same},
                           {ksize[0], ksize[1], strides[0], strides[1]});
        },
        [max, ksize, strides, padding](const std::vector<Tensor> &v) {
          return pool2d(max, v[0], ksize, strides, padding);
        },
        [&] {
          ref::Window2D window = ref::Window2D::of(
              input.shape(), ksize, strides, pad == shapes::Padding::Same);
          ref::Array array =
              ref::Array::allocate(input.dtype(), std::move(shape));
          if (max)
            ref::maxPool2d(arrayOf(input), window, array);
          else
            ref::avgPool2d(arrayOf(input), window, array);
          return result(std::move(array), op, {&input});
        });
  }
  return taped(std::move(out), {&input}, attrs);
}

} // namespace

Tensor pool2dGrad(bool max, const Tensor &input, const Tensor &gradOutput,
                  const std::vector<int64_t> &ksize,
                  const std::vector<int64_t> &strides, bool samePadding) {
  const char *op = max ? "max_pool2d_grad" : "avg_pool2d_grad";
  requireFloat(op, input, {&input, &gradOutput});
  requireSameDType(op, input, gradOutput);
  shapes::Padding pad =
      samePadding ? shapes::Padding::Same : shapes::Padding::Valid;
  Shape shape =
      checked(shapes::pool2dGrad(op, input.shape(), gradOutput.shape(), ksize,
                                 strides, pad),
              op, {&input, &gradOutput});
  auto attrs = [&] {
    return trace::ops::Pool2DGrad{max, ksize, strides, samePadding};
  };
  auto span = opSpan(op, {&input, &gradOutput});
  // Dispatch point.
  Tensor out;
  if (trace::Recorder *r = recording()) {
    out = record(*r, attrs(), input.dtype(), std::move(shape),
                 {&input, &gradOutput}, op);
  } else {
    ref::Window2D window = ref::Window2D::of(input.shape(), ksize, strides,
                                             pad == shapes::Padding::Same);
    ref::Array array = ref::Array::allocate(input.dtype(), std::move(shape));
    if (max)
      ref::maxPool2dGrad(arrayOf(input), arrayOf(gradOutput), window, array);
    else
      ref::avgPool2dGrad(arrayOf(gradOutput), window, array);
    out = result(std::move(array), op, {&input, &gradOutput});
  }
  return taped(std::move(out), {&input, &gradOutput}, attrs);
}

} // namespace api

using namespace api;

Tensor max_pool2d(const Tensor &input, const std::vector<int64_t> &ksize,
                  const std::vector<int64_t> &strides,
                  const std::string &padding) {
  return pool2d(true, input, ksize, strides, padding);
}

Tensor avg_pool2d(const Tensor &input, const std::vector<int64_t> &ksize,
                  const std::vector<int64_t> &strides,
                  const std::string &padding) {
  return pool2d(false, input, ksize, strides, padding);
}

} // namespace fnc
