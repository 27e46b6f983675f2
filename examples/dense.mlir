// A dense layer with relu, y = relu(x w + b), for a batch of any size: the
// module of the README's fnc-run commands. @init returns the weights
// (`fnc-run examples/dense.mlir --entry=init --output=@w.npy` writes them
// to a file), @f applies the layer:
//
//   fnc-run examples/dense.mlir --entry=f --input=2x3xf32=1,2,3,4,5,6 \
//     --input=@w.npy
func.func @init() -> tensor<3x2xf32> {
  %w = fnc.constant dense<[[0.5, -1.0], [0.25, 0.5], [-0.5, 1.0]]>
      : tensor<3x2xf32>
  return %w : tensor<3x2xf32>
}

func.func @f(%x: tensor<?x3xf32>, %w: tensor<3x2xf32>) -> tensor<?x2xf32> {
  %b = fnc.constant dense<[0.5, -2.0]> : tensor<2xf32>
  %xw = fnc.matmul %x, %w : tensor<?x3xf32>, tensor<3x2xf32>
  %z = fnc.add %xw, %b : tensor<?x2xf32>, tensor<2xf32>
  %y = fnc.relu %z : tensor<?x2xf32>
  return %y : tensor<?x2xf32>
}
