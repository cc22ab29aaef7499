// core/data_type.cpp: DataType names, sizes and lookups; Float16/BFloat16 conversions.
//
// Layer: nxrt_core (standard library only). The conversions are written out bit by bit so that
// they round to nearest even on every host, independent of the FPU's rounding mode and of F16C.
#include "nxrt/data_type.h"

#include <array>
#include <bit>
#include <cmath>
#include <complex>
#include <limits>

namespace nxrt {
namespace {

struct TypeEntry {
  DataType type;
  std::string_view name;
  size_t size;
};

// One row per ONNX element type, indexed by the ONNX number.
constexpr std::array<TypeEntry, 23> kTypes = {{
    {DataType::kUndefined, "undefined", 0},
    {DataType::kFloat, "float", 4},
    {DataType::kUint8, "uint8", 1},
    {DataType::kInt8, "int8", 1},
    {DataType::kUint16, "uint16", 2},
    {DataType::kInt16, "int16", 2},
    {DataType::kInt32, "int32", 4},
    {DataType::kInt64, "int64", 8},
    {DataType::kString, "string", sizeof(std::string)},
    {DataType::kBool, "bool", 1},
    {DataType::kFloat16, "float16", 2},
    {DataType::kDouble, "double", 8},
    {DataType::kUint32, "uint32", 4},
    {DataType::kUint64, "uint64", 8},
    {DataType::kComplex64, "complex64", sizeof(std::complex<float>)},
    {DataType::kComplex128, "complex128", sizeof(std::complex<double>)},
    {DataType::kBFloat16, "bfloat16", 2},
    {DataType::kFloat8E4M3FN, "float8e4m3fn", 1},
    {DataType::kFloat8E4M3FNUZ, "float8e4m3fnuz", 1},
    {DataType::kFloat8E5M2, "float8e5m2", 1},
    {DataType::kFloat8E5M2FNUZ, "float8e5m2fnuz", 1},
    {DataType::kUint4, "uint4", 0},
    {DataType::kInt4, "int4", 0},
}};

// The layout of one float8 format: mantissa bits, exponent bias, the largest finite encoding
// (positive), and what it lacks.
struct Float8Format {
  int mantissa_bits;
  int bias;
  uint8_t max_finite;
  bool fnuz;      // no -0, no infinity, NaN is 0x80
  bool infinity;  // E5M2: 0x7C is +inf, 0x7D-0x7F NaN
};

constexpr Float8Format FormatOf(DataType type) {
  switch (type) {
    case DataType::kFloat8E4M3FN: return {3, 7, 0x7E, false, false};
    case DataType::kFloat8E4M3FNUZ: return {3, 8, 0x7F, true, false};
    case DataType::kFloat8E5M2: return {2, 15, 0x7B, false, true};
    default: return {2, 16, 0x7F, true, false};
  }
}

uint8_t Float8FromFloat(const Float8Format& f, float value, bool saturate) {
  const uint8_t nan = f.fnuz ? 0x80 : 0x7F;
  if (std::isnan(value)) return nan;
  const uint8_t sign = std::signbit(value) ? 0x80 : 0x00;
  const float magnitude = std::fabs(value);
  const uint8_t overflow = saturate ? f.max_finite : (f.infinity ? 0x7C : nan);
  if (std::isinf(magnitude)) {
    return static_cast<uint8_t>((overflow == nan ? 0 : sign) | overflow);
  }
  const int m = f.mantissa_bits;
  const int min_exponent = 1 - f.bias;  // of the smallest normal value
  uint32_t code = 0;
  int exponent = 0;
  std::frexp(magnitude, &exponent);  // magnitude = r * 2^exponent, r in [0.5, 1)
  --exponent;                        // magnitude in [2^exponent, 2^(exponent+1))
  if (magnitude == 0 || exponent < min_exponent) {
    // Subnormal (or zero): a multiple of 2^(min_exponent - m); 2^m of them is the smallest normal
    // value, whose code is the same number.
    code = static_cast<uint32_t>(std::nearbyint(std::ldexp(magnitude, m - min_exponent)));
  } else {
    auto q = static_cast<uint32_t>(std::nearbyint(std::ldexp(magnitude, m - exponent)));
    if (q == (2u << m)) {
      q = 1u << m;
      ++exponent;
    }
    const int biased = exponent + f.bias;
    code = (static_cast<uint32_t>(biased) << m) | (q - (1u << m));
  }
  if (code > f.max_finite) return static_cast<uint8_t>((overflow == nan ? 0 : sign) | overflow);
  if (code == 0 && f.fnuz) return 0;
  return static_cast<uint8_t>(sign | code);
}

float Float8ToFloat(const Float8Format& f, uint8_t bits) {
  const int m = f.mantissa_bits;
  if (f.fnuz && bits == 0x80) return std::numeric_limits<float>::quiet_NaN();
  const bool negative = (bits & 0x80) != 0;
  const uint32_t magnitude_bits = bits & 0x7Fu;
  if (magnitude_bits > f.max_finite) {
    if (f.infinity && magnitude_bits == 0x7C) {
      return negative ? -std::numeric_limits<float>::infinity()
                      : std::numeric_limits<float>::infinity();
    }
    return std::numeric_limits<float>::quiet_NaN();
  }
  const int exponent_field = static_cast<int>(magnitude_bits >> m);
  const auto mantissa = static_cast<int>(magnitude_bits & ((1u << m) - 1));
  const float magnitude =
      exponent_field == 0
          ? std::ldexp(static_cast<float>(mantissa), 1 - f.bias - m)
          : std::ldexp(static_cast<float>((1 << m) + mantissa), exponent_field - f.bias - m);
  return negative ? -magnitude : magnitude;
}

const TypeEntry* FindEntry(DataType type) {
  const auto index = static_cast<int32_t>(type);
  if (index < 0 || index >= static_cast<int32_t>(kTypes.size())) return nullptr;
  return &kTypes[static_cast<size_t>(index)];
}

}  // namespace

std::string_view DataTypeName(DataType type) {
  const TypeEntry* entry = FindEntry(type);
  return entry ? entry->name : kTypes[0].name;
}

size_t DataTypeSize(DataType type) {
  const TypeEntry* entry = FindEntry(type);
  return entry ? entry->size : 0;
}

size_t DataTypeBits(DataType type) { return IsPacked4Bit(type) ? 4 : 8 * DataTypeSize(type); }

size_t DataTypeBytes(DataType type, int64_t count) {
  const auto n = static_cast<size_t>(count);
  return IsPacked4Bit(type) ? (n + 1) / 2 : n * DataTypeSize(type);
}

std::optional<DataType> DataTypeFromOnnx(int32_t onnx_type) {
  const TypeEntry* entry = FindEntry(static_cast<DataType>(onnx_type));
  if (entry == nullptr || entry->type == DataType::kUndefined) return std::nullopt;
  return entry->type;
}

std::optional<DataType> DataTypeFromName(std::string_view name) {
  constexpr std::string_view kPrefix = "tensor(";
  if (name.starts_with(kPrefix) && name.ends_with(")")) {
    name = name.substr(kPrefix.size(), name.size() - kPrefix.size() - 1);
  }
  for (const TypeEntry& entry : kTypes) {
    if (entry.type != DataType::kUndefined && entry.name == name) return entry.type;
  }
  return std::nullopt;
}

uint16_t Float16::FromFloat(float value) {
  const uint32_t f = std::bit_cast<uint32_t>(value);
  const auto sign = static_cast<uint16_t>((f >> 16) & 0x8000u);
  const uint32_t mag = f & 0x7FFFFFFFu;

  if (mag >= 0x7F800000u) {
    if (mag == 0x7F800000u) return sign | 0x7C00u;
    // NaN: keep the top payload bits and force the quiet bit so the payload never becomes 0
    // (which would turn the NaN into an infinity).
    return static_cast<uint16_t>(sign | 0x7E00u | ((mag >> 13) & 0x03FFu));
  }
  // 65520 = 0x477FF000 lies halfway between 65504 (largest half, odd mantissa) and 65536;
  // ties go to even, i.e. up to infinity.
  if (mag >= 0x477FF000u) return sign | 0x7C00u;

  if (mag < 0x38800000u) {
    // Below 2^-14: the result is a half subnormal (a multiple of 2^-24) or zero.
    const uint32_t exponent = mag >> 23;
    // Below 2^-25 everything rounds to zero; exactly 2^-25 is a tie that goes to even (zero).
    if (exponent < 102) return sign;
    const uint32_t mantissa = (mag & 0x007FFFFFu) | 0x00800000u;
    // value = mantissa * 2^(exponent - 150); in units of 2^-24 that is mantissa >> (126 - e).
    const uint32_t shift = 126 - exponent;
    uint32_t result = mantissa >> shift;
    const uint32_t rest = mantissa & ((1u << shift) - 1);
    const uint32_t half = 1u << (shift - 1);
    if (rest > half || (rest == half && (result & 1u))) ++result;
    return static_cast<uint16_t>(sign | result);
  }

  // Normal half: rebias the exponent (127 -> 15) and drop 13 mantissa bits. A carry out of the
  // mantissa correctly bumps the exponent.
  uint32_t result = (mag - 0x38000000u) >> 13;
  const uint32_t rest = mag & 0x1FFFu;
  if (rest > 0x1000u || (rest == 0x1000u && (result & 1u))) ++result;
  return static_cast<uint16_t>(sign | result);
}

float Float16::ToFloat(uint16_t bits) {
  const uint32_t sign = static_cast<uint32_t>(bits & 0x8000u) << 16;
  const uint32_t exponent = (bits >> 10) & 0x1Fu;
  const uint32_t mantissa = bits & 0x03FFu;
  if (exponent == 0x1F) {
    return std::bit_cast<float>(sign | 0x7F800000u | (mantissa << 13));
  }
  if (exponent == 0) {
    // Zero or subnormal: mantissa * 2^-24 is exact in float.
    const float magnitude = std::ldexp(static_cast<float>(mantissa), -24);
    return sign ? -magnitude : magnitude;
  }
  return std::bit_cast<float>(sign | ((exponent + 112) << 23) | (mantissa << 13));
}

uint16_t BFloat16::FromFloat(float value) {
  const uint32_t f = std::bit_cast<uint32_t>(value);
  if ((f & 0x7FFFFFFFu) > 0x7F800000u) {
    // NaN: truncate and set the quiet bit so the result cannot become an infinity.
    return static_cast<uint16_t>((f >> 16) | 0x0040u);
  }
  const uint32_t rounding = 0x7FFFu + ((f >> 16) & 1u);
  return static_cast<uint16_t>((f + rounding) >> 16);
}

template <DataType kType>
uint8_t Float8<kType>::FromFloat(float value, bool saturate) {
  return Float8FromFloat(FormatOf(kType), value, saturate);
}

template <DataType kType>
float Float8<kType>::ToFloat(uint8_t bits) {
  return Float8ToFloat(FormatOf(kType), bits);
}

template struct Float8<DataType::kFloat8E4M3FN>;
template struct Float8<DataType::kFloat8E4M3FNUZ>;
template struct Float8<DataType::kFloat8E5M2>;
template struct Float8<DataType::kFloat8E5M2FNUZ>;

}  // namespace nxrt
