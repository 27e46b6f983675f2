//===- Variable.cpp - fnc::Variable, eager and staged ---------------------===//
//
// The state behind fnc::Variable (a buffer of fixed dtype and shape, updated
// in place) and its ops: eager ones update the buffer, staged ones record
// fnc.var_read / fnc.var_assign* on the variable's hidden argument of the
// active trace (Recorder::variableOf), whose buffer each call passes.
// Built with exceptions (part of FncFunction); no MLIR here.
//
//===----------------------------------------------------------------------===//

#include "fnc/Variable.h"
#include "fnc/Trace/ConcreteAccess.h"

#include "fnc/API/OpSupport.h"
#include "fnc/API/Print.h"
#include "fnc/API/Tape.h"
#include "fnc/Ops.h"

#include <atomic>
#include <cstring>
#include <ostream>

namespace fnc {

namespace detail {
struct VariableState {
  uint64_t uid;
  std::string name;
  DType dtype;
  std::vector<int64_t> shape;
  /// An eager tensor whose buffer *is* the variable's (never handed out to
  /// users: tensors are immutable, this one changes).
  Tensor alias;
};
} // namespace detail

namespace {
std::atomic<uint64_t> nextUid{1};

/// The trace that the innermost fnc::InitScope of this thread suspended:
/// variables created in the scope belong to it.
thread_local trace::Recorder *initScopeTrace = nullptr;

/// The trace a variable created now belongs to.
trace::Recorder *owningTrace() {
  trace::Recorder *r = api::recording();
  return r ? r : initScopeTrace;
}

detail::VariableState &stateOf(const std::shared_ptr<detail::VariableState> &s,
                               const char *op) {
  if (!s)
    throw Error(ErrorKind::FailedPrecondition,
                std::string("fnc::Variable::") + op +
                    ": this is a null handle; create the variable with "
                    "fnc::Variable(initial_value)");
  return *s;
}

std::string describeVar(const detail::VariableState &s) {
  return "fnc::Variable" + (s.name.empty() ? "" : " `" + s.name + "`") +
         " (" + dtypeName(s.dtype) + ", shape " + shapes::toString(s.shape) +
         ")";
}

/// `value` converted to the variable's shape; checks the dtype.
Tensor conformed(const detail::VariableState &s, const Tensor &value,
                 const char *op) {
  if (!value.defined())
    throw Error(ErrorKind::InvalidArgument,
                std::string("fnc::Variable::") + op +
                    ": the value is a null fnc::Tensor");
  if (value.dtype() != s.dtype)
    throw Error(ErrorKind::InvalidArgument,
                std::string("fnc::Variable::") + op + ": " + describeVar(s) +
                    " cannot take a " + dtypeName(value.dtype()) +
                    " value; cast it with fnc::cast(value, " +
                    dtypeName(s.dtype) + ")");
  if (value.shape() == s.shape)
    return value;
  try {
    return broadcast_to(value, s.shape);
  } catch (const Error &e) {
    throw Error(ErrorKind::InvalidArgument,
                std::string("fnc::Variable::") + op + ": " + describeVar(s) +
                    " cannot take a value of shape " +
                    shapes::toString(value.shape()) +
                    "; a variable keeps its shape (" + e.message() + ")");
  }
}

Tensor copyOf(const Tensor &t) {
  const ref::Array &a = api::arrayOf(t);
  ref::Array copy = ref::Array::allocate(a.dtype, a.shape);
  if (a.numBytes())
    std::memcpy(copy.rawMutableData(), a.rawData(), a.numBytes());
  return api::wrap(std::move(copy));
}

} // namespace

Variable::Variable(const Tensor &initial, std::string name) {
  if (!initial.defined())
    throw Error(ErrorKind::InvalidArgument,
                "fnc::Variable: the initial value is a null fnc::Tensor");
  if (initial.dtype() == DType::str)
    throw Error(ErrorKind::InvalidArgument,
                "fnc::Variable" + (name.empty() ? "" : " `" + name + "`") +
                    ": variables hold numbers, not strings; keep string "
                    "tensors as values (docs/Strings.md)");
  trace::Recorder *r = owningTrace();
  if (trace::isSymbolic(initial))
    throw Error(ErrorKind::InvalidArgument,
                "fnc::Variable" + (name.empty() ? "" : " `" + name + "`") +
                    ": the initial value is a symbolic tensor of the trace "
                    "of `" +
                    (r ? r->token()->functionName : std::string("?")) +
                    "`; a variable created in a fnc::function is created "
                    "once, outside the trace: pass the initializer as a "
                    "callable, fnc::Variable([] { return fnc::zeros({3}); }, "
                    "\"v\"), or compute the initial value under a "
                    "fnc::InitScope (both run it eagerly)");
  if (r && !r->allowVariableCreation)
    throw Error(ErrorKind::FailedPrecondition,
                "fnc::function only supports singleton variables created on "
                "the first call. `" +
                    r->token()->functionName +
                    "` created a fnc::Variable while tracing a later call "
                    "(a new trace); create variables only on the first call "
                    "(e.g. `if (!v.defined()) v = fnc::Variable(...)`) or "
                    "outside the function and capture them by reference");
  auto s = std::make_shared<detail::VariableState>();
  s->uid = nextUid++;
  s->name = std::move(name);
  s->dtype = initial.dtype();
  s->shape = initial.shape();
  s->alias = copyOf(initial);
  if (r) {
    ++r->variablesCreated;
    r->ownedState.push_back(s);
  }
  state_ = std::move(s);
}

Variable::Variable(const std::function<Tensor()> &initializer,
                   std::string name) {
  if (!initializer)
    throw Error(ErrorKind::InvalidArgument,
                "fnc::Variable" + (name.empty() ? "" : " `" + name + "`") +
                    ": the initializer is an empty std::function");
  Tensor initial;
  {
    InitScope eager;
    initial = initializer();
  }
  *this = Variable(initial, std::move(name));
}

struct InitScope::Saved {
  trace::RecorderScope eager{nullptr};
  tape::Suspended tapes;
  trace::Recorder *outerInitScopeTrace = initScopeTrace;
};

InitScope::InitScope() {
  trace::Recorder *r = owningTrace();
  saved_ = std::make_unique<Saved>();
  initScopeTrace = r;
}

InitScope::~InitScope() { initScopeTrace = saved_->outerInitScopeTrace; }

DType Variable::dtype() const { return stateOf(state_, "dtype").dtype; }
const std::vector<int64_t> &Variable::shape() const {
  return stateOf(state_, "shape").shape;
}
const std::string &Variable::name() const {
  return stateOf(state_, "name").name;
}
uint64_t Variable::id() const { return stateOf(state_, "id").uid; }

const Tensor &detail::ConcreteAccess::buffer(const Variable &v) {
  return stateOf(v.state_, "buffer").alias;
}

Tensor Variable::read_value() const {
  detail::VariableState &s = stateOf(state_, "read_value");
  if (trace::Recorder *r = api::recording()) {
    trace::OpRecord rec{trace::ops::VarRead{},
                        {r->variableOf(s.uid, s.alias, s.name)},
                        s.dtype,
                        s.shape};
    std::string error;
    int64_t id = r->record(rec, error);
    if (id < 0)
      throw Error(ErrorKind::Unimplemented,
                  "fnc::Variable::read_value: " + error);
    Tensor value = trace::makeSymbolic(s.dtype, s.shape, r->token(), id,
                                       s.name.empty() ? "read_value" : s.name);
    if (tape::anyActive())
      tape::noteVariableRead(s.uid, value);
    return value;
  }
  Tensor value = copyOf(s.alias);
  if (tape::anyActive())
    tape::noteVariableRead(s.uid, value);
  return value;
}

namespace {
Tensor updateVar(const Variable &v,
                 const std::shared_ptr<detail::VariableState> &sp,
                 const Tensor &value, trace::ops::VarUpdate::Mode mode,
                 const char *op) {
  using Mode = trace::ops::VarUpdate::Mode;
  detail::VariableState &s = stateOf(sp, op);
  Tensor x = conformed(s, value, op);
  if (trace::Recorder *r = api::recording()) {
    trace::OpRecord rec; // no result: dtype and shape stay unset
    rec.op = trace::ops::VarUpdate{mode};
    rec.operands = {r->variableOf(s.uid, s.alias, s.name), r->valueOf(x, op)};
    std::string error;
    if (r->record(rec, error) < 0)
      throw Error(ErrorKind::Unimplemented,
                  std::string("fnc::Variable::") + op + ": " + error);
    return v.read_value();
  }
  Tensor next = mode == Mode::Assign ? x
                : mode == Mode::Add  ? add(s.alias, x)
                                     : sub(s.alias, x);
  const ref::Array &dst = api::arrayOf(s.alias);
  const ref::Array &src = api::arrayOf(next);
  if (dst.numBytes())
    std::memmove(const_cast<void *>(dst.rawData()), src.rawData(),
                 dst.numBytes());
  // The new value: the sum or difference is a buffer of its own already
  // (an assigned value is the caller's, so it is copied).
  return mode == Mode::Assign ? copyOf(s.alias) : next;
}
} // namespace

Tensor Variable::assign(const Tensor &value) const {
  return updateVar(*this, state_, value, trace::ops::VarUpdate::Mode::Assign,
                   "assign");
}
Tensor Variable::assign_add(const Tensor &value) const {
  return updateVar(*this, state_, value, trace::ops::VarUpdate::Mode::Add,
                   "assign_add");
}
Tensor Variable::assign_sub(const Tensor &value) const {
  return updateVar(*this, state_, value, trace::ops::VarUpdate::Mode::Sub,
                   "assign_sub");
}

Tensor Variable::scalar(double value) const {
  return fill({}, value, stateOf(state_, "assign").dtype);
}

std::string Variable::str() const {
  const detail::VariableState &s = stateOf(state_, "str");
  std::string shape = "(";
  for (size_t i = 0; i < s.shape.size(); ++i)
    shape += (i ? ", " : "") + std::to_string(s.shape[i]);
  shape += s.shape.size() == 1 ? ",)" : ")";
  std::string text = "fnc.Variable '" + s.name + "' shape=" + shape +
                     " dtype=" + dtypeName(s.dtype);
  // While tracing the value is symbolic (TensorFlow prints no numpy= in a
  // graph either); printing must not stage a read.
  if (api::recording())
    return text;
  std::string values = detail::formatValues(s.alias);
  if (values.find('\n') != std::string::npos)
    values = "\n" + values;
  return text + ", numpy=" + values;
}

std::ostream &operator<<(std::ostream &os, const Variable &v) {
  return os << v.str();
}

} // namespace fnc
