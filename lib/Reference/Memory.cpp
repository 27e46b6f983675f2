//===- Memory.cpp - fnc's caching allocator of tensor buffers -------------===//
//
// See fnc/Memory.h. Each buffer carries a 64-byte header (its size class
// and a tag) in front of it, so release() needs only the pointer: compiled
// code frees with `free(p)`. Classes: blocks of up to 4 KiB are powers of
// two, kept per thread (32 of each size at most), since malloc's aligned
// path is slow for them; up to 64 KiB they are rounded to 64 bytes and not
// cached; larger ones are rounded
// up to an eighth of their power of two (at most 12.5% waste), so that the
// last, smaller batch of an epoch still finds its buffers. The anchors are
// TensorFlow's BFC allocator and numpy's and PyTorch's hugepage requests
// (shared/notes/kernels-anchors.md section d).
//
//===----------------------------------------------------------------------===//

#include "fnc/Memory.h"

#include <sys/mman.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <mutex>
#include <vector>

namespace fnc {
namespace {

constexpr size_t kHeader = 64;
constexpr size_t kMinCached = size_t(1) << 16;
constexpr size_t kHugePage = size_t(2) << 20;
constexpr uint64_t kTag = 0x666e632d62756621;       // "fnc-buf!": in use
constexpr uint64_t kCachedTag = 0x666e632d63616368; // "fnc-cach": cached

#if defined(__SANITIZE_ADDRESS__)
#define FNC_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define FNC_ASAN 1
#endif
#endif
#ifdef FNC_ASAN
// Under AddressSanitizer a cached buffer would hide a use after free.
constexpr size_t kDefaultLimit = 0;
#else
constexpr size_t kDefaultLimit = size_t(1) << 30;
#endif

struct Header {
  uint64_t tag;
  uint64_t bytes; // the whole block, header included
};

/// Blocks of up to kMaxSmall bytes (header included) come in powers of two
/// from 128 and are kept by the thread that frees them (SmallCache).
constexpr size_t kMaxSmall = 4096;
constexpr int kSmallClasses = 6; // 128 ... 4096
#ifdef FNC_ASAN
constexpr int kSmallPerClass = 0;
#else
constexpr int kSmallPerClass = 32;
#endif

/// Objects (memory::allocateObject) of up to kObjectGrain * kObjectClasses
/// bytes come in multiples of kObjectGrain, kept by the thread that frees
/// them.
constexpr size_t kObjectGrain = 64;
constexpr int kObjectClasses = 4;
#ifdef FNC_ASAN
constexpr int kObjectsPerClass = 0;
#else
constexpr int kObjectsPerClass = 64;
#endif

/// The block size for a request of `bytes` (header included). From 4 MiB
/// (numpy's threshold) blocks are whole huge pages.
size_t blockSize(size_t bytes) {
  size_t total = (bytes + kHeader + 63) / 64 * 64;
  if (total <= kMaxSmall)
    return std::max<size_t>(128, size_t(1)
                                     << (64 - __builtin_clzll(total - 1)));
  if (total < kMinCached)
    return total;
  size_t step = size_t(1) << (63 - __builtin_clzll(total) - 3);
  if (total >= 2 * kHugePage)
    step = std::max(step, kHugePage);
  return (total + step - 1) / step * step;
}

/// Freed blocks by size class, the least recently freed evicted first when
/// the cache is over its limit: a phase that frees buffers of new sizes (the
/// test evaluation between epochs, with its larger batches) pushes out the
/// old ones, and the next phase's buffers push its own back out in turn.
/// Refusing the new block instead would keep the stale sizes and leave the
/// next phase to fault its pages in on every call.
class Cache {
public:
  static Cache &get() {
    // Leaked on purpose: buffers may be released during static destruction.
    static Cache *cache = new Cache;
    return *cache;
  }

  void *take(size_t block) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = free_.find(block);
    if (it == free_.end()) {
      ++fresh_;
      return nullptr;
    }
    void *p = it->second.base;
    byAge_.erase(it->second.stamp);
    free_.erase(it);
    cached_ -= block;
    ++reused_;
    return p;
  }

  /// Keeps `base` unless it alone exceeds the limit (then false: the caller
  /// frees it); evicts the least recently freed blocks to make room.
  bool keep(void *base, size_t block) {
    std::vector<void *> evicted;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (block > limit_)
        return false;
      uint64_t stamp = ++clock_;
      byAge_.emplace(stamp, free_.emplace(block, Entry{base, stamp}));
      cached_ += block;
      evictTo(limit_, evicted);
    }
    for (void *p : evicted)
      std::free(p);
    return true;
  }

  void trim(size_t to) {
    std::vector<void *> evicted;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      evictTo(to, evicted);
    }
    for (void *p : evicted)
      std::free(p);
  }

  void setLimit(size_t bytes) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      limit_ = bytes;
    }
    trim(bytes);
  }

  MemoryStats stats() {
    std::lock_guard<std::mutex> lock(mutex_);
    return {cached_, limit_, reused_, fresh_};
  }

private:
  struct Entry {
    void *base;
    uint64_t stamp; // when it was freed
  };
  using Blocks = std::multimap<size_t, Entry>; // block size -> block

  /// Evicts the least recently freed blocks until at most `to` bytes stay.
  void evictTo(size_t to, std::vector<void *> &evicted) {
    while (cached_ > to && !byAge_.empty()) {
      Blocks::iterator oldest = byAge_.begin()->second;
      cached_ -= oldest->first;
      evicted.push_back(oldest->second.base);
      free_.erase(oldest);
      byAge_.erase(byAge_.begin());
    }
  }

  std::mutex mutex_;
  Blocks free_;
  std::map<uint64_t, Blocks::iterator> byAge_; // stamp -> block
  size_t cached_ = 0;
  size_t limit_ = kDefaultLimit;
  uint64_t clock_ = 0, reused_ = 0, fresh_ = 0;
};

