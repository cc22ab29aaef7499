// plugins/example_ep_ort_test.cpp: the example plugin EP (plugins/example_ep) in real ONNX
// Runtime 1.30, loaded through the ORT oracle.
//
// Layer: acceptance test of the test plugins (docs/testing.md). Pure-elementwise models run with
// ORT's CPU fallback disabled, so every node must run in the plugin; outputs are checked against
// loops written here (fixed-seed inputs, rtol 1e-5). Mixed models run with fallback and must
// equal ORT's CPU-only outputs. The plugin's counters, read by dlopen-ing the library ORT
// loaded, prove how many fused groups ran, how often ORT called OnRunStart/OnRunEnd, whether
// Compute calls overlapped (concurrent_runs), and, for the device EP (plugins/device_ep), which
// copies and allocations ORT made through the plugin. Fault fixtures that ORT itself rejects
// cleanly are checked to fail with their own message.
#include <dlfcn.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <random>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "ort_oracle/oracle_test_util.h"
#include "ort_oracle/ort_oracle.h"

#if !defined(NXRT_EXAMPLE_EP) || !defined(NXRT_DEVICE_EP) || !defined(NXRT_EXAMPLE_EP_MODELS) || \
    !defined(NXRT_FAULT_PLUGIN_DIR)
#error "NXRT_EXAMPLE_EP, NXRT_DEVICE_EP, NXRT_EXAMPLE_EP_MODELS and NXRT_FAULT_PLUGIN_DIR must come from the build"
#endif

namespace nxrt::oracle {
namespace {

using ::testing::HasSubstr;

std::string Model(const std::string& file) {
  return (std::filesystem::path(NXRT_EXAMPLE_EP_MODELS) / file).string();
}

// The example EP, optionally with EP options ("ep.example_ep.<key>" in ORT's session config).
PluginEp ExamplePlugin(std::vector<std::pair<std::string, std::string>> ep_options = {}) {
  PluginEp plugin;
  plugin.library_path = NXRT_EXAMPLE_EP;
  plugin.registration_name = "nxrt_example_ep";
  plugin.ep_name = "example_ep";
  plugin.ep_options = std::move(ep_options);
  return plugin;
}

// Plugin first; with `fallback` false ORT's CPU EP may not take any node.
OracleOptions WithPlugin(PluginEp plugin, bool fallback) {
  OracleOptions options;
  options.plugins.push_back(std::move(plugin));
  if (!fallback) options.config_entries.push_back({"session.disable_cpu_ep_fallback", "1"});
  return options;
}

// One counter `uint64_t symbol(void)` exported by the plugin instance ORT loaded from `library`
// (same file, so dlopen shares it).
class PluginCounter {
 public:
  PluginCounter(const char* library, const char* symbol) {
    handle_ = dlopen(library, RTLD_NOW | RTLD_NOLOAD);
    if (handle_ == nullptr) return;
    value_ = reinterpret_cast<uint64_t (*)()>(dlsym(handle_, symbol));
  }
  ~PluginCounter() {
    if (handle_ != nullptr) dlclose(handle_);
  }
  PluginCounter(const PluginCounter&) = delete;
  PluginCounter& operator=(const PluginCounter&) = delete;

  // False when ORT has not loaded the plugin or it lacks the counter.
  bool ok() const { return value_ != nullptr; }
  uint64_t value() const { return value_(); }

