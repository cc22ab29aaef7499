// ep/ort_plugin/graph_projection.cpp: building OrtGraph/OrtNode/OrtValueInfo objects from the IR
// (see graph_projection.h). One builder serves the three kinds of graph: a projected IR graph, a
// claim's graph for Compile, and a Graph_GetGraphView subset; they differ only in which nodes,
// inputs, outputs and initializers they list.
#include "ep/ort_plugin/graph_projection.h"

#include <algorithm>
#include <cstring>
#include <unordered_map>
#include <span>
#include <unordered_set>
#include <utility>

#include "ir/op_schema.h"
#include "ir/ort_node_order.h"

namespace nxrt::ort_plugin {
namespace {

// What one graph lists. Nodes in topological order.
struct GraphSpec {
  std::string name;
  const OrtNode* parent_node = nullptr;
  const OrtGraph* outer = nullptr;
  std::vector<ir::NodeId> nodes;
  std::vector<ir::ValueId> inputs;
  std::vector<ir::ValueId> outputs;
  std::vector<ir::ValueId> initializers;
  // Nodes of another graph over the same IR graph whose subgraphs the new nodes share (claims and
  // subsets), or null (a projection: its subgraphs are projected afterwards).
  const OrtGraph* origin = nullptr;
  std::optional<std::string> ep_name;  // for every node (claims)
};

// A symbol type inference made up (ir::Model::inferred_symbols) is shown as an unknown dim, as
// ORT, whose inference makes none up, shows it.
OrtTensorTypeAndShapeInfo TensorInfoOf(const ir::TypeInfo& type, const ir::Model& model) {
  OrtTensorTypeAndShapeInfo info;
  info.element_type = ToOrtElementType(type.elem_type);
  info.has_shape = type.shape.has_value();
  if (type.shape) {
    for (const ir::Dim& dim : *type.shape) {
      const bool symbolic = dim.kind == ir::Dim::Kind::kSymbolic &&
                            model.inferred_symbols.count(dim.symbol) == 0;
      info.dims.push_back(dim.is_fixed() ? dim.value : -1);
      info.symbolic_dims.push_back(symbolic ? dim.symbol : "");
    }
  }
  for (const std::string& symbol : info.symbolic_dims) info.symbolic_dim_ptrs.push_back(symbol.c_str());
  return info;
}

// The ORT form of an IR type; ONNX_TYPE_UNKNOWN when the model gives none.
void FillTypeInfo(const ir::TypeInfo& type, const ir::Model& model, OrtTypeInfo& out) {
  using Kind = ir::TypeInfo::Kind;
  auto element = [&]() {
    auto inner = std::make_unique<OrtTypeInfo>();
    if (type.element) FillTypeInfo(*type.element, model, *inner);
    return inner;
  };
  switch (type.kind) {
    case Kind::kUnknown:
      out.type = ONNX_TYPE_UNKNOWN;
      break;
    case Kind::kTensor:
    case Kind::kSparseTensor:
      out.type = type.kind == Kind::kTensor ? ONNX_TYPE_TENSOR : ONNX_TYPE_SPARSETENSOR;
      out.tensor = std::make_unique<OrtTensorTypeAndShapeInfo>(TensorInfoOf(type, model));
      break;
    case Kind::kSequence:
      out.type = ONNX_TYPE_SEQUENCE;
      out.element = element();
      break;
    case Kind::kOptional:
      out.type = ONNX_TYPE_OPTIONAL;
      out.element = element();
      break;
    case Kind::kMap:
      out.type = ONNX_TYPE_MAP;
      out.map_key = ToOrtElementType(type.map_key);
      out.element = element();
      break;
  }
}

// A view of `tensor`'s bytes (no copy) in host memory.
std::unique_ptr<OrtValue> ViewOf(const Tensor& tensor) {
  auto value = std::make_unique<OrtValue>();
  value->element_type = ToOrtElementType(tensor.dtype());
  value->shape = tensor.shape();
  value->data = const_cast<void*>(tensor.raw_data());
  value->bytes = tensor.byte_size();
  value->memory_info = &DefaultCpuAllocator().info;
  return value;
}

// The attributes of ONNX schemas in the order the schema declares them (its OpSchema::Attr calls,
// those of FillUsing at its place; a name declared twice keeps its first place), for the schema
// versions (since_version) first_since to last_since; docs/plugin_host.md says which were checked
// against ORT 1.30's Node_GetAttributes. nxrt's libonnx keeps a schema's attributes sorted by
// name, so the declaration order is listed here.
struct DeclaredAttributes {
  const char* op_type;
  int first_since;
  int last_since;
  std::vector<const char*> names;
};
const std::vector<DeclaredAttributes>& AttributeDeclarations() {
  static const std::vector<DeclaredAttributes> rows = {
      {"ArgMax", 13, 13, {"axis", "keepdims", "select_last_index"}},
      {"ArgMin", 13, 13, {"axis", "keepdims", "select_last_index"}},
      {"AveragePool", 11, 11,
       {"kernel_shape", "strides", "auto_pad", "pads", "ceil_mode", "count_include_pad"}},
      {"BatchNormalization", 15, 15, {"epsilon", "momentum", "training_mode"}},
      {"BlackmanWindow", 17, 17, {"output_datatype", "periodic"}},
      {"Conv", 11, 22, {"kernel_shape", "dilations", "strides", "auto_pad", "pads", "group"}},
      {"ConvInteger", 10, 10,
       {"auto_pad", "kernel_shape", "dilations", "strides", "pads", "group"}},
      {"ConvTranspose", 1, 11,
       {"kernel_shape", "output_shape", "output_padding", "dilations", "strides", "auto_pad",
        "pads", "group"}},
      {"CumSum", 14, 14, {"exclusive", "reverse"}},
      {"GRU", 14, 22,
       {"activations", "linear_before_reset", "direction", "layout", "hidden_size",
        "activation_alpha", "activation_beta", "clip"}},
      {"Gemm", 11, 13, {"transA", "transB", "alpha", "beta"}},
      {"HammingWindow", 17, 17, {"output_datatype", "periodic"}},
      {"HannWindow", 17, 17, {"output_datatype", "periodic"}},
      {"HardSigmoid", 6, 6, {"alpha", "beta"}},
      {"LRN", 13, 13, {"size", "alpha", "beta", "bias"}},
      {"LSTM", 14, 22,
       {"activations", "layout", "input_forget", "direction", "hidden_size", "activation_alpha",
        "activation_beta", "clip"}},
      {"LayerNormalization", 17, 17, {"axis", "epsilon", "stash_type"}},
      {"MaxPool", 12, 22,
       {"kernel_shape", "strides", "auto_pad", "pads", "ceil_mode", "storage_order",
        "dilations"}},
      {"QLinearConv", 10, 10,
       {"auto_pad", "kernel_shape", "dilations", "strides", "pads", "group"}},
      {"RNN", 14, 14,
       {"activations", "direction", "layout", "hidden_size", "activation_alpha",
        "activation_beta", "clip"}},
      {"Resize", 11, 13,
       {"mode", "cubic_coeff_a", "exclude_outside", "coordinate_transformation_mode",
        "nearest_mode", "extrapolation_value"}},
      {"ScatterElements", 16, 16, {"axis", "reduction"}},
      {"Selu", 6, 6, {"alpha", "gamma"}},
      {"TopK", 11, 11, {"axis", "largest", "sorted"}},
  };
  return rows;
}

// `defaults` (sorted by name) in the order ORT 1.30 adds them to a node: the iteration order of a
// std::unordered_map keyed by the schema's attribute names, inserted in declaration order (the
// rule inferred from ORT 1.30's dumps, docs/plugin_host.md), rebuilt here with the same container.
// Schemas without a row above keep the name order.
std::vector<ir::Attribute> InOrtDefaultOrder(const ir::Node& node, int64_t opset,
                                             std::vector<ir::Attribute> defaults) {
  if (!node.domain.empty() && node.domain != "ai.onnx") return defaults;
  const int since = ir::SinceVersion(node.domain, node.op_type, opset);
  const auto& rows = AttributeDeclarations();
  const auto row = std::find_if(rows.begin(), rows.end(), [&](const DeclaredAttributes& r) {
    return node.op_type == r.op_type && since >= r.first_since && since <= r.last_since;
  });
  if (row == rows.end()) return defaults;
  std::unordered_map<std::string, bool> schema_map;
  for (const char* name : row->names) schema_map.emplace(name, true);
  std::vector<ir::Attribute> ordered;
  ordered.reserve(defaults.size());
  for (const auto& entry : schema_map) {
    const auto it = std::find_if(defaults.begin(), defaults.end(),
                                 [&](const ir::Attribute& a) { return a.name == entry.first; });
    if (it == defaults.end()) continue;
    ordered.push_back(std::move(*it));
    defaults.erase(it);
  }
  for (ir::Attribute& rest : defaults) ordered.push_back(std::move(rest));
  return ordered;
}

// The node's attributes plus the schema defaults it omits, in the order ORT 1.30's
// Node_GetAttributes gives them: the iteration order of ORT's NodeAttributes (a
// std::unordered_map<std::string, AttributeProto>) built as ORT builds it: reserved for the
// model's attributes, which are inserted in model order, then copied into the node, then the
// defaults inserted when ORT resolves the graph, in InOrtDefaultOrder. libstdc++'s unordered_map
// iterates in an order fixed by that sequence.
std::vector<OrtOpAttr> AttributesOf(const ir::Node& node, int64_t opset) {
  std::vector<OrtOpAttr> all;
  std::unordered_map<std::string, size_t> model_order;
  model_order.reserve(node.attributes.size());
  for (const ir::Attribute& attr : node.attributes) {
    model_order.emplace(attr.name, all.size());
    all.push_back({attr});
  }
  std::unordered_map<std::string, size_t> in_node;
  in_node = model_order;
  for (ir::Attribute& def : InOrtDefaultOrder(
           node, opset, ir::AttributeDefaults(node.domain, node.op_type, opset))) {
    if (in_node.count(def.name) != 0) continue;
    in_node.emplace(def.name, all.size());
    all.push_back({std::move(def)});
  }
  std::vector<OrtOpAttr> attrs;
  attrs.reserve(all.size());
  for (const auto& entry : in_node) attrs.push_back(std::move(all[entry.second]));
  return attrs;
}

// Graph_GetOperatorSets as ORT 1.30 answers it: the model's imports plus every domain ORT
// registers that the model does not import, at the version ORT gives it (the ONNX version for its
// internal NHWC domain), sorted by domain ("" is ONNX).
std::vector<std::pair<const char*, int64_t>> OrtOperatorSets(const ir::Model& model) {
  const int64_t onnx = model.OpsetFor("").value_or(1);
  const std::pair<const char*, int64_t> registered[] = {
      {"ai.onnx.ml", 5},        {"ai.onnx.preview", 1},
      {"ai.onnx.preview.training", 1}, {"ai.onnx.training", 1},
      {"com.microsoft", 1},     {"com.microsoft.experimental", 1},
      {"com.microsoft.nchwc", 1}, {"com.ms.internal.nhwc", onnx},
      {"org.pytorch.aten", 1}};
  std::vector<std::pair<const char*, int64_t>> sets;
  for (const ir::OpsetImport& import : model.opset_imports) {
    sets.emplace_back(import.domain.c_str(), import.version);
  }
  for (const auto& [domain, version] : registered) {
    if (!model.OpsetFor(domain)) sets.emplace_back(domain, version);
  }
  std::sort(sets.begin(), sets.end(),
            [](const auto& a, const auto& b) { return std::strcmp(a.first, b.first) < 0; });
  return sets;
}

// The names `graph` reads from enclosing scopes, in the order ORT 1.30 meets them when it
// resolves the graph: those its nodes' subgraphs read (per subgraph a std::unordered_set of its
// reads, iterated), then its nodes' inputs in node order; repeats included.
void OuterReads(const ir::Graph& graph, std::vector<std::string>& out) {
  auto outer = [&](const std::string& name) {
    const ir::ValueId v = graph.FindValue(name);
    return v == ir::kNoValue || graph.values[v].outer_scope;
  };
  for (const ir::Node& node : graph.nodes) {
    for (const ir::Attribute& attr : node.attributes) {
      std::vector<const ir::Graph*> bodies;
      if (attr.type == ir::Attribute::Type::kGraph && attr.g) bodies.push_back(attr.g.get());
      for (const std::shared_ptr<ir::Graph>& g : attr.graphs) bodies.push_back(g.get());
      for (const ir::Graph* body : bodies) {
        std::vector<std::string> nested;
        OuterReads(*body, nested);
        std::unordered_set<std::string> consumed;  // filled one by one, as ORT does
        for (const std::string& name : nested) consumed.insert(name);
        for (const std::string& name : consumed) {
          if (outer(name)) out.push_back(name);
        }
      }
    }
  }
  for (const ir::Node& node : graph.nodes) {
    for (ir::ValueId v : node.inputs) {
      if (v != ir::kNoValue && graph.values[v].outer_scope) out.push_back(graph.values[v].name);
    }
  }
}

// Node_GetImplicitInputs of `id` in ORT 1.30's order: per subgraph in `attributes` order, the
// outer-scope names it reads as ORT collects them (a std::unordered_set<std::string> filled in
// OuterReads order, then iterated), each value once.
std::vector<ir::ValueId> OrtImplicitInputs(const ir::GraphView& view, ir::NodeId id,
                                           const std::vector<OrtOpAttr>& attributes) {
  std::span<const ir::ValueId> implicit = view.implicit_inputs(id);
  std::vector<ir::ValueId> ordered;
  auto take = [&](ir::ValueId v) {
    if (std::find(implicit.begin(), implicit.end(), v) == implicit.end()) return;
    if (std::find(ordered.begin(), ordered.end(), v) == ordered.end()) ordered.push_back(v);
  };
  for (const OrtOpAttr& attr : attributes) {
    std::vector<const ir::Graph*> bodies;
    if (attr.attr.type == ir::Attribute::Type::kGraph && attr.attr.g) bodies.push_back(attr.attr.g.get());
    for (const std::shared_ptr<ir::Graph>& g : attr.attr.graphs) bodies.push_back(g.get());
    for (const ir::Graph* body : bodies) {
      std::vector<std::string> reads;
      OuterReads(*body, reads);
      std::unordered_set<std::string> consumed;  // filled one by one, as ORT does
      for (const std::string& name : reads) consumed.insert(name);
      for (const std::string& name : consumed) take(view.graph().FindValue(name));
    }
  }
  for (ir::ValueId v : implicit) take(v);
  return ordered;
}

class GraphBuilder {
 public:
  GraphBuilder(const ir::Model& model, const ir::GraphView& view, const GraphSpec& spec)
      : model_(model), view_(view), ir_graph_(view.graph()), spec_(spec),
        ort_index_(ir::OrtNodeIndices(view)) {}

