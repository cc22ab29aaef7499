// ep/cpu/math/fast_math.h: erf, tanh, the logistic sigmoid, e^x - 1, log, atan, asin and acos
// for float32, written so that loops over arrays vectorise.
//
// Layer: nxrt_cpu_math (header only). Like FastExp (fast_exp.h) these are inline arithmetic with
// no branch and no library call: every piece is computed and the answer picked with FloatSelect,
// so GCC 12 at -O3 turns a loop over them into SIMD code (4 floats per SSE2 instruction with the
// project's flags, 8 with AVX2).
//   FastErf      |x| < 0.875: x + x·Q(x²), Q of degree 5 (relative minimax error 8.5e-9);
//                |x| >= 0.875: ±(1 - e^p(|x|)), p of degree 6 fitted to log erfc(x) on
//                [0.875, 4] (error of e^p 1.8e-9), |x| clamped to 4 where erf rounds to 1.
//   FastTanh     |x| < 0.875: x + x³·P(x²), P of degree 5 (relative minimax error 1.1e-8);
//                |x| >= 0.875: ±(1 - 2 / (e^(2|x|) + 1)) with FastExp.
//   FastSigmoid  1 / (1 + e^-x) with FastExp.
//   FastExpm1    |x| < 0.5: x + x²·P(x), P the Taylor series of (e^x - 1 - x) / x² to degree 7
//                (truncation x^10/10! < 2.7e-10); |x| >= 0.5: FastExp(x) - 1.
//   FastLog      x = 2^e·m with m in [sqrt(1/2), sqrt(2)) (subnormals scaled by 2^23 first),
//                log m = 2·atanh(s) with s = (m - 1) / (m + 1), |s| <= 0.172, as the series
//                2s·(1 + s²/3 + s⁴/5 + s⁶/7 + s⁸/9) (truncation below 2.1e-9 relative), plus e·ln2.
//   FastAtan     |x| reduced to t in [-tan(pi/8), tan(pi/8)] (t = |x| below tan(pi/8), (|x| - 1) /
//                (|x| + 1) plus pi/4 up to tan(3pi/8), -1/|x| plus pi/2 above), then t + t³·P(t²),
//                P of degree 4 (relative minimax error 6.7e-10).
//   FastAsin     |x| <= 0.5: x + x³·P(x²), P of degree 4 (relative minimax error 4.8e-9);
//                |x| > 0.5: ±(pi/2 - 2·asin(sqrt((1 - |x|) / 2))) with the same polynomial.
//   FastAcos     pi/2 - asin(x) for |x| <= 0.5, 2·asin(sqrt((1 - x) / 2)) above 0.5 and
//                pi - 2·asin(sqrt((1 + x) / 2)) below -0.5, so no digits cancel near ±1.
//   FastSin, FastCos, FastTan  for |x| <= kFastTrigLimit only (the caller takes std:: beyond):
//                x = j·pi/2 + r with j = round(x·2/pi) and |r| <= pi/4, r = x - j·P1 - j·P2 - j·P3
//                - j·P4 (Cody-Waite: P1, P2 and P3 hold 11 bits of pi/2 each, so their products
//                with j < 2^13 are exact, P4 the next 24 bits); sin r = r + r³·S(r²) and
//                cos r = 1 - r²/2 + r⁴·C(r²) by their Taylor series to r⁹ and r¹⁰ (truncation
//                below 2.5e-9 and 1.2e-10 on [-pi/4, pi/4]), then the quadrant j mod 4 picks
//                ±sin r or ±cos r (tan: sin r / cos r or -cos r / sin r).
//   FastSinh     |x| < 88: (E + E / (E + 1)) / 2 with E = e^|x| - 1 (FastExpm1), which equals
//                (e^|x| - e^-|x|) / 2 and keeps the digits near 0; |x| >= 88, where e^|x| is close
//                to overflowing: (h / 2)·h with h = e^(|x|/2), finite up to the true overflow at
//                89.4.
//   FastCosh     |x| < 88: e / 2 + 1 / (2·e) with e = e^|x|; beyond: (h / 2)·h as FastSinh.
//   pi/4, pi/2 and pi enter as a float plus the remainder float rounding left off.
// The coefficients are minimax fits (Lawson's iteration) rounded to float.
// Accuracy, measured against std::erf, std::tanh, 1 / (1 + exp(-x)), std::atan, std::asin and
// std::acos in double over all 2^32 bit patterns (atan, asin, acos: every 97th, as the test
// sweeps); ULPs are those of the float nearest the exact value, where that is normal:
//   FastErf      max abs error 8.3e-8, max relative error 1.1e-7, 1.38 ULP (all at x = 0.8762)
//   FastTanh     max abs error 6.9e-8, max relative error 1.0e-7, 1.15 ULP
//   FastSigmoid  max abs error 8.9e-8, max relative error 1.6e-7, 2.48 ULP; for x < -87.3 the
//                result is 0 where the exact value is below 1.2e-38
//   FastExpm1    max relative error 1.4e-7, 2.08 ULP (every 97th pattern, as the test sweeps)
//   FastLog      1.90 ULP (every 97th pattern); abs error up to 3.9e-6 where |log x| is near 87
//   FastAtan     max abs error 1.0e-7, 1.82 ULP (at x = 0.4536)
//   FastAsin     max abs error 1.4e-7, 2.37 ULP (at x = 0.5014: the rounding of the sqrt)
//   FastAcos     max abs error 2.4e-7, 1.13 ULP
//   FastSin      max abs error 1.0e-7, 2.33 ULP (|x| <= kFastTrigLimit, every 97th pattern)
//   FastCos      max abs error 1.0e-7, 2.09 ULP (the same)
//   FastTan      3.67 ULP (the same)
//   FastSinh, FastCosh  within 3 ULP (every 97th pattern); both overflow to inf where float does
// Special values: NaN → NaN; erf and tanh of ±inf are ±1, sigmoid of -inf is 0 and of +inf is 1,
// expm1 of -inf is -1 and of -0 is +0; log of ±0 is -inf, of +inf +inf and of x < 0 NaN;
// atan of ±inf is ±pi/2; asin and acos of |x| > 1 are NaN; erf, tanh, atan, asin, sin, tan and
// sinh keep the sign of zero; sinh and cosh of ±inf are ±inf and +inf. The sqrt in FastAsin and
// FastAcos vectorises only where errno is not set (-fno-math-errno, as elementwise/unary.cpp
// builds).
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>

