//===- Recurrent.cpp - fnc::nn SimpleRNN, LSTM, GRU -----------------------===//
//
// Keras's recurrent layers as one staged loop over the time steps
// (fnc::for_range, the seeds' dynamic_rnn): each step projects its row of
// the inputs and multiplies the state by the recurrent kernel. Batch and timesteps may be unknown while
// tracing; the gradient comes from the loop's recorded history
// (docs/Autodiff.md).
//
//===----------------------------------------------------------------------===//

#include "fnc/Control.h"
#include "fnc/Error.h"
#include "fnc/NN.h"
#include "fnc/Shape/ShapeRules.h"
#include "fnc/TensorArray.h"

namespace fnc::nn {

namespace {

/// Column block `k` (of width `units`) of [..., gates * units].
Tensor gate(const Tensor &t, int64_t k, int64_t units) {
  std::vector<int64_t> begin(t.rank(), 0), size(t.rank(), -1);
  begin.back() = k * units;
  size.back() = units;
  return slice(t, begin, size);
}

} // namespace

RNN::RNN(int64_t units, int64_t gates, int64_t biasRows, bool twoStates,
         Options options, std::string name)
    : Layer(std::move(name)), units_(units), gates_(gates), biasRows_(biasRows),
      twoStates_(twoStates), options_(std::move(options)) {
  if (units <= 0)
    fail("units must be positive, got " + std::to_string(units));
}

void RNN::build(const Shape &in) {
  if (in.size() != 3 || shapes::isDynamic(in[2]))
    fail("needs inputs [batch, timesteps, features] with known features, "
         "got shape " +
         shapes::toString(in));
  features_ = in[2];
  kernel_ = add_variable("kernel", {features_, gates_ * units_},
                         options_.kernel_initializer);
  recurrent_ = add_variable("recurrent_kernel", {units_, gates_ * units_},
                            options_.recurrent_initializer);
  if (options_.use_bias)
    bias_ = add_variable("bias",
                         biasRows_ == 1 ? Shape{gates_ * units_}
                                        : Shape{biasRows_, gates_ * units_},
                         options_.bias_initializer);
}

Tensor RNN::call(const Tensor &x, bool) { return run(x)[0]; }

std::vector<Tensor> RNN::call_with_states(const Tensor &x, bool) {
  buildFor(x);
  return run(x);
}

std::vector<Tensor> RNN::run(const Tensor &x) {
  const Shape &in = x.shape();
  if (in.size() != 3 || in[2] != features_)
    fail("was built for inputs [batch, timesteps, " +
         std::to_string(features_) + "], got shape " + shapes::toString(in));
  if (x.dtype() != kernel_.dtype())
    fail("the input is " + std::string(dtypeName(x.dtype())) +
         " but the kernel is " + dtypeName(kernel_.dtype()) +
         "; cast the input with fnc::cast");
  int64_t batch = in[0], steps = in[1];
  // The steps' inputs [T, B, features], each projected in its step: the
  // gradient of a step's row of a captured tensor is a tensor of its whole
  // shape (gather's rule), so a row of the inputs costs the backward
  // T * B * features per step where a row of all steps' projections
  // (one matmul before the loop) cost T * B * gates * units.
  Tensor seq = transpose(x, {1, 0, 2});
  Tensor w = kernel_.read_value();
  Tensor inputBias, recurrentBias;
  if (options_.use_bias) {
    Tensor b = bias_.read_value();
    inputBias = biasRows_ == 1 ? b : squeeze(slice(b, {0, 0}, {1, -1}), {0});
    if (biasRows_ > 1)
      recurrentBias = squeeze(slice(b, {1, 0}, {1, -1}), {0});
  }
  Tensor u = recurrent_.read_value();
  // Zero states [B, units]; B read at run time where it is unknown.
  Tensor h0;
  if (!shapes::isDynamic(batch)) {
    h0 = zeros({batch, units_}, x.dtype());
  } else {
    // zeros of a shape tensor have every dim unknown; the reshape tells
    // the trace the units (the loop keeps its states' shapes).
    Tensor b = gather(shape(x, DType::i64), Tensor(int64_t{0}));
    h0 = reshape(zeros(stack({b, Tensor(units_)}), x.dtype()), {-1, units_});
  }
  // One-state cells carry a 0-d placeholder for c.
  Tensor c0 = twoStates_ ? h0 : zeros({}, x.dtype());
  Tensor n = shapes::isDynamic(steps)
                 ? gather(shape(x, DType::i32), Tensor(int32_t{1}))
                 : Tensor(static_cast<int32_t>(steps));
  auto stepAt = [&](const Tensor &i, const Tensor &h, const Tensor &c) {
    Tensor xw = matmul(gather(seq, i, 0), w);
    return step(inputBias.defined() ? xw + inputBias : xw, u, recurrentBias,
                h, c);
  };
  std::vector<Tensor> out;
  Tensor h, c;
  if (options_.return_sequences) {
    TensorArray outputs =
        shapes::isDynamic(steps)
            ? TensorArray::dynamic(x.dtype(), 0, {batch, units_})
            : TensorArray(x.dtype(), steps, {batch, units_});
    TensorArray all;
    std::tie(h, c, all) = for_range(
        Tensor(int32_t{0}), n, Tensor(int32_t{1}),
        [&](const Tensor &i, const Tensor &hp, const Tensor &cp,
            const TensorArray &ta) {
          auto [hn, cn] = stepAt(i, hp, cp);
          return std::make_tuple(hn, cn, ta.write(i, hn));
        },
        std::make_tuple(h0, c0, outputs));
    out.push_back(transpose(all.stack(), {1, 0, 2}));
  } else {
    std::tie(h, c) = for_range(
        Tensor(int32_t{0}), n, Tensor(int32_t{1}),
        [&](const Tensor &i, const Tensor &hp, const Tensor &cp) {
          auto [hn, cn] = stepAt(i, hp, cp);
          return std::make_tuple(hn, cn);
        },
        std::make_tuple(h0, c0));
    out.push_back(h);
  }
  out.push_back(h);
  if (twoStates_)
    out.push_back(c);
  return out;
}

SimpleRNN::SimpleRNN(int64_t units, Activation activation, bool use_bias,
                     bool return_sequences, Initializer kernel_initializer,
                     Initializer recurrent_initializer,
                     Initializer bias_initializer, std::string name)
    : RNN(units, 1, 1, false,
          {use_bias, return_sequences, std::move(kernel_initializer),
           std::move(recurrent_initializer), std::move(bias_initializer)},
          std::move(name)),
      activation_(std::move(activation)) {}

std::pair<Tensor, Tensor> SimpleRNN::step(const Tensor &xw, const Tensor &u,
                                          const Tensor &, const Tensor &h,
                                          const Tensor &c) const {
  return {activation_.apply(xw + matmul(h, u)), c};
}

namespace {
/// Keras's unit_forget_bias: the forget gate's quarter of the bias is ones.
Initializer forgetBiasOnes(Initializer init) {
  return [init](const Shape &shape, DType dtype) {
    int64_t units = shape[0] / 4;
    return concat(
        {init({units}, dtype), ones({units}, dtype), init({2 * units}, dtype)},
        0);
  };
}
} // namespace

LSTM::LSTM(int64_t units, bool return_sequences, bool use_bias,
           bool unit_forget_bias, Initializer kernel_initializer,
           Initializer recurrent_initializer, Initializer bias_initializer,
           std::string name)
    : RNN(units, 4, 1, true,
          {use_bias, return_sequences, std::move(kernel_initializer),
           std::move(recurrent_initializer),
           unit_forget_bias ? forgetBiasOnes(std::move(bias_initializer))
                            : std::move(bias_initializer)},
          std::move(name)) {}

std::pair<Tensor, Tensor> LSTM::step(const Tensor &xw, const Tensor &u,
                                     const Tensor &, const Tensor &h,
                                     const Tensor &c) const {
  Tensor z = xw + matmul(h, u);
  int64_t n = units();
  Tensor i = sigmoid(gate(z, 0, n)), f = sigmoid(gate(z, 1, n));
  Tensor o = sigmoid(gate(z, 3, n));
  Tensor cn = f * c + i * tanh(gate(z, 2, n));
  return {o * tanh(cn), cn};
}

GRU::GRU(int64_t units, bool return_sequences, bool use_bias,
         Initializer kernel_initializer, Initializer recurrent_initializer,
         Initializer bias_initializer, std::string name)
    : RNN(units, 3, 2, false,
          {use_bias, return_sequences, std::move(kernel_initializer),
           std::move(recurrent_initializer), std::move(bias_initializer)},
          std::move(name)) {}

std::pair<Tensor, Tensor> GRU::step(const Tensor &xw, const Tensor &u,
                                    const Tensor &bias, const Tensor &h,
                                    const Tensor &c) const {
  Tensor r = matmul(h, u);
  if (bias.defined())
    r = r + bias;
  int64_t n = units();
  Tensor z = sigmoid(gate(xw, 0, n) + gate(r, 0, n));
  Tensor reset = sigmoid(gate(xw, 1, n) + gate(r, 1, n));
  Tensor candidate = tanh(gate(xw, 2, n) + reset * gate(r, 2, n));
  return {z * h + (1.f - z) * candidate, c};
}

} // namespace fnc::nn
