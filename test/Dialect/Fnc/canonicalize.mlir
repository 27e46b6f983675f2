// RUN: fnc-opt %s -split-input-file -canonicalize | FileCheck %s

// CHECK-LABEL: func @fold_binary_constants
func.func @fold_binary_constants() -> (tensor<2xf32>, tensor<2x2xi32>, tensor<2xi1>) {
  %a = fnc.constant dense<[1.5, -2.0]> : tensor<2xf32>
  %b = fnc.constant dense<2.0> : tensor<f32>
  %i = fnc.constant dense<[[7, -7], [3, 4]]> : tensor<2x2xi32>
  %j = fnc.constant dense<[2, -3]> : tensor<2xi32>
  // (a + 2) * 2 = [7, 0]
  %0 = fnc.add %a, %b : tensor<2xf32>, tensor<f32>
  %1 = fnc.mul %0, %b : tensor<2xf32>, tensor<f32>
  // floor_mod(i, j) broadcasts j over rows: [[1, -1], [1, -2]]
  %2 = fnc.floor_mod %i, %j : tensor<2x2xi32>, tensor<2xi32>
  %3 = fnc.compare lt, %a, %b : tensor<2xf32>, tensor<f32>
  // CHECK-DAG: %[[F:.*]] = fnc.constant dense<[7.000000e+00, 0.000000e+00]> : tensor<2xf32>
  // CHECK-DAG: %[[I:.*]] = fnc.constant dense<{{\[}}[1, -1], [1, -2]]> : tensor<2x2xi32>
  // CHECK-DAG: %[[B:.*]] = fnc.constant dense<true> : tensor<2xi1>
  // CHECK: return %[[F]], %[[I]], %[[B]]
  return %1, %2, %3 : tensor<2xf32>, tensor<2x2xi32>, tensor<2xi1>
}

// -----

// CHECK-LABEL: func @fold_splats_of_any_size
func.func @fold_splats_of_any_size() -> tensor<4096x4096xf32> {
  %a = fnc.fill 3.0 : tensor<4096x4096xf32>
  %b = fnc.constant dense<0.5> : tensor<4096x4096xf32>
  %0 = fnc.sub %a, %b : tensor<4096x4096xf32>, tensor<4096x4096xf32>
  // CHECK: %[[C:.*]] = fnc.constant dense<2.500000e+00> : tensor<4096x4096xf32>
  // CHECK: return %[[C]]
  return %0 : tensor<4096x4096xf32>
}

// -----

// Integer semantics of the folder: truncating div, floor div, wrap-around.
// CHECK-LABEL: func @fold_integer_semantics
func.func @fold_integer_semantics() -> (tensor<2xi32>, tensor<2xi32>, tensor<i32>, tensor<2xi64>) {
  %a = fnc.constant dense<[7, -7]> : tensor<2xi32>
  %b = fnc.constant dense<2> : tensor<i32>
  %max = fnc.constant dense<2147483647> : tensor<i32>
  %0 = fnc.div %a, %b : tensor<2xi32>, tensor<i32>
  %1 = fnc.floor_div %a, %b : tensor<2xi32>, tensor<i32>
  %2 = fnc.add %max, %b : tensor<i32>, tensor<i32>
  %e = fnc.constant dense<[3, 0]> : tensor<2xi64>
  %base = fnc.constant dense<-2> : tensor<i64>
  %3 = fnc.pow %base, %e : tensor<i64>, tensor<2xi64>
  // CHECK-DAG: dense<[3, -3]> : tensor<2xi32>
  // CHECK-DAG: dense<[3, -4]> : tensor<2xi32>
  // CHECK-DAG: dense<-2147483647> : tensor<i32>
  // CHECK-DAG: dense<[-8, 1]> : tensor<2xi64>
  return %0, %1, %2, %3 : tensor<2xi32>, tensor<2xi32>, tensor<i32>, tensor<2xi64>
}

// -----

