//===- HandWrittenMlp.cpp - The MLP train step in C++ with OpenBLAS -------===//

#include "HandWrittenMlp.h"

#include <cblas.h>

#include <algorithm>
#include <cmath>

HandWrittenMlp::HandWrittenMlp(const float *w1, const float *w2,
                               const float *w3, int64_t batch, int64_t in,
                               int64_t hidden, int64_t out, float lr)
    : batch_(batch), in_(in), hidden_(hidden), out_(out), lr_(lr),
      w1_(w1, w1 + in * hidden), b1_(hidden, 0.f),
      w2_(w2, w2 + hidden * hidden), b2_(hidden, 0.f),
      w3_(w3, w3 + hidden * out), b3_(out, 0.f), h1_(batch * hidden),
      h2_(batch * hidden), logits_(batch * out), d3_(batch * out),
      d2_(batch * hidden), d1_(batch * hidden), g1_(in * hidden),
      g2_(hidden * hidden), g3_(hidden * out) {}

namespace {
/// c[m, n] = a[m, k] @ b[k, n] (transposes as given).
void gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const float *a,
          const float *b, float *c) {
  cblas_sgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans,
              tb ? CblasTrans : CblasNoTrans, m, n, k, 1.f, a, ta ? m : k, b,
              tb ? k : n, 0.f, c, n);
}

/// h = relu(h + bias) in place, row by row.
void biasRelu(float *h, const float *bias, int64_t rows, int64_t cols) {
#pragma omp parallel for
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j)
      h[i * cols + j] = std::max(h[i * cols + j] + bias[j], 0.f);
}

/// w -= lr * g; b -= lr * column sums of d.
void update(float *w, const float *g, int64_t n, float *b, const float *d,
            int64_t rows, int64_t cols, float lr) {
#pragma omp parallel for
  for (int64_t i = 0; i < n; ++i)
    w[i] -= lr * g[i];
  for (int64_t j = 0; j < cols; ++j) {
    float s = 0;
    for (int64_t i = 0; i < rows; ++i)
      s += d[i * cols + j];
    b[j] -= lr * s;
  }
}
} // namespace

void HandWrittenMlp::forward(const float *x) {
  int64_t B = batch_, I = in_, H = hidden_, O = out_;
  gemm(false, false, B, H, I, x, w1_.data(), h1_.data());
  biasRelu(h1_.data(), b1_.data(), B, H);
  gemm(false, false, B, H, H, h1_.data(), w2_.data(), h2_.data());
  biasRelu(h2_.data(), b2_.data(), B, H);
  gemm(false, false, B, O, H, h2_.data(), w3_.data(), logits_.data());
}

float HandWrittenMlp::step(const float *x, const int32_t *labels) {
  int64_t B = batch_, I = in_, H = hidden_, O = out_;
  forward(x);
  // Softmax cross-entropy and its gradient, fused per row.
  float loss = 0;
#pragma omp parallel for reduction(+ : loss)
  for (int64_t i = 0; i < B; ++i) {
    float *z = &logits_[i * O], *d = &d3_[i * O];
    float m = -INFINITY;
    for (int64_t j = 0; j < O; ++j)
      m = std::max(m, z[j] += b3_[j]);
    float sum = 0;
    for (int64_t j = 0; j < O; ++j)
      sum += d[j] = std::exp(z[j] - m);
    for (int64_t j = 0; j < O; ++j)
      d[j] = (d[j] / sum - (j == labels[i])) / B;
    loss += (std::log(sum) + m - z[labels[i]]) / B;
  }
  // Backward: d2 = d3 @ w3^T masked by relu, d1 = d2 @ w2^T masked.
  gemm(false, true, B, H, O, d3_.data(), w3_.data(), d2_.data());
#pragma omp parallel for
  for (int64_t i = 0; i < B * H; ++i)
    d2_[i] = h2_[i] > 0 ? d2_[i] : 0;
  gemm(false, true, B, H, H, d2_.data(), w2_.data(), d1_.data());
#pragma omp parallel for
  for (int64_t i = 0; i < B * H; ++i)
    d1_[i] = h1_[i] > 0 ? d1_[i] : 0;
  gemm(true, false, H, O, B, h2_.data(), d3_.data(), g3_.data());
  gemm(true, false, H, H, B, h1_.data(), d2_.data(), g2_.data());
  gemm(true, false, I, H, B, x, d1_.data(), g1_.data());
  update(w3_.data(), g3_.data(), H * O, b3_.data(), d3_.data(), B, O, lr_);
  update(w2_.data(), g2_.data(), H * H, b2_.data(), d2_.data(), B, H, lr_);
  update(w1_.data(), g1_.data(), I * H, b1_.data(), d1_.data(), B, H, lr_);
  return loss;
}

void HandWrittenMlp::predict(const float *x, float *probs) {
  int64_t B = batch_, O = out_;
  forward(x);
#pragma omp parallel for
  for (int64_t i = 0; i < B; ++i) {
    const float *z = &logits_[i * O];
    float *p = &probs[i * O];
    float m = -INFINITY;
    for (int64_t j = 0; j < O; ++j)
      m = std::max(m, p[j] = z[j] + b3_[j]);
    float sum = 0;
    for (int64_t j = 0; j < O; ++j)
      sum += p[j] = std::exp(p[j] - m);
    for (int64_t j = 0; j < O; ++j)
      p[j] /= sum;
  }
}
