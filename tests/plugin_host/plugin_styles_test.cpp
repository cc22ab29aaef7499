// tests/plugin_host/plugin_styles_test.cpp: the plugin styles beside fused groups, each run in
// real ONNX Runtime 1.30 and in nxrt with the same library, compared call for call.
//
// Layer: plugin-interop acceptance test (DESIGN.md §5.3). The kernel-registry EP
// (plugins/kernel_ep: single nodes, registry kernels, If/Loop/Scan through OrtEpApi's helpers)
// runs every elementwise test model with the CPU fallback off in both hosts: the nodes it claims
// (its own record of EpGraphSupportInfo_AddSingleNode calls), the kernels it made and released,
// its Compute calls and its Loop/Scan helper calls must be equal, and the outputs must equal
// ORT's and the CPU EP's. Its fault libraries each give a clear error in nxrt without fallback
// and run on the CPU EP with fallback.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <map>
#include <ostream>
#include <string>
#include <vector>

#include "nxrt/input_generator.h"
#include "nxrt/session.h"
#include "ort_oracle/ort_oracle.h"
#include "ort_oracle/tensor_diff.h"

namespace nxrt {
namespace {

const std::string kKernelEp = NXRT_KERNEL_EP;

std::string ModelPath(const std::string& name) {
  return std::string(NXRT_EXAMPLE_EP_MODELS) + "/" + name + ".onnx";
}
std::string KernelFaultPath(const std::string& fault) {
  return std::string(NXRT_PLUGIN_DIR) + "/libnxrt_kernel_fault_" + fault + ".so";
}

// The kernel EP's exported counters and claim record, through a handle of its own (the same
// file, so the instance either host loaded).
class KernelEpRecord {
 public:
  static constexpr const char* kCounters[] = {"ComputeCalls",       "KernelsCreated",
                                              "KernelsReleased",    "ControlFlowKernels",
                                              "ConcatCalls",        "TransposeCalls",
                                              "HelpersReleased"};

  explicit KernelEpRecord(const std::string& library) {
    handle_ = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  }
  ~KernelEpRecord() {
    if (handle_ != nullptr) dlclose(handle_);
  }
  bool ok() const { return handle_ != nullptr; }
  void Reset() const { reinterpret_cast<void (*)()>(dlsym(handle_, "NxrtKernelEp_ResetCounters"))(); }
  std::string Claims() const {
    return reinterpret_cast<const char* (*)()>(dlsym(handle_, "NxrtKernelEp_Claims"))();
  }
  uint64_t Count(const std::string& name) const {
    auto fn = reinterpret_cast<uint64_t (*)()>(dlsym(handle_, ("NxrtKernelEp_" + name).c_str()));
    return fn != nullptr ? fn() : ~uint64_t{0};
  }
  std::map<std::string, uint64_t> Counts() const {
    std::map<std::string, uint64_t> counts;
    for (const char* name : kCounters) counts[name] = Count(name);
    return counts;
  }

