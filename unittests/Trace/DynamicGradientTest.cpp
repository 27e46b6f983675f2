//===- DynamicGradientTest.cpp - Gradients with an unknown batch dim ------===//
//
// A GradientTape inside a fnc::function traced once with a batch dim of -1
// (input_signature): the gradients of conv2d (strides 1 and 2, SAME and
// VALID), slice, pad, concat, gather and reshape, on random float64 values
// and two batch sizes, must equal the eager gradients and central finite
// differences, with one concrete function for both batches. Then an MLP
// and a small CNN train step (float32, variables updated) against the same
// steps run eagerly, and the errors of the rules that do need a dim.
//
//===----------------------------------------------------------------------===//

#include "FiniteDifferences.h"
#include "Support/ExpectError.h"
#include "fnc/fnc.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <random>
#include <string>

using namespace fnc;
using fnc::testing::expectError;

namespace {

/// Random float64 values in [lo, hi).
Tensor randomF64(std::mt19937 &rng, const Shape &shape, double lo = -2,
                 double hi = 2) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  std::uniform_real_distribution<double> dist(lo, hi);
  std::vector<double> v(n);
  for (double &x : v)
    x = dist(rng);
  return Tensor(v, shape);
}

/// `shape` with `batch` as dim 0.
Shape withBatch(const Shape &shape, int64_t batch) {
  Shape s = shape;
  s[0] = batch;
  return s;
}

void expectNear(const Tensor &got, const Tensor &want, double tol,
                const std::string &what) {
  ASSERT_EQ(got.shape(), want.shape()) << what;
  std::vector<double> g = cast(got, DType::f64).to_vector<double>(),
                      w = cast(want, DType::f64).to_vector<double>();
  for (size_t k = 0; k < g.size(); ++k)
    EXPECT_NEAR(g[k], w[k], tol * (1 + std::abs(w[k])))
        << what << " element " << k;
}

//===----------------------------------------------------------------------===//
// One op with an unknown batch dim
//===----------------------------------------------------------------------===//

using Fn2 = std::function<Tensor(const Tensor &x, const Tensor &p)>;

/// The gradients of sum(f(x, p) * w) with respect to x and p.
std::vector<Tensor> weightedGradient(const Fn2 &f, const Tensor &x,
                                     const Tensor &p, const Tensor &w) {
  GradientTape tape;
  tape.watch(x);
  tape.watch(p);
  return tape.gradient(reduce_sum(f(x, p) * w), {x, p});
}

/// f(x, p) staged once with the shapes `xSpec`, `pShape` and `wSpec` (-1:
/// unknown while tracing; w weights f's result), then called with x of
/// `xShape` (`xSpec` where empty) with two batch sizes as dim 0: the
/// gradients must equal the eager ones and central differences.
void checkWithUnknownBatch(const std::string &name, const Fn2 &f,
                           const Shape &xSpec, const Shape &pShape,
                           const Shape &wSpec, std::mt19937 &rng,
                           const Shape &xShape = {}) {
  SCOPED_TRACE(name);
  FunctionOptions options;
  options.input_signature = {TensorSpec(xSpec, DType::f64),
                             TensorSpec(pShape, DType::f64),
                             TensorSpec(wSpec, DType::f64)};
  auto staged =
      fnc::function([f](Tensor x, Tensor p,
                        Tensor w) { return weightedGradient(f, x, p, w); },
                    options);
  for (int64_t batch : {4, 3}) {
    SCOPED_TRACE("batch " + std::to_string(batch));
    Tensor x =
        randomF64(rng, withBatch(xShape.empty() ? xSpec : xShape, batch));
    Tensor p = randomF64(rng, pShape);
    Tensor w = randomF64(rng, f(x, p).shape(), 0.5, 1.5);
    std::vector<Tensor> eager = weightedGradient(f, x, p, w);
    std::vector<Tensor> got = staged(x, p, w);
    ASSERT_EQ(got.size(), 2u);
    expectNear(got[0], eager[0], 1e-10, "dx vs eager");
    expectNear(got[1], eager[1], 1e-10, "dp vs eager");
    // Central differences of the eager function.
    const double h = 1e-6;
    std::vector<Tensor> args = {x, p};
    for (size_t i = 0; i < 2; ++i) {
      std::vector<double> v = args[i].to_vector<double>();
      std::vector<double> analytic = got[i].to_vector<double>();
      for (size_t k = 0; k < v.size(); ++k) {
        auto at = [&](double value) {
          std::vector<double> moved = v;
          moved[k] = value;
          std::vector<Tensor> a = args;
          a[i] = Tensor(moved, args[i].shape());
          return reduce_sum(f(a[0], a[1]) * w).item<double>();
        };
        double numeric = (at(v[k] + h) - at(v[k] - h)) / (2 * h);
        EXPECT_NEAR(analytic[k], numeric, 1e-6 * (1 + std::abs(numeric)))
            << "input #" << i << " element " << k;
      }
    }
  }
  EXPECT_EQ(staged.tracing_count(), 1);
  EXPECT_EQ(staged.concrete_functions().size(), 1u);
}

