//===- StateTest.cpp - Tests of variables, staged control flow, effects ---===//
//
// fnc::Variable (eager, staged, lifting, the singleton rule, variables as
// arguments), fnc::cond / while_loop / for_range / switch_case (eager and
// staged agreeing, structural errors, variables inside regions), fnc::print
// and the random ops, and the seeds' examples (Count, the C++ side effect
// that happens once, the loop over C++ data that unrolls).
//
//===----------------------------------------------------------------------===//

#include "Support/CapturedOutput.h"
#include "Support/ExpectError.h"
#include "fnc/fnc.h"
#include "fnc/Runtime/Runtime.h"

#include <gtest/gtest.h>

#include <functional>
#include <sstream>

using namespace fnc;

namespace {

using fnc::testing::expectError;

/// Captures what eager and staged fnc::print write.
using fnc::testing::CapturedOutput;

//===----------------------------------------------------------------------===//
// Variables
//===----------------------------------------------------------------------===//

TEST(VariableTest, EagerOpsUpdateInPlaceAndHandlesShare) {
  Variable v(Tensor({1.f, 2.f}), "v");
  Variable copy = v;
  Tensor before = v.read_value();
  EXPECT_EQ(v.assign_add(Tensor({10.f, 20.f})).to_vector<float>(),
            (std::vector<float>{11, 22}));
  EXPECT_EQ(copy.read_value().to_vector<float>(),
            (std::vector<float>{11, 22}));
  EXPECT_EQ(before.to_vector<float>(), (std::vector<float>{1, 2}));
  copy.assign_sub(1.f);
  EXPECT_EQ(Tensor(v).to_vector<float>(), (std::vector<float>{10, 21}));
  v.assign(0);
  EXPECT_EQ(v.read_value().to_vector<float>(), (std::vector<float>{0, 0}));
  EXPECT_EQ(v.dtype(), DType::f32);
  EXPECT_EQ(v.shape(), (std::vector<int64_t>{2}));
  EXPECT_EQ((v + 1.f).to_vector<float>(), (std::vector<float>{1, 1}));
}

TEST(VariableTest, Errors) {
  Variable v(Tensor(1.f), "w");
  expectError([&] { v.assign(Tensor(int32_t(1))); },
              ErrorKind::InvalidArgument, {"`w`", "int32", "fnc::cast"});
  expectError([&] { v.assign(Tensor({1.f, 2.f})); },
              ErrorKind::InvalidArgument, {"keeps its shape"});
  Variable null;
  expectError([&] { null.read_value(); }, ErrorKind::FailedPrecondition,
              {"null handle"});
}

TEST(VariableTest, ModelCounter) {
  // The seeds' Model: a counter variable incremented by a staged call.
  struct Model {
    Variable v{Tensor(0)};
    Function<std::function<Tensor()>> step = fnc::function(
        std::function<Tensor()>([this] { return v.assign_add(1); }));
  };
  Model m;
  EXPECT_EQ(m.step().item<int32_t>(), 1);
  EXPECT_EQ(m.step().item<int32_t>(), 2);
  EXPECT_EQ(m.step().item<int32_t>(), 3);
  EXPECT_EQ(m.step.tracing_count(), 1);
  EXPECT_EQ(m.v.read_value().item<int32_t>(), 3);
}

TEST(VariableTest, CapturedByReferenceSeesLaterAssigns) {
  Variable foo(Tensor(1));
  auto variable_add = fnc::function([&] { return 1 + foo; });
  EXPECT_EQ(variable_add().item<int32_t>(), 2);
  foo.assign(100);
  EXPECT_EQ(variable_add().item<int32_t>(), 101);
  EXPECT_EQ(variable_add.tracing_count(), 1);
  auto ir = variable_add.get_concrete_function().ir();
  EXPECT_NE(ir.find("!fnc.variable<tensor<i32>>"), std::string::npos) << ir;
  EXPECT_NE(ir.find("fnc.var_read"), std::string::npos) << ir;
}

TEST(VariableTest, CreatedOnTheFirstTraceAndReused) {
  auto fn = [] {
    Variable x(Tensor(0.f));
    x.assign_add(1.f);
    return x.read_value();
  };
  // Eager: a new variable every call.
  EXPECT_EQ(fn().item<float>(), 1.f);
  EXPECT_EQ(fn().item<float>(), 1.f);
  auto compiled = fnc::function(fn);
  EXPECT_EQ(compiled().item<float>(), 1.f);
  EXPECT_EQ(compiled().item<float>(), 2.f);
  EXPECT_EQ(compiled.tracing_count(), 1);
}

TEST(VariableTest, SingletonRule) {
  auto f = fnc::function([](Tensor x) {
    Variable v(Tensor(1.f));
    v.assign_add(x);
    return v.read_value();
  });
  EXPECT_EQ(f(Tensor(1.f)).item<float>(), 2.f);
  // A new trace (new shape) would create another variable.
  expectError([&] { f(Tensor({1.f, 2.f})); }, ErrorKind::FailedPrecondition,
              {"fnc::function only supports singleton variables created on "
               "the first call"});

  // Creating only on the first call is fine.
  Variable lazy;
  auto g = fnc::function([&](Tensor x) {
    if (!lazy.defined())
      lazy = Variable(Tensor(0.f));
    return lazy.assign_add(reduce_sum(x));
  });
  EXPECT_EQ(g(Tensor(1.f)).item<float>(), 1.f);
  EXPECT_EQ(g(Tensor({1.f, 2.f})).item<float>(), 4.f);
  EXPECT_EQ(g.tracing_count(), 2);
}

TEST(VariableTest, SymbolicInitialValueIsAnError) {
  auto f = fnc::function([](Tensor x) {
    Variable v(x);
    return v.read_value();
  });
  expectError([&] { f(Tensor(1.f)); }, ErrorKind::InvalidArgument,
              {"initial value is a symbolic tensor"});
}

TEST(VariableTest, PassedAsArgumentKeyedByIdentity) {
  auto f = fnc::function([](Variable v, Tensor x) { return v.assign_add(x); });
  Variable a(Tensor(0.f)), b(Tensor(10.f));
  EXPECT_EQ(f(a, Tensor(1.f)).item<float>(), 1.f);
  EXPECT_EQ(f(a, Tensor(2.f)).item<float>(), 3.f);
  EXPECT_EQ(f.tracing_count(), 1);
  EXPECT_EQ(f(b, Tensor(1.f)).item<float>(), 11.f);
  EXPECT_EQ(f.tracing_count(), 2);
  EXPECT_EQ(a.read_value().item<float>(), 3.f);
  EXPECT_NE(f.pretty_printed_concrete_signatures().find(
                "float32 Variable, shape=()"),
            std::string::npos)
      << f.pretty_printed_concrete_signatures();
}

TEST(VariableTest, EagerModeMatches) {
  Variable v(Tensor({1, 2}));
  auto f = fnc::function([&](Tensor x) {
    v.assign_add(x);
    v.assign_sub(Tensor({1, 1}));
    return v.read_value() * 2;
  });
  Tensor staged = f(Tensor({5, 5}));
  v.assign(Tensor({1, 2}));
  run_functions_eagerly(true);
  Tensor eager = f(Tensor({5, 5}));
  run_functions_eagerly(false);
  EXPECT_EQ(staged.to_vector<int32_t>(), eager.to_vector<int32_t>());
  EXPECT_EQ(staged.to_vector<int32_t>(), (std::vector<int32_t>{10, 12}));
}

// A read is a snapshot: assignments after it do not change what it gave,
// while the compiled code reads variables in place where it can
// (-fnc-elide-snapshot-copies). Reads before, between and after in-place,
// transposing and accumulating updates, in a loop of calls, staged against
// eager.
// What an eager update returns is the new value, which later updates do
// not change (the sum is returned, not the variable's buffer).
TEST(VariableTest, UpdatesReturnSnapshots) {
  Variable v(Tensor({1.f, 2.f}), "v");
  Tensor g({1.f, 1.f});
  Tensor added = v.assign_add(g);
  Tensor subtracted = v.assign_sub(g * 4.f);
  Tensor assigned = v.assign(g);
  v.assign_add(g);
  EXPECT_EQ(added.to_vector<float>(), (std::vector<float>{2.f, 3.f}));
  EXPECT_EQ(subtracted.to_vector<float>(), (std::vector<float>{-2.f, -1.f}));
  EXPECT_EQ(assigned.to_vector<float>(), (std::vector<float>{1.f, 1.f}));
  EXPECT_EQ(g.to_vector<float>(), (std::vector<float>{1.f, 1.f}));
  EXPECT_EQ(v.read_value().to_vector<float>(), (std::vector<float>{2.f, 2.f}));
}

TEST(VariableTest, ReadsAreSnapshots) {
  auto run = [](bool eagerly) {
    Variable v(Tensor({{1.f, 2.f}, {3.f, 4.f}}), "v");
    Variable m(Tensor({{0.5f, -1.f}, {2.f, 0.f}}), "m");
    auto f = fnc::function([&](Tensor g) {
      Tensor before = v.read_value();
      v.assign(before * 2.f + g); // elementwise, in place
      Tensor after = v.read_value();
      v.assign(transpose(v.read_value())); // not elementwise
      Tensor mOld = m.read_value();
      m.assign_add((g - mOld) * 0.5f); // overwrites a snapshot first
      Tensor mNew = m.read_value();
      v.assign_sub(matmul(mNew, after));
      return before + after * 10.f + v.read_value() * 100.f + mOld * 1000.f;
    });
    run_functions_eagerly(eagerly);
    std::vector<std::vector<float>> out;
    for (float k : {1.f, -2.f, 0.5f})
      out.push_back(f(Tensor({{k, 2 * k}, {-k, 0.f}})).to_vector<float>());
    out.push_back(v.read_value().to_vector<float>());
    out.push_back(m.read_value().to_vector<float>());
    run_functions_eagerly(false);
    return out;
  };
  std::vector<std::vector<float>> staged = run(false), eager = run(true);
  ASSERT_EQ(staged.size(), eager.size());
  for (size_t i = 0; i < staged.size(); ++i)
    for (size_t j = 0; j < staged[i].size(); ++j)
      EXPECT_NEAR(staged[i][j], eager[i][j], 1e-3 * (1 + std::abs(eager[i][j])))
          << i << "," << j;
}

//===----------------------------------------------------------------------===//
// Control flow
//===----------------------------------------------------------------------===//

Tensor absCond(Tensor x) {
  return cond(reduce_sum(x) > 0.f, [&] { return x; }, [&] { return -x; });
}

TEST(ControlTest, CondEagerAndStaged) {
  auto f = fnc::function(&absCond);
  for (float s : {3.f, -2.f}) {
    Tensor x = Tensor({s, 1.f});
    EXPECT_EQ(f(x).to_vector<float>(), absCond(x).to_vector<float>());
  }
  EXPECT_EQ(f.tracing_count(), 1);
  EXPECT_NE(f.get_concrete_function(Tensor({1.f, 1.f})).ir().find("fnc.cond"),
            std::string::npos);
}

TEST(ControlTest, CondBranchMismatch) {
  auto f = fnc::function([](Tensor x) {
    return cond(reduce_sum(x) > 0.f, [&] { return x; },
                [&] { return reshape(concat({x, x}, 0), {1, 2}); });
  });
  expectError([&] { f(Tensor({1.f})); }, ErrorKind::InvalidArgument,
              {"fnc::cond", "float32[1]", "float32[1, 2]", "ranks"});
  auto g = fnc::function([](Tensor x) {
    return cond(x > 0.f, [&] { return x; }, [&] { return cast(x, DType::i32); });
  });
  expectError([&] { g(Tensor(1.f)); }, ErrorKind::InvalidArgument,
              {"int32"});
  expectError([&] { absCond(Tensor(1.f)) ; cond(Tensor(1), [] {}, [] {}); },
              ErrorKind::InvalidArgument, {"scalar bool"});
}

TEST(ControlTest, CondAssignsVariables) {
  Variable hits(Tensor(0)), misses(Tensor(0));
  auto f = fnc::function([&](Tensor x) {
    cond(x > 0, [&] { hits.assign_add(1); }, [&] { misses.assign_add(1); });
  });
  for (int v : {1, -1, 2, 3})
    f(Tensor(v));
  EXPECT_EQ(hits.read_value().item<int32_t>(), 3);
  EXPECT_EQ(misses.read_value().item<int32_t>(), 1);
  EXPECT_EQ(f.tracing_count(), 1);
}

TEST(ControlTest, WhileLoopSum) {
  auto sum = [](Tensor n) {
    auto r = while_loop([&](Tensor i, Tensor) { return i < n; },
                        [](Tensor i, Tensor acc) {
                          return std::make_tuple(i + 1, acc + i);
                        },
                        std::make_tuple(Tensor(0), Tensor(0)));
    return std::get<1>(r);
  };
  auto f = fnc::function(sum);
  EXPECT_EQ(f(Tensor(10)).item<int32_t>(), 45);
  EXPECT_EQ(f(Tensor(100)).item<int32_t>(), 4950);
  EXPECT_EQ(sum(Tensor(10)).item<int32_t>(), 45);
  EXPECT_EQ(f.tracing_count(), 1);
}

TEST(ControlTest, ForRangeAndVectorLoopVars) {
  auto body = [](Tensor x) {
    return for_range(0, 5, 1,
                     [](Tensor i, std::vector<Tensor> v) {
                       return std::vector<Tensor>{v[0] * 2.f,
                                                  v[1] + cast(i, DType::f32)};
                     },
                     std::vector<Tensor>{x, Tensor(0.f)});
  };
  auto f = fnc::function(body);
  auto s = f(Tensor({1.f, 2.f}));
  auto e = body(Tensor({1.f, 2.f}));
  EXPECT_EQ(s[0].to_vector<float>(), (std::vector<float>{32, 64}));
  EXPECT_EQ(s[1].item<float>(), 10.f);
  EXPECT_EQ(e[0].to_vector<float>(), s[0].to_vector<float>());
  EXPECT_EQ(e[1].item<float>(), s[1].item<float>());
  // Counting down, symbolic bounds.
  auto down = fnc::function([](Tensor n) {
    return for_range(n, Tensor(0), Tensor(-2),
                     [](Tensor i, Tensor acc) { return acc + i; }, Tensor(0));
  });
  EXPECT_EQ(down(Tensor(10)).item<int32_t>(), 10 + 8 + 6 + 4 + 2);
}

TEST(ControlTest, LoopVariableShapeChangeIsAnError) {
  auto f = fnc::function([](Tensor x) {
    return while_loop([](Tensor v) { return reduce_sum(v) < 100.f; },
                      [](Tensor v) { return concat({v, v}, 0); }, x);
  });
  expectError([&] { f(Tensor({1.f})); }, ErrorKind::InvalidArgument,
              {"fnc::while_loop", "loop variable #0", "float32[1]",
               "float32[2]"});
  expectError(
      [] {
        while_loop([](Tensor v) { return reduce_sum(v) < 100.f; },
                   [](Tensor v) { return concat({v, v}, 0); },
                   Tensor({1.f}));
      },
      ErrorKind::InvalidArgument, {"loop variable #0"});
}

TEST(ControlTest, ShapeInvariantsLetALoopVariableGrow) {
  // Collatz sequence of a run-time start value: its length is only known at
  // run time. The sequence grows by one element per iteration.
  auto collatz = [](Tensor start) {
    LoopOptions options;
    options.shape_invariants = {{}, {kUnknownDim}};
    auto [last, seq] = while_loop(
        [](Tensor x, Tensor) { return x != 1; },
        [](Tensor x, Tensor seq) {
          Tensor next = select(floor_mod(x, 2) == 0, floor_div(x, 2), 3 * x + 1);
          return std::make_tuple(next, concat({seq, reshape(next, {1})}, 0));
        },
        std::make_tuple(start, reshape(start, {1})), options);
    (void)last;
    return seq;
  };
  int64_t bodyTraces = 0;
  auto staged = fnc::function([&](Tensor start) {
    ++bodyTraces;
    Tensor seq = collatz(start);
    EXPECT_EQ(seq.shape(), (Shape{kUnknownDim})); // unknown while tracing
    return seq;
  });
  for (int32_t n : {1, 6, 7, 27}) {
    Tensor eager = collatz(Tensor(n));
    Tensor got = staged(Tensor(n));
    EXPECT_EQ(got.to_vector<int32_t>(), eager.to_vector<int32_t>()) << n;
  }
  EXPECT_EQ(staged(Tensor(6)).to_vector<int32_t>(),
            (std::vector<int32_t>{6, 3, 10, 5, 16, 8, 4, 2, 1}));
  EXPECT_EQ(staged(Tensor(27)).shape(), (Shape{112}));
  EXPECT_EQ(bodyTraces, 1);

  // for_range: a (None, 2) matrix that doubles its rows each iteration; the
  // known dim stays known.
  auto doubling = fnc::function([](Tensor n, Tensor m) {
    LoopOptions options;
    options.shape_invariants = {{kUnknownDim, 2}};
    Tensor r = for_range(
        0, n, 1,
        [](Tensor i, Tensor a) {
          EXPECT_EQ(a.shape(), (Shape{kUnknownDim, 2}));
          return concat({a, a + cast(i, DType::f32)}, 0);
        },
        m, options);
    EXPECT_EQ(r.shape(), (Shape{kUnknownDim, 2}));
    return reduce_sum(r, {0}, false);
  });
  Tensor m = Tensor{{1.f, 2.f}};
  for (int32_t n : {0, 1, 3}) {
    Tensor a = m;
    for (int32_t i = 0; i < n; ++i)
      a = concat({a, a + static_cast<float>(i)}, 0);
    EXPECT_EQ(doubling(Tensor(n), m).to_vector<float>(),
              reduce_sum(a, {0}, false).to_vector<float>())
        << n;
  }
  EXPECT_EQ(doubling.tracing_count(), 1);
}

TEST(ControlTest, ShapeInvariantErrors) {
  auto body = [](Tensor v) { return concat({v, v}, 0); };
  auto cond = [](Tensor v) { return reduce_sum(v) < 100.f; };
  LoopOptions two;
  two.shape_invariants = {{kUnknownDim}, {}};
  expectError([&] { while_loop(cond, body, Tensor({1.f}), two); },
              ErrorKind::InvalidArgument,
              {"fnc::while_loop: 2 shape invariants for 1 tensor loop variable"});
  LoopOptions rank;
  rank.shape_invariants = {{kUnknownDim, kUnknownDim}};
  expectError([&] { while_loop(cond, body, Tensor({1.f}), rank); },
              ErrorKind::InvalidArgument,
              {"loop variable #0 is float32[1] but its shape invariant is "
               "(kUnknownDim, kUnknownDim)"});
  LoopOptions fixed;
  fixed.shape_invariants = {{2}};
  expectError([&] { while_loop(cond, body, Tensor({1.f}), fixed); },
              ErrorKind::InvalidArgument, {"shape invariant is (2)"});
  // A body that changes a dim the invariant keeps known, eager and staged.
  LoopOptions rows;
  rows.shape_invariants = {{kUnknownDim, 1}};
  auto widen = [](Tensor v) { return concat({v, v}, 1); };
  auto sum = [](Tensor v) { return reduce_sum(v) < 100.f; };
  expectError([&] { while_loop(sum, widen, Tensor({{1.f}}), rows); },
              ErrorKind::InvalidArgument,
              {"loop variable #0 is float32[?, 1] by its shape invariant but "
               "float32[1, 2] after the body", "shape_invariants"});
  auto f = fnc::function([&](Tensor x) {
    return while_loop(sum, widen, x, rows);
  });
  expectError([&] { f(Tensor({{1.f}})); }, ErrorKind::InvalidArgument,
              {"fnc::while_loop: loop variable #0 is float32[?, 1] by its "
               "shape invariant but float32[?, 2] after the body"});
  // -1 is accepted as an unknown dim, and for_range numbers its own
  // variables from 0.
  LoopOptions minusOne;
  minusOne.shape_invariants = {{-1}};
  EXPECT_EQ(for_range(0, 2, 1, [](Tensor, Tensor v) { return concat({v, v}, 0); },
                      Tensor({1.f}), minusOne)
                .shape(),
            (Shape{4}));
  expectError(
      [&] {
        for_range(0, 2, 1, [](Tensor, Tensor v) { return concat({v, v}, 0); },
                  Tensor({1.f}));
      },
      ErrorKind::InvalidArgument, {"fnc::for_range: loop variable #0 is"});
}

TEST(ControlTest, LeakingABranchValueIsAnError) {
  auto f = fnc::function([](Tensor x) {
    Tensor inner;
    cond(x > 0.f, [&] { inner = x * 2.f; }, [] {});
    return inner + 1.f;
  });
  expectError([&] { f(Tensor(1.f)); }, ErrorKind::InvalidArgument,
              {"inside a branch"});
}

TEST(ControlTest, ForRangeSideEffectsOnly) {
  Variable total(Tensor(0));
  auto f = fnc::function([&](Tensor n) {
    for_range(0, n, 1, [&](Tensor i) { total.assign_add(i); });
  });
  f(Tensor(5));
  EXPECT_EQ(total.read_value().item<int32_t>(), 10);
  f(Tensor(3));
  EXPECT_EQ(total.read_value().item<int32_t>(), 13);
}

TEST(ControlTest, SwitchCase) {
  auto pick = [](Tensor k) {
    return switch_case(
        k, [] { return Tensor(10); }, [] { return Tensor(20); },
        [] { return Tensor(30); });
  };
  auto f = fnc::function(pick);
  for (int k : {0, 1, 2, 7, -1})
    EXPECT_EQ(f(Tensor(k)).item<int32_t>(), pick(Tensor(k)).item<int32_t>());
  EXPECT_EQ(f(Tensor(1)).item<int32_t>(), 20);
  EXPECT_EQ(f(Tensor(9)).item<int32_t>(), 30);
}

TEST(ControlTest, TrainingFlagGivesTwoTraces) {
  set_random_seed(3);
  auto lossy_matmul = fnc::function([](Tensor W, Tensor x, bool training) {
    Tensor outputs = matmul(W, x);
    if (training)
      outputs = dropout(outputs, 0.2);
    return outputs;
  });
  Tensor W = random_normal({3, 5}), x = random_normal({5, 1});
  Tensor lossy = lossy_matmul(W, x, true);
  Tensor exact = lossy_matmul(W, x, false);
  EXPECT_EQ(lossy_matmul.tracing_count(), 2);
  EXPECT_EQ(exact.shape(), (std::vector<int64_t>{3, 1}));
  std::vector<float> e = exact.to_vector<float>(), l = lossy.to_vector<float>();
  for (size_t i = 0; i < e.size(); ++i)
    EXPECT_TRUE(l[i] == 0.f || std::abs(l[i] - e[i] / 0.8f) < 1e-4f)
        << l[i] << " vs " << e[i];
}

//===----------------------------------------------------------------------===//
// Print and random
//===----------------------------------------------------------------------===//

TEST(EffectsTest, PrintEagerAndStagedAgree) {
  auto body = [](Tensor x) {
    print("x = {}, sum = {}", x, reduce_sum(x));
    print("values", x, Tensor(2));
  };
  std::string eager, staged;
  {
    CapturedOutput out;
    body(Tensor({1.f, 2.f}));
    eager = out.str();
  }
  auto f = fnc::function(body);
  {
    CapturedOutput out;
    f(Tensor({1.f, 2.f}));
    f(Tensor({1.f, 2.f}));
    staged = out.str();
  }
  EXPECT_EQ(eager, "x = [1. 2.], sum = 3.0\nvalues [1. 2.] 2\n");
  EXPECT_EQ(staged, eager + eager);
}

TEST(EffectsTest, PrintWithoutAFormat) {
  auto body = [](Tensor x) { print(x, x * 2.f); };
  std::string eager, staged;
  {
    CapturedOutput out;
    body(Tensor({1.f, 2.f}));
    print(Tensor(3));
    eager = out.str();
  }
  EXPECT_EQ(eager, "[1. 2.] [2. 4.]\n3\n");
  auto f = fnc::function(body);
  {
    CapturedOutput out;
    f(Tensor({1.f, 2.f}));
    staged = out.str();
  }
  EXPECT_EQ(staged, "[1. 2.] [2. 4.]\n");
}

TEST(EffectsTest, FizzBuzz) {
  // The seeds' fizzbuzz: trace-time output once, run-time output every call.
  std::ostringstream traceTime;
  auto fizzbuzz = fnc::function([&](Tensor n) {
    traceTime << "Tracing fizzbuzz\n";
    for_range(1, n + 1, 1, [](Tensor i) {
      Tensor k = cast(floor_mod(i, 3) == 0, DType::i32) +
                 2 * cast(floor_mod(i, 5) == 0, DType::i32);
      switch_case(
          k, [&] { print("", i); }, [] { print("Fizz"); },
          [] { print("Buzz"); }, [] { print("FizzBuzz"); });
    });
  });
  std::string run;
  {
    CapturedOutput out;
    fizzbuzz(Tensor(15));
    fizzbuzz(Tensor(5));
    run = out.str();
  }
  EXPECT_EQ(traceTime.str(), "Tracing fizzbuzz\n");
  EXPECT_EQ(run, "1\n2\nFizz\n4\nBuzz\nFizz\n7\n8\nFizz\nBuzz\n11\nFizz\n13\n"
                 "14\nFizzBuzz\n1\n2\nFizz\n4\nBuzz\n");
}

TEST(EffectsTest, RandomFreshAndReproducible) {
  auto f = fnc::function([] { return random_uniform({4}, 0, 1, DType::f32, 7); });
  set_random_seed(42);
  auto a1 = f().to_vector<float>(), a2 = f().to_vector<float>();
  auto e1 = random_normal({3}).to_vector<float>();
  set_random_seed(42);
  auto b1 = f().to_vector<float>(), b2 = f().to_vector<float>();
  auto e2 = random_normal({3}).to_vector<float>();
  EXPECT_NE(a1, a2);
  EXPECT_EQ(a1, b1);
  EXPECT_EQ(a2, b2);
  EXPECT_EQ(e1, e2);
  for (float v : a1)
    EXPECT_TRUE(v >= 0.f && v < 1.f);
  EXPECT_NE(random_uniform({3}).to_vector<float>(),
            random_uniform({3}).to_vector<float>());
  expectError([] { random_uniform({2}, 0, 1, DType::i32); },
              ErrorKind::InvalidArgument, {"float32 or float64"});
}

TEST(EffectsTest, MixedProgramEagerAndStagedAgree) {
  // Control flow, variables and prints together.
  auto program = [](Variable acc, Tensor x) {
    Tensor r = for_range(0, 4, 1,
                         [&](Tensor i, Tensor y) {
                           return cond(floor_mod(i, 2) == 0,
                                       [&] {
                                         acc.assign_add(reduce_sum(y));
                                         return y * 2.f;
                                       },
                                       [&] { return y - 1.f; });
                         },
                         x);
    return r + acc.read_value();
  };
  Variable a(Tensor(0.f)), b(Tensor(0.f));
  auto f = fnc::function(program);
  Tensor staged = f(a, Tensor({1.f, 2.f}));
  Tensor eager = program(b, Tensor({1.f, 2.f}));
  EXPECT_EQ(staged.to_vector<float>(), eager.to_vector<float>());
  EXPECT_EQ(a.read_value().item<float>(), b.read_value().item<float>());
}

//===----------------------------------------------------------------------===//
// The seeds' remaining examples
//===----------------------------------------------------------------------===//

TEST(SeedsTest, CountCreatesItsVariableOnTheFirstCall) {
  struct Count {
    Variable count;
    Function<std::function<Tensor()>> call =
        fnc::function(std::function<Tensor()>([this] {
          if (!count.defined())
            count = Variable(Tensor(0));
          return count.assign_add(1);
        }));
  };
  Count c;
  EXPECT_EQ(c.call().item<int32_t>(), 1);
  EXPECT_EQ(c.call().item<int32_t>(), 2);
  EXPECT_EQ(c.call.tracing_count(), 1);
}

TEST(SeedsTest, CppSideEffectHappensOnce) {
  std::vector<Tensor> externalList;
  int traced = 0;
  auto side_effect = fnc::function([&](Tensor x) {
    ++traced;
    externalList.push_back(x);
  });
  side_effect(Tensor(1));
  side_effect(Tensor(1));
  side_effect(Tensor(1));
  // The push_back happened once, at trace time.
  EXPECT_EQ(externalList.size(), 1u);
  EXPECT_EQ(traced, 1);
  // The stored tensor is symbolic: using it leaks from the trace.
  expectError([&] { (externalList[0] + 1).item<int32_t>(); },
              ErrorKind::FailedPrecondition, {"leaked from the trace"});
}

TEST(SeedsTest, LoopOverCppDataUnrolls) {
  auto train = fnc::function([](std::vector<std::pair<int, int>> dataset) {
    Tensor loss(0);
    for (auto [x, y] : dataset)
      loss = loss + abs(Tensor(y) - Tensor(x));
    return loss;
  });
  std::vector<std::pair<int, int>> small(3, {1, 1}), big(10, {1, 1});
  int64_t smallOps = train.get_concrete_function(small).op_count();
  int64_t bigOps = train.get_concrete_function(big).op_count();
  EXPECT_GT(bigOps, smallOps);
  // Five ops per element (the constants x and y, sub, abs, add), plus a
  // fixed part.
  EXPECT_EQ(bigOps - smallOps, 7 * 5);
  EXPECT_EQ(train(big).item<int32_t>(), 0);
  EXPECT_EQ(train.tracing_count(), 2);
  // Staged with fnc::for_range, the size of the trace does not depend on
  // the data length.
  auto staged = fnc::function([](Tensor xs, Tensor ys) {
    return for_range(0, xs.shape()[0], 1,
                     [&](Tensor i, Tensor loss) {
                       return loss + abs(gather(ys, i) - gather(xs, i));
                     },
                     Tensor(0));
  });
  auto ones = [](int n) { return fill({n}, 1, DType::i32); };
  EXPECT_EQ(staged.get_concrete_function(ones(3), ones(3)).op_count(),
            staged.get_concrete_function(ones(10), ones(10)).op_count());
}

} // namespace
