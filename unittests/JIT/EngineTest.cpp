//===- EngineTest.cpp - Tests of the JIT engine ---------------------------===//
//
// Compiles modules written in upstream tensor/linalg/arith form (the fnc
// lowering is tested elsewhere) and calls them through CompiledModule:
// results, signatures, argument checks, the runtime error path, ownership of
// returned buffers, the IR of each stage, OpenMP, and the measured compile
// time and per-call overhead.
//
//===----------------------------------------------------------------------===//

#include "fnc/JIT/Engine.h"
#include "fnc/Pipelines/Pipelines.h"
#include "fnc/Runtime/Runtime.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <numeric>
#include <thread>

using namespace fnc;
using namespace fnc::jit;

namespace {

const char *kAdd = R"mlir(
func.func @add(%a: tensor<?xf32>, %b: tensor<?xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %a, %c0 : tensor<?xf32>
  %e = tensor.empty(%n) : tensor<?xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>,
                                        affine_map<(d0) -> (d0)>,
                                        affine_map<(d0) -> (d0)>],
                       iterator_types = ["parallel"]}
      ins(%a, %b : tensor<?xf32>, tensor<?xf32>) outs(%e : tensor<?xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<?xf32>
  return %r : tensor<?xf32>
}
)mlir";

const char *kSum = R"mlir(
func.func @sum(%a: tensor<2x?xf64>) -> tensor<f64> {
  %zero = arith.constant 0.0 : f64
  %e = tensor.empty() : tensor<f64>
  %init = linalg.fill ins(%zero : f64) outs(%e : tensor<f64>) -> tensor<f64>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
                                        affine_map<(d0, d1) -> ()>],
                       iterator_types = ["reduction", "reduction"]}
      ins(%a : tensor<2x?xf64>) outs(%init : tensor<f64>) {
  ^bb0(%x: f64, %acc: f64):
    %s = arith.addf %x, %acc : f64
    linalg.yield %s : f64
  } -> tensor<f64>
  return %r : tensor<f64>
}
)mlir";

const char *kTwoResults = R"mlir(
func.func @both(%a: tensor<3xi32>) -> (tensor<3xi32>, tensor<3xi1>) {
  %e = tensor.empty() : tensor<3xi32>
  %b = tensor.empty() : tensor<3xi1>
  %r:2 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>,
                                          affine_map<(d0) -> (d0)>,
                                          affine_map<(d0) -> (d0)>],
                         iterator_types = ["parallel"]}
      ins(%a : tensor<3xi32>) outs(%e, %b : tensor<3xi32>, tensor<3xi1>) {
  ^bb0(%x: i32, %o: i32, %p: i1):
    %sq = arith.muli %x, %x : i32
    %c2 = arith.constant 2 : i32
    %gt = arith.cmpi sgt, %x, %c2 : i32
    linalg.yield %sq, %gt : i32, i1
  } -> (tensor<3xi32>, tensor<3xi1>)
  return %r#0, %r#1 : tensor<3xi32>, tensor<3xi1>
}
)mlir";

const char *kOwnership = R"mlir(
func.func @id(%a: tensor<?xf32>) -> tensor<?xf32> {
  return %a : tensor<?xf32>
}
func.func @constant() -> tensor<2xf32> {
  %c = arith.constant dense<[1.5, 2.5]> : tensor<2xf32>
  return %c : tensor<2xf32>
}
func.func @twice(%a: tensor<?xf32>) -> (tensor<?xf32>, tensor<?xf32>) {
  return %a, %a : tensor<?xf32>, tensor<?xf32>
}
)mlir";

const char *kRaise = R"mlir(
func.func @fails(%a: tensor<5xf32>, %i: tensor<1xi32>) -> tensor<1xf32> {
  %r = fnc.gather %a, %i axis 0 : tensor<5xf32>, tensor<1xi32>
  return %r : tensor<1xf32>
}
func.func @noop(%a: tensor<4xf32>) {
  return
}
)mlir";

