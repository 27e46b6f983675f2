// .npy inputs and outputs: a round trip through --output and --input=@,
// the supported dtypes and headers, and the unsupported ones.

// RUN: rm -rf %t && mkdir %t
// RUN: fnc-run %s --entry=twice --input=2x3xf32=1,2,3,4,5,6 --output=@%t/a.npy
// RUN: fnc-run %s --entry=twice --input=@%t/a.npy | FileCheck %s --check-prefix=ROUND
// ROUND: fnc.Tensor(
// ROUND-NEXT: {{\[\[}} 4.  8. 12.]
// ROUND-NEXT: [16. 20. 24.]], shape=(2, 3), dtype=float32)

// A v2 header and float64 data written by another writer.
// RUN: %python %S/Inputs/npy.py %t/b.npy '<f8' 3 --v2 --values=0.5,1,-2
// RUN: fnc-run %s --entry=neg --input=@%t/b.npy | FileCheck %s --check-prefix=F64
// F64: fnc.Tensor([-0.5 -1.   2. ], shape=(3,), dtype=float64)

// RUN: %python %S/Inputs/npy.py %t/c.npy '<i8' 2 --values=3,-4
// RUN: %python %S/Inputs/npy.py %t/d.npy '|b1' '' --values=1
// RUN: fnc-run %s --entry=pick --input=@%t/d.npy --input=@%t/c.npy | FileCheck %s --check-prefix=PICK
// PICK: fnc.Tensor([ 3 -4], shape=(2,), dtype=int64)

// RUN: not fnc-run %s --entry=neg --input=@%t/missing.npy 2>&1 | FileCheck %s --check-prefix=NOFILE
// NOFILE: fnc-run: error: --input #0 ('@{{.*}}missing.npy'): cannot read '{{.*}}missing.npy': No such file or directory

// RUN: echo hello > %t/text.npy
// RUN: not fnc-run %s --entry=neg --input=@%t/text.npy 2>&1 | FileCheck %s --check-prefix=MAGIC
// MAGIC: fnc-run: error: --input #0 ('@{{.*}}text.npy'): not a .npy file (bad magic)

// Integer types fnc lacks are widened: uint8 (and int8, [u]int16) to i32.
// RUN: %python %S/Inputs/npy.py %t/u1.npy '|u1' 3 --values=1,2,255
// RUN: fnc-run %s --entry=negi --input=@%t/u1.npy | FileCheck %s --check-prefix=U1
// U1: fnc.Tensor([  -1   -2 -255], shape=(3,), dtype=int32)

// RUN: %python %S/Inputs/npy.py %t/u8.npy '<u8' 3
// RUN: not fnc-run %s --entry=neg --input=@%t/u8.npy 2>&1 | FileCheck %s --check-prefix=U8
// U8: error: --input #0 ('@{{.*}}u8.npy'): unsupported .npy dtype '<u8' (supported: f4 f8 b1 i4 i8, and u1 i1 u2 i2 as int32, u4 as int64, U and S as strings; convert the array with astype)

// RUN: %python %S/Inputs/npy.py %t/f2.npy '<f2' 3
// RUN: not fnc-run %s --entry=neg --input=@%t/f2.npy 2>&1 | FileCheck %s --check-prefix=F2
// F2: error: --input #0 ('@{{.*}}f2.npy'): unsupported .npy dtype '<f2'

// Big-endian files and Fortran order (np.save of a transposed array).
// RUN: %python %S/Inputs/npy.py %t/be.npy '>f8' 3 --values=1,-2,3.5
// RUN: fnc-run %s --entry=neg --input=@%t/be.npy | FileCheck %s --check-prefix=BIG
// BIG: fnc.Tensor([-1.   2.  -3.5], shape=(3,), dtype=float64)

