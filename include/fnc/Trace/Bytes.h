//===- Bytes.h - Values written to and read from bytes ----------*- C++ -*-===//
//
// Internal to fnc. The byte form of what lib/Trace keeps in compile-cache
// entries and keys: fixed-size little-endian integers, and lengths before
// sequences, so that no two different sequences of values write the same
// bytes. ByteReader reads them back checked: a read past the end, or a
// length that the bytes left cannot hold, fails (and every later read),
// never reads outside the bytes.
//
//===----------------------------------------------------------------------===//

#ifndef FNC_TRACE_BYTES_H
#define FNC_TRACE_BYTES_H

#include "fnc/DType.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Endian.h"

#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

namespace fnc::trace {

class ByteWriter {
public:
  std::string bytes;

  void tag(char c) { bytes += c; }
  void i64(int64_t v) {
    char b[8];
    llvm::support::endian::write64le(b, static_cast<uint64_t>(v));
    bytes.append(b, 8);
  }
  void f64(double v) {
    uint64_t bits;
    std::memcpy(&bits, &v, 8);
    i64(static_cast<int64_t>(bits));
  }
  void flag(bool v) { bytes += v ? '\1' : '\0'; }
  void dtype(DType d) { i64(static_cast<int64_t>(d)); }
  void str(llvm::StringRef s) {
    i64(static_cast<int64_t>(s.size()));
    bytes.append(s.data(), s.size());
  }
  void ints(const std::vector<int64_t> &v) {
    i64(static_cast<int64_t>(v.size()));
    for (int64_t x : v)
      i64(x);
  }
  void flags(const std::vector<bool> &v) {
    i64(static_cast<int64_t>(v.size()));
    for (bool x : v)
      flag(x);
  }
  template <typename Enum> void kind(Enum e) {
    static_assert(std::is_enum_v<Enum>);
    i64(static_cast<int64_t>(e));
  }
};

class ByteReader {
public:
  explicit ByteReader(llvm::StringRef bytes) : rest_(bytes) {}

  /// False once a read failed.
  bool ok() const { return ok_; }
  /// True if every byte was read and every read succeeded.
  bool done() const { return ok_ && rest_.empty(); }

  bool tag(char c) { return take(1) == llvm::StringRef(&c, 1) || fail(); }
  int64_t i64() {
    llvm::StringRef b = take(8);
    return b.size() == 8
               ? static_cast<int64_t>(llvm::support::endian::read64le(b.data()))
               : 0;
  }
  bool flag() {
    llvm::StringRef b = take(1);
    if (b.size() == 1 && (b[0] == 0 || b[0] == 1))
      return b[0] == 1;
    fail();
    return false;
  }
  DType dtype() {
    int64_t d = i64();
    if (d < 0 || d > static_cast<int64_t>(DType::i64))
      fail();
    return ok_ ? static_cast<DType>(d) : DType::f32;
  }
  /// A length written before `elementSize`-byte elements.
  size_t count(size_t elementSize) {
    int64_t n = i64();
    if (n < 0 || static_cast<uint64_t>(n) > rest_.size() / elementSize)
      return fail(), 0;
    return static_cast<size_t>(n);
  }
  std::string str() { return take(count(1)).str(); }
  std::vector<int64_t> ints() {
    std::vector<int64_t> v(count(8));
    for (int64_t &x : v)
      x = i64();
    return v;
  }

private:
  llvm::StringRef take(size_t n) {
    if (!ok_ || n > rest_.size()) {
      fail();
      return {};
    }
    llvm::StringRef b = rest_.take_front(n);
    rest_ = rest_.drop_front(n);
    return b;
  }
  bool fail() {
    ok_ = false;
    return false;
  }

  llvm::StringRef rest_;
  bool ok_ = true;
};

} // namespace fnc::trace

#endif // FNC_TRACE_BYTES_H
