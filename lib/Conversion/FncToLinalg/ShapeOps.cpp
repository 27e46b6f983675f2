//===- ShapeOps.cpp - Lowering of the fnc shape ops -----------------------===//
//
// transpose -> linalg.transpose; reshape, expand_dims, squeeze ->
// tensor.reshape (a view after bufferization); broadcast_to and one_hot ->
// generics with broadcasting maps; slice -> tensor.extract_slice; pad ->
// tensor.insert_slice into a filled buffer; concat -> tensor.insert_slice
// into one buffer; gather -> a generic that reads params
// with tensor.extract at a checked, clamped index. Dynamic sizes that could
// disagree with the static ones are checked at run time.
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"

#include "fnc/Dialect/Fnc/IR/FncOps.h"
#include "fnc/Shape/ShapeRules.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::fnc;
using namespace mlir::fnc::lowering;

namespace {

/// `input` viewed in `type` (same element count, row-major) with the given
/// sizes: collapse to 1-D, then expand; both are views after bufferization.
Value reshapeTo(OpBuilder &b, Location loc, Value input, RankedTensorType type,
                ArrayRef<OpFoldResult> sizes) {
  auto inType = cast<RankedTensorType>(input.getType());
  Type element = type.getElementType();
  // No elements to move; and collapse/expand reshapes through a static zero
  // dim do not lower (their strides divide by it).
  if (hasStaticZeroDim(type) || hasStaticZeroDim(inType))
    return emptyTensor(b, loc, type, sizes);
  auto allOnes = [&](int64_t rank) {
    return RankedTensorType::get(SmallVector<int64_t>(rank, 1), element);
  };
  if (type.getRank() == 0) {
    // Every input dim is 1: collapse them all away.
    Value ones = tensor::CastOp::create(b, loc, allOnes(inType.getRank()),
                                        input);
    return tensor::CollapseShapeOp::create(b, loc, type, ones,
                                           ArrayRef<ReassociationIndices>{});
  }
  if (inType.getRank() == 0) {
    Value ones = tensor::ExpandShapeOp::create(
        b, loc, allOnes(type.getRank()), input,
        ArrayRef<ReassociationIndices>{});
    return tensor::CastOp::create(b, loc, type, ones);
  }
  ReassociationIndices all;
  for (int64_t i = 0; i < inType.getRank(); ++i)
    all.push_back(i);
  int64_t count = inType.getNumElements();
  auto flatType = RankedTensorType::get(
      {inType.hasStaticShape() ? count : ShapedType::kDynamic}, element);
  Value flat = tensor::CollapseShapeOp::create(b, loc, flatType, input,
                                               ArrayRef{all});
  // A static result from a dynamic input: the caller checked the element
  // count, so the flat view has the result's.
  if (type.hasStaticShape() && !inType.hasStaticShape())
    flat = tensor::CastOp::create(
        b, loc, RankedTensorType::get({type.getNumElements()}, element), flat);
  // A dynamic result from a static input (fnc.reshape_to_shape): the flat
  // view's size is what expand_shape reads from `sizes`.
  if (!type.hasStaticShape() && inType.hasStaticShape())
    flat = tensor::CastOp::create(
        b, loc, RankedTensorType::get({ShapedType::kDynamic}, element), flat);
  ReassociationIndices outAll;
  for (int64_t i = 0; i < type.getRank(); ++i)
    outAll.push_back(i);
  return tensor::ExpandShapeOp::create(b, loc, type, flat, ArrayRef{outAll},
                                       sizes);
}

Value numElements(OpBuilder &b, Location loc, Value tensor) {
  Value n = indexConstant(b, loc, 1);
  for (OpFoldResult size : tensorSizes(b, loc, tensor))
    n = arith::MulIOp::create(b, loc, n,
                              getValueOrCreateConstantIndexOp(b, loc, size));
  return n;
}

struct TransposeLowering : public OpConversionPattern<TransposeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(TransposeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getInput();
    SmallVector<OpFoldResult> in = tensorSizes(rewriter, loc, input), out;
    for (int64_t p : op.getPerm())
      out.push_back(in[p]);
    Value init = emptyTensor(rewriter, loc, op.getType(), out);
    rewriter.replaceOp(op, linalg::TransposeOp::create(rewriter, loc, input,
                                                       init, op.getPerm())
                               .getResult());
    return success();
  }
};

struct ReshapeLowering : public OpConversionPattern<ReshapeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ReshapeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getInput();
    RankedTensorType type = op.getType();
    Value total = numElements(rewriter, loc, input);
    int64_t known = 1;
    for (int64_t d : type.getShape())
      if (!ShapedType::isDynamic(d))
        known *= d;
    SmallVector<OpFoldResult> sizes;
    Value mismatch;
    Value knownV = indexConstant(rewriter, loc, known);
    for (int64_t d : type.getShape()) {
      if (!ShapedType::isDynamic(d)) {
        sizes.push_back(rewriter.getIndexAttr(d));
        continue;
      }
      // The one dynamic dim is total / known; known must divide total.
      Value safeKnown = indexConstant(rewriter, loc, known ? known : 1);
      Value rem = arith::RemUIOp::create(rewriter, loc, total, safeKnown);
      mismatch = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::ne,
                                       rem, indexConstant(rewriter, loc, 0));
      raiseErrorIf(rewriter, loc, mismatch, ErrorCode::ReshapeSize, total, knownV);
      sizes.push_back(
          arith::DivUIOp::create(rewriter, loc, total, safeKnown).getResult());
    }
    if (type.hasStaticShape() &&
        !cast<RankedTensorType>(input.getType()).hasStaticShape())
      mismatch = checkSize(rewriter, loc, total, rewriter.getIndexAttr(known),
                           ErrorCode::ReshapeSize);
    Value result = guardedBy(rewriter, loc, mismatch, type, sizes,
                             [&](OpBuilder &b, Location l) {
                               return reshapeTo(b, l, input, type, sizes);
                             });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// The reassociation between a shape and the same shape with unit dims
