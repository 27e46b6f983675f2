//===- TestUtil.h - Helpers shared by the eager API unit tests --*- C++ -*-===//
//
// EXPECT_FNC_ERROR checks that a statement throws fnc::Error of a given kind
// whose message contains a given text (usually the op name).
//
//===----------------------------------------------------------------------===//

#ifndef FNC_UNITTESTS_API_TESTUTIL_H
#define FNC_UNITTESTS_API_TESTUTIL_H

#include "fnc/fnc.h"

#include <gtest/gtest.h>

#include <random>
#include <string>

namespace fnc::test {

template <typename F>
void expectError(F &&f, ErrorKind kind, const std::string &text,
                 const char *where) {
  try {
    f();
  } catch (const Error &e) {
    EXPECT_EQ(errorKindName(e.kind()), std::string(errorKindName(kind)))
        << where << ": " << e.what();
    EXPECT_NE(std::string(e.what()).find(text), std::string::npos)
        << where << ": message lacks \"" << text << "\": " << e.what();
    return;
  }
  ADD_FAILURE() << where << ": expected fnc::Error(" << errorKindName(kind)
                << ") mentioning \"" << text << "\", nothing thrown";
}

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

#define EXPECT_FNC_ERROR(stmt, kind, text)                                     \
  ::fnc::test::expectError([&] { (void)(stmt); }, ::fnc::ErrorKind::kind,      \
                           text, #stmt)

#endif // FNC_UNITTESTS_API_TESTUTIL_H
