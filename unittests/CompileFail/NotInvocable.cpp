// A generic callable called with arguments it does not take.
#include "fnc/fnc.h"
void f(fnc::Tensor x) {
  auto s = fnc::function([](auto a, auto b) { return a + b; });
  s(x);
}
