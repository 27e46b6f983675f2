//===- Control.cpp - fnc::cond, while_loop, for_range, switch_case --------===//
//
// Staged control flow (fnc/Control.h). Outside a trace the callables simply
// run. In a trace each branch / body is traced once into a detached block of
// the TraceRecorder (Recorder::beginBlock), and the blocks become the regions
// of a fnc.cond or fnc.while. The structural checks (same results on both
// branches, loop variables keeping dtype and shape) happen here, eagerly and
// staged alike, so both report the same errors. No MLIR here.
//
//===----------------------------------------------------------------------===//

#include "fnc/Control.h"

#include "Gradients.h"

#include "fnc/API/OpSupport.h"
#include "fnc/API/Tape.h"
#include "fnc/Ops.h"
#include "fnc/Trace/ImportTrace.h"
#include "fnc/Trace/Program.h"

#include <algorithm>
#include <optional>

namespace fnc {
namespace detail {

namespace {

std::string typeText(const Tensor &t) {
  return std::string(dtypeName(t.dtype())) + shapes::toString(t.shape());
}

void requireScalar(const Tensor &t, const char *op, const char *what,
                   bool boolOnly) {
  if (!t.defined())
    throw Error(ErrorKind::InvalidArgument,
                std::string("fnc::") + op + ": " + what +
                    " is a null fnc::Tensor");
  bool dtypeOk = boolOnly ? t.dtype() == DType::i1 : t.dtype() != DType::i1;
  if (!dtypeOk || !t.shape().empty())
    throw Error(ErrorKind::InvalidArgument,
                std::string("fnc::") + op + ": " + what + " must be a " +
                    (boolOnly ? "scalar bool" : "scalar number") +
                    " tensor, got " + typeText(t) +
                    (boolOnly ? "; compare it (x > 0) or reduce it "
                                "(fnc::reduce_any)"
                              : ""));
}

/// The dtypes and shapes of loop variables (or none, for a branch).
struct VarTypes {
  std::vector<DType> dtypes;
  std::vector<Shape> shapes;
  std::string text(size_t i) const {
    return std::string(dtypeName(dtypes[i])) + shapes::toString(shapes[i]);
  }
};

/// Records into a new block of `r`, with arguments of `types`, for the
/// lifetime of the scope.
class BlockScope {
public:
  BlockScope(trace::Recorder &r, const VarTypes &types,
             std::vector<Tensor> &args, const char *argName)
      : r_(r) {
    const std::vector<DType> &dtypes = types.dtypes;
    const std::vector<Shape> &shapes = types.shapes;
    std::vector<int64_t> ids;
    block = r.beginBlock(dtypes, shapes, ids);
    for (size_t i = 0; i < ids.size(); ++i)
      args.push_back(trace::makeSymbolic(dtypes[i], shapes[i], r.token(),
                                         ids[i], argName));
  }
  ~BlockScope() { r_.endBlock(); }
  BlockScope(const BlockScope &) = delete;
  BlockScope &operator=(const BlockScope &) = delete;
  int64_t block;

private:
  trace::Recorder &r_;
};

std::vector<int64_t> idsOf(trace::Recorder &r, const std::vector<Tensor> &ts,
                           const char *op, const char *what) {
  std::vector<int64_t> ids;
  for (size_t i = 0; i < ts.size(); ++i) {
    if (!ts[i].defined())
      throw Error(ErrorKind::InvalidArgument,
                  std::string("fnc::") + op + ": " + what + " #" +
                      std::to_string(i) +
                      " is a null fnc::Tensor; return defined tensors");
    ids.push_back(r.valueOf(ts[i], op));
  }
  return ids;
}

std::vector<Tensor> symbolicResults(trace::Recorder &r,
                                    const std::vector<int64_t> &ids,
                                    const std::vector<Tensor> &like,
                                    const char *name) {
  std::vector<Tensor> out;
  for (size_t i = 0; i < ids.size(); ++i)
    out.push_back(trace::makeSymbolic(like[i].dtype(), like[i].shape(),
                                      r.token(), ids[i], name));
  return out;
}

/// True if `shape` fits `invariant`: same rank, equal where the invariant
/// is known.
bool fits(const Shape &shape, const Shape &invariant) {
  if (shape.size() != invariant.size())
    return false;
  for (size_t i = 0; i < shape.size(); ++i)
    if (!shapes::isDynamic(invariant[i]) && invariant[i] != shape[i])
      return false;
  return true;
}

std::string shapeText(const Shape &shape) {
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i)
    s += (i ? ", " : "") + (shapes::isDynamic(shape[i])
                                ? std::string("kUnknownDim")
                                : std::to_string(shape[i]));
  return s + ")";
}

/// The types the loop carries: the initial values', or the shape
/// invariants (checked against the initial values).
VarTypes loopTypes(const std::vector<Tensor> &init, const LoopOptions &options,
                   const std::vector<LoopVar> &kinds, const char *op,
                   size_t hidden) {
  VarTypes types;
  for (const Tensor &t : init) {
    types.dtypes.push_back(t.dtype());
    types.shapes.push_back(t.shape());
  }
  auto kindOf = [&](size_t i) {
    return i < kinds.size() ? kinds[i] : LoopVar::Tensor;
  };
  size_t count = init.size() - hidden, tensors = 0;
  for (size_t i = 0; i < count; ++i) {
    // Dynamic-size TensorArrays grow along their first dim.
    Shape &shape = types.shapes[hidden + i];
    if (kindOf(i) == LoopVar::GrowingArray && !shape.empty())
      shape[0] = shapes::kDynamic;
    // An array with no elements yet whose element shape has dims known only
    // at run time takes them at its first write (TensorArray.cpp).
    if (kindOf(i) != LoopVar::Tensor && shapes::numElements(shape) == 0)
      for (size_t d = 1; d < shape.size(); ++d)
        if (shape[d] == 0)
          shape[d] = shapes::kDynamic;
    tensors += kindOf(i) == LoopVar::Tensor;
  }
  const auto &inv = options.shape_invariants;
  if (inv.empty())
    return types;
  if (inv.size() != tensors)
    throw Error(ErrorKind::InvalidArgument,
                std::string("fnc::") + op + ": " + std::to_string(inv.size()) +
                    " shape invariant" + (inv.size() == 1 ? "" : "s") +
                    " for " + std::to_string(tensors) + " tensor loop variable" +
                    (tensors == 1 ? "" : "s") +
                    "; give one shape per tensor loop variable (its shape, "
                    "with fnc::kUnknownDim for the dims that change; "
                    "TensorArrays need none)");
  for (size_t i = 0, k = 0; i < count; ++i) {
    if (kindOf(i) != LoopVar::Tensor)
      continue;
    Shape shape = inv[k];
    for (int64_t &d : shape)
      if (d == -1)
        d = shapes::kDynamic;
    const Tensor &t = init[hidden + i];
    if (!fits(t.shape(), shape))
      throw Error(ErrorKind::InvalidArgument,
                  std::string("fnc::") + op + ": loop variable #" +
                      std::to_string(k) + " is " + typeText(t) +
                      " but its shape invariant is " + shapeText(shape) +
                      "; the initial value must have the invariant's rank "
                      "and its known dims");
    types.shapes[hidden + i] = std::move(shape);
    ++k;
  }
  return types;
}

/// Throws unless `after` has the structure of `types` (loop variables).
/// `hidden` leading variables are the loop's own (for_range's counter) and
/// not counted in messages.
void checkLoopVars(const VarTypes &types, const std::vector<Tensor> &after,
                   const char *op, size_t hidden, bool invariants) {
  size_t n = types.dtypes.size();
  if (n != after.size())
    throw Error(ErrorKind::InvalidArgument,
                std::string("fnc::") + op + ": the body returns " +
                    std::to_string(after.size() - hidden) + " loop variable" +
                    (after.size() - hidden == 1 ? "" : "s") +
                    " but the loop has " + std::to_string(n - hidden) +
                    "; return every loop variable from the body");
  for (size_t i = hidden; i < n; ++i) {
    std::string which = "loop variable #" + std::to_string(i - hidden);
    if (!after[i].defined())
      throw Error(ErrorKind::InvalidArgument,
                  std::string("fnc::") + op + ": " + which +
                      " returned by the body is a null fnc::Tensor");
    if (after[i].dtype() != types.dtypes[i] ||
        !fits(after[i].shape(), types.shapes[i]))
      throw Error(ErrorKind::InvalidArgument,
                  std::string("fnc::") + op + ": " + which + " is " +
                      types.text(i) +
                      (invariants ? " by its shape invariant" : " before the loop") +
                      " but " + typeText(after[i]) +
                      " after the body; a loop variable must keep its dtype "
                      "and shape across iterations (cast it, carry a "
                      "tensor of the final shape, or declare the dims that "
                      "change as fnc::kUnknownDim in "
                      "fnc::LoopOptions::shape_invariants)");
  }
}

void checkBranches(const std::vector<Tensor> &a, const std::vector<Tensor> &b) {
  if (a.size() != b.size())
    throw Error(ErrorKind::InvalidArgument,
                "fnc::cond: the true branch returns " +
                    std::to_string(a.size()) +
                    " tensors but the false branch returns " +
                    std::to_string(b.size()) +
                    "; both branches must return the same structure");
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i].dtype() != b[i].dtype() || a[i].rank() != b[i].rank())
      throw Error(ErrorKind::InvalidArgument,
                  "fnc::cond: result #" + std::to_string(i) +
                      " is " + typeText(a[i]) + " in the true branch but " +
                      typeText(b[i]) +
                      " in the false branch; both branches must return "
                      "tensors of the same dtypes and ranks");
}

