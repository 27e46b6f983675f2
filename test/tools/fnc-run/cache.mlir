// --cache-dir: the first run compiles and stores the code, the second loads
// it (--benchmark says so); a spoiled entry is removed with a one-line
// warning and recompiled, with the same results; --cache-dir= disables the
// cache; FNC_CACHE_DIR chooses it when --cache-dir is absent (lit sets it
// empty, so that no test writes to the user's cache).
// RUN: rm -rf %t && mkdir %t
// RUN: fnc-run %s --input=3xf32=1,2,3 --input=3xf32=10,20,30 --cache-dir=%t/cache --benchmark=1 \
// RUN:   | FileCheck %s --check-prefixes=CHECK,MISS
// RUN: ls %t/cache | count 1
// RUN: fnc-run %s --input=3xf32=1,2,3 --input=3xf32=10,20,30 --cache-dir=%t/cache --benchmark=1 \
// RUN:   | FileCheck %s --check-prefixes=CHECK,HIT
// Other options, another entry.
// RUN: fnc-run %s --input=3xf32=1,2,3 --input=3xf32=10,20,30 --cache-dir=%t/cache --opt-level=1 \
// RUN:   | FileCheck %s
// RUN: ls %t/cache | count 2

// RUN: %python %S/Inputs/spoil-cache.py %t/cache truncate | FileCheck %s --check-prefix=SPOILED
// RUN: fnc-run %s --input=3xf32=1,2,3 --input=3xf32=10,20,30 --cache-dir=%t/cache --benchmark=1 2>%t/err \
// RUN:   | FileCheck %s --check-prefixes=CHECK,MISS
// RUN: FileCheck %s --check-prefix=TRUNCATED < %t/err
// RUN: fnc-run %s --input=3xf32=1,2,3 --input=3xf32=10,20,30 --cache-dir=%t/cache --benchmark=1 \
// RUN:   | FileCheck %s --check-prefixes=CHECK,HIT
// RUN: %python %S/Inputs/spoil-cache.py %t/cache flip | FileCheck %s --check-prefix=SPOILED
// RUN: fnc-run %s --input=3xf32=1,2,3 --input=3xf32=10,20,30 --cache-dir=%t/cache 2>&1 \
// RUN:   | FileCheck %s --check-prefix=FLIPPED

// RUN: fnc-run %s --input=3xf32=1,2,3 --input=3xf32=10,20,30 --cache-dir= --benchmark=1 \
// RUN:   | FileCheck %s --check-prefixes=CHECK,MISS
// RUN: env FNC_CACHE_DIR=%t/env fnc-run %s --input=3xf32=1,2,3 --input=3xf32=10,20,30 \
// RUN:   | FileCheck %s
// RUN: ls %t/env | count 1
// RUN: env FNC_CACHE_DIR=%t/env fnc-run %s --input=3xf32=1,2,3 --input=3xf32=10,20,30 --cache-dir= --benchmark=1 \
// RUN:   | FileCheck %s --check-prefixes=CHECK,MISS

// CHECK: fnc.Tensor(34.0, shape=(), dtype=float32)
// MISS-NEXT: compile: {{[0-9.]+ (ns|us|ms|s)$}}
// HIT-NEXT: compile: {{[0-9.]+ (ns|us|ms|s)}} (from the compile cache)
// SPOILED: spoiled 2
// TRUNCATED: fnc: ignoring a corrupt compile-cache entry {{.*}}cache/{{[0-9a-f]+}}.fncc (truncated: 20 bytes, shorter than a header); recompiling
// TRUNCATED-NOT: fnc:
// FLIPPED: fnc: ignoring a corrupt compile-cache entry {{.*}}.fncc (checksum mismatch); recompiling
// FLIPPED-NEXT: fnc.Tensor(34.0, shape=(), dtype=float32)

// The seed function: reduce_mean(x**2*3+y).
func.func @seed(%x: tensor<?xf32>, %y: tensor<?xf32>) -> tensor<f32> {
  %three = fnc.constant dense<3.0> : tensor<f32>
  %sq = fnc.mul %x, %x : tensor<?xf32>, tensor<?xf32>
  %t = fnc.mul %sq, %three : tensor<?xf32>, tensor<f32>
  %s = fnc.add %t, %y : tensor<?xf32>, tensor<?xf32>
  %m = fnc.mean %s axes [0] : tensor<?xf32>
  return %m : tensor<f32>
}
