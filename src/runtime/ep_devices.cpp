// runtime/ep_devices.cpp: nxrt/ep_devices.h over the plugin host's libraries and host devices.
#include "nxrt/ep_devices.h"

#include "ep/ort_plugin/host_devices.h"
#include "ep/ort_plugin/plugin_ep.h"
#include "ep/ort_plugin/plugin_library.h"

namespace nxrt {
namespace {

std::vector<std::pair<std::string, std::string>> Pairs(const OrtKeyValuePairs& pairs) {
  return pairs.entries;
}

HardwareDevice Describe(const OrtHardwareDevice& device) {
  HardwareDevice out;
  switch (device.type) {
    case OrtHardwareDeviceType_CPU: out.type = "CPU"; break;
    case OrtHardwareDeviceType_GPU: out.type = "GPU"; break;
    case OrtHardwareDeviceType_NPU: out.type = "NPU"; break;
  }
  out.vendor_id = device.vendor_id;
  out.device_id = device.device_id;
  out.vendor = device.vendor;
  out.metadata = Pairs(device.metadata);
  return out;
}

class LoadedLibrary final : public PluginEpLibrary {
 public:
  explicit LoadedLibrary(std::shared_ptr<ort_plugin::PluginLibrary> library)
      : library_(std::move(library)) {
    for (const ort_plugin::PluginLibrary::Factory& factory : library_->factories()) {
      for (const OrtEpDevice* device : factory.devices) {
        EpDevice d;
        d.ep_name = device->ep_name;
        d.ep_vendor = device->ep_vendor;
        d.ep_metadata = Pairs(device->ep_metadata);
        d.ep_options = Pairs(device->ep_options);
        if (device->device != nullptr) d.device = Describe(*device->device);
        devices_.push_back(std::move(d));
      }
    }
  }

  const std::string& path() const override { return library_->path(); }
  const std::string& registration_name() const override { return library_->registration_name(); }
  const std::vector<EpDevice>& devices() const override { return devices_; }

  Result<EpSpec> Spec(const std::string& ep_name) const override {
    std::string names;
    for (const EpDevice& device : devices_) {
      if (device.ep_name == ep_name) {
        EpSpec spec;
        spec.type = "plugin:" + path() + ":" + registration_name();
        spec.config.Set(std::string(ort_plugin::kEpNameOption), ep_name);
        return spec;
      }
      if (names.find("'" + device.ep_name + "'") == std::string::npos) {
        names += (names.empty() ? "'" : ", '") + device.ep_name + "'";
      }
    }
    return MakeStatus(StatusCode::kInvalidArgument, library_->label(), " (registered as '",
                      registration_name(), "') has no device of EP '", ep_name,
                      "'; its EPs: ", names.empty() ? "none" : names);
  }

 private:
  std::shared_ptr<ort_plugin::PluginLibrary> library_;
  std::vector<EpDevice> devices_;
};

}  // namespace

EpDevice CpuEpDevice() {
  EpDevice d;
  d.ep_name = "CPUExecutionProvider";
  d.ep_vendor = "nxrt";
  d.device = Describe(*ort_plugin::HostHardwareDevices().front());
  return d;
}

Result<std::shared_ptr<PluginEpLibrary>> PluginEpLibrary::Load(
    const std::string& path, const std::string& registration_name) {
  NXRT_ASSIGN_OR_RETURN(std::shared_ptr<ort_plugin::PluginLibrary> library,
                        ort_plugin::PluginLibrary::Load(path, registration_name));
  return std::shared_ptr<PluginEpLibrary>(new LoadedLibrary(std::move(library)));
}

}  // namespace nxrt
