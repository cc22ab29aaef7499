// tools/nxrt/verb.h: what a verb of the `nxrt` CLI is. Each verb is one file, cmd_<stem>.cpp,
// defining
//   void Add<Name>Command(CLI::App& app, int& exit_code);
// which adds the subcommand with its flags to `app` (the shared ones through session_flags.h)
// and sets a callback that runs it and stores an exit code (exit_codes.h) in `exit_code`.
// Errors go to stderr as "nxrt <verb>: <message>" (Fail); results go to stdout; progress to
// stderr when it is a terminal (progress.h). The list of verbs is verbs.inc.
#pragma once

#include <CLI/CLI.hpp>

namespace nxrt::cli {

#define NXRT_VERB(Name, stem) void Add##Name##Command(CLI::App& app, int& exit_code);
#include "verbs.inc"
#undef NXRT_VERB

}  // namespace nxrt::cli
