//===- Npy.cpp - The .npy format: headers and element conversion ----------===//
//
// Parses and writes the preamble and header dict of numpy's .npy format and
// converts stored elements to fnc's dtypes. The header is parsed as the
// Python literal it is (a dict of three keys: a string, a bool and a tuple
// of integers), strictly: anything else is a malformed header, never a
// guess. Nothing here throws (see fnc/IO/Npy.h).
//
//===----------------------------------------------------------------------===//

#include "fnc/IO/Npy.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <new>

using namespace fnc;
using namespace fnc::io;

namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicBytes = 6;

constexpr bool kHostLittleEndian = __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__;

/// Little-endian unsigned integer of `n` bytes at `p`.
uint64_t readLE(const char *p, unsigned n) {
  uint64_t v = 0;
  for (unsigned i = 0; i < n; ++i)
    v |= static_cast<uint64_t>(static_cast<uint8_t>(p[i])) << (8 * i);
  return v;
}

/// `text` with non-printable characters escaped, cut at 160 characters, for
/// messages about corrupt headers.
std::string printable(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (out.size() >= 160) {
      out += "...";
      break;
    }
    unsigned char u = static_cast<unsigned char>(c);
    if (u >= 0x20 && u < 0x7f) {
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else {
      static const char kHex[] = "0123456789abcdef";
      out += "\\x";
      out += kHex[u >> 4];
      out += kHex[u & 15];
    }
  }
  return out;
}

/// `(2, 3)`, `(3,)`, `()`: a shape as Python prints a tuple.
std::string tupleText(const std::vector<int64_t> &shape) {
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i)
    s += (i ? ", " : "") + std::to_string(shape[i]);
  if (shape.size() == 1)
    s += ",";
  return s + ")";
}

/// A value of the header dict.
struct HeaderValue {
  enum Kind { String, Bool, Tuple } kind = String;
  std::string text;
  bool flag = false;
  std::vector<int64_t> dims;
  bool overflow = false; // a dim above INT64_MAX
};

/// A recursive-descent parser of the header dict literal.
class HeaderParser {
public:
  explicit HeaderParser(std::string_view text) : text_(text) {}

