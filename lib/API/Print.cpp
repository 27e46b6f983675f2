//===- Print.cpp - numpy-compatible printing of fnc::Tensor ---------------===//
//
// Tensor::str() prints like TensorFlow's eager tensors, which print their
// contents with numpy's str():
//
//   fnc.Tensor([[1.  2.5]], shape=(1, 2), dtype=float32)
//
// This file re-implements the parts of numpy's arrayprint that matter for
// the default options: the 'maxprec' float mode with 8 digits (shortest
// round-trip digits, padded to align the decimal points), the switch to
// scientific notation, right-aligned integers, ' True'/'False', line
// wrapping at 75 columns, and summarization with '...' and 3 edge items per
// dim for tensors of more than 1000 elements. Like TensorFlow, a multi-line
// body starts on a new line.
//
//===----------------------------------------------------------------------===//

#include "fnc/API/OpSupport.h"
#include "fnc/API/Print.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <functional>

namespace fnc {

namespace {

constexpr int64_t kThreshold = 1000;
constexpr int64_t kEdgeItems = 3;
constexpr size_t kLineWidth = 75;
constexpr int kPrecision = 8;

/// Shortest round-trip decimal digits of a finite value: v = 0.d1d2... *
/// 10^(exp10 + 1), i.e. d1.d2d3... * 10^exp10.
struct Decimal {
  bool negative = false;
  std::string digits; // no leading/trailing zeros (except "0" for zero)
  int exp10 = 0;
};

template <typename T> Decimal shortest(T v) {
  char buf[64];
  auto res =
      std::to_chars(buf, buf + sizeof(buf), v, std::chars_format::scientific);
  std::string s(buf, res.ptr);
  Decimal d;
  size_t i = 0;
  if (s[i] == '-') {
    d.negative = true;
    ++i;
  }
  size_t e = s.find('e');
  for (; i < e; ++i)
    if (s[i] != '.')
      d.digits += s[i];
  d.exp10 = std::stoi(s.substr(e + 1));
  while (d.digits.size() > 1 && d.digits.back() == '0')
    d.digits.pop_back();
  return d;
}

Decimal shortestOf(double v, bool isF32) {
  return isF32 ? shortest(static_cast<float>(v)) : shortest(v);
}

std::string trimZeros(std::string s) {
  // "1.2500" -> "1.25", "3.000" -> "3."
  size_t dot = s.find('.');
  if (dot == std::string::npos)
    return s;
  while (s.size() > dot + 1 && s.back() == '0')
    s.pop_back();
  return s;
}

/// Positional digits of `v` with at most kPrecision fractional digits and
/// trailing zeros trimmed to the point: "1.", "2.5", "-0.33333334".
std::string positional(double v, bool isF32) {
  Decimal d = shortestOf(v, isF32);
  std::string intPart, frac;
  int intDigits = d.exp10 + 1;
  if (intDigits > 0) {
    for (int i = 0; i < intDigits; ++i)
      intPart += i < static_cast<int>(d.digits.size()) ? d.digits[i] : '0';
    if (static_cast<int>(d.digits.size()) > intDigits)
      frac = d.digits.substr(intDigits);
  } else {
    intPart = "0";
    frac = std::string(-intDigits, '0') + d.digits;
  }
  if (frac == "0")
    frac.clear();
  if (static_cast<int>(frac.size()) > kPrecision) {
    char buf[512];
    std::snprintf(buf, sizeof(buf), "%.*f", kPrecision, v);
    return trimZeros(buf);
  }
  return (d.negative ? "-" : "") + intPart + "." + frac;
}

/// Scientific parts of `v` with at most kPrecision fractional mantissa
/// digits: mantissa int part, fraction digits and exponent.
void scientific(double v, bool isF32, std::string &intPart, std::string &frac,
                int &exp10) {
  Decimal d = shortestOf(v, isF32);
  if (static_cast<int>(d.digits.size()) > kPrecision + 1) {
    char buf[64];
    std::snprintf(buf, sizeof(buf), "%.*e", kPrecision, v);
    std::string s(buf);
    size_t e = s.find('e');
    std::string mant = trimZeros(s.substr(0, e));
    exp10 = std::stoi(s.substr(e + 1));
    size_t dot = mant.find('.');
    intPart = mant.substr(0, dot);
    frac = mant.substr(dot + 1);
    return;
  }
  intPart = (d.negative ? "-" : "") + d.digits.substr(0, 1);
  frac = d.digits.size() > 1 ? d.digits.substr(1) : "";
  if (frac == "0")
    frac.clear();
  exp10 = d.exp10;
}

std::string expString(int exp10, int digits) {
  std::string e = std::to_string(std::abs(exp10));
  while (static_cast<int>(e.size()) < digits)
    e = "0" + e;
  return std::string("e") + (exp10 < 0 ? "-" : "+") + e;
}

/// numpy's str() of a float scalar: "4.0", "0.1", "1e-05", "1.5e+20".
std::string floatScalar(double v, bool isF32) {
  if (std::isnan(v))
    return "nan";
  if (std::isinf(v))
    return v < 0 ? "-inf" : "inf";
  double a = std::fabs(v);
  if (a == 0 || (a >= 1e-4 && a < 1e16)) {
    Decimal d = shortestOf(v, isF32);
    std::string s;
    int intDigits = d.exp10 + 1;
    if (intDigits > 0) {
      for (int i = 0; i < intDigits; ++i)
        s += i < static_cast<int>(d.digits.size()) ? d.digits[i] : '0';
      std::string frac = static_cast<int>(d.digits.size()) > intDigits
                             ? d.digits.substr(intDigits)
                             : "0";
      s += "." + frac;
    } else {
      s = "0." + std::string(-intDigits, '0') + d.digits;
    }
    return (d.negative ? "-" : "") + s;
  }
  Decimal d = shortestOf(v, isF32);
  std::string intPart = (d.negative ? "-" : "") + d.digits.substr(0, 1);
  std::string frac = d.digits.size() > 1 ? d.digits.substr(1) : "";
  return intPart + (frac.empty() ? "" : "." + frac) + expString(d.exp10, 2);
}

/// numpy's FloatingFormat for the default options, fitted to the values
/// that will be shown.
class FloatFormat {
public:
  FloatFormat(const std::vector<double> &values, bool isF32) : isF32_(isF32) {
    std::vector<double> finite;
    for (double v : values)
      if (std::isfinite(v))
        finite.push_back(v);
    double maxAbs = 0, minAbs = INFINITY;
    bool anyNonZero = false;
    for (double v : finite)
      if (v != 0) {
        anyNonZero = true;
        maxAbs = std::max(maxAbs, std::fabs(v));
        minAbs = std::min(minAbs, std::fabs(v));
      }
    if (anyNonZero && (maxAbs >= 1e8 || minAbs < 1e-4 || maxAbs / minAbs > 1e3))
      expFormat_ = true;

    if (finite.empty()) {
      padLeft_ = padRight_ = 0;
    } else if (expFormat_) {
      size_t expDigits = 0;
      for (double v : finite) {
        std::string ip, frac;
        int e;
        scientific(v, isF32_, ip, frac, e);
        expDigits = std::max(expDigits, std::to_string(std::abs(e)).size());
        precision_ = std::max(precision_, static_cast<int>(frac.size()));
        padLeft_ = std::max(padLeft_, static_cast<int>(ip.size()));
      }
      expSize_ = std::max<int>(2, expDigits);
      padRight_ = expSize_ + 2 + precision_;
    } else {
      for (double v : finite) {
        std::string s = positional(v, isF32_);
        size_t dot = s.find('.');
        padLeft_ = std::max(padLeft_, static_cast<int>(dot));
        padRight_ = std::max(padRight_, static_cast<int>(s.size() - dot - 1));
      }
    }
    if (finite.size() != values.size()) {
      bool negInf = false;
      for (double v : values)
        negInf |= std::isinf(v) && v < 0;
      int offset = padRight_ + 1;
      padLeft_ = std::max({padLeft_, 3 - offset, 3 + int(negInf) - offset});
    }
  }

