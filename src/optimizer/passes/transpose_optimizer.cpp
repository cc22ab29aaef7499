// optimizer/passes/transpose_optimizer.cpp: pushes Transposes through the operators that can take
// a permuted input and cancels inverse pairs, as ONNX Runtime 1.30's level-1 TransposeOptimizer
// does before it shows a plugin EP the graph (its rules learnt from ORT's public
// onnxruntime/core/optimizer/transpose_optimization/; no code taken from it).
//
// The walk (ORT's, so that a plugin sees ORT's graph): nodes in ORT's topological order
// (ir/ort_node_order.h) as the graph stood before the pass; for a node with an input made by a
// Transpose (perm attribute valid), the operator's rule (Rules(), below) decides whether to push
// it: the cost of the node's transposable inputs after the push (0 for a constant; minus the
// input's rank, counting dims that are not 1, when the input is that Transpose and every reader
// of it has a rule; its rank otherwise, 5 when unknown) plus, unless an output leads through
// rule-bearing operators to a Transpose, the rank of its largest output, must be negative (a
// Transpose reading a Transpose always merges). Pushing gives each transposable input the
// inverse permutation (a constant is permuted in place, its other readers getting a Transpose
// back; a Transpose with the inverse perm is skipped, one with another perm composed; an equal
// Transpose already reading the value reused; else a new Transpose), updates the node's axes,
// and puts a Transpose with the perm after each output (the node's output takes a new name,
// ORT's MoveOutput; the Transpose keeps the value, so readers and graph outputs are untouched).
// Broadcasting operators first unsqueeze lower-rank inputs to the perm's rank.
//
// Names as ORT's Graph makes them (its GenerateNodeName / GenerateNodeArgName, with the graph's
// counter, ir::Graph::ort_name_counter, as ORT keeps one per graph): new nodes "<op>" or
// "<op>_token_<n>", their outputs "<node>_out0", constants "const_transpose_optimizer[_token_<n>]",
// and a node's new output the node's name ("" for an unnamed node, so "_token_<n>"). Nodes
// edited in place keep their ORT index (GraphEditor::ReplaceNode); new ones take the next indices
// in creation order, as ORT's (from ir::Graph::ort_next_node_index, so an index a removed node
// had is not given again).
//
// Not reproduced: ORT's looks past DequantizeLinear nodes (a quantized constant is not taken
// for a constant) and its QDQ clean-ups after the walk, which it runs only on graphs holding a
// DequantizeLinear; its com.microsoft QLinear* rules; Pad with an `axes` input (ORT's rule does
// not read it) is left alone. Needs the default domain at opset 7 or later.
#include <algorithm>
#include <cstring>
#include <map>
#include <numeric>
#include <optional>
#include <set>
#include <string>
#include <unordered_set>
#include <vector>

#include "ep/cpu/math/tensor/transpose.h"
#include "ir/ort_node_order.h"
#include "optimizer/passes.h"

namespace nxrt::opt {
namespace {

using Perm = std::vector<int64_t>;
using NodeIndex = size_t;

Perm Invert(const Perm& perm) {
  Perm inv(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) {
    inv[static_cast<size_t>(perm[i])] = static_cast<int64_t>(i);
  }
  return inv;
}

// The permutation of applying `first`, then `second`.
Perm Compose(const Perm& first, const Perm& second) {
  Perm perm;
  for (int64_t p : second) perm.push_back(first[static_cast<size_t>(p)]);
  return perm;
}

bool IsIdentity(const Perm& perm) {
  for (size_t i = 0; i < perm.size(); ++i) {
    if (perm[i] != static_cast<int64_t>(i)) return false;
  }
  return true;
}

bool NormalizeAxis(int64_t& axis, size_t rank) {
  if (axis < 0) axis += static_cast<int64_t>(rank);
  return axis >= 0 && axis < static_cast<int64_t>(rank);
}

// Adds `rank` to negative axes; false for an axis out of range or repeated.
bool NormalizeAxes(std::vector<int64_t>& axes, size_t rank) {
  std::vector<bool> used(rank, false);
  for (int64_t& a : axes) {
    if (!NormalizeAxis(a, rank) || used[static_cast<size_t>(a)]) return false;
    used[static_cast<size_t>(a)] = true;
  }
  return true;
}

// Axes of the input before the transpose `perm` for `axes` of its output, in the given order.
std::vector<int64_t> AxesThrough(const std::vector<int64_t>& axes, const Perm& perm) {
  std::vector<int64_t> out;
  for (int64_t a : axes) out.push_back(perm[static_cast<size_t>(a)]);
  return out;
}

std::vector<int64_t> SortedAxesThrough(const std::vector<int64_t>& axes, const Perm& perm) {
  std::vector<int64_t> out = AxesThrough(axes, perm);
  std::sort(out.begin(), out.end());
  return out;
}

// `perm` with the (normalized, distinct) `axes` removed and the rest renumbered.
Perm SqueezePerm(const std::vector<int64_t>& axes, const Perm& perm) {
  std::vector<bool> removed(perm.size(), false);
  for (int64_t a : axes) removed[static_cast<size_t>(a)] = true;
  std::vector<int64_t> renumbered(perm.size(), 0);
  int64_t next = 0;
  for (size_t i = 0; i < perm.size(); ++i) {
    if (!removed[i]) renumbered[i] = next++;
  }
  Perm out;
  for (int64_t p : perm) {
    if (!removed[static_cast<size_t>(p)]) out.push_back(renumbered[static_cast<size_t>(p)]);
  }
  return out;
}

// `perm` of a tensor unsqueezed at `axes` (normalized): the new 1-dims stay in place, the others
// move as before.
Perm UnsqueezePerm(const std::vector<int64_t>& axes, const Perm& perm) {
  const size_t rank = perm.size() + axes.size();
  std::vector<bool> added(rank, false);
  for (int64_t a : axes) added[static_cast<size_t>(a)] = true;
  std::vector<int64_t> kept;
  for (size_t i = 0; i < rank; ++i) {
    if (!added[i]) kept.push_back(static_cast<int64_t>(i));
  }
  Perm out;
  size_t j = 0;
  for (size_t i = 0; i < rank; ++i) {
    out.push_back(added[i] ? static_cast<int64_t>(i) : kept[static_cast<size_t>(perm[j++])]);
  }
  return out;
}

class Optimizer;

// One operator's rule: which inputs take the permutation, whether its outputs carry it on, and
// the rewrite (false, with nothing changed, when the node's attributes or inputs do not allow it).
struct Rule {
  std::vector<size_t> (*inputs)(Optimizer&, NodeIndex);
  bool (*apply)(Optimizer&, NodeIndex transpose, NodeIndex node, const Perm& perm);
  bool transposes_outputs = true;
};

const std::map<std::string, Rule, std::less<>>& Rules();

// The walk over one graph, on a working copy of its nodes; Commit hands the result to the editor.
class Optimizer {
 public:
  explicit Optimizer(GraphEditor& editor) : editor_(editor), graph_(editor.graph()) {
    nodes_ = graph_.nodes;
    removed_.assign(nodes_.size(), false);
    touched_.assign(nodes_.size(), false);
    const std::vector<size_t> index = ir::OrtNodeIndices(editor.view());
    next_ort_index_ = index.empty() ? 0 : *std::max_element(index.begin(), index.end()) + 1;
    next_ort_index_ = std::max(next_ort_index_, static_cast<size_t>(graph_.ort_next_node_index));
    counter_ = graph_.ort_name_counter;
    order_ = ir::OrtTopologicalOrder(editor.view(), index);
    producer_.assign(graph_.values.size(), kNone);
    implicit_.assign(graph_.values.size(), false);
    for (NodeIndex n = 0; n < nodes_.size(); ++n) {
      for (ir::ValueId v : nodes_[n].outputs) {
        if (v != ir::kNoValue) producer_[static_cast<size_t>(v)] = n;
      }
    }
    for (ir::ValueId v = 0; v < static_cast<ir::ValueId>(graph_.values.size()); ++v) {
      for (const ir::Consumer& c : editor.Consumers(v)) {
        if (c.slot == ir::kImplicitSlot) implicit_[static_cast<size_t>(v)] = true;
      }
      value_names_.insert(graph_.values[static_cast<size_t>(v)].name);
    }
    value_names_.insert("");  // ORT's graph holds the empty name of omitted inputs
    for (const ir::Node& n : nodes_) {
      if (!n.unnamed) node_names_.insert(n.name);
    }
    graph_outputs_.insert(graph_.outputs.begin(), graph_.outputs.end());
  }

