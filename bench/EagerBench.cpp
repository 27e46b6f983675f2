//===- EagerBench.cpp - Cost of the eager API -----------------------------===//
//
// Measures (a) the per-op dispatch cost of eager ops on scalar tensors
// (validation, shape rule, allocation, kernel) and (b) the throughput of the
// seed expression reduce_mean(x * x * 3 + y) on 4096x4096 float32 tensors,
// eager (four ops, three temporaries) against a hand-written single-pass
// fused loop, which is what a staged function should approach.
// `fnc-bench-eager numpy` times issue 14's workloads on the compiled eager
// kernels (fnc/Eager.h) and on the reference kernels, and `fnc-bench-eager
// rss` the peak memory of 100 seed expressions on 4096x4096 inputs;
// bench/eager-vs-numpy.sh runs both next to numpy and prints the ratios.
// `fnc-bench-eager profiler` measures fnc::profiler's cost off and on.
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
#include <cstring>
#include <fstream>
#include <random>
#include <string>
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
  // The first run asks for the compiled kernels (fnc/Eager.h); they are
  // ready before the timed runs.
  (void)fnc::reduce_mean(x * x * 3 + y);
  fnc::wait_for_eager_kernels();
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

fnc::Tensor seed(const fnc::Tensor &x, const fnc::Tensor &y) {
  return fnc::reduce_mean(fnc::square(x) * 3 + y);
}

/// The seed as the guide spells it: x ** 2 is pow(x, 2).
fnc::Tensor seedPow(const fnc::Tensor &x, const fnc::Tensor &y) {
  return fnc::reduce_mean(fnc::pow(x, 2) * 3 + y);
}

/// The MLP below with PyTorch's weight layout, matmul(x, transpose(W)).
fnc::Tensor mlpTransposed(const std::vector<fnc::Tensor> &pt,
                          const fnc::Tensor &x) {
  fnc::Tensor h =
      fnc::relu(fnc::matmul(x, fnc::transpose(pt[0])) + pt[1]);
  h = fnc::relu(fnc::matmul(h, fnc::transpose(pt[2])) + pt[3]);
  return fnc::softmax(fnc::matmul(h, fnc::transpose(pt[4])) + pt[5]);
}

/// MLP inference, 256x784 -> 512 -> 512 -> 10 with ReLU, then softmax.
fnc::Tensor mlp(const std::vector<fnc::Tensor> &p, const fnc::Tensor &x) {
  fnc::Tensor h = fnc::relu(fnc::matmul(x, p[0]) + p[1]);
  h = fnc::relu(fnc::matmul(h, p[2]) + p[3]);
  return fnc::softmax(fnc::matmul(h, p[4]) + p[5]);
}

/// Issue 14's three workloads and three shape ops, each on the compiled kernels (Blocking mode:
/// compiled by the warm-up run) and on the reference kernels. Lines
/// "workload <name> <mode> <ms>" for bench/eager-vs-numpy.sh.
void benchWorkloads() {
  fnc::Tensor x = fnc::random_normal({4096, 4096}, 0, 1, fnc::DType::f32, 1);
  fnc::Tensor y = fnc::random_normal({4096, 4096}, 0, 1, fnc::DType::f32, 2);
  fnc::Tensor a = fnc::random_normal({1024, 1024}, 0, 1, fnc::DType::f32, 3);
  fnc::Tensor b = fnc::random_normal({1024, 1024}, 0, 1, fnc::DType::f32, 4);
  fnc::Tensor in = fnc::random_normal({256, 784}, 0, 1, fnc::DType::f32, 5);
  std::vector<fnc::Tensor> p = {
      fnc::random_normal({784, 512}, 0, 0.05f, fnc::DType::f32, 6),
      fnc::random_normal({512}, 0, 0.05f, fnc::DType::f32, 7),
      fnc::random_normal({512, 512}, 0, 0.05f, fnc::DType::f32, 8),
      fnc::random_normal({512}, 0, 0.05f, fnc::DType::f32, 9),
      fnc::random_normal({512, 10}, 0, 0.05f, fnc::DType::f32, 10),
      fnc::random_normal({10}, 0, 0.05f, fnc::DType::f32, 11)};
  std::vector<fnc::Tensor> pt = p;
  for (int i : {0, 2, 4})
    pt[i] = fnc::transpose(p[i]) + 0.f; // stored as PyTorch stores them
  std::printf("(c) issue 14's workloads, best of 10 after a warm-up run\n");
  for (fnc::EagerKernels mode :
       {fnc::EagerKernels::Blocking, fnc::EagerKernels::Reference}) {
    fnc::set_eager_kernels(mode);
    const char *name =
        mode == fnc::EagerKernels::Blocking ? "compiled" : "reference";
    auto run = [&](const char *what, auto &&body) {
      body(); // compiles the kernels in Blocking mode
      double t = bestOf(10, body);
      std::printf("workload %-9s %-9s %8.2f ms\n", what, name, t * 1e3);
    };
    run("seed", [&] { gSink = seed(x, y).item<float>(); });
    run("seedpow", [&] { gSink = seedPow(x, y).item<float>(); });
    run("matmul", [&] { gSink = fnc::matmul(a, b).size(); });
    run("mlp", [&] { gSink = mlp(p, in).size(); });
    run("mlpT", [&] { gSink = mlpTransposed(pt, in).size(); });
    // Shape ops: the reference kernels in both modes (docs/Eager.md).
    run("transpose", [&] { gSink = fnc::transpose(x).size(); });
    run("concat", [&] { gSink = fnc::concat({x, y}, 1).size(); });
    run("slice", [&] {
      gSink = fnc::slice(x, {1, 1}, {4000, 4000}).size();
    });
  }
  {
    // The same MLP staged: one compiled function for the whole pass.
    auto staged =
        fnc::function([&](const fnc::Tensor &in) { return mlp(p, in); });
    auto body = [&] { gSink = staged(in).size(); };
    body();
    std::printf("workload %-9s %-9s %8.2f ms\n", "mlp", "staged",
                bestOf(10, body) * 1e3);
  }
  fnc::EagerKernelStats s = fnc::eager_kernel_stats();
  std::printf("    %llu kernels compiled in %.0f ms (%.1f ms each), %llu "
              "failed, %llu calls served\n",
              static_cast<unsigned long long>(s.compiled),
              s.compile_seconds * 1e3,
              s.compiled ? s.compile_seconds * 1e3 / s.compiled : 0.0,
              static_cast<unsigned long long>(s.failed),
              static_cast<unsigned long long>(s.calls));
  fnc::set_eager_kernels(fnc::EagerKernels::Background);
}

