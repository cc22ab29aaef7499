// ort_ep/ort_ep_test.cpp: libnxrt_ort_ep.so (nxrt's CPU EP as an ONNX Runtime plugin EP) in
// real ONNX Runtime 1.30 and in nxrt's own plugin host.
//
// Layer: acceptance test (docs/ort_plugin_export.md). The reference is ORT 1.30's CPU EP on the
// same fixed-seed inputs (tests/real_models.h). With ORT's CPU fallback disabled every node must
// run on NxrtExecutionProvider, and ORT's own profile must show the fused nodes on it.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>
#include <unistd.h>
#include <vector>

#include "ir/onnx_test_models.h"
#include "nxrt/session.h"
#include "ort_oracle/oracle_test_util.h"
#include "ort_oracle/ort_oracle.h"
#include "ort_oracle/tensor_diff.h"
#include "real_models.h"

#if !defined(NXRT_ORT_EP)
#error "NXRT_ORT_EP (the path of libnxrt_ort_ep.so) must come from the build"
#endif

namespace nxrt::oracle {
namespace {

constexpr const char* kEpName = "NxrtExecutionProvider";

PluginEp NxrtPlugin(std::vector<std::pair<std::string, std::string>> ep_options = {}) {
  PluginEp plugin;
  plugin.library_path = NXRT_ORT_EP;
  plugin.registration_name = "nxrt_ort_ep";
  plugin.ep_name = kEpName;
  plugin.ep_options = std::move(ep_options);
  return plugin;
}

// The plugin first, ORT's CPU EP allowed no node.
OracleOptions PluginOnly(std::vector<std::pair<std::string, std::string>> ep_options = {}) {
  OracleOptions options;
  options.plugins.push_back(NxrtPlugin(std::move(ep_options)));
  options.config_entries.push_back({"session.disable_cpu_ep_fallback", "1"});
  return options;
}

// ORT's CPU EP alone on the model's fixed-seed inputs.
std::vector<NamedTensor> OrtCpuOutputs(const OrtOracle& oracle, const RealModel& model,
                                       const std::vector<NamedTensor>& inputs) {
  Result<std::vector<NamedTensor>> outputs = oracle.Run(model.path().string(), inputs);
  EXPECT_TRUE(outputs.ok()) << outputs.status().ToString();
  return outputs.ok() ? *outputs : std::vector<NamedTensor>{};
}

void ExpectMatches(const std::vector<NamedTensor>& got, const std::vector<NamedTensor>& want,
                   const RealModel& model) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_EQ(got[i].name, want[i].name);
    EXPECT_EQ(TensorDiff(got[i].tensor, want[i].tensor, model.rtol, model.atol), "")
        << model.name << " output '" << want[i].name << "'";
  }
}

// The fused-node spans of ORT's profile files starting with `prefix`: provider → count.
std::map<std::string, int> NodeProviders(const std::string& prefix) {
  std::map<std::string, int> providers;
  const std::filesystem::path dir = std::filesystem::path(prefix).parent_path();
  const std::string stem = std::filesystem::path(prefix).filename().string();
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    const std::string file = entry.path().filename().string();
    if (file.rfind(stem, 0) != 0 || entry.path().extension() != ".json") continue;
    std::ifstream in(entry.path());
    const nlohmann::json trace = nlohmann::json::parse(in);
    for (const auto& event : trace) {
      if (event.value("cat", "") != "Node" || !event.contains("args")) continue;
      const auto& args = event["args"];
      if (args.contains("provider")) ++providers[args["provider"].get<std::string>()];
    }
  }
  return providers;
}

std::string ProfilePrefix(const std::string& name) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "nxrt_ort_ep_test";
  std::filesystem::create_directories(dir);
  const std::string prefix = (dir / (name + "_" + std::to_string(::getpid()))).string();
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().filename().string().rfind(name + "_", 0) == 0) {
      std::filesystem::remove(entry.path());
    }
  }
  return prefix;
}

std::vector<std::string> ModelNames() {
  std::vector<std::string> names;
  for (const RealModel& model : RealModels()) names.push_back(model.name);
  return names;
}

