//===- Passes.h - Lowerings out of the fnc dialect --------------*- C++ -*-===//

#ifndef FNC_CONVERSION_PASSES_H
#define FNC_CONVERSION_PASSES_H

#include "mlir/Pass/Pass.h"

namespace mlir {
namespace fnc {

#define GEN_PASS_DECL
#include "fnc/Conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "fnc/Conversion/Passes.h.inc"

/// Why `name` may not name a function defined in a module that
/// -fnc-lower-to-linalg lowers (it fails on such a module; declarations of
/// these functions are fine), or null. The lowering calls C
/// functions by name: the fnc runtime's (fnc + a capital letter) and, through
/// convert-math-to-libm, libm's (tanh, expf, ...); a function of the module
/// with one of these names would shadow them.
const char *reservedFunctionName(llvm::StringRef name);

} // namespace fnc
} // namespace mlir

#endif // FNC_CONVERSION_PASSES_H
