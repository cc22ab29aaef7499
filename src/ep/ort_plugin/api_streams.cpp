// ep/ort_plugin/api_streams.cpp: sync streams in the host tables: OrtEpApi::SyncStream_GetImpl,
// SyncStream_GetSyncId, GetSyncIdForLastWaitOnSyncStream; OrtApi::CreateSyncStreamForEpDevice,
// SyncStream_GetHandle, ReleaseSyncStream, KernelContext_GetSyncStream and
// KernelContext_GetGPUComputeStream (the stream's native handle).
//
// Layer: nxrt_ort_plugin (internal). The streams are sync_stream.h's. A kernel context has a
// stream when its EP is stream aware (a run's stream, plugin_ep.cpp); otherwise both
// KernelContext functions answer NULL, as ORT does for an EP without streams. The host never
// makes one stream wait on another (each plugin EP has one stream per run and crosses to other
// EPs through host memory), so GetSyncIdForLastWaitOnSyncStream answers 0, "no sync", unless a
// wait was recorded.
// Source: onnxruntime_ep_c_api.h, onnxruntime_c_api.h (functions named above).
#include <string>

#include "ep/ort_plugin/api_internal.h"
#include "ep/ort_plugin/api_table.h"
#include "ep/ort_plugin/sync_stream.h"

namespace nxrt::ort_plugin {
namespace {

const OrtSyncStreamImpl* ORT_API_CALL SyncStreamGetImplImpl(const OrtSyncStream* stream) noexcept {
  return stream != nullptr ? stream->impl : nullptr;
}

uint64_t ORT_API_CALL SyncStreamGetSyncIdImpl(const OrtSyncStream* stream) noexcept {
  return stream != nullptr ? stream->sync_id.load(std::memory_order_relaxed) : 0;
}

uint64_t ORT_API_CALL LastWaitImpl(const OrtSyncStream* producer,
                                   const OrtSyncStream* consumer) noexcept {
  if (producer == nullptr || consumer == nullptr) return 0;
  auto* mutable_consumer = const_cast<OrtSyncStream*>(consumer);
  std::lock_guard<std::mutex> lock(mutable_consumer->mutex);
  auto it = mutable_consumer->waits.find(producer);
  return it == mutable_consumer->waits.end() ? 0 : it->second;
}

// OrtApi::CreateSyncStreamForEpDevice: a stream of `ep_device`'s factory for its default memory.
// Errors: ORT_NOT_IMPLEMENTED when the factory is not stream aware or has no device memory,
// the factory's error, or an unusable OrtSyncStreamImpl.
OrtStatus* ORT_API_CALL CreateSyncStreamForEpDeviceImpl(const OrtEpDevice* ep_device,
                                                        const OrtKeyValuePairs* stream_options,
                                                        OrtSyncStream** stream) noexcept {
  constexpr const char* kFn = "OrtApi::CreateSyncStreamForEpDevice";
  if (OrtStatus* s = CheckArgs(kFn, {{"ep_device", ep_device}, {"stream", stream}})) return s;
  return Guarded(kFn, [&]() -> OrtStatus* {
    OrtEpFactory* factory = ep_device->factory;
    const OrtMemoryInfo* memory = ep_device->MemoryInfo(OrtDeviceMemoryType_DEFAULT);
    if (factory == nullptr || factory->ort_version_supported < 23 ||
        factory->IsStreamAware == nullptr || factory->CreateSyncStreamForDevice == nullptr ||
        !factory->IsStreamAware(factory) || memory == nullptr) {
      return MakeOrtStatus(ORT_NOT_IMPLEMENTED,
                           std::string(kFn) + ": EP '" + ep_device->ep_name +
                               "' does not support OrtSyncStream (its factory is not stream "
                               "aware or its device has no memory of its own)");
    }
    OrtSyncStreamImpl* impl = nullptr;
    if (OrtStatus* error =
            factory->CreateSyncStreamForDevice(factory, &memory->device, stream_options, &impl)) {
      return error;
    }
    Result<std::unique_ptr<OrtSyncStream>> made = MakeSyncStream(impl, "EP '" + ep_device->ep_name + "'");
    if (!made.ok()) return ToOrtStatus(made.status());
    *stream = made->release();
    return nullptr;
  });
}

void* ORT_API_CALL SyncStreamGetHandleImpl(OrtSyncStream* stream) noexcept {
  return stream != nullptr ? stream->impl->GetHandle(stream->impl) : nullptr;
}

void ORT_API_CALL ReleaseSyncStreamImpl(OrtSyncStream* stream) noexcept { delete stream; }

OrtStatus* ORT_API_CALL KernelContextGetSyncStreamImpl(const OrtKernelContext* context,
                                                       OrtSyncStream** out) noexcept {
  if (OrtStatus* s = CheckArgs("OrtApi::KernelContext_GetSyncStream",
                               {{"context", context}, {"out", out}})) {
    return s;
  }
  *out = context->Stream();
  return nullptr;
}

OrtStatus* ORT_API_CALL KernelContextGetGPUComputeStreamImpl(const OrtKernelContext* context,
                                                             void** out) noexcept {
  if (OrtStatus* s = CheckArgs("OrtApi::KernelContext_GetGPUComputeStream",
                               {{"context", context}, {"out", out}})) {
    return s;
  }
  OrtSyncStream* stream = context->Stream();
  *out = stream != nullptr ? stream->impl->GetHandle(stream->impl) : nullptr;
  return nullptr;
}

}  // namespace

void InstallStreamApi(OrtApi& api, OrtEpApi& ep_api) {
  ep_api.SyncStream_GetImpl = &SyncStreamGetImplImpl;
  ep_api.SyncStream_GetSyncId = &SyncStreamGetSyncIdImpl;
  ep_api.GetSyncIdForLastWaitOnSyncStream = &LastWaitImpl;
  api.CreateSyncStreamForEpDevice = &CreateSyncStreamForEpDeviceImpl;
  api.SyncStream_GetHandle = &SyncStreamGetHandleImpl;
  api.ReleaseSyncStream = &ReleaseSyncStreamImpl;
  api.KernelContext_GetSyncStream = &KernelContextGetSyncStreamImpl;
  api.KernelContext_GetGPUComputeStream = &KernelContextGetGPUComputeStreamImpl;
}

}  // namespace nxrt::ort_plugin
