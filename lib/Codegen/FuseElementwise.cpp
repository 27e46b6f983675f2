//===- FuseElementwise.cpp - Elementwise fusion with recomputation --------===//
//
// -fnc-fuse-elementwise: see Passes.td.
//
//===----------------------------------------------------------------------===//

#include "fnc/Codegen/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Linalg/Utils/Utils.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::fnc {
#define GEN_PASS_DEF_FNCFUSEELEMENTWISE
#include "fnc/Codegen/Passes.h.inc"
} // namespace mlir::fnc

using namespace mlir;

namespace {

bool isElementwiseGeneric(Operation *op) {
  auto generic = dyn_cast_or_null<linalg::GenericOp>(op);
  return generic && generic.getNumLoops() == generic.getNumParallelLoops();
}

/// Takes the scalar work out of the body of `generic`: each 0-d tensor
/// input (a learning rate, a step count) is read once before the op, and
/// the body ops that depend only on such reads and on values from above
/// (Adam's bias correction, `pow(beta, t)`) move before the op too,
/// instead of running once per element. LLVM cannot hoist them itself: the
/// reads are loads it cannot prove unaliased by the op's stores, and a
/// libm call such as `powf` may set errno.
void hoistScalarWork(RewriterBase &rewriter, linalg::GenericOp generic) {
  if (!generic.hasPureTensorSemantics())
    return;
  Block *body = generic.getBody();
  rewriter.setInsertionPoint(generic);
  for (OpOperand *input : generic.getDpsInputOperands()) {
    auto type = dyn_cast<RankedTensorType>(input->get().getType());
    BlockArgument arg = body->getArgument(input->getOperandNumber());
    if (!type || type.getRank() != 0 || arg.use_empty())
      continue;
    Value scalar =
        tensor::ExtractOp::create(rewriter, generic.getLoc(), input->get());
    rewriter.replaceAllUsesWith(arg, scalar);
  }
  auto definedAbove = [&](Value v) {
    return !generic->isAncestor(v.getParentBlock()->getParentOp());
  };
  for (Operation &op : llvm::make_early_inc_range(body->without_terminator()))
    // Speculatable too: hoisted, an op runs even if the loop runs no
    // iteration (an integer division by a zero it never reached).
    if (isPure(&op) && isSpeculatable(&op) && op.getNumRegions() == 0 &&
        op.getNumOperands() != 0 &&
        !isa<linalg::IndexOp>(op) &&
        llvm::all_of(op.getOperands(), definedAbove))
      rewriter.moveOpBefore(&op, generic);
}

/// Moves an `extract_slice` of a single-use linalg result above the op: the
/// op computes only the slice, on slices of its operands. Upstream's
/// `populateBubbleUpExtractSliceOpPatterns` does the same but leaves the
/// body's `linalg.index` reads as they were, so an op that computes its
/// values from their indices (`range`, `eye`, a gather, a reversed strided
/// slice) then gives the values at the slice's origin: here the indices are
/// offset by the slice's start.
struct BubbleUpSlice : OpRewritePattern<tensor::ExtractSliceOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(tensor::ExtractSliceOp slice,
                                PatternRewriter &rewriter) const override {
    auto op = slice.getSource().getDefiningOp<linalg::LinalgOp>();
    if (!op || !op->hasOneUse() || op.getNumDpsInits() != 1 ||
        !op.hasPureTensorSemantics() || !slice.hasUnitStride() ||
        slice.getType().getRank() != slice.getSourceType().getRank())
      return failure();
    // Slices of operands with a static zero dim would not verify (upstream
    // refuses offset 0 into an empty dim); such an op computes nothing.
    auto empty = [](Type t) {
      auto shaped = dyn_cast<ShapedType>(t);
      return shaped && llvm::is_contained(shaped.getShape(), 0);
    };
    if (llvm::any_of(op->getOperandTypes(), empty) || empty(slice.getType()))
      return failure();
    AffineMap outputMap = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
    AffineMap shapesToLoops = op.getShapesToLoopsMap();
    if (!outputMap.isProjectedPermutation() || !shapesToLoops)
      return failure();

    Location loc = op.getLoc();
    SmallVector<OpFoldResult> bounds =
        affine::makeComposedFoldedMultiResultAffineApply(
            rewriter, loc, shapesToLoops,
            op.createFlatListOfOperandDims(rewriter, loc));
    // Loops the output does not index (reductions) keep their whole range.
    SmallVector<OpFoldResult> offsets(bounds.size(), rewriter.getIndexAttr(0));
    SmallVector<OpFoldResult> sizes = bounds;
    for (auto [dim, expr] : llvm::enumerate(outputMap.getResults())) {
      unsigned loop = cast<AffineDimExpr>(expr).getPosition();
      offsets[loop] = slice.getMixedOffsets()[dim];
      sizes[loop] = slice.getMixedSizes()[dim];
    }
    SmallVector<Value> operands = linalg::makeTiledShapes(
        rewriter, loc, op, op->getOperands(), offsets, sizes, bounds,
        /*omitPartialTileCheck=*/true);
    Type resultType = operands[op.getDpsInitOperand(0)->getOperandNumber()]
                          .getType();
    linalg::LinalgOp sliced =
        clone(rewriter, op, TypeRange{resultType}, operands);
    if (sliced.hasIndexSemantics())
      linalg::offsetIndices(rewriter, sliced, offsets);
    rewriter.replaceOp(slice, sliced->getResults());
    return success();
  }
};