  std::unique_ptr<OrtGraph> Build() {
    graph_ = std::make_unique<OrtGraph>();
    OrtGraph& g = *graph_;
    g.model = &model_;
    g.view = &view_;
    g.name = spec_.name;
    g.parent_node = spec_.parent_node;
    g.outer = spec_.outer;
    g.values.resize(ir_graph_.values.size());
    for (const auto& [domain, version] : OrtOperatorSets(model_)) {
      g.opset_domains.push_back(domain);
      g.opset_versions.push_back(version);
    }
    node_of_id_.assign(ir_graph_.nodes.size(), nullptr);
    if (spec_.origin != nullptr) {
      origin_of_id_.assign(ir_graph_.nodes.size(), nullptr);
      for (const OrtNode* node : spec_.origin->nodes) origin_of_id_[node->id] = node;
    }
    for (ir::NodeId id : spec_.nodes) MakeNode(id);
    for (ir::ValueId v : spec_.inputs) g.inputs.push_back(Value(v));
    for (ir::ValueId v : spec_.outputs) g.outputs.push_back(Value(v));
    for (ir::ValueId v : spec_.initializers) g.initializers.push_back(Value(v));
    for (ir::ValueId v : spec_.inputs) Value(v)->is_graph_input = true;
    for (ir::ValueId v : spec_.outputs) Value(v)->is_graph_output = true;
    // Node inputs and outputs once every node exists (consumers and producers link them).
    for (ir::NodeId id : spec_.nodes) ConnectNode(id);
    for (std::unique_ptr<OrtValueInfo>& info : g.values) {
      if (info) info->is_optional_graph_input = info->is_optional_graph_input && info->is_graph_input;
    }
    return std::move(graph_);
  }

