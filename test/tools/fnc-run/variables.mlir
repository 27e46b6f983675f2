// Variables: one bound to a fnc.global_variable starts at its initial value
// and persists across --benchmark calls; an unbound one takes an --input.
// RUN: fnc-run %s --entry=step --input=2xf32=10,20 | FileCheck %s --check-prefix=ONE
// RUN: fnc-run %s --entry=step --input=2xf32=10,20 --benchmark=3 | FileCheck %s --check-prefix=THREE
// RUN: fnc-run %s --entry=step --input=2xf32=10,20 --benchmark=3 --interpret \
// RUN:   | FileCheck %s --check-prefix=THREE
// RUN: fnc-run %s --entry=scale --input=3xi32=1,2,3 --input=i32=4 | FileCheck %s --check-prefix=UNBOUND
// RUN: not fnc-run %s --entry=scale --input=3xi32=1,2,3 2>&1 | FileCheck %s --check-prefix=ARITY

// ONE: fnc.Tensor([11. 22.], shape=(2,), dtype=float32)
// THREE: fnc.Tensor([31. 62.], shape=(2,), dtype=float32)
// UNBOUND: fnc.Tensor([ 4  8 12], shape=(3,), dtype=int32)
// ARITY: fnc-run: error: @scale takes 2 inputs (!fnc.variable<tensor<3xi32>>, tensor<i32>) but 1 --input was given; add one --input per missing input, in order: a literal such as --input=i32=0 (every element 0)

fnc.global_variable @w = dense<[1.0, 2.0]> : tensor<2xf32>

func.func @step(%v: !fnc.variable<tensor<2xf32>> {fnc.bind = @w},
                %x: tensor<2xf32>) -> tensor<2xf32> {
  fnc.var_assign_add %v, %x : !fnc.variable<tensor<2xf32>>
  %new = fnc.var_read %v : !fnc.variable<tensor<2xf32>>
  return %new : tensor<2xf32>
}

func.func @scale(%v: !fnc.variable<tensor<3xi32>>, %k: tensor<i32>)
    -> tensor<3xi32> {
  %x = fnc.var_read %v : !fnc.variable<tensor<3xi32>>
  %y = fnc.mul %x, %k : tensor<3xi32>, tensor<i32>
  fnc.var_assign %v, %y : !fnc.variable<tensor<3xi32>>
  %r = fnc.var_read %v : !fnc.variable<tensor<3xi32>>
  return %r : tensor<3xi32>
}
