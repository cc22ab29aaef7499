// core/data_type.cpp: DataType names, sizes and lookups; Float16/BFloat16 conversions.
//
// Layer: nxrt_core (standard library only). The conversions are written out bit by bit so that
// they round to nearest even on every host, independent of the FPU's rounding mode and of F16C.
#include "nxrt/data_type.h"

#include <array>
#include <bit>
#include <cmath>
#include <complex>

namespace nxrt {
namespace {

struct TypeEntry {
  DataType type;
  std::string_view name;
  size_t size;
};

// One row per ONNX element type, indexed by the ONNX number.
constexpr std::array<TypeEntry, 17> kTypes = {{
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
}};

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

}  // namespace nxrt