  static constexpr NodeIndex kNone = static_cast<NodeIndex>(-1);

  // The walk; returns how many pushes it made (0: nothing changed).
  int Run() {
    std::set<ir::ValueId> leading;  // values with a path through rule-bearing ops to a Transpose
    for (auto it = order_.rbegin(); it != order_.rend(); ++it) {
      const NodeIndex n = static_cast<NodeIndex>(*it);
      const ir::Node& node = nodes_[n];
      if (IsOp(n, "Transpose")) {
        if (!node.inputs.empty() && node.inputs[0] != ir::kNoValue) leading.insert(node.inputs[0]);
        continue;
      }
      const Rule* rule = RuleFor(n);
      if (rule == nullptr || !rule->transposes_outputs) continue;
      const bool leads = std::any_of(node.outputs.begin(), node.outputs.end(),
                                     [&](ir::ValueId v) { return leading.count(v) != 0; });
      if (!leads) continue;
      for (size_t i : rule->inputs(*this, n)) {
        if (nodes_[n].inputs[i] != ir::kNoValue) leading.insert(nodes_[n].inputs[i]);
      }
    }
    int pushed = 0;
    for (ir::NodeId id : order_) {
      const NodeIndex n = static_cast<NodeIndex>(id);
      if (removed_[n]) continue;
      const std::vector<ir::ValueId> inputs = nodes_[n].inputs;
      for (size_t j = 0; j < inputs.size(); ++j) {
        if (inputs[j] == ir::kNoValue) continue;
        const NodeIndex t = Producer(inputs[j]);
        if (t == kNone || !IsOp(t, "Transpose")) continue;
        const std::optional<Perm> perm = PermOf(t);
        if (perm && Process(t, n, *perm, j, leading)) {
          ++pushed;
          break;
        }
      }
    }
    return pushed;
  }

  // Hands the working copy to the editor and commits.
  Status Commit() {
    for (NodeIndex n = 0; n < nodes_.size(); ++n) {
      const bool added = n >= graph_.nodes.size();
      if (removed_[n]) {
        if (!added) editor_.RemoveNode(static_cast<ir::NodeId>(n));
      } else if (added) {
        editor_.AddNode(nodes_[n], ir::kNoNode);
      } else if (touched_[n]) {
        editor_.ReplaceNode(static_cast<ir::NodeId>(n), nodes_[n]);
      }
    }
    for (auto& [v, tensor] : replaced_) editor_.ReplaceConstant(v, tensor);
    graph_.ort_next_node_index = static_cast<ir::NodeId>(next_ort_index_);
    graph_.ort_name_counter = counter_;
    return editor_.Commit();
  }

  // --- What the rules read and edit (ORT's graph API, over the working copy). ---
  ir::Node& node(NodeIndex n) { return nodes_[n]; }
  int64_t opset() const { return opset_; }
  void set_opset(int64_t opset) { opset_ = opset; }

  bool IsOp(NodeIndex n, std::string_view op) const {
    return nodes_[n].op_type == op && nodes_[n].domain.empty();
  }
  const Rule* RuleFor(NodeIndex n) const {
    if (!nodes_[n].domain.empty()) return nullptr;
    const auto it = Rules().find(nodes_[n].op_type);
    return it == Rules().end() ? nullptr : &it->second;
  }
  NodeIndex Producer(ir::ValueId v) const {
    return v == ir::kNoValue || static_cast<size_t>(v) >= producer_.size()
               ? kNone : producer_[static_cast<size_t>(v)];
  }
  // Live nodes reading `v` as an input (each once), and whether that is every use (no graph
  // output, no subgraph read).
  struct Readers {
    std::vector<NodeIndex> nodes;
    bool comprehensive = true;
  };
  Readers ReadersOf(ir::ValueId v) const {
    Readers r;
    r.comprehensive = !IsGraphOutput(v) && !Implicit(v);
    for (NodeIndex n = 0; n < nodes_.size(); ++n) {
      if (removed_[n]) continue;
      const std::vector<ir::ValueId>& in = nodes_[n].inputs;
      if (std::find(in.begin(), in.end(), v) != in.end()) r.nodes.push_back(n);
    }
    return r;
  }
  bool HasReaders(ir::ValueId v) const {
    const Readers r = ReadersOf(v);
    return !r.nodes.empty() || IsGraphOutput(v) || Implicit(v);
  }
  bool IsGraphOutput(ir::ValueId v) const { return graph_outputs_.count(v) != 0; }
  bool Implicit(ir::ValueId v) const {
    return static_cast<size_t>(v) < implicit_.size() && implicit_[static_cast<size_t>(v)];
  }

  // The shape of `v` (-1 for a dim that is not fixed), nullopt when the rank is unknown.
  std::optional<std::vector<int64_t>> ShapeOf(ir::ValueId v) const {
    if (v == ir::kNoValue) return std::nullopt;
    const ir::TypeInfo& type = graph_.values[static_cast<size_t>(v)].type;
    if (type.kind != ir::TypeInfo::Kind::kTensor || !type.shape) return std::nullopt;
    std::vector<int64_t> shape;
    for (const ir::Dim& d : *type.shape) shape.push_back(d.is_fixed() ? d.value : -1);
    return shape;
  }
  // Dims that are not 1 (5 when the rank is unknown): the cost of transposing `v`.
  int EstimatedRank(ir::ValueId v) const {
    const std::optional<std::vector<int64_t>> shape = ShapeOf(v);
    if (!shape) return 5;
    return static_cast<int>(std::count_if(shape->begin(), shape->end(),
                                          [](int64_t d) { return d != 1; }));
  }
  DataType ElemType(ir::ValueId v) const {
    return graph_.values[static_cast<size_t>(v)].type.elem_type;
  }

