//===- GradientTest.cpp - fnc::GradientTape against finite differences ----===//
//
// Every differentiable op of the op table, and the other op families with a
// gradient rule, checked against central finite differences in float64 on
// random shapes (broadcasting and size-1 dims included); the tape eagerly,
// inside a fnc::function, and around a fnc::function must agree; higher
// derivatives through nested tapes; and every error of the tape.
//
//===----------------------------------------------------------------------===//

#include "FiniteDifferences.h"
#include "RandomPrograms.h"
#include "Support/ExpectError.h"
#include "fnc/Reference/Scalar.h"
#include "fnc/fnc.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cmath>
#include <functional>
#include <random>
#include <string>

using namespace fnc;
using fnc::testing::expectError;

namespace {

using Fn = std::function<Tensor(const std::vector<Tensor> &)>;

/// Random float64 values in [lo, hi).
Tensor randomF64(std::mt19937 &rng, const Shape &shape, double lo = -2,
                 double hi = 2) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  std::uniform_real_distribution<double> dist(lo, hi);
  std::vector<double> v(n);
  for (double &x : v)
    x = dist(rng);
  return Tensor(v, shape);
}

/// Float64 values of `shape` at least 0.05 apart (a shuffled grid in
/// [-2, 2)): no ties, so max pooling is differentiable at them and a
/// finite-difference step cannot change a window's maximum.
Tensor distinctF64(std::mt19937 &rng, const Shape &shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  std::vector<double> v(n);
  for (int64_t i = 0; i < n; ++i)
    v[i] = -2 + 4.0 * i / n + 0.01 * (i % 3);
  std::shuffle(v.begin(), v.end(), rng);
  return Tensor(v, shape);
}

/// sum(f(xs) * w): a scalar whose gradient weights every output element.
Tensor weighted(const Fn &f, const std::vector<Tensor> &xs, const Tensor &w) {
  return reduce_sum(f(xs) * w);
}

/// Checks the tape's gradient of sum(f(xs) * w) with respect to every
/// float input against central differences.
void checkAgainstFiniteDifferences(const std::string &what, const Fn &f,
                                   const std::vector<Tensor> &xs,
                                   std::mt19937 &rng, double tol = 1e-6,
                                   double h = 1e-6) {
  SCOPED_TRACE(what);
  Tensor w = randomF64(rng, f(xs).shape(), 0.5, 1.5);
  std::vector<Tensor> grads;
  {
    GradientTape tape;
    tape.watch(xs);
    Tensor y = weighted(f, xs, w);
    grads = tape.gradient(y, xs);
  }
  for (size_t i = 0; i < xs.size(); ++i) {
    if (xs[i].dtype() != DType::f64)
      continue;
    ASSERT_TRUE(grads[i].defined()) << "no gradient for input #" << i;
    ASSERT_EQ(grads[i].shape(), xs[i].shape()) << "input #" << i;
    std::vector<double> x = xs[i].to_vector<double>();
    std::vector<double> analytic = grads[i].to_vector<double>();
    for (size_t k = 0; k < x.size(); ++k) {
      auto at = [&](double v) {
        std::vector<double> moved = x;
        moved[k] = v;
        std::vector<Tensor> args = xs;
        args[i] = Tensor(moved, xs[i].shape());
        return weighted(f, args, w).item<double>();
      };
      double numeric = (at(x[k] + h) - at(x[k] - h)) / (2 * h);
      EXPECT_NEAR(analytic[k], numeric, tol * (1 + std::abs(numeric)))
          << "input #" << i << " element " << k;
    }
  }
}

/// A shape of rank 0-3 with dims in [1, 3], and one that broadcasts to it.
std::pair<Shape, Shape> broadcastPair(std::mt19937 &rng) {
  std::uniform_int_distribution<int> rank(0, 3), dim(1, 3), coin(0, 1);
  Shape full(rank(rng));
  for (int64_t &d : full)
    d = dim(rng);
  Shape part(full.end() -
                 std::uniform_int_distribution<size_t>(0, full.size())(rng),
             full.end());
  for (int64_t &d : part)
    if (coin(rng))
      d = 1;
  if (coin(rng))
    std::swap(full, part);
  return {full, part};
}

//===----------------------------------------------------------------------===//
// Every op
//===----------------------------------------------------------------------===//

struct Domain {
  double lo = -2, hi = 2;
};

Domain domainOf(const std::string &op) {
  if (op == "log" || op == "sqrt" || op == "rsqrt" || op == "log1p" ||
      op == "pow")
    return {0.5, 2};
  if (op == "div" || op == "floor_mod")
    return {0.5, 2};
  if (op == "tan")
    return {-1, 1};
  return {};
}

TEST(GradientTest, EveryDifferentiableTableOpMatchesFiniteDifferences) {
  struct TableOp {
    const char *name;
    bool differentiable;
    Tensor (*unary)(const Tensor &);
    Tensor (*binary)(const Tensor &, const Tensor &);
  };
  const TableOp ops[] = {
#define FNC_UNARY_OP(KIND, CLASS, API, DTYPES, DIFF)                           \
  {#API, DIFF && scalar::accepts(scalar::DTypes::DTYPES, DType::f64),          \
   &fnc::API, nullptr},
#define FNC_BINARY_OP(KIND, CLASS, API, DTYPES, DIFF)                          \
  {#API, DIFF && scalar::accepts(scalar::DTypes::DTYPES, DType::f64), nullptr, \
   &fnc::API},
#include "fnc/Dialect/Fnc/IR/FncOpTable.inc"
  };
  std::mt19937 rng(5);
  int checked = 0;
  for (const TableOp &op : ops) {
    if (!op.differentiable)
      continue;
    Domain d = domainOf(op.name);
    for (int trial = 0; trial < 3; ++trial) {
      auto [a, b] = broadcastPair(rng);
      if (op.unary) {
        auto fn = op.unary;
        checkAgainstFiniteDifferences(
            op.name, [fn](const std::vector<Tensor> &x) { return fn(x[0]); },
            {randomF64(rng, a, d.lo, d.hi)}, rng);
      } else {
        auto fn = op.binary;
        checkAgainstFiniteDifferences(
            op.name,
            [fn](const std::vector<Tensor> &x) { return fn(x[0], x[1]); },
            {randomF64(rng, a, d.lo, d.hi), randomF64(rng, b, d.lo, d.hi)},
            rng);
      }
      ++checked;
    }
  }
  EXPECT_GT(checked, 60);
}

