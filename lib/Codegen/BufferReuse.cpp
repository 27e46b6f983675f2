//===- BufferReuse.cpp - Buffers reused by later values -------------------===//
//
// -fnc-buffer-reuse (tensor level: elementwise ops write into dying
// inputs), -fnc-share-buffers (buffer level: a new allocation takes a dead
// one's place) and -fnc-print-buffer-plan, the printer that shows the
// result. See Passes.td.
//
//===----------------------------------------------------------------------===//

#include "fnc/Codegen/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Bufferization/Transforms/BufferViewFlowAnalysis.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/Support/raw_ostream.h"

namespace mlir::fnc {
#define GEN_PASS_DEF_FNCBUFFERREUSE
#define GEN_PASS_DEF_FNCSHAREBUFFERS
#define GEN_PASS_DEF_FNCDOUBLEBUFFERLOOPS
#define GEN_PASS_DEF_FNCPRINTBUFFERPLAN
#include "fnc/Codegen/Passes.h.inc"
} // namespace mlir::fnc

using namespace mlir;

namespace {

/// Whether `value` has no user after `op` (its users other than `op` come
/// earlier in op's block).
bool deadAfter(Value value, Operation *op) {
  return llvm::none_of(value.getUsers(), [&](Operation *user) {
    return user != op && (user->getBlock() != op->getBlock() ||
                          !user->isBeforeInBlock(op));
  });
}

/// An input whose buffer `generic` may overwrite: same type as the result,
/// read through the identity map, not used after `generic` (its other users
/// come earlier in the same block), and produced by an op (not a function
/// argument, not a constant), also when it is a slice or a reshape of
/// another value (with unknown dims a whole-tensor read is an
/// extract_slice): then that value must be dead too, and made by an op.
/// One-Shot Bufferize still checks the in-place write and copies if it
/// must.
Value dyingInput(linalg::GenericOp generic) {
  Type resultType = generic.getResult(0).getType();
  for (OpOperand *input : generic.getDpsInputOperands()) {
    Value value = input->get();
    if (value.getType() != resultType ||
        !generic.getMatchingIndexingMap(input).isIdentity())
      continue;
    Value root = value;
    bool dead = deadAfter(value, generic);
    while (Operation *view = root.getDefiningOp()) {
      if (!isa<tensor::ExtractSliceOp, tensor::CollapseShapeOp,
               tensor::ExpandShapeOp, tensor::CastOp>(view))
        break;
      root = view->getOperand(0);
      dead = dead && deadAfter(root, view);
    }
    Operation *producer = root.getDefiningOp();
    if (!dead || !producer || producer->hasTrait<OpTrait::ConstantLike>())
      continue;
    // Read exactly once by this op, so the body cannot see its own writes.
    if (llvm::count_if(generic->getOperands(),
                       [&](Value v) { return v == value; }) != 1)
      continue;
    return value;
  }
  return nullptr;
}

/// The value whose buffer `value` will be once bufferized: through casts,
/// slices and reshapes, which bufferize to views.
Value viewedValue(Value value) {
  while (Operation *op = value.getDefiningOp()) {
    if (auto cast = dyn_cast<tensor::CastOp>(op))
      value = cast.getSource();
    else if (auto slice = dyn_cast<tensor::ExtractSliceOp>(op))
      value = slice.getSource();
    else if (auto collapse = dyn_cast<tensor::CollapseShapeOp>(op))
      value = collapse.getSrc();
    else if (auto expand = dyn_cast<tensor::ExpandShapeOp>(op))
      value = expand.getSrc();
    else if (auto reshape = dyn_cast<tensor::ReshapeOp>(op))
      value = reshape.getSource();
    else
      break;
  }
  return value;
}

/// Gives every loop-carried tensor a buffer of its own: where an
/// scf.for's or scf.while's terminator passes one value (or views of one)
/// at two positions, each repeat becomes a copy. Upstream One-Shot
/// Bufferize assumes that a loop's results, and the arguments of its next
/// iteration, never share a buffer (it copies only a yield that aliases a
/// value from outside the loop), so an in-place write into one of them
/// (a dying result reused by this pass) silently changed the other: a body
/// that returns (v, v) and `r0 + r1 * 2` after the loop gave 4 v.
void copyRepeatedLoopValues(func::FuncOp func) {
  func.walk([](Operation *terminator) {
    if (!isa<scf::YieldOp, scf::ConditionOp>(terminator) ||
        !isa<scf::ForOp, scf::WhileOp>(terminator->getParentOp()))
      return;
    OpBuilder builder(terminator);
    DenseSet<Value> seen;
    // scf.condition's first operand is the condition.
    unsigned first = isa<scf::ConditionOp>(terminator) ? 1 : 0;
    for (OpOperand &operand : terminator->getOpOperands().drop_front(first)) {
      auto type = dyn_cast<RankedTensorType>(operand.get().getType());
      if (!type || seen.insert(viewedValue(operand.get())).second)
        continue;
      operand.set(bufferization::AllocTensorOp::create(
          builder, terminator->getLoc(), type, ValueRange(), operand.get()));
    }
  });
}

struct BufferReusePass
    : public fnc::impl::FncBufferReuseBase<BufferReusePass> {
  void runOnOperation() override {
    // A slice without elements needs no view: an empty tensor. Kept as a
    // slice, bufferization and canonicalization would fold a cast into its
    // source and meet offset 0 into a dim of static size 0, which upstream
    // refuses ("offset is out-of-bounds: 0 >= 0").
    IRRewriter rewriter(&getContext());
    copyRepeatedLoopValues(getOperation());
    getOperation().walk([&](tensor::ExtractSliceOp slice) {
      RankedTensorType type = slice.getResultType();
      if (!llvm::is_contained(type.getShape(), 0))
        return;
      SmallVector<OpFoldResult> sizes;
      for (auto [i, size] : llvm::enumerate(slice.getMixedSizes()))
        if (!slice.getDroppedDims().test(i))
          sizes.push_back(size);
      rewriter.setInsertionPoint(slice);
      Value empty = tensor::EmptyOp::create(rewriter, slice.getLoc(), sizes,
                                            type.getElementType());
      if (empty.getType() != type)
        empty = tensor::CastOp::create(rewriter, slice.getLoc(), type, empty);
      rewriter.replaceOp(slice, empty);
    });
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

struct ShareBuffersPass
    : public fnc::impl::FncShareBuffersBase<ShareBuffersPass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isDeclaration())
      return;
    Block &entry = func.getBody().front();
    DenseMap<Operation *, int64_t> position;
    int64_t next = 0;
    for (Operation &op : entry)
      position[&op] = next++;
    BufferViewFlowAnalysis aliases(func);

    // The position of the last op of the entry block that uses `buffer`
    // or a view of it; nullopt if it escapes the function.
    auto lastUse = [&](Value buffer) -> std::optional<int64_t> {
      int64_t last = position[buffer.getDefiningOp()];
      for (Value alias : aliases.resolve(buffer)) {
        for (Operation *user : alias.getUsers()) {
          Operation *top = entry.findAncestorOpInBlock(*user);
          if (!top || isa<func::ReturnOp>(user))
            return std::nullopt;
          // A call may hand the buffer back in a result the analysis does
          // not connect to it: treat it as escaping.
          if (isa<CallOpInterface>(user) &&
              llvm::any_of(user->getResultTypes(), [](Type t) {
                return isa<BaseMemRefType>(t);
              }))
            return std::nullopt;
          last = std::max(last, position[top]);
        }
      }
      return last;
    };

    struct Dead {
      memref::AllocOp alloc;
      int64_t lastUse;
    };
    SmallVector<Dead> buffers;
    for (auto alloc :
         llvm::make_early_inc_range(entry.getOps<memref::AllocOp>())) {
      MemRefType type = alloc.getType();
      // (An empty buffer has nothing to share, and the strides of a view of
      // one with a zero dim are not static.)
      if (!type.hasStaticShape() || !type.getLayout().isIdentity() ||
          type.getNumElements() == 0)
        continue;
      std::optional<int64_t> end = lastUse(alloc);
      if (!end)
        continue;
      int64_t here = position[alloc];
      // The smallest dead buffer of the element type that is big enough.
      Dead *free = nullptr;
      for (Dead &d : buffers) {
        MemRefType candidate = d.alloc.getType();
        if (d.lastUse < here &&
            candidate.getElementType() == type.getElementType() &&
            candidate.getNumElements() >= type.getNumElements() &&
            d.alloc.getAlignment() == alloc.getAlignment() &&
            (!free ||
             candidate.getNumElements() <
                 free->alloc.getType().getNumElements()))
          free = &d;
      }
      if (!free) {
        buffers.push_back({alloc, *end});
        continue;
      }
      Value reused = free->alloc.getResult();
      if (free->alloc.getType() != type) {
        // A smaller buffer: a view of the first elements of the dead one.
        OpBuilder b(alloc);
        SmallVector<int64_t> strides;
        int64_t offset;
        (void)type.getStridesAndOffset(strides, offset);
        auto view = memref::ReinterpretCastOp::create(
            b, alloc.getLoc(), type, reused, /*offset=*/0, type.getShape(),
            strides);
        position[view] = here;
        reused = view;
      }
      alloc.replaceAllUsesWith(reused);
      alloc.erase();
      free->lastUse = *end;
    }
  }
};

