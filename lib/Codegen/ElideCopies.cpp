//===- ElideCopies.cpp - Read variables in place, without snapshots -------===//
//
// -fnc-elide-snapshot-copies: a copy of a buffer into a fresh allocation
// (a variable's snapshot) is removed where the copy's reader could read the
// source instead. -fnc-elide-loop-condition-copies: an scf.while passes its
// carried buffers on without the copies One-Shot Bufferize gives them where
// the buffer is the loop's alone. See Passes.td.
//
//===----------------------------------------------------------------------===//

#include "fnc/Codegen/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Dominance.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

namespace mlir::fnc {
#define GEN_PASS_DEF_FNCELIDESNAPSHOTCOPIES
#define GEN_PASS_DEF_FNCELIDELOOPCONDITIONCOPIES
#include "fnc/Codegen/Passes.h.inc"
} // namespace mlir::fnc

using namespace mlir;

namespace {

/// The buffers `v` may be a view of: through view-like ops and the
/// branches of scf.if. A root that is neither an allocation nor a function
/// argument (a loop's iteration argument, a call's result) is itself.
void collectRoots(Value v, SmallVectorImpl<Value> &roots) {
  while (Operation *def = v.getDefiningOp()) {
    if (auto view = dyn_cast<ViewLikeOpInterface>(def)) {
      v = view.getViewSource();
      continue;
    }
    if (auto ifOp = dyn_cast<scf::IfOp>(def)) {
      unsigned i = cast<OpResult>(v).getResultNumber();
      collectRoots(ifOp.thenYield().getOperand(i), roots);
      if (!ifOp.getElseRegion().empty())
        collectRoots(ifOp.elseYield().getOperand(i), roots);
      return;
    }
    break;
  }
  roots.push_back(v);
}

/// Whether `root` is a buffer of its own: an allocation, or a function
/// argument (fnc passes each tensor and variable in its own buffer, so
/// distinct arguments are taken not to alias).
bool isDistinctBuffer(Value root) {
  if (auto arg = dyn_cast<BlockArgument>(root))
    return isa<func::FuncOp>(arg.getOwner()->getParentOp());
  return isa_and_nonnull<memref::AllocOp, memref::AllocaOp>(
      root.getDefiningOp());
}

/// Whether `a` and `b` may be views of one buffer.
bool mayAlias(Value a, Value b) {
  SmallVector<Value> ra, rb;
  collectRoots(a, ra);
  collectRoots(b, rb);
  for (Value x : ra)
    for (Value y : rb)
      if (x == y || !isDistinctBuffer(x) || !isDistinctBuffer(y))
        return true;
  return false;
}

/// Whether `op` (or an op nested in it) may write `buffer`.
bool mayWrite(Operation *op, Value buffer) {
  bool writes = false;
  op->walk([&](Operation *inner) {
    if (writes)
      return WalkResult::interrupt();
    if (auto call = dyn_cast<func::CallOp>(inner)) {
      // A function of an fnc module (or of its runtime) touches no memory
      // but what it is passed: no mutable globals.
      for (Value operand : call.getOperands())
        if (isa<BaseMemRefType>(operand.getType()) &&
            mayAlias(operand, buffer))
          writes = true;
      return WalkResult::advance();
    }
    auto effects = dyn_cast<MemoryEffectOpInterface>(inner);
    if (!effects) {
      // Ops with regions whose effects are their body's (scf.for, ...)
      // are walked into; any other op is assumed to write anything.
      if (!inner->hasTrait<OpTrait::HasRecursiveMemoryEffects>())
        writes = true;
      return WalkResult::advance();
    }
    SmallVector<MemoryEffects::EffectInstance> list;
    effects.getEffects(list);
    for (const MemoryEffects::EffectInstance &e : list) {
      if (!isa<MemoryEffects::Write>(e.getEffect()))
        continue;
      Value target = e.getValue();
      if (!target || mayAlias(target, buffer)) {
        writes = true;
        break;
      }
    }
    return WalkResult::advance();
  });
  return writes;
}

/// The uses of `buffer` and of every view of it.
void collectUses(Value buffer, SmallVectorImpl<OpOperand *> &uses) {
  for (OpOperand &use : buffer.getUses()) {
    if (auto view = dyn_cast<ViewLikeOpInterface>(use.getOwner());
        view && view.getViewSource() == buffer) {
      for (Value result : use.getOwner()->getResults())
        collectUses(result, uses);
      continue;
    }
    uses.push_back(&use);
  }
}

/// Whether `use` only reads its buffer; false for a write or an op whose
/// effect on it is not known here.
bool readsOnly(OpOperand &use) {
  Operation *op = use.getOwner();
  if (isa<memref::LoadOp, func::ReturnOp>(op))
    return true;
  if (auto copy = dyn_cast<memref::CopyOp>(op))
    return use.get() == copy.getSource() && use.get() != copy.getTarget();
  if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op))
    return linalgOp.isDpsInput(&use);
  return false;
}

