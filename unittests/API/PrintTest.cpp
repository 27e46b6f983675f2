//===- PrintTest.cpp - Exact printed forms of fnc::Tensor -----------------===//
//
// The printed form must match what TensorFlow (through numpy) prints, so the
// expected strings below are numpy's output for the same arrays (checked
// with numpy 1.24; TensorFlow starts a multi-line body on a new line).
//
//===----------------------------------------------------------------------===//

#include "TestUtil.h"

#include <cmath>
#include <limits>
#include <sstream>

using namespace fnc;

namespace {

TEST(PrintTest, SeedExamples) {
  EXPECT_EQ(Tensor({{2.f, 3.f}}).str(),
            "fnc.Tensor([[2. 3.]], shape=(1, 2), dtype=float32)");
  EXPECT_EQ(Tensor(4.0f).str(), "fnc.Tensor(4.0, shape=(), dtype=float32)");
  EXPECT_EQ(Tensor({1, 2}).str(), "fnc.Tensor([1 2], shape=(2,), dtype=int32)");
  EXPECT_EQ(Tensor({true, false}).str(),
            "fnc.Tensor([ True False], shape=(2,), dtype=bool)");
  EXPECT_EQ(Tensor(2).str(), "fnc.Tensor(2, shape=(), dtype=int32)");
  EXPECT_EQ(Tensor(2.2f).str(), "fnc.Tensor(2.2, shape=(), dtype=float32)");
}

TEST(PrintTest, StreamOperatorMatchesStr) {
  std::ostringstream os;
  Tensor t = {1.5, 2.0};
  os << t;
  EXPECT_EQ(os.str(), t.str());
  EXPECT_EQ(os.str(), "fnc.Tensor([1.5 2. ], shape=(2,), dtype=float64)");
}

TEST(PrintTest, FloatAlignment) {
  EXPECT_EQ(Tensor({1.f, 2.5f}).str(),
            "fnc.Tensor([1.  2.5], shape=(2,), dtype=float32)");
  EXPECT_EQ(Tensor({0.1f, 0.25f}).str(),
            "fnc.Tensor([0.1  0.25], shape=(2,), dtype=float32)");
  EXPECT_EQ(Tensor({-1.5, 2.0}).str(),
            "fnc.Tensor([-1.5  2. ], shape=(2,), dtype=float64)");
  EXPECT_EQ(Tensor({1.f / 3}).str(),
            "fnc.Tensor([0.33333334], shape=(1,), dtype=float32)");
  EXPECT_EQ(Tensor({1.0 / 3}).str(),
            "fnc.Tensor([0.33333333], shape=(1,), dtype=float64)");
  EXPECT_EQ(Tensor({10.f, -200.5f}).str(),
            "fnc.Tensor([  10.  -200.5], shape=(2,), dtype=float32)");
}

TEST(PrintTest, FloatScientific) {
  EXPECT_EQ(Tensor({1e-5f, 1.f}).str(),
            "fnc.Tensor([1.e-05 1.e+00], shape=(2,), dtype=float32)");
  EXPECT_EQ(Tensor({1.5e-5f, 1.f}).str(),
            "fnc.Tensor([1.5e-05 1.0e+00], shape=(2,), dtype=float32)");
  EXPECT_EQ(Tensor({1e8, 1.0}).str(),
            "fnc.Tensor([1.e+08 1.e+00], shape=(2,), dtype=float64)");
}

TEST(PrintTest, NonFinite) {
  float nan = std::numeric_limits<float>::quiet_NaN();
  float inf = std::numeric_limits<float>::infinity();
  EXPECT_EQ(Tensor({nan, 1.f}).str(),
            "fnc.Tensor([nan  1.], shape=(2,), dtype=float32)");
  EXPECT_EQ(Tensor({-inf, 1.f}).str(),
            "fnc.Tensor([-inf   1.], shape=(2,), dtype=float32)");
  EXPECT_EQ(Tensor({nan, inf}).str(),
            "fnc.Tensor([nan inf], shape=(2,), dtype=float32)");
}

TEST(PrintTest, Scalars) {
  EXPECT_EQ(Tensor(0.1f).str(), "fnc.Tensor(0.1, shape=(), dtype=float32)");
  EXPECT_EQ(Tensor(1e-5f).str(), "fnc.Tensor(1e-05, shape=(), dtype=float32)");
  EXPECT_EQ(Tensor(1.5e20).str(),
            "fnc.Tensor(1.5e+20, shape=(), dtype=float64)");
  EXPECT_EQ(Tensor(-0.0f).str(), "fnc.Tensor(-0.0, shape=(), dtype=float32)");
  EXPECT_EQ(Tensor(100.0).str(), "fnc.Tensor(100.0, shape=(), dtype=float64)");
  EXPECT_EQ(Tensor(int64_t{-7}).str(), "fnc.Tensor(-7, shape=(), dtype=int64)");
  EXPECT_EQ(Tensor(true).str(), "fnc.Tensor(True, shape=(), dtype=bool)");
  EXPECT_EQ(Tensor(std::numeric_limits<double>::quiet_NaN()).str(),
            "fnc.Tensor(nan, shape=(), dtype=float64)");
}

TEST(PrintTest, Integers) {
  EXPECT_EQ(Tensor({1, -2, 30}).str(),
            "fnc.Tensor([ 1 -2 30], shape=(3,), dtype=int32)");
  EXPECT_EQ(Tensor({{1, 2}, {3, 4}}).str(),
            "fnc.Tensor(\n[[1 2]\n [3 4]], shape=(2, 2), dtype=int32)");
}

TEST(PrintTest, Bools) {
  EXPECT_EQ(Tensor({true, true}).str(),
            "fnc.Tensor([ True  True], shape=(2,), dtype=bool)");
  EXPECT_EQ(Tensor({false, false}).str(),
            "fnc.Tensor([False False], shape=(2,), dtype=bool)");
}

TEST(PrintTest, ThreeDims) {
  EXPECT_EQ(zeros({2, 2, 2}, DType::i32).str(),
            "fnc.Tensor(\n[[[0 0]\n  [0 0]]\n\n [[0 0]\n  [0 0]]], "
            "shape=(2, 2, 2), dtype=int32)");
}

TEST(PrintTest, Empty) {
  EXPECT_EQ(zeros({0}).str(), "fnc.Tensor([], shape=(0,), dtype=float32)");
  EXPECT_EQ(zeros({2, 0}, DType::i64).str(),
            "fnc.Tensor([], shape=(2, 0), dtype=int64)");
}

TEST(PrintTest, LineWrapping) {
  EXPECT_EQ(range(0, 30, 1, DType::i32).str(),
            "fnc.Tensor(\n[ 0  1  2  3  4  5  6  7  8  9 10 11 12 13 14 15 16 "
            "17 18 19 20 21 22 23\n 24 25 26 27 28 29], shape=(30,), "
            "dtype=int32)");
}

TEST(PrintTest, Summarized) {
  EXPECT_EQ(range(0, 2000, 1, DType::i32).str(),
            "fnc.Tensor([   0    1    2 ... 1997 1998 1999], shape=(2000,), "
            "dtype=int32)");
  EXPECT_EQ(range(0.f, 2000.f).str(),
            "fnc.Tensor([0.000e+00 1.000e+00 2.000e+00 ... 1.997e+03 "
            "1.998e+03 1.999e+03], shape=(2000,), dtype=float32)");
  std::string row = " [0. 0. 0. ... 0. 0. 0.]";
  EXPECT_EQ(zeros({100, 100}).str(), "fnc.Tensor(\n[" + row.substr(1) + "\n" +
                                         row + "\n" + row + "\n ...\n" + row +
                                         "\n" + row + "\n" + row +
                                         "], shape=(100, 100), dtype=float32)");
  // Exactly 1000 elements: not summarized.
  std::string full = range(0, 1000, 1, DType::i32).str();
  EXPECT_EQ(full.find("..."), std::string::npos);
}

// More cases checked against numpy 1.24's str().
TEST(PrintTest, MoreNumpyCases) {
  EXPECT_EQ(Tensor({123456.789f, 0.5f}).str(),
            "fnc.Tensor([1.2345679e+05 5.0000000e-01], shape=(2,), "
            "dtype=float32)");
  EXPECT_EQ(Tensor({-1e-3, 2e-3, 5.0}).str(),
            "fnc.Tensor([-1.e-03  2.e-03  5.e+00], shape=(3,), dtype=float64)");
  EXPECT_EQ(Tensor({1e16, -3.0}).str(),
            "fnc.Tensor([ 1.e+16 -3.e+00], shape=(2,), dtype=float64)");
  EXPECT_EQ(Tensor({0.1 + 0.2, 1.0}).str(),
            "fnc.Tensor([0.3 1. ], shape=(2,), dtype=float64)");
  std::vector<float> lin;
  for (int i = 0; i < 7; ++i)
    lin.push_back(static_cast<float>(i / 6.0));
  EXPECT_EQ(Tensor(lin).str(),
            "fnc.Tensor(\n[0.         0.16666667 0.33333334 0.5        "
            "0.6666667  0.8333333\n 1.        ], shape=(7,), dtype=float32)");
  std::vector<double> sevenths;
  for (int i = 0; i < 40; ++i)
    sevenths.push_back(i / 7.0);
  EXPECT_EQ(
      Tensor(sevenths, {2, 20}).str(),
      "fnc.Tensor(\n[[0.         0.14285714 0.28571429 0.42857143 0.57142857 "
      "0.71428571\n  0.85714286 1.         1.14285714 1.28571429 1.42857143 "
      "1.57142857\n  1.71428571 1.85714286 2.         2.14285714 2.28571429 "
      "2.42857143\n  2.57142857 2.71428571]\n [2.85714286 3.         "
      "3.14285714 3.28571429 3.42857143 3.57142857\n  3.71428571 3.85714286 "
      "4.         4.14285714 4.28571429 4.42857143\n  4.57142857 4.71428571 "
      "4.85714286 5.         5.14285714 5.28571429\n  5.42857143 "
      "5.57142857]], shape=(2, 20), dtype=float64)");
}

TEST(PrintTest, NullTensor) {
  Tensor t;
  EXPECT_FALSE(t.defined());
  EXPECT_FNC_ERROR(t.str(), FailedPrecondition, "default-constructed");
}

} // namespace
