//===- NNTest.cpp - fnc::nn layers, initializers, losses, optimizers -----===//
//
// Layers against hand-computed references, initializers against their
// distributions, every optimizer step against its formula, eager against
// staged train steps, and a short training run whose loss must fall.
//
//===----------------------------------------------------------------------===//

#include "fnc/NN.h"
#include "fnc/Effects.h"
#include "fnc/GradientTape.h"
#include "fnc/Optimizers.h"

#include "Support/ExpectError.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <random>

using namespace fnc;

namespace {

std::vector<float> randomValues(size_t n, std::mt19937 &rng, float scale = 1) {
  std::uniform_real_distribution<float> d(-scale, scale);
  std::vector<float> v(n);
  for (float &x : v)
    x = d(rng);
  return v;
}

Tensor randomTensor(const Shape &shape, std::mt19937 &rng, float scale = 1) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return Tensor(randomValues(static_cast<size_t>(n), rng, scale), shape);
}

/// The mean and (biased) variance of the `count` values xs[start],
/// xs[start + stride], ..., in double: the normalization layers' reference.
std::pair<double, double> referenceMoments(const std::vector<float> &xs,
                                           int start, int stride, int count) {
  double mean = 0, var = 0;
  for (int i = 0; i < count; ++i)
    mean += xs[start + i * stride] / count;
  for (int i = 0; i < count; ++i)
    var += std::pow(xs[start + i * stride] - mean, 2) / count;
  return {mean, var};
}

void expectNear(const Tensor &a, const Tensor &b, double tol,
                const char *what = "") {
  ASSERT_EQ(a.shape(), b.shape()) << what;
  std::vector<float> x = cast(a, DType::f32).to_vector<float>();
  std::vector<float> y = cast(b, DType::f32).to_vector<float>();
  for (size_t i = 0; i < x.size(); ++i)
    ASSERT_NEAR(x[i], y[i], tol * (1 + std::abs(y[i]))) << what << " at " << i;
}

TEST(NNTest, DenseMatchesHandComputedReference) {
  std::mt19937 rng(1);
  nn::Dense dense(3, "relu");
  Tensor x = randomTensor({4, 5}, rng);
  Tensor y = dense(x);
  ASSERT_TRUE(dense.built());
  ASSERT_EQ(dense.kernel().shape(), (Shape{5, 3}));
  ASSERT_EQ(y.shape(), (Shape{4, 3}));
  // Bias starts at zero; set it to check the broadcast.
  dense.bias().assign(Tensor({0.5f, -0.25f, 1.0f}));
  y = dense(x);
  std::vector<float> xs = x.to_vector<float>();
  std::vector<float> k = dense.kernel().read_value().to_vector<float>();
  std::vector<float> b = {0.5f, -0.25f, 1.0f};
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 3; ++j) {
      double s = b[j];
      for (int l = 0; l < 5; ++l)
        s += xs[i * 5 + l] * k[l * 3 + j];
      EXPECT_NEAR(y.at<float>({i, j}), std::max(0.0, s), 1e-5);
    }
  // Rank-3 inputs apply the kernel to the last dim.
  Tensor x3 = randomTensor({2, 4, 5}, rng);
  expectNear(dense(x3), reshape(dense(reshape(x3, {8, 5})), {2, 4, 3}), 1e-6);
  EXPECT_FNC_ERROR(dense(randomTensor({4, 6}, rng)), InvalidArgument,
                   "last dim is 5");
  EXPECT_FNC_ERROR(nn::Dense(0), InvalidArgument, "units must be positive");
  EXPECT_FNC_ERROR(nn::Dense(3, "relux"), InvalidArgument,
                   "unknown activation \"relux\"");
}

TEST(NNTest, Conv2DMatchesDirectConvolution) {
  std::mt19937 rng(2);
  for (const char *padding : {"valid", "SAME"}) {
    nn::Conv2D conv(4, {3, 2}, {2, 1}, padding, "tanh");
    Tensor x = randomTensor({2, 7, 6, 3}, rng);
    Tensor y = conv(x);
    conv.bias().assign(Tensor({0.1f, 0.2f, -0.3f, 0.0f}));
    y = conv(x);
    Tensor ref =
        tanh(conv2d(x, conv.kernel(), {2, 1},
                    std::string(padding) == "SAME" ? "SAME" : "VALID") +
             Tensor({0.1f, 0.2f, -0.3f, 0.0f}));
    expectNear(y, ref, 1e-6, padding);
    EXPECT_EQ(conv.kernel().shape(), (Shape{3, 2, 3, 4}));
  }
  EXPECT_FNC_ERROR(nn::Conv2D(4, {3}), InvalidArgument, "kernel_size");
  EXPECT_FNC_ERROR(nn::Conv2D(4, {3, 3}, {1, 1}, "full"), InvalidArgument,
                   "padding must be");
}

// Conv1D against the sum over taps and channels, for each padding and an
// unknown number of steps while tracing.
TEST(NNTest, Conv1DMatchesDirectConvolution) {
  std::mt19937 rng(5);
  const int64_t batch = 2, steps = 7, channels = 3, filters = 4, k = 3;
  Tensor x = randomTensor({batch, steps, channels}, rng);
  std::vector<float> xs = x.to_vector<float>();
  for (const char *padding : {"valid", "same", "Causal"}) {
    for (int64_t stride : {1, 2}) {
      nn::Conv1D conv(filters, k, stride, padding, "tanh");
      conv(x); // build
      ASSERT_EQ(conv.kernel().shape(), (Shape{k, channels, filters}));
      Tensor bias = randomTensor({filters}, rng);
      conv.bias().assign(bias);
      std::vector<float> w = conv.kernel().read_value().to_vector<float>(),
                         b = bias.to_vector<float>();
      // Zeros before the sequence: k - 1 (causal), SAME's half, or none.
      std::string p = padding;
      int64_t out, before;
      if (p == "valid") {
        out = (steps - k) / stride + 1;
        before = 0;
      } else if (p == "same") {
        out = (steps + stride - 1) / stride;
        before = std::max<int64_t>((out - 1) * stride + k - steps, 0) / 2;
      } else {
        out = (steps - 1) / stride + 1;
        before = k - 1;
      }
      std::vector<float> want;
      for (int64_t n = 0; n < batch; ++n)
        for (int64_t t = 0; t < out; ++t)
          for (int64_t f = 0; f < filters; ++f) {
            double sum = b[f];
            for (int64_t j = 0; j < k; ++j) {
              int64_t at = t * stride + j - before;
              if (at < 0 || at >= steps)
                continue;
              for (int64_t c = 0; c < channels; ++c)
                sum += xs[(n * steps + at) * channels + c] *
                       w[(j * channels + c) * filters + f];
            }
            want.push_back(static_cast<float>(std::tanh(sum)));
          }
      Tensor expected(want, {batch, out, filters});
      std::string what = p + ", stride " + std::to_string(stride);
      expectNear(conv(x), expected, 1e-5, what.c_str());
      FunctionOptions options;
      options.input_signature = std::vector<TensorSpec>{
          TensorSpec({kUnknownDim, kUnknownDim, channels})};
      auto staged = fnc::function([&](Tensor a) { return conv(a); }, options);
      expectNear(staged(x), expected, 1e-5, (what + ", staged").c_str());
    }
  }
  EXPECT_FNC_ERROR(nn::Conv1D(4, 0), InvalidArgument, "kernel_size");
  EXPECT_FNC_ERROR(nn::Conv1D(4, 3, 1, "full"), InvalidArgument,
                   "\"valid\", \"same\" or \"causal\"");
  nn::Conv1D conv(2, 2);
  EXPECT_FNC_ERROR(conv(ones({2, 3})), InvalidArgument,
                   "[batch, steps, channels]");
}

TEST(NNTest, PoolingLayersMatchDirectPooling) {
  std::mt19937 rng(6);
  Tensor x = randomTensor({2, 6, 5, 3}, rng);
  // Default strides are the pool size; "same" pads.
  expectNear(nn::MaxPool2D()(x), max_pool2d(x, {2, 2}, {2, 2}, "VALID"), 0);
  expectNear(nn::AvgPool2D({3, 2}, {1, 2}, "same")(x),
             avg_pool2d(x, {3, 2}, {1, 2}, "SAME"), 0);
  // Against a direct computation for one window.
  Tensor m = nn::MaxPool2D({2, 2})(x);
  EXPECT_EQ(m.shape(), (Shape{2, 3, 2, 3}));
  float best = -1e30f;
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 2; ++j)
      best = std::max(best, x.at<float>({1, 2 + i, 2 + j, 1}));
  EXPECT_EQ(m.at<float>({1, 1, 1, 1}), best);
  EXPECT_FNC_ERROR(nn::MaxPool2D({0, 2}), InvalidArgument, "pool_size");
}

