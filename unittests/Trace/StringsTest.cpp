//===- StringsTest.cpp - String tensors, eager and staged -----------------===//
//
// fnc/Strings.h: construction and printing as TensorFlow prints them, ==,
// != and + (the guide's `double(tf.constant("a"))`), the fnc::strings
// functions against hand-computed results, every op that rejects strings
// naming itself, and the same programs staged (run by the graph executor:
// strings are never compiled) agreeing with eager execution.
//
//===----------------------------------------------------------------------===//

#include "Support/CapturedOutput.h"
#include "Support/ExpectError.h"
#include "fnc/fnc.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <random>
#include <stdlib.h>
#include <unistd.h>

using namespace fnc;
using fnc::testing::expectError;

namespace {

std::vector<std::string> values(const Tensor &t) {
  return t.to_vector<std::string>();
}

TEST(StringsTest, ConstructionAndPrinting) {
  Tensor a("a");
  EXPECT_EQ(a.dtype(), DType::str);
  EXPECT_EQ(a.rank(), 0);
  EXPECT_EQ(a.item<std::string>(), "a");
  EXPECT_EQ(a.str(), "fnc.Tensor(b'a', shape=(), dtype=string)");
  Tensor v = constant({"ada", "grace"});
  EXPECT_EQ(v.shape(), Shape({2}));
  EXPECT_EQ(v.str(), "fnc.Tensor([b'ada' b'grace'], shape=(2,), dtype=string)");
  Tensor m = {{"a", "b"}, {"c", "d"}};
  EXPECT_EQ(m.at<std::string>({1, 0}), "c");
  Tensor fromVector(std::vector<std::string>{"x", "y", "z", "w"}, {2, 2});
  EXPECT_EQ(values(fromVector), (std::vector<std::string>{"x", "y", "z", "w"}));
  Tensor odd(std::string("it's\n\x01\xff"));
  EXPECT_EQ(odd.str(), "fnc.Tensor(b'it\\'s\\n\\x01\\xff', shape=(), "
                       "dtype=string)");
  EXPECT_FNC_ERROR(a.item<float>(), InvalidArgument, "dtype string");
  const char *null = nullptr;
  EXPECT_FNC_ERROR(Tensor(null), InvalidArgument, "null pointer");
  EXPECT_FNC_ERROR(Tensor::from_blob(nullptr, {0}, DType::str), InvalidArgument,
                   "own their strings");
  fnc::testing::CapturedOutput out;
  print(a);
  print("names: {}", v);
  EXPECT_EQ(out.str(), "a\nnames: [\"ada\" \"grace\"]\n");
}

TEST(StringsTest, CompareAndConcatenate) {
  Tensor v = {"a", "b", "a"};
  EXPECT_EQ((v == "a").to_vector<bool>(), (std::vector<bool>{1, 0, 1}));
  EXPECT_EQ((v != Tensor("a")).to_vector<bool>(), (std::vector<bool>{0, 1, 0}));
  Tensor column = {{"a"}, {"b"}};
  EXPECT_EQ(equal(column, v).to_vector<bool>(),
            (std::vector<bool>{1, 0, 1, 0, 1, 0}));
  EXPECT_EQ((v + "!").to_vector<std::string>(),
            (std::vector<std::string>{"a!", "b!", "a!"}));
  EXPECT_FNC_ERROR(v == 1.f, InvalidArgument, "a string and a number");
  EXPECT_FNC_ERROR(v < v, InvalidArgument, "fnc::less: string tensors");
  EXPECT_FNC_ERROR(v * v, InvalidArgument, "fnc::mul: string tensors");
  EXPECT_FNC_ERROR(v == Tensor({"a", "b"}), InvalidArgument,
                   "not broadcast-compatible");
}

TEST(StringsTest, Functions) {
  Tensor names = {"ada", "grace"};
  EXPECT_EQ(values(strings::join({names, "!"}, " ")),
            (std::vector<std::string>{"ada !", "grace !"}));
  EXPECT_EQ(values(strings::join({names})), values(names));
  EXPECT_FNC_ERROR(strings::join({}), InvalidArgument, "at least one input");
  EXPECT_FNC_ERROR(strings::join({names, Tensor(1)}), InvalidArgument,
                   "needs string operands, got int32");

  Tensor f = strings::format("x = {}, s = {}, n = {}",
                             {Tensor({1.5f, 2.f}), Tensor("hi"), Tensor(3)});
  EXPECT_EQ(f.item<std::string>(), "x = [1.5 2. ], s = hi, n = 3");
  EXPECT_EQ(strings::format("<%>", {names}, "%").item<std::string>(),
            "<[\"ada\" \"grace\"]>");
  EXPECT_FNC_ERROR(strings::format("{} {}", {names}), InvalidArgument,
                   "2 placeholders");

  Tensor words = {"", "h\xc3\xa9", "abc"};
  EXPECT_EQ(strings::length(words).to_vector<int32_t>(),
            (std::vector<int32_t>{0, 3, 3}));
  EXPECT_EQ(
      strings::length(words, strings::Unit::UTF8Char).to_vector<int32_t>(),
      (std::vector<int32_t>{0, 2, 3}));
  EXPECT_FNC_ERROR(strings::length(Tensor("\xc3"), strings::Unit::UTF8Char),
                   InvalidArgument, "not valid UTF-8");

  Tensor mixed = {"Hello, World 1!", "\xc3\xa9"
                                     "a"};
  EXPECT_EQ(values(strings::upper(mixed)),
            (std::vector<std::string>{"HELLO, WORLD 1!", "\xc3\xa9"
                                                         "A"}));
  EXPECT_EQ(values(strings::lower(mixed)),
            (std::vector<std::string>{"hello, world 1!", "\xc3\xa9"
                                                         "a"}));

  EXPECT_EQ(values(strings::split(Tensor("  a b\t c  "))),
            (std::vector<std::string>{"a", "b", "c"}));
  Tensor csv = {"a,,b", "c", ""};
  Tensor parts = strings::split(csv, ",");
  EXPECT_EQ(parts.shape(), Shape({3, 3}));
  EXPECT_EQ(values(parts),
            (std::vector<std::string>{"a", "", "b", "c", "", "", "", "", ""}));
  EXPECT_EQ(values(strings::split(Tensor("a b c d"), "", 2)),
            (std::vector<std::string>{"a", "b", "c d"}));
  EXPECT_EQ(values(strings::split(Tensor("a-b-c"), "-", 1)),
            (std::vector<std::string>{"a", "b-c"}));
  EXPECT_EQ(strings::split(Tensor(""), " ").shape(), Shape({1}));
  EXPECT_EQ(strings::split(Tensor(""), "").shape(), Shape({0}));
  EXPECT_FNC_ERROR(strings::split(Tensor({{"a"}})), InvalidArgument,
                   "reshape to 1-D");
}

/// Random strings over a small alphabet (with separators and a multibyte
/// character), checked against std::string computations.
TEST(StringsTest, RandomAgainstStdString) {
  std::mt19937 rng(7);
  const std::vector<std::string> pieces = {"a", "B", ",", " ", "\xc3\xa9", "z"};
  auto randomString = [&] {
    std::string s;
    for (int n = rng() % 7; n > 0; --n)
      s += pieces[rng() % pieces.size()];
    return s;
  };
  for (int round = 0; round < 20; ++round) {
    std::vector<std::string> xs(5), ys(5);
    for (int i = 0; i < 5; ++i)
      xs[i] = randomString(), ys[i] = rng() % 2 ? xs[i] : randomString();
    Tensor x(xs), y(ys);
    auto eq = (x == y).to_vector<bool>();
    auto joined = values(strings::join({x, y}, "|"));
    auto lengths = strings::length(x).to_vector<int32_t>();
    auto parts = strings::split(x, ",");
    for (int i = 0; i < 5; ++i) {
      EXPECT_EQ(eq[i], xs[i] == ys[i]);
      EXPECT_EQ(joined[i], xs[i] + "|" + ys[i]);
      EXPECT_EQ(lengths[i], int32_t(xs[i].size()));
      std::string rejoined;
      for (int64_t j = 0,
                   n = 1 + int64_t(std::count(xs[i].begin(), xs[i].end(), ','));
           j < n; ++j)
        rejoined += (j ? "," : "") + parts.at<std::string>({i, j});
      EXPECT_EQ(rejoined, xs[i]);
    }
  }
}

TEST(StringsTest, OtherOpsRejectStringsNamingThemselves) {
  Tensor s = {"a", "b"};
  EXPECT_FNC_ERROR(transpose(s), InvalidArgument,
                   "fnc::transpose: string tensors are not accepted");
  EXPECT_FNC_ERROR(reduce_sum(s), InvalidArgument, "fnc::reduce_sum");
  EXPECT_FNC_ERROR(cast(s, DType::f32), InvalidArgument, "fnc::cast");
  EXPECT_FNC_ERROR(concat({s, s}, 0), InvalidArgument, "fnc::concat");
  EXPECT_FNC_ERROR(s[0], InvalidArgument, "string tensors");
  EXPECT_FNC_ERROR(Variable(s), InvalidArgument,
                   "fnc::Variable: variables hold numbers, not strings");
  EXPECT_FNC_ERROR(zeros_like(s), InvalidArgument, "fnc::zeros_like");
}

//===----------------------------------------------------------------------===//
// Staged
//===----------------------------------------------------------------------===//

// The guide's example: one trace per dtype, the string one reused for
// every string value.
TEST(StringsTest, GuideDoubleTracesOncePerDtype) {
  int traces = 0;
  FunctionOptions options;
  options.name = "double";
  options.arg_names = {"a"};
  auto twice = function(
      [&](const Tensor &a) {
        ++traces;
        return a + a;
      },
      options);
  EXPECT_EQ(twice(Tensor(1)).item<int32_t>(), 2);
  EXPECT_EQ(twice(Tensor("a")).str(),
            "fnc.Tensor(b'aa', shape=(), dtype=string)");
  EXPECT_EQ(twice(Tensor("b")).item<std::string>(), "bb");
  EXPECT_EQ(traces, 2);
  EXPECT_NE(twice.pretty_printed_concrete_signatures().find(
                "double(a)\n  Args:\n    a: string Tensor, shape=()\n  "
                "Returns:\n    string Tensor, shape=()"),
            std::string::npos)
      << twice.pretty_printed_concrete_signatures();
  EXPECT_NE(twice.get_concrete_function(Tensor("c")).ir().find("!fnc.string"),
            std::string::npos);
}

TEST(StringsTest, StagedAgreesWithEager) {
  Tensor sep(",");
  auto program = [&](const Tensor &words, const Tensor &n) {
    Tensor upper = strings::upper(words);
    Tensor tagged =
        strings::join({upper, Tensor("x")}, sep.item<std::string>());
    Tensor described = strings::format("{} words, n = {}", {words, n});
    Tensor parts = strings::split(tagged, ",");
    Tensor lengths = strings::length(words);
    Tensor same = words == Tensor("b");
    return std::make_tuple(tagged, described, parts, lengths, same);
  };
  auto staged = function(program);
  for (auto input : {std::vector<std::string>{"a", "b", "c,d"},
                     std::vector<std::string>{"", "b", "\xc3\xa9"}}) {
    Tensor words(input);
    auto eager = program(words, Tensor(3));
    auto got = staged(words, Tensor(3));
    EXPECT_EQ(values(std::get<0>(got)), values(std::get<0>(eager)));
    EXPECT_EQ(values(std::get<1>(got)), values(std::get<1>(eager)));
    EXPECT_EQ(values(std::get<2>(got)), values(std::get<2>(eager)));
    EXPECT_EQ(std::get<2>(got).shape(), std::get<2>(eager).shape());
    EXPECT_EQ(std::get<3>(got).to_vector<int32_t>(),
              std::get<3>(eager).to_vector<int32_t>());
    EXPECT_EQ(std::get<4>(got).to_vector<bool>(),
              std::get<4>(eager).to_vector<bool>());
  }
}

TEST(StringsTest, CondOnAStringComparison) {
  auto greet = function([&](const Tensor &lang, const Tensor &x) {
    Tensor y = cond(
        lang == "fr", [&] { return x * 2.f; }, [&] { return x + 1.f; });
    Tensor word = cond(
        lang == "fr", [&] { return Tensor("bonjour"); },
        [&] {
          return strings::join({Tensor("hello "), lang});
        });
    print("{}: {}", word, y);
    return std::make_pair(y, word);
  });
  fnc::testing::CapturedOutput out;
  auto [fr, frWord] = greet(Tensor("fr"), Tensor(3.f));
  auto [en, enWord] = greet(Tensor("en"), Tensor(3.f));
  EXPECT_EQ(fr.item<float>(), 6.f);
  EXPECT_EQ(en.item<float>(), 4.f);
  EXPECT_EQ(frWord.item<std::string>(), "bonjour");
  EXPECT_EQ(enWord.item<std::string>(), "hello en");
  EXPECT_EQ(out.str(), "bonjour: 6.0\nhello en: 4.0\n");
}

TEST(StringsTest, StagedErrors) {
  FunctionOptions compiled;
  compiled.jit_compile = true;
  auto f = function([](const Tensor &s) { return s + s; }, compiled);
  EXPECT_FNC_ERROR(f(Tensor("a")), InvalidArgument,
                   "string tensors, which are not compiled");
  auto g = function([](const Tensor &s) { return transpose(s); });
  EXPECT_FNC_ERROR(g(Tensor({"a"})), InvalidArgument,
                   "fnc::transpose: string tensors are not accepted");
  auto h = function([](const Tensor &s) {
    return strings::length(s, strings::Unit::UTF8Char);
  });
  EXPECT_FNC_ERROR(h(Tensor("\xff")), InvalidArgument, "not valid UTF-8");
  // A string signature: one trace serves every shape of its dim.
  int traces = 0;
  FunctionOptions signature;
  signature.input_signature = {TensorSpec({-1}, DType::str)};
  auto k = function(
      [&](const Tensor &s) {
        ++traces;
        return strings::upper(s);
      },
      signature);
  EXPECT_EQ(values(k(Tensor({"a", "b"}))),
            (std::vector<std::string>{"A", "B"}));
  EXPECT_EQ(values(k(Tensor({"c"}))), (std::vector<std::string>{"C"}));
  EXPECT_EQ(traces, 1);
  EXPECT_FNC_ERROR(k(Tensor({1.f})), InvalidArgument, "");
}

// fnc::save writes the trace's IR; fnc::load runs a function with strings
// on its graph executor, as the original does. The compiled stages of its
// IR do not exist.
TEST(StringsTest, SavedAndLoaded) {
  auto greet = function([](const Tensor &name, const Tensor &n) {
    fnc::print("greeting {}", name);
    return strings::format("hello {} x{}", {strings::upper(name), n});
  });
  EXPECT_FNC_ERROR(
      greet.get_concrete_function(Tensor("a"), Tensor(1)).ir(IRStage::LLVMIR),
      Unimplemented, "never compiled");
  char dir[] = "/tmp/fnc-strings-XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  std::string path = std::string(dir) + "/greet.fnc";
  save(path, greet, TensorSpec({}, DType::str), TensorSpec({}, DType::i32));
  LoadedFunction loaded = load(path);
  fnc::testing::CapturedOutput out;
  auto got = loaded(Tensor("ada"), Tensor(2));
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].item<std::string>(), "hello ADA x2");
  EXPECT_EQ(loaded.call<Tensor>(Tensor("b"), Tensor(1)).item<std::string>(),
            "hello B x1");
  EXPECT_EQ(out.str(), "greeting ada\ngreeting b\n");
  EXPECT_NE(loaded.concrete_functions()[0].ir().find("fnc.string_format"),
            std::string::npos);
  // Saved again from the loaded file.
  std::string again = std::string(dir) + "/again.fnc";
  save(again, loaded.concrete_functions());
  EXPECT_EQ(load(again)(Tensor("c"), Tensor(3))[0].item<std::string>(),
            "hello C x3");
  // A loaded function's gradient replays its program imported from the
  // IR: a string comparison picks the branch there too.
  auto pick = function([](const Tensor &word, const Tensor &v) {
    return cond(
        strings::upper(word) == "SQUARE", [&] { return v * v; },
        [&] { return v; });
  });
  std::string picked = std::string(dir) + "/pick.fnc";
  save(picked, pick, TensorSpec({}, DType::str), TensorSpec({}));
  LoadedFunction loadedPick = load(picked);
  EXPECT_EQ(loadedPick(Tensor("square"), Tensor(3.f))[0].item<float>(), 9.f);
  Tensor x = 3.f;
  GradientTape tape;
  tape.watch(x);
  Tensor y = loadedPick(Tensor("square"), x)[0] + pick(Tensor("Square"), x);
  EXPECT_FLOAT_EQ(tape.gradient(y, x).item<float>(), 12.f);
  std::remove(path.c_str());
  std::remove(again.c_str());
  std::remove(picked.c_str());
  rmdir(dir);
}

TEST(StringsTest, NotDifferentiable) {
  Tensor x = 2.f;
  Tensor s = "a";
  GradientTape tape;
  tape.watch(x);
  Tensor y = cond(
      s == "a", [&] { return x * x; }, [&] { return x; });
  EXPECT_FLOAT_EQ(tape.gradient(y, x).item<float>(), 4.f);
}

} // namespace
