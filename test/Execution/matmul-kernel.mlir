// The register-blocked matmul kernel against the reference interpreter:
// 4 rows (fewer than its 8: the one-row tail) by 64 columns (a 48-wide
// block and a tail vector).
// RUN: fnc-run %s --input=4x3xf32=-2,-1,0,1,2,-2,-1,0,1,2,-2,-1 --input=3x64xf32=-5,2,-2,5,1,-3,4,0,-4,3,-1,-5,2,-2,5,1,-3,4,0,-4,3,-1,-5,2,-2,5,1,-3,4,0,-4,3,-1,-5,2,-2,5,1,-3,4,0,-4,3,-1,-5,2,-2,5,1,-3,4,0,-4,3,-1,-5,2,-2,5,1,-3,4,0,-4,3,-1,-5,2,-2,5,1,-3,4,0,-4,3,-1,-5,2,-2,5,1,-3,4,0,-4,3,-1,-5,2,-2,5,1,-3,4,0,-4,3,-1,-5,2,-2,5,1,-3,4,0,-4,3,-1,-5,2,-2,5,1,-3,4,0,-4,3,-1,-5,2,-2,5,1,-3,4,0,-4,3,-1,-5,2,-2,5,1,-3,4,0,-4,3,-1,-5,2,-2,5,1,-3,4,0,-4,3,-1,-5,2,-2,5,1,-3,4,0,-4,3,-1,-5,2,-2,5,1,-3,4,0,-4,3,-1,-5,2,-2,5,1,-3,4,0,-4,3,-1,-5,2,-2,5,1 > %t.jit
// RUN: fnc-run %s --interpret --input=4x3xf32=-2,-1,0,1,2,-2,-1,0,1,2,-2,-1 --input=3x64xf32=-5,2,-2,5,1,-3,4,0,-4,3,-1,-5,2,-2,5,1,-3,4,0,-4,3,-1,-5,2,-2,5,1,-3,4,0,-4,3,-1,-5,2,-2,5,1,-3,4,0,-4,3,-1,-5,2,-2,5,1,-3,4,0,-4,3,-1,-5,2,-2,5,1,-3,4,0,-4,3,-1,-5,2,-2,5,1,-3,4,0,-4,3,-1,-5,2,-2,5,1,-3,4,0,-4,3,-1,-5,2,-2,5,1,-3,4,0,-4,3,-1,-5,2,-2,5,1,-3,4,0,-4,3,-1,-5,2,-2,5,1,-3,4,0,-4,3,-1,-5,2,-2,5,1,-3,4,0,-4,3,-1,-5,2,-2,5,1,-3,4,0,-4,3,-1,-5,2,-2,5,1,-3,4,0,-4,3,-1,-5,2,-2,5,1,-3,4,0,-4,3,-1,-5,2,-2,5,1,-3,4,0,-4,3,-1,-5,2,-2,5,1,-3,4,0,-4,3,-1,-5,2,-2,5,1 > %t.ref
// RUN: diff %t.jit %t.ref
func.func @main(%a: tensor<4x3xf32>, %b: tensor<3x64xf32>) -> tensor<4x64xf32> {
  %0 = fnc.matmul %a, %b : tensor<4x3xf32>, tensor<3x64xf32>
  return %0 : tensor<4x64xf32>
}

// A matrix-vector product with K = 32 takes the dot-product kernel (one
// vector.reduction per row of A) under fast-math, the plain loops without.
// RUN: fnc-run %s --entry=matvec --input=3x32xf32=1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31,32,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,-1,1,-1,1,-1,1,-1,1,-1,1,-1,1,-1,1,-1,1,-1,1,-1,1,-1,1,-1,1,-1,1,-1,1,-1,1,-1,1 --input=32x1xf32=1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31,32 | FileCheck %s --check-prefix=MATVEC
// RUN: fnc-run %s --interpret --entry=matvec --input=3x32xf32=1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31,32,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,-1,1,-1,1,-1,1,-1,1,-1,1,-1,1,-1,1,-1,1,-1,1,-1,1,-1,1,-1,1,-1,1,-1,1,-1,1,-1,1 --input=32x1xf32=1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31,32 | FileCheck %s --check-prefix=MATVEC
// RUN: fnc-opt %s --fnc-pipeline | FileCheck %s --check-prefix=KERNEL
// RUN: fnc-opt %s --fnc-pipeline="fast-math=false" | FileCheck %s --check-prefix=EXACT
// sum i^2 for i = 1..32 = 11440; sum i = 528; 16 * (even - odd) = 16.
// MATVEC: {{\[\[}}11440.]
// MATVEC-NEXT: [  528.]
// MATVEC-NEXT: [   16.]], shape=(3, 1), dtype=float32)
// KERNEL-LABEL: llvm.func @matvec
// KERNEL: llvm.intr.vector.reduce.fadd
// EXACT-LABEL: llvm.func @matvec
// EXACT-NOT: llvm.intr.vector.reduce.fadd
// EXACT: llvm.return
func.func @matvec(%a: tensor<3x32xf32>, %x: tensor<32x1xf32>) -> tensor<3x1xf32> {
  %0 = fnc.matmul %a, %x : tensor<3x32xf32>, tensor<32x1xf32>
  return %0 : tensor<3x1xf32>
}

// Two matmuls reading one transposed 3x3 matrix from a stack buffer: LLVM
// 22's SLP vectorizer (znver4, O3) moved a masked gather of the buffer above
// the store of its last element when the buffer's alloca stood in the middle
// of the function, and two elements of each product came out wrong. The JIT
// moves such allocas into the entry block (ObjectCompiler.cpp).
// RUN: fnc-run %s --entry=shared_transpose --input=3x3xf64=0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8,0.9 --input=3x3xf64=1,-2,3,0.5,0.25,-1,2,1,-0.5 --input=3xf64=0.5,-1,2 > %t.transpose.jit
// RUN: fnc-run %s --interpret --entry=shared_transpose --input=3x3xf64=0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8,0.9 --input=3x3xf64=1,-2,3,0.5,0.25,-1,2,1,-0.5 --input=3xf64=0.5,-1,2 > %t.transpose.ref
// RUN: diff %t.transpose.jit %t.transpose.ref
func.func @shared_transpose(%a: tensor<3x3xf64>, %w: tensor<3x3xf64>, %v: tensor<3xf64>) -> (tensor<3x3xf64>, tensor<3x3xf64>) {
  %h = fnc.constant dense<5.000000e-01> : tensor<f64>
  %0 = fnc.mul %a, %h : tensor<3x3xf64>, tensor<f64>
  %t = fnc.transpose %w perm [1, 0] : tensor<3x3xf64>
  %1 = fnc.matmul %0, %t : tensor<3x3xf64>, tensor<3x3xf64>
  %2 = fnc.mul %1, %h : tensor<3x3xf64>, tensor<f64>
  %3 = fnc.matmul %2, %w : tensor<3x3xf64>, tensor<3x3xf64>
  %4 = fnc.sub %3, %a : tensor<3x3xf64>, tensor<3x3xf64>
  %5 = fnc.mul %4, %v : tensor<3x3xf64>, tensor<3xf64>
  %6 = fnc.matmul %5, %t : tensor<3x3xf64>, tensor<3x3xf64>
  return %1, %6 : tensor<3x3xf64>, tensor<3x3xf64>
}
