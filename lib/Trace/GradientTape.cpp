//===- GradientTape.cpp - Reverse-mode automatic differentiation ----------===//
//
// A tape is a tape::Observer (fnc/API/Tape.h): the dispatch points of the
// differentiable ops report `output = op(inputs)`, and the tape keeps the
// ops that touch a value it watches, in order, watching their outputs in
// turn. Values are told apart by the identity of their TensorImpl, which
// every op result has fresh. gradient() walks the kept ops backwards
// (later ops first: a value's users are always recorded after it), running
// each op's rule (Gradients.cpp) with the tape paused, so that only outer
// tapes see the backward ops: that is how nested tapes give higher
// derivatives.
//
//===----------------------------------------------------------------------===//

#include "fnc/GradientTape.h"

#include "Gradients.h"

#include "fnc/API/OpSupport.h"
#include "fnc/API/Tape.h"
#include "fnc/Ops.h"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

namespace fnc {

namespace detail {

struct TapeState : tape::Observer {
  /// An op, or a staged region (then `op` is unused).
  struct Entry {
    trace::OpAttrs op;
    std::vector<Tensor> inputs;
    std::vector<Tensor> outputs;
    std::shared_ptr<const tape::Region> region;
    /// A region's: which of region->variables this tape watches.
    std::vector<bool> variables;
  };

  bool persistent = false;
  bool watchAccessedVariables = true;
  bool used = false;
  bool paused = false;
  std::vector<Entry> entries;
  /// The watched values (TensorImpl identities), kept alive by `values`.
  std::unordered_set<const void *> watched;
  std::vector<Tensor> values;
  /// The values read from each variable while recording.
  std::unordered_map<uint64_t, std::vector<Tensor>> reads;
  /// Variables watched explicitly.
  std::unordered_set<uint64_t> watchedVariables;
  /// Where the entries of each region being staged start, innermost last,
  /// and the values read from variables inside it (local to it).
  std::vector<size_t> regionStarts;
  std::vector<std::vector<const void *>> regionReads;

  static const void *key(const Tensor &t) { return &TensorAccess::impl(t); }

  void watchValue(const Tensor &t) {
    if (watched.insert(key(t)).second)
      values.push_back(t);
  }

  void noteOp(const trace::OpAttrs &op,
              const std::vector<const Tensor *> &inputs,
              const Tensor &output) override {
    if (paused)
      return;
    bool touches =
        std::any_of(inputs.begin(), inputs.end(), [&](const Tensor *t) {
          return watched.count(key(*t)) != 0;
        });
    if (!touches)
      return;
    Entry e{op, {}, {output}, nullptr, {}};
    for (const Tensor *t : inputs)
      e.inputs.push_back(*t);
    entries.push_back(std::move(e));
    watchValue(output);
  }

  void beginRegion() override {
    regionStarts.push_back(entries.size());
    regionReads.emplace_back();
  }

  /// Ends the innermost region: its reads are local to the one around it.
  std::vector<const void *> popRegion() {
    regionStarts.pop_back();
    std::vector<const void *> reads = std::move(regionReads.back());
    regionReads.pop_back();
    if (!regionReads.empty())
      regionReads.back().insert(regionReads.back().end(), reads.begin(),
                                reads.end());
    return reads;
  }

  bool recording() const override { return !paused; }

  bool watches(const Tensor &t) const override {
    return watched.count(key(t)) != 0;
  }

  void abandonRegion() override {
    if (regionStarts.empty())
      return;
    entries.resize(regionStarts.back());
    popRegion();
  }

