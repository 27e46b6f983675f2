//===- OpsTest.cpp - Interpreting each family of fnc ops ------------------===//
//
// Small modules per op family (creation, elementwise, linalg, shape ops,
// reductions, upstream index arithmetic), with results checked against
// hand-computed values.
//
//===----------------------------------------------------------------------===//

#include "InterpreterTestUtil.h"

#include "fnc/Reference/Kernels.h"

using namespace fnc;
using namespace fnc::test;

namespace {

using OpsTest = InterpreterTest;

TEST_F(OpsTest, Creation) {
  load(R"mlir(
    func.func @f(%n: index) -> (tensor<2x2xf32>, tensor<?x3xi32>, tensor<5xi32>,
                                tensor<4xf64>, tensor<3x4xf32>, tensor<1x2xi32>,
                                tensor<2xi1>, tensor<2xi1>) {
      %0 = fnc.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
      %1 = fnc.fill 2.7 [%n] : tensor<?x3xi32>
      %2 = fnc.range 0.0, 10.0, 2.0 : tensor<5xi32>
      %3 = fnc.range 1.0, 0.0, -0.25 : tensor<4xf64>
      %4 = fnc.eye : tensor<3x4xf32>
      %c = fnc.constant dense<[[-1.7, 2.9]]> : tensor<1x2xf32>
      %5 = fnc.cast %c : tensor<1x2xf32> to tensor<1x2xi32>
      %6 = fnc.fill -0.5 : tensor<2xi1>
      %7 = fnc.constant dense<[true, false]> : tensor<2xi1>
      return %0, %1, %2, %3, %4, %5, %6, %7 : tensor<2x2xf32>, tensor<?x3xi32>,
          tensor<5xi32>, tensor<4xf64>, tensor<3x4xf32>, tensor<1x2xi32>,
          tensor<2xi1>, tensor<2xi1>
    }
  )mlir");
  auto r = run("f", {Tensor(int64_t{2})});
  ASSERT_EQ(r.size(), 8u);
  EXPECT_TENSOR(r[0], Tensor{{1.f, 2.f}, {3.f, 4.f}});
  EXPECT_TENSOR(r[1], Tensor{{2, 2, 2}, {2, 2, 2}});
  EXPECT_TENSOR(r[2], Tensor{0, 2, 4, 6, 8});
  EXPECT_TENSOR(r[3], Tensor{1.0, 0.75, 0.5, 0.25});
  EXPECT_TENSOR(
      r[4],
      Tensor{{1.f, 0.f, 0.f, 0.f}, {0.f, 1.f, 0.f, 0.f}, {0.f, 0.f, 1.f, 0.f}});
  EXPECT_TENSOR(r[5], Tensor{{-1, 2}});
  EXPECT_TENSOR(r[6], Tensor{true, true});
  EXPECT_TENSOR(r[7], Tensor{true, false});
}

TEST_F(OpsTest, SplatConstantAndScalar) {
  load(R"mlir(
    func.func @f() -> (tensor<2x2xi64>, tensor<f64>) {
      %0 = fnc.constant dense<7> : tensor<2x2xi64>
      %1 = fnc.constant dense<0.5> : tensor<f64>
      return %0, %1 : tensor<2x2xi64>, tensor<f64>
    }
  )mlir");
  auto r = run("f");
  ASSERT_EQ(r.size(), 2u);
  EXPECT_TENSOR(r[0], Tensor(std::vector<int64_t>{7, 7, 7, 7}, {2, 2}));
  EXPECT_TENSOR(r[1], Tensor(0.5));
}

TEST_F(OpsTest, BinaryElementwise) {
  load(R"mlir(
    func.func @f(%a: tensor<2x3xf32>, %b: tensor<3xf32>, %i: tensor<4xi32>,
                 %j: tensor<4xi32>)
        -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>,
            tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>,
            tensor<2x3xf32>, tensor<2x3xf32>) {
      %0 = fnc.add %a, %b : tensor<2x3xf32>, tensor<3xf32>
      %1 = fnc.sub %b, %a : tensor<3xf32>, tensor<2x3xf32>
      %2 = fnc.mul %a, %b : tensor<2x3xf32>, tensor<3xf32>
      %3 = fnc.div %a, %b : tensor<2x3xf32>, tensor<3xf32>
      %4 = fnc.div %i, %j : tensor<4xi32>, tensor<4xi32>
      %5 = fnc.floor_div %i, %j : tensor<4xi32>, tensor<4xi32>
      %6 = fnc.floor_mod %i, %j : tensor<4xi32>, tensor<4xi32>
      %7 = fnc.mul %i, %j : tensor<4xi32>, tensor<4xi32>
      %8 = fnc.maximum %a, %b : tensor<2x3xf32>, tensor<3xf32>
      %9 = fnc.minimum %a, %b : tensor<2x3xf32>, tensor<3xf32>
      return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9
          : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>,
            tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>,
            tensor<2x3xf32>, tensor<2x3xf32>
    }
  )mlir");
  Tensor a = {{1.f, 2.f, 3.f}, {4.f, 5.f, 6.f}};
  Tensor b = {2.f, 4.f, 5.f};
  Tensor i = {-7, 7, -7, 7};
  Tensor j = {2, -3, 3, 2};
  auto r = run("f", {a, b, i, j});
  ASSERT_EQ(r.size(), 10u);
  EXPECT_TENSOR(r[0], Tensor{{3.f, 6.f, 8.f}, {6.f, 9.f, 11.f}});
  EXPECT_TENSOR(r[1], Tensor{{1.f, 2.f, 2.f}, {-2.f, -1.f, -1.f}});
  EXPECT_TENSOR(r[2], Tensor{{2.f, 8.f, 15.f}, {8.f, 20.f, 30.f}});
  EXPECT_TENSOR(r[3], Tensor{{0.5f, 0.5f, 0.6f}, {2.f, 1.25f, 1.2f}});
  EXPECT_TENSOR(r[4], Tensor{-3, -2, -2, 3}); // truncates toward zero
  EXPECT_TENSOR(r[5], Tensor{-4, -3, -3, 3}); // rounds toward -inf
  EXPECT_TENSOR(r[6], Tensor{1, -2, 2, 1});   // sign of the divisor
  EXPECT_TENSOR(r[7], Tensor{-14, -21, -21, 14});
  EXPECT_TENSOR(r[8], Tensor{{2.f, 4.f, 5.f}, {4.f, 5.f, 6.f}});
  EXPECT_TENSOR(r[9], Tensor{{1.f, 2.f, 3.f}, {2.f, 4.f, 5.f}});
}

