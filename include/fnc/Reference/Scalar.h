//===- Scalar.h - The scalar semantics of the elementwise ops ---*- C++ -*-===//
//
// What one element of each elementwise op of the op table computes, written
// once. The reference kernels apply these functions to arrays and the
// folders of the dialect to constants, so eager execution and constant
// folding agree bit for bit; the lowering builds the same computation in
// arith/math ops and the differential tests hold it to these functions.
//
// Each op of the table (FncOpTable.inc) has a struct here named by its kind:
//
//   unary:    template <typename T> static T apply(T x);
//   binary:   template <typename T> static T apply(T x, T y, Trap &trap);
//   compare:  template <typename T> static bool apply(T x, T y);
//
// T is the C++ type of a dtype the op accepts (its DTypes class): float,
// double, int32_t, int64_t or bool. Nothing here throws or has undefined
// behaviour: integer arithmetic wraps around (two's complement), and an
// input that has no result (an integer division by zero, an integer power
// with a negative exponent) is reported through `trap` — the first one
// wins — with 0 as the element's value.
//
// Header-only and dependency-free, so MLIR code (built without exceptions)
// and the exception-using API share it.
//
//===----------------------------------------------------------------------===//

#ifndef FNC_REFERENCE_SCALAR_H
#define FNC_REFERENCE_SCALAR_H

#include "fnc/DType.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

namespace fnc::scalar {

//===----------------------------------------------------------------------===//
// Dtype classes and traps
//===----------------------------------------------------------------------===//

/// The dtypes an op accepts (the `DTypes` column of the op table).
enum class DTypes { Float, Numeric, Bool, Any };

constexpr bool accepts(DTypes dtypes, DType dtype) {
  switch (dtypes) {
  case DTypes::Float:
    return dtype == DType::f32 || dtype == DType::f64;
  case DTypes::Numeric:
    return dtype != DType::i1 && dtype != DType::str;
  case DTypes::Bool:
    return dtype == DType::i1;
  case DTypes::Any:             // any number or bool; == and != on strings are
    return dtype != DType::str; // lib/API/Strings.cpp's
  }
  return false;
}

/// Whether the C++ element type T belongs to `dtypes`.
template <typename T> constexpr bool accepts(DTypes dtypes) {
  if constexpr (std::is_same_v<T, bool>)
    return dtypes == DTypes::Bool || dtypes == DTypes::Any;
  else if constexpr (std::is_floating_point_v<T>)
    return dtypes != DTypes::Bool;
  else
    return dtypes == DTypes::Numeric || dtypes == DTypes::Any;
}

/// An element without a result.
struct Trap {
  enum class Kind { None, DivisionByZero, NegativeExponent };
  Kind kind = Kind::None;
  int64_t value = 0; // the offending operand (the exponent)

  explicit operator bool() const { return kind != Kind::None; }
  /// Records the first trap; returns 0, the element's value.
  template <typename T> T raise(Kind k, int64_t v = 0) {
    if (kind == Kind::None) {
      kind = k;
      value = v;
    }
    return T(0);
  }
};

namespace detail {
template <typename T>
constexpr bool isInt = std::is_integral_v<T> && !std::is_same_v<T, bool>;

template <typename T> T wrapAdd(T a, T b) {
  if constexpr (isInt<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(a) + static_cast<U>(b));
  } else {
    return a + b;
  }
}
template <typename T> T wrapSub(T a, T b) {
  if constexpr (isInt<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(a) - static_cast<U>(b));
  } else {
    return a - b;
  }
}
template <typename T> T wrapMul(T a, T b) {
  if constexpr (isInt<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(a) * static_cast<U>(b));
  } else {
    return a * b;
  }
}

/// IEEE 754-2019 maximum/minimum: NaN wins, -0.0 orders below +0.0.
template <typename T> T extreme(T a, T b, bool isMax) {
  if constexpr (std::is_floating_point_v<T>) {
    if (std::isnan(a))
      return a;
    if (std::isnan(b))
      return b;
    if (a == b)
      return std::signbit(a) == isMax ? b : a;
  }
  return (a > b) == isMax ? a : b;
}
} // namespace detail

//===----------------------------------------------------------------------===//
// Binary ops
//===----------------------------------------------------------------------===//

