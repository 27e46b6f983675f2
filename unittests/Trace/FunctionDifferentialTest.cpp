//===- FunctionDifferentialTest.cpp - Eager vs staged on random programs --===//
//
// Random programs (sequences of elementwise, broadcasting, reduction and
// shape ops over random broadcast-compatible shapes, float32, float64 and
// int32; and programs that mix cond, while_loop, for_range and variable
// updates) run eagerly and through fnc::function; the results (and the
// variables) must agree (exactly for integers, within a tolerance per op
// family for floats).
//
//===----------------------------------------------------------------------===//

#include "RandomPrograms.h"

#include "fnc/Reference/Scalar.h"
#include "fnc/fnc.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <random>
#include <string>
#include <tuple>

using namespace fnc;
using namespace fnc::testing;

namespace {

TEST(FunctionDifferentialTest, RandomProgramsAgree) {
  std::mt19937 rng(1234);
  int checked = 0;
  for (int trial = 0; trial < 40; ++trial) {
    Program p = randomProgram(rng);
    std::vector<Tensor> in;
    for (const Shape &s : p.inputShapes)
      in.push_back(randomTensor(rng, p.dtype, s));
    Tensor eager;
    try {
      eager = run(p, in);
    } catch (const Error &) {
      continue; // e.g. shapes that stopped broadcasting after a reduction
    }
    auto staged = fnc::function(
        [&p](std::vector<Tensor> xs) { return run(p, xs); });
    Tensor got = staged(in);
    ASSERT_EQ(got.shape(), eager.shape()) << "trial " << trial;
    ASSERT_EQ(got.dtype(), eager.dtype());
    Tensor e64 = cast(eager, DType::f64), g64 = cast(got, DType::f64);
    std::vector<double> ev = e64.to_vector<double>(),
                        gv = g64.to_vector<double>();
    double tol = p.dtype == DType::i32 ? 0 : (p.dtype == DType::f32 ? 1e-4 : 1e-9);
    for (size_t k = 0; k < ev.size(); ++k)
      EXPECT_NEAR(gv[k], ev[k], tol * (1 + std::abs(ev[k])))
          << "trial " << trial << " element " << k << "\n"
          << staged.concrete_functions()[0].ir(IRStage::Fnc);
    // A second call with new values runs the same trace.
    std::vector<Tensor> in2;
    for (const Shape &s : p.inputShapes)
      in2.push_back(randomTensor(rng, p.dtype, s));
    Tensor eager2 = run(p, in2);
    Tensor got2 = staged(in2);
    std::vector<double> ev2 = cast(eager2, DType::f64).to_vector<double>(),
                        gv2 = cast(got2, DType::f64).to_vector<double>();
    for (size_t k = 0; k < ev2.size(); ++k)
      EXPECT_NEAR(gv2[k], ev2[k], tol * (1 + std::abs(ev2[k])));
    EXPECT_EQ(staged.tracing_count(), 1);
    ++checked;
  }
  EXPECT_GE(checked, 25);
}

/// Like RandomProgramsAgree, but traced once with every dim of every input
/// unknown (an input_signature), then called with several random shapes of
/// those ranks, size-1 dims included: run-time broadcasting (a 1 against a
/// known dim, and the retrace for a 1 where unknown dims meet) must give
/// the eager results.
TEST(FunctionDifferentialTest, RandomProgramsWithUnknownDimsAgree) {
  std::mt19937 rng(4321);
  int checked = 0, sizeOne = 0;
  for (int trial = 0; trial < 24; ++trial) {
    Program p = randomProgram(rng);
    while (p.inputShapes.size() < 3)
      p.inputShapes.push_back(p.inputShapes.back());
    FunctionOptions options;
    std::vector<TensorSpec> sig;
    for (const Shape &s : p.inputShapes)
      sig.emplace_back(Shape(s.size(), kUnknownDim), p.dtype);
    options.input_signature = sig;
    auto staged = fnc::function(
        [&p](Tensor a, Tensor b, Tensor c) { return run(p, {a, b, c}); },
        options);
    double tol =
        p.dtype == DType::i32 ? 0 : (p.dtype == DType::f32 ? 1e-4 : 1e-9);
    for (int call = 0; call < 3; ++call) {
      // New dims for the program's broadcast base.
      std::vector<Tensor> in = randomCallInputs(rng, p);
      Tensor eager;
      try {
        eager = run(p, in);
      } catch (const Error &) {
        continue;
      }
      Tensor got;
      try {
        got = staged(in[0], in[1], in[2]);
      } catch (const Error &e) {
        ADD_FAILURE() << "trial " << trial << " call " << call
                      << ": eager ran, staged threw: " << e.what();
        continue;
      }
      ASSERT_EQ(got.shape(), eager.shape()) << "trial " << trial;
      std::vector<double> ev = cast(eager, DType::f64).to_vector<double>(),
                          gv = cast(got, DType::f64).to_vector<double>();
      for (size_t k = 0; k < ev.size(); ++k)
        EXPECT_NEAR(gv[k], ev[k], tol * (1 + std::abs(ev[k])))
            << "trial " << trial << " call " << call << " element " << k;
      for (const Tensor &t : in)
        for (int64_t d : t.shape())
          sizeOne += d == 1;
      ++checked;
    }
  }
  EXPECT_GE(checked, 40);
  EXPECT_GE(sizeOne, 40); // the calls did exercise size-1 dims
}

void expectClose(const Tensor &got, const Tensor &want, const char *what,
                 int trial) {
  ASSERT_EQ(got.shape(), want.shape()) << what << ", trial " << trial;
  std::vector<float> g = got.to_vector<float>(), w = want.to_vector<float>();
  for (size_t i = 0; i < w.size(); ++i)
    EXPECT_NEAR(g[i], w[i], 1e-4 * (1 + std::abs(w[i])))
        << what << ", trial " << trial << ", element " << i;
}

TEST(FunctionDifferentialTest, RandomStatefulControlFlowProgramsAgree) {
  std::mt19937 rng(99);
  std::uniform_int_distribution<int> tripD(0, 5);
  for (int trial = 0; trial < 30; ++trial) {
    StateProgram p = randomStateProgram(rng);
    Tensor x0 = randomTensor(rng, DType::f32, p.shape);
    Tensor v0 = randomTensor(rng, DType::f32, p.shape);
    Variable eagerVar(v0), stagedVar(v0);
    auto staged = fnc::function([&p, &stagedVar](Tensor x, Tensor n) {
      return runState(p, stagedVar, x, n);
    });
    // Two calls with different trip counts: the same trace, and the
    // variable carries its state from one call to the next.
    for (int call = 0; call < 2; ++call) {
      Tensor n(tripD(rng));
      Tensor want = runState(p, eagerVar, x0, n);
      Tensor got = staged(x0, n);
      expectClose(got, want, "result", trial);
      expectClose(stagedVar.read_value(), eagerVar.read_value(), "variable",
                  trial);
    }
    EXPECT_EQ(staged.tracing_count(), 1) << "trial " << trial;
  }
}

// Loop-carried states that each iteration computes into a new buffer
// (-fnc-double-buffer-loops gives them two buffers that take turns): a
// small state (stack buffers), a big one (heap), two states updated
// together, and a swap of two states (not double-buffered), for trip
// counts 0 to 7, against the same loops run eagerly.
TEST(FunctionDifferentialTest, LoopCarriedStatesAgree) {
  std::mt19937 rng(31);
  for (int64_t dim : {16, 300}) {
    Tensor W = randomTensor(rng, DType::f32, {dim, dim}) * (1.f / dim);
    Tensor b = randomTensor(rng, DType::f32, {dim, 1});
    Tensor x0 = randomTensor(rng, DType::f32, {dim, 1});
    Tensor y0 = randomTensor(rng, DType::f32, {dim, 1});
    auto one = [&](Tensor n) {
      return for_range(
          Tensor(0), n, Tensor(1),
          [&](Tensor, Tensor x) { return tanh(matmul(W, x) + b); }, x0);
    };
    using Pair = std::tuple<Tensor, Tensor>;
    auto two = [&](Tensor n) {
      Pair r = for_range(
          Tensor(0), n, Tensor(1),
          [&](Tensor, Tensor x, Tensor y) {
            return Pair{matmul(W, x) + y, x * 0.5f + y};
          },
          Pair{x0, y0});
      return std::get<0>(r) + std::get<1>(r) * 2.f;
    };
    auto swap = [&](Tensor n) {
      Pair r = for_range(
          Tensor(0), n, Tensor(1),
          [&](Tensor, Tensor x, Tensor y) {
            return Pair{y, tanh(matmul(W, x))};
          },
          Pair{x0, y0});
      return std::get<0>(r) - std::get<1>(r);
    };
    std::vector<std::pair<const char *, std::function<Tensor(Tensor)>>> loops =
        {{"one state", one}, {"two states", two}, {"swap", swap}};
    for (auto &[name, loop] : loops) {
      auto staged = fnc::function(loop);
      for (int n = 0; n < 8; ++n) {
        Tensor trips(n);
        expectClose(staged(trips), loop(trips), name, n);
      }
      EXPECT_EQ(staged.tracing_count(), 1) << name;
    }
  }
}

// Matrix-vector products in loops. Where the loop reads A unchanged (an
// argument, a slice of one) and A is small with whole blocks of 16 rows,
// -fnc-lower-to-ordered-loops transposes A once before the loop and sums
// its columns; where the loop changes A (a loop state, a variable it
// assigns) or A is big or ends in a partial block, the dot-product kernel
// or plain loops run. All against the loops run eagerly, 0 to 3 trips.
TEST(FunctionDifferentialTest, MatrixVectorInLoopsAgree) {
  std::mt19937 rng(57);
  const std::pair<int64_t, int64_t> shapes[] = {
      {16, 16}, {16, 8},  {32, 16}, {16, 64}, {32, 32},
      {48, 16}, {16, 24}, {17, 16}, {32, 64}, {64, 16}};
  using Pair = std::tuple<Tensor, Tensor>;
  for (auto [m, k] : shapes) {
    Tensor W = randomTensor(rng, DType::f32, {m, k}) * (1.f / k);
    Tensor big = randomTensor(rng, DType::f32, {m + 2, k});
    Tensor b = randomTensor(rng, DType::f32, {m, 1});
    Tensor x0 = randomTensor(rng, DType::f32, {k, 1});
    Tensor acc0 = zeros({m, 1});
    // acc += tanh(A @ x + b) while x moves, for the A that `a` gives.
    auto loop = [&](Tensor n, const std::function<Tensor(Tensor)> &a) {
      Pair r = for_range(
          Tensor(0), n, Tensor(1),
          [&](Tensor i, Tensor acc, Tensor x) {
            return Pair{acc + tanh(matmul(a(i), x) + b), tanh(x * 1.1f - 0.1f)};
          },
          Pair{acc0, x0});
      return std::get<0>(r) + reduce_sum(std::get<1>(r));
    };
    auto argument = [&](Tensor n) {
      return loop(n, [&](Tensor) { return W; });
    };
    auto sliced = [&](Tensor n) {
      Tensor part = slice(big, {1, 0}, {m, k});
      return loop(n, [&](Tensor) { return part; });
    };
    auto state = [&](Tensor n) {
      using Triple = std::tuple<Tensor, Tensor, Tensor>;
      Triple r = for_range(
          Tensor(0), n, Tensor(1),
          [&](Tensor, Tensor acc, Tensor x, Tensor w) {
            return Triple{acc + matmul(w, x), x * 0.5f, w * 0.75f + 0.01f};
          },
          Triple{acc0, x0, W});
      return std::get<0>(r);
    };
    std::vector<std::pair<const char *, std::function<Tensor(Tensor)>>> loops =
        {{"argument", argument}, {"slice", sliced}, {"loop state", state}};
    std::string shape = std::to_string(m) + "x" + std::to_string(k) + " ";
    for (auto &[name, f] : loops) {
      auto staged = fnc::function(f);
      for (int n = 0; n < 4; ++n)
        expectClose(staged(Tensor(n)), f(Tensor(n)), (shape + name).c_str(), n);
    }
    // A variable that the loop assigns after each product.
    auto assigning = [&](Variable v) {
      return [v, &loop](Tensor n) {
        return loop(n, [&](Tensor) {
          Tensor w = v.read_value();
          v.assign(w * 0.75f + 0.01f);
          return w;
        });
      };
    };
    Variable eagerV(W), stagedV(W);
    auto staged = fnc::function(assigning(stagedV));
    for (int n = 0; n < 4; ++n) {
      expectClose(staged(Tensor(n)), assigning(eagerV)(Tensor(n)),
                  (shape + "variable").c_str(), n);
      expectClose(stagedV.read_value(), eagerV.read_value(),
                  (shape + "variable's value").c_str(), n);
    }
  }
}

TEST(FunctionDifferentialTest, OpFamiliesAgree) {
  // One trace per op family that the random programs do not cover.
  Tensor m = {{1.f, -2.f, 3.f}, {4.f, 5.f, -6.f}};
  Tensor idx = {int64_t{1}, int64_t{0}, int64_t{1}};
  std::vector<std::function<Tensor(Tensor)>> fs = {
      [](Tensor x) { return matmul(x, transpose(x)); },
      [](Tensor x) { return softmax(x); },
      [](Tensor x) { return log_softmax(x, 0); },
      [](Tensor x) { return cast(argmax(x, 1), DType::f32); },
      [](Tensor x) { return cast(argmin(x, 0), DType::f32); },
      [](Tensor x) { return reduce_mean(x, {1}); },
      [](Tensor x) { return reduce_prod(x, {0}, true); },
      [](Tensor x) { return cast(reduce_any(x > 4.f, {1}), DType::f32); },
      [](Tensor x) { return cast(reduce_all(x > -7.f), DType::f32); },
      [](Tensor x) {
        return reshape(x, {3, -1});
      },
      [](Tensor x) { return expand_dims(x, 0) + 1.f; },
      [](Tensor x) { return squeeze(expand_dims(x, 1)); },
      [](Tensor x) {
        return slice(x, {0, 1}, {2, 2});
      },
      [](Tensor x) {
        return concat({x, x * 2.f}, 1);
      },
      [&](Tensor x) { return gather(x, idx, 1); },
      [](Tensor x) { return one_hot(cast(abs(x), DType::i32), 4); },
      [](Tensor x) {
        return broadcast_to(reduce_sum(x, {0}), {2, 3});
      },
      [](Tensor x) {
        return x + zeros({2, 3}) + ones({3}) + eye(2, 3);
      },
      [](Tensor x) { return x * range(0.f, 3.f); },
      [](Tensor x) { return exp(x / 4.f) + sqrt(abs(x)) + log(abs(x)); },
      [](Tensor x) { return pow(abs(x), 1.5f) + floor_mod(x, 4.f); },
      [](Tensor x) {
        return conv2d(reshape(x, {1, 2, 3, 1}), ones({1, 2, 1, 2}));
      },
  };
  for (size_t i = 0; i < fs.size(); ++i) {
    auto fn = fs[i];
    auto staged = fnc::function([fn](Tensor x) { return fn(x); });
    Tensor eager = fn(m);
    Tensor got = staged(m);
    ASSERT_EQ(got.shape(), eager.shape()) << "op family " << i;
    std::vector<float> ev = eager.to_vector<float>(),
                       gv = got.to_vector<float>();
    for (size_t k = 0; k < ev.size(); ++k)
      EXPECT_NEAR(gv[k], ev[k], 1e-5 * (1 + std::abs(ev[k])))
          << "op family " << i << " element " << k;
  }
}

/// The pooled results and the input gradient of a loss over both.
std::vector<Tensor> poolAndGrad(const Tensor &x,
                                const std::vector<int64_t> &ksize,
                                const std::vector<int64_t> &strides,
                                const std::string &padding) {
  GradientTape tape;
  tape.watch(x);
  Tensor m = max_pool2d(x, ksize, strides, padding);
  Tensor a = avg_pool2d(x, ksize, strides, padding);
  Tensor loss = reduce_sum(m * m) + reduce_sum(a * m);
  return {m, a, tape.gradient(loss, x)};
}

void expectAllClose(const std::vector<Tensor> &got,
                    const std::vector<Tensor> &want, double tol,
                    const std::string &what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t r = 0; r < want.size(); ++r) {
    ASSERT_EQ(got[r].shape(), want[r].shape()) << what << " result " << r;
    std::vector<double> g = cast(got[r], DType::f64).to_vector<double>(),
                        w = cast(want[r], DType::f64).to_vector<double>();
    for (size_t k = 0; k < w.size(); ++k)
      ASSERT_NEAR(g[k], w[k], tol * (1 + std::abs(w[k])))
          << what << " result " << r << " element " << k;
  }
}

