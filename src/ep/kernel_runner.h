// ep/kernel_runner.h: runs one Kernel once on host tensors, the way the executor does:
// Prepare, allocate the outputs and the workspace, Compute, collect dynamic outputs.
//
// Layer: nxrt_ep. For kernel tests (CPU EP kernels against their reference math) and for tools
// that run a single node. It enforces the Kernel contract (nxrt/kernel.h), so a kernel that
// passes here behaves under the real executor: Prepare may read only declared value inputs and
// constant inputs, must declare every output, and Compute must allocate each dynamic output
// exactly once.
#pragma once

#include <span>
#include <vector>

#include "nxrt/kernel.h"
#include "nxrt/status.h"
#include "nxrt/tensor.h"

namespace nxrt::ep {

struct KernelRunOptions {
  int output_count = 1;
  // Input indices Prepare may read besides the kernel's ValueInputs() (constant initializers).
  std::vector<int> constant_inputs;
  // Outputs nobody reads (PrepareContext::output_used answers false for them).
  std::vector<int> unused_outputs;
};

struct KernelRun {
  std::vector<Tensor> outputs;  // one per output, contiguous, owned
  size_t workspace_bytes = 0;   // what Prepare asked for
};

// Runs `kernel` on `inputs` (an undefined Tensor is an omitted optional input).
// Errors: the kernel's own, or kFailedPrecondition for a broken contract ("output 1 was not
// declared in Prepare", "dynamic output 0 was not allocated in Compute").
Result<KernelRun> RunKernel(Kernel& kernel, std::span<const Tensor> inputs,
                            const KernelRunOptions& options = {});

}  // namespace nxrt::ep
