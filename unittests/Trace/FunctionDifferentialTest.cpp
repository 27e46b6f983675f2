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

#include "fnc/fnc.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

using namespace fnc;

namespace {

struct Instr {
  int op;     // which op
  int a, b;   // operand slots
  int64_t axis;
};

struct Program {
  DType dtype;
  std::vector<Shape> inputShapes;
  std::vector<Instr> body;
};

constexpr int kNumOps = 18;

Program randomProgram(std::mt19937 &rng) {
  Program p;
  std::uniform_int_distribution<int> dt(0, 2);
  const DType dtypes[] = {DType::i32, DType::f64, DType::f32};
  p.dtype = dtypes[dt(rng)];
  std::uniform_int_distribution<int> rankD(1, 3), dimD(1, 4), coin(0, 3);
  Shape base;
  int rank = rankD(rng);
  for (int i = 0; i < rank; ++i)
    base.push_back(dimD(rng));
  int inputs = 2 + coin(rng) % 2;
  for (int i = 0; i < inputs; ++i) {
    Shape s = base;
    for (auto &d : s)
      if (coin(rng) == 0)
        d = 1;
    if (coin(rng) == 0 && !s.empty())
      s.erase(s.begin());
    p.inputShapes.push_back(s);
  }
  std::uniform_int_distribution<int> opD(0, kNumOps - 1), lenD(3, 12);
  int len = lenD(rng);
  for (int i = 0; i < len; ++i) {
    int slots = inputs + i;
    std::uniform_int_distribution<int> slotD(0, slots - 1);
    p.body.push_back({opD(rng), slotD(rng), slotD(rng), 0});
  }
  return p;
}

/// Runs the program on `in` with the public ops (eagerly or while tracing).
Tensor run(const Program &p, const std::vector<Tensor> &in) {
  std::vector<Tensor> v = in;
  bool isInt = p.dtype == DType::i32;
  for (const Instr &i : p.body) {
    const Tensor &a = v[i.a], &b = v[i.b];
    Tensor r;
    switch (i.op) {
    case 0: r = a + b; break;
    case 1: r = a - b; break;
    case 2: r = a * b; break;
    case 3: r = maximum(a, b); break;
    case 4: r = minimum(a, b); break;
    case 5: r = -a; break;
    case 6: r = abs(a); break;
    case 7: r = isInt ? a * 2 : tanh(a); break;
    case 8: r = isInt ? relu(a) : sigmoid(a); break;
    case 9: r = relu(a); break;
    case 10: r = select(a > b, a, b * 2); break;
    case 11: // Keep magnitudes bounded: square of a clipped value.
      r = square(minimum(maximum(a, -3), 3));
      break;
    case 12: // Reduce the last axis, keeping dims so shapes still broadcast.
      r = a.rank() ? reduce_sum(a, {-1}, true) : a;
      break;
    case 13: r = a.rank() ? reduce_max(a, {0}, true) : a; break;
    case 14: r = isInt ? floor_div(a, 3) : floor(a); break;
    case 15: r = cast(cast(a, DType::f64) * 0.5, p.dtype); break;
    case 16: r = a - ones_like(b) + zeros(shape(a), p.dtype); break;
    case 17: r = fill(shape(a, DType::i64), reduce_max(b, {}, false)); break;
    }
    v.push_back(r);
  }
  // Return the last value plus a reduction over everything.
  Tensor total = v.back();
  for (size_t k = in.size(); k + 1 < v.size(); ++k)
    total = total + reduce_sum(v[k]);
  return total;
}

Tensor randomTensor(std::mt19937 &rng, DType dtype, const Shape &shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  std::uniform_real_distribution<double> u(-2, 2);
  std::vector<double> vals(n);
  for (auto &x : vals)
    x = dtype == DType::i32 ? std::round(u(rng) * 3) : u(rng);
  return cast(Tensor(vals, shape), dtype);
}

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
    std::uniform_int_distribution<int> dimD(1, 4), coin(0, 2);
    for (int call = 0; call < 3; ++call) {
      // New dims for the program's broadcast base; a third of them 1.
      size_t rank = 0;
      for (const Shape &s : p.inputShapes)
        rank = std::max(rank, s.size());
      Shape base(rank);
      for (int64_t &d : base)
        d = coin(rng) == 0 ? 1 : dimD(rng);
      std::vector<Tensor> in;
      for (const Shape &s : p.inputShapes) {
        Shape t(base.end() - s.size(), base.end());
        for (size_t k = 0; k < s.size(); ++k)
          if (s[k] == 1 || coin(rng) == 0)
            t[k] = 1;
        in.push_back(randomTensor(rng, p.dtype, t));
      }
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

/// A random program over a float32 state `x` and a variable `v` of the same
/// shape that mixes staged control flow and variable updates; `n` (an int32
/// scalar argument) sets the trip counts and is only known at run time.
struct StateProgram {
  Shape shape;
  std::vector<int> steps; // kinds of run(), below
  std::vector<float> consts;
};

StateProgram randomStateProgram(std::mt19937 &rng) {
  StateProgram p;
  std::uniform_int_distribution<int> rankD(0, 2), dimD(1, 3), kindD(0, 7),
      lenD(2, 6);
  std::uniform_real_distribution<float> c(-1, 1);
  for (int r = rankD(rng); r > 0; --r)
    p.shape.push_back(dimD(rng));
  for (int i = lenD(rng); i > 0; --i) {
    p.steps.push_back(kindD(rng));
    p.consts.push_back(c(rng));
  }
  return p;
}

Tensor runState(const StateProgram &p, const Variable &v, Tensor x,
                const Tensor &n) {
  for (size_t s = 0; s < p.steps.size(); ++s) {
    float k = p.consts[s];
    switch (p.steps[s]) {
    case 0:
      x = x * k + 0.5f;
      break;
    case 1:
      x = cond(reduce_sum(x) > k, [&] { return tanh(x); },
               [&] { return x * 0.5f - 1.f; });
      break;
    case 2:
      x = for_range(0, n, 1,
                    [&](Tensor i, Tensor y) {
                      return y * 0.9f + cast(i, DType::f32) * k;
                    },
                    x);
      break;
    case 3:
      v.assign_add(x * 0.1f);
      x = x + v.read_value();
      break;
    case 4:
      x = std::get<1>(while_loop(
          [&](Tensor c, Tensor) { return c < n; },
          [&](Tensor c, Tensor y) {
            return std::make_tuple(c + 1, tanh(y) + k);
          },
          std::make_tuple(Tensor(0), x)));
      break;
    case 5: // A variable updated in either branch.
      x = cond(reduce_max(x) > k,
               [&] {
                 v.assign(v.read_value() * 0.5f);
                 return x + 1.f;
               },
               [&] {
                 v.assign_sub(x * 0.2f);
                 return x - 1.f;
               });
      break;
    case 6: // Side effects only, once per iteration.
      for_range(0, n, 1, [&](Tensor i) {
        v.assign_add(cast(i, DType::f32) * 0.01f + k);
      });
      x = x - v.read_value() * 0.1f;
      break;
    case 7: // A cond inside a loop body.
      x = for_range(0, n, 1,
                    [&](Tensor i, Tensor y) {
                      return cond(equal(floor_mod(i, 2), 0),
                                  [&] { return y + k; },
                                  [&] { return y * 0.5f; });
                    },
                    x);
      break;
    }
  }
  return x;
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
      [](Tensor x) { return reshape(x, {3, -1}); },
      [](Tensor x) { return expand_dims(x, 0) + 1.f; },
      [](Tensor x) { return squeeze(expand_dims(x, 1)); },
      [](Tensor x) { return slice(x, {0, 1}, {2, 2}); },
      [](Tensor x) { return concat({x, x * 2.f}, 1); },
      [&](Tensor x) { return gather(x, idx, 1); },
      [](Tensor x) { return one_hot(cast(abs(x), DType::i32), 4); },
      [](Tensor x) { return broadcast_to(reduce_sum(x, {0}), {2, 3}); },
      [](Tensor x) { return x + zeros({2, 3}) + ones({3}) + eye(2, 3); },
      [](Tensor x) { return x * range(0, 3); },
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

} // namespace
