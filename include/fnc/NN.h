//===- NN.h - fnc::nn: modules, layers, initializers, losses -----*- C++
//-*-===//
//
// Keras-style building blocks on top of the eager/staged tensor API:
//
//   fnc::nn::Sequential model{fnc::nn::Flatten(),
//                             fnc::nn::Dense(256, "relu"),
//                             fnc::nn::Dense(10)};
//   fnc::Tensor logits = model(images);          // builds on the first call
//   model.trainable_variables();                 // dense/kernel, dense/bias,
//                                                // dense_1/kernel, ...
//
// A Module owns variables and sub-modules; variables() and
// trainable_variables() collect them recursively, and named_variables()
// names them by path ("dense_1/kernel") for checkpoints. A sub-module's
// name is unique among its siblings: the second unnamed Dense of a parent
// is "dense_1", so a freshly built model has the same names as the one
// that was saved.
//
// Layers build lazily on their first call, from the shape of the input, as
// Keras layers do. That first call may be inside a fnc::function trace: the
// initializers then run eagerly (fnc::InitScope), so the variables are
// created once, on the first trace, and later traces reuse them.
//
// Layers are cheap to copy before they are built (Sequential copies the
// layers it is given); copies of a built layer share its variables.
// Thread-safety: none; a module is built and called on one thread at a
// time, like a Keras model.
//
//===----------------------------------------------------------------------===//

#ifndef FNC_NN_H
#define FNC_NN_H

#include "fnc/Ops.h"
#include "fnc/Variable.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace fnc::nn {

//===----------------------------------------------------------------------===//
// Initializers
//===----------------------------------------------------------------------===//

/// Makes the initial value of a variable of `shape` and `dtype` (eagerly).
using Initializer = std::function<Tensor(const Shape &shape, DType dtype)>;

namespace init {
Initializer zeros();
Initializer ones();
Initializer constant(double value);
/// Normal values (tf.keras.initializers.RandomNormal).
Initializer random_normal(double mean = 0, double stddev = 0.05,
                          std::optional<int64_t> seed = std::nullopt);
/// Uniform values in [minval, maxval) (tf.keras.initializers.RandomUniform).
Initializer random_uniform(double minval = -0.05, double maxval = 0.05,
                           std::optional<int64_t> seed = std::nullopt);
/// A (semi-)orthogonal matrix of the variable's shape read as
/// [prod(shape[:-1]), shape[-1]], times `gain` (keras Orthogonal: the
/// recurrent kernels' default).
Initializer orthogonal(double gain = 1.0,
                       std::optional<int64_t> seed = std::nullopt);
/// Glorot (Xavier) and He initializers as in Keras. Fans: a kernel
/// [in, out] has fan_in = in and fan_out = out; a conv kernel [kh, kw, c, f]
/// has fan_in = kh*kw*c and fan_out = kh*kw*f. The normal variants draw
/// from a normal truncated at two standard deviations.
Initializer glorot_uniform(std::optional<int64_t> seed = std::nullopt);
Initializer glorot_normal(std::optional<int64_t> seed = std::nullopt);
Initializer he_uniform(std::optional<int64_t> seed = std::nullopt);
Initializer he_normal(std::optional<int64_t> seed = std::nullopt);
} // namespace init

//===----------------------------------------------------------------------===//
// Activations
//===----------------------------------------------------------------------===//

/// x if x > 0 else alpha * x.
Tensor leaky_relu(const Tensor &x, double alpha = 0.2);
/// x if x > 0 else alpha * (exp(x) - 1).
Tensor elu(const Tensor &x, double alpha = 1.0);
/// x * Phi(x), with the exact normal CDF (erf).
Tensor gelu(const Tensor &x);
/// x * sigmoid(x) (also called swish).
Tensor silu(const Tensor &x);

//===----------------------------------------------------------------------===//
// Modules and layers
//===----------------------------------------------------------------------===//

/// A named owner of variables and sub-modules (tf.Module).
class Module {
public:
  explicit Module(std::string name);
  virtual ~Module();
  Module(const Module &) = default;
  Module &operator=(const Module &) = default;
  Module(Module &&) = default;
  Module &operator=(Module &&) = default;

  const std::string &name() const { return name_; }

