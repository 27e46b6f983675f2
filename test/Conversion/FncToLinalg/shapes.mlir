// RUN: fnc-opt %s -split-input-file -fnc-lower-to-linalg | FileCheck %s

// CHECK-LABEL: func @transpose
func.func @transpose(%a: tensor<2x?xf32>) -> tensor<?x2xf32> {
  // CHECK: %[[D:.*]] = tensor.dim %{{.*}}, %c1
  // CHECK: %[[E:.*]] = tensor.empty(%[[D]]) : tensor<?x2xf32>
  // CHECK: linalg.transpose ins(%{{.*}} : tensor<2x?xf32>) outs(%[[E]] : tensor<?x2xf32>) permutation = [1, 0]
  %0 = fnc.transpose %a perm [1, 0] : tensor<2x?xf32>
  return %0 : tensor<?x2xf32>
}

// -----

// The inferred dimension is total / known, checked to divide evenly.
// CHECK-LABEL: func @reshape_dynamic
func.func @reshape_dynamic(%a: tensor<?x4xf32>) -> tensor<?x3xf32> {
  // CHECK: %[[REM:.*]] = arith.remui
  // CHECK: %[[BAD:.*]] = arith.cmpi ne, %[[REM]]
  // CHECK: scf.if %[[BAD]] {
  // CHECK:   func.call @fncRaiseError
  // CHECK: scf.if %[[BAD]] -> (tensor<?x3xf32>)
  // CHECK: %[[FLAT:.*]] = tensor.collapse_shape %{{.*}} {{\[}}[0, 1]] : tensor<?x4xf32> into tensor<?xf32>
  // CHECK: tensor.expand_shape %[[FLAT]] {{\[}}[0, 1]] output_shape [%{{.*}}, 3] : tensor<?xf32> into tensor<?x3xf32>
  %0 = fnc.reshape %a : tensor<?x4xf32> -> tensor<?x3xf32>
  return %0 : tensor<?x3xf32>
}

// -----

// CHECK-LABEL: func @expand_squeeze
func.func @expand_squeeze(%a: tensor<3xf32>, %b: tensor<1x3x1xf32>) -> (tensor<3x1xf32>, tensor<3xf32>) {
  // CHECK: tensor.expand_shape %{{.*}} {{\[}}[0, 1]] output_shape [3, 1] : tensor<3xf32> into tensor<3x1xf32>
  %0 = fnc.expand_dims %a axis -1 : tensor<3xf32>
  // CHECK: tensor.collapse_shape %{{.*}} {{\[}}[0, 1, 2]] : tensor<1x3x1xf32> into tensor<3xf32>
  %1 = fnc.squeeze %b axes [] : tensor<1x3x1xf32>
  return %0, %1 : tensor<3x1xf32>, tensor<3xf32>
}

// -----

// Unit dims join the group of a neighbouring real dim, so dynamic dims
// never share a group; a squeezed dynamic dim is checked to be 1.
// CHECK-LABEL: func @expand_squeeze_dynamic
func.func @expand_squeeze_dynamic(%a: tensor<?x?xf32>, %b: tensor<?x?x1xf32>) -> (tensor<?x1x?xf32>, tensor<?xf32>) {
  // CHECK: tensor.expand_shape %{{.*}} {{\[}}[0], [1, 2]] output_shape [%{{.*}}, 1, %{{.*}}] : tensor<?x?xf32> into tensor<?x1x?xf32>
  %0 = fnc.expand_dims %a axis 1 : tensor<?x?xf32>
  // CHECK: arith.cmpi ne
  // CHECK: func.call @fncRaiseError
  // CHECK: %[[C:.*]] = tensor.cast %{{.*}} : tensor<?x?x1xf32> to tensor<1x?x1xf32>
  // CHECK: tensor.collapse_shape %[[C]] {{\[}}[0, 1, 2]] : tensor<1x?x1xf32> into tensor<?xf32>
  %1 = fnc.squeeze %b axes [0, 2] : tensor<?x?x1xf32>
  return %0, %1 : tensor<?x1x?xf32>, tensor<?xf32>
}

// -----

// CHECK-DAG: #[[IN:.*]] = affine_map<(d0, d1, d2) -> (0, d2)>
// CHECK-LABEL: func @broadcast_to
func.func @broadcast_to(%a: tensor<1x3xf32>, %n: index) -> tensor<?x2x3xf32> {
  // CHECK: tensor.empty(%{{.*}}) : tensor<?x2x3xf32>
  // CHECK: linalg.generic {indexing_maps = [#[[IN]], #{{.*}}]
  %0 = fnc.broadcast_to %a [%n] : tensor<1x3xf32> -> tensor<?x2x3xf32>
  return %0 : tensor<?x2x3xf32>
}

// -----

