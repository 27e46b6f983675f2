//===- RecordedGradientTest.cpp - Gradients from the recorded program -----===//
//
// The gradients of staged conds, loops and functions come from what was
// recorded, never from calling the user's callables again: variables read
// inside a body get their gradients, a body that captures by reference is
// never called after its frame returned, and a value a branch or body returns
// unchanged carries its gradient through. Each test is a defect the old
// design had (docs/Autodiff.md), checked against eager execution and
// central finite differences in float64.
//
//===----------------------------------------------------------------------===//

#include "FiniteDifferences.h"
#include "Support/ExpectError.h"
#include "fnc/API/OpSupport.h"
#include "fnc/fnc.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <random>

using namespace fnc;

namespace {

void expectNear(const Tensor &a, const std::vector<double> &b,
                double tol = 1e-9) {
  ASSERT_TRUE(a.defined());
  std::vector<double> x = cast(a, DType::f64).to_vector<double>();
  ASSERT_EQ(x.size(), b.size());
  for (size_t i = 0; i < x.size(); ++i)
    EXPECT_NEAR(x[i], b[i], tol * (1 + std::abs(b[i]))) << "element " << i;
}

/// Central finite differences of the scalar f at x (float64).
std::vector<double> numericGradient(const std::function<double(Tensor)> &f,
                                    const Tensor &x) {
  Tensor at = x;
  return fnc::testing::centralDifferences(
      x, [&](const Tensor &t) { at = t; }, [&] { return f(at); });
}

} // namespace

// The first example: w holds 2, the body is acc * w, three times
// from 1: d/dw w^3 = 12 (it was 0, silently, when staged).
TEST(RecordedGradientTest, VariableReadInsideLoopBodies) {
  Variable w(Tensor(2.0), "w");
  auto loop = [&] {
    GradientTape tape;
    Tensor acc = fnc::for_range(
        Tensor(0), Tensor(3), Tensor(1),
        [&](const Tensor &, const Tensor &a) { return a * w.read_value(); },
        Tensor(1.0));
    return tape.gradient(reduce_sum(acc), w);
  };
  auto whileForm = [&] {
    GradientTape tape;
    auto [i, acc] = fnc::while_loop(
        [](const Tensor &i, const Tensor &) { return i < 3; },
        [&](const Tensor &i, const Tensor &a) {
          return std::make_tuple(i + 1, a * w);
        },
        std::make_tuple(Tensor(0), Tensor(1.0)));
    (void)i;
    return tape.gradient(acc, w);
  };
  expectNear(loop(), {12});
  expectNear(fnc::function(loop)(), {12});
  expectNear(whileForm(), {12});
  expectNear(fnc::function(whileForm)(), {12});
}

TEST(RecordedGradientTest, VariableReadInsideCondBranches) {
  Variable w(Tensor({1.5, -2.0}), "w");
  auto f = [&](Tensor x) {
    GradientTape tape;
    Tensor y = fnc::cond(
        reduce_sum(x) > 0.0, [&] { return x * w * w; },
        [&] { return x + w; });
    return tape.gradient(reduce_sum(y), w);
  };
  auto staged = fnc::function(f);
  Tensor pos({1.0, 2.0}), neg({-1.0, -2.0});
  expectNear(staged(pos), {2 * 1.0 * 1.5, 2 * 2.0 * -2.0});
  expectNear(staged(neg), {1, 1});
  expectNear(f(pos), staged(pos).to_vector<double>());
}

// A branch or body that returns a watched value from outside unchanged:
// its gradient is 1 (it was 0).
TEST(RecordedGradientTest, CapturedValueReturnedUnchanged) {
  auto branch = fnc::function([](Tensor x, Tensor p) {
    GradientTape tape;
    tape.watch(x);
    Tensor y = fnc::cond(
        reduce_sum(p) > 0.0, [&] { return x; }, [&] { return x * 3.0; });
    return tape.gradient(reduce_sum(y), x);
  });
  expectNear(branch(Tensor({1.0, 2.0}), Tensor(1.0)), {1, 1});
  expectNear(branch(Tensor({1.0, 2.0}), Tensor(-1.0)), {3, 3});
  auto body = fnc::function([](Tensor x) {
    GradientTape tape;
    tape.watch(x);
    auto [a, b] = fnc::for_range(
        Tensor(0), Tensor(2), Tensor(1),
        [&](const Tensor &, const Tensor &a, const Tensor &) {
          return std::make_tuple(a * 2.0, x);
        },
        std::make_tuple(Tensor({1.0, 1.0}), Tensor({0.0, 0.0})));
    return tape.gradient(reduce_sum(a) + reduce_sum(b * b), x);
  });
  Tensor x({0.5, -1.0});
  expectNear(body(x), {1.0, -2.0});
}

// A body that captures the staged callable's parameters by reference,
// differentiated from outside: the backward replays the record, so it
// neither calls the body after the frame returned (use after free) nor
// calls it at all after the trace.
TEST(RecordedGradientTest, CallablesRunOnlyWhileTracing) {
  int bodyCalls = 0, functionCalls = 0;
  Variable w(Tensor({0.5, -0.25}), "w");
  auto step = fnc::function([&](Tensor x, Tensor h) {
    ++functionCalls;
    return fnc::for_range(
        Tensor(0), Tensor(4), Tensor(1),
        [&](const Tensor &, const Tensor &s) {
          ++bodyCalls;
          return tanh(s * w + x); // x and w by reference
        },
        h);
  });
  std::function<double(Tensor)> loss = [&](Tensor x) {
    return reduce_sum(step(x, Tensor({0.1, 0.2}))).item<double>();
  };
  Tensor x({0.3, -0.7});
  for (int round = 0; round < 2; ++round) {
    GradientTape tape;
    tape.watch(x);
    Tensor y = reduce_sum(step(x, Tensor({0.1, 0.2})));
    std::vector<Tensor> g = tape.gradient(y, std::vector<Tensor>{x});
    run_functions_eagerly(true);
    std::vector<double> numeric = numericGradient(loss, x);
    run_functions_eagerly(false);
    expectNear(g[0], numeric, 1e-6);
  }
  int tracedBody = bodyCalls, tracedFunction = functionCalls;
  {
    GradientTape tape;
    tape.watch(x);
    Tensor y = reduce_sum(step(x, Tensor({0.1, 0.2})));
    (void)tape.gradient(y, x);
  }
  EXPECT_EQ(bodyCalls, tracedBody);
  EXPECT_EQ(functionCalls, tracedFunction);
}