const char *kVariable = R"mlir(
fnc.global_variable @w = dense<[1.0, 2.0]> : tensor<2xf32>
func.func @step(%v: !fnc.variable<tensor<2xf32>> {fnc.bind = @w},
                %x: tensor<2xf32>) -> tensor<2xf32> {
  %old = fnc.var_read %v : !fnc.variable<tensor<2xf32>>
  fnc.var_assign_add %v, %x : !fnc.variable<tensor<2xf32>>
  return %old : tensor<2xf32>
}
)mlir";

class EngineTest : public ::testing::Test {
protected:
  EngineTest() {
    mlir::DialectRegistry registry;
    mlir::fnc::registerPipelineDialects(registry);
    context.appendDialectRegistry(registry);
  }

  mlir::OwningOpRef<mlir::ModuleOp> parse(const char *source) {
    auto module = mlir::parseSourceString<mlir::ModuleOp>(source, &context);
    EXPECT_TRUE(module) << "cannot parse the test module";
    return module;
  }

  /// Compiles `source`; fails the test on error.
  std::unique_ptr<CompiledModule>
  compile(const char *source, unsigned threads = 1, bool keepIR = false) {
    auto module = parse(source);
    if (!module)
      return nullptr;
    mlir::fnc::PipelineOptions options;
    options.threads = threads;
    auto compiled = CompiledModule::compile(*module, options, keepIR);
    if (!compiled) {
      ADD_FAILURE() << llvm::toString(compiled.takeError());
      return nullptr;
    }
    return std::move(*compiled);
  }

  const Entry *entry(const CompiledModule &m, llvm::StringRef name) {
    auto e = m.lookup(name);
    if (!e) {
      ADD_FAILURE() << llvm::toString(e.takeError());
      return nullptr;
    }
    return *e;
  }

  template <typename T> static std::vector<T> values(const Buffer &b) {
    const T *p = static_cast<const T *>(b.data());
    return std::vector<T>(p, p + b.numElements());
  }

  static std::string errorOf(llvm::Error err) {
    return err ? llvm::toString(std::move(err)) : std::string("<success>");
  }

  mlir::MLIRContext context;
};

TEST_F(EngineTest, AddsDynamicTensors) {
  auto m = compile(kAdd);
  ASSERT_TRUE(m);
  const Entry *add = entry(*m, "add");
  ASSERT_TRUE(add);
  EXPECT_EQ(add->signature().str(),
            "@add(tensor<?xf32>, tensor<?xf32>) -> (tensor<?xf32>)");
  std::vector<float> a = {1, 2, 3}, b = {10, 20, 30};
  std::vector<int64_t> shape = {3};
  auto results =
      add->call({{DType::f32, shape, a.data()}, {DType::f32, shape, b.data()}});
  ASSERT_TRUE(bool(results)) << llvm::toString(results.takeError());
  ASSERT_EQ(results->size(), 1u);
  EXPECT_EQ((*results)[0].dtype(), DType::f32);
  EXPECT_EQ((*results)[0].shape().vec(), shape);
  EXPECT_EQ(values<float>((*results)[0]), (std::vector<float>{11, 22, 33}));

  // Another size through the same compiled function.
  std::vector<float> c(1000, 1.5f);
  std::vector<int64_t> big = {1000};
  auto more =
      add->call({{DType::f32, big, c.data()}, {DType::f32, big, c.data()}});
  ASSERT_TRUE(bool(more)) << llvm::toString(more.takeError());
  EXPECT_EQ(values<float>((*more)[0]), std::vector<float>(1000, 3.f));
}

