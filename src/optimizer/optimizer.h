// optimizer/optimizer.h: graph optimisation passes that rewrite a model before placement,
// changing results by float rounding at most.
//
// Layer: nxrt_optimizer (IR rewrites; constant folding evaluates nodes with the CPU EP's
// kernels). The model pipeline (runtime/model_pipeline.h) runs OptimizeModel after loading and
// before placing nodes on EPs (docs/optimizer.md lists the passes and what each matches).
//
// Levels (SessionOptions::optimization_level, `nxrt --opt-level`), each including the ones below:
//   0  only the rewrites without which no EP could run the model: Gradient nodes become the
//      backward nodes of the graph around them (gradient_expansion). These always run and
//      cannot be switched off;
//   1  basic: rewrites whose result is standard ONNX (constant and shape folding, dead-node
//      elimination, Conv+BatchNormalization folding, MatMul+Add → Gemm), safe for any EP and
//      those ONNX Runtime makes before it shows a plugin EP the graph;
//   2  extended: fusions into nxrt's own operators (domain com.nxrt: FusedConv, FusedMatMul,
//      LayerNormalization, Gelu, ...) that only the CPU EP runs, and rewrites ORT does not make
//      at its default level (dim_folding). The session applies them only when every EP in the
//      list is the CPU EP, so a plugin EP always sees standard ONNX, as ORT shows it.
// Each pass can also be switched off by name (SessionOptions::disabled_optimizers,
// `nxrt --disable-pass NAME`).
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "ir/graph.h"
#include "nxrt/status.h"
#include "optimizer/graph_editor.h"

namespace nxrt::opt {

inline constexpr int kMaxOptimizationLevel = 2;
// How many rounds of the level-1 passes run at most: ONNX Runtime 1.30's default
// max_num_graph_transformation_steps.
inline constexpr int kLevel1Rounds = 10;

// The level applied for a requested one: level 2's fusions into com.nxrt operators need every
// node on the CPU EP, so with any other EP in the list level 2 becomes 1 (a plugin EP sees
// standard ONNX, as ONNX Runtime shows its EPs the graph after its basic optimisations).
inline int LevelForProviders(int requested, bool only_cpu) {
  return !only_cpu && requested == 2 ? 1 : requested;
}

// One rewrite over one graph.
class GraphPass {
 public:
  virtual ~GraphPass() = default;
  // Stable name used to switch the pass off, e.g. "conv_bn_folding".
  virtual std::string_view name() const = 0;
  // The level from which the pass runs: 0 (always; it cannot be switched off), 1 or 2.
  virtual int level() const = 0;
  // Rewrites the editor's graph (staging edits and committing them) and returns how many
  // patterns it rewrote. Errors: only for a graph it cannot leave valid (kInternal) or a
  // kernel error while folding constants.
  virtual Result<int> Apply(GraphEditor& editor) const = 0;
  // False for a level-1 pass that runs in the first round only (see OptimizeModel).
  virtual bool RepeatsInLaterRounds() const { return true; }
};

// The passes in the order they run (the one explicit table, optimizer.cpp).
const std::vector<std::unique_ptr<GraphPass>>& AllPasses();

struct OptimizerOptions {
  int level = kMaxOptimizationLevel;  // 0..2, see the file comment
  std::vector<std::string> disabled;  // pass names not to run
};

// What one pass did: rewrites summed over the main graph and its subgraphs.
struct PassReport {
  std::string pass;
  int rewrites = 0;
};

// Runs the enabled passes over the main graph and then over every subgraph (If/Loop/Scan
// bodies), in table order; then, while a level-1 pass rewrote something in the round before,
// runs the level-1 passes again in table order (those whose RepeatsInLaterRounds is true), at
// most kLevel1Rounds rounds in all, as ONNX Runtime repeats its level-1 transformers. Reports
// every pass that ran, rewrites summed over the rounds. Each graph's view
// (GraphEditor) is built once and rebuilt only after an edit to it or to a graph nested in it.
// Errors: kInvalidArgument for a level outside 0..2, an unknown name in `disabled` or the name
// of a level-0 pass (listing the names that may be given); a pass's own errors, prefixed with
// its name.
Result<std::vector<PassReport>> OptimizeModel(ir::Model& model, const OptimizerOptions& options);

}  // namespace nxrt::opt
