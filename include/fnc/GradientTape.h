//===- GradientTape.h - Reverse-mode automatic differentiation -*- C++ -*-===//
//
// fnc::GradientTape is the C++ form of `with tf.GradientTape() as tape:`.
// While the tape object is alive it records, on the thread that created it,
// the differentiable ops applied to the values it watches: tensors given to
// watch(), the float variables read while it records (unless
// watch_accessed_variables is false), and everything computed from them.
// gradient() then runs the ops' gradient rules backwards:
//
//   fnc::Variable w(fnc::Tensor{1.f, 2.f}, "w");
//   fnc::Tensor x = {3.f, 4.f};
//   fnc::GradientTape tape;
//   fnc::Tensor loss = fnc::reduce_sum(w * x);
//   fnc::Tensor dw = tape.gradient(loss, w);   // [3, 4]
//
// The rules are written against the public ops, so the same tape works
// eagerly and inside a fnc::function: there the backward ops are recorded
// into the trace, and one concrete function holds forward, backward and the
// variable updates. A fnc::function called eagerly under a recording tape
// runs its compiled code and is one entry of the tape, whose gradient is a
// staged backward function, compiled once per concrete function and cached
// (Function::backward_concrete_functions()); one with side effects runs its
// callable eagerly instead, so that the tape sees its ops.
//
// - A non-scalar target is summed first (TF's rule), or weighted by
//   GradientOptions::output_gradients.
// - A non-persistent tape computes gradients once; a persistent one any
//   number of times.
// - Tapes nest: the outer tape records the ops an inner tape's gradient()
//   runs, which gives higher derivatives (d2/dx2 of x^3 is 6x).
// - fnc::stop_gradient(x) is x, through which no gradient flows.
// - A source the target does not depend on gets a null Tensor, or zeros
//   with UnconnectedGradients::Zero.
// - Only float values carry gradients; a non-float target or source is an
//   fnc::Error that names it, and so is a gradient that must flow through an
//   op without a gradient rule.
//
// Thread-safety: a tape belongs to the thread that created it.
//
//===----------------------------------------------------------------------===//

#ifndef FNC_GRADIENTTAPE_H
#define FNC_GRADIENTTAPE_H

#include "fnc/Function.h"
#include "fnc/Tensor.h"
#include "fnc/Variable.h"

#include <initializer_list>
#include <memory>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace fnc {

/// What the gradient of a source the target does not depend on is.
enum class UnconnectedGradients {
  None, ///< a null fnc::Tensor (defined() is false)
  Zero, ///< zeros of the source's shape
};

struct GradientOptions {
  /// Weights of the target's elements (its dtype and shape): the gradient
  /// is that of sum(output_gradients * target). Null: all ones.
  Tensor output_gradients;
  UnconnectedGradients unconnected_gradients = UnconnectedGradients::None;
};

namespace detail {
struct TapeState;
struct TapeAccess;
} // namespace detail

class GradientTape {
public:
  explicit GradientTape(bool persistent = false,
                        bool watch_accessed_variables = true);
  ~GradientTape();
  GradientTape(const GradientTape &) = delete;
  GradientTape &operator=(const GradientTape &) = delete;

  /// Records the ops computed from `x` (or from the reads of `v`) from now
  /// on. Non-float tensors carry no gradient and are not watched.
  void watch(const Tensor &x);
  void watch(const std::vector<Tensor> &xs);
  void watch(const Variable &v);

  /// The gradient of `target` with respect to each source, in the
  /// sources' structure: a Tensor or Variable, a std::vector of either,
  /// or a std::tuple mixing them.
  Tensor gradient(const Tensor &target, const Tensor &source,
                  const GradientOptions &options = {});
  Tensor gradient(const Tensor &target, const Variable &source,
                  const GradientOptions &options = {});
  std::vector<Tensor> gradient(const Tensor &target,
                               const std::vector<Tensor> &sources,
                               const GradientOptions &options = {});
  std::vector<Tensor> gradient(const Tensor &target,
                               const std::vector<Variable> &sources,
                               const GradientOptions &options = {});
  /// A braced list of variables, `tape.gradient(loss, {W, b})` (the seeds'
  /// `tape.gradient(loss, [W, b])`; a Variable also converts to a Tensor,
  /// which made the list ambiguous).
  std::vector<Tensor> gradient(const Tensor &target,
                               std::initializer_list<Variable> sources,
                               const GradientOptions &options = {}) {
    return gradient(target, std::vector<Variable>(sources), options);
  }
  template <typename... Sources>
  auto gradient(const Tensor &target, const std::tuple<Sources...> &sources,
                const GradientOptions &options = {}) {
    std::vector<Source> list;
    std::apply([&](const auto &...s) { (list.push_back(sourceOf(s)), ...); },
               sources);
    std::vector<Tensor> grads = gradients(target, list, options);
    return toTuple(grads, std::index_sequence_for<Sources...>());
  }

private:
  friend struct detail::TapeAccess;

