//===- Control.h - Staged control flow: cond, while_loop, for_range -*- C++ -*-=//
//
// C++ `if` and `for` in a fnc::function run while tracing: they are baked
// into the trace (a `bool training` argument gives one trace per value; a
// loop over C++ data unrolls). Control flow that depends on tensor *values*
// is staged with these functions, which trace each branch / body once and
// decide at run time (fnc.cond, fnc.while):
//
//   Tensor y = fnc::cond(x > 0.f, [&] { return x; }, [&] { return -x; });
//   Tensor s = fnc::for_range(0, n, 1,
//       [&](Tensor i, Tensor acc) { return acc + i; }, Tensor(0));
//
// Eagerly (outside a trace) they simply run. Branches and bodies return a
// fnc::Tensor, std::vector<Tensor>, std::array / std::tuple / std::pair of
// tensors, or nothing; loop-carried values have one of these types too (a
// tuple may be unpacked into the callables' parameters). Both branches must
// return the same number of tensors with the same dtypes and ranks (a dim
// they disagree on is unknown in the staged result: TensorFlow's most
// specific common shape), and a loop variable must keep its dtype and
// shape; otherwise fnc::Error (InvalidArgument) says which value differs. A loop variable whose shape
// changes (a growing sequence) declares the dims that change as unknown in
// LoopOptions::shape_invariants (TensorFlow's shape_invariants):
//
//   fnc::LoopOptions options;
//   options.shape_invariants = {{}, {fnc::kUnknownDim}};  // i, seq
//   auto [i, seq] = fnc::while_loop(cond, grow, std::tuple{i0, seq0},
//                                   options); Variables and fnc::print in
// branches and bodies are staged inside them (they run when the branch or
// iteration runs). Tensors computed inside a branch or body must leave it as
// its results.
//
//===----------------------------------------------------------------------===//

#ifndef FNC_CONTROL_H
#define FNC_CONTROL_H

#include "fnc/Function.h"
#include "fnc/Tensor.h"

#include <functional>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace fnc {

class TensorArray;

/// Options of while_loop and for_range.
struct LoopOptions {
  /// Empty, or one shape per tensor loop variable (flattened, in order;
  /// TensorArrays are not counted: a dynamic-size one grows by itself): a
  /// dim given as fnc::kUnknownDim may change across iterations, the others
  /// must stay as given (which the initial value must match). Inside the
  /// body and after the loop, those dims are unknown while tracing.
  std::vector<std::vector<int64_t>> shape_invariants;
};