// Division by zero is a run-time error, never a folded constant.
// CHECK-LABEL: func @no_fold_division_by_zero
func.func @no_fold_division_by_zero() -> (tensor<i32>, tensor<i32>) {
  %a = fnc.constant dense<7> : tensor<i32>
  %z = fnc.constant dense<0> : tensor<i32>
  // CHECK: fnc.div
  %0 = fnc.div %a, %z : tensor<i32>, tensor<i32>
  // CHECK: fnc.floor_mod
  %1 = fnc.floor_mod %a, %z : tensor<i32>, tensor<i32>
  return %0, %1 : tensor<i32>, tensor<i32>
}

// -----

// CHECK-LABEL: func @fold_unary_and_cast
func.func @fold_unary_and_cast() -> (tensor<3xf32>, tensor<3xi32>, tensor<3xi1>, tensor<2xf64>) {
  %a = fnc.constant dense<[-1.5, 0.0, 2.7]> : tensor<3xf32>
  %0 = fnc.relu %a : tensor<3xf32>
  %1 = fnc.cast %a : tensor<3xf32> to tensor<3xi32>
  %2 = fnc.cast %a : tensor<3xf32> to tensor<3xi1>
  %c = fnc.constant dense<[0.0, 4.0]> : tensor<2xf64>
  %3 = fnc.sqrt %c : tensor<2xf64>
  %4 = fnc.exp %3 : tensor<2xf64>
  // CHECK-DAG: dense<[0.000000e+00, 0.000000e+00, 2.700000e+00]> : tensor<3xf32>
  // CHECK-DAG: dense<[-1, 0, 2]> : tensor<3xi32>
  // CHECK-DAG: dense<[true, false, true]> : tensor<3xi1>
  // CHECK-DAG: dense<[1.000000e+00, 7.3890560989306504]> : tensor<2xf64>
  return %0, %1, %2, %4 : tensor<3xf32>, tensor<3xi32>, tensor<3xi1>, tensor<2xf64>
}

// -----

// Large non-splat constants are not folded (no IR bloat).
// CHECK-LABEL: func @no_fold_large
func.func @no_fold_large(%x: tensor<2048xf32>) -> tensor<2048xf32> {
  %a = fnc.range 0.0, 2048.0, 1.0 : tensor<2048xf32>
  // CHECK: fnc.neg
  %0 = fnc.neg %a : tensor<2048xf32>
  return %0 : tensor<2048xf32>
}

// -----

// CHECK-LABEL: func @identities
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xi32>, %[[F:.*]]: tensor<2x3xf32>)
func.func @identities(%x: tensor<2x3xi32>, %f: tensor<2x3xf32>)
    -> (tensor<2x3xi32>, tensor<2x3xi32>, tensor<2x3xi32>, tensor<2x3xi32>,
        tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) {
  %zero = fnc.constant dense<0> : tensor<i32>
  %one = fnc.constant dense<1> : tensor<2x3xi32>
  %fzero = fnc.constant dense<0.0> : tensor<2x3xf32>
  %fnegzero = fnc.constant dense<-0.0> : tensor<2x3xf32>
  %fone = fnc.constant dense<1.0> : tensor<2x3xf32>
  %0 = fnc.add %x, %zero : tensor<2x3xi32>, tensor<i32>
  %1 = fnc.add %zero, %x : tensor<i32>, tensor<2x3xi32>
  %2 = fnc.mul %x, %one : tensor<2x3xi32>, tensor<2x3xi32>
  // x * 0 -> zeros for integers only.
  %3 = fnc.mul %x, %zero : tensor<2x3xi32>, tensor<i32>
  // x + 0.0 is not x for x = -0.0; x + -0.0 is.
  %4 = fnc.add %f, %fzero : tensor<2x3xf32>, tensor<2x3xf32>
  %5 = fnc.add %f, %fnegzero : tensor<2x3xf32>, tensor<2x3xf32>
  %6 = fnc.mul %f, %fzero : tensor<2x3xf32>, tensor<2x3xf32>
  %7 = fnc.div %f, %fone : tensor<2x3xf32>, tensor<2x3xf32>
  // CHECK-DAG: %[[Z:.*]] = fnc.constant dense<0> : tensor<2x3xi32>
  // CHECK-DAG: %[[ADD:.*]] = fnc.add %[[F]], %{{.*}} : tensor<2x3xf32>, tensor<2x3xf32>
  // CHECK-DAG: %[[MUL:.*]] = fnc.mul %[[F]], %{{.*}} : tensor<2x3xf32>, tensor<2x3xf32>
  // CHECK: return %[[X]], %[[X]], %[[X]], %[[Z]], %[[ADD]], %[[F]], %[[MUL]], %[[F]]
  return %0, %1, %2, %3, %4, %5, %6, %7 : tensor<2x3xi32>, tensor<2x3xi32>, tensor<2x3xi32>, tensor<2x3xi32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>
}

