// RUN: fnc-opt %s -split-input-file -fnc-lower-to-linalg | FileCheck %s
// RUN: fnc-opt %s -split-input-file -fnc-lower-to-linalg=fast-math=false | FileCheck %s --check-prefix=STRICT

// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[KEEP:.*]] = affine_map<(d0, d1) -> (d0, 0)>
// CHECK-LABEL: func @sum_keepdims
func.func @sum_keepdims(%a: tensor<2x?xf32>) -> tensor<2x1xf32> {
  // CHECK: %[[INIT:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<2x1xf32>)
  // CHECK: linalg.generic {indexing_maps = [#[[ID]], #[[KEEP]]], iterator_types = ["parallel", "reduction"]}
  // CHECK-SAME: outs(%[[INIT]] : tensor<2x1xf32>)
  // Reassociation lets the reduction vectorize; without fast-math it is strict.
  // CHECK: arith.addf %{{.*}}, %{{.*}} fastmath<reassoc> : f32
  // STRICT-NOT: fastmath<reassoc>
  %0 = fnc.sum %a axes [-1] keepdims : tensor<2x?xf32>
  return %0 : tensor<2x1xf32>
}

// -----

// CHECK-LABEL: func @mean_all
func.func @mean_all(%a: tensor<2x?xf32>) -> tensor<f32> {
  // CHECK: linalg.generic {{.*}} iterator_types = ["reduction", "reduction"]
  // CHECK: %[[N:.*]] = arith.uitofp %{{.*}} : i64 to f32
  // CHECK: linalg.generic
  // CHECK: arith.divf %{{.*}}, %[[N]] : f32
  %0 = fnc.mean %a axes [] : tensor<2x?xf32>
  return %0 : tensor<f32>
}

// -----

// The identities of max and min are the extremes of the dtype.
// CHECK-LABEL: func @max_min_int
func.func @max_min_int(%a: tensor<3x4xi32>) -> (tensor<4xi32>, tensor<4xi32>) {
  // CHECK: arith.constant -2147483648 : i32
  // CHECK: arith.maxsi
  // CHECK: arith.constant 2147483647 : i32
  // CHECK: arith.minsi
  %0 = fnc.max %a axes [0] : tensor<3x4xi32>
  %1 = fnc.min %a axes [0] : tensor<3x4xi32>
  return %0, %1 : tensor<4xi32>, tensor<4xi32>
}

// -----

// argmax carries (best value, best index) and keeps the first maximum; the
// first NaN wins (it takes the place of a number, never of a NaN).
// CHECK-LABEL: func @argmax
func.func @argmax(%a: tensor<3x4xf32>) -> tensor<3xi64> {
  // CHECK: %[[R:.*]]:2 = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]
  // CHECK-SAME: outs(%{{.*}}, %{{.*}} : tensor<3xf32>, tensor<3xi64>)
  // CHECK: %[[NAN:.*]] = arith.cmpf uno, %[[X:.*]], %[[X]]
  // CHECK: %[[NUM:.*]] = arith.cmpf ord, %[[B:.*]], %[[B]]
  // CHECK: %[[FIRST:.*]] = arith.andi %[[NAN]], %[[NUM]]
  // CHECK: %[[CMP:.*]] = arith.cmpf ogt
  // CHECK: %[[GT:.*]] = arith.ori %[[CMP]], %[[FIRST]]
  // CHECK: linalg.index 1
  // CHECK: arith.select %[[GT]]
  // CHECK: return %[[R]]#1
  %0 = fnc.argmax %a axis 1 : tensor<3x4xf32> -> tensor<3xi64>
  return %0 : tensor<3xi64>
}

// -----

// softmax subtracts the row maximum before exponentiating.
// CHECK-LABEL: func @softmax
func.func @softmax(%a: tensor<2x5xf32>) -> tensor<2x5xf32> {
  // CHECK: arith.maximumf
  // CHECK: arith.subf
  // CHECK: math.exp
  // CHECK: arith.addf
  // CHECK: arith.divf
  %0 = fnc.softmax %a axis -1 : tensor<2x5xf32>
  return %0 : tensor<2x5xf32>
}

// -----

// Batched matmul with a broadcast rhs: loops (b, m, k, n), the innermost
// walking rows of the rhs and the result.
// CHECK-DAG: #[[A:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
// CHECK-DAG: #[[B:.*]] = affine_map<(d0, d1, d2, d3) -> (d2, d3)>
// CHECK-DAG: #[[C:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
// CHECK-LABEL: func @matmul
func.func @matmul(%a: tensor<8x2x3xf32>, %b: tensor<3x4xf32>) -> tensor<8x2x4xf32> {
  // CHECK: linalg.generic {indexing_maps = [#[[A]], #[[B]], #[[C]]], iterator_types = ["parallel", "parallel", "reduction", "parallel"]}
  // CHECK: arith.mulf
  // CHECK: arith.addf
  %0 = fnc.matmul %a, %b : tensor<8x2x3xf32>, tensor<3x4xf32>
  return %0 : tensor<8x2x4xf32>
}

// -----

// An unknown inner dimension is checked before any element is read.
// CHECK-LABEL: func @matmul_dynamic_k
func.func @matmul_dynamic_k(%a: tensor<2x?xf32>, %b: tensor<?x4xf32>) -> tensor<2x4xf32> {
  // CHECK: %[[NE:.*]] = arith.cmpi ne
  // CHECK: func.call @fncRaiseError
  // CHECK: scf.if %[[NE]] -> (tensor<2x4xf32>)
  %0 = fnc.matmul %a, %b : tensor<2x?xf32>, tensor<?x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// SAME padding pads the input (TF: the odd pixel after), then convolves
// with loops (n, oh, ow, kh, kw, c, f), strides in the input map.
// CHECK-DAG: #[[IN:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1 * 2 + d3, d2 * 2 + d4, d5)>
// CHECK-DAG: #[[FILTER:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d3, d4, d5, d6)>
// CHECK-DAG: #[[OUT:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d6)>
// CHECK-LABEL: func @conv_same
func.func @conv_same(%x: tensor<1x6x5x3xf32>, %w: tensor<3x3x3x8xf32>) -> tensor<1x3x3x8xf32> {
  // CHECK: %[[P:.*]] = tensor.pad %{{.*}} low[0, 0, 1, 0] high[0, 1, 1, 0]
  // CHECK: linalg.generic {indexing_maps = [#[[IN]], #[[FILTER]], #[[OUT]]], iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction", "reduction", "parallel"]}
  // CHECK-SAME: ins(%[[P]], %{{.*}} : tensor<1x7x7x3xf32>, tensor<3x3x3x8xf32>)
  %0 = fnc.conv2d %x, %w strides [2, 2] padding same : tensor<1x6x5x3xf32>, tensor<3x3x3x8xf32>
  return %0 : tensor<1x3x3x8xf32>
}

// -----

// CHECK-LABEL: func @conv_valid
func.func @conv_valid(%x: tensor<2x7x6x3xf32>, %w: tensor<3x2x3x4xf32>) -> tensor<2x3x5x4xf32> {
  // CHECK-NOT: tensor.pad
  // CHECK: linalg.generic
  // CHECK-SAME: ins(%{{.*}}, %{{.*}} : tensor<2x7x6x3xf32>, tensor<3x2x3x4xf32>)
  %0 = fnc.conv2d %x, %w strides [2, 1] padding valid : tensor<2x7x6x3xf32>, tensor<3x2x3x4xf32>
  return %0 : tensor<2x3x5x4xf32>
}
