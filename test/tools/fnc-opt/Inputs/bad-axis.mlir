func.func @f(%a: tensor<2x3xf32>) {
  %0 = fnc.sum %a axes [5] : tensor<2x3xf32>
  return
}
