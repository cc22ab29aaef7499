// ep/ort_plugin/api_internal.h: what the host API implementations (api_*.cpp) share: argument
// checks that name the function and the argument, and the boundary that keeps C++ exceptions
// from reaching a plugin.
//
// Layer: nxrt_ort_plugin (internal, api_*.cpp only). Each implemented OrtApi/OrtEpApi function
// is a `noexcept` free function that (1) rejects null pointer arguments with
// ORT_INVALID_ARGUMENT ("OrtApi::GetDimensions: argument 'info' is null; pass ..."), (2) runs
// its body inside Guarded, which turns std::bad_alloc and any other exception into an OrtStatus.
// An enum argument is checked with CheckEnumArg before anything else reads it.
#pragma once

#include <cstdint>
#include <cstring>
#include <exception>
#include <initializer_list>
#include <memory>
#include <new>
#include <string>
#include <string_view>
#include <type_traits>

#include "ep/ort_plugin/api_objects.h"

namespace nxrt::ort_plugin {

struct ArgRef {
  const char* name;
  const void* value;
};

// ORT_INVALID_ARGUMENT naming `function` ("OrtApi::X") and the first null argument; null when
// every argument is set.
OrtStatus* CheckArgs(const char* function, std::initializer_list<ArgRef> args) noexcept;

// ORT_INVALID_ARGUMENT "<function>: <detail>". Never throws (see OutOfMemoryStatus).
OrtStatus* InvalidArgument(const char* function, const std::string& detail) noexcept;

// ---- Enum arguments ----
// A C caller or a plugin can pass any int where ORT's header declares an enum parameter (99 as an
// ONNXTensorElementDataType). In C++, loading an enum object whose value lies outside the enum's
// range is undefined behaviour (UBSan: "load of value 99, which is not a valid value for type
// 'ONNXTensorElementDataType'"), and a switch over it may take no case. So every implemented
// function passes each enum argument to CheckEnumArg first, which reads the argument's bytes as
// an int32_t; after it returns null, the argument holds one of its enum's values.

// A run of valid values, first..last.
struct EnumRange {
  int32_t first;
  int32_t last;
};

// EnumValues<E>: E's name and the values onnxruntime_c_api.h (API 29) and onnxruntime_error_code.h
// give it. Whether a function accepts every one of them is its own check, after CheckEnumArg
// (ORT_DEVICE_RESET is a valid OrtErrorCode, OrtInvalidAllocator not a valid allocator type).
template <typename Enum>
struct EnumValues;
#define NXRT_ORT_ENUM_VALUES(Enum, ...)                          \
  template <>                                                    \
  struct EnumValues<Enum> {                                      \
    static constexpr const char* kName = #Enum;                  \
    static constexpr EnumRange kRanges[] = {__VA_ARGS__};        \
  }
NXRT_ORT_ENUM_VALUES(ONNXTensorElementDataType,
                     {ONNX_TENSOR_ELEMENT_DATA_TYPE_UNDEFINED,
                      ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT8E8M0});
NXRT_ORT_ENUM_VALUES(ONNXType, {ONNX_TYPE_UNKNOWN, ONNX_TYPE_OPTIONAL});
NXRT_ORT_ENUM_VALUES(OrtAllocatorType, {OrtInvalidAllocator, OrtReadOnlyAllocator});
NXRT_ORT_ENUM_VALUES(OrtMemType, {OrtMemTypeCPUInput, OrtMemTypeDefault});
NXRT_ORT_ENUM_VALUES(OrtMemoryInfoDeviceType,
                     {OrtMemoryInfoDeviceType_CPU, OrtMemoryInfoDeviceType_NPU});
NXRT_ORT_ENUM_VALUES(OrtDeviceMemoryType,
                     {OrtDeviceMemoryType_DEFAULT, OrtDeviceMemoryType_DEFAULT},
                     {OrtDeviceMemoryType_HOST_ACCESSIBLE, OrtDeviceMemoryType_HOST_ACCESSIBLE});
NXRT_ORT_ENUM_VALUES(OrtHardwareDeviceType, {OrtHardwareDeviceType_CPU, OrtHardwareDeviceType_NPU});
NXRT_ORT_ENUM_VALUES(GraphOptimizationLevel, {ORT_DISABLE_ALL, ORT_ENABLE_LAYOUT},
                     {ORT_ENABLE_ALL, ORT_ENABLE_ALL});
NXRT_ORT_ENUM_VALUES(ExecutionMode, {ORT_SEQUENTIAL, ORT_PARALLEL});
NXRT_ORT_ENUM_VALUES(OrtLoggingLevel, {ORT_LOGGING_LEVEL_VERBOSE, ORT_LOGGING_LEVEL_FATAL});
NXRT_ORT_ENUM_VALUES(OrtLanguageProjection, {ORT_PROJECTION_C, ORT_PROJECTION_NODEJS});
NXRT_ORT_ENUM_VALUES(OrtErrorCode, {ORT_OK, ORT_DEVICE_RESET});
NXRT_ORT_ENUM_VALUES(OrtOpAttrType, {ORT_OP_ATTR_UNDEFINED, ORT_OP_ATTR_TENSOR});
#undef NXRT_ORT_ENUM_VALUES

// The int a caller passed as enum argument `arg`, read from its bytes (not an enum load).
template <typename Enum>
int32_t RawEnumArg(const Enum& arg) noexcept {
  static_assert(std::is_enum_v<Enum> && sizeof(Enum) == sizeof(int32_t));
  int32_t raw = 0;
  std::memcpy(&raw, &arg, sizeof raw);
  return raw;
}

// True when `raw` is one of EnumValues<Enum>, so that static_cast<Enum>(raw) is defined.
template <typename Enum>
bool IsEnumValue(int32_t raw) noexcept {
  for (const EnumRange& range : EnumValues<Enum>::kRanges) {
    if (raw >= range.first && raw <= range.last) return true;
  }
  return false;
}

// True when enum argument `arg` holds one of EnumValues<Enum> (for functions that return no
// status, such as EpDevice_MemoryInfo).
template <typename Enum>
bool HoldsEnumValue(const Enum& arg) noexcept {
  return IsEnumValue<Enum>(RawEnumArg(arg));
}

// `code` "<function>: argument '<param>' is <raw>, which is not a valid <type>; pass one of
// <ranges>" (e.g. "... is 99, which is not a valid ONNXTensorElementDataType; pass one of 0..26").
OrtStatus* BadEnumArg(const char* function, const char* param, int32_t raw, const char* type,
                      const EnumRange* ranges, size_t range_count, OrtErrorCode code) noexcept;

// Null when `raw` (the argument or struct field named `param` in ORT's header) is one of
// EnumValues<Enum>; else BadEnumArg's status with `code`: ORT_INVALID_ARGUMENT, or the code ONNX
// Runtime 1.30 gives the same call (ORT_NOT_IMPLEMENTED for an unknown element type of
// CreateTensorAsOrtValue).
template <typename Enum>
OrtStatus* CheckEnumValue(const char* function, const char* param, int32_t raw,
                          OrtErrorCode code = ORT_INVALID_ARGUMENT) noexcept {
  if (IsEnumValue<Enum>(raw)) return nullptr;
  return BadEnumArg(function, param, raw, EnumValues<Enum>::kName, EnumValues<Enum>::kRanges,
                    std::size(EnumValues<Enum>::kRanges), code);
}

// CheckEnumValue for enum argument `arg`.
template <typename Enum>
OrtStatus* CheckEnumArg(const char* function, const char* param, const Enum& arg,
                        OrtErrorCode code = ORT_INVALID_ARGUMENT) noexcept {
  return CheckEnumValue<Enum>(function, param, RawEnumArg(arg), code);
}

// The status for an allocation failure inside `function`. When even that cannot be allocated,
// a static status that ReleaseStatus recognises and does not free.
OrtStatus* OutOfMemoryStatus(const char* function) noexcept;
// ORT_FAIL "<function>: unexpected exception: <what>".
OrtStatus* ExceptionStatus(const char* function, const char* what) noexcept;
// True for the static status OutOfMemoryStatus falls back to.
bool IsStaticStatus(const OrtStatus* status) noexcept;

// Runs `body` (returning OrtStatus*) and converts escaping exceptions into a status.
template <typename Body>
OrtStatus* Guarded(const char* function, Body&& body) noexcept {
  try {
    return body();
  } catch (const std::bad_alloc&) {
    return OutOfMemoryStatus(function);
  } catch (const std::exception& e) {
    return ExceptionStatus(function, e.what());
  } catch (...) {
    return ExceptionStatus(function, "unknown exception");
  }
}

// Bytes per element for ORT element types with at least one byte per element, 0 for string,
// undefined and unknown numbers. Packed sub-byte types are handled by TensorBytes.
size_t OrtElementSize(ONNXTensorElementDataType type) noexcept;
// Storage bytes of a tensor of `type` with `elements` elements (packed for int4/uint4/float4e2m1
// and int2/uint2); false when the type has no fixed size (string, undefined) or on overflow.
bool TensorBytes(ONNXTensorElementDataType type, size_t elements, size_t* bytes) noexcept;

// Deep copies (api_values.cpp), for functions that hand out a new type info the caller releases.
std::unique_ptr<OrtTensorTypeAndShapeInfo> CloneTensorInfo(const OrtTensorTypeAndShapeInfo& from);
std::unique_ptr<OrtTypeInfo> CloneTypeInfo(const OrtTypeInfo& from);

// A copy of `text` (NUL-terminated) in memory from `allocator`, for the functions that return
// strings the caller frees with it; null when the allocation fails (api_graph.cpp).
char* AllocatorCopy(OrtAllocator* allocator, std::string_view text);

}  // namespace nxrt::ort_plugin
