// ep/ort_plugin/kernel_registry.h: the objects of ORT's kernel-registry plugin style (ORT 1.24+):
// OrtDataType, OrtKernelDefBuilder, OrtKernelDef, OrtKernelRegistry, OrtKernelInfo, the host's
// control-flow OrtKernelImpls (OrtEpApi::CreateIfKernel/CreateLoopKernel/CreateScanKernel), and
// the lookup that matches a node against a registry as ORT's KernelRegistry does.
//
// Layer: nxrt_ort_plugin (internal). A kernel-registry plugin returns its OrtKernelRegistry from
// OrtEp::GetKernelRegistry, claims nodes with EpGraphSupportInfo_AddSingleNode (usually after
// EpGraphSupportInfo_LookUpKernel found a kernel for them), and the host creates one OrtKernelImpl
// per claimed node with the registry entry's OrtKernelCreateFunc (plugin_ep.cpp). The API
// functions over these objects are in api_kernel_registry.cpp.
//
// Matching (FindKernel), as ORT's KernelRegistry::TryFindKernel: same domain ("" and "ai.onnx"
// alike) and op type; the kernel def's EP name equals the EP's; the node's since_version S fits
// the def's range [start, end] as ORT requires it (start == S, or start < S <= end with a
// bounded end); every type constraint the def names resolves, through the operator's schema, to
// formal inputs/outputs, and the element type of each present actual argument bound to them is
// one of the constraint's types. A constraint name the schema does not have, or a def for an op
// the host knows no schema of, makes the def malformed: FindKernel reports it as an error.
// Source: onnxruntime_ep_c_api.h (OrtKernelImpl, OrtKernelCreateFunc, OrtLoopKernelHelper,
// OrtScanKernelHelper, OrtEpApi kernel registry functions), onnxruntime_c_api.h (KernelInfo_*).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ep/ort_plugin/api_objects.h"
#include "ep/ort_plugin/graph_projection.h"
#include "nxrt/status.h"

// OrtEpApi::GetTensorDataType: "tensor(<element type>)". One static object per element type;
// plugins never release it.
struct OrtDataType {
  ONNXTensorElementDataType element_type = ONNX_TENSOR_ELEMENT_DATA_TYPE_UNDEFINED;
  std::string name;  // "tensor(float)"
};

// A kernel definition (KernelDefBuilder_Build makes one; the plugin releases it with
// ReleaseKernelDef; KernelRegistry_AddKernel copies it).
struct OrtKernelDef {
  std::string op_type;
  std::string domain;   // "" for the default ONNX domain
  std::string ep_name;  // KernelDefBuilder_SetExecutionProvider
  int since_start = 1;
  int since_end = INT32_MAX;  // inclusive
  std::map<size_t, OrtMemType> input_mem_types;   // unset: OrtMemTypeDefault
  std::map<size_t, OrtMemType> output_mem_types;
  // Constraint name → allowed types, in the order added (a name added twice keeps the last list).
  std::vector<std::pair<std::string, std::vector<const OrtDataType*>>> type_constraints;
  std::vector<std::pair<int, int>> aliases;          // (input, output)
  std::vector<std::pair<int, int>> mutable_aliases;  // (input, output)

  OrtMemType InputMemType(size_t input) const;
  OrtMemType OutputMemType(size_t output) const;
};

struct OrtKernelDefBuilder {
  OrtKernelDef def;
};

// OrtEpApi::CreateKernelRegistry: kernels in the order added.
struct OrtKernelRegistry {
  struct Entry {
    OrtKernelDef def;
    OrtKernelCreateFunc create = nullptr;
    void* create_state = nullptr;
  };
  std::vector<Entry> entries;
};

// What a kernel's creation function and its Compute learn about the node (OrtApi::KernelInfo_*,
// KernelInfoGetAttribute*, OrtEpApi::KernelInfo_GetEp): the node as the plugin saw it in
// GetCapability (its projection), the EP, a logger and the session's config entries. Owned by the
// host for as long as the kernel lives; CopyKernelInfo makes an independent copy the plugin
// releases with ReleaseKernelInfo.
struct OrtKernelInfo {
  const OrtNode* node = nullptr;
  const OrtEp* ep = nullptr;
  const OrtLogger* logger = nullptr;
  const OrtKeyValuePairs* config = nullptr;
  // The device memory's allocator for OrtMemTypeDefault (KernelInfoGetAllocator); null: host.
  OrtAllocator* device_allocator = nullptr;
};

