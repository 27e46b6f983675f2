//===- ConcreteAccess.h - Concrete functions from and for files -*- C++ -*-===//
//
// Internal to fnc (fnc::save and fnc::load, lib/IO/Saved.cpp): what a
// ConcreteFunction holds, and a ConcreteFunction made from a compiled trace
// that no fnc::Function traced (one loaded from a file).
//
//===----------------------------------------------------------------------===//

#ifndef FNC_TRACE_CONCRETEACCESS_H
#define FNC_TRACE_CONCRETEACCESS_H

#include "fnc/Function.h"
#include "fnc/Variable.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace fnc::trace {
class CompiledTrace;
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
    const trace::CompiledTrace &trace;
  };
  /// Throws FailedPrecondition for an empty handle.
  static View view(const ConcreteFunction &f);

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

  /// The eager tensor whose buffer is `v`'s value (updated in place by the
  /// compiled code it is passed to; never handed to users).
  static const Tensor &buffer(const Variable &v);
};

} // namespace fnc::detail

#endif // FNC_TRACE_CONCRETEACCESS_H
