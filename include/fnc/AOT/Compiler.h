//===- Compiler.h - Ahead-of-time compilation of fnc modules ----*- C++ -*-===//
//
// Internal to fnc (used by fnc-compile). Compiles the public functions of
// an fnc module, with its `fnc.global_variable`s, into one relocatable
// object file for a chosen CPU and writes the C++ header that calls it
// through fnc::aot::Instance (fnc/AOT.h). The object's only undefined
// symbols are fnc's runtime (libfnc_runtime), libomp, libc and libm: no
// MLIR and no LLVM. docs/AOT.md describes both outputs.
//
//===----------------------------------------------------------------------===//

#ifndef FNC_AOT_COMPILER_H
#define FNC_AOT_COMPILER_H

#include "llvm/Support/Error.h"

#include <string>

namespace mlir {
class ModuleOp;
namespace fnc {
struct PipelineOptions;
} // namespace fnc
} // namespace mlir

namespace fnc::aot {

struct CompileOptions {
  /// The generated class's name, also the prefix of the object's symbols
  /// (`fnc_aot_<name>_<function>`): a C++ identifier.
  std::string className;
  /// The namespace of the class ("" or "a::b"); it joins the prefix.
  std::string cppNamespace;
  /// fnc::jit::CodeTarget::cpu: "host" or an LLVM CPU name.
  std::string targetCPU = "host";
  /// What the header says it was generated from (the input's path).
  std::string source;
};

/// The outputs of compile().
struct Compiled {
  /// A relocatable ELF object file.
  std::string object;
  /// The C++ header.
  std::string header;
  /// The CPU the code is for ("host" resolved to the host CPU's name).
  std::string cpu;
};

/// Compiles every public function of `module` (which is not modified).
/// Fails, with a message that says what to change, for a function fnc
/// cannot call, a variable argument bound to no `fnc.global_variable` or
/// to one of another type, a name the C++ class cannot use, an unknown
/// CPU, a pipeline failure, or code that would need the JIT's process.
llvm::Expected<Compiled> compile(mlir::ModuleOp module,
                                 const mlir::fnc::PipelineOptions &pipeline,
                                 const CompileOptions &options);

/// Wraps `object` in a static library (an `ar` archive with a symbol
/// table) whose one member is `memberName`.
llvm::Expected<std::string> archive(const std::string &object,
                                    const std::string &memberName);

} // namespace fnc::aot

#endif // FNC_AOT_COMPILER_H
