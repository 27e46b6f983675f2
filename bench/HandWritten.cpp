//===- HandWritten.cpp - Hand-written C++ baselines of the benchmarks -----===//
//
// Compiled with -O3 -march=native -fopenmp: the best a C++ programmer gets
// by hand, to hold the generated code against.
//
//===----------------------------------------------------------------------===//

#include "HandWritten.h"

float fnc::bench::seedFused(const float *x, const float *y, int64_t n) {
  float sum = 0;
#pragma omp parallel for simd reduction(+ : sum)
  for (int64_t i = 0; i < n; ++i)
    sum += x[i] * x[i] * 3.0f + y[i];
  return sum / static_cast<float>(n);
}
