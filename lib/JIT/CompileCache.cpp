//===- CompileCache.cpp - The persistent on-disk cache of object code -----===//
//
// Keys, the entry format, loading with validation, atomic stores and LRU
// eviction of the compile cache (see CompileCache.h and docs/Cache.md).
//
// An entry file, all integers little-endian:
//
//   offset 0        8 bytes   magic "FNCCACHE"
//   offset 8        u32       format version (kCacheFormatVersion)
//   offset 12       32 bytes  the key
//   offset 44       u32       n, the number of object files
//   offset 48       n x u64   their sizes
//   offset 48 + 8n            the object files, back to back
//   last 8 bytes    u64       xxh3-64 of everything before it
//
//===----------------------------------------------------------------------===//

#include "fnc/JIT/CompileCache.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/xxhash.h"
#include "llvm/TargetParser/Host.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <link.h>
#include <unistd.h>

using namespace fnc::jit;
namespace fs = llvm::sys::fs;

//===----------------------------------------------------------------------===//
// Keys
//===----------------------------------------------------------------------===//

std::string CacheKey::hex() const { return llvm::toHex(bytes, true); }

CacheKeyBuilder::CacheKeyBuilder() {
  add("fnc-cache-format", std::to_string(kCacheFormatVersion));
}

static void addLength(llvm::BLAKE3 &hasher, uint64_t n) {
  uint8_t bytes[8];
  llvm::support::endian::write64le(bytes, n);
  hasher.update(llvm::ArrayRef<uint8_t>(bytes));
}

void CacheKeyBuilder::add(llvm::StringRef name, llvm::StringRef value) {
  addLength(hasher_, name.size());
  hasher_.update(name);
  addLength(hasher_, value.size());
  hasher_.update(value);
}

namespace {
/// A stream that hashes what is written to it and counts the bytes.
class HashingStream : public llvm::raw_ostream {
public:
  HashingStream() { SetUnbuffered(); }
  llvm::BLAKE3 hasher;
  uint64_t bytes = 0;

private:
  void write_impl(const char *data, size_t size) override {
    hasher.update(llvm::StringRef(data, size));
    bytes += size;
  }
  uint64_t current_pos() const override { return bytes; }
};
} // namespace

void CacheKeyBuilder::addStreamed(
    llvm::StringRef name, llvm::function_ref<void(llvm::raw_ostream &)> write) {
  // The value's digest and length stand for it: hashing it twice over keeps
  // the parts length-prefixed without holding the text.
  HashingStream stream;
  write(stream);
  stream.flush();
  llvm::BLAKE3Result<32> digest = stream.hasher.final();
  add(name, llvm::toStringRef(llvm::ArrayRef<uint8_t>(digest)).str() + ":" +
                std::to_string(stream.bytes));
}

CacheKey CacheKeyBuilder::finish() {
  CacheKey key;
  key.bytes = hasher_.final();
  return key;
}