  std::string operator()(double v) const {
    if (!std::isfinite(v)) {
      std::string r = std::isnan(v) ? "nan" : (v < 0 ? "-inf" : "inf");
      int width = padLeft_ + padRight_ + 1;
      return std::string(std::max<int>(0, width - r.size()), ' ') + r;
    }
    std::string intPart, frac, tail;
    if (expFormat_) {
      int e;
      scientific(v, isF32_, intPart, frac, e);
      frac.resize(precision_, '0');
      tail = expString(e, expSize_);
    } else {
      std::string s = positional(v, isF32_);
      size_t dot = s.find('.');
      intPart = s.substr(0, dot);
      frac = s.substr(dot + 1);
      frac.resize(std::max<size_t>(frac.size(), padRight_), ' ');
    }
    std::string left(std::max<int>(0, padLeft_ - intPart.size()), ' ');
    return left + intPart + "." + frac + tail;
  }

private:
  bool isF32_;
  bool expFormat_ = false;
  int padLeft_ = 0, padRight_ = 0, precision_ = 0, expSize_ = -1;
};

/// The flat indices of the elements numpy shows (edge items only when
/// summarizing).
void shownIndices(const std::vector<int64_t> &shape,
                  const std::vector<int64_t> &strides, bool summarize,
                  size_t axis, int64_t offset, std::vector<int64_t> &out) {
  if (axis == shape.size()) {
    out.push_back(offset);
    return;
  }
  int64_t n = shape[axis];
  for (int64_t i = 0; i < n; ++i) {
    if (summarize && n > 2 * kEdgeItems && i == kEdgeItems)
      i = n - kEdgeItems;
    shownIndices(shape, strides, summarize, axis + 1,
                 offset + i * strides[axis], out);
  }
}

std::string rstrip(const std::string &s) {
  size_t end = s.find_last_not_of(' ');
  return end == std::string::npos ? "" : s.substr(0, end + 1);
}

void extendLine(std::string &s, std::string &line, const std::string &word,
                size_t width, const std::string &nextPrefix) {
  bool wrap = line.size() + word.size() > width;
  if (line.size() <= nextPrefix.size())
    wrap = false;
  if (wrap) {
    s += rstrip(line) + "\n";
    line = nextPrefix;
  }
  line += word;
}

/// numpy's _formatArray (separator ' ', no legacy mode).
class ArrayFormatter {
public:
  ArrayFormatter(const std::vector<int64_t> &shape, bool summarize,
                 std::function<std::string(int64_t)> element)
      : shape_(shape), strides_(ref::stridesOf(shape)), summarize_(summarize),
        element_(std::move(element)) {}

