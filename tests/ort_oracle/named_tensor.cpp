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

}  // namespace nxrt::oracle
