//===- Reduction.cpp - Reference reduction kernels ------------------------===//
//
// reduce_{sum,mean,max,min,prod,any,all}, argmax/argmin and (log_)softmax.
//
// Reductions accumulate into an array of the result's size: the input is
// walked row by row (innermost dim); a row whose elements all land in one
// result element (the innermost dim is reduced) is folded with a
// multi-accumulator loop that the compiler vectorizes, other rows are added
// elementwise into a row of accumulators.
//
//===----------------------------------------------------------------------===//

#include "Dispatch.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace fnc::ref {

namespace {

template <typename T>
constexpr bool isInt = std::is_integral_v<T> && !std::is_same_v<T, bool>;

template <typename T> T wrapAdd(T a, T b) {
  using U = std::make_unsigned_t<T>;
  return static_cast<T>(static_cast<U>(a) + static_cast<U>(b));
}
template <typename T> T wrapMul(T a, T b) {
  using U = std::make_unsigned_t<T>;
  return static_cast<T>(static_cast<U>(a) * static_cast<U>(b));
}

// The accumulation rule of one reduction over element type T: the
// accumulator type, its identity, combining one element, combining two
// partial results and finishing.
template <ReduceOp Op, typename T> struct Reducer;

template <typename T> struct SumLike {
  using Acc = std::conditional_t<std::is_floating_point_v<T>, double, T>;
  static Acc identity() { return Acc(0); }
  static Acc combine(Acc a, Acc b) {
    if constexpr (isInt<Acc>)
      return wrapAdd(a, b);
    else
      return a + b;
  }
};
template <typename T> struct Reducer<ReduceOp::Sum, T> : SumLike<T> {};
template <typename T> struct Reducer<ReduceOp::Mean, T> : SumLike<T> {};

template <typename T> struct Reducer<ReduceOp::Prod, T> {
  using Acc = std::conditional_t<std::is_floating_point_v<T>, double, T>;
  static Acc identity() { return Acc(1); }
  static Acc combine(Acc a, Acc b) {
    if constexpr (isInt<Acc>)
      return wrapMul(a, b);
    else
      return a * b;
  }
};

template <typename T> struct Reducer<ReduceOp::Max, T> {
  using Acc = T;
  static Acc identity() {
    if constexpr (std::is_floating_point_v<T>)
      return -std::numeric_limits<T>::infinity();
    else
      return std::numeric_limits<T>::lowest();
  }
  static Acc combine(Acc a, Acc b) {
    if constexpr (std::is_floating_point_v<T>) {
      if (std::isnan(b))
        return b;
      // As maximum: -0.0 below +0.0, whatever their order.
      if (a == b)
        return std::signbit(a) ? b : a;
    }
    return a > b || a != a ? a : b;
  }
};

template <typename T> struct Reducer<ReduceOp::Min, T> {
  using Acc = T;
  static Acc identity() {
    if constexpr (std::is_floating_point_v<T>)
      return std::numeric_limits<T>::infinity();
    else
      return std::numeric_limits<T>::max();
  }
  static Acc combine(Acc a, Acc b) {
    if constexpr (std::is_floating_point_v<T>) {
      if (std::isnan(b))
        return b;
      // As minimum: -0.0 below +0.0, whatever their order.
      if (a == b)
        return std::signbit(a) ? a : b;
    }
    return a < b || a != a ? a : b;
  }
};

template <typename T> struct Reducer<ReduceOp::Any, T> {
  using Acc = bool;
  static Acc identity() { return false; }
  static Acc combine(Acc a, Acc b) { return a || b; }
};
template <typename T> struct Reducer<ReduceOp::All, T> {
  using Acc = bool;
  static Acc identity() { return true; }
  static Acc combine(Acc a, Acc b) { return a && b; }
};

// Folds a contiguous row with 8 independent accumulators (vectorizable).
template <typename R, typename T>
typename R::Acc foldRow(const T *p, int64_t len) {
  using Acc = typename R::Acc;
  constexpr int kLanes = 8;
  Acc lanes[kLanes];
  for (Acc &l : lanes)
    l = R::identity();
  int64_t j = 0;
  for (; j + kLanes <= len; j += kLanes)
    for (int k = 0; k < kLanes; ++k)
      lanes[k] = R::combine(lanes[k], static_cast<Acc>(p[j + k]));
  Acc acc = R::identity();
  for (int k = 0; k < kLanes; ++k)
    acc = R::combine(acc, lanes[k]);
  for (; j < len; ++j)
    acc = R::combine(acc, static_cast<Acc>(p[j]));
  return acc;
}

template <ReduceOp Op, typename T>
void reduceTyped(const Array &x, const std::vector<int64_t> &axes, Array &out) {
  using R = Reducer<Op, T>;
  using Acc = typename R::Acc;
  int64_t outCount = out.numElements();
  // Not std::vector: vector<bool> has no data().
  std::unique_ptr<Acc[]> acc(new Acc[outCount > 0 ? outCount : 1]);
  std::fill(acc.get(), acc.get() + outCount, R::identity());

  // Strides of the result in the input's index space (0 on reduced dims).
  Shape keptShape = x.shape;
  for (int64_t a : axes)
    keptShape[a] = 1;
  Shape outStrides = broadcastStrides(keptShape, x.shape);
  int64_t innerStride = outStrides.empty() ? 0 : outStrides.back();
  const T *px = x.data<T>();
  forEachRow<1>(
      x.shape, {&outStrides},
      [&](int64_t in, const std::array<int64_t, 1> &off, int64_t len) {
        if (innerStride == 0) {
          acc[off[0]] = R::combine(acc[off[0]], foldRow<R>(px + in, len));
          return;
        }
        Acc *row = acc.get() + off[0];
        for (int64_t j = 0; j < len; ++j)
          row[j] = R::combine(row[j], static_cast<Acc>(px[in + j]));
      });

  int64_t count = 1;
  for (int64_t a : axes)
    count *= x.shape[a];
  using Out =
      std::conditional_t<Op == ReduceOp::Any || Op == ReduceOp::All, bool, T>;
  Out *po = out.mutableData<Out>();
  for (int64_t i = 0; i < outCount; ++i) {
    if constexpr (Op == ReduceOp::Mean) {
      if constexpr (std::is_floating_point_v<T>)
        po[i] = static_cast<T>(acc[i] / static_cast<double>(count));
      else
        po[i] = count == 0 ? T(0) : static_cast<T>(acc[i] / count);
    } else {
      po[i] = static_cast<Out>(acc[i]);
    }
  }
}

template <ReduceOp Op>
void reduceAny(const Array &x, const std::vector<int64_t> &axes, Array &out) {
  dispatch(x.dtype, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_same_v<T, bool> !=
                  (Op == ReduceOp::Any || Op == ReduceOp::All))
      internalError(std::string("reduction ") + reduceOpName(Op) +
                    " on dtype " + dtypeName(x.dtype));
    else
      reduceTyped<Op, T>(x, axes, out);
  });
}

} // namespace

