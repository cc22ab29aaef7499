// ir/function_body.cpp: see function_body.h.
//
// Layer: nxrt_ir. The body is specialized on its FunctionProto (names, attribute references,
// constants), then wrapped in a GraphProto whose inputs are the outer names it reads and converted
// by the loader's GraphBuilder, so its subgraphs get the same treatment as a model's.
#include "ir/function_body.h"

#include <exception>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "ir/external_data.h"
#include "ir/graph_builder.h"
#include "ir/onnx_writer_proto.h"
#include "ir/op_schema.h"
#include "onnx/defs/schema.h"

namespace nxrt::ir {
namespace {

const onnx::OpSchema* SchemaOf(const Model& model, const Node& node) {
  const std::optional<int64_t> opset = model.OpsetFor(node.domain);
  return opset ? LibonnxSchemaAt(node.domain, node.op_type, *opset) : nullptr;
}

// Renames a function body's names as ORT's inliner does (function_body.h), scope by scope.
class Specializer {
 public:
  Specializer(std::string prefix, std::unordered_map<std::string, std::string> formals)
      : prefix_(std::move(prefix)) {
    scopes_.push_back(std::move(formals));
  }

  void Nodes(google::protobuf::RepeatedPtrField<onnx::NodeProto>* nodes) {
    for (onnx::NodeProto& node : *nodes) {
      if (!node.name().empty()) node.set_name(prefix_ + "_" + node.name());
      for (std::string& input : *node.mutable_input()) input = Lookup(input);
      for (onnx::AttributeProto& attr : *node.mutable_attribute()) {
        if (attr.has_g()) Graph(attr.mutable_g());
        for (onnx::GraphProto& g : *attr.mutable_graphs()) Graph(&g);
      }
      for (std::string& output : *node.mutable_output()) output = Bind(output);
    }
  }

 private:
  void Graph(onnx::GraphProto* graph) {
    scopes_.emplace_back();
    for (onnx::ValueInfoProto& input : *graph->mutable_input()) input.set_name(Bind(input.name()));
    for (onnx::TensorProto& init : *graph->mutable_initializer()) init.set_name(Bind(init.name()));
    Nodes(graph->mutable_node());
    for (onnx::ValueInfoProto& output : *graph->mutable_output()) {
      output.set_name(Lookup(output.name()));
    }
    for (onnx::ValueInfoProto& info : *graph->mutable_value_info()) {
      info.set_name(Lookup(info.name()));
    }
    scopes_.pop_back();
  }

  // A name the body defines: the formal's actual name at the top level, else prefixed.
  std::string Bind(const std::string& name) {
    if (name.empty()) return name;
    if (scopes_.size() == 1) {
      if (auto it = scopes_[0].find(name); it != scopes_[0].end()) return it->second;
    }
    return scopes_.back()[name] = prefix_ + "_" + name;
  }

  // A name the body reads: its binding in the innermost scope that has one, else unchanged (a
  // value of the graph around the node).
  std::string Lookup(const std::string& name) const {
    for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it) {
      if (auto found = it->find(name); found != it->end()) return found->second;
    }
    return name;
  }

