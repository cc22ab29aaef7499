// runtime/executor.cpp: the step loop of a run (see executor.h).
#include "runtime/executor.h"

#include <algorithm>
#include <chrono>
#include <limits>
#include <new>
#include <stdexcept>

namespace nxrt::runtime {

// What a PlanInstance keeps per step between runs.
struct PlanInstance::StepState {
  std::unique_ptr<ep::KernelHost> host;       // a kernel step,
  std::unique_ptr<RuntimeStep> runtime_step;  // or a runtime step
  bool constant_done = false;  // a constant step that ran: its outputs are bound for good
  std::vector<int> constant_inputs;         // explicit input slots constant in the plan
  std::vector<ep::OutputUse> outputs_use;   // per output slot
  // The kernel's binding: spans over the lists here, set once; workspace and pool per run.
  ep::StepBinding binding;
  // Scratch reused by every run (sized once): bound inputs, kernel inputs, output tensors.
  std::vector<const Value*> inputs;
  std::vector<const Tensor*> tensors;
  std::vector<Tensor> out_tensors;
  std::vector<Tensor*> outs;
  std::vector<Value> runtime_outputs;
};

namespace {

// Bytes of a `dtype` tensor of `shape`, saturated at INT64_MAX (a size past that cannot fit a
// memory limit anyway).
int64_t PlannedBytes(DataType dtype, const Shape& shape) {
  Result<int64_t> count = ElementCount(shape);
  if (!count.ok()) return std::numeric_limits<int64_t>::max();
  const size_t size = std::max<size_t>(DataTypeSize(dtype), 1);
  if (static_cast<uint64_t>(*count) > static_cast<uint64_t>(INT64_MAX) / size) {
    return std::numeric_limits<int64_t>::max();
  }
  return static_cast<int64_t>(DataTypeBytes(dtype, *count));
}

// A buffer of its own for a static output outside the arena (a graph output, a constant step's,
// a size the layout lacks), left uninitialised: a kernel writes every element of a static output,
// as it does into the arena's reused bytes. Tensor::Allocate's calloc would clear it, and glibc
// clears a size freed before and served again from its heap: 9-12% of a run of a one-op
// memory-bound model (Add, Relu on 800k floats). Strings (constructed) and empty tensors take
// Tensor::Allocate.
Result<Tensor> OwnOutputBuffer(DataType dtype, const Shape& shape) {
  NXRT_ASSIGN_OR_RETURN(int64_t count, ElementCount(shape));
  const size_t bytes = DataTypeBytes(dtype, count);
  if (dtype == DataType::kString || bytes == 0) return Tensor::Allocate(dtype, shape);
  NXRT_ASSIGN_OR_RETURN(std::shared_ptr<std::byte> buffer, AlignedBuffer(bytes));
  std::byte* data = buffer.get();
  return Tensor::Adopt(dtype, shape, data, std::move(buffer));
}

}  // namespace

PlanInstance::PlanInstance(const GraphPlan& plan)
    : plan_(plan), arena_(plan.values.size() + plan.steps.size()) {}
PlanInstance::~PlanInstance() = default;

Result<std::unique_ptr<PlanInstance>> PlanInstance::Create(const GraphPlan& plan) {
  std::unique_ptr<PlanInstance> inst(new PlanInstance(plan));
  inst->steps_.reserve(plan.steps.size());
  for (const StepPlan& step : plan.steps) {
    auto state = std::make_unique<StepState>();
    state->inputs.assign(step.inputs.size(), nullptr);
    state->tensors.assign(step.explicit_inputs, nullptr);
    state->out_tensors.resize(step.outputs.size());
    state->outs.assign(step.outputs.size(), nullptr);
    state->runtime_outputs.resize(step.outputs.size());
    if (step.make_runtime_step) {
      state->runtime_step = step.make_runtime_step();
    } else {
      Result<std::unique_ptr<Kernel>> kernel = step.make_kernel();
      if (!kernel.ok()) return kernel.status().WithContext(step.description);
      state->host = std::make_unique<ep::KernelHost>(std::move(kernel).value(), step.description);
      for (size_t i = 0; i < step.explicit_inputs; ++i) {
        const ir::ValueId v = step.inputs[i];
        if (v != ir::kNoValue && plan.Constant(v)) {
          state->constant_inputs.push_back(static_cast<int>(i));
        }
      }
      for (ir::ValueId v : step.outputs) {
        const bool used = v != ir::kNoValue &&
                          (plan.values[v].graph_output || plan.values[v].last_use_step >= 0);
        state->outputs_use.push_back(v == ir::kNoValue ? ep::OutputUse::kOmitted
                                     : used            ? ep::OutputUse::kUsed
                                                       : ep::OutputUse::kUnused);
      }
      ep::StepBinding& binding = state->binding;
      binding.inputs = state->tensors;
      binding.constant_inputs = state->constant_inputs;
      binding.outputs_use = state->outputs_use;
      binding.outputs = state->outs;
      binding.prepacked = step.prepacked.get();
      if (step.device != nullptr) {
        binding.allocate = [&step](int o, DataType dtype, Shape shape) -> Result<Tensor> {
          if (step.OutputOnDevice(static_cast<size_t>(o))) {
            return step.device->AllocateTensor(dtype, std::move(shape));
          }
          return Tensor::Allocate(dtype, std::move(shape));
        };
      }
    }
    inst->steps_.push_back(std::move(state));
  }
  inst->values_.resize(plan.values.size());
  inst->spare_.resize(plan.values.size());
  return inst;
}

void PlanInstance::ReleaseBindings() {
  for (ir::ValueId v : plan_.inputs) values_[v] = Value();
  for (ir::ValueId v : plan_.outer_scope) {
    if (!plan_.values[v].constant_outer) values_[v] = Value();
  }
  for (ir::ValueId v : plan_.outputs) values_[v] = Value();
}

Status PlanInstance::Run(ThreadPool& pool, const RunRecord& record) {
  const ir::Graph& g = *plan_.graph;
  for (const ir::Initializer& init : g.initializers) {
    if (!values_[init.value].defined()) values_[init.value] = Value(init.tensor);
  }
  arena_.BeginRun();
  record_ = &record;
  limits_ = record.limits;
  if (limits_ != nullptr && limits_->memory_limit_bytes > 0) charged_.resize(values_.size());
  Status status;
  failed_step_.reset();
  const bool timed = record.timed();
  auto start = timed ? std::chrono::steady_clock::now() : std::chrono::steady_clock::time_point{};
  for (size_t s = 0; s < plan_.steps.size(); ++s) {
    if (steps_[s]->constant_done) continue;
    if (limits_ != nullptr) {
      status = limits_->CheckStop(plan_.steps[s].description);
      if (!status.ok()) break;
    }
    if (progress_ != nullptr) {
      progress_->store(static_cast<int64_t>(plan_.stats_offset + s), std::memory_order_relaxed);
    }
    status = GuardedRunStep(s, pool);
    if (!status.ok()) {
      // A step stopped by a run limit did not fail: no EP is to blame.
      if (limits_ == nullptr || !limits_->stopped) failed_step_ = s;
      break;
    }
    if (timed) {  // a step's time runs from the end of the step before
      const auto end = std::chrono::steady_clock::now();
      const double us = std::chrono::duration<double, std::micro>(end - start).count();
      const size_t stat = plan_.stats_offset + s;
      if (!record.counters.empty()) {
        record.counters[stat].calls += 1;
        record.counters[stat].total_us += us;
      }
      if (record.spans != nullptr) {
        record.spans->push_back(StepSpan{stat, start, us, std::move(described_inputs_),
                                         std::move(described_outputs_)});
      }
      start = end;
    }
  }
  record_ = nullptr;
  // Drop every intermediate still held (after an error, or values nobody read).
  for (size_t v = 0; v < values_.size(); ++v) {
    const ValuePlan& vp = plan_.values[v];
    if (vp.source == ValueSource::kStep && !vp.graph_output && !vp.pinned &&
        values_[v].defined()) {
      Drop(static_cast<ir::ValueId>(v));
    }
  }
  // What leaves the run (its outputs, constants kept bound) is the caller's to count: a
  // control-flow step charges the values it makes of its bodies' outputs.
  for (ir::ValueId v = 0; v < static_cast<ir::ValueId>(charged_.size()); ++v) Release(v);
  limits_ = nullptr;
  if (status.ok() && arena_.stale()) RebuildArena();
  return status;
}

// A step is the pieces below, in order, always inlined into this one function (they are used in
// this file only): with -fPIC, GCC does not inline a function another library could interpose,
// and as separate functions the pieces cost 1.6 % more instructions and 8 % more instruction
// cache misses per run of openWakeWord's hey_jarvis (callgrind).
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
  NXRT_RETURN_IF_ERROR(BindInputs(index));
  NXRT_RETURN_IF_ERROR(steps_[index]->runtime_step ? RunRuntimeStep(index, pool)
                                                   : RunKernelStep(index, pool));
  if (record_->spans != nullptr) DescribeValues(index);
  DropAfter(index);
  return Status::Ok();
}

