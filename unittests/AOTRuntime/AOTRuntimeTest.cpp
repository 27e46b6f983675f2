//===- AOTRuntimeTest.cpp - The runtime of code compiled ahead of time ----===//
//
// fncMemrefCopy against an index-by-index copy on random shapes and
// strides, and fnc::aot::Instance on hand-written packed entry points (the
// calling convention of docs/Runtime.md): variables per instance, argument
// checks, results that alias an argument, run-time errors. The generated
// code's side is covered by test/Package/aot-consumer.
//
//===----------------------------------------------------------------------===//

#include "fnc/AOT.h"
#include "fnc/Ops.h"
#include "fnc/Runtime/ErrorCode.h"
#include "fnc/Runtime/Runtime.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

extern "C" {
struct FncUnranked {
  int64_t rank;
  void *descriptor;
};
void fncMemrefCopy(int64_t elemSize, FncUnranked *src, FncUnranked *dst);
}

namespace {

using fnc::Tensor;

/// A ranked descriptor of `rank` dims as generated code lays it out.
std::vector<int64_t> descriptor(void *base, int64_t offset,
                                const std::vector<int64_t> &sizes,
                                const std::vector<int64_t> &strides) {
  std::vector<int64_t> d = {reinterpret_cast<int64_t>(base),
                            reinterpret_cast<int64_t>(base), offset};
  d.insert(d.end(), sizes.begin(), sizes.end());
  d.insert(d.end(), strides.begin(), strides.end());
  return d;
}

TEST(AOTRuntime, MemrefCopyMatchesElementwiseCopy) {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 200; ++trial) {
    int64_t rank = rng() % 5;
    std::vector<int64_t> sizes(rank);
    for (int64_t &s : sizes)
      s = rng() % 4; // includes empty dims
    // Source: a permuted, padded layout; destination: row-major.
    std::vector<int64_t> perm(rank);
    for (int64_t i = 0; i < rank; ++i)
      perm[i] = i;
    std::shuffle(perm.begin(), perm.end(), rng);
    std::vector<int64_t> srcStrides(rank), dstStrides(rank);
    int64_t stride = 1 + rng() % 2;
    for (int64_t i = 0; i < rank; ++i) {
      srcStrides[perm[i]] = stride;
      stride *= sizes[perm[i]] + rng() % 2;
    }
    stride = 1;
    for (int64_t i = rank; i-- > 0;) {
      dstStrides[i] = stride;
      stride *= sizes[i];
    }
    int64_t offset = rng() % 3;
    std::vector<double> src(offset + 4 * 4 * 4 * 4 * 8 + 1);
    for (size_t i = 0; i < src.size(); ++i)
      src[i] = static_cast<double>(i);
    std::vector<double> dst(std::max<int64_t>(stride, 1), -1);
    auto s = descriptor(src.data(), offset, sizes, srcStrides);
    auto d = descriptor(dst.data(), 0, sizes, dstStrides);
    FncUnranked us{rank, s.data()}, ud{rank, d.data()};
    fncMemrefCopy(sizeof(double), &us, &ud);

    int64_t count = 1;
    for (int64_t x : sizes)
      count *= x;
    for (int64_t n = 0; n < count; ++n) {
      int64_t rest = n, from = offset, to = 0;
      for (int64_t i = rank; i-- > 0;) {
        int64_t index = rest % sizes[i];
        rest /= sizes[i];
        from += index * srcStrides[i];
        to += index * dstStrides[i];
      }
      ASSERT_EQ(dst[to], src[from]) << "trial " << trial << " element " << n;
    }
  }
}

//===----------------------------------------------------------------------===//
// Instance on hand-written entry points
//===----------------------------------------------------------------------===//

int64_t &slot(void **args, size_t i) {
  return *static_cast<int64_t *>(args[i]);
}

/// @accumulate(%v: !fnc.variable<tensor<3xf32>> {fnc.bind = @acc},
///             %x: tensor<?xf32>) -> tensor<?xf32>: acc[i] += x[i] for
/// i < 3, returns x itself (an alias of the argument, which the caller
/// must copy). Slots: context 0-4, v 5-9, x 10-14, result at args[15].
void accumulate(void **args) {
  auto *acc = reinterpret_cast<float *>(slot(args, 6));
  auto *x = reinterpret_cast<float *>(slot(args, 11));
  int64_t n = slot(args, 13);
  for (int64_t i = 0; i < n && i < 3; ++i)
    acc[i] += x[i];
  int64_t *result = static_cast<int64_t *>(args[15]);
  for (int k = 0; k < 5; ++k)
    result[k] = slot(args, 10 + k);
}

