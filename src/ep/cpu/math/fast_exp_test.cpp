// ep/cpu/math/fast_exp_test.cpp: FastExp against std::exp (double, rounded) over a dense sweep
// and the special values.
#include "ep/cpu/math/fast_exp.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace nxrt::cpu::math {
namespace {

TEST(FastExp, WithinTwoUlpOfExpOverTheNormalRange) {
  float worst_ulps = 0;
  for (float x = -87.3f; x < 88.7f; x = std::nextafter(x + 0.0013f, 100.0f)) {
    const float want = static_cast<float>(std::exp(static_cast<double>(x)));
    const float got = FastExp(x);
    const float ulp = std::nextafter(want, std::numeric_limits<float>::infinity()) - want;
    const float ulps = std::fabs(got - want) / ulp;
    worst_ulps = std::max(worst_ulps, ulps);
    ASSERT_LE(ulps, 2.0f) << "x = " << x << ": got " << got << ", exp gives " << want;
  }
  EXPECT_GT(worst_ulps, 0.0f);  // the sweep compared something that is not exact everywhere
}

TEST(FastExp, SpecialValuesMatchExp) {
  const float inf = std::numeric_limits<float>::infinity();
  EXPECT_TRUE(std::isnan(FastExp(std::numeric_limits<float>::quiet_NaN())));
  EXPECT_EQ(FastExp(-inf), 0.0f);
  EXPECT_EQ(FastExp(inf), inf);
  EXPECT_EQ(FastExp(-1000.0f), 0.0f);
  EXPECT_EQ(FastExp(1000.0f), inf);
  EXPECT_EQ(FastExp(0.0f), 1.0f);
  EXPECT_EQ(FastExp(-0.0f), 1.0f);
}

}  // namespace
}  // namespace nxrt::cpu::math
