// String tensors run with --interpret: inputs as literals (bare or quoted)
// and .npy files (numpy's <U), results printed or written as .npy; the JIT
// refuses them with a clear error.
// RUN: fnc-run %s --interpret '--input=2x!fnc.string="a, b",c' | FileCheck %s
// RUN: rm -rf %t && mkdir -p %t
// RUN: fnc-run %s --interpret '--input=2x!fnc.string=x,"y\"z"' --output=@%t/out.npy --output=@%t/n.npy
// RUN: fnc-run %s --interpret --input=@%t/out.npy | FileCheck %s --check-prefix=NPY
// RUN: not fnc-run %s '--input=2x!fnc.string=a,b' 2>&1 | FileCheck %s --check-prefix=JIT
// RUN: not fnc-run %s --interpret '--input=2x!fnc.string="a' 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: not fnc-run %s --interpret '--input=2x!fnc.string=a,b,c' 2>&1 | FileCheck %s --check-prefix=COUNT

func.func @main(%s: tensor<2x!fnc.string>) -> (tensor<2x!fnc.string>, tensor<2xi32>) {
  %bang = fnc.constant dense<"!"> : tensor<!fnc.string>
  %j = fnc.string_join %s, %bang separator ""
      : (tensor<2x!fnc.string>, tensor<!fnc.string>) -> tensor<2x!fnc.string>
  %u = fnc.string_upper %j : tensor<2x!fnc.string>
  %n = fnc.string_length %s : tensor<2x!fnc.string> -> tensor<2xi32>
  return %u, %n : tensor<2x!fnc.string>, tensor<2xi32>
}

// CHECK: fnc.Tensor([b'A, B!' b'C!'], shape=(2,), dtype=string)
// CHECK: fnc.Tensor([4 1], shape=(2,), dtype=int32)
// NPY: fnc.Tensor([b'X!!' b'Y"Z!!'], shape=(2,), dtype=string)
// JIT: strings.mlir:13:11: error: string tensors ('tensor<!fnc.string>') are not compiled; run the module with the interpreter
// BAD: --input #0 {{.*}}: an unterminated " in the strings of '2x!fnc.string'
// COUNT: '2x!fnc.string' has 2 elements but 3 strings were given