  /// This module's variables and those of its sub-modules (recursively, in
  /// creation order).
  std::vector<Variable> variables() const;
  std::vector<Variable> trainable_variables() const;
  /// The variables with their paths below this module ("dense_1/kernel").
  std::vector<std::pair<std::string, Variable>> named_variables() const;
  std::vector<std::pair<std::string, Variable>>
  named_trainable_variables() const;

  /// Writes every variable to an .npz checkpoint keyed by its path
  /// (fnc/Checkpoint.h); restore() assigns them back, and fails listing
  /// every difference if the file does not match this module.
  void save(const std::string &path) const;
  void restore(const std::string &path) const;

protected:
  /// A variable of this module named `name`, initialized by `init` (run
  /// eagerly, also while tracing).
  Variable add_variable(const std::string &name, const Shape &shape,
                        const Initializer &init, bool trainable = true,
                        DType dtype = DType::f32);
  /// Adopts `module` as a sub-module; renames it "<name>_<n>" if a sibling
  /// already has its name. Returns it.
  std::shared_ptr<Module> add_module(std::shared_ptr<Module> module);
  const std::vector<std::shared_ptr<Module>> &submodules() const {
    return children_;
  }

private:
  struct Slot {
    std::string name;
    Variable variable;
    bool trainable;
  };
  void collect(const std::string &prefix, bool trainableOnly,
               std::vector<std::pair<std::string, Variable>> &out) const;

  std::string name_;
  std::vector<Slot> variables_;
  std::vector<std::shared_ptr<Module>> children_;
};

/// A module called on one tensor (keras.layers.Layer). operator() builds
/// the layer from the input's shape on the first call, then calls call().
class Layer : public Module {
public:
  using Module::Module;

  /// Applies the layer; `training` turns on training-only behaviour
  /// (dropout).
  Tensor operator()(const Tensor &x, bool training = false);
  bool built() const { return built_; }

protected:
  /// Builds the layer for `x` on its first call (what operator() does
  /// before call()), for layers with other entry points.
  void buildFor(const Tensor &x);
  /// The same for a layer called on several inputs (query, value, key):
  /// buildInputs with their shapes, once.
  void buildFor(const std::vector<Tensor> &inputs);
  /// Creates the variables for inputs of `inputShape` (dims unknown while
  /// tracing are shapes::kDynamic; a layer may require some to be known).
  virtual void build(const Shape &inputShape);
  /// Creates the variables of a layer with several inputs; by default
  /// build() of the first.
  virtual void buildInputs(const std::vector<Shape> &inputShapes);
  virtual Tensor call(const Tensor &x, bool training) = 0;
  /// Throws an InvalidArgument error "<layer name>: <message>".
  [[noreturn]] void fail(const std::string &message) const;

private:
  bool built_ = false;
};

/// An elementwise activation as a layer, and the activation argument of
/// Dense and Conv2D: a name ("relu", "sigmoid", "tanh", "softmax",
/// "log_softmax", "softplus", "elu", "gelu", "silu", "swish",
/// "leaky_relu", "linear") or any Tensor(const Tensor &) callable.
class Activation : public Layer {
public:
  /// The identity ("linear").
  Activation() : Activation("linear") {}
  Activation(const char *name) : Activation(std::string(name)) {}
  Activation(const std::string &name);
  template <typename F,
            std::enable_if_t<std::is_invocable_r_v<Tensor, F, const Tensor &> &&
                                 !std::is_convertible_v<F, std::string>,
                             int> = 0>
  Activation(F fn)
      : Layer("activation"), fn_(std::move(fn)), function_("custom") {}

  /// The activation's name ("custom" for a callable).
  const std::string &function() const { return function_; }
  /// True for the identity.
  bool linear() const { return !fn_; }
  /// Applies the activation (any rank, no build).
  Tensor apply(const Tensor &x) const { return fn_ ? fn_(x) : x; }

protected:
  Tensor call(const Tensor &x, bool) override { return apply(x); }

private:
  std::function<Tensor(const Tensor &)> fn_;
  std::string function_;
};

