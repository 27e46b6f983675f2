// RUN: not fnc-opt %s -split-input-file --fnc-pipeline 2>&1 | FileCheck %s
// RUN: not fnc-opt %s -split-input-file --fnc-check-types=max-lanes=1048576 2>/dev/null | FileCheck %s --check-prefix=RAISED

// Vector types too wide to lower are refused before anything else runs:
// upstream unrolls vector math lane by lane, so these took seconds, or
// never finished.

// CHECK: error: the vector type 'vector<4611686018427387904xf32>' has more than 4096 elements, which fnc does not compile
func.func @absurd(%v: vector<4611686018427387904xf32>) -> vector<4611686018427387904xf32> {
  %t = math.tanh %v : vector<4611686018427387904xf32>
  return %t : vector<4611686018427387904xf32>
}

// -----

// A product of dims that overflows is too wide, not a small one.
// CHECK: error: the vector type 'vector<4294967296x4294967296xf32>' has more than 4096 elements
func.func @wraps(%v: vector<4294967296x4294967296xf32>) {
  return
}

// -----

// In a memref's element type too.
// CHECK: error: the vector type 'vector<65536xf32>' has more than 4096 elements
func.func @inside(%m: memref<2xvector<65536xf32>>) {
  return
}

// -----

// Under a raised limit, 65536 lanes pass.
// RAISED: func @inside
// RAISED: func @wide_enough
func.func @wide_enough(%v: vector<65536xf32>) -> vector<65536xf32> {
  return %v : vector<65536xf32>
}
