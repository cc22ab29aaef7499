// tools/nxrt/ep_flags.h: the `--ep` flag shared by `nxrt run` and `nxrt claims`.
#pragma once

#include <string>
#include <vector>

#include "nxrt/session.h"

namespace nxrt::cli {

// Parses the --ep values (each may hold several EPs separated by ',') into EPs in priority
// order. An EP is "TYPE" or "TYPE:key=value;key=value" (e.g. "cpu"), or
// "plugin:/path/lib.so[:registration_name][;key=value...]" for an ORT plugin-EP library whose
// options reach the plugin as session config entries "ep.<ep_name>.<key>". Errors
// (kInvalidArgument) quote the text and say the expected form.
Result<std::vector<EpSpec>> ParseEpFlags(const std::vector<std::string>& values);

}  // namespace nxrt::cli
