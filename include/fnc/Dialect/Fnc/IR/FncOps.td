//===- FncOps.td - Operations of the fnc dialect -----------*- tablegen -*-===//
//
// Every op a traced fnc::function can record. Families share a TableGen
// class; result types are inferred through InferTypeOpAdaptor wherever the
// operands and attributes determine them, with the rules of
// fnc/Shape/ShapeRules.h.
//
//===----------------------------------------------------------------------===//

#ifndef FNC_OPS
#define FNC_OPS

include "fnc/Dialect/Fnc/IR/FncDialect.td"
include "fnc/Dialect/Fnc/IR/FncTypes.td"
include "mlir/IR/EnumAttr.td"
include "mlir/IR/OpAsmInterface.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

//===----------------------------------------------------------------------===//
// Enums and side-effect resources
//===----------------------------------------------------------------------===//

def Fnc_ComparePredicate : I32EnumAttr<"ComparePredicate",
    "comparison predicate", [
      I32EnumAttrCase<"eq", 0>, I32EnumAttrCase<"ne", 1>,
      I32EnumAttrCase<"lt", 2>, I32EnumAttrCase<"le", 3>,
      I32EnumAttrCase<"gt", 4>, I32EnumAttrCase<"ge", 5>]> {
  let cppNamespace = "::mlir::fnc";
}

def Fnc_Padding : I32EnumAttr<"Padding", "conv2d and pooling padding", [
      I32EnumAttrCase<"valid", 0>, I32EnumAttrCase<"same", 1>]> {
  let cppNamespace = "::mlir::fnc";
}

// The tensors behind variable handles.
def Fnc_VariableResource : Resource<"::mlir::fnc::VariableResource">;
// The state of the stateful random number generator.
def Fnc_RandomResource : Resource<"::mlir::fnc::RandomStateResource">;
// The output stream fnc.print writes to.
def Fnc_OutputResource : Resource<"::mlir::fnc::OutputStreamResource">;

//===----------------------------------------------------------------------===//
// Creation ops
//===----------------------------------------------------------------------===//

def Fnc_ConstantOp : Fnc_Op<"constant",
    [ConstantLike, Pure, InferTypeOpAdaptor]> {
  let summary = "A tensor constant";
  let cppApiNote =
      "Every eager tensor a trace captures and every C++ number used as an " #
      "operand (`x * 3.f`).";
  let description = [{
    Produces the tensor given by `value`; its type is the type of the
    attribute. Eager tensors captured by a trace become constants.

    ```mlir
    func.func @f() -> tensor<2x2xf32> {
      %c = fnc.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
      return %c : tensor<2x2xf32>
    }
    ```
  }];
  let arguments = (ins ElementsAttr:$value);
  let results = (outs Fnc_AnyTensor:$result);
  let assemblyFormat = "$value attr-dict";
  let hasFolder = 1;
}

def Fnc_FillOp : Fnc_Op<"fill", [Pure]> {
  let summary = "A tensor filled with one value (zeros, ones, fill)";
  let cppApiNote =
      "No C++ call stages it (`fnc::zeros`, `ones` and `fill` broadcast a " #
      "scalar `fnc.constant`); for hand-written modules.";
  let description = [{
    Produces a tensor of the result type with every element equal to
    `value`, converted to the element type (integers truncate toward zero,
    booleans are `value != 0`). `fnc::zeros` and `fnc::ones` are fills with
    0 and 1. Each dynamic dimension of the result takes its size from one
    `index` operand, in order.

    ```mlir
    func.func @f(%n: index) -> (tensor<2x3xf32>, tensor<?x3xi32>) {
      %z = fnc.fill 0.0 : tensor<2x3xf32>
      %o = fnc.fill 1.0 [%n] : tensor<?x3xi32>
      return %z, %o : tensor<2x3xf32>, tensor<?x3xi32>
    }
    ```
  }];
  let arguments = (ins F64Attr:$value, Variadic<Index>:$dynamicDims);
  let results = (outs Fnc_Tensor:$result);
  let assemblyFormat =
      "$value (` ` `[` $dynamicDims^ `]`)? attr-dict `:` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Fnc_RangeOp : Fnc_Op<"range", [Pure]> {
  let summary = "The numbers start, start + delta, ... below limit (iota)";
  let cppApi = ["range"];
  let description = [{
    A 1-D tensor of `ceil((limit - start) / delta)` elements, element `i`
    being `start + i * delta` converted to the element type. The result
    length must equal that count.

    ```mlir
    func.func @f() -> tensor<5xi32> {
      %r = fnc.range 0.0, 10.0, 2.0 : tensor<5xi32>
      return %r : tensor<5xi32>
    }
    ```
  }];
  let arguments = (ins F64Attr:$start, F64Attr:$limit, F64Attr:$delta);
  let results = (outs 1DTensorOf<[Fnc_Numeric]>:$result);
  let assemblyFormat =
      "$start `,` $limit `,` $delta attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Fnc_EyeOp : Fnc_Op<"eye", [Pure]> {
  let summary = "An identity matrix";
  let cppApi = ["eye"];
  let description = [{
    A static 2-D tensor with ones on the main diagonal and zeros elsewhere.

    ```mlir
    func.func @f() -> tensor<3x4xf32> {
      %i = fnc.eye : tensor<3x4xf32>
      return %i : tensor<3x4xf32>
    }
    ```
  }];
  let results = (outs 2DTensorOf<[Fnc_Element]>:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Fnc_CastOp : Fnc_Op<"cast", [Pure, SameOperandsAndResultShape]> {
  let summary = "Converts the elements to another dtype";
  let cppApi = ["cast"];
  let description = [{
    Converts each element: float to integer truncates toward zero, a number
    to bool is `x != 0`, bool to a number is 0 or 1. The shape is unchanged.

    ```mlir
    func.func @f(%x: tensor<2x3xf32>) -> tensor<2x3xi32> {
      %i = fnc.cast %x : tensor<2x3xf32> to tensor<2x3xi32>
      return %i : tensor<2x3xi32>
    }
    ```
  }];
  let arguments = (ins Fnc_Tensor:$input);
  let results = (outs Fnc_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `to` type($result)";
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// The op table
//
// What the layers around the dialect need to know about an op (its eager
// name, the dtypes it accepts, whether it has a gradient) is written once,
// here: fnc-tblgen turns every def deriving from Fnc_TableEntry into one line
// of FncOpTable.inc, an X-macro list that the eager API, the reference
// kernels, the folders, the tracer, the interpreter and the lowering include
// instead of keeping lists of their own. docs/Dialect.md says how to add an
// op.
//===----------------------------------------------------------------------===//

// The dtypes an op of the table accepts: the ODS type that checks its
// operands, the name of the class in fnc::scalar::DTypes and the element
// type of the op's example in the dialect reference.
class Fnc_DTypes<string name, Type tensorType, string exampleElement> {
  string cppName = name;
  Type tensor = tensorType;
  string example = exampleElement;
}
def Fnc_FloatDTypes : Fnc_DTypes<"Float", Fnc_FloatTensor, "f32">;
def Fnc_NumericDTypes : Fnc_DTypes<"Numeric", Fnc_NumericTensor, "f32">;
def Fnc_BoolDTypes : Fnc_DTypes<"Bool", Fnc_BoolTensor, "i1">;
def Fnc_AnyDTypes : Fnc_DTypes<"Any", Fnc_Tensor, "f32">;

// The examples in the op descriptions (```mlir blocks) are complete
// modules: a `func.func @f` whose arguments are the op's operands, so that
// each one parses, verifies and compiles as written (the test
// test/docs/op-examples.test runs fnc-opt on every one) and runs with
// fnc-run. The op families below write theirs from one template each, in
// which `OP` stands for the mnemonic and `T` for the element type; a
// description starts with four spaces so that the generated markdown
// strips the same indentation from every line.

// An entry of the op table. `family` is Unary, Binary, Compare or Reduce;
// `apiName` the eager function (fnc::<apiName>); `differentiable` whether a
// gradient flows through the op. The entry's kind names its enumerator in
// the family's C++ enum (fnc::ref::UnaryOp::<kind>, ...) and its scalar
// function (fnc::scalar::<kind> in fnc/Reference/Scalar.h); it is the op
// class without "Op" unless `tableKind` says otherwise.
class Fnc_TableEntry<string family, string apiName, Fnc_DTypes dtypes,
                     bit differentiable> {
  string tableFamily = family;
  string tableKind = "";
  string tableApiName = apiName;
  Fnc_DTypes tableDTypes = dtypes;
  bit tableDifferentiable = differentiable;
}

//===----------------------------------------------------------------------===//
// Binary elementwise ops
//===----------------------------------------------------------------------===//

class Fnc_BinaryOp<string mnemonic, Fnc_DTypes dtypes, string desc,
                   list<Trait> traits = [], bit differentiable = 1>
    : Fnc_Op<mnemonic, !listconcat(traits, [Pure, InferTypeOpAdaptor,
                                            SameOperandsAndResultElementType])>,
      Fnc_TableEntry<"Binary", mnemonic, dtypes, differentiable> {
  let description = "    " # desc # !subst("OP", mnemonic,
      !subst("xT", "x" # dtypes.example, [{

    The operands broadcast with numpy's rules; dynamic dimensions are allowed
    and checked at run time. The result type is inferred.

    ```mlir
    func.func @f(%x: tensor<2x3xT>, %y: tensor<3xT>) -> tensor<2x3xT> {
      %z = fnc.OP %x, %y : tensor<2x3xT>, tensor<3xT>
      return %z : tensor<2x3xT>
    }
    ```
  }]));
  let arguments = (ins dtypes.tensor:$lhs, dtypes.tensor:$rhs);
  let results = (outs dtypes.tensor:$result);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs)";
  let hasFolder = 1;
}

def Fnc_AddOp : Fnc_BinaryOp<"add", Fnc_NumericDTypes,
    "Elementwise `lhs + rhs`.", [Commutative]> {
  let summary = "Elementwise addition";
  let cppApi = ["operator+"];
}
def Fnc_SubOp : Fnc_BinaryOp<"sub", Fnc_NumericDTypes,
    "Elementwise `lhs - rhs`."> {
  let summary = "Elementwise subtraction";
  let cppApi = ["operator-"];
}
def Fnc_MulOp : Fnc_BinaryOp<"mul", Fnc_NumericDTypes,
    "Elementwise `lhs * rhs`.", [Commutative]> {
  let summary = "Elementwise multiplication";
  let cppApi = ["operator*"];
}
def Fnc_DivOp : Fnc_BinaryOp<"div", Fnc_NumericDTypes,
    "Elementwise `lhs / rhs`; integer division truncates toward zero."> {
  let summary = "Elementwise division";
  let cppApi = ["operator/"];
}
def Fnc_PowOp : Fnc_BinaryOp<"pow", Fnc_NumericDTypes,
    "Elementwise `lhs` to the power `rhs` (integer exponents must be >= 0)."> {
  let summary = "Elementwise power";
  let hasCanonicalizer = 1;
}
def Fnc_MaximumOp : Fnc_BinaryOp<"maximum", Fnc_NumericDTypes,
    "Elementwise maximum; NaN wins, and +0.0 is above -0.0.", [Commutative]> {
  let summary = "Elementwise maximum";
}
def Fnc_MinimumOp : Fnc_BinaryOp<"minimum", Fnc_NumericDTypes,
    "Elementwise minimum; NaN wins, and -0.0 is below +0.0.", [Commutative]> {
  let summary = "Elementwise minimum";
}
def Fnc_FloorModOp : Fnc_BinaryOp<"floor_mod", Fnc_NumericDTypes,
    "Remainder of floor division: the result has the sign of `rhs` "
    "(TensorFlow's floormod, Python's `%`).">{
  let summary = "Elementwise floor modulo";
  let cppApi = ["operator%"];
}
def Fnc_FloorDivOp : Fnc_BinaryOp<"floor_div", Fnc_NumericDTypes,
    "`floor(lhs / rhs)` (TensorFlow's floordiv, Python's `//`).", [],
    /*differentiable=*/0>{
  let summary = "Elementwise floor division";
}
def Fnc_Atan2Op : Fnc_BinaryOp<"atan2", Fnc_FloatDTypes,
    "The angle of the point `(rhs, lhs)`: `atan(lhs / rhs)` in the right "
    "quadrant, in `[-pi, pi]` (`atan2(y, x)` of C and TensorFlow).">{
  let summary = "Elementwise two-argument arctangent";
}
def Fnc_LogicalAndOp : Fnc_BinaryOp<"logical_and", Fnc_BoolDTypes,
    "Elementwise `lhs && rhs` on bool tensors.", [Commutative],
    /*differentiable=*/0> {
  let summary = "Elementwise logical and";
}
def Fnc_LogicalOrOp : Fnc_BinaryOp<"logical_or", Fnc_BoolDTypes,
    "Elementwise `lhs || rhs` on bool tensors.", [Commutative],
    /*differentiable=*/0> {
  let summary = "Elementwise logical or";
}

