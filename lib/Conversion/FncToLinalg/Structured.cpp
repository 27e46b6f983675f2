//===- Structured.cpp - Lowering of reductions, matmul and conv2d ---------===//
//
// Reductions become reduction linalg.generics over a filled accumulator
// (float combiners are `reassoc` under fast-math, so they vectorize);
// argmax carries (value, index) accumulators; softmax and log_softmax are
// max/sum reductions plus elementwise generics. matmul is a generic with
// the loop order (batch..., m, k, n), whose innermost loop walks rows of B
// and C contiguously; conv2d a generic on a zero-padded input with loops
// (n, oh, ow, kh, kw, c, f), innermost along the output channels.
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"

#include "fnc/Dialect/Fnc/IR/FncOps.h"
#include "fnc/Shape/ShapeRules.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <limits>

using namespace mlir;
using namespace mlir::fnc;
using namespace mlir::fnc::lowering;

namespace {

using CombineFn = function_ref<Value(OpBuilder &, Location, Value, Value)>;

/// The normalized, sorted reduction axes of `op` (verified already).
SmallVector<int64_t> normalizedAxes(int64_t rank, ArrayRef<int64_t> axes) {
  ::fnc::shapes::Shape shape(rank, 1);
  auto result = ::fnc::shapes::reductionAxes(
      shape, std::vector<int64_t>(axes.begin(), axes.end()));
  return SmallVector<int64_t>(result.shape.begin(), result.shape.end());
}

/// Result sizes of reducing `input` over `axes` (kept as 1 with keepDims).
SmallVector<OpFoldResult> reducedSizes(OpBuilder &b, Location loc, Value input,
                                       ArrayRef<int64_t> axes, bool keepDims) {
  SmallVector<OpFoldResult> in = tensorSizes(b, loc, input), out;
  for (auto [i, size] : llvm::enumerate(in)) {
    if (!llvm::is_contained(axes, static_cast<int64_t>(i)))
      out.push_back(size);
    else if (keepDims)
      out.push_back(b.getIndexAttr(1));
  }
  return out;
}

/// A reduction generic of `inputs` (all of the input's shape) into
/// accumulators of `resultTypes` initialized to `inits`; `body` gets the
/// input scalars followed by the accumulators and returns the new ones.
SmallVector<Value> buildReduction(
    OpBuilder &b, Location loc, ValueRange inputs, ArrayRef<int64_t> axes,
    bool keepDims, TypeRange resultTypes, ArrayRef<Value> inits,
    function_ref<SmallVector<Value>(OpBuilder &, Location, ValueRange)> body) {
  MLIRContext *ctx = b.getContext();
  Value input = inputs.front();
  int64_t rank = cast<RankedTensorType>(input.getType()).getRank();
  SmallVector<OpFoldResult> sizes = reducedSizes(b, loc, input, axes, keepDims);
  SmallVector<Value> outs;
  for (auto [type, init] : llvm::zip(resultTypes, inits)) {
    Value empty = emptyTensor(b, loc, cast<RankedTensorType>(type), sizes);
    outs.push_back(linalg::FillOp::create(b, loc, init, empty).getResult(0));
  }
  SmallVector<AffineExpr> outExprs;
  SmallVector<utils::IteratorType> iterators;
  for (int64_t i = 0; i < rank; ++i) {
    bool reduced = llvm::is_contained(axes, i);
    iterators.push_back(reduced ? utils::IteratorType::reduction
                                : utils::IteratorType::parallel);
    if (!reduced)
      outExprs.push_back(getAffineDimExpr(i, ctx));
    else if (keepDims)
      outExprs.push_back(getAffineConstantExpr(0, ctx));
  }
  SmallVector<AffineMap> maps(inputs.size(),
                              AffineMap::getMultiDimIdentityMap(rank, ctx));
  maps.append(resultTypes.size(), AffineMap::get(rank, 0, outExprs, ctx));
  auto generic = linalg::GenericOp::create(
      b, loc, resultTypes, inputs, outs, maps, iterators,
      [&](OpBuilder &nb, Location nl, ValueRange args) {
        linalg::YieldOp::create(nb, nl, body(nb, nl, args));
      });
  return SmallVector<Value>(generic.getResults());
}

/// The lowest (or highest) value of an element type: -inf/+inf for floats.
Value extremeConstant(OpBuilder &b, Location loc, Type element, bool lowest) {
  if (isa<FloatType>(element))
    return scalarConstant(b, loc, element,
                          lowest ? -std::numeric_limits<double>::infinity()
                                 : std::numeric_limits<double>::infinity());
  unsigned width = element.getIntOrFloatBitWidth();
  APInt v = lowest ? APInt::getSignedMinValue(width)
                   : APInt::getSignedMaxValue(width);
  return arith::ConstantOp::create(b, loc, b.getIntegerAttr(element, v));
}

/// The identity of the reduction `op` (mean reduces with sum).
Value initConstant(OpBuilder &b, Location loc, Operation *op, Type element) {
  if (isa<MaxOp>(op))
    return extremeConstant(b, loc, element, /*lowest=*/true);
  if (isa<MinOp>(op))
    return extremeConstant(b, loc, element, /*lowest=*/false);
  return scalarConstant(b, loc, element, isa<ProdOp>(op) ? 1 : 0);
}

Value combine(OpBuilder &b, Location loc, Operation *op, Value x, Value acc,
              bool fastMath) {
  auto fmf = arith::FastMathFlagsAttr::get(
      b.getContext(), fastMath ? arith::FastMathFlags::reassoc
                               : arith::FastMathFlags::none);
  bool fp = isa<FloatType>(x.getType());
  if (isa<SumOp, MeanOp, SumToShapeOp>(op))
    return fp ? (Value)arith::AddFOp::create(b, loc, x, acc, fmf)
              : (Value)arith::AddIOp::create(b, loc, x, acc);
  if (isa<ProdOp>(op))
    return fp ? (Value)arith::MulFOp::create(b, loc, x, acc, fmf)
              : (Value)arith::MulIOp::create(b, loc, x, acc);
  if (isa<MaxOp>(op))
    return fp ? (Value)arith::MaximumFOp::create(b, loc, x, acc, fmf)
              : (Value)arith::MaxSIOp::create(b, loc, x, acc);
  return fp ? (Value)arith::MinimumFOp::create(b, loc, x, acc, fmf)
            : (Value)arith::MinSIOp::create(b, loc, x, acc);
}

/// Reduces `input` over `axes` with the combiner of `op` (sum, prod, max or
/// min; mean reduces with sum). Without fast-math, f32 sums and products
/// accumulate in f64, as eagerly: an intermediate beyond the f32 range
/// (1e30 * -3 * 3e9 * 4e-45) does not turn a finite result into inf.
Value reduce(OpBuilder &b, Location loc, Operation *op, Value input,
             ArrayRef<int64_t> axes, bool keepDims, RankedTensorType type,
             bool fastMath) {
  Type element = type.getElementType();
  bool wide = !fastMath && element.isF32() &&
              isa<SumOp, MeanOp, ProdOp, SumToShapeOp>(op);
  RankedTensorType accType = wide ? type.clone(b.getF64Type()) : type;
  Value init = initConstant(b, loc, op, accType.getElementType());
  Value result =
      buildReduction(
          b, loc, input, axes, keepDims, accType, init,
          [&](OpBuilder &nb, Location nl, ValueRange args) {
            Value x = args[0];
            if (wide)
              x = arith::ExtFOp::create(nb, nl, nb.getF64Type(), x);
            return SmallVector<Value>{
                combine(nb, nl, op, x, args[1], fastMath)};
          })
          .front();
  if (!wide)
    return result;
  return buildElementwise(b, loc, type, result,
                          [&](OpBuilder &nb, Location nl, ValueRange v) {
                            return arith::TruncFOp::create(nb, nl, element,
                                                           v[0])
                                .getResult();
                          });
}

template <typename OpTy>
struct ReduceLowering : public OpConversionPattern<OpTy> {
  ReduceLowering(MLIRContext *ctx, bool fastMath)
      : OpConversionPattern<OpTy>(ctx), fastMath(fastMath) {}

  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getInput();
    auto inType = cast<RankedTensorType>(input.getType());
    SmallVector<int64_t> axes =
        normalizedAxes(inType.getRank(), op.getAxes());
    RankedTensorType type = op.getType();
    // Reducing a scalar over no axis combines it with the identity once:
    // x itself, except that a float sum (or mean) is 0 + x, as eagerly,
    // which makes -0.0 +0.0. (Not as a generic with no loops that reads
    // its accumulator: upstream elementwise fusion would fold that into a
    // consumer's loop and accumulate across iterations.)
    if (axes.empty()) {
      Type element = inType.getElementType();
      if (isa<SumOp, MeanOp>(op.getOperation()) && isa<FloatType>(element)) {
        Value x = tensor::ExtractOp::create(rewriter, loc, input);
        Value zero = scalarConstant(rewriter, loc, element, 0);
        Value sum = arith::AddFOp::create(rewriter, loc, zero, x);
        input = tensor::FromElementsOp::create(rewriter, loc, type, sum);
      }
      rewriter.replaceOp(op, input);
      return success();
    }
    Value result = reduce(rewriter, loc, op, input, axes, op.getKeepdims(),
                          type, fastMath);
    if (isa<MeanOp>(op.getOperation()))
      result = divideByCount(rewriter, loc, result, input, axes, type);
    rewriter.replaceOp(op, result);
    return success();
  }

