//===- OtherKernelsTest.cpp - Reduction, linalg and shape kernels ---------===//
//
// Reductions over every axis subset, matmul across the cache blocks, and the
// data-movement kernels, each against a naive loop.
//
//===----------------------------------------------------------------------===//

#include "KernelTestUtil.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

using namespace fnc;
using namespace fnc::ref;
using namespace fnc::ref::test;

namespace {

TEST(ReductionKernels, EveryAxisSubsetMatchesNaive) {
  std::mt19937 rng(17);
  Shape shape = {3, 4, 2, 5};
  Array xf = random<float>(rng, shape, -1, 1);
  Array xi = random<int64_t>(rng, shape, -100, 100);
  for (int mask = 0; mask < 16; ++mask) {
    std::vector<int64_t> axes;
    Shape outShape;
    for (int d = 0; d < 4; ++d) {
      if (mask & (1 << d))
        axes.push_back(d);
      outShape.push_back(mask & (1 << d) ? 1 : shape[d]);
    }
    if (axes.empty()) // empty axes means all for the shape rules; here we
      continue;       // pass explicit axes, so skip the no-op subset
    Array sum = Array::allocate(DType::f32, outShape);
    Array mean = Array::allocate(DType::f32, outShape);
    Array mx = Array::allocate(DType::i64, outShape);
    Array mn = Array::allocate(DType::i64, outShape);
    reduce(ReduceOp::Sum, xf, axes, sum);
    reduce(ReduceOp::Mean, xf, axes, mean);
    reduce(ReduceOp::Max, xi, axes, mx);
    reduce(ReduceOp::Min, xi, axes, mn);
    int64_t n = sum.numElements(), count = xf.numElements() / n;
    std::vector<double> naive(n, 0);
    std::vector<int64_t> nmax(n, std::numeric_limits<int64_t>::min()),
        nmin(n, std::numeric_limits<int64_t>::max());
    for (int64_t i = 0; i < xf.numElements(); ++i) {
      int64_t o = broadcastOffset(unflatten(i, shape), outShape);
      naive[o] += xf.data<float>()[i];
      nmax[o] = std::max(nmax[o], xi.data<int64_t>()[i]);
      nmin[o] = std::min(nmin[o], xi.data<int64_t>()[i]);
    }
    for (int64_t o = 0; o < n; ++o) {
      EXPECT_NEAR(sum.data<float>()[o], naive[o], 1e-5) << "mask " << mask;
      EXPECT_NEAR(mean.data<float>()[o], naive[o] / count, 1e-6);
    }
    EXPECT_EQ(read<int64_t>(mx), nmax) << "mask " << mask;
    EXPECT_EQ(read<int64_t>(mn), nmin) << "mask " << mask;
  }
}

TEST(ReductionKernels, AnyAllAndErrors) {
  Array b = make<bool>({2, 3}, {false, true, false, false, false, false});
  Array any = Array::allocate(DType::i1, {2});
  Array all = Array::allocate(DType::i1, {3});
  reduce(ReduceOp::Any, b, {1}, any);
  reduce(ReduceOp::All, b, {0}, all);
  EXPECT_EQ(read<bool>(any), (std::vector<bool>{true, false}));
  EXPECT_EQ(read<bool>(all), (std::vector<bool>{false, false, false}));
  Array f = make<float>({2, 2}, {1, 2, 3, 4});
  Array out = Array::allocate(DType::f32, {});
  EXPECT_FNC_ERROR(reduce(ReduceOp::Sum, f, {1, 0}, out), Internal,
                      "not normalized");
  EXPECT_FNC_ERROR(reduce(ReduceOp::Any, f, {0, 1}, any), Internal,
                      "reduce_any on dtype float32");
  Array fo = Array::allocate(DType::f32, {});
  EXPECT_FNC_ERROR(reduce(ReduceOp::Any, f, {0, 1}, fo), Internal,
                      "wrong result dtype");
}

TEST(ReductionKernels, ArgExtremeAndSoftmax) {
  Array x = make<int32_t>({2, 3}, {3, 9, 9, -1, -5, -5});
  Array am = Array::allocate(DType::i32, {2});
  argExtreme(true, x, 1, am);
  EXPECT_EQ(read<int32_t>(am), (std::vector<int32_t>{1, 0}));
  argExtreme(false, x, 1, am);
  EXPECT_EQ(read<int32_t>(am), (std::vector<int32_t>{0, 1}));
  Array empty = Array::allocate(DType::f32, {2, 0});
  Array eo = Array::allocate(DType::i64, {2});
  EXPECT_FNC_ERROR(argExtreme(true, empty, 1, eo), InvalidArgument,
                      "fnc::argmax: axis 1 is empty");
  Array s = make<double>({2, 2}, {0, std::log(3.0), -INFINITY, -INFINITY});
  Array so = Array::allocate(DType::f64, {2, 2});
  softmax(s, 1, false, so);
  EXPECT_NEAR(so.data<double>()[0], 0.25, 1e-12);
  EXPECT_NEAR(so.data<double>()[1], 0.75, 1e-12);
  // All -inf: no inf - inf; exp(-inf)/0 is NaN as in TensorFlow.
  EXPECT_TRUE(std::isnan(so.data<double>()[2]));
}

template <typename T>
std::vector<double> naiveMatmul(const Array &a, const Array &b, int64_t m,
                                int64_t k, int64_t n) {
  std::vector<double> c(m * n, 0);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j)
      for (int64_t kk = 0; kk < k; ++kk)
        c[i * n + j] +=
            double(a.data<T>()[i * k + kk]) * double(b.data<T>()[kk * n + j]);
  return c;
}

