//===- Passes.td - Passes on fnc dialect ops ---------------*- tablegen -*-===//
//
// Passes that work on fnc ops, before the lowering. The passes on the
// lowered code are in fnc/Codegen/Passes.td.
//
//===----------------------------------------------------------------------===//

#ifndef FNC_DIALECT_FNC_TRANSFORMS_PASSES
#define FNC_DIALECT_FNC_TRANSFORMS_PASSES

include "mlir/Pass/PassBase.td"

def FncCheckNumerics : Pass<"fnc-check-numerics", "::mlir::func::FuncOp"> {
  let summary = "Check every float result for NaN and Inf at run time";
  let description = [{
    The compiled counterpart of a check-numerics debugging mode: after every
    fnc op that produces a float tensor, inserts `fnc.check_numerics` with
    a message naming the op and its location, so a run reports the first
    op that produced a NaN or an Inf instead of a wrong result.

    Before:
    ```mlir
    %y = fnc.log %x : tensor<4xf32>
    ```
    After:
    ```mlir
    %y = fnc.log %x : tensor<4xf32>
    fnc.check_numerics %y "fnc.log at f.mlir:2:8" : tensor<4xf32>
    ```
  }];
}

def FncNameOpLocations
    : Pass<"fnc-name-op-locations", "::mlir::func::FuncOp"> {
  let summary = "Name each fnc op's location after the op";
  let description = [{
    Wraps the location of every fnc op in a name location holding the op's
    name, so that the code lowered from it (which takes the op's location)
    still says which fnc op it came from after lowering and fusion:
    `-fnc-profile-kernels` names each kernel it times by the fnc ops found
    inside. Nothing else changes.

    Before:
    ```mlir
    %y = fnc.exp %x : tensor<4xf32> loc("f.mlir":2:8)
    ```
    After:
    ```mlir
    %y = fnc.exp %x : tensor<4xf32> loc("fnc.exp"("f.mlir":2:8))
    ```
  }];
}

#endif // FNC_DIALECT_FNC_TRANSFORMS_PASSES