def Fnc_CompareOp : Fnc_Op<"compare",
    [Pure, InferTypeOpAdaptor, SameOperandsElementType]> {
  let summary = "Elementwise comparison";
  let description = [{
    Compares the broadcast operands elementwise with `predicate` (`eq`, `ne`,
    `lt`, `le`, `gt`, `ge`) and yields a bool tensor. Comparisons with NaN
    are false except `ne`. Bool and string operands only compare with `eq`
    and `ne`.

    ```mlir
    func.func @f(%x: tensor<2x3xf32>, %y: tensor<3xf32>) -> tensor<2x3xi1> {
      %b = fnc.compare lt, %x, %y : tensor<2x3xf32>, tensor<3xf32>
      return %b : tensor<2x3xi1>
    }
    ```
  }];
  let arguments = (ins Fnc_ComparePredicate:$predicate, Fnc_AnyTensor:$lhs,
                       Fnc_AnyTensor:$rhs);
  let results = (outs Fnc_BoolTensor:$result);
  let assemblyFormat =
      "$predicate `,` $lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs)";
  let hasFolder = 1;
  let hasVerifier = 1;
}

// The comparisons of the table: each is fnc.compare with one predicate,
// staged by its eager function and its C++ operator (`cppApi`, as an op's).
class Fnc_Comparison<string kind, string apiName, string predicate,
                     Fnc_DTypes dtypes, string cppOperator>
    : Fnc_TableEntry<"Compare", apiName, dtypes, 0> {
  let tableKind = kind;
  string tablePredicate = predicate;
  list<string> cppApi = [cppOperator];
}
def Fnc_Equal
    : Fnc_Comparison<"Equal", "equal", "eq", Fnc_AnyDTypes, "operator==">;
def Fnc_NotEqual : Fnc_Comparison<"NotEqual", "not_equal", "ne", Fnc_AnyDTypes,
                                  "operator!=">;
def Fnc_Less
    : Fnc_Comparison<"Less", "less", "lt", Fnc_NumericDTypes, "operator<">;
def Fnc_LessEqual : Fnc_Comparison<"LessEqual", "less_equal", "le",
                                   Fnc_NumericDTypes, "operator<=">;
def Fnc_Greater : Fnc_Comparison<"Greater", "greater", "gt", Fnc_NumericDTypes,
                                "operator>">;
def Fnc_GreaterEqual : Fnc_Comparison<"GreaterEqual", "greater_equal", "ge",
                                      Fnc_NumericDTypes, "operator>=">;

def Fnc_SelectOp : Fnc_Op<"select", [Pure, InferTypeOpAdaptor]> {
  let summary = "Elementwise choice between two tensors";
  let cppApi = ["select"];
  let description = [{
    `cond ? lhs : rhs` elementwise; the three operands broadcast together.

    ```mlir
    func.func @f(%c: tensor<3xi1>, %x: tensor<2x3xf32>, %y: tensor<f32>)
        -> tensor<2x3xf32> {
      %r = fnc.select %c, %x, %y : tensor<3xi1>, tensor<2x3xf32>, tensor<f32>
      return %r : tensor<2x3xf32>
    }
    ```
  }];
  let arguments = (ins Fnc_BoolTensor:$cond, Fnc_Tensor:$lhs, Fnc_Tensor:$rhs);
  let results = (outs Fnc_Tensor:$result);
  let assemblyFormat = "$cond `,` $lhs `,` $rhs attr-dict `:` type($cond) `,` "
                       "type($lhs) `,` type($rhs)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Unary elementwise ops
//===----------------------------------------------------------------------===//

class Fnc_UnaryOp<string mnemonic, Fnc_DTypes dtypes, string desc,
                  bit differentiable = 1>
    : Fnc_Op<mnemonic, [Pure, SameOperandsAndResultType]>,
      Fnc_TableEntry<"Unary", mnemonic, dtypes, differentiable> {
  let description = "    " # desc # !subst("OP", mnemonic,
      !subst("xT", "x" # dtypes.example, [{

    ```mlir
    func.func @f(%x: tensor<2x3xT>) -> tensor<2x3xT> {
      %y = fnc.OP %x : tensor<2x3xT>
      return %y : tensor<2x3xT>
    }
    ```
  }]));
  let arguments = (ins dtypes.tensor:$input);
  let results = (outs dtypes.tensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input)";
  let hasFolder = 1;
}

def Fnc_NegOp : Fnc_UnaryOp<"neg", Fnc_NumericDTypes, "Elementwise `-x`."> {
  let summary = "Elementwise negation";
  let cppApi = ["operator-"];
  let cppApiNote = "Unary `-x`.";
}
def Fnc_AbsOp : Fnc_UnaryOp<"abs", Fnc_NumericDTypes, "Elementwise `|x|`."> {
  let summary = "Elementwise absolute value";
}
def Fnc_ExpOp : Fnc_UnaryOp<"exp", Fnc_FloatDTypes, "Elementwise `e^x`."> {
  let summary = "Elementwise exponential";
}
def Fnc_LogOp : Fnc_UnaryOp<"log", Fnc_FloatDTypes,
    "Elementwise natural logarithm."> {
  let summary = "Elementwise natural logarithm";
}
def Fnc_SqrtOp : Fnc_UnaryOp<"sqrt", Fnc_FloatDTypes,
    "Elementwise square root."> {
  let summary = "Elementwise square root";
}
def Fnc_RsqrtOp : Fnc_UnaryOp<"rsqrt", Fnc_FloatDTypes,
    "Elementwise `1 / sqrt(x)`."> {
  let summary = "Elementwise reciprocal square root";
}
def Fnc_TanhOp : Fnc_UnaryOp<"tanh", Fnc_FloatDTypes,
    "Elementwise hyperbolic tangent."> {
  let summary = "Elementwise hyperbolic tangent";
}
def Fnc_SigmoidOp : Fnc_UnaryOp<"sigmoid", Fnc_FloatDTypes,
    "Elementwise `1 / (1 + e^-x)`."> {
  let summary = "Elementwise logistic sigmoid";
}
def Fnc_ReluOp : Fnc_UnaryOp<"relu", Fnc_NumericDTypes,
    "Elementwise `maximum(x, 0)` (NaN stays NaN)."> {
  let summary = "Elementwise rectified linear unit";
}
def Fnc_SquareOp : Fnc_UnaryOp<"square", Fnc_NumericDTypes,
    "Elementwise `x * x`."> {
  let summary = "Elementwise square";
}
def Fnc_SignOp : Fnc_UnaryOp<"sign", Fnc_NumericDTypes,
    "Elementwise -1, 0 or 1 (NaN for NaN, and a zero keeps its sign)."> {
  let summary = "Elementwise sign";
}
def Fnc_FloorOp : Fnc_UnaryOp<"floor", Fnc_FloatDTypes,
    "Elementwise rounding toward -inf.", /*differentiable=*/0> {
  let summary = "Elementwise floor";
}
def Fnc_CeilOp : Fnc_UnaryOp<"ceil", Fnc_FloatDTypes,
    "Elementwise rounding toward +inf.", /*differentiable=*/0> {
  let summary = "Elementwise ceiling";
}
def Fnc_RoundOp : Fnc_UnaryOp<"round", Fnc_FloatDTypes,
    "Elementwise rounding to the nearest integer, halves to even "
    "(TensorFlow's `round`: 0.5 -> 0, 1.5 -> 2, -2.5 -> -2).",
    /*differentiable=*/0> {
  let summary = "Elementwise rounding, half to even";
}
def Fnc_SinOp : Fnc_UnaryOp<"sin", Fnc_FloatDTypes, "Elementwise sine."> {
  let summary = "Elementwise sine";
}
def Fnc_CosOp : Fnc_UnaryOp<"cos", Fnc_FloatDTypes, "Elementwise cosine."> {
  let summary = "Elementwise cosine";
}
def Fnc_TanOp : Fnc_UnaryOp<"tan", Fnc_FloatDTypes, "Elementwise tangent."> {
  let summary = "Elementwise tangent";
}
def Fnc_ErfOp : Fnc_UnaryOp<"erf", Fnc_FloatDTypes,
    "Elementwise Gauss error function."> {
  let summary = "Elementwise error function";
}
def Fnc_Log1pOp : Fnc_UnaryOp<"log1p", Fnc_FloatDTypes,
    "Elementwise `log(1 + x)`, accurate for small `x`."> {
  let summary = "Elementwise log(1 + x)";
}
def Fnc_Expm1Op : Fnc_UnaryOp<"expm1", Fnc_FloatDTypes,
    "Elementwise `e^x - 1`, accurate for small `x`."> {
  let summary = "Elementwise e^x - 1";
}
def Fnc_SoftplusOp : Fnc_UnaryOp<"softplus", Fnc_FloatDTypes,
    "Elementwise `log(1 + e^x)`, computed as `max(x, 0) + log1p(e^-|x|)` "
    "so that it neither overflows nor loses small values."> {
  let summary = "Elementwise softplus";
}
def Fnc_LogicalNotOp : Fnc_UnaryOp<"logical_not", Fnc_BoolDTypes,
    "Elementwise `!x` on bool tensors.", /*differentiable=*/0> {
  let summary = "Elementwise logical not";
}

//===----------------------------------------------------------------------===//
// Linear algebra
//===----------------------------------------------------------------------===//

def Fnc_MatmulOp : Fnc_Op<"matmul", [Pure, InferTypeOpAdaptor,
                                     SameOperandsAndResultElementType]> {
  let summary = "Matrix product, batched with broadcasting";
  let cppApi = ["matmul"];
  let description = [{
    `[..., m, k] x [..., k, n] -> [..., m, n]`; both operands have rank >= 2
    and their batch dimensions broadcast.

    ```mlir
    func.func @f(%a: tensor<8x2x3xf32>, %b: tensor<3x4xf32>)
        -> tensor<8x2x4xf32> {
      %c = fnc.matmul %a, %b : tensor<8x2x3xf32>, tensor<3x4xf32>
      return %c : tensor<8x2x4xf32>
    }
    ```
  }];
  let arguments = (ins Fnc_NumericTensor:$lhs, Fnc_NumericTensor:$rhs);
  let results = (outs Fnc_NumericTensor:$result);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs)";
}

