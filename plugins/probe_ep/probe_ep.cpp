// plugins/probe_ep/probe_ep.cpp: the probe EP, the example EP under a mixed-case EP name that
// records what its host tells it, so that a test can run it in ONNX Runtime 1.30 and in nxrt
// and compare the two records line for line.
//
// Layer: test plugin nxrt_probe_ep (ORT C headers, plus src/ep/ort_plugin/ort_api_v30.h for the
// one OrtApi slot API 30 appends). EP name "Nxrt_Probe_EP" (vendor "nxrt"); it claims and
// computes as the example EP (plugins/example_ep), whose options it reads from
// "ep.nxrt_probe_ep.<key>". The record (NxrtProbeEp_Record) has one line per event, in order:
//   CreateEpFactories: GetApi(30) <table|NULL>; GetModelEditorApi <table|NULL>
//   model editor: CreateTensorTypeInfo <onnx type> <element type>; CreateSequenceTypeInfo <type>
//   env config <where>: key=value, ... (OrtEpApi::GetEnvConfigEntries, sorted by key)
//   GetSupportedDevices: <cpu|gpu|npu> vendor_id=0x<hex> vendor='<name>' device_id=0x<hex>
//     metadata: key=value, ...   (one line per OrtHardwareDevice offered, in the host's order,
//     read with OrtApi::HardwareDevice_Type/VendorId/Vendor/DeviceId/Metadata; metadata sorted)
//   CreateEp options: key=value, ... (every session config entry starting "ep.", sorted)
//   GetCapability '<graph name>' (<n> nodes)
//   Compile <i>/<count>: node, node, ... (the nodes of each graph to compile, sorted)
//   Compute: preallocated output 0 <null|set>
//     (OrtApi::KernelContext_GetPreallocatedOutput of API 30, after the example's Compute asked
//     for its output: the value allocated then. Not before: ORT 1.30 preallocates the outputs of
//     If and Scan bodies and bound fetches, which nxrt does not.)
// Failures of the host's API calls are recorded as "<call> failed: <message>".
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <mutex>
#include <string>
#include <vector>

#include "ep/ort_plugin/ort_api_v30.h"
#include "example_ep/factory.h"