/// The GNU build id of the loaded object (executable or shared library)
/// that holds this function, or its file's size and mtime where it has no
/// build id; a value unique to the process where neither is known, so that
/// no other build's code is ever reused.
static std::string buildIdentity() {
  struct Search {
    uintptr_t address = 0;
    bool found = false;
    std::string buildId;
    std::string file;
  } search;
  search.address = reinterpret_cast<uintptr_t>(&buildIdentity);
  dl_iterate_phdr(
      [](dl_phdr_info *info, size_t, void *data) -> int {
        auto *s = static_cast<Search *>(data);
        bool contains = false;
        for (int i = 0; i < info->dlpi_phnum; ++i) {
          const ElfW(Phdr) &ph = info->dlpi_phdr[i];
          uintptr_t begin = info->dlpi_addr + ph.p_vaddr;
          if (ph.p_type == PT_LOAD && s->address >= begin &&
              s->address < begin + ph.p_memsz)
            contains = true;
        }
        if (!contains)
          return 0;
        s->found = true;
        s->file = info->dlpi_name ? info->dlpi_name : "";
        for (int i = 0; i < info->dlpi_phnum && s->buildId.empty(); ++i) {
          const ElfW(Phdr) &ph = info->dlpi_phdr[i];
          if (ph.p_type != PT_NOTE)
            continue;
          const char *p =
              reinterpret_cast<const char *>(info->dlpi_addr + ph.p_vaddr);
          const char *end = p + ph.p_memsz;
          while (p + sizeof(ElfW(Nhdr)) <= end) {
            ElfW(Nhdr) note;
            std::memcpy(&note, p, sizeof(note));
            const char *name = p + sizeof(note);
            const char *desc = name + ((note.n_namesz + 3) & ~3u);
            const char *next = desc + ((note.n_descsz + 3) & ~3u);
            if (next > end)
              break;
            if (note.n_type == NT_GNU_BUILD_ID && note.n_namesz == 4 &&
                std::memcmp(name, "GNU", 4) == 0) {
              s->buildId = llvm::toHex(llvm::StringRef(desc, note.n_descsz),
                                       /*LowerCase=*/true);
              break;
            }
            p = next;
          }
        }
        return 1;
      },
      &search);
  if (!search.buildId.empty())
    return "build-id:" + search.buildId;
  std::string file = search.file.empty() ? "/proc/self/exe" : search.file;
  fs::file_status status;
  if (search.found && !fs::status(file, status))
    return "file:" + std::to_string(status.getSize()) + ":" +
           std::to_string(
               status.getLastModificationTime().time_since_epoch().count());
  return "process:" + std::to_string(::getpid()) + ":" +
         std::to_string(
             std::chrono::steady_clock::now().time_since_epoch().count());
}

const CacheTarget &CacheTarget::host() {
  static const CacheTarget target = [] {
    CacheTarget t;
    t.triple = llvm::sys::getProcessTriple();
    t.cpu = llvm::sys::getHostCPUName().str();
    // Sorted: the key must not depend on a map's iteration order.
    std::vector<std::string> features;
    for (const auto &feature : llvm::sys::getHostCPUFeatures())
      features.push_back((feature.second ? "+" : "-") + feature.first().str());
    std::sort(features.begin(), features.end());
    t.features = llvm::join(features, ",");
    t.llvmVersion = LLVM_VERSION_STRING;
    t.fncBuild = buildIdentity();
    return t;
  }();
  return target;
}

void CacheTarget::addTo(CacheKeyBuilder &key) const {
  key.add("triple", triple);
  key.add("cpu", cpu);
  key.add("features", features);
  key.add("llvm", llvmVersion);
  key.add("fnc-build", fncBuild);
}

//===----------------------------------------------------------------------===//
// The entry format
//===----------------------------------------------------------------------===//

static constexpr char kMagic[8] = {'F', 'N', 'C', 'C', 'A', 'C', 'H', 'E'};
static constexpr size_t kKeyOffset = 12;
static constexpr size_t kCountOffset = 44;
static constexpr size_t kSizesOffset = 48;
/// More object files than this in one entry is a corrupt count (a module is
/// compiled in at most a few parts).
static constexpr uint32_t kMaxObjects = 1024;

static void appendLE32(std::string &out, uint32_t v) {
  char bytes[4];
  llvm::support::endian::write32le(bytes, v);
  out.append(bytes, 4);
}

static void appendLE64(std::string &out, uint64_t v) {
  char bytes[8];
  llvm::support::endian::write64le(bytes, v);
  out.append(bytes, 8);
}

