// RUN: fnc-opt %s -split-input-file -verify-diagnostics

// Every verifier and type-inference message of the fnc dialect.

func.func @broadcast_incompatible(%a: tensor<2x3xf32>, %b: tensor<4xf32>) {
  // expected-error @+1 {{'fnc.add' op shapes [2, 3] and [4] are not broadcast-compatible (dimension 1: 3 vs 4)}}
  %0 = fnc.add %a, %b : tensor<2x3xf32>, tensor<4xf32>
  return
}

// -----

func.func @wrong_result_type(%a: tensor<2xf32>) {
  // expected-error @+2 {{'fnc.mul' op inferred type(s) 'tensor<2xf32>' are incompatible with return type(s) of operation 'tensor<3xf32>'}}
  // expected-error @+1 {{'fnc.mul' op failed to infer returned types}}
  %0 = "fnc.mul"(%a, %a) : (tensor<2xf32>, tensor<2xf32>) -> tensor<3xf32>
  return
}

// -----

func.func @unranked_operand(%a: tensor<*xf32>) {
  // expected-error @+1 {{'fnc.sub' op operand #0 must be ranked tensor of 32-bit float or 64-bit float or 32-bit signless integer or 64-bit signless integer values, but got 'tensor<*xf32>'}}
  %0 = "fnc.sub"(%a, %a) : (tensor<*xf32>, tensor<*xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @mixed_dtypes(%a: tensor<2xf32>, %b: tensor<2xi32>) {
  // expected-error @+1 {{'fnc.add' op requires the same element type for all operands and results}}
  %0 = "fnc.add"(%a, %b) : (tensor<2xf32>, tensor<2xi32>) -> tensor<2xf32>
  return
}

// -----

func.func @unsupported_dtype(%a: tensor<2xf16>) {
  // expected-error @+1 {{'fnc.exp' op operand #0 must be ranked tensor of 32-bit float or 64-bit float values, but got 'tensor<2xf16>'}}
  %0 = fnc.exp %a : tensor<2xf16>
  return
}

// -----

func.func @float_only(%a: tensor<2xi32>) {
  // expected-error @+1 {{'fnc.sqrt' op operand #0 must be ranked tensor of 32-bit float or 64-bit float values, but got 'tensor<2xi32>'}}
  %0 = fnc.sqrt %a : tensor<2xi32>
  return
}

// -----

func.func @logical_on_floats(%a: tensor<2xf32>) {
  // expected-error @+1 {{'fnc.logical_and' op operand #0 must be ranked tensor of 1-bit signless integer values}}
  %0 = "fnc.logical_and"(%a, %a) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @compare_mixed(%a: tensor<2xf32>, %b: tensor<2xi32>) {
  // expected-error @+1 {{'fnc.compare' op requires the same element type for all operands}}
  %0 = fnc.compare eq, %a, %b : tensor<2xf32>, tensor<2xi32>
  return
}

// -----

func.func @compare_bool_order(%a: tensor<2xi1>) {
  // expected-error @+1 {{'fnc.compare' op bools are only compared with eq and ne, not lt; cast them to an integer type first}}
  %0 = fnc.compare lt, %a, %a : tensor<2xi1>, tensor<2xi1>
  return
}

// -----

func.func @select_mixed(%c: tensor<2xi1>, %a: tensor<2xf32>, %b: tensor<2xf64>) {
  // expected-error @+1 {{'fnc.select' op the two choices differ in element type: 'tensor<2xf32>' vs 'tensor<2xf64>'; cast one of them first}}
  %0 = fnc.select %c, %a, %b : tensor<2xi1>, tensor<2xf32>, tensor<2xf64>
  return
}

// -----

func.func @select_incompatible(%c: tensor<3xi1>, %a: tensor<2xf32>) {
  // expected-error @+1 {{'fnc.select' op shapes [3] and [2] are not broadcast-compatible}}
  %0 = fnc.select %c, %a, %a : tensor<3xi1>, tensor<2xf32>, tensor<2xf32>
  return
}

// -----

func.func @fill_dims() {
  // expected-error @+1 {{'fnc.fill' op result 'tensor<?x3xf32>' has 1 dynamic dimension(s) but 0 size operand(s) were given; pass one index per '?'}}
  %0 = fnc.fill 0.0 : tensor<?x3xf32>
  return
}

// -----

func.func @range_length() {
  // expected-error @+1 {{'fnc.range' op range(0, 10, 2) has 5 elements but the result type is 'tensor<4xi32>'}}
  %0 = fnc.range 0.0, 10.0, 2.0 : tensor<4xi32>
  return
}

// -----

func.func @range_zero_delta() {
  // expected-error @+1 {{'fnc.range' op range needs finite start, limit and a non-zero delta}}
  %0 = fnc.range 0.0, 10.0, 0.0 : tensor<4xi32>
  return
}

// -----

func.func @eye_dynamic() {
  // expected-error @+1 {{'fnc.eye' op result 'tensor<?x3xf32>' must have a static shape}}
  %0 = fnc.eye : tensor<?x3xf32>
  return
}

// -----

func.func @cast_shape(%a: tensor<2xf32>) {
  // expected-error @+1 {{'fnc.cast' op requires the same shape for all operands and results}}
  %0 = fnc.cast %a : tensor<2xf32> to tensor<3xi32>
  return
}

// -----

func.func @matmul_rank(%a: tensor<3xf32>, %b: tensor<3x4xf32>) {
  // expected-error @+1 {{'fnc.matmul' op matmul needs operands of rank >= 2, got [3] and [3, 4]; use expand_dims to make a vector a matrix}}
  %0 = fnc.matmul %a, %b : tensor<3xf32>, tensor<3x4xf32>
  return
}

// -----

func.func @matmul_inner(%a: tensor<2x3xf32>, %b: tensor<4x5xf32>) {
  // expected-error @+1 {{'fnc.matmul' op matmul inner dimensions differ: [2, 3] x [4, 5] (3 vs 4)}}
  %0 = fnc.matmul %a, %b : tensor<2x3xf32>, tensor<4x5xf32>
  return
}

// -----

func.func @matmul_batch(%a: tensor<2x2x3xf32>, %b: tensor<3x3x4xf32>) {
  // expected-error @+1 {{'fnc.matmul' op matmul batch dimensions: shapes [2] and [3] are not broadcast-compatible}}
  %0 = fnc.matmul %a, %b : tensor<2x2x3xf32>, tensor<3x3x4xf32>
  return
}

// -----

func.func @conv_rank(%x: tensor<5x5x3xf32>, %w: tensor<3x3x3x8xf32>) {
  // expected-error @+1 {{'fnc.conv2d' op conv2d needs a rank-4 NHWC input and a rank-4 HWCF filter, got [5, 5, 3] and [3, 3, 3, 8]}}
  %0 = fnc.conv2d %x, %w strides [1, 1] padding valid : tensor<5x5x3xf32>, tensor<3x3x3x8xf32>
  return
}

// -----

func.func @conv_channels(%x: tensor<1x5x5x3xf32>, %w: tensor<3x3x4x8xf32>) {
  // expected-error @+1 {{'fnc.conv2d' op conv2d input channels (3) differ from the filter's input channels (4)}}
  %0 = fnc.conv2d %x, %w strides [1, 1] padding valid : tensor<1x5x5x3xf32>, tensor<3x3x4x8xf32>
  return
}

// -----

func.func @conv_strides(%x: tensor<1x5x5x3xf32>, %w: tensor<3x3x3x8xf32>) {
  // expected-error @+1 {{'fnc.conv2d' op conv2d strides must be >= 1, got [0, 1]}}
  %0 = fnc.conv2d %x, %w strides [0, 1] padding valid : tensor<1x5x5x3xf32>, tensor<3x3x3x8xf32>
  return
}

// -----

func.func @conv_stride_count(%x: tensor<1x5x5x3xf32>, %w: tensor<3x3x3x8xf32>) {
  // expected-error @+1 {{'fnc.conv2d' op needs 2 strides (height, width), got 1}}
  %0 = fnc.conv2d %x, %w strides [1] padding valid : tensor<1x5x5x3xf32>, tensor<3x3x3x8xf32>
  return
}

// -----

func.func @conv_filter_too_big(%x: tensor<1x2x2x3xf32>, %w: tensor<3x3x3x8xf32>) {
  // expected-error @+1 {{'fnc.conv2d' op conv2d with valid padding: filter [3, 3, 3, 8] is larger than the input [1, 2, 2, 3]; use same padding or a smaller filter}}
  %0 = fnc.conv2d %x, %w strides [1, 1] padding valid : tensor<1x2x2x3xf32>, tensor<3x3x3x8xf32>
  return
}

// -----

func.func @conv_padding(%x: tensor<1x5x5x3xf32>, %w: tensor<3x3x3x8xf32>) {
  // expected-error @+1 {{expected string or keyword containing one of the following enum values for attribute 'padding' [valid, same]}}
  %0 = fnc.conv2d %x, %w strides [1, 1] padding full : tensor<1x5x5x3xf32>, tensor<3x3x3x8xf32>
  return
}

// -----

func.func @pool_rank(%x: tensor<5x5x3xf32>) {
  // expected-error @+1 {{'fnc.max_pool2d' op max_pool2d needs a rank-4 NHWC input, got [5, 5, 3]}}
  %0 = fnc.max_pool2d %x ksize [2, 2] strides [2, 2] padding valid : tensor<5x5x3xf32>
  return
}

// -----

func.func @pool_ksize_count(%x: tensor<1x5x5x3xf32>) {
  // expected-error @+1 {{'fnc.avg_pool2d' op avg_pool2d ksize must have 2 entries (height, width), got 3}}
  %0 = fnc.avg_pool2d %x ksize [2, 2, 1] strides [2, 2] padding valid : tensor<1x5x5x3xf32>
  return
}

// -----

func.func @pool_ksize(%x: tensor<1x5x5x3xf32>) {
  // expected-error @+1 {{'fnc.max_pool2d' op max_pool2d ksize must be >= 1, got [0, 2]}}
  %0 = fnc.max_pool2d %x ksize [0, 2] strides [2, 2] padding same : tensor<1x5x5x3xf32>
  return
}

// -----

func.func @pool_stride_count(%x: tensor<1x5x5x3xf32>) {
  // expected-error @+1 {{'fnc.max_pool2d' op max_pool2d strides must have 2 entries (height, width), got 1}}
  %0 = fnc.max_pool2d %x ksize [2, 2] strides [2] padding valid : tensor<1x5x5x3xf32>
  return
}

// -----

func.func @pool_strides(%x: tensor<1x5x5x3xf32>) {
  // expected-error @+1 {{'fnc.avg_pool2d' op avg_pool2d strides must be >= 1, got [1, -1]}}
  %0 = fnc.avg_pool2d %x ksize [2, 2] strides [1, -1] padding valid : tensor<1x5x5x3xf32>
  return
}

// -----

func.func @pool_window_too_big(%x: tensor<1x2x5x3xf32>) {
  // expected-error @+1 {{'fnc.max_pool2d' op max_pool2d with valid padding: window [3, 3] is larger than the input [1, 2, 5, 3]; use same padding or a smaller window}}
  %0 = fnc.max_pool2d %x ksize [3, 3] strides [1, 1] padding valid : tensor<1x2x5x3xf32>
  return
}

// -----

func.func @pool_integer(%x: tensor<1x4x4x3xi32>) {
  // expected-error @+1 {{'fnc.max_pool2d' op operand #0 must be ranked tensor of 32-bit float or 64-bit float values}}
  %0 = fnc.max_pool2d %x ksize [2, 2] strides [2, 2] padding valid : tensor<1x4x4x3xi32>
  return
}

// -----

func.func @pool_result_type(%x: tensor<1x4x4x3xf32>) {
  // expected-error @+2 {{'fnc.avg_pool2d' op inferred type(s) 'tensor<1x2x2x3xf32>' are incompatible with return type(s) of operation 'tensor<1x4x4x3xf32>'}}
  // expected-error @+1 {{'fnc.avg_pool2d' op failed to infer returned types}}
  %0 = "fnc.avg_pool2d"(%x) <{ksize = array<i64: 2, 2>, padding = 0 : i32, strides = array<i64: 2, 2>}> : (tensor<1x4x4x3xf32>) -> tensor<1x4x4x3xf32>
  return
}

// -----

func.func @pool_grad_shape(%x: tensor<1x4x4x3xf32>, %dy: tensor<1x3x2x3xf32>) {
  // expected-error @+1 {{'fnc.max_pool2d_grad' op max_pool2d_grad: the output gradient [1, 3, 2, 3] does not have the pooled shape [1, 2, 2, 3] of the input [1, 4, 4, 3]; pass the gradient of the pooling op's result}}
  %0 = fnc.max_pool2d_grad %x, %dy ksize [2, 2] strides [2, 2] padding valid : tensor<1x4x4x3xf32>, tensor<1x3x2x3xf32>
  return
}

// -----

func.func @pool_grad_dtype(%x: tensor<1x4x4x3xf32>, %dy: tensor<1x2x2x3xf64>) {
  // expected-error @+1 {{'fnc.avg_pool2d_grad' op requires the same element type for all operands and results}}
  %0 = fnc.avg_pool2d_grad %x, %dy ksize [2, 2] strides [2, 2] padding valid : tensor<1x4x4x3xf32>, tensor<1x2x2x3xf64>
  return
}

// -----

func.func @transpose_perm_size(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{'fnc.transpose' op permutation [0] has 1 entries but the operand has rank 2}}
  %0 = fnc.transpose %a perm [0] : tensor<2x3xf32>
  return
}

// -----

func.func @transpose_not_perm(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{'fnc.transpose' op permutation [1, 1] is not a permutation of [0, 2)}}
  %0 = fnc.transpose %a perm [1, 1] : tensor<2x3xf32>
  return
}

// -----

func.func @reshape_count(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{'fnc.reshape' op cannot reshape [2, 3] (6 elements) to [4, 2] (8 elements); the element count must stay the same}}
  %0 = fnc.reshape %a : tensor<2x3xf32> -> tensor<4x2xf32>
  return
}

