// plugins/recording_ep/recording_ep.cpp: the recording EP (EP name `recording_ep`, vendor
// `nxrt`), written with ONNX Runtime's C++ wrapper (onnxruntime_cxx_api.h). It records every call
// a host makes into it, in order, with its arguments, and every graph it is shown, read
// completely through the graph API, as JSON (plugins/README.md, "The recording EP").
//
// Options (ep.recording_ep.<key>): `claim` = `none` (default: GetCapability claims nothing) or
// `all` (each node without subgraphs becomes a fused group of its own, so Compile receives one
// graph per node; its compute infos fail every Compute).
//
// Exported besides CreateEpFactories/ReleaseEpFactory, for tests that dlopen the same file:
//   const char* NxrtRecordingEp_Dump(void)   the record since load or the last reset, as JSON:
//       {"registration": [calls before the first CreateEp], "session": [calls from then on]}
//   void NxrtRecordingEp_Reset(void)         forgets the record (registration included)
// No pointer value is recorded. Objects are named: a graph by its path ("main", then
// "<parent path>/<node>/<attribute>"), a node by its name (or "<op>-><first output>" when it has
// none), a value by its name. Lists the graph API gives in an unspecified order are sorted:
// initializers by name, consumers by (node, input index) (ORT keeps both in hash containers).
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#define ORT_API_MANUAL_INIT
#include <nlohmann/json.hpp>

#include "onnxruntime_cxx_api.h"

#define RECORDING_EP_EXPORT extern "C" __attribute__((visibility("default")))