  /// Parses `{key: value, ...}` followed by whitespace; "" or the error.
  std::string parse(std::vector<std::pair<std::string, HeaderValue>> &out) {
    skipSpace();
    if (!eat('{'))
      return expected("'{'");
    while (true) {
      skipSpace();
      if (eat('}'))
        break;
      std::string key;
      if (!parseString(key))
        return expected("a quoted key");
      skipSpace();
      if (!eat(':'))
        return expected("':'");
      skipSpace();
      HeaderValue value;
      if (std::string e = parseValue(value); !e.empty())
        return e;
      out.emplace_back(std::move(key), std::move(value));
      skipSpace();
      if (eat('}'))
        break;
      if (!eat(','))
        return expected("',' or '}'");
    }
    skipSpace();
    if (pos_ != text_.size())
      return expected("the end of the header");
    return "";
  }

private:
  std::string expected(const char *what) const {
    return std::string("expected ") + what + " at offset " +
           std::to_string(pos_);
  }
  void skipSpace() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t' ||
                                   text_[pos_] == '\n' || text_[pos_] == '\r'))
      ++pos_;
  }
  bool eat(char c) {
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  bool eatWord(std::string_view w) {
    if (text_.substr(pos_, w.size()) == w) {
      pos_ += w.size();
      return true;
    }
    return false;
  }
  bool parseString(std::string &out) {
    if (pos_ >= text_.size() || (text_[pos_] != '\'' && text_[pos_] != '"'))
      return false;
    char quote = text_[pos_++];
    size_t end = text_.find(quote, pos_);
    if (end == std::string_view::npos)
      return false;
    out = std::string(text_.substr(pos_, end - pos_));
    if (out.find('\\') != std::string::npos)
      return false; // no escapes in numpy's keys and type strings
    pos_ = end + 1;
    return true;
  }
  std::string parseValue(HeaderValue &v) {
    if (pos_ < text_.size() && (text_[pos_] == '\'' || text_[pos_] == '"')) {
      v.kind = HeaderValue::String;
      return parseString(v.text) ? "" : expected("a closed string");
    }
    if (eatWord("True") || eatWord("False")) {
      v.kind = HeaderValue::Bool;
      v.flag = text_.substr(pos_ - 4, 4) == "True";
      return "";
    }
    if (pos_ < text_.size() && text_[pos_] == '[') {
      v.kind = HeaderValue::String;
      v.text = "[";
      // A list descr (a structured dtype): skip to the matching ']'.
      int depth = 0;
      for (; pos_ < text_.size(); ++pos_) {
        depth += text_[pos_] == '[';
        depth -= text_[pos_] == ']';
        if (depth == 0)
          break;
      }
      if (!eat(']'))
        return expected("']'");
      return "";
    }
    if (!eat('('))
      return expected("a string, True, False or a tuple");
    v.kind = HeaderValue::Tuple;
    while (true) {
      skipSpace();
      if (eat(')'))
        return "";
      if (pos_ >= text_.size() || text_[pos_] < '0' || text_[pos_] > '9')
        return expected("a non-negative integer in the shape");
      uint64_t d = 0;
      while (pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9') {
        unsigned digit = text_[pos_++] - '0';
        if (d > (std::numeric_limits<uint64_t>::max() - digit) / 10)
          v.overflow = true;
        else
          d = d * 10 + digit;
      }
      eat('L'); // Python 2's long literals
      if (d > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
        v.overflow = true;
      v.dims.push_back(v.overflow ? 0 : static_cast<int64_t>(d));
      skipSpace();
      if (eat(')'))
        return "";
      if (!eat(','))
        return expected("',' or ')' in the shape");
    }
  }

  std::string_view text_;
  size_t pos_ = 0;
};

/// Fills the element fields of `h` from a descr like "<f4". "" or the
/// error.
std::string parseDescr(const std::string &descr, NpyHeader &h) {
  std::string unsupported =
      "unsupported .npy dtype '" + printable(descr) +
      "' (supported: f4 f8 b1 i4 i8, and u1 i1 u2 i2 as int32, u4 as int64, "
      "U and S as strings; convert the array with astype)";
  if (descr == "[")
    return "unsupported .npy dtype: a structured array (save each field "
           "as an array of its own)";
  if (descr.size() < 3)
    return unsupported;
  char order = descr[0], kind = descr[1];
  std::string size = descr.substr(2);
  bool big;
  if (order == '<' || order == '|')
    big = false;
  else if (order == '>')
    big = true;
  else if (order == '=')
    big = !kHostLittleEndian;
  else
    return unsupported;
  h.isInteger = kind == 'i' || kind == 'u';
  h.isUnsigned = kind == 'u';
  if (kind == 'U' || kind == 'S') {
    // numpy's fixed-width strings: n UTF-32 code units, or n bytes, padded
    // with NULs.
    if (size.empty() || size.size() > 9 ||
        size.find_first_not_of("0123456789") != std::string::npos)
      return unsupported;
    unsigned n = static_cast<unsigned>(std::stoul(size));
    h.dtype = DType::str;
    h.unicode = kind == 'U';
    h.elementBytes = h.unicode ? 4 * n : n;
    h.swapBytes = h.unicode && big == kHostLittleEndian;
    return "";
  }
  if (kind == 'f' && size == "4")
    h.dtype = DType::f32, h.elementBytes = 4;
  else if (kind == 'f' && size == "8")
    h.dtype = DType::f64, h.elementBytes = 8;
  else if (kind == 'b' && size == "1")
    h.dtype = DType::i1, h.elementBytes = 1;
  else if (kind == 'i' && size == "4")
    h.dtype = DType::i32, h.elementBytes = 4;
  else if (kind == 'i' && size == "8")
    h.dtype = DType::i64, h.elementBytes = 8;
  else if ((kind == 'i' || kind == 'u') && (size == "1" || size == "2"))
    h.dtype = DType::i32, h.elementBytes = size == "1" ? 1 : 2;
  else if (kind == 'u' && size == "4")
    h.dtype = DType::i64, h.elementBytes = 4;
  else
    return unsupported;
  h.swapBytes = h.elementBytes > 1 && big == kHostLittleEndian;
  return "";
}

/// Loads the element at `p` (h.elementBytes, file byte order) as the low
/// bytes of a host integer.
inline uint64_t loadRaw(const NpyHeader &h, const unsigned char *p) {
  uint64_t v = 0;
  unsigned n = h.elementBytes;
  // Assemble in the file's byte order.
  bool little = kHostLittleEndian != h.swapBytes;
  for (unsigned i = 0; i < n; ++i)
    v |= static_cast<uint64_t>(p[little ? i : n - 1 - i]) << (8 * i);
  return v;
}

/// Stores element `raw` (from loadRaw) as one element of h.dtype at `dst`.
inline void storeElement(const NpyHeader &h, uint64_t raw, unsigned char *dst) {
  switch (h.dtype) {
  case DType::f32: {
    uint32_t bits = static_cast<uint32_t>(raw);
    std::memcpy(dst, &bits, 4);
    return;
  }
  case DType::f64:
    std::memcpy(dst, &raw, 8);
    return;
  case DType::i1:
    *dst = raw != 0;
    return;
  case DType::str: // decodeStrings
    return;
  case DType::i32:
  case DType::i64: {
    unsigned bits = 8 * h.elementBytes;
    int64_t v;
    if (h.isUnsigned || bits == 64)
      v = static_cast<int64_t>(raw);
    else // sign-extend
      v = static_cast<int64_t>(raw << (64 - bits)) >> (64 - bits);
    if (h.dtype == DType::i32) {
      int32_t w = static_cast<int32_t>(v);
      std::memcpy(dst, &w, 4);
    } else {
      std::memcpy(dst, &v, 8);
    }
    return;
  }
  }
}

/// Appends code point `c` to `out` as UTF-8 (U+FFFD for a surrogate or a
/// value past U+10FFFF).
void appendUtf8(uint32_t c, std::string &out) {
  if ((c >= 0xd800 && c < 0xe000) || c > 0x10ffff)
    c = 0xfffd;
  if (c < 0x80) {
    out += static_cast<char>(c);
  } else if (c < 0x800) {
    out += static_cast<char>(0xc0 | c >> 6);
    out += static_cast<char>(0x80 | (c & 0x3f));
  } else if (c < 0x10000) {
    out += static_cast<char>(0xe0 | c >> 12);
    out += static_cast<char>(0x80 | ((c >> 6) & 0x3f));
    out += static_cast<char>(0x80 | (c & 0x3f));
  } else {
    out += static_cast<char>(0xf0 | c >> 18);
    out += static_cast<char>(0x80 | ((c >> 12) & 0x3f));
    out += static_cast<char>(0x80 | ((c >> 6) & 0x3f));
    out += static_cast<char>(0x80 | (c & 0x3f));
  }
}

/// The code points of UTF-8 `s`; false if it is not valid UTF-8.
bool utf32Of(const std::string &s, std::vector<uint32_t> &out) {
  out.clear();
  for (size_t i = 0; i < s.size();) {
    unsigned char c = s[i];
    size_t n = c < 0x80         ? 1
               : (c >> 5) == 6  ? 2
               : (c >> 4) == 14 ? 3
               : (c >> 3) == 30 ? 4
                                : 0;
    if (n == 0 || i + n > s.size())
      return false;
    uint32_t v = n == 1 ? c : c & (0x7f >> n);
    for (size_t k = 1; k < n; ++k) {
      unsigned char d = s[i + k];
      if ((d >> 6) != 2)
        return false;
      v = v << 6 | (d & 0x3f);
    }
    static const uint32_t kMin[] = {0, 0, 0x80, 0x800, 0x10000};
    if (v < kMin[n] || v > 0x10ffff || (v >= 0xd800 && v < 0xe000))
      return false; // overlong, out of range or a surrogate
    out.push_back(v);
    i += n;
  }
  return true;
}

/// One stored string element at `p` as a std::string: UTF-32 to UTF-8, or
/// the bytes, without the NUL padding.
std::string decodeString(const NpyHeader &h, const unsigned char *p) {
  std::string s;
  if (!h.unicode) {
    size_t n = h.elementBytes;
    while (n > 0 && p[n - 1] == 0)
      --n;
    return std::string(reinterpret_cast<const char *>(p), n);
  }
  size_t units = h.elementBytes / 4;
  bool little = kHostLittleEndian != h.swapBytes;
  std::vector<uint32_t> code(units);
  for (size_t i = 0; i < units; ++i) {
    const unsigned char *q = p + 4 * i;
    code[i] = little ? uint32_t(q[0]) | uint32_t(q[1]) << 8 |
                           uint32_t(q[2]) << 16 | uint32_t(q[3]) << 24
                     : uint32_t(q[3]) | uint32_t(q[2]) << 8 |
                           uint32_t(q[1]) << 16 | uint32_t(q[0]) << 24;
  }
  while (!code.empty() && code.back() == 0)
    code.pop_back();
  for (uint32_t c : code)
    appendUtf8(c, s);
  return s;
}

} // namespace

