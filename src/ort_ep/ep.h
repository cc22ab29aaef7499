// ort_ep/ep.h: NxrtExecutionProvider, nxrt's CPU EP as an ONNX Runtime plugin OrtEp
// (docs/ort_plugin_export.md).
//
// Layer: the plugin library libnxrt_ort_ep.so. GetCapability reads the OrtGraph into nxrt's IR
// (ort_ep/graph_reader.h) and places it with nxrt's model pipeline on the CPU EP alone
// (runtime/model_pipeline.h: the CPU EP's Supports and the convex partitioner); each CPU EP claim
// becomes one AddNodesToFuse group, each If/Loop/Scan one AddSingleNode with the host's
// control-flow kernel (OrtEpApi::CreateIfKernel/CreateLoopKernel/CreateScanKernel) from the EP's
// kernel registry, whose bodies the host offers to GetCapability on their own. Compile makes each
// fused group an nxrt Session (optimizer, placement, memory plan: runtime::CreateSession); Compute
// binds the OrtKernelContext's tensors to it without copying the inputs.
//
// Sources: onnxruntime_ep_c_api.h (OrtEp, OrtNodeComputeInfo, OrtNodeFusionOptions, the
// kernel-registry functions of OrtEpApi).
#pragma once

#include <string>
#include <vector>

#include "ort_ep/host_api.h"

namespace nxrt::ort_ep {

// The session options "ep.nxrtexecutionprovider.<key>" (ORT stores a plugin's options under its
// lower-cased EP name).
struct EpOptions {
  int threads = 0;                          // "threads": intra-op threads per fused group; 0 = cores
  int opt_level = 2;                        // "opt_level": nxrt's optimizer level, 0..2
  std::vector<std::string> disabled_passes;  // "disabled_passes": comma-separated pass names
};

// Reads the EP's options from `session_options`' config entries. Errors (ORT_INVALID_ARGUMENT):
// an unknown key (listing the known ones), a value outside what the key allows (naming the key,
// the value and the allowed values).
OrtStatus* ReadEpOptions(const OrtApi& ort, const OrtSessionOptions* session_options,
                         EpOptions* options);

// A new OrtEp; `*ep` is null and the status says why when its kernel registry cannot be made.
OrtStatus* NewNxrtEp(const HostApi& api, const OrtLogger* logger, EpOptions options, OrtEp** ep);
void DeleteNxrtEp(OrtEp* ep);

}  // namespace nxrt::ort_ep
