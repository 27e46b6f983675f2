//===- ElementwiseTest.cpp - Creation and elementwise ops of the eager API ===//

#include "TestUtil.h"

#include <cmath>
#include <limits>

using namespace fnc;
using fnc::test::randomFloat;
using fnc::test::randomInt;

namespace {

template <typename T> std::vector<T> vec(const Tensor &t) {
  return t.to_vector<T>();
}

TEST(CreationTest, ZerosOnesFill) {
  EXPECT_EQ(vec<float>(zeros({2, 2})), std::vector<float>(4, 0.f));
  EXPECT_EQ(vec<int64_t>(ones({3}, DType::i64)), std::vector<int64_t>(3, 1));
  EXPECT_EQ(vec<bool>(ones({2}, DType::i1)), std::vector<bool>(2, true));
  Tensor f = fill({2, 3}, 7, DType::i32);
  EXPECT_EQ(f.dtype(), DType::i32);
  EXPECT_EQ(vec<int32_t>(f), std::vector<int32_t>(6, 7));
  EXPECT_EQ(vec<double>(fill({2}, Tensor(2.5))), std::vector<double>(2, 2.5));
  EXPECT_EQ(zeros({}).rank(), 0);
  EXPECT_EQ(zeros({0, 5}).size(), 0);
  EXPECT_FNC_ERROR(zeros({2, -1}), InvalidArgument, "fnc::zeros");
  EXPECT_FNC_ERROR(fill({2}, 2.5, DType::i32), InvalidArgument, "fnc::fill");
  EXPECT_FNC_ERROR(fill({2}, Tensor({1.f, 2.f})), InvalidArgument,
                   "must be a scalar");
}

TEST(CreationTest, ShapeAsATensor) {
  Tensor x = ones({2, 3, 1});
  Tensor s = shape(x);
  EXPECT_EQ(s.dtype(), DType::i32);
  EXPECT_EQ(vec<int32_t>(s), (std::vector<int32_t>{2, 3, 1}));
  EXPECT_EQ(vec<int64_t>(shape(x, DType::i64)),
            (std::vector<int64_t>{2, 3, 1}));
  EXPECT_EQ(shape(Tensor(1.f)).shape(), (Shape{0}));
  // zeros / ones / fill of a shape tensor == of the Shape.
  EXPECT_EQ(zeros(s).shape(), (Shape{2, 3, 1}));
  EXPECT_EQ(vec<float>(zeros(s)), std::vector<float>(6, 0.f));
  EXPECT_EQ(vec<int32_t>(ones(shape(x, DType::i64), DType::i32)),
            std::vector<int32_t>(6, 1));
  EXPECT_EQ(vec<double>(fill(Tensor{2, 2}, Tensor(0.5))),
            std::vector<double>(4, 0.5));
  Tensor z = zeros_like(Tensor{{1, 2}, {3, 4}});
  EXPECT_EQ(z.dtype(), DType::i32);
  EXPECT_EQ(z.shape(), (Shape{2, 2}));
  EXPECT_EQ(vec<int32_t>(z), std::vector<int32_t>(4, 0));
  EXPECT_EQ(vec<bool>(ones_like(Tensor{false, false})),
            std::vector<bool>(2, true));
  EXPECT_EQ(zeros({2, 3}).shape(), (Shape{2, 3})); // still the Shape overload

  EXPECT_FNC_ERROR(shape(x, DType::f32), InvalidArgument,
                   "fnc::shape: the dtype must be int32 or int64");
  EXPECT_FNC_ERROR(zeros(Tensor{{2, 3}}), InvalidArgument,
                   "fnc::zeros: the shape must be a 1-D int32 or int64 tensor");
  EXPECT_FNC_ERROR(zeros(Tensor{2.f, 3.f}), InvalidArgument,
                   "the shape must be a 1-D int32 or int64 tensor");
  EXPECT_FNC_ERROR(zeros(Tensor{2, -3}), InvalidArgument,
                   "has a negative dimension");
  EXPECT_FNC_ERROR(fill(Tensor{2}, Tensor{1.f, 2.f}), InvalidArgument,
                   "must be a scalar");
  EXPECT_FNC_ERROR(zeros(Tensor()), FailedPrecondition, "null");
}

TEST(CreationTest, Range) {
  EXPECT_EQ(vec<float>(range(0.f, 5.f)), (std::vector<float>{0, 1, 2, 3, 4}));
  EXPECT_EQ(vec<int32_t>(range(10, 1, -3, DType::i32)),
            (std::vector<int32_t>{10, 7, 4}));
  EXPECT_EQ(vec<double>(range(0, 1, 0.25, DType::f64)),
            (std::vector<double>{0, 0.25, 0.5, 0.75}));
  EXPECT_EQ(range(5, 1).size(), 0);
  EXPECT_EQ(range(0, 7, 2, DType::i64).shape(), (Shape{4}));
  EXPECT_FNC_ERROR(range(0, 5, 0), InvalidArgument, "fnc::range");
  EXPECT_FNC_ERROR(range(0, 5, 0.5, DType::i32), InvalidArgument,
                   "must be integers");
  EXPECT_FNC_ERROR(range(0, 2, 1, DType::i1), InvalidArgument, "bool");
  EXPECT_FNC_ERROR(range(0, 1e30, 1e-30), InvalidArgument, "fnc::range");
}

TEST(CreationTest, Eye) {
  EXPECT_EQ(vec<float>(eye(2)), (std::vector<float>{1, 0, 0, 1}));
  Tensor e = eye(2, 3, DType::i32);
  EXPECT_EQ(e.shape(), (Shape{2, 3}));
  EXPECT_EQ(vec<int32_t>(e), (std::vector<int32_t>{1, 0, 0, 0, 1, 0}));
  EXPECT_FNC_ERROR(eye(-1), InvalidArgument, "fnc::eye");
}

TEST(CreationTest, Cast) {
  Tensor f = {-2.7f, -0.5f, 0.f, 0.5f, 2.7f};
  EXPECT_EQ(vec<int32_t>(cast(f, DType::i32)),
            (std::vector<int32_t>{-2, 0, 0, 0, 2}));
  EXPECT_EQ(vec<bool>(cast(f, DType::i1)),
            (std::vector<bool>{true, true, false, true, true}));
  EXPECT_EQ(vec<float>(cast(Tensor({true, false}), DType::f32)),
            (std::vector<float>{1, 0}));
  EXPECT_EQ(vec<int64_t>(cast(Tensor({3, -4}), DType::i64)),
            (std::vector<int64_t>{3, -4}));
  EXPECT_EQ(cast(f, DType::f32).data<float>(), f.data<float>());
  EXPECT_EQ(constant(Tensor({1, 2}), DType::f64).dtype(), DType::f64);
}

TEST(BinaryTest, ArithmeticByHand) {
  Tensor x = {{1.f, 2.f, 3.f}, {4.f, 5.f, 6.f}};
  Tensor y = {10.f, 20.f, 30.f};
  EXPECT_EQ(vec<float>(x + y), (std::vector<float>{11, 22, 33, 14, 25, 36}));
  EXPECT_EQ(vec<float>(y - x), (std::vector<float>{9, 18, 27, 6, 15, 24}));
  EXPECT_EQ(vec<float>(x * 2), (std::vector<float>{2, 4, 6, 8, 10, 12}));
  EXPECT_EQ(vec<float>(1 / Tensor({2.f, 4.f})),
            (std::vector<float>{.5f, .25f}));
  EXPECT_EQ(vec<float>(pow(Tensor({2.f, 3.f}), 2)), (std::vector<float>{4, 9}));
  EXPECT_EQ(vec<int32_t>(pow(Tensor({2, 3, -2}), Tensor({10, 0, 3}))),
            (std::vector<int32_t>{1024, 1, -8}));
  EXPECT_EQ(vec<float>(-x).front(), -1.f);
  EXPECT_EQ((x * 3).dtype(), DType::f32);
  EXPECT_EQ((Tensor({1, 2}) + int64_t{1}).dtype(), DType::i32);
  EXPECT_EQ(vec<float>(maximum(x, 3.5f)),
            (std::vector<float>{3.5, 3.5, 3.5, 4, 5, 6}));
  EXPECT_EQ(vec<float>(minimum(x, y)), (std::vector<float>{1, 2, 3, 4, 5, 6}));
}

TEST(BinaryTest, IntegerDivisionSemantics) {
  Tensor a = {7, -7, 7, -7};
  Tensor b = {2, 2, -2, -2};
  EXPECT_EQ(vec<int32_t>(div(a, b)), (std::vector<int32_t>{3, -3, -3, 3}));
  EXPECT_EQ(vec<int32_t>(floor_div(a, b)),
            (std::vector<int32_t>{3, -4, -4, 3}));
  EXPECT_EQ(vec<int32_t>(floor_mod(a, b)),
            (std::vector<int32_t>{1, 1, -1, -1}));
  Tensor fa = {7.f, -7.f, 7.f, -7.f};
  Tensor fb = {2.f, 2.f, -2.f, -2.f};
  EXPECT_EQ(vec<float>(floor_div(fa, fb)), (std::vector<float>{3, -4, -4, 3}));
  EXPECT_EQ(vec<float>(floor_mod(fa, fb)), (std::vector<float>{1, 1, -1, -1}));
  EXPECT_EQ(vec<float>(floor_mod(Tensor({5.5f}), 2.f)),
            (std::vector<float>{1.5f}));
  // INT_MIN / -1 wraps instead of trapping.
  int64_t lo = std::numeric_limits<int64_t>::min();
  EXPECT_EQ(div(Tensor(lo), Tensor(int64_t{-1})).item<int64_t>(), lo);
  EXPECT_EQ(floor_mod(Tensor(lo), Tensor(int64_t{-1})).item<int64_t>(), 0);
  // Overflow wraps.
  EXPECT_EQ((Tensor(std::numeric_limits<int32_t>::max()) + 1).item<int32_t>(),
            std::numeric_limits<int32_t>::min());
}

TEST(BinaryTest, DivisionByZero) {
  EXPECT_FNC_ERROR(div(Tensor({1, 2}), Tensor({1, 0})), InvalidArgument,
                   "fnc::div: integer division by zero");
  EXPECT_FNC_ERROR(floor_div(Tensor(int64_t{1}), Tensor(int64_t{0})),
                   InvalidArgument, "fnc::floor_div");
  EXPECT_FNC_ERROR(floor_mod(Tensor({1}), 0), InvalidArgument,
                   "fnc::floor_mod");
  // Floats follow IEEE.
  EXPECT_TRUE(std::isinf((Tensor(1.f) / 0.f).item<float>()));
  EXPECT_TRUE(std::isnan((Tensor(0.f) / 0.f).item<float>()));
}

TEST(BinaryTest, NaNPropagation) {
  float nan = std::numeric_limits<float>::quiet_NaN();
  EXPECT_TRUE(std::isnan(maximum(Tensor(nan), Tensor(1.f)).item<float>()));
  EXPECT_TRUE(std::isnan(maximum(Tensor(1.f), Tensor(nan)).item<float>()));
  EXPECT_TRUE(std::isnan(minimum(Tensor(nan), Tensor(1.f)).item<float>()));
  EXPECT_TRUE(std::isnan(minimum(Tensor(1.f), Tensor(nan)).item<float>()));
}

TEST(BinaryTest, Comparisons) {
  Tensor x = {1, 2, 3};
  EXPECT_EQ(vec<bool>(x == 2), (std::vector<bool>{false, true, false}));
  EXPECT_EQ(vec<bool>(x != 2), (std::vector<bool>{true, false, true}));
  EXPECT_EQ(vec<bool>(x < 2), (std::vector<bool>{true, false, false}));
  EXPECT_EQ(vec<bool>(x <= 2), (std::vector<bool>{true, true, false}));
  EXPECT_EQ(vec<bool>(x > 2), (std::vector<bool>{false, false, true}));
  EXPECT_EQ(vec<bool>(x >= 2), (std::vector<bool>{false, true, true}));
  EXPECT_EQ(vec<bool>(2 < x), (std::vector<bool>{false, false, true}));
  EXPECT_EQ((x == x).dtype(), DType::i1);
  Tensor b = {true, false};
  EXPECT_EQ(vec<bool>(b == true), (std::vector<bool>{true, false}));
  EXPECT_EQ(vec<bool>(equal(b, Tensor({true, true}))),
            (std::vector<bool>{true, false}));
}

TEST(BinaryTest, Logical) {
  Tensor a = {true, true, false, false};
  Tensor b = {true, false, true, false};
  EXPECT_EQ(vec<bool>(logical_and(a, b)),
            (std::vector<bool>{true, false, false, false}));
  EXPECT_EQ(vec<bool>(logical_or(a, b)),
            (std::vector<bool>{true, true, true, false}));
  EXPECT_EQ(vec<bool>(logical_not(a)),
            (std::vector<bool>{false, false, true, true}));
  EXPECT_EQ(vec<bool>(logical_and(a, true)), vec<bool>(a));
}

TEST(BinaryTest, Select) {
  Tensor c = {{true}, {false}};
  Tensor a = {1.f, 2.f, 3.f};
  Tensor r = select(c, a, 0.f - a);
  EXPECT_EQ(r.shape(), (Shape{2, 3}));
  EXPECT_EQ(vec<float>(r), (std::vector<float>{1, 2, 3, -1, -2, -3}));
  EXPECT_EQ(vec<int32_t>(select(Tensor(true), Tensor({1, 2}), Tensor(0))),
            (std::vector<int32_t>{1, 2}));
  EXPECT_FNC_ERROR(select(a, a, a), InvalidArgument, "fnc::select");
  EXPECT_FNC_ERROR(select(c, a, Tensor({1, 2, 3})), InvalidArgument,
                   "different dtypes");
  EXPECT_FNC_ERROR(select(Tensor({true, false}), a, a), InvalidArgument,
                   "not broadcast-compatible");
}

TEST(BinaryTest, BroadcastingEdgeCases) {
  // Rank mismatch, scalar with empty, empty with empty.
  Tensor m = zeros({2, 1, 3});
  EXPECT_EQ((m + ones({4, 1})).shape(), (Shape{2, 4, 3}));
  EXPECT_EQ((zeros({0, 3}) + Tensor(1.f)).shape(), (Shape{0, 3}));
  EXPECT_EQ((zeros({0, 3}) + zeros({1, 3})).shape(), (Shape{0, 3}));
  EXPECT_EQ((Tensor(2.f) * Tensor(3.f)).item<float>(), 6.f);
}

// Broadcast results against an explicit loop over the output index.
TEST(BinaryTest, RandomBroadcastMatchesExplicitLoop) {
  std::mt19937 rng(42);
  std::uniform_int_distribution<int> rankDist(0, 4), dimDist(1, 4), coin(0, 2);
  for (int iter = 0; iter < 200; ++iter) {
    int rank = rankDist(rng);
    Shape out(rank);
    for (int64_t &d : out)
      d = dimDist(rng);
    auto operandShape = [&] {
      int r = std::uniform_int_distribution<int>(0, rank)(rng);
      Shape s(out.end() - r, out.end());
      for (int64_t &d : s)
        if (coin(rng) == 0)
          d = 1;
      return s;
    };
    Shape sa = operandShape(), sb = operandShape();
    Tensor a = randomInt(rng, sa), b = randomInt(rng, sb, 1, 9);
    Tensor sum = a + b, q = floor_div(a, b), lt = a < b;
    ASSERT_EQ(sum.rank(), static_cast<int64_t>(std::max(sa.size(), sb.size())));
    int64_t n = sum.size();
    std::vector<int64_t> idx(sum.rank());
    for (int64_t flat = 0; flat < n; ++flat) {
      int64_t rem = flat;
      for (int64_t d = sum.rank() - 1; d >= 0; --d) {
        idx[d] = rem % sum.shape()[d];
        rem /= sum.shape()[d];
      }
      auto at = [&](const Tensor &t) {
        int64_t off = 0, lead = sum.rank() - t.rank();
        for (int64_t d = 0; d < t.rank(); ++d)
          off = off * t.shape()[d] + (t.shape()[d] == 1 ? 0 : idx[lead + d]);
        return t.data<int32_t>()[off];
      };
      int32_t x = at(a), y = at(b);
      int32_t fd = x / y - ((x % y != 0) && ((x < 0) != (y < 0)));
      ASSERT_EQ(sum.data<int32_t>()[flat], x + y) << "iteration " << iter;
      ASSERT_EQ(q.data<int32_t>()[flat], fd) << "iteration " << iter;
      ASSERT_EQ(lt.data<bool>()[flat], x < y) << "iteration " << iter;
    }
  }
}

TEST(BinaryTest, Errors) {
  Tensor f = {{1.f, 2.f, 3.f}, {4.f, 5.f, 6.f}};
  EXPECT_FNC_ERROR(f + Tensor({1.f, 2.f, 3.f, 4.f}), InvalidArgument,
                   "fnc::add: shapes [2, 3] and [4] are not "
                   "broadcast-compatible");
  EXPECT_FNC_ERROR(f + Tensor({1.f, 2.f, 3.f, 4.f}), InvalidArgument,
                   "(operands float32[2,3], float32[4])");
  EXPECT_FNC_ERROR(f + Tensor({1, 2, 3}), InvalidArgument,
                   "fnc::add: operands have different dtypes float32 and "
                   "int32");
  EXPECT_FNC_ERROR(Tensor({1, 2}) * 2.5, InvalidArgument,
                   "fnc::mul: the C++ scalar 2.5 cannot be represented");
  EXPECT_FNC_ERROR(Tensor({1, 2}) + (int64_t{1} << 40), InvalidArgument,
                   "fnc::add");
  EXPECT_FNC_ERROR(Tensor({true}) + Tensor({false}), InvalidArgument,
                   "fnc::add: is not defined for bool");
  EXPECT_FNC_ERROR(Tensor({true}) < Tensor({false}), InvalidArgument,
                   "fnc::less");
  EXPECT_FNC_ERROR(logical_and(f, f), InvalidArgument,
                   "fnc::logical_and: needs bool operands");
  EXPECT_FNC_ERROR(logical_or(Tensor({1}), Tensor({1})), InvalidArgument,
                   "fnc::logical_or");
  EXPECT_FNC_ERROR(pow(Tensor({2}), Tensor({-1})), InvalidArgument,
                   "fnc::pow: integers to negative integer powers");
  EXPECT_FNC_ERROR(Tensor({true}) == 2, InvalidArgument, "fnc::equal");
}

TEST(UnaryTest, ByHand) {
  Tensor x = {-1.5f, 0.f, 2.25f};
  EXPECT_EQ(vec<float>(abs(x)), (std::vector<float>{1.5f, 0.f, 2.25f}));
  EXPECT_EQ(vec<float>(relu(x)), (std::vector<float>{0.f, 0.f, 2.25f}));
  EXPECT_EQ(vec<float>(square(x)), (std::vector<float>{2.25f, 0.f, 5.0625f}));
  EXPECT_EQ(vec<float>(sign(x)), (std::vector<float>{-1.f, 0.f, 1.f}));
  EXPECT_EQ(vec<float>(floor(x)), (std::vector<float>{-2.f, 0.f, 2.f}));
  EXPECT_EQ(vec<float>(ceil(x)), (std::vector<float>{-1.f, 0.f, 3.f}));
  EXPECT_EQ(vec<float>(neg(x)), (std::vector<float>{1.5f, -0.f, -2.25f}));
  EXPECT_FLOAT_EQ(exp(Tensor(1.f)).item<float>(), std::exp(1.f));
  EXPECT_FLOAT_EQ(log(Tensor(2.0)).item<double>(), std::log(2.0));
  EXPECT_FLOAT_EQ(sqrt(Tensor(9.f)).item<float>(), 3.f);
  EXPECT_FLOAT_EQ(rsqrt(Tensor(4.f)).item<float>(), 0.5f);
  EXPECT_FLOAT_EQ(tanh(Tensor(0.5f)).item<float>(), std::tanh(0.5f));
  EXPECT_FLOAT_EQ(sigmoid(Tensor(0.f)).item<float>(), 0.5f);
  EXPECT_FLOAT_EQ(sigmoid(Tensor(-100.f)).item<float>(), 0.f);
  Tensor i = {-3, 0, 4};
  EXPECT_EQ(vec<int32_t>(abs(i)), (std::vector<int32_t>{3, 0, 4}));
  EXPECT_EQ(vec<int32_t>(-i), (std::vector<int32_t>{3, 0, -4}));
  EXPECT_EQ(vec<int32_t>(relu(i)), (std::vector<int32_t>{0, 0, 4}));
  EXPECT_EQ(vec<int32_t>(square(i)), (std::vector<int32_t>{9, 0, 16}));
  EXPECT_EQ(vec<int32_t>(sign(i)), (std::vector<int32_t>{-1, 0, 1}));
  EXPECT_TRUE(std::isnan(
      sign(Tensor(std::numeric_limits<float>::quiet_NaN())).item<float>()));
}

TEST(UnaryTest, Errors) {
  Tensor i = {1, 2};
  EXPECT_FNC_ERROR(exp(i), InvalidArgument,
                   "fnc::exp: needs a float operand, got int32; cast first");
  EXPECT_FNC_ERROR(log(i), InvalidArgument, "fnc::log");
  EXPECT_FNC_ERROR(sqrt(i), InvalidArgument, "fnc::sqrt");
  EXPECT_FNC_ERROR(rsqrt(i), InvalidArgument, "fnc::rsqrt");
  EXPECT_FNC_ERROR(tanh(i), InvalidArgument, "fnc::tanh");
  EXPECT_FNC_ERROR(sigmoid(i), InvalidArgument, "fnc::sigmoid");
  EXPECT_FNC_ERROR(floor(i), InvalidArgument, "fnc::floor");
  EXPECT_FNC_ERROR(ceil(i), InvalidArgument, "fnc::ceil");
  Tensor b = {true};
  EXPECT_FNC_ERROR(-b, InvalidArgument, "fnc::neg: is not defined for bool");
  EXPECT_FNC_ERROR(abs(b), InvalidArgument, "fnc::abs");
  EXPECT_FNC_ERROR(logical_not(i), InvalidArgument, "fnc::logical_not");
}

// The ops added through the op table: each eager result equals the C
// library's function on random inputs (the scalar definitions call it), and
// the definitions that are not a single libm call are checked by hand.
TEST(UnaryTest, TableOpsMatchLibmOnRandomInputs) {
  std::mt19937 rng(7);
  Tensor x = randomFloat(rng, {64}, -6, 6);
  Tensor pos = randomFloat(rng, {64}, 0.01f, 6);
  std::vector<float> vx = vec<float>(x), vp = vec<float>(pos);
  struct Case {
    const char *name;
    Tensor (*op)(const Tensor &);
    float (*libm)(float);
    bool positive;
  };
  const Case cases[] = {
      {"sin", sin, [](float v) { return std::sin(v); }, false},
      {"cos", cos, [](float v) { return std::cos(v); }, false},
      {"erf", erf, [](float v) { return std::erf(v); }, false},
      {"expm1", expm1, [](float v) { return std::expm1(v); }, false},
      {"log1p", log1p, [](float v) { return std::log1p(v); }, true},
  };
  for (const Case &c : cases) {
    SCOPED_TRACE(c.name);
    const std::vector<float> &in = c.positive ? vp : vx;
    std::vector<float> got = vec<float>(c.op(c.positive ? pos : x));
    for (size_t i = 0; i < in.size(); ++i)
      EXPECT_EQ(got[i], c.libm(in[i])) << "x = " << in[i];
  }
  std::vector<double> y =
      vec<double>(atan2(cast(x, DType::f64), cast(pos - 3.f, DType::f64)));
  for (size_t i = 0; i < vx.size(); ++i)
    EXPECT_EQ(y[i], std::atan2(double(vx[i]), double(vp[i] - 3.f)));
}

TEST(UnaryTest, RoundHalvesToEven) {
  Tensor x = {-2.5f, -1.5f,       -0.5f, 0.5f,     1.5f,
              2.5f,  0.49999997f, -3.7f, 8388609.f};
  EXPECT_EQ(vec<float>(round(x)),
            (std::vector<float>{-2.f, -2.f, -0.f, 0.f, 2.f, 2.f, 0.f, -4.f,
                                8388609.f}));
  EXPECT_TRUE(std::signbit(round(Tensor(-0.5)).item<double>()));
  EXPECT_TRUE(std::isnan(
      round(Tensor(std::numeric_limits<double>::quiet_NaN())).item<double>()));
}

TEST(UnaryTest, SoftplusIsStable) {
  Tensor x = {-100.f, -20.f, 0.f, 20.f, 100.f, 1e30f};
  std::vector<float> got = vec<float>(softplus(x));
  EXPECT_FLOAT_EQ(got[0], std::exp(-100.f)); // not 0: log1p keeps it
  EXPECT_FLOAT_EQ(got[1], std::log1p(std::exp(-20.f)));
  EXPECT_FLOAT_EQ(got[2], std::log(2.f));
  EXPECT_FLOAT_EQ(got[3], 20.f);
  EXPECT_EQ(got[4], 100.f); // log(1 + e^100) would overflow
  EXPECT_EQ(got[5], 1e30f);
}

TEST(BinaryTest, RemainderOperator) {
  Tensor x = {7, -7, 7, -7};
  EXPECT_EQ(vec<int32_t>(x % 3), (std::vector<int32_t>{1, 2, 1, 2}));
  EXPECT_EQ(vec<int32_t>(x % Tensor{2, 2, -2, -2}),
            (std::vector<int32_t>{1, 1, -1, -1}));
  EXPECT_EQ(vec<float>(Tensor{5.5f, -5.5f} % 2.f),
            (std::vector<float>{1.5f, 0.5f}));
  EXPECT_EQ(vec<int32_t>(10 % Tensor{3, -3}), (std::vector<int32_t>{1, -2}));
}

TEST(BinaryTest, Atan2Quadrants) {
  const double pi = std::acos(-1.0);
  Tensor y = {1.0, 1.0, -1.0, -1.0, 0.0, -0.0};
  Tensor x = {1.0, -1.0, -1.0, 1.0, -1.0, -1.0};
  std::vector<double> got = vec<double>(atan2(y, x));
  EXPECT_DOUBLE_EQ(got[0], pi / 4);
  EXPECT_DOUBLE_EQ(got[1], 3 * pi / 4);
  EXPECT_DOUBLE_EQ(got[2], -3 * pi / 4);
  EXPECT_DOUBLE_EQ(got[3], -pi / 4);
  EXPECT_DOUBLE_EQ(got[4], pi);
  EXPECT_DOUBLE_EQ(got[5], -pi);
  // Broadcasting like every binary op.
  EXPECT_EQ(atan2(Tensor({1.f, 2.f}), Tensor(1.f)).shape(),
            (std::vector<int64_t>{2}));
}

TEST(UnaryTest, TableOpErrors) {
  Tensor i = {1, 2};
  for (Tensor (*op)(const Tensor &) :
       {sin, cos, erf, log1p, expm1, softplus, round})
    EXPECT_FNC_ERROR(op(i), InvalidArgument,
                     "needs a float operand, got int32; cast first");
  EXPECT_FNC_ERROR(sin(Tensor{true}), InvalidArgument,
                   "fnc::sin: is not defined for bool");
  EXPECT_FNC_ERROR(atan2(i, i), InvalidArgument,
                   "fnc::atan2: needs float operands, got int32");
  EXPECT_FNC_ERROR(atan2(Tensor{1.f}, Tensor{1.0}), InvalidArgument,
                   "operands have different dtypes");
}

} // namespace
