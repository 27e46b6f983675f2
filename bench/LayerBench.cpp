//===- LayerBench.cpp - fnc::nn layers' train steps, for PyTorch beside ---===//
//
// The train step (forward, GradientTape backward, SGD lr 0.01) of one
// layer, staged with fnc::function, median of 20 steps (best of 3 rounds),
// as bench/layers_torch.py times PyTorch's:
//   lstm       nn::LSTM(128) over x [B=128, T=28, D=28], the last output,
//              MSE against a target [128, 128] (torch.nn.LSTM)
//   attention  nn::MultiHeadAttention(4 heads of 16) self-attention over
//              x [B=64, T=28, d=64], MSE against a target of x's shape
//              (torch.nn.MultiheadAttention, need_weights=False)
// Also prints the first call's time (trace + compile, cold cache).
// bench/layers-vs-torch.sh runs both sides and prints the ratios.
//
//   ninja fnc-bench-layers && ./bin/fnc-bench-layers [lstm|attention]
//
//===----------------------------------------------------------------------===//

#include "fnc/GradientTape.h"
#include "fnc/NN.h"
#include "fnc/Optimizers.h"
#include "fnc/fnc.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <random>
#include <string>
#include <vector>

using namespace fnc;

namespace {

Tensor normal(std::mt19937 &rng, const Shape &shape, float scale) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  std::normal_distribution<float> dist(0.f, scale);
  std::vector<float> v(n);
  for (float &x : v)
    x = dist(rng);
  return Tensor(v, shape);
}

double millisSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(
             std::chrono::steady_clock::now() - start)
      .count();
}

/// Times the staged train step of `layer` on x against target.
void bench(const char *what, nn::Layer &layer, const Tensor &x,
           const Tensor &target) {
  nn::SGD sgd(0.01);
  FunctionOptions compiled; // the first call compiles (not tiered)
  compiled.jit_compile = true;
  auto step = fnc::function(
      [&](Tensor in, Tensor want) {
        GradientTape tape;
        Tensor loss = reduce_mean(square(layer(in) - want));
        std::vector<Variable> vars = layer.trainable_variables();
        sgd.apply_gradients(tape.gradient(loss, vars), vars);
        return loss;
      },
      compiled);
  layer(x); // build the variables eagerly
  auto start = std::chrono::steady_clock::now();
  step(x, target).item<float>();
  double first = millisSince(start);
  for (int i = 0; i < 3; ++i)
    step(x, target).item<float>();
  double best = 1e30;
  for (int round = 0; round < 3; ++round) {
    std::vector<double> times;
    for (int i = 0; i < 20; ++i) {
      start = std::chrono::steady_clock::now();
      step(x, target).item<float>();
      times.push_back(millisSince(start));
    }
    std::nth_element(times.begin(), times.begin() + 10, times.end());
    best = std::min(best, times[10]);
  }
  std::printf("fnc %s train step: %.3f ms (first call, trace + compile: "
              "%.0f ms)\n",
              what, best, first);
  std::printf("RESULT impl=fnc layer=%s step_ms=%.4f\n", what, best);
}

} // namespace

int main(int argc, char **argv) {
  std::string which = argc > 1 ? argv[1] : "all";
  if (which != "all" && which != "lstm" && which != "attention") {
    std::fprintf(stderr, "usage: fnc-bench-layers [lstm|attention]\n");
    return 2;
  }
  std::mt19937 rng(11);
  if (which != "attention") {
    nn::LSTM lstm(128);
    bench("lstm", lstm, normal(rng, {128, 28, 28}, 1),
          normal(rng, {128, 128}, 0.5));
  }
  if (which != "lstm") {
    nn::MultiHeadAttention attention(4, 16);
    Tensor x = normal(rng, {64, 28, 64}, 1);
    bench("attention", attention, x, normal(rng, {64, 28, 64}, 0.5));
  }
  return 0;
}