TEST_F(EngineTest, StridedInputIsCopied) {
  auto m = compile(kAdd);
  ASSERT_TRUE(m);
  const Entry *add = entry(*m, "add");
  ASSERT_TRUE(add);
  std::vector<float> a = {1, -1, 2, -1, 3, -1}, b = {10, 20, 30};
  std::vector<int64_t> shape = {3}, stride2 = {2};
  auto results = add->call(
      {{DType::f32, shape, a.data(), stride2}, {DType::f32, shape, b.data()}});
  ASSERT_TRUE(bool(results)) << llvm::toString(results.takeError());
  EXPECT_EQ(values<float>((*results)[0]), (std::vector<float>{11, 22, 33}));
}

TEST_F(EngineTest, Reduction) {
  auto m = compile(kSum);
  ASSERT_TRUE(m);
  const Entry *sum = entry(*m, "sum");
  ASSERT_TRUE(sum);
  std::vector<double> a = {1, 2, 3, 4, 5, 6};
  std::vector<int64_t> shape = {2, 3};
  auto results = sum->call({{DType::f64, shape, a.data()}});
  ASSERT_TRUE(bool(results)) << llvm::toString(results.takeError());
  ASSERT_EQ(results->size(), 1u);
  EXPECT_TRUE((*results)[0].shape().empty());
  EXPECT_EQ(values<double>((*results)[0]), std::vector<double>{21});
}

TEST_F(EngineTest, MultipleResults) {
  auto m = compile(kTwoResults);
  ASSERT_TRUE(m);
  const Entry *both = entry(*m, "both");
  ASSERT_TRUE(both);
  std::vector<int32_t> a = {1, 3, -4};
  std::vector<int64_t> shape = {3};
  std::vector<Buffer> results;
  ASSERT_EQ(errorOf(both->call({{DType::i32, shape, a.data()}}, results)),
            "<success>");
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(values<int32_t>(results[0]), (std::vector<int32_t>{1, 9, 16}));
  EXPECT_EQ(results[1].dtype(), DType::i1);
  EXPECT_EQ(values<uint8_t>(results[1]), (std::vector<uint8_t>{0, 1, 0}));
}

TEST_F(EngineTest, LargeModulesCompileInPartsThatCallEachOther) {
  // 60 entry functions, each calling a private helper; a large module is
  // compiled in parts (one per core) on threads of their own, and calls
  // between the parts and OpenMP's outlined regions (2^17 elements are
  // above the parallel grain) still link.
  std::string text;
  for (int i = 0; i < 60; ++i) {
    std::string n = std::to_string(i);
    text += "func.func private @helper" + n +
            R"mlir((%a: tensor<?xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %a, %c0 : tensor<?xf32>
  %e = tensor.empty(%n) : tensor<?xf32>
  %k = arith.constant )mlir" +
            n + R"mlir(.0 : f32
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>,
                                        affine_map<(d0) -> (d0)>],
                       iterator_types = ["parallel"]}
      ins(%a : tensor<?xf32>) outs(%e : tensor<?xf32>) {
  ^bb0(%x: f32, %o: f32):
    %s = arith.addf %x, %k : f32
    linalg.yield %s : f32
  } -> tensor<?xf32>
  return %r : tensor<?xf32>
}
func.func @f)mlir" + n +
            R"mlir((%a: tensor<?xf32>) -> tensor<?xf32> {
  %r = func.call @helper)mlir" +
            n + R"mlir((%a) : (tensor<?xf32>) -> tensor<?xf32>
  return %r : tensor<?xf32>
}
)mlir";
  }
  auto m = compile(text.c_str(), /*threads=*/2);
  ASSERT_TRUE(m);
  if (std::thread::hardware_concurrency() > 1)
    EXPECT_GT(m->objectCount(), 1u);
  std::vector<float> a(1 << 17, 1.0f);
  std::vector<int64_t> shape = {1 << 17};
  for (int i = 0; i < 60; i += 7) {
    const Entry *f = entry(*m, "f" + std::to_string(i));
    ASSERT_TRUE(f);
    auto results = f->call({{DType::f32, shape, a.data()}});
    ASSERT_TRUE(bool(results)) << llvm::toString(results.takeError());
    std::vector<float> got = values<float>((*results)[0]);
    ASSERT_EQ(got.size(), a.size());
    EXPECT_EQ(got.front(), 1.0f + i);
    EXPECT_EQ(got.back(), 1.0f + i);
  }
}

