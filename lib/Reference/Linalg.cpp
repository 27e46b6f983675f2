//===- Linalg.cpp - Reference matmul and conv2d kernels -------------------===//
//
// Batched matmul with broadcast batch dims (blocked i-k-j loops over
// contiguous rows, no BLAS) and a direct NHWC x HWCF conv2d. Integer
// variants wrap around on overflow.
//
//===----------------------------------------------------------------------===//

#include "Dispatch.h"

#include <algorithm>
#include <cstring>

namespace fnc::ref {

namespace {

template <typename T> struct MulAdd {
  // c + a * b, wrapping for integers.
  static T apply(T c, T a, T b) {
    if constexpr (std::is_integral_v<T>) {
      using U = std::make_unsigned_t<T>;
      return static_cast<T>(static_cast<U>(c) +
                            static_cast<U>(a) * static_cast<U>(b));
    } else {
      return c + a * b;
    }
  }
};

// C[m x n] += A[m x k] * B[k x n]; all row-major and contiguous.
template <typename T>
void matmul2d(const T *a, const T *b, T *c, int64_t m, int64_t k, int64_t n) {
  constexpr int64_t kBlockI = 64, kBlockK = 256, kBlockJ = 1024;
  for (int64_t i0 = 0; i0 < m; i0 += kBlockI) {
    int64_t i1 = std::min(m, i0 + kBlockI);
    for (int64_t k0 = 0; k0 < k; k0 += kBlockK) {
      int64_t k1 = std::min(k, k0 + kBlockK);
      for (int64_t j0 = 0; j0 < n; j0 += kBlockJ) {
        int64_t j1 = std::min(n, j0 + kBlockJ);
        for (int64_t i = i0; i < i1; ++i) {
          T *__restrict cRow = c + i * n;
          for (int64_t kk = k0; kk < k1; ++kk) {
            T av = a[i * k + kk];
            const T *__restrict bRow = b + kk * n;
            for (int64_t j = j0; j < j1; ++j)
              cRow[j] = MulAdd<T>::apply(cRow[j], av, bRow[j]);
          }
        }
      }
    }
  }
}

} // namespace

void matmul(const Array &a, const Array &b, Array &out) {
  if (a.dtype != b.dtype || out.dtype != a.dtype || a.dtype == DType::i1 ||
      a.rank() < 2 || b.rank() < 2 || out.rank() < 2)
    internalError("matmul with wrong dtypes or ranks");
  int64_t m = a.shape[a.rank() - 2], k = a.shape.back(), n = b.shape.back();
  if (b.shape[b.rank() - 2] != k || out.shape[out.rank() - 2] != m ||
      out.shape.back() != n)
    internalError("matmul with inconsistent shapes");
  Shape outBatch(out.shape.begin(), out.shape.end() - 2);
  Shape aBatch(a.shape.begin(), a.shape.end() - 2);
  Shape bBatch(b.shape.begin(), b.shape.end() - 2);
  Shape sa = broadcastStrides(aBatch, outBatch);
  Shape sb = broadcastStrides(bBatch, outBatch);
  int64_t ia = sa.empty() ? 0 : sa.back(), ib = sb.empty() ? 0 : sb.back();
  dispatch(a.dtype, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (!std::is_same_v<T, bool>) {
      const T *pa = a.data<T>();
      const T *pb = b.data<T>();
      T *po = out.mutableData<T>();
      std::fill(po, po + out.numElements(), T(0));
      if (m * n == 0)
        return;
      forEachRow<2>(
          outBatch, {&sa, &sb},
          [&](int64_t o, const std::array<int64_t, 2> &off, int64_t len) {
            for (int64_t j = 0; j < len; ++j)
              matmul2d<T>(pa + (off[0] + j * ia) * m * k,
                          pb + (off[1] + j * ib) * k * n, po + (o + j) * m * n,
                          m, k, n);
          });
    }
  });
}

void conv2d(const Array &input, const Array &filter, int64_t strideH,
            int64_t strideW, int64_t padTop, int64_t padLeft, Array &out) {
  if (input.dtype != filter.dtype || out.dtype != input.dtype ||
      input.rank() != 4 || filter.rank() != 4 || out.rank() != 4 ||
      input.dtype == DType::i1)
    internalError("conv2d with wrong dtypes or ranks");
  int64_t batch = input.shape[0], inH = input.shape[1], inW = input.shape[2],
          channels = input.shape[3];
  int64_t kH = filter.shape[0], kW = filter.shape[1],
          features = filter.shape[3];
  int64_t outH = out.shape[1], outW = out.shape[2];
  if (filter.shape[2] != channels || out.shape[3] != features ||
      out.shape[0] != batch)
    internalError("conv2d with inconsistent shapes");
  dispatch(input.dtype, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (!std::is_same_v<T, bool>) {
      const T *pin = input.data<T>();
      const T *pf = filter.data<T>();
      T *po = out.mutableData<T>();
      std::fill(po, po + out.numElements(), T(0));
      for (int64_t nb = 0; nb < batch; ++nb)
        for (int64_t oh = 0; oh < outH; ++oh)
          for (int64_t ow = 0; ow < outW; ++ow) {
            T *__restrict outPix =
                po + ((nb * outH + oh) * outW + ow) * features;
            for (int64_t kh = 0; kh < kH; ++kh) {
              int64_t ih = oh * strideH + kh - padTop;
              if (ih < 0 || ih >= inH)
                continue;
              for (int64_t kw = 0; kw < kW; ++kw) {
                int64_t iw = ow * strideW + kw - padLeft;
                if (iw < 0 || iw >= inW)
                  continue;
                const T *inPix = pin + ((nb * inH + ih) * inW + iw) * channels;
                for (int64_t c = 0; c < channels; ++c) {
                  T v = inPix[c];
                  const T *__restrict fRow =
                      pf + ((kh * kW + kw) * channels + c) * features;
                  for (int64_t f = 0; f < features; ++f)
                    outPix[f] = MulAdd<T>::apply(outPix[f], v, fRow[f]);
                }
              }
            }
          }
    }
  });
}

} // namespace fnc::ref
