//===- SavedTest.cpp - Tests of fnc::save and fnc::load --------------------===//
//
// Round trips on random inputs: variables (inline and dense-resource values,
// every dtype), captured tensors, several signatures and the most specific
// one chosen, result structures, functions sharing variables, a trained
// fnc::nn model, saving a loaded function again, and fnc-run running a
// saved file. Every error: a missing, truncated or foreign file, another
// format version, metadata that disagrees with the IR, a bad call, an
// unwritable path (nothing left behind).
//
//===----------------------------------------------------------------------===//

#include "fnc/Saved.h"
#include "IOTestUtil.h"
#include "fnc/JIT/CompileCache.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdio>
#include <regex>
#include <sys/stat.h>
#include <unistd.h>

using namespace fnc;
using namespace fnc::iotest;
using fnc::testing::expectError;

namespace {

void expectNear(const Tensor &a, const Tensor &b, double tol) {
  ASSERT_EQ(a.dtype(), b.dtype());
  ASSERT_EQ(a.shape(), b.shape());
  Tensor ad = cast(a, DType::f64), bd = cast(b, DType::f64);
  std::vector<double> x = ad.to_vector<double>(), y = bd.to_vector<double>();
  for (size_t i = 0; i < x.size(); ++i)
    EXPECT_NEAR(x[i], y[i], tol * (1 + std::abs(y[i]))) << "element " << i;
}

Tensor randomFloats(std::mt19937 &rng, std::vector<int64_t> shape) {
  std::normal_distribution<float> d(0, 1);
  std::vector<float> v(count(shape));
  for (float &x : v)
    x = d(rng);
  return Tensor(v, shape);
}

/// A small model with state: a dense layer, a step counter and a big
/// captured tensor; each call updates the weights.
struct Model {
  Variable w, b, steps;
  Tensor scale; // captured (over 1 KiB: a hidden argument)
  explicit Model(std::mt19937 &rng)
      : w(randomFloats(rng, {5, 3}) * 0.5f, "dense/kernel"),
        b(randomFloats(rng, {3}), "dense/bias"),
        steps(Tensor(int64_t{0}), "steps"),
        scale(randomFloats(rng, {300})) {}
  Tensor operator()(const Tensor &x) {
    Tensor y = tanh(matmul(x, w.read_value()) + b.read_value());
    w.assign_sub(matmul(transpose(x), y) * 0.01f);
    steps.assign_add(int64_t{1});
    return y * reduce_mean(scale);
  }
};

TEST(SavedTest, RoundTripContinuesFromTheSavedState) {
  TempDir dir;
  std::mt19937 rng(1);
  Model model(rng);
  auto f = function([&](Tensor x) { return model(x); },
                    {.name = "step", .arg_names = {"x"}});
  f(randomFloats(rng, {2, 5}));
  f.get_concrete_function(TensorSpec({kUnknownDim, 5}, DType::f32));
  save(dir / "step.mlir", f);
  ASSERT_EQ(dir.entries(), std::vector<std::string>{"step.mlir"});

  LoadedFunction g = load(dir / "step.mlir");
  EXPECT_EQ(g.name(), "step");
  ASSERT_EQ(g.concrete_functions().size(), 2u);
  EXPECT_EQ(g.result_structures(), (std::vector<std::string>{"tensor",
                                                             "tensor"}));
  EXPECT_NE(g.pretty_printed_concrete_signatures().find(
                "x: float32 Tensor, shape=(None, 5)"),
            std::string::npos)
      << g.pretty_printed_concrete_signatures();
  std::vector<std::string> names;
  for (const auto &[name, v] : g.variables())
    names.push_back(name);
  EXPECT_EQ(names, (std::vector<std::string>{"dense/kernel", "dense/bias",
                                             "steps"}));
  EXPECT_TRUE(sameTensor(g.variable("dense/kernel").read_value(),
                         model.w.read_value()));
  // Both run on from the same state: the same results and updates, on
  // both signatures (the exact [2, 5] one and the [None, 5] one).
  for (int64_t rows : {2, 7, 2, 1}) {
    Tensor x = randomFloats(rng, {rows, 5});
    Tensor expected = f(x);
    expectNear(g(x)[0], expected, 1e-5);
    expectNear(g.call<Tensor>(x), f(x), 1e-5);
    expectNear(g.variable("dense/kernel").read_value(), model.w.read_value(),
               1e-5);
  }
  EXPECT_TRUE(sameTensor(g.variable("steps").read_value(),
                         model.steps.read_value()));
  // Assigning a loaded variable changes what the functions compute.
  g.variable("dense/bias").assign(Tensor({100.0f, 100.0f, 100.0f}));
  model.b.assign(Tensor({100.0f, 100.0f, 100.0f}));
  Tensor x = randomFloats(rng, {3, 5});
  expectNear(g(x)[0], f(x), 1e-5);
  // The loaded functions keep their IR.
  EXPECT_NE(g.concrete_functions()[0].ir().find("fnc.var_assign_sub"),
            std::string::npos);
}

TEST(SavedTest, EveryDTypeInlineAndAsResources) {
  TempDir dir;
  std::mt19937 rng(2);
  std::vector<Variable> vars;
  for (DType dtype : {DType::f32, DType::f64, DType::i1, DType::i32,
                      DType::i64})
    for (std::vector<int64_t> shape :
         {std::vector<int64_t>{}, {3}, {40, 3}}) // inline, inline, resource
      vars.emplace_back(randomTensor(rng, dtype, shape),
                        "v" + std::to_string(vars.size()));
  auto f = function(
      [&](Tensor x) {
        std::vector<Tensor> out;
        for (const Variable &v : vars)
          out.push_back(v.read_value());
        out.push_back(x);
        return out;
      },
      {.name = "all"});
  f(Tensor(1.0f));
  save(dir / "all.mlir", f);
  LoadedFunction g = load(dir / "all.mlir");
  EXPECT_EQ(g.result_structures()[0], "vector");
  std::vector<Tensor> out = g(Tensor(2.0f));
  ASSERT_EQ(out.size(), vars.size() + 1);
  for (size_t i = 0; i < vars.size(); ++i) {
    EXPECT_TRUE(sameTensor(out[i], vars[i].read_value())) << i;
    EXPECT_TRUE(sameTensor(g.variables()[i].second.read_value(),
                           vars[i].read_value()))
        << i;
  }
  EXPECT_TRUE(sameTensor(out.back(), Tensor(2.0f)));
  // The big values are binary resources, the small ones readable.
  std::string text = readBytes(dir / "all.mlir");
  EXPECT_NE(text.find("dense_resource<"), std::string::npos);
  EXPECT_NE(text.find("dialect_resources"), std::string::npos);
  EXPECT_NE(text.find("fnc.global_variable @v0 = dense<"), std::string::npos);
}

TEST(SavedTest, FunctionsSharingVariablesAndResultStructures) {
  TempDir dir;
  std::mt19937 rng(3);
  Variable total(Tensor(0.0f), "total");
  auto add = function(
      [&](Tensor x) {
        total.assign_add(reduce_sum(x));
        return std::make_tuple(total.read_value(), x * 2.0f);
      },
      {.name = "add"});
  auto read = function([&]() { return total.read_value(); }, {.name = "read"});
  save(dir / "two.mlir", {add.get_concrete_function(TensorSpec({4})),
                          read.get_concrete_function()});
  LoadedFunction g = load(dir / "two.mlir");
  EXPECT_EQ(g.function_names(), (std::vector<std::string>{"add", "read"}));
  LoadedFunction gAdd = g.function("add"), gRead = g.function("read");
  EXPECT_EQ(gAdd.name(), "add");
  EXPECT_EQ(gAdd.concrete_functions().size(), 1u);
  auto [sum, twice] = gAdd.call<std::tuple<Tensor, Tensor>>(
      Tensor({1.0f, 2.0f, 3.0f, 4.0f}));
  EXPECT_EQ(sum.item<float>(), 10.0f);
  EXPECT_TRUE(sameTensor(twice, Tensor({2.0f, 4.0f, 6.0f, 8.0f})));
  gAdd(Tensor({1.0f, 1.0f, 1.0f, 1.0f}));
  // The two functions share the loaded variable.
  EXPECT_EQ(gRead.call<Tensor>().item<float>(), 14.0f);
  EXPECT_EQ(g.variable("total").read_value().item<float>(), 14.0f);
  // The original is untouched.
  EXPECT_EQ(total.read_value().item<float>(), 0.0f);
  expectError([&] { gAdd.call<Tensor>(Tensor({1.0f, 2.0f, 3.0f, 4.0f})); },
              ErrorKind::InvalidArgument,
              {"call<R>: R is a tensor but the saved function returns a "
               "tuple"});
  expectError([&] { g.function("predict"); }, ErrorKind::InvalidArgument,
              {"no function `predict`", "`add`, `read`"});
}

// A file loaded again finds its entry in the compile cache (keyed by the
// file's bytes, parsed nowhere): the same functions, signatures, variables
// and values; a changed file is another entry; spoiled notes recompile.
TEST(SavedTest, LoadingAgainFindsTheFileInTheCache) {
  TempDir dir;
  std::string cache = dir / "cache";
  std::mt19937 rng(9);
  Model model(rng);
  Variable total(Tensor(0.0f), "total");
  auto step = function([&](Tensor x) { return model(x); },
                       {.name = "step", .arg_names = {"x"}});
  auto add = function(
      [&](Tensor x) {
        total.assign_add(reduce_sum(x));
        return std::make_tuple(total.read_value(), x * 2.0f);
      },
      {.name = "add"});
  save(dir / "m.mlir",
       {step.get_concrete_function(TensorSpec({2, 5})),
        step.get_concrete_function(TensorSpec({kUnknownDim, 5})),
        add.get_concrete_function(TensorSpec({4}))});
  LoadOptions options{.cache_dir = cache};
  jit::CompileCache *c = jit::CompileCache::get(cache);
  ASSERT_TRUE(c);
  LoadedFunction first = load(dir / "m.mlir", options);
  uint64_t hits = c->stats().hits, stores = c->stats().stores;
  LoadedFunction again = load(dir / "m.mlir", options);
  EXPECT_EQ(c->stats().hits, hits + 1); // the file's entry, nothing else
  EXPECT_EQ(c->stats().stores, stores);
  EXPECT_EQ(again.function_names(), first.function_names());
  EXPECT_EQ(again.pretty_printed_concrete_signatures(),
            first.pretty_printed_concrete_signatures());
  EXPECT_EQ(again.result_structures(), first.result_structures());
  ASSERT_EQ(again.variables().size(), first.variables().size());
  for (size_t i = 0; i < first.variables().size(); ++i) {
    EXPECT_EQ(again.variables()[i].first, first.variables()[i].first);
    EXPECT_TRUE(sameTensor(again.variables()[i].second.read_value(),
                           first.variables()[i].second.read_value()));
  }
  EXPECT_EQ(again.concrete_functions()[0].ir(),
            first.concrete_functions()[0].ir());
  for (int64_t rows : {2, 3}) {
    Tensor x = randomFloats(rng, {rows, 5});
    EXPECT_TRUE(
        sameTensor(again.function("step")(x)[0], first.function("step")(x)[0]));
  }
  EXPECT_TRUE(sameTensor(again.variable("dense/kernel").read_value(),
                         first.variable("dense/kernel").read_value()));
  Tensor four({1.0f, 2.0f, 3.0f, 4.0f});
  EXPECT_TRUE(sameTensor(again.function("add")(four)[0],
                         first.function("add")(four)[0]));

  // Another value of a variable: another file, another entry.
  model.b.assign(Tensor({7.0f, 8.0f, 9.0f}));
  save(dir / "m.mlir", step.get_concrete_function(TensorSpec({2, 5})));
  LoadedFunction changed = load(dir / "m.mlir", options);
  EXPECT_TRUE(sameTensor(changed.variable("dense/bias").read_value(),
                         Tensor({7.0f, 8.0f, 9.0f})));

  // Spoiled notes: a warning, then the file is parsed and compiled.
  hits = c->stats().hits;
  uint64_t rejected = c->stats().rejected;
  std::error_code ec;
  for (llvm::sys::fs::directory_iterator it(cache, ec), end; it != end && !ec;
       it.increment(ec)) {
    std::string path = it->path();
    std::string name = llvm::sys::path::stem(path).str();
    jit::CacheKey key;
    for (size_t i = 0; i < key.bytes.size(); ++i)
      key.bytes[i] =
          static_cast<uint8_t>(std::stoi(name.substr(2 * i, 2), nullptr, 16));
    auto data = llvm::MemoryBuffer::getFile(path);
    ASSERT_TRUE(bool(data));
    auto entry = jit::CompileCache::decode(key, (*data)->getBuffer());
    ASSERT_TRUE(bool(entry)) << llvm::toString(entry.takeError());
    if (entry->notes.empty() || entry->notes[0] != 'S')
      continue; // a function's entry
    std::vector<llvm::MemoryBufferRef> refs;
    for (auto &o : entry->objects)
      refs.push_back(o->getMemBufferRef());
    std::string notes = entry->notes;
    notes.back() ^= 1; // the last object count
    std::error_code wec;
    llvm::raw_fd_ostream out(path, wec);
    ASSERT_FALSE(wec);
    out << jit::CompileCache::encode(key, refs, notes);
  }
  ::testing::internal::CaptureStderr();
  LoadedFunction recompiled = load(dir / "m.mlir", options);
  std::string warning = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(c->stats().rejected, rejected + 1) << warning;
  EXPECT_NE(warning.find("its notes are not those of a saved file"),
            std::string::npos)
      << warning;
  EXPECT_TRUE(sameTensor(recompiled.variable("dense/bias").read_value(),
                         Tensor({7.0f, 8.0f, 9.0f})));
  EXPECT_GT(c->stats().hits, hits); // the function's entry
}

TEST(SavedTest, TrainedNNModelReloadsWithIdenticalOutputs) {
  TempDir dir;
  set_random_seed(7);
  nn::Sequential model{nn::Dense(16, "relu"), nn::Dense(3)};
  nn::SGD opt(0.1, 0.9);
  auto train = function(
      [&](Tensor x, Tensor y) {
        GradientTape tape;
        Tensor loss = reduce_mean(
            nn::sparse_softmax_cross_entropy_with_logits(y, model(x)));
        std::vector<Variable> vars = model.trainable_variables();
        opt.apply_gradients(tape.gradient(loss, vars), vars);
        return loss;
      },
      {.name = "train"});
  auto predict = function([&](Tensor x) { return model(x); },
                          {.name = "predict"});
  std::mt19937 rng(5);
  Tensor x = randomFloats(rng, {8, 4});
  Tensor y(std::vector<int32_t>{0, 1, 2, 0, 1, 2, 0, 1}, {8});
  for (int i = 0; i < 5; ++i)
    train(x, y);
  save(dir / "model.mlir",
       {train.get_concrete_function(x, y),
        predict.get_concrete_function(TensorSpec({kUnknownDim, 4}))});
  LoadedFunction loaded = load(dir / "model.mlir");
  LoadedFunction lTrain = loaded.function("train");
  LoadedFunction lPredict = loaded.function("predict");
  EXPECT_TRUE(sameTensor(lPredict(x)[0], predict(x)));
  // Training goes on identically in both.
  for (int i = 0; i < 3; ++i)
    EXPECT_TRUE(sameTensor(lTrain(x, y)[0], train(x, y))) << i;
  Tensor other = randomFloats(rng, {5, 4});
  EXPECT_TRUE(sameTensor(lPredict(other)[0], predict(other)));
  for (const auto &[name, v] : model.named_variables())
    EXPECT_TRUE(sameTensor(loaded.variable(name).read_value(),
                           v.read_value()))
        << name;
}

// Every sequence layer of fnc::nn in one model, staged with batch and steps
// unknown: saved, loaded without the model's code (the same outputs for
// other lengths), and compiled ahead of time by fnc-compile.
TEST(SavedTest, SequenceLayersReloadAndCompileAheadOfTime) {
  TempDir dir;
  set_random_seed(9);
  nn::Sequential model{nn::Conv1D(6, 3, 1, "causal"),
                       nn::LSTM(5, true),
                       nn::GRU(4, true),
                       nn::SimpleRNN(4, "tanh", true, true),
                       nn::MultiHeadAttention(2, 3),
                       nn::LayerNormalization(),
                       nn::BatchNormalization(),
                       nn::GlobalAveragePooling1D(),
                       nn::Dense(3)};
  FunctionOptions options;
  options.name = "predict";
  options.input_signature =
      std::vector<TensorSpec>{TensorSpec({kUnknownDim, kUnknownDim, 4})};
  auto predict = function([&](Tensor x) { return model(x); }, options);
  std::mt19937 rng(10);
  Tensor x = randomFloats(rng, {2, 5, 4});
  Tensor y = predict(x);
  save(dir / "sequence.mlir", predict);
  LoadedFunction loaded = load(dir / "sequence.mlir");
  expectNear(loaded(x)[0], y, 1e-5);
  Tensor longer = randomFloats(rng, {3, 8, 4});
  expectNear(loaded(longer)[0], model(longer), 1e-5);
  std::string command = std::string(FNC_COMPILE_PATH) + " " + dir.path() +
                        "/sequence.mlir -o " + dir.path() +
                        "/sequence.o --opt-level=1";
  ASSERT_EQ(std::system(command.c_str()), 0) << command;
  struct stat object;
  ASSERT_EQ(::stat((dir / "sequence.o").c_str(), &object), 0);
  EXPECT_GT(object.st_size, 0);
  ASSERT_EQ(::stat((dir / "sequence.h").c_str(), &object), 0);
}

TEST(SavedTest, ALoadedFunctionSavesAgain) {
  TempDir dir;
  std::mt19937 rng(6);
  Model model(rng);
  auto f = function([&](Tensor x) { return model(x); }, {.name = "step"});
  f(randomFloats(rng, {2, 5}));
  save(dir / "a.mlir", f);
  LoadedFunction g = load(dir / "a.mlir");
  Tensor x = randomFloats(rng, {2, 5});
  g(x);
  save(dir / "b.mlir", g.concrete_functions());
  LoadedFunction h = load(dir / "b.mlir");
  EXPECT_TRUE(sameTensor(h.variable("steps").read_value(), Tensor(int64_t{2})));
  EXPECT_TRUE(sameTensor(h(x)[0], g(x)[0]));
}

TEST(SavedTest, FncRunRunsASavedFile) {
  TempDir dir;
  std::mt19937 rng(8);
  Model model(rng);
  auto f = function([&](Tensor x) { return model(x); }, {.name = "step"});
  Tensor x = randomFloats(rng, {2, 5});
  f.get_concrete_function(x);
  save(dir / "step.mlir", f);
  Tensor expected = f(x);
  save_npy(dir / "x.npy", x);
  for (const char *mode : {"", " --interpret"}) {
    std::string command = std::string(FNC_RUN_PATH) + " " + dir.path() +
                          "/step.mlir --input=@" + dir.path() +
                          "/x.npy --output=@" + dir.path() + "/y.npy" + mode +
                          " --cache-dir=";
    ASSERT_EQ(std::system(command.c_str()), 0) << command;
    expectNear(load_npy(dir / "y.npy"), expected, 1e-5);
  }
}

//===----------------------------------------------------------------------===//
// Errors
//===----------------------------------------------------------------------===//

/// A saved file of a function with a variable, as text.
std::string savedText(const TempDir &dir) {
  Variable v(Tensor(std::vector<float>(64, 1.0f), {64}), "v");
  auto f = function([&](Tensor x) { return x + v.read_value(); },
                    {.name = "f"});
  f(Tensor(std::vector<float>(64, 2.0f), {64}));
  save(dir / "f.mlir", f);
  return readBytes(dir / "f.mlir");
}

void expectLoadError(const TempDir &dir, const std::string &text,
                     std::initializer_list<std::string> parts) {
  writeBytes(dir / "bad.mlir", text);
  expectError([&] { load(dir / "bad.mlir"); }, ErrorKind::InvalidArgument,
              parts, text.substr(0, 200).c_str());
}

std::string replaced(std::string text, const std::string &from,
                     const std::string &to) {
  size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos)
    text.replace(at, from.size(), to);
  return text;
}