  std::string format() { return recurse(0, 0, " ", kLineWidth); }

private:
  std::string recurse(size_t axis, int64_t offset, const std::string &hanging,
                      size_t width) {
    if (axis == shape_.size())
      return element_(offset);
    std::string nextHanging = hanging + " ";
    size_t nextWidth = width - 1;
    int64_t n = shape_[axis];
    bool summary = summarize_ && 2 * kEdgeItems < n;
    int64_t leading = summary ? kEdgeItems : 0;
    int64_t trailing = summary ? kEdgeItems : n;
    int64_t stride = strides_[axis];
    auto sub = [&](int64_t i) {
      return recurse(axis + 1, offset + i * stride, nextHanging, nextWidth);
    };
    std::string s;
    size_t axesLeft = shape_.size() - axis;
    if (axesLeft == 1) {
      size_t elemWidth = width - 1;
      std::string line = hanging;
      for (int64_t i = 0; i < leading; ++i) {
        extendLine(s, line, sub(i), elemWidth, hanging);
        line += " ";
      }
      if (summary) {
        extendLine(s, line, "...", elemWidth, hanging);
        line += " ";
      }
      for (int64_t i = trailing; i > 1; --i) {
        extendLine(s, line, sub(n - i), elemWidth, hanging);
        line += " ";
      }
      extendLine(s, line, sub(n - 1), elemWidth, hanging);
      s += line;
    } else {
      std::string lineSep(axesLeft - 1, '\n');
      for (int64_t i = 0; i < leading; ++i)
        s += hanging + sub(i) + lineSep;
      if (summary)
        s += hanging + "..." + lineSep;
      for (int64_t i = trailing; i > 1; --i)
        s += hanging + sub(n - i) + lineSep;
      s += hanging + sub(n - 1);
    }
    return "[" + s.substr(hanging.size()) + "]";
  }