class OrtEpTest : public OracleTest {};

TEST_F(OrtEpTest, OffersTheHostCpuAsNxrtExecutionProvider) {
  Result<std::vector<EpDeviceInfo>> devices = oracle().RegisterPlugin(NxrtPlugin());
  ASSERT_TRUE(devices.ok()) << devices.status().ToString();
  ASSERT_FALSE(devices->empty());
  for (const EpDeviceInfo& device : *devices) {
    EXPECT_EQ(device.ep_name, kEpName);
    EXPECT_EQ(device.ep_vendor, "nxrt");
    EXPECT_EQ(device.device_type, "cpu");
  }
}

TEST_F(OrtEpTest, BadOptionsNameTheOptionAndTheAllowedValues) {
  const RealModel& model = *FindRealModel("oww_hey_jarvis");
  struct Case {
    std::string key, value, expected;
  };
  const std::vector<Case> cases = {
      {"threads", "two", "allowed: an integer from 0 to 1024"},
      {"opt_level", "3", "allowed: 0 (none), 1 (basic) or 2"},
      {"disabled_passes", "conv_bn_folding,no_such_pass", "'no_such_pass' is no pass"},
      {"thread", "2", "allowed keys: ep.nxrtexecutionprovider.threads"},
  };
  for (const Case& c : cases) {
    Result<OracleSession> session =
        oracle().CreateSession(model.path().string(), PluginOnly({{c.key, c.value}}));
    ASSERT_FALSE(session.ok()) << c.key;
    const std::string message = session.status().message();
    EXPECT_NE(message.find("ep.nxrtexecutionprovider." + c.key + "='" + c.value + "'"),
              std::string::npos)
        << message;
    EXPECT_NE(message.find(c.expected), std::string::npos) << message;
  }
}

class OrtEpRealModelTest : public OracleTest,
                           public ::testing::WithParamInterface<std::string> {};

// Every node on the plugin (CPU fallback disabled), outputs as ORT's CPU EP's, and ORT's profile
// shows each fused node on NxrtExecutionProvider and none on ORT's CPU EP.
TEST_P(OrtEpRealModelTest, RunsWhollyOnThePluginInOrtAndMatchesOrtCpu) {
  const RealModel& model = *FindRealModel(GetParam());
  if (!std::filesystem::exists(model.path())) GTEST_SKIP() << model.path() << " not fetched";
  const std::vector<NamedTensor> inputs = RealModelInputs(model).value();
  const std::vector<NamedTensor> want = OrtCpuOutputs(oracle(), model, inputs);
  OracleOptions options = PluginOnly();
  options.profile_prefix = ProfilePrefix(model.name);
  {
    Result<OracleSession> session = oracle().CreateSession(model.path().string(), options);
    ASSERT_TRUE(session.ok()) << session.status().ToString();
    for (int run = 0; run < 2; ++run) {
      Result<std::vector<NamedTensor>> got = session->Run(inputs);
      ASSERT_TRUE(got.ok()) << got.status().ToString();
      ExpectMatches(*got, want, model);
    }
  }
  const std::map<std::string, int> providers = NodeProviders(options.profile_prefix);
  EXPECT_GT(providers.count(kEpName) ? providers.at(kEpName) : 0, 0);
  for (const auto& [provider, count] : providers) {
    EXPECT_EQ(provider, kEpName) << count << " node spans on " << provider;
  }
}

