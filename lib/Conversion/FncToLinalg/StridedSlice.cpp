//===- StridedSlice.cpp - Lowering of fnc.strided_slice and its gradient --===//
//
// Each dim's entry is resolved against the dim's size: while compiling when
// the size is known (shapes::resolveSliceDim, the rule eager execution
// uses), else with index arithmetic on tensor.dim. Every dim then reads a
// window of the input with a positive stride, from the lowest index read:
// fnc.strided_slice is a tensor.extract_slice of that window (a strided
// view copy once bufferized; a tensor.collapse_shape then drops the index
// dims) and fnc.strided_slice_grad a tensor.insert_slice into zeros (of
// the gradient expanded back to full rank). A negative
// stride reads the same window backwards: a linalg.generic whose body
// reads element size-1-j of the reversed dims (tensor.extract). An index
// outside a dynamic dim raises IndexOutOfRange, and the gradient checks its
// operand's dynamic dims against the counts (DimensionMismatch); either way
// nothing is read or written out of bounds.
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"

#include "fnc/Dialect/Fnc/IR/FncOps.h"
#include "fnc/Dialect/Fnc/IR/SliceSpec.h"
#include "fnc/Shape/ShapeRules.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

using namespace mlir;
using namespace mlir::fnc;
using namespace mlir::fnc::lowering;
namespace rules = ::fnc::shapes;

namespace {

/// What one input dim of a strided slice reads.
struct WindowDim {
  OpFoldResult offset; // the lowest index read
  OpFoldResult count;  // elements read (1 for an index)
  int64_t stride;      // the distance between them, > 0
  bool reversed;       // read from the highest index down (negative stride)
  bool dropped;        // an index: the result has no such dim
};

struct Window {
  SmallVector<WindowDim> dims;
  Value outOfRange; // an index outside its dynamic dim (i1), or null

  /// Whether the window is empty while compiling: nothing is read or
  /// written then (and a tensor.extract_slice / insert_slice at a static
  /// offset into an empty dim, or at the end of a dim, would not verify).
  bool staticallyEmpty(Value input) const {
    return hasStaticZeroDim(input.getType()) ||
           llvm::any_of(dims, [](const WindowDim &d) {
             return isConstantIntValue(d.count, 0);
           });
  }
};

/// Resolves `spec` against the dims of `input`.
Window resolveWindow(OpBuilder &b, Location loc, Value input,
                     const rules::SliceSpec &spec) {
  auto type = cast<RankedTensorType>(input.getType());
  auto attr = [&](int64_t v) -> OpFoldResult { return b.getIndexAttr(v); };
  auto cst = [&](int64_t v) { return indexConstant(b, loc, v); };
  Window w;
  for (int64_t i = 0; i < type.getRank(); ++i) {
    int64_t begin = spec.begin[i], end = spec.end[i], stride = spec.strides[i];
    // |stride| fits: the verifier rejects -2^63.
    int64_t step = stride > 0 ? stride : -stride;
    if (!type.isDynamicDim(i)) {
      int64_t n = type.getDimSize(i);
      if (spec.shrink[i]) {
        w.dims.push_back({attr(rules::resolveSliceIndex(n, begin)), attr(1), 1,
                          false, true});
        continue;
      }
      rules::SliceDim r = rules::resolveSliceDim(n, begin, end, stride);
      int64_t lowest = stride > 0
                           ? r.start
                           : (r.count ? r.start + (r.count - 1) * stride : 0);
      w.dims.push_back({attr(lowest), attr(r.count), step, stride < 0, false});
      continue;
    }
    Value n = tensor::DimOp::create(b, loc, input, i);
    if (spec.shrink[i]) {
      // begin >= 0 must be < n; begin < 0 counts from the end: n + begin
      // (no overflow: n >= 0) must be >= 0.
      Value index =
          begin >= 0 ? cst(begin)
                     : arith::AddIOp::create(b, loc, n, cst(begin)).getResult();
      Value bad = begin >= 0
                      ? arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge,
                                              index, n)
                      : arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt,
                                              index, cst(0));
      raiseErrorIf(b, loc, bad, ErrorCode::IndexOutOfRange, cst(begin), n);
      w.outOfRange = orElse(b, loc, w.outOfRange, bad);
      w.dims.push_back({index, attr(1), 1, false, true});
      continue;
    }
    // Python's clamping, in the stride's direction: [0, n] or [-1, n - 1].
    Value lo = cst(stride > 0 ? 0 : -1);
    Value hi = stride > 0 ? n : arith::SubIOp::create(b, loc, n, cst(1));
    auto clamp = [&](int64_t bound) -> Value {
      if (bound < 0)
        return arith::MaxSIOp::create(
            b, loc, arith::AddIOp::create(b, loc, n, cst(bound)), lo);
      return arith::MinSIOp::create(b, loc, cst(bound), hi);
    };
    Value first = clamp(begin), last = clamp(end);
    Value distance = stride > 0 ? arith::SubIOp::create(b, loc, last, first)
                                : arith::SubIOp::create(b, loc, first, last);
    distance = arith::MaxSIOp::create(b, loc, distance, cst(0));
    Value count = arith::CeilDivUIOp::create(b, loc, distance, cst(step));
    Value offset = first;
    if (stride < 0) {
      // first - (count - 1) * step, or 0 when nothing is read.
      Value back = arith::MulIOp::create(
          b, loc, arith::SubIOp::create(b, loc, count, cst(1)), cst(step));
      Value lowest = arith::SubIOp::create(b, loc, first, back);
      Value none = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                         count, cst(0));
      offset = arith::SelectOp::create(b, loc, none, cst(0), lowest);
    }
    w.dims.push_back({offset, count, step, stride < 0, false});
  }
  return w;
}

