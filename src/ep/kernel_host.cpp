// ep/kernel_host.cpp: the kernel host's contexts and contract checks (ep/kernel_host.h).
//
// Layer: nxrt_ep.
#include "ep/kernel_host.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "ep/in_place.h"
#include "ep/prepacked.h"

namespace nxrt::ep {
namespace {

using OutputState = KernelDeclaration::Output::State;

// The one code and wording of a broken kernel contract; the host adds the kernel's description.
template <typename... Args>
Status Violation(const Args&... args) {
  return MakeStatus(kKernelContractViolation, "kernel contract (nxrt/kernel.h): ", args...);
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

Status CheckShape(const char* call, int i, const Shape& shape) {
  for (int64_t d : shape) {
    if (d < 0) {
      return Violation(call, "(", i, ") with shape ", ShapeToString(shape),
                       ", which has a negative dim");
    }
  }
  return Status::Ok();
}

class HostPrepareContext final : public PrepareContext,
                                 public PrepackedConstants,
                                 public InPlaceOutputs {
 public:
  HostPrepareContext(const StepBinding& binding, std::span<const int> value_inputs,
                     PrepackedCopies& prepacked, KernelDeclaration& declared)
      : binding_(binding), value_inputs_(value_inputs), prepacked_(prepacked),
        declared_(declared) {}

  int input_count() const override { return static_cast<int>(binding_.inputs.size()); }
  bool has_input(int i) const override {
    return i >= 0 && i < input_count() && binding_.inputs[i] != nullptr;
  }
  DataType input_dtype(int i) const override {
    return has_input(i) ? binding_.inputs[i]->dtype() : DataType::kUndefined;
  }
  std::span<const int64_t> input_shape(int i) const override {
    if (!has_input(i)) return {};
    return binding_.inputs[i]->shape();
  }
  Result<const Tensor*> input_value(int i) const override {
    if (i < 0 || i >= input_count()) {
      return Violation("input_value(", i, "): index out of range [0, ", input_count(), ")");
    }
    if (!has_input(i)) {
      return Violation("input_value(", i, ") of an omitted input; check has_input first");
    }
    if (!Listed(value_inputs_, i) && !Listed(binding_.constant_inputs, i)) {
      return Violation("Prepare read input ", i,
                       ", which is neither a constant nor a value input of this kernel; list it "
                       "in ValueInputs()");
    }
    return binding_.inputs[i];
  }

  int output_count() const override { return static_cast<int>(binding_.outputs_use.size()); }
  bool output_used(int i) const override {
    return i >= 0 && i < output_count() && binding_.outputs_use[i] == OutputUse::kUsed;
  }
  Status SetOutput(int i, DataType dtype, Shape shape) override {
    NXRT_RETURN_IF_ERROR(CheckDeclaration("SetOutput", i, dtype));
    NXRT_RETURN_IF_ERROR(CheckShape("SetOutput", i, shape));
    declared_.outputs[i] = {OutputState::kStatic, dtype, std::move(shape)};
    return Status::Ok();
  }
  Status SetOutputDynamic(int i, DataType dtype) override {
    NXRT_RETURN_IF_ERROR(CheckDeclaration("SetOutputDynamic", i, dtype));
    declared_.outputs[i] = {OutputState::kDynamic, dtype, {}};
    return Status::Ok();
  }
  void SetWorkspaceBytes(size_t bytes) override { declared_.workspace_bytes = bytes; }
  int thread_count() const override {
    return binding_.pool != nullptr ? binding_.pool->num_threads() : 1;
  }

  // ep::InPlaceOutputs: recorded for the caller's memory plan.
  void AllowInPlace(int output, int input) override {
    if (output >= 0 && output < output_count() && has_input(input)) {
      declared_.in_place.emplace_back(output, input);
    }
  }
  // ep::PrepackedConstants.
  void SetPrepacked(int i, std::shared_ptr<const void> copy) override {
    if (!has_input(i) || copy == nullptr) return;
    prepacked_.Set(i, std::move(copy));
    published = true;
  }
  std::shared_ptr<const void> Prepacked(int i) const override { return prepacked_.Get(i); }

  bool published = false;

 private:
  static bool Listed(std::span<const int> slots, int i) {
    return std::binary_search(slots.begin(), slots.end(), i);
  }
  Status CheckDeclaration(const char* call, int i, DataType dtype) const {
    if (i < 0 || i >= output_count()) {
      return Violation(call, "(", i, "): index out of range [0, ", output_count(), ")");
    }
    if (dtype == DataType::kUndefined) {
      return Violation(call, "(", i, ") with dtype undefined");
    }
    return Status::Ok();
  }

  const StepBinding& binding_;
  std::span<const int> value_inputs_;
  PrepackedCopies& prepacked_;
  KernelDeclaration& declared_;
};

class HostComputeContext final : public ComputeContext {
 public:
  HostComputeContext(const StepBinding& binding, const KernelDeclaration& declared)
      : binding_(binding), declared_(declared) {}

  int input_count() const override { return static_cast<int>(binding_.inputs.size()); }
  const Tensor* input(int i) const override {
    return i >= 0 && i < input_count() ? binding_.inputs[i] : nullptr;
  }
  int output_count() const override { return static_cast<int>(binding_.outputs.size()); }
  Tensor* output(int i) override {
    if (i < 0 || i >= output_count()) return nullptr;
    Tensor* t = binding_.outputs[i];
    return t != nullptr && t->defined() ? t : nullptr;
  }
  std::span<std::byte> workspace() override {
    return binding_.workspace.first(declared_.workspace_bytes);
  }
  Result<Tensor*> AllocateOutput(int i, Shape shape) override {
    if (i < 0 || i >= output_count() ||
        declared_.outputs[i].state != OutputState::kDynamic) {
      return Violation("AllocateOutput(", i, ") of an output Prepare did not declare dynamic; "
                       "call SetOutputDynamic in Prepare");
    }
    Tensor* t = binding_.outputs[i];
    if (t == nullptr) {
      return Violation("AllocateOutput(", i, ") of an omitted output; check output(", i,
                       ") != nullptr first");
    }
    if (t->defined()) {
      return Violation("AllocateOutput(", i, ") called twice; a dynamic output is allocated once");
    }
    NXRT_RETURN_IF_ERROR(CheckShape("AllocateOutput", i, shape));
    const DataType dtype = declared_.outputs[i].dtype;
    NXRT_ASSIGN_OR_RETURN(*t, binding_.allocate ? binding_.allocate(i, dtype, std::move(shape))
                                                : Tensor::Allocate(dtype, std::move(shape)));
    return t;
  }
  void ParallelFor(int64_t n, int64_t min_chunk,
                   const std::function<void(int64_t, int64_t)>& fn) override {
    if (binding_.pool != nullptr) {
      binding_.pool->ParallelFor(n, min_chunk, fn);
    } else {
      ComputeContext::ParallelFor(n, min_chunk, fn);
    }
  }
  int thread_count() const override {
    return binding_.pool != nullptr ? binding_.pool->num_threads() : 1;
  }

 private:
  const StepBinding& binding_;
  const KernelDeclaration& declared_;
};

}  // namespace

void PrepackedCopies::Set(int input, std::shared_ptr<const void> copy) {
  std::lock_guard<std::mutex> lock(mutex_);
  copies_[input] = std::move(copy);
}

std::shared_ptr<const void> PrepackedCopies::Get(int input) const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = copies_.find(input);
  return it == copies_.end() ? nullptr : it->second;
}

KernelHost::KernelHost(std::unique_ptr<Kernel> kernel, std::string description)
    : kernel_(std::move(kernel)), description_(std::move(description)) {
  value_inputs_ = kernel_->ValueInputs();
  std::sort(value_inputs_.begin(), value_inputs_.end());
}

KernelHost::~KernelHost() = default;

inline bool KernelHost::InputsChanged(const StepBinding& binding) const {
  const std::span<const Tensor* const> inputs = binding.inputs;
  if (!prepared_ || inputs.size() != in_dtypes_.size()) return true;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Tensor* t = inputs[i];
    const DataType dt = t != nullptr ? t->dtype() : DataType::kUndefined;
    if (dt != in_dtypes_[i] || (t != nullptr && t->shape() != in_shapes_[i])) return true;
  }
  for (size_t k = 0; k < value_inputs_.size(); ++k) {
    const int i = value_inputs_[k];
    if (i < static_cast<int>(inputs.size()) && inputs[i] != nullptr &&
        !SameContents(*inputs[i], in_values_[k])) {
      return true;
    }
  }
  return false;
}

