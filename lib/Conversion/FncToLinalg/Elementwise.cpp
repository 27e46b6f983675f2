//===- Elementwise.cpp - Lowering of creation and elementwise fnc ops -----===//
//
// Each elementwise op becomes one linalg.generic (buildElementwise) whose
// body is the scalar computation below, with the op's exact semantics (those
// of fnc/Reference/Scalar.h, which the differential tests hold it to):
// integer division truncates and floor_div/floor_mod round toward -inf,
// division by zero raises a run-time error instead of trapping, maximum and
// minimum propagate NaN.
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"

#include "fnc/Dialect/Fnc/IR/FncOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cmath>

using namespace mlir;
using namespace mlir::fnc;
using namespace mlir::fnc::lowering;

//===----------------------------------------------------------------------===//
// Scalar computations
//===----------------------------------------------------------------------===//

namespace {
/// Builds scalar arith/math ops on values of one element type.
struct Scalar {
  OpBuilder &b;
  Location loc;
  Type type;

  bool isFloat() const { return isa<FloatType>(type); }
  Value constant(double v) const { return scalarConstant(b, loc, type, v); }
  Value cmpf(arith::CmpFPredicate p, Value x, Value y) const {
    return arith::CmpFOp::create(b, loc, p, x, y);
  }
  Value cmpi(arith::CmpIPredicate p, Value x, Value y) const {
    return arith::CmpIOp::create(b, loc, p, x, y);
  }
  Value select(Value c, Value x, Value y) const {
    return arith::SelectOp::create(b, loc, c, x, y);
  }

  /// `divisor`, or 1 where it is zero (after raising ErrorCode::DivisionByZero), so
  /// that no division traps.
  Value safeDivisor(Value divisor) const {
    Value zero = constant(0);
    Value isZero = cmpi(arith::CmpIPredicate::eq, divisor, zero);
    raiseErrorInLoop(b, loc, isZero, ErrorCode::DivisionByZero, nullptr, nullptr);
    return select(isZero, constant(1), divisor);
  }

  /// x / y with the integer division `DivOp` (truncating or floor): a zero
  /// divisor raises an error, and MIN / -1 wraps to -MIN instead of trapping.
  template <typename DivOp> Value divInt(Value x, Value y) const {
    y = safeDivisor(y);
    Value minusOne = cmpi(arith::CmpIPredicate::eq, y, constant(-1));
    Value negated = arith::SubIOp::create(b, loc, constant(0), x);
    Value safeY = select(minusOne, constant(1), y);
    Value q = DivOp::create(b, loc, x, safeY);
    return select(minusOne, negated, q);
  }

  /// atan2(y, x) with C's values where both are zero (y, or pi with y's
  /// sign where x is -0), as eagerly: MLIR folds math.atan2 of two zero
  /// constants to NaN (a fill fused into the op makes them constants).
  Value atan2(Value y, Value x) const {
    Value a = math::Atan2Op::create(b, loc, y, x);
    Value zero = constant(0);
    Value bothZero =
        arith::AndIOp::create(b, loc, cmpf(arith::CmpFPredicate::OEQ, y, zero),
                              cmpf(arith::CmpFPredicate::OEQ, x, zero));
    // The sign of a zero: 1 / -0 is -inf.
    auto negative = [&](Value zeroValue) {
      Value inverse = arith::DivFOp::create(b, loc, constant(1), zeroValue);
      return cmpf(arith::CmpFPredicate::OLT, inverse, zero);
    };
    Value pi = select(negative(y), constant(-M_PI), constant(M_PI));
    return select(bothZero, select(negative(x), pi, y), a);
  }