/// inserted where `isUnit` holds: each unit dim joins the group of the next
/// real dim (trailing ones the last group). No group has two real dims, so
/// dynamic dims never share a group. Empty when every dim is a unit dim.
SmallVector<ReassociationIndices> unitDimGroups(ArrayRef<bool> isUnit) {
  SmallVector<ReassociationIndices> groups;
  ReassociationIndices pending;
  for (auto [i, unit] : llvm::enumerate(isUnit)) {
    pending.push_back(i);
    if (!unit) {
      groups.push_back(pending);
      pending.clear();
    }
  }
  if (!groups.empty())
    groups.back().append(pending.begin(), pending.end());
  return groups;
}

/// expand_dims: a view with a unit dim inserted.
struct ExpandDimsLowering : public OpConversionPattern<ExpandDimsOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ExpandDimsOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getInput();
    SmallVector<OpFoldResult> sizes = tensorSizes(rewriter, loc, input);
    int64_t axis;
    ::fnc::shapes::normalizeAxis(op.getAxis(), sizes.size() + 1, axis);
    sizes.insert(sizes.begin() + axis, rewriter.getIndexAttr(1));
    SmallVector<bool> isUnit(sizes.size(), false);
    isUnit[axis] = true;
    rewriter.replaceOpWithNewOp<tensor::ExpandShapeOp>(
        op, op.getType(), input, unitDimGroups(isUnit), sizes);
    return success();
  }
};

/// squeeze: a view without the unit dims (dynamic ones checked to be 1).
struct SqueezeLowering : public OpConversionPattern<SqueezeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(SqueezeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getInput();
    auto inType = cast<RankedTensorType>(input.getType());
    SmallVector<OpFoldResult> in = tensorSizes(rewriter, loc, input);
    SmallVector<bool> drop(in.size(), false);
    if (op.getAxes().empty())
      for (auto [i, d] : llvm::enumerate(inType.getShape()))
        drop[i] = d == 1;
    // A dynamic squeezed dim must be 1; if not (0 included), the view
    // below would not cover the input, so it is not built.
    Value mismatch;
    for (int64_t axis : op.getAxes()) {
      int64_t a;
      ::fnc::shapes::normalizeAxis(axis, in.size(), a);
      drop[a] = true;
      mismatch = orElse(rewriter, loc, mismatch,
                        checkSize(rewriter, loc, in[a],
                                  rewriter.getIndexAttr(1),
                                  ErrorCode::SqueezeSize));
    }
    SmallVector<OpFoldResult> out;
    for (auto [size, dropped] : llvm::zip(in, drop))
      if (!dropped)
        out.push_back(size);
    SmallVector<int64_t> unitShape(inType.getShape());
    for (auto [i, d] : llvm::enumerate(drop))
      if (d)
        unitShape[i] = 1;
    RankedTensorType type = op.getType();
    Value result = guardedBy(
        rewriter, loc, mismatch, type, out, [&](OpBuilder &b, Location l) {
          Value units = input;
          if (ArrayRef<int64_t>(unitShape) != inType.getShape())
            units = tensor::CastOp::create(
                b, l, RankedTensorType::get(unitShape, inType.getElementType()),
                input);
          return tensor::CollapseShapeOp::create(b, l, type, units,
                                                 unitDimGroups(drop))
              .getResult();
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// The map reading `type` broadcast (numpy rules) into `rank` loops.
AffineMap broadcastMap(RankedTensorType type, RankedTensorType result,
                       MLIRContext *ctx) {
  int64_t rank = result.getRank(), r = type.getRank();
  SmallVector<AffineExpr> exprs;
  for (int64_t j = 0; j < r; ++j) {
    int64_t i = j + rank - r;
    bool broadcast = type.getDimSize(j) == 1 && result.getDimSize(i) != 1;
    exprs.push_back(broadcast ? getAffineConstantExpr(0, ctx)
                              : getAffineDimExpr(i, ctx));
  }
  return AffineMap::get(rank, 0, exprs, ctx);
}

/// Whether the tracer knows that op's unknown dims meet equal ones.
bool sameUnknownDims(Operation *op) { return op->hasAttr(kSameUnknownDims); }

/// `input` broadcast to `type` with the given full `sizes`; `mismatch`
/// (null for never) is the i1 of checks already made, to which the input's
/// own dims are added. A dynamic input dim that is 1 at run time broadcasts
/// against a static result dim, and against a dynamic one unless
/// `sameUnknownDims` (the tracer knows they are equal): a slower path
/// copies it to full size. Any other size must equal the result's.
Value broadcastInto(OpBuilder &b, Location loc, Value input,
                    RankedTensorType type, ArrayRef<OpFoldResult> sizes,
                    Value mismatch, bool sameUnknownDims) {
  auto inType = cast<RankedTensorType>(input.getType());
  int64_t rank = type.getRank(), r = inType.getRank();
  Value stretch;
  SmallVector<std::pair<int64_t, Value>> stretched;
  for (int64_t j = 0; j < r; ++j) {
    if (inType.getDimSize(j) == 1)
      continue;
    int64_t out = type.getDimSize(j + rank - r);
    if (inType.isDynamicDim(j) && !ShapedType::isDynamic(out) && out != 1) {
      Value d = tensor::DimOp::create(b, loc, input, j);
      StretchCheck check = checkStretchable(b, loc, d, out);
      mismatch = orElse(b, loc, mismatch, check.mismatch);
      stretch = orElse(b, loc, stretch, check.isOne);
      stretched.push_back({j, d});
      continue;
    }
    if (inType.isDynamicDim(j) && ShapedType::isDynamic(out) &&
        !sameUnknownDims) {
      // numpy's rule at run time: 1 stretches to the result's size, any
      // other size must equal it.
      Value d = tensor::DimOp::create(b, loc, input, j);
      Value size = getValueOrCreateConstantIndexOp(b, loc, sizes[j + rank - r]);
      Value one = indexConstant(b, loc, 1);
      auto ne = [&](Value x, Value y) {
        return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, x, y);
      };
      Value isOne =
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, d, one);
      Value bad = arith::AndIOp::create(b, loc, ne(d, one), ne(d, size));
      raiseErrorIf(b, loc, bad, ErrorCode::DimensionMismatch, d, size);
      mismatch = orElse(b, loc, mismatch, bad);
      stretch = orElse(b, loc, stretch,
                       arith::AndIOp::create(b, loc, isOne, ne(size, one)));
      stretched.push_back({j, d});
      continue;
    }
    OpFoldResult in = tensor::getMixedSize(b, loc, input, j);
    mismatch = orElse(b, loc, mismatch,
                      checkSize(b, loc, in, sizes[j + rank - r],
                                ErrorCode::DimensionMismatch));
  }
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  auto copy = [&](OpBuilder &nb, Location l, Value from) -> Value {
    auto fromType = cast<RankedTensorType>(from.getType());
    SmallVector<AffineMap> maps = {
        broadcastMap(fromType, type, nb.getContext()),
        AffineMap::getMultiDimIdentityMap(rank, nb.getContext())};
    Value init = emptyTensor(nb, l, type, sizes);
    return linalg::GenericOp::create(
               nb, l, type, from, init, maps, iterators,
               [](OpBuilder &bb, Location bl, ValueRange args) {
                 linalg::YieldOp::create(bb, bl, args[0]);
               })
        .getResult(0);
  };
  return guardedBy(
      b, loc, mismatch, type, sizes, [&](OpBuilder &nb, Location l) -> Value {
        if (!stretch)
          return copy(nb, l, input);
        return scf::IfOp::create(
                   nb, l, stretch,
                   [&](OpBuilder &tb, Location tl) {
                     scf::YieldOp::create(
                         tb, tl,
                         copy(tb, tl,
                              stretchOperand(tb, tl, input, type, sizes,
                                             stretched)));
                   },
                   [&](OpBuilder &eb, Location el) {
                     scf::YieldOp::create(eb, el, copy(eb, el, input));
                   })
            .getResult(0);
      });
}

struct BroadcastToLowering : public OpConversionPattern<BroadcastToOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(BroadcastToOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = op.getType();
    SmallVector<OpFoldResult> sizes;
    auto dynamicDims = adaptor.getDynamicDims();
    for (int64_t i = 0, next = 0; i < type.getRank(); ++i)
      sizes.push_back(type.isDynamicDim(i)
                          ? OpFoldResult(dynamicDims[next++])
                          : OpFoldResult(rewriter.getIndexAttr(
                                type.getDimSize(i))));
    rewriter.replaceOp(op, broadcastInto(rewriter, op.getLoc(),
                                         adaptor.getInput(), type, sizes,
                                         nullptr, sameUnknownDims(op)));
    return success();
  }
};

