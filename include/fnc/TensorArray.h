//===- TensorArray.h - fnc::TensorArray: loop accumulation ------*- C++ -*-===//
//
// A fnc::TensorArray is a list of tensors of one dtype and element shape
// (tf.TensorArray), the way to accumulate values in a staged loop, where a
// std::vector::push_back would run once, at trace time:
//
//   fnc::TensorArray ta(fnc::DType::f32, n, {batch, features});
//   auto [state, out] = fnc::for_range(0, n, 1,
//       [&](fnc::Tensor i, fnc::Tensor s, fnc::TensorArray a) {
//         s = step(fnc::gather(inputs, i), s);
//         return std::make_tuple(s, a.write(i, s));
//       }, std::make_tuple(init, ta));
//   fnc::Tensor all = out.stack();  // [n, batch, features]
//
// A TensorArray is a value: write() returns the updated array and leaves
// the original unchanged (reassign: `ta = ta.write(i, x)`). Eagerly, and
// while tracing with C++ (or eager) indices, it is a list of tensors. With
// a symbolic index, or when carried by fnc::while_loop / fnc::for_range, it
// becomes a tensor of shape [size, element...] plus a bool mask of the
// written elements; a write replaces one row (fnc.set_row, in place once
// compiled), a read with a symbolic index gathers one.
//
// A fixed size, or a dynamic (growing) size (TensorArray::dynamic, which
// grows on writes past the end), eagerly and staged. While tracing, a
// dynamic array in tensor form (carried by a loop, or written at a symbolic
// index) has a size known only at run time: size() is fnc::kUnknownDim and
// stack() has an unknown first dim; each growth copies the array once (a
// fixed size, an upper bound, avoids that). Without an element shape, the
// first write decides it, inside a loop too (tf.TensorArray's default; in a
// trace the body is traced once more to learn it, see fnc/Control.h); a dim
// given as fnc::kUnknownDim (a batch known only at run time) is taken from
// the first value written, read at run time. Errors
// (fnc::Error): a dtype or element shape that differs (InvalidArgument), an
// index outside [0, size) known at trace time or eagerly (OutOfRange),
// reading an element never written when that is known
// (FailedPrecondition). In staged code, an element never written reads as
// zeros, and an index out of range at run time (a write past the end of a
// fixed-size array, a negative index, a read past the end) is a run-time
// error.
//
//===----------------------------------------------------------------------===//

#ifndef FNC_TENSORARRAY_H
#define FNC_TENSORARRAY_H

#include "fnc/Function.h"
#include "fnc/Tensor.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <tuple>
#include <utility>
#include <vector>

namespace fnc {

namespace detail {
struct TensorArrayState;
} // namespace detail

class TensorArray {
public:
  /// A null array (defined() is false).
  TensorArray() = default;
  /// `size` elements of `dtype`. `element_shape` (optional) fixes the
  /// elements' shape up front; otherwise the first write does.
  TensorArray(DType dtype, int64_t size);
  TensorArray(DType dtype, int64_t size, std::vector<int64_t> element_shape);
  /// A dynamic-size array (dynamic_size=True): starts with `size` elements
  /// and grows on writes past the end.
  static TensorArray dynamic(DType dtype, int64_t size = 0);
  static TensorArray dynamic(DType dtype, int64_t size,
                             std::vector<int64_t> element_shape);

  bool defined() const { return state_ != nullptr; }
  DType dtype() const;
  /// The number of elements (grows for a dynamic-size array; kUnknownDim
  /// while tracing when it is a run-time value).
  int64_t size() const;
  bool dynamic_size() const;
  /// The element shape, if known yet.
  const std::optional<std::vector<int64_t>> &element_shape() const;

  /// The array with element `index` set to `value` (int32/int64 scalar
  /// index; symbolic in a trace is fine).
  [[nodiscard]] TensorArray write(const Tensor &index,
                                  const Tensor &value) const;
  [[nodiscard]] TensorArray write(int64_t index, const Tensor &value) const;
  /// Element `index`.
  Tensor read(const Tensor &index) const;
  Tensor read(int64_t index) const;
  /// All elements stacked along a new first dim: [size, element...].
  Tensor stack() const;

