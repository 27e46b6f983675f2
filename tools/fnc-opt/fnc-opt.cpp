//===- fnc-opt.cpp - The fnc pass driver ----------------------------------===//
//
// mlir-opt for fnc: parses .mlir, runs fnc and upstream passes, prints the
// result. Malformed input gives located diagnostics and exit code 1.
//
//===----------------------------------------------------------------------===//

#include "fnc/Codegen/Passes.h"
#include "fnc/Conversion/Passes.h"
#include "fnc/Dialect/Fnc/Transforms/Passes.h"
#include "fnc/Pipelines/Pipelines.h"
#include "fnc/Tools/ErrorHandlers.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/InitAllPasses.h"

int main(int argc, char **argv) {
  // MlirOptMain runs llvm::InitLLVM, which keeps these handlers.
  fnc::tools::installErrorHandlers("fnc-opt");
  mlir::DialectRegistry registry;
  mlir::fnc::registerPipelineDialects(registry);
  mlir::registerAllPasses();
  mlir::fnc::registerFncConversionPasses();
  mlir::fnc::registerFncTransformsPasses();
  mlir::fnc::registerFncCodegenPasses();
  mlir::fnc::registerFncPipeline();
  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "fnc optimizer driver: runs fnc and MLIR passes\n",
      registry));
}
