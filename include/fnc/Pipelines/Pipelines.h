//===- Pipelines.h - The one fnc compilation pipeline -----------*- C++ -*-===//
//
// The pipeline that takes a module of fnc (and upstream tensor) ops to the
// LLVM dialect. The JIT, `fnc-opt --fnc-pipeline` and the lit tests all run
// this function with these options, so what the tests check is what users
// run.
//
//===----------------------------------------------------------------------===//

#ifndef FNC_PIPELINES_PIPELINES_H
#define FNC_PIPELINES_PIPELINES_H

#include "mlir/Pass/PassOptions.h"

namespace mlir {
class OpPassManager;
class DialectRegistry;

namespace fnc {

struct PipelineOptions : public PassPipelineOptions<PipelineOptions> {
  Option<unsigned> optLevel{
      *this, "opt-level",
      llvm::cl::desc("LLVM optimization level of the generated code (0-3)"),
      llvm::cl::init(3)};
  Option<unsigned> threads{
      *this, "threads",
      llvm::cl::desc("Threads for parallel loops: 1 keeps every loop "
                     "sequential, 0 uses all cores"),
      llvm::cl::init(0)};
  Option<int64_t> parallelGrain{
      *this, "parallel-grain",
      llvm::cl::desc("Minimum number of elements a loop nest must touch to "
                     "run in parallel; smaller ones stay sequential"),
      llvm::cl::init(1 << 16)};
  Option<int64_t> outlineNests{
      *this, "outline-nests",
      llvm::cl::desc("Give each loop nest a function of its own in a "
                     "function of at least this many nests, so LLVM "
                     "compiles them apart and in parallel (0: never)"),
      llvm::cl::init(2)};
  Option<bool> fastMath{
      *this, "fast-math",
      llvm::cl::desc("Let float reductions reassociate, so they vectorize, "
                     "and compute f32 exp, log, tanh, erf, expm1, log1p "
                     "with vectorized polynomials (at most 5 ulp)"),
      llvm::cl::init(true)};
  Option<bool> checkNumerics{
      *this, "check-numerics",
      llvm::cl::desc("Check every float result for NaN and Inf at run time "
                     "and report the first op that produced one"),
      llvm::cl::init(false)};
  Option<bool> profileKernels{
      *this, "profile-kernels",
      llvm::cl::desc("Time each loop nest on the profiler's timeline "
                     "(fnc::profiler::Options::kernels), named by the fnc "
                     "ops it came from"),
      llvm::cl::init(false)};
  Option<bool> stopAfterLinalg{
      *this, "stop-after-linalg",
      llvm::cl::desc("Stop after lowering to linalg/tensor/scf (no "
                     "bufferization or LLVM lowering)"),
      llvm::cl::init(false)};
};

/// Appends the fnc pipeline (fnc -> linalg -> fused, bufferized, parallel
/// loops -> LLVM dialect) to `pm`, which must be anchored on a module.
void buildFncPipeline(OpPassManager &pm, const PipelineOptions &options);

/// Registers `--fnc-pipeline` (with the options above) for fnc-opt.
void registerFncPipeline();

/// Adds every dialect and interface the pipeline needs (including the
/// translations to LLVM IR) to `registry`.
void registerPipelineDialects(DialectRegistry &registry);

} // namespace fnc
} // namespace mlir

#endif // FNC_PIPELINES_PIPELINES_H
