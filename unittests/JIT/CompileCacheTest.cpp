//===- CompileCacheTest.cpp - Tests of the on-disk compile cache ----------===//
//
// The compile cache behind CompiledModule::compile, each test in a fresh
// temporary directory: a hit after a miss gives the same results without
// compiling; the key changes with every input it is made of; every kind of
// bad entry (flipped byte, truncation, another version, another key,
// unlinkable objects) is removed with a warning and recompiled; processes
// compiling the same key at once all succeed; code holding a host address is
// never stored; the disabled and unwritable cases; LRU eviction.
//
//===----------------------------------------------------------------------===//

#include "fnc/JIT/CompileCache.h"
#include "fnc/JIT/Engine.h"
#include "fnc/JIT/LinkedCode.h"
#include "fnc/Pipelines/Pipelines.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <fcntl.h>
#include <fstream>
#include <functional>
#include <limits>
#include <unistd.h>
#include <random>
#include <spawn.h>
#include <sys/wait.h>

extern char **environ;

using namespace fnc;
using namespace fnc::jit;
namespace fs = llvm::sys::fs;

namespace {

/// The seed function: reduce_mean(x**2*3+y).
const char *kSeed = R"mlir(
func.func @seed(%x: tensor<?xf32>, %y: tensor<?xf32>) -> tensor<f32> {
  %three = fnc.constant dense<3.0> : tensor<f32>
  %sq = fnc.mul %x, %x : tensor<?xf32>, tensor<?xf32>
  %t = fnc.mul %sq, %three : tensor<?xf32>, tensor<f32>
  %s = fnc.add %t, %y : tensor<?xf32>, tensor<?xf32>
  %m = fnc.mean %s axes [0] : tensor<?xf32>
  return %m : tensor<f32>
}
)mlir";

/// The same function with 4.0 for 3.0.
const std::string kSeedFour = [] {
  std::string text = kSeed;
  text.replace(text.find("dense<3.0>"), 10, "dense<4.0>");
  return text;
}();

/// Calls a host function through its address, baked into the IR as an
/// integer (the shape of a callback op), and doubles its argument.
std::atomic<int> callbackCalls{0};
extern "C" void fncCompileCacheTestCallback() { ++callbackCalls; }

std::string callbackModule() {
  std::string address = std::to_string(
      reinterpret_cast<uintptr_t>(&fncCompileCacheTestCallback));
  return R"mlir(
func.func @twice(%a: tensor<4xf32>) -> tensor<4xf32> {
  %addr = llvm.mlir.constant()mlir" +
         address + R"mlir( : i64) : i64
  %fn = llvm.inttoptr %addr : i64 to !llvm.ptr
  llvm.call %fn() : !llvm.ptr, () -> ()
  %e = tensor.empty() : tensor<4xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>,
                                        affine_map<(d0) -> (d0)>],
                       iterator_types = ["parallel"]}
      ins(%a : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%x: f32, %o: f32):
    %s = arith.addf %x, %x : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}
)mlir";
}

/// A fresh temporary directory, removed with the object.
class TempDir {
public:
  TempDir() {
    llvm::SmallString<128> path;
    EXPECT_FALSE(fs::createUniqueDirectory("fnc-cache-test", path));
    path_ = std::string(path);
  }
  ~TempDir() { (void)fs::remove_directories(path_); }
  const std::string &path() const { return path_; }
  std::string operator/(llvm::StringRef name) const {
    llvm::SmallString<128> p(path_);
    llvm::sys::path::append(p, name);
    return std::string(p);
  }

private:
  std::string path_;
};

/// Sets (or, with nullptr, unsets) an environment variable for a scope.
class ScopedEnv {
public:
  ScopedEnv(const char *name, const char *value) : name_(name) {
    if (const char *old = std::getenv(name))
      old_ = old;
    if (value)
      ::setenv(name, value, 1);
    else
      ::unsetenv(name);
  }
  ~ScopedEnv() {
    if (old_)
      ::setenv(name_, old_->c_str(), 1);
    else
      ::unsetenv(name_);
  }

private:
  const char *name_;
  std::optional<std::string> old_;
};

/// The entry files (*.fncc) of `dir`.
std::vector<std::string> entriesIn(const std::string &dir) {
  std::vector<std::string> files;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; it != end && !ec;
       it.increment(ec))
    if (llvm::StringRef(it->path()).ends_with(CompileCache::kEntrySuffix))
      files.push_back(it->path());
  std::sort(files.begin(), files.end());
  return files;
}

