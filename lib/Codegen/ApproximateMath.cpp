//===- ApproximateMath.cpp - Polynomial tanh instead of libm calls --------===//
//
// -fnc-approximate-math: math.tanh on f32 becomes upstream's polynomial
// approximation, so loops of tanh vectorize. See Passes.td.
//
//===----------------------------------------------------------------------===//

#include "fnc/Codegen/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::fnc {
#define GEN_PASS_DEF_FNCAPPROXIMATEMATH
#include "fnc/Codegen/Passes.h.inc"
} // namespace mlir::fnc

using namespace mlir;

namespace {

struct ApproximateMath : fnc::impl::FncApproximateMathBase<ApproximateMath> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populatePolynomialApproximateTanhPattern(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns)))) {
      signalPassFailure();
      return;
    }
    // The approximation is written with math.fma, which convert-math-to-libm
    // would turn into calls of fmaf that no loop vectorizer widens. A
    // contractable multiply-add becomes the same FMA instruction in LLVM.
    getOperation().walk([](math::FmaOp fma) {
      OpBuilder b(fma);
      auto contract = arith::FastMathFlagsAttr::get(
          b.getContext(), arith::FastMathFlags::contract);
      Value product = arith::MulFOp::create(b, fma.getLoc(), fma.getA(),
                                            fma.getB(), contract);
      Value sum =
          arith::AddFOp::create(b, fma.getLoc(), product, fma.getC(), contract);
      fma.replaceAllUsesWith(sum);
      fma.erase();
    });
  }
};

} // namespace