// -----

// An identity that would change the result type (broadcasting) is kept.
// CHECK-LABEL: func @identity_keeps_broadcast
func.func @identity_keeps_broadcast(%x: tensor<3xi32>) -> tensor<2x3xi32> {
  %zero = fnc.constant dense<0> : tensor<2x3xi32>
  // CHECK: fnc.add
  %0 = fnc.add %x, %zero : tensor<3xi32>, tensor<2x3xi32>
  return %0 : tensor<2x3xi32>
}

// -----

// CHECK-LABEL: func @transpose_chains
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xf32>)
func.func @transpose_chains(%x: tensor<2x3x4xf32>) -> (tensor<2x3x4xf32>, tensor<4x2x3xf32>, tensor<2x3x4xf32>) {
  %0 = fnc.transpose %x perm [1, 0, 2] : tensor<2x3x4xf32>
  %1 = fnc.transpose %0 perm [1, 0, 2] : tensor<3x2x4xf32>
  // [2,3,4] -perm [2,0,1]-> [4,2,3]; composed with [1,0,2] first.
  %2 = fnc.transpose %0 perm [2, 1, 0] : tensor<3x2x4xf32>
  %3 = fnc.transpose %x perm [0, 1, 2] : tensor<2x3x4xf32>
  // CHECK: %[[T:.*]] = fnc.transpose %[[X]] perm [2, 0, 1] : tensor<2x3x4xf32>
  // CHECK: return %[[X]], %[[T]], %[[X]]
  return %1, %2, %3 : tensor<2x3x4xf32>, tensor<4x2x3xf32>, tensor<2x3x4xf32>
}

// -----

// CHECK-LABEL: func @reshape_chains
// CHECK-SAME: (%[[X:.*]]: tensor<2x6xf32>)
func.func @reshape_chains(%x: tensor<2x6xf32>) -> (tensor<12xf32>, tensor<2x6xf32>, tensor<2x6xf32>, tensor<2x2xi32>) {
  %0 = fnc.reshape %x : tensor<2x6xf32> -> tensor<3x4xf32>
  %1 = fnc.reshape %0 : tensor<3x4xf32> -> tensor<12xf32>
  %2 = fnc.reshape %0 : tensor<3x4xf32> -> tensor<2x6xf32>
  %3 = fnc.reshape %x : tensor<2x6xf32> -> tensor<2x6xf32>
  %c = fnc.constant dense<[1, 2, 3, 4]> : tensor<4xi32>
  %4 = fnc.reshape %c : tensor<4xi32> -> tensor<2x2xi32>
  // CHECK-DAG: %[[C:.*]] = fnc.constant dense<{{\[}}[1, 2], [3, 4]]> : tensor<2x2xi32>
  // CHECK-DAG: %[[R:.*]] = fnc.reshape %[[X]] : tensor<2x6xf32> -> tensor<12xf32>
  // CHECK: return %[[R]], %[[X]], %[[X]], %[[C]]
  return %1, %2, %3, %4 : tensor<12xf32>, tensor<2x6xf32>, tensor<2x6xf32>, tensor<2x2xi32>
}

// -----

