// nxrt/ep_devices.h: the EP devices of ONNX Runtime plugin-EP libraries, for front ends that
// register a library by name and pick EPs by device, as ONNX Runtime 1.22+ does
// (RegisterExecutionProviderLibrary, GetEpDevices, SessionOptionsAppendExecutionProvider_V2).
//
// Public API (std only; implemented in src/runtime/ep_devices.cpp). The Python module's
// register_execution_provider_library / get_ep_devices / add_provider_for_devices use it:
//
//   auto library = nxrt::PluginEpLibrary::Load("/p/libvendor_ep.so", "vendor");
//   for (const nxrt::EpDevice& d : (*library)->devices()) print(d.ep_name, d.device.vendor);
//   options.providers.push_back((*library)->Spec("vendor_ep"));  // that EP in a session
//
// A library stays loaded while its PluginEpLibrary or a session using it lives; sessions made
// from Spec() share the loaded library (one load per absolute path and registration name).
// Source: onnxruntime_c_api.h (OrtEpDevice, OrtHardwareDevice, EpDevice_* and
// HardwareDevice_* accessors).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "nxrt/session.h"
#include "nxrt/status.h"

namespace nxrt {

// A hardware device as ONNX Runtime describes it to plugins (OrtHardwareDevice), found on Linux
// as ONNX Runtime 1.30 finds it (docs/plugin_host.md).
struct HardwareDevice {
  std::string type;        // "CPU", "GPU" or "NPU" (OrtHardwareDeviceType)
  uint32_t vendor_id = 0;  // PCI vendor id (0x8086 Intel, 0x1022 AMD, 0x10de NVIDIA); 0: unknown
  uint32_t device_id = 0;  // PCI device id; 0 for the CPU
  std::string vendor;      // e.g. "Intel"; "" when not known
  std::vector<std::pair<std::string, std::string>> metadata;  // e.g. {"pci_bus_id", "0000:01:00.0"}
};

// One EP on one hardware device (OrtEpDevice), as a plugin's factory made it.
struct EpDevice {
  std::string ep_name;    // the EP's name, e.g. "example_ep": Spec()'s argument
  std::string ep_vendor;  // the factory's vendor
  std::vector<std::pair<std::string, std::string>> ep_metadata;  // as the factory set them
  std::vector<std::pair<std::string, std::string>> ep_options;   // defaults the factory set
  HardwareDevice device;
};

// nxrt's CPU EP as ONNX Runtime's GetEpDevices lists its own first: ep_name
// "CPUExecutionProvider", ep_vendor "nxrt", on the host CPU, no metadata or options. Cannot fail.
EpDevice CpuEpDevice();

class PluginEpLibrary {
 public:
  // Loads the plugin-EP library at `path` (relative: to the working directory) under
  // `registration_name` ("" → the file name without "lib" and extension) and lists its EP
  // devices: CreateEpFactories, then per factory GetSupportedDevices with the host's hardware
  // devices. Errors: kNotFound for a missing file; kFailedPrecondition when dlopen, a symbol,
  // CreateEpFactories or GetSupportedDevices fails (naming the library, the step and the fix).
  static Result<std::shared_ptr<PluginEpLibrary>> Load(const std::string& path,
                                                       const std::string& registration_name);
  virtual ~PluginEpLibrary() = default;

  virtual const std::string& path() const = 0;  // absolute
  virtual const std::string& registration_name() const = 0;
  // Every factory's devices, in factory order, then the order GetSupportedDevices gave them.
  virtual const std::vector<EpDevice>& devices() const = 0;
  // The SessionOptions::providers entry that runs the EP `ep_name` of this library on every
  // device its factory offers for that name: type "plugin:<path>:<registration_name>", config
  // {"ep_name": ep_name}; add the EP's own options to its config. Errors: kInvalidArgument when
  // no device of the library carries `ep_name`, listing the names it has.
  virtual Result<EpSpec> Spec(const std::string& ep_name) const = 0;
};

}  // namespace nxrt
