func.func @f(%a: tensor<2xfloat32>) {
  return
}
