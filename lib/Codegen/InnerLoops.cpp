//===- InnerLoops.cpp - Keep inner loops rolled for the vectorizer --------===//
//
// -fnc-keep-inner-loops: see Passes.td.
//
//===----------------------------------------------------------------------===//

#include "fnc/Codegen/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMAttrs.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Interfaces/LoopLikeInterface.h"

namespace mlir::fnc {
#define GEN_PASS_DEF_FNCKEEPINNERLOOPS
#include "fnc/Codegen/Passes.h.inc"
} // namespace mlir::fnc

using namespace mlir;

namespace {

/// The trip count of `loop` if it is innermost and the count is known
/// while compiling.
std::optional<int64_t> innerTrips(scf::ForOp loop) {
  std::optional<APInt> trips = loop.getStaticTripCount();
  if (!trips)
    return std::nullopt;
  WalkResult nested = loop.getBody()->walk([](LoopLikeOpInterface) {
    return WalkResult::interrupt();
  });
  if (nested.wasInterrupted())
    return std::nullopt;
  return trips->getSExtValue();
}

/// Loops of fewer trips than this are left to LLVM's unroller.
constexpr int64_t kMinVectorTrips = 4;
/// A short loop with at least this many ops in its body (a fused chain of
/// transcendentals) is too big for LLVM to unroll fully, and its
/// vectorizer skips loops of fewer than 16 known trips: it is vectorized
/// on request.
constexpr int64_t kMinShortBody = 32;
/// A math op (exp, tanh...) counts as this many: it becomes a polynomial of
/// about 20 to 40 instructions later (fnc-approximate-math).
constexpr int64_t kMathOpSize = 16;

/// The size of `loop`'s scalar body in ops, transcendentals weighted; 0
/// unless the body is straight-line scalar code with a math op. LLVM's
/// vectorizer takes no loop that branches (an op with regions, such as
/// scf.if) and has nothing to do in one of vector code (the matmul
/// kernel's k loop); asked to vectorize either, it warns on stderr.
int64_t bodySize(scf::ForOp loop) {
  int64_t n = 0;
  bool math = false;
  for (Operation &op : loop.getBody()->getOperations()) {
    if (op.getNumRegions() != 0 ||
        llvm::any_of(op.getResultTypes(), llvm::IsaPred<VectorType>))
      return 0;
    bool isMath =
        op.getDialect() && op.getDialect()->getNamespace() == "math";
    math |= isMath;
    n += isMath ? kMathOpSize : 1;
  }
  return math ? n : 0;
}

struct KeepInnerLoopsPass
    : public fnc::impl::FncKeepInnerLoopsBase<KeepInnerLoopsPass> {
  using Base::Base;

  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    auto disable = LLVM::LoopUnrollAttr::get(
        ctx, BoolAttr::get(ctx, true), {}, {}, {}, {}, {}, {});
    auto vectorize = LLVM::LoopVectorizeAttr::get(
        ctx, /*disable=*/BoolAttr::get(ctx, false), {}, {}, {}, {}, {}, {});
    getOperation().walk([&](scf::ForOp loop) {
      std::optional<int64_t> trips = innerTrips(loop);
      if (!trips || *trips < kMinVectorTrips)
        return;
      bool longLoop = *trips >= minTrips;
      if (!longLoop && bodySize(loop) < kMinShortBody)
        return;
      // Each loop needs an annotation of its own: LLVM identifies a loop by
      // its metadata node, and equal attributes would translate to one node
      // shared by all loops. A distinct (unused) access group makes it so.
      auto group = LLVM::AccessGroupAttr::get(
          ctx, DistinctAttr::create(UnitAttr::get(ctx)));
      auto annotation = LLVM::LoopAnnotationAttr::get(
          ctx, /*disableNonforced=*/{},
          /*vectorize=*/longLoop ? LLVM::LoopVectorizeAttr() : vectorize,
          /*interleave=*/{}, longLoop ? disable : LLVM::LoopUnrollAttr(),
          /*unrollAndJam=*/{}, /*licm=*/{}, /*distribute=*/{},
          /*pipeline=*/{}, /*peeled=*/{}, /*unswitch=*/{},
          /*mustProgress=*/{}, /*isVectorized=*/{}, /*startLoc=*/{},
          /*endLoc=*/{}, {group});
      // scf-to-cf moves LLVM attributes of the loop onto its back edge,
      // where cf-to-llvm makes this one the branch's loop_annotation.
      loop->setAttr("loop_annotation", annotation);
    });
  }
};

} // namespace
