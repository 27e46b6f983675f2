// RUN: fnc-opt %s -split-input-file -fnc-elide-loop-condition-copies | FileCheck %s

// A state computed anew each iteration (the body yields a buffer of its
// own) from an initial value only the loop uses: the condition passes its
// argument on, without the copy.
// CHECK-LABEL: func @new_state
// CHECK: scf.while (%[[A:.*]] = %{{.*}}) : (memref<4xf32>) -> memref<4xf32> {
// CHECK-NOT: memref.copy
// CHECK: scf.condition(%{{.*}}) %[[A]] : memref<4xf32>
func.func @new_state(%x: memref<4xf32>, %n: index) -> memref<4xf32> {
  %init = memref.alloc() : memref<4xf32>
  memref.copy %x, %init : memref<4xf32> to memref<4xf32>
  %c0 = arith.constant 0 : index
  %r = scf.while (%a = %init) : (memref<4xf32>) -> memref<4xf32> {
    %v = memref.load %a[%c0] : memref<4xf32>
    %go = arith.cmpf olt, %v, %v : f32
    %copy = memref.alloc() : memref<4xf32>
    memref.copy %a, %copy : memref<4xf32> to memref<4xf32>
    scf.condition(%go) %copy : memref<4xf32>
  } do {
  ^bb0(%b: memref<4xf32>):
    %next = memref.alloc() : memref<4xf32>
    memref.copy %b, %next : memref<4xf32> to memref<4xf32>
    scf.yield %next : memref<4xf32>
  }
  return %r : memref<4xf32>
}

// -----

// A buffer that doubles when full (scf.if: a new one or the same), written
// in place: no copy of it either.
// CHECK-LABEL: func @growing
// CHECK: scf.while (%[[A:.*]] = %{{.*}}) : (memref<?xf32>) -> memref<?xf32> {
// CHECK-NOT: memref.copy
// CHECK: scf.condition(%{{.*}}) %[[A]] : memref<?xf32>
func.func @growing(%n: index, %grow: i1) -> memref<?xf32> {
  %c0 = arith.constant 0 : index
  %init = memref.alloc(%n) : memref<?xf32>
  %r = scf.while (%a = %init) : (memref<?xf32>) -> memref<?xf32> {
    %d = memref.dim %a, %c0 : memref<?xf32>
    %go = arith.cmpi ult, %d, %n : index
    %copy = memref.alloc(%d) : memref<?xf32>
    memref.copy %a, %copy : memref<?xf32> to memref<?xf32>
    scf.condition(%go) %copy : memref<?xf32>
  } do {
  ^bb0(%b: memref<?xf32>):
    %next = scf.if %grow -> memref<?xf32> {
      %d = memref.dim %b, %c0 : memref<?xf32>
      %twice = arith.addi %d, %d : index
      %more = memref.alloc(%twice) : memref<?xf32>
      scf.yield %more : memref<?xf32>
    } else {
      scf.yield %b : memref<?xf32>
    }
    scf.yield %next : memref<?xf32>
  }
  return %r : memref<?xf32>
}

// -----

// The initial value is a function argument, read after the loop, or taken
// twice: the copy stays (the body may write in place what the caller or
// the code after the loop still reads).
// CHECK-LABEL: func @not_the_loops
// CHECK-COUNT-2: memref.copy %{{.*}}, %{{.*}} : memref<4xf32> to memref<4xf32>
// CHECK-NOT: memref.copy
// CHECK: return
func.func @not_the_loops(%x: memref<4xf32>, %go: i1)
    -> (memref<4xf32>, memref<4xf32>, memref<4xf32>, f32) {
  %c0 = arith.constant 0 : index
  %r = scf.while (%a = %x) : (memref<4xf32>) -> memref<4xf32> {
    %copy = memref.alloc() : memref<4xf32>
    memref.copy %a, %copy : memref<4xf32> to memref<4xf32>
    scf.condition(%go) %copy : memref<4xf32>
  } do {
  ^bb0(%b: memref<4xf32>):
    %next = memref.alloc() : memref<4xf32>
    scf.yield %next : memref<4xf32>
  }
  %init = memref.alloc() : memref<4xf32>
  %s:2 = scf.while (%a = %init, %a2 = %init)
      : (memref<4xf32>, memref<4xf32>) -> (memref<4xf32>, memref<4xf32>) {
    %copy = memref.alloc() : memref<4xf32>
    memref.copy %a, %copy : memref<4xf32> to memref<4xf32>
    scf.condition(%go) %copy, %a2 : memref<4xf32>, memref<4xf32>
  } do {
  ^bb0(%b: memref<4xf32>, %b2: memref<4xf32>):
    %next = memref.alloc() : memref<4xf32>
    scf.yield %next, %b2 : memref<4xf32>, memref<4xf32>
  }
  %later = memref.load %init[%c0] : memref<4xf32>
  return %r, %s#0, %s#1, %later : memref<4xf32>, memref<4xf32>, memref<4xf32>, f32
}

// -----

// The body yields one buffer twice, or passes a carried buffer on at
// another position: the copies keep the loop's values apart.
// CHECK-LABEL: func @shared_yields
// CHECK-COUNT-4: memref.copy
// CHECK-NOT: memref.copy
// CHECK: return
func.func @shared_yields(%go: i1) -> (memref<4xf32>, memref<4xf32>,
                                      memref<4xf32>, memref<4xf32>) {
  %i1 = memref.alloc() : memref<4xf32>
  %i2 = memref.alloc() : memref<4xf32>
  %r:2 = scf.while (%a = %i1, %c = %i2)
      : (memref<4xf32>, memref<4xf32>) -> (memref<4xf32>, memref<4xf32>) {
    %x = memref.alloc() : memref<4xf32>
    memref.copy %a, %x : memref<4xf32> to memref<4xf32>
    %y = memref.alloc() : memref<4xf32>
    memref.copy %c, %y : memref<4xf32> to memref<4xf32>
    scf.condition(%go) %x, %y : memref<4xf32>, memref<4xf32>
  } do {
  ^bb0(%b: memref<4xf32>, %d: memref<4xf32>):
    %next = memref.alloc() : memref<4xf32>
    scf.yield %next, %next : memref<4xf32>, memref<4xf32>
  }
  %i3 = memref.alloc() : memref<4xf32>
  %i4 = memref.alloc() : memref<4xf32>
  %s:2 = scf.while (%a = %i3, %c = %i4)
      : (memref<4xf32>, memref<4xf32>) -> (memref<4xf32>, memref<4xf32>) {
    %x = memref.alloc() : memref<4xf32>
    memref.copy %a, %x : memref<4xf32> to memref<4xf32>
    %y = memref.alloc() : memref<4xf32>
    memref.copy %c, %y : memref<4xf32> to memref<4xf32>
    scf.condition(%go) %x, %y : memref<4xf32>, memref<4xf32>
  } do {
  ^bb0(%b: memref<4xf32>, %d: memref<4xf32>):
    // (b, d) -> (d, b): a swap keeps its copies too (conservative).
    scf.yield %d, %b : memref<4xf32>, memref<4xf32>
  }
  return %r#0, %r#1, %s#0, %s#1 : memref<4xf32>, memref<4xf32>, memref<4xf32>, memref<4xf32>
}