// CHECK-LABEL: func @slice_concat
func.func @slice_concat(%a: tensor<2x3xf32>, %b: tensor<?x3xf32>) -> (tensor<1x2xf32>, tensor<?x3xf32>) {
  // CHECK: tensor.extract_slice %{{.*}}[1, 0] [1, 2] [1, 2] : tensor<2x3xf32> to tensor<1x2xf32>
  %0 = fnc.slice %a offsets [1, 0] sizes [1, 2] strides [1, 2] : tensor<2x3xf32>
  // CHECK: %[[E:.*]] = tensor.empty(%{{.*}}) : tensor<?x3xf32>
  // CHECK: %[[I:.*]] = tensor.insert_slice %{{.*}} into %[[E]][0, 0] [2, 3] [1, 1]
  // CHECK: tensor.insert_slice %{{.*}} into %[[I]][%{{.*}}, 0] [%{{.*}}, 3] [1, 1]
  %1 = fnc.concat %a, %b axis 0 : tensor<2x3xf32>, tensor<?x3xf32>
  return %0, %1 : tensor<1x2xf32>, tensor<?x3xf32>
}

// -----

// A dynamic slice is bounds-checked at run time.
// CHECK-LABEL: func @slice_dynamic
func.func @slice_dynamic(%a: tensor<?xf32>) -> tensor<2xf32> {
  // CHECK: %[[BAD:.*]] = arith.cmpi uge
  // CHECK: func.call @fncRaiseError
  // CHECK: scf.if %[[BAD]] -> (tensor<2xf32>)
  // CHECK: tensor.extract_slice
  %0 = fnc.slice %a offsets [3] sizes [2] strides [1] : tensor<?xf32>
  return %0 : tensor<2xf32>
}

// -----

// To the end of a dynamic dim: the size is read at run time; from offset 0
// with stride 1 nothing can go out of range, from a later offset the offset
// is checked against the dim.
// CHECK-LABEL: func @slice_to_end
func.func @slice_to_end(%a: tensor<?x4xf32>) -> (tensor<?x2xf32>, tensor<?x4xf32>) {
  // CHECK: %[[N:.*]] = tensor.dim %{{.*}}, %c0
  // CHECK-NOT: fncRaiseError
  // CHECK: tensor.extract_slice %{{.*}}[0, 1] [%[[N]], 2] [1, 1] : tensor<?x4xf32> to tensor<?x2xf32>
  %0 = fnc.slice %a offsets [0, 1] sizes [-1, 2] strides [1, 1] : tensor<?x4xf32>
  // CHECK: %[[M:.*]] = tensor.dim %{{.*}}, %c0
  // CHECK: %[[BAD:.*]] = arith.cmpi ugt, %{{.*}}, %[[M]]
  // CHECK: func.call @fncRaiseError
  // CHECK: %[[REST:.*]] = arith.maxsi
  // CHECK: %[[K:.*]] = arith.ceildivui %[[REST]]
  // CHECK: scf.if %[[BAD]] -> (tensor<?x4xf32>)
  // CHECK: tensor.extract_slice %{{.*}}[3, 0] [%[[K]], 4] [2, 1]
  %1 = fnc.slice %a offsets [3, 0] sizes [-1, -1] strides [2, 1] : tensor<?x4xf32>
  return %0, %1 : tensor<?x2xf32>, tensor<?x4xf32>
}

// -----

// pad: a fill of the result and the input inserted with strides interior + 1
// after the low padding; a dynamic dim's size comes from the input's.
// CHECK-LABEL: func @pad
// CHECK-SAME: %[[X:[^:]*]]: tensor<?x3xf32>
func.func @pad(%x: tensor<?x3xf32>) -> tensor<?x9xf32> {
  // CHECK: %[[N:.*]] = tensor.dim %[[X]], %c0
  // CHECK: %[[M:.*]] = arith.addi %[[N]], %c1
  // CHECK: %[[E:.*]] = tensor.empty(%[[M]]) : tensor<?x9xf32>
  // CHECK: %[[V:.*]] = arith.constant 1.500000e+00 : f32
  // CHECK: %[[F:.*]] = linalg.fill ins(%[[V]] : f32) outs(%[[E]] : tensor<?x9xf32>)
  // CHECK-NOT: scf.if
  // CHECK: tensor.insert_slice %[[X]] into %[[F]][1, 2] [%[[N]], 3] [1, 3] : tensor<?x3xf32> into tensor<?x9xf32>
  %0 = fnc.pad %x low [1, 2] high [0, 0] interior [0, 2] value 1.5 : tensor<?x3xf32>
  return %0 : tensor<?x9xf32>
}

// -----

