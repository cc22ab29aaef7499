// ort_oracle/ort_oracle.h: run any ONNX model in real ONNX Runtime 1.30 through its C API.
//
// Layer: test support (nxrt_ort_oracle), over nxrt_core. ONNX Runtime is never linked: the shared
// library is opened with dlopen at run time, so nxrt builds and its other tests run without it.
// Tests compare nxrt with these outputs; benchmarks time sessions side by side; plugin tests
// (issue 5) register plugin EP libraries here to prove they speak the real ABI.
//
//   Result<OrtOracle> ort = OrtOracle::Load();              // NXRT_ORT_LIBRARY or the cache's
//   Result<OracleSession> s = ort->CreateSession("m.onnx", {.intra_op_threads = 1});
//   Result<std::vector<NamedTensor>> out = s->Run({{"x", x}});
//
// Every ORT failure comes back as a Status naming the model, the OrtApi function and ORT's own
// message, e.g. "model 'add.onnx': OrtApi::Run failed (ORT_INVALID_ARGUMENT): ...".
// ORT logs to stderr at level $NXRT_ORT_LOG_LEVEL (verbose, info, warning, error (default),
// fatal), read when the library is loaded.
// Objects are cheap handles: copies of an OrtOracle share the loaded library; a session keeps
// the library alive. OracleSession::Run may be called from several threads at once.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "nxrt/status.h"
#include "ort_oracle/named_tensor.h"

namespace nxrt::oracle {

namespace detail {
struct OrtLibrary;
struct OrtSessionHandle;
}  // namespace detail

// ORT's graph optimisation levels (GraphOptimizationLevel). kDisableAll gives the exact
// reference (each node computed as the model says); kAll is ORT's default and what users get.
enum class OptimizationLevel { kDisableAll, kBasic, kExtended, kAll };

// "disable", "basic", "extended", "all".
std::string_view OptimizationLevelName(OptimizationLevel level);

// An ORT plugin execution-provider library to register and put in front of ORT's CPU EP.
struct PluginEp {
  // Path of the shared library exporting CreateEpFactories / ReleaseEpFactory.
  std::string library_path;
  // The name ORT registers the library under; "" means the file name without "lib" and
  // extension ("/x/libexample_ep.so" -> "example_ep").
  std::string registration_name;
  // Only use the library's devices of this EP name; "" means every device the library added.
  std::string ep_name;
  // EP options passed to SessionOptionsAppendExecutionProvider_V2 (key, value).
  std::vector<std::pair<std::string, std::string>> ep_options;
};

// Parses "PATH[:registration_name]" as given on command lines.
Result<PluginEp> ParsePluginSpec(std::string_view spec);

// How ORT builds a session.
struct OracleOptions {
  // ORT's intra-op threads; 0 lets ORT choose (one per core). 1 is deterministic and cheap.
  int intra_op_threads = 1;
  OptimizationLevel optimization = OptimizationLevel::kAll;
  // Plugin EPs in priority order, before ORT's CPU EP.
  std::vector<PluginEp> plugins;
  // Session config entries (AddSessionConfigEntry), e.g. {"session.disable_cpu_ep_fallback",
  // "1"} or {"session.intra_op.allow_spinning", "0"}.
  std::vector<std::pair<std::string, std::string>> config_entries;
  // When set, ORT profiles every run (OrtApi::EnableProfiling) and writes a Chrome trace named
  // "<profile_prefix>_<date>.json" when the session is released.
  std::string profile_prefix;
};

// One OrtEpDevice: an EP and the hardware device it runs on.
struct EpDeviceInfo {
  std::string ep_name;
  std::string ep_vendor;
  std::string device_type;  // "cpu", "gpu" or "npu"
  std::string device_vendor;
};

class OracleSession;

// A loaded ONNX Runtime library with its environment (one per library per process).
class OrtOracle {
 public:
  // $NXRT_ORT_LIBRARY when set and non-empty, else <NXRT_CACHE>/ort/libonnxruntime.so.1 as
  // configured at build time.
  static std::string DefaultLibraryPath();

