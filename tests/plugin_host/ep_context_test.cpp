// tests/plugin_host/ep_context_test.cpp: EPContext models (docs/plugin_host.md, "EPContext
// models") with the EPContext EP (plugins/epctx_ep), in ONNX Runtime 1.30 and in nxrt.
//
// Layer: plugin-interop acceptance test. For the example models chain, split (two fused groups
// around a MatMul the CPU EP runs) and dynamic (a symbolic batch dim), in embed modes 0 and 1, the
// model is compiled three ways: by ORT 1.30 through its OrtCompileApi, by nxrt::CompileModel, and
// by nxrt's own OrtCompileApi (src/capi, in-process). The three compiled models must have the
// same graph inputs and outputs, the same other nodes and the same EPContext nodes (op, inputs,
// outputs, every attribute; only the node name, which is the host's fused node name, differs), the
// same compatibility metadata and, in embed mode 0, side files with the same bytes. Then each
// compiled model runs in nxrt and in ORT and must give the outputs of the uncompiled model on
// nxrt's CPU EP (which are checked against ORT's CPU EP first), with the plugin running every
// EPContext node. The bad cases run in both hosts: an EPContext node whose source no EP owns, a
// stale compatibility string, a missing side file and a side file named outside the model's
// folder.
//
// The plugin keeps the host's API table in a global set by CreateEpFactories, so the hosts take
// turns: ORT registers the library for its phase and unregisters it after; nxrt's sessions end
// before ORT's next phase.
#include <dlfcn.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "capi/capi.h"
#include "ep/ort_plugin/ort_c_api.h"
#include "ir/onnx_loader.h"
#include "ir/onnx_writer.h"
#include "nxrt/compile.h"
#include "nxrt/input_generator.h"
#include "nxrt/session.h"
#include "ort_oracle/ort_oracle.h"
#include "ort_oracle/tensor_diff.h"

namespace nxrt {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

const std::string kPlugin = NXRT_EPCTX_EP;
constexpr const char* kEpName = "nxrt_epctx_ep";
constexpr const char* kCompatibilityKey = "ep_compatibility_info.nxrt_epctx_ep";

std::string ModelPath(const std::string& name) {
  return std::string(NXRT_EXAMPLE_EP_MODELS) + "/" + name + ".onnx";
}

std::string Message(const OrtApi* api, OrtStatus* status) {
  std::string text = api->GetErrorMessage(status);
  api->ReleaseStatus(status);
  return text;
}

// Compiles `model` into `output` through `api`'s OrtCompileApi with the plugin's devices of `env`
// (the library registered there already). "" on success, else the error.
std::string CompileThroughCApi(const OrtApi* api, OrtEnv* env, const std::string& model,
                               const std::string& output, bool embed) {
  const OrtEpDevice* const* devices = nullptr;
  size_t count = 0;
  if (OrtStatus* s = api->GetEpDevices(env, &devices, &count)) return Message(api, s);
  std::vector<const OrtEpDevice*> mine;
  for (size_t i = 0; i < count; ++i) {
    if (std::string(api->EpDevice_EpName(devices[i])) == kEpName) mine.push_back(devices[i]);
  }
  if (mine.empty()) return "no device of " + std::string(kEpName);
  OrtSessionOptions* options = nullptr;
  if (OrtStatus* s = api->CreateSessionOptions(&options)) return Message(api, s);
  std::string error;
  if (OrtStatus* s = api->SessionOptionsAppendExecutionProvider_V2(options, env, mine.data(),
                                                                   mine.size(), nullptr, nullptr,
                                                                   0)) {
    error = Message(api, s);
  }
  const OrtCompileApi* compile = api->GetCompileApi();
  if (error.empty() && compile == nullptr) error = "GetCompileApi returned NULL";
  OrtModelCompilationOptions* compile_options = nullptr;
  if (error.empty()) {
    if (OrtStatus* s =
            compile->CreateModelCompilationOptionsFromSessionOptions(env, options, &compile_options)) {
      error = Message(api, s);
    }
  }
  if (error.empty()) {
    OrtStatus* s = compile->ModelCompilationOptions_SetInputModelPath(compile_options, model.c_str());
    if (s == nullptr) {
      s = compile->ModelCompilationOptions_SetOutputModelPath(compile_options, output.c_str());
    }
    if (s == nullptr) s = compile->ModelCompilationOptions_SetEpContextEmbedMode(compile_options, embed);
    if (s == nullptr) s = compile->CompileModel(env, compile_options);
    if (s != nullptr) error = Message(api, s);
  }
  if (compile_options != nullptr) compile->ReleaseModelCompilationOptions(compile_options);
  api->ReleaseSessionOptions(options);
  return error;
}

// ORT 1.30's API and env, dlopen'ed as the oracle does (the same handle and env).
struct OrtApiHandle {
  const OrtApi* api = nullptr;
  OrtEnv* env = nullptr;
};
OrtApiHandle OrtCApi() {
  static OrtApiHandle handle = [] {
    OrtApiHandle h;
    void* lib = dlopen(oracle::OrtOracle::DefaultLibraryPath().c_str(), RTLD_NOW | RTLD_LOCAL);
    if (lib == nullptr) return h;
    auto base = reinterpret_cast<const OrtApiBase* (*)()>(dlsym(lib, "OrtGetApiBase"))();
    h.api = base->GetApi(ORT_API_VERSION);
    if (OrtStatus* s = h.api->CreateEnv(ORT_LOGGING_LEVEL_ERROR, "epctx", &h.env)) {
      h.api->ReleaseStatus(s);
      h.env = nullptr;
    }
    return h;
  }();
  return handle;
}

std::vector<NamedTensor> InputsFor(const std::string& model) {
  Result<std::unique_ptr<Session>> session = Session::Create(model);
  EXPECT_TRUE(session.ok()) << session.status().ToString();
  if (!session.ok()) return {};
  GeneratorOptions gen;
  gen.seed = 11;
  gen.dims = {{"batch", 3}};
  Result<std::vector<NamedTensor>> inputs = GenerateInputs((*session)->inputs(), gen);
  EXPECT_TRUE(inputs.ok()) << inputs.status().ToString();
  return inputs.ok() ? *inputs : std::vector<NamedTensor>{};
}

void ExpectSameOutputs(const std::vector<NamedTensor>& got, const std::vector<NamedTensor>& want,
                       const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_EQ(got[i].name, want[i].name) << what;
    EXPECT_EQ(oracle::TensorDiff(got[i].tensor, want[i].tensor, 1e-5, 1e-6), "") << what << ", output "
                                                                        << want[i].name;
  }
}

