// ep/cpu/math/half_convert.h: bulk conversions between float16/bfloat16 and float32, the edges of
// the float32 islands the optimizer's insert_cast pass runs half-precision graphs in (their Cast
// nodes and their converted initializers).
//
// Layer: nxrt_cpu_math (shared helper). Results are bit for bit those of Float16 and BFloat16
// (include/nxrt/data_type.h) element by element: round to nearest even; NaN stays NaN (quiet bit
// set, top payload bits kept); infinities and subnormals are kept. On a CPU with AVX-512F
// (core/cpu_features.h) the loops run 16 lanes at a time, with AVX2 and F16C 8 lanes
// (vcvtph2ps/vcvtps2ph for float16, integer rounding for bfloat16, which needs no AVX512-BF16);
// otherwise, and for the tail, element by element.
// `in` and `out` must not overlap.
#pragma once

#include <cstdint>

#include "nxrt/data_type.h"

namespace nxrt::cpu::math {

void HalfToFloat(const Float16* in, float* out, int64_t count);
void FloatToHalf(const float* in, Float16* out, int64_t count);
void BFloat16ToFloat(const BFloat16* in, float* out, int64_t count);
void FloatToBFloat16(const float* in, BFloat16* out, int64_t count);

// The same conversions named by the half type, for code templated on it.
inline void ToFloat(const Float16* in, float* out, int64_t count) { HalfToFloat(in, out, count); }
inline void ToFloat(const BFloat16* in, float* out, int64_t count) {
  BFloat16ToFloat(in, out, count);
}
inline void FromFloat(const float* in, Float16* out, int64_t count) {
  FloatToHalf(in, out, count);
}
inline void FromFloat(const float* in, BFloat16* out, int64_t count) {
  FloatToBFloat16(in, out, count);
}

}  // namespace nxrt::cpu::math
