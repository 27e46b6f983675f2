// RUN: fnc-opt %s -split-input-file -fnc-outline-kernels | FileCheck %s
// RUN: fnc-opt %s -split-input-file -fnc-outline-kernels=min-nests=4 | FileCheck %s --check-prefix=FEW

// Each loop nest becomes a private function of internal linkage, called
// with no_inline where it was, in the order of the nests. Values from
// above are arguments, constants are cloned (the trip count stays 16), a
// loop's scalar results are the function's. A loop that carries a buffer
// (a loop of the traced program) stays; the nest inside it is outlined.
// CHECK-LABEL: func.func @step(
// CHECK-SAME: %[[A:.*]]: memref<16xf32>, %[[B:.*]]: memref<?xf32>, %[[N:.*]]: index, %[[S:.*]]: f32)
// CHECK: call @step_nest0(%[[A]], %[[S]]) {no_inline} : (memref<16xf32>, f32) -> ()
// CHECK: %[[R:.*]] = call @step_nest1(%[[N]], %[[S]], %[[B]]) {no_inline} : (index, f32, memref<?xf32>) -> f32
// CHECK: scf.for {{.*}} iter_args(%[[BUF:.*]] = %[[B]]) -> (memref<?xf32>)
// CHECK-NEXT: func.call @step_nest2(%[[S]], %[[BUF]]) {no_inline}
// CHECK: return %[[R]]
// CHECK: func.func private @step_nest0(%[[A0:.*]]: memref<16xf32>, %[[S0:.*]]: f32) attributes {llvm.linkage = #llvm.linkage<internal>}
// CHECK-DAG: %[[C16:.*]] = arith.constant 16 : index
// CHECK: scf.for %{{.*}} = %{{.*}} to %[[C16]]
// CHECK: arith.mulf %{{.*}}, %[[S0]]
// CHECK: return
// CHECK: func.func private @step_nest1({{.*}}) -> f32 attributes {llvm.linkage = #llvm.linkage<internal>}
// CHECK: %[[SUM:.*]] = scf.for
// CHECK: return %[[SUM]] : f32
// CHECK: func.func private @step_nest2(
// FEW-LABEL: func.func @step(
// FEW-NOT: call
// FEW: return
func.func @step(%a: memref<16xf32>, %b: memref<?xf32>, %n: index, %s: f32) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  scf.for %i = %c0 to %c16 step %c1 {
    %v = memref.load %a[%i] : memref<16xf32>
    %w = arith.mulf %v, %s : f32
    memref.store %w, %a[%i] : memref<16xf32>
  }
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %s) -> f32 {
    %v = memref.load %b[%i] : memref<?xf32>
    %w = arith.addf %v, %acc : f32
    scf.yield %w : f32
  }
  %m = scf.for %i = %c0 to %n step %c1 iter_args(%buf = %b) -> memref<?xf32> {
    scf.for %j = %c0 to %c16 step %c1 {
      memref.store %s, %buf[%j] : memref<?xf32>
    }
    scf.yield %buf : memref<?xf32>
  }
  return %r : f32
}

// -----

// OpenMP regions are nests; the branches of an scf.if (fnc.cond) are
// looked into.
// CHECK-LABEL: func.func @branches(
// CHECK: scf.if
// CHECK-NEXT: func.call @branches_nest0({{.*}}) {no_inline}
// CHECK: else
// CHECK-NEXT: func.call @branches_nest1({{.*}}) {no_inline}
// CHECK: func.func private @branches_nest0(
// CHECK: omp.parallel
// CHECK: func.func private @branches_nest1(
// CHECK: scf.parallel
func.func @branches(%p: i1, %a: memref<?xf32>, %n: index, %s: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.if %p {
    omp.parallel {
      omp.wsloop {
        omp.loop_nest (%i) : index = (%c0) to (%n) step (%c1) {
          memref.store %s, %a[%i] : memref<?xf32>
          omp.yield
        }
      }
      omp.terminator
    }
  } else {
    scf.parallel (%i) = (%c0) to (%n) step (%c1) {
      memref.store %s, %a[%i] : memref<?xf32>
    }
  }
  return
}

// -----

// One nest: nothing to split.
// CHECK-LABEL: func.func @single(
// CHECK-NOT: call
// CHECK: scf.for
// CHECK-NOT: func.func private
func.func @single(%a: memref<?xf32>, %n: index, %s: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    memref.store %s, %a[%i] : memref<?xf32>
  }
  return
}

// -----

// Nests that do the same, on other values, call one function: LLVM
// compiles the repeated layers of a deep model once. A different constant
// makes a different function.
// CHECK-LABEL: func.func @twice(
// CHECK-SAME: %[[A:.*]]: memref<?xf32>, %[[B:.*]]: memref<?xf32>, %[[N:.*]]: index, %[[S:.*]]: f32, %[[T:.*]]: f32)
// CHECK: call @twice_nest0(%[[N]], %[[S]], %[[A]]) {no_inline}
// CHECK: call @twice_nest0(%[[N]], %[[T]], %[[B]]) {no_inline}
// CHECK: call @twice_nest2(%[[N]], %[[T]], %[[B]]) {no_inline}
// CHECK: func.func private @twice_nest0(
// CHECK-NOT: func.func private @twice_nest1(
// CHECK: func.func private @twice_nest2(
// CHECK: arith.constant 2 : index
func.func @twice(%a: memref<?xf32>, %b: memref<?xf32>, %n: index, %s: f32, %t: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  scf.for %i = %c0 to %n step %c1 {
    memref.store %s, %a[%i] : memref<?xf32>
  }
  scf.for %i = %c0 to %n step %c1 {
    memref.store %t, %b[%i] : memref<?xf32>
  }
  scf.for %i = %c0 to %n step %c2 {
    memref.store %t, %b[%i] : memref<?xf32>
  }
  return
}