SessionOptions NxrtOptions() {
  SessionOptions options;
  options.intra_op_threads = 1;
  options.providers = {EpSpec{"plugin:" + kPlugin, {}, {}, {}}};
  return options;
}

oracle::OracleOptions OrtOptions() {
  oracle::OracleOptions options;
  oracle::PluginEp plugin;
  plugin.library_path = kPlugin;
  plugin.ep_name = kEpName;
  options.plugins.push_back(plugin);
  return options;
}

// A compiled model as the test compares it: graph I/O, other nodes, EPContext nodes.
struct CompiledView {
  std::vector<std::string> inputs;
  std::vector<std::string> outputs;
  std::vector<std::string> other_nodes;     // "op(inputs)->(outputs)", sorted
  std::vector<std::string> context_nodes;   // everything but the name, sorted
  std::vector<std::string> context_names;
  std::string compatibility;
};

std::string Describe(const ir::Graph& g, const ir::Node& node, bool with_attributes) {
  std::ostringstream out;
  out << node.domain << ":" << node.op_type << "(";
  for (ir::ValueId v : node.inputs) out << (v == ir::kNoValue ? "" : g.values[v].name) << ",";
  out << ")->(";
  for (ir::ValueId v : node.outputs) out << (v == ir::kNoValue ? "" : g.values[v].name) << ",";
  out << ")";
  if (with_attributes) {
    std::map<std::string, std::string> attrs;
    for (const ir::Attribute& a : node.attributes) {
      attrs[a.name] = a.type == ir::Attribute::Type::kInt ? std::to_string(a.i) : a.s;
    }
    for (const auto& [name, value] : attrs) out << " " << name << "=[" << value << "]";
  }
  return out.str();
}

