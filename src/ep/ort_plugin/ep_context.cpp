// ep/ort_plugin/ep_context.cpp: see ep_context.h.
#include "ep/ort_plugin/ep_context.h"

#include <algorithm>
#include <memory>
#include <string_view>

#include "ep/ort_plugin/api_internal.h"
#include "ep/ort_plugin/api_table.h"
#include "ep/ort_plugin/editor_nodes.h"
#include "ep/ort_plugin/graph_projection.h"
#include "ir/graph_view.h"

namespace nxrt::ort_plugin {

bool EpContextEnabled(const OrtKeyValuePairs& session_config) {
  const char* value = session_config.Find(ep::kEpContextEnable);
  return value != nullptr && std::string_view(value) == "1";
}

Status TakeContextNodes(std::span<OrtNode* const> nodes, std::span<const std::string> fused_names,
                        bool enabled, const std::string& label,
                        std::map<std::string, ep::EpContextCompiler::ContextNode, std::less<>>& out) {
  Status status;
  for (size_t i = 0; i < nodes.size(); ++i) {
    const std::string which = label + ": fused node '" + fused_names[i] + "'";
    if (nodes[i] == nullptr) {
      if (enabled && status.ok()) {
        status = MakeStatus(StatusCode::kFailedPrecondition, which,
                            ": OrtEp::Compile returned no EPContext node while the session "
                            "generates an EPContext model (ep.context_enable = 1); fix the "
                            "plugin's Compile to create one with OrtModelEditorApi::CreateNode");
      }
      continue;
    }
    Result<ep::EpContextCompiler::ContextNode> taken = TakeEditorNode(nodes[i]);
    if (!enabled) continue;  // freed: the session writes no EPContext model
    if (!taken.ok()) {
      if (status.ok()) status = taken.status().WithContext(which);
      continue;
    }
    out[fused_names[i]] = std::move(taken).value();
  }
  return status;
}

Result<std::string> CompiledModelCompatibilityInfo(OrtEp* ep, uint32_t ep_version,
                                                   const ir::Model& model) {
  if (ep_version < 23 || ep->GetCompiledModelCompatibilityInfo == nullptr) return std::string();
  NXRT_ASSIGN_OR_RETURN(ir::GraphView view, ir::GraphView::Create(model, *model.graph));
  NXRT_ASSIGN_OR_RETURN(std::unique_ptr<GraphProjection> projection,
                        GraphProjection::Create(model, view));
  const char* info = ep->GetCompiledModelCompatibilityInfo(ep, projection->graph());
  return std::string(info != nullptr ? info : "");
}

Result<ep::CompiledModelCompatibility> ValidateCompiledModelCompatibility(
    const PluginLibrary::Factory& factory, const std::string& ep_name, const std::string& info,
    const std::string& label) {
  OrtEpFactory* f = factory.factory;
  if (factory.version < 23 || f->ValidateCompiledModelCompatibilityInfo == nullptr) {
    return ep::CompiledModelCompatibility::kNotApplicable;
  }
  std::vector<const OrtHardwareDevice*> devices;
  for (const OrtEpDevice* device : factory.devices) {
    if (device->ep_name == ep_name) devices.push_back(device->device);
  }
  OrtCompiledModelCompatibility verdict = OrtCompiledModelCompatibility_EP_NOT_APPLICABLE;
  OrtStatus* error = f->ValidateCompiledModelCompatibilityInfo(f, devices.data(), devices.size(),
                                                               info.c_str(), &verdict);
  if (error != nullptr) {
    return Status(StatusCode::kFailedPrecondition,
                  TakeOrtStatus(error, label +
                                           ": OrtEpFactory::ValidateCompiledModelCompatibilityInfo "
                                           "failed")
                      .message());
  }
  // The factory may write any int (api_internal.h, "Enum arguments"): switched on as an int.
  switch (RawEnumArg(verdict)) {
    case OrtCompiledModelCompatibility_EP_NOT_APPLICABLE:
      return ep::CompiledModelCompatibility::kNotApplicable;
    case OrtCompiledModelCompatibility_EP_SUPPORTED_OPTIMAL:
      return ep::CompiledModelCompatibility::kSupportedOptimal;
    case OrtCompiledModelCompatibility_EP_SUPPORTED_PREFER_RECOMPILATION:
      return ep::CompiledModelCompatibility::kSupportedPreferRecompilation;
    case OrtCompiledModelCompatibility_EP_UNSUPPORTED:
      return ep::CompiledModelCompatibility::kUnsupported;
  }
  return MakeStatus(StatusCode::kFailedPrecondition, label,
                    ": OrtEpFactory::ValidateCompiledModelCompatibilityInfo answered ",
                    RawEnumArg(verdict),
                    ", which is no OrtCompiledModelCompatibility value; fix the factory");
}

}  // namespace nxrt::ort_plugin
