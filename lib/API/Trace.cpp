//===- Trace.cpp - Symbolic tensors and the active recorder ---------------===//
//
// The API side of tracing (fnc/Trace/Recorder.h): the thread-local active
// recorder, symbolic tensors, captures of eager tensors, the errors for
// reading or leaking a symbolic tensor, and api::record(), which every
// dispatch point calls while a trace is active.
//
//===----------------------------------------------------------------------===//

#include "fnc/API/OpSupport.h"
#include "fnc/API/Tape.h"
#include "fnc/Trace/Program.h"

#include <algorithm>
#include <atomic>

namespace fnc {

namespace {
// Initial-exec: read by every op and every staged call; the default model
// of a shared library costs a __tls_get_addr call per access.
__attribute__((tls_model("initial-exec"))) thread_local trace::Recorder
    *active = nullptr;

} // namespace

void TensorImpl::symbolicError(const char *what) const {
  const std::string &fn = token_->functionName;
  trace::Recorder *r = trace::activeRecorder();
  bool ownTrace = r && r->token() == token_ && token_->alive.load();
  std::string desc = "`" + name_ + "` (" + dtypeName(dtype()) + ", shape " +
                     shapes::toString(shape()) + ")";
  if (!ownTrace)
    throw Error(ErrorKind::FailedPrecondition,
                "fnc: tensor leaked from the trace of `" + fn +
                    "`; return it instead. The symbolic tensor " + desc +
                    " only exists while `" + fn + "` is traced and was used " +
                    (token_->alive.load()
                         ? "outside that trace (in another thread or "
                           "another trace)"
                         : "after the trace ended") +
                    "; make it a result of `" + fn +
                    "` rather than storing it in a variable that outlives "
                    "the call");
  throw Error(ErrorKind::FailedPrecondition,
              std::string("fnc::Tensor::") + (what ? what : "value") + ": " +
                  desc + " is a symbolic tensor while `" + fn +
                  "` is being traced: its value is not known until the "
                  "staged function runs. Return it from `" +
                  fn +
                  "` to read its value, choose between values with "
                  "fnc::select (data-dependent branches: fnc::cond), or "
                  "debug eagerly with fnc::run_functions_eagerly(true)");
}

void TensorImpl::arrayError(const char *what) const {
  if (token_)
    symbolicError(what);
  if (what)
    api::rejectStrings(what, {});
  throw Error(ErrorKind::InvalidArgument,
              "fnc: a string tensor was given where numbers are needed; "
              "strings support ==, !=, +, fnc::print, fnc::cond and the "
              "fnc::strings functions (fnc/Strings.h, docs/Strings.md)");
}

namespace tape {
Observer::~Observer() = default;
} // namespace tape

namespace trace {

Recorder::~Recorder() = default;

Recorder *activeRecorder() { return active; }

RecorderScope::RecorderScope(Recorder *recorder) : previous_(active) {
  active = recorder;
}
RecorderScope::~RecorderScope() { active = previous_; }

int64_t Recorder::valueOf(const Tensor &t, const char *op) {
  const TensorImpl &impl = detail::TensorAccess::impl(t);
  if (impl.symbolic()) {
    if (impl.token() == token_) {
      if (!visible(impl.id()))
        throw Error(ErrorKind::InvalidArgument,
                    std::string("fnc::") + op + ": the symbolic tensor `" +
                        impl.name() +
                        "` was computed inside a branch of fnc::cond or the "
                        "body of a staged loop and is used outside it; "
                        "return it from the branch or body instead");
      return impl.id();
    }
    impl.symbolicError(op);
  }
  for (const auto &[tensor, id] : captured_)
    if (&detail::TensorAccess::impl(tensor) == &impl)
      return id;
  const ref::Array &a = impl.anyArray(op);
  int64_t id;
  if (a.numBytes() <= kMaxConstantBytes || a.dtype == DType::str) {
    id = constant(a.dtype, a.shape, a.rawData());
  } else {
    id = hiddenArgument(a.dtype, a.shape);
    hiddenArgs.push_back(t);
    hiddenVariables.push_back(0);
    hiddenNames.emplace_back();
  }
  if (id < 0)
    throw Error(ErrorKind::Internal,
                std::string("fnc::") + op + ": could not capture an eager " +
                    dtypeName(a.dtype) + " tensor of shape " +
                    shapes::toString(a.shape) + " in the trace of `" +
                    token_->functionName + "`");
  captured_.emplace_back(t, id);
  return id;
}

std::vector<Tensor> Recorder::constantCaptures() const {
  std::vector<Tensor> constants;
  for (const auto &[tensor, id] : captured_) {
    const void *impl = &detail::TensorAccess::impl(tensor);
    bool hidden = std::any_of(
        hiddenArgs.begin(), hiddenArgs.end(), [&](const Tensor &h) {
          return &detail::TensorAccess::impl(h) == impl;
        });
    if (!hidden)
      constants.push_back(tensor);
  }
  return constants;
}

int64_t Recorder::record(const OpRecord &op, std::string &error) {
  int64_t id = recordOp(op, error);
  if (id < 0)
    return id;
  bool update = std::holds_alternative<ops::VarUpdate>(op.op);
  VariableRef variable;
  if (update || std::holds_alternative<ops::VarRead>(op.op))
    variable = variableRef(op.operands[0]);
  if (program) {
    bool noResult = update || std::holds_alternative<ops::Print>(op.op);
    program->add(op, noResult ? -1 : id, variable);
  }
  return id;
}

NestedStep::~NestedStep() = default;

int64_t syntheticId() {
  static std::atomic<int64_t> next{-2};
  return next.fetch_sub(1);
}

void Program::add(OpRecord op, int64_t result, const VariableRef &variable) {
  note(op, variable);
  if (std::holds_alternative<ops::RandomUniform>(op.op) ||
      std::holds_alternative<ops::RandomNormal>(op.op))
    draws.push_back({result, op.dtype, op.shape});
  steps.push_back({std::move(op), result, nullptr, variable.uid});
}

void Program::add(std::shared_ptr<NestedStep> step,
                  std::initializer_list<const Program *> inner) {
  for (const Program *p : inner)
    step->facts.absorb(*p);
  absorb(step->facts);
  draws.insert(draws.end(), step->draws.begin(), step->draws.end());
  steps.push_back({{}, -1, std::move(step)});
}

void ProgramFacts::note(const OpRecord &op, const VariableRef &ref) {
  if (std::holds_alternative<ops::VarUpdate>(op.op))
    updates.push_back(ref.uid);
  else if (std::holds_alternative<ops::VarRead>(op.op))
    noteRead(isFloat(op.dtype) ? reads : others, ref);
}

void ProgramFacts::noteRead(std::vector<VariableRef> &list,
                            const VariableRef &ref) {
  if (std::none_of(list.begin(), list.end(),
                   [&](const auto &r) { return r.uid == ref.uid; }))
    list.push_back(ref);
}

void ProgramFacts::absorb(const ProgramFacts &nested) {
  random |= nested.random;
  staleReads |= nested.staleReads;
  replayMiscounts |= nested.replayMiscounts;
  updates.insert(updates.end(), nested.updates.begin(), nested.updates.end());
  for (const VariableRef &ref : nested.reads)
    noteRead(reads, ref);
  for (const VariableRef &ref : nested.others)
    noteRead(others, ref);
}

std::vector<VariableRef> ProgramFacts::unchangedReads() const {
  std::vector<VariableRef> unchanged;
  for (const auto *list : {&reads, &others})
    for (const VariableRef &r : *list)
      if (std::find(updates.begin(), updates.end(), r.uid) == updates.end())
        unchanged.push_back(r);
  return unchanged;
}

void ProgramFacts::noteUnkept(const std::vector<Drawn> &draws) {
  for (const Drawn &d : draws)
    (d.trips ? replayMiscounts : d.variable ? staleReads : random) = true;
}

void Program::keepUpdatedReads() {
  for (const Step &step : steps) {
    if (step.nested || !std::holds_alternative<ops::VarRead>(step.op.op))
      continue;
    uint64_t uid = step.variable;
    if (std::find(updates.begin(), updates.end(), uid) != updates.end())
      draws.push_back({step.result, step.op.dtype, step.op.shape, uid});
  }
}

std::vector<VariableRef>
unchangedReads(std::initializer_list<const Program *> inner,
               bool alternatives) {
  std::vector<ProgramFacts> units(alternatives ? inner.size() : 1);
  size_t k = 0;
  for (const Program *p : inner)
    units[alternatives ? k++ : 0].absorb(*p);
  std::vector<VariableRef> all;
  for (const ProgramFacts &unit : units)
    for (const VariableRef &v : unit.unchangedReads())
      ProgramFacts::noteRead(all, v);
  return all;
}

int64_t Program::trailingRead(uint64_t uid) const {
  for (auto s = steps.rbegin(); s != steps.rend(); ++s) {
    if (s->nested || !std::holds_alternative<ops::VarRead>(s->op.op))
      return -1;
    if (s->variable == uid)
      return s->result;
  }
  return -1;
}

bool Program::defines(int64_t id) const {
  return std::any_of(steps.begin(), steps.end(), [&](const Step &step) {
    return !step.nested && step.result == id;
  });
}

VariableRef Recorder::variableRef(int64_t id) const {
  for (const auto &[ref, vid] : variables_)
    if (vid == id)
      return ref;
  return {};
}

int64_t Recorder::variableOf(uint64_t uid, const Tensor &alias,
                             const std::string &name) {
  for (const auto &[ref, id] : variables_)
    if (ref.uid == uid)
      return id;
  int64_t id = variableArgument(alias.dtype(), alias.shape());
  if (id < 0)
    throw Error(ErrorKind::Internal,
                "fnc::Variable: could not pass a variable to the trace of `" +
                    token_->functionName + "`");
  hiddenArgs.push_back(alias);
  hiddenVariables.push_back(uid);
  hiddenNames.push_back(name);
  variables_.push_back({VariableRef{uid, alias, name}, id});
  return id;
}

Tensor makeSymbolic(DType dtype, std::vector<int64_t> shape,
                    std::shared_ptr<TraceToken> token, int64_t id,
                    std::string name) {
  return detail::TensorAccess::wrap(detail::TensorAccess::make(
      dtype, std::move(shape), std::move(token), id, std::move(name)));
}

bool isSymbolic(const Tensor &t) {
  return t.defined() && detail::TensorAccess::impl(t).symbolic();
}

const void *concreteData(const Tensor &t) {
  return detail::TensorAccess::impl(t).array("data").rawData();
}

Tensor adoptBuffer(DType dtype, std::vector<int64_t> shape,
                   std::shared_ptr<void> buffer) {
  ref::Array a;
  a.dtype = dtype;
  a.shape = std::move(shape);
  a.buffer = std::move(buffer);
  return detail::TensorAccess::wrap(std::move(a));
}

} // namespace trace

namespace api {

Tensor record(trace::Recorder &recorder, trace::OpAttrs op, DType dtype,
              std::vector<int64_t> shape,
              const std::vector<const Tensor *> &operands, const char *name) {
  bool takesStrings =
      std::holds_alternative<trace::ops::Strings>(op) ||
      std::holds_alternative<trace::ops::Print>(op) ||
      (std::holds_alternative<trace::ops::Binary>(op) &&
       ref::isComparison(std::get<trace::ops::Binary>(op).kind));
  trace::OpRecord rec{std::move(op), {}, dtype, std::move(shape)};
  for (const Tensor *t : operands) {
    if (!takesStrings && t->dtype() == DType::str)
      rejectStrings(name, {t});
    rec.operands.push_back(recorder.valueOf(*t, name));
  }
  std::string error;
  int64_t id = recorder.record(rec, error);
  if (id < 0)
    throw Error(ErrorKind::Unimplemented,
                std::string("fnc::") + name + ": cannot be traced in `" +
                    recorder.token()->functionName + "`: " + error);
  return trace::makeSymbolic(dtype, std::move(rec.shape), recorder.token(), id,
                             name);
}

std::string symbolicStr(const Tensor &t) {
  const TensorImpl &impl = detail::TensorAccess::impl(t);
  return "fnc.Tensor(\"" + impl.name() +
         "\", shape=" + shapes::tupleString(impl.shape()) +
         ", dtype=" + dtypeName(impl.dtype()) + ")";
}

} // namespace api
} // namespace fnc