// A loop whose variables change shape (declared by shape invariants with
// unknown dims): the TF1 idiom of growing the outputs with concat, and a
// state that alternates between two shapes. Their backward reads each
// iteration's variables from a flat history (appended in place by
// fnc.dynamic_update_slice, read back by fnc.dynamic_slice and
// fnc.reshape_to_shape), with one unknown dim or two. It was an
// Unimplemented error, then O(T^2) replays of the body.
TEST(RecordedGradientTest, LoopsWhoseShapesChange) {
  Variable w(Tensor({0.5, -1.5}), "w");
  Shape invariant = {kUnknownDim, 2};
  auto grow = [&](Tensor x, Tensor n) {
    GradientTape tape(/*persistent=*/true);
    tape.watch(x);
    LoopOptions options;
    options.shape_invariants = {Shape{2}, invariant};
    auto [h, outs] = fnc::while_loop(
        [&](const Tensor &, const Tensor &o) {
          return shape(o, DType::i64)[0] < n;
        },
        [&](const Tensor &h, const Tensor &o) {
          Tensor next = tanh(h * w + x);
          return std::make_tuple(
              next, concat({o, reshape(next, {1, 2})}, 0));
        },
        std::make_tuple(x, reshape(x, {1, 2})), options);
    Tensor loss = reduce_sum(outs * outs) + reduce_sum(h);
    std::vector<Tensor> g = tape.gradient(loss, std::vector<Tensor>{x});
    return std::make_tuple(g[0], tape.gradient(loss, w));
  };
  Tensor x({0.3, -0.7}), n(int64_t{4});
  auto [ex, ew] = grow(x, n);
  auto staged = fnc::function(grow);
  auto [sx, sw] = staged(x, n);
  expectNear(sx, ex.to_vector<double>());
  expectNear(sw, ew.to_vector<double>());
  // Two unknown dims; one trip (no rows but the first); many.
  invariant = {kUnknownDim, kUnknownDim};
  auto twoUnknown = fnc::function(grow);
  for (int64_t trips : {4, 1, 40}) {
    Tensor t(trips);
    auto [rx, rw] = twoUnknown(x, t);
    auto [fx, fw] = staged(x, t);
    invariant = {kUnknownDim, 2};
    auto [eagerX, eagerW] = grow(x, t);
    invariant = {kUnknownDim, kUnknownDim};
    for (const Tensor &g : {rx, fx})
      expectNear(g, eagerX.to_vector<double>());
    // Eagerly, a loop that does not run leaves w unconnected (no gradient).
    std::vector<double> dw =
        eagerW.defined() ? eagerW.to_vector<double>() : std::vector<double>(2);
    for (const Tensor &g : {rw, fw})
      expectNear(g, dw);
  }
  // Against finite differences (eager forward, float64).
  std::function<double(Tensor)> loss = [&](Tensor at) {
    Tensor h = at, outs = reshape(at, {1, 2});
    for (int i = 1; i < 4; ++i) {
      h = tanh(h * w + at);
      outs = concat({outs, reshape(h, {1, 2})}, 0);
    }
    return (reduce_sum(outs * outs) + reduce_sum(h)).item<double>();
  };
  expectNear(sx, numericGradient(loss, x), 1e-6);

  // Two values swapped each iteration: shapes [2] and [3] alternate.
  auto swap = fnc::function([](Tensor a, Tensor b) {
    GradientTape tape;
    tape.watch({a, b});
    LoopOptions options;
    options.shape_invariants = {Shape{kUnknownDim}, Shape{kUnknownDim}};
    auto [u, v] = fnc::for_range(
        Tensor(0), Tensor(3), Tensor(1),
        [](const Tensor &, const Tensor &u, const Tensor &v) {
          return std::make_tuple(v * 2.0, exp(u));
        },
        std::make_tuple(a, b), options);
    return tape.gradient(reduce_sum(u) + reduce_sum(v * v),
                         std::vector<Tensor>{a, b});
  });
  Tensor a({0.1, 0.2}), b({-0.3, 0.4, 0.5});
  // u3 = 2 exp(2 b), v3 = exp(2 exp(a)): d/db = 4 exp(2b), d/da = 2 v3^2 * 2 exp(a).
  std::vector<Tensor> g = swap(a, b);
  std::vector<double> da, db;
  for (double ai : a.to_vector<double>()) {
    double v3 = std::exp(2 * std::exp(ai));
    da.push_back(2 * v3 * v3 * 2 * std::exp(ai));
  }
  for (double bi : b.to_vector<double>())
    db.push_back(4 * std::exp(2 * bi));
  expectNear(g[0], da);
  expectNear(g[1], db);
}

// fnc.dynamic_update_slice (the flat history's append): eagerly, staged
// (compiled and on the graph executor, with the start and the update's
// size read at run time) and its gradient against finite differences; a
// range outside the dim is an error every way.
TEST(RecordedGradientTest, DynamicUpdateSliceEagerStagedAndItsGradient) {
  Tensor x({{1.0, 2.0, 3.0}, {4.0, 5.0, 6.0}}), u({{-1.0}, {-2.0}});
  auto write = [](const Tensor &a, const Tensor &at, const Tensor &b) {
    return api::dynamicUpdateSlice(a, 1, at, b);
  };
  Tensor eager = write(x, Tensor(int64_t{1}), u);
  expectNear(eager, {1, -1, 3, 4, -2, 6});
  auto loss = [&](const Tensor &a, const Tensor &at, const Tensor &b) {
    return reduce_sum(sin(write(a * a, at, b * 3.0)));
  };
  std::vector<TensorSpec> specs = {TensorSpec({2, kUnknownDim}, DType::f64),
                                   TensorSpec({}, DType::i64),
                                   TensorSpec({2, kUnknownDim}, DType::f64)};
  for (bool compiled : {true, false}) {
    FunctionOptions options;
    options.jit_compile = compiled;
    options.input_signature = specs;
    auto staged = fnc::function(write, options);
    expectNear(staged(x, Tensor(int64_t{1}), u), {1, -1, 3, 4, -2, 6});
    fnc::testing::expectError(
        [&] {
          staged(x, Tensor(int64_t{2}), Tensor({{1.0, 2.0}, {3.0, 4.0}}));
        },
        ErrorKind::InvalidArgument, {"a dimension of size 3"});
    auto gradient = fnc::function(
        [&](Tensor a, Tensor at, Tensor b) {
          GradientTape tape;
          tape.watch({a, b});
          return tape.gradient(loss(a, at, b), std::vector<Tensor>{a, b});
        },
        options);
    std::vector<Tensor> g = gradient(x, Tensor(int64_t{1}), u);
    std::function<double(Tensor)> ofA = [&](Tensor a) -> double {
      return loss(a, Tensor(int64_t{1}), u).item<double>();
    };
    std::function<double(Tensor)> ofB = [&](Tensor b) -> double {
      return loss(x, Tensor(int64_t{1}), b).item<double>();
    };
    expectNear(g[0], numericGradient(ofA, x), 1e-6);
    expectNear(g[1], numericGradient(ofB, u), 1e-6);
  }
  fnc::testing::expectError(
      [&] { write(x, Tensor(int64_t{3}), u); }, ErrorKind::OutOfRange,
      {"the range [3, 3 + 1) is outside a dimension of size 3"});
}

// Values that lead only to a branch not taken, or to a loop variable the
// loop drops, get zero gradients staged; the ops before them must keep
// those zero where their derivative is not finite (0 * inf is NaN).
// Eagerly they are on no path and the gradient is exact. Both were NaN.
TEST(RecordedGradientTest, ZeroGradientsStayZero) {
  auto branch = [](Tensor x, Tensor p) {
    GradientTape tape;
    tape.watch(x);
    Tensor t = log(x); // d/dx = 1/x: inf at 0
    Tensor y = fnc::cond(
        p > 0.0f, [&] { return t * 2.0f; }, [&] { return x * 3.0f; });
    return tape.gradient(reduce_sum(y), x);
  };
  Tensor x({0.0f, 1.0f}), no(-1.0f);
  EXPECT_EQ(branch(x, no).to_vector<float>(), (std::vector<float>{3, 3}));
  EXPECT_EQ(fnc::function(branch)(x, no).to_vector<float>(),
            (std::vector<float>{3, 3}));
  // (u, w) -> (w, u * u) three times from (a, a): u ends as a * a, while
  // the dropped w overflows to inf: its zero gradient meets 2u = inf.
  auto loop = [](Tensor a) {
    GradientTape tape;
    tape.watch(a);
    auto [u, w] = fnc::for_range(
        Tensor(0), Tensor(3), Tensor(1),
        [](const Tensor &, const Tensor &u, const Tensor &w) {
          return std::make_tuple(w, u * u);
        },
        std::make_tuple(a, a));
    (void)w;
    return tape.gradient(reduce_sum(u), a);
  };
  Tensor a(-1e30f);
  EXPECT_EQ(loop(a).item<float>(), -2e30f);
  EXPECT_EQ(fnc::function(loop)(a).item<float>(), -2e30f);
}

