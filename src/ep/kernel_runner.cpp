// ep/kernel_runner.cpp: one Prepare/Compute cycle on host tensors (ep/kernel_runner.h).
//
// Layer: nxrt_ep.
#include "ep/kernel_runner.h"

#include <algorithm>
#include <cstdlib>
#include <memory>

namespace nxrt::ep {
namespace {

Status CheckShape(int i, DataType dtype, const Shape& shape) {
  if (dtype == DataType::kUndefined) {
    return MakeStatus(StatusCode::kInvalidArgument, "output ", i, " declared with dtype undefined");
  }
  for (int64_t d : shape) {
    if (d < 0) {
      return MakeStatus(StatusCode::kInvalidArgument, "output ", i, " declared with shape ",
                        ShapeToString(shape), ", which has a negative dim");
    }
  }
  return Status::Ok();
}

struct OutputDecl {
  enum class State { kUndeclared, kStatic, kDynamic } state = State::kUndeclared;
  DataType dtype = DataType::kUndefined;
  Shape shape;
};

class HostPrepareContext : public PrepareContext {
 public:
  HostPrepareContext(std::span<const Tensor> inputs, std::vector<int> readable,
                     const KernelRunOptions& options)
      : inputs_(inputs),
        readable_(std::move(readable)),
        options_(options),
        outputs_(options.output_count) {}

  int input_count() const override { return static_cast<int>(inputs_.size()); }
  bool has_input(int i) const override { return InRange(i) && inputs_[i].defined(); }
  DataType input_dtype(int i) const override {
    return InRange(i) ? inputs_[i].dtype() : DataType::kUndefined;
  }
  std::span<const int64_t> input_shape(int i) const override {
    if (!InRange(i)) return {};
    return inputs_[i].shape();
  }
  Result<const Tensor*> input_value(int i) const override {
    if (!has_input(i)) {
      return MakeStatus(StatusCode::kInvalidArgument, "input ", i,
                        InRange(i) ? " is omitted" : " does not exist");
    }
    if (std::find(readable_.begin(), readable_.end(), i) == readable_.end()) {
      return MakeStatus(StatusCode::kFailedPrecondition, "input ", i,
                        " is not a value input of this kernel; list it in ValueInputs()");
    }
    return &inputs_[i];
  }

  int output_count() const override { return static_cast<int>(outputs_.size()); }
  bool output_used(int i) const override {
    return std::find(options_.unused_outputs.begin(), options_.unused_outputs.end(), i) ==
           options_.unused_outputs.end();
  }
  Status SetOutput(int i, DataType dtype, Shape shape) override {
    NXRT_RETURN_IF_ERROR(CheckIndex(i));
    NXRT_RETURN_IF_ERROR(CheckShape(i, dtype, shape));
    outputs_[i] = {OutputDecl::State::kStatic, dtype, std::move(shape)};
    return Status::Ok();
  }
  Status SetOutputDynamic(int i, DataType dtype) override {
    NXRT_RETURN_IF_ERROR(CheckIndex(i));
    NXRT_RETURN_IF_ERROR(CheckShape(i, dtype, {}));
    outputs_[i] = {OutputDecl::State::kDynamic, dtype, {}};
    return Status::Ok();
  }
  void SetWorkspaceBytes(size_t bytes) override { workspace_bytes_ = bytes; }

  const std::vector<OutputDecl>& outputs() const { return outputs_; }
  size_t workspace_bytes() const { return workspace_bytes_; }

 private:
  bool InRange(int i) const { return i >= 0 && i < static_cast<int>(inputs_.size()); }
  Status CheckIndex(int i) const {
    if (i >= 0 && i < static_cast<int>(outputs_.size())) return Status::Ok();
    return MakeStatus(StatusCode::kInvalidArgument, "output ", i, " does not exist; the node has ",
                      outputs_.size(), " outputs");
  }

  std::span<const Tensor> inputs_;
  std::vector<int> readable_;
  const KernelRunOptions& options_;
  std::vector<OutputDecl> outputs_;
  size_t workspace_bytes_ = 0;
};

class HostComputeContext : public ComputeContext {
 public:
  HostComputeContext(std::span<const Tensor> inputs, const std::vector<OutputDecl>& decls,
                     std::vector<Tensor>& outputs, std::span<std::byte> workspace)
      : inputs_(inputs),
        decls_(decls),
        outputs_(outputs),
        workspace_(workspace),
        allocated_(decls.size(), false) {}