// A loaded function called under a tape: its gradient replays the program
// read back from its IR (no C++ callable exists there), and equals the
// saved fnc::Function's and eager execution's. The model reads a variable
// inside a staged loop body, branches on its data, captures a big tensor
// and has an unknown batch.
TEST(SavedTest, LoadedFunctionsAreDifferentiable) {
  TempDir dir;
  std::mt19937 rng(7);
  Variable w(randomFloats(rng, {4, 4}) * 0.5f, "w");
  Variable b(randomFloats(rng, {4}), "b");
  Tensor scale = randomFloats(rng, {300}); // a hidden argument
  auto loss = [&](Tensor x) {
    Tensor h = for_range(
        Tensor(0), Tensor(3), Tensor(1),
        [&](const Tensor &, const Tensor &a) {
          return tanh(matmul(a, w.read_value()) + b.read_value());
        },
        x);
    Tensor y = cond(
        reduce_sum(h) > 0.0f, [&] { return h * h; },
        [&] { return sin(h) * 2.0f; });
    return reduce_sum(y) * reduce_mean(scale);
  };
  FunctionOptions options;
  options.name = "loss";
  options.input_signature = {TensorSpec({kUnknownDim, 4}, DType::f32)};
  auto f = function(loss, options);
  f(randomFloats(rng, {2, 4}));
  save(dir / "loss.mlir", f);
  LoadedFunction g = load(dir / "loss.mlir");
  Variable lw = g.variable("w"), lb = g.variable("b");
  // Batches of 1 and 3, data of both signs: both branches are taken.
  for (int64_t rows : {3, 1, 3}) {
    Tensor x = randomFloats(rng, {rows, 4});
    if (rows == 1)
      x = -abs(x);
    auto gradients = [&](auto call, const Variable &wv, const Variable &bv) {
      GradientTape tape(/*persistent=*/true);
      tape.watch(x);
      Tensor y = call(x);
      return std::vector<Tensor>{y, tape.gradient(y, x),
                                 tape.gradient(y, wv), tape.gradient(y, bv)};
    };
    std::vector<Tensor> eager = gradients(loss, w, b);
    std::vector<Tensor> staged = gradients(f, w, b);
    std::vector<Tensor> loaded = gradients(
        [&](const Tensor &t) { return g(t)[0]; }, lw, lb);
    for (size_t k = 0; k < eager.size(); ++k) {
      SCOPED_TRACE(k);
      expectNear(loaded[k], staged[k], 1e-5);
      expectNear(loaded[k], eager[k], 1e-4);
    }
  }
}