int64_t NpyHeader::numElements() const {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

uint64_t NpyHeader::tensorBytes() const {
  return static_cast<uint64_t>(numElements()) * sizeOf(dtype);
}

std::string fnc::io::npySizeError(uint64_t expected, uint64_t found) {
  if (found < expected)
    return "truncated .npy data: expected " + std::to_string(expected) +
           " bytes, found " + std::to_string(found);
  return "wrong .npy size: the header says " + std::to_string(expected) +
         " bytes of data, found " + std::to_string(found);
}

bool NpyHeader::verbatim() const {
  return elementBytes == sizeOf(dtype) && !swapBytes && dtype != DType::i1 &&
         dtype != DType::str && (!fortranOrder || shape.size() < 2);
}

std::string fnc::io::parseNpyPreamble(const char *data, size_t size,
                                      uint64_t &headerEnd) noexcept {
  if (size == 0)
    return "truncated .npy header (the file is empty)";
  if (std::memcmp(data, kMagic, size < kMagicBytes ? size : kMagicBytes) != 0)
    return "not a .npy file (bad magic)";
  if (size < 10)
    return "truncated .npy header";
  unsigned major = static_cast<uint8_t>(data[6]);
  uint64_t length, start;
  if (major == 1) {
    length = readLE(data + 8, 2);
    start = 10;
  } else if (major == 2 || major == 3) {
    if (size < 12)
      return "truncated .npy header";
    length = readLE(data + 8, 4);
    start = 12;
  } else {
    return "unsupported .npy version " + std::to_string(major);
  }
  if (length > kMaxNpyHeaderBytes)
    return "the .npy header is too large (" + std::to_string(length) +
           " bytes; at most " + std::to_string(kMaxNpyHeaderBytes) + ")";
  headerEnd = start + length;
  return "";
}

std::string fnc::io::parseNpyHeader(const char *data, size_t size,
                                    NpyHeader &out) noexcept {
  try {
    uint64_t headerEnd = 0;
    if (std::string e = parseNpyPreamble(data, size, headerEnd); !e.empty())
      return e;
    if (size < headerEnd)
      return "truncated .npy header";
    size_t start = static_cast<uint8_t>(data[6]) == 1 ? 10 : 12;
    std::string_view text(data + start, headerEnd - start);

    std::vector<std::pair<std::string, HeaderValue>> entries;
    HeaderParser parser(text);
    if (std::string e = parser.parse(entries); !e.empty())
      return "malformed .npy header (" + e + "): " + printable(text);
    const HeaderValue *descr = nullptr, *fortran = nullptr, *shape = nullptr;
    for (const auto &[key, value] : entries) {
      const HeaderValue **slot = key == "descr"           ? &descr
                                 : key == "fortran_order" ? &fortran
                                 : key == "shape"         ? &shape
                                                          : nullptr;
      if (!slot)
        return "malformed .npy header (unknown key '" + printable(key) +
               "'): " + printable(text);
      if (*slot)
        return "malformed .npy header (key '" + key +
               "' given twice): " + printable(text);
      *slot = &value;
    }
    if (!descr || !fortran || !shape || descr->kind != HeaderValue::String ||
        fortran->kind != HeaderValue::Bool || shape->kind != HeaderValue::Tuple)
      return "malformed .npy header (expected the keys 'descr' (a string), "
             "'fortran_order' (a bool) and 'shape' (a tuple)): " +
             printable(text);

    NpyHeader h;
    if (std::string e = parseDescr(descr->text, h); !e.empty())
      return e;
    h.fortranOrder = fortran->flag;
    h.shape = shape->dims;
    // Both byte counts must fit in int64: a shape whose size overflows is
    // not a small tensor.
    bool tooLarge = shape->overflow;
    uint64_t fileBytes = h.elementBytes, tensorBytes = sizeOf(h.dtype);
    bool empty = false;
    for (int64_t d : h.shape)
      empty |= d == 0;
    for (int64_t d : h.shape) {
      if (empty || tooLarge)
        break;
      uint64_t ud = static_cast<uint64_t>(d);
      tooLarge |= __builtin_mul_overflow(fileBytes, ud, &fileBytes) ||
                  __builtin_mul_overflow(tensorBytes, ud, &tensorBytes);
    }
    tooLarge |=
        tensorBytes >
            static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) ||
        fileBytes > static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
    if (tooLarge)
      return "the shape " +
             (shape->overflow ? std::string("(...)") : tupleText(h.shape)) +
             " in the .npy header is too large";
    h.dataOffset = headerEnd;
    h.dataBytes = empty ? 0 : fileBytes;
    out = std::move(h);
    return "";
  } catch (const std::bad_alloc &) {
    return "out of memory reading the .npy header";
  }
}

