//===- Passes.h - Passes on fnc dialect ops ---------------------*- C++ -*-===//

#ifndef FNC_DIALECT_FNC_TRANSFORMS_PASSES_H
#define FNC_DIALECT_FNC_TRANSFORMS_PASSES_H

#include "mlir/Pass/Pass.h"

namespace mlir {
namespace fnc {

#define GEN_PASS_DECL
#include "fnc/Dialect/Fnc/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "fnc/Dialect/Fnc/Transforms/Passes.h.inc"

} // namespace fnc
} // namespace mlir

#endif // FNC_DIALECT_FNC_TRANSFORMS_PASSES_H
