// ep/kernel_host.h: the one place nxrt runs a Kernel (nxrt/kernel.h): Prepare when the inputs
// changed, then Compute, over a narrow step binding, with the kernel contract checked.
//
// Layer: nxrt_ep. The executor (runtime/executor.h), constant folding
// (optimizer/passes/constant_evaluator.h) and the kernel tests all drive kernels through a
// KernelHost, so a kernel that passes its tests meets the same contexts, capabilities, checks and
// messages under the executor. The host knows nothing of plans, graphs or memory planning: its
// caller fills a StepBinding (input tensors, which inputs are constant, which outputs are used,
// the thread pool), calls PrepareIfChanged, binds the outputs and the workspace wherever it
// keeps them (the executor: its arena; Run: buffers of their own), and calls Compute.
//
// A host also implements the PrepareContext extensions of nxrt's runtime: prepacked constants
// (ep/prepacked.h), kept in the binding's PrepackedCopies or the host's own, and in-place offers
// (ep/in_place.h), which it records for its caller to plan.
//
// The contract checks, made here and nowhere else: Prepare may read (input_value) only the
// inputs listed in ValueInputs() and the constant inputs, present ones only; it declares every
// present output (SetOutput/SetOutputDynamic) with a valid index, a dtype and no negative dim;
// Compute calls AllocateOutput once for each present output declared dynamic and for no other
// output. A violation is kKernelContractViolation, its message prefixed with the kernel's
// description (nxrt/kernel.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "core/thread_pool.h"
#include "nxrt/kernel.h"
#include "nxrt/status.h"
#include "nxrt/tensor.h"

namespace nxrt::ep {

// How the caller treats output slot `i` of a kernel.
enum class OutputUse : uint8_t {
  kOmitted,  // no value: Prepare need not declare it, nothing is bound (ComputeContext::output
             // is nullptr)
  kUnused,   // present but nobody reads it (PrepareContext::output_used is false)
  kUsed,
};

// The copies of constant inputs the kernels of one node (or fused claim) published with
// SetPrepacked (ep/prepacked.h), by input slot, shared by that node's kernels in every plan
// instance. Thread-safe.
class PrepackedCopies {
 public:
  void Set(int input, std::shared_ptr<const void> copy);
  // The copy of `input`, or null.
  std::shared_ptr<const void> Get(int input) const;
  bool Has(int input) const { return Get(input) != nullptr; }

 private:
  mutable std::mutex mutex_;
  std::map<int, std::shared_ptr<const void>> copies_;
};

// What one call of a kernel is bound to. The caller owns everything the spans point at; they
// must stay valid during PrepareIfChanged and Compute.
struct StepBinding {
  // Read by PrepareIfChanged and Compute.
  std::span<const Tensor* const> inputs;  // per input slot; nullptr for an omitted input
  // Input slots, ascending, whose contents Prepare may read besides the kernel's ValueInputs()
  // (constant initializers and values computed from them).
  std::span<const int> constant_inputs;
  std::span<const OutputUse> outputs_use;  // per output slot; its size is the output count
  ThreadPool* pool = nullptr;              // intra-op threads; nullptr: one, inline
  PrepackedCopies* prepacked = nullptr;    // nullptr: the host keeps its own
  // Read by Compute, bound after PrepareIfChanged from KernelHost::declared(): per output slot,
  // nullptr for an omitted one; a static output is a contiguous tensor of the declared dtype and
  // shape, a dynamic one an undefined tensor that AllocateOutput fills.
  std::span<Tensor* const> outputs;
  // At least declared().workspace_bytes, 64-byte aligned; Compute sees the first
  // workspace_bytes.
  std::span<std::byte> workspace;
  // Where AllocateOutput gets dynamic output `output`'s tensor (the executor: an EP's device
  // memory, ep/device_values.h); empty: Tensor::Allocate (host memory).
  std::function<Result<Tensor>(int output, DataType dtype, Shape shape)> allocate;
};

// What the last successful Prepare declared.
struct KernelDeclaration {
  struct Output {
    enum class State : uint8_t { kUndeclared, kStatic, kDynamic } state = State::kUndeclared;
    DataType dtype = DataType::kUndefined;
    Shape shape;  // kStatic only
  };
  std::vector<Output> outputs;  // per output slot
  size_t workspace_bytes = 0;
  std::vector<std::pair<int, int>> in_place;  // (output, input) offered by AllowInPlace
};

// What PrepareIfChanged did.
struct PrepareOutcome {
  bool prepared = false;          // Prepare ran (first call, or an input changed)
  bool published = false;         // ... and published a prepacked copy (SetPrepacked)
  bool in_place_changed = false;  // ... and offered other in-place pairs than the Prepare before
};

// Options of KernelHost::Run.
struct KernelRunOptions {
  std::vector<int> constant_inputs;                     // as StepBinding::constant_inputs
  std::vector<OutputUse> outputs{OutputUse::kUsed};     // per output slot
  ThreadPool* pool = nullptr;
};

class KernelHost {
 public:
  // `description` names the kernel in every error, e.g. "node 'Conv_3' (Conv, opset 17)".
  // Asks the kernel for its ValueInputs() once.
  KernelHost(std::unique_ptr<Kernel> kernel, std::string description);
  ~KernelHost();
  KernelHost(const KernelHost&) = delete;
  KernelHost& operator=(const KernelHost&) = delete;

  // Calls Prepare when this is the first call, when an input's presence, dtype or shape differs
  // from the last successful Prepare, or when the contents of a value input do; otherwise does
  // nothing. Errors: the kernel's, or kKernelContractViolation; both prefixed with the
  // description. After an error the next call prepares again.
  Result<PrepareOutcome> PrepareIfChanged(const StepBinding& binding);
  // Valid after a successful PrepareIfChanged.
  const KernelDeclaration& declared() const { return declared_; }
  // Calls Compute on the binding. Errors: the kernel's, kKernelContractViolation, kOutOfMemory
  // when a dynamic output cannot be allocated; prefixed with the description. kInternal when the
  // binding does not match the declaration (a bug of the caller).
  Status Compute(const StepBinding& binding);

  // PrepareIfChanged and Compute once on `inputs` (an undefined tensor is an omitted input), with
  // outputs and workspace in buffers of their own; for callers without a memory plan (constant
  // folding, kernel tests). Returns one tensor per output slot, undefined for omitted ones.
  Result<std::vector<Tensor>> Run(std::span<const Tensor> inputs,
                                  const KernelRunOptions& options = {});

 private:
  bool InputsChanged(const StepBinding& binding) const;
  Status RememberInputs(const StepBinding& binding);

  std::unique_ptr<Kernel> kernel_;
  std::string description_;
  std::vector<int> value_inputs_;  // ascending
  PrepackedCopies own_prepacked_;
  KernelDeclaration declared_;
  // The inputs of the last successful Prepare.
  bool prepared_ = false;
  std::vector<DataType> in_dtypes_;
  std::vector<Shape> in_shapes_;
  std::vector<Tensor> in_values_;  // per value input: a copy of its contents
};

}  // namespace nxrt::ep
