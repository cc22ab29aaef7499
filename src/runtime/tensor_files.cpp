// runtime/tensor_files.cpp: nxrt/tensor_io.h over the IR's readers and writers (ir/tensor_io.h).
#include "nxrt/tensor_io.h"

#include <filesystem>
#include <utility>
#include <vector>

#include "ir/tensor_io.h"

namespace nxrt {
namespace {

// A test-data value as a run's Value (see ReadValueFile).
Result<Value> ToValue(const ir::OnnxValue& v, DataType element_dtype) {
  switch (v.kind) {
    case ir::OnnxValue::Kind::kTensor: return Value(v.tensor);
    case ir::OnnxValue::Kind::kOptional:
      return v.has_value ? ToValue(v.elements.front(), element_dtype) : Value::None();
    case ir::OnnxValue::Kind::kSequence: break;
  }
  std::vector<Tensor> tensors;
  for (const ir::OnnxValue& e : v.elements) {
    if (e.kind != ir::OnnxValue::Kind::kTensor) {
      return MakeStatus(StatusCode::kNotImplemented, "sequence ", v.Description(),
                        " holds non-tensors; nxrt runs sequences of tensors only");
    }
    tensors.push_back(e.tensor);
  }
  const DataType dtype = tensors.empty() ? element_dtype : tensors.front().dtype();
  return Value::Sequence(dtype == DataType::kUndefined ? DataType::kFloat : dtype,
                         std::move(tensors));
}

}  // namespace

Result<Tensor> ReadTensorFile(const std::string& path) {
  const std::string ext = std::filesystem::path(path).extension().string();
  if (ext == ".npy") return ir::ReadNpy(path);
  if (ext == ".pb") return ir::ReadTensorProtoFile(path);
  return MakeStatus(StatusCode::kInvalidArgument, "file '", path,
                    "' must end in .npy (NumPy) or .pb (ONNX TensorProto)");
}

Status WriteNpy(const std::string& path, const Tensor& tensor) { return ir::WriteNpy(path, tensor); }

Result<Value> ReadValueFile(const std::string& path, ValueKind kind, DataType element_dtype) {
  const ir::TypeInfo::Kind expected = kind == ValueKind::kSequence   ? ir::TypeInfo::Kind::kSequence
                                      : kind == ValueKind::kOptional ? ir::TypeInfo::Kind::kOptional
                                                                     : ir::TypeInfo::Kind::kTensor;
  NXRT_ASSIGN_OR_RETURN(ir::OnnxValue value, ir::ReadTestDataFile(path, expected));
  return ToValue(value, element_dtype);
}

}  // namespace nxrt