std::string readFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void writeFile(const std::string &path, llvm::StringRef data) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(data.data(), data.size());
}

class CompileCacheTest : public ::testing::Test {
protected:
  CompileCacheTest() {
    mlir::DialectRegistry registry;
    mlir::fnc::registerPipelineDialects(registry);
    context.appendDialectRegistry(registry);
  }

  mlir::OwningOpRef<mlir::ModuleOp> parse(llvm::StringRef source) {
    auto module = mlir::parseSourceString<mlir::ModuleOp>(source, &context);
    EXPECT_TRUE(module) << "cannot parse the test module";
    return module;
  }

  /// Compiles `source` (parsed anew) through the cache `dir`.
  std::unique_ptr<CompiledModule>
  compile(llvm::StringRef source, const CacheDirectory &dir,
          const mlir::fnc::PipelineOptions &options = {}) {
    auto module = parse(source);
    if (!module)
      return nullptr;
    auto compiled = CompiledModule::compile(*module, options, false, dir);
    if (!compiled) {
      ADD_FAILURE() << llvm::toString(compiled.takeError());
      return nullptr;
    }
    return std::move(*compiled);
  }

  /// Calls @seed on random inputs and checks the result against a
  /// reference computed in double.
  void checkSeed(const CompiledModule &m, float three = 3.0f) {
    auto entry = m.lookup("seed");
    ASSERT_TRUE(bool(entry)) << llvm::toString(entry.takeError());
    std::uniform_int_distribution<int64_t> size(1, 300);
    std::uniform_real_distribution<float> value(-2, 2);
    for (int trial = 0; trial < 5; ++trial) {
      int64_t n = size(rng);
      std::vector<float> x(n), y(n);
      double reference = 0;
      for (int64_t i = 0; i < n; ++i) {
        x[i] = value(rng);
        y[i] = value(rng);
        reference += double(x[i]) * x[i] * three + y[i];
      }
      reference /= n;
      int64_t shape[] = {n};
      BufferView args[] = {{DType::f32, shape, x.data()},
                           {DType::f32, shape, y.data()}};
      auto results = (*entry)->call(args);
      ASSERT_TRUE(bool(results)) << llvm::toString(results.takeError());
      ASSERT_EQ(results->size(), 1u);
      float got = *static_cast<const float *>((*results)[0].data());
      EXPECT_NEAR(got, reference, 1e-4 * (1 + std::fabs(reference)))
          << "n = " << n;
    }
  }

  mlir::MLIRContext context;
  std::mt19937 rng{20261201};
};

TEST_F(CompileCacheTest, HitAfterMissGivesTheSameResults) {
  TempDir dir;
  auto first = compile(kSeed, dir.path());
  ASSERT_TRUE(first);
  EXPECT_FALSE(first->fromCache());
  checkSeed(*first);
  ASSERT_EQ(entriesIn(dir.path()).size(), 1u);

  // Parsed again in another context: the same text, the same key.
  mlir::MLIRContext other;
  mlir::DialectRegistry registry;
  mlir::fnc::registerPipelineDialects(registry);
  other.appendDialectRegistry(registry);
  auto module = mlir::parseSourceString<mlir::ModuleOp>(kSeed, &other);
  ASSERT_TRUE(module);
  auto second = CompiledModule::compile(*module, {}, false, dir.path());
  ASSERT_TRUE(bool(second)) << llvm::toString(second.takeError());
  EXPECT_TRUE((*second)->fromCache());
  EXPECT_EQ((*second)->objectCount(), first->objectCount());
  checkSeed(**second);
  // Both stay callable side by side.
  checkSeed(*first);

  CompileCache::Stats stats = CompileCache::get(dir.path())->stats();
  EXPECT_EQ(stats.hits, 1u);
  EXPECT_EQ(stats.misses, 1u);
  EXPECT_EQ(stats.stores, 1u);
  EXPECT_EQ(stats.rejected, 0u);
  EXPECT_EQ(entriesIn(dir.path()).size(), 1u);

  // Another module is another entry, with its own results.
  auto four = compile(kSeedFour, dir.path());
  ASSERT_TRUE(four);
  EXPECT_FALSE(four->fromCache());
  checkSeed(*four, 4.0f);
  EXPECT_EQ(entriesIn(dir.path()).size(), 2u);
}