// CHECK-LABEL: func @noop_shape_ops
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
func.func @noop_shape_ops(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<4x2x3xf32>) {
  %0 = fnc.broadcast_to %x : tensor<2x3xf32> -> tensor<2x3xf32>
  %1 = fnc.cast %x : tensor<2x3xf32> to tensor<2x3xf32>
  %2 = fnc.slice %x offsets [0, 0] sizes [2, 3] strides [1, 1] : tensor<2x3xf32>
  %3 = fnc.concat %x axis 0 : tensor<2x3xf32>
  %s = fnc.constant dense<1.0> : tensor<3xf32>
  %4 = fnc.broadcast_to %s : tensor<3xf32> -> tensor<4x2x3xf32>
  // CHECK: %[[S:.*]] = fnc.constant dense<1.000000e+00> : tensor<4x2x3xf32>
  // CHECK: return %[[X]], %[[X]], %[[X]], %[[X]], %[[S]]
  return %0, %1, %2, %3, %4 : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<4x2x3xf32>
}

// -----

// A slice that takes every dim whole, also a dynamic one to the end, is its
// input; one that starts later along the dynamic dim is not.
// CHECK-LABEL: func @slice_whole_dynamic_dim
// CHECK-SAME: (%[[X:.*]]: tensor<?x3xf32>)
func.func @slice_whole_dynamic_dim(%x: tensor<?x3xf32>) -> (tensor<?x3xf32>, tensor<?x3xf32>) {
  %0 = fnc.slice %x offsets [0, 0] sizes [-1, 3] strides [1, 1] : tensor<?x3xf32>
  %1 = fnc.slice %x offsets [1, 0] sizes [-1, 3] strides [1, 1] : tensor<?x3xf32>
  // CHECK: %[[S:.*]] = fnc.slice %[[X]] offsets [1, 0] sizes [-1, 3]
  // CHECK: return %[[X]], %[[S]]
  return %0, %1 : tensor<?x3xf32>, tensor<?x3xf32>
}

// -----

// A pad of nothing is its input.
// CHECK-LABEL: func @pad_nothing
// CHECK-SAME: (%[[X:.*]]: tensor<?x3xf32>)
func.func @pad_nothing(%x: tensor<?x3xf32>) -> (tensor<?x3xf32>, tensor<?x5xf32>) {
  %0 = fnc.pad %x low [0, 0] high [0, 0] interior [0, 0] value 1.0 : tensor<?x3xf32>
  %1 = fnc.pad %x low [0, 0] high [0, 0] interior [0, 1] value 1.0 : tensor<?x3xf32>
  // CHECK: %[[P:.*]] = fnc.pad %[[X]] low [0, 0] high [0, 0] interior [0, 1]
  // CHECK: return %[[X]], %[[P]]
  return %0, %1 : tensor<?x3xf32>, tensor<?x5xf32>
}

// -----

// CHECK-LABEL: func @cond_constant_predicate
// CHECK-SAME: (%[[A:.*]]: tensor<2xf32>)
func.func @cond_constant_predicate(%a: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
  %t = fnc.constant dense<true> : tensor<i1>
  %f = fnc.constant dense<false> : tensor<i1>
  %0 = fnc.cond %t : tensor<i1> -> tensor<2xf32> {
    %n = fnc.neg %a : tensor<2xf32>
    fnc.yield %n : tensor<2xf32>
  } else {
    fnc.yield %a : tensor<2xf32>
  }
  %1 = fnc.cond %f : tensor<i1> -> tensor<2xf32> {
    %n = fnc.neg %a : tensor<2xf32>
    fnc.yield %n : tensor<2xf32>
  } else {
    %e = fnc.exp %a : tensor<2xf32>
    fnc.yield %e : tensor<2xf32>
  }
  // CHECK-NOT: fnc.cond
  // CHECK-DAG: %[[N:.*]] = fnc.neg %[[A]]
  // CHECK-DAG: %[[E:.*]] = fnc.exp %[[A]]
  // CHECK: return %[[N]], %[[E]]
  return %0, %1 : tensor<2xf32>, tensor<2xf32>
}

// -----

// The effects of the taken branch stay; the other branch's go.
// CHECK-LABEL: func @cond_constant_predicate_effects
func.func @cond_constant_predicate_effects(%a: tensor<2xf32>) {
  %t = fnc.constant dense<true> : tensor<i1>
  fnc.cond %t : tensor<i1> {
    fnc.print "taken" %a : tensor<2xf32>
  } else {
    fnc.print "not taken" %a : tensor<2xf32>
  }
  // CHECK-NOT: fnc.cond
  // CHECK: fnc.print "taken"
  // CHECK-NOT: not taken
  return
}

