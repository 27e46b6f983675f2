//===- LinalgTest.cpp - matmul, conv2d and pooling of the eager API -------===//

#include "TestUtil.h"

#include <cmath>

using namespace fnc;
using fnc::test::randomFloat;
using fnc::test::randomInt;

namespace {

template <typename T> std::vector<T> vec(const Tensor &t) {
  return t.to_vector<T>();
}

TEST(MatmulTest, ByHand) {
  Tensor a = {{1.f, 2.f}, {3.f, 4.f}};
  Tensor b = {{5.f, 6.f}, {7.f, 8.f}};
  EXPECT_EQ(vec<float>(matmul(a, b)), (std::vector<float>{19, 22, 43, 50}));
  Tensor ai = {{1, 2, 3}};
  Tensor bi = {{1}, {1}, {1}};
  EXPECT_EQ(matmul(ai, bi).item<int32_t>(), 6);
  EXPECT_EQ(matmul(zeros({2, 0}), zeros({0, 3})).shape(), (Shape{2, 3}));
  EXPECT_EQ(vec<float>(matmul(zeros({2, 0}), zeros({0, 3}))),
            std::vector<float>(6, 0.f));
  EXPECT_EQ(vec<float>(matmul(eye(2), a)), vec<float>(a));
}

// Random shapes with batch broadcasting against a naive triple loop.
TEST(MatmulTest, RandomMatchesNaive) {
  std::mt19937 rng(11);
  std::uniform_int_distribution<int> dim(1, 70);
  struct Case {
    Shape batchA, batchB;
  } cases[] = {{{}, {}}, {{3}, {3}}, {{2, 1}, {4}}, {{1}, {}}, {{}, {2, 2}}};
  for (const Case &c : cases) {
    for (int rep = 0; rep < 3; ++rep) {
      int64_t m = dim(rng), k = dim(rng), n = dim(rng);
      if (rep == 0)
        k = 300; // crosses the k block
      Shape sa = c.batchA, sb = c.batchB;
      sa.push_back(m), sa.push_back(k);
      sb.push_back(k), sb.push_back(n);
      Tensor a = randomInt(rng, sa, -3, 3), b = randomInt(rng, sb, -3, 3);
      Tensor af = cast(a, DType::f64), bf = cast(b, DType::f64);
      Tensor r = matmul(a, b), rf = matmul(af, bf);
      // Explicit broadcast of the batch dims, then the naive loop.
      Shape batch(r.shape().begin(), r.shape().end() - 2);
      Shape fullA = batch, fullB = batch;
      fullA.push_back(m), fullA.push_back(k);
      fullB.push_back(k), fullB.push_back(n);
      std::vector<int32_t> va = vec<int32_t>(broadcast_to(a, fullA));
      std::vector<int32_t> vb = vec<int32_t>(broadcast_to(b, fullB));
      int64_t nb = 1;
      for (int64_t d : batch)
        nb *= d;
      std::vector<int32_t> expect(nb * m * n, 0);
      for (int64_t q = 0; q < nb; ++q)
        for (int64_t i = 0; i < m; ++i)
          for (int64_t j = 0; j < n; ++j) {
            int32_t s = 0;
            for (int64_t kk = 0; kk < k; ++kk)
              s += va[(q * m + i) * k + kk] * vb[(q * k + kk) * n + j];
            expect[(q * m + i) * n + j] = s;
          }
      ASSERT_EQ(vec<int32_t>(r), expect);
      std::vector<double> got = vec<double>(rf);
      for (size_t i = 0; i < got.size(); ++i)
        ASSERT_EQ(got[i], double(expect[i]));
    }
  }
}

TEST(MatmulTest, Errors) {
  EXPECT_FNC_ERROR(matmul(zeros({2, 3}), zeros({2, 3})), InvalidArgument,
                   "fnc::matmul: matmul inner dimensions differ");
  EXPECT_FNC_ERROR(matmul(zeros({3}), zeros({3, 1})), InvalidArgument,
                   "rank >= 2");
  EXPECT_FNC_ERROR(matmul(zeros({2, 2, 2}), zeros({3, 2, 2})), InvalidArgument,
                   "batch dimensions");
  EXPECT_FNC_ERROR(matmul(zeros({2, 2}), zeros({2, 2}, DType::f64)),
                   InvalidArgument, "different dtypes");
  EXPECT_FNC_ERROR(matmul(ones({2, 2}, DType::i1), ones({2, 2}, DType::i1)),
                   InvalidArgument, "fnc::matmul: is not defined for bool");
}

// Naive direct convolution with TensorFlow's padding rule.
std::vector<double> naiveConv(const Tensor &in, const Tensor &f, int64_t sh,
                              int64_t sw, bool same, Shape &outShape) {
  int64_t n = in.shape()[0], h = in.shape()[1], w = in.shape()[2],
          c = in.shape()[3];
  int64_t kh = f.shape()[0], kw = f.shape()[1], fo = f.shape()[3];
  int64_t oh, ow, pt = 0, pl = 0;
  if (same) {
    oh = (h + sh - 1) / sh;
    ow = (w + sw - 1) / sw;
    pt = std::max<int64_t>((oh - 1) * sh + kh - h, 0) / 2;
    pl = std::max<int64_t>((ow - 1) * sw + kw - w, 0) / 2;
  } else {
    oh = (h - kh) / sh + 1;
    ow = (w - kw) / sw + 1;
  }
  outShape = {n, oh, ow, fo};
  std::vector<double> out(n * oh * ow * fo, 0);
  for (int64_t b = 0; b < n; ++b)
    for (int64_t y = 0; y < oh; ++y)
      for (int64_t x = 0; x < ow; ++x)
        for (int64_t o = 0; o < fo; ++o) {
          double s = 0;
          for (int64_t i = 0; i < kh; ++i)
            for (int64_t j = 0; j < kw; ++j)
              for (int64_t ch = 0; ch < c; ++ch) {
                int64_t iy = y * sh + i - pt, ix = x * sw + j - pl;
                if (iy < 0 || iy >= h || ix < 0 || ix >= w)
                  continue;
                s += in.at<double>({b, iy, ix, ch}) *
                     f.at<double>({i, j, ch, o});
              }
          out[((b * oh + y) * ow + x) * fo + o] = s;
        }
  return out;
}

TEST(Conv2dTest, ByHand) {
  // 1x3x3x1 input, 2x2x1x1 filter of ones: sums of 2x2 windows.
  Tensor in = reshape(range(1.f, 10.f), {1, 3, 3, 1});
  Tensor f = ones({2, 2, 1, 1});
  EXPECT_EQ(vec<float>(conv2d(in, f)), (std::vector<float>{12, 16, 24, 28}));
  // SAME pads after (bottom/right) first for an even filter.
  Tensor s = conv2d(in, f, {1, 1}, "SAME");
  EXPECT_EQ(s.shape(), (Shape{1, 3, 3, 1}));
  EXPECT_EQ(vec<float>(s),
            (std::vector<float>{12, 16, 9, 24, 28, 15, 15, 17, 9}));
  Tensor st = conv2d(in, f, {2, 2}, "SAME");
  EXPECT_EQ(vec<float>(st), (std::vector<float>{12, 9, 15, 9}));
}

TEST(Conv2dTest, RandomMatchesNaive) {
  std::mt19937 rng(5);
  std::uniform_int_distribution<int> small(1, 3), size(1, 8);
  for (int iter = 0; iter < 40; ++iter) {
    int64_t n = small(rng), h = size(rng), w = size(rng), c = small(rng),
            kh = small(rng), kw = small(rng), fo = small(rng), sh = small(rng),
            sw = small(rng);
    bool same = iter % 2 == 0;
    if (!same) {
      h = std::max(h, kh);
      w = std::max(w, kw);
    }
    Tensor in = cast(randomInt(rng, {n, h, w, c}, -4, 4), DType::f64);
    Tensor f = cast(randomInt(rng, {kh, kw, c, fo}, -4, 4), DType::f64);
    Shape expectShape;
    std::vector<double> expect = naiveConv(in, f, sh, sw, same, expectShape);
    Tensor out = conv2d(in, f, {sh, sw}, same ? "SAME" : "VALID");
    ASSERT_EQ(out.shape(), expectShape) << "iteration " << iter;
    ASSERT_EQ(vec<double>(out), expect) << "iteration " << iter;
    Tensor outF = conv2d(cast(in, DType::f32), cast(f, DType::f32), {sh, sw},
                         same ? "SAME" : "VALID");
    std::vector<float> vf = vec<float>(outF);
    for (size_t i = 0; i < vf.size(); ++i)
      ASSERT_EQ(vf[i], float(expect[i]));
  }
}

TEST(Conv2dTest, Errors) {
  Tensor in = zeros({1, 4, 4, 2});
  EXPECT_FNC_ERROR(conv2d(in, zeros({2, 2, 3, 1})), InvalidArgument,
                   "fnc::conv2d: conv2d input channels (2) differ");
  EXPECT_FNC_ERROR(conv2d(in, zeros({5, 5, 2, 1})), InvalidArgument,
                   "larger than the input");
  EXPECT_FNC_ERROR(conv2d(in, zeros({2, 2, 2, 1}), {1, 1}, "FULL"),
                   InvalidArgument, "padding must be \"VALID\" or \"SAME\"");
  EXPECT_FNC_ERROR(conv2d(in, zeros({2, 2, 2, 1}), {1}), InvalidArgument,
                   "strides must have 2 entries");
  EXPECT_FNC_ERROR(conv2d(in, zeros({2, 2, 2, 1}), {0, 1}), InvalidArgument,
                   "strides must be >= 1");
  EXPECT_FNC_ERROR(conv2d(zeros({4, 4, 2}), zeros({2, 2, 2, 1})),
                   InvalidArgument, "rank-4 NHWC");
  EXPECT_FNC_ERROR(conv2d(in, zeros({2, 2, 2, 1}, DType::f64)), InvalidArgument,
                   "different dtypes");
  EXPECT_FNC_ERROR(
      conv2d(ones({1, 2, 2, 1}, DType::i1), ones({1, 1, 1, 1}, DType::i1)),
      InvalidArgument, "fnc::conv2d: is not defined for bool");
}

TEST(Pool2dTest, ByHand) {
  Tensor in = reshape(range(1.f, 17.f), {1, 4, 4, 1});
  Tensor m = max_pool2d(in, {2, 2}, {2, 2});
  EXPECT_EQ(m.shape(), (Shape{1, 2, 2, 1}));
  EXPECT_EQ(vec<float>(m), (std::vector<float>{6, 8, 14, 16}));
  EXPECT_EQ(vec<float>(avg_pool2d(in, {2, 2}, {2, 2}, "VALID")),
            (std::vector<float>{3.5, 5.5, 11.5, 13.5}));
  // SAME: -inf padding for max, border windows divided by what they cover.
  Tensor neg = -in;
  EXPECT_EQ(vec<float>(max_pool2d(neg, {3, 3}, {2, 2}, "SAME")),
            (std::vector<float>{-1, -3, -9, -11}));
  EXPECT_EQ(vec<float>(avg_pool2d(in, {3, 3}, {2, 2}, "same")),
            (std::vector<float>{6, 7.5, 12, 13.5}));
  // Overlapping windows, float64, several channels.
  Tensor two = reshape(cast(range(0, 12), DType::f64), {1, 2, 3, 2});
  Tensor o = max_pool2d(two, {2, 2}, {1, 1});
  EXPECT_EQ(o.shape(), (Shape{1, 1, 2, 2}));
  EXPECT_EQ(vec<double>(o), (std::vector<double>{8, 9, 10, 11}));
  EXPECT_EQ(vec<double>(avg_pool2d(two, {2, 2}, {1, 1})),
            (std::vector<double>{4, 5, 6, 7}));
  // NaN propagates through max.
  Tensor nan = Tensor(std::vector<float>{1.f, NAN, 3.f, 4.f}, {1, 2, 2, 1});
  EXPECT_TRUE(std::isnan(max_pool2d(nan, {2, 2}, {2, 2}).item<float>()));
}

TEST(Pool2dTest, Errors) {
  Tensor in = zeros({1, 4, 4, 2});
  EXPECT_FNC_ERROR(max_pool2d(zeros({4, 4, 2}), {2, 2}, {2, 2}),
                   InvalidArgument,
                   "fnc::max_pool2d: max_pool2d needs a rank-4 NHWC input, "
                   "got [4, 4, 2] (operand float32[4,4,2])");
  EXPECT_FNC_ERROR(avg_pool2d(in, {2}, {2, 2}), InvalidArgument,
                   "fnc::avg_pool2d: avg_pool2d ksize must have 2 entries "
                   "(height, width), got 1");
  EXPECT_FNC_ERROR(max_pool2d(in, {2, 0}, {2, 2}), InvalidArgument,
                   "ksize must be >= 1, got [2, 0]");
  EXPECT_FNC_ERROR(max_pool2d(in, {2, 2}, {2, 2, 1}), InvalidArgument,
                   "strides must have 2 entries (height, width), got 3");
  EXPECT_FNC_ERROR(avg_pool2d(in, {2, 2}, {0, 1}), InvalidArgument,
                   "strides must be >= 1, got [0, 1]");
  EXPECT_FNC_ERROR(max_pool2d(in, {5, 2}, {1, 1}), InvalidArgument,
                   "max_pool2d with valid padding: window [5, 2] is larger "
                   "than the input [1, 4, 4, 2]; use same padding or a "
                   "smaller window");
  EXPECT_FNC_ERROR(avg_pool2d(in, {2, 2}, {1, 1}, "FULL"), InvalidArgument,
                   "fnc::avg_pool2d: padding must be \"VALID\" or \"SAME\", "
                   "got \"FULL\"");
  EXPECT_FNC_ERROR(max_pool2d(zeros({1, 4, 4, 2}, DType::i32), {2, 2}, {2, 2}),
                   InvalidArgument,
                   "fnc::max_pool2d: needs a float operand, got int32; cast "
                   "first with fnc::cast(x, fnc::DType::f32)");
  EXPECT_FNC_ERROR(avg_pool2d(ones({1, 2, 2, 1}, DType::i1), {1, 1}, {1, 1}),
                   InvalidArgument, "needs a float operand, got bool");
  EXPECT_FNC_ERROR(max_pool2d(Tensor(), {2, 2}, {2, 2}), FailedPrecondition,
                   "default-constructed (null)");
}

} // namespace
