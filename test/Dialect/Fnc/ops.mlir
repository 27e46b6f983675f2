// Round trip of every fnc op through the custom form and the generic form.
// RUN: fnc-opt %s | fnc-opt | FileCheck %s
// RUN: fnc-opt %s -mlir-print-op-generic | fnc-opt | FileCheck %s

// CHECK-LABEL: func @creation
func.func @creation(%n: index) {
  // CHECK: fnc.constant dense<{{\[}}[1.000000e+00, 2.000000e+00]]> : tensor<1x2xf32>
  %0 = fnc.constant dense<[[1.0, 2.0]]> : tensor<1x2xf32>
  // CHECK: fnc.constant dense<[true, false]> : tensor<2xi1>
  %1 = fnc.constant dense<[true, false]> : tensor<2xi1>
  // CHECK: fnc.fill 0.000000e+00 : tensor<2x3xf32>
  %2 = fnc.fill 0.0 : tensor<2x3xf32>
  // CHECK: fnc.fill 1.000000e+00 [%{{.*}}] : tensor<?x3xi64>
  %3 = fnc.fill 1.0 [%n] : tensor<?x3xi64>
  // CHECK: fnc.range 0.000000e+00, 1.000000e+01, 2.000000e+00 : tensor<5xi32>
  %4 = fnc.range 0.0, 10.0, 2.0 : tensor<5xi32>
  // CHECK: fnc.range 1.000000e+00, 0.000000e+00, -2.500000e-01 : tensor<4xf64>
  %5 = fnc.range 1.0, 0.0, -0.25 : tensor<4xf64>
  // CHECK: fnc.eye : tensor<3x4xf32>
  %6 = fnc.eye : tensor<3x4xf32>
  // CHECK: fnc.cast %{{.*}} : tensor<1x2xf32> to tensor<1x2xi32>
  %7 = fnc.cast %0 : tensor<1x2xf32> to tensor<1x2xi32>
  return
}

// CHECK-LABEL: func @binary
func.func @binary(%a: tensor<2x3xf32>, %b: tensor<3xf32>, %i: tensor<?x3xi32>,
                  %j: tensor<1xi32>, %p: tensor<2xi1>) {
  // CHECK: fnc.add %{{.*}}, %{{.*}} : tensor<2x3xf32>, tensor<3xf32>
  %0 = fnc.add %a, %b : tensor<2x3xf32>, tensor<3xf32>
  // CHECK: fnc.sub %{{.*}}, %{{.*}} : tensor<3xf32>, tensor<2x3xf32>
  %1 = fnc.sub %b, %a : tensor<3xf32>, tensor<2x3xf32>
  // CHECK: fnc.mul %{{.*}}, %{{.*}} : tensor<?x3xi32>, tensor<1xi32>
  %2 = fnc.mul %i, %j : tensor<?x3xi32>, tensor<1xi32>
  // CHECK: fnc.div
  %3 = fnc.div %a, %a : tensor<2x3xf32>, tensor<2x3xf32>
  // CHECK: fnc.pow
  %4 = fnc.pow %a, %b : tensor<2x3xf32>, tensor<3xf32>
  // CHECK: fnc.maximum
  %5 = fnc.maximum %a, %b : tensor<2x3xf32>, tensor<3xf32>
  // CHECK: fnc.minimum
  %6 = fnc.minimum %a, %b : tensor<2x3xf32>, tensor<3xf32>
  // CHECK: fnc.floor_mod
  %7 = fnc.floor_mod %i, %j : tensor<?x3xi32>, tensor<1xi32>
  // CHECK: fnc.floor_div
  %8 = fnc.floor_div %i, %j : tensor<?x3xi32>, tensor<1xi32>
  // CHECK: fnc.logical_and %{{.*}}, %{{.*}} : tensor<2xi1>, tensor<2xi1>
  %9 = fnc.logical_and %p, %p : tensor<2xi1>, tensor<2xi1>
  // CHECK: fnc.logical_or
  %10 = fnc.logical_or %p, %p : tensor<2xi1>, tensor<2xi1>
  // CHECK: fnc.compare eq, %{{.*}}, %{{.*}} : tensor<2x3xf32>, tensor<3xf32>
  %11 = fnc.compare eq, %a, %b : tensor<2x3xf32>, tensor<3xf32>
  // CHECK: fnc.compare ne
  %12 = fnc.compare ne, %a, %b : tensor<2x3xf32>, tensor<3xf32>
  // CHECK: fnc.compare lt
  %13 = fnc.compare lt, %i, %j : tensor<?x3xi32>, tensor<1xi32>
  // CHECK: fnc.compare le
  %14 = fnc.compare le, %a, %b : tensor<2x3xf32>, tensor<3xf32>
  // CHECK: fnc.compare gt
  %15 = fnc.compare gt, %a, %b : tensor<2x3xf32>, tensor<3xf32>
  // CHECK: fnc.compare ge
  %16 = fnc.compare ge, %a, %b : tensor<2x3xf32>, tensor<3xf32>
  // CHECK: fnc.select %{{.*}}, %{{.*}}, %{{.*}} : tensor<2x3xi1>, tensor<2x3xf32>, tensor<3xf32>
  %17 = fnc.select %11, %a, %b : tensor<2x3xi1>, tensor<2x3xf32>, tensor<3xf32>
  return
}

