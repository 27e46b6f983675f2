//===- Memory.h - fnc's caching allocator of tensor buffers ---------------===//
//
// Every tensor buffer, eager or returned by a compiled function, and every
// temporary of compiled code comes from one allocator. Freed buffers of
// 64 KiB and more are kept, by size class, and handed to the next
// allocation of that class: a fresh buffer costs a page fault per 4 KiB on
// first touch, which for big tensors costs more than the kernel that fills
// it. Buffers of 4 MiB and more ask for transparent huge pages. The cache
// is bounded (set_memory_cache_limit; over it, the least recently freed
// buffers go back to the system first) and trim_memory() gives it back.
//
// Thread-safe. Every buffer is 64-byte aligned.
//
//===----------------------------------------------------------------------===//

#ifndef FNC_MEMORY_H
#define FNC_MEMORY_H

#include <cstddef>
#include <cstdint>

namespace fnc {

/// The state of the buffer cache.
struct MemoryStats {
  size_t cached_bytes = 0; ///< freed buffers held for reuse
  size_t cache_limit = 0;  ///< the most the cache holds
  uint64_t reused = 0;     ///< large allocations served from the cache
  uint64_t fresh = 0;      ///< large allocations that went to the system
};

MemoryStats memory_stats();

/// Gives every cached buffer back to the system, with the small buffers
/// (up to 4 KiB) and objects (memory::allocateObject) the calling thread
/// keeps. Buffers in use stay. Each
/// thread keeps at most 32 small buffers of each of 6 sizes (under 400 KiB)
/// and frees them when it exits; they are not in memory_stats().
void trim_memory();

/// Bounds the cache (default 1 GiB; 0 in AddressSanitizer builds, where a
/// cached buffer would hide a use after free); 0 disables it. Trims what is
/// over.
void set_memory_cache_limit(size_t bytes);

namespace memory {
/// `bytes` (at least 1) of 64-byte aligned memory, or nullptr when the
/// system has none.
void *allocate(size_t bytes) noexcept;
/// Frees a buffer from allocate(); nullptr is ignored.
void release(void *p) noexcept;

/// Memory for a small host object (a tensor handle's state, a shared
/// pointer's control block): each thread keeps up to 64 freed blocks of
/// each of 4 sizes (64 to 256 bytes) for its next ones, which on a cached
/// call of a small function costs a third of what malloc and free do.
/// Larger requests go to operator new. Throws std::bad_alloc.
void *allocateObject(size_t bytes);
/// Frees memory from allocateObject(bytes) (the same `bytes`).
void releaseObject(void *p, size_t bytes) noexcept;

/// The standard allocator over allocateObject, for std::allocate_shared
/// and the control blocks of std::shared_ptr.
template <typename T> struct ObjectAllocator {
  using value_type = T;
  ObjectAllocator() = default;
  template <typename U> ObjectAllocator(const ObjectAllocator<U> &) {}
  T *allocate(size_t n) {
    return static_cast<T *>(allocateObject(n * sizeof(T)));
  }
  void deallocate(T *p, size_t n) noexcept { releaseObject(p, n * sizeof(T)); }
  template <typename U> bool operator==(const ObjectAllocator<U> &) const {
    return true;
  }
  template <typename U> bool operator!=(const ObjectAllocator<U> &) const {
    return false;
  }
};
} // namespace memory

} // namespace fnc

#endif // FNC_MEMORY_H
