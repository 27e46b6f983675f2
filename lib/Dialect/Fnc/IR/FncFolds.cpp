//===- FncFolds.cpp - Folders and canonicalizations of fnc ops ------------===//
//
// Constant folding of elementwise ops on small (or splat) constants, the
// algebraic identities that are exact (x + 0 and x * 0 for integers, x - 0,
// x * 1, x / 1), no-op shape ops, transpose/reshape chains, and the static
// cases of cond and while. Constant folding evaluates with the semantics of
// the eager reference kernels: floats in double precision rounded to the
// element type, integers with two's-complement wrap-around.
//
//===----------------------------------------------------------------------===//

#include "fnc/Dialect/Fnc/IR/FncOps.h"

#include "mlir/IR/Matchers.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/IR/PatternMatch.h"

#include <cmath>
#include <optional>

using namespace mlir;
using namespace mlir::fnc;

/// Non-splat constants fold only up to this many result elements, so that
/// folding never bloats the IR.
static constexpr int64_t kMaxFoldElements = 1024;

//===----------------------------------------------------------------------===//
// Constant evaluation helpers
//===----------------------------------------------------------------------===//

namespace {
/// The elements of a constant operand as doubles or int64 (bool as 0/1).
template <typename T>
SmallVector<T> valuesOf(DenseElementsAttr attr, int64_t count);

template <>
SmallVector<double> valuesOf<double>(DenseElementsAttr attr, int64_t count) {
  SmallVector<double> out;
  out.reserve(count);
  for (const APFloat &v : llvm::make_range(attr.value_begin<APFloat>(),
                                           attr.value_begin<APFloat>() + count))
    out.push_back(v.convertToDouble());
  return out;
}

template <>
SmallVector<int64_t> valuesOf<int64_t>(DenseElementsAttr attr, int64_t count) {
  SmallVector<int64_t> out;
  out.reserve(count);
  for (const APInt &v : llvm::make_range(attr.value_begin<APInt>(),
                                         attr.value_begin<APInt>() + count))
    out.push_back(v.getBitWidth() == 1 ? v.getZExtValue() : v.getSExtValue());
  return out;
}

/// A constant of `type` (float element type) from double values.
DenseElementsAttr makeElements(ShapedType type, ArrayRef<double> values) {
  Type element = type.getElementType();
  if (!isa<FloatType>(element))
    return {};
  SmallVector<APFloat> out;
  for (double v : values)
    out.push_back(element.isF32() ? APFloat(static_cast<float>(v))
                                  : APFloat(v));
  return DenseElementsAttr::get(type, out);
}

/// A constant of `type` (integer element type) from int64 values, wrapping.
DenseElementsAttr makeElements(ShapedType type, ArrayRef<int64_t> values) {
  Type element = type.getElementType();
  if (!element.isSignlessInteger())
    return {};
  unsigned width = element.getIntOrFloatBitWidth();
  SmallVector<APInt> out;
  for (int64_t v : values)
    out.push_back(width == 1 ? APInt(1, v != 0)
                             : APInt(width, v, /*isSigned=*/true,
                                     /*implicitTrunc=*/true));
  return DenseElementsAttr::get(type, out);
}

/// For each element of the static `to` shape, the linear index of the
/// element of `from` (numpy broadcasting) it reads.
SmallVector<int64_t> broadcastMap(ArrayRef<int64_t> from,
                                  ArrayRef<int64_t> to) {
  int64_t rank = to.size();
  SmallVector<int64_t> strides(rank, 0);
  int64_t stride = 1;
  for (int64_t i = from.size() - 1, j = rank - 1; i >= 0; --i, --j) {
    strides[j] = from[i] == 1 ? 0 : stride;
    stride *= from[i];
  }
  int64_t count = ShapedType::getNumElements(to);
  SmallVector<int64_t> map(count), index(rank, 0);
  for (int64_t k = 0; k < count; ++k) {
    int64_t linear = 0;
    for (int64_t d = 0; d < rank; ++d)
      linear += index[d] * strides[d];
    map[k] = linear;
    for (int64_t d = rank - 1; d >= 0; --d) {
      if (++index[d] < to[d])
        break;
      index[d] = 0;
    }
  }
  return map;
}

/// Evaluates `fn` elementwise over constant operands with numpy
/// broadcasting, in the domain `In` (double or int64). `fn` returns
/// std::optional<Out>; nullopt (e.g. an integer division by zero) means
/// "do not fold". Returns null when the operands are not all constants or
/// the result is too large to fold.
template <typename In, typename Fn>
Attribute evaluate(Type resultType, ArrayRef<Attribute> operands, Fn fn) {
  auto type = dyn_cast<RankedTensorType>(resultType);
  if (!type || !type.hasStaticShape())
    return {};
  SmallVector<DenseElementsAttr> attrs;
  bool allSplat = true;
  for (Attribute a : operands) {
    auto dense = dyn_cast_or_null<DenseElementsAttr>(a);
    if (!dense)
      return {};
    attrs.push_back(dense);
    allSplat &= dense.isSplat();
  }
  int64_t count = allSplat ? 1 : type.getNumElements();
  if (count > kMaxFoldElements)
    return {};

  SmallVector<SmallVector<In>> values;
  SmallVector<SmallVector<int64_t>> maps;
  for (DenseElementsAttr a : attrs) {
    int64_t n = allSplat ? 1 : a.getNumElements();
    values.push_back(valuesOf<In>(a, n));
    maps.push_back(allSplat ? SmallVector<int64_t>{0}
                            : broadcastMap(a.getType().getShape(),
                                           type.getShape()));
  }

  using Out = typename decltype(fn(ArrayRef<In>()))::value_type;
  SmallVector<Out> results;
  results.reserve(count);
  SmallVector<In> args(attrs.size());
  for (int64_t k = 0; k < count; ++k) {
    for (size_t o = 0; o < attrs.size(); ++o)
      args[o] = values[o][maps[o][k]];
    std::optional<Out> r = fn(args);
    if (!r)
      return {};
    results.push_back(*r);
  }
  if (allSplat) {
    auto single = makeElements(RankedTensorType::get({}, type.getElementType()),
                               results);
    return single ? DenseElementsAttr::get(type, single.template getSplatValue<Attribute>())
                  : Attribute();
  }
  return makeElements(type, results);
}

/// Dispatches on the operands' element type: `floatFn` on doubles or
/// `intFn` on int64 values.
template <typename FloatFn, typename IntFn>
Attribute evaluateTyped(Type resultType, Type operandType,
                        ArrayRef<Attribute> operands, FloatFn floatFn,
                        IntFn intFn) {
  if (isa<FloatType>(getElementTypeOrSelf(operandType)))
    return evaluate<double>(resultType, operands, floatFn);
  return evaluate<int64_t>(resultType, operands, intFn);
}

/// Two's-complement arithmetic on int64 without undefined behaviour.
int64_t wrapAdd(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) +
                              static_cast<uint64_t>(b));
}
int64_t wrapSub(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) -
                              static_cast<uint64_t>(b));
}
int64_t wrapMul(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) *
                              static_cast<uint64_t>(b));
}