  /// Replaces the entries of the region by one entry whose inputs are the
  /// watched values from outside the region that its ops used.
  void endRegion(const std::shared_ptr<const tape::Region> &region,
                 const std::vector<Tensor> &inputs,
                 const std::vector<Tensor> &results) override {
    if (regionStarts.empty())
      return;
    size_t start = regionStarts.back();
    std::vector<const void *> reads = popRegion();
    if (paused)
      return;
    std::unordered_set<const void *> local(reads.begin(), reads.end()), seen;
    std::vector<Tensor> captured;
    auto capture = [&](const Tensor &t) {
      if (watched.count(key(t)) && !local.count(key(t)) &&
          seen.insert(key(t)).second)
        captured.push_back(t);
    };
    for (size_t i = start; i < entries.size(); ++i)
      for (const Tensor &t : entries[i].outputs)
        local.insert(key(t));
    for (const Tensor &t : inputs)
      capture(t);
    for (size_t i = start; i < entries.size(); ++i)
      for (const Tensor &t : entries[i].inputs)
        capture(t);
    entries.resize(start);
    for (const void *k : local)
      watched.erase(k);
    std::vector<bool> variables;
    bool anyVariable = false;
    for (const trace::VariableRef &v : region->variables) {
      variables.push_back(watchesVariable(v.uid));
      anyVariable |= variables.back();
    }
    if (captured.empty() && !anyVariable)
      return;
    entries.push_back(
        Entry{{}, std::move(captured), results, region, std::move(variables)});
    for (const Tensor &t : results)
      if (t.defined() && isFloat(t.dtype()))
        watchValue(t);
  }

  bool watchesVariable(uint64_t variable) const {
    return watchAccessedVariables || watchedVariables.count(variable);
  }