TEST(GradientTest, OtherOpFamiliesMatchFiniteDifferences) {
  std::mt19937 rng(11);
  using V = std::vector<Tensor>;
  auto x23 = [&] { return randomF64(rng, {2, 3}); };
  auto positive = [&](const Shape &s) { return randomF64(rng, s, 0.5, 2); };
  struct Case {
    std::string name;
    Fn f;
    std::vector<Tensor> xs;
    // Through float32 (a linear function there), a step far above its
    // precision.
    double tol = 1e-6, h = 1e-6;
  };
  std::vector<Case> cases = {
      {"reduce_sum", [](const V &x) { return reduce_sum(x[0], {1}); }, {x23()}},
      {"reduce_sum all keepdims",
       [](const V &x) { return reduce_sum(x[0], {}, true); },
       {x23()}},
      {"reduce_mean",
       [](const V &x) { return reduce_mean(x[0], {0}); },
       {x23()}},
      {"reduce_max",
       [](const V &x) { return reduce_max(x[0], {-1}); },
       {x23()}},
      {"reduce_min",
       [](const V &x) { return reduce_min(x[0], {0}, true); },
       {x23()}},
      {"reduce_prod",
       [](const V &x) { return reduce_prod(x[0], {1}); },
       {positive({2, 3})}},
      {"matmul",
       [](const V &x) { return matmul(x[0], x[1]); },
       {x23(), randomF64(rng, {3, 4})}},
      {"batched matmul",
       [](const V &x) { return matmul(x[0], x[1]); },
       {randomF64(rng, {2, 2, 3}), randomF64(rng, {3, 2})}},
      {"softmax", [](const V &x) { return softmax(x[0], -1); }, {x23()}},
      {"log_softmax", [](const V &x) { return log_softmax(x[0], 0); }, {x23()}},
      {"select",
       [](const V &x) { return select(x[0] > 0.0, x[0] * 2.0, x[1]); },
       {x23(), randomF64(rng, {3})}},
      {"cast f32 round trip",
       [](const V &x) {
         return cast(cast(x[0], DType::f32) * 2.f, DType::f64);
       },
       {x23()},
       1e-3,
       1e-2},
      {"transpose",
       [](const V &x) {
         return transpose(x[0], {1, 0}) * x[1];
       },
       {x23(), randomF64(rng, {3, 2})}},
      {"reshape",
       [](const V &x) {
         return reshape(x[0], {3, 2});
       },
       {x23()}},
      {"expand_dims and squeeze",
       [](const V &x) { return squeeze(expand_dims(x[0], 1)) * 3.0; },
       {x23()}},
      {"broadcast_to",
       [](const V &x) {
         return broadcast_to(x[0], {4, 3});
       },
       {randomF64(rng, {1, 3})}},
      {"slice",
       [](const V &x) {
         return slice(x[0], {0, 1}, {2, 2});
       },
       {x23()}},
      {"strided slice",
       [](const V &x) {
         return slice(x[0], {1, 0}, {2, 2}, {2, 2});
       },
       {randomF64(rng, {4, 3})}},
      {"numpy index (strided_slice)",
       [](const V &x) {
         return x[0].index({Slice(None, None, -2), NewAxis, -1}) * 2.0;
       },
       {randomF64(rng, {5, 3})}},
      {"strided_slice with masks",
       [](const V &x) {
         return strided_slice(x[0], {-1, 2}, {0, 0}, {-1, -2}, 0, 0b10);
       },
       {randomF64(rng, {4, 6})}},
      {"pad",
       [](const V &x) {
         return pad(x[0], {{1, 0}, {2, 1}}, 3.0);
       },
       {x23()}},
      {"pad with interior padding",
       [](const V &x) {
         return pad(x[0], {{0, 1}, {1, 0}}, 0, {2, 1});
       },
       {x23()}},
      {"conv2d valid",
       [](const V &x) {
         return conv2d(x[0], x[1], {1, 1}, "VALID");
       },
       {randomF64(rng, {2, 4, 5, 2}), randomF64(rng, {2, 3, 2, 3})}},
      {"conv2d same strided",
       [](const V &x) {
         return conv2d(x[0], x[1], {2, 2}, "SAME");
       },
       {randomF64(rng, {1, 5, 4, 2}), randomF64(rng, {3, 2, 2, 2})}},
      {"conv2d valid strided 1x1",
       [](const V &x) {
         return conv2d(x[0], x[1], {2, 3}, "VALID");
       },
       {randomF64(rng, {2, 5, 7, 3}), randomF64(rng, {1, 1, 3, 2})}},
      {"max_pool2d valid",
       [](const V &x) {
         return max_pool2d(x[0], {2, 2}, {2, 2}, "VALID");
       },
       {distinctF64(rng, {2, 4, 5, 3})}},
      {"max_pool2d same overlapping",
       [](const V &x) {
         return max_pool2d(x[0], {3, 3}, {2, 1}, "SAME");
       },
       {distinctF64(rng, {2, 5, 4, 2})}},
      {"max_pool2d same window larger than the input",
       [](const V &x) {
         return max_pool2d(x[0], {3, 4}, {1, 2}, "SAME");
       },
       {distinctF64(rng, {1, 2, 3, 2})}},
      {"avg_pool2d valid overlapping",
       [](const V &x) {
         return avg_pool2d(x[0], {2, 3}, {1, 2}, "VALID");
       },
       {randomF64(rng, {2, 4, 5, 2})}},
      {"avg_pool2d same",
       [](const V &x) {
         return avg_pool2d(x[0], {3, 3}, {2, 2}, "SAME");
       },
       {randomF64(rng, {1, 5, 6, 3})}},
      {"avg_pool2d gradient (a second derivative)",
       [](const V &x) {
         GradientTape tape;
         tape.watch(x[0]);
         Tensor p = avg_pool2d(x[0] * x[0] * x[0], {3, 2}, {2, 1}, "SAME");
         return tape.gradient(reduce_sum(p * p), x[0]);
       },
       {randomF64(rng, {2, 5, 4, 2})}},
      {"pooling in a small CNN",
       [](const V &x) {
         Tensor h = relu(conv2d(x[0], x[1], {1, 1}, "SAME"));
         Tensor p = max_pool2d(h, {2, 2}, {2, 2}, "VALID");
         return avg_pool2d(p, {2, 2}, {1, 1}, "SAME");
       },
       {randomF64(rng, {1, 4, 6, 2}), randomF64(rng, {3, 3, 2, 3})}},
      {"concat",
       [](const V &x) {
         return concat({x[0], x[1], x[0]}, 0);
       },
       {x23(), randomF64(rng, {1, 3})}},
      {"gather axis 0",
       [](const V &x) {
         return gather(x[0], Tensor{2, 0, 2}, 0);
       },
       {randomF64(rng, {3, 2})}},
      {"gather axis 1",
       [](const V &x) {
         return gather(x[0], Tensor(std::vector<int32_t>{1, 1, 0, 2}, {2, 2}),
                       1);
       },
       {randomF64(rng, {2, 3, 2})}},
      {"TensorArray write, read and stack",
       [](const V &x) {
         TensorArray ta(DType::f64, 3);
         ta = ta.write(0, x[0]).write(2, x[0] * x[1]).write(1, x[1]);
         return ta.stack() * ta.read(2);
       },
       {randomF64(rng, {2}), randomF64(rng, {2})}},
      {"a small MLP",
       [](const V &x) {
         Tensor h = relu(matmul(x[0], x[1]) + x[2]);
         return log_softmax(matmul(h, x[3]), -1);
       },
       {randomF64(rng, {4, 3}), randomF64(rng, {3, 5}), randomF64(rng, {5}),
        randomF64(rng, {5, 2})}},
  };
  for (const Case &c : cases)
    checkAgainstFiniteDifferences(c.name, c.f, c.xs, rng, c.tol, c.h);
}

