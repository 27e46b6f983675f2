//===- MathIntrinsics.cpp - Rounding math ops as LLVM intrinsics ----------===//
//
// -fnc-math-to-intrinsics: math.floor/ceil/trunc/round/roundeven become the
// LLVM intrinsics, so that convert-math-to-libm leaves no libm call in a
// loop that LLVM could vectorize. See Passes.td.
//
//===----------------------------------------------------------------------===//

#include "fnc/Codegen/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"

namespace mlir::fnc {
#define GEN_PASS_DEF_FNCMATHTOINTRINSICS
#include "fnc/Codegen/Passes.h.inc"
} // namespace mlir::fnc

using namespace mlir;

namespace {

/// Replaces every `From` op of `root` with the intrinsic `To` on the same
/// operand (the types are floats or vectors of floats, valid in both).
template <typename From, typename To> void replaceAll(Operation *root) {
  root->walk([](From op) {
    OpBuilder b(op);
    Value r = To::create(b, op.getLoc(), op.getOperand());
    op.replaceAllUsesWith(r);
    op.erase();
  });
}

struct MathToIntrinsics
    : fnc::impl::FncMathToIntrinsicsBase<MathToIntrinsics> {
  void runOnOperation() override {
    Operation *root = getOperation();
    replaceAll<math::FloorOp, LLVM::FFloorOp>(root);
    replaceAll<math::CeilOp, LLVM::FCeilOp>(root);
    replaceAll<math::TruncOp, LLVM::FTruncOp>(root);
    replaceAll<math::RoundOp, LLVM::RoundOp>(root);
    replaceAll<math::RoundEvenOp, LLVM::RoundEvenOp>(root);
  }
};

} // namespace
