// ep/cpu/math/half_convert.cpp: see half_convert.h.
#include "ep/cpu/math/half_convert.h"

#include <immintrin.h>

#include "core/cpu_features.h"

namespace nxrt::cpu::math {
namespace {

__attribute__((target("avx512f,f16c"))) int64_t HalfToFloatAvx512(const Float16* in, float* out,
                                                                   int64_t count) {
  int64_t i = 0;
  for (; i + 16 <= count; i += 16) {
    const __m256i h = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(in + i));
    _mm512_storeu_ps(out + i, _mm512_cvtph_ps(h));
  }
  return i;
}

__attribute__((target("avx512f,f16c"))) int64_t FloatToHalfAvx512(const float* in, Float16* out,
                                                                   int64_t count) {
  int64_t i = 0;
  for (; i + 16 <= count; i += 16) {
    const __m256i h = _mm512_cvtps_ph(_mm512_loadu_ps(in + i), _MM_FROUND_TO_NEAREST_INT);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + i), h);
  }
  return i;
}

__attribute__((target("avx512f"))) int64_t BFloat16ToFloatAvx512(const BFloat16* in, float* out,
                                                                  int64_t count) {
  int64_t i = 0;
  for (; i + 16 <= count; i += 16) {
    const __m256i b = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(in + i));
    const __m512i wide = _mm512_slli_epi32(_mm512_cvtepu16_epi32(b), 16);
    _mm512_storeu_si512(out + i, wide);
  }
  return i;
}

// BFloat16::FromFloat on 16 lanes: NaN → (bits >> 16) | 0x40, else (bits + 0x7FFF + lsb) >> 16.
__attribute__((target("avx512f"))) int64_t FloatToBFloat16Avx512(const float* in, BFloat16* out,
                                                                  int64_t count) {
  const __m512i abs_mask = _mm512_set1_epi32(0x7FFFFFFF);
  const __m512i inf = _mm512_set1_epi32(0x7F800000);
  const __m512i bias = _mm512_set1_epi32(0x7FFF);
  const __m512i one = _mm512_set1_epi32(1);
  const __m512i quiet = _mm512_set1_epi32(0x40);
  int64_t i = 0;
  for (; i + 16 <= count; i += 16) {
    const __m512i f = _mm512_loadu_si512(in + i);
    const __mmask16 nan =
        _mm512_cmpgt_epu32_mask(_mm512_and_si512(f, abs_mask), inf);
    const __m512i lsb = _mm512_and_si512(_mm512_srli_epi32(f, 16), one);
    __m512i r = _mm512_srli_epi32(_mm512_add_epi32(f, _mm512_add_epi32(bias, lsb)), 16);
    r = _mm512_mask_or_epi32(r, nan, _mm512_srli_epi32(f, 16), quiet);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + i), _mm512_cvtepi32_epi16(r));
  }
  return i;
}

__attribute__((target("avx2,f16c"))) int64_t HalfToFloatAvx2(const Float16* in, float* out,
                                                              int64_t count) {
  int64_t i = 0;
  for (; i + 8 <= count; i += 8) {
    const __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i*>(in + i));
    _mm256_storeu_ps(out + i, _mm256_cvtph_ps(h));
  }
  return i;
}

__attribute__((target("avx2,f16c"))) int64_t FloatToHalfAvx2(const float* in, Float16* out,
                                                              int64_t count) {
  int64_t i = 0;
  for (; i + 8 <= count; i += 8) {
    const __m128i h = _mm256_cvtps_ph(_mm256_loadu_ps(in + i), _MM_FROUND_TO_NEAREST_INT);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i), h);
  }
  return i;
}

__attribute__((target("avx2"))) int64_t BFloat16ToFloatAvx2(const BFloat16* in, float* out,
                                                             int64_t count) {
  int64_t i = 0;
  for (; i + 8 <= count; i += 8) {
    const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(in + i));
    const __m256i wide = _mm256_slli_epi32(_mm256_cvtepu16_epi32(b), 16);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + i), wide);
  }
  return i;
}

// FloatToBFloat16Avx512 on 8 lanes; the 32-bit results are packed to 16 bits with unsigned
// saturation, which keeps them (each is below 0x10000).
__attribute__((target("avx2"))) int64_t FloatToBFloat16Avx2(const float* in, BFloat16* out,
                                                             int64_t count) {
  const __m256i abs_mask = _mm256_set1_epi32(0x7FFFFFFF);
  const __m256i inf = _mm256_set1_epi32(0x7F800000);
  const __m256i bias = _mm256_set1_epi32(0x7FFF);
  const __m256i one = _mm256_set1_epi32(1);
  const __m256i quiet = _mm256_set1_epi32(0x40);
  int64_t i = 0;
  for (; i + 8 <= count; i += 8) {
    const __m256i f = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(in + i));
    // |f| > inf as signed 32-bit integers (both are non-negative): NaN.
    const __m256i nan = _mm256_cmpgt_epi32(_mm256_and_si256(f, abs_mask), inf);
    const __m256i high = _mm256_srli_epi32(f, 16);
    const __m256i lsb = _mm256_and_si256(high, one);
    const __m256i rounded = _mm256_srli_epi32(_mm256_add_epi32(f, _mm256_add_epi32(bias, lsb)), 16);
    const __m256i r = _mm256_blendv_epi8(rounded, _mm256_or_si256(high, quiet), nan);
    const __m256i packed = _mm256_packus_epi32(r, r);  // per 128-bit lane: r0..3 r0..3 | r4..7 ..
    const __m128i lo = _mm256_castsi256_si128(packed);
    const __m128i hi = _mm256_extracti128_si256(packed, 1);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i), _mm_unpacklo_epi64(lo, hi));
  }
  return i;
}

// The first elements the vector loops converted: AVX-512 when the CPU has it, else AVX2+F16C,
// else none.
template <typename In, typename Out>
int64_t Vector(int64_t (*avx512)(const In*, Out*, int64_t),
               int64_t (*avx2)(const In*, Out*, int64_t), const In* in, Out* out, int64_t count) {
  if (CpuHasAvx512()) return avx512(in, out, count);
  if (CpuHasAvx2F16c()) return avx2(in, out, count);
  return 0;
}

}  // namespace

void HalfToFloat(const Float16* in, float* out, int64_t count) {
  int64_t i = Vector(HalfToFloatAvx512, HalfToFloatAvx2, in, out, count);
  for (; i < count; ++i) out[i] = static_cast<float>(in[i]);
}

void FloatToHalf(const float* in, Float16* out, int64_t count) {
  int64_t i = Vector(FloatToHalfAvx512, FloatToHalfAvx2, in, out, count);
  for (; i < count; ++i) out[i] = Float16(in[i]);
}

void BFloat16ToFloat(const BFloat16* in, float* out, int64_t count) {
  int64_t i = Vector(BFloat16ToFloatAvx512, BFloat16ToFloatAvx2, in, out, count);
  for (; i < count; ++i) out[i] = static_cast<float>(in[i]);
}

void FloatToBFloat16(const float* in, BFloat16* out, int64_t count) {
  int64_t i = Vector(FloatToBFloat16Avx512, FloatToBFloat16Avx2, in, out, count);
  for (; i < count; ++i) out[i] = BFloat16(in[i]);
}

}  // namespace nxrt::cpu::math