struct FuseElementwisePass
    : public fnc::impl::FncFuseElementwiseBase<FuseElementwisePass> {
  using Base::Base;

  void runOnOperation() override {
    unsigned limit = maxRecompute;
    linalg::ControlFusionFn control = [limit](OpOperand *operand) {
      Operation *producer = operand->get().getDefiningOp();
      if (!producer)
        return false;
      // A consumer with reductions that reads the value along fewer loops
      // than it has (a matmul's operand) would recompute the producer's
      // body on every step of the loops the value lacks, and it would no
      // longer be a contraction the matmul kernels recognize.
      auto reducing = dyn_cast<linalg::GenericOp>(operand->getOwner());
      if (reducing && reducing.getNumReductionLoops() > 0 &&
          !reducing.getMatchingIndexingMap(operand).isPermutation())
        return false;
      if (producer->hasOneUse())
        return true;
      auto generic = dyn_cast<linalg::GenericOp>(producer);
      if (!generic || !isElementwiseGeneric(generic) ||
          generic.getBody()->getOperations().size() > limit + 1)
        return false;
      // Recomputation copies the producer's body into the consumer's: cap
      // the result, so that a web of shared values cannot grow bodies (and
      // compile time) without bound.
      auto consumer = dyn_cast<linalg::GenericOp>(operand->getOwner());
      if (!consumer || consumer.getBody()->getOperations().size() +
                               generic.getBody()->getOperations().size() >
                           4 * limit)
        return false;
      // Every user must be an elementwise op it can fuse into, so that the
      // producer dies once all of them recompute it.
      return llvm::all_of(producer->getUsers(), [](Operation *user) {
        return isElementwiseGeneric(user);
      });
    };
    RewritePatternSet patterns(&getContext());
    linalg::populateElementwiseOpsFusionPatterns(patterns, control);
    // The lowering views operands whose dynamic dims must agree through an
    // extract_slice at the smallest size; moving each slice above the op
    // that produces its source (down to the function's arguments, where it
    // is a free view) lets that op fuse with its consumer.
    patterns.add<BubbleUpSlice>(&getContext());
    // Producers first: each fusion then extends a chain from its start,
    // where the default (consumers first) re-evaluates every consumer's
    // operands after each fusion above it. On a 4379-op train step this
    // is 5x faster, and fuses more (its step ran 2x faster).
    GreedyRewriteConfig config;
    config.setUseTopDownTraversal(true);
    if (failed(
            applyPatternsGreedily(getOperation(), std::move(patterns), config)))
      return signalPassFailure();
    IRRewriter rewriter(&getContext());
    getOperation().walk([&](linalg::GenericOp generic) {
      if (isElementwiseGeneric(generic))
        hoistScalarWork(rewriter, generic);
    });
    // A producer whose body raises an error (an integer pow of constants
    // with a negative exponent) outlives its fusion without operands or
    // results, and no lowering takes a generic without operands: it runs
    // its body once, so the body takes its place.
    getOperation().walk([&](linalg::GenericOp generic) {
      if (generic.getNumLoops() != 0 || generic->getNumOperands() != 0 ||
          generic->getNumResults() != 0)
        return;
      Block *body = generic.getBody();
      rewriter.eraseOp(body->getTerminator());
      rewriter.inlineBlockBefore(body, generic);
      rewriter.eraseOp(generic);
    });
  }
};
} // namespace
