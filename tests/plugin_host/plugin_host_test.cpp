// tests/plugin_host/plugin_host_test.cpp: the plugin-interop acceptance suite (docs/testing.md,
// docs/plugin_host.md): nxrt hosts the in-tree example plugin (plugins/example_ep, built
// against ORT's C headers only) and its outputs equal the CPU EP's and those of real ONNX
// Runtime 1.30 hosting the same library; the plugin's own counter shows it computed; a real model
// runs with the plugin first and the CPU EP second and matches ORT; every fault fixture
// (plugins/faults) gives its documented error, and with fallback allowed the model still runs
// on the CPU EP with the right values.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "nxrt/ep_devices.h"
#include "nxrt/placement.h"
#include "nxrt/session.h"
#include "ort_oracle/ort_oracle.h"
#include "ort_oracle/reference_cache.h"
#include "ort_oracle/tensor_diff.h"
#include "real_models.h"
#include "nxrt/input_generator.h"

namespace nxrt {
namespace {

const std::string kExampleEp = NXRT_EXAMPLE_EP;
const std::string kDeviceEp = NXRT_DEVICE_EP;

std::string ModelPath(const std::string& name) {
  return std::string(NXRT_EXAMPLE_EP_MODELS) + "/" + name + ".onnx";
}
std::string FaultPath(const std::string& fault) {
  return std::string(NXRT_FAULT_PLUGIN_DIR) + "/libnxrt_fault_" + fault + ".so";
}

// The example plugin's exported call counter, read through a handle of its own (dlopen of the
// same file shares the instance the host loaded).
class ComputeCounter {
 public:
  ComputeCounter() {
    handle_ = dlopen(kExampleEp.c_str(), RTLD_NOW | RTLD_LOCAL);
    calls_ = Find("NxrtExampleEp_ComputeCalls");
    run_starts_ = Find("NxrtExampleEp_RunStarts");
    run_ends_ = Find("NxrtExampleEp_RunEnds");
    violations_ = Find("NxrtExampleEp_ConcurrencyViolations");
  }
  ~ComputeCounter() {
    if (handle_ != nullptr) dlclose(handle_);
  }
  bool ok() const { return calls_ && run_starts_ && run_ends_ && violations_; }
  uint64_t calls() const { return calls_(); }
  uint64_t run_starts() const { return run_starts_(); }
  uint64_t run_ends() const { return run_ends_(); }
  uint64_t violations() const { return violations_(); }

 private:
  using Counter = uint64_t (*)();
  Counter Find(const char* symbol) const {
    return handle_ ? reinterpret_cast<Counter>(dlsym(handle_, symbol)) : nullptr;
  }
  void* handle_ = nullptr;
  Counter calls_ = nullptr;
  Counter run_starts_ = nullptr;
  Counter run_ends_ = nullptr;
  Counter violations_ = nullptr;
};

SessionOptions WithPlugins(std::vector<std::string> types, bool allow_fallback = true) {
  SessionOptions options;
  options.intra_op_threads = 1;
  options.allow_fallback = allow_fallback;
  for (std::string& type : types) options.providers.push_back(EpSpec{std::move(type), {}, {}, {}});
  return options;
}
SessionOptions CpuOnly() {
  SessionOptions options;
  options.intra_op_threads = 1;
  return options;
}

// Fixed-seed inputs for every input of `session` (symbolic dims of size 5); fails for inputs
// that are not tensors.
Result<std::vector<NamedTensor>> TryInputsFor(const Session& session, uint64_t seed = 7) {
  GeneratorOptions gen;
  gen.seed = seed;
  for (const ValueInfo& in : session.inputs()) {
    for (const DimInfo& dim : in.shape.value_or(std::vector<DimInfo>{})) {
      if (!dim.symbol.empty()) gen.dims[dim.symbol] = 5;
    }
  }
  return GenerateInputs(session.inputs(), gen);
}
std::vector<NamedTensor> InputsFor(const Session& session, uint64_t seed = 7) {
  Result<std::vector<NamedTensor>> inputs = TryInputsFor(session, seed);
  EXPECT_TRUE(inputs.ok()) << inputs.status().ToString();
  return inputs.ok() ? *inputs : std::vector<NamedTensor>{};
}

std::vector<NamedTensor> RunModel(const std::string& model, const SessionOptions& options,
                                  const std::vector<NamedTensor>& inputs) {
  Result<std::unique_ptr<Session>> session = Session::Create(model, options);
  EXPECT_TRUE(session.ok()) << session.status().ToString();
  if (!session.ok()) return {};
  Result<std::vector<NamedTensor>> out = (*session)->Run(inputs);
  EXPECT_TRUE(out.ok()) << out.status().ToString();
  return out.ok() ? *out : std::vector<NamedTensor>{};
}

void ExpectSame(const std::vector<NamedTensor>& got, const std::vector<NamedTensor>& want,
                const std::string& what, double rtol = 1e-5, double atol = 1e-6) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(got[i].name, want[i].name) << what;
    EXPECT_EQ(oracle::TensorDiff(got[i].tensor, want[i].tensor, rtol, atol), "")
        << what << ", output '" << want[i].name << "'";
  }
}

