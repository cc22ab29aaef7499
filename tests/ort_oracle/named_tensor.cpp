// ort_oracle/named_tensor.cpp: descriptions of declared model values (named_tensor.h).
//
// Layer: test support (nxrt_ort_oracle), over nxrt_core.
#include "ort_oracle/named_tensor.h"

namespace nxrt::oracle {

std::string ValueInfo::Description() const {
  switch (kind) {
    case ValueKind::kTensor: break;
    case ValueKind::kSequence: return "sequence";
    case ValueKind::kMap: return "map";
    case ValueKind::kOptional: return "optional";
    case ValueKind::kSparseTensor: return "sparse_tensor";
    case ValueKind::kOther: return "opaque";
  }
  std::string out = dtype != DataType::kUndefined
                        ? std::string(DataTypeName(dtype))
                        : "onnx_type_" + std::to_string(onnx_element_type);
  if (!has_shape) return out + "[rank unknown]";
  out += '[';
  for (size_t i = 0; i < dims.size(); ++i) {
    if (i > 0) out += ',';
    if (dims[i] >= 0) {
      out += std::to_string(dims[i]);
    } else {
      out += dim_names[i].empty() ? "?" : dim_names[i];
    }
  }
  return out + ']';
}

nxrt::ValueInfo ToNxrtValueInfo(const ValueInfo& value) {
  nxrt::ValueInfo out;
  out.name = value.name;
  out.dtype = value.dtype;
  switch (value.kind) {
    case ValueKind::kTensor: out.kind = nxrt::ValueKind::kTensor; break;
    case ValueKind::kSequence: out.kind = nxrt::ValueKind::kSequence; break;
    case ValueKind::kMap: out.kind = nxrt::ValueKind::kMap; break;
    case ValueKind::kOptional: out.kind = nxrt::ValueKind::kOptional; break;
    case ValueKind::kSparseTensor: out.kind = nxrt::ValueKind::kSparseTensor; break;
    case ValueKind::kOther: out.kind = nxrt::ValueKind::kUnknown; break;
  }
  if (value.has_shape) {
    std::vector<DimInfo> dims;
    for (size_t i = 0; i < value.dims.size(); ++i) {
      if (value.dims[i] >= 0) {
        dims.push_back(DimInfo::Fixed(value.dims[i]));
      } else if (!value.dim_names[i].empty()) {
        dims.push_back(DimInfo::Symbolic(value.dim_names[i]));
      } else {
        dims.push_back(DimInfo::Unknown());
      }
    }
    out.shape = std::move(dims);
  }
  return out;
}

}  // namespace nxrt::oracle
