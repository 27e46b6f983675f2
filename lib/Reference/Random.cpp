//===- Random.cpp - Counter-based random number kernels -------------------===//
//
// Philox4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2,
// 3", SC 2011) and the uniform and normal kernels built on it. A stream is
// identified by a 64-bit key; element i of a call with counter offset c is
// computed from block c + i alone, so results do not depend on how the work
// is split and a stateful generator only has to advance its counter by the
// number of elements drawn.
//
//===----------------------------------------------------------------------===//

#include "Dispatch.h"

#include <cmath>

namespace fnc::ref {

namespace {

constexpr uint32_t kMul0 = 0xD2511F53u, kMul1 = 0xCD9E8D57u;
constexpr uint32_t kWeyl0 = 0x9E3779B9u, kWeyl1 = 0xBB67AE85u;

inline void mulHiLo(uint32_t a, uint32_t b, uint32_t &hi, uint32_t &lo) {
  uint64_t p = static_cast<uint64_t>(a) * b;
  hi = static_cast<uint32_t>(p >> 32);
  lo = static_cast<uint32_t>(p);
}

/// A double in [0, 1) from the top 24 (f32) or 53 (f64) bits of the words.
inline double unit32(uint32_t w) { return (w >> 8) * 0x1.0p-24; }
inline double unit64(uint32_t hi, uint32_t lo) {
  uint64_t bits = (static_cast<uint64_t>(hi) << 32) | lo;
  return (bits >> 11) * 0x1.0p-53;
}

} // namespace

std::array<uint32_t, 4> philox4x32(uint64_t key, uint64_t counter) {
  uint32_t k0 = static_cast<uint32_t>(key),
           k1 = static_cast<uint32_t>(key >> 32);
  std::array<uint32_t, 4> c = {static_cast<uint32_t>(counter),
                               static_cast<uint32_t>(counter >> 32), 0, 0};
  for (int round = 0; round < 10; ++round) {
    uint32_t hi0, lo0, hi1, lo1;
    mulHiLo(kMul0, c[0], hi0, lo0);
    mulHiLo(kMul1, c[2], hi1, lo1);
    c = {hi1 ^ c[1] ^ k0, lo1, hi0 ^ c[3] ^ k1, lo0};
    k0 += kWeyl0;
    k1 += kWeyl1;
  }
  return c;
}

void randomUniform(uint64_t key, uint64_t counter, double min, double max,
                   Array &out) {
  if (!isFloat(out.dtype))
    internalError("random_uniform of a non-float dtype");
  bool isF32 = out.dtype == DType::f32;
  for (int64_t i = 0, n = out.numElements(); i < n; ++i) {
    std::array<uint32_t, 4> w = philox4x32(key, counter + i);
    double u = isF32 ? unit32(w[0]) : unit64(w[0], w[1]);
    double v = min + u * (max - min);
    if (isF32) {
      // Rounding to float may reach `max`; keep the interval half-open.
      float f = static_cast<float>(v);
      if (f >= static_cast<float>(max))
        f = std::nextafter(static_cast<float>(max), static_cast<float>(min));
      out.mutableData<float>()[i] = f;
    } else {
      if (v >= max)
        v = std::nextafter(max, min);
      out.mutableData<double>()[i] = v;
    }
  }
}

void randomNormal(uint64_t key, uint64_t counter, double mean, double stddev,
                  Array &out) {
  if (!isFloat(out.dtype))
    internalError("random_normal of a non-float dtype");
  bool isF32 = out.dtype == DType::f32;
  constexpr double kTwoPi = 6.283185307179586476925286766559;
  for (int64_t i = 0, n = out.numElements(); i < n; ++i) {
    std::array<uint32_t, 4> w = philox4x32(key, counter + i);
    // Box-Muller on u1 in (0, 1] and u2 in [0, 1).
    double u1 = 1.0 - (isF32 ? unit32(w[0]) : unit64(w[0], w[1]));
    double u2 = isF32 ? unit32(w[2]) : unit64(w[2], w[3]);
    double z = std::sqrt(-2.0 * std::log(u1)) * std::cos(kTwoPi * u2);
    double v = mean + stddev * z;
    if (isF32)
      out.mutableData<float>()[i] = static_cast<float>(v);
    else
      out.mutableData<double>()[i] = v;
  }
}

} // namespace fnc::ref
