// ep/cpu/cpu_execution_provider.h: the CPU execution provider, nxrt's native host backend and the
// EP that takes every node no other EP claims.
//
// Layer: nxrt_ep_cpu. Supports and CreateKernel answer from one ep::OpRegistry filled once, in the
// constructor, by the explicit kernel table RegisterCpuKernels (cpu_kernels.cpp). Memory is host
// memory (ExecutionProvider's defaults). Kernels are glue (src/ep/cpu/kernels/<family>/) over the
// framework-free reference math of src/ep/cpu/math/<family>/.
// Options: none yet; Initialize rejects every key so that a typo is reported, not ignored.
#pragma once

#include <memory>

#include "ep/op_registry.h"
#include "nxrt/execution_provider.h"

namespace nxrt::cpu {

// Fills `registry` with every CPU kernel, family by family (kernels/register.h). Errors: the
// registry's, for a malformed or overlapping table entry.
Status RegisterCpuKernels(ep::OpRegistry& registry);

class CpuExecutionProvider final : public ExecutionProvider {
 public:
  // Type name "cpu", device cpu:0.
  CpuExecutionProvider();

  // Accepts an empty config only; reports a table error found by the constructor.
  Status Initialize(const EpConfig& config) override;

  // Supported when the table has a kernel for the node's op at its opset whose type constraints
  // accept the node's dtypes (and whose extra check accepts its attributes); otherwise the
  // registry's reason: unknown op, opset out of the covered ranges (listing them), or the input
  // whose dtype no kernel takes (listing the dtypes that are).
  KernelMatch Supports(const NodeInfo& node) const override;

  // The kernel of the entry Supports found. Errors: Supports' reason as kUnsupported, or the
  // factory's kInvalidModel for an attribute the op cannot take, naming node and attribute.
  Result<std::unique_ptr<Kernel>> CreateKernel(const NodeInfo& node) override;

  // The kernel table (for listings and tests).
  const ep::OpRegistry& registry() const { return registry_; }

 private:
  ep::OpRegistry registry_;
  Status table_status_;  // RegisterCpuKernels' result, returned by Initialize
};

}  // namespace nxrt::cpu
