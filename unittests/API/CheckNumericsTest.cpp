//===- CheckNumericsTest.cpp - The check-numerics debugging mode ----------===//

#include "fnc/CheckNumerics.h"
#include "fnc/Ops.h"

#include "gtest/gtest.h"

#include <cmath>

namespace {

struct CheckNumerics : ::testing::Test {
  void SetUp() override { fnc::enable_check_numerics(true); }
  void TearDown() override { fnc::enable_check_numerics(false); }
};

TEST_F(CheckNumerics, NamesTheFirstOpThatProducesNaNOrInf) {
  fnc::Tensor x = {1.f, 0.f, -1.f};
  fnc::Tensor ok = fnc::exp(x); // finite
  EXPECT_EQ(ok.size(), 3);
  try {
    (void)fnc::log(x); // log(0) = -inf, log(-1) = nan
    FAIL() << "log of a negative number passed the check";
  } catch (const fnc::Error &e) {
    EXPECT_EQ(e.kind(), fnc::ErrorKind::FailedPrecondition);
    EXPECT_NE(std::string(e.what()).find("fnc::log: produced NaN or Inf"),
              std::string::npos)
        << e.what();
  }
  EXPECT_THROW((void)fnc::div(x, fnc::zeros({3})), fnc::Error);
  EXPECT_THROW((void)fnc::matmul(fnc::Tensor{{1e30f}}, fnc::Tensor{{1e30f}}),
               fnc::Error);
}

TEST_F(CheckNumerics, IntegersAndDataMovementAreNotChecked) {
  fnc::Tensor i = {1, 2, 3};
  EXPECT_NO_THROW((void)fnc::add(i, i));
  // A NaN the user passes in is only moved here, not produced.
  fnc::Tensor nan = {std::nanf(""), 1.f};
  EXPECT_NO_THROW((void)fnc::transpose(nan));
}

TEST(CheckNumericsOff, NaNFlowsThrough) {
  ASSERT_FALSE(fnc::check_numerics_enabled());
  fnc::Tensor x = {-1.f};
  EXPECT_TRUE(std::isnan(fnc::log(x).item<float>()));
}

} // namespace