// -----

func.func @reshape_indivisible(%a: tensor<?x3xf32>) {
  // expected-error @+1 {{'fnc.reshape' op result 'tensor<?x?xf32>' has more than one dynamic dimension}}
  %0 = fnc.reshape %a : tensor<?x3xf32> -> tensor<?x?xf32>
  return
}

// -----

func.func @reshape_dtype(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{'fnc.reshape' op cannot change the element type ('f32' to 'i32'); use fnc.cast}}
  %0 = fnc.reshape %a : tensor<2x3xf32> -> tensor<6xi32>
  return
}

// -----

func.func @reshape_known_dynamic(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{'fnc.reshape' op the dynamic dimension of 'tensor<?x2xf32>' is known from the static input 'tensor<2x3xf32>'; use the static result type 'tensor<3x2xf32>'}}
  %0 = fnc.reshape %a : tensor<2x3xf32> -> tensor<?x2xf32>
  return
}

// -----

func.func @reshape_not_divisible(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{'fnc.reshape' op cannot reshape [2, 3] (6 elements) to [?, 4]}}
  %0 = fnc.reshape %a : tensor<2x3xf32> -> tensor<?x4xf32>
  return
}

// -----

func.func @broadcast_to_bad(%a: tensor<3xf32>) {
  // expected-error @+1 {{'fnc.broadcast_to' op cannot broadcast shape [3] to [2, 4]; each dimension must match or be 1}}
  %0 = fnc.broadcast_to %a : tensor<3xf32> -> tensor<2x4xf32>
  return
}

