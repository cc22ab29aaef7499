// ort_oracle/named_tensor.h: the values the ONNX Runtime oracle exchanges with its callers.
//
// Layer: test support (nxrt_ort_oracle), over nxrt_core. Names are opaque strings (real models
// name outputs "53" or with JSON text); nothing here parses them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "nxrt/data_type.h"
#include "nxrt/node_info.h"
#include "nxrt/session.h"
#include "nxrt/tensor.h"

namespace nxrt::oracle {

// A model input or output value with its graph name: the same type nxrt's Session uses.
using NamedTensor = nxrt::NamedTensor;

// What a value is, as ORT reports it (ONNXType).
enum class ValueKind { kTensor, kSequence, kMap, kOptional, kSparseTensor, kOther };

// A model input or output as declared in the model (after ORT's own parsing).
struct ValueInfo {
  std::string name;
  ValueKind kind = ValueKind::kTensor;
  // Element type for tensors; kUndefined for other kinds and for element types nxrt has no
  // DataType for (float8, int4, ...), whose ONNX number is then in `onnx_element_type`.
  DataType dtype = DataType::kUndefined;
  int32_t onnx_element_type = 0;
  // False when the model declares no shape at all (rank unknown); `dims` is then empty.
  bool has_shape = true;
  // One entry per dim: the size, or -1 when not fixed.
  std::vector<int64_t> dims;
  // One entry per dim: the symbolic name ("batch", "p2o.DynamicDimension.0"), or "" when the dim
  // is fixed or unnamed.
  std::vector<std::string> dim_names;

  // "float[1,3,?,W]" style: fixed dims as numbers, named ones by name, unnamed ones as '?'.
  std::string Description() const;
};

// The same declaration as nxrt's public ValueInfo (for the input generator): unnamed dynamic dims
// become unknown dims, named ones symbolic; no shape becomes an unknown rank.
nxrt::ValueInfo ToNxrtValueInfo(const ValueInfo& value);

}  // namespace nxrt::oracle
