// ep/ort_plugin/host_devices.h: the hardware devices nxrt offers plugins
// (OrtEpFactory::GetSupportedDevices, OrtApi::GetHardwareDevices). Implemented in
// api_devices.cpp.
#pragma once

#include <memory>
#include <vector>

#include "ep/ort_plugin/api_objects.h"

namespace nxrt::ort_plugin {

// Enumerates this machine's devices: the CPU first, type CPU, device id 0, vendor and PCI vendor
// id from /proc/cpuinfo's vendor_id ("GenuineIntel" → "Intel", 0x8086; "AuthenticAMD" → "AMD",
// 0x1022; another vendor keeps its vendor_id text with id 0; "Unknown" when cpuinfo has none).
// No metadata: ORT documents no CPU metadata keys ("is_virtual" absent: a physical device).
std::vector<std::unique_ptr<OrtHardwareDevice>> EnumerateHostHardwareDevices();

// The host's devices, enumerated once per process: the CPU first (vendor and vendor id from
// /proc/cpuinfo). Owned by the process; never released.
const std::vector<const OrtHardwareDevice*>& HostHardwareDevices();

}  // namespace nxrt::ort_plugin
