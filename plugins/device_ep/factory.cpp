// plugins/device_ep/factory.cpp: the device EP's factory: the example factory with the device
// memory info, its allocator and its data transfer.
#include "device_ep/factory.h"

#include <new>

#include "device_ep/device_memory.h"
#include "device_ep/device_stream.h"
#include "example_ep/factory.h"

namespace nxrt_device_ep {
namespace {

using nxrt_example_ep::ExampleEpFactory;
using nxrt_example_ep::MakeStatus;
using nxrt_example_ep::WithContext;

struct DeviceEpFactory : ExampleEpFactory {
  OrtMemoryInfo* device_info = nullptr;  // owned; device_memory.info points here
};

// An allocator for the device memory info; ORT passes back the info GetSupportedDevices added.
// Other memory infos (such as a host-accessible one, which this factory never offers) are
// refused with ORT_INVALID_ARGUMENT.
OrtStatus* ORT_API_CALL CreateAllocator(OrtEpFactory* this_ptr, const OrtMemoryInfo* memory_info,
                                        const OrtKeyValuePairs*,
                                        OrtAllocator** allocator) noexcept {
  auto& factory = *static_cast<DeviceEpFactory*>(this_ptr);
  const HostApi& api = factory.api;
  *allocator = nullptr;
  // By address, as Microsoft's reference plugin checks: the host must pass back the very
  // OrtMemoryInfo the factory registered with EpDevice_AddAllocatorInfo (ORT 1.30 does).
  if (memory_info != factory.device_info) {
    return MakeStatus(*api.ort, ORT_INVALID_ARGUMENT,
                      "Unknown memory info provided to CreateAllocator: it is not the "
                      "ExampleDevice OrtMemoryInfo this factory registered with "
                      "EpDevice_AddAllocatorInfo; fix: the host must pass that pointer back");
  }
  *allocator = NewDeviceAllocator(api, factory.device_info);
  if (*allocator == nullptr) return MakeStatus(*api.ort, ORT_FAIL, "CreateAllocator: out of memory");
  Increment(DeviceCounter::kAllocatorsCreated);
  return nullptr;
}

void ORT_API_CALL ReleaseAllocator(OrtEpFactory*, OrtAllocator* allocator) noexcept {
  if (allocator == nullptr) return;
  DeleteDeviceAllocator(allocator);
  Increment(DeviceCounter::kAllocatorsReleased);
}

#if defined(NXRT_DEVICE_EP_STREAMS)
bool ORT_API_CALL IsStreamAware(const OrtEpFactory*) noexcept { return true; }

OrtStatus* ORT_API_CALL CreateSyncStreamForDevice(OrtEpFactory* this_ptr, const OrtMemoryDevice*,
                                                  const OrtKeyValuePairs*,
                                                  OrtSyncStreamImpl** stream) noexcept {
  const auto& factory = *static_cast<const DeviceEpFactory*>(this_ptr);
  *stream = NewDeviceStream(factory.api);
  if (*stream == nullptr) {
    return MakeStatus(*factory.api.ort, ORT_FAIL, "CreateSyncStreamForDevice: out of memory");
  }
  return nullptr;
}
#endif

OrtStatus* ORT_API_CALL CreateDataTransfer(OrtEpFactory* this_ptr,
                                           OrtDataTransferImpl** data_transfer) noexcept {
  const auto& factory = *static_cast<const DeviceEpFactory*>(this_ptr);
  *data_transfer = NewDeviceDataTransfer(factory.api, factory.device_memory.device);
  if (*data_transfer == nullptr) {
    return MakeStatus(*factory.api.ort, ORT_FAIL, "CreateDataTransfer: out of memory");
  }
  return nullptr;
}

}  // namespace

OrtStatus* CreateDeviceEpFactories(const OrtApiBase* api_base, OrtEpFactory** factories,
                                   size_t max_factories, size_t* num_factories) {
  *num_factories = 0;
  HostApi api;
  if (OrtStatus* status = nxrt_example_ep::GetHostApi(api_base, &api); api.ort == nullptr) {
    return status;
  }
  if (max_factories < 1) {
    return MakeStatus(*api.ort, ORT_INVALID_ARGUMENT,
                      "CreateEpFactories got room for 0 factories; fix: pass max_factories >= 1");
  }
  auto* factory = new (std::nothrow) DeviceEpFactory();  // value-initialised: every slot null
  if (factory == nullptr) return MakeStatus(*api.ort, ORT_FAIL, "CreateEpFactories: out of memory");
  nxrt_example_ep::InitExampleEpFactory(factory, api, kDeviceEpName);
  if (OrtStatus* status = api.ort->CreateMemoryInfo_V2(
          kDeviceMemoryName, OrtMemoryInfoDeviceType_GPU, kDeviceVendorId, /*device_id=*/0,
          OrtDeviceMemoryType_DEFAULT, /*alignment=*/0, OrtDeviceAllocator,
          &factory->device_info)) {
    delete factory;
    return WithContext(*api.ort, status, "CreateEpFactories: CreateMemoryInfo_V2 failed");
  }
  factory->device_memory.info = factory->device_info;
  factory->device_memory.device = api.ep->MemoryInfo_GetMemoryDevice(factory->device_info);
  factory->device_memory.contains = DeviceMemoryContains;
  factory->CreateAllocator = CreateAllocator;
  factory->ReleaseAllocator = ReleaseAllocator;
  factory->CreateDataTransfer = CreateDataTransfer;
#if defined(NXRT_DEVICE_EP_STREAMS)
  factory->IsStreamAware = IsStreamAware;
  factory->CreateSyncStreamForDevice = CreateSyncStreamForDevice;
  factory->device_memory.check_stream = CheckComputeStream;
#endif
  factories[0] = factory;
  *num_factories = 1;
  return nullptr;
}

void ReleaseDeviceEpFactory(OrtEpFactory* factory) {
  auto* device_factory = static_cast<DeviceEpFactory*>(factory);
  if (device_factory == nullptr) return;
  device_factory->api.ort->ReleaseMemoryInfo(device_factory->device_info);
  delete device_factory;
}

}  // namespace nxrt_device_ep