CompiledView ViewOf(const std::string& path) {
  CompiledView view;
  Result<ir::Model> model = ir::LoadModelFromFile(path);
  EXPECT_TRUE(model.ok()) << path << ": " << model.status().ToString();
  if (!model.ok()) return view;
  const ir::Graph& g = *model->graph;
  for (ir::ValueId v : g.inputs) view.inputs.push_back(g.values[v].name);
  for (ir::ValueId v : g.outputs) view.outputs.push_back(g.values[v].name);
  for (const ir::Node& node : g.nodes) {
    if (node.op_type == "EPContext") {
      view.context_nodes.push_back(Describe(g, node, true));
      view.context_names.push_back(node.name);
    } else {
      view.other_nodes.push_back(Describe(g, node, false));
    }
  }
  std::sort(view.other_nodes.begin(), view.other_nodes.end());
  std::sort(view.context_nodes.begin(), view.context_nodes.end());
  for (const auto& [key, value] : model->metadata) {
    if (key == kCompatibilityKey) view.compatibility = value;
  }
  return view;
}

std::string ReadFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

class EpContextTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Result<oracle::OrtOracle> ort = oracle::OrtOracle::Load();
    if (!ort.ok()) GTEST_SKIP() << ort.status().ToString();
    ort_.emplace(*ort);
    ASSERT_NE(OrtCApi().env, nullptr);
    root_ = fs::temp_directory_path() /
            ("nxrt_epctx_" + std::to_string(::getpid()) + "_" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
    for (const char* dir : {"ort", "nxrt", "capi"}) fs::create_directories(root_ / dir);
  }
  void TearDown() override { fs::remove_all(root_); }

  // ORT 1.30's compile API (the library registered for the call only).
  std::string CompileInOrt(const std::string& model, const fs::path& output, bool embed) {
    Result<std::vector<oracle::EpDeviceInfo>> devices = ort_->RegisterPlugin(OrtOptions().plugins[0]);
    EXPECT_TRUE(devices.ok()) << devices.status().ToString();
    const std::string error =
        CompileThroughCApi(OrtCApi().api, OrtCApi().env, model, output.string(), embed);
    EXPECT_TRUE(ort_->UnregisterPlugin(kEpName).ok());
    return error;
  }

  // nxrt's OrtCompileApi (src/capi) in-process.
  std::string CompileInNxrtCApi(const std::string& model, const fs::path& output, bool embed) {
    const OrtApi* api = capi::ApiBase()->GetApi(ORT_API_VERSION);
    OrtEnv* env = nullptr;
    if (OrtStatus* s = api->CreateEnv(ORT_LOGGING_LEVEL_ERROR, "epctx", &env)) {
      return Message(api, s);
    }
    std::string error;
    if (OrtStatus* s = api->RegisterExecutionProviderLibrary(env, kEpName, kPlugin.c_str())) {
      error = Message(api, s);
    }
    if (error.empty()) error = CompileThroughCApi(api, env, model, output.string(), embed);
    if (OrtStatus* s = api->UnregisterExecutionProviderLibrary(env, kEpName)) {
      api->ReleaseStatus(s);
    }
    api->ReleaseEnv(env);
    return error;
  }

  // Runs `model` in nxrt with the plugin first; the plugin must run `plugin_steps` steps.
  Result<std::vector<NamedTensor>> RunInNxrt(const std::string& model,
                                             const std::vector<NamedTensor>& inputs,
                                             int64_t plugin_steps) {
    NXRT_ASSIGN_OR_RETURN(std::unique_ptr<Session> session, Session::Create(model, NxrtOptions()));
    NXRT_ASSIGN_OR_RETURN(std::vector<NamedTensor> outputs, session->Run(inputs));
    int64_t steps = 0;
    for (const KernelStats& s : session->Stats()) steps += s.ep.find(kEpName) != std::string::npos;
    EXPECT_EQ(steps, plugin_steps) << model;
    EXPECT_TRUE(session->Warnings().empty()) << model;
    return outputs;
  }

  Result<std::vector<NamedTensor>> RunInOrt(const std::string& model,
                                            const std::vector<NamedTensor>& inputs) {
    Result<std::vector<NamedTensor>> out = ort_->Run(model, inputs, OrtOptions());
    EXPECT_TRUE(ort_->UnregisterPlugin(kEpName).ok());
    return out;
  }

  void RoundTrip(const std::string& name, bool embed, int64_t groups);

  std::optional<oracle::OrtOracle> ort_;
  fs::path root_;
};

