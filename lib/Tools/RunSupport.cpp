//===- RunSupport.cpp - Inputs and outputs of fnc-run ---------------------===//
//
// `--input` literals and eager-format printing (.npy files are read and
// written by fnc/IO/Npy.h). Built with exceptions; each function catches
// everything (fnc::Error, std::bad_alloc) and reports it as a value, since
// its callers are built without exception support.
//
//===----------------------------------------------------------------------===//

#include "fnc/Tools/RunSupport.h"
#include "fnc/Shape/ShapeRules.h"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>

using namespace fnc;
using namespace fnc::tools;

int64_t HostTensor::numElements() const { return shapes::numElements(shape); }

namespace {

/// The most elements an inline --input may have.
constexpr int64_t kMaxInlineElements = int64_t{1} << 40;

bool parseDType(const std::string &s, DType &dtype) {
  for (DType d :
       {DType::f32, DType::f64, DType::i1, DType::i32, DType::i64, DType::str})
    if (s == mlirElementName(d)) {
      dtype = d;
      return true;
    }
  return false;
}

std::string trim(const std::string &s) {
  size_t b = s.find_first_not_of(" \t\n");
  if (b == std::string::npos)
    return "";
  size_t e = s.find_last_not_of(" \t\n");
  return s.substr(b, e - b + 1);
}

/// Parses one element into `out` (sizeOf(dtype) bytes).
bool parseElement(const std::string &text, DType dtype, uint8_t *out) {
  if (text.empty())
    return false;
  const char *begin = text.c_str();
  char *end = nullptr;
  errno = 0;
  switch (dtype) {
  case DType::f32:
  case DType::f64: {
    double v = std::strtod(begin, &end);
    if (*end != '\0')
      return false;
    if (dtype == DType::f32) {
      float f = static_cast<float>(v);
      if (std::isinf(f) && !std::isinf(v))
        return false; // out of range for f32
      std::memcpy(out, &f, sizeof(f));
    } else {
      std::memcpy(out, &v, sizeof(v));
    }
    return true;
  }
  case DType::i1:
    if (text == "true" || text == "1")
      *out = 1;
    else if (text == "false" || text == "0")
      *out = 0;
    else
      return false;
    return true;
  case DType::i32:
  case DType::i64: {
    long long v = std::strtoll(begin, &end, 10);
    if (*end != '\0' || errno == ERANGE)
      return false;
    if (dtype == DType::i32) {
      if (v < std::numeric_limits<int32_t>::min() ||
          v > std::numeric_limits<int32_t>::max())
        return false;
      int32_t i = static_cast<int32_t>(v);
      std::memcpy(out, &i, sizeof(i));
    } else {
      int64_t i = v;
      std::memcpy(out, &i, sizeof(i));
    }
    return true;
  }
  case DType::str: // parseStrings
    return false;
  }
  return false;
}

/// The `count` strings of `values` (one fills the shape): comma-separated,
/// each bare (trimmed) or in double quotes with \" and \\ escapes.
std::string parseStrings(const std::string &values, const std::string &type,
                         int64_t count, std::vector<std::string> &out) {
  std::vector<std::string> elements;
  size_t i = 0;
  auto skipSpace = [&] {
    while (i < values.size() &&
           std::isspace(static_cast<unsigned char>(values[i])))
      ++i;
  };
  skipSpace();
  while (i < values.size()) {
    std::string element;
    if (values[i] == '"') {
      for (++i; i < values.size() && values[i] != '"'; ++i) {
        if (values[i] == '\\' && i + 1 < values.size())
          ++i;
        element += values[i];
      }
      if (i == values.size())
        return "an unterminated \" in the strings of '" + type + "'";
      ++i;
      skipSpace();
    } else {
      size_t comma = values.find(',', i);
      element = trim(values.substr(i, comma - i));
      i = comma == std::string::npos ? values.size() : comma;
    }
    elements.push_back(element);
    if (i < values.size() && values[i] != ',')
      return "expected ',' after string #" +
             std::to_string(elements.size() - 1) + " of '" + type + "'";
    if (i < values.size()) {
      ++i;
      skipSpace();
      if (i == values.size())
        elements.emplace_back();
    }
  }
  if (elements.empty())
    elements.emplace_back();
  bool splat = elements.size() == 1;
  if (!splat && static_cast<int64_t>(elements.size()) != count)
    return "'" + type + "' has " + std::to_string(count) + " element" +
           (count == 1 ? "" : "s") + " but " + std::to_string(elements.size()) +
           " strings were given";
  out = splat ? std::vector<std::string>(count, elements[0]) : elements;
  return "";
}

std::string parseLiteralImpl(const std::string &spec, HostTensor &out) {
  size_t eq = spec.find('=');
  if (eq == std::string::npos)
    return "expected TYPE=VALUES (e.g. 2x3xf32=1,2,3,4,5,6, f32=2.5) or "
           "@FILE.npy";
  std::string type = spec.substr(0, eq), values = spec.substr(eq + 1);
  // The type: dims separated by 'x', then the element type.
  std::vector<std::string> parts;
  size_t start = 0;
  while (true) {
    size_t x = type.find('x', start);
    parts.push_back(type.substr(start, x - start));
    if (x == std::string::npos)
      break;
    start = x + 1;
  }
  if (!parseDType(parts.back(), out.dtype))
    return "unknown element type '" + parts.back() + "' in '" + type +
           "' (expected f32, f64, i1, i32, i64 or !fnc.string)";
  out.shape.clear();
  int64_t count = 1;
  for (size_t i = 0; i + 1 < parts.size(); ++i) {
    const std::string &p = parts[i];
    char *end = nullptr;
    errno = 0;
    long long d = p.empty() ? -1 : std::strtoll(p.c_str(), &end, 10);
    if (p.empty() || *end != '\0' || d < 0 || errno == ERANGE)
      return "bad dimension '" + p + "' in '" + type +
             "' (expected a non-negative integer)";
    if (d > 0 && count > kMaxInlineElements / d)
      return "'" + type +
             "' has too many elements for an inline input (at "
             "most 2^40): pass a .npy file";
    out.shape.push_back(d);
    count *= d;
  }

  if (out.dtype == DType::str)
    return parseStrings(values, type, count, out.strings);
  // The values: comma-separated, optionally in brackets.
  std::string body = trim(values);
  std::string stripped;
  for (char c : body)
    if (c != '[' && c != ']')
      stripped += c;
  std::vector<std::string> elements;
  if (!trim(stripped).empty()) {
    size_t s = 0;
    while (true) {
      size_t c = stripped.find(',', s);
      elements.push_back(trim(stripped.substr(s, c - s)));
      if (c == std::string::npos)
        break;
      s = c + 1;
    }
  }
  size_t elem = sizeOf(out.dtype);
  bool splat = elements.size() == 1 && count != 1;
  if (!splat && static_cast<int64_t>(elements.size()) != count)
    return "'" + type + "' has " + std::to_string(count) + " element" +
           (count == 1 ? "" : "s") + " but " + std::to_string(elements.size()) +
           " value" + (elements.size() == 1 ? " was" : "s were") + " given";
  out.bytes.assign(count * elem, 0);
  for (size_t i = 0; i < elements.size(); ++i) {
    uint8_t value[8];
    if (!parseElement(elements[i], out.dtype, value))
      return "value #" + std::to_string(i) + " '" + elements[i] +
             "' is not a valid " + mlirElementName(out.dtype);
    if (splat) {
      for (int64_t j = 0; j < count; ++j)
        std::memcpy(out.bytes.data() + j * elem, value, elem);
    } else {
      std::memcpy(out.bytes.data() + i * elem, value, elem);
    }
  }
  return "";
}

template <typename T>
Tensor makeTensor(const std::vector<int64_t> &shape, const void *data) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  const T *p = static_cast<const T *>(data);
  return Tensor(std::vector<T>(p, p + n), shape);
}

