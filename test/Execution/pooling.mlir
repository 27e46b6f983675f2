// max_pool2d, avg_pool2d and their gradient ops through the JIT and the
// reference interpreter, with the same expected output.
// RUN: fnc-run %s --entry=pool --input=1x4x4x1xf32=1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16 --input=1x2x2x1xf32=1,2,3,4 | FileCheck %s --check-prefix=POOL
// RUN: fnc-run %s --interpret --entry=pool --input=1x4x4x1xf32=1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16 --input=1x2x2x1xf32=1,2,3,4 | FileCheck %s --check-prefix=POOL

// Overlapping SAME windows on small integers (ties: the first maximum of a
// window takes its gradient): the JIT must print what the interpreter does.
// RUN: fnc-run %s --entry=overlap --input=2x5x6x3xf64=-1,-2,0,2,-3,-3,3,1,-3,-1,1,-3,1,-2,-3,-3,0,0,-3,-2,-3,1,0,-3,3,1,-3,-2,2,2,1,-3,1,1,0,-3,-2,-3,1,3,-2,-1,0,-2,1,-3,1,-1,1,3,2,-2,-3,1,1,2,-2,-1,-3,1,2,-3,1,-3,1,-2,0,2,1,0,3,-1,0,1,0,-1,-1,-2,3,-2,2,3,-2,-3,1,-1,1,0,-1,2,0,-1,1,-3,-3,1,0,-2,3,-1,-2,0,0,-3,2,-3,3,1,1,3,3,-1,-1,2,-1,1,0,1,3,0,-3,3,-3,-1,0,2,2,-3,-3,2,2,-1,2,1,2,3,0,-1,2,0,2,-1,-3,0,-1,-2,1,-3,0,-3,-2,3,-1,-2,2,-2,0,0,3,0,-3,-2,0,0,1,-1,-2,3,0,3,1,-1,2,0,-1,2,0,-2,-2,-3 --input=2x3x3x3xf64=-1.0,-1.0,-0.5,-0.5,-2.0,1.5,-1.0,0.0,0.0,-2.0,-1.0,1.0,2.0,0.5,0.5,-1.0,2.0,-2.0,1.5,2.0,1.0,1.0,1.0,1.0,-1.5,1.5,1.0,-2.0,-0.5,-1.5,-0.5,1.5,-1.0,-1.5,0.5,-2.0,-1.5,-2.0,-1.0,2.0,-1.5,0.5,-2.0,-1.5,-0.5,1.0,-1.0,0.0,0.5,0.5,1.5,-1.5,-1.5,1.5 > %t.jit
// RUN: fnc-run %s --interpret --entry=overlap --input=2x5x6x3xf64=-1,-2,0,2,-3,-3,3,1,-3,-1,1,-3,1,-2,-3,-3,0,0,-3,-2,-3,1,0,-3,3,1,-3,-2,2,2,1,-3,1,1,0,-3,-2,-3,1,3,-2,-1,0,-2,1,-3,1,-1,1,3,2,-2,-3,1,1,2,-2,-1,-3,1,2,-3,1,-3,1,-2,0,2,1,0,3,-1,0,1,0,-1,-1,-2,3,-2,2,3,-2,-3,1,-1,1,0,-1,2,0,-1,1,-3,-3,1,0,-2,3,-1,-2,0,0,-3,2,-3,3,1,1,3,3,-1,-1,2,-1,1,0,1,3,0,-3,3,-3,-1,0,2,2,-3,-3,2,2,-1,2,1,2,3,0,-1,2,0,2,-1,-3,0,-1,-2,1,-3,0,-3,-2,3,-1,-2,2,-2,0,0,3,0,-3,-2,0,0,1,-1,-2,3,0,3,1,-1,2,0,-1,2,0,-2,-2,-3 --input=2x3x3x3xf64=-1.0,-1.0,-0.5,-0.5,-2.0,1.5,-1.0,0.0,0.0,-2.0,-1.0,1.0,2.0,0.5,0.5,-1.0,2.0,-2.0,1.5,2.0,1.0,1.0,1.0,1.0,-1.5,1.5,1.0,-2.0,-0.5,-1.5,-0.5,1.5,-1.0,-1.5,0.5,-2.0,-1.5,-2.0,-1.0,2.0,-1.5,0.5,-2.0,-1.5,-0.5,1.0,-1.0,0.0,0.5,0.5,1.5,-1.5,-1.5,1.5 > %t.ref
// RUN: diff %t.jit %t.ref

