// tools/nxrt/ep_flags.cpp: see ep_flags.h.
#include "ep_flags.h"

#include <sstream>

namespace nxrt::cli {
namespace {

// "key=value;key=value" into `config`.
Status ParseOptions(const std::string& text, const std::string& options, EpConfig& config) {
  std::stringstream stream(options);
  std::string item;
  while (std::getline(stream, item, ';')) {
    if (item.empty()) continue;
    const size_t eq = item.find('=');
    if (eq == std::string::npos || eq == 0) {
      return MakeStatus(StatusCode::kInvalidArgument, "--ep '", text, "': option '", item,
                        "' is not of the form key=value");
    }
    config.Set(item.substr(0, eq), item.substr(eq + 1));
  }
  return Status::Ok();
}

Result<EpSpec> ParseOne(const std::string& text) {
  EpSpec spec;
  if (text.starts_with("plugin:")) {
    const size_t semicolon = text.find(';');
    spec.type = text.substr(0, semicolon);
    if (spec.type == "plugin:") {
      return MakeStatus(StatusCode::kInvalidArgument, "--ep '", text,
                        "' names no library; use plugin:/path/lib.so[:registration_name]");
    }
    if (semicolon != std::string::npos) {
      NXRT_RETURN_IF_ERROR(ParseOptions(text, text.substr(semicolon + 1), spec.config));
    }
    return spec;
  }
  const size_t colon = text.find(':');
  spec.type = text.substr(0, colon);
  if (spec.type.empty()) {
    return MakeStatus(StatusCode::kInvalidArgument, "--ep '", text,
                      "' names no EP; use TYPE or TYPE:key=value;key=value, e.g. cpu, or "
                      "plugin:/path/lib.so");
  }
  if (colon != std::string::npos) {
    NXRT_RETURN_IF_ERROR(ParseOptions(text, text.substr(colon + 1), spec.config));
  }
  return spec;
}

}  // namespace

Result<std::vector<EpSpec>> ParseEpFlags(const std::vector<std::string>& values) {
  std::vector<EpSpec> specs;
  for (const std::string& value : values) {
    std::stringstream stream(value);
    std::string item;
    while (std::getline(stream, item, ',')) {
      if (item.empty()) {
        return MakeStatus(StatusCode::kInvalidArgument, "--ep '", value,
                          "' has an empty entry; separate EPs with single commas");
      }
      NXRT_ASSIGN_OR_RETURN(EpSpec spec, ParseOne(item));
      specs.push_back(std::move(spec));
    }
  }
  return specs;
}

CLI::Validator NonNegative() {
  return CLI::Validator(
      [](std::string& value) -> std::string {
        double number = 0;
        if (!CLI::detail::lexical_cast(value, number)) {
          return "'" + value + "' is not a number; use 0 or more";
        }
        if (number < 0) return "'" + value + "' is negative; use 0 or more";
        return {};
      },
      "NONNEGATIVE");
}

void AddOptimizerFlags(CLI::App& cmd, OptimizerFlags& flags) {
  cmd.add_option("--opt-level", flags.level,
                 "Graph optimisation: 0 none, 1 basic (standard ONNX rewrites), 2 extended "
                 "(also nxrt's fused operators; CPU EP only)")
      ->check(CLI::Validator(
          [](std::string& value) -> std::string {
            if (value == "0" || value == "1" || value == "2") return {};
            return "'" + value + "' is not an optimisation level; use 0 (none), 1 (basic) or 2 "
                   "(extended)";
          },
          "0|1|2"))
      ->capture_default_str();
  cmd.add_option("--disable-pass", flags.disabled,
                 "Optimizer pass not to run, e.g. conv_bn_folding (repeatable, comma-separated)")
      ->delimiter(',');
}

}  // namespace nxrt::cli