/// activation(x @ kernel + bias) over the last dim of x (keras Dense).
class Dense : public Layer {
public:
  explicit Dense(int64_t units, Activation activation = {},
                 bool use_bias = true,
                 Initializer kernel_initializer = init::glorot_uniform(),
                 Initializer bias_initializer = init::zeros(),
                 std::string name = "dense");
  const Variable &kernel() const { return kernel_; }
  const Variable &bias() const { return bias_; }

protected:
  void build(const Shape &inputShape) override;
  Tensor call(const Tensor &x, bool training) override;

private:
  int64_t units_;
  Activation activation_;
  bool useBias_;
  Initializer kernelInit_, biasInit_;
  Variable kernel_, bias_;
};

/// 2-D convolution of NHWC inputs with an HWCF kernel (keras Conv2D).
/// `padding` is "valid" or "same" (any case).
class Conv2D : public Layer {
public:
  Conv2D(int64_t filters, std::vector<int64_t> kernel_size,
         std::vector<int64_t> strides = {1, 1},
         const std::string &padding = "valid", Activation activation = {},
         bool use_bias = true,
         Initializer kernel_initializer = init::glorot_uniform(),
         Initializer bias_initializer = init::zeros(),
         std::string name = "conv2d");
  const Variable &kernel() const { return kernel_; }
  const Variable &bias() const { return bias_; }

protected:
  void build(const Shape &inputShape) override;
  Tensor call(const Tensor &x, bool training) override;

private:
  int64_t filters_;
  std::vector<int64_t> kernelSize_, strides_;
  std::string padding_; // "VALID" or "SAME"
  Activation activation_;
  bool useBias_;
  Initializer kernelInit_, biasInit_;
  Variable kernel_, bias_;
};

/// 1-D convolution of [batch, steps, channels] inputs with a [kernel_size,
/// channels, filters] kernel (keras Conv1D): conv2d over a height of 1, so
/// the steps may be unknown while tracing. `padding` is "valid", "same" or
/// "causal" (kernel_size - 1 zeros before the sequence only: output t sees
/// the inputs up to t), any case.
class Conv1D : public Layer {
public:
  Conv1D(int64_t filters, int64_t kernel_size, int64_t strides = 1,
         const std::string &padding = "valid", Activation activation = {},
         bool use_bias = true,
         Initializer kernel_initializer = init::glorot_uniform(),
         Initializer bias_initializer = init::zeros(),
         std::string name = "conv1d");
  const Variable &kernel() const { return kernel_; }
  const Variable &bias() const { return bias_; }

protected:
  void build(const Shape &inputShape) override;
  Tensor call(const Tensor &x, bool training) override;

private:
  int64_t filters_, kernelSize_, strides_;
  std::string padding_; // "VALID", "SAME" or "CAUSAL"
  Activation activation_;
  bool useBias_;
  Initializer kernelInit_, biasInit_;
  Variable kernel_, bias_;
};

/// 2-D max or average pooling of NHWC inputs (keras MaxPool2D /
/// AveragePooling2D): fnc::max_pool2d / fnc::avg_pool2d; `strides` default
/// to `pool_size`, `padding` is "valid" or "same" (any case).
class Pool2D : public Layer {
protected:
  Pool2D(bool max, std::vector<int64_t> pool_size, std::vector<int64_t> strides,
         const std::string &padding, std::string name);
  Tensor call(const Tensor &x, bool training) override;

private:
  bool max_;
  std::vector<int64_t> poolSize_, strides_;
  std::string padding_; // "VALID" or "SAME"
};

class MaxPool2D : public Pool2D {
public:
  explicit MaxPool2D(std::vector<int64_t> pool_size = {2, 2},
                     std::vector<int64_t> strides = {},
                     const std::string &padding = "valid",
                     std::string name = "max_pool2d")
      : Pool2D(true, std::move(pool_size), std::move(strides), padding,
               std::move(name)) {}
};

class AvgPool2D : public Pool2D {
public:
  explicit AvgPool2D(std::vector<int64_t> pool_size = {2, 2},
                     std::vector<int64_t> strides = {},
                     const std::string &padding = "valid",
                     std::string name = "avg_pool2d")
      : Pool2D(false, std::move(pool_size), std::move(strides), padding,
               std::move(name)) {}
};