// -----

func.func @broadcast_to_dims(%a: tensor<3xf32>, %n: index) {
  // expected-error @+1 {{'fnc.broadcast_to' op result 'tensor<2x3xf32>' has 0 dynamic dimension(s) but 1 size operand(s) were given}}
  %0 = fnc.broadcast_to %a [%n] : tensor<3xf32> -> tensor<2x3xf32>
  return
}

// -----

func.func @broadcast_to_dtype(%a: tensor<3xf32>) {
  // expected-error @+1 {{'fnc.broadcast_to' op cannot change the element type ('f32' to 'f64'); use fnc.cast}}
  %0 = fnc.broadcast_to %a : tensor<3xf32> -> tensor<2x3xf64>
  return
}

// -----

func.func @expand_dims_axis(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{'fnc.expand_dims' op expand_dims axis 3 is out of range for rank 3 (valid: -3 to 2)}}
  %0 = fnc.expand_dims %a axis 3 : tensor<2x3xf32>
  return
}

// -----

func.func @squeeze_not_one(%a: tensor<2x1xf32>) {
  // expected-error @+1 {{'fnc.squeeze' op cannot squeeze axis 0 of shape [2, 1]: its size is 2, not 1}}
  %0 = fnc.squeeze %a axes [0] : tensor<2x1xf32>
  return
}

// -----

func.func @squeeze_axis(%a: tensor<2x1xf32>) {
  // expected-error @+1 {{'fnc.squeeze' op squeeze axis -3 is out of range for rank 2 (valid: -2 to 1)}}
  %0 = fnc.squeeze %a axes [-3] : tensor<2x1xf32>
  return
}

// -----

func.func @slice_count(%a: tensor<4x4xf32>) {
  // expected-error @+1 {{'fnc.slice' op slice of a rank-2 operand needs 2 offsets, sizes and strides, got 1, 2 and 2}}
  %0 = fnc.slice %a offsets [0] sizes [2, 2] strides [1, 1] : tensor<4x4xf32>
  return
}

// -----

func.func @slice_negative(%a: tensor<4x4xf32>) {
  // expected-error @+1 {{'fnc.slice' op slice dimension 1: offset must be >= 0, size >= 0 or -1 (to the end) and stride >= 1 (got offset 0, size 2, stride 0)}}
  %0 = fnc.slice %a offsets [0, 0] sizes [2, 2] strides [1, 0] : tensor<4x4xf32>
  return
}

