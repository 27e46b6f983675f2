//===- Elementwise.cpp - Reference elementwise kernels --------------------===//
//
// Binary ops with numpy broadcasting, unary ops, select and broadcast_to.
// Each op is a small lambda; one loop template applies it with a contiguous
// fast path (same shape, or a scalar operand) and a strided path for general
// broadcasting.
//
//===----------------------------------------------------------------------===//

#include "Dispatch.h"

#include <cmath>
#include <limits>
#include <type_traits>

namespace fnc::ref {

namespace {

template <typename T>
constexpr bool isInt = std::is_integral_v<T> && !std::is_same_v<T, bool>;

// Integer arithmetic that wraps around (two's complement) instead of being
// undefined behaviour on overflow; plain arithmetic for floats.
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

[[noreturn]] void divisionByZero(const char *op) {
  throw Error(ErrorKind::InvalidArgument,
              std::string("fnc::") + op +
                  ": integer division by zero; make sure the divisor has no "
                  "zeros (e.g. fnc::select(fnc::not_equal(y, 0), ...)) or "
                  "cast both operands to a float dtype");
}

// Integer division truncating toward zero; INT_MIN / -1 wraps.
template <typename T> T truncDiv(T a, T b, const char *op) {
  if (b == 0)
    divisionByZero(op);
  if (b == -1)
    return wrapSub<T>(0, a);
  return a / b;
}

// Integer division rounding toward -inf (Python's //).
template <typename T> T intFloorDiv(T a, T b) {
  if (b == 0)
    divisionByZero("floor_div");
  if (b == -1)
    return wrapSub<T>(0, a);
  T q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0)))
    --q;
  return q;
}

// Integer modulo with the sign of the divisor (Python's %).
template <typename T> T intFloorMod(T a, T b) {
  if (b == 0)
    divisionByZero("floor_mod");
  if (b == -1)
    return 0;
  T r = a % b;
  if (r != 0 && ((r < 0) != (b < 0)))
    r += b;
  return r;
}

template <typename T> T intPow(T base, T exp) {
  if (exp < 0)
    throw Error(ErrorKind::InvalidArgument,
                "fnc::pow: integers to negative integer powers are not "
                "allowed (exponent " +
                    std::to_string(exp) + "); cast to a float dtype first");
  T result = 1;
  while (exp > 0) {
    if (exp & 1)
      result = wrapMul(result, base);
    base = wrapMul(base, base);
    exp >>= 1;
  }
  return result;
}

/// Python's float %: the result has the sign of the divisor, zero included.
template <typename T> T floatFloorMod(T a, T b) {
  T r = std::fmod(a, b);
  if (r != 0 && ((r < 0) != (b < 0)))
    r += b;
  if (r == 0)
    r = std::copysign(T(0), b);
  return r;
}

template <typename T> T maxOf(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    if (std::isnan(a))
      return a;
    if (std::isnan(b))
      return b;
  }
  return a > b ? a : b;
}
template <typename T> T minOf(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    if (std::isnan(a))
      return a;
    if (std::isnan(b))
      return b;
  }
  return a < b ? a : b;
}

// Applies f elementwise with broadcasting; see the file banner.
template <typename T, typename R, typename F>
void binaryLoop(const Array &a, const Array &b, Array &out, F f) {
  const T *pa = a.data<T>();
  const T *pb = b.data<T>();
  R *po = out.mutableData<R>();
  int64_t n = out.numElements();
  bool aFull = a.shape == out.shape, bFull = b.shape == out.shape;
  if (aFull && bFull) {
    for (int64_t i = 0; i < n; ++i)
      po[i] = f(pa[i], pb[i]);
    return;
  }
  if (aFull && b.numElements() == 1) {
    T y = pb[0];
    for (int64_t i = 0; i < n; ++i)
      po[i] = f(pa[i], y);
    return;
  }
  if (bFull && a.numElements() == 1) {
    T x = pa[0];
    for (int64_t i = 0; i < n; ++i)
      po[i] = f(x, pb[i]);
    return;
  }
  Shape sa = broadcastStrides(a.shape, out.shape);
  Shape sb = broadcastStrides(b.shape, out.shape);
  int64_t ia = sa.empty() ? 0 : sa.back(), ib = sb.empty() ? 0 : sb.back();
  forEachRow<2>(out.shape, {&sa, &sb},
                [&](int64_t o, const std::array<int64_t, 2> &off, int64_t len) {
                  const T *ra = pa + off[0];
                  const T *rb = pb + off[1];
                  R *ro = po + o;
                  if (ia == 1 && ib == 1) {
                    for (int64_t j = 0; j < len; ++j)
                      ro[j] = f(ra[j], rb[j]);
                  } else if (ia == 1) {
                    T y = *rb;
                    for (int64_t j = 0; j < len; ++j)
                      ro[j] = f(ra[j], y);
                  } else if (ib == 1) {
                    T x = *ra;
                    for (int64_t j = 0; j < len; ++j)
                      ro[j] = f(x, rb[j]);
                  } else {
                    for (int64_t j = 0; j < len; ++j)
                      ro[j] = f(ra[j * ia], rb[j * ib]);
                  }
                });
}

