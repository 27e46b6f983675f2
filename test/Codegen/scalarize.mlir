// RUN: fnc-opt %s -split-input-file -fnc-scalarize | FileCheck %s

#scalar = affine_map<() -> ()>
#id = affine_map<(d0) -> (d0)>

// A staged for_range as lowered: the counter and the predicate are 0-d
// tensors. They become scalars carried by the loop; the vector stays a
// tensor.
// CHECK-LABEL: func @counted_loop
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>)
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : i32
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : i32
// CHECK-DAG: %[[N:.*]] = arith.constant 1000 : i32
// CHECK: %[[R:.*]]:2 = scf.while (%[[I:.*]] = %[[C0]], %[[V:.*]] = %[[X]]) : (i32, tensor<4xf32>) -> (i32, tensor<4xf32>)
// CHECK-NEXT: %[[LT:.*]] = arith.cmpi slt, %[[I]], %[[N]] : i32
// CHECK-NEXT: scf.condition(%[[LT]]) %[[I]], %[[V]] : i32, tensor<4xf32>
// CHECK: ^bb0(%[[I2:.*]]: i32, %[[V2:.*]]: tensor<4xf32>):
// CHECK: linalg.generic
// CHECK: %[[NEXT:.*]] = arith.addi %[[I2]], %[[C1]] : i32
// CHECK-NEXT: scf.yield %[[NEXT]], %{{.*}} : i32, tensor<4xf32>
// The counter is used as a tensor after the loop: wrapped back.
// CHECK: %[[T:.*]] = tensor.from_elements %[[R]]#0 : tensor<i32>
// CHECK: return %[[T]], %[[R]]#1
func.func @counted_loop(%x: tensor<4xf32>) -> (tensor<i32>, tensor<4xf32>) {
  %c1_i32 = arith.constant 1 : i32
  %c1000_i32 = arith.constant 1000 : i32
  %zero = arith.constant dense<0> : tensor<i32>
  %r:2 = scf.while (%i = %zero, %v = %x) : (tensor<i32>, tensor<4xf32>) -> (tensor<i32>, tensor<4xf32>) {
    %e = tensor.empty() : tensor<i1>
    %p = linalg.generic {indexing_maps = [#scalar, #scalar], iterator_types = []}
        ins(%i : tensor<i32>) outs(%e : tensor<i1>) {
    ^bb0(%in: i32, %out: i1):
      %lt = arith.cmpi slt, %in, %c1000_i32 : i32
      linalg.yield %lt : i1
    } -> tensor<i1>
    %b = tensor.extract %p[] : tensor<i1>
    scf.condition(%b) %i, %v : tensor<i32>, tensor<4xf32>
  } do {
  ^bb0(%i: tensor<i32>, %v: tensor<4xf32>):
    %d = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
        ins(%v : tensor<4xf32>) outs(%v : tensor<4xf32>) {
    ^bb0(%in: f32, %out: f32):
      %s = arith.mulf %in, %in : f32
      linalg.yield %s : f32
    } -> tensor<4xf32>
    %e = tensor.empty() : tensor<i32>
    %n = linalg.generic {indexing_maps = [#scalar, #scalar], iterator_types = []}
        ins(%i : tensor<i32>) outs(%e : tensor<i32>) {
    ^bb0(%in: i32, %out: i32):
      %s = arith.addi %in, %c1_i32 : i32
      linalg.yield %s : i32
    } -> tensor<i32>
    scf.yield %n, %d : tensor<i32>, tensor<4xf32>
  }
  return %r#0, %r#1 : tensor<i32>, tensor<4xf32>
}

// -----

#scalar = affine_map<() -> ()>

// A branch predicate computed from 0-d tensors: scalar code, no tensor.
// CHECK-LABEL: func @predicate
// CHECK-SAME: (%[[A:.*]]: tensor<f32>, %[[B:.*]]: tensor<f32>)
// CHECK-DAG: %[[EA:.*]] = tensor.extract %[[A]][]
// CHECK-DAG: %[[EB:.*]] = tensor.extract %[[B]][]
// CHECK: %[[GT:.*]] = arith.cmpf ogt, %[[EA]], %[[EB]] : f32
// CHECK-NOT: linalg.generic
// CHECK: scf.if %[[GT]]
func.func @predicate(%a: tensor<f32>, %b: tensor<f32>) -> tensor<f32> {
  %e = tensor.empty() : tensor<i1>
  %p = linalg.generic {indexing_maps = [#scalar, #scalar, #scalar], iterator_types = []}
      ins(%a, %b : tensor<f32>, tensor<f32>) outs(%e : tensor<i1>) {
  ^bb0(%x: f32, %y: f32, %out: i1):
    %gt = arith.cmpf ogt, %x, %y : f32
    linalg.yield %gt : i1
  } -> tensor<i1>
  %c = tensor.extract %p[] : tensor<i1>
  %r = scf.if %c -> tensor<f32> {
    scf.yield %a : tensor<f32>
  } else {
    scf.yield %b : tensor<f32>
  }
  return %r : tensor<f32>
}

// -----

#scalar = affine_map<() -> ()>

// The same loop whose counter is not used after it (a for_range): an
// scf.for. (@counted_loop above returns its counter and stays a while.)
// CHECK-LABEL: func @for_range
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>, %[[N:.*]]: tensor<i32>)
// CHECK: %[[UB:.*]] = tensor.extract %[[N]][]
// CHECK: %[[R:.*]] = scf.for %{{.*}} = %{{.*}} to %[[UB]] step %{{.*}} iter_args(%[[V:.*]] = %[[X]]) -> (tensor<4xf32>){{ *}}: i32 {
// CHECK:   linalg.add
// CHECK: return %[[R]]
func.func @for_range(%x: tensor<4xf32>, %n: tensor<i32>) -> tensor<4xf32> {
  %c1_i32 = arith.constant 1 : i32
  %zero = arith.constant dense<0> : tensor<i32>
  %r:2 = scf.while (%i = %zero, %v = %x) : (tensor<i32>, tensor<4xf32>) -> (tensor<i32>, tensor<4xf32>) {
    %e = tensor.empty() : tensor<i1>
    %p = linalg.generic {indexing_maps = [#scalar, #scalar, #scalar], iterator_types = []}
        ins(%i, %n : tensor<i32>, tensor<i32>) outs(%e : tensor<i1>) {
    ^bb0(%in: i32, %lim: i32, %out: i1):
      %lt = arith.cmpi slt, %in, %lim : i32
      linalg.yield %lt : i1
    } -> tensor<i1>
    %b = tensor.extract %p[] : tensor<i1>
    scf.condition(%b) %i, %v : tensor<i32>, tensor<4xf32>
  } do {
  ^bb0(%i: tensor<i32>, %v: tensor<4xf32>):
    %d = linalg.generic {indexing_maps = [#scalar, #scalar], iterator_types = []}
        ins(%i : tensor<i32>) outs(%i : tensor<i32>) {
    ^bb0(%in: i32, %out: i32):
      %s = arith.addi %in, %c1_i32 : i32
      linalg.yield %s : i32
    } -> tensor<i32>
    %w = arith.constant dense<1.0> : tensor<4xf32>
    %y = linalg.add ins(%v, %w : tensor<4xf32>, tensor<4xf32>) outs(%v : tensor<4xf32>) -> tensor<4xf32>
    scf.yield %d, %y : tensor<i32>, tensor<4xf32>
  }
  return %r#1 : tensor<4xf32>
}

// -----

// A counter whose step is not a constant > 0 is not an scf.for step: the
// loop stays a while (it would be an endless loop for a step <= 0).
// CHECK-LABEL: func @runtime_step
// CHECK: scf.while
// CHECK-NOT: scf.for
func.func @runtime_step(%x: f32, %n: i32, %s: i32) -> f32 {
  %zero = arith.constant 0 : i32
  %r:2 = scf.while (%i = %zero, %a = %x) : (i32, f32) -> (i32, f32) {
    %c = arith.cmpi slt, %i, %n : i32
    scf.condition(%c) %i, %a : i32, f32
  } do {
  ^bb0(%i: i32, %a: f32):
    %b = arith.addf %a, %a : f32
    %j = arith.addi %i, %s : i32
    scf.yield %j, %b : i32, f32
  }
  return %r#1 : f32
}
