// plugins/example_ep/ep.cpp: option parsing, GetCapability (support checks + grouping.h) and
// Compile (program.h) of the example EP.
#include "example_ep/ep.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <new>
#include <string>
#include <unordered_map>

#include "example_ep/counters.h"
#include "example_ep/grouping.h"

namespace nxrt_example_ep {
namespace {

constexpr const char* kMaxGroupSize = "max_group_size";
constexpr const char* kClaimOps = "claim_ops";
constexpr const char* kConcurrentRuns = "concurrent_runs";

// "ep.<ep_name lower-cased>.<key>": ORT stores the options of an EP appended with
// SessionOptionsAppendExecutionProvider_V2 under its lower-cased name.
std::string OptionKey(const char* ep_name, const char* key) {
  std::string name = ep_name;
  for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return "ep." + name + "." + key;
}

std::string OpList(const std::vector<ElementwiseOp>& ops) {
  std::string text;
  for (ElementwiseOp op : ops) text += (text.empty() ? "" : ", ") + std::string(ElementwiseOpName(op));
  return text;
}

OrtStatus* BadOption(const OrtApi& ort, const std::string& key, const std::string& value,
                     const std::string& problem_and_fix) {
  return MakeStatus(ort, ORT_INVALID_ARGUMENT,
                    "option " + key + "='" + value + "' " + problem_and_fix);
}

OrtStatus* ParseMaxGroupSize(const OrtApi& ort, const std::string& key, const std::string& value,
                             size_t* out) {
  const std::string fix =
      "is not a non-negative integer; fix: give a node count such as 4, or 0 for no limit";
  if (value.empty() || value.size() > 9 ||
      !std::all_of(value.begin(), value.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    return BadOption(ort, key, value, fix);
  }
  *out = std::stoul(value);
  return nullptr;
}

OrtStatus* ParseClaimOps(const OrtApi& ort, const std::string& key, const std::string& value,
                         std::vector<ElementwiseOp>* out) {
  const std::vector<ElementwiseOp> all(std::begin(kAllElementwiseOps), std::end(kAllElementwiseOps));
  out->clear();
  size_t begin = 0;
  while (begin <= value.size()) {
    size_t end = value.find(',', begin);
    if (end == std::string::npos) end = value.size();
    std::string item = value.substr(begin, end - begin);
    item.erase(0, item.find_first_not_of(' '));
    item.erase(item.find_last_not_of(' ') + 1);
    if (!item.empty()) {
      const std::optional<ElementwiseOp> op = ElementwiseOpFromName(item);
      if (!op) {
        return BadOption(ort, key, value,
                         "names '" + item + "', which " + kEpName + " cannot run; fix: list only " +
                             OpList(all));
      }
      if (std::find(out->begin(), out->end(), *op) == out->end()) out->push_back(*op);
    }
    begin = end + 1;
  }
  if (out->empty()) {
    return BadOption(ort, key, value,
                     "names no op; fix: list some of " + OpList(all) + ", or drop the option");
  }
  return nullptr;
}

OrtStatus* ParseConcurrentRuns(const OrtApi& ort, const std::string& key, const std::string& value,
                                bool* out) {
  if (value != "0" && value != "1") {
    return BadOption(ort, key, value,
                     "is not 0 or 1; fix: give 1 (the EP may run concurrently) or 0 (the host "
                     "must serialise runs)");
  }
  *out = value == "1";
  return nullptr;
}

struct ExampleEp : OrtEp {
  HostApi api;
  const char* name = kEpName;
  const OrtLogger* logger = nullptr;
  EpOptions options;
  EpRuntime runtime;  // shared with the EP's compute infos
};

const char* ORT_API_CALL GetName(const OrtEp* this_ptr) noexcept {
  return static_cast<const ExampleEp*>(this_ptr)->name;
}

// Why `node` cannot be claimed, or "" when it can.
OrtStatus* DeclineReason(const ExampleEp& ep, const OrtNode* node, std::string* reason) {
  const OrtApi& ort = *ep.api.ort;
  const char* op_type = nullptr;
  const char* domain = nullptr;
  const char* assigned_ep = nullptr;
  EXAMPLE_EP_RETURN_IF_ERROR(ort.Node_GetOperatorType(node, &op_type));
  EXAMPLE_EP_RETURN_IF_ERROR(ort.Node_GetDomain(node, &domain));
  EXAMPLE_EP_RETURN_IF_ERROR(ort.Node_GetEpName(node, &assigned_ep));
  reason->clear();
  if (assigned_ep != nullptr && assigned_ep[0] != '\0' && std::strcmp(assigned_ep, ep.name) != 0) {
    *reason = std::string("already assigned to EP '") + assigned_ep + "'";
    return nullptr;
  }
  if (domain != nullptr && domain[0] != '\0') {
    *reason = std::string("domain '") + domain + "' is not the ONNX domain \"\"";
    return nullptr;
  }
  const std::optional<ElementwiseOp> op = ElementwiseOpFromName(op_type);
  const auto& allowed = ep.options.claim_ops;
  if (!op || std::find(allowed.begin(), allowed.end(), *op) == allowed.end()) {
    *reason = std::string("op type ") + op_type + " is not one of " + OpList(allowed);
    if (op) *reason += " (" + OptionKey(ep.name, kClaimOps) + ")";
    return nullptr;
  }
  size_t num_inputs = 0;
  size_t num_outputs = 0;
  EXAMPLE_EP_RETURN_IF_ERROR(ort.Node_GetNumInputs(node, &num_inputs));
  EXAMPLE_EP_RETURN_IF_ERROR(ort.Node_GetNumOutputs(node, &num_outputs));
  if (num_inputs != ElementwiseOpArity(*op) || num_outputs != 1) {
    *reason = std::to_string(num_inputs) + " inputs and " + std::to_string(num_outputs) +
              " outputs, expected " + std::to_string(ElementwiseOpArity(*op)) + " and 1";
    return nullptr;
  }
  std::vector<const OrtValueInfo*> values(num_inputs + num_outputs);
  EXAMPLE_EP_RETURN_IF_ERROR(ort.Node_GetInputs(node, values.data(), num_inputs));
  EXAMPLE_EP_RETURN_IF_ERROR(ort.Node_GetOutputs(node, values.data() + num_inputs, num_outputs));
  for (size_t i = 0; i < values.size(); ++i) {
    const std::string which = i < num_inputs ? "input " + std::to_string(i)
                                             : "output " + std::to_string(i - num_inputs);
    if (values[i] == nullptr) {
      *reason = which + " is missing";
      return nullptr;
    }
    const OrtTypeInfo* type_info = nullptr;
    ONNXType onnx_type = ONNX_TYPE_UNKNOWN;
    EXAMPLE_EP_RETURN_IF_ERROR(ort.GetValueInfoTypeInfo(values[i], &type_info));
    EXAMPLE_EP_RETURN_IF_ERROR(ort.GetOnnxTypeFromTypeInfo(type_info, &onnx_type));
    if (onnx_type != ONNX_TYPE_TENSOR) {
      *reason = which + " is not a tensor (ONNXType " + std::to_string(onnx_type) + ")";
      return nullptr;
    }
    const OrtTensorTypeAndShapeInfo* tensor_info = nullptr;
    ONNXTensorElementDataType element_type = ONNX_TENSOR_ELEMENT_DATA_TYPE_UNDEFINED;
    EXAMPLE_EP_RETURN_IF_ERROR(ort.CastTypeInfoToTensorInfo(type_info, &tensor_info));
    EXAMPLE_EP_RETURN_IF_ERROR(ort.GetTensorElementType(tensor_info, &element_type));
    if (element_type != ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT) {
      *reason = which + " has element type " + std::to_string(element_type) +
                ", only float (1) is supported";
      return nullptr;
    }
  }
  return nullptr;
}

// Appends to `producers` the graph nodes (by index in `position`) making `values`; values from
// graph inputs, initializers or an outer graph have none.
OrtStatus* AddProducers(const OrtApi& ort, const std::vector<const OrtValueInfo*>& values,
                        const std::unordered_map<const OrtNode*, size_t>& position,
                        std::vector<size_t>* producers) {
  for (const OrtValueInfo* value : values) {
    if (value == nullptr) continue;
    const OrtNode* producer = nullptr;
    EXAMPLE_EP_RETURN_IF_ERROR(ort.ValueInfo_GetValueProducer(value, &producer, nullptr));
    if (auto it = position.find(producer); producer != nullptr && it != position.end()) {
      producers->push_back(it->second);
    }
  }
  return nullptr;
}

OrtStatus* Capability(ExampleEp& ep, const OrtGraph* graph, OrtEpGraphSupportInfo* support) {
  const OrtApi& ort = *ep.api.ort;
  size_t num_nodes = 0;
  EXAMPLE_EP_RETURN_IF_ERROR(ort.Graph_GetNumNodes(graph, &num_nodes));
  std::vector<const OrtNode*> nodes(num_nodes);
  EXAMPLE_EP_RETURN_IF_ERROR(ort.Graph_GetNodes(graph, nodes.data(), nodes.size()));
  std::unordered_map<const OrtNode*, size_t> position;
  for (size_t i = 0; i < num_nodes; ++i) position.emplace(nodes[i], i);

  std::vector<std::vector<size_t>> producers(num_nodes);
  std::vector<bool> supported(num_nodes);
  for (size_t i = 0; i < num_nodes; ++i) {
    size_t count = 0;
    EXAMPLE_EP_RETURN_IF_ERROR(ort.Node_GetNumInputs(nodes[i], &count));
    std::vector<const OrtValueInfo*> inputs(count);
    EXAMPLE_EP_RETURN_IF_ERROR(ort.Node_GetInputs(nodes[i], inputs.data(), count));
    EXAMPLE_EP_RETURN_IF_ERROR(AddProducers(ort, inputs, position, &producers[i]));
    // Values a subgraph reads from this graph are dependencies too (If/Loop/Scan).
    EXAMPLE_EP_RETURN_IF_ERROR(ort.Node_GetNumImplicitInputs(nodes[i], &count));
    inputs.assign(count, nullptr);
    EXAMPLE_EP_RETURN_IF_ERROR(ort.Node_GetImplicitInputs(nodes[i], inputs.data(), count));
    EXAMPLE_EP_RETURN_IF_ERROR(AddProducers(ort, inputs, position, &producers[i]));

    std::string reason;
    EXAMPLE_EP_RETURN_IF_ERROR(DeclineReason(ep, nodes[i], &reason));
    supported[i] = reason.empty();
    if (!supported[i]) {
      const char* name = nullptr;
      const char* op_type = nullptr;
      EXAMPLE_EP_RETURN_IF_ERROR(ort.Node_GetName(nodes[i], &name));
      EXAMPLE_EP_RETURN_IF_ERROR(ort.Node_GetOperatorType(nodes[i], &op_type));
      Log(ort, ep.logger, ORT_LOGGING_LEVEL_INFO,
          std::string("node '") + name + "' (" + op_type + ") declined: " + reason);
    }
  }

  const std::vector<std::vector<size_t>> groups =
      GroupConvex(producers, supported, ep.options.max_group_size);
  OrtNodeFusionOptions fusion{};
  fusion.ort_version_supported = ORT_API_VERSION;
  fusion.drop_constant_initializers = true;
  size_t claimed = 0;
  for (const std::vector<size_t>& group : groups) {
    std::vector<const OrtNode*> group_nodes;
    for (size_t i : group) group_nodes.push_back(nodes[i]);
    EXAMPLE_EP_RETURN_IF_ERROR(ep.api.ep->EpGraphSupportInfo_AddNodesToFuse(
        support, group_nodes.data(), group_nodes.size(), &fusion));
    claimed += group.size();
  }
  const char* graph_name = nullptr;
  EXAMPLE_EP_RETURN_IF_ERROR(ort.Graph_GetName(graph, &graph_name));
  Log(ort, ep.logger, ORT_LOGGING_LEVEL_INFO,
      "graph '" + std::string(graph_name != nullptr ? graph_name : "") + "': claims " +
          std::to_string(claimed) + " of " + std::to_string(num_nodes) + " nodes in " +
          std::to_string(groups.size()) + " fused groups");
  return nullptr;
}

OrtStatus* ORT_API_CALL GetCapability(OrtEp* this_ptr, const OrtGraph* graph,
                                      OrtEpGraphSupportInfo* support) noexcept {
  auto& ep = *static_cast<ExampleEp*>(this_ptr);
  return Guarded(*ep.api.ort, "GetCapability", [&] { return Capability(ep, graph, support); });
}

void ORT_API_CALL ReleaseNodeComputeInfos(OrtEp*, OrtNodeComputeInfo** infos,
                                          size_t count) noexcept {
  for (size_t i = 0; i < count; ++i) ReleaseComputeInfo(infos[i]);
}

OrtStatus* ORT_API_CALL Compile(OrtEp* this_ptr, const OrtGraph** graphs,
                                const OrtNode** fused_nodes, size_t count,
                                OrtNodeComputeInfo** compute_infos, OrtNode**) noexcept {
  auto& ep = *static_cast<ExampleEp*>(this_ptr);
  const OrtApi& ort = *ep.api.ort;
  for (size_t i = 0; i < count; ++i) compute_infos[i] = nullptr;
  for (size_t i = 0; i < count; ++i) {
    Program program;
    OrtStatus* status = BuildProgram(ort, graphs[i], fused_nodes[i], &program);
    if (status == nullptr) {
      compute_infos[i] = NewComputeInfo(ort, &ep.runtime, std::move(program));
      if (compute_infos[i] == nullptr) status = MakeStatus(ort, ORT_FAIL, "Compile: out of memory");
    }
    if (status != nullptr) {
      // Nothing half-built survives a failed Compile.
      ReleaseNodeComputeInfos(this_ptr, compute_infos, i);
      for (size_t j = 0; j < i; ++j) compute_infos[j] = nullptr;
      return status;
    }
  }
  return nullptr;
}

// The EP keeps no compiled artefact in the model, so there is nothing to check compatibility of.
const char* ORT_API_CALL GetCompiledModelCompatibilityInfo(OrtEp*, const OrtGraph*) noexcept {
  return "";
}

// Compute shares only immutable programs and atomic counters across runs, so concurrent runs are
// safe; option concurrent_runs=0 makes the EP say no, to test that the host then serialises.
OrtStatus* ORT_API_CALL IsConcurrentRunSupported(OrtEp* this_ptr, bool* is_supported) noexcept {
  *is_supported = static_cast<const ExampleEp*>(this_ptr)->options.concurrent_runs;
  return nullptr;
}

// The run hooks only count calls (counters.h); the EP has no stream to synchronise.
OrtStatus* ORT_API_CALL OnRunStart(OrtEp*, const OrtRunOptions*) noexcept {
  Increment(Counter::kRunStarts);
  return nullptr;
}

OrtStatus* ORT_API_CALL OnRunEnd(OrtEp*, const OrtRunOptions*, bool) noexcept {
  Increment(Counter::kRunEnds);
  return nullptr;
}

}  // namespace

OrtStatus* ReadEpOptions(const OrtApi& ort, const char* ep_name,
                         const OrtSessionOptions* session_options, EpOptions* options) {
  return Guarded(ort, "reading session options", [&]() -> OrtStatus* {
    OrtKeyValuePairs* entries = nullptr;
    EXAMPLE_EP_RETURN_IF_ERROR(ort.GetSessionOptionsConfigEntries(session_options, &entries));
    const char* const* keys = nullptr;
    const char* const* values = nullptr;
    size_t count = 0;
    ort.GetKeyValuePairs(entries, &keys, &values, &count);
    const std::string prefix = OptionKey(ep_name, "");
    OrtStatus* status = nullptr;
    for (size_t i = 0; i < count && status == nullptr; ++i) {
      const std::string key = keys[i];
      if (key.rfind(prefix, 0) != 0) continue;
      const std::string name = key.substr(prefix.size());
      if (name == kMaxGroupSize) {
        status = ParseMaxGroupSize(ort, key, values[i], &options->max_group_size);
      } else if (name == kClaimOps) {
        status = ParseClaimOps(ort, key, values[i], &options->claim_ops);
      } else if (name == kConcurrentRuns) {
        status = ParseConcurrentRuns(ort, key, values[i], &options->concurrent_runs);
      } else {
        status = BadOption(ort, key, values[i],
                           std::string("is not an option of ") + ep_name + "; fix: use " +
                               OptionKey(ep_name, kMaxGroupSize) + ", " +
                               OptionKey(ep_name, kClaimOps) + " or " +
                               OptionKey(ep_name, kConcurrentRuns));
      }
    }
    ort.ReleaseKeyValuePairs(entries);
    return status;
  });
}

OrtEp* NewExampleEp(const HostApi& api, const char* ep_name, const OrtLogger* logger,
                    EpOptions options, const DeviceMemory& device_memory) {
  auto* ep = new (std::nothrow) ExampleEp();  // value-initialised: later slots stay null
  if (ep == nullptr) return nullptr;
  ep->ort_version_supported = ORT_API_VERSION;
  ep->GetName = GetName;
  ep->GetCapability = GetCapability;
  ep->Compile = Compile;
  ep->ReleaseNodeComputeInfos = ReleaseNodeComputeInfos;
  ep->GetCompiledModelCompatibilityInfo = GetCompiledModelCompatibilityInfo;
  ep->IsConcurrentRunSupported = IsConcurrentRunSupported;
  ep->OnRunStart = OnRunStart;
  ep->OnRunEnd = OnRunEnd;
  ep->api = api;
  ep->name = ep_name;
  ep->logger = logger;
  ep->options = std::move(options);
  ep->runtime.ep_api = api.ep;
  ep->runtime.serial_runs = !ep->options.concurrent_runs;
  ep->runtime.device_memory = device_memory;
  return ep;
}

void DeleteExampleEp(OrtEp* ep) { delete static_cast<ExampleEp*>(ep); }

EpRuntime* ExampleEpRuntime(OrtEp* ep) { return &static_cast<ExampleEp*>(ep)->runtime; }

}  // namespace nxrt_example_ep
