// optimizer/passes/constant_evaluator.h: evaluates nodes whose inputs are all constant, ahead of
// time, with the CPU EP's kernels, and replaces them by initializers.
//
// Layer: nxrt_optimizer, internal to the constant_folding and shape_folding passes. An evaluator
// serves one sweep: it reads the editor's view, so it is valid until the editor's next Commit.
// A folded node's outputs keep their value ids and names (GraphEditor::BindConstant), so graph
// outputs and subgraphs reading them by name see the same values. Values folded earlier in the
// same sweep count as constant for later nodes, so a whole constant chain folds in one
// topological sweep.
#pragma once

#include <optional>
#include <unordered_map>
#include <vector>

#include "ep/node_info_builder.h"
#include "ep/op_registry.h"
#include "ir/graph.h"
#include "nxrt/status.h"
#include "nxrt/tensor.h"
#include "optimizer/graph_editor.h"

namespace nxrt::opt {

// The CPU EP's kernel table, built once (shared with insert_cast, which asks it for the float32
// kernels of half-precision nodes).
const ep::OpRegistry& CpuKernels();

class ConstantEvaluator {
 public:
  explicit ConstantEvaluator(GraphEditor& editor) : editor_(&editor) {}

  // The value of `v` when it is known: a constant initializer of the graph (GraphEditor::
  // Constant) or a value this evaluator replaced by a constant. nullptr otherwise.
  const Tensor* Known(ir::ValueId v) const;
  // True when `v` was replaced by a constant through this evaluator.
  bool Replaced(ir::ValueId v) const { return replaced_.count(v) != 0; }

  // True when `node` may be computed ahead of time: an operator of the default ONNX domain
  // whose outputs are a function of its inputs alone (not RandomNormal, RandomUniform, their
  // -Like forms, Multinomial, Bernoulli or Dropout), without subgraphs, not DequantizeLinear
  // (a quantized weight stays quantized so that an EP running QDQ node groups still sees them),
  // every present input known, and every present output a tensor or of unknown type.
  bool CanFold(const ir::Node& node) const;

  // Computes `id` (CanFold must hold) on the CPU EP and stages its replacement: the node is
  // removed and each present output bound to its computed tensor. Returns false, changing
  // nothing, when the CPU EP has no kernel for the node. Errors: the kernel's own, prefixed with
  // the node ("node 'Div_3' (Div, opset 14): ...").
  Result<bool> Fold(ir::NodeId id);

  // Stages replacing output `v` of node `id` by `tensor` and removing the node. Every other
  // output of the node must be replaced too, or have no reader.
  void Replace(ir::NodeId id, ir::ValueId v, Tensor tensor);

 private:
  GraphEditor* editor_;
  std::optional<ep::NodeInfoBuilder> infos_;  // made on the first Fold
  std::unordered_map<ir::ValueId, Tensor> replaced_;
};

}  // namespace nxrt::opt