  // Opens the library (once per path per process; later calls share it) and creates its OrtEnv.
  // Errors: kNotFound when the file does not exist (the message says to run
  // scripts/bootstrap.sh), kFailedPrecondition when dlopen fails or the library lacks C API 29.
  static Result<OrtOracle> Load(const std::string& library_path = DefaultLibraryPath());

  // ORT's version string, e.g. "1.30.0".
  const std::string& version() const;
  const std::string& library_path() const;

  // Loads `model_path` into a session built with `options` (plugins registered on first use).
  Result<OracleSession> CreateSession(const std::string& model_path,
                                      const OracleOptions& options = {}) const;

  // One-shot CreateSession + Run: all outputs in the model's order.
  Result<std::vector<NamedTensor>> Run(const std::string& model_path,
                                       const std::vector<NamedTensor>& inputs,
                                       const OracleOptions& options = {}) const;

  // Registers a plugin EP library (RegisterExecutionProviderLibrary) unless a library is already
  // registered under that name, and returns the devices it provides. Registering another path
  // under a registered name is an error.
  Result<std::vector<EpDeviceInfo>> RegisterPlugin(const PluginEp& plugin) const;

  // Unregisters a plugin library. No session using its EP may be alive.
  Status UnregisterPlugin(const std::string& registration_name) const;

  // Every OrtEpDevice the environment knows (ORT's own CPU EP and registered plugins).
  Result<std::vector<EpDeviceInfo>> EpDevices() const;

 private:
  explicit OrtOracle(std::shared_ptr<detail::OrtLibrary> library) : library_(std::move(library)) {}

  std::shared_ptr<detail::OrtLibrary> library_;
};

// An ORT session over one model, created once and run many times.
class OracleSession {
 public:
  const std::string& model_path() const;
  // The model's graph inputs (initializers excluded) and outputs, in declaration order.
  const std::vector<ValueInfo>& inputs() const;
  const std::vector<ValueInfo>& outputs() const;

  // Runs the model. `inputs` must name each required input once with its declared element type;
  // tensors may be strided (they are gathered first). `output_names` selects outputs, in that
  // order; empty means all outputs in model order. Returned tensors are owned copies.
  Result<std::vector<NamedTensor>> Run(const std::vector<NamedTensor>& inputs,
                                       const std::vector<std::string>& output_names = {}) const;

  // Run for models whose inputs or outputs are maps or sequences (ONNX-ML's ZipMap,
  // DictVectorizer, CastMap): inputs are tensors, maps (made with OrtApi::CreateValue from their
  // keys and values) or non-empty sequences of maps; outputs come back as tensors, maps, and
  // sequences of tensors or of maps (read with GetValueCount and GetValue), as owned copies.
  // Errors: those of Run, and kNotImplemented for an optional or an empty sequence input.
  Result<std::vector<NamedValue>> RunValues(
      const std::vector<NamedValue>& inputs,
      const std::vector<std::string>& output_names = {}) const;

  // Runs the model with the named `outputs` written into the caller's tensors (OrtApi::Run with
  // pre-allocated output values, as ONNX Runtime GenAI runs its decoders): each must be
  // contiguous, of the declared dtype and of the shape the run computes (ORT fails the run
  // otherwise). An output may be an input's buffer (GroupQueryAttention's shared past/present
  // KV cache). Errors: those of Run, and an undefined, strided or mistyped output tensor.
  Status RunInto(const std::vector<NamedTensor>& inputs,
                 const std::vector<NamedTensor>& outputs) const;

 private:
  friend class OrtOracle;
  explicit OracleSession(std::shared_ptr<const detail::OrtSessionHandle> handle)
      : handle_(std::move(handle)) {}

  std::shared_ptr<const detail::OrtSessionHandle> handle_;
};

}  // namespace nxrt::oracle
