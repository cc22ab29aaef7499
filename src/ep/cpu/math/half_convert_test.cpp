// ep/cpu/math/half_convert_test.cpp: the bulk float16/bfloat16 ↔ float32 conversions against the
// element-by-element Float16 and BFloat16 of include/nxrt/data_type.h, bit for bit: every one of
// the 65536 half patterns (NaNs, infinities, subnormals) widened, and float32 values around each
// rounding boundary narrowed, at every length 0..40 (the 16-lane blocks and their tails).
#include "ep/cpu/math/half_convert.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

namespace nxrt::cpu::math {
namespace {

bool SameBits(float a, float b) {
  return (std::isnan(a) && std::isnan(b)) || std::bit_cast<uint32_t>(a) == std::bit_cast<uint32_t>(b);
}

TEST(HalfConvert, WideningEveryPatternMatchesTheScalarConversion) {
  std::vector<Float16> half(65536);
  std::vector<BFloat16> brain(65536);
  for (uint32_t i = 0; i < 65536; ++i) {
    half[i] = Float16::FromBits(static_cast<uint16_t>(i));
    brain[i] = BFloat16::FromBits(static_cast<uint16_t>(i));
  }
  std::vector<float> out(65536);
  HalfToFloat(half.data(), out.data(), 65536);
  for (uint32_t i = 0; i < 65536; ++i) {
    ASSERT_TRUE(SameBits(out[i], static_cast<float>(half[i]))) << "float16 bits " << i;
  }
  BFloat16ToFloat(brain.data(), out.data(), 65536);
  for (uint32_t i = 0; i < 65536; ++i) {
    ASSERT_TRUE(SameBits(out[i], static_cast<float>(brain[i]))) << "bfloat16 bits " << i;
  }
}

// Float32 values around every float16 and bfloat16 boundary: each half value, the midpoints to
// its neighbours (ties to even) and one float32 ulp either side, plus NaN, infinities, overflow
// and float32 subnormals.
std::vector<float> NarrowingInputs() {
  std::vector<float> values = {std::numeric_limits<float>::quiet_NaN(),
                               -std::numeric_limits<float>::quiet_NaN(),
                               std::bit_cast<float>(0x7F800001u),  // signalling NaN
                               std::numeric_limits<float>::infinity(),
                               -std::numeric_limits<float>::infinity(),
                               65504.0f, 65519.0f, 65520.0f, 1e10f, -1e10f,
                               std::numeric_limits<float>::max(),
                               std::numeric_limits<float>::denorm_min(), 1e-40f, -0.0f, 0.0f};
  for (uint32_t bits = 0; bits < 65536; bits += 7) {
    for (const float v : {static_cast<float>(Float16::FromBits(static_cast<uint16_t>(bits))),
                          static_cast<float>(BFloat16::FromBits(static_cast<uint16_t>(bits)))}) {
      if (std::isnan(v)) continue;
      values.push_back(v);
      values.push_back(std::nextafter(v, INFINITY));
      values.push_back(std::nextafter(v, -INFINITY));
    }
  }
  for (uint32_t bits = 0; bits < 65535; bits += 5) {
    const float a = static_cast<float>(Float16::FromBits(static_cast<uint16_t>(bits)));
    const float b = static_cast<float>(Float16::FromBits(static_cast<uint16_t>(bits + 1)));
    if (std::isfinite(a) && std::isfinite(b)) values.push_back(0.5f * (a + b));
  }
  return values;
}

TEST(HalfConvert, NarrowingMatchesTheScalarConversionAtEveryTail) {
  const std::vector<float> in = NarrowingInputs();
  std::vector<Float16> half(in.size());
  std::vector<BFloat16> brain(in.size());
  FloatToHalf(in.data(), half.data(), static_cast<int64_t>(in.size()));
  FloatToBFloat16(in.data(), brain.data(), static_cast<int64_t>(in.size()));
  for (size_t i = 0; i < in.size(); ++i) {
    ASSERT_EQ(half[i].bits, Float16(in[i]).bits) << "float16 of " << in[i] << " (#" << i << ")";
    ASSERT_EQ(brain[i].bits, BFloat16(in[i]).bits) << "bfloat16 of " << in[i] << " (#" << i << ")";
  }
  // Lengths 0..40 from an odd offset: the lanes past the last full block use the scalar path,
  // and nothing past `count` is written.
  std::mt19937 rng(16);
  std::uniform_real_distribution<float> dist(-70000.0f, 70000.0f);
  for (int64_t n = 0; n <= 40; ++n) {
    std::vector<float> x(static_cast<size_t>(n) + 1);
    for (float& v : x) v = dist(rng);
    std::vector<Float16> h(static_cast<size_t>(n) + 2, Float16::FromBits(0x1234));
    FloatToHalf(x.data() + 1, h.data() + 1, n);
    EXPECT_EQ(h[0].bits, 0x1234);
    EXPECT_EQ(h[static_cast<size_t>(n) + 1].bits, 0x1234) << "length " << n;
    std::vector<float> back(static_cast<size_t>(n) + 2, 7.0f);
    HalfToFloat(h.data() + 1, back.data() + 1, n);
    EXPECT_EQ(back[static_cast<size_t>(n) + 1], 7.0f) << "length " << n;
    for (int64_t i = 0; i < n; ++i) {
      const size_t k = static_cast<size_t>(i) + 1;
      ASSERT_EQ(h[k].bits, Float16(x[k]).bits) << "length " << n << " element " << i;
      ASSERT_TRUE(SameBits(back[k], static_cast<float>(Float16(x[k]))));
    }
  }
}

}  // namespace
}  // namespace nxrt::cpu::math
