// RUN: fnc-opt %s -fnc-math-to-intrinsics | FileCheck %s
// RUN: fnc-opt %s -fnc-math-to-intrinsics -convert-math-to-libm \
// RUN:   | FileCheck %s --check-prefix=LIBM

// The rounding ops become LLVM intrinsics on scalars and vectors, so that
// convert-math-to-libm leaves no floorf/ceilf call in a loop; other math
// ops are untouched.
// CHECK-LABEL: func @rounding
// CHECK: llvm.intr.floor(%{{.*}}) : (f32) -> f32
// CHECK: llvm.intr.ceil(%{{.*}}) : (f64) -> f64
// CHECK: llvm.intr.trunc(%{{.*}}) : (vector<8xf32>) -> vector<8xf32>
// CHECK: llvm.intr.round(%{{.*}}) : (f32) -> f32
// CHECK: llvm.intr.roundeven(%{{.*}}) : (f32) -> f32
// CHECK: math.sin
// CHECK-NOT: math.floor
// LIBM-NOT: call @floorf
// LIBM-NOT: call @ceilf
// LIBM: call @sinf
func.func @rounding(%a: f32, %b: f64, %v: vector<8xf32>)
    -> (f32, f64, vector<8xf32>, f32, f32, f32) {
  %0 = math.floor %a : f32
  %1 = math.ceil %b : f64
  %2 = math.trunc %v : vector<8xf32>
  %3 = math.round %a : f32
  %4 = math.roundeven %a : f32
  %5 = math.sin %a : f32
  return %0, %1, %2, %3, %4, %5 : f32, f64, vector<8xf32>, f32, f32, f32
}
