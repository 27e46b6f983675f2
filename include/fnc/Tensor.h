//===- Tensor.h - The eager tensor value type of fnc ------------*- C++ -*-===//
//
// fnc::Tensor is an n-dimensional array with a dtype and a shape: the value
// every fnc op takes and returns. It is a cheap-to-copy handle to shared,
// immutable contents: ops never modify their operands, they return new
// tensors.
//
//   fnc::Tensor x = {{1.f, 2.f}, {3.f, 4.f}};   // float32, shape (2, 2)
//   fnc::Tensor s = 3.0f;                        // float32 scalar
//   std::cout << x * s;  // fnc.Tensor([[ 3.  6.] [ 9. 12.]], ...)
//
// Literal types follow C++: 1.f is float32, 1.0 is float64, 1 is int32,
// int64_t{1} is int64, true is bool, "a" (or a std::string) is a string
// (TensorFlow's tf.string: docs/Strings.md). Beware that `Tensor{3.f}` (braces)
// is a 1-D tensor of one element while `Tensor(3.f)` (parentheses) is a scalar.
//
// Ownership, lifetime, thread-safety: a Tensor shares ownership of its
// contents with every copy of it; the contents live as long as one handle
// does. Pointers returned by data<T>() stay valid while any handle to the
// same tensor exists. Since contents are never modified after construction,
// tensors may be read and copied from several threads concurrently.
//
//===----------------------------------------------------------------------===//

#ifndef FNC_TENSOR_H
#define FNC_TENSOR_H

#include "fnc/DType.h"
#include "fnc/Error.h"
#include "fnc/Index.h"

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <memory>
#include <ostream>
#include <string>
#include <type_traits>
#include <vector>

namespace fnc {

class TensorImpl;
namespace detail {
struct TensorAccess;
} // namespace detail

/// A dense n-dimensional array of one dtype; see the file comment.
class Tensor {
  template <typename T>
  using EnableIfElement = std::enable_if_t<IsElementType<T>::value, int>;
  template <typename S>
  using EnableIfLiteral =
      std::enable_if_t<std::is_same_v<S, const char *>, int>;

public:
  /// A null handle: any use other than assignment or destruction throws
  /// FailedPrecondition. Exists so that tensors can live in containers.
  Tensor() = default;

  /// Rank-0 tensors.
  Tensor(float value);
  Tensor(double value);
  Tensor(int32_t value);
  Tensor(int64_t value);
  /// A bool scalar (a template so that pointers do not convert to bool).
  template <typename B, std::enable_if_t<std::is_same_v<B, bool>, int> = 0>
  Tensor(B value) : Tensor(fromBool(value)) {}
  /// A string scalar: `fnc::Tensor("a")`, as tf.constant("a"). Throws
  /// InvalidArgument for a null pointer.
  Tensor(const char *value);
  Tensor(const std::string &value) {
    initFrom<std::string>({}, std::vector<std::string>{value});
  }
  /// 1-D and 2-D string tensors: `fnc::Tensor{"a", "b"}`. (Templates, as
  /// the numeric ones, so that `{{"a"}, {"b"}}` is 2-D only.)
  template <typename S, EnableIfLiteral<S> = 0>
  Tensor(std::initializer_list<S> values) {
    initFrom<std::string>(
        {static_cast<int64_t>(values.size())},
        std::vector<std::string>(values.begin(), values.end()));
  }
  template <typename S, EnableIfLiteral<S> = 0>
  Tensor(std::initializer_list<std::initializer_list<S>> values) {
    std::vector<int64_t> shape;
    auto flat = flatten2(values, shape);
    initFrom<std::string>(shape,
                          std::vector<std::string>(flat.begin(), flat.end()));
  }

