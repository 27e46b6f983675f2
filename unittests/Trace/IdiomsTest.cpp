//===- IdiomsTest.cpp - The API idioms TF, JAX and libtorch users expect --===//
//
// Single-brace input signatures, tf.range's and tf.argmax's defaults,
// staging member functions and generic callables, the type-erased
// Function<R(A...)>, input signatures checked on every path (nested calls,
// run_functions_eagerly), staged run-time errors with the eager error kind
// and hint, TensorSpec names in messages, Tensor::from_blob and the printed
// form of a Variable.
//
//===----------------------------------------------------------------------===//

#include "Support/ExpectError.h"
#include "fnc/fnc.h"

#include <gtest/gtest.h>

#include <atomic>
#include <functional>
#include <random>
#include <sstream>

using namespace fnc;

namespace {

std::vector<float> randomFloats(size_t n, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(-2, 2);
  std::vector<float> v(n);
  for (float &x : v)
    x = dist(gen);
  return v;
}

TEST(IdiomsTest, InputSignatureFromSingleBraces) {
  auto f = fnc::function([](Tensor x, Tensor y) { return x * y; },
                         {.input_signature = {TensorSpec({-1}, DType::f32),
                                              TensorSpec({-1}, DType::f32)}});
  EXPECT_EQ(f(Tensor({1.f, 2.f}), Tensor({3.f, 4.f})).to_vector<float>(),
            (std::vector<float>{3, 8}));
  EXPECT_EQ(f(Tensor({1.f, 2.f, 3.f}), Tensor({1.f, 1.f, 1.f})).size(), 3);
  EXPECT_EQ(f.tracing_count(), 1);
  // One spec, single braces; the old double braces still work.
  FunctionOptions one{.input_signature = {TensorSpec({2}, DType::i32)}};
  FunctionOptions doubled{.input_signature = {{TensorSpec({2}, DType::i32)}}};
  EXPECT_EQ(one.input_signature->size(), 1u);
  EXPECT_EQ(doubled.input_signature->size(), 1u);
  EXPECT_FALSE(FunctionOptions{}.input_signature.has_value());
}

TEST(IdiomsTest, RangeInfersItsDtypeAsTfRangeDoes) {
  EXPECT_EQ(range(5).dtype(), DType::i32);
  EXPECT_EQ(range(5).to_vector<int32_t>(),
            (std::vector<int32_t>{0, 1, 2, 3, 4}));
  EXPECT_EQ(range(2, 9, 3).to_vector<int32_t>(),
            (std::vector<int32_t>{2, 5, 8}));
  EXPECT_EQ(range(int64_t{4}).dtype(), DType::i64);
  EXPECT_EQ(range(0, 1, 0.25).dtype(), DType::f32);
  EXPECT_EQ(range(0, 1, 0.25).to_vector<float>(),
            (std::vector<float>{0, 0.25f, 0.5f, 0.75f}));
  EXPECT_EQ(range(0.f, 3.f).dtype(), DType::f32);
  EXPECT_EQ(range(0, 4, 1, DType::f64).dtype(), DType::f64);
  EXPECT_FNC_ERROR(range(0, 5, 0), InvalidArgument, "fnc::range");
}

TEST(IdiomsTest, ArgmaxDefaultsToAxisZero) {
  Tensor x = {{1.f, 9.f, 3.f}, {4.f, 2.f, 8.f}};
  EXPECT_EQ(argmax(x).to_vector<int64_t>(), (std::vector<int64_t>{1, 0, 1}));
  EXPECT_EQ(argmin(x).to_vector<int64_t>(), (std::vector<int64_t>{0, 1, 0}));
  EXPECT_EQ(argmax(x).dtype(), DType::i64);
}

struct Model {
  float scale = 2;
  int calls = 0;
  Tensor forward(Tensor x, bool training) {
    ++calls;
    return training ? x * scale : x;
  }
  Tensor peek(const Tensor &x) const { return x + scale; }
  // A member of the type-erased form, staging a method.
  Function<Tensor(Tensor, bool)> call = fnc::function(this, &Model::forward);
};

TEST(IdiomsTest, StagesMemberFunctions) {
  Model m;
  Tensor x = Tensor({1.f, 2.f});
  EXPECT_EQ(m.call(x, true).to_vector<float>(), (std::vector<float>{2, 4}));
  EXPECT_EQ(m.call(x, false).to_vector<float>(), (std::vector<float>{1, 2}));
  EXPECT_EQ(m.call(Tensor({5.f, 6.f}), true).to_vector<float>(),
            (std::vector<float>{10, 12}));
  // One trace per value of `training`; the method ran only while tracing.
  EXPECT_EQ(m.call.tracing_count(), 2);
  EXPECT_EQ(m.calls, 2);

  const Model &c = m;
  auto peek = fnc::function(&c, &Model::peek, {.name = "peek"});
  EXPECT_EQ(peek(x).to_vector<float>(), (std::vector<float>{3, 4}));
  EXPECT_NE(peek.concrete_functions()[0].signature().find("peek("),
            std::string::npos);
}

TEST(IdiomsTest, StagesGenericCallables) {
  int traces = 0;
  auto f = fnc::function([&](auto x, auto y) {
    ++traces;
    return x * y;
  });
  std::vector<float> a = randomFloats(6, 1), b = randomFloats(6, 2);
  Tensor x(a, {2, 3}), y(b, {2, 3});
  EXPECT_EQ(f(x, y).to_vector<float>(), (x * y).to_vector<float>());
  EXPECT_EQ(f(x, y).to_vector<float>(), (x * y).to_vector<float>());
  EXPECT_EQ(traces, 1);
  // A C++ number is a value of the key, as for a fixed parameter type.
  EXPECT_EQ(f(x, 3.f).to_vector<float>(), (x * 3.f).to_vector<float>());
  EXPECT_EQ(f(x, 4.f).to_vector<float>(), (x * 4.f).to_vector<float>());
  EXPECT_EQ(traces, 3);
  EXPECT_EQ(f.tracing_count(), 3);

  // String literals are std::string parameters.
  auto g = fnc::function([](Tensor x, const auto &mode) {
    return std::string(mode) == "double" ? x * 2.f : x;
  });
  EXPECT_EQ(g(x, "double").to_vector<float>(), (x * 2.f).to_vector<float>());
  EXPECT_EQ(g(x, "same").to_vector<float>(), x.to_vector<float>());

  // std::bind_front and overloaded call operators take the generic path.
  auto scaled = [](float s, Tensor x) { return x * s; };
  auto h = fnc::function(std::bind_front(scaled, 0.5f));
  EXPECT_EQ(h(x).to_vector<float>(), (x * 0.5f).to_vector<float>());

  struct Overloaded {
    Tensor operator()(Tensor x) const { return x + 1.f; }
    Tensor operator()(Tensor x, Tensor y) const { return x - y; }
  };
  auto o = fnc::function(Overloaded{});
  EXPECT_EQ(o(x).to_vector<float>(), (x + 1.f).to_vector<float>());
  EXPECT_EQ(o(x, y).to_vector<float>(), (x - y).to_vector<float>());
  EXPECT_EQ(o.tracing_count(), 2);
}

TEST(IdiomsTest, GenericCallablesCheckTheInputSignature) {
  auto f = fnc::function([](auto x) { return Tensor(x) + x; },
                         {.input_signature = {TensorSpec({-1}, DType::f32)}});
  EXPECT_EQ(f(Tensor({1.f, 2.f})).to_vector<float>(),
            (std::vector<float>{2, 4}));
  EXPECT_FNC_ERROR(f(Tensor({1, 2})), InvalidArgument,
                   "does not match the input_signature");
  EXPECT_FNC_ERROR(f(3.f), InvalidArgument,
                   "pass exactly one fnc::Tensor per spec");
}

TEST(IdiomsTest, TypeErasedFunctionsShareTheCache) {
  auto f = fnc::function([](Tensor x) { return x * 3.f; });
  Function<Tensor(Tensor)> erased = f;
  Tensor x = Tensor({1.f, 2.f});
  EXPECT_EQ(erased(x).to_vector<float>(), (std::vector<float>{3, 6}));
  EXPECT_EQ(f(x).to_vector<float>(), (std::vector<float>{3, 6}));
  EXPECT_EQ(f.tracing_count(), 1);
  EXPECT_EQ(erased.tracing_count(), 1);

  // Generic callables convert too, with the parameters of the form.
  Function<Tensor(Tensor, Tensor)> sum =
      fnc::function([](auto a, auto b) { return a + b; });
  EXPECT_EQ(sum(x, x).to_vector<float>(), (std::vector<float>{2, 4}));

  std::vector<Function<Tensor(Tensor)>> table = {
      fnc::function([](Tensor t) { return t + 1.f; }), erased};
  EXPECT_EQ(table[0](x).to_vector<float>(), (std::vector<float>{2, 3}));
  EXPECT_EQ(table[1](x).to_vector<float>(), (std::vector<float>{3, 6}));

  Function<Tensor(Tensor)> empty;
  EXPECT_FALSE(empty.defined());
  EXPECT_EQ(empty.tracing_count(), 0);
  EXPECT_FNC_ERROR(empty(x), FailedPrecondition, "empty fnc::Function");
}

TEST(IdiomsTest, NestedCallsCheckTheInnerInputSignature) {
  auto inner = fnc::function(
      [](Tensor x) { return x * 2.f; },
      {.name = "inner", .input_signature = {TensorSpec({-1, 3})}});
  auto outer = fnc::function([&](Tensor x) { return inner(x) + 1.f; },
                             {.name = "outer"});
  Tensor good = Tensor({{1.f, 2.f, 3.f}});
  EXPECT_EQ(outer(good).to_vector<float>(), (std::vector<float>{3, 5, 7}));
  // The inner call ran inline in outer's trace: no trace of its own.
  EXPECT_EQ(outer.tracing_count(), 1);
  EXPECT_EQ(inner.tracing_count(), 0);
  EXPECT_EQ(inner(good).to_vector<float>(), (std::vector<float>{2, 4, 6}));
  EXPECT_EQ(inner.tracing_count(), 1);

  EXPECT_FNC_ERROR(outer(Tensor({{1.f, 2.f}})), InvalidArgument,
                   "fnc::function `inner`: argument `a0` (#0) does not "
                   "match the input_signature: expected float32 Tensor, "
                   "shape=(None, 3), got float32 Tensor, shape=(1, 2)");
  // A dim the outer trace does not know may not meet a known spec dim.
  auto relaxed = fnc::function([&](Tensor x) { return inner(x); },
                               {.input_signature = {TensorSpec({-1, -1})}});
  EXPECT_FNC_ERROR(relaxed(good), InvalidArgument,
                   "expected float32 Tensor, shape=(None, 3), got float32 "
                   "Tensor, shape=(None, None)");
}

TEST(IdiomsTest, EagerModeChecksTheInputSignature) {
  int runs = 0;
  auto f = fnc::function(
      [&](Tensor x) {
        ++runs;
        return x + 1.f;
      },
      {.input_signature = {TensorSpec({2}, DType::f32, "x")}});
  run_functions_eagerly(true);
  EXPECT_EQ(f(Tensor({1.f, 2.f})).to_vector<float>(),
            (std::vector<float>{2, 3}));
  EXPECT_FNC_ERROR(f(Tensor({1.f, 2.f, 3.f})), InvalidArgument,
                   "argument `x` (#0) does not match the input_signature");
  EXPECT_FNC_ERROR(f(Tensor({1, 2})), InvalidArgument,
                   "expected float32 Tensor, shape=(2,), got int32");
  run_functions_eagerly(false);
  EXPECT_EQ(runs, 1);
  EXPECT_EQ(f.tracing_count(), 0);
}

TEST(IdiomsTest, TensorSpecNamesNameTheParameters) {
  auto f = fnc::function(
      [](Tensor images, Tensor labels) { return images; },
      {.name = "step",
       .input_signature = {TensorSpec({-1, 4}, DType::f32, "images"),
                           TensorSpec({-1}, DType::i32, "labels")}});
  EXPECT_FNC_ERROR(f(Tensor({{1.f, 2.f}}), Tensor({1})), InvalidArgument,
                   "argument `images` (#0)");
  EXPECT_FNC_ERROR(f(Tensor({{1.f, 2.f, 3.f, 4.f}}), Tensor({1.f})),
                   InvalidArgument, "argument `labels` (#1)");
  ConcreteFunction c = f.get_concrete_function(TensorSpec({-1, 4}, DType::f32),
                                               TensorSpec({-1}, DType::i32));
  EXPECT_EQ(c.signature().rfind("step(images: float32 Tensor, shape=(None, "
                                "4), labels: int32 Tensor",
                                0),
            0u)
      << c.signature();
  // arg_names win over spec names.
  auto g = fnc::function(
      [](Tensor a) { return a; },
      {.arg_names = {"pixels"},
       .input_signature = {TensorSpec({2}, DType::f32, "images")}});
  EXPECT_FNC_ERROR(g(Tensor({1.f})), InvalidArgument, "argument `pixels`");
}

/// The kind and the message of `fn`, which must throw.
std::pair<ErrorKind, std::string> errorOf(const std::function<void()> &fn) {
  try {
    fn();
  } catch (const Error &e) {
    return {e.kind(), e.message()};
  }
  ADD_FAILURE() << "no error";
  return {ErrorKind::Internal, ""};
}

TEST(IdiomsTest, StagedRunTimeErrorsHaveTheEagerKindAndHint) {
  auto gather1 = [](Tensor p, Tensor i) { return gather(p, i); };
  auto div = [](Tensor a, Tensor b) { return a / b; };
  auto squeezeAll = [](Tensor a) { return squeeze(a, {0}); };
  // Dims unknown while tracing, so that the faults are found at run time.
  FunctionOptions two{.input_signature = {TensorSpec({-1}, DType::i32),
                                          TensorSpec({-1}, DType::i32)}};
  FunctionOptions one{.input_signature = {TensorSpec({-1, 2}, DType::i32)}};
  auto stagedGather = fnc::function(gather1, two);
  auto stagedDiv = fnc::function(div, two);
  auto stagedSqueeze = fnc::function(squeezeAll, one);
  Tensor p = Tensor({1, 2, 3}), bad = Tensor({0, 7});
  Tensor zeros = Tensor({0, 1, 0});

  struct Case {
    const char *what;
    std::function<void()> eager, staged;
    const char *hint; // in both messages
  };
  std::vector<Case> cases = {
      {"gather", [&] { gather1(p, bad); }, [&] { stagedGather(p, bad); },
       "valid indices are 0 to 2"},
      {"division", [&] { div(p, zeros); }, [&] { stagedDiv(p, zeros); },
       "make sure the divisor has no zeros"},
      {"squeeze",
       [&] {
         squeezeAll(Tensor({{1, 2}, {3, 4}}));
       },
       [&] {
         stagedSqueeze(Tensor({{1, 2}, {3, 4}}));
       },
       "squeeze"},
  };
  for (const Case &c : cases) {
    SCOPED_TRACE(c.what);
    auto [eagerKind, eagerMessage] = errorOf(c.eager);
    auto [stagedKind, stagedMessage] = errorOf(c.staged);
    EXPECT_EQ(errorKindName(stagedKind), std::string(errorKindName(eagerKind)))
        << stagedMessage;
    EXPECT_NE(eagerMessage.find(c.hint), std::string::npos) << eagerMessage;
    EXPECT_NE(stagedMessage.find(c.hint), std::string::npos) << stagedMessage;
  }
  EXPECT_EQ(errorOf(cases[0].staged).first, ErrorKind::OutOfRange);
  EXPECT_EQ(errorOf(cases[1].staged).first, ErrorKind::InvalidArgument);
}

TEST(IdiomsTest, FromBlobBorrowsMemory) {
  std::vector<float> values = randomFloats(12, 3);
  Tensor x = Tensor::from_blob(values.data(), {3, 4});
  EXPECT_EQ(x.data<float>(), values.data()); // no copy
  EXPECT_EQ(x.to_vector<float>(), values);
  // Eager ops and staged functions read it like any tensor.
  Tensor copy(values, {3, 4});
  EXPECT_EQ((x * 2.f).to_vector<float>(), (copy * 2.f).to_vector<float>());
  auto f = fnc::function([](Tensor t) { return reduce_sum(t, {1}); });
  EXPECT_EQ(f(x).to_vector<float>(), f(copy).to_vector<float>());

  std::vector<int64_t> ints = {4, -5, 6};
  Tensor i = Tensor::from_blob(ints.data(), {3});
  EXPECT_EQ(i.dtype(), DType::i64);
  EXPECT_EQ((i + int64_t{1}).to_vector<int64_t>(),
            (std::vector<int64_t>{5, -4, 7}));
  unsigned char flags[] = {1, 0, 1};
  EXPECT_EQ(Tensor::from_blob(flags, {3}, DType::i1).to_vector<bool>(),
            (std::vector<bool>{true, false, true}));
  EXPECT_EQ(Tensor::from_blob(nullptr, {0, 3}, DType::f32).size(), 0);
}

TEST(IdiomsTest, FromBlobAdoptsMemoryWithADeleter) {
  std::atomic<int> deleted{0};
  {
    float *p = new float[4]{1, 2, 3, 4};
    Tensor x = Tensor::from_blob(p, {2, 2}, DType::f32, [&](void *q) {
      delete[] static_cast<float *>(q);
      ++deleted;
    });
    Tensor view = reshape(x, {4}); // shares the buffer
    x = Tensor();
    EXPECT_EQ(deleted, 0);
    EXPECT_EQ(view.to_vector<float>(), (std::vector<float>{1, 2, 3, 4}));
  }
  EXPECT_EQ(deleted, 1);
}

TEST(IdiomsTest, FromBlobRejectsBadArguments) {
  std::vector<float> values(8);
  EXPECT_FNC_ERROR(Tensor::from_blob(values.data(), {2, -4}), InvalidArgument,
                   "negative dimension");
  EXPECT_FNC_ERROR(Tensor::from_blob(nullptr, {2}, DType::f32), InvalidArgument,
                   "data is null");
  auto *misaligned = reinterpret_cast<const char *>(values.data()) + 1;
  EXPECT_FNC_ERROR(Tensor::from_blob(misaligned, {2}, DType::f32),
                   InvalidArgument, "not aligned for dtype float32");
  EXPECT_FNC_ERROR(
      Tensor::from_blob(values.data(), {int64_t{1} << 40, int64_t{1} << 40}),
      InvalidArgument, "more elements than memory can hold");
  int deleted = 0;
  EXPECT_FNC_ERROR(Tensor::from_blob(values.data(), {2}, DType::f32, {}),
                   InvalidArgument, "the deleter is empty");
  EXPECT_FNC_ERROR(
      Tensor::from_blob(nullptr, {2}, DType::f32, [&](void *) { ++deleted; }),
      InvalidArgument, "data is null");
  EXPECT_EQ(deleted, 0);
}

TEST(IdiomsTest, VariablesPrintAsTheirHeaderSays) {
  Variable v(Tensor({1.f, 2.f}), "kernel");
  EXPECT_EQ(v.str(),
            "fnc.Variable 'kernel' shape=(2,) dtype=float32, numpy=[1. 2.]");
  std::ostringstream os;
  os << v;
  EXPECT_EQ(os.str(), v.str());
  Variable m(Tensor({{1, 2}, {3, 4}}), "m");
  EXPECT_EQ(m.str(), "fnc.Variable 'm' shape=(2, 2) dtype=int32, numpy=\n"
                     "[[1 2]\n [3 4]]");
  // While tracing the value is symbolic; printing stages nothing.
  std::string traced;
  auto f = fnc::function([&](Tensor x) {
    traced = v.str();
    return x;
  });
  f(Tensor(1.f));
  EXPECT_EQ(traced, "fnc.Variable 'kernel' shape=(2,) dtype=float32");
  EXPECT_EQ(f.concrete_functions()[0].ir().find("var_read"), std::string::npos);
}

} // namespace