Tensor toTensorImpl(DType dtype, const std::vector<int64_t> &shape,
                    const void *data) {
  switch (dtype) {
  case DType::f32:
    return makeTensor<float>(shape, data);
  case DType::f64:
    return makeTensor<double>(shape, data);
  case DType::i1: {
    int64_t n = 1;
    for (int64_t d : shape)
      n *= d;
    const uint8_t *p = static_cast<const uint8_t *>(data);
    std::vector<bool> v(n);
    for (int64_t i = 0; i < n; ++i)
      v[i] = p[i] != 0;
    return Tensor(v, shape);
  }
  case DType::i32:
    return makeTensor<int32_t>(shape, data);
  case DType::i64:
    return makeTensor<int64_t>(shape, data);
  case DType::str:
    return makeTensor<std::string>(shape, data);
  }
  return Tensor();
}

} // namespace

std::string fnc::tools::parseLiteral(const std::string &spec, HostTensor &out) {
  try {
    return parseLiteralImpl(spec, out);
  } catch (const std::exception &e) {
    return e.what();
  }
}

std::string fnc::tools::formatTensor(DType dtype,
                                     const std::vector<int64_t> &shape,
                                     const void *data) {
  try {
    return toTensorImpl(dtype, shape, data).str();
  } catch (const std::exception &e) {
    return std::string("<cannot print the tensor: ") + e.what() + ">";
  }
}

Tensor fnc::tools::toTensor(const HostTensor &t) {
  try {
    return toTensorImpl(t.dtype, t.shape, t.data());
  } catch (...) {
    return Tensor();
  }
}

bool fnc::tools::fromTensor(const Tensor &t, HostTensor &out) {
  try {
    out.dtype = t.dtype();
    out.shape = t.shape();
    if (out.dtype == DType::str) {
      out.strings = t.to_vector<std::string>();
      return true;
    }
    size_t bytes = t.size() * sizeOf(out.dtype);
    const uint8_t *p = nullptr;
    switch (out.dtype) {
    case DType::f32:
      p = reinterpret_cast<const uint8_t *>(t.data<float>());
      break;
    case DType::f64:
      p = reinterpret_cast<const uint8_t *>(t.data<double>());
      break;
    case DType::i1:
      p = reinterpret_cast<const uint8_t *>(t.data<bool>());
      break;
    case DType::i32:
      p = reinterpret_cast<const uint8_t *>(t.data<int32_t>());
      break;
    case DType::i64:
      p = reinterpret_cast<const uint8_t *>(t.data<int64_t>());
      break;
    case DType::str: // above
      break;
    }
    out.bytes.assign(p, p + bytes);
    return true;
  } catch (...) {
    return false;
  }
}
