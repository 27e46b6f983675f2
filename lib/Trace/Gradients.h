//===- Gradients.h - The gradient rule of every differentiable op -*- C++ -*-=//
//
// Private to the tape (GradientTape.cpp). One rule per op family of
// trace::OpAttrs, and per kind of the op table's elementwise ops, written
// against the public ops: run eagerly they compute, run while tracing they
// are recorded into the trace.
//
//===----------------------------------------------------------------------===//

#ifndef FNC_LIB_TRACE_GRADIENTS_H
#define FNC_LIB_TRACE_GRADIENTS_H

#include "fnc/Tensor.h"
#include "fnc/Trace/Recorder.h"

#include <cstdint>
#include <functional>
#include <vector>

namespace fnc::grad {

/// The gradients of `output` = op(inputs) with respect to each input, given
/// the gradient `g` of the output: a null Tensor where none flows (an
/// integer input, or an op the table marks not differentiable). Throws
/// fnc::Error (Unimplemented) naming the op when it has no rule.
std::vector<Tensor> gradientsOf(const trace::OpAttrs &op,
                                const std::vector<Tensor> &inputs,
                                const Tensor &output, const Tensor &g);

/// `t` (a gradient) with the static type `shape` of the value it is the
/// gradient of, where the ops that computed it could not tell (dims of
/// values from loops whose shapes may change): reshaped where `shape` knows
/// a dim `t` does not, which it can when `shape` has at most one unknown
/// dim; else `t` as it is.
Tensor conformTo(const Tensor &t, const std::vector<int64_t> &shape);

/// The vector-Jacobian product of `f`: runs f() under a tape of its own
/// that watches `watch`, and returns the gradients of
/// sum_k <f()[k], outputGrads[k]> with respect to each of `watch`, then to
/// each float variable (by id) in `variables`: null where none flows.
std::vector<Tensor> vjp(const std::function<std::vector<Tensor>()> &f,
                        const std::vector<Tensor> &watch,
                        const std::vector<uint64_t> &variables,
                        const std::vector<Tensor> &outputGrads);

} // namespace fnc::grad

#endif // FNC_LIB_TRACE_GRADIENTS_H
