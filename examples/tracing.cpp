//===- tracing.cpp - "Tracing with": one trace per dtype ------------------===//
//
// The tf.function guide's `double` example: the C++ body runs (and prints)
// only when a new trace is needed; a call with a known dtype and shape
// reuses the compiled trace.
//
//===----------------------------------------------------------------------===//

#include <fnc/fnc.h>

#include <iostream>

int main() {
  fnc::FunctionOptions options;
  options.name = "double";
  options.arg_names = {"a"};
  auto double_ = fnc::function(
      [](fnc::Tensor a) {
        std::cout << "Tracing with " << a << "\n";
        return a + a;
      },
      options);

  std::cout << double_(fnc::Tensor(int32_t{1})) << "\n\n";
  std::cout << double_(fnc::Tensor(1.1f)) << "\n\n";
  std::cout << double_(fnc::Tensor(2.5)) << "\n\n";
  // This doesn't print "Tracing with ...".
  std::cout << double_(fnc::Tensor(int32_t{21})) << "\n\n";

  std::cout << double_.pretty_printed_concrete_signatures();
  return 0;
}