template <typename T>
void binaryTyped(BinaryOp op, const Array &a, const Array &b, Array &out) {
  auto arith = [&](auto f) { binaryLoop<T, T>(a, b, out, f); };
  auto compare = [&](auto f) { binaryLoop<T, bool>(a, b, out, f); };
  switch (op) {
  case BinaryOp::Equal:
    return compare([](T x, T y) { return x == y; });
  case BinaryOp::NotEqual:
    return compare([](T x, T y) { return x != y; });
  case BinaryOp::Less:
    return compare([](T x, T y) { return x < y; });
  case BinaryOp::LessEqual:
    return compare([](T x, T y) { return x <= y; });
  case BinaryOp::Greater:
    return compare([](T x, T y) { return x > y; });
  case BinaryOp::GreaterEqual:
    return compare([](T x, T y) { return x >= y; });
  default:
    break;
  }
  if constexpr (std::is_same_v<T, bool>) {
    if (op == BinaryOp::LogicalAnd)
      return arith([](bool x, bool y) { return x && y; });
    if (op == BinaryOp::LogicalOr)
      return arith([](bool x, bool y) { return x || y; });
  } else {
    switch (op) {
    case BinaryOp::Add:
      return arith([](T x, T y) { return wrapAdd(x, y); });
    case BinaryOp::Sub:
      return arith([](T x, T y) { return wrapSub(x, y); });
    case BinaryOp::Mul:
      return arith([](T x, T y) { return wrapMul(x, y); });
    case BinaryOp::Div:
      if constexpr (isInt<T>)
        return arith([](T x, T y) { return truncDiv(x, y, "div"); });
      else
        return arith([](T x, T y) { return x / y; });
    case BinaryOp::Pow:
      if constexpr (isInt<T>)
        return arith([](T x, T y) { return intPow(x, y); });
      else
        return arith([](T x, T y) { return static_cast<T>(std::pow(x, y)); });
    case BinaryOp::Maximum:
      return arith([](T x, T y) { return maxOf(x, y); });
    case BinaryOp::Minimum:
      return arith([](T x, T y) { return minOf(x, y); });
    case BinaryOp::FloorMod:
      if constexpr (isInt<T>)
        return arith([](T x, T y) { return intFloorMod(x, y); });
      else
        return arith([](T x, T y) { return floatFloorMod(x, y); });
    case BinaryOp::FloorDiv:
      if constexpr (isInt<T>)
        return arith([](T x, T y) { return intFloorDiv(x, y); });
      else
        return arith([](T x, T y) { return std::floor(x / y); });
    default:
      break;
    }
  }
  internalError(std::string("binary op ") + binaryOpName(op) + " on dtype " +
                dtypeName(a.dtype));
}

template <typename T, typename F>
void unaryLoop(const Array &x, Array &out, F f) {
  const T *px = x.data<T>();
  T *po = out.mutableData<T>();
  int64_t n = out.numElements();
  for (int64_t i = 0; i < n; ++i)
    po[i] = f(px[i]);
}

