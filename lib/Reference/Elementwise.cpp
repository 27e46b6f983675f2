//===- Elementwise.cpp - Reference elementwise kernels --------------------===//
//
// Binary ops with numpy broadcasting, unary ops, select and broadcast_to.
// The ops are those of the op table (FncOpTable.inc) and each element is
// computed by its scalar function (fnc/Reference/Scalar.h); one loop
// template applies it with a contiguous fast path (same shape, or a scalar
// operand) and a strided path for general broadcasting.
//
//===----------------------------------------------------------------------===//

#include "Dispatch.h"

#include <string>

namespace fnc::ref {

namespace {

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

/// The error of an element without a result (see scalar::Trap).
[[noreturn]] void trapError(const scalar::Trap &trap, BinaryOp op) {
  std::string name = std::string("fnc::") + binaryOpName(op);
  if (trap.kind == scalar::Trap::Kind::NegativeExponent)
    throw Error(ErrorKind::InvalidArgument,
                name +
                    ": integers to negative integer powers are not "
                    "allowed (exponent " +
                    std::to_string(trap.value) +
                    "); cast to a float dtype first");
  throw Error(ErrorKind::InvalidArgument,
              name + ": integer division by zero; make sure the divisor has "
                     "no zeros (e.g. fnc::select(fnc::not_equal(y, 0), ...)) "
                     "or cast both operands to a float dtype");
}

/// Runs the op F of the dtype class D on elements of type T, or reports a
/// dtype the op does not accept (a bug of the caller).
template <typename F, scalar::DTypes D, typename T>
void binaryTyped(BinaryOp op, const Array &a, const Array &b, Array &out) {
  if constexpr (!scalar::accepts<T>(D)) {
    internalError(std::string("binary op ") + binaryOpName(op) + " on dtype " +
                  dtypeName(a.dtype));
  } else {
    scalar::Trap trap;
    binaryLoop<T, T>(a, b, out,
                     [&trap](T x, T y) { return F::apply(x, y, trap); });
    if (trap)
      trapError(trap, op);
  }
}

template <typename F, scalar::DTypes D, typename T>
void compareTyped(BinaryOp op, const Array &a, const Array &b, Array &out) {
  if constexpr (!scalar::accepts<T>(D))
    internalError(std::string("comparison ") + binaryOpName(op) + " on dtype " +
                  dtypeName(a.dtype));
  else
    binaryLoop<T, bool>(a, b, out, [](T x, T y) { return F::apply(x, y); });
}

template <typename F, scalar::DTypes D, typename T>
void unaryTyped(UnaryOp op, const Array &x, Array &out) {
  if constexpr (!scalar::accepts<T>(D)) {
    internalError(std::string("unary op ") + unaryOpName(op) + " on dtype " +
                  dtypeName(x.dtype));
  } else {
    const T *px = x.data<T>();
    T *po = out.mutableData<T>();
    for (int64_t i = 0, n = out.numElements(); i < n; ++i)
      po[i] = F::apply(px[i]);
  }
}

void checkSameDType(const Array &a, const Array &b, const char *op) {
  if (a.dtype != b.dtype)
    internalError(std::string(op) + " on mixed dtypes " + dtypeName(a.dtype) +
                  " and " + dtypeName(b.dtype));
}

} // namespace

void binary(BinaryOp op, const Array &a, const Array &b, Array &out) {
  checkSameDType(a, b, binaryOpName(op));
  DType want = isComparison(op) ? DType::i1 : a.dtype;
  if (out.dtype != want || !binaryOpSupports(op, a.dtype))
    internalError(std::string("binary op ") + binaryOpName(op) +
                  " with a wrong dtype");
  dispatch(a.dtype, [&](auto tag) {
    using T = decltype(tag);
    switch (op) {
#define FNC_BINARY_OP(KIND, CLASS, API, DTYPES, ...)                           \
  case BinaryOp::KIND:                                                         \
    return binaryTyped<scalar::KIND, scalar::DTypes::DTYPES, T>(op, a, b, out);
#define FNC_COMPARE_OP(KIND, PREDICATE, API, DTYPES)                           \
  case BinaryOp::KIND:                                                         \
    return compareTyped<scalar::KIND, scalar::DTypes::DTYPES, T>(op, a, b, out);
#include "fnc/Dialect/Fnc/IR/FncOpTable.inc"
    }
  });
}

void unary(UnaryOp op, const Array &x, Array &out) {
  if (out.dtype != x.dtype || out.numElements() != x.numElements())
    internalError(std::string("unary op ") + unaryOpName(op) +
                  " with a wrong result");
  dispatch(x.dtype, [&](auto tag) {
    using T = decltype(tag);
    switch (op) {
#define FNC_UNARY_OP(KIND, CLASS, API, DTYPES, ...)                            \
  case UnaryOp::KIND:                                                          \
    return unaryTyped<scalar::KIND, scalar::DTypes::DTYPES, T>(op, x, out);
#include "fnc/Dialect/Fnc/IR/FncOpTable.inc"
    }
  });
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