void fnc::io::decodeNpyData(const NpyHeader &h, const void *src,
                            void *dst) noexcept {
  const unsigned char *in = static_cast<const unsigned char *>(src);
  unsigned char *out = static_cast<unsigned char *>(dst);
  int64_t n = h.numElements();
  if (n == 0)
    return;
  size_t outBytes = sizeOf(h.dtype);
  if (h.dtype == DType::str) {
    // Into the std::string objects of `dst`, in C order.
    auto *strings = static_cast<std::string *>(dst);
    std::vector<int64_t> source(n);
    size_t rank = h.shape.size();
    if (!h.fortranOrder || rank < 2) {
      for (int64_t i = 0; i < n; ++i)
        source[i] = i;
    } else {
      std::vector<int64_t> index(rank, 0);
      for (int64_t i = 0; i < n; ++i) {
        int64_t offset = 0, stride = 1;
        for (size_t j = 0; j < rank; ++j)
          offset += index[j] * stride, stride *= h.shape[j];
        source[i] = offset;
        for (size_t j = rank; j-- > 0;) {
          if (++index[j] < h.shape[j])
            break;
          index[j] = 0;
        }
      }
    }
    for (int64_t i = 0; i < n; ++i)
      strings[i] = decodeString(h, in + source[i] * h.elementBytes);
    return;
  }
  if (!h.fortranOrder || h.shape.size() < 2) {
    if (h.verbatim()) {
      std::memcpy(out, in, static_cast<size_t>(n) * outBytes);
      return;
    }
    if (h.dtype == DType::i32 && h.elementBytes == 1) {
      // uint8 / int8 images: the common widening, without the generic path.
      int32_t *o = reinterpret_cast<int32_t *>(out);
      if (h.isUnsigned)
        for (int64_t i = 0; i < n; ++i)
          o[i] = in[i];
      else
        for (int64_t i = 0; i < n; ++i)
          o[i] = static_cast<int8_t>(in[i]);
      return;
    }
    for (int64_t i = 0; i < n; ++i)
      storeElement(h, loadRaw(h, in + i * h.elementBytes), out + i * outBytes);
    return;
  }
  // Fortran order: element (i0, ..., ik) is stored at sum(i_j * s_j) with
  // s_0 = 1 and s_j = s_{j-1} * d_{j-1}. Walk the C-order output with an
  // index counter and keep the Fortran offset up to date.
  size_t rank = h.shape.size();
  std::vector<int64_t> stride(rank), index(rank, 0);
  int64_t s = 1;
  for (size_t j = 0; j < rank; ++j) {
    stride[j] = s;
    s *= h.shape[j];
  }
  int64_t offset = 0;
  for (int64_t i = 0; i < n; ++i) {
    storeElement(h, loadRaw(h, in + offset * h.elementBytes),
                 out + i * outBytes);
    for (size_t j = rank; j-- > 0;) {
      if (++index[j] < h.shape[j]) {
        offset += stride[j];
        break;
      }
      offset -= (h.shape[j] - 1) * stride[j];
      index[j] = 0;
    }
  }
}

