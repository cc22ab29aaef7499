// runtime/ep_factory.h: execution providers by type name, as users write them in
// SessionOptions::providers and on the command line (`--ep cpu`, `--ep plugin:/path/lib.so`).
//
// Layer: nxrt_runtime. Types: "cpu" (the CPU EP, src/ep/cpu) and
// "plugin:/path/lib.so[:registration_name]" (an ORT plugin-EP library, src/ep/ort_plugin; the
// option "ep_name" picks one of its EPs when it offers several).
#pragma once

#include <memory>
#include <string>

#include "nxrt/ep_config.h"
#include "nxrt/execution_provider.h"
#include "nxrt/status.h"

namespace nxrt::runtime {

// A new, not yet initialized EP of type `type` configured later with `config` (read here only
// for a plugin's "ep_name"). Errors: kInvalidArgument naming an unknown type and the known
// types; for plugins, the library's loading errors (ort_plugin/plugin_library.h) and kNotFound
// when it offers no EP of the asked name.
Result<std::shared_ptr<ExecutionProvider>> MakeExecutionProvider(const std::string& type,
                                                                 const EpConfig& config = {});

}  // namespace nxrt::runtime
