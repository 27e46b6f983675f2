//===- EagerKernelsTest.cpp - Eager ops on compiled kernels ---------------===//
//
// fnc/Eager.h: big eager ops run kernels compiled by the staging pipeline.
// Every op family that has a compiled kernel is run on random inputs of
// random shapes (each above the work threshold, api::kMinCompiledWork) (odd sizes, every broadcast pattern, several dtypes) in the
// Blocking mode and compared with the reference kernels (the Reference
// mode); the tests also check that a kernel serves new sizes, that errors,
// gradient tapes and check-numerics mode are the reference kernels', that
// the Background mode never waits, and that traces are not affected.
//
//===----------------------------------------------------------------------===//

#include "Support/ExpectError.h"

#include "fnc/Memory.h"
#include "fnc/fnc.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <random>
#include <thread>

using namespace fnc;

namespace {

/// Restores the process's mode after a test.
class EagerKernelsTest : public ::testing::Test {
protected:
  void SetUp() override { saved_ = eager_kernels(); }
  void TearDown() override { set_eager_kernels(saved_); }

private:
  EagerKernels saved_ = EagerKernels::Background;
};

Tensor randomOf(std::mt19937 &rng, const Shape &shape, DType dtype) {
  int64_t seed = static_cast<int64_t>(rng() % 100000);
  if (dtype == DType::i32 || dtype == DType::i64)
    return cast(random_uniform(shape, -50, 50, DType::f32, seed), dtype);
  return random_normal(shape, 0, 1, dtype, seed);
}

/// Runs `op` on the reference kernels and on the compiled ones, and checks
/// that a compiled kernel served it and that the results agree: exactly
/// for integers and bools, within `tol` relative to the largest magnitude
/// for floats.
void expectAgree(const std::function<Tensor()> &op, double tol,
                 const std::string &what) {
  SCOPED_TRACE(what);
  set_eager_kernels(EagerKernels::Reference);
  Tensor want = op();
  set_eager_kernels(EagerKernels::Blocking);
  uint64_t calls = eager_kernel_stats().calls;
  Tensor got = op();
  EXPECT_GT(eager_kernel_stats().calls, calls) << "no compiled kernel ran";
  ASSERT_EQ(got.shape(), want.shape());
  ASSERT_EQ(got.dtype(), want.dtype());
  std::vector<double> w = cast(want, DType::f64).to_vector<double>();
  std::vector<double> g = cast(got, DType::f64).to_vector<double>();
  double scale = 1;
  for (double v : w)
    scale = std::max(scale, std::abs(v));
  bool exact = !isFloat(want.dtype());
  for (size_t i = 0; i < w.size(); ++i) {
    if (std::isnan(w[i])) {
      EXPECT_TRUE(std::isnan(g[i])) << "element " << i;
      continue;
    }
    if (exact)
      ASSERT_EQ(g[i], w[i]) << "element " << i;
    else
      ASSERT_NEAR(g[i], w[i], tol * scale) << "element " << i;
  }
}

TEST_F(EagerKernelsTest, ElementwiseOpsAgreeWithTheReference) {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 6; ++trial) {
    int64_t a = 100 + rng() % 200, b = 330 + rng() % 300;
    for (DType dtype : {DType::f32, DType::f64, DType::i32}) {
      bool isF = isFloat(dtype);
      double tol = dtype == DType::f32 ? 2e-6 : 1e-13;
      std::string where = "trial " + std::to_string(trial) + " " +
                          dtypeName(dtype) + " [" + std::to_string(a) + "," +
                          std::to_string(b) + "]";
      Tensor x = randomOf(rng, {a, b}, dtype), y = randomOf(rng, {a, b}, dtype);
      Tensor row = randomOf(rng, {b}, dtype), col = randomOf(rng, {a, 1}, dtype);
      Tensor lone = randomOf(rng, {1, b}, dtype);
      expectAgree([&] { return x + y; }, tol, where + " x + y");
      expectAgree([&] { return x * row; }, tol, where + " x * row");
      expectAgree([&] { return col - lone; }, tol, where + " col - lone");
      expectAgree([&] { return maximum(x, col); }, tol, where + " maximum");
      expectAgree([&] { return x * 3; }, tol, where + " x * 3");
      expectAgree([&] { return less(x, row); }, 0, where + " less");
      expectAgree([&] { return select(x > y, x, row); }, 0,
                  where + " select");
      expectAgree([&] { return neg(x); }, 0, where + " neg");
      if (isF) {
        expectAgree([&] { return x / (abs(y) + 1); }, tol, where + " div");
        // Vectorized polynomials under fast math: a few ulps (Pipeline.md).
        double approx = dtype == DType::f32 ? 2e-6 : 1e-13;
        expectAgree([&] { return tanh(x); }, approx, where + " tanh");
        expectAgree([&] { return exp(x); }, approx, where + " exp");
        expectAgree([&] { return log(abs(x) + 1e-3); }, approx, where + " log");
        expectAgree([&] { return sigmoid(x); }, approx, where + " sigmoid");
        expectAgree([&] { return sqrt(abs(x)); }, tol, where + " sqrt");
      } else {
        Tensor d = abs(y) + 1;
        expectAgree([&] { return floor_mod(x, d); }, 0, where + " floor_mod");
        expectAgree([&] { return floor_div(x, d); }, 0, where + " floor_div");
      }
    }
  }
}

