// fnc.cond and fnc.while through the JIT and the reference interpreter.
// RUN: fnc-run %s --entry=factorial --input=i64=10 | FileCheck %s --check-prefix=FACT
// RUN: fnc-run %s --interpret --entry=factorial --input=i64=10 | FileCheck %s --check-prefix=FACT
// RUN: fnc-run %s --entry=collatz --input=i32=27 | FileCheck %s --check-prefix=COLLATZ
// RUN: fnc-run %s --interpret --entry=collatz --input=i32=27 | FileCheck %s --check-prefix=COLLATZ
// RUN: fnc-run %s --entry=pick --input=i1=true --input=3xf32=1,2,3 | FileCheck %s --check-prefix=TRUE
// RUN: fnc-run %s --entry=pick --input=i1=false --input=3xf32=1,2,3 | FileCheck %s --check-prefix=FALSE
// RUN: fnc-run %s --interpret --entry=pick --input=i1=false --input=3xf32=1,2,3 | FileCheck %s --check-prefix=FALSE
// RUN: fnc-run %s --entry=pick_empty --input=i1=false --input=1x3xf32=1,2,3 | FileCheck %s --check-prefix=EMPTY
// RUN: fnc-run %s --interpret --entry=pick_empty --input=i1=false --input=1x3xf32=1,2,3 | FileCheck %s --check-prefix=EMPTY
// RUN: fnc-run %s --entry=pick_empty --input=i1=true --input=1x3xf32=1,2,3 | FileCheck %s --check-prefix=NONEMPTY

// n! with a loop carrying (i, acc).
// FACT: fnc.Tensor(3628800, shape=(), dtype=int64)
func.func @factorial(%n: tensor<i64>) -> tensor<i64> {
  %one = fnc.constant dense<1> : tensor<i64>
  %r:2 = fnc.while (%one, %one) : tensor<i64>, tensor<i64> cond {
  ^bb0(%i: tensor<i64>, %acc: tensor<i64>):
    %c = fnc.compare le, %i, %n : tensor<i64>, tensor<i64>
    fnc.condition %c, %i, %acc : tensor<i1>, tensor<i64>, tensor<i64>
  } do {
  ^bb0(%i: tensor<i64>, %acc: tensor<i64>):
    %next = fnc.add %i, %one : tensor<i64>, tensor<i64>
    %prod = fnc.mul %acc, %i : tensor<i64>, tensor<i64>
    fnc.yield %next, %prod : tensor<i64>, tensor<i64>
  }
  return %r#1 : tensor<i64>
}

// Steps of the Collatz sequence from n to 1: a cond inside a while.
// COLLATZ: fnc.Tensor(111, shape=(), dtype=int32)
func.func @collatz(%n: tensor<i32>) -> tensor<i32> {
  %zero = fnc.constant dense<0> : tensor<i32>
  %one = fnc.constant dense<1> : tensor<i32>
  %two = fnc.constant dense<2> : tensor<i32>
  %three = fnc.constant dense<3> : tensor<i32>
  %r:2 = fnc.while (%n, %zero) : tensor<i32>, tensor<i32> cond {
  ^bb0(%x: tensor<i32>, %steps: tensor<i32>):
    %c = fnc.compare ne, %x, %one : tensor<i32>, tensor<i32>
    fnc.condition %c, %x, %steps : tensor<i1>, tensor<i32>, tensor<i32>
  } do {
  ^bb0(%x: tensor<i32>, %steps: tensor<i32>):
    %m = fnc.floor_mod %x, %two : tensor<i32>, tensor<i32>
    %even = fnc.compare eq, %m, %zero : tensor<i32>, tensor<i32>
    %y = fnc.cond %even : tensor<i1> -> tensor<i32> {
      %h = fnc.floor_div %x, %two : tensor<i32>, tensor<i32>
      fnc.yield %h : tensor<i32>
    } else {
      %t = fnc.mul %x, %three : tensor<i32>, tensor<i32>
      %u = fnc.add %t, %one : tensor<i32>, tensor<i32>
      fnc.yield %u : tensor<i32>
    }
    %s = fnc.add %steps, %one : tensor<i32>, tensor<i32>
    fnc.yield %y, %s : tensor<i32>, tensor<i32>
  }
  return %r#1 : tensor<i32>
}

// TRUE: fnc.Tensor([2. 4. 6.], shape=(3,), dtype=float32)
// FALSE: fnc.Tensor([-1. -2. -3.], shape=(3,), dtype=float32)
func.func @pick(%p: tensor<i1>, %x: tensor<3xf32>) -> tensor<3xf32> {
  %r = fnc.cond %p : tensor<i1> -> tensor<3xf32> {
    %d = fnc.add %x, %x : tensor<3xf32>, tensor<3xf32>
    fnc.yield %d : tensor<3xf32>
  } else {
    %n = fnc.neg %x : tensor<3xf32>
    fnc.yield %n : tensor<3xf32>
  }
  return %r : tensor<3xf32>
}

// A zero-size constant from a branch (a staged cond's zeros for the draws
// of the other branch): its global lies in an empty section, which the JIT
// must place too ("a relocation refers to a section that is not loaded").
// EMPTY: fnc.Tensor([], shape=(0, 3), dtype=float32)
// NONEMPTY: fnc.Tensor({{\[\[}}1. 2. 3.]], shape=(1, 3), dtype=float32)
func.func @pick_empty(%p: tensor<i1>, %x: tensor<?x3xf32>) -> tensor<?x3xf32> {
  %c = fnc.constant dense<> : tensor<0x3xf32>
  %r = fnc.cond %p : tensor<i1> -> tensor<?x3xf32> {
    fnc.yield %x : tensor<?x3xf32>
  } else {
    %cc = tensor.cast %c : tensor<0x3xf32> to tensor<?x3xf32>
    fnc.yield %cc : tensor<?x3xf32>
  }
  return %r : tensor<?x3xf32>
}