// The seeds' dynamic_rnn, saved and loaded: a loop carrying a TensorArray
// whose elements have the unknown batch, Variables read in the cell. The
// file keeps which loop variables are the array's (fnc.loop_kinds), so
// its gradient walks the array as the saved function's does.
TEST(SavedTest, LoadedDynamicRnnIsDifferentiable) {
  TempDir dir;
  std::mt19937 rng(11);
  const int64_t T = 4, D = 3, H = 5;
  Variable wx(cast(randomFloats(rng, {D, H}), DType::f64) * 0.5, "wx");
  Variable wh(cast(randomFloats(rng, {H, H}), DType::f64) * 0.5, "wh");
  auto rnn = [&](Tensor seq, Tensor h0) { // seq [T, B, D], h0 [B, H]
    TensorArray outputs(DType::f64, T, {kUnknownDim, H});
    auto [h, out] = for_range(
        Tensor(0), Tensor(static_cast<int32_t>(T)), Tensor(1),
        [&](const Tensor &i, const Tensor &state, const TensorArray &ta) {
          Tensor next = tanh(matmul(gather(seq, i, 0), wx.read_value()) +
                             matmul(state, wh.read_value()));
          return std::make_tuple(next, ta.write(i, next));
        },
        std::make_tuple(h0, outputs));
    Tensor stacked = out.stack();
    return reduce_sum(stacked * stacked) + reduce_sum(h);
  };
  FunctionOptions options;
  options.name = "rnn";
  options.input_signature = {TensorSpec({T, kUnknownDim, D}, DType::f64),
                             TensorSpec({kUnknownDim, H}, DType::f64)};
  auto f = function(rnn, options);
  Tensor seq = cast(randomFloats(rng, {T, 2, D}), DType::f64);
  Tensor h0 = cast(randomFloats(rng, {2, H}), DType::f64);
  f(seq, h0);
  save(dir / "rnn.mlir", f);
  EXPECT_NE(readBytes(dir / "rnn.mlir").find("fnc.loop_kinds"),
            std::string::npos);
  LoadedFunction g = load(dir / "rnn.mlir");
  auto gradients = [&](auto call, const Variable &x, const Variable &h) {
    GradientTape tape(/*persistent=*/true);
    tape.watch(seq);
    tape.watch(h0);
    Tensor y = call(seq, h0);
    return std::vector<Tensor>{y, tape.gradient(y, seq), tape.gradient(y, h0),
                               tape.gradient(y, x), tape.gradient(y, h)};
  };
  std::vector<Tensor> eager = gradients(rnn, wx, wh);
  std::vector<Tensor> loaded = gradients(
      [&](const Tensor &a, const Tensor &b) { return g(a, b)[0]; },
      g.variable("wx"), g.variable("wh"));
  for (size_t k = 0; k < eager.size(); ++k) {
    SCOPED_TRACE(k);
    expectNear(loaded[k], eager[k], 1e-9);
  }
}