TEST(NNTest, EmbeddingLooksUpAndTrainsRows) {
  nn::Embedding embed(6, 3);
  Tensor idx = Tensor(std::vector<int32_t>{4, 0, 4, 5, 2, 0}, {2, 3});
  Tensor y = embed(idx);
  ASSERT_EQ(y.shape(), (Shape{2, 3, 3}));
  ASSERT_EQ(embed.embeddings().shape(), (Shape{6, 3}));
  std::vector<float> table = embed.embeddings().read_value().to_vector<float>();
  for (float v : table)
    EXPECT_TRUE(v >= -0.05f && v < 0.05f) << v;
  std::vector<int32_t> is = idx.to_vector<int32_t>();
  for (int i = 0; i < 6; ++i)
    for (int j = 0; j < 3; ++j)
      EXPECT_EQ(y.to_vector<float>()[i * 3 + j], table[is[i] * 3 + j]);
  // int64 indices, and floats cast to int32 as Keras does.
  expectNear(embed(cast(idx, DType::i64)), y, 0, "int64 indices");
  expectNear(embed(cast(idx, DType::f32) + 0.25f), y, 0, "float indices");
  // The gradient adds each row of the output's gradient into the row of
  // the table it came from (twice for an index seen twice), eagerly and
  // staged with an unknown batch dim.
  std::mt19937 rng(10);
  Tensor w = randomTensor({2, 3, 3}, rng);
  std::vector<float> wv = w.to_vector<float>(), want(18, 0);
  for (int i = 0; i < 6; ++i)
    for (int j = 0; j < 3; ++j)
      want[is[i] * 3 + j] += wv[i * 3 + j];
  auto step = [&](Tensor indices) {
    GradientTape tape;
    Tensor loss = reduce_sum(embed(indices) * w);
    return tape.gradient(loss, embed.embeddings());
  };
  expectNear(step(idx), Tensor(want, {6, 3}), 1e-6, "eager gradient");
  FunctionOptions options;
  options.input_signature =
      std::vector<TensorSpec>{TensorSpec({kUnknownDim, 3}, DType::i32)};
  expectNear(fnc::function(step, options)(idx), Tensor(want, {6, 3}), 1e-6,
             "staged gradient");
  EXPECT_FNC_ERROR(embed(Tensor(std::vector<int32_t>{6}, {1})), OutOfRange,
                   "fnc::gather");
  EXPECT_FNC_ERROR(nn::Embedding(0, 3), InvalidArgument,
                   "input_dim and output_dim must be positive");
  EXPECT_FNC_ERROR(nn::init::random_uniform(1, 1), InvalidArgument,
                   "minval must be below maxval");
}

/// A recurrent layer's recurrence written out step by step with eager ops
/// (a C++ loop over slices), from the layer's variables: {output, h[, c]}.
std::vector<Tensor> unrolled(const std::string &kind, const nn::RNN &layer,
                             const Tensor &x, bool sequences,
                             const Tensor &mask = Tensor(),
                             const std::vector<Tensor> &initial = {},
                             bool backwards = false) {
  int64_t n = layer.units(), steps = x.shape()[1];
  Tensor w = layer.kernel().read_value(),
         u = layer.recurrent_kernel().read_value();
  Tensor b = layer.bias().read_value();
  auto part = [n](const Tensor &t, int64_t k) {
    return slice(t, {0, k * n}, {-1, n});
  };
  Tensor h = zeros({x.shape()[0], n}), c = h;
  if (!initial.empty()) {
    h = initial[0];
    c = initial.size() > 1 ? initial[1] : c;
  }
  std::vector<Tensor> outputs;
  for (int64_t step = 0; step < steps; ++step) {
    int64_t t = backwards ? steps - 1 - step : step;
    Tensor hp = h, cp = c;
    Tensor xt = squeeze(slice(x, {0, t, 0}, {-1, 1, -1}), {1});
    if (kind == "simple") {
      h = tanh(matmul(xt, w) + matmul(h, u) + b);
    } else if (kind == "lstm") {
      Tensor z = matmul(xt, w) + matmul(h, u) + b;
      c = sigmoid(part(z, 1)) * c + sigmoid(part(z, 0)) * tanh(part(z, 2));
      h = sigmoid(part(z, 3)) * tanh(c);
    } else {
      Tensor xz = matmul(xt, w) + squeeze(slice(b, {0, 0}, {1, -1}), {0});
      Tensor hz = matmul(h, u) + squeeze(slice(b, {1, 0}, {1, -1}), {0});
      Tensor z = sigmoid(part(xz, 0) + part(hz, 0));
      Tensor r = sigmoid(part(xz, 1) + part(hz, 1));
      h = z * h + (1.f - z) * tanh(part(xz, 2) + r * part(hz, 2));
    }
    if (mask.defined()) { // a masked step keeps the states
      Tensor run = cast(slice(mask, {0, t}, {-1, 1}), DType::i1);
      h = select(run, h, hp);
      c = select(run, c, cp);
    }
    outputs.push_back(h);
  }
  std::vector<Tensor> out = {sequences ? stack(outputs, 1) : h, h};
  if (kind == "lstm")
    out.push_back(c);
  return out;
}

/// A recurrent layer of `kind` against its recurrence written out: outputs,
/// states and gradients, eagerly and staged.
void checkRecurrent(const std::string &kind) {
  std::mt19937 rng(12);
  Tensor x = randomTensor({2, 3, 4}, rng);
  {
    for (bool sequences : {false, true}) {
      std::shared_ptr<nn::RNN> layer;
      if (kind == "simple")
        layer = std::make_shared<nn::SimpleRNN>(3, "tanh", true, sequences);
      else if (kind == "lstm")
        layer = std::make_shared<nn::LSTM>(3, sequences);
      else
        layer = std::make_shared<nn::GRU>(3, sequences);
      std::string what = kind + (sequences ? " sequences" : " last");
      Tensor y = (*layer)(x);
      int64_t gates = kind == "simple" ? 1 : kind == "lstm" ? 4 : 3;
      ASSERT_EQ(layer->kernel().shape(), (Shape{4, 3 * gates})) << what;
      ASSERT_EQ(layer->recurrent_kernel().shape(), (Shape{3, 3 * gates}));
      // The recurrent kernel starts orthogonal; an LSTM's forget bias 1.
      Tensor u = layer->recurrent_kernel().read_value();
      if (kind == "simple")
        expectNear(matmul(transpose(u), u), eye(3), 1e-5, "orthogonal");
      if (kind == "lstm")
        expectNear(layer->bias().read_value(),
                   concat({zeros({3}), ones({3}), zeros({6})}, 0), 0,
                   "unit_forget_bias");
      // Other biases than the initial ones, to check their broadcast.
      layer->bias().assign(randomTensor(layer->bias().shape(), rng));
      std::vector<Tensor> want = unrolled(kind, *layer, x, sequences);
      std::vector<Tensor> got = layer->call_with_states(x);
      ASSERT_EQ(got.size(), want.size()) << what;
      for (size_t k = 0; k < got.size(); ++k)
        expectNear(got[k], want[k], 1e-5, what.c_str());
      // Gradients of every variable, against the unrolled recurrence's.
      Tensor target = randomTensor(want[0].shape(), rng);
      auto grads = [&](bool layered) {
        GradientTape tape;
        Tensor out =
            layered ? (*layer)(x) : unrolled(kind, *layer, x, sequences)[0];
        return tape.gradient(reduce_sum(square(out - target)),
                             layer->trainable_variables());
      };
      std::vector<Tensor> g = grads(true), gw = grads(false);
      ASSERT_EQ(g.size(), 3u);
      for (size_t k = 0; k < g.size(); ++k)
        expectNear(g[k], gw[k], 1e-4, (what + " gradient").c_str());
      // Staged with batch and timesteps unknown, outputs and gradients in
      // one function (a compile each costs seconds: the simple cell's
      // sequences and the GRU's last output are left to eager): one trace
      // for every length (a size-1 dim would get a trace of its own:
      // Function.h).
      if ((kind == "simple" && sequences) || (kind == "gru" && !sequences))
        continue;
      FunctionOptions options;
      options.input_signature = std::vector<TensorSpec>{
          TensorSpec({kUnknownDim, kUnknownDim, 4}),
          TensorSpec(Shape(target.rank(), kUnknownDim))};
      auto staged = fnc::function(
          [layer](Tensor a, Tensor t) {
            std::vector<Tensor> out = layer->call_with_states(a);
            GradientTape tape;
            Tensor y = (*layer)(a);
            for (const Tensor &g : tape.gradient(reduce_sum(square(y - t)),
                                                 layer->trainable_variables()))
              out.push_back(g);
            return out;
          },
          options);
      for (Shape s : {Shape{2, 3, 4}, Shape{3, 5, 4}, Shape{4, 2, 4}}) {
        Tensor in = s == x.shape() ? x : randomTensor(s, rng);
        std::vector<Tensor> eager = layer->call_with_states(in);
        std::vector<Tensor> st = staged(
            in, in.shape() == x.shape() ? target
                                        : randomTensor(eager[0].shape(), rng));
        ASSERT_EQ(st.size(), eager.size() + 3);
        for (size_t k = 0; k < eager.size(); ++k)
          expectNear(st[k], eager[k], 1e-5, (what + " staged").c_str());
        if (in.shape() == x.shape())
          for (size_t k = 0; k < 3; ++k)
            expectNear(st[eager.size() + k], g[k], 1e-4,
                       (what + " staged gradient").c_str());
      }
      EXPECT_EQ(staged.tracing_count(), 1) << what;
    }
  }
}

TEST(NNTest, SimpleRNNMatchesItsRecurrence) { checkRecurrent("simple"); }
TEST(NNTest, LSTMMatchesItsRecurrence) { checkRecurrent("lstm"); }
TEST(NNTest, GRUMatchesItsRecurrence) { checkRecurrent("gru"); }

