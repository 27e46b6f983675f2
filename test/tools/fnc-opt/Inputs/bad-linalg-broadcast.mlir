func.func @broadcast(%a: tensor<3xf32>, %b: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // A valid transpose first, and the keyword in a comment: dimensions = x
  %t = linalg.transpose ins(%b : tensor<2x3xf32>) outs(%b : tensor<2x3xf32>) permutation = [0, 1]
  %r = linalg.broadcast ins(%a : tensor<3xf32>) outs(%t : tensor<2x3xf32>)
       dimensions = 0
  return %r : tensor<2x3xf32>
}