// The same library in nxrt's plugin host, without fallback to nxrt's CPU EP.
TEST_P(OrtEpRealModelTest, RunsWhollyOnThePluginInNxrtAndMatchesOrtCpu) {
  const RealModel& model = *FindRealModel(GetParam());
  if (!std::filesystem::exists(model.path())) GTEST_SKIP() << model.path() << " not fetched";
  const std::vector<NamedTensor> inputs = RealModelInputs(model).value();
  const std::vector<NamedTensor> want = OrtCpuOutputs(oracle(), model, inputs);
  SessionOptions options;
  options.providers.emplace_back().type = std::string("plugin:") + NXRT_ORT_EP;
  options.allow_fallback = false;
  options.intra_op_threads = 1;
  Result<std::unique_ptr<Session>> session = Session::Create(model.path().string(), options);
  ASSERT_TRUE(session.ok()) << session.status().ToString();
  Result<std::vector<NamedTensor>> got = (*session)->Run(inputs);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  ExpectMatches(*got, want, model);
  // Every step ran on the plugin: its fused groups and the control-flow nodes it claimed.
  int fused = 0;
  for (const KernelStats& step : (*session)->Stats()) {
    EXPECT_EQ(step.ep, kEpName) << step.name << " (" << step.op_type << ")";
    if (step.op_type == "fused" && step.calls > 0) ++fused;
  }
  EXPECT_GT(fused, 0);
}

INSTANTIATE_TEST_SUITE_P(RealModels, OrtEpRealModelTest, ::testing::ValuesIn(ModelNames()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return info.param;
                         });

// The recurrent ops' `activations` (a STRINGS attribute, which ORT 1.30's ReadOpAttr writes as
// each string followed by its '\0') reach the plugin intact: an LSTM and a GRU with
// non-default activations run wholly on the plugin in ORT (CPU fallback disabled) and give ORT's
// CPU EP's outputs, which the defaults (Sigmoid/Tanh) would not.
TEST_F(OrtEpTest, RecurrentActivationsReachThePlugin) {
  namespace t = ir::testing;
  constexpr int64_t kSeq = 3, kBatch = 2, kIn = 4, kHidden = 5;
  onnx::ModelProto model = t::MakeModel(14);
  onnx::GraphProto* g = model.mutable_graph();
  t::FillValueInfo(g->add_input(), "X", onnx::TensorProto::FLOAT, {kSeq, kBatch, kIn});
  // Weights: small distinct values, w[i] = 0.05 * ((i * 7) % 11 - 5).
  auto weights = [&](const std::string& name, std::initializer_list<int64_t> dims) {
    int64_t size = 1;
    for (int64_t d : dims) size *= d;
    std::vector<float> w(static_cast<size_t>(size));
    for (size_t i = 0; i < w.size(); ++i) w[i] = 0.05f * static_cast<float>((i * 7) % 11) - 0.25f;
    t::FillFloatTensor(g->add_initializer(), name, dims, w);
  };
  weights("lstm_w", {1, 4 * kHidden, kIn});
  weights("lstm_r", {1, 4 * kHidden, kHidden});
  weights("gru_w", {1, 3 * kHidden, kIn});
  weights("gru_r", {1, 3 * kHidden, kHidden});
  auto strings = [](onnx::NodeProto* node, std::initializer_list<std::string> values) {
    onnx::AttributeProto* a = node->add_attribute();
    a->set_name("activations");
    a->set_type(onnx::AttributeProto::STRINGS);
    for (const std::string& v : values) a->add_strings(v);
  };
  onnx::NodeProto* lstm = t::AddNode(g, "LSTM", {"X", "lstm_w", "lstm_r"}, {"Y_lstm"}, "lstm");
  t::AddIntAttribute(lstm, "hidden_size", kHidden);
  strings(lstm, {"HardSigmoid", "Softsign", "Relu"});
  onnx::NodeProto* gru = t::AddNode(g, "GRU", {"X", "gru_w", "gru_r"}, {"Y_gru"}, "gru");
  t::AddIntAttribute(gru, "hidden_size", kHidden);
  strings(gru, {"Relu", "Softsign"});
  t::FillValueInfo(g->add_output(), "Y_lstm", onnx::TensorProto::FLOAT,
                   {kSeq, 1, kBatch, kHidden});
  t::FillValueInfo(g->add_output(), "Y_gru", onnx::TensorProto::FLOAT,
                   {kSeq, 1, kBatch, kHidden});
  const t::TempDir dir("ort_ep_recurrent");
  const std::string path = (dir / "recurrent_activations.onnx").string();
  t::WriteModel(path, model);

  std::vector<float> x(kSeq * kBatch * kIn);
  for (size_t i = 0; i < x.size(); ++i) x[i] = 0.3f * static_cast<float>(i % 9) - 1.1f;
  const std::vector<NamedTensor> inputs = {
      {"X", Tensor::FromVector<float>({kSeq, kBatch, kIn}, x).value()}};
  Result<std::vector<NamedTensor>> want = oracle().Run(path, inputs);
  ASSERT_TRUE(want.ok()) << want.status().ToString();
  Result<OracleSession> session = oracle().CreateSession(path, PluginOnly());
  ASSERT_TRUE(session.ok()) << session.status().ToString();
  Result<std::vector<NamedTensor>> got = session->Run(inputs);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  ASSERT_EQ(got->size(), want->size());
  for (size_t i = 0; i < got->size(); ++i) {
    EXPECT_EQ(TensorDiff((*got)[i].tensor, (*want)[i].tensor, 1e-5, 1e-6), "")
        << (*want)[i].name;
  }
}

