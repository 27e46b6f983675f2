//===- input_signature.cpp - One trace for all matching calls -------------===//
//
// The tf.function guide's next_collatz example: an input_signature with an
// unknown dim gives one trace for every length; a call that does not match
// throws fnc::Error naming the argument, the expected and the actual spec.
// numpy indexing along the unknown dim needs no retrace either.
//
//===----------------------------------------------------------------------===//

#include <fnc/fnc.h>

#include <iostream>

int main() {
  fnc::FunctionOptions options;
  options.name = "next_collatz";
  options.arg_names = {"x"};
  options.input_signature = std::vector<fnc::TensorSpec>{
      fnc::TensorSpec({fnc::kUnknownDim}, fnc::DType::i32)};
  auto next_collatz = fnc::function(
      [](fnc::Tensor x) {
        std::cout << "Tracing with " << x << "\n";
        return fnc::select(fnc::floor_mod(x, 2) == 0, fnc::floor_div(x, 2),
                           3 * x + 1);
      },
      options);

  std::cout << next_collatz(fnc::Tensor{1, 2}) << "\n";
  std::cout << next_collatz(fnc::Tensor{3, 4, 5}) << "\n";
  // Only rank-1 int32 tensors match the signature.
  try {
    next_collatz(fnc::Tensor{{1, 2}, {3, 4}});
  } catch (const fnc::Error &e) {
    std::cout << "Caught expected exception\n  " << e.what() << "\n";
  }
  std::cout << "traces: " << next_collatz.tracing_count() << "\n";

  // numpy indexing (x[-1], x[::-1]) along the unknown dim is resolved at
  // run time: still one trace for every length.
  options.name = "ends";
  auto ends = fnc::function(
      [](fnc::Tensor x) {
        return std::vector<fnc::Tensor>{
            x[-1], x.index({fnc::Slice(fnc::None, fnc::None, -1)})};
      },
      options);
  for (const fnc::Tensor &t : ends(fnc::Tensor{1, 2, 3}))
    std::cout << t << "\n";
  for (const fnc::Tensor &t : ends(fnc::Tensor{7, 8}))
    std::cout << t << "\n";
  std::cout << "traces: " << ends.tracing_count() << "\n";
  return 0;
}
