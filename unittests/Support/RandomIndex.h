//===- RandomIndex.h - Random numpy indices and a naive reference -*- C++ -*-//
//
// For the tests of fnc::strided_slice and Tensor::index: random basic
// indices (integers, slices with omitted, negative or out-of-range bounds
// and negative steps, an ellipsis, new axes) for a given shape, their
// TensorFlow form (begin, end, strides and masks), and the result computed
// the obvious way: the list of indices each dim reads (Python's
// slice.indices, stepped one at a time), then every combination of them in
// row-major order, one element at a time. Header-only; MLIR-free.
//
//===----------------------------------------------------------------------===//

#ifndef FNC_UNITTESTS_SUPPORT_RANDOMINDEX_H
#define FNC_UNITTESTS_SUPPORT_RANDOMINDEX_H

#include "fnc/Index.h"
#include "fnc/Shape/ShapeRules.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <vector>

namespace fnc::testing {

/// One entry of a numpy index.
struct IndexEntry {
  enum class Kind { Int, Range, Ellipsis, NewAxis } kind = Kind::Range;
  int64_t index = 0;                        // Int
  std::optional<int64_t> start, stop, step; // Range

  static IndexEntry of(Kind kind) {
    IndexEntry e;
    e.kind = kind;
    return e;
  }
};
using NumpyIndex = std::vector<IndexEntry>;

/// "[2, 3]".
inline std::string shapeString(const std::vector<int64_t> &shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i)
    s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

/// "[1:3, ..., -1, None, ::-2]".
inline std::string toString(const NumpyIndex &index) {
  auto opt = [](const std::optional<int64_t> &v) {
    return v ? std::to_string(*v) : std::string();
  };
  std::string s = "[";
  for (size_t i = 0; i < index.size(); ++i) {
    const IndexEntry &e = index[i];
    s += i ? ", " : "";
    switch (e.kind) {
    case IndexEntry::Kind::Int:
      s += std::to_string(e.index);
      break;
    case IndexEntry::Kind::Range:
      s += opt(e.start) + ":" + opt(e.stop) + (e.step ? ":" + opt(e.step) : "");
      break;
    case IndexEntry::Kind::Ellipsis:
      s += "...";
      break;
    case IndexEntry::Kind::NewAxis:
      s += "None";
      break;
    }
  }
  return s + "]";
}

/// The entries as Tensor::index takes them.
inline std::vector<TensorIndex> toTensorIndex(const NumpyIndex &index) {
  std::vector<TensorIndex> out;
  for (const IndexEntry &e : index) {
    switch (e.kind) {
    case IndexEntry::Kind::Int:
      out.push_back(e.index);
      break;
    case IndexEntry::Kind::Range:
      out.push_back(Slice(e.start, e.stop, e.step));
      break;
    case IndexEntry::Kind::Ellipsis:
      out.push_back(Ellipsis);
      break;
    case IndexEntry::Kind::NewAxis:
      out.push_back(NewAxis);
      break;
    }
  }
  return out;
}

/// The arguments of tf.strided_slice for the same index.
struct TfSpec {
  std::vector<int64_t> begin, end, strides;
  int64_t beginMask = 0, endMask = 0, ellipsisMask = 0, newAxisMask = 0,
          shrinkAxisMask = 0;
};

inline TfSpec toTf(const NumpyIndex &index) {
  TfSpec tf;
  for (size_t i = 0; i < index.size(); ++i) {
    const IndexEntry &e = index[i];
    int64_t bit = int64_t{1} << i;
    int64_t b = 0, en = 0, s = 1;
    switch (e.kind) {
    case IndexEntry::Kind::Int:
      // As TensorFlow's Python does: end = begin + 1 (ignored).
      b = e.index;
      en = e.index + 1;
      tf.shrinkAxisMask |= bit;
      break;
    case IndexEntry::Kind::Range:
      s = e.step.value_or(1);
      if (e.start)
        b = *e.start;
      else
        tf.beginMask |= bit;
      if (e.stop)
        en = *e.stop;
      else
        tf.endMask |= bit;
      break;
    case IndexEntry::Kind::Ellipsis:
      tf.ellipsisMask |= bit;
      break;
    case IndexEntry::Kind::NewAxis:
      tf.newAxisMask |= bit;
      break;
    }
    tf.begin.push_back(b);
    tf.end.push_back(en);
    tf.strides.push_back(s);
  }
  return tf;
}

/// The input dim each entry indexes (-1 for an ellipsis or a new axis):
/// entries before the ellipsis from dim 0 on, those after it up to the
/// last dim.
inline std::vector<int64_t> dimsIndexed(const NumpyIndex &index, int64_t rank) {
  int64_t indexing = 0;
  size_t ellipsis = index.size();
  for (size_t i = 0; i < index.size(); ++i) {
    if (index[i].kind == IndexEntry::Kind::Ellipsis)
      ellipsis = i;
    else if (index[i].kind != IndexEntry::Kind::NewAxis)
      ++indexing;
  }
  std::vector<int64_t> dims(index.size(), -1);
  int64_t next = 0;
  for (size_t i = 0; i < index.size(); ++i) {
    if (i == ellipsis) {
      next += rank - indexing;
      continue;
    }
    if (index[i].kind == IndexEntry::Kind::Int ||
        index[i].kind == IndexEntry::Kind::Range)
      dims[i] = next++;
  }
  return dims;
}

/// A random index for `shape` whose integers lie inside their dims: up to
/// rank integer and slice entries, sometimes an ellipsis and new axes.
/// With `denseOnly`, exactly one integer or slice per dim and nothing else
/// (what fnc.strided_slice itself takes).
inline NumpyIndex randomIndex(std::mt19937 &rng,
                              const std::vector<int64_t> &shape,
                              bool denseOnly = false) {
  auto uniform = [&](int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
  };
  auto chance = [&](double p) { return std::bernoulli_distribution(p)(rng); };
  int64_t rank = static_cast<int64_t>(shape.size());
  NumpyIndex index;
  int64_t count = denseOnly ? rank : uniform(0, rank);
  for (int64_t i = 0; i < count; ++i)
    index.push_back({});
  if (!denseOnly) {
    if (chance(0.3))
      index.insert(index.begin() + uniform(0, index.size()),
                   IndexEntry::of(IndexEntry::Kind::Ellipsis));
    for (int64_t k = uniform(0, 2) * chance(0.4); k > 0; --k)
      index.insert(index.begin() + uniform(0, index.size()),
                   IndexEntry::of(IndexEntry::Kind::NewAxis));
  }
  std::vector<int64_t> dims = dimsIndexed(index, rank);
  for (size_t i = 0; i < index.size(); ++i) {
    if (dims[i] < 0)
      continue;
    int64_t n = shape[dims[i]];
    IndexEntry &e = index[i];
    if (n > 0 && chance(0.3)) {
      e.kind = IndexEntry::Kind::Int;
      e.index = uniform(-n, n - 1);
      continue;
    }
    e.kind = IndexEntry::Kind::Range;
    auto bound = [&]() -> std::optional<int64_t> {
      if (chance(0.3))
        return std::nullopt;
      return uniform(-n - 3, n + 3);
    };
    e.start = bound();
    e.stop = bound();
    if (!chance(0.3)) {
      int64_t s = uniform(-3, 2);
      e.step = s >= 0 ? s + 1 : s;
    }
  }
  return index;
}

/// The spec of fnc.strided_slice for an index of one integer or slice per
/// dim (randomIndex with denseOnly): omitted bounds become the sentinels
/// that clamp to their side.
inline shapes::SliceSpec denseSpec(const NumpyIndex &index) {
  shapes::SliceSpec spec;
  for (const IndexEntry &e : index) {
    if (e.kind == IndexEntry::Kind::Int) {
      spec.begin.push_back(e.index);
      spec.end.push_back(0);
      spec.strides.push_back(1);
      spec.shrink.push_back(true);
      continue;
    }
    int64_t step = e.step.value_or(1);
    spec.begin.push_back(
        e.start.value_or(step > 0 ? shapes::kSliceMin : shapes::kSliceMax));
    spec.end.push_back(
        e.stop.value_or(step > 0 ? shapes::kSliceMax : shapes::kSliceMin));
    spec.strides.push_back(step);
    spec.shrink.push_back(false);
  }
  return spec;
}

/// The indices a Python slice reads from a dim of size n.
inline std::vector<int64_t> sliceIndices(int64_t n,
                                         std::optional<int64_t> start,
                                         std::optional<int64_t> stop,
                                         std::optional<int64_t> stepOpt) {
  int64_t step = stepOpt.value_or(1);
  int64_t lower = step < 0 ? -1 : 0, upper = step < 0 ? n - 1 : n;
  auto fix = [&](std::optional<int64_t> v, int64_t omitted) {
    if (!v)
      return omitted;
    int64_t b = *v < 0 ? *v + n : *v;
    return std::min(std::max(b, lower), upper);
  };
  int64_t first = fix(start, step < 0 ? upper : lower);
  int64_t last = fix(stop, step < 0 ? lower : upper);
  std::vector<int64_t> out;
  for (int64_t i = first; step > 0 ? i < last : i > last; i += step)
    out.push_back(i);
  return out;
}

/// x[index] for x of `shape` holding `values` row-major: its shape and its
/// values. The index must be valid (integers inside their dims).
struct Indexed {
  std::vector<int64_t> shape;
  std::vector<double> values;
};

inline Indexed referenceIndex(const std::vector<int64_t> &shape,
                              const std::vector<double> &values,
                              const NumpyIndex &index) {
  int64_t rank = static_cast<int64_t>(shape.size());
  std::vector<int64_t> dims = dimsIndexed(index, rank);
  // The indices each input dim reads; whole dims unless an entry says.
  std::vector<std::vector<int64_t>> reads(rank);
  std::vector<bool> given(rank, false);
  for (size_t i = 0; i < index.size(); ++i) {
    if (dims[i] < 0)
      continue;
    int64_t d = dims[i], n = shape[d];
    given[d] = true;
    if (index[i].kind == IndexEntry::Kind::Int)
      reads[d] = {index[i].index < 0 ? index[i].index + n : index[i].index};
    else
      reads[d] = sliceIndices(n, index[i].start, index[i].stop, index[i].step);
  }
  for (int64_t d = 0; d < rank; ++d)
    if (!given[d])
      reads[d] =
          sliceIndices(shape[d], std::nullopt, std::nullopt, std::nullopt);
  // The result shape, in entry order.
  Indexed out;
  int64_t next = 0;
  auto wholeUpTo = [&](int64_t end) {
    for (; next < end; ++next)
      out.shape.push_back(static_cast<int64_t>(reads[next].size()));
  };
  for (size_t i = 0; i < index.size(); ++i) {
    switch (index[i].kind) {
    case IndexEntry::Kind::Ellipsis: {
      int64_t end = rank;
      for (size_t j = i + 1; j < index.size(); ++j)
        if (dims[j] >= 0) {
          end = dims[j];
          break;
        }
      wholeUpTo(end);
      break;
    }
    case IndexEntry::Kind::NewAxis:
      out.shape.push_back(1);
      break;
    case IndexEntry::Kind::Int:
      next = dims[i] + 1;
      break;
    case IndexEntry::Kind::Range:
      out.shape.push_back(static_cast<int64_t>(reads[dims[i]].size()));
      next = dims[i] + 1;
      break;
    }
  }
  wholeUpTo(rank);
  // Every combination of the reads, row-major.
  std::vector<int64_t> strides(rank, 1);
  for (int64_t d = rank - 2; d >= 0; --d)
    strides[d] = strides[d + 1] * shape[d + 1];
  for (const auto &r : reads)
    if (r.empty())
      return out;
  std::vector<size_t> at(rank, 0);
  while (true) {
    int64_t flat = 0;
    for (int64_t d = 0; d < rank; ++d)
      flat += reads[d][at[d]] * strides[d];
    out.values.push_back(values[flat]);
    int64_t d = rank - 1;
    for (; d >= 0; --d) {
      if (++at[d] < reads[d].size())
        break;
      at[d] = 0;
    }
    if (d < 0)
      break;
  }
  return out;
}

} // namespace fnc::testing

#endif // FNC_UNITTESTS_SUPPORT_RANDOMINDEX_H