// Effects under a tape: the loaded forward runs once (its variable updates
// happen once, after the reads its gradient uses), as the saved function's.
TEST(SavedTest, LoadedFunctionsWithEffectsDifferentiateOnce) {
  TempDir dir;
  std::mt19937 rng(3), same(3);
  Model model(rng), twin(same);
  auto f = function([&](Tensor x) { return model(x); }, {.name = "step"});
  Tensor x = randomFloats(rng, {2, 5});
  f(x);
  save(dir / "step.mlir", f);
  LoadedFunction g = load(dir / "step.mlir");
  auto original = function([&](Tensor t) { return twin(t); });
  original(x); // the same state as the saved model's
  for (int k = 0; k < 2; ++k) {
    GradientTape tape(/*persistent=*/true);
    tape.watch(x);
    Tensor y = reduce_sum(g(x)[0] * g(x)[0]);
    Tensor expected = reduce_sum(original(x) * original(x));
    expectNear(y, expected, 1e-5);
    expectNear(tape.gradient(y, x), tape.gradient(expected, x), 1e-5);
  }
  expectNear(g.variable("dense/kernel").read_value(), twin.w.read_value(),
             1e-5);
  EXPECT_TRUE(sameTensor(g.variable("steps").read_value(),
                         twin.steps.read_value()));
}

