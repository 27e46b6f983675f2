//===- ShapeRules.cpp - Result-shape rules of the fnc ops -----------------===//
//
// See ShapeRules.h. Messages name the offending shapes and axes; callers
// prefix them with the op name.
//
//===----------------------------------------------------------------------===//

#include "fnc/Shape/ShapeRules.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

namespace fnc::shapes {

std::string toString(const Shape &shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i)
      s += ", ";
    s += isDynamic(shape[i]) ? "?" : std::to_string(shape[i]);
  }
  return s + "]";
}

std::string tupleString(const Shape &shape) {
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i)
    s += (i ? ", " : "") +
         (isDynamic(shape[i]) ? std::string("None") : std::to_string(shape[i]));
  if (shape.size() == 1)
    s += ",";
  return s + ")";
}

std::string describe(DType dtype, const Shape &shape) {
  std::string s = std::string(dtypeName(dtype)) + "[";
  for (size_t i = 0; i < shape.size(); ++i)
    s += (i ? "," : "") +
         (isDynamic(shape[i]) ? std::string("?") : std::to_string(shape[i]));
  return s + "]";
}

int64_t numElements(const Shape &shape) {
  int64_t n = 1;
  bool overflow = false;
  for (int64_t d : shape) {
    if (isDynamic(d))
      return kDynamic;
    overflow |= __builtin_mul_overflow(n, d, &n);
  }
  // A zero dim makes 0 whatever overflowed before it.
  if (std::find(shape.begin(), shape.end(), 0) != shape.end())
    return 0;
  return overflow ? std::numeric_limits<int64_t>::max() : n;
}

bool normalizeAxis(int64_t axis, int64_t rank, int64_t &result) {
  if (axis < -rank || axis >= rank)
    return false;
  result = axis < 0 ? axis + rank : axis;
  return true;
}

static std::string axisError(int64_t axis, int64_t rank) {
  return "axis " + std::to_string(axis) + " is out of range for rank " +
         std::to_string(rank) + " (valid: " + std::to_string(-rank) + " to " +
         std::to_string(rank - 1) + ")";
}

ShapeResult broadcast(const Shape &a, const Shape &b) {
  size_t rank = std::max(a.size(), b.size());
  Shape out(rank);
  for (size_t i = 0; i < rank; ++i) {
    int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da == db)
      out[i] = da;
    else if (da == 1)
      out[i] = db;
    else if (db == 1)
      out[i] = da;
    else if (isDynamic(da))
      out[i] = db;
    else if (isDynamic(db))
      out[i] = da;
    else
      return ShapeResult::failure(
          "shapes " + toString(a) + " and " + toString(b) +
          " are not broadcast-compatible (dimension " + std::to_string(i) +
          ": " + std::to_string(da) + " vs " + std::to_string(db) +
          "); each dimension must match or be 1");
  }
  return {out, {}};
}

ShapeResult broadcast(const std::vector<Shape> &shapes) {
  ShapeResult r{{}, {}};
  for (const Shape &s : shapes) {
    r = broadcast(r.shape, s);
    if (!r.ok())
      return r;
  }
  return r;
}

ShapeResult broadcastTo(const Shape &from, const Shape &to) {
  auto fail = [&] {
    return ShapeResult::failure("cannot broadcast shape " + toString(from) +
                                " to " + toString(to) +
                                "; each dimension must match or be 1");
  };
  if (from.size() > to.size())
    return fail();
  size_t lead = to.size() - from.size();
  for (size_t i = 0; i < from.size(); ++i) {
    int64_t f = from[i], t = to[lead + i];
    if (f == 1 || f == t || isDynamic(f) || isDynamic(t))
      continue;
    return fail();
  }
  return {to, {}};
}

ShapeResult reductionAxes(const Shape &in, const std::vector<int64_t> &axes) {
  int64_t rank = in.size();
  Shape result;
  if (axes.empty()) {
    for (int64_t i = 0; i < rank; ++i)
      result.push_back(i);
    return {result, {}};
  }
  for (int64_t axis : axes) {
    int64_t a;
    if (!normalizeAxis(axis, rank, a))
      return ShapeResult::failure("reduction " + axisError(axis, rank));
    if (std::find(result.begin(), result.end(), a) != result.end())
      return ShapeResult::failure("reduction axis " + std::to_string(axis) +
                                  " is given twice");
    result.push_back(a);
  }
  std::sort(result.begin(), result.end());
  return {result, {}};
}

