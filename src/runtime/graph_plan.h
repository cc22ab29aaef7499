// runtime/graph_plan.h: the execution plan of one graph, as data.
//
// Layer: nxrt_runtime. A GraphPlan is built once per session (and once per subgraph) from the
// placement (runtime/plan_builder.h): an ordered list of steps, each a kernel of one EP for one
// node or one fused claim, or a runtime step: control flow (If/Loop/Scan/SequenceMap, running
// sub-plans through the same executor) and the sequence and optional ops
// (runtime/sequence_steps.h). It also knows, for every value of the graph, where it comes from
// (graph input, initializer, outer scope, a step) and the last step that reads it. A plan is
// immutable while it runs and shared by every PlanInstance (runtime/executor.h) that runs it.
//
// Values are nxrt::Value (nxrt/value.h): tensors, sequences of tensors, empty optionals. Kernels
// see tensors only; a kernel step given a sequence or an empty optional fails naming the input.
// Only runtime steps make or take sequences and optionals; their outputs own their buffers
// (never the arena), so a sequence may outlive every step that fed it.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/thread_pool.h"
#include "ep/device_values.h"
#include "ep/kernel_host.h"
#include "ir/graph_view.h"
#include "nxrt/execution_provider.h"
#include "nxrt/kernel.h"
#include "nxrt/status.h"
#include "nxrt/tensor.h"
#include "nxrt/value.h"

namespace nxrt::runtime {

struct GraphPlan;

// Calls and time of one step, summed over runs (Session::Stats).
struct StepCounters {
  int64_t calls = 0;
  double total_us = 0;
};

// One step run, for profiling (Session::EndProfiling): which step, when, for how long, and its
// values as Value::Description gives them ("float[1,512]"; "" for an omitted one).
struct StepSpan {
  size_t stat = 0;  // the step's index in its plan tree's step table (FlattenSteps)
  std::chrono::steady_clock::time_point start;
  double duration_us = 0;
  std::vector<std::string> inputs;   // explicit inputs, as bound before the step ran
  std::vector<std::string> outputs;  // as the step produced them
};

// The limits of one run (SessionOptions' run_time_limit_ms, loop_trip_limit and
// run_memory_limit_bytes; RunOptions::terminate) and what the run has used of them. One per run,
// shared by the plans of its tree: the steps of control-flow bodies check the same deadline and
// charge the same memory budget as the main graph's.
struct RunLimits {
  const std::atomic<bool>* terminate = nullptr;  // stop once it is true (null: never)
  // Stop with kDeadlineExceeded once this time is past; time_limit_ms (> 0) is what set it.
  std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max();
  int64_t time_limit_ms = 0;
  int64_t loop_trip_limit = 0;  // iterations one Loop may run; 0: no limit
  // Bytes of tensors the run may hold at once (0: no limit), and the bytes it holds now: each
  // tensor a step outputs is charged when the step makes it and released when it is dropped.
  int64_t memory_limit_bytes = 0;
  int64_t held_bytes = 0;
  // Set when a limit stopped the run: the failing step is then not to blame (no EP is dropped).
  bool stopped = false;

  // kRuntimeError when terminate is set, kDeadlineExceeded when the deadline is past, each
  // naming `before` (what would run next); Ok otherwise.
  Status CheckStop(std::string_view before);
  // kDeadlineExceeded when a Loop about to start iteration `trip` (0-based) would pass
  // loop_trip_limit.
  Status CheckLoopTrip(int64_t trip, std::string_view loop);
  // Charges `bytes` when they fit memory_limit_bytes (always without a limit); false when not.
  bool TryCharge(int64_t bytes) {
    if (memory_limit_bytes <= 0) return true;
    if (bytes > memory_limit_bytes - held_bytes) return false;
    held_bytes += bytes;
    return true;
  }
  void Release(int64_t bytes) { held_bytes -= bytes; }
  // kOutOfMemory for `what` (a step's output or workspace, with its dtype and shape), whose
  // `bytes` did not fit: names it, its size, what the run holds and the limit.
  Status OverMemoryLimit(int64_t bytes, std::string_view what);
};

// Bytes of the tensors `value` holds: a tensor's, the sum of a sequence's, a map's keys and
// values (summed over the maps of a sequence of maps), 0 for an empty optional.
int64_t ValueBytes(const Value& value);

// What a run records. The executor hands it down to the sub-plans that control-flow steps run,
// so that the steps of If/Loop/Scan/SequenceMap bodies are counted and traced as the main
// graph's are, and stop at the same limits.
struct RunRecord {
  // Indexed by the step table of FlattenSteps (GraphPlan::stats_offset + step), covering every
  // plan of the tree; empty: nothing is counted.
  std::span<StepCounters> counters;
  std::vector<StepSpan>* spans = nullptr;  // when set, one entry per step run, with its values
  RunLimits* limits = nullptr;             // when set, the run stops at them