/// fnc.shape_of: tensor.dim of each dimension, as integers.
struct ShapeOfLowering : public OpConversionPattern<ShapeOfOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ShapeOfOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type element = op.getType().getElementType();
    SmallVector<Value> dims;
    for (OpFoldResult size : tensorSizes(rewriter, loc, adaptor.getInput()))
      dims.push_back(arith::IndexCastOp::create(
          rewriter, loc, element,
          getValueOrCreateConstantIndexOp(rewriter, loc, size)));
    rewriter.replaceOpWithNewOp<tensor::FromElementsOp>(op, op.getType(),
                                                        dims);
    return success();
  }
};

/// fnc.broadcast_to_shape: the sizes read from the shape tensor, checked
/// (static dims must agree, dynamic ones be >= 0), then a broadcast_to. A
/// shape that is fnc.shape_of of a tensor (zeros_like(x)) gives that
/// tensor's sizes, which need no check but against static result dims, so
/// the broadcast is not guarded and its buffer keeps a static layout.
struct BroadcastToShapeLowering
    : public OpConversionPattern<BroadcastToShapeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(BroadcastToShapeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType type = op.getType();
    Value mismatch;
    SmallVector<OpFoldResult> sizes;
    if (auto shapeOf = op.getShape().getDefiningOp<ShapeOfOp>()) {
      Value source = rewriter.getRemappedValue(shapeOf.getInput());
      for (int64_t i = 0; i < type.getRank(); ++i) {
        OpFoldResult size = tensor::getMixedSize(rewriter, loc, source, i);
        if (!type.isDynamicDim(i)) {
          mismatch = orElse(rewriter, loc, mismatch,
                            checkSize(rewriter, loc, size,
                                      rewriter.getIndexAttr(type.getDimSize(i)),
                                      ErrorCode::DimensionMismatch));
          size = rewriter.getIndexAttr(type.getDimSize(i));
        }
        sizes.push_back(size);
      }
      rewriter.replaceOp(op, broadcastInto(rewriter, loc, adaptor.getInput(),
                                           type, sizes, mismatch,
                                           sameUnknownDims(op)));
      return success();
    }
    for (int64_t i = 0; i < type.getRank(); ++i) {
      Value element = tensor::ExtractOp::create(
          rewriter, loc, adaptor.getShape(),
          ValueRange{indexConstant(rewriter, loc, i)});
      Value size = arith::IndexCastOp::create(rewriter, loc,
                                              rewriter.getIndexType(), element);
      if (!type.isDynamicDim(i)) {
        mismatch = orElse(rewriter, loc, mismatch,
                          checkSize(rewriter, loc, size,
                                    rewriter.getIndexAttr(type.getDimSize(i)),
                                    ErrorCode::DimensionMismatch));
        sizes.push_back(rewriter.getIndexAttr(type.getDimSize(i)));
        continue;
      }
      Value zero = indexConstant(rewriter, loc, 0);
      Value negative = arith::CmpIOp::create(
          rewriter, loc, arith::CmpIPredicate::slt, size, zero);
      raiseErrorIf(rewriter, loc, negative, ErrorCode::NegativeDimension, size,
                   indexConstant(rewriter, loc, i));
      mismatch = orElse(rewriter, loc, mismatch, negative);
      // Never allocate with a negative size, even when guarded.
      sizes.push_back(
          arith::MaxSIOp::create(rewriter, loc, size, zero).getResult());
    }
    rewriter.replaceOp(op, broadcastInto(rewriter, loc, adaptor.getInput(),
                                         type, sizes, mismatch,
                                         sameUnknownDims(op)));
    return success();
  }
};

