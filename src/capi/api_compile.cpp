// capi/api_compile.cpp: OrtApi::GetCompileApi and the OrtCompileApi table: an application
// compiles a model into an EPContext model over nxrt::CompileModel (nxrt/compile.h), as with
// ONNX Runtime 1.30's compile API.
//
// Layer: nxrt_capi (internal). An OrtModelCompilationOptions copies the session options it is
// made from (their EPs, plugin options and config entries reach the plugins; the optimisation
// level starts at ORT_DISABLE_ALL, as ORT documents), then takes the input (a file or bytes), the
// output (a file, by default "<input stem>_ctx.onnx" beside the input; or a buffer from the
// caller's allocator; or a write function called once with the whole model), the embed mode,
// the flags and the level. CompileModel checks them as ORT does and compiles. The functions that
// need what nxrt does not have answer ORT_NOT_IMPLEMENTED naming themselves and the reason
// (docs/plugin_host.md lists them): external initializer files and per-initializer locations
// (nxrt writes initializers inline), models built with the model editor API, EPContext binary
// information for buffer outputs, weightless compilation.
// Source: onnxruntime_c_api.h (OrtCompileApi, OrtCompileApiFlags, OrtWriteBufferFunc).
#include <cstring>
#include <filesystem>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "capi/capi_internal.h"
#include "nxrt/compile.h"

// OrtCompileApi::CreateModelCompilationOptionsFromSessionOptions: what CompileModel does.
struct OrtModelCompilationOptions {
  OrtSessionOptions session_options;
  std::string input_path;                // set: the model is a file
  std::vector<std::byte> input_bytes;    // else the model's bytes (a copy)
  std::string output_path;               // "" → "<input stem>_ctx.onnx"
  OrtAllocator* output_allocator = nullptr;  // set: the model goes to a buffer
  void** output_buffer = nullptr;
  size_t* output_size = nullptr;
  OrtWriteBufferFunc write_func = nullptr;  // set: the model goes to the function
  void* write_state = nullptr;
  bool embed = false;
  uint32_t flags = 0;  // OrtCompileApiFlags
};