ShapeResult reduce(const Shape &in, const std::vector<int64_t> &axes,
                   bool keepDims) {
  ShapeResult ax = reductionAxes(in, axes);
  if (!ax.ok())
    return ax;
  Shape out;
  for (int64_t i = 0, e = in.size(); i < e; ++i) {
    bool reduced =
        std::find(ax.shape.begin(), ax.shape.end(), i) != ax.shape.end();
    if (!reduced)
      out.push_back(in[i]);
    else if (keepDims)
      out.push_back(1);
  }
  return {out, {}};
}

ShapeResult reduceAxis(const Shape &in, int64_t axis) {
  int64_t a;
  if (!normalizeAxis(axis, in.size(), a))
    return ShapeResult::failure(axisError(axis, in.size()));
  Shape out = in;
  out.erase(out.begin() + a);
  return {out, {}};
}

ShapeResult matmul(const Shape &a, const Shape &b) {
  if (a.size() < 2 || b.size() < 2)
    return ShapeResult::failure(
        "matmul needs operands of rank >= 2, got " + toString(a) + " and " +
        toString(b) + "; use expand_dims to make a vector a matrix");
  int64_t k1 = a[a.size() - 1], k2 = b[b.size() - 2];
  if (!isDynamic(k1) && !isDynamic(k2) && k1 != k2)
    return ShapeResult::failure("matmul inner dimensions differ: " +
                                toString(a) + " x " + toString(b) + " (" +
                                std::to_string(k1) + " vs " +
                                std::to_string(k2) + ")");
  Shape batchA(a.begin(), a.end() - 2), batchB(b.begin(), b.end() - 2);
  ShapeResult batch = broadcast(batchA, batchB);
  if (!batch.ok())
    return ShapeResult::failure("matmul batch dimensions: " + batch.error);
  Shape out = batch.shape;
  out.push_back(a[a.size() - 2]);
  out.push_back(b[b.size() - 1]);
  return {out, {}};
}

ShapeResult transpose(const Shape &in, const std::vector<int64_t> &perm) {
  int64_t rank = in.size();
  if (static_cast<int64_t>(perm.size()) != rank)
    return ShapeResult::failure("permutation " + toString(perm) + " has " +
                                std::to_string(perm.size()) +
                                " entries but the operand has rank " +
                                std::to_string(rank));
  std::vector<bool> seen(rank, false);
  Shape out(rank);
  for (int64_t i = 0; i < rank; ++i) {
    int64_t p = perm[i];
    if (p < 0 || p >= rank || seen[p])
      return ShapeResult::failure("permutation " + toString(perm) +
                                  " is not a permutation of [0, " +
                                  std::to_string(rank) + ")");
    seen[p] = true;
    out[i] = in[p];
  }
  return {out, {}};
}

ShapeResult reshape(const Shape &in, const Shape &target) {
  int64_t unknownAt = -1, known = 1;
  for (int64_t i = 0, e = target.size(); i < e; ++i) {
    int64_t d = target[i];
    if (d == -1 || isDynamic(d)) {
      if (unknownAt >= 0)
        return ShapeResult::failure(
            "reshape target " + toString(target) +
            " has more than one unknown dimension; at most one may be "
            "inferred");
      unknownAt = i;
      continue;
    }
    if (d < 0)
      return ShapeResult::failure("reshape target " + toString(target) +
                                  " has a negative dimension");
    if (__builtin_mul_overflow(known, d, &known))
      return ShapeResult::failure("reshape target " + toString(target) +
                                  " has more elements than 64 bits can count");
  }
  Shape out = target;
  int64_t count = numElements(in);
  if (unknownAt >= 0) {
    if (isDynamic(count)) {
      out[unknownAt] = kDynamic;
    } else if (known == 0 ? count != 0 : count % known != 0) {
      return ShapeResult::failure("cannot reshape " + toString(in) + " (" +
                                  std::to_string(count) + " elements) to " +
                                  toString(target));
    } else {
      out[unknownAt] = known == 0 ? 0 : count / known;
    }
  } else if (!isDynamic(count) && count != known) {
    return ShapeResult::failure(
        "cannot reshape " + toString(in) + " (" + std::to_string(count) +
        " elements) to " + toString(target) + " (" + std::to_string(known) +
        " elements); the element count must stay the same");
  }
  return {out, {}};
}