TEST(NNTest, RecurrentMasksStatesAndGoingBackwards) {
  std::mt19937 rng(14);
  Tensor x = randomTensor({3, 4, 5}, rng);
  // Row 0 runs every step, row 1 skips its first two, row 2 all but one.
  Tensor mask =
      Tensor(std::vector<int32_t>{1, 1, 1, 1, 0, 0, 1, 1, 0, 1, 0, 0}, {3, 4});
  for (std::string kind : {"simple", "lstm", "gru"}) {
    std::shared_ptr<nn::RNN> layer;
    if (kind == "simple")
      layer = std::make_shared<nn::SimpleRNN>(3, "tanh", true, true);
    else if (kind == "lstm")
      layer = std::make_shared<nn::LSTM>(3, true);
    else
      layer = std::make_shared<nn::GRU>(3, true);
    (*layer)(x);
    layer->bias().assign(randomTensor(layer->bias().shape(), rng));
    std::vector<Tensor> initial = {randomTensor({3, 3}, rng)};
    if (kind == "lstm")
      initial.push_back(randomTensor({3, 3}, rng));
    for (bool backwards : {false, true}) {
      layer->set_go_backwards(backwards);
      std::string what = kind + (backwards ? ", backwards" : "");
      std::vector<Tensor> want =
          unrolled(kind, *layer, x, true, mask, initial, backwards);
      std::vector<Tensor> got =
          layer->call_with_states(x, false, cast(mask, DType::i1), initial);
      ASSERT_EQ(got.size(), want.size()) << what;
      for (size_t k = 0; k < got.size(); ++k)
        expectNear(got[k], want[k], 1e-5, (what + ", masked").c_str());
      // A 0/1 float mask, and the one-tensor form without mask or states.
      expectNear((*layer)(x, cast(mask, DType::f32), initial), want[0], 1e-5,
                 (what + ", float mask").c_str());
      expectNear((*layer)(x),
                 unrolled(kind, *layer, x, true, Tensor(), {}, backwards)[0],
                 1e-5, (what + ", no mask").c_str());
      // Staged with batch and timesteps unknown: the same values.
      FunctionOptions options;
      options.jit_compile = false; // the graph executor: seconds saved
      options.input_signature = std::vector<TensorSpec>{
          TensorSpec({kUnknownDim, kUnknownDim, 5}),
          TensorSpec({kUnknownDim, kUnknownDim}, DType::i32)};
      std::vector<Tensor> staged = fnc::function(
          [&](Tensor a, Tensor m) {
            return layer->call_with_states(a, false, m, initial);
          },
          options)(x, mask);
      for (size_t k = 0; k < staged.size(); ++k)
        expectNear(staged[k], want[k], 1e-5, (what + ", staged").c_str());
    }
    layer->set_go_backwards(false);
  }
  nn::LSTM lstm(3);
  lstm(x);
  EXPECT_FNC_ERROR(lstm(x, ones({3, 5})), InvalidArgument,
                   "mask must be [batch, timesteps] [3, 4], got shape [3, 5]");
  EXPECT_FNC_ERROR(lstm(x, Tensor(), {zeros({3, 3})}), InvalidArgument,
                   "initial_state needs 2 tensors (h, c), got 1");
  EXPECT_FNC_ERROR(lstm(x, Tensor(), {zeros({3, 4}), zeros({3, 3})}),
                   InvalidArgument, "initial_state must be [batch, units]");
}

TEST(NNTest, RecurrentLayerErrorsAndOrthogonal) {
  std::mt19937 rng(13);
  Tensor x = randomTensor({2, 3, 4}, rng);
  EXPECT_FNC_ERROR(nn::LSTM(0), InvalidArgument, "units must be positive");
  EXPECT_FNC_ERROR(nn::GRU(3)(randomTensor({2, 4}, rng)), InvalidArgument,
                   "needs inputs [batch, timesteps, features]");
  nn::SimpleRNN built(2);
  built(x);
  EXPECT_FNC_ERROR(built(randomTensor({2, 3, 5}, rng)), InvalidArgument,
                   "was built for inputs [batch, timesteps, 4]");
  EXPECT_FNC_ERROR(built(cast(x, DType::f64)), InvalidArgument, "float64");
  // orthogonal: Q^T Q = I for a tall matrix, Q Q^T = I for a wide one.
  Tensor tall = nn::init::orthogonal()({5, 3}, DType::f32);
  expectNear(matmul(transpose(tall), tall), eye(3), 1e-5, "tall");
  Tensor wide = nn::init::orthogonal(2.0)({3, 5}, DType::f64);
  expectNear(matmul(wide, transpose(wide)), eye(3) * 4.f, 1e-5, "wide");
  EXPECT_FNC_ERROR(nn::init::orthogonal()({3}, DType::f32), InvalidArgument,
                   "rank >= 2");
}

// keras BatchNormalization against its definition written out: batch
// statistics and the moving averages' updates in training, the moving
// statistics in inference; staged with an unknown batch (the updates are
// assignments inside the step); gradients reach gamma and beta only; the
// moving statistics are saved with the module.
TEST(NNTest, BatchNormalizationMatchesItsDefinition) {
  std::mt19937 rng(11);
  const int n = 6, c = 3;
  Tensor x = randomTensor({2, n / 2, c}, rng, 2) + 1.0f; // features last
  std::vector<float> xs = x.to_vector<float>();
  auto run = [&](bool staged) {
    nn::BatchNormalization bn(-1, 0.9, 1e-3);
    FunctionOptions options;
    options.input_signature =
        std::vector<TensorSpec>{TensorSpec({kUnknownDim, n / 2, c})};
    auto train = fnc::function([&](Tensor a) { return bn(a, true); }, options);
    bn(x); // build: inference with the initial statistics (0, 1)
    Tensor gamma = randomTensor({c}, rng) + 1.0f, beta = randomTensor({c}, rng);
    bn.gamma().assign(gamma);
    bn.beta().assign(beta);
    std::vector<float> g = gamma.to_vector<float>(),
                       b = beta.to_vector<float>();
    std::vector<double> movingMean(c, 0.0), movingVariance(c, 1.0);
    for (int step = 0; step < 2; ++step) {
      Tensor y = staged ? train(x) : bn(x, true);
      std::vector<float> ys = y.to_vector<float>();
      for (int k = 0; k < c; ++k) {
        auto [mean, var] = referenceMoments(xs, k, c, n);
        for (int i = 0; i < n; ++i)
          EXPECT_NEAR(ys[i * c + k],
                      (xs[i * c + k] - mean) / std::sqrt(var + 1e-3) * g[k] +
                          b[k],
                      1e-5)
              << "training, step " << step << ", feature " << k;
        movingMean[k] -= (movingMean[k] - mean) * 0.1;
        movingVariance[k] -= (movingVariance[k] - var) * 0.1;
      }
      std::vector<float>
          mm = bn.moving_mean().read_value().to_vector<float>(),
          mv = bn.moving_variance().read_value().to_vector<float>();
      for (int k = 0; k < c; ++k) {
        EXPECT_NEAR(mm[k], movingMean[k], 1e-5) << "moving mean " << k;
        EXPECT_NEAR(mv[k], movingVariance[k], 1e-5) << "moving variance " << k;
      }
    }
    EXPECT_EQ(train.tracing_count(), staged ? 1 : 0);
    // Inference: the moving statistics, nothing updated.
    std::vector<float> ys = bn(x).to_vector<float>();
    for (int i = 0; i < n; ++i)
      for (int k = 0; k < c; ++k)
        EXPECT_NEAR(ys[i * c + k],
                    (xs[i * c + k] - movingMean[k]) /
                            std::sqrt(movingVariance[k] + 1e-3) * g[k] +
                        b[k],
                    1e-5)
            << "inference " << i << ", " << k;
    EXPECT_NEAR(bn.moving_mean().read_value().to_vector<float>()[0],
                movingMean[0], 1e-6);
    // Trainable: gamma and beta; the moving statistics are variables too.
    EXPECT_EQ(bn.trainable_variables().size(), 2u);
    EXPECT_EQ(bn.variables().size(), 4u);
    return bn.moving_mean().read_value();
  };
  expectNear(run(true), run(false), 1e-6, "staged and eager updates");

  // The gradient of the training output reaches gamma and beta (and x
  // through the batch statistics); the updates are no part of it.
  nn::BatchNormalization bn;
  bn(x);
  GradientTape tape;
  tape.watch(x);
  Tensor loss = reduce_sum(bn(x, true) * x);
  std::vector<Tensor> grads =
      tape.gradient(loss, {bn.gamma(), bn.beta(), bn.moving_mean()});
  auto [mean, variance] = moments(x, {0, 1}, true);
  Tensor normalized = (x - mean) * rsqrt(variance + 1e-3f);
  expectNear(grads[0], reduce_sum(normalized * x, {0, 1}), 1e-4, "dgamma");
  expectNear(grads[1], reduce_sum(x, {0, 1}), 1e-5, "dbeta");
  EXPECT_FALSE(grads[2].defined()) << "moving_mean is not read in training";

  // Saved and restored with the module.
  std::string path = ::testing::TempDir() + "batch_norm.npz";
  bn.save(path);
  nn::BatchNormalization fresh;
  fresh(x);
  fresh.restore(path);
  expectNear(fresh.moving_variance().read_value(),
             bn.moving_variance().read_value(), 0, "restored");
  expectNear(fresh(x), bn(x), 0, "restored inference");

  EXPECT_FNC_ERROR(nn::BatchNormalization(3)(x), InvalidArgument,
                   "axis 3 is out of range");
  EXPECT_FNC_ERROR(nn::BatchNormalization(-1, 1.5), InvalidArgument,
                   "momentum must be in [0, 1]");
  EXPECT_FNC_ERROR(bn(randomTensor({2, 3, 4}, rng)), InvalidArgument,
                   "was built for inputs of shape [2, 3, 3]");
  EXPECT_FNC_ERROR(bn(cast(x, DType::f64)), InvalidArgument, "float64");
  FunctionOptions unknownFeatures;
  unknownFeatures.input_signature =
      std::vector<TensorSpec>{TensorSpec({2, 3, kUnknownDim})};
  nn::BatchNormalization late;
  auto f = fnc::function([&](Tensor a) { return late(a); }, unknownFeatures);
  EXPECT_FNC_ERROR(f(x), InvalidArgument, "the features' dim must be known");
}

