// tools/nxrt/cmd_test_onnx.cpp: `nxrt test-onnx DIR... [--manifest FILE]`: the ONNX backend
// conformance runner. Each test runs in a child process (a crash or a hang fails that test, not
// the run); with --manifest, a test listed there that does not pass is a regression and the
// command exits 1.
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>

#include "commands.h"
#include "ep_flags.h"
#include "onnx_test_runner.h"

namespace nxrt::cli {
namespace {

// Runs one test in a forked child; the child sends "<outcome>\n<reason>" through a pipe.
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
    TestResult r = RunOnnxTest(folder, name, options);
    std::string msg = std::to_string(static_cast<int>(r.outcome)) + "\n" +
                      std::to_string(r.seconds) + "\n" + r.reason;
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
  const size_t nl1 = data.find('\n');
  const size_t nl2 = nl1 == std::string::npos ? nl1 : data.find('\n', nl1 + 1);
  if (nl2 == std::string::npos) {
    r.outcome = TestOutcome::kError;
    r.reason = "the test process exited without a result";
    return r;
  }
  r.outcome = static_cast<TestOutcome>(std::stoi(data.substr(0, nl1)));
  r.seconds = std::stod(data.substr(nl1 + 1, nl2 - nl1 - 1));
  r.reason = data.substr(nl2 + 1);
  return r;
}

}  // namespace

void AddTestOnnxCommand(CLI::App& app, int& exit_code) {
  struct Options {
    std::vector<std::string> dirs;
    std::string manifest;
    std::string write_manifest;
    std::string filter;
    double rtol = 1e-3;
    double atol = 1e-7;
    int threads = 1;
    int timeout = 120;
    bool verbose = false;
  };
  auto o = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand(
      "test-onnx", "Run ONNX backend test folders (model.onnx + test_data_set_*) and compare");
  cmd->add_option("DIR", o->dirs, "A test folder, or a folder of test folders")->required();
  cmd->add_option("--manifest", o->manifest,
                  "File listing the tests expected to pass; any of them failing exits 1");
  cmd->add_option("--write-manifest", o->write_manifest, "Write the passing tests to this file");
  cmd->add_option("--filter", o->filter, "Only run tests whose name contains this text");
  cmd->add_option("--rtol", o->rtol, "Relative tolerance for floating outputs")
      ->check(NonNegative());
  cmd->add_option("--atol", o->atol, "Absolute tolerance for floating outputs")
      ->check(NonNegative());
  cmd->add_option("--threads", o->threads, "Intra-op threads per session")
      ->check(CLI::Range(1, 1000000));
  cmd->add_option("--timeout", o->timeout, "Seconds one test may take")
      ->check(CLI::Range(1, 1000000));
  cmd->add_flag("--verbose", o->verbose, "Print every test, not only those that do not pass");
  cmd->callback([o, &exit_code] {
    std::set<std::string> expected;
    if (!o->manifest.empty()) {
      Result<std::set<std::string>> m = ReadManifest(o->manifest);
      if (!m.ok()) {
        std::cerr << "nxrt test-onnx: " << m.status().message() << "\n";
        exit_code = 2;
        return;
      }
      expected = std::move(m).value();
    }
    TestRunOptions run;
    run.rtol = o->rtol;
    run.atol = o->atol;
    run.session.intra_op_threads = o->threads;
    std::map<std::string, std::map<TestOutcome, int>> per_suite;
    std::map<TestOutcome, int> total;
    std::vector<std::string> passed, regressions;
    for (const std::string& dir : o->dirs) {
      auto tests = FindOnnxTests(dir);
      if (tests.empty()) {
        std::cerr << "nxrt test-onnx: no test folders (with model.onnx) under '" << dir << "'\n";
        exit_code = 2;
        return;
      }
      for (const auto& [name, folder] : tests) {
        if (!o->filter.empty() && name.find(o->filter) == std::string::npos) continue;
        TestResult r = RunIsolated(folder, name, run, o->timeout);
        const std::string suite = name.substr(0, name.find('/'));
        ++per_suite[suite][r.outcome];
        ++total[r.outcome];
        if (r.outcome == TestOutcome::kPass) passed.push_back(name);
        const bool regression = r.outcome != TestOutcome::kPass && expected.count(name) > 0;
        if (regression) regressions.push_back(name);
        if (o->verbose || r.outcome != TestOutcome::kPass) {
          std::cout << (regression ? "REGRESSION " : "") << TestOutcomeName(r.outcome) << " "
                    << name << " (" << r.seconds << " s)";
          if (!r.reason.empty()) {
            std::string reason = r.reason.substr(0, r.reason.find('\n'));
            if (reason.size() > 300) reason = reason.substr(0, 300) + "...";
            std::cout << ": " << reason;
          }
          std::cout << "\n";
        }
      }
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
    if (!o->write_manifest.empty()) {
      std::ofstream out(o->write_manifest);
      out << "# ONNX backend tests the CPU EP passes (nxrt test-onnx --write-manifest).\n";
      for (const std::string& name : passed) out << name << "\n";
      if (!out) {
        std::cerr << "nxrt test-onnx: cannot write '" << o->write_manifest << "'\n";
        exit_code = 1;
      }
    }
    if (!expected.empty()) {
      std::cout << "manifest: " << expected.size() << " expected passes, " << regressions.size()
                << " regressions\n";
      if (!regressions.empty()) exit_code = 1;
    }
  });
}

}  // namespace nxrt::cli
