//===- ProfileKernels.cpp - A profiler span per loop nest -----------------===//
//
// -fnc-profile-kernels: see Passes.td.
//
//===----------------------------------------------------------------------===//

#include "fnc/Codegen/Passes.h"

#include "Nests.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/SymbolTable.h"

namespace mlir::fnc {
#define GEN_PASS_DEF_FNCPROFILEKERNELS
#include "fnc/Codegen/Passes.h.inc"
} // namespace mlir::fnc

using namespace mlir;

namespace {

constexpr StringLiteral kBegin = "fncProfileKernelBegin";
constexpr StringLiteral kEnd = "fncProfileKernelEnd";

/// Adds to `names` the fnc op names `loc` carries outermost (each part of
/// a fused location; -fnc-name-op-locations put them there).
void addOpNames(Location loc, llvm::SetVector<StringRef> &names) {
  if (auto fused = dyn_cast<FusedLoc>(loc)) {
    for (Location part : fused.getLocations())
      addOpNames(part, names);
    return;
  }
  if (auto named = dyn_cast<NameLoc>(loc))
    if (named.getName().getValue().starts_with("fnc."))
      names.insert(named.getName().getValue());
}

/// "fnc.sub+fnc.exp+fnc.mul": the fnc ops whose code `nest` runs, in the
/// order they appear (at most eight, then "+N more"); "loops" for a nest
/// of no named op.
std::string kernelName(Operation *nest) {
  llvm::SetVector<StringRef> names;
  nest->walk([&](Operation *op) {
    if (!op->hasTrait<OpTrait::ConstantLike>())
      addOpNames(op->getLoc(), names);
  });
  if (names.empty())
    return "loops";
  std::string text;
  constexpr size_t kShown = 8;
  for (size_t i = 0; i < names.size() && i < kShown; ++i)
    text += (i ? "+" : "") + names[i].str();
  if (names.size() > kShown)
    text += "+" + std::to_string(names.size() - kShown) + " more";
  return text;
}

struct FncProfileKernelsPass
    : public fnc::impl::FncProfileKernelsBase<FncProfileKernelsPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    SymbolTable symbols(module);
    auto ptr = LLVM::LLVMPointerType::get(ctx);
    auto i64 = IntegerType::get(ctx, 64);
    OpBuilder top = OpBuilder::atBlockBegin(module.getBody());
    Location unknown = UnknownLoc::get(ctx);
    auto declare = [&](StringRef name, FunctionType type) {
      if (symbols.lookup(name))
        return;
      auto fn = func::FuncOp::create(top, unknown, name, type);
      fn.setPrivate();
      symbols.insert(fn);
    };
    declare(kBegin, FunctionType::get(ctx, {}, {i64}));
    declare(kEnd, FunctionType::get(ctx, {ptr, ptr, i64}, {}));

    // One constant string per distinct text.
    llvm::StringMap<LLVM::GlobalOp> strings;
    auto string = [&](OpBuilder &b, Location loc, StringRef text) -> Value {
      LLVM::GlobalOp &global = strings[text];
      if (!global) {
        std::string bytes = text.str();
        bytes.push_back('\0');
        auto type =
            LLVM::LLVMArrayType::get(IntegerType::get(ctx, 8), bytes.size());
        global = LLVM::GlobalOp::create(
            top, unknown, type, /*isConstant=*/true, LLVM::Linkage::Internal,
            ("__fnc_kernel_name" + Twine(strings.size() - 1)).str(),
            top.getStringAttr(bytes));
        symbols.insert(global);
      }
      return LLVM::AddressOfOp::create(b, loc, global);
    };

    SmallVector<func::FuncOp> functions(module.getOps<func::FuncOp>());
    for (func::FuncOp fn : functions) {
      if (fn.isExternal())
        continue;
      SmallVector<Operation *> nests;
      fnc::collectNests(fn.getBody(), nests);
      for (Operation *nest : nests) {
        Location loc = nest->getLoc();
        OpBuilder b(nest);
        Value start =
            func::CallOp::create(b, loc, kBegin, TypeRange{i64}, ValueRange{})
                .getResult(0);
        b.setInsertionPointAfter(nest);
        Value name = string(b, loc, kernelName(nest));
        Value where = string(b, loc, fn.getSymName());
        func::CallOp::create(b, loc, kEnd, TypeRange{},
                             ValueRange{name, where, start});
      }
    }
  }
};

} // namespace
