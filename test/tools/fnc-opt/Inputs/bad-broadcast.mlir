func.func @f(%a: tensor<2xf32>, %b: tensor<3xf32>) {
  %0 = fnc.mul %a, %b : tensor<2xf32>, tensor<3xf32>
  return
}