// -----

func.func @slice_bounds(%a: tensor<4x4xf32>) {
  // expected-error @+1 {{'fnc.slice' op slice dimension 0 reads element 4 but the operand [4, 4] has only 4}}
  %0 = fnc.slice %a offsets [2, 0] sizes [2, 2] strides [2, 1] : tensor<4x4xf32>
  return
}

// -----

func.func @slice_size_below_to_end(%a: tensor<?x4xf32>) {
  // expected-error @+1 {{'fnc.slice' op slice dimension 0: offset must be >= 0, size >= 0 or -1 (to the end) and stride >= 1 (got offset 0, size -2, stride 1)}}
  %0 = fnc.slice %a offsets [0, 0] sizes [-2, 2] strides [1, 1] : tensor<?x4xf32>
  return
}

// -----

func.func @slice_to_end_past_the_end(%a: tensor<?x4xf32>) {
  // expected-error @+1 {{'fnc.slice' op slice dimension 1 starts at 5 but the operand [?, 4] has only 4}}
  %0 = fnc.slice %a offsets [0, 5] sizes [-1, -1] strides [1, 1] : tensor<?x4xf32>
  return
}

// -----

func.func @slice_to_end_type(%a: tensor<?x4xf32>) {
  // expected-error @+2 {{'fnc.slice' op inferred type(s) 'tensor<?x2xf32>' are incompatible with return type(s) of operation 'tensor<3x2xf32>'}}
  // expected-error @+1 {{'fnc.slice' op failed to infer returned types}}
  %0 = "fnc.slice"(%a) {offsets = array<i64: 0, 1>, sizes = array<i64: -1, 2>, strides = array<i64: 1, 1>} : (tensor<?x4xf32>) -> tensor<3x2xf32>
  return
}

// -----

func.func @pad_count(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{'fnc.pad' op pad of a rank-2 operand needs 2 low, high and interior amounts, got 2, 1 and 2}}
  %0 = fnc.pad %a low [0, 0] high [0] interior [0, 0] value 0.0 : tensor<2x3xf32>
  return
}

// -----

func.func @pad_negative(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{'fnc.pad' op pad dimension 1: the amounts must be >= 0 (got low 0, high 0, interior -1)}}
  %0 = fnc.pad %a low [0, 0] high [0, 0] interior [0, -1] value 0.0 : tensor<2x3xf32>
  return
}

// -----

func.func @pad_type(%a: tensor<?x3xf32>) {
  // expected-error @+2 {{'fnc.pad' op inferred type(s) 'tensor<?x5xf32>' are incompatible with return type(s) of operation 'tensor<2x5xf32>'}}
  // expected-error @+1 {{'fnc.pad' op failed to infer returned types}}
  %0 = "fnc.pad"(%a) {low = array<i64: 0, 1>, high = array<i64: 0, 1>, interior = array<i64: 0, 0>, value = 0.0 : f64} : (tensor<?x3xf32>) -> tensor<2x5xf32>
  return
}

// -----

func.func @concat_rank(%a: tensor<2x3xf32>, %b: tensor<3xf32>) {
  // expected-error @+1 {{'fnc.concat' op concat operands must have the same rank: [2, 3] vs [3]}}
  %0 = fnc.concat %a, %b axis 0 : tensor<2x3xf32>, tensor<3xf32>
  return
}

// -----

func.func @concat_dims(%a: tensor<2x3xf32>, %b: tensor<2x4xf32>) {
  // expected-error @+1 {{'fnc.concat' op concat operands differ in dimension 1 (not the concat axis): [2, 3] vs [2, 4]}}
  %0 = fnc.concat %a, %b axis 0 : tensor<2x3xf32>, tensor<2x4xf32>
  return
}

// -----

func.func @concat_axis(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{'fnc.concat' op concat axis 2 is out of range for rank 2 (valid: -2 to 1)}}
  %0 = fnc.concat %a, %a axis 2 : tensor<2x3xf32>, tensor<2x3xf32>
  return
}

// -----

func.func @concat_empty() {
  // expected-error @+1 {{'fnc.concat' op expected 1 or more operands, but found 0}}
  %0 = "fnc.concat"() {axis = 0 : i64} : () -> tensor<2xf32>
  return
}

// -----

func.func @gather_axis(%p: tensor<5x3xf32>, %i: tensor<2xi64>) {
  // expected-error @+1 {{'fnc.gather' op gather axis 2 is out of range for rank 2 (valid: -2 to 1)}}
  %0 = fnc.gather %p, %i axis 2 : tensor<5x3xf32>, tensor<2xi64>
  return
}

// -----

func.func @gather_float_indices(%p: tensor<5x3xf32>, %i: tensor<2xf32>) {
  // expected-error @+1 {{'fnc.gather' op operand #1 must be ranked tensor of 32-bit signless integer or 64-bit signless integer values, but got 'tensor<2xf32>'}}
  %0 = fnc.gather %p, %i axis 0 : tensor<5x3xf32>, tensor<2xf32>
  return
}

// -----

func.func @one_hot_shape(%i: tensor<3xi64>) {
  // expected-error @+1 {{'fnc.one_hot' op result type 'tensor<4x3xf32>' does not match the one-hot shape 'tensor<3x4xf32>'}}
  %0 = fnc.one_hot %i depth 4 axis -1 on 1.0 off 0.0 : tensor<3xi64> -> tensor<4x3xf32>
  return
}

// -----

func.func @one_hot_depth(%i: tensor<3xi64>) {
  // expected-error @+1 {{'fnc.one_hot' op one_hot depth must be >= 0, got -1}}
  %0 = fnc.one_hot %i depth -1 axis -1 on 1.0 off 0.0 : tensor<3xi64> -> tensor<3x4xf32>
  return
}

// -----

