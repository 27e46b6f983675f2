//===- FiniteDifferences.h - Random inputs and numeric gradients -*- C++ -*-===//
//
// For the gradient tests (RecordedGradientTest, GradientCheckTest): uniform
// random float64 tensors and float64 central differences.
//
//===----------------------------------------------------------------------===//

#ifndef FNC_UNITTESTS_TRACE_FINITEDIFFERENCES_H
#define FNC_UNITTESTS_TRACE_FINITEDIFFERENCES_H

#include "fnc/fnc.h"

#include <functional>
#include <random>
#include <vector>

namespace fnc::testing {

/// float64 values uniform in [-scale, scale].
inline Tensor randomTensor(std::mt19937 &rng, const Shape &shape,
                           double scale) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  std::vector<double> v(n);
  for (double &d : v)
    d = std::uniform_real_distribution<double>(-scale, scale)(rng);
  return Tensor(v, shape);
}

/// Central differences (step 1e-6) of `f` in each element of `t`, which
/// `set` installs before each evaluation; `t` is installed again after.
/// (`t` is taken by value: it is often the very tensor `set` assigns.)
inline std::vector<double>
centralDifferences(const Tensor t,
                   const std::function<void(const Tensor &)> &set,
                   const std::function<double()> &f) {
  const double h = 1e-6;
  std::vector<double> v = t.to_vector<double>(), g(v.size());
  for (size_t i = 0; i < v.size(); ++i) {
    std::vector<double> up = v, down = v;
    up[i] += h;
    down[i] -= h;
    set(Tensor(up, t.shape()));
    double fu = f();
    set(Tensor(down, t.shape()));
    double fd = f();
    g[i] = (fu - fd) / (2 * h);
  }
  set(t);
  return g;
}

} // namespace fnc::testing

#endif // FNC_UNITTESTS_TRACE_FINITEDIFFERENCES_H