// A matmul whose result only a cond's other branch, or a loop that runs no
// iteration, uses: eagerly it is not differentiated; staged its gradient is
// zero, which must not turn into NaN times the inf of its other factor (the
// AgreementTest, seed 2026, found it).
TEST(RecordedGradientTest, ZeroGradientsThroughAMatmulWithAnInf) {
  const float inf = std::numeric_limits<float>::infinity();
  auto program = [inf](Tensor a, bool loop) {
    GradientTape tape;
    tape.watch(a);
    Tensor c = matmul(a, Tensor({{inf}, {1.0f}})); // [1, 1], inf
    Tensor y =
        loop ? fnc::for_range(
                   Tensor(0), Tensor(0), Tensor(1),
                   [&](const Tensor &, const Tensor &v) { return v + c; }, a)
             : fnc::cond(
                   reduce_sum(a) > 0.0f, [&] { return a * 2.0f; },
                   [&] { return a + c; });
    return tape.gradient(reduce_sum(y), a);
  };
  for (bool loop : {true, false}) {
    SCOPED_TRACE(loop ? "for_range of no iteration" : "cond");
    Tensor a({{1.0f, 2.0f}});
    std::vector<float> want = {loop ? 1.0f : 2.0f, loop ? 1.0f : 2.0f};
    EXPECT_EQ(program(a, loop).to_vector<float>(), want);
    EXPECT_EQ(fnc::function([&](Tensor x) { return program(x, loop); })(a)
                  .to_vector<float>(),
              want);
  }
}

// A value that a loop body or a cond branch uses only where no gradient
// flows (a select's predicate) has no gradient staged, as eagerly: the
// backward stops there instead of taking a zero back through the ops that
// computed it, where a conv2d of a NaN made NaN of it (AgreementTest, seed
// 2806, a for_range whose body captured a conv2d's result).
TEST(RecordedGradientTest, ValuesUsedWithoutAGradientHaveNone) {
  auto program = [](Tensor x, Tensor p, bool loop) {
    GradientTape tape;
    tape.watch(x);
    Tensor c = conv2d(reshape(x, {1, 1, 3, 1}), reshape(x, {1, 3, 1, 1}));
    auto positive = [&] { return greater(reduce_sum(c), 0.0f); };
    Tensor y =
        loop ? fnc::for_range(
                   Tensor(0), Tensor(2), Tensor(1),
                   [&](const Tensor &, const Tensor &v) {
                     return select(positive(), v * 2.0f, v);
                   },
                   x)
             : fnc::cond(
                   p > 0.0f, [&] { return select(positive(), x * 2.0f, x); },
                   [&] { return x * 3.0f; });
    return tape.gradient(reduce_sum(y), x);
  };
  const float nan = std::numeric_limits<float>::quiet_NaN();
  Tensor x({nan, 1.0f, 2.0f});
  for (bool loop : {true, false}) {
    SCOPED_TRACE(loop ? "for_range" : "cond");
    Tensor p(loop ? 1.0f : -1.0f);
    std::vector<float> want(3, loop ? 1.0f : 3.0f);
    EXPECT_EQ(program(x, p, loop).to_vector<float>(), want);
    EXPECT_EQ(fnc::function([&](Tensor a, Tensor q) {
                return program(a, q, loop);
              })(x, p)
                  .to_vector<float>(),
              want);
  }
}

// Variables read in a loop body of a function called under an outer tape.
TEST(RecordedGradientTest, OuterTapeOverVariablesInLoops) {
  Variable w(Tensor({0.5, -0.25}), "w");
  auto f = [&](Tensor x) {
    return fnc::for_range(
        Tensor(0), Tensor(3), Tensor(1),
        [&](const Tensor &, const Tensor &s) { return tanh(s * w) + x; }, x);
  };
  auto staged = fnc::function(f);
  Tensor x({0.3, -0.7});
  std::vector<Tensor> eager, compiled;
  {
    GradientTape tape;
    Tensor y = reduce_sum(f(x));
    eager = {tape.gradient(y, w)};
  }
  {
    GradientTape tape;
    Tensor y = reduce_sum(staged(x));
    compiled = {tape.gradient(y, w)};
  }
  expectNear(compiled[0], eager[0].to_vector<double>());
  EXPECT_NE(eager[0].to_vector<double>()[0], 0.0);
}

// Control flow nested two deep: a cond in a loop reading a variable, a
// loop in a cond, a loop in a loop; each against eager and finite
// differences.
TEST(RecordedGradientTest, NestedControlFlowMatchesFiniteDifferences) {
  Variable v(Tensor({0.7, -0.4, 0.2}), "v");
  auto program = [&](Tensor x) {
    Tensor a = fnc::for_range(
        Tensor(0), Tensor(3), Tensor(1),
        [&](const Tensor &i, const Tensor &s) {
          return fnc::cond(
              i < 1, [&] { return s * v + x; },
              [&] { return sin(s) * v.read_value(); });
        },
        x);
    Tensor b = fnc::cond(
        reduce_sum(x) > -10.0,
        [&] {
          return fnc::for_range(
              Tensor(0), Tensor(2), Tensor(1),
              [&](const Tensor &, const Tensor &s) {
                return fnc::for_range(
                    Tensor(0), Tensor(2), Tensor(1),
                    [&](const Tensor &, const Tensor &t) {
                      return t * x + v;
                    },
                    s);
              },
              a);
        },
        [&] { return a; });
    return reduce_sum(b * b);
  };
  auto withVariable = [&](Tensor x) {
    GradientTape tape(/*persistent=*/true);
    tape.watch(x);
    Tensor y = program(x);
    return std::make_tuple(tape.gradient(y, x), tape.gradient(y, v));
  };
  Tensor x({0.3, -0.5, 0.8});
  auto inner = fnc::function([&](Tensor x) {
    GradientTape tape(/*persistent=*/true);
    tape.watch(x);
    Tensor y = program(x);
    return std::make_tuple(tape.gradient(y, x), tape.gradient(y, v));
  });
  auto outer = fnc::function(program);
  std::function<double(Tensor)> f = [&](Tensor t) {
    return program(t).item<double>();
  };
  std::vector<double> numericX = numericGradient(f, x);
  std::vector<double> numericV(3);
  {
    Tensor saved = v.read_value();
    std::vector<double> base = saved.to_vector<double>();
    for (size_t i = 0; i < base.size(); ++i) {
      std::vector<double> up = base, down = base;
      up[i] += 1e-6;
      down[i] -= 1e-6;
      v.assign(Tensor(up));
      double fu = f(x);
      v.assign(Tensor(down));
      double fd = f(x);
      numericV[i] = (fu - fd) / 2e-6;
    }
    v.assign(saved);
  }
  auto [ex, ev] = withVariable(x); // eager
  expectNear(ex, numericX, 1e-6);
  expectNear(ev, numericV, 1e-6);
  auto [sx, sv] = inner(x); // tape inside the staged function
  expectNear(sx, numericX, 1e-6);
  expectNear(sv, numericV, 1e-6);
  GradientTape tape(/*persistent=*/true); // tape over the staged call
  tape.watch(x);
  Tensor y = outer(x);
  expectNear(tape.gradient(y, x), numericX, 1e-6);
  expectNear(tape.gradient(y, v), numericV, 1e-6);
}

