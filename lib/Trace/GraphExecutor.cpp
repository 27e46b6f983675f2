//===- GraphExecutor.cpp - Runs a trace op by op on the eager kernels -----===//
//
// fnc/Trace/GraphExecutor.h. The trace's fnc IR is parsed into a context of
// the executor's own, its unseeded random ops are given the keys the
// lowering gives them (lowering::assignRandomKeys: program order from
// 2^32), and each call hands the interpreter the tensors and a slot per
// variable, whose final value is written into the variable's buffer.
//
//===----------------------------------------------------------------------===//

#include "fnc/Trace/GraphExecutor.h"

#include "fnc/API/TensorImpl.h"
#include "fnc/Dialect/Fnc/IR/FncOps.h"
#include "fnc/Interpreter/Interpreter.h"
#include "fnc/Pipelines/Pipelines.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include <algorithm>
#include <cstring>
#include <mutex>

using namespace mlir;

namespace fnc::trace {

class GraphExecutor::Impl {
public:
  std::unique_ptr<MLIRContext> context;
  OwningOpRef<ModuleOp> module;
  std::unique_ptr<mlir::fnc::Interpreter> interpreter;
  std::string symbol;
  std::mutex mutex;
};

GraphExecutor::GraphExecutor(std::unique_ptr<Impl> impl)
    : impl_(std::move(impl)) {}

GraphExecutor::~GraphExecutor() = default;

llvm::Expected<std::unique_ptr<GraphExecutor>>
GraphExecutor::create(const std::string &fncText, const std::string &symbol,
                      Hooks hooks) {
  auto impl = std::make_unique<Impl>();
  DialectRegistry registry;
  mlir::fnc::registerPipelineDialects(registry);
  impl->context = std::make_unique<MLIRContext>(
      registry, MLIRContext::Threading::DISABLED);
  impl->module = parseSourceString<ModuleOp>(fncText, impl->context.get());
  if (!impl->module)
    return llvm::createStringError("internal error: the trace's IR does not "
                                   "parse again (please report this bug)");
  // The keys of lowering::assignRandomKeys.
  int64_t next = int64_t(1) << 32;
  auto i64 = IntegerType::get(impl->context.get(), 64);
  impl->module->walk([&](Operation *op) {
    if (isa<mlir::fnc::RandomUniformOp, mlir::fnc::RandomNormalOp>(op) &&
        !op->hasAttr("seed"))
      op->setAttr("fnc.random_key", IntegerAttr::get(i64, next++));
  });
  mlir::fnc::InterpreterOptions options;
  options.random = std::move(hooks.random);
  options.print = std::move(hooks.print);
  auto interpreter =
      mlir::fnc::Interpreter::create(*impl->module, std::move(options));
  if (!interpreter)
    return interpreter.takeError();
  impl->interpreter = std::move(*interpreter);
  impl->symbol = symbol;
  return std::unique_ptr<GraphExecutor>(new GraphExecutor(std::move(impl)));
}

static const void *bufferOf(const Tensor &t) {
  return detail::TensorAccess::impl(t).anyArray().rawData();
}

static Tensor copyOf(const Tensor &t) {
  const ref::Array &a = detail::TensorAccess::impl(t).anyArray();
  ref::Array copy = ref::Array::allocate(a.dtype, a.shape);
  if (a.dtype == DType::str)
    std::copy_n(a.data<std::string>(), a.numElements(),
                copy.mutableData<std::string>());
  else
    std::memcpy(copy.rawMutableData(), a.rawData(), a.numBytes());
  return detail::TensorAccess::wrap(std::move(copy));
}

llvm::Error GraphExecutor::run(const Tensor *const *tensors, size_t count,
                               const std::vector<Tensor> &hidden,
                               const std::vector<uint64_t> &hiddenVariables,
                               Tensor *outs, ErrorKind &kind) {
  std::vector<Tensor> args;
  for (size_t i = 0; i < count; ++i)
    args.push_back(*tensors[i]);
  std::vector<Tensor> slots;
  std::vector<size_t> slotOf; // hidden index of each slot
  for (size_t i = 0; i < hidden.size(); ++i) {
    if (hiddenVariables[i]) {
      slots.push_back(hidden[i]);
      slotOf.push_back(i);
    } else {
      args.push_back(hidden[i]);
    }
  }
  std::vector<Tensor *> slotPointers;
  for (Tensor &slot : slots)
    slotPointers.push_back(&slot);
  std::lock_guard<std::mutex> lock(impl_->mutex);
  auto results = impl_->interpreter->call(impl_->symbol, args, slotPointers);
  // Every result is a buffer of its own, as compiled code returns them:
  // the caller may update a result in place (a gradient tape accumulates
  // into one), so none may be an argument's, a variable's or another
  // result's. (Copied before the updates below reach the variables: a
  // value read from a variable before its update is the old value.)
  if (results) {
    std::vector<const void *> taken;
    for (const Tensor &t : args)
      taken.push_back(bufferOf(t));
    for (const Tensor &t : hidden)
      taken.push_back(bufferOf(t));
    for (Tensor &r : *results) {
      if (!r.size())
        continue;
      if (std::find(taken.begin(), taken.end(), bufferOf(r)) != taken.end())
        r = copyOf(r);
      taken.push_back(bufferOf(r));
    }
  }
  // The updates reach the variables even when the call failed after them,
  // as compiled code's do.
  for (size_t k = 0; k < slots.size(); ++k) {
    const Tensor &variable = hidden[slotOf[k]];
    const void *to = bufferOf(variable);
    const void *from = bufferOf(slots[k]);
    if (to != from)
      std::memcpy(const_cast<void *>(to), from,
                  detail::TensorAccess::array(variable).numBytes());
  }
  if (!results) {
    kind = impl_->interpreter->lastErrorKind();
    return results.takeError();
  }
  for (size_t i = 0; i < results->size(); ++i)
    outs[i] = std::move((*results)[i]);
  return llvm::Error::success();
}

} // namespace fnc::trace