/// A thread's free small blocks, one stack per class: the small results
/// and temporaries of small calls then skip malloc's aligned path, which
/// cost about a third of a cached call on 2x2 tensors. Plain data, so that
/// reaching it costs no guard; `SmallCacheOwner` frees it at thread exit.
struct SmallCache {
  void *blocks[kSmallClasses][kSmallPerClass > 0 ? kSmallPerClass : 1];
  int count[kSmallClasses];
  /// Freed objects of memory::allocateObject, one stack per class.
  void *objects[kObjectClasses][kObjectsPerClass > 0 ? kObjectsPerClass : 1];
  int objectCount[kObjectClasses];
  bool owned;
};
thread_local SmallCache smallCacheStorage;
/// This thread's cache, reached through an initial-exec pointer: in a
/// shared library a plain thread_local costs a __tls_get_addr call per
/// access, and the storage is too large for the static TLS block.
__attribute__((tls_model("initial-exec"))) thread_local SmallCache
    *smallCachePtr = nullptr;

SmallCache &smallCache() {
  SmallCache *cache = smallCachePtr;
  if (__builtin_expect(!cache, 0))
    cache = smallCachePtr = &smallCacheStorage;
  return *cache;
}

int smallClass(size_t block) { return __builtin_ctzll(block) - 7; }

void freeSmallCache() {
  SmallCache &cache = smallCache();
  for (int c = 0; c < kSmallClasses; ++c) {
    while (cache.count[c] > 0)
      std::free(cache.blocks[c][--cache.count[c]]);
  }
  for (int c = 0; c < kObjectClasses; ++c) {
    while (cache.objectCount[c] > 0)
      ::operator delete(cache.objects[c][--cache.objectCount[c]]);
  }
}

struct SmallCacheOwner {
  ~SmallCacheOwner() { freeSmallCache(); }
};

/// Makes sure the thread frees its cache when it exits.
void ownCache(SmallCache &cache) {
  if (__builtin_expect(!cache.owned, 0)) {
    static thread_local SmallCacheOwner owner;
    (void)owner;
    cache.owned = true;
  }
}

/// Keeps the small block `base` for this thread; false if its stack is
/// full.
bool keepSmall(void *base, size_t block) {
  SmallCache &cache = smallCache();
  int c = smallClass(block);
  if (cache.count[c] >= kSmallPerClass)
    return false;
  ownCache(cache);
  cache.blocks[c][cache.count[c]++] = base;
  return true;
}

} // namespace

void *memory::allocate(size_t bytes) noexcept {
  if (bytes > (size_t(1) << 62))
    return nullptr;
  size_t block = blockSize(std::max<size_t>(bytes, 1));
  void *base = nullptr;
  if (block <= kMaxSmall) {
    SmallCache &cache = smallCache();
    int c = smallClass(block);
    if (cache.count[c] > 0)
      base = cache.blocks[c][--cache.count[c]];
  } else if (block >= kMinCached) {
    base = Cache::get().take(block);
  }
  if (!base) {
    bool huge = block >= 2 * kHugePage;
    base = std::aligned_alloc(huge ? kHugePage : 64, block);
    if (!base)
      return nullptr;
    if (huge) // THP is madvise-only on many systems.
      madvise(base, block, MADV_HUGEPAGE);
  }
  auto *header = static_cast<Header *>(base);
  header->tag = kTag;
  header->bytes = block;
  return static_cast<char *>(base) + kHeader;
}

void memory::release(void *p) noexcept {
  if (!p)
    return;
  void *base = static_cast<char *>(p) - kHeader;
  auto *header = static_cast<Header *>(base);
  // Not from allocate(), or freed twice: a bug in fnc. Stop rather than
  // corrupt the heap.
  if (header->tag != kTag)
    std::abort();
  size_t block = header->bytes;
  header->tag = kCachedTag;
  if (block <= kMaxSmall
          ? keepSmall(base, block)
          : block >= kMinCached && Cache::get().keep(base, block))
    return;
  header->tag = 0;
  std::free(base);
}

void *memory::allocateObject(size_t bytes) {
  // bytes == 0 wraps around to a class past the last.
  size_t c = (bytes + kObjectGrain - 1) / kObjectGrain - 1;
  if (c >= static_cast<size_t>(kObjectClasses))
    return ::operator new(bytes);
  SmallCache &cache = smallCache();
  if (cache.objectCount[c] > 0)
    return cache.objects[c][--cache.objectCount[c]];
  return ::operator new((c + 1) * kObjectGrain);
}

void memory::releaseObject(void *p, size_t bytes) noexcept {
  size_t c = (bytes + kObjectGrain - 1) / kObjectGrain - 1;
  if (c < static_cast<size_t>(kObjectClasses)) {
    SmallCache &cache = smallCache();
    if (cache.objectCount[c] < kObjectsPerClass) {
      ownCache(cache);
      cache.objects[c][cache.objectCount[c]++] = p;
      return;
    }
  }
  ::operator delete(p);
}

MemoryStats memory_stats() { return Cache::get().stats(); }

void trim_memory() {
  Cache::get().trim(0);
  freeSmallCache();
}

void set_memory_cache_limit(size_t bytes) { Cache::get().setLimit(bytes); }

} // namespace fnc
