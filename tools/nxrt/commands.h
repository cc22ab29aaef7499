// tools/nxrt/commands.h: the subcommands of the `nxrt` CLI. Each Add*Command registers one
// subcommand with its flags on `app`; the callback runs it and sets the exit code through
// `exit_code` (0 success, 1 the command failed, 2 bad usage). Errors are printed to stderr as
// "nxrt <command>: <message>".
#pragma once

#include <CLI/CLI.hpp>

namespace nxrt::cli {

// `nxrt inspect MODEL [--json]`: versions, inputs/outputs, op histogram, initializers, subgraphs.
void AddInspectCommand(CLI::App& app, int& exit_code);

// `nxrt run MODEL [--input NAME=FILE] [--dim N=V] [--ep cpu] [--threads N] [--output-dir D]`:
// runs a model once (or --repeat times) and prints each output's summary and the time.
void AddRunCommand(CLI::App& app, int& exit_code);

// `nxrt claims MODEL [--ep TYPE]... [--json]`: each EP's claims and declines with reasons, for
// every graph of the model, without running it.
void AddClaimsCommand(CLI::App& app, int& exit_code);

// `nxrt test-onnx DIR... [--manifest FILE]`: ONNX backend conformance tests with pass/fail/error/
// skip counts and a reason per failure; exits 1 on a regression against the manifest.
void AddTestOnnxCommand(CLI::App& app, int& exit_code);

// `nxrt bench MODEL [--threads N] [--warmup K] [--iterations N] [--min-seconds S] [--json]` plus
// the shared input flags: session-creation time, latency statistics and peak RSS.
void AddBenchCommand(CLI::App& app, int& exit_code);

}  // namespace nxrt::cli
