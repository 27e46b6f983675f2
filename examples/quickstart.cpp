//===- quickstart.cpp - fnc in one page -----------------------------------===//
//
// Eager tensor code, then the same code staged with fnc::function: traced
// once, compiled, and called again without re-running the C++ body.
//
//===----------------------------------------------------------------------===//

#include <fnc/fnc.h>

#include <iostream>

int main() {
  // Eager: runs op by op, printable and debuggable.
  fnc::Tensor x = {{2.f, 3.f}};
  fnc::Tensor y = {{3.f, -2.f}};
  auto f = [](fnc::Tensor x, fnc::Tensor y) {
    std::cout << "tracing f\n"; // C++ side effect: printed at trace time only
    return fnc::reduce_mean(x * x * 3.f + y);
  };
  fnc::Tensor eager = f(x, y);
  std::cout << "eager:  " << eager << "\n";

  // Staged: the first call traces and compiles, later calls run machine code.
  fnc::FunctionOptions options;
  options.name = "f";
  options.arg_names = {"x", "y"};
  auto staged = fnc::function(f, options);
  fnc::Tensor first = staged(x, y); // prints "tracing f"
  std::cout << "staged: " << first << "\n";
  fnc::Tensor again = staged(fnc::Tensor{{1.f, 1.f}}, y); // no trace
  std::cout << "again:  " << again << "\n";
  std::cout << "traces: " << staged.tracing_count() << "\n\n";
  std::cout << staged.pretty_printed_concrete_signatures();
  std::cout << "ops: " << staged.concrete_functions()[0].op_count() << "\n";
  return 0;
}
