// ort_ep/factory.cpp: the OrtEpFactory of libnxrt_ort_ep.so and its two exported entry points,
// CreateEpFactories and ReleaseEpFactory (the only symbols the library exports, exports.map).
//
// The factory offers NxrtExecutionProvider on each CPU hardware device the host lists. The EP
// computes in host memory: no allocator, data transfer or stream of its own (CreateAllocator and
// CreateDataTransfer answer NULL, so the host uses its CPU allocator and needs no copies).
#include <new>
#include <string>
#include <utility>

#include "nxrt/version.h"
#include "ort_ep/ep.h"

namespace nxrt::ort_ep {
namespace {

struct NxrtEpFactory : OrtEpFactory {
  HostApi api;
  std::string version;
};

const char* ORT_API_CALL GetFactoryName(const OrtEpFactory*) noexcept { return kEpName; }
const char* ORT_API_CALL GetVendor(const OrtEpFactory*) noexcept { return kVendor; }
uint32_t ORT_API_CALL GetVendorId(const OrtEpFactory*) noexcept { return 0; }
const char* ORT_API_CALL GetVersion(const OrtEpFactory* this_ptr) noexcept {
  return static_cast<const NxrtEpFactory*>(this_ptr)->version.c_str();
}

OrtStatus* ORT_API_CALL GetSupportedDevices(OrtEpFactory* this_ptr,
                                            const OrtHardwareDevice* const* devices,
                                            size_t num_devices, OrtEpDevice** ep_devices,
                                            size_t max_ep_devices,
                                            size_t* num_ep_devices) noexcept {
  const HostApi& api = static_cast<const NxrtEpFactory*>(this_ptr)->api;
  *num_ep_devices = 0;
  for (size_t i = 0; i < num_devices && *num_ep_devices < max_ep_devices; ++i) {
    if (api.ort->HardwareDevice_Type(devices[i]) != OrtHardwareDeviceType_CPU) continue;
    OrtEpDevice* device = nullptr;
    if (OrtStatus* status = api.ep->CreateEpDevice(this_ptr, devices[i], nullptr, nullptr, &device)) {
      for (size_t j = 0; j < *num_ep_devices; ++j) api.ep->ReleaseEpDevice(ep_devices[j]);
      *num_ep_devices = 0;
      return status;
    }
    ep_devices[(*num_ep_devices)++] = device;
  }
  return nullptr;
}

OrtStatus* ORT_API_CALL CreateEp(OrtEpFactory* this_ptr, const OrtHardwareDevice* const*,
                                 const OrtKeyValuePairs* const*, size_t num_devices,
                                 const OrtSessionOptions* session_options,
                                 const OrtLogger* logger, OrtEp** ep) noexcept {
  const HostApi& api = static_cast<const NxrtEpFactory*>(this_ptr)->api;
  *ep = nullptr;
  if (num_devices == 0) {
    return MakeOrtStatus(*api.ort, ORT_INVALID_ARGUMENT,
                         "CreateEp got no device; select the CPU device GetSupportedDevices "
                         "offered");
  }
  EpOptions options;
  NXRT_ORT_RETURN_IF_ERROR(ReadEpOptions(*api.ort, session_options, &options));
  return NewNxrtEp(api, logger, std::move(options), ep);
}

void ORT_API_CALL ReleaseEp(OrtEpFactory*, OrtEp* ep) noexcept { DeleteNxrtEp(ep); }

OrtStatus* ORT_API_CALL ValidateCompiledModelCompatibilityInfo(
    OrtEpFactory*, const OrtHardwareDevice* const*, size_t, const char*,
    OrtCompiledModelCompatibility* compatibility) noexcept {
  *compatibility = OrtCompiledModelCompatibility_EP_NOT_APPLICABLE;
  return nullptr;
}

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

OrtStatus* CreateFactories(const OrtApiBase* api_base, OrtEpFactory** factories,
                           size_t max_factories, size_t* num_factories) {
  *num_factories = 0;
  HostApi api;
  api.ort = api_base->GetApi(ORT_API_VERSION);
  if (api.ort == nullptr) {
    const OrtApi* oldest = api_base->GetApi(1);
    if (oldest == nullptr) return nullptr;
    return oldest->CreateStatus(ORT_NOT_IMPLEMENTED,
                                "NxrtExecutionProvider: the host has no OrtApi version 29 "
                                "(GetApi(29) gave NULL); use ONNX Runtime 1.29 or newer");
  }
  api.ep = api.ort->GetEpApi();
  if (max_factories < 1) {
    return MakeOrtStatus(*api.ort, ORT_INVALID_ARGUMENT,
                         "CreateEpFactories got room for 0 factories; pass max_factories >= 1");
  }
  return Guarded(*api.ort, "CreateEpFactories", [&]() -> OrtStatus* {
    auto* factory = new NxrtEpFactory();  // value-initialised: every slot null
    factory->api = api;
    factory->version = GetVersionInfo().nxrt;
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
    factories[0] = factory;
    *num_factories = 1;
    return nullptr;
  });
}

}  // namespace
}  // namespace nxrt::ort_ep

extern "C" {

// ORT's plugin-EP entry point (onnxruntime_ep_c_api.h, CreateEpFactories): one factory.
__attribute__((visibility("default"))) OrtStatus* CreateEpFactories(
    const char*, const OrtApiBase* api_base, const OrtLogger*, OrtEpFactory** factories,
    size_t max_factories, size_t* num_factories) {
  return nxrt::ort_ep::CreateFactories(api_base, factories, max_factories, num_factories);
}

// ORT's plugin-EP exit point (ReleaseEpFactory): frees a factory CreateEpFactories made.
__attribute__((visibility("default"))) OrtStatus* ReleaseEpFactory(OrtEpFactory* factory) {
  delete static_cast<nxrt::ort_ep::NxrtEpFactory*>(factory);
  return nullptr;
}

}  // extern "C"
