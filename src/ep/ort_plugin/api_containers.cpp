// ep/ort_plugin/api_containers.cpp: string tensors, sequences and maps as OrtValue: the functions
// applications use to feed and read ONNX-ML style values (ZipMap returns a sequence of maps).
//
// Layer: nxrt_ort_plugin (internal). A string tensor holds std::string objects (api_objects.h);
// a sequence owns deep copies of its elements (tensors of one element type, or maps of one
// key/value type); a map owns two 1-D tensors of equal length, keys sorted ascending (ONNX
// Runtime keeps maps in an ordered map: GetValue(map, 0) returns the keys sorted and
// GetValue(map, 1) the values in that order). GetValue returns deep copies the caller releases.
// Error codes are ONNX Runtime 1.30's: ORT_FAIL for a value of the wrong kind, a buffer that is
// too small, an index past the end of a sequence or map, or elements that do not fit together;
// ORT_INVALID_ARGUMENT for a string index past the end of a tensor.
// Source: onnxruntime_c_api.h (FillStringTensor, FillStringTensorElement,
// GetStringTensorDataLength, GetStringTensorContent, GetStringTensorElementLength,
// GetStringTensorElement, GetResizedStringTensorElementBuffer, CreateValue, GetValue,
// GetValueCount, TensorAt).
#include <algorithm>
#include <cstring>
#include <numeric>
#include <string>
#include <vector>

#include "ep/ort_plugin/api_internal.h"
#include "ep/ort_plugin/api_table.h"
#include "ep/ort_plugin/ort_c_api.h"
#include "nxrt/value.h"

