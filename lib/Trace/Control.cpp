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

#include "fnc/API/OpSupport.h"
#include "fnc/API/Tape.h"
#include "fnc/GradientTape.h"
#include "fnc/Ops.h"

#include <algorithm>

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
    if (kindOf(i) == LoopVar::GrowingArray && !types.shapes[hidden + i].empty())
      types.shapes[hidden + i][0] = shapes::kDynamic;
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
/// sum over the pairs of reduce_sum(value * weight), in the first value's
/// dtype: the scalar whose gradient is the weighted gradient of several
/// results. Null for no pairs.
Tensor weightedSum(const std::vector<std::pair<Tensor, Tensor>> &pairs) {
  Tensor sum;
  for (const auto &[value, weight] : pairs) {
    Tensor term = reduce_sum(value * weight);
    if (sum.defined() && term.dtype() != sum.dtype())
      term = cast(term, sum.dtype());
    sum = sum.defined() ? sum + term : term;
  }
  return sum;
}

/// The gradient of a staged cond: a cond on the same predicate whose
/// branches run the forward branch again under a tape and return the
/// gradients of the values it captured.
std::shared_ptr<const tape::Region>
condRegion(const Tensor &pred, const BranchFn &thenFn, const BranchFn &elseFn) {
  auto region = std::make_shared<tape::Region>();
  region->op = "cond";
  region->backward = [pred, thenFn,
                      elseFn](const std::vector<Tensor> &captured,
                              const std::vector<Tensor> &resultGrads) {
    auto differentiate = [&](const BranchFn &fn) -> BranchFn {
      return [captured, resultGrads, fn]() {
        GradientTape tape;
        tape.watch(captured);
        std::vector<Tensor> outs = fn();
        std::vector<std::pair<Tensor, Tensor>> weighted;
        for (size_t i = 0; i < outs.size(); ++i)
          if (resultGrads[i].defined())
            weighted.emplace_back(outs[i], resultGrads[i]);
        Tensor target = weightedSum(weighted);
        std::vector<Tensor> grads;
        if (!target.defined()) {
          for (const Tensor &c : captured)
            grads.push_back(zeros_like(c));
          return grads;
        }
        GradientOptions options;
        options.unconnected_gradients = UnconnectedGradients::Zero;
        return tape.gradient(target, captured, options);
      };
    };
    return condImpl(pred, differentiate(thenFn), differentiate(elseFn));
  };
  return region;
}
} // namespace

std::vector<Tensor> condImpl(const Tensor &pred, const BranchFn &thenFn,
                             const BranchFn &elseFn) {
  requireScalar(pred, "cond", "the predicate", true);
  trace::Recorder *r = api::recording();
  if (!r || !trace::isSymbolic(pred)) {
    // Eager (or a predicate known while tracing): run one branch.
    return pred.item<bool>() ? thenFn() : elseFn();
  }
  int64_t predId = r->valueOf(pred, "cond");
  VarTypes none;
  std::vector<Tensor> thenOuts, elseOuts, noArgs;
  std::vector<int64_t> thenIds, elseIds;
  int64_t thenBlock, elseBlock;
  tape::RegionScope region;
  {
    BlockScope scope(*r, none, noArgs, "");
    thenBlock = scope.block;
    thenOuts = thenFn();
    thenIds = idsOf(*r, thenOuts, "cond", "result");
  }
  {
    BlockScope scope(*r, none, noArgs, "");
    elseBlock = scope.block;
    elseOuts = elseFn();
    elseIds = idsOf(*r, elseOuts, "cond", "result");
  }
  checkBranches(thenOuts, elseOuts);
  std::vector<int64_t> results;
  std::string error;
  if (!r->buildCond(predId, thenBlock, thenIds, elseBlock, elseIds, results,
                    error))
    throw Error(ErrorKind::Internal, "fnc::cond: " + error);
  std::vector<Tensor> outs;
  for (size_t i = 0; i < results.size(); ++i)
    outs.push_back(trace::makeSymbolic(
        thenOuts[i].dtype(),
        commonShape(thenOuts[i].shape(), elseOuts[i].shape()), r->token(),
        results[i], "cond"));
  region.end(condRegion(pred, thenFn, elseFn), {}, outs);
  return outs;
}

