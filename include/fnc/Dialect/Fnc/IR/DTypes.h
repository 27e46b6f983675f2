//===- DTypes.h - fnc dtypes as MLIR element types --------------*- C++ -*-===//
//
// The one mapping between the dtypes of the public API (fnc/DType.h) and
// the MLIR element types of the fnc dialect: f32, f64, the signless
// integers i1, i32, i64 and !fnc.string. The tracer and the interpreter convert
// through it; an element type outside the set has no dtype (no fallback).
//
//===----------------------------------------------------------------------===//

#ifndef FNC_DIALECT_FNC_IR_DTYPES_H
#define FNC_DIALECT_FNC_IR_DTYPES_H

#include "fnc/DType.h"
#include "fnc/Dialect/Fnc/IR/FncDialect.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/ErrorHandling.h"

#include <optional>

namespace mlir::fnc {

/// The dtype of an element type, or nullopt for one fnc does not have.
inline std::optional<::fnc::DType> dtypeOf(Type type) {
  using ::fnc::DType;
  if (type.isF32())
    return DType::f32;
  if (type.isF64())
    return DType::f64;
  if (type.isSignlessInteger(1))
    return DType::i1;
  if (type.isSignlessInteger(32))
    return DType::i32;
  if (type.isSignlessInteger(64))
    return DType::i64;
  if (isa<StringType>(type))
    return DType::str;
  return std::nullopt;
}

/// The element type of `dtype`.
inline Type typeOf(::fnc::DType dtype, MLIRContext *context) {
  using ::fnc::DType;
  switch (dtype) {
  case DType::f32:
    return Float32Type::get(context);
  case DType::f64:
    return Float64Type::get(context);
  case DType::i1:
    return IntegerType::get(context, 1);
  case DType::i32:
    return IntegerType::get(context, 32);
  case DType::i64:
    return IntegerType::get(context, 64);
  case DType::str:
    return StringType::get(context);
  }
  llvm_unreachable("unknown dtype");
}

} // namespace mlir::fnc

#endif // FNC_DIALECT_FNC_IR_DTYPES_H
