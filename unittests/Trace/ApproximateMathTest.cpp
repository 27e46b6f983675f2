//===- ApproximateMathTest.cpp - Error of the vectorized f32 functions ----===//
//
// Under fast-math (the default) staged f32 exp, log, tanh, sigmoid, erf,
// expm1, log1p and softplus are upstream's polynomials (fnc-approximate-
// math). Their error in ulps against the correctly rounded value (the double
// libm result rounded to float) over dense sweeps stays within the bounds
// docs/Pipeline.md states; special values (signed zeros, subnormals,
// overflow, infinities, NaN) agree with eager; FunctionOptions::fast_math =
// false gives libm's results, bit for bit as eager.
//
//===----------------------------------------------------------------------===//

#include "fnc/fnc.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>

using namespace fnc;

namespace {

/// Floats in an order where neighbours differ by 1 (-0 and +0 are equal).
int64_t ordered(float f) {
  int32_t i;
  std::memcpy(&i, &f, sizeof i);
  return i < 0 ? int64_t{INT32_MIN} - i : i;
}

int64_t ulpsBetween(float a, float b) {
  if (std::isnan(a) || std::isnan(b))
    return std::isnan(a) && std::isnan(b) ? 0 : std::numeric_limits<int>::max();
  return std::llabs(ordered(a) - ordered(b));
}

struct Function1 {
  const char *name;
  std::function<Tensor(const Tensor &)> op;
  double (*reference)(double);
  float lo, hi;
  int64_t maxUlps; // the documented bound (docs/Pipeline.md)
};

double sigmoidRef(double x) { return 1 / (1 + std::exp(-x)); }
double softplusRef(double x) { return std::log1p(std::exp(x)); }
double expRef(double x) { return std::exp(x); }
double logRef(double x) { return std::log(x); }
double tanhRef(double x) { return std::tanh(x); }
double erfRef(double x) { return std::erf(x); }
double expm1Ref(double x) { return std::expm1(x); }
double log1pRef(double x) { return std::log1p(x); }

const std::vector<Function1> &functions() {
  static const std::vector<Function1> all = {
      {"exp", [](const Tensor &x) { return exp(x); }, expRef, -103, 88.7f, 2},
      {"log", [](const Tensor &x) { return log(x); }, logRef, 1e-3f, 1e3f, 1},
      {"tanh", [](const Tensor &x) { return tanh(x); }, tanhRef, -10, 10, 5},
      {"sigmoid", [](const Tensor &x) { return sigmoid(x); }, sigmoidRef, -80,
       80, 2},
      {"erf", [](const Tensor &x) { return erf(x); }, erfRef, -5, 5, 5},
      {"expm1", [](const Tensor &x) { return expm1(x); }, expm1Ref, -10, 10, 2},
      {"log1p", [](const Tensor &x) { return log1p(x); }, log1pRef, -0.99f, 100,
       2},
      {"softplus", [](const Tensor &x) { return softplus(x); }, softplusRef,
       -20, 20, 2},
  };
  return all;
}

TEST(ApproximateMathTest, SweepsStayWithinTheDocumentedUlps) {
  constexpr int64_t n = 1 << 18;
  for (const Function1 &f : functions()) {
    SCOPED_TRACE(f.name);
    std::vector<float> xs(n);
    for (int64_t i = 0; i < n; ++i)
      xs[i] = f.lo + (f.hi - f.lo) * (static_cast<float>(i) / (n - 1));
    auto staged = fnc::function([&](Tensor x) { return f.op(x); });
    std::vector<float> ys = staged(Tensor(xs, {n})).to_vector<float>();
    int64_t worst = 0;
    float at = 0;
    for (int64_t i = 0; i < n; ++i) {
      int64_t u = ulpsBetween(ys[i], static_cast<float>(f.reference(xs[i])));
      if (u > worst) {
        worst = u;
        at = xs[i];
      }
    }
    EXPECT_LE(worst, f.maxUlps) << "at x = " << at;
  }
  // log over the whole normal range, by exponent.
  std::vector<float> xs;
  for (float x = std::numeric_limits<float>::min(); std::isfinite(x);
       x *= 1.37f)
    xs.push_back(x);
  int64_t m = static_cast<int64_t>(xs.size());
  auto staged = fnc::function([](Tensor x) { return log(x); });
  std::vector<float> ys = staged(Tensor(xs, {m})).to_vector<float>();
  for (int64_t i = 0; i < m; ++i)
    EXPECT_LE(ulpsBetween(ys[i], static_cast<float>(std::log(xs[i]))), 1)
        << xs[i];
}

TEST(ApproximateMathTest, SpecialValuesAgreeWithEager) {
  const float inf = std::numeric_limits<float>::infinity();
  std::vector<float> xs = {0.f,
                           -0.f,
                           1e-40f,
                           -1e-40f,
                           1e-30f,
                           1.f,
                           -1.f,
                           88.7f,
                           89.f,
                           100.f,
                           -87.5f,
                           -104.f,
                           -200.f,
                           3.4e38f,
                           -3.4e38f,
                           inf,
                           -inf,
                           std::numeric_limits<float>::quiet_NaN(),
                           std::numeric_limits<float>::denorm_min()};
  int64_t n = static_cast<int64_t>(xs.size());
  for (const Function1 &f : functions()) {
    SCOPED_TRACE(f.name);
    auto staged = fnc::function([&](Tensor x) { return f.op(x); });
    std::vector<float> s = staged(Tensor(xs, {n})).to_vector<float>();
    std::vector<float> e = f.op(Tensor(xs, {n})).to_vector<float>();
    for (int64_t i = 0; i < n; ++i)
      EXPECT_LE(ulpsBetween(s[i], e[i]), f.maxUlps + 1)
          << "x = " << xs[i] << ": staged " << s[i] << ", eager " << e[i];
  }
}

TEST(ApproximateMathTest, WithoutFastMathResultsAreLibmsBitForBit) {
  FunctionOptions exact;
  exact.fast_math = false;
  std::vector<float> xs;
  for (int i = -3000; i <= 3000; ++i)
    xs.push_back(i * 0.0037f);
  int64_t n = static_cast<int64_t>(xs.size());
  Tensor x(xs, {n});
  Tensor positive = abs(x) + 1e-3f;
  for (const Function1 &f : functions()) {
    SCOPED_TRACE(f.name);
    std::string name = f.name;
    Tensor in = name == "log" || name == "log1p" ? positive : x;
    auto staged = fnc::function([&](Tensor t) { return f.op(t); }, exact);
    EXPECT_EQ(staged(in).to_vector<float>(), f.op(in).to_vector<float>());
    // The IR shown is the IR that ran: libm calls.
    std::string ir = staged.concrete_functions()[0].ir(IRStage::LLVMIR);
    EXPECT_NE(ir.find("call float @"), std::string::npos) << ir;
  }
}

} // namespace