/// The most specific shape of both branches' results, as TensorFlow's
/// cond gives: the dims they agree on, unknown where they differ (or
/// either is unknown).
Shape commonShape(const Shape &a, const Shape &b) {
  Shape common = a;
  for (size_t d = 0; d < a.size(); ++d)
    if (a[d] != b[d])
      common[d] = shapes::kDynamic;
  return common;
}

} // namespace

namespace {

using trace::Program;
using trace::VariableRef;

/// What a loop needs to know its trip count before it runs (for_range):
/// its limit and delta, of the counter's dtype.
struct Bounds {
  Tensor limit, delta;
};

/// The types of a loop body's random draws, which a for_range under a tape
/// keeps one row per iteration, so that its gradient reuses them.
using DrawTypes = VarTypes;

std::vector<Tensor>
whileLoop(const LoopCondFn &cond, const LoopBodyFn &body,
          const std::vector<Tensor> &init, const char *op,
          const LoopOptions &options, const std::vector<LoopVar> &kinds,
          size_t hidden, const std::optional<Bounds> &bounds = std::nullopt,
          const DrawTypes *drawTypes = nullptr,
          std::vector<Tensor> *drawRowsOut = nullptr, bool keepDraws = false,
          bool countTrips = false);

std::vector<Tensor> condStaged(const Tensor &pred, const BranchFn &thenFn,
                               const BranchFn &elseFn,
                               std::vector<Tensor> *drawn);

/// Values for the ids of a program's draws, from the forward (residuals).
using Residuals = std::unordered_map<int64_t, Tensor>;
/// Per variable (uid), the value a staged region read (its snapshot).
using Snapshots = std::unordered_map<uint64_t, Tensor>;

Tensor zerosOf(const VariableRef &v) {
  return zeros(v.alias.shape(), v.alias.dtype());
}

std::vector<uint64_t> uidsOf(const std::vector<VariableRef> &vars) {
  std::vector<uint64_t> uids;
  for (const VariableRef &v : vars)
    uids.push_back(v.uid);
  return uids;
}

/// The vector-Jacobian product of a recorded block: replays `program` on
/// `args` under a tape watching `watch` (values of the block's arguments)
/// and `captured` (values from outside the block, which the program uses by
/// their ids), and returns the gradients of sum_k <yield_k, yieldGrads[k]>
/// with respect to `watch`, then `captured`, then the variables: zeros
/// where none flows. The program's random draws take the forward's values,
/// `residuals`, and its reads of the variables in `snapshots` those values.
/// `reached`, if given, is set where a gradient flows to a value of
/// `watch`, then `captured` (and left alone elsewhere): a value no gradient
/// reaches in any replay has none, not a zero one, so that, as eagerly, the
/// backward does not continue into the ops that computed it (where a zero
/// times an inf is NaN).
std::vector<Tensor> replayVjp(const Program &program,
                              const std::vector<Tensor> &args,
                              const std::vector<Tensor> &watch,
                              const std::vector<Tensor> &captured,
                              const std::vector<VariableRef> &variables,
                              const std::vector<Tensor> &yieldGrads,
                              const Residuals &residuals,
                              const Snapshots &snapshots,
                              std::vector<char> *reached = nullptr) {
  trace::Recorder *r = api::recording();
  trace::ValueMap map(r);
  map.residuals = residuals;
  map.snapshots = snapshots;
  std::vector<int64_t> ids = idsOf(*r, captured, "gradient", "value");
  for (size_t j = 0; j < captured.size(); ++j)
    map.set(ids[j], captured[j]);
  std::vector<Tensor> all = watch;
  all.insert(all.end(), captured.begin(), captured.end());
  std::vector<Tensor> g =
      grad::vjp([&] { return trace::replay(program, map, args); }, all,
                uidsOf(variables), yieldGrads);
  for (size_t j = 0; reached && j < watch.size() + captured.size(); ++j)
    if (g[j].defined())
      (*reached)[j] = 1;
  for (size_t i = 0; i < all.size(); ++i)
    if (!g[i].defined())
      g[i] = zeros_like(all[i]);
  for (size_t j = 0; j < variables.size(); ++j)
    if (!g[all.size() + j].defined())
      g[all.size() + j] = zerosOf(variables[j]);
  return g;
}

/// Why a region whose programs have `facts` cannot be differentiated by
/// replaying them (empty: it can).
std::string whyNoReplay(const trace::ProgramFacts &facts, const char *what) {
  // (Only a staged cond read back from a file saved before conds returned
  // their branches' draws keeps no rows of what a gradient needs.)
  const char *resave = " (a staged cond read from a file saved by an older "
                       "fnc, which keeps no rows of them: trace and save the "
                       "function again)";
  if (facts.random)
    return std::string(what) +
           " draws random numbers that its gradient cannot get back" + resave;
  if (facts.staleReads)
    return std::string(what) +
           " reads a variable it updates, and its gradient cannot get back "
           "the values it read" + resave;
  if (facts.replayMiscounts)
    return std::string(what) +
           " holds a staged loop whose condition reads a variable its body "
           "updates, and its gradient cannot tell how many times it ran" +
           resave;
  return "";
}

using trace::Drawn;

/// Reads, just before a staged region (in the program around it), each
/// variable its blocks' programs `inner` read but do not update (a cond's
/// branches, `alternatives`, each on its own), and notes
/// the reads in `step`: the region's replays for a gradient read those
/// values, which are what the region read also where the variable is
/// updated after it. A read just before the region serves (one of the
/// user's; the replayed read of the snapshot of the region a replay stages
/// again), and so does the snapshot its blocks' reads were replayed from
/// (Program::Step::outerValue).
Snapshots recordSnapshots(trace::Recorder &r, trace::NestedStep &step,
                          std::initializer_list<const Program *> inner,
                          bool alternatives) {
  Snapshots values;
  for (const VariableRef &v : trace::unchangedReads(inner, alternatives)) {
    int64_t id = -1;
    for (const Program *p : inner)
      for (const Program::Step &s : p->steps)
        if (s.outerValue >= 0 && s.variable == v.uid)
          id = s.outerValue;
    if (id < 0 && r.program)
      id = r.program->trailingRead(v.uid);
    if (id < 0) {
      trace::OpRecord read{trace::ops::VarRead{},
                           {r.variableOf(v.uid, v.alias, v.name)},
                           v.alias.dtype(),
                           v.alias.shape()};
      std::string error;
      id = r.record(read, error);
      if (id < 0)
        throw Error(ErrorKind::Internal,
                    "fnc: reading the variable `" + v.name +
                        "` before a staged region: " + error);
    }
    step.snapshots.emplace_back(v.uid, id);
    values[v.uid] = trace::makeSymbolic(v.alias.dtype(), v.alias.shape(),
                                        r.token(), id, v.name);
  }
  return values;
}

/// The random draws made in `branches`, in the order a cond returns them:
/// the then branch's, then the else branch's.
std::vector<Drawn>
branchDraws(const std::shared_ptr<const Program> (&branches)[2]) {
  std::vector<Drawn> all = branches[0]->draws;
  all.insert(all.end(), branches[1]->draws.begin(), branches[1]->draws.end());
  return all;
}

/// A staged cond inside a recorded program: staged again on replay. Its
/// random draws are the forward's where the map has them as residuals
/// (a backward), else drawn again (the forward replayed with its effects).
struct CondStep final : trace::NestedStep {
  int64_t pred = -1;
  std::shared_ptr<const Program> branches[2];
  std::vector<int64_t> results;
  void replay(trace::ValueMap &map) const override {
    trace::SnapshotScope snapshot(map, *this);
    bool given = !draws.empty();
    for (const Drawn &d : draws)
      given = given && map.residuals.count(d.id);
    std::vector<Drawn> inner = branchDraws(branches);
    if (given)
      for (size_t k = 0; k < draws.size(); ++k)
        map.residuals[inner[k].id] = map.residuals.at(draws[k].id);
    std::vector<Tensor> drawn;
    std::vector<Tensor> outs = condStaged(
        map.get(pred), [&] { return trace::replay(*branches[0], map, {}); },
        [&] { return trace::replay(*branches[1], map, {}); }, &drawn);
    for (size_t i = 0; i < results.size(); ++i)
      map.set(results[i], outs[i]);
    for (size_t k = 0; k < draws.size(); ++k) {
      if (given)
        map.set(draws[k].id, map.residuals.at(draws[k].id));
      else if (k < drawn.size() && drawn[k].defined())
        map.set(draws[k].id, drawn[k]);
    }
  }
};

/// The gradient of a staged cond: a cond on the same predicate whose
/// branches replay the recorded forward branch under a tape and return the
/// gradients of the values it captured and of the variables it read.
/// The random draws its branches made, `drawn`, are the cond's extra
/// results: the backward's branches take them as residuals.
std::shared_ptr<const tape::Region>
condRegion(const Tensor &pred, std::shared_ptr<const CondStep> step,
           const std::vector<Tensor> &drawn, const Snapshots &snapshots) {
  auto region = std::make_shared<tape::Region>();
  region->op = "cond";
  const trace::ProgramFacts &facts = step->facts;
  region->variables = facts.reads;
  region->whyNot = whyNoReplay(facts, "a branch");
  if (!region->whyNot.empty())
    return region;
  std::vector<VariableRef> variables = facts.reads;
  Residuals residuals;
  std::vector<Drawn> inner = branchDraws(step->branches);
  for (size_t k = 0; k < inner.size() && k < drawn.size(); ++k)
    if (drawn[k].defined())
      residuals[inner[k].id] = drawn[k];
  region->backward = [pred, step, variables, residuals,
                      snapshots](const std::vector<Tensor> &captured,
                                 const std::vector<Tensor> &resultGrads) {
    std::vector<char> reached(captured.size(), 0);
    auto differentiate = [&](const Program &branch) -> BranchFn {
      return [&] {
        return replayVjp(branch, {}, {}, captured, variables, resultGrads,
                         residuals, snapshots, &reached);
      };
    };
    std::vector<Tensor> grads =
        condImpl(pred, differentiate(*step->branches[0]),
                 differentiate(*step->branches[1]));
    for (size_t j = 0; j < captured.size() && j < grads.size(); ++j)
      if (!reached[j]) // in neither branch
        grads[j] = Tensor();
    return grads;
  };
  return region;
}

/// The program `r` records into now, and a new one for a block.
std::shared_ptr<Program> blockProgram(trace::Recorder &r,
                                      const std::vector<Tensor> &args) {
  auto p = std::make_shared<Program>();
  p->block = true;
  p->args = idsOf(r, args, "gradient", "value");
  return p;
}

/// Adds a staged region to the program around it (if one records).
void addStep(Program *outer, std::shared_ptr<trace::NestedStep> step,
             std::initializer_list<const Program *> inner) {
  if (outer) {
    outer->add(std::move(step), inner);
    return;
  }
  for (const Program *p : inner)
    step->facts.absorb(*p);
}

/// Zeros standing for a draw where it was not made (the other branch of a
/// cond): its shape, with dims unknown while tracing 0.
Tensor notDrawn(const Drawn &d) {
  Shape shape = d.shape;
  for (int64_t &n : shape)
    n = std::max<int64_t>(n, 0);
  return zeros(shape, d.dtype);
}

/// condImpl; `drawn`, if given, receives the random draws its branches
/// made (branchDraws' order). A staged cond returns them after its results,
/// each branch returning zeros for the other's: a gradient must reuse
/// them, not draw again. (Unused, they are removed by the compiler.) A
/// draw with a synthetic id (rows a loop did not keep) is no value here:
/// the cond gives it a synthetic id too, and a null tensor in `drawn`.
std::vector<Tensor> condStaged(const Tensor &pred, const BranchFn &thenFn,
                               const BranchFn &elseFn,
                               std::vector<Tensor> *drawn) {
  requireScalar(pred, "cond", "the predicate", true);
  trace::Recorder *r = api::recording();
  if (!r || !trace::isSymbolic(pred)) {
    // Eager (or a predicate known while tracing): run one branch.
    return pred.item<bool>() ? thenFn() : elseFn();
  }
  int64_t predId = r->valueOf(pred, "cond");
  Program *outer = r->program;
  VarTypes none;
  std::vector<Tensor> thenOuts, elseOuts, noArgs;
  std::vector<int64_t> thenIds, elseIds;
  int64_t thenBlock, elseBlock;
  auto thenProgram = std::make_shared<Program>();
  auto elseProgram = std::make_shared<Program>();
  thenProgram->block = elseProgram->block = true;
  tape::RegionScope region;
  {
    BlockScope scope(*r, none, noArgs, "");
    thenBlock = scope.block;
    {
      trace::ProgramScope program(*r, thenProgram.get());
      thenOuts = thenFn();
    }
    thenProgram->keepUpdatedReads();
    thenIds = idsOf(*r, thenOuts, "cond", "result");
  }
  {
    BlockScope scope(*r, none, noArgs, "");
    elseBlock = scope.block;
    {
      trace::ProgramScope program(*r, elseProgram.get());
      elseOuts = elseFn();
    }
    elseProgram->keepUpdatedReads();
    elseIds = idsOf(*r, elseOuts, "cond", "result");
    checkBranches(thenOuts, elseOuts);
    thenProgram->yields = thenIds;
    elseProgram->yields = elseIds;
    // The then branch's draws, where the else branch runs.
    trace::ProgramScope bookkeeping(*r, nullptr);
    for (const Drawn &d : thenProgram->draws)
      if (d.id >= 0)
        elseIds.push_back(r->valueOf(notDrawn(d), "cond"));
  }
  size_t n = thenOuts.size();
  for (const Drawn &d : thenProgram->draws)
    if (d.id >= 0)
      thenIds.push_back(d.id);
  {
    // The else branch's draws, where the then branch runs: zeros from
    // before the cond.
    trace::ProgramScope bookkeeping(*r, nullptr);
    for (const Drawn &d : elseProgram->draws)
      if (d.id >= 0)
        thenIds.push_back(r->valueOf(notDrawn(d), "cond"));
  }
  for (const Drawn &d : elseProgram->draws)
    if (d.id >= 0)
      elseIds.push_back(d.id);
  auto step = std::make_shared<CondStep>();
  Snapshots snapshots =
      recordSnapshots(*r, *step, {thenProgram.get(), elseProgram.get()},
                      /*alternatives=*/true);
  std::vector<int64_t> results;
  std::string error;
  if (!r->buildCond(predId, thenBlock, thenIds, elseBlock, elseIds, results,
                    error))
    throw Error(ErrorKind::Internal, "fnc::cond: " + error);
  std::vector<Tensor> outs;
  for (size_t i = 0; i < n; ++i)
    outs.push_back(trace::makeSymbolic(
        thenOuts[i].dtype(),
        commonShape(thenOuts[i].shape(), elseOuts[i].shape()), r->token(),
        results[i], "cond"));
  step->pred = predId;
  step->branches[0] = thenProgram;
  step->branches[1] = elseProgram;
  step->results.assign(results.begin(), results.begin() + n);
  std::vector<Tensor> draws;
  size_t at = n;
  for (Drawn d : branchDraws(step->branches)) {
    if (d.id < 0) {
      d.id = trace::syntheticId();
      draws.emplace_back();
    } else {
      d.id = results[at++];
      draws.push_back(
          trace::makeSymbolic(d.dtype, d.shape, r->token(), d.id, "cond"));
    }
    step->draws.push_back(std::move(d));
  }
  addStep(outer, step, {thenProgram.get(), elseProgram.get()});
  // A branch may return a value from outside unchanged: it is an input of
  // the region too.
  std::vector<Tensor> returned = thenOuts;
  returned.insert(returned.end(), elseOuts.begin(), elseOuts.end());
  region.end(condRegion(pred, step, draws, snapshots), returned, outs);
  if (drawn)
    *drawn = std::move(draws);
  return outs;
}
} // namespace

