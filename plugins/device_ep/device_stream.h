// plugins/device_ep/device_stream.h: the emulated device stream of the stream EP (the device EP
// built with -DNXRT_DEVICE_EP_STREAMS, library nxrt_stream_ep): an OrtSyncStreamImpl whose work
// runs later, so a host that reads what the stream wrote without waiting for it reads stale data.
//
// Layer: test plugin nxrt_stream_ep (ORT C headers only). Copies from device memory to CPU memory
// that CopyTensors gets with a stream are queued on it (other copies and Compute run at once);
// queued work runs when a notification the host activated after it is waited on (WaitOnHost),
// and on Flush, OnSessionRunEnd and Release. GetHandle is the stream itself; Compute checks that
// its kernel context carries a live stream of this library (KernelContext_GetGPUComputeStream
// and, through KernelContext_GetSyncStream + SyncStream_GetImpl, the same one).
#pragma once

#include <functional>

#include "example_ep/host_api.h"

namespace nxrt_device_ep {

// A new stream (version ORT_API_VERSION, every slot set), or nullptr when out of memory. The
// host releases it through its Release slot.
OrtSyncStreamImpl* NewDeviceStream(const nxrt_example_ep::HostApi& api);

// True when `handle` is a live stream of this library (GetHandle's value).
bool IsLiveDeviceStream(const void* handle);

// Queues `work` on `stream` (an OrtSyncStream the host gave CopyTensors); false when it is not
// one of this library's streams (the caller then runs the work at once).
bool Enqueue(const nxrt_example_ep::HostApi& api, OrtSyncStream* stream, std::function<void()> work);

// The stream check of Compute (DeviceMemory::check_stream): fails unless the context carries a
// live stream of this library.
OrtStatus* CheckComputeStream(const OrtApi& ort, const OrtEpApi& ep, OrtKernelContext* context);

}  // namespace nxrt_device_ep
