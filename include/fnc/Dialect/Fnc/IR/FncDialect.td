//===- FncDialect.td - The fnc dialect ---------------------*- tablegen -*-===//
//
// The fnc dialect: what a traced fnc::function records. Tensor ops with
// numpy/TensorFlow semantics, variables (resource handles), structured
// control flow, printing and random numbers.
//
//===----------------------------------------------------------------------===//

#ifndef FNC_DIALECT
#define FNC_DIALECT

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"

def Fnc_Dialect : Dialect {
  let name = "fnc";
  let cppNamespace = "::mlir::fnc";
  let summary = "Tensor programs staged from C++ by fnc::function";
  let description = [{
    The `fnc` dialect holds the programs that `fnc::function` traces from C++
    code written against the eager `fnc::Tensor` API. Its ops have the
    semantics of their eager counterparts (numpy broadcasting, negative axes,
    TensorFlow's floor_mod/floor_div, ...), so a traced program computes what
    the same code computes eagerly.

    Values are ranked builtin tensors of `f32`, `f64`, `i1`, `i32` or `i64`;
    any dimension may be dynamic (`?`). Result types are inferred from the
    operands wherever the operands determine them. Mutable state lives in
    variables (`!fnc.variable<tensor<...>>`), read and updated only through
    `fnc.var_*` ops; printing and random numbers have modelled side effects,
    so no pass drops, duplicates or reorders them.
  }];
  let useDefaultTypePrinterParser = 1;
  let hasConstantMaterializer = 1;
  let hasRegionArgAttrVerify = 1;
  let extraClassDeclaration = [{
    /// The argument attribute that binds an entry argument of variable type
    /// to a `fnc.global_variable` of the module.
    static constexpr ::llvm::StringLiteral kBindAttrName = "fnc.bind";
  }];
  let dependentDialects = ["::mlir::tensor::TensorDialect"];
}

// Every op says which C++ API call stages it: `cppApi` lists the public
// functions whose result the op computes, by their name in namespace fnc
// ("matmul"), as operators ("operator+") or as methods ("Variable::assign");
// an op of the op table (Fnc_TableEntry) adds its `tableApiName`. An op no
// call stages by itself (a terminator, a module-level declaration) has an
// empty list and says in `cppApiNote` where it comes from. fnc-tblgen
// checks that every op has one or the other and generates the table of
// docs/ApiToOps.md from them (`-gen-api-doc`).
class Fnc_Op<string mnemonic, list<Trait> traits = []>
    : Op<Fnc_Dialect, mnemonic, traits> {
  list<string> cppApi = [];
  string cppApiNote = "";
}

#endif // FNC_DIALECT
