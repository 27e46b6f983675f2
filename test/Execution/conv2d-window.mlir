// A conv2d with VALID padding whose filter is larger than an input dim
// known only at run time is an error, as in eager mode (not an empty
// result).
// RUN: not fnc-run %s --input=1x2x5x1xf32=1 --input=3x3x1x16xf32=1 2>&1 | FileCheck %s
// RUN: not fnc-run %s --interpret --input=1x2x5x1xf32=1 --input=3x3x1x16xf32=1 2>&1 | FileCheck %s --check-prefix=INTERP
// CHECK: fnc-run: error: {{.*}}a window (of a pooling op, or a conv2d filter) of 3 rows or columns with VALID padding is larger than the input's 2; use SAME padding or a smaller window
// INTERP: error: {{.*}}conv2d with valid padding: filter [3, 3, 1, 16] is larger than the input [1, 2, 5, 1]
// A large enough input runs.
// RUN: fnc-run %s --input=1x3x4x1xf32=1 --input=3x3x1x16xf32=1 | FileCheck %s --check-prefix=FITS
// FITS: shape=(1, 1, 2, 16)
func.func @main(%x: tensor<?x?x?x1xf32>, %w: tensor<3x3x1x16xf32>) -> tensor<?x?x?x16xf32> {
  %0 = fnc.conv2d %x, %w strides [1, 1] padding valid : tensor<?x?x?x1xf32>, tensor<3x3x1x16xf32>
  return %0 : tensor<?x?x?x16xf32>
}