// reduce_prod's gradient is the product of the others, also with zeros in
// the reduced slice (it divided by x: NaN and inf); and a value filled to a
// shape known only at run time gets the sum of the gradient (it got none).
TEST(RecordedGradientTest, ProductsWithZerosAndRunTimeFills) {
  auto prodGrad = [](Tensor x) {
    GradientTape tape;
    tape.watch(x);
    return tape.gradient(reduce_sum(reduce_prod(x, {1})), x);
  };
  // Rows: no zero, one zero, two zeros.
  Tensor x(std::vector<double>{2, 3, 4, 2, 0, 5, 0, 3, 0}, {3, 3});
  std::vector<double> expected = {12, 8, 6, 0, 10, 0, 0, 0, 0};
  expectNear(prodGrad(x), expected);
  expectNear(fnc::function(prodGrad)(x), expected);
  FunctionOptions options;
  options.input_signature = {TensorSpec({-1}, DType::f64),
                             TensorSpec({}, DType::f64)};
  auto fillGrad = fnc::function(
      [](Tensor x, Tensor v) {
        GradientTape tape;
        tape.watch(v);
        Tensor filled = fnc::fill(fnc::shape(x), v);
        return tape.gradient(reduce_sum(filled * x), v);
      },
      options);
  expectNear(fillGrad(Tensor({1.0, 2.0, 4.0}), Tensor(3.0)), {7});
}

// A dim unknown while tracing that is 1 at run time broadcasts in the
// forward; its gradient must be summed back over it (fnc.sum_to_shape),
// not passed through at the broadcast size (a gradient of the wrong shape,
// or a reshape error, before).
TEST(RecordedGradientTest, UnknownDimsOfOneSumBack) {
  auto expectSame = [](const Tensor &got, const Tensor &want) {
    ASSERT_TRUE(got.defined());
    EXPECT_EQ(got.shape(), want.shape());
    expectNear(got, cast(want, DType::f64).to_vector<double>());
  };
  Tensor c(std::vector<double>{1, -2, 3, 0.5, 4, -1}, {2, 3});
  // A loop value whose invariant is [?, ?]: [1, 1] here, times [2, 3].
  auto loopValue = [&](Tensor x) {
    GradientTape tape;
    tape.watch(x);
    LoopOptions options;
    options.shape_invariants = {Shape{kUnknownDim, kUnknownDim}};
    Tensor v = fnc::for_range(
        Tensor(0), Tensor(2), Tensor(1),
        [](const Tensor &, const Tensor &v) { return v * 1.5; },
        reshape(x, {1, 1}), options);
    Tensor y = v * c + v;
    return tape.gradient(reduce_sum(y * y), x);
  };
  Tensor x({0.7});
  expectSame(fnc::function(loopValue)(x), loopValue(x));

  // An argument of unknown size under an input_signature, 1 in this call,
  // against a [3]: d/dx sum((x * k)^2) sums over the stretched dim.
  FunctionOptions options;
  options.input_signature = {TensorSpec({-1}, DType::f64)};
  auto argument = [](Tensor x) {
    GradientTape tape;
    tape.watch(x);
    Tensor k({1.0, 2.0, -3.0});
    Tensor y = x * k;
    return tape.gradient(reduce_sum(y * y), x);
  };
  auto stagedArgument = fnc::function(argument, options);
  for (Tensor a : {Tensor({0.5}), Tensor({0.5, -1.0, 2.0})})
    expectSame(stagedArgument(a), argument(a));

  // The batch dims of a matmul: [1, 2, 3] (a loop value of unknown
  // shape) times [4, 3, 2].
  Tensor b = reshape(cast(range(0, 24), DType::f64) * 0.1, {4, 3, 2});
  auto batched = [&](Tensor a) {
    GradientTape tape;
    tape.watch(a);
    LoopOptions loop;
    loop.shape_invariants = {Shape{kUnknownDim, 2, 3}};
    Tensor v = fnc::for_range(
        Tensor(0), Tensor(1), Tensor(1),
        [](const Tensor &, const Tensor &v) { return tanh(v); }, a, loop);
    Tensor y = matmul(v, b);
    return tape.gradient(reduce_sum(y * y), a);
  };
  Tensor a = reshape(cast(range(0, 6), DType::f64) * 0.2 - 0.5, {1, 2, 3});
  expectSame(fnc::function(batched)(a), batched(a));
}

namespace {

/// The seeds' dynamic_rnn in C++: a tanh cell whose weights are Variables
/// read inside the loop body, outputs accumulated in a TensorArray that
/// the loop carries; the loss is on the stacked outputs and the last state.
struct Rnn {
  Variable wx, wh, b;
  Tensor operator()(const Tensor &inputs, const Tensor &h0) const {
    Tensor seq = transpose(inputs, {1, 0, 2}); // [T, B, D]
    int64_t steps = seq.shape()[0];
    // The batch is known only at run time under an input_signature.
    TensorArray outputs(DType::f64, steps, {kUnknownDim, h0.shape()[1]});
    auto [state, out] = fnc::for_range(
        Tensor(0), Tensor(static_cast<int32_t>(steps)), Tensor(1),
        [&](const Tensor &i, const Tensor &h, const TensorArray &ta) {
          Tensor x = gather(seq, i, 0);
          Tensor next = tanh(matmul(x, wx) + matmul(h, wh) + b);
          return std::make_tuple(next, ta.write(i, next * ta.size() * 0.1));
        },
        std::make_tuple(h0, outputs));
    Tensor stacked = transpose(out.stack(), {1, 0, 2});
    // A read of an earlier element through the array, too.
    return reduce_sum(stacked * stacked) + reduce_sum(state) +
           reduce_sum(out.read(steps - 1));
  }
};

} // namespace

// Gradients through a loop that carries a TensorArray whose elements have
// a batch dim unknown while tracing (input_signature with -1), with the tape
// inside and outside the staged function, against eager and finite
// differences.
TEST(RecordedGradientTest, DynamicRnnThroughTensorArrays) {
  std::mt19937 rng(9);
  auto randomTensor = [&](const Shape &shape, double scale) {
    return fnc::testing::randomTensor(rng, shape, scale);
  };
  const int64_t B = 2, T = 4, D = 3, H = 5;
  Rnn rnn{Variable(randomTensor({D, H}, 0.5), "wx"),
          Variable(randomTensor({H, H}, 0.5), "wh"),
          Variable(randomTensor({H}, 0.1), "b")};
  Tensor inputs = randomTensor({B, T, D}, 1.0), h0 = randomTensor({B, H}, 0.5);
  auto gradients = [&](auto &&loss, Tensor in) {
    GradientTape tape(/*persistent=*/true);
    tape.watch(in);
    Tensor y = loss(in, h0);
    std::vector<Tensor> g = tape.gradient(
        y, std::vector<Variable>{rnn.wx, rnn.wh, rnn.b});
    g.push_back(tape.gradient(y, in));
    return g;
  };
  std::vector<Tensor> eager = gradients(rnn, inputs);
  FunctionOptions unknownBatch;
  unknownBatch.input_signature = {TensorSpec({-1, T, D}, DType::f64),
                                  TensorSpec({-1, H}, DType::f64)};
  auto outerStaged = fnc::function(rnn, unknownBatch);
  std::vector<Tensor> outer = gradients(outerStaged, inputs);
  auto inner = fnc::function(
      [&](Tensor in, Tensor h) {
        std::vector<Tensor> g = gradients(
            [&](Tensor a, Tensor) { return rnn(a, h); }, in);
        return std::make_tuple(g[0], g[1], g[2], g[3]);
      },
      unknownBatch);
  auto [g0, g1, g2, g3] = inner(inputs, h0);
  std::vector<Tensor> staged = {g0, g1, g2, g3};
  std::function<double(Tensor)> f = [&](Tensor in) {
    return rnn(in, h0).item<double>();
  };
  std::vector<double> numeric = numericGradient(f, inputs);
  expectNear(eager[3], numeric, 1e-6);
  for (size_t k = 0; k < 4; ++k) {
    SCOPED_TRACE(k);
    expectNear(outer[k], eager[k].to_vector<double>());
    expectNear(staged[k], eager[k].to_vector<double>());
  }
  EXPECT_NE(eager[0].to_vector<double>()[0], 0.0);
}