const char *reduceOpName(ReduceOp op) {
  switch (op) {
#define FNC_REDUCE_OP(KIND, CLASS, API, ...)                                   \
  case ReduceOp::KIND:                                                         \
    return #API;
#include "fnc/Dialect/Fnc/IR/FncOpTable.inc"
  case ReduceOp::Any:
    return "reduce_any";
  case ReduceOp::All:
    return "reduce_all";
  }
  return "?";
}

scalar::DTypes reduceOpDTypes(ReduceOp op) {
  switch (op) {
#define FNC_REDUCE_OP(KIND, CLASS, API, DTYPES, ...)                           \
  case ReduceOp::KIND:                                                         \
    return scalar::DTypes::DTYPES;
#include "fnc/Dialect/Fnc/IR/FncOpTable.inc"
  case ReduceOp::Any:
  case ReduceOp::All:
    return scalar::DTypes::Bool;
  }
  return scalar::DTypes::Any;
}

void reduce(ReduceOp op, const Array &x, const std::vector<int64_t> &axes,
            Array &out) {
  DType want = op == ReduceOp::Any || op == ReduceOp::All ? DType::i1 : x.dtype;
  if (out.dtype != want)
    internalError("reduction with a wrong result dtype");
  for (size_t i = 0; i < axes.size(); ++i)
    if (axes[i] < 0 || axes[i] >= x.rank() || (i && axes[i] <= axes[i - 1]))
      internalError("reduction axes not normalized and sorted");
  switch (op) {
  case ReduceOp::Sum:
    return reduceAny<ReduceOp::Sum>(x, axes, out);
  case ReduceOp::Mean:
    return reduceAny<ReduceOp::Mean>(x, axes, out);
  case ReduceOp::Max:
    return reduceAny<ReduceOp::Max>(x, axes, out);
  case ReduceOp::Min:
    return reduceAny<ReduceOp::Min>(x, axes, out);
  case ReduceOp::Prod:
    return reduceAny<ReduceOp::Prod>(x, axes, out);
  case ReduceOp::Any:
    return reduceAny<ReduceOp::Any>(x, axes, out);
  case ReduceOp::All:
    return reduceAny<ReduceOp::All>(x, axes, out);
  }
}