// RUN: %python %S/Inputs/npy.py %t/f.npy '<f4' 2x3 --fortran --values=1,4,2,5,3,6
// RUN: fnc-run %s --entry=twice --input=@%t/f.npy | FileCheck %s --check-prefix=FORTRAN
// FORTRAN: fnc.Tensor(
// FORTRAN-NEXT: {{\[\[}} 2.  4.  6.]
// FORTRAN-NEXT: [ 8. 10. 12.]], shape=(2, 3), dtype=float32)

// RUN: %python %S/Inputs/npy.py %t/short.npy '<f8' 3 --values=1
// RUN: not fnc-run %s --entry=neg --input=@%t/short.npy 2>&1 | FileCheck %s --check-prefix=SHORT
// SHORT: error: --input #0 ('@{{.*}}short.npy'): truncated .npy data: expected 24 bytes, found 8

// RUN: %python %S/Inputs/npy.py %t/long.npy '<f8' 1 --values=1,2
// RUN: not fnc-run %s --entry=neg --input=@%t/long.npy 2>&1 | FileCheck %s --check-prefix=LONG
// LONG: error: --input #0 ('@{{.*}}long.npy'): wrong .npy size: the header says 8 bytes of data, found 16

// A shape whose element count overflows 64 bits is not 4 elements.
// RUN: %python %S/Inputs/npy.py %t/huge.npy '<f4' 4611686018427387905x4 --values=1,2,3,4
// RUN: not fnc-run %s --entry=neg --input=@%t/huge.npy 2>&1 | FileCheck %s --check-prefix=HUGE
// HUGE: error: --input #0 ('@{{.*}}huge.npy'): the shape (4611686018427387905, 4) in the .npy header is too large

// RUN: not fnc-run %s --entry=neg --input=@%t/a.npy 2>&1 | FileCheck %s --check-prefix=TYPE
// TYPE: error: --input #0 for argument #0 of @neg: expected tensor<?xf64>, got tensor<2x3xf32>

func.func @twice(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %e = tensor.empty() : tensor<2x3xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
                                        affine_map<(d0, d1) -> (d0, d1)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<2x3xf32>) outs(%e : tensor<2x3xf32>) {
  ^bb0(%x: f32, %o: f32):
    %s = arith.addf %x, %x : f32
    linalg.yield %s : f32
  } -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}

func.func @neg(%a: tensor<?xf64>) -> tensor<?xf64> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %a, %c0 : tensor<?xf64>
  %e = tensor.empty(%n) : tensor<?xf64>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>,
                                        affine_map<(d0) -> (d0)>],
                       iterator_types = ["parallel"]}
      ins(%a : tensor<?xf64>) outs(%e : tensor<?xf64>) {
  ^bb0(%x: f64, %o: f64):
    %s = arith.negf %x : f64
    linalg.yield %s : f64
  } -> tensor<?xf64>
  return %r : tensor<?xf64>
}

func.func @negi(%a: tensor<?xi32>) -> tensor<?xi32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %a, %c0 : tensor<?xi32>
  %e = tensor.empty(%n) : tensor<?xi32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>,
                                        affine_map<(d0) -> (d0)>],
                       iterator_types = ["parallel"]}
      ins(%a : tensor<?xi32>) outs(%e : tensor<?xi32>) {
  ^bb0(%x: i32, %o: i32):
    %zero = arith.constant 0 : i32
    %s = arith.subi %zero, %x : i32
    linalg.yield %s : i32
  } -> tensor<?xi32>
  return %r : tensor<?xi32>
}

func.func @pick(%p: tensor<i1>, %a: tensor<2xi64>) -> tensor<2xi64> {
  %c = tensor.extract %p[] : tensor<i1>
  %e = tensor.empty() : tensor<2xi64>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>,
                                        affine_map<(d0) -> (d0)>],
                       iterator_types = ["parallel"]}
      ins(%a : tensor<2xi64>) outs(%e : tensor<2xi64>) {
  ^bb0(%x: i64, %o: i64):
    %zero = arith.constant 0 : i64
    %v = arith.select %c, %x, %zero : i64
    linalg.yield %v : i64
  } -> tensor<2xi64>
  return %r : tensor<2xi64>
}
