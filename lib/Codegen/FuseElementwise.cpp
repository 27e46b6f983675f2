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
#include "mlir/Dialect/Tensor/IR/Tensor.h"
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

struct FuseElementwisePass
    : public fnc::impl::FncFuseElementwiseBase<FuseElementwisePass> {
  using Base::Base;

  void runOnOperation() override {
    unsigned limit = maxRecompute;
    linalg::ControlFusionFn control = [limit](OpOperand *operand) {
      Operation *producer = operand->get().getDefiningOp();
      if (!producer)
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
    linalg::populateBubbleUpExtractSliceOpPatterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};
} // namespace
