// ep/ort_plugin/plugin_library.cpp: see plugin_library.h.
#include "ep/ort_plugin/plugin_library.h"

#include <dlfcn.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>
#include <mutex>
#include <utility>

#include "ep/ort_plugin/api_table.h"
#include "ep/ort_plugin/host_devices.h"

namespace nxrt::ort_plugin {
namespace {

using CreateEpFactoriesFn = OrtStatus* (*)(const char*, const OrtApiBase*, const OrtLogger*,
                                           OrtEpFactory**, size_t, size_t*);

// Capacity offered to CreateEpFactories and to GetSupportedDevices.
constexpr size_t kMaxFactories = 8;
constexpr size_t kMaxEpDevices = 32;

const char* SeverityName(OrtLoggingLevel severity) {
  switch (severity) {
    case ORT_LOGGING_LEVEL_VERBOSE: return "verbose";
    case ORT_LOGGING_LEVEL_INFO: return "info";
    case ORT_LOGGING_LEVEL_WARNING: return "warning";
    case ORT_LOGGING_LEVEL_ERROR: return "error";
    case ORT_LOGGING_LEVEL_FATAL: return "fatal";
  }
  return "log";
}

// Live libraries by (absolute path, registration name).
std::mutex& RegistryMutex() {
  static std::mutex mutex;
  return mutex;
}
std::map<std::pair<std::string, std::string>, std::weak_ptr<PluginLibrary>>& Registry() {
  static std::map<std::pair<std::string, std::string>, std::weak_ptr<PluginLibrary>> registry;
  return registry;
}

std::string DefaultRegistrationName(const std::filesystem::path& path) {
  std::string stem = path.filename().string();
  if (stem.starts_with("lib")) stem = stem.substr(3);
  const size_t dot = stem.find('.');
  return dot == std::string::npos ? stem : stem.substr(0, dot);
}

}  // namespace

void StderrLogSink::Log(OrtLoggingLevel severity, std::string_view message, const char*, int,
                        const char*) {
  if (severity < min_severity_) return;
  std::fprintf(stderr, "%s [%s]: %.*s\n", prefix_.c_str(), SeverityName(severity),
               static_cast<int>(message.size()), message.data());
}

Result<std::shared_ptr<PluginLibrary>> PluginLibrary::Load(std::string_view path,
                                                           std::string_view registration_name) {
  std::error_code ec;
  std::filesystem::path fs_path(path);
  std::string resolved_note;
  if (fs_path.is_relative()) {
    const std::filesystem::path cwd = std::filesystem::current_path(ec);
    fs_path = cwd / fs_path;
    resolved_note = " (resolved against the working directory " + cwd.string() + ")";
  }
  fs_path = fs_path.lexically_normal();
  const std::string absolute = fs_path.string();
  std::string name(registration_name);
  if (name.empty()) name = DefaultRegistrationName(fs_path);

  std::lock_guard<std::mutex> lock(RegistryMutex());
  auto& registry = Registry();
  const auto key = std::make_pair(absolute, name);
  if (auto it = registry.find(key); it != registry.end()) {
    if (std::shared_ptr<PluginLibrary> live = it->second.lock()) return live;
  }
  if (!std::filesystem::is_regular_file(fs_path, ec)) {
    return MakeStatus(StatusCode::kNotFound, "plugin ", fs_path.filename().string(),
                      ": no library file at ", absolute, resolved_note,
                      "; fix by giving the path of a shared library built against the ORT "
                      "plugin-EP C ABI");
  }
  std::shared_ptr<PluginLibrary> library(new PluginLibrary());
  Status status = library->Open(absolute, name);
  if (!status.ok()) {
    library->Release();
    return status;
  }
  std::erase_if(registry, [](const auto& entry) { return entry.second.expired(); });
  registry[key] = library;
  return library;
}

PluginLibrary::~PluginLibrary() { Release(); }

const std::vector<const OrtHardwareDevice*>& PluginLibrary::hardware_devices() const {
  return HostDevicesForFactories();
}

Status PluginLibrary::Open(std::string_view path, std::string_view registration_name) {
  path_ = std::string(path);
  label_ = "plugin " + std::filesystem::path(path_).filename().string();
  registration_name_ = std::string(registration_name);
  sink_ = std::make_unique<StderrLogSink>(label_, ORT_LOGGING_LEVEL_WARNING);
  logger_.id = registration_name_;
  logger_.min_severity = ORT_LOGGING_LEVEL_WARNING;
  logger_.sink = sink_.get();

  dlerror();
  handle_ = dlopen(path_.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle_ == nullptr) {
    const char* why = dlerror();
    return MakeStatus(StatusCode::kFailedPrecondition, label_, ": dlopen failed (",
                      why ? why : "unknown error", "); fix by checking that ", path_,
                      " is a shared library for this platform and that its dependencies are "
                      "on the library path");
  }
  auto resolve = [&](const char* symbol) -> Result<void*> {
    dlerror();
    void* address = dlsym(handle_, symbol);
    if (address == nullptr) {
      const char* why = dlerror();
      return MakeStatus(StatusCode::kFailedPrecondition, label_, ": ", symbol,
                        " symbol not found (", why ? why : "null address",
                        "); fix by building the library against the ORT plugin-EP C ABI and "
                        "exporting CreateEpFactories and ReleaseEpFactory");
    }
    return address;
  };
  NXRT_ASSIGN_OR_RETURN(void* create_address, resolve("CreateEpFactories"));
  NXRT_ASSIGN_OR_RETURN(void* release_address, resolve("ReleaseEpFactory"));
  auto create = reinterpret_cast<CreateEpFactoriesFn>(create_address);
  release_factory_ = reinterpret_cast<ReleaseFn>(release_address);

  // ORT 1.30 lets the factories of a library registered as "<name>.virtual" make virtual
  // hardware devices: its env config says allow_virtual_devices=1 while the library is loaded.
  if (registration_name_.ends_with(".virtual")) {
    CountVirtualDeviceLibrary(true);
    counted_virtual_ = true;
  }
  OrtEpFactory* created[kMaxFactories] = {};
  size_t count = 0;
  OrtStatus* error =
      create(registration_name_.c_str(), HostApiBase(), &logger_, created, kMaxFactories, &count);
  count = std::min(count, kMaxFactories);
  // Keep every non-null factory first, so a failure below still releases them.
  for (size_t i = 0; i < count; ++i) {
    if (created[i] == nullptr) continue;
    factories_.emplace_back();
    factories_.back().factory = created[i];
  }
  if (error != nullptr) {
    Status status = TakeOrtStatus(error, label_ + ": CreateEpFactories failed");
    return Status(StatusCode::kFailedPrecondition,
                  status.message() + "; the library did not register (see its log above)");
  }
  if (count == 0) {
    return MakeStatus(StatusCode::kFailedPrecondition, label_,
                      ": CreateEpFactories returned zero factories; the library offers no EP "
                      "(check that it supports this platform)");
  }
  if (factories_.size() != count) {
    return MakeStatus(StatusCode::kFailedPrecondition, label_, ": CreateEpFactories returned ",
                      count - factories_.size(), " null factory pointer(s) among ", count,
                      "; fix the plugin's CreateEpFactories");
  }
  for (Factory& factory : factories_) NXRT_RETURN_IF_ERROR(Describe(factory));
  return Status::Ok();
}

Status PluginLibrary::Describe(Factory& f) {
  const uint32_t declared = f.factory->ort_version_supported;
  const std::string which = label_ + ": factory " + std::to_string(&f - factories_.data());
  if (declared < 22) {
    return MakeStatus(StatusCode::kFailedPrecondition, which,
                      " declares ort_version_supported = ", declared,
                      ", below 22, the first plugin-EP API; fix by setting it to "
                      "ORT_API_VERSION when building the plugin");
  }
  f.version = std::min<uint32_t>(declared, kStructApiVersion);
  OrtEpFactory& api = *f.factory;
  if (api.GetName == nullptr || api.GetSupportedDevices == nullptr) {
    return MakeStatus(StatusCode::kFailedPrecondition, which,
                      ": GetName or GetSupportedDevices is null; fix the factory's function "
                      "table");
  }
  const char* name = api.GetName(f.factory);
  f.name = name ? name : "";
  if (f.name.empty()) {
    return MakeStatus(StatusCode::kFailedPrecondition, which,
                      ": GetName returned an empty name; fix the factory");
  }
  if (api.GetVendor != nullptr) {
    const char* vendor = api.GetVendor(f.factory);
    f.vendor = vendor ? vendor : "";
  }
  if (f.version >= 23 && api.GetVersion != nullptr) {
    const char* version = api.GetVersion(f.factory);
    f.version_string = version ? version : "";
  }
  const auto& hardware = hardware_devices();
  OrtEpDevice* devices[kMaxEpDevices] = {};
  size_t count = 0;
  OrtStatus* error = api.GetSupportedDevices(f.factory, hardware.data(), hardware.size(), devices,
                                             kMaxEpDevices, &count);
  count = std::min(count, kMaxEpDevices);
  for (size_t i = 0; i < count; ++i) {
    if (devices[i] != nullptr) f.devices.push_back(devices[i]);
  }
  if (error != nullptr) {
    Status status = TakeOrtStatus(error, which + " ('" + f.name + "'): GetSupportedDevices failed");
    return Status(StatusCode::kFailedPrecondition, status.message());
  }
  return Status::Ok();
}

void PluginLibrary::Release() {
  const OrtEpApi& ep_api = HostEpApi();
  for (auto it = factories_.rbegin(); it != factories_.rend(); ++it) {
    for (auto d = it->devices.rbegin(); d != it->devices.rend(); ++d) ep_api.ReleaseEpDevice(*d);
    it->devices.clear();
    if (release_factory_ != nullptr) {
      OrtStatus* error = release_factory_(it->factory);
      if (error != nullptr) {
        Status status = TakeOrtStatus(error, label_ + ": ReleaseEpFactory failed");
        std::fprintf(stderr, "%s\n", status.message().c_str());
      }
    }
  }
  factories_.clear();
  if (handle_ != nullptr) {
    dlclose(handle_);
    handle_ = nullptr;
  }
  if (counted_virtual_) {
    CountVirtualDeviceLibrary(false);
    counted_virtual_ = false;
  }
}

}  // namespace nxrt::ort_plugin
