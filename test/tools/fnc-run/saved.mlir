// A file in fnc::save's format (docs/Saved.md): variables whose values are
// dense resources (binary, at the end of the file) bound to the function's
// arguments, and the metadata fnc::load reads. fnc-run runs it like any
// module, compiled or interpreted; a resource of the wrong size is an
// error that names the variable.
// RUN: fnc-run %s --input=2x3xf32=1 | FileCheck %s
// RUN: fnc-run %s --input=2x3xf32=1 --interpret | FileCheck %s
// RUN: sed 's/0000C0400000E04000000041000010410000204100003041"/"/' %s \
// RUN:   > %t.mlir
// RUN: not fnc-run %t.mlir --input=2x3xf32=1 2>&1 | FileCheck %s --check-prefix=SHORT
// RUN: not fnc-run %t.mlir --input=2x3xf32=1 --interpret 2>&1 \
// RUN:   | FileCheck %s --check-prefix=SHORT-INTERP

// x @ w + b with w = [[0 1 2 3] [4 5 6 7] [8 9 10 11]] and b = 10: each
// row of ones gives the column sums of w plus 10; `steps` counts calls.
// CHECK: fnc.Tensor(
// CHECK-NEXT: {{\[\[}}22. 25. 28. 31.]
// CHECK-NEXT:  [22. 25. 28. 31.]], shape=(2, 4), dtype=float32)
// SHORT: fnc-run: error: fnc.global_variable @dense/kernel: the dense resource of its initial value holds 24 bytes; tensor<3x4xf32> needs 48
// SHORT-INTERP: error: {{.*}}initial value of @dense/kernel: the dense resource of the constant of type tensor<3x4xf32> is missing or holds 24 bytes instead of 48

module attributes {fnc.saved = {format = 1 : i64}} {
  fnc.global_variable @"dense/kernel" = dense_resource<dense_kernel> : tensor<3x4xf32>
  fnc.global_variable @"dense/bias" = dense<10.0> : tensor<4xf32>
  fnc.global_variable @steps = dense<0> : tensor<i64>
  func.func @predict(%x: tensor<?x3xf32>,
                     %w: !fnc.variable<tensor<3x4xf32>> {fnc.bind = @"dense/kernel"},
                     %b: !fnc.variable<tensor<4xf32>> {fnc.bind = @"dense/bias"},
                     %s: !fnc.variable<tensor<i64>> {fnc.bind = @steps})
      -> tensor<?x4xf32>
      attributes {fnc.arg_names = ["x"], fnc.check_numerics = false,
                  fnc.fast_math = true, fnc.function = "predict",
                  fnc.results = "tensor"} {
    %one = fnc.constant dense<1> : tensor<i64>
    fnc.var_assign_add %s, %one : !fnc.variable<tensor<i64>>
    %wv = fnc.var_read %w : !fnc.variable<tensor<3x4xf32>>
    %bv = fnc.var_read %b : !fnc.variable<tensor<4xf32>>
    %y = fnc.matmul %x, %wv : tensor<?x3xf32>, tensor<3x4xf32>
    %r = fnc.add %y, %bv : tensor<?x4xf32>, tensor<4xf32>
    return %r : tensor<?x4xf32>
  }
}

{-#
  dialect_resources: {
    builtin: {
      dense_kernel: "0x08000000000000000000803F0000004000004040000080400000A0400000C0400000E04000000041000010410000204100003041"
    }
  }
#-}