  /// sum / count; an integer mean of nothing is 0, a float one NaN.
  static Value divideByCount(OpBuilder &b, Location loc, Value sum,
                             Value input, ArrayRef<int64_t> axes,
                             RankedTensorType type) {
    Value count = indexConstant(b, loc, 1);
    for (int64_t axis : axes)
      count = arith::MulIOp::create(b, loc, count,
                                    tensor::DimOp::create(b, loc, input, axis));
    Type element = type.getElementType();
    Value n = arith::IndexCastOp::create(b, loc, b.getI64Type(), count);
    Value divisor;
    if (isa<FloatType>(element)) {
      divisor = arith::UIToFPOp::create(b, loc, element, n);
    } else {
      Value isZero = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, n,
                                           scalarConstant(b, loc, n.getType(), 0));
      n = arith::SelectOp::create(b, loc, isZero,
                                  scalarConstant(b, loc, n.getType(), 1), n);
      divisor = element.isSignlessInteger(64)
                    ? n
                    : (Value)arith::TruncIOp::create(b, loc, element, n);
    }
    return buildElementwise(
        b, loc, type, sum, [&](OpBuilder &nb, Location nl, ValueRange s) {
          return isa<FloatType>(element)
                     ? (Value)arith::DivFOp::create(nb, nl, s[0], divisor)
                     : (Value)arith::DivSIOp::create(nb, nl, s[0], divisor);
        });
  }

  bool fastMath;
};

