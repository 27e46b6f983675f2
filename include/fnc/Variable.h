//===- Variable.h - fnc::Variable: mutable state of staged code -*- C++ -*-===//
//
// A fnc::Variable is a mutable tensor of a fixed dtype and shape, shared by
// every copy of the handle (tf.Variable):
//
//   fnc::Variable count(fnc::Tensor(0), "count");
//   auto step = fnc::function([&] { return count.assign_add(1); });
//   step();  // 1
//   step();  // 2 (the same trace: the variable's buffer is passed by
//            //    reference on every call and updated in place)
//   count.assign(100);  // eager update, seen by the next step() -> 101
//
// Eagerly, read_value() returns a snapshot and assign/assign_add/assign_sub
// update the shared buffer in place. While a fnc::function traces, they are
// staged (fnc.var_read / fnc.var_assign*): the variable becomes a hidden
// `!fnc.variable<tensor<...>>` argument of the trace, whose buffer every
// call of the concrete function passes (so eager assigns made between calls
// are seen without retracing).
//
// Variables created inside a staged callable are created once, on the first
// trace (with an eager initial value), and kept alive by that trace; later
// calls of that concrete function reuse them. An initial value computed by
// ops inside the trace would be symbolic: give the constructor a callable
// instead, `fnc::Variable([] { return fnc::random_normal({3}); }, "w")`, or
// compute it under a fnc::InitScope; both run the initializer eagerly. Creating a variable while
// tracing a later call throws "fnc::function only supports singleton
// variables created on the first call". A variable passed as an argument
// of a fnc::function is part of the call key by identity, dtype and shape.
//
// Thread-safety: like tf.Variable, concurrent updates of one variable are
// not synchronized.
//
//===----------------------------------------------------------------------===//

#ifndef FNC_VARIABLE_H
#define FNC_VARIABLE_H

#include "fnc/Function.h"
#include "fnc/Tensor.h"

#include <functional>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

namespace fnc {

namespace detail {
struct VariableState;
struct ConcreteAccess;
} // namespace detail

class Variable {
public:
  /// A null handle (defined() is false).
  Variable() = default;
  /// A variable holding a copy of `initial_value` (an eager tensor), with
  /// its dtype and shape. `name` is shown in messages.
  explicit Variable(const Tensor &initial_value, std::string name = {});
  /// A variable initialized by `initializer()`, which runs eagerly even
  /// while a fnc::function traces (under a fnc::InitScope), so that layers
  /// can create their variables lazily on the first call.
  explicit Variable(const std::function<Tensor()> &initializer,
                    std::string name = {});

  bool defined() const { return state_ != nullptr; }
  DType dtype() const;
  const std::vector<int64_t> &shape() const;
  const std::string &name() const;
  /// A process-unique id (the identity used in call keys).
  uint64_t id() const;

  /// The current value (eager: a snapshot; traced: fnc.var_read).
  Tensor read_value() const;
  Tensor value() const { return read_value(); }
  operator Tensor() const { return read_value(); }

  /// Updates the variable and returns its new value. `value` must have the
  /// variable's dtype and a shape that broadcasts to the variable's shape.
  Tensor assign(const Tensor &value) const;
  Tensor assign_add(const Tensor &value) const;
  Tensor assign_sub(const Tensor &value) const;
  /// The same with a C++ number, converted to the variable's dtype.
  template <typename T, std::enable_if_t<std::is_arithmetic_v<T>, int> = 0>
  Tensor assign(T value) const {
    return assign(scalar(static_cast<double>(value)));
  }
  template <typename T, std::enable_if_t<std::is_arithmetic_v<T>, int> = 0>
  Tensor assign_add(T value) const {
    return assign_add(scalar(static_cast<double>(value)));
  }
  template <typename T, std::enable_if_t<std::is_arithmetic_v<T>, int> = 0>
  Tensor assign_sub(T value) const {
    return assign_sub(scalar(static_cast<double>(value)));
  }

  /// `fnc.Variable 'name' shape=(2,) dtype=float32, numpy=[1. 2.]` (eager).
  std::string str() const;

private:
  friend struct detail::ConcreteAccess;
  Tensor scalar(double value) const;
  std::shared_ptr<detail::VariableState> state_;
};

std::ostream &operator<<(std::ostream &os, const Variable &v);

// Arithmetic on a variable reads its value.
#define FNC_VARIABLE_OPERATOR(OP)                                              \
  template <typename T>                                                        \
  auto operator OP(const Variable &v, T &&x)                                   \
      ->decltype(v.read_value() OP std::forward<T>(x)) {                       \
    return v.read_value() OP std::forward<T>(x);                               \
  }                                                                            \
  template <typename T, std::enable_if_t<                                      \
                            !std::is_same_v<std::decay_t<T>, Variable>, int> = 0> \
  auto operator OP(T &&x, const Variable &v)                                   \
      ->decltype(std::forward<T>(x) OP v.read_value()) {                       \
    return std::forward<T>(x) OP v.read_value();                               \
  }
FNC_VARIABLE_OPERATOR(+)
FNC_VARIABLE_OPERATOR(-)
FNC_VARIABLE_OPERATOR(*)
FNC_VARIABLE_OPERATOR(/)
#undef FNC_VARIABLE_OPERATOR

/// The C++ form of `with tf.init_scope():`. While alive, ops on this
/// thread run eagerly even inside a trace, and gradient tapes do not record
/// them: initializers and other one-time set-up computed on the first call
/// of a fnc::function. A fnc::Variable created in the scope still belongs to
/// the trace that is being recorded (created once, on the first trace).
/// Scopes nest; not copyable.
class InitScope {
public:
  InitScope();
  ~InitScope();
  InitScope(const InitScope &) = delete;
  InitScope &operator=(const InitScope &) = delete;

private:
  struct Saved;
  std::unique_ptr<Saved> saved_;
};

namespace detail {
/// A variable argument of a fnc::function: keyed by identity, dtype and
/// shape; the callable gets the same handle (its uses are staged).
template <> struct ArgCodec<Variable> {
  static constexpr bool kIsTensor = false;
  static void encode(CallKey &k, const Variable &v) {
    k.tag(kVariableTag);
    k.value(static_cast<int64_t>(v.id()));
    k.value(static_cast<int64_t>(v.dtype()));
    k.value(static_cast<int64_t>(v.shape().size()));
    for (int64_t d : v.shape())
      k.value(d);
  }
  static void substitute(Variable &, const Tensor *&) {}
};
} // namespace detail

} // namespace fnc

#endif // FNC_VARIABLE_H