struct Add {
  template <typename T> static T apply(T x, T y, Trap &) {
    return detail::wrapAdd(x, y);
  }
};
struct Sub {
  template <typename T> static T apply(T x, T y, Trap &) {
    return detail::wrapSub(x, y);
  }
};
struct Mul {
  template <typename T> static T apply(T x, T y, Trap &) {
    return detail::wrapMul(x, y);
  }
};
/// Integer division truncates toward zero; MIN / -1 wraps to MIN.
struct Div {
  template <typename T> static T apply(T x, T y, Trap &trap) {
    if constexpr (detail::isInt<T>) {
      if (y == 0)
        return trap.raise<T>(Trap::Kind::DivisionByZero);
      if (y == -1)
        return detail::wrapSub<T>(0, x);
      return x / y;
    } else {
      return x / y;
    }
  }
};
/// Integer powers by squaring, wrapping; a negative exponent traps. A float
/// to the power 2 is x * x (the correctly rounded square, as the staged
/// pow(x, 2) -> x * x canonicalization computes it).
struct Pow {
  template <typename T> static T apply(T x, T y, Trap &trap) {
    if constexpr (detail::isInt<T>) {
      if (y < 0)
        return trap.raise<T>(Trap::Kind::NegativeExponent, y);
      T result = 1;
      for (; y > 0; y >>= 1) {
        if (y & 1)
          result = detail::wrapMul(result, x);
        x = detail::wrapMul(x, x);
      }
      return result;
    } else {
      if (y == T(2))
        return x * x;
      return std::pow(x, y);
    }
  }
};
struct Maximum {
  template <typename T> static T apply(T x, T y, Trap &) {
    return detail::extreme(x, y, true);
  }
};
struct Minimum {
  template <typename T> static T apply(T x, T y, Trap &) {
    return detail::extreme(x, y, false);
  }
};
/// The remainder with the sign of the divisor (Python's %); for floats a
/// zero remainder takes the divisor's sign too.
struct FloorMod {
  template <typename T> static T apply(T x, T y, Trap &trap) {
    if constexpr (detail::isInt<T>) {
      if (y == 0)
        return trap.raise<T>(Trap::Kind::DivisionByZero);
      if (y == -1)
        return 0;
      T r = x % y;
      return r != 0 && ((r < 0) != (y < 0)) ? T(r + y) : r;
    } else {
      T r = std::fmod(x, y);
      if (r != 0 && ((r < 0) != (y < 0)))
        r += y;
      return r == 0 ? std::copysign(T(0), y) : r;
    }
  }
};
/// Division rounding toward -inf (Python's //); MIN // -1 wraps.
struct FloorDiv {
  template <typename T> static T apply(T x, T y, Trap &trap) {
    if constexpr (detail::isInt<T>) {
      if (y == 0)
        return trap.raise<T>(Trap::Kind::DivisionByZero);
      if (y == -1)
        return detail::wrapSub<T>(0, x);
      T q = x / y;
      return x % y != 0 && ((x < 0) != (y < 0)) ? T(q - 1) : q;
    } else {
      return std::floor(x / y);
    }
  }
};
struct Atan2 {
  template <typename T> static T apply(T y, T x, Trap &) {
    return std::atan2(y, x);
  }
};
struct LogicalAnd {
  template <typename T> static T apply(T x, T y, Trap &) { return x && y; }
};
struct LogicalOr {
  template <typename T> static T apply(T x, T y, Trap &) { return x || y; }
};

//===----------------------------------------------------------------------===//
// Comparisons (false with a NaN operand, except NotEqual)
//===----------------------------------------------------------------------===//

struct Equal {
  template <typename T> static bool apply(T x, T y) { return x == y; }
};
struct NotEqual {
  template <typename T> static bool apply(T x, T y) { return x != y; }
};
struct Less {
  template <typename T> static bool apply(T x, T y) { return x < y; }
};
struct LessEqual {
  template <typename T> static bool apply(T x, T y) { return x <= y; }
};
struct Greater {
  template <typename T> static bool apply(T x, T y) { return x > y; }
};
struct GreaterEqual {
  template <typename T> static bool apply(T x, T y) { return x >= y; }
};

//===----------------------------------------------------------------------===//
// Unary ops
//===----------------------------------------------------------------------===//