// -----

// CHECK-LABEL: func @while_false
// CHECK-SAME: (%[[A:.*]]: tensor<2xf32>, %[[N:.*]]: tensor<i32>)
func.func @while_false(%a: tensor<2xf32>, %n: tensor<i32>) -> (tensor<2xf32>, tensor<i32>) {
  %0:2 = fnc.while (%a, %n) : tensor<2xf32>, tensor<i32> cond {
  ^bb0(%x: tensor<2xf32>, %i: tensor<i32>):
    %f = fnc.constant dense<false> : tensor<i1>
    fnc.condition %f, %x, %i : tensor<i1>, tensor<2xf32>, tensor<i32>
  } do {
  ^bb0(%x: tensor<2xf32>, %i: tensor<i32>):
    %y = fnc.exp %x : tensor<2xf32>
    fnc.yield %y, %i : tensor<2xf32>, tensor<i32>
  }
  // CHECK-NOT: fnc.while
  // CHECK-NOT: fnc.exp
  // CHECK: return %[[A]], %[[N]]
  return %0#0, %0#1 : tensor<2xf32>, tensor<i32>
}

// -----

// A while whose condition is not constant stays.
// CHECK-LABEL: func @while_dynamic
func.func @while_dynamic(%a: tensor<2xf32>, %p: tensor<i1>) -> tensor<2xf32> {
  // CHECK: fnc.while
  %0 = fnc.while (%a) : tensor<2xf32> cond {
  ^bb0(%x: tensor<2xf32>):
    fnc.condition %p, %x : tensor<i1>, tensor<2xf32>
  } do {
  ^bb0(%x: tensor<2xf32>):
    %y = fnc.exp %x : tensor<2xf32>
    fnc.yield %y : tensor<2xf32>
  }
  return %0 : tensor<2xf32>
}

// -----

// Unused pure ops go; effects (print, random, variable updates) stay, in
// order.
// CHECK-LABEL: func @effects_are_kept
func.func @effects_are_kept(%v: !fnc.variable<tensor<2xf32>>, %a: tensor<2xf32>) {
  %0 = fnc.exp %a : tensor<2xf32>
  %1 = fnc.random_uniform min 0.0 max 1.0 : tensor<2xf32>
  %2 = fnc.random_uniform min 0.0 max 1.0 : tensor<2xf32>
  fnc.print "a" %a : tensor<2xf32>
  fnc.var_assign %v, %a : !fnc.variable<tensor<2xf32>>
  %3 = fnc.var_read %v : !fnc.variable<tensor<2xf32>>
  fnc.print "b" %a : tensor<2xf32>
  // CHECK-NOT: fnc.exp
  // CHECK: fnc.random_uniform
  // CHECK-NEXT: fnc.random_uniform
  // CHECK-NEXT: fnc.print "a"
  // CHECK-NEXT: fnc.var_assign
  // CHECK-NEXT: fnc.print "b"
  return
}

// -----

// Two reads of a variable with an assignment between them are not merged.
// CHECK-LABEL: func @reads_around_assign
func.func @reads_around_assign(%v: !fnc.variable<tensor<2xf32>>, %a: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
  %0 = fnc.var_read %v : !fnc.variable<tensor<2xf32>>
  fnc.var_assign_add %v, %a : !fnc.variable<tensor<2xf32>>
  %1 = fnc.var_read %v : !fnc.variable<tensor<2xf32>>
  // CHECK: fnc.var_read
  // CHECK: fnc.var_assign_add
  // CHECK: fnc.var_read
  return %0, %1 : tensor<2xf32>, tensor<2xf32>
}

// -----

