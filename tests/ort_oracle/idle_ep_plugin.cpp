// ort_oracle/idle_ep_plugin.cpp: a plugin EP library that registers in ONNX Runtime, offers each
// CPU hardware device as its device, and claims no node.
//
// Layer: test fixture of nxrt_ort_oracle, built against ORT's C headers only (no ORT library).
// It proves the oracle's plugin plumbing (RegisterExecutionProviderLibrary, GetEpDevices,
// SessionOptionsAppendExecutionProvider_V2, session.disable_cpu_ep_fallback) against real ORT
// before the project's own plugins exist. The EP is named "NxrtIdleEp"; its factory version is
// "1.0.0". Every function the header does not mark optional is implemented; the optional ones
// are left null, as the ABI allows.
#include <new>

#include "onnxruntime_c_api.h"

namespace {

constexpr const char* kEpName = "NxrtIdleEp";
constexpr const char* kVendor = "nxrt tests";

const OrtApi* g_ort = nullptr;
const OrtEpApi* g_ep_api = nullptr;

struct IdleEp : OrtEp {};

const char* ORT_API_CALL EpGetName(const OrtEp*) noexcept { return kEpName; }

// Claims nothing: ORT's CPU EP (when allowed) runs every node.
OrtStatus* ORT_API_CALL EpGetCapability(OrtEp*, const OrtGraph*, OrtEpGraphSupportInfo*) noexcept {
  return nullptr;
}

OrtStatus* ORT_API_CALL EpCompile(OrtEp*, const OrtGraph**, const OrtNode**, size_t,
                                  OrtNodeComputeInfo**, OrtNode**) noexcept {
  return g_ort->CreateStatus(ORT_EP_FAIL, "NxrtIdleEp claims no node, so it compiles none");
}

void ORT_API_CALL EpReleaseNodeComputeInfos(OrtEp*, OrtNodeComputeInfo**, size_t) noexcept {}

const char* ORT_API_CALL EpGetCompiledModelCompatibilityInfo(OrtEp*, const OrtGraph*) noexcept {
  return "";
}

const char* ORT_API_CALL FactoryGetName(const OrtEpFactory*) noexcept { return kEpName; }
const char* ORT_API_CALL FactoryGetVendor(const OrtEpFactory*) noexcept { return kVendor; }
uint32_t ORT_API_CALL FactoryGetVendorId(const OrtEpFactory*) noexcept { return 0; }
const char* ORT_API_CALL FactoryGetVersion(const OrtEpFactory*) noexcept { return "1.0.0"; }

OrtStatus* ORT_API_CALL FactoryGetSupportedDevices(OrtEpFactory* factory,
                                                   const OrtHardwareDevice* const* devices,
                                                   size_t num_devices, OrtEpDevice** ep_devices,
                                                   size_t max_ep_devices,
                                                   size_t* num_ep_devices) noexcept {
  *num_ep_devices = 0;
  for (size_t i = 0; i < num_devices && *num_ep_devices < max_ep_devices; ++i) {
    if (g_ort->HardwareDevice_Type(devices[i]) != OrtHardwareDeviceType_CPU) continue;
    OrtEpDevice* device = nullptr;
    if (OrtStatus* status = g_ep_api->CreateEpDevice(factory, devices[i], nullptr, nullptr, &device)) {
      return status;
    }
    ep_devices[(*num_ep_devices)++] = device;
  }
  return nullptr;
}

OrtStatus* ORT_API_CALL FactoryCreateEp(OrtEpFactory*, const OrtHardwareDevice* const*,
                                        const OrtKeyValuePairs* const*, size_t,
                                        const OrtSessionOptions*, const OrtLogger*,
                                        OrtEp** ep) noexcept {
  auto* idle = new (std::nothrow) IdleEp();  // value-initialised: every slot starts null
  if (idle == nullptr) return g_ort->CreateStatus(ORT_FAIL, "NxrtIdleEp: out of memory");
  idle->ort_version_supported = ORT_API_VERSION;
  idle->GetName = EpGetName;
  idle->GetCapability = EpGetCapability;
  idle->Compile = EpCompile;
  idle->ReleaseNodeComputeInfos = EpReleaseNodeComputeInfos;
  idle->GetCompiledModelCompatibilityInfo = EpGetCompiledModelCompatibilityInfo;
  *ep = idle;
  return nullptr;
}

void ORT_API_CALL FactoryReleaseEp(OrtEpFactory*, OrtEp* ep) noexcept {
  delete static_cast<IdleEp*>(ep);
}

OrtStatus* ORT_API_CALL FactoryValidateCompiledModelCompatibilityInfo(
    OrtEpFactory*, const OrtHardwareDevice* const*, size_t, const char*,
    OrtCompiledModelCompatibility* compatibility) noexcept {
  *compatibility = OrtCompiledModelCompatibility_EP_NOT_APPLICABLE;
  return nullptr;
}

// Null allocator, data transfer and stream: the EP uses ORT's CPU memory.
OrtStatus* ORT_API_CALL FactoryCreateAllocator(OrtEpFactory*, const OrtMemoryInfo*,
                                               const OrtKeyValuePairs*,
                                               OrtAllocator** allocator) noexcept {
  *allocator = nullptr;
  return nullptr;
}

void ORT_API_CALL FactoryReleaseAllocator(OrtEpFactory*, OrtAllocator*) noexcept {}

OrtStatus* ORT_API_CALL FactoryCreateDataTransfer(OrtEpFactory*,
                                                  OrtDataTransferImpl** data_transfer) noexcept {
  *data_transfer = nullptr;
  return nullptr;
}

bool ORT_API_CALL FactoryIsStreamAware(const OrtEpFactory*) noexcept { return false; }

OrtStatus* ORT_API_CALL FactoryCreateSyncStreamForDevice(OrtEpFactory*, const OrtMemoryDevice*,
                                                         const OrtKeyValuePairs*,
                                                         OrtSyncStreamImpl** stream) noexcept {
  *stream = nullptr;
  return nullptr;
}

OrtStatus* ORT_API_CALL FactoryGetNumCustomOpDomains(OrtEpFactory*, size_t* count) noexcept {
  *count = 0;
  return nullptr;
}

OrtStatus* ORT_API_CALL FactoryGetCustomOpDomains(OrtEpFactory*, OrtCustomOpDomain**,
                                                  size_t) noexcept {
  return nullptr;
}

OrtEpFactory* NewFactory() {
  auto* factory = new (std::nothrow) OrtEpFactory();  // every slot starts null
  if (factory == nullptr) return nullptr;
  factory->ort_version_supported = ORT_API_VERSION;
  factory->GetName = FactoryGetName;
  factory->GetVendor = FactoryGetVendor;
  factory->GetSupportedDevices = FactoryGetSupportedDevices;
  factory->CreateEp = FactoryCreateEp;
  factory->ReleaseEp = FactoryReleaseEp;
  factory->GetVendorId = FactoryGetVendorId;
  factory->GetVersion = FactoryGetVersion;
  factory->ValidateCompiledModelCompatibilityInfo = FactoryValidateCompiledModelCompatibilityInfo;
  factory->CreateAllocator = FactoryCreateAllocator;
  factory->ReleaseAllocator = FactoryReleaseAllocator;
  factory->CreateDataTransfer = FactoryCreateDataTransfer;
  factory->IsStreamAware = FactoryIsStreamAware;
  factory->CreateSyncStreamForDevice = FactoryCreateSyncStreamForDevice;
  factory->GetNumCustomOpDomains = FactoryGetNumCustomOpDomains;
  factory->GetCustomOpDomains = FactoryGetCustomOpDomains;
  return factory;
}

}  // namespace

extern "C" {

__attribute__((visibility("default"))) OrtStatus* CreateEpFactories(
    const char*, const OrtApiBase* api_base, const OrtLogger*, OrtEpFactory** factories,
    size_t max_factories, size_t* num_factories) {
  *num_factories = 0;
  g_ort = api_base->GetApi(ORT_API_VERSION);
  if (g_ort == nullptr) return nullptr;
  g_ep_api = g_ort->GetEpApi();
  if (max_factories < 1) return g_ort->CreateStatus(ORT_INVALID_ARGUMENT, "no room for a factory");
  OrtEpFactory* factory = NewFactory();
  if (factory == nullptr) return g_ort->CreateStatus(ORT_FAIL, "NxrtIdleEp: out of memory");
  factories[0] = factory;
  *num_factories = 1;
  return nullptr;
}

__attribute__((visibility("default"))) OrtStatus* ReleaseEpFactory(OrtEpFactory* factory) {
  delete factory;
  return nullptr;
}

}  // extern "C"
