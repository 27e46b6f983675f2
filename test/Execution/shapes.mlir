// Shape ops through the JIT and the reference interpreter.
// RUN: fnc-run %s --entry=shapes --input=2x3xi32=1,2,3,4,5,6 | FileCheck %s --check-prefix=SHAPE
// RUN: fnc-run %s --interpret --entry=shapes --input=2x3xi32=1,2,3,4,5,6 | FileCheck %s --check-prefix=SHAPE
// RUN: fnc-run %s --entry=gather --input=3x2xf32=1,2,3,4,5,6 --input=4xi64=2,0,2,1 | FileCheck %s --check-prefix=GATHER
// RUN: fnc-run %s --interpret --entry=gather --input=3x2xf32=1,2,3,4,5,6 --input=4xi64=2,0,2,1 | FileCheck %s --check-prefix=GATHER
// Dynamic dims: the same function on two shapes.
// RUN: fnc-run %s --entry=dynamic --input=2x3xi32=1,2,3,4,5,6 | FileCheck %s --check-prefix=DYN
// RUN: fnc-run %s --interpret --entry=dynamic --input=2x3xi32=1,2,3,4,5,6 | FileCheck %s --check-prefix=DYN
// RUN: fnc-run %s --entry=dynamic --input=4x3xi32=1,2,3,4,5,6,7,8,9,10,11,12 | FileCheck %s --check-prefix=DYN4
// broadcast_to from a dim unknown in the type that is 1 at run time.
// RUN: fnc-run %s --entry=stretch --input=1x1xf32=5 | FileCheck %s --check-prefix=STRETCH
// RUN: fnc-run %s --interpret --entry=stretch --input=1x1xf32=5 | FileCheck %s --check-prefix=STRETCH
// RUN: fnc-run %s --entry=stretch --input=3x1xf32=1,2,3 | FileCheck %s --check-prefix=NOSTRETCH
// RUN: fnc-run %s --interpret --entry=stretch --input=3x1xf32=1,2,3 | FileCheck %s --check-prefix=NOSTRETCH
// RUN: not fnc-run %s --entry=stretch --input=2x1xf32=1,2 2>&1 | FileCheck %s --check-prefix=BADSTRETCH
// set_row: one row replaced; an index out of range is an error.
// RUN: fnc-run %s --entry=set_row --input=3x2xf32=1,2,3,4,5,6 --input=i32=1 --input=2xf32=-1,-2 | FileCheck %s --check-prefix=SETROW
// RUN: fnc-run %s --interpret --entry=set_row --input=3x2xf32=1,2,3,4,5,6 --input=i32=1 --input=2xf32=-1,-2 | FileCheck %s --check-prefix=SETROW
// RUN: not fnc-run %s --entry=set_row --input=3x2xf32=1,2,3,4,5,6 --input=i32=3 --input=2xf32=-1,-2 2>&1 | FileCheck %s --check-prefix=SETROW-BAD
// RUN: not fnc-run %s --interpret --entry=set_row --input=3x2xf32=1,2,3,4,5,6 --input=i32=-1 --input=2xf32=-1,-2 2>&1 | FileCheck %s --check-prefix=SETROW-BAD
// dynamic_slice: rows [start, start + size) at run time; a range outside
// the dim is an error.
// RUN: fnc-run %s --entry=dynamic_slice --input=3x2xf32=1,2,3,4,5,6 --input=i64=1 --input=i64=2 | FileCheck %s --check-prefix=DSLICE
// RUN: fnc-run %s --interpret --entry=dynamic_slice --input=3x2xf32=1,2,3,4,5,6 --input=i64=1 --input=i64=2 | FileCheck %s --check-prefix=DSLICE
// RUN: fnc-run %s --entry=dynamic_slice --input=3x2xf32=1,2,3,4,5,6 --input=i64=3 --input=i64=0 | FileCheck %s --check-prefix=DSLICE0
// RUN: not fnc-run %s --entry=dynamic_slice --input=3x2xf32=1,2,3,4,5,6 --input=i64=2 --input=i64=2 2>&1 | FileCheck %s --check-prefix=DSLICE-BAD
// RUN: not fnc-run %s --interpret --entry=dynamic_slice --input=3x2xf32=1,2,3,4,5,6 --input=i64=-1 --input=i64=1 2>&1 | FileCheck %s --check-prefix=DSLICE-BAD-INTERP
// dynamic_update_slice: columns [start, start + n) replaced at run time; a
// range outside the dim or another row count is an error.
// RUN: fnc-run %s --entry=dynamic_update_slice --input=2x4xf32=1,2,3,4,5,6,7,8 --input=i64=1 --input=2x2xf32=-1,-2,-3,-4 | FileCheck %s --check-prefix=DUS
// RUN: fnc-run %s --interpret --entry=dynamic_update_slice --input=2x4xf32=1,2,3,4,5,6,7,8 --input=i64=1 --input=2x2xf32=-1,-2,-3,-4 | FileCheck %s --check-prefix=DUS
// RUN: fnc-run %s --entry=dynamic_update_slice --input=2x4xf32=1,2,3,4,5,6,7,8 --input=i64=4 --input=2x0xf32= | FileCheck %s --check-prefix=DUS0
// RUN: not fnc-run %s --entry=dynamic_update_slice --input=2x4xf32=1,2,3,4,5,6,7,8 --input=i64=3 --input=2x2xf32=-1,-2,-3,-4 2>&1 | FileCheck %s --check-prefix=DUS-BAD
// RUN: not fnc-run %s --interpret --entry=dynamic_update_slice --input=2x4xf32=1,2,3,4,5,6,7,8 --input=i64=-1 --input=2x2xf32=-1,-2,-3,-4 2>&1 | FileCheck %s --check-prefix=DUS-BAD-INTERP
// RUN: not fnc-run %s --entry=dynamic_update_slice --input=2x4xf32=1,2,3,4,5,6,7,8 --input=i64=0 --input=1x2xf32=-1,-2 2>&1 | FileCheck %s --check-prefix=DUS-ROWS
// reshape_to_shape: sizes read at run time; a product other than the
// element count, a negative size or another static dim is an error.
// RUN: fnc-run %s --entry=reshape_to_shape --input=6xf32=1,2,3,4,5,6 --input=2xi64=3,2 | FileCheck %s --check-prefix=RTS
// RUN: fnc-run %s --interpret --entry=reshape_to_shape --input=6xf32=1,2,3,4,5,6 --input=2xi64=3,2 | FileCheck %s --check-prefix=RTS
// RUN: not fnc-run %s --entry=reshape_to_shape --input=6xf32=1,2,3,4,5,6 --input=2xi64=4,2 2>&1 | FileCheck %s --check-prefix=RTS-SIZE
// RUN: not fnc-run %s --interpret --entry=reshape_to_shape --input=6xf32=1,2,3,4,5,6 --input=2xi64=4,2 2>&1 | FileCheck %s --check-prefix=RTS-SIZE-INTERP
// RUN: not fnc-run %s --entry=reshape_to_shape --input=6xf32=1,2,3,4,5,6 --input=2xi64=-2,-3 2>&1 | FileCheck %s --check-prefix=RTS-NEG
// RUN: not fnc-run %s --entry=reshape_to_shape_static --input=6xf32=1,2,3,4,5,6 --input=2xi64=2,3 2>&1 | FileCheck %s --check-prefix=RTS-STATIC
// From a static input (the gradient of a reshape of unknown dims):
// RUN: fnc-run %s --entry=reshape_to_shape_from_static --input=3x2xf32=1,2,3,4,5,6 --input=1xi64=6 | FileCheck %s --check-prefix=RTS-FROM
// Slices to the end of a dynamic dim, on two shapes; an offset past the end
// is an error.
// RUN: fnc-run %s --entry=slice_to_end --input=3x4xf32=1,2,3,4,5,6,7,8,9,10,11,12 | FileCheck %s --check-prefix=TOEND3
// RUN: fnc-run %s --interpret --entry=slice_to_end --input=3x4xf32=1,2,3,4,5,6,7,8,9,10,11,12 | FileCheck %s --check-prefix=TOEND3
// RUN: fnc-run %s --entry=slice_to_end --input=4x4xf32=1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16 | FileCheck %s --check-prefix=TOEND4
// RUN: fnc-run %s --interpret --entry=slice_to_end --input=4x4xf32=1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16 | FileCheck %s --check-prefix=TOEND4
// RUN: not fnc-run %s --entry=slice_to_end --input=1x4xf32=1,2,3,4 2>&1 | FileCheck %s --check-prefix=TOEND-BAD
// RUN: not fnc-run %s --interpret --entry=slice_to_end --input=1x4xf32=1,2,3,4 2>&1 | FileCheck %s --check-prefix=TOEND-BAD-INTERP
// pad: before, after and between the elements, a dynamic dim on two sizes.
// RUN: fnc-run %s --entry=pad --input=2x3xi32=1,2,3,4,5,6 | FileCheck %s --check-prefix=PAD2
// RUN: fnc-run %s --interpret --entry=pad --input=2x3xi32=1,2,3,4,5,6 | FileCheck %s --check-prefix=PAD2
// RUN: fnc-run %s --entry=pad --input=1x3xi32=7,8,9 | FileCheck %s --check-prefix=PAD1
// RUN: fnc-run %s --interpret --entry=pad --input=1x3xi32=7,8,9 | FileCheck %s --check-prefix=PAD1
// Shapes as values: shape_of and broadcast_to_shape (zeros(shape(x))).
// RUN: fnc-run %s --entry=shape_values --input=2x3xf32=1,2,3,4,5,6 --input=3xi64=2,1,3 | FileCheck %s --check-prefix=SV
// RUN: fnc-run %s --interpret --entry=shape_values --input=2x3xf32=1,2,3,4,5,6 --input=3xi64=2,1,3 | FileCheck %s --check-prefix=SV
// An unknown dim that is 1 stretches to the shape's unknown dim; any other
// size must equal it.
// RUN: fnc-run %s --entry=shape_values --input=1x3xf32=1,2,3 --input=3xi64=2,1,3 | FileCheck %s --check-prefix=SV1
// RUN: fnc-run %s --interpret --entry=shape_values --input=1x3xf32=1,2,3 --input=3xi64=2,1,3 | FileCheck %s --check-prefix=SV1
// RUN: not fnc-run %s --entry=shape_values --input=2x3xf32=1,2,3,4,5,6 --input=3xi64=3,1,3 2>&1 | FileCheck %s --check-prefix=SV-BAD
// RUN: not fnc-run %s --interpret --entry=shape_values --input=2x3xf32=1,2,3,4,5,6 --input=3xi64=3,1,3 2>&1 | FileCheck %s --check-prefix=SV-BAD-INTERP
// sum_to_shape: the shape decides at run time which dims are summed; a
// shape the input is not a broadcast of is an error.
// RUN: fnc-run %s --entry=sum_to_shape --input=2x3xf32=1,2,3,4,5,6 --input=2xi64=1,3 | FileCheck %s --check-prefix=SUM1
// RUN: fnc-run %s --interpret --entry=sum_to_shape --input=2x3xf32=1,2,3,4,5,6 --input=2xi64=1,3 | FileCheck %s --check-prefix=SUM1
// RUN: fnc-run %s --entry=sum_to_shape --input=2x3xf32=1,2,3,4,5,6 --input=2xi64=2,1 | FileCheck %s --check-prefix=SUM2
// RUN: fnc-run %s --interpret --entry=sum_to_shape --input=2x3xf32=1,2,3,4,5,6 --input=2xi64=2,1 | FileCheck %s --check-prefix=SUM2
// RUN: fnc-run %s --entry=sum_to_shape --input=2x3xf32=1,2,3,4,5,6 --input=2xi64=2,3 | FileCheck %s --check-prefix=SUMNONE
// RUN: not fnc-run %s --entry=sum_to_shape --input=2x3xf32=1,2,3,4,5,6 --input=2xi64=3,3 2>&1 | FileCheck %s --check-prefix=SUMBAD
// RUN: not fnc-run %s --interpret --entry=sum_to_shape --input=2x3xf32=1,2,3,4,5,6 --input=2xi64=3,3 2>&1 | FileCheck %s --check-prefix=SUMBAD

