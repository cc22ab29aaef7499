// plugins/epctx_ep/epctx_ep.cpp: the EPContext EP: the example EP (plugins/example_ep) under the
// EP name "nxrt_epctx_ep" that writes what it compiled as com.microsoft EPContext nodes and runs
// a model made of them, so that a test can compile a model in ONNX Runtime 1.30 and in nxrt,
// compare the two compiled models and run each in both hosts.
//
// Layer: test plugin nxrt_epctx_ep (ORT C headers only). What it does beyond the example EP:
//   CreateEp       reads the session config entries "ep.context_enable" (1: Compile returns
//                  EPContext nodes), "ep.context_embed_mode" (1: the context goes inside the
//                  node; else into a file) and "ep.context_file_path" (the compiled model's path;
//                  side files go beside it, named "<its stem>_nxrt_epctx_ep_<k>.bin").
//   GetCapability  claims each EPContext node whose `source` is "nxrt_epctx_ep" alone (one fused
//                  group each), then claims like the example EP.
//   Compile        a graph holding one EPContext node: reads its context (embed_mode 1: the
//                  ep_cache_context attribute; 0: the file it names, relative to the model's
//                  folder, which must not leave that folder) and rebuilds the program; any other
//                  graph: the example's program, and with ep.context_enable an EPContext node
//                  (OrtModelEditorApi::CreateNode; attributes made with OrtApi::CreateOpAttr):
//                  name = the fused node's, inputs and outputs = the fused node's, embed_mode,
//                  ep_cache_context, main_context 1, ep_sdk_version "0.1.0", partition_name
//                  "nxrt_epctx_ep_<k>", source "nxrt_epctx_ep", hardware_architecture "cpu",
//                  notes. k counts the EP's contexts (0, 1, ...).
//   GetCompiledModelCompatibilityInfo  "nxrt_epctx_ep;context_format=1".
//   ValidateCompiledModelCompatibilityInfo (factory)  that string: EP_SUPPORTED_OPTIMAL; any
//                  other "nxrt_epctx_ep;..." string: EP_UNSUPPORTED (a stale context); anything
//                  else: EP_NOT_APPLICABLE.
// The context is text, so that a side file and an attribute hold the same bytes:
//   nxrt_epctx 1 / slots N / inputs K s... / outputs K s... /
//   const SLOT RANK d... COUNT v... (floats as %a) / step OP OUT ARITY in... NAME
// Every error names the EPContext node, the attribute or file, and the fix.
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>
#include <string>
#include <vector>

#include "example_ep/ep.h"
#include "example_ep/factory.h"

