// Every elementwise op through the JIT and through the reference
// interpreter, with the same expected output.
// RUN: fnc-run %s --entry=arith --input=2x3xf32=1,-2,3,-4,5,-6 --input=3xf32=2,4,-8 | FileCheck %s --check-prefix=ARITH
// RUN: fnc-run %s --interpret --entry=arith --input=2x3xf32=1,-2,3,-4,5,-6 --input=3xf32=2,4,-8 | FileCheck %s --check-prefix=ARITH
// RUN: fnc-run %s --entry=ints --input=4xi32=7,-7,7,-7 --input=4xi32=2,2,-2,-2 | FileCheck %s --check-prefix=INTS
// RUN: fnc-run %s --interpret --entry=ints --input=4xi32=7,-7,7,-7 --input=4xi32=2,2,-2,-2 | FileCheck %s --check-prefix=INTS
// RUN: fnc-run %s --entry=unary --input=4xf64=-1.5,0,0.25,4 | FileCheck %s --check-prefix=UNARY
// RUN: fnc-run %s --interpret --entry=unary --input=4xf64=-1.5,0,0.25,4 | FileCheck %s --check-prefix=UNARY
// RUN: fnc-run %s --entry=logic --input=3xf32=1,2,3 --input=3xf32=3,2,1 | FileCheck %s --check-prefix=LOGIC
// RUN: fnc-run %s --interpret --entry=logic --input=3xf32=1,2,3 --input=3xf32=3,2,1 | FileCheck %s --check-prefix=LOGIC
// RUN: fnc-run %s --entry=creation | FileCheck %s --check-prefix=CREATE
// A dim unknown in the type that is 1 at run time broadcasts against a known
// dim, as numpy does (the run-time broadcast path); any other size is an error.
// RUN: fnc-run %s --entry=stretch --input=1xf32=10 --input=2x3xf32=1,2,3,4,5,6 --input=1x1xf32=2 | FileCheck %s --check-prefix=STRETCH
// RUN: fnc-run %s --interpret --entry=stretch --input=1xf32=10 --input=2x3xf32=1,2,3,4,5,6 --input=1x1xf32=2 | FileCheck %s --check-prefix=STRETCH
// RUN: fnc-run %s --entry=stretch --input=3xf32=10,20,30 --input=2x3xf32=1,2,3,4,5,6 --input=2x1xf32=1,-1 | FileCheck %s --check-prefix=NOSTRETCH
// RUN: fnc-run %s --interpret --entry=stretch --input=3xf32=10,20,30 --input=2x3xf32=1,2,3,4,5,6 --input=2x1xf32=1,-1 | FileCheck %s --check-prefix=NOSTRETCH
// RUN: not fnc-run %s --entry=stretch --input=2xf32=10,20 --input=2x3xf32=1,2,3,4,5,6 --input=2x1xf32=1,-1 2>&1 | FileCheck %s --check-prefix=BADSTRETCH
// RUN: fnc-run %s --interpret --entry=creation | FileCheck %s --check-prefix=CREATE


// ARITH: fnc.Tensor(
// ARITH-NEXT: {{\[\[}}  3.   2.  -5.]
// ARITH-NEXT:  [ -2.   9. -14.]], shape=(2, 3), dtype=float32)
// ARITH: fnc.Tensor(
// ARITH-NEXT: {{\[\[}}  2.  -8. -24.]
// ARITH-NEXT:  [ -8.  20.  48.]], shape=(2, 3), dtype=float32)
// ARITH: fnc.Tensor(
// ARITH-NEXT: {{\[\[}} 0.5   -0.5   -0.375]
// ARITH-NEXT:  [-2.     1.25   0.75 ]], shape=(2, 3), dtype=float32)
// ARITH: fnc.Tensor(
// ARITH-NEXT: {{\[\[}} 2.  4.  3.]
// ARITH-NEXT:  [ 2.  5. -6.]], shape=(2, 3), dtype=float32)
// ARITH: fnc.Tensor(
// ARITH-NEXT: {{\[\[}} 1.  2. -5.]
// ARITH-NEXT:  [ 0.  1. -6.]], shape=(2, 3), dtype=float32)
// ARITH: fnc.Tensor(
// ARITH-NEXT: {{\[\[}}1. 1. 1.]
// ARITH-NEXT:  [1. 1. 1.]], shape=(2, 3), dtype=float32)
func.func @arith(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) {
  %0 = fnc.add %a, %b : tensor<2x3xf32>, tensor<3xf32>
  %1 = fnc.mul %a, %b : tensor<2x3xf32>, tensor<3xf32>
  %2 = fnc.div %a, %b : tensor<2x3xf32>, tensor<3xf32>
  %3 = fnc.maximum %a, %b : tensor<2x3xf32>, tensor<3xf32>
  %4 = fnc.floor_mod %a, %b : tensor<2x3xf32>, tensor<3xf32>
  %one = fnc.constant dense<0.0> : tensor<f32>
  %5 = fnc.pow %a, %one : tensor<2x3xf32>, tensor<f32>
  return %0, %1, %2, %3, %4, %5 : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>
}