/// `t` with the dims marked in `reversed` read backwards (element j of such
/// a dim is element size-1-j of t): a generic that reads t with
/// tensor.extract, every loop parallel.
Value reverseDims(OpBuilder &builder, Location loc, Value t,
                  ArrayRef<bool> reversed) {
  auto type = cast<RankedTensorType>(t.getType());
  int64_t rank = type.getRank();
  SmallVector<OpFoldResult> sizes = tensorSizes(builder, loc, t);
  SmallVector<Value> lastIndex(rank);
  for (int64_t j = 0; j < rank; ++j)
    if (reversed[j])
      lastIndex[j] = arith::SubIOp::create(
          builder, loc, getValueOrCreateConstantIndexOp(builder, loc, sizes[j]),
          indexConstant(builder, loc, 1));
  Value init = emptyTensor(builder, loc, type, sizes);
  SmallVector<AffineMap> maps = {
      AffineMap::getMultiDimIdentityMap(rank, builder.getContext())};
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  auto generic = linalg::GenericOp::create(
      builder, loc, type, ValueRange{}, init, maps, iterators,
      [&](OpBuilder &b, Location l, ValueRange) {
        SmallVector<Value> coords;
        for (int64_t j = 0; j < rank; ++j) {
          Value index = linalg::IndexOp::create(b, l, j);
          coords.push_back(
              reversed[j]
                  ? arith::SubIOp::create(b, l, lastIndex[j], index).getResult()
                  : index);
        }
        linalg::YieldOp::create(
            b, l, tensor::ExtractOp::create(b, l, t, coords).getResult());
      });
  return generic.getResult(0);
}

/// The reassociation that drops the index dims of a full-rank window (one
/// per input dim) to the result's rank: each kept dim starts a group, an
/// index dim joins the group before it (or the first one). Empty when
/// every dim is an index (a rank-0 result). Explicit, unlike a
/// rank-reducing extract_slice, whose dropped dims are ambiguous when
/// several have size 1.
SmallVector<ReassociationIndices> dropIndexDims(const Window &w) {
  SmallVector<ReassociationIndices> groups;
  ReassociationIndices leading;
  for (int64_t i = 0, r = w.dims.size(); i < r; ++i) {
    if (!w.dims[i].dropped) {
      groups.push_back(leading);
      leading.clear();
      groups.back().push_back(i);
    } else if (groups.empty()) {
      leading.push_back(i);
    } else {
      groups.back().push_back(i);
    }
  }
  return groups;
}

/// The window as a full-rank tensor type: 1 for the index dims, the
/// result's dims (`keptShape`, in order) for the others.
RankedTensorType fullWindowType(const Window &w, ArrayRef<int64_t> keptShape,
                                Type element) {
  SmallVector<int64_t> shape;
  size_t j = 0;
  for (const WindowDim &d : w.dims)
    shape.push_back(d.dropped ? 1 : keptShape[j++]);
  return RankedTensorType::get(shape, element);
}