TEST_F(OpsTest, ComparisonsSelectAndLogic) {
  load(R"mlir(
    func.func @f(%a: tensor<4xf32>, %b: tensor<f32>, %p: tensor<4xi1>)
        -> (tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>,
            tensor<4xi1>, tensor<4xf32>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>) {
      %0 = fnc.compare eq, %a, %b : tensor<4xf32>, tensor<f32>
      %1 = fnc.compare ne, %a, %b : tensor<4xf32>, tensor<f32>
      %2 = fnc.compare lt, %a, %b : tensor<4xf32>, tensor<f32>
      %3 = fnc.compare le, %a, %b : tensor<4xf32>, tensor<f32>
      %4 = fnc.compare gt, %a, %b : tensor<4xf32>, tensor<f32>
      %5 = fnc.compare ge, %a, %b : tensor<4xf32>, tensor<f32>
      %6 = fnc.select %2, %a, %b : tensor<4xi1>, tensor<4xf32>, tensor<f32>
      %7 = fnc.logical_and %2, %p : tensor<4xi1>, tensor<4xi1>
      %8 = fnc.logical_or %2, %p : tensor<4xi1>, tensor<4xi1>
      %9 = fnc.logical_not %p : tensor<4xi1>
      return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9
          : tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>,
            tensor<4xi1>, tensor<4xf32>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>
    }
  )mlir");
  float nan = std::nanf("");
  auto r = run("f", {Tensor{1.f, 2.f, 3.f, nan}, Tensor(2.f),
                     Tensor{true, false, true, false}});
  ASSERT_EQ(r.size(), 10u);
  EXPECT_TENSOR(r[0], Tensor{false, true, false, false});
  EXPECT_TENSOR(r[1], Tensor{true, false, true, true}); // NaN: only ne
  EXPECT_TENSOR(r[2], Tensor{true, false, false, false});
  EXPECT_TENSOR(r[3], Tensor{true, true, false, false});
  EXPECT_TENSOR(r[4], Tensor{false, false, true, false});
  EXPECT_TENSOR(r[5], Tensor{false, true, true, false});
  EXPECT_TENSOR(r[6], Tensor{1.f, 2.f, 2.f, 2.f});
  EXPECT_TENSOR(r[7], Tensor{true, false, false, false});
  EXPECT_TENSOR(r[8], Tensor{true, false, true, false});
  EXPECT_TENSOR(r[9], Tensor{false, true, false, true});
}

