//===- Index.h - numpy-style indexing of fnc::Tensor ------------*- C++ -*-===//
//
// The entries of Tensor::index and Tensor::operator[], numpy's basic
// indexing written as libtorch writes it (Tensor::index):
//
//   x.index({fnc::Slice(1, 3), fnc::Ellipsis, 0})   // x[1:3, ..., 0]
//   x.index({fnc::Slice(), fnc::NewAxis})           // x[:, None]
//   x.index({fnc::Slice(fnc::None, fnc::None, -1)}) // x[::-1]
//   x.index({fnc::Slice(-3)})                       // x[-3:]
//   x.index({"...", fnc::Slice(1, -1)})             // x[..., 1:-1]
//   x[-1]                                           // x[-1]
//
// Each entry is one of:
//  - an integer i: the element i along its dim, which the result drops
//    (numpy's x[i]); negative counts from the end. Outside [-n, n) it is an
//    OutOfRange error; along a dim unknown while tracing, the call that
//    meets it fails with InvalidArgument naming the function, as every
//    run-time failure of compiled code does.
//  - Slice(start, stop, step): Python's slice. fnc::None (or leaving a
//    bound out) takes the whole dim in the step's direction; negative bounds
//    count from the end; bounds past either end clamp (x[5:] of 3 elements
//    is empty, not an error); a negative step walks backwards. A step of 0
//    is an InvalidArgument error.
//  - Ellipsis (or "..."): as many whole dims as the other entries leave; at
//    most one per index.
//  - NewAxis (or fnc::None, as numpy's None): a new dim of size 1.
// Dims after the last entry are taken whole; more integer and Slice entries
// than dims is an InvalidArgument error. fnc::strided_slice (fnc/Ops.h) is
// the same operation in TensorFlow's form, with masks.
//
// Indexing works eagerly and staged, also along dims unknown while tracing
// (their bounds are resolved at run time; the result dim is then unknown
// too, since clamping makes its size depend on the input's), and is
// differentiable (the gradient of a float result is scattered back into
// zeros of the input's shape).
//
// Thread-safety: these are plain values.
//
//===----------------------------------------------------------------------===//

#ifndef FNC_INDEX_H
#define FNC_INDEX_H

#include <cstdint>
#include <limits>
#include <optional>
#include <type_traits>

namespace fnc {

/// numpy's None: an omitted bound of a Slice, or (as an index entry) a new
/// axis. It is std::nullopt, so std::nullopt works the same.
inline constexpr std::nullopt_t None = std::nullopt;

/// The type of fnc::Ellipsis.
struct EllipsisIndex {
  explicit constexpr EllipsisIndex(int) {}
};
/// numpy's `...`: as many whole dims as the other entries leave.
inline constexpr EllipsisIndex Ellipsis{0};

/// The type of fnc::NewAxis.
struct NewAxisIndex {
  explicit constexpr NewAxisIndex(int) {}
};
/// numpy's np.newaxis: inserts a dim of size 1.
inline constexpr NewAxisIndex NewAxis{0};

/// Python's slice(start, stop, step): `Slice(1, 3)` is `1:3`, `Slice()` is
/// `:`, `Slice(None, None, -1)` is `::-1`, `Slice(-3)` is `-3:`. The step
/// defaults to 1 (also when None).
class Slice {
public:
  Slice(std::optional<int64_t> start = std::nullopt,
        std::optional<int64_t> stop = std::nullopt,
        std::optional<int64_t> step = std::nullopt)
      : start_(start), stop_(stop), step_(step.value_or(1)) {}

  const std::optional<int64_t> &start() const { return start_; }
  const std::optional<int64_t> &stop() const { return stop_; }
  int64_t step() const { return step_; }

private:
  std::optional<int64_t> start_, stop_;
  int64_t step_;
};

/// One entry of Tensor::index: an integer, a Slice, Ellipsis (or "...") or
/// NewAxis (or None); implicitly converted from each, so a braced list of
/// them reads like numpy's index.
class TensorIndex {
public:
  enum class Kind { Integer, Slice, Ellipsis, NewAxis };

  /// An integer index (any integer type but bool). An unsigned value above
  /// INT64_MAX throws OutOfRange.
  template <typename I,
            std::enable_if_t<std::is_integral_v<I> && !std::is_same_v<I, bool>,
                             int> = 0>
  TensorIndex(I index) : kind_(Kind::Integer) {
    if constexpr (std::is_unsigned_v<I> && sizeof(I) >= sizeof(int64_t))
      if (index > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
        tooLarge(index);
    integer_ = static_cast<int64_t>(index);
  }
  /// A bool is not an index (numpy would read it as a mask).
  TensorIndex(bool) = delete;
  TensorIndex(Slice slice) : kind_(Kind::Slice), slice_(slice) {}
  TensorIndex(EllipsisIndex) : kind_(Kind::Ellipsis) {}
  TensorIndex(NewAxisIndex) : kind_(Kind::NewAxis) {}
  /// numpy's None in an index: a new axis.
  TensorIndex(std::nullopt_t) : kind_(Kind::NewAxis) {}
  /// "..." (libtorch's spelling of Ellipsis); any other text throws
  /// InvalidArgument.
  TensorIndex(const char *text);

  Kind kind() const { return kind_; }
  /// The index of an Integer entry.
  int64_t integer() const { return integer_; }
  /// The slice of a Slice entry.
  const Slice &slice() const { return slice_; }

private:
  [[noreturn]] static void tooLarge(uint64_t index);

  Kind kind_;
  int64_t integer_ = 0;
  Slice slice_;
};

} // namespace fnc

#endif // FNC_INDEX_H