/// True if `attr` is a splat constant equal to `value`; for floats, -0.0
/// and +0.0 are told apart when `exactZeroSign` is set.
bool isSplat(Attribute attr, double value, bool negativeZero = false) {
  auto dense = dyn_cast_or_null<DenseElementsAttr>(attr);
  if (!dense || !dense.isSplat())
    return false;
  if (isa<FloatType>(dense.getElementType())) {
    APFloat v = dense.getSplatValue<APFloat>();
    if (value == 0 && v.isZero())
      return v.isNegative() == negativeZero;
    return v.convertToDouble() == value;
  }
  APInt v = dense.getSplatValue<APInt>();
  return (v.getBitWidth() == 1 ? (int64_t)v.getZExtValue()
                               : v.getSExtValue()) == (int64_t)value;
}

bool isFloat(Type type) { return isa<FloatType>(getElementTypeOrSelf(type)); }

/// `value` if it already has `type` (so replacing the op keeps the type).
OpFoldResult sameTypeOrNull(Value value, Type type) {
  return value.getType() == type ? OpFoldResult(value) : OpFoldResult();
}
} // namespace

//===----------------------------------------------------------------------===//
// Creation ops
//===----------------------------------------------------------------------===//

OpFoldResult ConstantOp::fold(FoldAdaptor) { return getValueAttr(); }

