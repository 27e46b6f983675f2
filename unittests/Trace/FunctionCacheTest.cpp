//===- FunctionCacheTest.cpp - fnc::function and the compile cache --------===//
//
// FunctionOptions::cache_dir: a second fnc::function of the same callable
// (as in a fresh process) loads the code the first one stored and returns
// the same values; an empty cache_dir disables the cache. A trace's entry
// is keyed by its log and found without building its IR: random programs
// (straight-line, with unknown dims, with control flow and variables) give
// the same IR text and values from the cache as compiled; traces that
// differ in one attribute or constant never share an entry; an entry whose
// notes are spoiled is compiled again.
//
//===----------------------------------------------------------------------===//

#include "RandomPrograms.h"

#include "fnc/JIT/CompileCache.h"
#include "fnc/fnc.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <random>
#include <string>
#include <utility>
#include <vector>

using namespace fnc;
using namespace fnc::testing;
namespace fs = llvm::sys::fs;

namespace {

Tensor seed(const Tensor &x, const Tensor &y) {
  return reduce_mean(pow(x, 2.f) * 3.f + y);
}

size_t entriesIn(const std::string &dir) {
  size_t n = 0;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; it != end && !ec;
       it.increment(ec))
    n += llvm::StringRef(it->path()).ends_with(
        jit::CompileCache::kEntrySuffix);
  return n;
}

TEST(FunctionCacheTest, ASecondFunctionLoadsTheCodeOfTheFirst) {
  llvm::SmallString<128> path;
  ASSERT_FALSE(fs::createUniqueDirectory("fnc-function-cache", path));
  std::string dir(path);
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> value(-3, 3);
  std::vector<float> xs(37), ys(37);
  double reference = 0;
  for (size_t i = 0; i < xs.size(); ++i) {
    xs[i] = value(rng);
    ys[i] = value(rng);
    reference += 3.0 * xs[i] * xs[i] + ys[i];
  }
  reference /= xs.size();
  Tensor x = Tensor::from_blob(xs.data(), {37});
  Tensor y = Tensor::from_blob(ys.data(), {37});

  FunctionOptions options;
  options.cache_dir = dir;
  options.jit_compile = true; // stored before the next trace looks
  auto f = function(seed, options);
  float first = f(x, y).item<float>();
  EXPECT_NEAR(first, reference, 1e-4 * (1 + std::fabs(reference)));
  jit::CompileCache *cache = jit::CompileCache::get(dir);
  ASSERT_TRUE(cache);
  EXPECT_EQ(cache->stats().stores, 1u);
  EXPECT_EQ(cache->stats().hits, 0u);
  EXPECT_EQ(entriesIn(dir), 1u);

  // Another function of the same callable traces the same module: its code
  // comes from the cache, and so do the same values.
  auto g = function(seed, options);
  EXPECT_EQ(g(x, y).item<float>(), first);
  EXPECT_EQ(g.tracing_count(), 1);
  EXPECT_EQ(cache->stats().hits, 1u);
  EXPECT_EQ(cache->stats().stores, 1u);

  // Another signature is another entry.
  Tensor x2 = Tensor::from_blob(xs.data(), {2, 2});
  Tensor y2 = Tensor::from_blob(ys.data(), {2, 2});
  g(x2, y2);
  EXPECT_EQ(entriesIn(dir), 2u);

  // Disabled: neither looked up nor stored.
  FunctionOptions off;
  off.cache_dir = std::string();
  auto h = function(seed, off);
  EXPECT_EQ(h(x, y).item<float>(), first);
  EXPECT_EQ(cache->stats().hits, 1u);
  EXPECT_EQ(cache->stats().stores, 2u);
  (void)fs::remove_directories(dir);
}

/// A fresh directory, removed at the end of the test.
struct TempDir {
  std::string path;
  TempDir() {
    llvm::SmallString<128> p;
    EXPECT_FALSE(fs::createUniqueDirectory("fnc-trace-cache", p));
    path = std::string(p);
  }
  ~TempDir() { (void)fs::remove_directories(path); }
};

