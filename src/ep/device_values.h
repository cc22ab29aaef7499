// ep/device_values.h: an optional EP capability: keeping values in the EP's own device memory
// between its steps, so that the runtime copies only where a value crosses into or out of it.
//
// Layer: nxrt_ep (internal: it names graph nodes). The ORT plugin host implements it for plugins
// whose memory is not host memory (src/ep/ort_plugin/device_memory.h). The plan builder asks each
// step of such an EP where its kernel reads each input and writes each output
// (StepMemoryOf); the runtime then allocates a step's device outputs with AllocateTensor (never in
// the arena), and wherever a value is read in another memory than the one it was written in, it
// inserts a copy step (runtime/device_copies.h) that runs CopyTensors, as ORT inserts its
// MemcpyFromHost/MemcpyToHost nodes and copies a run's feeds and fetches. Graph inputs, initializers, outer-scope values and the
// values of the runtime's own steps (control flow, sequences) live in host memory; graph outputs
// are copied back to it.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "ir/graph.h"
#include "nxrt/execution_provider.h"
#include "nxrt/status.h"
#include "nxrt/tensor.h"

namespace nxrt::ep {

class DeviceValues : public EpExtension {
 public:
  static constexpr std::string_view kExtensionName = "nxrt.device_values";

  // Per input and output slot of one step: 1 when the kernel reads/writes it in the EP's device
  // memory, 0 for host memory.
  struct StepMemory {
    std::vector<uint8_t> inputs;
    std::vector<uint8_t> outputs;
  };
  // The step of fused claim `fused_name` (FusedNodeInfo::name) with `inputs` and `outputs` slots.
  virtual StepMemory FusedStepMemory(std::string_view fused_name, size_t inputs,
                                     size_t outputs) const = 0;
  // The step of node `node` of `graph`, which the EP claimed alone.
  virtual StepMemory NodeStepMemory(const ir::Graph& graph, ir::NodeId node) const = 0;

  // A contiguous tensor of `dtype` and `shape` in the EP's device memory, contents undefined; the
  // memory is freed when the last copy of the tensor goes. Its data pointer is a device address
  // (readable through CopyTensor only). Errors: kOutOfMemory.
  virtual Result<Tensor> AllocateTensor(DataType dtype, Shape shape) = 0;
  // dst[i] = src[i] for every i, in one transfer (same dtype and shape, all contiguous): host →
  // device when `to_device`, else device → host. A copy to the host returns once `dst` holds the
  // data when `wait`; without it the data is there once the run ends (RunObserver::OnRunEnd),
  // which suits the graph outputs copied at the end of a run. Errors: the EP's, as
  // kRuntimeError.
  virtual Status CopyTensors(std::span<const Tensor* const> src, std::span<Tensor* const> dst,
                             bool to_device, bool wait) = 0;
};

}  // namespace nxrt::ep
