// A loop big enough to run in parallel (an OpenMP region, which the
// runtime's thread pool runs: lib/Runtime/Parallel.cpp), and the same loop
// kept sequential with --threads=1.
// RUN: fnc-run %s --input=1048576xf32=1.5 --threads=0 | FileCheck %s
// RUN: fnc-run %s --input=1048576xf32=1.5 --threads=4 | FileCheck %s
// RUN: fnc-run %s --input=1048576xf32=1.5 --threads=1 | FileCheck %s
// RUN: fnc-run %s --emit=llvm-ir --threads=4 | FileCheck %s --check-prefix=OMP
// RUN: fnc-run %s --emit=llvm-ir --threads=1 | FileCheck %s --check-prefix=SEQ

// CHECK: fnc.Tensor([4.5 4.5 4.5 ... 4.5 4.5 4.5], shape=(1048576,), dtype=float32)

// OMP: call {{.*}}@__kmpc_fork_call
// SEQ-NOT: __kmpc_fork_call

func.func @triple(%a: tensor<1048576xf32>) -> tensor<1048576xf32> {
  %e = tensor.empty() : tensor<1048576xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>,
                                        affine_map<(d0) -> (d0)>],
                       iterator_types = ["parallel"]}
      ins(%a : tensor<1048576xf32>) outs(%e : tensor<1048576xf32>) {
  ^bb0(%x: f32, %o: f32):
    %c = arith.constant 3.0 : f32
    %s = arith.mulf %x, %c : f32
    linalg.yield %s : f32
  } -> tensor<1048576xf32>
  return %r : tensor<1048576xf32>
}
