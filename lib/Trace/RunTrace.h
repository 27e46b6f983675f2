//===- RunTrace.h - Calls of compiled traces --------------------*- C++ -*-===//
//
// Private to lib/Trace: the one way the concrete functions of fnc::function
// and the compiled eager kernels (EagerKernels.cpp) trace a callable into a
// CompiledTrace and run it.
//
//===----------------------------------------------------------------------===//

#ifndef FNC_LIB_TRACE_RUNTRACE_H
#define FNC_LIB_TRACE_RUNTRACE_H

#include "fnc/Tensor.h"
#include "fnc/Trace/CompiledTrace.h"
#include "fnc/Trace/Program.h"

#include "llvm/Support/Error.h"

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace fnc::trace {

/// What to trace: the callable and the specs of its tensor arguments.
struct TraceRequest {
  /// The function's name (in errors and the IR).
  std::string name;
  std::vector<DType> dtypes;
  std::vector<std::vector<int64_t>> shapes; // kDynamic for unknown dims
  /// Shown when a symbolic argument is printed.
  std::vector<std::string> argNames;
  /// Runs the callable on symbolic tensors (one per spec).
  std::function<std::vector<Tensor>(const std::vector<Tensor> &)> body;
  /// fnc::Variable may be created while tracing (the singleton rule).
  bool allowVariables = false;
  bool fastMath = true;
  unsigned optLevel = 3;
  std::optional<std::string> cacheDir;
  /// FunctionOptions::jit_compile, or $FNC_JIT_COMPILE where it is unset
  /// (jitCompileExplicit false).
  std::optional<bool> jitCompile;
  bool jitCompileExplicit = false;
};

class GraphExecutor;
class PendingCompile;

/// A trace compiled, or to be compiled while the graph executor runs it,
/// with its results' types.
struct TracedFunction {
  /// The code, unless its compile is deferred (jit_compile false, or
  /// unset and the trace missed the compile cache: tiered).
  std::unique_ptr<CompiledTrace> trace;
  /// Otherwise: the deferred compile (queued on the background thread when
  /// tiered), and what runs the calls meanwhile, with the tensors behind
  /// the trace's hidden arguments (CompiledTrace::hiddenArgs).
  std::shared_ptr<PendingCompile> pending;
  std::shared_ptr<GraphExecutor> executor;
  std::vector<Tensor> hiddenArgs;
  std::vector<uint64_t> hiddenVariables;
  std::vector<std::string> hiddenNames;
  /// CompiledTrace::constantCaptures and ::hasEffects, which a call under a
  /// gradient tape reads without waiting for the code.
  std::vector<Tensor> constantCaptures;
  bool hasEffects = false;
  /// CompiledTrace::fncText and ::opCount, and whether the background
  /// thread compiles `pending` (tiered).
  std::string fncText;
  int64_t opCount = 0;
  bool tiered = false;
  /// The trace has string tensors: it runs on `executor` only.
  bool strings = false;
  std::vector<DType> outputDTypes;
  std::vector<std::vector<int64_t>> outputShapes;
  /// TraceRecorder::unknownDimsMeet of the trace.
  bool unknownDimsMeet = false;
  /// What the trace recorded, for its gradient (fnc/Trace/Program.h).
  std::shared_ptr<const RecordedTrace> recorded;
};

/// Traces `request.body` (tapes of the calling thread suspended) and
/// compiles it, or loads its code from the compile cache. Throws what the body
/// throws, InvalidArgument for a null result, Internal if the IR cannot be
/// finished and Unimplemented if it cannot be compiled.
TracedFunction traceAndCompile(const TraceRequest &request);

/// Runs `trace` on `count` eager tensors that match the types it was traced
/// for (unchecked: the caller's key proved it), followed by its hidden
/// arguments, and writes one tensor per result to `outs`. Throws the leak
/// error for a symbolic tensor; a failure of the compiled code (a
/// jit::RuntimeError) comes back as the error.
llvm::Error runTrace(const CompiledTrace &trace, const Tensor *const *tensors,
                     size_t count, Tensor *outs);

/// Traces of at least this many ops are tiered when jit_compile is unset
/// (below it the compiler takes about as long as the executor's setup).
constexpr int64_t kTieredMinOps = 24;

} // namespace fnc::trace

#endif // FNC_LIB_TRACE_RUNTRACE_H
