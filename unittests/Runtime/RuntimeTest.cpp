//===- RuntimeTest.cpp - Tests of the C runtime of generated code ---------===//
//
// Calls the runtime entry points the way generated code does (through memref
// descriptors) and checks printing of strided views, the Philox generator
// against Random123's known answers, the statistics and reproducibility of
// the random streams, and the per-call error context.
//
//===----------------------------------------------------------------------===//

#include "fnc/Runtime/Runtime.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <sstream>
#include <thread>

using namespace fnc::runtime;

namespace {

/// Captures what the runtime prints while alive.
class Capture {
public:
  Capture() { setOutputStream(&os_); }
  ~Capture() { setOutputStream(nullptr); }
  std::string str() const { return os_.str(); }

private:
  std::ostringstream os_;
};

/// A call context and its descriptor, as a compiled function receives them.
struct Context {
  CallContext context;
  int64_t slots[kContextSlots];
  FncContextRef ref;
  Context() {
    packContext(context, slots);
    ref = {reinterpret_cast<int64_t *>(slots[0]),
           reinterpret_cast<int64_t *>(slots[1]),
           slots[2],
           {slots[3]},
           {slots[4]}};
    FncContextRef direct = context.ref();
    EXPECT_EQ(direct.basePtr, ref.basePtr);
    EXPECT_EQ(direct.data, ref.data);
  }
};

/// The context of the printing and random tests, which raise no error.
Context ctx;

template <typename T, int N>
UnrankedMemRefType<T> unranked(StridedMemRefType<T, N> &d) {
  return {N, &d};
}

template <typename T> StridedMemRefType<T, 1> contiguous1D(std::vector<T> &v) {
  return {v.data(), v.data(), 0, {static_cast<int64_t>(v.size())}, {1}};
}

TEST(RuntimePrint, Text) {
  Capture capture;
  std::string s = "x = ";
  StridedMemRefType<int8_t, 1> d{reinterpret_cast<int8_t *>(s.data()),
                                 reinterpret_cast<int8_t *>(s.data()),
                                 0,
                                 {static_cast<int64_t>(s.size())},
                                 {1}};
  _mlir_ciface_fncPrintText(&ctx.ref, &d);
  _mlir_ciface_fncPrintNewline(&ctx.ref);
  EXPECT_EQ(capture.str(), "x = \n");
}

TEST(RuntimePrint, TextWithOffsetAndStride) {
  Capture capture;
  std::string s = "_h_e_y";
  auto *p = reinterpret_cast<int8_t *>(s.data());
  StridedMemRefType<int8_t, 1> d{p, p, 1, {3}, {2}};
  _mlir_ciface_fncPrintText(&ctx.ref, &d);
  EXPECT_EQ(capture.str(), "hey");
}

TEST(RuntimePrint, VectorF32) {
  Capture capture;
  std::vector<float> v = {1.f, 2.f};
  auto d = contiguous1D(v);
  auto u = unranked(d);
  _mlir_ciface_fncPrintTensorF32(&ctx.ref, &u);
  EXPECT_EQ(capture.str(), "[1. 2.]");
}

TEST(RuntimePrint, ScalarF32) {
  Capture capture;
  float x = 4.f;
  StridedMemRefType<float, 0> d{&x, &x, 0};
  auto u = unranked(d);
  _mlir_ciface_fncPrintTensorF32(&ctx.ref, &u);
  EXPECT_EQ(capture.str(), "4.0");
}

TEST(RuntimePrint, MatrixI32) {
  Capture capture;
  std::vector<int32_t> v = {1, 2, 3, 4};
  StridedMemRefType<int32_t, 2> d{v.data(), v.data(), 0, {2, 2}, {2, 1}};
  auto u = unranked(d);
  _mlir_ciface_fncPrintTensorI32(&ctx.ref, &u);
  EXPECT_EQ(capture.str(), "[[1 2]\n [3 4]]");
}

TEST(RuntimePrint, TransposedWithOffset) {
  // A 2x3 view at offset 1 of a buffer, transposed (strides {1, 2}):
  // element (i, j) is buffer[1 + i + 2 j].
  Capture capture;
  std::vector<int64_t> buffer = {99, 0, 1, 2, 3, 4, 5};
  StridedMemRefType<int64_t, 2> d{
      buffer.data(), buffer.data(), 1, {2, 3}, {1, 2}};
  auto u = unranked(d);
  _mlir_ciface_fncPrintTensorI64(&ctx.ref, &u);
  EXPECT_EQ(capture.str(), "[[0 2 4]\n [1 3 5]]");
}

TEST(RuntimePrint, BoolAndF64) {
  Capture capture;
  bool raw[2] = {true, false};
  StridedMemRefType<bool, 1> b{raw, raw, 0, {2}, {1}};
  auto ub = unranked(b);
  _mlir_ciface_fncPrintTensorI1(&ctx.ref, &ub);
  _mlir_ciface_fncPrintNewline(&ctx.ref);
  std::vector<double> v = {0.5, 1.25, -3.0};
  auto d = contiguous1D(v);
  auto ud = unranked(d);
  _mlir_ciface_fncPrintTensorF64(&ctx.ref, &ud);
  EXPECT_EQ(capture.str(), "[ True False]\n[ 0.5   1.25 -3.  ]");
}

TEST(RuntimePrint, Empty) {
  Capture capture;
  float dummy = 0;
  StridedMemRefType<float, 2> d{&dummy, &dummy, 0, {0, 3}, {3, 1}};
  auto u = unranked(d);
  _mlir_ciface_fncPrintTensorF32(&ctx.ref, &u);
  EXPECT_EQ(capture.str(), "[]");
}

// Random123's kat_vectors for philox4x32 with 10 rounds.
TEST(RuntimeRandom, PhiloxKnownAnswers) {
  using A4 = std::array<uint32_t, 4>;
  EXPECT_EQ(philox4x32({0, 0, 0, 0}, {0, 0}),
            (A4{0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}));
  EXPECT_EQ(philox4x32({0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff},
                       {0xffffffff, 0xffffffff}),
            (A4{0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}));
  EXPECT_EQ(philox4x32({0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344},
                       {0xa4093822, 0x299f31d0}),
            (A4{0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}));
}

template <typename T>
std::vector<T> drawUniform(int64_t n, int64_t opKey, double lo, double hi) {
  std::vector<T> v(n);
  auto d = contiguous1D(v);
  auto u = unranked(d);
  if constexpr (std::is_same_v<T, float>)
    _mlir_ciface_fncRandomUniformF32(&ctx.ref, &u, opKey, lo, hi);
  else
    _mlir_ciface_fncRandomUniformF64(&ctx.ref, &u, opKey, lo, hi);
  return v;
}

template <typename T>
std::vector<T> drawNormal(int64_t n, int64_t opKey, double mean, double sd) {
  std::vector<T> v(n);
  auto d = contiguous1D(v);
  auto u = unranked(d);
  if constexpr (std::is_same_v<T, float>)
    _mlir_ciface_fncRandomNormalF32(&ctx.ref, &u, opKey, mean, sd);
  else
    _mlir_ciface_fncRandomNormalF64(&ctx.ref, &u, opKey, mean, sd);
  return v;
}

template <typename T>
void meanStd(const std::vector<T> &v, double &m, double &s) {
  m = 0;
  for (T x : v)
    m += x;
  m /= v.size();
  s = 0;
  for (T x : v)
    s += (x - m) * (x - m);
  s = std::sqrt(s / (v.size() - 1));
}

TEST(RuntimeRandom, UniformRangeAndMoments) {
  setGlobalSeed(1);
  const int64_t n = 100001; // odd: exercises the partial last block
  auto f = drawUniform<float>(n, 3, -2.0, 6.0);
  auto d = drawUniform<double>(n, 4, -2.0, 6.0);
  for (float x : f)
    ASSERT_TRUE(x >= -2.f && x < 6.f) << x;
  for (double x : d)
    ASSERT_TRUE(x >= -2.0 && x < 6.0) << x;
  double m, s;
  // Uniform on [-2, 6): mean 2, stddev 8/sqrt(12) = 2.309; 5 sigma bounds.
  meanStd(f, m, s);
  EXPECT_NEAR(m, 2.0, 5 * 2.309 / std::sqrt(n));
  EXPECT_NEAR(s, 2.309, 0.02);
  meanStd(d, m, s);
  EXPECT_NEAR(m, 2.0, 5 * 2.309 / std::sqrt(n));
  EXPECT_NEAR(s, 2.309, 0.02);
}

TEST(RuntimeRandom, NormalMoments) {
  setGlobalSeed(2);
  const int64_t n = 100003;
  auto f = drawNormal<float>(n, 5, 1.5, 3.0);
  auto d = drawNormal<double>(n, 6, -1.0, 0.5);
  double m, s;
  meanStd(f, m, s);
  EXPECT_NEAR(m, 1.5, 5 * 3.0 / std::sqrt(n));
  EXPECT_NEAR(s, 3.0, 0.03);
  meanStd(d, m, s);
  EXPECT_NEAR(m, -1.0, 5 * 0.5 / std::sqrt(n));
  EXPECT_NEAR(s, 0.5, 0.005);
  for (float x : f)
    ASSERT_TRUE(std::isfinite(x));
}

TEST(RuntimeRandom, ReproducibleWithSeed) {
  setGlobalSeed(42);
  auto a1 = drawUniform<float>(10, 1, 0, 1);
  auto a2 = drawNormal<double>(7, 2, 0, 1);
  setGlobalSeed(42);
  auto b1 = drawUniform<float>(10, 1, 0, 1);
  auto b2 = drawNormal<double>(7, 2, 0, 1);
  EXPECT_EQ(a1, b1);
  EXPECT_EQ(a2, b2);
  setGlobalSeed(43);
  EXPECT_NE(drawUniform<float>(10, 1, 0, 1), a1);
}

TEST(RuntimeRandom, FreshValuesPerCallAndPerOp) {
  setGlobalSeed(7);
  auto first = drawUniform<float>(8, 1, 0, 1);
  auto second = drawUniform<float>(8, 1, 0, 1);
  auto otherOp = drawUniform<float>(8, 2, 0, 1);
  EXPECT_NE(first, second);
  EXPECT_NE(first, otherOp);
  // The stream of an op is the concatenation of its calls.
  setGlobalSeed(7);
  auto both = drawUniform<float>(16, 1, 0, 1);
  EXPECT_EQ(std::vector<float>(both.begin(), both.begin() + 8), first);
  EXPECT_EQ(std::vector<float>(both.begin() + 8, both.end()), second);
}

TEST(RuntimeErrors, FirstErrorWins) {
  Context call;
  EXPECT_FALSE(call.context.failed());
  EXPECT_FALSE(call.context.error().has_value());
  _mlir_ciface_fncRaiseError(&call.ref, 1, 7, 5);
  _mlir_ciface_fncRaiseError(&call.ref, 2, 0, 0);
  EXPECT_TRUE(call.context.failed());
  EXPECT_EQ(call.context.error(),
            "gather index 7 is out of range [0, 5); valid indices are 0 to 4");
  // Another call's context is untouched.
  EXPECT_FALSE(ctx.context.failed());
}

TEST(RuntimeErrors, NumericsCarryTheOpName) {
  Context call;
  std::string s = "fnc.exp";
  auto *p = reinterpret_cast<int8_t *>(s.data());
  StridedMemRefType<int8_t, 1> d{p, p, 0, {7}, {1}};
  _mlir_ciface_fncNumericsError(&call.ref, &d);
  EXPECT_EQ(call.context.error(), "check_numerics: fnc.exp produced NaN or Inf");
}

TEST(RuntimeErrors, KindsAreThoseOfTheEagerOps) {
  EXPECT_EQ(errorKind(static_cast<int64_t>(ErrorCode::GatherIndex)),
            fnc::ErrorKind::OutOfRange);
  EXPECT_EQ(errorKind(static_cast<int64_t>(ErrorCode::RowIndex)),
            fnc::ErrorKind::OutOfRange);
  EXPECT_EQ(errorKind(static_cast<int64_t>(ErrorCode::DivisionByZero)),
            fnc::ErrorKind::InvalidArgument);
  EXPECT_EQ(errorKind(static_cast<int64_t>(ErrorCode::NonFinite)),
            fnc::ErrorKind::FailedPrecondition);
  EXPECT_EQ(errorKind(static_cast<int64_t>(ErrorCode::Internal)),
            fnc::ErrorKind::Internal);
  EXPECT_EQ(errorKind(999), fnc::ErrorKind::Internal);
}

TEST(RuntimeErrors, Messages) {
  EXPECT_EQ(errorMessage(2, 0, 0).rfind("integer division by zero; make sure "
                                        "the divisor has no zeros",
                                        0),
            0u);
  EXPECT_EQ(errorMessage(3, 4, 5).rfind("dynamic dimension mismatch: 4 vs 5 (", 0),
            0u);
  EXPECT_NE(errorMessage(3, 4, 5).find("or be 1 where they broadcast"),
            std::string::npos);
  EXPECT_EQ(errorMessage(17, 6, 0).rfind("argmax / argmin along an empty "
                                         "axis (of a tensor with 6 results)",
                                         0),
            0u);
  EXPECT_EQ(errorMessage(9, -1, 0),
            "a shape holds the negative size -1 (at index 0); sizes must be "
            ">= 0");
  EXPECT_EQ(errorMessage(4, 6, 8),
            "cannot reshape a tensor of 6 elements: the known dimensions of "
            "the new shape multiply to 8");
  EXPECT_EQ(errorMessage(16, -5, 4),
            "index -5 is out of range for a dimension of size 4 (valid: -4 "
            "to 3)");
  EXPECT_EQ(errorMessage(16, 0, 0),
            "index 0 is out of range for a dimension of size 0 (the dim is "
            "empty)");
  EXPECT_NE(errorMessage(99, 1, 2).find("99"), std::string::npos);
}

// The OpenMP workers of one call race for its context: one error wins, and
// each call's context holds only errors of that call.
TEST(RuntimeErrors, FromManyThreads) {
  Context calls[2];
  std::vector<std::thread> threads;
  for (int i = 0; i < 8; ++i)
    threads.emplace_back([i, &calls] {
      for (int j = 0; j < 1000; ++j)
        _mlir_ciface_fncRaiseError(&calls[i % 2].ref, 3, i, j);
    });
  for (auto &t : threads)
    t.join();
  for (int k = 0; k < 2; ++k) {
    ASSERT_TRUE(calls[k].context.failed());
    EXPECT_EQ(calls[k].context.a % 2, k);
    EXPECT_EQ(calls[k].context.error()->rfind("dynamic dimension mismatch: ", 0),
              0u);
  }
}

TEST(RuntimeSymbols, ListsEveryEntryPoint) {
  auto syms = symbols();
  auto find = [&](const std::string &name) -> void * {
    for (auto &[n, p] : syms)
      if (n == name)
        return p;
    return nullptr;
  };
  EXPECT_EQ(find("_mlir_ciface_fncRaiseError"),
            reinterpret_cast<void *>(&_mlir_ciface_fncRaiseError));
  EXPECT_EQ(find("_mlir_ciface_fncPrintNewline"),
            reinterpret_cast<void *>(&_mlir_ciface_fncPrintNewline));
  EXPECT_NE(find("_mlir_ciface_fncPrintTensorI1"), nullptr);
  EXPECT_NE(find("_mlir_ciface_fncRandomNormalF64"), nullptr);
  EXPECT_NE(find("free"), nullptr);
  EXPECT_NE(find("calloc"), nullptr);
  // Parallel loops' OpenMP entry points, by the names generated code uses.
  EXPECT_NE(find("__kmpc_fork_call"), nullptr);
  EXPECT_NE(find("__kmpc_for_static_init_8u"), nullptr);
  // The profiler's kernel spans (plain C symbols); off, a kernel's begin
  // is -1 and its end records nothing.
  EXPECT_EQ(find("fncProfileKernelBegin"),
            reinterpret_cast<void *>(&fncProfileKernelBegin));
  EXPECT_EQ(find("fncProfileKernelEnd"),
            reinterpret_cast<void *>(&fncProfileKernelEnd));
  EXPECT_EQ(fncProfileKernelBegin(), -1);
  fncProfileKernelEnd("fnc.add", "f", -1);
  EXPECT_EQ(syms.size(), 20u + parallelEntries().size());
}

// Errors that loops store into the context's three words without a call
// are the call's error.
TEST(RuntimeErrors, LoopWords) {
  Context call;
  ASSERT_FALSE(call.context.failed());
  call.ref.data[0] = 1;
  call.ref.data[1] = 7;
  call.ref.data[2] = 5;
  EXPECT_TRUE(call.context.failed());
  EXPECT_EQ(call.context.error(),
            "gather index 7 is out of range [0, 5); valid indices are 0 to 4");
}

} // namespace