// SHAPE: fnc.Tensor(
// SHAPE-NEXT: {{\[\[}}1 4]
// SHAPE-NEXT:  [2 5]
// SHAPE-NEXT:  [3 6]], shape=(3, 2), dtype=int32)
// SHAPE: fnc.Tensor(
// SHAPE-NEXT: {{\[\[}}1 2]
// SHAPE-NEXT:  [3 4]
// SHAPE-NEXT:  [5 6]], shape=(3, 2), dtype=int32)
// SHAPE: fnc.Tensor(
// SHAPE-NEXT: {{\[\[}}[1 2 3]
// SHAPE-NEXT:   [4 5 6]]
// SHAPE-EMPTY:
// SHAPE-NEXT:  {{\[\[}}1 2 3]
// SHAPE-NEXT:   [4 5 6]]], shape=(2, 2, 3), dtype=int32)
// SHAPE: fnc.Tensor(
// SHAPE-NEXT: {{\[\[}}[1 2 3]
// SHAPE-NEXT:   [4 5 6]]], shape=(1, 2, 3), dtype=int32)
// SHAPE: fnc.Tensor(
// SHAPE-NEXT: {{\[\[}}1 2 3]
// SHAPE-NEXT:  [4 5 6]], shape=(2, 3), dtype=int32)
// SHAPE: fnc.Tensor(
// SHAPE-NEXT: {{\[\[}}1 3]
// SHAPE-NEXT:  [4 6]], shape=(2, 2), dtype=int32)
// SHAPE: fnc.Tensor(
// SHAPE-NEXT: {{\[\[}}1 2 3]
// SHAPE-NEXT:  [4 5 6]
// SHAPE-NEXT:  [1 2 3]
// SHAPE-NEXT:  [4 5 6]], shape=(4, 3), dtype=int32)
func.func @shapes(%a: tensor<2x3xi32>) -> (tensor<3x2xi32>, tensor<3x2xi32>, tensor<2x2x3xi32>, tensor<1x2x3xi32>, tensor<2x3xi32>, tensor<2x2xi32>, tensor<4x3xi32>) {
  %0 = fnc.transpose %a perm [1, 0] : tensor<2x3xi32>
  %1 = fnc.reshape %a : tensor<2x3xi32> -> tensor<3x2xi32>
  %2 = fnc.broadcast_to %a : tensor<2x3xi32> -> tensor<2x2x3xi32>
  %3 = fnc.expand_dims %a axis 0 : tensor<2x3xi32>
  %4 = fnc.squeeze %3 axes [0] : tensor<1x2x3xi32>
  %5 = fnc.slice %a offsets [0, 0] sizes [2, 2] strides [1, 2] : tensor<2x3xi32>
  %6 = fnc.concat %a, %a axis 0 : tensor<2x3xi32>, tensor<2x3xi32>
  return %0, %1, %2, %3, %4, %5, %6 : tensor<3x2xi32>, tensor<3x2xi32>, tensor<2x2x3xi32>, tensor<1x2x3xi32>, tensor<2x3xi32>, tensor<2x2xi32>, tensor<4x3xi32>
}

