// RUN: fnc-opt %s -split-input-file -fnc-lower-to-ordered-loops -canonicalize | FileCheck %s

// matmul as loops (m, k, n): m parallel, then k, then n innermost, so the
// innermost loop walks rows of B and C contiguously (f64: the register
// kernel is f32's).
// CHECK-LABEL: func @matmul
func.func @matmul(%a: memref<8x16xf64>, %b: memref<16x32xf64>, %c: memref<8x32xf64>) {
  // CHECK: scf.parallel (%[[M:.*]]) = (%{{.*}}) to (%c8) step (%{{.*}}) {
  // CHECK:   scf.for %[[K:.*]] = %{{.*}} to %c16 step %{{.*}} {
  // CHECK:     scf.for %[[N:.*]] = %{{.*}} to %c32 step %{{.*}} {
  // CHECK-DAG:   memref.load %{{.*}}[%[[M]], %[[K]]]
  // CHECK-DAG:   memref.load %{{.*}}[%[[K]], %[[N]]]
  // CHECK:       memref.store %{{.*}}, %{{.*}}[%[[M]], %[[N]]]
  linalg.generic {indexing_maps = [affine_map<(m, k, n) -> (m, k)>,
                                   affine_map<(m, k, n) -> (k, n)>,
                                   affine_map<(m, k, n) -> (m, n)>],
                  iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%a, %b : memref<8x16xf64>, memref<16x32xf64>) outs(%c : memref<8x32xf64>) {
  ^bb0(%x: f64, %y: f64, %acc: f64):
    %p = arith.mulf %x, %y : f64
    %s = arith.addf %acc, %p : f64
    linalg.yield %s : f64
  }
  return
}

// -----

