// ep/ort_plugin/api_values.cpp: tensors as OrtValue, OrtTypeInfo and OrtTensorTypeAndShapeInfo
// functions of the host API, and the type-info builders of OrtModelEditorApi.
//
// Layer: nxrt_ort_plugin (internal). Tensors hold fixed-size elements or strings (std::string
// objects made by CreateTensorAsOrtValue; api_containers.cpp reads and writes them); sequences
// and maps are made in api_containers.cpp. Error codes follow ONNX Runtime 1.30 (a negative dim
// is ORT_FAIL, an element type it cannot size is ORT_NOT_IMPLEMENTED, a string tensor over the
// caller's buffer ORT_INVALID_ARGUMENT). OrtSequenceTypeInfo, OrtMapTypeInfo and
// OrtOptionalTypeInfo are never defined:
// a pointer to one is the OrtTypeInfo it was cast from (CastTypeInfoTo*), owned by that type
// info, and the getters cast it back. OrtEpApi::GetTensorDataType and the other kernel-registry
// functions are in api_kernel_registry.cpp.
// Source: onnxruntime_c_api.h (CreateTensorAsOrtValue, CreateTensorWithDataAsOrtValue,
// CreateTensorWithDataAndDeleterAsOrtValue, IsTensor, HasValue, GetTensor*, GetValueType,
// GetTypeInfo, CastTypeInfoTo*, Get{Sequence,Map,Optional}*, GetDenotationFromTypeInfo,
// tensor type/shape functions, TensorTypeAndShape_HasShape, Release*; OrtModelEditorApi::
// Create{Tensor,SparseTensor,Map,Sequence,Optional}TypeInfo).
#include <algorithm>
#include <cstring>
#include <limits>
#include <string>

#include "ep/ort_plugin/api_internal.h"
#include "ep/ort_plugin/api_table.h"

