//===- ObjectCompiler.h - LLVM modules to object files ----------*- C++ -*-===//
//
// Internal to fnc. The back half of compiling an fnc module, shared by the
// JIT (CompiledModule) and the ahead-of-time compiler (fnc-compile): a
// TargetMachine for the host or for a named CPU, and optimizing and
// compiling an LLVM module (made by jit::lowerToLLVMIR) into one
// relocatable object file for that machine.
//
//===----------------------------------------------------------------------===//

#ifndef FNC_JIT_OBJECTCOMPILER_H
#define FNC_JIT_OBJECTCOMPILER_H

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"

#include <memory>
#include <string>

namespace llvm {
class LLVMContext;
class Module;
class TargetMachine;
} // namespace llvm

namespace fnc::jit {

/// The machine code is compiled for.
struct CodeTarget {
  /// The spelling of the host CPU in `cpu`.
  static constexpr const char *kHost = "host";
  /// "host": the CPU of this machine with all its features (what the JIT
  /// uses); otherwise an LLVM CPU name of this machine's architecture
  /// ("x86-64-v3", "skylake-avx512", "generic") with that CPU's features.
  std::string cpu = kHost;
  /// Position-independent code, for objects linked into executables and
  /// shared libraries by the system linker (the JIT links anywhere).
  bool positionIndependent = false;
};

/// A TargetMachine for `target` at `optLevel` (0-3). An unknown CPU name is
/// an error that lists where to find the known ones.
llvm::Expected<std::unique_ptr<llvm::TargetMachine>>
createTargetMachine(const CodeTarget &target, unsigned optLevel);

/// Initializes LLVM's native target and its asm printer, once per process.
void initializeNativeTarget();

/// Sets the data layout and triple of `module` to those of `tm`, and
/// optimizes it at `optLevel` for `tm`.
llvm::Error optimizeModule(llvm::Module &module, llvm::TargetMachine &tm,
                           unsigned optLevel);

/// Optimizes `module` at `optLevel` for `tm`, then calls `beforeCodegen`
/// (if given) on the optimized module and compiles it to one relocatable
/// object file. With `optimizedIR`, the IR as compiled is printed into it.
llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> compileToObject(
    llvm::Module &module, llvm::TargetMachine &tm, unsigned optLevel,
    std::string *optimizedIR = nullptr,
    llvm::function_ref<llvm::Error(llvm::Module &)> beforeCodegen = nullptr);

/// True if the code of `module` holds an address of this process as a
/// constant (an `inttoptr` of a non-null integer constant: a host function
/// or buffer baked in). Such code is valid in this process only.
bool embedsHostAddresses(const llvm::Module &module);

} // namespace fnc::jit

#endif // FNC_JIT_OBJECTCOMPILER_H
