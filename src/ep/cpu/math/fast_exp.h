// ep/cpu/math/fast_exp.h: e^x for float32 written so that loops over arrays vectorise.
//
// Layer: nxrt_cpu_math (header only). std::exp is a library call per element; this is inline
// arithmetic the compiler turns into SIMD code: x = n·ln2 + r with |r| <= ln2/2 (n = round(x·log2 e)
// by the 1.5·2^23 rounding trick, no float→int conversion), e^r by its Taylor series to degree 7
// (truncation error r^8/8! < 6e-9, below float's half-ULP 6e-8), 2^n by building exponent bits.
// Accuracy: within 2 ULP of std::exp for every finite x. Special values match std::exp: NaN → NaN,
// x < -87.3 → 0 (std::exp gives a subnormal or 0 there), x > 88.7 → +inf, -inf → 0, +inf → +inf.
// FastExpInRange is the same function for callers whose x is known to lie in [-87.3, 88] (FastErf's
// tail), a few instructions shorter.
//
// The special cases are FloatSelect, not `?:`: under GCC's default -ftrapping-math its
// if-conversion does not compute on every element a float operation that the source computes on
// one arm only, and GCC moves arithmetic into the arms of a `?:` (a clamp followed by a multiply
// already stops it), so a loop with `?:` stays scalar ("control flow in loop").
#pragma once

#include <bit>
#include <cstdint>

namespace nxrt::cpu::math {

// `condition ? if_true : if_false` on the bits, with no branch for the compiler to keep.
inline float FloatSelect(bool condition, float if_true, float if_false) {
  const uint32_t mask = 0u - static_cast<uint32_t>(condition);
  return std::bit_cast<float>((std::bit_cast<uint32_t>(if_true) & mask) |
                              (std::bit_cast<uint32_t>(if_false) & ~mask));
}

namespace fast_exp_internal {

constexpr float kMin = -87.33654f;  // below: e^x would be subnormal
constexpr float kMax = 88.72283f;   // above: e^x overflows

// x = n·ln2 + r with |r| <= ln2/2: e^r by its series (`poly`) and n as exponent bits.
struct Split {
  float poly;
  int32_t n_bits;
};

inline Split SplitExp(float x) {
  constexpr float kLog2e = 1.44269504088896341f;
  constexpr float kLn2Hi = 0.693145751953125f;      // ln 2 with its low 13 bits cleared
  constexpr float kLn2Lo = 1.42860682030941723e-6f;  // ln 2 - kLn2Hi
  constexpr float kRound = 12582912.0f;              // 1.5·2^23: adding it rounds to an integer
  const float shifted = x * kLog2e + kRound;
  const float n = shifted - kRound;
  const float r = x - n * kLn2Hi - n * kLn2Lo;
  float p = 1.0f / 5040.0f;
  p = p * r + 1.0f / 720.0f;
  p = p * r + 1.0f / 120.0f;
  p = p * r + 1.0f / 24.0f;
  p = p * r + 1.0f / 6.0f;
  p = p * r + 0.5f;
  p = p * r + 1.0f;
  p = p * r + 1.0f;
  return {p, std::bit_cast<int32_t>(shifted) - std::bit_cast<int32_t>(kRound)};
}

}  // namespace fast_exp_internal

inline float FastExp(float x) {
  using namespace fast_exp_internal;
  const float clamped = FloatSelect(x < kMin, kMin, FloatSelect(x > kMax, kMax, x));  // NaN stays
  const Split s = SplitExp(clamped);
  // 2^n as 2^(n/2) · 2^(n - n/2): each half is a normal float for every n in [-126, 128].
  const int32_t half = s.n_bits >> 1;
  const float scale_lo = std::bit_cast<float>((half + 127) << 23);
  const float scale_hi = std::bit_cast<float>((s.n_bits - half + 127) << 23);
  const float result = s.poly * scale_lo * scale_hi;  // NaN for a NaN x
  return FloatSelect(x < kMin, 0.0f, FloatSelect(x > kMax, __builtin_inff(), result));
}

// FastExp for x in [-87.3, 88] (or NaN) only, with its bits there: no clamps, and 2^n (n in
// [-126, 127]) as one factor, which scales exactly as FastExp's two do.
inline float FastExpInRange(float x) {
  const fast_exp_internal::Split s = fast_exp_internal::SplitExp(x);
  return s.poly * std::bit_cast<float>((s.n_bits + 127) << 23);
}

}  // namespace nxrt::cpu::math
