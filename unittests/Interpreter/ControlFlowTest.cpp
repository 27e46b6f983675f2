//===- ControlFlowTest.cpp - cond, while, calls, variables and print ------===//
//
// A factorial while loop, a Collatz loop with a cond nested in its body,
// func.call, module variables persisting across calls, variable slots of
// the caller, and the text fnc.print writes.
//
//===----------------------------------------------------------------------===//

#include "InterpreterTestUtil.h"

using namespace fnc;
using namespace fnc::test;

namespace {

using ControlFlowTest = InterpreterTest;

TEST_F(ControlFlowTest, WhileComputesFactorial) {
  load(R"mlir(
    func.func @fact(%n: tensor<i64>) -> tensor<i64> {
      %one = fnc.constant dense<1> : tensor<i64>
      %r:2 = fnc.while (%one, %one) : tensor<i64>, tensor<i64> cond {
      ^bb0(%i: tensor<i64>, %acc: tensor<i64>):
        %c = fnc.compare le, %i, %n : tensor<i64>, tensor<i64>
        fnc.condition %c, %i, %acc : tensor<i1>, tensor<i64>, tensor<i64>
      } do {
      ^bb0(%i: tensor<i64>, %acc: tensor<i64>):
        %a = fnc.mul %acc, %i : tensor<i64>, tensor<i64>
        %j = fnc.add %i, %one : tensor<i64>, tensor<i64>
        fnc.yield %j, %a : tensor<i64>, tensor<i64>
      }
      return %r#1 : tensor<i64>
    }
  )mlir");
  EXPECT_TENSOR(run("fact", {Tensor(int64_t{0})}).at(0), Tensor(int64_t{1}));
  EXPECT_TENSOR(run("fact", {Tensor(int64_t{5})}).at(0), Tensor(int64_t{120}));
  EXPECT_TENSOR(run("fact", {Tensor(int64_t{10})}).at(0),
                Tensor(int64_t{3628800}));
}

TEST_F(ControlFlowTest, CondNestedInWhile) {
  // Collatz: steps until x == 1, halving even x and mapping odd x to 3x+1.
  load(R"mlir(
    func.func @collatz(%x0: tensor<i32>) -> (tensor<i32>, tensor<i32>) {
      %zero = fnc.constant dense<0> : tensor<i32>
      %one = fnc.constant dense<1> : tensor<i32>
      %two = fnc.constant dense<2> : tensor<i32>
      %three = fnc.constant dense<3> : tensor<i32>
      %r:2 = fnc.while (%x0, %zero) : tensor<i32>, tensor<i32> cond {
      ^bb0(%x: tensor<i32>, %n: tensor<i32>):
        %c = fnc.compare ne, %x, %one : tensor<i32>, tensor<i32>
        fnc.condition %c, %x, %n : tensor<i1>, tensor<i32>, tensor<i32>
      } do {
      ^bb0(%x: tensor<i32>, %n: tensor<i32>):
        %m = fnc.floor_mod %x, %two : tensor<i32>, tensor<i32>
        %even = fnc.compare eq, %m, %zero : tensor<i32>, tensor<i32>
        %next = fnc.cond %even : tensor<i1> -> tensor<i32> {
          %h = fnc.div %x, %two : tensor<i32>, tensor<i32>
          fnc.yield %h : tensor<i32>
        } else {
          %t = fnc.mul %x, %three : tensor<i32>, tensor<i32>
          %u = fnc.add %t, %one : tensor<i32>, tensor<i32>
          fnc.yield %u : tensor<i32>
        }
        %n1 = fnc.add %n, %one : tensor<i32>, tensor<i32>
        fnc.yield %next, %n1 : tensor<i32>, tensor<i32>
      }
      return %r#0, %r#1 : tensor<i32>, tensor<i32>
    }
  )mlir");
  auto r = run("collatz", {Tensor(int32_t{6})});
  ASSERT_EQ(r.size(), 2u);
  EXPECT_TENSOR(r[0], Tensor(int32_t{1}));
  EXPECT_TENSOR(r[1], Tensor(int32_t{8}));
  EXPECT_TENSOR(run("collatz", {Tensor(int32_t{27})}).at(1),
                Tensor(int32_t{111}));
  EXPECT_TENSOR(run("collatz", {Tensor(int32_t{1})}).at(1), Tensor(int32_t{0}));
}

TEST_F(ControlFlowTest, CondWithoutResults) {
  load(R"mlir(
    func.func @f(%p: tensor<i1>) {
      fnc.cond %p : tensor<i1> {
        fnc.print "then"
      } else {
        fnc.print "else"
      }
      return
    }
  )mlir");
  run("f", {Tensor(true)});
  run("f", {Tensor(false)});
  EXPECT_EQ(out.str(), "then\nelse\n");
}

TEST_F(ControlFlowTest, WhileLoopCarriesDynamicShapes) {
  // Doubles a vector by concatenation until it has at least %n elements.
  load(R"mlir(
    func.func @grow(%x: tensor<?xf32>, %n: index) -> tensor<?xf32> {
      %c0 = arith.constant 0 : index
      %r = fnc.while (%x) : tensor<?xf32> cond {
      ^bb0(%v: tensor<?xf32>):
        %len = tensor.dim %v, %c0 : tensor<?xf32>
        %ones = fnc.constant dense<1.0> : tensor<1xf32>
        %l1 = fnc.broadcast_to %ones [%len] : tensor<1xf32> -> tensor<?xf32>
        %n1 = fnc.broadcast_to %ones [%n] : tensor<1xf32> -> tensor<?xf32>
        %ls = fnc.sum %l1 axes [] : tensor<?xf32>
        %ns = fnc.sum %n1 axes [] : tensor<?xf32>
        %c = fnc.compare lt, %ls, %ns : tensor<f32>, tensor<f32>
        fnc.condition %c, %v : tensor<i1>, tensor<?xf32>
      } do {
      ^bb0(%v: tensor<?xf32>):
        %w = fnc.concat %v, %v axis 0 : tensor<?xf32>, tensor<?xf32>
        fnc.yield %w : tensor<?xf32>
      }
      return %r : tensor<?xf32>
    }
  )mlir");
  auto r = run("grow", {Tensor{1.f, 2.f}, Tensor(int64_t{7})});
  ASSERT_EQ(r.size(), 1u);
  EXPECT_TENSOR(r[0], Tensor{1.f, 2.f, 1.f, 2.f, 1.f, 2.f, 1.f, 2.f});
}

TEST_F(ControlFlowTest, FuncCall) {
  load(R"mlir(
    func.func private @affine(%x: tensor<3xf32>, %a: tensor<f32>) -> tensor<3xf32> {
      %0 = fnc.mul %x, %a : tensor<3xf32>, tensor<f32>
      %1 = fnc.add %0, %a : tensor<3xf32>, tensor<f32>
      return %1 : tensor<3xf32>
    }
    func.func @main(%x: tensor<3xf32>) -> tensor<3xf32> {
      %a = fnc.constant dense<2.0> : tensor<f32>
      %0 = func.call @affine(%x, %a) : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
      %1 = func.call @affine(%0, %a) : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
      return %1 : tensor<3xf32>
    }
  )mlir");
  // (2x + 2) * 2 + 2 = 4x + 6.
  EXPECT_TENSOR(run("main", {Tensor{0.f, 1.f, -1.f}}).at(0),
                Tensor{6.f, 10.f, 2.f});
}

TEST_F(ControlFlowTest, ModuleVariablePersistsAcrossCalls) {
  load(R"mlir(
    fnc.global_variable @counter = dense<0> : tensor<i32>
    fnc.global_variable @w = dense<[1.0, 2.0]> : tensor<2xf32>
    func.func @step(%c: !fnc.variable<tensor<i32>> {fnc.bind = @counter},
                    %d: tensor<i32>) -> tensor<i32> {
      fnc.var_assign_add %c, %d : !fnc.variable<tensor<i32>>
      %v = fnc.var_read %c : !fnc.variable<tensor<i32>>
      return %v : tensor<i32>
    }
    func.func @decay(%w: !fnc.variable<tensor<2xf32>> {fnc.bind = @w},
                     %g: tensor<2xf32>) -> tensor<2xf32> {
      fnc.var_assign_sub %w, %g : !fnc.variable<tensor<2xf32>>
      %v = fnc.var_read %w : !fnc.variable<tensor<2xf32>>
      return %v : tensor<2xf32>
    }
  )mlir");
  EXPECT_TENSOR(run("step", {Tensor(int32_t{5})}).at(0), Tensor(int32_t{5}));
  EXPECT_TENSOR(run("step", {Tensor(int32_t{3})}).at(0), Tensor(int32_t{8}));
  EXPECT_TENSOR(*interpreter->getVariable("counter"), Tensor(int32_t{8}));
  EXPECT_TENSOR(run("decay", {Tensor{0.5f, 0.5f}}).at(0), Tensor{0.5f, 1.5f});
  EXPECT_TENSOR(run("decay", {Tensor{0.5f, 0.5f}}).at(0), Tensor{0.f, 1.f});

  // setVariable checks the type and is seen by the next call.
  EXPECT_FALSE(static_cast<bool>(
      interpreter->setVariable("counter", Tensor(int32_t{100}))));
  EXPECT_TENSOR(run("step", {Tensor(int32_t{1})}).at(0), Tensor(int32_t{101}));
  llvm::Error bad = interpreter->setVariable("counter", Tensor(1.f));
  ASSERT_TRUE(!!bad);
  EXPECT_NE(llvm::toString(std::move(bad)).find("tensor<i32>"),
            std::string::npos);
  llvm::Error missing = interpreter->setVariable("nope", Tensor(1.f));
  ASSERT_TRUE(!!missing);
  llvm::consumeError(std::move(missing));
  EXPECT_FALSE(interpreter->getVariable("nope").has_value());
}

TEST_F(ControlFlowTest, VariableSlotsOfTheCaller) {
  load(R"mlir(
    func.func @update(%v: !fnc.variable<tensor<2xf32>>, %x: tensor<2xf32>,
                      %u: !fnc.variable<tensor<2xf32>>) -> tensor<2xf32> {
      %old = fnc.var_read %v : !fnc.variable<tensor<2xf32>>
      fnc.var_assign %v, %x : !fnc.variable<tensor<2xf32>>
      fnc.var_assign_add %u, %old : !fnc.variable<tensor<2xf32>>
      return %old : tensor<2xf32>
    }
  )mlir");
  Tensor v = {1.f, 2.f};
  Tensor u = {10.f, 20.f};
  auto r = run("update", {Tensor{7.f, 8.f}}, {&v, &u});
  ASSERT_EQ(r.size(), 1u);
  EXPECT_TENSOR(r[0], Tensor{1.f, 2.f});
  EXPECT_TENSOR(v, Tensor{7.f, 8.f});
  EXPECT_TENSOR(u, Tensor{11.f, 22.f});
}

TEST_F(ControlFlowTest, VariablesThroughCallsAndLoops) {
  // A variable handle passed to a callee and updated inside a loop body.
  load(R"mlir(
    fnc.global_variable @acc = dense<0.0> : tensor<f32>
    func.func private @bump(%v: !fnc.variable<tensor<f32>>, %x: tensor<f32>) {
      fnc.var_assign_add %v, %x : !fnc.variable<tensor<f32>>
      return
    }
    func.func @main(%v: !fnc.variable<tensor<f32>> {fnc.bind = @acc},
                    %n: tensor<i32>) -> tensor<f32> {
      %zero = fnc.constant dense<0> : tensor<i32>
      %one = fnc.constant dense<1> : tensor<i32>
      %half = fnc.constant dense<0.5> : tensor<f32>
      %r = fnc.while (%zero) : tensor<i32> cond {
      ^bb0(%i: tensor<i32>):
        %c = fnc.compare lt, %i, %n : tensor<i32>, tensor<i32>
        fnc.condition %c, %i : tensor<i1>, tensor<i32>
      } do {
      ^bb0(%i: tensor<i32>):
        func.call @bump(%v, %half) : (!fnc.variable<tensor<f32>>, tensor<f32>) -> ()
        %j = fnc.add %i, %one : tensor<i32>, tensor<i32>
        fnc.yield %j : tensor<i32>
      }
      %out = fnc.var_read %v : !fnc.variable<tensor<f32>>
      return %out : tensor<f32>
    }
  )mlir");
  EXPECT_TENSOR(run("main", {Tensor(int32_t{4})}).at(0), Tensor(2.f));
  EXPECT_TENSOR(run("main", {Tensor(int32_t{2})}).at(0), Tensor(3.f));
}

TEST_F(ControlFlowTest, PrintFormats) {
  load(R"mlir(
    func.func @f(%a: tensor<2xf32>, %i: tensor<i32>, %m: tensor<2x2xi64>,
                 %p: tensor<2xi1>) {
      fnc.print "a = {}, i = {}" %a, %i : tensor<2xf32>, tensor<i32>
      fnc.print "values:" %a, %i : tensor<2xf32>, tensor<i32>
      fnc.print "m = {}" %m : tensor<2x2xi64>
      fnc.print "" %p : tensor<2xi1>
      fnc.print "just text"
      return
    }
  )mlir");
  run("f",
      {Tensor{1.f, 2.5f}, Tensor(int32_t{7}),
       Tensor(std::vector<int64_t>{1, 2, 3, 40}, {2, 2}), Tensor{true, false}});
  EXPECT_EQ(out.str(), "a = [1.  2.5], i = 7\n"
                       "values: [1.  2.5] 7\n"
                       "m = [[ 1  2]\n [ 3 40]]\n"
                       "[ True False]\n"
                       "just text\n");
}

TEST_F(ControlFlowTest, PrintRunsOnEveryIteration) {
  load(R"mlir(
    func.func @f(%n: tensor<i32>) {
      %zero = fnc.constant dense<0> : tensor<i32>
      %one = fnc.constant dense<1> : tensor<i32>
      %r = fnc.while (%zero) : tensor<i32> cond {
      ^bb0(%i: tensor<i32>):
        %c = fnc.compare lt, %i, %n : tensor<i32>, tensor<i32>
        fnc.condition %c, %i : tensor<i1>, tensor<i32>
      } do {
      ^bb0(%i: tensor<i32>):
        fnc.print "i = {}" %i : tensor<i32>
        %j = fnc.add %i, %one : tensor<i32>, tensor<i32>
        fnc.yield %j : tensor<i32>
      }
      return
    }
  )mlir");
  run("f", {Tensor(int32_t{3})});
  EXPECT_EQ(out.str(), "i = 0\ni = 1\ni = 2\n");
}

} // namespace
