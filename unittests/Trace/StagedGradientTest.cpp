//===- StagedGradientTest.cpp - A fnc::function called under a tape -------===//
//
// A staged function called eagerly under a GradientTape is one entry of the
// tape; its backward is a staged function of its own, traced once per
// concrete function and cached. The gradients must equal those of the same
// code run eagerly op by op (run_functions_eagerly), for arguments,
// captured tensors and variables, with several results, repeated
// arguments, unknown dims, nested tapes, and side effects (which fall back
// to eager execution).
//
//===----------------------------------------------------------------------===//

#include "Support/ExpectError.h"
#include "fnc/fnc.h"

#include <gtest/gtest.h>

#include <random>

using namespace fnc;

namespace {

Tensor randomF64(std::mt19937 &rng, const Shape &shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  std::uniform_real_distribution<double> dist(-1.5, 1.5);
  std::vector<double> v(n);
  for (double &x : v)
    x = dist(rng);
  return Tensor(v, shape);
}

void expectClose(const Tensor &a, const Tensor &b, double tol = 1e-10) {
  ASSERT_TRUE(a.defined());
  ASSERT_TRUE(b.defined());
  ASSERT_EQ(a.shape(), b.shape());
  std::vector<double> x = a.to_vector<double>(), y = b.to_vector<double>();
  for (size_t i = 0; i < x.size(); ++i)
    EXPECT_NEAR(x[i], y[i], tol * (1 + std::abs(y[i]))) << "at " << i;
}

/// Eager (op by op) execution of fnc::function calls for its scope.
struct EagerFunctions {
  EagerFunctions() { run_functions_eagerly(true); }
  ~EagerFunctions() { run_functions_eagerly(false); }
};

TEST(StagedGradientTest, OneEntryMatchesEagerForArgsCapturesAndVariables) {
  std::mt19937 rng(1);
  Tensor w = randomF64(rng, {3, 4});    // captured as a constant (small)
  Tensor big = randomF64(rng, {64, 4}); // captured as a hidden argument
  Variable v(randomF64(rng, {4}), "v");
  Variable frozen(randomF64(rng, {4}), "frozen");
  auto body = [&](Tensor x, Tensor scale) {
    Tensor h = tanh(matmul(x, w) + v) * scale;
    Tensor extra = reduce_sum(big * h, {1}); // big is a hidden argument
    return std::make_tuple(reduce_sum(sin(h) * frozen), extra);
  };
  auto f = function(body);
  auto gradientsOf = [&](auto &f, const Tensor &x, const Tensor &scale) {
    GradientTape tape;
    tape.watch(x);
    tape.watch(w);
    tape.watch(big);
    auto [y, extra] = f(x, scale);
    Tensor loss = y + reduce_sum(extra) * 0.5;
    return tape.gradient(loss, std::make_tuple(x, w, big, v));
  };
  auto gradients = [&](const Tensor &x, const Tensor &scale) {
    return gradientsOf(f, x, scale);
  };
  for (int call = 0; call < 3; ++call) {
    Tensor x = randomF64(rng, {64, 3}), scale = randomF64(rng, {});
    auto staged = gradients(x, scale);
    EagerFunctions eager;
    auto reference = gradients(x, scale);
    SCOPED_TRACE(call);
    expectClose(std::get<0>(staged), std::get<0>(reference));
    expectClose(std::get<1>(staged), std::get<1>(reference));
    expectClose(std::get<2>(staged), std::get<2>(reference));
    expectClose(std::get<3>(staged), std::get<3>(reference));
  }
  // One forward and one backward trace, and the backward is real IR.
  EXPECT_EQ(f.tracing_count(), 1);
  std::vector<ConcreteFunction> backward = f.backward_concrete_functions();
  ASSERT_EQ(backward.size(), 1u);
  std::string ir = backward[0].ir();
  EXPECT_NE(ir.find("fnc.cos"), std::string::npos) << ir; // d sin
  EXPECT_NE(ir.find("fnc.matmul"), std::string::npos) << ir;
  // x, scale, the matmul's result kept by the forward (a residual), 2
  // gradients.
  EXPECT_EQ(backward[0].input_specs().size(), 5u);
  // x, w, big, v and frozen (a tape watches the variables a call reads).
  EXPECT_EQ(backward[0].output_specs().size(), 5u);

  // recompute_gradients: the backward recomputes the matmul instead, with
  // the same gradients.
  FunctionOptions recompute;
  recompute.recompute_gradients = true;
  auto r = function(body, recompute);
  Tensor x = randomF64(rng, {64, 3}), scale = randomF64(rng, {});
  auto kept = gradientsOf(f, x, scale);
  auto recomputed = gradientsOf(r, x, scale);
  expectClose(std::get<0>(recomputed), std::get<0>(kept));
  expectClose(std::get<3>(recomputed), std::get<3>(kept));
  ASSERT_EQ(r.backward_concrete_functions().size(), 1u);
  EXPECT_EQ(r.backward_concrete_functions()[0].input_specs().size(), 4u);
}

TEST(StagedGradientTest, UnwatchedCallsAddNoEntryAndNoBackward) {
  std::mt19937 rng(2);
  auto f = function([](Tensor x) { return exp(x); });
  Tensor x = randomF64(rng, {5});
  GradientTape tape;
  Tensor y = f(x); // x is not watched: a plain call
  EXPECT_FALSE(tape.gradient(reduce_sum(y), x).defined());
  EXPECT_TRUE(f.backward_concrete_functions().empty());
}

TEST(StagedGradientTest, RepeatedArgumentsAndUnknownDims) {
  std::mt19937 rng(3);
  FunctionOptions options;
  options.input_signature = {TensorSpec({-1, 2}, DType::f64),
                             TensorSpec({-1, 2}, DType::f64)};
  auto f = function([](Tensor a, Tensor b) { return reduce_sum(a * b * a); },
                    options);
  for (int64_t n : {3, 7, 4}) {
    Tensor x = randomF64(rng, {n, 2});
    GradientTape tape;
    tape.watch(x);
    Tensor y = f(x, x); // x^3 summed: 3 x^2
    expectClose(tape.gradient(y, x), x * x * 3.0);
  }
  EXPECT_EQ(f.tracing_count(), 1);
  EXPECT_EQ(f.backward_concrete_functions().size(), 1u);
}

TEST(StagedGradientTest, NestedTapesGiveSecondDerivatives) {
  auto cube = function([](Tensor x) { return x * x * x; });
  Tensor x = Tensor({0.5, -2.0, 3.0});
  GradientTape outer;
  outer.watch(x);
  Tensor dy;
  {
    GradientTape inner;
    inner.watch(x);
    Tensor y = cube(x);
    dy = inner.gradient(y, x); // 3x^2, through the staged backward
  }
  expectClose(dy, x * x * 3.0);
  expectClose(outer.gradient(dy, x), x * 6.0); // 6x
}

TEST(StagedGradientTest, SideEffectsRunOnceAndStayCompiled) {
  Variable calls(Tensor(0.0), "calls");
  Variable w(Tensor({1.0, 2.0}), "w");
  auto f = function([&](Tensor x) {
    calls.assign_add(1.0);
    return reduce_sum(x * w);
  });
  Tensor x = Tensor({3.0, 4.0});
  GradientTape tape;
  tape.watch(x);
  Tensor y = f(x);
  auto g = tape.gradient(y, std::make_tuple(x, w));
  expectClose(std::get<0>(g), Tensor({1.0, 2.0}));
  expectClose(std::get<1>(g), x);
  EXPECT_EQ(calls.read_value().item<double>(), 1.0); // not repeated
  EXPECT_EQ(f.backward_concrete_functions().size(), 1u);
}

// The backward of a forward with random draws and reads of the variables
// it updates uses the forward's values (residuals), not new ones.
TEST(StagedGradientTest, RandomDrawsAndUpdatedReadsAreTheForwards) {
  Variable scale(Tensor(1.0), "scale");
  auto f = function([&](Tensor x) {
    Tensor r = random_uniform({3}, 0.0, 1.0, DType::f64);
    scale.assign_add(1.0);
    Tensor y = reduce_sum(x * r * scale.read_value());
    return std::make_tuple(y, r);
  });
  Tensor x = Tensor({3.0, 4.0, 5.0});
  for (int round = 1; round <= 3; ++round) {
    GradientTape tape;
    tape.watch(x);
    auto [y, r] = f(x);
    scale.assign(Tensor(100.0)); // after the call: not what it read
    Tensor g = tape.gradient(y, x);
    expectClose(g, r * static_cast<double>(round + 1));
    scale.assign(Tensor(static_cast<double>(round + 1)));
  }
  EXPECT_EQ(f.backward_concrete_functions().size(), 1u);
}

TEST(StagedGradientTest, IntegerResultsAndUnconnectedInputs) {
  auto f = function([](Tensor x, Tensor unused) {
    return std::make_tuple(reduce_sum(square(x)), argmax(x, 0));
  });
  Tensor x = Tensor({1.0, -3.0}), u = Tensor({2.0});
  GradientTape tape(/*persistent=*/true);
  tape.watch(x);
  tape.watch(u);
  auto [y, index] = f(x, u);
  EXPECT_EQ(index.item<int64_t>(), 0);
  expectClose(tape.gradient(y, x), x * 2.0);
  EXPECT_FALSE(tape.gradient(y, u).defined());
  GradientOptions zeros;
  zeros.unconnected_gradients = UnconnectedGradients::Zero;
  expectClose(tape.gradient(y, u, zeros), Tensor({0.0}));
}

} // namespace