// CHECK-LABEL: func @unary
func.func @unary(%a: tensor<2x?xf64>, %i: tensor<4xi64>, %p: tensor<i1>) {
  // CHECK: fnc.neg %{{.*}} : tensor<4xi64>
  %0 = fnc.neg %i : tensor<4xi64>
  // CHECK: fnc.abs %{{.*}} : tensor<2x?xf64>
  %1 = fnc.abs %a : tensor<2x?xf64>
  // CHECK: fnc.exp
  %2 = fnc.exp %a : tensor<2x?xf64>
  // CHECK: fnc.log
  %3 = fnc.log %a : tensor<2x?xf64>
  // CHECK: fnc.sqrt
  %4 = fnc.sqrt %a : tensor<2x?xf64>
  // CHECK: fnc.rsqrt
  %5 = fnc.rsqrt %a : tensor<2x?xf64>
  // CHECK: fnc.tanh
  %6 = fnc.tanh %a : tensor<2x?xf64>
  // CHECK: fnc.sigmoid
  %7 = fnc.sigmoid %a : tensor<2x?xf64>
  // CHECK: fnc.relu %{{.*}} : tensor<4xi64>
  %8 = fnc.relu %i : tensor<4xi64>
  // CHECK: fnc.square
  %9 = fnc.square %a : tensor<2x?xf64>
  // CHECK: fnc.sign
  %10 = fnc.sign %i : tensor<4xi64>
  // CHECK: fnc.floor
  %11 = fnc.floor %a : tensor<2x?xf64>
  // CHECK: fnc.ceil
  %12 = fnc.ceil %a : tensor<2x?xf64>
  // CHECK: fnc.logical_not %{{.*}} : tensor<i1>
  %13 = fnc.logical_not %p : tensor<i1>
  return
}

// CHECK-LABEL: func @linalg
func.func @linalg(%a: tensor<8x2x3xf32>, %b: tensor<3x4xf32>,
                  %x: tensor<1x5x5x3xf32>, %w: tensor<3x3x3x8xf32>) {
  // CHECK: fnc.matmul %{{.*}}, %{{.*}} : tensor<8x2x3xf32>, tensor<3x4xf32>
  %0 = fnc.matmul %a, %b : tensor<8x2x3xf32>, tensor<3x4xf32>
  // CHECK: fnc.conv2d %{{.*}}, %{{.*}} strides [2, 2] padding same : tensor<1x5x5x3xf32>, tensor<3x3x3x8xf32>
  %1 = fnc.conv2d %x, %w strides [2, 2] padding same : tensor<1x5x5x3xf32>, tensor<3x3x3x8xf32>
  // CHECK: fnc.conv2d %{{.*}}, %{{.*}} strides [1, 1] padding valid
  %2 = fnc.conv2d %x, %w strides [1, 1] padding valid : tensor<1x5x5x3xf32>, tensor<3x3x3x8xf32>
  return
}