Status KernelHost::RememberInputs(const StepBinding& binding) {
  const std::span<const Tensor* const> inputs = binding.inputs;
  in_dtypes_.resize(inputs.size());
  in_shapes_.resize(inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    in_dtypes_[i] = inputs[i] != nullptr ? inputs[i]->dtype() : DataType::kUndefined;
    in_shapes_[i] = inputs[i] != nullptr ? inputs[i]->shape() : Shape{};
  }
  in_values_.clear();
  for (int i : value_inputs_) {
    if (i < static_cast<int>(inputs.size()) && inputs[i] != nullptr) {
      NXRT_ASSIGN_OR_RETURN(Tensor copy, inputs[i]->Clone());
      in_values_.push_back(std::move(copy));
    } else {
      in_values_.emplace_back();
    }
  }
  return Status::Ok();
}

Result<PrepareOutcome> KernelHost::PrepareIfChanged(const StepBinding& binding) {
  PrepareOutcome outcome;
  if (!InputsChanged(binding)) return outcome;
  prepared_ = false;
  std::vector<std::pair<int, int>> in_place_before = std::move(declared_.in_place);
  declared_.outputs.assign(binding.outputs_use.size(), {});
  declared_.workspace_bytes = 0;
  declared_.in_place.clear();
  PrepackedCopies& prepacked = binding.prepacked != nullptr ? *binding.prepacked : own_prepacked_;
  HostPrepareContext ctx(binding, value_inputs_, prepacked, declared_);
  NXRT_RETURN_IF_ERROR(kernel_->Prepare(ctx).WithContext(description_));
  for (size_t o = 0; o < declared_.outputs.size(); ++o) {
    if (binding.outputs_use[o] != OutputUse::kOmitted &&
        declared_.outputs[o].state == OutputState::kUndeclared) {
      return Violation("Prepare declared no dtype and shape for output ", o,
                       "; call SetOutput or SetOutputDynamic")
          .WithContext(description_);
    }
  }
  NXRT_RETURN_IF_ERROR(RememberInputs(binding).WithContext(description_));
  prepared_ = true;
  outcome.prepared = true;
  outcome.published = ctx.published;
  outcome.in_place_changed = declared_.in_place != in_place_before;
  return outcome;
}