TEST_F(OpsTest, IntegerPow) {
  load(R"mlir(
    func.func @f(%x: tensor<3xi64>, %y: tensor<3xi64>) -> tensor<3xi64> {
      %0 = fnc.pow %x, %y : tensor<3xi64>, tensor<3xi64>
      return %0 : tensor<3xi64>
    }
  )mlir");
  auto r = run("f", {Tensor(std::vector<int64_t>{2, -3, 5}),
                     Tensor(std::vector<int64_t>{10, 3, 0})});
  ASSERT_EQ(r.size(), 1u);
  EXPECT_TENSOR(r[0], Tensor(std::vector<int64_t>{1024, -27, 1}));
}

TEST_F(OpsTest, UnaryElementwise) {
  load(R"mlir(
    func.func @f(%x: tensor<3xf64>, %i: tensor<3xi32>)
        -> (tensor<3xf64>, tensor<3xf64>, tensor<3xf64>, tensor<3xf64>,
            tensor<3xf64>, tensor<3xf64>, tensor<3xf64>, tensor<3xf64>,
            tensor<3xi32>, tensor<3xi32>, tensor<3xi32>, tensor<3xi32>,
            tensor<3xf64>, tensor<3xf64>) {
      %0 = fnc.neg %x : tensor<3xf64>
      %1 = fnc.abs %x : tensor<3xf64>
      %ax = fnc.abs %x : tensor<3xf64>
      %2 = fnc.exp %x : tensor<3xf64>
      %3 = fnc.log %ax : tensor<3xf64>
      %4 = fnc.sqrt %ax : tensor<3xf64>
      %5 = fnc.rsqrt %ax : tensor<3xf64>
      %6 = fnc.tanh %x : tensor<3xf64>
      %7 = fnc.sigmoid %x : tensor<3xf64>
      %8 = fnc.relu %i : tensor<3xi32>
      %9 = fnc.square %i : tensor<3xi32>
      %10 = fnc.sign %i : tensor<3xi32>
      %11 = fnc.abs %i : tensor<3xi32>
      %12 = fnc.floor %x : tensor<3xf64>
      %13 = fnc.ceil %x : tensor<3xf64>
      return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13
          : tensor<3xf64>, tensor<3xf64>, tensor<3xf64>, tensor<3xf64>,
            tensor<3xf64>, tensor<3xf64>, tensor<3xf64>, tensor<3xf64>,
            tensor<3xi32>, tensor<3xi32>, tensor<3xi32>, tensor<3xi32>,
            tensor<3xf64>, tensor<3xf64>
    }
  )mlir");
  auto r = run("f", {Tensor{-4.0, 1.0, 2.25}, Tensor{-3, 0, 5}});
  ASSERT_EQ(r.size(), 14u);
  EXPECT_TENSOR(r[0], Tensor{4.0, -1.0, -2.25});
  EXPECT_TENSOR(r[1], Tensor{4.0, 1.0, 2.25});
  EXPECT_TENSOR(r[2], Tensor{std::exp(-4.0), std::exp(1.0), std::exp(2.25)});
  EXPECT_TENSOR(r[3], Tensor{std::log(4.0), 0.0, std::log(2.25)});
  EXPECT_TENSOR(r[4], Tensor{2.0, 1.0, 1.5});
  EXPECT_TENSOR(r[5], Tensor{0.5, 1.0, 1 / 1.5});
  EXPECT_TENSOR(r[6], Tensor{std::tanh(-4.0), std::tanh(1.0), std::tanh(2.25)});
  EXPECT_TENSOR(r[7], Tensor{1 / (1 + std::exp(4.0)), 1 / (1 + std::exp(-1.0)),
                             1 / (1 + std::exp(-2.25))});
  EXPECT_TENSOR(r[8], Tensor{0, 0, 5});
  EXPECT_TENSOR(r[9], Tensor{9, 0, 25});
  EXPECT_TENSOR(r[10], Tensor{-1, 0, 1});
  EXPECT_TENSOR(r[11], Tensor{3, 0, 5});
  EXPECT_TENSOR(r[12], Tensor{-4.0, 1.0, 2.0});
  EXPECT_TENSOR(r[13], Tensor{-4.0, 1.0, 3.0});
}

