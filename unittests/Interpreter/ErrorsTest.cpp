//===- ErrorsTest.cpp - Every error path of the interpreter ---------------===//
//
// Bad calls (arity, dtype, rank, static dims, index and variable arguments),
// run-time failures of kernels (gather out of range, integer division by
// zero, mismatched dynamic sizes), unsupported ops with their location, and
// runaway recursion. Each error must come back as a message, never a crash.
//
//===----------------------------------------------------------------------===//

#include "InterpreterTestUtil.h"

using namespace fnc;
using namespace fnc::test;
using ::testing::HasSubstr;

namespace {

using ErrorsTest = InterpreterTest;

constexpr const char *kModule = R"mlir(
  func.func @f(%x: tensor<2x?xf32>, %n: index) -> tensor<2x?xf32> {
    return %x : tensor<2x?xf32>
  }
  func.func @g(%v: !fnc.variable<tensor<2xf32>>) {
    return
  }
  func.func private @decl(%x: tensor<f32>) -> tensor<f32>
)mlir";

TEST_F(ErrorsTest, ArgumentCount) {
  load(kModule);
  std::string e = runError("f", {Tensor{{1.f}, {2.f}}});
  EXPECT_THAT(e, HasSubstr("@f takes 2 tensor argument(s)"));
  EXPECT_THAT(e, HasSubstr("tensor<2x?xf32>"));
  EXPECT_THAT(e, HasSubstr("got 1"));
}

TEST_F(ErrorsTest, ArgumentDTypeRankAndDims) {
  load(kModule);
  Tensor n(int64_t{1});
  EXPECT_THAT(runError("f", {Tensor{{1, 2}, {3, 4}}, n}),
              HasSubstr("argument #0 of @f (tensor argument #0): expected "
                        "tensor<2x?xf32>, got int32[2,2]"));
  EXPECT_THAT(runError("f", {Tensor{1.f, 2.f}, n}),
              HasSubstr("expected tensor<2x?xf32>, got float32[2]"));
  EXPECT_THAT(runError("f", {Tensor{{1.f}, {2.f}, {3.f}}, n}),
              HasSubstr("got float32[3,1]"));
  // A dynamic dim matches any size, including 0.
  EXPECT_EQ(runError("f", {Tensor(std::vector<float>{}, {2, 0}), n}), "");
  EXPECT_EQ(runError("f", {Tensor(std::vector<float>(10, 1.f), {2, 5}), n}),
            "");
}

TEST_F(ErrorsTest, NullAndIndexArguments) {
  load(kModule);
  EXPECT_THAT(runError("f", {Tensor(), Tensor(int64_t{1})}),
              HasSubstr("is a null tensor"));
  EXPECT_THAT(runError("f", {Tensor{{1.f}, {2.f}}, Tensor(1.f)}),
              HasSubstr("argument #1 of @f (tensor argument #1) is an index: "
                        "pass a 0-D int32 or int64 tensor, got float32[]"));
  EXPECT_THAT(runError("f", {Tensor{{1.f}, {2.f}}, Tensor{1, 2}}),
              HasSubstr("is an index"));
}

TEST_F(ErrorsTest, VariableArguments) {
  load(kModule);
  EXPECT_THAT(runError("g"), HasSubstr("@g takes 1 variable argument(s) "
                                       "without fnc.bind, got 0"));
  Tensor wrong = {1.f, 2.f, 3.f};
  EXPECT_THAT(runError("g", {}, {&wrong}),
              HasSubstr("argument #0 of @g: the variable holds float32[3] but "
                        "the function expects tensor<2xf32>"));
  Tensor empty;
  EXPECT_THAT(runError("g", {}, {&empty}), HasSubstr("needs a tensor slot"));
  EXPECT_THAT(runError("g", {}, {nullptr}), HasSubstr("needs a tensor slot"));
}

TEST_F(ErrorsTest, UnknownFunctionAndDeclaration) {
  load(kModule);
  std::string e = runError("nope");
  EXPECT_THAT(e, HasSubstr("no function @nope"));
  EXPECT_THAT(e, HasSubstr("@f, @g"));
  EXPECT_THAT(runError("decl", {Tensor(1.f)}),
              HasSubstr("@decl is a declaration without a body"));
}

TEST_F(ErrorsTest, GatherIndexOutOfRange) {
  load(R"mlir(
    func.func @f(%p: tensor<3xf32>, %i: tensor<2xi32>) -> tensor<2xf32> {
      %0 = fnc.gather %p, %i axis 0 : tensor<3xf32>, tensor<2xi32>
      return %0 : tensor<2xf32>
    }
  )mlir");
  EXPECT_EQ(runError("f", {Tensor{1.f, 2.f, 3.f}, Tensor{0, 2}}), "");
  std::string e = runError("f", {Tensor{1.f, 2.f, 3.f}, Tensor{0, 3}});
  EXPECT_THAT(e, HasSubstr("test.mlir:3:12: 'fnc.gather': fnc::gather:"));
  EXPECT_THAT(e, HasSubstr("3"));
  EXPECT_THAT(runError("f", {Tensor{1.f, 2.f, 3.f}, Tensor{-1, 0}}),
              HasSubstr("'fnc.gather'"));
}