/// fnc.sum_to_shape: the sums known while compiling (leading dims, dims of
/// static size 1 in the result only), then, for each dim of the result
/// unknown while compiling that may be 1 where the input's is not, an
/// scf.if that sums over it when the shape holds 1 there (and raises
/// DimensionMismatch unless the sizes are equal). Dims the trace proved
/// equal (kSameUnknownDims) need neither.
struct SumToShapeLowering : public OpConversionPattern<SumToShapeOp> {
  SumToShapeLowering(MLIRContext *ctx, bool fastMath)
      : OpConversionPattern<SumToShapeOp>(ctx), fastMath(fastMath) {}

  LogicalResult
  matchAndRewrite(SumToShapeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType type = op.getType();
    Value r = adaptor.getInput();
    auto inType = cast<RankedTensorType>(r.getType());
    int64_t rank = type.getRank(), lead = inType.getRank() - rank;
    bool same = op->hasAttr(kSameUnknownDims);
    SmallVector<int64_t> ones, leading;
    for (int64_t i = 0; i < lead; ++i)
      leading.push_back(i);
    for (int64_t i = 0; i < rank; ++i)
      if (type.getDimSize(i) == 1 && inType.getDimSize(lead + i) != 1)
        ones.push_back(lead + i);
    if (!ones.empty())
      r = sum(rewriter, loc, op, r, ones, /*keepDims=*/true);
    if (!leading.empty())
      r = sum(rewriter, loc, op, r, leading, /*keepDims=*/false);
    Value source;
    if (auto shapeOf = op.getShape().getDefiningOp<ShapeOfOp>())
      source = rewriter.getRemappedValue(shapeOf.getInput());
    for (int64_t i = 0; i < rank; ++i) {
      auto rType = cast<RankedTensorType>(r.getType());
      OpFoldResult d = tensor::getMixedSize(rewriter, loc, r, i);
      if (!type.isDynamicDim(i)) {
        // A static size: 1 is summed already, another is the input's.
        if (type.getDimSize(i) != 1)
          checkSize(rewriter, loc, d, rewriter.getIndexAttr(type.getDimSize(i)),
                    ErrorCode::DimensionMismatch);
        continue;
      }
      if (rType.getDimSize(i) == 1 || (same && rType.isDynamicDim(i)))
        continue;
      Value t;
      if (source) {
        t = getValueOrCreateConstantIndexOp(
            rewriter, loc, tensor::getMixedSize(rewriter, loc, source, i));
      } else {
        Value element = tensor::ExtractOp::create(
            rewriter, loc, adaptor.getShape(),
            ValueRange{indexConstant(rewriter, loc, i)});
        t = arith::IndexCastOp::create(rewriter, loc, rewriter.getIndexType(),
                                       element);
      }
      Value dv = getValueOrCreateConstantIndexOp(rewriter, loc, d);
      Value one = indexConstant(rewriter, loc, 1);
      auto eq = [&](Value a, Value b) {
        return arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::eq,
                                     a, b);
      };
      auto ne = [&](Value a, Value b) {
        return arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::ne,
                                     a, b);
      };
      Value stretched = arith::AndIOp::create(rewriter, loc, eq(t, one),
                                              ne(dv, one));
      Value mismatch = arith::AndIOp::create(rewriter, loc, ne(t, one),
                                             ne(t, dv));
      raiseErrorIf(rewriter, loc, mismatch, ErrorCode::DimensionMismatch, t,
                   dv);
      SmallVector<int64_t> shape(rType.getShape());
      shape[i] = ShapedType::kDynamic;
      auto branchType = rType.clone(shape);
      Value input = r;
      r = scf::IfOp::create(
              rewriter, loc, stretched,
              [&](OpBuilder &b, Location l) {
                Value s = sum(b, l, op, input, {i},
                              /*keepDims=*/true);
                scf::YieldOp::create(
                    b, l, ValueRange{tensor::CastOp::create(b, l, branchType, s)
                                         .getResult()});
              },
              [&](OpBuilder &b, Location l) {
                Value whole = input;
                if (whole.getType() != branchType)
                  whole = tensor::CastOp::create(b, l, branchType, whole);
                scf::YieldOp::create(b, l, ValueRange{whole});
              })
              .getResult(0);
    }
    if (r.getType() != type)
      r = tensor::CastOp::create(rewriter, loc, type, r);
    rewriter.replaceOp(op, r);
    return success();
  }

  /// `input` summed over `axes`, with its element type.
  Value sum(OpBuilder &b, Location loc, SumToShapeOp op, Value input,
            ArrayRef<int64_t> axes, bool keepDims) const {
    auto inType = cast<RankedTensorType>(input.getType());
    SmallVector<int64_t> shape;
    for (int64_t d = 0; d < inType.getRank(); ++d) {
      if (!llvm::is_contained(axes, d))
        shape.push_back(inType.getDimSize(d));
      else if (keepDims)
        shape.push_back(1);
    }
    return reduce(b, loc, op, input, axes, keepDims, inType.clone(shape),
                  fastMath);
  }

  bool fastMath;
};

