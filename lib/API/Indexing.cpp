//===- Indexing.cpp - strided_slice and numpy-style Tensor::index ---------===//
//
// fnc::strided_slice (TensorFlow's masks) and Tensor::index / operator[]
// (numpy's entries, fnc/Index.h) both become a list of entries (range,
// index, ellipsis, new axis), resolved here against the operand's rank into
// one entry per dim (shapes::SliceSpec), which is what fnc.strided_slice
// takes, plus the positions of the new axes (expand_dims afterwards). The
// dense op runs the slice kernel eagerly and is recorded while tracing; its
// gradient is stridedSliceGrad, TensorFlow's StridedSliceGrad.
//
//===----------------------------------------------------------------------===//

#include "fnc/API/OpSupport.h"

#include <optional>

namespace fnc {

using namespace api;

namespace {

/// One entry of an index, before the ellipsis is expanded.
struct Entry {
  enum class Kind { Range, Index, Ellipsis, NewAxis } kind;
  std::optional<int64_t> begin, end; // a range's bounds; an index's begin
  int64_t stride = 1;
};

/// How the public forms name things in their messages.
struct Words {
  const char *op;   // "strided_slice", "Tensor::index"
  const char *step; // "stride", "step"
};

std::string str(int64_t v) { return std::to_string(v); }

/// The dense spec of `entries` for `x`, and the result positions of the new
/// axes (ascending).
struct Dense {
  shapes::SliceSpec spec;
  std::vector<int64_t> newAxes;
};

Dense densify(const Tensor &x, const std::vector<Entry> &entries,
              const Words &words) {
  const Shape &in = x.shape();
  int64_t rank = static_cast<int64_t>(in.size());
  // The ellipsis (explicit or implicit at the end) covers the dims the
  // other entries leave.
  std::optional<size_t> ellipsis;
  int64_t indexed = 0;
  for (size_t i = 0; i < entries.size(); ++i) {
    const Entry &e = entries[i];
    if (e.kind == Entry::Kind::Ellipsis) {
      if (ellipsis)
        fail(ErrorKind::InvalidArgument, words.op,
             "an index may hold at most one ellipsis, found at entries " +
                 str(*ellipsis) + " and " + str(i),
             {&x});
      ellipsis = i;
    } else if (e.kind != Entry::Kind::NewAxis) {
      ++indexed;
    }
  }
  if (indexed > rank)
    fail(ErrorKind::InvalidArgument, words.op,
         "too many indices for a tensor of rank " + str(rank) + ": " +
             str(indexed) +
             " entries index a dim (an ellipsis and new axes index none)",
         {&x});
  Dense d;
  shapes::SliceSpec &spec = d.spec;
  auto whole = [&] {
    spec.begin.push_back(shapes::kSliceMin);
    spec.end.push_back(shapes::kSliceMax);
    spec.strides.push_back(1);
    spec.shrink.push_back(false);
  };
  int64_t pos = 0; // the next result dim
  for (size_t i = 0; i < entries.size(); ++i) {
    const Entry &e = entries[i];
    int64_t dim = static_cast<int64_t>(spec.begin.size());
    switch (e.kind) {
    case Entry::Kind::Ellipsis:
      for (int64_t k = 0; k < rank - indexed; ++k, ++pos)
        whole();
      break;
    case Entry::Kind::NewAxis:
      d.newAxes.push_back(pos++);
      break;
    case Entry::Kind::Index: {
      int64_t index = *e.begin;
      if (!shapes::isDynamic(in[dim]) &&
          shapes::resolveSliceIndex(in[dim], index) < 0)
        fail(ErrorKind::OutOfRange, words.op,
             "index " + str(index) + " (entry " + str(i) +
                 ") is out of range for dim " + str(dim) + " of size " +
                 str(in[dim]) + " (" + shapes::validIndices(in[dim]) + ")",
             {&x});
      spec.begin.push_back(index);
      spec.end.push_back(0);
      spec.strides.push_back(1);
      spec.shrink.push_back(true);
      break;
    }
    case Entry::Kind::Range: {
      int64_t s = e.stride;
      if (s == 0 || s == shapes::kSliceMin)
        fail(ErrorKind::InvalidArgument, words.op,
             "entry " + str(i) + " has " + words.step + " " + str(s) + "; a " +
                 words.step +
                 " must be non-zero (1 takes every element, -1 walks "
                 "backwards) and above -2^63",
             {&x});
      // An omitted bound is the sentinel that clamps to its side.
      spec.begin.push_back(
          e.begin.value_or(s > 0 ? shapes::kSliceMin : shapes::kSliceMax));
      spec.end.push_back(
          e.end.value_or(s > 0 ? shapes::kSliceMax : shapes::kSliceMin));
      spec.strides.push_back(s);
      spec.shrink.push_back(false);
      ++pos;
      break;
    }
    }
  }
  if (!ellipsis)
    while (static_cast<int64_t>(spec.begin.size()) < rank)
      whole();
  return d;
}

/// Whether `spec` takes every dim of `in` whole, forwards, one by one.
bool isIdentity(const Shape &in, const shapes::SliceSpec &spec) {
  for (size_t i = 0; i < in.size(); ++i) {
    if (spec.shrink[i] || spec.strides[i] != 1)
      return false;
    if (shapes::isDynamic(in[i])) {
      if ((spec.begin[i] != 0 && spec.begin[i] != shapes::kSliceMin) ||
          spec.end[i] != shapes::kSliceMax)
        return false;
      continue;
    }
    shapes::SliceDim r =
        shapes::resolveSliceDim(in[i], spec.begin[i], spec.end[i], 1);
    if (r.start != 0 || r.count != in[i])
      return false;
  }
  return true;
}

Tensor indexWith(const Tensor &x, const std::vector<Entry> &entries,
                 const Words &words) {
  Dense d = densify(x, entries, words);
  Tensor out =
      isIdentity(x.shape(), d.spec) ? x : stridedSlice(x, d.spec, words.op);
  for (int64_t axis : d.newAxes) // ascending: each lands at its position
    out = expand_dims(out, axis);
  return out;
}

Entry entryOf(const TensorIndex &index) {
  switch (index.kind()) {
  case TensorIndex::Kind::Integer:
    return {Entry::Kind::Index, index.integer(), std::nullopt, 1};
  case TensorIndex::Kind::Slice: {
    const Slice &s = index.slice();
    return {Entry::Kind::Range, s.start(), s.stop(), s.step()};
  }
  case TensorIndex::Kind::Ellipsis:
    return {Entry::Kind::Ellipsis, std::nullopt, std::nullopt, 1};
  case TensorIndex::Kind::NewAxis:
    return {Entry::Kind::NewAxis, std::nullopt, std::nullopt, 1};
  }
  return {Entry::Kind::NewAxis, std::nullopt, std::nullopt, 1};
}

} // namespace

namespace api {

Tensor stridedSlice(const Tensor &x, const shapes::SliceSpec &spec,
                    const char *op) {
  const Shape &in = x.shape();
  for (size_t i = 0; i < in.size() && i < spec.shrink.size(); ++i)
    if (spec.shrink[i] && !shapes::isDynamic(in[i]) &&
        shapes::resolveSliceIndex(in[i], spec.begin[i]) < 0)
      fail(ErrorKind::OutOfRange, op,
           "index " + str(spec.begin[i]) + " is out of range for dim " +
               str(i) + " of size " + str(in[i]) + " (" +
               shapes::validIndices(in[i]) + ")",
           {&x});
  Shape shape = checked(shapes::stridedSlice(in, spec), op, {&x});
  auto attrs = [&] { return trace::ops::StridedSlice{spec}; };
  auto span = opSpan(op, {&x});
  // Dispatch point.
  Tensor out;
  if (trace::Recorder *r = recording()) {
    out = record(*r, attrs(), x.dtype(), std::move(shape), {&x}, op);
  } else {
    shapes::SliceWindow w = shapes::resolveSlice(in, spec);
    ref::Array array = ref::Array::allocate(x.dtype(), std::move(w.shape));
    ref::slice(arrayOf(x), w.offsets, w.strides, array);
    out = wrap(array.withShape(std::move(shape)));
  }
  return taped(std::move(out), {&x}, attrs);
}

Tensor stridedSliceGrad(const Tensor &x, const Tensor &grad,
                        const shapes::SliceSpec &spec) {
  const char *op = "strided_slice_grad";
  requireSameDType(op, x, grad);
  Shape shape = checked(shapes::stridedSliceGrad(x.shape(), grad.shape(), spec),
                        op, {&x, &grad});
  auto attrs = [&] { return trace::ops::StridedSliceGrad{spec}; };
  auto span = opSpan(op, {&x, &grad});
  // Dispatch point.
  Tensor out;
  if (trace::Recorder *r = recording()) {
    out = record(*r, attrs(), x.dtype(), std::move(shape), {&x, &grad}, op);
  } else {
    shapes::SliceWindow w = shapes::resolveSlice(x.shape(), spec);
    ref::Array array = ref::Array::allocate(x.dtype(), std::move(shape));
    ref::sliceGrad(arrayOf(grad).withShape(std::move(w.shape)), w.offsets,
                   w.strides, array);
    out = wrap(std::move(array));
  }
  return taped(std::move(out), {&x, &grad}, attrs);
}

} // namespace api

Tensor strided_slice(const Tensor &x, const std::vector<int64_t> &begin,
                     const std::vector<int64_t> &end,
                     const std::vector<int64_t> &strides, int64_t begin_mask,
                     int64_t end_mask, int64_t ellipsis_mask,
                     int64_t new_axis_mask, int64_t shrink_axis_mask) {
  const Words words{"strided_slice", "stride"};
  x.shape(); // rejects a null handle first
  size_t n = begin.size();
  if (end.size() != n || (!strides.empty() && strides.size() != n))
    fail(ErrorKind::InvalidArgument, words.op,
         "begin, end and strides must have the same length (or strides "
         "none), got " +
             str(begin.size()) + ", " + str(end.size()) + " and " +
             str(strides.size()),
         {&x});
  if (n > 63)
    fail(ErrorKind::InvalidArgument, words.op,
         "the spec has " + str(n) +
             " entries; masks have 63 usable bits, so at most 63 entries",
         {&x});
  const std::pair<const char *, int64_t> masks[] = {
      {"begin_mask", begin_mask},
      {"end_mask", end_mask},
      {"ellipsis_mask", ellipsis_mask},
      {"new_axis_mask", new_axis_mask},
      {"shrink_axis_mask", shrink_axis_mask}};
  for (const auto &[name, mask] : masks)
    if (mask < 0 || (mask >> n) != 0)
      fail(ErrorKind::InvalidArgument, words.op,
           std::string(name) + " is " + str(mask) + ", which has bits past " +
               "the spec's " + str(n) + " entries; bit i refers to entry i",
           {&x});
  std::vector<Entry> entries;
  for (size_t i = 0; i < n; ++i) {
    int64_t bit = int64_t{1} << i;
    int64_t stride = strides.empty() ? 1 : strides[i];
    // As TensorFlow: the ellipsis wins over a new axis, a new axis over a
    // shrink.
    if (ellipsis_mask & bit) {
      entries.push_back({Entry::Kind::Ellipsis, std::nullopt, std::nullopt, 1});
    } else if (new_axis_mask & bit) {
      entries.push_back({Entry::Kind::NewAxis, std::nullopt, std::nullopt, 1});
    } else if (shrink_axis_mask & bit) {
      if (stride <= 0)
        fail(ErrorKind::InvalidArgument, words.op,
             "entry " + str(i) +
                 " is an index (its shrink_axis_mask bit is set) and needs a "
                 "positive stride, got " +
                 str(stride),
             {&x});
      entries.push_back({Entry::Kind::Index, begin[i], std::nullopt, 1});
    } else {
      std::optional<int64_t> b, e;
      if (!(begin_mask & bit))
        b = begin[i];
      if (!(end_mask & bit))
        e = end[i];
      entries.push_back({Entry::Kind::Range, b, e, stride});
    }
  }
  return indexWith(x, entries, words);
}

TensorIndex::TensorIndex(const char *text) : kind_(Kind::Ellipsis) {
  if (!text || std::string(text) != "...")
    throw Error(
        ErrorKind::InvalidArgument,
        std::string("fnc::TensorIndex: the only text index is \"...\" "
                    "(an ellipsis), got ") +
            (text ? "\"" + std::string(text) + "\"" : "a null pointer"));
}

void TensorIndex::tooLarge(uint64_t index) {
  throw Error(ErrorKind::OutOfRange,
              "fnc::TensorIndex: index " + std::to_string(index) +
                  " is larger than any dim (above INT64_MAX)");
}

Tensor Tensor::index(const std::vector<TensorIndex> &indices) const {
  std::vector<Entry> entries;
  entries.reserve(indices.size());
  for (const TensorIndex &i : indices)
    entries.push_back(entryOf(i));
  return indexWith(*this, entries, {"Tensor::index", "step"});
}

Tensor Tensor::operator[](const TensorIndex &index) const {
  return indexWith(*this, {entryOf(index)}, {"Tensor::operator[]", "step"});
}

} // namespace fnc
