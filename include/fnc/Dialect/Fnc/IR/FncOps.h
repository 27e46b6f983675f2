//===- FncOps.h - Operations of the fnc dialect -----------------*- C++ -*-===//
//
// The generated op classes of the fnc dialect.
//
//===----------------------------------------------------------------------===//

#ifndef FNC_DIALECT_FNC_IR_FNCOPS_H
#define FNC_DIALECT_FNC_IR_FNCOPS_H

#include "fnc/Dialect/Fnc/IR/FncDialect.h"

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#define GET_OP_CLASSES
#include "fnc/Dialect/Fnc/IR/FncOps.h.inc"

#endif // FNC_DIALECT_FNC_IR_FNCOPS_H