 private:
  void* handle_ = nullptr;
};

// Fixed-seed inputs for `model`; Loop's trip count is 3 and its condition true.
std::vector<NamedTensor> InputsFor(const std::string& model) {
  Result<std::unique_ptr<Session>> session = Session::Create(model);
  EXPECT_TRUE(session.ok()) << session.status().ToString();
  if (!session.ok()) return {};
  GeneratorOptions gen;
  gen.seed = 11;
  gen.dims["batch"] = 5;
  Result<std::vector<NamedTensor>> inputs = GenerateInputs((*session)->inputs(), gen);
  EXPECT_TRUE(inputs.ok()) << inputs.status().ToString();
  if (!inputs.ok()) return {};
  for (NamedTensor& in : *inputs) {
    if (in.name == "N") in.tensor = Tensor::Scalar<int64_t>(3);
    if (in.name == "C") in.tensor = Tensor::Scalar<bool>(true);
  }
  return *inputs;
}

SessionOptions NxrtOptions(const std::string& library, bool fallback) {
  SessionOptions options;
  options.intra_op_threads = 1;
  options.allow_fallback = fallback;
  options.providers.push_back(EpSpec{"plugin:" + library, {}, {}, {}});
  return options;
}

oracle::OracleOptions OrtOptions(const std::string& library, const std::string& ep_name,
                                 bool fallback) {
  oracle::OracleOptions options;
  oracle::PluginEp plugin;
  plugin.library_path = library;
  plugin.registration_name = ep_name;
  plugin.ep_name = ep_name;
  options.plugins.push_back(plugin);
  if (!fallback) options.config_entries.push_back({"session.disable_cpu_ep_fallback", "1"});
  return options;
}

void ExpectSame(const std::vector<NamedTensor>& got, const std::vector<NamedTensor>& want,
                const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(got[i].name, want[i].name) << what;
    EXPECT_EQ(oracle::TensorDiff(got[i].tensor, want[i].tensor, 1e-5, 1e-6), "")
        << what << ", output '" << want[i].name << "'";
  }
}

class KernelEpTest : public ::testing::TestWithParam<std::string> {};

// The same claims, kernels, calls and outputs in ORT 1.30 and in nxrt, with no CPU fallback.
TEST_P(KernelEpTest, MatchesOnnxRuntime) {
  const std::string model = ModelPath(GetParam());
  Result<oracle::OrtOracle> ort = oracle::OrtOracle::Load();
  if (!ort.ok()) GTEST_SKIP() << "ONNX Runtime is not fetched: run scripts/bootstrap.sh";
  KernelEpRecord record(kKernelEp);
  ASSERT_TRUE(record.ok());
  const std::vector<NamedTensor> inputs = InputsFor(model);
  ASSERT_FALSE(inputs.empty());

  record.Reset();
  std::vector<NamedTensor> ort_out;
  {
    Result<oracle::OracleSession> session =
        ort->CreateSession(model, OrtOptions(kKernelEp, "kernel_ep", false));
    ASSERT_TRUE(session.ok()) << session.status().ToString();
    for (int run = 0; run < 2; ++run) {
      Result<std::vector<NamedTensor>> out = session->Run(inputs);
      ASSERT_TRUE(out.ok()) << out.status().ToString();
      ort_out = *out;
    }
  }
  const std::string ort_claims = record.Claims();
  const std::map<std::string, uint64_t> ort_counts = record.Counts();

  record.Reset();
  std::vector<NamedTensor> nxrt_out;
  {
    Result<std::unique_ptr<Session>> session =
        Session::Create(model, NxrtOptions(kKernelEp, false));
    ASSERT_TRUE(session.ok()) << session.status().ToString();
    for (int run = 0; run < 2; ++run) {
      Result<std::vector<NamedTensor>> out = (*session)->Run(inputs);
      ASSERT_TRUE(out.ok()) << out.status().ToString();
      nxrt_out = *out;
    }
  }
  EXPECT_FALSE(ort_claims.empty());
  EXPECT_EQ(record.Claims(), ort_claims);
  EXPECT_EQ(record.Counts(), ort_counts);
  EXPECT_GT(ort_counts.at("ComputeCalls"), 0u);
  EXPECT_EQ(ort_counts.at("KernelsCreated"), ort_counts.at("KernelsReleased"));
  ExpectSame(nxrt_out, ort_out, GetParam() + ": nxrt vs ORT");
  Result<std::unique_ptr<Session>> cpu = Session::Create(model);
  ASSERT_TRUE(cpu.ok());
  Result<std::vector<NamedTensor>> want = (*cpu)->Run(inputs);
  ASSERT_TRUE(want.ok());
  ExpectSame(nxrt_out, *want, GetParam() + ": nxrt vs its CPU EP");
}

INSTANTIATE_TEST_SUITE_P(Models, KernelEpTest,
                         ::testing::Values("chain", "chain_opset11", "chain_opset13", "dynamic",
                                           "branch", "loop", "scan"));

// The control-flow nodes are the plugin's (made through the helpers) and their helpers ran:
// Loop's ConcatOutput once per scan output, Scan's Transpose for its axis-1 input and output.
TEST(KernelEp, ControlFlowThroughTheHelpers) {
  KernelEpRecord record(kKernelEp);
  ASSERT_TRUE(record.ok());
  for (const auto& [name, concats, transposes] :
       {std::tuple{"loop", 1, 0}, std::tuple{"scan", 0, 2}, std::tuple{"branch", 0, 0}}) {
    record.Reset();
    const std::string model = ModelPath(name);
    {
      Result<std::unique_ptr<Session>> session =
          Session::Create(model, NxrtOptions(kKernelEp, false));
      ASSERT_TRUE(session.ok()) << session.status().ToString();
      ASSERT_TRUE((*session)->Run(InputsFor(model)).ok());
      const std::string summary = (*session)->PlacementSummary();
      EXPECT_EQ(summary.find("cpu"), std::string::npos) << name << ":\n" << summary;
    }
    EXPECT_EQ(record.Count("ControlFlowKernels"), 1u) << name;
    EXPECT_EQ(record.Count("ConcatCalls"), static_cast<uint64_t>(concats)) << name;
    EXPECT_EQ(record.Count("TransposeCalls"), static_cast<uint64_t>(transposes)) << name;
    EXPECT_EQ(record.Count("HelpersReleased"), static_cast<uint64_t>(concats + transposes > 0))
        << name;
  }
}

// The device EP (its own allocator and data transfer) and its stream-aware variant: the counters
// of a run in ORT 1.30 and in nxrt, without CPU fallback.
class DeviceRecord {
 public:
  static constexpr const char* kCounters[] = {
      "ComputeCalls", "CopyCalls",     "HostToDeviceCopies", "DeviceToHostCopies",
      "DeviceToDeviceCopies", "ComputesOnStream", "QueuedCopies", "HostWaits",
      "StreamRunEnds"};
  explicit DeviceRecord(const std::string& library) {
    handle_ = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  }
  ~DeviceRecord() {
    if (handle_ != nullptr) dlclose(handle_);
  }
  bool ok() const { return handle_ != nullptr; }
  void Reset() const { reinterpret_cast<void (*)()>(dlsym(handle_, "NxrtDeviceEp_ResetCounters"))(); }
  uint64_t Count(const std::string& name) const {
    auto fn = reinterpret_cast<uint64_t (*)()>(dlsym(handle_, ("NxrtDeviceEp_" + name).c_str()));
    return fn != nullptr ? fn() : ~uint64_t{0};
  }
  std::map<std::string, uint64_t> Counts() const {
    std::map<std::string, uint64_t> counts;
    for (const char* name : kCounters) counts[name] = Count(name);
    return counts;
  }