TEST(DynamicGradientTest, Conv2DWithUnknownBatch) {
  std::mt19937 rng(41);
  struct Conv {
    std::vector<int64_t> strides;
    const char *padding;
    Shape x, filter, out; // -1: the batch
  };
  const Conv convs[] = {
      {{1, 1}, "SAME", {-1, 5, 4, 2}, {3, 3, 2, 3}, {-1, 5, 4, 3}},
      {{1, 1}, "VALID", {-1, 5, 4, 2}, {3, 2, 2, 3}, {-1, 3, 3, 3}},
      {{2, 2}, "SAME", {-1, 5, 6, 2}, {3, 3, 2, 2}, {-1, 3, 3, 2}},
      {{2, 2}, "VALID", {-1, 6, 5, 1}, {3, 2, 1, 2}, {-1, 2, 2, 2}},
      {{2, 1}, "SAME", {-1, 4, 3, 2}, {2, 2, 2, 1}, {-1, 2, 3, 1}},
      // Channels unknown while tracing as well: the filter knows them.
      {{1, 2}, "VALID", {-1, 4, 5, -1}, {2, 3, 2, 2}, {-1, 3, 2, 2}},
  };
  for (const Conv &c : convs) {
    std::vector<int64_t> strides = c.strides;
    std::string padding = c.padding;
    Shape x = c.x;
    x[3] = c.filter[2];
    checkWithUnknownBatch(
        "conv2d strides " + std::to_string(strides[0]) + "x" +
            std::to_string(strides[1]) + " " + padding,
        [strides, padding](const Tensor &a, const Tensor &k) {
          return conv2d(a, k, strides, padding);
        },
        c.x, c.filter, c.out, rng, x);
  }
}

TEST(DynamicGradientTest, Conv2DGradientsOnTheRegisterKernel) {
  // float32 with 16 channels and 32 filters: the forward conv, the input
  // gradient and the stride-1 filter gradient (a convolution by the output
  // gradient, whose channels are the batch, unknown while tracing) all run
  // on the register-blocked conv2d kernel. They must match eager, which
  // runs the reference kernels.
  std::mt19937 rng(45);
  for (std::string padding : {"SAME", "VALID"}) {
    SCOPED_TRACE(padding);
    FunctionOptions options;
    Shape out = padding == "SAME" ? Shape{-1, 6, 8, 32} : Shape{-1, 4, 6, 32};
    options.input_signature = {TensorSpec({-1, 6, 8, 16}),
                               TensorSpec({3, 3, 16, 32}), TensorSpec(out)};
    auto conv = [padding](const Tensor &x, const Tensor &k) {
      return conv2d(x, k, {1, 1}, padding);
    };
    auto staged = fnc::function(
        [conv](Tensor x, Tensor k, Tensor w) {
          return weightedGradient(conv, x, k, w);
        },
        options);
    for (int64_t batch : {5, 2}) {
      SCOPED_TRACE("batch " + std::to_string(batch));
      Tensor x = cast(randomF64(rng, {batch, 6, 8, 16}), DType::f32);
      Tensor k = cast(randomF64(rng, {3, 3, 16, 32}), DType::f32);
      Tensor w =
          cast(randomF64(rng, withBatch(out, batch), 0.5, 1.5), DType::f32);
      std::vector<Tensor> eager = weightedGradient(conv, x, k, w);
      std::vector<Tensor> got = staged(x, k, w);
      ASSERT_EQ(got.size(), 2u);
      expectNear(got[0], eager[0], 1e-4, "dx vs eager");
      expectNear(got[1], eager[1], 1e-4, "dk vs eager");
    }
    EXPECT_EQ(staged.tracing_count(), 1);
    // The filter gradient is one convolution, not a matmul per tap.
    std::string linalg = staged.concrete_functions()[0].ir(IRStage::Fnc);
    EXPECT_EQ(linalg.find("fnc.matmul"), std::string::npos) << linalg;
  }
}

