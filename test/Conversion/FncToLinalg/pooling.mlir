// RUN: fnc-opt %s -split-input-file -fnc-lower-to-linalg | FileCheck %s

// Max pooling of small windows: a generic over the output elements whose
// body reads the window's taps (row-major) and takes their maximum in
// registers, -inf first. Loops (n, oh, ow, unit, c): the unit reduction
// loop keeps the channels the innermost sequential loop once lowered to
// loops. VALID: no padding.
// CHECK-LABEL: func @max_valid
func.func @max_valid(%x: tensor<2x6x6x3xf32>) -> tensor<2x3x3x3xf32> {
  // CHECK-NOT: tensor.pad
  // CHECK: linalg.generic
  // CHECK-SAME: iterator_types = ["parallel", "parallel", "parallel", "reduction", "parallel"]
  // CHECK-SAME: outs(%{{.*}} : tensor<2x3x3x3xf32>)
  // CHECK: %[[NEGINF:.*]] = arith.constant 0xFF800000 : f32
  // CHECK: %[[X0:.*]] = tensor.extract %{{.*}} : tensor<2x6x6x3xf32>
  // CHECK: %[[M0:.*]] = arith.maximumf %[[NEGINF]], %[[X0]]
  // CHECK-COUNT-3: arith.maximumf
  // CHECK-NOT: arith.maximumf
  // CHECK: linalg.yield
  %0 = fnc.max_pool2d %x ksize [2, 2] strides [2, 2] padding valid : tensor<2x6x6x3xf32>
  return %0 : tensor<2x3x3x3xf32>
}

// -----

// Larger windows: a window generic with loops (n, oh, ow, kh, kw, c), the
// strides in the input map and the [kh, kw] window operand giving the
// window loops their sizes; -inf is the identity.
// CHECK-DAG: #[[IN:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1 * 2 + d3, d2 + d4, d5)>
// CHECK-DAG: #[[WIN:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d3, d4)>
// CHECK-DAG: #[[OUT:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d5)>
// CHECK-LABEL: func @max_large_window
func.func @max_large_window(%x: tensor<2x8x6x3xf32>) -> tensor<2x3x4x3xf32> {
  // CHECK: %[[NEGINF:.*]] = arith.constant 0xFF800000 : f32
  // CHECK: %[[INIT:.*]] = linalg.fill ins(%[[NEGINF]] : f32)
  // CHECK: linalg.generic {indexing_maps = [#[[IN]], #[[WIN]], #[[OUT]]], iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction", "parallel"]}
  // CHECK-SAME: ins(%{{.*}}, %{{.*}} : tensor<2x8x6x3xf32>, tensor<4x3xf32>) outs(%[[INIT]] : tensor<2x3x4x3xf32>)
  // CHECK: arith.maximumf
  %0 = fnc.max_pool2d %x ksize [4, 3] strides [2, 1] padding valid : tensor<2x8x6x3xf32>
  return %0 : tensor<2x3x4x3xf32>
}

// -----

// Average pooling with SAME padding: zero padding (TF: the odd row or
// column after); each output element sums its window and divides by the
// number of input elements the window covers (computed from its index).
// CHECK-LABEL: func @avg_same
func.func @avg_same(%x: tensor<1x5x6x2xf64>) -> tensor<1x3x3x2xf64> {
  // CHECK: %[[P:.*]] = tensor.pad %{{.*}} low[0, 1, 0, 0] high[0, 1, 1, 0]
  // CHECK: linalg.generic
  // CHECK-COUNT-9: tensor.extract %[[P]]
  // CHECK: arith.minsi
  // CHECK: arith.sitofp
  // CHECK: arith.divf
  // CHECK: linalg.yield
  %0 = fnc.avg_pool2d %x ksize [3, 3] strides [2, 2] padding same : tensor<1x5x6x2xf64>
  return %0 : tensor<1x3x3x2xf64>
}

// -----

// A larger average window: the window generic sums, then a second generic
// divides.
// CHECK-LABEL: func @avg_large_window
func.func @avg_large_window(%x: tensor<1x5x6x2xf32>) -> tensor<1x3x3x2xf32> {
  // CHECK: %[[SUM:.*]] = linalg.generic
  // CHECK: arith.addf
  // CHECK: linalg.generic
  // CHECK-SAME: ins(%[[SUM]], %{{.*}} : tensor<1x3x3x2xf32>, tensor<1xf32>)
  // CHECK: arith.divf
  %0 = fnc.avg_pool2d %x ksize [4, 4] strides [2, 2] padding same : tensor<1x5x6x2xf32>
  return %0 : tensor<1x3x3x2xf32>
}

// -----

// The gradient of max pooling with overlapping windows: the tap of each
// window's first maximum (a small window: its taps unrolled, read from the
// padded input; padding is never taken), then a gather over the input
// gradient's elements from the windows whose chosen tap they are.
// CHECK-LABEL: func @max_grad
func.func @max_grad(%x: tensor<1x5x6x2xf32>, %dy: tensor<1x3x3x2xf32>) -> tensor<1x5x6x2xf32> {
  // CHECK: %[[P:.*]] = tensor.pad
  // CHECK: %[[TAPS:.*]] = linalg.generic
  // CHECK-SAME: iterator_types = ["parallel", "parallel", "parallel", "reduction", "parallel"]
  // CHECK-SAME: outs(%{{.*}} : tensor<1x3x3x2xi32>)
  // CHECK-COUNT-9: tensor.extract %[[P]]
  // CHECK: linalg.yield %{{.*}} : i32
  // CHECK: linalg.generic
  // CHECK-SAME: iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction", "parallel"]
  // CHECK-SAME: outs(%{{.*}} : tensor<1x5x6x2xf32>)
  // CHECK: arith.remui
  // CHECK: %[[TAP:.*]] = tensor.extract %[[TAPS]]
  // CHECK: arith.cmpi eq, %[[TAP]]
  // CHECK: tensor.extract %{{.*}} : tensor<1x3x3x2xf32>
  // CHECK: arith.select
  %0 = fnc.max_pool2d_grad %x, %dy ksize [3, 3] strides [2, 2] padding same : tensor<1x5x6x2xf32>, tensor<1x3x3x2xf32>
  return %0 : tensor<1x5x6x2xf32>
}