// Runs `session` from 4 threads, 25 times each; per thread, the runs that failed or whose first
// output differs from `want`.
std::vector<int> RunConcurrently(Session& session, const std::vector<NamedTensor>& inputs,
                                 const Tensor& want) {
  std::vector<std::thread> threads;
  std::vector<int> failures(4, 0);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int r = 0; r < 25; ++r) {
        Result<std::vector<NamedTensor>> got = session.Run(inputs);
        if (!got.ok() || oracle::TensorDiff((*got)[0].tensor, want, 1e-5, 1e-6) != "") {
          ++failures[t];
        }
      }
    });
  }
  for (std::thread& t : threads) t.join();
  return failures;
}

int64_t FusedSteps(const Session& session, const std::string& ep) {
  int64_t n = 0;
  for (const KernelStats& k : session.Stats()) n += k.op_type == "fused" && k.ep == ep;
  return n;
}

class ExamplePluginTest : public ::testing::TestWithParam<std::string> {};

// Each model: the plugin first (CPU fallback) gives the CPU EP's outputs; the fused kernels ran
// once per run each (Session::Stats) and the plugin's own counter saw exactly those calls.
TEST_P(ExamplePluginTest, MatchesCpuEp) {
  const std::string model = ModelPath(GetParam());
  ComputeCounter counter;
  ASSERT_TRUE(counter.ok()) << dlerror();
  Result<std::unique_ptr<Session>> session =
      Session::Create(model, WithPlugins({"plugin:" + kExampleEp}));
  ASSERT_TRUE(session.ok()) << session.status().ToString();
  const std::vector<NamedTensor> inputs = InputsFor(**session);
  const std::vector<NamedTensor> want = RunModel(model, CpuOnly(), inputs);
  const int64_t fused = FusedSteps(**session, "example_ep");
  EXPECT_GE(fused, 1) << (*session)->PlacementSummary();
  const uint64_t before = counter.calls();
  constexpr int kRuns = 3;
  for (int r = 0; r < kRuns; ++r) {
    Result<std::vector<NamedTensor>> got = (*session)->Run(inputs);
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    ExpectSame(*got, want, GetParam() + " run " + std::to_string(r));
  }
  EXPECT_EQ(counter.calls() - before, static_cast<uint64_t>(fused * kRuns));
  for (const KernelStats& k : (*session)->Stats()) {
    if (k.op_type == "fused") {
      EXPECT_EQ(k.calls, kRuns) << k.name;
    }
  }
}

// The same library in real ONNX Runtime 1.30, with the same inputs, gives the same outputs.
TEST_P(ExamplePluginTest, MatchesOnnxRuntimeHostingTheSamePlugin) {
  const std::string model = ModelPath(GetParam());
  Result<oracle::OrtOracle> ort = oracle::OrtOracle::Load();
  if (!ort.ok() && !std::filesystem::exists(oracle::OrtOracle::DefaultLibraryPath())) {
    GTEST_SKIP() << "ONNX Runtime is not fetched: run scripts/bootstrap.sh";
  }
  ASSERT_TRUE(ort.ok()) << ort.status().ToString();
  Result<std::unique_ptr<Session>> session =
      Session::Create(model, WithPlugins({"plugin:" + kExampleEp}));
  ASSERT_TRUE(session.ok()) << session.status().ToString();
  const std::vector<NamedTensor> inputs = InputsFor(**session);
  oracle::OracleOptions options;
  options.plugins.push_back(oracle::PluginEp{kExampleEp, "example_ep", "example_ep", {}});
  Result<std::vector<NamedTensor>> want = ort->Run(model, inputs, options);
  ASSERT_TRUE(want.ok()) << want.status().ToString();
  Result<std::vector<NamedTensor>> got = (*session)->Run(inputs);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  ExpectSame(*got, *want, GetParam() + " vs ORT 1.30 hosting example_ep");
}

INSTANTIATE_TEST_SUITE_P(Models, ExamplePluginTest,
                         ::testing::Values("chain", "split", "reentry", "dynamic"));