void argExtreme(bool isMax, const Array &x, int64_t axis, Array &out) {
  if (axis < 0 || axis >= x.rank())
    internalError("arg reduction axis out of range");
  int64_t outer, size, inner;
  splitAt(x.shape, axis, outer, size, inner);
  const char *name = isMax ? "argmax" : "argmin";
  if (size == 0 && outer * inner != 0)
    throw Error(ErrorKind::InvalidArgument,
                std::string("fnc::") + name + ": axis " + std::to_string(axis) +
                    " is empty, so there is no extreme element; reduce "
                    "along a non-empty axis");
  dispatch(x.dtype, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_same_v<T, bool>) {
      internalError("arg reduction on bool");
    } else {
      const T *px = x.data<T>();
      for (int64_t o = 0; o < outer; ++o) {
        for (int64_t i = 0; i < inner; ++i) {
          const T *p = px + o * size * inner + i;
          int64_t best = 0;
          T bestValue = p[0];
          for (int64_t r = 1; r < size; ++r) {
            T v = p[r * inner];
            if (bestValue != bestValue) // NaN wins, first one.
              break;
            bool better = isMax ? v > bestValue : v < bestValue;
            if (better || v != v) {
              best = r;
              bestValue = v;
            }
          }
          int64_t at = o * inner + i;
          if (out.dtype == DType::i32)
            out.mutableData<int32_t>()[at] = static_cast<int32_t>(best);
          else
            out.mutableData<int64_t>()[at] = best;
        }
      }
    }
  });
}

void softmax(const Array &x, int64_t axis, bool log, Array &out) {
  if (!isFloat(x.dtype) || out.dtype != x.dtype)
    internalError("softmax on a non-float dtype");
  int64_t outer, size, inner;
  splitAt(x.shape, axis, outer, size, inner);
  dispatch(x.dtype, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_floating_point_v<T>) {
      const T *px = x.data<T>();
      T *po = out.mutableData<T>();
      for (int64_t o = 0; o < outer; ++o) {
        for (int64_t i = 0; i < inner; ++i) {
          int64_t base = o * size * inner + i;
          T maxValue = -std::numeric_limits<T>::infinity();
          for (int64_t r = 0; r < size; ++r) {
            T v = px[base + r * inner];
            if (v > maxValue || v != v)
              maxValue = v;
          }
          // As TensorFlow: no special case for an infinite maximum, so a
          // row holding +inf, or only -inf, is all NaN (inf - inf).
          double sum = 0;
          for (int64_t r = 0; r < size; ++r)
            sum +=
                std::exp(static_cast<double>(px[base + r * inner] - maxValue));
          for (int64_t r = 0; r < size; ++r) {
            T shifted = px[base + r * inner] - maxValue;
            po[base + r * inner] =
                log ? static_cast<T>(shifted - std::log(sum))
                    : static_cast<T>(std::exp(static_cast<double>(shifted)) /
                                     sum);
          }
        }
      }
    }
  });
}

} // namespace fnc::ref