// CHECK-LABEL: func @pow_of_two
// CHECK-SAME: (%[[X:.*]]: tensor<3xf32>, %[[Y:.*]]: tensor<f32>)
func.func @pow_of_two(%x: tensor<3xf32>, %y: tensor<f32>) -> (tensor<3xf32>, tensor<3xf32>) {
  %two = fnc.constant dense<2.0> : tensor<f32>
  %twos = fnc.constant dense<2.0> : tensor<3xf32>
  // CHECK: %[[SQ:.*]] = fnc.mul %[[X]], %[[X]] : tensor<3xf32>, tensor<3xf32>
  %0 = fnc.pow %x, %two : tensor<3xf32>, tensor<f32>
  // The result is bigger than the base: stays a pow.
  // CHECK: %[[P:.*]] = fnc.pow %[[Y]], %{{.*}} : tensor<f32>, tensor<3xf32>
  %1 = fnc.pow %y, %twos : tensor<f32>, tensor<3xf32>
  // CHECK: return %[[SQ]], %[[P]]
  return %0, %1 : tensor<3xf32>, tensor<3xf32>
}

// -----

// A static shape_of folds to a constant; broadcast_to_shape with a
// constant shape that equals its static result type folds away.
// CHECK-LABEL: func @fold_shape_of
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>, %[[D:.*]]: tensor<?x3xf32>)
func.func @fold_shape_of(%x: tensor<2x3xf32>, %d: tensor<?x3xf32>) -> (tensor<2xi64>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2xi32>) {
  %s = fnc.shape_of %x : tensor<2x3xf32> -> tensor<2xi64>
  %0 = fnc.broadcast_to_shape %x, %s : tensor<2x3xf32>, tensor<2xi64> -> tensor<2x3xf32>
  %one = fnc.constant dense<1.0> : tensor<f32>
  %1 = fnc.broadcast_to_shape %one, %s : tensor<f32>, tensor<2xi64> -> tensor<2x3xf32>
  %2 = fnc.shape_of %d : tensor<?x3xf32> -> tensor<2xi32>
  // CHECK-DAG: %[[S:.*]] = fnc.constant dense<[2, 3]> : tensor<2xi64>
  // CHECK-DAG: %[[ONES:.*]] = fnc.constant dense<1.000000e+00> : tensor<2x3xf32>
  // CHECK-DAG: %[[DS:.*]] = fnc.shape_of %[[D]] : tensor<?x3xf32> -> tensor<2xi32>
  // CHECK: return %[[S]], %[[X]], %[[ONES]], %[[DS]]
  return %s, %0, %1, %2 : tensor<2xi64>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2xi32>
}

// -----

// sum_to_shape folds away where nothing is summed: static equal types,
// the input's own shape, or unknown dims the trace proved equal. Otherwise
// it stays (the shape may hold 1 at run time).
// CHECK-LABEL: func @fold_sum_to_shape
// CHECK-SAME: (%[[X:[^:]*]]: tensor<2x3xf32>, %[[G:[^:]*]]: tensor<?x3xf32>, %[[Y:[^:]*]]: tensor<?x3xf32>)
func.func @fold_sum_to_shape(%x: tensor<2x3xf32>, %g: tensor<?x3xf32>, %y: tensor<?x3xf32>) -> (tensor<2x3xf32>, tensor<?x3xf32>, tensor<?x3xf32>, tensor<?x3xf32>) {
  %sx = fnc.shape_of %x : tensor<2x3xf32> -> tensor<2xi64>
  %0 = fnc.sum_to_shape %x, %sx : tensor<2x3xf32>, tensor<2xi64> -> tensor<2x3xf32>
  %sg = fnc.shape_of %g : tensor<?x3xf32> -> tensor<2xi64>
  %1 = fnc.sum_to_shape %g, %sg : tensor<?x3xf32>, tensor<2xi64> -> tensor<?x3xf32>
  %sy = fnc.shape_of %y : tensor<?x3xf32> -> tensor<2xi64>
  %2 = fnc.sum_to_shape %g, %sy {fnc.same_unknown_dims} : tensor<?x3xf32>, tensor<2xi64> -> tensor<?x3xf32>
  // CHECK: %[[SY:.*]] = fnc.shape_of %[[Y]]
  // CHECK: %[[KEPT:.*]] = fnc.sum_to_shape %[[G]], %[[SY]] :
  %3 = fnc.sum_to_shape %g, %sy : tensor<?x3xf32>, tensor<2xi64> -> tensor<?x3xf32>
  // CHECK: return %[[X]], %[[G]], %[[G]], %[[KEPT]]
  return %0, %1, %2, %3 : tensor<2x3xf32>, tensor<?x3xf32>, tensor<?x3xf32>, tensor<?x3xf32>
}