ShapeResult expandDims(const Shape &in, int64_t axis) {
  int64_t rank = in.size(), a;
  if (!normalizeAxis(axis, rank + 1, a))
    return ShapeResult::failure("expand_dims " + axisError(axis, rank + 1));
  Shape out = in;
  out.insert(out.begin() + a, 1);
  return {out, {}};
}

ShapeResult squeeze(const Shape &in, const std::vector<int64_t> &axes) {
  int64_t rank = in.size();
  std::vector<bool> drop(rank, false);
  if (axes.empty()) {
    for (int64_t i = 0; i < rank; ++i)
      drop[i] = in[i] == 1;
  }
  for (int64_t axis : axes) {
    int64_t a;
    if (!normalizeAxis(axis, rank, a))
      return ShapeResult::failure("squeeze " + axisError(axis, rank));
    if (in[a] != 1 && !isDynamic(in[a]))
      return ShapeResult::failure(
          "cannot squeeze axis " + std::to_string(axis) + " of shape " +
          toString(in) + ": its size is " + std::to_string(in[a]) +
          ", not 1");
    drop[a] = true;
  }
  Shape out;
  for (int64_t i = 0; i < rank; ++i)
    if (!drop[i])
      out.push_back(in[i]);
  return {out, {}};
}

ShapeResult slice(const Shape &in, const std::vector<int64_t> &offsets,
                  const std::vector<int64_t> &sizes,
                  const std::vector<int64_t> &strides) {
  size_t rank = in.size();
  if (offsets.size() != rank || sizes.size() != rank ||
      strides.size() != rank)
    return ShapeResult::failure(
        "slice of a rank-" + std::to_string(rank) +
        " operand needs " + std::to_string(rank) +
        " offsets, sizes and strides, got " + std::to_string(offsets.size()) +
        ", " + std::to_string(sizes.size()) + " and " +
        std::to_string(strides.size()));
  Shape out = sizes;
  for (size_t i = 0; i < rank; ++i) {
    if (offsets[i] < 0 || (sizes[i] < 0 && sizes[i] != kSliceToEnd) ||
        strides[i] < 1)
      return ShapeResult::failure(
          "slice dimension " + std::to_string(i) +
          ": offset must be >= 0, size >= 0 or -1 (to the end) and stride "
          ">= 1 (got offset " +
          std::to_string(offsets[i]) + ", size " + std::to_string(sizes[i]) +
          ", stride " + std::to_string(strides[i]) + ")");
    if (isDynamic(in[i])) {
      if (sizes[i] == kSliceToEnd)
        out[i] = kDynamic;
      continue;
    }
    if (sizes[i] == 0 || sizes[i] == kSliceToEnd) {
      // An empty slice may start at the end, not past it.
      if (offsets[i] > in[i])
        return ShapeResult::failure(
            "slice dimension " + std::to_string(i) + " starts at " +
            std::to_string(offsets[i]) + " but the operand " + toString(in) +
            " has only " + std::to_string(in[i]));
      if (sizes[i] == kSliceToEnd) // ceil((in - offset) / stride)
        out[i] =
            in[i] == offsets[i] ? 0 : (in[i] - offsets[i] - 1) / strides[i] + 1;
      continue;
    }
    int64_t last = offsets[i] + (sizes[i] - 1) * strides[i];
    if (last >= in[i])
      return ShapeResult::failure(
          "slice dimension " + std::to_string(i) + " reads element " +
          std::to_string(last) + " but the operand " + toString(in) +
          " has only " + std::to_string(in[i]));
  }
  return {out, {}};
}

SliceDim resolveSliceDim(int64_t n, int64_t begin, int64_t end,
                         int64_t stride) {
  // Negative bounds count from the end (n + bound cannot overflow: n >= 0),
  // then clamp to the valid range of the stride's direction.
  int64_t lo = stride > 0 ? 0 : -1, hi = stride > 0 ? n : n - 1;
  auto clamp = [&](int64_t bound) {
    int64_t b = bound < 0 ? n + bound : bound;
    return std::min(std::max(b, lo), hi);
  };
  int64_t b = clamp(begin), e = clamp(end);
  // |stride| as unsigned; the distance is at most n.
  uint64_t step = stride > 0 ? static_cast<uint64_t>(stride)
                             : -static_cast<uint64_t>(stride);
  int64_t distance = stride > 0 ? e - b : b - e;
  int64_t count =
      distance <= 0
          ? 0
          : static_cast<int64_t>(static_cast<uint64_t>(distance - 1) / step) +
                1;
  return {b, count};
}

