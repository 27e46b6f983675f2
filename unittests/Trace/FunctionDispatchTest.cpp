//===- FunctionDispatchTest.cpp - Keys, dispatch, signatures, threads -----===//
//
// The cache of fnc::function: what makes a key (dtype and shape of tensors,
// values of C++ arguments, elements of containers), subtyping and the most
// specific choice, input_signature and its errors, reduce_retracing, the
// retracing warning, and concurrent calls (single-flight tracing).
//
//===----------------------------------------------------------------------===//

#include "Support/ExpectError.h"
#include "fnc/fnc.h"

#include <gtest/gtest.h>

#include <array>
#include <atomic>
#include <thread>

using namespace fnc;

namespace {

using fnc::testing::expectError;

enum class Mode { Train, Eval };

TEST(FunctionDispatchTest, TensorKeysAreDTypeAndShape) {
  int traces = 0;
  auto f = fnc::function([&](Tensor x) {
    ++traces;
    return x + x;
  });
  f(Tensor{1.f, 2.f});
  f(Tensor{3.f, 4.f}); // same key, other values
  EXPECT_EQ(traces, 1);
  f(Tensor{1.f, 2.f, 3.f}); // other shape
  EXPECT_EQ(traces, 2);
  f(Tensor{1, 2}); // other dtype
  EXPECT_EQ(traces, 3);
  f(Tensor{{1.f, 2.f}}); // other rank
  EXPECT_EQ(traces, 4);
  f(Tensor{5.f, 6.f});
  EXPECT_EQ(traces, 4);
}

TEST(FunctionDispatchTest, CppValuesAreKeyedByValue) {
  int traces = 0;
  auto f = fnc::function(
      [&](Tensor x, int n, bool flag, double s, std::string tag, Mode m) {
        ++traces;
        Tensor r = flag ? x * n : x;
        if (m == Mode::Train)
          r = r + 1.f;
        return r * static_cast<float>(s) + static_cast<float>(tag.size());
      });
  Tensor x = {1.f};
  EXPECT_FLOAT_EQ(f(x, 2, true, 1.0, "ab", Mode::Train).item<float>(),
                  (1 * 2 + 1) * 1 + 2);
  f(x, 2, true, 1.0, "ab", Mode::Train);
  EXPECT_EQ(traces, 1);
  f(x, 3, true, 1.0, "ab", Mode::Train);
  f(x, 3, false, 1.0, "ab", Mode::Train);
  f(x, 3, false, 2.0, "ab", Mode::Train);
  f(x, 3, false, 2.0, "a long string beyond eight bytes", Mode::Train);
  EXPECT_EQ(traces, 5);
  EXPECT_FLOAT_EQ(f(x, 3, false, 2.0, "ab", Mode::Eval).item<float>(),
                  1 * 2 + 2);
  EXPECT_EQ(traces, 6);
  f(x, 3, false, 2.0, "a long string beyond eight bytes", Mode::Train);
  EXPECT_EQ(traces, 6);
}

TEST(FunctionDispatchTest, ContainersAreKeyedByElements) {
  int traces = 0;
  auto f = fnc::function([&](std::vector<Tensor> xs, std::array<int, 2> k,
                             std::tuple<Tensor, bool> t) {
    ++traces;
    Tensor r = std::get<0>(t);
    for (const Tensor &x : xs)
      r = r + x;
    return std::get<1>(t) ? r * (k[0] + k[1]) : r;
  });
  Tensor a = {1.f, 2.f};
  EXPECT_EQ(f(std::vector<Tensor>{a, a}, std::array<int, 2>{1, 2},
              std::make_tuple(a, true))
                .to_vector<float>(),
            (std::vector<float>{9.f, 18.f}));
  f(std::vector<Tensor>{a * 2, a}, std::array<int, 2>{1, 2},
    std::make_tuple(a, true));
  EXPECT_EQ(traces, 1);
  f(std::vector<Tensor>{a, a, a}, std::array<int, 2>{1, 2},
    std::make_tuple(a, true)); // one more element
  f(std::vector<Tensor>{a, a}, std::array<int, 2>{2, 2},
    std::make_tuple(a, true)); // another value
  f(std::vector<Tensor>{a, Tensor{1.f}}, std::array<int, 2>{1, 2},
    std::make_tuple(a, true)); // another element shape
  EXPECT_EQ(traces, 4);
}

TEST(FunctionDispatchTest, SubtypingAndMostSpecificChoice) {
  auto f = fnc::function([](Tensor x) { return reduce_sum(x, {}, false); });
  auto general =
      f.get_concrete_function(TensorSpec({kUnknownDim, kUnknownDim}));
  EXPECT_EQ(f.tracing_count(), 1);
  f(ones({1, 2})); // a [1, 2] call runs the [None, None] trace
  EXPECT_EQ(f.tracing_count(), 1);
  auto specific = f.get_concrete_function(TensorSpec({1, kUnknownDim}));
  EXPECT_EQ(f.tracing_count(), 2);
  f(ones({1, 2})); // now [1, None] is the most specific match
  f(ones({3, 2})); // only [None, None] matches
  EXPECT_EQ(f.tracing_count(), 2);
  EXPECT_FLOAT_EQ(f(ones({1, 5})).item<float>(), 5.f);
  EXPECT_FLOAT_EQ(f(ones({4, 5})).item<float>(), 20.f);
  // The choice, observed by the op count of distinct traces: trace an
  // exact [2, 2] with a different body would be needed to observe it in
  // results, so check the cache instead.
  auto all = f.concrete_functions();
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0].input_specs()[0].str(), "float32 Tensor, shape=(None, None)");
  EXPECT_EQ(all[1].input_specs()[0].str(), "float32 Tensor, shape=(1, None)");
  // get_concrete_function with the same spec returns the existing trace.
  f.get_concrete_function(TensorSpec({1, -1}));
  EXPECT_EQ(f.tracing_count(), 2);
  (void)general;
  (void)specific;
}