TEST_F(ErrorsTest, KernelErrorsAtRunTime) {
  load(R"mlir(
    func.func @div(%x: tensor<2xi32>, %y: tensor<2xi32>) -> tensor<2xi32> {
      %0 = fnc.div %x, %y : tensor<2xi32>, tensor<2xi32>
      return %0 : tensor<2xi32>
    }
    func.func @add(%x: tensor<?xf32>, %y: tensor<?xf32>) -> tensor<?xf32> {
      %0 = fnc.add %x, %y : tensor<?xf32>, tensor<?xf32>
      return %0 : tensor<?xf32>
    }
    func.func @reshape(%x: tensor<?xf32>) -> tensor<?x4xf32> {
      %0 = fnc.reshape %x : tensor<?xf32> -> tensor<?x4xf32>
      return %0 : tensor<?x4xf32>
    }
    func.func @fill(%n: index) -> tensor<?xf32> {
      %0 = fnc.fill 0.0 [%n] : tensor<?xf32>
      return %0 : tensor<?xf32>
    }
  )mlir");
  EXPECT_THAT(runError("div", {Tensor{1, 2}, Tensor{1, 0}}),
              HasSubstr("'fnc.div': fnc::div:"));
  EXPECT_THAT(runError("add", {Tensor{1.f, 2.f}, Tensor{1.f, 2.f, 3.f}}),
              HasSubstr("'fnc.add': fnc::add: shapes [2] and [3]"));
  EXPECT_THAT(runError("reshape", {Tensor{1.f, 2.f, 3.f}}),
              HasSubstr("'fnc.reshape': fnc::reshape:"));
  EXPECT_THAT(runError("fill", {Tensor(int64_t{-2})}),
              HasSubstr("dynamic dimension #0 of tensor<?xf32> is -2"));
}

TEST_F(ErrorsTest, ResultTypeMismatchOfDynamicSize) {
  // The callee's result type promises 3 elements; the value has 2.
  load(R"mlir(
    func.func @f(%x: tensor<?xf32>) -> tensor<?xf32> {
      %0 = tensor.cast %x : tensor<?xf32> to tensor<3xf32>
      %1 = tensor.cast %0 : tensor<3xf32> to tensor<?xf32>
      return %1 : tensor<?xf32>
    }
  )mlir");
  EXPECT_EQ(runError("f", {Tensor{1.f, 2.f, 3.f}}), "");
  EXPECT_THAT(runError("f", {Tensor{1.f, 2.f}}),
              HasSubstr("'tensor.cast': result #0 is float32[2] but its type "
                        "is tensor<3xf32>"));
}

TEST_F(ErrorsTest, UnsupportedOpNamesItselfAndItsLocation) {
  load(R"mlir(
    func.func @f() -> tensor<2xf32> {
      %0 = tensor.empty() : tensor<2xf32>
      return %0 : tensor<2xf32>
    }
    func.func @g(%x: f32) -> f32 {
      %0 = arith.addf %x, %x : f32
      return %0 : f32
    }
  )mlir");
  std::string e = runError("f");
  EXPECT_THAT(e, HasSubstr("test.mlir:3:12: 'tensor.empty': op not supported "
                           "by the interpreter"));
  EXPECT_THAT(runError("g", {Tensor(1.f)}),
              HasSubstr("has type f32, which the interpreter cannot pass"));
}

TEST_F(ErrorsTest, UnsupportedOpInsideACallee) {
  load(R"mlir(
    func.func private @h() -> tensor<2xf32> {
      %0 = tensor.empty() : tensor<2xf32>
      return %0 : tensor<2xf32>
    }
    func.func @f() -> tensor<2xf32> {
      %0 = func.call @h() : () -> tensor<2xf32>
      return %0 : tensor<2xf32>
    }
  )mlir");
  std::string e = runError("f");
  EXPECT_THAT(e, HasSubstr("test.mlir:3:12: 'tensor.empty'"));
  EXPECT_THAT(e, HasSubstr("called from test.mlir:7:12"));
}

TEST_F(ErrorsTest, UnsupportedConstant) {
  load(R"mlir(
    func.func @f() {
      %c = arith.constant 1.0 : f32
      return
    }
  )mlir");
  EXPECT_THAT(runError("f"),
              HasSubstr("test.mlir:3:12: 'arith.constant': only integer, "
                        "index and dense tensor constants"));
}

