// A staged callable with one fixed signature called with too many arguments.
#include "fnc/fnc.h"
void f(fnc::Tensor x) {
  auto s = fnc::function([](fnc::Tensor a) { return a; });
  s(x, x);
}