/// True if `buffer` (or a view of it) is used only inside `loop`'s body,
/// by ops that neither return a memref other than a view (whose users are
/// checked alike) nor call out, and no terminator passes it on except
/// `loop`'s yield at `yieldIndex` (-1: none may).
static bool staysInIteration(Value buffer, scf::ForOp loop,
                             int64_t yieldIndex) {
  for (OpOperand &use : buffer.getUses()) {
    Operation *user = use.getOwner();
    if (!loop.getBody()->getParentOp()->isProperAncestor(user))
      return false;
    if (user == loop.getBody()->getTerminator()) {
      if (static_cast<int64_t>(use.getOperandNumber()) != yieldIndex)
        return false;
      continue;
    }
    if (isa<CallOpInterface>(user) || user->hasTrait<OpTrait::IsTerminator>())
      return false;
    for (Value result : user->getResults()) {
      if (!isa<BaseMemRefType>(result.getType()))
        continue;
      if (!isa<ViewLikeOpInterface>(user) ||
          !staysInIteration(result, loop, /*yieldIndex=*/-1))
        return false;
    }
  }
  return true;
}

struct DoubleBufferLoopsPass
    : public fnc::impl::FncDoubleBufferLoopsBase<DoubleBufferLoopsPass> {
  void runOnOperation() override {
    SmallVector<scf::ForOp> loops;
    getOperation().walk([&](scf::ForOp loop) { loops.push_back(loop); });
    for (scf::ForOp loop : loops) {
      auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
      for (auto [k, yielded] : llvm::enumerate(yield.getOperands())) {
        auto alloc = yielded.getDefiningOp<memref::AllocOp>();
        if (!alloc || alloc->getBlock() != loop.getBody() ||
            !alloc.getSymbolOperands().empty() ||
            llvm::any_of(alloc.getDynamicSizes(), [&](Value size) {
              return loop->isAncestor(size.getParentBlock()->getParentOp());
            }))
          continue;
        Value arg = loop.getRegionIterArg(k);
        if (!staysInIteration(yielded, loop, k) ||
            !staysInIteration(arg, loop, /*yieldIndex=*/-1))
          continue;
        OpBuilder b(loop);
        Location loc = alloc.getLoc();
        Value first = b.clone(*alloc)->getResult(0);
        Value second = b.clone(*alloc)->getResult(0);
        b.setInsertionPoint(alloc);
        auto address = [&](Value buffer) {
          return memref::ExtractAlignedPointerAsIndexOp::create(b, loc, buffer);
        };
        Value readsFirst = arith::CmpIOp::create(
            b, loc, arith::CmpIPredicate::eq, address(arg), address(first));
        Value turn = arith::SelectOp::create(b, loc, readsFirst, second, first);
        alloc.replaceAllUsesWith(turn);
        alloc.erase();
      }
    }
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
