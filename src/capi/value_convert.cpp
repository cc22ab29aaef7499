// capi/value_convert.cpp: see value_convert.h.
#include "capi/value_convert.h"

#include <cstring>
#include <string>
#include <vector>

#include "ep/ort_plugin/api_table.h"
#include "ep/ort_plugin/ort_c_api.h"

namespace nxrt::capi {
namespace {

using ort_plugin::DefaultCpuAllocator;
using ort_plugin::FromOrtElementType;
using ort_plugin::ToOrtElementType;

Result<Tensor> ToNxrtTensor(const OrtValue& value, std::string_view name) {
  if (!value.is_tensor()) {
    return MakeStatus(StatusCode::kInvalidArgument, "value '", name,
                      "' is a tensor without an element type; make it with "
                      "CreateTensorAsOrtValue or CreateTensorWithDataAsOrtValue");
  }
  const DataType dtype = FromOrtElementType(value.element_type);
  if (dtype == DataType::kUndefined) {
    return MakeStatus(StatusCode::kNotImplemented, "value '", name, "' has element type ",
                      static_cast<int>(value.element_type),
                      " (a float8, 4-bit or 2-bit type), which nxrt's kernels do not run");
  }
  if (value.memory_info != nullptr && value.memory_info->device.type != OrtMemoryInfoDeviceType_CPU) {
    return MakeStatus(StatusCode::kInvalidArgument, "value '", name, "' lives in memory of device '",
                      value.memory_info->name, "'; nxrt runs on host memory: pass a CPU tensor");
  }
  Shape shape(value.shape.begin(), value.shape.end());
  if (value.data == nullptr) {
    // Only an empty tensor has no data.
    return Tensor::Allocate(dtype, std::move(shape));
  }
  Tensor tensor = Tensor::Borrow(dtype, std::move(shape), value.data, value.owner);
  if (!tensor.defined()) {
    return MakeStatus(StatusCode::kInvalidArgument, "value '", name, "' has an invalid shape");
  }
  return tensor;
}

// A new OrtValue holding (sharing) `tensor`, made contiguous first.
Result<std::unique_ptr<OrtValue>> TensorToOrtValue(const Tensor& tensor) {
  Tensor held = tensor;
  if (!held.is_contiguous()) {
    NXRT_ASSIGN_OR_RETURN(held, tensor.Clone());
  }
  auto value = std::make_unique<OrtValue>();
  value->type = ONNX_TYPE_TENSOR;
  value->element_type = ToOrtElementType(held.dtype());
  value->shape.assign(held.shape().begin(), held.shape().end());
  value->bytes = held.byte_size();
  value->memory_info = &DefaultCpuAllocator().info;
  auto owner = std::make_shared<Tensor>(std::move(held));
  value->data = owner->mutable_raw_data();
  value->owner = std::move(owner);
  return value;
}

std::unique_ptr<OrtTensorTypeAndShapeInfo> TensorInfo(DataType dtype,
                                                      const std::optional<std::vector<DimInfo>>& shape) {
  auto info = std::make_unique<OrtTensorTypeAndShapeInfo>();
  info->element_type = ToOrtElementType(dtype);
  info->has_shape = shape.has_value();
  if (shape) {
    for (const DimInfo& dim : *shape) {
      info->dims.push_back(dim.is_fixed() ? dim.value : -1);
      info->symbolic_dims.push_back(dim.kind == DimInfo::Kind::kSymbolic ? dim.symbol : "");
    }
  }
  for (const std::string& symbol : info->symbolic_dims) {
    info->symbolic_dim_ptrs.push_back(symbol.c_str());
  }
  return info;
}

std::unique_ptr<OrtTypeInfo> TensorTypeInfo(DataType dtype,
                                            const std::optional<std::vector<DimInfo>>& shape,
                                            ONNXType type = ONNX_TYPE_TENSOR) {
  auto info = std::make_unique<OrtTypeInfo>();
  info->type = type;
  info->tensor = TensorInfo(dtype, shape);
  return info;
}

// A map OrtValue (elements: keys, then values, as OrtApi::CreateValue makes it) as an nxrt map.
Result<Value> ToNxrtMap(const OrtValue& value, std::string_view name) {
  if (value.elements.size() != 2) {
    return MakeStatus(StatusCode::kInvalidArgument, "value '", name, "' is a map with ",
                      value.elements.size(), " parts; make it with OrtApi::CreateValue from keys "
                      "and values");
  }
  NXRT_ASSIGN_OR_RETURN(Tensor keys, ToNxrtTensor(*value.elements[0], std::string(name) + " keys"));
  NXRT_ASSIGN_OR_RETURN(Tensor values,
                        ToNxrtTensor(*value.elements[1], std::string(name) + " values"));
  Result<Value> map = Value::Map(keys, values);
  if (!map.ok()) return map.status().WithContext("value '" + std::string(name) + "'");
  return map;
}

// A new OrtValue holding (sharing) a map's keys and values.
Result<std::unique_ptr<OrtValue>> MapToOrtValue(const Value& map) {
  auto out = std::make_unique<OrtValue>();
  out->type = ONNX_TYPE_MAP;
  NXRT_ASSIGN_OR_RETURN(std::unique_ptr<OrtValue> keys, TensorToOrtValue(map.map_keys()));
  NXRT_ASSIGN_OR_RETURN(std::unique_ptr<OrtValue> values, TensorToOrtValue(map.map_values()));
  out->elements.push_back(std::move(keys));
  out->elements.push_back(std::move(values));
  return out;
}

std::unique_ptr<OrtTypeInfo> MapTypeInfo(DataType key, DataType value) {
  auto map = std::make_unique<OrtTypeInfo>();
  map->type = ONNX_TYPE_MAP;
  map->map_key = ToOrtElementType(key);
  if (value != DataType::kUndefined) map->element = TensorTypeInfo(value, std::nullopt);
  return map;
}

}  // namespace

Result<Value> ToNxrtValue(const OrtValue& value, std::string_view name) {
  switch (value.type) {
    case ONNX_TYPE_TENSOR: {
      NXRT_ASSIGN_OR_RETURN(Tensor tensor, ToNxrtTensor(value, name));
      return Value(std::move(tensor));
    }
    case ONNX_TYPE_SEQUENCE: {
      if (!value.elements.empty() && value.elements.front()->type == ONNX_TYPE_MAP) {
        std::vector<Value> maps;
        for (size_t i = 0; i < value.elements.size(); ++i) {
          const std::string element = std::string(name) + "[" + std::to_string(i) + "]";
          NXRT_ASSIGN_OR_RETURN(Value map, ToNxrtMap(*value.elements[i], element));
          maps.push_back(std::move(map));
        }
        const DataType key = maps.front().map_key_dtype(), element = maps.front().dtype();
        return Value::MapSequence(key, element, std::move(maps));
      }
      std::vector<Tensor> tensors;
      DataType dtype = FromOrtElementType(value.element_type);
      for (size_t i = 0; i < value.elements.size(); ++i) {
        const OrtValue& element = *value.elements[i];
        if (element.type != ONNX_TYPE_TENSOR) {
          return MakeStatus(StatusCode::kInvalidArgument, "value '", name, "' mixes tensors ",
                            "and other values; a sequence holds tensors or maps of one type");
        }
        NXRT_ASSIGN_OR_RETURN(Tensor tensor,
                              ToNxrtTensor(element, std::string(name) + "[" + std::to_string(i) + "]"));
        dtype = tensor.dtype();
        tensors.push_back(std::move(tensor));
      }
      return Value::Sequence(dtype, std::move(tensors));
    }
    case ONNX_TYPE_MAP: return ToNxrtMap(value, name);
    case ONNX_TYPE_OPTIONAL: return Value::None();
    default:
      return MakeStatus(StatusCode::kInvalidArgument, "value '", name, "' has ONNX type ",
                        static_cast<int>(value.type), ", which is not a value nxrt runs");
  }
}

Result<std::unique_ptr<OrtValue>> ToOrtValue(const Value& value) {
  if (value.is_tensor()) return TensorToOrtValue(value.tensor());
  auto out = std::make_unique<OrtValue>();
  if (value.is_sequence()) {
    out->type = ONNX_TYPE_SEQUENCE;
    out->element_type = ToOrtElementType(value.dtype());
    for (const Tensor& element : value.sequence()) {
      NXRT_ASSIGN_OR_RETURN(std::unique_ptr<OrtValue> converted, TensorToOrtValue(element));
      out->elements.push_back(std::move(converted));
    }
    return out;
  }
  if (value.is_map()) return MapToOrtValue(value);
  if (value.is_map_sequence()) {
    out->type = ONNX_TYPE_SEQUENCE;
    for (const Value& map : value.maps()) {
      NXRT_ASSIGN_OR_RETURN(std::unique_ptr<OrtValue> converted, MapToOrtValue(map));
      out->elements.push_back(std::move(converted));
    }
    return out;
  }
  if (value.is_none()) {
    out->type = ONNX_TYPE_OPTIONAL;
    return out;
  }
  return MakeStatus(StatusCode::kInternal, "a run produced an unset value");
}

Status CopyIntoOrtValue(const Value& from, OrtValue& into, std::string_view name) {
  if (!from.is_tensor() || !into.is_tensor()) {
    return MakeStatus(StatusCode::kInvalidArgument, "output '", name,
                      "' is given a preallocated value, but only tensors can be written into; "
                      "pass NULL for it");
  }
  const Tensor& t = from.tensor();
  const std::vector<int64_t> shape(t.shape().begin(), t.shape().end());
  if (into.element_type != ToOrtElementType(t.dtype()) || into.shape != shape) {
    return MakeStatus(StatusCode::kInvalidArgument, "output '", name, "' is ", t.Description(),
                      " but the preallocated value has element type ",
                      static_cast<int>(into.element_type), " and shape ", ShapeToString(into.shape),
                      "; preallocate that type and shape, or pass NULL");
  }
  NXRT_ASSIGN_OR_RETURN(Tensor dense, t.is_contiguous() ? Result<Tensor>(t) : t.Clone());
  if (t.dtype() == DataType::kString) {
    const auto* src = dense.data<std::string>();
    auto* dst = static_cast<std::string*>(into.data);
    for (int64_t i = 0; i < dense.element_count(); ++i) dst[i] = src[i];
  } else if (dense.byte_size() != 0) {
    std::memcpy(into.data, dense.raw_data(), dense.byte_size());
  }
  return Status::Ok();
}

std::unique_ptr<OrtTypeInfo> TypeInfoOf(const ValueInfo& info) {
  switch (info.kind) {
    case ValueKind::kTensor: return TensorTypeInfo(info.dtype, info.shape);
    case ValueKind::kSparseTensor:
      return TensorTypeInfo(info.dtype, info.shape, ONNX_TYPE_SPARSETENSOR);
    case ValueKind::kSequence:
    case ValueKind::kOptional: {
      auto container = std::make_unique<OrtTypeInfo>();
      container->type =
          info.kind == ValueKind::kSequence ? ONNX_TYPE_SEQUENCE : ONNX_TYPE_OPTIONAL;
      if (info.map_key != DataType::kUndefined) {
        container->element = MapTypeInfo(info.map_key, info.dtype);
      } else if (info.dtype != DataType::kUndefined) {
        container->element = TensorTypeInfo(info.dtype, info.shape);
      }
      return container;
    }
    case ValueKind::kMap: return MapTypeInfo(info.map_key, info.dtype);
    case ValueKind::kAbsent:
    case ValueKind::kUnknown: break;
  }
  auto unknown = std::make_unique<OrtTypeInfo>();
  unknown->type = ONNX_TYPE_UNKNOWN;
  return unknown;
}

}  // namespace nxrt::capi