TEST_F(EagerKernelsTest, MatmulAgreesWithTheReference) {
  std::mt19937 rng(11);
  for (int trial = 0; trial < 5; ++trial) {
    int64_t m = 40 + rng() % 150, k = 60 + rng() % 300, n = 20 + rng() % 200;
    std::string where = "[" + std::to_string(m) + "," + std::to_string(k) +
                        "] @ [" + std::to_string(k) + "," + std::to_string(n) +
                        "]";
    for (DType dtype : {DType::f32, DType::f64, DType::i32}) {
      double tol = dtype == DType::f32 ? 1e-5 : 1e-12;
      Tensor a = randomOf(rng, {m, k}, dtype), b = randomOf(rng, {k, n}, dtype);
      expectAgree([&] { return matmul(a, b); }, tol,
                  where + " " + dtypeName(dtype));
    }
    Tensor a = randomOf(rng, {3, m, k}, DType::f32);
    Tensor b = randomOf(rng, {k, n}, DType::f32);
    expectAgree([&] { return matmul(a, b); }, 1e-5, where + " batched");
  }
}

TEST_F(EagerKernelsTest, ConvPoolReduceSoftmaxAgreeWithTheReference) {
  std::mt19937 rng(13);
  for (int trial = 0; trial < 4; ++trial) {
    int64_t n = 4 + rng() % 3, h = 16 + rng() % 20, w = 16 + rng() % 20,
            c = 3 + rng() % 10, f = 8 + rng() % 32;
    int64_t s = 1 + trial % 2;
    const char *pad = trial < 2 ? "SAME" : "VALID";
    std::string where = "trial " + std::to_string(trial);
    Tensor x = randomOf(rng, {n, h, w, c}, DType::f32);
    Tensor k = randomOf(rng, {3, 3, c, f}, DType::f32);
    expectAgree([&] { return conv2d(x, k, {s, s}, pad); }, 1e-5,
                where + " conv2d");
    Tensor big = randomOf(rng, {n, 4 * h, 4 * w, c + 8}, DType::f32);
    expectAgree([&] { return max_pool2d(big, {2, 2}, {s, s}, pad); }, 0,
                where + " max_pool2d");
    expectAgree([&] { return avg_pool2d(big, {3, 3}, {2, 2}, pad); }, 1e-6,
                where + " avg_pool2d");
    Tensor r = randomOf(rng, {64 + int64_t(rng() % 64), 300, 3}, DType::f32);
    // A float sum of N terms may round differently by about N ulps of the
    // terms once reassociated (split and parallel): 60K terms of about 1
    // against a sum of about 100.
    expectAgree([&] { return reduce_sum(r); }, 1e-3, where + " sum");
    expectAgree([&] { return reduce_mean(r, {1}, true); }, 1e-5,
                where + " mean");
    expectAgree([&] { return reduce_max(r, {0, 2}); }, 0, where + " max");
    Tensor ri = randomOf(rng, {200, 300}, DType::i32);
    expectAgree([&] { return reduce_sum(ri, {0}); }, 0, where + " i32 sum");
    Tensor z = randomOf(rng, {256 + int64_t(rng() % 64), 130}, DType::f32);
    expectAgree([&] { return softmax(z); }, 1e-6, where + " softmax");
    expectAgree([&] { return log_softmax(z, 0); }, 1e-5,
                where + " log_softmax");
  }
}

