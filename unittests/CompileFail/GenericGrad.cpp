// fnc::grad of a generic lambda: the parameters to differentiate are unknown.
#include "fnc/fnc.h"
void f() {
  auto df = fnc::grad([](auto x) { return fnc::reduce_sum(x * x); });
}
