//===- InterpreterTestUtil.h - Helpers of the interpreter tests -*- C++ -*-===//
//
// A fixture that parses a module from a string, creates an Interpreter on it
// and runs entry functions, plus EXPECT-style comparisons of tensors against
// hand-computed values.
//
//===----------------------------------------------------------------------===//

#ifndef FNC_UNITTESTS_INTERPRETER_INTERPRETERTESTUTIL_H
#define FNC_UNITTESTS_INTERPRETER_INTERPRETERTESTUTIL_H

#include "fnc/Dialect/Fnc/IR/FncOps.h"
#include "fnc/Interpreter/Interpreter.h"
#include "fnc/Ops.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

#include <cmath>
#include <sstream>

namespace fnc::test {

class InterpreterTest : public ::testing::Test {
protected:
  InterpreterTest() {
    context
        .loadDialect<mlir::fnc::FncDialect, mlir::func::FuncDialect,
                     mlir::arith::ArithDialect, mlir::tensor::TensorDialect>();
    options.output = &out;
  }

  /// Parses `source` (named "test.mlir" in locations) and creates the
  /// interpreter; fails the test if either step fails.
  mlir::fnc::Interpreter *load(llvm::StringRef source) {
    module = mlir::parseSourceString<mlir::ModuleOp>(
        source, mlir::ParserConfig(&context), "test.mlir");
    if (!module) {
      ADD_FAILURE() << "the module does not parse";
      return nullptr;
    }
    auto interp = mlir::fnc::Interpreter::create(*module, options);
    if (!interp) {
      ADD_FAILURE() << llvm::toString(interp.takeError());
      return nullptr;
    }
    interpreter = std::move(*interp);
    return interpreter.get();
  }

  /// Runs `entry` of the loaded module; fails the test on an error.
  std::vector<Tensor> run(llvm::StringRef entry, std::vector<Tensor> args = {},
                          std::vector<Tensor *> variables = {}) {
    if (!interpreter)
      return {};
    auto results = interpreter->call(entry, args, variables);
    if (!results) {
      ADD_FAILURE() << llvm::toString(results.takeError());
      return {};
    }
    return *results;
  }

  /// Runs `entry` and returns its error message ("" if it succeeded).
  std::string runError(llvm::StringRef entry, std::vector<Tensor> args = {},
                       std::vector<Tensor *> variables = {}) {
    if (!interpreter)
      return "<no interpreter>";
    auto results = interpreter->call(entry, args, variables);
    if (results)
      return "";
    return llvm::toString(results.takeError());
  }

  mlir::MLIRContext context;
  mlir::OwningOpRef<mlir::ModuleOp> module;
  std::ostringstream out;
  mlir::fnc::InterpreterOptions options;
  std::unique_ptr<mlir::fnc::Interpreter> interpreter;
};

/// Checks dtype, shape and values (floats within `tol`, NaN == NaN).
inline ::testing::AssertionResult
sameTensor(const Tensor &actual, const Tensor &expected, double tol = 1e-6) {
  if (!actual.defined())
    return ::testing::AssertionFailure() << "null tensor";
  if (actual.dtype() != expected.dtype() || actual.shape() != expected.shape())
    return ::testing::AssertionFailure()
           << "got " << actual << ", expected " << expected;
  Tensor a = cast(actual, DType::f64), e = cast(expected, DType::f64);
  std::vector<double> av = a.to_vector<double>(), ev = e.to_vector<double>();
  for (size_t i = 0; i < av.size(); ++i) {
    bool ok = (std::isnan(av[i]) && std::isnan(ev[i])) ||
              std::fabs(av[i] - ev[i]) <= tol * (1 + std::fabs(ev[i]));
    if (!ok)
      return ::testing::AssertionFailure()
             << "element " << i << ": got " << actual << ", expected "
             << expected;
  }
  return ::testing::AssertionSuccess();
}

} // namespace fnc::test

#define EXPECT_TENSOR(actual, ...)                                             \
  EXPECT_TRUE(::fnc::test::sameTensor((actual), __VA_ARGS__))

#endif // FNC_UNITTESTS_INTERPRETER_INTERPRETERTESTUTIL_H
