//===- model.cpp - The seeds' Model counter, lossy_matmul and singletons --===//
//
// Three examples of the seeds in C++: a model object whose staged method
// increments a counter variable (one trace, the state persists between
// calls); a `bool training` argument that gives one trace per value (dropout
// only when training); and the singleton rule, which rejects a staged
// callable that would create a new variable on a later trace.
//
//===----------------------------------------------------------------------===//

#include "fnc/fnc.h"

#include <functional>
#include <iostream>

struct Model {
  fnc::Variable v{fnc::Tensor(0)};
  fnc::Function<std::function<fnc::Tensor()>> increment = fnc::function(
      std::function<fnc::Tensor()>([this] { return v.assign_add(1); }));
};

int main() {
  // The counter: one trace, and the variable keeps counting.
  Model model;
  for (int i = 0; i < 3; ++i)
    std::cout << "increment: " << model.increment() << "\n";
  std::cout << "traces: " << model.increment.tracing_count() << "\n";

  // lossy_matmul: a C++ bool is part of the signature, so training and
  // inference are two traces; dropout zeroes some outputs and scales the
  // others by 1 / (1 - rate).
  fnc::set_random_seed(3);
  auto lossy_matmul =
      fnc::function([](fnc::Tensor W, fnc::Tensor x, bool training) {
        fnc::Tensor outputs = fnc::matmul(W, x);
        if (training)
          outputs = fnc::dropout(outputs, 0.2);
        return outputs;
      });
  fnc::Tensor W = fnc::ones({3, 5}), x = fnc::ones({5, 1});
  std::cout << "inference: " << lossy_matmul(W, x, false) << "\n";
  fnc::Tensor lossy = lossy_matmul(W, x, true);
  bool scaledOrZero = true;
  for (float value : lossy.to_vector<float>())
    scaledOrZero &= value == 0.f || value == 5.f / 0.8f;
  std::cout << "training: every output is 0 or 6.25: "
            << (scaledOrZero ? "yes" : "no") << "\n";
  std::cout << "traces: " << lossy_matmul.tracing_count() << "\n";

  // The singleton rule: a variable created on a later trace is an error.
  auto f = fnc::function([](fnc::Tensor x) {
    fnc::Variable v(fnc::Tensor(1.f));
    v.assign_add(x);
    return v.read_value();
  });
  std::cout << "f(1): " << f(fnc::Tensor(1.f)) << "\n";
  try {
    f(fnc::Tensor({1.f, 2.f}));
  } catch (const fnc::Error &e) {
    std::cout << "error: " << e.what() << "\n";
  }
  return 0;
}