/// The value of a 0-d integer tensor as an index.
Value indexOfScalar(OpBuilder &b, Location loc, Value scalar) {
  return arith::IndexCastOp::create(
      b, loc, b.getIndexType(),
      tensor::ExtractOp::create(b, loc, scalar, ValueRange{}));
}

/// fnc.reshape_to_shape: a view in the sizes the shape tensor holds (as
/// fnc.reshape's), after checking them: none negative, the static dims of
/// the result, and their product against the input's element count.
struct ReshapeToShapeLowering
    : public OpConversionPattern<ReshapeToShapeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ReshapeToShapeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getInput();
    RankedTensorType type = op.getType();
    Value zero = indexConstant(rewriter, loc, 0);
    Value mismatch, product = indexConstant(rewriter, loc, 1);
    SmallVector<OpFoldResult> sizes;
    for (int64_t i = 0; i < type.getRank(); ++i) {
      Value size = arith::IndexCastOp::create(
          rewriter, loc, rewriter.getIndexType(),
          tensor::ExtractOp::create(rewriter, loc, adaptor.getShape(),
                                    ValueRange{indexConstant(rewriter, loc, i)}));
      Value negative = arith::CmpIOp::create(
          rewriter, loc, arith::CmpIPredicate::slt, size, zero);
      raiseErrorIf(rewriter, loc, negative, ErrorCode::NegativeDimension, size,
                   indexConstant(rewriter, loc, i));
      mismatch = orElse(rewriter, loc, mismatch, negative);
      size = arith::MaxSIOp::create(rewriter, loc, size, zero);
      product = arith::MulIOp::create(rewriter, loc, product, size);
      if (!type.isDynamicDim(i)) {
        mismatch = orElse(rewriter, loc, mismatch,
                          checkSize(rewriter, loc, size,
                                    rewriter.getIndexAttr(type.getDimSize(i)),
                                    ErrorCode::DimensionMismatch));
        sizes.push_back(rewriter.getIndexAttr(type.getDimSize(i)));
        continue;
      }
      sizes.push_back(size);
    }
    Value total = numElements(rewriter, loc, input);
    mismatch = orElse(rewriter, loc, mismatch,
                      checkSize(rewriter, loc, total, product,
                                ErrorCode::ReshapeSize));
    // A view as fnc.reshape's where one dim is unknown; with more, a copy
    // that reads the flat input at each element's row-major position (a
    // memref.expand_shape of several dynamic dims in one group crashes
    // expand-strided-metadata in MLIR 22, and memref.reshape of a shape
    // buffer does not lower).
    auto build = [&](OpBuilder &b, Location l) -> Value {
      if (type.getNumDynamicDims() <= 1)
        return reshapeTo(b, l, input, type, sizes);
      auto flatType = RankedTensorType::get({ShapedType::kDynamic},
                                            type.getElementType());
      Value flat = reshapeTo(b, l, input, flatType, {total});
      int64_t rank = type.getRank();
      MLIRContext *ctx = b.getContext();
      SmallVector<AffineMap> maps = {AffineMap::getMultiDimIdentityMap(rank,
                                                                       ctx)};
      SmallVector<utils::IteratorType> iterators(
          rank, utils::IteratorType::parallel);
      return linalg::GenericOp::create(
                 b, l, type, ValueRange{}, emptyTensor(b, l, type, sizes),
                 maps, iterators,
                 [&](OpBuilder &nb, Location nl, ValueRange) {
                   Value at = indexConstant(nb, nl, 0);
                   for (int64_t d = 0; d < rank; ++d) {
                     Value size =
                         getValueOrCreateConstantIndexOp(nb, nl, sizes[d]);
                     at = arith::AddIOp::create(
                         nb, nl, arith::MulIOp::create(nb, nl, at, size),
                         linalg::IndexOp::create(nb, nl, d));
                   }
                   linalg::YieldOp::create(
                       nb, nl,
                       tensor::ExtractOp::create(nb, nl, flat, ValueRange{at})
                           .getResult());
                 })
          .getResult(0);
    };
    rewriter.replaceOp(op,
                       guardedBy(rewriter, loc, mismatch, type, sizes, build));
    return success();
  }
};

