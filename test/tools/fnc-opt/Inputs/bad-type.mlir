func.func @f(%a: tensor<2xf32>) -> tensor<3xf32> {
  %0 = "fnc.add"(%a, %a) : (tensor<2xf32>, tensor<2xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}
