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

} // namespace fnc
} // namespace mlir

#endif // FNC_CONVERSION_PASSES_H