std::vector<Tensor> condImpl(const Tensor &pred, const BranchFn &thenFn,
                             const BranchFn &elseFn) {
  return condStaged(pred, thenFn, elseFn, nullptr);
}

namespace {

/// Whether a staged loop can keep the history its gradient needs: its
/// tensors keep the shapes of their initial values (dims unknown while
/// tracing included), unlike those whose shape invariants let their dims
/// change across iterations. TensorArrays need no history (see
/// loopBackward).
bool canKeepHistory(const LoopOptions &options) {
  for (const Shape &shape : options.shape_invariants)
    for (int64_t d : shape)
      if (d == -1 || shapes::isDynamic(d))
        return false;
  return true;
}

/// Whether a loop keeps a draw of its body of `shape` as a flat history
/// rather than a row per iteration: where the loop's shapes change
/// (`keepsHistory` false), or the draw has a dim unknown while tracing,
/// which may change from one iteration to the next (the rows of an inner
/// loop's draws, as many as its trip count).
bool flatDraw(bool keepsHistory, const Shape &shape) {
  return !keepsHistory ||
         std::any_of(shape.begin(), shape.end(), shapes::isDynamic);
}

/// `buffer` (1-D) with `values` (1-D) written at `at` (an int64 scalar),
/// its size doubled first when they do not fit: a flat history's append,
/// in place once compiled (amortized O(1) per element).
Tensor appendAt(const Tensor &buffer, const Tensor &at, const Tensor &values) {
  Tensor capacity = api::sizeAlong(buffer, 0);
  Tensor end = at + api::sizeAlong(values, 0);
  Tensor grown = condImpl(
      end > capacity,
      [&] {
        Tensor more = reshape(maximum(capacity, end - capacity), {1});
        return std::vector<Tensor>{
            concat({buffer, zeros(more, buffer.dtype())}, 0)};
      },
      [&] { return std::vector<Tensor>{buffer}; })[0];
  return api::dynamicUpdateSlice(grown, 0, at, values);
}

/// A flat history of one loop variable: each iteration's elements in one
/// buffer, where they start (from 0) and each iteration's shape (`rank`
/// sizes per iteration), each appended in place (appendAt).
struct FlatHistory {
  Tensor elements, starts, shapes;
  /// Empty buffers for a variable of `dtype`.
  static FlatHistory empty(DType dtype) {
    return {zeros({0}, dtype), zeros({1}, DType::i64), zeros({0}, DType::i64)};
  }
  /// Appends `value`, iteration `count`'s.
  FlatHistory append(const Tensor &count, const Tensor &value) const {
    Tensor flat = reshape(value, {-1});
    Tensor start = gather(starts, count, 0);
    Tensor end = start + api::sizeAlong(flat, 0);
    Tensor rank(static_cast<int64_t>(value.rank()));
    return {appendAt(elements, start, flat),
            appendAt(starts, count + int64_t{1}, reshape(end, {1})),
            appendAt(shapes, count * rank, shape(value, DType::i64))};
  }
  /// Iteration i's value (`index`: an integer scalar), whose dims known
  /// while tracing are `known`.
  Tensor at(const Tensor &index, const Shape &known) const {
    Tensor i = index.dtype() == DType::i64 ? index : cast(index, DType::i64);
    Tensor start = gather(starts, i, 0);
    Tensor end = gather(starts, i + int64_t{1}, 0);
    auto rank = static_cast<int64_t>(known.size());
    Tensor dims = reshape(
        api::dynamicSlice(shapes, 0, i * Tensor(rank), Tensor(rank)), {rank});
    return api::reshapeToShape(
        api::dynamicSlice(elements, 0, start, end - start), dims, known);
  }
};

/// Iteration i's values of the draws of `body` (into `out`) from what a
/// loop kept of them: `kept` (its draws' entries: a row per iteration, or
/// the three tensors of a flat history) and their values `rows`.
void drawsAt(const Program &body, const std::vector<trace::Drawn> &kept,
             const std::vector<Tensor> &rows, const Tensor &i,
             std::unordered_map<int64_t, Tensor> &out) {
  size_t e = 0;
  for (const trace::Drawn &d : body.draws) {
    if (e >= kept.size() || e >= rows.size() || kept[e].trips != d.trips)
      return;
    if (kept[e].part == 0) {
      out[d.id] = gather(rows[e], i, 0);
      ++e;
    } else {
      out[d.id] = FlatHistory{rows[e], rows[e + 1], rows[e + 2]}.at(i, d.shape);
      e += 3;
    }
  }
}

/// Zeros of `trips` rows (an int64 scalar, at least 1 row) of the shape of
/// `like` (whose dims known while tracing are `row`).
Tensor rowsFor(const Tensor &trips, const Tensor &like, const Shape &row,
               DType dtype) {
  Tensor count = reshape(maximum(trips, fill({}, 1.0, DType::i64)), {1});
  bool known = std::none_of(row.begin(), row.end(), shapes::isDynamic);
  Tensor dims = known ? constant(row, {static_cast<int64_t>(row.size())})
                      : shape(like, DType::i64);
  Tensor rows = concat({count, dims}, 0);
  Shape knownDims = {shapes::kDynamic};
  knownDims.insert(knownDims.end(), row.begin(), row.end());
  api::noteShapeValues(rows, knownDims);
  return zeros(rows, dtype);
}

/// The trip count of a for_range from `start`: ceil((limit - start) /
/// delta), at least 0.
Tensor tripCount(const Tensor &start, const Bounds &b) {
  Tensor s64 = cast(start, DType::i64), l64 = cast(b.limit, DType::i64),
         d64 = cast(b.delta, DType::i64);
  return maximum(floor_div(l64 - s64 + d64 - sign(d64), d64),
                 zeros({}, DType::i64));
}

/// Identity of a tensor value (as the tapes tell values apart).
const void *identity(const Tensor &t) { return &TensorAccess::impl(t); }

/// The history of a loop whose trip count is known only once it has run:
/// a second loop replays the recorded body `count` times from `init`,
/// writing the variables `kept` of each iteration into rows preallocated
/// for `count`; iteration i's random draws come from `drawRows` (what the
/// first loop kept of them: `keptDraws`, drawsAt). Dead (and removed by the compiler) unless a
/// gradient reaches the loop.
std::vector<Tensor> recordHistory(std::shared_ptr<const Program> body,
                                  const std::vector<Tensor> &init,
                                  const std::vector<size_t> &kept,
                                  const VarTypes &types,
                                  const std::vector<LoopVar> &kinds,
                                  size_t hidden, const Tensor &count,
                                  const std::vector<Tensor> &drawRows,
                                  const std::vector<trace::Drawn> &keptDraws,
                                  const Snapshots &snapshots) {
  tape::Suspended quiet; // the tapes see the loop, not its bookkeeping
  trace::Recorder &r = *api::recording();
  size_t n = init.size();
  std::vector<Tensor> start = init;
  for (size_t k : kept)
    start.push_back(
        rowsFor(count, init[k], types.shapes[k], types.dtypes[k]));
  // The replaying loop's variables are what the loop's are (a growing
  // TensorArray grows there too), then the rows.
  std::vector<LoopVar> all(start.size(), LoopVar::Tensor);
  for (size_t k = hidden; k < n && k - hidden < kinds.size(); ++k)
    all[k] = kinds[k - hidden];
  trace::ValueMap map(&r);
  map.snapshots = snapshots;
  std::vector<Tensor> out =
      forImpl(zeros({}, DType::i64), count, fill({}, 1.0, DType::i64),
              [&](const Tensor &i, const std::vector<Tensor> &v) {
                std::vector<Tensor> vars(v.begin(), v.begin() + n);
                drawsAt(*body, keptDraws, drawRows, i, map.residuals);
                std::vector<Tensor> next = trace::replay(*body, map, vars);
                for (size_t j = 0; j < kept.size(); ++j)
                  next.push_back(api::setRow(v[n + j], i, vars[kept[j]]));
                return next;
              },
              start, {}, all);
  return std::vector<Tensor>(out.begin() + n, out.end());
}

/// The gradient of a staged loop: a loop from the last iteration down to
/// the first that replays the recorded body on the variables it saw under
/// a tape of its own, carrying the gradients of the loop variables and
/// accumulating those of the values the body captured and of the variables
/// it read. The variables `kept` come from `history` (one row per
/// iteration, `count` rows); a TensorArray's from `finals`, the array the
/// loop left: its elements are written once, so an iteration's reads find
/// the same values there, and the gradient of a write does not depend on
/// the array written to. A loop whose shapes may change (`changing`: its
/// variables' types) reads them from its flat histories (three tensors per
/// kept variable in `history`, FlatHistory), and the carried gradients
/// change shape with them. The body's random draws come from `drawRows`
/// (what the loop kept of them: `keptDraws`, drawsAt).
std::function<std::vector<Tensor>(const std::vector<Tensor> &,
                                  const std::vector<Tensor> &)>
loopBackward(std::shared_ptr<const Program> body, std::vector<Tensor> init,
             std::vector<Tensor> finals, std::vector<size_t> kept,
             Tensor count, std::vector<Tensor> history,
             std::vector<Tensor> drawRows, std::vector<VariableRef> variables,
             std::vector<trace::Drawn> keptDraws,
             std::optional<VarTypes> changing, Snapshots snapshots) {
  return [body, init, finals, kept, count, history, drawRows, keptDraws,
          variables, changing, snapshots](const std::vector<Tensor> &captured,
                    const std::vector<Tensor> &resultGrads) {
    size_t n = init.size(), c = captured.size(), nv = variables.size();
    std::vector<size_t> floats;
    for (size_t k = 0; k < n; ++k)
      if (isFloat(init[k].dtype()))
        floats.push_back(k);
    size_t nf = floats.size();
    // The variables whose gradients flow: those of the results a gradient
    // reached, and those the body's gradient reaches from them. The others
    // carry zeros that seed nothing: as eagerly, no gradient starts from a
    // result none reached (a zero through an op whose derivative is inf is
    // NaN).
    std::vector<char> live(nf, 0);
    std::vector<Tensor> carriedGrads;
    for (size_t f = 0; f < nf; ++f) {
      size_t k = floats[f];
      live[f] = k < resultGrads.size() && resultGrads[k].defined();
      carriedGrads.push_back(live[f] ? resultGrads[k] : zeros_like(finals[k]));
    }
    for (const Tensor &t : captured)
      carriedGrads.push_back(zeros_like(t));
    for (const VariableRef &v : variables)
      carriedGrads.push_back(zerosOf(v));
    // The carried gradients of variables whose shapes may change change
    // with them.
    LoopOptions options;
    if (changing) {
      for (size_t k : floats)
        options.shape_invariants.push_back(changing->shapes[k]);
      for (size_t j = nf; j < carriedGrads.size(); ++j)
        options.shape_invariants.push_back(carriedGrads[j].shape());
    }
    Tensor one = fill({}, 1.0, count.dtype());
    std::vector<char> reached(c, 0);
    std::vector<Tensor> out = forImpl(
        count - one, -one, -one,
        [&](const Tensor &i, const std::vector<Tensor> &g) {
          std::vector<Tensor> vars = finals, watched, yieldGrads(n);
          for (size_t j = 0; j < kept.size(); ++j)
            vars[kept[j]] =
                changing ? FlatHistory{history[3 * j], history[3 * j + 1],
                                       history[3 * j + 2]}
                               .at(i, changing->shapes[kept[j]])
                         : gather(history[j], i, 0);
          for (size_t f = 0; f < nf; ++f)
            watched.push_back(vars[floats[f]]);
          Residuals drawn;
          drawsAt(*body, keptDraws, drawRows, i, drawn);
          // What the body yields for a kept variable is that variable at the
          // next iteration: row i + 1, or the final value after the last.
          // So the replay does not compute it again (an RNN cell's
          // matmuls), only what the gradients need of it.
          if (!changing) {
            Tensor last = count - one;
            Tensor nextRow = minimum(i + one, last);
            Tensor isLast = greater_equal(i, last);
            for (size_t j = 0; j < kept.size(); ++j) {
              size_t k = kept[j];
              int64_t id = body->yields[k];
              if (!isFloat(init[k].dtype()) || !body->defines(id))
                continue;
              drawn[id] =
                  select(isLast, finals[k], gather(history[j], nextRow, 0));
            }
          }
          // Replayed again (rarely) while the gradient reaches variables
          // not yet live: the body's dependences are those of every
          // iteration.
          std::vector<Tensor> grads;
          for (bool grown = true; grown;) {
            for (size_t f = 0; f < nf; ++f)
              yieldGrads[floats[f]] = live[f] ? g[f] : Tensor();
            std::vector<char> hit(nf + c, 0);
            grads = replayVjp(*body, vars, watched, captured, variables,
                              yieldGrads, drawn, snapshots, &hit);
            grown = false;
            for (size_t f = 0; f < nf; ++f)
              if (hit[f] && !live[f])
                live[f] = grown = true;
            for (size_t j = 0; j < c; ++j)
              reached[j] |= hit[nf + j];
          }
          for (size_t j = nf; j < nf + c + nv; ++j) {
            grads[j] = g[j] + grads[j];
            // Computed from values whose dims are unknown while tracing,
            // an accumulated gradient takes back the dims it is carried
            // with.
            if (changing)
              grads[j] = grad::conformTo(grads[j], carriedGrads[j].shape());
          }
          return grads;
        },
        carriedGrads, options, {});
    // An initial value's gradient is the carried one after the first
    // iteration; a captured value's, what the iterations accumulated.
    std::vector<Tensor> grads;
    // None for a captured value the body's gradient reaches in no
    // iteration (and that is no initial value).
    for (size_t j = 0; j < c; ++j) {
      Tensor g = reached[j] ? out[nf + j] : Tensor();
      for (size_t f = 0; f < nf; ++f)
        if (live[f] && identity(init[floats[f]]) == identity(captured[j]))
          g = g.defined() ? g + out[f] : out[f];
      grads.push_back(g);
    }
    for (size_t j = 0; j < nv; ++j)
      grads.push_back(out[nf + c + j]);
    return grads;
  };
}

/// A staged loop inside a recorded program: staged again on replay.
struct LoopStep final : trace::NestedStep {
  const char *op = "";
  LoopOptions options;
  std::vector<LoopVar> kinds;
  size_t hidden = 0;
  std::shared_ptr<const Program> cond, body;
  std::vector<int64_t> inits, results;
  int64_t limit = -1, delta = -1; // a for_range's
  void requireConditionUnchanged() const;
  /// Whether its last draw is its trip count (keepTripCount): a scalar,
  /// where rows of an inner loop's are not.
  bool keepsTripCount() const {
    return !draws.empty() && draws.back().trips && draws.back().shape.empty();
  }
  /// Its draws are the rows of its body's draws (a loop traced under a
  /// tape), then, if its condition reads a variable its body updates, its
  /// trip count: where the map has them (a backward), iteration i's draws
  /// are row i and it runs that many times; else (the forward replayed)
  /// they are drawn, counted and kept again.
  void replay(trace::ValueMap &map) const override {
    bool counts = keepsTripCount();
    bool given = !draws.empty();
    for (const Drawn &d : draws)
      given = given && map.residuals.count(d.id);
    if (!map.effects && !(given && counts))
      requireConditionUnchanged();
    trace::SnapshotScope snapshot(map, *this);
    std::optional<Bounds> bounds;
    if (limit >= 0)
      bounds = Bounds{map.get(limit), map.get(delta)};
    std::vector<Tensor> rows;
    for (size_t k = 0; given && k < draws.size(); ++k)
      rows.push_back(map.residuals.at(draws[k].id));
    Tensor trips = given && counts ? rows.back() : Tensor();
    std::vector<Tensor> init = map.get(inits);
    size_t n = init.size();
    // A for_range's counter is its first variable; a while_loop given its
    // draws counts its iterations in a variable of its own, after the others.
    bool counter = given && !bounds;
    LoopOptions loopOptions = options;
    std::vector<LoopVar> loopKinds = kinds;
    if (counter) {
      init.push_back(zeros({}, DType::i64));
      loopKinds.resize(n - hidden, LoopVar::Tensor);
      loopKinds.push_back(LoopVar::Tensor);
      if (!loopOptions.shape_invariants.empty()) // one per tensor variable
        loopOptions.shape_invariants.push_back({});
    }
    Tensor start = init[0], step = bounds ? bounds->delta : Tensor();
    std::vector<Tensor> drawn;
    std::vector<Tensor> outs = whileLoop(
        [&](const std::vector<Tensor> &v) {
          if (trips.defined() && counter)
            return v[n] < trips;
          std::vector<Tensor> vars(v.begin(), v.begin() + n);
          return trace::replay(*cond, map, vars)[0];
        },
        [&](const std::vector<Tensor> &v) {
          std::vector<Tensor> vars(v.begin(), v.begin() + n);
          if (given)
            drawsAt(*body, draws, rows, counter ? v[n] : floor_div(v[0] - start, step),
                    map.residuals);
          std::vector<Tensor> next = trace::replay(*body, map, vars);
          if (counter)
            next.push_back(v[n] + int64_t{1});
          return next;
        },
        init, op, loopOptions, loopKinds, hidden, bounds, nullptr, &drawn,
        map.effects, map.effects && counts);
    for (size_t i = 0; i < results.size(); ++i)
      map.set(results[i], outs[i]);
    if (!given && !drawn.empty() && drawn.size() != draws.size())
      throw Error(ErrorKind::Internal,
                  std::string("fnc::") + op + ": the replayed loop kept " +
                      std::to_string(drawn.size()) +
                      " tensors of its draws, its trace " +
                      std::to_string(draws.size()) + " (please report this bug)");
    for (size_t k = 0; k < draws.size(); ++k) {
      if (given)
        map.set(draws[k].id, rows[k]);
      else if (k < drawn.size())
        map.set(draws[k].id, drawn[k]);
    }
  }
};

/// The variable a loop's condition reads that its body updates (a uid of
/// 0: none). A replay for a gradient runs the loop as many times as its
/// condition says, which would read the value the forward left, not the
/// one each iteration saw (the condition keeps no rows of its reads).
VariableRef conditionReadsUpdated(const Program &cond, const Program &body) {
  for (const auto *reads : {&cond.reads, &cond.others})
    for (const VariableRef &v : *reads)
      if (std::find(body.updates.begin(), body.updates.end(), v.uid) !=
          body.updates.end())
        return v;
  return {};
}

/// Whether a replay of a loop for a gradient must run it as many times as
/// the forward did rather than ask its condition: the condition reads a
/// variable the body updates, or draws random numbers (a replay would draw
/// others).
bool conditionUnrepeatable(const Program &cond, const Program &body) {
  return conditionReadsUpdated(cond, body).uid || !cond.draws.empty();
}

void LoopStep::requireConditionUnchanged() const {
  if (!cond->draws.empty())
    throw Error(ErrorKind::Unimplemented,
                std::string("no gradient through this staged fnc::") + op +
                    ": its condition draws random numbers, and a gradient "
                    "that replays the loop without the trip count it kept "
                    "would draw others (please report this bug)");
  VariableRef v = conditionReadsUpdated(*cond, *body);
  if (v.uid)
    throw Error(ErrorKind::Unimplemented,
                std::string("no gradient through this staged fnc::") + op +
                    ": its condition reads the variable `" + v.name +
                    "`, which its body updates, and a gradient that replays "
                    "the loop cannot tell how many times it ran; carry what "
                    "the condition needs in a loop variable, or put the "
                    "GradientTape inside the fnc::function around the loop");
}

/// A loop whose condition reads a variable its body updates, or draws,
/// keeps its trip count, as the last of its draws (`id`; a synthetic one where its trace
/// did not count, which the forward replayed for a gradient counts): a
/// replay for a gradient runs it that many times.
void keepTripCount(LoopStep &step, int64_t id) {
  if (conditionUnrepeatable(*step.cond, *step.body))
    step.draws.push_back({id, DType::i64, {}, 0, /*trips=*/true});
}

/// The draws of a loop step whose trace kept no rows of its body's draws:
/// rows (flat histories where they may change shape: flatDraw) under
/// synthetic ids, which the forward replayed for a gradient keeps.
void untracedRows(LoopStep &step) {
  bool keep = canKeepHistory(step.options);
  for (const Drawn &d : step.body->draws) {
    Shape rows = d.shape;
    rows.insert(rows.begin(), shapes::kDynamic);
    bool flat = flatDraw(keep, d.shape);
    for (int8_t part = flat ? 1 : 0; part <= (flat ? 3 : 0); ++part)
      step.draws.push_back({trace::syntheticId(), part > 1 ? DType::i64 : d.dtype,
                            part ? Shape{shapes::kDynamic} : rows, d.variable,
                            d.trips, part});
  }
}

/// The nested steps of a program read back from IR (fnc::load): a cond as
/// traced, a loop as a while_loop (a for_range's counter is one of its
/// variables there).
class ControlSteps final : public trace::StepFactory {
public:
  std::shared_ptr<trace::NestedStep>
  cond(int64_t pred, std::shared_ptr<const Program> thenBranch,
       std::shared_ptr<const Program> elseBranch, std::vector<int64_t> results,
       std::vector<Drawn> draws) const override {
    auto step = std::make_shared<CondStep>();
    step->pred = pred;
    step->branches[0] = std::move(thenBranch);
    step->branches[1] = std::move(elseBranch);
    step->results = std::move(results);
    step->draws = std::move(draws);
    return step;
  }
  std::shared_ptr<trace::NestedStep>
  loop(std::vector<int64_t> inits, std::shared_ptr<const Program> condition,
       std::shared_ptr<const Program> body, std::vector<int64_t> results,
       const std::vector<uint8_t> &kinds,
       std::vector<std::vector<int64_t>> invariants, int64_t limit,
       int64_t delta) const override {
    auto step = std::make_shared<LoopStep>();
    bool range = limit >= 0 && delta >= 0;
    // A for_range's counter is its own (hidden) variable.
    step->op = range ? "for_range" : "while_loop";
    step->hidden = range ? 1 : 0;
    for (size_t k = step->hidden; k < kinds.size(); ++k)
      step->kinds.push_back(static_cast<LoopVar>(kinds[k]));
    if (range && !invariants.empty())
      invariants.erase(invariants.begin());
    step->options.shape_invariants = std::move(invariants);
    step->cond = std::move(condition);
    step->body = std::move(body);
    step->inits = std::move(inits);
    step->results = std::move(results);
    step->limit = range ? limit : -1;
    step->delta = range ? delta : -1;
    // As traced without a tape: a loop keeps its draws when replayed for a
    // gradient (synthetic ids name the rows).
    untracedRows(*step);
    keepTripCount(*step, trace::syntheticId());
    return step;
  }
};

/// whileImpl; `hidden` leading loop variables are the loop's own. `bounds`,
/// for a for_range, give the trip count before the loop runs, which sizes
/// the history a tape needs up front.
std::vector<Tensor> whileLoop(const LoopCondFn &cond, const LoopBodyFn &body,
                              const std::vector<Tensor> &init, const char *op,
                              const LoopOptions &options,
                              const std::vector<LoopVar> &kinds, size_t hidden,
                              const std::optional<Bounds> &bounds,
                              const DrawTypes *drawTypes,
                              std::vector<Tensor> *drawRowsOut,
                              bool keepDraws, bool countTrips) {
  for (size_t i = hidden; i < init.size(); ++i)
    if (!init[i].defined())
      throw Error(ErrorKind::InvalidArgument,
                  std::string("fnc::") + op + ": loop variable #" +
                      std::to_string(i - hidden) + " is a null fnc::Tensor");
  VarTypes types = loopTypes(init, options, kinds, op, hidden);
  bool invariants =
      !options.shape_invariants.empty() ||
      std::find(kinds.begin(), kinds.end(), LoopVar::GrowingArray) !=
          kinds.end();
  trace::Recorder *r = api::recording();
  if (!r) {
    std::vector<Tensor> vars = init;
    for (;;) {
      Tensor c = cond(vars);
      requireScalar(c, op, "the loop condition", true);
      if (!c.item<bool>())
        return vars;
      std::vector<Tensor> next = body(vars);
      checkLoopVars(types, next, op, hidden, invariants);
      vars = std::move(next);
    }
  }
  // Under a gradient tape the loop also carries its iteration count and,
  // when the trip count is known before it runs (for_range), the history of
  // its variables (one row per iteration, written in place), which the
  // backward loop walks in reverse. A while_loop's history is recorded by a
  // second loop over the counted iterations, after the first. None of this
  // bookkeeping is part of the recorded program.
  Program *outer = r->program;
  bool taped = tape::anyRecording();
  bool keep = canKeepHistory(options);
  bool history = taped && keep && bounds;
  size_t n = init.size();
  // The body's random draws, kept as rows too (once known: see below)
  // under a tape or where a gradient will want them (`keepDraws`: the
  // forward of a staged call under a tape).
  // (A draw that may change shape from one iteration to the next is kept
  // as a flat history, three tensors, as the variables of a loop whose
  // shapes change: flatDraw.)
  bool rowsOfDraws = taped || keepDraws;
  size_t nd = rowsOfDraws && drawTypes ? drawTypes->dtypes.size() : 0;
  std::vector<bool> flatDraws;
  for (size_t k = 0; k < nd; ++k)
    flatDraws.push_back(flatDraw(keep, drawTypes->shapes[k]));
  bool counted = taped || nd > 0 || countTrips;
  // The variables whose history is kept: all but TensorArrays.
  std::vector<size_t> kept;
  for (size_t k = 0; k < n; ++k)
    if (k < hidden || k - hidden >= kinds.size() ||
        kinds[k - hidden] == LoopVar::Tensor)
      kept.push_back(k);
  // A loop whose shapes may change keeps flat histories instead (three
  // buffers per variable: FlatHistory), which it fills as it runs.
  bool flat = taped && !keep;
  size_t historyWidth = history ? kept.size() : flat ? 3 * kept.size() : 0;
  std::vector<Tensor> carried = init;
  VarTypes carriedTypes = types;
  std::vector<int64_t> initIds;
  Tensor trips;
  {
    trace::ProgramScope bookkeeping(*r, nullptr);
    if (counted) {
      carried.push_back(zeros({}, DType::i64));
      carriedTypes.dtypes.push_back(DType::i64);
      carriedTypes.shapes.push_back({});
    }
    // Rows of `row` (its type's dims, `known` those allocated now).
    auto addRows = [&](const Tensor &like, const Shape &known,
                       const Shape &row, DType dtype) {
      carried.push_back(rowsFor(trips, like, known, dtype));
      Shape rows = row;
      rows.insert(rows.begin(), shapes::kDynamic);
      carriedTypes.dtypes.push_back(dtype);
      carriedTypes.shapes.push_back(rows);
    };
    // A while_loop's trip count is known only once it has run: its rows
    // of draws start with one and double when full.
    if (history || nd > 0)
      trips = bounds ? tripCount(init[0], *bounds) : fill({}, 1.0, DType::i64);
    if (history)
      for (size_t k : kept)
        addRows(init[k], types.shapes[k], types.shapes[k], types.dtypes[k]);
    for (size_t j = 0; flat && j < kept.size(); ++j) {
      FlatHistory empty = FlatHistory::empty(types.dtypes[kept[j]]);
      for (const Tensor *t : {&empty.elements, &empty.starts, &empty.shapes}) {
        carried.push_back(*t);
        carriedTypes.dtypes.push_back(t->dtype());
        carriedTypes.shapes.push_back({shapes::kDynamic});
      }
    }
    for (size_t k = 0; k < nd; ++k) {
      if (!flatDraws[k]) {
        addRows(init[0], drawTypes->shapes[k], drawTypes->shapes[k],
                drawTypes->dtypes[k]);
        continue;
      }
      FlatHistory empty = FlatHistory::empty(drawTypes->dtypes[k]);
      for (const Tensor *t : {&empty.elements, &empty.starts, &empty.shapes}) {
        carried.push_back(*t);
        carriedTypes.dtypes.push_back(t->dtype());
        carriedTypes.shapes.push_back({shapes::kDynamic});
      }
    }
    initIds = idsOf(*r, carried, op, "loop variable");
  }
  std::shared_ptr<Program> condProgram, bodyProgram;
  std::optional<tape::RegionScope> region(std::in_place);
  int64_t condBlock, bodyBlock, condId;
  std::vector<int64_t> bodyIds;
  {
    std::vector<Tensor> args;
    BlockScope scope(*r, carriedTypes, args, "loop_var");
    condBlock = scope.block;
    std::vector<Tensor> vars(args.begin(), args.begin() + n);
    condProgram = blockProgram(*r, vars);
    Tensor c;
    {
      trace::ProgramScope program(*r, condProgram.get());
      c = cond(vars);
    }
    requireScalar(c, op, "the loop condition", true);
    condId = r->valueOf(c, op);
    condProgram->yields = {condId};
  }
  std::vector<Tensor> like, userNext;
  {
    std::vector<Tensor> args;
    BlockScope scope(*r, carriedTypes, args, "loop_var");
    bodyBlock = scope.block;
    std::vector<Tensor> vars(args.begin(), args.begin() + n);
    bodyProgram = blockProgram(*r, vars);
    std::vector<Tensor> next;
    {
      trace::ProgramScope program(*r, bodyProgram.get());
      next = body(vars);
    }
    bodyProgram->keepUpdatedReads();
    checkLoopVars(types, next, op, hidden, invariants);
    bodyProgram->yields = idsOf(*r, next, op, "loop variable");
    userNext = next;
    if (nd > 0 && bodyProgram->draws.size() != nd)
      throw Error(ErrorKind::Internal,
                  std::string("fnc::") + op +
                      ": the replayed body drew " +
                      std::to_string(bodyProgram->draws.size()) +
                      " times, the traced one " + std::to_string(nd) +
                      " (please report this bug)");
    if (counted) {
      trace::ProgramScope bookkeeping(*r, nullptr);
      const Tensor &count = args[n];
      next.push_back(count + int64_t{1});
      if (history)
        for (size_t j = 0; j < kept.size(); ++j)
          next.push_back(
              api::setRow(args[n + 1 + j], count, vars[kept[j]]));
      for (size_t j = 0; flat && j < kept.size(); ++j) {
        size_t at = n + 1 + 3 * j;
        FlatHistory grown = FlatHistory{args[at], args[at + 1], args[at + 2]}
                                .append(count, vars[kept[j]]);
        next.insert(next.end(), {grown.elements, grown.starts, grown.shapes});
      }
      size_t at = n + 1 + historyWidth;
      for (size_t k = 0; k < nd; ++k) {
        Tensor drawn = trace::makeSymbolic(
            drawTypes->dtypes[k], drawTypes->shapes[k], r->token(),
            bodyProgram->draws[k].id, op);
        if (flatDraws[k]) {
          FlatHistory grown = FlatHistory{args[at], args[at + 1], args[at + 2]}
                                  .append(count, drawn);
          next.insert(next.end(),
                      {grown.elements, grown.starts, grown.shapes});
          at += 3;
          continue;
        }
        Tensor rows = args[at++];
        if (!bounds) {
          Tensor capacity = api::sizeAlong(rows, 0);
          rows = condImpl(
              count == capacity,
              [&] {
                return std::vector<Tensor>{concat({rows, zeros_like(rows)}, 0)};
              },
              [&] { return std::vector<Tensor>{rows}; })[0];
        }
        next.push_back(api::setRow(rows, count, drawn));
      }
    }
    bodyIds = idsOf(*r, next, op, "loop variable");
    like = args; // symbolic results take the carried types
  }
  // A loop under a tape keeps its body's draws, whose number and
  // types it knows now: it is staged again with rows for them, its
  // callables run a second time while tracing (the values they capture are
  // the tapes' own tensors, which a replay of the record would not give),
  // and this attempt's blocks are dropped.
  if (rowsOfDraws && !bodyProgram->draws.empty() && !drawTypes) {
    region.reset(); // the tapes forget this attempt
    DrawTypes found;
    for (const Drawn &d : bodyProgram->draws) {
      found.dtypes.push_back(d.dtype);
      found.shapes.push_back(d.shape);
    }
    return whileLoop(cond, body, init, op, options, kinds, hidden, bounds,
                     &found, drawRowsOut, keepDraws);
  }
  std::vector<uint8_t> carriedKinds(carried.size(), 0);
  for (size_t k = hidden; k < n && k - hidden < kinds.size(); ++k)
    carriedKinds[k] = static_cast<uint8_t>(kinds[k - hidden]);
  auto step = std::make_shared<LoopStep>();
  Snapshots snapshots =
      recordSnapshots(*r, *step, {condProgram.get(), bodyProgram.get()},
                      /*alternatives=*/false);
  std::vector<int64_t> results;
  std::string error;
  if (!r->buildWhile(initIds, condBlock, condId, bodyBlock, bodyIds,
                     carriedKinds, results, error))
    throw Error(ErrorKind::Internal, std::string("fnc::") + op + ": " + error);
  std::vector<Tensor> all = symbolicResults(*r, results, like, op);
  std::vector<Tensor> outs(all.begin(), all.begin() + n);
  size_t drawsAt = n + (counted ? 1 : 0) + historyWidth;
  std::vector<Tensor> drawRows(all.begin() + std::min(drawsAt, all.size()),
                               all.end());

  step->op = op;
  step->options = options;
  step->kinds = kinds;
  step->hidden = hidden;
  step->cond = condProgram;
  step->body = bodyProgram;
  step->inits.assign(initIds.begin(), initIds.begin() + n);
  step->results.assign(results.begin(), results.begin() + n);
  if (bounds) {
    trace::ProgramScope bookkeeping(*r, nullptr);
    step->limit = r->valueOf(bounds->limit, op);
    step->delta = r->valueOf(bounds->delta, op);
  }
  // The rows of the draws it kept (flat histories of them, where its
  // shapes change) are draws of the program around it; traced without a
  // tape, it keeps them when replayed for a gradient, under synthetic ids.
  for (size_t k = 0, e = 0; k < nd; ++k) {
    const Drawn &d = bodyProgram->draws[k];
    for (int8_t part = flatDraws[k] ? 1 : 0; part <= (flatDraws[k] ? 3 : 0);
         ++part, ++e)
      step->draws.push_back({results[drawsAt + e], drawRows[e].dtype(),
                             drawRows[e].shape(), d.variable, d.trips, part});
  }
  if (nd == 0)
    untracedRows(*step);
  // (Its own gradient walks the forward's iterations: only replays of it
  // need its trip count.)
  keepTripCount(*step, counted ? results[n] : trace::syntheticId());
  addStep(outer, step, {condProgram.get(), bodyProgram.get()});

  auto loop = std::make_shared<tape::Region>();
  loop->op = op;
  loop->variables = bodyProgram->reads;
  trace::ProgramFacts bodyFacts = *bodyProgram;
  bodyFacts.random = step->facts.random;
  bodyFacts.staleReads = step->facts.staleReads;
  bodyFacts.replayMiscounts = step->facts.replayMiscounts;
  loop->whyNot = whyNoReplay(bodyFacts, "its body");
  if (loop->whyNot.empty() && taped) {
    std::vector<Tensor> rows;
    std::optional<VarTypes> changing;
    if (history || flat) {
      rows.assign(all.begin() + n + 1, all.begin() + drawsAt);
      if (flat)
        changing = types;
    } else {
      trace::ProgramScope bookkeeping(*r, nullptr);
      rows = recordHistory(bodyProgram, init, kept, types, kinds, hidden,
                           all[n], drawRows, step->draws, snapshots);
    }
    loop->backward =
        loopBackward(bodyProgram, init, outs, kept, all[n], rows, drawRows,
                     bodyProgram->reads, step->draws, std::move(changing),
                     snapshots);
  }
  // The body may return a value from outside unchanged: it is an input of
  // the region too.
  std::vector<Tensor> inputs = init;
  inputs.insert(inputs.end(), userNext.begin(), userNext.end());
  region->end(loop, inputs, outs);
  if (drawRowsOut) {
    *drawRowsOut = std::move(drawRows);
    if (counted && step->keepsTripCount())
      drawRowsOut->push_back(all[n]);
  }
  return outs;
}

} // namespace

