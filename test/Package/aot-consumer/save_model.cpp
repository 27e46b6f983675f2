// Run at build time with the full library (fnc::fnc): trains a small
// fnc::nn model for a few steps, saves its prediction with fnc::save (the
// variables under their module paths, such as dense/kernel), and writes
// the input and the prediction as C++ arrays for the AOT consumer to
// compare against. Usage: save-model SAVED.mlir EXPECTED.h
#include <fnc/fnc.h>

#include <cmath>
#include <cstdio>
#include <vector>

int main(int argc, char **argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: save-model SAVED.mlir EXPECTED.h\n");
    return 2;
  }
  fnc::set_random_seed(3);
  fnc::nn::Sequential model{fnc::nn::Dense(8, "relu"), fnc::nn::Dense(3)};
  fnc::nn::SGD opt(0.1, 0.9);
  std::vector<float> xs(4 * 5);
  for (size_t i = 0; i < xs.size(); ++i)
    xs[i] = static_cast<float>(std::sin(0.7 * double(i)));
  fnc::Tensor x(xs, {4, 5});
  fnc::Tensor y(std::vector<int32_t>{0, 1, 2, 1}, {4});
  auto train = fnc::function([&](fnc::Tensor x, fnc::Tensor y) {
    fnc::GradientTape tape;
    fnc::Tensor loss = fnc::reduce_mean(
        fnc::nn::sparse_softmax_cross_entropy_with_logits(y, model(x)));
    std::vector<fnc::Variable> vars = model.trainable_variables();
    opt.apply_gradients(tape.gradient(loss, vars), vars);
    return loss;
  });
  for (int step = 0; step < 3; ++step)
    train(x, y);
  auto predict = fnc::function([&](fnc::Tensor x) { return model(x); },
                               {.name = "predict"});
  fnc::save(argv[1], predict, fnc::TensorSpec({fnc::kUnknownDim, 5}));
  std::vector<float> want = predict(x).to_vector<float>();
  FILE *out = std::fopen(argv[2], "w");
  if (!out)
    return 1;
  std::fprintf(out, "// Written by save-model.\nstatic const float kSavedInput[] = {");
  for (float v : xs)
    std::fprintf(out, "%.9g, ", v);
  std::fprintf(out, "};\nstatic const float kSavedPrediction[] = {");
  for (float v : want)
    std::fprintf(out, "%.9g, ", v);
  std::fprintf(out, "};\n");
  return std::fclose(out) == 0 ? 0 : 1;
}