  /// Remainder with the sign of the divisor.
  Value floorMod(Value x, Value y) const {
    Value r, zero = constant(0);
    if (isFloat()) {
      r = arith::RemFOp::create(b, loc, x, y);
      Value nonZero = cmpf(arith::CmpFPredicate::ONE, r, zero);
      Value signsDiffer =
          arith::XOrIOp::create(b, loc, cmpf(arith::CmpFPredicate::OLT, r, zero),
                                cmpf(arith::CmpFPredicate::OLT, y, zero));
      Value fix = arith::AndIOp::create(b, loc, nonZero, signsDiffer);
      r = select(fix, arith::AddFOp::create(b, loc, r, y), r);
      // A zero remainder takes the divisor's sign, as in Python.
      Value isZero = cmpf(arith::CmpFPredicate::OEQ, r, zero);
      Value signedZero = select(cmpf(arith::CmpFPredicate::OLT, y, zero),
                                constant(-0.0), zero);
      return select(isZero, signedZero, r);
    }
    y = safeDivisor(y);
    Value minusOne = cmpi(arith::CmpIPredicate::eq, y, constant(-1));
    Value safeY = select(minusOne, constant(1), y);
    r = arith::RemSIOp::create(b, loc, x, safeY);
    Value nonZero = cmpi(arith::CmpIPredicate::ne, r, zero);
    Value signsDiffer =
        arith::XOrIOp::create(b, loc, cmpi(arith::CmpIPredicate::slt, r, zero),
                              cmpi(arith::CmpIPredicate::slt, safeY, zero));
    Value fix = arith::AndIOp::create(b, loc, nonZero, signsDiffer);
    return select(fix, arith::AddIOp::create(b, loc, r, safeY), r);
  }

  Value powInt(Value x, Value y) const {
    Value negative = cmpi(arith::CmpIPredicate::slt, y, constant(0));
    raiseErrorInLoop(b, loc, negative, ErrorCode::NegativeExponent, y, nullptr);
    // Square-and-multiply over the bits of the exponent.
    unsigned width = type.getIntOrFloatBitWidth();
    Value result = constant(1), base = x, exp = select(negative, constant(0), y);
    for (unsigned bit = 0; bit + 1 < width; ++bit) {
      Value odd = arith::TruncIOp::create(b, loc, b.getI1Type(), exp);
      result = select(odd, arith::MulIOp::create(b, loc, result, base), result);
      base = arith::MulIOp::create(b, loc, base, base);
      exp = arith::ShRUIOp::create(b, loc, exp, constant(1));
    }
    return result;
  }

  Value sign(Value x) const {
    Value zero = constant(0);
    if (isFloat()) {
      Value pos = cmpf(arith::CmpFPredicate::OGT, x, zero);
      Value neg = cmpf(arith::CmpFPredicate::OLT, x, zero);
      return select(pos, constant(1), select(neg, constant(-1), x));
    }
    Value pos = arith::ExtUIOp::create(
        b, loc, type, cmpi(arith::CmpIPredicate::sgt, x, zero));
    Value neg = arith::ExtUIOp::create(
        b, loc, type, cmpi(arith::CmpIPredicate::slt, x, zero));
    return arith::SubIOp::create(b, loc, pos, neg);
  }
};

Value compare(OpBuilder &b, Location loc, ComparePredicate p, Value x,
              Value y) {
  Type type = x.getType();
  if (isa<FloatType>(type)) {
    static constexpr arith::CmpFPredicate preds[] = {
        arith::CmpFPredicate::OEQ, arith::CmpFPredicate::UNE,
        arith::CmpFPredicate::OLT, arith::CmpFPredicate::OLE,
        arith::CmpFPredicate::OGT, arith::CmpFPredicate::OGE};
    return arith::CmpFOp::create(b, loc, preds[static_cast<int>(p)], x, y);
  }
  // (Bools only compare for equality: the verifier rejects the rest.)
  static constexpr arith::CmpIPredicate preds[] = {
      arith::CmpIPredicate::eq,  arith::CmpIPredicate::ne,
      arith::CmpIPredicate::slt, arith::CmpIPredicate::sle,
      arith::CmpIPredicate::sgt, arith::CmpIPredicate::sge};
  return arith::CmpIOp::create(b, loc, preds[static_cast<int>(p)], x, y);
}

/// fptosi, saturating as eagerly (scalar::convert): NaN gives 0 and a value
/// beyond the integer's range its lowest or highest value, where fptosi
/// alone gives poison (INT_MIN on x86). The selects only pick fptosi's
/// result where it is defined.
Value floatToInt(OpBuilder &b, Location loc, Value x, Type to) {
  Type from = x.getType();
  unsigned bits = to.getIntOrFloatBitWidth();
  // -2^(bits-1) and 2^(bits-1), exact in every float type.
  double limit = std::ldexp(1.0, static_cast<int>(bits) - 1);
  auto intConstant = [&](const APInt &v) -> Value {
    return arith::ConstantOp::create(b, loc, b.getIntegerAttr(to, v));
  };
  auto cmp = [&](arith::CmpFPredicate p, Value y) -> Value {
    return arith::CmpFOp::create(b, loc, p, x, y);
  };
  Value r = arith::FPToSIOp::create(b, loc, to, x);
  r = arith::SelectOp::create(
      b, loc, cmp(arith::CmpFPredicate::OGE, scalarConstant(b, loc, from, limit)),
      intConstant(APInt::getSignedMaxValue(bits)), r);
  r = arith::SelectOp::create(
      b, loc, cmp(arith::CmpFPredicate::OLT, scalarConstant(b, loc, from, -limit)),
      intConstant(APInt::getSignedMinValue(bits)), r);
  return arith::SelectOp::create(b, loc, cmp(arith::CmpFPredicate::UNO, x),
                                 intConstant(APInt(bits, 0)), r);
}

Value castScalar(OpBuilder &b, Location loc, Value x, Type to) {
  Type from = x.getType();
  if (from == to)
    return x;
  bool fromFloat = isa<FloatType>(from), toFloat = isa<FloatType>(to);
  bool fromBool = from.isSignlessInteger(1), toBool = to.isSignlessInteger(1);
  if (toBool) {
    Value zero = scalarConstant(b, loc, from, 0);
    return fromFloat ? (Value)arith::CmpFOp::create(
                           b, loc, arith::CmpFPredicate::UNE, x, zero)
                     : (Value)arith::CmpIOp::create(
                           b, loc, arith::CmpIPredicate::ne, x, zero);
  }
  if (fromFloat && toFloat)
    return from.getIntOrFloatBitWidth() < to.getIntOrFloatBitWidth()
               ? (Value)arith::ExtFOp::create(b, loc, to, x)
               : (Value)arith::TruncFOp::create(b, loc, to, x);
  if (fromFloat)
    return floatToInt(b, loc, x, to);
  if (toFloat)
    return fromBool ? (Value)arith::UIToFPOp::create(b, loc, to, x)
                    : (Value)arith::SIToFPOp::create(b, loc, to, x);
  if (from.getIntOrFloatBitWidth() < to.getIntOrFloatBitWidth())
    return fromBool ? (Value)arith::ExtUIOp::create(b, loc, to, x)
                    : (Value)arith::ExtSIOp::create(b, loc, to, x);
  return arith::TruncIOp::create(b, loc, to, x);
}
} // namespace