void EpContextTest::RoundTrip(const std::string& name, bool embed, int64_t groups) {
  const std::string source = ModelPath(name);
  const std::vector<NamedTensor> inputs = InputsFor(source);
  ASSERT_FALSE(inputs.empty());
  SessionOptions cpu;
  cpu.intra_op_threads = 1;
  Result<std::unique_ptr<Session>> reference_session = Session::Create(source, cpu);
  ASSERT_TRUE(reference_session.ok()) << reference_session.status().ToString();
  Result<std::vector<NamedTensor>> reference = (*reference_session)->Run(inputs);
  ASSERT_TRUE(reference.ok()) << reference.status().ToString();
  Result<std::vector<NamedTensor>> ort_cpu = ort_->Run(source, inputs);
  ASSERT_TRUE(ort_cpu.ok()) << ort_cpu.status().ToString();
  ExpectSameOutputs(*reference, *ort_cpu, name + ": nxrt's CPU EP against ORT's");

  const std::string file = name + "_ctx.onnx";
  ASSERT_EQ(CompileInOrt(source, root_ / "ort" / file, embed), "");
  CompileOptions compile;
  compile.output_path = (root_ / "nxrt" / file).string();
  compile.embed_context = embed;
  SessionOptions level0 = NxrtOptions();
  level0.optimization_level = 0;  // as OrtCompileApi's default, ORT_DISABLE_ALL
  Result<CompileResult> compiled = CompileModel(source, level0, compile);
  ASSERT_TRUE(compiled.ok()) << compiled.status().ToString();
  EXPECT_EQ(compiled->ep_context_nodes, groups);
  ASSERT_EQ(CompileInNxrtCApi(source, root_ / "capi" / file, embed), "");

  const CompiledView ort_view = ViewOf((root_ / "ort" / file).string());
  EXPECT_EQ(ort_view.context_nodes.size(), static_cast<size_t>(groups));
  EXPECT_EQ(ort_view.compatibility, "nxrt_epctx_ep;context_format=1");
  for (const char* host : {"nxrt", "capi"}) {
    const CompiledView view = ViewOf((root_ / host / file).string());
    const std::string what = name + " compiled by " + host + " against ORT";
    EXPECT_EQ(view.inputs, ort_view.inputs) << what;
    EXPECT_EQ(view.outputs, ort_view.outputs) << what;
    EXPECT_EQ(view.other_nodes, ort_view.other_nodes) << what;
    EXPECT_EQ(view.context_nodes, ort_view.context_nodes) << what;
    EXPECT_EQ(view.compatibility, ort_view.compatibility) << what;
    for (int64_t k = 0; !embed && k < groups; ++k) {
      const std::string bin = name + "_ctx_nxrt_epctx_ep_" + std::to_string(k) + ".bin";
      EXPECT_EQ(ReadFile(root_ / host / bin), ReadFile(root_ / "ort" / bin)) << what << ", " << bin;
      EXPECT_FALSE(ReadFile(root_ / host / bin).empty()) << what << ", " << bin;
    }
  }
  for (const char* host : {"ort", "nxrt", "capi"}) {
    const std::string model = (root_ / host / file).string();
    Result<std::vector<NamedTensor>> in_nxrt = RunInNxrt(model, inputs, groups);
    ASSERT_TRUE(in_nxrt.ok()) << model << ": " << in_nxrt.status().ToString();
    ExpectSameOutputs(*in_nxrt, *reference, model + " in nxrt");
    Result<std::vector<NamedTensor>> in_ort = RunInOrt(model, inputs);
    ASSERT_TRUE(in_ort.ok()) << model << ": " << in_ort.status().ToString();
    ExpectSameOutputs(*in_ort, *reference, model + " in ORT");
  }
}

TEST_F(EpContextTest, ChainEmbedded) { RoundTrip("chain", true, 1); }
TEST_F(EpContextTest, ChainSideFile) { RoundTrip("chain", false, 1); }
TEST_F(EpContextTest, SplitEmbedded) { RoundTrip("split", true, 2); }
TEST_F(EpContextTest, SplitSideFiles) { RoundTrip("split", false, 2); }
TEST_F(EpContextTest, DynamicSideFile) { RoundTrip("dynamic", false, 1); }

// Edits the compiled model at `path` in place.
template <typename Edit>
void EditModel(const fs::path& path, Edit edit) {
  Result<ir::Model> model = ir::LoadModelFromFile(path.string());
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  edit(*model);
  ASSERT_TRUE(ir::SaveModel(*model, path).ok());
}

void SetContextAttribute(ir::Model& model, const std::string& name, const std::string& value) {
  for (ir::Node& node : model.graph->nodes) {
    if (node.op_type != "EPContext") continue;
    for (ir::Attribute& a : node.attributes) {
      if (a.name == name) a.s = value;
    }
    return;
  }
}