TEST(FunctionDispatchTest, MostSpecificChoiceIsObservable) {
  // Two traces of one callable whose body depends on the static shape seen
  // while tracing: the result tells which trace ran.
  auto f = fnc::function([](Tensor x) {
    bool known = x.shape()[0] != kUnknownDim;
    return x + (known ? 100.f : 0.f);
  });
  f.get_concrete_function(TensorSpec({kUnknownDim}));
  EXPECT_FLOAT_EQ(f(Tensor{1.f}).to_vector<float>()[0], 1.f);
  f.get_concrete_function(TensorSpec({1}));
  EXPECT_FLOAT_EQ(f(Tensor{1.f}).to_vector<float>()[0], 101.f);
  EXPECT_FLOAT_EQ(f(Tensor{1.f, 2.f}).to_vector<float>()[0], 1.f);
}

TEST(FunctionDispatchTest, InputSignature) {
  FunctionOptions options;
  options.name = "next_collatz";
  options.arg_names = {"x"};
  options.input_signature =
      std::vector<TensorSpec>{TensorSpec({kUnknownDim}, DType::i32)};
  int traces = 0;
  auto f = fnc::function(
      [&](Tensor x) {
        ++traces;
        return select(floor_mod(x, 2) == 0, floor_div(x, 2), 3 * x + 1);
      },
      options);
  EXPECT_EQ(f(Tensor{1, 2}).to_vector<int32_t>(),
            (std::vector<int32_t>{4, 1}));
  EXPECT_EQ(f(Tensor{1, 2, 3, 4, 5}).to_vector<int32_t>(),
            (std::vector<int32_t>{4, 1, 10, 2, 16}));
  EXPECT_EQ(traces, 1);
  try {
    f(Tensor{{1, 2}, {3, 4}});
    ADD_FAILURE() << "no error";
  } catch (const Error &e) {
    EXPECT_EQ(e.kind(), ErrorKind::InvalidArgument);
    EXPECT_EQ(e.message(),
              "fnc::function `next_collatz`: argument `x` (#0) does not match "
              "the input_signature: expected int32 Tensor, shape=(None,), got "
              "int32 Tensor, shape=(2, 2); pass a tensor of the expected "
              "dtype and shape, or relax the input_signature "
              "(fnc::kUnknownDim)");
  }
  EXPECT_THROW(f(Tensor{1.f}), Error);
  EXPECT_EQ(traces, 1);
}

TEST(FunctionDispatchTest, InputSignatureIsCheckedAtConstruction) {
  FunctionOptions options;
  options.input_signature = std::vector<TensorSpec>{TensorSpec({2})};
  options.arg_names = {"x", "n"};
  try {
    fnc::function([](Tensor x, int n) { return x * n; }, options);
    ADD_FAILURE() << "no error";
  } catch (const Error &e) {
    EXPECT_NE(e.message().find("1 spec but the callable has 2 parameters"),
              std::string::npos)
        << e.what();
  }
  options.input_signature->push_back(TensorSpec({}));
  try {
    fnc::function([](Tensor x, int n) { return x * n; }, options);
    ADD_FAILURE() << "no error";
  } catch (const Error &e) {
    EXPECT_NE(e.message().find("parameter `n` (#1) is not a fnc::Tensor"),
              std::string::npos)
        << e.what();
  }
  EXPECT_THROW(TensorSpec({-2}), Error);
}

