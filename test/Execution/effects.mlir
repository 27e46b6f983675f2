// fnc.print runs on every call, in order with the other effects; random
// ops draw fresh values each call and repeat them under the same seed.
// RUN: fnc-run %s --entry=print --input=2xf32=1.5,-2 --input=i64=7 | FileCheck %s --check-prefix=PRINT
// RUN: fnc-run %s --interpret --entry=print --input=2xf32=1.5,-2 --input=i64=7 | FileCheck %s --check-prefix=PRINT
// RUN: fnc-run %s --entry=print --input=2xf32=1.5,-2 --input=i64=7 --benchmark=3 | FileCheck %s --check-prefix=EVERY

// PRINT: x = [ 1.5 -2. ], n = 7
// PRINT-NEXT: values: [ 1.5 -2. ] 7
// PRINT-NEXT: in the loop 0
// PRINT-NEXT: in the loop 1
// PRINT-NEXT: in the loop 2
// PRINT-NEXT: fnc.Tensor(3, shape=(), dtype=int64)
// EVERY-COUNT-3: x = [ 1.5 -2. ], n = 7
// EVERY-NOT: x =
func.func @print(%x: tensor<2xf32>, %n: tensor<i64>) -> tensor<i64> {
  fnc.print "x = {}, n = {}" %x, %n : tensor<2xf32>, tensor<i64>
  fnc.print "values:" %x, %n : tensor<2xf32>, tensor<i64>
  %zero = fnc.constant dense<0> : tensor<i64>
  %one = fnc.constant dense<1> : tensor<i64>
  %three = fnc.constant dense<3> : tensor<i64>
  %r = fnc.while (%zero) : tensor<i64> cond {
  ^bb0(%i: tensor<i64>):
    %c = fnc.compare lt, %i, %three : tensor<i64>, tensor<i64>
    fnc.condition %c, %i : tensor<i1>, tensor<i64>
  } do {
  ^bb0(%i: tensor<i64>):
    fnc.print "in the loop" %i : tensor<i64>
    %j = fnc.add %i, %one : tensor<i64>, tensor<i64>
    fnc.yield %j : tensor<i64>
  }
  return %r : tensor<i64>
}

// Uniform values lie in [min, max); normal ones have about the right
// moments; both differ between the two draws of one call.
// RUN: fnc-run %s --entry=random --seed=7 | FileCheck %s --check-prefix=RANDOM
// RANDOM: fnc.Tensor(True, shape=(), dtype=bool)
// RANDOM-NEXT: fnc.Tensor(True, shape=(), dtype=bool)
// RANDOM-NEXT: fnc.Tensor(True, shape=(), dtype=bool)
// RANDOM-NEXT: fnc.Tensor(True, shape=(), dtype=bool)
func.func @random() -> (tensor<i1>, tensor<i1>, tensor<i1>, tensor<i1>) {
  %u = fnc.random_uniform min 2.0 max 3.0 : tensor<1000xf32>
  %lo = fnc.min %u axes [] : tensor<1000xf32>
  %hi = fnc.max %u axes [] : tensor<1000xf32>
  %two = fnc.constant dense<2.0> : tensor<f32>
  %three = fnc.constant dense<3.0> : tensor<f32>
  %a = fnc.compare ge, %lo, %two : tensor<f32>, tensor<f32>
  %b = fnc.compare lt, %hi, %three : tensor<f32>, tensor<f32>
  %n = fnc.random_normal mean 1.0 stddev 2.0 : tensor<10000xf64>
  %mean = fnc.mean %n axes [] : tensor<10000xf64>
  %lo_m = fnc.constant dense<0.9> : tensor<f64>
  %hi_m = fnc.constant dense<1.1> : tensor<f64>
  %m1 = fnc.compare gt, %mean, %lo_m : tensor<f64>, tensor<f64>
  %m2 = fnc.compare lt, %mean, %hi_m : tensor<f64>, tensor<f64>
  %c = fnc.logical_and %m1, %m2 : tensor<i1>, tensor<i1>
  %u2 = fnc.random_uniform min 2.0 max 3.0 : tensor<1000xf32>
  %same = fnc.compare eq, %u, %u2 : tensor<1000xf32>, tensor<1000xf32>
  %anySame = fnc.cast %same : tensor<1000xi1> to tensor<1000xi32>
  %count = fnc.sum %anySame axes [] : tensor<1000xi32>
  %zero = fnc.constant dense<0> : tensor<i32>
  %fresh = fnc.compare eq, %count, %zero : tensor<i32>, tensor<i32>
  return %a, %b, %c, %fresh : tensor<i1>, tensor<i1>, tensor<i1>, tensor<i1>
}

// The same seed gives the same values; every call draws new ones.
// RUN: fnc-run %s --entry=draw --seed=42 > %t.a
// RUN: fnc-run %s --entry=draw --seed=42 > %t.b
// RUN: diff %t.a %t.b
// RUN: fnc-run %s --entry=draw --seed=43 > %t.c
// RUN: not diff %t.a %t.c
// RUN: fnc-run %s --entry=draw --seed=42 --output=@%t.npy
// RUN: not fnc-run %s --entry=draw --input=@%t.npy 2>&1 | FileCheck %s --check-prefix=DRAW-ARITY
// DRAW-ARITY: @draw takes 0 inputs
func.func @draw() -> tensor<4xf32> {
  %u = fnc.random_uniform min 0.0 max 1.0 seed 3 : tensor<4xf32>
  return %u : tensor<4xf32>
}