namespace {

using Json = nlohmann::ordered_json;

constexpr const char* kEpName = "recording_ep";
constexpr const char* kVendor = "nxrt";
constexpr const char* kVersion = "1.0.0";

// The record, shared by every factory and EP of this library instance.
struct Record {
  std::mutex mutex;
  Json registration = Json::array();
  Json session = Json::array();
  bool in_session = false;
  std::string dumped;  // NxrtRecordingEp_Dump's last answer
};
Record& TheRecord() {
  static Record record;
  return record;
}

void Note(Json call) {
  Record& record = TheRecord();
  std::lock_guard<std::mutex> lock(record.mutex);
  (record.in_session ? record.session : record.registration).push_back(std::move(call));
}

Json Call(const char* name) { return Json{{"call", name}}; }

// "code: message" of a failed wrapper call ("exception: message" for any other failure).
std::string ErrorOf(const std::exception& e) {
  if (const auto* ort = dynamic_cast<const Ort::Exception*>(&e)) {
    return std::to_string(static_cast<int>(ort->GetOrtErrorCode())) + ": " + e.what();
  }
  return std::string("exception: ") + e.what();
}

// FNV-1a of `bytes`, as 16 hex digits: tensors are recorded by content, not by address.
std::string Digest(const void* data, size_t bytes) {
  uint64_t h = 1469598103934665603ull;
  const auto* p = static_cast<const unsigned char*>(data);
  for (size_t i = 0; i < bytes; ++i) h = (h ^ p[i]) * 1099511628211ull;
  char out[17];
  std::snprintf(out, sizeof(out), "%016llx", static_cast<unsigned long long>(h));
  return out;
}

std::string NodeRef(Ort::ConstNode node) {
  if (node == nullptr) return "";
  std::string name = node.GetName();
  if (!name.empty()) return name;
  std::vector<Ort::ConstValueInfo> outputs = node.GetOutputs();
  std::string first = !outputs.empty() && outputs[0] != nullptr ? outputs[0].GetName() : "";
  return node.GetOperatorType() + "->" + first;
}

Json TypeJson(Ort::ConstTypeInfo type) {
  Json out;
  const ONNXType kind = type.GetONNXType();
  switch (kind) {
    case ONNX_TYPE_TENSOR:
    case ONNX_TYPE_SPARSETENSOR: {
      Ort::ConstTensorTypeAndShapeInfo info = type.GetTensorTypeAndShapeInfo();
      out["kind"] = kind == ONNX_TYPE_TENSOR ? "tensor" : "sparse_tensor";
      out["elem"] = static_cast<int>(info.GetElementType());
      std::vector<int64_t> dims = info.GetShape();
      std::vector<const char*> symbols = info.GetSymbolicDimensions();
      Json shape = Json::array();
      for (size_t i = 0; i < dims.size(); ++i) {
        const char* symbol = i < symbols.size() ? symbols[i] : nullptr;
        if (dims[i] >= 0) {
          shape.push_back(dims[i]);
        } else if (symbol != nullptr && symbol[0] != '\0') {
          shape.push_back(symbol);
        } else {
          shape.push_back("?" + std::to_string(dims[i]));
        }
      }
      out["shape"] = std::move(shape);
      break;
    }
    case ONNX_TYPE_SEQUENCE:
      out["kind"] = "sequence";
      out["element"] = TypeJson(type.GetSequenceTypeInfo().GetSequenceElementType().GetConst());
      break;
    case ONNX_TYPE_OPTIONAL:
      out["kind"] = "optional";
      out["element"] = TypeJson(type.GetOptionalTypeInfo().GetOptionalElementType().GetConst());
      break;
    case ONNX_TYPE_MAP:
      out["kind"] = "map";
      out["key"] = static_cast<int>(type.GetMapTypeInfo().GetMapKeyType());
      out["element"] = TypeJson(type.GetMapTypeInfo().GetMapValueType().GetConst());
      break;
    default:
      out["kind"] = "onnx_type_" + std::to_string(static_cast<int>(kind));
      break;
  }
  return out;
}

// A tensor by element type, shape and content digest (strings by count only).
Json TensorJson(Ort::ConstValue value) {
  Ort::TensorTypeAndShapeInfo info = value.GetTensorTypeAndShapeInfo();
  Json out{{"elem", static_cast<int>(info.GetElementType())}, {"shape", info.GetShape()}};
  if (info.GetElementType() != ONNX_TENSOR_ELEMENT_DATA_TYPE_STRING) {
    out["digest"] = Digest(value.GetTensorRawData(), value.GetTensorSizeInBytes());
  }
  return out;
}

Json AttributeJson(Ort::ConstOpAttr attr) {
  Json out{{"name", attr.GetName()}};
  const OrtOpAttrType type = attr.GetType();
  out["type"] = static_cast<int>(type);
  try {
    switch (type) {
      case ORT_OP_ATTR_INT: {
        int64_t v = 0;
        Ort::ThrowOnError(attr.GetValue(v));
        out["value"] = v;
        break;
      }
      case ORT_OP_ATTR_FLOAT: {
        float v = 0;
        Ort::ThrowOnError(attr.GetValue(v));
        out["value"] = v;
        break;
      }
      case ORT_OP_ATTR_INTS: {
        std::vector<int64_t> v;
        Ort::ThrowOnError(attr.GetValueArray(v));
        out["value"] = v;
        break;
      }
      case ORT_OP_ATTR_FLOATS: {
        std::vector<float> v;
        Ort::ThrowOnError(attr.GetValueArray(v));
        out["value"] = v;
        break;
      }
      case ORT_OP_ATTR_STRING: {
        std::string v;
        Ort::ThrowOnError(attr.GetValue(v));
        out["value"] = Digest(v.data(), v.size()) + ":" + std::to_string(v.size());
        break;
      }
      case ORT_OP_ATTR_STRINGS: {
        std::vector<std::string> v;
        Ort::ThrowOnError(attr.GetValueArray(v));
        Json strings = Json::array();
        for (const std::string& s : v) strings.push_back(Digest(s.data(), s.size()));
        out["value"] = std::move(strings);
        break;
      }
      case ORT_OP_ATTR_TENSOR: {
        Ort::Value tensor{nullptr};
        Ort::ThrowOnError(attr.GetTensorAttributeAsOrtValue(tensor));
        out["value"] = TensorJson(tensor.GetConst());
        break;
      }
      default:
        break;  // graphs: the node's subgraphs
    }
  } catch (const std::exception& e) {
    out["error"] = ErrorOf(e);
  }
  return out;
}

class GraphDumper {
 public:
  // The whole graph `graph` (path `path`) with its subgraphs, recursively; a subgraph's path is
  // "<path>/<node>/<attribute>".
  Json Dump(Ort::ConstGraph graph, const std::string& path) {
    Json out{{"path", path}};
    Guard(out, "name", [&] { return Json(graph.GetName()); });
    Guard(out, "ir_version", [&] { return Json(graph.GetOnnxIRVersion()); });
    Guard(out, "opsets", [&] {
      Json sets = Json::array();
      for (const Ort::OperatorSet& set : graph.GetOperatorSets()) sets.push_back({set.domain, set.version});
      return sets;
    });
    Guard(out, "parent_node", [&] { return Json(NodeRef(graph.GetParentNode())); });
    Guard(out, "metadata", [&] { return Metadata(graph); });
    Guard(out, "inputs", [&] { return ValueList(graph.GetInputs()); });
    Guard(out, "outputs", [&] { return ValueList(graph.GetOutputs()); });
    Guard(out, "initializers", [&] {
      std::vector<std::string> names;
      for (Ort::ConstValueInfo v : graph.GetInitializers()) {
        names.push_back(v.GetName());
        Value(v);
      }
      std::sort(names.begin(), names.end());
      return Json(names);
    });
    Json nodes = Json::array();
    Json subgraphs = Json::array();
    try {
      for (Ort::ConstNode node : graph.GetNodes()) nodes.push_back(Node(node, path, subgraphs));
    } catch (const std::exception& e) {
      nodes.push_back({{"error", ErrorOf(e)}});
    }
    out["nodes"] = std::move(nodes);
    out["values"] = std::move(values_);
    out["subgraphs"] = std::move(subgraphs);
    return out;
  }