  void noteVariableRead(uint64_t variable, const Tensor &value) override {
    if (paused || !isFloat(value.dtype()))
      return;
    if (!watchesVariable(variable))
      return;
    if (!regionReads.empty()) {
      // A staged region's own: the region's entry takes the variable.
      regionReads.back().push_back(key(value));
      watchValue(value);
      return;
    }
    reads[variable].push_back(value);
    watchValue(value);
  }
};

} // namespace detail

namespace {

using detail::TapeState;

/// Pauses a tape for its lifetime.
struct Paused {
  explicit Paused(TapeState &s) : state(s), was(s.paused) { s.paused = true; }
  ~Paused() { state.paused = was; }
  TapeState &state;
  bool was;
};

std::string describe(const Tensor &t) {
  return t.defined() ? shapes::describe(t.dtype(), t.shape()) : "a null tensor";
}

[[noreturn]] void fail(ErrorKind kind, const std::string &message) {
  throw Error(kind, "fnc::GradientTape::gradient: " + message);
}

/// Adds `g` to the gradient accumulated for `t`.
void accumulate(std::unordered_map<const void *, Tensor> &grads,
                const Tensor &t, const Tensor &g) {
  auto [it, inserted] = grads.emplace(TapeState::key(t), g);
  if (!inserted)
    it->second = it->second + g;
}

} // namespace

GradientTape::GradientTape(bool persistent, bool watchAccessedVariables)
    : state_(std::make_unique<TapeState>()) {
  state_->persistent = persistent;
  state_->watchAccessedVariables = watchAccessedVariables;
  tape::active.push_back(state_.get());
  tape::activeChanged();
}

GradientTape::~GradientTape() {
  auto &active = tape::active;
  auto it = std::find(active.begin(), active.end(), state_.get());
  if (it != active.end())
    active.erase(it);
  tape::activeChanged();
}

void GradientTape::watch(const Tensor &x) {
  if (!x.defined())
    throw Error(ErrorKind::InvalidArgument,
                "fnc::GradientTape::watch: the tensor is a null fnc::Tensor");
  if (isFloat(x.dtype()))
    state_->watchValue(x);
}

void GradientTape::watch(const std::vector<Tensor> &xs) {
  for (const Tensor &x : xs)
    watch(x);
}

void GradientTape::watch(const Variable &v) {
  state_->watchedVariables.insert(v.id());
}

Tensor GradientTape::gradient(const Tensor &target, const Tensor &source,
                              const GradientOptions &options) {
  return gradients(target, {sourceOf(source)}, options)[0];
}

Tensor GradientTape::gradient(const Tensor &target, const Variable &source,
                              const GradientOptions &options) {
  return gradients(target, {sourceOf(source)}, options)[0];
}

std::vector<Tensor> GradientTape::gradient(const Tensor &target,
                                           const std::vector<Tensor> &sources,
                                           const GradientOptions &options) {
  return gradients(target, sourcesOf(sources), options);
}

std::vector<Tensor> GradientTape::gradient(const Tensor &target,
                                           const std::vector<Variable> &sources,
                                           const GradientOptions &options) {
  return gradients(target, sourcesOf(sources), options);
}

std::vector<Tensor> GradientTape::gradients(const Tensor &target,
                                            const std::vector<Source> &sources,
                                            const GradientOptions &options) {
  TapeState &s = *state_;
  if (s.used && !s.persistent)
    fail(ErrorKind::FailedPrecondition,
         "a non-persistent tape computes gradients only once; create it "
         "with fnc::GradientTape(/*persistent=*/true) to call gradient() "
         "several times");
  if (!target.defined() || !isFloat(target.dtype()))
    fail(ErrorKind::InvalidArgument,
         "the target is " + describe(target) +
             "; only float values are differentiable (cast integers with "
             "fnc::cast(x, fnc::DType::f32) before the ops to differentiate)");
  for (size_t i = 0; i < sources.size(); ++i) {
    const Source &src = sources[i];
    if (!src.tensor && !src.variable)
      continue; // a float variable by id (TapeAccess::vjp)
    DType dtype =
        src.tensor ? (src.tensor->defined() ? src.tensor->dtype() : DType::i1)
                   : src.variable->dtype();
    if (src.tensor ? !src.tensor->defined() || !isFloat(dtype)
                   : !isFloat(dtype))
      fail(ErrorKind::InvalidArgument,
           "source #" + std::to_string(i) + " (" +
               (src.tensor
                    ? describe(*src.tensor)
                    : "the variable '" + src.variable->name() + "' of " +
                          shapes::describe(dtype, src.variable->shape())) +
               ") is not differentiable: only float values carry "
               "gradients; cast it with fnc::cast(x, fnc::DType::f32) "
               "before the ops to differentiate");
  }
  Tensor seed = options.output_gradients;
  if (seed.defined()) {
    if (seed.dtype() != target.dtype() || seed.shape() != target.shape())
      fail(ErrorKind::InvalidArgument,
           "output_gradients is " + describe(seed) + " but the target is " +
               describe(target) +
               "; give one weight per element of the target");
  }
  s.used = true;
  if (!seed.defined()) {
    Paused paused(s);
    seed = ones_like(target);
  }
  return propagate({{target, seed}}, sources, options);
}

std::vector<Tensor>
GradientTape::propagate(const std::vector<std::pair<Tensor, Tensor>> &seeds,
                        const std::vector<Source> &sources,
                        const GradientOptions &options) {
  TapeState &s = *state_;
  Paused paused(s);
  std::unordered_map<const void *, Tensor> grads;
  // Gradients of variables read inside staged regions, by uid.
  std::unordered_map<uint64_t, Tensor> variableGrads;
  for (const auto &[target, seed] : seeds)
    if (target.defined() && seed.defined() && isFloat(target.dtype()))
      accumulate(grads, target, seed);
  for (auto e = s.entries.rbegin(); e != s.entries.rend(); ++e) {
    std::vector<Tensor> outputGrads;
    bool any = false;
    for (const Tensor &out : e->outputs) {
      auto it = out.defined() ? grads.find(TapeState::key(out)) : grads.end();
      outputGrads.push_back(it == grads.end() ? Tensor() : it->second);
      any |= it != grads.end();
    }
    if (!any)
      continue;
    std::vector<Tensor> inputGrads;
    if (!e->region) {
      inputGrads =
          grad::gradientsOf(e->op, e->inputs, e->outputs[0], outputGrads[0]);
    } else {
      if (!e->region->backward)
        fail(ErrorKind::Unimplemented,
             std::string("no gradient through this staged fnc::") +
                 e->region->op + ": " + e->region->whyNot +
                 "; compute the loop eagerly (outside fnc::function, or "
                 "with fnc::run_functions_eagerly(true)) or unroll it with "
                 "a C++ loop while tracing");
      // A result no gradient reached stays null: as eagerly, the region's
      // backward does not start from it (a zero through an op whose
      // derivative is inf is NaN).
      inputGrads = e->region->backward(e->inputs, outputGrads);
      const auto &vars = e->region->variables;
      for (size_t j = 0; j < vars.size(); ++j) {
        size_t at = e->inputs.size() + j;
        if (!e->variables[j] || at >= inputGrads.size() ||
            !inputGrads[at].defined())
          continue;
        auto [it, inserted] =
            variableGrads.emplace(vars[j].uid, inputGrads[at]);
        if (!inserted)
          it->second = it->second + inputGrads[at];
      }
    }
    // A gradient takes back the dims its value has while tracing: from a
    // loop's backward, whose values may change shape, it comes with dims
    // unknown, and the rules of the ops before the loop read them (a
    // conv2d's padding computed from an unknown dim was negative).
    for (size_t i = 0; i < e->inputs.size() && i < inputGrads.size(); ++i)
      if (inputGrads[i].defined() && isFloat(e->inputs[i].dtype()))
        accumulate(grads, e->inputs[i],
                   grad::conformTo(inputGrads[i], e->inputs[i].shape()));
  }

  std::vector<Tensor> result;
  for (const Source &src : sources) {
    Tensor g;
    if (src.tensor) {
      // Only a watched tensor (or one computed from one) has a gradient, as
      // in TF: the others are constants to the tape.
      auto it = grads.find(TapeState::key(*src.tensor));
      if (it != grads.end() && s.watched.count(TapeState::key(*src.tensor)))
        g = it->second;
    } else {
      uint64_t uid = src.variable ? src.variable->id() : src.variableId;
      auto inRegions = variableGrads.find(uid);
      if (inRegions != variableGrads.end())
        g = inRegions->second;
      auto reads = s.reads.find(uid);
      if (reads != s.reads.end())
        for (const Tensor &value : reads->second) {
          auto it = grads.find(TapeState::key(value));
          if (it != grads.end())
            g = g.defined() ? g + it->second : it->second;
        }
    }
    if (!g.defined() && (src.tensor || src.variable) &&
        options.unconnected_gradients == UnconnectedGradients::Zero)
      g = src.tensor ? zeros_like(*src.tensor)
                     : zeros(src.variable->shape(), src.variable->dtype());
    result.push_back(std::move(g));
  }
  return result;
}

namespace detail {

struct TapeAccess {
  static std::vector<Tensor> vjp(const std::function<std::vector<Tensor>()> &f,
                                 const std::vector<Tensor> &watch,
                                 const std::vector<uint64_t> &variables,
                                 const std::vector<Tensor> &outputGrads) {
    GradientTape tape;
    for (const Tensor &t : watch)
      tape.watch(t);
    std::vector<Tensor> outs = f();
    // Each output seeded with its gradient: no product of the two is
    // formed, so the ops that only computed the outputs are dead code.
    std::vector<std::pair<Tensor, Tensor>> seeds;
    for (size_t k = 0; k < outs.size() && k < outputGrads.size(); ++k)
      if (outputGrads[k].defined() && outs[k].defined() &&
          isFloat(outs[k].dtype()))
        seeds.emplace_back(outs[k], outputGrads[k]);
    if (seeds.empty())
      return std::vector<Tensor>(watch.size() + variables.size());
    std::vector<GradientTape::Source> sources;
    for (const Tensor &t : watch)
      sources.push_back(GradientTape::sourceOf(t));
    for (uint64_t id : variables)
      sources.push_back({nullptr, nullptr, id});
    tape.state_->used = true;
    return tape.propagate(seeds, sources, {});
  }
};

void badArgnum(const char *what, int argnum, size_t arity, bool inRange) {
  throw Error(ErrorKind::InvalidArgument,
              std::string(what) + ": argnum " + std::to_string(argnum) +
                  (inRange ? " is not a fnc::Tensor parameter; "
                             "differentiate with respect to tensors only"
                           : " is out of range: the function has " +
                                 std::to_string(arity) + " parameters"));
}

void nonScalarValue(const char *what, const Tensor &value) {
  throw Error(ErrorKind::InvalidArgument,
              std::string(what) +
                  ": the function must return a scalar "
                  "(rank 0) to be differentiated, got " +
                  describe(value) +
                  "; reduce it first (e.g. fnc::reduce_sum), or use a "
                  "fnc::GradientTape, which sums a non-scalar target");
}
} // namespace detail

std::vector<Tensor> grad::vjp(const std::function<std::vector<Tensor>()> &f,
                              const std::vector<Tensor> &watch,
                              const std::vector<uint64_t> &variables,
                              const std::vector<Tensor> &outputGrads) {
  return detail::TapeAccess::vjp(f, watch, variables, outputGrads);
}

} // namespace fnc
