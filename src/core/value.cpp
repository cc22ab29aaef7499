// core/value.cpp: nxrt::Value (nxrt/value.h).
//
// Layer: nxrt_core (standard library only).
#include "nxrt/value.h"

namespace nxrt {

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

std::span<const Tensor> Value::sequence() const {
  if (kind_ != Kind::kSequence) return {};
  return *sequence_;
}

DataType Value::dtype() const {
  switch (kind_) {
    case Kind::kTensor: return tensor_.dtype();
    case Kind::kSequence: return elem_dtype_;
    default: return DataType::kUndefined;
  }
}

std::string Value::Description() const {
  switch (kind_) {
    case Kind::kTensor: return tensor_.Description();
    case Kind::kSequence: {
      std::string s = "seq(" + std::string(DataTypeName(elem_dtype_)) + ")[";
      for (size_t i = 0; i < sequence_->size(); ++i) {
        if (i == 4 && sequence_->size() > 5) {
          s += ", ... " + std::to_string(sequence_->size() - 4) + " more";
          break;
        }
        s += (i == 0 ? "" : ", ") + (*sequence_)[i].Description();
      }
      return s + "]";
    }
    case Kind::kNone: return "none";
    case Kind::kUnset: break;
  }
  return "unset";
}

std::string_view ValueKindName(Value::Kind kind) {
  switch (kind) {
    case Value::Kind::kTensor: return "tensor";
    case Value::Kind::kSequence: return "sequence";
    case Value::Kind::kNone: return "none";
    case Value::Kind::kUnset: break;
  }
  return "unset";
}

}  // namespace nxrt
