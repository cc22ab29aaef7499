// tools/nxrt/graphviz.h: DOT text → SVG with Graphviz's `dot` (Debian package graphviz), for
// `nxrt claims --format svg`.
#pragma once

#include <string>

#include "nxrt/status.h"

namespace nxrt::cli {

// Runs `dot -Tsvg` (found on PATH) on `dot_text` and returns its SVG. Errors: kNotImplemented
// when `dot` cannot be run (naming the package to install); kRuntimeError when it fails, with
// what it printed.
Result<std::string> DotToSvg(const std::string& dot_text);

}  // namespace nxrt::cli
