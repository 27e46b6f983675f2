//===- ExecutionModesTest.cpp - jit_compile: compiled, graph, tiered ------===//
//
// FunctionOptions::jit_compile: each mode against the others on the same
// program (results, variable updates, random draws, prints, errors), the
// tiered hand-over from the graph executor to the compiled code,
// opt_level, and pow(x, 2) computed as x * x by every kernel.
//
//===----------------------------------------------------------------------===//

#include "Support/CapturedOutput.h"
#include "Support/ExpectError.h"
#include "fnc/Runtime/Runtime.h"
#include "fnc/fnc.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <sstream>
#include <thread>
#include <unistd.h>

using namespace fnc;

namespace {

using fnc::testing::expectError;

/// The unit tests set $FNC_JIT_COMPILE=1 (Support/CompiledByDefault.cpp);
/// these tests are about the modes, the default (tiered) among them.
/// Cleared before a process's first staged function reads it: ctest runs
/// each test in a process of its own (in a run of the whole binary, the
/// first test to stage a function decides).
class ExecutionModesTest : public ::testing::Test {
protected:
  void SetUp() override { ::unsetenv("FNC_JIT_COMPILE"); }
};

using fnc::testing::CapturedOutput;

FunctionOptions mode(std::optional<bool> jit, bool fastMath = false) {
  FunctionOptions o;
  o.jit_compile = jit;
  o.fast_math = fastMath; // libm and in-order sums: the executor's results
  o.cache_dir = "";
  return o;
}

/// A program with every kind of state: a variable read and updated, random
/// draws (seeded and not), a print, a cond and a loop, and enough ops to
/// be tiered.
struct Program {
  Variable v{Tensor({1.f, -2.f, 3.f}), "v"};
  Tensor c = Tensor({0.5f, 0.25f, 2.f});
  std::vector<Tensor> operator()(const Tensor &x) {
    Tensor noise = random_uniform({3}) + random_normal({3}, 0, 1, DType::f32, 7);
    v.assign_add(x * c + noise * 0.01f);
    Tensor s = reduce_sum(v.value());
    Tensor y = cond(
        s > 0.f, [&] { return exp(x) * 2.f; }, [&] { return tanh(x) - 1.f; });
    Tensor acc = for_range(
        0, 4, 1,
        [&](const Tensor &i, const Tensor &a) {
          return a * 0.5f + sin(cast(i, DType::f32));
        },
        y);
    print("s = {}", s);
    for (int k = 0; k < 6; ++k)
      acc = acc + sqrt(abs(acc) + 1.f) * 0.1f;
    return {acc, v.value(), noise};
  }
};

std::vector<std::vector<float>> runFiveCalls(std::optional<bool> jit,
                                             std::string &printed,
                                             bool &compiledAtEnd) {
  set_random_seed(3);
  Program p;
  auto f = fnc::function([&p](const Tensor &x) { return p(x); }, mode(jit));
  std::vector<std::vector<float>> out;
  CapturedOutput captured;
  Tensor x({0.1f, 0.2f, -0.3f});
  for (int i = 0; i < 5; ++i)
    for (const Tensor &t : f(x))
      out.push_back(t.to_vector<float>());
  out.push_back(p.v.value().to_vector<float>());
  printed = captured.str();
  compiledAtEnd = f.get_concrete_function(x).is_compiled();
  EXPECT_GE(f.get_concrete_function(x).op_count(), 24);
  return out;
}

TEST_F(ExecutionModesTest, GraphExecutorAgreesWithCompiledCode) {
  std::string printedCompiled, printedGraph;
  bool compiled = false, graphCompiled = true;
  auto a = runFiveCalls(true, printedCompiled, compiled);
  auto b = runFiveCalls(false, printedGraph, graphCompiled);
  EXPECT_TRUE(compiled);
  EXPECT_FALSE(graphCompiled); // never compiled
  EXPECT_EQ(printedGraph, printedCompiled);
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i)
    for (size_t j = 0; j < a[i].size(); ++j)
      EXPECT_NEAR(a[i][j], b[i][j], 1e-5f * (1 + std::abs(a[i][j])))
          << "tensor " << i << "[" << j << "]";
}

