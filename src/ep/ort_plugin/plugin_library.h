// ep/ort_plugin/plugin_library.h: one ORT plugin-EP shared library, loaded and described.
//
// Layer: nxrt_ort_plugin (internal). Loading follows ONNX Runtime 1.30's order
// (docs/plugin_host.md, "Lifecycle"): dlopen → CreateEpFactories(registration_name, host
// OrtApiBase, logger, factories[8]) → per factory (version-gated): GetName, GetVendor,
// GetVersion (>= 23), GetSupportedDevices with the host's hardware devices → OrtEpDevices.
// Unloading releases in reverse: every OrtEpDevice (ReleaseEpDevice), every factory
// (ReleaseEpFactory), dlclose. A failure at any step
// releases what was acquired and returns an error naming the library, the step, ORT's error code
// and message, and a fix ("Version gating and bad plugins"). A library registered under a name
// ending in ".virtual" puts allow_virtual_devices=1 in the env config entries while it is loaded
// (api_table.h, EnvConfigEntries), as ORT 1.30 does.
//
// Libraries are shared: loading the same (absolute path, registration name) again while a
// PluginLibrary for it is alive returns that one. Thread-safe.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "ep/ort_plugin/api_objects.h"
#include "ep/ort_plugin/ort_c_api.h"
#include "nxrt/status.h"

namespace nxrt::ort_plugin {

// Writes a plugin's log lines at `min_severity` and above to stderr, prefixed with `prefix`.
class StderrLogSink : public LogSink {
 public:
  StderrLogSink(std::string prefix, OrtLoggingLevel min_severity)
      : prefix_(std::move(prefix)), min_severity_(min_severity) {}
  void Log(OrtLoggingLevel severity, std::string_view message, const char* file, int line,
           const char* function) override;

 private:
  std::string prefix_;
  OrtLoggingLevel min_severity_;
};

class PluginLibrary {
 public:
  // A factory the library created, with what it said about itself.
  struct Factory {
    OrtEpFactory* factory = nullptr;
    uint32_t version = 0;  // min(ort_version_supported, 29)
    std::string name;      // GetName: the EP name its devices carry
    std::string vendor;
    std::string version_string;         // GetVersion ("" below 23)
    std::vector<OrtEpDevice*> devices;  // from GetSupportedDevices, host-owned
  };

  // Loads the library at `path` (a relative path is resolved against the working directory)
  // under `registration_name` ("" → the file name without "lib" and extension). Errors:
  // kNotFound (no such file), kFailedPrecondition (dlopen fails; a symbol is missing;
  // CreateEpFactories fails, returns zero factories or a null one; a factory's version is
  // below 22; GetSupportedDevices fails), each naming the library and the step with a fix.
  static Result<std::shared_ptr<PluginLibrary>> Load(std::string_view path,
                                                     std::string_view registration_name);
  ~PluginLibrary();
  PluginLibrary(const PluginLibrary&) = delete;
  PluginLibrary& operator=(const PluginLibrary&) = delete;

  const std::string& path() const { return path_; }  // absolute
  // "plugin libexample_ep.so": how messages name this library.
  const std::string& label() const { return label_; }
  const std::string& registration_name() const { return registration_name_; }
  const std::vector<Factory>& factories() const { return factories_; }
  // The hardware devices the factories were offered: the host's, in ORT's order (NPUs, GPUs,
  // then the CPU; host_devices.h).
  const std::vector<const OrtHardwareDevice*>& hardware_devices() const;
  // The library's logger (for CreateEpFactories and the factories): warnings and errors to
  // stderr.
  const OrtLogger* logger() const { return &logger_; }

 private:
  PluginLibrary() = default;
  Status Open(std::string_view path, std::string_view registration_name);
  Status Describe(Factory& factory);
  void Release();

  std::string path_;
  std::string label_;
  std::string registration_name_;
  void* handle_ = nullptr;
  using ReleaseFn = OrtStatus* (*)(OrtEpFactory*);
  ReleaseFn release_factory_ = nullptr;
  std::unique_ptr<StderrLogSink> sink_;
  OrtLogger logger_;
  std::vector<Factory> factories_;
  bool counted_virtual_ = false;  // registered as "<name>.virtual" (CountVirtualDeviceLibrary)
};

}  // namespace nxrt::ort_plugin
