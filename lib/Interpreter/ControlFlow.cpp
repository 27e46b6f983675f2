//===- ControlFlow.cpp - Control flow, variables and effects --------------===//
//
// fnc.cond, fnc.while, func.call, the variable ops, fnc.print and the random
// ops: the ops whose meaning is more than a kernel call.
//
//===----------------------------------------------------------------------===//

#include "InterpreterImpl.h"

#include "fnc/Dialect/Fnc/IR/FncOps.h"

#include <iostream>

using namespace mlir;
using namespace mlir::fnc;
using llvm::Error;
using llvm::Expected;

//===----------------------------------------------------------------------===//
// Control flow, variables and effects
//===----------------------------------------------------------------------===//

namespace {
/// splitmix64's finalizer: a bijective mix of 64 bits.
uint64_t mix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

/// fnc.print's text: `format` with each "{}" replaced by the next tensor, or
/// followed by the tensors separated by spaces when it has no "{}".
std::string printText(llvm::StringRef format,
                      llvm::ArrayRef<TensorValue> tensors) {
  std::string text;
  size_t next = 0;
  if (format.contains("{}")) {
    while (true) {
      size_t pos = format.find("{}");
      if (pos == llvm::StringRef::npos || next >= tensors.size()) {
        text += format.str();
        break;
      }
      text += format.substr(0, pos).str();
      text += interp::valuesText(tensors[next++]);
      format = format.substr(pos + 2);
    }
  } else {
    text = format.str();
    for (const TensorValue &t : tensors)
      text += (text.empty() ? "" : " ") + interp::valuesText(t);
  }
  return text + "\n";
}

/// Binds the results of `op` to `values`, one each.
Error setResults(Operation *op, llvm::ArrayRef<RtValue> values, Frame &frame) {
  if (values.size() != op->getNumResults())
    return opError(op, "internal error: " + llvm::Twine(values.size()) +
                           " values for " + llvm::Twine(op->getNumResults()) +
                           " results");
  for (auto [result, value] : llvm::zip(op->getResults(), values))
    frame[result] = value;
  return Error::success();
}

/// The predicate of a fnc.cond or fnc.condition: a 0-D bool tensor.
Expected<bool> readPredicate(Operation *op, const RtValue &value) {
  bool pred = false;
  std::string error;
  if (value.kind != RtValue::Kind::Tensor ||
      !interp::readBool(value.tensor, pred, error))
    return opError(op, "the predicate must be a 0-D bool tensor: " + error);
  return pred;
}
} // namespace

Error Interpreter::Impl::runControlFlowOrEffect(Operation *op, Frame &frame,
                                                bool &handled) {
  handled = true;
  if (auto cond = dyn_cast<CondOp>(op))
    return runCond(cond, frame);
  if (auto loop = dyn_cast<WhileOp>(op))
    return runWhile(loop, frame);
  if (auto call = dyn_cast<func::CallOp>(op))
    return runCall(call, frame);
  if (auto read = dyn_cast<VarReadOp>(op))
    return runVarRead(read, frame);
  if (isa<VarAssignOp, VarAssignAddOp, VarAssignSubOp>(op))
    return runVarAssign(op, frame);
  if (auto print = dyn_cast<PrintOp>(op))
    return runPrint(print, frame);
  if (isa<RandomUniformOp, RandomNormalOp>(op))
    return runRandom(op, frame);
  handled = false;
  return Error::success();
}

Error Interpreter::Impl::runCond(CondOp cond, Frame &frame) {
  Operation *op = cond;
  auto it = frame.find(cond.getPred());
  if (it == frame.end())
    return opError(op, "internal error: predicate not computed");
  Expected<bool> pred = readPredicate(op, it->second);
  if (!pred)
    return pred.takeError();
  llvm::SmallVector<RtValue> yielded;
  Region &region = *pred ? cond.getThenRegion() : cond.getElseRegion();
  if (Error err = runRegion(region, {}, frame, yielded))
    return err;
  return setResults(op, yielded, frame);
}

Error Interpreter::Impl::runWhile(WhileOp loop, Frame &frame) {
  Operation *op = loop;
  llvm::SmallVector<RtValue> carried, fromCond;
  for (Value init : loop.getInits()) {
    auto it = frame.find(init);
    if (it == frame.end())
      return opError(op, "internal error: init not computed");
    carried.push_back(it->second);
  }
  while (true) {
    if (Error err = runRegion(loop.getCondRegion(), carried, frame, fromCond))
      return err;
    if (fromCond.empty())
      return opError(op, "internal error: fnc.condition without predicate");
    Expected<bool> pred = readPredicate(op, fromCond.front());
    if (!pred)
      return pred.takeError();
    llvm::ArrayRef<RtValue> forwarded = llvm::ArrayRef(fromCond).drop_front();
    if (!*pred)
      return setResults(op, forwarded, frame);
    llvm::SmallVector<RtValue> next(forwarded.begin(), forwarded.end());
    if (Error err = runRegion(loop.getBodyRegion(), next, frame, carried))
      return err;
  }
}