TEST(FunctionDispatchTest, ReduceRetracing) {
  FunctionOptions options;
  options.reduce_retracing = true;
  int traces = 0;
  auto f = fnc::function(
      [&](Tensor x) {
        ++traces;
        return x * 2;
      },
      options);
  f(Tensor{1, 2});
  f(Tensor{1, 2, 3}); // [2] then [3]: traces [None]
  EXPECT_EQ(traces, 2);
  auto all = f.concrete_functions();
  EXPECT_EQ(all[1].input_specs()[0].str(), "int32 Tensor, shape=(None,)");
  EXPECT_EQ(f(Tensor{1, 2, 3, 4}).to_vector<int32_t>(),
            (std::vector<int32_t>{2, 4, 6, 8}));
  EXPECT_EQ(f(Tensor{7}).to_vector<int32_t>(), (std::vector<int32_t>{14}));
  EXPECT_EQ(traces, 2);
  // [2] still goes to its own, more specific trace.
  EXPECT_EQ(f(Tensor{7, 8}).to_vector<int32_t>(),
            (std::vector<int32_t>{14, 16}));
  EXPECT_EQ(traces, 2);
}

TEST(FunctionDispatchTest, UnknownDimOfSizeOneBroadcastsAtRunTime) {
  // An unknown dim that is 1 at run time broadcasts against a known dim,
  // as eagerly: one trace serves [1] and [3] against a [2, 3] operand.
  FunctionOptions sig;
  sig.input_signature = std::vector<TensorSpec>{TensorSpec({kUnknownDim}),
                                                TensorSpec({2, 3})};
  auto f = fnc::function([](Tensor x, Tensor y) { return x * 2.f - y; }, sig);
  Tensor y = Tensor{{1.f, 2.f, 3.f}, {4.f, 5.f, 6.f}};
  for (const Tensor &x : {Tensor{5.f}, Tensor{1.f, 2.f, 3.f}})
    EXPECT_EQ(f(x, y).to_vector<float>(), (x * 2.f - y).to_vector<float>());
  expectError([&] { f(Tensor{1.f, 2.f}, y); }, ErrorKind::InvalidArgument,
              {"dynamic dimension mismatch: 2 vs 3"});
  EXPECT_EQ(f.tracing_count(), 1);

  // reduce_retracing: the [None] traces of x * 2 + b (whose unknown dims
  // meet) do not serve calls with a 1; they get traces with it.
  FunctionOptions retrace;
  retrace.reduce_retracing = true;
  auto h = fnc::function([](Tensor x, Tensor b) { return x * 2.f + b; },
                         retrace);
  auto check = [&](const Tensor &x, const Tensor &b) {
    EXPECT_EQ(h(x, b).to_vector<float>(), (x * 2.f + b).to_vector<float>());
  };
  check(Tensor{1.f, 2.f, 3.f}, Tensor{1.f, 1.f, 1.f});
  check(Tensor{1.f, 2.f}, Tensor{3.f, 4.f}); // traces ([None], [None])
  EXPECT_EQ(h.tracing_count(), 2);
  check(Tensor{5.f, 6.f, 7.f, 8.f}, Tensor{1.f, 2.f, 3.f, 4.f}); // hit
  EXPECT_EQ(h.tracing_count(), 2);
  check(Tensor{5.f}, Tensor{1.f, 2.f, 3.f}); // traces ([1], [None])
  check(Tensor{5.f, 6.f}, Tensor{1.f}); // traces ([None], [1])
  check(Tensor{7.f}, Tensor{1.f, 2.f, 3.f, 4.f}); // hits ([1], [None])
  EXPECT_EQ(h.tracing_count(), 4);
  EXPECT_EQ(h.concrete_functions()[2].input_specs()[0].str(),
            "float32 Tensor, shape=(1,)");

  // Two unknown dims of different arguments meet: compiled code cannot
  // stretch one of them at run time, so a call with a 1 there gets a trace
  // of its own (the signature's trace serves every other call).
  FunctionOptions both;
  both.input_signature = std::vector<TensorSpec>{TensorSpec({kUnknownDim}),
                                                 TensorSpec({kUnknownDim})};
  auto g = fnc::function([](Tensor x, Tensor b) { return x + b; }, both);
  EXPECT_EQ(g(Tensor{1.f, 2.f}, Tensor{3.f, 4.f}).to_vector<float>(),
            (std::vector<float>{4.f, 6.f}));
  EXPECT_EQ(g(Tensor{1.f}, Tensor{3.f, 4.f}).to_vector<float>(),
            (std::vector<float>{4.f, 5.f}));
  EXPECT_EQ(g(Tensor{1.f, 2.f, 3.f}, Tensor{1.f}).to_vector<float>(),
            (std::vector<float>{2.f, 3.f, 4.f}));
  EXPECT_EQ(g(Tensor{7.f, 8.f, 9.f}, Tensor{1.f, 1.f, 1.f}).to_vector<float>(),
            (std::vector<float>{8.f, 9.f, 10.f}));
  EXPECT_EQ(g.tracing_count(), 3); // (None), (1, None), (None, 1)
  expectError([&] { g(Tensor{1.f, 2.f}, Tensor{3.f, 4.f, 5.f}); },
              ErrorKind::InvalidArgument,
              {"dynamic dimension mismatch: 2 vs 3"});
  // The first call may have the 1: it is traced with it.
  auto g2 = fnc::function([](Tensor x, Tensor b) { return x + b; }, both);
  EXPECT_EQ(g2(Tensor{1.f}, Tensor{3.f, 4.f}).to_vector<float>(),
            (std::vector<float>{4.f, 5.f}));
  EXPECT_EQ(g2(Tensor{1.f, 2.f}, Tensor{3.f, 4.f}).to_vector<float>(),
            (std::vector<float>{4.f, 6.f}));
  EXPECT_EQ(g2.tracing_count(), 2);

  // Matmul batch dims are broadcast the same way.
  FunctionOptions batched;
  batched.input_signature = std::vector<TensorSpec>{
      TensorSpec({kUnknownDim, 2, 3}), TensorSpec({kUnknownDim, 3, 2})};
  auto mm = fnc::function([](Tensor a, Tensor b) { return matmul(a, b); },
                          batched);
  Tensor a3 = reshape(range(0.f, 18.f), {3, 2, 3}),
         b1 = reshape(range(0.f, 6.f), {1, 3, 2});
  EXPECT_EQ(mm(a3, b1).to_vector<float>(), matmul(a3, b1).to_vector<float>());
  Tensor a1 = reshape(range(0.f, 6.f), {1, 2, 3}),
         b3 = reshape(range(0.f, 18.f), {3, 3, 2});
  EXPECT_EQ(mm(a1, b3).to_vector<float>(), matmul(a1, b3).to_vector<float>());
  EXPECT_EQ(mm(a3, b3).to_vector<float>(), matmul(a3, b3).to_vector<float>());

  // Unknown dims that are the same size by construction do not meet: a
  // batch of 1 runs the one trace.
  FunctionOptions one;
  one.input_signature = std::vector<TensorSpec>{TensorSpec({kUnknownDim})};
  auto same = fnc::function(
      [](Tensor x) { return x * 2.f + zeros_like(x) - ones(shape(x)); }, one);
  EXPECT_EQ(same(Tensor{1.f, 2.f}).to_vector<float>(),
            (std::vector<float>{1.f, 3.f}));
  EXPECT_EQ(same(Tensor{3.f}).to_vector<float>(), (std::vector<float>{5.f}));
  EXPECT_EQ(same.tracing_count(), 1);
}