Status KernelHost::Compute(const StepBinding& binding) {
  if (!prepared_ || binding.outputs.size() != declared_.outputs.size() ||
      binding.workspace.size() < declared_.workspace_bytes) {
    return MakeStatus(StatusCode::kInternal, description_, ": Compute bound with ",
                      binding.outputs.size(), " outputs and ", binding.workspace.size(),
                      " workspace bytes after a Prepare that declared ", declared_.outputs.size(),
                      " and ", declared_.workspace_bytes, prepared_ ? "" : " (or failed)");
  }
  HostComputeContext ctx(binding, declared_);
  Status status = kernel_->Compute(ctx);
  if (!status.ok()) return status.WithContext(description_);
  for (size_t o = 0; o < binding.outputs.size(); ++o) {
    if (binding.outputs[o] != nullptr && declared_.outputs[o].state == OutputState::kDynamic &&
        !binding.outputs[o]->defined()) {
      return Violation("Compute did not allocate dynamic output ", o, "; call AllocateOutput once")
          .WithContext(description_);
    }
  }
  return Status::Ok();
}

Result<std::vector<Tensor>> KernelHost::Run(std::span<const Tensor> inputs,
                                            const KernelRunOptions& options) {
  std::vector<const Tensor*> bound(inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    bound[i] = inputs[i].defined() ? &inputs[i] : nullptr;
  }
  StepBinding binding;
  binding.inputs = bound;
  binding.constant_inputs = options.constant_inputs;
  binding.outputs_use = options.outputs;
  binding.pool = options.pool;
  NXRT_RETURN_IF_ERROR(PrepareIfChanged(binding));

  std::vector<Tensor> outputs(options.outputs.size());
  std::vector<Tensor*> outs(options.outputs.size(), nullptr);
  for (size_t o = 0; o < outputs.size(); ++o) {
    if (options.outputs[o] == OutputUse::kOmitted) continue;
    const KernelDeclaration::Output& decl = declared_.outputs[o];
    if (decl.state == OutputState::kStatic) {
      NXRT_ASSIGN_OR_RETURN(outputs[o], Tensor::Allocate(decl.dtype, decl.shape));
    }
    outs[o] = &outputs[o];
  }
  // 64-byte aligned, deliberately not zeroed: kernels must not rely on workspace contents.
  const size_t bytes = declared_.workspace_bytes;
  std::unique_ptr<std::byte, decltype(&std::free)> workspace(
      bytes > 0 ? static_cast<std::byte*>(std::aligned_alloc(64, (bytes + 63) / 64 * 64))
                : nullptr,
      &std::free);
  if (bytes > 0 && workspace == nullptr) {
    return MakeStatus(StatusCode::kOutOfMemory, description_, ": cannot allocate a workspace of ",
                      bytes, " bytes");
  }
  binding.outputs = outs;
  binding.workspace = std::span<std::byte>(workspace.get(), bytes);
  NXRT_RETURN_IF_ERROR(Compute(binding));
  return outputs;
}

}  // namespace nxrt::ep
