//===- TensorArrayTest.cpp - Tests of fnc::TensorArray --------------------===//
//
// Eager use, the accumulation pattern in staged while_loop / for_range
// agreeing with eager execution, symbolic indices, dynamic sizes, and the
// errors (read before write, dtype / shape mismatch, out of range,
// unsupported staged uses).
//
//===----------------------------------------------------------------------===//

#include "Support/ExpectError.h"
#include "fnc/fnc.h"

#include <gtest/gtest.h>

#include <functional>

using namespace fnc;

namespace {

using fnc::testing::expectError;

std::vector<float> vec(const Tensor &t) { return t.to_vector<float>(); }

TEST(TensorArrayTest, EagerWriteReadStack) {
  TensorArray ta(DType::f32, 3);
  EXPECT_EQ(ta.size(), 3);
  EXPECT_FALSE(ta.element_shape().has_value());
  TensorArray a = ta.write(0, Tensor({1.f, 2.f}));
  a = a.write(Tensor(2), Tensor({5.f, 6.f}));
  a = a.write(int64_t(1), Tensor({3.f, 4.f}));
  EXPECT_EQ(vec(a.read(1)), (std::vector<float>{3, 4}));
  EXPECT_EQ(vec(a.read(Tensor(int64_t(2)))), (std::vector<float>{5, 6}));
  Tensor s = a.stack();
  EXPECT_EQ(s.shape(), (std::vector<int64_t>{3, 2}));
  EXPECT_EQ(vec(s), (std::vector<float>{1, 2, 3, 4, 5, 6}));
  // A value: the original array is unchanged.
  expectError([&] { ta.read(0); }, ErrorKind::FailedPrecondition,
              {"read before it was written"});
  // Overwriting keeps the last value.
  EXPECT_EQ(vec(a.write(0, Tensor({9.f, 9.f})).read(0)),
            (std::vector<float>{9, 9}));
  // Unwritten elements stack as zeros once the element shape is known.
  EXPECT_EQ(vec(ta.write(1, Tensor({7.f, 8.f})).stack()),
            (std::vector<float>{0, 0, 7, 8, 0, 0}));
  EXPECT_EQ(TensorArray(DType::i32, 0, {2}).stack().shape(),
            (std::vector<int64_t>{0, 2}));
}

TEST(TensorArrayTest, DynamicSizeGrowsEagerly) {
  TensorArray ta = TensorArray::dynamic(DType::i32);
  for (int i = 0; i < 4; ++i)
    ta = ta.write(i, Tensor(i * i));
  EXPECT_EQ(ta.size(), 4);
  EXPECT_EQ(ta.stack().to_vector<int32_t>(),
            (std::vector<int32_t>{0, 1, 4, 9}));
  ta = ta.write(6, Tensor(36));
  EXPECT_EQ(ta.size(), 7);
  expectError([&] { ta.read(5); }, ErrorKind::FailedPrecondition,
              {"element 5", "read before it was written"});
}

// The seeds' dynamic_rnn: accumulate every state of a loop in a TensorArray.
Tensor rnnStep(const Tensor &inp, const Tensor &state) { return inp + state; }

Tensor dynamicRnn(Tensor inputData, Tensor initialState) {
  // [batch, time, features] -> [time, batch, features]
  inputData = transpose(inputData, {1, 0, 2});
  int64_t maxSeqLen = inputData.shape()[0];
  TensorArray states(DType::f32, maxSeqLen, initialState.shape());
  auto [state, out] = for_range(
      0, maxSeqLen, 1,
      [&](Tensor i, Tensor s, TensorArray a) {
        s = rnnStep(gather(inputData, i), s);
        return std::make_tuple(s, a.write(i, s));
      },
      std::make_tuple(initialState, states));
  (void)state;
  return transpose(out.stack(), {1, 0, 2});
}

TEST(TensorArrayTest, AccumulationEagerEqualsStaged) {
  set_random_seed(5);
  Tensor input = random_uniform({2, 3, 4});
  Tensor init = zeros({2, 4});
  Tensor eager = dynamicRnn(input, init);
  auto f = fnc::function(&dynamicRnn);
  Tensor staged = f(input, init);
  EXPECT_EQ(staged.shape(), (std::vector<int64_t>{2, 3, 4}));
  EXPECT_EQ(vec(staged), vec(eager));
  // A running sum over time.
  std::vector<float> in = vec(input), out = vec(staged);
  for (int b = 0; b < 2; ++b)
    for (int k = 0; k < 4; ++k) {
      float acc = 0;
      for (int t = 0; t < 3; ++t) {
        acc += in[(b * 3 + t) * 4 + k];
        EXPECT_FLOAT_EQ(out[(b * 3 + t) * 4 + k], acc);
      }
    }
  auto ir = f.get_concrete_function(input, init).ir();
  EXPECT_NE(ir.find("fnc.while"), std::string::npos) << ir;
  // Same input again: no retrace.
  f(input, init);
  EXPECT_EQ(f.tracing_count(), 1);
}

TEST(TensorArrayTest, WhileLoopAndSymbolicReads) {
  // Squares of 0..n-1 written by a while_loop, then read back reversed
  // with symbolic indices.
  auto program = [](Tensor n) {
    TensorArray ta(DType::i32, 5, std::vector<int64_t>{});
    auto loop = while_loop([&](Tensor i, TensorArray) { return i < n; },
                           [](Tensor i, TensorArray a) {
                             return std::make_tuple(i + 1, a.write(i, i * i));
                           },
                           std::make_tuple(Tensor(0), ta));
    TensorArray squares = std::get<1>(loop);
    TensorArray rev(DType::i32, 5, std::vector<int64_t>{});
    rev = for_range(
        0, 5, 1,
        [&](Tensor k, TensorArray r) {
          return r.write(k, squares.read(Tensor(4) - k));
        },
        rev);
    return std::make_tuple(std::get<0>(loop), squares.stack(), rev.stack());
  };
  auto f = fnc::function(program);
  {
    auto [si, ss, sr] = f(Tensor(5));
    auto [ei, es, er] = program(Tensor(5));
    EXPECT_EQ(si.item<int32_t>(), 5);
    EXPECT_EQ(ei.item<int32_t>(), 5);
    EXPECT_EQ(ss.to_vector<int32_t>(), es.to_vector<int32_t>());
    EXPECT_EQ(sr.to_vector<int32_t>(), er.to_vector<int32_t>());
    EXPECT_EQ(sr.to_vector<int32_t>(), (std::vector<int32_t>{16, 9, 4, 1, 0}));
  }
  // Staged, elements never written read as zeros; eagerly that is an error.
  auto [i, s, r] = f(Tensor(3));
  EXPECT_EQ(i.item<int32_t>(), 3);
  EXPECT_EQ(s.to_vector<int32_t>(), (std::vector<int32_t>{0, 1, 4, 0, 0}));
  EXPECT_EQ(r.to_vector<int32_t>(), (std::vector<int32_t>{0, 0, 4, 1, 0}));
  expectError([&] { program(Tensor(3)); }, ErrorKind::FailedPrecondition,
              {"element 4", "read before it was written"});
  EXPECT_EQ(f.tracing_count(), 1);
}

TEST(TensorArrayTest, SymbolicWriteOutsideLoopAndStaticReads) {
  auto program = [](Tensor k, Tensor x) {
    TensorArray ta(DType::f32, 3, std::vector<int64_t>{2});
    ta = ta.write(k, x);
    ta = ta.write(0, x * 10.f);
    return std::make_tuple(ta.stack(), ta.read(0));
  };
  auto f = fnc::function(program);
  auto [s, r] = f(Tensor(2), Tensor({1.f, 2.f}));
  EXPECT_EQ(vec(s), (std::vector<float>{10, 20, 0, 0, 1, 2}));
  EXPECT_EQ(vec(r), (std::vector<float>{10, 20}));
  auto [es, er] = program(Tensor(2), Tensor({1.f, 2.f}));
  EXPECT_EQ(vec(es), vec(s));
  EXPECT_EQ(vec(er), vec(r));
}

TEST(TensorArrayTest, DynamicSizeUnrolledWhileTracing) {
  // C++ loops unroll at trace time: a dynamic array grows there too.
  auto f = fnc::function([](Tensor x, int n) {
    TensorArray ta = TensorArray::dynamic(DType::f32);
    for (int i = 0; i < n; ++i)
      ta = ta.write(i, x * static_cast<float>(i));
    return ta.stack();
  });
  Tensor s = f(Tensor({1.f, 2.f}), 3);
  EXPECT_EQ(s.shape(), (std::vector<int64_t>{3, 2}));
  EXPECT_EQ(vec(s), (std::vector<float>{0, 0, 1, 2, 2, 4}));
}

TEST(TensorArrayTest, DynamicSizeInStagedLoops) {
  // The seeds' pattern: TensorArray(size=0, dynamic_size=True) written in a
  // loop whose trip count is a run-time value, then stacked.
  auto squares = [](Tensor n) {
    TensorArray ta = TensorArray::dynamic(DType::i32, 0, std::vector<int64_t>{});
    ta = for_range(
        0, n, 1, [](Tensor i, TensorArray t) { return t.write(i, i * i); }, ta);
    return ta.stack();
  };
  auto staged = fnc::function(squares);
  for (int32_t n : {0, 1, 5, 9}) {
    Tensor eager = squares(Tensor(n));
    Tensor got = staged(Tensor(n));
    EXPECT_EQ(got.shape(), (Shape{n}));
    EXPECT_EQ(got.to_vector<int32_t>(), eager.to_vector<int32_t>());
  }
  EXPECT_EQ(staged(Tensor(4)).to_vector<int32_t>(),
            (std::vector<int32_t>{0, 1, 4, 9}));
  EXPECT_EQ(staged.tracing_count(), 1);

  // Rows of a matrix, a while_loop carrying the array with a tensor, an
  // initial size, writes that skip elements (unwritten ones are zeros), and
  // reads at run-time indices inside and after the loop.
  std::vector<int64_t> sizes; // size() seen in the body
  auto rows = [&sizes](Tensor n, Tensor x) {
    TensorArray ta = TensorArray::dynamic(DType::f32, 2);
    ta = ta.write(0, x);
    auto [i, acc, out] = while_loop(
        [&](Tensor i, Tensor, TensorArray) { return i < n; },
        [&sizes](Tensor i, Tensor acc, TensorArray t) {
          sizes.push_back(t.size());
          Tensor prev = t.read(i - 1);
          Tensor row = prev * 2.f + acc;
          return std::make_tuple(i + 2, acc + 1.f, t.write(i + 1, row));
        },
        std::make_tuple(Tensor(1), Tensor(0.5f), ta));
    (void)acc;
    return std::make_tuple(out.stack(), out.read(i - 1));
  };
  auto stagedRows = fnc::function(rows);
  Tensor x = Tensor{1.f, -2.f, 3.f};
  stagedRows(Tensor(1), x);
  EXPECT_EQ(sizes, (std::vector<int64_t>{kUnknownDim})); // traced once
  sizes.clear();
  rows(Tensor(6), x);
  EXPECT_EQ(sizes, (std::vector<int64_t>{2, 3, 5})); // eager: it grows
  for (int32_t n : {1, 2, 6}) {
    auto [es, er] = rows(Tensor(n), x);
    auto [gs, gr] = stagedRows(Tensor(n), x);
    EXPECT_EQ(gs.shape(), es.shape()) << n;
    EXPECT_EQ(gs.to_vector<float>(), es.to_vector<float>()) << n;
    EXPECT_EQ(gr.to_vector<float>(), er.to_vector<float>()) << n;
  }
  EXPECT_EQ(stagedRows.tracing_count(), 1);
  EXPECT_EQ(std::get<0>(stagedRows(Tensor(6), x)).shape(), (Shape{7, 3}));

  // Shape invariants name the tensor loop variables only; the array in the
  // same loop grows by itself.
  auto both = [](Tensor n) {
    LoopOptions options;
    options.shape_invariants = {{kUnknownDim}};
    auto [seq, ta] = for_range(
        0, n, 1,
        [](Tensor i, Tensor seq, TensorArray t) {
          return std::make_tuple(concat({seq, reshape(i, {1})}, 0),
                                 t.write(i, i * 10));
        },
        std::make_tuple(Tensor(std::vector<int32_t>{}, {0}),
                        TensorArray::dynamic(DType::i32, 0,
                                             std::vector<int64_t>{})),
        options);
    return concat({seq, ta.stack()}, 0);
  };
  auto stagedBoth = fnc::function(both);
  EXPECT_EQ(stagedBoth(Tensor(3)).to_vector<int32_t>(),
            (std::vector<int32_t>{0, 1, 2, 0, 10, 20}));
  EXPECT_EQ(both(Tensor(2)).to_vector<int32_t>(),
            (std::vector<int32_t>{0, 1, 0, 10}));

  // Reading past the end of a dynamic array is a run-time error.
  auto pastEnd = fnc::function([](Tensor n) {
    TensorArray ta = TensorArray::dynamic(DType::f32, 0, std::vector<int64_t>{});
    ta = for_range(
        0, n, 1,
        [](Tensor i, TensorArray t) { return t.write(i, cast(i, DType::f32)); },
        ta);
    return ta.read(n - 1) + ta.read(n);
  });
  // OutOfRange, as an eager read past the end (in the words of the
  // compiled code or, while it compiles, of the eager gather).
  expectError([&] { pastEnd(Tensor(3)); }, ErrorKind::OutOfRange,
              {"index 3", "out of range"});
  // So is writing past the end of a fixed-size array.
  auto writePastEnd = fnc::function([](Tensor n) {
    TensorArray ta(DType::f32, 2, std::vector<int64_t>{});
    return for_range(
               0, n, 1,
               [](Tensor i, TensorArray t) {
                 return t.write(i, cast(i, DType::f32));
               },
               ta)
        .stack();
  });
  EXPECT_EQ(writePastEnd(Tensor(2)).to_vector<float>(),
            (std::vector<float>{0.f, 1.f}));
  expectError([&] { writePastEnd(Tensor(3)); }, ErrorKind::OutOfRange,
              {"row index 2 is out of range [0, 2)", "TensorArray"});
}

// tf.TensorArray's default, as in the tf.function guide: no element shape
// before the loop, the first write decides it (fixed and dynamic size). Eagerly and staged (the
// body traced once more into a block that is dropped: its effects happen
// once per iteration), with an unknown batch, in for_range and while_loop,
// and differentiated.
TEST(TensorArrayTest, ElementShapeFromTheFirstWrite) {
  Variable steps(Tensor(int64_t{0}), "steps");
  auto accumulate = [&](Tensor x, Tensor n) {
    TensorArray ta(DType::f64, 5);
    auto [state, out] = for_range(
        Tensor(0), n, Tensor(1),
        [&](const Tensor &i, const Tensor &s, const TensorArray &a) {
          steps.assign_add(int64_t{1});
          Tensor next = tanh(s * 1.5 + 0.25);
          return std::make_tuple(next, a.write(i, next));
        },
        std::make_tuple(x, ta));
    auto [j, again] = while_loop(
        [&](const Tensor &i, const TensorArray &) { return i < 2; },
        [&](const Tensor &i, const TensorArray &a) {
          return std::make_tuple(i + 1, a.write(i, cast(i, DType::f64)));
        },
        std::make_tuple(Tensor(0), TensorArray::dynamic(DType::f64)));
    (void)j;
    return reduce_sum(out.stack()) + reduce_sum(state) +
           reduce_sum(again.stack());
  };
  auto gradient = [&](Tensor x, Tensor n) {
    GradientTape tape;
    tape.watch(x);
    return tape.gradient(accumulate(x, n), x);
  };
  Tensor x({{0.5, -1.0}, {2.0, 0.1}, {-0.3, 0.7}}), n(3);
  Tensor eager = accumulate(x, n), eagerGrad = gradient(x, n);
  EXPECT_EQ(steps.read_value().item<int64_t>(), 6); // two eager runs
  FunctionOptions options;
  options.input_signature = {TensorSpec({kUnknownDim, 2}, DType::f64),
                             TensorSpec({}, DType::i32)};
  auto staged = fnc::function(accumulate, options);
  auto stagedGradient = fnc::function(gradient, options);
  EXPECT_NEAR(staged(x, n).item<double>(), eager.item<double>(), 1e-12);
  EXPECT_EQ(steps.read_value().item<int64_t>(), 9); // once per iteration
  Tensor g = stagedGradient(x, n);
  std::vector<double> a = g.to_vector<double>(), b = eagerGrad.to_vector<double>();
  ASSERT_EQ(g.shape(), eagerGrad.shape());
  for (size_t i = 0; i < a.size(); ++i)
    EXPECT_NEAR(a[i], b[i], 1e-12) << i;
  // Under an outer tape too, and for another batch and trip count.
  Tensor x1({{0.2, 0.4}});
  GradientTape tape;
  tape.watch(x1);
  Tensor y = staged(x1, Tensor(5));
  std::vector<double> outer = tape.gradient(y, x1).to_vector<double>(),
                      expected = gradient(x1, Tensor(5)).to_vector<double>();
  for (size_t i = 0; i < outer.size(); ++i)
    EXPECT_NEAR(outer[i], expected[i], 1e-12) << i;
}

TEST(TensorArrayTest, Errors) {
  TensorArray ta(DType::f32, 2);
  TensorArray a = ta.write(0, Tensor({1.f, 2.f}));
  expectError(
      [&] {
        (void)a.write(1, Tensor({1, 2}));
      },
      ErrorKind::InvalidArgument, {"int32", "fnc::cast"});
  expectError(
      [&] {
        (void)a.write(1, Tensor({1.f, 2.f, 3.f}));
      },
      ErrorKind::InvalidArgument, {"[2]", "float32[3]", "same shape"});
  expectError(
      [&] {
        (void)a.write(2, Tensor({1.f, 2.f}));
      },
      ErrorKind::OutOfRange, {"index 2", "out of range"});
  expectError([&] { a.read(-1); }, ErrorKind::OutOfRange, {"index -1"});
  expectError([&] { a.read(1); }, ErrorKind::FailedPrecondition,
              {"element 1", "read before it was written"});
  expectError([&] { a.read(Tensor(0.5f)); }, ErrorKind::InvalidArgument,
              {"int32 or int64 scalar"});
  expectError([] { TensorArray(DType::f32, -1); }, ErrorKind::InvalidArgument,
              {"size must be >= 0"});
  expectError([] { TensorArray().stack(); }, ErrorKind::FailedPrecondition,
              {"null array"});

  // The same errors at trace time, for indices known in C++.
  auto readEarly = fnc::function([](Tensor x) {
    TensorArray t(DType::f32, 2);
    return t.write(1, x).read(0);
  });
  expectError([&] { readEarly(Tensor(1.f)); }, ErrorKind::FailedPrecondition,
              {"read before it was written"});
  auto outOfRange = fnc::function(
      [](Tensor x) { return TensorArray(DType::f32, 2).write(5, x).stack(); });
  expectError([&] { outOfRange(Tensor(1.f)); }, ErrorKind::OutOfRange,
              {"index 5"});
  // A read after an eager loop still knows what was written.
  TensorArray looped = for_range(
      0, 1, 1, [](Tensor i, TensorArray t) { return t.write(i, Tensor(1.f)); },
      TensorArray(DType::f32, 2, std::vector<int64_t>{}));
  EXPECT_EQ(looped.read(0).item<float>(), 1.f);
  expectError([&] { looped.read(1); }, ErrorKind::FailedPrecondition,
              {"read before it was written"});

  // Unsupported staged uses say what to do.
  // A loop that never writes its array cannot tell its element shape.
  auto neverWritten = fnc::function([](Tensor n) {
    return for_range(
               0, n, 1, [](Tensor, TensorArray t) { return t; },
               TensorArray(DType::i32, 4))
        .stack();
  });
  expectError([&] { neverWritten(Tensor(2)); }, ErrorKind::InvalidArgument,
              {"no element shape", "element_shape"});
  auto wrongShapeInLoop = fnc::function([](Tensor n) {
    return for_range(
               0, n, 1,
               [](Tensor i, TensorArray t) {
                 return t.write(i, Tensor({1, 2}));
               },
               TensorArray(DType::i32, 4, std::vector<int64_t>{}))
        .stack();
  });
  expectError([&] { wrongShapeInLoop(Tensor(2)); }, ErrorKind::InvalidArgument,
              {"same shape"});
}

} // namespace
