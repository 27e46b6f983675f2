// RUN: fnc-opt %s -split-input-file -fnc-split-reductions | FileCheck %s
// RUN: fnc-opt %s -split-input-file -fnc-split-reductions=fast-math=false | FileCheck %s --check-prefix=STRICT

#id = affine_map<(d0, d1) -> (d0, d1)>
#scalar = affine_map<(d0, d1) -> ()>

// A sum to a scalar: rows become parallel partial sums, then one small
// reduction adds the partials into the original accumulator.
// CHECK-DAG: #[[ROW:.*]] = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func @sum_all
// STRICT-LABEL: func @sum_all
func.func @sum_all(%x: tensor<256x32xf32>, %init: tensor<f32>) -> tensor<f32> {
  // CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
  // CHECK: %[[FILL:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%{{.*}} : tensor<256xf32>)
  // CHECK: %[[P:.*]] = linalg.generic {indexing_maps = [#{{.*}}, #[[ROW]]], iterator_types = ["parallel", "reduction"]}
  // CHECK-SAME: outs(%[[FILL]] : tensor<256xf32>)
  // CHECK: %[[R:.*]] = linalg.generic {{.*}} iterator_types = ["reduction"]} ins(%[[P]] : tensor<256xf32>) outs(%{{.*}} : tensor<f32>)
  // CHECK: arith.addf
  // CHECK: return %[[R]]
  // Without fast-math the float order is kept: no split.
  // STRICT: iterator_types = ["reduction", "reduction"]
  // STRICT-NOT: linalg.generic
  %r = linalg.generic {indexing_maps = [#id, #scalar], iterator_types = ["reduction", "reduction"]}
      ins(%x : tensor<256x32xf32>) outs(%init : tensor<f32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc fastmath<reassoc> : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  return %r : tensor<f32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>

// Integer max over rows with a few columns: the first reduction dim (d0)
// becomes parallel; the identity is the lowest int.
// CHECK-LABEL: func @max_rows
// STRICT-LABEL: func @max_rows
func.func @max_rows(%x: tensor<512x4xi32>, %init: tensor<4xi32>) -> tensor<4xi32> {
  // CHECK: arith.constant -2147483648 : i32
  // CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel"]
  // CHECK-SAME: outs(%{{.*}} : tensor<4x512xi32>)
  // CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%{{.*}} : tensor<4x512xi32>) outs(%{{.*}} : tensor<4xi32>)
  // CHECK: arith.maxsi
  // Integers are split regardless of fast-math.
  // STRICT: tensor<4x512xi32>
  %r = linalg.generic {indexing_maps = [#id, #col], iterator_types = ["reduction", "parallel"]}
      ins(%x : tensor<512x4xi32>) outs(%init : tensor<4xi32>) {
  ^bb0(%a: i32, %acc: i32):
    %m = arith.maxsi %a, %acc : i32
    linalg.yield %m : i32
  } -> tensor<4xi32>
  return %r : tensor<4xi32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>

// Enough parallel work already (1024 rows): left alone.
// CHECK-LABEL: func @enough_parallelism
func.func @enough_parallelism(%x: tensor<1024x64xf32>, %init: tensor<1024xf32>) -> tensor<1024xf32> {
  // CHECK: linalg.generic
  // CHECK-NOT: linalg.generic
  %r = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<1024x64xf32>) outs(%init : tensor<1024xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  } -> tensor<1024xf32>
  return %r : tensor<1024xf32>
}
