//===- Strings.cpp - String tensors: ==, !=, + and fnc::strings ----------===//
//
// fnc/Strings.h, and ==, != and + (concatenation, as tf.add) on strings.
// Each function validates its operands, computes the result
// shape, then records the op while tracing (ops::Strings, ops::Binary for
// the comparisons) or computes it on the elements' std::string objects.
// The interpreter runs a staged function's string ops through the same
// functions. Nothing here is taped: strings carry no gradient.
//
//===----------------------------------------------------------------------===//

#include "fnc/Strings.h"
#include "fnc/API/OpSupport.h"
#include "fnc/API/Print.h"

#include <algorithm>
#include <cctype>

namespace fnc {

using namespace api;
using Kind = trace::ops::Strings::Kind;

namespace {

const std::string *stringsOf(const Tensor &t) {
  return detail::TensorAccess::impl(t).anyArray().data<std::string>();
}

void requireStrings(const char *op, const Tensor &t, Operands operands) {
  if (t.dtype() != DType::str)
    fail(ErrorKind::InvalidArgument, op,
         std::string("needs string operands, got ") + dtypeName(t.dtype()) +
             "; format numbers with fnc::strings::format",
         operands);
}

/// The offset into an operand of `shape`, broadcast to `out`, of every
/// element of `out` (row-major).
std::vector<int64_t> broadcastOffsets(const Shape &shape, const Shape &out) {
  int64_t count = shapes::numElements(out);
  std::vector<int64_t> offsets(count);
  size_t lead = out.size() - shape.size();
  Shape strides = ref::stridesOf(shape);
  std::vector<int64_t> index(out.size(), 0);
  for (int64_t i = 0; i < count; ++i) {
    int64_t offset = 0;
    for (size_t d = 0; d < shape.size(); ++d)
      if (shape[d] != 1)
        offset += index[lead + d] * strides[d];
    offsets[i] = offset;
    for (size_t d = out.size(); d-- > 0;) {
      if (++index[d] < out[d])
        break;
      index[d] = 0;
    }
  }
  return offsets;
}

ref::Array allocateStrings(Shape shape) {
  return ref::Array::allocate(DType::str, std::move(shape));
}

/// Records `op` while tracing; null when eager.
std::optional<Tensor> recorded(trace::ops::Strings op, DType dtype,
                               const Shape &shape, Operands operands,
                               const char *name) {
  trace::Recorder *r = recording();
  if (!r)
    return std::nullopt;
  return record(*r, std::move(op), dtype, shape,
                std::vector<const Tensor *>(operands), name);
}

/// The number of code points of `s`, or -1 if it is not valid UTF-8.
int64_t utf8Length(const std::string &s) {
  int64_t count = 0;
  for (size_t i = 0; i < s.size(); ++count) {
    unsigned char c = s[i];
    size_t n = c < 0x80         ? 1
               : (c >> 5) == 6  ? 2
               : (c >> 4) == 14 ? 3
               : (c >> 3) == 30 ? 4
                                : 0;
    if (n == 0 || i + n > s.size())
      return -1;
    for (size_t k = 1; k < n; ++k)
      if ((static_cast<unsigned char>(s[i + k]) >> 6) != 2)
        return -1;
    i += n;
  }
  return count;
}

std::vector<std::string> splitOne(const std::string &s, const std::string &sep,
                                  int64_t maxsplit) {
  std::vector<std::string> parts;
  if (sep.empty()) {
    size_t i = 0;
    auto space = [&](size_t k) {
      return std::isspace(static_cast<unsigned char>(s[k])) != 0;
    };
    while (true) {
      while (i < s.size() && space(i))
        ++i;
      if (i == s.size())
        break;
      if (maxsplit >= 0 && int64_t(parts.size()) == maxsplit) {
        size_t end = s.size();
        while (end > i && space(end - 1))
          --end;
        parts.push_back(s.substr(i, end - i));
        break;
      }
      size_t j = i;
      while (j < s.size() && !space(j))
        ++j;
      parts.push_back(s.substr(i, j - i));
      i = j;
    }
    return parts;
  }
  size_t start = 0;
  while (maxsplit < 0 || int64_t(parts.size()) < maxsplit) {
    size_t at = s.find(sep, start);
    if (at == std::string::npos)
      break;
    parts.push_back(s.substr(start, at - start));
    start = at + sep.size();
  }
  parts.push_back(s.substr(start));
  return parts;
}

Tensor changeCase(const Tensor &input, bool toUpper) {
  const char *name = toUpper ? "strings::upper" : "strings::lower";
  requireStrings(name, input, {&input});
  if (auto t = recorded({toUpper ? Kind::Upper : Kind::Lower, {}, {}, -1},
                        DType::str, input.shape(), {&input}, name))
    return *t;
  ref::Array out = allocateStrings(input.shape());
  const std::string *in = stringsOf(input);
  std::string *o = out.mutableData<std::string>();
  for (int64_t i = 0, n = input.size(); i < n; ++i) {
    o[i] = in[i];
    for (char &c : o[i])
      if (toUpper ? (c >= 'a' && c <= 'z') : (c >= 'A' && c <= 'Z'))
        c = static_cast<char>(c ^ 0x20);
  }
  return detail::TensorAccess::wrap(std::move(out));
}

} // namespace

namespace api {

Tensor binaryStrings(ref::BinaryOp op, const Tensor &x, const Tensor &y) {
  const char *name = ref::binaryOpName(op);
  bool add = op == ref::BinaryOp::Add;
  if (!add && op != ref::BinaryOp::Equal && op != ref::BinaryOp::NotEqual)
    rejectStrings(name, {&x, &y});
  if (x.dtype() != y.dtype())
    fail(ErrorKind::InvalidArgument, name,
         std::string("cannot ") + (add ? "add" : "compare") +
             " a string and a number; convert the number with "
             "fnc::strings::format",
         {&x, &y});
  if (add) // tf.add of strings: their concatenation
    return strings::join({x, y});
  Shape shape =
      checked(shapes::broadcast(x.shape(), y.shape()), name, {&x, &y});
  if (trace::Recorder *r = recording())
    return record(*r, trace::ops::Binary{op}, DType::i1, std::move(shape),
                  {&x, &y}, name);
  ref::Array out = ref::Array::allocate(DType::i1, shape);
  auto xs = broadcastOffsets(x.shape(), shape);
  auto ys = broadcastOffsets(y.shape(), shape);
  const std::string *a = stringsOf(x), *b = stringsOf(y);
  bool equal = op == ref::BinaryOp::Equal;
  bool *o = out.mutableData<bool>();
  for (size_t i = 0; i < xs.size(); ++i)
    o[i] = (a[xs[i]] == b[ys[i]]) == equal;
  return detail::TensorAccess::wrap(std::move(out));
}

} // namespace api

namespace strings {

Tensor join(const std::vector<Tensor> &inputs, const std::string &separator) {
  const char *name = "strings::join";
  if (inputs.empty())
    fail(ErrorKind::InvalidArgument, name,
         "needs at least one input; pass the string tensors to join", {});
  std::vector<const Tensor *> operands;
  for (const Tensor &t : inputs)
    operands.push_back(&t);
  Shape shape;
  for (const Tensor &t : inputs) {
    requireStrings(name, t, {&t});
    shape = checked(shapes::broadcast(shape, t.shape()), name, {&t});
  }
  if (trace::Recorder *r = recording())
    return record(*r, trace::ops::Strings{Kind::Join, separator, {}, -1},
                  DType::str, shape, operands, name);
  ref::Array out = allocateStrings(shape);
  std::string *o = out.mutableData<std::string>();
  for (size_t k = 0; k < inputs.size(); ++k) {
    const std::string *in = stringsOf(inputs[k]);
    auto offsets = broadcastOffsets(inputs[k].shape(), shape);
    for (size_t i = 0; i < offsets.size(); ++i) {
      if (k)
        o[i] += separator;
      o[i] += in[offsets[i]];
    }
  }
  return detail::TensorAccess::wrap(std::move(out));
}

Tensor format(const std::string &format, const std::vector<Tensor> &inputs,
              const std::string &placeholder) {
  const char *name = "strings::format";
  std::vector<const Tensor *> operands;
  for (const Tensor &t : inputs)
    operands.push_back(&t);
  if (placeholder.empty())
    fail(ErrorKind::InvalidArgument, name,
         "the placeholder is empty; pass one such as \"{}\"", {});
  size_t holes = 0;
  for (size_t at = format.find(placeholder); at != std::string::npos;
       at = format.find(placeholder, at + placeholder.size()))
    ++holes;
  if (holes != inputs.size())
    fail(ErrorKind::InvalidArgument, name,
         "the format \"" + format + "\" has " + std::to_string(holes) +
             " placeholders \"" + placeholder + "\" but " +
             std::to_string(inputs.size()) +
             " inputs were given; pass one input per placeholder",
         {});
  if (trace::Recorder *r = recording())
    return record(*r,
                  trace::ops::Strings{Kind::Format, format, placeholder, -1},
                  DType::str, {}, operands, name);
  std::string text;
  size_t start = 0, next = 0;
  for (size_t at = format.find(placeholder); at != std::string::npos;
       at = format.find(placeholder, start)) {
    text +=
        format.substr(start, at - start) + detail::formatValues(inputs[next++]);
    start = at + placeholder.size();
  }
  text += format.substr(start);
  return Tensor(text);
}

Tensor length(const Tensor &input, Unit unit) {
  const char *name = "strings::length";
  requireStrings(name, input, {&input});
  bool chars = unit == Unit::UTF8Char;
  if (auto t = recorded({Kind::Length, {}, {}, chars ? 1 : 0}, DType::i32,
                        input.shape(), {&input}, name))
    return *t;
  ref::Array out = ref::Array::allocate(DType::i32, input.shape());
  const std::string *in = stringsOf(input);
  int32_t *o = out.mutableData<int32_t>();
  for (int64_t i = 0, n = input.size(); i < n; ++i) {
    int64_t len = chars ? utf8Length(in[i]) : int64_t(in[i].size());
    if (len < 0)
      fail(ErrorKind::InvalidArgument, name,
           "element " + std::to_string(i) +
               " is not valid UTF-8; count bytes with fnc::strings::Unit::Byte",
           {&input});
    if (len > INT32_MAX)
      fail(ErrorKind::OutOfRange, name,
           "element " + std::to_string(i) + " is longer than int32 counts",
           {&input});
    o[i] = static_cast<int32_t>(len);
  }
  return detail::TensorAccess::wrap(std::move(out));
}

Tensor upper(const Tensor &input) { return changeCase(input, true); }
Tensor lower(const Tensor &input) { return changeCase(input, false); }

Tensor split(const Tensor &input, const std::string &separator,
             int64_t maxsplit) {
  const char *name = "strings::split";
  requireStrings(name, input, {&input});
  if (input.rank() > 1)
    fail(ErrorKind::InvalidArgument, name,
         "splits a scalar or a 1-D tensor (the result is dense, padded with "
         "empty strings); reshape to 1-D first",
         {&input});
  if (trace::Recorder *r = recording()) {
    Shape shape = input.shape();
    shape.push_back(shapes::kDynamic);
    return record(*r, trace::ops::Strings{Kind::Split, separator, {}, maxsplit},
                  DType::str, std::move(shape), {&input}, name);
  }
  const std::string *in = stringsOf(input);
  std::vector<std::vector<std::string>> parts;
  size_t width = 0;
  for (int64_t i = 0, n = input.size(); i < n; ++i) {
    parts.push_back(splitOne(in[i], separator, maxsplit));
    width = std::max(width, parts.back().size());
  }
  Shape shape = input.shape();
  shape.push_back(input.rank() == 0 ? int64_t(parts[0].size())
                                    : int64_t(width));
  ref::Array out = allocateStrings(shape);
  std::string *o = out.mutableData<std::string>();
  for (size_t i = 0; i < parts.size(); ++i)
    std::move(parts[i].begin(), parts[i].end(), o + i * shape.back());
  return detail::TensorAccess::wrap(std::move(out));
}

} // namespace strings
} // namespace fnc
