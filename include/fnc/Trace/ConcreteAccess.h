//===- ConcreteAccess.h - Concrete functions from and for files -*- C++ -*-===//
//
// Internal to fnc (fnc::save and fnc::load, lib/IO/Saved.cpp): what a
// ConcreteFunction holds, and a ConcreteFunction made from a compiled trace
// that no fnc::Function traced (one loaded from a file), or from a trace
// the graph executor runs (one with string tensors, which never compiles).
//
//===----------------------------------------------------------------------===//

#ifndef FNC_TRACE_CONCRETEACCESS_H
#define FNC_TRACE_CONCRETEACCESS_H

#include "fnc/Function.h"
#include "fnc/Trace/CompiledTrace.h"
#include "fnc/Variable.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace fnc::trace {
struct RecordedTrace;
} // namespace fnc::trace

namespace fnc::detail {

struct ConcreteAccess {
  struct View {
    const std::string &name;
    /// ResultCodec<R>::kStructure of the traced callable.
    const std::string &results;
    const std::vector<TensorSpec> &inputs;
    /// The tensor arguments' names in signatures ("x", "a0", "xs[1]").
    std::vector<std::string> argNames;
    /// What fnc::save stores of the trace: its fnc IR, the pipeline options
    /// and the hidden trailing arguments (with their variables' uids and
    /// names), of the compiled code or, for a trace that never compiles,
    /// of the graph executor.
    const std::string &fncText;
    bool fastMath, checkNumerics;
    const std::vector<Tensor> &hiddenArgs;
    const std::vector<uint64_t> &hiddenVariables;
    const std::vector<std::string> &hiddenNames;
  };
  /// Throws FailedPrecondition for an empty handle.
  static View view(const ConcreteFunction &f);
  /// `f`'s compiled code, compiled here or waited for; throws Unimplemented
  /// for a trace with strings (never compiled).
  static const trace::CompiledTrace &compiled(const ConcreteFunction &f);

  /// A concrete function called `name` that runs `trace` on tensors of
  /// `inputs` (their names are the parameters') and returns `outputs`.
  /// Under a gradient tape its backward replays the program
  /// `importRecorded` returns, called once, on the first call under a tape;
  /// if that returns null, such a call is an error giving the reason it
  /// wrote to its argument.
  static ConcreteFunction
  make(std::string name, std::string results, std::vector<TensorSpec> inputs,
       std::vector<TensorSpec> outputs,
       std::unique_ptr<trace::CompiledTrace> trace,
       std::function<
           std::shared_ptr<const trace::RecordedTrace>(std::string &whyNot)>
           importRecorded);

  /// The same for a trace the graph executor runs (string tensors: never
  /// compiled): `parts` without code (no module or entry), `symbol` its
  /// function in `parts.fncText`.
  static ConcreteFunction
  makeExecuted(std::string name, std::string results,
               std::vector<TensorSpec> inputs, std::vector<TensorSpec> outputs,
               const std::string &symbol, trace::CompiledTrace::Parts parts,
               std::function<std::shared_ptr<const trace::RecordedTrace>(
                   std::string &whyNot)>
                   importRecorded);

  /// The eager tensor whose buffer is `v`'s value (updated in place by the
  /// compiled code it is passed to; never handed to users).
  static const Tensor &buffer(const Variable &v);
};

} // namespace fnc::detail

#endif // FNC_TRACE_CONCRETEACCESS_H
