// runtime/bench_report_test.cpp: latency statistics (median, nearest-rank p90) and the benchmark
// loop's counts and errors. No timing assertions: runs are counted, not timed.
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
                          "a \\\"quoted\\\" path.onnx"}) {
    EXPECT_THAT(json, HasSubstr(key));
  }
  EXPECT_GT(PeakRssMib(), 0.0);
}

}  // namespace
}  // namespace nxrt