TEST(FunctionDispatchTest, UnrankedInputSignatureTracesOncePerRank) {
  FunctionOptions options;
  options.name = "total";
  options.arg_names = {"x", "scale"};
  options.input_signature = std::vector<TensorSpec>{
      TensorSpec(kUnknownShape, DType::f32), TensorSpec({}, DType::f32)};
  std::vector<std::vector<int64_t>> traced;
  auto f = fnc::function(
      [&](Tensor x, Tensor scale) {
        traced.push_back(x.shape());
        return reduce_sum(x * scale, {}, false);
      },
      options);
  Tensor two = Tensor(2.f);
  EXPECT_FLOAT_EQ(f(Tensor{1.f, 2.f}, two).item<float>(), 6.f);
  EXPECT_FLOAT_EQ(f(Tensor{1.f, 2.f, 3.f}, two).item<float>(), 12.f);
  EXPECT_FLOAT_EQ(f(ones({2, 3}), two).item<float>(), 12.f);
  EXPECT_FLOAT_EQ(f(ones({4, 1}), two).item<float>(), 8.f);
  EXPECT_FLOAT_EQ(f(Tensor(5.f), two).item<float>(), 10.f);
  EXPECT_FLOAT_EQ(f(ones({1, 2, 3}), two).item<float>(), 12.f);
  // One trace per rank, every dim unknown.
  ASSERT_EQ(traced.size(), 4u);
  EXPECT_EQ(traced[0], (std::vector<int64_t>{kUnknownDim}));
  EXPECT_EQ(traced[1], (std::vector<int64_t>{kUnknownDim, kUnknownDim}));
  EXPECT_EQ(traced[2], (std::vector<int64_t>{}));
  EXPECT_EQ(traced[3].size(), 3u);
  EXPECT_EQ(f.tracing_count(), 4);
  // get_concrete_function(tensors) finds the trace of the call's rank.
  auto c = f.get_concrete_function(ones({7, 7}), two);
  EXPECT_EQ(c.input_specs()[0].str(), "float32 Tensor, shape=(None, None)");
  EXPECT_EQ(f.tracing_count(), 4);
  // The signature still checks dtypes and the ranked specs.
  try {
    f(Tensor{1, 2}, two);
    ADD_FAILURE() << "no error";
  } catch (const Error &e) {
    EXPECT_EQ(e.message(),
              "fnc::function `total`: argument `x` (#0) does not match the "
              "input_signature: expected float32 Tensor, shape=<unknown>, got "
              "int32 Tensor, shape=(2,); pass a tensor of the expected dtype "
              "and shape, or relax the input_signature (fnc::kUnknownDim)");
  }
  EXPECT_THROW(f(Tensor{1.f}, Tensor{2.f}), Error); // scale must be rank 0
  // A concrete function needs a rank, with a signature too.
  expectError(
      [&] {
        f.get_concrete_function(TensorSpec(kUnknownShape), TensorSpec({}));
      },
      ErrorKind::InvalidArgument, {"argument `x` has an unknown rank"});
  EXPECT_EQ(f.get_concrete_function(TensorSpec({kUnknownDim, kUnknownDim}),
                                    TensorSpec({}))
                .input_specs()[0]
                .str(),
            "float32 Tensor, shape=(None, None)");
  EXPECT_EQ(f.tracing_count(), 4);
}