int64_t resolveSliceIndex(int64_t n, int64_t index) {
  if (index < -n || index >= n)
    return -1;
  return index < 0 ? index + n : index;
}

SliceWindow resolveSlice(const Shape &in, const SliceSpec &spec) {
  SliceWindow w;
  for (size_t i = 0; i < in.size(); ++i) {
    if (spec.shrink[i]) {
      w.shape.push_back(1);
      w.offsets.push_back(resolveSliceIndex(in[i], spec.begin[i]));
      w.strides.push_back(1);
      continue;
    }
    SliceDim r =
        resolveSliceDim(in[i], spec.begin[i], spec.end[i], spec.strides[i]);
    w.shape.push_back(r.count);
    w.offsets.push_back(r.start);
    w.strides.push_back(spec.strides[i]);
  }
  return w;
}

std::string validIndices(int64_t n) {
  if (n == 0)
    return "the dim is empty";
  return "valid: " + std::to_string(-n) + " to " + std::to_string(n - 1);
}

/// Whether the range [begin, end) with `stride` is empty for every dim
/// size: both bounds count from the same side and `end` does not lie
/// after `begin` in the stride's direction.
static bool emptyForEverySize(int64_t begin, int64_t end, int64_t stride) {
  if ((begin < 0) != (end < 0))
    return false;
  return stride > 0 ? end <= begin : begin <= end;
}

ShapeResult stridedSlice(const Shape &in, const SliceSpec &spec) {
  size_t rank = in.size();
  if (spec.begin.size() != rank || spec.end.size() != rank ||
      spec.strides.size() != rank || spec.shrink.size() != rank)
    return ShapeResult::failure(
        "strided slice of a rank-" + std::to_string(rank) + " operand needs " +
        std::to_string(rank) + " begins, ends, strides and shrink flags, got " +
        std::to_string(spec.begin.size()) + ", " +
        std::to_string(spec.end.size()) + ", " +
        std::to_string(spec.strides.size()) + " and " +
        std::to_string(spec.shrink.size()));
  Shape out;
  for (size_t i = 0; i < rank; ++i) {
    std::string dim = "dimension " + std::to_string(i);
    int64_t begin = spec.begin[i], end = spec.end[i], stride = spec.strides[i];
    if (spec.shrink[i]) {
      if (end != 0 || stride != 1)
        return ShapeResult::failure(
            dim +
            " is an index (shrink): its end must be 0 and its stride 1 "
            "(got end " +
            std::to_string(end) + ", stride " + std::to_string(stride) + ")");
      if (!isDynamic(in[i]) && resolveSliceIndex(in[i], begin) < 0)
        return ShapeResult::failure("index " + std::to_string(begin) +
                                    " is out of range for " + dim +
                                    " of size " + std::to_string(in[i]) + " (" +
                                    validIndices(in[i]) + ")");
      continue;
    }
    if (stride == 0 || stride == kSliceMin)
      return ShapeResult::failure(
          dim + ": the stride is " + std::to_string(stride) +
          "; strides must be non-zero (and above -2^63)");
    if (!isDynamic(in[i]))
      out.push_back(resolveSliceDim(in[i], begin, end, stride).count);
    else
      out.push_back(emptyForEverySize(begin, end, stride) ? 0 : kDynamic);
  }
  return {out, {}};
}

ShapeResult stridedSliceGrad(const Shape &in, const Shape &grad,
                             const SliceSpec &spec) {
  ShapeResult sliced = stridedSlice(in, spec);
  if (!sliced.ok())
    return sliced;
  bool fits = sliced.shape.size() == grad.size();
  for (size_t i = 0; fits && i < grad.size(); ++i)
    fits = isDynamic(grad[i]) || isDynamic(sliced.shape[i]) ||
           grad[i] == sliced.shape[i];
  if (!fits)
    return ShapeResult::failure("the gradient has shape " + toString(grad) +
                                " but the slice of " + toString(in) +
                                " has shape " + toString(sliced.shape));
  return {in, {}};
}

