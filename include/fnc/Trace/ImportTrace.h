//===- ImportTrace.h - A recorded program read back from fnc IR -*- C++ -*-===//
//
// Internal to fnc; MLIR-free interface, errors as values. A function from
// fnc::load has no C++ callable and no trace log, only its fnc IR; its
// gradient needs the program a trace would have recorded
// (fnc/Trace/Program.h). importTrace reads it back: each fnc op becomes the
// OpRecord its dispatch point records (ops::Binary for fnc.add, ...),
// constants become captured eager tensors, the trailing `!fnc.variable`
// arguments the given variables, and each fnc.cond and fnc.while a nested
// step that stages itself again on replay. The gradient of a loaded
// function then comes from the same rules, on the same program, as that of
// the fnc::Function that was saved.
//
//===----------------------------------------------------------------------===//

#ifndef FNC_TRACE_IMPORTTRACE_H
#define FNC_TRACE_IMPORTTRACE_H

#include "fnc/Trace/Program.h"

#include <memory>
#include <string>
#include <vector>

namespace fnc::trace {

/// Makes the nested steps of an imported program: staged control flow
/// lives in FncFunction (lib/Trace/Control.cpp), which FncTrace cannot
/// name; fnc::load passes stagedControlSteps().
class StepFactory {
public:
  virtual ~StepFactory();
  /// A fnc.cond on `pred`; the branches take no arguments. `draws`: its
  /// results after `results`, the random draws of the then branch, then
  /// those of the else branch (the branches' Program::draws).
  virtual std::shared_ptr<NestedStep>
  cond(int64_t pred, std::shared_ptr<const Program> thenBranch,
       std::shared_ptr<const Program> elseBranch, std::vector<int64_t> results,
       std::vector<Drawn> draws) const = 0;
  /// A fnc.while on `inits`: `condition` yields the predicate, `body` the
  /// next values. `kinds`: per loop variable, a fnc::LoopVar (empty: all
  /// tensors). `invariants`: empty, or the shapes of the tensor loop
  /// variables where some differ from their initial values' (dims that
  /// change across iterations, shapes::kDynamic). `limit` and `delta`: the
  /// bounds of a for_range (whose counter is variable 0), -1 for others.
  virtual std::shared_ptr<NestedStep>
  loop(std::vector<int64_t> inits, std::shared_ptr<const Program> condition,
       std::shared_ptr<const Program> body, std::vector<int64_t> results,
       const std::vector<uint8_t> &kinds,
       std::vector<std::vector<int64_t>> invariants, int64_t limit,
       int64_t delta) const = 0;
};

/// The factory of FncFunction's staged control flow (defined there).
const StepFactory &stagedControlSteps();

/// Reads the program of `fncText`, a module whose one public function is a
/// trace (CompiledTrace::fncText of a loaded function). `hidden`: per
/// trailing `!fnc.variable` argument, its variable (a uid of 0: a captured
/// tensor, `alias` its value, only read). False with `error` naming the
/// first op that has no recorded form.
bool importTrace(const std::string &fncText,
                 const std::vector<VariableRef> &hidden,
                 const StepFactory &steps, RecordedTrace &out,
                 std::string &error);

} // namespace fnc::trace

#endif // FNC_TRACE_IMPORTTRACE_H
