//===- FunctionBench.cpp - Costs and speedups of fnc::function ------------===//
//
// A plain std::chrono harness (no pass/fail): the per-call cost of a cache
// hit (key computation, dispatch, call, result wrapping) of a 2-argument
// function on tiny tensors; eager vs staged on 32 small elementwise ops and
// on one big conv2d; staged max_pool2d of a CNN's feature maps and its
// gradient; and the trace + compile time of the quickstart function; the
// memory each cached trace holds. Prints every figure and ratio measured in
// this run.
//
//===----------------------------------------------------------------------===//

#include <fnc/fnc.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

/// Median over `reps` repetitions of the mean seconds per call of `fn`
/// called `iters` times.
template <typename Fn> double secondsPerCall(Fn &&fn, int iters, int reps = 5) {
  std::vector<double> samples;
  for (int r = 0; r < reps; ++r) {
    auto start = Clock::now();
    for (int i = 0; i < iters; ++i)
      fn();
    samples.push_back(std::chrono::duration<double>(Clock::now() - start).count() /
                      iters);
  }
  std::sort(samples.begin(), samples.end());
  return samples[samples.size() / 2];
}

fnc::Tensor elementwise32(const fnc::Tensor &x, const fnc::Tensor &y) {
  fnc::Tensor a = x, b = y;
  for (int i = 0; i < 8; ++i) {
    a = a * b + 0.5f;                 // 2 ops
    b = fnc::maximum(b - a, 0.25f);   // 2 ops
  }
  return a + b; // 32 + 1 ops (cheap ones: dispatch and temporaries dominate)
}

/// The process's resident set (VmRSS of /proc/self/status), in KiB.
long residentKiB() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line))
    if (line.rfind("VmRSS:", 0) == 0)
      return std::stol(line.substr(6));
  return 0;
}

/// The number of memory mappings of the process.
long mapCount() {
  std::ifstream maps("/proc/self/maps");
  std::string line;
  long n = 0;
  while (std::getline(maps, line))
    ++n;
  return n;
}

} // namespace