/// fnc.set_row: tensor.insert_slice of the value at [index, 0, ...], after
/// checking the index and the value's dims (the input unchanged on error).
/// One-Shot Bufferize updates the input's buffer in place when it dies.
struct SetRowLowering : public OpConversionPattern<SetRowOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(SetRowOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getInput(), value = adaptor.getValue();
    RankedTensorType type = op.getType();
    int64_t rank = type.getRank();
    Value index = indexOfScalar(rewriter, loc, adaptor.getIndex());
    Value rows = getValueOrCreateConstantIndexOp(
        rewriter, loc, tensor::getMixedSize(rewriter, loc, input, 0));
    Value outside = arith::OrIOp::create(
        rewriter, loc,
        arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::slt, index,
                              indexConstant(rewriter, loc, 0)),
        arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::sge, index,
                              rows));
    raiseErrorIf(rewriter, loc, outside, ErrorCode::RowIndex, index, rows);
    Value bad = outside;
    SmallVector<OpFoldResult> offsets(rank, rewriter.getIndexAttr(0)),
        sizes = {rewriter.getIndexAttr(1)},
        strides(rank, rewriter.getIndexAttr(1));
    offsets[0] = index;
    for (int64_t i = 1; i < rank; ++i) {
      OpFoldResult size = tensor::getMixedSize(rewriter, loc, input, i);
      bad = orElse(rewriter, loc, bad,
                   checkSize(rewriter, loc,
                             tensor::getMixedSize(rewriter, loc, value, i - 1),
                             size, ErrorCode::DimensionMismatch));
      sizes.push_back(size);
    }
    auto rowType = RankedTensorType::get(type.getShape().drop_front(),
                                         type.getElementType());
    auto result = scf::IfOp::create(
        rewriter, loc, bad,
        [&](OpBuilder &b, Location l) { scf::YieldOp::create(b, l, input); },
        [&](OpBuilder &b, Location l) {
          Value row = value.getType() == rowType
                          ? value
                          : tensor::CastOp::create(b, l, rowType, value)
                                .getResult();
          scf::YieldOp::create(
              b, l,
              tensor::InsertSliceOp::create(b, l, row, input, offsets, sizes,
                                            strides)
                  .getResult());
        });
    rewriter.replaceOp(op, result.getResult(0));
    return success();
  }
};

/// fnc.dynamic_slice: a tensor.extract_slice at the run-time bounds, after
/// checking them (an empty slice at 0 on error, so nothing is read out of
/// bounds).
struct DynamicSliceLowering : public OpConversionPattern<DynamicSliceOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(DynamicSliceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getInput();
    RankedTensorType type = op.getType();
    int64_t rank = type.getRank(), axis = op.getAxis();
    auto cmp = [&](arith::CmpIPredicate p, Value a, Value b) -> Value {
      return arith::CmpIOp::create(rewriter, loc, p, a, b);
    };
    Value start = indexOfScalar(rewriter, loc, adaptor.getStart()),
          size = indexOfScalar(rewriter, loc, adaptor.getSize());
    Value dim = tensor::DimOp::create(rewriter, loc, input, axis);
    Value zero = indexConstant(rewriter, loc, 0);
    Value end = arith::AddIOp::create(rewriter, loc, start, size);
    Value bad = orElse(
        rewriter, loc,
        orElse(rewriter, loc, cmp(arith::CmpIPredicate::slt, start, zero),
               cmp(arith::CmpIPredicate::slt, size, zero)),
        cmp(arith::CmpIPredicate::sgt, end, dim));
    // The element reported: the first one outside the dimension.
    Value last = arith::SubIOp::create(rewriter, loc, end,
                                       indexConstant(rewriter, loc, 1));
    Value reported = arith::SelectOp::create(
        rewriter, loc, cmp(arith::CmpIPredicate::slt, start, zero), start,
        last);
    raiseErrorIf(rewriter, loc, bad, ErrorCode::SliceOutOfRange, reported,
                 dim);
    SmallVector<OpFoldResult> offsets(rank, rewriter.getIndexAttr(0)),
        sizes = tensorSizes(rewriter, loc, input),
        strides(rank, rewriter.getIndexAttr(1));
    offsets[axis] =
        arith::SelectOp::create(rewriter, loc, bad, zero, start).getResult();
    sizes[axis] =
        arith::SelectOp::create(rewriter, loc, bad, zero, size).getResult();
    rewriter.replaceOp(op, tensor::ExtractSliceOp::create(
                               rewriter, loc, type, input, offsets, sizes,
                               strides));
    return success();
  }
};