 private:
  void* handle_ = nullptr;
  uint64_t (*value_)() = nullptr;
};

// The example EP's successful Compute calls.
class ComputeCounter : public PluginCounter {
 public:
  ComputeCounter() : PluginCounter(NXRT_EXAMPLE_EP, "NxrtExampleEp_ComputeCalls") {}
  uint64_t calls() const { return value(); }
};

std::vector<float> RandomValues(size_t count, uint32_t seed) {
  std::mt19937 generator(seed);
  std::uniform_real_distribution<float> uniform(-2.0f, 2.0f);
  std::vector<float> values(count);
  for (float& v : values) v = uniform(generator);
  return values;
}

// The model constants: value[i] = start + step * i, as in make_example_ep_models.py.
std::vector<float> Sequence(size_t count, float start, float step) {
  std::vector<float> values(count);
  for (size_t i = 0; i < count; ++i) values[i] = start + step * static_cast<float>(i);
  return values;
}

Tensor FloatTensor(Shape shape, const std::vector<float>& values) {
  return Tensor::FromVector<float>(std::move(shape), values).value();
}

// Each element within rtol * |expected| + atol.
void ExpectClose(const Tensor& actual, const Shape& shape, const std::vector<float>& expected,
                 float rtol = 1e-5f, float atol = 1e-6f) {
  ASSERT_EQ(actual.dtype(), DataType::kFloat);
  ASSERT_EQ(actual.shape(), shape);
  std::span<const float> values = actual.span<float>();
  ASSERT_EQ(values.size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    EXPECT_NEAR(values[i], expected[i], rtol * std::fabs(expected[i]) + atol) << "element " << i;
  }
}

void ExpectEqualOutputs(const std::vector<NamedTensor>& actual,
                        const std::vector<NamedTensor>& expected) {
  ASSERT_EQ(actual.size(), expected.size());
  for (size_t i = 0; i < actual.size(); ++i) {
    EXPECT_EQ(actual[i].name, expected[i].name);
    std::span<const float> values = expected[i].tensor.span<float>();
    ExpectClose(actual[i].tensor, expected[i].tensor.shape(),
                std::vector<float>(values.begin(), values.end()));
  }
}

// chain.onnx by hand: Y = (tanh(sigmoid(relu((X + B) * m))) - s) / d, X[2,3,4], B[3,4], m[3,1],
// s scalar, d[4].
std::vector<float> ChainReference(const std::vector<float>& x, const std::vector<float>& b) {
  const std::vector<float> m = Sequence(3, 0.5f, 0.25f);
  const float s = 0.125f;
  const std::vector<float> d = Sequence(4, 1.5f, 0.5f);
  std::vector<float> y(24);
  for (size_t i = 0; i < 2; ++i) {
    for (size_t j = 0; j < 3; ++j) {
      for (size_t k = 0; k < 4; ++k) {
        const size_t at = (i * 3 + j) * 4 + k;
        const float scaled = (x[at] + b[j * 4 + k]) * m[j];
        const float relu = scaled > 0.0f ? scaled : 0.0f;
        const float sigmoid = 1.0f / (1.0f + std::exp(-relu));
        y[at] = (std::tanh(sigmoid) - s) / d[k];
      }
    }
  }
  return y;
}

class ExampleEpOrtTest : public OracleTest {};

TEST_F(ExampleEpOrtTest, OffersTheCpuAsExampleEpOfVendorNxrt) {
  Result<std::vector<EpDeviceInfo>> devices = oracle().RegisterPlugin(ExamplePlugin());
  ASSERT_TRUE(devices.ok()) << devices.status().ToString();
  ASSERT_FALSE(devices->empty());
  for (const EpDeviceInfo& device : *devices) {
    EXPECT_EQ(device.ep_name, "example_ep");
    EXPECT_EQ(device.ep_vendor, "nxrt");
    EXPECT_EQ(device.device_type, "cpu");
  }
}

TEST_F(ExampleEpOrtTest, ChainRunsAsOneGroupWithoutFallbackAndMatchesLoops) {
  Result<OracleSession> session =
      oracle().CreateSession(Model("chain.onnx"), WithPlugin(ExamplePlugin(), false));
  ASSERT_TRUE(session.ok()) << session.status().ToString();
  ComputeCounter counter;
  ASSERT_TRUE(counter.ok()) << "ORT did not load " << NXRT_EXAMPLE_EP;
  const uint64_t before = counter.calls();
  constexpr int kRuns = 3;
  for (uint32_t run = 0; run < kRuns; ++run) {
    const std::vector<float> x = RandomValues(24, 100 + run);
    const std::vector<float> b = RandomValues(12, 200 + run);
    Result<std::vector<NamedTensor>> outputs =
        session->Run({{"X", FloatTensor({2, 3, 4}, x)}, {"B", FloatTensor({3, 4}, b)}});
    ASSERT_TRUE(outputs.ok()) << outputs.status().ToString();
    ASSERT_EQ(outputs->size(), 1u);
    ExpectClose((*outputs)[0].tensor, {2, 3, 4}, ChainReference(x, b));
  }
  EXPECT_EQ(counter.calls() - before, 1u * kRuns);
}

TEST_F(ExampleEpOrtTest, DynamicBatchRunsEachBatchSizeInOneSession) {
  Result<OracleSession> session =
      oracle().CreateSession(Model("dynamic.onnx"), WithPlugin(ExamplePlugin(), false));
  ASSERT_TRUE(session.ok()) << session.status().ToString();
  ComputeCounter counter;
  ASSERT_TRUE(counter.ok());
  const uint64_t before = counter.calls();
  const std::vector<int64_t> batches = {1, 5, 2};
  for (int64_t batch : batches) {
    const size_t count = static_cast<size_t>(batch) * 3;
    const std::vector<float> x = RandomValues(count, 300 + static_cast<uint32_t>(batch));
    const std::vector<float> b = RandomValues(3, 400);
    Result<std::vector<NamedTensor>> outputs =
        session->Run({{"X", FloatTensor({batch, 3}, x)}, {"B", FloatTensor({3}, b)}});
    ASSERT_TRUE(outputs.ok()) << outputs.status().ToString();
    std::vector<float> expected(count);
    for (size_t i = 0; i < count; ++i) expected[i] = std::tanh(x[i] + b[i % 3]) * x[i];
    ExpectClose((*outputs)[0].tensor, {batch, 3}, expected);
  }
  EXPECT_EQ(counter.calls() - before, batches.size());
}

// Runs `model` with the plugin (fallback allowed) and with ORT's CPU EP alone, twice, and checks
// that the outputs agree and that the plugin ran `groups` fused nodes per run.
void ExpectSameAsCpuOnly(const OrtOracle& ort, const std::string& model, const PluginEp& plugin,
                         const Shape& x_shape, uint64_t groups) {
  Result<OracleSession> with_plugin = ort.CreateSession(Model(model), WithPlugin(plugin, true));
  ASSERT_TRUE(with_plugin.ok()) << with_plugin.status().ToString();
  Result<OracleSession> cpu_only = ort.CreateSession(Model(model));
  ASSERT_TRUE(cpu_only.ok()) << cpu_only.status().ToString();
  ComputeCounter counter;
  ASSERT_TRUE(counter.ok());
  const uint64_t before = counter.calls();
  constexpr int kRuns = 2;
  for (uint32_t run = 0; run < kRuns; ++run) {
    size_t count = 1;
    for (int64_t d : x_shape) count *= static_cast<size_t>(d);
    const std::vector<NamedTensor> inputs = {{"X", FloatTensor(x_shape, RandomValues(count, 500 + run))}};
    Result<std::vector<NamedTensor>> actual = with_plugin->Run(inputs);
    ASSERT_TRUE(actual.ok()) << actual.status().ToString();
    Result<std::vector<NamedTensor>> expected = cpu_only->Run(inputs);
    ASSERT_TRUE(expected.ok()) << expected.status().ToString();
    ExpectEqualOutputs(*actual, *expected);
  }
  EXPECT_EQ(counter.calls() - before, groups * kRuns);
}

TEST_F(ExampleEpOrtTest, MatMulSplitsTheElementwiseNodesIntoTwoGroups) {
  ExpectSameAsCpuOnly(oracle(), "split.onnx", ExamplePlugin(), {2, 4}, 2);
}

TEST_F(ExampleEpOrtTest, MatMulWithoutFallbackHasNoEp) {
  Result<OracleSession> session =
      oracle().CreateSession(Model("split.onnx"), WithPlugin(ExamplePlugin(), false));
  ASSERT_FALSE(session.ok());
  EXPECT_THAT(session.status().message(), HasSubstr("fallback to CPU EP has been explicitly disabled"));
}

// branch.onnx by hand: Y = (C ? relu(X + b) : sigmoid(X + b)) * X, X[2,3], b[3].
std::vector<float> BranchReference(const std::vector<float>& x, bool c) {
  const std::vector<float> b = Sequence(3, -0.75f, 0.5f);
  std::vector<float> y(x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    const float a = x[i] + b[i % 3];
    const float branch = c ? (a > 0.0f ? a : 0.0f) : 1.0f / (1.0f + std::exp(-a));
    y[i] = branch * x[i];
  }
  return y;
}

// ORT runs If on its CPU EP (control flow is a CPU EP kernel), whoever claims the nodes around
// it and in its branches: with the fallback disabled the session is refused.
TEST_F(ExampleEpOrtTest, IfWithoutFallbackIsRefusedBecauseTheCpuEpRunsIt) {
  Result<OracleSession> session =
      oracle().CreateSession(Model("branch.onnx"), WithPlugin(ExamplePlugin(), false));
  ASSERT_FALSE(session.ok());
  EXPECT_THAT(session.status().message(), HasSubstr("fallback to CPU EP has been explicitly disabled"));
}

// With the fallback the plugin gets Add and Mul around the If as two groups (a path through the
// If joins them) and each branch's node as a group of its own: three fused calls per run.
TEST_F(ExampleEpOrtTest, IfWithFallbackLeavesItsBranchesToThePlugin) {
  Result<OracleSession> session =
      oracle().CreateSession(Model("branch.onnx"), WithPlugin(ExamplePlugin(), true));
  ASSERT_TRUE(session.ok()) << session.status().ToString();
  ComputeCounter counter;
  ASSERT_TRUE(counter.ok());
  for (bool c : {true, false}) {
    const std::vector<float> x = RandomValues(6, c ? 800 : 801);
    const uint64_t before = counter.calls();
    Result<std::vector<NamedTensor>> outputs =
        session->Run({{"X", FloatTensor({2, 3}, x)}, {"C", Tensor::Scalar<bool>(c)}});
    ASSERT_TRUE(outputs.ok()) << outputs.status().ToString();
    ExpectClose((*outputs)[0].tensor, {2, 3}, BranchReference(x, c));
    EXPECT_EQ(counter.calls() - before, 3u) << "branch " << c;
  }
}

TEST_F(ExampleEpOrtTest, PathThroughSoftmaxKeepsAddAndMulInSeparateGroups) {
  ExpectSameAsCpuOnly(oracle(), "reentry.onnx", ExamplePlugin(), {3, 4}, 2);
}

TEST_F(ExampleEpOrtTest, MaxGroupSizeTwoCutsTheChainIntoFourGroups) {
  Result<OracleSession> session = oracle().CreateSession(
      Model("chain.onnx"), WithPlugin(ExamplePlugin({{"max_group_size", "2"}}), false));
  ASSERT_TRUE(session.ok()) << session.status().ToString();
  ComputeCounter counter;
  ASSERT_TRUE(counter.ok());
  const uint64_t before = counter.calls();
  const std::vector<float> x = RandomValues(24, 600);
  const std::vector<float> b = RandomValues(12, 601);
  Result<std::vector<NamedTensor>> outputs =
      session->Run({{"X", FloatTensor({2, 3, 4}, x)}, {"B", FloatTensor({3, 4}, b)}});
  ASSERT_TRUE(outputs.ok()) << outputs.status().ToString();
  ExpectClose((*outputs)[0].tensor, {2, 3, 4}, ChainReference(x, b));
  EXPECT_EQ(counter.calls() - before, 4u);  // 7 nodes in groups of 2, 2, 2, 1
}

TEST_F(ExampleEpOrtTest, ClaimOpsLimitsTheClaimToAddAndMul) {
  // The chain's Add -> Mul is one group; ORT's CPU EP runs the other five nodes.
  Result<OracleSession> with_plugin = oracle().CreateSession(
      Model("chain.onnx"), WithPlugin(ExamplePlugin({{"claim_ops", "Add, Mul"}}), true));
  ASSERT_TRUE(with_plugin.ok()) << with_plugin.status().ToString();
  ComputeCounter counter;
  ASSERT_TRUE(counter.ok());
  const uint64_t before = counter.calls();
  const std::vector<float> x = RandomValues(24, 700);
  const std::vector<float> b = RandomValues(12, 701);
  Result<std::vector<NamedTensor>> outputs =
      with_plugin->Run({{"X", FloatTensor({2, 3, 4}, x)}, {"B", FloatTensor({3, 4}, b)}});
  ASSERT_TRUE(outputs.ok()) << outputs.status().ToString();
  ExpectClose((*outputs)[0].tensor, {2, 3, 4}, ChainReference(x, b));
  EXPECT_EQ(counter.calls() - before, 1u);
}

TEST_F(ExampleEpOrtTest, BadOptionsFailSessionCreationWithThePluginsMessage) {
  const std::vector<std::pair<std::pair<std::string, std::string>, std::string>> cases = {
      {{"max_group_size", "-1"},
       "option ep.example_ep.max_group_size='-1' is not a non-negative integer; fix:"},
      {{"max_group_size", "two"}, "option ep.example_ep.max_group_size='two'"},
      {{"claim_ops", "Add,Conv"},
       "option ep.example_ep.claim_ops='Add,Conv' names 'Conv', which example_ep cannot run"},
      {{"claim_ops", " , "}, "option ep.example_ep.claim_ops=' , ' names no op"},
      {{"max_group", "2"}, "option ep.example_ep.max_group='2' is not an option of example_ep"},
  };
  for (const auto& [option, message] : cases) {
    Result<OracleSession> session = oracle().CreateSession(
        Model("chain.onnx"), WithPlugin(ExamplePlugin({option}), true));
    ASSERT_FALSE(session.ok()) << option.first << "=" << option.second;
    EXPECT_THAT(session.status().message(), HasSubstr(message));
  }
}

// ---- run hooks and concurrency ---------------------------------------------------------------

TEST_F(ExampleEpOrtTest, OnRunStartAndOnRunEndAreCalledOncePerRun) {
  // split.onnx gives the EP two fused nodes: the hooks come once per run and EP, not per node.
  struct Case {
    std::string model;
    bool fallback;
    std::vector<NamedTensor> inputs;
  };
  const std::vector<Case> cases = {
      {"chain.onnx", false,
       {{"X", FloatTensor({2, 3, 4}, RandomValues(24, 1200))},
        {"B", FloatTensor({3, 4}, RandomValues(12, 1201))}}},
      {"split.onnx", true, {{"X", FloatTensor({2, 4}, RandomValues(8, 1202))}}},
  };
  for (const Case& c : cases) {
    Result<OracleSession> session =
        oracle().CreateSession(Model(c.model), WithPlugin(ExamplePlugin(), c.fallback));
    ASSERT_TRUE(session.ok()) << c.model << ": " << session.status().ToString();
    PluginCounter starts(NXRT_EXAMPLE_EP, "NxrtExampleEp_RunStarts");
    PluginCounter ends(NXRT_EXAMPLE_EP, "NxrtExampleEp_RunEnds");
    ASSERT_TRUE(starts.ok() && ends.ok());
    const uint64_t starts_before = starts.value();
    const uint64_t ends_before = ends.value();
    constexpr int kRuns = 4;
    for (int run = 0; run < kRuns; ++run) {
      Result<std::vector<NamedTensor>> outputs = session->Run(c.inputs);
      ASSERT_TRUE(outputs.ok()) << c.model << ": " << outputs.status().ToString();
    }
    EXPECT_EQ(starts.value() - starts_before, 1u * kRuns) << c.model;
    EXPECT_EQ(ends.value() - ends_before, 1u * kRuns) << c.model;
  }
}

struct ConcurrentRunCounts {
  uint64_t computes = 0;
  uint64_t overlaps = 0;    // Compute calls that began while another one of the EP ran
  uint64_t violations = 0;  // overlaps the EP counted as violations (concurrent_runs=0)
};

// Runs dynamic.onnx (Y = tanh(X + B) * X, batch 50000 so that one Compute takes a while) from
// `threads` threads at once on one ORT session whose example EP has option concurrent_runs =
// `concurrent_runs`, checking every output; returns the EP's counts over those runs.
ConcurrentRunCounts RunFromThreads(const OrtOracle& ort, const std::string& concurrent_runs,
                                   int threads, int runs_per_thread) {
  ConcurrentRunCounts counts;
  Result<OracleSession> session = ort.CreateSession(
      Model("dynamic.onnx"),
      WithPlugin(ExamplePlugin({{"concurrent_runs", concurrent_runs}}), false));
  EXPECT_TRUE(session.ok()) << session.status().ToString();
  if (!session.ok()) return counts;
  PluginCounter computes(NXRT_EXAMPLE_EP, "NxrtExampleEp_ComputeCalls");
  PluginCounter overlaps(NXRT_EXAMPLE_EP, "NxrtExampleEp_ComputeOverlaps");
  PluginCounter violations(NXRT_EXAMPLE_EP, "NxrtExampleEp_ConcurrencyViolations");
  EXPECT_TRUE(computes.ok() && overlaps.ok() && violations.ok());
  if (!computes.ok() || !overlaps.ok() || !violations.ok()) return counts;

  constexpr int64_t kBatch = 50000;
  const std::vector<float> x = RandomValues(kBatch * 3, 1300);
  const std::vector<float> b = RandomValues(3, 1301);
  std::vector<float> expected(x.size());
  for (size_t i = 0; i < x.size(); ++i) expected[i] = std::tanh(x[i] + b[i % 3]) * x[i];
  const std::vector<NamedTensor> inputs = {{"X", FloatTensor({kBatch, 3}, x)},
                                           {"B", FloatTensor({3}, b)}};
  const uint64_t computes_before = computes.value();
  const uint64_t overlaps_before = overlaps.value();
  const uint64_t violations_before = violations.value();
  std::atomic<int> failures{0};
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t) {
    workers.emplace_back([&] {
      for (int run = 0; run < runs_per_thread; ++run) {
        Result<std::vector<NamedTensor>> outputs = session->Run(inputs);
        if (!outputs.ok() || (*outputs)[0].tensor.shape() != Shape{kBatch, 3}) {
          failures.fetch_add(1);
          continue;
        }
        std::span<const float> y = (*outputs)[0].tensor.span<float>();
        for (size_t i = 0; i < y.size(); ++i) {
          if (std::fabs(y[i] - expected[i]) > 1e-5f * std::fabs(expected[i]) + 1e-6f) {
            failures.fetch_add(1);
            break;
          }
        }
      }
    });
  }
  for (std::thread& worker : workers) worker.join();
  EXPECT_EQ(failures.load(), 0) << "runs that failed or gave wrong values";
  counts.computes = computes.value() - computes_before;
  counts.overlaps = overlaps.value() - overlaps_before;
  counts.violations = violations.value() - violations_before;
  return counts;
}

TEST_F(ExampleEpOrtTest, ConcurrentRunsOfOneSessionOverlapInTheEpWhenItAllowsThem) {
  // With concurrent_runs=1 ORT runs the session's Run calls in parallel, so Compute calls of the
  // one fused node overlap: this is what the detector of the next test would see.
  constexpr int kThreads = 4;
  constexpr int kRuns = 12;
  const ConcurrentRunCounts counts = RunFromThreads(oracle(), "1", kThreads, kRuns);
  EXPECT_EQ(counts.computes, 1u * kThreads * kRuns);
  EXPECT_EQ(counts.violations, 0u);
  RecordProperty("overlaps", std::to_string(counts.overlaps));
  std::printf("concurrent_runs=1: %llu of %llu Compute calls overlapped another\n",
              static_cast<unsigned long long>(counts.overlaps),
              static_cast<unsigned long long>(counts.computes));
  EXPECT_GT(counts.overlaps, 0u) << "no Compute overlapped: ORT serialised the runs anyway, or "
                                    "the machine ran the threads one after another";
}

TEST_F(ExampleEpOrtTest, OrtSerialisesRunsOfAnEpThatDoesNotSupportConcurrentRuns) {
  constexpr int kThreads = 4;
  constexpr int kRuns = 12;
  const ConcurrentRunCounts counts = RunFromThreads(oracle(), "0", kThreads, kRuns);
  EXPECT_EQ(counts.computes, 1u * kThreads * kRuns);
  EXPECT_EQ(counts.overlaps, 0u);
  EXPECT_EQ(counts.violations, 0u);
}

TEST_F(ExampleEpOrtTest, BadConcurrentRunsOptionFailsSessionCreation) {
  Result<OracleSession> session = oracle().CreateSession(
      Model("chain.onnx"), WithPlugin(ExamplePlugin({{"concurrent_runs", "yes"}}), true));
  ASSERT_FALSE(session.ok());
  EXPECT_THAT(session.status().message(),
              HasSubstr("option ep.example_ep.concurrent_runs='yes' is not 0 or 1; fix:"));
}

// ---- the device EP (plugins/device_ep) in ORT 1.30 -------------------------------------------

PluginEp DevicePlugin() {
  PluginEp plugin;
  plugin.library_path = NXRT_DEVICE_EP;
  plugin.registration_name = "nxrt_device_ep";
  plugin.ep_name = "example_device_ep";
  return plugin;
}

// The device EP's counters (NxrtDeviceEp_<name>), as growth since construction. The library
// must be loaded (registered) first.
class DeviceEpCounters {
 public:
  static constexpr const char* kNames[] = {
      "ComputeCalls",       "CopyCalls",          "HostToDeviceCopies", "DeviceToHostCopies",
      "DeviceToDeviceCopies", "AllocatorsCreated", "AllocatorsReleased", "Allocs",
      "Frees",              "BadFrees",           "RunStarts",          "RunEnds"};

