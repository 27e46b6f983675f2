//===- TraceBuilder.h - Records a trace into a fnc-dialect function -*- C++ -*-=//
//
// Internal to fnc; MLIR-free interface. A TraceBuilder is the Recorder of
// one trace: it owns an MLIRContext and a module holding one public
// `func.func` in the fnc dialect, adds an op per recorded OpRecord (result
// types come from the shared shape rules and each op is verified as it is
// built, so a mismatch is an error value, never a crash), ends the function
// with the traced results, and compiles it with the JIT (the one pipeline).
//
// Built like LLVM (no exceptions): every failure is returned as `false` /
// -1 with a message. Thread-safety: one TraceBuilder per trace, used by one
// thread while recording; after compile() its entry may be called from any
// thread, and emit() may be called concurrently.
//
//===----------------------------------------------------------------------===//

#ifndef FNC_TRACE_TRACEBUILDER_H
#define FNC_TRACE_TRACEBUILDER_H

#include "fnc/Trace/Recorder.h"

#include <memory>
#include <string>
#include <vector>

namespace fnc::jit {
class Entry;
enum class Stage;
} // namespace fnc::jit

namespace fnc::trace {

class TraceBuilder : public Recorder {
public:
  using Recorder::Recorder;

  /// A builder of `func.func @<symbol>` (symbol: `name` reduced to
  /// [A-Za-z0-9_]).
  static std::unique_ptr<TraceBuilder> create(const std::string &name,
                                              std::shared_ptr<TraceToken> token);

  /// Appends a (visible) argument; call before recording ops.
  virtual int64_t addArgument(DType dtype,
                              const std::vector<int64_t> &shape) = 0;
  /// Returns `results` (value ids) and verifies the module.
  virtual bool finish(const std::vector<int64_t> &results,
                      std::string &error) = 0;
  /// The result type of value `id`.
  virtual void typeOf(int64_t id, DType &dtype,
                      std::vector<int64_t> &shape) const = 0;
  /// JIT-compiles the finished module.
  virtual bool compile(std::string &error) = 0;
  /// The compiled function (after compile()).
  virtual const jit::Entry *entry() const = 0;
  /// The IR at `stage` (the fnc dialect as traced, or after the pipeline).
  virtual bool emit(jit::Stage stage, std::string &out) const = 0;
  /// Number of ops in the traced function (without the return).
  virtual int64_t opCount() const = 0;
  /// Seconds spent in compile().
  virtual double compileSeconds() const = 0;

  /// True if an elementwise op of the trace broadcasts two different
  /// values' unknown dims against each other. Compiled code requires such
  /// dims to be equal at run time (a 1 does not stretch), so a call with a
  /// dim of size 1 where the trace has an unknown one needs its own trace.
  bool unknownDimsMeet = false;
};

} // namespace fnc::trace

#endif // FNC_TRACE_TRACEBUILDER_H