namespace detail {
using BranchFn = std::function<std::vector<Tensor>()>;
using LoopBodyFn =
    std::function<std::vector<Tensor>(const std::vector<Tensor> &)>;
using LoopCondFn = std::function<Tensor(const std::vector<Tensor> &)>;

std::vector<Tensor> condImpl(const Tensor &pred, const BranchFn &thenFn,
                             const BranchFn &elseFn);
/// `kinds`: what each of `init` is (see LoopVar).
std::vector<Tensor> whileImpl(const LoopCondFn &cond, const LoopBodyFn &body,
                              const std::vector<Tensor> &init, const char *op,
                              const LoopOptions &options,
                              const std::vector<LoopVar> &kinds);
std::vector<Tensor> forImpl(const Tensor &start, const Tensor &limit,
                            const Tensor &delta,
                            const std::function<std::vector<Tensor>(
                                const Tensor &, const std::vector<Tensor> &)>
                                &body,
                            const std::vector<Tensor> &init,
                            const LoopOptions &options,
                            const std::vector<LoopVar> &kinds);
std::vector<Tensor> switchImpl(const Tensor &index,
                               const std::vector<BranchFn> &branches);

template <typename T> struct IsTuple : std::false_type {};
template <typename... Ts> struct IsTuple<std::tuple<Ts...>> : std::true_type {};

/// Calls fn(prefix..., vars), unpacking a tuple when fn takes its elements.
template <typename Fn, typename T, typename... Prefix>
decltype(auto) invokeLoop(Fn &fn, const T &vars, const Prefix &...prefix) {
  if constexpr (IsTuple<T>::value) {
    if constexpr (std::is_invocable_v<Fn &, const Prefix &..., const T &>)
      return fn(prefix..., vars);
    else
      return std::apply(
          [&](const auto &...e) -> decltype(auto) { return fn(prefix..., e...); },
          vars);
  } else {
    return fn(prefix..., vars);
  }
}

/// ResultCodec<T>::rebuild, keeping from `like` what a codec takes from
/// the original loop variables (TensorArray: the dynamic flag).
template <typename C, typename = void> struct HasRebuildLike : std::false_type {};
template <typename C>
struct HasRebuildLike<C, std::void_t<decltype(&C::rebuildLike)>>
    : std::true_type {};
template <typename T> T rebuildLike(std::vector<Tensor> &&v, const T &like) {
  if constexpr (HasRebuildLike<ResultCodec<T>>::value)
    return ResultCodec<T>::rebuildLike(std::move(v), like);
  else
    return ResultCodec<T>::rebuild(std::move(v));
}

/// What the flattened loop variables of `vars` are (empty: all tensors).
template <typename C, typename = void> struct HasKinds : std::false_type {};
template <typename C>
struct HasKinds<C, std::void_t<decltype(&C::kinds)>> : std::true_type {};
template <typename T> std::vector<LoopVar> loopVarKinds(const T &vars) {
  if constexpr (HasKinds<ResultCodec<T>>::value)
    return ResultCodec<T>::kinds(vars);
  else
    return {};
}

/// The TensorArrays among loop variables `vars` (their codec's arrays()).
template <typename C, typename = void> struct HasArrays : std::false_type {};
template <typename C>
struct HasArrays<C, std::void_t<decltype(&C::arrays)>> : std::true_type {};
template <typename T> std::vector<TensorArray *> arraysOf(T &vars) {
  std::vector<TensorArray *> out;
  if constexpr (HasArrays<ResultCodec<T>>::value)
    ResultCodec<T>::arrays(vars, out);
  return out;
}

/// TensorArrays without an element shape before a loop (tf.TensorArray's
/// default: the first write decides it). Eagerly the loop runs its first
/// iterations as they come (lackElementShapes is false once one wrote);
/// in a trace, probeLoopBody traces the body once into a block that is
/// dropped (no op of it is run, and effects recorded there never happen),
/// and adoptElementShapes takes the shapes it wrote.
bool lackElementShapes(const std::vector<TensorArray *> &arrays);
bool tracingLoop();
void probeLoopBody(const std::function<void()> &body);
void adoptElementShapes(const std::vector<TensorArray *> &arrays,
                        const std::vector<TensorArray *> &probed);
/// Eagerly: whether the loop condition `c` holds (checked as a staged
/// loop checks it); whether a for_range from `start` runs an iteration,
/// and its next index.
bool eagerLoopCondition(const Tensor &c, const char *op);
bool forRangeRuns(const Tensor &start, const Tensor &limit,
                  const Tensor &delta);
Tensor forRangeNext(const Tensor &start, const Tensor &delta);

/// A branch calling `fn` (a copy): called once per trace; gradients come
/// from what it recorded (fnc/Trace/Program.h), not from calling it again.
template <typename Fn> BranchFn branch(Fn fn) {
  using R = std::decay_t<std::invoke_result_t<Fn &>>;
  return [fn = std::move(fn)]() mutable -> std::vector<Tensor> {
    if constexpr (std::is_void_v<R>) {
      fn();
      return {};
    } else {
      return ResultCodec<R>::flatten(fn());
    }
  };
}
} // namespace detail

/// Runs `then_fn()` if the scalar bool `pred` is true, else `else_fn()`,
/// and returns what the branch returns (staged as fnc.cond in a trace).
template <typename ThenFn, typename ElseFn>
auto cond(const Tensor &pred, ThenFn then_fn, ElseFn else_fn) {
  using R = std::decay_t<std::invoke_result_t<ThenFn &>>;
  static_assert(std::is_same_v<R, std::decay_t<std::invoke_result_t<ElseFn &>>>,
                "fnc::cond: both branches must return the same C++ type");
  std::vector<Tensor> out =
      detail::condImpl(pred, detail::branch(std::move(then_fn)),
                       detail::branch(std::move(else_fn)));
  if constexpr (!std::is_void_v<R>)
    return detail::ResultCodec<R>::rebuild(std::move(out));
}

/// Runs the branch whose position is the int32/int64 scalar `index`; an
/// index out of range runs the last branch (the default). Staged as nested
/// fnc.cond ops.
template <typename Fn, typename... Fns>
auto switch_case(const Tensor &index, Fn first, Fns... rest) {
  using R = std::decay_t<std::invoke_result_t<Fn &>>;
  static_assert((std::is_same_v<R, std::decay_t<std::invoke_result_t<Fns &>>> &&
                 ...),
                "fnc::switch_case: every branch must return the same C++ type");
  std::vector<detail::BranchFn> branches = {detail::branch(std::move(first)),
                                            detail::branch(std::move(rest))...};
  std::vector<Tensor> out = detail::switchImpl(index, branches);
  if constexpr (!std::is_void_v<R>)
    return detail::ResultCodec<R>::rebuild(std::move(out));
}