/// fnc.dynamic_update_slice: a tensor.insert_slice of the update at the
/// run-time offset, after checking the range and the update's other dims
/// (the input unchanged on error). One-Shot Bufferize writes into the
/// input's buffer when it dies, as for fnc.set_row.
struct DynamicUpdateSliceLowering
    : public OpConversionPattern<DynamicUpdateSliceOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(DynamicUpdateSliceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getInput(), update = adaptor.getUpdate();
    RankedTensorType type = op.getType();
    int64_t rank = type.getRank(), axis = op.getAxis();
    auto cmp = [&](arith::CmpIPredicate p, Value a, Value b) -> Value {
      return arith::CmpIOp::create(rewriter, loc, p, a, b);
    };
    Value start = indexOfScalar(rewriter, loc, adaptor.getStart());
    Value dim = tensor::DimOp::create(rewriter, loc, input, axis);
    Value size = tensor::DimOp::create(rewriter, loc, update, axis);
    Value zero = indexConstant(rewriter, loc, 0);
    Value end = arith::AddIOp::create(rewriter, loc, start, size);
    Value outside =
        orElse(rewriter, loc, cmp(arith::CmpIPredicate::slt, start, zero),
               cmp(arith::CmpIPredicate::sgt, end, dim));
    // The element reported: the first one outside the dimension.
    Value last = arith::SubIOp::create(rewriter, loc, end,
                                       indexConstant(rewriter, loc, 1));
    Value reported = arith::SelectOp::create(
        rewriter, loc, cmp(arith::CmpIPredicate::slt, start, zero), start,
        last);
    raiseErrorIf(rewriter, loc, outside, ErrorCode::SliceOutOfRange, reported,
                 dim);
    // The slice is the update's shape (its type, static where it is).
    Value bad = outside;
    SmallVector<OpFoldResult> offsets(rank, rewriter.getIndexAttr(0)),
        sizes = tensorSizes(rewriter, loc, update),
        dims = tensorSizes(rewriter, loc, input),
        strides(rank, rewriter.getIndexAttr(1));
    for (int64_t d = 0; d < rank; ++d)
      if (d != axis)
        bad = orElse(rewriter, loc, bad,
                     checkSize(rewriter, loc, sizes[d], dims[d],
                               ErrorCode::DimensionMismatch));
    offsets[axis] = start;
    auto result = scf::IfOp::create(
        rewriter, loc, bad,
        [&](OpBuilder &b, Location l) { scf::YieldOp::create(b, l, input); },
        [&](OpBuilder &b, Location l) {
          scf::YieldOp::create(b, l,
                               tensor::InsertSliceOp::create(
                                   b, l, update, input, offsets, sizes, strides)
                                   .getResult());
        });
    rewriter.replaceOp(op, result.getResult(0));
    return success();
  }
};

struct SliceLowering : public OpConversionPattern<SliceOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(SliceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getInput();
    auto inType = cast<RankedTensorType>(input.getType());
    RankedTensorType type = op.getType();
    ArrayRef<int64_t> offsets = op.getOffsets(), strides = op.getStrides();
    Value outOfRange;
    SmallVector<OpFoldResult> sizes;
    for (int64_t i = 0, r = inType.getRank(); i < r; ++i) {
      int64_t size = op.getSizes()[i];
      if (!type.isDynamicDim(i)) {
        // Static (also a size -1 along a static dim, inferred).
        sizes.push_back(rewriter.getIndexAttr(type.getDimSize(i)));
      } else {
        // -1 along a dynamic dim: ceil((dim - offset) / stride) elements;
        // the offset may be the end, not past it.
        Value dim = tensor::DimOp::create(rewriter, loc, input, i);
        Value count = dim;
        if (offsets[i] != 0) {
          Value offset = indexConstant(rewriter, loc, offsets[i]);
          Value bad = arith::CmpIOp::create(
              rewriter, loc, arith::CmpIPredicate::ugt, offset, dim);
          raiseErrorIf(rewriter, loc, bad, ErrorCode::SliceOutOfRange, offset,
                       dim);
          outOfRange = orElse(rewriter, loc, outOfRange, bad);
          count = arith::MaxSIOp::create(
              rewriter, loc, arith::SubIOp::create(rewriter, loc, dim, offset),
              indexConstant(rewriter, loc, 0));
        }
        if (strides[i] != 1)
          count = arith::CeilDivUIOp::create(
              rewriter, loc, count, indexConstant(rewriter, loc, strides[i]));
        sizes.push_back(count);
        continue;
      }
      if (!inType.isDynamicDim(i) || size == 0)
        continue;
      // The last element read must exist: offset + (size-1)*stride < dim.
      int64_t last = offsets[i] + (size - 1) * strides[i];
      Value dim = tensor::DimOp::create(rewriter, loc, input, i);
      Value lastV = indexConstant(rewriter, loc, last);
      Value bad = arith::CmpIOp::create(rewriter, loc,
                                        arith::CmpIPredicate::uge, lastV, dim);
      raiseErrorIf(rewriter, loc, bad, ErrorCode::SliceOutOfRange, lastV, dim);
      outOfRange = orElse(rewriter, loc, outOfRange, bad);
    }
    // An empty window reads nothing (and an extract_slice at an offset
    // equal to a static dim would not verify).
    if (hasStaticZeroDim(type)) {
      rewriter.replaceOp(op, guardedBy(rewriter, loc, outOfRange, type, sizes,
                                       [&](OpBuilder &b, Location l) {
                                         return emptyTensor(b, l, type, sizes);
                                       }));
      return success();
    }
    SmallVector<OpFoldResult> offsetsOf, stridesOf;
    for (int64_t o : offsets)
      offsetsOf.push_back(rewriter.getIndexAttr(o));
    for (int64_t s : strides)
      stridesOf.push_back(rewriter.getIndexAttr(s));
    Value result =
        guardedBy(rewriter, loc, outOfRange, type, sizes,
                  [&](OpBuilder &b, Location l) -> Value {
                    return tensor::ExtractSliceOp::create(
                        b, l, type, input, offsetsOf, sizes, stridesOf);
                  });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// fnc.pad: the result filled with the value, then the input inserted with
/// strides interior + 1 after the low padding (in place once bufferized).
/// No check is needed: every size comes from the input's.
struct PadLowering : public OpConversionPattern<PadOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(PadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getInput();
    RankedTensorType type = op.getType();
    ArrayRef<int64_t> low = op.getLow(), high = op.getHigh(),
                      interior = op.getInterior();
    SmallVector<OpFoldResult> inSizes = tensorSizes(rewriter, loc, input);
    SmallVector<OpFoldResult> sizes, offsets, strides;
    for (int64_t i = 0, r = type.getRank(); i < r; ++i) {
      offsets.push_back(rewriter.getIndexAttr(low[i]));
      strides.push_back(rewriter.getIndexAttr(interior[i] + 1));
      if (!type.isDynamicDim(i)) {
        sizes.push_back(rewriter.getIndexAttr(type.getDimSize(i)));
        continue;
      }
      // low + n + max(n - 1, 0) * interior + high.
      Value n = getValueOrCreateConstantIndexOp(rewriter, loc, inSizes[i]);
      Value size = arith::AddIOp::create(
          rewriter, loc, n, indexConstant(rewriter, loc, low[i] + high[i]));
      if (interior[i] != 0) {
        Value gaps = arith::MaxSIOp::create(
            rewriter, loc,
            arith::SubIOp::create(rewriter, loc, n,
                                  indexConstant(rewriter, loc, 1)),
            indexConstant(rewriter, loc, 0));
        size = arith::AddIOp::create(
            rewriter, loc, size,
            arith::MulIOp::create(rewriter, loc, gaps,
                                  indexConstant(rewriter, loc, interior[i])));
      }
      sizes.push_back(size);
    }
    Value filled = filledTensor(rewriter, loc, type, sizes,
                                op.getValue().convertToDouble());
    // An input with a static 0 dim inserts nothing (and an insert_slice at
    // offset low of a dim of size low would not verify).
    if (hasStaticZeroDim(input.getType())) {
      rewriter.replaceOp(op, filled);
      return success();
    }
    rewriter.replaceOpWithNewOp<tensor::InsertSliceOp>(
        op, input, filled, offsets, inSizes, strides);
    return success();
  }
};

