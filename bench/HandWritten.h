//===- HandWritten.h - Hand-written C++ baselines of the benchmarks -------===//

#ifndef FNC_BENCH_HANDWRITTEN_H
#define FNC_BENCH_HANDWRITTEN_H

#include <cstdint>

namespace fnc::bench {
/// mean(x*x*3 + y) in one fused pass, OpenMP over all cores.
float seedFused(const float *x, const float *y, int64_t n);
/// The f32 FMA peak of this machine in GFLOP/s, all cores: independent
/// chains of vector FMAs held in registers, as wide as -march=native makes
/// a 16-float vector (one AVX-512 register here).
double fmaPeakGflops();
} // namespace fnc::bench

#endif // FNC_BENCH_HANDWRITTEN_H
