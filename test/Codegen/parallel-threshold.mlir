// RUN: fnc-opt %s -split-input-file -fnc-parallel-threshold=grain=1024 | FileCheck %s

// 16 x 16 = 256 iterations: below the grain, becomes sequential.
// CHECK-LABEL: func @small
func.func @small(%m: memref<16x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %f = arith.constant 1.0 : f32
  // CHECK-NOT: scf.parallel
  // CHECK: scf.for
  // CHECK: scf.for
  // CHECK: memref.store
  scf.parallel (%i, %j) = (%c0, %c0) to (%c16, %c16) step (%c1, %c1) {
    memref.store %f, %m[%i, %j] : memref<16x16xf32>
  }
  return
}

// -----

// 64 x 64 = 4096 iterations, counting the nested sequential loop: stays
// parallel.
// CHECK-LABEL: func @big
func.func @big(%m: memref<64x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %f = arith.constant 1.0 : f32
  // CHECK: scf.parallel
  // CHECK: scf.for
  scf.parallel (%i) = (%c0) to (%c64) step (%c1) {
    scf.for %j = %c0 to %c64 step %c1 {
      memref.store %f, %m[%i, %j] : memref<64x64xf32>
    }
  }
  return
}

// -----

// Unknown trip count: versioned on the work at run time.
// CHECK-LABEL: func @dynamic
func.func @dynamic(%m: memref<?xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %f = arith.constant 1.0 : f32
  // CHECK: %[[WORK:.*]] = arith.muli
  // CHECK: %[[BIG:.*]] = arith.cmpi sge, %[[WORK]], %c1024
  // CHECK: scf.if %[[BIG]] {
  // CHECK:   scf.parallel
  // CHECK: } else {
  // CHECK:   scf.for
  // CHECK-NOT: scf.parallel
  scf.parallel (%i) = (%c0) to (%n) step (%c1) {
    memref.store %f, %m[%i] : memref<?xf32>
  }
  return
}
