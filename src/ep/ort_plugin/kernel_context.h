// ep/ort_plugin/kernel_context.h: the OrtKernelContext a plugin's Compute sees, over one call of
// an nxrt kernel (fused claims: OrtNodeComputeInfo::Compute; registry kernels:
// OrtKernelImpl::Compute).
//
// Layer: nxrt_ort_plugin (internal). Inputs are views of the bound tensors (gathered when
// strided); an output is allocated when the plugin first asks for it, with the shape it asks
// for. With a plugin whose memory is not host memory (device_memory.h), inputs are copied into
// device blocks from the plugin's allocator with one OrtDataTransferImpl::CopyTensors call before
// Compute, outputs are allocated there, and FinishOutputs copies them back with one more call;
// inputs and outputs a registry kernel keeps on the CPU (OrtMemTypeCPUInput/CPUOutput) stay in
// host memory.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "ep/ort_plugin/api_objects.h"
#include "ep/ort_plugin/device_memory.h"
#include "nxrt/kernel.h"
#include "nxrt/status.h"

namespace nxrt::ort_plugin {

// Buffers one kernel instance reuses from call to call (an instance is never computed by two
// threads at once).
struct KernelCallBuffers {
  std::vector<OrtValue> inputs;
  std::vector<OrtValue> outputs;
  std::vector<Tensor> contiguous;     // gathered copies of strided inputs
  std::vector<void*> device_blocks;   // device memory of this call, freed after it
  std::vector<OrtValue> host_values;  // host sides of device copies
  std::vector<const OrtValue*> copy_src;
  std::vector<OrtValue*> copy_dst;
};

// What a kernel tells its context.
struct KernelCallSpec {
  std::string_view name;  // "fused node 'x'", "node 'y'": how errors name the kernel
  // Plugin input j is the ComputeContext's input input_map[j] (fused claims may drop constant
  // inputs); empty: the identity.
  std::span<const int32_t> input_map;
  std::span<const DataType> output_dtypes;  // per output
  std::span<const uint8_t> omitted_outputs;    // per output; empty: none omitted
  std::span<const uint8_t> cpu_inputs;         // per plugin input: kept on the host; empty: none
  std::span<const uint8_t> cpu_outputs;        // per output: allocated on the host; empty: none
};

class HostKernelContext final : public OrtKernelContext {
 public:
  HostKernelContext(ComputeContext& ctx, const KernelCallSpec& spec, const OrtLogger* logger,
                    PluginDeviceMemory* device, KernelCallBuffers& buffers);
  ~HostKernelContext() override;

  // Binds the inputs (copying them into device memory when the plugin has its own). Errors: an
  // allocation or copy failure of the plugin's device memory.
  Status BindInputs();

  size_t InputCount() const override { return b_.inputs.size(); }
  size_t OutputCount() const override { return b_.outputs.size(); }
  const OrtValue* Input(size_t i) const override;
  OrtStatus* Output(size_t i, const int64_t* shape, size_t rank, OrtValue** out) override;
  const OrtLogger* Logger() const override { return logger_; }
  OrtStatus* ParallelFor(void (*fn)(void*, size_t), size_t total, size_t num_batch,
                         void* data) override;

  // After Compute: the first present output the plugin never asked for, or -1; with device
  // memory, copies every device output back into the host tensors of the step.
  Result<int> FinishOutputs();

 private:
  bool OnDevice(bool cpu_flag) const { return device_ != nullptr && !cpu_flag; }

  ComputeContext& ctx_;
  const KernelCallSpec& spec_;
  const OrtLogger* logger_;
  PluginDeviceMemory* device_;
  KernelCallBuffers& b_;
};

}  // namespace nxrt::ort_plugin
