// ep/ort_plugin/api_kernel.cpp: what a plugin calls while claiming nodes and running a fused
// kernel: OrtKernelContext functions, graph support info, node compute context, custom op
// domains.
//
// Layer: nxrt_ort_plugin (internal). KernelContext_* forward to the OrtKernelContext the plugin
// host implements per Compute call (plugin_ep.cpp). The host allocates host memory only:
// KernelContext_GetAllocator and GetScratchBuffer serve CPU memory infos with
// DefaultCpuAllocator() and reject device memory. Support info only records groups; the plugin
// host validates them after GetCapability returns (docs/plugin_host.md, "Lifecycle", step 3).
// nxrt runs no custom ops: a domain keeps what was added so it can be released.
// KernelContext_GetPreallocatedOutput (API 30) answers an output once KernelContext_GetOutput
// has allocated it in this call, else NULL: the host allocates no output before Compute asks.
// Source: onnxruntime_c_api.h (KernelContext_*, CreateCustomOpDomain, CustomOpDomain_Add,
// ReleaseCustomOpDomain), onnxruntime_ep_c_api.h (EpGraphSupportInfo_AddNodesToFuse,
// EpGraphSupportInfo_AddSingleNode, OrtNodeFusionOptions, NodeComputeContext_NodeName).
#include <algorithm>
#include <string>

#include "ep/ort_plugin/api_internal.h"
#include "ep/ort_plugin/api_table.h"