//===----------------------------------------------------------------------===//
// The tape
//===----------------------------------------------------------------------===//

TEST(GradientTest, VariablesAreWatchedWhenRead) {
  Variable w(Tensor{1.f, 2.f}, "w");
  Variable frozen(Tensor{5.f, 5.f}, "frozen");
  Tensor x = {3.f, 4.f};
  GradientTape tape(/*persistent=*/true);
  Tensor loss = reduce_sum(w * x * w);
  EXPECT_EQ(tape.gradient(loss, w).to_vector<float>(),
            (std::vector<float>{6.f, 16.f}));
  // A variable read twice gets the sum of both paths; one never read gets
  // nothing.
  EXPECT_FALSE(tape.gradient(loss, frozen).defined());
  GradientOptions zero;
  zero.unconnected_gradients = UnconnectedGradients::Zero;
  EXPECT_EQ(tape.gradient(loss, frozen, zero).to_vector<float>(),
            (std::vector<float>{0.f, 0.f}));
  // Not watched: x was never given to watch().
  EXPECT_FALSE(tape.gradient(loss, x).defined());

  GradientTape explicitOnly(false, /*watch_accessed_variables=*/false);
  explicitOnly.watch(frozen);
  Tensor y = reduce_sum(w * frozen);
  auto [gw, gf] = explicitOnly.gradient(y, std::make_tuple(w, frozen));
  EXPECT_FALSE(gw.defined());
  EXPECT_EQ(gf.to_vector<float>(), (std::vector<float>{1.f, 2.f}));
}

TEST(GradientTest, TargetsSourcesAndOptions) {
  Tensor x = {1.0, 2.0, 3.0};
  GradientTape tape(/*persistent=*/true);
  tape.watch(x);
  Tensor y = x * x; // not a scalar: summed
  EXPECT_EQ(tape.gradient(y, x).to_vector<double>(),
            (std::vector<double>{2, 4, 6}));
  GradientOptions weights;
  weights.output_gradients = Tensor{1.0, 0.0, -1.0};
  EXPECT_EQ(tape.gradient(y, x, weights).to_vector<double>(),
            (std::vector<double>{2, 0, -6}));
  Tensor z = stop_gradient(y) * x;
  EXPECT_EQ(tape.gradient(z, x).to_vector<double>(),
            (std::vector<double>{1, 4, 9}));
  std::vector<Tensor> both = tape.gradient(reduce_sum(y) * 1.0, {x, y});
  EXPECT_EQ(both[1].to_vector<double>(), (std::vector<double>{1, 1, 1}));
}

TEST(GradientTest, NestedTapesGiveHigherDerivatives) {
  Tensor x = {0.5, 2.0};
  GradientTape outer;
  outer.watch(x);
  Tensor dy;
  {
    GradientTape inner;
    inner.watch(x);
    Tensor y = x * x * x;
    dy = inner.gradient(y, x); // 3x^2
  }
  EXPECT_EQ(dy.to_vector<double>(), (std::vector<double>{0.75, 12.0}));
  EXPECT_EQ(outer.gradient(dy, x).to_vector<double>(),
            (std::vector<double>{3.0, 12.0})); // 6x
}

TEST(GradientTest, Errors) {
  Tensor x = {1.f, 2.f};
  Tensor i = {1, 2};
  GradientTape tape;
  tape.watch(x);
  tape.watch(i); // ignored: integers carry no gradient
  Tensor y = reduce_sum(x * x);
  expectError([&] { tape.gradient(y, i); }, ErrorKind::InvalidArgument,
              {"source #0 (int32[2]) is not differentiable"});
  expectError([&] { tape.gradient(i, x); }, ErrorKind::InvalidArgument,
              {"the target is int32[2]"});
  GradientOptions bad;
  bad.output_gradients = Tensor{1.f};
  expectError([&] { tape.gradient(y, x, bad); }, ErrorKind::InvalidArgument,
              {"output_gradients is float32[1] but the target is float32[]"});
  EXPECT_EQ(tape.gradient(y, x).to_vector<float>(),
            (std::vector<float>{2.f, 4.f}));
  expectError([&] { tape.gradient(y, x); }, ErrorKind::FailedPrecondition,
              {"a non-persistent tape computes gradients only once"});
}

