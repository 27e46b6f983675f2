// Calls the functions of model.mlir, compiled ahead of time by the
// installed fnc-compile, and checks them against fnc's eager ops (which
// libfnc_runtime carries) on random inputs. Prints one line per check and
// exits non-zero at the first mismatch.
#include "model.h"
#include "saved.h"
#include "saved_expected.h"

#include <fnc/Ops.h>

#include <cmath>
#include <cstdlib>
#include <iostream>
#include <random>
#include <string>
#include <vector>

namespace {

std::mt19937 rng(20240521);

[[noreturn]] void fail(const std::string &what) {
  std::cout << "FAIL: " << what << "\n";
  std::exit(1);
}

template <typename T> std::vector<T> random(size_t n, double lo, double hi) {
  std::uniform_real_distribution<double> dist(lo, hi);
  std::vector<T> v(n);
  for (T &x : v)
    x = static_cast<T>(std::is_integral<T>::value ? std::floor(dist(rng))
                                                  : dist(rng));
  return v;
}

/// `got` equals `want` in dtype, shape and (within `tol`, relative) values.
template <typename T>
void expectClose(const std::string &what, const fnc::Tensor &got,
                 const fnc::Tensor &want, double tol = 1e-5) {
  if (got.dtype() != want.dtype() || got.shape() != want.shape())
    fail(what + ": got " + got.str() + ", want " + want.str());
  std::vector<T> g = got.to_vector<T>(), w = want.to_vector<T>();
  for (size_t i = 0; i < g.size(); ++i) {
    double a = static_cast<double>(g[i]), b = static_cast<double>(w[i]);
    if (std::abs(a - b) > tol * (1 + std::abs(b)))
      fail(what + ": got " + got.str() + ", want " + want.str());
  }
}

template <typename Fn>
void expectError(const std::string &what, Fn fn, fnc::ErrorKind kind,
                 const std::string &message) {
  try {
    fn();
  } catch (const fnc::Error &e) {
    if (e.kind() != kind || e.message() != message)
      fail(what + ": threw " + fnc::errorKindName(e.kind()) + " '" +
           e.message() + "', want '" + message + "'");
    return;
  }
  fail(what + ": no error");
}

} // namespace