// A concrete function called under a tape is one entry whose backward
// replays its recorded program, as a call of its fnc::Function is (it was
// an error). So is one with random draws inside a staged loop whose shapes
// change (they were not kept: it said that it would need its callable).
TEST(RecordedGradientTest, ConcreteFunctionsUnderATape) {
  Variable w(Tensor({0.5, -1.0}), "w");
  auto f = fnc::function([&](Tensor x) { return reduce_sum(x * x * w); });
  Tensor x({1.0, 2.0});
  ConcreteFunction c = f.get_concrete_function(x);
  {
    GradientTape tape(/*persistent=*/true);
    EXPECT_NO_THROW(c({x})); // not watched: a plain call
    tape.watch(x);
    Tensor y = c({x})[0];
    expectNear(tape.gradient(y, x), {2 * 1.0 * 0.5, 2 * 2.0 * -1.0});
    expectNear(tape.gradient(y, w), {1.0, 4.0});
  }
  // A loop whose shapes change keeps flat histories of its draws, whose
  // shapes change with it. y = [x m0 m1a, x m1b, x m0, x]: each of its four
  // parts is linear in x, so the gradient of its sum is their sum over x.
  auto noisy = fnc::function([](Tensor x) {
    auto [i, a] = fnc::while_loop(
        [](const Tensor &i, const Tensor &) { return i < 2; },
        [](const Tensor &i, const Tensor &a) {
          Tensor m = random_uniform(fnc::shape(a), 0.5, 1.5, DType::f64);
          return std::make_tuple(i + 1, concat({a * m, a}, 0));
        },
        std::make_tuple(Tensor(0), x),
        LoopOptions{{{}, {kUnknownDim}}});
    (void)i;
    return a;
  });
  ConcreteFunction n = noisy.get_concrete_function(x);
  GradientTape tape;
  tape.watch(x);
  Tensor a = n({x})[0];
  std::vector<double> y = a.to_vector<double>(), xs = x.to_vector<double>(),
                      expected;
  ASSERT_EQ(y.size(), 8u);
  for (size_t j = 0; j < 2; ++j)
    expected.push_back((y[j] + y[2 + j] + y[4 + j] + y[6 + j]) / xs[j]);
  expectNear(tape.gradient(reduce_sum(a), x), expected);
}

// Random draws inside a staged cond's branches (TF1's dropout under
// tf.cond(training, ...)): the backward reuses the forward's draws, with
// the tape inside the function, over a staged call (which stays compiled:
// the callable runs once, to trace) and over a loaded function; in either
// branch, in a cond nested in a branch, with a batch unknown while tracing.
// Each branch returns, beside its value, the gradient that value must
// have: the loss's gradient has to equal it.
TEST(RecordedGradientTest, RandomDrawsInsideCondBranches) {
  int traced = 0;
  auto model = [&](Tensor x, Tensor p, Tensor q) {
    ++traced;
    return fnc::cond(
        p,
        [&] {
          Tensor m = random_uniform(fnc::shape(x), 0.5, 1.5, DType::f64);
          return std::vector<Tensor>{x * m, m};
        },
        [&] {
          return fnc::cond(
              q,
              [&] { return std::vector<Tensor>{x, ones_like(x)}; },
              [&] {
                Tensor n = random_normal(fnc::shape(x), 0, 1, DType::f64);
                return std::vector<Tensor>{sin(x) * n, cos(x) * n};
              });
        });
  };
  FunctionOptions options;
  options.name = "noisy";
  options.input_signature = {TensorSpec({kUnknownDim, 3}, DType::f64),
                             TensorSpec({}, DType::i1),
                             TensorSpec({}, DType::i1)};
  auto inside = fnc::function(
      [&](Tensor x, Tensor p, Tensor q) {
        GradientTape tape;
        tape.watch(x);
        std::vector<Tensor> y = model(x, p, q);
        return std::vector<Tensor>{tape.gradient(reduce_sum(y[0]), x), y[1]};
      },
      options);
  auto staged = fnc::function(model, options);
  std::mt19937 rng(5);
  Tensor x = fnc::testing::randomTensor(rng, {4, 3}, 1.0);
  const bool cases[][2] = {{true, false}, {false, true}, {false, false}};
  for (const auto &[p, q] : cases) {
    SCOPED_TRACE(std::string("p ") + (p ? "true" : "false") + ", q " +
                 (q ? "true" : "false"));
    Tensor tp(p), tq(q);
    std::vector<Tensor> in = inside(x, tp, tq);
    expectNear(in[0], cast(in[1], DType::f64).to_vector<double>());
    GradientTape tape;
    tape.watch(x);
    std::vector<Tensor> out = staged(x, tp, tq);
    expectNear(tape.gradient(reduce_sum(out[0]), x),
               out[1].to_vector<double>());
  }
  EXPECT_EQ(traced, 2) << "a callable ran after its trace";

  // The same program saved and loaded: no callable exists any more.
  std::string path = ::testing::TempDir() + "cond-draws.mlir";
  save(path, staged);
  LoadedFunction loaded = load(path);
  for (const auto &[p, q] : cases) {
    GradientTape tape;
    tape.watch(x);
    std::vector<Tensor> out = loaded(x, Tensor(p), Tensor(q));
    expectNear(tape.gradient(reduce_sum(out[0]), x),
               out[1].to_vector<double>());
  }
  EXPECT_EQ(traced, 2);

}

// Random draws inside a staged loop body (dropout in a recurrent cell):
// under a tape the loop keeps them, one row per iteration (a while_loop,
// whose trip count is known only once it has run, doubles its rows when
// they are full), and its backward reuses row i at iteration i; also with
// a batch unknown while tracing (the rows are allocated at the first
// iteration), a cond drawing inside the body, a loop in a loop and a loop
// in a cond. The loop carries (a, p) -> (sin(a) m, p cos(a) m), so
// d sum(a) / d a0 must be p. Over a staged call (and a loaded one) the
// forward, replayed for the tape, keeps the rows its trace did not.
class RandomDrawsInsideLoopBodies : public ::testing::TestWithParam<bool> {};

