// nxrt/data_type.h: tensor element types and the 16-bit float types.
//
// `DataType` uses the numbers of ONNX `TensorProto.DataType` (onnx.proto), so a value read from a
// model converts by cast. Float16, BFloat16 and the float8 types are storage types: arithmetic
// converts to float. The float8 types (17-20, ONNX 1.14) and int4/uint4 (21-22, ONNX 1.16) are
// newer than Debian's libonnx (1.12), whose onnx.proto lacks their names; the numbers are
// ONNX's. int4/uint4 are packed two to a byte: element 2i in the low nibble of byte i, element
// 2i+1 in the high nibble, an odd count leaving the last high nibble 0 (onnx.proto).
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
  kFloat8E4M3FN = 17,    // 1 sign, 4 exponent (bias 7), 3 mantissa bits; no infinity, NaN S.1111.111
  kFloat8E4M3FNUZ = 18,  // bias 8; no infinity, no -0, NaN 0x80
  kFloat8E5M2 = 19,      // bias 15; infinities and NaNs as IEEE 754
  kFloat8E5M2FNUZ = 20,  // bias 16; no infinity, no -0, NaN 0x80
  kUint4 = 21,           // 0..15, packed two per byte
  kInt4 = 22,            // -8..7, packed two per byte
};

// ONNX's lower-case name of a type as used in operator schemas: "float", "int64", "float16",
// "bfloat16", "bool", "string", ...; "undefined" for kUndefined and unknown numbers.
std::string_view DataTypeName(DataType type);

// Bytes per element: 1..16 for numeric types, sizeof(std::string) for kString, 0 for kUndefined
// and for the packed 4-bit types, whose elements are not whole bytes (see DataTypeBytes).
size_t DataTypeSize(DataType type);

// Bits per element: 8 * DataTypeSize, 4 for int4/uint4, 0 for kUndefined.
size_t DataTypeBits(DataType type);

// Bytes `count` elements of `type` occupy: count * DataTypeSize, or (count + 1) / 2 for
// int4/uint4. `count` must be >= 0 and the product must not overflow (callers check ElementCount
// and the size first); 0 for kUndefined.
size_t DataTypeBytes(DataType type, int64_t count);

// True for int4 and uint4.
inline bool IsPacked4Bit(DataType type) {
  return type == DataType::kInt4 || type == DataType::kUint4;
}

// True for the four float8 types.
inline bool IsFloat8(DataType type) {
  return type >= DataType::kFloat8E4M3FN && type <= DataType::kFloat8E5M2FNUZ;
}

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

// The float8 formats of ONNX (onnx/onnx docs/technical/float8.md): `Float8<kType>` stores one
// byte. Conversion from float rounds to nearest even. With `saturate` (Cast's and
// QuantizeLinear's default), values beyond the largest finite value, and infinities, become
// that value with their sign; without it they become NaN, or infinity for E5M2 (which has
// one). NaN stays NaN; -0 becomes +0 in the FNUZ formats (which have no -0).
template <DataType kType>
struct Float8 {
  static_assert(kType >= DataType::kFloat8E4M3FN && kType <= DataType::kFloat8E5M2FNUZ);
  uint8_t bits = 0;
  Float8() = default;
  explicit Float8(float value, bool saturate = true) : bits(FromFloat(value, saturate)) {}
  static Float8 FromBits(uint8_t b) {
    Float8 f;
    f.bits = b;
    return f;
  }
  explicit operator float() const { return ToFloat(bits); }
  static uint8_t FromFloat(float value, bool saturate = true);
  static float ToFloat(uint8_t bits);
};
using Float8E4M3FN = Float8<DataType::kFloat8E4M3FN>;
using Float8E4M3FNUZ = Float8<DataType::kFloat8E4M3FNUZ>;
using Float8E5M2 = Float8<DataType::kFloat8E5M2>;
using Float8E5M2FNUZ = Float8<DataType::kFloat8E5M2FNUZ>;

// The DataType of a C++ element type: DataTypeOf<float>() == DataType::kFloat.
template <typename T>
constexpr DataType DataTypeOf();

}  // namespace nxrt

#include "nxrt/data_type_inl.h"