// CHECK-LABEL: func @pooling
func.func @pooling(%x: tensor<8x28x28x16xf32>, %y: tensor<?x5x6x3xf64>,
                   %dx: tensor<8x14x14x16xf32>, %dy: tensor<?x3x3x3xf64>) {
  // CHECK: fnc.max_pool2d %{{.*}} ksize [2, 2] strides [2, 2] padding valid : tensor<8x28x28x16xf32>
  %0 = fnc.max_pool2d %x ksize [2, 2] strides [2, 2] padding valid : tensor<8x28x28x16xf32>
  // CHECK: fnc.avg_pool2d %{{.*}} ksize [3, 3] strides [2, 2] padding same : tensor<?x5x6x3xf64>
  %1 = fnc.avg_pool2d %y ksize [3, 3] strides [2, 2] padding same : tensor<?x5x6x3xf64>
  // CHECK: fnc.max_pool2d_grad %{{.*}}, %{{.*}} ksize [2, 2] strides [2, 2] padding valid : tensor<8x28x28x16xf32>, tensor<8x14x14x16xf32>
  %2 = fnc.max_pool2d_grad %x, %dx ksize [2, 2] strides [2, 2] padding valid : tensor<8x28x28x16xf32>, tensor<8x14x14x16xf32>
  // CHECK: fnc.avg_pool2d_grad %{{.*}}, %{{.*}} ksize [3, 3] strides [2, 2] padding same : tensor<?x5x6x3xf64>, tensor<?x3x3x3xf64>
  %3 = fnc.avg_pool2d_grad %y, %dy ksize [3, 3] strides [2, 2] padding same : tensor<?x5x6x3xf64>, tensor<?x3x3x3xf64>
  return
}