/// Reshapes [batch, d1, d2, ...] to [batch, d1*d2*...] (the dims after the
/// first must be known).
class Flatten : public Layer {
public:
  explicit Flatten(std::string name = "flatten") : Layer(std::move(name)) {}

protected:
  Tensor call(const Tensor &x, bool training) override;
};

/// Reshapes [batch, ...] to [batch, target_shape...] (keras Reshape: the
/// batch dim is kept; one target dim may be -1).
class Reshape : public Layer {
public:
  explicit Reshape(std::vector<int64_t> target_shape,
                   std::string name = "reshape");

protected:
  Tensor call(const Tensor &x, bool training) override;

private:
  std::vector<int64_t> target_;
};

/// fnc::dropout(x, rate) when called with training = true; the identity
/// otherwise.
class Dropout : public Layer {
public:
  explicit Dropout(double rate, std::optional<int64_t> seed = std::nullopt,
                   std::string name = "dropout");

protected:
  Tensor call(const Tensor &x, bool training) override;

private:
  double rate_;
  std::optional<int64_t> seed_;
};

/// Rows of a trainable [input_dim, output_dim] table looked up by integer
/// indices of any shape (keras Embedding): the result has the indices'
/// shape plus output_dim. Indices of another dtype are cast to int32, as
/// Keras does; one outside [0, input_dim) is an OutOfRange error
/// (fnc::gather).
class Embedding : public Layer {
public:
  Embedding(int64_t input_dim, int64_t output_dim,
            Initializer embeddings_initializer = init::random_uniform(),
            std::string name = "embedding");
  const Variable &embeddings() const { return embeddings_; }

protected:
  void build(const Shape &inputShape) override;
  Tensor call(const Tensor &x, bool training) override;

private:
  int64_t inputDim_, outputDim_;
  Initializer init_;
  Variable embeddings_;
};

/// The recurrent layers (keras SimpleRNN, LSTM, GRU) run over inputs
/// [batch, timesteps, features] as one staged loop (fnc::for_range), so a
/// trace serves every sequence length, and batch and timesteps may be
/// unknown while tracing. Each step projects its row of the inputs and
/// multiplies the state by the recurrent kernel. operator() gives the last
/// output [batch, units], or every output [batch, timesteps, units] with
/// `return_sequences`; call_with_states gives {output, final states...} (keras
/// return_state: h, plus c for an LSTM). States start at zero unless
/// given (keras initial_state). Keras's `mask` [batch, timesteps] (bool or
/// 0/1) skips steps: a masked step keeps the states, and its output (with
/// return_sequences) repeats the previous one (before the first, the
/// initial h; Keras gives zeros there).
/// With go_backwards the steps run from the last to the first, and the
/// sequence of outputs is in that order, as Keras's.
class RNN : public Layer {
public:
  int64_t units() const { return units_; }
  const Variable &kernel() const { return kernel_; }
  const Variable &recurrent_kernel() const { return recurrent_; }
  const Variable &bias() const { return bias_; }
  using Layer::operator();
  /// keras `layer(x, mask=mask, initial_state=states)`; an undefined mask
  /// (`Tensor()`) or no states leave them out.
  Tensor operator()(const Tensor &x, const Tensor &mask,
                    const std::vector<Tensor> &initial_state = {},
                    bool training = false);
  /// {output, h} ({output, h, c} for an LSTM).
  std::vector<Tensor>
  call_with_states(const Tensor &x, bool training = false,
                   const Tensor &mask = Tensor(),
                   const std::vector<Tensor> &initial_state = {});
  /// Keras's go_backwards (false by default).
  void set_go_backwards(bool go_backwards) { goBackwards_ = go_backwards; }
  bool go_backwards() const { return goBackwards_; }

protected:
  struct Options {
    bool use_bias, return_sequences;
    Initializer kernel_initializer, recurrent_initializer, bias_initializer;
  };
  /// `gates`: the kernels' widths in units (1, 4 or 3); `biasRows`: 1, or 2
  /// for a GRU's input and recurrent biases.
  RNN(int64_t units, int64_t gates, int64_t biasRows, bool twoStates,
      Options options, std::string name);
  void build(const Shape &inputShape) override;
  Tensor call(const Tensor &x, bool training) override;
  /// One step: the new (h, c) from the step's input projection `xw`
  /// [batch, gates * units] (with the input bias), the recurrent kernel
  /// and bias, and the states (c is a 0-d placeholder for one-state cells).
  virtual std::pair<Tensor, Tensor> step(const Tensor &xw, const Tensor &u,
                                         const Tensor &bias, const Tensor &h,
                                         const Tensor &c) const = 0;

private:
  std::vector<Tensor> run(const Tensor &x, const Tensor &mask,
                          const std::vector<Tensor> &initialState);

