// A dim of static size 0 behind a cast to unknown dims: the pipeline lowers
// it (it once failed with "offset 2 is out-of-bounds: 0 >= 0").
// RUN: fnc-opt --fnc-pipeline %s | FileCheck %s

// CHECK: llvm.func @zero_size_behind_cast
func.func @zero_size_behind_cast(%arg0: tensor<?x?x0xi64>) -> tensor<?x?x?xi64> {
  %c = tensor.cast %arg0 : tensor<?x?x0xi64> to tensor<?x?x?xi64>
  %m = fnc.minimum %c, %c {fnc.same_unknown_dims} : tensor<?x?x?xi64>, tensor<?x?x?xi64>
  return %m : tensor<?x?x?xi64>
}
