//===- Peers.h - Peer libraries the benchmarks hold fnc against -----------===//
//
// The C++ libraries a user would otherwise call for the work of
// fnc-bench-peers: oneDNN's convolution primitive (OneDnnConv.cpp) and
// Eigen's fixed-size arrays and matrices (EigenPeers.cpp, compiled with
// -march=native). Each piece is built only when its library is found;
// FNC_BENCH_HAVE_DNNL and FNC_BENCH_HAVE_EIGEN say which were. Plain
// pointers cross this header, so neither library's headers reach the
// bench's main file.
//
//===----------------------------------------------------------------------===//

#ifndef FNC_BENCH_PEERS_H
#define FNC_BENCH_PEERS_H

#include <cstdint>
#include <memory>
#include <string>

namespace fnc::bench {

/// One NHWC x HWIO 2-D convolution, TensorFlow's conventions (SAME pads
/// (out-1)*stride + k - in in total, the smaller half before).
struct ConvShape {
  int64_t n, h, w, c; // input, NHWC
  int64_t kh, kw, f;  // filter, HWIO (f = output channels)
  int64_t sh, sw;     // strides
  bool same;          // SAME, else VALID padding
  int64_t outH() const { return same ? (h + sh - 1) / sh : (h - kh) / sh + 1; }
  int64_t outW() const { return same ? (w + sw - 1) / sw : (w - kw) / sw + 1; }
  /// Padding before the first row / column (SAME only; 0 for VALID).
  int64_t padTop() const { return pad(h, kh, sh, outH()) / 2; }
  int64_t padLeft() const { return pad(w, kw, sw, outW()) / 2; }
  int64_t padBottom() const { return pad(h, kh, sh, outH()) - padTop(); }
  int64_t padRight() const { return pad(w, kw, sw, outW()) - padLeft(); }
  double flops() const { return 2.0 * n * outH() * outW() * f * kh * kw * c; }

private:
  int64_t pad(int64_t in, int64_t k, int64_t s, int64_t out) const {
    int64_t total = (out - 1) * s + k - in;
    return same && total > 0 ? total : 0;
  }
};

#if FNC_BENCH_HAVE_DNNL
/// A oneDNN forward-inference convolution primitive with NHWC source and
/// destination, built once. With `blockedWeights` the primitive chooses
/// its weights layout (format_tag::any) and the HWIO filter is reordered
/// into it once, here, outside any timed call; without, the weights stay
/// plain HWIO (what a user who hands over their array gets).
class OneDnnConv {
public:
  OneDnnConv(const ConvShape &shape, const float *hwioFilter,
             bool blockedWeights);
  ~OneDnnConv();
  /// Runs the primitive on `input` (NHWC) into `output` (NHWC, preallocated)
  /// and waits for it.
  void run(const float *input, float *output);
  /// oneDNN's name of the implementation it picked (e.g. "brg:avx512_core").
  std::string implementation() const;

private:
  struct Impl;
  std::unique_ptr<Impl> impl;
};
#endif

#if FNC_BENCH_HAVE_EIGEN
/// 32 chained ops on 8 floats with Eigen::Array<float, 8, 1>, 8 times
/// {a = tanh(a * b); b = max(exp(a), b)}; writes b to `out`.
void eigenChain32(const float *a, const float *b, float *out);
/// `iters` times x = tanh(W @ x + b) with Eigen::Matrix<float, 16, 16>; W is
/// row-major, x is updated in place.
void eigenLoop16(const float *W, const float *b, float *x, int iters);
#endif

} // namespace fnc::bench

#endif // FNC_BENCH_PEERS_H
