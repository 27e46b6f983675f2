//===- PeerBench.cpp - fnc staged vs the peer C++ libraries, in one run ---===//
//
// A plain std::chrono harness (no pass/fail) that times fnc staged code
// and the library a C++ user would otherwise call for the same work, in the
// same process, on the same inputs, checks that the two agree (max |diff|)
// and prints the ratio fnc time / peer time:
//   conv   fnc::conv2d (NHWC x HWIO, a fnc::function) vs oneDNN's
//          convolution primitive (NHWC, weights reordered once into the
//          layout the primitive chooses; also plain HWIO weights), with the
//          FMA peak of the machine measured in the same run and each side's
//          share of it; each side's time is its best of 3 interleaved
//          rounds, each round the median of a block of calls. Shapes:
//          [1,200,200,100] 3x3 -> 100 SAME, the demo CNN's two layers at batch
//          128, a stride-2 VALID layer.
//   chain  32 chained small ops on [8] (8 x {a = tanh(a*b); b = max(exp(a),
//          b)}), a cached fnc::function call vs Eigen::Array<float, 8, 1>.
//   loop   1000 x `x = tanh(W @ x + b)`, 16-dim, as one staged
//          fnc::for_range call vs Eigen's fixed-size Matrix<float, 16, 16>.
// Each peer is built only when found at configure time (oneDNN: Debian's
// libdnnl-dev; Eigen: libeigen3-dev); a missing one is named in the output.
//
//   ninja -C build fnc-bench-peers
//   build/bin/fnc-bench-peers [conv|chain|loop]
//
// The machines are shared and noisy: run it a few times and read ranges.
//
//===----------------------------------------------------------------------===//

#include "HandWritten.h"
#include "Peers.h"

#include <fnc/fnc.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <thread>
#include <vector>

using namespace fnc::bench;
using Clock = std::chrono::steady_clock;

