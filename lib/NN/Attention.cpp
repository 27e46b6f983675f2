//===- Attention.cpp - fnc::nn::MultiHeadAttention ------------------------===//
//
// Keras's MultiHeadAttention as fnc ops: the projections and the attention
// are einsums (fnc::einsum: batched matmuls between transposes), so the
// layer runs eagerly, stages with batch and steps unknown, and is
// differentiated through the ops' gradient rules.
//
//===----------------------------------------------------------------------===//

#include "fnc/Effects.h"
#include "fnc/Error.h"
#include "fnc/NN.h"
#include "fnc/Shape/ShapeRules.h"

#include <cmath>

namespace fnc::nn {

MultiHeadAttention::MultiHeadAttention(int64_t num_heads, int64_t key_dim,
                                       int64_t value_dim, double dropout,
                                       bool use_bias, int64_t output_shape,
                                       Initializer kernel_initializer,
                                       Initializer bias_initializer,
                                       std::string name)
    : Layer(std::move(name)), heads_(num_heads), keyDim_(key_dim),
      valueDim_(value_dim < 0 ? key_dim : value_dim), outputDim_(output_shape),
      dropout_(dropout), useBias_(use_bias),
      kernelInit_(std::move(kernel_initializer)),
      biasInit_(std::move(bias_initializer)) {
  if (num_heads <= 0 || key_dim <= 0 || value_dim == 0 || value_dim < -1)
    fail("num_heads, key_dim and value_dim must be positive, got " +
         std::to_string(num_heads) + ", " + std::to_string(key_dim) + " and " +
         std::to_string(value_dim));
  if (output_shape == 0 || output_shape < -1)
    fail("output_shape must be positive (or -1: the query's features), "
         "got " +
         std::to_string(output_shape));
  if (!(dropout >= 0 && dropout < 1))
    fail("dropout must be in [0, 1), got " + std::to_string(dropout));
}

void MultiHeadAttention::buildInputs(const std::vector<Shape> &shapes) {
  static const char *const kNames[] = {"query", "value", "key"};
  for (size_t i = 0; i < shapes.size(); ++i) {
    const Shape &s = shapes[i];
    if (s.size() < 3)
      fail(std::string("needs a ") + kNames[i] +
           " of rank 3 or more ([batch, steps, features]), got shape " +
           shapes::toString(s));
    if (shapes::isDynamic(s.back()))
      fail(std::string("the ") + kNames[i] +
           "'s features (its last dim) must be known, got shape " +
           shapes::toString(s));
    features_.push_back(s.back());
  }
  int64_t query = features_[0], value = features_[1], key = features_[2];
  int64_t out = outputDim_ < 0 ? query : outputDim_;
  // Keras's order: query, key, value, then the output projection.
  const Shape kernelShapes[] = {{query, heads_, keyDim_},
                                {key, heads_, keyDim_},
                                {value, heads_, valueDim_},
                                {heads_, valueDim_, out}};
  const Shape biasShapes[] = {
      {heads_, keyDim_}, {heads_, keyDim_}, {heads_, valueDim_}, {out}};
  static const char *const kParts[] = {"query", "key", "value",
                                       "attention_output"};
  for (int i = 0; i < 4; ++i) {
    kernels_[i] = add_variable(std::string(kParts[i]) + "_kernel",
                               kernelShapes[i], kernelInit_);
    if (useBias_)
      biases_[i] = add_variable(std::string(kParts[i]) + "_bias", biasShapes[i],
                                biasInit_);
  }
}

void MultiHeadAttention::build(const Shape &inputShape) {
  buildInputs({inputShape, inputShape, inputShape});
}

Tensor MultiHeadAttention::call(const Tensor &x, bool training) {
  return attend(x, x, x, Tensor(), false, training).first;
}

Tensor MultiHeadAttention::operator()(const Tensor &query, const Tensor &value,
                                      const Tensor &key,
                                      const Tensor &attention_mask,
                                      bool use_causal_mask, bool training) {
  return call_with_scores(query, value, key, attention_mask, use_causal_mask,
                          training)
      .first;
}

std::pair<Tensor, Tensor> MultiHeadAttention::call_with_scores(
    const Tensor &query, const Tensor &value, const Tensor &key,
    const Tensor &attention_mask, bool use_causal_mask, bool training) {
  const Tensor &k = key.defined() ? key : value;
  return attend(query, value, k, attention_mask, use_causal_mask, training);
}

std::pair<Tensor, Tensor>
MultiHeadAttention::attend(const Tensor &query, const Tensor &value,
                           const Tensor &key, const Tensor &mask, bool causal,
                           bool training) {
  buildFor(std::vector<Tensor>{query, value, key});
  static const char *const kNames[] = {"query", "value", "key"};
  const Tensor *inputs[] = {&query, &value, &key};
  DType dtype = kernels_[0].dtype();
  for (int i = 0; i < 3; ++i) {
    const Shape &s = inputs[i]->shape();
    if (s.size() < 3 || s.back() != features_[i])
      fail(std::string("was built for a ") + kNames[i] + " of " +
           std::to_string(features_[i]) + " features, got shape " +
           shapes::toString(s));
    if (inputs[i]->dtype() != dtype)
      fail(std::string("the ") + kNames[i] + " is " +
           dtypeName(inputs[i]->dtype()) + " but the layer's variables are " +
           dtypeName(dtype) + "; cast it with fnc::cast");
  }
  auto project = [&](const Tensor &x, int i, const char *equation) {
    Tensor y = einsum(equation, x, kernels_[i].read_value());
    return useBias_ ? y + biases_[i].read_value() : y;
  };
  // [batch..., steps, heads, dim]
  Tensor q = project(query, 0, "...tc,cnh->...tnh") *
             (1.0 / std::sqrt(static_cast<double>(keyDim_)));
  Tensor k = project(key, 1, "...sc,cnh->...snh");
  Tensor v = project(value, 2, "...sc,cnh->...snh");
  // [batch..., heads, target steps, source steps]
  Tensor scores = einsum("...tnh,...snh->...nts", q, k);
  // Keras's masked softmax: -1e9 added where a pair is left out.
  Tensor keep;
  if (mask.defined()) {
    const Shape &ms = mask.shape();
    if (ms.size() < 2)
      fail("attention_mask must be [batch..., target steps, source steps], "
           "got shape " +
           shapes::toString(ms));
    keep = expand_dims(cast(mask, dtype), -3);
  }
  if (causal) {
    int64_t t = scores.shape()[scores.rank() - 2],
            s = scores.shape()[scores.rank() - 1];
    Tensor lower = shapes::isDynamic(t) || shapes::isDynamic(s)
                       ? tril(ones_like(scores))
                       : tril(ones({t, s}, dtype));
    keep = keep.defined() ? keep * lower : lower;
  }
  if (keep.defined()) {
    if (keep.rank() > scores.rank())
      fail("attention_mask of shape " + shapes::toString(mask.shape()) +
           " has more dims than the scores " +
           shapes::toString(scores.shape()));
    scores = scores + (1.0 - keep) * -1e9;
  }
  Tensor weights = softmax(scores, -1);
  Tensor dropped =
      training && dropout_ > 0 ? fnc::dropout(weights, dropout_) : weights;
  Tensor heads = einsum("...nts,...snh->...tnh", dropped, v);
  Tensor out = einsum("...tnh,nhd->...td", heads, kernels_[3].read_value());
  if (useBias_)
    out = out + biases_[3].read_value();
  return {out, weights};
}

} // namespace fnc::nn
