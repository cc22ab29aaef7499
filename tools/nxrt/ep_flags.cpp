// tools/nxrt/ep_flags.cpp: see ep_flags.h.
#include "ep_flags.h"

#include <sstream>

namespace nxrt::cli {

Result<EpSpec> ParseEpFlag(const std::string& text) {
  EpSpec spec;
  const size_t colon = text.find(':');
  spec.type = text.substr(0, colon);
  if (spec.type.empty()) {
    return MakeStatus(StatusCode::kInvalidArgument, "--ep '", text,
                      "' names no EP; use TYPE or TYPE:key=value;key=value, e.g. cpu");
  }
  if (colon == std::string::npos) return spec;
  std::stringstream options(text.substr(colon + 1));
  std::string item;
  while (std::getline(options, item, ';')) {
    if (item.empty()) continue;
    const size_t eq = item.find('=');
    if (eq == std::string::npos || eq == 0) {
      return MakeStatus(StatusCode::kInvalidArgument, "--ep '", text, "': option '", item,
                        "' is not of the form key=value");
    }
    spec.config.Set(item.substr(0, eq), item.substr(eq + 1));
  }
  return spec;
}

}  // namespace nxrt::cli