struct ConcatLowering : public OpConversionPattern<ConcatOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ConcatOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType type = op.getType();
    int64_t rank = type.getRank(), axis;
    ::fnc::shapes::normalizeAxis(op.getAxis(), rank, axis);
    ValueRange inputs = adaptor.getInputs();
    SmallVector<OpFoldResult> sizes = tensorSizes(rewriter, loc, inputs[0]);
    Value mismatch;
    Value total = getValueOrCreateConstantIndexOp(rewriter, loc, sizes[axis]);
    for (Value input : inputs.drop_front()) {
      SmallVector<OpFoldResult> s = tensorSizes(rewriter, loc, input);
      for (int64_t d = 0; d < rank; ++d)
        if (d != axis)
          mismatch = orElse(rewriter, loc, mismatch,
                            checkSize(rewriter, loc, s[d], sizes[d],
                                      ErrorCode::DimensionMismatch));
      total = arith::AddIOp::create(
          rewriter, loc, total,
          getValueOrCreateConstantIndexOp(rewriter, loc, s[axis]));
    }
    sizes[axis] = type.isDynamicDim(axis)
                      ? OpFoldResult(total)
                      : OpFoldResult(rewriter.getIndexAttr(
                            type.getDimSize(axis)));
    Value result = guardedBy(
        rewriter, loc, mismatch, type, sizes,
        [&](OpBuilder &b, Location l) -> Value {
          Value acc = emptyTensor(b, l, type, sizes);
          OpFoldResult offset = b.getIndexAttr(0);
          for (Value input : inputs) {
            // An input with a static zero dim inserts nothing (and a zero-size
            // insert at the end of a dim does not verify); neither does any
            // input of an empty result.
            if (hasStaticZeroDim(type) || hasStaticZeroDim(input.getType()))
              continue;
            SmallVector<OpFoldResult> s = tensorSizes(b, l, input);
            SmallVector<OpFoldResult> offsets(rank, b.getIndexAttr(0));
            SmallVector<OpFoldResult> strides(rank, b.getIndexAttr(1));
            offsets[axis] = offset;
            acc = tensor::InsertSliceOp::create(b, l, input, acc, offsets, s,
                                                strides);
            offset = getAsOpFoldResult(arith::AddIOp::create(
                b, l, getValueOrCreateConstantIndexOp(b, l, offset),
                getValueOrCreateConstantIndexOp(b, l, s[axis])));
          }
          return acc;
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct GatherLowering : public OpConversionPattern<GatherOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(GatherOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value params = adaptor.getParams(), indices = adaptor.getIndices();
    auto pType = cast<RankedTensorType>(params.getType());
    auto iType = cast<RankedTensorType>(indices.getType());
    RankedTensorType type = op.getType();
    int64_t ir = iType.getRank(), axis;
    ::fnc::shapes::normalizeAxis(op.getAxis(), pType.getRank(), axis);

    SmallVector<OpFoldResult> pSizes = tensorSizes(rewriter, loc, params);
    SmallVector<OpFoldResult> iSizes = tensorSizes(rewriter, loc, indices);
    SmallVector<OpFoldResult> sizes(pSizes.begin(), pSizes.begin() + axis);
    sizes.append(iSizes);
    sizes.append(pSizes.begin() + axis + 1, pSizes.end());
    Value bound = getValueOrCreateConstantIndexOp(rewriter, loc, pSizes[axis]);
    // From an axis that is empty at run time no index is valid, and even
    // the clamped one cannot be read: the loop must not run. Its first
    // index (if there is one) is reported.
    Value emptyAxis;
    if (!getConstantIntValue(pSizes[axis]).value_or(0)) {
      emptyAxis = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::eq,
                                        bound, indexConstant(rewriter, loc, 0));
      Value some = arith::CmpIOp::create(
          rewriter, loc, arith::CmpIPredicate::ne,
          numElements(rewriter, loc, indices), indexConstant(rewriter, loc, 0));
      scf::IfOp::create(
          rewriter, loc, arith::AndIOp::create(rewriter, loc, emptyAxis, some),
          [&](OpBuilder &b, Location l) {
            SmallVector<Value> first(ir, indexConstant(b, l, 0));
            Value index = tensor::ExtractOp::create(b, l, indices, first);
            raiseError(b, l, ErrorCode::GatherIndex, index, bound);
            scf::YieldOp::create(b, l);
          });
    }
    Value result = guardedBy(
        rewriter, loc, emptyAxis, type, sizes, [&](OpBuilder &nb, Location nl) {
          return gatherLoop(nb, nl, params, indices, type, sizes, axis, bound);
        });
    rewriter.replaceOp(op, result);
    return success();
  }

  static Value gatherLoop(OpBuilder &builder, Location loc, Value params,
                          Value indices, RankedTensorType type,
                          ArrayRef<OpFoldResult> sizes, int64_t axis,
                          Value bound) {
    MLIRContext *ctx = builder.getContext();
    int64_t rank = type.getRank();
    int64_t ir = cast<RankedTensorType>(indices.getType()).getRank();
    SmallVector<AffineExpr> iExprs;
    for (int64_t j = 0; j < ir; ++j)
      iExprs.push_back(getAffineDimExpr(axis + j, ctx));
    SmallVector<AffineMap> maps = {AffineMap::get(rank, 0, iExprs, ctx),
                                   AffineMap::getMultiDimIdentityMap(rank, ctx)};
    SmallVector<utils::IteratorType> iterators(rank,
                                               utils::IteratorType::parallel);
    Value init = emptyTensor(builder, loc, type, sizes);
    auto generic = linalg::GenericOp::create(
        builder, loc, type, indices, init, maps, iterators,
        [&](OpBuilder &b, Location l, ValueRange args) {
          Value idx = arith::IndexCastOp::create(b, l, b.getIndexType(),
                                                 args[0]);
          Value zero = indexConstant(b, l, 0);
          Value bad = arith::OrIOp::create(
              b, l,
              arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt, idx,
                                    zero),
              arith::CmpIOp::create(b, l, arith::CmpIPredicate::sge, idx,
                                    bound));
          raiseErrorInLoop(b, l, bad, ErrorCode::GatherIndex, idx, bound);
          Value safe = arith::SelectOp::create(b, l, bad, zero, idx);
          SmallVector<Value> coords;
          for (int64_t d = 0; d < axis; ++d)
            coords.push_back(linalg::IndexOp::create(b, l, d));
          coords.push_back(safe);
          for (int64_t d = axis + ir; d < rank; ++d)
            coords.push_back(linalg::IndexOp::create(b, l, d));
          Value v = tensor::ExtractOp::create(b, l, params, coords);
          linalg::YieldOp::create(b, l, v);
        });
    return generic.getResult(0);
  }
};

