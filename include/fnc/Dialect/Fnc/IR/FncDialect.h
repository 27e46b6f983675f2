//===- FncDialect.h - The fnc dialect ---------------------------*- C++ -*-===//
//
// The fnc dialect, its types, enums and side-effect resources.
//
//===----------------------------------------------------------------------===//

#ifndef FNC_DIALECT_FNC_IR_FNCDIALECT_H
#define FNC_DIALECT_FNC_IR_FNCDIALECT_H

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "fnc/Dialect/Fnc/IR/FncOpsDialect.h.inc"
#include "fnc/Dialect/Fnc/IR/FncEnums.h.inc"

#define GET_TYPEDEF_CLASSES
#include "fnc/Dialect/Fnc/IR/FncOpsTypes.h.inc"

namespace mlir::fnc {

/// A unit attribute on an elementwise op whose operands' unknown dims, where
/// they meet, are known (by the tracer) to be equal or never 1 in a call
/// the trace serves: the lowering then skips the run-time broadcast of one
/// unknown dim against another (which copies an operand whose dim turns
/// out 1) and requires them equal. Dropping it is always safe.
constexpr llvm::StringLiteral kSameUnknownDims = "fnc.same_unknown_dims";

/// The tensors behind variable handles.
struct VariableResource
    : public SideEffects::Resource::Base<VariableResource> {
  StringRef getName() final { return "fnc.variable"; }
};

/// The state of the stateful random number generator.
struct RandomStateResource
    : public SideEffects::Resource::Base<RandomStateResource> {
  StringRef getName() final { return "fnc.random_state"; }
};

/// The stream fnc.print writes to.
struct OutputStreamResource
    : public SideEffects::Resource::Base<OutputStreamResource> {
  StringRef getName() final { return "fnc.output"; }
};

} // namespace mlir::fnc

#endif // FNC_DIALECT_FNC_IR_FNCDIALECT_H
