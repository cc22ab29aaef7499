// runtime/graph_plan.h: the execution plan of one graph and the per-run instance that runs it.
//
// Layer: nxrt_runtime. A GraphPlan is built once per session (and once per subgraph) from the
// placement: an ordered list of steps, each a kernel of one EP for one node or one fused claim,
// or a runtime step: control flow (If/Loop/Scan/SequenceMap, running sub-plans through this same
// machinery) and the sequence and optional ops (runtime/sequence_steps.h). It also knows, for
// every value of the graph, where it comes from (graph input, initializer, outer scope, a step)
// and the last step that reads it.
//
// Values are nxrt::Value (nxrt/value.h): tensors, sequences of tensors, empty optionals. Kernels
// see tensors only; a kernel step given a sequence or an empty optional fails naming the input.
// Only runtime steps make or take sequences and optionals; their outputs own their buffers
// (never the arena), so a sequence may outlive every step that fed it.
//
// A PlanInstance holds what one concurrent run needs: its own kernel instances (kernels are not
// re-entrant), their prepared state, and the arena. Running a plan:
//   for each step: bind inputs → Prepare again only if an input shape (or a value input's
//   contents) changed → allocate outputs (arena offset when the memory plan has this size,
//   otherwise a fresh buffer) → Compute → drop inputs after their last use.
// After a run in which some intermediate did not fit the memory plan (first run, new shapes),
// the plan is rebuilt from the sizes just seen (runtime/memory_planner.h), so steady-state runs
// allocate only their graph outputs.
// Steady state (same shapes as the run before) allocates nothing else on the heap: the value
// slots live in the instance (initializers and Constant outputs stay bound across runs), each
// step's scratch lists are kept, and an arena intermediate's tensor is parked after its last
// use and handed back to its producer on the next run instead of being rebuilt.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/thread_pool.h"
#include "ir/graph_view.h"
#include "nxrt/execution_provider.h"
#include "nxrt/kernel.h"
#include "nxrt/status.h"
#include "nxrt/tensor.h"
#include "nxrt/value.h"

namespace nxrt::runtime {

class PlanInstance;
struct GraphPlan;

// Runs a node in the runtime itself rather than on an EP: a node with subgraphs (If, Loop, Scan,
// SequenceMap) or a sequence/optional op. Built by the plan builder; an instance per
// PlanInstance (control flow holds sub-plan instances).
class RuntimeStep {
 public:
  virtual ~RuntimeStep() = default;
  // `inputs`: the node's explicit inputs (nullptr when omitted) followed by its implicit inputs
  // (outer-scope values its subgraphs read, in GraphView::implicit_inputs order). Fills
  // `outputs` (one per node output; left unset for omitted ones) with values whose tensors own
  // their buffers (an input tensor in the arena is copied, never aliased).
  virtual Status Run(std::span<const Value* const> inputs, std::vector<Value>& outputs,
                     ThreadPool& pool) = 0;
};

// Makes one RuntimeStep for a new PlanInstance.
using RuntimeStepFactory = std::function<std::unique_ptr<RuntimeStep>()>;

// A compiled subgraph plus, for each of its outer-scope values, the index of the step input
// (explicit inputs first, then implicit) that supplies it.
struct SubgraphPlan {
  std::shared_ptr<GraphPlan> plan;
  std::vector<std::pair<ir::ValueId, size_t>> outer_bindings;
};

struct StepPlan {
  std::string name;     // node name, or the fused claim's name
  std::string op_type;  // op type, or "fused"
  std::string ep_name;  // the EP instance's name
  ExecutionProvider* ep = nullptr;
  // How a PlanInstance makes this step's kernel: exactly one of the two is set.
  std::function<Result<std::unique_ptr<Kernel>>()> make_kernel;
  // The node a node-kernel step makes its kernels from (make_kernel reads it). Shared so that
  // the session can drop a freed initializer's data from it (NodeInfo holds constants shared).
  std::shared_ptr<NodeInfo> node_info;
  RuntimeStepFactory make_runtime_step;
  // Values read: explicit inputs (kNoValue when omitted), then implicit inputs.
  std::vector<ir::ValueId> inputs;
  size_t explicit_inputs = 0;  // how many of `inputs` a kernel sees
  std::vector<ir::ValueId> outputs;  // kNoValue when omitted
  // Node description for error messages: "node 'Conv_3' (Conv, opset 17)".
  std::string description;
  // A node kernel of the default domain that is not random: its outputs are a function of its
  // inputs alone (set by the plan builder).
  bool foldable = false;
  // A foldable step whose inputs are all initializers or outputs of constant steps (a Constant
  // node, for one) and whose outputs are not graph outputs (set by ComputeValuePlans): an
  // instance runs it once, keeps its outputs bound in owned buffers outside the arena and skips
  // it afterwards.
  bool constant = false;
  // The sub-plans of a control-flow step (ComputeValuePlans tells them which outer-scope values
  // are constant).
  std::vector<SubgraphPlan> subgraphs;
};

// Where a value of the graph comes from during a run.
enum class ValueSource : uint8_t { kNone, kGraphInput, kInitializer, kOuterScope, kStep };

struct ValuePlan {
  ValueSource source = ValueSource::kNone;
  int32_t producer_step = -1;  // for kStep
  int32_t last_use_step = -1;  // last step reading it; -1 when no step does
  bool graph_output = false;
  bool constant_outer = false;  // a kOuterScope value constant in the enclosing graph
  // The output of a constant step: an instance keeps it bound after the first run, unless
  // `fold_only` (only constant steps read it), when it is dropped after its last reader ran.
  bool pinned = false;
  bool fold_only = false;
  const Tensor* initializer = nullptr;  // for kInitializer
};

struct GraphPlan {
  const ir::Graph* graph = nullptr;
  std::vector<StepPlan> steps;
  std::vector<ValuePlan> values;  // by ValueId
  // Graph inputs a caller (or the enclosing control-flow step) binds, in graph order.
  std::vector<ir::ValueId> inputs;
  std::vector<ir::ValueId> outputs;
  // Outer-scope values this graph reads, bound by name from the enclosing run.
  std::vector<ir::ValueId> outer_scope;
  // By ValueId: outer-scope values that are constant in the enclosing graph (an initializer or
  // a constant step's output there), set by the enclosing plan's ComputeValuePlans. They count
  // as constant inputs here and stay bound across runs.
  std::vector<bool> constant_outer;

