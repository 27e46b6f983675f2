// RUN: fnc-opt %s -fnc-approximate-math | FileCheck %s
// RUN: fnc-opt %s -fnc-pipeline | FileCheck %s --check-prefix=PIPE
// RUN: fnc-opt %s -fnc-pipeline="fast-math=false" | FileCheck %s --check-prefix=EXACT

// f32 tanh becomes arith ops with contractable multiply-adds; no math.fma is
// left for convert-math-to-libm to turn into fmaf calls. f64 keeps math.tanh.
// The polynomials in t = x^2 go by Estrin's scheme: t, t^2 and t^4 first.
// CHECK-LABEL: func @scalars
// CHECK-NOT: math.tanh
// CHECK-NOT: math.fma
// CHECK: %[[T:.*]] = arith.mulf %[[X:.*]], %[[X]] : f32
// CHECK: %[[T2:.*]] = arith.mulf %[[T]], %[[T]] : f32
// CHECK: arith.mulf %[[T2]], %[[T2]] : f32
// CHECK: arith.mulf {{.*}} fastmath<contract>
// CHECK: arith.addf {{.*}} fastmath<contract>
// CHECK: arith.divf
// CHECK: math.tanh {{.*}} : f64
// CHECK: return
func.func @scalars(%x: f32, %y: f64) -> (f32, f64) {
  %0 = math.tanh %x : f32
  %1 = math.tanh %y : f64
  return %0, %1 : f32, f64
}

// Through the whole pipeline: no call of tanhf or fmaf under fast-math
// (the default); fast-math=false keeps libm's tanhf.
// PIPE-LABEL: llvm.func @tensor_tanh
// PIPE-NOT: tanhf
// PIPE-NOT: fmaf
// EXACT-LABEL: llvm.func @tensor_tanh
// EXACT: llvm.call @tanhf
func.func @tensor_tanh(%x: tensor<16xf32>) -> tensor<16xf32> {
  %0 = fnc.tanh %x : tensor<16xf32>
  return %0 : tensor<16xf32>
}