class EpContextBadTest : public EpContextTest {
 protected:
  // split.onnx compiled by nxrt with side files into root_/nxrt.
  void SetUp() override {
    EpContextTest::SetUp();
    if (IsSkipped()) return;
    model_ = root_ / "nxrt" / "split_ctx.onnx";
    CompileOptions compile;
    compile.output_path = model_.string();
    Result<CompileResult> compiled = CompileModel(ModelPath("split"), NxrtOptions(), compile);
    ASSERT_TRUE(compiled.ok()) << compiled.status().ToString();
    first_node_ = ViewOf(model_.string()).context_names.at(0);
    inputs_ = InputsFor(ModelPath("split"));
  }
  // Both hosts refuse the model; the messages are returned (nxrt's, ORT's).
  std::pair<std::string, std::string> Refusals() {
    Result<std::unique_ptr<Session>> nxrt_session = Session::Create(model_.string(), NxrtOptions());
    EXPECT_FALSE(nxrt_session.ok());
    Result<std::vector<NamedTensor>> ort_run = RunInOrt(model_.string(), inputs_);
    EXPECT_FALSE(ort_run.ok());
    return {nxrt_session.ok() ? "" : nxrt_session.status().message(),
            ort_run.ok() ? "" : ort_run.status().message()};
  }

  fs::path model_;
  std::string first_node_;
  std::vector<NamedTensor> inputs_;
};

TEST_F(EpContextBadTest, UnknownSource) {
  EditModel(model_, [](ir::Model& m) { SetContextAttribute(m, "source", "vendor_npu_ep"); });
  auto [nxrt_error, ort_error] = Refusals();
  EXPECT_THAT(nxrt_error, HasSubstr("EPContext node '" + first_node_ + "'"));
  EXPECT_THAT(nxrt_error, HasSubstr("compiled by EP 'vendor_npu_ep'"));
  EXPECT_THAT(nxrt_error, HasSubstr("fix: list the plugin library whose EP is 'vendor_npu_ep'"));
  EXPECT_THAT(ort_error, HasSubstr("EPContext"));
}

TEST_F(EpContextBadTest, StaleCompatibility) {
  EditModel(model_, [](ir::Model& m) {
    for (auto& [key, value] : m.metadata) {
      if (key == kCompatibilityKey) value = "nxrt_epctx_ep;context_format=0";
    }
  });
  auto [nxrt_error, ort_error] = Refusals();
  EXPECT_THAT(nxrt_error, HasSubstr("the context EP 'nxrt_epctx_ep' compiled"));
  EXPECT_THAT(nxrt_error, HasSubstr("'nxrt_epctx_ep;context_format=0') is stale"));
  EXPECT_THAT(nxrt_error, HasSubstr("EP_UNSUPPORTED"));
  EXPECT_THAT(nxrt_error, HasSubstr("fix: compile the source model again"));
  EXPECT_THAT(ort_error,
              HasSubstr("Compiled model is not supported by execution provider: nxrt_epctx_ep"));
}

TEST_F(EpContextBadTest, MissingSideFile) {
  ASSERT_TRUE(fs::remove(root_ / "nxrt" / "split_ctx_nxrt_epctx_ep_0.bin"));
  auto [nxrt_error, ort_error] = Refusals();
  for (const std::string& error : {nxrt_error, ort_error}) {
    EXPECT_THAT(error, HasSubstr("cannot open its context file"));
    EXPECT_THAT(error, HasSubstr("split_ctx_nxrt_epctx_ep_0.bin"));
    EXPECT_THAT(error, HasSubstr("fix: keep the file beside the compiled model"));
  }
}

TEST_F(EpContextBadTest, SideFileOutsideModelFolder) {
  fs::copy_file(root_ / "nxrt" / "split_ctx_nxrt_epctx_ep_0.bin",
                root_ / "split_ctx_nxrt_epctx_ep_0.bin");
  EditModel(model_, [](ir::Model& m) {
    SetContextAttribute(m, "ep_cache_context", "../split_ctx_nxrt_epctx_ep_0.bin");
  });
  auto [nxrt_error, ort_error] = Refusals();
  for (const std::string& error : {nxrt_error, ort_error}) {
    EXPECT_THAT(error, HasSubstr("ep_cache_context '../split_ctx_nxrt_epctx_ep_0.bin' is not a "
                                 "path inside the model's folder"));
  }
}

}  // namespace
}  // namespace nxrt
