// runtime/ep_factory.h: execution providers by type name, as users write them in
// SessionOptions::providers and on the command line (`--ep cpu`).
//
// Layer: nxrt_runtime. Built-in types: "cpu" (the CPU EP, src/ep/cpu).
#pragma once

#include <memory>
#include <string>

#include "nxrt/execution_provider.h"
#include "nxrt/status.h"

namespace nxrt::runtime {

// A new, not yet initialized EP of type `type`. Errors: kInvalidArgument naming the type and the
// known types.
Result<std::shared_ptr<ExecutionProvider>> MakeExecutionProvider(const std::string& type);

}  // namespace nxrt::runtime