OpFoldResult FillOp::fold(FoldAdaptor) {
  auto type = getType();
  if (!type.hasStaticShape())
    return {};
  double v = getValue().convertToDouble();
  auto scalar = RankedTensorType::get({}, type.getElementType());
  DenseElementsAttr one =
      isFloat(type) ? makeElements(scalar, ArrayRef<double>{v})
                    : makeElements(scalar, ArrayRef<int64_t>{(int64_t)v});
  return DenseElementsAttr::get(type, one.getSplatValue<Attribute>());
}

OpFoldResult CastOp::fold(FoldAdaptor adaptor) {
  if (getInput().getType() == getType())
    return getInput();
  Type to = getType().getElementType();
  bool toBool = to.isSignlessInteger(1);
  bool toFloat = isa<FloatType>(to);
  unsigned width = toFloat ? 0 : to.getIntOrFloatBitWidth();
  auto fromFloat = [&](ArrayRef<double> x) -> std::optional<double> {
    if (toBool || toFloat)
      return toBool ? double(x[0] != 0) : x[0];
    // Float to integer truncates; out-of-range values are not folded.
    double t = std::trunc(x[0]);
    double limit = std::ldexp(1.0, width - 1);
    if (!(t >= -limit && t < limit))
      return std::nullopt;
    return t;
  };
  auto fromInt = [&](ArrayRef<int64_t> x) -> std::optional<double> {
    return toBool ? double(x[0] != 0) : double(x[0]);
  };
  if (toFloat)
    return evaluateTyped(getType(), getInput().getType(), adaptor.getOperands(),
                         fromFloat, fromInt);
  // Integer results: evaluate in int64.
  auto fromFloatInt = [&](ArrayRef<double> x) -> std::optional<int64_t> {
    auto r = fromFloat(x);
    return r ? std::optional<int64_t>(static_cast<int64_t>(*r)) : std::nullopt;
  };
  auto fromIntInt = [&](ArrayRef<int64_t> x) -> std::optional<int64_t> {
    return toBool ? int64_t(x[0] != 0) : x[0];
  };
  return evaluateTyped(getType(), getInput().getType(), adaptor.getOperands(),
                       fromFloatInt, fromIntInt);
}

//===----------------------------------------------------------------------===//
// Binary elementwise ops
//===----------------------------------------------------------------------===//

using Doubles = ArrayRef<double>;
using Ints = ArrayRef<int64_t>;
using OptD = std::optional<double>;
using OptI = std::optional<int64_t>;

OpFoldResult AddOp::fold(FoldAdaptor adaptor) {
  // x + 0 -> x is exact for integers; for floats only x + (-0.0) is.
  bool fp = isFloat(getType());
  if (isSplat(adaptor.getRhs(), 0, /*negativeZero=*/fp))
    if (OpFoldResult r = sameTypeOrNull(getLhs(), getType()))
      return r;
  return evaluateTyped(
      getType(), getLhs().getType(), adaptor.getOperands(),
      [](Doubles x) -> OptD { return x[0] + x[1]; },
      [](Ints x) -> OptI { return wrapAdd(x[0], x[1]); });
}

