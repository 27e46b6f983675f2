//===- Replay.cpp - Replays a recorded program into the active trace ------===//
//
// fnc/Trace/Program.h. Each op of the program is recorded again with its
// operands mapped, and reported to the tapes exactly as its dispatch point
// reports it (a float result, its tensor operands; a variable read as a
// read), so that the gradient rules see the same ops as when they were
// first recorded. Nested conds and loops stage themselves again.
//
//===----------------------------------------------------------------------===//

#include "fnc/Trace/Program.h"

#include "fnc/API/Tape.h"
#include "fnc/Error.h"

#include <variant>

namespace fnc::trace {

namespace {

[[noreturn]] void internal(const std::string &message) {
  throw Error(ErrorKind::Internal,
              "fnc: replaying a recorded program: " + message +
                  " (please report this bug)");
}

template <typename Op> bool is(const OpRecord &op) {
  return std::holds_alternative<Op>(op.op);
}

/// A kept value as a value of its own of the recorded `shape` (an identity
/// cast, which the compiler folds away where the shapes are equal), not
/// recorded into the program. A read's: the tapes tell values apart by
/// their tensors and a program's steps by their result ids, and this read's
/// gradient goes to the variable, not to the other uses of the kept value (a
/// snapshot read by several reads, a row of draws that is also a gather's
/// result). A residual's: a loop's history keeps rows of the loop
/// variables' types, whose dims may be less known than the step's result
/// (an LSTM's state [?, ?] whose step gives [?, units]); the ops replayed
/// on it were recorded with the step's shape.
Tensor valueOfItsOwn(Recorder &r, const Tensor &kept,
                     const std::vector<int64_t> &shape) {
  ProgramScope bookkeeping(r, nullptr);
  OpRecord copy{ops::Cast{}, {r.valueOf(kept, "gradient")}, kept.dtype(),
                shape};
  std::string error;
  int64_t id = r.record(copy, error);
  if (id < 0)
    internal(error);
  return makeSymbolic(kept.dtype(), shape, r.token(), id, "read");
}

} // namespace

Tensor ValueMap::get(int64_t id) const {
  auto it = values_.find(id);
  if (it != values_.end())
    return it->second;
  if (!source_ || source_ != activeRecorder())
    internal("value %" + std::to_string(id) + " has no tensor");
  DType dtype;
  std::vector<int64_t> shape;
  source_->typeOf(id, dtype, shape);
  return makeSymbolic(dtype, std::move(shape), source_->token(), id, "value");
}

std::vector<Tensor> ValueMap::get(const std::vector<int64_t> &ids) const {
  std::vector<Tensor> ts;
  ts.reserve(ids.size());
  for (int64_t id : ids)
    ts.push_back(get(id));
  return ts;
}

VariableRef ValueMap::variable(int64_t id) const {
  auto it = variables_.find(id);
  if (it != variables_.end())
    return it->second;
  if (!source_)
    internal("variable %" + std::to_string(id) + " is unknown");
  VariableRef ref = source_->variableRef(id);
  if (!ref.uid)
    internal("variable %" + std::to_string(id) + " is unknown");
  return ref;
}

std::vector<Tensor> replay(const Program &program, ValueMap &map,
                           const std::vector<Tensor> &args) {
  Recorder *r = activeRecorder();
  if (!r)
    internal("no trace is active");
  if (args.size() != program.args.size())
    internal("the block takes " + std::to_string(program.args.size()) +
             " arguments, not " + std::to_string(args.size()));
  for (size_t i = 0; i < args.size(); ++i)
    map.set(program.args[i], args[i]);
  for (const Program::Step &step : program.steps) {
    if (step.nested) {
      step.nested->replay(map);
      continue;
    }
    const OpRecord &op = step.op;
    bool random = is<ops::RandomUniform>(op) || is<ops::RandomNormal>(op);
    bool effect = is<ops::VarUpdate>(op) || is<ops::Print>(op);
    bool variableOp = is<ops::VarRead>(op) || is<ops::VarUpdate>(op);
    // What the dispatch points report to the tapes: a float result of an
    // op on tensors.
    bool reported = isFloat(op.dtype) && !random && !is<ops::VarRead>(op);
    if (step.result >= 0) {
      // The forward's value, a residual; or, for a read inside a nested
      // step replayed for a gradient, what the step read (its snapshot).
      const Tensor *kept = nullptr;
      auto residual = map.residuals.find(step.result);
      bool fromSnapshot = false;
      if (residual != map.residuals.end()) {
        kept = &residual->second;
      } else if (is<ops::VarRead>(op) && !map.snapshots.empty()) {
        auto it = map.snapshots.find(map.variable(op.operands[0]).uid);
        fromSnapshot = it != map.snapshots.end();
        if (fromSnapshot)
          kept = &it->second;
      }
      if (kept) {
        // Not computed again, but the tapes see the op on its inputs, for
        // its gradient rule (a variable read as a read of the variable).
        Tensor out = *kept;
        if (!is<ops::VarRead>(op) && out.shape() != op.shape)
          out = valueOfItsOwn(*r, out, op.shape);
        if (is<ops::VarRead>(op)) {
          out = valueOfItsOwn(*r, out, out.shape());
          VariableRef variable = map.variable(op.operands[0]);
          if (r->program && r->program->block) {
            // In a staged block, still a read of the variable, so that the
            // block's gradient reaches the variable: of a kept value, which
            // its own gradient keeps (a draw); of a snapshot from outside
            // the block, which it reads again.
            int64_t id = r->valueOf(out, "gradient");
            OpRecord read{op.op,
                          {r->variableOf(variable.uid, variable.alias,
                                         variable.name)},
                          op.dtype,
                          op.shape};
            r->program->add(read, id, variable);
            Program::Step &added = r->program->steps.back();
            if (fromSnapshot)
              added.outerValue = r->valueOf(*kept, "gradient");
            else
              r->program->draws.push_back(
                  {id, op.dtype, op.shape, variable.uid});
          }
          if (isFloat(op.dtype) && tape::anyActive())
            tape::noteVariableRead(variable.uid, out);
        }
        if (reported && tape::anyActive()) {
          std::vector<Tensor> inputs = map.get(op.operands);
          std::vector<const Tensor *> pointers;
          for (const Tensor &t : inputs)
            pointers.push_back(&t);
          tape::noteOp(op.op, pointers, out);
        }
        map.set(step.result, out);
        continue;
      }
    }
    if (random && !map.effects)
      throw Error(ErrorKind::Unimplemented,
                  "fnc: the gradient would draw the random numbers of a "
                  "staged region again; draw them outside fnc::cond and "
                  "staged loops (or pass them in)");
    if (effect && !map.effects)
      continue; // a gradient does not repeat effects
    OpRecord mapped{op.op, {}, op.dtype, op.shape};
    std::vector<Tensor> inputs;
    VariableRef variable;
    for (size_t k = 0; k < op.operands.size(); ++k) {
      if (variableOp && k == 0) {
        variable = map.variable(op.operands[0]);
        mapped.operands.push_back(
            r->variableOf(variable.uid, variable.alias, variable.name));
        continue;
      }
      inputs.push_back(map.get(op.operands[k]));
      mapped.operands.push_back(r->valueOf(inputs.back(), "gradient"));
    }
    std::string error;
    int64_t id = r->record(mapped, error);
    if (id < 0)
      internal(error);
    if (step.result < 0)
      continue;
    Tensor out = makeSymbolic(op.dtype, op.shape, r->token(), id, "replay");
    if (tape::anyActive() && isFloat(op.dtype)) {
      if (is<ops::VarRead>(op)) {
        tape::noteVariableRead(variable.uid, out);
      } else if (reported) {
        std::vector<const Tensor *> pointers;
        for (const Tensor &t : inputs)
          pointers.push_back(&t);
        tape::noteOp(op.op, pointers, out);
      }
    }
    map.set(step.result, out);
  }
  return map.get(program.yields);
}

SnapshotScope::SnapshotScope(ValueMap &map, const NestedStep &step)
    : map_(map), saved_(map.snapshots) {
  if (map.effects)
    return;
  for (const auto &[uid, id] : step.snapshots)
    map.snapshots[uid] = map.get(id);
}

ValueMap RecordedTrace::map() const {
  ValueMap m;
  for (const auto &[tensor, id] : captures)
    m.set(id, tensor);
  for (const auto &[ref, id] : variables)
    m.setVariable(id, ref);
  return m;
}

} // namespace fnc::trace