TEST_F(ErrorsTest, IndexResultComesBackAsInt64) {
  load(R"mlir(
    func.func @f(%x: tensor<?xf32>) -> index {
      %c0 = arith.constant 0 : index
      %d = tensor.dim %x, %c0 : tensor<?xf32>
      return %d : index
    }
    func.func @g(%x: tensor<?xf32>) -> index {
      %c1 = arith.constant 1 : index
      %d = tensor.dim %x, %c1 : tensor<?xf32>
      return %d : index
    }
    func.func @h(%n: index) -> index {
      %c0 = arith.constant 0 : index
      %d = arith.divsi %n, %c0 : index
      return %d : index
    }
  )mlir");
  EXPECT_TENSOR(run("f", {Tensor{1.f, 2.f, 3.f}}).at(0), Tensor(int64_t{3}));
  EXPECT_THAT(runError("g", {Tensor{1.f}}),
              HasSubstr("dimension 1 is out of range for float32[1]"));
  EXPECT_THAT(runError("h", {Tensor(int64_t{4})}),
              HasSubstr("'arith.divsi': integer division by zero"));
}

TEST_F(ErrorsTest, RunawayRecursion) {
  options.maxCallDepth = 50;
  load(R"mlir(
    func.func @f(%x: tensor<f32>) -> tensor<f32> {
      %0 = func.call @f(%x) : (tensor<f32>) -> tensor<f32>
      return %0 : tensor<f32>
    }
  )mlir");
  EXPECT_THAT(runError("f", {Tensor(1.f)}),
              HasSubstr("calls nested more than 50 deep"));
}

TEST_F(ErrorsTest, ModuleThatDoesNotVerify) {
  // Build an invalid module by hand (the parser would reject it).
  module = mlir::parseSourceString<mlir::ModuleOp>(
      R"mlir(
        func.func @f(%x: tensor<2xf32>) -> tensor<2xf32> {
          return %x : tensor<2xf32>
        }
      )mlir",
      mlir::ParserConfig(&context), "test.mlir");
  ASSERT_TRUE(module);
  auto fn = module->lookupSymbol<mlir::func::FuncOp>("f");
  // Drop the terminator's operand: the return no longer matches the type.
  fn.getBody().front().getTerminator()->eraseOperand(0);
  auto interp = mlir::fnc::Interpreter::create(*module, options);
  ASSERT_FALSE(interp);
  EXPECT_THAT(llvm::toString(interp.takeError()),
              HasSubstr("the module does not verify"));
}

TEST_F(ErrorsTest, CondPicksTheRegionOfThePredicate) {
  load(R"mlir(
    func.func @f(%p: tensor<i1>) -> tensor<i32> {
      %r = fnc.cond %p : tensor<i1> -> tensor<i32> {
        %a = fnc.constant dense<1> : tensor<i32>
        fnc.yield %a : tensor<i32>
      } else {
        %b = fnc.constant dense<2> : tensor<i32>
        fnc.yield %b : tensor<i32>
      }
      return %r : tensor<i32>
    }
  )mlir");
  EXPECT_TENSOR(run("f", {Tensor(true)}).at(0), Tensor(int32_t{1}));
  EXPECT_TENSOR(run("f", {Tensor(false)}).at(0), Tensor(int32_t{2}));
}

// InterpreterOptions::maxElements and maxSteps bound what an untrusted
// module can take (the fuzz target sets them): a tensor over the limit,
// static or sized at run time, and a loop that does not end are errors.
TEST_F(ErrorsTest, SizeAndStepLimits) {
  options.maxElements = 1000;
  options.maxSteps = 500;
  load(R"mlir(
    func.func @static_fill() -> tensor<100x100xf32> {
      %0 = fnc.fill 1.0 : tensor<100x100xf32>
      return %0 : tensor<100x100xf32>
    }
    func.func @dynamic_fill(%n: index) -> tensor<?x?xf32> {
      %0 = fnc.fill 1.0 [%n, %n] : tensor<?x?xf32>
      return %0 : tensor<?x?xf32>
    }
    func.func @endless() -> tensor<i32> {
      %zero = fnc.constant dense<0> : tensor<i32>
      %r = fnc.while (%zero) : tensor<i32> cond {
      ^bb0(%i: tensor<i32>):
        %c = fnc.compare ge, %i, %zero : tensor<i32>, tensor<i32>
        fnc.condition %c, %i : tensor<i1>, tensor<i32>
      } do {
      ^bb0(%i: tensor<i32>):
        fnc.yield %i : tensor<i32>
      }
      return %r : tensor<i32>
    }
  )mlir");
  EXPECT_THAT(runError("static_fill"),
              HasSubstr("a tensor of shape [100x100] is over this "
                        "interpreter's limit of 1000 elements"));
  EXPECT_THAT(runError("dynamic_fill", {Tensor(int64_t{1} << 40)}),
              HasSubstr("is over this interpreter's limit of 1000 elements"));
  EXPECT_EQ(runError("dynamic_fill", {Tensor(int64_t{31})}), "");
  EXPECT_THAT(runError("endless"),
              HasSubstr("the call ran more than 500 ops, this interpreter's "
                        "limit (a loop that does not end?)"));
  // The count starts again with every call.
  EXPECT_EQ(runError("dynamic_fill", {Tensor(int64_t{2})}), "");
}

} // namespace
