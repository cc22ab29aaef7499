// bench/plugin_overhead_bench.cpp: the per-call cost of a fused plugin kernel, nxrt hosting the
// example plugin (plugins/example_ep) side by side with ONNX Runtime 1.30 hosting the same
// library, on the same models, inputs and thread count (1), in one process.
//
//   build/release/bench/nxrt_plugin_overhead_bench [--benchmark_min_time=0.5]
//
// Models (written by plugins/make_example_ep_models.py): chain (7 elementwise nodes on 2×3×4,
// one fused group: the cost is almost all hosting overhead), split (two fused groups around a
// MatMul run by each runtime's CPU EP), dynamic (symbolic batch, 5×3). Both sides run with the
// plugin first and their CPU EP as fallback; both return owned output tensors. After the
// benchmarks, one line per model prints the median ratio nxrt / ORT (below 1.0: nxrt is faster).
#include <benchmark/benchmark.h>

#include <cstdio>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "nxrt/session.h"
#include "ort_oracle/ort_oracle.h"
#include "nxrt/input_generator.h"

namespace nxrt {
namespace {

const std::string kExampleEp = NXRT_EXAMPLE_EP;

std::string ModelPath(const std::string& name) {
  return std::string(NXRT_EXAMPLE_EP_MODELS) + "/" + name + ".onnx";
}

std::vector<NamedTensor> Inputs(const Session& session) {
  GeneratorOptions gen;
  gen.seed = 3;
  gen.dims["batch"] = 5;
  Result<std::vector<NamedTensor>> inputs = GenerateInputs(session.inputs(), gen);
  return inputs.ok() ? *inputs : std::vector<NamedTensor>{};
}

void BM_Nxrt(benchmark::State& state, const std::string& model) {
  SessionOptions options;
  options.intra_op_threads = 1;
  options.providers.push_back(EpSpec{"plugin:" + kExampleEp, {}, {}, {}});
  Result<std::unique_ptr<Session>> session = Session::Create(ModelPath(model), options);
  if (!session.ok()) {
    state.SkipWithError(session.status().message().c_str());
    return;
  }
  const std::vector<NamedTensor> inputs = Inputs(**session);
  for (auto _ : state) {
    Result<std::vector<NamedTensor>> out = (*session)->Run(inputs);
    if (!out.ok()) {
      state.SkipWithError(out.status().message().c_str());
      return;
    }
    benchmark::DoNotOptimize(out->front().tensor.raw_data());
  }
}

void BM_Ort(benchmark::State& state, const std::string& model) {
  Result<oracle::OrtOracle> ort = oracle::OrtOracle::Load();
  if (!ort.ok()) {
    state.SkipWithError(ort.status().message().c_str());
    return;
  }
  oracle::OracleOptions options;
  options.intra_op_threads = 1;
  options.plugins.push_back(oracle::PluginEp{kExampleEp, "example_ep", "example_ep", {}});
  Result<oracle::OracleSession> session = ort->CreateSession(ModelPath(model), options);
  if (!session.ok()) {
    state.SkipWithError(session.status().message().c_str());
    return;
  }
  SessionOptions nxrt_options;
  nxrt_options.intra_op_threads = 1;
  Result<std::unique_ptr<Session>> shapes = Session::Create(ModelPath(model), nxrt_options);
  if (!shapes.ok()) {
    state.SkipWithError(shapes.status().message().c_str());
    return;
  }
  const std::vector<NamedTensor> inputs = Inputs(**shapes);
  for (auto _ : state) {
    Result<std::vector<NamedTensor>> out = session->Run(inputs);
    if (!out.ok()) {
      state.SkipWithError(out.status().message().c_str());
      return;
    }
    benchmark::DoNotOptimize(out->front().tensor.raw_data());
  }
}

// Keeps each run's real time per benchmark name, for the ratio lines.
class RatioReporter : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& run : runs) {
      if (!run.error_occurred && run.aggregate_name.empty()) {
        times_[run.benchmark_name()] = run.GetAdjustedRealTime();
      }
    }
    ConsoleReporter::ReportRuns(runs);
  }
  void PrintRatios(const std::vector<std::string>& models) const {
    std::printf("\nper-call time, nxrt hosting example_ep / ORT 1.30 hosting example_ep:\n");
    for (const std::string& model : models) {
      auto nx = times_.find("nxrt/" + model);
      auto ort = times_.find("ort/" + model);
      if (nx == times_.end() || ort == times_.end()) {
        std::printf("  %-8s  (not measured)\n", model.c_str());
        continue;
      }
      std::printf("  %-8s  nxrt %.2f us  ort %.2f us  ratio %.2f\n", model.c_str(),
                  nx->second / 1000.0, ort->second / 1000.0, nx->second / ort->second);
    }
  }

 private:
  std::map<std::string, double> times_;  // nanoseconds
};

}  // namespace
}  // namespace nxrt

int main(int argc, char** argv) {
  const std::vector<std::string> models = {"chain", "split", "dynamic"};
  for (const std::string& model : models) {
    benchmark::RegisterBenchmark(("nxrt/" + model).c_str(), nxrt::BM_Nxrt, model);
    benchmark::RegisterBenchmark(("ort/" + model).c_str(), nxrt::BM_Ort, model);
  }
  benchmark::Initialize(&argc, argv);
  nxrt::RatioReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  reporter.PrintRatios(models);
  benchmark::Shutdown();
  return 0;
}
