// ep/ort_plugin/host_devices.cpp: enumerating the machine's hardware devices (see
// host_devices.h).
#include "ep/ort_plugin/host_devices.h"

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <system_error>

namespace nxrt::ort_plugin {
namespace {

namespace fs = std::filesystem;

constexpr uint32_t kNvidiaVendorId = 0x10de;

std::optional<std::string> ReadTrimmed(const fs::path& path) {
  std::ifstream file(path);
  if (!file) return std::nullopt;
  std::string text((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  text.erase(0, text.find_first_not_of(" \t\r\n"));
  text.erase(text.find_last_not_of(" \t\r\n") + 1);
  return text;
}

// A sysfs hex number ("0x10de", "10de").
std::optional<uint32_t> ReadHex(const fs::path& path) {
  std::optional<std::string> text = ReadTrimmed(path);
  if (!text) return std::nullopt;
  std::string_view digits = *text;
  if (digits.starts_with("0x") || digits.starts_with("0X")) digits.remove_prefix(2);
  uint32_t value = 0;
  auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), value, 16);
  if (error != std::errc() || end != digits.data() + digits.size() || digits.empty()) {
    return std::nullopt;
  }
  return value;
}

// N of "<prefix>N" (N all digits), or nullopt.
std::optional<size_t> IndexAfter(std::string_view name, std::string_view prefix) {
  if (!name.starts_with(prefix) || name.size() == prefix.size()) return std::nullopt;
  size_t value = 0;
  auto [end, error] = std::from_chars(name.data() + prefix.size(), name.data() + name.size(), value);
  if (error != std::errc() || end != name.data() + name.size()) return std::nullopt;
  return value;
}

// "dddd:bb:dd.f".
bool IsPciBusId(std::string_view name) {
  return name.size() == 12 && name[4] == ':' && name[7] == ':' && name[10] == '.';
}

// The PCI bus id `device` (a sysfs device link) resolves to, or "".
std::string PciBusIdOf(const fs::path& device) {
  std::error_code error;
  const fs::path target = fs::canonical(device, error);
  if (error) return "";
  const std::string name = target.filename().string();
  return IsPciBusId(name) ? name : "";
}

// The DRIVER= line of `device`/uevent, or "".
std::string DriverOf(const fs::path& device) {
  std::ifstream uevent(device / "uevent");
  std::string line;
  while (std::getline(uevent, line)) {
    if (line.rfind("DRIVER=", 0) == 0) return line.substr(7);
  }
  return "";
}

std::string VendorName(uint32_t vendor_id) {
  switch (vendor_id) {
    case 0x10de: return "NVIDIA";
    case 0x1002:
    case 0x1022: return "AMD";
    case 0x8086: return "Intel";
    case 0x17cb:
    case 0x5143: return "Qualcomm";
    case 0x106b: return "Apple";
    case 0x13b5: return "ARM";
    default: return "";
  }
}

// The entries of `dir` whose names are "<prefix>N", by N.
std::vector<std::pair<size_t, fs::path>> Indexed(const fs::path& dir, std::string_view prefix) {
  std::vector<std::pair<size_t, fs::path>> found;
  std::error_code error;
  for (fs::directory_iterator it(dir, error), end; !error && it != end; it.increment(error)) {
    if (std::optional<size_t> n = IndexAfter(it->path().filename().string(), prefix)) {
      found.emplace_back(*n, it->path());
    }
  }
  std::sort(found.begin(), found.end());
  return found;
}

std::unique_ptr<OrtHardwareDevice> Cpu(const fs::path& root) {
  auto cpu = std::make_unique<OrtHardwareDevice>();
  cpu->type = OrtHardwareDeviceType_CPU;
  cpu->device_id = 0;
  cpu->vendor = "Unknown";
  std::ifstream cpuinfo(root / "proc/cpuinfo");
  std::string line;
  while (std::getline(cpuinfo, line)) {
    if (line.rfind("vendor_id", 0) != 0) continue;
    const size_t colon = line.find(':');
    if (colon == std::string::npos) break;
    std::string vendor = line.substr(colon + 1);
    vendor.erase(0, vendor.find_first_not_of(" \t"));
    vendor.erase(vendor.find_last_not_of(" \t\r") + 1);
    if (vendor == "GenuineIntel") {
      cpu->vendor = "Intel";
      cpu->vendor_id = 0x8086;
    } else if (vendor == "AuthenticAMD") {
      cpu->vendor = "AMD";
      cpu->vendor_id = 0x1022;
    } else if (!vendor.empty()) {
      cpu->vendor = vendor;
    }
    break;
  }
  return cpu;
}

std::unique_ptr<OrtHardwareDevice> MakeHardwareDevice(OrtHardwareDeviceType type,
                                                      uint32_t vendor_id, uint32_t device_id) {
  auto device = std::make_unique<OrtHardwareDevice>();
  device->type = type;
  device->vendor_id = vendor_id;
  device->device_id = device_id;
  device->vendor = VendorName(vendor_id);
  return device;
}

// The GPUs of sys/class/drm, adding each one's PCI bus id to `bus_ids`.
void DrmGpus(const fs::path& root, std::set<std::string>& bus_ids,
             std::vector<std::unique_ptr<OrtHardwareDevice>>& out) {
  for (const auto& [index, card] : Indexed(root / "sys/class/drm", "card")) {
    const fs::path device = card / "device";
    std::unique_ptr<OrtHardwareDevice> gpu;
    const bool platform_nvidia = DriverOf(device) == "nvgpu";
    if (platform_nvidia) {
      gpu = MakeHardwareDevice(OrtHardwareDeviceType_GPU, kNvidiaVendorId, 0);
      gpu->metadata.Set("Discrete", "0");
    } else {
      std::optional<uint32_t> vendor = ReadHex(device / "vendor");
      std::optional<uint32_t> id = ReadHex(device / "device");
      if (!vendor || !id) continue;
      gpu = MakeHardwareDevice(OrtHardwareDeviceType_GPU, *vendor, *id);
    }
    gpu->metadata.Set("card_idx", std::to_string(index));
    if (std::string bus = PciBusIdOf(device); !bus.empty() && !platform_nvidia) {
      gpu->metadata.Set("pci_bus_id", bus);
      if (gpu->vendor_id == kNvidiaVendorId) gpu->metadata.Set("Discrete", "1");
      bus_ids.insert(bus);
    }
    out.push_back(std::move(gpu));
  }
}

// PCI display controllers (class 0x0300xx, 0x0302xx) that DRM did not list.
void PciGpus(const fs::path& root, const std::set<std::string>& bus_ids,
             std::vector<std::unique_ptr<OrtHardwareDevice>>& out) {
  std::vector<fs::path> functions;
  std::error_code error;
  for (fs::directory_iterator it(root / "sys/bus/pci/devices", error), end; !error && it != end;
       it.increment(error)) {
    functions.push_back(it->path());
  }
  std::sort(functions.begin(), functions.end());
  for (const fs::path& function : functions) {
    const std::string bus = function.filename().string();
    if (bus_ids.count(bus) != 0) continue;
    std::optional<uint32_t> pci_class = ReadHex(function / "class");
    if (!pci_class || ((*pci_class >> 8) != 0x0300 && (*pci_class >> 8) != 0x0302)) continue;
    std::optional<uint32_t> vendor = ReadHex(function / "vendor");
    std::optional<uint32_t> id = ReadHex(function / "device");
    if (!vendor || !id) continue;
    auto gpu = MakeHardwareDevice(OrtHardwareDeviceType_GPU, *vendor, *id);
    gpu->metadata.Set("pci_bus_id", bus);
    if (*vendor == kNvidiaVendorId) gpu->metadata.Set("Discrete", "1");
    out.push_back(std::move(gpu));
  }
}

void Npus(const fs::path& root, std::vector<std::unique_ptr<OrtHardwareDevice>>& out) {
  for (const auto& [index, accel] : Indexed(root / "sys/class/accel", "accel")) {
    const fs::path device = accel / "device";
    std::optional<uint32_t> vendor = ReadHex(device / "vendor");
    std::optional<uint32_t> id = ReadHex(device / "device");
    if (!vendor || !id) continue;
    auto npu = MakeHardwareDevice(OrtHardwareDeviceType_NPU, *vendor, *id);
    npu->metadata.Set("accel_idx", std::to_string(index));
    if (std::string bus = PciBusIdOf(device); !bus.empty()) npu->metadata.Set("pci_bus_id", bus);
    out.push_back(std::move(npu));
  }
}

}  // namespace

std::vector<std::unique_ptr<OrtHardwareDevice>> EnumerateHardwareDevices(const fs::path& root) {
  std::vector<std::unique_ptr<OrtHardwareDevice>> devices;
  devices.push_back(Cpu(root));
  std::set<std::string> bus_ids;
  DrmGpus(root, bus_ids, devices);
  PciGpus(root, bus_ids, devices);
  Npus(root, devices);
  return devices;
}

const std::vector<const OrtHardwareDevice*>& HostHardwareDevices() {
  // Never freed: plugins may hold the pointers until exit.
  static const auto* const devices = [] {
    auto* pointers = new std::vector<const OrtHardwareDevice*>();
    const char* root = std::getenv("NXRT_DEVICE_ROOT");
    for (auto& device : EnumerateHardwareDevices(root != nullptr && *root != '\0' ? root : "/")) {
      pointers->push_back(device.release());
    }
    return pointers;
  }();
  return *devices;
}

std::vector<const OrtHardwareDevice*> OrderForFactories(
    const std::vector<const OrtHardwareDevice*>& devices) {
  std::vector<const OrtHardwareDevice*> ordered;
  for (OrtHardwareDeviceType type :
       {OrtHardwareDeviceType_NPU, OrtHardwareDeviceType_GPU, OrtHardwareDeviceType_CPU}) {
    for (const OrtHardwareDevice* device : devices) {
      if (device->type == type) ordered.push_back(device);
    }
  }
  return ordered;
}

const std::vector<const OrtHardwareDevice*>& HostDevicesForFactories() {
  static const std::vector<const OrtHardwareDevice*> ordered =
      OrderForFactories(HostHardwareDevices());
  return ordered;
}

}  // namespace nxrt::ort_plugin
