// nxrt/data_type.h: tensor element types and the 16-bit float types.
//
// `DataType` uses the numbers of ONNX `TensorProto.DataType` (onnx.proto), so a value read from a
// model converts by cast. Float16 and BFloat16 are storage types: arithmetic converts to float.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>

namespace nxrt {

enum class DataType : int32_t {
  kUndefined = 0,
  kFloat = 1,
  kUint8 = 2,
  kInt8 = 3,
  kUint16 = 4,
  kInt16 = 5,
  kInt32 = 6,
  kInt64 = 7,
  kString = 8,  // elements are std::string objects
  kBool = 9,    // one byte per element, 0 or 1
  kFloat16 = 10,
  kDouble = 11,
  kUint32 = 12,
  kUint64 = 13,
  kComplex64 = 14,
  kComplex128 = 15,
  kBFloat16 = 16,
};

// ONNX's lower-case name of a type as used in operator schemas: "float", "int64", "float16",
// "bfloat16", "bool", "string", ...; "undefined" for kUndefined and unknown numbers.
std::string_view DataTypeName(DataType type);

// Bytes per element: 1..16 for numeric types, sizeof(std::string) for kString, 0 for kUndefined.
size_t DataTypeSize(DataType type);

// The type with ONNX number `onnx_type`, or nullopt when the number names no type nxrt knows.
std::optional<DataType> DataTypeFromOnnx(int32_t onnx_type);

// The type named `name` ("float", "tensor(float)" and "int64" all work), or nullopt.
std::optional<DataType> DataTypeFromName(std::string_view name);

// IEEE 754 binary16. Conversions round to nearest even and keep NaN, infinities and subnormals.
struct Float16 {
  uint16_t bits = 0;
  Float16() = default;
  explicit Float16(float value) : bits(FromFloat(value)) {}
  static Float16 FromBits(uint16_t b) {
    Float16 h;
    h.bits = b;
    return h;
  }
  explicit operator float() const { return ToFloat(bits); }
  static uint16_t FromFloat(float value);
  static float ToFloat(uint16_t bits);
};

// bfloat16: the upper 16 bits of a float32. Conversion rounds to nearest even; NaN stays NaN.
struct BFloat16 {
  uint16_t bits = 0;
  BFloat16() = default;
  explicit BFloat16(float value) : bits(FromFloat(value)) {}
  static BFloat16 FromBits(uint16_t b) {
    BFloat16 h;
    h.bits = b;
    return h;
  }
  explicit operator float() const { return ToFloat(bits); }
  static uint16_t FromFloat(float value);
  static float ToFloat(uint16_t bits) {
    uint32_t u = static_cast<uint32_t>(bits) << 16;
    float f;
    std::memcpy(&f, &u, sizeof f);
    return f;
  }
};

// The DataType of a C++ element type: DataTypeOf<float>() == DataType::kFloat.
template <typename T>
constexpr DataType DataTypeOf();

}  // namespace nxrt

#include "nxrt/data_type_inl.h"
