//===- OutlineKernels.cpp - One function per loop nest --------------------===//
//
// -fnc-outline-kernels: see Passes.td.
//
//===----------------------------------------------------------------------===//

#include "fnc/Codegen/Passes.h"

#include "Nests.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Transforms/RegionUtils.h"

namespace mlir::fnc {
#define GEN_PASS_DEF_FNCOUTLINEKERNELS
#include "fnc/Codegen/Passes.h.inc"
} // namespace mlir::fnc

using namespace mlir;
using mlir::fnc::collectNests;

namespace {

/// Types a function argument may have here (what the LLVM lowering of
/// func.func takes).
bool isPassable(Type type) {
  return isa<MemRefType, IndexType, IntegerType, FloatType, VectorType,
             LLVM::LLVMPointerType>(type);
}

/// The text of `fn` without its name and locations: equal for functions
/// that do the same.
std::string bodyKey(func::FuncOp fn) {
  std::string text;
  llvm::raw_string_ostream os(text);
  fn->print(os, OpPrintingFlags().enableDebugInfo(false));
  std::string name = ("@" + fn.getSymName()).str();
  size_t at = text.find(name);
  if (at != std::string::npos)
    text.erase(at, name.size());
  return text;
}

/// Outlines the nests of functions, one function per distinct nest.
class Outliner {
public:
  explicit Outliner(ModuleOp module) : symbols(module) {}

  /// Moves `nest` into a new private function @`name`, placed after
  /// `after`, and calls it there; a nest that does what an earlier one did
  /// calls that one's function instead. Returns the new function, or null
  /// (a call of an earlier one, or no change when a value the nest uses
  /// from above cannot be an argument).
  func::FuncOp outline(Operation *nest, StringRef name, Operation *after);

private:
  SymbolTable symbols;
  /// The functions made so far, by bodyKey.
  llvm::StringMap<func::FuncOp> made;
};

func::FuncOp Outliner::outline(Operation *nest, StringRef name,
                               Operation *after) {
  SetVector<Value> used(nest->operand_begin(), nest->operand_end());
  getUsedValuesDefinedAbove(nest->getRegions(), used);
  SmallVector<Value> args;
  SmallVector<Operation *> constants;
  for (Value v : used) {
    Operation *def = v.getDefiningOp();
    if (def && def->hasTrait<OpTrait::ConstantLike>())
      constants.push_back(def);
    else if (isPassable(v.getType()))
      args.push_back(v);
    else
      return nullptr;
  }

  MLIRContext *ctx = nest->getContext();
  Location loc = nest->getLoc();
  auto type = FunctionType::get(ctx, ValueRange(args).getTypes(),
                                nest->getResultTypes());
  auto fn = func::FuncOp::create(loc, name, type);
  fn.setPrivate();
  fn->setAttr("llvm.linkage",
              LLVM::LinkageAttr::get(ctx, LLVM::Linkage::Internal));
  Block *body = fn.addEntryBlock();
  IRMapping map;
  map.map(args, body->getArguments());
  OpBuilder b = OpBuilder::atBlockBegin(body);
  for (Operation *constant : constants)
    b.clone(*constant, map);
  Operation *copy = b.clone(*nest, map);
  func::ReturnOp::create(b, loc, copy->getResults());

  func::FuncOp callee = fn;
  auto [it, isNew] = made.try_emplace(bodyKey(fn), fn);
  if (isNew) {
    symbols.insert(fn, std::next(Block::iterator(after)));
  } else {
    callee = it->second;
    fn.erase();
  }
  b.setInsertionPoint(nest);
  auto call = func::CallOp::create(b, loc, callee, args);
  // LLVM would inline a function called once back into its caller.
  call.setNoInline(true);
  nest->replaceAllUsesWith(call.getResults());
  nest->erase();
  return isNew ? fn : nullptr;
}

struct FncOutlineKernelsPass
    : public fnc::impl::FncOutlineKernelsBase<FncOutlineKernelsPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    Outliner outliner(module);
    SmallVector<func::FuncOp> functions(module.getOps<func::FuncOp>());
    for (func::FuncOp fn : functions) {
      if (fn.isExternal())
        continue;
      SmallVector<Operation *> nests;
      collectNests(fn.getBody(), nests);
      if (static_cast<int64_t>(nests.size()) < minNests)
        continue;
      Operation *after = fn;
      for (auto [i, nest] : llvm::enumerate(nests)) {
        std::string name = (fn.getSymName() + "_nest" + Twine(i)).str();
        if (func::FuncOp outlined = outliner.outline(nest, name, after))
          after = outlined;
      }
    }
  }
};

} // namespace
