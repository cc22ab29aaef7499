// tools/nxrt/test_report.h: the results of `nxrt test-onnx` as data: one TestResult as JSON
// (what a test's child process sends back, and the entries of --json), the whole run as JUnit
// XML (--junit FILE) and as one JSON object (--json), and the pass manifest (--manifest-out).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "onnx_test_runner.h"

namespace nxrt::cli {

// One test as the run saw it.
struct TestEntry {
  TestResult result;
  bool expected = false;    // listed in --manifest
  bool regression = false;  // listed in --manifest and did not pass
};

// The whole run.
struct TestRun {
  std::vector<TestEntry> tests;            // in the order run
  std::vector<std::string> missing;        // manifest entries not found (sorted)
  std::vector<std::string> empty_folders;  // folders given that hold no test
  bool manifest = false;                   // a --manifest was given
  std::vector<std::string> eps;            // the EP list, as given ("cpu" when none)
};

// "example_ep 3, cpu 1": the EPs that ran a test's nodes, "" when no session was made.
std::string NodesText(const TestResult& result);

// {"name", "outcome", "seconds", "reason", "nodes_by_ep", "warnings"}; and back. Errors from
// ResultFromJson: kInternal for JSON that is not such an object.
nlohmann::ordered_json ResultToJson(const TestResult& result);
Result<TestResult> ResultFromJson(const std::string& text);

// JUnit XML: <testsuites> with one <testsuite> per suite ("node", ...) and one <testcase
// classname="<suite>" name="<test>" time="<s>"> per test: <failure> for fail, <error> for error,
// <skipped> for skip and, with a manifest, for failures it does not list (expected ones), each
// with the reason as message and text; which EPs ran the nodes in <system-out>. Manifest
// entries not found are <error> test cases of their suite. Counts and times on every element.
std::string JUnitXml(const TestRun& run);

// {"eps", "manifest", "tests": [ResultToJson + "expected", "regression"], "missing",
//  "empty_folders", "totals": {"pass", "fail", "error", "skip"}}.
nlohmann::ordered_json RunJson(const TestRun& run);

// The manifest --manifest-out writes: a comment naming the EPs and flags, then the passing tests,
// one per line, sorted (ReadManifest reads it back).
std::string PassManifest(const TestRun& run, const std::string& flags);

}  // namespace nxrt::cli
