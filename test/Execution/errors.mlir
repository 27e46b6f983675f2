// Faults the generated code detects at run time: one clear line on stderr,
// exit code 1, never an out-of-bounds access or a trap. The interpreter
// reports the same faults.
// RUN: not fnc-run %s --entry=gather --input=3xf32=1,2,3 --input=2xi32=1,5 2>&1 | FileCheck %s --check-prefix=GATHER
// RUN: not fnc-run %s --interpret --entry=gather --input=3xf32=1,2,3 --input=2xi32=1,5 2>&1 | FileCheck %s --check-prefix=GATHER-I
// GATHER: fnc-run: error: {{.*}}gather index 5 is out of range [0, 3)
// GATHER-I: error: {{.*}}gather
func.func @gather(%p: tensor<3xf32>, %i: tensor<2xi32>) -> tensor<2xf32> {
  %0 = fnc.gather %p, %i axis 0 : tensor<3xf32>, tensor<2xi32>
  return %0 : tensor<2xf32>
}

// RUN: not fnc-run %s --entry=divide --input=3xi32=1,2,3 --input=3xi32=1,0,1 2>&1 | FileCheck %s --check-prefix=DIV
// RUN: not fnc-run %s --interpret --entry=divide --input=3xi32=1,2,3 --input=3xi32=1,0,1 2>&1 | FileCheck %s --check-prefix=DIV
// DIV: error: {{.*}}division by zero
func.func @divide(%a: tensor<3xi32>, %b: tensor<3xi32>) -> tensor<3xi32> {
  %0 = fnc.floor_div %a, %b : tensor<3xi32>, tensor<3xi32>
  return %0 : tensor<3xi32>
}

// Two dims declared unknown must agree at run time.
// RUN: not fnc-run %s --entry=mismatch --input=3xf32=1,2,3 --input=4xf32=1,2,3,4 2>&1 | FileCheck %s --check-prefix=DIM
// DIM: fnc-run: error: {{.*}}dynamic dimension mismatch: 3 vs 4
func.func @mismatch(%a: tensor<?xf32>, %b: tensor<?xf32>) -> tensor<?xf32> {
  %0 = fnc.add %a, %b : tensor<?xf32>, tensor<?xf32>
  return %0 : tensor<?xf32>
}

// RUN: not fnc-run %s --entry=reshape --input=5xf32=1,2,3,4,5 2>&1 | FileCheck %s --check-prefix=RESHAPE
// RESHAPE: fnc-run: error: {{.*}}cannot reshape a tensor of 5 elements: the known dimensions of the new shape multiply to 2
func.func @reshape(%a: tensor<?xf32>) -> tensor<?x2xf32> {
  %0 = fnc.reshape %a : tensor<?xf32> -> tensor<?x2xf32>
  return %0 : tensor<?x2xf32>
}

// A shape tensor with a negative size, or a size that disagrees with a
// static dim of the result.
// RUN: not fnc-run %s --entry=shape_values --input=2xi32=2,-1 2>&1 | FileCheck %s --check-prefix=NEG
// RUN: not fnc-run %s --interpret --entry=shape_values --input=2xi32=2,-1 2>&1 | FileCheck %s --check-prefix=NEG
// RUN: not fnc-run %s --entry=shape_values --input=2xi32=4,3 2>&1 | FileCheck %s --check-prefix=SVDIM
// RUN: not fnc-run %s --interpret --entry=shape_values --input=2xi32=4,3 2>&1 | FileCheck %s --check-prefix=SVDIM
// NEG: error: {{.*}}a shape holds the negative size -1 (at index 1); sizes must be >= 0
// SVDIM: error: {{.*}}dynamic dimension mismatch: 4 vs 2
func.func @shape_values(%s: tensor<2xi32>) -> tensor<2x?xf32> {
  %one = fnc.constant dense<1.0> : tensor<f32>
  %0 = fnc.broadcast_to_shape %one, %s : tensor<f32>, tensor<2xi32> -> tensor<2x?xf32>
  return %0 : tensor<2x?xf32>
}

// RUN: not fnc-run %s --entry=slice --input=2xf32=1,2 2>&1 | FileCheck %s --check-prefix=SLICE
// SLICE: fnc-run: error: {{.*}}slice reaches element 3 of a dimension of size 2
func.func @slice(%a: tensor<?xf32>) -> tensor<2xf32> {
  %0 = fnc.slice %a offsets [2] sizes [2] strides [1] : tensor<?xf32>
  return %0 : tensor<2xf32>
}

// RUN: not fnc-run %s --entry=power --input=2xi64=2,3 --input=2xi64=1,-1 2>&1 | FileCheck %s --check-prefix=POW
// POW: fnc-run: error: {{.*}}integer pow with the negative exponent -1
func.func @power(%a: tensor<2xi64>, %b: tensor<2xi64>) -> tensor<2xi64> {
  %0 = fnc.pow %a, %b : tensor<2xi64>, tensor<2xi64>
  return %0 : tensor<2xi64>
}

// Reducing a scalar over no axis fused into a loop (a past miscompile).
// RUN: fnc-run %s --entry=scalar_sum --input=3xf32=1,2,3 --input=f32=0 | FileCheck %s --check-prefix=SCALAR
// RUN: fnc-run %s --interpret --entry=scalar_sum --input=3xf32=1,2,3 --input=f32=0 | FileCheck %s --check-prefix=SCALAR
// SCALAR: fnc.Tensor([ 8. 10. 12.], shape=(3,), dtype=float32)
func.func @scalar_sum(%arg0: tensor<3xf32>, %arg1: tensor<f32>) -> tensor<3xf32> {
  %0 = fnc.maximum %arg1, %arg1 : tensor<f32>, tensor<f32>
  %1 = fnc.sub %arg0, %arg1 : tensor<3xf32>, tensor<f32>
  %2 = fnc.add %1, %arg0 : tensor<3xf32>, tensor<3xf32>
  %3 = fnc.sum %0 axes [] : tensor<f32>
  %4 = fnc.add %2, %3 : tensor<3xf32>, tensor<f32>
  %5 = fnc.sum %1 axes [0] : tensor<3xf32>
  %6 = fnc.add %4, %5 : tensor<3xf32>, tensor<f32>
  return %6 : tensor<3xf32>
}
