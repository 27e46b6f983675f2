//===- KernelCalls.h - Exception-free calls into the eager kernels -*- C++ -*-//
//
// Private to the interpreter. The shape rules and reference kernels report
// errors by throwing fnc::Error, while the interpreter proper is MLIR code
// built without exceptions. Every function here is compiled (in
// KernelCalls.cpp, a library built with -fexceptions) around one op: it runs
// the op's shape rule and reference kernel as the eager op does (but without
// the eager API's state: no tracing, no check-numerics), catches fnc::Error
// and returns it as a value, so no exception ever unwinds through an MLIR
// frame. This header includes no MLIR and may be included
// from code built either way; none of its functions throws.
//
// The functions take the op's attributes already decoded into plain C++
// (shapes, axes, dtypes) and follow the op semantics of FncOps.td, which are
// those of the eager API.
//
//===----------------------------------------------------------------------===//

#ifndef FNC_LIB_INTERPRETER_KERNELCALLS_H
#define FNC_LIB_INTERPRETER_KERNELCALLS_H

#include "fnc/Reference/Kernels.h"
#include "fnc/Shape/ShapeRules.h"
#include "fnc/Tensor.h"

#include <string>
#include <vector>

namespace fnc {
using Shape = std::vector<int64_t>;
} // namespace fnc

namespace fnc::interp {

/// A tensor, or the fnc::Error a kernel raised instead.
struct KernelResult {
  Tensor value;
  bool ok = true;
  ErrorKind kind = ErrorKind::Internal;
  std::string message;
};

/// A tensor of `dtype` and `shape` holding the row-major elements at `data`
/// (bool: one byte per element, 0 or 1).
KernelResult makeTensor(DType dtype, const Shape &shape,
                        const void *data) noexcept;

/// The element `index` (row-major) of `t`, converted to int64 / bool.
/// False with `error` set if `t` is null or too small.
bool readInt(const Tensor &t, int64_t index, int64_t &value,
             std::string &error) noexcept;
bool readBool(const Tensor &t, bool &value, std::string &error) noexcept;

/// fnc.fill: `value` converted to `dtype` (integers truncate toward zero,
/// bool is value != 0).
KernelResult fill(DType dtype, const Shape &shape, double value) noexcept;
/// fnc.range: `count` elements start + i * delta converted to `dtype`.
KernelResult range(DType dtype, double start, double delta,
                   int64_t count) noexcept;
/// fnc.eye: an n x m identity.
KernelResult eye(DType dtype, int64_t n, int64_t m) noexcept;
KernelResult cast(const Tensor &x, DType dtype) noexcept;

KernelResult binary(ref::BinaryOp op, const Tensor &x,
                    const Tensor &y) noexcept;
KernelResult unary(ref::UnaryOp op, const Tensor &x) noexcept;
KernelResult select(const Tensor &cond, const Tensor &x,
                    const Tensor &y) noexcept;

KernelResult matmul(const Tensor &a, const Tensor &b) noexcept;
KernelResult conv2d(const Tensor &input, const Tensor &filter,
                    const std::vector<int64_t> &strides,
                    bool samePadding) noexcept;
/// fnc.max_pool2d (`max`) / fnc.avg_pool2d.
KernelResult pool2d(bool max, const Tensor &input,
                    const std::vector<int64_t> &ksize,
                    const std::vector<int64_t> &strides,
                    bool samePadding) noexcept;
/// fnc.max_pool2d_grad (`max`) / fnc.avg_pool2d_grad.
KernelResult pool2dGrad(bool max, const Tensor &input, const Tensor &gradOutput,
                        const std::vector<int64_t> &ksize,
                        const std::vector<int64_t> &strides,
                        bool samePadding) noexcept;

KernelResult transpose(const Tensor &x,
                       const std::vector<int64_t> &perm) noexcept;
/// `target` may hold one -1 (inferred).
KernelResult reshape(const Tensor &x, const Shape &target) noexcept;
KernelResult broadcastTo(const Tensor &x, const Shape &target) noexcept;
KernelResult expandDims(const Tensor &x, int64_t axis) noexcept;
/// Removes exactly `axes` (which must be non-empty).
KernelResult squeeze(const Tensor &x,
                     const std::vector<int64_t> &axes) noexcept;
KernelResult slice(const Tensor &x, const std::vector<int64_t> &offsets,
                   const std::vector<int64_t> &sizes,
                   const std::vector<int64_t> &strides) noexcept;
/// fnc.strided_slice / fnc.strided_slice_grad (`grad` of the slice's
/// shape; `x` gives only its shape).
KernelResult stridedSlice(const Tensor &x,
                          const shapes::SliceSpec &spec) noexcept;
KernelResult stridedSliceGrad(const Tensor &x, const Tensor &grad,
                              const shapes::SliceSpec &spec) noexcept;
/// `value` is converted to x's dtype like fnc.fill converts its value.
KernelResult pad(const Tensor &x, const std::vector<int64_t> &low,
                 const std::vector<int64_t> &high,
                 const std::vector<int64_t> &interior, double value) noexcept;
KernelResult concat(const std::vector<Tensor> &inputs, int64_t axis) noexcept;
KernelResult gather(const Tensor &params, const Tensor &indices,
                    int64_t axis) noexcept;
/// on/off are converted to `dtype` like fnc.fill converts its value.
KernelResult oneHot(const Tensor &indices, int64_t depth, int64_t axis,
                    double on, double off, DType dtype) noexcept;

KernelResult reduce(ref::ReduceOp op, const Tensor &x,
                    const std::vector<int64_t> &axes, bool keepDims) noexcept;
KernelResult argmax(const Tensor &x, int64_t axis, DType dtype) noexcept;
KernelResult softmax(const Tensor &x, int64_t axis, bool log) noexcept;

/// Philox-based random tensors (see ref::randomUniform/randomNormal).
KernelResult randomUniform(DType dtype, const Shape &shape, double min,
                           double max, uint64_t key, uint64_t counter) noexcept;
KernelResult randomNormal(DType dtype, const Shape &shape, double mean,
                          double stddev, uint64_t key,
                          uint64_t counter) noexcept;

/// The values of `t` as the eager format prints them inside
/// `fnc.Tensor(...)`, without the wrapper, shape and dtype:
/// "[1. 2.]", "3", "[[1 2]\n [3 4]]". Empty on a null tensor.
std::string valuesText(const Tensor &t) noexcept;

/// A string tensor of `shape` holding `values` (row-major).
KernelResult makeStrings(const Shape &shape,
                         const std::vector<std::string> &values) noexcept;
/// fnc.string_join, fnc.string_format, fnc.string_length,
/// fnc.string_upper / fnc.string_lower (`upper`), fnc.string_split: the
/// functions of fnc/Strings.h.
KernelResult stringJoin(const std::vector<Tensor> &inputs,
                        const std::string &separator) noexcept;
KernelResult stringFormat(const std::string &format,
                          const std::string &placeholder,
                          const std::vector<Tensor> &inputs) noexcept;
KernelResult stringLength(const Tensor &x, bool utf8Chars) noexcept;
KernelResult stringCase(const Tensor &x, bool upper) noexcept;
KernelResult stringSplit(const Tensor &x, const std::string &separator,
                         int64_t maxsplit) noexcept;

} // namespace fnc::interp

#endif // FNC_LIB_INTERPRETER_KERNELCALLS_H