// GATHER: fnc.Tensor(
// GATHER-NEXT: {{\[\[}}5. 6.]
// GATHER-NEXT:  [1. 2.]
// GATHER-NEXT:  [5. 6.]
// GATHER-NEXT:  [3. 4.]], shape=(4, 2), dtype=float32)
// GATHER: fnc.Tensor(
// GATHER-NEXT: {{\[\[}}0. 0. 1.]
// GATHER-NEXT:  [1. 0. 0.]
// GATHER-NEXT:  [0. 0. 1.]
// GATHER-NEXT:  [0. 1. 0.]], shape=(4, 3), dtype=float32)
func.func @gather(%p: tensor<3x2xf32>, %i: tensor<4xi64>) -> (tensor<4x2xf32>, tensor<4x3xf32>) {
  %0 = fnc.gather %p, %i axis 0 : tensor<3x2xf32>, tensor<4xi64>
  %1 = fnc.one_hot %i depth 3 axis -1 on 1.0 off 0.0 : tensor<4xi64> -> tensor<4x3xf32>
  return %0, %1 : tensor<4x2xf32>, tensor<4x3xf32>
}

// DYN: fnc.Tensor(
// DYN-NEXT: {{\[\[}}1 2 3]
// DYN-NEXT:  [4 5 6]], shape=(2, 3), dtype=int32)
// DYN: fnc.Tensor([10 14 18], shape=(3,), dtype=int32)
// DYN4: fnc.Tensor(
// DYN4-NEXT: {{\[\[}} 1  2  3  4  5  6]
// DYN4-NEXT:  [ 7  8  9 10 11 12]], shape=(2, 6), dtype=int32)
// DYN4: fnc.Tensor([44 52 60], shape=(3,), dtype=int32)
func.func @dynamic(%a: tensor<?x3xi32>) -> (tensor<2x?xi32>, tensor<3xi32>) {
  %0 = fnc.reshape %a : tensor<?x3xi32> -> tensor<2x?xi32>
  %d = fnc.add %a, %a : tensor<?x3xi32>, tensor<?x3xi32>
  %1 = fnc.sum %d axes [0] : tensor<?x3xi32>
  return %0, %1 : tensor<2x?xi32>, tensor<3xi32>
}

