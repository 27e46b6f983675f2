func.func @f(%p: tensor<i1>, %a: tensor<2xf32>) {
  %0 = fnc.cond %p : tensor<i1> -> tensor<2xf32> {
    fnc.yield %a : tensor<2xf32>
  } else {
    fnc.yield %p : tensor<i1>
  }
  return
}
