//===- MemoryTest.cpp - The caching allocator of tensor buffers -----------===//
//
// fnc/Memory.h: alignment and reuse of the raw allocator, the cap and
// trim_memory(), and that loops of eager ops and of calls of a compiled
// function on big tensors reach a steady state: after the first iterations
// every large buffer comes from the cache, and the resident set stops
// growing.
//
//===----------------------------------------------------------------------===//

#include "fnc/Memory.h"
#include "fnc/fnc.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <fstream>
#include <thread>
#include <unistd.h>
#include <vector>

using namespace fnc;

namespace {

/// Resident set size of the process in bytes (Linux).
size_t residentBytes() {
  std::ifstream statm("/proc/self/statm");
  size_t pages = 0, resident = 0;
  statm >> pages >> resident;
  return resident * static_cast<size_t>(sysconf(_SC_PAGESIZE));
}

/// An empty cache of 1 GiB for a test (the default of sanitizer builds is
/// no cache); then the default again.
struct FreshCache {
  FreshCache() : limit(memory_stats().cache_limit) {
    trim_memory();
    set_memory_cache_limit(size_t(1) << 30);
  }
  ~FreshCache() {
    set_memory_cache_limit(limit);
    trim_memory();
  }
  size_t limit;
};

TEST(MemoryTest, BuffersAreAlignedAndWritable) {
  FreshCache fresh;
  for (size_t bytes : {size_t(0), size_t(1), size_t(100), size_t(70000),
                       size_t(1) << 20, size_t(5) << 20}) {
    SCOPED_TRACE(bytes);
    auto *p = static_cast<unsigned char *>(memory::allocate(bytes));
    ASSERT_NE(p, nullptr);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % 64, 0u);
    for (size_t i = 0; i < bytes; i += 4096)
      p[i] = static_cast<unsigned char>(i);
    if (bytes)
      p[bytes - 1] = 1;
    memory::release(p);
  }
  memory::release(nullptr);
  EXPECT_EQ(memory::allocate(size_t(1) << 63), nullptr);
}

TEST(MemoryTest, LargeBuffersAreReusedSmallOnesAreNot) {
  FreshCache fresh;
  MemoryStats before = memory_stats();
  void *a = memory::allocate(1 << 20);
  memory::release(a);
  EXPECT_EQ(memory_stats().cached_bytes - before.cached_bytes, 1u << 20 | 1u << 17)
      << "1 MiB plus the header rounds up to the next eighth of 1 MiB";
  // A slightly larger request of the same class gets the same block.
  void *b = memory::allocate((1 << 20) + 1000);
  EXPECT_EQ(a, b);
  MemoryStats after = memory_stats();
  EXPECT_EQ(after.reused - before.reused, 1u);
  EXPECT_EQ(after.fresh - before.fresh, 1u);
  memory::release(b);
  // Small buffers are not in the shared cache.
  void *small = memory::allocate(1000);
  memory::release(small);
  EXPECT_EQ(memory_stats().fresh, after.fresh);
}

TEST(MemoryTest, SmallBuffersAreKeptByTheirThread) {
  trim_memory();
  // Up to 4 KiB with the header: a block of the next power of two, which
  // the freeing thread hands to its next request of that class.
  void *a = memory::allocate(100);
  memory::release(a);
  void *b = memory::allocate(150); // the same 256-byte class
  void *c = memory::allocate(100);
#if defined(__SANITIZE_ADDRESS__)
  (void)a; // AddressSanitizer builds keep nothing (to find misuse)
#else
  EXPECT_EQ(b, a);
#endif
  EXPECT_NE(c, b);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(b) % 64, 0u);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(c) % 64, 0u);
  memory::release(b);
  memory::release(c);
  // Another thread allocates its own blocks; a block freed there stays
  // there (freed when the thread exits).
  void *other = nullptr;
  std::thread([&] {
    other = memory::allocate(100);
    std::memset(other, 7, 100);
    memory::release(other);
  }).join();
  void *d = memory::allocate(100);
  std::memset(d, 1, 100);
  memory::release(d);
  // Many more than a thread keeps: the rest go back to malloc.
  std::vector<void *> many;
  for (int i = 0; i < 1000; ++i)
    many.push_back(memory::allocate(2000));
  for (void *p : many)
    memory::release(p);
  trim_memory();
}

