// core/data_type_test.cpp: unit tests of DataType lookups and the Float16/BFloat16 conversions.
//
// Expected half bit patterns are IEEE 754 binary16 values; the rounding cases were checked with
// numpy (np.float32(x).astype(np.float16)), which rounds to nearest even. The sweep test compares
// against GCC's _Float16, an independent software conversion.
#include "nxrt/data_type.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <complex>
#include <limits>

namespace nxrt {
namespace {

float FromBits(uint32_t bits) { return std::bit_cast<float>(bits); }

TEST(DataTypeTest, NamesFollowOnnx) {
  EXPECT_EQ(DataTypeName(DataType::kFloat), "float");
  EXPECT_EQ(DataTypeName(DataType::kUint8), "uint8");
  EXPECT_EQ(DataTypeName(DataType::kInt64), "int64");
  EXPECT_EQ(DataTypeName(DataType::kString), "string");
  EXPECT_EQ(DataTypeName(DataType::kBool), "bool");
  EXPECT_EQ(DataTypeName(DataType::kFloat16), "float16");
  EXPECT_EQ(DataTypeName(DataType::kDouble), "double");
  EXPECT_EQ(DataTypeName(DataType::kComplex128), "complex128");
  EXPECT_EQ(DataTypeName(DataType::kBFloat16), "bfloat16");
  EXPECT_EQ(DataTypeName(DataType::kUndefined), "undefined");
  EXPECT_EQ(DataTypeName(DataType::kFloat8E4M3FN), "float8e4m3fn");
  EXPECT_EQ(DataTypeName(DataType::kFloat8E5M2FNUZ), "float8e5m2fnuz");
  EXPECT_EQ(DataTypeName(DataType::kUint4), "uint4");
  EXPECT_EQ(DataTypeName(DataType::kInt4), "int4");
  EXPECT_EQ(DataTypeName(static_cast<DataType>(23)), "undefined");
  EXPECT_EQ(DataTypeName(static_cast<DataType>(-3)), "undefined");
}

TEST(DataTypeTest, Sizes) {
  EXPECT_EQ(DataTypeSize(DataType::kUndefined), 0u);
  EXPECT_EQ(DataTypeSize(DataType::kFloat), 4u);
  EXPECT_EQ(DataTypeSize(DataType::kUint8), 1u);
  EXPECT_EQ(DataTypeSize(DataType::kInt8), 1u);
  EXPECT_EQ(DataTypeSize(DataType::kUint16), 2u);
  EXPECT_EQ(DataTypeSize(DataType::kInt16), 2u);
  EXPECT_EQ(DataTypeSize(DataType::kInt32), 4u);
  EXPECT_EQ(DataTypeSize(DataType::kInt64), 8u);
  EXPECT_EQ(DataTypeSize(DataType::kString), sizeof(std::string));
  EXPECT_EQ(DataTypeSize(DataType::kBool), 1u);
  EXPECT_EQ(DataTypeSize(DataType::kFloat16), 2u);
  EXPECT_EQ(DataTypeSize(DataType::kDouble), 8u);
  EXPECT_EQ(DataTypeSize(DataType::kUint32), 4u);
  EXPECT_EQ(DataTypeSize(DataType::kUint64), 8u);
  EXPECT_EQ(DataTypeSize(DataType::kComplex64), 8u);
  EXPECT_EQ(DataTypeSize(DataType::kComplex128), 16u);
  EXPECT_EQ(DataTypeSize(DataType::kBFloat16), 2u);
  EXPECT_EQ(DataTypeSize(static_cast<DataType>(42)), 0u);
}

TEST(DataTypeTest, FromOnnxNumber) {
  // Numbers from onnx.proto's TensorProto.DataType.
  EXPECT_EQ(DataTypeFromOnnx(1), DataType::kFloat);
  EXPECT_EQ(DataTypeFromOnnx(7), DataType::kInt64);
  EXPECT_EQ(DataTypeFromOnnx(9), DataType::kBool);
  EXPECT_EQ(DataTypeFromOnnx(10), DataType::kFloat16);
  EXPECT_EQ(DataTypeFromOnnx(16), DataType::kBFloat16);
  EXPECT_EQ(DataTypeFromOnnx(0), std::nullopt);
  // ONNX 1.14's float8 and 1.16's 4-bit numbers; 23 (float4e2m1, ONNX 1.18) is unknown.
  EXPECT_EQ(DataTypeFromOnnx(17), DataType::kFloat8E4M3FN);
  EXPECT_EQ(DataTypeFromOnnx(18), DataType::kFloat8E4M3FNUZ);
  EXPECT_EQ(DataTypeFromOnnx(19), DataType::kFloat8E5M2);
  EXPECT_EQ(DataTypeFromOnnx(20), DataType::kFloat8E5M2FNUZ);
  EXPECT_EQ(DataTypeFromOnnx(21), DataType::kUint4);
  EXPECT_EQ(DataTypeFromOnnx(22), DataType::kInt4);
  EXPECT_EQ(DataTypeFromOnnx(23), std::nullopt);
  EXPECT_EQ(DataTypeFromOnnx(-1), std::nullopt);
}

TEST(DataTypeTest, FromName) {
  EXPECT_EQ(DataTypeFromName("float"), DataType::kFloat);
  EXPECT_EQ(DataTypeFromName("tensor(float)"), DataType::kFloat);
  EXPECT_EQ(DataTypeFromName("int64"), DataType::kInt64);
  EXPECT_EQ(DataTypeFromName("tensor(bfloat16)"), DataType::kBFloat16);
  EXPECT_EQ(DataTypeFromName("string"), DataType::kString);
  EXPECT_EQ(DataTypeFromName("undefined"), std::nullopt);
  EXPECT_EQ(DataTypeFromName("float32"), std::nullopt);
  EXPECT_EQ(DataTypeFromName("tensor(float"), std::nullopt);
  EXPECT_EQ(DataTypeFromName(""), std::nullopt);
}

TEST(DataTypeTest, DataTypeOfMapsCppTypes) {
  static_assert(DataTypeOf<float>() == DataType::kFloat);
  static_assert(DataTypeOf<const int64_t>() == DataType::kInt64);
  static_assert(DataTypeOf<Float16>() == DataType::kFloat16);
  static_assert(DataTypeOf<BFloat16>() == DataType::kBFloat16);
  static_assert(DataTypeOf<bool>() == DataType::kBool);
  static_assert(DataTypeOf<std::string>() == DataType::kString);
  static_assert(DataTypeOf<std::complex<double>>() == DataType::kComplex128);
  for (int32_t n = 1; n <= 16; ++n) {
    std::optional<DataType> t = DataTypeFromOnnx(n);
    ASSERT_TRUE(t.has_value()) << n;
    EXPECT_EQ(DataTypeFromName(DataTypeName(*t)), t) << n;
  }
}

TEST(Float16Test, KnownBitPatternsToFloat) {
  EXPECT_EQ(Float16::ToFloat(0x3C00), 1.0f);
  EXPECT_EQ(Float16::ToFloat(0xC000), -2.0f);
  EXPECT_EQ(Float16::ToFloat(0x7BFF), 65504.0f);
  EXPECT_EQ(Float16::ToFloat(0x0001), std::ldexp(1.0f, -24));
  EXPECT_EQ(Float16::ToFloat(0x03FF), 1023.0f * std::ldexp(1.0f, -24));
  EXPECT_EQ(Float16::ToFloat(0x0400), std::ldexp(1.0f, -14));
  EXPECT_EQ(Float16::ToFloat(0x3555), 0.333251953125f);
  EXPECT_EQ(Float16::ToFloat(0x3BFF), 0.99951171875f);
  EXPECT_EQ(Float16::ToFloat(0x7C00), std::numeric_limits<float>::infinity());
  EXPECT_EQ(Float16::ToFloat(0xFC00), -std::numeric_limits<float>::infinity());
  EXPECT_TRUE(std::isnan(Float16::ToFloat(0x7E00)));
  EXPECT_TRUE(std::isnan(Float16::ToFloat(0x7C01)));
  const float negative_zero = Float16::ToFloat(0x8000);
  EXPECT_EQ(negative_zero, 0.0f);
  EXPECT_TRUE(std::signbit(negative_zero));
  EXPECT_EQ(Float16::ToFloat(0x8001), -std::ldexp(1.0f, -24));
}

TEST(Float16Test, KnownFloatsToBits) {
  EXPECT_EQ(Float16::FromFloat(1.0f), 0x3C00);
  EXPECT_EQ(Float16::FromFloat(-2.0f), 0xC000);
  EXPECT_EQ(Float16::FromFloat(65504.0f), 0x7BFF);
  EXPECT_EQ(Float16::FromFloat(1.0f / 3.0f), 0x3555);
  EXPECT_EQ(Float16::FromFloat(0.1f), 0x2E66);
  EXPECT_EQ(Float16::FromFloat(0.0f), 0x0000);
  EXPECT_EQ(Float16::FromFloat(-0.0f), 0x8000);
  EXPECT_EQ(Float16::FromFloat(std::ldexp(1.0f, -24)), 0x0001);
  EXPECT_EQ(Float16::FromFloat(std::ldexp(1.0f, -14)), 0x0400);
  EXPECT_EQ(Float16::FromFloat(1e5f), 0x7C00);
  EXPECT_EQ(Float16::FromFloat(-1e5f), 0xFC00);
  EXPECT_EQ(Float16::FromFloat(std::numeric_limits<float>::infinity()), 0x7C00);
  EXPECT_EQ(Float16::FromFloat(-std::numeric_limits<float>::infinity()), 0xFC00);
  // Float subnormals are far below half's smallest subnormal.
  EXPECT_EQ(Float16::FromFloat(1e-40f), 0x0000);
  EXPECT_EQ(Float16::FromFloat(-1e-40f), 0x8000);
}

TEST(Float16Test, RoundsToNearestEven) {
  // 1 + 2^-11 is halfway between 0x3C00 (even) and 0x3C01: down.
  EXPECT_EQ(Float16::FromFloat(1.0f + std::ldexp(1.0f, -11)), 0x3C00);
  // 1 + 3*2^-11 is halfway between 0x3C01 and 0x3C02 (even): up.
  EXPECT_EQ(Float16::FromFloat(1.0f + 3 * std::ldexp(1.0f, -11)), 0x3C02);
  // Just above the tie goes up.
  EXPECT_EQ(Float16::FromFloat(1.0f + std::ldexp(1.0f, -11) + std::ldexp(1.0f, -20)), 0x3C01);
  // 65519 stays finite; 65520 is the tie between 65504 (odd) and 65536 (infinity): up.
  EXPECT_EQ(Float16::FromFloat(65519.0f), 0x7BFF);
  EXPECT_EQ(Float16::FromFloat(65520.0f), 0x7C00);
  EXPECT_EQ(Float16::FromFloat(-65520.0f), 0xFC00);
  // Subnormal ties: 2^-25 -> 0 (even), 3*2^-25 -> 2, 5*2^-25 -> 2.
  EXPECT_EQ(Float16::FromFloat(std::ldexp(1.0f, -25)), 0x0000);
  EXPECT_EQ(Float16::FromFloat(FromBits(0x33000001)), 0x0001);  // 2^-25 * (1 + 2^-23)
  EXPECT_EQ(Float16::FromFloat(3 * std::ldexp(1.0f, -25)), 0x0002);
  EXPECT_EQ(Float16::FromFloat(5 * std::ldexp(1.0f, -25)), 0x0002);
  // 1023.5 * 2^-24 rounds from the largest subnormal up into the smallest normal.
  EXPECT_EQ(Float16::FromFloat(1023.5f * std::ldexp(1.0f, -24)), 0x0400);
}

TEST(Float16Test, NanStaysNan) {
  const uint16_t quiet = Float16::FromFloat(std::numeric_limits<float>::quiet_NaN());
  EXPECT_EQ(quiet & 0x7C00, 0x7C00);
  EXPECT_NE(quiet & 0x03FF, 0);
  // A NaN whose payload sits only in the low bits would truncate to infinity without care.
  const uint16_t low_payload = Float16::FromFloat(FromBits(0x7F800001));
  EXPECT_EQ(low_payload & 0x7C00, 0x7C00);
  EXPECT_NE(low_payload & 0x03FF, 0);
  EXPECT_EQ(Float16::FromFloat(FromBits(0xFFC00000)) & 0x8000, 0x8000);
  EXPECT_TRUE(std::isnan(static_cast<float>(Float16(std::nanf("")))));
}

TEST(Float16Test, EveryHalfRoundTripsThroughFloat) {
  for (uint32_t bits = 0; bits <= 0xFFFF; ++bits) {
    const auto h = static_cast<uint16_t>(bits);
    const float f = Float16::ToFloat(h);
    if ((h & 0x7C00) == 0x7C00 && (h & 0x03FF) != 0) {
      EXPECT_TRUE(std::isnan(f)) << std::hex << bits;
      continue;
    }
    ASSERT_EQ(Float16::FromFloat(f), h) << std::hex << bits;
  }
}

TEST(Float16Test, MatchesCompilerConversionOnAFloatSweep) {
  // Every 251st float bit pattern (prime step, so all mantissa residues are visited), plus the
  // values around every half ulp boundary that the step might miss.
  for (uint64_t bits = 0; bits <= 0xFFFFFFFFull; bits += 251) {
    const float f = FromBits(static_cast<uint32_t>(bits));
    if (std::isnan(f)) continue;
    const _Float16 oracle = static_cast<_Float16>(f);
    ASSERT_EQ(Float16::FromFloat(f), std::bit_cast<uint16_t>(oracle)) << std::hex << bits;
  }
  for (uint32_t h = 0; h < 0x7BFF; ++h) {
    const uint32_t mid = std::bit_cast<uint32_t>((Float16::ToFloat(static_cast<uint16_t>(h)) +
                                                  Float16::ToFloat(static_cast<uint16_t>(h + 1))) /
                                                 2);
    for (uint32_t b = mid - 1; b <= mid + 1; ++b) {
      const float f = FromBits(b);
      ASSERT_EQ(Float16::FromFloat(f), std::bit_cast<uint16_t>(static_cast<_Float16>(f)))
          << std::hex << b;
    }
  }
}

TEST(BFloat16Test, KnownValues) {
  EXPECT_EQ(BFloat16::FromFloat(1.0f), 0x3F80);
  EXPECT_EQ(BFloat16::FromFloat(-2.0f), 0xC000);
  EXPECT_EQ(BFloat16::FromFloat(FromBits(0x40490FDB)), 0x4049);  // pi
  EXPECT_EQ(BFloat16::ToFloat(0x4049), 3.140625f);
  EXPECT_EQ(BFloat16::ToFloat(0x3F80), 1.0f);
  EXPECT_EQ(BFloat16::FromFloat(0.0f), 0x0000);
  EXPECT_EQ(BFloat16::FromFloat(-0.0f), 0x8000);
  EXPECT_EQ(BFloat16::FromFloat(std::numeric_limits<float>::infinity()), 0x7F80);
  EXPECT_EQ(BFloat16::FromFloat(-std::numeric_limits<float>::infinity()), 0xFF80);
  // Float subnormals keep their top bits: 0x00012345 -> 0x0001.
  EXPECT_EQ(BFloat16::FromFloat(FromBits(0x00012345)), 0x0001);
  EXPECT_EQ(static_cast<float>(BFloat16(2.5f)), 2.5f);
}

TEST(BFloat16Test, RoundsToNearestEven) {
  EXPECT_EQ(BFloat16::FromFloat(FromBits(0x3F808000)), 0x3F80);  // tie, 0x3F80 even: down
  EXPECT_EQ(BFloat16::FromFloat(FromBits(0x3F818000)), 0x3F82);  // tie, 0x3F82 even: up
  EXPECT_EQ(BFloat16::FromFloat(FromBits(0x3F808001)), 0x3F81);  // above the tie
  EXPECT_EQ(BFloat16::FromFloat(FromBits(0x3F807FFF)), 0x3F80);  // below the tie
  // FLT_MAX (0x7F7FFFFF) is above the midpoint between 0x7F7F and infinity.
  EXPECT_EQ(BFloat16::FromFloat(std::numeric_limits<float>::max()), 0x7F80);
  EXPECT_EQ(BFloat16::FromFloat(FromBits(0x7F7F7FFF)), 0x7F7F);
}

TEST(BFloat16Test, NanStaysNan) {
  for (uint32_t bits : {0x7FC00000u, 0x7F800001u, 0xFF800001u, 0x7FFFFFFFu}) {
    const uint16_t b = BFloat16::FromFloat(FromBits(bits));
    EXPECT_EQ(b & 0x7F80, 0x7F80) << std::hex << bits;
    EXPECT_NE(b & 0x007F, 0) << std::hex << bits;
    EXPECT_EQ(b & 0x8000, (bits >> 16) & 0x8000) << std::hex << bits;
    EXPECT_TRUE(std::isnan(BFloat16::ToFloat(b)));
  }
}

TEST(BFloat16Test, EveryBFloat16RoundTrips) {
  for (uint32_t bits = 0; bits <= 0xFFFF; ++bits) {
    const auto b = static_cast<uint16_t>(bits);
    const float f = BFloat16::ToFloat(b);
    if (std::isnan(f)) continue;
    ASSERT_EQ(BFloat16::FromFloat(f), b) << std::hex << bits;
  }
}

TEST(DataTypeTest, PackedFourBitSizes) {
  EXPECT_EQ(DataTypeSize(DataType::kInt4), 0u);
  EXPECT_EQ(DataTypeBits(DataType::kInt4), 4u);
  EXPECT_EQ(DataTypeBits(DataType::kFloat8E5M2), 8u);
  EXPECT_EQ(DataTypeBytes(DataType::kUint4, 7), 4u);
  EXPECT_EQ(DataTypeBytes(DataType::kInt4, 8), 4u);
  EXPECT_EQ(DataTypeBytes(DataType::kFloat8E4M3FN, 7), 7u);
  EXPECT_EQ(DataTypeBytes(DataType::kFloat, 3), 12u);
}

// Values from the tables of ONNX's docs/technical/float8.md: the largest finite values, one, the
// smallest subnormals, and the encodings of NaN.
TEST(Float8Test, KnownValues) {
  EXPECT_EQ(Float8E4M3FN::FromFloat(1.0f), 0x38);
  EXPECT_EQ(Float8E4M3FN::FromFloat(448.0f), 0x7E);
  EXPECT_EQ(Float8E4M3FN::FromFloat(-448.0f), 0xFE);
  EXPECT_EQ(Float8E4M3FN::ToFloat(0x01), 0.001953125f);  // 2^-9
  EXPECT_TRUE(std::isnan(Float8E4M3FN::ToFloat(0x7F)));
  EXPECT_EQ(Float8E4M3FNUZ::FromFloat(1.0f), 0x40);
  EXPECT_EQ(Float8E4M3FNUZ::FromFloat(240.0f), 0x7F);
  EXPECT_EQ(Float8E4M3FNUZ::ToFloat(0x01), 0.0009765625f);  // 2^-10
  EXPECT_TRUE(std::isnan(Float8E4M3FNUZ::ToFloat(0x80)));
  EXPECT_EQ(Float8E5M2::FromFloat(1.0f), 0x3C);
  EXPECT_EQ(Float8E5M2::FromFloat(57344.0f), 0x7B);
  EXPECT_EQ(Float8E5M2::ToFloat(0x01), std::ldexp(1.0f, -16));
  EXPECT_EQ(Float8E5M2::ToFloat(0x7C), std::numeric_limits<float>::infinity());
  EXPECT_EQ(Float8E5M2FNUZ::FromFloat(1.0f), 0x40);
  EXPECT_EQ(Float8E5M2FNUZ::FromFloat(57344.0f), 0x7F);
  EXPECT_EQ(Float8E5M2FNUZ::ToFloat(0x01), std::ldexp(1.0f, -17));
}

TEST(Float8Test, SaturationAndSpecialValues) {
  const float inf = std::numeric_limits<float>::infinity();
  EXPECT_EQ(Float8E4M3FN::FromFloat(1e6f), 0x7E);
  EXPECT_EQ(Float8E4M3FN::FromFloat(-inf), 0xFE);
  EXPECT_TRUE(std::isnan(Float8E4M3FN::ToFloat(Float8E4M3FN::FromFloat(1e6f, false))));
  EXPECT_EQ(Float8E5M2::FromFloat(1e6f), 0x7B);
  EXPECT_EQ(Float8E5M2::FromFloat(1e6f, false), 0x7C);
  EXPECT_EQ(Float8E5M2::FromFloat(-inf, false), 0xFC);
  EXPECT_TRUE(std::isnan(Float8E5M2FNUZ::ToFloat(Float8E5M2FNUZ::FromFloat(inf, false))));
  // No -0 in the FNUZ formats: negative zero and tiny negative values give +0.
  EXPECT_EQ(Float8E4M3FNUZ::FromFloat(-0.0f), 0x00);
  EXPECT_EQ(Float8E5M2FNUZ::FromFloat(-1e-30f), 0x00);
  EXPECT_EQ(Float8E4M3FN::FromFloat(-0.0f), 0x80);
  // Ties go to even: 1 + 1/16 lies halfway between 1 and 1.125 in E4M3.
  EXPECT_EQ(Float8E4M3FN::FromFloat(1.0625f), 0x38);
  EXPECT_EQ(Float8E4M3FN::FromFloat(1.1875f), 0x3A);
}

template <typename F>
void ExpectEveryCodeRoundTrips() {
  for (int code = 0; code < 256; ++code) {
    const float f = F::ToFloat(static_cast<uint8_t>(code));
    // NaN has several codes; E5M2's infinities saturate by default (checked above).
    if (!std::isfinite(f)) continue;
    EXPECT_EQ(F::FromFloat(f), code) << DataTypeName(DataTypeOf<F>()) << " code " << code;
    // Halfway to the next code up rounds to the even one of the two.
    const float next = F::ToFloat(static_cast<uint8_t>(code + 1));
    if ((code & 0x7F) < 0x70 && std::isfinite(next) && std::fabs(next) > std::fabs(f)) {
      const uint8_t mid = F::FromFloat((f + next) / 2);
      EXPECT_EQ(mid, (code % 2 == 0) ? code : code + 1) << code;
    }
  }
}

TEST(Float8Test, EveryCodeRoundTripsAndTiesGoToEven) {
  ExpectEveryCodeRoundTrips<Float8E4M3FN>();
  ExpectEveryCodeRoundTrips<Float8E4M3FNUZ>();
  ExpectEveryCodeRoundTrips<Float8E5M2>();
  ExpectEveryCodeRoundTrips<Float8E5M2FNUZ>();
}

}  // namespace
}  // namespace nxrt