// TOEND3: fnc.Tensor(
// TOEND3-NEXT: {{\[\[}} 2.  3.]
// TOEND3-NEXT:  [ 6.  7.]
// TOEND3-NEXT:  [10. 11.]], shape=(3, 2), dtype=float32)
// TOEND3: fnc.Tensor({{\[\[}} 9. 10. 11. 12.]], shape=(1, 4), dtype=float32)
// TOEND4: fnc.Tensor(
// TOEND4-NEXT: {{\[\[}} 2.  3.]
// TOEND4-NEXT:  [ 6.  7.]
// TOEND4-NEXT:  [10. 11.]
// TOEND4-NEXT:  [14. 15.]], shape=(4, 2), dtype=float32)
// TOEND4: fnc.Tensor({{\[\[}} 9. 10. 11. 12.]], shape=(1, 4), dtype=float32)
// TOEND-BAD: error: @slice_to_end: slice reaches element 2 of a dimension of size 1
// TOEND-BAD-INTERP: error: {{.*}}slice dimension 0 starts at 2 but the operand [1, 4] has only 1
func.func @slice_to_end(%a: tensor<?x4xf32>) -> (tensor<?x2xf32>, tensor<?x4xf32>) {
  %0 = fnc.slice %a offsets [0, 1] sizes [-1, 2] strides [1, 1] : tensor<?x4xf32>
  %1 = fnc.slice %a offsets [2, 0] sizes [-1, -1] strides [2, 1] : tensor<?x4xf32>
  return %0, %1 : tensor<?x2xf32>, tensor<?x4xf32>
}