TEST_F(CompileCacheTest, KeepIRCompilesAndStores) {
  TempDir dir;
  auto module = parse(kSeed);
  ASSERT_TRUE(module);
  auto withIR = CompiledModule::compile(*module, {}, /*keepIR=*/true,
                                        dir.path());
  ASSERT_TRUE(bool(withIR)) << llvm::toString(withIR.takeError());
  EXPECT_FALSE((*withIR)->fromCache());
  EXPECT_FALSE((*withIR)->ir(Stage::LLVMIR).empty());
  auto again = CompiledModule::compile(*module, {}, /*keepIR=*/true,
                                       dir.path());
  ASSERT_TRUE(bool(again));
  EXPECT_FALSE((*again)->fromCache()) << "keepIR needs every stage's IR";
  auto hit = compile(kSeed, dir.path());
  ASSERT_TRUE(hit);
  EXPECT_TRUE(hit->fromCache());
  checkSeed(*hit);
}

TEST_F(CompileCacheTest, KeyChangesWithEveryInput) {
  auto module = parse(kSeed);
  auto four = parse(kSeedFour);
  ASSERT_TRUE(module && four);
  mlir::fnc::PipelineOptions options;
  CacheTarget target = CacheTarget::host();
  EXPECT_FALSE(target.cpu.empty());
  EXPECT_FALSE(target.triple.empty());
  EXPECT_FALSE(target.fncBuild.empty());
  CacheKey base = compileCacheKey(*module, options, target);
  EXPECT_EQ(base.hex().size(), 64u);
  EXPECT_EQ(compileCacheKey(*module, options, target), base);
  EXPECT_EQ(compileCacheKey(*module, options), base) << "host() is default";

  std::vector<std::pair<std::string, CacheKey>> others;
  auto withOptions = [&](const char *what, auto set) {
    mlir::fnc::PipelineOptions o;
    set(o);
    others.emplace_back(what, compileCacheKey(*module, o, target));
  };
  withOptions("opt-level", [](auto &o) { o.optLevel = 2; });
  withOptions("threads", [](auto &o) { o.threads = 3; });
  withOptions("parallel-grain", [](auto &o) { o.parallelGrain = 17; });
  withOptions("fast-math", [](auto &o) { o.fastMath = false; });
  withOptions("check-numerics", [](auto &o) { o.checkNumerics = true; });
  auto withTarget = [&](const char *what, auto set) {
    CacheTarget t = target;
    set(t);
    others.emplace_back(what, compileCacheKey(*module, options, t));
  };
  withTarget("cpu", [](CacheTarget &t) { t.cpu = "znver99"; });
  withTarget("features", [](CacheTarget &t) { t.features += ",+future"; });
  withTarget("triple", [](CacheTarget &t) { t.triple = "aarch64-linux"; });
  withTarget("llvm", [](CacheTarget &t) { t.llvmVersion = "23.0.0"; });
  withTarget("fnc build", [](CacheTarget &t) { t.fncBuild = "other"; });
  others.emplace_back("module", compileCacheKey(*four, options, target));
  // A location reaches run-time messages (check-numerics): it is part of
  // the key.
  mlir::OwningOpRef<mlir::ModuleOp> moved(module->clone());
  moved->walk([&](mlir::Operation *op) {
    op->setLoc(mlir::FileLineColLoc::get(&context, "moved.mlir", 7, 1));
  });
  others.emplace_back("location", compileCacheKey(*moved, options, target));
  for (size_t i = 0; i < others.size(); ++i) {
    EXPECT_NE(others[i].second, base) << others[i].first;
    for (size_t j = 0; j < i; ++j)
      EXPECT_NE(others[i].second, others[j].second)
          << others[i].first << " vs " << others[j].first;
  }
}

TEST_F(CompileCacheTest, KeyPartsAreLengthPrefixed) {
  CacheKeyBuilder a, b;
  a.add("x", "ab");
  a.add("y", "c");
  b.add("x", "a");
  b.add("y", "bc");
  EXPECT_NE(a.finish(), b.finish());
}

/// A way to spoil an entry, and the reason the warning must give.
struct Corruption {
  const char *name;
  std::function<std::string(const std::string &entry, const CacheKey &key)>
      spoil;
  const char *reason;
};