// 4 threads × 50 runs of one ORT session: every output identical to a single-threaded run's.
TEST_F(OrtEpTest, ConcurrentRunsGiveIdenticalOutputs) {
  const RealModel& model = *FindRealModel("oww_embedding");
  if (!std::filesystem::exists(model.path())) GTEST_SKIP() << model.path() << " not fetched";
  const std::vector<NamedTensor> inputs = RealModelInputs(model).value();
  Result<OracleSession> session =
      oracle().CreateSession(model.path().string(), PluginOnly({{"threads", "1"}}));
  ASSERT_TRUE(session.ok()) << session.status().ToString();
  const std::vector<NamedTensor> first = session->Run(inputs).value();
  std::atomic<int> mismatches{0};
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int run = 0; run < 50; ++run) {
        Result<std::vector<NamedTensor>> got = session->Run(inputs);
        if (!got.ok()) {
          ++failures;
          continue;
        }
        for (size_t i = 0; i < first.size(); ++i) {
          if (TensorDiff((*got)[i].tensor, first[i].tensor, 0, 0) != "") ++mismatches;
        }
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(mismatches.load(), 0);
}

// Resident memory in KiB (VmRSS of /proc/self/status).
long ResidentKiB() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmRSS:", 0) == 0) return std::stol(line.substr(6));
  }
  return -1;
}

// 100 cycles of register → session → run → release → unregister: each works, and memory does
// not grow with the cycles (a leaked session, model copy or library would add megabytes).
TEST_F(OrtEpTest, HundredRegisterUnregisterCyclesKeepWorkingWithoutGrowing) {
  const RealModel& model = *FindRealModel("oww_hey_jarvis");
  if (!std::filesystem::exists(model.path())) GTEST_SKIP() << model.path() << " not fetched";
  const std::vector<NamedTensor> inputs = RealModelInputs(model).value();
  const std::vector<NamedTensor> want = OrtCpuOutputs(oracle(), model, inputs);
  long after_warmup = 0;
  for (int cycle = 0; cycle < 100; ++cycle) {
    ASSERT_TRUE(oracle().RegisterPlugin(NxrtPlugin()).ok()) << "cycle " << cycle;
    {
      Result<OracleSession> session = oracle().CreateSession(model.path().string(), PluginOnly());
      ASSERT_TRUE(session.ok()) << "cycle " << cycle << ": " << session.status().ToString();
      Result<std::vector<NamedTensor>> got = session->Run(inputs);
      ASSERT_TRUE(got.ok()) << "cycle " << cycle << ": " << got.status().ToString();
      ExpectMatches(*got, want, model);
    }
    Status unregistered = oracle().UnregisterPlugin("nxrt_ort_ep");
    ASSERT_TRUE(unregistered.ok()) << "cycle " << cycle << ": " << unregistered.ToString();
    if (cycle == 9) after_warmup = ResidentKiB();
  }
  const long growth = ResidentKiB() - after_warmup;
  EXPECT_LT(growth, 16 * 1024) << "resident memory grew by " << growth << " KiB over 90 cycles";
}

}  // namespace
}  // namespace nxrt::oracle