TEST_F(EagerKernelsTest, OneKernelServesEverySizeOfAPattern) {
  set_eager_kernels(EagerKernels::Blocking);
  std::mt19937 rng(3);
  Tensor x = randomOf(rng, {300, 257}, DType::f32);
  (void)erf(x); // a pattern no other test uses first
  uint64_t compiled = eager_kernel_stats().compiled;
  uint64_t calls = eager_kernel_stats().calls;
  for (int64_t rows : {301, 512, 1000}) {
    Tensor y = randomOf(rng, {rows, 129}, DType::f32);
    Tensor got = erf(y);
    set_eager_kernels(EagerKernels::Reference);
    Tensor want = erf(y);
    set_eager_kernels(EagerKernels::Blocking);
    std::vector<float> g = got.to_vector<float>(), w = want.to_vector<float>();
    for (size_t i = 0; i < g.size(); ++i)
      ASSERT_NEAR(g[i], w[i], 1e-6) << rows << " rows, element " << i;
  }
  EXPECT_EQ(eager_kernel_stats().compiled, compiled);
  EXPECT_EQ(eager_kernel_stats().calls, calls + 3);
  // A dim of 1 is part of the pattern (it broadcasts): a kernel of its own.
  (void)erf(randomOf(rng, {1, 40000}, DType::f32));
  EXPECT_EQ(eager_kernel_stats().compiled, compiled + 1);
}

TEST_F(EagerKernelsTest, ErrorsAreTheReferenceKernels) {
  set_eager_kernels(EagerKernels::Blocking);
  Tensor x = fill({300, 300}, 7, DType::i32);
  Tensor d = fill({300, 300}, 2, DType::i32);
  (void)floor_div(x, d); // compiles the kernel
  uint64_t calls = eager_kernel_stats().calls;
  Tensor zero = zeros({300, 300}, DType::i32);
  std::string compiled, reference;
  try {
    (void)floor_div(x, zero);
  } catch (const Error &e) {
    EXPECT_EQ(e.kind(), ErrorKind::InvalidArgument);
    compiled = e.what();
  }
  EXPECT_EQ(eager_kernel_stats().calls, calls) << "the kernel served it";
  set_eager_kernels(EagerKernels::Reference);
  try {
    (void)floor_div(x, zero);
  } catch (const Error &e) {
    reference = e.what();
  }
  EXPECT_FALSE(reference.empty());
  EXPECT_EQ(compiled, reference);
}

TEST_F(EagerKernelsTest, GradientTapesSeeTheOps) {
  std::mt19937 rng(5);
  Tensor a = randomOf(rng, {128, 300}, DType::f32);
  Variable w(randomOf(rng, {300, 200}, DType::f32), "w");
  auto gradient = [&] {
    GradientTape tape;
    Tensor loss = reduce_mean(tanh(matmul(a, w)) * 2);
    return tape.gradient(loss, w);
  };
  set_eager_kernels(EagerKernels::Reference);
  Tensor want = gradient();
  set_eager_kernels(EagerKernels::Blocking);
  uint64_t calls = eager_kernel_stats().calls;
  Tensor got = gradient();
  EXPECT_GT(eager_kernel_stats().calls, calls);
  std::vector<float> g = got.to_vector<float>(), e = want.to_vector<float>();
  ASSERT_EQ(g.size(), e.size());
  for (size_t i = 0; i < g.size(); ++i)
    ASSERT_NEAR(g[i], e[i], 1e-7) << "element " << i;
}

TEST_F(EagerKernelsTest, CheckNumericsNamesTheOp) {
  set_eager_kernels(EagerKernels::Blocking);
  Tensor x = fill({300, 300}, -1.0, DType::f32);
  (void)log(abs(x)); // compiles the kernel
  enable_check_numerics(true);
  uint64_t calls = eager_kernel_stats().calls;
  EXPECT_FNC_ERROR((void)log(x), FailedPrecondition, "fnc::log");
  enable_check_numerics(false);
  EXPECT_EQ(eager_kernel_stats().calls, calls + 1) << "the kernel ran";
}

TEST_F(EagerKernelsTest, BackgroundModeNeverWaits) {
  set_eager_kernels(EagerKernels::Background);
  std::mt19937 rng(9);
  Tensor x = randomOf(rng, {7, 300, 40}, DType::f32);
  // A pattern of its own: the first call runs the reference kernel while
  // the kernel compiles.
  uint64_t calls = eager_kernel_stats().calls;
  Tensor first = reduce_min(x, {1}, true);
  EXPECT_EQ(eager_kernel_stats().calls, calls);
  wait_for_eager_kernels();
  EXPECT_EQ(eager_kernel_stats().pending, 0u);
  Tensor second = reduce_min(x, {1}, true);
  EXPECT_EQ(eager_kernel_stats().calls, calls + 1);
  EXPECT_EQ(first.to_vector<float>(), second.to_vector<float>());
}