TEST_F(CompileCacheTest, BadEntriesAreRemovedAndRecompiled) {
  CacheTarget otherCpu = CacheTarget::host();
  otherCpu.cpu = "some-other-cpu";
  std::vector<Corruption> cases = {
      {"flipped payload byte",
       [](std::string e, const CacheKey &) {
         e[e.size() / 2] ^= 0x20;
         return e;
       },
       "checksum mismatch"},
      {"flipped checksum byte",
       [](std::string e, const CacheKey &) {
         e[e.size() - 3] ^= 1;
         return e;
       },
       "checksum mismatch"},
      {"truncated in the payload",
       [](std::string e, const CacheKey &) {
         return e.substr(0, e.size() / 2);
       },
       "truncated"},
      {"truncated in the header",
       [](std::string e, const CacheKey &) { return e.substr(0, 20); },
       "truncated: 20 bytes, shorter than a header"},
      {"empty", [](std::string, const CacheKey &) { return std::string(); },
       "truncated: 0 bytes"},
      {"trailing bytes",
       [](std::string e, const CacheKey &) { return e + "xyz"; },
       "3 bytes more than its objects need"},
      {"bad magic",
       [](std::string e, const CacheKey &) {
         e[0] = 'X';
         return e;
       },
       "bad magic number"},
      {"another format version",
       [](std::string e, const CacheKey &) {
         e[8] = static_cast<char>(kCacheFormatVersion + 1);
         return e;
       },
       "format version 3, this fnc reads version 2"},
      {"bad object count",
       [](std::string e, const CacheKey &) {
         e[44] = e[45] = e[46] = e[47] = '\xff';
         return e;
       },
       "bad object count 4294967295"},
      {"the entry of another CPU",
       [&](std::string e, const CacheKey &) {
         // A complete, valid entry, but for the same module compiled for
         // another CPU, put where this CPU's entry belongs.
         auto module = parse(kSeed);
         CacheKey other = compileCacheKey(*module, {}, otherCpu);
         auto objects = CompileCache::decode(
             compileCacheKey(*module, {}), e);
         EXPECT_TRUE(bool(objects));
         std::vector<llvm::MemoryBufferRef> refs;
         for (auto &o : objects->objects)
           refs.push_back(o->getMemBufferRef());
         return CompileCache::encode(other, refs);
       },
       "it holds the entry of another key"},
      {"objects that do not link",
       [](std::string, const CacheKey &key) {
         llvm::MemoryBufferRef garbage("not an object file", "garbage");
         return CompileCache::encode(key, {garbage});
       },
       "it does not link"},
  };
  for (const Corruption &c : cases) {
    SCOPED_TRACE(c.name);
    TempDir dir;
    auto first = compile(kSeed, dir.path());
    ASSERT_TRUE(first);
    auto entries = entriesIn(dir.path());
    ASSERT_EQ(entries.size(), 1u);
    auto module = parse(kSeed);
    CacheKey key = compileCacheKey(*module, {});
    EXPECT_EQ(entries[0], CompileCache::get(dir.path())->pathOf(key));
    writeFile(entries[0], c.spoil(readFile(entries[0]), key));

    testing::internal::CaptureStderr();
    auto second = compile(kSeed, dir.path());
    std::string warning = testing::internal::GetCapturedStderr();
    ASSERT_TRUE(second);
    EXPECT_FALSE(second->fromCache());
    EXPECT_NE(warning.find("fnc: ignoring a corrupt compile-cache entry " +
                           entries[0] + " ("),
              std::string::npos)
        << warning;
    EXPECT_NE(warning.find(c.reason), std::string::npos) << warning;
    EXPECT_NE(warning.find("); recompiling\n"), std::string::npos) << warning;
    EXPECT_EQ(std::count(warning.begin(), warning.end(), '\n'), 1)
        << warning;
    checkSeed(*second);
    EXPECT_EQ(CompileCache::get(dir.path())->stats().rejected, 1u);

    // The recompiled code replaced the bad entry.
    auto third = compile(kSeed, dir.path());
    ASSERT_TRUE(third);
    EXPECT_TRUE(third->fromCache());
    checkSeed(*third);
  }
}

