//===- ShapeOps.cpp - Reference kernels of the data-movement ops ----------===//
//
// transpose, slice (and its transpose, sliceGrad), pad, concat, gather and
// one_hot. reshape, expand_dims and
// squeeze need no kernel: they share the buffer (Array::withShape).
//
//===----------------------------------------------------------------------===//

#include "Dispatch.h"
#include "fnc/Shape/ShapeRules.h"

#include <algorithm>
#include <cstring>

namespace fnc::ref {

namespace {

// Copies out's index space from x, where `strides` are x's element strides
// per dim of out and `base` is the offset of out's first element in x.
void stridedCopy(const Array &x, const Shape &strides, int64_t base,
                 Array &out) {
  dispatch(x.dtype, [&](auto tag) {
    using T = decltype(tag);
    const T *px = x.data<T>() + base;
    T *po = out.mutableData<T>();
    int64_t inner = strides.empty() ? 0 : strides.back();
    forEachRow<1>(
        out.shape, {&strides},
        [&](int64_t o, const std::array<int64_t, 1> &off, int64_t len) {
          const T *src = px + off[0];
          if (inner == 1) {
            std::memcpy(po + o, src, len * sizeof(T));
            return;
          }
          for (int64_t j = 0; j < len; ++j)
            po[o + j] = src[j * inner];
        });
  });
}

// out = x read with `strides` (x's element strides per dim of out), where
// out's dim `j` reads x's contiguous dim and out's last dim does not: each
// plane of those two dims is copied in 32 x 32 tiles, so that reads and
// writes both stay within cache lines (an element-by-element walk reads one
// element per cache line of x: 4096^2 floats took 114-120 ms, now 41-43).
void tiledTranspose(const Array &x, const Shape &strides, size_t j,
                    Array &out) {
  constexpr int64_t kTile = 32;
  const Shape &shape = out.shape;
  size_t last = shape.size() - 1;
  Shape outStrides = stridesOf(shape);
  int64_t rows = shape[j], cols = shape[last];
  int64_t rowStride = outStrides[j], colStride = strides[last];
  int64_t planes = out.numElements() / (rows * cols);
  dispatch(x.dtype, [&](auto tag) {
    using T = decltype(tag);
    const T *px = x.data<T>();
    T *po = out.mutableData<T>();
    Shape index(shape.size(), 0);
    for (int64_t p = 0; p < planes; ++p) {
      int64_t in = 0, o = 0;
      for (size_t d = 0; d < last; ++d)
        if (d != j) {
          in += index[d] * strides[d];
          o += index[d] * outStrides[d];
        }
      for (int64_t r0 = 0; r0 < rows; r0 += kTile)
        for (int64_t c0 = 0; c0 < cols; c0 += kTile) {
          int64_t r1 = std::min(rows, r0 + kTile);
          int64_t c1 = std::min(cols, c0 + kTile);
          for (int64_t r = r0; r < r1; ++r)
            for (int64_t c = c0; c < c1; ++c)
              po[o + r * rowStride + c] = px[in + r + c * colStride];
        }
      for (size_t d = last; d-- > 0;) {
        if (d == j)
          continue;
        if (++index[d] < shape[d])
          break;
        index[d] = 0;
      }
    }
  });
}

} // namespace

void transpose(const Array &x, const std::vector<int64_t> &perm, Array &out) {
  if (perm.size() != x.shape.size() || out.dtype != x.dtype)
    internalError("transpose with a wrong permutation");
  Shape xStrides = stridesOf(x.shape);
  Shape strides(perm.size());
  for (size_t d = 0; d < perm.size(); ++d)
    strides[d] = xStrides[perm[d]];
  // The dim of out that reads x's contiguous last dim.
  size_t j = 0;
  while (j < perm.size() && perm[j] != x.rank() - 1)
    ++j;
  if (out.numElements() > 0 && j + 1 < perm.size() && x.shape.back() > 1)
    tiledTranspose(x, strides, j, out);
  else
    stridedCopy(x, strides, 0, out);
}

void slice(const Array &x, const std::vector<int64_t> &offsets,
           const std::vector<int64_t> &strides, Array &out) {
  if (offsets.size() != x.shape.size() || strides.size() != x.shape.size() ||
      out.rank() != x.rank() || out.dtype != x.dtype)
    internalError("slice with wrong offsets or strides");
  if (out.numElements() == 0)
    return;
  Shape xStrides = stridesOf(x.shape);
  Shape s(strides.size());
  int64_t base = 0;
  for (size_t d = 0; d < strides.size(); ++d) {
    s[d] = xStrides[d] * strides[d];
    base += offsets[d] * xStrides[d];
  }
  stridedCopy(x, s, base, out);
}

void sliceGrad(const Array &grad, const std::vector<int64_t> &offsets,
               const std::vector<int64_t> &strides, Array &out) {
  if (offsets.size() != out.shape.size() ||
      strides.size() != out.shape.size() || grad.rank() != out.rank() ||
      out.dtype != grad.dtype)
    internalError("sliceGrad with wrong offsets or strides");
  if (out.numElements() == 0)
    return;
  // All-zero bytes are 0, 0.0 and false.
  std::memset(out.rawMutableData(), 0, out.numBytes());
  if (grad.numElements() == 0)
    return;
  Shape outStrides = stridesOf(out.shape);
  Shape s(strides.size());
  int64_t base = 0;
  for (size_t d = 0; d < strides.size(); ++d) {
    s[d] = outStrides[d] * strides[d];
    base += offsets[d] * outStrides[d];
  }
  dispatch(grad.dtype, [&](auto tag) {
    using T = decltype(tag);
    const T *pg = grad.data<T>();
    T *po = out.mutableData<T>() + base;
    int64_t inner = s.empty() ? 0 : s.back();
    forEachRow<1>(
        grad.shape, {&s},
        [&](int64_t i, const std::array<int64_t, 1> &off, int64_t len) {
          for (int64_t j = 0; j < len; ++j)
            po[off[0] + j * inner] = pg[i + j];
        });
  });
}

void pad(const Array &x, const std::vector<int64_t> &low,
         const std::vector<int64_t> &interior, const Array &value, Array &out) {
  if (low.size() != x.shape.size() || interior.size() != x.shape.size() ||
      out.rank() != x.rank() || out.dtype != x.dtype ||
      value.dtype != x.dtype || value.rank() != 0)
    internalError("pad with wrong amounts or value");
  broadcastTo(value, out);
  if (x.numElements() == 0)
    return;
  // Each element of x to its place in out: out's strides scaled by the
  // interior padding, from the corner after the low padding.
  Shape outStrides = stridesOf(out.shape);
  Shape s(low.size());
  int64_t base = 0;
  for (size_t d = 0; d < low.size(); ++d) {
    s[d] = outStrides[d] * (interior[d] + 1);
    base += low[d] * outStrides[d];
  }
  dispatch(x.dtype, [&](auto tag) {
    using T = decltype(tag);
    const T *px = x.data<T>();
    T *po = out.mutableData<T>() + base;
    int64_t inner = s.empty() ? 0 : s.back();
    forEachRow<1>(
        x.shape, {&s},
        [&](int64_t i, const std::array<int64_t, 1> &off, int64_t len) {
          for (int64_t j = 0; j < len; ++j)
            po[off[0] + j * inner] = px[i + j];
        });
  });
}

void concat(const std::vector<Array> &inputs, int64_t axis, Array &out) {
  if (axis < 0 || axis >= out.rank())
    internalError("concat axis out of range");
  int64_t outer, outSize, inner;
  splitAt(out.shape, axis, outer, outSize, inner);
  size_t elem = sizeOf(out.dtype);
  char *po = static_cast<char *>(out.rawMutableData());
  int64_t start = 0;
  for (const Array &in : inputs) {
    if (in.dtype != out.dtype || in.rank() != out.rank())
      internalError("concat of mismatched operands");
    int64_t size = in.shape[axis];
    const char *pi = static_cast<const char *>(in.rawData());
    for (int64_t o = 0; o < outer; ++o)
      std::memcpy(po + ((o * outSize + start) * inner) * elem,
                  pi + (o * size * inner) * elem, size * inner * elem);
    start += size;
  }
  if (start != outSize)
    internalError("concat result size mismatch");
}

void gather(const Array &params, const Array &indices, int64_t axis,
            Array &out) {
  if (indices.dtype != DType::i32 && indices.dtype != DType::i64)
    internalError("gather indices are not integers");
  if (axis < 0 || axis >= params.rank() || out.dtype != params.dtype)
    internalError("gather axis out of range");
  int64_t outer, size, inner;
  splitAt(params.shape, axis, outer, size, inner);
  int64_t count = indices.numElements();
  size_t elem = sizeOf(params.dtype);
  const char *pp = static_cast<const char *>(params.rawData());
  char *po = static_cast<char *>(out.rawMutableData());
  std::vector<int64_t> idx(count);
  for (int64_t i = 0; i < count; ++i) {
    idx[i] = indices.getInt(i);
    if (idx[i] < 0 || idx[i] >= size)
      throw Error(ErrorKind::OutOfRange,
                  "fnc::gather: index " + std::to_string(idx[i]) +
                      " (element " + std::to_string(i) +
                      " of the indices) is out of range for axis " +
                      std::to_string(axis) + " of params with shape " +
                      shapes::toString(params.shape) + "; valid indices are " +
                      (size == 0 ? std::string("none (the axis is empty)")
                                 : "0 to " + std::to_string(size - 1)));
  }
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < count; ++i)
      std::memcpy(po + ((o * count + i) * inner) * elem,
                  pp + ((o * size + idx[i]) * inner) * elem, inner * elem);
}

void oneHot(const Array &indices, int64_t axis, double on, double off,
            Array &out) {
  if (indices.dtype != DType::i32 && indices.dtype != DType::i64)
    internalError("one_hot indices are not integers");
  if (axis < 0 || axis >= out.rank())
    internalError("one_hot axis out of range");
  int64_t outer, depth, inner;
  splitAt(out.shape, axis, outer, depth, inner);
  dispatch(out.dtype, [&](auto tag) {
    using T = decltype(tag);
    T onValue, offValue;
    if constexpr (std::is_same_v<T, bool>) {
      onValue = on != 0;
      offValue = off != 0;
    } else {
      onValue = static_cast<T>(on);
      offValue = static_cast<T>(off);
    }
    T *po = out.mutableData<T>();
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t i = 0; i < inner; ++i) {
        int64_t index = indices.getInt(o * inner + i);
        for (int64_t d = 0; d < depth; ++d)
          po[(o * depth + d) * inner + i] = d == index ? onValue : offValue;
      }
  });
}

} // namespace fnc::ref