TEST(GradientTest, RulesReadUnknownDimsAtRunTime) {
  // Rules that need sizes unknown while tracing read them at run time:
  // conv2d's with a filter whose spatial size is unknown.
  FunctionOptions options;
  options.input_signature = {TensorSpec({kUnknownDim}, DType::f32)};
  auto convolved = [](Tensor a) {
    GradientTape t;
    t.watch(a);
    Tensor image = fill({1, 3, 3, 1}, 1.f) * reduce_sum(a);
    Tensor filter = reshape(a, {1, -1, 1, 1});
    return t.gradient(reduce_sum(conv2d(image, filter)), a);
  };
  auto unknown = fnc::function(convolved, options);
  EXPECT_EQ(unknown(Tensor{1.f, 2.f}).to_vector<float>(),
            convolved(Tensor{1.f, 2.f}).to_vector<float>());
  // (A pad with values after such a dim takes them back at run time.)
  auto padded = fnc::function(
      [](Tensor a) {
        GradientTape t;
        t.watch(a);
        return t.gradient(reduce_sum(pad(a, {{0, 1}}) * 2.f), a);
      },
      options);
  EXPECT_EQ(padded(Tensor{1.f, 2.f}).to_vector<float>(),
            (std::vector<float>{2.f, 2.f}));
  // (A concat of such operands takes each part at run-time bounds.)
  auto concatenated = fnc::function(
      [](Tensor a) {
        GradientTape t;
        t.watch(a);
        return t.gradient(reduce_sum(concat({a, a * 3.f}, 0)), a);
      },
      options);
  EXPECT_EQ(concatenated(Tensor{1.f, 2.f}).to_vector<float>(),
            (std::vector<float>{4.f, 4.f}));
}

// Second derivatives through max pooling (they were an Unimplemented
// error): max_pool2d_grad(x, g) is linear in g, and its gradient picks, per
// window, the incoming gradient at x's first maximum. Eagerly, staged and
// staged with an unknown batch, against central differences in float64,
// with overlapping windows, SAME padding and strides; with ties (every
// value equal: the first maximum of each window in row-major order, as the
// kernel routes); a third derivative too. Unknown heights say what to do.
TEST(GradientTest, SecondDerivativesOfMaxPooling) {
  struct Pooling {
    std::vector<int64_t> ksize, strides;
    const char *padding;
  };
  std::mt19937 rng(11);
  for (const Pooling &p : {Pooling{{2, 2}, {1, 1}, "VALID"},
                           Pooling{{3, 3}, {2, 2}, "SAME"},
                           Pooling{{2, 3}, {2, 1}, "SAME"}}) {
    SCOPED_TRACE(std::to_string(p.ksize[0]) + "x" + std::to_string(p.ksize[1]) +
                 " " + p.padding);
    // d/dx sum(pool(x^3)) = 3 x^2 at the maxima; the second derivative of
    // sum(g^2) = 9 x^4 summed there: 36 x^3, per window that chose x.
    auto first = [&](const Tensor &x) {
      GradientTape inner;
      inner.watch(x);
      Tensor y = reduce_sum(max_pool2d(x * x * x, p.ksize, p.strides, p.padding));
      return inner.gradient(y, x);
    };
    auto second = [&](Tensor x) {
      GradientTape outer;
      outer.watch(x);
      Tensor g = first(x);
      return outer.gradient(reduce_sum(g * g), x);
    };
    Tensor x = fnc::testing::randomTensor(rng, {2, 5, 4, 2}, 1.0);
    std::vector<double> eager = second(x).to_vector<double>();
    std::vector<double> numeric = fnc::testing::centralDifferences(
        x, [&](const Tensor &t) { x = t; },
        [&] { return reduce_sum(first(x) * first(x)).item<double>(); });
    for (size_t k = 0; k < eager.size(); ++k)
      EXPECT_NEAR(eager[k], numeric[k], 1e-5 * (1 + std::abs(numeric[k])))
          << "element " << k;
    FunctionOptions unknownBatch;
    unknownBatch.input_signature = {TensorSpec({kUnknownDim, 5, 4, 2},
                                               DType::f64)};
    // (The batch unknown for the SAME ones.)
    bool batch = std::string(p.padding) == "SAME";
    auto staged =
        batch ? fnc::function(second, unknownBatch) : fnc::function(second);
    std::vector<double> got = staged(x).to_vector<double>();
    for (size_t k = 0; k < eager.size(); ++k)
      EXPECT_NEAR(got[k], eager[k], 1e-9 * (1 + std::abs(eager[k])));
    // Third: d/dx sum(second(x)) = 108 x^2 per window that chose x.
    auto third = [&](Tensor x) {
      GradientTape t;
      t.watch(x);
      Tensor s = second(x);
      return t.gradient(reduce_sum(s), x);
    };
    std::vector<double> thirdEager = third(x).to_vector<double>(),
                        thirdNumeric = fnc::testing::centralDifferences(
                            x, [&](const Tensor &t) { x = t; },
                            [&] { return reduce_sum(second(x)).item<double>(); });
    for (size_t k = 0; k < thirdEager.size(); ++k)
      EXPECT_NEAR(thirdEager[k], thirdNumeric[k],
                  1e-5 * (1 + std::abs(thirdNumeric[k])));
    std::vector<double> thirdStaged =
        fnc::function(third)(x).to_vector<double>();
    for (size_t k = 0; k < thirdEager.size(); ++k)
      EXPECT_NEAR(thirdStaged[k], thirdEager[k],
                  1e-9 * (1 + std::abs(thirdEager[k])));
  }
  // Ties: with every value equal, each window's gradient goes to its first
  // tap, and the gradient of max_pool2d_grad with respect to its output
  // gradient reads the cotangent there: d/dgout sum(pool_grad(x, gout) c)
  // is c at each window's first tap (c[0, 2i, 2j] for 2x2 windows, stride
  // 2), eagerly (reference kernel) and staged (compiled kernel).
  Tensor ties = fill({1, 4, 4, 1}, 1.0, DType::f64);
  std::vector<double> cv(16);
  for (int k = 0; k < 16; ++k)
    cv[k] = k + 1;
  Tensor c(cv, {1, 4, 4, 1});
  auto throughGout = [&](Tensor gout) {
    GradientTape outer;
    outer.watch(gout);
    Tensor g;
    {
      GradientTape inner;
      inner.watch(ties);
      g = inner.gradient(
          reduce_sum(max_pool2d(ties, {2, 2}, {2, 2}) * gout), ties);
    }
    return outer.gradient(reduce_sum(g * c), gout);
  };
  Tensor gout = fill({1, 2, 2, 1}, 1.0, DType::f64);
  std::vector<double> firstTaps = {1, 3, 9, 11};
  EXPECT_EQ(throughGout(gout).to_vector<double>(), firstTaps);
  EXPECT_EQ(fnc::function(throughGout)(gout).to_vector<double>(), firstTaps);
  // Heights and widths unknown while tracing: the padding and the windows'
  // counts at run time (compiled, against eager).
  FunctionOptions unknownHeight;
  unknownHeight.input_signature = {TensorSpec({1, kUnknownDim, kUnknownDim, 1},
                                              DType::f64)};
  unknownHeight.jit_compile = true;
  for (const Pooling &p : {Pooling{{2, 2}, {1, 1}, "VALID"},
                           Pooling{{3, 2}, {2, 2}, "SAME"}}) {
    auto twice = [&](Tensor in) {
      GradientTape outer;
      outer.watch(in);
      Tensor g;
      {
        GradientTape inner;
        inner.watch(in);
        g = inner.gradient(
            reduce_sum(max_pool2d(in * in * in, p.ksize, p.strides, p.padding)),
            in);
      }
      return outer.gradient(reduce_sum(g * g), in);
    };
    auto staged = fnc::function(twice, unknownHeight);
    for (const Shape &shape : {Shape{1, 5, 4, 1}, Shape{1, 4, 7, 1}}) {
      Tensor in = fnc::testing::randomTensor(rng, shape, 1.0);
      std::vector<double> want = twice(in).to_vector<double>(),
                          got = staged(in).to_vector<double>();
      ASSERT_EQ(got.size(), want.size());
      for (size_t k = 0; k < want.size(); ++k)
        EXPECT_NEAR(got[k], want[k], 1e-9 * (1 + std::abs(want[k])));
    }
  }
}

