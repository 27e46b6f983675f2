//===- SplitReductions.cpp - Parallel partial reductions ------------------===//
//
// -fnc-split-reductions: see Passes.td.
//
//===----------------------------------------------------------------------===//

#include "fnc/Codegen/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/TypeSwitch.h"

#include <limits>

namespace mlir::fnc {
#define GEN_PASS_DEF_FNCSPLITREDUCTIONS
#include "fnc/Codegen/Passes.h.inc"
} // namespace mlir::fnc

using namespace mlir;

namespace {

constexpr int64_t kMaxParallelWork = 64;
constexpr int64_t kMinSplitSize = 64;

/// The identity of an associative combiner, or null if `op` is not one.
TypedAttr identityOf(Operation *op, bool fastMath) {
  Type type = op->getResult(0).getType();
  Builder b(op->getContext());
  auto f = [&](double v) { return b.getFloatAttr(type, v); };
  auto i = [&](const APInt &v) { return b.getIntegerAttr(type, v); };
  unsigned width = type.isIntOrIndex() ? type.getIntOrFloatBitWidth() : 0;
  double inf = std::numeric_limits<double>::infinity();
  if (isa<FloatType>(type) && !fastMath)
    return {};
  return llvm::TypeSwitch<Operation *, TypedAttr>(op)
      .Case([&](arith::AddFOp) { return f(0); })
      .Case([&](arith::MulFOp) { return f(1); })
      .Case([&](arith::MaximumFOp) { return f(-inf); })
      .Case([&](arith::MinimumFOp) { return f(inf); })
      .Case([&](arith::AddIOp) { return i(APInt(width, 0)); })
      .Case([&](arith::MulIOp) { return i(APInt(width, 1)); })
      .Case([&](arith::MaxSIOp) { return i(APInt::getSignedMinValue(width)); })
      .Case([&](arith::MinSIOp) { return i(APInt::getSignedMaxValue(width)); })
      .Default([](Operation *) { return TypedAttr(); });
}

/// The combiner of `op`: the op yielded, fed by the accumulator.
Operation *combinerOf(linalg::GenericOp op) {
  Block &body = op.getRegion().front();
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  Operation *combiner = yield.getValues()[0].getDefiningOp();
  Value acc = body.getArgument(body.getNumArguments() - 1);
  if (!combiner || combiner->getNumOperands() != 2 ||
      !llvm::is_contained(combiner->getOperands(), acc) ||
      !acc.hasOneUse())
    return nullptr;
  return combiner;
}

LogicalResult split(RewriterBase &rewriter, linalg::GenericOp op,
                    bool fastMath) {
  if (op.getNumDpsInits() != 1 || op.getNumResults() != 1 ||
      op.getNumReductionLoops() == 0)
    return failure();
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  int64_t parallelWork = 1, dim = -1;
  for (auto [i, it] : llvm::enumerate(iterators)) {
    if (it == utils::IteratorType::parallel)
      parallelWork *= ShapedType::isDynamic(ranges[i]) ? kMaxParallelWork
                                                       : ranges[i];
    else if (dim < 0)
      dim = i;
  }
  if (parallelWork >= kMaxParallelWork || ShapedType::isDynamic(ranges[dim]) ||
      ranges[dim] < kMinSplitSize)
    return failure();
  Operation *combiner = combinerOf(op);
  TypedAttr identity = combiner ? identityOf(combiner, fastMath) : TypedAttr();
  if (!identity)
    return failure();

  Location loc = op.getLoc();
  MLIRContext *ctx = rewriter.getContext();
  OpOperand *init = op.getDpsInitOperand(0);
  auto outType = cast<RankedTensorType>(init->get().getType());
  AffineMap outMap = op.getMatchingIndexingMap(init);
  int64_t loops = op.getNumLoops(), size = ranges[dim];

  // partial[out..., i_dim] = combine over the other reduction dims.
  SmallVector<int64_t> partialShape(outType.getShape());
  partialShape.push_back(size);
  auto partialType = RankedTensorType::get(partialShape,
                                           outType.getElementType());
  SmallVector<Value> dynamicSizes;
  for (int64_t i = 0; i < outType.getRank(); ++i)
    if (outType.isDynamicDim(i))
      dynamicSizes.push_back(
          tensor::DimOp::create(rewriter, loc, init->get(), i));
  rewriter.setInsertionPoint(op);
  Value empty =
      tensor::EmptyOp::create(rewriter, loc, partialType, dynamicSizes);
  Value identityValue = arith::ConstantOp::create(rewriter, loc, identity);
  Value partialInit =
      linalg::FillOp::create(rewriter, loc, identityValue, empty).getResult(0);
  SmallVector<AffineExpr> partialExprs(outMap.getResults());
  partialExprs.push_back(getAffineDimExpr(dim, ctx));
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  maps.back() = AffineMap::get(loops, 0, partialExprs, ctx);
  iterators[dim] = utils::IteratorType::parallel;
  auto partial = linalg::GenericOp::create(
      rewriter, loc, partialType, op.getDpsInputs(), partialInit, maps,
      iterators);
  rewriter.inlineRegionBefore(op.getRegion(), partial.getRegion(),
                              partial.getRegion().begin());

  // result[out...] = init ⊕ partial[out..., :]
  int64_t rank = outType.getRank();
  SmallVector<AffineExpr> outExprs;
  for (int64_t i = 0; i < rank; ++i)
    outExprs.push_back(getAffineDimExpr(i, ctx));
  SmallVector<AffineMap> finalMaps = {
      AffineMap::getMultiDimIdentityMap(rank + 1, ctx),
      AffineMap::get(rank + 1, 0, outExprs, ctx)};
  SmallVector<utils::IteratorType> finalIterators(
      rank, utils::IteratorType::parallel);
  finalIterators.push_back(utils::IteratorType::reduction);
  auto final = linalg::GenericOp::create(
      rewriter, loc, outType, partial.getResult(0), init->get(), finalMaps,
      finalIterators, [&](OpBuilder &b, Location l, ValueRange args) {
        IRMapping map;
        Operation *clone = b.clone(*combiner, map);
        clone->setOperands({args[0], args[1]});
        linalg::YieldOp::create(b, l, clone->getResult(0));
      });
  rewriter.replaceOp(op, final.getResult(0));
  return success();
}

struct SplitReductionsPass
    : public fnc::impl::FncSplitReductionsBase<SplitReductionsPass> {
  using Base::Base;
  void runOnOperation() override {
    SmallVector<linalg::GenericOp> ops;
    getOperation().walk([&](linalg::GenericOp op) {
      if (op.hasPureTensorSemantics())
        ops.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (linalg::GenericOp op : ops)
      (void)split(rewriter, op, fastMath);
  }
};
} // namespace
