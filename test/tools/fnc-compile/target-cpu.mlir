// --target-cpu picks the instruction set: the baseline x86-64 has no AVX
// registers, x86-64-v3 uses them; skylake-avx512 and the host are accepted.
// RUN: rm -rf %t && mkdir %t
// RUN: fnc-compile %s -o %t/generic.o --target-cpu=generic
// RUN: llvm-objdump -d %t/generic.o | FileCheck %s --check-prefix=GENERIC
// RUN: fnc-compile %s -o %t/v3.o --target-cpu=x86-64-v3
// RUN: llvm-objdump -d %t/v3.o | FileCheck %s --check-prefix=V3
// RUN: fnc-compile %s -o %t/skx.o --target-cpu=skylake-avx512
// RUN: fnc-compile %s -o %t/host.o
// RUN: FileCheck %s --check-prefix=SKX < %t/skx.h
// RUN: FileCheck %s --check-prefix=HOST < %t/host.h

// GENERIC-NOT: %ymm
// V3: %ymm
// SKX: for the CPU
// SKX-NEXT: // skylake-avx512. Do not edit.
// SKX: "skylake-avx512", 0, nullptr, 1,
// HOST: // {{.*}} (host). Do not edit.

// The seed function: reduce_mean(x*x*3+y).
func.func @seed(%x: tensor<?xf32>, %y: tensor<?xf32>) -> tensor<f32> {
  %three = fnc.constant dense<3.0> : tensor<f32>
  %sq = fnc.mul %x, %x : tensor<?xf32>, tensor<?xf32>
  %t = fnc.mul %sq, %three : tensor<?xf32>, tensor<f32>
  %s = fnc.add %t, %y : tensor<?xf32>, tensor<?xf32>
  %m = fnc.mean %s axes [0] : tensor<?xf32>
  return %m : tensor<f32>
}
