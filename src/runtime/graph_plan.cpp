// runtime/graph_plan.cpp: value bookkeeping of a plan and the step loop of a run (see
// graph_plan.h).
#include "runtime/graph_plan.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <new>
#include <stdexcept>

#include "ep/in_place.h"
#include "ep/prepacked.h"
#include "runtime/memory_planner.h"

namespace nxrt::runtime {
namespace {

// A 64-byte-aligned, uninitialised host buffer of `bytes` bytes (nullptr for 0).
Result<std::shared_ptr<std::byte>> AlignedBuffer(size_t bytes) {
  if (bytes == 0) return std::shared_ptr<std::byte>();
  const size_t rounded = (bytes + kArenaAlignment - 1) / kArenaAlignment * kArenaAlignment;
  void* p = std::aligned_alloc(kArenaAlignment, rounded);
  if (p == nullptr) {
    return MakeStatus(StatusCode::kOutOfMemory, "cannot allocate ", bytes, " bytes");
  }
  return std::shared_ptr<std::byte>(static_cast<std::byte*>(p), [](std::byte* b) { std::free(b); });
}

bool SameContents(const Tensor& a, const Tensor& b) {
  if (a.dtype() != b.dtype() || a.shape() != b.shape()) return false;
  if (a.dtype() == DataType::kString) {
    auto x = a.span<std::string>();
    auto y = b.span<std::string>();
    return std::equal(x.begin(), x.end(), y.begin());
  }
  return a.byte_size() == 0 || std::memcmp(a.raw_data(), b.raw_data(), a.byte_size()) == 0;
}

}  // namespace

void GraphPlan::ComputeValuePlans() {
  const ir::Graph& g = *graph;
  values.assign(g.values.size(), ValuePlan{});
  inputs.clear();
  outer_scope.clear();
  constant_outer.resize(g.values.size());
  for (ir::ValueId id = 0; id < static_cast<ir::ValueId>(g.values.size()); ++id) {
    if (g.values[id].outer_scope) {
      values[id].source = ValueSource::kOuterScope;
      values[id].constant_outer = constant_outer[id];
      outer_scope.push_back(id);
    }
  }
  for (const ir::Initializer& init : g.initializers) {
    values[init.value].source = ValueSource::kInitializer;
    values[init.value].initializer = &init.tensor;
  }
  for (ir::ValueId id : g.inputs) {
    // A graph input with an initializer is an overridable default: the caller may bind it.
    values[id].source = ValueSource::kGraphInput;
    if (const ir::Initializer* init = g.FindInitializer(id)) values[id].initializer = &init->tensor;
    inputs.push_back(id);
  }
  for (int32_t s = 0; s < static_cast<int32_t>(steps.size()); ++s) {
    for (ir::ValueId v : steps[s].inputs) {
      if (v != ir::kNoValue) values[v].last_use_step = s;
    }
    for (ir::ValueId v : steps[s].outputs) {
      if (v == ir::kNoValue) continue;
      values[v].source = ValueSource::kStep;
      values[v].producer_step = s;
    }
  }
  outputs = g.outputs;
  for (ir::ValueId v : outputs) values[v].graph_output = true;
  // Constant steps, in step order so that chains of them fold.
  for (StepPlan& step : steps) {
    auto constant_input = [&](ir::ValueId v) {
      return v == ir::kNoValue || values[v].source == ValueSource::kInitializer ||
             values[v].pinned || values[v].constant_outer;
    };
    auto plain_output = [&](ir::ValueId v) { return v == ir::kNoValue || !values[v].graph_output; };
    step.constant = step.foldable && step.make_kernel &&
                    std::all_of(step.inputs.begin(), step.inputs.end(), constant_input) &&
                    std::all_of(step.outputs.begin(), step.outputs.end(), plain_output);
    if (!step.constant) continue;
    for (ir::ValueId v : step.outputs) {
      if (v == ir::kNoValue) continue;
      values[v].pinned = true;
      values[v].fold_only = true;
    }
  }
  for (const StepPlan& step : steps) {
    if (step.constant) continue;
    for (ir::ValueId v : step.inputs) {
      if (v != ir::kNoValue) values[v].fold_only = false;
    }
  }
  // Sub-plans learn which of their outer-scope values are constant here, then fold in turn.
  for (const StepPlan& step : steps) {
    for (const SubgraphPlan& sub : step.subgraphs) {
      GraphPlan& inner = *sub.plan;
      inner.constant_outer.assign(inner.graph->values.size(), false);
      for (const auto& [inner_value, index] : sub.outer_bindings) {
        const ir::ValueId v = index < step.inputs.size() ? step.inputs[index] : ir::kNoValue;
        inner.constant_outer[inner_value] =
            v != ir::kNoValue && (values[v].source == ValueSource::kInitializer ||
                                  values[v].pinned || values[v].constant_outer);
      }
      inner.ComputeValuePlans();
    }
  }
}

std::vector<ir::ValueId> GraphPlan::PrepackedInitializers() const {
  // Readers of each initializer, as (step, slot); -1 marks a reader that cannot prepack.
  std::map<ir::ValueId, std::vector<std::pair<size_t, int>>> readers;
  const ir::Graph& g = *graph;
  for (const ir::Initializer& init : g.initializers) {
    if (values[init.value].source == ValueSource::kInitializer && !values[init.value].graph_output) {
      readers[init.value];
    }
  }
  for (size_t s = 0; s < steps.size(); ++s) {
    const StepPlan& step = steps[s];
    for (size_t i = 0; i < step.inputs.size(); ++i) {
      auto it = readers.find(step.inputs[i]);
      if (it == readers.end()) continue;
      const bool kernel_slot = step.make_kernel && !step.constant && i < step.explicit_inputs;
      it->second.emplace_back(s, kernel_slot ? static_cast<int>(i) : -1);
    }
  }
  std::vector<ir::ValueId> result;
  std::lock_guard<std::mutex> lock(prepacked->mutex);
  for (const auto& [v, uses] : readers) {
    const bool all = !uses.empty() && std::all_of(uses.begin(), uses.end(), [&](const auto& use) {
      return use.second >= 0 && prepacked->copies.count(use) > 0;
    });
    if (all) result.push_back(v);
  }
  return result;
}

// What a PlanInstance keeps per step between runs.
struct PlanInstance::StepState {
  std::unique_ptr<Kernel> kernel;
  std::unique_ptr<RuntimeStep> runtime_step;
  std::vector<int> value_inputs;
  bool prepared = false;
  bool constant_done = false;  // a constant step that ran: its outputs are bound for good
  std::vector<DataType> in_dtypes;
  std::vector<Shape> in_shapes;
  std::vector<Tensor> in_values;  // copies of value inputs' contents at the last Prepare
  std::vector<DataType> out_dtypes;
  std::vector<Shape> out_shapes;
  std::vector<bool> out_set;
  std::vector<bool> out_dynamic;
  size_t workspace_bytes = 0;
  std::vector<std::pair<int, int>> in_place;  // (output, input) the kernel allows to share
  // Scratch reused by every run (sized once): bound inputs, kernel inputs, output tensors.
  std::vector<const Value*> inputs;
  std::vector<const Tensor*> tensors;
  std::vector<Tensor> out_tensors;
  std::vector<Tensor*> outs;
  std::vector<Value> runtime_outputs;
};

namespace {

class PrepareContextImpl final : public PrepareContext,
                                 public ep::PrepackedConstants,
                                 public ep::InPlaceOutputs {
 public:
  PrepareContextImpl(std::span<const Tensor* const> inputs, const std::vector<int>& value_inputs,
                     const std::vector<bool>& output_used, size_t step_index,
                     const GraphPlan& plan)
      : inputs_(inputs), value_inputs_(value_inputs), output_used_(output_used),
        step_index_(step_index), step_(plan.steps[step_index]), plan_(plan) {}

  std::vector<DataType> dtypes;
  std::vector<Shape> shapes;
  std::vector<bool> set;
  std::vector<bool> dynamic;
  size_t workspace = 0;
  std::vector<std::pair<int, int>> in_place;

  void Reset(size_t outputs) {
    dtypes.assign(outputs, DataType::kUndefined);
    shapes.assign(outputs, Shape{});
    set.assign(outputs, false);
    dynamic.assign(outputs, false);
    workspace = 0;
    in_place.clear();
  }

  int input_count() const override { return static_cast<int>(inputs_.size()); }
  bool has_input(int i) const override {
    return i >= 0 && i < input_count() && inputs_[i] != nullptr;
  }
  DataType input_dtype(int i) const override {
    return has_input(i) ? inputs_[i]->dtype() : DataType::kUndefined;
  }
  std::span<const int64_t> input_shape(int i) const override {
    if (!has_input(i)) return {};
    return inputs_[i]->shape();
  }
  Result<const Tensor*> input_value(int i) const override {
    if (!has_input(i)) {
      return MakeStatus(StatusCode::kInvalidArgument, "input ", i, " is omitted or out of range (",
                        input_count(), " inputs)");
    }
    const ir::ValueId v = step_.inputs[i];
    const bool constant = plan_.values[v].source == ValueSource::kInitializer ||
                          plan_.values[v].pinned || plan_.values[v].constant_outer;
    if (!constant && !std::binary_search(value_inputs_.begin(), value_inputs_.end(), i)) {
      return MakeStatus(StatusCode::kFailedPrecondition, "input ", i,
                        " is not a value input of this kernel; list it in ValueInputs()");
    }
    return inputs_[i];
  }
  int output_count() const override { return static_cast<int>(output_used_.size()); }
  bool output_used(int i) const override {
    return i >= 0 && i < output_count() && output_used_[i];
  }
  Status SetOutput(int i, DataType dtype, Shape shape) override {
    NXRT_RETURN_IF_ERROR(CheckOutput(i, dtype));
    for (int64_t d : shape) {
      if (d < 0) {
        return MakeStatus(StatusCode::kInvalidArgument, "output ", i, " shape ",
                          ShapeToString(shape), " has a negative dim");
      }
    }
    dtypes[i] = dtype;
    shapes[i] = std::move(shape);
    set[i] = true;
    return Status::Ok();
  }
  Status SetOutputDynamic(int i, DataType dtype) override {
    NXRT_RETURN_IF_ERROR(CheckOutput(i, dtype));
    dtypes[i] = dtype;
    dynamic[i] = true;
    set[i] = true;
    return Status::Ok();
  }
  void SetWorkspaceBytes(size_t bytes) override { workspace = bytes; }
  // ep::InPlaceOutputs: RebuildMemoryPlan decides.
  void AllowInPlace(int output, int input) override {
    if (output >= 0 && output < output_count() && has_input(input)) {
      in_place.emplace_back(output, input);
    }
  }
  int thread_count() const override { return threads; }
  // ep::PrepackedConstants: copies live in the plan, shared by its instances.
  void SetPrepacked(int i, std::shared_ptr<const void> copy) override {
    if (!has_input(i) || copy == nullptr) return;
    std::lock_guard<std::mutex> lock(plan_.prepacked->mutex);
    plan_.prepacked->copies[{step_index_, i}] = std::move(copy);
    published = true;
  }
  std::shared_ptr<const void> Prepacked(int i) const override {
    std::lock_guard<std::mutex> lock(plan_.prepacked->mutex);
    auto it = plan_.prepacked->copies.find({step_index_, i});
    return it == plan_.prepacked->copies.end() ? nullptr : it->second;
  }

  int threads = 1;  // the intra-op pool's size
  bool published = false;  // SetPrepacked was called

 private:
  Status CheckOutput(int i, DataType dtype) const {
    if (i < 0 || i >= output_count()) {
      return MakeStatus(StatusCode::kInvalidArgument, "output index ", i, " out of range (",
                        output_count(), " outputs)");
    }
    if (dtype == DataType::kUndefined) {
      return MakeStatus(StatusCode::kInvalidArgument, "output ", i, " declared with no dtype");
    }
    return Status::Ok();
  }

  std::span<const Tensor* const> inputs_;
  const std::vector<int>& value_inputs_;
  const std::vector<bool>& output_used_;
  size_t step_index_;
  const StepPlan& step_;
  const GraphPlan& plan_;
};

class ComputeContextImpl final : public ComputeContext {
 public:
  ComputeContextImpl(std::span<const Tensor* const> inputs, std::span<Tensor*> outputs,
                     const std::vector<bool>& dynamic, const std::vector<DataType>& dtypes,
                     std::span<std::byte> workspace, ThreadPool& pool)
      : inputs_(inputs), outputs_(outputs), dynamic_(dynamic), dtypes_(dtypes),
        workspace_(workspace), pool_(pool) {}

