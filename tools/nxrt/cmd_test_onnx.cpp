// tools/nxrt/cmd_test_onnx.cpp: `nxrt test-onnx DIR...`: the ONNX backend conformance runner.
// Each test runs in a child process (a crash or a hang fails that test, not the run) on the EPs
// of --ep (a plugin EP library too, with or without --no-fallback), and each result says which
// EPs ran the test's nodes. Without --manifest every test must pass; with it, the tests it lists
// must pass (the others may fail: they are expected to), and each entry must name a test found
// under the folders given. A folder without tests is reported and the others still run; a
// filter that matches nothing is an error. Results as text, JSON (--json) and JUnit XML
// (--junit FILE); --manifest-out FILE writes the passing tests as a manifest.
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <set>

#include "nxrt/placement.h"
#include "onnx_test_runner.h"
#include "progress.h"
#include "session_flags.h"
#include "test_report.h"
#include "verb.h"

namespace nxrt::cli {
namespace {

struct TestOnnxFlags {
  std::vector<std::string> dirs;
  std::string manifest;
  std::string manifest_out;
  std::string junit;
  std::string filter;
  double rtol = 1e-3;
  double atol = 1e-7;
  int timeout = 120;
  bool verbose = false;
  SessionFlags flags;
};

// Runs one test in a forked child, which sends its result as JSON (ResultToJson) through a pipe.
TestResult RunIsolated(const std::filesystem::path& folder, const std::string& name,
                       const TestRunOptions& options, int timeout_seconds) {
  int fds[2];
  if (pipe(fds) != 0) return RunOnnxTest(folder, name, options);
  const pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]);
    close(fds[1]);
    return RunOnnxTest(folder, name, options);
  }
  if (pid == 0) {
    close(fds[0]);
    const std::string msg = ResultToJson(RunOnnxTest(folder, name, options)).dump();
    size_t off = 0;
    while (off < msg.size()) {
      const ssize_t w = write(fds[1], msg.data() + off, msg.size() - off);
      if (w <= 0) break;
      off += static_cast<size_t>(w);
    }
    _exit(0);
  }
  close(fds[1]);
  std::string data;
  char buf[4096];
  bool timed_out = false;
  for (;;) {
    pollfd p{fds[0], POLLIN, 0};
    const int ready = poll(&p, 1, timeout_seconds * 1000);
    if (ready == 0) {
      timed_out = true;
      kill(pid, SIGKILL);
      break;
    }
    const ssize_t n = read(fds[0], buf, sizeof buf);
    if (n <= 0) break;
    data.append(buf, static_cast<size_t>(n));
  }
  close(fds[0]);
  int wstatus = 0;
  waitpid(pid, &wstatus, 0);
  TestResult r;
  r.name = name;
  if (timed_out) {
    r.outcome = TestOutcome::kError;
    r.reason = "timed out after " + std::to_string(timeout_seconds) + " s";
    return r;
  }
  if (WIFSIGNALED(wstatus)) {
    r.outcome = TestOutcome::kError;
    r.reason = std::string("crashed with signal ") + strsignal(WTERMSIG(wstatus));
    return r;
  }
  Result<TestResult> sent = ResultFromJson(data);
  if (!sent.ok()) {
    r.outcome = TestOutcome::kError;
    r.reason = "the test process exited without a result";
    return r;
  }
  return std::move(sent).value();
}

// The flags that decide what passes, for the header of --manifest-out.
std::string FlagsText(const TestOnnxFlags& o) {
  std::string text;
  for (const std::string& ep : o.flags.eps) text += " --ep '" + ep + "'";
  for (const std::string& option : o.flags.ep_options) text += " --ep-option '" + option + "'";
  if (o.flags.no_fallback) text += " --no-fallback";
  if (o.flags.opt_level != 2) text += " --opt-level " + std::to_string(o.flags.opt_level);
  for (const std::string& pass : o.flags.disabled_passes) text += " --disable-pass " + pass;
  if (o.flags.time_limit_ms > 0) {
    text += " --time-limit-ms " + std::to_string(o.flags.time_limit_ms);
  }
  if (o.flags.loop_trip_limit > 0) {
    text += " --loop-trip-limit " + std::to_string(o.flags.loop_trip_limit);
  }
  if (o.flags.memory_limit_mb > 0) {
    text += " --memory-limit-mb " + std::to_string(o.flags.memory_limit_mb);
  }
  return text;
}