/// Integers wrap (-MIN is MIN); floats flip the sign bit, so -(+0.0) is -0.0
/// (0.0 - x would give +0.0).
struct Neg {
  template <typename T> static T apply(T x) {
    if constexpr (detail::isInt<T>)
      return detail::wrapSub<T>(0, x);
    else
      return -x;
  }
};
struct Abs {
  template <typename T> static T apply(T x) {
    if constexpr (detail::isInt<T>)
      return x < 0 ? detail::wrapSub<T>(0, x) : x;
    else
      return std::fabs(x);
  }
};
struct Exp {
  template <typename T> static T apply(T x) { return std::exp(x); }
};
struct Log {
  template <typename T> static T apply(T x) { return std::log(x); }
};
struct Sqrt {
  template <typename T> static T apply(T x) { return std::sqrt(x); }
};
struct Rsqrt {
  template <typename T> static T apply(T x) { return T(1) / std::sqrt(x); }
};
struct Tanh {
  template <typename T> static T apply(T x) { return std::tanh(x); }
};
struct Sigmoid {
  template <typename T> static T apply(T x) {
    return T(1) / (T(1) + std::exp(-x));
  }
};
/// max(x, 0); NaN stays NaN and -0.0 becomes +0.0.
struct Relu {
  template <typename T> static T apply(T x) {
    return detail::extreme(x, T(0), true);
  }
};
struct Square {
  template <typename T> static T apply(T x) { return detail::wrapMul(x, x); }
};
/// -1, 0 or 1; NaN and signed zeros are returned as they are.
struct Sign {
  template <typename T> static T apply(T x) {
    return x > 0 ? T(1) : x < 0 ? T(-1) : x;
  }
};
struct Floor {
  template <typename T> static T apply(T x) { return std::floor(x); }
};
struct Ceil {
  template <typename T> static T apply(T x) { return std::ceil(x); }
};
/// Round half to even, independent of the floating-point rounding mode.
struct Round {
  template <typename T> static T apply(T x) {
    T r = std::round(x); // half away from zero
    if (std::fabs(x - std::trunc(x)) == T(0.5))
      r = T(2) * std::round(x / T(2));
    return r;
  }
};
struct Sin {
  template <typename T> static T apply(T x) { return std::sin(x); }
};
struct Cos {
  template <typename T> static T apply(T x) { return std::cos(x); }
};
struct Tan {
  template <typename T> static T apply(T x) { return std::tan(x); }
};
struct Erf {
  template <typename T> static T apply(T x) { return std::erf(x); }
};
struct Log1p {
  template <typename T> static T apply(T x) { return std::log1p(x); }
};
struct Expm1 {
  template <typename T> static T apply(T x) { return std::expm1(x); }
};
/// log(1 + e^x) as max(x, 0) + log1p(e^-|x|): no overflow for large x, no
/// loss for very negative x. NaN stays NaN.
struct Softplus {
  template <typename T> static T apply(T x) {
    return detail::extreme(x, T(0), true) + std::log1p(std::exp(-std::fabs(x)));
  }
};
struct LogicalNot {
  template <typename T> static T apply(T x) { return !x; }
};

//===----------------------------------------------------------------------===//
// Conversions (fnc.cast)
//===----------------------------------------------------------------------===//

/// One element converted to `To`: a number to bool is `v != 0`, bool to a
/// number 0 or 1, float to integer truncates toward zero. A float outside
/// the integer's range saturates and NaN gives 0, in compiled code too.
template <typename To, typename From> To convert(From v) {
  if constexpr (std::is_same_v<To, bool>) {
    return v != From(0);
  } else if constexpr (std::is_integral_v<To> &&
                       std::is_floating_point_v<From>) {
    if (std::isnan(v))
      return 0;
    if (v <= static_cast<From>(std::numeric_limits<To>::lowest()))
      return std::numeric_limits<To>::lowest();
    if (v >= static_cast<From>(std::numeric_limits<To>::max()))
      return std::numeric_limits<To>::max();
    return static_cast<To>(v);
  } else if constexpr (detail::isInt<To> && detail::isInt<From> &&
                       sizeof(To) < sizeof(From)) {
    // Narrowing keeps the low bits (two's complement).
    using U = std::make_unsigned_t<To>;
    return static_cast<To>(static_cast<U>(v));
  } else {
    return static_cast<To>(v);
  }
}

} // namespace fnc::scalar

#endif // FNC_REFERENCE_SCALAR_H