// max_pool2d and avg_pool2d and their gradients (a tape inside the staged
// function: its trace holds fnc.max_pool2d_grad and fnc.avg_pool2d_grad)
// on random shapes, windows (overlapping when the stride is smaller),
// strides and both paddings, float32 and float64: staged == eager. Half the
// trials have ties (values on a coarse grid): the first maximum of each
// window takes the gradient both ways. Then traced once with unknown dims
// and called with several shapes: the backward ops need no known dims.
TEST(FunctionDifferentialTest, PoolingAndItsGradientsAgree) {
  std::mt19937 rng(77);
  std::uniform_int_distribution<int64_t> batch(1, 3), size(1, 8), ch(1, 4),
      win(1, 3), str(1, 3);
  for (int trial = 0; trial < 16; ++trial) {
    DType dtype = trial % 2 ? DType::f64 : DType::f32;
    Shape s = {batch(rng), size(rng), size(rng), ch(rng)};
    std::vector<int64_t> ksize = {win(rng), win(rng)},
                         strides = {str(rng), str(rng)};
    bool same = (trial / 2) % 2 || ksize[0] > s[1] || ksize[1] > s[2];
    std::string padding = same ? "SAME" : "VALID";
    Tensor x = randomTensor(rng, dtype, s);
    if (trial % 4 >= 2)
      x = round(x * 2.0);
    auto fn = [=](Tensor in) {
      return poolAndGrad(in, ksize, strides, padding);
    };
    std::vector<Tensor> want = fn(x);
    auto staged = fnc::function(fn);
    double tol = dtype == DType::f32 ? 1e-5 : 1e-12;
    expectAllClose(staged(x), want, tol,
                   "trial " + std::to_string(trial) + " " + padding);
  }

  FunctionOptions options;
  options.input_signature = {TensorSpec(Shape(4, kUnknownDim), DType::f32)};
  for (std::string padding : {"SAME", "VALID"}) {
    auto staged = fnc::function(
        [padding](Tensor in) {
          return poolAndGrad(in, {3, 2}, {2, 1}, padding);
        },
        options);
    // No dim (nor pooled dim) of size 1: a 1 where unknown dims meet (in
    // a * m) would get a trace of its own.
    for (Shape s : {Shape{2, 7, 5, 3}, Shape{3, 5, 9, 2}, Shape{2, 6, 3, 4}}) {
      Tensor x = randomTensor(rng, DType::f32, s);
      expectAllClose(staged(x), poolAndGrad(x, {3, 2}, {2, 1}, padding), 1e-5,
                     "unknown dims " + padding);
    }
    EXPECT_EQ(staged.tracing_count(), 1);
  }
}