//===----------------------------------------------------------------------===//
// Staged
//===----------------------------------------------------------------------===//

/// One SGD step of a linear model; returns the loss before the update.
Tensor trainStep(const Variable &w, const Variable &b, const Tensor &x,
                 const Tensor &y) {
  GradientTape tape;
  Tensor pred = matmul(x, w) + b;
  Tensor loss = reduce_mean(square(pred - y));
  auto grads = tape.gradient(loss, {w, b}); // the seeds' [w, b]
  w.assign_sub(grads[0] * 0.1f);
  b.assign_sub(grads[1] * 0.1f);
  return loss;
}

TEST(GradientTest, TapeInsideAStagedFunctionMatchesEager) {
  std::mt19937 rng(3);
  Tensor x = cast(randomF64(rng, {8, 3}), DType::f32);
  Tensor y = cast(randomF64(rng, {8, 1}), DType::f32);
  Variable we(zeros({3, 1}), "w"), be(zeros({1}), "b");
  Variable ws(zeros({3, 1}), "w"), bs(zeros({1}), "b");
  auto staged = fnc::function(
      [&](Tensor xs, Tensor ys) { return trainStep(ws, bs, xs, ys); });
  for (int step = 0; step < 5; ++step) {
    float eager = trainStep(we, be, x, y).item<float>();
    float compiled = staged(x, y).item<float>();
    EXPECT_NEAR(eager, compiled, 1e-5f * (1 + std::abs(eager)))
        << "step " << step;
  }
  EXPECT_EQ(staged.tracing_count(), 1);
  std::vector<float> a = we.read_value().to_vector<float>(),
                     c = ws.read_value().to_vector<float>();
  for (size_t k = 0; k < a.size(); ++k)
    EXPECT_NEAR(a[k], c[k], 1e-5f);
  // The loss went down.
  EXPECT_LT(staged(x, y).item<float>(), reduce_mean(square(y)).item<float>());
}

TEST(GradientTest, StagedFunctionUnderATapeIsDifferentiated) {
  auto f = fnc::function([](Tensor a) { return sin(a) * a; });
  Tensor x = {0.5, 1.0};
  GradientTape tape;
  tape.watch(x);
  Tensor y = f(x);
  std::vector<double> g = tape.gradient(y, x).to_vector<double>();
  for (size_t k = 0; k < g.size(); ++k) {
    double v = x.to_vector<double>()[k];
    EXPECT_NEAR(g[k], std::cos(v) * v + std::sin(v), 1e-12);
  }
}

//===----------------------------------------------------------------------===//
// Functional forms
//===----------------------------------------------------------------------===//

TEST(GradientTest, GradAndValueAndGrad) {
  auto f = [](Tensor x, Tensor y, bool twice) {
    Tensor v = reduce_sum(x * x * y);
    return twice ? v * 2.0 : v;
  };
  Tensor x = {1.0, 2.0}, y = {3.0, 4.0};
  EXPECT_EQ(fnc::grad(f)(x, y, false).to_vector<double>(),
            (std::vector<double>{6, 16}));
  std::vector<Tensor> both = fnc::grad(f, {1, 0})(x, y, true);
  EXPECT_EQ(both[0].to_vector<double>(), (std::vector<double>{2, 8}));
  EXPECT_EQ(both[1].to_vector<double>(), (std::vector<double>{12, 32}));
  auto [value, dx] = fnc::value_and_grad(f)(x, y, false);
  EXPECT_EQ(value.item<double>(), 19.0);
  EXPECT_EQ(dx.to_vector<double>(), (std::vector<double>{6, 16}));

  // Staged: one trace holds the forward and the backward.
  auto staged = fnc::function(fnc::value_and_grad(f, {0, 1}));
  auto [v2, grads] = staged(x, y, false);
  EXPECT_EQ(v2.item<double>(), 19.0);
  EXPECT_EQ(grads[1].to_vector<double>(), (std::vector<double>{1, 4}));
  EXPECT_EQ(staged.tracing_count(), 1);
  // A source f does not use gets zeros.
  auto g = fnc::grad([](Tensor a, Tensor b) { return reduce_sum(a); }, {1});
  EXPECT_EQ(g(x, y)[0].to_vector<double>(), (std::vector<double>{0, 0}));

  expectError([&] { fnc::grad(f, {2})(x, y, false); },
              ErrorKind::InvalidArgument,
              {"fnc::grad: argnum 2 is not a fnc::Tensor parameter"});
  expectError([&] { fnc::grad(f, {5})(x, y, false); },
              ErrorKind::InvalidArgument, {"argnum 5 is out of range"});
  expectError([&] { fnc::value_and_grad([](Tensor a) { return a * a; })(x); },
              ErrorKind::InvalidArgument,
              {"fnc::value_and_grad: the function must return a scalar",
               "got float64[2]"});
}

//===----------------------------------------------------------------------===//
// Staged control flow
//===----------------------------------------------------------------------===//

/// The gradient of sum(branchy(x, w)) with respect to x and w.
std::vector<Tensor> branchyGradient(const Tensor &x, const Tensor &w) {
  GradientTape tape;
  tape.watch(x);
  tape.watch(w);
  Tensor y = fnc::cond(
      reduce_sum(x) > 0.0, [&] { return sin(x) * w; },
      [&] { return x * x * 3.0; });
  Tensor z = fnc::switch_case(
      cast(reduce_sum(w) > 1.0, DType::i32), [&] { return y * y; },
      [&] { return y * w; });
  GradientOptions options;
  options.unconnected_gradients = UnconnectedGradients::Zero;
  return tape.gradient(reduce_sum(z), {x, w}, options);
}

