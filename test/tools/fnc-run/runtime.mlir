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

func.func private @fncRandomUniformF32(memref<*xf32>, i64, f64, f64)
    attributes {llvm.emit_c_interface}
func.func private @fncPrintTensorF32(memref<*xf32>)
    attributes {llvm.emit_c_interface}
func.func private @fncPrintText(memref<?xi8>) attributes {llvm.emit_c_interface}
func.func private @fncPrintNewline()
memref.global "private" constant @prefix : memref<4xi8> = dense<[117, 32, 61, 32]>

func.func @main() -> tensor<2x3xf32> {
  %k = arith.constant 7 : i64
  %lo = arith.constant 2.0 : f64
  %hi = arith.constant 3.0 : f64
  %m = memref.alloc() : memref<2x3xf32>
  %u = memref.cast %m : memref<2x3xf32> to memref<*xf32>
  func.call @fncRandomUniformF32(%u, %k, %lo, %hi)
      : (memref<*xf32>, i64, f64, f64) -> ()
  %p = memref.get_global @prefix : memref<4xi8>
  %pd = memref.cast %p : memref<4xi8> to memref<?xi8>
  func.call @fncPrintText(%pd) : (memref<?xi8>) -> ()
  func.call @fncPrintTensorF32(%u) : (memref<*xf32>) -> ()
  func.call @fncPrintNewline() : () -> ()
  %t = bufferization.to_tensor %m restrict : memref<2x3xf32> to tensor<2x3xf32>
  return %t : tensor<2x3xf32>
}
