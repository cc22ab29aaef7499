// optimizer/graph_editor.h: what a graph pass reads and how it edits one ir::Graph.
//
// Layer: nxrt_optimizer. A pass looks the graph up through the editor (producers, consumers,
// constants, a topological order: all as of the last Commit) and stages edits: new values,
// initializers and nodes, removed nodes. Commit applies them in one go: removed nodes are erased,
// each new node is placed right after the node it was anchored to (so the fused node of a
// pattern runs where the pattern ran and the memory plan keeps its shape), node ids are
// renumbered to their new positions, initializers that nothing reads any more are dropped (their
// memory is freed), and the views are rebuilt and the graph validated again.
//
// Rules a pass follows (the editor checks what it can): a value may be removed from the graph
// only with all its readers; a graph output and a value read by a subgraph are never removed;
// a fused node takes over the output value ids of the pattern it replaces, so every reader
// outside the pattern is untouched.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ir/graph.h"
#include "ir/graph_view.h"
#include "nxrt/status.h"
#include "nxrt/tensor.h"

namespace nxrt::opt {

class GraphEditor {
 public:
  // Edits `graph` (the main graph of `model` or one of its subgraphs). Errors: those of
  // ir::GraphView::Create for an invalid graph.
  static Result<GraphEditor> Create(ir::Model& model, ir::Graph& graph);

  ir::Model& model() { return *model_; }
  ir::Graph& graph() { return *graph_; }
  const ir::GraphView& view() const { return *view_; }

  // --- Queries: the graph as of the last Commit (staged edits are not visible). ---
  const ir::Node& node(ir::NodeId id) const { return graph_->nodes[static_cast<size_t>(id)]; }
  const ir::Value& value(ir::ValueId id) const { return graph_->values[static_cast<size_t>(id)]; }
  const std::vector<ir::NodeId>& TopologicalOrder() const { return view_->topological_order(); }
  // The node producing `v`, or kNoNode (graph input, initializer, outer-scope value).
  ir::NodeId Producer(ir::ValueId v) const { return view_->producer(v); }
  // Uses of `v` by nodes of this graph (slot kImplicitSlot: read inside a node's subgraph).
  std::span<const ir::Consumer> Consumers(ir::ValueId v) const { return view_->consumers(v); }
  bool IsGraphOutput(ir::ValueId v) const;
  // True when `v` has exactly one use, by a node input (not a subgraph, not a graph output):
  // the condition for folding the node that makes it into its reader.
  bool HasSingleUse(ir::ValueId v) const;
  // The tensor of `v` when `v` is a constant: an initializer that is not also a graph input (a
  // graph input with an initializer may be fed at run time, so it is not constant), of this
  // graph or, for an outer-scope value, of the enclosing graph that defines it (as ONNX Runtime
  // folds If/Loop body nodes that read the outer graph's constants). nullptr otherwise; also for
  // kNoValue.
  const Tensor* Constant(ir::ValueId v) const;
  // The node's attribute `name` as an int / float / ints, or `fallback` when absent.
  static int64_t IntAttr(const ir::Node& n, std::string_view name, int64_t fallback);
  static float FloatAttr(const ir::Node& n, std::string_view name, float fallback);
  static std::vector<int64_t> IntsAttr(const ir::Node& n, std::string_view name);
  // The elements of an int32 or int64 tensor (a constant, say) as int64; nullopt for a null
  // tensor or another dtype.
  static std::optional<std::vector<int64_t>> IntElements(const Tensor* t);
  // The rank of `v` when its type gives a shape, else nullopt.
  std::optional<size_t> Rank(ir::ValueId v) const;
  // The imported opset of the node's domain (0 when not imported).
  int64_t Opset(const ir::Node& n) const;
  bool IsRemoved(ir::NodeId id) const { return removed_[static_cast<size_t>(id)]; }