  /// A tensor or a variable to differentiate with respect to (internally
  /// also a variable known by its id alone, a float one).
  struct Source {
    const Tensor *tensor = nullptr;
    const Variable *variable = nullptr;
    uint64_t variableId = 0;
  };
  static Source sourceOf(const Tensor &t) { return {&t, nullptr}; }
  static Source sourceOf(const Variable &v) { return {nullptr, &v}; }
  template <typename T>
  static std::vector<Source> sourcesOf(const std::vector<T> &sources) {
    std::vector<Source> list;
    for (const T &s : sources)
      list.push_back(sourceOf(s));
    return list;
  }
  template <size_t... I>
  static auto toTuple(const std::vector<Tensor> &g, std::index_sequence<I...>) {
    return std::make_tuple(((void)I, g[I])...);
  }

  std::vector<Tensor> gradients(const Tensor &target,
                                const std::vector<Source> &sources,
                                const GradientOptions &options);
  /// The gradients of the targets weighted by their seeds (pairs of a
  /// target and a tensor of its dtype and shape; null targets skipped).
  std::vector<Tensor>
  propagate(const std::vector<std::pair<Tensor, Tensor>> &seeds,
            const std::vector<Source> &sources,
            const GradientOptions &options);

  std::unique_ptr<detail::TapeState> state_;
};

/// `x`, through which no gradient flows (tf.stop_gradient): the same
/// values, invisible to every tape.
Tensor stop_gradient(const Tensor &x);

//===----------------------------------------------------------------------===//
// Functional forms (JAX's grad and value_and_grad)
//===----------------------------------------------------------------------===//

namespace detail {
[[noreturn]] void badArgnum(const char *what, int argnum, size_t arity,
                            bool isTensor);
[[noreturn]] void nonScalarValue(const char *what, const Tensor &value);

inline const Tensor *tensorOrNull(const Tensor &t) { return &t; }
template <typename T> const Tensor *tensorOrNull(const T &) { return nullptr; }

/// f differentiated with respect to its parameters `argnums` (tensors).
/// A plain callable with f's parameter types, so fnc::function stages it.
template <typename F, typename Params, bool WithValue, bool Single>
struct Differentiated;
template <typename F, typename... Ps, bool WithValue, bool Single>
struct Differentiated<F, std::tuple<Ps...>, WithValue, Single> {
  F f;
  std::vector<int> argnums;

  using Grads = std::conditional_t<Single, Tensor, std::vector<Tensor>>;
  using Result = std::conditional_t<WithValue, std::pair<Tensor, Grads>, Grads>;

  Result operator()(Ps... args) const {
    const char *what = WithValue ? "fnc::value_and_grad" : "fnc::grad";
    std::vector<const Tensor *> params = {tensorOrNull(args)...};
    GradientTape tape;
    std::vector<Tensor> sources;
    for (int i : argnums) {
      if (i < 0 || static_cast<size_t>(i) >= params.size() || !params[i])
        badArgnum(what, i, params.size(),
                  i >= 0 && static_cast<size_t>(i) < params.size());
      tape.watch(*params[i]);
      sources.push_back(*params[i]);
    }
    Tensor value = f(args...);
    if (!value.defined() || value.rank() != 0)
      nonScalarValue(what, value);
    GradientOptions options;
    options.unconnected_gradients = UnconnectedGradients::Zero;
    std::vector<Tensor> grads = tape.gradient(value, sources, options);
    if constexpr (Single && WithValue)
      return {value, grads[0]};
    else if constexpr (Single)
      return grads[0];
    else if constexpr (WithValue)
      return {value, grads};
    else
      return grads;
  }
};

template <typename F> struct FixedParams {
  static_assert(CallableTraits<F>::kFixed,
                "fnc::grad / fnc::value_and_grad need a function with fixed "
                "parameter types to know what to differentiate; write them "
                "out, e.g. [](fnc::Tensor x) { ... } instead of [](auto x)");
  using type = typename CallableTraits<F>::Params;
};

template <typename F, bool WithValue, bool Single>
using DifferentiatedOf =
    Differentiated<F, typename FixedParams<F>::type, WithValue, Single>;
} // namespace detail

/// The gradient of the scalar function `f` with respect to its first
/// (tensor) parameter, as a callable with f's parameters (JAX's grad):
///
///   auto df = fnc::grad([](fnc::Tensor x) { return fnc::reduce_sum(x * x); });
///   df(x);                        // 2x
///   auto staged = fnc::function(df);
///
/// A source f does not depend on gets zeros. f must return a scalar.
template <typename F> auto grad(F f) {
  return detail::DifferentiatedOf<F, false, true>{std::move(f), {0}};
}
/// The gradients with respect to the parameters `argnums`, in that order.
template <typename F> auto grad(F f, std::vector<int> argnums) {
  return detail::DifferentiatedOf<F, false, false>{std::move(f),
                                                   std::move(argnums)};
}
/// f's value and its gradient (pair): JAX's value_and_grad.
template <typename F> auto value_and_grad(F f) {
  return detail::DifferentiatedOf<F, true, true>{std::move(f), {0}};
}
template <typename F> auto value_and_grad(F f, std::vector<int> argnums) {
  return detail::DifferentiatedOf<F, true, false>{std::move(f),
                                                  std::move(argnums)};
}

} // namespace fnc

#endif // FNC_GRADIENTTAPE_H
