// ep/cpu/testing/single_op_model.cpp: one-node ModelProto building and running
// (ep/cpu/testing/single_op_model.h).
//
// Layer: tests of nxrt_ep_cpu.
#include "ep/cpu/testing/single_op_model.h"

#include <cstddef>
#include <span>

#include "ep/cpu/cpu_execution_provider.h"
#include "ir/tensor_proto.h"
#include "onnx/onnx_pb.h"

namespace nxrt::cpu::testing {
namespace {

AttributeValue Named(std::string name, AttributeType type) {
  AttributeValue attribute;
  attribute.name = std::move(name);
  attribute.type = type;
  return attribute;
}

// Declares `value` as a tensor of `dtype` with `shape` (no shape proto when `shape` is null).
void DeclareTensor(onnx::ValueInfoProto* value, const std::string& name, DataType dtype,
                   const Shape* shape) {
  value->set_name(name);
  if (dtype == DataType::kUndefined) return;
  onnx::TypeProto::Tensor* type = value->mutable_type()->mutable_tensor_type();
  type->set_elem_type(static_cast<int32_t>(dtype));
  if (shape == nullptr) return;
  onnx::TensorShapeProto* dims = type->mutable_shape();
  for (int64_t d : *shape) dims->add_dim()->set_dim_value(d);
}

Status WriteAttribute(const AttributeValue& in, onnx::AttributeProto* out) {
  out->set_name(in.name);
  out->set_type(static_cast<onnx::AttributeProto::AttributeType>(in.type));
  switch (in.type) {
    case AttributeType::kFloat: out->set_f(in.f); return Status::Ok();
    case AttributeType::kInt: out->set_i(in.i); return Status::Ok();
    case AttributeType::kString: out->set_s(in.s); return Status::Ok();
    case AttributeType::kTensor: return ir::TensorToProto(in.tensor, in.name, out->mutable_t());
    case AttributeType::kFloats:
      for (float f : in.floats) out->add_floats(f);
      return Status::Ok();
    case AttributeType::kInts:
      for (int64_t i : in.ints) out->add_ints(i);
      return Status::Ok();
    case AttributeType::kStrings:
      for (const std::string& s : in.strings) out->add_strings(s);
      return Status::Ok();
    default:
      return MakeStatus(StatusCode::kInvalidArgument, "attribute '", in.name, "' has type ",
                        AttributeTypeName(in.type), ", which SingleOpModel does not write");
  }
}

// "x0", "y3": the name of input or output slot `index`.
std::string SlotName(char prefix, size_t index) {
  std::string name(1, prefix);
  name += std::to_string(index);
  return name;
}

}  // namespace

AttributeValue IntAttr(std::string name, int64_t value) {
  AttributeValue a = Named(std::move(name), AttributeType::kInt);
  a.i = value;
  return a;
}

AttributeValue FloatAttr(std::string name, float value) {
  AttributeValue a = Named(std::move(name), AttributeType::kFloat);
  a.f = value;
  return a;
}

AttributeValue StringAttr(std::string name, std::string value) {
  AttributeValue a = Named(std::move(name), AttributeType::kString);
  a.s = std::move(value);
  return a;
}

AttributeValue IntsAttr(std::string name, std::vector<int64_t> values) {
  AttributeValue a = Named(std::move(name), AttributeType::kInts);
  a.ints = std::move(values);
  return a;
}

AttributeValue FloatsAttr(std::string name, std::vector<float> values) {
  AttributeValue a = Named(std::move(name), AttributeType::kFloats);
  a.floats = std::move(values);
  return a;
}

AttributeValue StringsAttr(std::string name, std::vector<std::string> values) {
  AttributeValue a = Named(std::move(name), AttributeType::kStrings);
  a.strings = std::move(values);
  return a;
}

AttributeValue TensorAttr(std::string name, Tensor value) {
  AttributeValue a = Named(std::move(name), AttributeType::kTensor);
  a.tensor = std::move(value);
  return a;
}

SingleOpModel::SingleOpModel(std::string op_type, int64_t opset, std::string domain)
    : op_type_(std::move(op_type)), domain_(std::move(domain)), opset_(opset) {}

SingleOpModel& SingleOpModel::AddInput(OpInput input) {
  inputs_.push_back(std::move(input));
  return *this;
}

SingleOpModel& SingleOpModel::AddAttribute(AttributeValue attribute) {
  attributes_.push_back(std::move(attribute));
  return *this;
}

SingleOpModel& SingleOpModel::AddOutput(DataType dtype) {
  outputs_.push_back(dtype);
  return *this;
}

Result<std::string> SingleOpModel::Serialize() const {
  onnx::ModelProto model;
  model.set_ir_version(8);
  model.set_producer_name("nxrt SingleOpModel");
  onnx::OperatorSetIdProto* import = model.add_opset_import();
  import->set_domain(domain_);
  import->set_version(opset_);
  if (!domain_.empty()) {
    // A contrib domain's node still lives in a model of some ONNX opset (ONNX Runtime wants one).
    onnx::OperatorSetIdProto* onnx_import = model.add_opset_import();
    onnx_import->set_domain("");
    onnx_import->set_version(17);
  }
  onnx::GraphProto* graph = model.mutable_graph();
  graph->set_name(op_type_ + "_test");
  onnx::NodeProto* node = graph->add_node();
  node->set_name("node");
  node->set_op_type(op_type_);
  node->set_domain(domain_);
  for (size_t i = 0; i < inputs_.size(); ++i) {
    const OpInput& input = inputs_[i];
    const std::string name = input.value.defined() ? SlotName('x', i) : "";
    node->add_input(name);
    if (!input.value.defined()) continue;
    if (input.initializer) {
      NXRT_RETURN_IF_ERROR(ir::TensorToProto(input.value, name, graph->add_initializer()));
    } else {
      DeclareTensor(graph->add_input(), name, input.value.dtype(), &input.value.shape());
    }
  }
  for (size_t i = 0; i < outputs_.size(); ++i) {
    const std::string name = SlotName('y', i);
    node->add_output(name);
    DeclareTensor(graph->add_output(), name, outputs_[i], nullptr);
  }
  for (const AttributeValue& attribute : attributes_) {
    NXRT_RETURN_IF_ERROR(WriteAttribute(attribute, node->add_attribute()));
  }
  std::string bytes;
  if (!model.SerializeToString(&bytes)) {
    return MakeStatus(StatusCode::kInternal, "cannot serialise the model of ", op_type_);
  }
  return bytes;
}

KernelMatch SingleOpModel::CpuSupports() const {
  NodeInfo::Data data;
  data.name = "node";
  data.op_type = op_type_;
  data.domain = domain_;
  data.opset = opset_;
  for (size_t i = 0; i < inputs_.size(); ++i) {
    ValueInfo value;
    if (inputs_[i].value.defined()) {
      value.name = SlotName('x', i);
      value.kind = ValueKind::kTensor;
      value.dtype = inputs_[i].value.dtype();
    }
    data.inputs.push_back(std::move(value));
  }
  for (size_t i = 0; i < outputs_.size(); ++i) {
    ValueInfo value;
    value.name = SlotName('y', i);
    value.kind = ValueKind::kTensor;
    value.dtype = outputs_[i];
    data.outputs.push_back(std::move(value));
  }
  data.attributes = attributes_;
  static const CpuExecutionProvider ep;
  return ep.Supports(NodeInfo(std::move(data)));
}

Result<std::vector<Tensor>> SingleOpModel::Run(const SessionOptions& options) const {
  NXRT_ASSIGN_OR_RETURN(std::string bytes, Serialize());
  NXRT_ASSIGN_OR_RETURN(std::unique_ptr<Session> session,
                        Session::CreateFromBytes(std::as_bytes(std::span(bytes)), options));
  std::vector<NamedTensor> feeds;
  for (size_t i = 0; i < inputs_.size(); ++i) {
    if (inputs_[i].value.defined() && !inputs_[i].initializer) {
      feeds.push_back({SlotName('x', i), inputs_[i].value});
    }
  }
  NXRT_ASSIGN_OR_RETURN(std::vector<NamedTensor> outputs, session->Run(feeds));
  std::vector<Tensor> tensors;
  for (NamedTensor& output : outputs) tensors.push_back(std::move(output.tensor));
  return tensors;
}

}  // namespace nxrt::cpu::testing
