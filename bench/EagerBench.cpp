//===- EagerBench.cpp - Cost of the eager API -----------------------------===//
//
// Measures (a) the per-op dispatch cost of eager ops on scalar tensors
// (validation, shape rule, allocation, kernel) and (b) the throughput of the
// seed expression reduce_mean(x * x * 3 + y) on 4096x4096 float32 tensors,
// eager (four ops, three temporaries) against a hand-written single-pass
// fused loop, which is what a staged function should approach.
//
// A small std::chrono harness: each measurement is repeated and the fastest
// run is reported. Not a test; prints numbers only.
//
//===----------------------------------------------------------------------===//

#include "fnc/fnc.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

/// Runs `body` `reps` times and returns the fastest run in seconds.
template <typename F> double bestOf(int reps, F &&body) {
  double best = 1e30;
  for (int r = 0; r < reps; ++r) {
    auto start = Clock::now();
    body();
    std::chrono::duration<double> d = Clock::now() - start;
    best = std::min(best, d.count());
  }
  return best;
}

// Keeps results alive so the optimizer cannot drop the work.
volatile float gSink;

void benchDispatch() {
  constexpr int kOps = 1000000;
  fnc::Tensor a(1.5f), b(2.0f);
  struct Case {
    const char *name;
    fnc::Tensor (*op)(const fnc::Tensor &, const fnc::Tensor &);
  } cases[] = {
      {"add", [](const fnc::Tensor &x, const fnc::Tensor &y) { return x + y; }},
      {"mul", [](const fnc::Tensor &x,
                 const fnc::Tensor &y) { return fnc::mul(x, y); }},
      {"less", [](const fnc::Tensor &x,
                  const fnc::Tensor &y) { return fnc::less(x, y); }},
      {"maximum", [](const fnc::Tensor &x, const fnc::Tensor &y) {
         return fnc::maximum(x, y);
       }}};
  std::printf("(a) eager dispatch on float32 scalars (%d ops each)\n", kOps);
  for (const Case &c : cases) {
    double t = bestOf(3, [&] {
      for (int i = 0; i < kOps; ++i) {
        fnc::Tensor r = c.op(a, b);
        if (i == 0)
          gSink = static_cast<float>(r.size());
      }
    });
    std::printf("    %-8s %7.1f ns/op\n", c.name, t / kOps * 1e9);
  }
  double tu = bestOf(3, [&] {
    for (int i = 0; i < kOps; ++i) {
      fnc::Tensor r = fnc::exp(a);
      if (i == 0)
        gSink = r.item<float>();
    }
  });
  std::printf("    %-8s %7.1f ns/op\n", "exp", tu / kOps * 1e9);
  double ts = bestOf(3, [&] {
    for (int i = 0; i < kOps; ++i) {
      fnc::Tensor r = a * 3;
      if (i == 0)
        gSink = r.item<float>();
    }
  });
  std::printf("    %-8s %7.1f ns/op (C++ scalar operand)\n", "x*3",
              ts / kOps * 1e9);
}

/// The hand-fused loop: one pass, eight independent double accumulators
/// (vectorizable). Not inlined, so the compiler cannot hoist it out of the
/// timing loop.
__attribute__((noinline)) float fusedMean(const float *px, const float *py,
                                          int64_t count) {
  asm volatile("" ::: "memory");
  double acc[8] = {0};
  for (int64_t i = 0; i < count; i += 8)
    for (int k = 0; k < 8; ++k) {
      float v = px[i + k];
      acc[k] += v * v * 3.0f + py[i + k];
    }
  double sum = 0;
  for (double a : acc)
    sum += a;
  return static_cast<float>(sum / count);
}

void benchSeedExpression() {
  constexpr int64_t kN = 4096;
  const int64_t count = kN * kN;
  std::mt19937 rng(0);
  std::uniform_real_distribution<float> dist(-1, 1);
  std::vector<float> xs(count), ys(count);
  for (int64_t i = 0; i < count; ++i) {
    xs[i] = dist(rng);
    ys[i] = dist(rng);
  }
  fnc::Tensor x(xs, {kN, kN}), y(ys, {kN, kN});

  float eagerResult = 0;
  double eager = bestOf(
      5, [&] { eagerResult = fnc::reduce_mean(x * x * 3 + y).item<float>(); });

  const float *px = x.data<float>();
  const float *py = y.data<float>();
  float fusedResult = 0;
  double fused = bestOf(5, [&] { fusedResult = fusedMean(px, py, count); });

  double inputBytes = 2.0 * count * sizeof(float);
  // Eager traffic: x*x (2 reads, 1 write), *3 (1, 1), +y (2, 1), mean (1).
  double eagerBytes = 9.0 * count * sizeof(float);
  std::printf("(b) reduce_mean(x * x * 3 + y), x, y: float32[%lld,%lld]\n",
              static_cast<long long>(kN), static_cast<long long>(kN));
  std::printf("    eager  %8.2f ms  result %.6f  %6.2f GB/s of inputs, "
              "%6.2f GB/s of actual traffic\n",
              eager * 1e3, eagerResult, inputBytes / eager / 1e9,
              eagerBytes / eager / 1e9);
  std::printf("    fused  %8.2f ms  result %.6f  %6.2f GB/s of inputs\n",
              fused * 1e3, fusedResult, inputBytes / fused / 1e9);
  std::printf("    eager / fused = %.2fx\n", eager / fused);
}

} // namespace

int main() {
  benchDispatch();
  benchSeedExpression();
  return 0;
}