TEST_F(OpsTest, PoolingAndItsGradients) {
  load(R"mlir(
    func.func @f(%x: tensor<1x4x4x1xf32>, %dy: tensor<1x2x2x1xf32>)
        -> (tensor<1x2x2x1xf32>, tensor<1x2x2x1xf32>, tensor<1x4x4x1xf32>,
            tensor<1x4x4x1xf32>) {
      %0 = fnc.max_pool2d %x ksize [2, 2] strides [2, 2] padding valid
          : tensor<1x4x4x1xf32>
      %1 = fnc.avg_pool2d %x ksize [3, 3] strides [2, 2] padding same
          : tensor<1x4x4x1xf32>
      %2 = fnc.max_pool2d_grad %x, %dy ksize [2, 2] strides [2, 2]
          padding valid : tensor<1x4x4x1xf32>, tensor<1x2x2x1xf32>
      %3 = fnc.avg_pool2d_grad %x, %dy ksize [3, 3] strides [2, 2]
          padding same : tensor<1x4x4x1xf32>, tensor<1x2x2x1xf32>
      return %0, %1, %2, %3 : tensor<1x2x2x1xf32>, tensor<1x2x2x1xf32>,
          tensor<1x4x4x1xf32>, tensor<1x4x4x1xf32>
    }
    func.func @dyn(%x: tensor<?x?x?x?xf64>) -> tensor<?x?x?x?xf64> {
      %0 = fnc.max_pool2d %x ksize [3, 3] strides [1, 1] padding valid
          : tensor<?x?x?x?xf64>
      return %0 : tensor<?x?x?x?xf64>
    }
    func.func @grad(%x: tensor<?x4x4x1xf32>, %dy: tensor<?x2x2x1xf32>)
        -> tensor<?x4x4x1xf32> {
      %0 = fnc.avg_pool2d_grad %x, %dy ksize [2, 2] strides [2, 2]
          padding valid : tensor<?x4x4x1xf32>, tensor<?x2x2x1xf32>
      return %0 : tensor<?x4x4x1xf32>
    }
  )mlir");
  std::vector<float> v(16);
  for (int i = 0; i < 16; ++i)
    v[i] = float(i + 1);
  Tensor x(v, {1, 4, 4, 1});
  Tensor dy(std::vector<float>{1, 2, 3, 4}, {1, 2, 2, 1});
  auto r = run("f", {x, dy});
  ASSERT_EQ(r.size(), 4u);
  EXPECT_TENSOR(r[0], Tensor(std::vector<float>{6, 8, 14, 16}, {1, 2, 2, 1}));
  // Border windows of SAME average only the elements they cover (6, 6, 4).
  EXPECT_TENSOR(r[1],
                Tensor(std::vector<float>{6, 7.5, 12, 13.5}, {1, 2, 2, 1}));
  EXPECT_TENSOR(r[2], Tensor(std::vector<float>{0, 0, 0, 0, 0, 1, 0, 2, 0, 0, 0,
                                                0, 0, 3, 0, 4},
                             {1, 4, 4, 1}));
  // Window (0, 0) covers rows/cols 0-2 (9 elements), (0, 1) rows 0-2 and
  // cols 2-3 (6), (1, 0) 6, (1, 1) rows/cols 2-3 (4).
  float a = 1.f / 9, b = 2.f / 6, c = 3.f / 6, d = 4.f / 4;
  EXPECT_TENSOR(r[3], Tensor(std::vector<float>{a, a, a + b, b, //
                                                a, a, a + b, b, //
                                                a + c, a + c, a + b + c + d,
                                                b + d, //
                                                c, c, c + d, d},
                             {1, 4, 4, 1}));
  EXPECT_THAT(runError("dyn", {zeros({1, 2, 5, 1}, DType::f64)}),
              ::testing::HasSubstr("max_pool2d with valid padding: window "
                                   "[3, 3] is larger than the input "
                                   "[1, 2, 5, 1]"));
  EXPECT_THAT(runError("grad", {zeros({2, 4, 4, 1}), zeros({1, 2, 2, 1})}),
              ::testing::HasSubstr("the output gradient [1, 2, 2, 1] does not "
                                   "have the pooled shape [2, 2, 2, 1]"));
}

