// A parameter type that cannot be part of a call key.
#include "fnc/fnc.h"
void f(fnc::Tensor x, int *p) {
  auto s = fnc::function([](fnc::Tensor a, int *) { return a; });
  s(x, p);
}