Error Interpreter::Impl::runCall(func::CallOp call, Frame &frame) {
  Operation *op = call;
  auto callee = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(
      op, call.getCalleeAttr());
  if (!callee)
    return opError(op, "the callee @" + call.getCallee() +
                           " is not a func.func of the module");
  llvm::SmallVector<RtValue> args, results;
  for (Value operand : call.getOperands()) {
    auto it = frame.find(operand);
    if (it == frame.end())
      return opError(op, "internal error: operand not computed");
    args.push_back(it->second);
  }
  if (Error err = callFunction(callee, args, results))
    return makeError(llvm::toString(std::move(err)) + "\n  called from " +
                     locationString(op->getLoc()));
  return setResults(op, results, frame);
}

Error Interpreter::Impl::runVarRead(VarReadOp read, Frame &frame) {
  Expected<TensorValue *> slot = variable(read, read.getVariable(), frame);
  if (!slot)
    return slot.takeError();
  frame[read.getResult()] = RtValue::ofTensor(**slot);
  return Error::success();
}

Error Interpreter::Impl::runVarAssign(Operation *op, Frame &frame) {
  Expected<TensorValue *> slot = variable(op, op->getOperand(0), frame);
  if (!slot)
    return slot.takeError();
  Expected<TensorValue> value = tensor(op, op->getOperand(1), frame);
  if (!value)
    return value.takeError();
  auto type = cast<VariableType>(op->getOperand(0).getType()).getValueType();
  TensorValue updated = *value;
  if (!isa<VarAssignOp>(op)) {
    Expected<TensorValue> r = check(
        op, interp::binary(isa<VarAssignAddOp>(op) ? ::fnc::ref::BinaryOp::Add
                                                   : ::fnc::ref::BinaryOp::Sub,
                           **slot, *value));
    if (!r)
      return r.takeError();
    updated = *r;
    if (updated.shape() != (*slot)->shape())
      return opError(op, "the update " + describe(*value) +
                             " would change the shape of the variable " +
                             describe(**slot) + "; a variable keeps its shape");
  }
  if (!matchesType(updated, type))
    return opError(op, "cannot store " + describe(updated) +
                           " in a variable of type " + typeString(type));
  **slot = updated;
  return Error::success();
}

Error Interpreter::Impl::runPrint(PrintOp print, Frame &frame) {
  std::vector<TensorValue> tensors;
  for (Value input : print.getInputs()) {
    Expected<TensorValue> t = tensor(print, input, frame);
    if (!t)
      return t.takeError();
    tensors.push_back(*t);
  }
  if (options.print)
    return options.print(print.getFormat().str(), tensors);
  std::ostream &os = options.output ? *options.output : std::cout;
  os << printText(print.getFormat(), tensors);
  os.flush();
  return Error::success();
}

Error Interpreter::Impl::runRandom(Operation *op, Frame &frame) {
  auto type = cast<RankedTensorType>(op->getResult(0).getType());
  std::optional<uint64_t> seed;
  ValueRange dims;
  double a, b;
  bool normal = false;
  if (auto uniform = dyn_cast<RandomUniformOp>(op)) {
    seed = uniform.getSeed();
    dims = uniform.getDynamicDims();
    a = uniform.getMin().convertToDouble();
    b = uniform.getMax().convertToDouble();
  } else {
    auto gaussian = cast<RandomNormalOp>(op);
    seed = gaussian.getSeed();
    dims = gaussian.getDynamicDims();
    a = gaussian.getMean().convertToDouble();
    b = gaussian.getStddev().convertToDouble();
    normal = true;
  }
  Expected<::fnc::Shape> shape = shapeOf(op, type, dims, frame);
  if (!shape)
    return shape.takeError();
  if (options.random) {
    int64_t key = 0;
    if (seed)
      key = static_cast<int64_t>(*seed);
    else if (auto attr = op->getAttrOfType<IntegerAttr>("fnc.random_key"))
      key = attr.getInt();
    Expected<TensorValue> r = options.random(
        normal, *dtypeOf(type.getElementType()), *shape, a, b, key);
    if (!r)
      return opError(op, llvm::toString(r.takeError()));
    frame[op->getResult(0)] = RtValue::ofTensor(*r);
    return Error::success();
  }
  uint64_t key, *counter;
  if (seed) {
    key = mix64(mix64(options.seed) ^ mix64(*seed + 1));
    counter = &randomCounters[op];
  } else {
    key = mix64(options.seed);
    counter = &sharedRandomCounter;
  }
  DType dtype = *dtypeOf(type.getElementType());
  Expected<TensorValue> r = check(
      op, normal ? interp::randomNormal(dtype, *shape, a, b, key, *counter)
                 : interp::randomUniform(dtype, *shape, a, b, key, *counter));
  if (!r)
    return r.takeError();
  *counter += static_cast<uint64_t>(r->size());
  frame[op->getResult(0)] = RtValue::ofTensor(*r);
  return Error::success();
}
