// tools/nxrt/exit_codes.h: the exit codes of every `nxrt` verb, and how a verb reports an error.
//
// One table for all verbs (docs/cli.md, `nxrt --help`):
//   0  what was asked happened: the model ran, every test passed (or, with --manifest, every
//      test listed passed), the report or file was written
//   1  it did not: the model failed to load, place or run, a test failed or regressed, a manifest
//      names a test that was not found, a folder held no tests, a filter matched none, a
//      placement left nodes unplaced, a file could not be written
//   2  the command line is wrong: an unknown verb or flag, a value that does not parse, a name
//      the model does not have, an input of the wrong dtype or shape (kInvalidArgument)
//   3  it happened, but not as asked: an EP the user listed was dropped (it failed to load,
//      initialize, compile or compute) and the CPU EP ran its nodes; --allow-fallback-warnings
//      accepts that (exit 0)
// When several apply, the first in the order 2, 1, 3 wins.
#pragma once

#include <string_view>

#include "nxrt/status.h"

namespace nxrt::cli {

enum ExitCode : int {
  kExitOk = 0,
  kExitFailed = 1,
  kExitUsage = 2,
  kExitFallback = 3,
};

// The lines `nxrt --help` ends with (the table above, one line per code).
std::string_view ExitCodesHelp();

// The code for an error `status`: kExitUsage for kInvalidArgument, else kExitFailed.
ExitCode ExitCodeFor(const Status& status);

// Prints "nxrt <verb>: <message>" to stderr and returns ExitCodeFor(status).
ExitCode Fail(std::string_view verb, const Status& status);

// The more severe of two codes (2 over 1 over 3 over 0).
ExitCode Worse(ExitCode a, ExitCode b);

}  // namespace nxrt::cli