TEST(NNTest, LayerNormalizationMatchesLoops) {
  std::mt19937 rng(8);
  Tensor x = randomTensor({3, 4, 5}, rng, 2);
  std::vector<float> xs = x.to_vector<float>();
  for (std::vector<int64_t> axis :
       {std::vector<int64_t>{-1}, std::vector<int64_t>{1, 2}}) {
    nn::LayerNormalization norm(axis, 1e-3);
    Tensor y = norm(x);
    bool last = axis.size() == 1;
    Shape param = last ? Shape{5} : Shape{4, 5};
    ASSERT_EQ(norm.gamma().shape(), param);
    ASSERT_EQ(norm.beta().shape(), param);
    // Other gamma and beta than the initial ones, to check their broadcast.
    Tensor gamma = randomTensor(param, rng), beta = randomTensor(param, rng);
    norm.gamma().assign(gamma);
    norm.beta().assign(beta);
    y = norm(x);
    std::vector<float> g = gamma.to_vector<float>(),
                       b = beta.to_vector<float>();
    int groups = last ? 12 : 3, size = last ? 5 : 20;
    for (int i = 0; i < groups; ++i) {
      auto [mean, var] = referenceMoments(xs, i * size, 1, size);
      for (int j = 0; j < size; ++j) {
        double want =
            (xs[i * size + j] - mean) / std::sqrt(var + 1e-3) * g[j] + b[j];
        EXPECT_NEAR(y.to_vector<float>()[i * size + j], want, 1e-5)
            << "axis " << axis.size() << " at " << i << ", " << j;
      }
    }
    // Staged and with an unknown batch dim, the same values.
    FunctionOptions options;
    options.input_signature =
        std::vector<TensorSpec>{TensorSpec({kUnknownDim, 4, 5})};
    auto staged = fnc::function([&](Tensor a) { return norm(a); }, options);
    expectNear(staged(x), y, 1e-5, "staged");
    // Its gradient reaches gamma and beta.
    GradientTape tape;
    Tensor loss = reduce_sum(norm(x) * x);
    std::vector<Tensor> grads =
        tape.gradient(loss, {norm.gamma(), norm.beta()});
    Tensor normalized = (x - moments(x, axis, true).first) *
                        rsqrt(moments(x, axis, true).second + 1e-3);
    std::vector<int64_t> batch =
        last ? std::vector<int64_t>{0, 1} : std::vector<int64_t>{0};
    expectNear(grads[0], reduce_sum(normalized * x, batch), 1e-4, "dgamma");
    expectNear(grads[1], reduce_sum(x, batch), 1e-5, "dbeta");
  }
  // Without center and scale: no variables, plain normalization.
  nn::LayerNormalization plain({-1}, 0, false, false);
  Tensor y = plain(x);
  EXPECT_TRUE(plain.variables().empty());
  auto [mean, variance] = moments(y, {-1});
  expectNear(mean, zeros({3, 4}), 1e-5, "mean 0");
  expectNear(variance, ones({3, 4}), 1e-4, "variance 1");
  EXPECT_FNC_ERROR(nn::LayerNormalization({})(x), InvalidArgument,
                   "needs at least one axis");
  EXPECT_FNC_ERROR(nn::LayerNormalization({3})(x), InvalidArgument,
                   "axis 3 is out of range");
  EXPECT_FNC_ERROR(nn::LayerNormalization({2, -1})(x), InvalidArgument,
                   "axis -1 is given twice");
  nn::LayerNormalization built;
  built(x);
  EXPECT_FNC_ERROR(built(randomTensor({3, 4, 6}, rng)), InvalidArgument,
                   "was built for inputs of shape [3, 4, 5]");
  EXPECT_FNC_ERROR(built(cast(x, DType::f64)), InvalidArgument, "float64");
  FunctionOptions unknownLast;
  unknownLast.input_signature =
      std::vector<TensorSpec>{TensorSpec({3, 4, kUnknownDim})};
  EXPECT_FNC_ERROR(
      fnc::function([](Tensor a) { return nn::LayerNormalization()(a); },
                    unknownLast)(x),
      InvalidArgument, "the dims normalized over must be known");
}

/// Keras's multi-head attention written out with loops in double, from the
/// layer's variables: the output [b, t, features] and the weights
/// [b, heads, t, s]. `keep(b, t, s)` says whether a pair is attended.
std::pair<std::vector<double>, std::vector<double>>
attentionByLoops(const nn::MultiHeadAttention &layer, const Tensor &query,
                 const Tensor &value, const Tensor &key,
                 const std::function<bool(int64_t, int64_t, int64_t)> &keep) {
  auto values = [](const Tensor &t) {
    return cast(t, DType::f64).to_vector<double>();
  };
  std::vector<double> qv = values(query), vv = values(value), kv = values(key);
  std::vector<double> wq = values(layer.query_kernel().read_value()),
                      wk = values(layer.key_kernel().read_value()),
                      wv = values(layer.value_kernel().read_value()),
                      wo = values(layer.output_kernel().read_value()),
                      bq = values(layer.query_bias().read_value()),
                      bk = values(layer.key_bias().read_value()),
                      bv = values(layer.value_bias().read_value()),
                      bo = values(layer.output_bias().read_value());
  int64_t B = query.shape()[0], T = query.shape()[1], S = value.shape()[1];
  int64_t N = layer.num_heads(), H = layer.key_dim(), V = layer.value_dim();
  int64_t dq = query.shape()[2], dv = value.shape()[2], dk = key.shape()[2];
  int64_t out = layer.output_kernel().shape()[2];
  // project(x, w, b, steps, features, dim)[((b * steps + t) * N + n) * dim + h]
  auto project = [&](const std::vector<double> &x, const std::vector<double> &w,
                     const std::vector<double> &bias, int64_t steps,
                     int64_t features, int64_t dim) {
    std::vector<double> y(B * steps * N * dim);
    for (int64_t b = 0; b < B; ++b)
      for (int64_t t = 0; t < steps; ++t)
        for (int64_t n = 0; n < N; ++n)
          for (int64_t h = 0; h < dim; ++h) {
            double acc = bias[n * dim + h];
            for (int64_t c = 0; c < features; ++c)
              acc +=
                  x[(b * steps + t) * features + c] * w[(c * N + n) * dim + h];
            y[((b * steps + t) * N + n) * dim + h] = acc;
          }
    return y;
  };
  std::vector<double> q = project(qv, wq, bq, T, dq, H),
                      k = project(kv, wk, bk, S, dk, H),
                      v = project(vv, wv, bv, S, dv, V);
  std::vector<double> weights(B * N * T * S), result(B * T * out);
  for (int64_t b = 0; b < B; ++b)
    for (int64_t t = 0; t < T; ++t) {
      std::vector<double> heads(N * V, 0.0);
      for (int64_t n = 0; n < N; ++n) {
        std::vector<double> score(S);
        double top = -INFINITY, sum = 0;
        for (int64_t s = 0; s < S; ++s) {
          double dot = 0;
          for (int64_t h = 0; h < H; ++h)
            dot += q[((b * T + t) * N + n) * H + h] *
                   k[((b * S + s) * N + n) * H + h];
          score[s] = dot / std::sqrt(double(H)) + (keep(b, t, s) ? 0 : -1e9);
          top = std::max(top, score[s]);
        }
        for (int64_t s = 0; s < S; ++s)
          sum += std::exp(score[s] - top);
        for (int64_t s = 0; s < S; ++s) {
          double w = std::exp(score[s] - top) / sum;
          weights[((b * N + n) * T + t) * S + s] = w;
          for (int64_t h = 0; h < V; ++h)
            heads[n * V + h] += w * v[((b * S + s) * N + n) * V + h];
        }
      }
      for (int64_t d = 0; d < out; ++d) {
        double acc = bo[d];
        for (int64_t j = 0; j < N * V; ++j)
          acc += heads[j] * wo[j * out + d];
        result[(b * T + t) * out + d] = acc;
      }
    }
  return {result, weights};
}