 private:
  void MakeNode(ir::NodeId id) {
    const ir::Node& ir_node = ir_graph_.nodes[id];
    auto node = std::make_unique<OrtNode>();
    node->id = id;
    node->ort_index = ort_index_[id];
    node->name = ir_node.unnamed ? std::string() : ir_node.name;
    node->op_type = ir_node.op_type;
    node->domain = ir_node.domain;
    node->since_version = view_.since_version(id);
    node->graph = graph_.get();
    node->attributes = AttributesOf(ir_node, view_.opset(id));
    for (const OrtOpAttr& attr : node->attributes) {
      const size_t count = attr.attr.type == ir::Attribute::Type::kGraph    ? 1
                           : attr.attr.type == ir::Attribute::Type::kGraphs ? attr.attr.graphs.size()
                                                                            : 0;
      for (size_t i = 0; i < count; ++i) node->subgraph_attribute_names.push_back(attr.attr.name.c_str());
    }
    if (spec_.origin != nullptr) node->subgraphs = origin_of_id_[id]->subgraphs;
    node->ep_name = spec_.ep_name;
    node_of_id_[id] = node.get();
    graph_->node_ids.emplace(node.get(), id);
    graph_->nodes.push_back(node.get());
    graph_->node_storage.push_back(std::move(node));
  }

