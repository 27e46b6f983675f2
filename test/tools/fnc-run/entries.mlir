// Entry selection, scalars, bools, integers, 2-D printing and several
// results.
// RUN: fnc-run %s --input=f32=2.5 --input=f64=0.25 | FileCheck %s --check-prefix=MAIN
// RUN: fnc-run %s --entry=select --input=i1=true --input=2x2xi32=1,2,3,4 \
// RUN:   | FileCheck %s --check-prefix=TRUE
// RUN: fnc-run %s --entry=select --input=i1=0 --input=2x2xi32=1,2,3,4 \
// RUN:   | FileCheck %s --check-prefix=FALSE
// RUN: fnc-run %s --entry=pair --input=2xi64=5,-7 | FileCheck %s --check-prefix=PAIR

// MAIN: fnc.Tensor(2.75, shape=(), dtype=float64)

// TRUE: fnc.Tensor(
// TRUE-NEXT: {{\[\[}}1 2]
// TRUE-NEXT: [3 4]], shape=(2, 2), dtype=int32)
// FALSE: fnc.Tensor(
// FALSE-NEXT: {{\[\[}}0 0]
// FALSE-NEXT: [0 0]], shape=(2, 2), dtype=int32)

// PAIR: fnc.Tensor([ 10 -14], shape=(2,), dtype=int64)
// PAIR-NEXT: fnc.Tensor([ True False], shape=(2,), dtype=bool)

func.func @main(%a: tensor<f32>, %b: tensor<f64>) -> tensor<f64> {
  %x = tensor.extract %a[] : tensor<f32>
  %y = tensor.extract %b[] : tensor<f64>
  %xd = arith.extf %x : f32 to f64
  %s = arith.addf %xd, %y : f64
  %r = tensor.from_elements %s : tensor<f64>
  return %r : tensor<f64>
}

func.func @select(%p: tensor<i1>, %m: tensor<2x2xi32>) -> tensor<2x2xi32> {
  %c = tensor.extract %p[] : tensor<i1>
  %e = tensor.empty() : tensor<2x2xi32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
                                        affine_map<(d0, d1) -> (d0, d1)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%m : tensor<2x2xi32>) outs(%e : tensor<2x2xi32>) {
  ^bb0(%x: i32, %o: i32):
    %zero = arith.constant 0 : i32
    %v = arith.select %c, %x, %zero : i32
    linalg.yield %v : i32
  } -> tensor<2x2xi32>
  return %r : tensor<2x2xi32>
}

func.func @pair(%a: tensor<2xi64>) -> (tensor<2xi64>, tensor<2xi1>) {
  %e = tensor.empty() : tensor<2xi64>
  %b = tensor.empty() : tensor<2xi1>
  %r:2 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>,
                                          affine_map<(d0) -> (d0)>,
                                          affine_map<(d0) -> (d0)>],
                         iterator_types = ["parallel"]}
      ins(%a : tensor<2xi64>) outs(%e, %b : tensor<2xi64>, tensor<2xi1>) {
  ^bb0(%x: i64, %o: i64, %p: i1):
    %d = arith.addi %x, %x : i64
    %zero = arith.constant 0 : i64
    %pos = arith.cmpi sgt, %x, %zero : i64
    linalg.yield %d, %pos : i64, i1
  } -> (tensor<2xi64>, tensor<2xi1>)
  return %r#0, %r#1 : tensor<2xi64>, tensor<2xi1>
}
