//===- FncDialect.cpp - The fnc dialect -----------------------------------===//
//
// Registers the fnc ops and types, verifies the variable type and turns
// folded attributes back into fnc.constant ops.
//
//===----------------------------------------------------------------------===//

#include "fnc/Dialect/Fnc/IR/FncOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::fnc;

#include "fnc/Dialect/Fnc/IR/FncOpsDialect.cpp.inc"
#include "fnc/Dialect/Fnc/IR/FncEnums.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "fnc/Dialect/Fnc/IR/FncOpsTypes.cpp.inc"

void FncDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "fnc/Dialect/Fnc/IR/FncOps.cpp.inc"
      >();
  addTypes<
#define GET_TYPEDEF_LIST
#include "fnc/Dialect/Fnc/IR/FncOpsTypes.cpp.inc"
      >();
}

Operation *FncDialect::materializeConstant(OpBuilder &builder, Attribute value,
                                           Type type, Location loc) {
  auto elements = dyn_cast<ElementsAttr>(value);
  if (!elements || elements.getType() != type)
    return nullptr;
  return ConstantOp::create(builder, loc, elements);
}

/// True for the dtypes of fnc: f32 f64 i1 i32 i64.
static bool isFncElementType(Type type) {
  return type.isF32() || type.isF64() || type.isSignlessInteger(1) ||
         type.isSignlessInteger(32) || type.isSignlessInteger(64);
}

LogicalResult FncDialect::verifyRegionArgAttribute(Operation *op,
                                                  unsigned regionIndex,
                                                  unsigned argIndex,
                                                  NamedAttribute attribute) {
  if (attribute.getName() != kBindAttrName)
    return op->emitError("unknown fnc argument attribute '")
           << attribute.getName() << "'";
  auto symbol = dyn_cast<FlatSymbolRefAttr>(attribute.getValue());
  if (!symbol)
    return op->emitError("'fnc.bind' must name a fnc.global_variable, as in "
                         "{fnc.bind = @name}");
  Region &region = op->getRegion(regionIndex);
  if (region.empty())
    return success();
  auto varType =
      dyn_cast<VariableType>(region.getArgument(argIndex).getType());
  if (!varType)
    return op->emitError("'fnc.bind' is only allowed on arguments of type "
                         "!fnc.variable<...>");
  auto global = SymbolTable::lookupNearestSymbolFrom<GlobalVariableOp>(
      op, symbol.getAttr());
  if (!global)
    return op->emitError("'fnc.bind' names ")
           << symbol << ", which is not a fnc.global_variable of the module";
  if (global.getInitialValue().getType() != varType.getValueType())
    return op->emitError("argument ")
           << argIndex << " of type " << varType << " is bound to " << symbol
           << " of type " << global.getInitialValue().getType();
  return success();
}

LogicalResult
VariableType::verify(function_ref<InFlightDiagnostic()> emitError,
                     RankedTensorType valueType) {
  if (!isFncElementType(valueType.getElementType()))
    return emitError() << "variable of " << valueType
                       << ": the element type must be one of f32, f64, i1, "
                          "i32, i64";
  return success();
}
