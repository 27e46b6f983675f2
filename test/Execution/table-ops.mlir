// The ops added through the op table, and zero-axis reductions fused into
// elementwise ops, through the JIT and through the reference interpreter,
// with the same expected output.
// RUN: fnc-run %s --entry=unary --input=6xf64=-2.5,-0.5,0,0.5,1.5,30 | FileCheck %s --check-prefix=UNARY
// RUN: fnc-run %s --interpret --entry=unary --input=6xf64=-2.5,-0.5,0,0.5,1.5,30 | FileCheck %s --check-prefix=UNARY
// RUN: fnc-run %s --entry=angle --input=4xf32=1,1,-1,-1 --input=4xf32=1,-1,-1,1 | FileCheck %s --check-prefix=ANGLE
// RUN: fnc-run %s --interpret --entry=angle --input=4xf32=1,1,-1,-1 --input=4xf32=1,-1,-1,1 | FileCheck %s --check-prefix=ANGLE
// RUN: fnc-run %s --entry=angle_of_zeros --input=4xf32=0,-0,0,-0 --input=4xf32=0,0,-0,-0 --input=2x0xf32= | FileCheck %s --check-prefix=ZEROANGLE
// RUN: fnc-run %s --interpret --entry=angle_of_zeros --input=4xf32=0,-0,0,-0 --input=4xf32=0,0,-0,-0 --input=2x0xf32= | FileCheck %s --check-prefix=ZEROANGLE
// RUN: fnc-run %s --entry=scalar_reductions --input=f32=3 --input=3xf32=1,2,3 | FileCheck %s --check-prefix=ZERO
// RUN: fnc-run %s --interpret --entry=scalar_reductions --input=f32=3 --input=3xf32=1,2,3 | FileCheck %s --check-prefix=ZERO

// UNARY: fnc.Tensor([-2. -0.  0.  0.  2. 30.], shape=(6,), dtype=float64)
// UNARY-NEXT: fnc.Tensor([-0.59847214 -0.47942554  0.          0.47942554  0.99749499 -0.98803162], shape=(6,), dtype=float64)
// UNARY-NEXT: fnc.Tensor([-0.80114362  0.87758256  1.          0.87758256  0.0707372   0.15425145], shape=(6,), dtype=float64)
// UNARY-NEXT: fnc.Tensor([-0.99959305 -0.52049988  0.          0.52049988  0.96610515  1.        ], shape=(6,), dtype=float64)
// UNARY-NEXT: fnc.Tensor(
// UNARY-NEXT: [-9.17915001e-01 -3.93469340e-01  0.00000000e+00  6.48721271e-01
// UNARY-NEXT:   3.48168907e+00  1.06864746e+13], shape=(6,), dtype=float64)
// UNARY-NEXT: fnc.Tensor([ 0.07888973  0.47407698  0.69314718  0.97407698  1.70141328 30.        ], shape=(6,), dtype=float64)
// UNARY-NEXT: fnc.Tensor([0.         0.         0.         0.40546511 0.91629073 3.4339872 ], shape=(6,), dtype=float64)
func.func @unary(%x: tensor<6xf64>) -> (tensor<6xf64>, tensor<6xf64>, tensor<6xf64>, tensor<6xf64>, tensor<6xf64>, tensor<6xf64>, tensor<6xf64>) {
  %0 = fnc.round %x : tensor<6xf64>
  %1 = fnc.sin %x : tensor<6xf64>
  %2 = fnc.cos %x : tensor<6xf64>
  %3 = fnc.erf %x : tensor<6xf64>
  %4 = fnc.expm1 %x : tensor<6xf64>
  %5 = fnc.softplus %x : tensor<6xf64>
  // log1p(relu(x)) keeps the argument in the domain.
  %r = fnc.relu %x : tensor<6xf64>
  %6 = fnc.log1p %r : tensor<6xf64>
  return %0, %1, %2, %3, %4, %5, %6 : tensor<6xf64>, tensor<6xf64>, tensor<6xf64>, tensor<6xf64>, tensor<6xf64>, tensor<6xf64>, tensor<6xf64>
}

// ANGLE: fnc.Tensor([ 0.7853982  2.3561945 -2.3561945 -0.7853982], shape=(4,), dtype=float32)
func.func @angle(%y: tensor<4xf32>, %x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = fnc.atan2 %y, %x : tensor<4xf32>, tensor<4xf32>
  return %0 : tensor<4xf32>
}

// A reduction of a rank-0 tensor reduces no axes: the identity, also when
// it is fused into the elementwise ops around it.
// ZERO: fnc.Tensor([10. 11. 12.], shape=(3,), dtype=float32)
// ZERO-NEXT: fnc.Tensor([10. 11. 12.], shape=(3,), dtype=float32)
// ZERO-NEXT: fnc.Tensor([10. 11. 12.], shape=(3,), dtype=float32)
// ZERO-NEXT: fnc.Tensor([10. 11. 12.], shape=(3,), dtype=float32)
// ZERO-NEXT: fnc.Tensor([10. 11. 12.], shape=(3,), dtype=float32)
func.func @scalar_reductions(%x: tensor<f32>, %y: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) {
  %m = fnc.mul %x, %x : tensor<f32>, tensor<f32>
  %s0 = fnc.sum %m axes [] : tensor<f32>
  %s1 = fnc.mean %m axes [] keepdims : tensor<f32>
  %s2 = fnc.max %m axes [] : tensor<f32>
  %s3 = fnc.min %m axes [] : tensor<f32>
  %s4 = fnc.prod %m axes [] : tensor<f32>
  %0 = fnc.add %s0, %y : tensor<f32>, tensor<3xf32>
  %1 = fnc.add %s1, %y : tensor<f32>, tensor<3xf32>
  %2 = fnc.add %s2, %y : tensor<f32>, tensor<3xf32>
  %3 = fnc.add %s3, %y : tensor<f32>, tensor<3xf32>
  %4 = fnc.add %s4, %y : tensor<f32>, tensor<3xf32>
  return %0, %1, %2, %3, %4 : tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>
}

// atan2 of zeros is C's (+-0, or +-pi where x is -0), also where the zeros
// are constants the compiler sees (a pad of an empty tensor is a fill,
// fused into the atan2): MLIR folds math.atan2(0, 0) to NaN.
// ZEROANGLE: fnc.Tensor([ 0.        -0.         3.1415927 -3.1415927], shape=(4,), dtype=float32)
// ZEROANGLE-NEXT: fnc.Tensor(
// ZEROANGLE-NEXT: {{\[\[}}0. 0. 0.]
// ZEROANGLE-NEXT: [0. 0. 0.]], shape=(2, 3), dtype=float32)
func.func @angle_of_zeros(%y: tensor<4xf32>, %x: tensor<4xf32>, %e: tensor<2x0xf32>) -> (tensor<4xf32>, tensor<2x3xf32>) {
  %0 = fnc.atan2 %y, %x : tensor<4xf32>, tensor<4xf32>
  %p = fnc.pad %e low [0, 1] high [0, 2] interior [0, 0] value 0.000000e+00 : tensor<2x0xf32>
  %1 = fnc.atan2 %p, %p : tensor<2x3xf32>, tensor<2x3xf32>
  return %0, %1 : tensor<4xf32>, tensor<2x3xf32>
}
