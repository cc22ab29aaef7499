// ep/ort_plugin/sync_stream.cpp: see sync_stream.h.
#include "ep/ort_plugin/sync_stream.h"

#include <string>

#include "ep/ort_plugin/api_internal.h"
#include "ep/ort_plugin/api_table.h"

OrtSyncStream::~OrtSyncStream() {
  if (impl != nullptr) impl->Release(impl);
}

namespace nxrt::ort_plugin {

Result<std::unique_ptr<OrtSyncStream>> MakeSyncStream(OrtSyncStreamImpl* impl,
                                                      std::string_view label) {
  if (impl == nullptr) {
    return MakeStatus(StatusCode::kFailedPrecondition, label,
                      ": the factory is stream aware (IsStreamAware), but "
                      "CreateSyncStreamForDevice made no stream; fix the plugin: create an "
                      "OrtSyncStreamImpl, or answer IsStreamAware with false");
  }
  if (impl->ort_version_supported < 23 || impl->GetHandle == nullptr ||
      impl->CreateNotification == nullptr || impl->Flush == nullptr ||
      impl->OnSessionRunEnd == nullptr || impl->Release == nullptr) {
    const uint32_t version = impl->ort_version_supported;
    if (version >= 23 && impl->Release != nullptr) impl->Release(impl);
    return MakeStatus(StatusCode::kFailedPrecondition, label, ": its OrtSyncStreamImpl declares ",
                      "version ", version,
                      " and must be 23 or newer with GetHandle, CreateNotification, Flush, "
                      "OnSessionRunEnd and Release set; fix the plugin's CreateSyncStreamForDevice");
  }
  auto stream = std::make_unique<OrtSyncStream>();
  stream->impl = impl;
  return stream;
}

Status WaitOnHost(OrtSyncStream& stream, std::string_view label) {
  OrtSyncStreamImpl* impl = stream.impl;
  OrtSyncNotificationImpl* notification = nullptr;
  const std::string context = std::string(label) + ": ";
  if (OrtStatus* error = impl->CreateNotification(impl, &notification)) {
    return Status(StatusCode::kRuntimeError,
                  TakeOrtStatus(error, context + "OrtSyncStreamImpl::CreateNotification failed")
                      .message());
  }
  if (notification == nullptr || notification->ort_version_supported < 23 ||
      notification->Activate == nullptr || notification->WaitOnHost == nullptr ||
      notification->Release == nullptr) {
    return MakeStatus(StatusCode::kRuntimeError, context,
                      "CreateNotification gave no usable OrtSyncNotificationImpl (null, version "
                      "below 23, or null Activate/WaitOnHost/Release); fix the plugin's stream");
  }
  Status status;
  if (OrtStatus* error = notification->Activate(notification)) {
    status = Status(StatusCode::kRuntimeError,
                    TakeOrtStatus(error, context + "OrtSyncNotificationImpl::Activate failed")
                        .message());
  } else {
    stream.sync_id.fetch_add(1, std::memory_order_relaxed);
    if (OrtStatus* wait_error = notification->WaitOnHost(notification)) {
      status = Status(StatusCode::kRuntimeError,
                      TakeOrtStatus(wait_error, context + "OrtSyncNotificationImpl::WaitOnHost failed")
                          .message());
    }
  }
  notification->Release(notification);
  return status;
}

Status EndRun(OrtSyncStream& stream, std::string_view label) {
  OrtSyncStreamImpl* impl = stream.impl;
  const std::string context = std::string(label) + ": ";
  if (OrtStatus* error = impl->Flush(impl)) {
    return Status(StatusCode::kRuntimeError,
                  TakeOrtStatus(error, context + "OrtSyncStreamImpl::Flush failed").message());
  }
  if (OrtStatus* error = impl->OnSessionRunEnd(impl)) {
    return Status(
        StatusCode::kRuntimeError,
        TakeOrtStatus(error, context + "OrtSyncStreamImpl::OnSessionRunEnd failed").message());
  }
  return Status::Ok();
}

}  // namespace nxrt::ort_plugin
