// RUN: fnc-opt %s -split-input-file -fnc-check-allocations -verify-diagnostics | FileCheck %s

// A dynamic allocation's byte size is computed with overflow checks before
// it; an overflow reports the dim through the function's context.
// CHECK: func.func private @fncSizeOverflow(memref<3xi64>, i64) attributes {llvm.emit_c_interface}
// CHECK-LABEL: func @dynamic
// CHECK-SAME: (%[[CTX:[^:]*]]: memref<3xi64>, %[[N:[^:]*]]: index, %[[K:[^:]*]]: index)
func.func @dynamic(%ctx: memref<3xi64>, %n: index, %k: index) -> memref<?x3x?xf32> {
  // CHECK: %[[C12:.*]] = arith.constant 12 : i64
  // CHECK: %[[NI:.*]] = arith.index_cast %[[N]] : index to i64
  // CHECK: %[[LO:.*]], %[[HI:.*]] = arith.mului_extended %[[C12]], %[[NI]] : i64
  // CHECK: %[[KI:.*]] = arith.index_cast %[[K]] : index to i64
  // CHECK: arith.mului_extended %[[LO]], %[[KI]] : i64
  // CHECK: scf.if %{{.*}} {
  // CHECK:   func.call @fncSizeOverflow(%[[CTX]], %{{.*}}) : (memref<3xi64>, i64) -> ()
  // CHECK: memref.alloc(%[[N]], %[[K]]) : memref<?x3x?xf32>
  %m = memref.alloc(%n, %k) : memref<?x3x?xf32>
  return %m : memref<?x3x?xf32>
}

// -----

// Static allocations need no run-time check.
// CHECK-LABEL: func @static
// CHECK-NOT: mului_extended
// CHECK: memref.alloc() : memref<4xf32>
func.func @static(%ctx: memref<3xi64>) -> memref<4xf32> {
  %m = memref.alloc() : memref<4xf32>
  return %m : memref<4xf32>
}

// -----

// A static size that overflows is a compile-time error.
func.func @absurd(%ctx: memref<3xi64>) -> memref<4611686018427387904x4xf32> {
  // expected-error @+1 {{the byte size of 'memref<4611686018427387904x4xf32>' does not fit in 64 bits}}
  %m = memref.alloc() : memref<4611686018427387904x4xf32>
  return %m : memref<4611686018427387904x4xf32>
}