std::vector<Tensor> whileImpl(const LoopCondFn &cond, const LoopBodyFn &body,
                              const std::vector<Tensor> &init, const char *op,
                              const LoopOptions &options,
                              const std::vector<LoopVar> &kinds) {
  return whileLoop(cond, body, init, op, options, kinds, 0);
}

std::vector<Tensor> forImpl(
    const Tensor &start, const Tensor &limit, const Tensor &delta,
    const std::function<std::vector<Tensor>(const Tensor &,
                                            const std::vector<Tensor> &)> &body,
    const std::vector<Tensor> &init, const LoopOptions &options,
    const std::vector<LoopVar> &kinds) {
  requireScalar(start, "for_range", "start", false);
  requireScalar(limit, "for_range", "limit", false);
  requireScalar(delta, "for_range", "delta", false);
  DType dtype = start.dtype();
  Tensor lim = limit.dtype() == dtype ? limit : cast(limit, dtype);
  Tensor del = delta.dtype() == dtype ? delta : cast(delta, dtype);
  Tensor zero = zeros({}, dtype);
  std::optional<bool> up;
  if (!trace::isSymbolic(del)) {
    double d = api::arrayOf(del).getDouble(0);
    if (d == 0)
      throw Error(ErrorKind::InvalidArgument,
                  "fnc::for_range: delta must not be 0");
    up = d > 0;
  }
  std::vector<Tensor> vars = {start};
  vars.insert(vars.end(), init.begin(), init.end());
  std::vector<Tensor> out = whileLoop(
      [&](const std::vector<Tensor> &v) {
        const Tensor &i = v[0];
        if (up)
          return *up ? less(i, lim) : greater(i, lim);
        return logical_or(logical_and(greater(del, zero), less(i, lim)),
                          logical_and(less(del, zero), greater(i, lim)));
      },
      [&](const std::vector<Tensor> &v) {
        std::vector<Tensor> rest(v.begin() + 1, v.end());
        std::vector<Tensor> next = body(v[0], rest);
        next.insert(next.begin(), add(v[0], del));
        return next;
      },
      vars, "for_range", options, kinds, 1, Bounds{lim, del});
  return std::vector<Tensor>(out.begin() + 1, out.end());
}
bool tracingLoop() { return api::recording() != nullptr; }

