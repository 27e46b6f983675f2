// RUN: fnc-opt %s -split-input-file -fnc-elide-snapshot-copies | FileCheck %s

// A read-only snapshot read before the variable is written: its readers
// read the variable, the copy and the allocation go. The last reader may
// update the variable in place, element by element.
// CHECK-LABEL: func @read_only
// CHECK-NOT: memref.alloc
// CHECK-NOT: memref.copy
// CHECK: linalg.matmul ins(%{{.*}}, %[[V:arg1]] :
// CHECK: linalg.generic {{.*}} ins(%[[V]], %{{.*}} : {{.*}}) outs(%[[V]] :
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @read_only(%x: memref<4x4xf32>, %v: memref<4x4xf32>,
                     %out: memref<4x4xf32>, %g: memref<4x4xf32>) {
  %snap = memref.alloc() : memref<4x4xf32>
  memref.copy %v, %snap : memref<4x4xf32> to memref<4x4xf32>
  linalg.matmul ins(%x, %snap : memref<4x4xf32>, memref<4x4xf32>)
                outs(%out : memref<4x4xf32>)
  linalg.generic {indexing_maps = [#id, #id, #id],
                  iterator_types = ["parallel", "parallel"]}
      ins(%snap, %g : memref<4x4xf32>, memref<4x4xf32>)
      outs(%v : memref<4x4xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %d = arith.subf %a, %b : f32
    linalg.yield %d : f32
  }
  return
}

// -----

// The variable is written (here through a call it is passed to) before the
// snapshot's last reader: the copy stays.
// CHECK-LABEL: func @written_before_last_read
// CHECK: memref.copy %arg0, %[[S:.*]] :
// CHECK: call @update(%arg0)
// CHECK: memref.load %[[S]]
func.func private @update(memref<4xf32>)
func.func @written_before_last_read(%v: memref<4xf32>, %i: index) -> f32 {
  %snap = memref.alloc() : memref<4xf32>
  memref.copy %v, %snap : memref<4xf32> to memref<4xf32>
  func.call @update(%v) : (memref<4xf32>) -> ()
  %x = memref.load %snap[%i] : memref<4xf32>
  return %x : f32
}

// -----

// A call that is not passed the variable does not write it.
// CHECK-LABEL: func @call_of_other_buffers
// CHECK-NOT: memref.copy
// CHECK: memref.load %arg0
func.func private @report(memref<3xi64>)
func.func @call_of_other_buffers(%v: memref<4xf32>, %ctx: memref<3xi64>,
                                 %i: index) -> f32 {
  %snap = memref.alloc() : memref<4xf32>
  memref.copy %v, %snap : memref<4xf32> to memref<4xf32>
  func.call @report(%ctx) : (memref<3xi64>) -> ()
  %x = memref.load %snap[%i] : memref<4xf32>
  return %x : f32
}

// -----

// The last reader writes the variable at other elements than it reads (a
// transpose): the copy stays.
// CHECK-LABEL: func @last_reader_not_elementwise
// CHECK: memref.copy
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#tr = affine_map<(d0, d1) -> (d1, d0)>
func.func @last_reader_not_elementwise(%v: memref<4x4xf32>) {
  %snap = memref.alloc() : memref<4x4xf32>
  memref.copy %v, %snap : memref<4x4xf32> to memref<4x4xf32>
  linalg.generic {indexing_maps = [#tr, #id2],
                  iterator_types = ["parallel", "parallel"]}
      ins(%snap : memref<4x4xf32>) outs(%v : memref<4x4xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  }
  return
}

// -----

// A snapshot that is written (not read-only) and not overwritten first:
// the copy stays.
// CHECK-LABEL: func @snapshot_updated
// CHECK: memref.copy
func.func @snapshot_updated(%v: memref<4xf32>, %i: index, %x: f32) -> f32 {
  %snap = memref.alloc() : memref<4xf32>
  memref.copy %v, %snap : memref<4xf32> to memref<4xf32>
  memref.store %x, %snap[%i] : memref<4xf32>
  %y = memref.load %snap[%i] : memref<4xf32>
  return %y : f32
}

// -----

// A snapshot overwritten first by an elementwise generic that does not read
// its old values (m + (g - m) * c): the generic reads the variable instead.
// CHECK-LABEL: func @overwritten_first
// CHECK-NOT: memref.copy
// CHECK: linalg.generic {{.*}} ins(%arg1, %arg0 : {{.*}}) outs(%[[S:.*]] :
// CHECK: linalg.generic {{.*}} ins(%[[S]] : {{.*}}) outs(%arg0 :
#id1 = affine_map<(d0) -> (d0)>
func.func @overwritten_first(%m: memref<8xf32>, %g: memref<8xf32>) {
  %snap = memref.alloc() : memref<8xf32>
  memref.copy %m, %snap : memref<8xf32> to memref<8xf32>
  %c = arith.constant 0.1 : f32
  linalg.generic {indexing_maps = [#id1, #id1, #id1],
                  iterator_types = ["parallel"]}
      ins(%g, %snap : memref<8xf32>, memref<8xf32>)
      outs(%snap : memref<8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %d = arith.subf %a, %b : f32
    %e = arith.mulf %d, %c : f32
    linalg.yield %e : f32
  }
  linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]}
      ins(%snap : memref<8xf32>) outs(%m : memref<8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.addf %o, %a : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// The first writer reads the old values of its output (an accumulation):
// the copy stays.
// CHECK-LABEL: func @first_writer_reads_old_values
// CHECK: memref.copy
#id3 = affine_map<(d0) -> (d0)>
func.func @first_writer_reads_old_values(%m: memref<8xf32>, %g: memref<8xf32>) {
  %snap = memref.alloc() : memref<8xf32>
  memref.copy %m, %snap : memref<8xf32> to memref<8xf32>
  linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel"]}
      ins(%g : memref<8xf32>) outs(%snap : memref<8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.addf %o, %a : f32
    linalg.yield %s : f32
  }
  %r = memref.alloc() : memref<8xf32>
  memref.copy %snap, %r : memref<8xf32> to memref<8xf32>
  return
}