func.func @one_hot_axis(%i: tensor<3xi64>) {
  // expected-error @+1 {{'fnc.one_hot' op one_hot axis 2 is out of range for rank 2 (valid: -2 to 1)}}
  %0 = fnc.one_hot %i depth 4 axis 2 on 1.0 off 0.0 : tensor<3xi64> -> tensor<3x4xf32>
  return
}

// -----

func.func @reduce_axis(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{'fnc.sum' op reduction axis 2 is out of range for rank 2 (valid: -2 to 1)}}
  %0 = fnc.sum %a axes [2] : tensor<2x3xf32>
  return
}

// -----

func.func @reduce_duplicate(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{'fnc.max' op reduction axis -1 is given twice}}
  %0 = fnc.max %a axes [1, -1] : tensor<2x3xf32>
  return
}

// -----

func.func @argmax_axis(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{'fnc.argmax' op axis 2 is out of range for rank 2 (valid: -2 to 1)}}
  %0 = fnc.argmax %a axis 2 : tensor<2x3xf32> -> tensor<2xi64>
  return
}

// -----

func.func @argmax_result(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{'fnc.argmax' op result type 'tensor<3xi64>' does not match the reduced shape 'tensor<2xi64>'}}
  %0 = fnc.argmax %a axis 1 : tensor<2x3xf32> -> tensor<3xi64>
  return
}

// -----

func.func @softmax_axis(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{'fnc.softmax' op axis -3 is out of range for 'tensor<2x3xf32>' (valid: -2 to 1)}}
  %0 = fnc.softmax %a axis -3 : tensor<2x3xf32>
  return
}

// -----

func.func @log_softmax_axis(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{'fnc.log_softmax' op axis 2 is out of range for 'tensor<2x3xf32>' (valid: -2 to 1)}}
  %0 = fnc.log_softmax %a axis 2 : tensor<2x3xf32>
  return
}

// -----

// expected-error @+1 {{variable of 'tensor<2xf16>': the element type must be one of f32, f64, i1, i32, i64}}
func.func @variable_dtype(%v: !fnc.variable<tensor<2xf16>>) {
  return
}

// -----