def Fnc_Conv2DOp : Fnc_Op<"conv2d", [Pure, InferTypeOpAdaptor,
                                     SameOperandsAndResultElementType]> {
  let summary = "2-D convolution, NHWC input and HWCF filter";
  let cppApi = ["conv2d"];
  let description = [{
    TensorFlow's `conv2d` without dilation: input `[n, h, w, c]`, filter
    `[kh, kw, c, f]`, result `[n, oh, ow, f]`. With `valid` padding only
    full windows count; with `same` padding the input is zero-padded so that
    `oh = ceil(h / stride_h)`, the extra row or column going after.

    ```mlir
    func.func @f(%x: tensor<1x5x5x3xf32>, %w: tensor<3x3x3x8xf32>)
        -> tensor<1x3x3x8xf32> {
      %y = fnc.conv2d %x, %w strides [2, 2] padding same
          : tensor<1x5x5x3xf32>, tensor<3x3x3x8xf32>
      return %y : tensor<1x3x3x8xf32>
    }
    ```
  }];
  let arguments = (ins Fnc_NumericTensor:$input, Fnc_NumericTensor:$filter,
                       DenseI64ArrayAttr:$strides, Fnc_Padding:$padding);
  let results = (outs Fnc_NumericTensor:$result);
  let assemblyFormat = "$input `,` $filter `strides` $strides `padding` "
                       "$padding attr-dict `:` type($input) `,` type($filter)";
}

//===----------------------------------------------------------------------===//
// Pooling
//===----------------------------------------------------------------------===//

// The window geometry every pooling op has: `ksize` {kh, kw}, `strides`
// {sh, sw} (each >= 1) and TensorFlow's `valid` / `same` padding, with the
// output size of conv2d.
class Fnc_Pool2DBase<string mnemonic, list<Trait> traits = []>
    : Fnc_Op<mnemonic, !listconcat([Pure, InferTypeOpAdaptor,
                                    SameOperandsAndResultElementType],
                                   traits)> {
  dag windowArgs = (ins DenseI64ArrayAttr:$ksize, DenseI64ArrayAttr:$strides,
                        Fnc_Padding:$padding);
  string windowFormat =
      "`ksize` $ksize `strides` $strides `padding` $padding attr-dict";
}

class Fnc_Pool2DOp<string mnemonic> : Fnc_Pool2DBase<mnemonic> {
  let arguments = !con((ins Fnc_FloatTensor:$input), windowArgs);
  let results = (outs Fnc_FloatTensor:$result);
  let assemblyFormat = "$input " # windowFormat # " `:` type($input)";
}

// The input gradient of a pooling op: the result has the input's type.
class Fnc_Pool2DGradOp<string mnemonic> : Fnc_Pool2DBase<mnemonic> {
  let arguments = !con((ins Fnc_FloatTensor:$input,
                            Fnc_FloatTensor:$grad_output), windowArgs);
  let results = (outs Fnc_FloatTensor:$result);
  let assemblyFormat = "$input `,` $grad_output " # windowFormat #
                       " `:` type($input) `,` type($grad_output)";
}

def Fnc_MaxPool2DOp : Fnc_Pool2DOp<"max_pool2d"> {
  let summary = "2-D max pooling of an NHWC tensor";
  let cppApi = ["max_pool2d"];
  let description = [{
    TensorFlow's `max_pool2d`: input `[n, h, w, c]`, result
    `[n, oh, ow, c]` where each element is the maximum of a `ksize` window
    of its channel, the windows `strides` apart. With `valid` padding only
    full windows count (`oh = (h - kh) / sh + 1`); with `same` padding
    `oh = ceil(h / sh)` and the padding (split as for conv2d, the extra row
    or column after) is `-inf`, so it never wins. A NaN in a window gives
    NaN (as `fnc.maximum`).

    ```mlir
    func.func @f(%x: tensor<8x28x28x16xf32>) -> tensor<8x14x14x16xf32> {
      %y = fnc.max_pool2d %x ksize [2, 2] strides [2, 2] padding valid
          : tensor<8x28x28x16xf32>
      return %y : tensor<8x14x14x16xf32>
    }
    ```
  }];
}

def Fnc_AvgPool2DOp : Fnc_Pool2DOp<"avg_pool2d"> {
  let summary = "2-D average pooling of an NHWC tensor";
  let cppApi = ["avg_pool2d"];
  let description = [{
    TensorFlow's `avg_pool2d`: like `fnc.max_pool2d`, but each element is
    the mean of its window. With `same` padding the padded positions do not
    count: a window at the border is divided by the number of input
    elements it covers, not by `kh * kw`.

    ```mlir
    func.func @f(%x: tensor<1x5x5x3xf64>) -> tensor<1x3x3x3xf64> {
      %y = fnc.avg_pool2d %x ksize [3, 3] strides [2, 2] padding same
          : tensor<1x5x5x3xf64>
      return %y : tensor<1x3x3x3xf64>
    }
    ```
  }];
}

def Fnc_MaxPool2DGradOp : Fnc_Pool2DGradOp<"max_pool2d_grad"> {
  let summary = "The input gradient of fnc.max_pool2d";
  let cppApiNote =
      "Staged by the gradient of `fnc::max_pool2d` (`fnc::GradientTape`, " #
      "`fnc::grad`).";
  let description = [{
    TensorFlow's `MaxPoolGrad`: given the pooled `input` and the gradient
    of the pooled result (`grad_output`, of the shape `fnc.max_pool2d`
    gives), the gradient of the input: each window passes its gradient to
    its *first* maximum in row-major window order (a NaN counts as the
    maximum; padding never does), and an input element that is the chosen
    maximum of several overlapping windows gets the sum of their
    gradients. Not differentiable itself.

    ```mlir
    func.func @f(%x: tensor<8x28x28x16xf32>, %dy: tensor<8x14x14x16xf32>)
        -> tensor<8x28x28x16xf32> {
      %dx = fnc.max_pool2d_grad %x, %dy ksize [2, 2] strides [2, 2]
          padding valid : tensor<8x28x28x16xf32>, tensor<8x14x14x16xf32>
      return %dx : tensor<8x28x28x16xf32>
    }
    ```
  }];
}

def Fnc_AvgPool2DGradOp : Fnc_Pool2DGradOp<"avg_pool2d_grad"> {
  let summary = "The input gradient of fnc.avg_pool2d";
  let cppApiNote =
      "Staged by the gradient of `fnc::avg_pool2d` (`fnc::GradientTape`, " #
      "`fnc::grad`).";
  let description = [{
    TensorFlow's `AvgPoolGrad`: each window spreads its gradient, divided
    by the number of input elements it covers, evenly over them; an input
    element in several windows gets the sum. Only the shape of `input` is
    read. Linear in `grad_output`: its own gradient is `fnc.avg_pool2d`.

    ```mlir
    func.func @f(%x: tensor<1x5x5x3xf64>, %dy: tensor<1x3x3x3xf64>)
        -> tensor<1x5x5x3xf64> {
      %dx = fnc.avg_pool2d_grad %x, %dy ksize [3, 3] strides [2, 2]
          padding same : tensor<1x5x5x3xf64>, tensor<1x3x3x3xf64>
      return %dx : tensor<1x5x5x3xf64>
    }
    ```
  }];
}

//===----------------------------------------------------------------------===//
// Shape ops
//===----------------------------------------------------------------------===//

def Fnc_TransposeOp : Fnc_Op<"transpose", [Pure, InferTypeOpAdaptor]> {
  let summary = "Permutes the dimensions";
  let cppApi = ["transpose"];
  let description = [{
    Result dimension `i` is input dimension `perm[i]`.

    ```mlir
    func.func @f(%x: tensor<2x3xf32>) -> tensor<3x2xf32> {
      %t = fnc.transpose %x perm [1, 0] : tensor<2x3xf32>
      return %t : tensor<3x2xf32>
    }
    ```
  }];
  let arguments = (ins Fnc_Tensor:$input, DenseI64ArrayAttr:$perm);
  let results = (outs Fnc_Tensor:$result);
  let assemblyFormat = "$input `perm` $perm attr-dict `:` type($input)";
  let hasFolder = 1;
}

