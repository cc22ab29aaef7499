// plugins/device_ep/exports.cpp: the symbols nxrt_device_ep exports: the plugin-EP entry points
// CreateEpFactories / ReleaseEpFactory, and test counters read by dlopen-ing the same library
// file. Each counts since load or the last reset, over all EPs, sessions, allocators and
// transfers of this library:
//   uint64_t NxrtDeviceEp_ComputeCalls(void)        successful Compute calls (inputs and outputs
//                                                   were in device memory)
//   uint64_t NxrtDeviceEp_CopyCalls(void)           successful CopyTensors calls
//   uint64_t NxrtDeviceEp_HostToDeviceCopies(void)  tensors CopyTensors moved CPU -> device
//   uint64_t NxrtDeviceEp_DeviceToHostCopies(void)  tensors moved device -> CPU
//   uint64_t NxrtDeviceEp_DeviceToDeviceCopies(void) tensors moved device -> device
//   uint64_t NxrtDeviceEp_AllocatorsCreated(void)   CreateAllocator calls that made one
//   uint64_t NxrtDeviceEp_AllocatorsReleased(void)  ReleaseAllocator calls
//   uint64_t NxrtDeviceEp_Allocs(void)              device blocks handed out
//   uint64_t NxrtDeviceEp_Frees(void)               device blocks freed
//   uint64_t NxrtDeviceEp_BadFrees(void)            frees of pointers that are no device block
//   uint64_t NxrtDeviceEp_RunStarts(void), NxrtDeviceEp_RunEnds(void)  OnRunStart/OnRunEnd calls
//   the stream EP's (nxrt_stream_ep, device_stream.h; 0 in nxrt_device_ep):
//   uint64_t NxrtDeviceEp_StreamsCreated(void), _StreamsReleased(void)  streams made / released
//   uint64_t NxrtDeviceEp_QueuedCopies(void)        device -> CPU copies queued on a stream
//   uint64_t NxrtDeviceEp_HostWaits(void)           WaitOnHost calls
//   uint64_t NxrtDeviceEp_StreamRunEnds(void)       OnSessionRunEnd calls
//   uint64_t NxrtDeviceEp_ComputesOnStream(void)    Compute calls given the run's stream
//   void NxrtDeviceEp_ResetCounters(void)           sets them all to 0
#include "device_ep/device_memory.h"
#include "device_ep/factory.h"
#include "example_ep/counters.h"

#define NXRT_DEVICE_EP_EXPORT extern "C" __attribute__((visibility("default")))

namespace {

using nxrt_device_ep::DeviceCounter;
using nxrt_example_ep::Counter;

}  // namespace

NXRT_DEVICE_EP_EXPORT OrtStatus* CreateEpFactories(const char*, const OrtApiBase* api_base,
                                                   const OrtLogger*, OrtEpFactory** factories,
                                                   size_t max_factories, size_t* num_factories) {
  return nxrt_device_ep::CreateDeviceEpFactories(api_base, factories, max_factories,
                                                 num_factories);
}

NXRT_DEVICE_EP_EXPORT OrtStatus* ReleaseEpFactory(OrtEpFactory* factory) {
  nxrt_device_ep::ReleaseDeviceEpFactory(factory);
  return nullptr;
}

NXRT_DEVICE_EP_EXPORT uint64_t NxrtDeviceEp_ComputeCalls(void) {
  return nxrt_example_ep::Read(Counter::kComputeCalls);
}
NXRT_DEVICE_EP_EXPORT uint64_t NxrtDeviceEp_RunStarts(void) {
  return nxrt_example_ep::Read(Counter::kRunStarts);
}
NXRT_DEVICE_EP_EXPORT uint64_t NxrtDeviceEp_RunEnds(void) {
  return nxrt_example_ep::Read(Counter::kRunEnds);
}
NXRT_DEVICE_EP_EXPORT uint64_t NxrtDeviceEp_CopyCalls(void) {
  return nxrt_device_ep::Read(DeviceCounter::kCopyCalls);
}
NXRT_DEVICE_EP_EXPORT uint64_t NxrtDeviceEp_HostToDeviceCopies(void) {
  return nxrt_device_ep::Read(DeviceCounter::kHostToDevice);
}
NXRT_DEVICE_EP_EXPORT uint64_t NxrtDeviceEp_DeviceToHostCopies(void) {
  return nxrt_device_ep::Read(DeviceCounter::kDeviceToHost);
}
NXRT_DEVICE_EP_EXPORT uint64_t NxrtDeviceEp_DeviceToDeviceCopies(void) {
  return nxrt_device_ep::Read(DeviceCounter::kDeviceToDevice);
}
NXRT_DEVICE_EP_EXPORT uint64_t NxrtDeviceEp_AllocatorsCreated(void) {
  return nxrt_device_ep::Read(DeviceCounter::kAllocatorsCreated);
}
NXRT_DEVICE_EP_EXPORT uint64_t NxrtDeviceEp_AllocatorsReleased(void) {
  return nxrt_device_ep::Read(DeviceCounter::kAllocatorsReleased);
}
NXRT_DEVICE_EP_EXPORT uint64_t NxrtDeviceEp_Allocs(void) {
  return nxrt_device_ep::Read(DeviceCounter::kAllocs);
}
NXRT_DEVICE_EP_EXPORT uint64_t NxrtDeviceEp_Frees(void) {
  return nxrt_device_ep::Read(DeviceCounter::kFrees);
}
NXRT_DEVICE_EP_EXPORT uint64_t NxrtDeviceEp_BadFrees(void) {
  return nxrt_device_ep::Read(DeviceCounter::kBadFrees);
}

NXRT_DEVICE_EP_EXPORT uint64_t NxrtDeviceEp_StreamsCreated(void) {
  return nxrt_device_ep::Read(DeviceCounter::kStreamsCreated);
}
NXRT_DEVICE_EP_EXPORT uint64_t NxrtDeviceEp_StreamsReleased(void) {
  return nxrt_device_ep::Read(DeviceCounter::kStreamsReleased);
}
NXRT_DEVICE_EP_EXPORT uint64_t NxrtDeviceEp_QueuedCopies(void) {
  return nxrt_device_ep::Read(DeviceCounter::kQueuedCopies);
}
NXRT_DEVICE_EP_EXPORT uint64_t NxrtDeviceEp_HostWaits(void) {
  return nxrt_device_ep::Read(DeviceCounter::kHostWaits);
}
NXRT_DEVICE_EP_EXPORT uint64_t NxrtDeviceEp_StreamRunEnds(void) {
  return nxrt_device_ep::Read(DeviceCounter::kStreamRunEnds);
}
NXRT_DEVICE_EP_EXPORT uint64_t NxrtDeviceEp_ComputesOnStream(void) {
  return nxrt_device_ep::Read(DeviceCounter::kComputesOnStream);
}

NXRT_DEVICE_EP_EXPORT void NxrtDeviceEp_ResetCounters(void) {
  nxrt_example_ep::ResetCounters();
  nxrt_device_ep::ResetDeviceCounters();
}
