// tests/plugin_host/recording_ep_test.cpp: the fidelity test of issue 15. The recording EP
// (plugins/recording_ep) is hosted by ONNX Runtime 1.30 and by nxrt on every real model
// (tests/real_models.h), on every ONNX backend-test model with a subgraph (If, Loop, Scan,
// SequenceMap; libonnx-testdata), on backend-test models whose node omits two or more attributes
// with schema defaults, on the expanded SoftmaxCrossEntropyLoss tests (ORT's TransposeOptimizer)
// and on the models of make_recording_models.py (ORT's level-1 rewrites), and what it recorded
// from CreateEp on (every call with its arguments and every graph, read whole through the graph
// API) must be identical.
//
// Layer: plugin-interop acceptance test. Sessions are only created (the EP claims nothing, so no
// run is needed to see what a plugin is told). The dumps of both hosts are written to
// <build>/tests/plugin_host/recording_dumps/<model>.{ort,nxrt}.json for diffing by hand.
// The call sequence (graphs named by path) and the graphs (by path) are compared separately. An
// aspect listed in KnownDifference() must still differ (so the list shrinks as nxrt is fixed);
// docs/plugin_host.md gives the reasons.
#include <dlfcn.h>
#include <unistd.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <ostream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "nxrt/session.h"
#include "ort_oracle/ort_oracle.h"
#include "real_models.h"

namespace nxrt {
namespace {

using Json = nlohmann::ordered_json;

const std::string kRecordingEp = NXRT_RECORDING_EP;
constexpr const char* kBackendNodeTests = "/usr/share/libonnx-testdata/data/node";

// A copy of the recording EP for one host: each host gets an instance of the library of its own
// (the C++ wrapper keeps the OrtApi of the host that called CreateEpFactories in a global).
// Copies are per process, so tests can run in parallel, and removed when the process ends (a
// mapped library stays usable after its file is gone).
std::string CopyFor(const std::string& host) {
  struct TempDir {
    std::filesystem::path path = std::filesystem::temp_directory_path() /
                                 ("nxrt_recording_ep_" + std::to_string(getpid()));
    ~TempDir() {
      std::error_code ignored;
      std::filesystem::remove_all(path, ignored);
    }
  };
  static const TempDir temp;
  const std::filesystem::path& dir = temp.path;
  std::filesystem::create_directories(dir);
  const std::filesystem::path copy = dir / ("librecording_ep_" + host + ".so");
  if (!std::filesystem::exists(copy)) std::filesystem::copy_file(kRecordingEp, copy);
  return copy.string();
}

// The recording EP's exported record, through a handle of its own on `library` (so the instance
// the host loaded).
class Recorder {
 public:
  explicit Recorder(const std::string& library) {
    handle_ = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  }
  ~Recorder() {
    if (handle_ != nullptr) dlclose(handle_);
  }
  bool ok() const { return handle_ != nullptr; }
  void Reset() const { reinterpret_cast<void (*)()>(dlsym(handle_, "NxrtRecordingEp_Reset"))(); }
  // The calls from CreateEp on.
  Json Session() const {
    auto dump = reinterpret_cast<const char* (*)()>(dlsym(handle_, "NxrtRecordingEp_Dump"));
    return Json::parse(dump())["session"];
  }