TEST_F(ExecutionModesTest, TieredCallsAgreeAndHandOver) {
  std::string printedCompiled, printedTiered;
  bool compiled = false, tieredCompiled = false;
  auto a = runFiveCalls(true, printedCompiled, compiled);
  auto b = runFiveCalls(std::nullopt, printedTiered, tieredCompiled);
  EXPECT_EQ(printedTiered, printedCompiled);
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i)
    for (size_t j = 0; j < a[i].size(); ++j)
      EXPECT_NEAR(a[i][j], b[i][j], 1e-5f * (1 + std::abs(a[i][j])));

  // compile_seconds() waits for the compile; the calls then run the code.
  set_random_seed(3);
  Program p;
  auto f = fnc::function([&p](const Tensor &x) { return p(x); },
                         mode(std::nullopt));
  Tensor x({0.1f, 0.2f, -0.3f});
  f(x);
  ConcreteFunction c = f.get_concrete_function(x);
  EXPECT_GT(c.compile_seconds(), 0);
  EXPECT_TRUE(c.is_compiled());
  EXPECT_NE(c.ir(IRStage::LLVMIR).find("define"), std::string::npos);
}

// Calls from several threads while the code compiles: each gets its own
// results, from the executor or from the code, across the hand-over (TSan
// runs this test: scripts/sanitize.sh).
TEST_F(ExecutionModesTest, ConcurrentCallsAcrossTheHandOver) {
  auto body = [](const Tensor &x) {
    Tensor y = x;
    for (int k = 0; k < 12; ++k)
      y = tanh(y * 1.5f) + x * 0.25f;
    return reduce_sum(y * y);
  };
  auto compiled = fnc::function(body, mode(true));
  auto tiered = fnc::function(body, mode(std::nullopt));
  constexpr int kThreads = 4;
  std::vector<Tensor> inputs;
  std::vector<float> want;
  for (int t = 0; t < kThreads; ++t) {
    inputs.push_back(cast(fill({16}, 0.1 * (t + 1)), DType::f32));
    want.push_back(compiled(inputs.back()).item<float>());
  }
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < 40; ++i)
        if (std::abs(tiered(inputs[t]).item<float>() - want[t]) >
            1e-5f * (1 + std::abs(want[t])))
          ++wrong;
    });
  for (std::thread &th : threads)
    th.join();
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_GT(tiered.get_concrete_function(inputs[0]).compile_seconds(), 0);
  EXPECT_TRUE(tiered.get_concrete_function(inputs[0]).is_compiled());
}

// jit_compile = false never runs compiled code, even code the compile
// cache holds; unset, a trace the cache holds is loaded at once.
TEST_F(ExecutionModesTest, TheCompileCacheAndTheModes) {
  std::string dir = ::testing::TempDir() + "fnc-modes-cache-" +
                    std::to_string(::getpid());
  Program p;
  auto body = [&p](const Tensor &x) { return p(x); };
  Tensor x({0.1f, 0.2f, -0.3f});
  FunctionOptions o = mode(true);
  o.cache_dir = dir;
  fnc::function(body, o)(x); // stores the code
  o.jit_compile = false;
  auto graph = fnc::function(body, o);
  graph(x);
  EXPECT_FALSE(graph.get_concrete_function(x).is_compiled());
  o.jit_compile = std::nullopt;
  auto tiered = fnc::function(body, o);
  tiered(x);
  // (The program prints: its code is stored, docs/Cache.md.)
  EXPECT_TRUE(tiered.get_concrete_function(x).is_compiled());
}

// A tiered function dropped right after its first call drops its queued
// compile (the background thread skips it); the thread serves the next one.
TEST_F(ExecutionModesTest, DroppedFunctionsDropTheirQueuedCompiles) {
  Tensor x({0.1f, 0.2f, -0.3f});
  std::vector<float> want;
  for (int i = 0; i < 6; ++i) {
    Program p;
    auto f = fnc::function([&p](const Tensor &x) { return p(x); },
                           mode(std::nullopt));
    CapturedOutput quiet;
    std::vector<float> got = f(x)[0].to_vector<float>();
    if (want.empty())
      want = got;
    EXPECT_EQ(got.size(), want.size());
  }
  Program p;
  auto kept = fnc::function([&p](const Tensor &x) { return p(x); },
                            mode(std::nullopt));
  CapturedOutput quiet;
  kept(x);
  EXPECT_GT(kept.get_concrete_function(x).compile_seconds(), 0);
  EXPECT_TRUE(kept.get_concrete_function(x).is_compiled());
}