// CHECK-LABEL: func @shapes
func.func @shapes(%a: tensor<2x3xf32>, %d: tensor<?x4xf32>, %n: index,
                  %e: tensor<1x3x1xf32>, %i: tensor<2xi64>,
                  %d0: tensor<4xf32>) {
  // CHECK: fnc.transpose %{{.*}} perm [1, 0] : tensor<2x3xf32>
  %0 = fnc.transpose %a perm [1, 0] : tensor<2x3xf32>
  // CHECK: fnc.reshape %{{.*}} : tensor<2x3xf32> -> tensor<3x2xf32>
  %1 = fnc.reshape %a : tensor<2x3xf32> -> tensor<3x2xf32>
  // CHECK: fnc.reshape %{{.*}} : tensor<?x4xf32> -> tensor<?x2x2xf32>
  %2 = fnc.reshape %d : tensor<?x4xf32> -> tensor<?x2x2xf32>
  // CHECK: fnc.broadcast_to %{{.*}} : tensor<2x3xf32> -> tensor<5x2x3xf32>
  %3 = fnc.broadcast_to %a : tensor<2x3xf32> -> tensor<5x2x3xf32>
  // CHECK: fnc.broadcast_to %{{.*}} [%{{.*}}] : tensor<2x3xf32> -> tensor<?x2x3xf32>
  %4 = fnc.broadcast_to %a [%n] : tensor<2x3xf32> -> tensor<?x2x3xf32>
  // CHECK: fnc.set_row %{{.*}}[%{{.*}}], %{{.*}} : tensor<?x4xf32>, tensor<i64>, tensor<4xf32>
  %row = fnc.constant dense<0> : tensor<i64>
  %sr = fnc.set_row %d[%row], %d0 : tensor<?x4xf32>, tensor<i64>, tensor<4xf32>
  // CHECK: fnc.dynamic_slice %{{.*}}[%{{.*}}, %{{.*}}] axis 0 : tensor<?x4xf32>, tensor<i64>, tensor<i64> -> tensor<?x4xf32>
  %ds = fnc.dynamic_slice %d[%row, %row] axis 0 : tensor<?x4xf32>, tensor<i64>, tensor<i64> -> tensor<?x4xf32>
  // CHECK: fnc.dynamic_update_slice %{{.*}}[%{{.*}}], %{{.*}} axis 0 : tensor<?x4xf32>, tensor<i64>, tensor<?x4xf32>
  %dus = fnc.dynamic_update_slice %d[%row], %ds axis 0 : tensor<?x4xf32>, tensor<i64>, tensor<?x4xf32>
  // CHECK: fnc.shape_of %{{.*}} : tensor<?x4xf32> -> tensor<2xi32>
  %s = fnc.shape_of %d : tensor<?x4xf32> -> tensor<2xi32>
  // CHECK: fnc.reshape_to_shape %{{.*}}, %{{.*}} : tensor<?x4xf32>, tensor<2xi32> -> tensor<?x?xf32>
  %rts = fnc.reshape_to_shape %d, %s : tensor<?x4xf32>, tensor<2xi32> -> tensor<?x?xf32>
  // CHECK: fnc.broadcast_to_shape %{{.*}}, %{{.*}} : tensor<4xf32>, tensor<2xi32> -> tensor<?x4xf32>
  %z = fnc.broadcast_to_shape %d0, %s : tensor<4xf32>, tensor<2xi32> -> tensor<?x4xf32>
  // CHECK: fnc.broadcast_to_shape %{{.*}}, %{{.*}} : tensor<2x3xf32>, tensor<2xi64> -> tensor<?x3xf32>
  %as = fnc.shape_of %a : tensor<2x3xf32> -> tensor<2xi64>
  %zz = fnc.broadcast_to_shape %a, %as : tensor<2x3xf32>, tensor<2xi64> -> tensor<?x3xf32>
  // CHECK: fnc.sum_to_shape %{{.*}}, %{{.*}} : tensor<?x4xf32>, tensor<2xi32> -> tensor<?x4xf32>
  %st = fnc.sum_to_shape %z, %s : tensor<?x4xf32>, tensor<2xi32> -> tensor<?x4xf32>
  // CHECK: fnc.sum_to_shape %{{.*}}, %{{.*}} : tensor<2x3xf32>, tensor<1xi64> -> tensor<?xf32>
  %one = fnc.constant dense<3> : tensor<1xi64>
  %st1 = fnc.sum_to_shape %a, %one : tensor<2x3xf32>, tensor<1xi64> -> tensor<?xf32>
  // CHECK: fnc.expand_dims %{{.*}} axis -1 : tensor<2x3xf32>
  %5 = fnc.expand_dims %a axis -1 : tensor<2x3xf32>
  // CHECK: fnc.squeeze %{{.*}} axes [0, 2] : tensor<1x3x1xf32>
  %6 = fnc.squeeze %e axes [0, 2] : tensor<1x3x1xf32>
  // CHECK: fnc.squeeze %{{.*}} axes [] : tensor<1x3x1xf32>
  %7 = fnc.squeeze %e axes [] : tensor<1x3x1xf32>
  // CHECK: fnc.slice %{{.*}} offsets [1, 0] sizes [1, 2] strides [1, 2] : tensor<2x3xf32>
  %8 = fnc.slice %a offsets [1, 0] sizes [1, 2] strides [1, 2] : tensor<2x3xf32>
  // CHECK: fnc.slice %{{.*}} offsets [0, 1] sizes [-1, 2] strides [1, 1] : tensor<?x4xf32>
  %s8a = fnc.slice %d offsets [0, 1] sizes [-1, 2] strides [1, 1] : tensor<?x4xf32>
  // CHECK: fnc.slice %{{.*}} offsets [1, 1] sizes [-1, -1] strides [2, 1] : tensor<2x3xf32>
  %s8b = fnc.slice %a offsets [1, 1] sizes [-1, -1] strides [2, 1] : tensor<2x3xf32>
  // CHECK: fnc.pad %{{.*}} low [1, 0] high [0, 2] interior [0, 1] value 5.000000e-01 : tensor<2x3xf32>
  %pa = fnc.pad %a low [1, 0] high [0, 2] interior [0, 1] value 0.5 : tensor<2x3xf32>
  // CHECK: fnc.pad %{{.*}} low [0, 1] high [0, 1] interior [0, 0] value 0.000000e+00 : tensor<?x4xf32>
  %pd = fnc.pad %d low [0, 1] high [0, 1] interior [0, 0] value 0.0 : tensor<?x4xf32>
  // CHECK: fnc.concat %{{.*}}, %{{.*}} axis 0 : tensor<2x3xf32>, tensor<2x3xf32>
  %9 = fnc.concat %a, %a axis 0 : tensor<2x3xf32>, tensor<2x3xf32>
  // CHECK: fnc.gather %{{.*}}, %{{.*}} axis 1 : tensor<2x3xf32>, tensor<2xi64>
  %10 = fnc.gather %a, %i axis 1 : tensor<2x3xf32>, tensor<2xi64>
  // CHECK: fnc.one_hot %{{.*}} depth 4 axis -1 on 1.000000e+00 off 0.000000e+00 : tensor<2xi64> -> tensor<2x4xf32>
  %11 = fnc.one_hot %i depth 4 axis -1 on 1.0 off 0.0 : tensor<2xi64> -> tensor<2x4xf32>
  return
}

