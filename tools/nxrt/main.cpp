// tools/nxrt/main.cpp: entry point of the `nxrt` command-line tool (see README.md for usage).
#include <CLI/CLI.hpp>

#include "commands.h"

int main(int argc, char** argv) {
  CLI::App app{"nxrt: run, inspect and test ONNX models"};
  app.require_subcommand(1);
  int exit_code = 0;
  nxrt::cli::AddInspectCommand(app, exit_code);
  nxrt::cli::AddRunCommand(app, exit_code);
  nxrt::cli::AddClaimsCommand(app, exit_code);
  nxrt::cli::AddTestOnnxCommand(app, exit_code);
  nxrt::cli::AddBenchCommand(app, exit_code);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  return exit_code;
}
