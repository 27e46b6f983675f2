// RUN: fnc-opt %s -fnc-keep-inner-loops | FileCheck %s

// Innermost loops of 16 (known) iterations get an annotation that keeps
// them rolled, each its own; shorter, unknown and outer loops do not.
// CHECK-DAG: #[[U:.*]] = #llvm.loop_unroll<disable = true>
// CHECK-DAG: #[[A:.*]] = #llvm.loop_annotation<unroll = #[[U]], parallelAccesses = #{{.*}}>
// CHECK-DAG: #[[B:.*]] = #llvm.loop_annotation<unroll = #[[U]], parallelAccesses = #{{.*}}>
// CHECK-LABEL: func @loops
func.func @loops(%m: memref<?x16xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  %f = arith.constant 1.0 : f32
  // CHECK: scf.for
  scf.for %i = %c0 to %n step %c1 {
    // CHECK: scf.for
    scf.for %j = %c0 to %c16 step %c1 {
      memref.store %f, %m[%i, %j] : memref<?x16xf32>
    // CHECK: } {loop_annotation = #[[A]]}
    }
    // CHECK: scf.for
    scf.for %j = %c0 to %c16 step %c1 {
      memref.store %f, %m[%i, %j] : memref<?x16xf32>
    // CHECK: } {loop_annotation = #[[B]]}
    }
    // CHECK: scf.for
    scf.for %j = %c0 to %c4 step %c1 {
      // CHECK-NEXT: memref.store
      memref.store %f, %m[%i, %j] : memref<?x16xf32>
    // CHECK-NEXT: }{{$}}
    }
    // CHECK: scf.for
    scf.for %j = %c0 to %n step %c1 {
      // CHECK-NEXT: memref.store
      memref.store %f, %m[%i, %j] : memref<?x16xf32>
    // CHECK-NEXT: }{{$}}
    }
  // CHECK-NEXT: }{{$}}
  // CHECK-NEXT: return
  }
  return
}
