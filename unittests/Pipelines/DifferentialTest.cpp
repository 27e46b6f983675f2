//===- DifferentialTest.cpp - JIT vs reference interpreter, every op ------===//
//
// Every fnc op, on random shapes (broadcasting, dynamic dims) and every
// dtype it takes, built with OpBuilder, compiled through the one pipeline
// and the JIT, and checked against the reference interpreter (the eager
// kernels) with a tolerance stated per op family.
//
//===----------------------------------------------------------------------===//

#include "fnc/Dialect/Fnc/IR/DTypes.h"
#include "fnc/Dialect/Fnc/IR/FncOps.h"
#include "fnc/Interpreter/Interpreter.h"
#include "fnc/JIT/Engine.h"
#include "fnc/Ops.h"
#include "fnc/Pipelines/Pipelines.h"
#include "fnc/Reference/Scalar.h"
#include "fnc/Tensor.h"

#include "Support/RandomIndex.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "llvm/Support/raw_ostream.h"
#include "gtest/gtest.h"

#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <numeric>
#include <random>

using namespace mlir;
namespace jit = ::fnc::jit;

namespace {

using ::fnc::DType;

/// How to draw the values of an input.
enum class Values { Any, Positive, NonZero, SmallInt, NonNegSmall, Index };

struct Input {
  DType dtype;
  std::vector<int64_t> shape;
  std::vector<bool> dynamic; // which dims the signature leaves unknown
  Values values = Values::Any;
  int64_t indexBound = 0; // for Values::Index: [0, indexBound)
};

/// |jit - ref| <= atol + rtol * |ref|.
struct Tolerance {
  double rtol = 0, atol = 0;
};
constexpr Tolerance kExact{0, 0};
constexpr Tolerance kArith{1e-6, 1e-6};
constexpr Tolerance kMath{2e-5, 1e-6};
constexpr Tolerance kReduce{1e-5, 1e-5};

using BuildFn = std::function<SmallVector<Value>(OpBuilder &, Location,
                                                 ValueRange)>;

Type elementType(OpBuilder &b, DType d) {
  return mlir::fnc::typeOf(d, b.getContext());
}

class Differential : public ::testing::Test {
protected:
  Differential() : rng(1234) {
    DialectRegistry registry;
    mlir::fnc::registerPipelineDialects(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
  }

  ::fnc::Tensor randomTensor(const Input &in) {
    int64_t n = 1;
    for (int64_t d : in.shape)
      n *= d;
    std::uniform_real_distribution<double> real(-2.0, 2.0);
    std::uniform_int_distribution<int64_t> ints(-9, 9), small(-3, 3),
        nonneg(0, 3), index(0, std::max<int64_t>(in.indexBound - 1, 0));
    auto draw = [&]() -> double {
      switch (in.values) {
      case Values::Positive:
        return std::abs(real(rng)) + 0.1;
      case Values::NonZero: {
        double v = isFloat(in.dtype) ? real(rng) : (double)ints(rng);
        return v == 0 || std::abs(v) < 0.1 ? 1.5 : v;
      }
      case Values::SmallInt:
        return (double)small(rng);
      case Values::NonNegSmall:
        return (double)nonneg(rng);
      case Values::Index:
        return (double)index(rng);
      case Values::Any:
        return isFloat(in.dtype) ? real(rng) : (double)ints(rng);
      }
      return 0;
    };
    switch (in.dtype) {
    case DType::str: // numeric tensors only
      break;
    case DType::f32: {
      std::vector<float> v(n);
      for (auto &x : v)
        x = (float)draw();
      return ::fnc::Tensor(v, in.shape);
    }
    case DType::f64: {
      std::vector<double> v(n);
      for (auto &x : v)
        x = draw();
      return ::fnc::Tensor(v, in.shape);
    }
    case DType::i1: {
      std::vector<bool> v(n);
      std::bernoulli_distribution coin;
      for (size_t i = 0; i < v.size(); ++i)
        v[i] = coin(rng);
      std::vector<int32_t> asInt(v.begin(), v.end());
      return ::fnc::cast(::fnc::Tensor(asInt, in.shape), DType::i1);
    }
    case DType::i32: {
      std::vector<int32_t> v(n);
      for (auto &x : v)
        x = (int32_t)draw();
      return ::fnc::Tensor(v, in.shape);
    }
    case DType::i64: {
      std::vector<int64_t> v(n);
      for (auto &x : v)
        x = (int64_t)draw();
      return ::fnc::Tensor(v, in.shape);
    }
    }
    return {};
  }

  static bool isFloat(DType d) { return d == DType::f32 || d == DType::f64; }

  /// Builds @main over `inputs` with `build`, runs it through the JIT and
  /// the interpreter on `given` (random tensors when empty), and compares
  /// every result.
  void check(const std::string &what, const std::vector<Input> &inputs,
             const BuildFn &build, Tolerance tol,
             std::vector<::fnc::Tensor> given = {}) {
    SCOPED_TRACE(what);
    OpBuilder b(&context);
    Location loc = b.getUnknownLoc();
    OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
    SmallVector<Type> argTypes;
    for (const Input &in : inputs) {
      SmallVector<int64_t> shape(in.shape.begin(), in.shape.end());
      for (size_t i = 0; i < in.dynamic.size(); ++i)
        if (in.dynamic[i])
          shape[i] = ShapedType::kDynamic;
      argTypes.push_back(
          RankedTensorType::get(shape, elementType(b, in.dtype)));
    }
    b.setInsertionPointToEnd(module->getBody());
    auto func = func::FuncOp::create(b, loc, "main",
                                     b.getFunctionType(argTypes, {}));
    Block *entry = func.addEntryBlock();
    b.setInsertionPointToEnd(entry);
    SmallVector<Value> results = build(b, loc, entry->getArguments());
    func::ReturnOp::create(b, loc, results);
    func.setFunctionType(
        b.getFunctionType(argTypes, ValueRange(results).getTypes()));
    ASSERT_TRUE(succeeded(verify(*module)));

    std::vector<::fnc::Tensor> args = std::move(given);
    std::vector<jit::BufferView> views;
    if (args.empty())
      for (const Input &in : inputs)
        args.push_back(randomTensor(in));
    for (const ::fnc::Tensor &t : args)
      views.push_back({t.dtype(), t.shape(), const_cast<void *>(rawData(t)),
                       {}});

    auto interpreter = mlir::fnc::Interpreter::create(*module);
    ASSERT_TRUE(!!interpreter) << llvm::toString(interpreter.takeError());
    auto expected = (*interpreter)->call("main", args);
    ASSERT_TRUE(!!expected) << llvm::toString(expected.takeError());

    mlir::fnc::PipelineOptions options;
    auto compiled = jit::CompiledModule::compile(*module, options);
    ASSERT_TRUE(!!compiled) << llvm::toString(compiled.takeError());
    auto entryFn = (*compiled)->lookup("main");
    ASSERT_TRUE(!!entryFn) << llvm::toString(entryFn.takeError());
    auto actual = (*entryFn)->call(views);
    ASSERT_TRUE(!!actual) << llvm::toString(actual.takeError());

    ASSERT_EQ(actual->size(), expected->size());
    for (size_t r = 0; r < actual->size(); ++r)
      compare((*actual)[r], (*expected)[r], tol, r);
  }

  static const void *rawData(const ::fnc::Tensor &t) {
    switch (t.dtype()) {
    case DType::str: // numeric tensors only
      break;
    case DType::f32:
      return t.data<float>();
    case DType::f64:
      return t.data<double>();
    case DType::i1:
      return t.data<bool>();
    case DType::i32:
      return t.data<int32_t>();
    case DType::i64:
      return t.data<int64_t>();
    }
    return nullptr;
  }

  static double element(DType d, const void *data, int64_t i) {
    switch (d) {
    case DType::str: // numeric tensors only
      break;
    case DType::f32:
      return static_cast<const float *>(data)[i];
    case DType::f64:
      return static_cast<const double *>(data)[i];
    case DType::i1:
      return static_cast<const bool *>(data)[i];
    case DType::i32:
      return static_cast<const int32_t *>(data)[i];
    case DType::i64:
      return (double)static_cast<const int64_t *>(data)[i];
    }
    return 0;
  }

  void compare(const jit::Buffer &actual, const ::fnc::Tensor &expected,
               Tolerance tol, size_t r) {
    ASSERT_EQ(actual.dtype(), expected.dtype()) << "result " << r;
    std::vector<int64_t> shape(actual.shape().begin(), actual.shape().end());
    ASSERT_EQ(shape, expected.shape()) << "result " << r;
    const void *ref = rawData(expected);
    for (int64_t i = 0, n = expected.size(); i < n; ++i) {
      double a = element(actual.dtype(), actual.data(), i);
      double e = element(expected.dtype(), ref, i);
      if (std::isnan(e) || std::isinf(e)) {
        EXPECT_TRUE(std::isnan(e) ? std::isnan(a) : a == e)
            << "result " << r << " element " << i << ": jit " << a
            << " vs reference " << e;
        continue;
      }
      EXPECT_LE(std::abs(a - e), tol.atol + tol.rtol * std::abs(e))
          << "result " << r << " element " << i << ": jit " << a
          << " vs reference " << e << "\n"
          << expected;
    }
  }

  /// A random shape of rank [minRank, maxRank], dims in [1, 4].
  std::vector<int64_t> randomShape(int minRank, int maxRank) {
    std::uniform_int_distribution<int> rank(minRank, maxRank), dim(1, 4);
    std::vector<int64_t> s(rank(rng));
    for (auto &d : s)
      d = dim(rng);
    return s;
  }

  /// Two shapes that broadcast: `full` and a copy of a random suffix with
  /// some dims set to 1.
  std::pair<std::vector<int64_t>, std::vector<int64_t>> broadcastPair() {
    std::vector<int64_t> full = randomShape(0, 3);
    std::uniform_int_distribution<size_t> keep(0, full.size());
    std::vector<int64_t> part(full.end() - keep(rng), full.end());
    std::bernoulli_distribution coin(0.3);
    for (auto &d : part)
      if (coin(rng))
        d = 1;
    if (coin(rng))
      std::swap(full, part);
    return {full, part};
  }

  /// Marks some dims dynamic (never a broadcast 1 against a larger dim).
  std::vector<bool> randomDynamic(const std::vector<int64_t> &shape,
                                  const std::vector<int64_t> &other) {
    std::vector<bool> dyn(shape.size(), false);
    std::bernoulli_distribution coin(0.3);
    for (size_t i = 0; i < shape.size(); ++i) {
      size_t j = i + other.size() - shape.size();
      bool broadcasting =
          shape[i] == 1 && i + other.size() >= shape.size() &&
          j < other.size() && other[j] != 1;
      dyn[i] = !broadcasting && coin(rng);
    }
    return dyn;
  }

  /// randomDynamic for both operands of a broadcast, where a size-1 dim
  /// that broadcasts may also be dynamic when the dim it meets is static
  /// (a run-time broadcast: the stretch path of the lowering).
  std::pair<std::vector<bool>, std::vector<bool>>
  randomDynamicPair(const std::vector<int64_t> &x,
                    const std::vector<int64_t> &y) {
    std::vector<bool> dx = randomDynamic(x, y), dy = randomDynamic(y, x);
    std::bernoulli_distribution coin(0.5);
    auto stretch = [&](const std::vector<int64_t> &a, std::vector<bool> &da,
                       const std::vector<int64_t> &b,
                       const std::vector<bool> &db) {
      for (size_t i = 0; i < a.size(); ++i) {
        size_t j = i + b.size() - a.size();
        if (i + b.size() >= a.size() && j < b.size() && a[i] == 1 &&
            b[j] != 1 && !db[j])
          da[i] = coin(rng);
      }
    };
    stretch(x, dx, y, dy);
    stretch(y, dy, x, dx);
    return {dx, dy};
  }

  MLIRContext context;
  std::mt19937 rng;
};

constexpr int kTrials = 4;
const DType kNumeric[] = {DType::f32, DType::f64, DType::i32, DType::i64};
const DType kFloats[] = {DType::f32, DType::f64};

template <typename OpTy>
BuildFn binary() {
  return [](OpBuilder &b, Location loc, ValueRange a) {
    return SmallVector<Value>{OpTy::create(b, loc, a[0], a[1])};
  };
}

template <typename OpTy>
BuildFn unary() {
  return [](OpBuilder &b, Location loc, ValueRange a) {
    return SmallVector<Value>{OpTy::create(b, loc, a[0])};
  };
}

//===----------------------------------------------------------------------===//
// The elementwise ops of the op table
//===----------------------------------------------------------------------===//

// Every unary and binary op of the op table (FncOpTable.inc) is tested here
// on every dtype its DTypes class accepts, so a new op is covered without
// touching this file. What to draw and how close the JIT must come default
// to any values and kMath; the ops that need another domain or are exact
// say so in domainOf. Pow has its own test (its domain depends on the
// dtype).

struct TableOp {
  const char *name;
  int arity;
  ::fnc::scalar::DTypes dtypes;
  BuildFn build;
};

const std::vector<TableOp> &tableOps() {
  static const std::vector<TableOp> ops = {
#define FNC_UNARY_OP(KIND, CLASS, API, DTYPES, ...)                            \
  {#API, 1, ::fnc::scalar::DTypes::DTYPES, unary<mlir::fnc::CLASS>()},
#define FNC_BINARY_OP(KIND, CLASS, API, DTYPES, ...)                           \
  {#API, 2, ::fnc::scalar::DTypes::DTYPES, binary<mlir::fnc::CLASS>()},
#include "fnc/Dialect/Fnc/IR/FncOpTable.inc"
  };
  return ops;
}

struct Domain {
  Values values = Values::Any; // of the last operand
  Tolerance tol = kMath;
};

Domain domainOf(const std::string &op) {
  static const std::map<std::string, Domain> special = {
      {"add", {Values::Any, kArith}},
      {"sub", {Values::Any, kArith}},
      {"mul", {Values::Any, kArith}},
      {"square", {Values::Any, kArith}},
      {"div", {Values::NonZero, kArith}},
      {"floor_mod", {Values::NonZero, kArith}},
      {"floor_div", {Values::NonZero, kArith}},
      {"log", {Values::Positive, kMath}},
      {"sqrt", {Values::Positive, kMath}},
      {"rsqrt", {Values::Positive, kMath}},
      {"log1p", {Values::Positive, kMath}},
  };
  static const char *const exact[] = {
      "maximum", "minimum",     "neg",        "abs",
      "relu",    "sign",        "floor",      "ceil",
      "round",   "logical_and", "logical_or", "logical_not"};
  auto it = special.find(op);
  if (it != special.end())
    return it->second;
  for (const char *e : exact)
    if (op == e)
      return {Values::Any, kExact};
  return {};
}

std::vector<DType> dtypesOf(::fnc::scalar::DTypes dtypes) {
  std::vector<DType> out;
  for (DType d : {DType::f32, DType::f64, DType::i1, DType::i32, DType::i64})
    if (::fnc::scalar::accepts(dtypes, d))
      out.push_back(d);
  return out;
}

TEST_F(Differential, EveryTableOpOnRandomShapes) {
  for (const TableOp &op : tableOps()) {
    if (std::string(op.name) == "pow")
      continue;
    Domain domain = domainOf(op.name);
    for (DType d : dtypesOf(op.dtypes))
      for (int t = 0; t < kTrials; ++t) {
        std::string what = std::string(op.name) + " " + ::fnc::dtypeName(d);
        if (op.arity == 1) {
          std::vector<int64_t> s = randomShape(0, 3);
          check(what, {{d, s, randomDynamic(s, s), domain.values}}, op.build,
                domain.tol);
          continue;
        }
        auto [x, y] = broadcastPair();
        auto [dx, dy] = randomDynamicPair(x, y);
        check(what, {{d, x, dx}, {d, y, dy, domain.values}}, op.build,
              domain.tol);
      }
  }
}

// The float ops of the table on the values where libm implementations and
// hand-built formulas differ: signed zeros, infinities, NaN, halves (for
// round), tiny and huge magnitudes.
TEST_F(Differential, EveryFloatTableOpOnSpecialValues) {
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<double> xs = {
      0.0,    -0.0,  0.5,
      -0.5,   1.5,   -1.5,
      2.5,    -2.5,  0.49999,
      1e-7,   -1e-7, 1e-30,
      30.0,   -30.0, 100.0,
      -100.0, 1e10,  -1e10,
      inf,    -inf,  std::numeric_limits<double>::quiet_NaN()};
  for (const TableOp &op : tableOps()) {
    if (!::fnc::scalar::accepts(op.dtypes, DType::f32) ||
        ::fnc::scalar::accepts(op.dtypes, DType::i32))
      continue; // float-only ops
    for (DType d : kFloats) {
      std::string what = std::string(op.name) + " " + ::fnc::dtypeName(d);
      std::vector<::fnc::Tensor> args;
      // Binary ops pair every value with every value.
      std::vector<double> lhs, rhs;
      for (double x : xs)
        for (double y : op.arity == 1 ? std::vector<double>{0.0} : xs)
          lhs.push_back(x), rhs.push_back(y);
      int64_t m = lhs.size();
      for (const std::vector<double> *v : {&lhs, &rhs}) {
        if (op.arity == 1 && v == &rhs)
          break;
        args.push_back(::fnc::cast(::fnc::Tensor(*v, {m}), d));
      }
      std::vector<Input> in(op.arity, Input{d, {m}, {}});
      check(what, in, op.build, domainOf(op.name).tol, args);
    }
  }
}

TEST_F(Differential, Pow) {
  for (int t = 0; t < kTrials; ++t) {
    auto [x, y] = broadcastPair();
    for (DType d : kFloats)
      check("pow float", {{d, x, {}, Values::Positive}, {d, y, {}, Values::Any}},
            binary<mlir::fnc::PowOp>(), kMath);
    for (DType d : {DType::i32, DType::i64})
      check("pow int",
            {{d, x, {}, Values::SmallInt}, {d, y, {}, Values::NonNegSmall}},
            binary<mlir::fnc::PowOp>(), kExact);
  }
}

TEST_F(Differential, Select) {
  for (int t = 0; t < kTrials; ++t) {
    auto [x, y] = broadcastPair();
    for (DType d : {DType::f32, DType::i64})
      check("select", {{DType::i1, x, {}}, {d, y, {}}, {d, x, {}}},
            [](OpBuilder &b, Location loc, ValueRange a) {
              return SmallVector<Value>{
                  mlir::fnc::SelectOp::create(b, loc, a[0], a[1], a[2])};
            },
            kExact);
  }
}

TEST_F(Differential, Compare) {
  using mlir::fnc::ComparePredicate;
  for (DType d : {DType::f32, DType::f64, DType::i1, DType::i32, DType::i64})
    for (int t = 0; t < kTrials; ++t) {
      auto [x, y] = broadcastPair();
      for (auto p : {ComparePredicate::eq, ComparePredicate::ne,
                     ComparePredicate::lt, ComparePredicate::le,
                     ComparePredicate::gt, ComparePredicate::ge}) {
        if (d == DType::i1 && p != ComparePredicate::eq &&
            p != ComparePredicate::ne)
          continue; // bools only compare for equality
        check("compare", {{d, x, {}, Values::SmallInt}, {d, y, {}, Values::SmallInt}},
              [p](OpBuilder &b, Location loc, ValueRange a) {
                return SmallVector<Value>{
                    mlir::fnc::CompareOp::create(b, loc, p, a[0], a[1])};
              },
              kExact);
      }
    }
}

// Under fast-math f32 tanh is a polynomial approximation (see
// -fnc-approximate-math): a sweep across its whole range, the clamp at
// +-7.99, and special values, against libm's tanh in the interpreter
// (measured: at most 2.6e-7 relative, about 3 ulp).
TEST_F(Differential, TanhApproximationSweep) {
  std::vector<float> xs;
  for (int i = -6000; i <= 6000; ++i)
    xs.push_back(i * 0.002f);
  for (float v :
       {0.0f, -0.0f, 1e-30f, -1e-30f, 1e-5f, -3e-4f, 7.98f, 8.0f, -8.01f, 20.0f,
        -1e30f, 3.4e38f, std::numeric_limits<float>::denorm_min(),
        std::numeric_limits<float>::infinity(),
        -std::numeric_limits<float>::infinity(),
        std::numeric_limits<float>::quiet_NaN()})
    xs.push_back(v);
  int64_t n = xs.size();
  check("tanh sweep", {{DType::f32, {n}, {}}}, unary<mlir::fnc::TanhOp>(),
        Tolerance{5e-7, 0}, {::fnc::Tensor(xs, {n})});
}

TEST_F(Differential, Cast) {
  const DType all[] = {DType::f32, DType::f64, DType::i1, DType::i32,
                       DType::i64};
  for (DType from : all)
    for (DType to : all) {
      std::vector<int64_t> s = randomShape(0, 2);
      check("cast", {{from, s, {}}},
            [&](OpBuilder &b, Location loc, ValueRange a) {
              auto type = RankedTensorType::get(
                  cast<RankedTensorType>(a[0].getType()).getShape(),
                  elementType(b, to));
              return SmallVector<Value>{
                  mlir::fnc::CastOp::create(b, loc, type, a[0])};
            },
            kExact);
    }
}

TEST_F(Differential, Reductions) {
  std::uniform_int_distribution<int> coin(0, 1);
  for (DType d : kNumeric)
    for (int t = 0; t < kTrials; ++t) {
      std::vector<int64_t> s = randomShape(1, 3);
      std::vector<int64_t> axes;
      for (int64_t i = 0; i < (int64_t)s.size(); ++i)
        if (coin(rng))
          axes.push_back(coin(rng) ? i : i - (int64_t)s.size());
      bool keep = coin(rng);
      Input in{d, s, randomDynamic(s, s), Values::SmallInt};
      auto reduce = [&](auto tag) {
        using OpTy = decltype(tag);
        return [axes, keep](OpBuilder &b, Location loc, ValueRange a) {
          return SmallVector<Value>{OpTy::create(b, loc, a[0], axes, keep)};
        };
      };
      check("sum", {in}, reduce(mlir::fnc::SumOp()), kReduce);
      check("mean", {in}, reduce(mlir::fnc::MeanOp()), kReduce);
      check("max", {in}, reduce(mlir::fnc::MaxOp()), kExact);
      check("min", {in}, reduce(mlir::fnc::MinOp()), kExact);
      check("prod", {in}, reduce(mlir::fnc::ProdOp()), kReduce);
      int64_t axis = std::uniform_int_distribution<int64_t>(
          -(int64_t)s.size(), s.size() - 1)(rng);
      Input real{d, s, {}, Values::Any};
      check("argmax", {real},
            [axis](OpBuilder &b, Location loc, ValueRange a) {
              auto in = cast<RankedTensorType>(a[0].getType());
              SmallVector<int64_t> out(in.getShape());
              out.erase(out.begin() + (axis < 0 ? axis + in.getRank() : axis));
              auto type = RankedTensorType::get(out, b.getI64Type());
              return SmallVector<Value>{
                  mlir::fnc::ArgmaxOp::create(b, loc, type, a[0], axis)};
            },
            kExact);
      if (isFloat(d)) {
        auto softmax = [axis](auto tag) {
          using OpTy = decltype(tag);
          return [axis](OpBuilder &b, Location loc, ValueRange a) {
            return SmallVector<Value>{OpTy::create(b, loc, a[0], axis)};
          };
        };
        check("softmax", {real}, softmax(mlir::fnc::SoftmaxOp()), kMath);
        check("log_softmax", {real}, softmax(mlir::fnc::LogSoftmaxOp()),
              kMath);
      }
    }
}

TEST_F(Differential, Matmul) {
  std::uniform_int_distribution<int64_t> dim(1, 5);
  for (DType d : kNumeric)
    for (int t = 0; t < kTrials; ++t) {
      int64_t m = dim(rng), k = dim(rng), n = dim(rng);
      auto [batchA, batchB] = broadcastPair();
      std::vector<int64_t> a = batchA, b = batchB;
      a.insert(a.end(), {m, k});
      b.insert(b.end(), {k, n});
      check("matmul", {{d, a, randomDynamic(a, a), Values::SmallInt},
                       {d, b, {}, Values::SmallInt}},
            binary<mlir::fnc::MatmulOp>(), kReduce);
    }
}

// f32 matmuls take the register-blocked kernel of
// -fnc-lower-to-ordered-loops for every column count but 1: whole 4 x 64
// tiles, then the columns 64 does not divide (static: one tile whose last
// vector is masked; unknown: a masked vector at a time), and the rows 4
// does not divide one at a time. Column counts around every vector and
// block edge, row counts around the row tile, unknown dims of every kind,
// random values (the kernel keeps k in order, so the sums match closely).
TEST_F(Differential, MatmulKernelEdges) {
  const int64_t columns[] = {2,  5,  10, 15, 16, 17,  31,  32,  33, 48,
                             63, 64, 65, 79, 80, 100, 127, 128, 130, 200};
  std::uniform_int_distribution<int64_t> rows(1, 13), depth(1, 40);
  for (size_t t = 0; t < std::size(columns); ++t) {
    int64_t m = rows(rng), k = depth(rng), n = columns[t];
    std::vector<int64_t> a = {m, k}, b = {k, n};
    // Every third case leaves n unknown, the masked loop's path.
    std::vector<bool> dynamicB = {false, t % 3 == 0};
    check("matmul " + std::to_string(m) + "x" + std::to_string(k) + "x" +
              std::to_string(n),
          {{DType::f32, a, randomDynamic(a, a), Values::Any},
           {DType::f32, b, dynamicB, Values::Any}},
          binary<mlir::fnc::MatmulOp>(), kReduce);
  }
}

// f32 matmuls whose B has 2 MiB or more (static k, at least 8 blocks of
// 48 columns) pack B: per k block (at most 256 rows, equal blocks) each
// column block copies its slab into a panel. x @ W.T with a W of 1 MiB or
// more gathers W's columns into the panels instead (no transpose is
// written). Each case both ways: a last k block shorter than 256 rows, a
// last column block narrower than 48 (its last vector masked), the rows 8
// does not divide, an unknown row count, and a case with no edge at all.
// Small integers: with k in the thousands, random values would differ by
// the FMA's rounding alone; integer sums are exact, so any misplaced
// element shows.
TEST_F(Differential, MatmulPackedPanels) {
  struct Case {
    int64_t m, k, n;
    bool unknownRows;
  };
  for (Case c : {Case{37, 1000, 530, false}, Case{45, 700, 900, true},
                 Case{32, 2048, 384, false}}) {
    std::string shape = std::to_string(c.m) + "x" + std::to_string(c.k) +
                        "x" + std::to_string(c.n);
    std::vector<int64_t> x = {c.m, c.k}, b = {c.k, c.n}, w = {c.n, c.k};
    Input lhs{DType::f32, x, {c.unknownRows, false}, Values::SmallInt};
    check("matmul " + shape, {lhs, {DType::f32, b, {}, Values::SmallInt}},
          binary<mlir::fnc::MatmulOp>(), kReduce);
    check("x @ W.T " + shape, {lhs, {DType::f32, w, {}, Values::SmallInt}},
          [](OpBuilder &bld, Location loc, ValueRange a) {
            Value t = mlir::fnc::TransposeOp::create(bld, loc, a[1],
                                                     ArrayRef<int64_t>{1, 0});
            return SmallVector<Value>{
                mlir::fnc::MatmulOp::create(bld, loc, a[0], t)};
          },
          kReduce);
  }
}

// f32 batched matmuls take the same kernel: with a B per batch entry,
// the entries in parallel on 2-D views; with one B for all, as one matmul
// of batch x rows. Column and row edges, unknown batches and rows.
TEST_F(Differential, BatchedMatmulKernel) {
  struct Case {
    std::vector<int64_t> a, b;
    std::vector<bool> dynamicA;
  };
  const Case cases[] = {
      {{3, 13, 20}, {3, 20, 50}, {false, false, false}},
      {{5, 8, 33}, {5, 33, 96}, {true, false, false}},
      {{2, 7, 9}, {2, 9, 17}, {true, true, false}},
      {{4, 9, 17}, {17, 100}, {false, false, false}},
      {{6, 5, 40}, {40, 48}, {true, false, false}},
      {{3, 11, 12}, {12, 10}, {true, true, false}},
  };
  for (const Case &c : cases)
    check("batched matmul",
          {{DType::f32, c.a, c.dynamicA, Values::Any},
           {DType::f32, c.b, {}, Values::Any}},
          binary<mlir::fnc::MatmulOp>(), kReduce);
}

// f32 matrix-vector products take the dot-product kernel of
// -fnc-lower-to-ordered-loops when K is a multiple of 16 (rows in blocks
// of 16 reduced by one shuffle tree, the rest one by one); the plain loops
// otherwise. Rows around the block edges, unknown in every other trial.
// Random values, not small integers: the kernel reassociates.
TEST_F(Differential, MatrixVector) {
  const int64_t rowCounts[] = {16, 17, 31, 32, 48, 5, 64, 70};
  std::uniform_int_distribution<int64_t> blocks(1, 4);
  for (size_t t = 0; t < std::size(rowCounts); ++t) {
    int64_t m = rowCounts[t];
    int64_t k = blocks(rng) * 16 + (t % 3 == 2 ? 3 : 0);
    check("matrix-vector " + std::to_string(m) + "x" + std::to_string(k),
          {{DType::f32, {m, k}, {t % 2 == 1, false}},
           {DType::f32, {k, 1}, {}}},
          binary<mlir::fnc::MatmulOp>(), kReduce);
  }
}

TEST_F(Differential, Conv2D) {
  std::uniform_int_distribution<int64_t> small(1, 3), size(3, 7);
  for (DType d : {DType::f32, DType::f64, DType::i32})
    for (int t = 0; t < kTrials; ++t) {
      int64_t kh = small(rng), kw = small(rng), c = small(rng);
      std::vector<int64_t> x = {small(rng), size(rng), size(rng), c};
      std::vector<int64_t> w = {kh, kw, c, small(rng)};
      SmallVector<int64_t> strides = {small(rng), small(rng)};
      auto padding = t % 2 ? mlir::fnc::Padding::same
                           : mlir::fnc::Padding::valid;
      check("conv2d", {{d, x, {}, Values::SmallInt}, {d, w, {}, Values::SmallInt}},
            [=](OpBuilder &b, Location loc, ValueRange a) {
              return SmallVector<Value>{mlir::fnc::Conv2DOp::create(
                  b, loc, a[0], a[1], strides, padding)};
            },
            kReduce);
    }
}

// f32 conv2d takes the register-blocked kernel of
// -fnc-lower-to-ordered-loops: blocks of 1, 2 or 3 vectors of channels (16
// to 144 channels), or for other channel counts (1 to 100) blocks of 3 and
// a tail tile with its last vector masked; row tiles that divide the
// output width, strides 1 and 2, both paddings, an unknown batch in every
// other trial. Random values: the kernel sums in its own order.
TEST_F(Differential, Conv2DKernelEdges) {
  // Multiples of 16 take whole channel blocks; the others (1 to 100) a
  // tail tile whose last vector is masked.
  const int64_t filters[] = {16, 32, 48, 64, 80, 96, 128, 144,
                             1,  10, 20, 40, 50, 100, 17};
  std::uniform_int_distribution<int64_t> batch(1, 2), size(3, 12),
      channels(1, 6), kernel(1, 3), stride(1, 2);
  for (size_t t = 0; t < std::size(filters); ++t) {
    int64_t kh = kernel(rng), kw = kernel(rng), c = channels(rng);
    std::vector<int64_t> x = {batch(rng), size(rng) + kh, size(rng) + kw, c};
    std::vector<int64_t> w = {kh, kw, c, filters[t]};
    SmallVector<int64_t> strides = {stride(rng), stride(rng)};
    auto padding =
        t % 2 ? mlir::fnc::Padding::same : mlir::fnc::Padding::valid;
    std::vector<bool> dynamicX = {t % 2 == 1, false, false, false};
    check("conv2d kernel " + std::to_string(filters[t]) + " filters",
          {{DType::f32, x, dynamicX, Values::Any},
           {DType::f32, w, {}, Values::Any}},
          [=](OpBuilder &b, Location loc, ValueRange a) {
            return SmallVector<Value>{mlir::fnc::Conv2DOp::create(
                b, loc, a[0], a[1], strides, padding)};
          },
          kReduce);
  }
}

// max_pool2d, avg_pool2d and their gradient ops in one module per trial:
// random windows (overlapping when the stride is smaller), strides, both
// paddings, some dims unknown when compiling; small integers give ties,
// which the first-maximum rule of max_pool2d_grad must break the same way.
// The JIT adds in the reference kernels' order, so the results are exact.
// Windows of up to 4x4 taps and strides up to 3 take every path of the
// lowering: unrolled and looped first-maximum search, gathers and the
// tiled case (stride >= window, sizes a multiple of the stride).
TEST_F(Differential, Pooling) {
  std::uniform_int_distribution<int64_t> batch(1, 3), size(1, 9),
      channels(1, 5), window(1, 4), stride(1, 3);
  for (DType d : kFloats)
    for (int t = 0; t < 8; ++t) {
      // The first trial's window is larger than the lowering unrolls.
      int64_t kh = t ? window(rng) : 4, kw = t ? window(rng) : 3;
      std::vector<int64_t> x = {batch(rng), size(rng), size(rng),
                                channels(rng)};
      SmallVector<int64_t> ksize = {kh, kw},
                           strides = {stride(rng), stride(rng)};
      bool same = t % 2 || kh > x[1] || kw > x[2];
      auto padding =
          same ? mlir::fnc::Padding::same : mlir::fnc::Padding::valid;
      auto out = [&](int64_t in, int64_t k, int64_t s) {
        return same ? (in + s - 1) / s : (in - k) / s + 1;
      };
      std::vector<int64_t> y = {x[0], out(x[1], kh, strides[0]),
                                out(x[2], kw, strides[1]), x[3]};
      Values values = t % 4 < 2 ? Values::Any : Values::SmallInt;
      std::string what =
          "pooling " + std::to_string(kh) + "x" + std::to_string(kw) +
          " strides " + std::to_string(strides[0]) + "," +
          std::to_string(strides[1]) + (same ? " same" : " valid");
      check(
          what,
          {{d, x, randomDynamic(x, x), values},
           {d, y, randomDynamic(y, y), Values::Any}},
          [=](OpBuilder &b, Location loc, ValueRange a) {
            using namespace mlir::fnc;
            return SmallVector<Value>{
                MaxPool2DOp::create(b, loc, a[0], ksize, strides, padding),
                AvgPool2DOp::create(b, loc, a[0], ksize, strides, padding),
                MaxPool2DGradOp::create(b, loc, a[0], a[1], ksize, strides,
                                        padding),
                AvgPool2DGradOp::create(b, loc, a[0], a[1], ksize, strides,
                                        padding)};
          },
          kExact);
    }
}

TEST_F(Differential, ShapeOps) {
  for (DType d : {DType::f32, DType::i64, DType::i1})
    for (int t = 0; t < kTrials; ++t) {
      std::vector<int64_t> s = randomShape(1, 3);
      Input in{d, s, randomDynamic(s, s)};
      int64_t rank = s.size();
      // transpose by a random permutation
      SmallVector<int64_t> perm(rank);
      std::iota(perm.begin(), perm.end(), 0);
      std::shuffle(perm.begin(), perm.end(), rng);
      check("transpose", {in},
            [perm](OpBuilder &b, Location loc, ValueRange a) {
              return SmallVector<Value>{
                  mlir::fnc::TransposeOp::create(b, loc, a[0], perm)};
            },
            kExact);
      // reshape to flat, and to [?, last] when dynamic
      check("reshape", {{d, s, {}}},
            [&](OpBuilder &b, Location loc, ValueRange a) {
              int64_t n = 1;
              for (int64_t x : s)
                n *= x;
              auto type = RankedTensorType::get({n}, elementType(b, d));
              return SmallVector<Value>{
                  mlir::fnc::ReshapeOp::create(b, loc, type, a[0])};
            },
            kExact);
      check("reshape dynamic", {{d, s, std::vector<bool>(rank, true)}},
            [&](OpBuilder &b, Location loc, ValueRange a) {
              auto type = RankedTensorType::get(
                  {ShapedType::kDynamic, s.back()}, elementType(b, d));
              return SmallVector<Value>{
                  mlir::fnc::ReshapeOp::create(b, loc, type, a[0])};
            },
            kExact);
      int64_t axis = std::uniform_int_distribution<int64_t>(-rank - 1,
                                                            rank)(rng);
      check("expand_dims", {in},
            [axis](OpBuilder &b, Location loc, ValueRange a) {
              return SmallVector<Value>{
                  mlir::fnc::ExpandDimsOp::create(b, loc, a[0], axis)};
            },
            kExact);
      std::vector<int64_t> withOnes = s;
      withOnes.insert(withOnes.begin(), 1);
      withOnes.push_back(1);
      check("squeeze", {{d, withOnes, {}}},
            [](OpBuilder &b, Location loc, ValueRange a) {
              return SmallVector<Value>{mlir::fnc::SqueezeOp::create(
                  b, loc, a[0], ArrayRef<int64_t>{0, -1})};
            },
            kExact);
      std::vector<int64_t> target = s;
      target.insert(target.begin(), 3);
      check("broadcast_to", {{d, s, {}}},
            [&](OpBuilder &b, Location loc, ValueRange a) {
              auto type = RankedTensorType::get(target, elementType(b, d));
              return SmallVector<Value>{mlir::fnc::BroadcastToOp::create(
                  b, loc, type, a[0], ValueRange{})};
            },
            kExact);
      // shape_of a tensor with random dynamic dims, and broadcast_to_shape
      // of a tensor with random 1s to it.
      std::vector<int64_t> small = s;
      for (int64_t &x : small)
        if (std::uniform_int_distribution<int>(0, 1)(rng))
          x = 1;
      check("shape_of + broadcast_to_shape", {{d, small, {}}, in},
            [&](OpBuilder &b, Location loc, ValueRange a) {
              auto like = cast<RankedTensorType>(a[1].getType());
              auto shapeType = RankedTensorType::get({rank}, b.getI64Type());
              Value shape =
                  mlir::fnc::ShapeOfOp::create(b, loc, shapeType, a[1]);
              auto type =
                  RankedTensorType::get(like.getShape(), elementType(b, d));
              return SmallVector<Value>{
                  shape, mlir::fnc::BroadcastToShapeOp::create(b, loc, type,
                                                               a[0], shape)};
            },
            kExact);
      // slice: random window in bounds
      SmallVector<int64_t> offsets, sizes, strides;
      for (int64_t x : s) {
        int64_t stride = std::uniform_int_distribution<int64_t>(1, 2)(rng);
        int64_t offset = std::uniform_int_distribution<int64_t>(0, x - 1)(rng);
        int64_t size = (x - 1 - offset) / stride + 1;
        offsets.push_back(offset);
        sizes.push_back(size);
        strides.push_back(stride);
      }
      check("slice", {in},
            [=](OpBuilder &b, Location loc, ValueRange a) {
              return SmallVector<Value>{mlir::fnc::SliceOp::create(
                  b, loc, a[0], offsets, sizes, strides)};
            },
            kExact);
      // slice to the end (size -1) from a random offset, also along the
      // dynamic dims, whose size is then read at run time.
      SmallVector<int64_t> toEnd(rank, -1);
      check(
          "slice to the end", {in},
          [=](OpBuilder &b, Location loc, ValueRange a) {
            return SmallVector<Value>{mlir::fnc::SliceOp::create(
                b, loc, a[0], offsets, toEnd, strides)};
          },
          kExact);
      // pad: random amounts before, after and between the elements.
      SmallVector<int64_t> low, high, interior;
      for (int64_t i = 0; i < rank; ++i) {
        low.push_back(std::uniform_int_distribution<int64_t>(0, 2)(rng));
        high.push_back(std::uniform_int_distribution<int64_t>(0, 2)(rng));
        interior.push_back(std::uniform_int_distribution<int64_t>(0, 2)(rng));
      }
      check(
          "pad", {in},
          [=](OpBuilder &b, Location loc, ValueRange a) {
            return SmallVector<Value>{mlir::fnc::PadOp::create(
                b, loc, a[0], low, high, interior, llvm::APFloat(1.0))};
          },
          kExact);
      int64_t catAxis =
          std::uniform_int_distribution<int64_t>(0, rank - 1)(rng);
      std::vector<int64_t> other = s;
      other[catAxis] += 2;
      check("concat", {in, {d, other, {}}},
            [catAxis](OpBuilder &b, Location loc, ValueRange a) {
              return SmallVector<Value>{
                  mlir::fnc::ConcatOp::create(b, loc, a, catAxis)};
            },
            kExact);
      int64_t gAxis = std::uniform_int_distribution<int64_t>(0, rank - 1)(rng);
      check("gather",
            {{d, s, {}}, {DType::i32, randomShape(0, 2), {}, Values::Index,
                          s[gAxis]}},
            [gAxis](OpBuilder &b, Location loc, ValueRange a) {
              return SmallVector<Value>{
                  mlir::fnc::GatherOp::create(b, loc, a[0], a[1], gAxis)};
            },
            kExact);
      std::vector<int64_t> row(s.begin() + 1, s.end());
      check("set_row",
            {in, {DType::i64, {}, {}, Values::Index, s[0]}, {d, row, {}}},
            [](OpBuilder &b, Location loc, ValueRange a) {
              return SmallVector<Value>{mlir::fnc::SetRowOp::create(
                  b, loc, a[0].getType(), a[0], a[1], a[2])};
            },
            kExact);
    }
}

TEST_F(Differential, StridedSliceAndItsGradient) {
  // Random specs (integers, slices with negative and out-of-range bounds,
  // negative steps) with random dims dynamic: the bounds resolved at run
  // time by the JIT, from the known dims by the interpreter.
  std::bernoulli_distribution coin(0.5);
  for (DType d : {DType::f32, DType::i64, DType::i1})
    for (int t = 0; t < 8 * kTrials; ++t) {
      std::vector<int64_t> s = randomShape(1, 4);
      std::vector<bool> dynamic(s.size());
      for (size_t i = 0; i < s.size(); ++i)
        dynamic[i] = coin(rng);
      ::fnc::testing::NumpyIndex index =
          ::fnc::testing::randomIndex(rng, s, /*denseOnly=*/true);
      ::fnc::shapes::SliceSpec spec = ::fnc::testing::denseSpec(index);
      SmallVector<bool> shrink(spec.shrink.begin(), spec.shrink.end());
      std::string what = ::fnc::testing::toString(index);
      check(
          "strided_slice " + what, {{d, s, dynamic}},
          [&](OpBuilder &b, Location loc, ValueRange a) {
            return SmallVector<Value>{mlir::fnc::StridedSliceOp::create(
                b, loc, a[0], spec.begin, spec.end, spec.strides, shrink)};
          },
          kExact);
      // The gradient of a slice of that shape, its dims dynamic at random.
      ::fnc::shapes::ShapeResult sliced = ::fnc::shapes::stridedSlice(s, spec);
      ASSERT_TRUE(sliced.ok()) << sliced.error;
      std::vector<bool> gradDynamic(sliced.shape.size());
      for (size_t i = 0; i < sliced.shape.size(); ++i)
        gradDynamic[i] = coin(rng);
      check(
          "strided_slice_grad " + what,
          {{d, s, dynamic}, {d, sliced.shape, gradDynamic}},
          [&](OpBuilder &b, Location loc, ValueRange a) {
            return SmallVector<Value>{mlir::fnc::StridedSliceGradOp::create(
                b, loc, a[0], a[1], spec.begin, spec.end, spec.strides,
                shrink)};
          },
          kExact);
    }
}

TEST_F(Differential, OneHotRangeEyeFill) {
  for (int t = 0; t < kTrials; ++t) {
    std::vector<int64_t> s = randomShape(0, 2);
    int64_t depth = 4;
    int64_t axis = std::uniform_int_distribution<int64_t>(
        -(int64_t)s.size() - 1, s.size())(rng);
    check("one_hot", {{DType::i64, s, {}, Values::Index, depth + 1}},
          [=](OpBuilder &b, Location loc, ValueRange a) {
            auto in = cast<RankedTensorType>(a[0].getType());
            SmallVector<int64_t> out(in.getShape());
            int64_t at = axis < 0 ? axis + in.getRank() + 1 : axis;
            out.insert(out.begin() + at, depth);
            auto type = RankedTensorType::get(out, b.getF32Type());
            return SmallVector<Value>{mlir::fnc::OneHotOp::create(
                b, loc, type, a[0], b.getI64IntegerAttr(depth),
                b.getI64IntegerAttr(axis), b.getF64FloatAttr(2.5),
                b.getF64FloatAttr(-1.0))};
          },
          kExact);
  }
  check("creation", {},
        [](OpBuilder &b, Location loc, ValueRange) {
          auto range = mlir::fnc::RangeOp::create(
              b, loc, RankedTensorType::get({4}, b.getI32Type()),
              b.getF64FloatAttr(1), b.getF64FloatAttr(9),
              b.getF64FloatAttr(2));
          auto eye = mlir::fnc::EyeOp::create(
              b, loc, RankedTensorType::get({3, 4}, b.getF64Type()));
          return SmallVector<Value>{range, eye};
        },
        kExact);
}

} // namespace
