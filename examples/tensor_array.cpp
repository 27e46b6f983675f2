//===- tensor_array.cpp - Accumulating loop values in a TensorArray -------===//
//
// The seeds' dynamic_rnn: every state of a staged loop is written to a
// fnc::TensorArray and stacked at the end. A std::vector::push_back in the
// loop body would run once, at trace time; the array's writes run on every
// iteration of the staged loop.
//
//===----------------------------------------------------------------------===//

#include "fnc/fnc.h"

#include <iostream>

fnc::Tensor rnnStep(const fnc::Tensor &inp, const fnc::Tensor &state) {
  return inp + state;
}

fnc::Tensor dynamicRnn(fnc::Tensor inputData, fnc::Tensor initialState) {
  // [batch, time, features] -> [time, batch, features]
  inputData = fnc::transpose(inputData, {1, 0, 2});
  int64_t maxSeqLen = inputData.shape()[0];
  fnc::TensorArray states(fnc::DType::f32, maxSeqLen, initialState.shape());
  auto [state, out] = fnc::for_range(
      0, maxSeqLen, 1,
      [&](fnc::Tensor i, fnc::Tensor s, fnc::TensorArray a) {
        s = rnnStep(fnc::gather(inputData, i), s);
        return std::make_tuple(s, a.write(i, s));
      },
      std::make_tuple(initialState, states));
  (void)state;
  return fnc::transpose(out.stack(), {1, 0, 2});
}

int main() {
  int64_t batchSize = 2, seqLen = 3, featureSize = 4;
  auto dynamic_rnn = fnc::function(&dynamicRnn);
  fnc::Tensor input = fnc::reshape(
      fnc::range(0, batchSize * seqLen * featureSize, 1, fnc::DType::f32),
      {batchSize, seqLen, featureSize});
  fnc::Tensor result = dynamic_rnn(input, fnc::zeros({batchSize, featureSize}));
  std::cout << result << "\n";
  std::cout << "eager and staged agree: " << std::boolalpha
            << fnc::reduce_all(
                   fnc::equal(
                       result,
                       dynamicRnn(input, fnc::zeros({batchSize, featureSize}))))
                   .item<bool>()
            << "\n";
  std::cout << "traces: " << dynamic_rnn.tracing_count() << "\n";
  return 0;
}