 private:
  template <typename F>
  static void Guard(Json& out, const char* key, F&& read) {
    try {
      out[key] = read();
    } catch (const std::exception& e) {
      out[key] = Json{{"error", ErrorOf(e)}};
    }
  }

  static Json Metadata(Ort::ConstGraph graph) {
    Ort::ModelMetadata metadata = graph.GetModelMetadata();
    Ort::AllocatorWithDefaultOptions allocator;
    Json out{{"producer_name", metadata.GetProducerNameAllocated(allocator).get()},
             {"graph_name", metadata.GetGraphNameAllocated(allocator).get()},
             {"domain", metadata.GetDomainAllocated(allocator).get()},
             {"description", metadata.GetDescriptionAllocated(allocator).get()},
             {"graph_description", metadata.GetGraphDescriptionAllocated(allocator).get()},
             {"version", metadata.GetVersion()}};
    Json custom = Json::object();
    std::vector<std::string> keys;
    for (const Ort::AllocatedStringPtr& key : metadata.GetCustomMetadataMapKeysAllocated(allocator)) {
      keys.emplace_back(key.get());
    }
    std::sort(keys.begin(), keys.end());
    for (const std::string& key : keys) {
      custom[key] = metadata.LookupCustomMetadataMapAllocated(key.c_str(), allocator).get();
    }
    out["custom"] = std::move(custom);
    return out;
  }

  Json ValueList(const std::vector<Ort::ConstValueInfo>& list) {
    Json out = Json::array();
    for (Ort::ConstValueInfo v : list) out.push_back(v == nullptr ? Json() : Json(Value(v)));
    return out;
  }

  // Records `v` under its name in "values" (once) and returns the name.
  std::string Value(Ort::ConstValueInfo v) {
    std::string name = v.GetName();
    if (values_.contains(name)) return name;
    Json info;
    Guard(info, "type", [&] { return TypeJson(v.TypeInfo()); });
    Guard(info, "producer", [&] {
      Ort::ValueInfoConsumerProducerInfo producer = v.GetProducerNode();
      return producer.node == nullptr ? Json() : Json{NodeRef(producer.node), producer.index};
    });
    Guard(info, "consumers", [&] {
      std::vector<std::pair<std::string, int64_t>> uses;
      for (const Ort::ValueInfoConsumerProducerInfo& use : v.GetConsumers()) {
        uses.emplace_back(NodeRef(use.node), use.index);
      }
      std::sort(uses.begin(), uses.end());
      return Json(uses);
    });
    Guard(info, "flags", [&] {
      Json flags = Json::array();
      if (v.IsRequiredGraphInput()) flags.push_back("required_input");
      if (v.IsOptionalGraphInput()) flags.push_back("optional_input");
      if (v.IsGraphOutput()) flags.push_back("output");
      if (v.IsConstantInitializer()) flags.push_back("constant");
      if (v.IsFromOuterScope()) flags.push_back("outer_scope");
      return flags;
    });
    Guard(info, "initializer", [&] {
      Ort::ConstValue value{nullptr};
      Ort::ThrowOnError(v.GetInitializer(value));
      return value == nullptr ? Json() : TensorJson(value);
    });
    Guard(info, "external", [&] {
      Ort::ExternalInitializerInfo external{nullptr};
      Ort::ThrowOnError(v.GetExternalInitializerInfo(external));
      if (external == nullptr) return Json();
      return Json{{"file", external.GetFilePath()},
                  {"offset", external.GetFileOffset()},
                  {"bytes", external.GetByteSize()}};
    });
    values_[name] = std::move(info);
    return name;
  }