  /// 1-D, 2-D and 3-D tensors from (nested) initializer lists. Throws
  /// InvalidArgument if the nesting is ragged.
  template <typename T, EnableIfElement<T> = 0>
  Tensor(std::initializer_list<T> values) {
    initFrom<T>({static_cast<int64_t>(values.size())}, flatten(values));
  }
  template <typename T, EnableIfElement<T> = 0>
  Tensor(std::initializer_list<std::initializer_list<T>> values) {
    std::vector<int64_t> shape;
    auto flat = flatten2(values, shape);
    initFrom<T>(shape, flat);
  }
  template <typename T, EnableIfElement<T> = 0>
  Tensor(std::initializer_list<std::initializer_list<std::initializer_list<T>>>
             values) {
    std::vector<int64_t> shape = {static_cast<int64_t>(values.size()), 0, 0};
    std::vector<Store<T>> flat;
    bool first = true;
    for (const auto &plane : values) {
      std::vector<int64_t> planeShape;
      auto part = flatten2(plane, planeShape);
      if (first)
        shape[1] = planeShape[0], shape[2] = planeShape[1];
      else if (planeShape[0] != shape[1] || planeShape[1] != shape[2])
        raggedError(planeShape[0] * planeShape[1], shape[1] * shape[2]);
      first = false;
      flat.insert(flat.end(), part.begin(), part.end());
    }
    initFrom<T>(shape, flat);
  }

  /// A tensor of `shape` holding `values` in row-major order. Throws
  /// InvalidArgument if the counts differ or a dim is negative.
  template <typename T, EnableIfElement<T> = 0>
  Tensor(const std::vector<T> &values, std::vector<int64_t> shape) {
    initFrom<T>(shape, std::vector<Store<T>>(values.begin(), values.end()));
  }
  /// A 1-D tensor holding `values`.
  template <typename T, EnableIfElement<T> = 0>
  explicit Tensor(const std::vector<T> &values)
      : Tensor(values, {static_cast<int64_t>(values.size())}) {}

  /// A tensor over existing row-major memory, without a copy (libtorch's
  /// from_blob). Tensors are immutable, so the memory must hold its values
  /// and must not be written while the tensor, or anything that may share
  /// its buffer, is alive: views made from it eagerly (reshape, expand_dims,
  /// squeeze), results of staged functions that return it unchanged, and
  /// staged functions that captured it from their closure. A bool tensor's
  /// elements are bytes holding 0 or 1. `data` must be aligned for the
  /// dtype (4 bytes for float32). Throws InvalidArgument for a null `data`
  /// with elements, a negative dim, or a misaligned pointer.
  ///
  /// Borrowing: the caller keeps the memory alive and unchanged.
  ///   std::vector<float> pixels = ...;
  ///   auto x = fnc::Tensor::from_blob(pixels.data(), {28, 28});
  static Tensor from_blob(const void *data, std::vector<int64_t> shape,
                          DType dtype);
  template <typename T>
  static Tensor from_blob(const T *data, std::vector<int64_t> shape) {
    static_assert(IsElementType<T>::value && !std::is_same_v<T, bool> &&
                      !std::is_same_v<T, std::string>,
                  "fnc::Tensor::from_blob: T must be float, double, int32_t "
                  "or int64_t (pass DType::i1 for bytes holding bools; "
                  "strings are copied: fnc::Tensor(std::vector<std::string>, "
                  "shape))");
    return from_blob(static_cast<const void *>(data), std::move(shape),
                     dtypeOf<T>);
  }
  /// Adopting: the tensor owns `data` and calls `deleter(data)` once, when
  /// the last tensor sharing it is gone (from any thread). Invalid
  /// arguments throw before it takes ownership (the deleter is not called).
  ///   float *p = new float[n];
  ///   auto x = fnc::Tensor::from_blob(p, {n}, fnc::DType::f32,
  ///                                   [](void *q) { delete[] (float *)q; });
  static Tensor from_blob(void *data, std::vector<int64_t> shape, DType dtype,
                          std::function<void(void *)> deleter);

  /// False for a default-constructed (null) handle.
  bool defined() const { return impl_ != nullptr; }

  /// The dims; empty for a scalar.
  const std::vector<int64_t> &shape() const;
  DType dtype() const;
  int64_t rank() const { return static_cast<int64_t>(shape().size()); }
  /// The number of elements.
  int64_t size() const;

  /// The value of a one-element tensor. Throws InvalidArgument if the tensor
  /// has more than one element or if T is not the C++ type of dtype().
  template <typename T> T item() const {
    static_assert(IsElementType<T>::value,
                  "T must be float, double, bool, int32_t, int64_t or "
                  "std::string");
    checkItem(dtypeOf<T>);
    return static_cast<const T *>(rawData(dtypeOf<T>, "item"))[0];
  }

