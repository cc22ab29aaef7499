// plugins/example_ep_ort_test.cpp: the example plugin EP (plugins/example_ep) in real ONNX
// Runtime 1.30, loaded through the ORT oracle.
//
// Layer: acceptance test of the test plugins (DESIGN.md §5.3). Pure-elementwise models run with
// ORT's CPU fallback disabled, so every node must run in the plugin; outputs are checked against
// loops written here (fixed-seed inputs, rtol 1e-5). Mixed models run with fallback and must
// equal ORT's CPU-only outputs. The plugin's Compute counter, read by dlopen-ing the library ORT
// loaded, proves how many fused groups ran. Fault fixtures that ORT itself rejects cleanly are
// checked to fail with their own message.
#include <dlfcn.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "ort_oracle/oracle_test_util.h"
#include "ort_oracle/ort_oracle.h"

#if !defined(NXRT_EXAMPLE_EP) || !defined(NXRT_EXAMPLE_EP_MODELS) || !defined(NXRT_FAULT_PLUGIN_DIR)
#error "NXRT_EXAMPLE_EP, NXRT_EXAMPLE_EP_MODELS and NXRT_FAULT_PLUGIN_DIR must come from the build"
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

// The counters of the plugin instance ORT loaded (same file, so dlopen shares it).
class ComputeCounter {
 public:
  ComputeCounter() {
    handle_ = dlopen(NXRT_EXAMPLE_EP, RTLD_NOW | RTLD_NOLOAD);
    if (handle_ == nullptr) return;
    calls_ = reinterpret_cast<uint64_t (*)()>(dlsym(handle_, "NxrtExampleEp_ComputeCalls"));
  }
  ~ComputeCounter() {
    if (handle_ != nullptr) dlclose(handle_);
  }
  ComputeCounter(const ComputeCounter&) = delete;
  ComputeCounter& operator=(const ComputeCounter&) = delete;

  // False when ORT has not loaded the plugin or it lacks the counter.
  bool ok() const { return calls_ != nullptr; }
  uint64_t calls() const { return calls_(); }

 private:
  void* handle_ = nullptr;
  uint64_t (*calls_)() = nullptr;
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
      {"api_version_too_high", "fault fixture api_version_too_high: GetApi(30) gave"},
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