TEST_F(EngineTest, GlueAndKernelsCompileApart) {
  // 40 functions whose while loop calls two loop nests an iteration (a
  // reduction and an elementwise update, outlined into functions of their
  // own): each function is glue, compiled apart from the kernels with
  // LLVM's fast code generation, and calls them across the parts. Every
  // element of x is c, so after n iterations x = c * 0.5^n + k * (2 - 2 *
  // 0.5^(n - 1)) and s = 256 * x_(n-1) (s = 0 when n = 0).
  std::string text;
  for (int i = 0; i < 40; ++i) {
    std::string k = std::to_string(i) + ".0";
    text += "func.func @g" + std::to_string(i) +
            R"mlir((%x0: tensor<16x16xf32>, %n: tensor<i64>)
    -> (tensor<16x16xf32>, tensor<f32>) {
  %zero = fnc.constant dense<0> : tensor<i64>
  %one = fnc.constant dense<1> : tensor<i64>
  %half = fnc.constant dense<0.5> : tensor<f32>
  %k = fnc.constant dense<)mlir" +
            k + R"mlir(> : tensor<f32>
  %s0 = fnc.constant dense<0.0> : tensor<f32>
  %r:3 = fnc.while (%zero, %x0, %s0) : tensor<i64>, tensor<16x16xf32>, tensor<f32> cond {
  ^bb0(%i: tensor<i64>, %x: tensor<16x16xf32>, %s: tensor<f32>):
    %c = fnc.compare lt, %i, %n : tensor<i64>, tensor<i64>
    fnc.condition %c, %i, %x, %s : tensor<i1>, tensor<i64>, tensor<16x16xf32>, tensor<f32>
  } do {
  ^bb0(%i: tensor<i64>, %x: tensor<16x16xf32>, %s: tensor<f32>):
    %next = fnc.add %i, %one : tensor<i64>, tensor<i64>
    %sum = fnc.sum %x axes [] : tensor<16x16xf32>
    %h = fnc.mul %x, %half : tensor<16x16xf32>, tensor<f32>
    %y = fnc.add %h, %k : tensor<16x16xf32>, tensor<f32>
    fnc.yield %next, %y, %sum : tensor<i64>, tensor<16x16xf32>, tensor<f32>
  }
  return %r#1, %r#2 : tensor<16x16xf32>, tensor<f32>
}
)mlir";
  }
  auto m = compile(text.c_str(), /*threads=*/2);
  ASSERT_TRUE(m);
  if (std::thread::hardware_concurrency() > 1)
    EXPECT_GT(m->objectCount(), 2u);
  std::vector<float> x(256, 3.0f);
  for (int i = 0; i < 40; i += 13)
    for (int64_t n : {0, 1, 5}) {
      const Entry *f = entry(*m, "g" + std::to_string(i));
      ASSERT_TRUE(f);
      auto results =
          f->call({{DType::f32, {16, 16}, x.data()}, {DType::i64, {}, &n}});
      ASSERT_TRUE(bool(results)) << llvm::toString(results.takeError());
      double v = 3.0, before = 0.0;
      for (int64_t t = 0; t < n; ++t) {
        before = v;
        v = v * 0.5 + i;
      }
      std::vector<float> got = values<float>((*results)[0]);
      EXPECT_NEAR(got.front(), v, 1e-5 * (1 + v)) << "g" << i << " n=" << n;
      EXPECT_NEAR(got.back(), v, 1e-5 * (1 + v));
      EXPECT_NEAR(values<float>((*results)[1])[0], n ? 256 * before : 0.0,
                  1e-4 * (1 + 256 * before));
    }
}

