//===- count.cpp - A variable created lazily on the first call ------------===//
//
// The seeds' Count module: the staged callable creates its variable the
// first time it is traced (and only then), then increments it on every
// call: 1, then 2.
//
//===----------------------------------------------------------------------===//

#include "fnc/fnc.h"

#include <functional>
#include <iostream>

class Count {
public:
  fnc::Tensor operator()() { return call_(); }

private:
  fnc::Variable count_;
  fnc::Function<std::function<fnc::Tensor()>> call_ =
      fnc::function(std::function<fnc::Tensor()>([this] {
        if (!count_.defined())
          count_ = fnc::Variable(fnc::Tensor(0));
        return count_.assign_add(1);
      }));
};

int main() {
  Count c;
  std::cout << c() << "\n";
  std::cout << c() << "\n";
  return 0;
}