TEST_F(OpsTest, MatmulAndConv2D) {
  load(R"mlir(
    func.func @f(%a: tensor<2x2xf32>, %b: tensor<2x2xf32>, %x: tensor<1x3x3x1xf32>,
                 %w: tensor<2x2x1x1xf32>, %ab: tensor<3x2x2xf32>)
        -> (tensor<2x2xf32>, tensor<1x2x2x1xf32>, tensor<1x2x2x1xf32>,
            tensor<3x2x2xf32>) {
      %0 = fnc.matmul %a, %b : tensor<2x2xf32>, tensor<2x2xf32>
      %1 = fnc.conv2d %x, %w strides [1, 1] padding valid
          : tensor<1x3x3x1xf32>, tensor<2x2x1x1xf32>
      %2 = fnc.conv2d %x, %w strides [2, 2] padding same
          : tensor<1x3x3x1xf32>, tensor<2x2x1x1xf32>
      %3 = fnc.matmul %ab, %b : tensor<3x2x2xf32>, tensor<2x2xf32>
      return %0, %1, %2, %3 : tensor<2x2xf32>, tensor<1x2x2x1xf32>,
          tensor<1x2x2x1xf32>, tensor<3x2x2xf32>
    }
  )mlir");
  Tensor x(std::vector<float>{1, 2, 3, 4, 5, 6, 7, 8, 9}, {1, 3, 3, 1});
  Tensor w(std::vector<float>{1, 1, 1, 1}, {2, 2, 1, 1});
  Tensor ab(std::vector<float>{1, 0, 0, 1, 1, 2, 3, 4, 0, 0, 0, 0}, {3, 2, 2});
  auto r = run("f", {Tensor{{1.f, 2.f}, {3.f, 4.f}},
                     Tensor{{5.f, 6.f}, {7.f, 8.f}}, x, w, ab});
  ASSERT_EQ(r.size(), 4u);
  EXPECT_TENSOR(r[0], Tensor{{19.f, 22.f}, {43.f, 50.f}});
  EXPECT_TENSOR(r[1], Tensor(std::vector<float>{12, 16, 24, 28}, {1, 2, 2, 1}));
  // SAME with stride 2: one row/column of zeros after the input.
  EXPECT_TENSOR(r[2], Tensor(std::vector<float>{12, 9, 15, 9}, {1, 2, 2, 1}));
  EXPECT_TENSOR(
      r[3], Tensor(std::vector<float>{5, 6, 7, 8, 19, 22, 43, 50, 0, 0, 0, 0},
                   {3, 2, 2}));
}

