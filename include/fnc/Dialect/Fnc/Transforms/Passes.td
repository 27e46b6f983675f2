//===- Passes.td - fnc transformation passes ---------------*- tablegen -*-===//

#ifndef FNC_DIALECT_FNC_TRANSFORMS_PASSES
#define FNC_DIALECT_FNC_TRANSFORMS_PASSES

include "mlir/Pass/PassBase.td"

def FncParallelThreshold : Pass<"fnc-parallel-threshold", "::mlir::func::FuncOp"> {
  let summary = "Keep loop nests below a work threshold sequential";
  let description = [{
    Runs before `convert-scf-to-openmp`, which turns every `scf.parallel`
    into an OpenMP region whose fork/join costs microseconds. For each
    outermost `scf.parallel`, this pass estimates the work of its loop nest
    (the product of the trip counts of the parallel loop and of the nested
    loops whose bounds do not depend on it):

    - known and below `grain`: the nest becomes sequential `scf.for`s;
    - known and at least `grain`: it stays parallel;
    - only known at run time: the nest is versioned,
      `scf.if (work >= grain) { parallel } else { sequential }`.

    Upstream has the rewrite (`parallelForToNestedFors`) but no cost gate;
    this pass is the gate.

    Before (grain = 1024):
    ```mlir
    scf.parallel (%i) = (%c0) to (%c16) step (%c1) { ... }
    ```
    After:
    ```mlir
    scf.for %i = %c0 to %c16 step %c1 { ... }
    ```
  }];
  let options = [
    Option<"grain", "grain", "int64_t", /*default=*/"65536",
           "Minimum number of loop iterations of a nest to run it in parallel">,
  ];
  let dependentDialects = ["::mlir::scf::SCFDialect",
                           "::mlir::arith::ArithDialect"];
}

#endif // FNC_DIALECT_FNC_TRANSFORMS_PASSES