  int64_t units_, gates_, biasRows_;
  bool twoStates_, goBackwards_ = false;
  Options options_;
  int64_t features_ = 0;
  Variable kernel_, recurrent_, bias_;
};

/// h = activation(x W + h U + b).
class SimpleRNN : public RNN {
public:
  explicit SimpleRNN(int64_t units, Activation activation = "tanh",
                     bool use_bias = true, bool return_sequences = false,
                     Initializer kernel_initializer = init::glorot_uniform(),
                     Initializer recurrent_initializer = init::orthogonal(),
                     Initializer bias_initializer = init::zeros(),
                     std::string name = "simple_rnn");

protected:
  std::pair<Tensor, Tensor> step(const Tensor &xw, const Tensor &u,
                                 const Tensor &bias, const Tensor &h,
                                 const Tensor &c) const override;

private:
  Activation activation_;
};

/// Keras's LSTM: gates i, f, c, o in the kernels' columns; c = f * c +
/// i * tanh(.), h = o * tanh(c); sigmoid gates; with `unit_forget_bias` the
/// forget gate's bias starts at 1.
class LSTM : public RNN {
public:
  explicit LSTM(int64_t units, bool return_sequences = false,
                bool use_bias = true, bool unit_forget_bias = true,
                Initializer kernel_initializer = init::glorot_uniform(),
                Initializer recurrent_initializer = init::orthogonal(),
                Initializer bias_initializer = init::zeros(),
                std::string name = "lstm");

protected:
  std::pair<Tensor, Tensor> step(const Tensor &xw, const Tensor &u,
                                 const Tensor &bias, const Tensor &h,
                                 const Tensor &c) const override;
};

/// Keras's GRU (reset_after = true, its default): gates z, r, h; bias
/// [2, 3 * units] (input, recurrent); the reset gate multiplies the
/// recurrent projection of the candidate; h = z * h + (1 - z) * tanh(.).
class GRU : public RNN {
public:
  explicit GRU(int64_t units, bool return_sequences = false,
               bool use_bias = true,
               Initializer kernel_initializer = init::glorot_uniform(),
               Initializer recurrent_initializer = init::orthogonal(),
               Initializer bias_initializer = init::zeros(),
               std::string name = "gru");

protected:
  std::pair<Tensor, Tensor> step(const Tensor &xw, const Tensor &u,
                                 const Tensor &bias, const Tensor &h,
                                 const Tensor &c) const override;
};

/// Normalizes each example over `axis` (keras LayerNormalization): with
/// the mean and variance of x over those dims (fnc::moments),
/// (x - mean) / sqrt(variance + epsilon) * gamma + beta, where gamma (ones)
/// and beta (zeros) have the input's sizes along `axis`, which must be
/// known when the layer is built. `center` / `scale` false leave beta /
/// gamma out.
class LayerNormalization : public Layer {
public:
  explicit LayerNormalization(std::vector<int64_t> axis = {-1},
                              double epsilon = 1e-3, bool center = true,
                              bool scale = true,
                              Initializer beta_initializer = init::zeros(),
                              Initializer gamma_initializer = init::ones(),
                              std::string name = "layer_normalization");
  const Variable &gamma() const { return gamma_; }
  const Variable &beta() const { return beta_; }

protected:
  void build(const Shape &inputShape) override;
  Tensor call(const Tensor &x, bool training) override;

private:
  std::vector<int64_t> axis_; // as given; normalized by build
  double epsilon_;
  bool center_, scale_;
  Initializer betaInit_, gammaInit_;
  Shape inputShape_; // what build saw
  Variable gamma_, beta_;
};

