//===- CompileCache.h - The persistent on-disk cache of object code -*- C++
//-*-===//
//
// Internal to fnc. A CompileCache keeps the object files the JIT compiled,
// one entry per key, in a directory shared by every process of the user:
// a fresh process that compiles a module some process compiled before loads
// its objects instead of running the pipeline, LLVM's optimizer and code
// generation (docs/Cache.md).
//
// A key (CacheKey) is a 256-bit BLAKE3 hash of everything the object code
// depends on: the canonical text of the input module, the pipeline options, the
// target (triple, CPU, features), the LLVM version, the build of fnc and
// the entry format. compileCacheKey() (lib/JIT/Engine.cpp) computes it for
// CompiledModule::compile; CacheKeyBuilder serves other compilers of fnc
// code (e.g. eager kernels) that cache through the same directory.
//
// An entry is one file, written atomically (a unique temporary file in the
// same directory, then rename). It is validated on load: magic, format
// version, the key repeated, object sizes against the file size, and an
// xxh3 checksum. A bad entry is removed with a one-line warning and the
// caller compiles again. The directory's size is bounded: a hit touches the
// entry's mtime, and a store that takes the total above the cap removes the
// least recently used entries.
//
// Thread-safety: every member function may be called from several threads
// and processes at once.
//
//===----------------------------------------------------------------------===//

#ifndef FNC_JIT_COMPILECACHE_H
#define FNC_JIT_COMPILECACHE_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/BLAKE3.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace llvm {
class raw_ostream;
} // namespace llvm

namespace fnc::jit {

/// Which cache a compilation uses: std::nullopt is the environment's
/// choice (CompileCache::directoryFromEnvironment), an empty string none,
/// anything else that directory.
using CacheDirectory = std::optional<std::string>;

/// The version of the entry format and of the key's composition. Bump it
/// when either changes: older entries then miss (their keys differ) and are
/// evicted in time.
constexpr uint32_t kCacheFormatVersion = 2;

/// A 256-bit cache key.
struct CacheKey {
  std::array<uint8_t, 32> bytes{};
  /// 64 lowercase hex digits (the entry's file name).
  std::string hex() const;
  bool operator==(const CacheKey &other) const { return bytes == other.bytes; }
  bool operator!=(const CacheKey &other) const { return bytes != other.bytes; }
};

/// Builds a key from named parts. Each part is length-prefixed, so no two
/// different sequences of parts give the same input to the hash.
class CacheKeyBuilder {
public:
  /// Starts with kCacheFormatVersion.
  CacheKeyBuilder();
  void add(llvm::StringRef name, llvm::StringRef value);
  /// A part written through a stream (e.g. a printed module) without
  /// keeping its text: `write` prints into the stream it is given.
  void addStreamed(llvm::StringRef name,
                   llvm::function_ref<void(llvm::raw_ostream &)> write);
  CacheKey finish();

private:
  llvm::BLAKE3 hasher_;
};

/// What compiled code depends on besides its input and options.
struct CacheTarget {
  std::string triple;
  std::string cpu;
  /// The subtarget features, "+avx2,+fma,-avx512f,...".
  std::string features;
  /// LLVM_VERSION_STRING.
  std::string llvmVersion;
  /// The identity of this build of fnc: the GNU build id of the binary
  /// (executable or shared library) fnc's JIT is linked into, or its
  /// size and mtime where it has none. Another build of fnc, which may
  /// lower the same module differently, gets other keys.
  std::string fncBuild;