  void ConnectNode(ir::NodeId id) {
    const ir::Node& ir_node = ir_graph_.nodes[id];
    OrtNode& node = *node_of_id_[id];
    for (ir::ValueId v : ir_node.inputs) node.inputs.push_back(v == ir::kNoValue ? nullptr : Value(v));
    for (ir::ValueId v : ir_node.outputs) {
      node.outputs.push_back(v == ir::kNoValue ? nullptr : Value(v));
    }
    for (ir::ValueId v : OrtImplicitInputs(view_, id, node.attributes)) {
      node.implicit_inputs.push_back(Value(v));
    }
  }

  // The value info of `v`, made on first use.
  OrtValueInfo* Value(ir::ValueId v) {
    std::unique_ptr<OrtValueInfo>& slot = graph_->values[v];
    if (slot) return slot.get();
    slot = std::make_unique<OrtValueInfo>();
    OrtValueInfo& info = *slot;
    const ir::Value& value = ir_graph_.values[v];
    info.name = value.name;
    FillTypeInfo(value.type, model_, info.type_info);
    info.graph = graph_.get();
    info.id = v;
    info.is_outer_scope = value.outer_scope;
    const ir::NodeId producer = view_.producer(v);
    if (producer != ir::kNoNode && node_of_id_[producer] != nullptr) {
      info.producer = node_of_id_[producer];
      info.producer_output = static_cast<size_t>(view_.producer_slot(v));
    }
    for (const ir::Consumer& use : view_.consumers(v)) {
      if (node_of_id_[use.node] == nullptr) continue;
      info.consumer_nodes.push_back(node_of_id_[use.node]);
      info.consumer_inputs.push_back(use.slot);
    }
    if (const ir::Initializer* init = ir_graph_.FindInitializer(v)) {
      // ORT: from IR version 4, an initializer that is also a graph input is its default value.
      const bool is_ir_input =
          std::find(ir_graph_.inputs.begin(), ir_graph_.inputs.end(), v) != ir_graph_.inputs.end();
      info.is_optional_graph_input = is_ir_input && model_.ir_version >= 4;
      info.is_constant_initializer = !info.is_optional_graph_input;
      info.own_initializer = ViewOf(init->tensor);
      info.initializer = info.own_initializer.get();
      if (init->external) {
        info.external = OrtExternalInitializerInfo{init->external_location, init->external_offset,
                                                   init->tensor.byte_size()};
      }
    } else if (value.outer_scope && spec_.outer != nullptr) {
      // Resolved by name in the enclosing graph, which was projected first.
      const ir::ValueId outer_id = spec_.outer->view->graph().FindValue(value.name);
      if (outer_id != ir::kNoValue && spec_.outer->values[outer_id]) {
        const OrtValueInfo& outer = *spec_.outer->values[outer_id];
        info.initializer = outer.initializer;
        info.is_constant_initializer = outer.is_constant_initializer;
        info.external = outer.external;
      }
    }
    return slot.get();
  }