  int input_count() const override { return static_cast<int>(inputs_.size()); }
  const Tensor* input(int i) const override {
    return i >= 0 && i < input_count() ? inputs_[i] : nullptr;
  }
  int output_count() const override { return static_cast<int>(outputs_.size()); }
  Tensor* output(int i) override {
    if (i < 0 || i >= output_count() || outputs_[i] == nullptr || !outputs_[i]->defined()) {
      return nullptr;
    }
    return outputs_[i];
  }
  std::span<std::byte> workspace() override { return workspace_; }
  Result<Tensor*> AllocateOutput(int i, Shape shape) override {
    if (i < 0 || i >= output_count() || outputs_[i] == nullptr || !dynamic_[i]) {
      return MakeStatus(StatusCode::kFailedPrecondition, "output ", i,
                        " was not declared dynamic in Prepare");
    }
    if (outputs_[i]->defined()) {
      return MakeStatus(StatusCode::kFailedPrecondition, "output ", i, " is already allocated");
    }
    NXRT_ASSIGN_OR_RETURN(*outputs_[i], Tensor::Allocate(pending_dtype(i), std::move(shape)));
    return outputs_[i];
  }
  void ParallelFor(int64_t n, int64_t min_chunk,
                   const std::function<void(int64_t, int64_t)>& fn) override {
    pool_.ParallelFor(n, min_chunk, fn);
  }
  int thread_count() const override { return pool_.num_threads(); }

