// A static shape whose byte size does not fit in 64 bits is a compile error.
// RUN: not fnc-run %s 2>&1 | FileCheck %s --check-prefix=ABSURD
// ABSURD: error: the byte size of 'memref<9223372036854775807x4096xf32>' does not fit in 64 bits
// The interpreter says so too (it aborted, or corrupted the heap when the
// element count wrapped around).
// RUN: not fnc-run --interpret %s 2>&1 | FileCheck %s --check-prefix=INTERP
// INTERP: error: {{.*}}the byte size of the constant of type tensor<9223372036854775807x4096xf32> does not fit in 64 bits
func.func @absurd() -> tensor<9223372036854775807x4096xf32> {
  %0 = arith.constant dense<0.5> : tensor<9223372036854775807x4096xf32>
  return %0 : tensor<9223372036854775807x4096xf32>
}
