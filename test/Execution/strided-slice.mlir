// numpy indexing (fnc.strided_slice) and its gradient through the JIT and
// the reference interpreter. Dims unknown in the type are resolved at run
// time: the same function on two shapes; an index outside a dim is an
// error. Values: x[i, j] = 4 * i + j + 1.
// RUN: fnc-run %s --entry=index --input=3x4xf32=1,2,3,4,5,6,7,8,9,10,11,12 | FileCheck %s --check-prefix=INDEX3
// RUN: fnc-run %s --interpret --entry=index --input=3x4xf32=1,2,3,4,5,6,7,8,9,10,11,12 | FileCheck %s --check-prefix=INDEX3
// RUN: fnc-run %s --entry=index --input=5x4xf32=1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20 | FileCheck %s --check-prefix=INDEX5
// RUN: fnc-run %s --interpret --entry=index --input=5x4xf32=1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20 | FileCheck %s --check-prefix=INDEX5
// RUN: not fnc-run %s --entry=index --input=0x4xf32=0 2>&1 | FileCheck %s --check-prefix=EMPTY
// RUN: not fnc-run %s --interpret --entry=index --input=0x4xf32=0 2>&1 | FileCheck %s --check-prefix=EMPTY-INTERP
// Known dims: folded to fnc.slice where it can be, else lowered directly.
// RUN: fnc-run %s --entry=static --input=3x4xi32=1,2,3,4,5,6,7,8,9,10,11,12 | FileCheck %s --check-prefix=STATIC
// RUN: fnc-run %s --interpret --entry=static --input=3x4xi32=1,2,3,4,5,6,7,8,9,10,11,12 | FileCheck %s --check-prefix=STATIC
// The gradient: zeros with the slice's gradient where it read.
// RUN: fnc-run %s --entry=grad --input=3x4xf32=0 --input=2x2xf32=1,2,3,4 | FileCheck %s --check-prefix=GRAD
// RUN: fnc-run %s --interpret --entry=grad --input=3x4xf32=0 --input=2x2xf32=1,2,3,4 | FileCheck %s --check-prefix=GRAD
// RUN: not fnc-run %s --entry=grad --input=3x4xf32=0 --input=3x2xf32=1 2>&1 | FileCheck %s --check-prefix=GRAD-BAD

// INDEX3: fnc.Tensor([ 9. 10. 11. 12.], shape=(4,), dtype=float32)
// INDEX3: fnc.Tensor(
// INDEX3-NEXT: {{\[\[}} 9. 10. 11. 12.]
// INDEX3-NEXT:  [ 5.  6.  7.  8.]
// INDEX3-NEXT:  [ 1.  2.  3.  4.]], shape=(3, 4), dtype=float32)
// INDEX3: fnc.Tensor({{\[\[}}8. 6.]], shape=(1, 2), dtype=float32)
// INDEX3: fnc.Tensor(
// INDEX3-NEXT: {{\[\[}} 1.  3.]
// INDEX3-NEXT:  [ 9. 11.]], shape=(2, 2), dtype=float32)
// INDEX5: fnc.Tensor([17. 18. 19. 20.], shape=(4,), dtype=float32)
// INDEX5: fnc.Tensor(
// INDEX5-NEXT: {{\[\[}}17. 18. 19. 20.]
// INDEX5-NEXT:  [13. 14. 15. 16.]
// INDEX5-NEXT:  [ 9. 10. 11. 12.]
// INDEX5-NEXT:  [ 5.  6.  7.  8.]
// INDEX5-NEXT:  [ 1.  2.  3.  4.]], shape=(5, 4), dtype=float32)
// INDEX5: fnc.Tensor(
// INDEX5-NEXT: {{\[\[}} 8.  6.]
// INDEX5-NEXT:  [12. 10.]
// INDEX5-NEXT:  [16. 14.]], shape=(3, 2), dtype=float32)
// INDEX5: fnc.Tensor(
// INDEX5-NEXT: {{\[\[}} 9. 11.]
// INDEX5-NEXT:  [17. 19.]], shape=(2, 2), dtype=float32)
func.func @index(%x: tensor<?x4xf32>) -> (tensor<4xf32>, tensor<?x4xf32>, tensor<?x2xf32>, tensor<?x2xf32>) {
  %0 = fnc.strided_slice %x [-1, :] : tensor<?x4xf32>
  %1 = fnc.strided_slice %x [::-1, :] : tensor<?x4xf32>
  %2 = fnc.strided_slice %x [1:-1, 3:0:-2] : tensor<?x4xf32>
  %3 = fnc.strided_slice %x [-3::2, ::2] : tensor<?x4xf32>
  return %0, %1, %2, %3 : tensor<4xf32>, tensor<?x4xf32>, tensor<?x2xf32>, tensor<?x2xf32>
}

// EMPTY: error: @index: index -1 is out of range for a dimension of size 0 (the dim is empty)
// EMPTY-INTERP: error: {{.*}}index -1 is out of range for dimension 0 of size 0 (the dim is empty)

// STATIC: fnc.Tensor(
// STATIC-NEXT: {{\[\[}} 6  8]
// STATIC-NEXT:  [10 12]], shape=(2, 2), dtype=int32)
// STATIC: fnc.Tensor([11  7  3], shape=(3,), dtype=int32)
// STATIC: fnc.Tensor([], shape=(0, 4), dtype=int32)
// STATIC: fnc.Tensor(8, shape=(), dtype=int32)
func.func @static(%x: tensor<3x4xi32>) -> (tensor<2x2xi32>, tensor<3xi32>, tensor<0x4xi32>, tensor<i32>) {
  %0 = fnc.strided_slice %x [-2:, 1::2] : tensor<3x4xi32>
  %1 = fnc.strided_slice %x [::-1, 2] : tensor<3x4xi32>
  %2 = fnc.strided_slice %x [7:, :] : tensor<3x4xi32>
  %3 = fnc.strided_slice %x [1, -1] : tensor<3x4xi32>
  return %0, %1, %2, %3 : tensor<2x2xi32>, tensor<3xi32>, tensor<0x4xi32>, tensor<i32>
}

// GRAD-BAD: error: @grad: dynamic dimension mismatch: 3 vs 2
// GRAD: fnc.Tensor(
// GRAD-NEXT: {{\[\[}}0. 0. 0. 0.]
// GRAD-NEXT:  [0. 2. 0. 1.]
// GRAD-NEXT:  [0. 4. 0. 3.]], shape=(3, 4), dtype=float32)
func.func @grad(%x: tensor<?x4xf32>, %g: tensor<?x2xf32>) -> tensor<?x4xf32> {
  %0 = fnc.strided_slice_grad %x, %g [1:, 3:0:-2] : tensor<?x4xf32>, tensor<?x2xf32>
  return %0 : tensor<?x4xf32>
}
