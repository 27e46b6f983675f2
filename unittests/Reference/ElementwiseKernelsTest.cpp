//===- ElementwiseKernelsTest.cpp - Elementwise reference kernels ---------===//
//
// Every loop path of the binary kernel (same shape, scalar on either side,
// row broadcast either way, general strides) against an explicit loop, for
// each dtype; plus select, broadcastTo, cast and the kernels' own errors.
//
//===----------------------------------------------------------------------===//

#include "KernelTestUtil.h"
#include "fnc/Memory.h"

#include <cmath>
#include <limits>

using namespace fnc;
using namespace fnc::ref;
using namespace fnc::ref::test;

namespace {

struct ShapePair {
  Shape a, b, out;
};

const ShapePair kShapePairs[] = {
    {{2, 3}, {2, 3}, {2, 3}},       // same shape
    {{2, 3}, {}, {2, 3}},           // scalar right
    {{1}, {4, 5}, {4, 5}},          // scalar left
    {{3, 4}, {3, 1}, {3, 4}},       // row broadcast of b
    {{3, 1}, {3, 4}, {3, 4}},       // row broadcast of a
    {{2, 1, 4}, {3, 1}, {2, 3, 4}}, // general
    {{5, 1, 1, 2}, {1, 3, 2, 1}, {5, 3, 2, 2}},
    {{0, 3}, {3}, {0, 3}}, // empty
    {{}, {}, {}},          // scalars
};

template <typename T> void checkAdd(std::mt19937 &rng) {
  for (const ShapePair &sp : kShapePairs) {
    Array a = random<T>(rng, sp.a, -50, 50);
    Array b = random<T>(rng, sp.b, -50, 50);
    Array out = Array::allocate(dtypeOf<T>, sp.out);
    binary(BinaryOp::Add, a, b, out);
    Array cmp = Array::allocate(DType::i1, sp.out);
    binary(BinaryOp::Less, a, b, cmp);
    for (int64_t i = 0; i < out.numElements(); ++i) {
      Shape idx = unflatten(i, sp.out);
      T x = a.data<T>()[broadcastOffset(idx, sp.a)];
      T y = b.data<T>()[broadcastOffset(idx, sp.b)];
      ASSERT_EQ(out.data<T>()[i], static_cast<T>(x + y))
          << dtypeName(dtypeOf<T>) << " element " << i;
      ASSERT_EQ(cmp.data<bool>()[i], x < y);
    }
  }
}

TEST(ElementwiseKernels, EveryLoopPathEveryDType) {
  std::mt19937 rng(123);
  checkAdd<float>(rng);
  checkAdd<double>(rng);
  checkAdd<int32_t>(rng);
  checkAdd<int64_t>(rng);
}

TEST(ElementwiseKernels, OpsOnAllNumberDTypes) {
  auto run = [](BinaryOp op, auto x, auto y) {
    using T = decltype(x);
    Array out = Array::allocate(dtypeOf<T>, {});
    binary(op, make<T>({}, {x}), make<T>({}, {y}), out);
    return out.data<T>()[0];
  };
  EXPECT_EQ(run(BinaryOp::Sub, int64_t{3}, int64_t{5}), -2);
  EXPECT_EQ(run(BinaryOp::Mul, 2.5, 4.0), 10.0);
  EXPECT_EQ(run(BinaryOp::Div, -7, 2), -3);
  EXPECT_EQ(run(BinaryOp::FloorDiv, -7, 2), -4);
  EXPECT_EQ(run(BinaryOp::FloorMod, -7, 2), 1);
  EXPECT_EQ(run(BinaryOp::FloorMod, 7, -2), -1);
  EXPECT_EQ(run(BinaryOp::FloorMod, 6, -3), 0);
  EXPECT_EQ(run(BinaryOp::FloorMod, -7.5, 2.0), 0.5);
  EXPECT_EQ(run(BinaryOp::FloorDiv, -7.5f, 2.f), -4.f);
  EXPECT_EQ(run(BinaryOp::Pow, int64_t{3}, int64_t{4}), 81);
  EXPECT_EQ(run(BinaryOp::Pow, 2.0, -1.0), 0.5);
  EXPECT_EQ(run(BinaryOp::Maximum, int64_t{-3}, int64_t{2}), 2);
  EXPECT_EQ(run(BinaryOp::Minimum, -3.f, 2.f), -3.f);
  EXPECT_TRUE(std::isnan(
      run(BinaryOp::Maximum, std::numeric_limits<double>::quiet_NaN(), 1.0)));
  EXPECT_EQ(run(BinaryOp::LogicalOr, false, true), true);
  EXPECT_EQ(run(BinaryOp::LogicalAnd, false, true), false);
}

TEST(ElementwiseKernels, DataErrors) {
  Array out = Array::allocate(DType::i32, {2});
  Array a = make<int32_t>({2}, {1, 2});
  Array z = make<int32_t>({2}, {1, 0});
  EXPECT_FNC_ERROR(binary(BinaryOp::Div, a, z, out), InvalidArgument,
                      "fnc::div: integer division by zero");
  EXPECT_FNC_ERROR(binary(BinaryOp::Pow, a, make<int32_t>({}, {-2}), out),
                      InvalidArgument, "fnc::pow");
}

TEST(ElementwiseKernels, CallerBugsAreInternalErrors) {
  Array f = make<float>({2}, {1, 2});
  Array i = make<int32_t>({2}, {1, 2});
  Array out = Array::allocate(DType::f32, {2});
  EXPECT_FNC_ERROR(binary(BinaryOp::Add, f, i, out), Internal,
                      "mixed dtypes");
  EXPECT_FNC_ERROR(binary(BinaryOp::Less, f, f, out), Internal,
                      "wrong dtype");
  EXPECT_FNC_ERROR(
      binary(BinaryOp::Add, f, make<float>({3}, {1, 2, 3}), out), Internal,
      "does not broadcast");
  Array iout = Array::allocate(DType::i32, {2});
  EXPECT_FNC_ERROR(unary(UnaryOp::Exp, i, iout), Internal, "exp");
  EXPECT_FNC_ERROR(unary(UnaryOp::Neg, f, iout), Internal, "neg");
}

TEST(ElementwiseKernels, Unary) {
  Array x = make<double>({4}, {-2.5, -0.0, 0.5, 4.0});
  Array out = Array::allocate(DType::f64, {4});
  unary(UnaryOp::Abs, x, out);
  EXPECT_EQ(read<double>(out), (std::vector<double>{2.5, 0.0, 0.5, 4.0}));
  unary(UnaryOp::Floor, x, out);
  EXPECT_EQ(read<double>(out), (std::vector<double>{-3, -0.0, 0, 4}));
  unary(UnaryOp::Relu, x, out);
  EXPECT_EQ(read<double>(out), (std::vector<double>{0, 0, 0.5, 4}));
  Array xi = make<int64_t>({3}, {std::numeric_limits<int64_t>::min(), -1, 5});
  Array oi = Array::allocate(DType::i64, {3});
  unary(UnaryOp::Abs, xi, oi); // abs(INT64_MIN) wraps to itself
  EXPECT_EQ(read<int64_t>(oi),
            (std::vector<int64_t>{std::numeric_limits<int64_t>::min(), 1, 5}));
  Array b = make<bool>({2}, {true, false});
  Array ob = Array::allocate(DType::i1, {2});
  unary(UnaryOp::LogicalNot, b, ob);
  EXPECT_EQ(read<bool>(ob), (std::vector<bool>{false, true}));
}

TEST(ElementwiseKernels, SelectAndBroadcastTo) {
  std::mt19937 rng(9);
  Array c = make<bool>({3, 1}, {true, false, true});
  Array a = random<int64_t>(rng, {1, 4}, -9, 9);
  Array b = random<int64_t>(rng, {}, -9, 9);
  Array out = Array::allocate(DType::i64, {3, 4});
  select(c, a, b, out);
  for (int64_t i = 0; i < 12; ++i) {
    Shape idx = unflatten(i, {3, 4});
    int64_t expect = c.data<bool>()[idx[0]] ? a.data<int64_t>()[idx[1]]
                                            : b.data<int64_t>()[0];
    EXPECT_EQ(out.data<int64_t>()[i], expect);
  }
  Array x = make<float>({2, 1}, {1, 2});
  Array bx = Array::allocate(DType::f32, {2, 2, 3});
  broadcastTo(x, bx);
  EXPECT_EQ(read<float>(bx),
            (std::vector<float>{1, 1, 1, 2, 2, 2, 1, 1, 1, 2, 2, 2}));
}

TEST(CreationKernels, CastRangeEye) {
  Array f = make<float>({5}, {std::numeric_limits<float>::quiet_NaN(), 1e20f,
                              -1e20f, -3.9f, 3.9f});
  Array i = Array::allocate(DType::i32, {5});
  cast(f, i);
  EXPECT_EQ(read<int32_t>(i),
            (std::vector<int32_t>{0, std::numeric_limits<int32_t>::max(),
                                  std::numeric_limits<int32_t>::min(), -3, 3}));
  Array b = Array::allocate(DType::i1, {5});
  cast(f, b);
  EXPECT_EQ(read<bool>(b), (std::vector<bool>{true, true, true, true, true}));
  Array r = Array::allocate(DType::f64, {4});
  range(1.0, 0.5, r);
  EXPECT_EQ(read<double>(r), (std::vector<double>{1, 1.5, 2, 2.5}));
  Array e = Array::allocate(DType::i64, {2, 2, 3});
  eye(e);
  EXPECT_EQ(read<int64_t>(e),
            (std::vector<int64_t>{1, 0, 0, 0, 1, 0, 1, 0, 0, 0, 1, 0}));
}

TEST(ArrayTest, AllocateAndScalars) {
  Array a = Array::allocate(DType::f64, {3, 0});
  EXPECT_EQ(a.numElements(), 0);
  EXPECT_NE(a.rawData(), nullptr);
  EXPECT_EQ(
      reinterpret_cast<uintptr_t>(Array::allocate(DType::i1, {3}).rawData()) %
          64,
      0u);
  EXPECT_FNC_ERROR(Array::allocate(DType::f32, {2, -3}), InvalidArgument,
                      "negative dimension");
  EXPECT_FNC_ERROR(
      Array::allocate(DType::f32, {int64_t{1} << 40, int64_t{1} << 40}),
      OutOfRange, "too large");
  EXPECT_EQ(Array::scalar(DType::i32, 7.9).data<int32_t>()[0], 7);
  EXPECT_EQ(Array::scalarInt(DType::i1, 5).data<bool>()[0], true);
  EXPECT_EQ(Array::scalar(DType::f32, 2.5).getDouble(0), 2.5);
  EXPECT_EQ(Array::scalarInt(DType::i64, -4).getInt(0), -4);
  Array v = make<int32_t>({2, 3}, {1, 2, 3, 4, 5, 6});
  Array w = v.withShape({3, 2});
  EXPECT_EQ(w.rawData(), v.rawData());
  EXPECT_FNC_ERROR(v.withShape({4}), Internal, "element count");
  EXPECT_EQ(stridesOf({2, 3, 4}), (Shape{12, 4, 1}));
}

TEST(ArrayTest, LargeBuffersAreReusedNeverShared) {
  // The cache is off by default under AddressSanitizer.
  size_t limit = memory_stats().cache_limit;
  set_memory_cache_limit(size_t(1) << 30);
  const Shape big = {1 << 18}; // 1 MiB of float32, above the cache minimum
  Array a = Array::allocate(DType::f32, big);
  Array b = Array::allocate(DType::f32, big);
  EXPECT_NE(a.rawData(), b.rawData());
  const void *freed = a.rawData();
  a = Array();
  Array c = Array::allocate(DType::f32, big);
  EXPECT_EQ(c.rawData(), freed);
  EXPECT_NE(c.rawData(), b.rawData());
  EXPECT_EQ(reinterpret_cast<uintptr_t>(c.rawData()) % 64, 0u);
  set_memory_cache_limit(limit);
}

} // namespace