int main() {
  demo::Model model;

  // The seed function, f32 with an unknown dim, several lengths.
  for (int64_t n : {1, 7, 1000, 100003}) {
    fnc::Tensor x(random<float>(n, -2, 2), {n});
    fnc::Tensor y(random<float>(n, -2, 2), {n});
    fnc::Tensor want = fnc::reduce_mean(x * x * 3.0f + y);
    expectClose<float>("seed n=" + std::to_string(n), model.seed(x, y), want,
                       1e-4);
  }
  std::cout << "seed: ok\n";

  // Variables persist across calls and belong to their instance.
  std::vector<float> w = {1, 2, 3};
  for (int64_t call = 1; call <= 3; ++call) {
    std::vector<float> x = random<float>(3, -1, 1);
    for (size_t i = 0; i < 3; ++i)
      w[i] += x[i];
    auto [p, n] = model.step(fnc::Tensor(x, {3}));
    expectClose<float>("step product", p,
                       fnc::Tensor(w, {3}) * fnc::Tensor(x, {3}));
    expectClose<int64_t>("step count", n, fnc::Tensor(call));
  }
  expectClose<float>("get_w", model.get_w(), fnc::Tensor(w, {3}));
  demo::Model fresh;
  expectClose<float>("a new instance's w", fresh.get_w(),
                     fnc::Tensor({1.f, 2.f, 3.f}));
  model.set_w(fnc::Tensor({0.f, 0.f, 0.f}));
  model.set_count(fnc::Tensor(int64_t(41)));
  auto [p, n] = model.step(fnc::Tensor({1.f, 2.f, 3.f}));
  expectClose<float>("step after set_w", p, fnc::Tensor({1.f, 4.f, 9.f}));
  expectClose<int64_t>("step after set_count", n, fnc::Tensor(int64_t(42)));
  expectError(
      "set_w of the wrong shape",
      [&] {
        model.set_w(fnc::Tensor({1.f, 2.f}));
      },
      fnc::ErrorKind::InvalidArgument,
      "cannot assign a tensor<2xf32> to variable @w of type tensor<3xf32>; "
      "assign a tensor of exactly that dtype and shape");
  std::cout << "variables: ok\n";

  // Several results of f64 and i1.
  for (int64_t rows : {1, 5, 64}) {
    fnc::Tensor m(random<double>(rows * 3, -1, 1), {rows, 3});
    auto [s, x, pos] = model.stats(m);
    fnc::Tensor sum = fnc::reduce_sum(m, {0});
    expectClose<double>("stats sum", s, sum, 1e-12);
    expectClose<double>("stats max", x, fnc::reduce_max(m, {0}), 0);
    expectClose<bool>("stats positive", pos, fnc::greater(sum, 0.0), 0);
  }
  std::cout << "stats: ok\n";

  // i32.
  for (int64_t len : {0, 3, 4097}) {
    fnc::Tensor a(random<int32_t>(len, -100, 100), {len});
    fnc::Tensor b(random<int32_t>(len, -100, 100), {len});
    expectClose<int32_t>("ints", model.ints(a, b), a * b - a, 0);
  }
  std::cout << "ints: ok\n";

  // An unbound variable is replaced by its new value.
  fnc::Tensor v(random<double>(6, -1, 1), {6});
  fnc::Tensor before = v;
  model.scale(v, fnc::Tensor(2.5));
  expectClose<double>("scale", v, before * 2.5, 1e-15);
  std::cout << "scale: ok\n";

  // Gathers, then the run-time error and the argument errors the JIT gives.
  fnc::Tensor params(random<float>(5, -1, 1), {5});
  fnc::Tensor idx(std::vector<int32_t>{4, 0, 2, 2}, {4});
  expectClose<float>("pick", model.pick(params, idx), fnc::gather(params, idx),
                     0);
  expectError(
      "pick out of range",
      [&] {
        model.pick(params, fnc::Tensor(std::vector<int32_t>{1, 7}, {2}));
      },
      fnc::ErrorKind::OutOfRange,
      "@pick: gather index 7 is out of range [0, 5); valid indices are 0 to "
      "4");
  expectError(
      "seed with f64",
      [&] { model.seed(fnc::Tensor({1.0}), fnc::Tensor({1.0})); },
      fnc::ErrorKind::InvalidArgument,
      "argument #0 of @seed: expected tensor<?xf32>, got tensor<1xf64>");
  expectError(
      "stats with 2 columns",
      [&] {
        model.stats(fnc::Tensor({{1.0, 2.0}}));
      },
      fnc::ErrorKind::InvalidArgument,
      "argument #0 of @stats: expected tensor<?x3xf64>, got tensor<1x2xf64>");
  std::cout << "errors: ok\n";

  // A model fnc::save wrote (trained fnc::nn layers): the same prediction
  // as the process that saved it, its variables under C++ names.
  demo::Saved saved;
  fnc::Tensor input(std::vector<float>(std::begin(kSavedInput),
                                       std::end(kSavedInput)),
                    {4, 5});
  expectClose<float>("saved predict", saved.predict(input),
                     fnc::Tensor(std::vector<float>(
                                     std::begin(kSavedPrediction),
                                     std::end(kSavedPrediction)),
                                 {4, 3}));
  if (saved.get_dense_kernel().shape() != std::vector<int64_t>{5, 8})
    fail("saved dense/kernel: " + saved.get_dense_kernel().str());
  std::cout << "saved model: ok\n";
  std::cerr << "compiled for " << demo::Model::info().targetCPU << "\n";
  return 0;
}