namespace {

constexpr const char* kProbeEpName = "Nxrt_Probe_EP";

const OrtApi* g_ort = nullptr;
const OrtEpApi* g_ep_api = nullptr;
const OrtApiVersion30* g_api30 = nullptr;  // null when the host serves no API 30

// The example's own slots that the probe's wrappers call.
decltype(OrtEpFactory::GetSupportedDevices) g_example_get_supported_devices = nullptr;
decltype(OrtEpFactory::CreateEp) g_example_create_ep = nullptr;
decltype(OrtEp::GetCapability) g_example_get_capability = nullptr;
decltype(OrtEp::Compile) g_example_compile = nullptr;
decltype(OrtEp::ReleaseNodeComputeInfos) g_example_release_infos = nullptr;

std::mutex g_mutex;
std::string g_record;

void Record(const std::string& line) {
  std::lock_guard<std::mutex> lock(g_mutex);
  g_record += line + "\n";
}

// "<call> failed: <message>", releasing `status`.
std::string Failure(const char* call, OrtStatus* status) {
  std::string text = std::string(call) + " failed: " + g_ort->GetErrorMessage(status);
  g_ort->ReleaseStatus(status);
  return text;
}

// "key=value, ..." of `pairs`, sorted by key, keeping only keys that start with `prefix`.
std::string Entries(const OrtKeyValuePairs* pairs, const std::string& prefix) {
  const char* const* keys = nullptr;
  const char* const* values = nullptr;
  size_t count = 0;
  g_ort->GetKeyValuePairs(pairs, &keys, &values, &count);
  std::vector<std::string> items;
  for (size_t i = 0; i < count; ++i) {
    if (std::string(keys[i]).rfind(prefix, 0) == 0) {
      items.push_back(std::string(keys[i]) + "=" + values[i]);
    }
  }
  std::sort(items.begin(), items.end());
  std::string text;
  for (const std::string& item : items) text += (text.empty() ? "" : ", ") + item;
  return text;
}

void RecordEnvConfig(const char* where) {
  OrtKeyValuePairs* entries = nullptr;
  if (OrtStatus* status = g_ep_api->GetEnvConfigEntries(&entries)) {
    Record(std::string("env config ") + where + ": " + Failure("GetEnvConfigEntries", status));
    return;
  }
  Record(std::string("env config ") + where + ": " + Entries(entries, ""));
  g_ort->ReleaseKeyValuePairs(entries);
}

// Builds a float[2,3] tensor type and a sequence of it through the model editor API.
void ProbeModelEditor(const OrtModelEditorApi& editor) {
  OrtTensorTypeAndShapeInfo* tensor = nullptr;
  if (OrtStatus* status = g_ort->CreateTensorTypeAndShapeInfo(&tensor)) {
    Record("model editor: " + Failure("CreateTensorTypeAndShapeInfo", status));
    return;
  }
  const int64_t dims[] = {2, 3};
  OrtStatus* status = g_ort->SetTensorElementType(tensor, ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT);
  if (status == nullptr) status = g_ort->SetDimensions(tensor, dims, 2);
  OrtTypeInfo* tensor_type = nullptr;
  if (status == nullptr) status = editor.CreateTensorTypeInfo(tensor, &tensor_type);
  g_ort->ReleaseTensorTypeAndShapeInfo(tensor);
  if (status != nullptr) {
    Record("model editor: " + Failure("CreateTensorTypeInfo", status));
    return;
  }
  std::string line = "model editor: CreateTensorTypeInfo ";
  ONNXType onnx_type = ONNX_TYPE_UNKNOWN;
  const OrtTensorTypeAndShapeInfo* read = nullptr;
  ONNXTensorElementDataType element = ONNX_TENSOR_ELEMENT_DATA_TYPE_UNDEFINED;
  size_t rank = 0;
  if ((status = g_ort->GetOnnxTypeFromTypeInfo(tensor_type, &onnx_type)) == nullptr &&
      (status = g_ort->CastTypeInfoToTensorInfo(tensor_type, &read)) == nullptr &&
      (status = g_ort->GetTensorElementType(read, &element)) == nullptr &&
      (status = g_ort->GetDimensionsCount(read, &rank)) == nullptr) {
    line += std::to_string(onnx_type) + " " + std::to_string(element) + " rank " +
            std::to_string(rank);
  } else {
    line += Failure("reading it", status);
  }
  OrtTypeInfo* sequence = nullptr;
  if ((status = editor.CreateSequenceTypeInfo(tensor_type, &sequence)) == nullptr) {
    const OrtSequenceTypeInfo* sequence_info = nullptr;
    OrtTypeInfo* element_type = nullptr;
    ONNXType element_onnx = ONNX_TYPE_UNKNOWN;
    if ((status = g_ort->GetOnnxTypeFromTypeInfo(sequence, &onnx_type)) == nullptr &&
        (status = g_ort->CastTypeInfoToSequenceTypeInfo(sequence, &sequence_info)) == nullptr &&
        (status = g_ort->GetSequenceElementType(sequence_info, &element_type)) == nullptr &&
        (status = g_ort->GetOnnxTypeFromTypeInfo(element_type, &element_onnx)) == nullptr) {
      line += "; CreateSequenceTypeInfo " + std::to_string(onnx_type) + " of " +
              std::to_string(element_onnx);
    } else {
      line += "; " + Failure("reading the sequence", status);
    }
    g_ort->ReleaseTypeInfo(element_type);
    g_ort->ReleaseTypeInfo(sequence);
  } else {
    line += "; " + Failure("CreateSequenceTypeInfo", status);
  }
  g_ort->ReleaseTypeInfo(tensor_type);
  Record(line);
}

// ---- compute info: the example's, wrapped to ask for preallocated outputs ------------------

struct ProbeComputeInfo : OrtNodeComputeInfo {
  OrtNodeComputeInfo* inner = nullptr;
};

OrtStatus* ORT_API_CALL CreateState(OrtNodeComputeInfo* this_ptr, OrtNodeComputeContext* context,
                                    void** state) noexcept {
  OrtNodeComputeInfo* inner = static_cast<ProbeComputeInfo*>(this_ptr)->inner;
  return inner->CreateState(inner, context, state);
}

std::string Preallocated(OrtKernelContext* context) {
  OrtValue* output = nullptr;
  OrtStatus* status = g_api30->v30.KernelContext_GetPreallocatedOutput(context, 0, &output);
  if (status != nullptr) return Failure("KernelContext_GetPreallocatedOutput", status);
  return output != nullptr ? "set" : "null";
}

OrtStatus* ORT_API_CALL Compute(OrtNodeComputeInfo* this_ptr, void* state,
                                OrtKernelContext* context) noexcept {
  OrtNodeComputeInfo* inner = static_cast<ProbeComputeInfo*>(this_ptr)->inner;
  OrtStatus* status = inner->Compute(inner, state, context);
  if (status != nullptr) return status;
  Record("Compute: preallocated output 0 " +
         (g_api30 != nullptr ? Preallocated(context) : std::string("no API 30")));
  return nullptr;
}

void ORT_API_CALL ReleaseState(OrtNodeComputeInfo* this_ptr, void* state) noexcept {
  OrtNodeComputeInfo* inner = static_cast<ProbeComputeInfo*>(this_ptr)->inner;
  inner->ReleaseState(inner, state);
}

// ---- OrtEp --------------------------------------------------------------------------------

OrtStatus* ORT_API_CALL GetCapability(OrtEp* ep, const OrtGraph* graph,
                                      OrtEpGraphSupportInfo* support) noexcept {
  const char* name = nullptr;
  size_t num_nodes = 0;
  if (OrtStatus* status = g_ort->Graph_GetName(graph, &name)) {
    Record("GetCapability: " + Failure("Graph_GetName", status));
  } else if (OrtStatus* status = g_ort->Graph_GetNumNodes(graph, &num_nodes)) {
    Record("GetCapability: " + Failure("Graph_GetNumNodes", status));
  } else {
    Record("GetCapability '" + std::string(name) + "' (" + std::to_string(num_nodes) + " nodes)");
  }
  return g_example_get_capability(ep, graph, support);
}

// "node, node, ..." of `graph`, sorted.
std::string NodeNames(const OrtGraph* graph) {
  size_t count = 0;
  if (OrtStatus* status = g_ort->Graph_GetNumNodes(graph, &count)) {
    return Failure("Graph_GetNumNodes", status);
  }
  std::vector<const OrtNode*> nodes(count);
  if (OrtStatus* status = g_ort->Graph_GetNodes(graph, nodes.data(), count)) {
    return Failure("Graph_GetNodes", status);
  }
  std::vector<std::string> names;
  for (const OrtNode* node : nodes) {
    const char* name = nullptr;
    if (OrtStatus* status = g_ort->Node_GetName(node, &name)) {
      return Failure("Node_GetName", status);
    }
    names.emplace_back(name);
  }
  std::sort(names.begin(), names.end());
  std::string text;
  for (const std::string& name : names) text += (text.empty() ? "" : ", ") + name;
  return text;
}

OrtStatus* ORT_API_CALL Compile(OrtEp* ep, const OrtGraph** graphs, const OrtNode** fused_nodes,
                                size_t count, OrtNodeComputeInfo** infos,
                                OrtNode** ep_context_nodes) noexcept {
  for (size_t i = 0; i < count; ++i) {
    Record("Compile " + std::to_string(i + 1) + "/" + std::to_string(count) + ": " +
           NodeNames(graphs[i]));
  }
  OrtStatus* status = g_example_compile(ep, graphs, fused_nodes, count, infos, ep_context_nodes);
  if (status != nullptr) return status;
  for (size_t i = 0; i < count; ++i) {
    auto* probe = new ProbeComputeInfo();
    probe->ort_version_supported = infos[i]->ort_version_supported;
    probe->CreateState = CreateState;
    probe->Compute = Compute;
    probe->ReleaseState = ReleaseState;
    probe->inner = infos[i];
    infos[i] = probe;
  }
  return nullptr;
}

void ORT_API_CALL ReleaseNodeComputeInfos(OrtEp* ep, OrtNodeComputeInfo** infos,
                                          size_t count) noexcept {
  for (size_t i = 0; i < count; ++i) {
    auto* probe = static_cast<ProbeComputeInfo*>(infos[i]);
    OrtNodeComputeInfo* inner = probe->inner;
    g_example_release_infos(ep, &inner, 1);
    delete probe;
  }
}

// ---- OrtEpFactory -------------------------------------------------------------------------

std::string Hex(uint32_t value) {
  char text[16];
  snprintf(text, sizeof(text), "0x%04x", value);
  return text;
}

OrtStatus* ORT_API_CALL GetSupportedDevices(OrtEpFactory* factory,
                                            const OrtHardwareDevice* const* devices,
                                            size_t num_devices, OrtEpDevice** ep_devices,
                                            size_t max_ep_devices, size_t* num_ep_devices) noexcept {
  for (size_t i = 0; i < num_devices; ++i) {
    const OrtHardwareDevice* device = devices[i];
    const OrtHardwareDeviceType type = g_ort->HardwareDevice_Type(device);
    const char* vendor = g_ort->HardwareDevice_Vendor(device);
    const OrtKeyValuePairs* metadata = g_ort->HardwareDevice_Metadata(device);
    Record(std::string("GetSupportedDevices: ") +
           (type == OrtHardwareDeviceType_CPU   ? "cpu"
            : type == OrtHardwareDeviceType_GPU ? "gpu"
            : type == OrtHardwareDeviceType_NPU ? "npu"
                                                : "type " + std::to_string(type)) +
           " vendor_id=" + Hex(g_ort->HardwareDevice_VendorId(device)) + " vendor='" +
           (vendor != nullptr ? vendor : "(null)") + "' device_id=" +
           Hex(g_ort->HardwareDevice_DeviceId(device)) +
           " metadata: " + (metadata != nullptr ? Entries(metadata, "") : "(null)"));
  }
  return g_example_get_supported_devices(factory, devices, num_devices, ep_devices, max_ep_devices,
                                         num_ep_devices);
}

OrtStatus* ORT_API_CALL CreateEp(OrtEpFactory* factory, const OrtHardwareDevice* const* devices,
                                 const OrtKeyValuePairs* const* metadata, size_t num_devices,
                                 const OrtSessionOptions* options, const OrtLogger* logger,
                                 OrtEp** ep) noexcept {
  OrtKeyValuePairs* entries = nullptr;
  if (OrtStatus* status = g_ort->GetSessionOptionsConfigEntries(options, &entries)) {
    Record("CreateEp options: " + Failure("GetSessionOptionsConfigEntries", status));
  } else {
    Record("CreateEp options: " + Entries(entries, "ep."));
    g_ort->ReleaseKeyValuePairs(entries);
  }
  RecordEnvConfig("in CreateEp");
  OrtStatus* status =
      g_example_create_ep(factory, devices, metadata, num_devices, options, logger, ep);
  if (status != nullptr) return status;
  g_example_get_capability = (*ep)->GetCapability;
  g_example_compile = (*ep)->Compile;
  g_example_release_infos = (*ep)->ReleaseNodeComputeInfos;
  (*ep)->GetCapability = GetCapability;
  (*ep)->Compile = Compile;
  (*ep)->ReleaseNodeComputeInfos = ReleaseNodeComputeInfos;
  return nullptr;
}

OrtStatus* CreateFactories(const OrtApiBase* api_base, OrtEpFactory** factories,
                           size_t max_factories, size_t* num_factories) {
  *num_factories = 0;
  g_ort = api_base->GetApi(ORT_API_VERSION);
  if (g_ort == nullptr) return nullptr;
  g_ep_api = g_ort->GetEpApi();
  g_api30 = reinterpret_cast<const OrtApiVersion30*>(api_base->GetApi(30));
  const OrtModelEditorApi* editor = g_ort->GetModelEditorApi();
  Record(std::string("CreateEpFactories: GetApi(30) ") + (g_api30 != nullptr ? "table" : "NULL") +
         "; GetModelEditorApi " + (editor != nullptr ? "table" : "NULL"));
  if (editor != nullptr) ProbeModelEditor(*editor);
  RecordEnvConfig("in CreateEpFactories");
  OrtStatus* status = nxrt_example_ep::CreateExampleEpFactories(api_base, kProbeEpName, factories,
                                                                max_factories, num_factories);
  if (status == nullptr && *num_factories == 1) {
    g_example_get_supported_devices = factories[0]->GetSupportedDevices;
    factories[0]->GetSupportedDevices = GetSupportedDevices;
    g_example_create_ep = factories[0]->CreateEp;
    factories[0]->CreateEp = CreateEp;
  }
  return status;
}

}  // namespace

#define NXRT_PROBE_EXPORT extern "C" __attribute__((visibility("default")))

NXRT_PROBE_EXPORT OrtStatus* CreateEpFactories(const char*, const OrtApiBase* api_base,
                                               const OrtLogger*, OrtEpFactory** factories,
                                               size_t max_factories, size_t* num_factories) {
  return CreateFactories(api_base, factories, max_factories, num_factories);
}

NXRT_PROBE_EXPORT OrtStatus* ReleaseEpFactory(OrtEpFactory* factory) {
  nxrt_example_ep::ReleaseExampleEpFactory(factory);
  return nullptr;
}

// The record so far (valid until the next call of either function).
NXRT_PROBE_EXPORT const char* NxrtProbeEp_Record(void) {
  static std::string copy;
  std::lock_guard<std::mutex> lock(g_mutex);
  copy = g_record;
  return copy.c_str();
}

NXRT_PROBE_EXPORT void NxrtProbeEp_Reset(void) {
  std::lock_guard<std::mutex> lock(g_mutex);
  g_record.clear();
}