TEST(DynamicGradientTest, ShapeOpsWithUnknownBatch) {
  std::mt19937 rng(43);
  // The whole batch, and a strided window of the other dims.
  checkWithUnknownBatch(
      "slice of the whole batch",
      [](const Tensor &x, const Tensor &p) {
        return slice(x, {0, 1, 0}, {-1, 2, 2}, {1, 1, 2}) * p;
      },
      {-1, 4, 3}, {2, 2}, {-1, 2, 2}, rng);
  // Rows 1 and 2 of the batch: the zeros after them counted at run time.
  checkWithUnknownBatch(
      "slice of two rows of the batch",
      [](const Tensor &x, const Tensor &p) {
        return slice(x, {1, 1}, {2, 2}) * p;
      },
      {-1, 3}, {2}, {2, 2}, rng);
  // From row 1 to the end.
  checkWithUnknownBatch(
      "slice from row 1 to the end",
      [](const Tensor &x, const Tensor &p) {
        return slice(x, {1, 0}, {-1, 2}, {1, 2}) * p;
      },
      {-1, 4}, {2}, {-1, 2}, rng);
  // numpy indexing of the batch: resolved at run time, also backwards.
  checkWithUnknownBatch(
      "index the batch from the end, backwards",
      [](const Tensor &x, const Tensor &p) {
        return x.index({Slice(-2, None, -1), Slice(1, None, 2)}) * p;
      },
      {-1, 4, 3}, {2, 3}, {-1, 2, 3}, rng);
  checkWithUnknownBatch(
      "pad and dilate the known dims, pad before the batch",
      [](const Tensor &x, const Tensor &p) {
        return pad(x, {{1, 0}, {2, 1}, {0, 1}}, 0.5, {2, 1, 0}) * p;
      },
      {-1, 2, 3}, {6, 4}, {-1, 6, 4}, rng);
  checkWithUnknownBatch(
      "concat along a known axis",
      [](const Tensor &x, const Tensor &p) {
        return concat({x, sin(x) * p, x}, 1);
      },
      {-1, 3}, {3}, {-1, 9}, rng);
  checkWithUnknownBatch(
      "concat along the batch, the batch last",
      [](const Tensor &x, const Tensor &p) {
        return concat({p, x * x}, 0);
      },
      {-1, 3}, {2, 3}, {-1, 3}, rng);
  checkWithUnknownBatch(
      "concat along the batch, known operands after it (sliced from the end)",
      [](const Tensor &x, const Tensor &p) {
        return concat({p, x * x, p * 3.0, sin(p)}, 0);
      },
      {-1, 3}, {2, 3}, {-1, 3}, rng);
  checkWithUnknownBatch(
      "gather along a known axis",
      [](const Tensor &x, const Tensor &p) {
        return gather(x, Tensor{2, 0, 2, 1}, 1) * p;
      },
      {-1, 3, 2}, {4, 2}, {-1, 4, 2}, rng);
  checkWithUnknownBatch(
      "reshape",
      [](const Tensor &x, const Tensor &p) {
        return reshape(x, {-1, 6}) * p;
      },
      {-1, 2, 3}, {6}, {-1, 6}, rng);
  checkWithUnknownBatch(
      "reshape back",
      [](const Tensor &x, const Tensor &p) {
        return reshape(x * p, {-1, 2, 3});
      },
      {-1, 6}, {6}, {-1, 2, 3}, rng);
}

