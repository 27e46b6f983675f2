//===- Nests.h - The loop nests of bufferized code --------------*- C++ -*-===//
//
// Internal to lib/Codegen: what -fnc-outline-kernels outlines and
// -fnc-profile-kernels times, one definition for both.
//
//===----------------------------------------------------------------------===//

#ifndef FNC_LIB_CODEGEN_NESTS_H
#define FNC_LIB_CODEGEN_NESTS_H

#include "mlir/Dialect/OpenMP/OpenMPDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Interfaces/LoopLikeInterface.h"

namespace mlir::fnc {

/// Whether `op` is a loop nest: a loop or an OpenMP region that carries no
/// buffer. A loop that carries buffers is a loop of the traced program
/// (fnc.while, fnc.for_range) and holds nests of its own.
inline bool isNest(Operation *op) {
  if (!isa<LoopLikeOpInterface, omp::ParallelOp>(op) || isa<scf::WhileOp>(op))
    return false;
  return llvm::none_of(op->getResultTypes(), llvm::IsaPred<BaseMemRefType>);
}

/// The nests of `region`, outermost only, looking through every op that is
/// not one.
inline void collectNests(Region &region, SmallVectorImpl<Operation *> &nests) {
  for (Block &block : region)
    for (Operation &op : block) {
      if (op.getNumRegions() == 0)
        continue;
      if (isNest(&op)) {
        nests.push_back(&op);
        continue;
      }
      for (Region &inner : op.getRegions())
        collectNests(inner, nests);
    }
}

} // namespace mlir::fnc

#endif // FNC_LIB_CODEGEN_NESTS_H