  // --- Edits: staged until Commit. ---
  // A new value named after `name_hint` (made unique) with `type`.
  ir::ValueId AddValue(std::string_view name_hint, ir::TypeInfo type);
  // A new constant: a value of `tensor`'s dtype and shape bound to `tensor`.
  ir::ValueId AddInitializer(std::string_view name_hint, Tensor tensor);
  // A new node, placed right after `anchor` (or at the end for kNoNode). Adding a node of
  // nxrt's own domain (ep/cpu/nxrt_ops.h) or of com.microsoft (version 1, the only one of its
  // contrib ops) adds that domain's opset import to the model when missing. The node's name is `name` made unique among the graph's node names.
  void AddNode(ir::Node node, ir::NodeId anchor);
  // Marks a node for removal. Its outputs must have no readers left once edits apply (the pass
  // removes or rewires them); Commit checks this.
  void RemoveNode(ir::NodeId id);
  // Points every node input of this graph reading `from` at `to` (a graph output `from` is
  // left alone; the caller must not remove its producer).
  void ReplaceInputUses(ir::ValueId from, ir::ValueId to);
  // Makes `v`, an output of a node removed in the same edit, the constant `tensor`: Commit binds
  // `tensor` to `v` as an initializer and sets `v`'s type to the tensor's dtype and shape. `v`
  // keeps its id and name, so its readers (graph outputs, subgraphs reading it by name) are
  // untouched.
  void BindConstant(ir::ValueId v, Tensor tensor);

  // Frees the data of constant `v` now, when it is an initializer of this graph (not of an
  // enclosing one; otherwise does nothing) that the staged edits leave unread, rather than when
  // Commit drops it: a pass that replaces large constants (insert_cast's float32 copies of half
  // weights) then holds one old and one new tensor at a time, not all of both. Constant(v) is
  // null from here on. Errors (from Commit): kInternal when a node, graph output or subgraph
  // still reads `v`.
  void ReleaseConstant(ir::ValueId v);

  // Replaces node `id` by `node` where it stands, keeping its id and ORT index (model_index): for
  // a pass that edits a node's inputs, outputs or attributes in place, as ONNX Runtime's
  // transpose optimizer does (a plugin EP then sees the node under its ORT index).
  void ReplaceNode(ir::NodeId id, ir::Node node);
  // Gives `v`, an initializer of this graph, the tensor `tensor` in place (its name and id stay)
  // and sets `v`'s type to the tensor's dtype and shape: a constant transposed or reshaped for
  // its readers. Every reader must expect the new tensor (the pass rewires the others).
  void ReplaceConstant(ir::ValueId v, Tensor tensor);

  // A graph nested in this one changed (it may read fewer outer values): the next Commit runs
  // even with no edit staged, dropping the initializers nothing reads any more.
  void NestedGraphChanged() { nested_changed_ = true; }

  // Applies the staged edits (see the file comment) and rebuilds the views; does nothing when
  // none is staged. Errors: kInternal when an edit left a removed node's output read, or the
  // graph invalid.
  Status Commit();
  // How many Commits changed the graph so far.
  int version() const { return version_; }

 private:
  GraphEditor(ir::Model& model, ir::Graph& graph) : model_(&model), graph_(&graph) {}
  Status Rebuild();
  std::string UniqueValueName(std::string_view hint);

  ir::Model* model_;
  ir::Graph* graph_;
  std::optional<ir::GraphView> view_;
  std::vector<bool> removed_;
  std::vector<bool> graph_output_;
  std::vector<std::pair<ir::NodeId, ir::Node>> added_;  // (anchor, node)
  std::vector<std::pair<ir::ValueId, Tensor>> bound_;  // BindConstant's (value, tensor)
  std::vector<ir::ValueId> released_;                   // ReleaseConstant's, until Commit
  std::vector<std::pair<ir::NodeId, ir::Node>> replaced_;  // ReplaceNode's (id, node)
  std::vector<std::pair<ir::ValueId, Tensor>> reshaped_;  // ReplaceConstant's (value, tensor)
  bool rewired_ = false;  // ReplaceInputUses changed node inputs since the last Commit
  bool nested_changed_ = false;  // NestedGraphChanged was called since the last Commit
  int name_counter_ = 0;
  int version_ = 0;
};

}  // namespace nxrt::opt
