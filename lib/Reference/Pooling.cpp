//===- Pooling.cpp - Reference 2-D pooling kernels and their gradients ----===//
//
// Max and average pooling of NHWC float arrays, and their input gradients,
// as TensorFlow defines them: padding never counts (a max-pooling window
// ignores it, an average divides by the number of input elements its
// window covers), and the gradient of max pooling goes to the first
// maximum of each window in row-major window order. The loops walk each
// window once per output pixel with the channels innermost (contiguous in
// NHWC).
//
//===----------------------------------------------------------------------===//

#include "Dispatch.h"

#include "fnc/Shape/ShapeRules.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>
#include <vector>

namespace fnc::ref {

Window2D Window2D::of(const std::vector<int64_t> &shape,
                      const std::vector<int64_t> &ksize,
                      const std::vector<int64_t> &strides, bool samePadding) {
  shapes::Padding pad =
      samePadding ? shapes::Padding::Same : shapes::Padding::Valid;
  int64_t top, bottom, left, right;
  shapes::conv2dPadding(shape[1], ksize[0], strides[0], pad, top, bottom);
  shapes::conv2dPadding(shape[2], ksize[1], strides[1], pad, left, right);
  return {ksize[0], ksize[1], strides[0], strides[1], top, left};
}

namespace {

/// The shapes of a pooling kernel call: batch, input rows/cols, output
/// rows/cols, channels.
struct PoolDims {
  int64_t n, h, w, oh, ow, c;
};

PoolDims poolDims(const Array &input, const Array &pooled, const char *what) {
  if (input.rank() != 4 || pooled.rank() != 4 || !isFloat(input.dtype) ||
      pooled.dtype != input.dtype)
    internalError(std::string(what) + " with wrong dtypes or ranks");
  PoolDims d{input.shape[0],  input.shape[1],  input.shape[2],
             pooled.shape[1], pooled.shape[2], input.shape[3]};
  if (pooled.shape[0] != d.n || pooled.shape[3] != d.c)
    internalError(std::string(what) + " with inconsistent shapes");
  return d;
}

void checkWindow(const Window2D &win, const char *what) {
  if (win.kh < 1 || win.kw < 1 || win.strideH < 1 || win.strideW < 1 ||
      win.padTop < 0 || win.padLeft < 0 || win.padTop >= win.kh ||
      win.padLeft >= win.kw)
    internalError(std::string(what) + " with an invalid window");
}

/// The input rows [begin, end) that the window of output row `o` covers.
std::pair<int64_t, int64_t> span(int64_t o, int64_t stride, int64_t pad,
                                 int64_t k, int64_t size) {
  int64_t start = o * stride - pad;
  return {std::max<int64_t>(start, 0), std::min(start + k, size)};
}

/// Calls fn(outPixel, inRows, inCols) for every output pixel (row-major),
/// with the element offset of the pixel in the output and the input rows
/// and columns its window covers.
template <typename Fn>
void forEachWindow(const PoolDims &d, const Window2D &win, Fn &&fn) {
  for (int64_t nb = 0; nb < d.n; ++nb)
    for (int64_t oh = 0; oh < d.oh; ++oh) {
      auto rows = span(oh, win.strideH, win.padTop, win.kh, d.h);
      for (int64_t ow = 0; ow < d.ow; ++ow) {
        auto cols = span(ow, win.strideW, win.padLeft, win.kw, d.w);
        fn(nb, ((nb * d.oh + oh) * d.ow + ow) * d.c, rows, cols);
      }
    }
}

} // namespace

void maxPool2d(const Array &input, const Window2D &win, Array &out) {
  PoolDims d = poolDims(input, out, "maxPool2d");
  checkWindow(win, "maxPool2d");
  dispatch(input.dtype, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_floating_point_v<T>) {
      const T *in = input.data<T>();
      T *po = out.mutableData<T>();
      std::fill(po, po + out.numElements(),
                -std::numeric_limits<T>::infinity());
      forEachWindow(d, win, [&](int64_t nb, int64_t o, auto rows, auto cols) {
        for (int64_t ih = rows.first; ih < rows.second; ++ih)
          for (int64_t iw = cols.first; iw < cols.second; ++iw) {
            const T *pix = in + ((nb * d.h + ih) * d.w + iw) * d.c;
            for (int64_t c = 0; c < d.c; ++c)
              po[o + c] = scalar::detail::extreme(po[o + c], pix[c], true);
          }
      });
    }
  });
}

