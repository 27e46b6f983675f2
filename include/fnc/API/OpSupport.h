//===- OpSupport.h - Shared plumbing of the eager op entry points -*- C++ -*-=//
//
// Internal to fnc: the plumbing of the eager op entry points, shared by the
// API library and the features built on it that run eagerly and staged
// (fnc::Variable, fnc::cond/while_loop, fnc::TensorArray, print and random
// in lib/Trace). Every public op follows the same three steps:
// validate the operands' dtypes, compute the result shape with the shared
// shape rules (fnc/Shape/ShapeRules.h), then run the reference kernel. The
// helpers here build the errors of the first two steps so every op reports
// them the same way:
//
//   fnc::add: shapes [2, 3] and [4] are not broadcast-compatible ...
//     (operands float32[2,3], float32[4])
//
// Tracing hooks in at the entry point of each op (after validation and the
// shape rule, before the kernel), marked `// Dispatch point.`: while a trace
// is active (recording() is not null) the op is recorded with record()
// instead of computed.
//
//===----------------------------------------------------------------------===//

#ifndef FNC_API_OPSUPPORT_H
#define FNC_API_OPSUPPORT_H

#include "fnc/API/Arrays.h"
#include "fnc/API/EagerKernels.h"
#include "fnc/API/Profile.h"
#include "fnc/API/Tape.h"
#include "fnc/API/TensorImpl.h"
#include "fnc/Ops.h"
#include "fnc/Shape/ShapeRules.h"

#include <initializer_list>
#include <string>

