// A staged callable that takes fnc::Tensor & (a non-const reference): the
// traced call passes symbolic tensors, so it names the parameter kind and
// says to take it by value or const reference.
#include "fnc/fnc.h"

int main() {
  auto f = fnc::function([](fnc::Tensor &x) { return x * 2.f; });
  fnc::Tensor t(1.f);
  return f(t).item<float>() > 0;
}
