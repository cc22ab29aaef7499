// tools/nxrt/ep_flags.h: the `--ep` flag shared by `nxrt run` and `nxrt claims`.
#pragma once

#include <string>

#include "nxrt/session.h"

namespace nxrt::cli {

// Parses one --ep value: "TYPE" or "TYPE:key=value;key=value" (e.g. "cpu"). Errors
// (kInvalidArgument) quote the text and say the expected form.
Result<EpSpec> ParseEpFlag(const std::string& text);

}  // namespace nxrt::cli
