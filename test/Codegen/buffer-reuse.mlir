// RUN: fnc-opt %s -split-input-file -fnc-buffer-reuse | FileCheck %s
// RUN: fnc-opt %s -split-input-file -fnc-buffer-reuse -one-shot-bufferize="bufferize-function-boundaries=1 allow-return-allocs-from-loops=1 function-boundary-type-conversion=identity-layout-map" -fnc-print-buffer-plan -o /dev/null | FileCheck %s --check-prefix=PLAN

#id = affine_map<(d0) -> (d0)>
#scalar = affine_map<(d0) -> ()>

// %t dies at the second generic (its other reader comes first): the second
// generic writes into %t's buffer. Only one 4 KiB buffer is allocated.
// CHECK-LABEL: func @reuse_dead_input
// PLAN-LABEL: buffer plan of @reuse_dead_input:
// PLAN-NEXT: alloc 0: memref<1024xf32> (4096 bytes)
// PLAN-NEXT: alloc 1: memref<f32> (4 bytes)
// PLAN-NEXT: linalg.generic writes alloc 0
// PLAN-NEXT: linalg.generic writes alloc 1
// PLAN-NEXT: linalg.generic writes alloc 0
// PLAN-NEXT: total: 2 allocation(s), 4100 bytes known statically
func.func @reuse_dead_input(%a: tensor<1024xf32> {bufferization.writable = false}) -> tensor<1024xf32> {
  %e = tensor.empty() : tensor<1024xf32>
  // CHECK: %[[T:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<1024xf32>)
  %t = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%a : tensor<1024xf32>) outs(%e : tensor<1024xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = math.exp %x : f32
    linalg.yield %y : f32
  } -> tensor<1024xf32>
  %z = tensor.empty() : tensor<f32>
  %s = linalg.generic {indexing_maps = [#id, #scalar], iterator_types = ["reduction"]}
      ins(%t : tensor<1024xf32>) outs(%z : tensor<f32>) {
  ^bb0(%x: f32, %acc: f32):
    %y = arith.addf %x, %acc : f32
    linalg.yield %y : f32
  } -> tensor<f32>
  // CHECK: linalg.generic {{.*}} ins(%[[T]], %{{.*}} : tensor<1024xf32>, tensor<f32>) outs(%[[T]] : tensor<1024xf32>)
  %r = linalg.generic {indexing_maps = [#id, #scalar, #id], iterator_types = ["parallel"]}
      ins(%t, %s : tensor<1024xf32>, tensor<f32>) outs(%e : tensor<1024xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %m = arith.mulf %x, %y : f32
    linalg.yield %m : f32
  } -> tensor<1024xf32>
  return %r : tensor<1024xf32>
}

// -----

#id = affine_map<(d0) -> (d0)>

// The caller's argument is never a destination.
// CHECK-LABEL: func @keep_arguments
// PLAN-LABEL: buffer plan of @keep_arguments:
// PLAN: alloc 0: memref<16xf32>
// PLAN: linalg.generic writes alloc 0
func.func @keep_arguments(%a: tensor<16xf32> {bufferization.writable = false}) -> tensor<16xf32> {
  %e = tensor.empty() : tensor<16xf32>
  // CHECK: outs(%{{.*}} : tensor<16xf32>)
  // CHECK-NOT: outs(%arg0
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%a : tensor<16xf32>) outs(%e : tensor<16xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = math.exp %x : f32
    linalg.yield %y : f32
  } -> tensor<16xf32>
  return %r : tensor<16xf32>
}

// -----

#id2 = affine_map<(d0, d1) -> (d0, d1)>

// With unknown dims a whole-tensor read of an argument is an extract_slice:
// the argument behind the slice is not a destination either (writing into
// it made One-Shot Bufferize copy the whole argument first).
// CHECK-LABEL: func @keep_sliced_arguments
// PLAN-LABEL: buffer plan of @keep_sliced_arguments:
// PLAN-NEXT: alloc 0: memref<?x?xf32>
// PLAN-NEXT: linalg.generic writes alloc 0
// PLAN-NEXT: total: 1 allocation(s)
func.func @keep_sliced_arguments(%a: tensor<?x?xf32> {bufferization.writable = false}) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %d0 = tensor.dim %a, %c0 : tensor<?x?xf32>
  %d1 = tensor.dim %a, %c1 : tensor<?x?xf32>
  %s = tensor.extract_slice %a[0, 0] [%d0, %d1] [1, 1] : tensor<?x?xf32> to tensor<?x?xf32>
  %e = tensor.empty(%d0, %d1) : tensor<?x?xf32>
  // CHECK: %[[E:.*]] = tensor.empty
  // CHECK: linalg.generic {{.*}} outs(%[[E]] : tensor<?x?xf32>)
  %r = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%s : tensor<?x?xf32>) outs(%e : tensor<?x?xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = arith.mulf %x, %x : f32
    linalg.yield %y : f32
  } -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

// -----

#id = affine_map<(d0) -> (d0)>

// An input still read after the op keeps its buffer.
// CHECK-LABEL: func @keep_live_input
func.func @keep_live_input(%a: tensor<16xf32>) -> (tensor<16xf32>, tensor<16xf32>) {
  %e = tensor.empty() : tensor<16xf32>
  // CHECK: %[[T:.*]] = linalg.generic
  %t = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%a : tensor<16xf32>) outs(%e : tensor<16xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = math.exp %x : f32
    linalg.yield %y : f32
  } -> tensor<16xf32>
  // CHECK: linalg.generic {{.*}} ins(%[[T]] : tensor<16xf32>) outs(%{{.*}} : tensor<16xf32>)
  // CHECK-NOT: outs(%[[T]]
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%t : tensor<16xf32>) outs(%e : tensor<16xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = math.tanh %x : f32
    linalg.yield %y : f32
  } -> tensor<16xf32>
  return %r, %t : tensor<16xf32>, tensor<16xf32>
}

