// ep/ort_plugin/sync_stream.h: OrtSyncStream, the host's side of a stream-aware plugin's
// OrtSyncStreamImpl, and the notification the host waits on.
//
// Layer: nxrt_ort_plugin (internal). A plugin EP whose factory is stream aware gets a stream per
// run (plugin_ep.cpp, from OrtEp::CreateSyncStreamForDevice or else OrtEpFactory::
// CreateSyncStreamForDevice); its kernels see it (KernelContext_GetSyncStream,
// KernelContext_GetGPUComputeStream gives the impl's handle), its copies run on it, and before
// the host reads what the stream wrote it waits on a notification: CreateNotification →
// Activate (the stream's sync id advances) → WaitOnHost → Release, as ORT's plugin stream does
// for a CPU consumer. At the end of a run the host calls Flush and OnSessionRunEnd. The
// OrtSyncNotificationImpl and OrtSyncStreamImpl structs are read by their declared version
// (>= 23; docs/plugin_host.md, "Version gating and bad plugins").
// Source: onnxruntime_ep_c_api.h (OrtSyncStreamImpl, OrtSyncNotificationImpl,
// OrtEpApi::SyncStream_GetImpl, SyncStream_GetSyncId, GetSyncIdForLastWaitOnSyncStream).
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

#include "ep/ort_plugin/api_objects.h"
#include "nxrt/status.h"

// The host's stream over a plugin's OrtSyncStreamImpl (owned: released with the stream).
struct OrtSyncStream {
  OrtSyncStreamImpl* impl = nullptr;
  std::atomic<uint64_t> sync_id{0};  // notifications activated on this stream
  std::mutex mutex;
  std::map<const OrtSyncStream*, uint64_t> waits;  // producer stream → its sync id at the last wait
  ~OrtSyncStream();
};

namespace nxrt::ort_plugin {

// A stream over `impl` (taken). Errors (kFailedPrecondition, prefixed with `label`): a null impl,
// a version below 23 or a null GetHandle/CreateNotification/Flush/OnSessionRunEnd/Release (the
// impl is released when it has Release).
Result<std::unique_ptr<OrtSyncStream>> MakeSyncStream(OrtSyncStreamImpl* impl,
                                                      std::string_view label);

// Blocks until the work queued on `stream` so far is done: a notification created on it,
// activated, waited on by the host, released. Errors: the plugin's, as kRuntimeError naming the
// function.
Status WaitOnHost(OrtSyncStream& stream, std::string_view label);

// Flush, then OnSessionRunEnd, at the end of a run. Errors: the plugin's, as kRuntimeError.
Status EndRun(OrtSyncStream& stream, std::string_view label);

}  // namespace nxrt::ort_plugin
