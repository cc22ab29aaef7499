// ep/ort_plugin/device_memory.cpp: see device_memory.h.
#include "ep/ort_plugin/device_memory.h"

#include <vector>

#include "ep/ort_plugin/api_table.h"
#include "ep/ort_plugin/sync_stream.h"

namespace nxrt::ort_plugin {

Result<std::unique_ptr<PluginDeviceMemory>> PluginDeviceMemory::Create(
    OrtEpFactory* factory, uint32_t factory_version, const OrtMemoryInfo* device_info,
    OrtDataTransferImpl* transfer, std::string label) {
  std::unique_ptr<PluginDeviceMemory> memory(new PluginDeviceMemory());
  memory->factory_ = factory;
  memory->info_ = device_info;
  memory->transfer_ = transfer;
  memory->label_ = std::move(label);
  auto fail = [&](std::string why) {
    return Status(StatusCode::kFailedPrecondition, memory->label_ + ": its device memory '" +
                                                       device_info->name +
                                                       "' is not host memory, " + why);
  };
  if (factory_version < 23 || factory->CreateAllocator == nullptr ||
      factory->CreateDataTransfer == nullptr) {
    return fail("but the factory offers no allocator or data transfer (OrtEpFactory version " +
                std::to_string(factory_version) +
                "); fix by implementing CreateAllocator and CreateDataTransfer");
  }
  const OrtDataTransferImpl* t = transfer;
  if (t == nullptr || t->ort_version_supported < 23 || t->CopyTensors == nullptr) {
    return fail(
        "and CreateDataTransfer returned no usable OrtDataTransferImpl (null, version "
        "below 23, or null CopyTensors)");
  }
  const OrtMemoryDevice* host = &DefaultCpuAllocator().info.device;
  const OrtMemoryDevice* device = &device_info->device;
  if (t->CanCopy != nullptr && (!t->CanCopy(t, host, device) || !t->CanCopy(t, device, host))) {
    return fail("and its data transfer cannot copy between it and host memory");
  }
  OrtStatus* error = factory->CreateAllocator(factory, device_info, nullptr, &memory->allocator_);
  if (error != nullptr) {
    return Status(
        StatusCode::kFailedPrecondition,
        TakeOrtStatus(error, memory->label_ + ": OrtEpFactory::CreateAllocator failed").message());
  }
  const OrtAllocator* a = memory->allocator_;
  if (a == nullptr || a->version == 0 || a->Alloc == nullptr || a->Free == nullptr) {
    return fail(
        "and CreateAllocator returned no usable allocator (null, version 0, or null "
        "Alloc/Free)");
  }
  return memory;
}

void PluginDeviceMemory::ReleaseTransfer() {
  if (transfer_ != nullptr && transfer_->Release != nullptr) transfer_->Release(transfer_);
  transfer_ = nullptr;
}

PluginDeviceMemory::~PluginDeviceMemory() {
  ReleaseTransfer();
  if (allocator_ != nullptr && factory_->ReleaseAllocator != nullptr) {
    factory_->ReleaseAllocator(factory_, allocator_);
  }
}

Result<void*> PluginDeviceMemory::Allocate(size_t bytes) {
  const size_t size = bytes == 0 ? 1 : bytes;
  void* block = allocator_->Alloc(allocator_, size);
  if (block == nullptr) {
    return MakeStatus(StatusCode::kOutOfMemory, label_, ": its allocator returned null for ", bytes,
                      " bytes of '", info_->name, "' memory");
  }
  std::lock_guard<std::mutex> lock(mutex_);
  blocks_[static_cast<const std::byte*>(block)] = size;
  return block;
}

void PluginDeviceMemory::Free(void* block) {
  if (block == nullptr) return;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    blocks_.erase(static_cast<const std::byte*>(block));
  }
  allocator_->Free(allocator_, block);
}

bool PluginDeviceMemory::Owns(const void* data) const {
  const auto* p = static_cast<const std::byte*>(data);
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = blocks_.upper_bound(p);
  if (it == blocks_.begin()) return false;
  --it;
  return p < it->first + it->second;
}

Status PluginDeviceMemory::Copy(std::span<const OrtValue*> src, std::span<OrtValue*> dst,
                                OrtSyncStream* stream, bool wait) {
  if (src.empty()) return Status::Ok();
  std::vector<OrtSyncStream*> streams(src.size(), stream);
  OrtStatus* error = transfer_->CopyTensors(transfer_, const_cast<const OrtValue**>(src.data()),
                                            dst.data(), streams.data(), src.size());
  if (error != nullptr) {
    return Status(
        StatusCode::kRuntimeError,
        TakeOrtStatus(error, label_ + ": OrtDataTransferImpl::CopyTensors failed").message());
  }
  if (stream == nullptr || !wait) return Status::Ok();
  return WaitOnHost(*stream, label_);
}

}  // namespace nxrt::ort_plugin
