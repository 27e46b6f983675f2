// Reductions, argmax, softmax, matmul and conv2d through the JIT and the
// reference interpreter, with the same expected output.
// RUN: fnc-run %s --entry=reduce --input=2x3xf32=1,5,3,-4,2,6 | FileCheck %s --check-prefix=RED
// RUN: fnc-run %s --interpret --entry=reduce --input=2x3xf32=1,5,3,-4,2,6 | FileCheck %s --check-prefix=RED
// RUN: fnc-run %s --entry=reduce_int --input=2x3xi64=1,5,3,-4,2,6 | FileCheck %s --check-prefix=IRED
// RUN: fnc-run %s --interpret --entry=reduce_int --input=2x3xi64=1,5,3,-4,2,6 | FileCheck %s --check-prefix=IRED
// RUN: fnc-run %s --entry=softmax --input=2x3xf64=1,2,3,0,0,0 | FileCheck %s --check-prefix=SOFT
// RUN: fnc-run %s --interpret --entry=softmax --input=2x3xf64=1,2,3,0,0,0 | FileCheck %s --check-prefix=SOFT
// RUN: fnc-run %s --entry=matmul --input=2x2x3xf32=1,2,3,4,5,6,7,8,9,10,11,12 --input=3x2xf32=1,0,0,1,1,1 | FileCheck %s --check-prefix=MM
// RUN: fnc-run %s --interpret --entry=matmul --input=2x2x3xf32=1,2,3,4,5,6,7,8,9,10,11,12 --input=3x2xf32=1,0,0,1,1,1 | FileCheck %s --check-prefix=MM
// RUN: fnc-run %s --entry=conv --input=1x4x4x1xf32=1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16 --input=2x2x1x1xf32=1,0,0,1 | FileCheck %s --check-prefix=CONV
// RUN: fnc-run %s --interpret --entry=conv --input=1x4x4x1xf32=1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16 --input=2x2x1x1xf32=1,0,0,1 | FileCheck %s --check-prefix=CONV

// RED: fnc.Tensor(13.0, shape=(), dtype=float32)
// RED: fnc.Tensor([-1.5  3.5  4.5], shape=(3,), dtype=float32)
// RED: fnc.Tensor(
// RED-NEXT: {{\[\[}}5.]
// RED-NEXT:  [6.]], shape=(2, 1), dtype=float32)
// RED: fnc.Tensor([ 1. -4.], shape=(2,), dtype=float32)
// RED: fnc.Tensor([-4. 10. 18.], shape=(3,), dtype=float32)
// RED: fnc.Tensor([1 2], shape=(2,), dtype=int64)
// RED: fnc.Tensor([0 0 1], shape=(3,), dtype=int32)
func.func @reduce(%a: tensor<2x3xf32>) -> (tensor<f32>, tensor<3xf32>, tensor<2x1xf32>, tensor<2xf32>, tensor<3xf32>, tensor<2xi64>, tensor<3xi32>) {
  %0 = fnc.sum %a axes [] : tensor<2x3xf32>
  %1 = fnc.mean %a axes [0] : tensor<2x3xf32>
  %2 = fnc.max %a axes [-1] keepdims : tensor<2x3xf32>
  %3 = fnc.min %a axes [1] : tensor<2x3xf32>
  %4 = fnc.prod %a axes [0] : tensor<2x3xf32>
  %5 = fnc.argmax %a axis 1 : tensor<2x3xf32> -> tensor<2xi64>
  %6 = fnc.argmax %a axis 0 : tensor<2x3xf32> -> tensor<3xi32>
  return %0, %1, %2, %3, %4, %5, %6 : tensor<f32>, tensor<3xf32>, tensor<2x1xf32>, tensor<2xf32>, tensor<3xf32>, tensor<2xi64>, tensor<3xi32>
}