struct OneHotLowering : public OpConversionPattern<OneHotOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(OneHotOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    Value indices = adaptor.getIndices();
    RankedTensorType type = op.getType();
    int64_t rank = type.getRank(), axis;
    ::fnc::shapes::normalizeAxis(op.getAxis(), rank, axis);
    SmallVector<OpFoldResult> sizes = tensorSizes(rewriter, loc, indices);
    sizes.insert(sizes.begin() + axis, rewriter.getIndexAttr(op.getDepth()));
    SmallVector<AffineExpr> iExprs;
    for (int64_t i = 0; i < rank; ++i)
      if (i != axis)
        iExprs.push_back(getAffineDimExpr(i, ctx));
    SmallVector<AffineMap> maps = {AffineMap::get(rank, 0, iExprs, ctx),
                                   AffineMap::getMultiDimIdentityMap(rank, ctx)};
    SmallVector<utils::IteratorType> iterators(rank,
                                               utils::IteratorType::parallel);
    Type element = type.getElementType();
    Value on = scalarConstant(rewriter, loc, element,
                              op.getOn().convertToDouble());
    Value off = scalarConstant(rewriter, loc, element,
                               op.getOff().convertToDouble());
    Value init = emptyTensor(rewriter, loc, type, sizes);
    auto generic = linalg::GenericOp::create(
        rewriter, loc, type, indices, init, maps, iterators,
        [&](OpBuilder &b, Location l, ValueRange args) {
          Value j = arith::IndexCastOp::create(
              b, l, args[0].getType(), linalg::IndexOp::create(b, l, axis));
          Value hit = arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq,
                                            args[0], j);
          linalg::YieldOp::create(b, l,
                                  arith::SelectOp::create(b, l, hit, on, off)
                                      .getResult());
        });
    rewriter.replaceOp(op, generic.getResult(0));
    return success();
  }
};

} // namespace

void lowering::populateShapePatterns(RewritePatternSet &patterns) {
  patterns.add<TransposeLowering, ReshapeLowering, ExpandDimsLowering,
               SqueezeLowering, BroadcastToLowering, ShapeOfLowering,
               SetRowLowering, BroadcastToShapeLowering, SliceLowering,
               DynamicSliceLowering, DynamicUpdateSliceLowering,
               ReshapeToShapeLowering,
               PadLowering, ConcatLowering, GatherLowering, OneHotLowering>(
      patterns.getContext());
}
