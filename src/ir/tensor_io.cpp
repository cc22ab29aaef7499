// ir/tensor_io.cpp: ONNX .pb files (TensorProto, SequenceProto, OptionalProto, test data) and
// OnnxValue (see tensor_io.h). The .npy/.npz half of tensor_io.h lives in npy_io.cpp.
//
// Layer: nxrt_ir. Public functions catch allocation failures (std::bad_alloc, std::length_error
// from absurd declared sizes) and turn them into kOutOfMemory.
#include "ir/tensor_io.h"

#include <climits>

#include "ir/external_data.h"
#include "ir/io_util.h"
#include "ir/tensor_proto.h"
#include "onnx/onnx-data.pb.h"

namespace nxrt::ir {
namespace {

// ---- protobuf messages ------------------------------------------------------------------------

template <typename Message>
Status ParseMessage(std::string_view bytes, std::string_view what, std::string_view type_name,
                    Message* message) {
  if (bytes.size() > static_cast<size_t>(INT_MAX)) {
    return MakeStatus(StatusCode::kInvalidArgument, what, ": ", bytes.size(),
                      " bytes exceed protobuf's 2 GiB message limit");
  }
  if (!message->ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    return MakeStatus(StatusCode::kInvalidArgument, what, ": not a valid ", type_name, " (",
                      bytes.size(), " bytes; protobuf parsing failed)");
  }
  return Status::Ok();
}

Status SerializeMessageToFile(const google::protobuf::MessageLite& message,
                              const std::filesystem::path& path) {
  std::string bytes;
  if (!message.SerializeToString(&bytes)) {
    return MakeStatus(StatusCode::kInvalidArgument, FileLabel(path),
                      ": the message cannot be serialized (over protobuf's 2 GiB limit)");
  }
  return WriteFileBytes(path, bytes);
}

// Reads external tensor data for a .pb file through the model loader's resolver
// (ir/external_data.h): `location` relative to `folder`, confined to it (links followed and
// checked, no "..", no absolute paths, regular files only), `offset` and `length` checked against
// the file. The tensor is copied out of the mapping, so it owns its data.
ExternalDataFn ExternalDataReader(std::filesystem::path folder) {
  auto resolver = std::make_shared<ExternalDataResolver>(std::move(folder));
  return [resolver](const onnx::TensorProto& proto, DataType dtype,
                    Shape shape) -> Result<Tensor> {
    NXRT_ASSIGN_OR_RETURN(Tensor t, resolver->Load(proto, dtype, shape));
    if (t.owns_data()) return t;
    return t.Clone();
  };
}

Result<OnnxValue> FromSequenceProto(const onnx::SequenceProto& proto,
                                    const ExternalDataFn* external);
Result<OnnxValue> FromOptionalProto(const onnx::OptionalProto& proto,
                                    const ExternalDataFn* external);

Status ElementError(size_t index, const Status& status) {
  return status.WithContext("element " + std::to_string(index));
}

Result<OnnxValue> FromSequenceProtoImpl(const onnx::SequenceProto& proto,
                                        const ExternalDataFn* external) {
  std::vector<OnnxValue> elements;
  switch (proto.elem_type()) {
    case onnx::SequenceProto::TENSOR:
      for (const auto& t : proto.tensor_values()) {
        Result<Tensor> tensor = TensorFromProto(t, external);
        if (!tensor.ok()) return ElementError(elements.size(), tensor.status());
        elements.push_back(OnnxValue::FromTensor(std::move(tensor).value(), t.name()));
      }
      break;
    case onnx::SequenceProto::SPARSE_TENSOR:
      for (const auto& t : proto.sparse_tensor_values()) {
        Result<Tensor> tensor = SparseTensorToDense(t, external);
        if (!tensor.ok()) return ElementError(elements.size(), tensor.status());
        elements.push_back(OnnxValue::FromTensor(std::move(tensor).value(), t.values().name()));
      }
      break;
    case onnx::SequenceProto::SEQUENCE:
      for (const auto& s : proto.sequence_values()) {
        Result<OnnxValue> element = FromSequenceProto(s, external);
        if (!element.ok()) return ElementError(elements.size(), element.status());
        elements.push_back(std::move(element).value());
      }
      break;
    case onnx::SequenceProto::OPTIONAL:
      for (const auto& o : proto.optional_values()) {
        Result<OnnxValue> element = FromOptionalProto(o, external);
        if (!element.ok()) return ElementError(elements.size(), element.status());
        elements.push_back(std::move(element).value());
      }
      break;
    case onnx::SequenceProto::MAP:
      return Status(StatusCode::kNotImplemented, "sequences of maps are not supported");
    case onnx::SequenceProto::UNDEFINED: {
      const int held = proto.tensor_values_size() + proto.sparse_tensor_values_size() +
                       proto.sequence_values_size() + proto.map_values_size() +
                       proto.optional_values_size();
      if (held != 0) {
        return MakeStatus(StatusCode::kInvalidArgument, "elem_type is UNDEFINED but ", held,
                          " values are present");
      }
      break;
    }
    default:
      return MakeStatus(StatusCode::kInvalidArgument, "unknown elem_type ", proto.elem_type());
  }
  return OnnxValue::Sequence(std::move(elements), proto.name());
}

Result<OnnxValue> FromSequenceProto(const onnx::SequenceProto& proto,
                                    const ExternalDataFn* external) {
  Result<OnnxValue> r = FromSequenceProtoImpl(proto, external);
  if (!r.ok() && !proto.name().empty()) {
    return r.status().WithContext("sequence '" + proto.name() + "'");
  }
  return r;
}

Result<OnnxValue> FromOptionalProtoImpl(const onnx::OptionalProto& proto,
                                        const ExternalDataFn* external) {
  const auto missing = [](std::string_view kind, std::string_view field) {
    return MakeStatus(StatusCode::kInvalidArgument, "elem_type is ", kind, " but ", field,
                      " is missing");
  };
  switch (proto.elem_type()) {
    case onnx::OptionalProto::UNDEFINED: return OnnxValue::EmptyOptional(proto.name());
    case onnx::OptionalProto::TENSOR: {
      if (!proto.has_tensor_value()) return missing("TENSOR", "tensor_value");
      NXRT_ASSIGN_OR_RETURN(Tensor t, TensorFromProto(proto.tensor_value(), external));
      return OnnxValue::Optional(OnnxValue::FromTensor(std::move(t), proto.tensor_value().name()),
                                 proto.name());
    }
    case onnx::OptionalProto::SPARSE_TENSOR: {
      if (!proto.has_sparse_tensor_value()) return missing("SPARSE_TENSOR", "sparse_tensor_value");
      NXRT_ASSIGN_OR_RETURN(Tensor t, SparseTensorToDense(proto.sparse_tensor_value(), external));
      return OnnxValue::Optional(OnnxValue::FromTensor(std::move(t)), proto.name());
    }
    case onnx::OptionalProto::SEQUENCE: {
      if (!proto.has_sequence_value()) return missing("SEQUENCE", "sequence_value");
      NXRT_ASSIGN_OR_RETURN(OnnxValue s, FromSequenceProto(proto.sequence_value(), external));
      return OnnxValue::Optional(std::move(s), proto.name());
    }
    case onnx::OptionalProto::OPTIONAL: {
      if (!proto.has_optional_value()) return missing("OPTIONAL", "optional_value");
      NXRT_ASSIGN_OR_RETURN(OnnxValue o, FromOptionalProto(proto.optional_value(), external));
      return OnnxValue::Optional(std::move(o), proto.name());
    }
    case onnx::OptionalProto::MAP:
      return Status(StatusCode::kNotImplemented, "optional maps are not supported");
    default:
      return MakeStatus(StatusCode::kInvalidArgument, "unknown elem_type ", proto.elem_type());
  }
}

Result<OnnxValue> FromOptionalProto(const onnx::OptionalProto& proto,
                                    const ExternalDataFn* external) {
  Result<OnnxValue> r = FromOptionalProtoImpl(proto, external);
  if (!r.ok() && !proto.name().empty()) {
    return r.status().WithContext("optional '" + proto.name() + "'");
  }
  return r;
}

Status ToOptionalProto(const OnnxValue& value, std::string_view name, onnx::OptionalProto* out);

Status ToSequenceProto(const OnnxValue& value, std::string_view name, onnx::SequenceProto* out) {
  if (value.kind != OnnxValue::Kind::kSequence) {
    return MakeStatus(StatusCode::kInvalidArgument, "expected a sequence, got ",
                      value.Description());
  }
  out->set_name(std::string(name));
  const OnnxValue::Kind kind =
      value.elements.empty() ? OnnxValue::Kind::kTensor : value.elements[0].kind;
  switch (kind) {
    case OnnxValue::Kind::kTensor: out->set_elem_type(onnx::SequenceProto::TENSOR); break;
    case OnnxValue::Kind::kSequence: out->set_elem_type(onnx::SequenceProto::SEQUENCE); break;
    case OnnxValue::Kind::kOptional: out->set_elem_type(onnx::SequenceProto::OPTIONAL); break;
  }
  for (size_t i = 0; i < value.elements.size(); ++i) {
    const OnnxValue& element = value.elements[i];
    if (element.kind != kind) {
      return MakeStatus(
          StatusCode::kInvalidArgument, "sequence elements must share one kind: ", "element 0 is ",
          value.elements[0].Description(), ", element ", i, " is ", element.Description());
    }
    Status s;
    switch (kind) {
      case OnnxValue::Kind::kTensor:
        s = TensorToProto(element.tensor, element.name, out->add_tensor_values());
        break;
      case OnnxValue::Kind::kSequence:
        s = ToSequenceProto(element, element.name, out->add_sequence_values());
        break;
      case OnnxValue::Kind::kOptional:
        s = ToOptionalProto(element, element.name, out->add_optional_values());
        break;
    }
    if (!s.ok()) return s.WithContext("element " + std::to_string(i));
  }
  return Status::Ok();
}

Status ToOptionalProto(const OnnxValue& value, std::string_view name, onnx::OptionalProto* out) {
  if (value.kind != OnnxValue::Kind::kOptional) {
    return MakeStatus(StatusCode::kInvalidArgument, "expected an optional, got ",
                      value.Description());
  }
  out->set_name(std::string(name));
  if (!value.has_value) {
    out->set_elem_type(onnx::OptionalProto::UNDEFINED);
    return Status::Ok();
  }
  if (value.elements.size() != 1) {
    return MakeStatus(StatusCode::kInvalidArgument,
                      "an optional with a value holds 1 element, got ", value.elements.size());
  }
  const OnnxValue& held = value.elements[0];
  switch (held.kind) {
    case OnnxValue::Kind::kTensor:
      out->set_elem_type(onnx::OptionalProto::TENSOR);
      return TensorToProto(held.tensor, held.name, out->mutable_tensor_value());
    case OnnxValue::Kind::kSequence:
      out->set_elem_type(onnx::OptionalProto::SEQUENCE);
      return ToSequenceProto(held, held.name, out->mutable_sequence_value());
    case OnnxValue::Kind::kOptional:
      out->set_elem_type(onnx::OptionalProto::OPTIONAL);
      return ToOptionalProto(held, held.name, out->mutable_optional_value());
  }
  return Status(StatusCode::kInternal, "unknown OnnxValue kind");
}

// A TensorProto file as a kTensor value carrying the proto's name.
Result<OnnxValue> ReadTensorValue(const std::filesystem::path& path) {
  const std::string what = FileLabel(path);
  return GuardAllocation(what, [&]() -> Result<OnnxValue> {
    NXRT_ASSIGN_OR_RETURN(std::string bytes, ReadFileBytes(path));
    onnx::TensorProto proto;
    NXRT_RETURN_IF_ERROR(ParseMessage(bytes, what, "TensorProto", &proto));
    const ExternalDataFn external = ExternalDataReader(path.parent_path());
    NXRT_ASSIGN_OR_RETURN(Tensor t, InContext(TensorFromProto(proto, &external), what));
    return OnnxValue::FromTensor(std::move(t), proto.name());
  });
}

}  // namespace

// ---- OnnxValue -----------------------------------------------------------------------------

OnnxValue OnnxValue::FromTensor(Tensor t, std::string value_name) {
  OnnxValue v;
  v.kind = Kind::kTensor;
  v.tensor = std::move(t);
  v.name = std::move(value_name);
  return v;
}

OnnxValue OnnxValue::Sequence(std::vector<OnnxValue> values, std::string value_name) {
  OnnxValue v;
  v.kind = Kind::kSequence;
  v.elements = std::move(values);
  v.name = std::move(value_name);
  return v;
}

OnnxValue OnnxValue::Optional(OnnxValue value, std::string value_name) {
  OnnxValue v;
  v.kind = Kind::kOptional;
  v.has_value = true;
  v.elements.push_back(std::move(value));
  v.name = std::move(value_name);
  return v;
}

OnnxValue OnnxValue::EmptyOptional(std::string value_name) {
  OnnxValue v;
  v.kind = Kind::kOptional;
  v.name = std::move(value_name);
  return v;
}

std::string OnnxValue::Description() const {
  switch (kind) {
    case Kind::kTensor: return tensor.Description();
    case Kind::kSequence: {
      std::string out = "seq(";
      for (size_t i = 0; i < elements.size(); ++i) {
        if (i > 0) out += ", ";
        out += elements[i].Description();
      }
      return out + ")";
    }
    case Kind::kOptional:
      if (!has_value || elements.empty()) return "optional(none)";
      return "optional(" + elements[0].Description() + ")";
  }
  return "unknown";
}

// ---- .pb -----------------------------------------------------------------------------------

Result<Tensor> ParseTensorProto(std::string_view bytes, std::string_view what) {
  return GuardAllocation(what, [&]() -> Result<Tensor> {
    onnx::TensorProto proto;
    NXRT_RETURN_IF_ERROR(ParseMessage(bytes, what, "TensorProto", &proto));
    return InContext(TensorFromProto(proto), what);
  });
}

Result<Tensor> ReadTensorProtoFile(const std::filesystem::path& path) {
  NXRT_ASSIGN_OR_RETURN(OnnxValue value, ReadTensorValue(path));
  return std::move(value.tensor);
}

Status WriteTensorProtoFile(const std::filesystem::path& path, const Tensor& tensor,
                            std::string_view name) {
  const std::string what = FileLabel(path);
  return GuardAllocation(what, [&]() -> Status {
    onnx::TensorProto proto;
    NXRT_RETURN_IF_ERROR(TensorToProto(tensor, name, &proto).WithContext(what));
    return SerializeMessageToFile(proto, path);
  });
}

Result<OnnxValue> ParseSequenceProto(std::string_view bytes, std::string_view what) {
  return GuardAllocation(what, [&]() -> Result<OnnxValue> {
    onnx::SequenceProto proto;
    NXRT_RETURN_IF_ERROR(ParseMessage(bytes, what, "SequenceProto", &proto));
    return InContext(FromSequenceProto(proto, nullptr), what);
  });
}

Result<OnnxValue> ReadSequenceProtoFile(const std::filesystem::path& path) {
  const std::string what = FileLabel(path);
  return GuardAllocation(what, [&]() -> Result<OnnxValue> {
    NXRT_ASSIGN_OR_RETURN(std::string bytes, ReadFileBytes(path));
    onnx::SequenceProto proto;
    NXRT_RETURN_IF_ERROR(ParseMessage(bytes, what, "SequenceProto", &proto));
    const ExternalDataFn external = ExternalDataReader(path.parent_path());
    return InContext(FromSequenceProto(proto, &external), what);
  });
}

Status WriteSequenceProtoFile(const std::filesystem::path& path, const OnnxValue& sequence,
                              std::string_view name) {
  const std::string what = FileLabel(path);
  return GuardAllocation(what, [&]() -> Status {
    onnx::SequenceProto proto;
    NXRT_RETURN_IF_ERROR(ToSequenceProto(sequence, name, &proto).WithContext(what));
    return SerializeMessageToFile(proto, path);
  });
}

Result<OnnxValue> ParseOptionalProto(std::string_view bytes, std::string_view what) {
  return GuardAllocation(what, [&]() -> Result<OnnxValue> {
    onnx::OptionalProto proto;
    NXRT_RETURN_IF_ERROR(ParseMessage(bytes, what, "OptionalProto", &proto));
    return InContext(FromOptionalProto(proto, nullptr), what);
  });
}

Result<OnnxValue> ReadOptionalProtoFile(const std::filesystem::path& path) {
  const std::string what = FileLabel(path);
  return GuardAllocation(what, [&]() -> Result<OnnxValue> {
    NXRT_ASSIGN_OR_RETURN(std::string bytes, ReadFileBytes(path));
    onnx::OptionalProto proto;
    NXRT_RETURN_IF_ERROR(ParseMessage(bytes, what, "OptionalProto", &proto));
    const ExternalDataFn external = ExternalDataReader(path.parent_path());
    return InContext(FromOptionalProto(proto, &external), what);
  });
}

Status WriteOptionalProtoFile(const std::filesystem::path& path, const OnnxValue& optional,
                              std::string_view name) {
  const std::string what = FileLabel(path);
  return GuardAllocation(what, [&]() -> Status {
    onnx::OptionalProto proto;
    NXRT_RETURN_IF_ERROR(ToOptionalProto(optional, name, &proto).WithContext(what));
    return SerializeMessageToFile(proto, path);
  });
}

Result<OnnxValue> ReadTestDataFile(const std::filesystem::path& path, TypeInfo::Kind expected) {
  switch (expected) {
    case TypeInfo::Kind::kTensor:
      return ReadTensorValue(path);
    case TypeInfo::Kind::kSparseTensor: {
      const std::string what = FileLabel(path);
      return GuardAllocation(what, [&]() -> Result<OnnxValue> {
        NXRT_ASSIGN_OR_RETURN(std::string bytes, ReadFileBytes(path));
        onnx::SparseTensorProto proto;
        NXRT_RETURN_IF_ERROR(ParseMessage(bytes, what, "SparseTensorProto", &proto));
        const ExternalDataFn external = ExternalDataReader(path.parent_path());
        NXRT_ASSIGN_OR_RETURN(Tensor t, InContext(SparseTensorToDense(proto, &external), what));
        return OnnxValue::FromTensor(std::move(t), proto.values().name());
      });
    }
    case TypeInfo::Kind::kSequence: return ReadSequenceProtoFile(path);
    case TypeInfo::Kind::kOptional: return ReadOptionalProtoFile(path);
    case TypeInfo::Kind::kMap:
      return MakeStatus(StatusCode::kNotImplemented, FileLabel(path),
                        ": map values are not supported");
    case TypeInfo::Kind::kUnknown: break;
  }
  return MakeStatus(StatusCode::kInvalidArgument, FileLabel(path),
                    ": the expected kind of value is unknown; the model must declare the type");
}

}  // namespace nxrt::ir