/// Embedding lookup: the indices carry the batch.
TEST(DynamicGradientTest, GatherWithUnknownIndices) {
  auto step = [](const Tensor &table, const Tensor &ids, const Tensor &w) {
    GradientTape tape;
    tape.watch(table);
    return tape.gradient(reduce_sum(gather(table, ids, 0) * w), table);
  };
  FunctionOptions options;
  options.input_signature = {TensorSpec({5, 3}, DType::f64),
                             TensorSpec({-1, 2}, DType::i32),
                             TensorSpec({-1, 2, 3}, DType::f64)};
  auto staged = fnc::function(
      [&](Tensor t, Tensor i, Tensor w) { return step(t, i, w); }, options);
  std::mt19937 rng(47);
  for (int64_t batch : {4, 3}) {
    Tensor table = randomF64(rng, {5, 3});
    std::vector<int32_t> ids(batch * 2);
    for (int32_t &i : ids)
      i = static_cast<int32_t>(rng() % 5);
    Tensor idx(ids, {batch, 2}), w = randomF64(rng, {batch, 2, 3});
    Tensor want = step(table, idx, w);
    expectNear(staged(table, idx, w), want, 1e-12, "embedding gradient");
    // Each row of the table gets the weights of the positions that read it.
    std::vector<double> rows(15, 0.0), wv = w.to_vector<double>();
    for (size_t k = 0; k < ids.size(); ++k)
      for (int c = 0; c < 3; ++c)
        rows[ids[k] * 3 + c] += wv[k * 3 + c];
    expectNear(want, Tensor(rows, {5, 3}), 1e-12, "embedding by hand");
  }
  EXPECT_EQ(staged.tracing_count(), 1);
}

//===----------------------------------------------------------------------===//
// Train steps traced once for every batch size
//===----------------------------------------------------------------------===//

Tensor randomF32(std::mt19937 &rng, const Shape &shape, double scale) {
  return cast(randomF64(rng, shape, -scale, scale), DType::f32);
}

Tensor crossEntropy(const Tensor &logits, const Tensor &labels) {
  Tensor onehot = one_hot(labels, logits.shape()[1]);
  return reduce_mean(-reduce_sum(onehot * log_softmax(logits, -1), {1}));
}

/// One SGD step (lr 0.1) of `loss` over `vars`: returns the loss and the
/// gradients (before the update).
std::vector<Tensor> sgdStep(const std::function<Tensor()> &loss,
                            const std::vector<Variable> &vars) {
  GradientTape tape;
  Tensor l = loss();
  std::vector<Tensor> grads = tape.gradient(l, vars);
  for (size_t i = 0; i < vars.size(); ++i)
    vars[i].assign_sub(grads[i] * 0.1f);
  grads.insert(grads.begin(), l);
  return grads;
}

