//===- Scalarize.cpp - 0-d tensors of loops and branches as scalars -------===//
//
// -fnc-scalarize: see Passes.td.
//
//===----------------------------------------------------------------------===//

#include "fnc/Codegen/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Transforms/LoopInvariantCodeMotionUtils.h"

namespace mlir::fnc {
#define GEN_PASS_DEF_FNCSCALARIZE
#include "fnc/Codegen/Passes.h.inc"
} // namespace mlir::fnc

using namespace mlir;

namespace {

/// The element type of a 0-d ranked tensor type, or null.
Type scalarOf(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && tensor.getRank() == 0 ? tensor.getElementType() : Type();
}

Value extract(OpBuilder &b, Location loc, Value tensor) {
  return tensor::ExtractOp::create(b, loc, tensor, ValueRange{});
}

Value wrap(OpBuilder &b, Location loc, Value scalar) {
  return tensor::FromElementsOp::create(
      b, loc, RankedTensorType::get({}, scalar.getType()), scalar);
}

/// Makes the 0-d tensor arguments of `block` scalars, wrapped back into
/// tensors at the start of the block for their users.
void scalarizeArguments(OpBuilder &b, Block &block) {
  b.setInsertionPointToStart(&block);
  for (BlockArgument arg : block.getArguments()) {
    Type scalar = scalarOf(arg.getType());
    if (!scalar)
      continue;
    arg.setType(scalar);
    Value tensor = wrap(b, arg.getLoc(), arg);
    arg.replaceAllUsesExcept(tensor, tensor.getDefiningOp());
  }
}

/// Replaces the 0-d tensor operands of `op` (a terminator) by their
/// elements.
void scalarizeOperands(OpBuilder &b, Operation *op, unsigned first) {
  b.setInsertionPoint(op);
  for (OpOperand &operand : llvm::drop_begin(op->getOpOperands(), first))
    if (scalarOf(operand.get().getType()))
      operand.set(extract(b, op->getLoc(), operand.get()));
}

/// Rebuilds `loop` carrying its 0-d tensors as scalars.
void scalarizeWhile(scf::WhileOp loop) {
  auto isZeroD = [](Type t) { return static_cast<bool>(scalarOf(t)); };
  if (llvm::none_of(loop.getInits().getTypes(), isZeroD) &&
      llvm::none_of(loop.getResultTypes(), isZeroD))
    return;
  OpBuilder b(loop);
  Location loc = loop.getLoc();
  SmallVector<Value> inits;
  for (Value init : loop.getInits())
    inits.push_back(scalarOf(init.getType()) ? extract(b, loc, init) : init);
  SmallVector<Type> resultTypes;
  for (Type t : loop.getResultTypes())
    resultTypes.push_back(scalarOf(t) ? scalarOf(t) : t);

  auto scalar = scf::WhileOp::create(b, loc, resultTypes, inits);
  scalar.getBefore().takeBody(loop.getBefore());
  scalar.getAfter().takeBody(loop.getAfter());
  scalarizeArguments(b, scalar.getBefore().front());
  scalarizeArguments(b, scalar.getAfter().front());
  scalarizeOperands(b, scalar.getConditionOp(), /*first=*/1);
  scalarizeOperands(b, scalar.getYieldOp(), /*first=*/0);

  b.setInsertionPointAfter(scalar);
  for (auto [old, now] : llvm::zip(loop.getResults(), scalar.getResults()))
    old.replaceAllUsesWith(now.getType() == old.getType() ? now
                                                          : wrap(b, loc, now));
  loop.erase();
}

/// tensor.extract of a 0-d linalg.generic: the generic's scalar body on the
/// extracted inputs.
struct ExtractOfZeroDGeneric : OpRewritePattern<tensor::ExtractOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tensor::ExtractOp op,
                                PatternRewriter &rewriter) const override {
    auto generic = op.getTensor().getDefiningOp<linalg::GenericOp>();
    if (!generic || generic.getNumLoops() != 0 ||
        !generic.hasPureTensorSemantics() ||
        llvm::any_of(generic->getOperandTypes(),
                     [](Type t) { return !scalarOf(t); }))
      return failure();
    Block &body = generic.getRegion().front();
    IRMapping map;
    for (auto [arg, operand] :
         llvm::zip(body.getArguments(), generic->getOperands()))
      map.map(arg, extract(rewriter, op.getLoc(), operand));
    for (Operation &inner : body.without_terminator())
      rewriter.clone(inner, map);
    auto yield = cast<linalg::YieldOp>(body.getTerminator());
    unsigned result = cast<OpResult>(op.getTensor()).getResultNumber();
    rewriter.replaceOp(op, map.lookupOrDefault(yield.getValues()[result]));
    return success();
  }
};