std::string fnc::io::npyHeaderBytes(DType dtype,
                                    const std::vector<int64_t> &shape,
                                    std::string &out) noexcept {
  try {
    const char *descr = "<f4";
    switch (dtype) {
    case DType::f32:
      descr = "<f4";
      break;
    case DType::f64:
      descr = "<f8";
      break;
    case DType::i1:
      descr = "|b1";
      break;
    case DType::i32:
      descr = "<i4";
      break;
    case DType::i64:
      descr = "<i8";
      break;
    case DType::str:
      return "internal error: string arrays are written by encodeNpyStrings";
    }
    std::string dict =
        std::string("{'descr': '") + descr +
        "', 'fortran_order': False, 'shape': " + tupleText(shape) + ", }";
    // Pad with spaces and a newline so that the data starts at a multiple
    // of 64 bytes, as np.save does; a header over 64 KiB needs version 2.
    bool v2 = 10 + dict.size() + 1 + 63 > 0xffff;
    size_t prefix = v2 ? 12 : 10;
    size_t total = prefix + dict.size() + 1;
    dict += std::string((64 - total % 64) % 64, ' ') + "\n";
    out.assign(kMagic, kMagicBytes);
    out += static_cast<char>(v2 ? 2 : 1);
    out += '\0';
    for (unsigned i = 0; i < (v2 ? 4u : 2u); ++i)
      out += static_cast<char>((dict.size() >> (8 * i)) & 0xff);
    out += dict;
    return "";
  } catch (const std::bad_alloc &) {
    return "out of memory writing a .npy header";
  }
}