 private:
  void* handle_ = nullptr;
};

struct DeviceCase {
  std::string library;  // NXRT_DEVICE_EP or NXRT_STREAM_EP
  std::string ep_name;
  std::string model;
  std::string max_group_size;  // "0": no limit
};
void PrintTo(const DeviceCase& c, std::ostream* os) {
  *os << c.ep_name << "/" << c.model << "/" << c.max_group_size;
}

class DevicePluginTest : public ::testing::TestWithParam<DeviceCase> {};

TEST_P(DevicePluginTest, MatchesOnnxRuntime) {
  const DeviceCase& c = GetParam();
  const std::string model = ModelPath(c.model);
  Result<oracle::OrtOracle> ort = oracle::OrtOracle::Load();
  if (!ort.ok()) GTEST_SKIP() << "ONNX Runtime is not fetched: run scripts/bootstrap.sh";
  DeviceRecord record(c.library);
  ASSERT_TRUE(record.ok());
  const std::vector<NamedTensor> inputs = InputsFor(model);

  record.Reset();
  std::vector<NamedTensor> ort_out;
  {
    oracle::OracleOptions options = OrtOptions(c.library, c.ep_name, false);
    options.plugins[0].ep_options = {{"max_group_size", c.max_group_size}};
    Result<oracle::OracleSession> session = ort->CreateSession(model, options);
    ASSERT_TRUE(session.ok()) << session.status().ToString();
    Result<std::vector<NamedTensor>> out = session->Run(inputs);
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    ort_out = *out;
  }
  const std::map<std::string, uint64_t> ort_counts = record.Counts();

  record.Reset();
  std::vector<NamedTensor> nxrt_out;
  {
    SessionOptions options = NxrtOptions(c.library, false);
    options.providers[0].config.Set("max_group_size", c.max_group_size);
    Result<std::unique_ptr<Session>> session = Session::Create(model, options);
    ASSERT_TRUE(session.ok()) << session.status().ToString();
    Result<std::vector<NamedTensor>> out = (*session)->Run(inputs);
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    nxrt_out = *out;
  }
  EXPECT_EQ(record.Counts(), ort_counts);
  EXPECT_GT(ort_counts.at("ComputeCalls"), 0u);
  EXPECT_EQ(record.Count("Allocs"), record.Count("Frees"));
  EXPECT_EQ(record.Count("BadFrees"), 0u);
  ExpectSame(nxrt_out, ort_out, c.model + ": nxrt vs ORT");
}

INSTANTIATE_TEST_SUITE_P(
    Models, DevicePluginTest,
    ::testing::Values(DeviceCase{NXRT_DEVICE_EP, "example_device_ep", "chain", "0"},
                      DeviceCase{NXRT_DEVICE_EP, "example_device_ep", "chain", "1"},
                      DeviceCase{NXRT_DEVICE_EP, "example_device_ep", "dynamic", "1"},
                      DeviceCase{NXRT_STREAM_EP, "example_stream_ep", "chain", "0"},
                      DeviceCase{NXRT_STREAM_EP, "example_stream_ep", "chain", "1"},
                      DeviceCase{NXRT_STREAM_EP, "example_stream_ep", "dynamic", "1"}),
    [](const ::testing::TestParamInfo<DeviceCase>& info) {
      return info.param.ep_name + "_" + info.param.model + "_" + info.param.max_group_size;
    });

// A CPU node between two device groups (split.onnx; ORT 1.30 cannot run it: its MemcpyFromHost
// output stays in CPU memory, ORT PR #27272): the value crosses to the host and back, each once
// per run, and the host waits for the stream before the CPU node reads.
TEST(DevicePlugin, CopiesOnlyAtEpBoundaries) {
  const std::string model = ModelPath("split");
  const std::vector<NamedTensor> inputs = InputsFor(model);
  Result<std::unique_ptr<Session>> cpu = Session::Create(model);
  ASSERT_TRUE(cpu.ok());
  Result<std::vector<NamedTensor>> want = (*cpu)->Run(inputs);
  ASSERT_TRUE(want.ok());
  for (const std::string& library : {std::string(NXRT_DEVICE_EP), std::string(NXRT_STREAM_EP)}) {
    const bool streams = library == NXRT_STREAM_EP;
    DeviceRecord record(library);
    ASSERT_TRUE(record.ok());
    Result<std::unique_ptr<Session>> session = Session::Create(model, NxrtOptions(library, true));
    ASSERT_TRUE(session.ok()) << session.status().ToString();
    record.Reset();
    for (int run = 0; run < 3; ++run) {
      Result<std::vector<NamedTensor>> got = (*session)->Run(inputs);
      ASSERT_TRUE(got.ok()) << got.status().ToString();
      ExpectSame(*got, *want, library);
    }
    // Per run: X in (feeds), r out (MatMul's input), p in (MatMul's output), Y out (fetches).
    EXPECT_EQ(record.Count("ComputeCalls"), 6u) << library;
    EXPECT_EQ(record.Count("CopyCalls"), 12u) << library;
    EXPECT_EQ(record.Count("HostToDeviceCopies"), 6u) << library;
    EXPECT_EQ(record.Count("DeviceToHostCopies"), 6u) << library;
    EXPECT_EQ(record.Count("HostWaits"), streams ? 3u : 0u) << library;
    EXPECT_EQ(record.Count("StreamRunEnds"), streams ? 3u : 0u) << library;
    EXPECT_EQ(record.Count("ComputesOnStream"), streams ? 6u : 0u) << library;
  }
}

struct KernelFault {
  std::string name;
  std::string model;    // one it fails on
  std::string message;  // in nxrt's error without fallback
};
void PrintTo(const KernelFault& f, std::ostream* os) { *os << f.name; }

class KernelFaultTest : public ::testing::TestWithParam<KernelFault> {};

// Without fallback: an error naming the plugin, the function and the fix. With fallback: the
// CPU EP's values, no crash.
TEST_P(KernelFaultTest, ClearErrorAndFallback) {
  const KernelFault& f = GetParam();
  const std::string library = KernelFaultPath(f.name);
  ASSERT_TRUE(std::filesystem::exists(library)) << library;
  const std::string model = ModelPath(f.model);
  const std::vector<NamedTensor> inputs = InputsFor(model);
  Result<std::unique_ptr<Session>> strict = Session::Create(model, NxrtOptions(library, false));
  ASSERT_FALSE(strict.ok());
  const std::string error = strict.status().message();
  EXPECT_NE(error.find(f.message), std::string::npos) << "expected '" << f.message << "' in:\n"
                                                      << error;
  EXPECT_NE(error.find("libnxrt_kernel_fault_" + f.name + ".so"), std::string::npos) << error;
  EXPECT_NE(error.find("; fix"), std::string::npos) << error;

  Result<std::unique_ptr<Session>> lenient = Session::Create(model, NxrtOptions(library, true));
  ASSERT_TRUE(lenient.ok()) << lenient.status().ToString();
  Result<std::vector<NamedTensor>> got = (*lenient)->Run(inputs);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  Result<std::unique_ptr<Session>> cpu = Session::Create(model);
  ASSERT_TRUE(cpu.ok());
  Result<std::vector<NamedTensor>> want = (*cpu)->Run(inputs);
  ASSERT_TRUE(want.ok());
  ExpectSame(*got, *want, f.name + " with fallback");
}

INSTANTIATE_TEST_SUITE_P(
    Faults, KernelFaultTest,
    ::testing::Values(
        KernelFault{"bad_constraint", "chain", "constrains type 'X'"},
        KernelFault{"create_fails", "chain", "OrtKernelCreateFunc of kernel Mul"},
        KernelFault{"null_impl", "chain", "returned no OrtKernelImpl"},
        KernelFault{"null_compute", "chain", "has a null Compute"},
        KernelFault{"unregistered", "split", "no kernel of the plugin's registry matches MatMul"},
        KernelFault{"own_if", "branch", "OrtEpApi::CreateIfKernel"},
        KernelFault{"bad_flags", "chain", "has flags 2 (ORT accepts at most 1"}),
    [](const ::testing::TestParamInfo<KernelFault>& info) { return info.param.name; });

// A kernel whose OrtKernelImpl::flags is out of ORT's range (an uninitialised struct) fails the
// session in both hosts before any kernel is offered a constant input: ORT 1.30 creates and checks
// every kernel of the graph, then pre-packs. chain.onnx's Mul and Sub (constant inputs chain_m and
// chain_s, kernels made before Div's) are not offered their weights when Div's kernel is bad.
TEST(KernelEpFaults, BadFlagsFailTheSessionBeforeAnyPrePack) {
  const std::string library = KernelFaultPath("bad_flags");
  const std::string model = ModelPath("chain");
  KernelEpRecord record(library);
  ASSERT_TRUE(record.ok()) << dlerror();
  Result<oracle::OrtOracle> ort = oracle::OrtOracle::Load();
  if (ort.ok()) {
    record.Reset();
    Result<oracle::OracleSession> in_ort =
        ort->CreateSession(model, OrtOptions(library, "kernel_fault_bad_flags", false));
    ASSERT_FALSE(in_ort.ok());
    EXPECT_NE(in_ort.status().message().find("OrtKernelImpl::flags has been initialized to an "
                                             "unexpected value for Div"),
              std::string::npos)
        << in_ort.status().message();
    EXPECT_EQ(record.Count("PrePackCalls"), 0u) << "ONNX Runtime 1.30";
    EXPECT_TRUE(ort->UnregisterPlugin("kernel_fault_bad_flags").ok());
  }
  record.Reset();
  Result<std::unique_ptr<Session>> in_nxrt = Session::Create(model, NxrtOptions(library, false));
  ASSERT_FALSE(in_nxrt.ok());
  EXPECT_NE(in_nxrt.status().message().find("node 'div' (Div): its OrtKernelImpl has flags 2"),
            std::string::npos)
      << in_nxrt.status().message();
  EXPECT_EQ(record.Count("PrePackCalls"), 0u) << "nxrt";
}

}  // namespace
}  // namespace nxrt