namespace {

double seconds(Clock::duration d) {
  return std::chrono::duration<double>(d).count();
}

/// Median over `reps` repetitions of the mean seconds per call of `fn`
/// called `iters` times.
template <typename Fn> double secondsPerCall(Fn &&fn, int iters, int reps) {
  std::vector<double> samples;
  for (int r = 0; r < reps; ++r) {
    auto start = Clock::now();
    for (int i = 0; i < iters; ++i)
      fn();
    samples.push_back(seconds(Clock::now() - start) / iters);
  }
  std::sort(samples.begin(), samples.end());
  return samples[samples.size() / 2];
}

/// Median seconds of one call of `fn` (after one warm-up call), with as
/// many repetitions (3 to 21) as fit in about half a second.
template <typename Fn> double medianSeconds(Fn &&fn) {
  auto start = Clock::now();
  fn();
  double first = seconds(Clock::now() - start);
  int reps = std::clamp(static_cast<int>(0.5 / std::max(first, 1e-6)), 3, 21);
  return secondsPerCall(fn, 1, reps);
}

/// fnc's code runs on libomp's threads and oneDNN's on libgomp's; a pool
/// that just finished spins for a while (libomp: KMP_BLOCKTIME, 200 ms by
/// default). Pausing between the two sides keeps one from slowing the
/// other on a machine with few cores.
[[maybe_unused]] void letThreadsSettle() {
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
}

std::vector<float> uniform(int64_t n, float lo, float hi, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> v(n);
  for (float &x : v)
    x = dist(rng);
  return v;
}

std::vector<float> normal(int64_t n, float stddev, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> dist(0, stddev);
  std::vector<float> v(n);
  for (float &x : v)
    x = dist(rng);
  return v;
}

[[maybe_unused]] float maxAbsDiff(const float *a, const float *b, int64_t n) {
  float m = 0;
  for (int64_t i = 0; i < n; ++i)
    m = std::max(m, std::abs(a[i] - b[i]));
  return m;
}

[[maybe_unused]] float maxAbs(const float *a, int64_t n) {
  float m = 0;
  for (int64_t i = 0; i < n; ++i)
    m = std::max(m, std::abs(a[i]));
  return m;
}

//===----------------------------------------------------------------------===//
// conv: fnc::conv2d vs oneDNN
//===----------------------------------------------------------------------===//

struct ConvCase {
  const char *what;
  ConvShape shape;
};

/// The figures of one conv shape; times are seconds, 0 for a missing peer.
struct ConvResult {
  double fnc = 0, blocked = 0, plain = 0;
  float diff = 0, scale = 0;
  std::string blockedImpl, plainImpl;
};

/// Times both sides of one shape in `rounds` rounds, each a block of fnc
/// calls then a block of oneDNN calls (blocked weights, then hwio); each
/// side's figure is its best block median, so that a burst of load from
/// other processes in one round does not decide the ratio.
ConvResult timeConv(const ConvShape &s, int rounds) {
  int64_t inSize = s.n * s.h * s.w * s.c, filterSize = s.kh * s.kw * s.c * s.f;
  int64_t outSize = s.n * s.outH() * s.outW() * s.f;
  std::vector<float> input = uniform(inSize, -1, 1, 1);
  std::vector<float> filter = uniform(filterSize, -1, 1, 2);
  fnc::Tensor in = fnc::Tensor::from_blob(input.data(), {s.n, s.h, s.w, s.c});
  fnc::Tensor f = fnc::Tensor::from_blob(filter.data(), {s.kh, s.kw, s.c, s.f});
  auto staged = fnc::function([s](fnc::Tensor x, fnc::Tensor w) {
    return fnc::conv2d(x, w, {s.sh, s.sw}, s.same ? "SAME" : "VALID");
  });
  fnc::Tensor out = staged(in, f); // trace + compile
  ConvResult r;
  auto best = [](double &slot, double t) {
    slot = slot == 0 ? t : std::min(slot, t);
  };
#if FNC_BENCH_HAVE_DNNL
  std::vector<float> peerOut(outSize);
  OneDnnConv blocked(s, filter.data(), /*blockedWeights=*/true);
  OneDnnConv plain(s, filter.data(), /*blockedWeights=*/false);
  r.blockedImpl = blocked.implementation();
  r.plainImpl = plain.implementation();
  for (OneDnnConv *peer : {&blocked, &plain}) {
    peer->run(input.data(), peerOut.data());
    r.diff = std::max(r.diff,
                      maxAbsDiff(out.data<float>(), peerOut.data(), outSize));
    r.scale = maxAbs(peerOut.data(), outSize);
  }
#else
  (void)outSize;
#endif
  for (int round = 0; round < rounds; ++round) {
    best(r.fnc, medianSeconds([&] { out = staged(in, f); }));
#if FNC_BENCH_HAVE_DNNL
    letThreadsSettle();
    best(r.blocked,
         medianSeconds([&] { blocked.run(input.data(), peerOut.data()); }));
    letThreadsSettle();
    best(r.plain,
         medianSeconds([&] { plain.run(input.data(), peerOut.data()); }));
    letThreadsSettle();
#endif
  }
  return r;
}

void conv() {
  const ConvCase cases[] = {
      {"[1,200,200,100] x [3,3,100,100] /1 SAME",
       {1, 200, 200, 100, 3, 3, 100, 1, 1, true}},
      {"CNN conv1 [128,28,28,1] x [3,3,1,16] /1 SAME",
       {128, 28, 28, 1, 3, 3, 16, 1, 1, true}},
      {"CNN conv2 [128,14,14,16] x [3,3,16,32] /1 SAME",
       {128, 14, 14, 16, 3, 3, 32, 1, 1, true}},
      {"[8,56,56,64] x [3,3,64,128] /2 VALID",
       {8, 56, 56, 64, 3, 3, 128, 2, 2, false}},
  };
  constexpr int kRounds = 3;
  // The FMA peak, measured before every shape and after the last: a busy
  // machine only lowers it, so the highest measurement is the figure.
  double peak = fmaPeakGflops();
  std::vector<ConvResult> results;
  for (const ConvCase &cc : cases) {
    results.push_back(timeConv(cc.shape, kRounds));
    peak = std::max(peak, fmaPeakGflops());
  }

  std::printf("conv: fnc::conv2d staged vs oneDNN convolution, f32, NHWC "
              "(best of %d rounds; FMA peak measured in this run: %.1f "
              "GFLOP/s)\n",
              kRounds, peak);
  for (size_t i = 0; i < results.size(); ++i) {
    const ConvResult &r = results[i];
    double gflop = cases[i].shape.flops() / 1e9;
    auto line = [&](const char *who, double t, const std::string &impl) {
      std::printf("   %-24s %9.3f ms %7.1f GFLOP/s %4.0f%% of peak%s%s\n", who,
                  t * 1e3, gflop / t, 100 * gflop / t / peak,
                  impl.empty() ? "" : "  impl ", impl.c_str());
    };
    std::printf(" %s, %.3f GFLOP\n", cases[i].what, gflop);
    line("fnc staged", r.fnc, "");
#if FNC_BENCH_HAVE_DNNL
    line("oneDNN, weights 'any'", r.blocked, r.blockedImpl);
    line("oneDNN, weights hwio", r.plain, r.plainImpl);
    std::printf("   fnc / oneDNN: %.2fx (hwio weights: %.2fx; target <= 1.2x)"
                "  max |diff| %.2g (max |out| %.3g)\n",
                r.fnc / r.blocked, r.fnc / r.plain, r.diff, r.scale);
#else
    std::printf("   oneDNN: not found at configure time (install libdnnl-dev "
                "and reconfigure)\n");
#endif
  }
  std::printf("\n");
}

//===----------------------------------------------------------------------===//
// chain: 32 small ops on [8], fnc::function vs Eigen::Array
//===----------------------------------------------------------------------===//

fnc::Tensor chain32(fnc::Tensor a, fnc::Tensor b) {
  for (int i = 0; i < 8; ++i) {
    a = fnc::tanh(a * b);
    b = fnc::maximum(fnc::exp(a), b);
  }
  return b;
}

void chain() {
  constexpr int kRounds = 3;
  std::vector<float> a = uniform(8, -1, 1, 3), b = uniform(8, 0.5, 1.5, 4);
  fnc::Tensor x(a), y(b);
  auto staged = fnc::function(chain32);
  auto one = fnc::function([](fnc::Tensor p, fnc::Tensor q) { return p + q; });
  fnc::Tensor out = staged(x, y);
  one(x, y);
  std::vector<float> peer(8);
  double tFnc = 1e9, tOne = 1e9, tEigen = 1e9;
  // Interleaved rounds, each side's best: a burst of load from other
  // processes in one round does not decide the ratio.
  for (int round = 0; round < kRounds; ++round) {
    tFnc =
        std::min(tFnc, secondsPerCall([&] { out = staged(x, y); }, 20000, 5));
    tOne = std::min(tOne, secondsPerCall([&] { (void)one(x, y); }, 20000, 5));
#if FNC_BENCH_HAVE_EIGEN
    tEigen = std::min(
        tEigen,
        secondsPerCall([&] { eigenChain32(a.data(), b.data(), peer.data()); },
                       1000000, 5));
#endif
  }
  std::printf("chain: 32 chained ops on [8] f32, 8 x {a = tanh(a*b); b = "
              "max(exp(a), b)} (best of %d rounds)\n",
              kRounds);
  std::printf("   fnc::function call:      %8.3f us  (a call of a staged "
              "p + q on [8]: %.3f us)\n",
              tFnc * 1e6, tOne * 1e6);
#if FNC_BENCH_HAVE_EIGEN
  float diff = maxAbsDiff(out.data<float>(), peer.data(), 8);
  std::printf("   Eigen::Array<float,8,1>: %8.3f us\n", tEigen * 1e6);
  std::printf("   fnc / Eigen: %.2fx (target <= 3x)  max |diff| %.2g\n\n",
              tFnc / tEigen, diff);
#else
  (void)tEigen;
  std::printf("   Eigen: not found at configure time (install libeigen3-dev "
              "and reconfigure)\n\n");
#endif
}

//===----------------------------------------------------------------------===//
// loop: 1000 x x = tanh(W @ x + b), staged for_range vs Eigen fixed-size
//===----------------------------------------------------------------------===//

constexpr int kDim = 16;
constexpr int kIters = 1000;

fnc::Tensor loop(fnc::Tensor W, fnc::Tensor b, fnc::Tensor x) {
  return fnc::for_range(
      0, kIters, 1,
      [&](fnc::Tensor, fnc::Tensor v) {
        return fnc::tanh(fnc::matmul(W, v) + b);
      },
      x);
}

void staticLoop() {
  constexpr int kRounds = 3;
  std::vector<float> w = normal(kDim * kDim, 0.25f, 5),
                     b = normal(kDim, 0.1f, 6), x = normal(kDim, 1, 7);
  fnc::Tensor W(w, {kDim, kDim}), B(b, {kDim, 1}), X(x, {kDim, 1});
  auto staged = fnc::function(&loop);
  fnc::Tensor out = staged(W, B, X);
  std::vector<float> peer = x;
  double tFnc = 1e9, tEigen = 1e9;
  for (int round = 0; round < kRounds; ++round) {
    tFnc =
        std::min(tFnc, secondsPerCall([&] { out = staged(W, B, X); }, 1, 31));
#if FNC_BENCH_HAVE_EIGEN
    tEigen = std::min(tEigen, secondsPerCall(
                                  [&] {
                                    std::copy(x.begin(), x.end(), peer.begin());
                                    eigenLoop16(w.data(), b.data(), peer.data(),
                                                kIters);
                                  },
                                  1, 31));
#endif
  }
  std::printf("loop: %d x x = tanh(W @ x + b), %d-dim f32 (best of %d "
              "rounds)\n",
              kIters, kDim, kRounds);
  std::printf("   fnc staged for_range (one call): %8.2f us\n", tFnc * 1e6);
#if FNC_BENCH_HAVE_EIGEN
  float diff = maxAbsDiff(out.data<float>(), peer.data(), kDim);
  std::printf("   Eigen Matrix<float,16,16>:       %8.2f us\n", tEigen * 1e6);
  std::printf("   fnc / Eigen: %.2fx (target <= 0.7x)  max |diff| %.2g\n\n",
              tFnc / tEigen, diff);
#else
  (void)tEigen;
  std::printf("   Eigen: not found at configure time (install libeigen3-dev "
              "and reconfigure)\n\n");
#endif
}

} // namespace

int main(int argc, char **argv) {
  std::string only = argc > 1 ? argv[1] : "";
  if (!only.empty() && only != "conv" && only != "chain" && only != "loop") {
    std::fprintf(stderr,
                 "fnc-bench-peers: unknown item '%s'; give one of conv, "
                 "chain, loop, or none for all\n",
                 only.c_str());
    return 2;
  }
  if (only.empty() || only == "conv")
    conv();
  if (only.empty() || only == "chain")
    chain();
  if (only.empty() || only == "loop")
    staticLoop();
  return 0;
}