// PAD2: fnc.Tensor(
// PAD2-NEXT: {{\[\[}}-1 -1 -1 -1 -1 -1 -1]
// PAD2-NEXT:  [-1  1 -1  2 -1  3 -1]
// PAD2-NEXT:  [-1 -1 -1 -1 -1 -1 -1]
// PAD2-NEXT:  [-1  4 -1  5 -1  6 -1]], shape=(4, 7), dtype=int32)
// PAD1: fnc.Tensor(
// PAD1-NEXT: {{\[\[}}-1 -1 -1 -1 -1 -1 -1]
// PAD1-NEXT:  [-1  7 -1  8 -1  9 -1]], shape=(2, 7), dtype=int32)
func.func @pad(%a: tensor<?x3xi32>) -> tensor<?x7xi32> {
  %0 = fnc.pad %a low [1, 1] high [0, 1] interior [1, 1] value -1.0 : tensor<?x3xi32>
  return %0 : tensor<?x7xi32>
}

// SV: fnc.Tensor([2 3], shape=(2,), dtype=int32)
// SV: fnc.Tensor(
// SV-NEXT: {{\[\[}}0. 0. 0.]
// SV-NEXT:  [0. 0. 0.]], shape=(2, 3), dtype=float32)
// SV: fnc.Tensor(
// SV-NEXT: {{\[\[}}[1. 2. 3.]]
// SV-EMPTY:
// SV-NEXT:  {{\[\[}}4. 5. 6.]]], shape=(2, 1, 3), dtype=float32)
// SV1: {{^}}fnc.Tensor({{$}}
// SV1-NEXT: {{\[\[}}[1. 2. 3.]]
// SV1-EMPTY:
// SV1-NEXT:  {{\[\[}}1. 2. 3.]]], shape=(2, 1, 3), dtype=float32)
// SV-BAD: error: @shape_values: dynamic dimension mismatch: 2 vs 3
// SV-BAD-INTERP: error: {{.*}}cannot broadcast shape [2, 1, 3] to [3, 1, 3]
func.func @shape_values(%x: tensor<?x?xf32>, %s: tensor<3xi64>) -> (tensor<2xi32>, tensor<?x?xf32>, tensor<?x?x3xf32>) {
  %shape = fnc.shape_of %x : tensor<?x?xf32> -> tensor<2xi32>
  %zero = fnc.constant dense<0.0> : tensor<f32>
  %z = fnc.broadcast_to_shape %zero, %shape : tensor<f32>, tensor<2xi32> -> tensor<?x?xf32>
  %r = fnc.reshape %x : tensor<?x?xf32> -> tensor<?x1x3xf32>
  %b = fnc.broadcast_to_shape %r, %s : tensor<?x1x3xf32>, tensor<3xi64> -> tensor<?x?x3xf32>
  return %shape, %z, %b : tensor<2xi32>, tensor<?x?xf32>, tensor<?x?x3xf32>
}

