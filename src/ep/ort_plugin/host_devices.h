// ep/ort_plugin/host_devices.h: the hardware devices nxrt offers plugins
// (OrtEpFactory::GetSupportedDevices, OrtApi::GetHardwareDevices), found as ONNX Runtime 1.30
// finds them on Linux. Implemented in host_devices.cpp.
//
// Layer: nxrt_ort_plugin (internal). Every path is read below `root` ("/" on a real machine; a
// folder laid out like one in tests):
//   CPU   always one, first: type CPU, device id 0, vendor and vendor id from proc/cpuinfo's
//         vendor_id ("GenuineIntel" → "Intel", 0x8086; "AuthenticAMD" → "AMD", 0x1022; another
//         vendor keeps its vendor_id text with id 0; "Unknown" when cpuinfo has none); no
//         metadata.
//   GPU   sys/class/drm/cardN (N a number; "card0-HDMI-A-1" and the like are connectors, not
//         cards): vendor and device ids from cardN/device/vendor and /device (hex, "0x10de"),
//         metadata "card_idx" = N and, when cardN/device resolves to a PCI function, "pci_bus_id"
//         (its name, "0000:01:00.0"); a card whose device/uevent says DRIVER=nvgpu (an NVIDIA
//         platform GPU, Jetson) has no id files: vendor id 0x10de, device id 0, "Discrete" = "0".
//         Then every PCI function in sys/bus/pci/devices of class 0x0300xx (VGA) or 0x0302xx (3D
//         controller) not already found through DRM: vendor and device ids from its files,
//         metadata "pci_bus_id", and "Discrete" = "1" for NVIDIA's (vendor id 0x10de).
//   NPU   sys/class/accel/accelN: vendor and device ids from accelN/device/vendor and /device,
//         metadata "accel_idx" = N and, for a PCI function, "pci_bus_id".
// Devices whose id files are missing or unreadable are skipped. The vendor name of GPUs and
// NPUs comes from the PCI vendor id (NVIDIA 0x10de, AMD 0x1002/0x1022, Intel 0x8086, Qualcomm
// 0x17cb/0x5143, Apple 0x106b, ARM 0x13b5; "" for others). Order: CPU, DRM GPUs by card index,
// PCI GPUs by bus id, NPUs by accel index.
// Source: ORT 1.30's Linux device discovery as its tests pin it (onnxruntime/test/platform/linux/
// drm_device_discovery_test.cc, pci_device_discovery_test.cc, npu_device_discovery_test.cc).
#pragma once

#include <filesystem>
#include <memory>
#include <vector>

#include "ep/ort_plugin/api_objects.h"

namespace nxrt::ort_plugin {

// This machine's devices below `root`, as described above. Never fails: what cannot be read is
// skipped.
std::vector<std::unique_ptr<OrtHardwareDevice>> EnumerateHardwareDevices(
    const std::filesystem::path& root = "/");

// The host's devices, enumerated once per process (on first use) below the folder named by the
// environment variable NXRT_DEVICE_ROOT when it is set and not empty, else below "/". The variable
// lets a test or a container show plugins a prepared device tree (tests/plugin_host/
// plugin_devices_test.cpp lays out a GPU and an NPU); ONNX Runtime always reads "/". Owned by the
// process; never released.
const std::vector<const OrtHardwareDevice*>& HostHardwareDevices();

// `devices` in the order ORT 1.30 passes them to OrtEpFactory::GetSupportedDevices: the NPUs,
// then the GPUs, then the CPU, each type in the order given (ORT sorts its discovered set by type
// this way, Environment's SortDevicesByType; within a type it keeps its hash set's order, which
// nxrt cannot reproduce and replaces by discovery order).
std::vector<const OrtHardwareDevice*> OrderForFactories(
    const std::vector<const OrtHardwareDevice*>& devices);

// OrderForFactories(HostHardwareDevices()), computed once per process.
const std::vector<const OrtHardwareDevice*>& HostDevicesForFactories();

}  // namespace nxrt::ort_plugin
