// Under fast-math (the default) f32 exp and log are polynomials, with no
// libm calls; --fast-math=false calls libm, as the interpreter and eager
// fnc do.

// RUN: fnc-run %s --emit=llvm-ir | FileCheck %s --check-prefix=FAST
// FAST-NOT: @expf
// FAST-NOT: @logf
// RUN: fnc-run %s --emit=llvm-ir --fast-math=false | FileCheck %s --check-prefix=EXACT
// EXACT-DAG: call float @expf(
// EXACT-DAG: call float @logf(

// exp(-100) is a subnormal in both. log(exp(1)) is 1 with the polynomial
// and 1 - 2^-24 with libm (within the 1 ulp docs/Pipeline.md states).
// RUN: fnc-run %s --input=4xf32=0,1,-100,20 | FileCheck %s --check-prefixes=EXP,POLY
// RUN: fnc-run %s --input=4xf32=0,1,-100,20 --fast-math=false | FileCheck %s --check-prefixes=EXP,LIBM
// RUN: fnc-run %s --input=4xf32=0,1,-100,20 --interpret | FileCheck %s --check-prefixes=EXP,LIBM
// EXP: fnc.Tensor([1.0000000e+00 2.7182817e+00 3.8000000e-44 4.8516520e+08]
// POLY-NEXT: fnc.Tensor([  0.        1.      -99.98309  20.     ]
// LIBM-NEXT: fnc.Tensor([  0.           0.99999994 -99.98309     20.        ]

// RUN: not fnc-run %s --fast-math=maybe 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: --fast-math option: 'maybe' is invalid

func.func @f(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %e = fnc.exp %x : tensor<4xf32>
  %l = fnc.log %e : tensor<4xf32>
  return %e, %l : tensor<4xf32>, tensor<4xf32>
}
