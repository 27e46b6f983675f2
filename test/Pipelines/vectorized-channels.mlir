// RUN: fnc-run %s --emit=llvm-ir | FileCheck %s

// Elementwise code on NHWC tensors with 16 channels and an unknown batch
// (the bias and relu of a conv layer, and the relu's gradient): the loops
// over the channels stay rolled for LLVM's vectorizer (fnc-keep-inner-
// loops), which widens them along contiguous memory. Unrolled, the
// vectorizer widened the loop around them with gathers and scatters.
// CHECK-NOT: llvm.masked.gather
// CHECK-NOT: llvm.masked.scatter
// CHECK: !{!"llvm.loop.unroll.disable"}
func.func @main(%x: tensor<?x28x28x16xf32>, %b: tensor<16xf32>, %g: tensor<?x28x28x16xf32>) -> (tensor<?x28x28x16xf32>, tensor<?x28x28x16xf32>) {
  %0 = fnc.add %x, %b : tensor<?x28x28x16xf32>, tensor<16xf32>
  %1 = fnc.relu %0 : tensor<?x28x28x16xf32>
  %z = fnc.constant dense<0.0> : tensor<f32>
  %2 = fnc.compare gt, %1, %z : tensor<?x28x28x16xf32>, tensor<f32>
  %3 = fnc.cast %2 : tensor<?x28x28x16xi1> to tensor<?x28x28x16xf32>
  %4 = fnc.mul %g, %3 : tensor<?x28x28x16xf32>, tensor<?x28x28x16xf32>
  return %1, %4 : tensor<?x28x28x16xf32>, tensor<?x28x28x16xf32>
}