[[gnu::always_inline]] inline Status PlanInstance::BindInputs(size_t index) {
  const StepPlan& step = plan_.steps[index];
  std::vector<const Value*>& inputs = steps_[index]->inputs;
  for (size_t i = 0; i < step.inputs.size(); ++i) {
    inputs[i] = nullptr;
    const ir::ValueId v = step.inputs[i];
    if (v == ir::kNoValue) continue;
    if (!values_[v].defined()) {
      return MakeStatus(StatusCode::kInternal, step.description, ": input ", i, " '",
                        plan_.ValueName(v), "' has no value at run time");
    }
    inputs[i] = &values_[v];
  }
  return Status::Ok();
}

Status PlanInstance::RunRuntimeStep(size_t index, ThreadPool& pool) {
  const StepPlan& step = plan_.steps[index];
  StepState& st = *steps_[index];
  std::vector<Value>& outs = st.runtime_outputs;  // unset between runs
  Status status = st.runtime_step->Run(st.inputs, outs, pool, *record_);
  for (size_t o = 0; o < step.outputs.size(); ++o) {
    const ir::ValueId v = step.outputs[o];
    if (status.ok() && v != ir::kNoValue) {
      values_[v] = std::move(outs[o]);
      if (!charged_.empty()) {
        status = Charge(index, o, ValueBytes(values_[v]), [&] { return values_[v].Description(); });
      }
    }
    outs[o] = Value();
  }
  return status.WithContext(step.description);
}

