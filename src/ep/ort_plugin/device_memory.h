// ep/ort_plugin/device_memory.h: a plugin EP's own device memory, for plugins whose OrtEpDevice
// declares default memory that is not CPU memory (EpDevice_AddAllocatorInfo with a GPU/NPU
// OrtMemoryInfo).
//
// Layer: nxrt_ort_plugin (internal). nxrt's runtime keeps every value in host memory; around
// each fused call of such a plugin the fused kernel (plugin_ep.cpp) moves the inputs to device
// memory allocated by the plugin's allocator (OrtEpFactory::CreateAllocator) with the plugin's
// OrtDataTransferImpl::CopyTensors, lets Compute allocate its outputs there, and copies them back.
// Both factory calls are version-gated (>= 23) and the allocator and transfer structs are read
// only up to their own versions (PLUGIN_HOST.md §3). Streams are never used (null).
#pragma once

#include <memory>
#include <span>
#include <string>

#include "ep/ort_plugin/api_objects.h"
#include "nxrt/status.h"

namespace nxrt::ort_plugin {

class PluginDeviceMemory {
 public:
  // The device memory of `factory` (effective version `factory_version`) described by
  // `device_info`. Errors (kFailedPrecondition, prefixed with `label`): the factory is older than
  // 23 or lacks CreateAllocator/CreateDataTransfer, either fails or returns null, the allocator
  // has version 0 or null Alloc/Free, the transfer has version below 23, null CopyTensors, or
  // CanCopy says no for host → device or device → host.
  static Result<std::unique_ptr<PluginDeviceMemory>> Create(OrtEpFactory* factory,
                                                            uint32_t factory_version,
                                                            const OrtMemoryInfo* device_info,
                                                            std::string label);
  ~PluginDeviceMemory();
  PluginDeviceMemory(const PluginDeviceMemory&) = delete;
  PluginDeviceMemory& operator=(const PluginDeviceMemory&) = delete;

  const OrtMemoryInfo* info() const { return info_; }
  // The plugin's allocator for the device memory (KernelInfoGetAllocator hands it out).
  OrtAllocator* allocator() const { return allocator_; }
  // `bytes` of device memory (a 1-byte block for 0 bytes, so every tensor has an address).
  // Errors: kOutOfMemory when the plugin's allocator returns null.
  Result<void*> Allocate(size_t bytes);
  void Free(void* block);
  // CopyTensors(src[i] → dst[i]) in one call; every pair has equal byte sizes. Errors:
  // kRuntimeError with the plugin's message.
  Status Copy(std::span<const OrtValue*> src, std::span<OrtValue*> dst);

 private:
  PluginDeviceMemory() = default;
  OrtEpFactory* factory_ = nullptr;
  const OrtMemoryInfo* info_ = nullptr;
  OrtAllocator* allocator_ = nullptr;
  OrtDataTransferImpl* transfer_ = nullptr;
  std::string label_;
};

}  // namespace nxrt::ort_plugin
