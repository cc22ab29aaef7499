// ep/ort_plugin/host_devices_test.cpp: device enumeration over a fake sysfs root laid out as
// Linux lays it out (this machine has no GPU or NPU), with the facts ORT 1.30's own discovery
// tests pin: DRM cards by index, platform NVIDIA GPUs, PCI display controllers DRM missed, accel
// NPUs, their metadata keys and values.
#include "ep/ort_plugin/host_devices.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>
#include <unistd.h>

namespace nxrt::ort_plugin {
namespace {

namespace fs = std::filesystem;

class FakeSysfs : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("nxrt_host_devices_" + std::to_string(getpid()));
    fs::remove_all(root_);
    fs::create_directories(root_);
  }
  void TearDown() override { fs::remove_all(root_); }

  void Write(const fs::path& relative, const std::string& text) {
    fs::create_directories((root_ / relative).parent_path());
    std::ofstream(root_ / relative) << text;
  }
  // A PCI function under sys/devices with the sys/bus/pci/devices link to it.
  fs::path PciFunction(const std::string& bus, const std::string& pci_class,
                       const std::string& vendor, const std::string& device) {
    const fs::path function = root_ / "sys/devices/pci0000:00" / bus;
    Write(function.lexically_relative(root_) / "class", pci_class + "\n");
    Write(function.lexically_relative(root_) / "vendor", vendor + "\n");
    Write(function.lexically_relative(root_) / "device", device + "\n");
    fs::create_directories(root_ / "sys/bus/pci/devices");
    fs::create_directory_symlink(function, root_ / "sys/bus/pci/devices" / bus);
    return function;
  }
  void Link(const fs::path& target, const fs::path& relative_link) {
    fs::create_directories((root_ / relative_link).parent_path());
    fs::create_directory_symlink(target, root_ / relative_link);
  }
  static std::string Meta(const OrtHardwareDevice& d, const char* key) {
    const char* value = d.metadata.Find(key);
    return value ? value : "<absent>";
  }

  fs::path root_;
};

TEST_F(FakeSysfs, CpuGpusAndNpusAsOnnxRuntimeFindsThem) {
  Write("proc/cpuinfo", "processor\t: 0\nvendor_id\t: AuthenticAMD\ncpu family\t: 25\n");
  const fs::path discrete = PciFunction("0000:01:00.0", "0x030000", "0x10de", "0x2204");
  PciFunction("0000:65:00.0", "0x030200", "0x10de", "0x20b5");  // headless: no DRM card
  PciFunction("0000:03:00.0", "0x030000", "0x1002", "0x731f");
  PciFunction("0000:02:00.0", "0x020000", "0x8086", "0x1533");  // a network controller
  const fs::path npu = PciFunction("0000:66:00.0", "0x120000", "0x8086", "0x7d1d");
  Link(discrete, "sys/class/drm/card0/device");
  Write("sys/class/drm/card1/device/uevent", "DRIVER=nvgpu\nOF_NAME=gpu\n");  // Jetson
  fs::create_directories(root_ / "sys/class/drm/card0-HDMI-A-1");           // a connector
  fs::create_directories(root_ / "sys/class/drm/card2/device");              // no ids: skipped
  Write("sys/class/drm/card3/device/uevent", "DRIVER=amdgpu\n");           // no ids: skipped
  fs::create_directories(root_ / "sys/class/drm/renderD128");
  Link(npu, "sys/class/accel/accel0/device");
  fs::create_directories(root_ / "sys/class/accel/accelabc");

  const auto devices = EnumerateHardwareDevices(root_);
  ASSERT_EQ(devices.size(), 6u);
  const OrtHardwareDevice& cpu = *devices[0];
  EXPECT_EQ(cpu.type, OrtHardwareDeviceType_CPU);
  EXPECT_EQ(cpu.vendor, "AMD");
  EXPECT_EQ(cpu.vendor_id, 0x1022u);
  EXPECT_TRUE(cpu.metadata.entries.empty());

  const OrtHardwareDevice& card0 = *devices[1];
  EXPECT_EQ(card0.type, OrtHardwareDeviceType_GPU);
  EXPECT_EQ(card0.vendor_id, 0x10deu);
  EXPECT_EQ(card0.device_id, 0x2204u);
  EXPECT_EQ(card0.vendor, "NVIDIA");
  EXPECT_EQ(Meta(card0, "card_idx"), "0");
  EXPECT_EQ(Meta(card0, "pci_bus_id"), "0000:01:00.0");
  EXPECT_EQ(Meta(card0, "Discrete"), "1");

  const OrtHardwareDevice& jetson = *devices[2];
  EXPECT_EQ(jetson.type, OrtHardwareDeviceType_GPU);
  EXPECT_EQ(jetson.vendor_id, 0x10deu);
  EXPECT_EQ(jetson.device_id, 0u);
  EXPECT_EQ(Meta(jetson, "card_idx"), "1");
  EXPECT_EQ(Meta(jetson, "Discrete"), "0");
  EXPECT_EQ(Meta(jetson, "pci_bus_id"), "<absent>");

  // PCI display controllers DRM did not list, by bus id; 0000:01:00.0 is not listed twice.
  const OrtHardwareDevice& amd = *devices[3];
  EXPECT_EQ(amd.vendor_id, 0x1002u);
  EXPECT_EQ(amd.device_id, 0x731fu);
  EXPECT_EQ(amd.vendor, "AMD");
  EXPECT_EQ(Meta(amd, "pci_bus_id"), "0000:03:00.0");
  EXPECT_EQ(Meta(amd, "Discrete"), "<absent>");
  const OrtHardwareDevice& headless = *devices[4];
  EXPECT_EQ(headless.device_id, 0x20b5u);
  EXPECT_EQ(Meta(headless, "pci_bus_id"), "0000:65:00.0");
  EXPECT_EQ(Meta(headless, "Discrete"), "1");
  EXPECT_EQ(Meta(headless, "card_idx"), "<absent>");

  const OrtHardwareDevice& accel = *devices[5];
  EXPECT_EQ(accel.type, OrtHardwareDeviceType_NPU);
  EXPECT_EQ(accel.vendor_id, 0x8086u);
  EXPECT_EQ(accel.device_id, 0x7d1du);
  EXPECT_EQ(accel.vendor, "Intel");
  EXPECT_EQ(Meta(accel, "accel_idx"), "0");
  EXPECT_EQ(Meta(accel, "pci_bus_id"), "0000:66:00.0");
}

