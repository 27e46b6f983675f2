//===- ReductionTest.cpp - Reductions, argmax and softmax of the eager API ===//

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

TEST(ReductionTest, ByHand) {
  Tensor x = {{1.f, 2.f, 3.f}, {4.f, 5.f, 6.f}};
  EXPECT_EQ(reduce_sum(x).item<float>(), 21.f);
  EXPECT_EQ(vec<float>(reduce_sum(x, {0})), (std::vector<float>{5, 7, 9}));
  EXPECT_EQ(vec<float>(reduce_sum(x, {-1})), (std::vector<float>{6, 15}));
  Tensor k = reduce_sum(x, {1}, true);
  EXPECT_EQ(k.shape(), (Shape{2, 1}));
  EXPECT_EQ(reduce_sum(x, {}, true).shape(), (Shape{1, 1}));
  EXPECT_EQ(reduce_mean(x).item<float>(), 3.5f);
  EXPECT_EQ(vec<float>(reduce_max(x, {0})), (std::vector<float>{4, 5, 6}));
  EXPECT_EQ(vec<float>(reduce_min(x, {1})), (std::vector<float>{1, 4}));
  EXPECT_EQ(reduce_prod(x).item<float>(), 720.f);
  EXPECT_EQ(reduce_sum(Tensor(3.f)).item<float>(), 3.f);
  Tensor i = {{1, 2}, {3, 5}};
  EXPECT_EQ(vec<int32_t>(reduce_mean(i, {1})), (std::vector<int32_t>{1, 4}));
  EXPECT_EQ(reduce_mean(Tensor({-3, -4})).item<int32_t>(), -3);
  Tensor b = {{true, false}, {true, true}};
  EXPECT_EQ(vec<bool>(reduce_all(b, {1})), (std::vector<bool>{false, true}));
  EXPECT_EQ(vec<bool>(reduce_any(b, {0})), (std::vector<bool>{true, true}));
}

TEST(ReductionTest, EmptyReductions) {
  Tensor e = zeros({0, 3});
  EXPECT_EQ(vec<float>(reduce_sum(e, {0})), (std::vector<float>(3, 0.f)));
  EXPECT_EQ(reduce_prod(e).item<float>(), 1.f);
  EXPECT_EQ(reduce_max(e).item<float>(),
            -std::numeric_limits<float>::infinity());
  EXPECT_EQ(reduce_min(e).item<float>(),
            std::numeric_limits<float>::infinity());
  EXPECT_TRUE(std::isnan(reduce_mean(e).item<float>()));
  Tensor ei = zeros({0}, DType::i32);
  EXPECT_EQ(reduce_max(ei).item<int32_t>(),
            std::numeric_limits<int32_t>::min());
  EXPECT_EQ(reduce_min(ei).item<int32_t>(),
            std::numeric_limits<int32_t>::max());
  EXPECT_EQ(reduce_mean(ei).item<int32_t>(), 0);
  EXPECT_EQ(reduce_sum(e, {1}).shape(), (Shape{0}));
  EXPECT_EQ(reduce_all(zeros({0}, DType::i1)).item<bool>(), true);
}

TEST(ReductionTest, NaNPropagates) {
  float nan = std::numeric_limits<float>::quiet_NaN();
  EXPECT_TRUE(std::isnan(reduce_max(Tensor({1.f, nan, 3.f})).item<float>()));
  EXPECT_TRUE(std::isnan(reduce_min(Tensor({nan, 1.f})).item<float>()));
}

// Every subset of axes of random 4-D tensors against a naive sum.
TEST(ReductionTest, RandomAxesMatchNaiveLoops) {
  std::mt19937 rng(7);
  Shape shape = {3, 1, 4, 5};
  Tensor x = randomInt(rng, shape);
  Tensor xf = cast(x, DType::f64);
  for (int mask = 0; mask < 16; ++mask) {
    std::vector<int64_t> axes;
    for (int d = 0; d < 4; ++d)
      if (mask & (1 << d))
        axes.push_back(d - ((d % 2) ? 4 : 0)); // mix negative axes
    bool all = axes.empty();
    Tensor s = reduce_sum(x, axes, true);
    Tensor m = reduce_max(xf, axes, true);
    Tensor p = reduce_prod(x, axes);
    ASSERT_EQ(s.rank(), 4);
    // Naive: accumulate each input element into its kept position.
    std::vector<int32_t> sums(s.size(), 0);
    std::vector<uint32_t> prods(s.size(), 1); // integer products wrap
    std::vector<double> maxes(s.size(), -INFINITY);
    for (int64_t a = 0; a < 3; ++a)
      for (int64_t b = 0; b < 1; ++b)
        for (int64_t c = 0; c < 4; ++c)
          for (int64_t d = 0; d < 5; ++d) {
            int64_t idx[4] = {a, b, c, d};
            int64_t off = 0;
            for (int dim = 0; dim < 4; ++dim) {
              bool reduced = all || (mask & (1 << dim));
              off = off * s.shape()[dim] + (reduced ? 0 : idx[dim]);
            }
            int32_t v = x.at<int32_t>({a, b, c, d});
            sums[off] += v;
            prods[off] *= static_cast<uint32_t>(v);
            maxes[off] = std::max(maxes[off], double(v));
          }
    EXPECT_EQ(vec<int32_t>(s), sums) << "mask " << mask;
    EXPECT_EQ(vec<double>(m), maxes) << "mask " << mask;
    EXPECT_EQ(vec<int32_t>(p), std::vector<int32_t>(prods.begin(), prods.end()))
        << "mask " << mask;
  }
}

