// tools/nxrt/exit_codes.cpp: see exit_codes.h.
#include "exit_codes.h"

#include <iostream>

namespace nxrt::cli {

std::string_view ExitCodesHelp() {
  return "Exit codes (every verb):\n"
         "  0  what was asked happened\n"
         "  1  it did not: the model failed to load, place or run, a test failed, a manifest\n"
         "     entry was not found, nothing matched, a file could not be written\n"
         "  2  the command line is wrong: unknown flag, bad value, unknown input, EP or pass\n"
         "     name, an input of the wrong dtype or shape\n"
         "  3  done, but an EP that was asked for was dropped and the CPU EP ran its nodes\n"
         "     (--allow-fallback-warnings accepts that: exit 0)\n";
}

ExitCode ExitCodeFor(const Status& status) {
  return status.code() == StatusCode::kInvalidArgument ? kExitUsage : kExitFailed;
}

ExitCode Fail(std::string_view verb, const Status& status) {
  std::cerr << "nxrt " << verb << ": " << status.message() << "\n";
  return ExitCodeFor(status);
}

ExitCode Worse(ExitCode a, ExitCode b) {
  auto rank = [](ExitCode c) {
    switch (c) {
      case kExitUsage: return 3;
      case kExitFailed: return 2;
      case kExitFallback: return 1;
      case kExitOk: return 0;
    }
    return 0;
  };
  return rank(a) >= rank(b) ? a : b;
}

}  // namespace nxrt::cli