// A function whose IR holds an op without a recorded form (a hand-written
// file) runs, but its gradient is an error that names the op.
TEST(SavedTest, ALoadedFunctionWithoutAGradientSaysWhy) {
  TempDir dir;
  writeBytes(dir / "dim.mlir", R"(
module attributes {fnc.saved = {format = 1 : i64}} {
  func.func @f(%x: tensor<?xf32>) -> tensor<?xf32>
      attributes {fnc.arg_names = ["x"], fnc.check_numerics = false,
                  fnc.fast_math = true, fnc.function = "f",
                  fnc.results = "tensor"} {
    %c0 = arith.constant 0 : index
    %d = tensor.dim %x, %c0 : tensor<?xf32>
    %ones = fnc.fill 2.0 [%d] : tensor<?xf32>
    %r = fnc.mul %x, %ones : tensor<?xf32>, tensor<?xf32>
    return %r : tensor<?xf32>
  }
})");
  LoadedFunction g = load(dir / "dim.mlir");
  Tensor x({1.0f, 2.0f});
  expectNear(g(x)[0], Tensor({2.0f, 4.0f}), 0);
  GradientTape tape;
  tape.watch(x);
  expectError([&] { g(x); }, ErrorKind::Unimplemented,
              {"the loaded function has no gradient", "`tensor.dim`",
               "no recorded form", "outside the GradientTape"});
}