TEST_F(CompileCacheTest, DecodeRejectsEveryFlippedByteAndTruncation) {
  TempDir dir;
  ASSERT_TRUE(compile(kSeed, dir.path()));
  auto entries = entriesIn(dir.path());
  ASSERT_EQ(entries.size(), 1u);
  std::string entry = readFile(entries[0]);
  auto module = parse(kSeed);
  CacheKey key = compileCacheKey(*module, {});
  auto decoded = CompileCache::decode(key, entry);
  ASSERT_TRUE(bool(decoded)) << llvm::toString(decoded.takeError());
  size_t payload = 0;
  std::vector<llvm::MemoryBufferRef> refs;
  for (auto &o : decoded->objects) {
    payload += o->getBufferSize();
    refs.push_back(o->getMemBufferRef());
  }
  EXPECT_TRUE(decoded->notes.empty());
  EXPECT_EQ(entry.size(), 48 + 8 * refs.size() + 8 + payload + 8);
  // The same objects with notes beside them (as a trace stores them).
  std::string withNotes = CompileCache::encode(key, refs, "notes of a trace");
  auto noted = CompileCache::decode(key, withNotes);
  ASSERT_TRUE(bool(noted)) << llvm::toString(noted.takeError());
  EXPECT_EQ(noted->notes, "notes of a trace");
  ASSERT_EQ(noted->objects.size(), refs.size());
  EXPECT_EQ(noted->objects[0]->getBuffer(), refs[0].getBuffer());
  for (const std::string &good : {entry, withNotes}) {
    for (size_t i = 0; i < good.size(); ++i) {
      std::string bad = good;
      bad[i] ^= static_cast<char>(1 << (i % 8));
      auto spoiled = CompileCache::decode(key, bad);
      EXPECT_FALSE(bool(spoiled)) << "byte " << i;
      llvm::consumeError(spoiled.takeError());
    }
    for (size_t n = 0; n < good.size(); ++n) {
      auto spoiled =
          CompileCache::decode(key, llvm::StringRef(good).take_front(n));
      EXPECT_FALSE(bool(spoiled)) << "truncated to " << n;
      llvm::consumeError(spoiled.takeError());
    }
  }
}

// The JIT's linker (LinkedCode: ORC's JITLink) trusts the sections of an
// object it parses (a flipped byte in .eh_frame can crash its parser), so
// the objects of a cache entry reach it only after the entry's checksum
// (DecodeRejectsEveryFlippedByteAndTruncation). What it must report as
// errors: bytes that are no object file, a truncated one, a symbol nothing
// defines.
TEST_F(CompileCacheTest, LinkingReportsObjectsItCannotLink) {
  TempDir dir;
  ASSERT_TRUE(compile(kSeed, dir.path()));
  auto entries = entriesIn(dir.path());
  ASSERT_EQ(entries.size(), 1u);
  auto module = parse(kSeed);
  auto decoded =
      CompileCache::decode(compileCacheKey(*module, {}), readFile(entries[0]));
  ASSERT_TRUE(bool(decoded)) << llvm::toString(decoded.takeError());
  ASSERT_EQ(decoded->objects.size(), 1u);
  std::string object = decoded->objects[0]->getBuffer().str();
  auto linkCopy = [](const std::string &bytes) {
    ObjectFiles objects;
    objects.push_back(llvm::MemoryBuffer::getMemBufferCopy(bytes));
    return LinkedCode::link(std::move(objects));
  };
  for (int i = 0; i < 2; ++i) { // twice: modules are linked independently
    auto code = linkCopy(object);
    ASSERT_TRUE(bool(code)) << llvm::toString(code.takeError());
    EXPECT_NE((*code)->lookup("_mlir_seed"), nullptr);
    EXPECT_EQ((*code)->lookup("_mlir_nothing"), nullptr);
  }
  {
    // Two copies of one object in a module: every symbol defined twice.
    ObjectFiles twice;
    twice.push_back(llvm::MemoryBuffer::getMemBufferCopy(object));
    twice.push_back(llvm::MemoryBuffer::getMemBufferCopy(object));
    auto code = LinkedCode::link(std::move(twice));
    ASSERT_FALSE(bool(code));
    std::string e = llvm::toString(code.takeError());
    EXPECT_NE(e.find("uplicate definition"), std::string::npos) << e;
  }
  auto code = linkCopy("not an object file");
  ASSERT_FALSE(bool(code));
  EXPECT_EQ(llvm::toString(code.takeError()),
            "The file was not recognized as a valid object file");
  for (size_t n : {size_t(0), size_t(16), size_t(64), object.size() / 2,
                   object.size() - 1}) {
    auto cut = linkCopy(object.substr(0, n));
    EXPECT_FALSE(bool(cut)) << "truncated to " << n;
    if (!cut)
      llvm::consumeError(cut.takeError());
  }
}