// Factories are offered NPUs, then GPUs, then the CPU, as ORT 1.30's SortDevicesByType orders
// them; each type keeps discovery order.
TEST_F(FakeSysfs, FactoriesAreOfferedNpusThenGpusThenTheCpu) {
  Write("proc/cpuinfo", "vendor_id\t: GenuineIntel\n");
  PciFunction("0000:01:00.0", "0x030000", "0x10de", "0x2204");
  PciFunction("0000:02:00.0", "0x030200", "0x1002", "0x740f");
  Link(PciFunction("0000:66:00.0", "0x120000", "0x8086", "0x7d1d"), "sys/class/accel/accel0/device");
  const auto devices = EnumerateHardwareDevices(root_);
  std::vector<const OrtHardwareDevice*> pointers;
  for (const auto& d : devices) pointers.push_back(d.get());
  ASSERT_EQ(pointers.size(), 4u);
  const std::vector<const OrtHardwareDevice*> ordered = OrderForFactories(pointers);
  ASSERT_EQ(ordered.size(), 4u);
  EXPECT_EQ(ordered[0]->type, OrtHardwareDeviceType_NPU);
  EXPECT_EQ(ordered[1]->device_id, 0x2204u);
  EXPECT_EQ(ordered[2]->device_id, 0x740fu);
  EXPECT_EQ(ordered[3]->type, OrtHardwareDeviceType_CPU);
  EXPECT_EQ(ordered[3]->vendor, "Intel");
}

TEST_F(FakeSysfs, AnEmptyRootHasOnlyTheCpu) {
  const auto devices = EnumerateHardwareDevices(root_);
  ASSERT_EQ(devices.size(), 1u);
  EXPECT_EQ(devices[0]->type, OrtHardwareDeviceType_CPU);
  EXPECT_EQ(devices[0]->vendor, "Unknown");
}

TEST_F(FakeSysfs, BadIdFilesAreSkipped) {
  PciFunction("0000:01:00.0", "0x030000", "not-hex", "0x2204");
  Write("sys/class/accel/accel3/device/vendor", "0x8086\n");  // no device file
  EXPECT_EQ(EnumerateHardwareDevices(root_).size(), 1u);
}

// This machine: the CPU first, as /proc/cpuinfo says.
TEST(HostDevices, ThisMachineStartsWithItsCpu) {
  const auto& devices = HostHardwareDevices();
  ASSERT_FALSE(devices.empty());
  EXPECT_EQ(devices[0]->type, OrtHardwareDeviceType_CPU);
  for (size_t i = 1; i < devices.size(); ++i) {
    EXPECT_NE(devices[i]->type, OrtHardwareDeviceType_CPU);
  }
}

}  // namespace
}  // namespace nxrt::ort_plugin
