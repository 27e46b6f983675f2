// RUN: fnc-opt %s -fnc-keep-inner-loops | FileCheck %s

// Innermost loops of 16 (known) iterations get an annotation that keeps
// them rolled, each its own; shorter, unknown and outer loops do not,
// except a short loop (4 to 15 trips) whose body is heavy with math ops,
// which gets an annotation that asks LLVM to vectorize it.
// CHECK-DAG: #[[U:.*]] = #llvm.loop_unroll<disable = true>
// CHECK-DAG: #[[A:.*]] = #llvm.loop_annotation<unroll = #[[U]], parallelAccesses = #{{.*}}>
// CHECK-DAG: #[[B:.*]] = #llvm.loop_annotation<unroll = #[[U]], parallelAccesses = #{{.*}}>
// CHECK-DAG: #[[V:.*]] = #llvm.loop_vectorize<disable = false>
// CHECK-DAG: #[[S:.*]] = #llvm.loop_annotation<vectorize = #[[V]], parallelAccesses = #{{.*}}>
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

// CHECK-LABEL: func @short_math_loops
func.func @short_math_loops(%m: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c8 = arith.constant 8 : index
  // Two transcendentals over 8 elements: vectorized on request.
  // CHECK: scf.for
  scf.for %i = %c0 to %c8 step %c1 {
    %x = memref.load %m[%i] : memref<8xf32>
    %t = math.tanh %x : f32
    %e = math.exp %t : f32
    memref.store %e, %m[%i] : memref<8xf32>
  // CHECK: } {loop_annotation = #[[S]]}
  }
  // One cheap op over 8 elements, or math over 2: left to LLVM's unroller.
  // CHECK: scf.for
  scf.for %i = %c0 to %c8 step %c1 {
    %x = memref.load %m[%i] : memref<8xf32>
    %y = arith.addf %x, %x : f32
    memref.store %y, %m[%i] : memref<8xf32>
  // CHECK: }{{$}}
  }
  // CHECK: scf.for
  scf.for %i = %c0 to %c2 step %c1 {
    %x = memref.load %m[%i] : memref<8xf32>
    %t = math.tanh %x : f32
    %e = math.exp %t : f32
    memref.store %e, %m[%i] : memref<8xf32>
  // CHECK: }{{$}}
  }
  // A body that branches, or that is vector code already (LLVM would warn
  // that it cannot vectorize them): left alone.
  // CHECK: scf.for
  scf.for %i = %c0 to %c8 step %c1 {
    %x = memref.load %m[%i] : memref<8xf32>
    %t = math.tanh %x : f32
    %e = math.exp %t : f32
    %p = arith.cmpf ogt, %e, %x : f32
    scf.if %p {
      memref.store %e, %m[%i] : memref<8xf32>
    }
  // CHECK: }{{$}}
  }
  // CHECK: scf.for
  %v0 = arith.constant dense<1.0> : vector<8xf32>
  %r = scf.for %i = %c0 to %c8 step %c1 iter_args(%acc = %v0) -> vector<8xf32> {
    %x = vector.load %m[%c0] : memref<8xf32>, vector<8xf32>
    %t = math.tanh %x : vector<8xf32>
    %e = math.exp %t : vector<8xf32>
    %s = arith.addf %acc, %e : vector<8xf32>
    scf.yield %s : vector<8xf32>
  // CHECK: }{{$}}
  }
  vector.store %r, %m[%c0] : memref<8xf32>, vector<8xf32>
  return
}