/// @check(%i: tensor<i64>) -> (): raises a gather error for i >= 5.
void check(void **args) {
  int64_t i = *reinterpret_cast<int64_t *>(slot(args, 6));
  if (i >= 5) {
    FncContextRef ctx;
    ctx.basePtr = ctx.data = reinterpret_cast<int64_t *>(slot(args, 0));
    ctx.offset = 0;
    ctx.sizes[0] = 3;
    ctx.strides[0] = 1;
    _mlir_ciface_fncRaiseError(
        &ctx, static_cast<int64_t>(fnc::runtime::ErrorCode::GatherIndex), i, 5);
  }
}

const int64_t kThree[] = {3};
const int64_t kAny[] = {fnc::aot::kDynamic};
const float kInitial[] = {1, 2, 3};
const fnc::aot::ArgInfo kAccumulateArgs[] = {
    {fnc::aot::ArgKind::BoundVariable, {fnc::DType::f32, 1, kThree}, 0},
    {fnc::aot::ArgKind::Tensor, {fnc::DType::f32, 1, kAny}, 0}};
const fnc::aot::TypeInfo kAccumulateResults[] = {{fnc::DType::f32, 1, kAny}};
const fnc::aot::ArgInfo kCheckArgs[] = {
    {fnc::aot::ArgKind::Tensor, {fnc::DType::i64, 0, nullptr}, 0}};
const fnc::aot::FunctionInfo kFunctions[] = {
    {"accumulate", &accumulate, 2, kAccumulateArgs, 1, kAccumulateResults},
    {"check", &check, 1, kCheckArgs, 0, nullptr}};
const fnc::aot::VariableInfo kVariables[] = {
    {"acc", {fnc::DType::f32, 1, kThree}, kInitial}};
const fnc::aot::ModuleInfo kModule = {"Test",     "generic", 1,
                                      kVariables, 2,         kFunctions};

void expectValues(const Tensor &t, std::vector<float> want) {
  EXPECT_EQ(t.to_vector<float>(), want) << t.str();
}

TEST(AOTRuntime, InstanceHoldsItsVariables) {
  fnc::aot::Instance a(kModule), b(kModule);
  Tensor x({10.f, 20.f, 30.f, 40.f});
  std::vector<Tensor> r = a.call(0, {x});
  ASSERT_EQ(r.size(), 1u);
  expectValues(r[0], {10, 20, 30, 40});
  // The result aliased the argument: it is a copy, not x's buffer.
  EXPECT_NE(r[0].data<float>(), x.data<float>());
  expectValues(a.read(0), {11, 22, 33});
  expectValues(b.read(0), {1, 2, 3});
  fnc::aot::Instance c = a;
  a.call(0, {x});
  expectValues(a.read(0), {21, 42, 63});
  expectValues(c.read(0), {11, 22, 33});
  c.assign(0, Tensor({0.f, 0.f, 0.f}));
  expectValues(c.read(0), {0, 0, 0});
  expectValues(a.read(0), {21, 42, 63});
}

TEST(AOTRuntime, InstanceChecksArguments) {
  fnc::aot::Instance a(kModule);
  auto expectError = [](auto fn, fnc::ErrorKind kind, const char *message) {
    try {
      fn();
      ADD_FAILURE() << "no error; expected " << message;
    } catch (const fnc::Error &e) {
      EXPECT_EQ(e.kind(), kind);
      EXPECT_EQ(e.message(), message);
    }
  };
  expectError(
      [&] {
        a.call(0, {Tensor({1.0, 2.0})});
      },
      fnc::ErrorKind::InvalidArgument,
      "argument #1 of @accumulate: expected tensor<?xf32>, got "
      "tensor<2xf64>");
  expectError([&] { a.call(0, {}); }, fnc::ErrorKind::InvalidArgument,
              "@accumulate takes 1 argument but 0 were given");
  expectError(
      [&] {
        a.assign(0, Tensor({1.f, 2.f}));
      },
      fnc::ErrorKind::InvalidArgument,
      "cannot assign a tensor<2xf32> to variable @acc of type "
      "tensor<3xf32>; assign a tensor of exactly that dtype and "
      "shape");
  expectError([&] { a.read(1); }, fnc::ErrorKind::OutOfRange,
              "variable #1 of module 'Test': it has 1 variables");
  expectError([&] { a.call(2, {}); }, fnc::ErrorKind::OutOfRange,
              "function #2 of module 'Test': it has 2 functions");
  a.call(1, {Tensor(int64_t(4))});
  expectError([&] { a.call(1, {Tensor(int64_t(7))}); },
              fnc::ErrorKind::OutOfRange,
              "@check: gather index 7 is out of range [0, 5); valid indices "
              "are 0 to 4");
  expectValues(a.read(0), {1, 2, 3});
}

} // namespace
