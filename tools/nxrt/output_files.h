// tools/nxrt/output_files.h: the files `nxrt run --output-dir DIR` writes: one .npy per tensor
// output under a safe name, and DIR/manifest.json mapping each output name to its file.
//
// Output names are opaque strings (numbers, JSON text such as {"1": "a"}, paths such as a/b).
// The mapping (docs/cli.md): every byte outside [A-Za-z0-9_.-] becomes %XX (its value in
// upper-case hex) and a leading '.' becomes %2E, so that distinct names give distinct files,
// none hidden, none with a separator, space or quote; a name whose mapped form is longer than
// 120 bytes keeps its first 100 bytes (not splitting a %XX) followed by '~' and 16 hex digits of
// FNV-1a (64 bit) of the whole name. The extension (.npy) follows.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "nxrt/session.h"

namespace nxrt::cli {

// The file stem an output named `name` is written as (the mapping above).
std::string SafeFileStem(std::string_view name);

// What was written for one output.
struct WrittenOutput {
  std::string name;
  std::string file;  // the path written; "" for an output not written (not a tensor)
  std::string why_not;  // why not, when `file` is ""
};

// Writes each tensor output of `outputs` to `dir`/<SafeFileStem(name)>.npy (the folder is made
// if missing) and `dir`/manifest.json: {"model", "mapping", "outputs": [{"name", "file" (the
// file name in `dir`, or null), "dtype", "shape", "why_not" (when not written)}]}. Sequences
// and empty optionals are listed, not written. Errors: kIoError naming the path.
Result<std::vector<WrittenOutput>> WriteOutputs(const std::filesystem::path& dir,
                                                const std::string& model,
                                                const std::vector<NamedValue>& outputs);

}  // namespace nxrt::cli