struct ArgmaxLowering : public OpConversionPattern<ArgmaxOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ArgmaxOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getInput();
    auto inType = cast<RankedTensorType>(input.getType());
    int64_t axis;
    ::fnc::shapes::normalizeAxis(op.getAxis(), inType.getRank(), axis);
    Type element = inType.getElementType();
    RankedTensorType indexType = op.getType();
    auto valueType = RankedTensorType::get(indexType.getShape(), element);
    // An empty axis has no extreme element (eager's error), unless there
    // are no results either; known while tracing, the shape rule refused it.
    if (inType.getDimSize(axis) == 0 || inType.isDynamicDim(axis)) {
      Value results = indexConstant(rewriter, loc, 1);
      for (int64_t d = 0; d < inType.getRank(); ++d)
        if (d != axis)
          results = arith::MulIOp::create(
              rewriter, loc, results,
              tensor::DimOp::create(rewriter, loc, input, d));
      Value zero = indexConstant(rewriter, loc, 0);
      Value empty = arith::AndIOp::create(
          rewriter, loc,
          arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::eq,
                                tensor::DimOp::create(rewriter, loc, input,
                                                      axis),
                                zero),
          arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::ne,
                                results, zero));
      raiseErrorIf(rewriter, loc, empty, ErrorCode::EmptyArgAxis, results,
                   zero);
    }
    Value lowest = extremeConstant(rewriter, loc, element, /*lowest=*/true);
    Value zero = scalarConstant(rewriter, loc, indexType.getElementType(), 0);
    SmallVector<Value> results = buildReduction(
        rewriter, loc, input, {axis}, false, {valueType, indexType},
        {lowest, zero}, [&](OpBuilder &b, Location l, ValueRange args) {
          Value x = args[0], best = args[1], bestIndex = args[2];
          Value greater;
          if (isa<FloatType>(element)) {
            // The first NaN wins, as eagerly: x replaces best if greater,
            // or if x is the first NaN.
            auto cmp = [&](arith::CmpFPredicate p, Value u, Value v) {
              return arith::CmpFOp::create(b, l, p, u, v);
            };
            Value firstNaN = arith::AndIOp::create(
                b, l, cmp(arith::CmpFPredicate::UNO, x, x),
                cmp(arith::CmpFPredicate::ORD, best, best));
            greater = arith::OrIOp::create(
                b, l, cmp(arith::CmpFPredicate::OGT, x, best), firstNaN);
          } else {
            greater = arith::CmpIOp::create(b, l, arith::CmpIPredicate::sgt,
                                            x, best);
          }
          Value i = arith::IndexCastOp::create(
              b, l, indexType.getElementType(),
              linalg::IndexOp::create(b, l, axis));
          return SmallVector<Value>{
              arith::SelectOp::create(b, l, greater, x, best),
              arith::SelectOp::create(b, l, greater, i, bestIndex)};
        });
    rewriter.replaceOp(op, results[1]);
    return success();
  }
};

/// softmax = e / sum(e) and log_softmax = (x - m) - log(sum(e)), with
/// e = exp(x - m) and m the maximum along the axis.
template <typename OpTy>
struct SoftmaxLowering : public OpConversionPattern<OpTy> {
  SoftmaxLowering(MLIRContext *ctx, bool fastMath)
      : OpConversionPattern<OpTy>(ctx), fastMath(fastMath) {}

  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value x = adaptor.getInput();
    RankedTensorType type = op.getType();
    int64_t axis;
    ::fnc::shapes::normalizeAxis(op.getAxis(), type.getRank(), axis);
    SmallVector<int64_t> keptShape(type.getShape());
    keptShape[axis] = 1;
    auto keptType = RankedTensorType::get(keptShape, type.getElementType());