namespace {

using nxrt_example_ep::ComputeInfo;
using nxrt_example_ep::ElementwiseOp;
using nxrt_example_ep::Program;

constexpr const char* kEpName = "nxrt_epctx_ep";
constexpr const char* kCompatibilityInfo = "nxrt_epctx_ep;context_format=1";
constexpr const char* kCompatibilityPrefix = "nxrt_epctx_ep;";

const OrtApi* g_ort = nullptr;
const OrtModelEditorApi* g_editor = nullptr;
decltype(OrtEpFactory::CreateEp) g_example_create_ep = nullptr;
decltype(OrtEpFactory::ReleaseEp) g_example_release_ep = nullptr;
decltype(OrtEp::GetCapability) g_example_get_capability = nullptr;
decltype(OrtEp::Compile) g_example_compile = nullptr;
decltype(OrtEp::ReleaseNodeComputeInfos) g_example_release_infos = nullptr;

// What one EP read from its session options, and how many contexts it wrote.
struct EpState {
  bool generate = false;
  bool embed = false;
  std::string context_file_path;
  int contexts = 0;
};
std::mutex g_mutex;
std::map<const OrtEp*, EpState> g_states;

OrtStatus* Error(OrtErrorCode code, const std::string& message) {
  return g_ort->CreateStatus(code, (std::string(kEpName) + ": " + message).c_str());
}

#define EPCTX_RETURN_IF_ERROR(expr)         \
  do {                                      \
    if (OrtStatus* epctx_status_ = (expr)) { \
      return epctx_status_;                 \
    }                                       \
  } while (0)

// ---- the context format ---------------------------------------------------------------------

std::string Serialize(const Program& program) {
  std::ostringstream out;
  out << "nxrt_epctx 1\nslots " << program.num_slots << "\ninputs " << program.input_slots.size();
  for (size_t s : program.input_slots) out << " " << s;
  out << "\noutputs " << program.output_slots.size();
  for (size_t s : program.output_slots) out << " " << s;
  out << "\n";
  for (const auto& c : program.constants) {
    out << "const " << c.slot << " " << c.dims.size();
    for (int64_t d : c.dims) out << " " << d;
    out << " " << c.values.size();
    char text[64];
    for (float v : c.values) {
      std::snprintf(text, sizeof(text), " %a", static_cast<double>(v));
      out << text;
    }
    out << "\n";
  }
  for (const auto& step : program.steps) {
    out << "step " << nxrt_example_ep::ElementwiseOpName(step.op) << " " << step.output << " "
        << step.inputs.size();
    for (size_t s : step.inputs) out << " " << s;
    out << " " << step.node_name << "\n";
  }
  return out.str();
}

// False (with `why`) when `text` is not a context this EP wrote.
bool Parse(const std::string& text, Program* program, std::string* why) {
  std::istringstream in(text);
  std::string line;
  auto fail = [&](const std::string& what) {
    *why = what;
    return false;
  };
  if (!std::getline(in, line) || line != "nxrt_epctx 1") {
    return fail("it does not start with 'nxrt_epctx 1'");
  }
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::string kind;
    fields >> kind;
    size_t count = 0;
    if (kind == "slots") {
      fields >> program->num_slots;
    } else if (kind == "inputs" || kind == "outputs") {
      auto& slots = kind == "inputs" ? program->input_slots : program->output_slots;
      fields >> count;
      slots.assign(count, 0);
      for (size_t& s : slots) fields >> s;
    } else if (kind == "const") {
      nxrt_example_ep::ProgramConstant c;
      fields >> c.slot >> count;
      c.dims.assign(count, 0);
      for (int64_t& d : c.dims) fields >> d;
      fields >> count;
      for (size_t i = 0; i < count; ++i) {
        std::string value;
        fields >> value;
        c.values.push_back(std::strtof(value.c_str(), nullptr));
      }
      program->constants.push_back(std::move(c));
    } else if (kind == "step") {
      nxrt_example_ep::ProgramStep step{};
      std::string op;
      fields >> op >> step.output >> count;
      const std::optional<ElementwiseOp> parsed = nxrt_example_ep::ElementwiseOpFromName(op);
      if (!parsed) return fail("line '" + line + "' names op '" + op + "', which it cannot run");
      step.op = *parsed;
      step.inputs.assign(count, 0);
      for (size_t& s : step.inputs) fields >> s;
      std::getline(fields >> std::ws, step.node_name);
      program->steps.push_back(std::move(step));
    } else {
      return fail("line '" + line + "' is not a slots/inputs/outputs/const/step line");
    }
    if (fields.fail() && kind != "step") return fail("line '" + line + "' is malformed");
  }
  for (const auto& step : program->steps) {
    if (step.output >= program->num_slots) return fail("a step writes past the slots");
    for (size_t s : step.inputs) {
      if (s >= program->num_slots) return fail("a step reads past the slots");
    }
  }
  return true;
}

// ---- small readers -----------------------------------------------------------------------------

OrtStatus* ValueNames(const OrtNode* node, bool inputs, std::vector<std::string>* names) {
  size_t count = 0;
  EPCTX_RETURN_IF_ERROR(inputs ? g_ort->Node_GetNumInputs(node, &count)
                               : g_ort->Node_GetNumOutputs(node, &count));
  std::vector<const OrtValueInfo*> values(count);
  EPCTX_RETURN_IF_ERROR(inputs ? g_ort->Node_GetInputs(node, values.data(), count)
                               : g_ort->Node_GetOutputs(node, values.data(), count));
  names->clear();
  for (const OrtValueInfo* value : values) {
    const char* name = "";
    if (value != nullptr) EPCTX_RETURN_IF_ERROR(g_ort->GetValueInfoName(value, &name));
    names->emplace_back(name);
  }
  return nullptr;
}

