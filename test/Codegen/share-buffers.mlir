// RUN: fnc-opt %s -split-input-file -fnc-share-buffers -fnc-print-buffer-plan -o /dev/null | FileCheck %s

// Four buffers of one type in a chain where each dies after the next is
// computed: the third and fourth allocations take dead buffers' places.
// CHECK-LABEL: buffer plan of @chain:
// CHECK-NEXT: alloc 0: memref<16xf32> (64 bytes)
// CHECK-NEXT: alloc 1: memref<16xf32> (64 bytes)
// CHECK-NEXT: linalg.generic writes alloc 0
// CHECK-NEXT: linalg.generic writes alloc 1
// CHECK-NEXT: linalg.generic writes alloc 0
// CHECK-NEXT: linalg.generic writes alloc 1
// CHECK-NEXT: total: 2 allocation(s), 128 bytes known statically
#id = affine_map<(d0) -> (d0)>
func.func @chain(%x: memref<16xf32>, %out: memref<16xf32>) {
  %a = memref.alloc() : memref<16xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : memref<16xf32>) outs(%a : memref<16xf32>) {
  ^bb0(%i: f32, %o: f32):
    %e = math.exp %i : f32
    linalg.yield %e : f32
  }
  %b = memref.alloc() : memref<16xf32>
  linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%a, %x : memref<16xf32>, memref<16xf32>) outs(%b : memref<16xf32>) {
  ^bb0(%i: f32, %j: f32, %o: f32):
    %e = arith.mulf %i, %j : f32
    linalg.yield %e : f32
  }
  %c = memref.alloc() : memref<16xf32>
  linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%b, %x : memref<16xf32>, memref<16xf32>) outs(%c : memref<16xf32>) {
  ^bb0(%i: f32, %j: f32, %o: f32):
    %e = arith.addf %i, %j : f32
    linalg.yield %e : f32
  }
  %d = memref.alloc() : memref<16xf32>
  linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%c, %x : memref<16xf32>, memref<16xf32>) outs(%d : memref<16xf32>) {
  ^bb0(%i: f32, %j: f32, %o: f32):
    %e = arith.subf %i, %j : f32
    linalg.yield %e : f32
  }
  memref.copy %d, %out : memref<16xf32> to memref<16xf32>
  return
}

// -----

// A returned buffer is never given away, even though nothing reads it
// after its copy; a buffer read through a view is free after the view's
// last use: %b takes %v's place, not %a's.
// CHECK-LABEL: buffer plan of @escapes:
// CHECK-NEXT: alloc 0: memref<16xf32>
// CHECK-NEXT: alloc 1: memref<16xf32>
// CHECK-NEXT: alloc 2: memref<2x8xf32>
// CHECK-NEXT: linalg.copy writes alloc 1
// CHECK-NEXT: total: 3 allocation(s)
func.func @escapes(%x: memref<16xf32>) -> memref<16xf32> {
  %a = memref.alloc() : memref<16xf32>
  memref.copy %x, %a : memref<16xf32> to memref<16xf32>
  %v = memref.alloc() : memref<16xf32>
  memref.copy %x, %v : memref<16xf32> to memref<16xf32>
  %view = memref.expand_shape %v [[0, 1]] output_shape [2, 8] : memref<16xf32> into memref<2x8xf32>
  %m = memref.alloc() : memref<2x8xf32>
  memref.copy %view, %m : memref<2x8xf32> to memref<2x8xf32>
  %b = memref.alloc() : memref<16xf32>
  linalg.copy ins(%x : memref<16xf32>) outs(%b : memref<16xf32>)
  return %a : memref<16xf32>
}

// -----

// A smaller buffer is a view of the first elements of a dead bigger one.
// CHECK-LABEL: buffer plan of @smaller:
// CHECK-NEXT: alloc 0: memref<32xf32> (128 bytes)
// CHECK-NEXT: linalg.copy writes alloc 0
// CHECK-NEXT: linalg.copy writes a view of alloc 0
// CHECK-NEXT: total: 1 allocation(s), 128 bytes known statically
func.func @smaller(%x: memref<32xf32>, %y: memref<4x4xf32>, %o: memref<4x4xf32>) -> f32 {
  %big = memref.alloc() : memref<32xf32>
  linalg.copy ins(%x : memref<32xf32>) outs(%big : memref<32xf32>)
  %c0 = arith.constant 0 : index
  %v = memref.load %big[%c0] : memref<32xf32>
  %small = memref.alloc() : memref<4x4xf32>
  linalg.copy ins(%y : memref<4x4xf32>) outs(%small : memref<4x4xf32>)
  memref.copy %small, %o : memref<4x4xf32> to memref<4x4xf32>
  return %v : f32
}
