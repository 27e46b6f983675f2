//===- Layers.cpp - fnc::nn layers: Activation, Dense, Conv2D, ... -------===//
//
// The Keras layers as compositions of fnc ops: they run eagerly, record
// into a trace, and are differentiated through the ops' gradient rules.
//
//===----------------------------------------------------------------------===//

#include "fnc/Effects.h"
#include "fnc/Error.h"
#include "fnc/GradientTape.h"
#include "fnc/NN.h"
#include "fnc/Shape/ShapeRules.h"

#include <algorithm>
#include <cctype>
#include <tuple>

namespace fnc::nn {

namespace {

struct NamedActivation {
  const char *name;
  Tensor (*fn)(const Tensor &);
};

Tensor softmaxLast(const Tensor &x) { return softmax(x); }
Tensor logSoftmaxLast(const Tensor &x) { return log_softmax(x); }
Tensor eluDefault(const Tensor &x) { return elu(x); }
Tensor leakyReluDefault(const Tensor &x) { return leaky_relu(x); }

constexpr NamedActivation kActivations[] = {
    {"linear", nullptr},      {"relu", relu},
    {"sigmoid", sigmoid},     {"tanh", tanh},
    {"softmax", softmaxLast}, {"log_softmax", logSoftmaxLast},
    {"softplus", softplus},   {"elu", eluDefault},
    {"gelu", gelu},           {"silu", silu},
    {"swish", silu},          {"leaky_relu", leakyReluDefault},
};

/// "VALID" / "SAME" from Keras's "valid" / "same" (any case).
std::string paddingOf(const std::string &padding, const char *layer) {
  std::string upper = padding;
  std::transform(upper.begin(), upper.end(), upper.begin(),
                 [](unsigned char c) { return std::toupper(c); });
  if (upper != "VALID" && upper != "SAME")
    throw Error(ErrorKind::InvalidArgument,
                std::string("fnc::nn::") + layer + ": padding must be " +
                    "\"valid\" or \"same\", got \"" + padding + "\"");
  return upper;
}

void requirePair(const std::vector<int64_t> &v, const char *layer,
                 const char *what) {
  if (v.size() != 2 || v[0] <= 0 || v[1] <= 0)
    throw Error(ErrorKind::InvalidArgument,
                std::string("fnc::nn::") + layer + ": " + what +
                    " must be two positive sizes {height, width}, got " +
                    shapes::toString(v));
}

} // namespace

Activation::Activation(const std::string &name)
    : Layer("activation"), function_(name) {
  for (const NamedActivation &a : kActivations)
    if (name == a.name) {
      if (a.fn)
        fn_ = a.fn;
      return;
    }
  std::string known;
  for (const NamedActivation &a : kActivations)
    known += (known.empty() ? "" : ", ") + std::string(a.name);
  throw Error(ErrorKind::InvalidArgument,
              "fnc::nn::Activation: unknown activation \"" + name +
                  "\"; use one of " + known +
                  ", or pass a Tensor(const Tensor &) callable");
}

Dense::Dense(int64_t units, Activation activation, bool use_bias,
             Initializer kernel_initializer, Initializer bias_initializer,
             std::string name)
    : Layer(std::move(name)), units_(units), activation_(std::move(activation)),
      useBias_(use_bias), kernelInit_(std::move(kernel_initializer)),
      biasInit_(std::move(bias_initializer)) {
  if (units <= 0)
    fail("units must be positive, got " + std::to_string(units));
}

void Dense::build(const Shape &in) {
  if (in.empty() || shapes::isDynamic(in.back()))
    fail("the input must have rank >= 1 and a known last dim, got shape " +
         shapes::toString(in));
  kernel_ = add_variable("kernel", {in.back(), units_}, kernelInit_);
  if (useBias_)
    bias_ = add_variable("bias", {units_}, biasInit_);
}

Tensor Dense::call(const Tensor &x, bool) {
  const Shape &in = x.shape();
  int64_t features = kernel_.shape()[0];
  if (in.empty() || in.back() != features)
    fail("was built for inputs whose last dim is " + std::to_string(features) +
         ", got shape " + shapes::toString(in));
  if (x.dtype() != kernel_.dtype())
    fail("the input is " + std::string(dtypeName(x.dtype())) +
         " but the kernel is " + dtypeName(kernel_.dtype()) +
         "; cast the input with fnc::cast");
  Tensor y;
  if (in.size() == 2) {
    y = matmul(x, kernel_);
  } else {
    // [..., features] -> [n, features] -> [n, units] -> [..., units].
    Shape out = in;
    out.back() = units_;
    int64_t unknown = std::count_if(out.begin(), out.end(), shapes::isDynamic);
    if (unknown > 1)
      fail("inputs of rank other than 2 may have at most one dim unknown "
           "while tracing, got shape " +
           shapes::toString(in));
    for (int64_t &d : out)
      if (shapes::isDynamic(d))
        d = -1;
    y = reshape(matmul(reshape(x, {-1, features}), kernel_), out);
  }
  if (useBias_)
    y = y + bias_;
  return activation_.apply(y);
}

Conv2D::Conv2D(int64_t filters, std::vector<int64_t> kernel_size,
               std::vector<int64_t> strides, const std::string &padding,
               Activation activation, bool use_bias,
               Initializer kernel_initializer, Initializer bias_initializer,
               std::string name)
    : Layer(std::move(name)), filters_(filters),
      kernelSize_(std::move(kernel_size)), strides_(std::move(strides)),
      padding_(paddingOf(padding, "Conv2D")),
      activation_(std::move(activation)), useBias_(use_bias),
      kernelInit_(std::move(kernel_initializer)),
      biasInit_(std::move(bias_initializer)) {
  if (filters <= 0)
    fail("filters must be positive, got " + std::to_string(filters));
  requirePair(kernelSize_, "Conv2D", "kernel_size");
  requirePair(strides_, "Conv2D", "strides");
}

void Conv2D::build(const Shape &in) {
  if (in.size() != 4 || shapes::isDynamic(in[3]))
    fail("the input must be NHWC (rank 4) with a known channel dim, got "
         "shape " +
         shapes::toString(in));
  kernel_ = add_variable(
      "kernel", {kernelSize_[0], kernelSize_[1], in[3], filters_}, kernelInit_);
  if (useBias_)
    bias_ = add_variable("bias", {filters_}, biasInit_);
}

Tensor Conv2D::call(const Tensor &x, bool) {
  if (x.rank() != 4 || x.shape()[3] != kernel_.shape()[2])
    fail("was built for NHWC inputs with " +
         std::to_string(kernel_.shape()[2]) + " channels, got shape " +
         shapes::toString(x.shape()));
  Tensor y = conv2d(x, kernel_, strides_, padding_);
  if (useBias_)
    y = y + bias_;
  return activation_.apply(y);
}

Conv1D::Conv1D(int64_t filters, int64_t kernel_size, int64_t strides,
               const std::string &padding, Activation activation, bool use_bias,
               Initializer kernel_initializer, Initializer bias_initializer,
               std::string name)
    : Layer(std::move(name)), filters_(filters), kernelSize_(kernel_size),
      strides_(strides), activation_(std::move(activation)), useBias_(use_bias),
      kernelInit_(std::move(kernel_initializer)),
      biasInit_(std::move(bias_initializer)) {
  if (filters <= 0)
    fail("filters must be positive, got " + std::to_string(filters));
  if (kernel_size <= 0 || strides <= 0)
    fail("kernel_size and strides must be positive, got " +
         std::to_string(kernel_size) + " and " + std::to_string(strides));
  padding_ = padding;
  std::transform(padding_.begin(), padding_.end(), padding_.begin(),
                 [](unsigned char c) { return std::toupper(c); });
  if (padding_ != "VALID" && padding_ != "SAME" && padding_ != "CAUSAL")
    fail("padding must be \"valid\", \"same\" or \"causal\", got \"" + padding +
         "\"");
}

void Conv1D::build(const Shape &in) {
  if (in.size() != 3 || shapes::isDynamic(in[2]))
    fail("the input must be [batch, steps, channels] with a known channel "
         "dim, got shape " +
         shapes::toString(in));
  kernel_ = add_variable("kernel", {kernelSize_, in[2], filters_}, kernelInit_);
  if (useBias_)
    bias_ = add_variable("bias", {filters_}, biasInit_);
}

Tensor Conv1D::call(const Tensor &x, bool) {
  if (x.rank() != 3 || x.shape()[2] != kernel_.shape()[1])
    fail("was built for [batch, steps, channels] inputs with " +
         std::to_string(kernel_.shape()[1]) + " channels, got shape " +
         shapes::toString(x.shape()));
  Tensor rows = expand_dims(x, 1); // [batch, 1, steps, channels]
  if (padding_ == "CAUSAL")
    rows = pad(rows, {{0, 0}, {0, 0}, {kernelSize_ - 1, 0}, {0, 0}});
  Tensor y = squeeze(conv2d(rows, expand_dims(kernel_, 0), {1, strides_},
                            padding_ == "SAME" ? "SAME" : "VALID"),
                     {1});
  if (useBias_)
    y = y + bias_;
  return activation_.apply(y);
}

Pool2D::Pool2D(bool max, std::vector<int64_t> pool_size,
               std::vector<int64_t> strides, const std::string &padding,
               std::string name)
    : Layer(std::move(name)), max_(max), poolSize_(std::move(pool_size)),
      strides_(strides.empty() ? poolSize_ : std::move(strides)),
      padding_(paddingOf(padding, max ? "MaxPool2D" : "AvgPool2D")) {
  requirePair(poolSize_, max ? "MaxPool2D" : "AvgPool2D", "pool_size");
  requirePair(strides_, max ? "MaxPool2D" : "AvgPool2D", "strides");
}

Tensor Pool2D::call(const Tensor &x, bool) {
  return max_ ? max_pool2d(x, poolSize_, strides_, padding_)
              : avg_pool2d(x, poolSize_, strides_, padding_);
}

Tensor Flatten::call(const Tensor &x, bool) {
  const Shape &in = x.shape();
  if (in.empty())
    fail("the input must have a batch dim, got a scalar");
  int64_t features = 1;
  for (size_t i = 1; i < in.size(); ++i) {
    if (shapes::isDynamic(in[i]))
      fail("the dims after the batch dim must be known, got shape " +
           shapes::toString(in));
    features *= in[i];
  }
  if (in.size() == 2)
    return x;
  return reshape(x, {shapes::isDynamic(in[0]) ? -1 : in[0], features});
}

Reshape::Reshape(std::vector<int64_t> target_shape, std::string name)
    : Layer(std::move(name)), target_(std::move(target_shape)) {
  if (std::count(target_.begin(), target_.end(), -1) > 1 ||
      std::any_of(target_.begin(), target_.end(),
                  [](int64_t d) { return d < -1; }))
    fail("target_shape " + shapes::toString(target_) +
         " must hold sizes >= 0 and at most one -1");
}

Tensor Reshape::call(const Tensor &x, bool) {
  const Shape &in = x.shape();
  if (in.empty())
    fail("the input must have a batch dim, got a scalar");
  bool inferred = std::count(target_.begin(), target_.end(), -1) > 0;
  if (shapes::isDynamic(in[0]) && inferred)
    fail("with a batch dim unknown while tracing, give every dim of "
         "target_shape " +
         shapes::toString(target_) + " (no -1)");
  Shape shape = {shapes::isDynamic(in[0]) ? -1 : in[0]};
  shape.insert(shape.end(), target_.begin(), target_.end());
  return reshape(x, shape);
}

Dropout::Dropout(double rate, std::optional<int64_t> seed, std::string name)
    : Layer(std::move(name)), rate_(rate), seed_(seed) {
  if (!(rate >= 0 && rate < 1))
    fail("rate must be in [0, 1), got " + std::to_string(rate));
}

Tensor Dropout::call(const Tensor &x, bool training) {
  return training ? dropout(x, rate_, seed_) : x;
}

Embedding::Embedding(int64_t input_dim, int64_t output_dim,
                     Initializer embeddings_initializer, std::string name)
    : Layer(std::move(name)), inputDim_(input_dim), outputDim_(output_dim),
      init_(std::move(embeddings_initializer)) {
  if (input_dim <= 0 || output_dim <= 0)
    fail("input_dim and output_dim must be positive, got " +
         std::to_string(input_dim) + " and " + std::to_string(output_dim));
}

void Embedding::build(const Shape &) {
  embeddings_ = add_variable("embeddings", {inputDim_, outputDim_}, init_);
}

Tensor Embedding::call(const Tensor &x, bool) {
  // As Keras: indices of another dtype are cast to int32 (floats truncate).
  bool integer = x.dtype() == DType::i32 || x.dtype() == DType::i64;
  return gather(embeddings_.read_value(), integer ? x : cast(x, DType::i32), 0);
}

LayerNormalization::LayerNormalization(std::vector<int64_t> axis,
                                       double epsilon, bool center, bool scale,
                                       Initializer beta_initializer,
                                       Initializer gamma_initializer,
                                       std::string name)
    : Layer(std::move(name)), axis_(std::move(axis)), epsilon_(epsilon),
      center_(center), scale_(scale), betaInit_(std::move(beta_initializer)),
      gammaInit_(std::move(gamma_initializer)) {
  if (axis_.empty())
    fail("needs at least one axis to normalize over");
  if (!(epsilon >= 0))
    fail("epsilon must be >= 0, got " + std::to_string(epsilon));
}

void LayerNormalization::build(const Shape &in) {
  int64_t rank = static_cast<int64_t>(in.size());
  std::vector<int64_t> axes;
  for (int64_t a : axis_) {
    int64_t n = a < 0 ? a + rank : a;
    if (n < 0 || n >= rank)
      fail("axis " + std::to_string(a) + " is out of range for inputs of " +
           "shape " + shapes::toString(in));
    if (std::count(axes.begin(), axes.end(), n))
      fail("axis " + std::to_string(a) + " is given twice");
    if (shapes::isDynamic(in[n]))
      fail("the dims normalized over must be known, got shape " +
           shapes::toString(in) + " and axis " + std::to_string(a));
    axes.push_back(n);
  }
  std::sort(axes.begin(), axes.end());
  axis_ = axes;
  inputShape_ = in;
  Shape param;
  for (int64_t a : axes)
    param.push_back(in[a]);
  if (scale_)
    gamma_ = add_variable("gamma", param, gammaInit_);
  if (center_)
    beta_ = add_variable("beta", param, betaInit_);
}

Tensor LayerNormalization::call(const Tensor &x, bool) {
  const Shape &in = x.shape();
  bool same = in.size() == inputShape_.size();
  for (size_t i = 0; same && i < axis_.size(); ++i)
    same = in[axis_[i]] == inputShape_[axis_[i]];
  if (!same)
    fail("was built for inputs of shape " + shapes::toString(inputShape_) +
         " (normalized over their dims " + shapes::toString(axis_) +
         "), got shape " + shapes::toString(in));
  if (!isFloat(x.dtype()))
    fail("needs float inputs, got " + std::string(dtypeName(x.dtype())) +
         "; cast them with fnc::cast");
  auto [mean, variance] = moments(x, axis_, true);
  // gamma and beta as dims of x: 1 where it is not normalized.
  Shape along(in.size(), 1);
  for (int64_t a : axis_)
    along[a] = in[a];
  auto spread = [&](const Variable &v) {
    Tensor t = v.read_value();
    if (t.dtype() != x.dtype())
      fail("the input is " + std::string(dtypeName(x.dtype())) +
           " but the layer's variables are " + dtypeName(t.dtype()) +
           "; cast the input with fnc::cast");
    return reshape(t, along);
  };
  // keras: inv = rsqrt(variance + epsilon) * gamma; x * inv + (beta -
  // mean * inv).
  Tensor inv = rsqrt(variance + epsilon_);
  if (scale_)
    inv = inv * spread(gamma_);
  Tensor offset = -mean * inv;
  if (center_)
    offset = offset + spread(beta_);
  return x * inv + offset;
}

BatchNormalization::BatchNormalization(int64_t axis, double momentum,
                                       double epsilon, bool center, bool scale,
                                       Initializer beta_initializer,
                                       Initializer gamma_initializer,
                                       std::string name)
    : Layer(std::move(name)), axis_(axis), momentum_(momentum),
      epsilon_(epsilon), center_(center), scale_(scale),
      betaInit_(std::move(beta_initializer)),
      gammaInit_(std::move(gamma_initializer)) {
  if (!(momentum >= 0 && momentum <= 1))
    fail("momentum must be in [0, 1], got " + std::to_string(momentum));
  if (!(epsilon >= 0))
    fail("epsilon must be >= 0, got " + std::to_string(epsilon));
}

void BatchNormalization::build(const Shape &in) {
  int64_t rank = static_cast<int64_t>(in.size());
  int64_t a = axis_ < 0 ? axis_ + rank : axis_;
  if (a < 0 || a >= rank)
    fail("axis " + std::to_string(axis_) + " is out of range for inputs of " +
         "shape " + shapes::toString(in));
  if (shapes::isDynamic(in[a]))
    fail("the features' dim must be known, got shape " + shapes::toString(in) +
         " and axis " + std::to_string(axis_));
  axis_ = a;
  inputShape_ = in;
  Shape param{in[a]};
  if (scale_)
    gamma_ = add_variable("gamma", param, gammaInit_);
  if (center_)
    beta_ = add_variable("beta", param, betaInit_);
  movingMean_ = add_variable("moving_mean", param, init::zeros(), false);
  movingVariance_ = add_variable("moving_variance", param, init::ones(), false);
}

Tensor BatchNormalization::call(const Tensor &x, bool training) {
  const Shape &in = x.shape();
  if (in.size() != inputShape_.size() || in[axis_] != inputShape_[axis_])
    fail("was built for inputs of shape " + shapes::toString(inputShape_) +
         " (features along dim " + std::to_string(axis_) + "), got shape " +
         shapes::toString(in));
  if (x.dtype() != DType::f32)
    fail("needs float32 inputs (its variables are float32), got " +
         std::string(dtypeName(x.dtype())) + "; cast them with fnc::cast");
  Shape along(in.size(), 1);
  along[axis_] = in[axis_];
  Tensor mean, variance;
  if (training) {
    std::vector<int64_t> over;
    for (int64_t d = 0; d < static_cast<int64_t>(in.size()); ++d)
      if (d != axis_)
        over.push_back(d);
    std::tie(mean, variance) = moments(x, over, true);
    // The statistics' updates are no part of the loss.
    float rate = static_cast<float>(1 - momentum_);
    movingMean_.assign_sub(
        (movingMean_.read_value() - stop_gradient(reshape(mean, {-1}))) * rate);
    movingVariance_.assign_sub((movingVariance_.read_value() -
                                stop_gradient(reshape(variance, {-1}))) *
                               rate);
  } else {
    mean = reshape(movingMean_.read_value(), along);
    variance = reshape(movingVariance_.read_value(), along);
  }
  Tensor inv = rsqrt(variance + static_cast<float>(epsilon_));
  if (scale_)
    inv = inv * reshape(gamma_.read_value(), along);
  Tensor offset = -mean * inv;
  if (center_)
    offset = offset + reshape(beta_.read_value(), along);
  return x * inv + offset;
}

Tensor GlobalAveragePooling1D::call(const Tensor &x, bool) {
  if (x.rank() != 3)
    fail("needs inputs [batch, steps, features], got shape " +
         shapes::toString(x.shape()));
  return reduce_mean(x, {1}, keepdims_);
}

Tensor GlobalAveragePooling2D::call(const Tensor &x, bool) {
  if (x.rank() != 4)
    fail("needs NHWC inputs [batch, height, width, channels], got shape " +
         shapes::toString(x.shape()));
  return reduce_mean(x, {1, 2}, keepdims_);
}

} // namespace fnc::nn
