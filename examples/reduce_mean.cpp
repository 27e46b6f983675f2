//===- reduce_mean.cpp - The defun docstring's first example in C++ -------===//
//
// f and its staged version return the same value; a staged function may
// close over eager tensors (captured by value when traced).
//
//===----------------------------------------------------------------------===//

#include <fnc/fnc.h>

#include <iostream>

int main() {
  auto f = [](fnc::Tensor x, fnc::Tensor y) {
    return fnc::reduce_mean(fnc::pow(x, 2.f) * 3.f + y);
  };
  auto g = fnc::function(f);

  fnc::Tensor x = {{2.0f, 3.0f}};
  fnc::Tensor y = {{3.0f, -2.0f}};
  // `f` and `g` return the same value, but `g` runs compiled code.
  std::cout << "f(x, y) = " << f(x, y) << "\n";
  std::cout << "g(x, y) = " << g(x, y) << "\n";
  std::cout << "equal: " << std::boolalpha
            << (f(x, y).item<float>() == g(x, y).item<float>()) << "\n";

  // A staged function can close over tensors.
  auto h = fnc::function([&] { return f(x, y); });
  std::cout << "h() = " << h() << "\n";
  std::cout << "equal: " << (h().item<float>() == f(x, y).item<float>())
            << "\n";
  return 0;
}
