// runtime/bench_report_test.cpp: latency statistics (median, nearest-rank p90/p95/p99,
// throughput) and the benchmark loop's counts and errors. No timing assertions: runs are
// counted, not timed.
//
// Layer: tests of nxrt_runtime.
#include "nxrt/bench_report.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace nxrt {
namespace {

using ::testing::HasSubstr;

TEST(BenchReportTest, StatisticsOfOddAndEvenCounts) {
  const LatencyStats odd = SummarizeLatencies({5, 1, 3});
  EXPECT_EQ(odd.iterations, 3);
  EXPECT_EQ(odd.min_ms, 1);
  EXPECT_EQ(odd.median_ms, 3);
  EXPECT_EQ(odd.p90_ms, 5);
  EXPECT_EQ(odd.mean_ms, 3);
  EXPECT_EQ(odd.max_ms, 5);

  std::vector<double> ten;
  for (int i = 10; i >= 1; --i) ten.push_back(i);
  const LatencyStats even = SummarizeLatencies(ten);
  EXPECT_EQ(even.median_ms, 5.5);
  EXPECT_EQ(even.p90_ms, 9);  // the 9th smallest of 10
  EXPECT_EQ(SummarizeLatencies({}).iterations, 0);
}

// p95 and p99 by nearest rank over 1..200 ms: the 190th and 198th smallest; throughput is the
// runs per second of run time: 200 runs in 20.1 s.
TEST(BenchReportTest, TailPercentilesAndThroughput) {
  std::vector<double> runs;
  for (int i = 200; i >= 1; --i) runs.push_back(i);
  const LatencyStats stats = SummarizeLatencies(runs);
  EXPECT_EQ(stats.p95_ms, 190);
  EXPECT_EQ(stats.p99_ms, 198);
  EXPECT_DOUBLE_EQ(stats.runs_per_second, 200 / 20.1);
  const LatencyStats one = SummarizeLatencies({4});
  EXPECT_EQ(one.p99_ms, 4);
  EXPECT_DOUBLE_EQ(one.runs_per_second, 250);
}

TEST(BenchReportTest, LoopRunsWarmupPlusIterations) {
  int calls = 0;
  Result<LatencyStats> stats = TimeRuns([&] { ++calls; return Status::Ok(); }, {2, 7, 0});
  ASSERT_TRUE(stats.ok());
  EXPECT_EQ(calls, 9);
  EXPECT_EQ(stats->iterations, 7);
}

TEST(BenchReportTest, LoopStopsAtTheFirstFailureAndChecksItsConfig) {
  int calls = 0;
  Result<LatencyStats> failed = TimeRuns(
      [&] {
        return ++calls == 4 ? Status(StatusCode::kInternal, "boom") : Status::Ok();
      },
      {1, 10, 0});
  ASSERT_FALSE(failed.ok());
  EXPECT_THAT(failed.status().ToString(), HasSubstr("timed run 3"));
  EXPECT_THAT(failed.status().ToString(), HasSubstr("boom"));
  Result<LatencyStats> bad = TimeRuns([] { return Status::Ok(); }, {0, 0, 0});
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(), HasSubstr("--iterations 0"));
}

TEST(BenchReportTest, JsonHasTheFieldsTheScriptReads) {
  BenchReport report;
  report.runtime = "nxrt";
  report.model = "a \"quoted\" path.onnx";
  report.latency = SummarizeLatencies({1, 2});
  report.init_ms = 2.5;
  const std::string json = BenchReportJson(report);
  for (const char* key : {"\"runtime\":\"nxrt\"", "\"median_ms\":1.5", "\"init_ms\":2.5",
                          "\"session_ms\"",
                          "\"peak_rss_mib\"", "\"inputs_digest\"", "\"threads\":1",
                          "\"p95_ms\":2", "\"p99_ms\":2", "\"runs_per_second\"",
                          "a \\\"quoted\\\" path.onnx"}) {
    EXPECT_THAT(json, HasSubstr(key));
  }
  EXPECT_GT(PeakRssMib(), 0.0);
}

}  // namespace
}  // namespace nxrt