  Json Node(Ort::ConstNode node, const std::string& path, Json& subgraphs) {
    Json out{{"ref", NodeRef(node)}};
    Guard(out, "id", [&] { return Json(node.GetId()); });
    Guard(out, "name", [&] { return Json(node.GetName()); });
    Guard(out, "op_type", [&] { return Json(node.GetOperatorType()); });
    Guard(out, "domain", [&] { return Json(node.GetDomain()); });
    Guard(out, "since_version", [&] { return Json(node.GetSinceVersion()); });
    Guard(out, "inputs", [&] { return ValueList(node.GetInputs()); });
    Guard(out, "outputs", [&] { return ValueList(node.GetOutputs()); });
    Guard(out, "implicit_inputs", [&] { return ValueList(node.GetImplicitInputs()); });
    Guard(out, "attributes", [&] {
      Json attrs = Json::array();
      for (Ort::ConstOpAttr attr : node.GetAttributes()) attrs.push_back(AttributeJson(attr));
      return attrs;
    });
    Guard(out, "ep", [&] { return Json(node.GetEpName()); });
    Guard(out, "subgraphs", [&] {
      Json names = Json::array();
      for (const Ort::AttrNameSubgraph& sub : node.GetSubgraphs()) {
        const std::string sub_path = path + "/" + NodeRef(node) + "/" + sub.attr_name;
        names.push_back(sub.attr_name);
        subgraphs.push_back(GraphDumper().Dump(sub.sub_graph, sub_path));
      }
      return names;
    });
    return out;
  }

