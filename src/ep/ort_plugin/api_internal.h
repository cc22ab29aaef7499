// ep/ort_plugin/api_internal.h: what the host API implementations (api_*.cpp) share: argument
// checks that name the function and the argument, and the boundary that keeps C++ exceptions
// from reaching a plugin.
//
// Layer: nxrt_ort_plugin (internal, api_*.cpp only). Each implemented OrtApi/OrtEpApi function
// is a `noexcept` free function that (1) rejects null pointer arguments with
// ORT_INVALID_ARGUMENT ("OrtApi::GetDimensions: argument 'info' is null; pass ..."), (2) runs
// its body inside Guarded, which turns std::bad_alloc and any other exception into an OrtStatus.
#pragma once

#include <exception>
#include <initializer_list>
#include <memory>
#include <new>
#include <string>
#include <string_view>

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