TEST(NNTest, MultiHeadAttentionMatchesLoops) {
  std::mt19937 rng(13);
  Tensor query = randomTensor({2, 3, 5}, rng),
         value = randomTensor({2, 4, 6}, rng),
         key = randomTensor({2, 4, 7}, rng);
  nn::MultiHeadAttention attention(2, 3, 4);
  Tensor y = attention(query, value, key);
  ASSERT_EQ(y.shape(), (Shape{2, 3, 5}));
  ASSERT_EQ(attention.query_kernel().shape(), (Shape{5, 2, 3}));
  ASSERT_EQ(attention.key_kernel().shape(), (Shape{7, 2, 3}));
  ASSERT_EQ(attention.value_kernel().shape(), (Shape{6, 2, 4}));
  ASSERT_EQ(attention.output_kernel().shape(), (Shape{2, 4, 5}));
  EXPECT_EQ(attention.trainable_variables().size(), 8u);
  // Other biases than the initial zeros, to check their broadcast.
  for (const Variable &b : {attention.query_bias(), attention.key_bias(),
                            attention.value_bias(), attention.output_bias()})
    Variable(b).assign(randomTensor(b.shape(), rng));
  std::vector<bool> maskBits(2 * 3 * 4);
  for (size_t i = 0; i < maskBits.size(); ++i)
    maskBits[i] = i % 3 != 1 || i % 4 == 0;
  std::vector<uint8_t> maskBytes(maskBits.begin(), maskBits.end());
  Tensor mask =
      cast(Tensor(std::vector<int32_t>(maskBytes.begin(), maskBytes.end()),
                  {2, 3, 4}),
           DType::i1);
  for (int variant = 0; variant < 4; ++variant) {
    bool masked = variant & 1, causal = variant & 2;
    auto keep = [&](int64_t b, int64_t t, int64_t s) {
      return (!masked || maskBits[(b * 3 + t) * 4 + s]) && (!causal || s <= t);
    };
    auto [want, wantWeights] =
        attentionByLoops(attention, query, value, key, keep);
    std::string what = std::string("attention") + (masked ? ", masked" : "") +
                       (causal ? ", causal" : "");
    auto [got, weights] = attention.call_with_scores(
        query, value, key, masked ? mask : Tensor(), causal);
    expectNear(got, Tensor(want, {2, 3, 5}), 1e-5, what.c_str());
    expectNear(weights, Tensor(wantWeights, {2, 2, 3, 4}), 1e-5,
               (what + " weights").c_str());
    // A 0/1 float mask is the same as a bool one.
    if (masked)
      expectNear(attention(query, value, key, cast(mask, DType::f32), causal),
                 got, 1e-6, (what + ", float mask").c_str());
  }
  // The key defaults to the value; called on one tensor, self-attention.
  nn::MultiHeadAttention self(2, 3, -1, 0, true, 8);
  Tensor x = randomTensor({2, 4, 6}, rng);
  Tensor selfOut = self(x);
  ASSERT_EQ(selfOut.shape(), (Shape{2, 4, 8}));
  expectNear(self(x, x), selfOut, 1e-6, "the key defaults to the value");
  expectNear(self(x, x, x), selfOut, 1e-6, "self-attention");
  auto [selfWant, selfWeights] = attentionByLoops(
      self, x, x, x, [](int64_t, int64_t, int64_t) { return true; });
  expectNear(selfOut, Tensor(selfWant, {2, 4, 8}), 1e-5, "self-attention");
  // Staged with batch and steps unknown: one trace for every length; the
  // gradients of every variable match eager ones.
  FunctionOptions options;
  options.input_signature =
      std::vector<TensorSpec>{TensorSpec({kUnknownDim, kUnknownDim, 6})};
  auto staged = fnc::function(
      [&](Tensor a) {
        GradientTape tape;
        Tensor out = self(a, a, Tensor(), Tensor(), /*use_causal_mask=*/true);
        std::vector<Tensor> result = {out};
        for (const Tensor &g :
             tape.gradient(reduce_sum(out * out), self.trainable_variables()))
          result.push_back(g);
        return result;
      },
      options);
  for (Shape s : {Shape{2, 4, 6}, Shape{3, 5, 6}, Shape{4, 2, 6}}) {
    Tensor in = randomTensor(s, rng);
    GradientTape tape;
    Tensor out = self(in, in, Tensor(), Tensor(), true);
    std::vector<Tensor> eager = {out};
    for (const Tensor &g :
         tape.gradient(reduce_sum(out * out), self.trainable_variables()))
      eager.push_back(g);
    std::vector<Tensor> st = staged(in);
    ASSERT_EQ(st.size(), eager.size());
    for (size_t i = 0; i < st.size(); ++i)
      expectNear(st[i], eager[i], 1e-4,
                 ("staged causal attention of [" + std::to_string(s[0]) + ", " +
                  std::to_string(s[1]) + ", 6]" + (i ? " gradient" : ""))
                     .c_str());
  }
  EXPECT_EQ(staged.tracing_count(), 1);
  // The input's gradient against central differences (float32 variables:
  // a wide step and a loose tolerance).
  {
    nn::MultiHeadAttention small(2, 2);
    Tensor a32 = randomTensor({1, 3, 2}, rng);
    GradientTape tape;
    tape.watch(a32);
    Tensor loss = reduce_sum(square(small(a32, a32, Tensor(), Tensor(), true)));
    Tensor g = tape.gradient(loss, a32);
    std::vector<float> av = a32.to_vector<float>(), gv = g.to_vector<float>();
    for (size_t i = 0; i < av.size(); ++i) {
      auto at = [&](float delta) {
        std::vector<float> moved = av;
        moved[i] += delta;
        Tensor t(moved, {1, 3, 2});
        return reduce_sum(square(small(t, t, Tensor(), Tensor(), true)))
            .item<float>();
      };
      double numeric = (double(at(1e-2f)) - at(-1e-2f)) / 2e-2;
      EXPECT_NEAR(gv[i], numeric, 2e-2 * (1 + std::abs(numeric)))
          << "d loss / d x at " << i;
    }
  }
  // A checkpoint restores into a fresh layer.
  std::string path = ::testing::TempDir() + "attention.npz";
  self.save(path);
  nn::MultiHeadAttention fresh(2, 3, -1, 0, true, 8);
  fresh(x);
  fresh.restore(path);
  expectNear(fresh(x), selfOut, 0, "restored");
  // Dropout drops attention weights only in training.
  nn::MultiHeadAttention dropping(2, 3, -1, 0.5);
  Tensor calm = dropping(x);
  expectNear(dropping(x, false), calm, 0, "no dropout in inference");
  EXPECT_GT(reduce_max(abs(dropping(x, true) - calm)).item<float>(), 1e-4f);
  // Errors.
  EXPECT_FNC_ERROR(nn::MultiHeadAttention(0, 3), InvalidArgument,
                   "num_heads, key_dim and value_dim must be positive");
  EXPECT_FNC_ERROR(nn::MultiHeadAttention(2, 3, -1, 1.5), InvalidArgument,
                   "dropout must be in [0, 1)");
  EXPECT_FNC_ERROR(nn::MultiHeadAttention(2, 3)(randomTensor({4, 6}, rng)),
                   InvalidArgument, "needs a query of rank 3 or more");
  EXPECT_FNC_ERROR(self(randomTensor({2, 4, 5}, rng)), InvalidArgument,
                   "was built for a query of 6 features, got shape [2, 4, 5]");
  EXPECT_FNC_ERROR(self(cast(x, DType::f64)), InvalidArgument,
                   "the query is float64");
  EXPECT_FNC_ERROR(self(x, x, Tensor(), ones({4})), InvalidArgument,
                   "attention_mask must be [batch..., target steps");
  FunctionOptions unknownFeatures;
  unknownFeatures.input_signature =
      std::vector<TensorSpec>{TensorSpec({2, 4, kUnknownDim})};
  EXPECT_FNC_ERROR(
      fnc::function([](Tensor a) { return nn::MultiHeadAttention(2, 3)(a); },
                    unknownFeatures)(x),
      InvalidArgument, "the query's features (its last dim) must be known");
}

TEST(NNTest, GlobalAveragePooling) {
  std::mt19937 rng(9);
  Tensor seq = randomTensor({2, 5, 3}, rng),
         image = randomTensor({2, 4, 3, 6}, rng);
  Tensor p1 = nn::GlobalAveragePooling1D()(seq);
  ASSERT_EQ(p1.shape(), (Shape{2, 3}));
  for (int b = 0; b < 2; ++b)
    for (int c = 0; c < 3; ++c) {
      double s = 0;
      for (int t = 0; t < 5; ++t)
        s += seq.at<float>({b, t, c}) / 5;
      EXPECT_NEAR(p1.at<float>({b, c}), s, 1e-6);
    }
  expectNear(nn::GlobalAveragePooling1D(true)(seq), reshape(p1, {2, 1, 3}), 0);
  Tensor p2 = nn::GlobalAveragePooling2D()(image);
  ASSERT_EQ(p2.shape(), (Shape{2, 6}));
  double s = 0;
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 3; ++j)
      s += image.at<float>({1, i, j, 5}) / 12;
  EXPECT_NEAR(p2.at<float>({1, 5}), s, 1e-6);
  EXPECT_EQ(nn::GlobalAveragePooling2D(true)(image).shape(),
            (Shape{2, 1, 1, 6}));
  EXPECT_FNC_ERROR(nn::GlobalAveragePooling1D()(image), InvalidArgument,
                   "[batch, steps, features]");
  EXPECT_FNC_ERROR(nn::GlobalAveragePooling2D()(seq), InvalidArgument, "NHWC");
}

TEST(NNTest, FlattenDropoutAndActivations) {
  std::mt19937 rng(3);
  Tensor x = randomTensor({2, 3, 4, 5}, rng);
  EXPECT_EQ(nn::Flatten()(x).shape(), (Shape{2, 60}));
  nn::Dropout drop(0.5, 7);
  expectNear(drop(x), x, 0, "inference is the identity");
  Tensor big = ones({10000});
  std::vector<float> d = drop(big, /*training=*/true).to_vector<float>();
  int kept = 0;
  for (float v : d) {
    ASSERT_TRUE(v == 0 || v == 2.0f) << v;
    kept += v != 0;
  }
  EXPECT_NEAR(kept / 10000.0, 0.5, 0.03);
  Tensor a = Tensor({-2.0f, -0.5f, 0.0f, 1.5f});
  expectNear(nn::leaky_relu(a), Tensor({-0.4f, -0.1f, 0.0f, 1.5f}), 1e-6);
  expectNear(nn::elu(a),
             Tensor({std::expm1(-2.0f), std::expm1(-0.5f), 0.0f, 1.5f}), 1e-6);
  expectNear(nn::silu(a), a * sigmoid(a), 1e-6);
  std::vector<float> g = nn::gelu(a).to_vector<float>();
  std::vector<float> av = a.to_vector<float>();
  for (size_t i = 0; i < av.size(); ++i)
    EXPECT_NEAR(g[i], av[i] * 0.5 * (1 + std::erf(av[i] / std::sqrt(2.0))),
                1e-6);
  EXPECT_FLOAT_EQ(
      nn::Activation("softmax").apply(Tensor({0.0f, 0.0f})).at<float>({0}),
      0.5f);
}

