// --benchmark=N prints the result once, then the compile time and the
// median/min/max time of N calls (the times themselves are not checked).
// RUN: fnc-run %s --input=4xf32=1,2,3,4 --benchmark=5 | FileCheck %s
// RUN: fnc-run %s --input=4xf32=1,2,3,4 --benchmark=1 --threads=1 | FileCheck %s --check-prefix=ONE

// CHECK: fnc.Tensor([2. 4. 6. 8.], shape=(4,), dtype=float32)
// CHECK-NEXT: compile: {{[0-9.]+ (ns|us|ms|s)}}
// CHECK-NEXT: calls: 5, median {{[0-9.]+ (ns|us|ms|s)}}, min {{[0-9.]+ (ns|us|ms|s)}}, max {{[0-9.]+ (ns|us|ms|s)}}
// CHECK-EMPTY:

// ONE: calls: 1, median

func.func @double(%a: tensor<4xf32>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>,
                                        affine_map<(d0) -> (d0)>],
                       iterator_types = ["parallel"]}
      ins(%a : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%x: f32, %o: f32):
    %s = arith.addf %x, %x : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}