TEST_F(ExecutionModesTest, SmallTracesAreCompiledAtOnceWhenUnset) {
  auto f = fnc::function([](const Tensor &x) { return x * 2.f + 1.f; },
                         mode(std::nullopt));
  Tensor x({1.f});
  EXPECT_EQ(f(x).to_vector<float>(), std::vector<float>{3.f});
  EXPECT_TRUE(f.get_concrete_function(x).is_compiled());
}

TEST_F(ExecutionModesTest, GraphResultsDoNotShareTheVariable) {
  Variable v(Tensor({1.f, 2.f}), "v");
  auto f = fnc::function([&] { return v.value(); }, mode(false));
  Tensor before = f();
  v.assign(Tensor({5.f, 6.f}));
  EXPECT_EQ(before.to_vector<float>(), (std::vector<float>{1.f, 2.f}));
  EXPECT_EQ(f().to_vector<float>(), (std::vector<float>{5.f, 6.f}));
  EXPECT_FALSE(f.get_concrete_function().is_compiled());
  EXPECT_EQ(f.get_concrete_function().compile_seconds(), 0);
  EXPECT_NE(f.get_concrete_function().ir().find("fnc.var_read"),
            std::string::npos);
}

// A value read from a variable before the function updates it is the old
// value in every mode (the graph executor returned the variable's buffer,
// which the update then overwrote: found by a gradient test whose forward
// returns such reads).
TEST_F(ExecutionModesTest, ReadsBeforeAnUpdateKeepTheOldValue) {
  for (std::optional<bool> jit : {std::optional<bool>(false), {true}}) {
    SCOPED_TRACE(*jit ? "compiled" : "graph executor");
    Variable v(Tensor({1.f, 2.f}), "v");
    auto f = fnc::function(
        [&](Tensor x) {
          Tensor r = v.read_value();
          v.assign(r * 2.f);
          std::vector<Tensor> inCond = cond(
              reduce_sum(x) > 0.f,
              [&] {
                Tensor q = v.read_value();
                v.assign_add(x);
                return std::vector<Tensor>{q, v.read_value()};
              },
              [&] { return std::vector<Tensor>{x, x}; });
          return std::vector<Tensor>{r, inCond[0], inCond[1]};
        },
        mode(jit));
    std::vector<Tensor> out = f(Tensor({1.f, 1.f}));
    EXPECT_EQ(out[0].to_vector<float>(), (std::vector<float>{1.f, 2.f}));
    EXPECT_EQ(out[1].to_vector<float>(), (std::vector<float>{2.f, 4.f}));
    EXPECT_EQ(out[2].to_vector<float>(), (std::vector<float>{3.f, 5.f}));
    EXPECT_EQ(v.read_value().to_vector<float>(),
              (std::vector<float>{3.f, 5.f}));
  }
}

TEST_F(ExecutionModesTest, GraphExecutorErrorsNameTheFunction) {
  FunctionOptions o = mode(false);
  o.name = "lookup";
  auto f = fnc::function(
      [](const Tensor &table, const Tensor &i) { return gather(table, i); },
      o);
  Tensor table({1.f, 2.f, 3.f});
  EXPECT_EQ(f(table, Tensor(int32_t{2})).item<float>(), 3.f);
  expectError([&] { f(table, Tensor(int32_t{7})); }, ErrorKind::OutOfRange,
              {"`lookup`", "out of range"});
}

// A call under a tape runs the function's residual forward and backward as
// functions of the same mode: nothing waits for (or runs) a compile.
TEST_F(ExecutionModesTest, GradientsOfGraphExecutedFunctionsStayUncompiled) {
  Variable w(Tensor({0.5f, -1.f}), "w");
  auto f = fnc::function(
      [&](const Tensor &x) { return reduce_sum(w.value() * x * x); },
      mode(false));
  Tensor x({3.f, 2.f});
  EXPECT_FLOAT_EQ(f(x).item<float>(), 0.5f * 9 - 4.f);
  GradientTape tape;
  tape.watch(x);
  Tensor y = f(x);
  Tensor g = tape.gradient(y, x);
  EXPECT_EQ(g.to_vector<float>(), (std::vector<float>{3.f, -4.f}));
  EXPECT_FALSE(f.get_concrete_function(x).is_compiled());
}