TEST(NNTest, ReshapeKeepsTheBatchDim) {
  std::mt19937 rng(14);
  Tensor x = randomTensor({2, 28, 28, 1}, rng);
  expectNear(nn::Reshape({28, 28})(x), reshape(x, {2, 28, 28}), 0);
  EXPECT_EQ(nn::Reshape({-1, 4})(x).shape(), (Shape{2, 196, 4}));
  // An unknown batch stays unknown: a staged call takes any batch.
  FunctionOptions options;
  options.input_signature =
      std::vector<TensorSpec>{TensorSpec({kUnknownDim, 28, 28, 1})};
  auto staged = fnc::function(
      [](Tensor a) {
        return nn::Reshape({28, 28})(a);
      },
      options);
  EXPECT_EQ(staged(x).shape(), (Shape{2, 28, 28}));
  EXPECT_EQ(staged(randomTensor({3, 28, 28, 1}, rng)).shape(),
            (Shape{3, 28, 28}));
  EXPECT_FNC_ERROR(nn::Reshape({-1, -1}), InvalidArgument, "at most one -1");
  EXPECT_FNC_ERROR(nn::Reshape({5, 5})(x), InvalidArgument, "fnc::reshape");
  EXPECT_FNC_ERROR(fnc::function(
                       [](Tensor a) {
                         return nn::Reshape({-1, 4})(a);
                       },
                       options)(x),
                   InvalidArgument, "no -1");
}

TEST(NNTest, SequentialNamesAndCollectsVariables) {
  nn::Sequential model{nn::Flatten(), nn::Dense(8, "relu"), nn::Dropout(0.1),
                       nn::Dense(3)};
  EXPECT_TRUE(model.variables().empty()); // built on the first call
  model(zeros({2, 2, 2}));
  std::vector<std::string> names;
  for (const auto &[name, v] : model.named_variables())
    names.push_back(name);
  EXPECT_EQ(names,
            (std::vector<std::string>{"dense/kernel", "dense/bias",
                                      "dense_1/kernel", "dense_1/bias"}));
  EXPECT_EQ(model.trainable_variables().size(), 4u);
  // A fresh model gets the same names (checkpoints depend on it).
  nn::Sequential again{nn::Flatten(), nn::Dense(8, "relu"), nn::Dense(3)};
  again(zeros({1, 4}));
  EXPECT_EQ(again.named_variables()[2].first, "dense_1/kernel");
}

TEST(NNTest, InitializersHaveKerasScales) {
  set_random_seed(11);
  Shape shape{300, 200};
  auto stats = [](const Tensor &t) {
    std::vector<float> v = t.to_vector<float>();
    double mean = 0, sq = 0, maxAbs = 0;
    for (float x : v) {
      mean += x;
      sq += double(x) * x;
      maxAbs = std::max(maxAbs, double(std::abs(x)));
    }
    mean /= v.size();
    return std::make_tuple(mean, std::sqrt(sq / v.size() - mean * mean),
                           maxAbs);
  };
  double glorotStd = std::sqrt(2.0 / 500), heStd = std::sqrt(2.0 / 300);
  auto [m1, s1, a1] = stats(nn::init::glorot_uniform()(shape, DType::f32));
  EXPECT_NEAR(m1, 0, 0.002);
  EXPECT_NEAR(s1, glorotStd, 0.02 * glorotStd);
  EXPECT_LE(a1, std::sqrt(6.0 / 500));
  auto [m2, s2, a2] = stats(nn::init::glorot_normal()(shape, DType::f32));
  EXPECT_NEAR(s2, glorotStd, 0.02 * glorotStd);
  EXPECT_LE(a2, 2 * glorotStd / 0.87962566103423978 + 1e-6); // truncated
  auto [m3, s3, a3] = stats(nn::init::he_uniform()(shape, DType::f32));
  EXPECT_NEAR(s3, heStd, 0.02 * heStd);
  auto [m4, s4, a4] = stats(nn::init::he_normal()(shape, DType::f32));
  EXPECT_NEAR(s4, heStd, 0.02 * heStd);
  // Conv kernels count the receptive field: [3, 3, 16, 32].
  auto [m5, s5, a5] = stats(nn::init::he_normal()({3, 3, 16, 32}, DType::f32));
  EXPECT_NEAR(s5, std::sqrt(2.0 / 144), 0.03 * std::sqrt(2.0 / 144));
  (void)a3, (void)a4, (void)a5, (void)m2, (void)m3, (void)m4, (void)m5;
  // Seeded: the same global seed gives the same values.
  set_random_seed(5);
  Tensor p = nn::init::glorot_uniform(3)({4, 4}, DType::f32);
  set_random_seed(5);
  expectNear(nn::init::glorot_uniform(3)({4, 4}, DType::f32), p, 0);
  expectNear(nn::init::constant(2.5)({2}, DType::f64), Tensor({2.5, 2.5}), 0);
  EXPECT_FNC_ERROR(nn::init::he_uniform()({2, 2}, DType::i32), InvalidArgument,
                   "float32 or float64");
}

TEST(NNTest, LossesAndAccuracy) {
  Tensor logits = Tensor({{2.0f, 1.0f, 0.1f}, {0.5f, 2.5f, 0.0f}});
  Tensor labels = Tensor({0, 2});
  std::vector<float> l = logits.to_vector<float>();
  auto xent = [&](int row, int label) {
    double m = 0;
    for (int j = 0; j < 3; ++j)
      m += std::exp(l[row * 3 + j]);
    return std::log(m) - l[row * 3 + label];
  };
  Tensor per = nn::sparse_softmax_cross_entropy_with_logits(labels, logits);
  EXPECT_NEAR(per.at<float>({0}), xent(0, 0), 1e-6);
  EXPECT_NEAR(per.at<float>({1}), xent(1, 2), 1e-6);
  EXPECT_NEAR(nn::sparse_categorical_crossentropy(labels, logits).item<float>(),
              (xent(0, 0) + xent(1, 2)) / 2, 1e-6);
  EXPECT_NEAR(nn::sparse_categorical_crossentropy(labels, softmax(logits),
                                                  /*from_logits=*/false)
                  .item<float>(),
              (xent(0, 0) + xent(1, 2)) / 2, 1e-5);
  // Stable for huge logits.
  Tensor huge = Tensor({{1000.0f, -1000.0f}});
  EXPECT_NEAR(
      nn::sparse_categorical_crossentropy(Tensor({1}), huge).item<float>(),
      2000, 1e-3);
  EXPECT_FLOAT_EQ(nn::accuracy(labels, logits).item<float>(), 0.5f);
  EXPECT_FLOAT_EQ(
      nn::mean_squared_error(Tensor({1.0f, 2.0f}), Tensor({2.0f, 4.0f}))
          .item<float>(),
      2.5f);
  EXPECT_FNC_ERROR(nn::accuracy(Tensor({0, 3}), logits), OutOfRange,
                   "label 3 is outside [0, 3)");
  EXPECT_FNC_ERROR(nn::accuracy(Tensor({0.0f, 1.0f}), logits), InvalidArgument,
                   "int32 or int64");
  EXPECT_FNC_ERROR(nn::accuracy(Tensor({0, 1, 2}), logits), InvalidArgument,
                   "labels + [classes]");
}

TEST(NNTest, SgdStepsFollowTheFormula) {
  for (int variant = 0; variant < 3; ++variant) {
    double lr = 0.1, momentum = variant ? 0.9 : 0.0;
    bool nesterov = variant == 2;
    nn::SGD opt(lr, momentum, nesterov);
    Variable w(Tensor({1.0f, -2.0f}), "w");
    std::vector<double> ref = {1.0, -2.0}, vel = {0, 0};
    for (int step = 0; step < 3; ++step) {
      std::vector<float> g = {0.5f * (step + 1), -0.25f};
      opt.apply_gradients({Tensor(g)}, {w});
      for (int i = 0; i < 2; ++i) {
        if (momentum == 0) {
          ref[i] -= lr * g[i];
          continue;
        }
        vel[i] = momentum * vel[i] - lr * g[i];
        ref[i] += nesterov ? momentum * vel[i] - lr * g[i] : vel[i];
      }
      expectNear(w.read_value(), Tensor({float(ref[0]), float(ref[1])}), 1e-6);
    }
    EXPECT_EQ(opt.iterations().read_value().item<int64_t>(), 3);
  }
}

