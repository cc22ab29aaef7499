// runtime/ep_factory.cpp: see ep_factory.h.
#include "runtime/ep_factory.h"

#include "ep/cpu/cpu_execution_provider.h"
#include "ep/ort_plugin/plugin_ep.h"
#include "ep/ort_plugin/plugin_library.h"

namespace nxrt::runtime {

Result<std::shared_ptr<ExecutionProvider>> MakeExecutionProvider(const std::string& type,
                                                                 const EpConfig& config) {
  if (type == "cpu") return std::shared_ptr<ExecutionProvider>(new cpu::CpuExecutionProvider());
  if (type.starts_with("plugin:")) {
    NXRT_ASSIGN_OR_RETURN(ort_plugin::PluginSpec spec, ort_plugin::ParsePluginSpec(type));
    NXRT_ASSIGN_OR_RETURN(std::shared_ptr<ort_plugin::PluginLibrary> library,
                          ort_plugin::PluginLibrary::Load(spec.path, spec.registration_name));
    return ort_plugin::MakePluginExecutionProvider(
        std::move(library), config.GetString(ort_plugin::kEpNameOption, ""));
  }
  return MakeStatus(StatusCode::kInvalidArgument, "unknown execution provider type '", type,
                    "'; known types: cpu, plugin:/path/lib.so[:registration_name]");
}

}  // namespace nxrt::runtime