  bool timed() const { return !counters.empty() || spans != nullptr; }
};

// Runs a node in the runtime itself rather than on an EP: a node with subgraphs (If, Loop, Scan,
// SequenceMap) or a sequence/optional op. Built by the plan builder; one per PlanInstance
// (control flow holds sub-plan instances).
class RuntimeStep {
 public:
  virtual ~RuntimeStep() = default;
  // `inputs`: the node's explicit inputs (nullptr when omitted) followed by its implicit inputs
  // (outer-scope values its subgraphs read, in GraphView::implicit_inputs order). Fills
  // `outputs` (one per node output; left unset for omitted ones) with values whose tensors own
  // their buffers (an input tensor in the arena is copied, never aliased). A step that runs
  // sub-plans passes `record` to their runs.
  virtual Status Run(std::span<const Value* const> inputs, std::vector<Value>& outputs,
                     ThreadPool& pool, const RunRecord& record) = 0;
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
  // Copies of constant inputs that this step's kernels published with SetPrepacked
  // (ep/prepacked.h), shared by all instances of the plan.
  std::shared_ptr<ep::PrepackedCopies> prepacked = std::make_shared<ep::PrepackedCopies>();
  // A kernel step of an EP that keeps values in its device memory (ep/device_values.h): per
  // explicit input and output, 1 when it lives in that memory. Null/empty: host memory.
  ep::DeviceValues* device = nullptr;
  std::vector<uint8_t> inputs_on_device;
  std::vector<uint8_t> outputs_on_device;
  bool InputOnDevice(size_t i) const {
    return device != nullptr && i < inputs_on_device.size() && inputs_on_device[i] != 0;
  }
  bool OutputOnDevice(size_t o) const {
    return device != nullptr && o < outputs_on_device.size() && outputs_on_device[o] != 0;
  }
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
  // The index of step 0 in the step table of the plan tree this plan belongs to (FlattenSteps):
  // step s is counted at RunRecord::counters[stats_offset + s].
  size_t stats_offset = 0;
  std::vector<StepPlan> steps;
  std::vector<ValuePlan> values;  // by ValueId: the graph's values, then the copies below
  // Values the plan adds to the graph's (ids from graph->values.size() on): copies of a value in
  // another memory (runtime/device_copies.h), each with the graph value it is a copy of and the
  // memory it is in ("" for host memory, else the EP's name).
  struct Copy {
    ir::ValueId of = ir::kNoValue;
    std::string memory;
  };
  std::vector<Copy> copies;
  // Graph inputs a caller (or the enclosing control-flow step) binds, in graph order.
  std::vector<ir::ValueId> inputs;
  std::vector<ir::ValueId> outputs;
  // Outer-scope values this graph reads, bound by name from the enclosing run.
  std::vector<ir::ValueId> outer_scope;
  // By ValueId: outer-scope values that are constant in the enclosing graph (an initializer or
  // a constant step's output there), set by the enclosing plan's ComputeValuePlans. They count
  // as constant inputs here and stay bound across runs.
  std::vector<bool> constant_outer;

  // Fills `values`, `inputs`, `outputs`, `outer_scope` from the graph and `steps`, and marks
  // the constant steps.
  void ComputeValuePlans();
  // How many values the plan has: the graph's and the copies.
  size_t value_count() const { return graph->values.size() + copies.size(); }
  // The name of value `v` for messages: the graph's name, or "<name> (in ep 'x' memory)" /
  // "<name> (host copy)" for a copy.
  std::string ValueName(ir::ValueId v) const;
  // Whether value `v` is constant in every run: an initializer (not a graph input), a constant
  // step's output or a constant outer-scope value. A kernel's Prepare may read its contents.
  // Valid for values whose plan ComputeValuePlans has filled (the constant steps before it).
  bool Constant(ir::ValueId v) const;
  // Initializers whose data no step will read again: not graph inputs or outputs, read only by
  // kernel steps (no runtime or constant step, no subgraph), each reading slot of which has a
  // prepacked copy. Ascending ValueIds.
  std::vector<ir::ValueId> PrepackedInitializers() const;
};

// One entry of a plan tree's step table.
struct FlatStep {
  const GraphPlan* plan = nullptr;
  size_t step = 0;     // index into plan->steps
  int64_t parent = -1; // table index of the control-flow step whose sub-plan holds it; -1: root
};

// Numbers the steps of `root` and of every sub-plan below it in one table and sets each plan's
// stats_offset: `root`'s steps first, then for each of its control-flow steps in step order each
// sub-plan (in StepPlan::subgraphs order) followed by its own sub-plans, depth first. A plan's
// steps are contiguous in the table.
std::vector<FlatStep> FlattenSteps(GraphPlan& root);

}  // namespace nxrt::runtime
