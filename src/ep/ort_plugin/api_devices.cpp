// ep/ort_plugin/api_devices.cpp: hardware devices and EP devices of the host API.
//
// Layer: nxrt_ort_plugin (internal). The host hands HostHardwareDevices() (host_devices.h) to each
// factory's GetSupportedDevices; the factory answers with OrtEpDevices made by CreateEpDevice
// (which records the factory and reads its name and vendor, as ORT does) and may attach memory
// infos with EpDevice_AddAllocatorInfo. GetNumHardwareDevices/GetHardwareDevices take an OrtEnv
// in ORT; nxrt has none (CreateEnv is a stub), so the argument is ignored and may be null.
// Source: onnxruntime_c_api.h (HardwareDevice_*, EpDevice_*, GetNumHardwareDevices,
// GetHardwareDevices), onnxruntime_ep_c_api.h (CreateEpDevice, ReleaseEpDevice,
// EpDevice_AddAllocatorInfo, CreateHardwareDevice, ReleaseHardwareDevice),
// onnxruntime_ep_device_ep_metadata_keys.h.
#include <algorithm>
#include <string>

#include "ep/ort_plugin/api_internal.h"
#include "ep/ort_plugin/api_table.h"
#include "ep/ort_plugin/host_devices.h"

const OrtMemoryInfo* OrtEpDevice::MemoryInfo(OrtDeviceMemoryType mem_type) const {
  for (const OrtMemoryInfo* info : memory_infos) {
    if (info->device.memory_type == mem_type && info->allocator_type != OrtReadOnlyAllocator) {
      return info;
    }
  }
  return nullptr;
}

