// tools/nxrt/commands.h: the subcommands of the `nxrt` CLI. Each Add*Command registers one
// subcommand with its flags on `app`; the callback runs it and sets the exit code through
// `exit_code` (0 success, 1 the command failed, 2 bad usage). Errors are printed to stderr as
// "nxrt <command>: <message>".
#pragma once

#include <CLI/CLI.hpp>

namespace nxrt::cli {

// `nxrt inspect MODEL [--json]`: versions, inputs/outputs, op histogram, initializers, subgraphs.
void AddInspectCommand(CLI::App& app, int& exit_code);

}  // namespace nxrt::cli
