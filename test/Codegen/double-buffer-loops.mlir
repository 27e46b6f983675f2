// RUN: fnc-opt %s -split-input-file -fnc-double-buffer-loops | FileCheck %s

// A loop-carried state computed into a fresh buffer each iteration: two
// buffers allocated before the loop take turns (the one the iteration
// does not read).
// CHECK-LABEL: func.func @state
// CHECK: %[[FIRST:.*]] = memref.alloc() {alignment = 64 : i64} : memref<16xf32>
// CHECK-NEXT: %[[SECOND:.*]] = memref.alloc() {alignment = 64 : i64} : memref<16xf32>
// CHECK-NEXT: scf.for {{.*}} iter_args(%[[ARG:.*]] = %{{.*}})
// CHECK-NOT: memref.alloc
// CHECK: %[[READ:.*]] = memref.extract_aligned_pointer_as_index %[[ARG]]
// CHECK-NEXT: %[[FIRSTP:.*]] = memref.extract_aligned_pointer_as_index %[[FIRST]]
// CHECK-NEXT: %[[ISFIRST:.*]] = arith.cmpi eq, %[[READ]], %[[FIRSTP]]
// CHECK-NEXT: %[[TURN:.*]] = arith.select %[[ISFIRST]], %[[SECOND]], %[[FIRST]]
// CHECK: linalg.generic {{.*}} ins(%[[ARG]] : memref<16xf32>) outs(%[[TURN]] : memref<16xf32>)
// CHECK: scf.yield %[[TURN]]
#id = affine_map<(d0) -> (d0)>
func.func @state(%x: memref<16xf32>, %n: index) -> memref<16xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%v = %x) -> memref<16xf32> {
    %new = memref.alloc() {alignment = 64 : i64} : memref<16xf32>
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
        ins(%v : memref<16xf32>) outs(%new : memref<16xf32>) {
    ^bb0(%a: f32, %o: f32):
      %t = math.tanh %a : f32
      linalg.yield %t : f32
    }
    scf.yield %new : memref<16xf32>
  }
  return %r : memref<16xf32>
}

// -----

// The argument is passed on to the next iteration in another position
// (a swap): its buffer outlives the iteration, so nothing changes.
// CHECK-LABEL: func.func @swap
// CHECK: scf.for
// CHECK-NEXT: memref.alloc()
// CHECK-NOT: arith.select
#id = affine_map<(d0) -> (d0)>
func.func @swap(%x: memref<16xf32>, %y: memref<16xf32>, %n: index)
    -> (memref<16xf32>, memref<16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%v = %x, %w = %y)
      -> (memref<16xf32>, memref<16xf32>) {
    %new = memref.alloc() : memref<16xf32>
    linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
        ins(%v, %w : memref<16xf32>, memref<16xf32>) outs(%new : memref<16xf32>) {
    ^bb0(%a: f32, %b: f32, %o: f32):
      %s = arith.addf %a, %b : f32
      linalg.yield %s : f32
    }
    scf.yield %new, %v : memref<16xf32>, memref<16xf32>
  }
  return %r#0, %r#1 : memref<16xf32>, memref<16xf32>
}

// -----

// The new buffer escapes through a call: unchanged.
// CHECK-LABEL: func.func @escapes
// CHECK: scf.for
// CHECK-NEXT: memref.alloc()
// CHECK-NOT: arith.select
func.func private @keep(memref<16xf32>)
func.func @escapes(%x: memref<16xf32>, %n: index) -> memref<16xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%v = %x) -> memref<16xf32> {
    %new = memref.alloc() : memref<16xf32>
    memref.copy %v, %new : memref<16xf32> to memref<16xf32>
    func.call @keep(%new) : (memref<16xf32>) -> ()
    scf.yield %new : memref<16xf32>
  }
  return %r : memref<16xf32>
}

// -----

// A size that changes inside the loop: the buffers cannot be allocated
// before it.
// CHECK-LABEL: func.func @resized
// CHECK: scf.for
// CHECK: memref.alloc(%{{.*}})
// CHECK-NOT: arith.select
func.func @resized(%x: memref<?xf32>, %n: index) -> memref<?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%v = %x) -> memref<?xf32> {
    %size = memref.dim %v, %c0 : memref<?xf32>
    %grown = arith.addi %size, %c1 : index
    %new = memref.alloc(%grown) : memref<?xf32>
    %view = memref.subview %new[0] [%size] [1]
        : memref<?xf32> to memref<?xf32, strided<[1]>>
    memref.copy %v, %view : memref<?xf32> to memref<?xf32, strided<[1]>>
    scf.yield %new : memref<?xf32>
  }
  return %r : memref<?xf32>
}

// -----

// A view of the argument stays in the iteration: double-buffered.
// CHECK-LABEL: func.func @viewed
// CHECK: memref.alloc()
// CHECK-NEXT: memref.alloc()
// CHECK-NEXT: scf.for
// CHECK: arith.select
func.func @viewed(%x: memref<4x4xf32>, %n: index) -> memref<4x4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%v = %x) -> memref<4x4xf32> {
    %new = memref.alloc() : memref<4x4xf32>
    %flat = memref.collapse_shape %v [[0, 1]] : memref<4x4xf32> into memref<16xf32>
    %newFlat = memref.collapse_shape %new [[0, 1]] : memref<4x4xf32> into memref<16xf32>
    memref.copy %flat, %newFlat : memref<16xf32> to memref<16xf32>
    scf.yield %new : memref<4x4xf32>
  }
  return %r : memref<4x4xf32>
}
