// ep/cpu/math/quant/quantize_avx2.h: the AVX2 steps every 8-bit quantizing loop of the CPU EP
// shares: bytes to int32 lanes, float to a saturated int8/uint8 code, and 32 codes back to bytes.
//
// Layer: nxrt_cpu_math (header only, for code in target("avx2") functions; callers check
// CpuHasAvx2). The rounding is ONNX Runtime's (MLAS's QuantizeLinear and requantization on x86):
// v clamped to [Q min - zero_point, Q max - zero_point] with MAXPS/MINPS (a NaN v becomes the lower
// bound), converted with CVTPS2DQ (round half to even in the default MXCSR mode), plus the zero
// point; or, where the zero point is already in v, RoundLanes. Each scalar loop that must agree
// with these steps uses QuantizeScalar or RoundScalar below.
#pragma once

#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

namespace nxrt::cpu::math {

// Q is int8_t or uint8_t.
template <typename Q>
struct QuantizeBounds {
  __m256 lo, hi;
  __m256i zero_point;
};

template <typename Q>
__attribute__((target("avx2"))) inline QuantizeBounds<Q> MakeQuantizeBounds(int32_t zero_point) {
  return {_mm256_set1_ps(static_cast<float>(std::numeric_limits<Q>::min() - zero_point)),
          _mm256_set1_ps(static_cast<float>(std::numeric_limits<Q>::max() - zero_point)),
          _mm256_set1_epi32(zero_point)};
}

// round-half-even(v) + zero point in Q's range, as int32 lanes.
template <typename Q>
__attribute__((target("avx2"))) inline __m256i QuantizeLanes(__m256 v, const QuantizeBounds<Q>& b) {
  v = _mm256_min_ps(_mm256_max_ps(v, b.lo), b.hi);
  return _mm256_add_epi32(_mm256_cvtps_epi32(v), b.zero_point);
}

// v with the zero point already added (as MLAS's QLinearAdd folds it in): round half to even;
// StoreCodes then saturates the lanes to Q's range. MINPS (NaN passes through it) keeps values
// past int32's range from wrapping; a NaN becomes INT32_MIN and so Q's minimum.
template <typename Q>
__attribute__((target("avx2"))) inline __m256i RoundLanes(__m256 v) {
  return _mm256_cvtps_epi32(
      _mm256_min_ps(_mm256_set1_ps(static_cast<float>(std::numeric_limits<Q>::max())), v));
}

// 8 elements of p as int32 lanes.
template <typename Q>
__attribute__((target("avx2"))) inline __m256i LoadLanes(const Q* p) {
  const __m128i bytes = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(p));
  return std::is_same_v<Q, int8_t> ? _mm256_cvtepi8_epi32(bytes) : _mm256_cvtepu8_epi32(bytes);
}

// Stores 32 codes (four vectors of int32 lanes already in Q's range) as y[0..32) in order.
template <typename Q>
__attribute__((target("avx2"))) inline void StoreCodes(Q* y, __m256i q0, __m256i q1, __m256i q2,
                                                       __m256i q3) {
  const __m256i w01 = _mm256_packs_epi32(q0, q1), w23 = _mm256_packs_epi32(q2, q3);
  const __m256i bytes = std::is_same_v<Q, int8_t> ? _mm256_packs_epi16(w01, w23)
                                                  : _mm256_packus_epi16(w01, w23);
  // The packs interleave 128-bit lanes: dwords 0 4 1 5 2 6 3 7 back to 0..7.
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(y),
                      _mm256_permutevar8x32_epi32(bytes, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7)));
}

// The scalar form of QuantizeLanes (same clamp order, same NaN result, round half to even).
template <typename Q>
inline Q QuantizeScalar(float v, int32_t zero_point) {
  const float lo = static_cast<float>(std::numeric_limits<Q>::min() - zero_point);
  const float hi = static_cast<float>(std::numeric_limits<Q>::max() - zero_point);
  v = v > lo ? v : lo;
  v = v < hi ? v : hi;
  return static_cast<Q>(static_cast<int32_t>(std::nearbyint(v)) + zero_point);
}

// The scalar form of RoundLanes followed by StoreCodes.
template <typename Q>
inline Q RoundScalar(float v) {
  if (std::isnan(v)) return std::numeric_limits<Q>::min();
  const float lo = std::numeric_limits<Q>::min(), hi = std::numeric_limits<Q>::max();
  return static_cast<Q>(std::clamp(std::nearbyint(v), lo, hi));
}

}  // namespace nxrt::cpu::math
