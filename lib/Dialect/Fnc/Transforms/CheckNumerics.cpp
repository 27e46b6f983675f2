//===- CheckNumerics.cpp - NaN/Inf checks after float ops -----------------===//
//
// -fnc-check-numerics: see Passes.td.
//
//===----------------------------------------------------------------------===//

#include "fnc/Dialect/Fnc/IR/FncOps.h"
#include "fnc/Dialect/Fnc/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "llvm/Support/raw_ostream.h"

namespace mlir::fnc {
#define GEN_PASS_DEF_FNCCHECKNUMERICS
#include "fnc/Dialect/Fnc/Transforms/Passes.h.inc"
} // namespace mlir::fnc

using namespace mlir;
using namespace mlir::fnc;

namespace {
struct CheckNumericsPass
    : public fnc::impl::FncCheckNumericsBase<CheckNumericsPass> {
  void runOnOperation() override {
    SmallVector<Operation *> producers;
    getOperation().walk([&](Operation *op) {
      if (op->getDialect() && isa<FncDialect>(op->getDialect()) &&
          !isa<ConstantOp, CheckNumericsOp>(op))
        producers.push_back(op);
    });
    OpBuilder b(&getContext());
    StringRef function = getOperation().getName();
    int64_t index = 0;
    for (Operation *op : producers) {
      ++index;
      for (Value result : op->getResults()) {
        auto type = dyn_cast<RankedTensorType>(result.getType());
        if (!type || !isa<FloatType>(type.getElementType()))
          continue;
        std::string message;
        llvm::raw_string_ostream os(message);
        os << op->getName() << " (op #" << index << " of @" << function
           << ")";
        if (auto file = dyn_cast<FileLineColLoc>(op->getLoc()))
          os << " at " << file.getFilename().getValue() << ":"
             << file.getLine() << ":" << file.getColumn();
        b.setInsertionPointAfter(op);
        CheckNumericsOp::create(b, op->getLoc(), result,
                                b.getStringAttr(message));
      }
    }
  }
};
} // namespace
