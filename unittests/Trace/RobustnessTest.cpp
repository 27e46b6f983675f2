//===- RobustnessTest.cpp - Bad sizes and concurrency through fnc::function ===//
//
// What fuzzing and a two-thread test once broke, through the public API:
// unknown dims that disagree with the first operand larger, sizes too large
// to allocate or to count, and many threads calling staged functions with
// failing and valid calls, fresh and cached signatures and variable
// updates. Each call must get exactly its own result or its own error.
//
//===----------------------------------------------------------------------===//

#include "fnc/fnc.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <thread>
#include <vector>

using namespace fnc;

namespace {

/// The message of the fnc::Error `fn` throws; "" if it throws none.
template <typename Fn> std::string errorOf(Fn &&fn) {
  try {
    fn();
  } catch (const Error &e) {
    return e.what();
  }
  return "";
}

bool contains(const std::string &s, const std::string &part) {
  return s.find(part) != std::string::npos;
}

// Two unknown dims that disagree, the larger first: an error, and nothing
// written past the smaller buffer (this corrupted the heap).
TEST(RobustnessTest, UnknownDimsThatDisagreeLargerFirst) {
  FunctionOptions options;
  options.input_signature = std::vector<TensorSpec>{
      TensorSpec({kUnknownDim}, DType::f32), TensorSpec({kUnknownDim}, DType::f32)};
  auto f = fnc::function([](Tensor a, Tensor b) { return a * 2.f + b; },
                         options);
  for (int i = 0; i < 20; ++i) {
    std::string e = errorOf([&] { f(ones({4096}), ones({2})); });
    EXPECT_TRUE(contains(e, "dynamic dimension mismatch: 4096 vs 2")) << e;
  }
  EXPECT_EQ(f(ones({3}), ones({3})).to_vector<float>(),
            (std::vector<float>{3.f, 3.f, 3.f}));
}

// A tensor too large for the machine, staged: an error, not a write through
// a null pointer. Static (4 TiB) and from a run-time shape tensor.
TEST(RobustnessTest, AllocationsTooLargeAreErrors) {
  auto big = fnc::function([] { return zeros({1 << 20, 1 << 20}); });
  std::string e = errorOf([&] { big(); });
  EXPECT_TRUE(contains(e, "out of memory")) << e;

  auto shaped = fnc::function([](Tensor s) { return zeros(s); });
  e = errorOf([&] { shaped(Tensor(std::vector<int64_t>{1 << 20, 1 << 20})); });
  EXPECT_TRUE(contains(e, "out of memory")) << e;
  e = errorOf([&] {
    shaped(Tensor(std::vector<int64_t>{int64_t{1} << 62, 4}));
  });
  EXPECT_TRUE(contains(e, "more bytes than 64 bits can count")) << e;
  // The same function still works, and the failed calls leave no error
  // behind.
  EXPECT_EQ(shaped(Tensor(std::vector<int64_t>{2, 1})).shape(),
            (Shape{2, 1}));
}

// A staged function that calls itself without end while it is traced: an
// error naming the depth, not a stack overflow. A recursion that tracing
// ends (on a shape) still works, and so does the function afterwards.
TEST(RobustnessTest, EndlessRecursionWhileTracingIsAnError) {
  std::function<Tensor(Tensor)> self;
  auto f = fnc::function([&](Tensor x) { return self(x) + 1.f; });
  self = [&](Tensor x) { return f(x); };
  std::string e = errorOf([&] { f(Tensor(1.f)); });
  EXPECT_TRUE(contains(e, "calls nest too deep while tracing")) << e;
  EXPECT_TRUE(contains(e, "calls itself")) << e;
  self = [](Tensor x) { return x * 2.f; };
  EXPECT_EQ(f(Tensor(1.f)).item<float>(), 3.f);

  std::function<Tensor(Tensor)> halve;
  auto g = fnc::function([&](Tensor x) {
    int64_t n = x.shape()[0];
    return n <= 1 ? x * 10.f : halve(slice(x, {0}, {n / 2}));
  });
  halve = [&](Tensor x) { return g(x); };
  EXPECT_EQ(g(ones({8})).to_vector<float>(), std::vector<float>{10.f});
}

// A zero dim makes a tensor empty whatever the other dims are, in any order.
TEST(RobustnessTest, EmptyTensorsWithHugeDims) {
  int64_t huge = int64_t{1} << 62;
  EXPECT_EQ(ones({huge, 0}).size(), 0);
  EXPECT_EQ(ones({0, huge}).size(), 0);
  std::string e = errorOf([&] { ones({huge, 4}); });
  EXPECT_TRUE(contains(e, "too large")) << e;
}

// Many threads, two functions: one called with valid and out-of-range
// gather indices (cached signature), one traced afresh for new shapes; a
// variable updated by every call. Each call gets its own result or error.
TEST(RobustnessTest, ManyThreadsMixingFailingValidFreshAndCachedCalls) {
  Tensor params = Tensor(std::vector<float>{10.f, 11.f, 12.f, 13.f, 14.f});
  auto gather = fnc::function(
      [&](Tensor i) { return fnc::gather(params, i); });
  Variable calls(zeros({}, DType::i64));
  auto scale = fnc::function([&](Tensor x) {
    calls.assign_add(ones({}, DType::i64));
    return x * 3.f;
  });
  constexpr int kThreads = 8, kIters = 300;
  std::atomic<int> wrong{0}, fresh{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      for (int n = 0; n < kIters; ++n) {
        int32_t index = (t + n) % 7; // 5 and 6 are out of range
        std::string e;
        Tensor r;
        try {
          r = gather(Tensor(std::vector<int32_t>{index}));
        } catch (const Error &err) {
          e = err.what();
        }
        if (index < 5) {
          if (!e.empty() || r.to_vector<float>()[0] != 10.f + index)
            ++wrong;
        } else if (!contains(e, "gather index " + std::to_string(index) +
                                    " is out of range [0, 5)")) {
          ++wrong;
        }
        // A shape of its own every few calls: a fresh trace.
        int len = 1 + (n % 4 == 0 ? (t * kIters + n) % 16 : 0);
        if (n % 4 == 0)
          ++fresh;
        Tensor x = fill({len}, Tensor(static_cast<float>(t)));
        std::vector<float> got = scale(x).to_vector<float>();
        if (got != std::vector<float>(len, 3.f * t))
          ++wrong;
      }
    });
  for (auto &th : threads)
    th.join();
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_LE(scale.tracing_count(), 16);
  EXPECT_GT(fresh.load(), 0);
  EXPECT_EQ(gather.tracing_count(), 1);
  // Concurrent updates of one variable are not atomic (as in TensorFlow
  // without a lock), but every call did update it.
  int64_t total = calls.read_value().item<int64_t>();
  EXPECT_GT(total, 0);
  EXPECT_LE(total, int64_t{kThreads} * kIters);
}

} // namespace