// The node's attributes by name (those the host shows).
OrtStatus* Attributes(const OrtNode* node, std::map<std::string, const OrtOpAttr*>* out) {
  size_t count = 0;
  EPCTX_RETURN_IF_ERROR(g_ort->Node_GetNumAttributes(node, &count));
  std::vector<const OrtOpAttr*> attrs(count);
  EPCTX_RETURN_IF_ERROR(g_ort->Node_GetAttributes(node, attrs.data(), count));
  for (const OrtOpAttr* attr : attrs) {
    const char* name = nullptr;
    EPCTX_RETURN_IF_ERROR(g_ort->OpAttr_GetName(attr, &name));
    (*out)[name] = attr;
  }
  return nullptr;
}

OrtStatus* ReadString(const OrtOpAttr* attr, std::string* out) {
  size_t size = 0;
  OrtStatus* probe = g_ort->ReadOpAttr(attr, ORT_OP_ATTR_STRING, nullptr, 0, &size);
  if (probe != nullptr) g_ort->ReleaseStatus(probe);  // asks for the size
  out->assign(size, '\0');
  if (size == 0) return nullptr;
  return g_ort->ReadOpAttr(attr, ORT_OP_ATTR_STRING, out->data(), size, &size);
}

OrtStatus* ReadInt(const OrtOpAttr* attr, int64_t* out) {
  size_t size = 0;
  return g_ort->ReadOpAttr(attr, ORT_OP_ATTR_INT, out, sizeof(*out), &size);
}

// The EPContext node `node`'s `source`, or "" when it is not an EPContext node or has none.
OrtStatus* EpContextSource(const OrtNode* node, std::string* source) {
  source->clear();
  const char* op_type = nullptr;
  const char* domain = nullptr;
  EPCTX_RETURN_IF_ERROR(g_ort->Node_GetOperatorType(node, &op_type));
  EPCTX_RETURN_IF_ERROR(g_ort->Node_GetDomain(node, &domain));
  if (std::strcmp(op_type, "EPContext") != 0 || std::strcmp(domain, "com.microsoft") != 0) {
    return nullptr;
  }
  std::map<std::string, const OrtOpAttr*> attrs;
  EPCTX_RETURN_IF_ERROR(Attributes(node, &attrs));
  auto it = attrs.find("source");
  if (it == attrs.end()) return nullptr;
  return ReadString(it->second, source);
}

// ---- OrtEp ------------------------------------------------------------------------------------

OrtStatus* ORT_API_CALL GetCapability(OrtEp* ep, const OrtGraph* graph,
                                      OrtEpGraphSupportInfo* support) noexcept {
  size_t count = 0;
  EPCTX_RETURN_IF_ERROR(g_ort->Graph_GetNumNodes(graph, &count));
  std::vector<const OrtNode*> nodes(count);
  EPCTX_RETURN_IF_ERROR(g_ort->Graph_GetNodes(graph, nodes.data(), count));
  OrtNodeFusionOptions fusion{};
  fusion.ort_version_supported = ORT_API_VERSION;
  fusion.drop_constant_initializers = true;
  for (const OrtNode* node : nodes) {
    std::string source;
    EPCTX_RETURN_IF_ERROR(EpContextSource(node, &source));
    if (source != kEpName) continue;
    EPCTX_RETURN_IF_ERROR(
        g_ort->GetEpApi()->EpGraphSupportInfo_AddNodesToFuse(support, &node, 1, &fusion));
  }
  return g_example_get_capability(ep, graph, support);
}