// Parallel dims first, then reductions: left to the upstream lowering.
// CHECK-LABEL: func @row_sum
func.func @row_sum(%a: memref<8x16xf32>, %r: memref<8xf32>) {
  // CHECK: linalg.generic
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%a : memref<8x16xf32>) outs(%r : memref<8xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %s = arith.addf %acc, %x : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// An f32 matmul whose tile divides the shapes gets the register-blocked
// kernel: 8 rows x 3 vectors of 16 lanes of C live in registers across the
// k loop, fed by broadcasts of A and row segments of B.
// CHECK-LABEL: func @matmul_kernel
func.func @matmul_kernel(%a: memref<16x16xf32>, %b: memref<16x96xf32>, %c: memref<16x96xf32>) {
  // CHECK: scf.parallel (%[[M:.*]]) = (%{{.*}}) to (%c16) step (%c8) {
  // CHECK:   scf.for %[[N:.*]] = %{{.*}} to %c96 step %c48 {
  // CHECK-COUNT-24: vector.load %{{.*}} : memref<16x96xf32>, vector<16xf32>
  // CHECK:     scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(
  // CHECK-COUNT-3: vector.load %{{.*}} : memref<16x96xf32>, vector<16xf32>
  // CHECK-COUNT-24: vector.fma
  // CHECK-COUNT-24: vector.store
  // CHECK-NOT: vector.maskedload
  linalg.generic {indexing_maps = [affine_map<(m, k, n) -> (m, k)>,
                                   affine_map<(m, k, n) -> (k, n)>,
                                   affine_map<(m, k, n) -> (m, n)>],
                  iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%a, %b : memref<16x16xf32>, memref<16x96xf32>) outs(%c : memref<16x96xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// Columns the 48-wide block does not divide: 84 = 48 + 36 takes, after
// the whole block, one tile of 2 whole vectors and a masked one (the 4
// lanes of columns 80-83) per row: 24 accumulators again.
// CHECK-LABEL: func @matmul_kernel_column_tail
func.func @matmul_kernel_column_tail(%a: memref<16x16xf32>, %b: memref<16x84xf32>, %c: memref<16x84xf32>) {
  // CHECK-DAG: %[[MASK:.*]] = arith.constant dense<[true, true, true, true, false, false, false, false, false, false, false, false, false, false, false, false]> : vector<16xi1>
  // CHECK: scf.parallel (%[[M:.*]]) = (%{{.*}}) to (%c16) step (%c8) {
  // CHECK-COUNT-24: vector.load %{{.*}} : memref<16x84xf32>, vector<16xf32>
  // CHECK: scf.for
  // CHECK-COUNT-24: vector.fma
  // CHECK-COUNT-24: vector.store
  // CHECK: vector.load %{{.*}}[%[[M]], %c48] : memref<16x84xf32>, vector<16xf32>
  // CHECK: vector.load %{{.*}}[%[[M]], %c64] : memref<16x84xf32>, vector<16xf32>
  // CHECK: vector.maskedload %{{.*}}[%[[M]], %c80], %[[MASK]]
  // CHECK: scf.for %{{.*}} = %{{.*}} to %c16 step %c1 iter_args(
  // CHECK: vector.maskedload %{{.*}}[%{{.*}}, %c80], %[[MASK]]
  // CHECK-COUNT-24: vector.fma
  // CHECK: vector.maskedstore %{{.*}}[%[[M]], %c80], %[[MASK]]
  linalg.generic {indexing_maps = [affine_map<(m, k, n) -> (m, k)>,
                                   affine_map<(m, k, n) -> (k, n)>,
                                   affine_map<(m, k, n) -> (m, n)>],
                  iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%a, %b : memref<16x16xf32>, memref<16x84xf32>) outs(%c : memref<16x84xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// A column count known only at run time: whole blocks up to n - n % 48,
// then a vector at a time, each masked to the lanes left (n - col).
// CHECK-LABEL: func @matmul_kernel_dynamic_columns
func.func @matmul_kernel_dynamic_columns(%a: memref<8x16xf32>, %b: memref<16x?xf32>, %c: memref<8x?xf32>) {
  // CHECK: %[[N:.*]] = memref.dim %{{.*}}, %c1 : memref<8x?xf32>
  // CHECK: %[[REM:.*]] = arith.remui %[[N]], %c48
  // CHECK: %[[BLOCKED:.*]] = arith.subi %[[N]], %[[REM]]
  // CHECK: scf.for %{{.*}} = %c0 to %[[BLOCKED]] step %c48 {
  // CHECK: scf.for %[[COL:.*]] = %[[BLOCKED]] to %[[N]] step %c16 {
  // CHECK:   arith.subi %[[N]], %[[COL]]
  // CHECK:   arith.cmpi sgt, %{{.*}}, %{{.*}} : vector<16xi64>
  // CHECK-COUNT-8: vector.maskedload
  // CHECK:   scf.for
  // CHECK-COUNT-8: vector.maskedstore
  linalg.generic {indexing_maps = [affine_map<(m, k, n) -> (m, k)>,
                                   affine_map<(m, k, n) -> (k, n)>,
                                   affine_map<(m, k, n) -> (m, n)>],
                  iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%a, %b : memref<8x16xf32>, memref<16x?xf32>) outs(%c : memref<8x?xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// The conv2d kernel with a batch dim unknown until run time: the batch loop
// runs to the output's run-time size; the tile is that of a static batch
// (the whole row of 6 pixels, one vector of filters).
// CHECK-LABEL: func @conv2d_kernel_dynamic_batch
// CHECK-SAME: (%[[X:.*]]: memref<?x6x8x2xf32>, %[[W:.*]]: memref<3x3x2x16xf32>, %[[O:.*]]: memref<?x4x6x16xf32>)
func.func @conv2d_kernel_dynamic_batch(%x: memref<?x6x8x2xf32>, %w: memref<3x3x2x16xf32>, %o: memref<?x4x6x16xf32>) {
  // CHECK: %[[N:.*]] = memref.dim %[[O]], %c0
  // CHECK: scf.parallel (%{{.*}}, %{{.*}}) = (%c0, %c0) to (%[[N]], %c4) step (%c1, %c1) {
  // CHECK-COUNT-6: vector.load %[[O]]
  // CHECK: vector.load %[[W]]
  // CHECK-COUNT-6: vector.fma
  // CHECK-COUNT-6: vector.store
  linalg.generic {indexing_maps = [affine_map<(n, oh, ow, kh, kw, c, f) -> (n, oh + kh, ow + kw, c)>,
                                   affine_map<(n, oh, ow, kh, kw, c, f) -> (kh, kw, c, f)>,
                                   affine_map<(n, oh, ow, kh, kw, c, f) -> (n, oh, ow, f)>],
                  iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction", "reduction", "parallel"]}
      ins(%x, %w : memref<?x6x8x2xf32>, memref<3x3x2x16xf32>) outs(%o : memref<?x4x6x16xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// The conv2d kernel of a filter gradient: the input channels (the batch of
// the forward conv) are unknown until run time; the channel loop runs to
// the filter's run-time size.
// CHECK-LABEL: func @conv2d_kernel_dynamic_channels
// CHECK-SAME: (%[[X:.*]]: memref<2x6x6x?xf32>, %[[W:.*]]: memref<4x4x?x16xf32>, %[[O:.*]]: memref<2x3x3x16xf32>)
func.func @conv2d_kernel_dynamic_channels(%x: memref<2x6x6x?xf32>, %w: memref<4x4x?x16xf32>, %o: memref<2x3x3x16xf32>) {
  // CHECK: %[[C:.*]] = memref.dim %[[W]], %c2
  // CHECK: scf.parallel
  // CHECK: scf.for %{{.*}} = %c0 to %c4
  // CHECK: scf.for %{{.*}} = %c0 to %c4
  // CHECK: scf.for %{{.*}} = %c0 to %[[C]]
  // CHECK-COUNT-3: vector.fma
  linalg.generic {indexing_maps = [affine_map<(n, oh, ow, kh, kw, c, f) -> (n, oh + kh, ow + kw, c)>,
                                   affine_map<(n, oh, ow, kh, kw, c, f) -> (kh, kw, c, f)>,
                                   affine_map<(n, oh, ow, kh, kw, c, f) -> (n, oh, ow, f)>],
                  iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction", "reduction", "parallel"]}
      ins(%x, %w : memref<2x6x6x?xf32>, memref<4x4x?x16xf32>) outs(%o : memref<2x3x3x16xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// A transpose NHWC -> CHWN: the loop over the input's contiguous dim (c)
// moves inside the others, just outside the output's (n), so that the
// input's cache lines are reused from L1 rather than missed on every read.
// CHECK-DAG: #[[READ:.*]] = affine_map<(d0, d1, d2, d3) -> (d3, d0, d1, d2)>
// CHECK-DAG: #[[WRITE:.*]] = affine_map<(d0, d1, d2, d3) -> (d2, d0, d1, d3)>
// CHECK-LABEL: func @transpose_loop_order
// CHECK-SAME: (%[[IN:.*]]: memref<8x5x6x16xf32>, %[[OUT:.*]]: memref<16x5x6x8xf32>)
func.func @transpose_loop_order(%in: memref<8x5x6x16xf32>, %out: memref<16x5x6x8xf32>) {
  // CHECK: linalg.generic {indexing_maps = [#[[READ]], #[[WRITE]]]
  // CHECK-SAME: ins(%[[IN]] : memref<8x5x6x16xf32>) outs(%[[OUT]] : memref<16x5x6x8xf32>)
  linalg.transpose ins(%in : memref<8x5x6x16xf32>) outs(%out : memref<16x5x6x8xf32>) permutation = [3, 1, 2, 0]
  return
}

// -----

// A copy into a strided view (the interior of a padded buffer) becomes a
// linalg.copy, lowered to loops later, not a call of the generic memrefCopy;
// a contiguous copy stays a memcpy.
// CHECK-LABEL: func @strided_copy
func.func @strided_copy(%in: memref<2x4x4xf32>, %padded: memref<2x6x6xf32>, %same: memref<2x4x4xf32>) {
  %view = memref.subview %padded[0, 1, 1] [2, 4, 4] [1, 1, 1] : memref<2x6x6xf32> to memref<2x4x4xf32, strided<[36, 6, 1], offset: 7>>
  // CHECK: linalg.copy ins(%{{.*}} : memref<2x4x4xf32>) outs(%{{.*}} : memref<2x4x4xf32, strided<[36, 6, 1], offset: 7>>)
  memref.copy %in, %view : memref<2x4x4xf32> to memref<2x4x4xf32, strided<[36, 6, 1], offset: 7>>
  // CHECK: memref.copy %{{.*}}, %{{.*}} : memref<2x4x4xf32> to memref<2x4x4xf32>
  memref.copy %in, %same : memref<2x4x4xf32> to memref<2x4x4xf32>
  return
}

// -----

// A broadcast operand (x + y[i] over (i, j, k)) is not a transpose: the
// loops keep the output's order.
// CHECK-DAG: #[[SAME:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[ROW:.*]] = affine_map<(d0, d1, d2) -> (d0)>
// CHECK-LABEL: func @broadcast_keeps_order
func.func @broadcast_keeps_order(%x: memref<4x5x6xf32>, %y: memref<4xf32>, %out: memref<4x5x6xf32>) {
  // CHECK: linalg.generic {indexing_maps = [#[[SAME]], #[[ROW]], #[[SAME]]]
  linalg.generic {indexing_maps = [affine_map<(i, j, k) -> (i, j, k)>, affine_map<(i, j, k) -> (i)>, affine_map<(i, j, k) -> (i, j, k)>],
                  iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x, %y : memref<4x5x6xf32>, memref<4xf32>) outs(%out : memref<4x5x6xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// A small matrix-vector product in a loop that reads A unchanged takes the
// column form: A is transposed once, before the loop, into a buffer
// allocated at the function's entry; each step sums A's columns scaled by
// broadcasts of x in 8 FMA chains, with no shuffle tree.
// CHECK-LABEL: func @matvec_in_loop
// CHECK: %[[T:.*]] = memref.alloca() {alignment = 64 : i64} : memref<16x16xf32>
// CHECK: scf.for %[[I:.*]] = %c0 to %c16 step %c1 {
// CHECK:   scf.for %[[J:.*]] = %c0 to %c16 step %c1 {
// CHECK:     %[[V:.*]] = memref.load %arg0[%[[I]], %[[J]]]
// CHECK:     memref.store %[[V]], %[[T]][%[[J]], %[[I]]]
// CHECK: scf.for %{{.*}} = %c0 to %arg3 step %c1 {
// CHECK:   scf.for %{{.*}} = %c0 to %c16 step %c8 iter_args(
// CHECK-COUNT-8: vector.fma
// CHECK-NOT: vector.shuffle
// CHECK: return
func.func @matvec_in_loop(%a: memref<16x16xf32>, %x: memref<16x1xf32>, %c: memref<16x1xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    linalg.generic {indexing_maps = [affine_map<(m, k, n) -> (m, k)>,
                                     affine_map<(m, k, n) -> (k, n)>,
                                     affine_map<(m, k, n) -> (m, n)>],
                    iterator_types = ["parallel", "reduction", "parallel"]}
        ins(%a, %x : memref<16x16xf32>, memref<16x1xf32>) outs(%c : memref<16x1xf32>) {
    ^bb0(%p: f32, %q: f32, %acc: f32):
      %m = arith.mulf %p, %q : f32
      %s = arith.addf %acc, %m : f32
      linalg.yield %s : f32
    }
  }
  return
}

// -----

// A loop that writes A (here through a view made outside it) keeps the
// dot-product kernel: A's transpose would go stale.
// CHECK-LABEL: func @matvec_loop_writes_a
// CHECK-NOT: memref.alloca
// CHECK: vector.shuffle
func.func @matvec_loop_writes_a(%a: memref<16x16xf32>, %x: memref<16x1xf32>, %c: memref<16x1xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %flat = memref.collapse_shape %a [[0, 1]] : memref<16x16xf32> into memref<256xf32>
  scf.for %i = %c0 to %n step %c1 {
    linalg.generic {indexing_maps = [affine_map<(m, k, n) -> (m, k)>,
                                     affine_map<(m, k, n) -> (k, n)>,
                                     affine_map<(m, k, n) -> (m, n)>],
                    iterator_types = ["parallel", "reduction", "parallel"]}
        ins(%a, %x : memref<16x16xf32>, memref<16x1xf32>) outs(%c : memref<16x1xf32>) {
    ^bb0(%p: f32, %q: f32, %acc: f32):
      %m = arith.mulf %p, %q : f32
      %s = arith.addf %acc, %m : f32
      linalg.yield %s : f32
    }
    memref.store %zero, %flat[%i] : memref<256xf32>
  }
  return
}

// -----

// So does a loop that hands A to a call (which may write it), and a product
// outside any loop (the transpose would cost as much as the product).
func.func private @use(memref<16x16xf32>)

// CHECK-LABEL: func @matvec_loop_calls_with_a
// CHECK-NOT: memref.alloca
// CHECK: vector.shuffle
func.func @matvec_loop_calls_with_a(%a: memref<16x16xf32>, %x: memref<16x1xf32>, %c: memref<16x1xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    linalg.generic {indexing_maps = [affine_map<(m, k, n) -> (m, k)>,
                                     affine_map<(m, k, n) -> (k, n)>,
                                     affine_map<(m, k, n) -> (m, n)>],
                    iterator_types = ["parallel", "reduction", "parallel"]}
        ins(%a, %x : memref<16x16xf32>, memref<16x1xf32>) outs(%c : memref<16x1xf32>) {
    ^bb0(%p: f32, %q: f32, %acc: f32):
      %m = arith.mulf %p, %q : f32
      %s = arith.addf %acc, %m : f32
      linalg.yield %s : f32
    }
    func.call @use(%a) : (memref<16x16xf32>) -> ()
  }
  return
}

// CHECK-LABEL: func @matvec_outside_loops
// CHECK-NOT: memref.alloca
// CHECK: vector.shuffle
func.func @matvec_outside_loops(%a: memref<16x16xf32>, %x: memref<16x1xf32>, %c: memref<16x1xf32>) {
  linalg.generic {indexing_maps = [affine_map<(m, k, n) -> (m, k)>,
                                   affine_map<(m, k, n) -> (k, n)>,
                                   affine_map<(m, k, n) -> (m, n)>],
                  iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%a, %x : memref<16x16xf32>, memref<16x1xf32>) outs(%c : memref<16x1xf32>) {
  ^bb0(%p: f32, %q: f32, %acc: f32):
    %m = arith.mulf %p, %q : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  }
  return
}