TEST(GradientTest, StagedCondMatchesEager) {
  auto staged =
      fnc::function([](Tensor x, Tensor w) { return branchyGradient(x, w); });
  std::mt19937 rng(17);
  for (int trial = 0; trial < 6; ++trial) {
    Tensor x = randomF64(rng, {3}), w = randomF64(rng, {3});
    std::vector<Tensor> eager = branchyGradient(x, w);
    std::vector<Tensor> compiled = staged(x, w);
    for (size_t i = 0; i < 2; ++i) {
      std::vector<double> e = eager[i].to_vector<double>(),
                          c = compiled[i].to_vector<double>();
      for (size_t k = 0; k < e.size(); ++k)
        EXPECT_NEAR(e[k], c[k], 1e-12 * (1 + std::abs(e[k])))
            << "trial " << trial << " gradient " << i;
    }
  }
  EXPECT_EQ(staged.tracing_count(), 1);
}

/// Iterates x = sin(x) * w + x until the sum passes a threshold (a trip
/// count known only at run time), then differentiates with respect to x0
/// and w.
std::vector<Tensor> loopGradient(const Tensor &x0, const Tensor &w) {
  GradientTape tape;
  tape.watch(x0);
  tape.watch(w);
  auto [steps, x] = fnc::while_loop(
      [](const Tensor &i, const Tensor &v) {
        return logical_and(reduce_sum(v) < 4.0, i < 50);
      },
      [&](const Tensor &i, const Tensor &v) {
        return std::make_tuple(i + 1, sin(v) * w + v);
      },
      std::make_tuple(Tensor(0), x0));
  Tensor y = fnc::for_range(
      Tensor(0), Tensor(3), Tensor(1),
      [&](const Tensor &, const Tensor &v) { return v * w; }, x);
  return tape.gradient(reduce_sum(y * y), {x0, w});
}

TEST(GradientTest, StagedLoopsWithRunTimeTripCounts) {
  auto staged =
      fnc::function([](Tensor x0, Tensor w) { return loopGradient(x0, w); });
  std::mt19937 rng(23);
  for (int trial = 0; trial < 4; ++trial) {
    Tensor x0 = randomF64(rng, {3}, 0.2, 0.6),
           w = randomF64(rng, {3}, 0.5, 1.0);
    std::vector<Tensor> eager = loopGradient(x0, w);
    std::vector<Tensor> compiled = staged(x0, w);
    for (size_t i = 0; i < 2; ++i) {
      std::vector<double> e = eager[i].to_vector<double>(),
                          c = compiled[i].to_vector<double>();
      for (size_t k = 0; k < e.size(); ++k)
        EXPECT_NEAR(e[k], c[k], 1e-10 * (1 + std::abs(e[k])))
            << "trial " << trial << " gradient " << i;
    }
    // And against finite differences of the loop itself (the trip count
    // does not change under a small step).
    checkAgainstFiniteDifferences(
        "staged loop",
        [](const std::vector<Tensor> &v) {
          auto [steps, x] = fnc::while_loop(
              [](const Tensor &i, const Tensor &u) {
                return logical_and(reduce_sum(u) < 4.0, i < 50);
              },
              [&](const Tensor &i, const Tensor &u) {
                return std::make_tuple(i + 1, sin(u) * v[1] + u);
              },
              std::make_tuple(Tensor(0), v[0]));
          return x * x;
        },
        {x0, w}, rng, 1e-5);
  }
  EXPECT_EQ(staged.tracing_count(), 1);
}