TEST_F(CompileCacheTest, CodeWithAHostAddressIsNeverStored) {
  TempDir dir;
  std::string source = callbackModule();
  for (int i = 0; i < 2; ++i) {
    auto m = compile(source, dir.path());
    ASSERT_TRUE(m);
    EXPECT_FALSE(m->fromCache());
    auto entry = m->lookup("twice");
    ASSERT_TRUE(bool(entry)) << llvm::toString(entry.takeError());
    float a[] = {1, 2, 3, 4};
    int64_t shape[] = {4};
    BufferView args[] = {{DType::f32, shape, a}};
    int before = callbackCalls;
    auto results = (*entry)->call(args);
    ASSERT_TRUE(bool(results)) << llvm::toString(results.takeError());
    EXPECT_EQ(callbackCalls, before + 1);
    const float *r = static_cast<const float *>((*results)[0].data());
    EXPECT_EQ(std::vector<float>(r, r + 4), (std::vector<float>{2, 4, 6, 8}));
  }
  EXPECT_TRUE(entriesIn(dir.path()).empty());
  EXPECT_EQ(CompileCache::get(dir.path())->stats().stores, 0u);
}

TEST_F(CompileCacheTest, DisabledCacheWritesNothing) {
  EXPECT_EQ(CompileCache::get(std::string()), nullptr);
  TempDir dir;
  // The environment names a directory, but the option disables the cache.
  std::optional<ScopedEnv> env;
  env.emplace("FNC_CACHE_DIR", dir.path().c_str());
  for (int i = 0; i < 2; ++i) {
    auto m = compile(kSeed, std::string());
    ASSERT_TRUE(m);
    EXPECT_FALSE(m->fromCache());
    checkSeed(*m);
  }
  EXPECT_TRUE(entriesIn(dir.path()).empty());
  // Without the option, the environment's directory is used.
  auto m = compile(kSeed, std::nullopt);
  ASSERT_TRUE(m);
  EXPECT_EQ(entriesIn(dir.path()).size(), 1u);
  env.reset();
  ScopedEnv off("FNC_CACHE_DIR", "");
  auto disabled = compile(kSeed, std::nullopt);
  ASSERT_TRUE(disabled);
  EXPECT_FALSE(disabled->fromCache()) << "FNC_CACHE_DIR= disables the cache";
}

TEST_F(CompileCacheTest, DirectoryFromTheEnvironment) {
  {
    ScopedEnv dir("FNC_CACHE_DIR", "/some/cache");
    EXPECT_EQ(CompileCache::directoryFromEnvironment(), "/some/cache");
    ASSERT_NE(CompileCache::get(std::nullopt), nullptr);
    EXPECT_EQ(CompileCache::get(std::nullopt)->directory(), "/some/cache");
    // An explicit directory wins over the environment.
    EXPECT_EQ(CompileCache::get(std::string("/other"))->directory(),
              "/other");
    EXPECT_EQ(CompileCache::get(std::string()), nullptr);
  }
  {
    ScopedEnv dir("FNC_CACHE_DIR", "");
    ScopedEnv xdg("XDG_CACHE_HOME", "/xdg");
    EXPECT_EQ(CompileCache::directoryFromEnvironment(), std::nullopt);
    EXPECT_EQ(CompileCache::get(std::nullopt), nullptr);
  }
  ScopedEnv dir("FNC_CACHE_DIR", nullptr);
  {
    ScopedEnv xdg("XDG_CACHE_HOME", "/xdg");
    EXPECT_EQ(CompileCache::directoryFromEnvironment(), "/xdg/fnc");
  }
  {
    ScopedEnv xdg("XDG_CACHE_HOME", "relative");
    ScopedEnv home("HOME", "/home/u");
    EXPECT_EQ(CompileCache::directoryFromEnvironment(), "/home/u/.cache/fnc");
  }
  {
    ScopedEnv xdg("XDG_CACHE_HOME", nullptr);
    ScopedEnv home("HOME", nullptr);
    EXPECT_EQ(CompileCache::directoryFromEnvironment(), std::nullopt);
    EXPECT_EQ(CompileCache::get(std::nullopt), nullptr);
  }
  // A relative directory is taken relative to the working directory.
  ASSERT_NE(CompileCache::get(std::string("rel/cache")), nullptr);
  EXPECT_TRUE(llvm::sys::path::is_absolute(
      CompileCache::get(std::string("rel/cache"))->directory()));
}

