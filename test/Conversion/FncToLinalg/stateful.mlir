// RUN: fnc-opt %s -split-input-file -fnc-lower-to-linalg | FileCheck %s

// Variables are memref arguments, read by copy and updated in place. Every
// function takes the call's runtime context first.
// CHECK-LABEL: func @variables
// CHECK-SAME: (%[[CTX:[^:]*]]: memref<3xi64>, %[[V:[^:]*]]: memref<3xf32>, %[[X:[^:]*]]: tensor<3xf32> {bufferization.writable = false})
func.func @variables(%v: !fnc.variable<tensor<3xf32>>, %x: tensor<3xf32>) -> tensor<3xf32> {
  // CHECK: %[[COPY:.*]] = memref.alloc() : memref<3xf32>
  // CHECK: memref.copy %[[V]], %[[COPY]]
  // CHECK: %[[OLD:.*]] = bufferization.to_tensor %[[COPY]] restrict writable
  %0 = fnc.var_read %v : !fnc.variable<tensor<3xf32>>
  // CHECK: %[[XB:.*]] = bufferization.to_buffer %[[X]] read_only
  // CHECK: linalg.generic {{.*}} ins(%[[XB]] : {{.*}}) outs(%[[V]] : memref<3xf32>)
  // CHECK: arith.addf
  fnc.var_assign_add %v, %x : !fnc.variable<tensor<3xf32>>
  // CHECK: arith.subf
  fnc.var_assign_sub %v, %x : !fnc.variable<tensor<3xf32>>
  // CHECK: bufferization.materialize_in_destination %[[X]] in restrict writable %[[V]]
  fnc.var_assign %v, %x : !fnc.variable<tensor<3xf32>>
  // CHECK: return %[[OLD]]
  return %0 : tensor<3xf32>
}

// -----

// Module variables are left to the runner; bound arguments stay arguments.
// CHECK-NOT: fnc.global_variable
// CHECK-LABEL: func @bound
// CHECK-SAME: (%{{.*}}: memref<3xi64>, %{{.*}}: memref<i32>)
fnc.global_variable @counter = dense<0> : tensor<i32>
func.func @bound(%c: !fnc.variable<tensor<i32>> {fnc.bind = @counter}) {
  %one = fnc.constant dense<1> : tensor<i32>
  fnc.var_assign_add %c, %one : !fnc.variable<tensor<i32>>
  return
}

// -----

// CHECK-LABEL: func @cond
func.func @cond(%p: tensor<i1>, %a: tensor<2xf32>) -> tensor<2xf32> {
  // CHECK: %[[B:.*]] = tensor.extract %{{.*}}[] : tensor<i1>
  // CHECK: %[[R:.*]] = scf.if %[[B]] -> (tensor<2xf32>) {
  // CHECK:   scf.yield %{{.*}} : tensor<2xf32>
  // CHECK: } else {
  // CHECK:   math.exp
  // CHECK:   scf.yield
  // CHECK: return %[[R]]
  %0 = fnc.cond %p : tensor<i1> -> tensor<2xf32> {
    fnc.yield %a : tensor<2xf32>
  } else {
    %e = fnc.exp %a : tensor<2xf32>
    fnc.yield %e : tensor<2xf32>
  }
  return %0 : tensor<2xf32>
}

// -----

// CHECK-LABEL: func @while
func.func @while(%n: tensor<i32>, %x: tensor<2xf32>) -> tensor<2xf32> {
  // CHECK: scf.while (%[[I:.*]] = %{{.*}}, %[[Y:.*]] = %{{.*}}) : (tensor<i32>, tensor<2xf32>) -> (tensor<i32>, tensor<2xf32>) {
  // CHECK:   %[[C:.*]] = tensor.extract %{{.*}}[] : tensor<i1>
  // CHECK:   scf.condition(%[[C]]) %[[I]], %[[Y]]
  // CHECK: } do {
  // CHECK:   scf.yield
  %zero = fnc.constant dense<0> : tensor<i32>
  %one = fnc.constant dense<1> : tensor<i32>
  %r:2 = fnc.while (%zero, %x) : tensor<i32>, tensor<2xf32> cond {
  ^bb0(%i: tensor<i32>, %y: tensor<2xf32>):
    %c = fnc.compare lt, %i, %n : tensor<i32>, tensor<i32>
    fnc.condition %c, %i, %y : tensor<i1>, tensor<i32>, tensor<2xf32>
  } do {
  ^bb0(%i: tensor<i32>, %y: tensor<2xf32>):
    %j = fnc.add %i, %one : tensor<i32>, tensor<i32>
    %z = fnc.add %y, %y : tensor<2xf32>, tensor<2xf32>
    fnc.yield %j, %z : tensor<i32>, tensor<2xf32>
  }
  return %r#1 : tensor<2xf32>
}

// -----

// print: text from private constant globals, tensors through the runtime.
// CHECK: memref.global "private" constant @__fnc_text_{{.*}} : memref<4xi8> = dense<[120, 32, 61, 32]>
// CHECK-LABEL: func @print
// CHECK-SAME: (%[[CTX:[^:]*]]: memref<3xi64>
func.func @print(%a: tensor<2xf32>, %i: tensor<i64>) {
  // CHECK: call @fncPrintText(%[[CTX]], 
  // CHECK: %[[B:.*]] = bufferization.to_buffer %{{.*}} read_only : tensor<2xf32> to memref<2xf32, strided<[?], offset: ?>>
  // CHECK: %[[U:.*]] = memref.cast %[[B]] {{.*}} to memref<*xf32>
  // CHECK: call @fncPrintTensorF32(%[[CTX]], %[[U]])
  // CHECK: call @fncPrintText(
  // CHECK: call @fncPrintTensorI64(
  // CHECK: call @fncPrintNewline(%[[CTX]])
  fnc.print "x = {}, {}" %a, %i : tensor<2xf32>, tensor<i64>
  return
}

// -----

// Random ops fill a fresh buffer through the runtime: the op seed keys the
// stream, unseeded ops get stable keys of their own.
// CHECK-LABEL: func @random
func.func @random(%n: index) -> (tensor<?xf32>, tensor<2xf64>) {
  // CHECK: %[[M:.*]] = memref.alloc(%{{.*}}) : memref<?xf32>
  // CHECK: %[[K:.*]] = arith.constant 7 : i64
  // CHECK: call @fncRandomUniformF32(%{{.*}}, %{{.*}}, %[[K]], %{{.*}}, %{{.*}})
  // CHECK: bufferization.to_tensor %[[M]] restrict writable
  %0 = fnc.random_uniform [%n] min -1.0 max 1.0 seed 7 : tensor<?xf32>
  // CHECK: arith.constant 4294967296 : i64
  // CHECK: call @fncRandomNormalF64(
  %1 = fnc.random_normal mean 0.0 stddev 1.0 : tensor<2xf64>
  return %0, %1 : tensor<?xf32>, tensor<2xf64>
}