// zeros_like(x): the sizes of the broadcast are x's own, so there is nothing
// to check at run time and no guard.
// CHECK-LABEL: func @broadcast_to_shape_of
// CHECK-SAME: %[[X:[^:]*]]: tensor<?x3xf32>
func.func @broadcast_to_shape_of(%x: tensor<?x3xf32>) -> tensor<?x3xf32> {
  // CHECK-NOT: scf.if
  // CHECK-NOT: fncRaiseError
  // CHECK: tensor.empty(%{{.*}}) : tensor<?x3xf32>
  // CHECK-NOT: scf.if
  // CHECK: linalg.generic
  %s = fnc.shape_of %x : tensor<?x3xf32> -> tensor<2xi64>
  %zero = fnc.constant dense<0.0> : tensor<f32>
  %0 = fnc.broadcast_to_shape %zero, %s : tensor<f32>, tensor<2xi64> -> tensor<?x3xf32>
  return %0 : tensor<?x3xf32>
}

// -----

// sum_to_shape: a dim unknown while compiling is summed over in an scf.if
// when the shape holds 1 there and the input does not; leading dims and
// static 1s are summed unconditionally. Dims the trace proved equal
// (fnc.same_unknown_dims) need no test.
// CHECK-LABEL: func @sum_to_shape
func.func @sum_to_shape(%g: tensor<4x?x3xf32>, %s: tensor<2xi64>) -> tensor<?x1xf32> {
  // CHECK: linalg.generic
  // CHECK-SAME: iterator_types = ["parallel", "parallel", "reduction"]
  // CHECK: linalg.generic
  // CHECK-SAME: iterator_types = ["reduction", "parallel", "parallel"]
  // CHECK: %[[ONE:.*]] = arith.andi
  // CHECK: scf.if %[[ONE]] -> (tensor<?x1xf32>) {
  // CHECK:   linalg.generic
  // CHECK-SAME: iterator_types = ["reduction", "parallel"]
  // CHECK: } else {
  %0 = fnc.sum_to_shape %g, %s : tensor<4x?x3xf32>, tensor<2xi64> -> tensor<?x1xf32>
  return %0 : tensor<?x1xf32>
}

// CHECK-LABEL: func @sum_to_shape_same
func.func @sum_to_shape_same(%g: tensor<?x3xf32>, %x: tensor<?x3xf32>) -> tensor<?x3xf32> {
  // CHECK-NOT: scf.if
  // CHECK-NOT: linalg.generic
  // CHECK: return
  %s = fnc.shape_of %x : tensor<?x3xf32> -> tensor<2xi64>
  %0 = fnc.sum_to_shape %g, %s {fnc.same_unknown_dims} : tensor<?x3xf32>, tensor<2xi64> -> tensor<?x3xf32>
  return %0 : tensor<?x3xf32>
}

// -----

// gather reads params at a checked, clamped index.
// CHECK-LABEL: func @gather
// CHECK-SAME: (%[[CTX:[^:]*]]: memref<3xi64>
func.func @gather(%p: tensor<5x3xf32>, %i: tensor<2xi32>) -> tensor<2x3xf32> {
  // CHECK: linalg.generic
  // CHECK: %[[BAD:.*]] = arith.ori
  // CHECK: scf.if %[[BAD]] {
  // CHECK:   memref.store %{{.*}}, %[[CTX]][
  // CHECK: %[[SAFE:.*]] = arith.select %[[BAD]]
  // CHECK: tensor.extract %{{.*}}[%[[SAFE]], %{{.*}}] : tensor<5x3xf32>
  %0 = fnc.gather %p, %i axis 0 : tensor<5x3xf32>, tensor<2xi32>
  return %0 : tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func @one_hot
func.func @one_hot(%i: tensor<3xi64>) -> tensor<4x3xf64> {
  // CHECK: linalg.generic
  // CHECK: linalg.index 0
  // CHECK: arith.cmpi eq
  // CHECK: arith.select
  %0 = fnc.one_hot %i depth 4 axis 0 on 5.0 off -1.0 : tensor<3xi64> -> tensor<4x3xf64>
  return %0 : tensor<4x3xf64>
}

// -----

// Empty while compiling: a slice at the end of a dim reads nothing and a
// pad of an empty input is its fill (an extract_slice / insert_slice at a
// static offset equal to the dim would not verify).
// CHECK-LABEL: func @empty_slice_and_pad
func.func @empty_slice_and_pad(%x: tensor<3x2xf32>, %y: tensor<0x2xf32>) -> (tensor<0x2xf32>, tensor<2x2xf32>) {
  // CHECK-NOT: tensor.extract_slice
  // CHECK: %[[E:.*]] = tensor.empty() : tensor<0x2xf32>
  %0 = fnc.slice %x offsets [3, 0] sizes [0, 2] strides [1, 1] : tensor<3x2xf32>
  // CHECK: %[[F:.*]] = linalg.fill
  // CHECK-NOT: tensor.insert_slice
  // CHECK: return %[[E]], %[[F]]
  %1 = fnc.pad %y low [2, 0] high [0, 0] interior [0, 0] value 1.0 : tensor<0x2xf32>
  return %0, %1 : tensor<0x2xf32>, tensor<2x2xf32>
}
