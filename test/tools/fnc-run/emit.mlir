// --emit prints the module at each stage of the pipeline instead of running.
// RUN: fnc-run %s --emit=fnc | FileCheck %s --check-prefix=FNC
// RUN: fnc-run %s --emit=linalg | FileCheck %s --check-prefix=LINALG
// RUN: fnc-run %s --emit=llvm | FileCheck %s --check-prefix=LLVM
// RUN: fnc-run %s --emit=llvm-ir | FileCheck %s --check-prefix=IR
// RUN: not fnc-run %s --emit=asm 2>&1 | FileCheck %s --check-prefix=BAD

// FNC-LABEL: func.func @scale(
// FNC: linalg.generic

// LINALG-LABEL: func.func @scale(
// LINALG-SAME: tensor<8xf32>
// LINALG: linalg.generic
// LINALG-NOT: llvm.

// LLVM-LABEL: llvm.func @scale(
// LLVM-NOT: linalg.generic
// LLVM: llvm.fmul

// IR: define {{.*}} @scale(
// IR: fmul

// BAD: for the --emit option: Cannot find option named 'asm'!

func.func @scale(%a: tensor<8xf32>) -> tensor<8xf32> {
  %e = tensor.empty() : tensor<8xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>,
                                        affine_map<(d0) -> (d0)>],
                       iterator_types = ["parallel"]}
      ins(%a : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%x: f32, %o: f32):
    %c = arith.constant 3.0 : f32
    %s = arith.mulf %x, %c : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  return %r : tensor<8xf32>
}