/// VmRSS or VmHWM of this process, in bytes.
size_t procStatus(const char *field) {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line))
    if (line.rfind(field, 0) == 0)
      return std::strtoull(line.c_str() + std::strlen(field) + 1, nullptr,
                           10) *
             1024;
  return 0;
}

/// The peak memory of 100 seed expressions on 4096x4096 f32 inputs, above
/// the memory held once the inputs exist, in 64 MiB temporaries. The
/// kernels are compiled first on 1024x1024 inputs (the same kernels: their
/// dims are unknown), so the compiler's own memory is not counted.
void benchPeakMemory() {
  fnc::set_eager_kernels(fnc::EagerKernels::Blocking);
  {
    fnc::Tensor x = fnc::random_normal({1024, 1024});
    gSink = seed(x, x).item<float>();
  }
  fnc::trim_memory();
  fnc::Tensor x = fnc::random_normal({4096, 4096}, 0, 1, fnc::DType::f32, 1);
  fnc::Tensor y = fnc::random_normal({4096, 4096}, 0, 1, fnc::DType::f32, 2);
  // Reset the high-water mark to what is resident now.
  std::ofstream("/proc/self/clear_refs") << "5";
  size_t base = procStatus("VmRSS:");
  for (int i = 0; i < 100; ++i)
    gSink = seed(x, y).item<float>();
  size_t peak = procStatus("VmHWM:");
  double temp = 4096.0 * 4096 * 4;
  std::printf("(d) peak memory of 100 x reduce_mean(square(x) * 3 + y), "
              "4096x4096 f32\n");
  std::printf("rss inputs %.1f MiB, peak above them %.1f MiB = %.2f "
              "temporaries of 64 MiB\n",
              2 * temp / (1 << 20), (peak - base) / double(1 << 20),
              (peak - base) / temp);
}

/// The profiler's cost: scalar adds (the dispatch, about 100 ns an op) and
/// a 1000x1000 add with the profiler off and on, in one run.
void benchProfiler() {
  std::string path = "/tmp/fnc-bench-profiler.json";
  constexpr int kOps = 200000;
  fnc::Tensor a(1.5f), b(2.0f);
  fnc::Tensor x = fnc::random_uniform({1000, 1000});
  auto scalars = [&] {
    for (int i = 0; i < kOps; ++i)
      gSink = (a + b).item<float>();
  };
  auto big = [&] {
    for (int i = 0; i < 20; ++i)
      gSink = (x + x).data<float>()[0];
  };
  std::printf("(e) fnc::profiler: off vs on (spans kept in memory, written "
              "at stop), fastest of 5 runs each, alternated\n");
  double off = 1e30, on = 1e30, bigOff = 1e30, bigOn = 1e30;
  for (int round = 0; round < 5; ++round) {
    off = std::min(off, bestOf(1, scalars));
    bigOff = std::min(bigOff, bestOf(1, big));
    fnc::profiler::start(path);
    on = std::min(on, bestOf(1, scalars));
    bigOn = std::min(bigOn, bestOf(1, big));
    fnc::profiler::stop();
  }
  std::printf("scalar add     off %7.1f ns/op   on %7.1f ns/op   (+%.1f ns a "
              "span)\n",
              off / kOps * 1e9, on / kOps * 1e9, (on - off) / kOps * 1e9);
  std::printf("1000x1000 add  off %7.1f us/op   on %7.1f us/op   (%.3fx)\n",
              bigOff / 20 * 1e6, bigOn / 20 * 1e6, bigOn / bigOff);
  std::remove(path.c_str());
}

} // namespace

int main(int argc, char **argv) {
  std::string what = argc > 1 ? argv[1] : "";
  if (what == "numpy") {
    benchWorkloads();
    return 0;
  }
  if (what == "rss") {
    benchPeakMemory();
    return 0;
  }
  if (what == "profiler") {
    benchProfiler();
    return 0;
  }
  benchDispatch();
  benchSeedExpression();
  return 0;
}
