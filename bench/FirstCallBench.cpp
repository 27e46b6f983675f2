//===- FirstCallBench.cpp - Time to first result, per jit_compile mode ----===//
//
// A plain harness (no pass/fail): the first call of a new concrete function
// with a cold compile cache (none), for the seed function, an MLP train
// step, a CNN train step, a transformer + LSTM train step and a deep
// residual train step, both of over 1000 ops,
// each with jit_compile = true (compile, then run) and unset (tiered: the
// graph executor runs the first calls while a background thread compiles).
// Per model and mode it prints the time to the first result, the compile
// time (compile_seconds(): the whole pipeline + LLVM + link, split into its
// phases, and the trace's own time for jit), how many
// calls the graph executor served before the compiled code took over
// (calling in a loop), and the steady-state step time (median of 20
// compiled calls). Each model is traced in the same process, but each mode
// with a fresh fnc::function and no compile cache, so nothing is shared
// but the process's warm-up (which the first, untimed, seed call pays).
//
//   ninja fnc-bench-first-call &&
//     ./bin/fnc-bench-first-call [--quick] [--opt-level=N] [--only=NAME]
//                                [--jit] [--dump-ir=PREFIX]
//
//===----------------------------------------------------------------------===//

#include "fnc/JIT/Engine.h"
#include "fnc/Trace/CompiledTrace.h"
#include "fnc/Trace/ConcreteAccess.h"
#include <fnc/fnc.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

double since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

struct Model {
  const char *name;
  std::vector<fnc::Tensor> args;
  /// Makes a fresh staged step (new variables each time).
  std::function<fnc::Function<std::vector<fnc::Tensor>(
      std::vector<fnc::Tensor>)>(fnc::FunctionOptions)>
      make;
};

std::vector<fnc::Tensor> seedStep(std::vector<fnc::Tensor> a) {
  return {fnc::reduce_mean(fnc::pow(a[0], 2.f) * 3.f + a[1])};
}

/// SGD on the given variables of a loss.
std::vector<fnc::Tensor> sgd(fnc::GradientTape &tape, const fnc::Tensor &loss,
                             std::vector<fnc::Variable> &vars) {
  std::vector<fnc::Tensor> g = tape.gradient(loss, vars);
  for (size_t i = 0; i < vars.size(); ++i)
    vars[i].assign_sub(g[i] * 0.01f);
  return {loss};
}

fnc::Variable weight(std::vector<int64_t> shape, float scale) {
  return fnc::Variable(fnc::random_normal(shape) * scale);
}

Model mlpModel() {
  Model m{"mlp", {fnc::random_uniform({128, 784}),
                  fnc::cast(fnc::random_uniform({128}, 0, 10), fnc::DType::i32)},
          {}};
  m.make = [](fnc::FunctionOptions o) {
    auto vars = std::make_shared<std::vector<fnc::Variable>>(
        std::vector<fnc::Variable>{weight({784, 128}, 0.05f),
                                   weight({128}, 0.f), weight({128, 10}, 0.05f),
                                   weight({10}, 0.f)});
    return fnc::function(
        [vars](std::vector<fnc::Tensor> a) -> std::vector<fnc::Tensor> {
          std::vector<fnc::Variable> &v = *vars;
          fnc::GradientTape tape;
          fnc::Tensor h =
              fnc::relu(fnc::matmul(a[0], v[0].value()) + v[1].value());
          fnc::Tensor logits = fnc::matmul(h, v[2].value()) + v[3].value();
          fnc::Tensor loss = fnc::reduce_mean(
              fnc::nn::sparse_softmax_cross_entropy_with_logits(a[1], logits));
          return sgd(tape, loss, v);
        },
        o);
  };
  return m;
}

Model cnnModel() {
  Model m{"cnn", {fnc::random_uniform({32, 28, 28, 1}),
                  fnc::cast(fnc::random_uniform({32}, 0, 10), fnc::DType::i32)},
          {}};
  m.make = [](fnc::FunctionOptions o) {
    auto vars = std::make_shared<std::vector<fnc::Variable>>(
        std::vector<fnc::Variable>{weight({3, 3, 1, 16}, 0.2f),
                                   weight({16}, 0.f),
                                   weight({13 * 13 * 16, 10}, 0.02f),
                                   weight({10}, 0.f)});
    return fnc::function(
        [vars](std::vector<fnc::Tensor> a) -> std::vector<fnc::Tensor> {
          std::vector<fnc::Variable> &v = *vars;
          fnc::GradientTape tape;
          fnc::Tensor c =
              fnc::relu(fnc::conv2d(a[0], v[0].value()) + v[1].value());
          fnc::Tensor p = fnc::max_pool2d(c, {2, 2}, {2, 2});
          fnc::Tensor flat = fnc::reshape(p, {-1, 13 * 13 * 16});
          fnc::Tensor logits = fnc::matmul(flat, v[2].value()) + v[3].value();
          fnc::Tensor loss = fnc::reduce_mean(
              fnc::nn::sparse_softmax_cross_entropy_with_logits(a[1], logits));
          return sgd(tape, loss, v);
        },
        o);
  };
  return m;
}