ShapeResult pad(const Shape &in, const std::vector<int64_t> &low,
                const std::vector<int64_t> &high,
                const std::vector<int64_t> &interior) {
  size_t rank = in.size();
  if (low.size() != rank || high.size() != rank || interior.size() != rank)
    return ShapeResult::failure(
        "pad of a rank-" + std::to_string(rank) + " operand needs " +
        std::to_string(rank) + " low, high and interior amounts, got " +
        std::to_string(low.size()) + ", " + std::to_string(high.size()) +
        " and " + std::to_string(interior.size()));
  Shape out(rank);
  for (size_t i = 0; i < rank; ++i) {
    if (low[i] < 0 || high[i] < 0 || interior[i] < 0)
      return ShapeResult::failure("pad dimension " + std::to_string(i) +
                                  ": the amounts must be >= 0 (got low " +
                                  std::to_string(low[i]) + ", high " +
                                  std::to_string(high[i]) + ", interior " +
                                  std::to_string(interior[i]) + ")");
    if (isDynamic(in[i])) {
      out[i] = kDynamic;
      continue;
    }
    int64_t gaps = in[i] > 0 ? in[i] - 1 : 0, n = 0;
    if (__builtin_mul_overflow(gaps, interior[i], &n) ||
        __builtin_add_overflow(n, in[i], &n) ||
        __builtin_add_overflow(n, low[i], &n) ||
        __builtin_add_overflow(n, high[i], &n))
      return ShapeResult::failure("pad dimension " + std::to_string(i) +
                                  " of " + toString(in) +
                                  " would overflow 64 bits");
    out[i] = n;
  }
  return {out, {}};
}

ShapeResult concat(const std::vector<Shape> &inputs, int64_t axis) {
  if (inputs.empty())
    return ShapeResult::failure("concat needs at least one operand");
  int64_t rank = inputs[0].size(), a;
  if (!normalizeAxis(axis, rank, a))
    return ShapeResult::failure("concat " + axisError(axis, rank));
  Shape out = inputs[0];
  for (size_t i = 1; i < inputs.size(); ++i) {
    const Shape &s = inputs[i];
    if (static_cast<int64_t>(s.size()) != rank)
      return ShapeResult::failure("concat operands must have the same rank: " +
                                  toString(inputs[0]) + " vs " + toString(s));
    for (int64_t d = 0; d < rank; ++d) {
      if (d == a) {
        out[d] = isDynamic(out[d]) || isDynamic(s[d]) ? kDynamic
                                                      : out[d] + s[d];
        continue;
      }
      if (isDynamic(out[d])) {
        out[d] = s[d];
      } else if (!isDynamic(s[d]) && s[d] != out[d]) {
        return ShapeResult::failure(
            "concat operands differ in dimension " + std::to_string(d) +
            " (not the concat axis): " + toString(inputs[0]) + " vs " +
            toString(s));
      }
    }
  }
  return {out, {}};
}

ShapeResult gather(const Shape &params, const Shape &indices, int64_t axis) {
  int64_t a;
  if (!normalizeAxis(axis, params.size(), a))
    return ShapeResult::failure("gather " + axisError(axis, params.size()));
  Shape out(params.begin(), params.begin() + a);
  out.insert(out.end(), indices.begin(), indices.end());
  out.insert(out.end(), params.begin() + a + 1, params.end());
  return {out, {}};
}

ShapeResult oneHot(const Shape &indices, int64_t depth, int64_t axis) {
  if (depth < 0)
    return ShapeResult::failure("one_hot depth must be >= 0, got " +
                                std::to_string(depth));
  int64_t rank = indices.size(), a;
  if (!normalizeAxis(axis, rank + 1, a))
    return ShapeResult::failure("one_hot " + axisError(axis, rank + 1));
  Shape out = indices;
  out.insert(out.begin() + a, depth);
  return {out, {}};
}

void conv2dPadding(int64_t in, int64_t kernel, int64_t stride, Padding padding,
                   int64_t &before, int64_t &after) {
  before = after = 0;
  if (padding == Padding::Valid || isDynamic(in))
    return;
  int64_t out = (in + stride - 1) / stride;
  int64_t total = std::max<int64_t>((out - 1) * stride + kernel - in, 0);
  before = total / 2;
  after = total - before;
}

static int64_t convOutDim(int64_t in, int64_t kernel, int64_t stride,
                          Padding padding) {
  if (isDynamic(in) || isDynamic(kernel))
    return kDynamic;
  if (padding == Padding::Same)
    return (in + stride - 1) / stride;
  return in < kernel ? 0 : (in - kernel) / stride + 1;
}

