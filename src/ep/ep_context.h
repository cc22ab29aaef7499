// ep/ep_context.h: optional EP capabilities for EPContext models (ONNX Runtime's "EP context
// design": a model whose fused groups are com.microsoft EPContext nodes holding what an EP
// compiled them into).
//
// Layer: nxrt_ep (internal: it sees the IR). The ORT plugin host (src/ep/ort_plugin) implements
// both for every plugin EP; runtime/ep_context_model.h (writing) and runtime/model_pipeline.h
// (loading) use them.
//   SessionConfigured   the session's config entries (ORT's session options config: keys such as
//                       "ep.context_enable"), given before Initialize, as ORT hands a plugin's
//                       CreateEp the whole OrtSessionOptions.
//   EpContextCompiler   after CompileClaims with "ep.context_enable" = "1": the EPContext node
//                       the EP returned for each fused claim; its compatibility info for a
//                       compiled model (OrtEp::GetCompiledModelCompatibilityInfo) and its verdict
//                       on one (OrtEpFactory::ValidateCompiledModelCompatibilityInfo).
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ir/graph.h"
#include "nxrt/execution_provider.h"
#include "nxrt/status.h"

namespace nxrt::ep {

// ONNX Runtime's EPContext operator: domain and op type (contrib op, since version 1).
inline constexpr std::string_view kEpContextDomain = "com.microsoft";
inline constexpr std::string_view kEpContextOpType = "EPContext";
// Model metadata key of an EP's compatibility info: this prefix + the EP's name
// (onnxruntime_ep_device_ep_metadata_keys.h, kOrtModelMetadata_EpCompatibilityInfoPrefix).
inline constexpr std::string_view kEpCompatibilityInfoPrefix = "ep_compatibility_info.";
// Session config keys (onnxruntime_session_options_config_keys.h).
inline constexpr std::string_view kEpContextEnable = "ep.context_enable";
inline constexpr std::string_view kEpContextFilePath = "ep.context_file_path";
inline constexpr std::string_view kEpContextEmbedMode = "ep.context_embed_mode";

// True for a node of ORT's EPContext operator.
inline bool IsEpContextNode(const ir::Node& node) {
  return node.domain == kEpContextDomain && node.op_type == kEpContextOpType;
}

class SessionConfigured : public EpExtension {
 public:
  static constexpr std::string_view kExtensionName = "nxrt.session_configured";
  // The session's config entries, in the order given; called once, before Initialize.
  virtual void SetSessionConfig(const std::vector<std::pair<std::string, std::string>>& entries) = 0;
};

// OrtCompiledModelCompatibility (onnxruntime_c_api.h), in its order.
enum class CompiledModelCompatibility {
  kNotApplicable = 0,
  kSupportedOptimal = 1,
  kSupportedPreferRecompilation = 2,
  kUnsupported = 3,
};

class EpContextCompiler : public EpExtension {
 public:
  static constexpr std::string_view kExtensionName = "nxrt.ep_context_compiler";

  // An EPContext node as the EP made it (OrtModelEditorApi::CreateNode): values by name.
  struct ContextNode {
    std::string name;  // the fused node's name, which it replaces
    std::string op_type;
    std::string domain;
    std::vector<std::string> inputs;
    std::vector<std::string> outputs;
    std::vector<ir::Attribute> attributes;  // in the order the EP gave them
  };

  // The EPContext node the EP returned when it compiled fused claim `fused_name` with context
  // generation enabled, or null.
  virtual const ContextNode* ContextNodeFor(std::string_view fused_name) const = 0;
  // OrtEp::GetCompiledModelCompatibilityInfo over `model` (the EPContext model about to be
  // written): "" when the EP gives none. Errors: the model cannot be shown to the EP.
  virtual Result<std::string> CompatibilityInfo(const ir::Model& model) = 0;
  // OrtEpFactory::ValidateCompiledModelCompatibilityInfo of `info` for the EP's devices;
  // kNotApplicable when the factory has no such function. Errors: the factory's, naming it.
  virtual Result<CompiledModelCompatibility> ValidateCompatibility(const std::string& info) = 0;
};

}  // namespace nxrt::ep