/// An all-parallel linalg.generic whose operands that are views of
/// `a` or `b` are all indexed by the identity: element i of one is only
/// read and written at element i.
bool isElementwiseOn(Operation *op, Value a, Value b) {
  auto generic = dyn_cast<linalg::GenericOp>(op);
  if (!generic || generic.getNumLoops() != generic.getNumParallelLoops())
    return false;
  for (OpOperand &operand : generic->getOpOperands()) {
    Value v = operand.get();
    if ((mayAlias(v, a) || mayAlias(v, b)) &&
        !generic.getMatchingIndexingMap(&operand).isIdentity())
      return false;
  }
  return true;
}

/// The ancestor of `op` in `block`, or null.
Operation *ancestorIn(Block *block, Operation *op) {
  return block->findAncestorOpInBlock(*op);
}

/// Whether any op after `from` up to `to` (ancestors in one block,
/// inclusive of `to` unless `toExcluded`) may write `buffer`.
bool writtenBetween(Operation *from, Operation *to, Value buffer,
                    bool toExcluded) {
  for (Operation *op = from->getNextNode(); op; op = op->getNextNode()) {
    if (op == to && toExcluded)
      return false;
    if (mayWrite(op, buffer))
      return true;
    if (op == to)
      return false;
  }
  return true;
}

/// Removes `copy` (from `source` into the fresh `alloc`) if `alloc` is a
/// read-only snapshot read before `source` changes: its uses read `source`.
bool elideReadOnly(memref::CopyOp copy, Value source, Value alloc) {
  Block *block = copy->getBlock();
  SmallVector<OpOperand *> uses;
  collectUses(alloc, uses);
  Operation *last = nullptr;
  for (OpOperand *use : uses) {
    if (use->getOwner() == copy)
      continue;
    Operation *at = ancestorIn(block, use->getOwner());
    if (!at || !copy->isBeforeInBlock(at) || !readsOnly(*use))
      return false;
    if (!last || last->isBeforeInBlock(at))
      last = at;
  }
  if (last) {
    // The last reader may write the source itself if it reads and writes
    // each element in place.
    bool lastWritesInPlace = isElementwiseOn(last, source, alloc);
    if (writtenBetween(copy, last, source, lastWritesInPlace))
      return false;
  }
  alloc.replaceAllUsesExcept(source, copy);
  copy->erase();
  if (alloc.use_empty())
    alloc.getDefiningOp()->erase();
  return true;
}

/// Removes `copy` if the first user of `alloc` is an elementwise generic
/// that writes all of it without reading its old values: that generic
/// reads `source` where it read `alloc`.
bool elideOverwritten(memref::CopyOp copy, Value source, Value alloc,
                      DominanceInfo &dominance) {
  Operation *first = nullptr;
  for (Operation *user : alloc.getUsers()) {
    if (user == copy)
      continue;
    Operation *at = ancestorIn(copy->getBlock(), user);
    if (!at || !copy->isBeforeInBlock(at))
      return false;
    if (!first || at->isBeforeInBlock(first))
      first = at;
  }
  auto generic = dyn_cast_or_null<linalg::GenericOp>(first);
  if (!generic || !isElementwiseOn(generic, source, alloc))
    return false;
  // `alloc` itself is one of its inits, whose old values it does not read.
  bool overwrites = false;
  for (OpOperand &init : generic.getDpsInitsMutable()) {
    if (init.get() != alloc)
      continue;
    if (generic.payloadUsesValueFromOperand(&init))
      return false;
    overwrites = true;
  }
  if (!overwrites || writtenBetween(copy, generic, source, /*toExcluded=*/true))
    return false;
  // An input reading a view of `alloc` would read the values the copy no
  // longer writes. A value defined before the allocation is none.
  for (OpOperand *input : generic.getDpsInputOperands())
    if (input->get() != alloc && !dominance.properlyDominates(
                                     input->get(), alloc.getDefiningOp()) &&
        mayAlias(input->get(), alloc))
      return false;
  for (OpOperand *input : generic.getDpsInputOperands())
    if (input->get() == alloc)
      input->set(source);
  copy->erase();
  return true;
}

struct ElideSnapshotCopies
    : fnc::impl::FncElideSnapshotCopiesBase<ElideSnapshotCopies> {
  void runOnOperation() override {
    DominanceInfo &dominance = getAnalysis<DominanceInfo>();
    SmallVector<memref::CopyOp> copies;
    getOperation().walk([&](memref::CopyOp copy) { copies.push_back(copy); });
    for (memref::CopyOp copy : copies) {
      Value source = copy.getSource(), alloc = copy.getTarget();
      auto allocOp = alloc.getDefiningOp<memref::AllocOp>();
      if (!allocOp || allocOp->getBlock() != copy->getBlock() ||
          source.getType() != alloc.getType())
        continue;
      if (!elideReadOnly(copy, source, alloc))
        elideOverwritten(copy, source, alloc, dominance);
    }
  }
};