TEST(MemoryTest, TrimAndLimit) {
  FreshCache fresh;
  void *a = memory::allocate(4 << 20);
  memory::release(a);
  EXPECT_GE(memory_stats().cached_bytes, size_t(4) << 20);
  trim_memory();
  EXPECT_EQ(memory_stats().cached_bytes, 0u);
  set_memory_cache_limit(0);
  EXPECT_EQ(memory_stats().cache_limit, 0u);
  uint64_t freshBefore = memory_stats().fresh;
  for (int i = 0; i < 3; ++i)
    memory::release(memory::allocate(1 << 20));
  EXPECT_EQ(memory_stats().fresh - freshBefore, 3u);
  EXPECT_EQ(memory_stats().cached_bytes, 0u);
}

TEST(MemoryTest, OverTheLimitTheLeastRecentlyFreedGoFirst) {
  FreshCache fresh;
  set_memory_cache_limit(size_t(4) << 20);
  const size_t small = 1 << 20, big = 2 << 20;
  const size_t smallBlock = small + (small >> 3), bigBlock = big + (big >> 3);
  void *a = memory::allocate(small), *b = memory::allocate(small);
  void *c = memory::allocate(small), *d = memory::allocate(big);
  for (void *p : {a, b, c, d})
    memory::release(p);
  // a and b, freed first, made room for c and d.
  EXPECT_EQ(memory_stats().cached_bytes, smallBlock + bigBlock);
  MemoryStats before = memory_stats();
  void *again = memory::allocate(small);
  EXPECT_EQ(again, c);
  void *more = memory::allocate(small);
  EXPECT_EQ(memory_stats().reused - before.reused, 1u);
  EXPECT_EQ(memory_stats().fresh - before.fresh, 1u);
  memory::release(again);
  memory::release(more);
  // A block larger than the whole cache is not kept.
  memory::release(memory::allocate(8 << 20));
  EXPECT_LE(memory_stats().cached_bytes, size_t(4) << 20);
}

TEST(MemoryTest, EagerLoopReachesASteadyState) {
  // On the compiled eager kernels (fnc/Eager.h; the first step compiles
  // them), whose results come from the cache as compiled code's do, and on
  // the reference kernels.
  EagerKernels mode = eager_kernels();
  for (EagerKernels m : {EagerKernels::Blocking, EagerKernels::Reference}) {
    SCOPED_TRACE(m == EagerKernels::Blocking ? "compiled" : "reference");
    set_eager_kernels(m);
    FreshCache fresh;
    // 4 MiB operands: every temporary is a large buffer.
    Tensor x = random_uniform({1024, 1024}), y = random_uniform({1024, 1024});
    auto step = [&] { return reduce_mean(x * x * 3.0f + y).item<float>(); };
    float first = step();
    step();
    MemoryStats warm = memory_stats();
    size_t rss = residentBytes();
    for (int i = 0; i < 30; ++i)
      EXPECT_EQ(step(), first);
    EXPECT_EQ(memory_stats().fresh, warm.fresh)
        << "every temporary after the warm-up comes from the cache";
    EXPECT_LT(residentBytes(), rss + (size_t(8) << 20));
  }
  set_eager_kernels(mode);
}

TEST(MemoryTest, CompiledCallsReachASteadyState) {
  FreshCache fresh;
  auto f = function([](Tensor a, Tensor b) {
    Tensor h = tanh(a * 2.0f + b);
    return std::make_tuple(h, reduce_sum(h * b, {1}));
  });
  Tensor a = random_uniform({512, 2048}), b = random_uniform({512, 2048});
  f(a, b);
  f(a, b);
  MemoryStats warm = memory_stats();
  size_t rss = residentBytes();
  for (int i = 0; i < 30; ++i) {
    auto [h, s] = f(a, b);
    ASSERT_EQ(h.shape(), (Shape{512, 2048}));
  }
  EXPECT_EQ(memory_stats().fresh, warm.fresh)
      << "results and temporaries of compiled code come from the cache";
  EXPECT_GT(memory_stats().reused, warm.reused);
  EXPECT_LT(residentBytes(), rss + (size_t(8) << 20));
}

} // namespace