int main() {
  std::printf("fnc::function benchmark (medians)\n\n");

  // 1. Cache-hit dispatch of a 2-argument function on tiny tensors.
  {
    auto add = fnc::function([](fnc::Tensor a, fnc::Tensor b) { return a + b; });
    fnc::Tensor a = {1.f, 2.f}, b = {3.f, 4.f};
    add(a, b); // trace + compile
    double hit = secondsPerCall([&] { (void)add(a, b); }, 100000);
    double eager = secondsPerCall([&] { (void)(a + b); }, 100000);
    std::printf("cache-hit call, 2 args of shape (2,): %8.0f ns/call "
                "(target < 1000 ns; eager a+b: %.0f ns)\n",
                hit * 1e9, eager * 1e9);
  }

  // 1b. The seed function, reduce_mean(x**2*3+y), on 2x2: a cached call,
  // key and result included (issue 17's target: <= 100 ns).
  {
    auto seed = fnc::function([](fnc::Tensor x, fnc::Tensor y) {
      return fnc::reduce_mean(x * x * 3.f + y);
    });
    fnc::Tensor x = {{1.f, 2.f}, {3.f, 4.f}}, y = {{0.5f, 1.f}, {1.5f, 2.f}};
    seed(x, y);
    double hit = secondsPerCall([&] { (void)seed(x, y); }, 200000, 7);
    std::printf("cached call of reduce_mean(x**2*3+y) on (2, 2): %6.0f "
                "ns/call (target <= 100 ns)\n",
                hit * 1e9);
  }

  // 2. 32 small elementwise ops, eager vs staged.
  {
    auto staged = fnc::function(elementwise32);
    fnc::Tensor x = fnc::range(0.f, 64.f) / 64.f, y = fnc::ones({64});
    staged(x, y);
    double tEager = secondsPerCall([&] { (void)elementwise32(x, y); }, 2000);
    double tStaged = secondsPerCall([&] { (void)staged(x, y); }, 20000);
    std::printf("33 elementwise ops on (64,): eager %8.2f us, staged %8.2f us, "
                "speedup %.1fx (target >= 10x)\n",
                tEager * 1e6, tStaged * 1e6, tEager / tStaged);
  }

  // 3. One big conv2d.
  {
    auto conv = [](fnc::Tensor image, fnc::Tensor filter) {
      return fnc::conv2d(image, filter);
    };
    auto staged = fnc::function(conv);
    fnc::Tensor image = fnc::ones({1, 56, 56, 32});
    fnc::Tensor filter = fnc::ones({3, 3, 32, 32}) / 100.f;
    staged(image, filter);
    double tEager = secondsPerCall([&] { (void)conv(image, filter); }, 3, 3);
    double tStaged = secondsPerCall([&] { (void)staged(image, filter); }, 10, 3);
    std::printf("conv2d (1,56,56,32) x (3,3,32,32): eager %8.2f ms, staged "
                "%8.2f ms, ratio staged/eager %.2f (target <= 1.10)\n",
                tEager * 1e3, tStaged * 1e3, tStaged / tEager);
  }

  // 3b. max_pool2d 2x2 / 2 of a batch of CNN feature maps, forward and
  // backward (fnc.max_pool2d_grad, from a tape with the output gradient
  // given), staged and eager; a staged x * 2 of the same input (one read,
  // one write) for scale.
  {
    fnc::Tensor x =
        fnc::random_normal({128, 28, 28, 16}, 0, 1, fnc::DType::f32, 1);
    fnc::Tensor dy =
        fnc::random_normal({128, 14, 14, 16}, 0, 1, fnc::DType::f32, 2);
    auto forward = [](fnc::Tensor in) {
      return fnc::max_pool2d(in, {2, 2}, {2, 2});
    };
    auto backward = [](fnc::Tensor in, fnc::Tensor g) {
      fnc::GradientTape tape;
      tape.watch(in);
      fnc::Tensor y = fnc::max_pool2d(in, {2, 2}, {2, 2});
      fnc::GradientOptions options;
      options.output_gradients = g;
      return tape.gradient(y, in, options);
    };
    auto scale = fnc::function([](fnc::Tensor in) { return in * 2.f; });
    auto stagedForward = fnc::function(forward);
    auto stagedBackward = fnc::function(backward);
    stagedForward(x);
    stagedBackward(x, dy);
    scale(x);
    double tEagerF = secondsPerCall([&] { (void)forward(x); }, 3, 3);
    double tEagerB = secondsPerCall([&] { (void)backward(x, dy); }, 3, 3);
    double tF = secondsPerCall([&] { (void)stagedForward(x); }, 20, 5);
    double tB = secondsPerCall([&] { (void)stagedBackward(x, dy); }, 20, 5);
    double tScale = secondsPerCall([&] { (void)scale(x); }, 20, 5);
    std::printf("max_pool2d 2x2/2 on (128,28,28,16) f32: staged forward "
                "%6.2f ms, backward %6.2f ms (eager %6.2f / %6.2f ms); "
                "staged x*2 of the input %6.2f ms\n",
                tF * 1e3, tB * 1e3, tEagerF * 1e3, tEagerB * 1e3, tScale * 1e3);
  }

  // 4. Trace + compile time of the quickstart function, without the
  // compile cache (fnc-bench-cache measures it with the cache).
  {
    fnc::Tensor x = {{2.f, 3.f}}, y = {{3.f, -2.f}};
    std::vector<double> samples;
    fnc::FunctionOptions noCache;
    noCache.cache_dir = std::string();
    for (int i = 0; i < 5; ++i) {
      auto f = fnc::function(
          [](fnc::Tensor x, fnc::Tensor y) {
            return fnc::reduce_mean(x * x * 3.f + y);
          },
          noCache);
      auto start = Clock::now();
      f(x, y);
      samples.push_back(
          std::chrono::duration<double>(Clock::now() - start).count());
    }
    std::sort(samples.begin(), samples.end());
    std::printf("quickstart trace + compile + first call: %8.2f ms\n",
                samples[samples.size() / 2] * 1e3);
  }

  // 5. Memory held by each cached trace: 200 traces of distinct shapes of
  // a small function (after 20 warm-up traces, which load the dialects and
  // the JIT once per process).
  {
    auto f = fnc::function([](fnc::Tensor x) { return x * 2.f + 1.f; });
    auto trace = [&](int n) { f(fnc::ones({n + 1})); };
    for (int n = 0; n < 20; ++n)
      trace(n);
    long rss0 = residentKiB(), maps0 = mapCount();
    constexpr int kTraces = 200;
    for (int n = 20; n < 20 + kTraces; ++n)
      trace(n);
    long rss1 = residentKiB(), maps1 = mapCount();
    std::printf("memory per cached trace: %6.1f KiB RSS, %4.1f memory maps "
                "(target < 256 KiB; %d traces)\n",
                double(rss1 - rss0) / kTraces, double(maps1 - maps0) / kTraces,
                kTraces);
  }
  return 0;
}