TEST(LinalgKernels, MatmulAcrossBlocks) {
  std::mt19937 rng(21);
  // Sizes around and beyond the blocks (64 rows, 256 k, 1024 columns).
  const int64_t sizes[][3] = {
      {1, 1, 1}, {65, 257, 3}, {3, 5, 1030}, {64, 256, 1024}};
  for (const auto &s : sizes) {
    int64_t m = s[0], k = s[1], n = s[2];
    if (m * k * n > 20000000)
      m = 8; // keep the naive loop fast
    Array a = random<float>(rng, {m, k}, -1, 1);
    Array b = random<float>(rng, {k, n}, -1, 1);
    Array c = Array::allocate(DType::f32, {m, n});
    matmul(a, b, c);
    std::vector<double> expect = naiveMatmul<float>(a, b, m, k, n);
    for (int64_t i = 0; i < m * n; ++i)
      ASSERT_NEAR(c.data<float>()[i], expect[i], 1e-3 * std::sqrt(double(k)))
          << m << "x" << k << "x" << n << " element " << i;
    Array ai = random<int64_t>(rng, {m, k}, -5, 5);
    Array bi = random<int64_t>(rng, {k, n}, -5, 5);
    Array ci = Array::allocate(DType::i64, {m, n});
    matmul(ai, bi, ci);
    std::vector<double> ei = naiveMatmul<int64_t>(ai, bi, m, k, n);
    for (int64_t i = 0; i < m * n; ++i)
      ASSERT_EQ(ci.data<int64_t>()[i], int64_t(ei[i]));
  }
  Array a = Array::allocate(DType::f32, {2, 3});
  Array bad = Array::allocate(DType::f32, {4, 2});
  Array c = Array::allocate(DType::f32, {2, 2});
  EXPECT_FNC_ERROR(matmul(a, bad, c), Internal, "inconsistent shapes");
  EXPECT_FNC_ERROR(conv2d(a, a, 1, 1, 0, 0, c), Internal, "ranks");
}

TEST(LinalgKernels, Conv2dPaddingOffsets) {
  // 1x1x3x1 input [1 2 3], 1x3x1x1 filter [1 10 100], pad left 1: outputs
  // at positions -1..1 -> [0*1 + 1*10 + 2*100, 1 + 20 + 300, 2 + 30 + 0].
  Array in = make<int32_t>({1, 1, 3, 1}, {1, 2, 3});
  Array f = make<int32_t>({1, 3, 1, 1}, {1, 10, 100});
  Array out = Array::allocate(DType::i32, {1, 1, 3, 1});
  conv2d(in, f, 1, 1, 0, 1, out);
  EXPECT_EQ(read<int32_t>(out), (std::vector<int32_t>{210, 321, 32}));
}

/// A pooling problem written out from TensorFlow's definition: for each
/// output element (row-major), the flat input offsets of its window's
/// elements in row-major window order, padding left out.
struct NaivePool {
  Shape out;
  std::vector<std::vector<int64_t>> windows;
};