  // An initializer of this graph that no graph input overrides, as edited so far.
  const Tensor* LocalConstant(ir::ValueId v) const {
    if (v == ir::kNoValue || graph_.values[static_cast<size_t>(v)].outer_scope) return nullptr;
    if (const auto it = replaced_.find(v); it != replaced_.end()) return &it->second;
    if (std::find(graph_.inputs.begin(), graph_.inputs.end(), v) != graph_.inputs.end()) {
      return nullptr;
    }
    const ir::Initializer* init = graph_.FindInitializer(v);
    return init != nullptr ? &init->tensor : nullptr;
  }
  // LocalConstant, or a constant of an enclosing graph for an outer-scope value.
  const Tensor* Constant(ir::ValueId v) const {
    if (v == ir::kNoValue) return nullptr;
    if (graph_.values[static_cast<size_t>(v)].outer_scope) return editor_.Constant(v);
    return LocalConstant(v);
  }
  std::optional<std::vector<int64_t>> ConstantInts(ir::ValueId v) const {
    return GraphEditor::IntElements(Constant(v));
  }
  std::optional<Perm> PermOf(NodeIndex n) const {
    const ir::Attribute* a = nodes_[n].FindAttribute("perm");
    if (a == nullptr || a->type != ir::Attribute::Type::kInts) return std::nullopt;
    std::vector<bool> used(a->ints.size(), false);
    for (int64_t p : a->ints) {
      if (p < 0 || p >= static_cast<int64_t>(a->ints.size()) || used[static_cast<size_t>(p)]) {
        return std::nullopt;
      }
      used[static_cast<size_t>(p)] = true;
    }
    return a->ints;
  }
  // `attr` before opset `since`, the constant input `input` from it (Squeeze/Unsqueeze axes).
  std::optional<std::vector<int64_t>> AttrOrInput(NodeIndex n, std::string_view attr, size_t input,
                                                  int64_t since) const {
    if (opset_ < since) {
      const ir::Attribute* a = nodes_[n].FindAttribute(attr);
      if (a == nullptr || a->type != ir::Attribute::Type::kInts) return std::nullopt;
      return a->ints;
    }
    if (input >= nodes_[n].inputs.size()) return std::nullopt;
    return ConstantInts(nodes_[n].inputs[input]);
  }

  void SetInput(NodeIndex n, size_t i, ir::ValueId v) {
    std::vector<ir::ValueId>& in = nodes_[n].inputs;
    if (in.size() <= i) in.resize(i + 1, ir::kNoValue);
    in[i] = v;
    touched_[n] = true;
  }
  void SetIntAttr(NodeIndex n, std::string_view name, int64_t value) {
    ir::Attribute& a = AttrSlot(n, name);
    a.type = ir::Attribute::Type::kInt;
    a.i = value;
  }
  void SetIntsAttr(NodeIndex n, std::string_view name, std::vector<int64_t> value) {
    ir::Attribute& a = AttrSlot(n, name);
    a.type = ir::Attribute::Type::kInts;
    a.ints = std::move(value);
  }
  void ClearAttr(NodeIndex n, std::string_view name) {
    std::erase_if(nodes_[n].attributes, [&](const ir::Attribute& a) { return a.name == name; });
    touched_[n] = true;
  }
  void ReplaceReads(const std::vector<NodeIndex>& readers, ir::ValueId from, ir::ValueId to) {
    for (NodeIndex r : readers) {
      std::vector<ir::ValueId>& in = nodes_[r].inputs;
      for (size_t i = 0; i < in.size(); ++i) {
        if (in[i] == from) SetInput(r, i, to);
      }
    }
  }

  // A new node named as ORT's Graph::GenerateNodeName names it, with `outputs` new values.
  NodeIndex AddNode(std::string_view op, std::vector<ir::ValueId> inputs, size_t outputs = 1) {
    ir::Node n;
    n.op_type = std::string(op);
    n.name = UniqueName(std::string(op), node_names_);
    n.inputs = std::move(inputs);
    for (size_t i = 0; i < outputs; ++i) {
      n.outputs.push_back(NewValue(n.name + "_out" + std::to_string(i)));
    }
    n.model_index = static_cast<ir::NodeId>(next_ort_index_++);
    nodes_.push_back(std::move(n));
    removed_.push_back(false);
    touched_.push_back(true);
    const NodeIndex index = nodes_.size() - 1;
    for (ir::ValueId v : nodes_[index].outputs) producer_[static_cast<size_t>(v)] = index;
    return index;
  }
  NodeIndex AddTranspose(ir::ValueId input, const Perm& perm) {
    const NodeIndex t = AddNode("Transpose", {input});
    SetIntsAttr(t, "perm", perm);
    return t;
  }
  // Squeeze or Unsqueeze with `axes`: an attribute before opset 13, a new constant since.
  NodeIndex AddSqueezeOrUnsqueeze(std::string_view op, ir::ValueId input,
                                  const std::vector<int64_t>& axes) {
    if (opset_ < 13) {
      const NodeIndex n = AddNode(op, {input});
      SetIntsAttr(n, "axes", axes);
      return n;
    }
    const ir::ValueId constant = AddInts(axes, DataType::kInt64);
    return AddNode(op, {input, constant});
  }
  void RemoveNode(NodeIndex n) {
    removed_[n] = true;
    for (ir::ValueId v : nodes_[n].outputs) {
      if (v != ir::kNoValue && producer_[static_cast<size_t>(v)] == n) {
        producer_[static_cast<size_t>(v)] = kNone;
      }
    }
  }
  // ORT's MoveOutput: `dst` takes over output `src_index` of `src` (its readers and a graph
  // output follow the value); `src` writes a new value named after it.
  void MoveOutput(NodeIndex src, size_t src_index, NodeIndex dst, size_t dst_index) {
    const ir::ValueId v = nodes_[src].outputs[src_index];
    nodes_[dst].outputs[dst_index] = v;
    producer_[static_cast<size_t>(v)] = dst;
    const ir::ValueId fresh =
        NewValue(nodes_[src].unnamed ? std::string() : nodes_[src].name);
    nodes_[src].outputs[src_index] = fresh;
    producer_[static_cast<size_t>(fresh)] = src;
    touched_[src] = touched_[dst] = true;
  }
  void CopyType(ir::ValueId from, ir::ValueId to) {
    graph_.values[static_cast<size_t>(to)].type = graph_.values[static_cast<size_t>(from)].type;
  }
  void PermuteDims(ir::ValueId v, const Perm& perm) {
    ir::TypeInfo& type = graph_.values[static_cast<size_t>(v)].type;
    if (!type.shape || type.shape->size() != perm.size()) return;
    std::vector<ir::Dim> dims;
    for (int64_t p : perm) dims.push_back((*type.shape)[static_cast<size_t>(p)]);
    type.shape = std::move(dims);
  }
  void UnsqueezeDims(ir::ValueId v, const std::vector<int64_t>& axes) {
    ir::TypeInfo& type = graph_.values[static_cast<size_t>(v)].type;
    if (!type.shape) return;
    std::vector<ir::Dim> dims;
    size_t j = 0;
    for (int64_t i = 0;; ++i) {
      if (std::find(axes.begin(), axes.end(), i) != axes.end()) {
        dims.push_back(ir::Dim::Fixed(1));
      } else if (j < type.shape->size()) {
        dims.push_back((*type.shape)[j++]);
      } else {
        break;
      }
    }
    type.shape = std::move(dims);
  }
  void SetShape(ir::ValueId v, const std::vector<int64_t>& shape) {
    std::vector<ir::Dim> dims;
    for (int64_t d : shape) dims.push_back(d > 0 ? ir::Dim::Fixed(d) : ir::Dim::Unknown());
    graph_.values[static_cast<size_t>(v)].type.shape = std::move(dims);
  }

