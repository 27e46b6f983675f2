// A static shape whose byte size does not fit in 64 bits is a compile error.
// RUN: not fnc-run %s 2>&1 | FileCheck %s --check-prefix=ABSURD
// ABSURD: error: the byte size of 'memref<9223372036854775807x4096xf32>' does not fit in 64 bits
func.func @absurd() -> tensor<9223372036854775807x4096xf32> {
  %0 = arith.constant dense<0.5> : tensor<9223372036854775807x4096xf32>
  return %0 : tensor<9223372036854775807x4096xf32>
}