[[gnu::always_inline]] inline Status PlanInstance::RunKernelStep(size_t index, ThreadPool& pool) {
  StepState& st = *steps_[index];
  NXRT_RETURN_IF_ERROR(BindKernelInputs(index));
  st.binding.pool = &pool;
  NXRT_ASSIGN_OR_RETURN(const ep::PrepareOutcome prepared, st.host->PrepareIfChanged(st.binding));
  if (prepared.in_place_changed) arena_.Invalidate();  // the layout follows the kernel's offers
  // A copy this Prepare published lets the session free the original before Compute (the
  // kernel promised not to read it there), so the original, its copy and this step's outputs
  // are never all held at once (GPT-2's 154 MB head and its 26 MB of logits).
  if (prepared.published && prepacked_hook_) {
    prepacked_hook_(*this);
    NXRT_RETURN_IF_ERROR(BindKernelInputs(index));
  }
  NXRT_RETURN_IF_ERROR(BindOutputs(index));
  NXRT_RETURN_IF_ERROR(BindWorkspace(index));
  const Status status = st.host->Compute(st.binding);
  CollectOutputs(index, status.ok());
  NXRT_RETURN_IF_ERROR(status);
  if (!charged_.empty()) NXRT_RETURN_IF_ERROR(ChargeDynamicOutputs(index));
  if (plan_.steps[index].constant) PinConstantOutputs(index);
  return Status::Ok();
}

