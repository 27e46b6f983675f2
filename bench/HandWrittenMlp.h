//===- HandWrittenMlp.h - The MLP train step in C++ with OpenBLAS -*- C++ -*-=//
//
// The reference a C++ user would otherwise write for AutodiffBench: the
// same MLP step (relu, softmax cross-entropy, SGD) with cblas_sgemm for
// the products and hand-fused, OpenMP-parallel loops for the rest.
//
//===----------------------------------------------------------------------===//

#ifndef FNC_BENCH_HANDWRITTENMLP_H
#define FNC_BENCH_HANDWRITTENMLP_H

#include <cstdint>
#include <vector>

class HandWrittenMlp {
public:
  HandWrittenMlp(const float *w1, const float *w2, const float *w3,
                 int64_t batch, int64_t in, int64_t hidden, int64_t out,
                 float lr);
  /// One SGD step on `x` [batch, in] and `labels` [batch]; returns the
  /// loss before the update.
  float step(const float *x, const int32_t *labels);
  /// Inference on `x` [batch, in]: softmax probabilities [batch, out] into
  /// `probs` (three sgemms, bias and relu fused per row, softmax per row).
  void predict(const float *x, float *probs);

private:
  /// h1, h2 and the logits (without their bias) of `x`.
  void forward(const float *x);

  int64_t batch_, in_, hidden_, out_;
  float lr_;
  std::vector<float> w1_, b1_, w2_, b2_, w3_, b3_;
  std::vector<float> h1_, h2_, logits_, d3_, d2_, d1_, g1_, g2_, g3_;
};

#endif // FNC_BENCH_HANDWRITTENMLP_H
