//===- CompiledTrace.cpp - A trace compiled to machine code ---------------===//
//
// Emitting the IR of a compiled trace at any stage, from the text of its fnc
// IR (see CompiledTrace.h).
//
//===----------------------------------------------------------------------===//

#include "fnc/Trace/CompiledTrace.h"

#include "fnc/JIT/Engine.h"
#include "fnc/Pipelines/Pipelines.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

using namespace mlir;

namespace fnc::trace {

CompiledTrace::CompiledTrace(Parts parts) : parts_(std::move(parts)) {}

CompiledTrace::~CompiledTrace() = default;

bool CompiledTrace::emit(jit::Stage stage, std::string &out) const {
  if (stage == jit::Stage::Fnc) {
    out = parts_.fncText;
    return true;
  }
  DialectRegistry registry;
  mlir::fnc::registerPipelineDialects(registry);
  MLIRContext context(registry, MLIRContext::Threading::DISABLED);
  OwningOpRef<ModuleOp> module =
      parseSourceString<ModuleOp>(parts_.fncText, &context);
  if (!module) {
    out = "internal error: the trace's IR does not parse again";
    return false;
  }
  mlir::fnc::PipelineOptions options;
  options.fastMath = parts_.fastMath;
  options.checkNumerics = parts_.checkNumerics;
  auto text = jit::emitStage(*module, options, stage);
  if (!text) {
    out = llvm::toString(text.takeError());
    return false;
  }
  out = std::move(*text);
  return true;
}

} // namespace fnc::trace