// Integer mean truncates.
// IRED: fnc.Tensor(13, shape=(), dtype=int64)
// IRED: fnc.Tensor([-1  3  4], shape=(3,), dtype=int64)
// IRED: fnc.Tensor([5 6], shape=(2,), dtype=int64)
func.func @reduce_int(%a: tensor<2x3xi64>) -> (tensor<i64>, tensor<3xi64>, tensor<2xi64>) {
  %0 = fnc.sum %a axes [0, 1] : tensor<2x3xi64>
  %1 = fnc.mean %a axes [0] : tensor<2x3xi64>
  %2 = fnc.max %a axes [1] : tensor<2x3xi64>
  return %0, %1, %2 : tensor<i64>, tensor<3xi64>, tensor<2xi64>
}

// SOFT: fnc.Tensor(
// SOFT-NEXT: {{\[\[}}0.09003057 0.24472847 0.66524096]
// SOFT-NEXT:  [0.33333333 0.33333333 0.33333333]], shape=(2, 3), dtype=float64)
// SOFT: fnc.Tensor(
// SOFT-NEXT: {{\[\[}}-2.40760596 -1.40760596 -0.40760596]
// SOFT-NEXT:  [-1.09861229 -1.09861229 -1.09861229]], shape=(2, 3), dtype=float64)
func.func @softmax(%a: tensor<2x3xf64>) -> (tensor<2x3xf64>, tensor<2x3xf64>) {
  %0 = fnc.softmax %a axis -1 : tensor<2x3xf64>
  %1 = fnc.log_softmax %a axis 1 : tensor<2x3xf64>
  return %0, %1 : tensor<2x3xf64>, tensor<2x3xf64>
}

// Batched lhs against one rhs.
// MM: fnc.Tensor(
// MM-NEXT: {{\[\[}}[ 4.  5.]
// MM-NEXT:   [10. 11.]]
// MM-EMPTY:
// MM-NEXT:  {{\[\[}}16. 17.]
// MM-NEXT:   [22. 23.]]], shape=(2, 2, 2), dtype=float32)
func.func @matmul(%a: tensor<2x2x3xf32>, %b: tensor<3x2xf32>) -> tensor<2x2x2xf32> {
  %0 = fnc.matmul %a, %b : tensor<2x2x3xf32>, tensor<3x2xf32>
  return %0 : tensor<2x2x2xf32>
}

// The identity-diagonal 2x2 filter sums x[i][j] + x[i+1][j+1]; SAME pads
// the last row and column with zeros.
// CONV: fnc.Tensor(
// CONV-NEXT: {{\[\[}}{{\[\[}} 7.]
// CONV-NEXT:    [ 9.]
// CONV-NEXT:    [11.]]
// CONV-EMPTY:
// CONV-NEXT:   {{\[\[}}15.]
// CONV-NEXT:    [17.]
// CONV-NEXT:    [19.]]
// CONV-EMPTY:
// CONV-NEXT:   {{\[\[}}23.]
// CONV-NEXT:    [25.]
// CONV-NEXT:    [27.]]]], shape=(1, 3, 3, 1), dtype=float32)
// CONV: fnc.Tensor(
// CONV-NEXT: {{\[\[}}{{\[\[}} 7.]
// CONV-NEXT:    [11.]]
// CONV-EMPTY:
// CONV-NEXT:   {{\[\[}}23.]
// CONV-NEXT:    [27.]]]], shape=(1, 2, 2, 1), dtype=float32)
func.func @conv(%x: tensor<1x4x4x1xf32>, %w: tensor<2x2x1x1xf32>) -> (tensor<1x3x3x1xf32>, tensor<1x2x2x1xf32>) {
  %0 = fnc.conv2d %x, %w strides [1, 1] padding valid : tensor<1x4x4x1xf32>, tensor<2x2x1x1xf32>
  %1 = fnc.conv2d %x, %w strides [2, 2] padding same : tensor<1x4x4x1xf32>, tensor<2x2x1x1xf32>
  return %0, %1 : tensor<1x3x3x1xf32>, tensor<1x2x2x1xf32>
}
