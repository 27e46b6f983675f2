//===- FncTypes.td - Types of the fnc dialect --------------*- tablegen -*-===//
//
// The element types and tensor constraints fnc ops use, and the variable
// (resource handle) type.
//
//===----------------------------------------------------------------------===//

#ifndef FNC_TYPES
#define FNC_TYPES

include "fnc/Dialect/Fnc/IR/FncDialect.td"
include "mlir/IR/BuiltinTypes.td"
include "mlir/IR/CommonTypeConstraints.td"

// The dtypes of fnc: float32 float64 bool int32 int64.
def Fnc_Element : AnyTypeOf<[F32, F64, I1, I32, I64]>;
def Fnc_Numeric : AnyTypeOf<[F32, F64, I32, I64]>;
def Fnc_Float : AnyTypeOf<[F32, F64]>;
def Fnc_Integer : AnyTypeOf<[I32, I64]>;

def Fnc_Tensor : RankedTensorOf<[Fnc_Element]>;
def Fnc_NumericTensor : RankedTensorOf<[Fnc_Numeric]>;
def Fnc_FloatTensor : RankedTensorOf<[Fnc_Float]>;
def Fnc_IntegerTensor : RankedTensorOf<[Fnc_Integer]>;
def Fnc_BoolTensor : RankedTensorOf<[I1]>;
def Fnc_BoolScalar : 0DTensorOf<[I1]>;

def Fnc_VariableType : TypeDef<Fnc_Dialect, "Variable"> {
  let mnemonic = "variable";
  let summary = "handle to a mutable tensor (!fnc.variable)";
  let description = [{
    A resource handle to a mutable tensor of a fixed type. The tensor it
    refers to is read with `fnc.var_read` and updated in place with
    `fnc.var_assign`, `fnc.var_assign_add` and `fnc.var_assign_sub`; the
    handle itself is immutable and may be freely copied.

    ```mlir
    func.func @f(%v: !fnc.variable<tensor<4xf32>>) -> tensor<4xf32> {
      %x = fnc.var_read %v : !fnc.variable<tensor<4xf32>>
      return %x : tensor<4xf32>
    }
    ```
  }];
  let parameters = (ins "::mlir::RankedTensorType":$valueType);
  let assemblyFormat = "`<` $valueType `>`";
  let genVerifyDecl = 1;
}

#endif // FNC_TYPES