[[gnu::always_inline]] inline Status PlanInstance::BindKernelInputs(size_t index) {
  // Kernels take tensors only (nxrt/kernel.h).
  const StepPlan& step = plan_.steps[index];
  StepState& st = *steps_[index];
  for (size_t i = 0; i < step.explicit_inputs; ++i) {
    const Value* in = st.inputs[i];
    st.tensors[i] = nullptr;
    if (in == nullptr) continue;
    if (!in->is_tensor()) {
      return MakeStatus(StatusCode::kInvalidModel, step.description, ": input ", i, " '",
                        plan_.ValueName(step.inputs[i]), "' is ", in->Description(),
                        ", but this kernel takes tensors only; ",
                        "only sequence and optional ops accept sequences and optionals");
    }
    st.tensors[i] = &in->tensor();
  }
  return Status::Ok();
}

[[gnu::always_inline]] inline Status PlanInstance::BindOutputs(size_t index) {
  const StepPlan& step = plan_.steps[index];
  StepState& st = *steps_[index];
  for (size_t o = 0; o < step.outputs.size(); ++o) {
    st.outs[o] = nullptr;
    if (step.outputs[o] == ir::kNoValue) continue;
    NXRT_ASSIGN_OR_RETURN(st.outs[o], BindOutput(index, o));
  }
  return Status::Ok();
}

[[gnu::always_inline]] inline Result<Tensor*> PlanInstance::BindOutput(size_t index, size_t o) {
  // Graph outputs, dynamic outputs and constants own their buffers; intermediates go to the
  // arena when the layout has their exact size, reusing the tensor parked there by the run
  // before when it still fits.
  const StepPlan& step = plan_.steps[index];
  StepState& st = *steps_[index];
  const ep::KernelDeclaration::Output& decl = st.host->declared().outputs[o];
  Tensor& slot = st.out_tensors[o];
  if (decl.state == ep::KernelDeclaration::Output::State::kDynamic) {
    slot = Tensor();
    return &slot;
  }
  const ir::ValueId v = step.outputs[o];
  if (!charged_.empty()) {
    NXRT_RETURN_IF_ERROR(Charge(index, o, PlannedBytes(decl.dtype, decl.shape), [&] {
      return std::string(DataTypeName(decl.dtype)) + ShapeToString(decl.shape);
    }));
  }
  if (step.OutputOnDevice(o)) {  // the EP's device memory, never the arena
    NXRT_ASSIGN_OR_RETURN(slot, step.device->AllocateTensor(decl.dtype, decl.shape));
    return &slot;
  }
  if (output_allocator_ && plan_.values[v].graph_output && !step.constant &&
      decl.dtype != DataType::kString) {
    NXRT_ASSIGN_OR_RETURN(slot, output_allocator_(v, decl.dtype, decl.shape));
    return &slot;
  }
  std::byte* at = nullptr;
  if (!plan_.values[v].graph_output && !step.constant && decl.dtype != DataType::kString) {
    NXRT_ASSIGN_OR_RETURN(int64_t count, ElementCount(decl.shape));
    at = arena_.Place(v, static_cast<int64_t>(DataTypeBytes(decl.dtype, count)));
  }
  if (at == nullptr) {
    NXRT_ASSIGN_OR_RETURN(slot, OwnOutputBuffer(decl.dtype, decl.shape));
    return &slot;
  }
  Value& spare = spare_[v];
  if (spare.is_tensor() && spare.tensor().raw_data() == at &&
      spare.tensor().dtype() == decl.dtype && spare.tensor().shape() == decl.shape) {
    values_[v] = std::move(spare);
    spare = Value();
    // The slot holds this instance's own view of its arena; Compute writes through it.
    return const_cast<Tensor*>(&values_[v].tensor());
  }
  slot = Tensor::Borrow(decl.dtype, decl.shape, at);
  return &slot;
}