// CHECK-LABEL: func @reductions
func.func @reductions(%a: tensor<2x?xf32>, %i: tensor<3x4xi32>) {
  // CHECK: fnc.sum %{{.*}} axes [-1] keepdims : tensor<2x?xf32>
  %0 = fnc.sum %a axes [-1] keepdims : tensor<2x?xf32>
  // CHECK: fnc.mean %{{.*}} axes [] : tensor<2x?xf32>
  %1 = fnc.mean %a axes [] : tensor<2x?xf32>
  // CHECK: fnc.max %{{.*}} axes [0] : tensor<3x4xi32>
  %2 = fnc.max %i axes [0] : tensor<3x4xi32>
  // CHECK: fnc.min
  %3 = fnc.min %i axes [0, 1] : tensor<3x4xi32>
  // CHECK: fnc.prod
  %4 = fnc.prod %a axes [0] : tensor<2x?xf32>
  // CHECK: fnc.argmax %{{.*}} axis 1 : tensor<3x4xi32> -> tensor<3xi32>
  %5 = fnc.argmax %i axis 1 : tensor<3x4xi32> -> tensor<3xi32>
  // CHECK: fnc.softmax %{{.*}} axis -1 : tensor<2x?xf32>
  %6 = fnc.softmax %a axis -1 : tensor<2x?xf32>
  // CHECK: fnc.log_softmax %{{.*}} axis 0 : tensor<2x?xf32>
  %7 = fnc.log_softmax %a axis 0 : tensor<2x?xf32>
  return
}

// CHECK-LABEL: func @variables
// CHECK-SAME: %[[V:.*]]: !fnc.variable<tensor<4xf32>>
func.func @variables(%v: !fnc.variable<tensor<4xf32>>, %x: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: %[[R:.*]] = fnc.var_read %[[V]] : !fnc.variable<tensor<4xf32>>
  %0 = fnc.var_read %v : !fnc.variable<tensor<4xf32>>
  // CHECK: fnc.var_assign %[[V]], %{{.*}} : !fnc.variable<tensor<4xf32>>
  fnc.var_assign %v, %x : !fnc.variable<tensor<4xf32>>
  // CHECK: fnc.var_assign_add %[[V]], %[[R]] : !fnc.variable<tensor<4xf32>>
  fnc.var_assign_add %v, %0 : !fnc.variable<tensor<4xf32>>
  // CHECK: fnc.var_assign_sub %[[V]], %[[R]] : !fnc.variable<tensor<4xf32>>
  fnc.var_assign_sub %v, %0 : !fnc.variable<tensor<4xf32>>
  return %0 : tensor<4xf32>
}

// CHECK-LABEL: func @control_flow
func.func @control_flow(%p: tensor<i1>, %a: tensor<2xf32>, %n: tensor<i32>) -> tensor<2xf32> {
  // CHECK: %[[C:.*]] = fnc.cond %{{.*}} : tensor<i1> -> tensor<2xf32> {
  // CHECK:   fnc.yield %{{.*}} : tensor<2xf32>
  // CHECK: } else {
  // CHECK:   fnc.neg
  // CHECK:   fnc.yield
  // CHECK: }
  %0 = fnc.cond %p : tensor<i1> -> tensor<2xf32> {
    fnc.yield %a : tensor<2xf32>
  } else {
    %m = fnc.neg %a : tensor<2xf32>
    fnc.yield %m : tensor<2xf32>
  }
  // A cond without results has implicit terminators.
  // CHECK: fnc.cond %{{.*}} : tensor<i1> {
  // CHECK:   fnc.print "then"
  // CHECK: } else {
  // CHECK: }
  fnc.cond %p : tensor<i1> {
    fnc.print "then"
  } else {
  }
  // CHECK: %[[W:.*]]:2 = fnc.while(%{{.*}}, %[[C]]) : tensor<i32>, tensor<2xf32> cond {
  // CHECK: ^bb0(%[[I:.*]]: tensor<i32>, %[[X:.*]]: tensor<2xf32>):
  // CHECK:   %[[LT:.*]] = fnc.compare lt, %[[I]]
  // CHECK:   fnc.condition %[[LT]], %[[I]], %[[X]] : tensor<i1>, tensor<i32>, tensor<2xf32>
  // CHECK: } do {
  // CHECK:   fnc.yield %{{.*}}, %{{.*}} : tensor<i32>, tensor<2xf32>
  // CHECK: }
  %zero = fnc.constant dense<0> : tensor<i32>
  %one = fnc.constant dense<1> : tensor<i32>
  %1:2 = fnc.while (%zero, %0) : tensor<i32>, tensor<2xf32> cond {
  ^bb0(%i: tensor<i32>, %x: tensor<2xf32>):
    %c = fnc.compare lt, %i, %n : tensor<i32>, tensor<i32>
    fnc.condition %c, %i, %x : tensor<i1>, tensor<i32>, tensor<2xf32>
  } do {
  ^bb0(%i: tensor<i32>, %x: tensor<2xf32>):
    %j = fnc.add %i, %one : tensor<i32>, tensor<i32>
    %y = fnc.mul %x, %x : tensor<2xf32>, tensor<2xf32>
    fnc.yield %j, %y : tensor<i32>, tensor<2xf32>
  }
  // CHECK: return %[[W]]#1
  return %1#1 : tensor<2xf32>
}

