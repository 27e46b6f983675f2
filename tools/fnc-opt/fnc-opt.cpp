//===- fnc-opt.cpp - The fnc pass driver ----------------------------------===//
//
// mlir-opt for fnc: parses .mlir, runs fnc and upstream passes, prints the
// result. Malformed input gives located diagnostics and exit code 1 (text
// that MLIR's own parsers would crash on is refused first:
// fnc/Pipelines/ParseGuard.h).
//
//===----------------------------------------------------------------------===//

#include "fnc/Codegen/Passes.h"
#include "fnc/Conversion/Passes.h"
#include "fnc/Dialect/Fnc/Transforms/Passes.h"
#include "fnc/Pipelines/ParseGuard.h"
#include "fnc/Pipelines/Pipelines.h"
#include "fnc/Tools/ErrorHandlers.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

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
  // MlirOptMain(argc, argv, ...), with the input checked before parsing.
  auto [input, output] = mlir::registerAndParseCLIOptions(
      argc, argv, "fnc optimizer driver: runs fnc and MLIR passes\n",
      registry);
  mlir::MlirOptMainConfig config =
      mlir::MlirOptMainConfig::createFromCLOptions();
  if (config.shouldShowDialects() || config.shouldListPasses())
    return mlir::asMainReturnCode(
        mlir::MlirOptMain(argc, argv, input, output, registry));
  llvm::InitLLVM init(argc, argv);
  std::string error;
  std::unique_ptr<llvm::MemoryBuffer> file =
      mlir::openInputFile(input, &error);
  if (!file) {
    llvm::errs() << error << "\n";
    return 1;
  }
  {
    llvm::SourceMgr sources;
    sources.AddNewSourceBuffer(
        llvm::MemoryBuffer::getMemBuffer(file->getMemBufferRef(), false),
        llvm::SMLoc());
    if (!mlir::fnc::checkParserHazards(sources, llvm::errs()))
      return 1;
  }
  std::unique_ptr<llvm::ToolOutputFile> out =
      mlir::openOutputFile(output, &error);
  if (!out) {
    llvm::errs() << error << "\n";
    return 1;
  }
  if (mlir::failed(
          mlir::MlirOptMain(out->os(), std::move(file), registry, config)))
    return 1;
  out->keep();
  return 0;
}
