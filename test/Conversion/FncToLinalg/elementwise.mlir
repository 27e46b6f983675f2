// RUN: fnc-opt %s -split-input-file -fnc-lower-to-linalg | FileCheck %s

// Broadcasting is expressed in the indexing maps: the [3] operand is read
// at (d1), the scalar at (), nothing is materialized.
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[ROW:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func @add_broadcast
func.func @add_broadcast(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<2x3xf32> {
  // CHECK: %[[E:.*]] = tensor.empty() : tensor<2x3xf32>
  // CHECK: linalg.generic {indexing_maps = [#[[ID]], #[[ROW]], #[[ID]]], iterator_types = ["parallel", "parallel"]}
  // CHECK-SAME: ins(%{{.*}}, %{{.*}} : tensor<2x3xf32>, tensor<3xf32>) outs(%[[E]] : tensor<2x3xf32>)
  // CHECK: arith.addf
  %0 = fnc.add %a, %b : tensor<2x3xf32>, tensor<3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// A size-1 dimension that broadcasts is read at index 0.
// CHECK-DAG: #[[COL:.*]] = affine_map<(d0, d1) -> (d0, 0)>
// CHECK-LABEL: func @stretch_ones
func.func @stretch_ones(%a: tensor<4x1xi32>, %b: tensor<1x5xi32>) -> tensor<4x5xi32> {
  // CHECK: linalg.generic {indexing_maps = [#[[COL]], #{{.*}}, #{{.*}}]
  // CHECK: arith.muli
  %0 = fnc.mul %a, %b : tensor<4x1xi32>, tensor<1x5xi32>
  return %0 : tensor<4x5xi32>
}

// -----

// Integer division checks its divisor at run time instead of trapping; the
// loop body records the error in the call context's words (no call in the
// loop).
// CHECK-LABEL: func @int_div
// CHECK-SAME: (%[[CTX:[^:]*]]: memref<3xi64>
func.func @int_div(%a: tensor<4xi32>, %b: tensor<4xi32>) -> tensor<4xi32> {
  // CHECK: linalg.generic
  // CHECK: %[[Z:.*]] = arith.cmpi eq, %{{.*}}, %{{.*}} : i32
  // CHECK: scf.if %[[Z]] {
  // CHECK-NOT: call
  // CHECK:   memref.store %{{.*}}, %[[CTX]]
  // CHECK: arith.divsi
  %0 = fnc.div %a, %b : tensor<4xi32>, tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

// CHECK-LABEL: func @compares
func.func @compares(%a: tensor<4xf32>, %i: tensor<4xi32>) -> (tensor<4xi1>, tensor<4xi1>, tensor<4xi1>) {
  // NaN != x is true: unordered.
  // CHECK: arith.cmpf une
  %0 = fnc.compare ne, %a, %a : tensor<4xf32>, tensor<4xf32>
  // CHECK: arith.cmpf olt
  %1 = fnc.compare lt, %a, %a : tensor<4xf32>, tensor<4xf32>
  // CHECK: arith.cmpi slt
  %2 = fnc.compare lt, %i, %i : tensor<4xi32>, tensor<4xi32>
  return %0, %1, %2 : tensor<4xi1>, tensor<4xi1>, tensor<4xi1>
}

// -----

// CHECK-LABEL: func @unary_and_cast
func.func @unary_and_cast(%a: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xi32>, tensor<4xi1>, tensor<4xf64>) {
  // CHECK: arith.maximumf
  %0 = fnc.relu %a : tensor<4xf32>
  // CHECK: arith.fptosi %{{.*}} : f32 to i32
  %1 = fnc.cast %a : tensor<4xf32> to tensor<4xi32>
  // CHECK: arith.cmpf une
  %2 = fnc.cast %a : tensor<4xf32> to tensor<4xi1>
  // CHECK: arith.extf %{{.*}} : f32 to f64
  %3 = fnc.cast %a : tensor<4xf32> to tensor<4xf64>
  return %0, %1, %2, %3 : tensor<4xf32>, tensor<4xi32>, tensor<4xi1>, tensor<4xf64>
}

// -----

// Dynamic dims broadcast at run time as numpy's do: the size is the last
// one other than 1 (1 if both are); a dim that is neither 1 nor that size
// raises an error and guards the whole computation; a dim of 1 against a
// size other than 1 takes the slow path that copies the operand to full
// size; equal dims run the plain generic.
// CHECK-LABEL: func @dynamic
func.func @dynamic(%a: tensor<?xf32>, %b: tensor<?xf32>) -> tensor<?xf32> {
  // CHECK: %[[DA:.*]] = tensor.dim %{{.*}}, %c0
  // CHECK: %[[DB:.*]] = tensor.dim %{{.*}}, %c0
  // CHECK: %[[AONE:.*]] = arith.cmpi eq, %[[DA]], %[[C1:.*]] : index
  // CHECK: %[[S1:.*]] = arith.select %[[AONE]], %[[C1]], %[[DA]]
  // CHECK: %[[BONE:.*]] = arith.cmpi eq, %[[DB]], %[[C1]] : index
  // CHECK: %[[N:.*]] = arith.select %[[BONE]], %[[S1]], %[[DB]]
  // CHECK: scf.if %{{.*}} {
  // CHECK:   func.call @fncRaiseError
  // CHECK: scf.if %{{.*}} {
  // CHECK:   func.call @fncRaiseError
  // CHECK: scf.if %{{.*}} -> (tensor<?xf32>) {
  // CHECK:   tensor.empty(%[[N]]) : tensor<?xf32>
  // CHECK: } else {
  // CHECK:   scf.if %{{.*}} -> (tensor<?xf32>) {
  // CHECK:     linalg.index 0
  // CHECK:   } else {
  // CHECK:     tensor.empty(%[[N]]) : tensor<?xf32>
  // CHECK:     linalg.generic
  %0 = fnc.sub %a, %b : tensor<?xf32>, tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

// A dynamic dim against a static one guards the whole computation: a size
// other than 4 or 1 is an error; 1 broadcasts on a slow path that copies the
// operand to full size; 4 runs the plain generic.
// CHECK-LABEL: func @dynamic_vs_static
// CHECK-SAME: (%{{.*}}: memref<3xi64>, %[[A:[^:]*]]: tensor<?xf32> {{.*}}, %[[B:[^:]*]]: tensor<4xf32>
func.func @dynamic_vs_static(%a: tensor<?xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: %[[D:.*]] = tensor.dim %[[A]]
  // CHECK: %[[ONE:.*]] = arith.cmpi eq, %[[D]]
  // CHECK: %[[NE:.*]] = arith.cmpi ne, %[[D]]
  // CHECK: %[[NOT1:.*]] = arith.cmpi ne, %[[D]]
  // CHECK: %[[BAD:.*]] = arith.andi %[[NE]], %[[NOT1]]
  // CHECK: %[[R:.*]] = scf.if %[[BAD]] -> (tensor<4xf32>) {
  // CHECK:   tensor.empty
  // CHECK: } else {
  // CHECK:   scf.if %[[ONE]] -> (tensor<4xf32>) {
  // CHECK:     %[[FULL:.*]] = linalg.generic {{.*}} outs(
  // CHECK:       arith.select
  // CHECK:       tensor.extract %[[A]]
  // CHECK:     linalg.generic {{.*}} ins(%[[FULL]], %[[B]] :
  // CHECK:   } else {
  // CHECK:     linalg.generic {{.*}} ins(%[[A]], %[[B]] :
  // CHECK: return %[[R]]
  %0 = fnc.add %a, %b : tensor<?xf32>, tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// CHECK-LABEL: func @creation
func.func @creation(%n: index) -> (tensor<?x3xf32>, tensor<5xi32>, tensor<3x3xf64>, tensor<2xf32>) {
  // CHECK: %[[E:.*]] = tensor.empty(%{{.*}}) : tensor<?x3xf32>
  // CHECK: linalg.fill ins(%{{.*}} : f32) outs(%[[E]] : tensor<?x3xf32>)
  %0 = fnc.fill 1.5 [%n] : tensor<?x3xf32>
  // CHECK: linalg.index 0
  // CHECK: arith.fptosi
  %1 = fnc.range 0.0, 10.0, 2.0 : tensor<5xi32>
  // CHECK: linalg.index 0
  // CHECK: linalg.index 1
  // CHECK: arith.cmpi eq
  %2 = fnc.eye : tensor<3x3xf64>
  // CHECK: arith.constant dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
  %3 = fnc.constant dense<[1.0, 2.0]> : tensor<2xf32>
  return %0, %1, %2, %3 : tensor<?x3xf32>, tensor<5xi32>, tensor<3x3xf64>, tensor<2xf32>
}