namespace nxrt::capi {
namespace {

constexpr const char* kPrefix = "OrtCompileApi::";

OrtStatus* NotImplemented(const char* function, const char* reason) {
  return MakeOrtStatus(ORT_NOT_IMPLEMENTED, std::string(kPrefix) + function +
                                                " is not implemented in nxrt: " + reason);
}

void ORT_API_CALL ReleaseModelCompilationOptionsImpl(OrtModelCompilationOptions* options) {
  delete options;
}

OrtStatus* ORT_API_CALL CreateFromSessionOptionsImpl(const OrtEnv* env,
                                                     const OrtSessionOptions* session_options,
                                                     OrtModelCompilationOptions** out) noexcept {
  constexpr const char* kFn = "OrtCompileApi::CreateModelCompilationOptionsFromSessionOptions";
  if (OrtStatus* s = CheckArgs(kFn, {{"env", env}, {"session_options", session_options},
                                     {"out", out}})) {
    return s;
  }
  return Guarded(kFn, [&]() -> OrtStatus* {
    auto made = std::make_unique<OrtModelCompilationOptions>();
    made->session_options.config = session_options->config;
    made->session_options.intra_op_threads = session_options->intra_op_threads;
    made->session_options.providers = session_options->providers;
    made->session_options.free_dimension_overrides = session_options->free_dimension_overrides;
    made->session_options.optimization_level = ORT_DISABLE_ALL;
    *out = made.release();
    return nullptr;
  });
}

OrtStatus* ORT_API_CALL SetInputModelPathImpl(OrtModelCompilationOptions* options,
                                              const ORTCHAR_T* path) noexcept {
  constexpr const char* kFn = "OrtCompileApi::ModelCompilationOptions_SetInputModelPath";
  if (OrtStatus* s = CheckArgs(kFn, {{"model_compile_options", options},
                                     {"input_model_path", path}})) {
    return s;
  }
  return Guarded(kFn, [&]() -> OrtStatus* {
    options->input_path = path;
    options->input_bytes.clear();
    return nullptr;
  });
}

OrtStatus* ORT_API_CALL SetInputModelFromBufferImpl(OrtModelCompilationOptions* options,
                                                    const void* data, size_t size) noexcept {
  constexpr const char* kFn = "OrtCompileApi::ModelCompilationOptions_SetInputModelFromBuffer";
  if (OrtStatus* s = CheckArgs(kFn, {{"model_compile_options", options},
                                     {"input_model_data", data}})) {
    return s;
  }
  return Guarded(kFn, [&]() -> OrtStatus* {
    const auto* bytes = static_cast<const std::byte*>(data);
    options->input_bytes.assign(bytes, bytes + size);
    options->input_path.clear();
    return nullptr;
  });
}

void ClearOutput(OrtModelCompilationOptions& options) {
  options.output_path.clear();
  options.output_allocator = nullptr;
  options.output_buffer = nullptr;
  options.output_size = nullptr;
  options.write_func = nullptr;
  options.write_state = nullptr;
}

OrtStatus* ORT_API_CALL SetOutputModelPathImpl(OrtModelCompilationOptions* options,
                                               const ORTCHAR_T* path) noexcept {
  constexpr const char* kFn = "OrtCompileApi::ModelCompilationOptions_SetOutputModelPath";
  if (OrtStatus* s = CheckArgs(kFn, {{"model_compile_options", options},
                                     {"output_model_path", path}})) {
    return s;
  }
  return Guarded(kFn, [&]() -> OrtStatus* {
    ClearOutput(*options);
    options->output_path = path;
    return nullptr;
  });
}

OrtStatus* ORT_API_CALL SetOutputModelBufferImpl(OrtModelCompilationOptions* options,
                                                 OrtAllocator* allocator, void** buffer,
                                                 size_t* size) noexcept {
  constexpr const char* kFn = "OrtCompileApi::ModelCompilationOptions_SetOutputModelBuffer";
  if (OrtStatus* s = CheckArgs(kFn, {{"model_compile_options", options},
                                     {"allocator", allocator},
                                     {"output_model_buffer_ptr", buffer},
                                     {"output_model_buffer_size_ptr", size}})) {
    return s;
  }
  ClearOutput(*options);
  options->output_allocator = allocator;
  options->output_buffer = buffer;
  options->output_size = size;
  return nullptr;
}

OrtStatus* ORT_API_CALL SetOutputModelWriteFuncImpl(OrtModelCompilationOptions* options,
                                                    OrtWriteBufferFunc write_func,
                                                    void* state) noexcept {
  constexpr const char* kFn = "OrtCompileApi::ModelCompilationOptions_SetOutputModelWriteFunc";
  if (OrtStatus* s = CheckArgs(kFn, {{"model_compile_options", options},
                                     {"write_func", reinterpret_cast<const void*>(write_func)}})) {
    return s;
  }
  ClearOutput(*options);
  options->write_func = write_func;
  options->write_state = state;
  return nullptr;
}

OrtStatus* ORT_API_CALL SetEpContextEmbedModeImpl(OrtModelCompilationOptions* options,
                                                  bool embed) noexcept {
  if (OrtStatus* s = CheckArgs("OrtCompileApi::ModelCompilationOptions_SetEpContextEmbedMode",
                               {{"model_compile_options", options}})) {
    return s;
  }
  options->embed = embed;
  return nullptr;
}

OrtStatus* ORT_API_CALL SetFlagsImpl(OrtModelCompilationOptions* options,
                                     uint32_t flags) noexcept {
  constexpr const char* kFn = "OrtCompileApi::ModelCompilationOptions_SetFlags";
  if (OrtStatus* s = CheckArgs(kFn, {{"model_compile_options", options}})) return s;
  constexpr uint32_t kKnown =
      OrtCompileApiFlags_ERROR_IF_NO_NODES_COMPILED | OrtCompileApiFlags_ERROR_IF_OUTPUT_FILE_EXISTS;
  if ((flags & ~kKnown) != 0) {
    return InvalidArgument(kFn, "flags " + std::to_string(flags) +
                                    " hold bits no OrtCompileApiFlags value has; pass a bitwise "
                                    "OR of OrtCompileApiFlags");
  }
  options->flags = flags;
  return nullptr;
}

OrtStatus* ORT_API_CALL SetGraphOptimizationLevelImpl(OrtModelCompilationOptions* options,
                                                      GraphOptimizationLevel level) noexcept {
  constexpr const char* kFn = "OrtCompileApi::ModelCompilationOptions_SetGraphOptimizationLevel";
  if (OrtStatus* s = CheckArgs(kFn, {{"model_compile_options", options}})) return s;
  if (OrtStatus* s = CheckEnumArg(kFn, "graph_optimization_level", level)) return s;
  options->session_options.optimization_level = level;
  return nullptr;
}

OrtStatus* ORT_API_CALL SetOutputModelExternalInitializersFileImpl(OrtModelCompilationOptions*,
                                                                   const ORTCHAR_T*,
                                                                   size_t) noexcept {
  return NotImplemented("ModelCompilationOptions_SetOutputModelExternalInitializersFile",
                        "nxrt writes every initializer inside the compiled model");
}

OrtStatus* ORT_API_CALL SetEpContextBinaryInformationImpl(OrtModelCompilationOptions*,
                                                          const ORTCHAR_T*,
                                                          const ORTCHAR_T*) noexcept {
  return NotImplemented("ModelCompilationOptions_SetEpContextBinaryInformation",
                        "set an output model path instead: plugins place their context files "
                        "beside it (ep.context_file_path)");
}

OrtStatus* ORT_API_CALL SetOutputModelGetInitializerLocationFuncImpl(
    OrtModelCompilationOptions*, OrtGetInitializerLocationFunc, void*) noexcept {
  return NotImplemented("ModelCompilationOptions_SetOutputModelGetInitializerLocationFunc",
                        "nxrt writes every initializer inside the compiled model");
}

OrtStatus* ORT_API_CALL SetInputModelImpl(OrtModelCompilationOptions*, const OrtModel*) noexcept {
  return NotImplemented("ModelCompilationOptions_SetInputModel",
                        "nxrt builds no models with the model editor API; pass a file or bytes");
}

OrtStatus* ORT_API_CALL SetWeightlessEnabledImpl(OrtModelCompilationOptions*, bool) noexcept {
  return NotImplemented("ModelCompilationOptions_SetWeightlessEnabled",
                        "nxrt keeps no weightless source models (OrtEp::GetWeightlessSupport is "
                        "not asked)");
}

OrtStatus* ORT_API_CALL CompileModelImpl(const OrtEnv* env,
                                         const OrtModelCompilationOptions* options) noexcept {
  constexpr const char* kFn = "OrtCompileApi::CompileModel";
  if (OrtStatus* s = CheckArgs(kFn, {{"env", env}, {"model_options", options}})) return s;
  return Guarded(kFn, [&]() -> OrtStatus* {
    const bool from_file = !options->input_path.empty();
    if (!from_file && options->input_bytes.empty()) {
      return InvalidArgument(kFn, "no input model: call ModelCompilationOptions_SetInputModelPath "
                                  "or ModelCompilationOptions_SetInputModelFromBuffer");
    }
    std::error_code ec;
    if (from_file && !std::filesystem::exists(options->input_path, ec)) {
      return InvalidArgument(kFn, "input model path does not exist: " + options->input_path);
    }
    const bool to_bytes = options->output_allocator != nullptr || options->write_func != nullptr;
    if (!from_file && !to_bytes && options->output_path.empty()) {
      return InvalidArgument(kFn, "a model from a buffer needs an output location: call "
                                  "ModelCompilationOptions_SetOutputModelPath, "
                                  "SetOutputModelBuffer or SetOutputModelWriteFunc");
    }
    CompileOptions compile;
    compile.output_path = options->output_path;
    if (compile.output_path.empty() && !to_bytes) {
      const std::filesystem::path in(options->input_path);
      compile.output_path = (in.parent_path() / (in.stem().string() + "_ctx.onnx")).string();
    }
    if ((options->flags & OrtCompileApiFlags_ERROR_IF_OUTPUT_FILE_EXISTS) != 0 && !to_bytes &&
        std::filesystem::exists(compile.output_path, ec)) {
      return MakeOrtStatus(ORT_FAIL, std::string(kFn) + ": the output model '" +
                                         compile.output_path +
                                         "' exists (OrtCompileApiFlags_ERROR_IF_OUTPUT_FILE_"
                                         "EXISTS); remove it or choose another path");
    }
    compile.embed_context = options->embed;
    compile.config_entries = options->session_options.config.entries;
    compile.to_bytes = to_bytes;
    compile.error_if_no_nodes_compiled =
        (options->flags & OrtCompileApiFlags_ERROR_IF_NO_NODES_COMPILED) != 0;
    OrtEnv* mutable_env = const_cast<OrtEnv*>(env);
    Result<SessionOptions> session = [&] {
      std::lock_guard<std::mutex> lock(mutable_env->mutex);
      return ToNxrtOptions(options->session_options, *mutable_env);
    }();
    if (!session.ok()) return StatusAs(ORT_FAIL, kFn, session.status());
    Result<CompileResult> compiled =
        from_file ? CompileModel(options->input_path, *session, compile)
                  : CompileModelFromBytes(options->input_bytes, *session, compile);
    if (!compiled.ok()) return CreateSessionError(kFn, compiled.status());
    for (const std::string& warning : compiled->warnings) {
      mutable_env->Log(ORT_LOGGING_LEVEL_WARNING, "compile", warning);
    }
    const std::string& bytes = compiled->model_bytes;
    if (options->output_allocator != nullptr) {
      void* buffer = options->output_allocator->Alloc(options->output_allocator, bytes.size());
      if (buffer == nullptr && !bytes.empty()) {
        return MakeOrtStatus(ORT_FAIL, std::string(kFn) + ": the output allocator returned no "
                                                          "buffer of " +
                                           std::to_string(bytes.size()) + " bytes");
      }
      std::memcpy(buffer, bytes.data(), bytes.size());
      *options->output_buffer = buffer;
      *options->output_size = bytes.size();
    } else if (options->write_func != nullptr) {
      if (OrtStatus* error =
              options->write_func(options->write_state, bytes.data(), bytes.size())) {
        return error;
      }
    }
    return nullptr;
  });
}

const OrtCompileApi& CompileApiTable() {
  static const OrtCompileApi table = [] {
    OrtCompileApi t{};
    t.ReleaseModelCompilationOptions = &ReleaseModelCompilationOptionsImpl;
    t.CreateModelCompilationOptionsFromSessionOptions = &CreateFromSessionOptionsImpl;
    t.ModelCompilationOptions_SetInputModelPath = &SetInputModelPathImpl;
    t.ModelCompilationOptions_SetInputModelFromBuffer = &SetInputModelFromBufferImpl;
    t.ModelCompilationOptions_SetOutputModelPath = &SetOutputModelPathImpl;
    t.ModelCompilationOptions_SetOutputModelExternalInitializersFile =
        &SetOutputModelExternalInitializersFileImpl;
    t.ModelCompilationOptions_SetOutputModelBuffer = &SetOutputModelBufferImpl;
    t.ModelCompilationOptions_SetEpContextEmbedMode = &SetEpContextEmbedModeImpl;
    t.CompileModel = &CompileModelImpl;
    t.ModelCompilationOptions_SetFlags = &SetFlagsImpl;
    t.ModelCompilationOptions_SetEpContextBinaryInformation = &SetEpContextBinaryInformationImpl;
    t.ModelCompilationOptions_SetGraphOptimizationLevel = &SetGraphOptimizationLevelImpl;
    t.ModelCompilationOptions_SetOutputModelWriteFunc = &SetOutputModelWriteFuncImpl;
    t.ModelCompilationOptions_SetOutputModelGetInitializerLocationFunc =
        &SetOutputModelGetInitializerLocationFuncImpl;
    t.ModelCompilationOptions_SetInputModel = &SetInputModelImpl;
    t.ModelCompilationOptions_SetWeightlessEnabled = &SetWeightlessEnabledImpl;
    return t;
  }();
  return table;
}

const OrtCompileApi* ORT_API_CALL GetCompileApiImpl() noexcept { return &CompileApiTable(); }

}  // namespace

void InstallCompileApi(OrtApiVersion30& api) { api.v29.GetCompileApi = &GetCompileApiImpl; }

}  // namespace nxrt::capi
