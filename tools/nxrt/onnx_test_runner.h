// tools/nxrt/onnx_test_runner.h: runs ONNX backend test folders (model.onnx + test_data_set_*)
// through nxrt sessions and compares the outputs; the engine of `nxrt test-onnx`.
//
// A test folder holds model.onnx and test_data_set_N/{input_K.pb, output_K.pb} (TensorProto,
// SequenceProto or OptionalProto, chosen by the model's declared input/output kinds). A test
// passes when every data set's outputs match: same dtype and shape, integers, bools and strings
// equal, floating values within |got - want| <= atol + rtol * |want| (NaN matches NaN), the
// tolerances of ONNX's backend test runner (rtol 1e-3, atol 1e-7) unless told otherwise.
// Tests whose outputs are random draws (Bernoulli, Dropout in training mode) cannot match the
// data, which NumPy's generator produced: a short explicit list in onnx_test_runner.cpp checks
// them by dtype, shape and the values the op may produce instead, each entry with its reason.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "nxrt/session.h"

namespace nxrt::cli {

enum class TestOutcome { kPass, kFail, kError, kSkip };

// "pass", "fail", "error", "skip".
std::string_view TestOutcomeName(TestOutcome outcome);

struct TestResult {
  std::string name;  // "<suite>/<test>", e.g. "node/test_add"
  TestOutcome outcome = TestOutcome::kError;
  // Why it did not pass; on a pass, "" or, for a test checked by properties, how it was checked.
  std::string reason;
  double seconds = 0;
  // Which EPs ran the model's nodes (nodes_by_ep.h) in the placement the session ended with
  // (after an EP dropped while running); empty when no session was made.
  std::map<std::string, int64_t> nodes_by_ep;
  // EPs dropped, their nodes falling back to the CPU EP (Session::Warnings).
  std::vector<std::string> warnings;
};

struct TestRunOptions {
  double rtol = 1e-3;
  double atol = 1e-7;
  SessionOptions session;
};

// Runs one test folder. `name` labels the result.
TestResult RunOnnxTest(const std::filesystem::path& folder, const std::string& name,
                       const TestRunOptions& options);

// The test folders under `root`: `root` itself when it holds model.onnx, otherwise its
// subfolders that do, sorted by name. Labels are "<root folder name>/<test folder name>".
std::vector<std::pair<std::string, std::filesystem::path>> FindOnnxTests(
    const std::filesystem::path& root);

// Reads a manifest: one test label per line; '#' starts a comment; blank lines are ignored.
Result<std::set<std::string>> ReadManifest(const std::filesystem::path& path);

}  // namespace nxrt::cli