struct StridedSliceLowering : public OpConversionPattern<StridedSliceOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(StridedSliceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getInput();
    RankedTensorType type = op.getType();
    if (type == input.getType() && type.getRank() == 0) {
      rewriter.replaceOp(op, input);
      return success();
    }
    Window w = resolveWindow(rewriter, loc, input, sliceSpecOf(op));
    SmallVector<OpFoldResult> offsets, sizes, strides, resultSizes;
    SmallVector<bool> reversed;
    for (const WindowDim &d : w.dims) {
      offsets.push_back(d.offset);
      strides.push_back(rewriter.getIndexAttr(d.stride));
      if (d.dropped) {
        sizes.push_back(rewriter.getIndexAttr(1));
        continue;
      }
      // The result type's static dims (the rule's counts) as attributes.
      int64_t j = resultSizes.size();
      OpFoldResult size = type.isDynamicDim(j)
                              ? d.count
                              : rewriter.getIndexAttr(type.getDimSize(j));
      sizes.push_back(size);
      resultSizes.push_back(size);
      reversed.push_back(d.reversed);
    }
    bool anyReversed = llvm::is_contained(reversed, true);
    bool empty = w.staticallyEmpty(input) || hasStaticZeroDim(type);
    RankedTensorType fullType =
        fullWindowType(w, type.getShape(), type.getElementType());
    Value result = guardedBy(
        rewriter, loc, w.outOfRange, type, resultSizes,
        [&](OpBuilder &b, Location l) -> Value {
          if (empty)
            return emptyTensor(b, l, type, resultSizes);
          Value window = tensor::ExtractSliceOp::create(
              b, l, fullType, input, offsets, sizes, strides);
          if (fullType != type)
            window = tensor::CollapseShapeOp::create(b, l, type, window,
                                                     dropIndexDims(w));
          return anyReversed ? reverseDims(b, l, window, reversed) : window;
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct StridedSliceGradLowering
    : public OpConversionPattern<StridedSliceGradOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(StridedSliceGradOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getInput(), grad = adaptor.getGrad();
    RankedTensorType type = op.getType();
    if (type.getRank() == 0) {
      rewriter.replaceOp(op, grad);
      return success();
    }
    Window w = resolveWindow(rewriter, loc, input, sliceSpecOf(op));
    SmallVector<OpFoldResult> gradSizes = tensorSizes(rewriter, loc, grad);
    SmallVector<OpFoldResult> offsets, sizes, strides;
    SmallVector<bool> reversed;
    Value bad = w.outOfRange;
    for (const WindowDim &d : w.dims) {
      offsets.push_back(d.offset);
      strides.push_back(rewriter.getIndexAttr(d.stride));
      if (d.dropped) {
        sizes.push_back(rewriter.getIndexAttr(1));
        continue;
      }
      // The gradient's dims are the slice's counts: checked where either is
      // known only at run time (equal otherwise, by the verifier).
      OpFoldResult size = gradSizes[reversed.size()];
      bad = orElse(rewriter, loc, bad,
                   checkSize(rewriter, loc, size, d.count,
                             ErrorCode::DimensionMismatch));
      sizes.push_back(size);
      reversed.push_back(d.reversed);
    }
    SmallVector<OpFoldResult> inSizes = tensorSizes(rewriter, loc, input);
    bool anyReversed = llvm::is_contained(reversed, true);
    bool empty = w.staticallyEmpty(input) || hasStaticZeroDim(grad.getType());
    auto gradType = cast<RankedTensorType>(grad.getType());
    RankedTensorType fullType =
        fullWindowType(w, gradType.getShape(), gradType.getElementType());
    Value result = guardedBy(
        rewriter, loc, bad, type, inSizes,
        [&](OpBuilder &b, Location l) -> Value {
          Value zeros = filledTensor(b, l, type, inSizes, 0.0);
          if (empty)
            return zeros;
          Value source = anyReversed ? reverseDims(b, l, grad, reversed) : grad;
          if (fullType != gradType)
            source = tensor::ExpandShapeOp::create(b, l, fullType, source,
                                                   dropIndexDims(w), sizes);
          return tensor::InsertSliceOp::create(b, l, source, zeros, offsets,
                                               sizes, strides)
              .getResult();
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void lowering::populateStridedSlicePatterns(RewritePatternSet &patterns) {
  patterns.add<StridedSliceLowering, StridedSliceGradLowering>(
      patterns.getContext());
}