  /// The host's, computed once per process.
  static const CacheTarget &host();
  /// Adds every field to `key`.
  void addTo(CacheKeyBuilder &key) const;
};

/// The objects of one cache entry.
using ObjectFiles = std::vector<std::unique_ptr<llvm::MemoryBuffer>>;

/// One cache entry: the objects, and notes that the compiler which stored
/// them keeps beside them (what it needs besides the code on a hit, e.g.
/// a trace's IR text; empty for most).
struct CacheEntry {
  ObjectFiles objects;
  std::string notes;
};

/// A directory of cache entries; see the file comment.
class CompileCache {
public:
  /// The default cap on the directory's size: 512 MiB
  /// (FNC_CACHE_MAX_BYTES overrides it).
  static constexpr uint64_t kDefaultMaxBytes = uint64_t(512) << 20;
  /// The file name suffix of an entry.
  static constexpr const char *kEntrySuffix = ".fncc";

  /// The directory the environment selects: $FNC_CACHE_DIR if set (set
  /// but empty: std::nullopt, no cache), else $XDG_CACHE_HOME/fnc, else
  /// $HOME/.cache/fnc; std::nullopt if none of them is set.
  static std::optional<std::string> directoryFromEnvironment();

  /// The process's cache for `choice`, or nullptr when `choice` (or the
  /// environment, for std::nullopt) disables it. There is one CompileCache
  /// per directory per process, alive until exit; nothing is created on
  /// disk before the first store.
  static CompileCache *get(const CacheDirectory &choice);

  const std::string &directory() const { return directory_; }
  /// The file of the entry of `key`.
  std::string pathOf(const CacheKey &key) const;

  /// The objects stored under `key`, or std::nullopt on a miss. A bad
  /// entry (corrupt, truncated, another format version, another key) is
  /// removed with the warning "fnc: ignoring a corrupt compile-cache entry
  /// PATH (reason); recompiling" on stderr, and is a miss. A hit marks the
  /// entry as recently used.
  std::optional<CacheEntry> load(const CacheKey &key);

  /// Stores `entry` (an encode()d entry) under `key`, atomically. A
  /// failure (an unwritable directory, a full disk) is no error for the
  /// caller: the first one is warned about on stderr and the process goes
  /// on without storing in this directory. May evict old entries.
  void store(const CacheKey &key, llvm::StringRef entry);

  /// Removes the entry of `key`, which loaded but proved unusable (e.g. it
  /// does not link), with the warning of load().
  void reject(const CacheKey &key, llvm::StringRef reason);

  /// Removes least recently used entries (and temporary files that
  /// crashed writers left) until the entries take at most `limit` bytes;
  /// the bytes the entries take afterwards.
  uint64_t evict(uint64_t limit);

  /// The cap store() keeps the directory under.
  uint64_t maxBytes() const { return maxBytes_.load(); }
  void setMaxBytes(uint64_t bytes) { maxBytes_ = bytes; }

  /// Counts of this process's operations on this directory.
  struct Stats {
    uint64_t hits = 0, misses = 0, rejected = 0, stores = 0, evicted = 0;
  };
  Stats stats() const;

  /// The bytes of an entry holding `objects` and `notes` under `key`.
  static std::string encode(const CacheKey &key,
                            llvm::ArrayRef<llvm::MemoryBufferRef> objects,
                            llvm::StringRef notes = {});
  /// The entry `data`, checked to be an entry of `key`; the error says
  /// what is wrong with it.
  static llvm::Expected<CacheEntry> decode(const CacheKey &key,
                                           llvm::StringRef data);

private:
  explicit CompileCache(std::string directory);
  void warnOnce(const llvm::Twine &message);
  void warnCorrupt(llvm::StringRef path, llvm::StringRef reason);

  std::string directory_;
  std::atomic<uint64_t> maxBytes_;
  std::atomic<uint64_t> hits_{0}, misses_{0}, rejected_{0}, stores_{0},
      evicted_{0};
  std::mutex mutex_; // guards the members below
  bool unwritable_ = false;
  bool warned_ = false;
  /// The entries' total size as last scanned plus what this process stored
  /// since; unknown before the first store.
  std::optional<uint64_t> estimatedBytes_;
};

} // namespace fnc::jit

#endif // FNC_JIT_COMPILECACHE_H