std::string CompileCache::encode(const CacheKey &key,
                                 llvm::ArrayRef<llvm::MemoryBufferRef> objects,
                                 llvm::StringRef notes) {
  std::string out;
  size_t payload = notes.size();
  for (const llvm::MemoryBufferRef &object : objects)
    payload += object.getBufferSize();
  out.reserve(kSizesOffset + 8 * objects.size() + 8 + payload + 8);
  out.append(kMagic, sizeof(kMagic));
  appendLE32(out, kCacheFormatVersion);
  out.append(reinterpret_cast<const char *>(key.bytes.data()),
             key.bytes.size());
  appendLE32(out, static_cast<uint32_t>(objects.size()));
  for (const llvm::MemoryBufferRef &object : objects)
    appendLE64(out, object.getBufferSize());
  appendLE64(out, notes.size());
  for (const llvm::MemoryBufferRef &object : objects)
    out.append(object.getBufferStart(), object.getBufferSize());
  out.append(notes.data(), notes.size());
  appendLE64(out, llvm::xxh3_64bits(llvm::StringRef(out)));
  return out;
}

static llvm::Error corrupt(const llvm::Twine &reason) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), reason);
}

llvm::Expected<CacheEntry> CompileCache::decode(const CacheKey &key,
                                                llvm::StringRef data) {
  using llvm::support::endian::read32le;
  using llvm::support::endian::read64le;
  if (data.size() < kSizesOffset + 8)
    return corrupt("truncated: " + llvm::Twine(data.size()) +
                   " bytes, shorter than a header");
  if (std::memcmp(data.data(), kMagic, sizeof(kMagic)) != 0)
    return corrupt("not a compile-cache entry: bad magic number");
  uint32_t version = read32le(data.data() + 8);
  if (version != kCacheFormatVersion)
    return corrupt("format version " + llvm::Twine(version) +
                   ", this fnc reads version " +
                   llvm::Twine(kCacheFormatVersion));
  if (std::memcmp(data.data() + kKeyOffset, key.bytes.data(),
                  key.bytes.size()) != 0)
    return corrupt("it holds the entry of another key");
  uint32_t count = read32le(data.data() + kCountOffset);
  if (count == 0 || count > kMaxObjects)
    return corrupt("bad object count " + llvm::Twine(count));
  // The sizes of the objects, then of the notes.
  uint64_t headerSize = kSizesOffset + uint64_t(8) * (count + 1);
  if (data.size() < headerSize + 8)
    return corrupt("truncated: " + llvm::Twine(data.size()) +
                   " bytes, shorter than its header");
  uint64_t available = data.size() - headerSize - 8;
  uint64_t payload = 0;
  for (uint32_t i = 0; i <= count; ++i) {
    uint64_t size = read64le(data.data() + kSizesOffset + 8 * i);
    if (size > available - payload)
      return corrupt("truncated: " + llvm::Twine(data.size()) +
                     " bytes, its objects need more");
    payload += size;
  }
  if (payload != available)
    return corrupt(llvm::Twine(available - payload) +
                   " bytes more than its objects need");
  uint64_t checksum = read64le(data.data() + data.size() - 8);
  if (llvm::xxh3_64bits(data.drop_back(8)) != checksum)
    return corrupt("checksum mismatch");
  CacheEntry entry;
  const char *p = data.data() + headerSize;
  for (uint32_t i = 0; i < count; ++i) {
    uint64_t size = read64le(data.data() + kSizesOffset + 8 * i);
    entry.objects.push_back(llvm::MemoryBuffer::getMemBufferCopy(
        llvm::StringRef(p, size), "fnc-cache-object"));
    p += size;
  }
  entry.notes.assign(p, read64le(data.data() + kSizesOffset + 8 * count));
  return entry;
}

//===----------------------------------------------------------------------===//
// The directory
//===----------------------------------------------------------------------===//

std::optional<std::string> CompileCache::directoryFromEnvironment() {
  if (const char *dir = std::getenv("FNC_CACHE_DIR")) {
    if (!*dir)
      return std::nullopt;
    return std::string(dir);
  }
  llvm::SmallString<256> path;
  const char *xdg = std::getenv("XDG_CACHE_HOME");
  const char *home = std::getenv("HOME");
  // The XDG base directory spec ignores a relative XDG_CACHE_HOME.
  if (xdg && *xdg && llvm::sys::path::is_absolute(xdg))
    llvm::sys::path::append(path, xdg, "fnc");
  else if (home && *home)
    llvm::sys::path::append(path, home, ".cache", "fnc");
  else
    return std::nullopt;
  return std::string(path);
}