  const std::vector<int64_t> &shape_;
  std::vector<int64_t> strides_;
  bool summarize_;
  std::function<std::string(int64_t)> element_;
};

/// How a string element is written: Tensor::str as Python writes bytes
/// (b'a'), fnc::print as tf.print (bare when scalar, "a" in an array).
enum class Quote { Bytes, Print };

/// Python's repr of a bytes object: b'..' with \\, \', \t, \n, \r and
/// \xNN for other bytes outside printable ASCII.
std::string bytesRepr(const std::string &s) {
  static const char hex[] = "0123456789abcdef";
  std::string r = "b'";
  for (unsigned char c : s) {
    if (c == '\\' || c == '\'')
      r += '\\', r += char(c);
    else if (c == '\t')
      r += "\\t";
    else if (c == '\n')
      r += "\\n";
    else if (c == '\r')
      r += "\\r";
    else if (c < 0x20 || c >= 0x7f)
      r += "\\x", r += hex[c >> 4], r += hex[c & 15];
    else
      r += char(c);
  }
  return r + "'";
}

std::string stringText(const std::string &s, Quote quote, bool scalar) {
  if (quote == Quote::Bytes)
    return bytesRepr(s);
  return scalar ? s : "\"" + s + "\"";
}

std::string scalarText(const ref::Array &a, Quote quote) {
  switch (a.dtype) {
  case DType::str:
    return stringText(a.data<std::string>()[0], quote, true);
  case DType::f32:
    return floatScalar(a.data<float>()[0], true);
  case DType::f64:
    return floatScalar(a.data<double>()[0], false);
  case DType::i1:
    return a.data<bool>()[0] ? "True" : "False";
  case DType::i32:
    return std::to_string(a.data<int32_t>()[0]);
  case DType::i64:
    return std::to_string(a.data<int64_t>()[0]);
  }
  return "?";
}

std::string arrayText(const ref::Array &a, Quote quote) {
  if (a.shape.empty())
    return scalarText(a, quote);
  int64_t count = a.numElements();
  if (count == 0)
    return "[]";
  bool summarize = count > kThreshold;
  std::vector<int64_t> shown;
  shownIndices(a.shape, ref::stridesOf(a.shape), summarize, 0, 0, shown);
  std::function<std::string(int64_t)> element;
  switch (a.dtype) {
  case DType::str:
    element = [&a, quote](int64_t i) {
      return stringText(a.data<std::string>()[i], quote, false);
    };
    break;
  case DType::f32:
  case DType::f64: {
    bool isF32 = a.dtype == DType::f32;
    std::vector<double> values;
    for (int64_t i : shown)
      values.push_back(a.getDouble(i));
    FloatFormat format(values, isF32);
    element = [&a, format](int64_t i) { return format(a.getDouble(i)); };
    break;
  }
  case DType::i1:
    element = [&a](int64_t i) {
      return std::string(a.data<bool>()[i] ? " True" : "False");
    };
    break;
  case DType::i32:
  case DType::i64: {
    size_t width = 0;
    for (int64_t i : shown)
      width = std::max(width, std::to_string(a.getInt(i)).size());
    element = [&a, width](int64_t i) {
      std::string s = std::to_string(a.getInt(i));
      return std::string(width - s.size(), ' ') + s;
    };
    break;
  }
  }
  return ArrayFormatter(a.shape, summarize, element).format();
}

} // namespace

namespace detail {
std::string formatValues(const Tensor &t) {
  return arrayText(TensorAccess::impl(t).anyArray(), Quote::Print);
}
} // namespace detail

std::string Tensor::str() const {
  if (impl().symbolic())
    return api::symbolicStr(*this);
  const ref::Array &a = impl().anyArray();
  std::string body = arrayText(a, Quote::Bytes);
  if (body.find('\n') != std::string::npos)
    body = "\n" + body;
  return "fnc.Tensor(" + body + ", shape=" + shapes::tupleString(a.shape) +
         ", dtype=" + dtypeName(a.dtype) + ")";
}

std::ostream &operator<<(std::ostream &os, const Tensor &t) {
  return os << t.str();
}

} // namespace fnc
