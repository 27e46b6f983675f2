//===- ParseInput.h - The fuzzer's bytes as a .mlir module ------*- C++ -*-===//
//
// Shared by the .mlir fuzz targets: the bytes, copied with a terminating
// null (the lexer reads one past the end), parsed as "fuzz.mlir".
// Diagnostics go to the context's handler, which the targets swallow.
//
//===----------------------------------------------------------------------===//

#ifndef FNC_TEST_FUZZ_PARSEINPUT_H
#define FNC_TEST_FUZZ_PARSEINPUT_H

#include "fnc/Pipelines/ParseGuard.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"

#include <cstddef>
#include <cstdint>

inline mlir::OwningOpRef<mlir::ModuleOp>
parseFuzzInput(mlir::MLIRContext &context, const uint8_t *data, size_t size) {
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(
          llvm::StringRef(reinterpret_cast<const char *>(data), size),
          "fuzz.mlir"),
      llvm::SMLoc());
  mlir::ParserConfig config(&context);
  return mlir::fnc::parseModule(sourceMgr, config);
}

#endif // FNC_TEST_FUZZ_PARSEINPUT_H