/// Two sets of variables with the same random start; `step` run eagerly on
/// one and staged (input_signature `specs`, batch -1) on the other, for
/// batches 8 and 5: losses, gradients and the updated variables agree, and
/// one trace serves both batches.
void checkTrainStep(
    const std::function<std::vector<Tensor>(
        const std::vector<Variable> &, const Tensor &, const Tensor &)> &step,
    const std::vector<Shape> &varShapes, const Shape &xSpec, int64_t classes,
    std::mt19937 &rng) {
  std::vector<Variable> eagerVars, stagedVars;
  for (const Shape &s : varShapes) {
    Tensor init = randomF32(rng, s, 0.5);
    eagerVars.emplace_back(init);
    stagedVars.emplace_back(init);
  }
  FunctionOptions options;
  options.input_signature = {TensorSpec(xSpec, DType::f32),
                             TensorSpec({-1}, DType::i32)};
  auto staged = fnc::function(
      [&](Tensor x, Tensor labels) { return step(stagedVars, x, labels); },
      options);
  for (int64_t batch : {8, 5}) {
    SCOPED_TRACE("batch " + std::to_string(batch));
    Tensor x = randomF32(rng, withBatch(xSpec, batch), 1.0);
    std::vector<int32_t> labels(batch);
    for (int32_t &l : labels)
      l = static_cast<int32_t>(rng() % classes);
    Tensor y(labels, {batch});
    std::vector<Tensor> eager = step(eagerVars, x, y);
    std::vector<Tensor> got = staged(x, y);
    ASSERT_EQ(got.size(), eager.size());
    for (size_t i = 0; i < got.size(); ++i)
      expectNear(got[i], eager[i], 1e-4,
                 i == 0 ? "loss" : "gradient #" + std::to_string(i - 1));
    for (size_t i = 0; i < eagerVars.size(); ++i)
      expectNear(stagedVars[i].read_value(), eagerVars[i].read_value(), 1e-4,
                 "variable #" + std::to_string(i) + " after the step");
  }
  EXPECT_EQ(staged.tracing_count(), 1);
  EXPECT_EQ(staged.concrete_functions().size(), 1u);
}

TEST(DynamicGradientTest, MlpTrainStepWithUnknownBatch) {
  std::mt19937 rng(53);
  checkTrainStep(
      [](const std::vector<Variable> &v, const Tensor &x, const Tensor &y) {
        return sgdStep(
            [&] {
              Tensor h = relu(matmul(x, v[0]) + v[1]);
              return crossEntropy(matmul(h, v[2]) + v[3], y);
            },
            v);
      },
      {{6, 8}, {8}, {8, 3}, {3}}, {-1, 6}, 3, rng);
}

TEST(DynamicGradientTest, CnnTrainStepWithUnknownBatch) {
  std::mt19937 rng(59);
  // conv 3x3 SAME (1 -> 4) -> relu -> conv 3x3 VALID stride 2 (4 -> 4) ->
  // relu -> flatten -> dense 16 -> 3 -> log_softmax cross-entropy.
  checkTrainStep(
      [](const std::vector<Variable> &v, const Tensor &x, const Tensor &y) {
        return sgdStep(
            [&] {
              Tensor h = relu(conv2d(x, v[0], {1, 1}, "SAME") + v[1]);
              h = relu(conv2d(h, v[2], {2, 2}, "VALID") + v[3]);
              Tensor flat = reshape(h, {-1, 16});
              return crossEntropy(matmul(flat, v[4]) + v[5], y);
            },
            v);
      },
      {{3, 3, 1, 4}, {4}, {3, 3, 4, 4}, {4}, {16, 3}, {3}}, {-1, 6, 6, 1}, 3,
      rng);
}

//===----------------------------------------------------------------------===//
// Rules that read a dim at run time
//===----------------------------------------------------------------------===//