template <typename T> void unaryTyped(UnaryOp op, const Array &x, Array &out) {
  auto run = [&](auto f) { unaryLoop<T>(x, out, f); };
  if constexpr (std::is_same_v<T, bool>) {
    if (op == UnaryOp::LogicalNot)
      return run([](bool v) { return !v; });
  } else {
    switch (op) {
    case UnaryOp::Neg:
      return run([](T v) { return wrapSub<T>(0, v); });
    case UnaryOp::Abs:
      return run([](T v) { return v < 0 ? wrapSub<T>(0, v) : v; });
    case UnaryOp::Relu:
      if constexpr (std::is_floating_point_v<T>)
        return run([](T v) { return std::isnan(v) ? v : (v > 0 ? v : T(0)); });
      else
        return run([](T v) { return v > 0 ? v : T(0); });
    case UnaryOp::Square:
      return run([](T v) { return wrapMul(v, v); });
    case UnaryOp::Sign:
      if constexpr (std::is_floating_point_v<T>)
        return run([](T v) {
          return std::isnan(v) ? v : static_cast<T>((v > 0) - (v < 0));
        });
      else
        return run([](T v) { return static_cast<T>((v > 0) - (v < 0)); });
    default:
      break;
    }
    if constexpr (std::is_floating_point_v<T>) {
      switch (op) {
      case UnaryOp::Exp:
        return run([](T v) { return std::exp(v); });
      case UnaryOp::Log:
        return run([](T v) { return std::log(v); });
      case UnaryOp::Sqrt:
        return run([](T v) { return std::sqrt(v); });
      case UnaryOp::Rsqrt:
        return run([](T v) { return T(1) / std::sqrt(v); });
      case UnaryOp::Tanh:
        return run([](T v) { return std::tanh(v); });
      case UnaryOp::Sigmoid:
        return run([](T v) { return T(1) / (T(1) + std::exp(-v)); });
      case UnaryOp::Floor:
        return run([](T v) { return std::floor(v); });
      case UnaryOp::Ceil:
        return run([](T v) { return std::ceil(v); });
      default:
        break;
      }
    }
  }
  internalError(std::string("unary op ") + unaryOpName(op) + " on dtype " +
                dtypeName(x.dtype));
}

void checkSameDType(const Array &a, const Array &b, const char *op) {
  if (a.dtype != b.dtype)
    internalError(std::string(op) + " on mixed dtypes " + dtypeName(a.dtype) +
                  " and " + dtypeName(b.dtype));
}

} // namespace

const char *binaryOpName(BinaryOp op) {
  switch (op) {
  case BinaryOp::Add:
    return "add";
  case BinaryOp::Sub:
    return "sub";
  case BinaryOp::Mul:
    return "mul";
  case BinaryOp::Div:
    return "div";
  case BinaryOp::Pow:
    return "pow";
  case BinaryOp::Maximum:
    return "maximum";
  case BinaryOp::Minimum:
    return "minimum";
  case BinaryOp::FloorMod:
    return "floor_mod";
  case BinaryOp::FloorDiv:
    return "floor_div";
  case BinaryOp::Equal:
    return "equal";
  case BinaryOp::NotEqual:
    return "not_equal";
  case BinaryOp::Less:
    return "less";
  case BinaryOp::LessEqual:
    return "less_equal";
  case BinaryOp::Greater:
    return "greater";
  case BinaryOp::GreaterEqual:
    return "greater_equal";
  case BinaryOp::LogicalAnd:
    return "logical_and";
  case BinaryOp::LogicalOr:
    return "logical_or";
  }
  return "?";
}

bool isComparison(BinaryOp op) {
  switch (op) {
  case BinaryOp::Equal:
  case BinaryOp::NotEqual:
  case BinaryOp::Less:
  case BinaryOp::LessEqual:
  case BinaryOp::Greater:
  case BinaryOp::GreaterEqual:
    return true;
  default:
    return false;
  }
}

bool binaryOpSupports(BinaryOp op, DType dtype) {
  switch (op) {
  case BinaryOp::LogicalAnd:
  case BinaryOp::LogicalOr:
    return dtype == DType::i1;
  case BinaryOp::Equal:
  case BinaryOp::NotEqual:
    return true;
  default:
    return dtype != DType::i1;
  }
}

void binary(BinaryOp op, const Array &a, const Array &b, Array &out) {
  checkSameDType(a, b, binaryOpName(op));
  DType want = isComparison(op) ? DType::i1 : a.dtype;
  if (out.dtype != want || !binaryOpSupports(op, a.dtype))
    internalError(std::string("binary op ") + binaryOpName(op) +
                  " with a wrong dtype");
  dispatch(a.dtype,
           [&](auto tag) { binaryTyped<decltype(tag)>(op, a, b, out); });
}

