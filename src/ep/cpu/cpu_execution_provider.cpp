// ep/cpu/cpu_execution_provider.cpp: the CPU EP over its kernel table
// (ep/cpu/cpu_execution_provider.h).
//
// Layer: nxrt_ep_cpu.
#include "ep/cpu/cpu_execution_provider.h"

#include <string_view>

namespace nxrt::cpu {

CpuExecutionProvider::CpuExecutionProvider()
    : ExecutionProvider("cpu", Device{DeviceType::kCpu, 0}),
      table_status_(RegisterCpuKernels(registry_)) {}

Status CpuExecutionProvider::Initialize(const EpConfig& config) {
  if (!table_status_.ok()) return table_status_.WithContext("cpu kernel table");
  return config.CheckKeys(std::span<const std::string_view>());
}

KernelMatch CpuExecutionProvider::Supports(const NodeInfo& node) const {
  return registry_.Supports(node);
}

Result<std::unique_ptr<Kernel>> CpuExecutionProvider::CreateKernel(const NodeInfo& node) {
  return registry_.CreateKernel(node);
}

}  // namespace nxrt::cpu
