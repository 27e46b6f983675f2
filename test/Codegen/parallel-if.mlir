// RUN: fnc-opt %s -fnc-parallel-threshold=grain=1024 -convert-scf-to-openmp -fnc-parallel-if | FileCheck %s

// A nest whose work is known only at run time: fnc-parallel-threshold
// versions it (parallel above the grain, sequential below); fnc-parallel-if
// turns the two versions into one OpenMP region with an if clause.
// CHECK-LABEL: func @dynamic
// CHECK-SAME: (%[[M:.*]]: memref<?x64xf32>)
func.func @dynamic(%m: memref<?x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %f = arith.constant 1.0 : f32
  %n = memref.dim %m, %c0 : memref<?x64xf32>
  // CHECK: %[[N:.*]] = memref.dim %[[M]]
  // CHECK: %[[WORK:.*]] = arith.muli
  // CHECK: %[[BIG:.*]] = arith.cmpi sge, %[[WORK]]
  // CHECK-NOT: scf.if
  // CHECK: omp.parallel if(%[[BIG]])
  // CHECK: omp.wsloop
  // CHECK: memref.store
  // CHECK-NOT: scf.for
  // CHECK-NOT: scf.if
  // CHECK: return
  scf.parallel (%i, %j) = (%c0, %c0) to (%n, %c64) step (%c1, %c1) {
    memref.store %f, %m[%i, %j] : memref<?x64xf32>
  }
  return
}