 private:
  DataType pending_dtype(int i) const { return dtypes_[i]; }

  std::span<const Tensor* const> inputs_;
  std::span<Tensor*> outputs_;
  const std::vector<bool>& dynamic_;
  const std::vector<DataType>& dtypes_;
  std::span<std::byte> workspace_;
  ThreadPool& pool_;
};

}  // namespace

PlanInstance::PlanInstance(const GraphPlan& plan) : plan_(plan) {}
PlanInstance::~PlanInstance() = default;

Result<std::unique_ptr<PlanInstance>> PlanInstance::Create(const GraphPlan& plan) {
  std::unique_ptr<PlanInstance> inst(new PlanInstance(plan));
  inst->steps_.reserve(plan.steps.size());
  for (const StepPlan& step : plan.steps) {
    auto state = std::make_unique<StepState>();
    if (step.make_runtime_step) {
      state->runtime_step = step.make_runtime_step();
    } else {
      Result<std::unique_ptr<Kernel>> kernel = step.make_kernel();
      if (!kernel.ok()) return kernel.status().WithContext(step.description);
      state->kernel = std::move(kernel).value();
      state->value_inputs = state->kernel->ValueInputs();
      std::sort(state->value_inputs.begin(), state->value_inputs.end());
    }
    state->inputs.assign(step.inputs.size(), nullptr);
    state->tensors.assign(step.explicit_inputs, nullptr);
    state->out_tensors.resize(step.outputs.size());
    state->outs.assign(step.outputs.size(), nullptr);
    state->runtime_outputs.resize(step.outputs.size());
    inst->steps_.push_back(std::move(state));
  }
  const size_t n = plan.values.size();
  inst->values_.resize(n);
  inst->spare_.resize(n);
  inst->planned_offset_.assign(n, -1);
  inst->planned_bytes_.assign(n, -1);
  inst->seen_bytes_.assign(n, -1);
  return inst;
}

void PlanInstance::ReleaseBindings() {
  for (ir::ValueId v : plan_.inputs) values_[v] = Value();
  for (ir::ValueId v : plan_.outer_scope) {
    if (!plan_.values[v].constant_outer) values_[v] = Value();
  }
  for (ir::ValueId v : plan_.outputs) values_[v] = Value();
}

void PlanInstance::Drop(ir::ValueId v) {
  Value& slot = values_[v];
  if (arena_ && planned_offset_[v] >= 0 && slot.is_tensor() &&
      slot.tensor().raw_data() == arena_.get() + planned_offset_[v]) {
    spare_[v] = std::move(slot);
  }
  slot = Value();
}

Status PlanInstance::Run(ThreadPool& pool, std::span<StepCounters> counters,
                         std::vector<StepSpan>* spans) {
  const ir::Graph& g = *plan_.graph;
  for (const ir::Initializer& init : g.initializers) {
    if (!values_[init.value].defined()) values_[init.value] = Value(init.tensor);
  }
  std::fill(seen_bytes_.begin(), seen_bytes_.end(), -1);
  bool mismatch = false;
  Status status;
  failed_step_.reset();
  const bool timed = !counters.empty() || spans != nullptr;
  auto start = timed ? std::chrono::steady_clock::now() : std::chrono::steady_clock::time_point{};
  for (size_t s = 0; s < plan_.steps.size(); ++s) {
    if (steps_[s]->constant_done) continue;
    status = GuardedRunStep(s, pool);
    if (!status.ok()) {
      failed_step_ = s;
      break;
    }
    if (timed) {  // a step's time runs from the end of the step before
      const auto end = std::chrono::steady_clock::now();
      const double us = std::chrono::duration<double, std::micro>(end - start).count();
      if (!counters.empty()) {
        counters[s].calls += 1;
        counters[s].total_us += us;
      }
      if (spans != nullptr) spans->push_back(StepSpan{s, start, us});
      start = end;
    }
    for (ir::ValueId v : plan_.steps[s].outputs) {
      if (v != ir::kNoValue && seen_bytes_[v] >= 0 && seen_bytes_[v] != planned_bytes_[v]) {
        mismatch = true;
      }
    }
  }
  // Drop every intermediate still held (after an error, or values nobody read).
  for (size_t v = 0; v < values_.size(); ++v) {
    const ValuePlan& vp = plan_.values[v];
    if (vp.source == ValueSource::kStep && !vp.graph_output && !vp.pinned &&
        values_[v].defined()) {
      Drop(static_cast<ir::ValueId>(v));
    }
  }
  if (status.ok() && (mismatch || plan_mismatch_)) RebuildMemoryPlan();
  return status;
}

Status PlanInstance::GuardedRunStep(size_t index, ThreadPool& pool) {
  // A kernel's own containers (a pooling table, a Loop's growing scan output) can ask for more
  // than the system has: std::bad_alloc, or std::length_error for a size past max_size().
  try {
    return RunStep(index, pool);
  } catch (const std::bad_alloc&) {
    return MakeStatus(StatusCode::kOutOfMemory, plan_.steps[index].description,
                      ": out of memory while preparing or running it (its sizes ask for more "
                      "than the system has)");
  } catch (const std::length_error& e) {
    return MakeStatus(StatusCode::kOutOfMemory, plan_.steps[index].description,
                      ": a size it computed is too large to hold (", e.what(), ")");
  }
}

Status PlanInstance::RunStep(size_t index, ThreadPool& pool) {
  const StepPlan& step = plan_.steps[index];
  StepState& st = *steps_[index];
  std::vector<Value>& values = values_;

  std::vector<const Value*>& inputs = st.inputs;
  for (size_t i = 0; i < step.inputs.size(); ++i) {
    inputs[i] = nullptr;
    const ir::ValueId v = step.inputs[i];
    if (v == ir::kNoValue) continue;
    if (!values[v].defined()) {
      return MakeStatus(StatusCode::kInternal, step.description, ": input ", i, " '",
                        plan_.graph->values[v].name, "' has no value at run time");
    }
    inputs[i] = &values[v];
  }

  if (st.runtime_step) {
    std::vector<Value>& outs = st.runtime_outputs;  // unset between runs
    Status status = st.runtime_step->Run(inputs, outs, pool);
    for (size_t o = 0; o < step.outputs.size(); ++o) {
      if (status.ok() && step.outputs[o] != ir::kNoValue) {
        values[step.outputs[o]] = std::move(outs[o]);
      }
      outs[o] = Value();
    }
    NXRT_RETURN_IF_ERROR(status.WithContext(step.description));
  } else {
    // Kernels take tensors only (nxrt/kernel.h).
    std::vector<const Tensor*>& tensors = st.tensors;
    for (size_t i = 0; i < step.explicit_inputs; ++i) {
      tensors[i] = nullptr;
      if (inputs[i] == nullptr) continue;
      if (!inputs[i]->is_tensor()) {
        return MakeStatus(StatusCode::kInvalidModel, step.description, ": input ", i, " '",
                          plan_.graph->values[step.inputs[i]].name, "' is ",
                          inputs[i]->Description(), ", but this kernel takes tensors only; ",
                          "only sequence and optional ops accept sequences and optionals");
      }
      tensors[i] = &inputs[i]->tensor();
    }
    std::span<const Tensor* const> kernel_inputs(tensors.data(), tensors.size());
    // Prepare again only when shapes, dtypes or value-input contents changed.
    bool changed = !st.prepared;
    if (!changed) {
      for (size_t i = 0; i < kernel_inputs.size() && !changed; ++i) {
        const Tensor* t = kernel_inputs[i];
        const DataType dt = t ? t->dtype() : DataType::kUndefined;
        changed = dt != st.in_dtypes[i] || (t && t->shape() != st.in_shapes[i]);
      }
      for (size_t k = 0; k < st.value_inputs.size() && !changed; ++k) {
        const int i = st.value_inputs[k];
        if (i < static_cast<int>(kernel_inputs.size()) && kernel_inputs[i] != nullptr) {
          changed = !SameContents(*kernel_inputs[i], st.in_values[k]);
        }
      }
    }
    if (changed) {
      std::vector<bool> used(step.outputs.size());
      for (size_t o = 0; o < step.outputs.size(); ++o) {
        const ir::ValueId v = step.outputs[o];
        used[o] = v != ir::kNoValue &&
                  (plan_.values[v].graph_output || plan_.values[v].last_use_step >= 0);
      }
      PrepareContextImpl pctx(kernel_inputs, st.value_inputs, used, index, plan_);
      pctx.threads = pool.num_threads();
      pctx.Reset(step.outputs.size());
      st.prepared = false;
      NXRT_RETURN_IF_ERROR(st.kernel->Prepare(pctx).WithContext(step.description));
      prepacked_published_ = prepacked_published_ || pctx.published;
      for (size_t o = 0; o < step.outputs.size(); ++o) {
        if (step.outputs[o] != ir::kNoValue && !pctx.set[o]) {
          return MakeStatus(StatusCode::kInternal, step.description, ": the kernel's Prepare set ",
                            "no shape for output ", o, " '",
                            plan_.graph->values[step.outputs[o]].name, "'");
        }
      }
      st.out_dtypes = std::move(pctx.dtypes);
      st.out_shapes = std::move(pctx.shapes);
      st.out_dynamic = std::move(pctx.dynamic);
      st.workspace_bytes = pctx.workspace;
      if (pctx.in_place != st.in_place) {
        st.in_place = std::move(pctx.in_place);
        plan_mismatch_ = true;  // the memory plan follows the kernel's offer
      }
      st.in_dtypes.resize(kernel_inputs.size());
      st.in_shapes.resize(kernel_inputs.size());
      for (size_t i = 0; i < kernel_inputs.size(); ++i) {
        st.in_dtypes[i] = kernel_inputs[i] ? kernel_inputs[i]->dtype() : DataType::kUndefined;
        st.in_shapes[i] = kernel_inputs[i] ? kernel_inputs[i]->shape() : Shape{};
      }
      st.in_values.clear();
      for (int i : st.value_inputs) {
        if (i < static_cast<int>(kernel_inputs.size()) && kernel_inputs[i] != nullptr) {
          NXRT_ASSIGN_OR_RETURN(Tensor copy, kernel_inputs[i]->Clone());
          st.in_values.push_back(std::move(copy));
        } else {
          st.in_values.emplace_back();
        }
      }
      st.prepared = true;
    }
    // A copy this Prepare published lets the session free the original before Compute (the
    // kernel promised not to read it there), so the original, its copy and this step's outputs
    // are never all held at once (GPT-2's 154 MB head and its 26 MB of logits).
    if (prepacked_published_ && prepacked_hook_) {
      prepacked_published_ = false;
      prepacked_hook_(*this);
      for (size_t i = 0; i < step.explicit_inputs; ++i) {
        tensors[i] = inputs[i] != nullptr ? &inputs[i]->tensor() : nullptr;
      }
    }

    // Outputs: graph outputs, dynamic ones and constants are owned; intermediates go to the
    // arena when the memory plan has their exact size, reusing the tensor parked there by the
    // run before when it still fits.
    std::vector<Tensor*>& outs = st.outs;
    for (size_t o = 0; o < step.outputs.size(); ++o) {
      outs[o] = nullptr;
      const ir::ValueId v = step.outputs[o];
      if (v == ir::kNoValue) continue;
      Tensor& slot = st.out_tensors[o];
      if (st.out_dynamic[o]) {
        slot = Tensor();
        outs[o] = &slot;
        continue;
      }
      const ValuePlan& vp = plan_.values[v];
      NXRT_ASSIGN_OR_RETURN(int64_t count, ElementCount(st.out_shapes[o]));
      const int64_t bytes = count * static_cast<int64_t>(DataTypeSize(st.out_dtypes[o]));
      const bool arena_candidate =
          !vp.graph_output && !step.constant && st.out_dtypes[o] != DataType::kString;
      if (arena_candidate) seen_bytes_[v] = bytes;
      if (arena_candidate && arena_ && planned_bytes_[v] == bytes) {
        std::byte* at = arena_.get() + planned_offset_[v];
        Value& spare = spare_[v];
        if (spare.is_tensor() && spare.tensor().raw_data() == at &&
            spare.tensor().dtype() == st.out_dtypes[o] &&
            spare.tensor().shape() == st.out_shapes[o]) {
          values[v] = std::move(spare);
          spare = Value();
          // The slot holds this instance's own view of its arena; Compute writes through it.
          outs[o] = const_cast<Tensor*>(&values[v].tensor());
          continue;
        }
        slot = Tensor::Borrow(st.out_dtypes[o], st.out_shapes[o], at);
      } else {
        NXRT_ASSIGN_OR_RETURN(slot, Tensor::Allocate(st.out_dtypes[o], st.out_shapes[o]));
      }
      outs[o] = &slot;
    }
    if (st.workspace_bytes > workspace_bytes_) {
      NXRT_ASSIGN_OR_RETURN(workspace_, AlignedBuffer(st.workspace_bytes));
      workspace_bytes_ = st.workspace_bytes;
    }
    ComputeContextImpl cctx(kernel_inputs, outs, st.out_dynamic, st.out_dtypes,
                            std::span<std::byte>(workspace_.get(), st.workspace_bytes), pool);
    Status status = st.kernel->Compute(cctx).WithContext(step.description);
    for (size_t o = 0; o < step.outputs.size() && status.ok(); ++o) {
      if (step.outputs[o] != ir::kNoValue && st.out_dynamic[o] && !outs[o]->defined()) {
        status = MakeStatus(StatusCode::kInternal, step.description, ": dynamic output ", o,
                            " was never allocated by Compute");
      }
    }
    for (size_t o = 0; o < step.outputs.size(); ++o) {
      if (status.ok() && outs[o] == &st.out_tensors[o]) {
        values[step.outputs[o]] = Value(std::move(st.out_tensors[o]));
      }
      st.out_tensors[o] = Tensor();
    }
    NXRT_RETURN_IF_ERROR(status);
    if (step.constant) {
      // Bound for good as a view that keeps its owned buffer alive: a copy that leaves the run
      // (a graph output downstream, a sequence) is then cloned like any borrowed tensor.
      for (ir::ValueId v : step.outputs) {
        if (v == ir::kNoValue || !values[v].is_tensor()) continue;
        auto owner = std::make_shared<Tensor>(values[v].tensor());
        values[v] = Value(Tensor::Borrow(owner->dtype(), owner->shape(),
                                         owner->mutable_raw_data(), owner));
      }
      st.constant_done = true;
    }
  }

  // Free what this step was the last to read, and outputs nobody reads.
  for (ir::ValueId v : step.inputs) {
    if (v == ir::kNoValue) continue;
    const ValuePlan& vp = plan_.values[v];
    if (vp.source == ValueSource::kStep && !vp.graph_output && (!vp.pinned || vp.fold_only) &&
        vp.last_use_step == static_cast<int32_t>(index)) {
      Drop(v);
    }
  }
  for (ir::ValueId v : step.outputs) {
    if (v == ir::kNoValue) continue;
    const ValuePlan& vp = plan_.values[v];
    if (!vp.graph_output && (!vp.pinned || vp.fold_only) && vp.last_use_step < 0) Drop(v);
  }
  return Status::Ok();
}

std::vector<ir::ValueId> PlanInstance::InPlaceOwners(std::vector<int32_t>& last_step) const {
  const size_t n = seen_bytes_.size();
  std::vector<ir::ValueId> owner(n);
  last_step.assign(n, -1);
  for (size_t v = 0; v < n; ++v) {
    owner[v] = static_cast<ir::ValueId>(v);
    const ValuePlan& vp = plan_.values[v];
    last_step[v] = std::max(vp.producer_step, vp.last_use_step);
  }
  for (size_t s = 0; s < steps_.size(); ++s) {
    const StepPlan& step = plan_.steps[s];
    for (auto [o, i] : steps_[s]->in_place) {
      const ir::ValueId out = step.outputs[static_cast<size_t>(o)];
      const ir::ValueId in = step.inputs[static_cast<size_t>(i)];
      if (out == ir::kNoValue || in == ir::kNoValue || seen_bytes_[out] < 0 ||
          seen_bytes_[in] != seen_bytes_[out] || owner[out] != out) {
        continue;
      }
      // The input must die here: an intermediate of this graph read last by this step, once,
      // and its buffer's owner (itself, or the value it took over in place) must end with it.
      const ValuePlan& vp = plan_.values[in];
      const bool once = std::count(step.inputs.begin(), step.inputs.end(), in) == 1;
      const ir::ValueId root = owner[in];
      if (vp.source != ValueSource::kStep || vp.graph_output || vp.pinned || !once ||
          vp.last_use_step != static_cast<int32_t>(s) ||
          last_step[root] != static_cast<int32_t>(s)) {
        continue;
      }
      owner[out] = root;
      last_step[root] = std::max(last_step[root], last_step[out]);
    }
  }
  return owner;
}

void PlanInstance::RebuildMemoryPlan() {
  // A value taking over its input's buffer (in place) has no buffer of its own: its owner's
  // lifetime runs on to its last use.
  std::vector<int32_t> last_step;
  const std::vector<ir::ValueId> owner = InPlaceOwners(last_step);
  std::vector<BufferLifetime> lifetimes;
  std::vector<ir::ValueId> ids;
  for (size_t v = 0; v < seen_bytes_.size(); ++v) {
    if (seen_bytes_[v] < 0 || owner[v] != static_cast<ir::ValueId>(v)) continue;
    lifetimes.push_back({seen_bytes_[v], plan_.values[v].producer_step, last_step[v]});
    ids.push_back(static_cast<ir::ValueId>(v));
  }
  MemoryPlan mp = PlanMemory(lifetimes);
  Result<std::shared_ptr<std::byte>> arena = AlignedBuffer(static_cast<size_t>(mp.arena_bytes));
  std::fill(planned_offset_.begin(), planned_offset_.end(), -1);
  std::fill(planned_bytes_.begin(), planned_bytes_.end(), -1);
  std::fill(spare_.begin(), spare_.end(), Value());  // views of the old arena
  if (!arena.ok()) {  // runs go on with per-value buffers
    arena_.reset();
    plan_mismatch_ = true;
    return;
  }
  arena_ = std::move(arena).value();
  for (size_t k = 0; k < ids.size(); ++k) {
    planned_offset_[ids[k]] = mp.offsets[k];
    planned_bytes_[ids[k]] = lifetimes[k].size;
  }
  for (size_t v = 0; v < owner.size(); ++v) {
    if (seen_bytes_[v] >= 0 && owner[v] != static_cast<ir::ValueId>(v)) {
      planned_offset_[v] = planned_offset_[owner[v]];
      planned_bytes_[v] = seen_bytes_[v];
    }
  }
  plan_mismatch_ = false;
}

}  // namespace nxrt::runtime