NaivePool naivePool(const Shape &in, int64_t kh, int64_t kw, int64_t sh,
                    int64_t sw, bool same) {
  auto geometry = [&](int64_t size, int64_t k, int64_t s) {
    if (!same)
      return std::make_pair((size - k) / s + 1, int64_t(0));
    int64_t out = (size + s - 1) / s;
    int64_t total = std::max<int64_t>((out - 1) * s + k - size, 0);
    return std::make_pair(out, total / 2);
  };
  auto [oh, top] = geometry(in[1], kh, sh);
  auto [ow, left] = geometry(in[2], kw, sw);
  NaivePool p{{in[0], oh, ow, in[3]}, {}};
  for (int64_t n = 0; n < in[0]; ++n)
    for (int64_t i = 0; i < oh; ++i)
      for (int64_t j = 0; j < ow; ++j)
        for (int64_t c = 0; c < in[3]; ++c) {
          std::vector<int64_t> w;
          for (int64_t a = 0; a < kh; ++a)
            for (int64_t b = 0; b < kw; ++b) {
              int64_t r = i * sh + a - top, q = j * sw + b - left;
              if (r >= 0 && r < in[1] && q >= 0 && q < in[2])
                w.push_back(((n * in[1] + r) * in[2] + q) * in[3] + c);
            }
          p.windows.push_back(w);
        }
  return p;
}

template <typename T> bool sameValue(T a, T b) {
  return (std::isnan(a) && std::isnan(b)) || a == b;
}

template <typename T>
void checkPoolingAgainstNaive(std::mt19937 &rng, bool ties) {
  std::uniform_int_distribution<int64_t> dim(1, 7), small(1, 3), k(1, 4);
  for (int trial = 0; trial < 60; ++trial) {
    Shape in = {small(rng), dim(rng), dim(rng), small(rng)};
    int64_t kh = k(rng), kw = k(rng), sh = small(rng), sw = small(rng);
    bool same = trial % 2 || kh > in[1] || kw > in[2];
    SCOPED_TRACE(::testing::Message()
                 << "input " << in[0] << "x" << in[1] << "x" << in[2] << "x"
                 << in[3] << " window " << kh << "x" << kw << " strides " << sh
                 << "," << sw << (same ? " SAME" : " VALID"));
    NaivePool naive = naivePool(in, kh, kw, sh, sw, same);
    int64_t top = 0, left = 0;
    if (same) {
      top = std::max<int64_t>((naive.out[1] - 1) * sh + kh - in[1], 0) / 2;
      left = std::max<int64_t>((naive.out[2] - 1) * sw + kw - in[2], 0) / 2;
    }
    Window2D win{kh, kw, sh, sw, top, left};
    Array x = random<T>(rng, in, -3, 3);
    T *px = x.mutableData<T>();
    for (int64_t i = 0; i < x.numElements(); ++i) {
      if (ties)
        px[i] = std::round(px[i]);
      if (trial % 7 == 3 && i % 11 == 5)
        px[i] = std::numeric_limits<T>::quiet_NaN();
    }
    Array dy = random<T>(rng, naive.out, -1, 1);
    Array mx = Array::allocate(dtypeOf<T>, naive.out);
    Array av = Array::allocate(dtypeOf<T>, naive.out);
    Array dxMax = Array::allocate(dtypeOf<T>, in);
    Array dxAvg = Array::allocate(dtypeOf<T>, in);
    maxPool2d(x, win, mx);
    avgPool2d(x, win, av);
    maxPool2dGrad(x, dy, win, dxMax);
    avgPool2dGrad(dy, win, dxAvg);
    std::vector<T> wantDxMax(x.numElements(), 0), wantDxAvg = wantDxMax;
    const T *g = dy.data<T>();
    for (size_t o = 0; o < naive.windows.size(); ++o) {
      const std::vector<int64_t> &w = naive.windows[o];
      ASSERT_FALSE(w.empty());
      // The first element that no later one beats (NaN beats numbers).
      size_t best = 0;
      T sum = 0;
      for (size_t e = 0; e < w.size(); ++e) {
        T v = px[w[e]], b = px[w[best]];
        if (v > b || (std::isnan(v) && !std::isnan(b)))
          best = e;
        sum += v;
      }
      T count = static_cast<T>(w.size());
      EXPECT_TRUE(sameValue(mx.data<T>()[o], px[w[best]])) << "max " << o;
      EXPECT_TRUE(sameValue(av.data<T>()[o], sum / count)) << "avg " << o;
      wantDxMax[w[best]] += g[o];
      for (int64_t e : w)
        wantDxAvg[e] += g[o] / count;
    }
    for (int64_t i = 0; i < x.numElements(); ++i) {
      EXPECT_EQ(dxMax.data<T>()[i], wantDxMax[i]) << "max grad " << i;
      EXPECT_EQ(dxAvg.data<T>()[i], wantDxAvg[i]) << "avg grad " << i;
    }
  }
}