void expectSame(const Tensor &got, const Tensor &want,
                const std::string &what) {
  ASSERT_EQ(got.shape(), want.shape()) << what;
  ASSERT_EQ(got.dtype(), want.dtype()) << what;
  EXPECT_EQ(cast(got, DType::f64).to_vector<double>(),
            cast(want, DType::f64).to_vector<double>())
      << what;
}

void expectNear(const Tensor &got, const Tensor &want, double tol,
                const std::string &what) {
  ASSERT_EQ(got.shape(), want.shape()) << what;
  std::vector<double> g = cast(got, DType::f64).to_vector<double>(),
                      w = cast(want, DType::f64).to_vector<double>();
  for (size_t i = 0; i < w.size(); ++i)
    EXPECT_NEAR(g[i], w[i], tol * (1 + std::abs(w[i])))
        << what << ", element " << i;
}

TEST(FunctionCacheTest, RandomProgramsFromTheCacheMatchTheCompiledOnes) {
  TempDir dir;
  jit::CompileCache *cache = jit::CompileCache::get(dir.path);
  ASSERT_TRUE(cache);
  FunctionOptions options;
  options.cache_dir = dir.path;
  options.jit_compile = true; // stored before the next trace looks
  std::mt19937 rng(2024);
  int checked = 0;
  for (int trial = 0; trial < 16; ++trial) {
    Program p = randomProgram(rng);
    std::vector<Tensor> in;
    for (const Shape &s : p.inputShapes)
      in.push_back(randomTensor(rng, p.dtype, s));
    Tensor eager;
    try {
      eager = run(p, in);
    } catch (const Error &) {
      continue;
    }
    auto body = [&p](std::vector<Tensor> xs) { return run(p, xs); };
    auto compiled = fnc::function(body, options);
    Tensor first = compiled(in);
    uint64_t hits = cache->stats().hits;
    // A new function traces the same log: its code and IR text come from
    // the entry the first one stored.
    auto loaded = fnc::function(body, options);
    Tensor again = loaded(in);
    EXPECT_EQ(cache->stats().hits, hits + 1) << "trial " << trial;
    std::string what = "trial " + std::to_string(trial);
    expectSame(again, first, what);
    expectNear(again, eager, p.dtype == DType::f32 ? 1e-4 : 1e-9, what);
    EXPECT_EQ(loaded.concrete_functions()[0].ir(IRStage::Fnc),
              compiled.concrete_functions()[0].ir(IRStage::Fnc))
        << what;
    ++checked;
  }
  EXPECT_GE(checked, 10);
}

// Every dim unknown: whether unknown dims meet comes from the entry's
// notes, and decides whether a call with a size-1 dim needs its own trace.
TEST(FunctionCacheTest, UnknownDimsMeetTheSameWayFromTheCache) {
  TempDir dir;
  jit::CompileCache *cache = jit::CompileCache::get(dir.path);
  std::mt19937 rng(77);
  int checked = 0;
  for (int trial = 0; trial < 12; ++trial) {
    Program p = randomProgram(rng);
    while (p.inputShapes.size() < 3)
      p.inputShapes.push_back(p.inputShapes.back());
    FunctionOptions options;
    options.cache_dir = dir.path;
    options.jit_compile = true; // stored before the next trace looks
    std::vector<TensorSpec> sig;
    for (const Shape &s : p.inputShapes)
      sig.emplace_back(Shape(s.size(), kUnknownDim), p.dtype);
    options.input_signature = sig;
    auto body = [&p](Tensor a, Tensor b, Tensor c) {
      return run(p, {a, b, c});
    };
    auto compiled = fnc::function(body, options);
    auto loaded = fnc::function(body, options);
    for (int call = 0; call < 3; ++call) {
      std::vector<Tensor> in = randomCallInputs(rng, p);
      Tensor eager;
      try {
        eager = run(p, in);
      } catch (const Error &) {
        continue;
      }
      uint64_t hits = cache->stats().hits;
      int loadedTraces = loaded.tracing_count();
      Tensor first = compiled(in[0], in[1], in[2]);
      Tensor again = loaded(in[0], in[1], in[2]);
      std::string what =
          "trial " + std::to_string(trial) + " call " + std::to_string(call);
      expectSame(again, first, what);
      expectNear(again, eager, p.dtype == DType::f32 ? 1e-4 : 1e-9, what);
      EXPECT_EQ(loaded.tracing_count(), compiled.tracing_count()) << what;
      // Every trace the second function needed came from the cache.
      EXPECT_EQ(cache->stats().hits - hits,
                static_cast<uint64_t>(loaded.tracing_count() - loadedTraces))
          << what;
      ++checked;
    }
  }
  EXPECT_GE(checked, 20);
  EXPECT_GT(cache->stats().hits, 0u);
}