namespace fnc::api {

using Operands = std::initializer_list<const Tensor *>;

/// "float32[2,3]".
std::string describe(const Tensor &t);

/// Throws fnc::Error "fnc::<op>: <message> (operands float32[2,3], ...)".
[[noreturn]] void fail(ErrorKind kind, const char *op,
                       const std::string &message, Operands operands);

/// The shape of a successful rule, or InvalidArgument with its message.
inline shapes::Shape checked(const shapes::ShapeResult &r, const char *op,
                             Operands operands) {
  if (!r.ok())
    fail(ErrorKind::InvalidArgument, op, r.error, operands);
  return r.shape;
}

/// Throws unless `x` is f32 or f64 ("needs a float operand, got int32; cast
/// first ..."), naming `operands` (x alone when empty).
void requireFloat(const char *op, const Tensor &x, Operands operands = {});

/// Throws unless both operands have the same dtype.
void requireSameDType(const char *op, const Tensor &a, const Tensor &b);

/// `axis` of x for `op`, in [-rank, rank), normalized to [0, rank);
/// InvalidArgument naming op and x otherwise.
int64_t requireAxis(const char *op, const Tensor &x, int64_t axis);

/// The elements [begin, begin + size) of `x` along `axis` (size -1: to the
/// end), all of the other dims: a fnc::slice.
Tensor sliceAlong(const Tensor &x, int64_t axis, int64_t begin, int64_t size);

/// Throws unless `shape` has only dims >= 0.
void requireValidShape(const char *op, const Shape &shape);

/// Throws unless `value` (the value of fill and friends) is a scalar.
void requireFillValue(const char *op, const Tensor &value);

/// The result of the eager op `op`: in check-numerics mode a float result
/// holding a NaN or an Inf throws FailedPrecondition naming `op`.
Tensor result(ref::Array a, const char *op, Operands operands);
/// The same check of an eager result computed by a compiled kernel.
Tensor checkedResult(Tensor t, const char *op, Operands operands);

/// The result of an eager op: its compiled kernel's (api::runCompiled,
/// checked as checkedResult does) when the op has enough `work` and a
/// kernel serves it, else `reference()` (the reference kernel). `key()`
/// names the kernel (kernelKey), `body` records the op on symbolic
/// operands; both are only used when a kernel is wanted.
template <typename Key, typename Body, typename Reference>
Tensor eagerResult(const char *op, Operands operands, double work,
                   const Key &key, const Body &body,
                   const Reference &reference, bool exactShapes = false) {
  if (wantsCompiled(work)) {
    Tensor out = runCompiled(key(), operands, body, exactShapes);
    if (out.defined())
      return checkedResult(std::move(out), op, operands);
  }
  return reference();
}

/// A rank-0 array of `dtype` holding `value`; throws InvalidArgument naming
/// `op` and `what` if the value is not exactly representable (floats accept
/// any value and round).
ref::Array scalarArray(DType dtype, double value, const char *op,
                       const char *what);

/// While tracing, records that the shape tensor `shape` holds `known` (dims
/// shapes::kDynamic where unknown), so that zeros/ones/fill of it keep the
/// known dims in their type. Does nothing eagerly.
void noteShapeValues(const Tensor &shape, const Shape &known);

/// `x` with its row `index` (an integer scalar, along dim 0) replaced by
/// `value` (a tensor of x's dtype and row shape; the caller checks): a copy
/// eagerly, `fnc.set_row` (updated in place once compiled) in a trace. An
/// index outside [0, rows) throws OutOfRange eagerly and is a run-time
/// error staged.
Tensor setRow(const Tensor &x, const Tensor &index, const Tensor &value);
/// fnc.dynamic_slice: the elements [start, start + size) of `x` along
/// `axis` (start and size: 0-d integer tensors, read at run time when
/// staged; the result's dim `axis` is then unknown). OutOfRange outside
/// the dim.
Tensor dynamicSlice(const Tensor &x, int64_t axis, const Tensor &start,
                    const Tensor &size);
/// fnc.dynamic_update_slice: `x` with its elements [start, start + n)
/// along `axis` replaced by `update` (of x's dtype, its size along `axis`
/// n, its other dims x's; start: a 0-d integer tensor, read at run time
/// when staged): a copy eagerly, updated in place once compiled. OutOfRange
/// outside the dim.
Tensor dynamicUpdateSlice(const Tensor &x, int64_t axis, const Tensor &start,
                          const Tensor &update);
/// The size of `t` along `axis` as an int64 scalar: a constant where it is
/// known, else read from fnc::shape at run time.
Tensor sizeAlong(const Tensor &t, int64_t axis);

/// The input gradient of max_pool2d (`max`) or avg_pool2d of `input` with
/// these windows, given the gradient of the pooled result (`gradOutput`):
/// the kernel eagerly, `fnc.max_pool2d_grad` / `fnc.avg_pool2d_grad` in a
/// trace. Reported to the tapes: both are linear in `gradOutput` (the max
/// op's gradient picks, per window, the cotangent at the input's first
/// maximum; the input only routes).
Tensor pool2dGrad(bool max, const Tensor &input, const Tensor &gradOutput,
                  const std::vector<int64_t> &ksize,
                  const std::vector<int64_t> &strides, bool samePadding);

/// The dense strided slice of `x` (one entry per dim, see
/// shapes::SliceSpec): the kernel eagerly, `fnc.strided_slice` in a trace.
/// `op` names the public entry point in messages. A shrink index outside a
/// known dim throws OutOfRange.
Tensor stridedSlice(const Tensor &x, const shapes::SliceSpec &spec,
                    const char *op);

/// The gradient of stridedSlice(x, spec) given the gradient `grad` of its
/// result: zeros of x's shape with `grad` where the slice read (the kernel
/// eagerly, `fnc.strided_slice_grad` in a trace; only x's shape is read).
/// Reported to the tapes: linear in `grad`, whose gradient is
/// stridedSlice with the same spec.
Tensor stridedSliceGrad(const Tensor &x, const Tensor &grad,
                        const shapes::SliceSpec &spec);

/// `g`, a broadcast (numpy's rule) of a tensor shaped like `x`, summed back
/// to x's shape. Where the sizes are known (eagerly, or all of them while
/// tracing) that is reduce_sum and reshape; while tracing with unknown dims
/// it is `fnc.sum_to_shape` of `fnc::shape(x)`, which sums over a dim
/// where x's is 1 at run time. Only x's shape is read. Reported to the
/// tapes: linear in `g`, whose gradient is broadcastLike(gradient, g).
Tensor sumToShape(const Tensor &g, const Tensor &x);

/// `value` broadcast (numpy's rule) to the shape of `like`, read at run time
/// where it is unknown while tracing (`fnc.broadcast_to_shape`).
Tensor broadcastLike(const Tensor &value, const Tensor &like);

/// `x` reshaped to the sizes the 1-D integer tensor `shape` holds, whose
/// values known while tracing are `known` (shapes::kDynamic elsewhere; the
/// result's type): `fnc.reshape_to_shape` when they are read at run time,
/// any number of them unknown; a plain reshape otherwise.
Tensor reshapeToShape(const Tensor &x, const Tensor &shape, const Shape &known);
/// `x` reshaped to the shape of `like`, read at run time where unknown.
Tensor reshapeLike(const Tensor &x, const Tensor &like);

/// The recorder of the trace active on this thread, or null when eager.
inline trace::Recorder *recording() { return trace::activeRecorder(); }

/// The profiler's span of the eager op `op` (fnc/API/Profile.h), its
/// operands in the arguments ("float32[2,3], float32[3]"): placed at an op's
/// dispatch point, it covers the kernel. Nothing while tracing or when the
/// profiler is off. opSpan also rejects string operands (requireNoStrings).
profile::Span liveOpSpan(const char *op, Operands operands);
/// Throws InvalidArgument "fnc::<op>: string tensors are not accepted
/// here ..." naming what strings support.
[[noreturn]] void rejectStrings(const char *op, Operands operands);
/// Throws rejectStrings' error if an operand is a string tensor: every op
/// not written for strings checks this (through opSpan and record), so a
/// string never reaches a numeric kernel or the compiler.
inline void requireNoStrings(const char *op, Operands operands) {
  for (const Tensor *t : operands)
    if (t->dtype() == DType::str) [[unlikely]]
      rejectStrings(op, operands);
}

inline profile::Span opSpan(const char *op, Operands operands) {
  requireNoStrings(op, operands);
  if (!profile::enabled() || recording())
    return profile::Span();
  return liveOpSpan(op, operands);
}

/// The dims held by `shapeTensor`, a 1-D int32/int64 tensor of known length
/// such as fnc::shape(x): its values when eager; while tracing, the dims of
/// x known while tracing and shapes::kDynamic for the others. Throws an
/// InvalidArgument error naming `op` for any other tensor.
Shape dimsOfShapeTensor(const Tensor &shapeTensor, const char *op);

/// Records `op` on `operands` with a result of `dtype` and `shape` and
/// returns the symbolic result; eager operands are captured. Throws the leak
/// error for a symbolic operand of another trace.
Tensor record(trace::Recorder &recorder, trace::OpAttrs op, DType dtype,
              std::vector<int64_t> shape,
              const std::vector<const Tensor *> &operands, const char *name);

/// Reports `out` = op(inputs) to the gradient tapes of this thread (see
/// fnc/API/Tape.h) and returns `out`. `attrs()` makes the op's OpAttrs; it
/// is called only when a tape is alive, and only a float result is
/// reported (nothing else carries a gradient).
template <typename MakeAttrs>
Tensor taped(Tensor out, std::initializer_list<const Tensor *> inputs,
             MakeAttrs attrs) {
  if (tape::anyActive() && isFloat(out.dtype()))
    tape::noteOp(attrs(), std::vector<const Tensor *>(inputs), out);
  return out;
}

/// `x op y` where either is a string tensor: ==, != and + (their
/// concatenation, as tf.add) in Strings.cpp; any other op throws
/// rejectStrings' error.
Tensor binaryStrings(ref::BinaryOp op, const Tensor &x, const Tensor &y);

/// `fnc.Tensor("name", shape=(None, 3), dtype=float32)` for a symbolic tensor.
std::string symbolicStr(const Tensor &t);

} // namespace fnc::api

#endif // FNC_API_OPSUPPORT_H