OpFoldResult SubOp::fold(FoldAdaptor adaptor) {
  if (isSplat(adaptor.getRhs(), 0))
    if (OpFoldResult r = sameTypeOrNull(getLhs(), getType()))
      return r;
  return evaluateTyped(
      getType(), getLhs().getType(), adaptor.getOperands(),
      [](Doubles x) -> OptD { return x[0] - x[1]; },
      [](Ints x) -> OptI { return wrapSub(x[0], x[1]); });
}

OpFoldResult MulOp::fold(FoldAdaptor adaptor) {
  if (isSplat(adaptor.getRhs(), 1))
    if (OpFoldResult r = sameTypeOrNull(getLhs(), getType()))
      return r;
  // x * 0 -> 0 only for integers (floats: NaN * 0 is NaN, -x * 0 is -0).
  if (!isFloat(getType()) && isSplat(adaptor.getRhs(), 0) &&
      getType().hasStaticShape())
    return DenseElementsAttr::get(
        getType(), cast<DenseElementsAttr>(adaptor.getRhs())
                       .getSplatValue<Attribute>());
  return evaluateTyped(
      getType(), getLhs().getType(), adaptor.getOperands(),
      [](Doubles x) -> OptD { return x[0] * x[1]; },
      [](Ints x) -> OptI { return wrapMul(x[0], x[1]); });
}

OpFoldResult DivOp::fold(FoldAdaptor adaptor) {
  if (isSplat(adaptor.getRhs(), 1))
    if (OpFoldResult r = sameTypeOrNull(getLhs(), getType()))
      return r;
  return evaluateTyped(
      getType(), getLhs().getType(), adaptor.getOperands(),
      [](Doubles x) -> OptD { return x[0] / x[1]; },
      [](Ints x) -> OptI {
        if (x[1] == 0 || (x[1] == -1 && x[0] == INT64_MIN))
          return std::nullopt; // a run-time error, not a constant
        return x[0] / x[1];
      });
}

OpFoldResult PowOp::fold(FoldAdaptor adaptor) {
  if (isSplat(adaptor.getRhs(), 1))
    if (OpFoldResult r = sameTypeOrNull(getLhs(), getType()))
      return r;
  return evaluateTyped(
      getType(), getLhs().getType(), adaptor.getOperands(),
      [](Doubles x) -> OptD { return std::pow(x[0], x[1]); },
      [](Ints x) -> OptI {
        if (x[1] < 0)
          return std::nullopt;
        int64_t result = 1, base = x[0];
        for (int64_t e = x[1]; e; e >>= 1) {
          if (e & 1)
            result = wrapMul(result, base);
          base = wrapMul(base, base);
        }
        return result;
      });
}

/// NaN-propagating maximum/minimum that orders -0.0 below +0.0.
static double nanMax(double a, double b, bool isMax) {
  if (std::isnan(a) || std::isnan(b))
    return std::nan("");
  if (a == b)
    return (std::signbit(a) == isMax) ? b : a;
  return (a > b) == isMax ? a : b;
}

OpFoldResult MaximumOp::fold(FoldAdaptor adaptor) {
  return evaluateTyped(
      getType(), getLhs().getType(), adaptor.getOperands(),
      [](Doubles x) -> OptD { return nanMax(x[0], x[1], true); },
      [](Ints x) -> OptI { return std::max(x[0], x[1]); });
}

OpFoldResult MinimumOp::fold(FoldAdaptor adaptor) {
  return evaluateTyped(
      getType(), getLhs().getType(), adaptor.getOperands(),
      [](Doubles x) -> OptD { return nanMax(x[0], x[1], false); },
      [](Ints x) -> OptI { return std::min(x[0], x[1]); });
}

