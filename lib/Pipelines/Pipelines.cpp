//===- Pipelines.cpp - The one fnc compilation pipeline -------------------===//
//
// fnc -> linalg on tensors -> fusion -> One-Shot Bufferize -> deallocation
// -> parallel loops (OpenMP above the grain size) -> LLVM dialect.
//
//===----------------------------------------------------------------------===//

#include "fnc/Pipelines/Pipelines.h"
#include "fnc/Codegen/Passes.h"
#include "fnc/Conversion/Passes.h"
#include "fnc/Dialect/Fnc/Transforms/Passes.h"

#include "mlir/Conversion/AffineToStandard/AffineToStandard.h"
#include "mlir/Conversion/BufferizationToMemRef/BufferizationToMemRef.h"
#include "mlir/Conversion/ConvertToLLVM/ToLLVMPass.h"
#include "mlir/Conversion/MathToLibm/MathToLibm.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Conversion/SCFToOpenMP/SCFToOpenMP.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

void fnc::buildFncPipeline(OpPassManager &pm, const PipelineOptions &options) {
  // Hand-written upstream ops (tensor.dim, linalg.generic, memref.load...)
  // get upstream's run-time checks of what would be undefined behaviour;
  // the fnc lowering turns each failed check into an error of the call.
  // fnc ops check themselves in their lowering.
  // Strings and vectors too wide to lower in reasonable time are refused
  // first.
  pm.addPass(createFncCheckTypes());
  pm.addPass(createGenerateRuntimeVerificationPass());
  // fnc-level folding first (constants, identities, static cond/while).
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  if (options.checkNumerics)
    pm.addNestedPass<func::FuncOp>(createFncCheckNumerics());
  if (options.profileKernels)
    pm.addNestedPass<func::FuncOp>(createFncNameOpLocations());
  FncLowerToLinalgOptions lowering;
  lowering.fastMath = options.fastMath;
  pm.addPass(createFncLowerToLinalg(lowering));
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addNestedPass<func::FuncOp>(createFncFuseElementwise());
  pm.addNestedPass<func::FuncOp>(createFncScalarize());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  FncSplitReductionsOptions split;
  split.fastMath = options.fastMath;
  pm.addNestedPass<func::FuncOp>(createFncSplitReductions(split));
  pm.addNestedPass<func::FuncOp>(createFncBufferReuse());
  if (options.stopAfterLinalg)
    return;

  bufferization::OneShotBufferizePassOptions bufferize;
  bufferize.bufferizeFunctionBoundaries = true;
  // Loop-carried tensors (fnc.while) may be yielded in fresh buffers.
  bufferize.allowReturnAllocsFromLoops = true;
  bufferize.functionBoundaryTypeConversion =
      bufferization::LayoutMapOption::IdentityLayoutMap;
  pm.addPass(bufferization::createOneShotBufferizePass(bufferize));
  pm.addPass(createCanonicalizerPass());
  pm.addNestedPass<func::FuncOp>(createFncElideSnapshotCopies());
  pm.addNestedPass<func::FuncOp>(createFncElideLoopConditionCopies());
  pm.addNestedPass<func::FuncOp>(createFncShareBuffers());
  pm.addNestedPass<func::FuncOp>(createFncDoubleBufferLoops());
  pm.addNestedPass<func::FuncOp>(
      bufferization::createPromoteBuffersToStackPass());
  bufferization::buildBufferDeallocationPipeline(pm);
  // The deallocation pipeline clones returned buffers it does not own.
  pm.addPass(createConvertBufferizationToMemRefPass());
  pm.addPass(createFncCheckAllocations());

  FncLowerToOrderedLoopsOptions ordered;
  ordered.fastMath = options.fastMath;
  pm.addNestedPass<func::FuncOp>(createFncLowerToOrderedLoops(ordered));
  pm.addNestedPass<func::FuncOp>(createConvertLinalgToParallelLoopsPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  if (options.threads != 1) {
    FncParallelThresholdOptions threshold;
    threshold.grain = options.parallelGrain;
    pm.addNestedPass<func::FuncOp>(createFncParallelThreshold(threshold));
    ConvertSCFToOpenMPPassOptions omp;
    omp.numThreads = options.threads;
    pm.addPass(createConvertSCFToOpenMPPass(omp));
    pm.addNestedPass<func::FuncOp>(createFncParallelIf());
    // Inlines the alloca scopes OpenMP regions get when they hold no
    // allocas (scf-to-cf would otherwise leave them multi-block).
    pm.addPass(createCanonicalizerPass());
  }
  pm.addNestedPass<func::FuncOp>(createFncKeepInnerLoops());
  if (options.profileKernels)
    pm.addPass(createFncProfileKernels());
  if (options.outlineNests > 0) {
    FncOutlineKernelsOptions outline;
    outline.minNests = options.outlineNests;
    pm.addPass(createFncOutlineKernels(outline));
  }
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createSCFToControlFlowPass());
  if (options.fastMath)
    pm.addNestedPass<func::FuncOp>(createFncApproximateMath());
  pm.addNestedPass<func::FuncOp>(createFncMathToIntrinsics());
  pm.addPass(createConvertMathToLibmPass());
  pm.addPass(createConvertToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
}

void fnc::registerFncPipeline() {
  PassPipelineRegistration<PipelineOptions>(
      "fnc-pipeline",
      "Compile fnc to the LLVM dialect: lowering, fusion, bufferization with "
      "buffer reuse, parallel loops",
      buildFncPipeline);
}
