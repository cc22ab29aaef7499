// ep/ort_plugin/kernel_context.h: the OrtKernelContext a plugin's Compute sees, over one call of
// an nxrt kernel (fused claims: OrtNodeComputeInfo::Compute; registry kernels:
// OrtKernelImpl::Compute).
//
// Layer: nxrt_ort_plugin (internal). Inputs are views of the bound tensors (gathered when
// strided); an output is allocated when the plugin first asks for it, with the shape it asks
// for, through the step's ComputeContext. With a plugin whose memory is not host memory
// (device_memory.h), the runtime has already put each device input in that memory and allocates
// device outputs there (ep/device_values.h): the context labels them with the device's
// OrtMemoryInfo and checks that every device input lies in a block of that memory. Inputs and
// outputs a registry kernel keeps on the CPU (OrtMemTypeCPUInput/CPUOutput) are host memory.
// A stream-aware plugin's context carries the run's stream (sync_stream.h).
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
  std::vector<Tensor> contiguous;  // gathered copies of strided host inputs
};

// What a kernel tells its context.
struct KernelCallSpec {
  std::string_view name;  // "fused node 'x'", "node 'y' (Op)": how errors name the kernel
  // Plugin input j is the ComputeContext's input input_map[j] (fused claims may drop constant
  // inputs); empty: the identity.
  std::span<const int32_t> input_map;
  std::span<const uint8_t> omitted_outputs;  // per output: 1 omitted; empty: none omitted
  std::span<const uint8_t> cpu_inputs;       // per plugin input: 1 in host memory; empty: none
  std::span<const uint8_t> cpu_outputs;      // per output: 1 in host memory; empty: none
};

class HostKernelContext final : public OrtKernelContext {
 public:
  // `device` is the plugin's device memory (null: it computes in host memory); `stream` the
  // run's stream of a stream-aware plugin (null: none).
  HostKernelContext(ComputeContext& ctx, const KernelCallSpec& spec, const OrtLogger* logger,
                    PluginDeviceMemory* device, OrtSyncStream* stream, KernelCallBuffers& buffers);

  // Binds the inputs. Errors: kInternal when a device input does not lie in the plugin's device
  // memory (a runtime bug); gathering a strided input can run out of memory.
  Status BindInputs();

  size_t InputCount() const override { return b_.inputs.size(); }
  size_t OutputCount() const override { return b_.outputs.size(); }
  const OrtValue* Input(size_t i) const override;
  OrtStatus* Output(size_t i, const int64_t* shape, size_t rank, OrtValue** out) override;
  OrtValue* AllocatedOutput(size_t i) const override {
    return i < b_.outputs.size() && b_.outputs[i].data != nullptr ? &b_.outputs[i] : nullptr;
  }
  const OrtLogger* Logger() const override { return logger_; }
  OrtStatus* ParallelFor(void (*fn)(void*, size_t), size_t total, size_t num_batch,
                         void* data) override;
  OrtSyncStream* Stream() const override { return stream_; }

  // After Compute: the first present output the plugin never asked for, or -1.
  int MissingOutput() const;

 private:
  bool OnDevice(bool cpu_flag) const { return device_ != nullptr && !cpu_flag; }

  ComputeContext& ctx_;
  const KernelCallSpec& spec_;
  const OrtLogger* logger_;
  PluginDeviceMemory* device_;
  OrtSyncStream* stream_;
  KernelCallBuffers& b_;
};

}  // namespace nxrt::ort_plugin