TEST_F(EngineTest, ChecksArgumentsBeforeTheCall) {
  auto m = compile(kAdd);
  ASSERT_TRUE(m);
  const Entry *add = entry(*m, "add");
  ASSERT_TRUE(add);
  std::vector<float> a = {1, 2, 3};
  std::vector<double> d = {1, 2, 3};
  std::vector<int64_t> v3 = {3}, m13 = {1, 3};
  std::vector<Buffer> results;
  EXPECT_EQ(errorOf(add->call({{DType::f32, v3, a.data()}}, results)),
            "@add takes 2 arguments but 1 were given; signature: "
            "@add(tensor<?xf32>, tensor<?xf32>) -> (tensor<?xf32>)");
  EXPECT_EQ(
      errorOf(add->call(
          {{DType::f32, v3, a.data()}, {DType::f64, v3, d.data()}}, results)),
      "argument #1 of @add: expected tensor<?xf32>, got tensor<3xf64>");
  EXPECT_EQ(
      errorOf(add->call(
          {{DType::f32, m13, a.data()}, {DType::f32, v3, a.data()}}, results)),
      "argument #0 of @add: expected tensor<?xf32>, got tensor<1x3xf32>");

  auto s = compile(kSum);
  ASSERT_TRUE(s);
  std::vector<int64_t> m33 = {3, 1};
  EXPECT_EQ(
      errorOf(entry(*s, "sum")->call({{DType::f64, m33, d.data()}}, results)),
      "argument #0 of @sum: expected tensor<2x?xf64>, got tensor<3x1xf64>");
}

TEST_F(EngineTest, LookupErrors) {
  auto m = compile(kAdd);
  ASSERT_TRUE(m);
  auto missing = m->lookup("nope");
  ASSERT_FALSE(bool(missing));
  EXPECT_EQ(llvm::toString(missing.takeError()),
            "no public function @nope in the module; it has @add");

  auto u = compile(R"mlir(
    func.func @idx(%i: index) -> index { return %i : index }
  )mlir");
  ASSERT_TRUE(u);
  auto idx = u->lookup("idx");
  ASSERT_FALSE(bool(idx));
  EXPECT_EQ(llvm::toString(idx.takeError()),
            "cannot call @idx: argument #0 of @idx has type index; entry "
            "functions take ranked tensors of f32, f64, i1, i32 or i64, or "
            "!fnc.variable of those");
}

TEST_F(EngineTest, RuntimeErrorBecomesAnError) {
  auto m = compile(kRaise);
  ASSERT_TRUE(m);
  const Entry *fails = entry(*m, "fails");
  ASSERT_TRUE(fails);
  std::vector<float> a = {1, 2, 3, 4, 5};
  std::vector<int32_t> index = {7};
  std::vector<int64_t> shape = {5}, one = {1};
  std::vector<Buffer> results;
  EXPECT_EQ(errorOf(fails->call({{DType::f32, shape, a.data()},
                                 {DType::i32, one, index.data()}},
                                results)),
            "@fails: gather index 7 is out of range [0, 5); valid indices are "
            "0 to 4");
  EXPECT_TRUE(results.empty());
  // The error was the call's own: an unrelated call succeeds.
  std::vector<float> four(4);
  std::vector<int64_t> s4 = {4};
  EXPECT_EQ(
      errorOf(
          entry(*m, "noop")->call({{DType::f32, s4, four.data()}}, results)),
      "<success>");
}

