//===- ParallelThreshold.cpp - Sequential loops below a work threshold ----===//
//
// -fnc-parallel-threshold: only loop nests with enough work reach OpenMP.
// See Passes.td for the rules.
//
//===----------------------------------------------------------------------===//

#include "fnc/Codegen/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/OpenMP/OpenMPDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::fnc {
#define GEN_PASS_DEF_FNCPARALLELTHRESHOLD
#define GEN_PASS_DEF_FNCPARALLELIF
#include "fnc/Codegen/Passes.h.inc"
} // namespace mlir::fnc

using namespace mlir;

namespace {

/// Marks the scf.if of a versioned nest for fnc-parallel-if.
constexpr llvm::StringLiteral kParallelVersion = "fnc.parallel_version";

/// Trip count of one loop dimension (folded to a constant when known).
OpFoldResult tripCount(OpBuilder &b, Location loc, Value lb, Value ub,
                       Value step) {
  auto l = getConstantIntValue(lb), u = getConstantIntValue(ub),
       s = getConstantIntValue(step);
  if (l && u && s && *s > 0)
    return b.getIndexAttr(*u > *l ? (*u - *l + *s - 1) / *s : 0);
  Value span = arith::SubIOp::create(b, loc, ub, lb);
  return arith::CeilDivSIOp::create(b, loc, span, step).getResult();
}

/// The work of the nest rooted at `root`: the product of the trip counts of
/// its loops whose bounds are defined above `root`. Built before `root`.
OpFoldResult nestWork(OpBuilder &b, scf::ParallelOp root) {
  Location loc = root.getLoc();
  int64_t known = 1;
  Value dynamic;
  auto definedAbove = [&](Value v) {
    return !root->isAncestor(v.getParentBlock()->getParentOp());
  };
  root->walk([&](Operation *op) {
    auto mul = [&](Value lb, Value ub, Value step) {
      if (!definedAbove(lb) || !definedAbove(ub) || !definedAbove(step))
        return;
      OpFoldResult count = tripCount(b, loc, lb, ub, step);
      if (auto c = getConstantIntValue(count)) {
        known *= *c;
        return;
      }
      Value v = cast<Value>(count);
      dynamic = dynamic ? arith::MulIOp::create(b, loc, dynamic, v) : v;
    };
    if (auto p = dyn_cast<scf::ParallelOp>(op))
      for (auto [lb, ub, step] : llvm::zip(p.getLowerBound(),
                                           p.getUpperBound(), p.getStep()))
        mul(lb, ub, step);
    else if (auto f = dyn_cast<scf::ForOp>(op))
      mul(f.getLowerBound(), f.getUpperBound(), f.getStep());
  });
  if (!dynamic)
    return b.getIndexAttr(known);
  return arith::MulIOp::create(b, loc, dynamic,
                               arith::ConstantIndexOp::create(b, loc, known))
      .getResult();
}

/// Rewrites `root` and the scf.parallel ops nested in it into scf.for nests.
LogicalResult sequentialize(RewriterBase &rewriter, scf::ParallelOp root) {
  SmallVector<scf::ParallelOp> nest;
  root->walk([&](scf::ParallelOp p) { nest.push_back(p); }); // inner first
  for (scf::ParallelOp p : nest) {
    if (p.getNumResults() != 0)
      return failure();
    rewriter.setInsertionPoint(p);
    if (failed(scf::parallelForToNestedFors(rewriter, p)))
      return failure();
  }
  return success();
}

/// How many leading dims of `p` to keep parallel: the fewest whose known
/// trip counts give at least kChunks iterations (a dim known only at run
/// time counts as enough). OpenMP linearizes the parallel dims into one
/// loop that recomputes every index from the linear one; the dims after
/// them stay an ordinary loop nest that LLVM vectorizes.
unsigned parallelPrefix(scf::ParallelOp p) {
  constexpr int64_t kChunks = 64;
  OpBuilder b(p);
  int64_t iterations = 1;
  unsigned keep = 0;
  for (auto [lb, ub, step] :
       llvm::zip(p.getLowerBound(), p.getUpperBound(), p.getStep())) {
    ++keep;
    auto l = getConstantIntValue(lb), u = getConstantIntValue(ub),
         s = getConstantIntValue(step);
    if (!l || !u || !s || *s <= 0)
      break;
    iterations *= *u > *l ? (*u - *l + *s - 1) / *s : 0;
    if (iterations >= kChunks)
      break;
  }
  return keep;
}

/// Splits `p` into an scf.parallel over its first `keep` dims around a nest
/// of scf.for over the others.
void keepOuterDimsParallel(RewriterBase &rewriter, scf::ParallelOp p,
                           unsigned keep) {
  unsigned n = p.getNumLoops();
  if (keep >= n || p.getNumResults() != 0)
    return;
  Location loc = p.getLoc();
  rewriter.setInsertionPoint(p);
  auto outer = scf::ParallelOp::create(
      rewriter, loc, p.getLowerBound().take_front(keep),
      p.getUpperBound().take_front(keep), p.getStep().take_front(keep));
  SmallVector<Value> ivs(outer.getInductionVars());
  Operation *end = outer.getBody()->getTerminator();
  rewriter.setInsertionPoint(end);
  for (unsigned d = keep; d < n; ++d) {
    auto loop = scf::ForOp::create(rewriter, loc, p.getLowerBound()[d],
                                   p.getUpperBound()[d], p.getStep()[d]);
    ivs.push_back(loop.getInductionVar());
    end = loop.getBody()->getTerminator();
    rewriter.setInsertionPoint(end);
  }
  Block &body = *p.getBody();
  Operation *reduce = body.getTerminator();
  rewriter.inlineBlockBefore(&body, end, ivs);
  rewriter.eraseOp(reduce);
  rewriter.eraseOp(p);
}

/// The loop nest of a parallel root as OpenMP runs it best: the root
/// parallel over its leading dims only, and the scf.parallel ops nested in
/// it sequential (a nested OpenMP region would fork again per iteration).
LogicalResult shapeParallelNest(RewriterBase &rewriter, scf::ParallelOp root) {
  SmallVector<scf::ParallelOp> nested;
  root->walk([&](scf::ParallelOp p) {
    if (p != root)
      nested.push_back(p);
  });
  for (scf::ParallelOp p : nested) { // inner first
    if (p.getNumResults() != 0)
      return failure();
    rewriter.setInsertionPoint(p);
    if (failed(scf::parallelForToNestedFors(rewriter, p)))
      return failure();
  }
  keepOuterDimsParallel(rewriter, root, parallelPrefix(root));
  return success();
}

struct ParallelThresholdPass
    : public fnc::impl::FncParallelThresholdBase<ParallelThresholdPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<scf::ParallelOp> roots;
    getOperation().walk([&](scf::ParallelOp p) {
      if (!p->getParentOfType<scf::ParallelOp>() && p.getNumResults() == 0)
        roots.push_back(p);
    });
    IRRewriter rewriter(&getContext());
    for (scf::ParallelOp root : roots) {
      rewriter.setInsertionPoint(root);
      Location loc = root.getLoc();
      OpFoldResult work = nestWork(rewriter, root);
      if (auto known = getConstantIntValue(work)) {
        if (failed(*known < grain ? sequentialize(rewriter, root)
                                  : shapeParallelNest(rewriter, root)))
          return signalPassFailure();
        continue;
      }
      // Known at run time only: version the nest.
      Value big = arith::CmpIOp::create(
          rewriter, loc, arith::CmpIPredicate::sge, cast<Value>(work),
          arith::ConstantIndexOp::create(rewriter, loc, grain));
      auto version = scf::IfOp::create(rewriter, loc, big, /*else=*/true);
      version->setAttr(kParallelVersion, rewriter.getUnitAttr());
      rewriter.setInsertionPointToStart(version.elseBlock());
      auto sequential = cast<scf::ParallelOp>(rewriter.clone(*root));
      rewriter.moveOpBefore(root, version.thenBlock(),
                            version.thenBlock()->begin());
      if (failed(sequentialize(rewriter, sequential)) ||
          failed(shapeParallelNest(rewriter, root)))
        return signalPassFailure();
    }
  }
};

/// The OpenMP region of a versioned nest with the version's condition as
/// its if clause, in place of the scf.if and its sequential copy.
struct ParallelIfPass : public fnc::impl::FncParallelIfBase<ParallelIfPass> {
  void runOnOperation() override {
    SmallVector<scf::IfOp> versions;
    getOperation().walk([&](scf::IfOp version) {
      if (version->hasAttr(kParallelVersion))
        versions.push_back(version);
    });
    IRRewriter rewriter(&getContext());
    for (scf::IfOp version : versions) {
      Block *then = version.thenBlock();
      SmallVector<omp::ParallelOp> regions;
      then->walk([&](omp::ParallelOp region) { regions.push_back(region); });
      if (regions.size() != 1 || regions.front()->getBlock() != then ||
          regions.front().getIfExpr() || version.getNumResults() != 0)
        continue; // keep both versions
      regions.front().getIfExprMutable().assign(version.getCondition());
      rewriter.eraseOp(then->getTerminator());
      rewriter.inlineBlockBefore(then, version);
      rewriter.eraseOp(version);
    }
  }
};
} // namespace