namespace nxrt::ort_plugin {

namespace {

// ---- OrtHardwareDevice getters (a null device reads as a CPU with nothing set) ----

OrtHardwareDeviceType ORT_API_CALL HardwareDeviceTypeImpl(const OrtHardwareDevice* d) noexcept {
  return d != nullptr ? d->type : OrtHardwareDeviceType_CPU;
}
uint32_t ORT_API_CALL HardwareDeviceVendorIdImpl(const OrtHardwareDevice* d) noexcept {
  return d != nullptr ? d->vendor_id : 0;
}
const char* ORT_API_CALL HardwareDeviceVendorImpl(const OrtHardwareDevice* d) noexcept {
  return d != nullptr ? d->vendor.c_str() : nullptr;
}
uint32_t ORT_API_CALL HardwareDeviceDeviceIdImpl(const OrtHardwareDevice* d) noexcept {
  return d != nullptr ? d->device_id : 0;
}
const OrtKeyValuePairs* ORT_API_CALL HardwareDeviceMetadataImpl(const OrtHardwareDevice* d) noexcept {
  return d != nullptr ? &d->metadata : nullptr;
}

// ---- OrtEpDevice getters (null for a null EP device) ----

const char* ORT_API_CALL EpDeviceEpNameImpl(const OrtEpDevice* d) noexcept {
  return d != nullptr ? d->ep_name.c_str() : nullptr;
}
const char* ORT_API_CALL EpDeviceEpVendorImpl(const OrtEpDevice* d) noexcept {
  return d != nullptr ? d->ep_vendor.c_str() : nullptr;
}
const OrtKeyValuePairs* ORT_API_CALL EpDeviceEpMetadataImpl(const OrtEpDevice* d) noexcept {
  return d != nullptr ? &d->ep_metadata : nullptr;
}
const OrtKeyValuePairs* ORT_API_CALL EpDeviceEpOptionsImpl(const OrtEpDevice* d) noexcept {
  return d != nullptr ? &d->ep_options : nullptr;
}
const OrtHardwareDevice* ORT_API_CALL EpDeviceDeviceImpl(const OrtEpDevice* d) noexcept {
  return d != nullptr ? d->device : nullptr;
}
// OrtApi::EpDevice_MemoryInfo: null when not set (for DEFAULT: the EP uses CPU memory) or when
// `memory_type` is no OrtDeviceMemoryType.
const OrtMemoryInfo* ORT_API_CALL EpDeviceMemoryInfoImpl(const OrtEpDevice* d,
                                                         OrtDeviceMemoryType memory_type) noexcept {
  return d != nullptr && HoldsEnumValue(memory_type) ? d->MemoryInfo(memory_type) : nullptr;
}

// OrtEpApi::CreateEpDevice: copies ep_metadata and ep_options (both optional), records the
// factory and its GetName/GetVendor (OrtEpFactory version >= 22). The device is borrowed: the
// host's hardware devices outlive every EP device.
OrtStatus* ORT_API_CALL CreateEpDeviceImpl(OrtEpFactory* ep_factory,
                                           const OrtHardwareDevice* hardware_device,
                                           const OrtKeyValuePairs* ep_metadata,
                                           const OrtKeyValuePairs* ep_options,
                                           OrtEpDevice** ep_device) noexcept {
  constexpr const char* kFn = "OrtEpApi::CreateEpDevice";
  if (OrtStatus* s = CheckArgs(kFn, {{"ep_factory", ep_factory},
                                     {"hardware_device", hardware_device},
                                     {"ep_device", ep_device}})) {
    return s;
  }
  return Guarded(kFn, [&]() -> OrtStatus* {
    if (ep_factory->ort_version_supported < 22) {
      return InvalidArgument(kFn, "OrtEpFactory::ort_version_supported is " +
                                      std::to_string(ep_factory->ort_version_supported) +
                                      ", below 22 (the first plugin-EP version); set it to "
                                      "ORT_API_VERSION");
    }
    if (ep_factory->GetName == nullptr || ep_factory->GetVendor == nullptr) {
      return InvalidArgument(kFn, "the factory leaves GetName or GetVendor null; set both");
    }
    auto device = std::make_unique<OrtEpDevice>();
    const char* name = ep_factory->GetName(ep_factory);
    const char* vendor = ep_factory->GetVendor(ep_factory);
    if (name == nullptr || name[0] == '\0') {
      return InvalidArgument(kFn, "OrtEpFactory::GetName returned an empty name; return the EP's "
                                  "name");
    }
    device->ep_name = name;
    device->ep_vendor = vendor != nullptr ? vendor : "";
    device->device = hardware_device;
    if (ep_metadata != nullptr) device->ep_metadata = *ep_metadata;
    if (ep_options != nullptr) device->ep_options = *ep_options;
    device->factory = ep_factory;
    *ep_device = device.release();
    return nullptr;
  });
}

void ORT_API_CALL ReleaseEpDeviceImpl(OrtEpDevice* device) noexcept { delete device; }

// OrtEpApi::EpDevice_AddAllocatorInfo: registers the plugin's memory info pointer (not a copy:
// CreateAllocator gets it back, as in ORT, and the plugin keeps it alive). Accepted, as ORT
// documents: OrtDeviceAllocator with DEFAULT or HOST_ACCESSIBLE device memory, and
// OrtReadOnlyAllocator with DEFAULT. A second info of the same kind replaces the first.
OrtStatus* ORT_API_CALL EpDeviceAddAllocatorInfoImpl(OrtEpDevice* ep_device,
                                                     const OrtMemoryInfo* info) noexcept {
  constexpr const char* kFn = "OrtEpApi::EpDevice_AddAllocatorInfo";
  if (OrtStatus* s = CheckArgs(kFn, {{"ep_device", ep_device}, {"allocator_memory_info", info}})) {
    return s;
  }
  return Guarded(kFn, [&]() -> OrtStatus* {
    const OrtDeviceMemoryType mem_type = info->device.memory_type;
    if (mem_type != OrtDeviceMemoryType_DEFAULT && mem_type != OrtDeviceMemoryType_HOST_ACCESSIBLE) {
      return InvalidArgument(kFn, "memory info '" + info->name + "' has device memory type " +
                                      std::to_string(mem_type) +
                                      "; pass OrtDeviceMemoryType_DEFAULT or _HOST_ACCESSIBLE");
    }
    const bool read_only = info->allocator_type == OrtReadOnlyAllocator;
    if (info->allocator_type != OrtDeviceAllocator && !read_only) {
      return InvalidArgument(kFn, "memory info '" + info->name + "' has allocator type " +
                                      std::to_string(info->allocator_type) +
                                      "; pass OrtDeviceAllocator or OrtReadOnlyAllocator");
    }
    if (read_only && mem_type != OrtDeviceMemoryType_DEFAULT) {
      return InvalidArgument(kFn, "memory info '" + info->name +
                                      "' is an OrtReadOnlyAllocator for HOST_ACCESSIBLE memory; "
                                      "read-only allocators serve DEFAULT device memory only");
    }
    auto& infos = ep_device->memory_infos;
    auto same_kind = std::find_if(infos.begin(), infos.end(), [&](const OrtMemoryInfo* existing) {
      return existing->device.memory_type == mem_type &&
             (existing->allocator_type == OrtReadOnlyAllocator) == read_only;
    });
    if (same_kind != infos.end()) {
      *same_kind = info;
    } else {
      infos.push_back(info);
    }
    return nullptr;
  });
}

// OrtEpApi::CreateHardwareDevice: a device of the plugin's own (e.g. virtual); copies
// vendor_name and metadata.
OrtStatus* ORT_API_CALL CreateHardwareDeviceImpl(OrtHardwareDeviceType type, uint32_t vendor_id,
                                                 uint32_t device_id, const char* vendor_name,
                                                 const OrtKeyValuePairs* metadata,
                                                 OrtHardwareDevice** hardware_device) noexcept {
  constexpr const char* kFn = "OrtEpApi::CreateHardwareDevice";
  if (OrtStatus* s = CheckArgs(kFn, {{"vendor_name", vendor_name},
                                     {"hardware_device", hardware_device}})) {
    return s;
  }
  if (OrtStatus* s = CheckEnumArg(kFn, "type", type)) return s;
  return Guarded(kFn, [&]() -> OrtStatus* {
    auto device = std::make_unique<OrtHardwareDevice>();
    device->type = type;
    device->vendor_id = vendor_id;
    device->device_id = device_id;
    device->vendor = vendor_name;
    if (metadata != nullptr) device->metadata = *metadata;
    *hardware_device = device.release();
    return nullptr;
  });
}

// OrtEpApi::ReleaseHardwareDevice: the host's own devices are not the caller's to release.
void ORT_API_CALL ReleaseHardwareDeviceImpl(OrtHardwareDevice* device) noexcept {
  for (const OrtHardwareDevice* host : HostHardwareDevices()) {
    if (host == device) return;
  }
  delete device;
}

OrtStatus* ORT_API_CALL GetNumHardwareDevicesImpl(const OrtEnv* /*env*/, size_t* num_devices) noexcept {
  constexpr const char* kFn = "OrtApi::GetNumHardwareDevices";
  if (OrtStatus* s = CheckArgs(kFn, {{"num_devices", num_devices}})) return s;
  return Guarded(kFn, [&]() -> OrtStatus* {
    *num_devices = HostHardwareDevices().size();
    return nullptr;
  });
}

// OrtApi::GetHardwareDevices: fills devices[0..n) and nulls the rest of the array; an array
// shorter than GetNumHardwareDevices is an error.
OrtStatus* ORT_API_CALL GetHardwareDevicesImpl(const OrtEnv* /*env*/, const OrtHardwareDevice** devices,
                                               size_t num_devices) noexcept {
  constexpr const char* kFn = "OrtApi::GetHardwareDevices";
  if (OrtStatus* s = CheckArgs(kFn, {{"devices", devices}})) return s;
  return Guarded(kFn, [&]() -> OrtStatus* {
    const auto& host = HostHardwareDevices();
    if (num_devices < host.size()) {
      return InvalidArgument(kFn, "num_devices is " + std::to_string(num_devices) + " but there are " +
                                      std::to_string(host.size()) +
                                      " devices; size the array with GetNumHardwareDevices");
    }
    for (size_t i = 0; i < num_devices; ++i) devices[i] = i < host.size() ? host[i] : nullptr;
    return nullptr;
  });
}

}  // namespace

void InstallDeviceApi(OrtApi& api, OrtEpApi& ep_api) {
  api.HardwareDevice_Type = &HardwareDeviceTypeImpl;
  api.HardwareDevice_VendorId = &HardwareDeviceVendorIdImpl;
  api.HardwareDevice_Vendor = &HardwareDeviceVendorImpl;
  api.HardwareDevice_DeviceId = &HardwareDeviceDeviceIdImpl;
  api.HardwareDevice_Metadata = &HardwareDeviceMetadataImpl;
  api.EpDevice_EpName = &EpDeviceEpNameImpl;
  api.EpDevice_EpVendor = &EpDeviceEpVendorImpl;
  api.EpDevice_EpMetadata = &EpDeviceEpMetadataImpl;
  api.EpDevice_EpOptions = &EpDeviceEpOptionsImpl;
  api.EpDevice_Device = &EpDeviceDeviceImpl;
  api.EpDevice_MemoryInfo = &EpDeviceMemoryInfoImpl;
  api.GetNumHardwareDevices = &GetNumHardwareDevicesImpl;
  api.GetHardwareDevices = &GetHardwareDevicesImpl;
  ep_api.CreateEpDevice = &CreateEpDeviceImpl;
  ep_api.ReleaseEpDevice = &ReleaseEpDeviceImpl;
  ep_api.EpDevice_AddAllocatorInfo = &EpDeviceAddAllocatorInfoImpl;
  ep_api.CreateHardwareDevice = &CreateHardwareDeviceImpl;
  ep_api.ReleaseHardwareDevice = &ReleaseHardwareDeviceImpl;
}

}  // namespace nxrt::ort_plugin
