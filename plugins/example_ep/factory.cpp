// plugins/example_ep/factory.cpp: the example EP's factory: offers each CPU hardware device and
// creates ExampleEp instances with the session's options.
#include "example_ep/factory.h"

#include <new>
#include <string>

#include "example_ep/ep.h"

namespace nxrt_example_ep {
namespace {

const char* ORT_API_CALL GetFactoryName(const OrtEpFactory* this_ptr) noexcept {
  return static_cast<const ExampleEpFactory*>(this_ptr)->ep_name;
}
const char* ORT_API_CALL GetVendor(const OrtEpFactory*) noexcept { return kVendor; }
uint32_t ORT_API_CALL GetVendorId(const OrtEpFactory*) noexcept { return 0; }
const char* ORT_API_CALL GetVersion(const OrtEpFactory*) noexcept { return kVersion; }

// One OrtEpDevice per CPU hardware device, as many as fit in `max_ep_devices`, each with the
// factory's device memory info when it has one.
OrtStatus* ORT_API_CALL GetSupportedDevices(OrtEpFactory* this_ptr,
                                            const OrtHardwareDevice* const* devices,
                                            size_t num_devices, OrtEpDevice** ep_devices,
                                            size_t max_ep_devices,
                                            size_t* num_ep_devices) noexcept {
  const auto* factory = static_cast<const ExampleEpFactory*>(this_ptr);
  const HostApi& api = factory->api;
  *num_ep_devices = 0;
  for (size_t i = 0; i < num_devices && *num_ep_devices < max_ep_devices; ++i) {
    if (api.ort->HardwareDevice_Type(devices[i]) != OrtHardwareDeviceType_CPU) continue;
    OrtEpDevice* device = nullptr;
    const char* step = "CreateEpDevice";
    OrtStatus* status = api.ep->CreateEpDevice(this_ptr, devices[i], nullptr, nullptr, &device);
    if (status == nullptr && factory->device_memory.info != nullptr) {
      step = "EpDevice_AddAllocatorInfo";
      status = api.ep->EpDevice_AddAllocatorInfo(device, factory->device_memory.info);
      if (status != nullptr) api.ep->ReleaseEpDevice(device);
    }
    if (status != nullptr) {
      // Devices made so far are not the host's yet: release them.
      for (size_t j = 0; j < *num_ep_devices; ++j) api.ep->ReleaseEpDevice(ep_devices[j]);
      *num_ep_devices = 0;
      return WithContext(*api.ort, status, std::string("GetSupportedDevices: ") + step + " failed");
    }
    ep_devices[(*num_ep_devices)++] = device;
  }
  return nullptr;
}

OrtStatus* ORT_API_CALL CreateEp(OrtEpFactory* this_ptr, const OrtHardwareDevice* const*,
                                 const OrtKeyValuePairs* const*, size_t num_devices,
                                 const OrtSessionOptions* session_options,
                                 const OrtLogger* logger, OrtEp** ep) noexcept {
  const auto* factory = static_cast<const ExampleEpFactory*>(this_ptr);
  const HostApi& api = factory->api;
  *ep = nullptr;
  if (num_devices == 0) {
    return MakeStatus(*api.ort, ORT_INVALID_ARGUMENT,
                      "CreateEp got no device; fix: select one of the devices GetSupportedDevices "
                      "offered");
  }
  EpOptions options;
  EXAMPLE_EP_RETURN_IF_ERROR(ReadEpOptions(*api.ort, factory->ep_name, session_options, &options));
  *ep = NewExampleEp(api, factory->ep_name, logger, std::move(options), factory->device_memory);
  if (*ep == nullptr) return MakeStatus(*api.ort, ORT_FAIL, "CreateEp: out of memory");
  return nullptr;
}

void ORT_API_CALL ReleaseEp(OrtEpFactory*, OrtEp* ep) noexcept { DeleteExampleEp(ep); }

// No compiled artefacts exist, so any compatibility info is not the EP's concern.
OrtStatus* ORT_API_CALL ValidateCompiledModelCompatibilityInfo(
    OrtEpFactory*, const OrtHardwareDevice* const*, size_t, const char*,
    OrtCompiledModelCompatibility* compatibility) noexcept {
  *compatibility = OrtCompiledModelCompatibility_EP_NOT_APPLICABLE;
  return nullptr;
}

// The EP works in host CPU memory: no allocator, data transfer or stream of its own.
OrtStatus* ORT_API_CALL CreateAllocator(OrtEpFactory*, const OrtMemoryInfo*,
                                        const OrtKeyValuePairs*, OrtAllocator** allocator) noexcept {
  *allocator = nullptr;
  return nullptr;
}

void ORT_API_CALL ReleaseAllocator(OrtEpFactory*, OrtAllocator*) noexcept {}

OrtStatus* ORT_API_CALL CreateDataTransfer(OrtEpFactory*,
                                           OrtDataTransferImpl** data_transfer) noexcept {
  *data_transfer = nullptr;
  return nullptr;
}

bool ORT_API_CALL IsStreamAware(const OrtEpFactory*) noexcept { return false; }

OrtStatus* ORT_API_CALL CreateSyncStreamForDevice(OrtEpFactory*, const OrtMemoryDevice*,
                                                  const OrtKeyValuePairs*,
                                                  OrtSyncStreamImpl** stream) noexcept {
  *stream = nullptr;
  return nullptr;
}

OrtStatus* ORT_API_CALL GetNumCustomOpDomains(OrtEpFactory*, size_t* num_domains) noexcept {
  *num_domains = 0;
  return nullptr;
}

OrtStatus* ORT_API_CALL GetCustomOpDomains(OrtEpFactory*, OrtCustomOpDomain**, size_t) noexcept {
  return nullptr;
}

}  // namespace

OrtStatus* GetHostApi(const OrtApiBase* api_base, HostApi* api) {
  api->ort = api_base->GetApi(ORT_API_VERSION);
  if (api->ort == nullptr) {
    // Report through the oldest table, which every host has if it has any.
    const OrtApi* oldest = api_base->GetApi(1);
    if (oldest == nullptr) return nullptr;
    return oldest->CreateStatus(ORT_NOT_IMPLEMENTED,
                                "example_ep: the host has no OrtApi version 29 (GetApi(29) gave "
                                "NULL); fix: use ONNX Runtime 1.29 or newer");
  }
  api->ep = api->ort->GetEpApi();
  return nullptr;
}

void InitExampleEpFactory(ExampleEpFactory* factory, const HostApi& api, const char* ep_name) {
  factory->api = api;
  factory->ep_name = ep_name;
  factory->ort_version_supported = ORT_API_VERSION;
  factory->GetName = GetFactoryName;
  factory->GetVendor = GetVendor;
  factory->GetSupportedDevices = GetSupportedDevices;
  factory->CreateEp = CreateEp;
  factory->ReleaseEp = ReleaseEp;
  factory->GetVendorId = GetVendorId;
  factory->GetVersion = GetVersion;
  factory->ValidateCompiledModelCompatibilityInfo = ValidateCompiledModelCompatibilityInfo;
  factory->CreateAllocator = CreateAllocator;
  factory->ReleaseAllocator = ReleaseAllocator;
  factory->CreateDataTransfer = CreateDataTransfer;
  factory->IsStreamAware = IsStreamAware;
  factory->CreateSyncStreamForDevice = CreateSyncStreamForDevice;
  factory->GetNumCustomOpDomains = GetNumCustomOpDomains;
  factory->GetCustomOpDomains = GetCustomOpDomains;
}

OrtStatus* CreateExampleEpFactories(const OrtApiBase* api_base, const char* ep_name,
                                    OrtEpFactory** factories, size_t max_factories,
                                    size_t* num_factories) {
  *num_factories = 0;
  HostApi api;
  if (OrtStatus* status = GetHostApi(api_base, &api); api.ort == nullptr) return status;
  if (max_factories < 1) {
    return MakeStatus(*api.ort, ORT_INVALID_ARGUMENT,
                      "CreateEpFactories got room for 0 factories; fix: pass max_factories >= 1");
  }
  auto* factory = new (std::nothrow) ExampleEpFactory();  // value-initialised: every slot null
  if (factory == nullptr) return MakeStatus(*api.ort, ORT_FAIL, "CreateEpFactories: out of memory");
  InitExampleEpFactory(factory, api, ep_name);
  factories[0] = factory;
  *num_factories = 1;
  return nullptr;
}

void ReleaseExampleEpFactory(OrtEpFactory* factory) {
  delete static_cast<ExampleEpFactory*>(factory);
}

}  // namespace nxrt_example_ep
