// plugins/device_ep/device_stream.cpp: see device_stream.h.
#include "device_ep/device_stream.h"

#include <mutex>
#include <new>
#include <set>
#include <vector>

#include "device_ep/device_memory.h"

namespace nxrt_device_ep {
namespace {

using nxrt_example_ep::HostApi;

struct DeviceStream : OrtSyncStreamImpl {
  HostApi api;
  std::mutex mutex;
  std::vector<std::function<void()>> queued;
  size_t done = 0;  // queued[0..done) ran

  // Runs the queued work up to position `until` (all of it for SIZE_MAX).
  void RunUntil(size_t until) {
    std::vector<std::function<void()>> work;
    {
      std::lock_guard<std::mutex> lock(mutex);
      const size_t end = until < queued.size() ? until : queued.size();
      for (; done < end; ++done) work.push_back(std::move(queued[done]));
    }
    for (auto& w : work) w();
  }
};

struct Notification : OrtSyncNotificationImpl {
  DeviceStream* stream = nullptr;
  size_t marker = 0;  // the stream's queue length when activated
};

std::mutex g_streams_mutex;
std::set<const void*> g_streams;

void ORT_API_CALL ReleaseNotification(OrtSyncNotificationImpl* this_ptr) noexcept {
  delete static_cast<Notification*>(this_ptr);
}

OrtStatus* ORT_API_CALL Activate(OrtSyncNotificationImpl* this_ptr) noexcept {
  auto* n = static_cast<Notification*>(this_ptr);
  std::lock_guard<std::mutex> lock(n->stream->mutex);
  n->marker = n->stream->queued.size();
  return nullptr;
}

OrtStatus* ORT_API_CALL WaitOnDevice(OrtSyncNotificationImpl*, OrtSyncStream*) noexcept {
  return nullptr;  // one device, one queue: work on it is already ordered
}

OrtStatus* ORT_API_CALL WaitOnHost(OrtSyncNotificationImpl* this_ptr) noexcept {
  auto* n = static_cast<Notification*>(this_ptr);
  n->stream->RunUntil(n->marker);
  Increment(DeviceCounter::kHostWaits);
  return nullptr;
}

void ORT_API_CALL ReleaseStream(OrtSyncStreamImpl* this_ptr) noexcept {
  auto* stream = static_cast<DeviceStream*>(this_ptr);
  stream->RunUntil(SIZE_MAX);
  {
    std::lock_guard<std::mutex> lock(g_streams_mutex);
    g_streams.erase(stream);
  }
  Increment(DeviceCounter::kStreamsReleased);
  delete stream;
}

void* ORT_API_CALL GetHandle(OrtSyncStreamImpl* this_ptr) noexcept { return this_ptr; }

OrtStatus* ORT_API_CALL CreateNotification(OrtSyncStreamImpl* this_ptr,
                                           OrtSyncNotificationImpl** out) noexcept {
  auto* stream = static_cast<DeviceStream*>(this_ptr);
  auto* n = new (std::nothrow) Notification();
  if (n == nullptr) return stream->api.ort->CreateStatus(ORT_FAIL, "example_stream_ep: out of memory");
  n->ort_version_supported = ORT_API_VERSION;
  n->Release = ReleaseNotification;
  n->Activate = Activate;
  n->WaitOnDevice = WaitOnDevice;
  n->WaitOnHost = WaitOnHost;
  n->stream = stream;
  *out = n;
  return nullptr;
}

OrtStatus* ORT_API_CALL Flush(OrtSyncStreamImpl* this_ptr) noexcept {
  static_cast<DeviceStream*>(this_ptr)->RunUntil(SIZE_MAX);
  return nullptr;
}

OrtStatus* ORT_API_CALL OnSessionRunEnd(OrtSyncStreamImpl* this_ptr) noexcept {
  static_cast<DeviceStream*>(this_ptr)->RunUntil(SIZE_MAX);
  Increment(DeviceCounter::kStreamRunEnds);
  return nullptr;
}

}  // namespace

OrtSyncStreamImpl* NewDeviceStream(const HostApi& api) {
  auto* stream = new (std::nothrow) DeviceStream();
  if (stream == nullptr) return nullptr;
  stream->ort_version_supported = ORT_API_VERSION;
  stream->Release = ReleaseStream;
  stream->GetHandle = GetHandle;
  stream->CreateNotification = CreateNotification;
  stream->Flush = Flush;
  stream->OnSessionRunEnd = OnSessionRunEnd;
  stream->api = api;
  {
    std::lock_guard<std::mutex> lock(g_streams_mutex);
    g_streams.insert(stream);
  }
  Increment(DeviceCounter::kStreamsCreated);
  return stream;
}

bool IsLiveDeviceStream(const void* handle) {
  std::lock_guard<std::mutex> lock(g_streams_mutex);
  return g_streams.count(handle) != 0;
}

bool Enqueue(const HostApi& api, OrtSyncStream* stream, std::function<void()> work) {
  if (stream == nullptr) return false;
  const OrtSyncStreamImpl* impl = api.ep->SyncStream_GetImpl(stream);
  if (impl == nullptr || !IsLiveDeviceStream(impl)) return false;
  auto* device_stream = static_cast<DeviceStream*>(const_cast<OrtSyncStreamImpl*>(impl));
  std::lock_guard<std::mutex> lock(device_stream->mutex);
  device_stream->queued.push_back(std::move(work));
  Increment(DeviceCounter::kQueuedCopies);
  return true;
}

OrtStatus* CheckComputeStream(const OrtApi& ort, const OrtEpApi& ep, OrtKernelContext* context) {
  void* handle = nullptr;
  EXAMPLE_EP_RETURN_IF_ERROR(ort.KernelContext_GetGPUComputeStream(context, &handle));
  OrtSyncStream* stream = nullptr;
  EXAMPLE_EP_RETURN_IF_ERROR(ort.KernelContext_GetSyncStream(context, &stream));
  if (handle == nullptr || !IsLiveDeviceStream(handle) || stream == nullptr ||
      ep.SyncStream_GetImpl(stream) != handle) {
    return ort.CreateStatus(ORT_EP_FAIL,
                            "example_stream_ep: Compute got no stream of this EP "
                            "(KernelContext_GetGPUComputeStream / KernelContext_GetSyncStream); "
                            "fix: a host must give a stream-aware EP's kernels the run's stream");
  }
  Increment(DeviceCounter::kComputesOnStream);
  return nullptr;
}

}  // namespace nxrt_device_ep