// Integer semantics: div truncates, floor_div/floor_mod follow the sign of
// the divisor (TF/Python), pow by squaring, minimum, sub.

// INTS: fnc.Tensor([ 3 -3 -3  3], shape=(4,), dtype=int32)
// INTS: fnc.Tensor([ 3 -4 -4  3], shape=(4,), dtype=int32)
// INTS: fnc.Tensor([ 1  1 -1 -1], shape=(4,), dtype=int32)
// INTS: fnc.Tensor([49 49 49 49], shape=(4,), dtype=int32)
// INTS: fnc.Tensor([ 2 -7 -2 -7], shape=(4,), dtype=int32)
// INTS: fnc.Tensor([ 5 -9  9 -5], shape=(4,), dtype=int32)
func.func @ints(%a: tensor<4xi32>, %b: tensor<4xi32>) -> (tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>) {
  %0 = fnc.div %a, %b : tensor<4xi32>, tensor<4xi32>
  %1 = fnc.floor_div %a, %b : tensor<4xi32>, tensor<4xi32>
  %2 = fnc.floor_mod %a, %b : tensor<4xi32>, tensor<4xi32>
  %sq = fnc.abs %b : tensor<4xi32>
  %3 = fnc.pow %a, %sq : tensor<4xi32>, tensor<4xi32>
  %4 = fnc.minimum %a, %b : tensor<4xi32>, tensor<4xi32>
  %5 = fnc.sub %a, %b : tensor<4xi32>, tensor<4xi32>
  return %0, %1, %2, %3, %4, %5 : tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>
}


// UNARY: fnc.Tensor([1.5  0.   0.25 4.  ], shape=(4,), dtype=float64)
// UNARY: fnc.Tensor([-1.5   0.    0.25  4.  ], shape=(4,), dtype=float64)
// UNARY: fnc.Tensor([-1.  0.  1.  1.], shape=(4,), dtype=float64)
// UNARY: fnc.Tensor([-2.  0.  0.  4.], shape=(4,), dtype=float64)
// UNARY: fnc.Tensor([-1.  0.  1.  4.], shape=(4,), dtype=float64)
// UNARY: fnc.Tensor([0.   0.   0.25 4.  ], shape=(4,), dtype=float64)
// UNARY: fnc.Tensor([ 2.25    0.      0.0625 16.    ], shape=(4,), dtype=float64)
// UNARY: fnc.Tensor([2.  0.5], shape=(2,), dtype=float64)
// UNARY: fnc.Tensor([-0.69314718  0.69314718], shape=(2,), dtype=float64)
// UNARY: fnc.Tensor([ 0.22313016  1.          1.28402542 54.59815003], shape=(4,), dtype=float64)
// UNARY: fnc.Tensor([-0.90514825  0.          0.24491866  0.9993293 ], shape=(4,), dtype=float64)
// UNARY: fnc.Tensor([0.18242552 0.5        0.5621765  0.98201379], shape=(4,), dtype=float64)
func.func @unary(%a: tensor<4xf64>) -> (tensor<4xf64>, tensor<4xf64>, tensor<4xf64>, tensor<4xf64>, tensor<4xf64>, tensor<4xf64>, tensor<4xf64>, tensor<2xf64>, tensor<2xf64>, tensor<4xf64>, tensor<4xf64>, tensor<4xf64>) {
  %0 = fnc.abs %a : tensor<4xf64>
  %n = fnc.neg %a : tensor<4xf64>
  %1 = fnc.neg %n : tensor<4xf64>
  %2 = fnc.sign %a : tensor<4xf64>
  %3 = fnc.floor %a : tensor<4xf64>
  %4 = fnc.ceil %a : tensor<4xf64>
  %5 = fnc.relu %a : tensor<4xf64>
  %6 = fnc.square %a : tensor<4xf64>
  %tail = fnc.slice %a offsets [2] sizes [2] strides [1] : tensor<4xf64>
  %s = fnc.sqrt %tail : tensor<2xf64>
  %7 = fnc.rsqrt %tail : tensor<2xf64>
  %8 = fnc.log %s : tensor<2xf64>
  %9 = fnc.exp %a : tensor<4xf64>
  %10 = fnc.tanh %a : tensor<4xf64>
  %11 = fnc.sigmoid %a : tensor<4xf64>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11 : tensor<4xf64>, tensor<4xf64>, tensor<4xf64>, tensor<4xf64>, tensor<4xf64>, tensor<4xf64>, tensor<4xf64>, tensor<2xf64>, tensor<2xf64>, tensor<4xf64>, tensor<4xf64>, tensor<4xf64>
}