TEST(GradientTest, LoopsWithoutHistorySayWhy) {
  // Shape invariants with unknown dims: no history to walk back, so the
  // backward recomputes each iteration's value (it was an error). Six
  // doublings take [1, 2] past a sum of 100.
  auto f = fnc::function([](Tensor x) {
    GradientTape tape;
    tape.watch(x);
    LoopOptions options;
    options.shape_invariants = {{kUnknownDim}};
    Tensor y =
        fnc::while_loop([](const Tensor &v) { return reduce_sum(v) < 100.f; },
                        [](const Tensor &v) { return v * 2.f; }, x, options);
    return tape.gradient(reduce_sum(y), x);
  });
  EXPECT_EQ(f(Tensor{1.f, 2.f}).to_vector<float>(),
            (std::vector<float>{64.f, 64.f}));
  // A body with side effects is differentiated from its record: the
  // gradient does not run them again.
  Variable steps(Tensor(0), "steps");
  auto effects = fnc::function([&](Tensor x) {
    GradientTape tape;
    tape.watch(x);
    Tensor y = fnc::for_range(
        Tensor(0), Tensor(3), Tensor(1),
        [&](const Tensor &, const Tensor &v) {
          steps.assign_add(1);
          return v * 2.f;
        },
        x);
    return tape.gradient(reduce_sum(y), x);
  });
  EXPECT_EQ(effects(Tensor{1.f}).to_vector<float>(), std::vector<float>{8.f});
  EXPECT_EQ(steps.read_value().item<int32_t>(), 3);
  // A body that reads what it updates keeps the values it read, one row
  // per iteration, as it keeps its random draws.
  Variable acc(Tensor(1.f), "acc");
  auto readsUpdated = fnc::function([&](Tensor x) {
    GradientTape tape;
    tape.watch(x);
    Tensor y = fnc::for_range(
        Tensor(0), Tensor(3), Tensor(1),
        [&](const Tensor &, const Tensor &v) {
          acc.assign_add(1.f);
          return v * acc.read_value();
        },
        x);
    return tape.gradient(reduce_sum(y), x);
  });
  EXPECT_EQ(readsUpdated(Tensor{1.f}).to_vector<float>(),
            std::vector<float>{2.f * 3.f * 4.f});
  // And so does a read, in a cond nested in the body, of a variable the
  // body updates after the cond: the cond reads it as it was before it (its
  // snapshot, one row per iteration).
  auto readsUpdatedElsewhere = fnc::function([&](Tensor x) {
    GradientTape tape;
    tape.watch(x);
    Tensor y = fnc::for_range(
        Tensor(0), Tensor(3), Tensor(1),
        [&](const Tensor &, const Tensor &v) {
          Tensor next = fnc::cond(
              reduce_sum(v) > 0.f, [&] { return v * acc.read_value(); },
              [&] { return v; });
          acc.assign_add(1.f);
          return next;
        },
        x);
    return tape.gradient(reduce_sum(y), x);
  });
  float a = acc.read_value().item<float>();
  EXPECT_EQ(readsUpdatedElsewhere(Tensor{1.f}).to_vector<float>(),
            std::vector<float>{a * (a + 1.f) * (a + 2.f)});
  // Random numbers drawn inside a loop whose shapes change: it keeps them
  // as flat histories (they may change shape too), as its variables (it
  // was an error). y doubles its length each iteration, v -> [v u, v]:
  // sum(y) = x (1 + u0)(1 + u1)(1 + u2), so the gradient is sum(y) / x,
  // with the tape inside and over a staged call (which stays compiled:
  // the body runs only to trace).
  int bodyCalls = 0;
  auto grown = [&](const Tensor &x) {
    LoopOptions grows;
    grows.shape_invariants = {{}, {kUnknownDim}};
    return std::get<1>(fnc::while_loop(
        [](const Tensor &i, const Tensor &) { return i < 3; },
        [&](const Tensor &i, const Tensor &v) {
          ++bodyCalls;
          return std::make_tuple(
              i + 1, concat({v * fnc::random_uniform({}, 1.f, 2.f), v}, 0));
        },
        std::make_tuple(Tensor(0), x), grows));
  };
  auto random = fnc::function([&](Tensor x) {
    GradientTape tape;
    tape.watch(x);
    Tensor sum = reduce_sum(grown(x));
    return std::make_tuple(sum, tape.gradient(sum, x));
  });
  Tensor x{2.f};
  auto [sum, gradient] = random(x);
  EXPECT_NEAR(gradient.item<float>(), sum.item<float>() / 2.f, 1e-5);
  EXPECT_GT(sum.item<float>(), 2.f * 8.f);
  auto staged = fnc::function([&](Tensor x) { return reduce_sum(grown(x)); });
  for (int round = 0; round < 2; ++round) {
    GradientTape tape;
    tape.watch(x);
    Tensor y = staged(x);
    EXPECT_NEAR(tape.gradient(y, x).item<float>(), y.item<float>() / 2.f,
                1e-5);
    if (round == 0)
      bodyCalls = 0;
  }
  EXPECT_EQ(bodyCalls, 0) << "the callable ran again";
  // A loaded function, which has no callable, and a concrete function
  // (they said so).
  std::string path = ::testing::TempDir() + "grown-by-random.mlir";
  save(path, staged);
  LoadedFunction loaded = load(path);
  std::remove(path.c_str());
  ConcreteFunction concrete =
      staged.get_concrete_function(TensorSpec({1}, DType::f32));
  for (int way = 0; way < 2; ++way) {
    GradientTape tape;
    tape.watch(x);
    Tensor y = way == 0 ? loaded(x)[0] : concrete(x)[0];
    EXPECT_NEAR(tape.gradient(y, x).item<float>(), y.item<float>() / 2.f,
                1e-5);
  }
  // A loop whose condition draws keeps its trip count (a replay would
  // draw other numbers and count other trips; it was an error), and its
  // body's draws: y = x u0 u1 ... 2^k, so the gradient is y / x, with the
  // tape inside, over a staged call (which stays compiled: the callables
  // run only to trace) and over a loaded function.
  int conditionCalls = 0;
  auto drawing = [&](const Tensor &x) {
    return fnc::while_loop(
        [&](const Tensor &v) {
          ++conditionCalls;
          return reduce_sum(v) * fnc::random_uniform({}, 1.f, 2.f) < 100.f;
        },
        [&](const Tensor &v) {
          return v * 2.f * fnc::random_uniform({}, 1.f, 1.5f);
        },
        x);
  };
  auto drawingCondition = fnc::function([&](Tensor x) {
    GradientTape tape;
    tape.watch(x);
    Tensor y = reduce_sum(drawing(x));
    return std::make_tuple(y, tape.gradient(y, x));
  });
  {
    auto [y, dx] = drawingCondition(Tensor{1.f});
    EXPECT_NEAR(dx.item<float>(), y.item<float>(), 1e-4);
    EXPECT_GT(y.item<float>(), 100.f / 2.f);
  }
  auto stagedDrawing =
      fnc::function([&](Tensor x) { return reduce_sum(drawing(x)); });
  for (int round = 0; round < 3; ++round) {
    GradientTape tape;
    tape.watch(x);
    Tensor y = round < 2 ? stagedDrawing(x) : Tensor();
    if (round == 2) {
      std::string drawnPath = ::testing::TempDir() + "drawing-condition.mlir";
      save(drawnPath, stagedDrawing);
      LoadedFunction drawnLoaded = load(drawnPath);
      std::remove(drawnPath.c_str());
      y = drawnLoaded(x)[0];
    }
    EXPECT_NEAR(tape.gradient(y, x).item<float>(), y.item<float>() / 2.f,
                1e-4 * y.item<float>());
    if (round == 0)
      conditionCalls = 0;
  }
  EXPECT_EQ(conditionCalls, 0) << "the callable ran again";
  // A loop the gradient does not reach is fine.
  auto g = fnc::function([](Tensor x) {
    GradientTape tape;
    tape.watch(x);
    Tensor n = fnc::for_range(
        Tensor(0), Tensor(3), Tensor(1),
        [](const Tensor &, const Tensor &v) { return v + 1.f; },
        fnc::zeros({}));
    return tape.gradient(reduce_sum(x * x) + n, x);
  });
  EXPECT_EQ(g(Tensor{1.f, 2.f}).to_vector<float>(),
            (std::vector<float>{2.f, 4.f}));
}

TEST(GradientTest, StagedTensorArrayWritesAtRunTimeIndices) {
  auto f = [](Tensor x, Tensor i) {
    GradientTape tape;
    tape.watch(x);
    TensorArray ta(DType::f64, 3, {2});
    ta = ta.write(i, x * x).write(Tensor(2), x);
    Tensor y = reduce_sum(ta.stack() * Tensor({1.0, 2.0}));
    return tape.gradient(y, x);
  };
  auto staged = fnc::function(f);
  Tensor x = {0.5, -1.5};
  for (int i : {0, 1}) {
    std::vector<double> e = f(x, Tensor(i)).to_vector<double>(),
                        c = staged(x, Tensor(i)).to_vector<double>();
    // d/dx of sum((x*x + x) * [1, 2]) = (2x + 1) * [1, 2]
    EXPECT_EQ(e, (std::vector<double>{2.0, -4.0}));
    EXPECT_EQ(c, e);
  }
}

