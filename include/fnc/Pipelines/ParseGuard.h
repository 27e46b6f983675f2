//===- ParseGuard.h - Refuses text MLIR's own parsers crash on --*- C++ -*-===//
//
// MLIR 22's custom parsers of `linalg.transpose`, `linalg.broadcast` and
// `linalg.reduce` store a null attribute when the integer list after
// `permutation =` / `dimensions =` does not parse, and crash (a null
// dereference in NamedAttrList::set) right after reporting the error. fnc's
// tools read user .mlir through parseModule, which reports such a list as
// a located error before the parser sees it. It also refuses a resource
// blob (`{-# dialect_resources ... #-}`) whose alignment header is 0, which
// the parser accepts and then aborts allocating. Only those constructs are
// checked: valid modules are never refused.
//
//===----------------------------------------------------------------------===//

#ifndef FNC_PIPELINES_PARSEGUARD_H
#define FNC_PIPELINES_PARSEGUARD_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/Parser/Parser.h"
#include "llvm/ADT/StringRef.h"

#include <memory>
#include <optional>
#include <string>

namespace llvm {
class SourceMgr;
class raw_ostream;
} // namespace llvm

namespace mlir::fnc {

/// A construct of `text` that MLIR's parser would crash on: where it
/// starts and what is wrong.
struct ParserHazard {
  const char *at;
  std::string message;
};
std::optional<ParserHazard> findParserHazard(llvm::StringRef text);

/// Prints a hazard of the main buffer of `sources` as a located error on
/// `os`; false if there is one.
bool checkParserHazards(const llvm::SourceMgr &sources, llvm::raw_ostream &os);

/// mlir::parseSourceFile<ModuleOp>, after reporting a hazard of the main
/// buffer through the context's diagnostics (then: null).
OwningOpRef<ModuleOp> parseModule(const std::shared_ptr<llvm::SourceMgr> &sources,
                                  const ParserConfig &config);
OwningOpRef<ModuleOp> parseModule(llvm::SourceMgr &sources,
                                  const ParserConfig &config);

} // namespace mlir::fnc

#endif // FNC_PIPELINES_PARSEGUARD_H