/// 40 residual blocks h += tanh(h W + b) * g with a normalization, then a
/// softmax loss: forward, backward and SGD, over 1000 ops.
Model deepModel() {
  constexpr int kBlocks = 40, kWidth = 64;
  Model m{"deep", {fnc::random_uniform({64, kWidth}),
                   fnc::cast(fnc::random_uniform({64}, 0, 10), fnc::DType::i32)},
          {}};
  m.make = [](fnc::FunctionOptions o) {
    auto vars = std::make_shared<std::vector<fnc::Variable>>();
    for (int i = 0; i < kBlocks; ++i) {
      vars->push_back(weight({kWidth, kWidth}, 0.1f));
      vars->push_back(weight({kWidth}, 0.f));
      vars->push_back(
          fnc::Variable(fnc::cast(fnc::fill({kWidth}, 0.5), fnc::DType::f32)));
    }
    vars->push_back(weight({kWidth, 10}, 0.1f));
    return fnc::function(
        [vars](std::vector<fnc::Tensor> a) -> std::vector<fnc::Tensor> {
          std::vector<fnc::Variable> &v = *vars;
          fnc::GradientTape tape;
          fnc::Tensor h = a[0];
          for (int i = 0; i < kBlocks; ++i) {
            fnc::Tensor z = fnc::matmul(h, v[3 * i].value()) + v[3 * i + 1].value();
            h = h + fnc::tanh(z) * v[3 * i + 2].value();
            fnc::Tensor mean = fnc::reduce_mean(h, {1}, true);
            fnc::Tensor var = fnc::reduce_mean(fnc::square(h - mean), {1}, true);
            h = (h - mean) / fnc::sqrt(var + 1e-5f);
          }
          fnc::Tensor logits = fnc::matmul(h, v.back().value());
          fnc::Tensor loss = fnc::reduce_mean(
              fnc::nn::sparse_softmax_cross_entropy_with_logits(a[1], logits));
          return sgd(tape, loss, v);
        },
        o);
  };
  return m;
}

/// A small transformer and an LSTM, the layers of fnc::nn: token
/// embeddings, two blocks of self-attention (4 heads) and a feed-forward
/// layer, each with a residual connection and a layer normalization, an
/// LSTM over the sequence (a staged loop) and a softmax loss: forward,
/// backward and SGD, over 1000 ops.
Model seqModel() {
  static constexpr int kBatch = 16, kSteps = 32, kVocab = 1000, kWidth = 64;
  Model m{"seq",
          {fnc::cast(fnc::random_uniform({kBatch, kSteps}, 0, kVocab),
                     fnc::DType::i32),
           fnc::cast(fnc::random_uniform({kBatch}, 0, 10), fnc::DType::i32)},
          {}};
  struct Layers {
    fnc::nn::Embedding embed{kVocab, kWidth};
    std::vector<fnc::nn::MultiHeadAttention> attention;
    std::vector<fnc::nn::Dense> hidden, out;
    std::vector<fnc::nn::LayerNormalization> norm;
    fnc::nn::LSTM lstm{kWidth};
    fnc::nn::Dense logits{10};
    std::vector<fnc::Variable> vars;

    fnc::Tensor loss(const std::vector<fnc::Tensor> &a) {
      fnc::Tensor h = embed(a[0]);
      for (size_t i = 0; i < attention.size(); ++i) {
        h = norm[2 * i](h + attention[i](h));
        h = norm[2 * i + 1](h + out[i](hidden[i](h)));
      }
      return fnc::reduce_mean(fnc::nn::sparse_softmax_cross_entropy_with_logits(
          a[1], logits(lstm(h))));
    }
  };
  m.make = [args = m.args](fnc::FunctionOptions o) {
    auto layers = std::make_shared<Layers>();
    for (int i = 0; i < 2; ++i) {
      layers->attention.emplace_back(4, kWidth / 4);
      layers->hidden.emplace_back(2 * kWidth, "relu");
      layers->out.emplace_back(kWidth);
      layers->norm.emplace_back();
      layers->norm.emplace_back();
    }
    layers->loss(args); // builds the layers' variables, eagerly
    std::vector<fnc::nn::Layer *> all = {&layers->embed, &layers->lstm,
                                         &layers->logits};
    for (int i = 0; i < 2; ++i)
      all.insert(all.end(),
                 {&layers->attention[i], &layers->hidden[i], &layers->out[i],
                  &layers->norm[2 * i], &layers->norm[2 * i + 1]});
    for (fnc::nn::Layer *l : all)
      for (const fnc::Variable &v : l->trainable_variables())
        layers->vars.push_back(v);
    return fnc::function(
        [layers](std::vector<fnc::Tensor> a) -> std::vector<fnc::Tensor> {
          fnc::GradientTape tape;
          fnc::Tensor loss = layers->loss(a);
          return sgd(tape, loss, layers->vars);
        },
        o);
  };
  return m;
}