void probeLoopBody(const std::function<void()> &body) {
  trace::Recorder &r = *api::recording();
  // Nothing of the probe reaches the program, the tapes or the effects
  // count; its block is never put in an op, and the trace drops it
  // (TraceIR::finish).
  tape::Suspended quiet;
  trace::ProgramScope none(r, nullptr);
  int64_t effects = r.effectsRecorded;
  {
    std::vector<Tensor> noArgs;
    BlockScope scope(r, VarTypes{}, noArgs, "");
    body();
  }
  r.effectsRecorded = effects;
}

bool eagerLoopCondition(const Tensor &c, const char *op) {
  requireScalar(c, op, "the loop condition", true);
  return c.item<bool>();
}

bool forRangeRuns(const Tensor &start, const Tensor &limit,
                  const Tensor &delta) {
  requireScalar(start, "for_range", "start", false);
  requireScalar(limit, "for_range", "limit", false);
  requireScalar(delta, "for_range", "delta", false);
  double s = api::arrayOf(start).getDouble(0);
  double l = api::arrayOf(limit).getDouble(0);
  double d = api::arrayOf(delta).getDouble(0);
  if (d == 0)
    throw Error(ErrorKind::InvalidArgument,
                "fnc::for_range: delta must not be 0");
  return d > 0 ? s < l : s > l;
}