/// The cap from FNC_CACHE_MAX_BYTES (a number of bytes), else the default.
static uint64_t maxBytesFromEnvironment() {
  const char *value = std::getenv("FNC_CACHE_MAX_BYTES");
  if (!value || !*value)
    return CompileCache::kDefaultMaxBytes;
  uint64_t bytes = 0;
  if (llvm::StringRef(value).trim().getAsInteger(10, bytes)) {
    static std::once_flag once;
    std::call_once(once, [&] {
      llvm::errs() << "fnc: FNC_CACHE_MAX_BYTES='" << value
                   << "' is not a number of bytes; the compile cache keeps "
                      "the default cap of 512 MiB\n";
    });
    return CompileCache::kDefaultMaxBytes;
  }
  return bytes;
}

CompileCache::CompileCache(std::string directory)
    : directory_(std::move(directory)), maxBytes_(maxBytesFromEnvironment()) {}

CompileCache *CompileCache::get(const CacheDirectory &choice) {
  std::optional<std::string> dir =
      choice ? std::optional<std::string>(*choice) : directoryFromEnvironment();
  if (!dir || dir->empty())
    return nullptr;
  llvm::SmallString<256> path(*dir);
  // Relative to the directory the process was in when it first asked.
  (void)fs::make_absolute(path);
  llvm::sys::path::remove_dots(path, /*remove_dot_dot=*/true);
  static std::mutex mutex;
  // Never destroyed: a compilation may run during static destruction.
  static auto *caches = new llvm::StringMap<std::unique_ptr<CompileCache>>();
  std::lock_guard<std::mutex> lock(mutex);
  std::unique_ptr<CompileCache> &cache = (*caches)[path];
  if (!cache)
    cache.reset(new CompileCache(std::string(path)));
  return cache.get();
}

std::string CompileCache::pathOf(const CacheKey &key) const {
  llvm::SmallString<256> path(directory_);
  llvm::sys::path::append(path, key.hex() + kEntrySuffix);
  return std::string(path);
}

CompileCache::Stats CompileCache::stats() const {
  Stats s;
  s.hits = hits_;
  s.misses = misses_;
  s.rejected = rejected_;
  s.stores = stores_;
  s.evicted = evicted_;
  return s;
}

void CompileCache::warnCorrupt(llvm::StringRef path, llvm::StringRef reason) {
  llvm::errs() << "fnc: ignoring a corrupt compile-cache entry " << path << " ("
               << reason << "); recompiling\n";
}

void CompileCache::warnOnce(const llvm::Twine &message) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    unwritable_ = true;
    if (warned_)
      return;
    warned_ = true;
  }
  llvm::errs() << "fnc: cannot write the compile cache in " << directory_
               << " (" << message
               << "); going on without storing compiled code\n";
}

std::optional<CacheEntry> CompileCache::load(const CacheKey &key) {
  std::string path = pathOf(key);
  int fd = -1;
  // No entry, no directory, or one this process may not read: a miss (a
  // store may still replace an unreadable entry).
  if (fs::openFileForRead(path, fd)) {
    ++misses_;
    return std::nullopt;
  }
  // Read, not mapped: a file changed under a mapping would fault.
  auto data = llvm::MemoryBuffer::getOpenFile(
      fs::convertFDToNativeFile(fd), path, /*FileSize=*/-1,
      /*RequiresNullTerminator=*/false, /*IsVolatile=*/true);
  std::optional<CacheEntry> result;
  std::string reason;
  if (!data) {
    reason = "cannot read it: " + data.getError().message();
  } else if (auto entry = decode(key, (*data)->getBuffer())) {
    result = std::move(*entry);
    // The entry is used: it is the last that eviction removes.
    (void)fs::setLastAccessAndModificationTime(
        fd, std::chrono::system_clock::now());
  } else {
    reason = llvm::toString(entry.takeError());
  }
  ::close(fd);
  if (result) {
    ++hits_;
    return result;
  }
  ++misses_;
  ++rejected_;
  warnCorrupt(path, reason);
  (void)fs::remove(path);
  return std::nullopt;
}