// Run-time errors travel with the call: two threads call one function, one
// always with an index out of range, the other always valid; each gets
// exactly its own error or result, every time.
TEST_F(EngineTest, ConcurrentCallsKeepTheirOwnErrors) {
  auto m = compile(kRaise);
  ASSERT_TRUE(m);
  const Entry *gather = entry(*m, "fails");
  ASSERT_TRUE(gather);
  std::vector<float> a = {1, 2, 3, 4, 5};
  std::vector<int64_t> shape = {5}, one = {1};
  std::atomic<int> wrong{0};
  auto run = [&](int32_t index) {
    std::vector<int32_t> i = {index};
    std::vector<Buffer> results;
    for (int n = 0; n < 5000; ++n) {
      llvm::Error err = gather->call(
          {{DType::f32, shape, a.data()}, {DType::i32, one, i.data()}},
          results);
      std::string got = llvm::toString(std::move(err));
      if (index < 5) {
        if (!got.empty() || results.size() != 1 ||
            static_cast<float *>(results[0].data())[0] != a[index])
          ++wrong;
      } else if (got != "@fails: gather index 7 is out of range [0, 5); valid "
                        "indices are 0 to 4" ||
                 !results.empty()) {
        ++wrong;
      }
    }
  };
  std::thread bad(run, 7), good(run, 3);
  bad.join();
  good.join();
  EXPECT_EQ(wrong.load(), 0);
}

// The deallocation pipeline must hand every returned buffer to the caller:
// an argument returned unchanged and a constant come back as fresh copies,
// and a value returned twice as two buffers.
TEST_F(EngineTest, ReturnedBuffersAreOwned) {
  auto m = compile(kOwnership);
  ASSERT_TRUE(m);
  std::vector<float> a = {4, 5, 6};
  std::vector<int64_t> shape = {3};
  auto id = entry(*m, "id")->call({{DType::f32, shape, a.data()}});
  ASSERT_TRUE(bool(id)) << llvm::toString(id.takeError());
  EXPECT_NE((*id)[0].data(), static_cast<void *>(a.data()));
  EXPECT_EQ(values<float>((*id)[0]), a);

  auto c = entry(*m, "constant")->call({});
  ASSERT_TRUE(bool(c)) << llvm::toString(c.takeError());
  EXPECT_EQ(values<float>((*c)[0]), (std::vector<float>{1.5f, 2.5f}));

  auto twice = entry(*m, "twice")->call({{DType::f32, shape, a.data()}});
  ASSERT_TRUE(bool(twice)) << llvm::toString(twice.takeError());
  EXPECT_NE((*twice)[0].data(), (*twice)[1].data());
  EXPECT_EQ(values<float>((*twice)[1]), a);
}

TEST_F(EngineTest, VariableUpdatedInPlace) {
  auto m = compile(kVariable);
  ASSERT_TRUE(m);
  ASSERT_EQ(m->globals().size(), 1u);
  const GlobalVariable &w = m->globals()[0];
  EXPECT_EQ(w.name, "w");
  EXPECT_EQ(w.type.str(), "tensor<2xf32>");
  std::vector<float> var(2);
  std::memcpy(var.data(), w.initialValue.data(), 8);
  EXPECT_EQ(var, (std::vector<float>{1, 2}));
  const Entry *step = entry(*m, "step");
  ASSERT_TRUE(step);
  EXPECT_EQ(step->signature().args[0].kind, ArgKind::Variable);
  EXPECT_EQ(step->signature().args[0].boundTo, "w");
  std::vector<float> x = {10, 20};
  std::vector<int64_t> shape = {2};
  for (int i = 0; i < 2; ++i) {
    auto r = step->call(
        {{DType::f32, shape, var.data()}, {DType::f32, shape, x.data()}});
    ASSERT_TRUE(bool(r)) << llvm::toString(r.takeError());
    // The result is the value before the update.
    EXPECT_EQ(values<float>((*r)[0]),
              (std::vector<float>{1.f + 10 * i, 2.f + 20 * i}));
  }
  EXPECT_EQ(var, (std::vector<float>{21, 42}));

  // A variable's buffer must be row-major: it is updated in place.
  std::vector<float> wide(4);
  std::vector<int64_t> stride2 = {2};
  std::vector<Buffer> results;
  EXPECT_EQ(errorOf(step->call({{DType::f32, shape, wide.data(), stride2},
                                {DType::f32, shape, x.data()}},
                               results)),
            "argument #0 of @step: a variable's buffer must be row-major (it "
            "is updated in place)");
}

