// ir/onnx_writer.cpp: see onnx_writer.h.
#include "ir/onnx_writer.h"

#include <cstdint>
#include <fstream>
#include <limits>

#include "ir/onnx_writer_proto.h"
#include "ir/tensor_proto.h"
#include "onnx/onnx_pb.h"

namespace nxrt::ir {
namespace {

int32_t OnnxType(DataType dtype) { return static_cast<int32_t>(dtype); }

void WriteShape(const std::vector<Dim>& dims, onnx::TensorShapeProto* shape) {
  for (const Dim& d : dims) {
    onnx::TensorShapeProto::Dimension* dim = shape->add_dim();
    if (d.kind == Dim::Kind::kFixed) dim->set_dim_value(d.value);
    if (d.kind == Dim::Kind::kSymbolic) dim->set_dim_param(d.symbol);
  }
}

void WriteType(const TypeInfo& type, onnx::TypeProto* out) {
  switch (type.kind) {
    case TypeInfo::Kind::kUnknown: return;
    case TypeInfo::Kind::kTensor: {
      onnx::TypeProto::Tensor* t = out->mutable_tensor_type();
      t->set_elem_type(OnnxType(type.elem_type));
      if (type.shape) WriteShape(*type.shape, t->mutable_shape());
      return;
    }
    case TypeInfo::Kind::kSparseTensor: {
      onnx::TypeProto::SparseTensor* t = out->mutable_sparse_tensor_type();
      t->set_elem_type(OnnxType(type.elem_type));
      if (type.shape) WriteShape(*type.shape, t->mutable_shape());
      return;
    }
    case TypeInfo::Kind::kSequence: {
      onnx::TypeProto::Sequence* s = out->mutable_sequence_type();
      if (type.element) WriteType(*type.element, s->mutable_elem_type());
      return;
    }
    case TypeInfo::Kind::kOptional: {
      onnx::TypeProto::Optional* o = out->mutable_optional_type();
      if (type.element) WriteType(*type.element, o->mutable_elem_type());
      return;
    }
    case TypeInfo::Kind::kMap: {
      onnx::TypeProto::Map* m = out->mutable_map_type();
      m->set_key_type(OnnxType(type.map_key));
      if (type.element) WriteType(*type.element, m->mutable_value_type());
      return;
    }
  }
}

void WriteValueInfo(const Value& value, onnx::ValueInfoProto* out) {
  out->set_name(value.name);
  if (!value.doc_string.empty()) out->set_doc_string(value.doc_string);
  WriteType(value.type, out->mutable_type());
}

Status WriteGraph(const Graph& graph, const WriteOptions& options, onnx::GraphProto* out);

Status WriteAttribute(const Attribute& attr, const WriteOptions& options,
                      onnx::AttributeProto* out) {
  using T = Attribute::Type;
  out->set_name(attr.name);
  if (!attr.doc_string.empty()) out->set_doc_string(attr.doc_string);
  if (!attr.ref_attr_name.empty()) out->set_ref_attr_name(attr.ref_attr_name);
  // Sparse tensors were densified on load: they are written as dense tensors.
  const T type = attr.type == T::kSparseTensor    ? T::kTensor
                 : attr.type == T::kSparseTensors ? T::kTensors
                                                  : attr.type;
  out->set_type(static_cast<onnx::AttributeProto::AttributeType>(type));
  switch (type) {
    case T::kFloat: out->set_f(attr.f); break;
    case T::kInt: out->set_i(attr.i); break;
    case T::kString: out->set_s(attr.s); break;
    case T::kTensor: NXRT_RETURN_IF_ERROR(TensorToProto(attr.t, "", out->mutable_t())); break;
    case T::kGraph: NXRT_RETURN_IF_ERROR(WriteGraph(*attr.g, options, out->mutable_g())); break;
    case T::kFloats: *out->mutable_floats() = {attr.floats.begin(), attr.floats.end()}; break;
    case T::kInts: *out->mutable_ints() = {attr.ints.begin(), attr.ints.end()}; break;
    case T::kStrings: *out->mutable_strings() = {attr.strings.begin(), attr.strings.end()}; break;
    case T::kTensors:
      for (const Tensor& t : attr.tensors) {
        NXRT_RETURN_IF_ERROR(TensorToProto(t, "", out->add_tensors()));
      }
      break;
    case T::kGraphs:
      for (const auto& g : attr.graphs) {
        NXRT_RETURN_IF_ERROR(WriteGraph(*g, options, out->add_graphs()));
      }
      break;
    case T::kTypeProto: WriteType(attr.tp, out->mutable_tp()); break;
    case T::kTypeProtos:
      for (const TypeInfo& tp : attr.tps) WriteType(tp, out->add_type_protos());
      break;
    case T::kUndefined:
    case T::kSparseTensor:
    case T::kSparseTensors: break;
  }
  return Status::Ok();
}

Status WriteNode(const Graph& graph, const Node& node, const WriteOptions& options,
                 onnx::NodeProto* n) {
  auto name = [&](ValueId v) { return v == kNoValue ? std::string() : graph.values[v].name; };
  if (!node.unnamed || options.write_made_up_names) n->set_name(node.name);
  n->set_op_type(node.op_type);
  if (!node.domain.empty()) n->set_domain(node.domain);
  if (!node.doc_string.empty()) n->set_doc_string(node.doc_string);
  for (ValueId v : node.inputs) n->add_input(name(v));
  for (ValueId v : node.outputs) n->add_output(name(v));
  for (const Attribute& attr : node.attributes) {
    Status status = WriteAttribute(attr, options, n->add_attribute());
    if (!status.ok()) {
      return status.WithContext("node '" + node.name + "' attribute '" + attr.name + "'");
    }
  }
  return Status::Ok();
}

Status WriteGraph(const Graph& graph, const WriteOptions& options, onnx::GraphProto* out) {
  out->set_name(graph.name);
  if (!graph.doc_string.empty()) out->set_doc_string(graph.doc_string);
  for (const Node& node : graph.nodes) {
    NXRT_RETURN_IF_ERROR(WriteNode(graph, node, options, out->add_node()));
  }
  for (ValueId v : graph.inputs) WriteValueInfo(graph.values[v], out->add_input());
  for (ValueId v : graph.outputs) WriteValueInfo(graph.values[v], out->add_output());
  for (ValueId v : graph.value_infos) WriteValueInfo(graph.values[v], out->add_value_info());
  for (const Initializer& init : graph.initializers) {
    const std::string& init_name = graph.values[init.value].name;
    onnx::TensorProto* proto = out->add_initializer();
    if (options.inline_bytes_limit > 0 && init.tensor.defined() &&
        init.tensor.byte_size() > options.inline_bytes_limit) {
      proto->set_name(init_name);
      proto->set_data_type(static_cast<int32_t>(init.tensor.dtype()));
      for (int64_t d : init.tensor.shape()) proto->add_dims(d);
      proto->set_data_location(onnx::TensorProto::EXTERNAL);
      onnx::StringStringEntryProto* location = proto->add_external_data();
      location->set_key("location");
      location->set_value(std::string(kOmittedDataLocation));
      continue;
    }
    Status status = TensorToProto(init.tensor, init_name, proto);
    if (!status.ok()) return status.WithContext("initializer '" + init_name + "'");
  }
  return Status::Ok();
}

}  // namespace

Status WriteNodeProto(const Graph& graph, const Node& node, onnx::NodeProto* out) {
  WriteOptions options;
  options.write_made_up_names = false;
  return WriteNode(graph, node, options, out);
}

void WriteTypeProto(const TypeInfo& type, onnx::TypeProto* out) { WriteType(type, out); }

Result<std::string> SerializeModel(const Model& model, const WriteOptions& options) {
  if (!model.local_functions.empty()) {
    return MakeStatus(StatusCode::kNotImplemented, "the model defines local functions (",
                      model.local_functions.front(),
                      model.local_functions.size() > 1 ? ", ..." : "",
                      "), whose bodies nxrt does not keep; it cannot be saved");
  }
  onnx::ModelProto proto;
  proto.set_ir_version(model.ir_version);
  for (const OpsetImport& opset : model.opset_imports) {
    onnx::OperatorSetIdProto* op = proto.add_opset_import();
    op->set_domain(opset.domain);
    op->set_version(opset.version);
  }
  if (!model.producer_name.empty()) proto.set_producer_name(model.producer_name);
  if (!model.producer_version.empty()) proto.set_producer_version(model.producer_version);
  if (!model.domain.empty()) proto.set_domain(model.domain);
  if (model.model_version != std::numeric_limits<int64_t>::max()) {
    proto.set_model_version(model.model_version);
  }
  if (!model.doc_string.empty()) proto.set_doc_string(model.doc_string);
  for (const auto& [key, value] : model.metadata) {
    onnx::StringStringEntryProto* entry = proto.add_metadata_props();
    entry->set_key(key);
    entry->set_value(value);
  }
  NXRT_RETURN_IF_ERROR(WriteGraph(*model.graph, options, proto.mutable_graph()));
  const size_t bytes = proto.ByteSizeLong();
  if (bytes >= (size_t{1} << 31)) {
    return MakeStatus(StatusCode::kNotImplemented, "the model is ", bytes,
                      " bytes, past protobuf's 2 GiB limit; nxrt does not write external data");
  }
  std::string out;
  if (!proto.SerializeToString(&out)) {
    return Status(StatusCode::kInternal, "protobuf could not serialize the model");
  }
  return out;
}

Status SaveModel(const Model& model, const std::filesystem::path& path) {
  NXRT_ASSIGN_OR_RETURN(std::string bytes, SerializeModel(model));
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  file.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  file.close();
  if (!file) {
    return MakeStatus(StatusCode::kIoError, "cannot write the model to '", path.string(),
                      "'; check that its folder exists and is writable");
  }
  return Status::Ok();
}

}  // namespace nxrt::ir