// CHECK-LABEL: func @effects
func.func @effects(%a: tensor<2xf32>, %i: tensor<i32>, %n: index) {
  // CHECK: fnc.print "a = {}, i = {}" %{{.*}}, %{{.*}} : tensor<2xf32>, tensor<i32>
  fnc.print "a = {}, i = {}" %a, %i : tensor<2xf32>, tensor<i32>
  // CHECK: fnc.print "values:" %{{.*}} : tensor<2xf32>
  fnc.print "values:" %a : tensor<2xf32>
  // CHECK: fnc.random_uniform min -1.000000e+00 max 1.000000e+00 seed 7 : tensor<2x3xf32>
  %0 = fnc.random_uniform min -1.0 max 1.0 seed 7 : tensor<2x3xf32>
  // CHECK: fnc.random_uniform [%{{.*}}] min 0.000000e+00 max 1.000000e+00 : tensor<?xf64>
  %1 = fnc.random_uniform [%n] min 0.0 max 1.0 : tensor<?xf64>
  // CHECK: fnc.random_normal mean 0.000000e+00 stddev 2.000000e+00 : tensor<4xf32>
  %2 = fnc.random_normal mean 0.0 stddev 2.0 : tensor<4xf32>
  return
}

// numpy's indexing: ranges (omitted, negative and out-of-range bounds,
// negative strides) and indices, one entry per dim; an omitted bound and
// the sentinel it stands for print alike.
// CHECK-LABEL: func @strided_slice
func.func @strided_slice(%x: tensor<?x10x4x5xf32>, %g: tensor<?x10x5xf32>, %s: tensor<f32>, %m: tensor<6xi64>) {
  // CHECK: fnc.strided_slice %{{.*}} [1:3, ::-1, -1, :] : tensor<?x10x4x5xf32>
  %0 = fnc.strided_slice %x [1:3, ::-1, -1, :] : tensor<?x10x4x5xf32>
  // CHECK: fnc.strided_slice %{{.*}} [-3:, :100:2, 0, 4:-7:-2] : tensor<?x10x4x5xf32>
  %1 = fnc.strided_slice %x [-3:, :100:2, 0, 4:-7:-2] : tensor<?x10x4x5xf32>
  // CHECK: fnc.strided_slice %{{.*}} [:, :, :, 1:2] : tensor<?x10x4x5xf32>
  %2 = fnc.strided_slice %x [-9223372036854775808:, ::1, :9223372036854775807, 1:2:] : tensor<?x10x4x5xf32>
  // CHECK: fnc.strided_slice %{{.*}} [] : tensor<f32>
  %3 = fnc.strided_slice %s [] : tensor<f32>
  // CHECK: fnc.strided_slice %{{.*}} [5:2] : tensor<6xi64>
  %4 = fnc.strided_slice %m [5:2] : tensor<6xi64>
  // CHECK: fnc.strided_slice_grad %{{.*}}, %{{.*}} [:3, ::-1, -1, :] : tensor<?x10x4x5xf32>, tensor<?x10x5xf32>
  %5 = fnc.strided_slice_grad %x, %g [:3, ::-1, -1, :] : tensor<?x10x4x5xf32>, tensor<?x10x5xf32>
  return
}
