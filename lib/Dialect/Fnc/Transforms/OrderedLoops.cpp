//===- OrderedLoops.cpp - Loops in the order the lowering chose -----------===//
//
// -fnc-lower-to-ordered-loops: see Passes.td.
//
//===----------------------------------------------------------------------===//

#include "fnc/Dialect/Fnc/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::fnc {
#define GEN_PASS_DEF_FNCLOWERTOORDEREDLOOPS
#include "fnc/Dialect/Fnc/Transforms/Passes.h.inc"
} // namespace mlir::fnc

using namespace mlir;

namespace {

/// True if a reduction dimension comes before a parallel one.
bool reductionBeforeParallel(linalg::LinalgOp op) {
  bool seenReduction = false;
  for (utils::IteratorType it : op.getIteratorTypesArray()) {
    if (it == utils::IteratorType::reduction)
      seenReduction = true;
    else if (seenReduction)
      return true;
  }
  return false;
}

/// Replaces the perfectly nested scf.for loops `loops` (outermost first, no
/// iteration arguments) by one scf.parallel with the same bounds and body.
void parallelize(RewriterBase &rewriter, ArrayRef<scf::ForOp> loops) {
  scf::ForOp outer = loops.front(), inner = loops.back();
  SmallVector<Value> lbs, ubs, steps;
  for (scf::ForOp loop : loops) {
    lbs.push_back(loop.getLowerBound());
    ubs.push_back(loop.getUpperBound());
    steps.push_back(loop.getStep());
  }
  rewriter.setInsertionPoint(outer);
  auto parallel = scf::ParallelOp::create(rewriter, outer.getLoc(), lbs, ubs,
                                          steps);
  Block *body = parallel.getBody();
  for (auto [loop, iv] : llvm::zip(loops.drop_back(),
                                   parallel.getInductionVars()))
    rewriter.replaceAllUsesWith(scf::ForOp(loop).getInductionVar(), iv);
  // Move the innermost body (without its yield) into the parallel loop.
  Block *innerBody = inner.getBody();
  rewriter.eraseOp(innerBody->getTerminator());
  rewriter.inlineBlockBefore(innerBody, body->getTerminator(),
                             parallel.getInductionVars().back());
  for (scf::ForOp loop : llvm::reverse(loops))
    rewriter.eraseOp(loop);
}

struct OrderedLoopsPass
    : public fnc::impl::FncLowerToOrderedLoopsBase<OrderedLoopsPass> {
  void runOnOperation() override {
    SmallVector<linalg::LinalgOp> ops;
    getOperation().walk([&](linalg::LinalgOp op) {
      if (op.hasPureBufferSemantics() && reductionBeforeParallel(op))
        ops.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (linalg::LinalgOp op : ops) {
      int64_t leading = 0;
      for (utils::IteratorType it : op.getIteratorTypesArray()) {
        if (it != utils::IteratorType::parallel)
          break;
        ++leading;
      }
      rewriter.setInsertionPoint(op);
      FailureOr<linalg::LinalgLoops> loops =
          linalg::linalgOpToLoops(rewriter, op);
      if (failed(loops))
        return signalPassFailure();
      rewriter.eraseOp(op);
      SmallVector<scf::ForOp> outer;
      for (int64_t i = 0; i < leading; ++i)
        outer.push_back(cast<scf::ForOp>((*loops)[i]));
      // linalgOpToLoops nests the loops perfectly: each leading loop holds
      // just the next one.
      if (!outer.empty())
        parallelize(rewriter, outer);
    }
  }
};
} // namespace