  std::string prefix_;
  std::vector<std::unordered_map<std::string, std::string>> scopes_;
};

// Replaces each attribute referring to one of the function's (ref_attr_name) by the node's
// attribute of that name, else the schema's default, else drops it; in subgraphs too.
void BindAttributeRefs(google::protobuf::RepeatedPtrField<onnx::NodeProto>* nodes,
                       const onnx::NodeProto& call, const onnx::OpSchema& schema) {
  for (onnx::NodeProto& node : *nodes) {
    google::protobuf::RepeatedPtrField<onnx::AttributeProto> bound;
    for (onnx::AttributeProto& attr : *node.mutable_attribute()) {
      if (attr.ref_attr_name().empty()) {
        if (attr.has_g()) BindAttributeRefs(attr.mutable_g()->mutable_node(), call, schema);
        for (onnx::GraphProto& g : *attr.mutable_graphs()) {
          BindAttributeRefs(g.mutable_node(), call, schema);
        }
        *bound.Add() = std::move(attr);
        continue;
      }
      const onnx::AttributeProto* value = nullptr;
      for (const onnx::AttributeProto& a : call.attribute()) {
        if (a.name() == attr.ref_attr_name()) value = &a;
      }
      const auto declared = schema.attributes().find(attr.ref_attr_name());
      if (value == nullptr && declared != schema.attributes().end() &&
          declared->second.default_value.type() != onnx::AttributeProto::UNDEFINED) {
        value = &declared->second.default_value;
      }
      if (value == nullptr) continue;
      onnx::AttributeProto* copy = bound.Add();
      *copy = *value;
      copy->set_name(attr.name());
    }
    node.mutable_attribute()->Swap(&bound);
  }
}

// A Constant node's value as an initializer named `name`. Errors: kInvalidModel for a value
// attribute other than value, value_float(s), value_int(s).
Status ConstantToInitializer(const onnx::NodeProto& node, onnx::TensorProto* out) {
  for (const onnx::AttributeProto& attr : node.attribute()) {
    if (attr.name() == "value" && attr.has_t()) {
      *out = attr.t();
    } else if (attr.name() == "value_float") {
      out->set_data_type(onnx::TensorProto::FLOAT);
      out->add_float_data(attr.f());
    } else if (attr.name() == "value_floats") {
      out->set_data_type(onnx::TensorProto::FLOAT);
      out->add_dims(attr.floats_size());
      *out->mutable_float_data() = attr.floats();
    } else if (attr.name() == "value_int") {
      out->set_data_type(onnx::TensorProto::INT64);
      out->add_int64_data(attr.i());
    } else if (attr.name() == "value_ints") {
      out->set_data_type(onnx::TensorProto::INT64);
      out->add_dims(attr.ints_size());
      *out->mutable_int64_data() = attr.ints();
    } else {
      return MakeStatus(StatusCode::kInvalidModel, "Constant '", node.output(0),
                        "' of the function body has attribute '", attr.name(),
                        "', which nxrt does not read as a constant");
    }
    out->set_name(node.output(0));
    return Status::Ok();
  }
  return MakeStatus(StatusCode::kInvalidModel, "Constant '", node.output(0),
                    "' of the function body has no value");
}

// Names a body reads (node inputs, subgraph outputs) and names it defines, at every depth.
void NoteNames(const google::protobuf::RepeatedPtrField<onnx::NodeProto>& nodes,
               std::set<std::string>& read, std::set<std::string>& defined) {
  for (const onnx::NodeProto& node : nodes) {
    for (const std::string& input : node.input()) read.insert(input);
    for (const std::string& output : node.output()) defined.insert(output);
    for (const onnx::AttributeProto& attr : node.attribute()) {
      std::vector<const onnx::GraphProto*> graphs;
      if (attr.has_g()) graphs.push_back(&attr.g());
      for (const onnx::GraphProto& g : attr.graphs()) graphs.push_back(&g);
      for (const onnx::GraphProto* g : graphs) {
        for (const onnx::ValueInfoProto& v : g->input()) defined.insert(v.name());
        for (const onnx::TensorProto& t : g->initializer()) defined.insert(t.name());
        for (const onnx::ValueInfoProto& v : g->output()) read.insert(v.name());
        NoteNames(g->node(), read, defined);
      }
    }
  }
}

// The value named `name` in `graph` or the nearest ancestor defining it, or nullptr.
const Value* FindVisible(const Graph& graph, const std::string& name) {
  for (const Graph* g = &graph; g != nullptr; g = g->parent) {
    const ValueId v = g->FindValue(name);
    if (v != kNoValue && !g->values[v].outer_scope) return &g->values[v];
  }
  return nullptr;
}

}  // namespace

