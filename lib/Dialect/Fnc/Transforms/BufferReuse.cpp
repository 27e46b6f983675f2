//===- BufferReuse.cpp - Elementwise ops write into dead inputs -----------===//
//
// -fnc-buffer-reuse (see Passes.td) and -fnc-print-buffer-plan, the
// printer that shows what bufferization made of it.
//
//===----------------------------------------------------------------------===//

#include "fnc/Dialect/Fnc/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/Support/raw_ostream.h"

namespace mlir::fnc {
#define GEN_PASS_DEF_FNCBUFFERREUSE
#define GEN_PASS_DEF_FNCPRINTBUFFERPLAN
#include "fnc/Dialect/Fnc/Transforms/Passes.h.inc"
} // namespace mlir::fnc

using namespace mlir;

namespace {

/// An input whose buffer `generic` may overwrite: same type as the result,
/// read through the identity map, not used after `generic` (its other users
/// come earlier in the same block), and produced by an op (not a function
/// argument, not a constant). One-Shot Bufferize still checks the in-place
/// write and copies if it must.
Value dyingInput(linalg::GenericOp generic) {
  Type resultType = generic.getResult(0).getType();
  for (OpOperand *input : generic.getDpsInputOperands()) {
    Value value = input->get();
    if (value.getType() != resultType ||
        !generic.getMatchingIndexingMap(input).isIdentity())
      continue;
    Operation *producer = value.getDefiningOp();
    if (!producer || producer->hasTrait<OpTrait::ConstantLike>())
      continue;
    if (llvm::any_of(value.getUsers(), [&](Operation *user) {
          return user != generic &&
                 (user->getBlock() != generic->getBlock() ||
                  !user->isBeforeInBlock(generic));
        }))
      continue;
    // Read exactly once by this op, so the body cannot see its own writes.
    if (llvm::count_if(generic->getOperands(),
                       [&](Value v) { return v == value; }) != 1)
      continue;
    return value;
  }
  return nullptr;
}

struct BufferReusePass
    : public fnc::impl::FncBufferReuseBase<BufferReusePass> {
  void runOnOperation() override {
    getOperation().walk([](linalg::GenericOp generic) {
      if (generic.getNumResults() != 1 || generic.getNumDpsInits() != 1 ||
          generic.getNumParallelLoops() != generic.getNumLoops())
        return;
      OpOperand *init = generic.getDpsInitOperand(0);
      if (!init->get().getDefiningOp<tensor::EmptyOp>() ||
          generic.payloadUsesValueFromOperand(init) ||
          !generic.getMatchingIndexingMap(init).isIdentity())
        return;
      if (Value input = dyingInput(generic))
        init->set(input);
    });
  }
};

struct PrintBufferPlanPass
    : public fnc::impl::FncPrintBufferPlanBase<PrintBufferPlanPass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    llvm::raw_ostream &os = llvm::outs();
    os << "buffer plan of @" << func.getName() << ":\n";
    DenseMap<Value, std::string> names;
    for (auto [i, arg] : llvm::enumerate(func.getArguments()))
      names[arg] = "arg " + std::to_string(i);
    int64_t allocs = 0, total = 0;
    func.walk([&](Operation *op) {
      if (!isa<memref::AllocOp, memref::AllocaOp>(op))
        return;
      auto type = cast<MemRefType>(op->getResult(0).getType());
      std::string name = "alloc " + std::to_string(allocs++);
      names[op->getResult(0)] = name;
      os << "  " << name << ": " << type;
      if (type.hasStaticShape()) {
        int64_t bytes = type.getNumElements() *
                        ((type.getElementTypeBitWidth() + 7) / 8);
        total += bytes;
        os << " (" << bytes << " bytes)";
      } else {
        os << " (dynamic size)";
      }
      os << (isa<memref::AllocaOp>(op) ? " on the stack" : "") << "\n";
    });
    // The buffer a memref value is (a view of), by walking view chains.
    auto nameOf = [&](Value v) -> std::string {
      std::string prefix;
      while (!names.count(v)) {
        auto view = v.getDefiningOp<ViewLikeOpInterface>();
        if (!view)
          return "an unnamed buffer";
        v = view.getViewSource();
        prefix = "a view of ";
      }
      return prefix + names[v];
    };
    func.walk([&](linalg::LinalgOp op) {
      for (OpOperand &init : op.getDpsInitsMutable())
        if (isa<MemRefType>(init.get().getType()))
          os << "  " << op->getName() << " writes " << nameOf(init.get())
             << "\n";
    });
    os << "  total: " << allocs << " allocation(s), " << total
       << " bytes known statically\n";
  }
};
} // namespace