unsigned gOptLevel = 3;
/// --steps=N: the calls after the compile, of which the last tenth (at
/// least 5) are timed for the step.
int gSteps = 200;
/// --cache-dir=DIR: a compile cache to use (default none: every compile is
/// cold); with one, a second run times the steps without compiling.
std::string gCacheDir;
/// --dump-ir=FILE: the traced IR of the jit run, for fnc-opt / fnc-compile.
std::string gDumpIR;

void run(const Model &m, bool tiered) {
  fnc::FunctionOptions o;
  o.cache_dir = gCacheDir;
  o.opt_level = gOptLevel;
  o.name = m.name;
  if (!tiered)
    o.jit_compile = true;
  auto f = m.make(o);
  auto start = Clock::now();
  f(m.args);
  double first = since(start);
  fnc::ConcreteFunction c = f.get_concrete_function(m.args);
  int graphCalls = c.is_compiled() ? 0 : 1;
  while (!c.is_compiled()) {
    f(m.args);
    ++graphCalls;
  }
  double untilCompiled = since(start);
  if (!gDumpIR.empty() && !tiered)
    std::ofstream(gDumpIR + "." + m.name + ".mlir") << c.ir();
  double compile = c.compile_seconds();
  std::vector<double> steps;
  int timed = std::max(5, gSteps / 10);
  for (int i = 0; i < std::max(gSteps, timed); ++i) {
    auto t = Clock::now();
    f(m.args);
    if (i >= gSteps - timed)
      steps.push_back(since(t));
  }
  std::sort(steps.begin(), steps.end());
  std::printf("%-5s %5lld ops %-7s first result %8.1f ms   compile %8.1f ms   "
              "compiled after %8.1f ms (%4d graph calls)   step %8.1f us\n",
              m.name, static_cast<long long>(c.op_count()),
              tiered ? "tiered" : "jit", first * 1e3, compile * 1e3,
              untilCompiled * 1e3, graphCalls, steps[steps.size() / 2] * 1e6);
  // Where the compile went: the trace (the first call's time outside the
  // compile, jit only), the MLIR pipeline and translation, LLVM, the link.
  const fnc::jit::CompiledModule::Phases &p =
      fnc::detail::ConcreteAccess::compiled(c).module().phases();
  std::printf("      %s: trace %.1f ms, MLIR %.1f ms, LLVM %.1f ms, link "
              "%.1f ms, other %.1f ms\n",
              tiered ? "tiered" : "jit", tiered ? 0.0 : (first - compile) * 1e3,
              p.mlir * 1e3, p.llvm * 1e3, p.link * 1e3,
              (compile - p.mlir - p.llvm - p.link) * 1e3);
}

} // namespace

int main(int argc, char **argv) {
  // --quick: without the deep model (its compile takes most of a minute);
  // --opt-level=N: FunctionOptions::opt_level (default 3);
  // --only=NAME: one model (seed, mlp, cnn, deep); --jit: compiled only;
  // --dump-ir=PREFIX: the traced IR of each model in PREFIX.NAME.mlir;
  // --steps=N, --cache-dir=DIR: see gSteps and gCacheDir.
  bool quick = false, jitOnly = false;
  std::string only;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--quick")
      quick = true;
    else if (a.rfind("--opt-level=", 0) == 0)
      gOptLevel = static_cast<unsigned>(std::stoi(a.substr(12)));
    else if (a.rfind("--only=", 0) == 0)
      only = a.substr(7);
    else if (a.rfind("--dump-ir=", 0) == 0)
      gDumpIR = a.substr(10);
    else if (a.rfind("--steps=", 0) == 0)
      gSteps = std::max(1, std::stoi(a.substr(8)));
    else if (a.rfind("--cache-dir=", 0) == 0)
      gCacheDir = a.substr(12);
    else if (a == "--jit")
      jitOnly = true;
  }
  fnc::set_random_seed(1);
  Model seed{"seed", {fnc::Tensor({{2.f, 3.f}}), fnc::Tensor({{3.f, -2.f}})},
             [](fnc::FunctionOptions o) { return fnc::function(seedStep, o); }};
  {
    // Warm-up: the process's first compile loads the JIT and its statics.
    fnc::FunctionOptions o;
    o.cache_dir = "";
    o.jit_compile = true;
    fnc::function(seedStep, o)(seed.args);
  }
  std::printf("first call of a new concrete function, no compile cache, "
              "opt_level %u (times of this run)\n",
              gOptLevel);
  std::vector<Model> models = {seed, mlpModel(), cnnModel()};
  if (!quick) {
    models.push_back(seqModel());
    models.push_back(deepModel());
  }
  for (const Model &m : models) {
    if (!only.empty() && only != m.name)
      continue;
    for (bool tiered : {false, true})
      if (!tiered || !jitOnly)
        run(m, tiered);
  }
}