    auto fmf = arith::FastMathFlagsAttr::get(
        rewriter.getContext(),
        fastMath ? arith::FastMathFlags::reassoc : arith::FastMathFlags::none);
    Value m = buildReduction(
                  rewriter, loc, x, {axis}, true, keptType,
                  extremeConstant(rewriter, loc, type.getElementType(), true),
                  [&](OpBuilder &b, Location l, ValueRange a) {
                    return SmallVector<Value>{
                        arith::MaximumFOp::create(b, l, a[0], a[1], fmf)};
                  })
                  .front();
    Value shifted = buildElementwise(
        rewriter, loc, type, {x, m},
        [](OpBuilder &b, Location l, ValueRange s) -> Value {
          return arith::SubFOp::create(b, l, s[0], s[1]);
        });
    // Without fast-math an f32 softmax sums, divides and takes the log in
    // f64, as the reference kernel does: log_softmax's log(sum) near 1 in
    // f32 loses the low digits of a result near 0 (1e-5 relative).
    Type elementType = type.getElementType();
    Type wideType = !fastMath && elementType.isF32()
                        ? Type(rewriter.getF64Type())
                        : elementType;
    auto wide = [&](RankedTensorType t) {
      return RankedTensorType::get(t.getShape(), wideType);
    };
    Value e =
        buildElementwise(rewriter, loc, wide(type), shifted,
                         [wideType](OpBuilder &b, Location l, ValueRange s) {
                           Value v = s[0];
                           if (v.getType() != wideType)
                             v = arith::ExtFOp::create(b, l, wideType, v);
                           return (Value)math::ExpOp::create(b, l, v);
                         });
    Value zero = scalarConstant(rewriter, loc, wideType, 0);
    Value sum = buildReduction(rewriter, loc, e, {axis}, true, wide(keptType),
                               zero,
                               [&](OpBuilder &b, Location l, ValueRange a) {
                                 return SmallVector<Value>{arith::AddFOp::create(
                                     b, l, a[0], a[1], fmf)};
                               })
                    .front();
    auto narrow = [elementType](OpBuilder &b, Location l, Value v) {
      return v.getType() == elementType
                 ? v
                 : (Value)arith::TruncFOp::create(b, l, elementType, v);
    };
    Value result;
    if (isa<SoftmaxOp>(op.getOperation())) {
      result = buildElementwise(
          rewriter, loc, type, {e, sum},
          [&](OpBuilder &b, Location l, ValueRange s) -> Value {
            return narrow(b, l, arith::DivFOp::create(b, l, s[0], s[1]));
          });
    } else {
      result = buildElementwise(
          rewriter, loc, type, {shifted, sum},
          [&](OpBuilder &b, Location l, ValueRange s) -> Value {
            Value x = s[0];
            if (x.getType() != wideType)
              x = arith::ExtFOp::create(b, l, wideType, x);
            return narrow(b, l,
                          arith::SubFOp::create(
                              b, l, x, math::LogOp::create(b, l, s[1])));
          });
    }
    rewriter.replaceOp(op, result);
    return success();
  }

  bool fastMath;
};