  DeviceEpCounters() {
    for (const char* name : kNames) {
      counters_.push_back(
          std::make_unique<PluginCounter>(NXRT_DEVICE_EP, (std::string("NxrtDeviceEp_") + name).c_str()));
      baseline_.push_back(counters_.back()->ok() ? counters_.back()->value() : 0);
    }
  }

  bool ok() const {
    return std::all_of(counters_.begin(), counters_.end(), [](const auto& c) { return c->ok(); });
  }

  uint64_t Since(std::string_view name) const {
    for (size_t i = 0; i < std::size(kNames); ++i) {
      if (name == kNames[i]) return counters_[i]->value() - baseline_[i];
    }
    ADD_FAILURE() << "no device EP counter " << name;
    return 0;
  }

  // "ComputeCalls=3 CopyCalls=6 ...", for failure messages and the report.
  std::string Report() const {
    std::string text;
    for (size_t i = 0; i < std::size(kNames); ++i) {
      text += std::string(i == 0 ? "" : " ") + kNames[i] + "=" +
              std::to_string(counters_[i]->value() - baseline_[i]);
    }
    return text;
  }

 private:
  std::vector<std::unique_ptr<PluginCounter>> counters_;
  std::vector<uint64_t> baseline_;
};

TEST_F(ExampleEpOrtTest, DeviceEpOffersTheCpuHardwareDevice) {
  Result<std::vector<EpDeviceInfo>> devices = oracle().RegisterPlugin(DevicePlugin());
  ASSERT_TRUE(devices.ok()) << devices.status().ToString();
  ASSERT_FALSE(devices->empty());
  for (const EpDeviceInfo& device : *devices) {
    EXPECT_EQ(device.ep_name, "example_device_ep");
    EXPECT_EQ(device.ep_vendor, "nxrt");
    EXPECT_EQ(device.device_type, "cpu");
  }
  // ORT 1.30 makes the environment's shared allocator for the device memory info when the
  // library is registered (it lives until the library is unregistered).
  PluginCounter created(NXRT_DEVICE_EP, "NxrtDeviceEp_AllocatorsCreated");
  ASSERT_TRUE(created.ok());
  EXPECT_GE(created.value(), 1u);
}

TEST_F(ExampleEpOrtTest, DeviceEpRunsChainInDeviceMemoryThroughItsDataTransfer) {
  // What ORT 1.30 does for a whole-graph device EP, counted by the plugin: one allocator per
  // session (CreateAllocator at session creation, ReleaseAllocator when the session goes); per
  // run one CopyTensors call moving both inputs host -> device, one moving the output device ->
  // host, and three device blocks (the two input copies and the fused node's output), all freed.
  ASSERT_TRUE(oracle().RegisterPlugin(DevicePlugin()).ok());
  DeviceEpCounters counters;
  ASSERT_TRUE(counters.ok()) << "ORT did not load " << NXRT_DEVICE_EP;
  constexpr uint64_t kRuns = 3;
  {
    Result<OracleSession> session =
        oracle().CreateSession(Model("chain.onnx"), WithPlugin(DevicePlugin(), false));
    ASSERT_TRUE(session.ok()) << session.status().ToString();
    EXPECT_EQ(counters.Since("AllocatorsCreated"), 1u) << counters.Report();
    EXPECT_EQ(counters.Since("Allocs"), 0u) << counters.Report();
    for (uint32_t run = 0; run < kRuns; ++run) {
      const std::vector<float> x = RandomValues(24, 1400 + run);
      const std::vector<float> b = RandomValues(12, 1500 + run);
      Result<std::vector<NamedTensor>> outputs =
          session->Run({{"X", FloatTensor({2, 3, 4}, x)}, {"B", FloatTensor({3, 4}, b)}});
      ASSERT_TRUE(outputs.ok()) << outputs.status().ToString();
      ExpectClose((*outputs)[0].tensor, {2, 3, 4}, ChainReference(x, b));
    }
    EXPECT_EQ(counters.Since("ComputeCalls"), kRuns) << counters.Report();
    EXPECT_EQ(counters.Since("RunStarts"), kRuns) << counters.Report();
    EXPECT_EQ(counters.Since("RunEnds"), kRuns) << counters.Report();
    EXPECT_EQ(counters.Since("HostToDeviceCopies"), 2 * kRuns) << counters.Report();
    EXPECT_EQ(counters.Since("DeviceToHostCopies"), kRuns) << counters.Report();
    EXPECT_EQ(counters.Since("DeviceToDeviceCopies"), 0u) << counters.Report();
    EXPECT_EQ(counters.Since("CopyCalls"), 2 * kRuns) << counters.Report();
    EXPECT_EQ(counters.Since("Allocs"), 3 * kRuns) << counters.Report();
  }
  EXPECT_EQ(counters.Since("AllocatorsReleased"), 1u) << counters.Report();
  EXPECT_EQ(counters.Since("Frees"), counters.Since("Allocs")) << counters.Report();
  EXPECT_EQ(counters.Since("BadFrees"), 0u) << counters.Report();
}

TEST_F(ExampleEpOrtTest, DeviceEpGetsCpuMemoryFromOrtsMemcpyFromHostOnSplit) {
  // ORT 1.30 puts MemcpyToHost before MatMul and MemcpyFromHost after it. The plugin has no
  // kernels for them, so ORT runs its CPU EP's fallback kernels: MemcpyToHost copies through the
  // plugin's CopyTensors, but MemcpyFromHost's output is planned in CPU memory, so the second
  // fused node gets a CPU input and the plugin's check fails the run (ORT PR #27272 addresses
  // this). A host must do better: nxrt's host has to copy that value into device memory.
  ASSERT_TRUE(oracle().RegisterPlugin(DevicePlugin()).ok());
  Result<OracleSession> session =
      oracle().CreateSession(Model("split.onnx"), WithPlugin(DevicePlugin(), true));
  ASSERT_TRUE(session.ok()) << session.status().ToString();
  DeviceEpCounters counters;
  ASSERT_TRUE(counters.ok());
  Result<std::vector<NamedTensor>> outputs =
      session->Run({{"X", FloatTensor({2, 4}, RandomValues(8, 1600))}});
  ASSERT_FALSE(outputs.ok()) << "ORT now copies MemcpyFromHost's output into device memory: "
                                "make this test check values against the CPU EP";
  EXPECT_THAT(outputs.status().message(),
              HasSubstr("input 0 is in CPU memory (DEFAULT, vendor 0x0, device 0), not in the "
                        "EP's GPU memory (DEFAULT, vendor 0xe1e1, device 0)"));
  EXPECT_EQ(counters.Since("ComputeCalls"), 1u) << counters.Report();        // first group
  EXPECT_EQ(counters.Since("HostToDeviceCopies"), 1u) << counters.Report();  // X
  EXPECT_EQ(counters.Since("DeviceToHostCopies"), 1u) << counters.Report();  // MemcpyToHost
}

// ---- fault fixtures (plugins/faults) in ORT 1.30 ------------------------------------------
// Not run here: create_ep_null_fn, create_state_null_fn and compute_null_fn crash ORT 1.30 (it
// calls the null slot).

PluginEp Fault(const std::string& name) {
  PluginEp plugin;
  plugin.library_path = std::string(NXRT_FAULT_PLUGIN_DIR) + "/libnxrt_fault_" + name + ".so";
  plugin.registration_name = "fault_" + name;
  return plugin;
}

TEST_F(ExampleEpOrtTest, FaultsInCreateEpFactoriesFailRegistration) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"no_create_symbol", "undefined symbol: CreateEpFactories"},
      {"factories_error", "fault fixture factories_error: CreateEpFactories fails on purpose"},
      {"null_factory", "Factory pointer was null"},
      {"api_version_too_high", "fault fixture api_version_too_high: GetApi(31) gave NULL"},
  };
  for (const auto& [fault, message] : cases) {
    Result<std::vector<EpDeviceInfo>> devices = oracle().RegisterPlugin(Fault(fault));
    ASSERT_FALSE(devices.ok()) << fault;
    EXPECT_THAT(devices.status().message(), HasSubstr(message)) << fault;
  }
}