TEST_F(CompileCacheTest, UnwritableDirectoryWarnsOnceAndGoesOn) {
  TempDir dir;
  // A regular file where a directory should be: even root cannot create it.
  writeFile(dir / "file", "x");
  std::string cache = dir / "file/cache";
  testing::internal::CaptureStderr();
  for (int i = 0; i < 3; ++i) {
    auto m = compile(kSeed, cache);
    ASSERT_TRUE(m);
    EXPECT_FALSE(m->fromCache());
    checkSeed(*m);
  }
  std::string warning = testing::internal::GetCapturedStderr();
  EXPECT_EQ(warning.find("fnc: cannot write the compile cache in " + cache +
                         " ("),
            0u)
      << warning;
  EXPECT_EQ(std::count(warning.begin(), warning.end(), '\n'), 1) << warning;
}

/// Stores a synthetic entry of `size` object bytes under a key made from
/// `name`, last used `age` ago.
CacheKey storeSynthetic(CompileCache &cache, const std::string &name,
                        size_t size, std::chrono::seconds age) {
  CacheKeyBuilder builder;
  builder.add("test", name);
  CacheKey key = builder.finish();
  std::string object(size, 'o');
  cache.store(key, CompileCache::encode(
                       key, {llvm::MemoryBufferRef(object, name)}));
  int fd;
  if (!fs::openFileForWrite(cache.pathOf(key), fd, fs::CD_OpenExisting)) {
    (void)fs::setLastAccessAndModificationTime(
        fd, std::chrono::system_clock::now() - age);
    ::close(fd);
  }
  return key;
}

uint64_t totalBytes(const std::string &dir) {
  uint64_t total = 0;
  for (const std::string &file : entriesIn(dir)) {
    uint64_t size = 0;
    (void)fs::file_size(file, size);
    total += size;
  }
  return total;
}

TEST_F(CompileCacheTest, EvictsLeastRecentlyUsedEntries) {
  TempDir dir;
  CompileCache *cache = CompileCache::get(dir.path());
  ASSERT_TRUE(cache);
  EXPECT_EQ(cache->maxBytes(), CompileCache::kDefaultMaxBytes);
  constexpr size_t kObject = 1000;
  std::vector<CacheKey> keys;
  // Entry i was used 100 - i minutes ago: entry 0 is the oldest.
  for (int i = 0; i < 10; ++i)
    keys.push_back(storeSynthetic(*cache, "e" + std::to_string(i), kObject,
                                  std::chrono::minutes(100 - i)));
  uint64_t entrySize = totalBytes(dir.path()) / 10;
  ASSERT_EQ(entriesIn(dir.path()).size(), 10u);

  // A hit makes entry 2 the most recently used.
  ASSERT_TRUE(cache->load(keys[2]).has_value());
  EXPECT_EQ(cache->evict(5 * entrySize), 5 * entrySize);
  for (int i = 0; i < 10; ++i)
    EXPECT_EQ(fs::exists(cache->pathOf(keys[i])),
              i == 2 || i >= 6)
        << "entry " << i;
  EXPECT_EQ(cache->stats().evicted, 5u);

  // A temporary file a crashed writer left an hour ago goes; a fresh one,
  // which a writer may be about to rename, stays.
  writeFile(dir / "stale.tmp", "x");
  writeFile(dir / "fresh.tmp", "x");
  int fd;
  ASSERT_FALSE(fs::openFileForWrite(dir / "stale.tmp", fd,
                                    fs::CD_OpenExisting));
  (void)fs::setLastAccessAndModificationTime(
      fd, std::chrono::system_clock::now() - std::chrono::hours(2));
  ::close(fd);
  cache->evict(std::numeric_limits<uint64_t>::max());
  EXPECT_FALSE(fs::exists(dir / "stale.tmp"));
  EXPECT_TRUE(fs::exists(dir / "fresh.tmp"));
}

TEST_F(CompileCacheTest, StoresKeepTheDirectoryUnderTheCap) {
  TempDir dir;
  ScopedEnv cap("FNC_CACHE_MAX_BYTES", "4500");
  CompileCache *cache = CompileCache::get(dir.path());
  ASSERT_TRUE(cache);
  EXPECT_EQ(cache->maxBytes(), 4500u);
  CacheKey last;
  for (int i = 0; i < 20; ++i) {
    last = storeSynthetic(*cache, "s" + std::to_string(i), 1000,
                          std::chrono::minutes(100 - i));
    EXPECT_LE(totalBytes(dir.path()), 4500u) << "after store " << i;
  }
  EXPECT_TRUE(fs::exists(cache->pathOf(last)));
  EXPECT_GT(cache->stats().evicted, 0u);

  // A real module in a cache too small for anything still compiles.
  TempDir tiny;
  CompileCache::get(tiny.path())->setMaxBytes(1);
  auto m = compile(kSeed, tiny.path());
  ASSERT_TRUE(m);
  checkSeed(*m);
  EXPECT_TRUE(entriesIn(tiny.path()).empty());
}