TEST(FunctionDispatchTest, UnrankedSpecsInTheLattice) {
  TensorSpec any(kUnknownShape, DType::i32, "x");
  EXPECT_FALSE(any.ranked);
  EXPECT_TRUE(any.matches(DType::i32, {}));
  EXPECT_TRUE(any.matches(DType::i32, {2, 3, 4}));
  EXPECT_FALSE(any.matches(DType::f32, {2}));
  EXPECT_EQ(any.str(), "int32 Tensor, shape=<unknown>");

  // A ranked trace is more specific than the per-rank trace of an unknown
  // rank: the callable sees which one it is traced for.
  FunctionOptions options;
  options.reduce_retracing = true;
  auto f = fnc::function(
      [](Tensor x) {
        bool known = !x.shape().empty() && x.shape()[0] != kUnknownDim;
        return reduce_sum(x, {}, false) + (known ? 100 : 0);
      },
      options);
  EXPECT_EQ(f(Tensor{1, 2}).item<int32_t>(), 103); // traces [2]
  EXPECT_EQ(f(Tensor{{1, 2}, {3, 4}}).item<int32_t>(), 10); // rank differs
  EXPECT_EQ(f.tracing_count(), 2);
  auto all = f.concrete_functions();
  EXPECT_EQ(all[1].input_specs()[0].str(), "int32 Tensor, shape=(None, None)");
  EXPECT_EQ(f(Tensor{{1, 2, 3}, {4, 5, 6}, {7, 8, 9}}).item<int32_t>(),
            45);                                         // hits (None, None)
  EXPECT_EQ(f(Tensor{5, 6}).item<int32_t>(), 111);       // hits [2]
  EXPECT_EQ(f.tracing_count(), 2);
  // A rank-1 call of another length generalizes with [2] and the unknown
  // rank: one new trace for rank 1 with unknown dims.
  EXPECT_EQ(f(Tensor{1, 1, 1}).item<int32_t>(), 3);
  EXPECT_EQ(f.tracing_count(), 3);
  EXPECT_EQ(f.concrete_functions()[2].input_specs()[0].str(),
            "int32 Tensor, shape=(None,)");
  // A rank-3 call: (None, None, None), which serves dims of size 1 (the
  // callable's unknown dims do not meet).
  EXPECT_EQ(f(Tensor{{{1}, {2}}}).item<int32_t>(), 3);
  EXPECT_EQ(f.concrete_functions()[3].input_specs()[0].str(),
            "int32 Tensor, shape=(None, None, None)");

  // get_concrete_function needs a rank.
  auto g = fnc::function([](Tensor x) { return x; });
  try {
    g.get_concrete_function(TensorSpec(kUnknownShape));
    ADD_FAILURE() << "no error";
  } catch (const Error &e) {
    EXPECT_EQ(e.kind(), ErrorKind::InvalidArgument);
    EXPECT_NE(e.message().find("argument `a0` has an unknown rank"),
              std::string::npos)
        << e.what();
  }
  EXPECT_EQ(g.tracing_count(), 0);
}

