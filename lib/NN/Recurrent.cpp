//===- Recurrent.cpp - fnc::nn SimpleRNN, LSTM, GRU -----------------------===//
//
// Keras's recurrent layers as one staged loop over the time steps
// (fnc::for_range, the seeds' dynamic_rnn): each step projects its row of
// the inputs and multiplies the state by the recurrent kernel; a mask
// keeps the states of the steps it skips, go_backwards reverses the steps.
// Batch and timesteps may be unknown while tracing; the gradient comes from
// the loop's recorded history (docs/Autodiff.md).
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

Tensor RNN::call(const Tensor &x, bool) { return run(x, Tensor(), {})[0]; }

Tensor RNN::operator()(const Tensor &x, const Tensor &mask,
                       const std::vector<Tensor> &initial_state,
                       bool training) {
  return call_with_states(x, training, mask, initial_state)[0];
}

std::vector<Tensor>
RNN::call_with_states(const Tensor &x, bool, const Tensor &mask,
                      const std::vector<Tensor> &initial_state) {
  buildFor(x);
  return run(x, mask, initial_state);
}

std::vector<Tensor> RNN::run(const Tensor &x, const Tensor &mask,
                             const std::vector<Tensor> &initialState) {
  const Shape &in = x.shape();
  if (in.size() != 3 || in[2] != features_)
    fail("was built for inputs [batch, timesteps, " +
         std::to_string(features_) + "], got shape " + shapes::toString(in));
  if (x.dtype() != kernel_.dtype())
    fail("the input is " + std::string(dtypeName(x.dtype())) +
         " but the kernel is " + dtypeName(kernel_.dtype()) +
         "; cast the input with fnc::cast");
  int64_t batch = in[0], steps = in[1];
  // The mask as [T, B, 1] of x's dtype (1: run the step), in step order.
  Tensor keep;
  if (mask.defined()) {
    const Shape &ms = mask.shape();
    bool fits = ms.size() == 2;
    for (size_t d = 0; fits && d < 2; ++d)
      fits = ms[d] == in[d] || shapes::isDynamic(ms[d]) ||
             shapes::isDynamic(in[d]);
    if (!fits)
      fail("mask must be [batch, timesteps] " +
           shapes::toString({in[0], in[1]}) + ", got shape " +
           shapes::toString(ms));
    keep = expand_dims(transpose(cast(mask, x.dtype()), {1, 0}), 2);
  }
  size_t states = twoStates_ ? 2 : 1;
  if (!initialState.empty()) {
    if (initialState.size() != states)
      fail("initial_state needs " + std::to_string(states) +
           (twoStates_ ? " tensors (h, c)" : " tensor (h)") + ", got " +
           std::to_string(initialState.size()));
    for (const Tensor &t : initialState) {
      const Shape &ts = t.shape();
      bool fits = t.defined() && ts.size() == 2 && ts[1] == units_ &&
                  (ts[0] == batch || shapes::isDynamic(ts[0]) ||
                   shapes::isDynamic(batch));
      if (!fits)
        fail("initial_state must be [batch, units] " +
             shapes::toString({batch, units_}) + " tensors, got " +
             (t.defined() ? "shape " + shapes::toString(ts) : "a null one"));
      if (t.dtype() != x.dtype())
        fail("initial_state is " + std::string(dtypeName(t.dtype())) +
             " but the input is " + dtypeName(x.dtype()));
    }
  }
  // The steps' inputs [T, B, features], each projected in its step: the
  // gradient of a step's row of a captured tensor is a tensor of its whole
  // shape (gather's rule), so a row of the inputs costs the backward
  // T * B * features per step where a row of all steps' projections
  // (one matmul before the loop) cost T * B * gates * units.
  Tensor seq = transpose(x, {1, 0, 2});
  if (goBackwards_) { // the steps from the last
    int64_t all = 7;
    seq = strided_slice(seq, {0, 0, 0}, {0, 0, 0}, {-1, 1, 1}, all, all);
    if (keep.defined())
      keep = strided_slice(keep, {0, 0, 0}, {0, 0, 0}, {-1, 1, 1}, all, all);
  }
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
  if (!initialState.empty()) {
    h0 = initialState[0];
    if (twoStates_)
      c0 = initialState[1];
  }
  Tensor n = shapes::isDynamic(steps)
                 ? gather(shape(x, DType::i32), Tensor(int32_t{1}))
                 : Tensor(static_cast<int32_t>(steps));
  auto stepAt = [&](const Tensor &i, const Tensor &h, const Tensor &c) {
    Tensor xw = matmul(gather(seq, i, 0), w);
    auto [hn, cn] =
        step(inputBias.defined() ? xw + inputBias : xw, u, recurrentBias, h, c);
    if (!keep.defined())
      return std::make_pair(hn, cn);
    // A masked step keeps the states (a select: a NaN the skipped step
    // computed does not leak into them).
    Tensor run = gather(keep, i, 0) > 0.0; // [B, 1]
    return std::make_pair(select(run, hn, h),
                          twoStates_ ? select(run, cn, c) : cn);
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
