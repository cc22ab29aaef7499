// tests/plugin_host/plugin_fidelity_test.cpp: what a plugin is told, in ONNX Runtime 1.30 and in
// nxrt, compared line for line through the probe EP's record (plugins/probe_ep).
//
// Layer: plugin-interop acceptance test. The probe EP (EP name "Nxrt_Probe_EP") records the
// session config entries it finds under "ep." in CreateEp (where ORT puts the EP options, under
// the lower-cased EP name), the environment's config entries (OrtEpApi::GetEnvConfigEntries),
// whether GetApi(30) and GetModelEditorApi give tables and what the model editor's type builders
// make, every GetCapability and Compile in call order (ORT partitions bodies before the graph
// that holds them), and OrtApi::KernelContext_GetPreallocatedOutput (API 30) after each Compute.
// Each test loads the library afresh in each host (ORT: registered for the one session, then
// unregistered) and requires the two records to be equal and to show the facts named.
#include <dlfcn.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "nxrt/input_generator.h"
#include "nxrt/session.h"
#include "ort_oracle/ort_oracle.h"
#include "ort_oracle/tensor_diff.h"

namespace nxrt {
namespace {

using ::testing::HasSubstr;

const std::string kProbeEp = NXRT_PROBE_EP;
constexpr const char* kEpName = "Nxrt_Probe_EP";

std::string ModelPath(const std::string& name) {
  return std::string(NXRT_EXAMPLE_EP_MODELS) + "/" + name + ".onnx";
}

// The probe's record, through a handle of the test's own on the same file (the instance either
// host loaded, kept mapped between sessions).
class ProbeRecord {
 public:
  ProbeRecord() { handle_ = dlopen(kProbeEp.c_str(), RTLD_NOW | RTLD_LOCAL); }
  ~ProbeRecord() {
    if (handle_ != nullptr) dlclose(handle_);
  }
  bool ok() const { return handle_ != nullptr; }
  void Reset() const { reinterpret_cast<void (*)()>(dlsym(handle_, "NxrtProbeEp_Reset"))(); }
  std::string Take() const {
    std::string text = reinterpret_cast<const char* (*)()>(dlsym(handle_, "NxrtProbeEp_Record"))();
    Reset();
    return text;
  }