// SUM1: fnc.Tensor({{\[\[}}5. 7. 9.]], shape=(1, 3), dtype=float32)
// SUM2: fnc.Tensor(
// SUM2-NEXT: {{\[\[}} 6.]
// SUM2-NEXT:  [15.]], shape=(2, 1), dtype=float32)
// SUMNONE: fnc.Tensor(
// SUMNONE-NEXT: {{\[\[}}1. 2. 3.]
// SUMNONE-NEXT:  [4. 5. 6.]], shape=(2, 3), dtype=float32)
// SUMBAD: dynamic dimension mismatch: 3 vs 2
func.func @sum_to_shape(%g: tensor<?x?xf32>, %s: tensor<2xi64>) -> tensor<?x?xf32> {
  %0 = fnc.sum_to_shape %g, %s : tensor<?x?xf32>, tensor<2xi64> -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// STRETCH: fnc.Tensor(
// STRETCH-NEXT: {{\[\[}}5. 5. 5.]
// STRETCH-NEXT:  [5. 5. 5.]
// STRETCH-NEXT:  [5. 5. 5.]], shape=(3, 3), dtype=float32)
// NOSTRETCH: fnc.Tensor(
// NOSTRETCH-NEXT: {{\[\[}}1. 1. 1.]
// NOSTRETCH-NEXT:  [2. 2. 2.]
// NOSTRETCH-NEXT:  [3. 3. 3.]], shape=(3, 3), dtype=float32)
// BADSTRETCH: error: @stretch: dynamic dimension mismatch: 2 vs 3
func.func @stretch(%a: tensor<?x1xf32>) -> tensor<3x3xf32> {
  %0 = fnc.broadcast_to %a : tensor<?x1xf32> -> tensor<3x3xf32>
  return %0 : tensor<3x3xf32>
}

// SETROW: fnc.Tensor(
// SETROW-NEXT: {{\[\[}} 1.  2.]
// SETROW-NEXT:  [-1. -2.]
// SETROW-NEXT:  [ 5.  6.]], shape=(3, 2), dtype=float32)
// SETROW-BAD: error: {{.*}}row index {{-?[0-9]+}} is out of range [0, 3)
// DSLICE: fnc.Tensor(
// DSLICE-NEXT: {{\[\[}}3. 4.]
// DSLICE-NEXT:  [5. 6.]], shape=(2, 2), dtype=float32)
// DSLICE0: shape=(0, 2), dtype=float32)
// DSLICE-BAD: error: {{.*}}slice reaches element 3 of a dimension of size 3
// DSLICE-BAD-INTERP: error: {{.*}}the range [-1, -1 + 1) is outside a dimension of size 3
func.func @dynamic_slice(%a: tensor<3x2xf32>, %s: tensor<i64>, %n: tensor<i64>) -> tensor<?x2xf32> {
  %0 = fnc.dynamic_slice %a[%s, %n] axis 0 : tensor<3x2xf32>, tensor<i64>, tensor<i64> -> tensor<?x2xf32>
  return %0 : tensor<?x2xf32>
}

// DUS: fnc.Tensor(
// DUS-NEXT: {{\[\[}} 1. -1. -2.  4.]
// DUS-NEXT:  [ 5. -3. -4.  8.]], shape=(2, 4), dtype=float32)
// DUS0: shape=(2, 4), dtype=float32)
// DUS-BAD: error: {{.*}}slice reaches element 4 of a dimension of size 4
// DUS-BAD-INTERP: error: {{.*}}the range [-1, -1 + 2) is outside a dimension of size 4
// DUS-ROWS: error: {{.*}}dynamic dimension mismatch: 1 vs 2
func.func @dynamic_update_slice(%a: tensor<2x4xf32>, %s: tensor<i64>, %u: tensor<?x?xf32>) -> tensor<2x4xf32> {
  %0 = fnc.dynamic_update_slice %a[%s], %u axis 1 : tensor<2x4xf32>, tensor<i64>, tensor<?x?xf32>
  return %0 : tensor<2x4xf32>
}

// RTS: fnc.Tensor(
// RTS-NEXT: {{\[\[}}1. 2.]
// RTS-NEXT:  [3. 4.]
// RTS-NEXT:  [5. 6.]], shape=(3, 2), dtype=float32)
// RTS-SIZE: error: {{.*}}cannot reshape a tensor of 6 elements: the known dimensions of the new shape multiply to 8
// RTS-SIZE-INTERP: error: {{.*}}reshape
// RTS-NEG: error: {{.*}}negative size -2
// RTS-STATIC: error: {{.*}}dynamic dimension mismatch: 2 vs 3
func.func @reshape_to_shape(%a: tensor<?xf32>, %s: tensor<2xi64>) -> tensor<?x?xf32> {
  %0 = fnc.reshape_to_shape %a, %s : tensor<?xf32>, tensor<2xi64> -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

func.func @reshape_to_shape_static(%a: tensor<?xf32>, %s: tensor<2xi64>) -> tensor<3x?xf32> {
  %0 = fnc.reshape_to_shape %a, %s : tensor<?xf32>, tensor<2xi64> -> tensor<3x?xf32>
  return %0 : tensor<3x?xf32>
}

// RTS-FROM: fnc.Tensor([1. 2. 3. 4. 5. 6.], shape=(6,), dtype=float32)
func.func @reshape_to_shape_from_static(%a: tensor<3x2xf32>, %s: tensor<1xi64>) -> tensor<?xf32> {
  %0 = fnc.reshape_to_shape %a, %s : tensor<3x2xf32>, tensor<1xi64> -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

func.func @set_row(%a: tensor<?x2xf32>, %i: tensor<i32>, %v: tensor<2xf32>) -> tensor<?x2xf32> {
  %0 = fnc.set_row %a[%i], %v : tensor<?x2xf32>, tensor<i32>, tensor<2xf32>
  return %0 : tensor<?x2xf32>
}
