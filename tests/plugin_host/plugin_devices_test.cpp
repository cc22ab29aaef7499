// tests/plugin_host/plugin_devices_test.cpp: the hardware devices a plugin is offered when the
// machine has a GPU and an NPU. This machine has neither, so the test lays out a device tree as
// Linux does (proc/cpuinfo, a display controller behind sys/class/drm/card0, an accelerator behind
// sys/class/accel/accel0, their PCI functions under sys/bus/pci/devices) and points nxrt at it with
// NXRT_DEVICE_ROOT (src/ep/ort_plugin/host_devices.h) before anything enumerates the devices.
// The probe EP (plugins/probe_ep) records what OrtEpFactory::GetSupportedDevices reads through
// OrtApi::HardwareDevice_Type/VendorId/Vendor/DeviceId/Metadata; the expected values are those
// the tree holds, with the metadata keys ORT 1.30's Linux discovery sets (card_idx, pci_bus_id,
// Discrete for an NVIDIA PCI GPU, accel_idx). The same record on the real machine is compared
// with ORT 1.30's in plugin_fidelity_test.cpp.
#include <dlfcn.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "nxrt/session.h"

namespace nxrt {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

const std::string kProbeEp = NXRT_PROBE_EP;

void Write(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream(path) << text;
}

// A PCI function under sys/devices, linked from sys/bus/pci/devices/<bus>.
fs::path PciFunction(const fs::path& root, const std::string& bus, const std::string& pci_class,
                     const std::string& vendor, const std::string& device) {
  const fs::path function = root / "sys/devices/pci0000:00" / bus;
  Write(function / "class", pci_class + "\n");
  Write(function / "vendor", vendor + "\n");
  Write(function / "device", device + "\n");
  fs::create_directories(root / "sys/bus/pci/devices");
  fs::create_directory_symlink(function, root / "sys/bus/pci/devices" / bus);
  return function;
}

void Link(const fs::path& target, const fs::path& link) {
  fs::create_directories(link.parent_path());
  fs::create_directory_symlink(target, link);
}

TEST(PluginDevices, APluginReadsTheGpuAndNpuOfTheDeviceTree) {
  const fs::path root =
      fs::temp_directory_path() / ("nxrt_plugin_devices_" + std::to_string(getpid()));
  fs::remove_all(root);
  Write(root / "proc/cpuinfo", "processor\t: 0\nvendor_id\t: GenuineIntel\n");
  Link(PciFunction(root, "0000:01:00.0", "0x030000", "0x10de", "0x2684"),
       root / "sys/class/drm/card0/device");
  fs::create_directories(root / "sys/class/drm/card0-DP-1");  // a connector, not a card
  Link(PciFunction(root, "0000:00:0b.0", "0x120000", "0x8086", "0x7d1d"),
       root / "sys/class/accel/accel0/device");
  PciFunction(root, "0000:00:1f.6", "0x020000", "0x8086", "0x15bc");  // Ethernet: not a device
  ASSERT_EQ(setenv("NXRT_DEVICE_ROOT", root.c_str(), 1), 0);

  void* probe = dlopen(kProbeEp.c_str(), RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(probe, nullptr) << dlerror();
  auto record = reinterpret_cast<const char* (*)()>(dlsym(probe, "NxrtProbeEp_Record"));
  reinterpret_cast<void (*)()>(dlsym(probe, "NxrtProbeEp_Reset"))();
  {
    SessionOptions options;
    options.providers.push_back(EpSpec{"plugin:" + kProbeEp, {}, {}, {}});
    Result<std::unique_ptr<Session>> session =
        Session::Create(std::string(NXRT_EXAMPLE_EP_MODELS) + "/chain.onnx", options);
    ASSERT_TRUE(session.ok()) << session.status().ToString();
  }
  const std::string text = record();
  dlclose(probe);
  fs::remove_all(root);

  // In ORT 1.30's order for factories: NPUs, GPUs, then the CPU.
  EXPECT_THAT(text, HasSubstr("GetSupportedDevices: npu vendor_id=0x8086 vendor='Intel' "
                              "device_id=0x7d1d metadata: accel_idx=0, pci_bus_id=0000:00:0b.0\n"
                              "GetSupportedDevices: gpu vendor_id=0x10de vendor='NVIDIA' "
                              "device_id=0x2684 metadata: Discrete=1, card_idx=0, "
                              "pci_bus_id=0000:01:00.0\n"
                              "GetSupportedDevices: cpu vendor_id=0x8086 vendor='Intel' "
                              "device_id=0x0000 metadata: \n"))
      << text;
  // The example's factory offers an OrtEpDevice for CPUs only: the session ran on the CPU device.
  EXPECT_THAT(text, HasSubstr("GetCapability 'chain'")) << text;
}

}  // namespace
}  // namespace nxrt
