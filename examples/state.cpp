//===- state.cpp - Variables, staged control flow and print ---------------===//
//
// The seeds' examples of state in C++: a variable captured by reference
// sees later assigns without retracing, variables created in a staged
// callable are created once, and fizzbuzz with fnc::for_range and
// fnc::switch_case prints on every call while C++ printing happens at trace
// time only.
//
//===----------------------------------------------------------------------===//

#include "fnc/fnc.h"

#include <iostream>

int main() {
  // A variable captured by reference.
  fnc::Variable foo(fnc::Tensor(1));
  auto variable_add = fnc::function([&] { return 1 + foo; });
  std::cout << "Variable: " << variable_add() << "\n";
  std::cout << "Updating the value of `foo` to 100!\n";
  foo.assign(100);
  std::cout << "Variable: " << variable_add() << "\n";

  // A variable created inside the staged callable: created once.
  auto compiled = fnc::function([] {
    fnc::Variable x(fnc::Tensor(0.f));
    x.assign_add(1.f);
    return x.read_value();
  });
  std::cout << compiled().item<float>() << "\n";
  std::cout << compiled().item<float>() << "\n";

  // Fizzbuzz: the C++ line prints once (tracing), fnc::print on every call.
  auto fizzbuzz = fnc::function([](fnc::Tensor n) {
    std::cout << "Tracing fizzbuzz\n";
    fnc::for_range(1, n + 1, 1, [](fnc::Tensor i) {
      fnc::Tensor k = fnc::cast(fnc::floor_mod(i, 3) == 0, fnc::DType::i32) +
                      2 * fnc::cast(fnc::floor_mod(i, 5) == 0, fnc::DType::i32);
      fnc::switch_case(
          k, [&] { fnc::print("", i); }, [] { fnc::print("Fizz"); },
          [] { fnc::print("Buzz"); }, [] { fnc::print("FizzBuzz"); });
    });
  });
  fizzbuzz(fnc::Tensor(15));
  std::cout.flush();
  fizzbuzz(fnc::Tensor(5));
  return 0;
}