  // A new 1-D constant of `values` (int64, or int32 when `dtype` says so).
  ir::ValueId AddInts(const std::vector<int64_t>& values, DataType dtype) {
    const Shape shape{static_cast<int64_t>(values.size())};
    Tensor t;
    if (dtype == DataType::kInt32) {
      std::vector<int32_t> narrow(values.begin(), values.end());
      t = Tensor::FromVector<int32_t>(shape, narrow).value();
    } else {
      t = Tensor::FromVector<int64_t>(shape, values).value();
    }
    return AddConstant(std::move(t));
  }
  ir::ValueId AddConstant(Tensor tensor) {
    const std::string name = UniqueName("const_transpose_optimizer", value_names_);
    const ir::ValueId v = editor_.AddInitializer(name, std::move(tensor));
    Grow();
    return v;
  }
  // Transposes the constant `v` in place.
  void TransposeConstant(ir::ValueId v, const Perm& perm) {
    const Tensor& t = *LocalConstant(v);
    const cpu::nn::PermutePlan plan = cpu::nn::PrepareTranspose(t.dtype(), t.shape(), perm).value();
    Tensor out = Tensor::Allocate(t.dtype(), plan.output_shape).value();
    Tensor in = t.Clone().value();
    cpu::nn::Permute(plan, in.raw_data(), out.mutable_raw_data()).IgnoreError();
    SetShape(v, out.shape());
    replaced_[v] = std::move(out);
  }
  void ReshapeConstant(ir::ValueId v, const Shape& shape) {
    replaced_[v] = LocalConstant(v)->Clone().value().Reshaped(shape).value();
    SetShape(v, shape);
  }

 private:
  ir::Attribute& AttrSlot(NodeIndex n, std::string_view name) {
    touched_[n] = true;
    for (ir::Attribute& a : nodes_[n].attributes) {
      if (a.name == name) {
        a = ir::Attribute{};
        a.name = std::string(name);
        return a;
      }
    }
    nodes_[n].attributes.emplace_back().name = std::string(name);
    return nodes_[n].attributes.back();
  }
  // ORT's name generation: `base` when no name in `taken` has it, else base + "_token_<n>" with
  // the next n of the counter that both node and value names share.
  std::string UniqueName(const std::string& base, std::unordered_set<std::string>& taken) {
    std::string name = base;
    while (taken.count(name) != 0) name = base + "_token_" + std::to_string(counter_++);
    taken.insert(name);
    return name;
  }
  ir::ValueId NewValue(const std::string& base) {
    const ir::ValueId v = editor_.AddValue(UniqueName(base, value_names_), ir::TypeInfo{});
    Grow();
    return v;
  }
  void Grow() {
    producer_.resize(graph_.values.size(), kNone);
    implicit_.resize(graph_.values.size(), false);
  }

  bool Process(NodeIndex transpose, NodeIndex n, const Perm& perm, size_t input,
               const std::set<ir::ValueId>& leading);

