//===- IndexingTest.cpp - numpy indexing staged, with unknown dims --------===//
//
// Random indices (Support/RandomIndex.h: integers, slices with negative and
// out-of-range bounds and negative steps, ellipses, new axes) staged by
// fnc::function with static shapes and with every dim unknown while
// tracing (one trace called with two shapes), and run by the reference
// interpreter on the traced IR (what `fnc-run --interpret` runs), all
// against eager execution; the cases of an input_signature [-1, 10]
// (x[-1], x[-3:], x[::-1], x[1:-1], x[:, 2:5]) and the result dims that
// stay known; an index out of range at run time; and the gradients of
// indexing against finite differences (float64), eagerly and staged with
// an unknown batch.
//
//===----------------------------------------------------------------------===//

#include "Support/ExpectError.h"
#include "Support/RandomIndex.h"
#include "fnc/fnc.h"

#include "fnc/Dialect/Fnc/IR/FncDialect.h"
#include "fnc/Interpreter/Interpreter.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <random>
#include <string>

using namespace fnc;
using namespace fnc::testing;

namespace {

/// Random float32 values of `shape` (exact through any copy).
Tensor randomF32(std::mt19937 &rng, const Shape &shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  std::uniform_int_distribution<int> dist(-1000, 1000);
  std::vector<float> v(n);
  for (float &x : v)
    x = dist(rng) / 8.0f;
  return Tensor(v, shape);
}

void expectSame(const Tensor &got, const Tensor &want,
                const std::string &what) {
  ASSERT_EQ(got.shape(), want.shape()) << what;
  EXPECT_EQ(got.to_vector<float>(), want.to_vector<float>()) << what;
}

/// Runs the traced IR of `concrete` through the reference interpreter.
std::vector<Tensor> interpret(const ConcreteFunction &concrete,
                              const std::vector<Tensor> &args) {
  mlir::MLIRContext context;
  context.loadDialect<mlir::fnc::FncDialect, mlir::func::FuncDialect,
                      mlir::arith::ArithDialect, mlir::tensor::TensorDialect>();
  std::string ir = concrete.ir(IRStage::Fnc);
  auto module =
      mlir::parseSourceString<mlir::ModuleOp>(ir, mlir::ParserConfig(&context));
  if (!module) {
    ADD_FAILURE() << "the traced IR does not parse:\n" << ir;
    return {};
  }
  std::string entry;
  module->walk([&](mlir::func::FuncOp f) {
    if (entry.empty() && !f.isDeclaration())
      entry = f.getSymName().str();
  });
  auto interpreter = mlir::fnc::Interpreter::create(*module);
  if (!interpreter) {
    ADD_FAILURE() << llvm::toString(interpreter.takeError());
    return {};
  }
  auto results = (*interpreter)->call(entry, args);
  if (!results) {
    ADD_FAILURE() << llvm::toString(results.takeError()) << "\n" << ir;
    return {};
  }
  return *results;
}

TEST(IndexingStagedTest, RandomIndicesStagedAndInterpretedMatchEager) {
  std::mt19937 rng(99);
  std::uniform_int_distribution<int64_t> rankDist(1, 4), dimDist(1, 5);
  std::bernoulli_distribution empty(0.05);
  int checked = 0;
  for (int group = 0; group < 12; ++group) {
    // Two shapes of one rank; the indices suit both (integers inside the
    // smaller dims), so one trace with unknown dims serves both.
    int64_t rank = rankDist(rng);
    Shape a(rank), b(rank), small(rank);
    for (int64_t d = 0; d < rank; ++d) {
      a[d] = empty(rng) ? 0 : dimDist(rng);
      b[d] = dimDist(rng);
      small[d] = std::min(a[d], b[d]);
    }
    std::vector<NumpyIndex> indices;
    for (int k = 0; k < 25; ++k)
      indices.push_back(randomIndex(rng, small));
    std::string what = "shapes " + shapeString(a) + " and " + shapeString(b);
    for (const NumpyIndex &i : indices)
      what += "\n  " + toString(i);
    SCOPED_TRACE(what);
    auto all = [indices](Tensor x) {
      std::vector<Tensor> out;
      for (const NumpyIndex &i : indices)
        out.push_back(x.index(toTensorIndex(i)));
      return out;
    };
    Tensor xa = randomF32(rng, a), xb = randomF32(rng, b);
    std::vector<Tensor> eagerA = all(xa), eagerB = all(xb);

    auto staticFn = fnc::function(all);
    std::vector<Tensor> stagedA = staticFn(xa);
    FunctionOptions options;
    options.input_signature = {TensorSpec(Shape(rank, -1))};
    auto dynamicFn = fnc::function(all, options);
    std::vector<Tensor> dynA = dynamicFn(xa), dynB = dynamicFn(xb);
    EXPECT_EQ(dynamicFn.tracing_count(), 1);
    ConcreteFunction traced = dynamicFn.concrete_functions()[0];
    std::vector<Tensor> interpA = interpret(traced, {xa}),
                        interpB = interpret(traced, {xb});
    ASSERT_EQ(stagedA.size(), indices.size());
    ASSERT_EQ(dynA.size(), indices.size());
    ASSERT_EQ(interpA.size(), indices.size());
    ASSERT_EQ(interpB.size(), indices.size());
    for (size_t k = 0; k < indices.size(); ++k) {
      std::string which = toString(indices[k]);
      expectSame(stagedA[k], eagerA[k], "static " + which);
      expectSame(dynA[k], eagerA[k], "unknown dims, a " + which);
      expectSame(dynB[k], eagerB[k], "unknown dims, b " + which);
      expectSame(interpA[k], eagerA[k], "interpreter, a " + which);
      expectSame(interpB[k], eagerB[k], "interpreter, b " + which);
      ++checked;
    }
    if (HasFatalFailure())
      return;
  }
  EXPECT_EQ(checked, 300);
}

TEST(IndexingStagedTest, UnknownBatchKeepsTheKnownDims) {
  FunctionOptions options;
  options.input_signature = {TensorSpec({-1, 10})};
  auto f = fnc::function(
      [](Tensor x) {
        return std::vector<Tensor>{
            x[-1],
            x[Slice(-3)],
            x[Slice(None, None, -1)],
            x[Slice(1, -1)],
            x.index({Slice(), Slice(2, 5)}),
            x.index({Slice(None, None, -2), Ellipsis, NewAxis, 7}),
        };
      },
      options);
  const Shape known[] = {{10},
                         {kUnknownDim, 10},
                         {kUnknownDim, 10},
                         {kUnknownDim, 10},
                         {kUnknownDim, 3},
                         {kUnknownDim, 1}};
  std::mt19937 rng(5);
  for (int64_t batch : {6, 1, 3}) {
    SCOPED_TRACE("batch " + std::to_string(batch));
    Tensor x = randomF32(rng, {batch, 10});
    std::vector<Tensor> got = f(x);
    std::vector<Tensor> want = {
        x[-1],
        x[Slice(-3)],
        x[Slice(None, None, -1)],
        x[Slice(1, -1)],
        x.index({Slice(), Slice(2, 5)}),
        x.index({Slice(None, None, -2), Ellipsis, NewAxis, 7}),
    };
    ASSERT_EQ(got.size(), want.size());
    for (size_t k = 0; k < got.size(); ++k)
      expectSame(got[k], want[k], "result " + std::to_string(k));
  }
  EXPECT_EQ(f.tracing_count(), 1);
  const std::vector<TensorSpec> &specs =
      f.concrete_functions()[0].output_specs();
  ASSERT_EQ(specs.size(), 6u);
  for (size_t k = 0; k < specs.size(); ++k)
    EXPECT_EQ(specs[k].shape, known[k]) << "result " << k;
}

TEST(IndexingStagedTest, IndexOutOfRangeAtRunTime) {
  FunctionOptions options;
  options.input_signature = {TensorSpec({-1, 4})};
  auto last = fnc::function([](Tensor x) { return x[-1]; }, options);
  auto third = fnc::function([](Tensor x) { return x.index({2, 1}); }, options);
  EXPECT_EQ(last(fnc::ones({2, 4})).shape(), (Shape{4}));
  // OutOfRange, as the same index fails eagerly.
  expectError(
      [&] {
        last(fnc::ones({0, 4}));
      },
      ErrorKind::OutOfRange,
      {"index -1 is out of range for a dimension of size 0 (the dim "
       "is empty)"});
  EXPECT_EQ(third(fnc::ones({3, 4})).shape(), Shape{});
  expectError(
      [&] {
        third(fnc::ones({2, 4}));
      },
      ErrorKind::OutOfRange,
      {"index 2 is out of range for a dimension of size 2 (valid: -2 "
       "to 1)"});
  // Known while tracing: the trace itself fails, as eager does.
  auto known = fnc::function([](Tensor x) { return x.index({Slice(), 4}); });
  expectError(
      [&] {
        known(fnc::ones({2, 4}));
      },
      ErrorKind::OutOfRange,
      {"fnc::Tensor::index: index 4 (entry 1) is out of range for dim "
       "1 of size 4"});
}

/// Random float64 values in [-2, 2).
Tensor randomF64(std::mt19937 &rng, const Shape &shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  std::uniform_real_distribution<double> dist(-2, 2);
  std::vector<double> v(n);
  for (double &x : v)
    x = dist(rng);
  return Tensor(v, shape);
}

using IndexFn = std::function<Tensor(const Tensor &)>;

/// The gradient of sum(f(x)^2 * w) by the tape.
Tensor gradientOf(const IndexFn &f, const Tensor &x, const Tensor &w) {
  GradientTape tape;
  tape.watch(x);
  Tensor y = f(x);
  return tape.gradient(reduce_sum(y * y * w), std::vector<Tensor>{x})[0];
}

TEST(IndexingStagedTest, GradientsMatchFiniteDifferencesAndEager) {
  std::mt19937 rng(17);
  struct Case {
    const char *name;
    IndexFn f;
  };
  const Case cases[] = {
      {"x[-1]", [](const Tensor &x) { return x[-1]; }},
      {"x[-3:]", [](const Tensor &x) { return x[Slice(-3)]; }},
      {"x[::-1]", [](const Tensor &x) { return x[Slice(None, None, -1)]; }},
      {"x[1:-1]", [](const Tensor &x) { return x[Slice(1, -1)]; }},
      {"x[:, 2:5]",
       [](const Tensor &x) {
         return x.index({Slice(), Slice(2, 5)});
       }},
      {"x[::-2, None, 1::3]",
       [](const Tensor &x) {
         return x.index({Slice(None, None, -2), NewAxis, Slice(1, None, 3)});
       }},
      {"x[..., 7:0:-2]",
       [](const Tensor &x) {
         return x.index({Ellipsis, Slice(7, 0, -2)});
       }},
      {"x[1:, ::-1], then its rows 0 and -1",
       [](const Tensor &x) {
         Tensor r = x.index({Slice(1, None), Slice(None, None, -1)});
         return r[0] + r.index({-1, Slice()});
       }},
  };
  for (const Case &c : cases) {
    SCOPED_TRACE(c.name);
    IndexFn f = c.f;
    // w has f's result shape; the dims that follow the batch are unknown.
    Shape wSpec = f(fnc::zeros({5, 10}, DType::f64)).shape(),
          other = f(fnc::zeros({4, 10}, DType::f64)).shape();
    for (size_t d = 0; d < wSpec.size(); ++d)
      if (wSpec[d] != other[d])
        wSpec[d] = -1;
    FunctionOptions options;
    options.input_signature = {TensorSpec({-1, 10}, DType::f64),
                               TensorSpec(wSpec, DType::f64)};
    auto staged = fnc::function(
        [f](Tensor x, Tensor w) { return gradientOf(f, x, w); }, options);
    // (Batches whose results have no dim of size 1 where the trace has an
    // unknown one: such a call would get a trace of its own.)
    for (int64_t batch : {5, 4}) {
      SCOPED_TRACE("batch " + std::to_string(batch));
      Tensor x = randomF64(rng, {batch, 10});
      Tensor w = randomF64(rng, f(x).shape()) + 3.0;
      Tensor eager = gradientOf(f, x, w);
      Tensor got = staged(x, w);
      ASSERT_EQ(got.shape(), x.shape());
      std::vector<double> g = got.to_vector<double>(),
                          e = eager.to_vector<double>(),
                          v = x.to_vector<double>();
      for (size_t k = 0; k < g.size(); ++k)
        EXPECT_NEAR(g[k], e[k], 1e-10 * (1 + std::abs(e[k]))) << k;
      // Central differences of the eager function.
      const double h = 1e-6;
      for (size_t k = 0; k < v.size(); ++k) {
        auto at = [&](double value) {
          std::vector<double> moved = v;
          moved[k] = value;
          Tensor y = f(Tensor(moved, x.shape()));
          return reduce_sum(y * y * w).item<double>();
        };
        double numeric = (at(v[k] + h) - at(v[k] - h)) / (2 * h);
        EXPECT_NEAR(e[k], numeric, 1e-6 * (1 + std::abs(numeric))) << k;
      }
    }
    EXPECT_EQ(staged.tracing_count(), 1);
  }
}

TEST(IndexingStagedTest, SecondDerivativesThroughTheGradientOp) {
  // d/dx of <grad_x sum(x[idx]^3), v>: the backward's strided_slice_grad is
  // differentiated in turn (its rule is strided_slice). Against the closed
  // form 6 * x * v on the elements read, zeros elsewhere.
  std::mt19937 rng(23);
  Tensor x = randomF64(rng, {4, 5}), v = randomF64(rng, {4, 5});
  auto hvp = [](const Tensor &x, const Tensor &v) {
    GradientTape outer;
    outer.watch(x);
    Tensor g;
    {
      GradientTape inner;
      inner.watch(x);
      Tensor y = x.index({Slice(None, None, -2), Slice(-4, 4)});
      g = inner.gradient(reduce_sum(y * y * y), std::vector<Tensor>{x})[0];
    }
    return outer.gradient(reduce_sum(g * v), std::vector<Tensor>{x})[0];
  };
  Tensor eager = hvp(x, v);
  FunctionOptions options;
  options.input_signature = {TensorSpec({-1, 5}, DType::f64),
                             TensorSpec({-1, 5}, DType::f64)};
  auto staged =
      fnc::function([hvp](Tensor x, Tensor v) { return hvp(x, v); }, options);
  Tensor got = staged(x, v);
  std::vector<double> xs = x.to_vector<double>(), vs = v.to_vector<double>(),
                      e = eager.to_vector<double>(),
                      g = got.to_vector<double>();
  for (int64_t i = 0; i < 4; ++i)
    for (int64_t j = 0; j < 5; ++j) {
      bool read = (i == 3 || i == 1) && j >= 1 && j < 4;
      size_t k = i * 5 + j;
      double want = read ? 6 * xs[k] * vs[k] : 0;
      EXPECT_NEAR(e[k], want, 1e-10) << i << "," << j;
      EXPECT_NEAR(g[k], want, 1e-10) << i << "," << j;
    }
}

} // namespace
