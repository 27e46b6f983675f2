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

// The numeric dtypes of fnc: float32 float64 bool int32 int64 (strings:
// Fnc_StringType below).
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

def Fnc_StringType : TypeDef<Fnc_Dialect, "String"> {
  let mnemonic = "string";
  let summary = "a byte string, the element of string tensors (!fnc.string)";
  let description = [{
    The element type of string tensors (the dtype `string` of the API):
    byte strings of any length, UTF-8 by convention. String tensors are
    created by `fnc.constant` with a string attribute, compared with
    `fnc.compare eq` and `ne`, printed, passed through control flow and
    computed on by the `fnc.string_*` ops. They run on the interpreter
    (`fnc-run --interpret`, the graph executor of `fnc::function`); the
    compiler rejects them.
    ```mlir
    func.func @f(%s: tensor<2x!fnc.string>) -> tensor<2xi1> {
      %a = fnc.constant dense<"a"> : tensor<!fnc.string>
      %b = fnc.compare eq, %s, %a : tensor<2x!fnc.string>, tensor<!fnc.string>
      return %b : tensor<2xi1>
    }
    ```
  }];
}

def Fnc_StringTensor : RankedTensorOf<[Fnc_StringType]>;
// The values of constants, comparisons, control flow and print: any dtype,
// strings included.
def Fnc_AnyTensor : RankedTensorOf<[Fnc_Element, Fnc_StringType]>;

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