std::string fnc::io::decodeNpy(std::string_view contents, DType &dtype,
                               std::vector<int64_t> &shape,
                               std::vector<uint8_t> &bytes) noexcept {
  NpyHeader h;
  if (std::string e = parseNpyHeader(contents.data(), contents.size(), h);
      !e.empty())
    return e;
  uint64_t found = contents.size() - h.dataOffset;
  if (found != h.dataBytes)
    return npySizeError(h.dataBytes, found);
  if (h.dtype == DType::str)
    return "an array of strings, which has no bytes to decode into; read it "
           "with decodeNpyStrings";
  try {
    bytes.resize(h.tensorBytes());
    shape = h.shape;
  } catch (const std::exception &) {
    return "out of memory: the .npy array takes " +
           std::to_string(h.tensorBytes()) + " bytes";
  }
  dtype = h.dtype;
  decodeNpyData(h, contents.data() + h.dataOffset, bytes.data());
  return "";
}

std::string fnc::io::encodeNpy(DType dtype, const std::vector<int64_t> &shape,
                               const void *data, std::string &out) noexcept {
  if (dtype == DType::str)
    return encodeNpyStrings(shape, static_cast<const std::string *>(data), out);
  if (std::string e = npyHeaderBytes(dtype, shape, out); !e.empty())
    return e;
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  try {
    out.append(static_cast<const char *>(data), n * sizeOf(dtype));
  } catch (const std::exception &) {
    return "out of memory writing a .npy file";
  }
  return "";
}