//===----------------------------------------------------------------------===//
// Random programs; second order
//===----------------------------------------------------------------------===//

/// The gradient of sum(run(p, xs)) with respect to every input.
std::vector<Tensor> programGradient(const fnc::testing::Program &p,
                                    const std::vector<Tensor> &xs) {
  GradientTape tape;
  tape.watch(xs);
  Tensor y = reduce_sum(fnc::testing::run(p, xs));
  GradientOptions options;
  options.unconnected_gradients = UnconnectedGradients::Zero;
  return tape.gradient(y, xs, options);
}

TEST(GradientTest, RandomProgramsEagerTapeEqualsStagedTape) {
  std::mt19937 rng(2024);
  int checked = 0;
  for (int trial = 0; trial < 60 && checked < 25; ++trial) {
    fnc::testing::Program p = fnc::testing::randomProgram(rng);
    if (p.dtype == DType::i32)
      continue; // integers carry no gradient
    std::vector<Tensor> xs;
    for (const Shape &s : p.inputShapes)
      xs.push_back(fnc::testing::randomTensor(rng, p.dtype, s));
    std::vector<Tensor> eager;
    try {
      eager = programGradient(p, xs);
    } catch (const Error &) {
      continue; // e.g. shapes that stopped broadcasting after a reduction
    }
    auto staged = fnc::function(
        [&p](std::vector<Tensor> in) { return programGradient(p, in); });
    std::vector<Tensor> got = staged(xs);
    ASSERT_EQ(got.size(), eager.size());
    double tol = p.dtype == DType::f32 ? 1e-4 : 1e-10;
    for (size_t i = 0; i < got.size(); ++i) {
      ASSERT_EQ(got[i].shape(), eager[i].shape());
      std::vector<double> e = cast(eager[i], DType::f64).to_vector<double>(),
                          g = cast(got[i], DType::f64).to_vector<double>();
      for (size_t k = 0; k < e.size(); ++k)
        EXPECT_NEAR(g[k], e[k], tol * (1 + std::abs(e[k])))
            << "trial " << trial << " input " << i << " element " << k;
    }
    ++checked;
  }
  EXPECT_GE(checked, 10);
}

/// The Hessian-vector product H v of f at x by nested tapes.
Tensor hessianVectorProduct(const Fn &f, const std::vector<Tensor> &x, size_t i,
                            const Tensor &v) {
  GradientTape outer;
  outer.watch(x[i]);
  Tensor g;
  {
    GradientTape inner;
    inner.watch(x[i]);
    g = inner.gradient(f(x), x[i]);
  }
  return outer.gradient(reduce_sum(g * v), x[i]);
}

/// (grad(x + h v) - grad(x - h v)) / 2h for input i of f.
std::vector<double> gradientDifference(const Fn &f,
                                       const std::vector<Tensor> &x, size_t i,
                                       const Tensor &v, double h) {
  auto gradAt = [&](double sign) {
    std::vector<Tensor> moved = x;
    moved[i] = x[i] + v * (sign * h);
    GradientTape t;
    t.watch(moved[i]);
    return t.gradient(f(moved), moved[i]).to_vector<double>();
  };
  std::vector<double> plus = gradAt(1), minus = gradAt(-1), out;
  for (size_t k = 0; k < plus.size(); ++k)
    out.push_back((plus[k] - minus[k]) / (2 * h));
  return out;
}

TEST(GradientTest, HessianVectorProductThroughConvAndSlice) {
  // Second order through the rules of conv2d, slice and pad (each other's
  // gradients).
  std::mt19937 rng(37);
  Fn loss = [](const std::vector<Tensor> &w) {
    Tensor y = tanh(conv2d(w[0], w[1], {2, 1}, "SAME"));
    return reduce_mean(
        square(slice(y, {0, 1, 0, 0}, {-1, -1, 2, -1}, {1, 1, 2, 1})));
  };
  std::vector<Tensor> w = {randomF64(rng, {2, 5, 4, 2}),
                           randomF64(rng, {3, 2, 2, 3}, -0.5, 0.5)};
  for (size_t i = 0; i < w.size(); ++i) {
    Tensor v = randomF64(rng, w[i].shape());
    std::vector<double> hv =
        hessianVectorProduct(loss, w, i, v).to_vector<double>();
    std::vector<double> numeric = gradientDifference(loss, w, i, v, 1e-5);
    ASSERT_EQ(hv.size(), numeric.size());
    for (size_t k = 0; k < hv.size(); ++k)
      EXPECT_NEAR(hv[k], numeric[k], 1e-6 * (1 + std::abs(numeric[k])))
          << "input " << i << " element " << k;
  }
}

TEST(GradientTest, HessianVectorProductOfAnMlpMatchesFiniteDifferences) {
  std::mt19937 rng(31);
  Tensor data = randomF64(rng, {5, 3}), labels = randomF64(rng, {5, 2});
  Fn loss = [&](const std::vector<Tensor> &w) {
    Tensor h = tanh(matmul(data, w[0]) + w[1]);
    return reduce_mean(square(matmul(h, w[2]) - labels));
  };
  std::vector<Tensor> w = {randomF64(rng, {3, 4}), randomF64(rng, {4}),
                           randomF64(rng, {4, 2})};
  for (size_t i = 0; i < w.size(); ++i) {
    Tensor v = randomF64(rng, w[i].shape());
    std::vector<double> hv =
        hessianVectorProduct(loss, w, i, v).to_vector<double>();
    // (grad(w + h v) - grad(w - h v)) / 2h
    const double h = 1e-5;
    auto gradAt = [&](double sign) {
      std::vector<Tensor> moved = w;
      moved[i] = w[i] + v * (sign * h);
      GradientTape t;
      t.watch(moved[i]);
      return t.gradient(loss(moved), moved[i]).to_vector<double>();
    };
    std::vector<double> plus = gradAt(1), minus = gradAt(-1);
    for (size_t k = 0; k < hv.size(); ++k) {
      double numeric = (plus[k] - minus[k]) / (2 * h);
      EXPECT_NEAR(hv[k], numeric, 1e-6 * (1 + std::abs(numeric)))
          << "weight " << i << " element " << k;
    }
  }
}

} // namespace