TEST(SavedTest, BadFilesAreClearErrors) {
  TempDir dir;
  std::string text = savedText(dir);
  expectError([&] { load(dir / "missing.mlir"); }, ErrorKind::NotFound,
              {"fnc::load", "missing.mlir", "cannot read"});
  // Truncated anywhere: in the IR, in the resources.
  for (size_t cut : {text.size() / 4, text.size() / 2, text.size() - 40})
    expectLoadError(dir, text.substr(0, cut),
                    {"fnc::load", "does not parse", "truncated"});
  expectLoadError(dir, "", {"no fnc.saved attribute"});
  expectLoadError(dir, "\x7f" "ELF\x02\x01 not text", {"does not parse"});
  expectLoadError(dir, replaced(text, "format = 1", "format = 2"),
                  {"format version 2", "reads version 1"});
  expectLoadError(dir, replaced(text, "fnc.saved = {format = 1 : i64}", ""),
                  {"no fnc.saved attribute", "fnc-run runs any module"});
  expectLoadError(dir, replaced(text, "fnc.results = \"tensor\"",
                                "fnc.results = \"pair\""),
                  {"@f: the result structure \"pair\" does not fit its 1 "
                   "result"});
  expectLoadError(dir, replaced(text, "fnc.arg_names = [\"a0\"]",
                                "fnc.arg_names = []"),
                  {"fnc.arg_names has 0 names for 1 tensor arguments"});
  expectLoadError(dir, replaced(text, "fnc.function = \"f\", ", ""),
                  {"@f: the function lacks its metadata"});
  expectLoadError(dir, replaced(text, "{fnc.bind = @v}", "{fnc.bind = @w}"),
                  {"does not verify", "@w, which is not a "
                                      "fnc.global_variable"});
  // A resource of the wrong size (a value cut short).
  std::smatch blob;
  ASSERT_TRUE(std::regex_search(text, blob, std::regex("v: \"0x[0-9A-F]+\"")));
  expectLoadError(dir,
                  replaced(text, blob.str(),
                           blob.str().substr(0, blob.str().size() - 9) + "\""),
                  {"dense resource", "holds 252 bytes", "needs 256"});
}

