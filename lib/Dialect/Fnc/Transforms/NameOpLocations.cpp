//===- NameOpLocations.cpp - Locations that name their fnc op -------------===//
//
// -fnc-name-op-locations: see Passes.td.
//
//===----------------------------------------------------------------------===//

#include "fnc/Dialect/Fnc/IR/FncOps.h"
#include "fnc/Dialect/Fnc/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace mlir::fnc {
#define GEN_PASS_DEF_FNCNAMEOPLOCATIONS
#include "fnc/Dialect/Fnc/Transforms/Passes.h.inc"
} // namespace mlir::fnc

using namespace mlir;
using namespace mlir::fnc;

namespace {
struct NameOpLocationsPass
    : public fnc::impl::FncNameOpLocationsBase<NameOpLocationsPass> {
  void runOnOperation() override {
    getOperation().walk([&](Operation *op) {
      if (!op->getDialect() || !isa<FncDialect>(op->getDialect()))
        return;
      StringAttr name = op->getName().getIdentifier();
      if (auto named = dyn_cast<NameLoc>(op->getLoc()))
        if (named.getName() == name)
          return; // already named (the pass ran before)
      op->setLoc(NameLoc::get(name, op->getLoc()));
    });
  }
};
} // namespace
