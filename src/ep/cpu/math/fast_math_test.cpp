// ep/cpu/math/fast_math_test.cpp: the functions of fast_math.h (FastErf ... FastCosh) against their
// std:: twins in double, over every 97th float bit pattern (44M values, all signs and exponents),
// the floats next to each piece boundary, and the special values.
#include "ep/cpu/math/fast_math.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <limits>

namespace nxrt::cpu::math {
namespace {

double Sigmoid(double x) { return 1 / (1 + std::exp(-x)); }

// The largest errors seen, and where.
struct Worst {
  double abs = 0;  // |fast(x) - exact(x)|
  float abs_at = 0;
  double ulps = 0;  // the same in ULPs of the float nearest exact(x), where that is a normal float
  float ulps_at = 0;
};

template <typename Fast, typename Exact>
void Compare(Fast fast, Exact exact, float x, Worst* worst) {
  const double want = exact(static_cast<double>(x));
  const double abs = std::fabs(static_cast<double>(fast(x)) - want);
  if (abs > worst->abs) {
    worst->abs = abs;
    worst->abs_at = x;
  }
  const float rounded = static_cast<float>(std::fabs(want));
  if (rounded < std::numeric_limits<float>::min()) return;
  const double ulp = std::nextafter(rounded, std::numeric_limits<float>::infinity()) - rounded;
  if (abs / ulp > worst->ulps) {
    worst->ulps = abs / ulp;
    worst->ulps_at = x;
  }
}

// Every 97th bit pattern (97 is odd, so both signs, every exponent and every residue of the
// mantissa are visited), NaNs skipped, then 4096 consecutive floats on each side of +-boundary.
template <typename Fast, typename Exact>
Worst Sweep(Fast fast, Exact exact, std::initializer_list<float> boundaries) {
  Worst worst;
  for (uint64_t bits = 0; bits < (uint64_t{1} << 32); bits += 97) {
    const float x = std::bit_cast<float>(static_cast<uint32_t>(bits));
    if (!std::isnan(x)) Compare(fast, exact, x, &worst);
  }
  for (const float boundary : boundaries) {
    for (const float b : {boundary, -boundary}) {
      const uint32_t center = std::bit_cast<uint32_t>(b);
      for (uint32_t bits = center - 4096; bits != center + 4096; ++bits) {
        Compare(fast, exact, std::bit_cast<float>(bits), &worst);
      }
    }
  }
  return worst;
}

void ExpectWithin(const Worst& worst, double max_abs, double max_ulps) {
  EXPECT_GT(worst.abs, 0.0);  // the sweep compared something that is not exact everywhere
  EXPECT_LE(worst.abs, max_abs) << "at x = " << worst.abs_at;
  EXPECT_LE(worst.ulps, max_ulps) << "at x = " << worst.ulps_at;
}

TEST(FastMath, ErfWithinBoundOverEveryExponent) {
  // 0.875: the polynomial / 1 - e^p split; 4: where |x| is clamped.
  ExpectWithin(Sweep([](float x) { return FastErf(x); }, [](double x) { return std::erf(x); },
                     {0.875f, 4.0f}),
               2e-7, 2.0);
}

TEST(FastMath, TanhWithinBoundOverEveryExponent) {
  // 0.875: the polynomial / 1 - 2 / (e^2|x| + 1) split; 44.4: where e^2|x| overflows.
  ExpectWithin(Sweep([](float x) { return FastTanh(x); }, [](double x) { return std::tanh(x); },
                     {0.875f, 44.4f}),
               2e-7, 2.0);
}

TEST(FastMath, SigmoidWithinBoundOverEveryExponent) {
  // -87.3 and 88.7: where FastExp(-x) is +inf and 0.
  ExpectWithin(Sweep([](float x) { return FastSigmoid(x); }, Sigmoid, {87.33654f, 88.72283f}),
               2e-7, 3.0);
}

TEST(FastMath, Expm1WithinBoundOverEveryExponent) {
  // 0.5: the Taylor polynomial / FastExp(x) - 1 split; -87.3 and 88.7: FastExp's clamps.
  ExpectWithin(Sweep([](float x) { return FastExpm1(x); }, [](double x) { return std::expm1(x); },
                     {0.5f, 87.33654f, 88.72283f}),
               std::numeric_limits<double>::infinity(), 2.5);  // unbounded: ULPs only
}

// Below 0 the exact value is NaN and the sweep skips it; SpecialValues checks those.
TEST(FastMath, LogWithinBoundOverEveryExponent) {
  // sqrt(2): where m is halved; 1: where log changes sign; 1.18e-38: the subnormal scaling.
  ExpectWithin(Sweep([](float x) { return FastLog(x); }, [](double x) { return std::log(x); },
                     {1.41421356f, 1.0f, 1.17549435e-38f}),
               4e-6, 2.0);
}

TEST(FastMath, AtanWithinBoundOverEveryExponent) {
  // tan(pi/8) and tan(3pi/8): where the reduction changes.
  ExpectWithin(Sweep([](float x) { return FastAtan(x); }, [](double x) { return std::atan(x); },
                     {0.414213562f, 2.41421356f}),
               2e-7, 2.0);
}

// Outside [-1, 1] the exact value is NaN and the sweep skips it; SpecialValues checks those.
TEST(FastMath, AsinWithinBoundOverEveryExponent) {
  ExpectWithin(Sweep([](float x) { return FastAsin(x); }, [](double x) { return std::asin(x); },
                     {0.5f, 1.0f}),
               2e-7, 2.5);
}

TEST(FastMath, AcosWithinBoundOverEveryExponent) {
  ExpectWithin(Sweep([](float x) { return FastAcos(x); }, [](double x) { return std::acos(x); },
                     {0.5f, 1.0f}),
               3e-7, 1.5);
}

// The fast trig functions within kFastTrigLimit; beyond it the sweep takes std:: itself (as
// unary.cpp's MapChecked does), so only the fast range counts. Near each multiple of pi/2 the
// reduction cancels most digits of x: the 4096 floats around 1, 2 and 8000 multiples of pi/2
// (and the limit) check that the three-part pi/2 keeps them.
template <typename Fast, typename Exact>
Worst TrigSweep(Fast fast, Exact exact) {
  const auto within = [fast, exact](float x) {
    return std::fabs(x) <= kFastTrigLimit ? fast(x) : static_cast<float>(exact(x));
  };
  return Sweep(within, exact, {1.57079637f, 3.14159274f, 12566.3711f, kFastTrigLimit});
}

TEST(FastMath, SinWithinBoundUpToTheLimit) {
  ExpectWithin(TrigSweep([](float x) { return FastSin(x); }, [](double x) { return std::sin(x); }),
               1.1e-7, 2.5);
}

TEST(FastMath, CosWithinBoundUpToTheLimit) {
  ExpectWithin(TrigSweep([](float x) { return FastCos(x); }, [](double x) { return std::cos(x); }),
               1.1e-7, 2.5);
}

TEST(FastMath, TanWithinBoundUpToTheLimit) {
  ExpectWithin(TrigSweep([](float x) { return FastTan(x); }, [](double x) { return std::tan(x); }),
               std::numeric_limits<double>::infinity(), 4.0);  // unbounded: ULPs only
}

TEST(FastMath, SinhWithinBoundOverEveryExponent) {
  // 88: the expm1 / e^(|x|/2) split; 89.4: where sinh overflows.
  ExpectWithin(Sweep([](float x) { return FastSinh(x); }, [](double x) { return std::sinh(x); },
                     {88.0f, 89.4f}),
               std::numeric_limits<double>::infinity(), 3.0);
}

TEST(FastMath, CoshWithinBoundOverEveryExponent) {
  ExpectWithin(Sweep([](float x) { return FastCosh(x); }, [](double x) { return std::cosh(x); },
                     {88.0f, 89.4f}),
               std::numeric_limits<double>::infinity(), 3.0);
}

TEST(FastMath, SpecialValues) {
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float max = std::numeric_limits<float>::max();
  EXPECT_TRUE(std::isnan(FastErf(nan)));
  EXPECT_TRUE(std::isnan(FastTanh(nan)));
  EXPECT_TRUE(std::isnan(FastSigmoid(nan)));
  EXPECT_EQ(FastErf(inf), 1.0f);
  EXPECT_EQ(FastErf(-inf), -1.0f);
  EXPECT_EQ(FastErf(max), 1.0f);
  EXPECT_EQ(FastErf(-max), -1.0f);
  EXPECT_EQ(FastTanh(inf), 1.0f);
  EXPECT_EQ(FastTanh(-inf), -1.0f);
  EXPECT_EQ(FastTanh(max), 1.0f);
  EXPECT_EQ(FastTanh(-max), -1.0f);
  EXPECT_EQ(FastSigmoid(inf), 1.0f);
  EXPECT_EQ(FastSigmoid(-inf), 0.0f);
  EXPECT_EQ(FastSigmoid(0.0f), 0.5f);
  // erf and tanh keep the sign of zero; tanh returns tiny inputs as they are.
  EXPECT_TRUE(std::signbit(FastErf(-0.0f)) && FastErf(-0.0f) == 0.0f);
  EXPECT_TRUE(!std::signbit(FastErf(0.0f)) && FastErf(0.0f) == 0.0f);
  EXPECT_TRUE(std::signbit(FastTanh(-0.0f)) && FastTanh(-0.0f) == 0.0f);
  EXPECT_TRUE(!std::signbit(FastTanh(0.0f)) && FastTanh(0.0f) == 0.0f);
  EXPECT_TRUE(std::isnan(FastExpm1(nan)));
  EXPECT_EQ(FastExpm1(-inf), -1.0f);
  EXPECT_EQ(FastExpm1(inf), inf);
  EXPECT_EQ(FastExpm1(0.0f), 0.0f);
  EXPECT_EQ(FastExpm1(-1e-30f), -1e-30f);
  EXPECT_TRUE(std::isnan(FastLog(nan)));
  EXPECT_TRUE(std::isnan(FastLog(-1.0f)));
  EXPECT_TRUE(std::isnan(FastLog(-inf)));
  EXPECT_TRUE(std::isnan(FastLog(-std::numeric_limits<float>::denorm_min())));
  EXPECT_EQ(FastLog(0.0f), -inf);
  EXPECT_EQ(FastLog(-0.0f), -inf);
  EXPECT_EQ(FastLog(inf), inf);
  EXPECT_EQ(FastLog(1.0f), 0.0f);
  EXPECT_FLOAT_EQ(FastLog(std::numeric_limits<float>::denorm_min()), -103.27893f);
  EXPECT_FLOAT_EQ(FastLog(max), 88.7228394f);
  EXPECT_TRUE(std::isnan(FastAtan(nan)));
  EXPECT_TRUE(std::isnan(FastAsin(nan)));
  EXPECT_TRUE(std::isnan(FastAcos(nan)));
  EXPECT_FLOAT_EQ(FastAtan(inf), static_cast<float>(M_PI / 2));
  EXPECT_FLOAT_EQ(FastAtan(-inf), static_cast<float>(-M_PI / 2));
  EXPECT_FLOAT_EQ(FastAtan(max), static_cast<float>(M_PI / 2));
  for (const float x : {1.0000001f, -1.0000001f, 2.0f, -1e30f, inf, -inf}) {
    EXPECT_TRUE(std::isnan(FastAsin(x))) << x;
    EXPECT_TRUE(std::isnan(FastAcos(x))) << x;
  }
  EXPECT_FLOAT_EQ(FastAsin(1.0f), static_cast<float>(M_PI / 2));
  EXPECT_FLOAT_EQ(FastAsin(-1.0f), static_cast<float>(-M_PI / 2));
  EXPECT_EQ(FastAcos(1.0f), 0.0f);
  EXPECT_FLOAT_EQ(FastAcos(-1.0f), static_cast<float>(M_PI));
  EXPECT_FLOAT_EQ(FastAcos(0.0f), static_cast<float>(M_PI / 2));
  // atan and asin keep the sign of zero.
  EXPECT_TRUE(std::signbit(FastAtan(-0.0f)) && FastAtan(-0.0f) == 0.0f);
  EXPECT_TRUE(!std::signbit(FastAtan(0.0f)) && FastAtan(0.0f) == 0.0f);
  EXPECT_TRUE(std::signbit(FastAsin(-0.0f)) && FastAsin(-0.0f) == 0.0f);
  EXPECT_TRUE(!std::signbit(FastAsin(0.0f)) && FastAsin(0.0f) == 0.0f);
  // sin, tan and sinh keep the sign of zero; cos(±0) = cosh(±0) = 1.
  for (const float zero : {0.0f, -0.0f}) {
    EXPECT_TRUE(FastSin(zero) == 0.0f && std::signbit(FastSin(zero)) == std::signbit(zero));
    EXPECT_TRUE(FastTan(zero) == 0.0f && std::signbit(FastTan(zero)) == std::signbit(zero));
    EXPECT_TRUE(FastSinh(zero) == 0.0f && std::signbit(FastSinh(zero)) == std::signbit(zero));
    EXPECT_EQ(FastCos(zero), 1.0f);
    EXPECT_EQ(FastCosh(zero), 1.0f);
  }
  EXPECT_TRUE(std::isnan(FastSinh(nan)));
  EXPECT_TRUE(std::isnan(FastCosh(nan)));
  EXPECT_EQ(FastSinh(inf), inf);
  EXPECT_EQ(FastSinh(-inf), -inf);
  EXPECT_EQ(FastSinh(90.0f), inf);
  EXPECT_EQ(FastCosh(inf), inf);
  EXPECT_EQ(FastCosh(-inf), inf);
  EXPECT_EQ(FastCosh(-90.0f), inf);
  const float tiny = std::numeric_limits<float>::denorm_min();
  EXPECT_EQ(FastTanh(tiny), tiny);
  EXPECT_EQ(FastTanh(-1e-20f), -1e-20f);
}

TEST(FastMath, FloatSelectPicksByCondition) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  EXPECT_EQ(FloatSelect(true, 1.5f, -2.0f), 1.5f);
  EXPECT_EQ(FloatSelect(false, 1.5f, -2.0f), -2.0f);
  EXPECT_TRUE(std::signbit(FloatSelect(true, -0.0f, 0.0f)));
  EXPECT_TRUE(std::isnan(FloatSelect(false, 1.0f, nan)));
}

}  // namespace
}  // namespace nxrt::cpu::math
