//===- Program.h - What a trace recorded, kept to be replayed ---*- C++ -*-===//
//
// Internal to fnc; MLIR-free. Gradients come from the recorded program, not
// from calling user code again: while a trace records, the Recorder appends
// every op to the Program open on it (Recorder::program), the blocks of
// staged control flow get programs of their own, and a staged cond or loop
// is one nested step of the program around it. A gradient that needs the
// forward's values again (a cond's branch, a loop's body, a staged
// function's forward under an outer tape) replays the program: each op is
// recorded anew into the active trace and reported to the tapes, as its
// dispatch point did, so the tapes and the gradient rules see the same ops.
// No C++ callable runs after the call that traced it returned.
//
// A replay maps the program's value ids to tensors (ValueMap): the block's
// arguments to the values it is replayed on, the values from outside to
// themselves (in the trace that recorded them) or to what the trace
// captured (in another trace). Effects (variable updates, printing) are not
// replayed unless asked: a gradient must not repeat them.
//
//===----------------------------------------------------------------------===//

#ifndef FNC_TRACE_PROGRAM_H
#define FNC_TRACE_PROGRAM_H

#include "fnc/Tensor.h"
#include "fnc/Trace/Recorder.h"

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace fnc::trace {

class ValueMap;

/// A value of a program that a replay for a gradient cannot compute again,
/// which the forward hands to the backward: a random op's result, a read of
/// a variable the program updates (`variable`, its uid; 0 for a draw), the
/// draws of a cond's branches (returned after its results), the rows of a
/// loop body's draws (one per iteration).
struct Drawn {
  int64_t id;
  DType dtype;
  std::vector<int64_t> shape;
  uint64_t variable = 0;
};

/// An id no recorder gives (negative, unique in the process): for a value a
/// replay defines that the recording lacks, such as the rows of the draws
/// of a for_range traced without a tape, which the loop keeps only when it
/// is replayed for a gradient (the forward of a staged call under a tape).
int64_t syntheticId();

/// What a recorded program does besides computing, itself and in the
/// programs nested in it.
struct ProgramFacts {
  /// Draws random numbers that a gradient cannot get back (a program's own
  /// draws, and those its nested steps return, are values the forward can
  /// hand to the backward: Program::draws): in a loop whose shapes change,
  /// which keeps no rows of them.
  bool random = false;
  /// Reads, in a nested step, a variable updated in the program around that
  /// step (or a loop whose shapes change reads one it updates): a replay
  /// would read the variable's value after the update.
  bool staleReads = false;
  std::vector<VariableRef> reads;   // the float variables it reads
  std::vector<uint64_t> updates;    // the variables it updates
  /// Notes an op whose variable operand (if any) is `variable`.
  void note(const OpRecord &op, const VariableRef &variable);
  void absorb(const ProgramFacts &nested);
  /// Whether a nested step with these facts, in a program that updates
  /// `outerUpdates`, reads a value a replay cannot read again: it reads a
  /// variable updated outside it, or has stale reads itself. (Its reads of
  /// the variables it updates itself are among its draws.)
  bool readsStaleIn(const std::vector<uint64_t> &outerUpdates) const;
  /// Notes `draws` as values a gradient cannot get back (a region that
  /// keeps no rows of them): random draws, or reads of updated variables.
  void noteUnkept(const std::vector<Drawn> &draws);
};

/// A staged cond or loop inside a program: replays itself (staged anew,
/// with its own gradient) on the values of `map`, defining its results.
class NestedStep {
public:
  virtual ~NestedStep();
  virtual void replay(ValueMap &map) const = 0;
  /// Those of its blocks' programs.
  ProgramFacts facts;
  /// Its results that hold random numbers drawn inside, for its gradient and
  /// the backward of a function around it to reuse: a staged cond returns
  /// its branches' draws after its own results; a for_range the rows of its
  /// body's (synthetic ids where its trace did not keep them).
  std::vector<Drawn> draws;
};

/// The ops a trace or one of its blocks recorded, in order.
struct Program : ProgramFacts {
  struct Step {
    OpRecord op;         // unused by a nested step
    int64_t result = -1; // the op's result id; -1 for none
    std::shared_ptr<const NestedStep> nested;
    uint64_t variable = 0; // a variable op's variable (uid)
  };
  std::vector<int64_t> args;
  bool block = false; // a staged block's (a cond branch, a loop body)
  std::vector<Step> steps;
  std::vector<int64_t> yields;
  /// Its values that are random draws: its random ops' results and the
  /// draws its nested steps return. A replay that must not draw again
  /// takes them from ValueMap::residuals.
  std::vector<Drawn> draws;

  /// Appends an op (`variable`: its variable operand's, if any) whose
  /// result is `result` (-1: none).
  void add(OpRecord op, int64_t result, const VariableRef &variable);
  /// Appends a nested step whose blocks' programs are `inner`.
  void add(std::shared_ptr<NestedStep> step,
           std::initializer_list<const Program *> inner);
  /// Once the block is recorded (a cond's branch, a loop's body): its
  /// float reads of the variables it updates join its draws, which the
  /// forward hands to the backward, since a replay for a gradient would
  /// read the updated value; sets `staleReads` for nested steps' reads
  /// that cannot be kept so.
  void keepUpdatedReads();
  /// Whether one of its ops (not of a nested step) has the result `id`.
  bool defines(int64_t id) const;
};

/// Sets `recorder.program` for the scope's lifetime (null: records nothing
/// into a program, for fnc's own bookkeeping ops).
class ProgramScope {
public:
  ProgramScope(Recorder &recorder, Program *program)
      : recorder_(recorder), saved_(recorder.program) {
    recorder.program = program;
  }
  ~ProgramScope() { recorder_.program = saved_; }
  ProgramScope(const ProgramScope &) = delete;
  ProgramScope &operator=(const ProgramScope &) = delete;

private:
  Recorder &recorder_;
  Program *saved_;
};

/// The tensors a replay gives the program's value ids.
class ValueMap {
public:
  /// A replay in the trace of `source`, the recorder that recorded the
  /// program: ids not mapped stand for themselves.
  explicit ValueMap(Recorder *source = nullptr) : source_(source) {}

  void set(int64_t id, const Tensor &t) { values_[id] = t; }
  /// The tensor of `id`. Throws Internal for an id that is neither mapped
  /// nor of the source trace.
  Tensor get(int64_t id) const;
  std::vector<Tensor> get(const std::vector<int64_t> &ids) const;

  void setVariable(int64_t id, VariableRef ref) {
    variables_[id] = std::move(ref);
  }
  /// The variable of the variable id `id`.
  VariableRef variable(int64_t id) const;

  /// Ids whose values come from elsewhere than the program's ops: random
  /// draws and variable reads kept by the forward (residuals).
  std::unordered_map<int64_t, Tensor> residuals;
  /// Replay variable updates, printing and random draws (the forward
  /// itself, replayed into another trace).
  bool effects = false;

private:
  Recorder *source_;
  std::unordered_map<int64_t, Tensor> values_;
  std::unordered_map<int64_t, VariableRef> variables_;
};

/// Replays `program` into the active trace on `args` (its block arguments)
/// and returns its yields. Throws Unimplemented for a random draw that is
/// neither replayed (`map.effects`) nor a residual.
std::vector<Tensor> replay(const Program &program, ValueMap &map,
                           const std::vector<Tensor> &args);

/// A whole trace's program with what it captured, replayable into another
/// trace (a staged function's backward).
struct RecordedTrace {
  Program program; // args: the trace's arguments; yields: its results
  std::vector<std::pair<Tensor, int64_t>> captures;
  std::vector<std::pair<VariableRef, int64_t>> variables;

  /// A map for replaying into another trace: the captures and variables
  /// known.
  ValueMap map() const;
};

} // namespace fnc::trace

#endif // FNC_TRACE_PROGRAM_H