  /// All elements in row-major order (a copy). Throws InvalidArgument if T
  /// is not the C++ type of dtype().
  template <typename T> std::vector<T> to_vector() const {
    static_assert(IsElementType<T>::value,
                  "T must be float, double, bool, int32_t, int64_t or "
                  "std::string");
    const T *p = static_cast<const T *>(rawData(dtypeOf<T>, "to_vector"));
    return std::vector<T>(p, p + size());
  }

  /// The element at `index` (one index per dim, each in [0, dim)). Throws
  /// OutOfRange for a bad index and InvalidArgument for a wrong T.
  template <typename T> T at(std::initializer_list<int64_t> index) const {
    static_assert(IsElementType<T>::value,
                  "T must be float, double, bool, int32_t, int64_t or "
                  "std::string");
    const T *p = static_cast<const T *>(rawData(dtypeOf<T>, "at"));
    return p[flatIndex(index.begin(), index.size())];
  }

  /// Pointer to the row-major elements; valid while a handle to this tensor
  /// exists. Throws InvalidArgument if T is not the C++ type of dtype().
  template <typename T> const T *data() const {
    static_assert(IsElementType<T>::value,
                  "T must be float, double, bool, int32_t, int64_t or "
                  "std::string");
    return static_cast<const T *>(rawData(dtypeOf<T>, "data"));
  }

  /// numpy's basic indexing, as libtorch's Tensor::index: one entry per
  /// dim (an integer, a Slice, Ellipsis, NewAxis; see fnc/Index.h). An op
  /// like any other: it runs eagerly or is staged, and is differentiable.
  ///
  ///   x.index({fnc::Slice(1, 3), fnc::Ellipsis, 0})  // x[1:3, ..., 0]
  ///   x.index({fnc::Slice(), fnc::NewAxis})          // x[:, None]
  ///   x.index({fnc::Slice(fnc::None, fnc::None, -1)}) // x[::-1]
  ///
  /// Throws InvalidArgument for a step of 0, two ellipses or more entries
  /// than dims, OutOfRange for an integer outside its dim.
  Tensor index(const std::vector<TensorIndex> &indices) const;

  /// `x[i]`: index() with one entry; `x[-1]` is the last element along dim
  /// 0 (numpy's x[-1]), `x[fnc::Slice(1, 3)]` rows 1 and 2.
  Tensor operator[](const TensorIndex &index) const;

  /// The printed form, as TensorFlow prints an eager tensor:
  /// `fnc.Tensor([1. 2.], shape=(2,), dtype=float32)`.
  std::string str() const;

private:
  // Bool elements are stored as bytes (0/1) while building, since
  // std::vector<bool> has no contiguous storage.
  template <typename T>
  using Store = std::conditional_t<std::is_same_v<T, bool>, unsigned char, T>;

  template <typename T>
  static std::vector<Store<T>> flatten(std::initializer_list<T> values) {
    return std::vector<Store<T>>(values.begin(), values.end());
  }
  template <typename T>
  static std::vector<Store<T>>
  flatten2(std::initializer_list<std::initializer_list<T>> rows,
           std::vector<int64_t> &shape) {
    std::vector<Store<T>> flat;
    int64_t cols = rows.size() ? static_cast<int64_t>(rows.begin()->size()) : 0;
    for (const auto &row : rows) {
      if (static_cast<int64_t>(row.size()) != cols)
        raggedError(row.size(), cols);
      flat.insert(flat.end(), row.begin(), row.end());
    }
    shape = {static_cast<int64_t>(rows.size()), cols};
    return flat;
  }
  template <typename T>
  void initFrom(const std::vector<int64_t> &shape,
                const std::vector<Store<T>> &flat) {
    init(dtypeOf<T>, shape, flat.data(), flat.size());
  }

  static Tensor fromBool(bool value);
  [[noreturn]] static void raggedError(int64_t got, int64_t expected);
  void init(DType dtype, const std::vector<int64_t> &shape, const void *data,
            size_t count);
  const TensorImpl &impl() const {
    if (!impl_)
      nullHandleError();
    return *impl_;
  }
  [[noreturn]] static void nullHandleError();
  const void *rawData(DType expected, const char *what) const;
  void checkItem(DType expected) const;
  int64_t flatIndex(const int64_t *index, size_t count) const;

  std::shared_ptr<TensorImpl> impl_;
  friend struct detail::TensorAccess;
};

/// Prints `t.str()`.
std::ostream &operator<<(std::ostream &os, const Tensor &t);

} // namespace fnc

#endif // FNC_TENSOR_H
