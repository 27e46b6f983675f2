//===- HandWritten.h - Hand-written C++ baselines of the benchmarks -------===//

#ifndef FNC_BENCH_HANDWRITTEN_H
#define FNC_BENCH_HANDWRITTEN_H

#include <cstdint>

namespace fnc::bench {
/// mean(x*x*3 + y) in one fused pass, OpenMP over all cores.
float seedFused(const float *x, const float *y, int64_t n);
} // namespace fnc::bench

#endif // FNC_BENCH_HANDWRITTEN_H