// The program of the EPContext node `node` (the only node of a graph being compiled).
OrtStatus* LoadContext(const OrtGraph* graph, const OrtNode* node, Program* program) {
  const char* node_name = nullptr;
  EPCTX_RETURN_IF_ERROR(g_ort->Node_GetName(node, &node_name));
  const std::string which = std::string("EPContext node '") + node_name + "'";
  std::map<std::string, const OrtOpAttr*> attrs;
  EPCTX_RETURN_IF_ERROR(Attributes(node, &attrs));
  int64_t embed_mode = 1;
  if (auto it = attrs.find("embed_mode"); it != attrs.end()) {
    EPCTX_RETURN_IF_ERROR(ReadInt(it->second, &embed_mode));
  }
  auto cache = attrs.find("ep_cache_context");
  if (cache == attrs.end()) {
    return Error(ORT_INVALID_GRAPH, which + " has no ep_cache_context attribute; fix: compile the "
                                            "source model again");
  }
  std::string value;
  EPCTX_RETURN_IF_ERROR(ReadString(cache->second, &value));
  std::string text = value;
  if (embed_mode == 0) {
    const std::filesystem::path relative(value);
    bool escapes = relative.is_absolute() || relative.empty();
    for (const auto& part : relative) escapes = escapes || part == "..";
    if (escapes) {
      return Error(ORT_INVALID_GRAPH,
                   which + ": ep_cache_context '" + value +
                       "' is not a path inside the model's folder (absolute, empty or with "
                       "'..'); fix: keep the context file beside the compiled model and name it "
                       "relative to it, or compile with embed mode 1");
    }
    const ORTCHAR_T* model_path = nullptr;
    EPCTX_RETURN_IF_ERROR(g_ort->Graph_GetModelPath(graph, &model_path));
    const std::filesystem::path folder =
        std::filesystem::path(model_path != nullptr ? model_path : "").parent_path();
    const std::filesystem::path file = folder / relative;
    std::ifstream in(file, std::ios::binary);
    if (!in) {
      return Error(ORT_NO_SUCHFILE, which + ": cannot open its context file '" + file.string() +
                                        "' (ep_cache_context '" + value +
                                        "', relative to the model's folder); fix: keep the file "
                                        "beside the compiled model, or compile again");
    }
    std::ostringstream bytes;
    bytes << in.rdbuf();
    text = bytes.str();
  } else if (embed_mode != 1) {
    return Error(ORT_INVALID_GRAPH, which + ": embed_mode is " + std::to_string(embed_mode) +
                                        "; it must be 0 (a file) or 1 (inside the node)");
  }
  std::string why;
  if (!Parse(text, program, &why)) {
    return Error(ORT_INVALID_GRAPH, which + ": its context is not one " + kEpName +
                                        " wrote: " + why + "; fix: compile the source model "
                                        "again");
  }
  return nullptr;
}

// Makes the EPContext node of fused node `fused` compiled into `program`.
OrtStatus* MakeContextNode(EpState& state, const OrtGraph* graph, const OrtNode* fused,
                           const Program& program, OrtNode** out) {
  const int k = state.contexts++;
  const std::string text = Serialize(program);
  std::string cache = text;
  if (!state.embed) {
    std::filesystem::path model(state.context_file_path);
    if (model.empty()) {
      const ORTCHAR_T* source = nullptr;
      EPCTX_RETURN_IF_ERROR(g_ort->Graph_GetModelPath(graph, &source));
      const std::filesystem::path in(source != nullptr ? source : "");
      model = in.parent_path() / (in.stem().string() + "_ctx.onnx");
    }
    cache = model.stem().string() + "_" + kEpName + "_" + std::to_string(k) + ".bin";
    const std::filesystem::path file = model.parent_path() / cache;
    std::ofstream write(file, std::ios::binary | std::ios::trunc);
    write << text;
    if (!write) {
      return Error(ORT_FAIL, "cannot write the context file '" + file.string() +
                                 "'; fix: make its folder writable");
    }
  }
  const char* fused_name = nullptr;
  EPCTX_RETURN_IF_ERROR(g_ort->Node_GetName(fused, &fused_name));
  std::vector<std::string> inputs;
  std::vector<std::string> outputs;
  EPCTX_RETURN_IF_ERROR(ValueNames(fused, true, &inputs));
  EPCTX_RETURN_IF_ERROR(ValueNames(fused, false, &outputs));
  const int64_t embed_mode = state.embed ? 1 : 0;
  const int64_t main_context = 1;
  const std::string partition = std::string(kEpName) + "_" + std::to_string(k);
  std::vector<OrtOpAttr*> attrs(8, nullptr);
  OrtStatus* status = nullptr;
  auto make = [&](size_t i, const char* name, const void* data, OrtOpAttrType type) {
    if (status == nullptr) status = g_ort->CreateOpAttr(name, data, 1, type, &attrs[i]);
  };
  // STRING: `len` is the string's byte count (ORT 1.30 copies that many).
  auto make_string = [&](size_t i, const char* name, const std::string& text) {
    if (status == nullptr) {
      status = g_ort->CreateOpAttr(name, text.data(), static_cast<int>(text.size()),
                                   ORT_OP_ATTR_STRING, &attrs[i]);
    }
  };
  make(0, "embed_mode", &embed_mode, ORT_OP_ATTR_INT);
  make_string(1, "ep_cache_context", cache);
  make(2, "main_context", &main_context, ORT_OP_ATTR_INT);
  make_string(3, "ep_sdk_version", nxrt_example_ep::kVersion);
  make_string(4, "partition_name", partition);
  make_string(5, "source", kEpName);
  make_string(6, "hardware_architecture", "cpu");
  make_string(7, "notes", "nxrt test plugin: float32 elementwise program");
  std::vector<const char*> input_names;
  std::vector<const char*> output_names;
  for (const std::string& name : inputs) input_names.push_back(name.c_str());
  for (const std::string& name : outputs) output_names.push_back(name.c_str());
  if (status == nullptr) {
    status = g_editor->CreateNode("EPContext", "com.microsoft", fused_name, input_names.data(),
                                  input_names.size(), output_names.data(), output_names.size(),
                                  attrs.data(), attrs.size(), out);
  }
  for (OrtOpAttr* attr : attrs) g_ort->ReleaseOpAttr(attr);
  return status;
}