// Without fallback the plugin must take every node: chain runs; split (a MatMul) cannot.
TEST(ExamplePlugin, WithoutFallbackRunsOnlyWhatItClaims) {
  const std::string chain = ModelPath("chain");
  Result<std::unique_ptr<Session>> alone =
      Session::Create(chain, WithPlugins({"plugin:" + kExampleEp}, false));
  ASSERT_TRUE(alone.ok()) << alone.status().ToString();
  const std::vector<NamedTensor> inputs = InputsFor(**alone);
  Result<std::vector<NamedTensor>> got = (*alone)->Run(inputs);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  ExpectSame(*got, RunModel(chain, CpuOnly(), inputs), "chain on example_ep alone");
  for (const KernelStats& k : (*alone)->Stats()) EXPECT_EQ(k.ep, "example_ep") << k.name;

  Result<std::unique_ptr<Session>> split =
      Session::Create(ModelPath("split"), WithPlugins({"plugin:" + kExampleEp}, false));
  ASSERT_FALSE(split.ok());
  EXPECT_NE(split.status().message().find("MatMul"), std::string::npos) << split.status().message();
  EXPECT_NE(split.status().message().find("fallback"), std::string::npos)
      << split.status().message();
}

// branch.onnx: Add -> If (then Relu, else Sigmoid of the outer A) -> Mul. As in ONNX Runtime
// 1.30 (plugins/example_ep_ort_test.cpp), the If is the CPU EP's: without fallback the session
// is refused, naming it; with fallback the plugin runs Add, Mul and the taken branch's node,
// three fused calls per run as in ORT, and the If counts as the CPU EP's in Stats and in the
// placement, also with the CPU EP listed before the plugin.
TEST(ExamplePlugin, IfIsTheCpuEpsAsInOnnxRuntime) {
  const std::string branch = ModelPath("branch");
  const SessionOptions strict_options = WithPlugins({"plugin:" + kExampleEp}, false);
  Result<std::unique_ptr<Session>> strict = Session::Create(branch, strict_options);
  ASSERT_FALSE(strict.ok());
  EXPECT_EQ(strict.status().code(), StatusCode::kUnsupported);
  EXPECT_NE(strict.status().message().find("#1:If:if"), std::string::npos)
      << strict.status().message();
  EXPECT_NE(strict.status().message().find("fallback to the CPU EP is disabled"),
            std::string::npos)
      << strict.status().message();
  Result<PlacementReport> explained = ExplainPlacement(branch, strict_options);
  ASSERT_TRUE(explained.ok()) << explained.status().ToString();
  EXPECT_FALSE(explained->complete());
  ASSERT_EQ(explained->graphs[0].unplaced.size(), 1u);
  EXPECT_EQ(explained->graphs[0].unplaced[0].name, "if");
  EXPECT_TRUE(explained->graphs[0].runtime_nodes.empty());

  ComputeCounter counter;
  ASSERT_TRUE(counter.ok());
  Result<std::unique_ptr<Session>> session =
      Session::Create(branch, WithPlugins({"plugin:" + kExampleEp}));
  ASSERT_TRUE(session.ok()) << session.status().ToString();
  for (uint64_t seed : {1, 2, 3, 4}) {
    const std::vector<NamedTensor> inputs = InputsFor(**session, seed);
    const uint64_t before = counter.calls();
    Result<std::vector<NamedTensor>> got = (*session)->Run(inputs);
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    EXPECT_EQ(counter.calls() - before, 3u) << "seed " << seed;
    ExpectSame(*got, RunModel(branch, CpuOnly(), inputs), "branch, seed " + std::to_string(seed));
  }
  for (const KernelStats& k : (*session)->Stats()) {
    EXPECT_EQ(k.ep, k.op_type == "If" ? "cpu" : "example_ep") << k.name;
  }
  const PlacementReport placement = (*session)->Placement();
  ASSERT_EQ(placement.graphs.size(), 3u);
  ASSERT_EQ(placement.graphs[0].runtime_nodes.size(), 1u);
  EXPECT_EQ(placement.graphs[0].runtime_nodes[0].node.name, "if");
  EXPECT_EQ(placement.graphs[0].runtime_nodes[0].ep, "cpu");
  EXPECT_EQ(placement.graphs[0].runtime_nodes[0].subgraphs, (std::vector<int32_t>{1, 2}));
  for (size_t g = 1; g < 3; ++g) {
    EXPECT_EQ(placement.graphs[g].parent, 0);
    ASSERT_EQ(placement.graphs[g].claims.size(), 1u);
    EXPECT_EQ(placement.graphs[g].claims[0].ep, "example_ep");
    EXPECT_TRUE(placement.graphs[g].claims[0].fused);
  }

  Result<std::unique_ptr<Session>> cpu_first =
      Session::Create(branch, WithPlugins({"cpu", "plugin:" + kExampleEp}));
  ASSERT_TRUE(cpu_first.ok()) << cpu_first.status().ToString();
  ASSERT_TRUE((*cpu_first)->Run(InputsFor(**cpu_first)).ok());
  for (const KernelStats& k : (*cpu_first)->Stats()) EXPECT_EQ(k.ep, "cpu") << k.name;
}