TEST(NNTest, AdamStepsFollowTheFormula) {
  nn::Adam opt(0.01);
  Variable w(Tensor({0.5, -1.5}), "w64"); // float64 variables work too
  std::vector<double> ref = {0.5, -1.5}, m = {0, 0}, v = {0, 0};
  for (int t = 1; t <= 4; ++t) {
    std::vector<double> g = {0.3 * t, -0.7};
    opt.apply_gradients({Tensor(g)}, {w});
    double alpha =
        0.01 * std::sqrt(1 - std::pow(0.999, t)) / (1 - std::pow(0.9, t));
    for (int i = 0; i < 2; ++i) {
      m[i] = 0.9 * m[i] + 0.1 * g[i];
      v[i] = 0.999 * v[i] + 0.001 * g[i] * g[i];
      ref[i] -= alpha * m[i] / (std::sqrt(v[i]) + 1e-7);
    }
    EXPECT_NEAR(w.read_value().at<double>({0}), ref[0], 1e-6);
    EXPECT_NEAR(w.read_value().at<double>({1}), ref[1], 1e-6);
  }
  // The slots are variables of the optimizer, named after the variable.
  std::vector<std::string> names;
  for (const auto &[name, var] : opt.named_variables())
    names.push_back(name);
  EXPECT_EQ(names, (std::vector<std::string>{"iterations", "learning_rate",
                                             "w64/m", "w64/v"}));
}

TEST(NNTest, OptimizerErrorsAndSchedules) {
  nn::SGD opt(0.1);
  Variable w(Tensor({1.0f}), "w"), n(Tensor({1}), "n");
  EXPECT_FNC_ERROR(opt.apply_gradients({Tensor({1.0f}), Tensor({1.0f})}, {w}),
                   InvalidArgument, "2 gradients for 1 variables");
  EXPECT_FNC_ERROR(opt.apply_gradients({Tensor({1})}, {n}), InvalidArgument,
                   "only float variables");
  EXPECT_FNC_ERROR(opt.apply_gradients({Tensor({1.0f, 2.0f})}, {w}),
                   InvalidArgument, "the gradient of `w`");
  opt.apply_gradients({Tensor()}, {w}); // unconnected: skipped
  EXPECT_FLOAT_EQ(w.read_value().item<float>(), 1.0f);
  EXPECT_FNC_ERROR(nn::Adam(0.1, 1.0), InvalidArgument, "beta_1");
  // exponential_decay: 0.1 * 0.5^(step / 2), floored with staircase.
  nn::SGD decayed(nn::exponential_decay(0.1, 2, 0.5, /*staircase=*/true));
  for (int step = 0; step < 5; ++step) {
    EXPECT_NEAR(decayed.learning_rate().item<float>(),
                0.1 * std::pow(0.5, step / 2), 1e-7);
    decayed.apply_gradients({Tensor({0.0f})}, {w});
  }
}

// keras's clipnorm, clipvalue, global_clipnorm and weight decay (AdamW),
// step by step against their formulas; staged like the plain updates.
TEST(NNTest, ClippingAndWeightDecayFollowKeras) {
  Variable w(Tensor({1.0f, -2.0f}), "dense/kernel"), b(Tensor({0.5f}), "b");
  Tensor g({3.0f, 4.0f}), gb({-12.0f}); // norms 5 and 12, global norm 13
  nn::SGD byNorm(0.1);
  byNorm.set_clipnorm(1.0); // each scaled to norm 1
  byNorm.apply_gradients({g, gb}, {w, b});
  expectNear(w.read_value(), Tensor({1.0f - 0.06f, -2.0f - 0.08f}), 1e-6);
  expectNear(b.read_value(), Tensor({0.6f}), 1e-6);
  nn::SGD byValue(0.1);
  byValue.set_clipvalue(3.5);
  byValue.apply_gradients({g, gb}, {w, b});
  expectNear(w.read_value(), Tensor({0.94f - 0.3f, -2.08f - 0.35f}), 1e-6);
  expectNear(b.read_value(), Tensor({0.95f}), 1e-6);
  nn::SGD byGlobalNorm(1.0);
  byGlobalNorm.set_global_clipnorm(6.5); // all halved
  byGlobalNorm.apply_gradients({g, gb}, {w, b});
  expectNear(w.read_value(), Tensor({0.64f - 1.5f, -2.43f - 2.0f}), 1e-6);
  expectNear(b.read_value(), Tensor({6.95f}), 1e-5);
  // Below the bounds nothing changes.
  byGlobalNorm.set_global_clipnorm(100);
  byGlobalNorm.apply_gradients({Tensor({0.5f, 0.0f}), Tensor()}, {w, b});
  expectNear(w.read_value(), Tensor({-0.86f - 0.5f, -4.43f}), 1e-5);
  EXPECT_FNC_ERROR(byGlobalNorm.set_clipnorm(1), InvalidArgument,
                   "at most one of clipnorm, clipvalue and global_clipnorm");
  EXPECT_FNC_ERROR(byNorm.set_clipvalue(-1), InvalidArgument,
                   "SGD::set_clipvalue: the bound must be finite and > 0");
  byNorm.set_clipnorm(0); // unset: another may be set
  byNorm.set_clipvalue(1);

  // AdamW: var -= var * wd * lr, then Adam's step; "b" excluded.
  for (bool staged : {false, true}) {
    nn::AdamW opt(0.01, 0.1);
    opt.exclude_from_weight_decay({"b"});
    opt.set_global_clipnorm(2.0);
    Variable k(Tensor({0.5, -1.5}), "k"), bias(Tensor({2.0}), "b");
    std::vector<double> ref = {0.5, -1.5, 2.0}, m(3), v(3);
    auto step = function([&](Tensor gk, Tensor gbias) {
      opt.apply_gradients({gk, gbias}, {k, bias});
    });
    for (int t = 1; t <= 3; ++t) {
      std::vector<double> grad = {0.3 * t, -0.7, 2.5}; // norms > 2
      double norm =
          std::sqrt(grad[0] * grad[0] + grad[1] * grad[1] + grad[2] * grad[2]);
      Tensor gk({grad[0], grad[1]}), gbias({grad[2]});
      if (staged)
        step(gk, gbias);
      else
        opt.apply_gradients({gk, gbias}, {k, bias});
      double alpha =
          0.01 * std::sqrt(1 - std::pow(0.999, t)) / (1 - std::pow(0.9, t));
      for (int i = 0; i < 3; ++i) {
        double gi = grad[i] * 2.0 / std::max(norm, 2.0);
        if (i < 2)
          ref[i] -= ref[i] * 0.1 * 0.01;
        m[i] = 0.9 * m[i] + 0.1 * gi;
        v[i] = 0.999 * v[i] + 0.001 * gi * gi;
        ref[i] -= alpha * m[i] / (std::sqrt(v[i]) + 1e-7);
      }
      std::vector<double> got = k.read_value().to_vector<double>();
      got.push_back(bias.read_value().item<double>());
      for (int i = 0; i < 3; ++i)
        EXPECT_NEAR(got[i], ref[i], 1e-9) << "step " << t << ", " << i;
    }
  }
  EXPECT_FNC_ERROR(nn::AdamW(0.1, -1), InvalidArgument,
                   "AdamW::set_weight_decay: weight_decay must be finite");
  EXPECT_FNC_ERROR(nn::AdamW(0.1, 0.1, 1.0), InvalidArgument,
                   "fnc::nn::AdamW: beta_1");
}

// keras CosineDecay, with and without its warm-up, staged inside the step.
TEST(NNTest, CosineDecayWithWarmup) {
  auto expected = [](double initial, int decay, double alpha, int warmup,
                     double target, int step) {
    if (warmup > 0 && step < warmup)
      return initial + (target - initial) * step / warmup;
    double start = warmup > 0 ? target : initial;
    double done = std::min(double(step - warmup), double(decay)) / decay;
    return start * ((1 - alpha) * 0.5 * (1 + std::cos(M_PI * done)) + alpha);
  };
  struct Case {
    double initial;
    int decay;
    double alpha;
    int warmup;
    double target;
  };
  for (Case c : {Case{0.1, 4, 0.0, 0, -1}, Case{0.1, 3, 0.2, 0, -1},
                 Case{0.0, 4, 0.1, 3, 0.5}}) {
    nn::SGD opt(
        nn::cosine_decay(c.initial, c.decay, c.alpha, c.warmup, c.target));
    Variable w(Tensor({0.0f}), "w");
    auto step = function([&](Tensor g) { opt.apply_gradients({g}, {w}); });
    double sum = 0;
    for (int s = 0; s < 10; ++s) {
      double lr = expected(c.initial, c.decay, c.alpha, c.warmup, c.target, s);
      EXPECT_NEAR(opt.learning_rate().item<float>(), lr, 1e-6) << s;
      sum += lr;
      step(Tensor({-1.0f})); // w += lr
    }
    EXPECT_NEAR(w.read_value().item<float>(), sum, 1e-5);
  }
  EXPECT_FNC_ERROR(nn::cosine_decay(0.1, 0), InvalidArgument,
                   "fnc::nn::cosine_decay: decay_steps must be positive");
  EXPECT_FNC_ERROR(nn::cosine_decay(0.1, 10, 0.0, 5), InvalidArgument,
                   "a warm-up needs its warmup_target");
  EXPECT_FNC_ERROR(nn::cosine_decay(0.1, 10, 2.0), InvalidArgument,
                   "alpha must be in [0, 1]");
}