TEST_P(RandomDrawsInsideLoopBodies, MatchTheirForward) {
  bool whileLoops = GetParam();
  // (TripsVaryInLoop: a loop in a loop whose trip count is the outer
  // iteration's, 1 then 2, so the rows of its draws that the outer loop
  // keeps change shape: a run-time error where they were rows.)
  enum Shape { Plain, CondInBody, LoopInLoop, LoopInCond, TripsVaryInLoop };
  auto noise = [](const Tensor &like) {
    return random_uniform(fnc::shape(like), 0.5, 1.5, DType::f64);
  };
  auto model = [&](Tensor x, Shape shape) {
    auto run = [&](const Tensor &a0, const Tensor &trips) {
      // (a, p) -> (sin(a) m, p cos(a) m): the backward needs each
      // iteration's a (the history) and m.
      auto body = [&](const Tensor &a, const Tensor &p) {
        Tensor m = noise(a);
        if (shape != CondInBody)
          return std::make_tuple(sin(a) * m, p * cos(a) * m);
        std::vector<Tensor> r = fnc::cond(
            reduce_sum(a) > 0.0,
            [&] {
              Tensor n = noise(a);
              return std::vector<Tensor>{sin(a) * m * n, p * cos(a) * m * n};
            },
            [&] { return std::vector<Tensor>{sin(a) * m, p * cos(a) * m}; });
        return std::make_tuple(r[0], r[1]);
      };
      if (whileLoops) {
        // Three iterations (five rows kept: 1, 2, then 4), unless the
        // values blow up.
        auto [i, a, p] = fnc::while_loop(
            [&](const Tensor &i, const Tensor &a, const Tensor &) {
              return logical_and(i < trips, reduce_max(abs(a)) < 1e6);
            },
            [&](const Tensor &i, const Tensor &a, const Tensor &p) {
              auto [a1, p1] = body(a, p);
              return std::make_tuple(i + 1, a1, p1);
            },
            std::make_tuple(Tensor(0), a0, ones_like(a0)));
        (void)i;
        return std::vector<Tensor>{a, p};
      }
      auto [a, p] = fnc::for_range(
          Tensor(0), trips, Tensor(1),
          [&](const Tensor &, const Tensor &a, const Tensor &p) {
            return body(a, p);
          },
          std::make_tuple(a0, ones_like(a0)));
      return std::vector<Tensor>{a, p};
    };
    if (shape == LoopInLoop || shape == TripsVaryInLoop) {
      auto [a, p] = fnc::for_range(
          Tensor(0), Tensor(2), Tensor(1),
          [&](const Tensor &i, const Tensor &a, const Tensor &p) {
            std::vector<Tensor> r =
                run(a, shape == LoopInLoop ? Tensor(3) : i + 1);
            return std::make_tuple(r[0], p * r[1]);
          },
          std::make_tuple(x, ones_like(x)));
      return std::vector<Tensor>{a, p};
    }
    if (shape == LoopInCond)
      return fnc::cond(
          reduce_sum(x) > -100.0, [&] { return run(x, Tensor(3)); },
          [&] { return std::vector<Tensor>{x, ones_like(x)}; });
    return run(x, Tensor(3));
  };
  std::mt19937 rng(3);
  Tensor x = fnc::testing::randomTensor(rng, {2, 3}, 1.0);
  for (Shape shape :
       {Plain, CondInBody, LoopInLoop, LoopInCond, TripsVaryInLoop}) {
    for (bool unknownBatch : {false, true}) {
      SCOPED_TRACE("shape " + std::to_string(shape) +
                   (unknownBatch ? ", batch unknown" : ""));
      FunctionOptions options;
      if (unknownBatch)
        options.input_signature = {TensorSpec({kUnknownDim, 3}, DType::f64)};
      int traced = 0;
      auto inside = fnc::function(
          [&](Tensor xv) {
            ++traced;
            GradientTape tape;
            tape.watch(xv);
            std::vector<Tensor> y = model(xv, shape);
            return std::vector<Tensor>{tape.gradient(reduce_sum(y[0]), xv),
                                       y[1]};
          },
          options);
      for (int call = 0; call < 2; ++call) {
        std::vector<Tensor> r = inside(x);
        expectNear(r[0], r[1].to_vector<double>());
      }
      EXPECT_EQ(traced, 1);
    }
    // Over a staged call: its trace kept no rows (no tape), its forward
    // replayed for the tape keeps them, and the callable does not run
    // again; over its concrete function likewise.
    int traced = 0;
    auto staged = fnc::function([&](Tensor xv) {
      ++traced;
      return model(xv, shape);
    });
    for (int call = 0; call < 2; ++call) {
      GradientTape tape;
      tape.watch(x);
      std::vector<Tensor> y = staged(x);
      expectNear(tape.gradient(reduce_sum(y[0]), x),
                 y[1].to_vector<double>());
    }
    ConcreteFunction concrete = staged.get_concrete_function(x);
    {
      GradientTape tape;
      tape.watch(x);
      std::vector<Tensor> y = concrete(x);
      expectNear(tape.gradient(reduce_sum(y[0]), x),
                 y[1].to_vector<double>());
    }
    EXPECT_EQ(traced, 1);
    // Saved and loaded: the loops read back from the IR keep their draws
    // (a for_range is one again: its counter and bounds recognized).
    std::string path = ::testing::TempDir() + "loop-draws.mlir";
    save(path, staged);
    LoadedFunction loaded = load(path);
    GradientTape tape;
    tape.watch(x);
    std::vector<Tensor> y = loaded(x);
    expectNear(tape.gradient(reduce_sum(y[0]), x), y[1].to_vector<double>());
  }
}

INSTANTIATE_TEST_SUITE_P(RecordedGradientTest, RandomDrawsInsideLoopBodies,
                         ::testing::Values(false, true),
                         [](const ::testing::TestParamInfo<bool> &info) {
                           return info.param ? "WhileLoop" : "ForRange";
                         });

// A for_range whose step is known only at run time: the loop condition
// covers both signs, and the loop read back from the file is still a
// for_range, which keeps its draws.
TEST(RecordedGradientTest, LoadedForRangeWithARunTimeStepKeepsItsDraws) {
  auto noise = [](const Tensor &like) {
    return random_uniform(fnc::shape(like), 0.5, 1.5, DType::f64);
  };
  std::mt19937 rng(4);
  Tensor x = fnc::testing::randomTensor(rng, {2, 3}, 1.0);
  auto stepped = fnc::function([&](Tensor xv, Tensor step) {
    auto [a, p] = fnc::for_range(
        Tensor(0), Tensor(3), step,
        [&](const Tensor &, const Tensor &a, const Tensor &p) {
          Tensor m = noise(a);
          return std::make_tuple(a * m, p * m);
        },
        std::make_tuple(xv, ones_like(xv)));
    return std::vector<Tensor>{a, p};
  });
  stepped(x, Tensor(1));
  std::string steppedPath = ::testing::TempDir() + "stepped-draws.mlir";
  save(steppedPath, stepped);
  LoadedFunction steppedLoaded = load(steppedPath);
  {
    GradientTape tape;
    tape.watch(x);
    std::vector<Tensor> y = steppedLoaded(x, Tensor(1));
    expectNear(tape.gradient(reduce_sum(y[0]), x), y[1].to_vector<double>());
  }
}

