// optimizer/graph_editor.cpp: see graph_editor.h.
#include "optimizer/graph_editor.h"

#include <algorithm>
#include <set>
#include <string_view>
#include <unordered_set>
#include <utility>

#include "ep/cpu/nxrt_ops.h"

namespace nxrt::opt {

Result<GraphEditor> GraphEditor::Create(ir::Model& model, ir::Graph& graph) {
  GraphEditor editor(model, graph);
  NXRT_RETURN_IF_ERROR(editor.Rebuild());
  return editor;
}

Status GraphEditor::Rebuild() {
  view_.reset();
  NXRT_ASSIGN_OR_RETURN(ir::GraphView view, ir::GraphView::Create(*model_, *graph_));
  view_.emplace(std::move(view));
  removed_.assign(graph_->nodes.size(), false);
  graph_output_.assign(graph_->values.size(), false);
  for (ir::ValueId v : graph_->outputs) graph_output_[static_cast<size_t>(v)] = true;
  added_.clear();
  bound_.clear();
  replaced_.clear();
  reshaped_.clear();
  rewired_ = false;
  nested_changed_ = false;
  return Status::Ok();
}

bool GraphEditor::IsGraphOutput(ir::ValueId v) const {
  return v >= 0 && static_cast<size_t>(v) < graph_output_.size() && graph_output_[v];
}

bool GraphEditor::HasSingleUse(ir::ValueId v) const {
  if (v == ir::kNoValue || IsGraphOutput(v)) return false;
  std::span<const ir::Consumer> uses = Consumers(v);
  return uses.size() == 1 && uses[0].slot != ir::kImplicitSlot;
}

const Tensor* GraphEditor::Constant(ir::ValueId v) const {
  if (v == ir::kNoValue || static_cast<size_t>(v) >= graph_output_.size()) return nullptr;
  const ir::Graph* graph = graph_;
  // An outer-scope value is the constant of the enclosing graph that defines it, if any.
  while (graph->values[static_cast<size_t>(v)].outer_scope) {
    const std::string& name = graph->values[static_cast<size_t>(v)].name;
    graph = graph->parent;
    while (graph != nullptr && graph->FindValue(name) == ir::kNoValue) graph = graph->parent;
    if (graph == nullptr) return nullptr;
    v = graph->FindValue(name);
  }
  const ir::Initializer* init = graph->FindInitializer(v);
  if (init == nullptr) return nullptr;
  if (graph == graph_ && std::find(released_.begin(), released_.end(), v) != released_.end()) {
    return nullptr;
  }
  if (std::find(graph->inputs.begin(), graph->inputs.end(), v) != graph->inputs.end()) {
    return nullptr;
  }
  return &init->tensor;
}

int64_t GraphEditor::IntAttr(const ir::Node& n, std::string_view name, int64_t fallback) {
  const ir::Attribute* a = n.FindAttribute(name);
  return a != nullptr && a->type == ir::Attribute::Type::kInt ? a->i : fallback;
}

float GraphEditor::FloatAttr(const ir::Node& n, std::string_view name, float fallback) {
  const ir::Attribute* a = n.FindAttribute(name);
  return a != nullptr && a->type == ir::Attribute::Type::kFloat ? a->f : fallback;
}

std::vector<int64_t> GraphEditor::IntsAttr(const ir::Node& n, std::string_view name) {
  const ir::Attribute* a = n.FindAttribute(name);
  return a != nullptr && a->type == ir::Attribute::Type::kInts ? a->ints : std::vector<int64_t>{};
}

std::optional<std::vector<int64_t>> GraphEditor::IntElements(const Tensor* t) {
  if (t == nullptr) return std::nullopt;
  if (t->dtype() == DataType::kInt64) {
    return std::vector<int64_t>(t->span<int64_t>().begin(), t->span<int64_t>().end());
  }
  if (t->dtype() == DataType::kInt32) {
    return std::vector<int64_t>(t->span<int32_t>().begin(), t->span<int32_t>().end());
  }
  return std::nullopt;
}

std::optional<size_t> GraphEditor::Rank(ir::ValueId v) const {
  if (v == ir::kNoValue) return std::nullopt;
  const ir::TypeInfo& t = value(v).type;
  if (t.kind != ir::TypeInfo::Kind::kTensor || !t.shape) return std::nullopt;
  return t.shape->size();
}

int64_t GraphEditor::Opset(const ir::Node& n) const {
  return model_->OpsetFor(n.domain).value_or(0);
}

std::string GraphEditor::UniqueValueName(std::string_view hint) {
  std::string name(hint);
  while (graph_->FindValue(name) != ir::kNoValue) {
    name = std::string(hint) + "_nxrt" + std::to_string(++name_counter_);
  }
  return name;
}

ir::ValueId GraphEditor::AddValue(std::string_view name_hint, ir::TypeInfo type) {
  ir::Value v;
  v.name = UniqueValueName(name_hint);
  v.type = std::move(type);
  return graph_->AddValue(std::move(v));
}

void GraphEditor::ReleaseConstant(ir::ValueId v) {
  if (v == ir::kNoValue || graph_->values[static_cast<size_t>(v)].outer_scope) return;
  for (ir::Initializer& init : graph_->initializers) {
    if (init.value != v) continue;
    init.tensor = Tensor();
    released_.push_back(v);
    return;
  }
}

ir::ValueId GraphEditor::AddInitializer(std::string_view name_hint, Tensor tensor) {
  std::vector<ir::Dim> dims;
  for (int64_t d : tensor.shape()) dims.push_back(ir::Dim::Fixed(d));
  const ir::ValueId id = AddValue(name_hint, ir::TypeInfo::Tensor(tensor.dtype(), std::move(dims)));
  ir::Initializer init;
  init.value = id;
  init.tensor = std::move(tensor);
  graph_->AddInitializer(std::move(init));
  return id;
}

void GraphEditor::AddNode(ir::Node node, ir::NodeId anchor) {
  if (node.domain == cpu::nxrt_ops::kDomain && !model_->OpsetFor(cpu::nxrt_ops::kDomain)) {
    model_->opset_imports.push_back({std::string(cpu::nxrt_ops::kDomain), cpu::nxrt_ops::kVersion});
  }
  if (node.domain == "com.microsoft" && !model_->OpsetFor(node.domain)) {
    model_->opset_imports.push_back({node.domain, 1});
  }
  added_.emplace_back(anchor, std::move(node));
}

void GraphEditor::BindConstant(ir::ValueId v, Tensor tensor) {
  bound_.emplace_back(v, std::move(tensor));
}

void GraphEditor::ReplaceNode(ir::NodeId id, ir::Node node) {
  replaced_.emplace_back(id, std::move(node));
}

void GraphEditor::ReplaceConstant(ir::ValueId v, Tensor tensor) {
  reshaped_.emplace_back(v, std::move(tensor));
}

void GraphEditor::RemoveNode(ir::NodeId id) { removed_[static_cast<size_t>(id)] = true; }

void GraphEditor::ReplaceInputUses(ir::ValueId from, ir::ValueId to) {
  rewired_ = true;
  for (ir::Node& n : graph_->nodes) {
    std::replace(n.inputs.begin(), n.inputs.end(), from, to);
  }
  for (auto& [anchor, n] : added_) {
    std::replace(n.inputs.begin(), n.inputs.end(), from, to);
  }
}

namespace {

void NoteOuterReads(const ir::Node& node, std::set<std::string, std::less<>>& names);

// Adds to `names` the outer-scope names `graph` reads: by its nodes' inputs, its outputs, and
// its own subgraphs' reads that it does not define.
void NoteGraphOuterReads(const ir::Graph& graph, std::set<std::string, std::less<>>& names) {
  auto note = [&](ir::ValueId v) {
    if (v != ir::kNoValue && graph.values[static_cast<size_t>(v)].outer_scope) {
      names.insert(graph.values[static_cast<size_t>(v)].name);
    }
  };
  for (ir::ValueId v : graph.outputs) note(v);
  for (const ir::Node& n : graph.nodes) {
    for (ir::ValueId v : n.inputs) note(v);
    std::set<std::string, std::less<>> nested;
    NoteOuterReads(n, nested);
    for (const std::string& name : nested) {
      const ir::ValueId v = graph.FindValue(name);
      if (v == ir::kNoValue || graph.values[static_cast<size_t>(v)].outer_scope) names.insert(name);
    }
  }
}

// Adds to `names` the outer-scope names the subgraphs of `node` read.
void NoteOuterReads(const ir::Node& node, std::set<std::string, std::less<>>& names) {
  for (const ir::Attribute& a : node.attributes) {
    if (a.g) NoteGraphOuterReads(*a.g, names);
    for (const auto& g : a.graphs) NoteGraphOuterReads(*g, names);
  }
}

}  // namespace

Status GraphEditor::Commit() {
  const bool changed =
      nested_changed_ || rewired_ || !added_.empty() || !bound_.empty() || !released_.empty() ||
      !replaced_.empty() || !reshaped_.empty() ||
      std::find(removed_.begin(), removed_.end(), true) != removed_.end();
  if (!changed) return Status::Ok();
  ++version_;

  // A pass building a node from another's attributes must not leave a name twice (the kernel
  // would read the first): the loader's rule for models, checked here for rewrites.
  for (const auto& [anchor, n] : added_) {
    std::set<std::string_view> seen;
    for (const ir::Attribute& a : n.attributes) {
      if (!seen.insert(a.name).second) {
        return MakeStatus(StatusCode::kInternal, "graph rewrite gave node '", n.name, "' (",
                          n.op_type, ") attribute '", a.name, "' twice");
      }
    }
  }
  for (auto& [id, n] : replaced_) {
    n.id = id;
    graph_->nodes[static_cast<size_t>(id)] = std::move(n);
  }
  for (auto& [v, tensor] : reshaped_) {
    std::vector<ir::Dim> dims;
    for (int64_t d : tensor.shape()) dims.push_back(ir::Dim::Fixed(d));
    graph_->values[static_cast<size_t>(v)].type =
        ir::TypeInfo::Tensor(tensor.dtype(), std::move(dims));
    for (ir::Initializer& init : graph_->initializers) {
      if (init.value == v) init.tensor = std::move(tensor);
    }
  }
  // New node order: each kept node, then the nodes anchored to it (removed or not).
  std::vector<std::vector<ir::Node>> after(graph_->nodes.size());
  std::vector<ir::Node> at_end;
  for (auto& [anchor, n] : added_) {
    (anchor == ir::kNoNode ? at_end : after[static_cast<size_t>(anchor)]).push_back(std::move(n));
  }
  std::unordered_set<std::string> names;
  for (size_t i = 0; i < graph_->nodes.size(); ++i) {
    if (!removed_[i]) names.insert(graph_->nodes[i].name);
  }
  std::vector<ir::Node> nodes;
  nodes.reserve(graph_->nodes.size() + added_.size());
  auto push_new = [&](ir::Node n) {
    const std::string base = n.name.empty() ? n.op_type : n.name;
    std::string name = base;
    for (int k = 1; names.count(name); ++k) name = base + "_" + std::to_string(k);
    names.insert(name);
    n.name = std::move(name);
    nodes.push_back(std::move(n));
  };
  for (size_t i = 0; i < graph_->nodes.size(); ++i) {
    if (!removed_[i]) nodes.push_back(std::move(graph_->nodes[i]));
    for (ir::Node& n : after[i]) push_new(std::move(n));
  }
  for (ir::Node& n : at_end) push_new(std::move(n));
  for (size_t i = 0; i < nodes.size(); ++i) nodes[i].id = static_cast<ir::NodeId>(i);
  // Constants replacing outputs of removed nodes (a kept producer fails validation below).
  for (auto& [v, tensor] : bound_) {
    std::vector<ir::Dim> dims;
    for (int64_t d : tensor.shape()) dims.push_back(ir::Dim::Fixed(d));
    graph_->values[static_cast<size_t>(v)].type =
        ir::TypeInfo::Tensor(tensor.dtype(), std::move(dims));
    ir::Initializer init;
    init.value = v;
    init.tensor = std::move(tensor);
    graph_->AddInitializer(std::move(init));
  }

  // Every value still read must still be defined: by a kept or new node, a graph input, an
  // initializer or an enclosing scope.
  std::vector<bool> defined(graph_->values.size(), false);
  for (ir::ValueId v : graph_->inputs) defined[v] = true;
  for (const ir::Initializer& init : graph_->initializers) defined[init.value] = true;
  for (size_t v = 0; v < graph_->values.size(); ++v) {
    if (graph_->values[v].outer_scope) defined[v] = true;
  }
  for (const ir::Node& n : nodes) {
    for (ir::ValueId v : n.outputs) {
      if (v != ir::kNoValue) defined[v] = true;
    }
  }
  std::vector<bool> read(graph_->values.size(), false);
  for (ir::ValueId v : graph_->outputs) read[v] = true;
  for (const ir::Node& n : nodes) {
    for (ir::ValueId v : n.inputs) {
      if (v != ir::kNoValue) read[v] = true;
    }
  }
  graph_->nodes = std::move(nodes);
  if (graph_->parent != nullptr) {
    // An outer-scope value this graph no longer reads (a node reading it was folded) stops being
    // one, so the enclosing graph may drop it.
    std::set<std::string, std::less<>> outer_reads;
    NoteGraphOuterReads(*graph_, outer_reads);
    for (ir::Value& v : graph_->values) {
      if (v.outer_scope && !outer_reads.count(v.name)) v.outer_scope = false;
    }
  }
  // Subgraphs read outer values by name.
  std::set<std::string, std::less<>> read_by_subgraphs;
  for (const ir::Node& n : graph_->nodes) NoteOuterReads(n, read_by_subgraphs);
  for (size_t v = 0; v < graph_->values.size(); ++v) {
    if (read_by_subgraphs.count(graph_->values[v].name)) read[v] = true;
    if (read[v] && !defined[v]) {
      return MakeStatus(StatusCode::kInternal, "graph rewrite left value '",
                        graph_->values[v].name, "' read but no longer produced");
    }
  }
  for (ir::ValueId v : released_) {
    if (read[static_cast<size_t>(v)]) {
      return MakeStatus(StatusCode::kInternal, "graph rewrite released the data of constant '",
                        graph_->values[static_cast<size_t>(v)].name, "' but left it read");
    }
  }
  released_.clear();
  // Drop initializers nothing reads (unless a graph input: the caller may still feed it).
  std::set<ir::ValueId> inputs(graph_->inputs.begin(), graph_->inputs.end());
  std::erase_if(graph_->initializers, [&](const ir::Initializer& init) {
    return !read[init.value] && !inputs.count(init.value);
  });
  graph_->Reindex();
  return Rebuild();
}

}  // namespace nxrt::opt
