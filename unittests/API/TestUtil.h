//===- TestUtil.h - Helpers shared by the eager API unit tests --*- C++ -*-===//
//
// Random tensors for the eager API tests; EXPECT_FNC_ERROR comes from
// Support/ExpectError.h.
//
//===----------------------------------------------------------------------===//

#ifndef FNC_UNITTESTS_API_TESTUTIL_H
#define FNC_UNITTESTS_API_TESTUTIL_H

#include "Support/ExpectError.h"
#include "fnc/fnc.h"

#include <gtest/gtest.h>

#include <random>
#include <string>

namespace fnc::test {

/// A random float tensor of `shape` with values in [lo, hi).
inline Tensor randomFloat(std::mt19937 &rng, const std::vector<int64_t> &shape,
                          float lo = -2, float hi = 2) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> v(n);
  for (float &x : v)
    x = dist(rng);
  return Tensor(v, shape);
}

/// A random int32 tensor of `shape` with values in [lo, hi].
inline Tensor randomInt(std::mt19937 &rng, const std::vector<int64_t> &shape,
                        int32_t lo = -9, int32_t hi = 9) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  std::uniform_int_distribution<int32_t> dist(lo, hi);
  std::vector<int32_t> v(n);
  for (int32_t &x : v)
    x = dist(rng);
  return Tensor(v, shape);
}

} // namespace fnc::test

#endif // FNC_UNITTESTS_API_TESTUTIL_H
