// --check-numerics reports the first op that produced a NaN or an Inf,
// with its location; without it the NaN is simply returned.
// RUN: not fnc-run %s --check-numerics --input=3xf32=1,0,-1 2>&1 | FileCheck %s --check-prefix=CHECKED
// RUN: fnc-run %s --input=3xf32=1,0,-1 | FileCheck %s --check-prefix=PLAIN
// RUN: fnc-run %s --check-numerics --input=3xf32=1,2,3 | FileCheck %s --check-prefix=FINE
// RUN: fnc-opt %s -fnc-check-numerics | FileCheck %s --check-prefix=PASS

// CHECKED: fnc-run: error: {{.*}}check_numerics: fnc.log (op #1 of @main) at {{.*}}check-numerics.mlir:16:8 produced NaN or Inf
// PLAIN: fnc.Tensor([ 0. nan nan], shape=(3,), dtype=float32)
// FINE: fnc.Tensor([0.         0.69314724 1.0986123 ], shape=(3,), dtype=float32)
// PASS: %[[L:.*]] = fnc.log
// PASS-NEXT: fnc.check_numerics %[[L]] "fnc.log (op #1 of @main) at
// PASS: %[[S:.*]] = fnc.sqrt
// PASS-NEXT: fnc.check_numerics %[[S]] "fnc.sqrt (op #2 of @main) at
func.func @main(%x: tensor<3xf32>) -> tensor<3xf32> {
  %l = fnc.log %x : tensor<3xf32>
  %s = fnc.sqrt %l : tensor<3xf32>
  %r = fnc.mul %s, %s : tensor<3xf32>, tensor<3xf32>
  return %r : tensor<3xf32>
}
