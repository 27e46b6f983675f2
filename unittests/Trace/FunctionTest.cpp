//===- FunctionTest.cpp - Tests of tracing and fnc::function --------------===//
//
// Tracing (side effects at trace time only, symbolic tensors, item() and
// leaks), captures, results, concrete functions and their introspection,
// composition and eager mode.
//
//===----------------------------------------------------------------------===//

#include "Support/ExpectError.h"
#include "fnc/fnc.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>

using namespace fnc;

namespace {

using fnc::testing::expectError;

TEST(FunctionTest, TracesOnceAndRuns) {
  int traces = 0;
  auto f = fnc::function([&](Tensor x, Tensor y) {
    ++traces;
    return reduce_mean(x * x * 3.f + y);
  });
  Tensor x = {{2.f, 3.f}};
  Tensor y = {{3.f, -2.f}};
  EXPECT_FLOAT_EQ(f(x, y).item<float>(),
                  reduce_mean(x * x * 3.f + y).item<float>());
  EXPECT_FLOAT_EQ(f(Tensor{{1.f, 1.f}}, y).item<float>(), 3.5f);
  EXPECT_EQ(traces, 1);
  EXPECT_EQ(f.tracing_count(), 1);
}

TEST(FunctionTest, SideEffectsHappenAtTraceTimeOnly) {
  std::vector<int> log;
  auto f = fnc::function([&](Tensor x) {
    log.push_back(static_cast<int>(x.rank()));
    return x + x;
  });
  for (int i = 0; i < 3; ++i)
    f(Tensor{1, 2});
  f(Tensor{{1, 2}});
  EXPECT_EQ(log, (std::vector<int>{1, 2}));
}

TEST(FunctionTest, HostValuesAreBakedIn) {
  int counter = 0;
  auto f = fnc::function([&](Tensor x) { return x + ++counter; });
  EXPECT_EQ(f(Tensor(int32_t{1})).item<int32_t>(), 2);
  EXPECT_EQ(f(Tensor(int32_t{1})).item<int32_t>(), 2); // not 3: baked in
}

TEST(FunctionTest, SymbolicTensorsPrintAndHaveNoValue) {
  std::string printed;
  FunctionOptions options;
  options.name = "double";
  options.arg_names = {"a"};
  auto f = fnc::function(
      [&](Tensor a) {
        printed = a.str();
        EXPECT_EQ(a.dtype(), DType::i32);
        EXPECT_EQ(a.rank(), 0);
        return a + a;
      },
      options);
  EXPECT_EQ(f(Tensor(int32_t{1})).item<int32_t>(), 2);
  EXPECT_EQ(printed, "fnc.Tensor(\"a\", shape=(), dtype=int32)");

  auto g = fnc::function([](Tensor a) {
    if (a.item<float>() > 0) // not allowed while tracing
      return a;
    return -a;
  });
  expectError([&] { g(Tensor(1.f)); }, ErrorKind::FailedPrecondition,
              {"item", "symbolic", "fnc::select", "fnc::cond"});
  auto h = fnc::function([](Tensor a) {
    (void)a.to_vector<float>();
    return a;
  });
  expectError([&] { h(Tensor{1.f}); }, ErrorKind::FailedPrecondition,
              {"to_vector", "symbolic"});
}

TEST(FunctionTest, LeakedTensorsAreReported) {
  Tensor leaked;
  FunctionOptions options;
  options.name = "f";
  auto f = fnc::function(
      [&](Tensor x) {
        leaked = x * 2.f;
        return x;
      },
      options);
  f(Tensor{1.f, 2.f});
  expectError([&] { (void)(leaked + 1.f); }, ErrorKind::FailedPrecondition,
              {"tensor leaked from the trace of `f`; return it instead"});
  expectError([&] { (void)leaked.item<float>(); },
              ErrorKind::FailedPrecondition,
              {"tensor leaked from the trace of `f`"});
  // Used inside another trace.
  auto g = fnc::function([&](Tensor x) { return x + leaked; });
  expectError([&] { g(Tensor{1.f, 2.f}); }, ErrorKind::FailedPrecondition,
              {"tensor leaked from the trace of `f`"});
}

TEST(FunctionTest, EagerErrorsAreTheSameWhileTracing) {
  auto f = fnc::function([](Tensor x, Tensor y) { return x + y; });
  std::string eager;
  try {
    (void)(Tensor{1.f, 2.f} + Tensor{1.f, 2.f, 3.f});
  } catch (const Error &e) {
    eager = e.message();
  }
  ASSERT_FALSE(eager.empty());
  try {
    f(Tensor{1.f, 2.f}, Tensor{1.f, 2.f, 3.f});
    ADD_FAILURE() << "no error";
  } catch (const Error &e) {
    // The eager message, then the function being traced.
    EXPECT_EQ(e.message().substr(0, eager.size()), eager);
    EXPECT_EQ(e.message().substr(eager.size()),
              "\n  (while tracing fnc::function `function`)");
  }
  expectError([&] { f(Tensor{1.f}, Tensor{1}); }, ErrorKind::InvalidArgument,
              {"fnc::add", "different dtypes", "fnc::cast"});
  // Nested functions: each one being traced adds its line, innermost first.
  FunctionOptions innerOptions, outerOptions;
  innerOptions.name = "inner";
  outerOptions.name = "outer";
  auto inner = fnc::function(
      [](Tensor x) { return matmul(x, x); }, innerOptions);
  auto outer = fnc::function(
      [&](Tensor x) { return inner(x) * 2.f; }, outerOptions);
  expectError([&] { outer(Tensor{1.f, 2.f}); }, ErrorKind::InvalidArgument,
              {"fnc::matmul", "\n  (while tracing fnc::function `inner`)\n"
                              "  (while tracing fnc::function `outer`)"});
  // The failed traces cached nothing.
  EXPECT_EQ(f.tracing_count(), 0);
  EXPECT_EQ(f(Tensor{1.f}, Tensor{2.f}).to_vector<float>(),
            std::vector<float>{3.f});
}

TEST(FunctionTest, CapturesSmallAsConstantsAndLargeAsArguments) {
  Tensor small = {1.f, 2.f, 3.f};
  std::vector<float> big(1000);
  for (size_t i = 0; i < big.size(); ++i)
    big[i] = static_cast<float>(i);
  Tensor large(big); // 4000 bytes
  auto f = fnc::function([&](Tensor x) {
    return reduce_sum(large) + reduce_sum(small) + x;
  });
  auto cf = f.get_concrete_function(Tensor(1.f));
  std::string ir = cf.ir(IRStage::Fnc);
  EXPECT_NE(ir.find("fnc.constant dense<[1.000000e+00, 2.000000e+00, "
                    "3.000000e+00]>"),
            std::string::npos)
      << ir;
  EXPECT_NE(ir.find("tensor<1000xf32>"), std::string::npos) << ir;
  EXPECT_EQ(ir.find("dense<[0.000000e+00, 1.000000e+00"), std::string::npos)
      << "the large tensor must not be baked in";
  EXPECT_EQ(cf.input_specs().size(), 1u); // the hidden argument is hidden
  EXPECT_FLOAT_EQ(f(Tensor(1.f)).item<float>(), 499500.f + 6.f + 1.f);
  // Captured by value: reassigning the C++ variable does not retrace.
  large = Tensor(std::vector<float>(1000, 0.f));
  EXPECT_FLOAT_EQ(f(Tensor(1.f)).item<float>(), 499500.f + 6.f + 1.f);
}

TEST(FunctionTest, ClosureOverTensorsWithoutArguments) {
  Tensor x = {{2.f, 3.f}};
  Tensor y = {{3.f, -2.f}};
  auto h = fnc::function([&] { return reduce_mean(x * x * 3.f + y); });
  EXPECT_FLOAT_EQ(h().item<float>(),
                  reduce_mean(x * x * 3.f + y).item<float>());
}

TEST(FunctionTest, ResultKinds) {
  auto pairF = fnc::function([](Tensor x) {
    return std::make_pair(x + 1, x * 2);
  });
  auto [a, b] = pairF(Tensor{1, 2});
  EXPECT_EQ(a.to_vector<int32_t>(), (std::vector<int32_t>{2, 3}));
  EXPECT_EQ(b.to_vector<int32_t>(), (std::vector<int32_t>{2, 4}));

  auto tupleF = fnc::function([](Tensor x) {
    return std::make_tuple(x, x > 1, cast(x, DType::f64));
  });
  auto [t0, t1, t2] = tupleF(Tensor{1, 2});
  EXPECT_EQ(t0.to_vector<int32_t>(), (std::vector<int32_t>{1, 2}));
  EXPECT_EQ(t1.dtype(), DType::i1);
  EXPECT_EQ(t2.to_vector<double>(), (std::vector<double>{1, 2}));

  auto vecF = fnc::function([](std::vector<Tensor> xs) {
    std::vector<Tensor> r;
    for (const Tensor &x : xs)
      r.push_back(x * x);
    return r;
  });
  auto v = vecF(std::vector<Tensor>{Tensor(2.f), Tensor(3.f)});
  ASSERT_EQ(v.size(), 2u);
  EXPECT_FLOAT_EQ(v[1].item<float>(), 9.f);

  int calls = 0;
  auto voidF = fnc::function([&](Tensor x) { ++calls; (void)(x + 1); });
  voidF(Tensor(1));
  voidF(Tensor(2));
  EXPECT_EQ(calls, 1);

  // Returning an argument or a constant.
  auto ident = fnc::function([](Tensor x) { return std::make_tuple(x, x, Tensor(5)); });
  Tensor in = {1.f, 2.f};
  auto [i0, i1, c] = ident(in);
  EXPECT_EQ(i0.to_vector<float>(), in.to_vector<float>());
  EXPECT_EQ(i1.to_vector<float>(), in.to_vector<float>());
  EXPECT_EQ(c.item<int32_t>(), 5);
}

TEST(FunctionTest, ConcreteFunctionIntrospection) {
  FunctionOptions options;
  options.name = "double";
  options.arg_names = {"a"};
  auto f = fnc::function([](Tensor a) { return a + a; }, options);
  ConcreteFunction cf = f.get_concrete_function(Tensor(int32_t{1}));
  EXPECT_EQ(f.tracing_count(), 1);
  EXPECT_EQ(cf.signature(),
            "double(a: int32 Tensor, shape=()) -> int32 Tensor, shape=()");
  EXPECT_EQ(cf.op_count(), 1);
  EXPECT_NE(cf.ir(IRStage::Fnc).find("fnc.add"), std::string::npos);
  EXPECT_NE(cf.ir(IRStage::Linalg).find("linalg"), std::string::npos);
  EXPECT_NE(cf.ir(IRStage::LLVMDialect).find("llvm.func"), std::string::npos);
  EXPECT_NE(cf.ir(IRStage::LLVMIR).find("define"), std::string::npos);
  EXPECT_EQ(cf(Tensor(int32_t{4}))[0].item<int32_t>(), 8);
  expectError([&] { cf(Tensor(1.f)); }, ErrorKind::InvalidArgument,
              {"argument `a` (#0) expected int32 Tensor, shape=(), got "
               "float32 Tensor, shape=()"});
  expectError([&] { cf(); }, ErrorKind::InvalidArgument, {"takes 1 tensor"});
  // The same key gives the same concrete function, without a new trace.
  f(Tensor(int32_t{3}));
  EXPECT_EQ(f.tracing_count(), 1);

  // From specs, with an unknown dim.
  auto g = fnc::function([](Tensor x) { return x * 2; });
  auto cg = g.get_concrete_function(TensorSpec({kUnknownDim}, DType::i64));
  EXPECT_EQ(cg.input_specs()[0].str(), "int64 Tensor, shape=(None,)");
  EXPECT_EQ(cg.output_specs()[0].str(), "int64 Tensor, shape=(None,)");
  EXPECT_EQ(cg(Tensor{int64_t{1}, int64_t{2}, int64_t{3}})[0]
                .to_vector<int64_t>(),
            (std::vector<int64_t>{2, 4, 6}));
  // A call with a known shape uses it (subtype) without tracing.
  g(Tensor{int64_t{5}});
  EXPECT_EQ(g.tracing_count(), 1);
}

TEST(FunctionTest, PrettyPrintedConcreteSignatures) {
  FunctionOptions options;
  options.name = "double";
  options.arg_names = {"a"};
  auto f = fnc::function([](Tensor a) { return a + a; }, options);
  f(Tensor(int32_t{1}));
  f(Tensor(1.1f));
  EXPECT_EQ(f.pretty_printed_concrete_signatures(),
            "double(a)\n"
            "  Args:\n"
            "    a: int32 Tensor, shape=()\n"
            "  Returns:\n"
            "    int32 Tensor, shape=()\n"
            "\n"
            "double(a)\n"
            "  Args:\n"
            "    a: float32 Tensor, shape=()\n"
            "  Returns:\n"
            "    float32 Tensor, shape=()\n");

  FunctionOptions o2;
  o2.name = "g";
  o2.arg_names = {"x", "n", "training"};
  auto g = fnc::function(
      [](Tensor x, int n, bool training) { return training ? x * n : x; }, o2);
  g(Tensor{1.f, 2.f}, 3, true);
  EXPECT_EQ(g.pretty_printed_concrete_signatures(),
            "g(x, n, training)\n"
            "  Args:\n"
            "    x: float32 Tensor, shape=(2,)\n"
            "    n: int = 3\n"
            "    training: bool = true\n"
            "  Returns:\n"
            "    float32 Tensor, shape=(2,)\n");
}

TEST(FunctionTest, CompositionInlinesInnerFunctions) {
  int innerTraces = 0;
  auto add = fnc::function([&](Tensor a, Tensor b) {
    ++innerTraces;
    return a + b;
  });
  auto dense = fnc::function(
      [&](Tensor x, Tensor w, Tensor b) { return add(matmul(x, w), b); });
  Tensor r = dense(ones({3, 2}), ones({2, 2}), ones({2}));
  EXPECT_EQ(r.to_vector<float>(), std::vector<float>(6, 3.f));
  EXPECT_EQ(dense.tracing_count(), 1);
  EXPECT_EQ(add.tracing_count(), 0); // inlined: no trace of its own
  EXPECT_EQ(innerTraces, 1);
  EXPECT_EQ(dense.concrete_functions()[0].op_count() >= 2, true);
}

TEST(FunctionTest, RunFunctionsEagerly) {
  int runs = 0;
  auto f = fnc::function([&](Tensor x) {
    ++runs;
    return x * 2;
  });
  run_functions_eagerly(true);
  EXPECT_TRUE(functions_run_eagerly());
  f(Tensor(1));
  EXPECT_EQ(f(Tensor(2)).item<int32_t>(), 4);
  run_functions_eagerly(false);
  EXPECT_EQ(runs, 2);
  EXPECT_EQ(f.tracing_count(), 0);
  f(Tensor(1));
  f(Tensor(2));
  EXPECT_EQ(runs, 3);
}

TEST(FunctionTest, RuntimeErrorsBecomeFncErrors) {
  auto f = fnc::function([](Tensor x, Tensor y) { return x + y; });
  // A dynamic-shape trace: the mismatch is only known at run time.
  FunctionOptions options;
  options.input_signature = std::vector<TensorSpec>{
      TensorSpec({-1}, DType::f32), TensorSpec({-1}, DType::f32)};
  auto g = fnc::function([](Tensor x, Tensor y) { return x + y; }, options);
  EXPECT_EQ(g(Tensor{1.f, 2.f}, Tensor{3.f, 4.f}).to_vector<float>(),
            (std::vector<float>{4.f, 6.f}));
  try {
    g(Tensor{1.f, 2.f}, Tensor{3.f, 4.f, 5.f});
    ADD_FAILURE() << "no error";
  } catch (const Error &e) {
    EXPECT_NE(e.message().find("fnc::function"), std::string::npos)
        << e.what();
  }
}

TEST(FunctionTest, ShapesWithUnknownDimsAreRunTimeValues) {
  FunctionOptions options;
  options.input_signature =
      std::vector<TensorSpec>{TensorSpec({kUnknownDim, 3}, DType::f32)};
  std::vector<Shape> seen;
  auto f = fnc::function(
      [&](Tensor x) {
        Tensor z = zeros(shape(x));   // (None, 3): the known dim stays
        Tensor o = ones_like(x);      // (None, 3)
        Tensor m = fill(shape(x), reduce_max(x, {}, false));
        Tensor w = zeros(shape(x, DType::i64) * 2, DType::i32); // (None, None)
        seen = {z.shape(), o.shape(), m.shape(), w.shape()};
        return std::make_tuple(z + x, o * x - m, w, shape(x));
      },
      options);
  for (int64_t rows : {1, 2, 5}) {
    Tensor x = reshape(range(0, static_cast<double>(rows * 3)), {rows, 3});
    auto [a, b, w, s] = f(x);
    EXPECT_EQ(a.to_vector<float>(), x.to_vector<float>());
    Tensor expected = x - reduce_max(x, {}, false);
    EXPECT_EQ(b.to_vector<float>(), expected.to_vector<float>());
    EXPECT_EQ(w.shape(), (Shape{rows * 2, 6}));
    EXPECT_EQ(w.dtype(), DType::i32);
    EXPECT_EQ(s.to_vector<int32_t>(),
              (std::vector<int32_t>{static_cast<int32_t>(rows), 3}));
  }
  EXPECT_EQ(f.tracing_count(), 1);
  ASSERT_EQ(seen.size(), 4u);
  EXPECT_EQ(seen[0], (Shape{kUnknownDim, 3}));
  EXPECT_EQ(seen[1], (Shape{kUnknownDim, 3}));
  EXPECT_EQ(seen[2], (Shape{kUnknownDim, 3}));
  EXPECT_EQ(seen[3], (Shape{kUnknownDim, kUnknownDim}));

  // A static shape is a constant of the trace.
  auto g = fnc::function([](Tensor x) { return zeros(shape(x)) + x; });
  EXPECT_EQ(g(Tensor{1.f, 2.f}).to_vector<float>(),
            (std::vector<float>{1.f, 2.f}));
  EXPECT_EQ(g.get_concrete_function(Tensor{1.f, 2.f})
                .ir(IRStage::Fnc)
                .find("fnc.shape_of"),
            std::string::npos);
}

// tf.broadcast_to(x, tf.shape(y)): the target's sizes read at run time.
TEST(FunctionTest, BroadcastToAShapeTensor) {
  FunctionOptions options;
  options.input_signature = std::vector<TensorSpec>{
      TensorSpec({kUnknownDim, 1}), TensorSpec({kUnknownDim, kUnknownDim})};
  Shape seen;
  auto f = fnc::function(
      [&](Tensor x, Tensor y) {
        GradientTape tape;
        tape.watch(x);
        Tensor b = broadcast_to(x, shape(y));
        seen = b.shape();
        Tensor loss = reduce_sum(b * y);
        return std::make_tuple(b, tape.gradient(loss, x));
      },
      options);
  for (int64_t rows : {1, 3}) {
    for (int64_t cols : {1, 4}) {
      Tensor x = reshape(range(1, static_cast<double>(rows + 1)), {rows, 1});
      Tensor y = reshape(range(0, static_cast<double>(rows * cols)),
                         {rows, cols});
      auto [b, dx] = f(x, y);
      Tensor want = broadcast_to(x, shape(y)); // eagerly
      EXPECT_EQ(want.shape(), (Shape{rows, cols}));
      EXPECT_EQ(b.shape(), want.shape());
      EXPECT_EQ(b.to_vector<float>(), want.to_vector<float>());
      EXPECT_EQ(dx.to_vector<float>(),
                reduce_sum(y, {1}, true).to_vector<float>());
    }
  }
  // The rows unknown while tracing (a call whose unknown dim is 1 may get
  // a trace of its own).
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_EQ(seen[0], kUnknownDim);
  // Sizes that do not broadcast: an error when the code runs.
  fnc::testing::expectError(
      [&] { f(zeros({2, 1}), zeros({3, 2})); }, ErrorKind::InvalidArgument,
      {"dimension mismatch"});
  // An unknown dim that is 1 when the code runs, not an argument's (a
  // loop value's whose shape may change), stretches to an unknown dim of
  // the target.
  auto firstRow = fnc::function(
      [](Tensor, Tensor y) {
        LoopOptions loop;
        loop.shape_invariants = {Shape{kUnknownDim, kUnknownDim}};
        Tensor row = for_range(
            0, 1, 1, [](Tensor, Tensor v) { return v; },
            slice(y, {0, 0}, {1, -1}), loop);
        return broadcast_to(row, shape(y));
      },
      options);
  Tensor y = reshape(range(0.0, 12.0), {3, 4});
  EXPECT_EQ(firstRow(zeros({3, 1}), y).to_vector<float>(),
            broadcast_to(slice(y, {0, 0}, {1, -1}), {3, 4}).to_vector<float>());
  // The static shape of a value with unknown dims: the error names the fix.
  auto g = fnc::function([](Tensor x, Tensor y) {
    return broadcast_to(x, y.shape());
  }, options);
  fnc::testing::expectError(
      [&] { g(zeros({2, 1}), zeros({2, 3})); }, ErrorKind::InvalidArgument,
      {"fnc::broadcast_to: target shape [?, ?] has a dim unknown while "
       "tracing",
       "fnc::broadcast_to(x, fnc::shape(y))"});
}

TEST(FunctionTest, ShapeErrorsWhileTracing) {
  FunctionOptions options;
  options.name = "pad";
  options.input_signature =
      std::vector<TensorSpec>{TensorSpec({kUnknownDim}, DType::f32)};
  // The static shape holds kUnknownDim: the error names the fix.
  auto f = fnc::function([](Tensor x) { return zeros(x.shape()) + x; },
                         options);
  fnc::testing::expectError([&] { f(Tensor{1.f}); }, ErrorKind::InvalidArgument,
                            {"fnc::zeros: shape [?] has an unknown dim",
                             "fnc::zeros(fnc::shape(x))", "zeros_like"});
  // A negative size computed at run time.
  auto g = fnc::function([](Tensor x) { return zeros(shape(x) - 3); },
                         options);
  EXPECT_EQ(g(Tensor{1.f, 2.f, 3.f, 4.f}).shape(), (Shape{1}));
  fnc::testing::expectError([&] { g(Tensor{1.f, 2.f}); },
                            ErrorKind::InvalidArgument,
                            {"fnc::function `pad`",
                             "a shape holds the negative size -1 (at index "
                             "0); sizes must be >= 0"});
}

TEST(FunctionTest, NamesOfCFunctionsAreFine) {
  // A fnc::function may be named like a libm or runtime function; its
  // symbol in the module is changed so as not to shadow them.
  for (const char *name : {"tanh", "exp", "expf", "fncRaiseError"}) {
    FunctionOptions options;
    options.name = name;
    auto f = fnc::function(
        [](Tensor x) { return exp(tanh(cast(x, DType::f64))); }, options);
    EXPECT_NEAR(f(Tensor{0.5f}).to_vector<double>()[0],
                std::exp(std::tanh(0.5)), 1e-12)
        << name;
    EXPECT_EQ(f.pretty_printed_concrete_signatures().rfind(name, 0), 0u);
  }
}

// A reduction of a rank-0 value reduces no axes. The tracer records it like
// any other (it used to skip it to sidestep a miscompile once fused into
// the elementwise ops around it); staged it must still be the identity.
TEST(FunctionTest, ReductionsOfAScalarFuseIntoElementwiseOps) {
  using Reduction = Tensor (*)(const Tensor &, const std::vector<int64_t> &,
                               bool);
  for (Reduction reduce :
       {reduce_sum, reduce_mean, reduce_max, reduce_min, reduce_prod})
    for (bool keep : {false, true}) {
      auto f = fnc::function([reduce, keep](Tensor s, Tensor y) {
        return reduce(s * s, {}, keep) + y;
      });
      EXPECT_EQ(f(Tensor(3.f), Tensor{1.f, 2.f, 3.f}).to_vector<float>(),
                (std::vector<float>{10.f, 11.f, 12.f}));
      EXPECT_EQ(f(Tensor(-2), Tensor{1, 2}).to_vector<int32_t>(),
                (std::vector<int32_t>{5, 6}));
    }
}

} // namespace
