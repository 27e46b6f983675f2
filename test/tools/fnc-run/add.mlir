// Runs a function written in upstream linalg form on inline literals.
// RUN: fnc-run %s --input=3xf32=1,2,3 --input=3xf32=10,20,30 | FileCheck %s
// RUN: fnc-run %s --input='3xf32=[1, 2, 3]' --input=3xf32=0.5 --threads=1 --opt-level=0 \
// RUN:   | FileCheck %s --check-prefix=SPLAT
// RUN: fnc-run %s --input=0xf32= --input=0xf32= | FileCheck %s --check-prefix=EMPTY

// CHECK: fnc.Tensor([11. 22. 33.], shape=(3,), dtype=float32)
// SPLAT: fnc.Tensor([1.5 2.5 3.5], shape=(3,), dtype=float32)
// EMPTY: fnc.Tensor([], shape=(0,), dtype=float32)

func.func @add(%a: tensor<?xf32>, %b: tensor<?xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %a, %c0 : tensor<?xf32>
  %e = tensor.empty(%n) : tensor<?xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>,
                                        affine_map<(d0) -> (d0)>,
                                        affine_map<(d0) -> (d0)>],
                       iterator_types = ["parallel"]}
      ins(%a, %b : tensor<?xf32>, tensor<?xf32>) outs(%e : tensor<?xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<?xf32>
  return %r : tensor<?xf32>
}
