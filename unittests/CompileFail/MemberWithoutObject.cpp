// A member function staged without its object.
#include "fnc/fnc.h"
struct Model {
  fnc::Tensor call(fnc::Tensor x) { return x; }
};
void f() { auto s = fnc::function(&Model::call); }