// -----

// The ops added through the op table fold with their scalar definitions:
// round halves to even, softplus does not overflow, atan2 picks the
// quadrant; maximum orders -0.0 below +0.0 and sign keeps a zero's sign.
// CHECK-LABEL: func @fold_table_ops
func.func @fold_table_ops() -> (tensor<4xf32>, tensor<2xf32>, tensor<f64>, tensor<2xf32>, tensor<2xf32>) {
  %h = fnc.constant dense<[-2.5, -0.5, 0.5, 1.5]> : tensor<4xf32>
  %0 = fnc.round %h : tensor<4xf32>
  %big = fnc.constant dense<[100.0, 0.0]> : tensor<2xf32>
  %1 = fnc.softplus %big : tensor<2xf32>
  %y = fnc.constant dense<1.0> : tensor<f64>
  %x = fnc.constant dense<-1.0> : tensor<f64>
  %2 = fnc.atan2 %y, %x : tensor<f64>, tensor<f64>
  %z = fnc.constant dense<[-0.0, 0.0]> : tensor<2xf32>
  %zr = fnc.constant dense<[0.0, -0.0]> : tensor<2xf32>
  %3 = fnc.maximum %z, %zr : tensor<2xf32>, tensor<2xf32>
  %4 = fnc.sign %z : tensor<2xf32>
  // CHECK-DAG: fnc.constant dense<[-2.000000e+00, -0.000000e+00, 0.000000e+00, 2.000000e+00]> : tensor<4xf32>
  // CHECK-DAG: fnc.constant dense<[1.000000e+02, 0.693147182]> : tensor<2xf32>
  // CHECK-DAG: fnc.constant dense<2.3561944901923448> : tensor<f64>
  // CHECK-DAG: fnc.constant dense<0.000000e+00> : tensor<2xf32>
  // CHECK-DAG: fnc.constant dense<[-0.000000e+00, 0.000000e+00]> : tensor<2xf32>
  // CHECK-NOT: fnc.round
  // CHECK-NOT: fnc.softplus
  // CHECK-NOT: fnc.atan2
  return %0, %1, %2, %3, %4 : tensor<4xf32>, tensor<2xf32>, tensor<f64>, tensor<2xf32>, tensor<2xf32>
}

// -----

// A strided slice that takes every dim whole, forwards, is its input.
// CHECK-LABEL: func @strided_slice_identity
// CHECK-SAME: (%[[X:.*]]: tensor<?x3xf32>)
func.func @strided_slice_identity(%x: tensor<?x3xf32>) -> (tensor<?x3xf32>, tensor<?x3xf32>) {
  %0 = fnc.strided_slice %x [:, :] : tensor<?x3xf32>
  %1 = fnc.strided_slice %x [0:, -3:3] : tensor<?x3xf32>
  // CHECK: return %[[X]], %[[X]]
  return %0, %1 : tensor<?x3xf32>, tensor<?x3xf32>
}

// -----

// Resolvable while compiling (known dims, or a dynamic dim taken from 0 to
// the end), with positive strides and no index: the fnc.slice of the same
// window. Negative strides, a bound that depends on a dynamic size, and
// indices stay.
// CHECK-LABEL: func @strided_slice_to_slice
// CHECK-SAME: (%[[X:.*]]: tensor<?x6xf32>)
func.func @strided_slice_to_slice(%x: tensor<?x6xf32>) -> (tensor<?x2xf32>, tensor<?x0xf32>, tensor<?x6xf32>, tensor<?x6xf32>, tensor<6xf32>) {
  // CHECK: %[[A:.*]] = fnc.slice %[[X]] offsets [0, 3] sizes [-1, 2] strides [2, 2] : tensor<?x6xf32>
  %0 = fnc.strided_slice %x [::2, -3::2] : tensor<?x6xf32>
  // CHECK: %[[B:.*]] = fnc.slice %[[X]] offsets [0, 6] sizes [-1, 0] strides [1, 1] : tensor<?x6xf32>
  %1 = fnc.strided_slice %x [:, 100:] : tensor<?x6xf32>
  // CHECK: %[[C:.*]] = fnc.strided_slice %[[X]] [::-1, :] : tensor<?x6xf32>
  %2 = fnc.strided_slice %x [::-1, :] : tensor<?x6xf32>
  // CHECK: %[[D:.*]] = fnc.strided_slice %[[X]] [1:, :] : tensor<?x6xf32>
  %3 = fnc.strided_slice %x [1:, :] : tensor<?x6xf32>
  // CHECK: %[[E:.*]] = fnc.strided_slice %[[X]] [-1, :] : tensor<?x6xf32>
  %4 = fnc.strided_slice %x [-1, :] : tensor<?x6xf32>
  // CHECK: return %[[A]], %[[B]], %[[C]], %[[D]], %[[E]]
  return %0, %1, %2, %3, %4 : tensor<?x2xf32>, tensor<?x0xf32>, tensor<?x6xf32>, tensor<?x6xf32>, tensor<6xf32>
}