  GraphEditor& editor_;
  ir::Graph& graph_;
  int64_t opset_ = 0;
  std::vector<ir::Node> nodes_;  // the graph's nodes by id, then the new ones
  std::vector<bool> removed_;
  std::vector<bool> touched_;  // edited (or new): replaced when committing
  size_t next_ort_index_ = 0;
  std::vector<ir::NodeId> order_;
  std::vector<NodeIndex> producer_;  // by value
  std::vector<bool> implicit_;      // by value: read inside a subgraph
  std::set<ir::ValueId> graph_outputs_;
  std::map<ir::ValueId, Tensor> replaced_;  // constants permuted or reshaped in place
  std::unordered_set<std::string> value_names_;
  std::unordered_set<std::string> node_names_;
  int counter_ = 0;
};

// ---- Moving a permutation across a node's inputs and outputs ----

// A copy of the 1-D `vector` (one entry per position of `perm`, or none) with entry j taken from
// entry perm[j].
Tensor PermuteVector(const Tensor& vector, const Perm& perm) {
  Tensor source = vector.Clone().value();
  Tensor permuted = Tensor::Allocate(vector.dtype(), vector.shape()).value();
  if (vector.element_count() == 0) return permuted;
  if (vector.dtype() == DataType::kString) {
    for (size_t j = 0; j < perm.size(); ++j) {
      permuted.mutable_data<std::string>()[j] = source.data<std::string>()[perm[j]];
    }
    return permuted;
  }
  const size_t bytes = source.byte_size() / perm.size();
  for (size_t j = 0; j < perm.size(); ++j) {
    std::memcpy(static_cast<char*>(permuted.mutable_raw_data()) + j * bytes,
                static_cast<const char*>(source.raw_data()) + perm[j] * bytes, bytes);
  }
  return permuted;
}

// Input `i` of `n` becomes the value transposed by `perm` (ORT's TransposeInput).
void TransposeInput(Optimizer& o, NodeIndex n, size_t i, const Perm& perm) {
  const Perm perm_inv = Invert(perm);
  const ir::ValueId input = o.node(n).inputs[i];
  const Tensor* constant = o.LocalConstant(input);
  o.SetInput(n, i, ir::kNoValue);
  const Optimizer::Readers readers = o.ReadersOf(input);
  // (A constant of another rank, only in a model that is invalid anyway, gets a Transpose node.)
  if (constant != nullptr && readers.comprehensive && constant->rank() == perm.size()) {
    if (constant->element_count() == 1) {
      o.SetInput(n, i, input);
      return;
    }
    if (constant->rank() == 1 && constant->shape()[0] == static_cast<int64_t>(perm.size())) {
      // A per-axis vector (Resize sizes, say): a new constant with the entries permuted.
      o.SetInput(n, i, o.AddConstant(PermuteVector(*constant, perm)));
      return;
    }
    if (!readers.nodes.empty()) {
      // The other readers keep the constant as it was, through a Transpose back.
      const NodeIndex back = o.AddTranspose(input, perm_inv);
      const ir::ValueId back_out = o.node(back).outputs[0];
      o.CopyType(input, back_out);
      o.ReplaceReads(readers.nodes, input, back_out);
    }
    o.TransposeConstant(input, perm);
    o.SetInput(n, i, input);
    return;
  }
  const NodeIndex producer = o.Producer(input);
  if (producer != Optimizer::kNone && o.IsOp(producer, "Transpose")) {
    const std::optional<Perm> perm2 = o.PermOf(producer);
    if (perm2 && perm2->size() == perm.size()) {
      if (*perm2 == perm_inv) {
        o.SetInput(n, i, o.node(producer).inputs[0]);
        if (readers.comprehensive && readers.nodes.empty()) o.RemoveNode(producer);
        return;
      }
      const NodeIndex t = o.AddTranspose(o.node(producer).inputs[0], Compose(*perm2, perm));
      const ir::ValueId out = o.node(t).outputs[0];
      o.CopyType(input, out);
      o.PermuteDims(out, perm);
      if (readers.comprehensive && readers.nodes.empty()) o.RemoveNode(producer);
      o.SetInput(n, i, out);
      return;
    }
  }
  for (NodeIndex r : readers.nodes) {
    if (o.IsOp(r, "Transpose") && o.PermOf(r) == perm) {
      o.SetInput(n, i, o.node(r).outputs[0]);
      return;
    }
  }
  const NodeIndex t = o.AddTranspose(input, perm);
  const ir::ValueId out = o.node(t).outputs[0];
  o.CopyType(input, out);
  o.PermuteDims(out, perm);
  o.SetInput(n, i, out);
}

void TransposeInputs(Optimizer& o, NodeIndex n, const Perm& perm,
                     const std::vector<size_t>& inputs) {
  for (size_t i : inputs) {
    if (o.node(n).inputs[i] != ir::kNoValue) TransposeInput(o, n, i, perm);
  }
}

// A Transpose by `perm` after output `i` of `n`, which now writes a new value holding the
// output permuted by the inverse; returns the Transpose's output (the node's old value).
ir::ValueId TransposeOutput(Optimizer& o, NodeIndex n, size_t i, const Perm& perm) {
  const NodeIndex t = o.AddTranspose(ir::kNoValue, perm);
  o.MoveOutput(n, i, t, 0);
  const ir::ValueId fresh = o.node(n).outputs[i];
  o.SetInput(t, 0, fresh);
  const ir::ValueId old = o.node(t).outputs[0];
  o.CopyType(old, fresh);
  o.PermuteDims(fresh, Invert(perm));
  return old;
}

void TransposeOutputs(Optimizer& o, NodeIndex n, const Perm& perm) {
  if (IsIdentity(perm)) return;
  for (size_t i = 0; i < o.node(n).outputs.size(); ++i) {
    if (o.node(n).outputs[i] != ir::kNoValue) TransposeOutput(o, n, i, perm);
  }
}

void TransposeFirstInput(Optimizer& o, NodeIndex n, const Perm& perm) {
  TransposeInputs(o, n, perm, {0});
}

ir::ValueId PushThroughUnsqueeze(Optimizer& o, NodeIndex unsqueeze, const Perm& perm,
                                 const std::vector<int64_t>& axes) {
  TransposeFirstInput(o, unsqueeze, Invert(perm));
  return TransposeOutput(o, unsqueeze, 0, UnsqueezePerm(axes, perm));
}

// Input `i` of `n` becomes the value unsqueezed at `axes` (ORT's UnsqueezeInput).
void UnsqueezeInput(Optimizer& o, NodeIndex n, size_t i, const std::vector<int64_t>& axes) {
  const ir::ValueId input = o.node(n).inputs[i];
  const Tensor* constant = o.LocalConstant(input);
  o.SetInput(n, i, ir::kNoValue);
  const Optimizer::Readers readers = o.ReadersOf(input);
  if (constant != nullptr && readers.comprehensive) {
    if (!readers.nodes.empty()) {
      const NodeIndex squeeze = o.AddSqueezeOrUnsqueeze("Squeeze", input, axes);
      const ir::ValueId out = o.node(squeeze).outputs[0];
      o.CopyType(input, out);
      o.ReplaceReads(readers.nodes, input, out);
    }
    Shape shape(constant->rank() + axes.size(), 0);
    for (int64_t a : axes) shape[static_cast<size_t>(a)] = 1;
    size_t j = 0;
    for (int64_t& d : shape) {
      if (d != 1) d = constant->shape()[j++];
    }
    o.ReshapeConstant(input, shape);
    o.SetInput(n, i, input);
    return;
  }
  const NodeIndex producer = o.Producer(input);
  if (producer != Optimizer::kNone && o.IsOp(producer, "Squeeze")) {
    if (o.AttrOrInput(producer, "axes", 1, 13) == axes) {
      const std::vector<ir::ValueId> squeeze_inputs = o.node(producer).inputs;
      o.SetInput(n, i, squeeze_inputs[0]);
      if (readers.comprehensive && readers.nodes.empty()) o.RemoveNode(producer);
      return;
    }
  }
  const NodeIndex unsqueeze = o.AddSqueezeOrUnsqueeze("Unsqueeze", input, axes);
  const ir::ValueId out = o.node(unsqueeze).outputs[0];
  o.CopyType(input, out);
  o.UnsqueezeDims(out, axes);
  if (producer != Optimizer::kNone && o.IsOp(producer, "Transpose")) {
    if (const std::optional<Perm> perm = o.PermOf(producer)) {
      o.SetInput(n, i, PushThroughUnsqueeze(o, unsqueeze, *perm, axes));
      return;
    }
  }
  o.SetInput(n, i, out);
}

// Unsqueezes the given inputs to `rank` (leading 1-dims); false, with nothing changed, when a rank
// is unknown or above `rank`.
bool NormalizeInputRanks(Optimizer& o, NodeIndex n, size_t rank,
                         const std::vector<size_t>& inputs) {
  std::vector<size_t> ranks;
  for (size_t i : inputs) {
    const auto shape = o.ShapeOf(o.node(n).inputs[i]);
    if (!shape || shape->size() > rank) return false;
    ranks.push_back(shape->size());
  }
  for (size_t k = 0; k < inputs.size(); ++k) {
    if (ranks[k] == rank) continue;
    std::vector<int64_t> axes(rank - ranks[k]);
    std::iota(axes.begin(), axes.end(), 0);
    UnsqueezeInput(o, n, inputs[k], axes);
  }
  return true;
}

// ---- Cost: push when it is estimated to remove more transposed dims than it adds ----

bool CanLikelyRemove(Optimizer& o, NodeIndex transpose) {
  const Optimizer::Readers readers = o.ReadersOf(o.node(transpose).outputs[0]);
  if (!readers.comprehensive) return false;
  return std::all_of(readers.nodes.begin(), readers.nodes.end(),
                     [&](NodeIndex r) { return o.RuleFor(r) != nullptr; });
}

int InputCost(Optimizer& o, ir::ValueId v, const Perm& perm) {
  const NodeIndex producer = o.Producer(v);
  if (producer == Optimizer::kNone && o.Constant(v) != nullptr) return 0;
  if (producer != Optimizer::kNone && o.IsOp(producer, "Transpose")) {
    if (const std::optional<Perm> perm2 = o.PermOf(producer)) {
      return *perm2 == perm && CanLikelyRemove(o, producer) ? -o.EstimatedRank(v) : 0;
    }
  }
  return o.EstimatedRank(v);
}

bool Optimizer::Process(NodeIndex transpose, NodeIndex n, const Perm& perm, size_t input,
                        const std::set<ir::ValueId>& leading) {
  const Rule* rule = RuleFor(n);
  if (rule == nullptr) return false;
  const std::vector<size_t> inputs = rule->inputs(*this, n);
  if (std::find(inputs.begin(), inputs.end(), input) == inputs.end()) return false;
  if (!IsOp(n, "Transpose")) {
    int cost = 0;
    for (size_t i : inputs) cost += InputCost(*this, nodes_[n].inputs[i], perm);
    if (cost < 0 && rule->transposes_outputs) {
      int out_cost = 0;
      bool leads = false;
      for (ir::ValueId v : nodes_[n].outputs) {
        if (v == ir::kNoValue) continue;
        out_cost = std::max(out_cost, EstimatedRank(v));
        leads = leads || leading.count(v) != 0;
      }
      if (!leads) cost += out_cost;
    }
    if (cost >= 0) return false;
  }
  return rule->apply(*this, transpose, n, perm);
}

// ---- The rules ----

std::vector<size_t> FirstInput(Optimizer&, NodeIndex) { return {0}; }

std::vector<size_t> AllInputs(Optimizer& o, NodeIndex n) {
  std::vector<size_t> all(o.node(n).inputs.size());
  std::iota(all.begin(), all.end(), 0);
  return all;
}

// Inputs that are not scalars (rank 0): broadcasting leaves those alone.
std::vector<size_t> NonScalarInputs(Optimizer& o, NodeIndex n) {
  std::vector<size_t> inputs;
  for (size_t i = 0; i < o.node(n).inputs.size(); ++i) {
    const auto shape = o.ShapeOf(o.node(n).inputs[i]);
    if (!shape || !shape->empty()) inputs.push_back(i);
  }
  return inputs;
}

bool Elementwise(Optimizer& o, NodeIndex n, const Perm& perm, const std::vector<size_t>& inputs,
                 bool broadcast) {
  if (broadcast && !NormalizeInputRanks(o, n, perm.size(), inputs)) return false;
  TransposeInputs(o, n, Invert(perm), inputs);
  TransposeOutputs(o, n, perm);
  return true;
}

bool Simple(Optimizer& o, NodeIndex, NodeIndex n, const Perm& perm) {
  return Elementwise(o, n, perm, AllInputs(o, n), false);
}

bool FirstOnly(Optimizer& o, NodeIndex, NodeIndex n, const Perm& perm) {
  return Elementwise(o, n, perm, {0}, false);
}

bool Broadcast(Optimizer& o, NodeIndex, NodeIndex n, const Perm& perm) {
  return Elementwise(o, n, perm, NonScalarInputs(o, n), true);
}

// Elementwise along the inputs `inputs`, with the `axis` attribute (or `fallback`) moved.
bool WithAxis(Optimizer& o, NodeIndex n, const Perm& perm, const std::vector<size_t>& inputs,
              std::optional<int64_t> fallback) {
  const ir::Attribute* a = o.node(n).FindAttribute("axis");
  std::optional<int64_t> axis = a != nullptr && a->type == ir::Attribute::Type::kInt
                                    ? std::optional<int64_t>(a->i) : fallback;
  if (!axis || !NormalizeAxis(*axis, perm.size())) return false;
  Elementwise(o, n, perm, inputs, false);
  o.SetIntAttr(n, "axis", perm[static_cast<size_t>(*axis)]);
  return true;
}

bool Concat(Optimizer& o, NodeIndex, NodeIndex n, const Perm& perm) {
  return WithAxis(o, n, perm, AllInputs(o, n), std::nullopt);
}

bool Split(Optimizer& o, NodeIndex, NodeIndex n, const Perm& perm) {
  return WithAxis(o, n, perm, {0}, 0);
}

// Softmax, Hardmax, LogSoftmax: from opset 13 an axis; before, the input is flattened to 2-D at
// `axis`, so only a perm keeping each dim on its side of it passes.
bool SoftHardMax(Optimizer& o, NodeIndex, NodeIndex n, const Perm& perm) {
  if (o.opset() >= 13) return WithAxis(o, n, perm, {0}, -1);
  int64_t axis = GraphEditor::IntAttr(o.node(n), "axis", 1);
  if (!NormalizeAxis(axis, perm.size())) return false;
  for (size_t i = 0; i < perm.size(); ++i) {
    if ((static_cast<int64_t>(i) < axis) != (perm[i] < axis)) return false;
  }
  return Elementwise(o, n, perm, {0}, false);
}

// Shape(Transpose(x, perm)) = Gather(Shape(x), perm) (perm[start:end] from opset 15).
bool ShapeRule(Optimizer& o, NodeIndex, NodeIndex n, const Perm& perm) {
  TransposeInputs(o, n, Invert(perm), {0});
  const int64_t rank = static_cast<int64_t>(perm.size());
  Perm kept = perm;
  if (o.opset() >= 15) {
    int64_t start = GraphEditor::IntAttr(o.node(n), "start", 0);
    int64_t end = GraphEditor::IntAttr(o.node(n), "end", rank);
    if (start < 0) start += rank;
    if (end < 0) end += rank;
    start = std::clamp<int64_t>(start, 0, rank);
    end = std::clamp<int64_t>(end, 0, rank);
    kept.assign(perm.begin() + start, perm.begin() + std::max(start, end));
    o.ClearAttr(n, "start");
    o.ClearAttr(n, "end");
  }
  const ir::ValueId indices = o.AddInts(kept, DataType::kInt64);
  const NodeIndex gather = o.AddNode("Gather", {ir::kNoValue, indices});
  o.SetIntAttr(gather, "axis", 0);
  o.MoveOutput(n, 0, gather, 0);
  const ir::ValueId fresh = o.node(n).outputs[0];
  o.SetInput(gather, 0, fresh);
  o.CopyType(o.node(gather).outputs[0], fresh);
  if (kept.size() != perm.size()) o.SetShape(fresh, {rank});
  return true;
}

// Input `i` of `n` (a 1-D vector with one entry per position of `perm`) reordered by `perm`:
// permuted in a new constant, else through a Gather.
void PermuteInput(Optimizer& o, NodeIndex n, size_t i, const Perm& perm) {
  const ir::ValueId input = o.node(n).inputs[i];  // present: the rules check
  if (const Tensor* constant = o.Constant(input)) {
    if (constant->rank() == 1 && (constant->shape()[0] == static_cast<int64_t>(perm.size()) ||
                                  constant->shape()[0] == 0)) {
      o.SetInput(n, i, o.AddConstant(PermuteVector(*constant, perm)));
      return;
    }
  }
  const ir::ValueId indices = o.AddInts(perm, DataType::kInt64);
  const NodeIndex gather = o.AddNode("Gather", {input, indices});
  o.CopyType(input, o.node(gather).outputs[0]);
  o.SetIntAttr(gather, "axis", 0);
  o.SetInput(n, i, o.node(gather).outputs[0]);
}

bool Pad(Optimizer& o, NodeIndex, NodeIndex n, const Perm& perm) {
  const size_t rank = perm.size();
  const Perm perm_inv = Invert(perm);
  Perm pads_perm = perm_inv;
  for (int64_t p : perm_inv) pads_perm.push_back(p + static_cast<int64_t>(rank));
  if (o.opset() < 11) {
    const std::vector<int64_t> pads = GraphEditor::IntsAttr(o.node(n), "pads");
    if (pads.size() != 2 * rank) return false;
    o.SetIntsAttr(n, "pads", AxesThrough(pads_perm, pads));
  } else {
    const std::vector<ir::ValueId>& inputs = o.node(n).inputs;
    if (inputs.size() < 2 || inputs[1] == ir::kNoValue) return false;
    if (inputs.size() > 3 && inputs[3] != ir::kNoValue) return false;
    PermuteInput(o, n, 1, pads_perm);
  }
  TransposeFirstInput(o, n, perm_inv);
  TransposeOutputs(o, n, perm);
  return true;
}

bool Reduce(Optimizer& o, NodeIndex, NodeIndex n, const Perm& perm) {
  const Perm perm_inv = Invert(perm);
  const bool keepdims = GraphEditor::IntAttr(o.node(n), "keepdims", 1) != 0;
  const bool axes_attribute = (o.node(n).op_type == "ReduceSum" && o.opset() < 13) ||
                              (o.node(n).op_type != "ReduceSum" && o.opset() < 18);
  if (axes_attribute) {
    Perm out_perm = perm;
    const ir::Attribute* a = o.node(n).FindAttribute("axes");
    if (a == nullptr || a->type != ir::Attribute::Type::kInts) {
      if (!keepdims) out_perm.clear();
    } else {
      std::vector<int64_t> axes = a->ints;
      if (!NormalizeAxes(axes, perm.size())) return false;
      const std::vector<int64_t> new_axes = SortedAxesThrough(axes, perm);
      o.SetIntsAttr(n, "axes", new_axes);
      if (!keepdims) out_perm = SqueezePerm(new_axes, perm);
    }
    TransposeFirstInput(o, n, perm_inv);
    TransposeOutputs(o, n, out_perm);
    return true;
  }
  const std::vector<ir::ValueId>& inputs = o.node(n).inputs;
  const ir::ValueId axes_input = inputs.size() > 1 ? inputs[1] : ir::kNoValue;
  const Tensor* axes_const = o.Constant(axes_input);
  if (axes_input == ir::kNoValue || (axes_const != nullptr && axes_const->element_count() == 0)) {
    const bool noop = GraphEditor::IntAttr(o.node(n), "noop_with_empty_axes", 0) != 0;
    TransposeFirstInput(o, n, perm_inv);
    if (noop || keepdims) TransposeOutputs(o, n, perm);
    return true;
  }
  std::optional<std::vector<int64_t>> axes = GraphEditor::IntElements(axes_const);
  if (!axes || !NormalizeAxes(*axes, perm.size())) return false;
  const std::vector<int64_t> new_axes = SortedAxesThrough(*axes, perm);
  o.SetInput(n, 1, o.AddInts(new_axes, DataType::kInt64));
  TransposeFirstInput(o, n, perm_inv);
  TransposeOutputs(o, n, keepdims ? perm : SqueezePerm(new_axes, perm));
  return true;
}

bool ArgMinMax(Optimizer& o, NodeIndex, NodeIndex n, const Perm& perm) {
  const bool keepdims = GraphEditor::IntAttr(o.node(n), "keepdims", 1) != 0;
  int64_t axis = GraphEditor::IntAttr(o.node(n), "axis", 0);
  if (!NormalizeAxis(axis, perm.size())) return false;
  const int64_t new_axis = perm[static_cast<size_t>(axis)];
  o.SetIntAttr(n, "axis", new_axis);
  TransposeInputs(o, n, Invert(perm), {0});
  TransposeOutputs(o, n, keepdims ? perm : SqueezePerm({new_axis}, perm));
  return true;
}

bool Squeeze(Optimizer& o, NodeIndex, NodeIndex n, const Perm& perm) {
  std::optional<std::vector<int64_t>> axes = o.AttrOrInput(n, "axes", 1, 13);
  if (!axes || !NormalizeAxes(*axes, perm.size())) return false;
  const std::vector<int64_t> new_axes = SortedAxesThrough(*axes, perm);
  if (o.opset() < 13) {
    o.SetIntsAttr(n, "axes", new_axes);
  } else {
    o.SetInput(n, 1, o.AddInts(new_axes, DataType::kInt64));
  }
  TransposeFirstInput(o, n, Invert(perm));
  TransposeOutputs(o, n, SqueezePerm(new_axes, perm));
  return true;
}

bool Unsqueeze(Optimizer& o, NodeIndex, NodeIndex n, const Perm& perm) {
  std::optional<std::vector<int64_t>> axes = o.AttrOrInput(n, "axes", 1, 13);
  if (!axes || !NormalizeAxes(*axes, perm.size() + axes->size())) return false;
  PushThroughUnsqueeze(o, n, perm, *axes);
  return true;
}

bool Slice(Optimizer& o, NodeIndex, NodeIndex n, const Perm& perm) {
  const size_t rank = perm.size();
  if (o.opset() < 10) {
    std::vector<int64_t> axes = GraphEditor::IntsAttr(o.node(n), "axes");
    if (o.node(n).FindAttribute("axes") == nullptr) {
      axes.resize(GraphEditor::IntsAttr(o.node(n), "starts").size());
      std::iota(axes.begin(), axes.end(), 0);
    }
    if (!NormalizeAxes(axes, rank)) return false;
    o.SetIntsAttr(n, "axes", AxesThrough(axes, perm));
  } else {
    const std::vector<ir::ValueId> inputs = o.node(n).inputs;
    if (inputs.size() < 3) return false;
    if (inputs.size() < 4 || inputs[3] == ir::kNoValue) {
      const auto starts = o.ShapeOf(inputs[1]);
      if (!starts || starts->size() != 1 || (*starts)[0] < 0) return false;
      std::vector<int64_t> new_axes(perm.begin(),
                                    perm.begin() + std::min<int64_t>((*starts)[0], rank));
      o.SetInput(n, 3, o.AddInts(new_axes, o.ElemType(inputs[1])));
    } else {
      const Tensor* axes_const = o.Constant(inputs[3]);
      std::optional<std::vector<int64_t>> axes = GraphEditor::IntElements(axes_const);
      if (!axes || !NormalizeAxes(*axes, rank)) return false;
      o.SetInput(n, 3, o.AddInts(AxesThrough(*axes, perm), axes_const->dtype()));
    }
  }
  TransposeFirstInput(o, n, Invert(perm));
  TransposeOutputs(o, n, perm);
  return true;
}

bool Tile(Optimizer& o, NodeIndex, NodeIndex n, const Perm& perm) {
  const Perm perm_inv = Invert(perm);
  if (o.node(n).inputs.size() < 2 || o.node(n).inputs[1] == ir::kNoValue) return false;
  const ir::ValueId repeats = o.node(n).inputs[1];
  if (std::optional<std::vector<int64_t>> values = o.ConstantInts(repeats)) {
    if (values->size() != perm.size()) return false;
    o.SetInput(n, 1, o.AddInts(AxesThrough(perm_inv, *values), DataType::kInt64));
  } else {
    const ir::ValueId indices = o.AddInts(perm_inv, DataType::kInt64);
    const NodeIndex gather = o.AddNode("Gather", {repeats, indices});
    o.CopyType(repeats, o.node(gather).outputs[0]);
    o.SetInput(n, 1, o.node(gather).outputs[0]);
  }
  TransposeFirstInput(o, n, perm_inv);
  TransposeOutputs(o, n, perm);
  return true;
}

// The second of two transposes (`node`, a Transpose or a Reshape that only moves dims) with the
// effective perm `node_perm`: both go when they cancel, else the second takes the composition.
bool MergeTransposes(Optimizer& o, NodeIndex transpose, NodeIndex node, const Perm& perm,
                     const Perm& node_perm) {
  const ir::ValueId before = o.node(transpose).inputs[0];
  const ir::ValueId transposed = o.node(transpose).outputs[0];
  if (Invert(perm) == node_perm) {
    const ir::ValueId out = o.node(node).outputs[0];
    const Optimizer::Readers readers = o.ReadersOf(out);
    if (readers.comprehensive) {
      o.ReplaceReads(readers.nodes, out, before);
    } else {
      // `out` must keep its name (a graph output): its producer becomes the first transpose's
      // producer, or an Identity when that cannot be.
      const Optimizer::Readers before_readers = o.ReadersOf(before);
      const NodeIndex producer = o.Producer(before);
      if (producer != Optimizer::kNone && before_readers.comprehensive) {
        o.SetInput(node, 0, ir::kNoValue);
        o.ReplaceReads(before_readers.nodes, before, out);
        const std::vector<ir::ValueId>& outs = o.node(producer).outputs;
        const size_t k = static_cast<size_t>(std::find(outs.begin(), outs.end(), before) -
                                             outs.begin());
        o.MoveOutput(node, 0, producer, k);
      } else {
        const NodeIndex identity = o.AddNode("Identity", {ir::kNoValue});
        o.MoveOutput(node, 0, identity, 0);
        o.SetInput(identity, 0, before);
      }
    }
    o.RemoveNode(node);
  } else {
    NodeIndex target = node;
    if (o.IsOp(node, "Reshape")) {
      target = o.AddNode("Transpose", {before});
      o.MoveOutput(node, 0, target, 0);
      o.RemoveNode(node);
    } else {
      o.SetInput(node, 0, before);
    }
    o.SetIntsAttr(target, "perm", Compose(perm, node_perm));
  }
  if (!o.HasReaders(transposed)) o.RemoveNode(transpose);
  return true;
}

bool TransposeRule(Optimizer& o, NodeIndex transpose, NodeIndex n, const Perm& perm) {
  const std::optional<Perm> node_perm = o.PermOf(n);
  if (!node_perm || node_perm->size() != perm.size()) return false;
  return MergeTransposes(o, transpose, n, perm, *node_perm);
}

// A Reshape that keeps every dim that is not 1 in order and at its size is a Transpose.
bool ReshapeRule(Optimizer& o, NodeIndex transpose, NodeIndex n, const Perm& perm) {
  const auto in_shape = o.ShapeOf(o.node(transpose).inputs[0]);
  const auto out_shape = o.ShapeOf(o.node(transpose).outputs[0]);
  if (!in_shape || !out_shape || o.node(n).inputs.size() < 2) return false;
  const std::optional<std::vector<int64_t>> requested = o.ConstantInts(o.node(n).inputs[1]);
  if (!requested || requested->empty() || requested->size() != in_shape->size()) return false;
  const bool allow_zero = o.opset() >= 14 && GraphEditor::IntAttr(o.node(n), "allowzero", 0) != 0;
  int64_t total = 1;
  for (int64_t d : *out_shape) {
    if (d < 0) return false;
    total *= d;
  }
  std::vector<int64_t> target = *requested;
  int64_t known = 1;
  std::optional<size_t> infer;
  for (size_t i = 0; i < target.size(); ++i) {
    if (target[i] == -1) {
      if (infer) return false;
      infer = i;
      continue;
    }
    if (!allow_zero && target[i] == 0) target[i] = (*out_shape)[i];
    known *= target[i];
  }
  if (infer) {
    if (known == 0 || total % known != 0) return false;
    target[*infer] = total / known;
  } else if (known != total) {
    return false;
  }
  std::vector<int64_t> dims = *out_shape;  // -1 once matched
  Perm node_perm(target.size(), -1);
  for (size_t i = 0; i < target.size(); ++i) {
    size_t k = 0;
    while (dims[k] != target[i]) {
      if (dims[k] != -1 && dims[k] != 1 && target[i] != 1) return false;
      if (++k == dims.size()) return false;
    }
    node_perm[i] = static_cast<int64_t>(k);
    dims[k] = -1;
  }
  return MergeTransposes(o, transpose, n, perm, node_perm);
}

bool QuantizeLinear(Optimizer& o, NodeIndex, NodeIndex n, const Perm& perm) {
  if (o.node(n).inputs.size() < 2) return false;
  if (o.opset() >= 13) {
    const auto scale = o.ShapeOf(o.node(n).inputs[1]);
    if (!scale || !scale->empty()) {
      int64_t axis = GraphEditor::IntAttr(o.node(n), "axis", 1);
      if (!NormalizeAxis(axis, perm.size())) return false;
      o.SetIntAttr(n, "axis", perm[static_cast<size_t>(axis)]);
    }
  }
  TransposeFirstInput(o, n, Invert(perm));
  TransposeOutputs(o, n, perm);
  return true;
}

const std::map<std::string, Rule, std::less<>>& Rules() {
  static const std::map<std::string, Rule, std::less<>> rules = [] {
    std::map<std::string, Rule, std::less<>> r;
    for (const char* op :
         {"Cast", "Exp", "Gelu", "Identity", "LeakyRelu", "Log", "Reciprocal", "Relu", "Sigmoid",
          "Sqrt", "Tanh", "Abs", "Not", "Ceil", "Floor", "Neg", "Erf", "HardSigmoid", "Round",
          "IsInf", "IsNaN", "Selu", "Shrink", "Sign", "Softplus", "Softsign", "ThresholdedRelu",
          "Celu", "HardSwish", "Sin", "Cos", "Tan", "Sinh", "Cosh", "Asin", "Acos", "Atan",
          "Asinh", "Acosh", "Atanh"}) {
      r[op] = {&AllInputs, &Simple};
    }
    for (const char* op :
         {"Add", "Max", "Min", "Mul", "Sub", "Div", "And", "Or", "Xor", "Mod", "PRelu",
          "BitShift", "Equal", "Greater", "Less", "GreaterOrEqual", "LessOrEqual", "Mean", "Sum",
          "Pow", "Where"}) {
      r[op] = {&NonScalarInputs, &Broadcast};
    }
    r["Clip"] = r["CastLike"] = {&FirstInput, &FirstOnly};
    r["Transpose"] = {&FirstInput, &TransposeRule, false};
    r["Concat"] = {&AllInputs, &Concat};
    r["Split"] = {&FirstInput, &Split};
    r["Shape"] = {&FirstInput, &ShapeRule, false};
    r["Pad"] = {&FirstInput, &Pad};
    for (const char* op : {"ReduceLogSum", "ReduceLogSumExp", "ReduceMax", "ReduceMean",
                           "ReduceMin", "ReduceProd", "ReduceSum", "ReduceSumSquare", "ReduceL1",
                           "ReduceL2"}) {
      r[op] = {&FirstInput, &Reduce};
    }
    r["ArgMin"] = r["ArgMax"] = {&FirstInput, &ArgMinMax};
    r["Squeeze"] = {&FirstInput, &Squeeze};
    r["Unsqueeze"] = {&FirstInput, &Unsqueeze};
    r["Slice"] = {&FirstInput, &Slice};
    r["Tile"] = {&FirstInput, &Tile};
    r["Softmax"] = r["Hardmax"] = r["LogSoftmax"] = {&FirstInput, &SoftHardMax};
    r["QuantizeLinear"] = r["DequantizeLinear"] = {&FirstInput, &QuantizeLinear};
    r["Reshape"] = {&FirstInput, &ReshapeRule, false};
    return r;
  }();
  return rules;
}

class TransposeOptimizer final : public GraphPass {
 public:
  std::string_view name() const override { return "transpose_optimizer"; }
  int level() const override { return 1; }

  Result<int> Apply(GraphEditor& editor) const override {
    const int64_t opset = editor.model().OpsetFor("").value_or(0);
    if (opset < 7) return 0;
    const bool has_transpose =
        std::any_of(editor.graph().nodes.begin(), editor.graph().nodes.end(),
                    [](const ir::Node& n) { return n.op_type == "Transpose" && n.domain.empty(); });
    if (!has_transpose) return 0;
    Optimizer optimizer(editor);
    optimizer.set_opset(opset);
    const int pushed = optimizer.Run();
    if (pushed == 0) return 0;
    NXRT_RETURN_IF_ERROR(optimizer.Commit());
    return pushed;
  }
};

}  // namespace

std::unique_ptr<GraphPass> MakeTransposeOptimizerPass() {
  return std::make_unique<TransposeOptimizer>();
}

}  // namespace nxrt::opt