std::string fnc::io::encodeNpyStrings(const std::vector<int64_t> &shape,
                                      const std::string *values,
                                      std::string &out) noexcept {
  try {
    int64_t n = 1;
    for (int64_t d : shape)
      n *= d;
    // <U (UTF-32) when every element is UTF-8, as numpy writes str arrays;
    // |S (bytes) otherwise.
    std::vector<std::vector<uint32_t>> code(n);
    bool unicode = true;
    size_t width = 1; // numpy's narrowest: U1 / S1
    for (int64_t i = 0; i < n && unicode; ++i) {
      unicode = utf32Of(values[i], code[i]);
      width = std::max(width, code[i].size());
    }
    if (!unicode) {
      width = 1;
      for (int64_t i = 0; i < n; ++i)
        width = std::max(width, values[i].size());
    }
    std::string descr = (unicode ? "<U" : "|S") + std::to_string(width);
    std::string dict =
        "{'descr': '" + descr +
        "', 'fortran_order': False, 'shape': " + tupleText(shape) + ", }";
    bool v2 = 10 + dict.size() + 1 + 63 > 0xffff;
    size_t prefix = v2 ? 12 : 10;
    size_t total = prefix + dict.size() + 1;
    dict += std::string((64 - total % 64) % 64, ' ') + "\n";
    out.assign(kMagic, kMagicBytes);
    out += static_cast<char>(v2 ? 2 : 1);
    out += '\0';
    for (unsigned i = 0; i < (v2 ? 4u : 2u); ++i)
      out += static_cast<char>((dict.size() >> (8 * i)) & 0xff);
    out += dict;
    for (int64_t i = 0; i < n; ++i) {
      if (unicode) {
        for (size_t k = 0; k < width; ++k) {
          uint32_t c = k < code[i].size() ? code[i][k] : 0;
          for (unsigned b = 0; b < 4; ++b)
            out += static_cast<char>((c >> (8 * b)) & 0xff);
        }
      } else {
        out += values[i];
        out.append(width - values[i].size(), '\0');
      }
    }
    return "";
  } catch (const std::bad_alloc &) {
    return "out of memory writing a .npy file of strings";
  }
}

std::string
fnc::io::decodeNpyStrings(std::string_view contents,
                          std::vector<int64_t> &shape,
                          std::vector<std::string> &values) noexcept {
  NpyHeader h;
  if (std::string e = parseNpyHeader(contents.data(), contents.size(), h);
      !e.empty())
    return e;
  if (h.dtype != DType::str)
    return std::string("an array of ") + dtypeName(h.dtype) + ", not strings";
  uint64_t found = contents.size() - h.dataOffset;
  if (found != h.dataBytes)
    return npySizeError(h.dataBytes, found);
  try {
    values.assign(static_cast<size_t>(h.numElements()), std::string());
    shape = h.shape;
  } catch (const std::exception &) {
    return "out of memory reading a .npy array of strings";
  }
  decodeNpyData(h, contents.data() + h.dataOffset, values.data());
  return "";
}