void avgPool2d(const Array &input, const Window2D &win, Array &out) {
  PoolDims d = poolDims(input, out, "avgPool2d");
  checkWindow(win, "avgPool2d");
  dispatch(input.dtype, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_floating_point_v<T>) {
      const T *in = input.data<T>();
      T *po = out.mutableData<T>();
      std::fill(po, po + out.numElements(), T(0));
      forEachWindow(d, win, [&](int64_t nb, int64_t o, auto rows, auto cols) {
        for (int64_t ih = rows.first; ih < rows.second; ++ih)
          for (int64_t iw = cols.first; iw < cols.second; ++iw) {
            const T *pix = in + ((nb * d.h + ih) * d.w + iw) * d.c;
            for (int64_t c = 0; c < d.c; ++c)
              po[o + c] += pix[c];
          }
        T count = static_cast<T>((rows.second - rows.first) *
                                 (cols.second - cols.first));
        for (int64_t c = 0; c < d.c; ++c)
          po[o + c] /= count;
      });
    }
  });
}

void maxPool2dGrad(const Array &input, const Array &gradOutput,
                   const Window2D &win, Array &out) {
  PoolDims d = poolDims(input, gradOutput, "maxPool2dGrad");
  checkWindow(win, "maxPool2dGrad");
  if (out.dtype != input.dtype || out.shape != input.shape)
    internalError("maxPool2dGrad with an output unlike its input");
  dispatch(input.dtype, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_floating_point_v<T>) {
      const T *in = input.data<T>();
      const T *dy = gradOutput.data<T>();
      T *dx = out.mutableData<T>();
      std::fill(dx, dx + out.numElements(), T(0));
      // Per channel: the best value so far and the input offset holding it.
      std::vector<T> best(d.c);
      std::vector<int64_t> at(d.c);
      forEachWindow(d, win, [&](int64_t nb, int64_t o, auto rows, auto cols) {
        bool first = true;
        for (int64_t ih = rows.first; ih < rows.second; ++ih)
          for (int64_t iw = cols.first; iw < cols.second; ++iw) {
            int64_t base = ((nb * d.h + ih) * d.w + iw) * d.c;
            for (int64_t c = 0; c < d.c; ++c) {
              T v = in[base + c];
              if (first || v > best[c] ||
                  (std::isnan(v) && !std::isnan(best[c]))) {
                best[c] = v;
                at[c] = base + c;
              }
            }
            first = false;
          }
        if (first)
          return; // an empty window (no input rows): nothing to pass on
        for (int64_t c = 0; c < d.c; ++c)
          dx[at[c]] += dy[o + c];
      });
    }
  });
}

void avgPool2dGrad(const Array &gradOutput, const Window2D &win, Array &out) {
  PoolDims d = poolDims(out, gradOutput, "avgPool2dGrad");
  checkWindow(win, "avgPool2dGrad");
  dispatch(out.dtype, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_floating_point_v<T>) {
      const T *dy = gradOutput.data<T>();
      T *dx = out.mutableData<T>();
      std::fill(dx, dx + out.numElements(), T(0));
      forEachWindow(d, win, [&](int64_t nb, int64_t o, auto rows, auto cols) {
        T count = static_cast<T>((rows.second - rows.first) *
                                 (cols.second - cols.first));
        for (int64_t ih = rows.first; ih < rows.second; ++ih)
          for (int64_t iw = cols.first; iw < cols.second; ++iw) {
            T *pix = dx + ((nb * d.h + ih) * d.w + iw) * d.c;
            for (int64_t c = 0; c < d.c; ++c)
              pix[c] += dy[o + c] / count;
          }
      });
    }
  });
}

} // namespace fnc::ref