TEST(FunctionCacheTest, ControlFlowAndVariablesFromTheCache) {
  TempDir dir;
  jit::CompileCache *cache = jit::CompileCache::get(dir.path);
  FunctionOptions options;
  options.cache_dir = dir.path;
  options.jit_compile = true; // stored before the next trace looks
  std::mt19937 rng(5);
  for (int trial = 0; trial < 12; ++trial) {
    StateProgram p = randomStateProgram(rng);
    Tensor x0 = randomTensor(rng, DType::f32, p.shape);
    Tensor v0 = randomTensor(rng, DType::f32, p.shape);
    Variable eagerVar(v0), compiledVar(v0), loadedVar(v0);
    auto compiled = fnc::function(
        [&](Tensor x, Tensor n) { return runState(p, compiledVar, x, n); },
        options);
    auto loaded = fnc::function(
        [&](Tensor x, Tensor n) { return runState(p, loadedVar, x, n); },
        options);
    for (int call = 0; call < 2; ++call) {
      Tensor n(call * 3 + 1);
      std::string what =
          "trial " + std::to_string(trial) + " call " + std::to_string(call);
      Tensor want = runState(p, eagerVar, x0, n);
      Tensor first = compiled(x0, n);
      uint64_t hits = cache->stats().hits;
      Tensor again = loaded(x0, n);
      if (call == 0)
        EXPECT_EQ(cache->stats().hits, hits + 1) << what;
      expectSame(again, first, what);
      expectNear(again, want, 1e-4, what);
      expectSame(loadedVar.read_value(), compiledVar.read_value(), what);
      expectNear(loadedVar.read_value(), eagerVar.read_value(), 1e-4, what);
    }
  }
}

