// tools/nxrt/main.cpp: entry point of the `nxrt` command-line tool (docs/cli.md): the verbs of
// verbs.inc, `--version`, and the exit codes of exit_codes.h.
#include <CLI/CLI.hpp>

#include <string>

#include "exit_codes.h"
#include "nxrt/version.h"
#include "verb.h"

int main(int argc, char** argv) {
  CLI::App app{"nxrt: run, inspect, place, benchmark and test ONNX models"};
  app.require_subcommand(1);
  app.footer(std::string(nxrt::cli::ExitCodesHelp()));
  app.set_version_flag("--version", [] {
    const nxrt::VersionInfo v = nxrt::GetVersionInfo();
    return "nxrt " + v.nxrt + "\nONNX Runtime C API served: " + v.ort_version +
           " (ORT_API_VERSION 1 to " + std::to_string(v.ort_api_version) +
           "; libonnxruntime.so.1 and plugin EPs)\noneDNN " + v.onednn;
  }, "Print nxrt's version, the ONNX Runtime API version it serves and oneDNN's, then exit");
  int exit_code = nxrt::cli::kExitOk;
#define NXRT_VERB(Name, stem) nxrt::cli::Add##Name##Command(app, exit_code);
#include "verbs.inc"
#undef NXRT_VERB
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? nxrt::cli::kExitOk : nxrt::cli::kExitUsage;
  }
  return exit_code;
}
