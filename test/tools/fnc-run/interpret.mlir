// --interpret runs the module with the reference interpreter instead of the
// JIT, with the same inputs, outputs and errors.
// RUN: fnc-run %s --interpret --input=2x3xf32=1,2,3,4,5,6 --input=3xf32=10,20,30 \
// RUN:   | FileCheck %s
// RUN: fnc-run %s --interpret --input=2x3xf32=1,2,3,4,5,6 --input=3xf32=1 --benchmark=3 \
// RUN:   | FileCheck %s --check-prefix=BENCH
// RUN: not fnc-run %s --interpret --input=2x3xf32=1,2,3,4,5,6 --input=4xf32=1,2,3,4 2>&1 \
// RUN:   | FileCheck %s --check-prefix=ERR

// CHECK: fnc.Tensor(
// CHECK-NEXT: {{\[\[}}11. 22. 33.]
// CHECK-NEXT: [14. 25. 36.]], shape=(2, 3), dtype=float32)

// BENCH: compile: {{[0-9.]+ (ns|us|ms|s)}}
// BENCH-NEXT: calls: 3, median

// ERR: fnc-run: error: --input #1 for argument #1 of @main: expected tensor<3xf32>, got tensor<4xf32>

func.func @main(%x: tensor<2x3xf32>, %y: tensor<3xf32>) -> tensor<2x3xf32> {
  %z = fnc.add %x, %y : tensor<2x3xf32>, tensor<3xf32>
  return %z : tensor<2x3xf32>
}