namespace nxrt::ort_plugin {

size_t OrtElementSize(ONNXTensorElementDataType type) noexcept {
  switch (type) {
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT8:
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_INT8:
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_BOOL:
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT8E4M3FN:
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT8E4M3FNUZ:
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT8E5M2:
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT8E5M2FNUZ: return 1;
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT16:
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_INT16:
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT16:
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_BFLOAT16: return 2;
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT:
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_INT32:
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT32: return 4;
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_INT64:
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_DOUBLE:
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT64:
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_COMPLEX64: return 8;
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_COMPLEX128: return 16;
    default: return 0;  // undefined, string, packed sub-byte types, unknown numbers
  }
}

bool TensorBytes(ONNXTensorElementDataType type, size_t elements, size_t* bytes) noexcept {
  // Numbers 24..26 as ONNX's TensorProto numbers them (24 FLOAT8E8M0, one byte; 25 UINT2 and 26
  // INT2, four per byte) and ONNX Runtime 1.30's library sizes them; the API 29 header's enum
  // lists UINT2, INT2, FLOAT8E8M0 in that order, which gives other numbers to the same names.
  constexpr int kOnnxFloat8E8M0 = 24, kOnnxUint2 = 25, kOnnxInt2 = 26;
  size_t per_byte = 0;  // elements per byte for packed types
  switch (static_cast<int>(type)) {
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT4:
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_INT4:
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT4E2M1: per_byte = 2; break;
    case kOnnxUint2:
    case kOnnxInt2: per_byte = 4; break;
    case kOnnxFloat8E8M0: *bytes = elements; return true;
    default: break;
  }
  if (per_byte != 0) {
    *bytes = elements / per_byte + (elements % per_byte != 0 ? 1 : 0);
    return true;
  }
  const size_t size = OrtElementSize(type);
  if (size == 0 || elements > std::numeric_limits<size_t>::max() / size) return false;
  *bytes = elements * size;
  return true;
}

namespace {

// What a value made here owns: its data (freed by the allocator that made or received it) and a
// copy of the memory info (the caller may release its own right after creating the value).
struct ValueStorage {
  OrtMemoryInfo memory_info;
  std::shared_ptr<void> data;
};

// Checks `type` and `shape` for a new tensor and computes its element count and byte size
// (strings: count * sizeof(std::string)). Errors name `function`: ORT_FAIL for a negative dim
// or overflow, ORT_NOT_IMPLEMENTED for an element type without a size (as ONNX Runtime).
OrtStatus* CheckNewTensor(const char* function, const int64_t* shape, size_t shape_len,
                          ONNXTensorElementDataType type, size_t* elements, size_t* bytes) {
  if (shape == nullptr && shape_len != 0) {
    return InvalidArgument(function, "argument 'shape' is null but shape_len is " +
                                         std::to_string(shape_len) + "; pass the dims");
  }
  *elements = 1;
  for (size_t i = 0; i < shape_len; ++i) {
    if (shape[i] < 0) {
      return MakeOrtStatus(ORT_FAIL, std::string(function) + ": dim " + std::to_string(i) +
                                         " of the shape is " + std::to_string(shape[i]) +
                                         "; dims must be >= 0");
    }
    const auto dim = static_cast<size_t>(shape[i]);
    if (dim != 0 && *elements > std::numeric_limits<size_t>::max() / dim) {
      return MakeOrtStatus(ORT_FAIL, std::string(function) +
                                         ": the shape's element count overflows size_t");
    }
    *elements *= dim;
  }
  if (type == ONNX_TENSOR_ELEMENT_DATA_TYPE_STRING) {
    if (*elements > std::numeric_limits<size_t>::max() / sizeof(std::string)) {
      return MakeOrtStatus(ORT_FAIL, std::string(function) + ": the string tensor is too large");
    }
    *bytes = *elements * sizeof(std::string);
    return nullptr;
  }
  if (!TensorBytes(type, *elements, bytes)) {
    return MakeOrtStatus(ORT_NOT_IMPLEMENTED,
                         std::string(function) + ": element type " + std::to_string(type) +
                             " is not a tensor element type nxrt can size (or the byte size "
                             "overflows); pass an ONNXTensorElementDataType");
  }
  return nullptr;
}

// The element type argument of the CreateTensor* functions, as CheckEnumArg with ONNX Runtime
// 1.30's code for a number that is no element type (ORT_NOT_IMPLEMENTED "tensor type 99 is not
// supported").
OrtStatus* CheckElementTypeArg(const char* function, const ONNXTensorElementDataType& type) {
  return CheckEnumArg(function, "type", type, ORT_NOT_IMPLEMENTED);
}

// A view argument check: string tensors cannot live in a caller's buffer.
OrtStatus* RejectStringView(const char* function, ONNXTensorElementDataType type) {
  if (type != ONNX_TENSOR_ELEMENT_DATA_TYPE_STRING) return nullptr;
  return InvalidArgument(function, "string tensors cannot be made over a caller's buffer; use "
                                   "CreateTensorAsOrtValue and FillStringTensor");
}

// Version check of a plugin's OrtAllocator for `function` (Alloc/Free/Info exist since 1).
OrtStatus* CheckAllocator(const char* function, const OrtAllocator* allocator, bool needs_alloc) {
  if (allocator->version == 0) {
    return InvalidArgument(function, "OrtAllocator::version is 0; set it to ORT_API_VERSION");
  }
  if ((needs_alloc && allocator->Alloc == nullptr) || allocator->Free == nullptr ||
      allocator->Info == nullptr) {
    return InvalidArgument(function, "the allocator leaves Alloc, Free or Info null; set them");
  }
  return nullptr;
}

std::unique_ptr<OrtValue> NewTensorValue(ONNXTensorElementDataType type, const int64_t* shape,
                                         size_t shape_len, size_t bytes,
                                         std::shared_ptr<ValueStorage> storage, void* data) {
  auto value = std::make_unique<OrtValue>();
  value->element_type = type;
  value->shape.assign(shape, shape + shape_len);
  value->data = data;
  value->bytes = bytes;
  value->memory_info = &storage->memory_info;
  value->owner = std::move(storage);
  return value;
}

// OrtApi::CreateTensorAsOrtValue: `bytes` from allocator->Alloc (none for an empty tensor), freed
// with allocator->Free when the value is released. The allocator must outlive the value.
OrtStatus* ORT_API_CALL CreateTensorAsOrtValueImpl(OrtAllocator* allocator, const int64_t* shape,
                                                   size_t shape_len, ONNXTensorElementDataType type,
                                                   OrtValue** out) noexcept {
  constexpr const char* kFn = "OrtApi::CreateTensorAsOrtValue";
  if (OrtStatus* s = CheckArgs(kFn, {{"allocator", allocator}, {"out", out}})) return s;
  if (OrtStatus* s = CheckElementTypeArg(kFn, type)) return s;
  return Guarded(kFn, [&]() -> OrtStatus* {
    size_t elements = 0, bytes = 0;
    if (OrtStatus* s = CheckNewTensor(kFn, shape, shape_len, type, &elements, &bytes)) return s;
    if (OrtStatus* s = CheckAllocator(kFn, allocator, true)) return s;
    auto storage = std::make_shared<ValueStorage>();
    if (const OrtMemoryInfo* info = allocator->Info(allocator)) storage->memory_info = *info;
    void* data = nullptr;
    if (type == ONNX_TENSOR_ELEMENT_DATA_TYPE_STRING) {
      // The strings are the value's own (std::string objects, not allocator bytes).
      auto strings = std::shared_ptr<std::string[]>(new std::string[elements]);
      data = strings.get();
      storage->data = std::move(strings);
    } else if (bytes != 0) {
      data = allocator->Alloc(allocator, bytes);
      if (data == nullptr) {
        return MakeOrtStatus(ORT_FAIL, std::string(kFn) + ": the allocator returned null for " +
                                           std::to_string(bytes) +
                                           " bytes; free memory or use a smaller shape");
      }
      storage->data = std::shared_ptr<void>(data, [allocator](void* p) { allocator->Free(allocator, p); });
    }
    *out = NewTensorValue(type, shape, shape_len, bytes, std::move(storage), data).release();
    return nullptr;
  });
}

// OrtApi::CreateTensorWithDataAsOrtValue: a view of `p_data` (the caller keeps ownership and
// keeps it alive); `p_data_len` must cover the tensor.
OrtStatus* ORT_API_CALL CreateTensorWithDataAsOrtValueImpl(const OrtMemoryInfo* info, void* p_data,
                                                           size_t p_data_len, const int64_t* shape,
                                                           size_t shape_len,
                                                           ONNXTensorElementDataType type,
                                                           OrtValue** out) noexcept {
  constexpr const char* kFn = "OrtApi::CreateTensorWithDataAsOrtValue";
  if (OrtStatus* s = CheckArgs(kFn, {{"info", info}, {"out", out}})) return s;
  if (OrtStatus* s = CheckElementTypeArg(kFn, type)) return s;
  return Guarded(kFn, [&]() -> OrtStatus* {
    if (OrtStatus* s = RejectStringView(kFn, type)) return s;
    size_t elements = 0, bytes = 0;
    if (OrtStatus* s = CheckNewTensor(kFn, shape, shape_len, type, &elements, &bytes)) return s;
    if (p_data_len < bytes || (p_data == nullptr && bytes != 0)) {
      return InvalidArgument(kFn, "the buffer holds " + std::to_string(p_data == nullptr ? 0 : p_data_len) +
                                      " bytes, the tensor needs " + std::to_string(bytes) +
                                      "; pass a buffer that covers the shape");
    }
    auto storage = std::make_shared<ValueStorage>();
    storage->memory_info = *info;
    *out = NewTensorValue(type, shape, shape_len, bytes, std::move(storage), p_data).release();
    return nullptr;
  });
}

// OrtApi::CreateTensorWithDataAndDeleterAsOrtValue: takes ownership of `p_data`, freed with
// deleter->Free on release; the memory info is deleter->Info's.
OrtStatus* ORT_API_CALL CreateTensorWithDataAndDeleterAsOrtValueImpl(
    OrtAllocator* deleter, void* p_data, size_t p_data_len, const int64_t* shape, size_t shape_len,
    ONNXTensorElementDataType type, OrtValue** out) noexcept {
  constexpr const char* kFn = "OrtApi::CreateTensorWithDataAndDeleterAsOrtValue";
  if (OrtStatus* s = CheckArgs(kFn, {{"deleter", deleter}, {"out", out}})) return s;
  if (OrtStatus* s = CheckElementTypeArg(kFn, type)) return s;
  return Guarded(kFn, [&]() -> OrtStatus* {
    if (OrtStatus* s = RejectStringView(kFn, type)) return s;
    size_t elements = 0, bytes = 0;
    if (OrtStatus* s = CheckNewTensor(kFn, shape, shape_len, type, &elements, &bytes)) return s;
    if (OrtStatus* s = CheckAllocator(kFn, deleter, false)) return s;
    if (p_data_len < bytes || (p_data == nullptr && bytes != 0)) {
      return InvalidArgument(kFn, "the buffer holds " + std::to_string(p_data == nullptr ? 0 : p_data_len) +
                                      " bytes, the tensor needs " + std::to_string(bytes) +
                                      "; pass a buffer that covers the shape");
    }
    auto storage = std::make_shared<ValueStorage>();
    if (const OrtMemoryInfo* info = deleter->Info(deleter)) storage->memory_info = *info;
    if (p_data != nullptr) {
      storage->data = std::shared_ptr<void>(p_data, [deleter](void* p) { deleter->Free(deleter, p); });
    }
    *out = NewTensorValue(type, shape, shape_len, bytes, std::move(storage), p_data).release();
    return nullptr;
  });
}

void ORT_API_CALL ReleaseValueImpl(OrtValue* value) noexcept { delete value; }

bool IsTensorValue(const OrtValue* value) { return value->is_tensor(); }

OrtStatus* NotATensor(const char* function) {
  return InvalidArgument(function, "the value is not a tensor (it holds no element type)");
}

OrtStatus* ORT_API_CALL IsTensorImpl(const OrtValue* value, int* out) noexcept {
  if (OrtStatus* s = CheckArgs("OrtApi::IsTensor", {{"value", value}, {"out", out}})) return s;
  *out = IsTensorValue(value) ? 1 : 0;
  return nullptr;
}

// OrtApi::HasValue: 0 for an optional that holds nothing and for a plugin's omitted input (no
// element type), else 1.
OrtStatus* ORT_API_CALL HasValueImpl(const OrtValue* value, int* out) noexcept {
  if (OrtStatus* s = CheckArgs("OrtApi::HasValue", {{"value", value}, {"out", out}})) return s;
  *out = value->type == ONNX_TYPE_SEQUENCE || value->type == ONNX_TYPE_MAP || IsTensorValue(value)
             ? 1
             : 0;
  return nullptr;
}

OrtStatus* ORT_API_CALL GetTensorMutableDataImpl(OrtValue* value, void** out) noexcept {
  constexpr const char* kFn = "OrtApi::GetTensorMutableData";
  if (OrtStatus* s = CheckArgs(kFn, {{"value", value}, {"out", out}})) return s;
  if (!IsTensorValue(value)) return NotATensor(kFn);
  *out = value->data;
  return nullptr;
}

OrtStatus* ORT_API_CALL GetTensorDataImpl(const OrtValue* value, const void** out) noexcept {
  constexpr const char* kFn = "OrtApi::GetTensorData";
  if (OrtStatus* s = CheckArgs(kFn, {{"value", value}, {"out", out}})) return s;
  if (!IsTensorValue(value)) return NotATensor(kFn);
  *out = value->data;
  return nullptr;
}

std::unique_ptr<OrtTensorTypeAndShapeInfo> ValueTensorInfo(const OrtValue& value) {
  auto info = std::make_unique<OrtTensorTypeAndShapeInfo>();
  info->element_type = value.element_type;
  info->dims = value.shape;
  info->symbolic_dims.assign(value.shape.size(), std::string());
  for (const std::string& name : info->symbolic_dims) info->symbolic_dim_ptrs.push_back(name.c_str());
  info->has_shape = true;
  return info;
}

// OrtApi::GetTensorTypeAndShape: a new info the caller releases.
OrtStatus* ORT_API_CALL GetTensorTypeAndShapeImpl(const OrtValue* value,
                                                  OrtTensorTypeAndShapeInfo** out) noexcept {
  constexpr const char* kFn = "OrtApi::GetTensorTypeAndShape";
  if (OrtStatus* s = CheckArgs(kFn, {{"value", value}, {"out", out}})) return s;
  if (!IsTensorValue(value)) return NotATensor(kFn);
  return Guarded(kFn, [&]() -> OrtStatus* {
    *out = ValueTensorInfo(*value).release();
    return nullptr;
  });
}

// OrtApi::GetTensorMemoryInfo: owned by the value; host memory when the value names none.
OrtStatus* ORT_API_CALL GetTensorMemoryInfoImpl(const OrtValue* value,
                                                const OrtMemoryInfo** mem_info) noexcept {
  constexpr const char* kFn = "OrtApi::GetTensorMemoryInfo";
  if (OrtStatus* s = CheckArgs(kFn, {{"value", value}, {"mem_info", mem_info}})) return s;
  if (!IsTensorValue(value)) return NotATensor(kFn);
  *mem_info = value->memory_info != nullptr ? value->memory_info : &DefaultCpuAllocator().info;
  return nullptr;
}

OrtStatus* ORT_API_CALL GetTensorSizeInBytesImpl(const OrtValue* value, size_t* size) noexcept {
  constexpr const char* kFn = "OrtApi::GetTensorSizeInBytes";
  if (OrtStatus* s = CheckArgs(kFn, {{"ort_value", value}, {"size", size}})) return s;
  if (!IsTensorValue(value)) return NotATensor(kFn);
  if (value->element_type == ONNX_TENSOR_ELEMENT_DATA_TYPE_STRING) {
    return InvalidArgument(kFn, "the value is a string tensor; it has no fixed byte size");
  }
  *size = value->bytes;
  return nullptr;
}

// OrtApi::GetValueType: tensor, sequence or map; ONNX_TYPE_OPTIONAL for an optional that holds
// nothing; ONNX_TYPE_UNKNOWN for a plugin's omitted input.
OrtStatus* ORT_API_CALL GetValueTypeImpl(const OrtValue* value, ONNXType* out) noexcept {
  if (OrtStatus* s = CheckArgs("OrtApi::GetValueType", {{"value", value}, {"out", out}})) return s;
  *out = value->type == ONNX_TYPE_TENSOR && !IsTensorValue(value) ? ONNX_TYPE_UNKNOWN : value->type;
  return nullptr;
}

// The type info of `value`: tensors with their element type and dims; sequences of tensors with
// a tensor of their element type and rank 0 (ORT gives no element shape, the elements' dims
// differ), sequences of maps with their first map's type; maps with their key type and a value
// type without a shape; nullptr for values without a type.
std::unique_ptr<OrtTypeInfo> TypeInfoOfValue(const OrtValue& value) {
  auto info = std::make_unique<OrtTypeInfo>();
  info->type = value.type;
  if (value.type == ONNX_TYPE_TENSOR) {
    if (!value.is_tensor()) return nullptr;
    info->tensor = ValueTensorInfo(value);
  } else if (value.type == ONNX_TYPE_SEQUENCE) {
    if (value.element_type != ONNX_TENSOR_ELEMENT_DATA_TYPE_UNDEFINED) {
      info->element = std::make_unique<OrtTypeInfo>();
      info->element->type = ONNX_TYPE_TENSOR;
      info->element->tensor = std::make_unique<OrtTensorTypeAndShapeInfo>();
      info->element->tensor->element_type = value.element_type;
    } else if (!value.elements.empty()) {
      info->element = TypeInfoOfValue(*value.elements.front());
    }
  } else if (value.type == ONNX_TYPE_MAP && value.elements.size() == 2) {
    info->map_key = value.elements[0]->element_type;
    info->element = std::make_unique<OrtTypeInfo>();
    info->element->type = ONNX_TYPE_TENSOR;
    info->element->tensor = std::make_unique<OrtTensorTypeAndShapeInfo>();
    info->element->tensor->element_type = value.elements[1]->element_type;
    info->element->tensor->has_shape = false;
  } else {
    return nullptr;
  }
  return info;
}

// OrtApi::GetTypeInfo: a new type info the caller releases (null for a value without a type,
// as ORT's _Outptr_result_maybenull_ allows).
OrtStatus* ORT_API_CALL GetTypeInfoImpl(const OrtValue* value, OrtTypeInfo** out) noexcept {
  constexpr const char* kFn = "OrtApi::GetTypeInfo";
  if (OrtStatus* s = CheckArgs(kFn, {{"value", value}, {"out", out}})) return s;
  return Guarded(kFn, [&]() -> OrtStatus* {
    *out = TypeInfoOfValue(*value).release();
    return nullptr;
  });
}

// OrtApi::GetTensorElementTypeAndShapeDataReference: the value's own dims (null for a scalar).
OrtStatus* ORT_API_CALL GetTensorElementTypeAndShapeDataReferenceImpl(
    const OrtValue* value, ONNXTensorElementDataType* elem_type, const int64_t** shape_data,
    size_t* shape_data_count) noexcept {
  constexpr const char* kFn = "OrtApi::GetTensorElementTypeAndShapeDataReference";
  if (OrtStatus* s = CheckArgs(kFn, {{"value", value},
                                     {"elem_type", elem_type},
                                     {"shape_data", shape_data},
                                     {"shape_data_count", shape_data_count}})) {
    return s;
  }
  if (!IsTensorValue(value)) return NotATensor(kFn);
  *elem_type = value->element_type;
  *shape_data = value->shape.empty() ? nullptr : value->shape.data();
  *shape_data_count = value->shape.size();
  return nullptr;
}

// ---- OrtTypeInfo ----

}  // namespace

std::unique_ptr<OrtTensorTypeAndShapeInfo> CloneTensorInfo(const OrtTensorTypeAndShapeInfo& from) {
  auto info = std::make_unique<OrtTensorTypeAndShapeInfo>();
  info->element_type = from.element_type;
  info->dims = from.dims;
  info->symbolic_dims = from.symbolic_dims;
  for (const std::string& name : info->symbolic_dims) info->symbolic_dim_ptrs.push_back(name.c_str());
  info->has_shape = from.has_shape;
  return info;
}

std::unique_ptr<OrtTypeInfo> CloneTypeInfo(const OrtTypeInfo& from) {
  auto info = std::make_unique<OrtTypeInfo>();
  info->type = from.type;
  if (from.tensor) info->tensor = CloneTensorInfo(*from.tensor);
  if (from.element) info->element = CloneTypeInfo(*from.element);
  info->map_key = from.map_key;
  info->denotation = from.denotation;
  return info;
}

namespace {

OrtStatus* ORT_API_CALL GetOnnxTypeFromTypeInfoImpl(const OrtTypeInfo* type_info,
                                                    ONNXType* out) noexcept {
  if (OrtStatus* s = CheckArgs("OrtApi::GetOnnxTypeFromTypeInfo",
                               {{"type_info", type_info}, {"out", out}})) {
    return s;
  }
  *out = type_info->type;
  return nullptr;
}

// OrtApi::CastTypeInfoToTensorInfo: the tensor info owned by `type_info`; null (and ok) when the
// type is not a tensor or sparse tensor.
OrtStatus* ORT_API_CALL CastTypeInfoToTensorInfoImpl(const OrtTypeInfo* type_info,
                                                     const OrtTensorTypeAndShapeInfo** out) noexcept {
  if (OrtStatus* s = CheckArgs("OrtApi::CastTypeInfoToTensorInfo",
                               {{"type_info", type_info}, {"out", out}})) {
    return s;
  }
  const bool tensor =
      type_info->type == ONNX_TYPE_TENSOR || type_info->type == ONNX_TYPE_SPARSETENSOR;
  *out = tensor ? type_info->tensor.get() : nullptr;
  return nullptr;
}

template <typename View>
OrtStatus* CastTypeInfo(const char* function, const OrtTypeInfo* type_info, ONNXType type,
                        const View** out) {
  if (OrtStatus* s = CheckArgs(function, {{"type_info", type_info}, {"out", out}})) return s;
  *out = type_info->type == type ? reinterpret_cast<const View*>(type_info) : nullptr;
  return nullptr;
}

template <typename View>
const OrtTypeInfo* FromView(const View* view) {
  return reinterpret_cast<const OrtTypeInfo*>(view);
}

OrtStatus* ORT_API_CALL CastTypeInfoToSequenceTypeInfoImpl(const OrtTypeInfo* type_info,
                                                           const OrtSequenceTypeInfo** out) noexcept {
  return CastTypeInfo("OrtApi::CastTypeInfoToSequenceTypeInfo", type_info, ONNX_TYPE_SEQUENCE, out);
}
OrtStatus* ORT_API_CALL CastTypeInfoToMapTypeInfoImpl(const OrtTypeInfo* type_info,
                                                      const OrtMapTypeInfo** out) noexcept {
  return CastTypeInfo("OrtApi::CastTypeInfoToMapTypeInfo", type_info, ONNX_TYPE_MAP, out);
}
OrtStatus* ORT_API_CALL CastTypeInfoToOptionalTypeInfoImpl(const OrtTypeInfo* type_info,
                                                           const OrtOptionalTypeInfo** out) noexcept {
  return CastTypeInfo("OrtApi::CastTypeInfoToOptionalTypeInfo", type_info, ONNX_TYPE_OPTIONAL, out);
}

// A copy of the contained type of a sequence, map value or optional, which the caller releases.
OrtStatus* CopyContained(const char* function, const OrtTypeInfo* container, OrtTypeInfo** out) {
  return Guarded(function, [&]() -> OrtStatus* {
    if (container->element == nullptr) {
      return InvalidArgument(function, "the type info has no contained type (the model does not "
                                       "say); check GetOnnxTypeFromTypeInfo first");
    }
    *out = CloneTypeInfo(*container->element).release();
    return nullptr;
  });
}

OrtStatus* ORT_API_CALL GetSequenceElementTypeImpl(const OrtSequenceTypeInfo* info,
                                                   OrtTypeInfo** out) noexcept {
  constexpr const char* kFn = "OrtApi::GetSequenceElementType";
  if (OrtStatus* s = CheckArgs(kFn, {{"sequence_type_info", info}, {"type_info", out}})) return s;
  return CopyContained(kFn, FromView(info), out);
}

OrtStatus* ORT_API_CALL GetOptionalContainedTypeInfoImpl(const OrtOptionalTypeInfo* info,
                                                         OrtTypeInfo** out) noexcept {
  constexpr const char* kFn = "OrtApi::GetOptionalContainedTypeInfo";
  if (OrtStatus* s = CheckArgs(kFn, {{"optional_type_info", info}, {"out", out}})) return s;
  return CopyContained(kFn, FromView(info), out);
}

OrtStatus* ORT_API_CALL GetMapKeyTypeImpl(const OrtMapTypeInfo* info,
                                          ONNXTensorElementDataType* out) noexcept {
  if (OrtStatus* s = CheckArgs("OrtApi::GetMapKeyType", {{"map_type_info", info}, {"out", out}})) {
    return s;
  }
  *out = FromView(info)->map_key;
  return nullptr;
}

OrtStatus* ORT_API_CALL GetMapValueTypeImpl(const OrtMapTypeInfo* info, OrtTypeInfo** out) noexcept {
  constexpr const char* kFn = "OrtApi::GetMapValueType";
  if (OrtStatus* s = CheckArgs(kFn, {{"map_type_info", info}, {"type_info", out}})) return s;
  return CopyContained(kFn, FromView(info), out);
}

// OrtApi::GetDenotationFromTypeInfo: owned by `type_info`; "" and 0 when there is none.
OrtStatus* ORT_API_CALL GetDenotationFromTypeInfoImpl(const OrtTypeInfo* type_info,
                                                      const char** const denotation,
                                                      size_t* len) noexcept {
  if (OrtStatus* s = CheckArgs("OrtApi::GetDenotationFromTypeInfo",
                               {{"type_info", type_info}, {"denotation", denotation}, {"len", len}})) {
    return s;
  }
  *denotation = type_info->denotation.c_str();
  *len = type_info->denotation.size();
  return nullptr;
}

void ORT_API_CALL ReleaseTypeInfoImpl(OrtTypeInfo* type_info) noexcept { delete type_info; }

// OrtApi::ReleaseMapTypeInfo / ReleaseSequenceTypeInfo: the views CastTypeInfoTo* return belong
// to their OrtTypeInfo (ReleaseTypeInfo frees them), so releasing one does nothing.
void ORT_API_CALL ReleaseMapTypeInfoImpl(OrtMapTypeInfo* /*info*/) noexcept {}
void ORT_API_CALL ReleaseSequenceTypeInfoImpl(OrtSequenceTypeInfo* /*info*/) noexcept {}

// ---- OrtTensorTypeAndShapeInfo ----

// OrtApi::CreateTensorTypeAndShapeInfo: undefined element type, no shape until SetDimensions.
OrtStatus* ORT_API_CALL CreateTensorTypeAndShapeInfoImpl(OrtTensorTypeAndShapeInfo** out) noexcept {
  constexpr const char* kFn = "OrtApi::CreateTensorTypeAndShapeInfo";
  if (OrtStatus* s = CheckArgs(kFn, {{"out", out}})) return s;
  return Guarded(kFn, [&]() -> OrtStatus* {
    auto info = std::make_unique<OrtTensorTypeAndShapeInfo>();
    info->has_shape = false;
    *out = info.release();
    return nullptr;
  });
}

OrtStatus* ORT_API_CALL SetTensorElementTypeImpl(OrtTensorTypeAndShapeInfo* info,
                                                 ONNXTensorElementDataType type) noexcept {
  constexpr const char* kFn = "OrtApi::SetTensorElementType";
  if (OrtStatus* s = CheckArgs(kFn, {{"info", info}})) return s;
  if (OrtStatus* s = CheckEnumArg(kFn, "type", type)) return s;
  info->element_type = type;
  return nullptr;
}

void RefreshSymbolicPointers(OrtTensorTypeAndShapeInfo& info) {
  info.symbolic_dim_ptrs.clear();
  for (const std::string& name : info.symbolic_dims) info.symbolic_dim_ptrs.push_back(name.c_str());
}

// OrtApi::SetDimensions: sets the rank and dims (-1: unknown); symbolic names of kept dims stay.
OrtStatus* ORT_API_CALL SetDimensionsImpl(OrtTensorTypeAndShapeInfo* info, const int64_t* dim_values,
                                          size_t dim_count) noexcept {
  constexpr const char* kFn = "OrtApi::SetDimensions";
  if (OrtStatus* s = CheckArgs(kFn, {{"info", info}})) return s;
  if (dim_values == nullptr && dim_count != 0) {
    return InvalidArgument(kFn, "argument 'dim_values' is null but dim_count is " +
                                    std::to_string(dim_count) + "; pass the dims");
  }
  return Guarded(kFn, [&]() -> OrtStatus* {
    info->dims.assign(dim_values, dim_values + dim_count);
    info->symbolic_dims.resize(dim_count);
    RefreshSymbolicPointers(*info);
    info->has_shape = true;
    return nullptr;
  });
}

// OrtApi::SetSymbolicDimensions: names for dims 0..dim_params_length-1 (null entries → "").
OrtStatus* ORT_API_CALL SetSymbolicDimensionsImpl(OrtTensorTypeAndShapeInfo* info,
                                                  const char* dim_params[],
                                                  size_t dim_params_length) noexcept {
  constexpr const char* kFn = "OrtApi::SetSymbolicDimensions";
  if (OrtStatus* s = CheckArgs(kFn, {{"info", info}})) return s;
  if (dim_params == nullptr && dim_params_length != 0) {
    return InvalidArgument(kFn, "argument 'dim_params' is null but dim_params_length is " +
                                    std::to_string(dim_params_length) + "; pass the names");
  }
  return Guarded(kFn, [&]() -> OrtStatus* {
    std::vector<std::string> names;
    for (size_t i = 0; i < dim_params_length; ++i) {
      names.emplace_back(dim_params[i] != nullptr ? dim_params[i] : "");
    }
    info->symbolic_dims = std::move(names);
    RefreshSymbolicPointers(*info);
    return nullptr;
  });
}

OrtStatus* ORT_API_CALL GetTensorElementTypeImpl(const OrtTensorTypeAndShapeInfo* info,
                                                 ONNXTensorElementDataType* out) noexcept {
  if (OrtStatus* s = CheckArgs("OrtApi::GetTensorElementType", {{"info", info}, {"out", out}})) {
    return s;
  }
  *out = info->element_type;
  return nullptr;
}

OrtStatus* ORT_API_CALL GetDimensionsCountImpl(const OrtTensorTypeAndShapeInfo* info,
                                               size_t* out) noexcept {
  if (OrtStatus* s = CheckArgs("OrtApi::GetDimensionsCount", {{"info", info}, {"out", out}})) {
    return s;
  }
  *out = info->dims.size();
  return nullptr;
}

// OrtApi::GetDimensions: the first min(dim_values_length, rank) dims.
OrtStatus* ORT_API_CALL GetDimensionsImpl(const OrtTensorTypeAndShapeInfo* info, int64_t* dim_values,
                                          size_t dim_values_length) noexcept {
  constexpr const char* kFn = "OrtApi::GetDimensions";
  if (OrtStatus* s = CheckArgs(kFn, {{"info", info}})) return s;
  const size_t n = std::min(dim_values_length, info->dims.size());
  if (n != 0 && dim_values == nullptr) {
    return InvalidArgument(kFn, "argument 'dim_values' is null; pass an array of " +
                                    std::to_string(info->dims.size()) + " dims");
  }
  std::copy_n(info->dims.begin(), n, dim_values);
  return nullptr;
}

// OrtApi::GetSymbolicDimensions: the first min(dim_params_length, rank) names, "" for dims
// without one; owned by `info`.
OrtStatus* ORT_API_CALL GetSymbolicDimensionsImpl(const OrtTensorTypeAndShapeInfo* info,
                                                  const char* dim_params[],
                                                  size_t dim_params_length) noexcept {
  constexpr const char* kFn = "OrtApi::GetSymbolicDimensions";
  if (OrtStatus* s = CheckArgs(kFn, {{"info", info}})) return s;
  const size_t n = std::min(dim_params_length, info->dims.size());
  if (n != 0 && dim_params == nullptr) {
    return InvalidArgument(kFn, "argument 'dim_params' is null; pass an array of " +
                                    std::to_string(info->dims.size()) + " pointers");
  }
  for (size_t i = 0; i < n; ++i) {
    dim_params[i] = i < info->symbolic_dims.size() ? info->symbolic_dims[i].c_str() : "";
  }
  return nullptr;
}

// OrtApi::GetTensorShapeElementCount: product of the dims; 1 for rank 0; 0 for an info without
// a shape (CreateTensorTypeAndShapeInfo before SetDimensions). A negative (unknown) dim or a
// product past size_t is ORT_FAIL, as in ONNX Runtime 1.30 (its header promises -1 instead).
OrtStatus* ORT_API_CALL GetTensorShapeElementCountImpl(const OrtTensorTypeAndShapeInfo* info,
                                                       size_t* out) noexcept {
  constexpr const char* kFn = "OrtApi::GetTensorShapeElementCount";
  if (OrtStatus* s = CheckArgs(kFn, {{"info", info}, {"out", out}})) return s;
  if (!info->has_shape) {
    *out = 0;
    return nullptr;
  }
  bool has_zero = false;
  for (int64_t dim : info->dims) {
    if (dim < 0) {
      return MakeOrtStatus(ORT_FAIL, std::string(kFn) + ": the shape has an unknown dim (" +
                                         std::to_string(dim) + "), so its element count is not "
                                         "known; check the dims with GetDimensions first");
    }
    has_zero = has_zero || dim == 0;
  }
  size_t count = 1;
  if (!has_zero) {
    for (int64_t dim : info->dims) {
      const auto d = static_cast<size_t>(dim);
      if (count > std::numeric_limits<size_t>::max() / d) {
        return MakeOrtStatus(ORT_FAIL, std::string(kFn) + ": the element count of the shape "
                                                          "overflows size_t");
      }
      count *= d;
    }
  }
  *out = has_zero ? 0 : count;
  return nullptr;
}

bool ORT_API_CALL TensorTypeAndShapeHasShapeImpl(const OrtTensorTypeAndShapeInfo* info) noexcept {
  return info != nullptr && info->has_shape;
}

void ORT_API_CALL ReleaseTensorTypeAndShapeInfoImpl(OrtTensorTypeAndShapeInfo* info) noexcept {
  delete info;
}

// ---- OrtModelEditorApi: type infos (the caller releases them with ReleaseTypeInfo) ----

// A new type info of `type` (ONNX_TYPE_TENSOR or _SPARSETENSOR) over a copy of `tensor_info`.
OrtStatus* NewTensorTypeInfo(const char* function, ONNXType type,
                             const OrtTensorTypeAndShapeInfo* tensor_info, OrtTypeInfo** out) {
  if (OrtStatus* s = CheckArgs(function, {{"tensor_info", tensor_info}, {"type_info", out}})) {
    return s;
  }
  return Guarded(function, [&]() -> OrtStatus* {
    auto info = std::make_unique<OrtTypeInfo>();
    info->type = type;
    info->tensor = CloneTensorInfo(*tensor_info);
    *out = info.release();
    return nullptr;
  });
}

// OrtModelEditorApi::CreateTensorTypeInfo.
OrtStatus* ORT_API_CALL CreateTensorTypeInfoImpl(const OrtTensorTypeAndShapeInfo* tensor_info,
                                                 OrtTypeInfo** type_info) noexcept {
  return NewTensorTypeInfo("OrtModelEditorApi::CreateTensorTypeInfo", ONNX_TYPE_TENSOR,
                           tensor_info, type_info);
}

// OrtModelEditorApi::CreateSparseTensorTypeInfo: the type only (nxrt holds no sparse values).
OrtStatus* ORT_API_CALL CreateSparseTensorTypeInfoImpl(const OrtTensorTypeAndShapeInfo* tensor_info,
                                                       OrtTypeInfo** type_info) noexcept {
  return NewTensorTypeInfo("OrtModelEditorApi::CreateSparseTensorTypeInfo", ONNX_TYPE_SPARSETENSOR,
                           tensor_info, type_info);
}

// A new type info of `type` (sequence, optional, map) holding a copy of `element`.
OrtStatus* NewContainerTypeInfo(const char* function, ONNXType type, const char* element_name,
                                const OrtTypeInfo* element, OrtTypeInfo** out,
                                ONNXTensorElementDataType map_key =
                                    ONNX_TENSOR_ELEMENT_DATA_TYPE_UNDEFINED) {
  if (OrtStatus* s = CheckArgs(function, {{element_name, element}, {"type_info", out}})) return s;
  return Guarded(function, [&]() -> OrtStatus* {
    auto info = std::make_unique<OrtTypeInfo>();
    info->type = type;
    info->element = CloneTypeInfo(*element);
    info->map_key = map_key;
    *out = info.release();
    return nullptr;
  });
}

// OrtModelEditorApi::CreateMapTypeInfo: keys are strings or integers (ONNX's map key types).
OrtStatus* ORT_API_CALL CreateMapTypeInfoImpl(ONNXTensorElementDataType map_key_type,
                                              const OrtTypeInfo* map_value_type,
                                              OrtTypeInfo** type_info) noexcept {
  constexpr const char* kFn = "OrtModelEditorApi::CreateMapTypeInfo";
  if (OrtStatus* s = CheckEnumArg(kFn, "map_key_type", map_key_type)) return s;
  switch (map_key_type) {
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_STRING:
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_INT8:
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_INT16:
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_INT32:
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_INT64:
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT8:
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT16:
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT32:
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT64:
      break;
    default:
      return InvalidArgument(kFn, "map_key_type " + std::to_string(map_key_type) +
                                      " is not a map key type; pass a string or integer "
                                      "element type (ONNX map keys)");
  }
  return NewContainerTypeInfo(kFn, ONNX_TYPE_MAP, "map_value_type", map_value_type, type_info,
                              map_key_type);
}

// OrtModelEditorApi::CreateSequenceTypeInfo.
OrtStatus* ORT_API_CALL CreateSequenceTypeInfoImpl(const OrtTypeInfo* sequence_type,
                                                   OrtTypeInfo** type_info) noexcept {
  return NewContainerTypeInfo("OrtModelEditorApi::CreateSequenceTypeInfo", ONNX_TYPE_SEQUENCE,
                              "sequence_type", sequence_type, type_info);
}

// OrtModelEditorApi::CreateOptionalTypeInfo.
OrtStatus* ORT_API_CALL CreateOptionalTypeInfoImpl(const OrtTypeInfo* contained_type,
                                                   OrtTypeInfo** type_info) noexcept {
  return NewContainerTypeInfo("OrtModelEditorApi::CreateOptionalTypeInfo", ONNX_TYPE_OPTIONAL,
                              "contained_type", contained_type, type_info);
}

}  // namespace

void InstallModelEditorTypeApi(OrtModelEditorApi& api) {
  api.CreateTensorTypeInfo = &CreateTensorTypeInfoImpl;
  api.CreateSparseTensorTypeInfo = &CreateSparseTensorTypeInfoImpl;
  api.CreateMapTypeInfo = &CreateMapTypeInfoImpl;
  api.CreateSequenceTypeInfo = &CreateSequenceTypeInfoImpl;
  api.CreateOptionalTypeInfo = &CreateOptionalTypeInfoImpl;
}

void InstallValueAndTypeApi(OrtApi& api, OrtEpApi& /*ep_api*/) {
  api.CreateTensorAsOrtValue = &CreateTensorAsOrtValueImpl;
  api.CreateTensorWithDataAsOrtValue = &CreateTensorWithDataAsOrtValueImpl;
  api.CreateTensorWithDataAndDeleterAsOrtValue = &CreateTensorWithDataAndDeleterAsOrtValueImpl;
  api.ReleaseValue = &ReleaseValueImpl;
  api.IsTensor = &IsTensorImpl;
  api.HasValue = &HasValueImpl;
  api.GetTensorMutableData = &GetTensorMutableDataImpl;
  api.GetTensorData = &GetTensorDataImpl;
  api.GetTensorTypeAndShape = &GetTensorTypeAndShapeImpl;
  api.GetTensorMemoryInfo = &GetTensorMemoryInfoImpl;
  api.GetTensorSizeInBytes = &GetTensorSizeInBytesImpl;
  api.GetValueType = &GetValueTypeImpl;
  api.GetTypeInfo = &GetTypeInfoImpl;
  api.GetTensorElementTypeAndShapeDataReference = &GetTensorElementTypeAndShapeDataReferenceImpl;
  api.GetOnnxTypeFromTypeInfo = &GetOnnxTypeFromTypeInfoImpl;
  api.CastTypeInfoToTensorInfo = &CastTypeInfoToTensorInfoImpl;
  api.CastTypeInfoToSequenceTypeInfo = &CastTypeInfoToSequenceTypeInfoImpl;
  api.CastTypeInfoToMapTypeInfo = &CastTypeInfoToMapTypeInfoImpl;
  api.CastTypeInfoToOptionalTypeInfo = &CastTypeInfoToOptionalTypeInfoImpl;
  api.GetSequenceElementType = &GetSequenceElementTypeImpl;
  api.GetOptionalContainedTypeInfo = &GetOptionalContainedTypeInfoImpl;
  api.GetMapKeyType = &GetMapKeyTypeImpl;
  api.GetMapValueType = &GetMapValueTypeImpl;
  api.GetDenotationFromTypeInfo = &GetDenotationFromTypeInfoImpl;
  api.ReleaseTypeInfo = &ReleaseTypeInfoImpl;
  api.ReleaseMapTypeInfo = &ReleaseMapTypeInfoImpl;
  api.ReleaseSequenceTypeInfo = &ReleaseSequenceTypeInfoImpl;
  api.CreateTensorTypeAndShapeInfo = &CreateTensorTypeAndShapeInfoImpl;
  api.SetTensorElementType = &SetTensorElementTypeImpl;
  api.SetDimensions = &SetDimensionsImpl;
  api.SetSymbolicDimensions = &SetSymbolicDimensionsImpl;
  api.GetTensorElementType = &GetTensorElementTypeImpl;
  api.GetDimensionsCount = &GetDimensionsCountImpl;
  api.GetDimensions = &GetDimensionsImpl;
  api.GetSymbolicDimensions = &GetSymbolicDimensionsImpl;
  api.GetTensorShapeElementCount = &GetTensorShapeElementCountImpl;
  api.TensorTypeAndShape_HasShape = &TensorTypeAndShapeHasShapeImpl;
  api.ReleaseTensorTypeAndShapeInfo = &ReleaseTensorTypeAndShapeInfoImpl;
}

}  // namespace nxrt::ort_plugin
