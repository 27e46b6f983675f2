//===- Passes.td - Lowerings out of the fnc dialect --------*- tablegen -*-===//

#ifndef FNC_CONVERSION_PASSES
#define FNC_CONVERSION_PASSES

include "mlir/Pass/PassBase.td"

def FncLowerToLinalg : Pass<"fnc-lower-to-linalg", "::mlir::ModuleOp"> {
  let summary = "Lower fnc ops to linalg, tensor, arith, math and scf";
  let description = [{
    Rewrites every fnc op into upstream dialects on tensors, so that upstream
    fusion, One-Shot Bufferize and the LLVM lowerings do the rest:

    - elementwise ops (with numpy broadcasting) become `linalg.generic`s
      whose body is the scalar arith/math computation; broadcast operands
      are read through indexing maps, never materialized;
    - reductions become reduction `linalg.generic`s (float combiners carry
      `reassoc` when `fast-math` is set, so they vectorize); argmax,
      softmax and log_softmax are built from them;
    - matmul becomes `linalg.matmul`/`linalg.batch_matmul` (batch
      broadcasting through `linalg.generic`), conv2d
      `linalg.conv_2d_nhwc_hwcf` on a padded input;
    - max_pool2d/avg_pool2d become `linalg.generic`s over the output that
      read each window of an input padded with -inf/0 (taps unrolled for
      small windows; avg divides by each window's count of input
      elements); their gradient ops are generics over the input gradient
      that gather from the windows holding each element (max: only from
      windows whose first maximum it is);
    - shape ops become `tensor` ops (`expand_shape`/`collapse_shape`/
      `reshape`, `extract_slice`, `concat`, `linalg.transpose`) or generics;
    - `fnc.cond`/`fnc.while` become `scf.if`/`scf.while`;
    - variables become memref arguments of the function (the caller's
      buffer, updated in place); `fnc.print` and `fnc.random_*` call the fnc
      C runtime.

    Before:
    ```mlir
    %z = fnc.add %x, %y : tensor<4x4xf32>, tensor<4xf32>
    ```
    After:
    ```mlir
    %e = tensor.empty() : tensor<4x4xf32>
    %z = linalg.generic {indexing_maps = [(d0, d1) -> (d0, d1),
                                          (d0, d1) -> (d1),
                                          (d0, d1) -> (d0, d1)], ...}
        ins(%x, %y : tensor<4x4xf32>, tensor<4xf32>) outs(%e : tensor<4x4xf32>) {
    ^bb0(%a: f32, %b: f32, %out: f32):
      %s = arith.addf %a, %b : f32
      linalg.yield %s : f32
    } -> tensor<4x4xf32>
    ```
  }];
  let options = [
    Option<"fastMath", "fast-math", "bool", /*default=*/"true",
           "Let float reductions reassociate (needed to vectorize them)">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::bufferization::BufferizationDialect",
    "::mlir::func::FuncDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::math::MathDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect",
  ];
}

#endif // FNC_CONVERSION_PASSES