func.func @var_read_not_variable(%a: tensor<2xf32>) {
  // expected-error @+1 {{'fnc.var_read' op operand #0 must be handle to a mutable tensor (!fnc.variable), but got 'tensor<2xf32>'}}
  %0 = "fnc.var_read"(%a) : (tensor<2xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @var_assign_type(%v: !fnc.variable<tensor<2xf32>>, %a: tensor<3xf32>) {
  // expected-error @+1 {{'fnc.var_assign' op failed to verify that value has the variable's tensor type}}
  "fnc.var_assign"(%v, %a) : (!fnc.variable<tensor<2xf32>>, tensor<3xf32>) -> ()
  return
}

// -----

func.func @cond_pred(%a: tensor<2xf32>, %p: tensor<2xi1>) {
  // expected-error @+1 {{'fnc.cond' op operand #0 must be 0D tensor of 1-bit signless integer values, but got 'tensor<2xi1>'}}
  %0 = fnc.cond %p : tensor<2xi1> -> tensor<2xf32> {
    fnc.yield %a : tensor<2xf32>
  } else {
    fnc.yield %a : tensor<2xf32>
  }
  return
}

// -----

func.func @cond_yield_type(%a: tensor<2xf32>, %p: tensor<i1>) {
  // expected-error @+1 {{'fnc.cond' op along control flow edge from Operation fnc.yield to parent: successor operand type #0 'tensor<i1>' should match successor input type #0 'tensor<2xf32>'}}
  %0 = fnc.cond %p : tensor<i1> -> tensor<2xf32> {
    fnc.yield %a : tensor<2xf32>
  } else {
    // expected-note @+1 {{region branch point}}
    fnc.yield %p : tensor<i1>
  }
  return
}

// -----

func.func @cond_yield_count(%a: tensor<2xf32>, %p: tensor<i1>) {
  // expected-error @+1 {{'fnc.cond' op along control flow edge from Operation fnc.yield to parent: region branch point has 0 operands, but region successor needs 1 inputs}}
  %0 = fnc.cond %p : tensor<i1> -> tensor<2xf32> {
    fnc.yield %a : tensor<2xf32>
  } else {
    // expected-note @+1 {{region branch point}}
    fnc.yield
  }
  return
}

// -----

func.func @while_arg_types(%a: tensor<2xf32>) {
  // expected-error @+2 {{'fnc.while' op along control flow edge from parent to Region #0: successor operand type #0 'tensor<2xf32>' should match successor input type #0 'tensor<3xf32>'}}
  // expected-note @+1 {{region branch point}}
  %0 = fnc.while (%a) : tensor<2xf32> cond {
  ^bb0(%x: tensor<3xf32>):
    %c = fnc.constant dense<true> : tensor<i1>
    fnc.condition %c, %x : tensor<i1>, tensor<3xf32>
  } do {
  ^bb0(%x: tensor<2xf32>):
    fnc.yield %x : tensor<2xf32>
  }
  return
}

// -----

func.func @while_cond_terminator(%a: tensor<2xf32>) {
  // expected-error @+1 {{'fnc.while' op the cond region must end with fnc.condition}}
  %0 = fnc.while (%a) : tensor<2xf32> cond {
  ^bb0(%x: tensor<2xf32>):
    fnc.yield %x : tensor<2xf32>
  } do {
  ^bb0(%x: tensor<2xf32>):
    fnc.yield %x : tensor<2xf32>
  }
  return
}

// -----

func.func @while_forwarded_types(%a: tensor<2xf32>, %p: tensor<i1>) {
  // expected-error @+1 {{'fnc.while' op}}
  %0 = fnc.while (%a) : tensor<2xf32> cond {
  ^bb0(%x: tensor<2xf32>):
    // expected-note @+1 {{}}
    fnc.condition %p, %p : tensor<i1>, tensor<i1>
  } do {
  ^bb0(%x: tensor<2xf32>):
    fnc.yield %x : tensor<2xf32>
  }
  return
}

// -----

func.func @while_body_types(%a: tensor<2xf32>, %p: tensor<i1>) {
  // expected-error @+1 {{'fnc.while' op}}
  %0 = fnc.while (%a) : tensor<2xf32> cond {
  ^bb0(%x: tensor<2xf32>):
    fnc.condition %p, %x : tensor<i1>, tensor<2xf32>
  } do {
  ^bb0(%x: tensor<2xf32>):
    // expected-note @+1 {{}}
    fnc.yield %p : tensor<i1>
  }
  return
}

// -----

func.func @while_body_terminator(%a: tensor<2xf32>, %p: tensor<i1>) {
  // expected-error @+1 {{'fnc.while' op the body region must end with fnc.yield}}
  %0 = fnc.while (%a) : tensor<2xf32> cond {
  ^bb0(%x: tensor<2xf32>):
    fnc.condition %p, %x : tensor<i1>, tensor<2xf32>
  } do {
  ^bb0(%x: tensor<2xf32>):
    fnc.condition %p, %x : tensor<i1>, tensor<2xf32>
  }
  return
}

// -----

func.func @condition_outside_while(%p: tensor<i1>) {
  // expected-error @+1 {{'fnc.condition' op expects parent op 'fnc.while'}}
  fnc.condition %p : tensor<i1>
  return
}

// -----

func.func @yield_outside(%a: tensor<2xf32>) {
  // expected-error @+1 {{'fnc.yield' op expects parent op to be one of 'fnc.cond, fnc.while'}}
  fnc.yield %a : tensor<2xf32>
}

// -----

func.func @print_placeholders(%a: tensor<2xf32>) {
  // expected-error @+1 {{'fnc.print' op format "{} and {}" has 2 '{}' placeholder(s) but 1 tensor(s) are printed; use one '{}' per tensor, or none}}
  fnc.print "{} and {}" %a : tensor<2xf32>
  return
}

// -----

func.func @random_range() {
  // expected-error @+1 {{'fnc.random_uniform' op needs min < max, got min 1 and max 0}}
  %0 = fnc.random_uniform min 1.0 max 0.0 : tensor<2xf32>
  return
}

// -----

func.func @random_stddev() {
  // expected-error @+1 {{'fnc.random_normal' op needs stddev >= 0, got -1}}
  %0 = fnc.random_normal mean 0.0 stddev -1.0 : tensor<2xf32>
  return
}

// -----

func.func @random_dims() {
  // expected-error @+1 {{'fnc.random_normal' op result 'tensor<?xf32>' has 1 dynamic dimension(s) but 0 size operand(s) were given}}
  %0 = fnc.random_normal mean 0.0 stddev 1.0 : tensor<?xf32>
  return
}

// -----

func.func @random_int() {
  // expected-error @+1 {{'fnc.random_uniform' op result #0 must be ranked tensor of 32-bit float or 64-bit float values, but got 'tensor<2xi32>'}}
  %0 = fnc.random_uniform min 0.0 max 1.0 : tensor<2xi32>
  return
}

// -----

func.func @constant_dtype() {
  // expected-error @+1 {{'fnc.constant' op result #0 must be ranked tensor of}}
  %0 = fnc.constant dense<1.0> : tensor<2xf16>
  return
}

// -----

func.func @unknown_dtype(%a: tensor<2xf32>) {
  // expected-error @+1 {{expected non-function type}}
  %0 = fnc.neg %a : tensor<2xfloat>
  return
}

// -----

func.func @shape_of_length(%a: tensor<?x3xf32>) {
  // expected-error @+1 {{'fnc.shape_of' op result 'tensor<3xi32>' must have one element per dimension of the input (2)}}
  %0 = fnc.shape_of %a : tensor<?x3xf32> -> tensor<3xi32>
  return
}

// -----

func.func @shape_of_dtype(%a: tensor<?x3xf32>) {
  // expected-error @+1 {{'fnc.shape_of' op result #0 must be 1D tensor of}}
  %0 = fnc.shape_of %a : tensor<?x3xf32> -> tensor<2xf32>
  return
}

// -----

func.func @broadcast_to_shape_length(%a: tensor<f32>, %s: tensor<3xi32>) {
  // expected-error @+1 {{'fnc.broadcast_to_shape' op the shape operand 'tensor<3xi32>' must have one element per dimension of the result 'tensor<?x3xf32>'}}
  %0 = fnc.broadcast_to_shape %a, %s : tensor<f32>, tensor<3xi32> -> tensor<?x3xf32>
  return
}

// -----

func.func @broadcast_to_shape_rule(%a: tensor<4xf32>, %s: tensor<2xi32>) {
  // expected-error @+1 {{'fnc.broadcast_to_shape' op}}
  %0 = fnc.broadcast_to_shape %a, %s : tensor<4xf32>, tensor<2xi32> -> tensor<?x3xf32>
  return
}

// -----

func.func @broadcast_to_shape_dtype(%a: tensor<f32>, %s: tensor<2xi32>) {
  // expected-error @+1 {{'fnc.broadcast_to_shape' op cannot change the element type ('f32' to 'i32'); use fnc.cast}}
  %0 = fnc.broadcast_to_shape %a, %s : tensor<f32>, tensor<2xi32> -> tensor<?x3xi32>
  return
}

// -----

func.func @sum_to_shape_length(%a: tensor<2x3xf32>, %s: tensor<3xi32>) {
  // expected-error @+1 {{'fnc.sum_to_shape' op the shape operand 'tensor<3xi32>' must have one element per dimension of the result 'tensor<?x3xf32>'}}
  %0 = fnc.sum_to_shape %a, %s : tensor<2x3xf32>, tensor<3xi32> -> tensor<?x3xf32>
  return
}

// -----

func.func @sum_to_shape_rule(%a: tensor<2x3xf32>, %s: tensor<2xi32>) {
  // expected-error @+1 {{'fnc.sum_to_shape' op cannot broadcast shape [?, 4] to [2, 3]; each dimension must match or be 1}}
  %0 = fnc.sum_to_shape %a, %s : tensor<2x3xf32>, tensor<2xi32> -> tensor<?x4xf32>
  return
}

// -----

func.func @sum_to_shape_dtype(%a: tensor<2x3xf32>, %s: tensor<1xi32>) {
  // expected-error @+1 {{'fnc.sum_to_shape' op cannot change the element type ('f32' to 'f64'); use fnc.cast}}
  %0 = fnc.sum_to_shape %a, %s : tensor<2x3xf32>, tensor<1xi32> -> tensor<3xf64>
  return
}

// -----

func.func @dynamic_slice_axis(%a: tensor<4x3xf32>, %i: tensor<i64>) {
  // expected-error @+1 {{'fnc.dynamic_slice' op axis 2 is out of range for rank 2}}
  %0 = fnc.dynamic_slice %a[%i, %i] axis 2 : tensor<4x3xf32>, tensor<i64>, tensor<i64> -> tensor<4x?xf32>
  return
}

// -----

func.func @dynamic_slice_static(%a: tensor<4x3xf32>, %i: tensor<i64>) {
  // expected-error @+1 {{'fnc.dynamic_slice' op the result's dim 0 (the axis) must be unknown (?): the size is read at run time}}
  %0 = fnc.dynamic_slice %a[%i, %i] axis 0 : tensor<4x3xf32>, tensor<i64>, tensor<i64> -> tensor<2x3xf32>
  return
}

// -----

func.func @dynamic_slice_other_dim(%a: tensor<4x3xf32>, %i: tensor<i64>) {
  // expected-error @+1 {{'fnc.dynamic_slice' op the result 'tensor<?x2xf32>' differs from the input 'tensor<4x3xf32>' in a dim other than the axis}}
  %0 = fnc.dynamic_slice %a[%i, %i] axis 0 : tensor<4x3xf32>, tensor<i64>, tensor<i64> -> tensor<?x2xf32>
  return
}

// -----

func.func @reshape_to_shape_rank(%a: tensor<6xf32>, %s: tensor<3xi64>) {
  // expected-error @+1 {{'fnc.reshape_to_shape' op the shape operand 'tensor<3xi64>' must have one element per dimension of the result 'tensor<?x?xf32>'}}
  %0 = fnc.reshape_to_shape %a, %s : tensor<6xf32>, tensor<3xi64> -> tensor<?x?xf32>
  return
}

// -----

func.func @reshape_to_shape_count(%a: tensor<6xf32>, %s: tensor<2xi64>) {
  // expected-error @+1 {{'fnc.reshape_to_shape' op the result 'tensor<2x2xf32>' does not hold the input's 6 elements}}
  %0 = fnc.reshape_to_shape %a, %s : tensor<6xf32>, tensor<2xi64> -> tensor<2x2xf32>
  return
}

// -----

func.func @dynamic_update_slice_axis(%a: tensor<4x3xf32>, %i: tensor<i64>, %u: tensor<1x3xf32>) {
  // expected-error @+1 {{'fnc.dynamic_update_slice' op axis 2 is out of range for rank 2}}
  %0 = fnc.dynamic_update_slice %a[%i], %u axis 2 : tensor<4x3xf32>, tensor<i64>, tensor<1x3xf32>
  return
}

// -----

func.func @dynamic_update_slice_too_long(%a: tensor<4x3xf32>, %i: tensor<i64>, %u: tensor<5x3xf32>) {
  // expected-error @+1 {{'fnc.dynamic_update_slice' op the update 'tensor<5x3xf32>' does not fit the input 'tensor<4x3xf32>' along the axis}}
  %0 = fnc.dynamic_update_slice %a[%i], %u axis 0 : tensor<4x3xf32>, tensor<i64>, tensor<5x3xf32>
  return
}

// -----

func.func @dynamic_update_slice_other_dim(%a: tensor<4x3xf32>, %i: tensor<i64>, %u: tensor<1x2xf32>) {
  // expected-error @+1 {{'fnc.dynamic_update_slice' op the update 'tensor<1x2xf32>' does not fit the input 'tensor<4x3xf32>' in a dim other than the axis}}
  %0 = fnc.dynamic_update_slice %a[%i], %u axis 0 : tensor<4x3xf32>, tensor<i64>, tensor<1x2xf32>
  return
}

// -----

func.func @set_row_rank(%a: tensor<f32>, %i: tensor<i32>, %v: tensor<f32>) {
  // expected-error @+1 {{'fnc.set_row' op the input must have rank >= 1 (rows along dim 0)}}
  %0 = fnc.set_row %a[%i], %v : tensor<f32>, tensor<i32>, tensor<f32>
  return
}

// -----

func.func @set_row_shape(%a: tensor<4x3xf32>, %i: tensor<i32>, %v: tensor<4xf32>) {
  // expected-error @+1 {{'fnc.set_row' op the value 'tensor<4xf32>' is not a row of 'tensor<4x3xf32>' (its shape without dim 0)}}
  %0 = fnc.set_row %a[%i], %v : tensor<4x3xf32>, tensor<i32>, tensor<4xf32>
  return
}

// -----

func.func @set_row_dtype(%a: tensor<4x3xf32>, %i: tensor<i32>, %v: tensor<3xf64>) {
  // expected-error @+1 {{'fnc.set_row' op the value's element type 'f64' differs from the input's 'f32'}}
  %0 = fnc.set_row %a[%i], %v : tensor<4x3xf32>, tensor<i32>, tensor<3xf64>
  return
}

// -----

func.func @set_row_index(%a: tensor<4x3xf32>, %i: tensor<2xi32>, %v: tensor<3xf32>) {
  // expected-error @+1 {{'fnc.set_row' op operand #1 must be 0D tensor of}}
  %0 = fnc.set_row %a[%i], %v : tensor<4x3xf32>, tensor<2xi32>, tensor<3xf32>
  return
}

// -----

func.func @strided_slice_stride_zero(%a: tensor<4xf32>) {
  // expected-error @+1 {{'fnc.strided_slice' op dimension 0: the stride is 0; strides must be non-zero (and above -2^63)}}
  %0 = fnc.strided_slice %a [0:2:0] : tensor<4xf32>
  return
}

// -----

func.func @strided_slice_stride_min(%a: tensor<?xf32>) {
  // expected-error @+1 {{'fnc.strided_slice' op dimension 0: the stride is -9223372036854775808; strides must be non-zero}}
  %0 = fnc.strided_slice %a [::-9223372036854775808] : tensor<?xf32>
  return
}

// -----

func.func @strided_slice_count(%a: tensor<4x4xf32>) {
  // expected-error @+1 {{'fnc.strided_slice' op strided slice of a rank-2 operand needs 2 begins, ends, strides and shrink flags, got 1, 1, 1 and 1}}
  %0 = fnc.strided_slice %a [0:1] : tensor<4x4xf32>
  return
}

// -----

func.func @strided_slice_index_out_of_range(%a: tensor<4x?xf32>) {
  // expected-error @+1 {{'fnc.strided_slice' op index -5 is out of range for dimension 0 of size 4 (valid: -4 to 3)}}
  %0 = fnc.strided_slice %a [-5, 7] : tensor<4x?xf32>
  return
}

// -----

func.func @strided_slice_index_end(%a: tensor<4xf32>) {
  // expected-error @+2 {{'fnc.strided_slice' op dimension 0 is an index (shrink): its end must be 0 and its stride 1 (got end 3, stride 1)}}
  // expected-error @+1 {{'fnc.strided_slice' op failed to infer returned types}}
  %0 = "fnc.strided_slice"(%a) {begin = array<i64: 2>, end = array<i64: 3>, strides = array<i64: 1>, shrink = array<i1: true>} : (tensor<4xf32>) -> tensor<f32>
  return
}

// -----

func.func @strided_slice_type(%a: tensor<?x4xf32>) {
  // expected-error @+2 {{'fnc.strided_slice' op inferred type(s) 'tensor<?x2xf32>' are incompatible with return type(s) of operation 'tensor<3x2xf32>'}}
  // expected-error @+1 {{'fnc.strided_slice' op failed to infer returned types}}
  %0 = "fnc.strided_slice"(%a) {begin = array<i64: 1, 3>, end = array<i64: 4, -9223372036854775808>, strides = array<i64: 1, -2>, shrink = array<i1: false, false>} : (tensor<?x4xf32>) -> tensor<3x2xf32>
  return
}

// -----

func.func @strided_slice_syntax(%a: tensor<4xf32>) {
  // expected-error @+1 {{expected an index or a range `begin:end:stride` (each part optional)}}
  %0 = fnc.strided_slice %a [, 1] : tensor<4xf32>
  return
}

// -----

func.func @strided_slice_grad_shape(%a: tensor<4xf32>, %g: tensor<3xf32>) {
  // expected-error @+1 {{'fnc.strided_slice_grad' op the gradient has shape [3] but the slice of [4] has shape [2]}}
  %0 = fnc.strided_slice_grad %a, %g [1:3] : tensor<4xf32>, tensor<3xf32>
  return
}

// -----

func.func @strided_slice_grad_dtype(%a: tensor<4xf32>, %g: tensor<2xf64>) {
  // expected-error @+1 {{'fnc.strided_slice_grad' op requires the same element type for all operands and results}}
  %0 = fnc.strided_slice_grad %a, %g [1:3] : tensor<4xf32>, tensor<2xf64>
  return
}

// -----

func.func @assign_add_bool(%v: !fnc.variable<tensor<2xi1>>, %x: tensor<2xi1>) {
  // expected-error @+1 {{'fnc.var_assign_add' op needs a numeric variable, got a bool one}}
  fnc.var_assign_add %v, %x : !fnc.variable<tensor<2xi1>>
  return
}

// -----

func.func @assign_sub_bool(%v: !fnc.variable<tensor<i1>>, %x: tensor<i1>) {
  // expected-error @+1 {{'fnc.var_assign_sub' op needs a numeric variable, got a bool one}}
  fnc.var_assign_sub %v, %x : !fnc.variable<tensor<i1>>
  return
}

// -----

func.func @string_ordering(%a: tensor<2x!fnc.string>) {
  // expected-error @+1 {{strings are only compared with eq and ne, not lt}}
  %0 = fnc.compare lt, %a, %a : tensor<2x!fnc.string>, tensor<2x!fnc.string>
  return
}

// -----

func.func @string_join_shape(%a: tensor<2x!fnc.string>, %b: tensor<3x!fnc.string>) {
  // expected-error @+1 {{shapes [2] and [3] are not broadcast-compatible}}
  %0 = fnc.string_join %a, %b separator "" : (tensor<2x!fnc.string>, tensor<3x!fnc.string>) -> tensor<2x!fnc.string>
  return
}

// -----

func.func @string_join_result(%a: tensor<2x!fnc.string>) {
  // expected-error @+1 {{result type 'tensor<3x!fnc.string>' does not have the shape [2] of its operands}}
  %0 = fnc.string_join %a separator "" : (tensor<2x!fnc.string>) -> tensor<3x!fnc.string>
  return
}

// -----

func.func @string_format_holes(%a: tensor<2xf32>) {
  // expected-error @+1 {{format has 2 placeholders but 1 inputs are given}}
  %0 = fnc.string_format "{} {}" placeholder "{}" %a : (tensor<2xf32>) -> tensor<!fnc.string>
  return
}

// -----

func.func @string_split_rank(%a: tensor<2x2x!fnc.string>) {
  // expected-error @+1 {{splits a scalar or a 1-D tensor, not 'tensor<2x2x!fnc.string>'}}
  %0 = fnc.string_split %a separator "," maxsplit -1 : tensor<2x2x!fnc.string> -> tensor<2x2x?x!fnc.string>
  return
}

// -----

func.func @string_math(%a: tensor<2x!fnc.string>) {
  // expected-error @+1 {{operand #0 must be ranked tensor of}}
  %0 = fnc.add %a, %a : tensor<2x!fnc.string>, tensor<2x!fnc.string>
  return
}
