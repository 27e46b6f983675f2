//===- side_effect.cpp - C++ side effects happen at trace time only -------===//
//
// The seeds' "Python side effect" example in C++: printing with std::cout
// and appending to a std::vector inside a staged callable happen while it
// is traced, once, not on every call. fnc::print and fnc::Variable are
// what run on every call.
//
//===----------------------------------------------------------------------===//

#include "fnc/fnc.h"

#include <iostream>
#include <vector>

int main() {
  std::vector<fnc::Tensor> external_list;
  auto side_effect = fnc::function([&](fnc::Tensor x) {
    std::cout << "C++ side effect\n";
    external_list.push_back(x);
  });
  side_effect(fnc::Tensor(1));
  side_effect(fnc::Tensor(1));
  side_effect(fnc::Tensor(1));
  // The push_back only happened once!
  std::cout << "external_list.size() == " << external_list.size() << "\n";

  // A C++ value argument is part of the key (1 and 2 trace separately);
  // fnc::print runs on every call, std::cout only while tracing.
  auto f = fnc::function([](int x) {
    std::cout << "Traced with " << x << "\n";
    fnc::print("Executed with", fnc::Tensor(x));
  });
  for (int x : {1, 1, 2}) {
    f(x);
    std::cout.flush();
  }
  return 0;
}
