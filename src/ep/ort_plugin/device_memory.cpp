// ep/ort_plugin/device_memory.cpp: see device_memory.h.
#include "ep/ort_plugin/device_memory.h"

#include <vector>

#include "ep/ort_plugin/api_table.h"

namespace nxrt::ort_plugin {

Result<std::unique_ptr<PluginDeviceMemory>> PluginDeviceMemory::Create(
    OrtEpFactory* factory, uint32_t factory_version, const OrtMemoryInfo* device_info,
    std::string label) {
  auto fail = [&](std::string why) {
    return Status(
        StatusCode::kFailedPrecondition,
        label + ": its device memory '" + device_info->name + "' is not host memory, " + why);
  };
  if (factory_version < 23 || factory->CreateAllocator == nullptr ||
      factory->CreateDataTransfer == nullptr) {
    return fail("but the factory offers no allocator or data transfer (OrtEpFactory version " +
                std::to_string(factory_version) +
                "); fix by implementing CreateAllocator and CreateDataTransfer");
  }
  std::unique_ptr<PluginDeviceMemory> memory(new PluginDeviceMemory());
  memory->factory_ = factory;
  memory->info_ = device_info;
  memory->label_ = std::move(label);
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
  error = factory->CreateDataTransfer(factory, &memory->transfer_);
  if (error != nullptr) {
    return Status(StatusCode::kFailedPrecondition,
                  TakeOrtStatus(error, memory->label_ + ": OrtEpFactory::CreateDataTransfer failed")
                      .message());
  }
  const OrtDataTransferImpl* t = memory->transfer_;
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
  return memory;
}

PluginDeviceMemory::~PluginDeviceMemory() {
  if (transfer_ != nullptr && transfer_->Release != nullptr) transfer_->Release(transfer_);
  if (allocator_ != nullptr && factory_->ReleaseAllocator != nullptr) {
    factory_->ReleaseAllocator(factory_, allocator_);
  }
}

Result<void*> PluginDeviceMemory::Allocate(size_t bytes) {
  void* block = allocator_->Alloc(allocator_, bytes == 0 ? 1 : bytes);
  if (block == nullptr) {
    return MakeStatus(StatusCode::kOutOfMemory, label_, ": its allocator returned null for ", bytes,
                      " bytes of '", info_->name, "' memory");
  }
  return block;
}

void PluginDeviceMemory::Free(void* block) {
  if (block != nullptr) allocator_->Free(allocator_, block);
}

Status PluginDeviceMemory::Copy(std::span<const OrtValue*> src, std::span<OrtValue*> dst) {
  if (src.empty()) return Status::Ok();
  std::vector<OrtSyncStream*> streams(src.size(), nullptr);
  OrtStatus* error = transfer_->CopyTensors(transfer_, const_cast<const OrtValue**>(src.data()),
                                            dst.data(), streams.data(), src.size());
  if (error != nullptr) {
    return Status(
        StatusCode::kRuntimeError,
        TakeOrtStatus(error, label_ + ": OrtDataTransferImpl::CopyTensors failed").message());
  }
  return Status::Ok();
}

}  // namespace nxrt::ort_plugin