TEST(PoolingKernels, ByHand) {
  std::vector<float> v(16);
  for (int i = 0; i < 16; ++i)
    v[i] = float(i + 1);
  Array x = make<float>({1, 4, 4, 1}, v);
  Array out = Array::allocate(DType::f32, {1, 2, 2, 1});
  maxPool2d(x, {2, 2, 2, 2, 0, 0}, out);
  EXPECT_EQ(read<float>(out), (std::vector<float>{6, 8, 14, 16}));
  avgPool2d(x, {2, 2, 2, 2, 0, 0}, out);
  EXPECT_EQ(read<float>(out), (std::vector<float>{3.5, 5.5, 11.5, 13.5}));
  // SAME 3x3 / 2 on 4x4: one row and column of padding after; the border
  // windows average 6, 6 and 4 elements.
  maxPool2d(x, {3, 3, 2, 2, 0, 0}, out);
  EXPECT_EQ(read<float>(out), (std::vector<float>{11, 12, 15, 16}));
  avgPool2d(x, {3, 3, 2, 2, 0, 0}, out);
  EXPECT_EQ(read<float>(out), (std::vector<float>{6, 7.5, 12, 13.5}));

  Array dy = make<float>({1, 2, 2, 1}, {1, 2, 3, 4});
  Array dx = Array::allocate(DType::f32, {1, 4, 4, 1});
  maxPool2dGrad(x, dy, {2, 2, 2, 2, 0, 0}, dx);
  EXPECT_EQ(read<float>(dx), (std::vector<float>{0, 0, 0, 0, 0, 1, 0, 2, 0, 0,
                                                 0, 0, 0, 3, 0, 4}));
  avgPool2dGrad(dy, {2, 2, 2, 2, 0, 0}, dx);
  EXPECT_EQ(read<float>(dx),
            (std::vector<float>{.25, .25, .5, .5, .25, .25, .5, .5, .75, .75, 1,
                                1, .75, .75, 1, 1}));

  // Overlapping windows that share their maximum both pass to it; a tie
  // goes to the first; NaN is the maximum.
  Array row = make<double>({1, 1, 3, 1}, {1, 3, 2});
  Array g2 = make<double>({1, 1, 2, 1}, {10, 20});
  Array d3 = Array::allocate(DType::f64, {1, 1, 3, 1});
  maxPool2dGrad(row, g2, {1, 2, 1, 1, 0, 0}, d3);
  EXPECT_EQ(read<double>(d3), (std::vector<double>{0, 30, 0}));
  Array flat = make<double>({1, 1, 3, 1}, {2, 2, 2});
  maxPool2dGrad(flat, g2, {1, 2, 1, 1, 0, 0}, d3);
  EXPECT_EQ(read<double>(d3), (std::vector<double>{10, 20, 0}));
  double nan = std::numeric_limits<double>::quiet_NaN();
  Array withNaN = make<double>({1, 1, 3, 1}, {1, nan, nan});
  Array m2 = Array::allocate(DType::f64, {1, 1, 2, 1});
  maxPool2d(withNaN, {1, 2, 1, 1, 0, 0}, m2);
  EXPECT_TRUE(std::isnan(read<double>(m2)[0]));
  maxPool2dGrad(withNaN, g2, {1, 2, 1, 1, 0, 0}, d3);
  EXPECT_EQ(read<double>(d3), (std::vector<double>{0, 30, 0}));
}

TEST(PoolingKernels, RandomMatchNaive) {
  std::mt19937 rng(23);
  checkPoolingAgainstNaive<float>(rng, false);
  checkPoolingAgainstNaive<double>(rng, true);
}

TEST(PoolingKernels, BadCallsAreInternalErrors) {
  Array x = Array::allocate(DType::f32, {1, 4, 4, 1});
  Array out = Array::allocate(DType::f32, {1, 2, 2, 1});
  Array flat = Array::allocate(DType::f32, {4, 4});
  Array ints = Array::allocate(DType::i32, {1, 4, 4, 1});
  EXPECT_FNC_ERROR(maxPool2d(flat, {2, 2, 2, 2, 0, 0}, out), Internal, "ranks");
  EXPECT_FNC_ERROR(avgPool2d(ints, {2, 2, 2, 2, 0, 0}, out), Internal,
                   "dtypes");
  EXPECT_FNC_ERROR(maxPool2d(x, {0, 2, 2, 2, 0, 0}, out), Internal,
                   "invalid window");
  Array wrong = Array::allocate(DType::f32, {1, 2, 2, 2});
  EXPECT_FNC_ERROR(avgPool2dGrad(wrong, {2, 2, 2, 2, 0, 0}, x), Internal,
                   "inconsistent shapes");
  EXPECT_FNC_ERROR(maxPool2dGrad(x, out, {2, 2, 2, 2, 0, 0}, out), Internal,
                   "unlike its input");
}