[[gnu::always_inline]] inline Status PlanInstance::BindWorkspace(size_t index) {
  StepState& st = *steps_[index];
  const size_t bytes = st.host->declared().workspace_bytes;
  std::byte* at = nullptr;
  if (bytes > 0 && !charged_.empty()) {  // held during Compute only, with the step's outputs
    if (!limits_->TryCharge(static_cast<int64_t>(bytes))) {
      return limits_->OverMemoryLimit(static_cast<int64_t>(bytes),
                                      plan_.steps[index].description + ": its workspace");
    }
    limits_->Release(static_cast<int64_t>(bytes));
  }
  // A constant step runs once: its workspace is not worth a place in the layout.
  if (bytes > 0 && !plan_.steps[index].constant) {
    at = arena_.Place(WorkspaceBuffer(index), static_cast<int64_t>(bytes));
  }
  if (at == nullptr && bytes > fallback_workspace_bytes_) {
    NXRT_ASSIGN_OR_RETURN(fallback_workspace_, AlignedBuffer(bytes));
    fallback_workspace_bytes_ = bytes;
  }
  if (at == nullptr) at = fallback_workspace_.get();
  st.binding.workspace = std::span<std::byte>(at, bytes);
  return Status::Ok();
}

[[gnu::always_inline]] inline void PlanInstance::CollectOutputs(size_t index, bool ok) {
  const StepPlan& step = plan_.steps[index];
  StepState& st = *steps_[index];
  for (size_t o = 0; o < step.outputs.size(); ++o) {
    if (ok && st.outs[o] == &st.out_tensors[o]) {
      values_[step.outputs[o]] = Value(std::move(st.out_tensors[o]));
    }
    st.out_tensors[o] = Tensor();
  }
}

[[gnu::always_inline]] inline void PlanInstance::PinConstantOutputs(size_t index) {
  // Bound for good as a view that keeps its owned buffer alive: a copy that leaves the run
  // (a graph output downstream, a sequence) is then cloned like any borrowed tensor.
  for (ir::ValueId v : plan_.steps[index].outputs) {
    if (v == ir::kNoValue || !values_[v].is_tensor()) continue;
    auto owner = std::make_shared<Tensor>(values_[v].tensor());
    values_[v] =
        Value(Tensor::Borrow(owner->dtype(), owner->shape(), owner->mutable_raw_data(), owner));
  }
  steps_[index]->constant_done = true;
}

[[gnu::always_inline]] inline void PlanInstance::DropAfter(size_t index) {
  // Free what this step was the last to read, and outputs nobody reads.
  const StepPlan& step = plan_.steps[index];
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
}

[[gnu::always_inline]] inline void PlanInstance::Drop(ir::ValueId v) {
  if (!charged_.empty()) Release(v);
  Value& slot = values_[v];
  if (slot.is_tensor() && arena_.IsAt(v, slot.tensor().raw_data())) spare_[v] = std::move(slot);
  slot = Value();
}

template <typename Describe>
Status PlanInstance::Charge(size_t index, size_t o, int64_t bytes, Describe&& describe) {
  const StepPlan& step = plan_.steps[index];
  const ir::ValueId v = step.outputs[o];
  if (!limits_->TryCharge(bytes)) {
    return limits_->OverMemoryLimit(bytes, step.description + ": output " + std::to_string(o) +
                                               " '" + plan_.ValueName(v) + "' (" + describe() +
                                               ")");
  }
  charged_[v] += bytes;
  return Status::Ok();
}