TEST_F(ExecutionModesTest, OptLevels) {
  Tensor x = random_uniform({64});
  std::vector<float> want;
  for (unsigned level : {0u, 1u, 3u}) {
    FunctionOptions o = mode(true);
    o.opt_level = level;
    auto f = fnc::function(
        [](const Tensor &x) { return reduce_sum(exp(x) * x); }, o);
    std::vector<float> got = f(x).to_vector<float>();
    if (want.empty())
      want = got;
    EXPECT_EQ(got, want) << "opt_level " << level;
  }
  FunctionOptions bad;
  bad.opt_level = 4;
  expectError([&] { fnc::function([](const Tensor &x) { return x; }, bad); },
              ErrorKind::InvalidArgument, {"opt_level must be 0 to 3"});
}

// pow(x, 2) is x * x everywhere (numpy's x ** 2 is too): eagerly by a
// scalar or by a tensor of twos (reference and compiled kernels), staged
// with a constant or a run-time exponent, at edge values and at a square
// that is a midpoint between two floats (1 + 2^-12), where a pow that is
// not correctly rounded could round the other way.
template <typename T> void checkPowOfTwo(DType dtype) {
  const T inf = std::numeric_limits<T>::infinity();
  std::vector<T> values = {T(1) + std::ldexp(T(1), -12), -3, -0.0, 0,
                           std::numeric_limits<T>::denorm_min(), inf, -inf,
                           std::numeric_limits<T>::quiet_NaN(), T(1.5e19)};
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> uniform(-1e3, 1e3);
  for (int i = 0; i < 5000; ++i) // big enough for the compiled kernels
    values.push_back(static_cast<T>(uniform(rng)));
  Tensor x = Tensor::from_blob(values.data(), {int64_t(values.size())});
  ASSERT_EQ(x.dtype(), dtype);
  std::vector<T> square = (x * x).template to_vector<T>();
  Tensor two = cast(Tensor(2.0), dtype);
  Tensor twos = cast(fill({int64_t(values.size())}, 2.0), dtype);
  Tensor small = slice(x, {0}, {9});
  auto body = [](const Tensor &a, const Tensor &b) {
    return std::vector<Tensor>{pow(a, 2), pow(a, b)};
  };
  auto staged = fnc::function(body, mode(true));
  auto graph = fnc::function(body, mode(false)); // the reference kernels
  std::vector<std::vector<T>> got = {
      pow(x, 2).template to_vector<T>(), pow(x, two).template to_vector<T>(),
      pow(x, twos).template to_vector<T>(),
      staged(x, twos)[0].template to_vector<T>(),
      staged(x, twos)[1].template to_vector<T>(),
      graph(x, twos)[0].template to_vector<T>(),
      graph(x, twos)[1].template to_vector<T>()};
  for (size_t k = 0; k < got.size(); ++k)
    for (size_t i = 0; i < values.size(); ++i)
      EXPECT_TRUE(std::memcmp(&got[k][i], &square[i], sizeof(T)) == 0 ||
                  (std::isnan(got[k][i]) && std::isnan(square[i])))
          << "way " << k << ", pow(" << values[i] << ", 2) = " << got[k][i]
          << ", x * x = " << square[i];
  // Small tensors stay on the reference kernels eagerly too.
  std::vector<T> ref =
      pow(small, cast(fill({9}, 2.0), dtype)).template to_vector<T>();
  for (size_t i = 0; i < ref.size(); ++i)
    EXPECT_TRUE(ref[i] == square[i] ||
                (std::isnan(ref[i]) && std::isnan(square[i])))
        << i;
}

TEST_F(ExecutionModesTest, PowOfTwoIsTheSquareEverywhere) {
  checkPowOfTwo<float>(DType::f32);
  checkPowOfTwo<double>(DType::f64);
  // The tapes still see pow: the exponent has its gradient.
  Tensor x({3.f}), y(2.f);
  GradientTape tape;
  tape.watch(x);
  tape.watch(y);
  Tensor z = pow(x, y);
  std::vector<Tensor> g = tape.gradient(z, std::vector<Tensor>{x, y});
  EXPECT_FLOAT_EQ(g[0].item<float>(), 6.f);
  EXPECT_FLOAT_EQ(g[1].item<float>(), 9.f * std::log(3.f));
}

} // namespace