TEST_F(CompileCacheTest, BadMaxBytesKeepsTheDefault) {
  TempDir dir;
  ScopedEnv cap("FNC_CACHE_MAX_BYTES", "lots");
  testing::internal::CaptureStderr();
  CompileCache *cache = CompileCache::get(dir.path());
  std::string warning = testing::internal::GetCapturedStderr();
  ASSERT_TRUE(cache);
  EXPECT_EQ(cache->maxBytes(), CompileCache::kDefaultMaxBytes);
  EXPECT_NE(warning.find("FNC_CACHE_MAX_BYTES='lots' is not a number of "
                         "bytes"),
            std::string::npos)
      << warning;
}

//===----------------------------------------------------------------------===//
// Processes sharing a cache
//===----------------------------------------------------------------------===//

/// Run by ProcessesCompilingTheSameKeyAllSucceed in child processes (this
/// binary, run again): compiles the seed function through the cache in
/// $FNC_CACHE_TEST_DIR, checks its results, and writes "hit" or "miss" to
/// $FNC_CACHE_TEST_OUT.
TEST_F(CompileCacheTest, DISABLED_ChildProcess) {
  const char *dir = std::getenv("FNC_CACHE_TEST_DIR");
  const char *out = std::getenv("FNC_CACHE_TEST_OUT");
  ASSERT_TRUE(dir && out) << "run by ProcessesCompilingTheSameKeyAllSucceed";
  auto m = compile(kSeed, std::string(dir));
  ASSERT_TRUE(m);
  checkSeed(*m);
  if (!HasFailure())
    writeFile(out, m->fromCache() ? "hit" : "miss");
}

/// Runs this test binary's DISABLED_ChildProcess with `dir` and `out`.
pid_t spawnChild(const std::string &dir, const std::string &out) {
  std::string exe = llvm::sys::fs::getMainExecutable(nullptr, nullptr);
  std::vector<std::string> args = {
      exe, "--gtest_also_run_disabled_tests",
      "--gtest_filter=CompileCacheTest.DISABLED_ChildProcess"};
  std::vector<std::string> env = {"FNC_CACHE_TEST_DIR=" + dir,
                                  "FNC_CACHE_TEST_OUT=" + out};
  for (char **e = environ; *e; ++e)
    if (!llvm::StringRef(*e).starts_with("FNC_CACHE_TEST_"))
      env.push_back(*e);
  std::vector<char *> argv, envp;
  for (std::string &a : args)
    argv.push_back(a.data());
  argv.push_back(nullptr);
  for (std::string &e : env)
    envp.push_back(e.data());
  envp.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  // The children's gtest chatter is not this test's output.
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  pid_t pid = -1;
  int rc = posix_spawn(&pid, exe.c_str(), &actions, nullptr, argv.data(),
                       envp.data());
  posix_spawn_file_actions_destroy(&actions);
  return rc == 0 ? pid : -1;
}

TEST_F(CompileCacheTest, ProcessesCompilingTheSameKeyAllSucceed) {
  TempDir dir;
  std::string cache = dir / "cache";
  constexpr int kChildren = 4;
  std::vector<pid_t> children;
  for (int i = 0; i < kChildren; ++i) {
    pid_t pid = spawnChild(cache, dir / ("out" + std::to_string(i)));
    ASSERT_GT(pid, 0) << "cannot start a child process";
    children.push_back(pid);
  }
  for (int i = 0; i < kChildren; ++i) {
    int status = 0;
    ASSERT_EQ(waitpid(children[i], &status, 0), children[i]);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
        << "child " << i << " failed (status " << status << ")";
    std::string result = readFile(dir / ("out" + std::to_string(i)));
    EXPECT_TRUE(result == "hit" || result == "miss") << result;
  }
  // One complete, valid entry, whoever renamed last.
  auto entries = entriesIn(cache);
  ASSERT_EQ(entries.size(), 1u);
  std::error_code ec;
  for (fs::directory_iterator it(cache, ec), end; it != end && !ec;
       it.increment(ec))
    EXPECT_FALSE(llvm::StringRef(it->path()).ends_with(".tmp"))
        << "left behind: " << it->path();

  // A later process hits it.
  pid_t pid = spawnChild(cache, dir / "late");
  ASSERT_GT(pid, 0);
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  EXPECT_EQ(readFile(dir / "late"), "hit");
}

} // namespace
