//===- RunTrace.h - Calls of compiled traces --------------------*- C++ -*-===//
//
// Private to lib/Trace: the one way the concrete functions of fnc::function
// and the compiled eager kernels (EagerKernels.cpp) run a CompiledTrace.
//
//===----------------------------------------------------------------------===//

#ifndef FNC_LIB_TRACE_RUNTRACE_H
#define FNC_LIB_TRACE_RUNTRACE_H

#include "fnc/Tensor.h"
#include "fnc/Trace/CompiledTrace.h"

#include "llvm/Support/Error.h"

#include <cstddef>

namespace fnc::trace {

/// Runs `trace` on `count` eager tensors that match the types it was traced
/// for (unchecked: the caller's key proved it), followed by its hidden
/// arguments, and writes one tensor per result to `outs`. Throws the leak
/// error for a symbolic tensor; a failure of the compiled code (a
/// jit::RuntimeError) comes back as the error.
llvm::Error runTrace(const CompiledTrace &trace, const Tensor *const *tensors,
                     size_t count, Tensor *outs);

} // namespace fnc::trace

#endif // FNC_LIB_TRACE_RUNTRACE_H