Value lowering::buildScalarOp(OpBuilder &b, Location loc, Operation *op,
                              ValueRange s) {
  Type type = s.back().getType();
  Scalar k{b, loc, type};
  bool fp = k.isFloat();
  Value x = s[0], y = s.size() > 1 ? s[1] : Value();
  return llvm::TypeSwitch<Operation *, Value>(op)
      .Case([&](AddOp) {
        return fp ? (Value)arith::AddFOp::create(b, loc, x, y)
                  : (Value)arith::AddIOp::create(b, loc, x, y);
      })
      .Case([&](SubOp) {
        return fp ? (Value)arith::SubFOp::create(b, loc, x, y)
                  : (Value)arith::SubIOp::create(b, loc, x, y);
      })
      .Case([&](MulOp) {
        return fp ? (Value)arith::MulFOp::create(b, loc, x, y)
                  : (Value)arith::MulIOp::create(b, loc, x, y);
      })
      .Case([&](DivOp) {
        return fp ? (Value)arith::DivFOp::create(b, loc, x, y)
                  : k.divInt<arith::DivSIOp>(x, y);
      })
      .Case([&](PowOp) -> Value {
        if (!fp)
          return k.powInt(x, y);
        // pow(x, 2) is x * x, as the eager kernels and PowOfTwo compute it.
        Value two = k.cmpf(arith::CmpFPredicate::OEQ, y, k.constant(2.0));
        return k.select(two, arith::MulFOp::create(b, loc, x, x),
                        math::PowFOp::create(b, loc, x, y));
      })
      .Case([&](MaximumOp) {
        return fp ? (Value)arith::MaximumFOp::create(b, loc, x, y)
                  : (Value)arith::MaxSIOp::create(b, loc, x, y);
      })
      .Case([&](MinimumOp) {
        return fp ? (Value)arith::MinimumFOp::create(b, loc, x, y)
                  : (Value)arith::MinSIOp::create(b, loc, x, y);
      })
      .Case([&](FloorModOp) { return k.floorMod(x, y); })
      .Case([&](Atan2Op) { return k.atan2(x, y); })
      .Case([&](FloorDivOp) {
        if (!fp)
          return k.divInt<arith::FloorDivSIOp>(x, y);
        Value q = arith::DivFOp::create(b, loc, x, y);
        return (Value)math::FloorOp::create(b, loc, q);
      })
      .Case([&](LogicalAndOp) {
        return (Value)arith::AndIOp::create(b, loc, x, y);
      })
      .Case([&](LogicalOrOp) {
        return (Value)arith::OrIOp::create(b, loc, x, y);
      })
      .Case(
          [&](CompareOp c) { return compare(b, loc, c.getPredicate(), x, y); })
      .Case([&](SelectOp) {
        return (Value)arith::SelectOp::create(b, loc, s[0], s[1], s[2]);
      })
      .Case([&](CastOp c) {
        return castScalar(b, loc, x, c.getType().getElementType());
      })
      .Case([&](NegOp) {
        return fp ? (Value)arith::NegFOp::create(b, loc, x)
                  : (Value)arith::SubIOp::create(b, loc, k.constant(0), x);
      })
      .Case([&](AbsOp) {
        if (fp)
          return (Value)math::AbsFOp::create(b, loc, x);
        Value negative = k.cmpi(arith::CmpIPredicate::slt, x, k.constant(0));
        Value negated = arith::SubIOp::create(b, loc, k.constant(0), x);
        return k.select(negative, negated, x);
      })
      .Case([&](ExpOp) { return (Value)math::ExpOp::create(b, loc, x); })
      .Case([&](LogOp) { return (Value)math::LogOp::create(b, loc, x); })
      .Case([&](SqrtOp) { return (Value)math::SqrtOp::create(b, loc, x); })
      .Case([&](RsqrtOp) {
        // 1 / sqrt(x): libm has no rsqrt to call.
        Value root = math::SqrtOp::create(b, loc, x);
        return (Value)arith::DivFOp::create(b, loc, k.constant(1), root);
      })
      .Case([&](TanhOp) { return (Value)math::TanhOp::create(b, loc, x); })
      .Case([&](SigmoidOp) {
        Value negX = arith::NegFOp::create(b, loc, x);
        Value e = math::ExpOp::create(b, loc, negX);
        Value den = arith::AddFOp::create(b, loc, k.constant(1), e);
        return (Value)arith::DivFOp::create(b, loc, k.constant(1), den);
      })
      .Case([&](ReluOp) {
        return fp ? (Value)arith::MaximumFOp::create(b, loc, x, k.constant(0))
                  : (Value)arith::MaxSIOp::create(b, loc, x, k.constant(0));
      })
      .Case([&](SquareOp) {
        return fp ? (Value)arith::MulFOp::create(b, loc, x, x)
                  : (Value)arith::MulIOp::create(b, loc, x, x);
      })
      .Case([&](SignOp) { return k.sign(x); })
      .Case([&](FloorOp) { return (Value)math::FloorOp::create(b, loc, x); })
      .Case([&](CeilOp) { return (Value)math::CeilOp::create(b, loc, x); })
      .Case(
          [&](RoundOp) { return (Value)math::RoundEvenOp::create(b, loc, x); })
      .Case([&](SinOp) { return (Value)math::SinOp::create(b, loc, x); })
      .Case([&](CosOp) { return (Value)math::CosOp::create(b, loc, x); })
      .Case([&](TanOp) { return (Value)math::TanOp::create(b, loc, x); })
      .Case([&](ErfOp) { return (Value)math::ErfOp::create(b, loc, x); })
      .Case([&](Log1pOp) { return (Value)math::Log1pOp::create(b, loc, x); })
      .Case([&](Expm1Op) { return (Value)math::ExpM1Op::create(b, loc, x); })
      .Case([&](SoftplusOp) {
        // max(x, 0) + log1p(e^-|x|), as fnc::scalar::Softplus.
        Value negAbs =
            arith::NegFOp::create(b, loc, math::AbsFOp::create(b, loc, x));
        Value tail =
            math::Log1pOp::create(b, loc, math::ExpOp::create(b, loc, negAbs));
        Value positive = arith::MaximumFOp::create(b, loc, x, k.constant(0));
        return (Value)arith::AddFOp::create(b, loc, positive, tail);
      })
      .Case([&](LogicalNotOp) {
        return (Value)arith::XOrIOp::create(b, loc, x, k.constant(1));
      })
      .Default([](Operation *) -> Value {
        llvm_unreachable("not an elementwise fnc op");
      });
}