TEST(SavedTest, BadCallsAndSaves) {
  TempDir dir;
  savedText(dir);
  LoadedFunction g = load(dir / "f.mlir");
  expectError([&] { g(Tensor(1.0f)); }, ErrorKind::InvalidArgument,
              {"fnc::LoadedFunction `f`: no saved signature accepts "
               "(float32 Tensor, shape=())",
               "a0: float32 Tensor, shape=(64,)"});
  expectError([&] { g(); }, ErrorKind::InvalidArgument,
              {"no saved signature accepts ()"});
  expectError([&] { g.variable("w"); }, ErrorKind::NotFound,
              {"no variable `w`; the file has `v`"});
  LoadedFunction empty;
  EXPECT_FALSE(empty.defined());
  expectError([&] { empty(Tensor(1.0f)); }, ErrorKind::FailedPrecondition,
              {"empty handle", "fnc::load"});

  auto f = function([](Tensor x) { return x * 2.0f; });
  expectError([&] { save(dir / "none.mlir", f); }, ErrorKind::InvalidArgument,
              {"no concrete function to save", "TensorSpec"});
  expectError([&] { save(dir / "none.mlir", ConcreteFunction()); },
              ErrorKind::InvalidArgument, {"empty fnc::ConcreteFunction"});
  f(Tensor(1.0f));
  expectError([&] { save(dir.path() + "/no/such/dir/f.mlir", f); },
              ErrorKind::FailedPrecondition, {"fnc::save", "no/such/dir"});
  // A FIFO is refused, not replaced by a regular file.
  ASSERT_EQ(::mkfifo((dir / "pipe").c_str(), 0600), 0);
  expectError([&] { save(dir / "pipe", f); }, ErrorKind::InvalidArgument,
              {"fnc::save", "pipe", "not a regular file"});
  struct stat st;
  ASSERT_EQ(::stat((dir / "pipe").c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode));
  ASSERT_EQ(::unlink((dir / "pipe").c_str()), 0);
  std::vector<std::string> entries = dir.entries();
  EXPECT_EQ(entries, (std::vector<std::string>{"f.mlir"}));
}

} // namespace