  Json values_ = Json::object();
};

// ---- the EP ----

struct RecordingEp : OrtEp {
  bool claim_all = false;
  const OrtEpApi* ep_api = nullptr;
};

// The path of a graph GetCapability is shown: "main" for the model's graph, else
// "<parent node>/<graph name>" (ORT 1.30's parent node of a subgraph shown on its own cannot be
// asked for its graph or subgraphs: Node_GetGraph crashes there).
std::string GraphPath(Ort::ConstGraph graph) {
  Ort::ConstNode parent = graph.GetParentNode();
  if (parent == nullptr) return "main";
  return NodeRef(parent) + "/" + graph.GetName();
}

const char* ORT_API_CALL EpGetName(const OrtEp*) noexcept {
  Note(Call("OrtEp::GetName"));
  return kEpName;
}

OrtStatus* ORT_API_CALL EpGetCapability(OrtEp* this_ptr, const OrtGraph* graph,
                                        OrtEpGraphSupportInfo* support) noexcept {
  auto* ep = static_cast<RecordingEp*>(this_ptr);
  try {
    Ort::ConstGraph g{graph};
    const std::string path = GraphPath(g);
    Json call = Call("OrtEp::GetCapability");
    call["graph"] = GraphDumper().Dump(g, path);
    Json claimed = Json::array();
    if (ep->claim_all) {
      for (Ort::ConstNode node : g.GetNodes()) {
        if (!node.GetSubgraphs().empty()) continue;
        const OrtNode* one = node;
        Ort::ThrowOnError(ep->ep_api->EpGraphSupportInfo_AddNodesToFuse(support, &one, 1, nullptr));
        claimed.push_back(NodeRef(node));
      }
    }
    call["claimed"] = std::move(claimed);
    Note(std::move(call));
  } catch (const std::exception& e) {
    Note(Json{{"call", "OrtEp::GetCapability"}, {"error", ErrorOf(e)}});
    return Ort::GetApi().CreateStatus(ORT_EP_FAIL, ErrorOf(e).c_str());
  }
  return nullptr;
}

OrtStatus* ORT_API_CALL ComputeInfoCreateState(OrtNodeComputeInfo*, OrtNodeComputeContext*,
                                               void** state) noexcept {
  Note(Call("OrtNodeComputeInfo::CreateState"));
  *state = nullptr;
  return nullptr;
}
OrtStatus* ORT_API_CALL ComputeInfoCompute(OrtNodeComputeInfo*, void*, OrtKernelContext*) noexcept {
  Note(Call("OrtNodeComputeInfo::Compute"));
  return Ort::GetApi().CreateStatus(ORT_NOT_IMPLEMENTED,
                                    "recording_ep records graphs and computes nothing");
}
void ORT_API_CALL ComputeInfoReleaseState(OrtNodeComputeInfo*, void*) noexcept {
  Note(Call("OrtNodeComputeInfo::ReleaseState"));
}

OrtStatus* ORT_API_CALL EpCompile(OrtEp*, const OrtGraph** graphs, const OrtNode** fused_nodes,
                                  size_t count, OrtNodeComputeInfo** infos,
                                  OrtNode** ep_context_nodes) noexcept {
  Json call = Call("OrtEp::Compile");
  Json items = Json::array();
  for (size_t i = 0; i < count; ++i) {
    Json item;
    try {
      Ort::ConstNode fused{fused_nodes[i]};
      Json node{{"name", fused.GetName()},
                {"op_type", fused.GetOperatorType()},
                {"domain", fused.GetDomain()},
                {"ep", fused.GetEpName()}};
      Json inputs = Json::array();
      for (Ort::ConstValueInfo v : fused.GetInputs()) inputs.push_back(v.GetName());
      Json outputs = Json::array();
      for (Ort::ConstValueInfo v : fused.GetOutputs()) outputs.push_back(v.GetName());
      node["inputs"] = std::move(inputs);
      node["outputs"] = std::move(outputs);
      item["fused_node"] = std::move(node);
      item["graph"] = GraphDumper().Dump(Ort::ConstGraph{graphs[i]}, "compiled");
    } catch (const std::exception& e) {
      item["error"] = ErrorOf(e);
    }
    items.push_back(std::move(item));
    auto* info = new OrtNodeComputeInfo{};
    info->ort_version_supported = ORT_API_VERSION;
    info->CreateState = ComputeInfoCreateState;
    info->Compute = ComputeInfoCompute;
    info->ReleaseState = ComputeInfoReleaseState;
    infos[i] = info;
    if (ep_context_nodes != nullptr) ep_context_nodes[i] = nullptr;
  }
  call["graphs"] = std::move(items);
  Note(std::move(call));
  return nullptr;
}

void ORT_API_CALL EpReleaseNodeComputeInfos(OrtEp*, OrtNodeComputeInfo** infos,
                                            size_t count) noexcept {
  Note(Json{{"call", "OrtEp::ReleaseNodeComputeInfos"}, {"count", count}});
  for (size_t i = 0; i < count; ++i) delete infos[i];
}

OrtStatus* ORT_API_CALL EpIsConcurrentRunSupported(OrtEp*, bool* supported) noexcept {
  Note(Call("OrtEp::IsConcurrentRunSupported"));
  *supported = true;
  return nullptr;
}

// ---- the factory ----

const char* ORT_API_CALL FactoryGetName(const OrtEpFactory*) noexcept {
  Note(Call("OrtEpFactory::GetName"));
  return kEpName;
}
const char* ORT_API_CALL FactoryGetVendor(const OrtEpFactory*) noexcept {
  Note(Call("OrtEpFactory::GetVendor"));
  return kVendor;
}
uint32_t ORT_API_CALL FactoryGetVendorId(const OrtEpFactory*) noexcept {
  Note(Call("OrtEpFactory::GetVendorId"));
  return 0;
}
const char* ORT_API_CALL FactoryGetVersion(const OrtEpFactory*) noexcept {
  Note(Call("OrtEpFactory::GetVersion"));
  return kVersion;
}

const char* DeviceTypeName(OrtHardwareDeviceType type) {
  switch (type) {
    case OrtHardwareDeviceType_CPU: return "cpu";
    case OrtHardwareDeviceType_GPU: return "gpu";
    case OrtHardwareDeviceType_NPU: return "npu";
  }
  return "?";
}

// One OrtEpDevice per CPU hardware device.
OrtStatus* ORT_API_CALL FactoryGetSupportedDevices(OrtEpFactory* this_ptr,
                                                   const OrtHardwareDevice* const* devices,
                                                   size_t num_devices, OrtEpDevice** ep_devices,
                                                   size_t max_ep_devices,
                                                   size_t* num_ep_devices) noexcept {
  const OrtApi& api = Ort::GetApi();
  const OrtEpApi* ep_api = api.GetEpApi();
  Json offered = Json::array();
  *num_ep_devices = 0;
  for (size_t i = 0; i < num_devices; ++i) {
    const OrtHardwareDeviceType type = api.HardwareDevice_Type(devices[i]);
    offered.push_back(DeviceTypeName(type));
    if (type != OrtHardwareDeviceType_CPU || *num_ep_devices >= max_ep_devices) continue;
    OrtEpDevice* device = nullptr;
    if (OrtStatus* status = ep_api->CreateEpDevice(this_ptr, devices[i], nullptr, nullptr, &device)) {
      for (size_t j = 0; j < *num_ep_devices; ++j) ep_api->ReleaseEpDevice(ep_devices[j]);
      *num_ep_devices = 0;
      return status;
    }
    ep_devices[(*num_ep_devices)++] = device;
  }
  Note(Json{{"call", "OrtEpFactory::GetSupportedDevices"},
            {"devices", std::move(offered)},
            {"made", *num_ep_devices}});
  return nullptr;
}

OrtStatus* ORT_API_CALL FactoryCreateEp(OrtEpFactory*, const OrtHardwareDevice* const* devices,
                                        const OrtKeyValuePairs* const*, size_t num_devices,
                                        const OrtSessionOptions* session_options,
                                        const OrtLogger*, OrtEp** out) noexcept {
  {
    Record& record = TheRecord();
    std::lock_guard<std::mutex> lock(record.mutex);
    record.in_session = true;
  }
  *out = nullptr;
  try {
    Ort::ConstSessionOptions options{session_options};
    const std::string key = std::string("ep.") + kEpName + ".claim";
    const std::string claim = options.GetConfigEntryOrDefault(key.c_str(), "none");
    Json types = Json::array();
    for (size_t i = 0; i < num_devices; ++i) {
      types.push_back(DeviceTypeName(Ort::GetApi().HardwareDevice_Type(devices[i])));
    }
    Note(Json{{"call", "OrtEpFactory::CreateEp"}, {"devices", std::move(types)}, {"claim", claim}});
    if (claim != "none" && claim != "all") {
      return Ort::GetApi().CreateStatus(
          ORT_INVALID_ARGUMENT,
          ("recording_ep: option '" + key + "' is '" + claim + "'; fix: use none or all").c_str());
    }
    auto* ep = new RecordingEp{};
    ep->ort_version_supported = ORT_API_VERSION;
    ep->GetName = EpGetName;
    ep->GetCapability = EpGetCapability;
    ep->Compile = EpCompile;
    ep->ReleaseNodeComputeInfos = EpReleaseNodeComputeInfos;
    ep->IsConcurrentRunSupported = EpIsConcurrentRunSupported;
    ep->claim_all = claim == "all";
    ep->ep_api = Ort::GetApi().GetEpApi();
    *out = ep;
  } catch (const std::exception& e) {
    return Ort::GetApi().CreateStatus(ORT_EP_FAIL, ErrorOf(e).c_str());
  }
  return nullptr;
}

void ORT_API_CALL FactoryReleaseEp(OrtEpFactory*, OrtEp* ep) noexcept {
  Note(Call("OrtEpFactory::ReleaseEp"));
  delete static_cast<RecordingEp*>(ep);
}

OrtStatus* ORT_API_CALL FactoryValidateCompatibility(OrtEpFactory*, const OrtHardwareDevice* const*,
                                                     size_t, const char*,
                                                     OrtCompiledModelCompatibility* out) noexcept {
  Note(Call("OrtEpFactory::ValidateCompiledModelCompatibilityInfo"));
  *out = OrtCompiledModelCompatibility_EP_NOT_APPLICABLE;
  return nullptr;
}

OrtStatus* ORT_API_CALL FactoryCreateAllocator(OrtEpFactory*, const OrtMemoryInfo*,
                                               const OrtKeyValuePairs*,
                                               OrtAllocator** allocator) noexcept {
  Note(Call("OrtEpFactory::CreateAllocator"));
  *allocator = nullptr;
  return nullptr;
}
void ORT_API_CALL FactoryReleaseAllocator(OrtEpFactory*, OrtAllocator*) noexcept {
  Note(Call("OrtEpFactory::ReleaseAllocator"));
}
OrtStatus* ORT_API_CALL FactoryCreateDataTransfer(OrtEpFactory*,
                                                  OrtDataTransferImpl** transfer) noexcept {
  Note(Call("OrtEpFactory::CreateDataTransfer"));
  *transfer = nullptr;
  return nullptr;
}
bool ORT_API_CALL FactoryIsStreamAware(const OrtEpFactory*) noexcept {
  Note(Call("OrtEpFactory::IsStreamAware"));
  return false;
}
OrtStatus* ORT_API_CALL FactoryCreateSyncStream(OrtEpFactory*, const OrtMemoryDevice*,
                                                const OrtKeyValuePairs*,
                                                OrtSyncStreamImpl** stream) noexcept {
  Note(Call("OrtEpFactory::CreateSyncStreamForDevice"));
  *stream = nullptr;
  return nullptr;
}
OrtStatus* ORT_API_CALL FactoryGetNumCustomOpDomains(OrtEpFactory*, size_t* n) noexcept {
  Note(Call("OrtEpFactory::GetNumCustomOpDomains"));
  *n = 0;
  return nullptr;
}
OrtStatus* ORT_API_CALL FactoryGetCustomOpDomains(OrtEpFactory*, OrtCustomOpDomain**,
                                                  size_t) noexcept {
  Note(Call("OrtEpFactory::GetCustomOpDomains"));
  return nullptr;
}

}  // namespace

