//===- unrolling.cpp - A loop over C++ data unrolls into the trace --------===//
//
// The seeds' measure_graph_size: a C++ `for` over C++ data runs while
// tracing, so each element adds its ops to the concrete function, which
// grows with the data. fnc::for_range over a tensor stages one loop whose
// size does not depend on the data length.
//
//===----------------------------------------------------------------------===//

#include "fnc/fnc.h"

#include <iostream>
#include <utility>
#include <vector>

using Dataset = std::vector<std::pair<int, int>>;

int main() {
  auto train = fnc::function([](Dataset dataset) {
    fnc::Tensor loss(0);
    for (auto [x, y] : dataset)
      loss = loss + fnc::abs(fnc::Tensor(y) - fnc::Tensor(x)); // Dummy work.
    return loss;
  });
  Dataset small_data(3, {1, 1}), big_data(10, {1, 1});
  std::cout << "train(" << small_data.size() << " pairs) contains "
            << train.get_concrete_function(small_data).op_count() << " ops\n";
  std::cout << "train(" << big_data.size() << " pairs) contains "
            << train.get_concrete_function(big_data).op_count() << " ops\n";

  // Staged: one loop, whatever the length.
  auto staged_train = fnc::function([](fnc::Tensor xs, fnc::Tensor ys) {
    return fnc::for_range(
        0, xs.shape()[0], 1,
        [&](fnc::Tensor i, fnc::Tensor loss) {
          return loss + fnc::abs(fnc::gather(ys, i) - fnc::gather(xs, i));
        },
        fnc::Tensor(0));
  });
  for (int n : {3, 10}) {
    fnc::Tensor ones = fnc::fill({n}, 1, fnc::DType::i32);
    std::cout << "staged_train(" << n << " pairs) contains "
              << staged_train.get_concrete_function(ones, ones).op_count()
              << " ops\n";
  }
  return 0;
}