namespace nxrt::ort_plugin {
namespace {

OrtStatus* Fail(const char* function, const std::string& detail) {
  return MakeOrtStatus(ORT_FAIL, std::string(function) + ": " + detail);
}

bool IsStringTensor(const OrtValue& value) {
  return value.is_tensor() && value.element_type == ONNX_TENSOR_ELEMENT_DATA_TYPE_STRING;
}

size_t ValueElementCount(const OrtValue& value) {
  return std::accumulate(value.shape.begin(), value.shape.end(), size_t{1},
                         [](size_t n, int64_t d) { return n * static_cast<size_t>(d); });
}

std::string* Strings(const OrtValue& value) { return static_cast<std::string*>(value.data); }

OrtStatus* NotStringTensor(const char* function) {
  return Fail(function, "the value is not a string tensor; pass a tensor of "
                        "ONNX_TENSOR_ELEMENT_DATA_TYPE_STRING");
}

// ---- string tensors ----

// OrtApi::FillStringTensor: copies s[0..s_len), which must be the tensor's element count.
OrtStatus* ORT_API_CALL FillStringTensorImpl(OrtValue* value, const char* const* s,
                                             size_t s_len) noexcept {
  constexpr const char* kFn = "OrtApi::FillStringTensor";
  if (OrtStatus* st = CheckArgs(kFn, {{"value", value}})) return st;
  if (s == nullptr && s_len != 0) return InvalidArgument(kFn, "argument 's' is null");
  return Guarded(kFn, [&]() -> OrtStatus* {
    if (!IsStringTensor(*value)) return NotStringTensor(kFn);
    const size_t count = ValueElementCount(*value);
    if (s_len != count) {
      return Fail(kFn, "s_len is " + std::to_string(s_len) + " but the tensor has " +
                           std::to_string(count) + " elements; pass one string per element");
    }
    for (size_t i = 0; i < count; ++i) {
      if (s[i] == nullptr) return InvalidArgument(kFn, "s[" + std::to_string(i) + "] is null");
    }
    for (size_t i = 0; i < count; ++i) Strings(*value)[i] = s[i];
    return nullptr;
  });
}

OrtStatus* CheckStringIndex(const char* function, const OrtValue& value, size_t index) {
  if (!IsStringTensor(value)) return NotStringTensor(function);
  const size_t count = ValueElementCount(value);
  if (index >= count) {
    return InvalidArgument(function, "index " + std::to_string(index) +
                                         " is out of range; the tensor has " +
                                         std::to_string(count) + " strings");
  }
  return nullptr;
}

OrtStatus* ORT_API_CALL FillStringTensorElementImpl(OrtValue* value, const char* s,
                                                    size_t index) noexcept {
  constexpr const char* kFn = "OrtApi::FillStringTensorElement";
  if (OrtStatus* st = CheckArgs(kFn, {{"value", value}, {"s", s}})) return st;
  return Guarded(kFn, [&]() -> OrtStatus* {
    if (OrtStatus* st = CheckStringIndex(kFn, *value, index)) return st;
    Strings(*value)[index] = s;
    return nullptr;
  });
}

// OrtApi::GetResizedStringTensorElementBuffer: element `index` resized to `length_in_bytes`;
// *buffer points at its bytes (no terminating NUL is promised), valid until the next change.
OrtStatus* ORT_API_CALL GetResizedStringTensorElementBufferImpl(OrtValue* value, size_t index,
                                                                size_t length_in_bytes,
                                                                char** buffer) noexcept {
  constexpr const char* kFn = "OrtApi::GetResizedStringTensorElementBuffer";
  if (OrtStatus* st = CheckArgs(kFn, {{"value", value}, {"buffer", buffer}})) return st;
  return Guarded(kFn, [&]() -> OrtStatus* {
    if (OrtStatus* st = CheckStringIndex(kFn, *value, index)) return st;
    std::string& element = Strings(*value)[index];
    element.resize(length_in_bytes);
    *buffer = element.data();
    return nullptr;
  });
}

// OrtApi::GetStringTensorDataLength: the bytes of all strings, without terminators.
OrtStatus* ORT_API_CALL GetStringTensorDataLengthImpl(const OrtValue* value, size_t* len) noexcept {
  constexpr const char* kFn = "OrtApi::GetStringTensorDataLength";
  if (OrtStatus* st = CheckArgs(kFn, {{"value", value}, {"len", len}})) return st;
  if (!IsStringTensor(*value)) return NotStringTensor(kFn);
  const size_t count = ValueElementCount(*value);
  size_t total = 0;
  for (size_t i = 0; i < count; ++i) total += Strings(*value)[i].size();
  *len = total;
  return nullptr;
}

// OrtApi::GetStringTensorContent: the strings back to back in s[0..s_len) and each one's start
// in offsets[0..count); offsets_len must be the element count and s_len at least the total.
OrtStatus* ORT_API_CALL GetStringTensorContentImpl(const OrtValue* value, void* s, size_t s_len,
                                                   size_t* offsets, size_t offsets_len) noexcept {
  constexpr const char* kFn = "OrtApi::GetStringTensorContent";
  if (OrtStatus* st = CheckArgs(kFn, {{"value", value}})) return st;
  return Guarded(kFn, [&]() -> OrtStatus* {
    if (!IsStringTensor(*value)) return NotStringTensor(kFn);
    const size_t count = ValueElementCount(*value);
    if (offsets_len != count) {
      return Fail(kFn, "offsets_len is " + std::to_string(offsets_len) + " but the tensor has " +
                           std::to_string(count) + " strings; pass one offset per string");
    }
    size_t total = 0;
    for (size_t i = 0; i < count; ++i) total += Strings(*value)[i].size();
    if (s_len < total) {
      return Fail(kFn, "the buffer holds " + std::to_string(s_len) + " bytes, the strings need " +
                           std::to_string(total) + "; size it with GetStringTensorDataLength");
    }
    if (count != 0 && (offsets == nullptr || (s == nullptr && total != 0))) {
      return InvalidArgument(kFn, "argument 's' or 'offsets' is null; pass both buffers");
    }
    size_t at = 0;
    for (size_t i = 0; i < count; ++i) {
      const std::string& element = Strings(*value)[i];
      offsets[i] = at;
      if (!element.empty()) std::memcpy(static_cast<char*>(s) + at, element.data(), element.size());
      at += element.size();
    }
    return nullptr;
  });
}

OrtStatus* ORT_API_CALL GetStringTensorElementLengthImpl(const OrtValue* value, size_t index,
                                                         size_t* out) noexcept {
  constexpr const char* kFn = "OrtApi::GetStringTensorElementLength";
  if (OrtStatus* st = CheckArgs(kFn, {{"value", value}, {"out", out}})) return st;
  if (OrtStatus* st = CheckStringIndex(kFn, *value, index)) return st;
  *out = Strings(*value)[index].size();
  return nullptr;
}

// OrtApi::GetStringTensorElement: element `index` into s[0..s_len), no terminator added.
OrtStatus* ORT_API_CALL GetStringTensorElementImpl(const OrtValue* value, size_t s_len,
                                                   size_t index, void* s) noexcept {
  constexpr const char* kFn = "OrtApi::GetStringTensorElement";
  if (OrtStatus* st = CheckArgs(kFn, {{"value", value}})) return st;
  return Guarded(kFn, [&]() -> OrtStatus* {
    if (OrtStatus* st = CheckStringIndex(kFn, *value, index)) return st;
    const std::string& element = Strings(*value)[index];
    if (s_len < element.size()) {
      return Fail(kFn, "the buffer holds " + std::to_string(s_len) + " bytes, string " +
                           std::to_string(index) + " needs " + std::to_string(element.size()) +
                           "; size it with GetStringTensorElementLength");
    }
    if (s == nullptr && !element.empty()) return InvalidArgument(kFn, "argument 's' is null");
    if (!element.empty()) std::memcpy(s, element.data(), element.size());
    return nullptr;
  });
}

// OrtApi::TensorAt: the address of the element at `location_values` (one index per dim) of a
// tensor with fixed-size elements.
OrtStatus* ORT_API_CALL TensorAtImpl(OrtValue* value, const int64_t* location_values,
                                     size_t location_values_count, void** out) noexcept {
  constexpr const char* kFn = "OrtApi::TensorAt";
  if (OrtStatus* st = CheckArgs(kFn, {{"value", value}, {"out", out}})) return st;
  return Guarded(kFn, [&]() -> OrtStatus* {
    if (!value->is_tensor()) return Fail(kFn, "the value is not a tensor");
    const size_t size = value->element_type == ONNX_TENSOR_ELEMENT_DATA_TYPE_STRING
                            ? sizeof(std::string)
                            : OrtElementSize(value->element_type);
    if (size == 0) return Fail(kFn, "the tensor's elements are packed below one byte");
    if (location_values_count != value->shape.size() ||
        (location_values == nullptr && location_values_count != 0)) {
      return InvalidArgument(kFn, "location_values_count is " +
                                      std::to_string(location_values_count) +
                                      " but the tensor has rank " +
                                      std::to_string(value->shape.size()));
    }
    size_t offset = 0;
    for (size_t d = 0; d < value->shape.size(); ++d) {
      if (location_values[d] < 0 || location_values[d] >= value->shape[d]) {
        return InvalidArgument(kFn, "index " + std::to_string(location_values[d]) + " of dim " +
                                        std::to_string(d) + " is out of range [0, " +
                                        std::to_string(value->shape[d]) + ")");
      }
      offset = offset * static_cast<size_t>(value->shape[d]) +
               static_cast<size_t>(location_values[d]);
    }
    *out = static_cast<char*>(value->data) + offset * size;
    return nullptr;
  });
}

// ---- sequences and maps ----

// A deep copy of tensor `from`, owning its data (strings copied one by one).
std::shared_ptr<OrtValue> CloneTensor(const OrtValue& from) {
  auto copy = std::make_shared<OrtValue>();
  copy->type = ONNX_TYPE_TENSOR;
  copy->element_type = from.element_type;
  copy->shape = from.shape;
  copy->bytes = from.bytes;
  copy->memory_info = &DefaultCpuAllocator().info;
  if (from.element_type == ONNX_TENSOR_ELEMENT_DATA_TYPE_STRING) {
    const size_t count = ValueElementCount(from);
    auto strings = std::shared_ptr<std::string[]>(new std::string[count]);
    std::copy_n(Strings(from), count, strings.get());
    copy->data = strings.get();
    copy->owner = std::move(strings);
  } else {
    auto bytes = std::shared_ptr<std::byte[]>(new std::byte[std::max<size_t>(from.bytes, 1)]);
    if (from.bytes != 0) std::memcpy(bytes.get(), from.data, from.bytes);
    copy->data = bytes.get();
    copy->owner = std::move(bytes);
  }
  return copy;
}

std::shared_ptr<OrtValue> CloneValue(const OrtValue& from) {
  if (from.type == ONNX_TYPE_TENSOR) return CloneTensor(from);
  auto copy = std::make_shared<OrtValue>();
  copy->type = from.type;
  for (const auto& element : from.elements) copy->elements.push_back(CloneValue(*element));
  return copy;
}

// `value` (a CPU tensor) as an nxrt tensor over its buffer.
Result<Tensor> BorrowTensor(const OrtValue& value) {
  const DataType dtype = FromOrtElementType(value.element_type);
  Shape shape(value.shape.begin(), value.shape.end());
  if (value.data == nullptr) return Tensor::Allocate(dtype, std::move(shape));  // no elements
  return Tensor::Borrow(dtype, std::move(shape), value.data);
}

// A new OrtValue owning (sharing) `tensor`, contiguous and in host memory.
std::shared_ptr<OrtValue> HoldTensor(Tensor tensor) {
  auto value = std::make_shared<OrtValue>();
  value->element_type = ToOrtElementType(tensor.dtype());
  value->shape = tensor.shape();
  value->bytes = tensor.byte_size();
  value->memory_info = &DefaultCpuAllocator().info;
  auto owner = std::make_shared<Tensor>(std::move(tensor));
  value->data = owner->mutable_raw_data();
  value->owner = std::move(owner);
  return value;
}

// A map from `keys` and `values` (1-D tensors of equal length) as nxrt::Value::Map makes it:
// sorted by key, a repeated key keeps its first value; keys int64 or string, values int64,
// float, double or string.
OrtStatus* MakeMap(const char* function, const OrtValue& keys, const OrtValue& values,
                   OrtValue** out) {
  if (!keys.is_tensor() || !values.is_tensor() || keys.shape.size() != 1 ||
      values.shape.size() != 1) {
    return Fail(function, "a map takes two 1-D tensors, keys then values");
  }
  if (keys.shape[0] != values.shape[0]) {
    return Fail(function, "the map has " + std::to_string(keys.shape[0]) + " keys but " +
                              std::to_string(values.shape[0]) + " values; give as many of each");
  }
  if (!IsMapKeyDtype(FromOrtElementType(keys.element_type)) ||
      !IsMapValueDtype(FromOrtElementType(values.element_type))) {
    return Fail(function, "map keys must be int64 or string and values int64, float, double or "
                          "string (the maps ONNX-ML operators make)");
  }
  Result<Value> made = [&]() -> Result<Value> {
    NXRT_ASSIGN_OR_RETURN(Tensor k, BorrowTensor(keys));
    NXRT_ASSIGN_OR_RETURN(Tensor v, BorrowTensor(values));
    return Value::Map(k, v);
  }();
  if (!made.ok()) return Fail(function, made.status().message());
  auto map = std::make_unique<OrtValue>();
  map->type = ONNX_TYPE_MAP;
  map->elements = {HoldTensor(made->map_keys()), HoldTensor(made->map_values())};
  *out = map.release();
  return nullptr;
}

// Two maps have the same type when their key and value element types match.
bool SameMapType(const OrtValue& a, const OrtValue& b) {
  return a.elements[0]->element_type == b.elements[0]->element_type &&
         a.elements[1]->element_type == b.elements[1]->element_type;
}

// OrtApi::CreateValue: a sequence of `num_values` tensors of one element type or maps of one
// type, or (ONNX_TYPE_MAP) a map from in[0] (keys) and in[1] (values). The inputs are copied.
OrtStatus* ORT_API_CALL CreateValueImpl(const OrtValue* const* in, size_t num_values,
                                        ONNXType value_type, OrtValue** out) noexcept {
  constexpr const char* kFn = "OrtApi::CreateValue";
  if (OrtStatus* st = CheckArgs(kFn, {{"in", in}, {"out", out}})) return st;
  if (OrtStatus* st = CheckEnumArg(kFn, "value_type", value_type)) return st;
  return Guarded(kFn, [&]() -> OrtStatus* {
    for (size_t i = 0; i < num_values; ++i) {
      if (in[i] == nullptr) return InvalidArgument(kFn, "in[" + std::to_string(i) + "] is null");
    }
    if (value_type == ONNX_TYPE_MAP) {
      if (num_values != 2) {
        return Fail(kFn, "a map takes 2 values (keys, values), got " + std::to_string(num_values));
      }
      return MakeMap(kFn, *in[0], *in[1], out);
    }
    if (value_type != ONNX_TYPE_SEQUENCE) {
      return Fail(kFn, "value_type must be ONNX_TYPE_SEQUENCE or ONNX_TYPE_MAP, got " +
                           std::to_string(value_type));
    }
    if (num_values == 0) {
      return Fail(kFn, "a sequence needs at least one value (its element type comes from them)");
    }
    const OrtValue& first = *in[0];
    for (size_t i = 0; i < num_values; ++i) {
      const OrtValue& v = *in[i];
      const bool fits = first.type == ONNX_TYPE_MAP
                            ? v.type == ONNX_TYPE_MAP && SameMapType(first, v)
                            : first.is_tensor() && v.is_tensor() && v.element_type == first.element_type;
      if (!fits) {
        return Fail(kFn, "sequence element " + std::to_string(i) + " is not of the type of "
                         "element 0; a sequence holds tensors of one element type or maps of one "
                         "type");
      }
    }
    auto seq = std::make_unique<OrtValue>();
    seq->type = ONNX_TYPE_SEQUENCE;
    if (first.is_tensor()) seq->element_type = first.element_type;
    for (size_t i = 0; i < num_values; ++i) seq->elements.push_back(CloneValue(*in[i]));
    *out = seq.release();
    return nullptr;
  });
}

OrtStatus* ORT_API_CALL GetValueCountImpl(const OrtValue* value, size_t* out) noexcept {
  constexpr const char* kFn = "OrtApi::GetValueCount";
  if (OrtStatus* st = CheckArgs(kFn, {{"value", value}, {"out", out}})) return st;
  if (value->type != ONNX_TYPE_SEQUENCE && value->type != ONNX_TYPE_MAP) {
    return Fail(kFn, "the value is not a sequence or a map");
  }
  *out = value->elements.size();
  return nullptr;
}

// OrtApi::GetValue: a copy of element `index` of a sequence, or of a map's keys (0) or values
// (1). `allocator` must be given, as ORT requires; the copy owns its memory.
OrtStatus* ORT_API_CALL GetValueImpl(const OrtValue* value, int index, OrtAllocator* allocator,
                                     OrtValue** out) noexcept {
  constexpr const char* kFn = "OrtApi::GetValue";
  if (OrtStatus* st = CheckArgs(kFn, {{"value", value}, {"allocator", allocator}, {"out", out}})) {
    return st;
  }
  return Guarded(kFn, [&]() -> OrtStatus* {
    if (value->type != ONNX_TYPE_SEQUENCE && value->type != ONNX_TYPE_MAP) {
      return Fail(kFn, "the value is not a sequence or a map");
    }
    if (index < 0 || static_cast<size_t>(index) >= value->elements.size()) {
      return Fail(kFn, "index " + std::to_string(index) + " is out of range; the value holds " +
                           std::to_string(value->elements.size()) + " elements");
    }
    auto copy = CloneValue(*value->elements[static_cast<size_t>(index)]);
    *out = new OrtValue(std::move(*copy));
    return nullptr;
  });
}

}  // namespace

void InstallContainerApi(OrtApi& api) {
  api.FillStringTensor = &FillStringTensorImpl;
  api.FillStringTensorElement = &FillStringTensorElementImpl;
  api.GetResizedStringTensorElementBuffer = &GetResizedStringTensorElementBufferImpl;
  api.GetStringTensorDataLength = &GetStringTensorDataLengthImpl;
  api.GetStringTensorContent = &GetStringTensorContentImpl;
  api.GetStringTensorElementLength = &GetStringTensorElementLengthImpl;
  api.GetStringTensorElement = &GetStringTensorElementImpl;
  api.TensorAt = &TensorAtImpl;
  api.CreateValue = &CreateValueImpl;
  api.GetValueCount = &GetValueCountImpl;
  api.GetValue = &GetValueImpl;
}

}  // namespace nxrt::ort_plugin