Status PlanInstance::ChargeDynamicOutputs(size_t index) {
  const StepPlan& step = plan_.steps[index];
  const ep::KernelDeclaration& declared = steps_[index]->host->declared();
  for (size_t o = 0; o < step.outputs.size(); ++o) {
    const ir::ValueId v = step.outputs[o];
    if (v == ir::kNoValue || !values_[v].defined() ||
        declared.outputs[o].state != ep::KernelDeclaration::Output::State::kDynamic) {
      continue;
    }
    NXRT_RETURN_IF_ERROR(
        Charge(index, o, ValueBytes(values_[v]), [&] { return values_[v].Description(); }));
  }
  return Status::Ok();
}

void PlanInstance::Release(ir::ValueId v) {
  if (charged_[v] == 0) return;
  if (limits_ != nullptr) limits_->Release(charged_[v]);
  charged_[v] = 0;
}

void PlanInstance::DescribeValues(size_t index) {
  const StepPlan& step = plan_.steps[index];
  const std::vector<const Value*>& inputs = steps_[index]->inputs;
  described_inputs_.clear();
  for (size_t i = 0; i < step.explicit_inputs; ++i) {
    described_inputs_.push_back(inputs[i] != nullptr ? inputs[i]->Description() : "");
  }
  described_outputs_.clear();
  for (ir::ValueId v : step.outputs) {
    described_outputs_.push_back(v != ir::kNoValue ? values_[v].Description() : "");
  }
}

std::vector<ArenaUse> PlanInstance::ArenaUses() const {
  const size_t n = plan_.values.size();
  std::vector<ArenaUse> uses(n + plan_.steps.size());
  for (size_t v = 0; v < n; ++v) {
    const ValuePlan& vp = plan_.values[v];
    uses[v] = {vp.producer_step, std::max(vp.producer_step, vp.last_use_step), v};
  }
  for (size_t s = 0; s < plan_.steps.size(); ++s) {
    const int32_t step = static_cast<int32_t>(s);
    uses[WorkspaceBuffer(s)] = {step, step, WorkspaceBuffer(s)};
  }
  // In-place offers, in step order, so that a chain of them shares one buffer.
  for (size_t s = 0; s < steps_.size(); ++s) {
    if (!steps_[s]->host) continue;
    const StepPlan& step = plan_.steps[s];
    for (auto [o, i] : steps_[s]->host->declared().in_place) {
      const ir::ValueId out = step.outputs[static_cast<size_t>(o)];
      const ir::ValueId in = step.inputs[static_cast<size_t>(i)];
      if (out == ir::kNoValue || in == ir::kNoValue || arena_.seen(out) < 0 ||
          arena_.seen(in) != arena_.seen(out) || uses[out].owner != static_cast<size_t>(out)) {
        continue;
      }
      // The input must die here: an intermediate of this graph read last by this step, once,
      // and its buffer's owner (itself, or the value it took over in place) must end with it.
      const ValuePlan& vp = plan_.values[in];
      const bool once = std::count(step.inputs.begin(), step.inputs.end(), in) == 1;
      const size_t root = uses[in].owner;
      if (vp.source != ValueSource::kStep || vp.graph_output || vp.pinned || !once ||
          vp.last_use_step != static_cast<int32_t>(s) ||
          uses[root].last_step != static_cast<int32_t>(s)) {
        continue;
      }
      uses[out].owner = root;
      uses[root].last_step = std::max(uses[root].last_step, uses[out].last_step);
    }
  }
  return uses;
}

void PlanInstance::RebuildArena() {
  std::fill(spare_.begin(), spare_.end(), Value());  // views of the old layout
  fallback_workspace_.reset();
  fallback_workspace_bytes_ = 0;
  arena_.Rebuild(ArenaUses());
}

}  // namespace nxrt::runtime