TEST_F(EngineTest, KeepsTheIROfEachStage) {
  auto m = compile(kAdd, /*threads=*/1, /*keepIR=*/true);
  ASSERT_TRUE(m);
  EXPECT_NE(m->ir(Stage::Fnc).find("func.func @add"), std::string::npos);
  EXPECT_NE(m->ir(Stage::Linalg).find("linalg.generic"), std::string::npos);
  EXPECT_NE(m->ir(Stage::LLVMDialect).find("llvm.func @add"),
            std::string::npos);
  EXPECT_NE(m->ir(Stage::LLVMIR).find("define"), std::string::npos);

  auto module = parse(kAdd);
  mlir::fnc::PipelineOptions options;
  auto ir = emitStage(*module, options, Stage::LLVMIR);
  ASSERT_TRUE(bool(ir)) << llvm::toString(ir.takeError());
  EXPECT_NE(ir->find("define"), std::string::npos);
  auto linalg = emitStage(*module, options, Stage::Linalg);
  ASSERT_TRUE(bool(linalg)) << llvm::toString(linalg.takeError());
  EXPECT_EQ(linalg->find("llvm.func"), std::string::npos);
}

TEST_F(EngineTest, OpenMPParallelLoop) {
  auto m = compile(kAdd, /*threads=*/0);
  ASSERT_TRUE(m);
  const Entry *add = entry(*m, "add");
  ASSERT_TRUE(add);
  const int64_t n = 1 << 20;
  std::vector<float> a(n), b(n);
  std::iota(a.begin(), a.end(), 0.f);
  std::fill(b.begin(), b.end(), 1.f);
  std::vector<int64_t> shape = {n};
  auto r =
      add->call({{DType::f32, shape, a.data()}, {DType::f32, shape, b.data()}});
  ASSERT_TRUE(bool(r)) << llvm::toString(r.takeError());
  const float *out = static_cast<const float *>((*r)[0].data());
  for (int64_t i = 0; i < n; i += 4099)
    ASSERT_EQ(out[i], static_cast<float>(i) + 1.f);
}

// Measurements (printed, not asserted: the machine may be busy).
TEST_F(EngineTest, MeasureCompileTimeAndCallOverhead) {
  auto m = compile(kAdd);
  ASSERT_TRUE(m);
  auto r = compile(kRaise);
  ASSERT_TRUE(r);
  const Entry *noop = entry(*r, "noop");
  const Entry *add = entry(*m, "add");
  ASSERT_TRUE(noop && add);
  std::vector<float> a(4, 1.f);
  std::vector<int64_t> shape = {4};
  std::vector<BufferView> one = {{DType::f32, shape, a.data()}};
  std::vector<BufferView> two = {{DType::f32, shape, a.data()},
                                 {DType::f32, shape, a.data()}};
  std::vector<Buffer> results;
  results.reserve(2);
  auto time = [&](const Entry *e, llvm::ArrayRef<BufferView> args) {
    const int n = 200000;
    auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < n; ++i)
      if (llvm::Error err = e->call(args, results)) {
        ADD_FAILURE() << llvm::toString(std::move(err));
        return 0.0;
      }
    return std::chrono::duration<double, std::nano>(
               std::chrono::steady_clock::now() - start)
               .count() /
           n;
  };
  double noopNs = time(noop, one);
  double addNs = time(add, two);
  std::cout << "[ measure ] compile @add: " << m->compileSeconds() * 1e3
            << " ms (second module: " << r->compileSeconds() * 1e3 << " ms)\n"
            << "[ measure ] call overhead, no result: " << noopNs << " ns\n"
            << "[ measure ] call of a 4-element add (malloc'ed result): "
            << addNs << " ns\n";
  RecordProperty("compile_ms", std::to_string(m->compileSeconds() * 1e3));
  RecordProperty("noop_call_ns", std::to_string(noopNs));
  RecordProperty("add4_call_ns", std::to_string(addNs));
}

} // namespace