 private:
  void* handle_ = nullptr;
};

using Options = std::vector<std::pair<std::string, std::string>>;

// Fixed-seed inputs for `model`; Loop's trip count is 2 and its condition true.
std::vector<NamedTensor> InputsFor(const std::string& model) {
  Result<std::unique_ptr<Session>> session = Session::Create(model);
  EXPECT_TRUE(session.ok()) << session.status().ToString();
  if (!session.ok()) return {};
  GeneratorOptions gen;
  gen.seed = 5;
  Result<std::vector<NamedTensor>> inputs = GenerateInputs((*session)->inputs(), gen);
  EXPECT_TRUE(inputs.ok()) << inputs.status().ToString();
  if (!inputs.ok()) return {};
  for (NamedTensor& in : *inputs) {
    if (in.name == "N") in.tensor = Tensor::Scalar<int64_t>(2);
    if (in.name == "C") in.tensor = Tensor::Scalar<bool>(true);
  }
  return *inputs;
}

struct HostRun {
  std::string record;
  std::vector<NamedTensor> outputs;
};

// One ORT session with the probe (registered as `registration`, unregistered afterwards), one
// run when `inputs` is not empty.
HostRun RunInOrt(const oracle::OrtOracle& ort, const ProbeRecord& probe, const std::string& model,
                 const std::string& registration, const Options& options,
                 const std::vector<NamedTensor>& inputs) {
  probe.Reset();
  HostRun out;
  oracle::OracleOptions session_options;
  oracle::PluginEp plugin;
  plugin.library_path = kProbeEp;
  plugin.registration_name = registration;
  plugin.ep_name = kEpName;
  plugin.ep_options = options;
  session_options.plugins.push_back(plugin);
  {
    Result<oracle::OracleSession> session = ort.CreateSession(model, session_options);
    EXPECT_TRUE(session.ok()) << session.status().ToString();
    if (session.ok() && !inputs.empty()) {
      Result<std::vector<NamedTensor>> ran = session->Run(inputs);
      EXPECT_TRUE(ran.ok()) << ran.status().ToString();
      if (ran.ok()) out.outputs = *ran;
    }
  }
  EXPECT_TRUE(ort.UnregisterPlugin(registration).ok());
  out.record = probe.Take();
  return out;
}

HostRun RunInNxrt(const ProbeRecord& probe, const std::string& model,
                  const std::string& registration, const Options& options,
                  const std::vector<NamedTensor>& inputs) {
  probe.Reset();
  HostRun out;
  SessionOptions session_options;
  session_options.intra_op_threads = 1;
  EpSpec spec{"plugin:" + kProbeEp + ":" + registration, {}, {}, {}};
  for (const auto& [key, value] : options) spec.config.Set(key, value);
  session_options.providers.push_back(spec);
  {
    Result<std::unique_ptr<Session>> session = Session::Create(model, session_options);
    EXPECT_TRUE(session.ok()) << session.status().ToString();
    if (session.ok() && !inputs.empty()) {
      Result<std::vector<NamedTensor>> ran = (*session)->Run(inputs);
      EXPECT_TRUE(ran.ok()) << ran.status().ToString();
      if (ran.ok()) out.outputs = *ran;
    }
  }
  out.record = probe.Take();
  return out;
}

class ProbeEpTest : public ::testing::TestWithParam<std::string> {};

// Options under the lower-cased EP name, API 30 and the model editor's tables, the call order
// (bodies first), the preallocated outputs and the outputs: the same in both hosts.
TEST_P(ProbeEpTest, TellsThePluginWhatOnnxRuntimeTellsIt) {
  Result<oracle::OrtOracle> ort = oracle::OrtOracle::Load();
  if (!ort.ok()) GTEST_SKIP() << "ONNX Runtime is not fetched: run scripts/bootstrap.sh";
  ProbeRecord probe;
  ASSERT_TRUE(probe.ok()) << dlerror();
  const std::string model = ModelPath(GetParam());
  const std::vector<NamedTensor> inputs = InputsFor(model);
  ASSERT_FALSE(inputs.empty());
  const Options options = {{"claim_ops", "Add,Mul,Relu,Sigmoid,Tanh"}, {"max_group_size", "0"}};

  const HostRun in_ort = RunInOrt(*ort, probe, model, "nxrt_probe_ep", options, inputs);
  const HostRun in_nxrt = RunInNxrt(probe, model, "nxrt_probe_ep", options, inputs);

  EXPECT_THAT(in_ort.record,
              HasSubstr("CreateEpFactories: GetApi(30) table; GetModelEditorApi table\n"));
  EXPECT_THAT(in_ort.record,
              HasSubstr("CreateEp options: ep.nxrt_probe_ep.claim_ops=Add,Mul,Relu,Sigmoid,Tanh, "
                        "ep.nxrt_probe_ep.max_group_size=0\n"));
  EXPECT_THAT(in_ort.record, HasSubstr("Compute: preallocated output 0 set\n"));
  EXPECT_EQ(in_nxrt.record, in_ort.record) << GetParam() << ": the probe's record in nxrt (first) "
                                           << "and in ORT 1.30";
  ASSERT_EQ(in_nxrt.outputs.size(), in_ort.outputs.size());
  for (size_t i = 0; i < in_ort.outputs.size(); ++i) {
    EXPECT_EQ(oracle::TensorDiff(in_nxrt.outputs[i].tensor, in_ort.outputs[i].tensor, 1e-5, 1e-6),
              "")
        << GetParam() << ", output '" << in_ort.outputs[i].name << "'";
  }
}

INSTANTIATE_TEST_SUITE_P(Models, ProbeEpTest,
                         ::testing::Values("chain", "split", "branch", "loop", "scan"));

// ORT partitions bottom-up: an If's bodies get GetCapability and Compile before the graph that
// holds the If, in the model's attribute order (branch.onnx lists else_branch first, as onnx's
// helper sorts attributes), in both hosts.
TEST(ProbeEp, BodiesArePartitionedBeforeTheirGraph) {
  Result<oracle::OrtOracle> ort = oracle::OrtOracle::Load();
  if (!ort.ok()) GTEST_SKIP() << "ONNX Runtime is not fetched: run scripts/bootstrap.sh";
  ProbeRecord probe;
  ASSERT_TRUE(probe.ok());
  const std::string model = ModelPath("branch");
  const std::string calls =
      "GetCapability 'else' (1 nodes)\nCompile 1/1: else_sigmoid\n"
      "GetCapability 'then' (1 nodes)\nCompile 1/1: then_relu\n"
      "GetCapability 'branch' (3 nodes)\nCompile 1/2: add\nCompile 2/2: mul\n";
  EXPECT_THAT(RunInOrt(*ort, probe, model, "nxrt_probe_ep", {}, {}).record, HasSubstr(calls));
  EXPECT_THAT(RunInNxrt(probe, model, "nxrt_probe_ep", {}, {}).record, HasSubstr(calls));
}

// The lines of `record` that start with `prefix`.
std::string LinesStartingWith(const std::string& record, const std::string& prefix) {
  std::string lines;
  size_t start = 0;
  while (start < record.size()) {
    size_t end = record.find('\n', start);
    if (end == std::string::npos) end = record.size();
    if (record.compare(start, prefix.size(), prefix) == 0) {
      lines += record.substr(start, end - start) + "\n";
    }
    start = end + 1;
  }
  return lines;
}

// The hardware devices OrtEpFactory::GetSupportedDevices is offered on this machine, as the
// plugin reads them (type, vendor id, vendor, device id, metadata): ORT 1.30's discovery and
// nxrt's (src/ep/ort_plugin/host_devices.h) give the same list, the CPU first. Machines with
// GPUs or NPUs are covered by plugin_devices_test.cpp over a laid-out device tree.
TEST(ProbeEp, IsOfferedTheHardwareDevicesOnnxRuntimeFinds) {
  Result<oracle::OrtOracle> ort = oracle::OrtOracle::Load();
  if (!ort.ok()) GTEST_SKIP() << "ONNX Runtime is not fetched: run scripts/bootstrap.sh";
  ProbeRecord probe;
  ASSERT_TRUE(probe.ok());
  const std::string model = ModelPath("chain");
  const std::string prefix = "GetSupportedDevices: ";
  const std::string in_ort =
      LinesStartingWith(RunInOrt(*ort, probe, model, "nxrt_probe_ep", {}, {}).record, prefix);
  const std::string in_nxrt =
      LinesStartingWith(RunInNxrt(probe, model, "nxrt_probe_ep", {}, {}).record, prefix);
  EXPECT_THAT(in_ort, ::testing::StartsWith(prefix + "cpu vendor_id="));
  EXPECT_EQ(in_nxrt, in_ort) << "the devices offered in nxrt (first) and in ORT 1.30";
}

// A library registered as "<name>.virtual" finds allow_virtual_devices=1 among the env config
// entries while it is loaded; a later registration under a plain name does not.
TEST(ProbeEp, VirtualRegistrationAllowsVirtualDevices) {
  Result<oracle::OrtOracle> ort = oracle::OrtOracle::Load();
  if (!ort.ok()) GTEST_SKIP() << "ONNX Runtime is not fetched: run scripts/bootstrap.sh";
  ProbeRecord probe;
  ASSERT_TRUE(probe.ok());
  const std::string model = ModelPath("chain");
  for (const auto& [registration, entries] :
       {std::pair{"nxrt_probe_ep.virtual", "allow_virtual_devices=1"},
        std::pair{"nxrt_probe_ep", ""}}) {
    const std::string in_ort = RunInOrt(*ort, probe, model, registration, {}, {}).record;
    const std::string in_nxrt = RunInNxrt(probe, model, registration, {}, {}).record;
    EXPECT_THAT(in_ort, HasSubstr(std::string("env config in CreateEpFactories: ") + entries +
                                  "\n"));
    EXPECT_THAT(in_ort, HasSubstr(std::string("env config in CreateEp: ") + entries + "\n"));
    EXPECT_EQ(in_nxrt, in_ort) << registration;
  }
}

}  // namespace
}  // namespace nxrt