OpFoldResult FloorModOp::fold(FoldAdaptor adaptor) {
  return evaluateTyped(
      getType(), getLhs().getType(), adaptor.getOperands(),
      [](Doubles x) -> OptD {
        double r = std::fmod(x[0], x[1]);
        if (r != 0 && (r < 0) != (x[1] < 0))
          r += x[1];
        return r == 0 ? std::copysign(0.0, x[1]) : r;
      },
      [](Ints x) -> OptI {
        if (x[1] == 0)
          return std::nullopt;
        if (x[1] == -1)
          return 0;
        int64_t r = x[0] % x[1];
        if (r != 0 && (r < 0) != (x[1] < 0))
          r += x[1];
        return r;
      });
}

OpFoldResult FloorDivOp::fold(FoldAdaptor adaptor) {
  return evaluateTyped(
      getType(), getLhs().getType(), adaptor.getOperands(),
      [](Doubles x) -> OptD { return std::floor(x[0] / x[1]); },
      [](Ints x) -> OptI {
        if (x[1] == 0 || (x[1] == -1 && x[0] == INT64_MIN))
          return std::nullopt;
        int64_t q = x[0] / x[1];
        if (x[0] % x[1] != 0 && ((x[0] < 0) != (x[1] < 0)))
          --q;
        return q;
      });
}

OpFoldResult LogicalAndOp::fold(FoldAdaptor adaptor) {
  return evaluate<int64_t>(getType(), adaptor.getOperands(),
                           [](Ints x) -> OptI { return x[0] && x[1]; });
}

OpFoldResult LogicalOrOp::fold(FoldAdaptor adaptor) {
  return evaluate<int64_t>(getType(), adaptor.getOperands(),
                           [](Ints x) -> OptI { return x[0] || x[1]; });
}

template <typename T>
static bool comparePredicate(ComparePredicate predicate, T a, T b) {
  switch (predicate) {
  case ComparePredicate::eq:
    return a == b;
  case ComparePredicate::ne:
    return a != b;
  case ComparePredicate::lt:
    return a < b;
  case ComparePredicate::le:
    return a <= b;
  case ComparePredicate::gt:
    return a > b;
  case ComparePredicate::ge:
    return a >= b;
  }
  llvm_unreachable("unknown compare predicate");
}

OpFoldResult CompareOp::fold(FoldAdaptor adaptor) {
  ComparePredicate p = getPredicate();
  return evaluateTyped(
      getType(), getLhs().getType(), adaptor.getOperands(),
      [p](Doubles x) -> OptI { return comparePredicate(p, x[0], x[1]); },
      [p](Ints x) -> OptI { return comparePredicate(p, x[0], x[1]); });
}

OpFoldResult SelectOp::fold(FoldAdaptor adaptor) {
  if (getLhs() == getRhs())
    return sameTypeOrNull(getLhs(), getType());
  if (isSplat(adaptor.getCond(), 1))
    return sameTypeOrNull(getLhs(), getType());
  if (isSplat(adaptor.getCond(), 0))
    return sameTypeOrNull(getRhs(), getType());
  return {};
}

//===----------------------------------------------------------------------===//
// Unary elementwise ops
//===----------------------------------------------------------------------===//

#define FNC_FOLD_UNARY(OP, FLOAT_EXPR, INT_EXPR)                               \
  OpFoldResult OP::fold(FoldAdaptor adaptor) {                                 \
    return evaluateTyped(                                                      \
        getType(), getType(), adaptor.getOperands(),                           \
        [](Doubles a) -> OptD {                                                \
          double x = a[0];                                                     \
          (void)x;                                                             \
          return FLOAT_EXPR;                                                   \
        },                                                                     \
        [](Ints a) -> OptI {                                                   \
          int64_t x = a[0];                                                    \
          (void)x;                                                             \
          return INT_EXPR;                                                     \
        });                                                                    \
  }

