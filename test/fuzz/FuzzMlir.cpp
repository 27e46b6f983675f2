//===- FuzzMlir.cpp - libFuzzer target: .mlir parsing and the pipeline ----===//
//
// The fuzzer's bytes are a .mlir module. It is parsed and verified with the
// dialects fnc-opt registers; a module that verifies (and is small, to keep
// executions fast) then goes through the fnc pipeline, as
// `fnc-opt --fnc-pipeline` would run it. Diagnostics are swallowed: a
// rejected input is a correct answer, only crashes (and sanitizer reports)
// are findings.
//
//===----------------------------------------------------------------------===//

#include "ParseInput.h"
#include "fnc/Pipelines/Pipelines.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassManager.h"

#include <cstddef>
#include <cstdint>

/// Modules larger than this are only parsed and verified: the pipeline's
/// time grows with the module, and small modules find the same bugs faster.
static constexpr size_t kMaxPipelineBytes = 4096;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  mlir::DialectRegistry registry;
  mlir::fnc::registerPipelineDialects(registry);
  // A fresh context per input: no state carries from one input to the next.
  mlir::MLIRContext context(registry, mlir::MLIRContext::Threading::DISABLED);
  mlir::ScopedDiagnosticHandler swallow(
      &context, [](mlir::Diagnostic &) { return mlir::success(); });

  mlir::OwningOpRef<mlir::ModuleOp> module =
      parseFuzzInput(context, data, size);
  if (!module || mlir::failed(mlir::verify(*module)))
    return 0;
  if (size > kMaxPipelineBytes)
    return 0;

  mlir::PassManager pm(&context, mlir::ModuleOp::getOperationName());
  mlir::fnc::PipelineOptions options;
  options.threads = 1;
  mlir::fnc::buildFncPipeline(pm, options);
  (void)pm.run(*module);
  return 0;
}