// Traces that differ in one attribute, constant or option only: each has
// an entry of its own and its own values.
TEST(FunctionCacheTest, TracesThatDifferInOneDetailNeverShareAnEntry) {
  TempDir dir;
  FunctionOptions options;
  options.cache_dir = dir.path;
  options.jit_compile = true; // stored before the next trace looks
  Tensor x = Tensor(std::vector<float>{1, -2, 3, 4, 5, -6}, {2, 3});
  using Fn = std::function<Tensor(Tensor)>;
  std::vector<std::pair<std::string, Fn>> variants = {
      {"add 1", [](Tensor a) { return a + 1.f; }},
      {"add 2", [](Tensor a) { return a + 2.f; }},
      {"sum axis 0", [](Tensor a) { return reduce_sum(a, {0}); }},
      {"sum axis 1", [](Tensor a) { return reduce_sum(a, {1}); }},
      {"sum keepdims",
       [](Tensor a) { return reduce_sum(a, {1}, /*keepdims=*/true); }},
      {"transpose",
       [](Tensor a) {
         return transpose(a, {1, 0});
       }},
      {"pad 0",
       [](Tensor a) {
         return pad(a, {{1, 0}, {0, 1}});
       }},
      {"pad 1",
       [](Tensor a) {
         return pad(a, {{0, 1}, {1, 0}});
       }},
      {"pad value",
       [](Tensor a) {
         return pad(a, {{1, 0}, {0, 1}}, 7.0);
       }},
      {"max", [](Tensor a) { return reduce_max(a, {1}); }},
      {"min", [](Tensor a) { return reduce_min(a, {1}); }},
      {"cast i32", [](Tensor a) { return cast(a, DType::i32); }},
      {"cast f64", [](Tensor a) { return cast(a, DType::f64); }},
      {"slice",
       [](Tensor a) {
         return slice(a, {0, 1}, {2, 2});
       }},
      {"slice 2",
       [](Tensor a) {
         return slice(a, {0, 0}, {2, 2});
       }},
  };
  std::vector<Tensor> eager;
  for (auto &[name, fn] : variants)
    eager.push_back(fn(x));
  // Twice: compiled and stored, then each from its own entry.
  for (int pass = 0; pass < 2; ++pass)
    for (size_t i = 0; i < variants.size(); ++i) {
      auto staged = fnc::function(variants[i].second, options);
      expectSame(staged(x), eager[i],
                 variants[i].first + ", pass " + std::to_string(pass));
    }
  EXPECT_EQ(entriesIn(dir.path), variants.size());
  // fast_math is part of the key.
  FunctionOptions exact = options;
  exact.fast_math = false;
  auto e = fnc::function(variants[0].second, exact);
  expectSame(e(x), eager[0], "exact");
  EXPECT_EQ(entriesIn(dir.path), variants.size() + 1);
}

TEST(FunctionCacheTest, AnEntryWithSpoiledNotesIsCompiledAgain) {
  TempDir dir;
  jit::CompileCache *cache = jit::CompileCache::get(dir.path);
  FunctionOptions options;
  options.cache_dir = dir.path;
  options.jit_compile = true; // stored before the next trace looks
  Tensor x = Tensor(std::vector<float>{1, 2, 3}, {3});
  Tensor y = Tensor(std::vector<float>{4, 5, 6}, {3});
  float want = function(seed, options)(x, y).item<float>();
  std::string path;
  std::error_code ec;
  for (fs::directory_iterator it(dir.path, ec), end; it != end && !ec;
       it.increment(ec))
    path = it->path();
  ASSERT_FALSE(path.empty());
  // A valid entry (key, checksum) whose notes are not a trace's.
  auto data = llvm::MemoryBuffer::getFile(path);
  ASSERT_TRUE(bool(data));
  std::string name = llvm::sys::path::stem(path).str();
  jit::CacheKey key;
  for (size_t i = 0; i < key.bytes.size(); ++i)
    key.bytes[i] =
        static_cast<uint8_t>(std::stoi(name.substr(2 * i, 2), nullptr, 16));
  auto entry = jit::CompileCache::decode(key, (*data)->getBuffer());
  ASSERT_TRUE(bool(entry)) << llvm::toString(entry.takeError());
  std::vector<llvm::MemoryBufferRef> refs;
  for (auto &o : entry->objects)
    refs.push_back(o->getMemBufferRef());
  {
    std::string spoiled = jit::CompileCache::encode(key, refs, "not notes");
    std::error_code wec;
    llvm::raw_fd_ostream out(path, wec);
    ASSERT_FALSE(wec);
    out << spoiled;
  }
  uint64_t rejected = cache->stats().rejected;
  ::testing::internal::CaptureStderr();
  float got = function(seed, options)(x, y).item<float>();
  std::string warning = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(got, want);
  EXPECT_EQ(cache->stats().rejected, rejected + 1);
  EXPECT_NE(warning.find("its notes are not those of a trace"),
            std::string::npos)
      << warning;
  // Stored again, whole: the next function loads it.
  uint64_t hits = cache->stats().hits;
  EXPECT_EQ(function(seed, options)(x, y).item<float>(), want);
  EXPECT_EQ(cache->stats().hits, hits + 1);
}

} // namespace