FNC_FOLD_UNARY(NegOp, -x, wrapSub(0, x))
FNC_FOLD_UNARY(AbsOp, std::fabs(x), x < 0 ? wrapSub(0, x) : x)
FNC_FOLD_UNARY(ExpOp, std::exp(x), std::nullopt)
FNC_FOLD_UNARY(LogOp, std::log(x), std::nullopt)
FNC_FOLD_UNARY(SqrtOp, std::sqrt(x), std::nullopt)
FNC_FOLD_UNARY(RsqrtOp, 1.0 / std::sqrt(x), std::nullopt)
FNC_FOLD_UNARY(TanhOp, std::tanh(x), std::nullopt)
FNC_FOLD_UNARY(SigmoidOp, 1.0 / (1.0 + std::exp(-x)), std::nullopt)
FNC_FOLD_UNARY(ReluOp, nanMax(x, 0.0, true), std::max<int64_t>(x, 0))
FNC_FOLD_UNARY(SquareOp, x *x, wrapMul(x, x))
FNC_FOLD_UNARY(SignOp, x > 0 ? 1.0 : (x < 0 ? -1.0 : x),
               int64_t(x > 0) - int64_t(x < 0))
FNC_FOLD_UNARY(FloorOp, std::floor(x), std::nullopt)
FNC_FOLD_UNARY(CeilOp, std::ceil(x), std::nullopt)
FNC_FOLD_UNARY(LogicalNotOp, std::nullopt, int64_t(!x))
#undef FNC_FOLD_UNARY

//===----------------------------------------------------------------------===//
// Shape ops
//===----------------------------------------------------------------------===//

OpFoldResult TransposeOp::fold(FoldAdaptor) {
  ArrayRef<int64_t> perm = getPerm();
  if (llvm::equal(perm, llvm::seq<int64_t>(0, perm.size())))
    return getInput();
  // transpose(transpose(x, inner), perm) == transpose(x, inner o perm).
  auto inner = getInput().getDefiningOp<TransposeOp>();
  if (!inner)
    return {};
  SmallVector<int64_t> composed;
  for (int64_t p : perm)
    composed.push_back(inner.getPerm()[p]);
  if (llvm::equal(composed, llvm::seq<int64_t>(0, composed.size())))
    return inner.getInput();
  getInputMutable().assign(inner.getInput());
  setPerm(composed);
  return getResult();
}

OpFoldResult ReshapeOp::fold(FoldAdaptor adaptor) {
  if (getInput().getType() == getType())
    return getInput();
  if (auto dense = dyn_cast_or_null<DenseElementsAttr>(adaptor.getInput()))
    if (getType().hasStaticShape())
      return dense.reshape(getType());
  // reshape(reshape(x)) == reshape(x): only the final shape matters.
  if (auto inner = getInput().getDefiningOp<ReshapeOp>()) {
    if (inner.getInput().getType() == getType())
      return inner.getInput();
    getInputMutable().assign(inner.getInput());
    return getResult();
  }
  return {};
}

OpFoldResult BroadcastToOp::fold(FoldAdaptor adaptor) {
  if (getInput().getType() == getType())
    return getInput();
  auto dense = dyn_cast_or_null<DenseElementsAttr>(adaptor.getInput());
  if (dense && dense.isSplat() && getType().hasStaticShape())
    return DenseElementsAttr::get(getType(),
                                  dense.getSplatValue<Attribute>());
  return {};
}

OpFoldResult ShapeOfOp::fold(FoldAdaptor) {
  auto in = getInput().getType();
  if (!in.hasStaticShape())
    return {};
  Type element = getType().getElementType();
  SmallVector<APInt> dims;
  for (int64_t d : in.getShape())
    dims.push_back(APInt(element.getIntOrFloatBitWidth(), d));
  return DenseElementsAttr::get(getType(), dims);
}