  const ir::Model& model_;
  const ir::GraphView& view_;
  const ir::Graph& ir_graph_;
  const GraphSpec& spec_;
  std::unique_ptr<OrtGraph> graph_;
  std::vector<OrtNode*> node_of_id_;  // by IR node id; null for nodes not in this graph
  std::vector<const OrtNode*> origin_of_id_;  // spec_.origin's nodes by IR node id
  std::vector<size_t> ort_index_;              // ir::OrtNodeIndices(view_)
};

// Values that `nodes` (a set of IR nodes of `view`'s graph) read and do not produce, in order of
// first use (node order, then input slot, then implicit inputs).
std::vector<ir::ValueId> ReadValues(const ir::GraphView& view, const std::vector<ir::NodeId>& nodes,
                                    const std::vector<bool>& in_set) {
  const ir::Graph& graph = view.graph();
  std::vector<ir::ValueId> read;
  std::vector<bool> seen(graph.values.size(), false);
  auto use = [&](ir::ValueId v) {
    if (v == ir::kNoValue || seen[v]) return;
    const ir::NodeId producer = view.producer(v);
    if (producer != ir::kNoNode && in_set[producer]) return;
    seen[v] = true;
    read.push_back(v);
  };
  for (ir::NodeId id : nodes) {
    for (ir::ValueId v : graph.nodes[id].inputs) use(v);
    for (ir::ValueId v : view.implicit_inputs(id)) use(v);
  }
  return read;
}

}  // namespace

struct GraphProjection::Impl {
  const ir::Model* model = nullptr;
  const ir::GraphView* view = nullptr;
  std::unique_ptr<OrtGraph> graph;
  std::vector<OrtNode*> node_of_id;  // by IR node id
  // Subgraph views (the child projections borrow them) and projections, in node then attribute
  // order.
  std::vector<std::unique_ptr<ir::GraphView>> subgraph_views;
  std::vector<std::unique_ptr<GraphProjection>> subgraphs;
};

GraphProjection::GraphProjection(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
GraphProjection::~GraphProjection() = default;

Result<std::unique_ptr<GraphProjection>> GraphProjection::Create(const ir::Model& model,
                                                                 const ir::GraphView& view) {
  return CreateNested(model, view, nullptr, nullptr);
}

Result<std::unique_ptr<GraphProjection>> GraphProjection::CreateNested(const ir::Model& model,
                                                                       const ir::GraphView& view,
                                                                       const OrtNode* parent_node,
                                                                       const OrtGraph* outer) {
  const ir::Graph& ir_graph = view.graph();
  GraphSpec spec;
  spec.name = ir_graph.name;
  spec.parent_node = parent_node;
  spec.outer = outer;
  spec.nodes = ir::OrtTopologicalOrder(view, ir::OrtNodeIndices(view));
  spec.inputs = ir_graph.inputs;
  spec.outputs = ir_graph.outputs;
  for (const ir::Initializer& init : ir_graph.initializers) spec.initializers.push_back(init.value);

  auto impl = std::make_unique<Impl>();
  impl->model = &model;
  impl->view = &view;
  impl->graph = GraphBuilder(model, view, spec).Build();
  impl->node_of_id.assign(ir_graph.nodes.size(), nullptr);
  for (const std::unique_ptr<OrtNode>& node : impl->graph->node_storage) {
    impl->node_of_id[node->id] = node.get();
  }
  for (ir::NodeId id : spec.nodes) {
    OrtNode& node = *impl->node_of_id[id];
    for (const OrtOpAttr& attr : node.attributes) {
      std::vector<const ir::Graph*> bodies;
      if (attr.attr.type == ir::Attribute::Type::kGraph && attr.attr.g) bodies.push_back(attr.attr.g.get());
      if (attr.attr.type == ir::Attribute::Type::kGraphs) {
        for (const std::shared_ptr<ir::Graph>& g : attr.attr.graphs) bodies.push_back(g.get());
      }
      for (const ir::Graph* body : bodies) {
        const std::string where =
            "node '" + node.name + "' (" + node.op_type + ") attribute '" + attr.attr.name + "'";
        Result<ir::GraphView> sub_view = ir::GraphView::Create(model, *body);
        if (!sub_view.ok()) return sub_view.status().WithContext(where);
        impl->subgraph_views.push_back(
            std::make_unique<ir::GraphView>(std::move(sub_view).value()));
        Result<std::unique_ptr<GraphProjection>> sub =
            CreateNested(model, *impl->subgraph_views.back(), &node, impl->graph.get());
        if (!sub.ok()) return sub.status().WithContext(where);
        node.subgraphs.push_back((*sub)->graph());
        impl->subgraphs.push_back(std::move(sub).value());
      }
    }
  }
  return std::unique_ptr<GraphProjection>(new GraphProjection(std::move(impl)));
}

const OrtGraph* GraphProjection::graph() const { return impl_->graph.get(); }

const ir::GraphView& GraphProjection::view() const { return *impl_->view; }

std::optional<ir::NodeId> GraphProjection::FindNode(const OrtNode* node) const {
  auto it = impl_->graph->node_ids.find(node);
  if (it == impl_->graph->node_ids.end()) return std::nullopt;
  return it->second;
}

const OrtNode* GraphProjection::node(ir::NodeId id) const {
  return id >= 0 && static_cast<size_t>(id) < impl_->node_of_id.size() ? impl_->node_of_id[id]
                                                                       : nullptr;
}

const GraphProjection* GraphProjection::FindSubgraph(const ir::Graph* graph) const {
  for (const std::unique_ptr<GraphProjection>& sub : impl_->subgraphs) {
    if (&sub->view().graph() == graph) return sub.get();
    if (const GraphProjection* deeper = sub->FindSubgraph(graph)) return deeper;
  }
  return nullptr;
}

void GraphProjection::SetNodeEpName(ir::NodeId id, std::string ep_name) {
  if (id >= 0 && static_cast<size_t>(id) < impl_->node_of_id.size() && impl_->node_of_id[id]) {
    impl_->node_of_id[id]->ep_name = std::move(ep_name);
  }
}

Result<ClaimProjection> GraphProjection::ProjectClaim(const ep::Claim& claim,
                                                      std::string_view fused_name,
                                                      std::string_view ep_name,
                                                      bool drop_constant_initializers) const {
  const OrtGraph& whole = *impl_->graph;
  const ir::Graph& ir_graph = impl_->view->graph();
  for (ir::NodeId id : claim.nodes) {
    if (node(id) == nullptr) {
      return MakeStatus(StatusCode::kInvalidArgument, "claim names node id ", id,
                        ", which is not a node of graph '", ir_graph.name, "'");
    }
  }
  GraphSpec spec;
  spec.name = std::string(fused_name);
  spec.parent_node = whole.parent_node;
  spec.outer = whole.outer;
  std::vector<bool> claimed(ir_graph.nodes.size(), false);
  for (ir::NodeId id : claim.nodes) claimed[id] = true;
  for (const OrtNode* node : whole.nodes) {
    if (claimed[node->id]) spec.nodes.push_back(node->id);
  }
  spec.outputs = claim.outputs;
  spec.origin = &whole;
  spec.ep_name = std::string(ep_name);
  ClaimProjection out;
  for (size_t i = 0; i < claim.inputs.size(); ++i) {
    const ir::ValueId v = claim.inputs[i];
    const OrtValueInfo* info = whole.values[v].get();
    const bool constant = info != nullptr && info->is_constant_initializer;
    if (constant && ir_graph.FindInitializer(v) != nullptr) spec.initializers.push_back(v);
    if (constant && drop_constant_initializers) continue;
    spec.inputs.push_back(v);
    out.claim_input_of_fused_input.push_back(static_cast<int32_t>(i));
  }

  struct Storage {
    std::unique_ptr<OrtGraph> graph;
    OrtNode fused;
  };
  auto storage = std::make_shared<Storage>();
  storage->graph = GraphBuilder(*impl_->model, *impl_->view, spec).Build();
  OrtNode& fused = storage->fused;
  fused.id = static_cast<ir::NodeId>(ir_graph.nodes.size());
  fused.ort_index = static_cast<size_t>(fused.id);
  fused.name = std::string(fused_name);
  fused.op_type = std::string(fused_name);
  fused.since_version = 1;
  fused.inputs = storage->graph->inputs;
  fused.outputs = storage->graph->outputs;
  fused.ep_name = std::string(ep_name);
  out.graph = storage->graph.get();
  out.fused_node = &storage->fused;
  out.storage = std::move(storage);
  return out;
}

Result<std::unique_ptr<OrtGraph>> GraphProjection::Subset(const OrtGraph& source,
                                                          const OrtNode* const* nodes,
                                                          size_t count) {
  const ir::GraphView& view = *source.view;
  const ir::Graph& ir_graph = view.graph();
  std::vector<bool> in_set(ir_graph.nodes.size(), false);
  std::vector<ir::NodeId> given;
  for (size_t i = 0; i < count; ++i) {
    auto it = source.node_ids.find(nodes[i]);
    if (it == source.node_ids.end()) {
      return MakeStatus(StatusCode::kInvalidArgument, "nodes[", i, "] is not a node of graph '",
                        source.name, "'");
    }
    if (in_set[it->second]) {
      return MakeStatus(StatusCode::kInvalidArgument, "nodes[", i, "] (node '",
                        ir_graph.nodes[it->second].name, "') is listed twice");
    }
    in_set[it->second] = true;
    given.push_back(it->second);
  }
  GraphSpec spec;
  spec.name = source.name;
  spec.parent_node = source.parent_node;
  spec.outer = source.outer;
  spec.origin = &source;
  for (const OrtNode* node : source.nodes) {
    if (in_set[source.node_ids.at(node)]) spec.nodes.push_back(source.node_ids.at(node));
  }
  // Inputs: source's graph inputs first (in their order), then the other values by first use.
  std::vector<ir::ValueId> read = ReadValues(view, spec.nodes, in_set);
  std::unordered_set<ir::ValueId> read_set(read.begin(), read.end());
  std::unordered_set<ir::ValueId> taken;
  for (const OrtValueInfo* input : source.inputs) {
    if (read_set.count(input->id) != 0 && !input->is_constant_initializer) {
      spec.inputs.push_back(input->id);
      taken.insert(input->id);
    }
  }
  for (ir::ValueId v : read) {
    const OrtValueInfo* info = source.values[v].get();
    if (info != nullptr && info->is_constant_initializer) {
      if (ir_graph.FindInitializer(v) != nullptr) spec.initializers.push_back(v);
    } else if (taken.count(v) == 0) {
      spec.inputs.push_back(v);
    }
  }
  // Outputs: what the nodes produce that another node reads or the graph returns.
  std::unordered_set<ir::ValueId> graph_outputs(ir_graph.outputs.begin(), ir_graph.outputs.end());
  for (const OrtValueInfo* output : source.outputs) graph_outputs.insert(output->id);
  for (ir::NodeId id : given) {
    for (ir::ValueId v : ir_graph.nodes[id].outputs) {
      if (v == ir::kNoValue) continue;
      bool used_outside = graph_outputs.count(v) != 0;
      for (const ir::Consumer& use : view.consumers(v)) used_outside |= !in_set[use.node];
      if (used_outside) spec.outputs.push_back(v);
    }
  }
  return GraphBuilder(*source.model, view, spec).Build();
}

}  // namespace nxrt::ort_plugin