TEST_F(OpsTest, ShapeOps) {
  load(R"mlir(
    func.func @f(%a: tensor<2x3xf32>, %d: tensor<?x4xi32>, %n: index,
                 %e: tensor<1x?x1xf32>, %i: tensor<2xi64>)
        -> (tensor<3x2xf32>, tensor<?x2x2xi32>, tensor<?x2x3xf32>,
            tensor<2x3x1xf32>, tensor<?xf32>, tensor<1x2xf32>, tensor<4x3xf32>,
            tensor<2x2xf32>, tensor<2x4xf32>, tensor<2x3xf32>) {
      %0 = fnc.transpose %a perm [1, 0] : tensor<2x3xf32>
      %1 = fnc.reshape %d : tensor<?x4xi32> -> tensor<?x2x2xi32>
      %2 = fnc.broadcast_to %a [%n] : tensor<2x3xf32> -> tensor<?x2x3xf32>
      %3 = fnc.expand_dims %a axis -1 : tensor<2x3xf32>
      %4 = fnc.squeeze %e axes [] : tensor<1x?x1xf32>
      %5 = fnc.slice %a offsets [1, 0] sizes [1, 2] strides [1, 2] : tensor<2x3xf32>
      %6 = fnc.concat %a, %a axis 0 : tensor<2x3xf32>, tensor<2x3xf32>
      %7 = fnc.gather %a, %i axis 1 : tensor<2x3xf32>, tensor<2xi64>
      %8 = fnc.one_hot %i depth 4 axis -1 on 5.0 off -1.0
          : tensor<2xi64> -> tensor<2x4xf32>
      %9 = fnc.reshape %0 : tensor<3x2xf32> -> tensor<2x3xf32>
      return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9
          : tensor<3x2xf32>, tensor<?x2x2xi32>, tensor<?x2x3xf32>,
            tensor<2x3x1xf32>, tensor<?xf32>, tensor<1x2xf32>, tensor<4x3xf32>,
            tensor<2x2xf32>, tensor<2x4xf32>, tensor<2x3xf32>
    }
  )mlir");
  Tensor a = {{1.f, 2.f, 3.f}, {4.f, 5.f, 6.f}};
  Tensor d(std::vector<int32_t>{1, 2, 3, 4, 5, 6, 7, 8}, {2, 4});
  Tensor e(std::vector<float>{7, 8, 9}, {1, 3, 1});
  auto r = run(
      "f", {a, d, Tensor(int32_t{2}), e, Tensor(std::vector<int64_t>{2, 0})});
  ASSERT_EQ(r.size(), 10u);
  EXPECT_TENSOR(r[0], Tensor{{1.f, 4.f}, {2.f, 5.f}, {3.f, 6.f}});
  EXPECT_TENSOR(
      r[1], Tensor(std::vector<int32_t>{1, 2, 3, 4, 5, 6, 7, 8}, {2, 2, 2}));
  EXPECT_TENSOR(r[2], Tensor{{{1.f, 2.f, 3.f}, {4.f, 5.f, 6.f}},
                             {{1.f, 2.f, 3.f}, {4.f, 5.f, 6.f}}});
  EXPECT_TENSOR(r[3], Tensor(std::vector<float>{1, 2, 3, 4, 5, 6}, {2, 3, 1}));
  // Only the dims of static size 1 go: the dynamic middle one stays.
  EXPECT_TENSOR(r[4], Tensor{7.f, 8.f, 9.f});
  EXPECT_TENSOR(r[5], Tensor{{4.f, 6.f}});
  EXPECT_TENSOR(r[6], Tensor{{1.f, 2.f, 3.f},
                             {4.f, 5.f, 6.f},
                             {1.f, 2.f, 3.f},
                             {4.f, 5.f, 6.f}});
  EXPECT_TENSOR(r[7], Tensor{{3.f, 1.f}, {6.f, 4.f}});
  EXPECT_TENSOR(r[8], Tensor{{-1.f, -1.f, 5.f, -1.f}, {5.f, -1.f, -1.f, -1.f}});
  EXPECT_TENSOR(r[9], Tensor{{1.f, 4.f, 2.f}, {5.f, 3.f, 6.f}});
}