RECORDING_EP_EXPORT OrtStatus* CreateEpFactories(const char* registration_name,
                                                 const OrtApiBase* api_base, const OrtLogger*,
                                                 OrtEpFactory** factories, size_t max_factories,
                                                 size_t* num_factories) {
  *num_factories = 0;
  const OrtApi* api = api_base->GetApi(ORT_API_VERSION);
  if (api == nullptr) return nullptr;  // no table to report through
  Ort::InitApi(api);
  Note(Json{{"call", "CreateEpFactories"}, {"registration_name", registration_name}});
  if (max_factories < 1) {
    return api->CreateStatus(ORT_INVALID_ARGUMENT, "recording_ep: room for 0 factories");
  }
  auto* factory = new OrtEpFactory{};
  factory->ort_version_supported = ORT_API_VERSION;
  factory->GetName = FactoryGetName;
  factory->GetVendor = FactoryGetVendor;
  factory->GetSupportedDevices = FactoryGetSupportedDevices;
  factory->CreateEp = FactoryCreateEp;
  factory->ReleaseEp = FactoryReleaseEp;
  factory->GetVendorId = FactoryGetVendorId;
  factory->GetVersion = FactoryGetVersion;
  factory->ValidateCompiledModelCompatibilityInfo = FactoryValidateCompatibility;
  factory->CreateAllocator = FactoryCreateAllocator;
  factory->ReleaseAllocator = FactoryReleaseAllocator;
  factory->CreateDataTransfer = FactoryCreateDataTransfer;
  factory->IsStreamAware = FactoryIsStreamAware;
  factory->CreateSyncStreamForDevice = FactoryCreateSyncStream;
  factory->GetNumCustomOpDomains = FactoryGetNumCustomOpDomains;
  factory->GetCustomOpDomains = FactoryGetCustomOpDomains;
  factories[0] = factory;
  *num_factories = 1;
  return nullptr;
}

RECORDING_EP_EXPORT OrtStatus* ReleaseEpFactory(OrtEpFactory* factory) {
  Note(Call("ReleaseEpFactory"));
  delete factory;
  return nullptr;
}

RECORDING_EP_EXPORT const char* NxrtRecordingEp_Dump(void) {
  Record& record = TheRecord();
  std::lock_guard<std::mutex> lock(record.mutex);
  record.dumped = Json{{"registration", record.registration}, {"session", record.session}}.dump(1);
  return record.dumped.c_str();
}

RECORDING_EP_EXPORT void NxrtRecordingEp_Reset(void) {
  Record& record = TheRecord();
  std::lock_guard<std::mutex> lock(record.mutex);
  record.registration = Json::array();
  record.session = Json::array();
  record.in_session = false;
}