/// The allocation `v` is a view of (through view-like ops only), or null.
memref::AllocOp viewedAllocation(Value v) {
  while (auto view = v.getDefiningOp<ViewLikeOpInterface>())
    v = view.getViewSource();
  return v.getDefiningOp<memref::AllocOp>();
}

/// Whether the buffer `init` is the loop's alone: an allocation in the
/// loop's block that the loop takes once and that nothing uses (itself or
/// through a view) after the loop starts.
bool ownedByLoop(Value init, Operation *loop) {
  memref::AllocOp alloc = viewedAllocation(init);
  if (!alloc || alloc->getBlock() != loop->getBlock())
    return false;
  SmallVector<OpOperand *> uses;
  collectUses(alloc.getResult(), uses);
  int taken = 0;
  for (OpOperand *use : uses) {
    if (use->getOwner() == loop) {
      ++taken;
      continue;
    }
    Operation *at = ancestorIn(loop->getBlock(), use->getOwner());
    if (!at || !at->isBeforeInBlock(loop))
      return false;
  }
  return taken == 1;
}

/// Whether `use`, in a loop's condition block, reads its buffer at most
/// (its sizes included).
bool readsInCondition(OpOperand &use) {
  return isa<memref::DimOp>(use.getOwner()) || readsOnly(use);
}

/// Forwards before-region argument `arg` where the condition passed its
/// copy `alloc` (filled by `copy`), if the buffer is the loop's alone in
/// every iteration: the loop's initial value is (ownedByLoop), and what the
/// body yields for it is a buffer of the iteration's own (an allocation in
/// the body) or the body's argument that received it, shared with no
/// other yielded value. Then nothing else can see the buffer the body
/// writes in place, and the copy only costs its size on every iteration
/// (a growing buffer's, a history's: O(T^2)).
bool forwardWithoutCopy(scf::WhileOp loop, unsigned k, memref::CopyOp copy,
                        memref::AllocOp alloc) {
  Block &before = loop.getBefore().front(), &after = loop.getAfter().front();
  auto arg = dyn_cast<BlockArgument>(copy.getSource());
  if (!arg || arg.getOwner() != &before)
    return false;
  unsigned j = arg.getArgNumber();
  SmallVector<OpOperand *> uses;
  collectUses(arg, uses);
  for (OpOperand *use : uses)
    if (use->getOwner() != copy && !readsInCondition(*use))
      return false;
  if (!ownedByLoop(loop.getInits()[j], loop))
    return false;
  scf::YieldOp yield = loop.getYieldOp();
  Value carried = after.getArgument(k);
  SmallVector<Value> roots;
  collectRoots(yield.getOperand(j), roots);
  for (Value root : roots) {
    auto fresh = root.getDefiningOp<memref::AllocOp>();
    if (root != carried &&
        !(fresh && loop.getAfter().isAncestor(fresh->getParentRegion())))
      return false;
  }
  for (unsigned i = 0; i < yield.getNumOperands(); ++i) {
    if (i == j || !isa<BaseMemRefType>(yield.getOperand(i).getType()))
      continue;
    SmallVector<Value> others;
    collectRoots(yield.getOperand(i), others);
    for (Value other : others)
      if (other == carried || llvm::is_contained(roots, other))
        return false;
  }
  copy->erase();
  alloc.getResult().replaceAllUsesWith(arg);
  alloc->erase();
  return true;
}

struct ElideLoopConditionCopies
    : fnc::impl::FncElideLoopConditionCopiesBase<ElideLoopConditionCopies> {
  void runOnOperation() override {
    getOperation().walk([&](scf::WhileOp loop) {
      scf::ConditionOp condition = loop.getConditionOp();
      for (unsigned k = 0; k < condition.getArgs().size(); ++k) {
        Value forwarded = condition.getArgs()[k];
        auto alloc = forwarded.getDefiningOp<memref::AllocOp>();
        if (!alloc || alloc->getBlock() != condition->getBlock() ||
            llvm::count(condition.getArgs(), forwarded) != 1)
          continue;
        memref::CopyOp copy;
        bool other = false;
        for (Operation *user : alloc->getUsers()) {
          auto c = dyn_cast<memref::CopyOp>(user);
          if (c && c.getTarget() == forwarded && !copy)
            copy = c;
          else if (user != condition)
            other = true;
        }
        if (!other && copy && copy.getSource().getType() == alloc.getType())
          forwardWithoutCopy(loop, k, copy, alloc);
      }
    });
  }
};

} // namespace
