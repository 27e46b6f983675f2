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

/// True if `loop` is innermost and runs at least `minTrips` times (a count
/// known while compiling).
bool isLongInnerLoop(scf::ForOp loop, int64_t minTrips) {
  std::optional<APInt> trips = loop.getStaticTripCount();
  if (!trips || trips->getSExtValue() < minTrips)
    return false;
  WalkResult nested = loop.getBody()->walk([](LoopLikeOpInterface) {
    return WalkResult::interrupt();
  });
  return !nested.wasInterrupted();
}

struct KeepInnerLoopsPass
    : public fnc::impl::FncKeepInnerLoopsBase<KeepInnerLoopsPass> {
  using Base::Base;

  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    auto disable = LLVM::LoopUnrollAttr::get(
        ctx, BoolAttr::get(ctx, true), {}, {}, {}, {}, {}, {});
    getOperation().walk([&](scf::ForOp loop) {
      if (!isLongInnerLoop(loop, minTrips))
        return;
      // Each loop needs an annotation of its own: LLVM identifies a loop by
      // its metadata node, and equal attributes would translate to one node
      // shared by all loops. A distinct (unused) access group makes it so.
      auto group = LLVM::AccessGroupAttr::get(
          ctx, DistinctAttr::create(UnitAttr::get(ctx)));
      auto annotation = LLVM::LoopAnnotationAttr::get(
          ctx, /*disableNonforced=*/{}, /*vectorize=*/{}, /*interleave=*/{},
          disable, /*unrollAndJam=*/{}, /*licm=*/{}, /*distribute=*/{},
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
