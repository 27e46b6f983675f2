//===- ShapeOpsTest.cpp - Shape ops of the eager API ----------------------===//

#include "TestUtil.h"

using namespace fnc;
using fnc::test::randomInt;

namespace {

template <typename T> std::vector<T> vec(const Tensor &t) {
  return t.to_vector<T>();
}

TEST(ShapeOpsTest, Transpose) {
  Tensor x = {{1, 2, 3}, {4, 5, 6}};
  Tensor t = transpose(x);
  EXPECT_EQ(t.shape(), (Shape{3, 2}));
  EXPECT_EQ(vec<int32_t>(t), (std::vector<int32_t>{1, 4, 2, 5, 3, 6}));
  EXPECT_EQ(transpose(Tensor(1.f)).rank(), 0);
  // 3-D permutation against an explicit loop.
  std::mt19937 rng(1);
  Tensor c = randomInt(rng, {2, 3, 4});
  Tensor p = transpose(c, {2, 0, 1});
  ASSERT_EQ(p.shape(), (Shape{4, 2, 3}));
  for (int64_t i = 0; i < 4; ++i)
    for (int64_t j = 0; j < 2; ++j)
      for (int64_t k = 0; k < 3; ++k)
        ASSERT_EQ(p.at<int32_t>({i, j, k}), c.at<int32_t>({j, k, i}));
  EXPECT_FNC_ERROR(transpose(x, {0, 0}), InvalidArgument,
                   "fnc::transpose: permutation [0, 0] is not a permutation");
  EXPECT_FNC_ERROR(transpose(x, {0}), InvalidArgument, "fnc::transpose");
}

TEST(ShapeOpsTest, ReshapeExpandSqueeze) {
  Tensor x = range(0, 6, 1, DType::i64);
  EXPECT_EQ(reshape(x, {2, 3}).shape(), (Shape{2, 3}));
  EXPECT_EQ(reshape(x, {-1, 2}).shape(), (Shape{3, 2}));
  EXPECT_EQ(reshape(x, {3, 2}).at<int64_t>({2, 1}), 5);
  EXPECT_EQ(reshape(zeros({0, 4}), {-1, 2}).shape(), (Shape{0, 2}));
  EXPECT_EQ(expand_dims(x, 0).shape(), (Shape{1, 6}));
  EXPECT_EQ(expand_dims(x, -1).shape(), (Shape{6, 1}));
  Tensor s = zeros({1, 3, 1});
  EXPECT_EQ(squeeze(s).shape(), (Shape{3}));
  EXPECT_EQ(squeeze(s, {-1}).shape(), (Shape{1, 3}));
  EXPECT_FNC_ERROR(reshape(x, {4, -1}), InvalidArgument,
                   "fnc::reshape: cannot reshape [6]");
  EXPECT_FNC_ERROR(reshape(x, {-1, -1}), InvalidArgument, "more than one");
  EXPECT_FNC_ERROR(reshape(x, {-2, 3}), InvalidArgument, "fnc::reshape");
  EXPECT_FNC_ERROR(reshape(x, {4}), InvalidArgument, "element count");
  EXPECT_FNC_ERROR(expand_dims(x, 3), InvalidArgument,
                   "fnc::expand_dims: expand_dims axis 3 is out of range");
  EXPECT_FNC_ERROR(squeeze(s, {1}), InvalidArgument,
                   "fnc::squeeze: cannot squeeze axis 1");
  EXPECT_FNC_ERROR(squeeze(s, {5}), InvalidArgument, "out of range");
}

TEST(ShapeOpsTest, BroadcastTo) {
  Tensor x = {{1}, {2}};
  Tensor b = broadcast_to(x, {3, 2, 2});
  EXPECT_EQ(b.shape(), (Shape{3, 2, 2}));
  EXPECT_EQ(vec<int32_t>(b),
            (std::vector<int32_t>{1, 1, 2, 2, 1, 1, 2, 2, 1, 1, 2, 2}));
  EXPECT_EQ(broadcast_to(Tensor(5), {0}).size(), 0);
  EXPECT_FNC_ERROR(
      broadcast_to(x, {3, 3}), InvalidArgument,
      "fnc::broadcast_to: cannot broadcast shape [2, 1] to [3, 3]");
  EXPECT_FNC_ERROR(broadcast_to(x, {2, 1, -1}), InvalidArgument,
                   "negative dimension");
  EXPECT_FNC_ERROR(broadcast_to(x, {1}), InvalidArgument, "fnc::broadcast_to");
}

TEST(ShapeOpsTest, Slice) {
  Tensor x = reshape(range(0, 12, 1, DType::i32), {3, 4});
  Tensor s = slice(x, {1, 1}, {2, 2});
  EXPECT_EQ(vec<int32_t>(s), (std::vector<int32_t>{5, 6, 9, 10}));
  EXPECT_EQ(vec<int32_t>(slice(x, {0, 1}, {-1, -1}, {2, 2})),
            (std::vector<int32_t>{1, 3, 9, 11}));
  EXPECT_EQ(slice(x, {1, 0}, {-1, 4}).shape(), (Shape{2, 4}));
  EXPECT_EQ(slice(x, {3, 0}, {-1, 4}).shape(), (Shape{0, 4}));
  EXPECT_EQ(slice(x, {3, 4}, {0, 0}).size(), 0);
  EXPECT_FNC_ERROR(slice(x, {2, 0}, {2, 1}), InvalidArgument,
                   "fnc::slice: slice dimension 0 reads element 3");
  EXPECT_FNC_ERROR(slice(x, {0}, {1}), InvalidArgument,
                   "needs 2 offsets, sizes and strides");
  EXPECT_FNC_ERROR(slice(x, {-1, 0}, {1, 1}), InvalidArgument, "fnc::slice");
  EXPECT_FNC_ERROR(slice(x, {0, 0}, {1, 1}, {0, 1}), InvalidArgument,
                   "stride >= 1");
  EXPECT_FNC_ERROR(slice(x, {5, 0}, {0, 1}), InvalidArgument, "fnc::slice");
}

TEST(ShapeOpsTest, Pad) {
  Tensor x = {{1, 2, 3}, {4, 5, 6}};
  Tensor p = pad(x, {{1, 0}, {0, 2}}, 9);
  EXPECT_EQ(p.shape(), (Shape{3, 5}));
  EXPECT_EQ(vec<int32_t>(p), (std::vector<int32_t>{9, 9, 9, 9, 9, 1, 2, 3, 9, 9,
                                                   4, 5, 6, 9, 9}));
  // Interior padding: a dilation.
  Tensor d = pad(x, {{0, 0}, {1, 1}}, 0, {1, 1});
  EXPECT_EQ(d.shape(), (Shape{3, 7}));
  EXPECT_EQ(vec<int32_t>(d),
            (std::vector<int32_t>{0, 1, 0, 2, 0, 3, 0, 0, 0, 0, 0,
                                  0, 0, 0, 0, 4, 0, 5, 0, 6, 0}));
  EXPECT_EQ(pad(zeros({0, 2}), {{1, 1}, {0, 0}}, 1, {3, 0}).shape(),
            (Shape{2, 2}));
  EXPECT_EQ(pad(Tensor(2.5), {}, 1).item<double>(), 2.5);
  EXPECT_EQ(vec<bool>(pad(Tensor({true}), {{1, 0}}, 0)),
            (std::vector<bool>{false, true}));
  // Random shapes and amounts against an explicit loop.
  std::mt19937 rng(3);
  for (int trial = 0; trial < 10; ++trial) {
    Tensor c = randomInt(rng, {1 + trial % 3, 2 + trial % 2, 1 + trial % 4});
    std::vector<std::pair<int64_t, int64_t>> amounts;
    std::vector<int64_t> interior;
    for (int d = 0; d < 3; ++d) {
      amounts.push_back(
          {static_cast<int64_t>(rng() % 3), static_cast<int64_t>(rng() % 3)});
      interior.push_back(static_cast<int64_t>(rng() % 3));
    }
    Tensor q = pad(c, amounts, -7, interior);
    std::vector<int32_t> want(q.size(), -7);
    for (int64_t i = 0; i < c.shape()[0]; ++i)
      for (int64_t j = 0; j < c.shape()[1]; ++j)
        for (int64_t k = 0; k < c.shape()[2]; ++k) {
          int64_t a = amounts[0].first + i * (interior[0] + 1),
                  b = amounts[1].first + j * (interior[1] + 1),
                  e = amounts[2].first + k * (interior[2] + 1);
          want[(a * q.shape()[1] + b) * q.shape()[2] + e] =
              c.at<int32_t>({i, j, k});
        }
    ASSERT_EQ(vec<int32_t>(q), want) << "trial " << trial;
  }
  EXPECT_FNC_ERROR(pad(x, {{1, 1}}), InvalidArgument,
                   "fnc::pad: pad of a rank-2 operand needs 2 low, high and "
                   "interior amounts, got 1, 1 and 2");
  EXPECT_FNC_ERROR(pad(x, {{0, 0}, {-1, 0}}), InvalidArgument,
                   "pad dimension 1: the amounts must be >= 0");
  EXPECT_FNC_ERROR(pad(x, {{0, 0}, {0, 0}}, 0, {0, -1}), InvalidArgument,
                   "interior -1");
  EXPECT_FNC_ERROR(pad(x, {{0, 0}, {0, 0}}, 0.5), InvalidArgument,
                   "fnc::pad: the padding value 0.5 cannot be represented "
                   "exactly as int32");
}

TEST(ShapeOpsTest, Concat) {
  Tensor a = {{1, 2}, {3, 4}};
  Tensor b = {{5, 6}};
  EXPECT_EQ(vec<int32_t>(concat({a, b}, 0)),
            (std::vector<int32_t>{1, 2, 3, 4, 5, 6}));
  Tensor c = concat({a, transpose(b), a}, -1);
  EXPECT_EQ(c.shape(), (Shape{2, 5}));
  EXPECT_EQ(vec<int32_t>(c),
            (std::vector<int32_t>{1, 2, 5, 1, 2, 3, 4, 6, 3, 4}));
  EXPECT_EQ(concat({zeros({0, 2}), ones({1, 2})}, 0).shape(), (Shape{1, 2}));
  EXPECT_FNC_ERROR(concat({}, 0), InvalidArgument, "fnc::concat");
  EXPECT_FNC_ERROR(concat({a, b}, 1), InvalidArgument,
                   "fnc::concat: concat operands differ in dimension 0");
  EXPECT_FNC_ERROR(concat({a, cast(a, DType::f32)}, 0), InvalidArgument,
                   "different dtypes");
  EXPECT_FNC_ERROR(concat({a, a}, 2), InvalidArgument, "out of range");
}

TEST(ShapeOpsTest, Gather) {
  Tensor p = {{1.f, 2.f}, {3.f, 4.f}, {5.f, 6.f}};
  Tensor g = gather(p, Tensor({2, 0, 2}));
  EXPECT_EQ(g.shape(), (Shape{3, 2}));
  EXPECT_EQ(vec<float>(g), (std::vector<float>{5, 6, 1, 2, 5, 6}));
  Tensor g1 = gather(p, Tensor({{int64_t{1}}, {int64_t{0}}}), 1);
  EXPECT_EQ(g1.shape(), (Shape{3, 2, 1}));
  EXPECT_EQ(vec<float>(g1), (std::vector<float>{2, 1, 4, 3, 6, 5}));
  EXPECT_EQ(gather(p, Tensor(1)).shape(), (Shape{2}));
  EXPECT_FNC_ERROR(gather(p, Tensor({3})), OutOfRange,
                   "fnc::gather: index 3 (element 0 of the indices) is out of "
                   "range for axis 0 of params with shape [3, 2]; valid "
                   "indices are 0 to 2");
  EXPECT_FNC_ERROR(gather(p, Tensor({-1})), OutOfRange, "index -1");
  EXPECT_FNC_ERROR(gather(p, Tensor({0.f})), InvalidArgument,
                   "fnc::gather: indices must be int32 or int64");
  EXPECT_FNC_ERROR(gather(p, Tensor({0}), 2), InvalidArgument, "fnc::gather");
}

TEST(ShapeOpsTest, OneHot) {
  Tensor o = one_hot(Tensor({0, 2, 5, -1}), 3);
  EXPECT_EQ(o.shape(), (Shape{4, 3}));
  EXPECT_EQ(vec<float>(o),
            (std::vector<float>{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0}));
  Tensor t = one_hot(Tensor({1, 0}), 2, 5, -1, 0, DType::i32);
  EXPECT_EQ(t.shape(), (Shape{2, 2}));
  // axis 0: t[d][i] = (indices[i] == d).
  EXPECT_EQ(vec<int32_t>(t), (std::vector<int32_t>{-1, 5, 5, -1}));
  EXPECT_EQ(one_hot(Tensor({{1}}), 4, 1, 0, 1, DType::i1).shape(),
            (Shape{1, 4, 1}));
  EXPECT_FNC_ERROR(one_hot(Tensor({0}), -1), InvalidArgument,
                   "fnc::one_hot: one_hot depth must be >= 0");
  EXPECT_FNC_ERROR(one_hot(Tensor({0.f}), 2), InvalidArgument,
                   "fnc::one_hot: indices must be int32 or int64");
  EXPECT_FNC_ERROR(one_hot(Tensor({0}), 2, 1.5, 0, -1, DType::i32),
                   InvalidArgument, "on value");
  EXPECT_FNC_ERROR(one_hot(Tensor({0}), 2, 1, 0, 3), InvalidArgument,
                   "out of range");
}

} // namespace