ShapeResult conv2d(const Shape &input, const Shape &filter, int64_t strideH,
                   int64_t strideW, Padding padding) {
  if (input.size() != 4 || filter.size() != 4)
    return ShapeResult::failure(
        "conv2d needs a rank-4 NHWC input and a rank-4 HWCF filter, got " +
        toString(input) + " and " + toString(filter));
  if (strideH < 1 || strideW < 1)
    return ShapeResult::failure("conv2d strides must be >= 1, got [" +
                                std::to_string(strideH) + ", " +
                                std::to_string(strideW) + "]");
  int64_t c = input[3], fc = filter[2];
  if (!isDynamic(c) && !isDynamic(fc) && c != fc)
    return ShapeResult::failure(
        "conv2d input channels (" + std::to_string(c) +
        ") differ from the filter's input channels (" + std::to_string(fc) +
        "): input " + toString(input) + ", filter " + toString(filter));
  if (padding == Padding::Valid) {
    for (int d = 0; d < 2; ++d)
      if (!isDynamic(input[1 + d]) && !isDynamic(filter[d]) &&
          filter[d] > input[1 + d])
        return ShapeResult::failure(
            "conv2d with valid padding: filter " + toString(filter) +
            " is larger than the input " + toString(input) +
            "; use same padding or a smaller filter");
  }
  Shape out = {input[0], convOutDim(input[1], filter[0], strideH, padding),
               convOutDim(input[2], filter[1], strideW, padding), filter[3]};
  return {out, {}};
}

ShapeResult pool2d(const std::string &op, const Shape &input,
                   const std::vector<int64_t> &ksize,
                   const std::vector<int64_t> &strides, Padding padding) {
  if (input.size() != 4)
    return ShapeResult::failure(op + " needs a rank-4 NHWC input, got " +
                                toString(input));
  for (const auto &[name, values] :
       {std::pair<const char *, const std::vector<int64_t> *>{"ksize", &ksize},
        {"strides", &strides}}) {
    if (values->size() != 2)
      return ShapeResult::failure(op + " " + name +
                                  " must have 2 entries (height, width), got " +
                                  std::to_string(values->size()));
    if ((*values)[0] < 1 || (*values)[1] < 1)
      return ShapeResult::failure(op + " " + name + " must be >= 1, got " +
                                  toString(*values));
  }
  if (padding == Padding::Valid)
    for (int d = 0; d < 2; ++d)
      if (!isDynamic(input[1 + d]) && ksize[d] > input[1 + d])
        return ShapeResult::failure(
            op + " with valid padding: window " + toString(ksize) +
            " is larger than the input " + toString(input) +
            "; use same padding or a smaller window");
  Shape out = {input[0], convOutDim(input[1], ksize[0], strides[0], padding),
               convOutDim(input[2], ksize[1], strides[1], padding), input[3]};
  return {out, {}};
}

ShapeResult pool2dGrad(const std::string &op, const Shape &input,
                       const Shape &gradOutput,
                       const std::vector<int64_t> &ksize,
                       const std::vector<int64_t> &strides, Padding padding) {
  ShapeResult pooled = pool2d(op, input, ksize, strides, padding);
  if (!pooled.ok())
    return pooled;
  bool match = gradOutput.size() == 4;
  for (size_t d = 0; match && d < 4; ++d)
    match = isDynamic(gradOutput[d]) || isDynamic(pooled.shape[d]) ||
            gradOutput[d] == pooled.shape[d];
  if (!match)
    return ShapeResult::failure(
        op + ": the output gradient " + toString(gradOutput) +
        " does not have the pooled shape " + toString(pooled.shape) +
        " of the input " + toString(input) +
        "; pass the gradient of the pooling op's result");
  return {input, {}};
}

ShapeResult range(double start, double limit, double delta) {
  if (delta == 0 || !std::isfinite(start) || !std::isfinite(limit) ||
      !std::isfinite(delta))
    return ShapeResult::failure("range needs finite start, limit and a "
                                "non-zero delta");
  double n = std::ceil((limit - start) / delta);
  // Converting a double beyond int64 to int64 is undefined behaviour.
  if (!(n < 9.2e18))
    return ShapeResult::failure(
        "range would have " + std::to_string(n) +
        " elements, more than fit in a tensor; use a larger delta");
  return {{n > 0 ? static_cast<int64_t>(n) : 0}, {}};
}

} // namespace fnc::shapes
