// core/value.cpp: nxrt::Value (nxrt/value.h).
//
// Layer: nxrt_core (standard library only).
#include "nxrt/value.h"

#include <algorithm>
#include <cstring>
#include <numeric>

namespace nxrt {
namespace {

// "map(int64,float)".
std::string MapTypeName(DataType key, DataType value) {
  return "map(" + std::string(DataTypeName(key)) + "," + std::string(DataTypeName(value)) + ")";
}

// A new 1-D tensor of `from`'s elements at `order` (from is contiguous and 1-D).
Result<Tensor> Gather(const Tensor& from, const std::vector<size_t>& order) {
  NXRT_ASSIGN_OR_RETURN(Tensor out,
                        Tensor::Allocate(from.dtype(), {static_cast<int64_t>(order.size())}));
  if (from.dtype() == DataType::kString) {
    const std::string* src = from.data<std::string>();
    std::string* dst = out.mutable_data<std::string>();
    for (size_t i = 0; i < order.size(); ++i) dst[i] = src[order[i]];
    return out;
  }
  const size_t size = DataTypeBytes(from.dtype(), 1);
  const auto* src = static_cast<const std::byte*>(from.raw_data());
  auto* dst = static_cast<std::byte*>(out.mutable_raw_data());
  for (size_t i = 0; i < order.size(); ++i) {
    std::memcpy(dst + i * size, src + order[i] * size, size);
  }
  return out;
}

}  // namespace

bool IsMapKeyDtype(DataType dtype) {
  return dtype == DataType::kInt64 || dtype == DataType::kString;
}

bool IsMapValueDtype(DataType dtype) {
  return dtype == DataType::kInt64 || dtype == DataType::kFloat || dtype == DataType::kDouble ||
         dtype == DataType::kString;
}

Value::Value(Tensor tensor) : tensor_(std::move(tensor)) {
  if (tensor_.defined()) kind_ = Kind::kTensor;
}

Result<Value> Value::Sequence(DataType elem_dtype, std::vector<Tensor> tensors) {
  if (elem_dtype == DataType::kUndefined) {
    return MakeStatus(StatusCode::kInvalidArgument,
                      "a sequence needs an element dtype; pass the dtype of its tensors");
  }
  for (size_t i = 0; i < tensors.size(); ++i) {
    if (!tensors[i].defined() || tensors[i].dtype() != elem_dtype) {
      return MakeStatus(StatusCode::kInvalidArgument, "sequence element ", i, " is ",
                        tensors[i].defined() ? tensors[i].Description() : "undefined",
                        "; every element must be ", DataTypeName(elem_dtype));
    }
  }
  Value v;
  v.kind_ = Kind::kSequence;
  v.elem_dtype_ = elem_dtype;
  v.sequence_ = std::make_shared<const std::vector<Tensor>>(std::move(tensors));
  return v;
}

Value Value::None() {
  Value v;
  v.kind_ = Kind::kNone;
  return v;
}

Result<Value> Value::Map(const Tensor& keys, const Tensor& values) {
  const auto check = [](const Tensor& t, const char* what, bool dtype_ok, const char* allowed) {
    if (!t.defined() || t.rank() != 1 || !dtype_ok) {
      return MakeStatus(StatusCode::kInvalidArgument, "map ", what, " are ",
                        t.defined() ? t.Description() : "undefined", "; give a 1-D tensor of ",
                        allowed);
    }
    return Status::Ok();
  };
  NXRT_RETURN_IF_ERROR(check(keys, "keys", IsMapKeyDtype(keys.dtype()), "int64 or string"));
  NXRT_RETURN_IF_ERROR(check(values, "values", IsMapValueDtype(values.dtype()),
                             "int64, float, double or string"));
  if (keys.shape()[0] != values.shape()[0]) {
    return MakeStatus(StatusCode::kInvalidArgument, "the map has ", keys.shape()[0], " keys but ",
                      values.shape()[0], " values; give as many of each");
  }
  NXRT_ASSIGN_OR_RETURN(Tensor k, keys.is_contiguous() ? Result<Tensor>(keys) : keys.Clone());
  NXRT_ASSIGN_OR_RETURN(Tensor v, values.is_contiguous() ? Result<Tensor>(values) : values.Clone());
  std::vector<size_t> order(static_cast<size_t>(k.element_count()));
  std::iota(order.begin(), order.end(), size_t{0});
  const auto less = [&](size_t a, size_t b) {
    if (k.dtype() == DataType::kString) return k.data<std::string>()[a] < k.data<std::string>()[b];
    return k.data<int64_t>()[a] < k.data<int64_t>()[b];
  };
  std::stable_sort(order.begin(), order.end(), less);
  order.erase(std::unique(order.begin(), order.end(),
                          [&](size_t a, size_t b) { return !less(a, b) && !less(b, a); }),
              order.end());
  Value map;
  map.kind_ = Kind::kMap;
  map.key_dtype_ = k.dtype();
  map.elem_dtype_ = v.dtype();
  NXRT_ASSIGN_OR_RETURN(map.map_keys_, Gather(k, order));
  NXRT_ASSIGN_OR_RETURN(map.map_values_, Gather(v, order));
  return map;
}

Result<Value> Value::MapSequence(DataType key_dtype, DataType value_dtype,
                                 std::vector<Value> maps) {
  if (!IsMapKeyDtype(key_dtype) || !IsMapValueDtype(value_dtype)) {
    return MakeStatus(StatusCode::kInvalidArgument, "a sequence of ",
                      MapTypeName(key_dtype, value_dtype),
                      " maps cannot be made: keys must be int64 or string and values int64, "
                      "float, double or string");
  }
  for (size_t i = 0; i < maps.size(); ++i) {
    if (!maps[i].is_map() || maps[i].key_dtype_ != key_dtype ||
        maps[i].elem_dtype_ != value_dtype) {
      return MakeStatus(StatusCode::kInvalidArgument, "sequence element ", i, " is ",
                        maps[i].Description(), "; every element must be ",
                        MapTypeName(key_dtype, value_dtype));
    }
  }
  Value v;
  v.kind_ = Kind::kMapSequence;
  v.key_dtype_ = key_dtype;
  v.elem_dtype_ = value_dtype;
  v.maps_ = std::make_shared<const std::vector<Value>>(std::move(maps));
  return v;
}

std::span<const Value> Value::maps() const {
  if (kind_ != Kind::kMapSequence) return {};
  return *maps_;
}

std::span<const Tensor> Value::sequence() const {
  if (kind_ != Kind::kSequence) return {};
  return *sequence_;
}

DataType Value::dtype() const {
  switch (kind_) {
    case Kind::kTensor: return tensor_.dtype();
    case Kind::kSequence:
    case Kind::kMap:
    case Kind::kMapSequence: return elem_dtype_;
    default: return DataType::kUndefined;
  }
}

namespace {

// "TYPE[a, b, c, d, ... N more]": the first four elements' descriptions (all of them up to five).
template <typename Element>
std::string ListDescription(const std::string& type, const std::vector<Element>& elements) {
  std::string s = type + "[";
  for (size_t i = 0; i < elements.size(); ++i) {
    if (i == 4 && elements.size() > 5) {
      s += ", ... " + std::to_string(elements.size() - 4) + " more";
      break;
    }
    s += (i == 0 ? "" : ", ") + elements[i].Description();
  }
  return s + "]";
}

}  // namespace

std::string Value::Description() const {
  switch (kind_) {
    case Kind::kTensor: return tensor_.Description();
    case Kind::kSequence:
      return ListDescription("seq(" + std::string(DataTypeName(elem_dtype_)) + ")", *sequence_);
    case Kind::kMap:
      return MapTypeName(key_dtype_, elem_dtype_) + "[" +
             std::to_string(map_keys_.element_count()) + "]";
    case Kind::kMapSequence:
      return ListDescription("seq(" + MapTypeName(key_dtype_, elem_dtype_) + ")", *maps_);
    case Kind::kNone: return "none";
    case Kind::kUnset: break;
  }
  return "unset";
}

std::string_view ValueKindName(Value::Kind kind) {
  switch (kind) {
    case Value::Kind::kTensor: return "tensor";
    case Value::Kind::kSequence: return "sequence";
    case Value::Kind::kMap: return "map";
    case Value::Kind::kMapSequence: return "map_sequence";
    case Value::Kind::kNone: return "none";
    case Value::Kind::kUnset: break;
  }
  return "unset";
}

}  // namespace nxrt