namespace nxrt::ort_plugin {
namespace {

// ---- OrtKernelContext ----

OrtStatus* ORT_API_CALL KernelContextGetInputCountImpl(const OrtKernelContext* context,
                                                       size_t* out) noexcept {
  constexpr const char* kFn = "OrtApi::KernelContext_GetInputCount";
  if (OrtStatus* s = CheckArgs(kFn, {{"context", context}, {"out", out}})) return s;
  return Guarded(kFn, [&]() -> OrtStatus* {
    *out = context->InputCount();
    return nullptr;
  });
}

OrtStatus* ORT_API_CALL KernelContextGetOutputCountImpl(const OrtKernelContext* context,
                                                        size_t* out) noexcept {
  constexpr const char* kFn = "OrtApi::KernelContext_GetOutputCount";
  if (OrtStatus* s = CheckArgs(kFn, {{"context", context}, {"out", out}})) return s;
  return Guarded(kFn, [&]() -> OrtStatus* {
    *out = context->OutputCount();
    return nullptr;
  });
}

// OrtApi::KernelContext_GetInput: *out null (and ok) for an omitted optional input; an index
// past InputCount is ORT_INVALID_ARGUMENT.
OrtStatus* ORT_API_CALL KernelContextGetInputImpl(const OrtKernelContext* context, size_t index,
                                                  const OrtValue** out) noexcept {
  constexpr const char* kFn = "OrtApi::KernelContext_GetInput";
  if (OrtStatus* s = CheckArgs(kFn, {{"context", context}, {"out", out}})) return s;
  return Guarded(kFn, [&]() -> OrtStatus* {
    const size_t count = context->InputCount();
    if (index >= count) {
      return InvalidArgument(kFn, "input index " + std::to_string(index) + " is out of range; the "
                                      "fused node has " + std::to_string(count) + " inputs");
    }
    *out = context->Input(index);
    return nullptr;
  });
}

// OrtApi::KernelContext_GetOutput: output `index` allocated with dims dim_values[0..dim_count).
OrtStatus* ORT_API_CALL KernelContextGetOutputImpl(OrtKernelContext* context, size_t index,
                                                   const int64_t* dim_values, size_t dim_count,
                                                   OrtValue** out) noexcept {
  constexpr const char* kFn = "OrtApi::KernelContext_GetOutput";
  if (OrtStatus* s = CheckArgs(kFn, {{"context", context}, {"out", out}})) return s;
  if (dim_values == nullptr && dim_count != 0) {
    return InvalidArgument(kFn, "argument 'dim_values' is null but dim_count is " +
                                    std::to_string(dim_count) + "; pass the output's dims");
  }
  return Guarded(kFn, [&] { return context->Output(index, dim_values, dim_count, out); });
}

// OrtApi::KernelContext_GetPreallocatedOutput (API 30): the output when it has a value already
// (KernelContext_GetOutput allocated it during this Compute; ORT 1.30 answers the same), else
// *output = NULL: nxrt allocates nothing before Compute asks. The value is the context's.
OrtStatus* ORT_API_CALL KernelContextGetPreallocatedOutputImpl(const OrtKernelContext* context,
                                                               size_t index,
                                                               OrtValue** output) noexcept {
  constexpr const char* kFn = "OrtApi::KernelContext_GetPreallocatedOutput";
  if (OrtStatus* s = CheckArgs(kFn, {{"context", context}, {"output", output}})) return s;
  return Guarded(kFn, [&]() -> OrtStatus* {
    const size_t count = context->OutputCount();
    if (index >= count) {
      return InvalidArgument(kFn, "output index " + std::to_string(index) + " is out of range; the "
                                      "fused node has " + std::to_string(count) + " outputs");
    }
    *output = context->AllocatedOutput(index);
    return nullptr;
  });
}

OrtStatus* ORT_API_CALL KernelContextGetLoggerImpl(const OrtKernelContext* context,
                                                   const OrtLogger** logger) noexcept {
  constexpr const char* kFn = "OrtApi::KernelContext_GetLogger";
  if (OrtStatus* s = CheckArgs(kFn, {{"context", context}, {"logger", logger}})) return s;
  return Guarded(kFn, [&]() -> OrtStatus* {
    *logger = context->Logger();
    return nullptr;
  });
}

// The host allocator when `mem_info` is host memory; else an error naming the memory info.
OrtStatus* AllocatorFor(const char* function, const OrtMemoryInfo* mem_info, OrtAllocator** out) {
  if (mem_info->device.type != OrtMemoryInfoDeviceType_CPU) {
    return InvalidArgument(function, "no allocator for memory info '" + mem_info->name +
                                         "' (device type " + std::to_string(mem_info->device.type) +
                                         "); the nxrt plugin host allocates CPU memory only: pass "
                                         "a CPU memory info (CreateCpuMemoryInfo)");
  }
  *out = &DefaultCpuAllocator();
  return nullptr;
}

// OrtApi::KernelContext_GetAllocator: the process-wide CPU allocator (ReleaseAllocator on it
// does nothing) for a CPU memory info.
OrtStatus* ORT_API_CALL KernelContextGetAllocatorImpl(const OrtKernelContext* context,
                                                      const OrtMemoryInfo* mem_info,
                                                      OrtAllocator** out) noexcept {
  constexpr const char* kFn = "OrtApi::KernelContext_GetAllocator";
  if (OrtStatus* s = CheckArgs(kFn, {{"context", context}, {"mem_info", mem_info}, {"out", out}})) {
    return s;
  }
  return Guarded(kFn, [&] { return AllocatorFor(kFn, mem_info, out); });
}

// OrtApi::KernelContext_GetScratchBuffer: `count_or_bytes` bytes from the allocator of
// `mem_info` (null for 0 bytes). The caller frees it through that allocator
// (KernelContext_GetAllocator + AllocatorFree).
OrtStatus* ORT_API_CALL KernelContextGetScratchBufferImpl(const OrtKernelContext* context,
                                                          const OrtMemoryInfo* mem_info,
                                                          size_t count_or_bytes,
                                                          void** out) noexcept {
  constexpr const char* kFn = "OrtApi::KernelContext_GetScratchBuffer";
  if (OrtStatus* s = CheckArgs(kFn, {{"context", context}, {"mem_info", mem_info}, {"out", out}})) {
    return s;
  }
  return Guarded(kFn, [&]() -> OrtStatus* {
    OrtAllocator* allocator = nullptr;
    if (OrtStatus* s = AllocatorFor(kFn, mem_info, &allocator)) return s;
    if (count_or_bytes == 0) {
      *out = nullptr;
      return nullptr;
    }
    *out = allocator->Alloc(allocator, count_or_bytes);
    if (*out == nullptr) {
      return MakeOrtStatus(ORT_FAIL, std::string(kFn) + ": allocating " +
                                         std::to_string(count_or_bytes) +
                                         " bytes failed; free memory or ask for less");
    }
    return nullptr;
  });
}

// OrtApi::KernelContext_GetResource: the host has no EP resources (streams, handles): null.
OrtStatus* ORT_API_CALL KernelContextGetResourceImpl(const OrtKernelContext* context,
                                                     int /*resource_version*/, int /*resource_id*/,
                                                     void** resource) noexcept {
  if (OrtStatus* s = CheckArgs("OrtApi::KernelContext_GetResource",
                               {{"context", context}, {"resource", resource}})) {
    return s;
  }
  *resource = nullptr;
  return nullptr;
}

// OrtApi::KernelContext_ParallelFor: fn(usr_data, i) for i in [0, total), at most num_batch
// chunks (0: no limit), on the host's intra-op threads.
OrtStatus* ORT_API_CALL KernelContextParallelForImpl(const OrtKernelContext* context,
                                                     void (*fn)(void*, size_t), size_t total,
                                                     size_t num_batch, void* usr_data) noexcept {
  constexpr const char* kFn = "OrtApi::KernelContext_ParallelFor";
  if (OrtStatus* s = CheckArgs(kFn, {{"context", context},
                                     {"fn", reinterpret_cast<const void*>(fn)}})) {
    return s;
  }
  if (total == 0) return nullptr;
  return Guarded(kFn, [&] {
    return const_cast<OrtKernelContext*>(context)->ParallelFor(fn, total, num_batch, usr_data);
  });
}

// ---- OrtEpGraphSupportInfo, OrtNodeComputeContext (OrtEpApi) ----

// Checks the node array of a group: non-empty, no null entry.
OrtStatus* CheckNodes(const char* function, const OrtNode* const* nodes, size_t num_nodes) {
  if (num_nodes == 0) {
    return InvalidArgument(function, "num_nodes is 0; a group needs at least one node (claim "
                                     "nothing by not calling this function)");
  }
  if (nodes == nullptr) return InvalidArgument(function, "argument 'nodes' is null");
  for (size_t i = 0; i < num_nodes; ++i) {
    if (nodes[i] == nullptr) {
      return InvalidArgument(function, "nodes[" + std::to_string(i) + "] of " +
                                           std::to_string(num_nodes) + " is null");
    }
  }
  return nullptr;
}

// OrtEpApi::EpGraphSupportInfo_AddNodesToFuse: appends one fused group. node_fusion_options is
// optional; when given, its ort_version_supported is read first: 0 or below 22 is rejected,
// later versions are clamped to 29, and drop_constant_initializers (since 23) is read only when
// the clamped version has it.
OrtStatus* ORT_API_CALL AddNodesToFuseImpl(OrtEpGraphSupportInfo* support_info,
                                           const OrtNode* const* nodes, size_t num_nodes,
                                           const OrtNodeFusionOptions* options) noexcept {
  constexpr const char* kFn = "OrtEpApi::EpGraphSupportInfo_AddNodesToFuse";
  if (OrtStatus* s = CheckArgs(kFn, {{"graph_support_info", support_info}})) return s;
  if (OrtStatus* s = CheckNodes(kFn, nodes, num_nodes)) return s;
  return Guarded(kFn, [&]() -> OrtStatus* {
    OrtEpGraphSupportInfo::Group group;
    if (options != nullptr) {
      const uint32_t version = options->ort_version_supported;
      if (version < 22) {
        return InvalidArgument(kFn, "OrtNodeFusionOptions::ort_version_supported is " +
                                        std::to_string(version) +
                                        " (below 22, or never set); set it to ORT_API_VERSION");
      }
      if (std::min<uint32_t>(version, kStructApiVersion) >= 23) {
        group.drop_constant_initializers = options->drop_constant_initializers;
      }
    }
    group.nodes.assign(nodes, nodes + num_nodes);
    group.fused = true;
    support_info->groups.push_back(std::move(group));
    return nullptr;
  });
}

// OrtEpApi::EpGraphSupportInfo_AddSingleNode: appends a one-node, non-fused group.
OrtStatus* ORT_API_CALL AddSingleNodeImpl(OrtEpGraphSupportInfo* support_info,
                                          const OrtNode* node) noexcept {
  constexpr const char* kFn = "OrtEpApi::EpGraphSupportInfo_AddSingleNode";
  if (OrtStatus* s = CheckArgs(kFn, {{"graph_support_info", support_info}, {"node", node}})) {
    return s;
  }
  return Guarded(kFn, [&]() -> OrtStatus* {
    OrtEpGraphSupportInfo::Group group;
    group.nodes.push_back(node);
    group.fused = false;
    support_info->groups.push_back(std::move(group));
    return nullptr;
  });
}

const char* ORT_API_CALL NodeComputeContextNodeNameImpl(const OrtNodeComputeContext* context) noexcept {
  return context != nullptr ? context->node_name.c_str() : nullptr;
}

// ---- OrtCustomOpDomain ----

// OrtApi::CreateCustomOpDomain: `domain` may be "" (the ONNX domain).
OrtStatus* ORT_API_CALL CreateCustomOpDomainImpl(const char* domain, OrtCustomOpDomain** out) noexcept {
  constexpr const char* kFn = "OrtApi::CreateCustomOpDomain";
  if (OrtStatus* s = CheckArgs(kFn, {{"domain", domain}, {"out", out}})) return s;
  return Guarded(kFn, [&]() -> OrtStatus* {
    auto created = std::make_unique<OrtCustomOpDomain>();
    created->domain = domain;
    *out = created.release();
    return nullptr;
  });
}

OrtStatus* ORT_API_CALL CustomOpDomainAddImpl(OrtCustomOpDomain* custom_op_domain,
                                              const OrtCustomOp* op) noexcept {
  constexpr const char* kFn = "OrtApi::CustomOpDomain_Add";
  if (OrtStatus* s = CheckArgs(kFn, {{"custom_op_domain", custom_op_domain}, {"op", op}})) return s;
  return Guarded(kFn, [&]() -> OrtStatus* {
    custom_op_domain->ops.push_back(op);
    return nullptr;
  });
}

void ORT_API_CALL ReleaseCustomOpDomainImpl(OrtCustomOpDomain* domain) noexcept { delete domain; }

}  // namespace

void InstallKernelApi(OrtApi& api, OrtEpApi& ep_api) {
  api.KernelContext_GetInputCount = &KernelContextGetInputCountImpl;
  api.KernelContext_GetOutputCount = &KernelContextGetOutputCountImpl;
  api.KernelContext_GetInput = &KernelContextGetInputImpl;
  api.KernelContext_GetOutput = &KernelContextGetOutputImpl;
  api.KernelContext_GetLogger = &KernelContextGetLoggerImpl;
  api.KernelContext_GetAllocator = &KernelContextGetAllocatorImpl;
  api.KernelContext_GetScratchBuffer = &KernelContextGetScratchBufferImpl;
  api.KernelContext_GetResource = &KernelContextGetResourceImpl;
  api.KernelContext_ParallelFor = &KernelContextParallelForImpl;
  api.CreateCustomOpDomain = &CreateCustomOpDomainImpl;
  api.CustomOpDomain_Add = &CustomOpDomainAddImpl;
  api.ReleaseCustomOpDomain = &ReleaseCustomOpDomainImpl;
  ep_api.EpGraphSupportInfo_AddNodesToFuse = &AddNodesToFuseImpl;
  ep_api.EpGraphSupportInfo_AddSingleNode = &AddSingleNodeImpl;
  ep_api.NodeComputeContext_NodeName = &NodeComputeContextNodeNameImpl;
}

void InstallKernelApiSince30(OrtApiSince30& api) {
  api.KernelContext_GetPreallocatedOutput = &KernelContextGetPreallocatedOutputImpl;
}

}  // namespace nxrt::ort_plugin
