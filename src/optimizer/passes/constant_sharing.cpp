// optimizer/passes/constant_sharing.cpp: makes equal small constants of the main graph one, as
// ONNX Runtime 1.30's ConstantSharing does at level 1 (before its constant folding), so a plugin
// EP is shown the initializers ORT shows it.
//
// Candidates are the constants of the main graph (initializers that are not graph inputs, and
// the outputs of Constant nodes, which ORT makes initializers when it loads a model; this pass
// folds them for that, as constant_folding would right after) of 1 to 8 elements, of type
// float, float16, double, int32 or int64, that are no graph output and are read by at least one
// node and by no subgraph. ORT walks them in the iteration order of its initializer table, a
// std::unordered_map keyed by name that it fills with the model's initializers and then the
// Constant nodes' outputs, in model order; nxrt fills a std::unordered_map<std::string, ...>
// the same way and walks it (libstdc++'s string hash and bucket policy are those of ORT's Linux
// build). The first candidate of each (element type, shape, bytes) is kept under its own name;
// the readers of every later one read the kept one instead, and the later one goes when nothing
// else reads it. Values compare by their bytes, as ORT compares them: a NaN equals the same NaN,
// -0 differs from 0. Subgraphs are left alone, as ORT's pass does not visit them.
#include <map>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "optimizer/passes.h"
#include "optimizer/passes/constant_evaluator.h"

namespace nxrt::opt {
namespace {

constexpr int64_t kMaxElements = 8;  // ORT's TENSOR_ELEM_COUNT_THRESHOLD

bool SharedType(DataType t) {
  return t == DataType::kFloat || t == DataType::kFloat16 || t == DataType::kDouble ||
         t == DataType::kInt32 || t == DataType::kInt64;
}

class ConstantSharing final : public GraphPass {
 public:
  std::string_view name() const override { return "constant_sharing"; }
  int level() const override { return 1; }
  // ORT's later level-1 rounds do not share the constants its folding made (two folded scalars
  // 1.5 stay apart, tests/plugin_host/make_recording_models.py rewrite_rounds.onnx), and those
  // are the only new candidates after the first round, so the pass runs once.
  bool RepeatsInLaterRounds() const override { return false; }

  Result<int> Apply(GraphEditor& editor) const override {
    const ir::Graph& graph = editor.graph();
    if (graph.parent != nullptr) return 0;
    ConstantEvaluator evaluator(editor);
    // ORT's initializer table: the initializers, then the Constant nodes' outputs, by name.
    std::unordered_map<std::string, ir::ValueId> table;
    for (const ir::Initializer& init : graph.initializers) {
      table.emplace(editor.value(init.value).name, init.value);
    }
    for (const ir::Node& node : graph.nodes) {
      if (node.op_type != "Constant" || !node.domain.empty() || node.outputs.size() != 1) continue;
      if (evaluator.CanFold(node)) NXRT_RETURN_IF_ERROR(evaluator.Fold(node.id).status());
      table.emplace(editor.value(node.outputs[0]).name, node.outputs[0]);
    }
    // (element type, shape, bytes) → the kept value.
    std::map<std::tuple<DataType, std::vector<int64_t>, std::string>, ir::ValueId> kept;
    int shared = 0;
    for (const auto& [name, v] : table) {
      const Tensor* t = evaluator.Known(v);
      if (t == nullptr || !SharedType(t->dtype()) || t->element_count() < 1 ||
          t->element_count() > kMaxElements || editor.IsGraphOutput(v)) {
        continue;
      }
      bool read = false;
      bool read_by_subgraph = false;
      for (const ir::Consumer& c : editor.Consumers(v)) {
        read = true;
        read_by_subgraph = read_by_subgraph || c.slot == ir::kImplicitSlot;
      }
      if (!read || read_by_subgraph) continue;
      std::string bytes(static_cast<const char*>(t->raw_data()), t->byte_size());
      auto [it, first] = kept.try_emplace(
          {t->dtype(), std::vector<int64_t>(t->shape().begin(), t->shape().end()),
           std::move(bytes)},
          v);
      if (first) continue;
      editor.ReplaceInputUses(v, it->second);
      ++shared;
    }
    NXRT_RETURN_IF_ERROR(editor.Commit());
    return shared;
  }
};

}  // namespace

std::unique_ptr<GraphPass> MakeConstantSharingPass() { return std::make_unique<ConstantSharing>(); }

}  // namespace nxrt::opt
