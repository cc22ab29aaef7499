// bench/plugin_overhead_bench.cpp: the per-call cost of a fused plugin kernel on tiny models,
// in one process, one intra-op thread everywhere:
//   nxrt/<model>          nxrt hosting the example plugin (plugins/example_ep)
//   ort/<model>           ONNX Runtime 1.30 hosting the same library
//   ort_nxrt_ep/<model>   ONNX Runtime 1.30 hosting libnxrt_ort_ep.so (src/ort_ep), its CPU
//                         fallback off: every node on NxrtExecutionProvider
//   nxrt_cpu/<model>      nxrt alone (its CPU EP)
//   ort_cpu/<model>       ONNX Runtime 1.30 alone (its CPU EP)
//
//   build/release/bench/nxrt_plugin_overhead_bench [--benchmark_min_time=0.5]
//
// Models (written by plugins/make_example_ep_models.py): chain (7 elementwise nodes on 2×3×4,
// one fused group: the cost is almost all hosting overhead), split (two fused groups around a
// MatMul run by each runtime's CPU EP; one group for nxrt's plugin, which claims the MatMul
// too), dynamic (symbolic batch, 5×3). Every side returns owned output tensors. After the
// benchmarks, per model: the median ratio of the two hosts of the example plugin (nxrt / ORT;
// below 1.0 nxrt is faster), and the cost of nxrt's plugin in ORT over nxrt alone and over
// ORT alone (ORT + nxrt plugin − nxrt alone is what hosting nxrt inside ORT adds per run).
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

// nxrt with `providers` (empty: its CPU EP alone).
void BM_Nxrt(benchmark::State& state, const std::string& model, std::vector<EpSpec> providers) {
  SessionOptions options;
  options.intra_op_threads = 1;
  options.providers = std::move(providers);
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

// ONNX Runtime 1.30 with `plugins` before its CPU EP (none: its CPU EP alone); with
// `no_fallback`, ORT's CPU EP may run no node.
void BM_Ort(benchmark::State& state, const std::string& model,
            std::vector<oracle::PluginEp> plugins, bool no_fallback) {
  Result<oracle::OrtOracle> ort = oracle::OrtOracle::Load();
  if (!ort.ok()) {
    state.SkipWithError(ort.status().message().c_str());
    return;
  }
  oracle::OracleOptions options;
  options.intra_op_threads = 1;
  options.plugins = std::move(plugins);
  if (no_fallback) options.config_entries.push_back({"session.disable_cpu_ep_fallback", "1"});
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
    for (const std::string& model : models) Ratio(model, "nxrt", "ort");
    std::printf("\nper-call time, ORT 1.30 + libnxrt_ort_ep.so / nxrt alone:\n");
    for (const std::string& model : models) Ratio(model, "ort_nxrt_ep", "nxrt_cpu");
    std::printf("\nper-call time, ORT 1.30 + libnxrt_ort_ep.so / ORT 1.30 alone:\n");
    for (const std::string& model : models) Ratio(model, "ort_nxrt_ep", "ort_cpu");
  }

 private:
  void Ratio(const std::string& model, const std::string& a, const std::string& b) const {
    auto x = times_.find(a + "/" + model);
    auto y = times_.find(b + "/" + model);
    if (x == times_.end() || y == times_.end()) {
      std::printf("  %-8s  (not measured)\n", model.c_str());
      return;
    }
    std::printf("  %-8s  %s %.2f us  %s %.2f us  ratio %.2f  difference %.2f us\n", model.c_str(),
                a.c_str(), x->second / 1000.0, b.c_str(), y->second / 1000.0,
                x->second / y->second, (x->second - y->second) / 1000.0);
  }

 private:
  std::map<std::string, double> times_;  // nanoseconds
};

}  // namespace
}  // namespace nxrt

int main(int argc, char** argv) {
  const std::vector<std::string> models = {"chain", "split", "dynamic"};
  const nxrt::oracle::PluginEp example{nxrt::kExampleEp, "example_ep", "example_ep", {}};
  const nxrt::oracle::PluginEp nxrt_ep{NXRT_ORT_EP, "nxrt_ort_ep", "NxrtExecutionProvider",
                                       {{"threads", "1"}}};
  for (const std::string& model : models) {
    benchmark::RegisterBenchmark(("nxrt/" + model).c_str(), nxrt::BM_Nxrt, model,
                                 std::vector<nxrt::EpSpec>{{"plugin:" + nxrt::kExampleEp, {}, {}, {}}});
    benchmark::RegisterBenchmark(("ort/" + model).c_str(), nxrt::BM_Ort, model,
                                 std::vector<nxrt::oracle::PluginEp>{example}, false);
    benchmark::RegisterBenchmark(("ort_nxrt_ep/" + model).c_str(), nxrt::BM_Ort, model,
                                 std::vector<nxrt::oracle::PluginEp>{nxrt_ep}, true);
    benchmark::RegisterBenchmark(("nxrt_cpu/" + model).c_str(), nxrt::BM_Nxrt, model,
                                 std::vector<nxrt::EpSpec>{});
    benchmark::RegisterBenchmark(("ort_cpu/" + model).c_str(), nxrt::BM_Ort, model,
                                 std::vector<nxrt::oracle::PluginEp>{}, false);
  }
  benchmark::Initialize(&argc, argv);
  nxrt::RatioReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  reporter.PrintRatios(models);
  benchmark::Shutdown();
  return 0;
}
