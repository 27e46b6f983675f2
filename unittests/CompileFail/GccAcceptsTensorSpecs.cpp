// Compiled with GCC (g++ -fsyntax-only, a ctest when g++ is installed): the
// spellings of TensorSpec from docs/NN.md and examples/input_signature.cpp,
// which GCC once refused as ambiguous ("call of overloaded
// 'TensorSpec(<brace-enclosed initializer list>, fnc::DType)'"), and the
// gradient of a braced list of variables, which both compilers refused as
// ambiguous.
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
  fnc::Variable w(fnc::Tensor({1.f}), "w"), b(fnc::Tensor({0.f}), "b");
  fnc::Tensor x({2.f});
  fnc::GradientTape tape;
  tape.watch(x);
  fnc::Tensor loss = fnc::reduce_sum(w.value() * x + b.value());
  std::vector<fnc::Tensor> byVariables = tape.gradient(loss, {w, b});
  std::vector<fnc::Tensor> byTensors = tape.gradient(loss, {x, loss});
  (void)byVariables;
  (void)byTensors;
  return oneDim.ranked && !anyShape.ranked && scalar.shape.empty() &&
                 matrix.shape.size() == 2 && unknownDim.shape.size() == 1
             ? 0
             : 1;
}