/// A counted scf.while (a compare of a counter before, its increment after:
/// a staged for_range) as an scf.for, which bufferizes without copying its
/// carried tensors every iteration. Upstream's uplift (MLIR 22) gives the
/// counter's result after the loop as its last value inside the loop, not
/// the first value that failed the test, so loops whose counter result is
/// used stay while loops. So do loops that carry a tensor whose shape
/// changes (an init cast to a less static type, fnc's shape invariants):
/// scf.for's canonicalization would fold that cast into the loop type.
struct UpliftCountedWhile : OpRewritePattern<scf::WhileOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(scf::WhileOp loop,
                                PatternRewriter &rewriter) const override {
    for (Value init : loop.getInits())
      if (init.getDefiningOp<tensor::CastOp>())
        return failure();
    scf::ConditionOp condition = loop.getConditionOp();
    auto cmp = condition.getCondition().getDefiningOp<arith::CmpIOp>();
    if (!cmp)
      return failure();
    bool positiveStep = false;
    for (auto [p, forwarded, result] :
         llvm::enumerate(condition.getArgs(), loop.getResults())) {
      auto counter = dyn_cast<BlockArgument>(forwarded);
      if (!counter || !llvm::is_contained(cmp->getOperands(), forwarded))
        continue;
      if (!result.use_empty())
        return failure();
      // The counter's increment must be a constant > 0 (scf.for's step;
      // a while with another step is not a for loop).
      Value next = loop.getYieldOp().getOperand(counter.getArgNumber());
      auto add = next.getDefiningOp<arith::AddIOp>();
      Value afterArg = loop.getAfterArguments()[p];
      APInt step;
      if (add &&
          ((add.getLhs() == afterArg &&
            matchPattern(add.getRhs(), m_ConstantInt(&step))) ||
           (add.getRhs() == afterArg &&
            matchPattern(add.getLhs(), m_ConstantInt(&step)))))
        positiveStep = step.isStrictlyPositive();
    }
    if (!positiveStep)
      return failure();
    return success(succeeded(scf::upliftWhileToForLoop(rewriter, loop)));
  }
};

struct FncScalarizePass
    : public mlir::fnc::impl::FncScalarizeBase<FncScalarizePass> {
  void runOnOperation() override {
    SmallVector<scf::WhileOp> loops;
    getOperation().walk([&](scf::WhileOp loop) { loops.push_back(loop); });
    for (scf::WhileOp loop : loops)
      scalarizeWhile(loop);

    // extract(from_elements) and extract(constant) fold; the generics and
    // wrappers left without users are erased.
    RewritePatternSet patterns(&getContext());
    patterns.add<ExtractOfZeroDGeneric>(&getContext());
    tensor::FromElementsOp::getCanonicalizationPatterns(patterns,
                                                        &getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();

    // Hoist the scalar code left in the loops (the limit of a for_range read
    // from its tensor), then make counted loops scf.for. Tensor ops stay:
    // a hoisted destination (a fill) would become a copy per iteration.
    getOperation().walk([](LoopLikeOpInterface loop) {
      moveLoopInvariantCode(
          loop.getLoopRegions(),
          [&](Value v, Region *) { return loop.isDefinedOutsideOfLoop(v); },
          [](Operation *op, Region *) {
            return isMemoryEffectFree(op) && isSpeculatable(op) &&
                   llvm::none_of(op->getResultTypes(), [](Type t) {
                     return isa<ShapedType>(t);
                   });
          },
          [&](Operation *op, Region *) { loop.moveOutOfLoop(op); });
    });
    RewritePatternSet uplift(&getContext());
    uplift.add<UpliftCountedWhile>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(uplift))))
      signalPassFailure();
  }
};

} // namespace