// Every elementwise op of the op table (FncOpTable.inc), on every dtype it
// accepts: staged on arguments it must agree with eager execution (to a
// tolerance for transcendental floats: the compiled code may call other
// implementations); staged on a captured constant, the canonicalizer folds
// it with the same scalar function as the eager kernel, so the two agree
// exactly. A new op of the table is covered without touching this test.
TEST(FunctionDifferentialTest, EveryTableOpStagedAndFoldedMatchesEager) {
  struct TableOp {
    const char *name;
    scalar::DTypes dtypes;
    Tensor (*unary)(const Tensor &);
    Tensor (*binary)(const Tensor &, const Tensor &);
  };
  const TableOp ops[] = {
#define FNC_UNARY_OP(KIND, CLASS, API, DTYPES, ...)                            \
  {#API, scalar::DTypes::DTYPES, &fnc::API, nullptr},
#define FNC_BINARY_OP(KIND, CLASS, API, DTYPES, ...)                           \
  {#API, scalar::DTypes::DTYPES, nullptr, &fnc::API},
#define FNC_COMPARE_OP(KIND, PREDICATE, API, DTYPES)                           \
  {#API, scalar::DTypes::DTYPES, nullptr, &fnc::API},
#include "fnc/Dialect/Fnc/IR/FncOpTable.inc"
  };
  std::mt19937 rng(99);
  // Positive, non-zero values keep every op defined (log, sqrt, division).
  auto draw = [&](DType d, const Shape &s) {
    if (d == DType::i1)
      return cast(randomTensor(rng, DType::i32, s) > 0, DType::i1);
    Tensor t = randomTensor(rng, d, s);
    return isFloat(d) ? abs(t) + 0.25 : floor_mod(abs(t), 5) + 1;
  };
  for (const TableOp &op : ops)
    for (DType d :
         {DType::f32, DType::f64, DType::i1, DType::i32, DType::i64}) {
      if (!scalar::accepts(op.dtypes, d))
        continue;
      SCOPED_TRACE(std::string(op.name) + " " + dtypeName(d));
      Tensor x = draw(d, {3, 4}), y = draw(d, {4});
      Tensor eager = op.unary ? op.unary(x) : op.binary(x, y);
      double tol = isFloat(d) ? (d == DType::f32 ? 1e-5 : 1e-12) : 0;
      auto expectNear = [&](const Tensor &got, double tolerance) {
        ASSERT_EQ(got.shape(), eager.shape());
        ASSERT_EQ(got.dtype(), eager.dtype());
        std::vector<double> e = cast(eager, DType::f64).to_vector<double>(),
                            g = cast(got, DType::f64).to_vector<double>();
        for (size_t k = 0; k < e.size(); ++k)
          EXPECT_NEAR(g[k], e[k], tolerance * (1 + std::abs(e[k])))
              << "element " << k;
      };
      if (op.unary) {
        auto staged = fnc::function([&op](Tensor a) { return op.unary(a); });
        expectNear(staged(x), tol);
        auto folded = fnc::function([&](Tensor unused) { return op.unary(x); });
        expectNear(folded(Tensor(0.f)), 0);
      } else {
        auto staged = fnc::function(
            [&op](Tensor a, Tensor b) { return op.binary(a, b); });
        expectNear(staged(x, y), tol);
        auto folded =
            fnc::function([&](Tensor unused) { return op.binary(x, y); });
        expectNear(folded(Tensor(0.f)), 0);
      }
    }
}

} // namespace
