// A staged callable converted to a type-erased Function of other parameters.
#include "fnc/fnc.h"
void f() {
  fnc::Function<fnc::Tensor(fnc::Tensor)> s =
      fnc::function([](fnc::Tensor a, bool) { return a; });
}
