// Uses the installed fnc: eager ops and a staged function.
#include <fnc/fnc.h>

#include <iostream>

int main() {
  fnc::Tensor x = {1.f, 2.f, 3.f};
  auto f = fnc::function([](fnc::Tensor x) { return fnc::reduce_sum(x * x); });
  std::cout << "fnc " << fnc::version() << "\n";
  std::cout << "eager " << fnc::reduce_sum(x * x) << "\n";
  std::cout << "staged " << f(x) << "\n";
  return 0;
}
