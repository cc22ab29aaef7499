// runtime/executor.h: PlanInstance, what runs a GraphPlan (runtime/graph_plan.h) once per call.
//
// Layer: nxrt_runtime. A PlanInstance holds what one concurrent run needs: its own kernels
// (kernels are not re-entrant), each in a kernel host (ep/kernel_host.h) that keeps its prepared
// state, the value slots, and the arena (runtime/arena.h). A run executes the steps in order;
// a kernel step is
//   bind its inputs → the host prepares again only if an input shape (or a value input's
//   contents) changed → bind its outputs and workspace (arena bytes when the memory plan has
//   them at this size, otherwise buffers of their own; outputs a step keeps in its EP's device
//   memory, ep/device_values.h, are allocated there, also dynamic ones) → Compute → pin a
//   constant step's outputs → drop the values this step read last.
// A runtime step (control flow, sequence ops) gets its inputs and gives values that own their
// buffers. After a run in which some intermediate or workspace did not fit the memory plan
// (first run, new shapes, a kernel that changed its in-place offers), the arena is rebuilt from
// the sizes just seen (runtime/memory_planner.h): intermediates live from their producer to
// their last reader, a kernel's workspace for its step only.
// Steady state (same shapes as the run before) allocates nothing on the heap but the graph
// outputs: the value slots live in the instance (initializers and constant steps' outputs stay
// bound across runs), each step's binding and scratch lists are kept, workspaces are arena
// bytes, and an arena intermediate's tensor is parked after its last use and handed back to its
// producer on the next run instead of being rebuilt (executor_test.cpp counts it).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/thread_pool.h"
#include "ir/graph.h"
#include "nxrt/status.h"
#include "nxrt/value.h"
#include "runtime/arena.h"
#include "runtime/graph_plan.h"

namespace nxrt::runtime {

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
  // hold their values (tensors produced by steps own their buffers). `record` receives each
  // successful step's call and time at counters[plan.stats_offset + step] (so `counters` covers
  // the plan's whole tree, FlattenSteps) and, with `spans`, one span per step; the control-flow
  // steps pass it to the runs of their sub-plans. A step's time runs from the end of the step
  // before, so a control-flow step's includes its sub-plans' steps.
  // With record.limits, Run checks RunLimits::CheckStop before each step (terminate flag,
  // deadline) and, under a memory limit, charges each tensor a step outputs before it is
  // allocated (a dynamic output, or a control-flow or sequence step's, once made) and each
  // workspace, releasing a value's bytes when it is dropped and, at the end of the run, what is
  // left. A run stopped by a limit leaves failed_step() nullopt (no step failed).
  Status Run(ThreadPool& pool, const RunRecord& record = {});
  // The step whose failure ended the last Run, or nullopt when it succeeded.
  std::optional<size_t> failed_step() const { return failed_step_; }
  // Called by Run right after a Prepare that published a prepacked copy (ep/prepacked.h),
  // before that step's Compute, so the owner can free initializers no step reads any more
  // (GraphPlan::PrepackedInitializers) as soon as possible, keeping the peak memory low.
  void set_prepacked_hook(std::function<void(PlanInstance&)> hook) {
    prepacked_hook_ = std::move(hook);
  }
  // Where Run stores, before each step, the step's index in the plan tree's step table
  // (stats_offset + step), for progress displays (null: nowhere). Set per run by the owner.
  void set_progress(std::atomic<int64_t>* progress) { progress_ = progress; }
  // Asked for the buffer of each graph output a kernel step computes (SessionOptions'
  // RunOptions::output_allocator, for this instance's graph only; empty: none). Set per run by
  // the owner.
  using OutputAllocator = std::function<Result<Tensor>(ir::ValueId, DataType, const Shape&)>;
  void set_output_allocator(OutputAllocator allocator) { output_allocator_ = std::move(allocator); }
  // The instance's arena (its size: what the intermediates and workspaces of a run take).
  const Arena& arena() const { return arena_; }

 private:
  struct StepState;
  explicit PlanInstance(const GraphPlan& plan);

  // One step; the pieces below, in the order they run.
  Status RunStep(size_t index, ThreadPool& pool);
  // RunStep with allocation failures thrown by a kernel or runtime step turned into kOutOfMemory
  // naming the step.
  Status GuardedRunStep(size_t index, ThreadPool& pool);
  Status BindInputs(size_t index);
  Status RunRuntimeStep(size_t index, ThreadPool& pool);
  Status RunKernelStep(size_t index, ThreadPool& pool);
  Status BindKernelInputs(size_t index);
  Status BindOutputs(size_t index);
  Result<Tensor*> BindOutput(size_t index, size_t o);
  Status BindWorkspace(size_t index);
  void CollectOutputs(size_t index, bool ok);
  // The step's input and output descriptions, for its span (profiling only).
  void DescribeValues(size_t index);
  void PinConstantOutputs(size_t index);
  void DropAfter(size_t index);
  // Under a memory limit: charges output `o` of step `index` to limits_, or fails naming it
  // (`describe()` gives its dtype and shape, as "float[2,3]"); charges the dynamic outputs
  // Compute made; releases value `v`'s charge.
  template <typename Describe>
  Status Charge(size_t index, size_t o, int64_t bytes, Describe&& describe);
  Status ChargeDynamicOutputs(size_t index);
  void Release(ir::ValueId v);

  // Empties slot `v` after its last use; an arena tensor is parked in spare_[v] for its producer.
  void Drop(ir::ValueId v);
  // The arena buffer of step `s`'s workspace (values come first).
  size_t WorkspaceBuffer(size_t s) const { return plan_.values.size() + s; }
  // Lays the arena out for the sizes of the run just done.
  void RebuildArena();
  // Per buffer, its step range and the buffer whose bytes it uses: itself, or for an output a
  // kernel allowed in place (ep/in_place.h) and the planner accepted, its input's owner.
  std::vector<ArenaUse> ArenaUses() const;

  const GraphPlan& plan_;
  std::optional<size_t> failed_step_;
  std::function<void(PlanInstance&)> prepacked_hook_;
  std::atomic<int64_t>* progress_ = nullptr;
  OutputAllocator output_allocator_;
  const RunRecord* record_ = nullptr;  // of the run in progress
  RunLimits* limits_ = nullptr;        // record_->limits
  // Under a memory limit, by ValueId: the bytes charged for the value now bound (0: none);
  // empty without one.
  std::vector<int64_t> charged_;
  std::vector<std::string> described_inputs_, described_outputs_;  // by DescribeValues
  std::vector<std::unique_ptr<StepState>> steps_;
  std::vector<Value> values_;  // by ValueId
  std::vector<Value> spare_;   // by ValueId: arena tensors parked between their runs
  std::vector<StepCounters> counters_;
  Arena arena_;  // buffers: one per value, then one workspace per step
  // A step's workspace in a run whose arena layout does not have it (grown to the largest need,
  // freed when the arena is rebuilt).
  std::shared_ptr<std::byte> fallback_workspace_;
  size_t fallback_workspace_bytes_ = 0;
};

}  // namespace nxrt::runtime