void CompileCache::reject(const CacheKey &key, llvm::StringRef reason) {
  std::string path = pathOf(key);
  ++rejected_;
  warnCorrupt(path, reason);
  (void)fs::remove(path);
}

void CompileCache::store(const CacheKey &key, llvm::StringRef entry) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (unwritable_)
      return;
  }
  // Private to its owner: whoever can write it can make fnc run their code.
  if (std::error_code ec = fs::create_directories(
          directory_, /*IgnoreExisting=*/true, fs::perms::owner_all)) {
    warnOnce("cannot create the directory: " + ec.message());
    return;
  }
  // A temporary file of its own in the same directory, renamed over the
  // entry: readers see the old entry, no entry, or the whole new one.
  int fd = -1;
  llvm::SmallString<256> temp;
  std::string model = pathOf(key) + ".%%%%%%%%.tmp";
  if (std::error_code ec = fs::createUniqueFile(model, fd, temp)) {
    warnOnce(ec.message());
    return;
  }
  {
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    os << entry;
    os.close();
    if (os.has_error()) {
      std::string message = os.error().message();
      os.clear_error();
      (void)fs::remove(temp);
      warnOnce(message);
      return;
    }
  }
  if (std::error_code ec = fs::rename(temp, pathOf(key))) {
    (void)fs::remove(temp);
    warnOnce(ec.message());
    return;
  }
  ++stores_;

  // The directory is scanned at the first store of the process and when
  // what this process stored since takes the estimate above the cap:
  // never on a hit. Eviction goes to 90% of the cap so that the next
  // stores do not scan again.
  uint64_t cap = maxBytes();
  std::lock_guard<std::mutex> lock(mutex_);
  if (!estimatedBytes_)
    estimatedBytes_ = evict(std::numeric_limits<uint64_t>::max());
  else
    *estimatedBytes_ += entry.size();
  if (*estimatedBytes_ > cap)
    estimatedBytes_ = evict(cap - cap / 10);
}

uint64_t CompileCache::evict(uint64_t limit) {
  struct File {
    std::chrono::system_clock::time_point used;
    uint64_t size;
    std::string path;
  };
  std::vector<File> entries;
  uint64_t total = 0;
  auto now = std::chrono::system_clock::now();
  std::error_code ec;
  for (fs::directory_iterator it(directory_, ec), end; it != end && !ec;
       it.increment(ec)) {
    llvm::StringRef name = llvm::sys::path::filename(it->path());
    bool isEntry = name.ends_with(kEntrySuffix);
    bool isTemp = name.ends_with(".tmp");
    if (!isEntry && !isTemp)
      continue;
    fs::file_status status;
    if (fs::status(it->path(), status) || !fs::is_regular_file(status))
      continue;
    if (isTemp) {
      // A writer renames its file within milliseconds; one an hour old
      // belongs to a process that died.
      if (now - status.getLastModificationTime() > std::chrono::hours(1))
        (void)fs::remove(it->path());
      continue;
    }
    entries.push_back(
        {status.getLastModificationTime(), status.getSize(), it->path()});
    total += status.getSize();
  }
  std::sort(entries.begin(), entries.end(),
            [](const File &a, const File &b) { return a.used < b.used; });
  for (const File &file : entries) {
    if (total <= limit)
      break;
    if (!fs::remove(file.path)) {
      total -= file.size;
      ++evicted_;
    }
  }
  return total;
}
