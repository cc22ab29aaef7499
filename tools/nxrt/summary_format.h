// tools/nxrt/summary_format.h: `nxrt inspect`'s text and JSON forms of a model's summary
// (nxrt/model_summary.h).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "nxrt/model_summary.h"

namespace nxrt::cli {

// Human-readable, several lines, ending in a newline.
std::string FormatSummary(const ModelSummary& summary, const std::string& model_path);
nlohmann::json SummaryToJson(const ModelSummary& summary, const std::string& model_path);

}  // namespace nxrt::cli
