// Compiled with GCC (g++ -fsyntax-only, a ctest when g++ is installed): the
// spellings of TensorSpec from docs/NN.md and examples/input_signature.cpp,
// which GCC once refused as ambiguous ("call of overloaded
// 'TensorSpec(<brace-enclosed initializer list>, fnc::DType)'").
#include "fnc/fnc.h"

static_assert(!std::is_constructible_v<fnc::UnknownShape, int>,
              "an int must not make an UnknownShape: TensorSpec({-1})");

int main() {
  fnc::TensorSpec oneDim({-1}, fnc::DType::i32);
  fnc::TensorSpec unknownDim({fnc::kUnknownDim}, fnc::DType::i32);
  fnc::TensorSpec matrix({-1, 784});
  fnc::TensorSpec scalar({});
  fnc::TensorSpec anyShape(fnc::kUnknownShape, fnc::DType::f64);
  fnc::FunctionOptions options;
  options.input_signature = {fnc::TensorSpec({-1}, fnc::DType::i32)};
  return oneDim.ranked && !anyShape.ranked && scalar.shape.empty() &&
                 matrix.shape.size() == 2 && unknownDim.shape.size() == 1
             ? 0
             : 1;
}
