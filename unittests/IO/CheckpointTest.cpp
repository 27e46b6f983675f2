//===- CheckpointTest.cpp - Tests of save_variables / restore_variables ---===//
//
// Round trips of random variables, numpy reading a checkpoint by name, the
// all-or-nothing restore (one error listing every difference, nothing
// assigned), duplicate names, the eager-only rule inside fnc::function,
// and a staged function seeing restored values without retracing.
//
//===----------------------------------------------------------------------===//

#include "fnc/Checkpoint.h"
#include "IOTestUtil.h"
#include "fnc/IO.h"

using namespace fnc;
using namespace fnc::iotest;
using fnc::testing::expectError;

namespace {

using Vars = std::vector<std::pair<std::string, Variable>>;
using Arrays = std::vector<std::pair<std::string, Tensor>>;

Vars model(std::mt19937 &rng) {
  return {{"dense_1/kernel", Variable(randomTensor(rng, DType::f32, {4, 3}))},
          {"dense_1/bias", Variable(randomTensor(rng, DType::f32, {3}))},
          {"step", Variable(Tensor(int64_t{7}))},
          {"mask", Variable(randomTensor(rng, DType::i1, {2}))}};
}

TEST(CheckpointTest, SaveAndRestoreRandomVariables) {
  TempDir dir;
  std::mt19937 rng(1);
  Vars vars = model(rng);
  std::vector<Tensor> saved;
  for (auto &[name, v] : vars)
    saved.push_back(v.read_value());
  save_variables(dir / "ckpt.npz", vars);
  // Train a little: every variable changes.
  Vars other = model(rng);
  for (size_t i = 0; i < vars.size(); ++i)
    vars[i].second.assign(other[i].second.read_value());
  restore_variables(dir / "ckpt.npz", vars);
  for (size_t i = 0; i < vars.size(); ++i)
    EXPECT_TRUE(sameTensor(vars[i].second.read_value(), saved[i]))
        << vars[i].first;
  // The archive is an .npz of the names.
  Arrays arrays = load_npz(dir / "ckpt.npz");
  ASSERT_EQ(arrays.size(), vars.size());
  for (size_t i = 0; i < vars.size(); ++i) {
    EXPECT_EQ(arrays[i].first, vars[i].first);
    EXPECT_TRUE(sameTensor(arrays[i].second, saved[i]));
  }
  // The order of the list does not matter when restoring.
  Vars reversed(vars.rbegin(), vars.rend());
  restore_variables(dir / "ckpt.npz", reversed);
}

TEST(CheckpointTest, NumpyReadsVariablesByName) {
  SKIP_WITHOUT_NUMPY();
  TempDir dir;
  Variable kernel(Tensor({{1.f, 2.f}, {3.f, 4.f}}));
  Variable bias(Tensor({0.5f, -0.5f}));
  save_variables(dir / "m.npz",
                 {{"dense_1/kernel", kernel}, {"dense_1/bias", bias}});
  int status = 0;
  std::string out = runPython(
      dir,
      "import numpy as np\n"
      "z = np.load('" +
          dir / "m.npz" +
          "')\n"
          "print(z['dense_1/kernel'].tolist(), z['dense_1/bias'].tolist())\n",
      status);
  ASSERT_EQ(status, 0) << out;
  EXPECT_EQ(out, "[[1.0, 2.0], [3.0, 4.0]] [0.5, -0.5]\n");
}

TEST(CheckpointTest, RestoreListsEveryDifferenceAndAssignsNothing) {
  TempDir dir;
  std::string path = dir / "ckpt.npz";
  save_npz(path, {{"a", Tensor({1.f, 2.f})},
                  {"b", Tensor({1, 2, 3})},
                  {"c", Tensor({{1.0, 2.0}})},
                  {"extra", Tensor(5.f)},
                  {"ok", Tensor(9.f)}});
  Variable a(Tensor({0.f, 0.f, 0.f})); // shape differs
  Variable b(Tensor({0.f, 0.f, 0.f})); // dtype differs
  Variable c(Tensor({{0.0, 0.0}}));    // agrees
  Variable missing(Tensor(0.f));
  Variable ok(Tensor(0.f));
  Vars vars = {{"a", a}, {"b", b}, {"c", c}, {"missing", missing}, {"ok", ok}};
  expectError([&] { restore_variables(path, vars); },
              ErrorKind::InvalidArgument,
              {"fnc::restore_variables", "ckpt.npz",
               "4 differences; nothing was restored",
               "'a' is float32[2] in the file but the variable is float32[3]",
               "'b' is int32[3] in the file but the variable is float32[3]",
               "'missing' (float32[]) is missing from the file",
               "'extra' (float32[]) is in the file but not in the list"});
  EXPECT_EQ(ok.read_value().item<float>(), 0.f);
  EXPECT_EQ(c.read_value().to_vector<double>(), (std::vector<double>{0, 0}));

  // One difference reads in the singular.
  save_npz(path, {{"ok", Tensor(9.f)}, {"more", Tensor(1.f)}});
  expectError(
      [&] {
        restore_variables(path, {{"ok", ok}});
      },
      ErrorKind::InvalidArgument,
      {"(1 difference; nothing was restored)", "'more'"});
  EXPECT_EQ(ok.read_value().item<float>(), 0.f);
}

TEST(CheckpointTest, ListErrors) {
  TempDir dir;
  std::string path = dir / "ckpt.npz";
  Variable v(Tensor(1.f));
  expectError(
      [&] {
        save_variables(path, {{"v", v}, {"v", v}});
      },
      ErrorKind::InvalidArgument,
      {"fnc::save_variables", "the name 'v' is given twice"});
  expectError(
      [&] {
        restore_variables(path, {{"v", v}, {"v", v}});
      },
      ErrorKind::InvalidArgument, {"fnc::restore_variables", "given twice"});
  expectError(
      [&] {
        save_variables(path, {{"", v}});
      },
      ErrorKind::InvalidArgument, {"variable #0 has an empty name"});
  expectError(
      [&] {
        save_variables(path, {{"n", Variable()}});
      },
      ErrorKind::InvalidArgument, {"'n' is a null fnc::Variable"});
  expectError(
      [&] {
        restore_variables(dir / "none.npz", {{"v", v}});
      },
      ErrorKind::NotFound,
      {"fnc::restore_variables", "none.npz", "No such file or directory"});
  writeBytes(path, "garbage");
  expectError(
      [&] {
        restore_variables(path, {{"v", v}});
      },
      ErrorKind::InvalidArgument,
      {"fnc::restore_variables", "not a valid .npz"});
  EXPECT_EQ(v.read_value().item<float>(), 1.f);
}

TEST(CheckpointTest, EagerOnlyInsideFunctions) {
  TempDir dir;
  std::string path = dir / "ckpt.npz";
  Variable v(Tensor({1.f, 2.f}), "v");
  save_variables(path, {{"v", v}});
  auto saving = fnc::function([&](Tensor x) {
    save_variables(path, {{"v", v}});
    return x;
  });
  expectError(
      [&] { saving(Tensor(1.f)); }, ErrorKind::FailedPrecondition,
      {"fnc::save_variables", "called while tracing", "eager operations"});
  auto restoring = fnc::function([&](Tensor x) {
    restore_variables(path, {{"v", v}});
    return x;
  });
  expectError([&] { restoring(Tensor(1.f)); }, ErrorKind::FailedPrecondition,
              {"fnc::restore_variables", "called while tracing"});
}

TEST(CheckpointTest, AStagedFunctionSeesRestoredValues) {
  TempDir dir;
  std::string path = dir / "ckpt.npz";
  Variable w(Tensor({1.f, 2.f}), "w");
  auto f = fnc::function([&](Tensor x) { return fnc::reduce_sum(w * x); });
  save_variables(path, {{"w", w}});
  EXPECT_EQ(f(Tensor({1.f, 1.f})).item<float>(), 3.f);
  w.assign(Tensor({10.f, 20.f}));
  EXPECT_EQ(f(Tensor({1.f, 1.f})).item<float>(), 30.f);
  restore_variables(path, {{"w", w}});
  EXPECT_EQ(f(Tensor({1.f, 1.f})).item<float>(), 3.f);
  EXPECT_EQ(f.tracing_count(), 1);
}

TEST(CheckpointTest, RestoresUint8ArraysIntoInt32Variables) {
  SKIP_WITHOUT_NUMPY();
  TempDir dir;
  int status = 0;
  std::string out = runPython(dir,
                              "import numpy as np\n"
                              "np.savez('" +
                                  dir / "u.npz" +
                                  "', ids=np.array([0, 200, 255], np.uint8))\n",
                              status);
  ASSERT_EQ(status, 0) << out;
  Variable ids(Tensor({0, 0, 0}));
  restore_variables(dir / "u.npz", {{"ids", ids}});
  EXPECT_EQ(ids.read_value().to_vector<int32_t>(),
            (std::vector<int32_t>{0, 200, 255}));
}

} // namespace
