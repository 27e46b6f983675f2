//===- ObjectCompiler.cpp - LLVM modules to relocatable objects -----------===//
//
// TargetMachines for the host (the JIT's, and fnc-compile's default) or a
// named CPU of the host's architecture, LLVM's optimization pipeline at the
// fnc pipeline's opt level, and code generation into an in-memory object
// file. Also the check for host addresses baked into code, which makes an
// object valid in one process only.
//
//===----------------------------------------------------------------------===//

#include "fnc/JIT/ObjectCompiler.h"

#include "mlir/ExecutionEngine/OptUtils.h"

#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/ExecutionEngine/Orc/CompileUtils.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Host.h"

#include <mutex>

using namespace fnc;
using namespace fnc::jit;

void fnc::jit::initializeNativeTarget() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
  });
}

static llvm::CodeGenOptLevel codeGenLevel(unsigned optLevel) {
  switch (optLevel) {
  case 0:
    return llvm::CodeGenOptLevel::None;
  case 1:
    return llvm::CodeGenOptLevel::Less;
  case 2:
    return llvm::CodeGenOptLevel::Default;
  default:
    return llvm::CodeGenOptLevel::Aggressive;
  }
}

/// An error unless `cpu` is a CPU LLVM knows for `triple`.
static llvm::Error checkCPU(const llvm::Triple &triple, llvm::StringRef cpu) {
  std::string error;
  const llvm::Target *target =
      llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target)
    return llvm::createStringError("no LLVM target for " + triple.str() + ": " +
                                   error);
  std::unique_ptr<llvm::MCSubtargetInfo> info(
      target->createMCSubtargetInfo(triple, "", ""));
  if (!info || !info->isCPUStringValid(cpu))
    return llvm::createStringError(
        "unknown target CPU '" + cpu + "' for " + triple.str() +
        "; use 'host', 'generic' or an LLVM CPU name such as 'x86-64-v3' or "
        "'skylake-avx512' (llc-22 -mcpu=help lists them)");
  return llvm::Error::success();
}

llvm::Expected<std::unique_ptr<llvm::TargetMachine>>
fnc::jit::createTargetMachine(const CodeTarget &target, unsigned optLevel) {
  initializeNativeTarget();
  std::optional<llvm::orc::JITTargetMachineBuilder> builder;
  if (target.cpu == CodeTarget::kHost) {
    auto host = llvm::orc::JITTargetMachineBuilder::detectHost();
    if (!host)
      return host.takeError();
    builder = std::move(*host);
  } else {
    llvm::Triple triple(llvm::sys::getProcessTriple());
    if (llvm::Error err = checkCPU(triple, target.cpu))
      return std::move(err);
    builder.emplace(triple);
    builder->setCPU(target.cpu);
  }
  builder->setCodeGenOptLevel(codeGenLevel(optLevel));
  if (target.positionIndependent)
    builder->setRelocationModel(llvm::Reloc::PIC_);
  return builder->createTargetMachine();
}

/// Moves the allocas of constant size that no loop repeats into the entry
/// block of their function, where C compilers put them and LLVM expects
/// them (SROA promotes them to registers there). MLIR lowers a buffer
/// promoted to the stack to an alloca where the buffer was allocated, and
/// LLVM 22's SLP vectorizer miscompiles code around such an alloca in the
/// middle of a function: with two matmuls reading one transposed 3x3
/// matrix from one (znver4, O3), it moved a masked gather of the matrix
/// above the store of its last element, and the products came out wrong
/// without an error. In the entry block the same code is right (and the
/// buffer lives in registers).
static void hoistAllocas(llvm::Module &module) {
  for (llvm::Function &f : module) {
    if (f.isDeclaration())
      continue;
    llvm::DominatorTree dominators(f);
    llvm::LoopInfo loops(dominators);
    llvm::BasicBlock &entry = f.getEntryBlock();
    llvm::SmallVector<llvm::AllocaInst *> moved;
    for (llvm::BasicBlock &block : f) {
      if (&block == &entry || loops.getLoopFor(&block))
        continue;
      for (llvm::Instruction &inst : block)
        if (auto *alloca = llvm::dyn_cast<llvm::AllocaInst>(&inst))
          if (llvm::isa<llvm::Constant>(alloca->getArraySize()))
            moved.push_back(alloca);
    }
    for (llvm::AllocaInst *alloca : moved)
      alloca->moveBefore(entry.getFirstInsertionPt());
  }
}

llvm::Error fnc::jit::optimizeModule(llvm::Module &module,
                                     llvm::TargetMachine &tm,
                                     unsigned optLevel) {
  module.setDataLayout(tm.createDataLayout());
  module.setTargetTriple(tm.getTargetTriple());
  hoistAllocas(module);
  auto optimize = mlir::makeOptimizingTransformer(optLevel, 0, &tm);
  return optimize(&module);
}

llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> fnc::jit::compileToObject(
    llvm::Module &module, llvm::TargetMachine &tm, unsigned optLevel,
    std::string *optimizedIR,
    llvm::function_ref<llvm::Error(llvm::Module &)> beforeCodegen) {
  if (llvm::Error err = optimizeModule(module, tm, optLevel))
    return std::move(err);
  if (beforeCodegen)
    if (llvm::Error err = beforeCodegen(module))
      return std::move(err);
  if (optimizedIR) {
    llvm::raw_string_ostream os(*optimizedIR);
    module.print(os, nullptr);
  }
  llvm::orc::SimpleCompiler compiler(tm);
  return compiler(module);
}

/// True if `c` is, or is built from, a pointer made from a non-null
/// integer constant other than 0xdeadbeef: MLIR's memref.get_global
/// lowering stores that as the allocated pointer of a global's descriptor,
/// which nothing dereferences or frees (the format text of fnc.print).
static bool
isAddressConstant(const llvm::Constant *c,
                  llvm::SmallPtrSetImpl<const llvm::Constant *> &seen) {
  constexpr uint64_t kDeadBeef = 0xdeadbeef;
  if (!seen.insert(c).second)
    return false;
  if (auto *expr = llvm::dyn_cast<llvm::ConstantExpr>(c))
    if (expr->getOpcode() == llvm::Instruction::IntToPtr)
      if (auto *i = llvm::dyn_cast<llvm::ConstantInt>(expr->getOperand(0)))
        if (!i->isZero() && i->getValue() != kDeadBeef)
          return true;
  if (llvm::isa<llvm::GlobalValue>(c))
    return false;
  for (const llvm::Use &op : c->operands())
    if (auto *operand = llvm::dyn_cast<llvm::Constant>(op.get()))
      if (isAddressConstant(operand, seen))
        return true;
  return false;
}

bool fnc::jit::embedsHostAddresses(const llvm::Module &module) {
  llvm::SmallPtrSet<const llvm::Constant *, 32> seen;
  for (const llvm::GlobalVariable &global : module.globals())
    if (global.hasInitializer() &&
        isAddressConstant(global.getInitializer(), seen))
      return true;
  for (const llvm::Function &f : module)
    for (const llvm::BasicBlock &block : f)
      for (const llvm::Instruction &inst : block) {
        if (llvm::isa<llvm::IntToPtrInst>(inst))
          if (auto *i = llvm::dyn_cast<llvm::ConstantInt>(inst.getOperand(0)))
            if (!i->isZero())
              return true;
        for (const llvm::Use &op : inst.operands())
          if (auto *c = llvm::dyn_cast<llvm::Constant>(op.get()))
            if (isAddressConstant(c, seen))
              return true;
      }
  return false;
}