#include "ep/cpu/math/fast_exp.h"

namespace nxrt::cpu::math {

inline float FastErf(float x) {
  constexpr float kSplit = 0.875f;  // below: the odd polynomial; above: 1 - e^p
  constexpr float kClamp = 4.0f;    // 1 - erf(4) = 1.5e-8 rounds to 1 in float
  const float t = x * x;
  float q = -6.20325038e-4f;
  q = q * t + 5.03218034e-3f;
  q = q * t + -2.67914627e-2f;
  q = q * t + 1.12824552e-1f;
  q = q * t + -3.76125515e-1f;
  q = q * t + 1.28379151e-1f;  // close to 2/sqrt(pi) - 1, the slope of erf at 0 less 1
  const float near_zero = x + x * q;
  const float ax = std::fabs(x);
  const float a = FloatSelect(ax > kClamp, kClamp, ax);  // NaN stays NaN
  float p = 1.99901377e-4f;
  p = p * a + -3.08199599e-3f;
  p = p * a + 2.23810300e-2f;
  p = p * a + -1.04250200e-1f;
  p = p * a + -6.36820674e-1f;
  p = p * a + -1.12788939e+0f;
  p = p * a + -1.44210571e-4f;
  const float tail = 1.0f - FastExpInRange(p);  // p in [-19, 0] for a in [0, 4]
  return std::copysign(FloatSelect(ax < kSplit, near_zero, tail), x);  // tail is |erf x|
}

inline float FastTanh(float x) {
  constexpr float kSplit = 0.875f;  // below: the odd polynomial; above: 1 - 2 / (e^2|x| + 1)
  const float t = x * x;
  float p = 1.37098774e-3f;
  p = p * t + -7.00324727e-3f;
  p = p * t + 2.10171025e-2f;
  p = p * t + -5.37616014e-2f;
  p = p * t + 1.33309752e-1f;
  p = p * t + -3.33332419e-1f;  // close to -1/3, the x³ coefficient of tanh's Taylor series
  const float near_zero = x + x * t * p;
  const float ax = std::fabs(x);
  const float e = FastExp(2.0f * ax);  // +inf for |x| > 44.4: the tail is then exactly 1
  const float tail = 1.0f - 2.0f / (e + 1.0f);
  // tail is |tanh x|; near_zero has x's sign except for x = -0, where -0 + x·t·p is +0.
  return std::copysign(FloatSelect(ax < kSplit, near_zero, tail), x);
}

inline float FastSigmoid(float x) { return 1.0f / (1.0f + FastExp(-x)); }

inline float FastExpm1(float x) {
  float p = 1.0f / 362880.0f;
  p = p * x + 1.0f / 40320.0f;
  p = p * x + 1.0f / 5040.0f;
  p = p * x + 1.0f / 720.0f;
  p = p * x + 1.0f / 120.0f;
  p = p * x + 1.0f / 24.0f;
  p = p * x + 1.0f / 6.0f;
  p = p * x + 0.5f;
  const float near_zero = x + x * (x * p);
  return FloatSelect(std::fabs(x) < 0.5f, near_zero, FastExp(x) - 1.0f);  // NaN: the far piece
}

inline float FastLog(float x) {
  constexpr float kSqrt2 = 1.41421356f;
  constexpr float kLn2Hi = 0.693145751953125f;      // ln 2 with its low 13 bits cleared
  constexpr float kLn2Lo = 1.42860682030941723e-6f;  // ln 2 - kLn2Hi
  const bool subnormal = x < 1.17549435e-38f;        // also 0 and negatives, fixed up below
  const float scaled = FloatSelect(subnormal, x * 8388608.0f, x);  // 2^23
  const int32_t bits = std::bit_cast<int32_t>(scaled);
  int32_t e = ((bits >> 23) & 0xff) - 127 - (subnormal ? 23 : 0);
  float m = std::bit_cast<float>((bits & 0x007fffff) | 0x3f800000);  // [1, 2)
  const bool high = m > kSqrt2;
  m = FloatSelect(high, 0.5f * m, m);
  e += high ? 1 : 0;
  const float s = (m - 1.0f) / (m + 1.0f);
  const float z = s * s;
  float p = 1.0f / 9.0f;
  p = p * z + 1.0f / 7.0f;
  p = p * z + 1.0f / 5.0f;
  p = p * z + 1.0f / 3.0f;
  const float two_s = 2.0f * s;
  const auto ef = static_cast<float>(e);
  const float result = ef * kLn2Hi + (two_s + (two_s * z * p + ef * kLn2Lo));
  const float inf = __builtin_inff();
  // x = 0: -inf; x < 0 or NaN: NaN; x = +inf: +inf.
  return FloatSelect(x == 0.0f, -inf,
                     FloatSelect(x > 0.0f, FloatSelect(x == inf, inf, result), __builtin_nanf("")));
}

namespace fast_math_internal {

// pi/4, pi/2 and pi rounded to float, and the remainders (exact value less the float).
inline constexpr float kPi4 = 0.785398185f;
inline constexpr float kPi4Lo = -2.18556950e-8f;
inline constexpr float kPi2 = 1.57079637f;
inline constexpr float kPi2Lo = -4.37113901e-8f;
inline constexpr float kPi = 3.14159274f;
inline constexpr float kPiLo = -8.74227801e-8f;

// asin(s) for s in [0, 0.5] given z = s², as s + s³·P(z).
inline float AsinNearZero(float s, float z) {
  float p = 4.21672240e-2f;
  p = p * z + 2.41790153e-2f;
  p = p * z + 4.54704687e-2f;
  p = p * z + 7.49529675e-2f;
  p = p * z + 1.66667521e-1f;  // close to 1/6, the s³ coefficient of asin's Taylor series
  return s + s * z * p;
}

// asin(|x|) reduced to [0, 0.5]: r = asin(s) with s = |x| (|x| <= 0.5) or
// s = sqrt((1 - |x|) / 2) (|x| > 0.5, where asin(|x|) = pi/2 - 2r). NaN for |x| > 1 and NaN.
inline float AsinReduced(float ax, bool far) {
  const float half_gap = 0.5f * (1.0f - ax);
  const float z = FloatSelect(far, half_gap, ax * ax);
  const float s = FloatSelect(far, std::sqrt(half_gap), ax);
  return AsinNearZero(s, z);
}

}  // namespace fast_math_internal

inline float FastAtan(float x) {
  using namespace fast_math_internal;
  constexpr float kTanPi8 = 0.414213562f;   // tan(pi/8)
  constexpr float kTan3Pi8 = 2.41421356f;   // tan(3pi/8)
  const float ax = std::fabs(x);
  const bool above = ax > kTan3Pi8;
  const bool middle = ax > kTanPi8;
  // One division for all three pieces: t = num / den.
  const float num = FloatSelect(above, -1.0f, FloatSelect(middle, ax - 1.0f, ax));
  const float den = FloatSelect(above, ax, FloatSelect(middle, ax + 1.0f, 1.0f));
  const float t = num / den;  // -0 for |x| = inf, NaN for NaN
  // pi/2 and pi/4 as float plus what float rounding left off, added to the small part first.
  const float offset = FloatSelect(above, kPi2, FloatSelect(middle, kPi4, 0.0f));
  const float offset_lo = FloatSelect(above, kPi2Lo, FloatSelect(middle, kPi4Lo, 0.0f));
  const float z = t * t;
  float p = -6.07814714e-2f;
  p = p * z + 1.05937861e-1f;
  p = p * z + -1.42435297e-1f;
  p = p * z + 1.99984714e-1f;
  p = p * z + -3.33333164e-1f;  // close to -1/3, the t³ coefficient of atan's Taylor series
  return std::copysign(offset + (t + (t * z * p + offset_lo)), x);
}

inline float FastAsin(float x) {
  using namespace fast_math_internal;
  const float ax = std::fabs(x);
  const bool far = ax > 0.5f;
  const float r = AsinReduced(ax, far);
  return std::copysign(FloatSelect(far, kPi2 - (2.0f * r - kPi2Lo), r), x);
}

inline float FastAcos(float x) {
  using namespace fast_math_internal;
  const float ax = std::fabs(x);
  const bool far = ax > 0.5f;
  const float r = AsinReduced(ax, far);
  const float far_value = FloatSelect(x > 0.0f, 2.0f * r, kPi - (2.0f * r - kPiLo));
  return FloatSelect(far, far_value, kPi2 - (std::copysign(r, x) - kPi2Lo));
}

// The largest |x| FastSin, FastCos and FastTan take: j = round(x·2/pi) stays below 2^13, where
// j·P1 and j·P2 are exact. Beyond it (and for inf and NaN) their results are meaningless.
inline constexpr float kFastTrigLimit = 12800.0f;

namespace fast_math_internal {

// sin r, cos r for |r| <= pi/4, and the quadrant j mod 4 of x = j·pi/2 + r.
struct TrigReduced {
  float sin;
  float cos;
  int32_t quadrant;
};

inline TrigReduced ReduceTrig(float x) {
  constexpr float kTwoOverPi = 0.636619772f;
  constexpr float kRound = 12582912.0f;  // 1.5·2^23: adding it rounds to an integer
  // pi/2 = kP1 + kP2 + kP3 + kP4 + 8.3e-20; kP1..kP3 hold 11 bits each.
  constexpr float kP1 = 1.5703125f;
  constexpr float kP2 = 4.837512969970703125e-4f;
  constexpr float kP3 = 7.54953362047672271728515625e-8f;
  constexpr float kP4 = 2.5633440683e-12f;
  const float shifted = x * kTwoOverPi + kRound;
  const float j = shifted - kRound;
  const int32_t quadrant = (std::bit_cast<int32_t>(shifted) - std::bit_cast<int32_t>(kRound)) & 3;
  const float r = (((x - j * kP1) - j * kP2) - j * kP3) - j * kP4;
  const float z = r * r;
  float s = 1.0f / 362880.0f;
  s = s * z - 1.0f / 5040.0f;
  s = s * z + 1.0f / 120.0f;
  s = s * z - 1.0f / 6.0f;
  float c = -1.0f / 3628800.0f;
  c = c * z + 1.0f / 40320.0f;
  c = c * z - 1.0f / 720.0f;
  c = c * z + 1.0f / 24.0f;
  // sin r has the sign of r, also for r = -0 (where r·z·s is +0).
  return {std::copysign(r + r * z * s, r), 1.0f - 0.5f * z + z * z * c, quadrant};
}

// -v when bit `bit` of `quadrant` is set, v otherwise (a sign flip on the bits).
inline float NegateIf(int32_t quadrant, int32_t bit, float v) {
  const auto flip = static_cast<uint32_t>((quadrant >> bit) & 1) << 31;
  return std::bit_cast<float>(std::bit_cast<uint32_t>(v) ^ flip);
}

}  // namespace fast_math_internal

inline float FastSin(float x) {
  using namespace fast_math_internal;
  const TrigReduced t = ReduceTrig(x);
  // Quadrants 0..3: sin r, cos r, -sin r, -cos r.
  return NegateIf(t.quadrant, 1, FloatSelect((t.quadrant & 1) != 0, t.cos, t.sin));
}

inline float FastCos(float x) {
  using namespace fast_math_internal;
  const TrigReduced t = ReduceTrig(x);
  // Quadrants 0..3: cos r, -sin r, -cos r, sin r.
  return NegateIf(t.quadrant + 1, 1, FloatSelect((t.quadrant & 1) != 0, t.sin, t.cos));
}

inline float FastTan(float x) {
  using namespace fast_math_internal;
  const TrigReduced t = ReduceTrig(x);
  const bool odd = (t.quadrant & 1) != 0;
  // Even quadrants: sin r / cos r; odd: -cos r / sin r.
  return FloatSelect(odd, -t.cos, t.sin) / FloatSelect(odd, t.sin, t.cos);
}

namespace fast_math_internal {

// The split of FastSinh and FastCosh: below, e^|x| is finite; above, (h / 2)·h with h = e^(|x|/2).
inline constexpr float kHyperbolicSplit = 88.0f;

inline float HalfSquare(float ax) {
  const float h = FastExp(0.5f * ax);  // +inf from |x| = 177.4 on
  return (0.5f * h) * h;
}

}  // namespace fast_math_internal

inline float FastSinh(float x) {
  using namespace fast_math_internal;
  const float ax = std::fabs(x);
  const float e = FastExpm1(ax);
  const float near = 0.5f * (e + e / (e + 1.0f));
  return std::copysign(FloatSelect(ax < kHyperbolicSplit, near, HalfSquare(ax)), x);
}

inline float FastCosh(float x) {
  using namespace fast_math_internal;
  const float ax = std::fabs(x);
  const float e = FastExp(ax);
  return FloatSelect(ax < kHyperbolicSplit, 0.5f * e + 0.5f / e, HalfSquare(ax));
}

}  // namespace nxrt::cpu::math
