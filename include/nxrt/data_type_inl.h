// nxrt/data_type_inl.h: the C++ type → DataType mapping behind DataTypeOf<T>(). Included by
// nxrt/data_type.h only.
#pragma once

#include <complex>
#include <string>
#include <type_traits>

namespace nxrt {

template <typename T>
constexpr DataType DataTypeOf() {
  using U = std::remove_cv_t<T>;
  if constexpr (std::is_same_v<U, float>) return DataType::kFloat;
  else if constexpr (std::is_same_v<U, double>) return DataType::kDouble;
  else if constexpr (std::is_same_v<U, Float16>) return DataType::kFloat16;
  else if constexpr (std::is_same_v<U, BFloat16>) return DataType::kBFloat16;
  else if constexpr (std::is_same_v<U, Float8E4M3FN>) return DataType::kFloat8E4M3FN;
  else if constexpr (std::is_same_v<U, Float8E4M3FNUZ>) return DataType::kFloat8E4M3FNUZ;
  else if constexpr (std::is_same_v<U, Float8E5M2>) return DataType::kFloat8E5M2;
  else if constexpr (std::is_same_v<U, Float8E5M2FNUZ>) return DataType::kFloat8E5M2FNUZ;
  else if constexpr (std::is_same_v<U, int8_t>) return DataType::kInt8;
  else if constexpr (std::is_same_v<U, int16_t>) return DataType::kInt16;
  else if constexpr (std::is_same_v<U, int32_t>) return DataType::kInt32;
  else if constexpr (std::is_same_v<U, int64_t>) return DataType::kInt64;
  else if constexpr (std::is_same_v<U, uint8_t>) return DataType::kUint8;
  else if constexpr (std::is_same_v<U, uint16_t>) return DataType::kUint16;
  else if constexpr (std::is_same_v<U, uint32_t>) return DataType::kUint32;
  else if constexpr (std::is_same_v<U, uint64_t>) return DataType::kUint64;
  else if constexpr (std::is_same_v<U, bool>) return DataType::kBool;
  else if constexpr (std::is_same_v<U, std::string>) return DataType::kString;
  else if constexpr (std::is_same_v<U, std::complex<float>>) return DataType::kComplex64;
  else if constexpr (std::is_same_v<U, std::complex<double>>) return DataType::kComplex128;
  else static_assert(sizeof(U) == 0, "no ONNX element type for this C++ type");
}

}  // namespace nxrt
