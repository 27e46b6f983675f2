//===- EigenPeers.cpp - Eigen's fixed-size code as a bench peer -----------===//
//
// What a C++ user writes with Eigen for small, statically shaped work: the
// sizes are template arguments, so the arrays live in registers and the
// loops are unrolled; tanh and exp are Eigen's vectorized approximations
// (EIGEN_FAST_MATH, on by default). Compiled with -O3 -march=native like the
// other hand-written baselines. The functions are not inlined into the
// timing loops (another translation unit, noinline), so every call does
// all of its work.
//
//===----------------------------------------------------------------------===//

#include "Peers.h"

#include <Eigen/Core>

using namespace fnc::bench;

__attribute__((noinline)) void
fnc::bench::eigenChain32(const float *a, const float *b, float *out) {
  using Array8 = Eigen::Array<float, 8, 1>;
  Array8 x = Eigen::Map<const Array8>(a), y = Eigen::Map<const Array8>(b);
  for (int i = 0; i < 8; ++i) {
    x = (x * y).tanh();
    y = x.exp().max(y);
  }
  Eigen::Map<Array8> result(out);
  result = y;
}

__attribute__((noinline)) void
fnc::bench::eigenLoop16(const float *W, const float *b, float *x, int iters) {
  using Matrix16 = Eigen::Matrix<float, 16, 16>;
  using Vector16 = Eigen::Matrix<float, 16, 1>;
  Matrix16 w =
      Eigen::Map<const Eigen::Matrix<float, 16, 16, Eigen::RowMajor>>(W);
  Vector16 bias = Eigen::Map<const Vector16>(b);
  Vector16 v = Eigen::Map<const Vector16>(x);
  for (int i = 0; i < iters; ++i)
    v = (w * v + bias).array().tanh().matrix();
  Eigen::Map<Vector16> result(x);
  result = v;
}