 private:
  void* handle_ = nullptr;
};

struct Case {
  std::string name;
  std::string path;
};
void PrintTo(const Case& c, std::ostream* os) { *os << c.path; }

std::vector<Case> Cases() {
  std::vector<Case> cases;
  for (const oracle::RealModel& model : oracle::RealModels()) {
    cases.push_back({model.name, model.path().string()});
  }
  for (const char* test :
       {"test_if", "test_if_opt", "test_if_seq", "test_loop11", "test_loop13_seq",
        "test_loop16_seq_none", "test_range_float_type_positive_delta_expanded",
        "test_range_int32_type_negative_delta_expanded", "test_scan9_sum", "test_scan_sum",
        "test_sequence_map_add_1_sequence_1_tensor",
        "test_sequence_map_add_1_sequence_1_tensor_expanded",
        "test_sequence_map_add_2_sequences", "test_sequence_map_add_2_sequences_expanded",
        "test_sequence_map_extract_shapes", "test_sequence_map_extract_shapes_expanded",
        "test_sequence_map_identity_1_sequence",
        "test_sequence_map_identity_1_sequence_1_tensor",
        "test_sequence_map_identity_1_sequence_1_tensor_expanded",
        "test_sequence_map_identity_1_sequence_expanded",
        "test_sequence_map_identity_2_sequences",
        "test_sequence_map_identity_2_sequences_expanded"}) {
    cases.push_back({test, std::string(kBackendNodeTests) + "/" + test + "/model.onnx"});
  }
  // Backend-test models whose node omits two or more attributes with schema defaults, one or two
  // per row of graph_projection.cpp's declaration table ORT's order was learnt from.
  for (const char* test :
       {"test_argmax_default_axis_example", "test_argmin_default_axis_example",
        "test_averagepool_2d_default", "test_basic_conv_with_padding",
        "test_basic_convinteger", "test_batchnorm_epsilon",
        "test_batchnorm_example_training_mode", "test_blackmanwindow", "test_convtranspose",
        "test_convtranspose_with_kernel", "test_cumsum_1d", "test_gemm_default_no_bias",
        "test_gru_defaults", "test_hammingwindow", "test_hannwindow", "test_hardsigmoid_default",
        "test_layer_normalization_default_axis", "test_layer_normalization_2d_axis0",
        "test_lrn_default", "test_lstm_defaults", "test_maxpool_2d_default", "test_qlinearconv",
        "test_resize_downsample_scales_linear", "test_rnn_seq_length",
        "test_scatter_elements_without_axis", "test_selu_default", "test_simple_rnn_defaults",
        "test_top_k"}) {
    cases.push_back({test, std::string(kBackendNodeTests) + "/" + test + "/model.onnx"});
  }
  // The expanded SoftmaxCrossEntropyLoss tests, whose LogSoftmax between two Transposes ORT's
  // TransposeOptimizer rewrites.
  std::vector<std::string> sce;
  if (std::filesystem::is_directory(kBackendNodeTests)) {
    for (const auto& entry : std::filesystem::directory_iterator(kBackendNodeTests)) {
      const std::string test = entry.path().filename().string();
      if (test.rfind("test_sce_", 0) == 0 && test.ends_with("_expanded")) sce.push_back(test);
    }
  }
  std::sort(sce.begin(), sce.end());
  for (const std::string& test : sce) {
    cases.push_back({test, std::string(kBackendNodeTests) + "/" + test + "/model.onnx"});
  }
  // Written at build time by make_recording_models.py: the level-1 rewrites ORT makes before
  // GetCapability (rounds, its node-removal rule, folding in bodies, EliminateSlice, the
  // TransposeOptimizer).
  for (const char* model :
       {"rewrite_rounds", "removal_rule", "outer_constants", "slice_elimination",
        "transpose_chain", "transpose_axes", "transpose_outputs", "transpose_rules",
        "transpose_body"}) {
    cases.push_back({model, std::string(NXRT_RECORDING_MODELS) + "/" + model + ".onnx"});
  }
  return cases;
}

// What differs between the hosts on a model, each aspect with the reason (docs/plugin_host.md).
struct Known {
  const char* calls = nullptr;   // the call sequence differs
  const char* graphs = nullptr;  // a graph shown to GetCapability differs
};
// Model name → its known difference. Empty: every model is identical in both hosts (the
// SequenceMap and SoftmaxCrossEntropyLoss-expanded models too, since nxrt expands functions nobody
// takes as ORT does).
Known KnownDifference(const std::string& model) {
  static const std::map<std::string, Known> known = {};
  const auto it = known.find(model);
  return it != known.end() ? it->second : Known{};
}

// The calls in order, each graph replaced by its path. ReleaseEpFactory is left out: nxrt
// unloads a library when the last session using it ends, ORT when the library is unregistered.
Json CallsOf(const Json& session) {
  Json calls = Json::array();
  for (Json call : session) {
    if (call["call"] == "ReleaseEpFactory") continue;
    if (call.contains("graph")) call["graph"] = call["graph"]["path"];
    if (call.contains("graphs")) {
      for (Json& item : call["graphs"]) {
        if (item.contains("graph")) item["graph"] = item["graph"]["path"];
      }
    }
    calls.push_back(std::move(call));
  }
  return calls;
}

// Every graph shown to GetCapability by path, in the order each path was shown (ORT shows a graph
// again after inlining functions nothing claimed), and the graphs Compile received.
Json GraphsOf(const Json& session) {
  Json graphs = Json::object();
  for (const Json& call : session) {
    if (call.contains("graph")) graphs[call["graph"]["path"].get<std::string>()].push_back(call["graph"]);
    if (call.contains("graphs")) {
      for (const Json& item : call["graphs"]) graphs["compiled"].push_back(item);
    }
  }
  return graphs;
}

// The first place where `a` and `b` differ, as a JSON pointer with both values.
std::string FirstDifference(const Json& a, const Json& b, const std::string& where = "") {
  if (a.type() != b.type()) return where + ": " + a.dump() + " vs " + b.dump();
  if (a.is_array()) {
    for (size_t i = 0; i < std::min(a.size(), b.size()); ++i) {
      std::string d = FirstDifference(a[i], b[i], where + "/" + std::to_string(i));
      if (!d.empty()) return d;
    }
    if (a.size() != b.size()) {
      return where + ": " + std::to_string(a.size()) + " vs " + std::to_string(b.size()) +
             " entries, next " + (a.size() > b.size() ? a[b.size()] : b[a.size()]).dump().substr(0, 300);
    }
    return "";
  }
  if (a.is_object()) {
    for (auto it = a.begin(); it != a.end(); ++it) {
      if (!b.contains(it.key())) return where + "/" + it.key() + ": only in ORT's";
      std::string d = FirstDifference(it.value(), b[it.key()], where + "/" + it.key());
      if (!d.empty()) return d;
    }
    for (auto it = b.begin(); it != b.end(); ++it) {
      if (!a.contains(it.key())) return where + "/" + it.key() + ": only in nxrt's";
    }
    return "";
  }
  return a == b ? "" : where + ": " + a.dump().substr(0, 300) + " vs " + b.dump().substr(0, 300);
}

void Write(const std::string& name, const std::string& host, const Json& dump) {
  const std::filesystem::path dir =
      std::filesystem::path(NXRT_BINARY_DIR) / "tests" / "plugin_host" / "recording_dumps";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / (name + "." + host + ".json")) << dump.dump(1) << "\n";
}

class RecordingEpTest : public ::testing::TestWithParam<Case> {};

TEST_P(RecordingEpTest, SameCallsAndGraphsAsOnnxRuntime) {
  const Case& c = GetParam();
  if (!std::filesystem::exists(c.path)) GTEST_SKIP() << c.path << " is missing: run scripts/bootstrap.sh";
  Result<oracle::OrtOracle> ort = oracle::OrtOracle::Load();
  if (!ort.ok()) GTEST_SKIP() << "ONNX Runtime is not fetched: run scripts/bootstrap.sh";
  const std::string ort_library = CopyFor("ort");
  const std::string nxrt_library = CopyFor("nxrt");
  Recorder ort_recorder(ort_library);
  Recorder nxrt_recorder(nxrt_library);
  ASSERT_TRUE(ort_recorder.ok() && nxrt_recorder.ok()) << dlerror();

  oracle::PluginEp plugin;
  plugin.library_path = ort_library;
  plugin.registration_name = "recording_ep";
  plugin.ep_name = "recording_ep";
  ASSERT_TRUE(ort->RegisterPlugin(plugin).ok());
  ort_recorder.Reset();
  {
    oracle::OracleOptions options;
    options.plugins.push_back(plugin);
    Result<oracle::OracleSession> session = ort->CreateSession(c.path, options);
    ASSERT_TRUE(session.ok()) << session.status().ToString();
  }
  const Json ort_dump = ort_recorder.Session();

  nxrt_recorder.Reset();
  {
    SessionOptions options;
    options.intra_op_threads = 1;
    options.providers.push_back(EpSpec{"plugin:" + nxrt_library, {}, {}, {}});
    Result<std::unique_ptr<Session>> session = Session::Create(c.path, options);
    ASSERT_TRUE(session.ok()) << session.status().ToString();
  }
  const Json nxrt_dump = nxrt_recorder.Session();
  Write(c.name, "ort", ort_dump);
  Write(c.name, "nxrt", nxrt_dump);

  EXPECT_FALSE(ort_dump.empty());
  const Known expected = KnownDifference(c.name);
  auto check = [&](const char* aspect, const Json& ort_part, const Json& nxrt_part,
                   const char* reason) {
    const std::string difference = FirstDifference(ort_part, nxrt_part);
    if (reason == nullptr) {
      EXPECT_EQ(difference, "") << c.name << ": the " << aspect << " differ (ORT's first)";
    } else {
      EXPECT_NE(difference, "") << c.name << ": the " << aspect << " are listed as differing ("
                                << reason << "), but they are identical: remove the entry";
    }
  };
  check("calls", CallsOf(ort_dump), CallsOf(nxrt_dump), expected.calls);
  check("graphs", GraphsOf(ort_dump), GraphsOf(nxrt_dump), expected.graphs);
}

INSTANTIATE_TEST_SUITE_P(recording, RecordingEpTest, ::testing::ValuesIn(Cases()),
                         [](const ::testing::TestParamInfo<Case>& info) { return info.param.name; });

}  // namespace
}  // namespace nxrt
