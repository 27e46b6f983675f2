// Hand-written upstream ops get run-time checks of what would be undefined
// behaviour (upstream's -generate-runtime-verification): a failed check is
// one error line naming the op and its location, and exit code 1, where the
// generated code used to read out of bounds or segfault.

// RUN: not fnc-run %s --entry=generic --input=3xf32=1,2,3 --input=2xf32=0,0 2>&1 | FileCheck %s --check-prefix=GENERIC
// RUN: fnc-run %s --entry=generic --input=2xf32=1,2 --input=2xf32=0,0 | FileCheck %s --check-prefix=GENERIC-OK
// GENERIC: fnc-run: error: @generic: {{.*}}upstream-checks.mlir:[[@LINE+4]]:8: linalg.generic: dimension #0 of input/output operand #1 is incompatible with inferred dimension size
// GENERIC-NOT: error
// GENERIC-OK: fnc.Tensor([1. 2.], shape=(2,), dtype=float32)
func.func @generic(%a: tensor<?xf32>, %b: tensor<?xf32>) -> tensor<?xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                       iterator_types = ["parallel"]}
      ins(%a : tensor<?xf32>) outs(%b : tensor<?xf32>) {
  ^bb0(%x: f32, %o: f32):
    linalg.yield %x : f32
  } -> tensor<?xf32>
  return %r : tensor<?xf32>
}

// RUN: not fnc-run %s --entry=extract --input=2xf32=1,2 --input=i64=5 2>&1 | FileCheck %s --check-prefix=EXTRACT
// RUN: fnc-run %s --entry=extract --input=2xf32=1,2 --input=i64=1 | FileCheck %s --check-prefix=EXTRACT-OK
// EXTRACT: fnc-run: error: @extract: {{.*}}upstream-checks.mlir:[[@LINE+5]]:8: tensor.extract: out-of-bounds access
// EXTRACT-OK: fnc.Tensor(2.0, shape=(), dtype=float32)
func.func @extract(%a: tensor<?xf32>, %i: tensor<i64>) -> tensor<f32> {
  %j = tensor.extract %i[] : tensor<i64>
  %k = arith.index_cast %j : i64 to index
  %v = tensor.extract %a[%k] : tensor<?xf32>
  %r = tensor.from_elements %v : tensor<f32>
  return %r : tensor<f32>
}