OpFoldResult BroadcastToShapeOp::fold(FoldAdaptor adaptor) {
  // A constant shape makes it a broadcast_to (or nothing) when every dim of
  // the result is static and equal to the shape's (the run-time checks
  // would pass).
  auto shape = dyn_cast_or_null<DenseIntElementsAttr>(adaptor.getShape());
  if (!shape || !getType().hasStaticShape())
    return {};
  for (auto [value, dim] : llvm::zip(shape.getValues<APInt>(),
                                     getType().getShape()))
    if (value.getSExtValue() != dim)
      return {};
  if (getInput().getType() == getType())
    return getInput();
  auto dense = dyn_cast_or_null<DenseElementsAttr>(adaptor.getInput());
  if (dense && dense.isSplat())
    return DenseElementsAttr::get(getType(), dense.getSplatValue<Attribute>());
  return {};
}

OpFoldResult SliceOp::fold(FoldAdaptor) {
  if (getInput().getType() != getType())
    return {};
  bool identity = llvm::all_of(getOffsets(), [](int64_t o) { return o == 0; }) &&
                  llvm::all_of(getStrides(), [](int64_t s) { return s == 1; });
  return identity ? OpFoldResult(getInput()) : OpFoldResult();
}

OpFoldResult ConcatOp::fold(FoldAdaptor) {
  if (getInputs().size() == 1)
    return sameTypeOrNull(getInputs()[0], getType());
  return {};
}

namespace {
/// pow(x, 2) -> x * x: exact, and no call to pow.
struct PowOfTwo : public OpRewritePattern<PowOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(PowOp op,
                                PatternRewriter &rewriter) const override {
    Attribute exponent;
    if (op.getLhs().getType() != op.getType() ||
        !matchPattern(op.getRhs(), m_Constant(&exponent)) ||
        !isSplat(exponent, 2))
      return failure();
    rewriter.replaceOpWithNewOp<MulOp>(op, op.getLhs(), op.getLhs());
    return success();
  }
};
} // namespace

void PowOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                        MLIRContext *context) {
  results.add<PowOfTwo>(context);
}

//===----------------------------------------------------------------------===//
// Control flow
//===----------------------------------------------------------------------===//

/// Replaces `op` by the single block of `region` run with `args`; the
/// terminator's operands after the first `skip` replace the op's results.
static void replaceOpWithRegion(PatternRewriter &rewriter, Operation *op,
                                Region &region, ValueRange args,
                                unsigned skip = 0) {
  Block *block = &region.front();
  Operation *terminator = block->getTerminator();
  rewriter.inlineBlockBefore(block, op, args);
  // Read the operands after inlining: uses of block arguments now use `args`.
  SmallVector<Value> results(terminator->getOperands().drop_front(skip));
  rewriter.replaceOp(op, results);
  rewriter.eraseOp(terminator);
}

namespace {
/// fnc.cond on a constant predicate is the branch it takes.
struct InlineConstantCond : public OpRewritePattern<CondOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(CondOp op,
                                PatternRewriter &rewriter) const override {
    DenseIntElementsAttr pred;
    if (!matchPattern(op.getPred(), m_Constant(&pred)))
      return failure();
    Region &taken = (*pred.value_begin<APInt>()).getBoolValue()
                        ? op.getThenRegion()
                        : op.getElseRegion();
    replaceOpWithRegion(rewriter, op, taken, {});
    return success();
  }
};

/// fnc.while whose condition is constant false runs its cond region once
/// and never its body.
struct RemoveZeroTripWhile : public OpRewritePattern<WhileOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(WhileOp op,
                                PatternRewriter &rewriter) const override {
    auto condition =
        cast<ConditionOp>(op.getCondRegion().front().getTerminator());
    DenseIntElementsAttr value;
    if (!matchPattern(condition.getCondition(), m_Constant(&value)) ||
        (*value.value_begin<APInt>()).getBoolValue())
      return failure();
    replaceOpWithRegion(rewriter, op, op.getCondRegion(), op.getInits(),
                        /*skip=*/1);
    return success();
  }
};
} // namespace

void CondOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                         MLIRContext *context) {
  results.add<InlineConstantCond>(context);
}

void WhileOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                          MLIRContext *context) {
  results.add<RemoveZeroTripWhile>(context);
}