// LOGIC: fnc.Tensor([ True False False], shape=(3,), dtype=bool)
// LOGIC: fnc.Tensor([False  True False], shape=(3,), dtype=bool)
// LOGIC: fnc.Tensor([ True  True False], shape=(3,), dtype=bool)
// LOGIC: fnc.Tensor([ True  True False], shape=(3,), dtype=bool)
// LOGIC: fnc.Tensor([False False  True], shape=(3,), dtype=bool)
// LOGIC: fnc.Tensor([3. 2. 3.], shape=(3,), dtype=float32)
// LOGIC: fnc.Tensor([1 2 3], shape=(3,), dtype=int32)
func.func @logic(%a: tensor<3xf32>, %b: tensor<3xf32>) -> (tensor<3xi1>, tensor<3xi1>, tensor<3xi1>, tensor<3xi1>, tensor<3xi1>, tensor<3xf32>, tensor<3xi32>) {
  %lt = fnc.compare lt, %a, %b : tensor<3xf32>, tensor<3xf32>
  %eq = fnc.compare eq, %a, %b : tensor<3xf32>, tensor<3xf32>
  %le = fnc.compare le, %a, %b : tensor<3xf32>, tensor<3xf32>
  %or = fnc.logical_or %lt, %eq : tensor<3xi1>, tensor<3xi1>
  %not = fnc.logical_not %le : tensor<3xi1>
  %and = fnc.logical_and %not, %not : tensor<3xi1>, tensor<3xi1>
  %max = fnc.select %lt, %b, %a : tensor<3xi1>, tensor<3xf32>, tensor<3xf32>
  %i = fnc.cast %a : tensor<3xf32> to tensor<3xi32>
  return %lt, %eq, %le, %or, %and, %max, %i : tensor<3xi1>, tensor<3xi1>, tensor<3xi1>, tensor<3xi1>, tensor<3xi1>, tensor<3xf32>, tensor<3xi32>
}


// CREATE: fnc.Tensor([1 3 5 7], shape=(4,), dtype=int32)
// CREATE: fnc.Tensor(
// CREATE-NEXT: {{\[\[}}1. 0. 0.]
// CREATE-NEXT:  [0. 1. 0.]], shape=(2, 3), dtype=float64)
// CREATE: fnc.Tensor([2.5 2.5], shape=(2,), dtype=float32)
func.func @creation() -> (tensor<4xi32>, tensor<2x3xf64>, tensor<2xf32>) {
  %0 = fnc.range 1.0, 9.0, 2.0 : tensor<4xi32>
  %1 = fnc.eye : tensor<2x3xf64>
  %2 = fnc.fill 2.5 : tensor<2xf32>
  return %0, %1, %2 : tensor<4xi32>, tensor<2x3xf64>, tensor<2xf32>
}

// STRETCH: fnc.Tensor(
// STRETCH-NEXT: {{\[\[}}22. 24. 26.]
// STRETCH-NEXT:  [28. 30. 32.]], shape=(2, 3), dtype=float32)
// NOSTRETCH: fnc.Tensor(
// NOSTRETCH-NEXT: {{\[\[}} 11.  22.  33.]
// NOSTRETCH-NEXT:  [-14. -25. -36.]], shape=(2, 3), dtype=float32)
// BADSTRETCH: error: @stretch: dynamic dimension mismatch: 2 vs 3
func.func @stretch(%a: tensor<?xf32>, %b: tensor<2x3xf32>, %c: tensor<?x1xf32>) -> tensor<2x3xf32> {
  %0 = fnc.add %a, %b : tensor<?xf32>, tensor<2x3xf32>
  %1 = fnc.mul %0, %c : tensor<2x3xf32>, tensor<?x1xf32>
  return %1 : tensor<2x3xf32>
}
