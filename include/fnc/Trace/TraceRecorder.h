//===- TraceRecorder.h - Records a trace -----------------------*- C++ -*-===//
//
// Internal to fnc; MLIR-free. A TraceRecorder is the Recorder of one trace
// of fnc::function or of an eager kernel. It records the trace as a log of
// its calls (lib/Trace/TraceLog.cpp), answering ids and result types from
// the log and checking what the fnc dialect cannot express as the ops come.
// compile() finds the trace's code in the compile cache by a key of the log
// (no MLIR at all on a hit), or builds the fnc-dialect function from the
// log (TraceIR.h), compiles it with the JIT (the one pipeline) and stores
// it under that key; either way the result is a CompiledTrace
// (fnc/Trace/CompiledTrace.h).
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

  /// A recorder of a function called `name` (in the IR: `func.func
  /// @<symbol>`, `name` reduced to [A-Za-z0-9_]).
  static std::unique_ptr<TraceRecorder>
  create(const std::string &name, std::shared_ptr<TraceToken> token);

  /// Appends a (visible) argument; call before recording ops.
  virtual int64_t addArgument(DType dtype,
                              const std::vector<int64_t> &shape) = 0;
  /// Ends the trace with `results` (value ids).
  virtual bool finish(const std::vector<int64_t> &results,
                      std::string &error) = 0;
  /// The code of the finished trace, from the compile cache or compiled
  /// (and then stored). The hidden arguments and the variables the trace
  /// owns move into the result: nothing can be recorded afterwards. Sets
  /// unknownDimsMeet. Null with `error` set if the pipeline or the JIT
  /// fails.
  virtual std::unique_ptr<CompiledTrace> compile(std::string &error) = 0;

  /// The first half of compile(), which calls it when nobody did: looks
  /// the finished trace up in the compile cache and, on a miss, builds its
  /// fnc IR; sets unknownDimsMeet. Then compile() runs only the compiler
  /// (on a miss), and may run on another thread. False with `error` set if
  /// the IR cannot be built.
  virtual bool prepare(std::string &error) = 0;
  /// After prepare(): whether compile() runs the compiler (a cache miss).
  virtual bool needsCompiler() const = 0;
  /// Whether a value of the trace is a string tensor: such a trace runs on
  /// the graph executor and is never compiled.
  virtual bool usesStrings() const = 0;
  /// After prepare(): the fnc IR of the trace (CompiledTrace::fncText).
  virtual const std::string &fncText() const = 0;
  /// After prepare(): the ops of the trace (CompiledTrace::opCount).
  virtual int64_t opCount() const = 0;

  /// True if an elementwise op of the trace broadcasts two different
  /// values' unknown dims against each other (set by compile()). Compiled
  /// code requires such dims to be equal at run time (a 1 does not
  /// stretch), so a call with a dim of size 1 where the trace has an
  /// unknown one needs its own trace.
  bool unknownDimsMeet = false;
  /// The pipeline's fast-math option for compile() (FunctionOptions).
  bool fastMath = true;
  /// LLVM's optimization level for compile() (FunctionOptions::opt_level).
  unsigned optLevel = 3;
  /// The compile cache for compile() (FunctionOptions::cache_dir).
  std::optional<std::string> cacheDir;
};

} // namespace fnc::trace

#endif // FNC_TRACE_TRACERECORDER_H