  /// How a loop carries the array: {values [size, element...], written
  /// mask [size] bool}, and back. Used by fnc::while_loop / for_range.
  std::vector<Tensor> toLoopVars() const;
  static TensorArray fromLoopVars(const Tensor &values, const Tensor &mask,
                                  bool dynamic = false);

private:
  explicit TensorArray(std::shared_ptr<const detail::TensorArrayState> s)
      : state_(std::move(s)) {}
  static std::shared_ptr<const detail::TensorArrayState>
  make(DType dtype, int64_t size, bool dynamic,
       std::optional<std::vector<int64_t>> elementShape);
  TensorArray writeImpl(const Tensor *index, std::optional<int64_t> known,
                        const Tensor &value) const;
  Tensor readImpl(const Tensor *index, std::optional<int64_t> known) const;
  std::shared_ptr<const detail::TensorArrayState> state_;
};

namespace detail {

/// Loop-carried TensorArrays (and tuples mixing tensors and arrays): an
/// array flattens to two tensors (values and written mask).
template <typename E> struct LoopElem;
template <> struct LoopElem<Tensor> {
  static constexpr size_t kCount = 1;
  static void flatten(const Tensor &t, std::vector<Tensor> &out) {
    out.push_back(t);
  }
  static Tensor rebuild(std::vector<Tensor> &v, size_t at) {
    return std::move(v[at]);
  }
  static Tensor rebuildLike(std::vector<Tensor> &v, size_t at, const Tensor &) {
    return std::move(v[at]);
  }
  static void kinds(const Tensor &, std::vector<LoopVar> &out) {
    out.push_back(LoopVar::Tensor);
  }
  static void arrays(Tensor &, std::vector<TensorArray *> &) {}
};
template <> struct LoopElem<TensorArray> {
  static constexpr size_t kCount = 2;
  static void flatten(const TensorArray &a, std::vector<Tensor> &out) {
    for (Tensor &t : a.toLoopVars())
      out.push_back(std::move(t));
  }
  static TensorArray rebuild(std::vector<Tensor> &v, size_t at) {
    return TensorArray::fromLoopVars(v[at], v[at + 1]);
  }
  /// Keeps what the loop vars do not carry (the dynamic flag) from `like`.
  static TensorArray rebuildLike(std::vector<Tensor> &v, size_t at,
                                 const TensorArray &like) {
    return TensorArray::fromLoopVars(v[at], v[at + 1], like.dynamic_size());
  }
  /// A dynamic array's values and mask change their first dim.
  static void kinds(const TensorArray &a, std::vector<LoopVar> &out) {
    out.insert(out.end(), 2,
               a.dynamic_size() ? LoopVar::GrowingArray : LoopVar::Array);
  }
  static void arrays(TensorArray &a, std::vector<TensorArray *> &out) {
    out.push_back(&a);
  }
};

template <typename... Ts> struct MixedTupleCodec {
  static constexpr const char *kStructure = "tuple";
  static std::vector<Tensor> flatten(const std::tuple<Ts...> &t) {
    std::vector<Tensor> out;
    std::apply([&](const Ts &...e) { (LoopElem<Ts>::flatten(e, out), ...); },
               t);
    return out;
  }
  static std::tuple<Ts...> rebuild(std::vector<Tensor> &&v) {
    return rebuildAt(v, std::index_sequence_for<Ts...>{});
  }
  static std::tuple<Ts...> rebuildLike(std::vector<Tensor> &&v,
                                       const std::tuple<Ts...> &like) {
    return rebuildAtLike(v, like, std::index_sequence_for<Ts...>{});
  }
  static std::vector<LoopVar> kinds(const std::tuple<Ts...> &t) {
    std::vector<LoopVar> out;
    std::apply([&](const Ts &...e) { (LoopElem<Ts>::kinds(e, out), ...); },
               t);
    return out;
  }
  static void arrays(std::tuple<Ts...> &t, std::vector<TensorArray *> &out) {
    std::apply([&](Ts &...e) { (LoopElem<Ts>::arrays(e, out), ...); }, t);
  }

private:
  template <size_t I> static constexpr size_t offset() {
    constexpr size_t counts[] = {LoopElem<Ts>::kCount..., 0};
    size_t s = 0;
    for (size_t k = 0; k < I; ++k)
      s += counts[k];
    return s;
  }
  template <size_t... I>
  static std::tuple<Ts...> rebuildAt(std::vector<Tensor> &v,
                                     std::index_sequence<I...>) {
    return std::tuple<Ts...>(LoopElem<Ts>::rebuild(v, offset<I>())...);
  }
  template <size_t... I>
  static std::tuple<Ts...> rebuildAtLike(std::vector<Tensor> &v,
                                         const std::tuple<Ts...> &like,
                                         std::index_sequence<I...>) {
    return std::tuple<Ts...>(
        LoopElem<Ts>::rebuildLike(v, offset<I>(), std::get<I>(like))...);
  }
};

template <> struct ResultCodec<TensorArray> {
  static constexpr const char *kStructure = "tensor_array";
  static std::vector<Tensor> flatten(const TensorArray &a) {
    return a.toLoopVars();
  }
  static TensorArray rebuild(std::vector<Tensor> &&v) {
    return TensorArray::fromLoopVars(v[0], v[1]);
  }
  static TensorArray rebuildLike(std::vector<Tensor> &&v,
                                 const TensorArray &like) {
    return TensorArray::fromLoopVars(v[0], v[1], like.dynamic_size());
  }
  static std::vector<LoopVar> kinds(const TensorArray &a) {
    std::vector<LoopVar> out;
    LoopElem<TensorArray>::kinds(a, out);
    return out;
  }
  static void arrays(TensorArray &a, std::vector<TensorArray *> &out) {
    out.push_back(&a);
  }
};
// Tuples whose first TensorArray is element 0, 1 or 2 (more specialized
// than the tensor-only tuple codec of fnc/Function.h).
template <typename... Ts>
struct ResultCodec<std::tuple<TensorArray, Ts...>>
    : MixedTupleCodec<TensorArray, Ts...> {};
template <typename... Ts>
struct ResultCodec<std::tuple<Tensor, TensorArray, Ts...>>
    : MixedTupleCodec<Tensor, TensorArray, Ts...> {};
template <typename... Ts>
struct ResultCodec<std::tuple<Tensor, Tensor, TensorArray, Ts...>>
    : MixedTupleCodec<Tensor, Tensor, TensorArray, Ts...> {};

} // namespace detail

} // namespace fnc

#endif // FNC_TENSORARRAY_H