OrtStatus* CompileOne(OrtEp* ep, EpState& state, const OrtGraph* graph, const OrtNode* fused,
                      OrtNodeComputeInfo** info, OrtNode** context_node) {
  size_t count = 0;
  EPCTX_RETURN_IF_ERROR(g_ort->Graph_GetNumNodes(graph, &count));
  std::vector<const OrtNode*> nodes(count);
  EPCTX_RETURN_IF_ERROR(g_ort->Graph_GetNodes(graph, nodes.data(), count));
  std::string source;
  if (count == 1) EPCTX_RETURN_IF_ERROR(EpContextSource(nodes[0], &source));
  if (source == kEpName) {
    Program program;
    EPCTX_RETURN_IF_ERROR(LoadContext(graph, nodes[0], &program));
    const char* fused_name = nullptr;
    EPCTX_RETURN_IF_ERROR(g_ort->Node_GetName(fused, &fused_name));
    program.name = fused_name;
    *info = nxrt_example_ep::NewComputeInfo(*g_ort, nxrt_example_ep::ExampleEpRuntime(ep),
                                            std::move(program));
    return *info != nullptr ? nullptr : Error(ORT_FAIL, "Compile: out of memory");
  }
  EPCTX_RETURN_IF_ERROR(g_example_compile(ep, &graph, &fused, 1, info, nullptr));
  if (!state.generate || context_node == nullptr) return nullptr;
  return MakeContextNode(state, graph, fused, static_cast<ComputeInfo*>(*info)->program,
                         context_node);
}

OrtStatus* ORT_API_CALL Compile(OrtEp* ep, const OrtGraph** graphs, const OrtNode** fused_nodes,
                                size_t count, OrtNodeComputeInfo** infos,
                                OrtNode** ep_context_nodes) noexcept {
  std::lock_guard<std::mutex> lock(g_mutex);
  EpState& state = g_states[ep];
  for (size_t i = 0; i < count; ++i) infos[i] = nullptr;
  for (size_t i = 0; i < count; ++i) {
    OrtNode** context_node = ep_context_nodes != nullptr ? &ep_context_nodes[i] : nullptr;
    if (context_node != nullptr) *context_node = nullptr;
    OrtStatus* status = CompileOne(ep, state, graphs[i], fused_nodes[i], &infos[i], context_node);
    if (status != nullptr) {
      g_example_release_infos(ep, infos, i + (infos[i] != nullptr ? 1 : 0));
      for (size_t j = 0; j <= i; ++j) infos[j] = nullptr;
      for (size_t j = 0; ep_context_nodes != nullptr && j <= i; ++j) {
        g_ort->ReleaseNode(ep_context_nodes[j]);
        ep_context_nodes[j] = nullptr;
      }
      return status;
    }
  }
  return nullptr;
}

const char* ORT_API_CALL GetCompiledModelCompatibilityInfo(OrtEp*, const OrtGraph*) noexcept {
  return kCompatibilityInfo;
}

// ---- OrtEpFactory -------------------------------------------------------------------------