TEST_F(ExampleEpOrtTest, ZeroFactoriesRegisterWithoutDevices) {
  Result<std::vector<EpDeviceInfo>> devices = oracle().RegisterPlugin(Fault("zero_factories"));
  ASSERT_TRUE(devices.ok()) << devices.status().ToString();
  EXPECT_TRUE(devices->empty());
}

TEST_F(ExampleEpOrtTest, FaultsThatFailSessionCreationEvenWithFallback) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"create_ep_fails", "fault fixture create_ep_fails: CreateEp fails on purpose"},
      {"create_ep_returns_null", "returned a NULL OrtEp instance"},
      {"compile_fails", "fault fixture compile_fails: Compile fails on purpose"},
      {"compile_null_info", "did not set a valid OrtNodeComputeInfo"},
      // ORT logs the fixture's message and returns its own.
      {"create_state_fails", "Create state function failed"},
      // ORT does not check the group and builds a graph defining node 0's output twice.
      {"group_node_twice", "Duplicate definition of name"},
  };
  for (const auto& [fault, message] : cases) {
    Result<OracleSession> session =
        oracle().CreateSession(Model("chain.onnx"), WithPlugin(Fault(fault), true));
    ASSERT_FALSE(session.ok()) << fault;
    EXPECT_THAT(session.status().message(), HasSubstr(message)) << fault;
  }
}