// EP options reach the plugin as session config entries "ep.example_ep.<key>".
TEST(ExamplePlugin, OptionsReachThePlugin) {
  const std::string chain = ModelPath("chain");
  SessionOptions options = WithPlugins({"plugin:" + kExampleEp});
  options.providers[0].config.Set("max_group_size", "2");
  Result<std::unique_ptr<Session>> small = Session::Create(chain, options);
  ASSERT_TRUE(small.ok()) << small.status().ToString();
  EXPECT_EQ(FusedSteps(**small, "example_ep"), 4);  // 7 nodes in groups of at most 2
  const std::vector<NamedTensor> inputs = InputsFor(**small);
  Result<std::vector<NamedTensor>> got = (*small)->Run(inputs);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  ExpectSame(*got, RunModel(chain, CpuOnly(), inputs), "chain in groups of 2");

  options.providers[0].config.Set("max_group_size", "two");
  options.allow_fallback = false;
  Result<std::unique_ptr<Session>> bad = Session::Create(chain, options);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("OrtEpFactory::CreateEp failed"), std::string::npos)
      << bad.status().message();
  EXPECT_NE(bad.status().message().find("max_group_size"), std::string::npos)
      << bad.status().message();

  options.allow_fallback = true;
  Result<std::unique_ptr<Session>> fallback = Session::Create(chain, options);
  ASSERT_TRUE(fallback.ok()) << fallback.status().ToString();
  ASSERT_EQ((*fallback)->Warnings().size(), 1u);
  EXPECT_NE((*fallback)->Warnings()[0].find("max_group_size"), std::string::npos);
  EXPECT_EQ(FusedSteps(**fallback, "example_ep"), 0);
}

// One session, 4 threads × 25 runs: every result equals the single-threaded one.
TEST(ExamplePlugin, ConcurrentRunsAgree) {
  const std::string model = ModelPath("dynamic");
  Result<std::unique_ptr<Session>> session =
      Session::Create(model, WithPlugins({"plugin:" + kExampleEp}));
  ASSERT_TRUE(session.ok()) << session.status().ToString();
  const std::vector<NamedTensor> inputs = InputsFor(**session);
  const std::vector<NamedTensor> want = RunModel(model, CpuOnly(), inputs);
  EXPECT_EQ(RunConcurrently(**session, inputs, want[0].tensor), std::vector<int>(4, 0));
}

// OnRunStart/OnRunEnd once per run; a plugin that says it cannot run concurrently
// (IsConcurrentRunSupported) never sees two runs at once, even from 4 threads.
TEST(ExamplePlugin, RunHooksAndSerialisedRuns) {
  ComputeCounter counter;
  ASSERT_TRUE(counter.ok());
  const std::string model = ModelPath("split");
  SessionOptions options = WithPlugins({"plugin:" + kExampleEp});
  options.providers[0].config.Set("concurrent_runs", "0");
  Result<std::unique_ptr<Session>> session = Session::Create(model, options);
  ASSERT_TRUE(session.ok()) << session.status().ToString();
  const std::vector<NamedTensor> inputs = InputsFor(**session);
  const std::vector<NamedTensor> want = RunModel(model, CpuOnly(), inputs);
  const uint64_t starts = counter.run_starts(), ends = counter.run_ends();
  const uint64_t violations = counter.violations();
  EXPECT_EQ(RunConcurrently(**session, inputs, want[0].tensor), std::vector<int>(4, 0));
  EXPECT_EQ(counter.run_starts() - starts, 100u);
  EXPECT_EQ(counter.run_ends() - ends, 100u);
  EXPECT_EQ(counter.violations() - violations, 0u);
}

// Each fused call is a trace span labelled with the EP and its device.
TEST(ExamplePlugin, FusedCallsAreTraceSpans) {
  SessionOptions options = WithPlugins({"plugin:" + kExampleEp});
  options.enable_profiling = true;
  Result<std::unique_ptr<Session>> session = Session::Create(ModelPath("split"), options);
  ASSERT_TRUE(session.ok()) << session.status().ToString();
  ASSERT_TRUE((*session)->Run(InputsFor(**session)).ok());
  Result<std::string> trace = (*session)->EndProfiling();
  ASSERT_TRUE(trace.ok()) << trace.status().ToString();
  EXPECT_NE(trace->find("\"cat\": \"example_ep\""), std::string::npos) << *trace;
  EXPECT_NE(trace->find("\"device\": \"cpu:0\""), std::string::npos) << *trace;
  EXPECT_NE(trace->find("\"op_type\": \"fused\""), std::string::npos) << *trace;
  EXPECT_NE(trace->find("\"op_type\": \"MatMul\""), std::string::npos) << *trace;
}

