// tests/fuzz/fuzz_target.h: what the fuzz targets share: a sandbox folder and the check every
// error goes through.
//
// Layer: tests. Linked into each libFuzzer target (NXRT_FUZZ builds) and into its replay binary
// (every test build), which runs the files of tests/fuzz_regressions through the same entry point.
#pragma once

#include <filesystem>

#include "nxrt/status.h"

namespace nxrt::fuzz {

// An empty folder made once per process (under the system's temp folder) and made the working
// folder, so that external data of a fuzzed model, relative to it or to the working folder, finds
// nothing to read.
const std::filesystem::path& EmptyFolder();

// A failure is fine when it is a Status with a code and a message; kInternal (a broken nxrt
// invariant) or an empty message aborts the process, which the fuzzer reports as a finding.
void CheckMessage(const Status& status);

}  // namespace nxrt::fuzz
