// plugins/device_ep/device_memory.h: the emulated accelerator memory of the device EP: an
// OrtAllocator whose blocks are tagged "device" memory, and the OrtDataTransferImpl that copies
// between it and CPU memory.
//
// Layer: test plugin nxrt_device_ep (ORT C headers only). The "device" memory is ordinary host
// memory from aligned malloc, but the host may only learn that through the plugin: values in it
// carry the device's OrtMemoryInfo, so a host must move data in and out with CopyTensors and
// allocate the EP's outputs with this allocator. Every block is registered while alive so that
// Compute and CopyTensors can check a pointer really lies in device memory. Counters
// (DeviceCounter) count what the host did, across all allocators and transfers of the library.
#pragma once

#include <cstdint>

#include "example_ep/host_api.h"

namespace nxrt_device_ep {

using nxrt_example_ep::HostApi;

// The EP name (factory and OrtEp; options are "ep.<name>.<key>") and the prefix of the messages
// of this file; messages from the shared example EP code start "example_ep:". The stream EP
// (-DNXRT_DEVICE_EP_STREAMS) is "example_stream_ep".
#if defined(NXRT_DEVICE_EP_STREAMS)
inline constexpr const char* kDeviceEpName = "example_stream_ep";
#else
inline constexpr const char* kDeviceEpName = "example_device_ep";
#endif
// The device memory: CreateMemoryInfo_V2(kDeviceMemoryName, OrtMemoryInfoDeviceType_GPU,
// kDeviceVendorId, 0, OrtDeviceMemoryType_DEFAULT, 0, OrtDeviceAllocator).
inline constexpr const char* kDeviceMemoryName = "ExampleDevice";
inline constexpr uint32_t kDeviceVendorId = 0xE1E1;

enum class DeviceCounter {
  kCopyCalls,           // CopyTensors calls that succeeded
  kHostToDevice,        // tensors copied from CPU memory into device memory
  kDeviceToHost,        // tensors copied from device memory into CPU memory
  kDeviceToDevice,      // tensors copied within device memory
  kAllocatorsCreated,   // OrtEpFactory::CreateAllocator calls that made an allocator
  kAllocatorsReleased,  // OrtEpFactory::ReleaseAllocator calls
  kAllocs,              // blocks handed out (Alloc, Reserve, AllocOnStream)
  kFrees,               // blocks freed
  kBadFrees,            // Free of a pointer that is not a live device block (ignored)
  // The stream EP (device_stream.h) only:
  kStreamsCreated,      // streams made by CreateSyncStreamForDevice
  kStreamsReleased,     // streams the host released
  kQueuedCopies,        // device → CPU copies queued on a stream (run later)
  kHostWaits,           // OrtSyncNotificationImpl::WaitOnHost calls
  kStreamRunEnds,       // OrtSyncStreamImpl::OnSessionRunEnd calls
  kComputesOnStream,    // Compute calls whose kernel context carried a live stream
  kCount,
};

void Increment(DeviceCounter counter);
uint64_t Read(DeviceCounter counter);
// Sets every counter to 0 (live blocks stay registered).
void ResetDeviceCounters();

// True when `data` lies inside a live block of a device allocator.
bool DeviceMemoryContains(const void* data);

// A new allocator of device memory described by `info` (which must outlive it), version
// ORT_API_VERSION with every slot of that version set, or nullptr when out of memory. Release
// with DeleteDeviceAllocator once every block is freed.
OrtAllocator* NewDeviceAllocator(const HostApi& api, const OrtMemoryInfo* info);
void DeleteDeviceAllocator(OrtAllocator* allocator);

// A new data transfer between CPU memory and `device` (the device memory's OrtMemoryDevice, which
// must outlive it), version ORT_API_VERSION, or nullptr when out of memory. The host releases it
// through its Release slot.
OrtDataTransferImpl* NewDeviceDataTransfer(const HostApi& api, const OrtMemoryDevice* device);

}  // namespace nxrt_device_ep