TEST(ReductionTest, LargeFloatSumIsAccurate) {
  Tensor x = fill({1000, 1000}, 0.1, DType::f32);
  EXPECT_NEAR(reduce_sum(x).item<float>(), 100000.f, 0.1f);
  EXPECT_NEAR(reduce_mean(x).item<float>(), 0.1f, 1e-6f);
}

TEST(ReductionTest, Errors) {
  Tensor x = zeros({2, 3});
  EXPECT_FNC_ERROR(reduce_sum(x, {2}), InvalidArgument,
                   "fnc::reduce_sum: reduction axis 2 is out of range for "
                   "rank 2");
  EXPECT_FNC_ERROR(reduce_mean(x, {0, -2}), InvalidArgument,
                   "fnc::reduce_mean: reduction axis -2 is given twice");
  EXPECT_FNC_ERROR(reduce_max(Tensor({true}), {}), InvalidArgument,
                   "fnc::reduce_max: is not defined for bool");
  EXPECT_FNC_ERROR(reduce_min(x, {-3}), InvalidArgument, "fnc::reduce_min");
  EXPECT_FNC_ERROR(reduce_prod(x, {7}), InvalidArgument, "fnc::reduce_prod");
  EXPECT_FNC_ERROR(reduce_any(x), InvalidArgument,
                   "fnc::reduce_any: needs a bool operand");
  EXPECT_FNC_ERROR(reduce_all(x), InvalidArgument, "fnc::reduce_all");
}

TEST(ArgmaxTest, FirstExtreme) {
  Tensor x = {{1.f, 3.f, 3.f}, {7.f, 0.f, 7.f}};
  Tensor a = argmax(x, 1);
  EXPECT_EQ(a.dtype(), DType::i64);
  EXPECT_EQ(vec<int64_t>(a), (std::vector<int64_t>{1, 0}));
  EXPECT_EQ(vec<int32_t>(argmax(x, 0, DType::i32)),
            (std::vector<int32_t>{1, 0, 1}));
  EXPECT_EQ(vec<int64_t>(argmin(x, -1)), (std::vector<int64_t>{0, 1}));
  float nan = std::numeric_limits<float>::quiet_NaN();
  EXPECT_EQ(argmax(Tensor({1.f, nan, 5.f, nan}), 0).item<int64_t>(), 1);
  EXPECT_EQ(argmax(Tensor({-5, -2, -9}), 0).item<int64_t>(), 1);
  EXPECT_EQ(argmax(zeros({0, 3}), 1).shape(), (Shape{0}));
  EXPECT_FNC_ERROR(argmax(zeros({3, 0}), 1), InvalidArgument,
                   "fnc::argmax: axis 1 is empty");
  EXPECT_FNC_ERROR(argmax(x, 2), InvalidArgument, "fnc::argmax: axis 2");
  EXPECT_FNC_ERROR(argmin(Tensor({true}), 0), InvalidArgument, "fnc::argmin");
  EXPECT_FNC_ERROR(argmax(x, 0, DType::f32), InvalidArgument,
                   "output dtype must be int32 or int64");
}

TEST(SoftmaxTest, StableAndNormalized) {
  Tensor x = {{1.f, 2.f, 3.f}, {1000.f, 1000.f, -1000.f}};
  Tensor s = softmax(x);
  std::vector<float> v = vec<float>(s);
  double e1 = std::exp(-2.0), e2 = std::exp(-1.0), z = e1 + e2 + 1;
  EXPECT_NEAR(v[0], e1 / z, 1e-6);
  EXPECT_NEAR(v[1], e2 / z, 1e-6);
  EXPECT_NEAR(v[2], 1 / z, 1e-6);
  EXPECT_NEAR(v[3], 0.5, 1e-6);
  EXPECT_NEAR(v[4], 0.5, 1e-6);
  EXPECT_NEAR(v[5], 0.0, 1e-6);
  Tensor ls = log_softmax(x, 1);
  EXPECT_NEAR(ls.at<float>({0, 2}), -std::log(z), 1e-5);
  EXPECT_NEAR(ls.at<float>({1, 0}), -std::log(2.0), 1e-5);
  EXPECT_NEAR(ls.at<float>({1, 2}), -2000 - std::log(2.0), 1e-2);
  Tensor s0 = softmax(x, 0);
  EXPECT_NEAR(s0.at<float>({0, 2}) + s0.at<float>({1, 2}), 1.0, 1e-6);
  // Property: rows of a random softmax sum to 1.
  std::mt19937 rng(3);
  Tensor r = softmax(randomFloat(rng, {5, 7}, -30, 30));
  for (float rowSum : vec<float>(reduce_sum(r, {1})))
    EXPECT_NEAR(rowSum, 1.f, 1e-5);
  EXPECT_FNC_ERROR(softmax(Tensor({1, 2})), InvalidArgument,
                   "fnc::softmax: needs a float operand");
  EXPECT_FNC_ERROR(log_softmax(x, 2), InvalidArgument, "fnc::log_softmax");
  EXPECT_FNC_ERROR(softmax(Tensor(1.f)), InvalidArgument, "fnc::softmax");
}

} // namespace
