// ep/ort_plugin/ep_context.h: what a plugin EP does for EPContext models (ep/ep_context.h): keep
// the EPContext nodes OrtEp::Compile returns, ask OrtEp::GetCompiledModelCompatibilityInfo for a
// compiled model, and OrtEpFactory::ValidateCompiledModelCompatibilityInfo for a loaded one.
//
// Layer: nxrt_ort_plugin (internal, plugin_ep.cpp). Source: onnxruntime_ep_c_api.h (OrtEp::Compile
// ep_context_nodes, OrtEp::GetCompiledModelCompatibilityInfo,
// OrtEpFactory::ValidateCompiledModelCompatibilityInfo), ORT 1.30's plugin EP host (a null
// EPContext node while generating a model is an error; nodes not made by CreateNode are refused).
#pragma once

#include <map>
#include <span>
#include <string>
#include <vector>

#include "ep/ep_context.h"
#include "ep/ort_plugin/plugin_library.h"
#include "ir/graph.h"
#include "nxrt/status.h"

namespace nxrt::ort_plugin {

// True when the session config asks plugins for EPContext nodes ("ep.context_enable" = "1").
bool EpContextEnabled(const OrtKeyValuePairs& session_config);

// Takes the `nodes` Compile returned for the fused nodes `fused_names` (index-aligned). With
// `enabled`, each must be a CreateNode node and is kept in `out` under its fused name; without,
// the ones returned are freed. Errors (kFailedPrecondition, prefixed with `label`): a null node
// or one not made by CreateNode while enabled, naming the fused node.
Status TakeContextNodes(std::span<OrtNode* const> nodes, std::span<const std::string> fused_names,
                        bool enabled, const std::string& label,
                        std::map<std::string, ep::EpContextCompiler::ContextNode, std::less<>>& out);

// OrtEp::GetCompiledModelCompatibilityInfo(ep, <model's main graph>): "" when the OrtEp (version
// `ep_version`) has none or returns null. Errors: the model's graph cannot be projected.
Result<std::string> CompiledModelCompatibilityInfo(OrtEp* ep, uint32_t ep_version,
                                                   const ir::Model& model);

// OrtEpFactory::ValidateCompiledModelCompatibilityInfo for `factory`'s devices of EP `ep_name`;
// kNotApplicable when the factory (below version 23, or with a null slot) has none. Errors
// (kFailedPrecondition, prefixed with `label`): the factory's error.
Result<ep::CompiledModelCompatibility> ValidateCompiledModelCompatibility(
    const PluginLibrary::Factory& factory, const std::string& ep_name, const std::string& info,
    const std::string& label);

}  // namespace nxrt::ort_plugin