TEST(ShapeKernels, TransposeSliceConcat) {
  Array x = make<int32_t>({2, 3}, {1, 2, 3, 4, 5, 6});
  Array t = Array::allocate(DType::i32, {3, 2});
  transpose(x, {1, 0}, t);
  EXPECT_EQ(read<int32_t>(t), (std::vector<int32_t>{1, 4, 2, 5, 3, 6}));
  Array s = Array::allocate(DType::i32, {2, 2});
  slice(x, {0, 0}, {1, 2}, s);
  EXPECT_EQ(read<int32_t>(s), (std::vector<int32_t>{1, 3, 4, 6}));
  Array c = Array::allocate(DType::i32, {2, 5});
  concat({x, make<int32_t>({2, 2}, {7, 8, 9, 10})}, 1, c);
  EXPECT_EQ(read<int32_t>(c),
            (std::vector<int32_t>{1, 2, 3, 7, 8, 4, 5, 6, 9, 10}));
  Array wrong = Array::allocate(DType::i32, {2, 4});
  EXPECT_FNC_ERROR(concat({x}, 1, wrong), Internal, "size mismatch");
}

TEST(ShapeKernels, TransposeOfRandomShapesAndPermutations) {
  // Against the definition out[i] = x[i permuted], element by element: the
  // tiled path (out's last dim reads a strided dim of x, tiles of 32), the
  // row-copy path, size-1 dims, ranks 2 to 4.
  std::mt19937 rng(42);
  for (int trial = 0; trial < 60; ++trial) {
    int64_t rank = 2 + trial % 3;
    Shape shape;
    for (int64_t d = 0; d < rank; ++d)
      shape.push_back(rng() % 4 == 0 ? 1 : 1 + int64_t(rng() % 70));
    std::vector<int64_t> perm(rank);
    for (int64_t d = 0; d < rank; ++d)
      perm[d] = d;
    std::shuffle(perm.begin(), perm.end(), rng);
    Array x = random<int32_t>(rng, shape, -1000, 1000);
    Shape outShape(rank);
    for (int64_t d = 0; d < rank; ++d)
      outShape[d] = shape[perm[d]];
    Array out = Array::allocate(DType::i32, outShape);
    transpose(x, perm, out);
    Shape xs = stridesOf(shape), os = stridesOf(outShape);
    const int32_t *px = x.data<int32_t>(), *po = out.data<int32_t>();
    for (int64_t i = 0; i < out.numElements(); ++i) {
      int64_t src = 0, rest = i;
      for (int64_t d = 0; d < rank; ++d) {
        src += rest / os[d] * xs[perm[d]];
        rest %= os[d];
      }
      ASSERT_EQ(po[i], px[src]) << "trial " << trial << " element " << i;
    }
  }
}

TEST(ShapeKernels, GatherAndOneHot) {
  Array p = make<double>({3, 2}, {1, 2, 3, 4, 5, 6});
  Array idx = make<int64_t>({2}, {2, 0});
  Array g = Array::allocate(DType::f64, {2, 2});
  gather(p, idx, 0, g);
  EXPECT_EQ(read<double>(g), (std::vector<double>{5, 6, 1, 2}));
  Array g1 = Array::allocate(DType::f64, {3, 2});
  gather(p, make<int32_t>({2}, {1, 1}), 1, g1);
  EXPECT_EQ(read<double>(g1), (std::vector<double>{2, 2, 4, 4, 6, 6}));
  EXPECT_FNC_ERROR(gather(p, make<int32_t>({1}, {3}), 0, g), OutOfRange,
                      "valid indices are 0 to 2");
  Array empty = Array::allocate(DType::f64, {0, 2});
  EXPECT_FNC_ERROR(gather(empty, make<int32_t>({1}, {0}), 0, g), OutOfRange,
                      "none (the axis is empty)");
  Array oh = Array::allocate(DType::i1, {3, 2});
  oneHot(make<int32_t>({3}, {1, 7, 0}), 1, 1, 0, oh);
  EXPECT_EQ(read<bool>(oh),
            (std::vector<bool>{false, true, false, false, true, false}));
}

} // namespace