OrtStatus* ReadState(const OrtSessionOptions* options, EpState* state) {
  OrtKeyValuePairs* entries = nullptr;
  EPCTX_RETURN_IF_ERROR(g_ort->GetSessionOptionsConfigEntries(options, &entries));
  const char* const* keys = nullptr;
  const char* const* values = nullptr;
  size_t count = 0;
  g_ort->GetKeyValuePairs(entries, &keys, &values, &count);
  for (size_t i = 0; i < count; ++i) {
    const std::string key = keys[i];
    if (key == "ep.context_enable") state->generate = std::strcmp(values[i], "1") == 0;
    if (key == "ep.context_embed_mode") state->embed = std::strcmp(values[i], "1") == 0;
    if (key == "ep.context_file_path") state->context_file_path = values[i];
  }
  g_ort->ReleaseKeyValuePairs(entries);
  return nullptr;
}

OrtStatus* ORT_API_CALL CreateEp(OrtEpFactory* factory, const OrtHardwareDevice* const* devices,
                                 const OrtKeyValuePairs* const* metadata, size_t num_devices,
                                 const OrtSessionOptions* options, const OrtLogger* logger,
                                 OrtEp** ep) noexcept {
  EpState state;
  EPCTX_RETURN_IF_ERROR(ReadState(options, &state));
  EPCTX_RETURN_IF_ERROR(
      g_example_create_ep(factory, devices, metadata, num_devices, options, logger, ep));
  g_example_get_capability = (*ep)->GetCapability;
  g_example_compile = (*ep)->Compile;
  g_example_release_infos = (*ep)->ReleaseNodeComputeInfos;
  (*ep)->GetCapability = GetCapability;
  (*ep)->Compile = Compile;
  (*ep)->GetCompiledModelCompatibilityInfo = GetCompiledModelCompatibilityInfo;
  std::lock_guard<std::mutex> lock(g_mutex);
  g_states[*ep] = state;
  return nullptr;
}

void ORT_API_CALL ReleaseEp(OrtEpFactory* factory, OrtEp* ep) noexcept {
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    g_states.erase(ep);
  }
  g_example_release_ep(factory, ep);
}

OrtStatus* ORT_API_CALL ValidateCompatibility(OrtEpFactory*, const OrtHardwareDevice* const*,
                                              size_t, const char* info,
                                              OrtCompiledModelCompatibility* verdict) noexcept {
  const std::string text = info != nullptr ? info : "";
  if (text == kCompatibilityInfo) {
    *verdict = OrtCompiledModelCompatibility_EP_SUPPORTED_OPTIMAL;
  } else if (text.rfind(kCompatibilityPrefix, 0) == 0) {
    *verdict = OrtCompiledModelCompatibility_EP_UNSUPPORTED;
  } else {
    *verdict = OrtCompiledModelCompatibility_EP_NOT_APPLICABLE;
  }
  return nullptr;
}

OrtStatus* CreateFactories(const OrtApiBase* api_base, OrtEpFactory** factories,
                           size_t max_factories, size_t* num_factories) {
  *num_factories = 0;
  g_ort = api_base->GetApi(ORT_API_VERSION);
  if (g_ort == nullptr) return nullptr;
  g_editor = g_ort->GetModelEditorApi();
  if (g_editor == nullptr) {
    return Error(ORT_NOT_IMPLEMENTED, "the host serves no OrtModelEditorApi, which makes the "
                                      "EPContext nodes; fix: use a host with the model editor API");
  }
  OrtStatus* status = nxrt_example_ep::CreateExampleEpFactories(api_base, kEpName, factories,
                                                                max_factories, num_factories);
  if (status == nullptr && *num_factories == 1) {
    g_example_create_ep = factories[0]->CreateEp;
    g_example_release_ep = factories[0]->ReleaseEp;
    factories[0]->CreateEp = CreateEp;
    factories[0]->ReleaseEp = ReleaseEp;
    factories[0]->ValidateCompiledModelCompatibilityInfo = ValidateCompatibility;
  }
  return status;
}

}  // namespace

#define NXRT_EPCTX_EXPORT extern "C" __attribute__((visibility("default")))

NXRT_EPCTX_EXPORT OrtStatus* CreateEpFactories(const char*, const OrtApiBase* api_base,
                                               const OrtLogger*, OrtEpFactory** factories,
                                               size_t max_factories, size_t* num_factories) {
  return CreateFactories(api_base, factories, max_factories, num_factories);
}

NXRT_EPCTX_EXPORT OrtStatus* ReleaseEpFactory(OrtEpFactory* factory) {
  nxrt_example_ep::ReleaseExampleEpFactory(factory);
  return nullptr;
}