// -----

// A larger window searches its first maximum with loops, carrying (value,
// tap) accumulators as argmax does.
// CHECK-LABEL: func @max_grad_large_window
func.func @max_grad_large_window(%x: tensor<1x8x8x2xf64>, %dy: tensor<1x5x6x2xf64>) -> tensor<1x8x8x2xf64> {
  // CHECK: %[[FIRST:.*]]:2 = linalg.generic
  // CHECK-SAME: ins(%{{.*}}, %{{.*}} : tensor<1x8x8x2xf64>, tensor<4x3xf64>) outs(%{{.*}}, %{{.*}} : tensor<1x5x6x2xf64>, tensor<1x5x6x2xi32>)
  // CHECK: arith.cmpf ogt
  // CHECK: arith.cmpf uno
  // CHECK: linalg.yield %{{.*}}, %{{.*}} : f64, i32
  // CHECK: linalg.generic
  // CHECK: tensor.extract %[[FIRST]]#1
  %0 = fnc.max_pool2d_grad %x, %dy ksize [4, 3] strides [1, 1] padding valid : tensor<1x8x8x2xf64>, tensor<1x5x6x2xf64>
  return %0 : tensor<1x8x8x2xf64>
}

// -----

// Windows that tile the input (2x2, stride 2, even sizes): each input
// element has one window, read through floordiv maps; one elementwise
// generic, no accumulation.
// CHECK-DAG: #[[WINDOW:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1 floordiv 2, d2 floordiv 2, d4)>
// CHECK-LABEL: func @max_grad_tiled
func.func @max_grad_tiled(%x: tensor<2x4x6x3xf32>, %dy: tensor<2x2x3x3xf32>) -> tensor<2x4x6x3xf32> {
  // CHECK: %[[TAPS:.*]] = linalg.generic
  // CHECK: linalg.generic {indexing_maps = [#[[WINDOW]], #[[WINDOW]], #{{.*}}, #{{.*}}], iterator_types = ["parallel", "parallel", "parallel", "reduction", "parallel"]}
  // CHECK-SAME: ins(%{{.*}}, %[[TAPS]], %{{.*}} : tensor<2x2x3x3xf32>, tensor<2x2x3x3xi32>, tensor<1xf32>)
  // CHECK-NOT: tensor.extract
  // CHECK: arith.remui
  // CHECK: arith.cmpi eq
  // CHECK: arith.select
  %0 = fnc.max_pool2d_grad %x, %dy ksize [2, 2] strides [2, 2] padding valid : tensor<2x4x6x3xf32>, tensor<2x2x3x3xf32>
  return %0 : tensor<2x4x6x3xf32>
}

// -----

// The gradient of average pooling with dims unknown when compiling: the
// output gradient must have the pooled shape (checked, and the gather
// skipped on a mismatch), is divided by the window counts, then gathered.
// CHECK-LABEL: func @avg_grad_dynamic
func.func @avg_grad_dynamic(%x: tensor<?x?x4x1xf32>, %dy: tensor<?x?x2x1xf32>) -> tensor<?x?x4x1xf32> {
  // CHECK: %[[NE:.*]] = arith.cmpi ne
  // CHECK: func.call @fncRaiseError
  // CHECK: scf.if %{{.*}} -> (tensor<?x?x4x1xf32>)
  // CHECK: } else {
  // CHECK: %[[SCALED:.*]] = linalg.generic
  // CHECK: arith.divf
  // CHECK: linalg.generic
  // CHECK: tensor.extract %[[SCALED]]
  %0 = fnc.avg_pool2d_grad %x, %dy ksize [3, 2] strides [2, 2] padding same : tensor<?x?x4x1xf32>, tensor<?x?x2x1xf32>
  return %0 : tensor<?x?x4x1xf32>
}

// -----

// VALID windows over a dim known only at run time: a window larger than
// the input raises WindowTooLarge (code 15) and leaves no windows.
// CHECK-LABEL: func @valid_dynamic
func.func @valid_dynamic(%x: tensor<1x?x4x1xf32>) -> tensor<1x?x2x1xf32> {
  // CHECK: %[[H:.*]] = tensor.dim %{{.*}}, %{{.*}} : tensor<1x?x4x1xf32>
  // CHECK: %[[SMALL:.*]] = arith.cmpi ult, %[[H]]
  // CHECK: scf.if %[[SMALL]] {
  // CHECK: %[[C15:.*]] = arith.constant 15 : i64
  // CHECK: func.call @fncRaiseError(%{{.*}}, %[[C15]]
  // CHECK: arith.select %[[SMALL]]
  // CHECK: linalg.generic
  %0 = fnc.max_pool2d %x ksize [3, 2] strides [1, 2] padding valid : tensor<1x?x4x1xf32>
  return %0 : tensor<1x?x2x1xf32>
}