// Rules that needed a dim unknown while tracing and now read it at run
// time (each was an Unimplemented error): a slice with a stride > 1 along
// such a dim (the strided slice's backward op places g), a pad with values
// after one (a strided slice stopping that many before the end), a gather
// whose indices and other params dims are both unknown (reshapes to shapes
// read at run time), a gather along an axis of unknown size (its one-hot
// against 0 .. depth - 1, which a staged loop writes). Staged with the dims
// unknown, against eager, at two sizes each.
TEST(DynamicGradientTest, RulesThatReadADimAtRunTime) {
  struct Case {
    const char *name;
    std::function<Tensor(const Tensor &)> f;
    Shape spec;
    std::vector<Shape> shapes;
  };
  std::vector<Case> cases = {
      {"strided slice", [](const Tensor &x) {
         return slice(x, {1, 0}, {-1, 2}, {2, 1}) * 3.0;
       }, {-1, 3}, {{5, 3}, {2, 3}}},
      {"slice of a known size", [](const Tensor &x) {
         return slice(x, {0, 1}, {2, 2}, {3, 2});
       }, {-1, -1}, {{4, 5}, {7, 4}}},
      {"pad after", [](const Tensor &x) {
         return pad(x, {{1, 2}, {0, 1}}, 0, {1, 0}) * 2.0;
       }, {-1, 3}, {{3, 3}, {1, 3}}},
      {"gather along an unknown axis", [](const Tensor &x) {
         // A batch of -1 gathered from, twice from row 0.
         Tensor rows = concat({cast(reduce_sum(x, {1}) * 0.0, DType::i32),
                               Tensor{0}},
                              0);
         return gather(x, rows, 0) * 2.0;
       }, {-1, 3}, {{4, 3}, {1, 3}}},
      {"gather", [](const Tensor &x) {
         // params [?, 3, ?] (others unknown), indices [?] (count unknown).
         Tensor idx = cast(reduce_sum(x, {1, 2}) * 0.0, DType::i32) + 2;
         return gather(x, idx, 1) * 1.5;
       }, {-1, 3, -1}, {{2, 3, 4}, {3, 3, 1}}},
  };
  std::mt19937 rng(5);
  for (const Case &c : cases) {
    SCOPED_TRACE(c.name);
    auto gradient = [&](Tensor a) {
      GradientTape tape;
      tape.watch(a);
      Tensor y = c.f(a);
      return tape.gradient(reduce_sum(y * y), a);
    };
    FunctionOptions options;
    options.input_signature = {TensorSpec(c.spec, DType::f64)};
    options.jit_compile = true; // the compiled code, not the graph executor
    auto staged = fnc::function(gradient, options);
    for (const Shape &shape : c.shapes) {
      Tensor x = fnc::testing::randomTensor(rng, shape, 1.0);
      std::vector<double> eager = gradient(x).to_vector<double>(),
                          got = staged(x).to_vector<double>();
      ASSERT_EQ(got.size(), eager.size());
      for (size_t k = 0; k < eager.size(); ++k)
        EXPECT_NEAR(got[k], eager[k], 1e-12) << "element " << k;
    }
  }
}

// conv2d with the input's height and width unknown while tracing, and
// the kernel's too: the padding (SAME's depends on the size), the
// kernel's extent, the rows no window reaches and the windows' counts are
// computed at run time (it was an Unimplemented error). The gradients of
// the input and the filter, compiled, against eager, at sizes that leave
// rows unreached and pad unevenly; with unknown channels and batch and a
// stride too (the per-tap filter gradient could not flatten them).
TEST(DynamicGradientTest, Conv2dOfUnknownHeightAndWidth) {
  struct Case {
    std::vector<int64_t> strides;
    const char *padding;
    Shape filterSpec;
  };
  std::mt19937 rng(9);
  Tensor filter = fnc::testing::randomTensor(rng, {3, 2, 2, 3}, 1.0);
  for (const Case &c : {Case{{1, 1}, "VALID", {3, 2, 2, 3}},
                        Case{{1, 1}, "SAME", {-1, -1, 2, 3}},
                        Case{{2, 3}, "VALID", {3, 2, 2, 3}},
                        Case{{2, 2}, "SAME", {-1, -1, 2, 3}},
                        Case{{2, 1}, "SAME", {3, 2, -1, -1}}}) {
    const Shape &filterSpec = c.filterSpec;
    SCOPED_TRACE(std::to_string(c.strides[0]) + "," +
                 std::to_string(c.strides[1]) + " " + c.padding +
                 ", filter " + std::to_string(filterSpec[0]) + "x" + std::to_string(filterSpec[2]));
    auto gradients = [&](Tensor x, Tensor w) {
      GradientTape tape;
      tape.watch(x);
      tape.watch(w);
      Tensor y = conv2d(x, w, c.strides, c.padding);
      std::vector<Tensor> g = tape.gradient(reduce_sum(y * y), {x, w});
      return std::make_tuple(g[0], g[1]);
    };
    FunctionOptions options;
    Shape inputSpec = {-1, -1, -1, 2};
    if (filterSpec[2] == -1)
      inputSpec = {-1, 9, 9, -1};
    options.input_signature = {TensorSpec(inputSpec, DType::f64),
                               TensorSpec(filterSpec, DType::f64)};
    options.jit_compile = true;
    auto staged = fnc::function(gradients, options);
    for (const Shape &shape : filterSpec[2] == -1
                                  ? std::vector<Shape>{{2, 9, 9, 2}}
                                  : std::vector<Shape>{{2, 7, 6, 2},
                                                       {1, 4, 9, 2}}) {
      Tensor x = fnc::testing::randomTensor(rng, shape, 1.0);
      auto [ex, ew] = gradients(x, filter);
      auto [gx, gw] = staged(x, filter);
      for (auto [got, want] : {std::make_pair(gx, ex), std::make_pair(gw, ew)}) {
        std::vector<double> a = got.to_vector<double>(),
                            b = want.to_vector<double>();
        ASSERT_EQ(a.size(), b.size());
        for (size_t k = 0; k < a.size(); ++k)
          EXPECT_NEAR(a[k], b[k], 1e-10 * (1 + std::abs(b[k])))
              << "element " << k;
      }
    }
  }
}