  // Copies of constant inputs that kernels published with SetPrepacked (ep/prepacked.h), by
  // (step, input slot), shared by all instances of the plan.
  struct Prepacked {
    mutable std::mutex mutex;
    std::map<std::pair<size_t, int>, std::shared_ptr<const void>> copies;
  };
  std::shared_ptr<Prepacked> prepacked = std::make_shared<Prepacked>();

  // Fills `values`, `inputs`, `outputs`, `outer_scope` from the graph and `steps`, and marks
  // the constant steps.
  void ComputeValuePlans();
  // Initializers whose data no step will read again: not graph inputs or outputs, read only by
  // kernel steps (no runtime or constant step, no subgraph), each reading slot of which has a
  // prepacked copy. Ascending ValueIds.
  std::vector<ir::ValueId> PrepackedInitializers() const;
};

// Statistics of one step, summed over the runs of all instances.
struct StepCounters {
  int64_t calls = 0;
  double total_us = 0;
};

// When one step ran and for how long (profiling, Session::EndProfiling).
struct StepSpan {
  size_t step = 0;
  std::chrono::steady_clock::time_point start;
  double duration_us = 0;
};

class PlanInstance {
 public:
  // Creates the kernels of `plan` (which must outlive the instance). Errors: kernel creation
  // errors, prefixed with the step's node.
  static Result<std::unique_ptr<PlanInstance>> Create(const GraphPlan& plan);
  ~PlanInstance();

  // The instance's value slots, one per value of the graph, kept across runs: the caller binds
  // graph inputs and outer-scope values here before Run, takes the graph outputs after it, then
  // calls ReleaseBindings.
  std::vector<Value>& values() { return values_; }
  // Unbinds the graph inputs, outer-scope values and graph outputs (so that the instance holds no
  // caller's buffer between runs); initializers and computed constants stay bound.
  void ReleaseBindings();
  // Per-step counters a caller may pass to Run (kept here so that runs reuse the storage).
  std::vector<StepCounters>& counters() { return counters_; }

  // Runs the plan on values(): initializers are bound here. On return the graph outputs' slots
  // hold their values (tensors produced by steps own their buffers). `counters` (one per step,
  // may be empty) receive calls and time; `spans`, when given, one entry per successful step.
  Status Run(ThreadPool& pool, std::span<StepCounters> counters,
             std::vector<StepSpan>* spans = nullptr);
  // The step whose failure ended the last Run, or nullopt when it succeeded.
  std::optional<size_t> failed_step() const { return failed_step_; }
  // Called by Run right after a Prepare that published a prepacked copy (ep/prepacked.h),
  // before that step's Compute, so the owner can free initializers no step reads any more
  // (GraphPlan::PrepackedInitializers) as soon as possible, keeping the peak memory low.
  void set_prepacked_hook(std::function<void(PlanInstance&)> hook) {
    prepacked_hook_ = std::move(hook);
  }

 private:
  struct StepState;
  explicit PlanInstance(const GraphPlan& plan);
  Status RunStep(size_t index, ThreadPool& pool);
  // RunStep with allocation failures thrown by a kernel or runtime step turned into kOutOfMemory
  // naming the step.
  Status GuardedRunStep(size_t index, ThreadPool& pool);
  // Empties slot `v` after its last use; an arena tensor is parked in spare_[v] for its producer.
  void Drop(ir::ValueId v);
  void RebuildMemoryPlan();
  // Per value, the value whose arena buffer it uses: itself, or for an output a kernel allowed
  // in place (ep/in_place.h) and the planner accepted, its input's owner. `last_step` gets each
  // owner's last step (its own lifetime and that of the values sharing its buffer).
  std::vector<ir::ValueId> InPlaceOwners(std::vector<int32_t>& last_step) const;

  const GraphPlan& plan_;
  std::optional<size_t> failed_step_;
  std::function<void(PlanInstance&)> prepacked_hook_;
  bool prepacked_published_ = false;
  std::vector<std::unique_ptr<StepState>> steps_;
  std::vector<Value> values_;  // by ValueId
  std::vector<Value> spare_;   // by ValueId: arena tensors parked between their runs
  std::vector<StepCounters> counters_;
  // The arena and, per value, its offset in it and the byte size it was planned for (-1: not
  // planned). Rebuilt when a run sees a size the plan does not have.
  std::shared_ptr<std::byte> arena_;
  std::vector<int64_t> planned_offset_;
  std::vector<int64_t> planned_bytes_;
  std::vector<int64_t> seen_bytes_;  // sizes in the current run (-1: not in the arena's scope)
  bool plan_mismatch_ = true;
  std::shared_ptr<std::byte> workspace_;  // shared by all steps; the largest request
  size_t workspace_bytes_ = 0;
};

}  // namespace nxrt::runtime