// -----

// A slice without elements becomes an empty tensor: bufferized as a subview
// of a cast that a canonicalization folds, it would not verify (offset 0
// into a dim of static size 0).
// CHECK-LABEL: func @empty_slice
// CHECK-SAME: (%[[A:.*]]: tensor<?x?x0xi64>, %[[N:.*]]: index)
// CHECK-NOT: tensor.extract_slice
// CHECK: %[[E:.*]] = tensor.empty(%[[N]]) : tensor<?x0xi64>
// CHECK: return %[[E]]
func.func @empty_slice(%a: tensor<?x?x0xi64>, %n: index) -> tensor<?x0xi64> {
  %c = tensor.cast %a : tensor<?x?x0xi64> to tensor<?x?x?xi64>
  %s = tensor.extract_slice %c[0, 0, 0] [1, %n, 0] [1, 1, 1] : tensor<?x?x?xi64> to tensor<?x0xi64>
  return %s : tensor<?x0xi64>
}

// -----

// A loop that carries one value at two positions gets a copy at each
// repeat (a cast is the same buffer): One-Shot Bufferize assumes that loop
// results and the next iteration's arguments never share a buffer.
// CHECK-LABEL: func @repeated_loop_values
// CHECK: scf.for
// CHECK: %[[V:.*]] = linalg.generic
// CHECK: %[[C:.*]] = bufferization.alloc_tensor() copy(%[[V]])
// CHECK: scf.yield %[[V]], %[[C]]
// CHECK: scf.while
// CHECK: %[[W:.*]] = tensor.cast
// CHECK: %[[D:.*]] = bufferization.alloc_tensor() copy(%[[W]])
// CHECK: scf.condition(%{{.*}}) %{{.*}}, %[[D]]
// CHECK: %[[E:.*]] = bufferization.alloc_tensor() copy(%{{.*}})
// CHECK: scf.yield %{{.*}}, %[[E]]
#id = affine_map<(d0) -> (d0)>
func.func @repeated_loop_values(%a: tensor<?xf32>, %b: tensor<?xf32>, %n: index) -> (tensor<?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%s = %a, %t = %b) -> (tensor<?xf32>, tensor<?xf32>) {
    %v = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
        ins(%s : tensor<?xf32>) outs(%s : tensor<?xf32>) {
    ^bb0(%x: f32, %o: f32):
      %y = math.tanh %x : f32
      linalg.yield %y : f32
    } -> tensor<?xf32>
    scf.yield %v, %v : tensor<?xf32>, tensor<?xf32>
  }
  %w:2 = scf.while (%s = %a, %t = %b) : (tensor<?xf32>, tensor<?xf32>) -> (tensor<?xf32>, tensor<?xf32>) {
    %d = tensor.dim %s, %c0 : tensor<?xf32>
    %go = arith.cmpi slt, %d, %n : index
    %x = tensor.cast %s : tensor<?xf32> to tensor<?xf32>
    scf.condition(%go) %s, %x : tensor<?xf32>, tensor<?xf32>
  } do {
  ^bb0(%s: tensor<?xf32>, %t: tensor<?xf32>):
    scf.yield %t, %t : tensor<?xf32>, tensor<?xf32>
  }
  return %r#0, %r#1, %w#0, %w#1 : tensor<?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>
}