// Every dim unknown when compiling: padding and window counts at run time.
// RUN: fnc-run %s --entry=dynamic --input=1x7x5x2xf32=-0.148,-0.507,-1.446,1.466,-1.974,0.011,1.593,-1.677,0.217,0.467,-1.836,-0.484,0.814,-0.192,0.9,-1.371,-1.048,-1.556,0.025,1.695,0.362,1.097,-0.465,0.984,-1.593,-0.835,0.697,0.903,-0.313,-1.649,-0.933,-1.16,-0.875,1.238,-1.202,1.546,1.517,-1.781,-0.485,-0.033,-1.906,-0.301,1.626,-1.552,0.387,-1.515,0.315,1.581,-1.188,-1.967,-1.666,0.159,-1.93,-1.661,-0.013,1.684,-0.32,-0.407,0.555,-1.626,0.319,-1.31,0.436,1.833,-1.783,0.22,0.426,-1.403,-0.927,1.98 --input=1x4x3x2xf32=0.996,-0.757,0.411,0.902,-0.526,0.222,-0.914,-0.268,0.348,0.181,0.549,-0.827,-0.306,0.728,0.168,-0.097,-0.196,0.972,0.149,-0.963,0.599,-0.343,-0.133,-0.573 > %t.jit2
// RUN: fnc-run %s --interpret --entry=dynamic --input=1x7x5x2xf32=-0.148,-0.507,-1.446,1.466,-1.974,0.011,1.593,-1.677,0.217,0.467,-1.836,-0.484,0.814,-0.192,0.9,-1.371,-1.048,-1.556,0.025,1.695,0.362,1.097,-0.465,0.984,-1.593,-0.835,0.697,0.903,-0.313,-1.649,-0.933,-1.16,-0.875,1.238,-1.202,1.546,1.517,-1.781,-0.485,-0.033,-1.906,-0.301,1.626,-1.552,0.387,-1.515,0.315,1.581,-1.188,-1.967,-1.666,0.159,-1.93,-1.661,-0.013,1.684,-0.32,-0.407,0.555,-1.626,0.319,-1.31,0.436,1.833,-1.783,0.22,0.426,-1.403,-0.927,1.98 --input=1x4x3x2xf32=0.996,-0.757,0.411,0.902,-0.526,0.222,-0.914,-0.268,0.348,0.181,0.549,-0.827,-0.306,0.728,0.168,-0.097,-0.196,0.972,0.149,-0.963,0.599,-0.343,-0.133,-0.573 > %t.ref2
// RUN: diff %t.jit2 %t.ref2

// A VALID window larger than an input dim known only at run time, and an
// output gradient that does not have the pooled shape.
// RUN: not fnc-run %s --entry=too_big --input=1x2x5x1xf32=1,2,3,4,5,6,7,8,9,10 2>&1 | FileCheck %s --check-prefix=BIG
// RUN: not fnc-run %s --interpret --entry=too_big --input=1x2x5x1xf32=1,2,3,4,5,6,7,8,9,10 2>&1 | FileCheck %s --check-prefix=BIG-I
// BIG: fnc-run: error: {{.*}}a window (of a pooling op, or a conv2d filter) of 3 rows or columns with VALID padding is larger than the input's 2; use SAME padding or a smaller window
// BIG-I: error: {{.*}}max_pool2d with valid padding: window [3, 3] is larger than the input [1, 2, 5, 1]
// RUN: not fnc-run %s --entry=bad_grad --input=1x4x4x1xf32=1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16 --input=1x3x2x1xf32=1,2,3,4,5,6 2>&1 | FileCheck %s --check-prefix=GRAD
// RUN: not fnc-run %s --interpret --entry=bad_grad --input=1x4x4x1xf32=1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16 --input=1x3x2x1xf32=1,2,3,4,5,6 2>&1 | FileCheck %s --check-prefix=GRAD-I
// GRAD: fnc-run: error: {{.*}}dynamic dimension mismatch: 3 vs 2
// GRAD-I: error: {{.*}}the output gradient [1, 3, 2, 1] does not have the pooled shape [1, 2, 2, 1]