namespace {

/// Whether a staged loop can keep the history of its variables for its
/// gradient: plain tensors of shapes known while tracing.
bool canKeepHistory(const VarTypes &types, const std::vector<LoopVar> &kinds) {
  for (LoopVar k : kinds)
    if (k != LoopVar::Tensor)
      return false;
  for (const Shape &shape : types.shapes)
    for (int64_t d : shape)
      if (shapes::isDynamic(d))
        return false;
  return true;
}

/// Zeros of `trips` rows (an int64 scalar, at least 1 row) of `row`.
Tensor rowsFor(const Tensor &trips, const Shape &row, DType dtype) {
  Tensor count = reshape(maximum(trips, fill({}, 1.0, DType::i64)), {1});
  Tensor shape =
      concat({count, constant(row, {static_cast<int64_t>(row.size())})}, 0);
  Shape known = {shapes::kDynamic};
  known.insert(known.end(), row.begin(), row.end());
  api::noteShapeValues(shape, known);
  return zeros(shape, dtype);
}

/// Identity of a tensor value (as the tapes tell values apart).
const void *identity(const Tensor &t) { return &TensorAccess::impl(t); }

/// The history of a loop whose trip count is known only once it has run:
/// a second loop reruns the body `count` times from `init`, writing each
/// iteration's variables into rows preallocated for `count`. Dead (and
/// removed by the compiler) unless a gradient reaches the loop.
std::vector<Tensor> recordHistory(const LoopBodyFn &body,
                                  const std::vector<Tensor> &init,
                                  const VarTypes &types, const Tensor &count) {
  tape::Suspended quiet; // the tapes see the loop, not its bookkeeping
  size_t n = init.size();
  std::vector<Tensor> rows;
  for (size_t k = 0; k < n; ++k)
    rows.push_back(rowsFor(count, types.shapes[k], types.dtypes[k]));
  std::vector<Tensor> start = init;
  start.insert(start.end(), rows.begin(), rows.end());
  std::vector<Tensor> out =
      forImpl(zeros({}, DType::i64), count, fill({}, 1.0, DType::i64),
              [body, n](const Tensor &i, const std::vector<Tensor> &v) {
                std::vector<Tensor> vars(v.begin(), v.begin() + n);
                std::vector<Tensor> next = body(vars);
                for (size_t k = 0; k < n; ++k)
                  next.push_back(api::setRow(v[n + k], i, vars[k]));
                return next;
              },
              start, {}, {});
  return std::vector<Tensor>(out.begin() + n, out.end());
}

/// The gradient of a staged loop: a loop from the last iteration down to
/// the first that reruns the body on the variables it saw (`history`, one
/// row per iteration, `count` rows) under a tape of its own, carrying the
/// gradients of the variables and accumulating those of the values the
/// body captured.
std::function<std::vector<Tensor>(const std::vector<Tensor> &,
                                  const std::vector<Tensor> &)>
loopBackward(LoopBodyFn body, std::vector<Tensor> init, Tensor count,
             std::vector<Tensor> history) {
  return [body, init, count, history](const std::vector<Tensor> &captured,
                                      const std::vector<Tensor> &resultGrads) {
    size_t n = init.size(), c = captured.size();
    std::vector<size_t> floats;
    for (size_t k = 0; k < n; ++k)
      if (isFloat(init[k].dtype()))
        floats.push_back(k);
    std::vector<Tensor> carriedGrads;
    for (size_t k : floats)
      carriedGrads.push_back(resultGrads[k]);
    for (const Tensor &t : captured)
      carriedGrads.push_back(zeros_like(t));
    Tensor one = fill({}, 1.0, count.dtype());
    std::vector<Tensor> out = forImpl(
        count - one, -one, -one,
        [&](const Tensor &i, const std::vector<Tensor> &g) {
          std::vector<Tensor> vars;
          for (size_t k = 0; k < n; ++k)
            vars.push_back(gather(history[k], i, 0));
          GradientTape tape;
          std::vector<Tensor> sources;
          for (size_t k : floats) {
            tape.watch(vars[k]);
            sources.push_back(vars[k]);
          }
          tape.watch(captured);
          sources.insert(sources.end(), captured.begin(), captured.end());
          std::vector<Tensor> next = body(vars);
          std::vector<std::pair<Tensor, Tensor>> weighted;
          for (size_t f = 0; f < floats.size(); ++f)
            weighted.emplace_back(next[floats[f]], g[f]);
          Tensor target = weightedSum(weighted);
          if (!target.defined())
            return g; // no float variable: nothing flows back
          GradientOptions options;
          options.unconnected_gradients = UnconnectedGradients::Zero;
          std::vector<Tensor> grads = tape.gradient(target, sources, options);
          for (size_t j = 0; j < c; ++j)
            grads[floats.size() + j] =
                g[floats.size() + j] + grads[floats.size() + j];
          return grads;
        },
        carriedGrads, {}, {});
    // An initial value's gradient is the carried one after the first
    // iteration; a captured value's, what the iterations accumulated.
    std::vector<Tensor> grads;
    for (size_t j = 0; j < c; ++j) {
      Tensor g = out[floats.size() + j];
      for (size_t f = 0; f < floats.size(); ++f)
        if (identity(init[floats[f]]) == identity(captured[j]))
          g = g + out[f];
      grads.push_back(g);
    }
    return grads;
  };
}

/// whileImpl; `hidden` leading loop variables are the loop's own. `trips`,
/// when known before the loop runs (for_range), sizes the history a tape
/// needs up front.
std::vector<Tensor> whileLoop(const LoopCondFn &cond, const LoopBodyFn &body,
                              const std::vector<Tensor> &init, const char *op,
                              const LoopOptions &options,
                              const std::vector<LoopVar> &kinds, size_t hidden,
                              const Tensor &trips = Tensor()) {
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
  // second loop over the counted iterations, after the first.
  bool taped = tape::anyRecording() && canKeepHistory(types, kinds);
  bool history = taped && trips.defined();
  size_t n = init.size();
  std::vector<Tensor> carried = init;
  VarTypes carriedTypes = types;
  if (taped) {
    carried.push_back(zeros({}, DType::i64));
    carriedTypes.dtypes.push_back(DType::i64);
    carriedTypes.shapes.push_back({});
  }
  if (history) {
    for (size_t k = 0; k < n; ++k) {
      carried.push_back(rowsFor(trips, types.shapes[k], types.dtypes[k]));
      Shape rows = types.shapes[k];
      rows.insert(rows.begin(), shapes::kDynamic);
      carriedTypes.dtypes.push_back(types.dtypes[k]);
      carriedTypes.shapes.push_back(rows);
    }
  }
  int64_t effectsBefore = r->effectsRecorded;
  std::vector<int64_t> initIds = idsOf(*r, carried, op, "loop variable");
  tape::RegionScope region;
  int64_t condBlock, bodyBlock, condId;
  std::vector<int64_t> bodyIds;
  {
    std::vector<Tensor> args;
    BlockScope scope(*r, carriedTypes, args, "loop_var");
    condBlock = scope.block;
    Tensor c = cond(std::vector<Tensor>(args.begin(), args.begin() + n));
    requireScalar(c, op, "the loop condition", true);
    condId = r->valueOf(c, op);
  }
  std::vector<Tensor> like;
  {
    std::vector<Tensor> args;
    BlockScope scope(*r, carriedTypes, args, "loop_var");
    bodyBlock = scope.block;
    std::vector<Tensor> vars(args.begin(), args.begin() + n);
    std::vector<Tensor> next = body(vars);
    checkLoopVars(types, next, op, hidden, invariants);
    if (taped) {
      const Tensor &count = args[n];
      next.push_back(count + int64_t{1});
      if (history)
        for (size_t k = 0; k < n; ++k)
          next.push_back(api::setRow(args[n + 1 + k], count, vars[k]));
    }
    bodyIds = idsOf(*r, next, op, "loop variable");
    like = args; // symbolic results take the carried types
  }
  std::vector<int64_t> results;
  std::string error;
  if (!r->buildWhile(initIds, condBlock, condId, bodyBlock, bodyIds, results,
                     error))
    throw Error(ErrorKind::Internal, std::string("fnc::") + op + ": " + error);
  std::vector<Tensor> all = symbolicResults(*r, results, like, op);
  std::vector<Tensor> outs(all.begin(), all.begin() + n);
  auto loop = std::make_shared<tape::Region>();
  loop->op = op;
  // A body with side effects is not run again for its gradient.
  bool pure = r->effectsRecorded == effectsBefore;
  if (history && pure)
    loop->backward =
        loopBackward(body, init, all[n],
                     std::vector<Tensor>(all.begin() + n + 1, all.end()));
  else if (taped && pure)
    loop->backward = loopBackward(body, init, all[n],
                                  recordHistory(body, init, types, all[n]));
  else if (!pure)
    loop->whyNot = "its body has side effects (variable updates, print, "
                   "random numbers), which its gradient would run again";
  else
    loop->whyNot = "its loop variables are TensorArrays or have dims unknown "
                   "while tracing (shape invariants), so no history of them "
                   "is kept";
  region.end(loop, init, outs);
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
  // The trip count, known before the loop runs: ceil((limit - start) /
  // delta), at least 0. A gradient tape sizes the loop's history with it.
  Tensor trips;
  if (tape::anyRecording() && api::recording()) {
    Tensor s64 = cast(start, DType::i64), l64 = cast(lim, DType::i64),
           d64 = cast(del, DType::i64);
    trips = maximum(floor_div(l64 - s64 + d64 - sign(d64), d64),
                    zeros({}, DType::i64));
  }
  // The callables own what they use: a gradient tape may run them again.
  std::vector<Tensor> out = whileLoop(
      [lim, del, zero, up](const std::vector<Tensor> &v) {
        const Tensor &i = v[0];
        if (up)
          return *up ? less(i, lim) : greater(i, lim);
        return logical_or(logical_and(greater(del, zero), less(i, lim)),
                          logical_and(less(del, zero), greater(i, lim)));
      },
      [body, del](const std::vector<Tensor> &v) {
        std::vector<Tensor> rest(v.begin() + 1, v.end());
        std::vector<Tensor> next = body(v[0], rest);
        next.insert(next.begin(), add(v[0], del));
        return next;
      },
      vars, "for_range", options, kinds, 1, trips);
  return std::vector<Tensor>(out.begin() + 1, out.end());
}

namespace {
/// The branches from `k` on, as nested conds; the branches it builds own
/// what they use (a gradient tape may run them again).
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
} // namespace fnc