// Called eagerly, apply_gradients is staged (one function per set of
// variables with a gradient): the same updates as op by op, for each set,
// with a gradient left out, and after a schedule is replaced by a rate.
TEST(NNTest, EagerApplyIsStagedAndMatchesOpByOp) {
  auto run = [](bool opByOp) {
    run_functions_eagerly(opByOp);
    nn::Adam adam(nn::exponential_decay(0.1, 1, 0.5));
    Variable a(Tensor({1.0f, -2.0f}), "a"), b(Tensor({0.5f}), "b");
    std::vector<float> out;
    for (int step = 0; step < 4; ++step) {
      Tensor ga({0.3f * (step + 1), -0.5f}), gb({0.25f});
      if (step == 2)
        adam.set_learning_rate(0.5);
      if (step == 1)
        adam.apply_gradients({ga, Tensor()}, {a, b}); // b not connected
      else
        adam.apply_gradients({ga, gb}, {a, b});
      for (const Variable &v : {a, b})
        for (float x : v.read_value().to_vector<float>())
          out.push_back(x);
    }
    out.push_back(float(adam.iterations().read_value().item<int64_t>()));
    run_functions_eagerly(false);
    return out;
  };
  std::vector<float> staged = run(false), opByOp = run(true);
  ASSERT_EQ(staged.size(), opByOp.size());
  for (size_t i = 0; i < staged.size(); ++i)
    EXPECT_NEAR(staged[i], opByOp[i], 1e-6 * (1 + std::abs(opByOp[i]))) << i;
  EXPECT_EQ(staged.back(), 4.f);
  EXPECT_TRUE(executing_eagerly());
  auto f = function([](Tensor x) {
    EXPECT_FALSE(executing_eagerly());
    return x;
  });
  f(Tensor(1.f));
}

TEST(NNTest, VariablesFromInitializersWhileTracing) {
  // Today's idiom in a trace: a callable initializer, or an InitScope.
  Variable made;
  int traces = 0;
  auto f = function([&](Tensor x) {
    ++traces;
    if (!made.defined())
      made = Variable([] { return random_normal({3}, 0, 1); }, "made");
    Tensor init;
    {
      InitScope eager;
      init = zeros({3}) + 1.0f; // eager even inside the trace
      EXPECT_EQ(init.to_vector<float>(), (std::vector<float>{1, 1, 1}));
    }
    return x + made;
  });
  Tensor y = f(ones({3}));
  ASSERT_TRUE(made.defined());
  expectNear(y, made.read_value() + 1.0f, 0);
  f(ones({3}));
  EXPECT_EQ(traces, 1);
  // A symbolic initial value says how to fix it.
  auto bad = function([](Tensor x) {
    Variable v(x * 2.0f, "v");
    return x;
  });
  EXPECT_FNC_ERROR(bad(ones({2})), InvalidArgument, "fnc::InitScope");
}

TEST(NNTest, DropoutWithAnUnknownBatchDim) {
  FunctionOptions options;
  options.input_signature = {TensorSpec({-1, 64}, DType::f32)};
  auto f = function([](Tensor x) { return dropout(x, 0.25); }, options);
  for (int64_t batch : {3, 50}) {
    std::vector<float> y = f(ones({batch, 64})).to_vector<float>();
    ASSERT_EQ(y.size(), static_cast<size_t>(batch * 64));
    int kept = 0;
    for (float v : y) {
      ASSERT_TRUE(v == 0 || std::abs(v - 1 / 0.75f) < 1e-6) << v;
      kept += v != 0;
    }
    EXPECT_GT(kept, 0);
    EXPECT_LT(kept, batch * 64);
  }
  EXPECT_EQ(f.tracing_count(), 1);
  // random_uniform from a shape tensor, eagerly too.
  EXPECT_EQ(random_uniform(shape(ones({2, 5}))).shape(), (Shape{2, 5}));
}

/// One train step of a small MLP, eagerly or staged with an unknown batch
/// dim: the same updates.
TEST(NNTest, StagedTrainStepMatchesEager) {
  std::mt19937 rng(4);
  Tensor x = randomTensor({16, 6}, rng),
         y = Tensor(std::vector<int32_t>{0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0,
                                         1, 2, 0},
                    {16});
  auto makeModel = [] {
    return std::make_shared<nn::Sequential>(
        nn::Dense(8, "relu", true, nn::init::glorot_uniform()),
        nn::Dropout(0.0), nn::Dense(3));
  };
  set_random_seed(1);
  auto eagerModel = makeModel();
  (*eagerModel)(x);
  set_random_seed(1);
  auto stagedModel = makeModel();
  (*stagedModel)(x);
  for (size_t i = 0; i < eagerModel->variables().size(); ++i)
    expectNear(eagerModel->variables()[i].read_value(),
               stagedModel->variables()[i].read_value(), 0);
  nn::Adam eagerOpt(0.01), stagedOpt(0.01);
  auto step = [](nn::Sequential &model, nn::Optimizer &opt, const Tensor &x,
                 const Tensor &y) {
    GradientTape tape;
    Tensor loss = nn::sparse_categorical_crossentropy(y, model(x, true));
    std::vector<Variable> vars = model.trainable_variables();
    opt.apply_gradients(tape.gradient(loss, vars), vars);
    return loss;
  };
  FunctionOptions options;
  options.input_signature = {TensorSpec({-1, 6}, DType::f32),
                             TensorSpec({-1}, DType::i32)};
  auto staged = function(
      [&](Tensor x, Tensor y) { return step(*stagedModel, stagedOpt, x, y); },
      options);
  for (int it = 0; it < 3; ++it) {
    int64_t n = it == 2 ? 5 : 16; // a partial batch: no retrace
    Tensor xb = slice(x, {0, 0}, {n, 6}), yb = slice(y, {0}, {n});
    Tensor le = step(*eagerModel, eagerOpt, xb, yb);
    Tensor ls = staged(xb, yb);
    EXPECT_NEAR(le.item<float>(), ls.item<float>(), 1e-5);
    for (size_t i = 0; i < eagerModel->variables().size(); ++i)
      expectNear(eagerModel->variables()[i].read_value(),
                 stagedModel->variables()[i].read_value(), 1e-4);
  }
  EXPECT_EQ(staged.tracing_count(), 1);
  EXPECT_EQ(stagedOpt.iterations().read_value().item<int64_t>(), 3);
}

/// The learning rate is a variable: changing it between calls of a staged
/// step takes effect without a retrace.
TEST(NNTest, LearningRateChangesWithoutRetrace) {
  Variable w(Tensor({1.0f, 1.0f}), "w");
  nn::SGD opt(0.5);
  auto step = function([&](Tensor g) {
    opt.apply_gradients({g}, {w});
    return w.read_value();
  });
  Tensor g = Tensor({1.0f, 2.0f});
  expectNear(step(g), Tensor({0.5f, 0.0f}), 1e-7);
  opt.set_learning_rate(0.25);
  expectNear(step(g), Tensor({0.25f, -0.5f}), 1e-7);
  EXPECT_EQ(step.tracing_count(), 1);
  EXPECT_FLOAT_EQ(opt.learning_rate().item<float>(), 0.25f);
}

/// Module checkpoints: a round trip into a fresh model, and a model that
/// differs is an error listing the differences.
TEST(NNTest, ModuleCheckpointRoundTripAndMismatch) {
  std::mt19937 rng(9);
  std::string path = ::testing::TempDir() + "nn_checkpoint.npz";
  Tensor x = randomTensor({3, 5}, rng);
  nn::Sequential model{nn::Dense(4, "relu"), nn::Dense(2)};
  Tensor y = model(x);
  model.save(path);
  nn::Sequential fresh{nn::Dense(4, "relu"), nn::Dense(2)};
  fresh(x); // build
  fresh.restore(path);
  expectNear(fresh(x), y, 0);
  nn::Sequential other{nn::Dense(3, "relu"), nn::Dense(2)};
  other(x);
  EXPECT_FNC_ERROR(other.restore(path), InvalidArgument, "dense/kernel");
}

/// A deterministic short training run: a 2-layer MLP on a synthetic
/// 3-class problem must bring its loss below a bound.
TEST(NNTest, ShortTrainingRunLearns) {
  set_random_seed(3);
  std::mt19937 rng(5);
  Tensor centers = randomTensor({3, 10}, rng, 2);
  std::vector<float> xs;
  std::vector<int32_t> ys;
  std::normal_distribution<float> noise(0, 0.7f);
  std::vector<float> c = centers.to_vector<float>();
  for (int i = 0; i < 256; ++i) {
    int label = i % 3;
    ys.push_back(label);
    for (int j = 0; j < 10; ++j)
      xs.push_back(c[label * 10 + j] + noise(rng));
  }
  Tensor x(xs, {256, 10}), y(ys, {256});
  nn::Sequential model{nn::Dense(32, "relu"), nn::Dense(3)};
  nn::SGD opt(0.1, 0.9);
  FunctionOptions options;
  options.input_signature = {TensorSpec({-1, 10}, DType::f32),
                             TensorSpec({-1}, DType::i32)};
  auto step = function(
      [&](Tensor x, Tensor y) {
        GradientTape tape;
        Tensor loss = nn::sparse_categorical_crossentropy(y, model(x, true));
        std::vector<Variable> vars = model.trainable_variables();
        opt.apply_gradients(tape.gradient(loss, vars), vars);
        return loss;
      },
      options);
  float first = 0, last = 0;
  for (int it = 0; it < 200; ++it) {
    int64_t b = (it * 32) % 256;
    last = step(slice(x, {b, 0}, {32, 10}), slice(y, {b}, {32})).item<float>();
    if (it == 0)
      first = last;
  }
  EXPECT_GT(first, 0.5f);
  EXPECT_LT(last, 0.1f);
  EXPECT_GT(nn::accuracy(y, model(x)).item<float>(), 0.97f);
}

} // namespace
