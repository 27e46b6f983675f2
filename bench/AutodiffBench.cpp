//===- AutodiffBench.cpp - A staged train step: tape vs hand-written ------===//
//
// One SGD step (lr 0.01) of an MLP, batch 256, 784 -> 512 -> 512 -> 10,
// relu, softmax cross-entropy, three ways in one run:
//   - staged, the gradients from a fnc::GradientTape inside the function;
//   - staged, the backward written by hand in fnc ops;
//   - C++ with cblas_sgemm and hand-fused loops (HandWrittenMlp.cpp).
// Prints medians and the ratios (target: tape / hand-written <= 1.05).
// First, the time and peak memory of a gradient through a staged loop of
// 1000 to 400000 iterations. `conv` instead times a staged conv2d forward +
// backward (float32, 3x3 SAME) traced for the batch and for an unknown
// batch (input_signature with -1). `inference` times the MLP's forward
// pass with softmax, staged against cblas_sgemm + fused loops. `dropout`
// times seed 002's pattern (an nn model with two Dropout(0.2) layers whose
// call is staged, differentiated by a tape outside it, batch 128, SGD)
// against the same step with the tape inside the staged function. `rnn`
// times an RNN train step (T=28, B=128, D=28, H=128, tanh cell whose
// Variables are read in the staged loop body, outputs in a TensorArray,
// MSE on the stacked outputs, SGD) and the peak memory of its backward for
// longer sequences; bench/rnn-vs-torch.sh puts it beside PyTorch's nn.RNN.
//
//   ninja fnc-bench-autodiff && ./bin/fnc-bench-autodiff \
//       [conv|inference|dropout|rnn]
//
//===----------------------------------------------------------------------===//

#include "HandWrittenMlp.h"

#include "fnc/fnc.h"

#include <sys/resource.h>

// OpenBLAS's own (not in every cblas.h): which kernel it chose for this CPU.
extern "C" char *openblas_get_corename(void);

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <thread>
#include <vector>

using namespace fnc;