// Loading and unloading the library with a session each time: under ASan/LSan (the asan
// preset) this proves nothing leaks across 200 cycles.
TEST(ExamplePlugin, LoadAndUnload200Times) {
  const std::string model = ModelPath("chain");
  std::vector<NamedTensor> inputs;
  for (int i = 0; i < 200; ++i) {
    Result<std::unique_ptr<Session>> session =
        Session::Create(model, WithPlugins({"plugin:" + kExampleEp}, false));
    ASSERT_TRUE(session.ok()) << "cycle " << i << ": " << session.status().ToString();
    if (inputs.empty()) inputs = InputsFor(**session);
    ASSERT_TRUE((*session)->Run(inputs).ok()) << "cycle " << i;
  }
}

// A real model of docs/testing.md with the plugin first and the CPU EP second matches ORT 1.30.
TEST(ExamplePlugin, RealModelMatchesOnnxRuntime) {
  for (const char* name : {"oww_hey_jarvis", "oww_melspectrogram"}) {
    const oracle::RealModel* model = oracle::FindRealModel(name);
    ASSERT_NE(model, nullptr);
    if (!std::filesystem::exists(model->path())) {
      GTEST_SKIP() << model->path() << " is missing: run scripts/bootstrap.sh";
    }
    Result<std::vector<NamedTensor>> inputs = oracle::RealModelInputs(*model);
    ASSERT_TRUE(inputs.ok()) << inputs.status().ToString();
    Result<std::vector<NamedTensor>> want =
        oracle::ReferenceOutputs(model->path().string(), *inputs);
    ASSERT_TRUE(want.ok()) << want.status().ToString();
    ComputeCounter counter;
    ASSERT_TRUE(counter.ok());
    Result<std::unique_ptr<Session>> session =
        Session::Create(model->path().string(), WithPlugins({"plugin:" + kExampleEp, "cpu"}));
    ASSERT_TRUE(session.ok()) << session.status().ToString();
    const uint64_t before = counter.calls();
    Result<std::vector<NamedTensor>> got = (*session)->Run(*inputs);
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    EXPECT_GT(counter.calls(), before) << name << ": the plugin computed nothing\n"
                                       << (*session)->PlacementSummary();
    ExpectSame(*got, *want, name, model->rtol, model->atol);
  }
}

