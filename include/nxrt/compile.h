// nxrt/compile.h: compile a model into an EPContext model, as ONNX Runtime 1.30's compile API
// (OrtCompileApi::CompileModel) does.
//
// Public API (std only). The model is placed as a session would place it with `options` (a plugin
// EP first, the CPU EP taking the rest under fallback); each fused group a plugin EP compiles is
// replaced by the com.microsoft EPContext node the plugin returned from OrtEp::Compile; nodes no
// plugin fused stay as they are. The plugins see, among their session config entries,
// "ep.context_enable" = "1", "ep.context_file_path" = the output path and
// "ep.context_embed_mode" = "0" or "1" (where a plugin writes its context: a file beside the
// output model, or the bytes inside the node's ep_cache_context attribute). Each plugin's
// OrtEp::GetCompiledModelCompatibilityInfo goes into the output's metadata as
// "ep_compatibility_info.<EP name>"; a session loading the output asks the plugin's factory
// (ValidateCompiledModelCompatibilityInfo) and refuses a context it calls unsupported.
//
//   nxrt::SessionOptions options;
//   options.providers = {nxrt::EpSpec{"plugin:/path/libvendor_ep.so"}};
//   auto compiled = nxrt::CompileModel("model.onnx", options, {.output_path = "model_ctx.onnx"});
//
// Source: onnxruntime_c_api.h (OrtCompileApi), onnxruntime_ep_c_api.h (OrtEp::Compile
// ep_context_nodes), ONNX Runtime's "EP context design" (EPContext attributes embed_mode,
// ep_cache_context, main_context, ep_sdk_version, partition_name, source, hardware_architecture,
// notes).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "nxrt/session.h"
#include "nxrt/status.h"

namespace nxrt {

struct CompileOptions {
  // Where the EPContext model goes. "" → "<input folder>/<input stem>_ctx.onnx" for a model from
  // a file (ONNX Runtime's default); required for a model from bytes unless `to_bytes`.
  std::string output_path;
  // ep.context_embed_mode: true asks plugins to put their context inside the EPContext nodes
  // (embed_mode 1), false into files beside the output model (embed_mode 0).
  bool embed_context = false;
  // Return the model in CompileResult::model_bytes instead of writing a file. Plugins still see
  // `output_path` (when set) as ep.context_file_path, to place side files.
  bool to_bytes = false;
  // Fail with kFailedPrecondition when no plugin compiled any node (ONNX Runtime's
  // OrtCompileApiFlags_ERROR_IF_NO_NODES_COMPILED); otherwise the model is written unchanged.
  bool error_if_no_nodes_compiled = false;
  // Session config entries (ONNX Runtime's AddSessionConfigEntry keys), in order: every plugin
  // EP finds them among its OrtSessionOptions config entries, before the three above and its own
  // "ep.<name>.<key>" options, as in ONNX Runtime.
  std::vector<std::pair<std::string, std::string>> config_entries;
};

struct CompileResult {
  std::string output_path;  // the file written; "" with to_bytes
  std::string model_bytes;  // the serialized ModelProto, with to_bytes
  int64_t ep_context_nodes = 0;  // EPContext nodes written
  // Per plugin EP that gave one: {EP name, compatibility info} as stored in the metadata.
  std::vector<std::pair<std::string, std::string>> compatibility_info;
  std::vector<std::string> warnings;  // EPs dropped under fallback, as Session::Warnings()
};

// Compiles the model at `path` (its external data relative to its folder). Errors: those of
// Session::Create up to placement and compiling (a plugin's Compile failing with fallback
// disabled, ...); kFailedPrecondition when a plugin compiled a fused group but returned no
// EPContext node for it, or returned one whose inputs or outputs are not values of the graph;
// kInvalidArgument for no output path with a model from bytes; kIoError when the output cannot
// be written.
Result<CompileResult> CompileModel(const std::string& path, const SessionOptions& options,
                                   const CompileOptions& compile);
// The same from the bytes of a ModelProto.
Result<CompileResult> CompileModelFromBytes(std::span<const std::byte> bytes,
                                            const SessionOptions& options,
                                            const CompileOptions& compile);

}  // namespace nxrt