// A cond branch or loop body that reads a variable it also updates (an
// accumulator, a running statistic): the forward keeps the values it read
// (a cond returns them, a loop keeps one row per iteration, as for random
// draws) and the backward reads those, not the variable, whose value has
// changed since. As eagerly, the variable's gradient is the sum over its
// reads; an update has no gradient. With the tape inside, over a staged
// call (which stays compiled: the callable runs only to trace) and over a
// loaded function.
TEST(RecordedGradientTest, VariablesUpdatedAndReadInsideStagedBodies) {
  enum Kind { Cond, ForRange, WhileLoop };
  Variable v(Tensor({0.5, -0.25, 1.0}), "v");
  const Tensor v0 = v.read_value();
  auto step = [&](const Tensor &a) {
    Tensor r = v.read_value();
    v.assign(r * 1.5 + 0.1);
    return sin(a * r) + v.read_value() * a;
  };
  auto model = [&](Tensor x, Kind kind) -> Tensor {
    if (kind == Cond)
      return fnc::cond(
          reduce_sum(x) > -100.0, [&] { return step(step(x)); },
          [&] { return x; });
    if (kind == ForRange)
      return fnc::for_range(
          Tensor(0), Tensor(3), Tensor(1),
          [&](const Tensor &, const Tensor &a) { return step(a); }, x);
    auto [i, a] = fnc::while_loop(
        [](const Tensor &i, const Tensor &a) {
          return logical_and(i < 3, reduce_max(abs(a)) < 1e6);
        },
        [&](const Tensor &i, const Tensor &a) {
          return std::make_tuple(i + 1, step(a));
        },
        std::make_tuple(Tensor(0), x));
    (void)i;
    return a;
  };
  Tensor x({0.3, -0.7, 0.2});
  for (Kind kind : {Cond, ForRange, WhileLoop}) {
    SCOPED_TRACE("kind " + std::to_string(kind));
    v.assign(v0);
    std::vector<double> gx, gv, after;
    {
      GradientTape tape(/*persistent=*/true);
      tape.watch(x);
      Tensor y = reduce_sum(model(x, kind));
      gx = tape.gradient(y, x).to_vector<double>();
      gv = tape.gradient(y, v).to_vector<double>();
      after = v.read_value().to_vector<double>();
    }
    v.assign(v0);
    auto inside = fnc::function([&](Tensor xv) {
      GradientTape tape(/*persistent=*/true);
      tape.watch(xv);
      Tensor y = reduce_sum(model(xv, kind));
      return std::vector<Tensor>{tape.gradient(y, xv), tape.gradient(y, v)};
    });
    SCOPED_TRACE("tape inside");
    std::vector<Tensor> g = inside(x);
    expectNear(g[0], gx);
    expectNear(g[1], gv);
    expectNear(v.read_value(), after);

    int traced = 0;
    auto staged = fnc::function([&](Tensor xv) {
      ++traced;
      return model(xv, kind);
    });
    for (int call = 0; call < 2; ++call) {
      SCOPED_TRACE("outer tape, call " + std::to_string(call));
      v.assign(v0);
      GradientTape tape(/*persistent=*/true);
      tape.watch(x);
      Tensor y = reduce_sum(staged(x));
      expectNear(tape.gradient(y, x), gx);
      expectNear(tape.gradient(y, v), gv);
      expectNear(v.read_value(), after);
    }
    EXPECT_EQ(traced, 1);

    std::string path = ::testing::TempDir() + "updated-reads.mlir";
    save(path, staged);
    LoadedFunction loaded = load(path);
    SCOPED_TRACE("loaded");
    v.assign(v0);
    loaded.variable("v").assign(v0);
    GradientTape tape;
    tape.watch(x);
    Tensor y = reduce_sum(loaded(x)[0]);
    expectNear(tape.gradient(y, x), gx);
  }
}

// Concats of operands whose sizes along the axis are unknown while tracing
// (two batches of -1), and a TensorArray::dynamic grown in a staged loop
// (the seeds' dynamic_size=True: a concat of the array and zeros, both of
// run-time sizes), differentiate: each operand's part of the gradient is a
// fnc.dynamic_slice at bounds read at run time (it was an Unimplemented
// error). With the tape inside, over a staged call and over a loaded
// function, against eager.
TEST(RecordedGradientTest, ConcatsAndDynamicArraysOfRunTimeSizes) {
  Variable w(Tensor({1.5, -0.5}), "w");
  auto model = [&](Tensor a, Tensor b, Tensor n) {
    Tensor both = concat({a, b * w, a * 2.0}, 0);
    auto [state, out] = for_range(
        Tensor(0), n, Tensor(1),
        [&](const Tensor &i, const Tensor &s, const TensorArray &arr) {
          Tensor next = tanh(s * w + 0.25);
          return std::make_tuple(
              next, arr.write(i, next * cast(i + 1, DType::f64)));
        },
        std::make_tuple(a, TensorArray::dynamic(DType::f64)));
    Tensor stacked = out.stack();
    return reduce_sum(stacked * stacked) + reduce_sum(state) +
           reduce_sum(both * both * Tensor({1.0, 3.0}));
  };
  auto gradients = [&](Tensor a, Tensor b, Tensor n) {
    GradientTape tape(/*persistent=*/true);
    tape.watch(a);
    tape.watch(b);
    Tensor y = model(a, b, n);
    return std::vector<Tensor>{tape.gradient(y, a), tape.gradient(y, b),
                               tape.gradient(y, w)};
  };
  Tensor a({{0.5, -1.0}, {2.0, 0.1}, {-0.3, 0.7}}), b({{0.2, 0.4}}), n(4);
  std::vector<Tensor> eager = gradients(a, b, n);
  FunctionOptions options;
  options.input_signature = {TensorSpec({kUnknownDim, 2}, DType::f64),
                             TensorSpec({kUnknownDim, 2}, DType::f64),
                             TensorSpec({}, DType::i32)};
  auto inside = fnc::function(gradients, options);
  std::vector<Tensor> staged = inside(a, b, n);
  for (size_t k = 0; k < 3; ++k)
    expectNear(staged[k], eager[k].to_vector<double>());
  auto forward = fnc::function(model, options);
  {
    GradientTape tape(/*persistent=*/true);
    tape.watch(a);
    tape.watch(b);
    Tensor y = forward(a, b, n);
    expectNear(tape.gradient(y, a), eager[0].to_vector<double>());
    expectNear(tape.gradient(y, b), eager[1].to_vector<double>());
    expectNear(tape.gradient(y, w), eager[2].to_vector<double>());
  }
  std::string path = ::testing::TempDir() + "run-time-sizes.mlir";
  save(path, forward);
  LoadedFunction loaded = load(path);
  std::remove(path.c_str());
  GradientTape tape;
  tape.watch(a);
  Tensor y = loaded(a, b, n)[0];
  expectNear(tape.gradient(y, a), eager[0].to_vector<double>());
}