def Fnc_ReshapeOp : Fnc_Op<"reshape", [Pure]> {
  let summary = "Reinterprets the elements (row-major) in a new shape";
  let cppApi = ["reshape"];
  let description = [{
    The result type gives the new shape. The element counts must agree; at
    most one result dimension may be dynamic, and it is then inferred from
    the element count at run time (numpy's `-1`).

    ```mlir
    func.func @f(%x: tensor<2x3xf32>, %y: tensor<?x4xf32>)
        -> (tensor<3x2xf32>, tensor<?xf32>) {
      %r = fnc.reshape %x : tensor<2x3xf32> -> tensor<3x2xf32>
      %f = fnc.reshape %y : tensor<?x4xf32> -> tensor<?xf32>
      return %r, %f : tensor<3x2xf32>, tensor<?xf32>
    }
    ```
  }];
  let arguments = (ins Fnc_Tensor:$input);
  let results = (outs Fnc_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Fnc_BroadcastToOp : Fnc_Op<"broadcast_to", [Pure]> {
  let summary = "Broadcasts to a given shape";
  let cppApi = ["broadcast_to"];
  let description = [{
    Stretches the input to the result shape with numpy's rules. Each dynamic
    dimension of the result takes its size from one `index` operand.

    ```mlir
    func.func @f(%x: tensor<3xf32>, %n: index)
        -> (tensor<2x3xf32>, tensor<?x3xf32>) {
      %b = fnc.broadcast_to %x : tensor<3xf32> -> tensor<2x3xf32>
      %d = fnc.broadcast_to %x [%n] : tensor<3xf32> -> tensor<?x3xf32>
      return %b, %d : tensor<2x3xf32>, tensor<?x3xf32>
    }
    ```
  }];
  let arguments = (ins Fnc_Tensor:$input, Variadic<Index>:$dynamicDims);
  let results = (outs Fnc_Tensor:$result);
  let assemblyFormat = "$input (` ` `[` $dynamicDims^ `]`)? attr-dict `:` "
                       "type($input) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Fnc_ShapeOfOp : Fnc_Op<"shape_of", [Pure]> {
  let summary = "The shape of a tensor, as a tensor";
  let cppApi = ["shape"];
  let description = [{
    A 1-D integer tensor (i32 or i64) holding the dimension sizes of the
    input, known ones and dynamic ones alike: TensorFlow's `tf.shape`. Folds
    to a constant when the input's shape is static.

    ```mlir
    func.func @f(%x: tensor<?x3xf32>) -> tensor<2xi32> {
      %s = fnc.shape_of %x : tensor<?x3xf32> -> tensor<2xi32>
      return %s : tensor<2xi32>
    }
    ```
  }];
  let arguments = (ins Fnc_Tensor:$input);
  let results = (outs 1DTensorOf<[Fnc_Integer]>:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Fnc_BroadcastToShapeOp : Fnc_Op<"broadcast_to_shape", [Pure]> {
  let summary = "Broadcasts to a shape held in a tensor";
  let cppApi = ["broadcast_to"];
  let description = [{
    `fnc.broadcast_to` whose target shape is the value of a 1-D integer
    tensor, read at run time (`fnc::broadcast_to(x, fnc::shape(y))` as
    `tf.broadcast_to(x, tf.shape(y))`, and `fnc::zeros(fnc::shape(y))`).
    The shape's length is the result's rank. A static dimension of the
    result must equal the shape's value there; a negative size or a size
    the input does not broadcast to is a run-time error.

    ```mlir
    func.func @f(%x: tensor<?x3xf32>) -> tensor<?x3xf32> {
      %zero = fnc.constant dense<0.0> : tensor<f32>
      %s = fnc.shape_of %x : tensor<?x3xf32> -> tensor<2xi32>
      %z = fnc.broadcast_to_shape %zero, %s
          : tensor<f32>, tensor<2xi32> -> tensor<?x3xf32>
      return %z : tensor<?x3xf32>
    }
    ```
  }];
  let arguments = (ins Fnc_Tensor:$input, 1DTensorOf<[Fnc_Integer]>:$shape);
  let results = (outs Fnc_Tensor:$result);
  let assemblyFormat = "$input `,` $shape attr-dict `:` type($input) `,` "
                       "type($shape) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Fnc_ReshapeToShapeOp : Fnc_Op<"reshape_to_shape", [Pure]> {
  let summary = "Reinterprets the elements in a shape held in a tensor";
  let cppApiNote =
      "Staged by `fnc::GradientTape`: the gradient of a reshape whose " #
      "input has several dims unknown while tracing, and the history of a " #
      "loop whose shapes change.";
  let description = [{
    `fnc.reshape` whose new shape is the value of a 1-D integer tensor,
    read at run time (`tf.reshape(x, tf.shape(y))`), so that any number of
    the result's dims may be unknown while compiling. The shape's length
    is the result's rank. A negative size, a static dimension of the
    result that differs from the shape's value there, or a shape whose
    sizes do not multiply to the input's element count is a run-time
    error.

    ```mlir
    func.func @f(%x: tensor<?xf32>, %s: tensor<2xi64>) -> tensor<?x?xf32> {
      %r = fnc.reshape_to_shape %x, %s
          : tensor<?xf32>, tensor<2xi64> -> tensor<?x?xf32>
      return %r : tensor<?x?xf32>
    }
    ```
  }];
  let arguments = (ins Fnc_Tensor:$input,
                       1DTensorOf<[Fnc_Integer]>:$shape);
  let results = (outs Fnc_Tensor:$result);
  let assemblyFormat = "$input `,` $shape attr-dict `:` type($input) `,` "
                       "type($shape) `->` type($result)";
  let hasVerifier = 1;
}

def Fnc_SumToShapeOp : Fnc_Op<"sum_to_shape", [Pure]> {
  let summary = "Sums a broadcast tensor back to a shape held in a tensor";
  let cppApiNote =
      "Staged by the gradient of a broadcasting op (`fnc::GradientTape`, " #
      "`fnc::grad`) whose operand has a dim unknown while tracing that may " #
      "be 1 at run time.";
  let description = [{
    The reverse of `fnc.broadcast_to_shape`: `input`, a broadcast (numpy's
    rule) of a tensor of the shape that the 1-D integer tensor `shape`
    holds, summed back to that shape: over its leading dims and over every
    dim where the shape holds 1 and the input does not. It is TensorFlow's
    `BroadcastGradientArgs` followed by `reduce_sum` and `reshape`: the
    gradient of a broadcast operand whose size is read at run time (a
    loop value whose shape changes, a slice with unknown bounds may be 1
    in one call and not in the next). The shape's length is the result's
    rank; a shape the input is not a broadcast of is a run-time error.

    A trace sets `fnc.same_unknown_dims` where it knows that the input's
    unknown dims equal the shape's unknown dims at the same positions (never
    1 against a larger size): those need no run-time test, and with equal
    types the op folds away.

    ```mlir
    func.func @f(%g: tensor<?x3xf32>, %x: tensor<?x3xf32>)
        -> tensor<?x3xf32> {
      %s = fnc.shape_of %x : tensor<?x3xf32> -> tensor<2xi64>
      %dx = fnc.sum_to_shape %g, %s
          : tensor<?x3xf32>, tensor<2xi64> -> tensor<?x3xf32>
      return %dx : tensor<?x3xf32>
    }
    ```
  }];
  let arguments = (ins Fnc_Tensor:$input, 1DTensorOf<[Fnc_Integer]>:$shape);
  let results = (outs Fnc_Tensor:$result);
  let assemblyFormat = "$input `,` $shape attr-dict `:` type($input) `,` "
                       "type($shape) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Fnc_ExpandDimsOp : Fnc_Op<"expand_dims", [Pure, InferTypeOpAdaptor]> {
  let summary = "Inserts a dimension of size 1";
  let cppApi = ["expand_dims"];
  let description = [{
    Inserts a size-1 dimension at `axis`, in `[-rank-1, rank]`.

    ```mlir
    func.func @f(%x: tensor<2x3xf32>) -> tensor<2x3x1xf32> {
      %e = fnc.expand_dims %x axis -1 : tensor<2x3xf32>
      return %e : tensor<2x3x1xf32>
    }
    ```
  }];
  let arguments = (ins Fnc_Tensor:$input, I64Attr:$axis);
  let results = (outs Fnc_Tensor:$result);
  let assemblyFormat = "$input `axis` $axis attr-dict `:` type($input)";
}

def Fnc_SqueezeOp : Fnc_Op<"squeeze", [Pure, InferTypeOpAdaptor]> {
  let summary = "Removes dimensions of size 1";
  let cppApi = ["squeeze"];
  let description = [{
    Removes the dimensions listed in `axes` (negative allowed), which must
    have size 1 (or be dynamic and 1 at run time). With empty `axes`, every
    dimension of static size 1 is removed.

    ```mlir
    func.func @f(%x: tensor<1x3x1xf32>) -> tensor<3xf32> {
      %s = fnc.squeeze %x axes [0, 2] : tensor<1x3x1xf32>
      return %s : tensor<3xf32>
    }
    ```
  }];
  let arguments = (ins Fnc_Tensor:$input, DenseI64ArrayAttr:$axes);
  let results = (outs Fnc_Tensor:$result);
  let assemblyFormat = "$input `axes` $axes attr-dict `:` type($input)";
}

def Fnc_SliceOp : Fnc_Op<"slice", [Pure, InferTypeOpAdaptor]> {
  let summary = "A strided window of the input";
  let cppApi = ["slice"];
  let description = [{
    Result element `[i0, i1, ...]` is input element
    `[offsets[0] + i0 * strides[0], ...]`; the result shape is `sizes`.
    Offsets are >= 0 and strides >= 1; the window must lie inside the input
    (checked at run time along dynamic dims). A size of -1 means "to the
    end": every stride-th element from the offset on, `ceil((dim - offset) /
    stride)` of them, so a slice can take the whole of a dynamic dim (the
    result dim is then dynamic; the offset must not pass the end).

    ```mlir
    func.func @f(%x: tensor<4x4xf32>, %y: tensor<?x4xf32>)
        -> (tensor<2x2xf32>, tensor<?x2xf32>) {
      %s = fnc.slice %x offsets [1, 0] sizes [2, 2] strides [1, 2]
          : tensor<4x4xf32>
      %t = fnc.slice %y offsets [0, 1] sizes [-1, 2] strides [1, 1]
          : tensor<?x4xf32>
      return %s, %t : tensor<2x2xf32>, tensor<?x2xf32>
    }
    ```
  }];
  let arguments = (ins Fnc_Tensor:$input, DenseI64ArrayAttr:$offsets,
                       DenseI64ArrayAttr:$sizes, DenseI64ArrayAttr:$strides);
  let results = (outs Fnc_Tensor:$result);
  let assemblyFormat = "$input `offsets` $offsets `sizes` $sizes `strides` "
                       "$strides attr-dict `:` type($input)";
  let hasFolder = 1;
}

def Fnc_StridedSliceOp : Fnc_Op<"strided_slice",
    [Pure, InferTypeOpAdaptor]> {
  let summary = "numpy's basic indexing: ranges and indices per dimension";
  let cppApi = ["strided_slice"];
  let cppApiNote = "Also `x[i]` and `x.index({...})` (numpy's form, " #
                   "fnc/Index.h).";
  let description = [{
    One entry per input dimension, written as numpy writes it: a range
    `begin:end:stride` (Python's `slice`: negative bounds count from the
    end, then clamp to the dimension; a negative stride walks backwards; an
    omitted bound is the whole dimension in the stride's direction) or an
    index (negative counts from the end), whose dimension the result drops.
    An index outside the dimension is an error: statically along a known
    dimension, at run time along a dynamic one. The bounds are resolved
    against the dimension's size at run time, so a dynamic dimension needs
    no known size; a result dimension is dynamic when its input dimension
    is (numpy's clamping makes its size depend on the input's), except for
    a range empty for every size.

    This is `tf.strided_slice` after the ellipsis and the new axes (which
    only insert size-1 dimensions) are resolved. It lowers to a
    `tensor.extract_slice` of the window read (a `tensor.collapse_shape`
    drops the indexed dimensions); negative strides read that window
    backwards. With every dimension resolvable while compiling, positive
    strides and no index it canonicalizes to `fnc.slice`; taking every
    dimension whole, forwards, it folds to its input.

    The attributes hold `begin`, `end` and `strides` per dimension and
    `shrink` for the indices (whose end and stride are 0 and 1); an
    omitted bound is `-2^63` or `2^63 - 1`, whichever clamps to its side.

    ```mlir
    func.func @f(%x: tensor<?x10x4x5xf32>) -> tensor<?x10x5xf32> {
      // x[1:3, ::-1, -1, :]
      %s = fnc.strided_slice %x [1:3, ::-1, -1, :] : tensor<?x10x4x5xf32>
      return %s : tensor<?x10x5xf32>
    }
    ```
  }];
  let arguments = (ins Fnc_Tensor:$input, DenseI64ArrayAttr:$begin,
                       DenseI64ArrayAttr:$end, DenseI64ArrayAttr:$strides,
                       DenseBoolArrayAttr:$shrink);
  let results = (outs Fnc_Tensor:$result);
  let assemblyFormat = "$input custom<SliceSpec>($begin, $end, $strides, "
                       "$shrink) attr-dict `:` type($input)";
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

def Fnc_StridedSliceGradOp : Fnc_Op<"strided_slice_grad",
    [Pure, InferTypeOpAdaptor, SameOperandsAndResultElementType]> {
  let summary = "The input gradient of fnc.strided_slice";
  let cppApiNote =
      "Staged by the gradient of `fnc::strided_slice` and of numpy " #
      "indexing (`fnc::GradientTape`, `fnc::grad`).";
  let description = [{
    TensorFlow's `StridedSliceGrad`: zeros of the shape of `input` with
    `grad` (of the shape `fnc.strided_slice` gives for that spec) placed
    where the slice read it. Only the shape of `input` is read. Linear in
    `grad`: its own gradient is `fnc.strided_slice` with the same spec.
    Lowers to a fill and a `tensor.insert_slice` (negative strides insert
    the gradient read backwards); fully static with positive strides and
    no index it canonicalizes to `fnc.pad`.

    ```mlir
    func.func @f(%x: tensor<?x10x4x5xf32>, %g: tensor<?x10x5xf32>)
        -> tensor<?x10x4x5xf32> {
      %dx = fnc.strided_slice_grad %x, %g [1:3, ::-1, -1, :]
          : tensor<?x10x4x5xf32>, tensor<?x10x5xf32>
      return %dx : tensor<?x10x4x5xf32>
    }
    ```
  }];
  let arguments = (ins Fnc_Tensor:$input, Fnc_Tensor:$grad,
                       DenseI64ArrayAttr:$begin, DenseI64ArrayAttr:$end,
                       DenseI64ArrayAttr:$strides, DenseBoolArrayAttr:$shrink);
  let results = (outs Fnc_Tensor:$result);
  let assemblyFormat = "$input `,` $grad custom<SliceSpec>($begin, $end, "
                       "$strides, $shrink) attr-dict `:` type($input) `,` "
                       "type($grad)";
  let hasCanonicalizer = 1;
}

def Fnc_PadOp : Fnc_Op<"pad", [Pure, InferTypeOpAdaptor]> {
  let summary = "Pads with a constant before, after and between elements";
  let cppApi = ["pad"];
  let description = [{
    XLA's pad (jax.lax.pad) with non-negative amounts: along dim `i`,
    `low[i]` copies of `value` go before the input's elements, `high[i]`
    after them and `interior[i]` between each two neighbours, so a dim of
    size n becomes `low + n + max(n - 1, 0) * interior + high` (dynamic
    when n is). `value` is converted to the element type as `fnc.fill`
    converts it. tf.pad is the case without interior padding; interior
    padding dilates (the gradient of a strided slice or convolution).

    ```mlir
    func.func @f(%x: tensor<2x3xf32>) -> tensor<3x7xf32> {
      %p = fnc.pad %x low [1, 0] high [0, 2] interior [0, 1] value 0.0
          : tensor<2x3xf32>
      return %p : tensor<3x7xf32>
    }
    ```
  }];
  let arguments = (ins Fnc_Tensor:$input, DenseI64ArrayAttr:$low,
                       DenseI64ArrayAttr:$high, DenseI64ArrayAttr:$interior,
                       F64Attr:$value);
  let results = (outs Fnc_Tensor:$result);
  let assemblyFormat = "$input `low` $low `high` $high `interior` $interior "
                       "`value` $value attr-dict `:` type($input)";
  let hasFolder = 1;
}

def Fnc_ConcatOp : Fnc_Op<"concat", [Pure, InferTypeOpAdaptor,
                                     SameOperandsAndResultElementType]> {
  let summary = "Joins tensors along an axis";
  let cppApi = ["concat"];
  let description = [{
    All operands have the same rank and agree in every dimension but `axis`.

    ```mlir
    func.func @f(%a: tensor<2x3xf32>, %b: tensor<4x3xf32>) -> tensor<6x3xf32> {
      %c = fnc.concat %a, %b axis 0 : tensor<2x3xf32>, tensor<4x3xf32>
      return %c : tensor<6x3xf32>
    }
    ```
  }];
  let arguments = (ins Variadic<Fnc_Tensor>:$inputs, I64Attr:$axis);
  let results = (outs Fnc_Tensor:$result);
  let assemblyFormat = "$inputs `axis` $axis attr-dict `:` type($inputs)";
  let hasFolder = 1;
}

def Fnc_GatherOp : Fnc_Op<"gather", [Pure, InferTypeOpAdaptor]> {
  let summary = "Takes slices of params at indices along an axis";
  let cppApi = ["gather"];
  let description = [{
    numpy's `take(params, indices, axis)`: the result shape is
    `params[:axis] + indices + params[axis+1:]`. An index outside
    `[0, params.shape[axis])` is a run-time error.

    ```mlir
    func.func @f(%p: tensor<5x3xf32>, %i: tensor<2xi64>) -> tensor<2x3xf32> {
      %g = fnc.gather %p, %i axis 0 : tensor<5x3xf32>, tensor<2xi64>
      return %g : tensor<2x3xf32>
    }
    ```
  }];
  let arguments = (ins Fnc_Tensor:$params, Fnc_IntegerTensor:$indices,
                       I64Attr:$axis);
  let results = (outs Fnc_Tensor:$result);
  let assemblyFormat = "$params `,` $indices `axis` $axis attr-dict `:` "
                       "type($params) `,` type($indices)";
}

def Fnc_SetRowOp : Fnc_Op<"set_row",
    [Pure, AllTypesMatch<["input", "result"]>]> {
  let summary = "Replaces one row of a tensor";
  let description = [{
    The input with its row `index` (a position along dim 0) replaced by
    `value`, whose shape is the input's without dim 0. This is how a
    staged `fnc::TensorArray` writes an element: once bufferized it updates
    the buffer in place when the input is not used afterwards, as in a loop
    that carries the array. An index outside `[0, rows)` is a run-time
    error.

    ```mlir
    func.func @f(%a: tensor<?x3xf32>, %i: tensor<i32>, %v: tensor<3xf32>)
        -> tensor<?x3xf32> {
      %r = fnc.set_row %a[%i], %v : tensor<?x3xf32>, tensor<i32>, tensor<3xf32>
      return %r : tensor<?x3xf32>
    }
    ```
  }];
  let arguments = (ins Fnc_Tensor:$input, 0DTensorOf<[Fnc_Integer]>:$index,
                       Fnc_Tensor:$value);
  let results = (outs Fnc_Tensor:$result);
  let assemblyFormat = "$input `[` $index `]` `,` $value attr-dict `:` "
                       "type($input) `,` type($index) `,` type($value)";
  let hasVerifier = 1;
}

def Fnc_DynamicSliceOp : Fnc_Op<"dynamic_slice", [Pure]> {
  let summary = "A slice along one axis between bounds known at run time";
  let cppApiNote =
      "Staged by the gradient of `fnc::concat` whose operands' sizes along " #
      "the axis are unknown while tracing (`fnc::GradientTape`).";
  let description = [{
    The elements `[start, start + size)` of `input` along `axis`, whole
    along the other dims. `start` and `size` are 0-d integers read at run
    time; a range outside `[0, dim]` (or a negative size) is a run-time
    error. This is how the gradient of a concat whose operands' sizes along
    the axis are unknown while tracing takes each operand's part (a
    `fnc::TensorArray::dynamic` grown in a staged loop).

    ```mlir
    func.func @f(%a: tensor<?x3xf32>, %s: tensor<i64>, %n: tensor<i64>)
        -> tensor<?x3xf32> {
      %r = fnc.dynamic_slice %a[%s, %n] axis 0
          : tensor<?x3xf32>, tensor<i64>, tensor<i64> -> tensor<?x3xf32>
      return %r : tensor<?x3xf32>
    }
    ```
  }];
  let arguments = (ins Fnc_Tensor:$input, 0DTensorOf<[Fnc_Integer]>:$start,
                       0DTensorOf<[Fnc_Integer]>:$size, I64Attr:$axis);
  let results = (outs Fnc_Tensor:$result);
  let assemblyFormat = "$input `[` $start `,` $size `]` `axis` $axis "
                       "attr-dict `:` type($input) `,` type($start) `,` "
                       "type($size) `->` type($result)";
  let hasVerifier = 1;
}

def Fnc_DynamicUpdateSliceOp : Fnc_Op<"dynamic_update_slice",
    [Pure, AllTypesMatch<["input", "result"]>]> {
  let summary = "Replaces a slice along one axis at an offset known at run time";
  let cppApiNote =
      "Staged by `fnc::GradientTape` for the history of a loop whose " #
      "shapes change.";
  let description = [{
    The input with its elements `[start, start + n)` along `axis` replaced
    by `update`, where `n` is the update's size along `axis`; the update's
    other dims are the input's. `start` is a 0-d integer read at run time;
    a range outside `[0, dim]` is a run-time error. XLA's
    `DynamicUpdateSlice` along one axis, the write that `fnc.dynamic_slice`
    reads back: once bufferized it updates the buffer in place when the
    input is not used afterwards, as in a loop that appends each
    iteration's values to one buffer (the history a gradient keeps of a
    loop whose shapes change).

    ```mlir
    func.func @f(%a: tensor<?xf32>, %s: tensor<i64>, %u: tensor<?xf32>)
        -> tensor<?xf32> {
      %r = fnc.dynamic_update_slice %a[%s], %u axis 0
          : tensor<?xf32>, tensor<i64>, tensor<?xf32>
      return %r : tensor<?xf32>
    }
    ```
  }];
  let arguments = (ins Fnc_Tensor:$input, 0DTensorOf<[Fnc_Integer]>:$start,
                       Fnc_Tensor:$update, I64Attr:$axis);
  let results = (outs Fnc_Tensor:$result);
  let assemblyFormat = "$input `[` $start `]` `,` $update `axis` $axis "
                       "attr-dict `:` type($input) `,` type($start) `,` "
                       "type($update)";
  let hasVerifier = 1;
}

def Fnc_OneHotOp : Fnc_Op<"one_hot", [Pure]> {
  let summary = "One-hot encoding of integer indices";
  let cppApi = ["one_hot"];
  let description = [{
    Inserts a dimension of size `depth` at `axis`; along it, element `j` is
    `on` where the index equals `j` and `off` elsewhere. An index outside
    `[0, depth)` gives a row of `off`. The result type gives the dtype.

    ```mlir
    func.func @f(%i: tensor<3xi64>) -> tensor<3x4xf32> {
      %h = fnc.one_hot %i depth 4 axis -1 on 1.0 off 0.0
          : tensor<3xi64> -> tensor<3x4xf32>
      return %h : tensor<3x4xf32>
    }
    ```
  }];
  let arguments = (ins Fnc_IntegerTensor:$indices, I64Attr:$depth,
                       I64Attr:$axis, F64Attr:$on, F64Attr:$off);
  let results = (outs Fnc_Tensor:$result);
  let assemblyFormat = "$indices `depth` $depth `axis` $axis `on` $on `off` "
                       "$off attr-dict `:` type($indices) `->` type($result)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

class Fnc_ReduceOp<string mnemonic, string desc>
    : Fnc_Op<mnemonic, [Pure, InferTypeOpAdaptor,
                        SameOperandsAndResultElementType]>,
      Fnc_TableEntry<"Reduce", "reduce_" # mnemonic, Fnc_NumericDTypes, 1> {
  let description = "    " # desc # !subst("OP", mnemonic, [{

    Reduces over `axes` (negative allowed; empty means all axes). With
    `keepdims` the reduced dimensions stay with size 1.

    ```mlir
    func.func @f(%x: tensor<2x3xf32>) -> (tensor<2x1xf32>, tensor<f32>) {
      %r = fnc.OP %x axes [-1] keepdims : tensor<2x3xf32>
      %all = fnc.OP %x axes [] : tensor<2x3xf32>
      return %r, %all : tensor<2x1xf32>, tensor<f32>
    }
    ```
  }]);
  let arguments = (ins Fnc_NumericTensor:$input, DenseI64ArrayAttr:$axes,
                       UnitAttr:$keepdims);
  let results = (outs Fnc_NumericTensor:$result);
  let assemblyFormat =
      "$input `axes` $axes (`keepdims` $keepdims^)? attr-dict `:` type($input)";
}

def Fnc_SumOp : Fnc_ReduceOp<"sum", "Sum of the elements (0 if empty)."> {
  let summary = "Sum reduction";
}
def Fnc_MeanOp : Fnc_ReduceOp<"mean",
    "Arithmetic mean (integer means truncate; NaN if empty).">{
  let summary = "Mean reduction";
}
def Fnc_MaxOp : Fnc_ReduceOp<"max",
    "Largest element (-inf or the lowest integer if empty).">{
  let summary = "Maximum reduction";
}
def Fnc_MinOp : Fnc_ReduceOp<"min",
    "Smallest element (+inf or the largest integer if empty).">{
  let summary = "Minimum reduction";
}
def Fnc_ProdOp : Fnc_ReduceOp<"prod", "Product of the elements (1 if empty).">{
  let summary = "Product reduction";
}

def Fnc_ArgmaxOp : Fnc_Op<"argmax", [Pure]> {
  let summary = "Index of the largest element along an axis";
  let cppApi = ["argmax"];
  let description = [{
    The index of the first largest element along `axis`, which is removed.
    The result type gives the index dtype (`i32` or `i64`).

    ```mlir
    func.func @f(%x: tensor<2x3xf32>) -> tensor<2xi64> {
      %i = fnc.argmax %x axis 1 : tensor<2x3xf32> -> tensor<2xi64>
      return %i : tensor<2xi64>
    }
    ```
  }];
  let arguments = (ins Fnc_NumericTensor:$input, I64Attr:$axis);
  let results = (outs Fnc_IntegerTensor:$result);
  let assemblyFormat =
      "$input `axis` $axis attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
}

class Fnc_SoftmaxLikeOp<string mnemonic, string desc>
    : Fnc_Op<mnemonic, [Pure, SameOperandsAndResultType]> {
  let description = "    " # desc # !subst("OP", mnemonic, [{ Numerically
    stable (the maximum along `axis` is subtracted first).

    ```mlir
    func.func @f(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
      %p = fnc.OP %x axis -1 : tensor<2x3xf32>
      return %p : tensor<2x3xf32>
    }
    ```
  }]);
  let arguments = (ins Fnc_FloatTensor:$input, I64Attr:$axis);
  let results = (outs Fnc_FloatTensor:$result);
  let assemblyFormat = "$input `axis` $axis attr-dict `:` type($input)";
  let hasVerifier = 1;
}

def Fnc_SoftmaxOp : Fnc_SoftmaxLikeOp<"softmax",
    "`exp(x) / sum(exp(x))` along `axis`."> {
  let summary = "Softmax along an axis";
  let cppApi = ["softmax"];
}
def Fnc_LogSoftmaxOp : Fnc_SoftmaxLikeOp<"log_softmax",
    "`x - log(sum(exp(x)))` along `axis`."> {
  let summary = "Log-softmax along an axis";
  let cppApi = ["log_softmax"];
}

//===----------------------------------------------------------------------===//
// Variables
//===----------------------------------------------------------------------===//

def Fnc_VarReadOp : Fnc_Op<"var_read", [InferTypeOpAdaptor]> {
  let summary = "Reads the current value of a variable";
  let cppApi = ["Variable::read_value", "Variable::value",
                "Variable::operator Tensor"];
  let cppApiNote =
      "Every use of a `fnc::Variable` as a tensor (`v + x`, " #
      "`fnc::matmul(x, v)`) reads it.";
  let description = [{
    ```mlir
    func.func @f(%v: !fnc.variable<tensor<4xf32>>) -> tensor<4xf32> {
      %x = fnc.var_read %v : !fnc.variable<tensor<4xf32>>
      return %x : tensor<4xf32>
    }
    ```
  }];
  let arguments = (ins Arg<Fnc_VariableType, "the variable",
                           [MemRead<Fnc_VariableResource>]>:$variable);
  let results = (outs Fnc_Tensor:$result);
  let assemblyFormat = "$variable attr-dict `:` qualified(type($variable))";
}

class Fnc_VarUpdateOp<string mnemonic, string desc, bit arithmetic = 0>
    : Fnc_Op<mnemonic, [TypesMatchWith<
          "value has the variable's tensor type", "variable", "value",
          "::llvm::cast<::mlir::fnc::VariableType>($_self).getValueType()">]> {
  let description = "    " # desc # !subst("OP", mnemonic, [{ The
    variable's tensor is updated in place; `value` has exactly the
    variable's tensor type.

    ```mlir
    func.func @f(%v: !fnc.variable<tensor<4xf32>>, %x: tensor<4xf32>) {
      fnc.OP %v, %x : !fnc.variable<tensor<4xf32>>
      return
    }
    ```
  }]);
  let arguments = (ins Arg<Fnc_VariableType, "the variable",
                           [MemRead<Fnc_VariableResource>,
                            MemWrite<Fnc_VariableResource>]>:$variable,
                       Fnc_Tensor:$value);
  let assemblyFormat = "$variable `,` $value attr-dict `:` qualified(type($variable))";
  // Adding to and subtracting from a variable needs a numeric dtype.
  let hasVerifier = arithmetic;
}

def Fnc_VarAssignOp : Fnc_VarUpdateOp<"var_assign",
    "Sets the variable to `value`."> {
  let summary = "Assigns a new value to a variable";
}
def Fnc_VarAssignAddOp : Fnc_VarUpdateOp<"var_assign_add",
    "Adds `value` to the variable (not a bool one).", /*arithmetic=*/1> {
  let summary = "Adds to a variable in place";
}
def Fnc_VarAssignSubOp : Fnc_VarUpdateOp<"var_assign_sub",
    "Subtracts `value` from the variable (not a bool one).", /*arithmetic=*/1> {
  let summary = "Subtracts from a variable in place";
}

def Fnc_GlobalVariableOp : Fnc_Op<"global_variable", [Symbol]> {
  let summary = "A named variable of a module, with its initial value";
  let cppApiNote =
      "No C++ call stages it: a module for `fnc-run` declares its " #
      "variables with it and binds entry arguments to them (`{fnc.bind = " #
      "@name}`).";
  let description = [{
    Declares a variable that lives as long as the module is loaded (by
    `fnc-run` or `fnc::load`), starting at `initial_value`. An entry function
    receives it through an argument of type `!fnc.variable<...>` carrying
    the attribute `fnc.bind = @name`; the runner passes the variable's
    buffer, so updates persist from one call to the next.

    ```mlir
    fnc.global_variable @counter = dense<0> : tensor<i32>
    func.func @step(%c: !fnc.variable<tensor<i32>> {fnc.bind = @counter})
        -> tensor<i32> {
      %one = fnc.constant dense<1> : tensor<i32>
      fnc.var_assign_add %c, %one : !fnc.variable<tensor<i32>>
      %n = fnc.var_read %c : !fnc.variable<tensor<i32>>
      return %n : tensor<i32>
    }
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name, ElementsAttr:$initial_value);
  let assemblyFormat = "$sym_name `=` $initial_value attr-dict";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Control flow
//===----------------------------------------------------------------------===//

def Fnc_CondOp : Fnc_Op<"cond", [
    DeclareOpInterfaceMethods<RegionBranchOpInterface,
                              ["getRegionInvocationBounds"]>,
    RecursiveMemoryEffects, NoRegionArguments,
    SingleBlockImplicitTerminator<"YieldOp">]> {
  let summary = "Runs one of two regions, chosen at run time";
  let cppApi = ["cond"];
  let description = [{
    Runs `then` when the 0-D bool `pred` is true and `else` otherwise; the
    results are what the region that ran yields. Both regions yield values
    of the result types. Staged by `fnc::cond`.

    ```mlir
    func.func @f(%p: tensor<i1>, %a: tensor<2xf32>, %b: tensor<2xf32>)
        -> tensor<2xf32> {
      %r = fnc.cond %p : tensor<i1> -> tensor<2xf32> {
        fnc.yield %a : tensor<2xf32>
      } else {
        fnc.yield %b : tensor<2xf32>
      }
      return %r : tensor<2xf32>
    }
    ```
  }];
  let arguments = (ins Fnc_BoolScalar:$pred);
  let results = (outs Variadic<Fnc_AnyTensor>:$results);
  let regions = (region SizedRegion<1>:$thenRegion,
                        SizedRegion<1>:$elseRegion);
  let assemblyFormat = "$pred `:` type($pred) (`->` type($results)^)? "
                       "$thenRegion `else` $elseRegion attr-dict";
  let hasCanonicalizer = 1;
}

def Fnc_WhileOp : Fnc_Op<"while", [
    DeclareOpInterfaceMethods<RegionBranchOpInterface,
                              ["getEntrySuccessorOperands"]>,
    RecursiveMemoryEffects, InferTypeOpAdaptor]> {
  let summary = "A loop with loop-carried tensors, decided at run time";
  let cppApi = ["while_loop"];
  let description = [{
    Evaluates the `cond` region on the loop-carried values (starting with
    `inits`); its terminator `fnc.condition` yields a 0-D bool and forwards
    the values. While the bool is true the `body` region runs on them and
    yields the next values; when it is false the forwarded values are the
    results. Loop-carried values keep the types of `inits`. Staged by
    `fnc::while_loop` and `fnc::for_range`.

    ```mlir
    func.func @f(%n: tensor<i32>, %x0: tensor<2xf32>) -> tensor<2xf32> {
      %i0 = fnc.constant dense<0> : tensor<i32>
      %one = fnc.constant dense<1> : tensor<i32>
      %r:2 = fnc.while (%i0, %x0) : tensor<i32>, tensor<2xf32> cond {
      ^bb0(%i: tensor<i32>, %x: tensor<2xf32>):
        %c = fnc.compare lt, %i, %n : tensor<i32>, tensor<i32>
        fnc.condition %c, %i, %x : tensor<i1>, tensor<i32>, tensor<2xf32>
      } do {
      ^bb0(%i: tensor<i32>, %x: tensor<2xf32>):
        %j = fnc.add %i, %one : tensor<i32>, tensor<i32>
        %y = fnc.mul %x, %x : tensor<2xf32>, tensor<2xf32>
        fnc.yield %j, %y : tensor<i32>, tensor<2xf32>
      }
      return %r#1 : tensor<2xf32>
    }
    ```
  }];
  let arguments = (ins Variadic<Fnc_Tensor>:$inits);
  let results = (outs Variadic<Fnc_AnyTensor>:$results);
  let regions = (region SizedRegion<1>:$condRegion,
                        SizedRegion<1>:$bodyRegion);
  let assemblyFormat = "`(` $inits `)` (`:` type($inits)^)? attr-dict "
                       "`cond` $condRegion `do` $bodyRegion";
  let hasRegionVerifier = 1;
  let hasCanonicalizer = 1;
}

def Fnc_ConditionOp : Fnc_Op<"condition", [
    Pure, Terminator, HasParent<"WhileOp">,
    DeclareOpInterfaceMethods<RegionBranchTerminatorOpInterface>]> {
  let summary = "Terminator of a while's cond region";
  let cppApiNote =
      "The terminator of the cond region of `fnc.while` " #
      "(`fnc::while_loop`, `fnc::for_range`).";
  let description = [{
    Decides whether `fnc.while` runs its body again and forwards the
    loop-carried values (to the body, or out as the results).

    ```mlir
    func.func @f(%x0: tensor<f32>) -> tensor<f32> {
      %limit = fnc.constant dense<100.0> : tensor<f32>
      %r = fnc.while (%x0) : tensor<f32> cond {
      ^bb0(%x: tensor<f32>):
        %c = fnc.compare lt, %x, %limit : tensor<f32>, tensor<f32>
        fnc.condition %c, %x : tensor<i1>, tensor<f32>
      } do {
      ^bb0(%x: tensor<f32>):
        %y = fnc.add %x, %x : tensor<f32>, tensor<f32>
        fnc.yield %y : tensor<f32>
      }
      return %r : tensor<f32>
    }
    ```
  }];
  let arguments = (ins Fnc_BoolScalar:$condition, Variadic<Fnc_Tensor>:$args);
  let assemblyFormat =
      "$condition (`,` $args^)? attr-dict `:` type($condition) (`,` type($args)^)?";
}

def Fnc_YieldOp : Fnc_Op<"yield", [
    Pure, ReturnLike, Terminator, ParentOneOf<["CondOp", "WhileOp"]>]> {
  let summary = "Yields values from a cond branch or a while body";
  let cppApiNote =
      "The terminator of the branches of `fnc.cond` and of the body of " #
      "`fnc.while`.";
  let description = [{
    ```mlir
    func.func @f(%p: tensor<i1>, %a: tensor<2xf32>, %b: tensor<i32>)
        -> (tensor<2xf32>, tensor<i32>) {
      %r:2 = fnc.cond %p : tensor<i1> -> tensor<2xf32>, tensor<i32> {
        fnc.yield %a, %b : tensor<2xf32>, tensor<i32>
      } else {
        %a2 = fnc.add %a, %a : tensor<2xf32>, tensor<2xf32>
        fnc.yield %a2, %b : tensor<2xf32>, tensor<i32>
      }
      return %r#0, %r#1 : tensor<2xf32>, tensor<i32>
    }
    ```
  }];
  let arguments = (ins Variadic<Fnc_AnyTensor>:$values);
  let builders = [OpBuilder<(ins), [{ /* nothing to yield */ }]>];
  let assemblyFormat = "($values^ `:` type($values))? attr-dict";
}

//===----------------------------------------------------------------------===//
// Effects: printing and random numbers
//===----------------------------------------------------------------------===//

def Fnc_PrintOp : Fnc_Op<"print",
    [MemoryEffects<[MemWrite<Fnc_OutputResource>]>]> {
  let summary = "Prints tensors on every execution";
  let cppApi = ["print"];
  let description = [{
    Writes `format` with each `{}` replaced by the next tensor, printed in
    the eager format (`fnc.Tensor(...)` without the wrapper: values only),
    followed by a newline. With no `{}` in `format`, the tensors follow it,
    separated by spaces. Runs every time the function runs, in program order
    with other effects.

    ```mlir
    func.func @f(%x: tensor<2xf32>, %y: tensor<i32>) {
      fnc.print "x = {}, y = {}" %x, %y : tensor<2xf32>, tensor<i32>
      return
    }
    ```
  }];
  let arguments = (ins StrAttr:$format, Variadic<Fnc_AnyTensor>:$inputs);
  let assemblyFormat =
      "$format ($inputs^ `:` type($inputs))? attr-dict";
  let hasVerifier = 1;
}

def Fnc_CheckNumericsOp : Fnc_Op<"check_numerics",
    [MemoryEffects<[MemWrite<Fnc_OutputResource>]>]> {
  let summary = "Reports a run-time error if a tensor holds NaN or Inf";
  let cppApiNote =
      "Inserted after every float op by the `-fnc-check-numerics` pass: " #
      "`fnc::enable_check_numerics(true)`, `fnc-run --check-numerics`.";
  let description = [{
    Checks every element of the float tensor `input`; if one is NaN or
    infinite, the function reports a run-time error with `message` (the
    first failing check wins, so it names the first op that produced a
    non-finite value). Inserted after every float-producing op by
    `-fnc-check-numerics` (the pipeline's `check-numerics` option).

    ```mlir
    func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
      %y = fnc.log %x : tensor<4xf32>
      fnc.check_numerics %y "fnc.log at model.mlir:4:8" : tensor<4xf32>
      return %y : tensor<4xf32>
    }
    ```
  }];
  let arguments = (ins Fnc_FloatTensor:$input, StrAttr:$message);
  let assemblyFormat = "$input $message attr-dict `:` type($input)";
}

class Fnc_RandomOp<string mnemonic, string params, string desc>
    : Fnc_Op<mnemonic, [MemoryEffects<[MemRead<Fnc_RandomResource>,
                                       MemWrite<Fnc_RandomResource>]>]> {
  let description = "    " # desc # !subst("OP", mnemonic,
      !subst("PARAMS", params, [{ Every execution draws fresh values from
    the stateful counter-based generator. With `seed`, the op's stream is
    reproducible from the global seed and this op seed. Each dynamic
    dimension of the result takes its size from one `index` operand.

    ```mlir
    func.func @f(%n: index) -> (tensor<2x3xf32>, tensor<?x3xf32>) {
      %r = fnc.OP PARAMS seed 7 : tensor<2x3xf32>
      %d = fnc.OP [%n] PARAMS : tensor<?x3xf32>
      return %r, %d : tensor<2x3xf32>, tensor<?x3xf32>
    }
    ```
  }]));
  let results = (outs Fnc_FloatTensor:$result);
  let hasVerifier = 1;
}

def Fnc_RandomUniformOp : Fnc_RandomOp<"random_uniform", "min 0.0 max 1.0",
    "Uniformly distributed values in `[min, max)`."> {
  let summary = "Uniform random numbers";
  let cppApi = ["random_uniform"];
  let arguments = (ins F64Attr:$min, F64Attr:$max, OptionalAttr<I64Attr>:$seed,
                       Variadic<Index>:$dynamicDims);
  let assemblyFormat = "(` ` `[` $dynamicDims^ `]`)? `min` $min `max` $max "
                       "(`seed` $seed^)? attr-dict `:` type($result)";
}

def Fnc_RandomNormalOp : Fnc_RandomOp<"random_normal", "mean 0.0 stddev 1.0",
    "Normally distributed values."> {
  let summary = "Normal random numbers";
  let cppApi = ["random_normal"];
  let arguments = (ins F64Attr:$mean, F64Attr:$stddev,
                       OptionalAttr<I64Attr>:$seed,
                       Variadic<Index>:$dynamicDims);
  let assemblyFormat = "(` ` `[` $dynamicDims^ `]`)? `mean` $mean `stddev` "
                       "$stddev (`seed` $seed^)? attr-dict `:` type($result)";
}

//===----------------------------------------------------------------------===//
// Strings (fnc/Strings.h). They run on the interpreter; the compiler
// rejects modules with string tensors.
//===----------------------------------------------------------------------===//

def Fnc_StringJoinOp : Fnc_Op<"string_join", [Pure]> {
  let summary = "Elementwise concatenation of string tensors";
  let cppApi = ["strings::join"];
  let description = [{
    Concatenates the broadcast `inputs` elementwise (numpy's rule), with
    `separator` between them (tf.strings.join).

    ```mlir
    func.func @f(%a: tensor<2x!fnc.string>, %b: tensor<!fnc.string>)
        -> tensor<2x!fnc.string> {
      %j = fnc.string_join %a, %b separator " "
          : (tensor<2x!fnc.string>, tensor<!fnc.string>) -> tensor<2x!fnc.string>
      return %j : tensor<2x!fnc.string>
    }
    ```
  }];
  let arguments = (ins Variadic<Fnc_StringTensor>:$inputs, StrAttr:$separator);
  let results = (outs Fnc_StringTensor:$result);
  let assemblyFormat = "$inputs `separator` $separator attr-dict `:` "
                       "`(` type($inputs) `)` `->` type($result)";
  let hasVerifier = 1;
}

def Fnc_StringFormatOp : Fnc_Op<"string_format", [Pure]> {
  let summary = "A string of a template and the printed values of tensors";
  let cppApi = ["strings::format"];
  let description = [{
    Replaces each `placeholder` in `format` with the printed values of the
    next input, as `fnc.print` writes them (tf.strings.format); the result
    is a string scalar. There are as many placeholders as inputs.

    ```mlir
    func.func @f(%x: tensor<2xf32>) -> tensor<!fnc.string> {
      %s = fnc.string_format "x = {}" placeholder "{}" %x
          : (tensor<2xf32>) -> tensor<!fnc.string>
      return %s : tensor<!fnc.string>
    }
    ```
  }];
  let arguments = (ins StrAttr:$format, StrAttr:$placeholder,
                       Variadic<Fnc_AnyTensor>:$inputs);
  let results = (outs 0DTensorOf<[Fnc_StringType]>:$result);
  let assemblyFormat = "$format `placeholder` $placeholder $inputs "
                       "attr-dict `:` `(` type($inputs) `)` `->` type($result)";
  let hasVerifier = 1;
}

def Fnc_StringLengthOp : Fnc_Op<"string_length", [Pure]> {
  let summary = "The length of each string, in bytes or UTF-8 characters";
  let cppApi = ["strings::length"];
  let description = [{
    The int32 length of each element (tf.strings.length): bytes, or code
    points with `utf8_chars` (an element that is not valid UTF-8 is a
    run-time error).

    ```mlir
    func.func @f(%s: tensor<3x!fnc.string>) -> tensor<3xi32> {
      %n = fnc.string_length %s : tensor<3x!fnc.string> -> tensor<3xi32>
      return %n : tensor<3xi32>
    }
    ```
  }];
  let arguments = (ins Fnc_StringTensor:$input, UnitAttr:$utf8_chars);
  let results = (outs RankedTensorOf<[I32]>:$result);
  let assemblyFormat = "$input (`utf8_chars` $utf8_chars^)? attr-dict `:` "
                       "type($input) `->` type($result)";
  let hasVerifier = 1;
}

class Fnc_StringCaseOp<string mnemonic, string api, string change>
    : Fnc_Op<mnemonic, [Pure, SameOperandsAndResultType]> {
  let summary = "ASCII letters changed to " # change # " case";
  let cppApi = [api];
  let description = [{
    Changes the ASCII letters of each element; other bytes are kept.

    ```mlir
    func.func @f(%s: tensor<2x!fnc.string>) -> tensor<2x!fnc.string> {
      %u = fnc.}] # mnemonic # [{ %s : tensor<2x!fnc.string>
      return %u : tensor<2x!fnc.string>
    }
    ```
  }];
  let arguments = (ins Fnc_StringTensor:$input);
  let results = (outs Fnc_StringTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input)";
}
def Fnc_StringUpperOp
    : Fnc_StringCaseOp<"string_upper", "strings::upper", "upper">;
def Fnc_StringLowerOp
    : Fnc_StringCaseOp<"string_lower", "strings::lower", "lower">;

def Fnc_StringSplitOp : Fnc_Op<"string_split", [Pure]> {
  let summary = "Splits strings into a dense tensor of their parts";
  let cppApi = ["strings::split"];
  let description = [{
    Splits a scalar into the 1-D tensor of its parts, or each of n strings
    into a row of an [n, m] tensor padded with empty strings, m the most
    parts of any element (tf.strings.split, made dense). An empty
    `separator` splits on runs of whitespace; `maxsplit` >= 0 limits the
    splits per element. The last dim is known only at run time.

    ```mlir
    func.func @f(%s: tensor<2x!fnc.string>) -> tensor<2x?x!fnc.string> {
      %p = fnc.string_split %s separator "," maxsplit -1
          : tensor<2x!fnc.string> -> tensor<2x?x!fnc.string>
      return %p : tensor<2x?x!fnc.string>
    }
    ```
  }];
  let arguments = (ins Fnc_StringTensor:$input, StrAttr:$separator,
                       I64Attr:$maxsplit);
  let results = (outs Fnc_StringTensor:$result);
  let assemblyFormat = "$input `separator` $separator `maxsplit` $maxsplit "
                       "attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// C++ calls that stage several ops
//
// The calls of the public API that have no op of their own, or stage more
// than the op that computes their result, with every op they stage (other
// than constants, scalar broadcasts and terminators) and how. Together with
// the ops' `cppApi` they make the table of docs/ApiToOps.md; the test
// ApiToOpsTest traces every call and checks that it stages these ops.
//===----------------------------------------------------------------------===//

// `api` is the call as `cppApi` names it, `ops` the ops it stages ("fnc.cast",
// or "fnc.compare ge" for one predicate), `note` what it builds from them.
class Fnc_ApiCall<string api, list<string> ops, string note> {
  string cppApi = api;
  list<string> cppOps = ops;
  string cppApiNote = note;
}

def Fnc_ApiConstant : Fnc_ApiCall<"constant", ["fnc.constant", "fnc.cast"],
    "An eager `value` becomes a `fnc.constant`, as every tensor a trace " #
    "captures does; with a `dtype`, `fnc.cast` converts it.">;

defvar Fnc_FillOps = ["fnc.constant", "fnc.broadcast_to",
                      "fnc.broadcast_to_shape"];
defvar Fnc_FillNote = "A scalar `fnc.constant`, broadcast to a `Shape` with " #
    "`fnc.broadcast_to`, or to a shape tensor (`fnc::shape(x)`) with " #
    "`fnc.broadcast_to_shape`.";
def Fnc_ApiZeros : Fnc_ApiCall<"zeros", Fnc_FillOps, Fnc_FillNote>;
def Fnc_ApiOnes : Fnc_ApiCall<"ones", Fnc_FillOps, Fnc_FillNote>;
def Fnc_ApiFill : Fnc_ApiCall<"fill", Fnc_FillOps, Fnc_FillNote>;

defvar Fnc_FillLikeOps = ["fnc.constant", "fnc.broadcast_to", "fnc.shape_of",
                          "fnc.broadcast_to_shape"];
defvar Fnc_FillLikeNote = "A scalar `fnc.constant` broadcast to the shape " #
    "of `x`: `fnc.broadcast_to` when it is known while tracing, else " #
    "`fnc.broadcast_to_shape` of its `fnc.shape_of`.";
def Fnc_ApiZerosLike
    : Fnc_ApiCall<"zeros_like", Fnc_FillLikeOps, Fnc_FillLikeNote>;
def Fnc_ApiOnesLike
    : Fnc_ApiCall<"ones_like", Fnc_FillLikeOps, Fnc_FillLikeNote>;

def Fnc_ApiReduceAny : Fnc_ApiCall<"reduce_any",
    ["fnc.logical_not", "fnc.cast", "fnc.min"],
    "`!reduce_all(!x)`: false over an empty axis, where a `fnc.max` of " #
    "the tensor cast to a number would give the integer's lowest value.">;
def Fnc_ApiReduceAll : Fnc_ApiCall<"reduce_all", ["fnc.cast", "fnc.min"],
    "The bool tensor cast to a number, reduced with `fnc.min`, cast back.">;
def Fnc_ApiArgmin : Fnc_ApiCall<"argmin", ["fnc.neg", "fnc.argmax"],
    "`fnc.argmax` of the negated tensor.">;

def Fnc_ApiDropout : Fnc_ApiCall<"dropout",
    ["fnc.random_uniform", "fnc.compare ge", "fnc.cast", "fnc.mul"],
    "`x` times the mask `uniform >= rate` (cast to x's dtype), scaled by " #
    "`1 / (1 - rate)`.">;

def Fnc_ApiSwitchCase : Fnc_ApiCall<"switch_case",
    ["fnc.compare eq", "fnc.cond"],
    "A chain of `fnc.cond`, one per branch but the last, each comparing the " #
    "index with the branch number.">;
def Fnc_ApiForRange : Fnc_ApiCall<"for_range",
    ["fnc.while", "fnc.compare", "fnc.add"],
    "A `fnc.while` carrying the counter: its cond region compares it with " #
    "`limit`, its body adds `delta`.">;

defvar Fnc_VarUpdateNote = "Updates the variable, then reads the new value " #
    "(the call's result) with `fnc.var_read`.";
def Fnc_ApiVarAssign : Fnc_ApiCall<"Variable::assign",
    ["fnc.var_assign", "fnc.var_read"], Fnc_VarUpdateNote>;
def Fnc_ApiVarAssignAdd : Fnc_ApiCall<"Variable::assign_add",
    ["fnc.var_assign_add", "fnc.var_read"], Fnc_VarUpdateNote>;
def Fnc_ApiVarAssignSub : Fnc_ApiCall<"Variable::assign_sub",
    ["fnc.var_assign_sub", "fnc.var_read"], Fnc_VarUpdateNote>;

def Fnc_ApiTensorArrayWrite : Fnc_ApiCall<"TensorArray::write",
    ["fnc.set_row", "fnc.broadcast_to"],
    "With an index known only at run time, or in a loop that carries the " #
    "array, the array is a `[size, ...]` tensor (zeros from " #
    "`fnc.broadcast_to`) and a bool mask of the written rows, and a write " #
    "sets a row of both. With a C++ index outside loops the array is a " #
    "list of tensors and a write stages nothing.">;
def Fnc_ApiTensorArrayRead : Fnc_ApiCall<"TensorArray::read",
    ["fnc.gather", "fnc.set_row"],
    "Gathers a row of the array in tensor form (see `write`); with an index " #
    "known only at run time a list is converted first, one `fnc.set_row` " #
    "per element. A C++ index into a list is the element itself.">;
def Fnc_ApiTensorArrayStack : Fnc_ApiCall<"TensorArray::stack",
    ["fnc.reshape", "fnc.concat"],
    "A list: each element reshaped to `[1, ...]`, then concatenated; an " #
    "array in tensor form is its tensor.">;

// Ops built from other ops (lib/API/Composites.cpp).
def Fnc_ApiStack : Fnc_ApiCall<"stack", ["fnc.expand_dims", "fnc.concat"],
    "Each tensor gets a dim of size 1 at `axis`, then they are " #
    "concatenated along it.">;
def Fnc_ApiUnstack : Fnc_ApiCall<"unstack", ["fnc.slice", "fnc.squeeze"],
    "One `fnc.slice` of size 1 along `axis` per result, squeezed.">;
def Fnc_ApiSplit : Fnc_ApiCall<"split", ["fnc.slice"],
    "One `fnc.slice` per part.">;
def Fnc_ApiTile : Fnc_ApiCall<"tile",
    ["fnc.expand_dims", "fnc.broadcast_to", "fnc.reshape", "fnc.shape_of",
     "fnc.concat", "fnc.mul", "fnc.broadcast_to_shape",
     "fnc.reshape_to_shape"],
    "`x` as `[1, d0, 1, d1, ...]` broadcast to `[m0, d0, m1, d1, ...]` and " #
    "reshaped to `[m0 * d0, ...]`; with dims unknown while tracing, the " #
    "shapes are computed from `fnc.shape_of` (`fnc.broadcast_to_shape`, " #
    "`fnc.reshape_to_shape`).">;
def Fnc_ApiClipByValue : Fnc_ApiCall<"clip_by_value",
    ["fnc.minimum", "fnc.maximum"],
    "`maximum(minimum(x, hi), lo)`, as TensorFlow.">;
def Fnc_ApiGlobalNorm : Fnc_ApiCall<"global_norm",
    ["fnc.square", "fnc.sum", "fnc.add", "fnc.sqrt"],
    "The square root of the sum of each tensor's sum of squares.">;
def Fnc_ApiClipByGlobalNorm : Fnc_ApiCall<"clip_by_global_norm",
    ["fnc.square", "fnc.sum", "fnc.add", "fnc.sqrt", "fnc.div",
     "fnc.minimum", "fnc.mul", "fnc.sub"],
    "`global_norm`, then each tensor times `clip_norm * minimum(1 / norm, " #
    "1 / clip_norm) + (norm - norm)` (NaN for a norm of inf or NaN).">;
def Fnc_ApiMoments : Fnc_ApiCall<"moments",
    ["fnc.mean", "fnc.sub", "fnc.square", "fnc.squeeze"],
    "The mean (kept dims), the mean of the squared deviations from it, " #
    "squeezed unless `keepdims`.">;
def Fnc_ApiTopK : Fnc_ApiCall<"top_k",
    ["fnc.range", "fnc.neg", "fnc.max", "fnc.compare eq", "fnc.compare ne",
     "fnc.logical_and", "fnc.logical_or", "fnc.logical_not", "fnc.cast",
     "fnc.argmax", "fnc.expand_dims", "fnc.select", "fnc.sum",
     "fnc.concat"],
    "k rounds, each the `fnc.max` of the row with the elements taken so " #
    "far set to the lowest value (`fnc.select`), the first element equal " #
    "to it (or NaN where it is NaN) not taken yet (`fnc.argmax` of a " #
    "`fnc.cast` mask), its value a `fnc.sum` of the row selected at it; " #
    "the rounds' results stacked (`fnc.expand_dims`, `fnc.concat`).">;
// Scatters (lib/Trace/Scatter.cpp).
defvar Fnc_ScatterOps = ["fnc.cast", "fnc.reshape", "fnc.slice",
                         "fnc.squeeze", "fnc.range", "fnc.gather",
                         "fnc.mul", "fnc.add", "fnc.one_hot",
                         "fnc.transpose", "fnc.compare eq",
                         "fnc.compare ne", "fnc.abs", "fnc.neg",
                         "fnc.logical_and", "fnc.logical_or",
                         "fnc.logical_not", "fnc.select", "fnc.concat",
                         "fnc.matmul", "fnc.compare gt"];
defvar Fnc_ScatterNote = "Each index row's flat position (a `fnc.gather` " #
    "of each dim's `fnc.range` checks its number at run time) as a " #
    "`fnc.one_hot` row; the transposed rows times the updates " #
    "(`fnc.matmul`) sum the updates at their positions, with counts of " #
    "+inf, -inf and NaN updates in the same matmul (`fnc.concat`) so that " #
    "they reach only theirs (`fnc.select`).";
def Fnc_ApiScatterNd : Fnc_ApiCall<"scatter_nd", Fnc_ScatterOps,
                                   Fnc_ScatterNote>;
def Fnc_ApiTensorScatterNdAdd : Fnc_ApiCall<"tensor_scatter_nd_add",
    Fnc_ScatterOps, Fnc_ScatterNote # " Added to the tensor.">;
def Fnc_ApiTensorScatterNdUpdate : Fnc_ApiCall<"tensor_scatter_nd_update",
    !listconcat(Fnc_ScatterOps, ["fnc.expand_dims", "fnc.compare ge",
                                 "fnc.sub", "fnc.min", "fnc.sum"]),
    Fnc_ScatterNote # " A row whose position a later row repeats is " #
    "dropped first (`triu` of the rows' equality matrix, `fnc.any`); the " #
    "tensor is kept where no row lands (`fnc.sum` of the one-hot rows, " #
    "`fnc.select`).">;
def Fnc_ApiEinsum : Fnc_ApiCall<"einsum",
    ["fnc.transpose", "fnc.matmul", "fnc.reshape", "fnc.sum", "fnc.mul",
     "fnc.expand_dims", "fnc.eye", "fnc.cast", "fnc.select",
     "fnc.shape_of", "fnc.slice", "fnc.prod", "fnc.concat",
     "fnc.reshape_to_shape"],
    "Each pair of operands, left to right, transposed to `[batch..., M, K]` " #
    "and `[batch..., K, N]` (several dims merged by `fnc.reshape`, or " #
    "`fnc.reshape_to_shape` of sizes read at run time) and multiplied by " #
    "`fnc.matmul`, or by a broadcasting `fnc.mul` when nothing is summed; " #
    "labels only one operand has are summed first (`fnc.sum`), a label " #
    "repeated in a term is the diagonal (`fnc.select` with a constant " #
    "identity mask, then `fnc.sum`).">;

// Ops built from other ops that loop where a dim is unknown while tracing
// (lib/Trace/Scans.cpp).
defvar Fnc_ScanOps = ["fnc.strided_slice", "fnc.pad", "fnc.slice",
                      "fnc.shape_of", "fnc.while", "fnc.compare lt",
                      "fnc.mul", "fnc.add", "fnc.broadcast_to_shape",
                      "fnc.sub", "fnc.dynamic_slice", "fnc.concat",
                      "fnc.reshape"];
defvar Fnc_ScanNote = "Doubling steps (Hillis and Steele): `x` combined " #
    "with itself shifted by 1, 2, 4, ... along `axis` (`fnc.pad` of a " #
    "`fnc.slice`); along a dim unknown while tracing a `fnc.while` over the " #
    "shifts (`fnc.concat` of a `fnc.broadcast_to_shape` of the identity and " #
    "a `fnc.dynamic_slice`). `exclusive` and `reverse` are strided slices.";
def Fnc_ApiCumsum : Fnc_ApiCall<"cumsum", Fnc_ScanOps, Fnc_ScanNote>;
def Fnc_ApiCumprod : Fnc_ApiCall<"cumprod", Fnc_ScanOps, Fnc_ScanNote>;
defvar Fnc_BandOps = !listconcat(Fnc_ScanOps, ["fnc.range", "fnc.expand_dims",
                                               "fnc.logical_and",
                                               "fnc.select"]);
defvar Fnc_BandNote = "`select(keep, x, 0)`, `keep` comparing column - row " #
    "(from `fnc.range`, or a `cumsum` of ones along a dim unknown while " #
    "tracing) with the bounds.";
def Fnc_ApiBandPart : Fnc_ApiCall<"band_part",
    !listconcat(Fnc_BandOps, ["fnc.compare ge", "fnc.compare le"]),
    Fnc_BandNote>;
def Fnc_ApiTril : Fnc_ApiCall<"tril",
    !listconcat(Fnc_BandOps, ["fnc.compare le"]), Fnc_BandNote>;
def Fnc_ApiTriu : Fnc_ApiCall<"triu",
    !listconcat(Fnc_BandOps, ["fnc.compare ge"]), Fnc_BandNote>;

#endif // FNC_OPS
