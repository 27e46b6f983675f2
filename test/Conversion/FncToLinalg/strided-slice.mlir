// RUN: fnc-opt %s -split-input-file -fnc-lower-to-linalg | FileCheck %s

// Known dims resolve while compiling: one extract_slice of the window, a
// collapse_shape dropping the index dims; no run-time check.
// CHECK-LABEL: func @static
func.func @static(%x: tensor<6x4x5xf32>) -> tensor<2x5xf32> {
  // CHECK-NOT: fncRaiseError
  // CHECK: %[[W:.*]] = tensor.extract_slice %{{.*}}[3, 3, 0] [2, 1, 5] [1, 1, 1] : tensor<6x4x5xf32> to tensor<2x1x5xf32>
  // CHECK: tensor.collapse_shape %[[W]] {{\[}}[0, 1], [2]] : tensor<2x1x5xf32> into tensor<2x5xf32>
  // CHECK-NOT: linalg.generic
  %0 = fnc.strided_slice %x [-3:-1, -1, :] : tensor<6x4x5xf32>
  return %0 : tensor<2x5xf32>
}

// -----

// Along a dynamic dim the bounds clamp at run time (Python's slice): a
// negative begin counts from tensor.dim; the count is a ceiling division.
// CHECK-LABEL: func @dynamic_range
func.func @dynamic_range(%x: tensor<?x4xf32>) -> tensor<?x2xf32> {
  // CHECK: %[[N:.*]] = tensor.dim %{{.*}}, %c0
  // CHECK: %[[B:.*]] = arith.addi %[[N]], %c-3
  // CHECK: %[[FIRST:.*]] = arith.maxsi %[[B]], %c0
  // CHECK: %[[LAST:.*]] = arith.minsi %c9223372036854775807{{.*}}, %[[N]]
  // CHECK: %[[D:.*]] = arith.subi %[[LAST]], %[[FIRST]]
  // CHECK: %[[POS:.*]] = arith.maxsi %[[D]], %c0
  // CHECK: %[[COUNT:.*]] = arith.ceildivui %[[POS]], %c2
  // CHECK-NOT: fncRaiseError
  // CHECK: tensor.extract_slice %{{.*}}[%[[FIRST]], 1] [%[[COUNT]], 2] [2, 2] : tensor<?x4xf32> to tensor<?x2xf32>
  %0 = fnc.strided_slice %x [-3::2, 1::2] : tensor<?x4xf32>
  return %0 : tensor<?x2xf32>
}

// -----

// A negative stride reads the window from its lowest index up, then
// backwards: a generic that reads element size-1-j (tensor.extract).
// CHECK-LABEL: func @reversed
func.func @reversed(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  // CHECK: %[[N:.*]] = tensor.dim %{{.*}}, %c0
  // CHECK: %[[COUNT:.*]] = arith.ceildivui
  // CHECK: %[[LOW:.*]] = arith.select
  // CHECK: %[[W:.*]] = tensor.extract_slice %{{.*}}[%[[LOW]], 0] [%[[COUNT]], 4] [1, 1]
  // CHECK: linalg.generic
  // CHECK-SAME: outs(
  // CHECK: %[[J:.*]] = linalg.index 0
  // CHECK: %[[R:.*]] = arith.subi %{{.*}}, %[[J]]
  // CHECK: tensor.extract %[[W]][%[[R]], %{{.*}}]
  %0 = fnc.strided_slice %x [::-1, :] : tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}

// -----

// An index along a dynamic dim is checked at run time (IndexOutOfRange, 16);
// the slice runs only when it is in range.
// CHECK-LABEL: func @dynamic_index
func.func @dynamic_index(%x: tensor<?x4xf32>) -> tensor<4xf32> {
  // CHECK: %[[N:.*]] = tensor.dim %{{.*}}, %c0
  // CHECK: %[[I:.*]] = arith.addi %[[N]], %c-1
  // CHECK: %[[BAD:.*]] = arith.cmpi slt, %[[I]], %c0
  // CHECK: scf.if %[[BAD]] {
  // CHECK:   %[[CODE:.*]] = arith.constant 16 : i64
  // CHECK:   func.call @fncRaiseError(%{{.*}}, %[[CODE]]
  // CHECK: scf.if %[[BAD]] -> (tensor<4xf32>)
  // CHECK: tensor.extract_slice %{{.*}}[%[[I]], 0] [1, 4] [1, 1] : tensor<?x4xf32> to tensor<1x4xf32>
  // CHECK: tensor.collapse_shape
  %0 = fnc.strided_slice %x [-1, :] : tensor<?x4xf32>
  return %0 : tensor<4xf32>
}

// -----

// A slice empty while compiling reads nothing.
// CHECK-LABEL: func @empty
func.func @empty(%x: tensor<3x4xf32>) -> tensor<0x4xf32> {
  // CHECK-NOT: tensor.extract_slice
  // CHECK: tensor.empty() : tensor<0x4xf32>
  %0 = fnc.strided_slice %x [5:, :] : tensor<3x4xf32>
  return %0 : tensor<0x4xf32>
}

// -----

// The gradient: zeros of the input's shape, the gradient (read backwards
// along negative strides, expanded back to full rank) inserted where the
// slice read; its dynamic dims are checked against the counts.
// CHECK-LABEL: func @grad
// CHECK-SAME: %[[X:[^:]*]]: tensor<?x4x3xf32>
// CHECK-SAME: %[[G:[^:]*]]: tensor<?x4xf32>
func.func @grad(%x: tensor<?x4x3xf32>, %g: tensor<?x4xf32>) -> tensor<?x4x3xf32> {
  // CHECK: %[[COUNT:.*]] = arith.ceildivui
  // CHECK: %[[GN:.*]] = tensor.dim %[[G]], %c0
  // CHECK: %[[BAD:.*]] = arith.cmpi ne, %[[GN]], %[[COUNT]]
  // CHECK: scf.if %[[BAD]] -> (tensor<?x4x3xf32>)
  // CHECK: %[[Z:.*]] = linalg.fill
  // CHECK: %[[R:.*]] = linalg.generic
  // CHECK: %[[E:.*]] = tensor.expand_shape %[[R]] {{\[}}[0], [1, 2]] output_shape [%[[GN]], 4, 1] : tensor<?x4xf32> into tensor<?x4x1xf32>
  // CHECK: tensor.insert_slice %[[E]] into %[[Z]][%{{.*}}, 0, 2] [%[[GN]], 4, 1] [1, 1, 1]
  %0 = fnc.strided_slice_grad %x, %g [1:, ::-1, -1] : tensor<?x4x3xf32>, tensor<?x4xf32>
  return %0 : tensor<?x4x3xf32>
}