//===----------------------------------------------------------------------===//
// Patterns
//===----------------------------------------------------------------------===//

namespace {
/// Any elementwise op: one broadcasting linalg.generic.
template <typename OpTy>
struct ElementwiseLowering : public OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Operation *raw = op.getOperation();
    // Unknown dims broadcast at run time unless the tracer proved them
    // equal (kSameUnknownDims).
    Value result = buildElementwise(
        rewriter, op.getLoc(), cast<RankedTensorType>(op.getType()),
        adaptor.getOperands(),
        [&](OpBuilder &b, Location loc, ValueRange scalars) {
          return buildScalarOp(b, loc, raw, scalars);
        },
        raw->hasAttr(kSameUnknownDims));
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct ConstantLowering : public OpConversionPattern<ConstantOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ConstantOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<arith::ConstantOp>(
        op, cast<TypedAttr>(op.getValueAttr()));
    return success();
  }
};

struct FillLowering : public OpConversionPattern<FillOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(FillOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType type = op.getType();
    Value empty = tensor::EmptyOp::create(rewriter, loc, type,
                                          adaptor.getDynamicDims());
    Value value = scalarConstant(rewriter, loc, type.getElementType(),
                                 op.getValue().convertToDouble());
    rewriter.replaceOp(op,
                       linalg::FillOp::create(rewriter, loc, value, empty));
    return success();
  }
};