namespace {

constexpr int64_t kBatch = 256, kIn = 784, kHidden = 512, kOut = 10;
constexpr float kLr = 0.01f;

std::vector<float> randomVector(std::mt19937 &rng, size_t n, float scale) {
  std::normal_distribution<float> dist(0.f, scale);
  std::vector<float> v(n);
  for (float &x : v)
    x = dist(rng);
  return v;
}

struct Model {
  Variable w1, b1, w2, b2, w3, b3;
};

Model makeModel(const std::vector<float> &w1, const std::vector<float> &w2,
                const std::vector<float> &w3) {
  return {Variable(Tensor(w1, {kIn, kHidden})),     Variable(zeros({kHidden})),
          Variable(Tensor(w2, {kHidden, kHidden})), Variable(zeros({kHidden})),
          Variable(Tensor(w3, {kHidden, kOut})),    Variable(zeros({kOut}))};
}

Tensor crossEntropy(const Tensor &logits, const Tensor &onehot) {
  return reduce_mean(-reduce_sum(onehot * log_softmax(logits, -1), {-1}));
}

Tensor tapeStep(const Model &m, const Tensor &x, const Tensor &onehot) {
  GradientTape tape;
  Tensor h1 = relu(matmul(x, m.w1) + m.b1);
  Tensor h2 = relu(matmul(h1, m.w2) + m.b2);
  Tensor loss = crossEntropy(matmul(h2, m.w3) + m.b3, onehot);
  std::vector<Variable> vars = {m.w1, m.b1, m.w2, m.b2, m.w3, m.b3};
  std::vector<Tensor> grads = tape.gradient(loss, vars);
  for (size_t i = 0; i < vars.size(); ++i)
    vars[i].assign_sub(grads[i] * kLr);
  return loss;
}

Tensor handStep(const Model &m, const Tensor &x, const Tensor &onehot) {
  Tensor w1 = m.w1, b1 = m.b1, w2 = m.w2, b2 = m.b2, w3 = m.w3, b3 = m.b3;
  Tensor h1 = relu(matmul(x, w1) + b1);
  Tensor h2 = relu(matmul(h1, w2) + b2);
  Tensor logits = matmul(h2, w3) + b3;
  Tensor loss = crossEntropy(logits, onehot);
  Tensor dlogits = (softmax(logits, -1) - onehot) / static_cast<float>(kBatch);
  Tensor dh2 = matmul(dlogits, transpose(w3)) * cast(h2 > 0.f, DType::f32);
  Tensor dh1 = matmul(dh2, transpose(w2)) * cast(h1 > 0.f, DType::f32);
  m.w3.assign_sub(matmul(transpose(h2), dlogits) * kLr);
  m.b3.assign_sub(reduce_sum(dlogits, {0}) * kLr);
  m.w2.assign_sub(matmul(transpose(h1), dh2) * kLr);
  m.b2.assign_sub(reduce_sum(dh2, {0}) * kLr);
  m.w1.assign_sub(matmul(transpose(x), dh1) * kLr);
  m.b1.assign_sub(reduce_sum(dh1, {0}) * kLr);
  return loss;
}

template <typename F> double medianMs(F &&f, int reps) {
  std::vector<double> times;
  for (int i = 0; i < reps; ++i) {
    auto start = std::chrono::steady_clock::now();
    f();
    times.push_back(std::chrono::duration<double, std::milli>(
                        std::chrono::steady_clock::now() - start)
                        .count());
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

/// Peak resident memory of the process so far, in KiB.
long peakRssKiB() {
  rusage usage;
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss;
}

/// The gradient of a staged loop of `steps` iterations of
/// x = tanh(W @ x + b) over a [16] state, with respect to W.
Tensor loopGradient(const Tensor &w, const Tensor &b, const Tensor &x0,
                    const Tensor &steps) {
  GradientTape tape;
  tape.watch(w);
  Tensor x = fnc::for_range(
      Tensor(0), steps, Tensor(1),
      [&](const Tensor &, const Tensor &v) {
        return tanh(reduce_sum(w * v, {1}) + b);
      },
      x0);
  return tape.gradient(reduce_sum(x), w);
}

/// The same iteration as a while_loop, whose trip count the loop learns
/// only by running (its gradient history comes from a second loop).
Tensor whileGradient(const Tensor &w, const Tensor &b, const Tensor &x0,
                     const Tensor &steps) {
  GradientTape tape;
  tape.watch(w);
  auto [i, x] = fnc::while_loop(
      [&](const Tensor &k, const Tensor &) { return k < steps; },
      [&](const Tensor &k, const Tensor &v) {
        return std::make_tuple(k + 1, tanh(reduce_sum(w * v, {1}) + b));
      },
      std::make_tuple(Tensor(0), x0));
  return tape.gradient(reduce_sum(x), w);
}

/// Milliseconds of one call of the staged `loop` with `n` iterations.
template <typename F>
double callMs(F &f, const Tensor &w, const Tensor &b, const Tensor &x0,
              int64_t n) {
  auto start = std::chrono::steady_clock::now();
  f(w, b, x0, Tensor(static_cast<int32_t>(n)));
  return std::chrono::duration<double, std::milli>(
             std::chrono::steady_clock::now() - start)
      .count();
}

void loopMemory() {
  std::mt19937 rng(7);
  Tensor w(randomVector(rng, 16 * 16, 0.3f), {16, 16});
  Tensor b(randomVector(rng, 16, 0.1f), {16});
  Tensor x0(randomVector(rng, 16, 1.f), {16});
  auto f = fnc::function([](Tensor w, Tensor b, Tensor x0, Tensor steps) {
    return loopGradient(w, b, x0, steps);
  });
  f(w, b, x0, Tensor(10)); // compile
  std::printf("Backward through a staged for_range over a [16] float32 "
              "state (x = tanh(W x + b), trip count a run-time value)\n");
  long before = peakRssKiB();
  const int64_t counts[] = {1000, 100000, 400000};
  for (int64_t n : counts) {
    auto start = std::chrono::steady_clock::now();
    Tensor g = f(w, b, x0, Tensor(static_cast<int32_t>(n)));
    double ms = std::chrono::duration<double, std::milli>(
                    std::chrono::steady_clock::now() - start)
                    .count();
    long peak = peakRssKiB();
    std::printf("  %6lld iterations: %8.2f ms, peak RSS +%6ld KiB "
                "(%.1f bytes per iteration; the carried state is 64 bytes "
                "+ an int32 counter)\n",
                (long long)n, ms, peak - before, (peak - before) * 1024.0 / n);
    (void)g;
  }
  auto g = fnc::function([](Tensor w, Tensor b, Tensor x0, Tensor steps) {
    return whileGradient(w, b, x0, steps);
  });
  callMs(g, w, b, x0, 10); // compile
  std::printf("  the same loop as a while_loop (trip count learned by "
              "running), 40000 iterations: %.2f ms (for_range: %.2f ms)\n",
              callMs(g, w, b, x0, 40000), callMs(f, w, b, x0, 40000));
  std::printf("  traces: %lld\n\n", (long long)f.tracing_count());
}

/// conv2d forward and the gradients of sum(conv2d(x, w) * r) with
/// respect to x and w.
std::vector<Tensor> convStep(const Tensor &x, const Tensor &w,
                             const Tensor &r) {
  GradientTape tape;
  tape.watch(x);
  tape.watch(w);
  Tensor y = conv2d(x, w, {1, 1}, "SAME");
  return tape.gradient(reduce_sum(y * r), {x, w});
}

void convBench() {
  struct Config {
    int64_t n, hw, c, f;
  };
  const Config configs[] = {{128, 28, 1, 16}, {128, 14, 16, 32}};
  std::mt19937 rng(5);
  std::printf("conv2d forward + backward (input and filter gradients), "
              "float32, 3x3 SAME, stride 1 (medians)\n");
  for (const Config &c : configs) {
    Tensor x(randomVector(rng, c.n * c.hw * c.hw * c.c, 1.f),
             {c.n, c.hw, c.hw, c.c});
    Tensor w(randomVector(rng, 9 * c.c * c.f, 0.2f), {3, 3, c.c, c.f});
    Tensor r(randomVector(rng, c.n * c.hw * c.hw * c.f, 1.f),
             {c.n, c.hw, c.hw, c.f});
    auto known = fnc::function(
        [](Tensor a, Tensor b, Tensor d) { return convStep(a, b, d); });
    FunctionOptions options;
    options.input_signature = {TensorSpec({-1, c.hw, c.hw, c.c}),
                               TensorSpec({3, 3, c.c, c.f}),
                               TensorSpec({-1, c.hw, c.hw, c.f})};
    auto unknown = fnc::function(
        [](Tensor a, Tensor b, Tensor d) { return convStep(a, b, d); },
        options);
    double tKnown = 0, tUnknown = 0;
    bool dynamic = true;
    known(x, w, r); // compile
    try {
      unknown(x, w, r);
    } catch (const Error &e) {
      std::printf("  batch -1: %s\n", e.what());
      dynamic = false;
    }
    const int reps = 20;
    for (int round = 0; round < 3; ++round) {
      tKnown += medianMs([&] { known(x, w, r); }, reps);
      if (dynamic)
        tUnknown += medianMs([&] { unknown(x, w, r); }, reps);
    }
    std::printf("  [%lld,%lld,%lld,%lld] -> %lld ch: batch known %7.2f ms",
                (long long)c.n, (long long)c.hw, (long long)c.hw,
                (long long)c.c, (long long)c.f, tKnown / 3);
    if (dynamic)
      std::printf(", batch -1 %7.2f ms", tUnknown / 3);
    std::printf("\n");
  }
}

} // namespace

/// MLP inference (issue 17): the staged forward pass with softmax against
/// three cblas_sgemm calls with fused bias, relu and softmax loops.
void inferenceBench() {
  std::mt19937 rng(42);
  std::vector<float> w1 = randomVector(rng, kIn * kHidden, 0.05f),
                     w2 = randomVector(rng, kHidden * kHidden, 0.05f),
                     w3 = randomVector(rng, kHidden * kOut, 0.05f),
                     xs = randomVector(rng, kBatch * kIn, 1.f);
  Tensor x(xs, {kBatch, kIn});
  Model m = makeModel(w1, w2, w3);
  auto staged = fnc::function([&](Tensor in) {
    Tensor h1 = relu(matmul(in, m.w1) + m.b1);
    Tensor h2 = relu(matmul(h1, m.w2) + m.b2);
    return softmax(matmul(h2, m.w3) + m.b3, -1);
  });
  HandWrittenMlp blas(w1.data(), w2.data(), w3.data(), kBatch, kIn, kHidden,
                      kOut, kLr);
  std::vector<float> probs(kBatch * kOut);
  Tensor out = staged(x);
  blas.predict(xs.data(), probs.data());
  float diff = 0;
  for (int64_t i = 0; i < kBatch * kOut; ++i)
    diff = std::max(diff, std::abs(out.data<float>()[i] - probs[i]));
  // Rounds alternate, the best median of each side counts. Before each
  // side a pause: the other side's thread pool (libomp's, OpenBLAS's)
  // spins for a while after its last call and would take the cores.
  const int reps = 50;
  double tStaged = 1e30, tBlas = 1e30;
  auto pause = [] {
    std::this_thread::sleep_for(std::chrono::milliseconds(400));
  };
  for (int round = 0; round < 3; ++round) {
    pause();
    tStaged = std::min(tStaged, medianMs([&] { out = staged(x); }, reps));
    pause();
    tBlas = std::min(
        tBlas, medianMs([&] { blas.predict(xs.data(), probs.data()); }, reps));
  }
  std::printf("MLP inference, batch %lld, %lld -> %lld -> %lld -> %lld, "
              "relu, softmax (best median of 3 rounds; OpenBLAS core: %s)\n",
              (long long)kBatch, (long long)kIn, (long long)kHidden,
              (long long)kHidden, (long long)kOut, openblas_get_corename());
  std::printf("  staged:                      %7.3f ms\n", tStaged);
  std::printf("  cblas_sgemm + fused loops:   %7.3f ms\n", tBlas);
  std::printf("  staged / cblas:              %7.2fx (target <= 1.0x)  max "
              "|diff| %.2g\n",
              tStaged / tBlas, diff);
}

/// Seed 002's MyModel: the model's call staged, a tape outside it, the
/// loss and the SGD update eager; against one staged step holding the tape.
void dropoutBench() {
  constexpr int64_t batch = 128;
  std::mt19937 rng(3);
  Tensor x(randomVector(rng, batch * kIn, 1.f), {batch, kIn});
  std::vector<int32_t> labelData(batch);
  for (int32_t &l : labelData)
    l = static_cast<int32_t>(rng() % kOut);
  Tensor labels(labelData, {batch});
  auto makeNet = [] {
    return nn::Sequential{nn::Dense(kHidden, "relu"), nn::Dropout(0.2, 1),
                          nn::Dense(kHidden, "relu"), nn::Dropout(0.2, 2),
                          nn::Dense(kOut)};
  };
  nn::Sequential outerNet = makeNet(), innerNet = makeNet();
  auto call = fnc::function([&](Tensor in) { return outerNet(in, true); });
  nn::SGD outerSgd(kLr), innerSgd(kLr);
  auto outerStep = [&] {
    GradientTape tape;
    Tensor loss =
        nn::sparse_categorical_crossentropy(labels, call(x), true);
    auto vars = outerNet.trainable_variables();
    outerSgd.apply_gradients(tape.gradient(loss, vars), vars);
    return loss;
  };
  auto innerStep = fnc::function([&](Tensor in, Tensor y) {
    GradientTape tape;
    Tensor loss =
        nn::sparse_categorical_crossentropy(y, innerNet(in, true), true);
    auto vars = innerNet.trainable_variables();
    innerSgd.apply_gradients(tape.gradient(loss, vars), vars);
    return loss;
  });
  outerStep(); // build and compile
  innerStep(x, labels);
  const int reps = 30;
  double tOuter = 1e30, tInner = 1e30;
  for (int round = 0; round < 3; ++round) {
    tOuter = std::min(tOuter, medianMs([&] { outerStep(); }, reps));
    tInner = std::min(tInner, medianMs([&] { innerStep(x, labels); }, reps));
  }
  std::printf("MLP %lld -> %lld -> %lld -> %lld with two Dropout(0.2), batch "
              "%lld, SGD (best median of 3 rounds)\n",
              (long long)kIn, (long long)kHidden, (long long)kHidden,
              (long long)kOut, (long long)batch);
  std::printf("  staged call under an outer tape: %7.2f ms\n", tOuter);
  std::printf("  tape inside the staged step:     %7.2f ms\n", tInner);
  std::printf("  outer / inner:                   %7.2fx (target <= 1.1x); "
              "backward functions: %zu\n",
              tOuter / tInner, call.backward_concrete_functions().size());
}

/// A train step of a tanh RNN over `steps` time steps: the cell's
/// variables read inside the staged loop body, the outputs in a
/// TensorArray, the loss on them, the gradients from a tape, SGD.
struct RnnStep {
  Variable wx, wh, b;
  Tensor operator()(const Tensor &x, const Tensor &target) const {
    GradientTape tape;
    Tensor seq = transpose(x, {1, 0, 2}); // [T, B, D]
    int64_t steps = seq.shape()[0], batch = seq.shape()[1];
    int64_t hidden = wh.shape()[0];
    TensorArray outputs(DType::f32, steps, {batch, hidden});
    auto [h, out] = fnc::for_range(
        Tensor(0), Tensor(static_cast<int32_t>(steps)), Tensor(1),
        [&](const Tensor &i, const Tensor &h, const TensorArray &ta) {
          Tensor next =
              tanh(matmul(gather(seq, i, 0), wx) + matmul(h, wh) + b);
          return std::make_tuple(next, ta.write(i, next));
        },
        std::make_tuple(zeros({batch, hidden}), outputs));
    (void)h;
    Tensor stacked = transpose(out.stack(), {1, 0, 2});
    Tensor loss = reduce_mean(square(stacked - target));
    std::vector<Variable> vars = {wx, wh, b};
    std::vector<Tensor> grads = tape.gradient(loss, vars);
    for (size_t k = 0; k < vars.size(); ++k)
      vars[k].assign_sub(grads[k] * kLr);
    return loss;
  }
};

void rnnBench() {
  constexpr int64_t T = 28, B = 128, D = 28, H = 128;
  std::mt19937 rng(11);
  RnnStep rnn{Variable(Tensor(randomVector(rng, D * H, 0.1f), {D, H})),
              Variable(Tensor(randomVector(rng, H * H, 0.1f), {H, H})),
              Variable(zeros({H}))};
  auto step = fnc::function(rnn);
  Tensor x(randomVector(rng, B * T * D, 1.f), {B, T, D});
  Tensor target(randomVector(rng, B * T * H, 0.5f), {B, T, H});
  float first = step(x, target).item<float>();
  double best = 1e30;
  for (int round = 0; round < 3; ++round)
    best = std::min(best, medianMs([&] { step(x, target); }, 20));
  float last = step(x, target).item<float>();
  std::printf("RNN train step, T=%lld B=%lld D=%lld H=%lld, tanh, SGD "
              "(best median of 3 rounds of 20): %.3f ms (loss %.5f -> "
              "%.5f)\n",
              (long long)T, (long long)B, (long long)D, (long long)H, best,
              first, last);
  std::printf("RESULT impl=fnc step_ms=%.4f\n", best);
  // The backward keeps one state per iteration (and the TensorArray holds
  // one output per iteration): memory linear in T.
  std::printf("Peak memory of longer sequences (same B, H):\n");
  long before = peakRssKiB();
  for (int64_t steps : {280, 1400}) {
    Tensor xs(randomVector(rng, B * steps * D, 1.f), {B, steps, D});
    Tensor ts(randomVector(rng, B * steps * H, 0.5f), {B, steps, H});
    step(xs, ts);
    long peak = peakRssKiB();
    std::printf("  T=%5lld: peak RSS +%7ld KiB over T=28 (inputs and "
                "targets %lld KiB; one [B, H] state is %lld KiB)\n",
                (long long)steps, peak - before,
                (long long)(B * steps * (D + H) * 4 / 1024),
                (long long)(B * H * 4 / 1024));
  }
}

int main(int argc, char **argv) {
  // Compiled code is what is measured: a new trace (the longer sequences'
  // below) compiles before its first call returns instead of running on
  // the graph executor meanwhile.
  ::setenv("FNC_JIT_COMPILE", "1", /*overwrite=*/0);
  if (argc > 1 && std::string(argv[1]) == "rnn") {
    rnnBench();
    return 0;
  }
  if (argc > 1 && std::string(argv[1]) == "dropout") {
    dropoutBench();
    return 0;
  }
  if (argc > 1 && std::string(argv[1]) == "conv") {
    convBench();
    return 0;
  }
  if (argc > 1 && std::string(argv[1]) == "inference") {
    inferenceBench();
    return 0;
  }
  loopMemory(); // first: the MLP's buffers would hide its peak
  std::mt19937 rng(42);
  std::vector<float> w1 = randomVector(rng, kIn * kHidden, 0.05f),
                     w2 = randomVector(rng, kHidden * kHidden, 0.05f),
                     w3 = randomVector(rng, kHidden * kOut, 0.05f),
                     xs = randomVector(rng, kBatch * kIn, 1.f);
  std::vector<float> onehotData(kBatch * kOut, 0.f);
  std::vector<int32_t> labels(kBatch);
  for (int64_t i = 0; i < kBatch; ++i) {
    labels[i] = static_cast<int32_t>(rng() % kOut);
    onehotData[i * kOut + labels[i]] = 1.f;
  }
  Tensor x(xs, {kBatch, kIn}), onehot(onehotData, {kBatch, kOut});

  Model a = makeModel(w1, w2, w3), b = makeModel(w1, w2, w3),
        c = makeModel(w1, w2, w3);
  auto tape =
      fnc::function([&](Tensor in, Tensor y) { return tapeStep(a, in, y); });
  // The same step traced for any batch (docs/NN.md's input_signature).
  FunctionOptions anyBatch;
  anyBatch.input_signature = {TensorSpec({-1, kIn}), TensorSpec({-1, kOut})};
  auto tapeAnyBatch = fnc::function(
      [&](Tensor in, Tensor y) { return tapeStep(c, in, y); }, anyBatch);
  auto hand =
      fnc::function([&](Tensor in, Tensor y) { return handStep(b, in, y); });
  HandWrittenMlp blas(w1.data(), w2.data(), w3.data(), kBatch, kIn, kHidden,
                      kOut, kLr);

  // Same start, same steps: the three losses must agree.
  float la = 0, lb = 0, lc = 0, ld = 0;
  for (int step = 0; step < 3; ++step) {
    la = tape(x, onehot).item<float>();
    ld = tapeAnyBatch(x, onehot).item<float>();
    lb = hand(x, onehot).item<float>();
    lc = blas.step(xs.data(), labels.data());
  }
  std::printf("MLP train step, batch %lld, %lld -> %lld -> %lld -> %lld, "
              "SGD lr %.2f (medians)\n",
              (long long)kBatch, (long long)kIn, (long long)kHidden,
              (long long)kHidden, (long long)kOut, kLr);
  std::printf("  loss after 3 steps: tape %.6f (batch -1: %.6f), hand %.6f, "
              "blas %.6f\n",
              la, ld, lb, lc);
  const int reps = 30;
  double tTape = 0, tAny = 0, tHand = 0, tBlas = 0;
  for (int round = 0; round < 3; ++round) { // interleaved: the same noise
    tTape += medianMs([&] { tape(x, onehot); }, reps);
    tAny += medianMs([&] { tapeAnyBatch(x, onehot); }, reps);
    tHand += medianMs([&] { hand(x, onehot); }, reps);
    tBlas += medianMs([&] { blas.step(xs.data(), labels.data()); }, reps);
  }
  tTape /= 3, tAny /= 3, tHand /= 3, tBlas /= 3;
  std::printf("  staged, GradientTape:        %7.2f ms\n", tTape);
  std::printf("  the same, batch -1:          %7.2f ms (%.2fx)\n", tAny,
              tAny / tTape);
  std::printf("  staged, backward by hand:    %7.2f ms\n", tHand);
  std::printf("  cblas_sgemm + fused loops:   %7.2f ms\n", tBlas);
  std::printf("  tape / hand-written:         %7.2fx (target <= 1.05x)\n",
              tTape / tHand);
  std::printf("  tape / cblas:                %7.2fx\n", tTape / tBlas);
  std::printf("  traces: tape %lld, hand %lld\n",
              (long long)tape.tracing_count(), (long long)hand.tracing_count());
  return 0;
}