// The device-memory plugin (plugins/device_ep): inputs reach Compute in its memory (it checks),
// outputs come back through its data transfer; values equal the CPU EP's, also on split, where
// its two groups sit around a MatMul on the CPU EP. Every device block is freed.
TEST(DevicePlugin, CopiesThroughItsDataTransfer) {
  void* handle = dlopen(kDeviceEp.c_str(), RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(handle, nullptr) << dlerror();
  auto counter = [&](const char* name) {
    auto fn = reinterpret_cast<uint64_t (*)()>(dlsym(handle, name));
    return fn ? fn() : ~uint64_t{0};
  };
  for (const char* name : {"chain", "split"}) {
    const std::string model = ModelPath(name);
    const uint64_t computes = counter("NxrtDeviceEp_ComputeCalls");
    const uint64_t to_device = counter("NxrtDeviceEp_HostToDeviceCopies");
    const uint64_t to_host = counter("NxrtDeviceEp_DeviceToHostCopies");
    {
      Result<std::unique_ptr<Session>> session =
          Session::Create(model, WithPlugins({"plugin:" + kDeviceEp}));
      ASSERT_TRUE(session.ok()) << session.status().ToString();
      const std::vector<NamedTensor> inputs = InputsFor(**session);
      Result<std::vector<NamedTensor>> got = (*session)->Run(inputs);
      ASSERT_TRUE(got.ok()) << got.status().ToString();
      ExpectSame(*got, RunModel(model, CpuOnly(), inputs), std::string(name) + " on the device EP");
      const int64_t fused = FusedSteps(**session, "example_device_ep");
      EXPECT_GE(fused, 1);
      EXPECT_EQ(counter("NxrtDeviceEp_ComputeCalls") - computes, static_cast<uint64_t>(fused));
      EXPECT_GE(counter("NxrtDeviceEp_HostToDeviceCopies") - to_device,
                static_cast<uint64_t>(fused));
      EXPECT_GE(counter("NxrtDeviceEp_DeviceToHostCopies") - to_host, static_cast<uint64_t>(fused));
    }
    EXPECT_EQ(counter("NxrtDeviceEp_Allocs"), counter("NxrtDeviceEp_Frees")) << name;
    EXPECT_EQ(counter("NxrtDeviceEp_BadFrees"), 0u) << name;
  }
  dlclose(handle);
}

// Several plugins in one priority list: the example EP takes Add and Relu, the device EP the
// Sigmoid and Mul after the MatMul, the CPU EP the MatMul.
TEST(SeveralPlugins, ShareAGraphInPriorityOrder) {
  const std::string model = ModelPath("split");
  SessionOptions options = WithPlugins({"plugin:" + kExampleEp, "plugin:" + kDeviceEp, "cpu"});
  options.providers[0].config.Set("claim_ops", "Add,Relu");
  Result<std::unique_ptr<Session>> session = Session::Create(model, options);
  ASSERT_TRUE(session.ok()) << session.status().ToString();
  EXPECT_EQ(FusedSteps(**session, "example_ep"), 1) << (*session)->PlacementSummary();
  EXPECT_EQ(FusedSteps(**session, "example_device_ep"), 1) << (*session)->PlacementSummary();
  const std::vector<NamedTensor> inputs = InputsFor(**session);
  Result<std::vector<NamedTensor>> got = (*session)->Run(inputs);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  ExpectSame(*got, RunModel(model, CpuOnly(), inputs), "split on two plugins and the CPU EP");
}

// ---- Fault fixtures (plugins/faults): each gives its documented error; with fallback allowed
// the model still runs on the CPU EP with the right values.
struct Fault {
  std::string name;
  std::string message;   // expected in the error (fallback off) or the rejection/warning
  bool second = false;   // listed after the example plugin (claims nodes it already owns)
  bool runtime = false;  // fails while running, not while building the session
};

std::ostream& operator<<(std::ostream& os, const Fault& f) { return os << f.name; }

class FaultTest : public ::testing::TestWithParam<Fault> {
 protected:
  std::vector<std::string> Providers() const {
    const Fault& f = GetParam();
    if (f.second) return {"plugin:" + kExampleEp, "plugin:" + FaultPath(f.name)};
    return {"plugin:" + FaultPath(f.name)};
  }
};

TEST_P(FaultTest, GivesItsErrorAndFallsBack) {
  const Fault& f = GetParam();
  const std::string model = ModelPath("chain");
  ASSERT_TRUE(std::filesystem::exists(FaultPath(f.name))) << FaultPath(f.name);
  Result<std::unique_ptr<Session>> cpu = Session::Create(model, CpuOnly());
  ASSERT_TRUE(cpu.ok());
  const std::vector<NamedTensor> inputs = InputsFor(**cpu);
  Result<std::vector<NamedTensor>> want = (*cpu)->Run(inputs);
  ASSERT_TRUE(want.ok());

  // Fallback off: the documented error (at creation, or for a Compute failure, when running).
  Result<std::unique_ptr<Session>> strict = Session::Create(model, WithPlugins(Providers(), false));
  std::string error;
  if (f.runtime) {
    ASSERT_TRUE(strict.ok()) << strict.status().ToString();
    Result<std::vector<NamedTensor>> out = (*strict)->Run(inputs);
    ASSERT_FALSE(out.ok());
    error = out.status().message();
    // The session stays usable: the same error again, no crash.
    EXPECT_FALSE((*strict)->Run(inputs).ok());
  } else if (f.second) {
    // The faulty plugin's groups are rejected; the example plugin runs everything.
    ASSERT_TRUE(strict.ok()) << strict.status().ToString();
    error = (*strict)->PlacementSummary();
  } else {
    ASSERT_FALSE(strict.ok());
    error = strict.status().message();
  }
  EXPECT_NE(error.find(f.message), std::string::npos) << "expected '" << f.message << "' in:\n"
                                                      << error;

  // Fallback on: the model runs and gives the CPU EP's values.
  Result<std::unique_ptr<Session>> lenient = Session::Create(model, WithPlugins(Providers(), true));
  ASSERT_TRUE(lenient.ok()) << lenient.status().ToString();
  Result<std::vector<NamedTensor>> got = (*lenient)->Run(inputs);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  ExpectSame(*got, *want, f.name + " with fallback");
}

INSTANTIATE_TEST_SUITE_P(
    Fixtures, FaultTest,
    ::testing::Values(
        Fault{"no_create_symbol", "CreateEpFactories symbol not found"},
        Fault{"factories_error", "CreateEpFactories failed"},
        Fault{"zero_factories", "returned zero factories"},
        Fault{"null_factory", "null factory pointer"},
        Fault{"factory_version_0", "ort_version_supported = 0, below 22"},
        Fault{"factory_version_21", "ort_version_supported = 21, below 22"},
        Fault{"create_ep_null_fn", "OrtEpFactory::CreateEp is null"},
        Fault{"create_ep_fails", "OrtEpFactory::CreateEp failed"},
        Fault{"create_ep_returns_null", "returned no OrtEp"},
        Fault{"capability_fails", "OrtEp::GetCapability failed"},
        Fault{"group_unknown_node", "not nodes of the main graph"},
        Fault{"group_node_twice", "twice"}, Fault{"group_claims_all", "already claimed", true},
        Fault{"group_non_convex", "convex"}, Fault{"compile_fails", "OrtEp::Compile failed"},
        Fault{"compile_null_info", "null OrtNodeComputeInfo"},
        Fault{"create_state_null_fn", "lacks CreateState"},
        Fault{"create_state_fails", "OrtNodeComputeInfo::CreateState failed"},
        Fault{"compute_null_fn", "lacks Compute"},
        Fault{"compute_fails", "OrtNodeComputeInfo::Compute of fused node", false, true},
        Fault{"api_version_too_high", "CreateEpFactories failed"}),
    [](const ::testing::TestParamInfo<Fault>& info) { return info.param.name; });

// ---- Random groups (plugins/faults random_groups): whatever groups a plugin proposes, valid or
// not (duplicates, unknown or stale node pointers, null entries, empty or non-convex groups,
// overlaps), the host never crashes. With fallback the model runs and gives the CPU EP's values;
// without it, a session that builds gives them too or fails its run naming the plugin, and one
// that does not build names the plugin.
// Models: the example plugin's, and the ONNX backend node tests of the ops it runs, of If, Loop
// and Scan (subgraphs) and of a few ops it does not run (its Compile refuses those).
std::vector<std::string> RandomGroupModels() {
  namespace fs = std::filesystem;
  std::vector<std::string> models;
  for (const fs::directory_entry& e : fs::directory_iterator(NXRT_EXAMPLE_EP_MODELS)) {
    if (e.path().extension() == ".onnx") models.push_back(e.path().string());
  }
  const fs::path node_tests = "/usr/share/libonnx-testdata/data/node";
  const std::vector<std::string> prefixes = {"test_add", "test_mul", "test_sub", "test_div",
                                             "test_relu", "test_sigmoid", "test_tanh", "test_if",
                                             "test_loop", "test_scan", "test_concat", "test_gemm"};
  if (fs::exists(node_tests)) {
    for (const fs::directory_entry& e : fs::directory_iterator(node_tests)) {
      const std::string name = e.path().filename().string();
      for (const std::string& prefix : prefixes) {
        if (name.rfind(prefix, 0) == 0 && fs::exists(e.path() / "model.onnx")) {
          models.push_back((e.path() / "model.onnx").string());
          break;
        }
      }
    }
  }
  std::sort(models.begin(), models.end());
  return models;
}

TEST(PluginFuzz, RandomGroupsNeverBreakTheHost) {
  const std::string plugin = "plugin:" + FaultPath("random_groups");
  const std::vector<std::string> models = RandomGroupModels();
  ASSERT_GE(models.size(), 40u) << "too few models found; is libonnx-testdata installed?";
  constexpr int kSeeds = 12;
  int tried = 0, built_strict = 0, refused_strict = 0;
  for (const std::string& model : models) {
    Result<std::unique_ptr<Session>> cpu = Session::Create(model, CpuOnly());
    if (!cpu.ok()) continue;  // a model the CPU EP refuses too (the test is of the host)
    Result<std::vector<NamedTensor>> generated = TryInputsFor(**cpu);
    if (!generated.ok()) continue;  // sequence or optional inputs
    const std::vector<NamedTensor>& inputs = *generated;
    Result<std::vector<NamedTensor>> want = (*cpu)->Run(inputs);
    if (!want.ok()) continue;
    ++tried;
    for (int seed = 1; seed <= kSeeds; ++seed) {
      const std::string what = model + " with NXRT_FAULT_SEED=" + std::to_string(seed);
      ASSERT_EQ(setenv("NXRT_FAULT_SEED", std::to_string(seed).c_str(), 1), 0);
      Result<std::unique_ptr<Session>> lenient = Session::Create(model, WithPlugins({plugin}));
      ASSERT_TRUE(lenient.ok()) << what << ": " << lenient.status().ToString();
      Result<std::vector<NamedTensor>> got = (*lenient)->Run(inputs);
      ASSERT_TRUE(got.ok()) << what << ": " << got.status().ToString();
      ExpectSame(*got, *want, what + ", fallback on");

      Result<std::unique_ptr<Session>> strict =
          Session::Create(model, WithPlugins({plugin}, false));
      if (!strict.ok()) {
        ++refused_strict;
        EXPECT_NE(strict.status().message().find("fault_random_groups"), std::string::npos)
            << what << ": " << strict.status().message();
        continue;
      }
      ++built_strict;
      // A group the plugin cannot compute (e.g. uint8 Add) fails the run, naming the plugin.
      Result<std::vector<NamedTensor>> strict_out = (*strict)->Run(inputs);
      if (strict_out.ok()) {
        ExpectSame(*strict_out, *want, what + ", fallback off");
      } else {
        EXPECT_NE(strict_out.status().message().find("fault_random_groups"), std::string::npos)
            << what << ": " << strict_out.status().message();
      }
    }
  }
  unsetenv("NXRT_FAULT_SEED");
  // Both ways are taken: some draws claim whole models, others are refused.
  EXPECT_GE(tried, 40);
  EXPECT_GT(built_strict, 0);
  EXPECT_GT(refused_strict, 0);
}

// A missing library and a file that is not a shared library.
TEST(PluginLoading, BadLibrariesNameTheFileAndTheFix) {
  const std::string model = ModelPath("chain");
  Result<std::unique_ptr<Session>> missing =
      Session::Create(model, WithPlugins({"plugin:/nonexistent/libnothing.so"}, false));
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("no library file at /nonexistent/libnothing.so"),
            std::string::npos)
      << missing.status().message();
  Result<std::unique_ptr<Session>> not_elf =
      Session::Create(model, WithPlugins({"plugin:" + model}, false));
  ASSERT_FALSE(not_elf.ok());
  EXPECT_NE(not_elf.status().message().find("dlopen failed"), std::string::npos)
      << not_elf.status().message();
  Result<std::unique_ptr<Session>> fallback =
      Session::Create(model, WithPlugins({"plugin:/nonexistent/libnothing.so"}, true));
  ASSERT_TRUE(fallback.ok()) << fallback.status().ToString();
  EXPECT_EQ((*fallback)->Warnings().size(), 1u);
}