/// range and eye: a generic computing each element from its indices.
template <typename OpTy>
struct IotaLowering : public OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType type = op.getType();
    int64_t rank = type.getRank();
    Value init = tensor::EmptyOp::create(rewriter, loc, type, ValueRange{});
    SmallVector<AffineMap> maps = {
        AffineMap::getMultiDimIdentityMap(rank, rewriter.getContext())};
    SmallVector<utils::IteratorType> iterators(rank,
                                               utils::IteratorType::parallel);
    auto generic = linalg::GenericOp::create(
        rewriter, loc, type, ValueRange{}, init, maps, iterators,
        [&](OpBuilder &b, Location l, ValueRange) {
          linalg::YieldOp::create(b, l, element(b, l, op));
        });
    rewriter.replaceOp(op, generic.getResult(0));
    return success();
  }

  static Value element(OpBuilder &b, Location loc, RangeOp op) {
    Type f64 = b.getF64Type();
    Value i = linalg::IndexOp::create(b, loc, 0);
    Value fi = arith::UIToFPOp::create(
        b, loc, f64, arith::IndexCastOp::create(b, loc, b.getI64Type(), i));
    Value delta = scalarConstant(b, loc, f64, op.getDelta().convertToDouble());
    Value start = scalarConstant(b, loc, f64, op.getStart().convertToDouble());
    Value v = arith::AddFOp::create(
        b, loc, start, arith::MulFOp::create(b, loc, fi, delta));
    Type element = op.getType().getElementType();
    if (element.isF64())
      return v;
    if (isa<FloatType>(element))
      return arith::TruncFOp::create(b, loc, element, v);
    return arith::FPToSIOp::create(b, loc, element, v);
  }

  static Value element(OpBuilder &b, Location loc, EyeOp op) {
    Value i = linalg::IndexOp::create(b, loc, 0);
    Value j = linalg::IndexOp::create(b, loc, 1);
    Value diagonal =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, i, j);
    Type element = op.getType().getElementType();
    return arith::SelectOp::create(b, loc, diagonal,
                                   scalarConstant(b, loc, element, 1),
                                   scalarConstant(b, loc, element, 0));
  }
};
} // namespace

void lowering::populateElementwisePatterns(RewritePatternSet &patterns) {
  MLIRContext *ctx = patterns.getContext();
  patterns.add<ConstantLowering, FillLowering, IotaLowering<RangeOp>,
               IotaLowering<EyeOp>>(ctx);
  patterns.add<ElementwiseLowering<CompareOp>, ElementwiseLowering<SelectOp>,
               ElementwiseLowering<CastOp>>(ctx);
  // The elementwise ops of the op table (FncOpTable.inc); buildScalarOp
  // has the scalar computation of each.
#define FNC_UNARY_OP(KIND, CLASS, ...)                                         \
  patterns.add<ElementwiseLowering<CLASS>>(ctx);
#define FNC_BINARY_OP(KIND, CLASS, ...)                                        \
  patterns.add<ElementwiseLowering<CLASS>>(ctx);
#include "fnc/Dialect/Fnc/IR/FncOpTable.inc"
}
