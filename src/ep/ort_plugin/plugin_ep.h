// ep/ort_plugin/plugin_ep.h: an ORT plugin EP (an OrtEp from a plugin library's factory) as an
// nxrt ExecutionProvider.
//
// Layer: nxrt_ort_plugin. The EP claims through the GraphClaimer extension (ep/graph_claimer.h):
//   Initialize   OrtEpFactory::CreateEp with the factory's devices of this EP's name (arrays
//                index-aligned), a real OrtSessionOptions whose config entries hold the user's
//                options as "ep.<lower-cased ep_name>.<key>" (EpOptionPrefix), and a logger.
//                The OrtEp must declare version >= 23, set GetCapability, and have Compile or a
//                kernel registry;
//                OrtEp::GetKernelRegistry (>= 24) is asked once and the registry copied.
//   ProposeClaims  the graph projected as an OrtGraph (graph_projection.h, once per graph, and
//                again once the pipeline rewrote the model: ModelRewritten; nodes an earlier
//                round kept show their EP, Node_GetEpName), OrtEp::GetCapability, each
//                AddNodesToFuse group → a fused proposal; each
//                AddSingleNode → a single-node proposal when a kernel of the registry matches the
//                node (kernel_registry.h), else rejected with the mismatch; groups naming
//                pointers that are not nodes of the graph are rejected here with the reason. The
//                plugin's log lines that quote a node name ('name') become that node's decline
//                reason.
//   CompileClaims  one OrtEp::Compile over all accepted fused claims of a graph (one OrtGraph and
//                one fused OrtNode each), then OrtNodeComputeInfo::CreateState once per claim;
//                for each single node the registry kernel's OrtKernelCreateFunc, once per session.
//   CreateFusedKernel / CreateNodeKernel  a kernel over that compute info or OrtKernelImpl:
//                outputs declared dynamic, Compute runs the plugin's Compute with an
//                OrtKernelContext (kernel_context.h) that serves the inputs and allocates outputs
//                of the shape the plugin asks for. Calls are serialised when
//                OrtEp::IsConcurrentRunSupported says no. ControlFlowHelpersFor lends the runtime
//                the Loop/Scan helpers of a control-flow kernel made by OrtEpApi::Create*Kernel.
//   Shutdown     ReleaseState for every state → ReleaseNodeComputeInfos → OrtKernelImpl::Release
//                of every registry kernel → OrtEpFactory::ReleaseEp.
// Every plugin struct is version-gated and every plugin error names the library, the step and
// ORT's code and message (docs/plugin_host.md, "Version gating and bad plugins").
#pragma once

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include "ep/graph_claimer.h"
#include "ep/ort_plugin/graph_projection.h"
#include "ep/ort_plugin/plugin_library.h"
#include "nxrt/execution_provider.h"

namespace nxrt::ort_plugin {

// Host-level options of a plugin EP (the rest go to the plugin as
// "ep.<ep_name lower-cased>.<key>").
inline constexpr std::string_view kEpNameOption = "ep_name";  // which of the library's EPs

// "ep.<ep_name lower-cased (ASCII)>.": where a plugin finds its options among the session config
// entries, as ONNX Runtime 1.30 stores the options of SessionOptionsAppendExecutionProvider_V2
// ("Nxrt_Probe_EP" → "ep.nxrt_probe_ep."); the keys keep their case.
std::string EpOptionPrefix(std::string_view ep_name);

// Creates the EP for `library`: `ep_name` selects the factory whose devices carry that EP name
// ("" → the first factory with at least one device). Errors: kNotFound when no factory offers
// a device for the name (listing the names it offers).
Result<std::shared_ptr<ExecutionProvider>> MakePluginExecutionProvider(
    std::shared_ptr<PluginLibrary> library, std::string_view ep_name);

// "plugin:/path/lib.so[:registration_name]" split into its parts. Errors: kInvalidArgument when
// `spec` does not start with "plugin:" or has no path.
struct PluginSpec {
  std::string path;
  std::string registration_name;
};
Result<PluginSpec> ParsePluginSpec(std::string_view spec);

// What a plugin EP reports about itself (for `nxrt claims` and tests), via the
// PluginInfo extension.
class PluginInfo : public EpExtension {
 public:
  static constexpr std::string_view kExtensionName = "nxrt.ort_plugin_info";
  virtual const PluginLibrary& library() const = 0;
  virtual const std::string& ep_name() const = 0;
  // The device its kernels run on ("cpu:0", "gpu:0", "npu:0": the OrtHardwareDevice type of the
  // factory's devices for this EP).
  virtual std::string device_label() const = 0;
  // Successful OrtNodeComputeInfo::Compute calls over all fused kernels of this EP.
  virtual int64_t compute_calls() const = 0;
};

}  // namespace nxrt::ort_plugin
