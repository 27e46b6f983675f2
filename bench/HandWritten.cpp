//===- HandWritten.cpp - Hand-written C++ baselines of the benchmarks -----===//
//
// Compiled with -O3 -march=native -fopenmp: the best a C++ programmer gets
// by hand, to hold the generated code against.
//
//===----------------------------------------------------------------------===//

#include "HandWritten.h"

#include <algorithm>
#include <chrono>
#include <omp.h>

float fnc::bench::seedFused(const float *x, const float *y, int64_t n) {
  float sum = 0;
#pragma omp parallel for simd reduction(+ : sum)
  for (int64_t i = 0; i < n; ++i)
    sum += x[i] * x[i] * 3.0f + y[i];
  return sum / static_cast<float>(n);
}

double fnc::bench::fmaPeakGflops() {
  // 24 chains: more than FMA latency times the FMA ports, so every cycle
  // can issue; few enough to stay in 32 vector registers.
  typedef float Vector __attribute__((vector_size(64)));
  constexpr int kChains = 24;
  constexpr long kSteps = 4000000;
  double best = 0;
  for (int trial = 0; trial < 3; ++trial) {
    int threads = 1;
    float sink = 0;
    auto start = std::chrono::steady_clock::now();
#pragma omp parallel reduction(+ : sink)
    {
#pragma omp single
      threads = omp_get_num_threads();
      Vector acc[kChains];
      Vector a, b;
      for (int l = 0; l < 16; ++l) {
        a[l] = 0.999999f;
        b[l] = 1e-7f;
      }
      for (int c = 0; c < kChains; ++c)
        for (int l = 0; l < 16; ++l)
          acc[c][l] = static_cast<float>(c + l);
      for (long s = 0; s < kSteps; ++s) {
#pragma unroll
        for (int c = 0; c < kChains; ++c)
          acc[c] = __builtin_elementwise_fma(acc[c], a, b);
      }
      for (int c = 0; c < kChains; ++c)
        for (int l = 0; l < 16; ++l)
          sink += acc[c][l];
    }
    double seconds = std::chrono::duration<double>(
                         std::chrono::steady_clock::now() - start)
                         .count();
    // Keep the chains live: a result the compiler cannot drop.
    if (sink == 12345.f)
      return 0;
    double flops = 2.0 * 16 * kChains * kSteps * threads;
    best = std::max(best, flops / seconds / 1e9);
  }
  return best;
}
