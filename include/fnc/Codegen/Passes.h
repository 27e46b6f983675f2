//===- Passes.h - fnc code generation passes --------------------*- C++ -*-===//

#ifndef FNC_CODEGEN_PASSES_H
#define FNC_CODEGEN_PASSES_H

#include "mlir/Pass/Pass.h"

namespace mlir {
namespace fnc {

#define GEN_PASS_DECL
#include "fnc/Codegen/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "fnc/Codegen/Passes.h.inc"

} // namespace fnc
} // namespace mlir

#endif // FNC_CODEGEN_PASSES_H