// nxrt/ep_devices.h: the example library's devices as ONNX Runtime's GetEpDevices lists them
// (plugins/README.md: EP example_ep, vendor nxrt, one device per CPU hardware device), and the
// EpSpec of one of its EPs runs the chain on it alone.
TEST(PluginEpLibrary, ListsDevicesAndSpecRunsThatEp) {
  Result<std::shared_ptr<PluginEpLibrary>> library = PluginEpLibrary::Load(kExampleEp, "example");
  ASSERT_TRUE(library.ok()) << library.status().ToString();
  EXPECT_EQ((*library)->registration_name(), "example");
  EXPECT_TRUE(std::filesystem::path((*library)->path()).is_absolute());
  const EpDevice cpu = CpuEpDevice();
  EXPECT_EQ(cpu.ep_name, "CPUExecutionProvider");
  EXPECT_EQ(cpu.device.type, "CPU");
  ASSERT_EQ((*library)->devices().size(), 1u);
  const EpDevice& device = (*library)->devices()[0];
  EXPECT_EQ(device.ep_name, "example_ep");
  EXPECT_EQ(device.ep_vendor, "nxrt");
  EXPECT_EQ(device.device.type, "CPU");
  EXPECT_EQ(device.device.vendor, cpu.device.vendor);
  EXPECT_EQ(device.device.vendor_id, cpu.device.vendor_id);

  Result<EpSpec> spec = (*library)->Spec("example_ep");
  ASSERT_TRUE(spec.ok()) << spec.status().ToString();
  EXPECT_EQ(spec->type, "plugin:" + (*library)->path() + ":example");
  EXPECT_EQ(spec->config.GetString("ep_name", ""), "example_ep");
  SessionOptions options;
  options.providers = {*spec};
  options.allow_fallback = false;
  ComputeCounter counter;
  ASSERT_TRUE(counter.ok());
  Result<std::unique_ptr<Session>> session = Session::Create(ModelPath("chain"), options);
  ASSERT_TRUE(session.ok()) << session.status().ToString();
  const uint64_t before = counter.calls();
  const std::vector<NamedTensor> inputs = InputsFor(**session);
  Result<std::vector<NamedTensor>> got = (*session)->Run(inputs);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(counter.calls(), before + 1);
  ExpectSame(*got, RunModel(ModelPath("chain"), CpuOnly(), inputs), "chain through Spec()");

  Result<EpSpec> unknown = (*library)->Spec("other_ep");
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(unknown.status().message().find("its EPs: 'example_ep'"), std::string::npos)
      << unknown.status().message();
  Result<std::shared_ptr<PluginEpLibrary>> missing =
      PluginEpLibrary::Load("/nonexistent/libnothing.so", "");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
}

}  // namespace
}  // namespace nxrt
