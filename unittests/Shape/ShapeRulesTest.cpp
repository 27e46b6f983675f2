//===- ShapeRulesTest.cpp - The shared result-shape rules -----------------===//
//
// The rules every fnc op's shape comes from, checked directly: numpy
// broadcasting (also against an explicit per-dimension definition on random
// shapes), dynamic dims, negative axes, TensorFlow's SAME padding, and the
// messages of the errors.
//
//===----------------------------------------------------------------------===//

#include "fnc/Shape/ShapeRules.h"

#include "gtest/gtest.h"

#include <limits>
#include <random>

using namespace fnc::shapes;

namespace {

constexpr int64_t D = kDynamic;

Shape ok(const ShapeResult &r) {
  EXPECT_TRUE(r.ok()) << r.error;
  return r.shape;
}

TEST(ShapeRules, Broadcast) {
  EXPECT_EQ(ok(broadcast({2, 3}, {3})), (Shape{2, 3}));
  EXPECT_EQ(ok(broadcast({5, 1, 3}, {4, 1})), (Shape{5, 4, 3}));
  EXPECT_EQ(ok(broadcast({}, {2, 2})), (Shape{2, 2}));
  EXPECT_EQ(ok(broadcast({0, 1}, {1, 3})), (Shape{0, 3}));
  EXPECT_EQ(ok(broadcast({D, 3}, {4, 1})), (Shape{4, 3}));
  EXPECT_EQ(ok(broadcast({D}, {1})), (Shape{D}));
  EXPECT_EQ(ok(broadcast({D}, {D})), (Shape{D}));
  EXPECT_EQ(ok(broadcast(std::vector<Shape>{{3}, {2, 1}, {4, 1, 1}})),
            (Shape{4, 2, 3}));
  ShapeResult bad = broadcast({2, 3}, {4});
  EXPECT_FALSE(bad.ok());
  EXPECT_EQ(bad.error, "shapes [2, 3] and [4] are not broadcast-compatible "
                       "(dimension 1: 3 vs 4); each dimension must match or "
                       "be 1");
}

// numpy's definition, dimension by dimension, on random static shapes.
TEST(ShapeRules, BroadcastMatchesDefinitionOnRandomShapes) {
  std::mt19937 rng(42);
  std::uniform_int_distribution<int> rank(0, 4), dim(1, 3);
  for (int trial = 0; trial < 2000; ++trial) {
    Shape a(rank(rng)), b(rank(rng));
    for (auto &d : a)
      d = dim(rng);
    for (auto &d : b)
      d = dim(rng);
    size_t n = std::max(a.size(), b.size());
    bool compatible = true;
    Shape expected(n);
    for (size_t i = 0; i < n; ++i) {
      int64_t da = i < n - a.size() ? 1 : a[i - (n - a.size())];
      int64_t db = i < n - b.size() ? 1 : b[i - (n - b.size())];
      compatible &= da == db || da == 1 || db == 1;
      expected[i] = std::max(da, db);
    }
    ShapeResult r = broadcast(a, b);
    ASSERT_EQ(r.ok(), compatible) << toString(a) << " " << toString(b);
    if (compatible) {
      EXPECT_EQ(r.shape, expected);
      EXPECT_EQ(broadcast(b, a).shape, expected); // symmetric
    }
  }
}

TEST(ShapeRules, BroadcastTo) {
  EXPECT_EQ(ok(broadcastTo({3}, {2, 3})), (Shape{2, 3}));
  EXPECT_EQ(ok(broadcastTo({1, 3}, {D, 3})), (Shape{D, 3}));
  EXPECT_FALSE(broadcastTo({2, 3}, {3}).ok());
  EXPECT_FALSE(broadcastTo({3}, {2, 4}).ok());
}

TEST(ShapeRules, Reduce) {
  EXPECT_EQ(ok(reduce({2, 3, 4}, {-1}, false)), (Shape{2, 3}));
  EXPECT_EQ(ok(reduce({2, 3, 4}, {0, 2}, true)), (Shape{1, 3, 1}));
  EXPECT_EQ(ok(reduce({2, 3}, {}, false)), (Shape{}));
  EXPECT_EQ(ok(reduce({}, {}, false)), (Shape{}));
  EXPECT_EQ(ok(reduce({D, 3}, {1}, false)), (Shape{D}));
  EXPECT_EQ(reduce({2, 3}, {2}, false).error,
            "reduction axis 2 is out of range for rank 2 (valid: -2 to 1)");
  EXPECT_EQ(reduce({2, 3}, {1, -1}, false).error,
            "reduction axis -1 is given twice");
  EXPECT_EQ(ok(reduceAxis({2, 3, 4}, -2)), (Shape{2, 4}));
}

TEST(ShapeRules, Matmul) {
  EXPECT_EQ(ok(matmul({2, 3}, {3, 4})), (Shape{2, 4}));
  EXPECT_EQ(ok(matmul({7, 1, 2, 3}, {5, 3, 4})), (Shape{7, 5, 2, 4}));
  EXPECT_EQ(ok(matmul({D, 3}, {D, D})), (Shape{D, D}));
  EXPECT_FALSE(matmul({3}, {3, 4}).ok());
  EXPECT_FALSE(matmul({2, 3}, {4, 5}).ok());
  EXPECT_FALSE(matmul({2, 2, 3}, {3, 3, 4}).ok());
}

TEST(ShapeRules, TransposeReshape) {
  EXPECT_EQ(ok(transpose({2, 3, 4}, {1, 2, 0})), (Shape{3, 4, 2}));
  EXPECT_FALSE(transpose({2, 3}, {0, 0}).ok());
  EXPECT_FALSE(transpose({2, 3}, {0}).ok());
  EXPECT_FALSE(transpose({2, 3}, {0, 2}).ok());
  EXPECT_EQ(ok(reshape({2, 6}, {3, -1})), (Shape{3, 4}));
  EXPECT_EQ(ok(reshape({2, 6}, {12})), (Shape{12}));
  EXPECT_EQ(ok(reshape({D, 6}, {-1, 2})), (Shape{D, 2}));
  EXPECT_EQ(ok(reshape({0, 3}, {-1, 3})), (Shape{0, 3}));
  EXPECT_EQ(ok(reshape({}, {1, 1})), (Shape{1, 1}));
  EXPECT_FALSE(reshape({2, 6}, {5, -1}).ok());
  EXPECT_FALSE(reshape({2, 6}, {-1, -1}).ok());
  EXPECT_FALSE(reshape({2, 6}, {13}).ok());
  EXPECT_FALSE(reshape({2, 6}, {-2, 6}).ok());
}

TEST(ShapeRules, ExpandSqueezeSlice) {
  EXPECT_EQ(ok(expandDims({2, 3}, 0)), (Shape{1, 2, 3}));
  EXPECT_EQ(ok(expandDims({2, 3}, 2)), (Shape{2, 3, 1}));
  EXPECT_EQ(ok(expandDims({2, 3}, -1)), (Shape{2, 3, 1}));
  EXPECT_EQ(ok(expandDims({}, 0)), (Shape{1}));
  EXPECT_FALSE(expandDims({2, 3}, 3).ok());
  EXPECT_FALSE(expandDims({2, 3}, -4).ok());
  EXPECT_EQ(ok(squeeze({1, 3, 1}, {})), (Shape{3}));
  EXPECT_EQ(ok(squeeze({1, 3, 1}, {-1})), (Shape{1, 3}));
  EXPECT_EQ(ok(squeeze({D, 3}, {0})), (Shape{3}));
  EXPECT_FALSE(squeeze({2, 3}, {0}).ok());
  EXPECT_EQ(ok(slice({5, 4}, {1, 0}, {2, 2}, {2, 3})), (Shape{2, 2}));
  EXPECT_EQ(ok(slice({5}, {5}, {0}, {1})), (Shape{0}));
  EXPECT_EQ(ok(slice({D}, {3}, {2}, {1})), (Shape{2}));
  EXPECT_FALSE(slice({5}, {4}, {2}, {1}).ok());
  EXPECT_TRUE(slice({5}, {0}, {3}, {2}).ok()); // reads 0, 2, 4
  EXPECT_FALSE(slice({5}, {1}, {3}, {2}).ok()); // would read 5
  EXPECT_FALSE(slice({5}, {0}, {1}, {0}).ok());
  // -1: to the end, every stride-th element.
  EXPECT_EQ(ok(slice({5, 4}, {1, 0}, {-1, -1}, {2, 3})), (Shape{2, 2}));
  EXPECT_EQ(ok(slice({5}, {5}, {-1}, {2})), (Shape{0}));
  EXPECT_EQ(ok(slice({D, 4}, {0, 1}, {-1, 2}, {1, 1})), (Shape{D, 2}));
  EXPECT_EQ(ok(slice({D}, {3}, {-1}, {2})), (Shape{D}));
  EXPECT_FALSE(slice({5}, {6}, {-1}, {1}).ok()); // starts past the end
  EXPECT_FALSE(slice({5}, {0}, {-2}, {1}).ok());
}

TEST(ShapeRules, ResolveSliceDimIsPythonsSliceIndices) {
  auto r = [](int64_t n, int64_t b, int64_t e, int64_t s) {
    SliceDim d = resolveSliceDim(n, b, e, s);
    return std::vector<int64_t>{d.start, d.count};
  };
  using V = std::vector<int64_t>;
  EXPECT_EQ(r(10, 1, 3, 1), (V{1, 2}));
  EXPECT_EQ(r(10, -3, kSliceMax, 1), (V{7, 3}));          // x[-3:]
  EXPECT_EQ(r(10, kSliceMax, kSliceMin, -1), (V{9, 10})); // x[::-1]
  EXPECT_EQ(r(10, 1, -1, 1), (V{1, 8}));                  // x[1:-1]
  EXPECT_EQ(r(10, 7, 0, -2), (V{7, 4}));                  // 7, 5, 3, 1
  EXPECT_EQ(r(10, 100, -100, -3), (V{9, 4}));             // clamped: 9, 6, 3, 0
  EXPECT_EQ(r(3, 5, kSliceMax, 1), (V{3, 0}));            // x[5:] is empty
  EXPECT_EQ(r(3, -10, 2, 1), (V{0, 2}));
  EXPECT_EQ(r(0, kSliceMax, kSliceMin, -1), (V{-1, 0}));
  EXPECT_EQ(r(5, 0, 5, std::numeric_limits<int64_t>::max()), (V{0, 1}));
  EXPECT_EQ(r(5, 4, kSliceMin, std::numeric_limits<int64_t>::min() + 1),
            (V{4, 1}));
  EXPECT_EQ(resolveSliceIndex(4, -1), 3);
  EXPECT_EQ(resolveSliceIndex(4, 3), 3);
  EXPECT_EQ(resolveSliceIndex(4, 4), -1);
  EXPECT_EQ(resolveSliceIndex(4, -5), -1);
  EXPECT_EQ(resolveSliceIndex(0, 0), -1);
}

TEST(ShapeRules, StridedSlice) {
  auto spec = [](std::vector<int64_t> b, std::vector<int64_t> e,
                 std::vector<int64_t> s, std::vector<bool> k) {
    return SliceSpec{std::move(b), std::move(e), std::move(s), std::move(k)};
  };
  // x[1:3, ::-1, -1, :] of [?, 10, 4, 5]: the dynamic dim stays dynamic.
  SliceSpec numpy =
      spec({1, kSliceMax, -1, kSliceMin}, {3, kSliceMin, 0, kSliceMax},
           {1, -1, 1, 1}, {false, false, true, false});
  EXPECT_EQ(ok(stridedSlice({D, 10, 4, 5}, numpy)), (Shape{D, 10, 5}));
  EXPECT_EQ(ok(stridedSlice({6, 10, 4, 5}, numpy)), (Shape{2, 10, 5}));
  // An index along a dynamic dim is checked at run time.
  EXPECT_EQ(ok(stridedSlice({D}, spec({9}, {0}, {1}, {true}))), Shape{});
  // Empty for every size: known even along a dynamic dim.
  EXPECT_EQ(
      ok(stridedSlice({D, D}, spec({5, -1}, {2, -3}, {1, 1}, {false, false}))),
      (Shape{0, 0}));
  EXPECT_EQ(ok(stridedSlice({D}, spec({-1}, {2}, {1}, {false}))), (Shape{D}));
  EXPECT_EQ(ok(stridedSlice({}, spec({}, {}, {}, {}))), Shape{});
  EXPECT_EQ(stridedSlice({4}, spec({0}, {2}, {0}, {false})).error,
            "dimension 0: the stride is 0; strides must be non-zero (and "
            "above -2^63)");
  EXPECT_FALSE(stridedSlice({4}, spec({0}, {2}, {kSliceMin}, {false})).ok());
  EXPECT_EQ(stridedSlice({4, 4}, spec({0}, {2}, {1}, {false})).error,
            "strided slice of a rank-2 operand needs 2 begins, ends, strides "
            "and shrink flags, got 1, 1, 1 and 1");
  EXPECT_EQ(stridedSlice({4}, spec({4}, {0}, {1}, {true})).error,
            "index 4 is out of range for dimension 0 of size 4 (valid: -4 to "
            "3)");
  EXPECT_EQ(stridedSlice({0}, spec({0}, {0}, {1}, {true})).error,
            "index 0 is out of range for dimension 0 of size 0 (the dim is "
            "empty)");
  EXPECT_EQ(stridedSlice({4}, spec({1}, {2}, {1}, {true})).error,
            "dimension 0 is an index (shrink): its end must be 0 and its "
            "stride 1 (got end 2, stride 1)");
  // The gradient: the input's shape, the gradient checked against the
  // slice's shape where both are known.
  EXPECT_EQ(ok(stridedSliceGrad({D, 10, 4, 5}, {3, 10, 5}, numpy)),
            (Shape{D, 10, 4, 5}));
  EXPECT_EQ(stridedSliceGrad({6, 10, 4, 5}, {3, 10, 5}, numpy).error,
            "the gradient has shape [3, 10, 5] but the slice of [6, 10, 4, 5] "
            "has shape [2, 10, 5]");
  EXPECT_FALSE(stridedSliceGrad({6, 10, 4, 5}, {2, 10, 4, 5}, numpy).ok());
  // What the kernels take: first element, signed stride, 1 for an index.
  SliceWindow w = resolveSlice({6, 10, 4, 5}, numpy);
  EXPECT_EQ(w.shape, (Shape{2, 10, 1, 5}));
  EXPECT_EQ(w.offsets, (std::vector<int64_t>{1, 9, 3, 0}));
  EXPECT_EQ(w.strides, (std::vector<int64_t>{1, -1, 1, 1}));
}

TEST(ShapeRules, Pad) {
  EXPECT_EQ(ok(pad({2, 3}, {1, 0}, {0, 2}, {0, 1})), (Shape{3, 7}));
  EXPECT_EQ(ok(pad({0, 1}, {1, 2}, {2, 0}, {3, 3})), (Shape{3, 3}));
  EXPECT_EQ(ok(pad({D, 4}, {0, 1}, {0, 1}, {0, 0})), (Shape{D, 6}));
  EXPECT_EQ(ok(pad({}, {}, {}, {})), (Shape{}));
  EXPECT_FALSE(pad({2}, {1}, {1}, {}).ok());
  EXPECT_FALSE(pad({2}, {-1}, {0}, {0}).ok());
  EXPECT_FALSE(pad({2}, {0}, {0}, {-2}).ok());
  EXPECT_FALSE(
      pad({3}, {0}, {0}, {std::numeric_limits<int64_t>::max() / 2 + 1}).ok());
}

TEST(ShapeRules, ConcatGatherOneHot) {
  EXPECT_EQ(ok(concat({{2, 3}, {4, 3}}, 0)), (Shape{6, 3}));
  EXPECT_EQ(ok(concat({{2, 3}, {2, 1}}, -1)), (Shape{2, 4}));
  EXPECT_EQ(ok(concat({{D, 3}, {2, 3}}, 0)), (Shape{D, 3}));
  EXPECT_EQ(ok(concat({{D, 3}, {2, 3}}, 1)), (Shape{2, 6}));
  EXPECT_FALSE(concat({{2, 3}, {2, 4}}, 0).ok());
  EXPECT_FALSE(concat({{2, 3}, {3}}, 0).ok());
  EXPECT_FALSE(concat({}, 0).ok());
  EXPECT_EQ(ok(gather({5, 6, 7}, {2, 3}, 1)), (Shape{5, 2, 3, 7}));
  EXPECT_EQ(ok(gather({5, 6}, {}, 0)), (Shape{6}));
  EXPECT_EQ(ok(gather({5, 6}, {4}, -1)), (Shape{5, 4}));
  EXPECT_EQ(ok(oneHot({3}, 4, -1)), (Shape{3, 4}));
  EXPECT_EQ(ok(oneHot({3, 2}, 4, 0)), (Shape{4, 3, 2}));
  EXPECT_FALSE(oneHot({3}, -1, -1).ok());
}

// TensorFlow's SAME padding: output ceil(in / stride), the odd pixel after.
TEST(ShapeRules, Conv2DPadding) {
  EXPECT_EQ(ok(conv2d({1, 5, 5, 3}, {3, 3, 3, 8}, 1, 1, Padding::Same)),
            (Shape{1, 5, 5, 8}));
  EXPECT_EQ(ok(conv2d({1, 5, 5, 3}, {3, 3, 3, 8}, 2, 2, Padding::Same)),
            (Shape{1, 3, 3, 8}));
  EXPECT_EQ(ok(conv2d({2, 7, 6, 3}, {3, 2, 3, 4}, 2, 1, Padding::Valid)),
            (Shape{2, 3, 5, 4}));
  int64_t before, after;
  conv2dPadding(5, 3, 2, Padding::Same, before, after); // total 2
  EXPECT_EQ(before, 1);
  EXPECT_EQ(after, 1);
  conv2dPadding(6, 3, 2, Padding::Same, before, after); // total 1
  EXPECT_EQ(before, 0);
  EXPECT_EQ(after, 1);
  conv2dPadding(6, 3, 2, Padding::Valid, before, after);
  EXPECT_EQ(before + after, 0);
  EXPECT_FALSE(conv2d({1, 5, 5, 3}, {3, 3, 4, 8}, 1, 1, Padding::Same).ok());
  EXPECT_FALSE(conv2d({1, 2, 2, 3}, {3, 3, 3, 8}, 1, 1, Padding::Valid).ok());
  EXPECT_FALSE(conv2d({1, 5, 5, 3}, {3, 3, 3, 8}, 0, 1, Padding::Same).ok());
}

// Pooling: conv2d's output dims with a [kh, kw] window, channels kept.
TEST(ShapeRules, Pool2D) {
  EXPECT_EQ(ok(pool2d("max_pool2d", {128, 28, 28, 16}, {2, 2}, {2, 2},
                      Padding::Valid)),
            (Shape{128, 14, 14, 16}));
  EXPECT_EQ(
      ok(pool2d("avg_pool2d", {1, 5, 6, 3}, {3, 3}, {2, 2}, Padding::Same)),
      (Shape{1, 3, 3, 3}));
  EXPECT_EQ(
      ok(pool2d("max_pool2d", {2, 7, 6, 3}, {3, 2}, {2, 1}, Padding::Valid)),
      (Shape{2, 3, 5, 3}));
  // Overlapping windows; unknown dims stay unknown.
  EXPECT_EQ(
      ok(pool2d("max_pool2d", {D, 5, D, 4}, {3, 3}, {1, 2}, Padding::Valid)),
      (Shape{D, 3, D, 4}));
  EXPECT_EQ(
      ok(pool2d("avg_pool2d", {1, D, 7, 1}, {5, 5}, {2, 3}, Padding::Same)),
      (Shape{1, D, 3, 1}));
  // A window larger than the input is fine with SAME padding.
  EXPECT_EQ(
      ok(pool2d("avg_pool2d", {1, 2, 2, 1}, {3, 3}, {1, 1}, Padding::Same)),
      (Shape{1, 2, 2, 1}));

  EXPECT_EQ(
      pool2d("max_pool2d", {5, 5, 3}, {2, 2}, {2, 2}, Padding::Valid).error,
      "max_pool2d needs a rank-4 NHWC input, got [5, 5, 3]");
  EXPECT_EQ(
      pool2d("avg_pool2d", {1, 5, 5, 3}, {2}, {2, 2}, Padding::Valid).error,
      "avg_pool2d ksize must have 2 entries (height, width), got 1");
  EXPECT_EQ(
      pool2d("max_pool2d", {1, 5, 5, 3}, {2, 0}, {2, 2}, Padding::Same).error,
      "max_pool2d ksize must be >= 1, got [2, 0]");
  EXPECT_EQ(pool2d("max_pool2d", {1, 5, 5, 3}, {2, 2}, {1, 1, 1}, Padding::Same)
                .error,
            "max_pool2d strides must have 2 entries (height, width), got 3");
  EXPECT_EQ(
      pool2d("max_pool2d", {1, 5, 5, 3}, {2, 2}, {-1, 1}, Padding::Same).error,
      "max_pool2d strides must be >= 1, got [-1, 1]");
  EXPECT_EQ(
      pool2d("max_pool2d", {1, 5, 2, 3}, {3, 3}, {1, 1}, Padding::Valid).error,
      "max_pool2d with valid padding: window [3, 3] is larger than the "
      "input [1, 5, 2, 3]; use same padding or a smaller window");
}

TEST(ShapeRules, Pool2DGrad) {
  EXPECT_EQ(ok(pool2dGrad("max_pool2d_grad", {2, 5, 5, 3}, {2, 3, 3, 3}, {2, 2},
                          {2, 2}, Padding::Same)),
            (Shape{2, 5, 5, 3}));
  EXPECT_EQ(ok(pool2dGrad("avg_pool2d_grad", {D, 6, D, 3}, {D, 2, 4, D}, {3, 3},
                          {2, 1}, Padding::Valid)),
            (Shape{D, 6, D, 3}));
  EXPECT_EQ(pool2dGrad("max_pool2d_grad", {2, 5, 5, 3}, {2, 2, 2, 3}, {2, 2},
                       {2, 2}, Padding::Same)
                .error,
            "max_pool2d_grad: the output gradient [2, 2, 2, 3] does not have "
            "the pooled shape [2, 3, 3, 3] of the input [2, 5, 5, 3]; pass "
            "the gradient of the pooling op's result");
  EXPECT_FALSE(pool2dGrad("avg_pool2d_grad", {2, 5, 5, 3}, {2, 3, 3}, {2, 2},
                          {2, 2}, Padding::Same)
                   .ok());
  // The forward rule's errors come first.
  EXPECT_EQ(pool2dGrad("avg_pool2d_grad", {2, 5, 5, 3}, {2, 3, 3, 3}, {2, 2},
                       {0, 2}, Padding::Same)
                .error,
            "avg_pool2d_grad strides must be >= 1, got [0, 2]");
}

TEST(ShapeRules, Range) {
  EXPECT_EQ(ok(range(0, 10, 2)), (Shape{5}));
  EXPECT_EQ(ok(range(0, 10, 3)), (Shape{4}));
  EXPECT_EQ(ok(range(1, 0, -0.25)), (Shape{4}));
  EXPECT_EQ(ok(range(5, 0, 1)), (Shape{0}));
  EXPECT_FALSE(range(0, 1, 0).ok());
}

TEST(ShapeRules, Helpers) {
  EXPECT_EQ(toString({2, D, 3}), "[2, ?, 3]");
  EXPECT_EQ(toString({}), "[]");
  EXPECT_EQ(numElements({2, 3}), 6);
  EXPECT_EQ(numElements({}), 1);
  EXPECT_EQ(numElements({2, D}), D);
  int64_t a;
  EXPECT_TRUE(normalizeAxis(-1, 3, a));
  EXPECT_EQ(a, 2);
  EXPECT_FALSE(normalizeAxis(3, 3, a));
  EXPECT_FALSE(normalizeAxis(0, 0, a));
}

// Element counts never wrap around: an overflow saturates (so no shape
// with 2^62 x 4 elements passes for 0 or 4 elements), and a zero dim gives 0
// in any position.
TEST(ShapeRules, NumElementsNeverWraps) {
  int64_t huge = int64_t{1} << 62;
  EXPECT_EQ(numElements({huge, 4}), std::numeric_limits<int64_t>::max());
  EXPECT_EQ(numElements({huge, 0}), 0);
  EXPECT_EQ(numElements({0, huge, huge}), 0);
  EXPECT_EQ(numElements({3, kDynamic}), kDynamic);
  ShapeResult r = reshape({4}, {huge, 4});
  EXPECT_FALSE(r.ok());
  EXPECT_NE(r.error.find("64 bits"), std::string::npos) << r.error;
}

} // namespace