// -----

// The gradient of a static slice with positive strides is a pad: the start
// before, the stride as interior padding, the rest after.
// CHECK-LABEL: func @strided_slice_grad_to_pad
// CHECK-SAME: (%[[X:.*]]: tensor<5x6xf32>, %[[G:.*]]: tensor<2x3xf32>, %[[H:.*]]: tensor<?x6xf32>, %[[K:.*]]: tensor<?x6xf32>)
func.func @strided_slice_grad_to_pad(%x: tensor<5x6xf32>, %g: tensor<2x3xf32>, %y: tensor<?x6xf32>, %h: tensor<?x6xf32>) -> (tensor<5x6xf32>, tensor<?x6xf32>) {
  // CHECK: %[[P:.*]] = fnc.pad %[[G]] low [1, 1] high [1, 0] interior [1, 1] value 0.000000e+00 : tensor<2x3xf32>
  %0 = fnc.strided_slice_grad %x, %g [1:4:2, -5::2] : tensor<5x6xf32>, tensor<2x3xf32>
  // CHECK: %[[S:.*]] = fnc.strided_slice_grad %[[H]], %[[K]] [::-1, :]
  %1 = fnc.strided_slice_grad %y, %h [::-1, :] : tensor<?x6xf32>, tensor<?x6xf32>
  // CHECK: return %[[P]], %[[S]]
  return %0, %1 : tensor<5x6xf32>, tensor<?x6xf32>
}

// -----

// cond ? x : x is x, unless cond may stretch one of x's unknown dims.
// CHECK-LABEL: func @select_of_one_value
func.func @select_of_one_value(%c: tensor<?xi1>, %c1: tensor<1xi1>, %x: tensor<?xf32>, %w: tensor<3x?xf32>, %cw: tensor<3x1xi1>) -> (tensor<?xf32>, tensor<?xf32>, tensor<3x?xf32>, tensor<?xf32>) {
  // CHECK-SAME: (%[[C:.*]]: tensor<?xi1>, %[[C1:.*]]: tensor<1xi1>, %[[X:.*]]: tensor<?xf32>, %[[W:.*]]: tensor<3x?xf32>, %[[CW:.*]]: tensor<3x1xi1>)
  // CHECK: %[[S:.*]] = fnc.select %[[C]], %[[X]], %[[X]]
  %0 = fnc.select %c, %x, %x : tensor<?xi1>, tensor<?xf32>, tensor<?xf32>
  %1 = fnc.select %c1, %x, %x : tensor<1xi1>, tensor<?xf32>, tensor<?xf32>
  %2 = fnc.select %cw, %w, %w : tensor<3x1xi1>, tensor<3x?xf32>, tensor<3x?xf32>
  // The tracer knows the unknown dims are equal.
  %3 = fnc.select %c, %x, %x {fnc.same_unknown_dims} : tensor<?xi1>, tensor<?xf32>, tensor<?xf32>
  // CHECK: return %[[S]], %[[X]], %[[W]], %[[X]]
  return %0, %1, %2, %3 : tensor<?xf32>, tensor<?xf32>, tensor<3x?xf32>, tensor<?xf32>
}
