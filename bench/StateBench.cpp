//===- StateBench.cpp - A staged for_range vs eager vs hand-written C++ ---===//
//
// A plain std::chrono harness (no pass/fail): 1000 iterations of
// `x = tanh(W @ x + b)` with 16-dim float32 state, run as a staged
// fnc::for_range (one call of the concrete function), as the same loop
// executed eagerly (the same callable outside a trace, and a C++ `for`
// over eager ops), and as a hand-written C++ loop. Prints every time and
// ratio measured in this run. Targets: staged >= 20x faster than eager,
// within 3x of the hand-written loop. Then the seeds' TensorArray
// accumulation (1000 states of 64 floats), staged vs eager.
//
//===----------------------------------------------------------------------===//

#include <fnc/fnc.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;
constexpr int kDim = 16;
constexpr int kIters = 1000;

/// Median over `reps` repetitions of the seconds one call of `fn` takes.
template <typename Fn> double seconds(Fn &&fn, int reps) {
  std::vector<double> samples;
  for (int r = 0; r < reps; ++r) {
    auto start = Clock::now();
    fn();
    samples.push_back(
        std::chrono::duration<double>(Clock::now() - start).count());
  }
  std::sort(samples.begin(), samples.end());
  return samples[samples.size() / 2];
}

fnc::Tensor loop(fnc::Tensor W, fnc::Tensor b, fnc::Tensor x) {
  return fnc::for_range(
      0, kIters, 1,
      [&](fnc::Tensor, fnc::Tensor v) {
        return fnc::tanh(fnc::matmul(W, v) + b);
      },
      x);
}

fnc::Tensor cppLoopOfEagerOps(fnc::Tensor W, fnc::Tensor b, fnc::Tensor x) {
  for (int i = 0; i < kIters; ++i)
    x = fnc::tanh(fnc::matmul(W, x) + b);
  return x;
}

/// The seeds' accumulation pattern: every state of a 1000-step loop written
/// to a TensorArray and stacked ([kIters, 64]).
fnc::Tensor accumulate(fnc::Tensor xs) {
  fnc::TensorArray states(fnc::DType::f32, kIters, {64});
  auto [s, out] = fnc::for_range(
      0, kIters, 1,
      [&](fnc::Tensor i, fnc::Tensor s, fnc::TensorArray a) {
        s = fnc::tanh(s + fnc::gather(xs, i));
        return std::make_tuple(s, a.write(i, s));
      },
      std::make_tuple(fnc::zeros({64}), states));
  (void)s;
  return out.stack();
}

/// The hand-written loop: the same math on plain arrays.
void handWritten(const float *W, const float *b, float *x) {
  float y[kDim];
  for (int it = 0; it < kIters; ++it) {
    for (int i = 0; i < kDim; ++i) {
      float acc = 0;
      for (int k = 0; k < kDim; ++k)
        acc += W[i * kDim + k] * x[k];
      y[i] = std::tanh(acc + b[i]);
    }
    std::copy(y, y + kDim, x);
  }
}

} // namespace

int main() {
  fnc::set_random_seed(1);
  fnc::Tensor W = fnc::random_normal({kDim, kDim}, 0, 0.25);
  fnc::Tensor b = fnc::random_normal({kDim, 1}, 0, 0.1);
  fnc::Tensor x = fnc::random_normal({kDim, 1});

  auto staged = fnc::function(&loop);
  fnc::Tensor stagedOut = staged(W, b, x); // trace + compile
  fnc::Tensor eagerOut = loop(W, b, x);

  std::vector<float> w = W.to_vector<float>(), bv = b.to_vector<float>();
  std::vector<float> hx = x.to_vector<float>();
  handWritten(w.data(), bv.data(), hx.data());
  float maxDiff = 0;
  std::vector<float> s = stagedOut.to_vector<float>(),
                     e = eagerOut.to_vector<float>();
  for (int i = 0; i < kDim; ++i)
    maxDiff =
        std::max({maxDiff, std::abs(s[i] - e[i]), std::abs(s[i] - hx[i])});

  double tStaged = seconds([&] { staged(W, b, x); }, 51);
  double tEager = seconds([&] { loop(W, b, x); }, 5);
  double tEagerCpp = seconds([&] { cppLoopOfEagerOps(W, b, x); }, 5);
  std::vector<float> scratch;
  double tHand = seconds(
      [&] {
        scratch = x.to_vector<float>();
        handWritten(w.data(), bv.data(), scratch.data());
      },
      51);

  std::printf("x = tanh(W @ x + b), %d iterations, %d-dim float32\n", kIters,
              kDim);
  std::printf("  max |difference| staged vs eager / hand-written: %.2g\n",
              maxDiff);
  std::printf("  staged for_range (one call):        %10.1f us\n",
              tStaged * 1e6);
  std::printf("  eager for_range (same callable):    %10.1f us\n",
              tEager * 1e6);
  std::printf("  eager ops in a C++ for:             %10.1f us\n",
              tEagerCpp * 1e6);
  std::printf("  hand-written C++ loop:              %10.1f us\n", tHand * 1e6);
  std::printf("  eager for_range / staged:           %10.1fx (target >= 20x)\n",
              tEager / tStaged);
  std::printf("  eager C++ for / staged:             %10.1fx\n",
              tEagerCpp / tStaged);
  std::printf("  staged / hand-written:              %10.2fx (target <= 3x)\n",
              tStaged / tHand);

  fnc::Tensor xs = fnc::random_normal({kIters, 64});
  auto stagedAcc = fnc::function(&accumulate);
  fnc::Tensor accStaged = stagedAcc(xs), accEager = accumulate(xs);
  float accDiff = fnc::reduce_max(fnc::abs(accStaged - accEager)).item<float>();
  double tAccStaged = seconds([&] { stagedAcc(xs); }, 51);
  double tAccEager = seconds([&] { accumulate(xs); }, 5);
  std::printf("\nTensorArray accumulation, %d steps of a 64-dim state\n",
              kIters);
  std::printf("  max |difference| staged vs eager:     %.2g\n", accDiff);
  std::printf("  staged:                             %10.1f us\n",
              tAccStaged * 1e6);
  std::printf("  eager:                              %10.1f us\n",
              tAccEager * 1e6);
  std::printf("  eager / staged:                     %10.1fx\n",
              tAccEager / tAccStaged);
  return 0;
}