bool HasFunctionBody(const Model& model, const Node& node) {
  const onnx::OpSchema* schema = SchemaOf(model, node);
  return schema != nullptr && (schema->HasFunction() || schema->HasContextDependentFunction());
}

Result<std::shared_ptr<Graph>> BuildFunctionBody(const Model& model, const Graph& graph,
                                                 const Node& node, std::string_view prefix) {
  const std::string label = "node '" + node.name + "' (" + node.op_type + ")";
  const onnx::OpSchema* schema = SchemaOf(model, node);
  if (schema == nullptr || !(schema->HasFunction() || schema->HasContextDependentFunction())) {
    return MakeStatus(StatusCode::kNotFound, label, " has no ONNX function body at its opset");
  }
  onnx::NodeProto call;
  NXRT_RETURN_IF_ERROR(WriteNodeProto(graph, node, &call));
  onnx::FunctionProto function;
  if (schema->HasFunction()) {
    function = *schema->GetFunction();
  } else {
    std::vector<onnx::TypeProto> input_types(node.inputs.size());
    for (size_t i = 0; i < node.inputs.size(); ++i) {
      if (node.inputs[i] == kNoValue) continue;
      WriteTypeProto(graph.values[node.inputs[i]].type, &input_types[i]);
    }
    bool built = false;
    std::string why = "libonnx declined";
    try {
      built = schema->BuildContextDependentFunction(
          onnx::FunctionBodyBuildContextImpl(call, input_types), function);
    } catch (const std::exception& e) {
      why = e.what();
    }
    if (!built) {
      return MakeStatus(StatusCode::kInvalidModel, "cannot build the function body of ", label,
                        ": ", why, "; fix the node's attributes or input types, or run it on an "
                        "EP that has a kernel for ", node.op_type);
    }
  }
  BindAttributeRefs(function.mutable_node(), call, *schema);

  // Formal parameter → actual name; an omitted output keeps an inner (prefixed) name.
  std::unordered_map<std::string, std::string> formals;
  const std::string base(prefix);
  for (int i = 0; i < function.input_size(); ++i) {
    formals[function.input(i)] = i < call.input_size() ? call.input(i) : std::string();
  }
  for (int i = 0; i < function.output_size(); ++i) {
    const bool given = i < call.output_size() && !call.output(i).empty();
    formals[function.output(i)] = given ? call.output(i) : base + "_" + function.output(i);
  }
  Specializer(base, std::move(formals)).Nodes(function.mutable_node());

  onnx::GraphProto body;
  body.set_name("function " + node.op_type);
  for (onnx::NodeProto& n : *function.mutable_node()) {
    if (n.op_type() == "Constant" && (n.domain().empty() || n.domain() == "ai.onnx") &&
        n.output_size() == 1) {
      Status status = ConstantToInitializer(n, body.add_initializer());
      if (!status.ok()) return status.WithContext(label);
      continue;
    }
    *body.add_node() = std::move(n);
  }
  std::set<std::string> read, defined;
  NoteNames(body.node(), read, defined);
  for (const onnx::TensorProto& t : body.initializer()) defined.insert(t.name());
  for (const std::string& name : read) {
    if (name.empty() || defined.count(name)) continue;
    onnx::ValueInfoProto* input = body.add_input();
    input->set_name(name);
    if (const Value* outer = FindVisible(graph, name)) {
      WriteTypeProto(outer->type, input->mutable_type());
    }
  }
  for (ValueId v : node.outputs) {
    if (v != kNoValue) body.add_output()->set_name(graph.values[v].name);
  }
  const std::filesystem::path model_path(model.path);
  ExternalDataResolver external(model_path.has_parent_path() ? model_path.parent_path() : ".");
  Result<std::shared_ptr<Graph>> built = GraphBuilder(&external).Build(body);
  if (!built.ok()) return built.status().WithContext("function body of " + label);
  return built;
}

}  // namespace nxrt::ir