int TestOnnx(const TestOnnxFlags& o) {
  const SessionFlags& f = o.flags;
  NoteIgnoredFlags(f);
  Result<SessionOptions> session_options = MakeSessionOptions(f);
  if (!session_options.ok()) return Fail("test-onnx", session_options.status());
  std::set<std::string> expected;
  if (!o.manifest.empty()) {
    Result<std::set<std::string>> m = ReadManifest(o.manifest);
    if (!m.ok()) return Fail("test-onnx", m.status());
    expected = std::move(m).value();
  }
  TestRunOptions options;
  options.rtol = o.rtol;
  options.atol = o.atol;
  options.session = *session_options;
  options.session.enable_profiling = false;

  TestRun run;
  run.manifest = !o.manifest.empty();
  for (const EpSpec& spec : session_options->providers) run.eps.push_back(spec.type);
  if (run.eps.empty()) run.eps.push_back("cpu");
  const bool other_eps = std::any_of(run.eps.begin(), run.eps.end(),
                                     [](const std::string& ep) { return ep != "cpu"; });

  ExitCode code = kExitOk;
  std::vector<std::pair<std::string, std::filesystem::path>> selected;
  std::set<std::string> found, suites;
  size_t found_count = 0;
  for (const std::string& dir : o.dirs) {
    const auto tests = FindOnnxTests(dir);
    const std::filesystem::path clean = std::filesystem::path(dir).lexically_normal();
    const std::filesystem::path folder = clean.has_filename() ? clean : clean.parent_path();
    if (tests.empty()) {
      std::cerr << "nxrt test-onnx: no test folders (with model.onnx) under '" << dir
                << "'; the other folders still run\n";
      run.empty_folders.push_back(dir);
      suites.insert(folder.filename().string());
      code = kExitFailed;
      continue;
    }
    for (const auto& [name, path] : tests) {
      found.insert(name);
      suites.insert(name.substr(0, name.find('/')));
      ++found_count;
      if (o.filter.empty() || name.find(o.filter) != std::string::npos) {
        selected.emplace_back(name, path);
      }
    }
  }
  if (!o.filter.empty() && selected.empty() && found_count > 0) {
    std::cerr << "nxrt test-onnx: --filter '" << o.filter << "' matches none of the "
              << found_count << " tests found\n";
    code = kExitFailed;
  }

  // Options every session would refuse (an unknown EP type or pass, a bad EP option) are a
  // usage error once, not an error per test: placing the first test's model tells.
  if (!selected.empty()) {
    Result<PlacementReport> placed =
        ExplainPlacement((selected.front().second / "model.onnx").string(), options.session);
    if (!placed.ok() && placed.status().code() == StatusCode::kInvalidArgument) {
      return Fail("test-onnx", placed.status());
    }
  }

  std::map<std::string, std::map<TestOutcome, int>> per_suite;
  std::map<TestOutcome, int> total;
  int regressions = 0, fallbacks = 0;
  {
    ProgressBar bar("test-onnx", static_cast<int64_t>(selected.size()));
    for (size_t i = 0; i < selected.size(); ++i) {
      const auto& [name, folder] = selected[i];
      bar.Update(static_cast<int64_t>(i), name);
      TestEntry entry;
      entry.result = RunIsolated(folder, name, options, o.timeout);
      const TestResult& r = entry.result;
      entry.expected = expected.count(name) > 0;
      entry.regression = entry.expected && r.outcome != TestOutcome::kPass;
      ++per_suite[name.substr(0, name.find('/'))][r.outcome];
      ++total[r.outcome];
      regressions += entry.regression;
      fallbacks += !r.warnings.empty();
      const bool show = o.verbose || other_eps || r.outcome != TestOutcome::kPass ||
                        !r.warnings.empty();
      if (show && !f.json) {
        bar.Clear();
        std::cout << (entry.regression ? "REGRESSION " : "") << TestOutcomeName(r.outcome) << " "
                  << name << " (" << r.seconds << " s)";
        if (other_eps || o.verbose) std::cout << " [" << NodesText(r) << "]";
        if (!r.reason.empty()) {
          std::string reason = r.reason.substr(0, r.reason.find('\n'));
          if (reason.size() > 300) reason = reason.substr(0, 300) + "...";
          std::cout << ": " << reason;
        }
        std::cout << "\n";
        for (const std::string& w : r.warnings) std::cout << "  fallback: " << w << "\n";
        std::cout << std::flush;
      }
      run.tests.push_back(std::move(entry));
    }
  }
  // Manifest entries of the suites asked for (and the filter) that no folder holds.
  for (const std::string& name : expected) {
    const bool asked = suites.count(name.substr(0, name.find('/'))) > 0 &&
                       (o.filter.empty() || name.find(o.filter) != std::string::npos);
    if (asked && found.count(name) == 0) run.missing.push_back(name);
  }

  if (!f.json) {
    for (const std::string& name : run.missing) {
      std::cout << "MISSING " << name << ": listed in " << o.manifest
                << " but not found under the folders given\n";
    }
    for (const auto& [suite, counts] : per_suite) {
      auto count = [&](TestOutcome k) { return counts.count(k) ? counts.at(k) : 0; };
      std::cout << "suite " << suite << ": pass " << count(TestOutcome::kPass) << ", fail "
                << count(TestOutcome::kFail) << ", error " << count(TestOutcome::kError)
                << ", skip " << count(TestOutcome::kSkip) << "\n";
    }
    auto count = [&](TestOutcome k) { return total.count(k) ? total.at(k) : 0; };
    std::cout << "total: pass " << count(TestOutcome::kPass) << ", fail "
              << count(TestOutcome::kFail) << ", error " << count(TestOutcome::kError)
              << ", skip " << count(TestOutcome::kSkip) << "\n";
    if (other_eps) {
      // The tests whose nodes the listed EPs other than the CPU EP ran wholly, partly, not at
      // all (the CPU EP ran them), or that made no session.
      int all = 0, some = 0, none = 0, no_session = 0;
      std::set<std::string> names;
      for (const TestEntry& e : run.tests) {
        int64_t nodes = 0, elsewhere = 0;
        for (const auto& [ep, n] : e.result.nodes_by_ep) {
          nodes += n;
          if (ep == "cpu" || ep == "unplaced") {
            elsewhere += n;
          } else {
            names.insert(ep);
          }
        }
        if (e.result.nodes_by_ep.empty()) ++no_session;
        else if (elsewhere == 0) ++all;
        else if (elsewhere == nodes) ++none;
        else ++some;
      }
      std::string listed;
      for (const std::string& name : names) listed += (listed.empty() ? "" : ", ") + name;
      std::cout << "eps: " << (listed.empty() ? "the listed EPs" : listed)
                << " ran every node of " << all << " tests, some of " << some << ", none of "
                << none << " (the CPU EP ran them); " << no_session << " made no session\n";
    }
    if (fallbacks > 0) std::cout << "fallback: " << fallbacks << " tests dropped an EP\n";
    if (!expected.empty()) {
      std::cout << "manifest: " << expected.size() << " expected passes, " << regressions
                << " regressions, " << run.missing.size() << " missing\n";
    }
  }
  if (f.json) std::cout << RunJson(run).dump(2) << "\n";

  if (!o.manifest_out.empty()) {
    std::ofstream out(o.manifest_out);
    out << PassManifest(run, FlagsText(o));
    out.close();
    if (!out) {
      std::cerr << "nxrt test-onnx: cannot write '" << o.manifest_out << "'\n";
      code = kExitFailed;
    }
  }
  if (!o.junit.empty()) {
    std::ofstream out(o.junit);
    out << JUnitXml(run);
    out.close();
    if (!out) {
      std::cerr << "nxrt test-onnx: cannot write '" << o.junit << "'\n";
      code = kExitFailed;
    }
  }
  const int failed = (total.count(TestOutcome::kFail) ? total.at(TestOutcome::kFail) : 0) +
                     (total.count(TestOutcome::kError) ? total.at(TestOutcome::kError) : 0);
  if (!run.missing.empty() || (run.manifest ? regressions > 0 : failed > 0)) {
    code = kExitFailed;
  }
  if (fallbacks > 0 && !f.allow_fallback_warnings) {
    std::cerr << "nxrt test-onnx: " << fallbacks << " tests dropped an EP and fell back to the "
              << "CPU EP (exit " << kExitFallback << "); pass --allow-fallback-warnings to "
              << "accept that, or --no-fallback to fail them\n";
    code = Worse(code, kExitFallback);
  }
  return code;
}

}  // namespace