TEST_F(ExampleEpOrtTest, FaultyClaimsAreDroppedAndTheCpuEpRunsTheModel) {
  // ORT logs the failure or the bad group and ignores the EP's claim.
  for (const std::string fault : {"capability_fails", "group_unknown_node", "group_non_convex"}) {
    EXPECT_FALSE(oracle()
                     .CreateSession(Model("chain.onnx"), WithPlugin(Fault(fault), false))
                     .ok())
        << fault << " claimed something";
    Result<OracleSession> with_fault =
        oracle().CreateSession(Model("chain.onnx"), WithPlugin(Fault(fault), true));
    ASSERT_TRUE(with_fault.ok()) << fault << ": " << with_fault.status().ToString();
    const std::vector<float> x = RandomValues(24, 800);
    const std::vector<float> b = RandomValues(12, 801);
    Result<std::vector<NamedTensor>> outputs =
        with_fault->Run({{"X", FloatTensor({2, 3, 4}, x)}, {"B", FloatTensor({3, 4}, b)}});
    ASSERT_TRUE(outputs.ok()) << fault << ": " << outputs.status().ToString();
    ExpectClose((*outputs)[0].tensor, {2, 3, 4}, ChainReference(x, b));
  }
}

TEST_F(ExampleEpOrtTest, ComputeFailsFailsTheRunWithItsMessage) {
  Result<OracleSession> session =
      oracle().CreateSession(Model("chain.onnx"), WithPlugin(Fault("compute_fails"), true));
  ASSERT_TRUE(session.ok()) << session.status().ToString();
  Result<std::vector<NamedTensor>> outputs = session->Run(
      {{"X", FloatTensor({2, 3, 4}, RandomValues(24, 900))},
       {"B", FloatTensor({3, 4}, RandomValues(12, 901))}});
  ASSERT_FALSE(outputs.ok());
  EXPECT_THAT(outputs.status().message(),
              HasSubstr("fault fixture compute_fails: Compute fails on purpose"));
}

