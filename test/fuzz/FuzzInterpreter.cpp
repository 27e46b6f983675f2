//===- FuzzInterpreter.cpp - libFuzzer target: the reference interpreter --===//
//
// The fuzzer's bytes are a .mlir module, as `fnc-run --interpret` reads
// it. A module that parses and verifies (and is small) is interpreted:
// every function with a body is called on arguments made from its
// signature (each unknown dim 2, elements cycling through edge values:
// NaN, +-inf, +-0, denormals, the extreme integers), its variable
// arguments given slots of their type. The interpreter runs under size
// limits (InterpreterOptions::maxElements, maxSteps, maxCallDepth), so an
// input that would allocate gigabytes or loop forever gets an error, like
// every other rejected input. Only crashes, hangs, sanitizer reports and
// exceptions are findings: the interpreter promises to report everything
// else as an llvm::Error.
//
//===----------------------------------------------------------------------===//

#include "ParseInput.h"
#include "fnc/Dialect/Fnc/IR/FncDialect.h"
#include "fnc/Dialect/Fnc/IR/FncOps.h"
#include "fnc/Interpreter/Interpreter.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <sstream>
#include <vector>

using namespace mlir;

/// Larger modules are not run: small ones find the same bugs faster.
static constexpr size_t kMaxBytes = 4096;

/// The i-th element of an argument: edge values and small numbers.
static double edgeValue(size_t i, bool isFloat) {
  if (isFloat) {
    const double values[] = {0.5,
                             std::numeric_limits<double>::quiet_NaN(),
                             -0.0,
                             std::numeric_limits<double>::infinity(),
                             -1.5,
                             std::numeric_limits<float>::denorm_min(),
                             3e9,
                             -std::numeric_limits<double>::infinity(),
                             2.0,
                             0.0};
    return values[i % std::size(values)];
  }
  const double values[] = {1, 0, -1, 2147483647, -2147483648.0, 3, -7, 2};
  return values[i % std::size(values)];
}

/// A tensor of `type` (each dynamic dim 2) filled with edge values.
static ::fnc::Tensor argument(RankedTensorType type) {
  std::vector<int64_t> shape;
  int64_t count = 1;
  for (int64_t d : type.getShape()) {
    shape.push_back(ShapedType::isDynamic(d) ? 2 : d);
    count *= shape.back();
  }
  // Types fnc has no dtype for (f16, i8, ...) get int32 values: the
  // interpreter's argument check reports them.
  Type element = type.getElementType();
  bool isFloat = element.isF32() || element.isF64();
  std::vector<double> values(count);
  for (int64_t i = 0; i < count; ++i)
    values[i] = edgeValue(static_cast<size_t>(i), isFloat);
  if (element.isF64())
    return ::fnc::Tensor(values, shape);
  if (element.isF32())
    return ::fnc::Tensor(std::vector<float>(values.begin(), values.end()),
                         shape);
  if (element.isInteger(1)) {
    std::vector<bool> bits(count);
    for (int64_t i = 0; i < count; ++i)
      bits[i] = i % 3 == 0;
    return ::fnc::Tensor(bits, shape);
  }
  if (element.isInteger(64))
    return ::fnc::Tensor(std::vector<int64_t>(values.begin(), values.end()),
                         shape);
  std::vector<int32_t> ints;
  for (double v : values)
    ints.push_back(static_cast<int32_t>(v));
  return ::fnc::Tensor(ints, shape);
}

/// True if every dim of `type` is small enough to build an argument from.
static bool smallEnough(RankedTensorType type) {
  int64_t count = 1;
  for (int64_t d : type.getShape()) {
    if (ShapedType::isDynamic(d))
      d = 2;
    if (d > 4096 || count * d > 4096)
      return false;
    count *= d;
  }
  return true;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > kMaxBytes)
    return 0;
  DialectRegistry registry;
  registry.insert<mlir::fnc::FncDialect, func::FuncDialect, arith::ArithDialect,
                  tensor::TensorDialect>();
  // A fresh context per input: no state carries from one input to the next.
  MLIRContext context(registry, MLIRContext::Threading::DISABLED);
  context.loadAllAvailableDialects();
  ScopedDiagnosticHandler swallow(&context,
                                  [](Diagnostic &) { return success(); });

  OwningOpRef<ModuleOp> module = parseFuzzInput(context, data, size);
  if (!module)
    return 0;

  std::ostringstream output;
  mlir::fnc::InterpreterOptions options;
  options.output = &output;
  options.maxElements = 1 << 16;
  options.maxSteps = 4000;
  options.maxCallDepth = 32;
  auto interpreter = mlir::fnc::Interpreter::create(*module, options);
  if (!interpreter) {
    llvm::consumeError(interpreter.takeError());
    return 0;
  }
  for (auto fn : module->getOps<func::FuncOp>()) {
    if (fn.isExternal())
      continue;
    std::vector<::fnc::Tensor> args, slots;
    bool runnable = true;
    FunctionType type = fn.getFunctionType();
    slots.reserve(type.getNumInputs());
    for (unsigned i = 0; i < type.getNumInputs() && runnable; ++i) {
      Type input = type.getInput(i);
      if (auto var = dyn_cast<mlir::fnc::VariableType>(input)) {
        if (fn.getArgAttr(i, mlir::fnc::FncDialect::kBindAttrName))
          continue;
        runnable = smallEnough(var.getValueType());
        if (runnable)
          slots.push_back(argument(var.getValueType()));
      } else if (isa<IndexType>(input)) {
        args.push_back(::fnc::Tensor(int64_t(2)));
      } else if (auto tensor = dyn_cast<RankedTensorType>(input)) {
        runnable = smallEnough(tensor);
        if (runnable)
          args.push_back(argument(tensor));
      } else {
        // Unranked tensors and other types: the interpreter's checks say
        // so; give it something of the wrong kind.
        args.push_back(::fnc::Tensor(0.f));
      }
    }
    if (!runnable)
      continue;
    std::vector<::fnc::Tensor *> variables;
    for (::fnc::Tensor &slot : slots)
      variables.push_back(&slot);
    auto results = (*interpreter)->call(fn.getSymName(), args, variables);
    if (!results)
      llvm::consumeError(results.takeError());
  }
  return 0;
}