  int input_count() const override { return static_cast<int>(inputs_.size()); }
  const Tensor* input(int i) const override {
    if (i < 0 || i >= input_count() || !inputs_[i].defined()) return nullptr;
    return &inputs_[i];
  }
  int output_count() const override { return static_cast<int>(outputs_.size()); }
  Tensor* output(int i) override {
    if (i < 0 || i >= output_count() || !outputs_[i].defined()) return nullptr;
    return &outputs_[i];
  }
  std::span<std::byte> workspace() override { return workspace_; }
  Result<Tensor*> AllocateOutput(int i, Shape shape) override {
    if (i < 0 || i >= output_count() || decls_[i].state != OutputDecl::State::kDynamic) {
      return MakeStatus(StatusCode::kFailedPrecondition, "output ", i,
                        " was not declared dynamic in Prepare");
    }
    if (allocated_[i]) {
      return MakeStatus(StatusCode::kFailedPrecondition, "dynamic output ", i,
                        " is already allocated");
    }
    NXRT_RETURN_IF_ERROR(CheckShape(i, decls_[i].dtype, shape));
    NXRT_ASSIGN_OR_RETURN(outputs_[i], Tensor::Allocate(decls_[i].dtype, std::move(shape)));
    allocated_[i] = true;
    return &outputs_[i];
  }

  bool allocated(int i) const { return allocated_[i]; }

 private:
  std::span<const Tensor> inputs_;
  const std::vector<OutputDecl>& decls_;
  std::vector<Tensor>& outputs_;
  std::span<std::byte> workspace_;
  std::vector<bool> allocated_;
};

}  // namespace

Result<KernelRun> RunKernel(Kernel& kernel, std::span<const Tensor> inputs,
                            const KernelRunOptions& options) {
  std::vector<int> readable = kernel.ValueInputs();
  readable.insert(readable.end(), options.constant_inputs.begin(), options.constant_inputs.end());
  HostPrepareContext prepare(inputs, std::move(readable), options);
  NXRT_RETURN_IF_ERROR(kernel.Prepare(prepare));

  KernelRun run;
  run.workspace_bytes = prepare.workspace_bytes();
  run.outputs.resize(options.output_count);
  const std::vector<OutputDecl>& decls = prepare.outputs();
  for (int i = 0; i < options.output_count; ++i) {
    switch (decls[i].state) {
      case OutputDecl::State::kUndeclared:
        return MakeStatus(StatusCode::kFailedPrecondition, "output ", i,
                          " was not declared in Prepare (call SetOutput or SetOutputDynamic)");
      case OutputDecl::State::kStatic: {
        NXRT_ASSIGN_OR_RETURN(run.outputs[i], Tensor::Allocate(decls[i].dtype, decls[i].shape));
        break;
      }
      case OutputDecl::State::kDynamic:
        break;
    }
  }
  // 64-byte aligned, deliberately not zeroed: kernels must not rely on workspace contents.
  const size_t rounded = (run.workspace_bytes + 63) / 64 * 64;
  std::unique_ptr<std::byte, decltype(&std::free)> workspace(
      rounded ? static_cast<std::byte*>(std::aligned_alloc(64, rounded)) : nullptr, &std::free);
  if (rounded && workspace == nullptr) {
    return MakeStatus(StatusCode::kOutOfMemory, "cannot allocate a workspace of ",
                      run.workspace_bytes, " bytes");
  }
  HostComputeContext compute(inputs, decls, run.outputs,
                             std::span<std::byte>(workspace.get(), run.workspace_bytes));
  NXRT_RETURN_IF_ERROR(kernel.Compute(compute));
  for (int i = 0; i < options.output_count; ++i) {
    if (decls[i].state == OutputDecl::State::kDynamic && !compute.allocated(i)) {
      return MakeStatus(StatusCode::kFailedPrecondition, "dynamic output ", i,
                        " was not allocated in Compute (call AllocateOutput)");
    }
  }
  return run;
}

}  // namespace nxrt::ep
