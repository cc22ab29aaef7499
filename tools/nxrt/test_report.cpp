// tools/nxrt/test_report.cpp: see test_report.h.
#include "test_report.h"

#include <algorithm>
#include <cstdio>
#include <map>

namespace nxrt::cli {
namespace {

using Json = nlohmann::ordered_json;

// `text` escaped for XML attribute values and character data; control characters other than
// tab, newline and carriage return (not allowed in XML 1.0) become '?'.
std::string Xml(std::string_view text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20 && c != '\t' && c != '\n' && c != '\r') {
          out += '?';
        } else {
          out += c;
        }
    }
  }
  return out;
}

std::string Seconds(double s) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3f", s);
  return text;
}

std::string SuiteOf(const std::string& name) { return name.substr(0, name.find('/')); }
std::string TestOf(const std::string& name) { return name.substr(name.find('/') + 1); }

}  // namespace

std::string NodesText(const TestResult& r) {
  std::string out;
  for (const auto& [ep, n] : r.nodes_by_ep) {
    if (!out.empty()) out += ", ";
    out += ep;
    out += ' ';
    out += std::to_string(n);
  }
  return out;
}

Json ResultToJson(const TestResult& r) {
  Json j;
  j["name"] = r.name;
  j["outcome"] = TestOutcomeName(r.outcome);
  j["seconds"] = r.seconds;
  j["reason"] = r.reason;
  j["nodes_by_ep"] = r.nodes_by_ep;
  j["warnings"] = r.warnings;
  return j;
}

Result<TestResult> ResultFromJson(const std::string& text) {
  const Json j = Json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object() || !j.contains("outcome") || !j["outcome"].is_string()) {
    return Status(StatusCode::kInternal, "the test process sent no result");
  }
  TestResult r;
  r.name = j.value("name", "");
  const std::string outcome = j["outcome"].get<std::string>();
  for (TestOutcome o : {TestOutcome::kPass, TestOutcome::kFail, TestOutcome::kError,
                        TestOutcome::kSkip}) {
    if (TestOutcomeName(o) == outcome) r.outcome = o;
  }
  r.seconds = j.value("seconds", 0.0);
  r.reason = j.value("reason", "");
  if (j.contains("nodes_by_ep")) {
    r.nodes_by_ep = j["nodes_by_ep"].get<std::map<std::string, int64_t>>();
  }
  if (j.contains("warnings")) r.warnings = j["warnings"].get<std::vector<std::string>>();
  return r;
}

std::string JUnitXml(const TestRun& run) {
  struct Suite {
    int tests = 0, failures = 0, errors = 0, skipped = 0;
    double time = 0;
    std::string cases;
  };
  std::map<std::string, Suite> suites;
  for (const TestEntry& e : run.tests) {
    const TestResult& r = e.result;
    Suite& suite = suites[SuiteOf(r.name)];
    suite.tests += 1;
    suite.time += r.seconds;
    std::string body;
    const std::string message = r.reason.substr(0, r.reason.find('\n'));
    const bool expected_failure =
        run.manifest && !e.expected && r.outcome != TestOutcome::kPass;
    if (expected_failure || r.outcome == TestOutcome::kSkip) {
      suite.skipped += 1;
      body = "<skipped message=\"" +
             Xml((expected_failure ? "expected (not in the manifest): " : "") + message) + "\"/>";
    } else if (r.outcome == TestOutcome::kFail) {
      suite.failures += 1;
      body = "<failure message=\"" + Xml(message) + "\">" + Xml(r.reason) + "</failure>";
    } else if (r.outcome == TestOutcome::kError) {
      suite.errors += 1;
      body = "<error message=\"" + Xml(message) + "\">" + Xml(r.reason) + "</error>";
    }
    std::string out = r.nodes_by_ep.empty() ? "" : "nodes: " + NodesText(r);
    for (const std::string& w : r.warnings) {
      if (!out.empty()) out += '\n';
      out += "warning: ";
      out += w;
    }
    if (!out.empty()) body += "<system-out>" + Xml(out) + "</system-out>";
    suite.cases += "    <testcase classname=\"" + Xml(SuiteOf(r.name)) + "\" name=\"" +
                   Xml(TestOf(r.name)) + "\" time=\"" + Seconds(r.seconds) + "\"" +
                   (body.empty() ? "/>\n" : ">" + body + "</testcase>\n");
  }
  for (const std::string& name : run.missing) {
    Suite& suite = suites[SuiteOf(name)];
    suite.tests += 1;
    suite.errors += 1;
    suite.cases += "    <testcase classname=\"" + Xml(SuiteOf(name)) + "\" name=\"" +
                   Xml(TestOf(name)) +
                   "\" time=\"0.000\"><error message=\"listed in the manifest but not found\"/>"
                   "</testcase>\n";
  }
  Suite all;
  std::string body;
  for (const auto& [name, s] : suites) {
    all.tests += s.tests;
    all.failures += s.failures;
    all.errors += s.errors;
    all.skipped += s.skipped;
    all.time += s.time;
    body += "  <testsuite name=\"" + Xml(name) + "\" tests=\"" + std::to_string(s.tests) +
            "\" failures=\"" + std::to_string(s.failures) + "\" errors=\"" +
            std::to_string(s.errors) + "\" skipped=\"" + std::to_string(s.skipped) +
            "\" time=\"" + Seconds(s.time) + "\">\n" + s.cases + "  </testsuite>\n";
  }
  return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"nxrt test-onnx\" "
         "tests=\"" + std::to_string(all.tests) + "\" failures=\"" + std::to_string(all.failures) +
         "\" errors=\"" + std::to_string(all.errors) + "\" skipped=\"" +
         std::to_string(all.skipped) + "\" time=\"" + Seconds(all.time) + "\">\n" + body +
         "</testsuites>\n";
}

Json RunJson(const TestRun& run) {
  Json j;
  j["eps"] = run.eps;
  j["manifest"] = run.manifest;
  Json tests = Json::array();
  std::map<std::string, int> totals = {{"pass", 0}, {"fail", 0}, {"error", 0}, {"skip", 0}};
  for (const TestEntry& e : run.tests) {
    Json t = ResultToJson(e.result);
    t["expected"] = e.expected;
    t["regression"] = e.regression;
    tests.push_back(std::move(t));
    totals[std::string(TestOutcomeName(e.result.outcome))] += 1;
  }
  j["tests"] = std::move(tests);
  j["missing"] = run.missing;
  j["empty_folders"] = run.empty_folders;
  j["totals"] = totals;
  return j;
}

std::string PassManifest(const TestRun& run, const std::string& flags) {
  std::vector<std::string> passed;
  for (const TestEntry& e : run.tests) {
    if (e.result.outcome == TestOutcome::kPass) passed.push_back(e.result.name);
  }
  std::sort(passed.begin(), passed.end());
  std::string out = "# ONNX backend tests that pass with: nxrt test-onnx" + flags +
                    " (written by --manifest-out)\n";
  for (const std::string& name : passed) out += name + "\n";
  return out;
}

}  // namespace nxrt::cli