/// Normalizes each feature over the batch (keras BatchNormalization), the
/// features along `axis` (channels last by default), whose size must be
/// known when the layer is built. In training, with the mean and variance
/// of the batch over every other dim, and the moving statistics updated:
///   moving -= (moving - batch_statistic) * (1 - momentum)
/// (a variable assignment, staged inside a train step); in inference,
/// with the moving statistics. Either way
///   (x - mean) / sqrt(variance + epsilon) * gamma + beta.
/// gamma and beta are trainable; moving_mean (zeros) and moving_variance
/// (ones) are not, and are saved with the module.
class BatchNormalization : public Layer {
public:
  explicit BatchNormalization(int64_t axis = -1, double momentum = 0.99,
                              double epsilon = 1e-3, bool center = true,
                              bool scale = true,
                              Initializer beta_initializer = init::zeros(),
                              Initializer gamma_initializer = init::ones(),
                              std::string name = "batch_normalization");
  const Variable &gamma() const { return gamma_; }
  const Variable &beta() const { return beta_; }
  const Variable &moving_mean() const { return movingMean_; }
  const Variable &moving_variance() const { return movingVariance_; }

protected:
  void build(const Shape &inputShape) override;
  Tensor call(const Tensor &x, bool training) override;

private:
  int64_t axis_; // as given; normalized by build
  double momentum_, epsilon_;
  bool center_, scale_;
  Initializer betaInit_, gammaInit_;
  Shape inputShape_; // what build saw
  Variable gamma_, beta_, movingMean_, movingVariance_;
};

/// The mean over the steps of [batch, steps, features] (keras
/// GlobalAveragePooling1D) or over the rows and columns of NHWC
/// [batch, h, w, channels] (GlobalAveragePooling2D); `keepdims` keeps them
/// as dims of size 1.
class GlobalAveragePooling1D : public Layer {
public:
  explicit GlobalAveragePooling1D(bool keepdims = false,
                                  std::string name = "global_average_pooling1d")
      : Layer(std::move(name)), keepdims_(keepdims) {}

protected:
  Tensor call(const Tensor &x, bool training) override;

private:
  bool keepdims_;
};

class GlobalAveragePooling2D : public Layer {
public:
  explicit GlobalAveragePooling2D(bool keepdims = false,
                                  std::string name = "global_average_pooling2d")
      : Layer(std::move(name)), keepdims_(keepdims) {}

protected:
  Tensor call(const Tensor &x, bool training) override;

private:
  bool keepdims_;
};

/// Keras's MultiHeadAttention over inputs [batch..., steps, features]:
/// query, value and key (the value when not given) are projected to
/// `num_heads` heads of `key_dim` (`value_dim` for the value; key_dim when
/// -1) by kernels [features, num_heads, dim] with biases [num_heads, dim];
/// each head attends with softmax(q k^T / sqrt(key_dim) + adder), where
/// the adder is -1e9 where `attention_mask` ([batch..., target steps,
/// source steps], bool or 0/1, broadcast over the heads) or, with
/// `use_causal_mask`, the lower triangle (target i sees sources <= i)
/// leaves a pair out; with `dropout` > 0, training drops attention
/// weights; the heads' outputs are projected back by a kernel [num_heads,
/// value_dim, output] with a bias [output], output the query's features
/// unless `output_shape` is given. Steps and batch may be unknown while
/// tracing. Called on one tensor (in a Sequential) it is self-attention.
class MultiHeadAttention : public Layer {
public:
  explicit MultiHeadAttention(
      int64_t num_heads, int64_t key_dim, int64_t value_dim = -1,
      double dropout = 0, bool use_bias = true, int64_t output_shape = -1,
      Initializer kernel_initializer = init::glorot_uniform(),
      Initializer bias_initializer = init::zeros(),
      std::string name = "multi_head_attention");

  using Layer::operator();
  /// keras `layer(query, value, key, attention_mask, use_causal_mask)`;
  /// an undefined key or mask (`Tensor()`) is left out.
  Tensor operator()(const Tensor &query, const Tensor &value,
                    const Tensor &key = Tensor(),
                    const Tensor &attention_mask = Tensor(),
                    bool use_causal_mask = false, bool training = false);
  /// The same with keras's `return_attention_scores`: {output, the
  /// attention weights [batch..., num_heads, target steps, source steps]}.
  std::pair<Tensor, Tensor>
  call_with_scores(const Tensor &query, const Tensor &value,
                   const Tensor &key = Tensor(),
                   const Tensor &attention_mask = Tensor(),
                   bool use_causal_mask = false, bool training = false);