TEST_F(ExampleEpOrtTest, ClaimsOnNodesAnotherEpOwnsAreRejected) {
  // example_ep takes its two groups first; group_claims_all then claims every node, including
  // example_ep's fused ones, and ORT drops that group: MatMul goes to the CPU EP.
  OracleOptions options = WithPlugin(ExamplePlugin(), true);
  options.plugins.push_back(Fault("group_claims_all"));
  Result<OracleSession> both = oracle().CreateSession(Model("split.onnx"), options);
  ASSERT_TRUE(both.ok()) << both.status().ToString();
  Result<OracleSession> cpu_only = oracle().CreateSession(Model("split.onnx"));
  ASSERT_TRUE(cpu_only.ok()) << cpu_only.status().ToString();
  ComputeCounter counter;
  ASSERT_TRUE(counter.ok());
  const uint64_t before = counter.calls();
  const std::vector<NamedTensor> inputs = {{"X", FloatTensor({2, 4}, RandomValues(8, 1000))}};
  Result<std::vector<NamedTensor>> actual = both->Run(inputs);
  ASSERT_TRUE(actual.ok()) << actual.status().ToString();
  Result<std::vector<NamedTensor>> expected = cpu_only->Run(inputs);
  ASSERT_TRUE(expected.ok()) << expected.status().ToString();
  ExpectEqualOutputs(*actual, *expected);
  EXPECT_EQ(counter.calls() - before, 2u);
}

TEST_F(ExampleEpOrtTest, OrtDoesNotCheckTheFactoryVersion) {
  // ORT 1.30 accepts ort_version_supported 0 and 21 and runs the EP; nxrt's host must refuse.
  for (const std::string fault : {"factory_version_0", "factory_version_21"}) {
    Result<OracleSession> session =
        oracle().CreateSession(Model("chain.onnx"), WithPlugin(Fault(fault), false));
    ASSERT_TRUE(session.ok()) << fault << ": " << session.status().ToString();
    const std::vector<float> x = RandomValues(24, 1100);
    const std::vector<float> b = RandomValues(12, 1101);
    Result<std::vector<NamedTensor>> outputs =
        session->Run({{"X", FloatTensor({2, 3, 4}, x)}, {"B", FloatTensor({3, 4}, b)}});
    ASSERT_TRUE(outputs.ok()) << fault << ": " << outputs.status().ToString();
    ExpectClose((*outputs)[0].tensor, {2, 3, 4}, ChainReference(x, b));
  }
}

}  // namespace
}  // namespace nxrt::oracle
