//===- KernelTestUtil.h - Helpers of the reference kernel tests -*- C++ -*-===//
//
// Building ref::Arrays from vectors, reading them back, and a random filler
// (EXPECT_FNC_ERROR comes from Support/ExpectError.h).
//
//===----------------------------------------------------------------------===//

#ifndef FNC_UNITTESTS_REFERENCE_KERNELTESTUTIL_H
#define FNC_UNITTESTS_REFERENCE_KERNELTESTUTIL_H

#include "Support/ExpectError.h"
#include "fnc/Reference/Kernels.h"

#include <gtest/gtest.h>

#include <random>
#include <string>

namespace fnc::ref::test {

template <typename T> Array make(const Shape &shape, const std::vector<T> &v) {
  Array a = Array::allocate(dtypeOf<T>, shape);
  EXPECT_EQ(a.numElements(), static_cast<int64_t>(v.size()));
  T *p = a.mutableData<T>();
  for (size_t i = 0; i < v.size(); ++i)
    p[i] = v[i];
  return a;
}

template <typename T> std::vector<T> read(const Array &a) {
  const T *p = a.data<T>();
  return std::vector<T>(p, p + a.numElements());
}

template <typename T>
Array random(std::mt19937 &rng, const Shape &shape, double lo, double hi) {
  Array a = Array::allocate(dtypeOf<T>, shape);
  std::uniform_real_distribution<double> dist(lo, hi);
  T *p = a.mutableData<T>();
  for (int64_t i = 0; i < a.numElements(); ++i) {
    double v = dist(rng);
    if constexpr (std::is_integral_v<T>)
      p[i] = static_cast<T>(std::floor(v));
    else
      p[i] = static_cast<T>(v);
  }
  return a;
}

/// Row-major multi-index of `flat` in `shape`.
inline Shape unflatten(int64_t flat, const Shape &shape) {
  Shape idx(shape.size());
  for (int64_t d = static_cast<int64_t>(shape.size()) - 1; d >= 0; --d) {
    idx[d] = flat % shape[d];
    flat /= shape[d];
  }
  return idx;
}

/// Flat offset in `in` of the output multi-index `idx`, with numpy
/// broadcasting (right-aligned, size-1 dims pinned to 0).
inline int64_t broadcastOffset(const Shape &idx, const Shape &in) {
  int64_t off = 0, lead = idx.size() - in.size();
  for (size_t d = 0; d < in.size(); ++d)
    off = off * in[d] + (in[d] == 1 ? 0 : idx[lead + d]);
  return off;
}

} // namespace fnc::ref::test

#endif // FNC_UNITTESTS_REFERENCE_KERNELTESTUTIL_H