// A reshape of a value with several dims unknown while tracing: its
// gradient reshapes g back to a shape read at run time
// (fnc.reshape_to_shape). It was an Unimplemented error.
// Loop states that start less known than their steps make them: zeros of
// a shape tensor ([?, ?]) carried through steps giving [?, 3], a yield (c)
// also read by the step (an LSTM's cell). The backward's replay reads c
// from the loop's history, rows of the state's type [?, ?], and recorded
// the ops on it with the step's [?, 3]: the trace did not verify.
TEST(DynamicGradientTest, LoopStatesLessKnownThanTheirSteps) {
  std::mt19937 rng(31);
  checkWithUnknownBatch(
      "an LSTM-like cell",
      [](const Tensor &x, const Tensor &p) {
        Tensor b = gather(shape(x, DType::i64), Tensor(int64_t{0}));
        Tensor zero = zeros(stack({b, Tensor(int64_t{3})}), DType::f64);
        auto [h, c] = for_range(
            0, 3, 1,
            [&](const Tensor &, const Tensor &hp, const Tensor &cp) {
              Tensor z = x * p + hp;
              Tensor cn = sigmoid(z) * cp + tanh(z);
              return std::make_tuple(sigmoid(z) * tanh(cn), cn);
            },
            std::make_tuple(zero, zero));
        return h + c;
      },
      {-1, 3}, {3}, {-1, 3}, rng);
}

TEST(DynamicGradientTest, ReshapesOfSeveralUnknownDims) {
  auto f = [](const Tensor &x) {
    Tensor flat = reshape(x, {-1});
    return reduce_sum(sin(flat) * cast(range(0, 6), DType::f64));
  };
  FunctionOptions options;
  options.input_signature = {TensorSpec({-1, -1}, DType::f64)};
  auto staged = fnc::function(
      [&](Tensor a) {
        GradientTape tape;
        tape.watch(a);
        return tape.gradient(f(a), a);
      },
      options);
  for (Shape shape : {Shape{2, 3}, Shape{3, 2}, Shape{6, 1}}) {
    Tensor x = reshape(cast(range(0, 6), DType::f64) * 0.3, shape);
    GradientTape tape;
    tape.watch(x);
    Tensor eager = tape.gradient(f(x), x);
    Tensor got = staged(x);
    EXPECT_EQ(got.shape(), shape);
    expectNear(got, eager, 1e-12, "reshape gradient");
  }
}

} // namespace
