// tools/nxrt/ep_flags.h: the session flags shared by `nxrt run`, `bench` and `claims`: `--ep`,
// `--opt-level`, `--disable-pass`.
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "nxrt/session.h"

namespace nxrt::cli {

// Parses the --ep values (each may hold several EPs separated by ',') into EPs in priority
// order. An EP is "TYPE" or "TYPE:key=value;key=value" (e.g. "cpu"), or
// "plugin:/path/lib.so[:registration_name][;key=value...]" for an ORT plugin-EP library whose
// options reach the plugin as session config entries "ep.<ep_name>.<key>". Errors
// (kInvalidArgument) quote the text and say the expected form.
Result<std::vector<EpSpec>> ParseEpFlags(const std::vector<std::string>& values);

// Graph optimisation flags (SessionOptions::optimization_level, ::disabled_optimizers).
struct OptimizerFlags {
  int level = 2;
  std::vector<std::string> disabled;
};

// Accepts a number >= 0; otherwise the message names the value and the fix ("'-1' is negative; use
// 0 or more"), where CLI::NonNegativeNumber prints the range up to DBL_MAX.
CLI::Validator NonNegative();

// Adds `--opt-level N` (0 none, 1 basic, 2 extended; checked to be in range) and
// `--disable-pass NAME[,NAME...]` (repeatable; names are checked when the session is made).
void AddOptimizerFlags(CLI::App& cmd, OptimizerFlags& flags);

}  // namespace nxrt::cli