struct MatmulLowering : public OpConversionPattern<MatmulOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(MatmulOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    Value lhs = adaptor.getLhs(), rhs = adaptor.getRhs();
    auto lt = cast<RankedTensorType>(lhs.getType());
    auto rt = cast<RankedTensorType>(rhs.getType());
    RankedTensorType type = op.getType();
    int64_t batch = type.getRank() - 2, lr = lt.getRank(), rr = rt.getRank();

    // Sizes: batch dims broadcast (numpy's rule at run time: a batch dim
    // unknown while compiling that is 1 stretches); m from lhs, n from rhs;
    // k must agree.
    SmallVector<int64_t> batchShape(type.getShape().drop_back(2));
    BroadcastSizes bs = broadcastSizes(rewriter, loc, batchShape, {lhs, rhs},
                                       {lr - 2, rr - 2}, /*allowStretch=*/true,
                                       /*unknownDimsAgree=*/false);
    SmallVector<OpFoldResult> sizes = bs.sizes;
    sizes.push_back(tensor::getMixedSize(rewriter, loc, lhs, lr - 2));
    sizes.push_back(tensor::getMixedSize(rewriter, loc, rhs, rr - 1));
    Value outOfBounds = orElse(rewriter, loc, bs.outOfBounds, bs.disagree);
    outOfBounds = orElse(
        rewriter, loc, outOfBounds,
        checkSize(rewriter, loc,
                  tensor::getMixedSize(rewriter, loc, lhs, lr - 1),
                  tensor::getMixedSize(rewriter, loc, rhs, rr - 2),
                  ErrorCode::DimensionMismatch));

    // Loops: (batch..., m, k, n).
    int64_t loops = batch + 3;
    auto d = [&](int64_t i) { return getAffineDimExpr(i, ctx); };
    auto operandMap = [&](RankedTensorType t, AffineExpr row, AffineExpr col) {
      SmallVector<AffineExpr> exprs;
      int64_t r = t.getRank();
      for (int64_t j = 0; j < r - 2; ++j) {
        int64_t i = j + batch - (r - 2);
        bool broadcast = t.getDimSize(j) == 1 && type.getDimSize(i) != 1;
        exprs.push_back(broadcast ? getAffineConstantExpr(0, ctx) : d(i));
      }
      exprs.push_back(row);
      exprs.push_back(col);
      return AffineMap::get(loops, 0, exprs, ctx);
    };
    SmallVector<AffineExpr> outExprs;
    for (int64_t i = 0; i < batch; ++i)
      outExprs.push_back(d(i));
    outExprs.push_back(d(batch));
    outExprs.push_back(d(batch + 2));
    AffineMap outMap = AffineMap::get(loops, 0, outExprs, ctx);
    SmallVector<utils::IteratorType> iterators(loops,
                                               utils::IteratorType::parallel);
    iterators[batch + 1] = utils::IteratorType::reduction;
    bool fp = isa<FloatType>(type.getElementType());

    auto matmul = [&](OpBuilder &b, Location l, Value lhs, Value rhs) {
          SmallVector<AffineMap> maps = {
              operandMap(cast<RankedTensorType>(lhs.getType()), d(batch),
                         d(batch + 1)),
              operandMap(cast<RankedTensorType>(rhs.getType()), d(batch + 1),
                         d(batch + 2)),
              outMap};
          Value init = filledTensor(b, l, type, sizes, 0);
          return linalg::GenericOp::create(
                     b, l, type, ValueRange{lhs, rhs}, init, maps, iterators,
                     [&](OpBuilder &nb, Location nl, ValueRange a) {
                       Value r =
                           fp ? (Value)arith::AddFOp::create(
                                    nb, nl, a[2],
                                    arith::MulFOp::create(nb, nl, a[0], a[1]))
                              : (Value)arith::AddIOp::create(
                                    nb, nl, a[2],
                                    arith::MulIOp::create(nb, nl, a[0], a[1]));
                       linalg::YieldOp::create(nb, nl, r);
                     })
              .getResult(0);
    };
    // A batch dim of 1 at run time against a larger one: the operand is
    // copied to the full batch first (the slow path, as for elementwise ops).
    auto stretched = [&](OpBuilder &b, Location l) -> Value {
      Value x = lhs, y = rhs;
      if (!bs.stretched[0].empty())
        x = stretchOperand(b, l, lhs, type, sizes, bs.stretched[0]);
      if (!bs.stretched[1].empty())
        y = stretchOperand(b, l, rhs, type, sizes, bs.stretched[1]);
      return matmul(b, l, x, y);
    };
    Value result = guardedBy(
        rewriter, loc, outOfBounds, type, sizes,
        [&](OpBuilder &b, Location l) -> Value {
          if (!bs.stretch)
            return matmul(b, l, lhs, rhs);
          return scf::IfOp::create(
                     b, l, bs.stretch,
                     [&](OpBuilder &tb, Location tl) {
                       scf::YieldOp::create(tb, tl, stretched(tb, tl));
                     },
                     [&](OpBuilder &eb, Location el) {
                       scf::YieldOp::create(eb, el, matmul(eb, el, lhs, rhs));
                     })
              .getResult(0);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct Conv2DLowering : public OpConversionPattern<Conv2DOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(Conv2DOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getInput(), filter = adaptor.getFilter();
    auto inType = cast<RankedTensorType>(input.getType());
    auto filterType = cast<RankedTensorType>(filter.getType());
    RankedTensorType type = op.getType();
    ArrayRef<int64_t> strides = op.getStrides();
    Type element = type.getElementType();

    // Channels must agree when one of them is dynamic.
    if (inType.isDynamicDim(3) || filterType.isDynamicDim(2)) {
      Value c1 = tensor::DimOp::create(rewriter, loc, input, 3);
      Value c2 = tensor::DimOp::create(rewriter, loc, filter, 2);
      Value ne = arith::CmpIOp::create(rewriter, loc,
                                       arith::CmpIPredicate::ne, c1, c2);
      raiseErrorIf(rewriter, loc, ne, ErrorCode::DimensionMismatch, c1, c2);
    }

    SmallVector<OpFoldResult> low(4, rewriter.getIndexAttr(0)), high = low;
    SmallVector<OpFoldResult> outSizes = {
        tensor::getMixedSize(rewriter, loc, input, 0), OpFoldResult(),
        OpFoldResult(), tensor::getMixedSize(rewriter, loc, filter, 3)};
    bool padded = false;
    for (int d = 0; d < 2; ++d) {
      int64_t in = inType.getDimSize(1 + d), k = filterType.getDimSize(d);
      int64_t out = type.getDimSize(1 + d);
      if (op.getPadding() == Padding::same) {
        // TF's SAME: total = max((out - 1) * s + k - in, 0), half before.
        if (!ShapedType::isDynamic(in) && !ShapedType::isDynamic(k)) {
          int64_t before, after;
          ::fnc::shapes::conv2dPadding(in, k, strides[d],
                                      ::fnc::shapes::Padding::Same, before,
                                      after);
          low[1 + d] = rewriter.getIndexAttr(before);
          high[1 + d] = rewriter.getIndexAttr(after);
          padded |= before || after;
        } else {
          Value inV = tensor::DimOp::create(rewriter, loc, input, 1 + d);
          Value kV = tensor::DimOp::create(rewriter, loc, filter, d);
          Value s = indexConstant(rewriter, loc, strides[d]);
          Value one = indexConstant(rewriter, loc, 1);
          Value outV = arith::CeilDivUIOp::create(rewriter, loc, inV, s);
          Value total = arith::SubIOp::create(
              rewriter, loc,
              arith::AddIOp::create(
                  rewriter, loc,
                  arith::MulIOp::create(
                      rewriter, loc,
                      arith::SubIOp::create(rewriter, loc, outV, one), s),
                  kV),
              inV);
          total = arith::MaxSIOp::create(rewriter, loc, total,
                                         indexConstant(rewriter, loc, 0));
          Value before = arith::DivUIOp::create(
              rewriter, loc, total, indexConstant(rewriter, loc, 2));
          low[1 + d] = before;
          high[1 + d] =
              arith::SubIOp::create(rewriter, loc, total, before).getResult();
          padded = true;
        }
      }
      outSizes[1 + d] =
          ShapedType::isDynamic(out)
              ? OpFoldResult(convOutSize(rewriter, loc, input, filter, d,
                                         strides[d], op.getPadding()))
              : OpFoldResult(rewriter.getIndexAttr(out));
    }
    // Nothing to compute (no images, channels or taps): zeros, without
    // padding an empty input (whose zero-size inserts do not verify).
    if (hasStaticZeroDim(type) || hasStaticZeroDim(inType) ||
        hasStaticZeroDim(filterType)) {
      rewriter.replaceOp(op, filledTensor(rewriter, loc, type, outSizes, 0));
      return success();
    }
    Value original = input;
    if (padded) {
      SmallVector<int64_t> paddedShape(inType.getShape());
      for (int d = 0; d < 2; ++d) {
        auto lo = getConstantIntValue(low[1 + d]);
        auto hi = getConstantIntValue(high[1 + d]);
        if (!inType.isDynamicDim(1 + d) && lo && hi)
          paddedShape[1 + d] += *lo + *hi;
        else
          paddedShape[1 + d] = ShapedType::kDynamic;
      }
      auto paddedType = RankedTensorType::get(paddedShape, element);
      input = tensor::PadOp::create(rewriter, loc, paddedType, input, low,
                                    high,
                                    scalarConstant(rewriter, loc, element, 0));
    }
    // Loops (n, oh, ow, kh, kw, c, f): the innermost walks the filter and
    // the output contiguously along f, so it vectorizes; the leading
    // (n, oh, ow) run in parallel (see -fnc-lower-to-ordered-loops).
    MLIRContext *ctx = rewriter.getContext();
    auto d = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
    SmallVector<AffineMap> maps = {
        AffineMap::get(7, 0,
                       {d(0), d(1) * strides[0] + d(3),
                        d(2) * strides[1] + d(4), d(5)},
                       ctx),
        AffineMap::get(7, 0, {d(3), d(4), d(5), d(6)}, ctx),
        AffineMap::get(7, 0, {d(0), d(1), d(2), d(6)}, ctx)};
    using utils::IteratorType;
    SmallVector<IteratorType> iterators = {
        IteratorType::parallel,  IteratorType::parallel,
        IteratorType::parallel,  IteratorType::reduction,
        IteratorType::reduction, IteratorType::reduction,
        IteratorType::parallel};
    bool fp = isa<FloatType>(element);
    auto conv = [&](OpBuilder &nb, Location nl, bool skipPadding) -> Value {
      Value init = filledTensor(nb, nl, type, outSizes, 0);
      return linalg::GenericOp::create(
                 nb, nl, type, ValueRange{input, filter}, init, maps,
                 iterators,
                 [&](OpBuilder &b, Location l, ValueRange a) {
                   Value r;
                   if (!fp) {
                     r = arith::AddIOp::create(
                         b, l, a[2], arith::MulIOp::create(b, l, a[0], a[1]));
                   } else {
                     r = arith::AddFOp::create(
                         b, l, a[2], arith::MulFOp::create(b, l, a[0], a[1]));
                     if (skipPadding)
                       r = arith::SelectOp::create(
                           b, l, insideInput(b, l, low, inType, original, strides),
                           r, a[2]);
                   }
                   linalg::YieldOp::create(b, l, r);
                 })
          .getResult(0);
    };
    if (!padded || !fp) {
      rewriter.replaceOp(op, conv(rewriter, loc, false));
      return success();
    }
    // The padding's zeros times an infinite or NaN tap would be NaN where
    // eager skips the padding: a filter with such a tap takes the exact
    // form, which adds only the taps inside the input (the fast one feeds
    // the convolution kernel of -fnc-lower-to-ordered-loops).
    Value finite = allFinite(rewriter, loc, filter);
    auto result = scf::IfOp::create(
        rewriter, loc, finite,
        [&](OpBuilder &b, Location l) {
          scf::YieldOp::create(b, l, conv(b, l, false));
        },
        [&](OpBuilder &b, Location l) {
          scf::YieldOp::create(b, l, conv(b, l, true));
        });
    rewriter.replaceOp(op, result.getResult(0));
    return success();
  }

  /// True in the body of the convolution over the padded input where the
  /// input element read, at padded row d1 * s0 + d3 and column d2 * s1 + d4,
  /// is one of `original` (not the padding before or after it).
  static Value insideInput(OpBuilder &b, Location loc,
                           ArrayRef<OpFoldResult> low, RankedTensorType inType,
                           Value original, ArrayRef<int64_t> strides) {
    Value inside;
    for (int d = 0; d < 2; ++d) {
      Value out = linalg::IndexOp::create(b, loc, 1 + d);
      Value tap = linalg::IndexOp::create(b, loc, 3 + d);
      Value at = arith::AddIOp::create(
          b, loc,
          arith::MulIOp::create(b, loc, out, indexConstant(b, loc, strides[d])),
          tap);
      Value before = getValueOrCreateConstantIndexOp(b, loc, low[1 + d]);
      Value size = inType.isDynamicDim(1 + d)
                       ? (Value)tensor::DimOp::create(b, loc, original, 1 + d)
                       : indexConstant(b, loc, inType.getDimSize(1 + d));
      Value rel = arith::SubIOp::create(b, loc, at, before);
      // `at - before` in [0, size), unsigned (a negative one wraps high).
      Value ok = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, rel,
                                       size);
      inside = inside ? (Value)arith::AndIOp::create(b, loc, inside, ok) : ok;
    }
    return inside;
  }

  /// An i1: every element of the float tensor `x` is finite.
  static Value allFinite(OpBuilder &b, Location loc, Value x) {
    auto type = cast<RankedTensorType>(x.getType());
    SmallVector<int64_t> axes;
    for (int64_t d = 0; d < type.getRank(); ++d)
      axes.push_back(d);
    auto boolType = RankedTensorType::get({}, b.getI1Type());
    Value yes = arith::ConstantIntOp::create(b, loc, b.getI1Type(), 1);
    Value all =
        buildReduction(
            b, loc, x, axes, false, boolType, yes,
            [&](OpBuilder &nb, Location nl, ValueRange a) {
              Value v = a[0];
              Value inf = scalarConstant(nb, nl, v.getType(),
                                         std::numeric_limits<double>::infinity());
              // |v| < inf is false for +-inf and NaN.
              Value finite = arith::CmpFOp::create(
                  nb, nl, arith::CmpFPredicate::OLT,
                  math::AbsFOp::create(nb, nl, v), inf);
              return SmallVector<Value>{
                  arith::AndIOp::create(nb, nl, a[1], finite)};
            })
            .front();
    return tensor::ExtractOp::create(b, loc, all, ValueRange{});
  }

  static Value convOutSize(OpBuilder &b, Location loc, Value input,
                           Value filter, int d, int64_t stride,
                           Padding padding) {
    Value in = tensor::DimOp::create(b, loc, input, 1 + d);
    Value s = indexConstant(b, loc, stride);
    if (padding == Padding::same)
      return arith::CeilDivUIOp::create(b, loc, in, s);
    // VALID: a filter larger than an input dim known only at run time is
    // the error eager reports, and no output rows.
    Value k = tensor::DimOp::create(b, loc, filter, d);
    Value small =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, in, k);
    raiseErrorIf(b, loc, small, ErrorCode::WindowTooLarge, k, in);
    Value zero = indexConstant(b, loc, 0);
    Value span = arith::SelectOp::create(b, loc, small, zero,
                                         arith::SubIOp::create(b, loc, in, k));
    Value q = arith::DivUIOp::create(b, loc, span, s);
    Value out = arith::AddIOp::create(b, loc, q, indexConstant(b, loc, 1));
    return arith::SelectOp::create(b, loc, small, zero, out);
  }
};

} // namespace

void lowering::populateStructuredPatterns(RewritePatternSet &patterns,
                                          bool fastMath) {
  MLIRContext *ctx = patterns.getContext();
  patterns.add<ReduceLowering<SumOp>, ReduceLowering<MeanOp>,
               ReduceLowering<MaxOp>, ReduceLowering<MinOp>,
               ReduceLowering<ProdOp>, SoftmaxLowering<SoftmaxOp>,
               SoftmaxLowering<LogSoftmaxOp>, SumToShapeLowering>(ctx,
                                                                  fastMath);
  patterns.add<ArgmaxLowering, MatmulLowering, Conv2DLowering>(ctx);
}