  int64_t num_heads() const { return heads_; }
  int64_t key_dim() const { return keyDim_; }
  int64_t value_dim() const { return valueDim_; }
  /// The projections' variables (biases undefined without use_bias):
  /// query, key, value [features, num_heads, dim]; output [num_heads,
  /// value_dim, output].
  const Variable &query_kernel() const { return kernels_[0]; }
  const Variable &key_kernel() const { return kernels_[1]; }
  const Variable &value_kernel() const { return kernels_[2]; }
  const Variable &output_kernel() const { return kernels_[3]; }
  const Variable &query_bias() const { return biases_[0]; }
  const Variable &key_bias() const { return biases_[1]; }
  const Variable &value_bias() const { return biases_[2]; }
  const Variable &output_bias() const { return biases_[3]; }

protected:
  void build(const Shape &inputShape) override;
  void buildInputs(const std::vector<Shape> &inputShapes) override;
  Tensor call(const Tensor &x, bool training) override;

private:
  std::pair<Tensor, Tensor> attend(const Tensor &query, const Tensor &value,
                                   const Tensor &key, const Tensor &mask,
                                   bool causal, bool training);

  int64_t heads_, keyDim_, valueDim_, outputDim_;
  double dropout_;
  bool useBias_;
  Initializer kernelInit_, biasInit_;
  Shape features_; // the query's, value's and key's, as built
  Variable kernels_[4], biases_[4];
};

/// Layers applied in order (keras Sequential). Sub-layers are named
/// uniquely among themselves: dense, dense_1, ...
class Sequential : public Layer {
public:
  /// `Sequential{Dense(256, "relu"), Dense(10)}`: copies of the layers.
  template <typename... Ls,
            std::enable_if_t<
                (std::is_base_of_v<Layer, std::decay_t<Ls>> && ...), int> = 0>
  explicit Sequential(Ls &&...layers) : Layer("sequential") {
    (add(std::make_shared<std::decay_t<Ls>>(std::forward<Ls>(layers))), ...);
  }
  explicit Sequential(std::vector<std::shared_ptr<Layer>> layers,
                      std::string name = "sequential");

  /// Appends `layer` (shared, not copied).
  void add(std::shared_ptr<Layer> layer);
  const std::vector<std::shared_ptr<Layer>> &layers() const { return layers_; }

protected:
  Tensor call(const Tensor &x, bool training) override;

private:
  std::vector<std::shared_ptr<Layer>> layers_;
};

//===----------------------------------------------------------------------===//
// Losses and metrics
//===----------------------------------------------------------------------===//

/// The cross-entropy of each row of `logits` [..., classes] against integer
/// `labels` [...] (tf.nn.sparse_softmax_cross_entropy_with_logits),
/// computed stably as logsumexp(logits) - logits[label]. A label outside
/// [0, classes) is an OutOfRange error eagerly; in staged code, where labels
/// are not known while tracing, it selects no logit (the row's loss is
/// logsumexp(logits)).
Tensor sparse_softmax_cross_entropy_with_logits(const Tensor &labels,
                                                const Tensor &logits);
/// The mean of the above (keras SparseCategoricalCrossentropy). With
/// from_logits = false, `predictions` are probabilities (clipped to
/// [1e-7, 1 - 1e-7] as Keras does).
Tensor sparse_categorical_crossentropy(const Tensor &labels,
                                       const Tensor &predictions,
                                       bool from_logits = true);
/// mean((y_true - y_pred)^2) over every element.
Tensor mean_squared_error(const Tensor &y_true, const Tensor &y_pred);
/// The fraction (float32 scalar) of rows of `predictions` [..., classes]
/// whose largest entry is at `labels` [...] (keras "accuracy" with integer
/// labels).
Tensor accuracy(const Tensor &labels, const Tensor &predictions);

} // namespace fnc::nn

#endif // FNC_NN_H