TEST_F(OpsTest, SqueezeKeepsDynamicOne) {
  load(R"mlir(
    func.func @f(%e: tensor<?x3xf32>) -> tensor<?x3xf32> {
      %0 = fnc.squeeze %e axes [] : tensor<?x3xf32>
      return %0 : tensor<?x3xf32>
    }
  )mlir");
  auto r = run("f", {Tensor{{1.f, 2.f, 3.f}}});
  ASSERT_EQ(r.size(), 1u);
  EXPECT_TENSOR(r[0], Tensor{{1.f, 2.f, 3.f}});
}

TEST_F(OpsTest, Reductions) {
  load(R"mlir(
    func.func @f(%a: tensor<2x?xf32>, %i: tensor<2x3xi32>)
        -> (tensor<2x1xf32>, tensor<f32>, tensor<3xi32>, tensor<i32>,
            tensor<?xf32>, tensor<2xi64>, tensor<2x?xf32>, tensor<2x?xf32>,
            tensor<2xi32>) {
      %0 = fnc.sum %a axes [-1] keepdims : tensor<2x?xf32>
      %1 = fnc.mean %a axes [] : tensor<2x?xf32>
      %2 = fnc.max %i axes [0] : tensor<2x3xi32>
      %3 = fnc.min %i axes [0, 1] : tensor<2x3xi32>
      %4 = fnc.prod %a axes [0] : tensor<2x?xf32>
      %5 = fnc.argmax %i axis 1 : tensor<2x3xi32> -> tensor<2xi64>
      %6 = fnc.softmax %a axis -1 : tensor<2x?xf32>
      %7 = fnc.log_softmax %a axis 1 : tensor<2x?xf32>
      %8 = fnc.mean %i axes [1] : tensor<2x3xi32>
      return %0, %1, %2, %3, %4, %5, %6, %7, %8
          : tensor<2x1xf32>, tensor<f32>, tensor<3xi32>, tensor<i32>,
            tensor<?xf32>, tensor<2xi64>, tensor<2x?xf32>, tensor<2x?xf32>,
            tensor<2xi32>
    }
  )mlir");
  Tensor a = {{1.f, 2.f}, {3.f, 4.f}};
  Tensor i = {{3, 9, 9}, {-2, 0, 7}};
  auto r = run("f", {a, i});
  ASSERT_EQ(r.size(), 9u);
  EXPECT_TENSOR(r[0], Tensor{{3.f}, {7.f}});
  EXPECT_TENSOR(r[1], Tensor(2.5f));
  EXPECT_TENSOR(r[2], Tensor{3, 9, 9});
  EXPECT_TENSOR(r[3], Tensor(int32_t{-2}));
  EXPECT_TENSOR(r[4], Tensor{3.f, 8.f});
  EXPECT_TENSOR(r[5], Tensor(std::vector<int64_t>{1, 2})); // first max wins
  float s = 1 / (1 + std::exp(1.f));                       // softmax([1, 2])[0]
  EXPECT_TENSOR(r[6], Tensor{{s, 1 - s}, {s, 1 - s}});
  EXPECT_TENSOR(r[7], Tensor{{std::log(s), std::log(1 - s)},
                             {std::log(s), std::log(1 - s)}});
  EXPECT_TENSOR(r[8], Tensor{7, 1}); // 21/3, 5/3 truncated
}