Tensor forRangeNext(const Tensor &start, const Tensor &delta) {
  return add(start, delta.dtype() == start.dtype()
                        ? delta
                        : cast(delta, start.dtype()));
}

namespace {
/// The branches from `k` on, as nested conds.
std::vector<Tensor>
switchFrom(const Tensor &index,
           const std::shared_ptr<const std::vector<BranchFn>> &branches,
           size_t k) {
  if (k + 1 == branches->size())
    return (*branches)[k]();
  Tensor isK = equal(index, fill({}, static_cast<double>(k), index.dtype()));
  return condImpl(isK, (*branches)[k], [index, branches, k] {
    return switchFrom(index, branches, k + 1);
  });
}
} // namespace

std::vector<Tensor> switchImpl(const Tensor &index,
                               const std::vector<BranchFn> &branches) {
  requireScalar(index, "switch_case", "the index", false);
  if (!isInteger(index.dtype()))
    throw Error(ErrorKind::InvalidArgument,
                "fnc::switch_case: the index must be an int32 or int64 "
                "scalar, got " +
                    typeText(index));
  return switchFrom(index, std::make_shared<std::vector<BranchFn>>(branches),
                    0);
}

} // namespace detail

const trace::StepFactory &trace::stagedControlSteps() {
  static const detail::ControlSteps steps;
  return steps;
}

} // namespace fnc
