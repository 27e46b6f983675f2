// RUN: fnc-opt %s -split-input-file -fnc-lower-to-linalg -canonicalize -fnc-fuse-elementwise -cse | FileCheck %s

// Each intermediate feeds two ops; all are cheap and elementwise, so every
// consumer recomputes its producers: one loop, no intermediate tensor.
// CHECK-LABEL: func @shared_chain
func.func @shared_chain(%a: tensor<64xf32>) -> tensor<64xf32> {
  // CHECK: linalg.generic
  // CHECK: math.exp
  // CHECK-NOT: math.exp
  // CHECK-NOT: linalg.generic
  // CHECK: return
  %t = fnc.exp %a : tensor<64xf32>
  %u = fnc.mul %t, %t : tensor<64xf32>, tensor<64xf32>
  %v = fnc.add %u, %t : tensor<64xf32>, tensor<64xf32>
  %w = fnc.sub %v, %u : tensor<64xf32>, tensor<64xf32>
  return %w : tensor<64xf32>
}

// -----

// A producer also read by a reduction keeps its tensor (the reduction
// needs it anyway): its elementwise users read it instead of recomputing.
// CHECK-LABEL: func @shared_with_reduction
func.func @shared_with_reduction(%a: tensor<64xf32>) -> (tensor<64xf32>, tensor<f32>) {
  // CHECK: %[[T:.*]] = linalg.generic
  // CHECK: math.exp
  // CHECK: linalg.generic {{.*}} ins(%[[T]]
  // CHECK: linalg.generic {{.*}} ins(%[[T]]
  %t = fnc.exp %a : tensor<64xf32>
  %u = fnc.mul %t, %a : tensor<64xf32>, tensor<64xf32>
  %s = fnc.sum %t axes [] : tensor<64xf32>
  return %u, %s : tensor<64xf32>, tensor<f32>
}

// -----

// The scalar work of an elementwise op (Adam's bias correction: a power of
// a 0-d step count) runs once before the loop, not once per element.
// CHECK-LABEL: func @scalar_work_outside
// CHECK-SAME: %[[T:[a-z0-9]+]]: tensor<f32>
func.func @scalar_work_outside(%x: tensor<4x8xf32>, %t: tensor<f32>) -> tensor<4x8xf32> {
  // CHECK: %[[S:.*]] = tensor.extract %[[T]][]
  // CHECK: math.powf %{{.*}}, %[[S]]
  // CHECK: %[[P:.*]] = arith.select
  // CHECK: linalg.generic
  // CHECK-NOT: math.powf
  // CHECK: arith.mulf %{{.*}}, %[[P]]
  // CHECK-NOT: math.powf
  // CHECK: return
  %b = fnc.constant dense<0.9> : tensor<f32>
  %p = fnc.pow %b, %t : tensor<f32>, tensor<f32>
  %r = fnc.mul %x, %p : tensor<4x8xf32>, tensor<f32>
  return %r : tensor<4x8xf32>
}

// -----

// A dense layer feeding another: the first layer's bias and relu stay an
// elementwise op of their own (they may fuse with what comes before them,
// but not into the second matmul, where they would run again for every
// column), and both matmuls stay plain contractions.
// CHECK-LABEL: func @layer_into_matmul
func.func @layer_into_matmul(%x: tensor<8x16xf32>, %w1: tensor<16x32xf32>, %b1: tensor<32xf32>, %w2: tensor<32x4xf32>) -> tensor<8x4xf32> {
  // CHECK: linalg.generic
  // CHECK-SAME: iterator_types = ["parallel", "reduction", "parallel"]
  // CHECK-NEXT: ^bb0
  // CHECK-NEXT: arith.mulf
  // CHECK-NEXT: arith.addf
  // CHECK-NEXT: linalg.yield
  // CHECK: linalg.generic
  // CHECK-SAME: iterator_types = ["parallel", "parallel"]
  // CHECK: arith.maximumf
  // CHECK: linalg.generic
  // CHECK-SAME: iterator_types = ["parallel", "reduction", "parallel"]
  // CHECK-NEXT: ^bb0
  // CHECK-NEXT: arith.mulf
  // CHECK-NEXT: arith.addf
  // CHECK-NEXT: linalg.yield
  %h = fnc.matmul %x, %w1 : tensor<8x16xf32>, tensor<16x32xf32>
  %z = fnc.add %h, %b1 : tensor<8x32xf32>, tensor<32xf32>
  %r = fnc.relu %z : tensor<8x32xf32>
  %y = fnc.matmul %r, %w2 : tensor<8x32xf32>, tensor<32x4xf32>
  return %y : tensor<8x4xf32>
}