// Pre-packed weight buffers a kernel hands the host (SharedPrePackedWeightCache_StoreWeightData),
// allocated with `allocator`; the cache frees them with it. nxrt passes no cache to
// OrtKernelImpl::PrePackWeight, as ORT does without a prepacked-weights container.
struct OrtSharedPrePackedWeightCache {
  OrtAllocator* allocator = nullptr;
  std::vector<void*> buffers;
  std::vector<size_t> sizes;
  OrtSharedPrePackedWeightCache() = default;
  OrtSharedPrePackedWeightCache(const OrtSharedPrePackedWeightCache&) = delete;
  OrtSharedPrePackedWeightCache& operator=(const OrtSharedPrePackedWeightCache&) = delete;
  ~OrtSharedPrePackedWeightCache() {
    for (void* b : buffers) {
      if (b != nullptr && allocator != nullptr) allocator->Free(allocator, b);
    }
  }
};

namespace nxrt::ort_plugin {

// ONNX's name of an element type ("float", "int64"); "unknown" for numbers past ORT's list.
std::string_view ElementName(ONNXTensorElementDataType type);
// The element type of an OrtDataType from GetTensorDataType, or UNDEFINED for a pointer that is
// not one (never dereferenced before it is found in the static table).
ONNXTensorElementDataType ElementTypeOf(const OrtDataType* type);
// The static OrtDataType of `element_type`, or null for UNDEFINED and unknown numbers.
const OrtDataType* TensorDataType(ONNXTensorElementDataType element_type);

// The outcome of matching one node against a registry.
struct KernelLookup {
  const OrtKernelRegistry::Entry* entry = nullptr;  // the first matching kernel, or null
  // Why no kernel matched ("" when one did, or when the registry has none for the op): the
  // closest candidate's mismatch, e.g. "kernel Mul [14, 14] of ep 'x' does not cover
  // since_version 13" or "input 0 is tensor(double); the kernel's constraint 'T' allows
  // tensor(float)".
  std::string reason;
};

// Finds the kernel of `registry` for `node` (a projected node) on EP `ep_name`. Errors:
// kInvalidArgument for a malformed kernel def of the node's op (a constraint name its schema
// lacks, no op type, an empty range), naming the def and the fix.
Result<KernelLookup> FindKernel(const OrtKernelRegistry& registry, std::string_view ep_name,
                                const OrtNode& node);

// "Mul (domain '', since_version [14, 14], ep 'x')": how messages name a kernel def.
std::string DescribeKernelDef(const OrtKernelDef& def);

// The host's control-flow kernels. A plugin's kernel creation function gets one from
// CreateIfKernel / CreateLoopKernel / CreateScanKernel and returns it as its OrtKernelImpl; the
// runtime then runs the node's subgraphs itself (runtime/control_flow.h), calling the helper's
// ConcatOutput (Loop) and Transpose (Scan) where ORT's kernels do. Compute must not be reached
// through the plugin: it fails naming the node. Release deletes the kernel and releases the
// helper (OrtLoopKernelHelper::Release / OrtScanKernelHelper::Release).
struct HostControlFlowKernel : OrtKernelImpl {
  enum class Kind : uint8_t { kIf, kLoop, kScan };
  Kind kind = Kind::kIf;
  std::string node_name;
  OrtLoopKernelHelper* loop_helper = nullptr;  // kLoop, owned
  OrtScanKernelHelper* scan_helper = nullptr;  // kScan, owned
};

// `impl` when it is one of the host's live control-flow kernels (looked up by address, never
// dereferenced before), else null.
HostControlFlowKernel* AsHostControlFlowKernel(OrtKernelImpl* impl);
// Creates a control-flow kernel of `kind` for `info` (an If/Loop/Scan node at a supported
// opset: If 1+, Loop 1+, Scan 9+), taking ownership of the helper on success. Errors:
// ORT_INVALID_ARGUMENT for another op, ORT_FAIL for an unsupported opset, naming the node.
OrtStatus* CreateHostControlFlowKernel(const char* function, HostControlFlowKernel::Kind kind,
                                       const OrtKernelInfo& info, OrtLoopKernelHelper* loop,
                                       OrtScanKernelHelper* scan, OrtKernelImpl** out);

}  // namespace nxrt::ort_plugin
