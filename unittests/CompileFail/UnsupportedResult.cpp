// A result that is not made of tensors.
#include "fnc/fnc.h"
void f(fnc::Tensor x) {
  auto s = fnc::function([](fnc::Tensor a) { return 1; });
  s(x);
}