TEST_F(OpsTest, UpstreamIndexArithmetic) {
  load(R"mlir(
    func.func @f(%x: tensor<?x2xf32>) -> (tensor<?xi32>, tensor<?x2xf32>) {
      %c0 = arith.constant 0 : index
      %c3 = arith.constant 3 : index
      %d = tensor.dim %x, %c0 : tensor<?x2xf32>
      %m = arith.muli %d, %c3 : index
      %s = arith.subi %m, %d : index
      %q = arith.floordivsi %s, %c3 : index
      %k = arith.addi %q, %c3 : index
      %0 = fnc.fill 1.0 [%k] : tensor<?xi32>
      %1 = tensor.cast %x : tensor<?x2xf32> to tensor<?x2xf32>
      return %0, %1 : tensor<?xi32>, tensor<?x2xf32>
    }
  )mlir");
  // d = 4: m = 12, s = 8, q = 2, k = 5.
  Tensor x(std::vector<float>(8, 0.5f), {4, 2});
  auto r = run("f", {x});
  ASSERT_EQ(r.size(), 2u);
  EXPECT_TENSOR(r[0], Tensor{1, 1, 1, 1, 1});
  EXPECT_TENSOR(r[1], x);
}

TEST_F(OpsTest, RandomIsSeededAndInRange) {
  const char *source = R"mlir(
    func.func @f(%n: index) -> (tensor<2x500xf32>, tensor<?xf64>, tensor<4000xf32>) {
      %0 = fnc.random_uniform min -1.0 max 1.0 seed 7 : tensor<2x500xf32>
      %1 = fnc.random_uniform [%n] min 2.0 max 3.0 : tensor<?xf64>
      %2 = fnc.random_normal mean 1.0 stddev 2.0 seed 3 : tensor<4000xf32>
      return %0, %1, %2 : tensor<2x500xf32>, tensor<?xf64>, tensor<4000xf32>
    }
  )mlir";
  load(source);
  auto first = run("f", {Tensor(int64_t{100})});
  auto second = run("f", {Tensor(int64_t{100})});
  ASSERT_EQ(first.size(), 3u);
  ASSERT_EQ(second.size(), 3u);
  EXPECT_EQ(first[0].shape(), (std::vector<int64_t>{2, 500}));
  EXPECT_EQ(first[1].shape(), (std::vector<int64_t>{100}));
  for (float v : first[0].to_vector<float>()) {
    EXPECT_GE(v, -1.f);
    EXPECT_LT(v, 1.f);
  }
  for (double v : first[1].to_vector<double>()) {
    EXPECT_GE(v, 2.0);
    EXPECT_LT(v, 3.0);
  }
  // Fresh values on every call.
  EXPECT_NE(first[0].to_vector<float>(), second[0].to_vector<float>());
  EXPECT_NE(first[1].to_vector<double>(), second[1].to_vector<double>());
  // Moments of the normal draw.
  std::vector<float> n = first[2].to_vector<float>();
  double mean = 0, var = 0;
  for (float v : n)
    mean += v;
  mean /= n.size();
  for (float v : n)
    var += (v - mean) * (v - mean);
  var /= n.size();
  EXPECT_NEAR(mean, 1.0, 0.1);
  EXPECT_NEAR(std::sqrt(var), 2.0, 0.1);
  // A fresh interpreter with the same seed reproduces the first call.
  load(source);
  auto again = run("f", {Tensor(int64_t{100})});
  ASSERT_EQ(again.size(), 3u);
  EXPECT_EQ(first[0].to_vector<float>(), again[0].to_vector<float>());
  EXPECT_EQ(first[1].to_vector<double>(), again[1].to_vector<double>());
  // Another global seed gives other values.
  options.seed = 42;
  load(source);
  auto other = run("f", {Tensor(int64_t{100})});
  ASSERT_EQ(other.size(), 3u);
  EXPECT_NE(first[0].to_vector<float>(), other[0].to_vector<float>());
}

TEST(PhiloxTest, KnownAnswer) {
  // Random123's known-answer test for Philox4x32-10, zero counter and key.
  std::array<uint32_t, 4> w = ref::philox4x32(0, 0);
  EXPECT_EQ(w[0], 0x6627e8d5u);
  EXPECT_EQ(w[1], 0xe169c58du);
  EXPECT_EQ(w[2], 0xbc57ac4cu);
  EXPECT_EQ(w[3], 0x9b00dbd8u);
}

} // namespace
