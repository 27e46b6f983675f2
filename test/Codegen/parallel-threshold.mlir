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

// -----

// A parallel nest keeps only the leading dims OpenMP needs (here the first:
// 256 iterations) parallel; the others become an inner loop nest that LLVM
// vectorizes, instead of being linearized with the parallel ones.
// CHECK-LABEL: func @leading
func.func @leading(%m: memref<256x784xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c256 = arith.constant 256 : index
  %c784 = arith.constant 784 : index
  %f = arith.constant 1.0 : f32
  // CHECK: scf.parallel (%[[I:.*]]) = (%c0) to (%c256)
  // CHECK-NEXT: scf.for %[[J:.*]] = %c0 to %c784
  // CHECK-NEXT: memref.store %{{.*}}, %{{.*}}[%[[I]], %[[J]]]
  scf.parallel (%i, %j) = (%c0, %c0) to (%c256, %c784) step (%c1, %c1) {
    memref.store %f, %m[%i, %j] : memref<256x784xf32>
  }
  return
}

// -----

// A short leading dim (2) keeps the next one parallel too (2 x 64 >= 64
// chunks); a nested scf.parallel runs sequentially inside.
// CHECK-LABEL: func @short_leading
func.func @short_leading(%m: memref<2x64x64x8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c8 = arith.constant 8 : index
  %c64 = arith.constant 64 : index
  %f = arith.constant 1.0 : f32
  // CHECK: scf.parallel (%[[A:.*]], %[[B:.*]]) = (%c0, %c0) to (%c2, %c64)
  // CHECK-NEXT: scf.for %[[C:.*]] = %c0 to %c64
  // CHECK-NEXT: scf.for %[[D:.*]] = %c0 to %c8
  // CHECK-NOT: scf.parallel
  // CHECK: memref.store %{{.*}}, %{{.*}}[%[[A]], %[[B]], %[[C]], %[[D]]]
  scf.parallel (%a, %b, %c) = (%c0, %c0, %c0) to (%c2, %c64, %c64) step (%c1, %c1, %c1) {
    scf.parallel (%d) = (%c0) to (%c8) step (%c1) {
      memref.store %f, %m[%a, %b, %c, %d] : memref<2x64x64x8xf32>
    }
  }
  return
}
