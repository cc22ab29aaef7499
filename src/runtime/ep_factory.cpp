// runtime/ep_factory.cpp: see ep_factory.h.
#include "runtime/ep_factory.h"

#include "ep/cpu/cpu_execution_provider.h"

namespace nxrt::runtime {

Result<std::shared_ptr<ExecutionProvider>> MakeExecutionProvider(const std::string& type) {
  if (type == "cpu") return std::shared_ptr<ExecutionProvider>(new cpu::CpuExecutionProvider());
  return MakeStatus(StatusCode::kInvalidArgument, "unknown execution provider type '", type,
                    "'; known types: cpu");
}

}  // namespace nxrt::runtime
