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
/// loop body's draws (one per iteration), the trip count of a loop whose
/// condition reads a variable its body updates (`trips`: a replay runs it
/// as many times as the forward did, which its condition cannot tell).
struct Drawn {
  int64_t id;
  DType dtype;
  std::vector<int64_t> shape;
  uint64_t variable = 0;
  bool trips = false; // a trip count, or rows of one
  /// Of a loop's kept draws: 0, one row per iteration; 1, 2, 3: the
  /// elements, starts and shapes of a flat history (a loop whose shapes
  /// change, whose draws may too).
  int8_t part = 0;
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
  /// hand to the backward: Program::draws): in a staged cond read from a
  /// file saved before conds returned their branches' draws.
  bool random = false;
  /// Reads, in such a cond, a variable it updates (it keeps no rows of its
  /// reads): a replay would read the variable's value after the update.
  bool staleReads = false;
  /// Holds, in such a cond, a loop whose condition reads a variable its
  /// body updates (its trip count is not kept): a replay cannot tell how
  /// many times the loop ran.
  bool replayMiscounts = false;
  std::vector<VariableRef> reads;   // the float variables it reads
  std::vector<VariableRef> others;  // the other variables it reads
  std::vector<uint64_t> updates;    // the variables it updates
  /// Notes an op whose variable operand (if any) is `variable`.
  void note(const OpRecord &op, const VariableRef &variable);
  void absorb(const ProgramFacts &nested);
  /// Adds `ref` to `list` unless it is there.
  static void noteRead(std::vector<VariableRef> &list, const VariableRef &ref);
  /// The variables it reads but does not update.
  std::vector<VariableRef> unchangedReads() const;
  /// Notes `draws` as values a gradient cannot get back (a region that
  /// keeps no rows of them): random draws, reads of updated variables or
  /// trip counts.
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
  /// Per variable its blocks read but do not update (facts.unchangedReads),
  /// its uid and the id of a read of it in the program around the step,
  /// just before the step: what the step read, also where the variable is
  /// updated after the step, so its replays for a gradient read that
  /// (ValueMap::snapshots).
  std::vector<std::pair<uint64_t, int64_t>> snapshots;
};

/// The ops a trace or one of its blocks recorded, in order.
struct Program : ProgramFacts {
  struct Step {
    OpRecord op;         // unused by a nested step
    int64_t result = -1; // the op's result id; -1 for none
    std::shared_ptr<const NestedStep> nested;
    uint64_t variable = 0; // a variable op's variable (uid)
    /// A read replayed from a snapshot into a block: the snapshot, a value
    /// from outside the block (-1: none). A nested step staged around such
    /// reads takes it as its snapshot.
    int64_t outerValue = -1;
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
  /// reads of the variables it updates join its draws, which the
  /// forward hands to the backward, since a replay for a gradient would
  /// read the updated value. (A nested step reads what it does not update
  /// through its snapshots, which are such reads of this block.)
  void keepUpdatedReads();
  /// Whether one of its ops (not of a nested step) has the result `id`.
  bool defines(int64_t id) const;
  /// The result of a read of the variable `uid` among the reads that end
  /// the program, -1 if none: the variable's value for a nested step
  /// appended now (its snapshot; a staged region's are read just before
  /// it, and a replay reads them again there).
  int64_t trailingRead(uint64_t uid) const;
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
  /// Per variable uid, what a read of it gives (a read not among the
  /// residuals): inside a nested step replayed for a gradient, the value
  /// the step read (NestedStep::snapshots; SnapshotScope).
  std::unordered_map<uint64_t, Tensor> snapshots;
  /// Replay variable updates, printing and random draws (the forward
  /// itself, replayed into another trace).
  bool effects = false;

private:
  Recorder *source_;
  std::unordered_map<int64_t, Tensor> values_;
  std::unordered_map<int64_t, VariableRef> variables_;
};

/// The variables the blocks' programs `inner` of a nested step read but do
/// not update, whose values a snapshot taken before the step gives: a
/// cond's branches (`alternatives`) each on its own (a variable one branch
/// updates and the other reads is read as it was before the cond); a loop's
/// condition and body together (they run again and again).
std::vector<VariableRef>
unchangedReads(std::initializer_list<const Program *> inner,
               bool alternatives);

/// Sets `map.snapshots` to the values of `step`'s snapshots in `map` for
/// its lifetime, unless the map replays effects (the forward itself, whose
/// reads read the variables).
class SnapshotScope {
public:
  SnapshotScope(ValueMap &map, const NestedStep &step);
  ~SnapshotScope() { map_.snapshots = std::move(saved_); }
  SnapshotScope(const SnapshotScope &) = delete;
  SnapshotScope &operator=(const SnapshotScope &) = delete;

private:
  ValueMap &map_;
  std::unordered_map<uint64_t, Tensor> saved_;
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