// POOL: fnc.Tensor(
// POOL-NEXT: {{\[\[}}{{\[\[}} 6.]
// POOL-NEXT:    [ 8.]]
// POOL-EMPTY:
// POOL-NEXT:   {{\[\[}}14.]
// POOL-NEXT:    [16.]]]], shape=(1, 2, 2, 1), dtype=float32)
// POOL: fnc.Tensor(
// POOL-NEXT: {{\[\[}}{{\[\[}} 6. ]
// POOL-NEXT:    [ 7.5]]
// POOL-EMPTY:
// POOL-NEXT:   {{\[\[}}12. ]
// POOL-NEXT:    [13.5]]]], shape=(1, 2, 2, 1), dtype=float32)
// POOL: fnc.Tensor(
// POOL-NEXT: {{\[\[}}{{\[\[}}0.]
// POOL-NEXT:    [0.]
// POOL-NEXT:    [0.]
// POOL-NEXT:    [0.]]
// POOL-EMPTY:
// POOL-NEXT:   {{\[\[}}0.]
// POOL-NEXT:    [1.]
// POOL-NEXT:    [0.]
// POOL-NEXT:    [2.]]
// POOL-EMPTY:
// POOL-NEXT:   {{\[\[}}0.]
// POOL-NEXT:    [0.]
// POOL-NEXT:    [0.]
// POOL-NEXT:    [0.]]
// POOL-EMPTY:
// POOL-NEXT:   {{\[\[}}0.]
// POOL-NEXT:    [3.]
// POOL-NEXT:    [0.]
// POOL-NEXT:    [4.]]]], shape=(1, 4, 4, 1), dtype=float32)
// POOL: fnc.Tensor(
// POOL-NEXT: {{\[\[}}{{\[\[}}0.11111111]
// POOL-NEXT:    [0.11111111]
// POOL-NEXT:    [0.44444445]
// POOL-NEXT:    [0.33333334]]
// POOL-EMPTY:
// POOL-NEXT:   {{\[\[}}0.11111111]
// POOL-NEXT:    [0.11111111]
// POOL-NEXT:    [0.44444445]
// POOL-NEXT:    [0.33333334]]
// POOL-EMPTY:
// POOL-NEXT:   {{\[\[}}0.6111111 ]
// POOL-NEXT:    [0.6111111 ]
// POOL-NEXT:    [1.9444444 ]
// POOL-NEXT:    [1.3333334 ]]
// POOL-EMPTY:
// POOL-NEXT:   {{\[\[}}0.5       ]
// POOL-NEXT:    [0.5       ]
// POOL-NEXT:    [1.5       ]
// POOL-NEXT:    [1.        ]]]], shape=(1, 4, 4, 1), dtype=float32)
func.func @pool(%x: tensor<1x4x4x1xf32>, %dy: tensor<1x2x2x1xf32>)
    -> (tensor<1x2x2x1xf32>, tensor<1x2x2x1xf32>, tensor<1x4x4x1xf32>,
        tensor<1x4x4x1xf32>) {
  %0 = fnc.max_pool2d %x ksize [2, 2] strides [2, 2] padding valid : tensor<1x4x4x1xf32>
  %1 = fnc.avg_pool2d %x ksize [3, 3] strides [2, 2] padding same : tensor<1x4x4x1xf32>
  %2 = fnc.max_pool2d_grad %x, %dy ksize [2, 2] strides [2, 2] padding valid : tensor<1x4x4x1xf32>, tensor<1x2x2x1xf32>
  %3 = fnc.avg_pool2d_grad %x, %dy ksize [3, 3] strides [2, 2] padding same : tensor<1x4x4x1xf32>, tensor<1x2x2x1xf32>
  return %0, %1, %2, %3 : tensor<1x2x2x1xf32>, tensor<1x2x2x1xf32>, tensor<1x4x4x1xf32>, tensor<1x4x4x1xf32>
}

func.func @overlap(%x: tensor<2x5x6x3xf64>, %dy: tensor<2x3x3x3xf64>)
    -> (tensor<2x3x3x3xf64>, tensor<2x3x3x3xf64>, tensor<2x5x6x3xf64>,
        tensor<2x5x6x3xf64>) {
  %0 = fnc.max_pool2d %x ksize [3, 3] strides [2, 2] padding same : tensor<2x5x6x3xf64>
  %1 = fnc.avg_pool2d %x ksize [3, 3] strides [2, 2] padding same : tensor<2x5x6x3xf64>
  %2 = fnc.max_pool2d_grad %x, %dy ksize [3, 3] strides [2, 2] padding same : tensor<2x5x6x3xf64>, tensor<2x3x3x3xf64>
  %3 = fnc.avg_pool2d_grad %x, %dy ksize [3, 3] strides [2, 2] padding same : tensor<2x5x6x3xf64>, tensor<2x3x3x3xf64>
  return %0, %1, %2, %3 : tensor<2x3x3x3xf64>, tensor<2x3x3x3xf64>, tensor<2x5x6x3xf64>, tensor<2x5x6x3xf64>
}

func.func @dynamic(%x: tensor<?x?x?x?xf32>, %dy: tensor<?x?x?x?xf32>)
    -> (tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>,
        tensor<?x?x?x?xf32>) {
  %0 = fnc.max_pool2d %x ksize [4, 2] strides [2, 2] padding same : tensor<?x?x?x?xf32>
  %1 = fnc.avg_pool2d %x ksize [4, 2] strides [2, 2] padding same : tensor<?x?x?x?xf32>
  %2 = fnc.max_pool2d_grad %x, %dy ksize [4, 2] strides [2, 2] padding same : tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>
  %3 = fnc.avg_pool2d_grad %x, %dy ksize [4, 2] strides [2, 2] padding same : tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>
  return %0, %1, %2, %3 : tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>
}

func.func @too_big(%x: tensor<?x?x?x?xf32>) -> tensor<?x?x?x?xf32> {
  %0 = fnc.max_pool2d %x ksize [3, 3] strides [1, 1] padding valid : tensor<?x?x?x?xf32>
  return %0 : tensor<?x?x?x?xf32>
}

func.func @bad_grad(%x: tensor<1x4x4x1xf32>, %dy: tensor<1x?x?x1xf32>) -> tensor<1x4x4x1xf32> {
  %0 = fnc.max_pool2d_grad %x, %dy ksize [2, 2] strides [2, 2] padding valid : tensor<1x4x4x1xf32>, tensor<1x?x?x1xf32>
  return %0 : tensor<1x4x4x1xf32>
}