void AddTestOnnxCommand(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<TestOnnxFlags>();
  CLI::App* cmd = app.add_subcommand(
      "test-onnx", "Run ONNX backend test folders (model.onnx + test_data_set_*) and compare");
  cmd->add_option("DIR", o->dirs, "A test folder, or a folder of test folders")->required();
  cmd->add_option("--manifest", o->manifest,
                  "File listing the tests expected to pass: each must be found and pass; the "
                  "others may fail");
  cmd->add_option("--manifest-out", o->manifest_out,
                  "Write the tests that passed here, as a manifest for these EPs and flags");
  cmd->add_option("--junit", o->junit, "Write the results as JUnit XML to this file");
  cmd->add_option("--filter", o->filter, "Only run tests whose name contains this text");
  cmd->add_option("--rtol", o->rtol, "Relative tolerance for floating outputs")
      ->check(NonNegative())
      ->capture_default_str();
  cmd->add_option("--atol", o->atol, "Absolute tolerance for floating outputs")
      ->check(NonNegative())
      ->capture_default_str();
  cmd->add_option("--timeout", o->timeout, "Seconds one test may take")
      ->check(CLI::Range(1, 1000000))
      ->capture_default_str();
  cmd->add_flag("--verbose", o->verbose,
                "Print every test with the EPs that ran its nodes, not only those that do not "
                "pass (with an EP other than cpu, every test is printed)");
  const std::string test_data = "the inputs come from each test's data";
  AddSessionFlags(*cmd, o->flags, "test-onnx", kAllGroups,
                  {{"--seed", test_data},
                   {"--dim", test_data},
                   {"--shape", test_data},
                   {"--range", test_data},
                   {"--value", test_data},
                   {"--input", test_data},
                   {"--stats", "each test runs in a process of its own"},
                   {"--profile", "each test runs in a process of its own"}});
  cmd->get_option("--json")->description(
      "Print one JSON object with every test's result instead of text");
  cmd->callback([o, &exit_code] { exit_code = TestOnnx(*o); });
}

}  // namespace nxrt::cli
