//===- FunctionCacheTest.cpp - fnc::function and the compile cache --------===//
//
// FunctionOptions::cache_dir: a second fnc::function of the same callable
// (as in a fresh process) loads the code the first one stored and returns
// the same values; an empty cache_dir disables the cache.
//
//===----------------------------------------------------------------------===//

#include "fnc/JIT/CompileCache.h"
#include "fnc/fnc.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

using namespace fnc;
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

} // namespace
