//===- reduce_retracing.cpp - One trace with an unknown dim ---------------===//
//
// With reduce_retracing, calls with shapes (3,) and then (5,) make the
// second trace use an unknown dim, which every later length reuses.
//
//===----------------------------------------------------------------------===//

#include <fnc/fnc.h>

#include <iostream>

int main() {
  fnc::FunctionOptions options;
  options.name = "g";
  options.arg_names = {"x"};
  options.reduce_retracing = true;
  auto g = fnc::function(
      [](fnc::Tensor x) {
        std::cout << "Tracing with " << x << "\n";
        return x;
      },
      options);

  std::cout << g(fnc::Tensor{1, 2, 3}) << "\n";
  std::cout << g(fnc::Tensor{1, 2, 3, 4, 5}) << "\n";
  std::cout << g(fnc::Tensor{1, 2, 3, 4, 5, 6, 7}) << "\n";
  std::cout << "traces: " << g.tracing_count() << "\n";
  return 0;
}