TEST_F(EagerKernelsTest, TracesAreNotAffected) {
  set_eager_kernels(EagerKernels::Blocking);
  std::mt19937 rng(21);
  Tensor x = randomOf(rng, {300, 300}, DType::f32);
  auto f = fnc::function([](Tensor t) { return reduce_sum(cos(t) * 2); });
  uint64_t calls = eager_kernel_stats().calls;
  uint64_t compiled = eager_kernel_stats().compiled;
  Tensor staged = f(x);
  EXPECT_EQ(eager_kernel_stats().calls, calls);
  EXPECT_EQ(eager_kernel_stats().compiled, compiled);
  Tensor eager = reduce_sum(cos(x) * 2);
  EXPECT_NEAR(staged.item<float>(), eager.item<float>(),
              1e-4 * std::abs(eager.item<float>()));
}

TEST_F(EagerKernelsTest, ThreadsShareKernelsInBothModes) {
  // Threads ask for the same kernels at once, some compiling them
  // themselves (Blocking), some queueing them (Background).
  std::mt19937 rng(17);
  Tensor x = randomOf(rng, {190, 410}, DType::f32);
  Tensor y = randomOf(rng, {410, 60}, DType::f32);
  auto work = [&] { return reduce_sum(tanh(matmul(x, y)) * 3 + 1, {1}); };
  set_eager_kernels(EagerKernels::Reference);
  std::vector<float> want = work().to_vector<float>();
  set_eager_kernels(EagerKernels::Blocking);
  std::vector<std::thread> threads;
  std::vector<int> bad(4, 0);
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < 8; ++i) {
        if (t == 0 && i == 4)
          set_eager_kernels(EagerKernels::Background);
        std::vector<float> got = work().to_vector<float>();
        for (size_t j = 0; j < got.size(); ++j)
          if (std::abs(got[j] - want[j]) > 1e-3f * (1 + std::abs(want[j])))
            ++bad[t];
      }
    });
  for (std::thread &t : threads)
    t.join();
  wait_for_eager_kernels();
  EXPECT_EQ(eager_kernel_stats().pending, 0u);
  for (int t = 0; t < 4; ++t)
    EXPECT_EQ(bad[t], 0) << "thread " << t;
}

TEST_F(EagerKernelsTest, TheModeIsChecked) {
  set_eager_kernels(EagerKernels::Reference);
  EXPECT_EQ(eager_kernels(), EagerKernels::Reference);
  EXPECT_FNC_ERROR(set_eager_kernels(static_cast<EagerKernels>(7)),
                   InvalidArgument, "fnc::EagerKernels::Background");
  EXPECT_EQ(eager_kernels(), EagerKernels::Reference);
  // Small ops never ask for a kernel.
  set_eager_kernels(EagerKernels::Blocking);
  uint64_t calls = eager_kernel_stats().calls;
  (void)(fill({100}, 2.0) * 3);
  EXPECT_EQ(eager_kernel_stats().calls, calls);
}

TEST_F(EagerKernelsTest, OperatorsReleaseTheirTemporariesEarly) {
  // reduce_mean(square(x) * 3 + y): square(x) is released once `* 3` has
  // its result, so `+ y` reuses its buffer: two fresh buffers, not three.
  set_eager_kernels(EagerKernels::Reference);
  size_t limit = memory_stats().cache_limit;
  set_memory_cache_limit(size_t(1) << 30);
  trim_memory();
  Tensor x = fill({512, 512}, 1.5, DType::f32);
  Tensor y = fill({512, 512}, 0.5, DType::f32);
  uint64_t fresh = memory_stats().fresh;
  float r = reduce_mean(square(x) * 3 + y).item<float>();
  EXPECT_EQ(r, 7.25f);
  EXPECT_EQ(memory_stats().fresh - fresh, 2u);
  Tensor t = square(x);
  Tensor u = std::move(t) * 2;
  EXPECT_FALSE(t.defined()); // moved from
  EXPECT_EQ(u.to_vector<float>()[0], 4.5f);
  set_memory_cache_limit(limit);
  trim_memory();
}

} // namespace