/// While `cond_fn(vars)` (a scalar bool) is true, `vars = body_fn(vars)`;
/// returns the final vars (staged as fnc.while in a trace).
template <typename CondFn, typename BodyFn, typename T>
T while_loop(CondFn cond_fn, BodyFn body_fn, const T &loop_vars_in,
             const LoopOptions &options = {}) {
  using Codec = detail::ResultCodec<T>;
  T loop_vars = loop_vars_in;
  std::vector<TensorArray *> arrays = detail::arraysOf(loop_vars);
  if (detail::lackElementShapes(arrays)) {
    if (detail::tracingLoop()) {
      T probed = loop_vars;
      detail::probeLoopBody(
          [&] { probed = T(detail::invokeLoop(body_fn, loop_vars)); });
      detail::adoptElementShapes(arrays, detail::arraysOf(probed));
    } else {
      // Eagerly: the iterations before the first write, as they come.
      do {
        if (!detail::eagerLoopCondition(
                detail::invokeLoop(cond_fn, loop_vars), "while_loop"))
          return loop_vars;
        loop_vars = T(detail::invokeLoop(body_fn, loop_vars));
      } while (detail::lackElementShapes(detail::arraysOf(loop_vars)));
    }
  }
  // The callables are called once per trace; gradients replay what they
  // recorded.
  std::vector<Tensor> out = detail::whileImpl(
      [cond_fn, loop_vars](const std::vector<Tensor> &v) mutable -> Tensor {
        T vars = detail::rebuildLike(std::vector<Tensor>(v), loop_vars);
        return detail::invokeLoop(cond_fn, vars);
      },
      [body_fn,
       loop_vars](const std::vector<Tensor> &v) mutable -> std::vector<Tensor> {
        T vars = detail::rebuildLike(std::vector<Tensor>(v), loop_vars);
        return Codec::flatten(T(detail::invokeLoop(body_fn, vars)));
      },
      Codec::flatten(loop_vars), "while_loop", options,
      detail::loopVarKinds(loop_vars));
  return detail::rebuildLike(std::move(out), loop_vars);
}

/// for (i = start; delta > 0 ? i < limit : i > limit; i += delta)
///   vars = body_fn(i, vars);
/// `start`, `limit` and `delta` are integer scalars (limit and delta are
/// cast to start's dtype). Staged as fnc.while in a trace.
template <typename BodyFn, typename T>
T for_range(const Tensor &start, const Tensor &limit, const Tensor &delta,
            BodyFn body_fn, const T &loop_vars_in,
            const LoopOptions &options = {}) {
  using Codec = detail::ResultCodec<T>;
  T loop_vars = loop_vars_in;
  std::vector<TensorArray *> arrays = detail::arraysOf(loop_vars);
  Tensor first = start;
  if (detail::lackElementShapes(arrays)) {
    if (detail::tracingLoop()) {
      T probed = loop_vars;
      detail::probeLoopBody(
          [&] { probed = T(detail::invokeLoop(body_fn, loop_vars, start)); });
      detail::adoptElementShapes(arrays, detail::arraysOf(probed));
    } else {
      // Eagerly: the iterations before the first write, as they come.
      do {
        if (!detail::forRangeRuns(first, limit, delta))
          return loop_vars;
        loop_vars = T(detail::invokeLoop(body_fn, loop_vars, first));
        first = detail::forRangeNext(first, delta);
      } while (detail::lackElementShapes(detail::arraysOf(loop_vars)));
    }
  }
  std::vector<Tensor> out = detail::forImpl(
      first, limit, delta,
      [body_fn, loop_vars](const Tensor &i,
                           const std::vector<Tensor> &v) mutable {
        T vars = detail::rebuildLike(std::vector<Tensor>(v), loop_vars);
        return Codec::flatten(T(detail::invokeLoop(body_fn, vars, i)));
      },
      Codec::flatten(loop_vars), options, detail::loopVarKinds(loop_vars));
  return detail::rebuildLike(std::move(out), loop_vars);
}

/// The side-effect-only form: `body_fn(i)` for each i (it may assign
/// variables and print).
template <typename BodyFn>
void for_range(const Tensor &start, const Tensor &limit, const Tensor &delta,
               BodyFn body_fn) {
  detail::forImpl(
      start, limit, delta,
      [body_fn](const Tensor &i, const std::vector<Tensor> &) mutable {
        body_fn(i);
        return std::vector<Tensor>{};
      },
      {}, {}, {});
}

} // namespace fnc

#endif // FNC_CONTROL_H