TEST(FunctionDispatchTest, RetracingWarningNamesTheArgument) {
  std::vector<std::string> warnings;
  set_log_callback([&](const std::string &m) { warnings.push_back(m); });
  FunctionOptions options;
  options.name = "scale";
  options.arg_names = {"x", "n"};
  auto f = fnc::function([](Tensor x, int n) { return x * n; }, options);
  for (int n = 0; n < 5; ++n)
    f(Tensor{1}, n);
  EXPECT_TRUE(warnings.empty());
  f(Tensor{1}, 5);
  f(Tensor{1}, 6);
  ASSERT_EQ(warnings.size(), 1u); // once per function
  EXPECT_NE(warnings[0].find("`scale` was traced 6 times"), std::string::npos)
      << warnings[0];
  EXPECT_NE(warnings[0].find("`n` (#1), whose value changed 5 times"),
            std::string::npos)
      << warnings[0];
  EXPECT_NE(warnings[0].find("pass it as a fnc::Tensor"), std::string::npos);

  warnings.clear();
  options.name = "shapes";
  auto g = fnc::function([](Tensor x, int n) { return x * n; }, options);
  for (int len = 1; len <= 6; ++len)
    g(ones({len}, DType::i32), 1);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("`x` (#0), whose shape changed"),
            std::string::npos)
      << warnings[0];
  EXPECT_NE(warnings[0].find("input_signature"), std::string::npos);
  EXPECT_NE(warnings[0].find("reduce_retracing"), std::string::npos);
  set_log_callback(nullptr);
}

TEST(FunctionDispatchTest, ConcurrentCallsTraceOnce) {
  std::atomic<int> traces{0};
  auto f = fnc::function([&](Tensor x) {
    ++traces;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    return x * x + 1.f;
  });
  constexpr int kThreads = 8;
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < 50; ++i) {
        float v = static_cast<float>(t + i);
        // Two keys: shape (1,) and shape (2,).
        Tensor x = (i % 2) ? Tensor{v} : Tensor{v, v};
        Tensor r = f(x);
        if (r.to_vector<float>()[0] != v * v + 1.f)
          ++failures;
      }
    });
  for (auto &th : threads)
    th.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(traces.load(), 2);
  EXPECT_EQ(f.tracing_count(), 2);
}

// max_traces bounds the cache: the least recently called trace goes first,
// and comes back (traced again) when called again.
TEST(FunctionDispatchTest, MaxTracesEvictsTheLeastRecentlyUsed) {
  FunctionOptions options;
  options.max_traces = 2;
  int traces = 0;
  auto f = fnc::function(
      [&](Tensor x) {
        ++traces;
        return x + 1.f;
      },
      options);
  f(ones({1}));
  f(ones({2}));
  f(ones({1})); // now {2} is the least recently used
  f(ones({3})); // evicts {2}
  EXPECT_EQ(traces, 3);
  EXPECT_EQ(f.concrete_functions().size(), 2u);
  f(ones({1}));
  f(ones({3}));
  EXPECT_EQ(traces, 3); // both still cached
  EXPECT_EQ(f(ones({2})).to_vector<float>(), (std::vector<float>{2.f, 2.f}));
  EXPECT_EQ(traces, 4); // traced again
  EXPECT_EQ(f.tracing_count(), 4);
  EXPECT_EQ(f.concrete_functions().size(), 2u);

  options.max_traces = 0;
  fnc::testing::expectError(
      [&] { fnc::function([](Tensor x) { return x; }, options); },
      ErrorKind::InvalidArgument, {"max_traces must be at least 1"});
}

} // namespace
