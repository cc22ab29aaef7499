// ep/ort_plugin/device_memory.h: a plugin EP's own device memory, for plugins whose OrtEpDevice
// declares default memory that is not CPU memory (EpDevice_AddAllocatorInfo with a GPU/NPU
// OrtMemoryInfo), and the sync streams of stream-aware plugins.
//
// Layer: nxrt_ort_plugin (internal). The plugin EP keeps its values in this memory between its
// steps (ep/device_values.h): blocks come from the plugin's allocator (OrtEpFactory::
// CreateAllocator), copies between it and host memory go through the plugin's
// OrtDataTransferImpl::CopyTensors. Both factory calls are version-gated (>= 23) and the allocator
// and transfer structs are read only up to their own versions (docs/plugin_host.md, "Version
// gating and bad plugins"). The plugin EP creates the data transfer before this memory (ORT 1.30
// asks CreateDataTransfer when it registers the EP, CreateAllocator later, for the session
// state) and tells it whether the factory is stream aware once it asked (after placement). When
// it is, each run gets a stream (OrtSyncStream over the plugin's
// OrtSyncStreamImpl) that copies and kernels are given, and the host waits for a copy to host
// memory with a notification (CreateNotification, Activate, WaitOnHost), as ORT does.
#pragma once

#include <cstddef>
#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <string>

#include "ep/ort_plugin/api_objects.h"
#include "nxrt/status.h"

namespace nxrt::ort_plugin {

class PluginDeviceMemory {
 public:
  // The device memory of `factory` (effective version `factory_version`) described by
  // `device_info`, copied through `transfer` (what the factory's CreateDataTransfer returned;
  // owned by the result from the call on, released even on error). Errors
  // (kFailedPrecondition, prefixed with `label`): the factory is older than 23 or lacks
  // CreateAllocator/CreateDataTransfer, CreateAllocator fails or returns null, the allocator
  // has version 0 or null Alloc/Free, `transfer` is null, has version below 23 or null
  // CopyTensors, or CanCopy says no for host → device or device → host.
  static Result<std::unique_ptr<PluginDeviceMemory>> Create(OrtEpFactory* factory,
                                                            uint32_t factory_version,
                                                            const OrtMemoryInfo* device_info,
                                                            OrtDataTransferImpl* transfer,
                                                            std::string label);
  ~PluginDeviceMemory();
  // Releases the data transfer now (ORT releases it before the allocator); Copy must not be
  // called after.
  void ReleaseTransfer();
  PluginDeviceMemory(const PluginDeviceMemory&) = delete;
  PluginDeviceMemory& operator=(const PluginDeviceMemory&) = delete;

  const OrtMemoryInfo* info() const { return info_; }
  // The plugin's allocator for the device memory (KernelInfoGetAllocator hands it out).
  OrtAllocator* allocator() const { return allocator_; }
  // `bytes` of device memory (a 1-byte block for 0 bytes, so every tensor has an address).
  // Errors: kOutOfMemory when the plugin's allocator returns null.
  Result<void*> Allocate(size_t bytes);
  void Free(void* block);
  // True while `data` is (in) a live block of this memory from Allocate.
  bool Owns(const void* data) const;
  // Whether the factory answered IsStreamAware with true (version >= 23), as the plugin EP last
  // set it (false until it asked).
  bool stream_aware() const { return stream_aware_; }
  void set_stream_aware(bool aware) { stream_aware_ = aware; }
  // CopyTensors(src[i] → dst[i]) in one call, on `stream` (null: none) for every pair; every
  // pair has equal byte sizes. With a stream and `wait`, returns after the host waited for the
  // copy (a notification on the stream: CreateNotification, Activate, WaitOnHost, Release).
  // Errors: kRuntimeError with the plugin's message.
  Status Copy(std::span<const OrtValue*> src, std::span<OrtValue*> dst,
              OrtSyncStream* stream = nullptr, bool wait = false);

 private:
  PluginDeviceMemory() = default;
  OrtEpFactory* factory_ = nullptr;
  const OrtMemoryInfo* info_ = nullptr;
  OrtAllocator* allocator_ = nullptr;
  OrtDataTransferImpl* transfer_ = nullptr;
  std::string label_;
  bool stream_aware_ = false;
  mutable std::mutex mutex_;
  std::map<const std::byte*, size_t> blocks_;  // live blocks: start → bytes
};

}  // namespace nxrt::ort_plugin
