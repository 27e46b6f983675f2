//===- Memory.cpp - fnc's caching allocator of tensor buffers -------------===//
//
// See fnc/Memory.h. Each buffer carries a 64-byte header (its size class
// and a tag) in front of it, so release() needs only the pointer: compiled
// code frees with `free(p)`. Classes: sizes below 64 KiB are rounded to 64
// bytes and never cached (malloc serves them well); larger ones are rounded
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

/// The block size for a request of `bytes` (header included). From 4 MiB
/// (numpy's threshold) blocks are whole huge pages.
size_t blockSize(size_t bytes) {
  size_t total = (bytes + kHeader + 63) / 64 * 64;
  if (total < kMinCached)
    return total;
  size_t step = size_t(1) << (63 - __builtin_clzll(total) - 3);
  if (total >= 2 * kHugePage)
    step = std::max(step, kHugePage);
  return (total + step - 1) / step * step;
}

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
    void *p = it->second;
    free_.erase(it);
    cached_ -= block;
    ++reused_;
    return p;
  }

  /// Keeps `base` if it fits under the limit; false if the caller frees it.
  bool keep(void *base, size_t block) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (cached_ + block > limit_)
      return false;
    free_.emplace(block, base);
    cached_ += block;
    return true;
  }

  void trim(size_t to) {
    std::multimap<size_t, void *> dropped;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      // Largest first: fewest buffers freed for the bytes given back.
      while (cached_ > to && !free_.empty()) {
        auto last = std::prev(free_.end());
        cached_ -= last->first;
        dropped.insert(*last);
        free_.erase(last);
      }
    }
    for (auto &[block, base] : dropped)
      std::free(base);
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
  std::mutex mutex_;
  std::multimap<size_t, void *> free_; // block size -> block
  size_t cached_ = 0;
  size_t limit_ = kDefaultLimit;
  uint64_t reused_ = 0, fresh_ = 0;
};

} // namespace

void *memory::allocate(size_t bytes) noexcept {
  if (bytes > (size_t(1) << 62))
    return nullptr;
  size_t block = blockSize(std::max<size_t>(bytes, 1));
  void *base = block >= kMinCached ? Cache::get().take(block) : nullptr;
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
  if (block >= kMinCached && Cache::get().keep(base, block))
    return;
  header->tag = 0;
  std::free(base);
}

MemoryStats memory_stats() { return Cache::get().stats(); }

void trim_memory() { Cache::get().trim(0); }

void set_memory_cache_limit(size_t bytes) { Cache::get().setLimit(bytes); }

} // namespace fnc
