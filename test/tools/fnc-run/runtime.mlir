// Generated code calling the C runtime through the JIT: printing and the
// random generator (reproducible with --seed, fresh values on every call).
// RUN: fnc-run %s --seed=3 | FileCheck %s
// RUN: fnc-run %s --seed=3 > %t.a
// RUN: fnc-run %s --seed=3 > %t.b
// RUN: diff %t.a %t.b
// RUN: fnc-run %s --seed=3 --benchmark=2 | FileCheck %s --check-prefix=TWICE

// CHECK: u = {{\[\[}}[[ROW0:.*]]]
// CHECK-NEXT: {{^}} [[ROW1:.*]]]]
// CHECK-NEXT: fnc.Tensor(
// CHECK-NEXT: {{\[\[}}[[ROW0]]]
// CHECK-NEXT: {{^}} [[ROW1]]]], shape=(2, 3), dtype=float32)

// The second call prints other values than the first.
// TWICE: u = {{\[\[}}[[FIRST:.*]]]
// TWICE: u = {{\[\[}}
// TWICE-NOT: [[FIRST]]
// TWICE-SAME: {{$}}

func.func @main() -> tensor<2x3xf32> {
  %u = fnc.random_uniform min 2.0 max 3.0 : tensor<2x3xf32>
  fnc.print "u =" %u : tensor<2x3xf32>
  return %u : tensor<2x3xf32>
}
