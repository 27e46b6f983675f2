//===- TraceRecorder.h - Records a trace into a fnc-dialect function -*- C++ -*-=//
//
// Internal to fnc; MLIR-free interface. A TraceRecorder is the Recorder of
// one trace: it owns an MLIRContext and a module holding one public
// `func.func` in the fnc dialect, adds an op per recorded OpRecord (result
// types come from the shared shape rules and each op is verified as it is
// built, so a mismatch is an error value, never a crash), and ends the
// function with the traced results. compile() turns it into a
// CompiledTrace (fnc/Trace/CompiledTrace.h) with the JIT (the one
// pipeline) and releases the MLIR.
//
// Built like LLVM (no exceptions): every failure is returned as `false` /
// -1 / null with a message. Thread-safety: one TraceRecorder per trace,
// used by one thread.
//
//===----------------------------------------------------------------------===//

#ifndef FNC_TRACE_TRACERECORDER_H
#define FNC_TRACE_TRACERECORDER_H

#include "fnc/Trace/Recorder.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace fnc::trace {

class CompiledTrace;

class TraceRecorder : public Recorder {
public:
  using Recorder::Recorder;

  /// A recorder of `func.func @<symbol>` (symbol: `name` reduced to
  /// [A-Za-z0-9_]).
  static std::unique_ptr<TraceRecorder>
  create(const std::string &name, std::shared_ptr<TraceToken> token);

  /// Appends a (visible) argument; call before recording ops.
  virtual int64_t addArgument(DType dtype,
                              const std::vector<int64_t> &shape) = 0;
  /// Returns `results` (value ids) and verifies the module.
  virtual bool finish(const std::vector<int64_t> &results,
                      std::string &error) = 0;
  /// The result type of value `id`.
  virtual void typeOf(int64_t id, DType &dtype,
                      std::vector<int64_t> &shape) const = 0;
  /// JIT-compiles the finished function. The hidden arguments and the
  /// variables the trace owns move into the result, and the recorder's
  /// MLIR is released: nothing can be recorded afterwards. Null with
  /// `error` set if the pipeline or the JIT fails.
  virtual std::unique_ptr<CompiledTrace> compile(std::string &error) = 0;

  /// True if an elementwise op of the trace broadcasts two different
  /// values' unknown dims against each other. Compiled code requires such
  /// dims to be equal at run time (a 1 does not stretch), so a call with a
  /// dim of size 1 where the trace has an unknown one needs its own trace.
  bool unknownDimsMeet = false;
  /// The pipeline's fast-math option for compile() (FunctionOptions).
  bool fastMath = true;
  /// The compile cache for compile() (FunctionOptions::cache_dir).
  std::optional<std::string> cacheDir;
};

} // namespace fnc::trace

#endif // FNC_TRACE_TRACERECORDER_H