// A loop whose condition reads a variable its body updates: its own
// gradient walks the forward's iterations; a replay of it (the backward of
// a staged call under an outer tape, of a loaded function, of a loop or
// cond around it) runs it as many times as the forward did, which the
// forward keeps (as it keeps random draws): the condition would read the
// updated variable and count other trips (silently, then the call ran its
// callable eagerly and a loaded function's gradient was an error). Alone,
// in a for_range body (one trip count per iteration) and in a cond.
TEST(RecordedGradientTest, LoopConditionsReadingWhatTheBodyUpdates) {
  enum Kind { Alone, InLoop, InCond };
  Variable limit(Tensor(int64_t{3}), "limit");
  int conditionCalls = 0;
  auto squarings = [&](const Tensor &x) {
    return std::get<1>(fnc::while_loop(
        [&](const Tensor &i, const Tensor &) {
          ++conditionCalls;
          return i < limit.read_value();
        },
        [&](const Tensor &i, const Tensor &a) {
          limit.assign_sub(Tensor(int64_t{1}));
          return std::make_tuple(i + int64_t{1}, a * a);
        },
        std::make_tuple(Tensor(int64_t{0}), x)));
  };
  auto model = [&](const Tensor &x, Kind kind) -> Tensor {
    if (kind == InLoop)
      // Each iteration from a limit of 3 + i: two trips each.
      return fnc::for_range(
          Tensor(int64_t{0}), Tensor(int64_t{2}), Tensor(int64_t{1}),
          [&](const Tensor &i, const Tensor &a) {
            limit.assign(i + int64_t{3});
            return squarings(a) + a;
          },
          x);
    if (kind == InCond)
      return fnc::cond(
          reduce_sum(x) > 0.0, [&] { return squarings(x) * 2.0; },
          [&] { return x; });
    return squarings(x);
  };
  // Eagerly, the reference: x^4 alone, 2 x^4 in the cond; in the loop,
  // y = x^4 + x, then y^4 + y.
  Tensor x({1.1});
  auto expected = [&](Kind kind) {
    limit.assign(Tensor(int64_t{3}));
    GradientTape tape;
    tape.watch(x);
    Tensor y = reduce_sum(model(x, kind));
    return tape.gradient(y, x).to_vector<double>();
  };
  double x4 = 4 * 1.1 * 1.1 * 1.1;
  EXPECT_NEAR(expected(Alone)[0], x4, 1e-12);
  EXPECT_NEAR(expected(InCond)[0], 2 * x4, 1e-12);
  double y1 = std::pow(1.1, 4) + 1.1;
  EXPECT_NEAR(expected(InLoop)[0], (4 * std::pow(y1, 3) + 1) * (x4 + 1),
              1e-9);
  for (Kind kind : {Alone, InLoop, InCond}) {
    SCOPED_TRACE(kind);
    const std::vector<double> eager = expected(kind);
    auto inside = fnc::function([&](Tensor xv) {
      GradientTape tape;
      tape.watch(xv);
      Tensor y = reduce_sum(model(xv, kind));
      return tape.gradient(y, xv);
    });
    limit.assign(Tensor(int64_t{3}));
    expectNear(inside(x), eager);
    auto staged = fnc::function([&](Tensor xv) { return model(xv, kind); });
    for (int round = 0; round < 2; ++round) {
      limit.assign(Tensor(int64_t{3}));
      GradientTape tape;
      tape.watch(x);
      Tensor y = reduce_sum(staged(x));
      expectNear(tape.gradient(y, x), eager);
      EXPECT_EQ(staged.tracing_count(), 1);
      if (round == 0)
        conditionCalls = 0;
    }
    EXPECT_EQ(conditionCalls, 0) << "the callable ran again";
    std::string path = ::testing::TempDir() + "condition-reads-updated.mlir";
    save(path, staged);
    LoadedFunction loaded = load(path);
    std::remove(path.c_str());
    loaded.variable("limit").assign(Tensor(int64_t{3}));
    GradientTape tape;
    tape.watch(x);
    Tensor y = reduce_sum(loaded(x)[0]);
    expectNear(tape.gradient(y, x), eager);
  }
}

// A variable read in a staged region and updated after it (after the
// region, or later in the loop body around a cond that reads it), before
// the gradient: the region's replays read what it read (a read of the
// variable taken just before it), not the updated value (the gradient was
// that of the updated value, silently, then an error). An int variable too
// (its reads scale the values). With the tape inside, over a staged call
// (which stays compiled: the callable runs only to trace) and over a loaded
// function.
TEST(RecordedGradientTest, VariablesUpdatedAfterTheRegionsThatReadThem) {
  enum Kind { Cond, ForRange, WhileLoop, CondInLoop };
  Variable v(Tensor({0.5, -0.25, 1.0}), "v");
  Variable n(Tensor(int64_t{2}), "n");
  const Tensor v0 = v.read_value(), n0 = n.read_value();
  auto reading = [&](const Tensor &a) {
    return sin(a * v.read_value()) * cast(n.read_value(), DType::f64) +
           a * v.read_value();
  };
  auto model = [&](Tensor x, Kind kind) -> Tensor {
    Tensor y;
    if (kind == Cond) {
      y = fnc::cond(
          reduce_sum(x) > -100.0, [&] { return reading(x); },
          [&] { return x; });
    } else if (kind == ForRange) {
      y = fnc::for_range(
          Tensor(0), Tensor(3), Tensor(1),
          [&](const Tensor &, const Tensor &a) { return reading(a); }, x);
    } else if (kind == WhileLoop) {
      y = std::get<1>(fnc::while_loop(
          [&](const Tensor &i, const Tensor &) {
            return i < n.read_value();
          },
          [&](const Tensor &i, const Tensor &a) {
            return std::make_tuple(i + int64_t{1}, reading(a));
          },
          std::make_tuple(Tensor(int64_t{0}), x)));
    } else {
      y = fnc::for_range(
          Tensor(0), Tensor(3), Tensor(1),
          [&](const Tensor &, const Tensor &a) {
            Tensor b = fnc::cond(
                reduce_sum(a) > -100.0, [&] { return reading(a); },
                [&] { return a; });
            v.assign(v.read_value() * 1.5 + 0.1);
            n.assign_add(Tensor(int64_t{1}));
            return b * 1.1 + a;
          },
          x);
    }
    v.assign(v.read_value() * 0.5 - 0.2);
    n.assign_add(Tensor(int64_t{3}));
    return y;
  };
  Tensor x({0.3, -0.7, 0.2});
  for (Kind kind : {Cond, ForRange, WhileLoop, CondInLoop}) {
    SCOPED_TRACE("kind " + std::to_string(kind));
    auto reset = [&] {
      v.assign(v0);
      n.assign(n0);
    };
    reset();
    std::vector<double> gx, gv;
    {
      GradientTape tape(/*persistent=*/true);
      tape.watch(x);
      Tensor y = reduce_sum(model(x, kind));
      gx = tape.gradient(y, x).to_vector<double>();
      gv = tape.gradient(y, v).to_vector<double>();
    }
    reset();
    auto inside = fnc::function([&](Tensor xv) {
      GradientTape tape(/*persistent=*/true);
      tape.watch(xv);
      Tensor y = reduce_sum(model(xv, kind));
      return std::vector<Tensor>{tape.gradient(y, xv), tape.gradient(y, v)};
    });
    {
      SCOPED_TRACE("tape inside");
      std::vector<Tensor> g = inside(x);
      expectNear(g[0], gx);
      expectNear(g[1], gv);
    }
    int traced = 0;
    auto staged = fnc::function([&](Tensor xv) {
      ++traced;
      return model(xv, kind);
    });
    for (int call = 0; call < 2; ++call) {
      SCOPED_TRACE("outer tape, call " + std::to_string(call));
      reset();
      GradientTape tape(/*persistent=*/true);
      tape.watch(x);
      Tensor y = reduce_sum(staged(x));
      expectNear(tape.gradient(y, x), gx);
      expectNear(tape.gradient(y, v), gv);
    }
    EXPECT_EQ(traced, 1);

    std::string path = ::testing::TempDir() + "read-then-updated.mlir";
    save(path, staged);
    LoadedFunction loaded = load(path);
    std::remove(path.c_str());
    SCOPED_TRACE("loaded");
    loaded.variable("v").assign(v0);
    loaded.variable("n").assign(n0);
    GradientTape tape(/*persistent=*/true);
    tape.watch(x);
    Tensor y = reduce_sum(loaded(x)[0]);
    expectNear(tape.gradient(y, x), gx);
    expectNear(tape.gradient(y, loaded.variable("v")), gv);
  }
}