const char *unaryOpName(UnaryOp op) {
  switch (op) {
  case UnaryOp::Neg:
    return "neg";
  case UnaryOp::Abs:
    return "abs";
  case UnaryOp::Exp:
    return "exp";
  case UnaryOp::Log:
    return "log";
  case UnaryOp::Sqrt:
    return "sqrt";
  case UnaryOp::Rsqrt:
    return "rsqrt";
  case UnaryOp::Tanh:
    return "tanh";
  case UnaryOp::Sigmoid:
    return "sigmoid";
  case UnaryOp::Relu:
    return "relu";
  case UnaryOp::Square:
    return "square";
  case UnaryOp::Sign:
    return "sign";
  case UnaryOp::Floor:
    return "floor";
  case UnaryOp::Ceil:
    return "ceil";
  case UnaryOp::LogicalNot:
    return "logical_not";
  }
  return "?";
}

bool unaryOpSupports(UnaryOp op, DType dtype) {
  switch (op) {
  case UnaryOp::LogicalNot:
    return dtype == DType::i1;
  case UnaryOp::Neg:
  case UnaryOp::Abs:
  case UnaryOp::Relu:
  case UnaryOp::Square:
  case UnaryOp::Sign:
    return dtype != DType::i1;
  default:
    return isFloat(dtype);
  }
}

void unary(UnaryOp op, const Array &x, Array &out) {
  if (out.dtype != x.dtype || out.numElements() != x.numElements())
    internalError(std::string("unary op ") + unaryOpName(op) +
                  " with a wrong result");
  dispatch(x.dtype, [&](auto tag) { unaryTyped<decltype(tag)>(op, x, out); });
}

void select(const Array &cond, const Array &a, const Array &b, Array &out) {
  checkSameDType(a, b, "select");
  if (cond.dtype != DType::i1 || out.dtype != a.dtype)
    internalError("select with wrong dtypes");
  dispatch(a.dtype, [&](auto tag) {
    using T = decltype(tag);
    const bool *pc = cond.data<bool>();
    const T *pa = a.data<T>();
    const T *pb = b.data<T>();
    T *po = out.mutableData<T>();
    if (cond.shape == out.shape && a.shape == out.shape &&
        b.shape == out.shape) {
      for (int64_t i = 0, n = out.numElements(); i < n; ++i)
        po[i] = pc[i] ? pa[i] : pb[i];
      return;
    }
    Shape sc = broadcastStrides(cond.shape, out.shape);
    Shape sa = broadcastStrides(a.shape, out.shape);
    Shape sb = broadcastStrides(b.shape, out.shape);
    int64_t ic = sc.empty() ? 0 : sc.back();
    int64_t ia = sa.empty() ? 0 : sa.back();
    int64_t ib = sb.empty() ? 0 : sb.back();
    forEachRow<3>(
        out.shape, {&sc, &sa, &sb},
        [&](int64_t o, const std::array<int64_t, 3> &off, int64_t len) {
          for (int64_t j = 0; j < len; ++j)
            po[o + j] =
                pc[off[0] + j * ic] ? pa[off[1] + j * ia] : pb[off[2] + j * ib];
        });
  });
}

void broadcastTo(const Array &x, Array &out) {
  if (x.dtype != out.dtype)
    internalError("broadcast_to with a dtype change");
  dispatch(x.dtype, [&](auto tag) {
    using T = decltype(tag);
    const T *px = x.data<T>();
    T *po = out.mutableData<T>();
    int64_t n = out.numElements();
    if (x.numElements() == 1) {
      T v = px[0];
      for (int64_t i = 0; i < n; ++i)
        po[i] = v;
      return;
    }
    Shape sx = broadcastStrides(x.shape, out.shape);
    int64_t ix = sx.empty() ? 0 : sx.back();
    forEachRow<1>(
        out.shape, {&sx},
        [&](int64_t o, const std::array<int64_t, 1> &off, int64_t len) {
          for (int64_t j = 0; j < len; ++j)
            po[o + j] = px[off[0] + j * ix];
        });
  });
}

} // namespace fnc::ref
