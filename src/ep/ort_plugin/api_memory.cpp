// ep/ort_plugin/api_memory.cpp: memory infos, memory devices and allocators of the host API, and
// the host's CPU allocator.
//
// Layer: nxrt_ort_plugin (internal). The host has one allocator, DefaultCpuAllocator(): 64-byte
// aligned host memory with ORT's allocator statistics. Allocators that a plugin passes in
// (AllocatorAlloc, AllocatorGetStats, ...) are plugin structs: their `version` is read first and
// no slot is called that the version does not promise (Reserve >= 18, GetStats and
// AllocOnStream >= 23, Shrink >= 25; docs/plugin_host.md, "Version gating and bad plugins").
// CreateAllocator stays a stub: ORT documents it as wrapping an OrtSession's allocator, and nxrt
// hands plugins no OrtSession.
// Source: onnxruntime_c_api.h (OrtAllocator, CreateMemoryInfo, CreateMemoryInfo_V2,
// CreateCpuMemoryInfo, CompareMemoryInfo, MemoryInfoGet*, GetAllocatorWithDefaultOptions,
// Allocator*), onnxruntime_ep_c_api.h (MemoryInfo_GetMemoryDevice, Value_GetMemoryDevice,
// MemoryDevice_*).
#include <algorithm>
#include <cstdlib>
#include <string>

#include "ep/ort_plugin/api_internal.h"
#include "ep/ort_plugin/api_table.h"

namespace nxrt::ort_plugin {
namespace {

constexpr size_t kAlignment = 64;
// Each block starts with a kAlignment-byte header holding its size, so Free can keep InUse.
constexpr size_t kHeader = kAlignment;

HostAllocator& AsHost(OrtAllocator* allocator) { return *static_cast<HostAllocator*>(allocator); }
const HostAllocator& AsHost(const OrtAllocator* allocator) {
  return *static_cast<const HostAllocator*>(allocator);
}

void UpdateMax(std::atomic<int64_t>& max, int64_t value) {
  int64_t seen = max.load(std::memory_order_relaxed);
  while (value > seen && !max.compare_exchange_weak(seen, value, std::memory_order_relaxed)) {
  }
}

// Null for size 0 or when memory is exhausted (OrtAllocator::Alloc).
void* HostAlloc(HostAllocator& host, size_t size) {
  if (size == 0 || size > SIZE_MAX - kHeader - kAlignment) return nullptr;
  const size_t total = (size + kHeader + kAlignment - 1) / kAlignment * kAlignment;
  auto* block = static_cast<char*>(std::aligned_alloc(kAlignment, total));
  if (block == nullptr) return nullptr;
  *reinterpret_cast<size_t*>(block) = size;
  const auto bytes = static_cast<int64_t>(size);
  UpdateMax(host.max_in_use, host.in_use.fetch_add(bytes, std::memory_order_relaxed) + bytes);
  host.total_allocated.fetch_add(bytes, std::memory_order_relaxed);
  host.num_allocs.fetch_add(1, std::memory_order_relaxed);
  UpdateMax(host.max_alloc_size, bytes);
  return block + kHeader;
}

void* ORT_API_CALL HostAllocImpl(OrtAllocator* self, size_t size) noexcept {
  return HostAlloc(AsHost(self), size);
}

void ORT_API_CALL HostFreeImpl(OrtAllocator* self, void* p) noexcept {
  if (p == nullptr) return;
  char* block = static_cast<char*>(p) - kHeader;
  AsHost(self).in_use.fetch_sub(static_cast<int64_t>(*reinterpret_cast<size_t*>(block)),
                                std::memory_order_relaxed);
  std::free(block);
}

const OrtMemoryInfo* ORT_API_CALL HostInfoImpl(const OrtAllocator* self) noexcept {
  return &AsHost(self).info;
}

void* ORT_API_CALL HostReserveImpl(OrtAllocator* self, size_t size) noexcept {
  void* p = HostAlloc(AsHost(self), size);
  if (p != nullptr) AsHost(self).num_reserves.fetch_add(1, std::memory_order_relaxed);
  return p;
}

// OrtAllocator::GetStats: Limit (-1: none), InUse, TotalAllocated, MaxInUse, NumAllocs,
// NumReserves, MaxAllocSize, all in bytes or counts as decimal strings.
OrtStatus* ORT_API_CALL HostGetStatsImpl(const OrtAllocator* self, OrtKeyValuePairs** out) noexcept {
  constexpr const char* kFn = "OrtAllocator::GetStats";
  if (OrtStatus* s = CheckArgs(kFn, {{"this_", self}, {"out", out}})) return s;
  return Guarded(kFn, [&]() -> OrtStatus* {
    const HostAllocator& host = AsHost(self);
    auto stats = std::make_unique<OrtKeyValuePairs>();
    stats->Set("Limit", "-1");
    stats->Set("InUse", std::to_string(host.in_use.load()));
    stats->Set("TotalAllocated", std::to_string(host.total_allocated.load()));
    stats->Set("MaxInUse", std::to_string(host.max_in_use.load()));
    stats->Set("NumAllocs", std::to_string(host.num_allocs.load()));
    stats->Set("NumReserves", std::to_string(host.num_reserves.load()));
    stats->Set("MaxAllocSize", std::to_string(host.max_alloc_size.load()));
    *out = stats.release();
    return nullptr;
  });
}

// Host memory needs no stream.
void* ORT_API_CALL HostAllocOnStreamImpl(OrtAllocator* self, size_t size,
                                         OrtSyncStream* /*stream*/) noexcept {
  return HostAlloc(AsHost(self), size);
}

// Nothing is cached, so nothing to give back.
OrtStatus* ORT_API_CALL HostShrinkImpl(OrtAllocator* /*self*/) noexcept { return nullptr; }

// ---- OrtMemoryInfo ----

bool ValidAllocatorType(OrtAllocatorType type) {
  return type == OrtDeviceAllocator || type == OrtArenaAllocator || type == OrtReadOnlyAllocator;
}

OrtStatus* BadAllocatorType(const char* function, OrtAllocatorType type) {
  return InvalidArgument(function, "allocator type " + std::to_string(type) +
                                       " is not valid; pass OrtDeviceAllocator (0), "
                                       "OrtArenaAllocator (1) or OrtReadOnlyAllocator (2)");
}

// The devices ORT's CreateMemoryInfo knows by name (vendor ids are PCI vendor ids).
struct NamedDevice {
  const char* name;
  OrtMemoryInfoDeviceType type;
  OrtDeviceMemoryType memory_type;
  uint32_t vendor_id;
};
constexpr NamedDevice kNamedDevices[] = {
    {"Cpu", OrtMemoryInfoDeviceType_CPU, OrtDeviceMemoryType_DEFAULT, 0},
    {"Cuda", OrtMemoryInfoDeviceType_GPU, OrtDeviceMemoryType_DEFAULT, 0x10DE},
    {"CudaPinned", OrtMemoryInfoDeviceType_GPU, OrtDeviceMemoryType_HOST_ACCESSIBLE, 0x10DE},
    {"Hip", OrtMemoryInfoDeviceType_GPU, OrtDeviceMemoryType_DEFAULT, 0x1002},
    {"HipPinned", OrtMemoryInfoDeviceType_GPU, OrtDeviceMemoryType_HOST_ACCESSIBLE, 0x1002},
    {"DML", OrtMemoryInfoDeviceType_GPU, OrtDeviceMemoryType_DEFAULT, 0x1414},
    {"OpenVINO_GPU", OrtMemoryInfoDeviceType_GPU, OrtDeviceMemoryType_DEFAULT, 0x8086},
    {"QnnHtpShared", OrtMemoryInfoDeviceType_CPU, OrtDeviceMemoryType_HOST_ACCESSIBLE, 0x5143},
    {"WebGPU_Buf", OrtMemoryInfoDeviceType_GPU, OrtDeviceMemoryType_DEFAULT, 0},
    {"WebGPU_Buffer", OrtMemoryInfoDeviceType_GPU, OrtDeviceMemoryType_DEFAULT, 0},
    {"WebNN_Tensor", OrtMemoryInfoDeviceType_GPU, OrtDeviceMemoryType_DEFAULT, 0},
};

// OrtApi::CreateMemoryInfo: `name` selects the device as in ONNX Runtime 1.30 ("Cpu" → host
// memory; kNamedDevices' other names → that device, id `id`). Other names are
// ORT_INVALID_ARGUMENT (CreateMemoryInfo_V2 takes any device explicitly).
OrtStatus* ORT_API_CALL CreateMemoryInfoImpl(const char* name, OrtAllocatorType type, int id,
                                             OrtMemType mem_type, OrtMemoryInfo** out) noexcept {
  constexpr const char* kFn = "OrtApi::CreateMemoryInfo";
  if (OrtStatus* s = CheckArgs(kFn, {{"name", name}, {"out", out}})) return s;
  if (OrtStatus* s = CheckEnumArg(kFn, "type", type)) return s;
  if (OrtStatus* s = CheckEnumArg(kFn, "mem_type", mem_type)) return s;
  if (!ValidAllocatorType(type)) return BadAllocatorType(kFn, type);
  if (id < 0) {
    return InvalidArgument(kFn, "device id " + std::to_string(id) + " is negative; pass 0 or more");
  }
  return Guarded(kFn, [&]() -> OrtStatus* {
    const std::string_view wanted(name);
    for (const NamedDevice& named : kNamedDevices) {
      if (wanted != named.name) continue;
      auto info = std::make_unique<OrtMemoryInfo>();
      info->name = named.name;
      info->id = id;
      info->allocator_type = type;
      info->mem_type = mem_type;
      info->device = {named.type, named.memory_type, named.vendor_id,
                      named.type == OrtMemoryInfoDeviceType_CPU ? 0 : id};
      *out = info.release();
      return nullptr;
    }
    std::string known;
    for (const NamedDevice& named : kNamedDevices) known += (known.empty() ? "" : ", ") + std::string(named.name);
    return InvalidArgument(kFn, "memory info name '" + std::string(wanted) +
                                    "' is not a device name ONNX Runtime knows (" + known +
                                    "); use CreateMemoryInfo_V2 with an explicit device type");
  });
}

// OrtApi::CreateMemoryInfo_V2. OrtMemType follows the device memory type: HOST_ACCESSIBLE is
// OrtMemTypeCPU (CPU-accessible memory of a device), DEFAULT is OrtMemTypeDefault. `alignment`
// is 0 or a power of two.
OrtStatus* ORT_API_CALL CreateMemoryInfoV2Impl(const char* name, OrtMemoryInfoDeviceType device_type,
                                               uint32_t vendor_id, int32_t device_id,
                                               OrtDeviceMemoryType mem_type, size_t alignment,
                                               OrtAllocatorType allocator_type,
                                               OrtMemoryInfo** out) noexcept {
  constexpr const char* kFn = "OrtApi::CreateMemoryInfo_V2";
  if (OrtStatus* s = CheckArgs(kFn, {{"name", name}, {"out", out}})) return s;
  if (OrtStatus* s = CheckEnumArg(kFn, "device_type", device_type)) return s;
  if (OrtStatus* s = CheckEnumArg(kFn, "mem_type", mem_type)) return s;
  if (OrtStatus* s = CheckEnumArg(kFn, "allocator_type", allocator_type)) return s;
  if (device_id < 0) {
    return InvalidArgument(kFn, "device_id " + std::to_string(device_id) +
                                    " is negative; pass 0 or more");
  }
  if ((alignment & (alignment - 1)) != 0) {
    return InvalidArgument(kFn, "alignment " + std::to_string(alignment) +
                                    " is not a power of two; pass 0 (default) or a power of two");
  }
  if (!ValidAllocatorType(allocator_type)) return BadAllocatorType(kFn, allocator_type);
  return Guarded(kFn, [&]() -> OrtStatus* {
    auto info = std::make_unique<OrtMemoryInfo>();
    info->name = name;
    info->id = device_id;
    info->allocator_type = allocator_type;
    info->mem_type =
        mem_type == OrtDeviceMemoryType_HOST_ACCESSIBLE ? OrtMemTypeCPU : OrtMemTypeDefault;
    info->alignment = alignment;
    info->device = {device_type, mem_type, vendor_id, device_id};
    *out = info.release();
    return nullptr;
  });
}

// OrtApi::CreateCpuMemoryInfo: name "Cpu", id 0, host memory.
OrtStatus* ORT_API_CALL CreateCpuMemoryInfoImpl(OrtAllocatorType type, OrtMemType mem_type,
                                                OrtMemoryInfo** out) noexcept {
  constexpr const char* kFn = "OrtApi::CreateCpuMemoryInfo";
  if (OrtStatus* s = CheckArgs(kFn, {{"out", out}})) return s;
  if (OrtStatus* s = CheckEnumArg(kFn, "type", type)) return s;
  if (OrtStatus* s = CheckEnumArg(kFn, "mem_type", mem_type)) return s;
  if (!ValidAllocatorType(type)) return BadAllocatorType(kFn, type);
  return Guarded(kFn, [&]() -> OrtStatus* {
    auto info = std::make_unique<OrtMemoryInfo>();
    info->name = "Cpu";
    info->allocator_type = type;
    info->mem_type = mem_type;
    *out = info.release();
    return nullptr;
  });
}

// OrtApi::CompareMemoryInfo: *out = 0 when every setting is equal, else -1.
OrtStatus* ORT_API_CALL CompareMemoryInfoImpl(const OrtMemoryInfo* info1, const OrtMemoryInfo* info2,
                                              int* out) noexcept {
  if (OrtStatus* s = CheckArgs("OrtApi::CompareMemoryInfo",
                               {{"info1", info1}, {"info2", info2}, {"out", out}})) {
    return s;
  }
  const bool equal = info1->name == info2->name && info1->id == info2->id &&
                     info1->allocator_type == info2->allocator_type &&
                     info1->mem_type == info2->mem_type && info1->alignment == info2->alignment &&
                     info1->device == info2->device;
  *out = equal ? 0 : -1;
  return nullptr;
}

OrtStatus* ORT_API_CALL MemoryInfoGetNameImpl(const OrtMemoryInfo* ptr, const char** out) noexcept {
  if (OrtStatus* s = CheckArgs("OrtApi::MemoryInfoGetName", {{"ptr", ptr}, {"out", out}})) return s;
  *out = ptr->name.c_str();
  return nullptr;
}

OrtStatus* ORT_API_CALL MemoryInfoGetIdImpl(const OrtMemoryInfo* ptr, int* out) noexcept {
  if (OrtStatus* s = CheckArgs("OrtApi::MemoryInfoGetId", {{"ptr", ptr}, {"out", out}})) return s;
  *out = ptr->id;
  return nullptr;
}

OrtStatus* ORT_API_CALL MemoryInfoGetMemTypeImpl(const OrtMemoryInfo* ptr, OrtMemType* out) noexcept {
  if (OrtStatus* s = CheckArgs("OrtApi::MemoryInfoGetMemType", {{"ptr", ptr}, {"out", out}})) {
    return s;
  }
  *out = ptr->mem_type;
  return nullptr;
}

OrtStatus* ORT_API_CALL MemoryInfoGetTypeImpl(const OrtMemoryInfo* ptr,
                                              OrtAllocatorType* out) noexcept {
  if (OrtStatus* s = CheckArgs("OrtApi::MemoryInfoGetType", {{"ptr", ptr}, {"out", out}})) return s;
  *out = ptr->allocator_type;
  return nullptr;
}

// OrtApi::MemoryInfoGetDeviceType (void: null arguments leave *out untouched).
void ORT_API_CALL MemoryInfoGetDeviceTypeImpl(const OrtMemoryInfo* ptr,
                                              OrtMemoryInfoDeviceType* out) noexcept {
  if (ptr != nullptr && out != nullptr) *out = ptr->device.type;
}

// OrtApi::MemoryInfoGetDeviceMemType / MemoryInfoGetVendorId: DEFAULT / 0 for a null info.
OrtDeviceMemoryType ORT_API_CALL MemoryInfoGetDeviceMemTypeImpl(const OrtMemoryInfo* ptr) noexcept {
  return ptr != nullptr ? ptr->device.memory_type : OrtDeviceMemoryType_DEFAULT;
}
uint32_t ORT_API_CALL MemoryInfoGetVendorIdImpl(const OrtMemoryInfo* ptr) noexcept {
  return ptr != nullptr ? ptr->device.vendor_id : 0;
}

void ORT_API_CALL ReleaseMemoryInfoImpl(OrtMemoryInfo* info) noexcept {
  // The host allocator's info is not the caller's to release.
  if (info != &DefaultCpuAllocator().info) delete info;
}

// ---- allocators ----

OrtStatus* ORT_API_CALL GetAllocatorWithDefaultOptionsImpl(OrtAllocator** out) noexcept {
  if (OrtStatus* s = CheckArgs("OrtApi::GetAllocatorWithDefaultOptions", {{"out", out}})) return s;
  *out = &DefaultCpuAllocator();
  return nullptr;
}

// OrtApi::ReleaseAllocator: the allocators nxrt hands out (GetAllocatorWithDefaultOptions,
// KernelContext_GetAllocator) are process-wide; releasing one, or NULL, does nothing.
void ORT_API_CALL ReleaseAllocatorImpl(OrtAllocator* /*allocator*/) noexcept {}

// The version every allocator slot gating uses, or an error for version 0 (never set).
OrtStatus* AllocatorVersion(const char* function, const OrtAllocator* allocator,
                            uint32_t* effective) {
  if (allocator->version == 0) {
    return InvalidArgument(function, "OrtAllocator::version is 0; set it to ORT_API_VERSION");
  }
  *effective = std::min<uint32_t>(allocator->version, kStructApiVersion);
  return nullptr;
}

OrtStatus* MissingSlot(const char* function, const char* slot) {
  return InvalidArgument(function, std::string("OrtAllocator::") + slot +
                                       " is null; an allocator must set Alloc, Free and Info");
}

OrtStatus* ORT_API_CALL AllocatorAllocImpl(OrtAllocator* allocator, size_t size,
                                           void** out) noexcept {
  constexpr const char* kFn = "OrtApi::AllocatorAlloc";
  if (OrtStatus* s = CheckArgs(kFn, {{"ort_allocator", allocator}, {"out", out}})) return s;
  return Guarded(kFn, [&]() -> OrtStatus* {
    uint32_t version = 0;
    if (OrtStatus* s = AllocatorVersion(kFn, allocator, &version)) return s;
    if (allocator->Alloc == nullptr) return MissingSlot(kFn, "Alloc");
    *out = allocator->Alloc(allocator, size);
    if (*out == nullptr && size != 0) {
      return MakeOrtStatus(ORT_FAIL, std::string(kFn) + ": allocating " + std::to_string(size) +
                                         " bytes failed; free memory or allocate less");
    }
    return nullptr;
  });
}

OrtStatus* ORT_API_CALL AllocatorFreeImpl(OrtAllocator* allocator, void* p) noexcept {
  constexpr const char* kFn = "OrtApi::AllocatorFree";
  if (OrtStatus* s = CheckArgs(kFn, {{"ort_allocator", allocator}})) return s;
  return Guarded(kFn, [&]() -> OrtStatus* {
    uint32_t version = 0;
    if (OrtStatus* s = AllocatorVersion(kFn, allocator, &version)) return s;
    if (allocator->Free == nullptr) return MissingSlot(kFn, "Free");
    if (p != nullptr) allocator->Free(allocator, p);
    return nullptr;
  });
}

OrtStatus* ORT_API_CALL AllocatorGetInfoImpl(const OrtAllocator* allocator,
                                             const OrtMemoryInfo** out) noexcept {
  constexpr const char* kFn = "OrtApi::AllocatorGetInfo";
  if (OrtStatus* s = CheckArgs(kFn, {{"ort_allocator", allocator}, {"out", out}})) return s;
  return Guarded(kFn, [&]() -> OrtStatus* {
    uint32_t version = 0;
    if (OrtStatus* s = AllocatorVersion(kFn, allocator, &version)) return s;
    if (allocator->Info == nullptr) return MissingSlot(kFn, "Info");
    *out = allocator->Info(allocator);
    return nullptr;
  });
}

// OrtApi::AllocatorGetStats: the allocator's GetStats when its version (>= 23) promises the slot
// and it is set; otherwise an empty OrtKeyValuePairs, as ORT documents.
OrtStatus* ORT_API_CALL AllocatorGetStatsImpl(const OrtAllocator* allocator,
                                              OrtKeyValuePairs** out) noexcept {
  constexpr const char* kFn = "OrtApi::AllocatorGetStats";
  if (OrtStatus* s = CheckArgs(kFn, {{"ort_allocator", allocator}, {"out", out}})) return s;
  return Guarded(kFn, [&]() -> OrtStatus* {
    uint32_t version = 0;
    if (OrtStatus* s = AllocatorVersion(kFn, allocator, &version)) return s;
    if (version >= 23 && allocator->GetStats != nullptr) return allocator->GetStats(allocator, out);
    *out = new OrtKeyValuePairs();
    return nullptr;
  });
}

// ---- OrtMemoryDevice (OrtEpApi) ----

const OrtMemoryDevice* ORT_API_CALL MemoryInfoGetMemoryDeviceImpl(const OrtMemoryInfo* info) noexcept {
  return info != nullptr ? &info->device : nullptr;
}

// OrtEpApi::Value_GetMemoryDevice: the device of the value's memory info; values without one
// live in host memory.
const OrtMemoryDevice* ORT_API_CALL ValueGetMemoryDeviceImpl(const OrtValue* value) noexcept {
  if (value == nullptr || value->element_type == ONNX_TENSOR_ELEMENT_DATA_TYPE_UNDEFINED) {
    return nullptr;
  }
  return value->memory_info != nullptr ? &value->memory_info->device
                                       : &DefaultCpuAllocator().info.device;
}

// OrtEpApi::MemoryDevice_AreEqual: false when either is null.
bool ORT_API_CALL MemoryDeviceAreEqualImpl(const OrtMemoryDevice* a, const OrtMemoryDevice* b) noexcept {
  return a != nullptr && b != nullptr && *a == *b;
}

OrtMemoryInfoDeviceType ORT_API_CALL MemoryDeviceGetDeviceTypeImpl(const OrtMemoryDevice* d) noexcept {
  return d != nullptr ? d->type : OrtMemoryInfoDeviceType_CPU;
}
OrtDeviceMemoryType ORT_API_CALL MemoryDeviceGetMemoryTypeImpl(const OrtMemoryDevice* d) noexcept {
  return d != nullptr ? d->memory_type : OrtDeviceMemoryType_DEFAULT;
}
uint32_t ORT_API_CALL MemoryDeviceGetVendorIdImpl(const OrtMemoryDevice* d) noexcept {
  return d != nullptr ? d->vendor_id : 0;
}
uint32_t ORT_API_CALL MemoryDeviceGetDeviceIdImpl(const OrtMemoryDevice* d) noexcept {
  return d != nullptr ? static_cast<uint32_t>(d->device_id) : 0;
}

}  // namespace

HostAllocator& DefaultCpuAllocator() {
  static HostAllocator* const allocator = [] {
    auto* host = new HostAllocator();  // never freed: plugins may hold it until exit
    host->version = ORT_API_VERSION;
    host->Alloc = &HostAllocImpl;
    host->Free = &HostFreeImpl;
    host->Info = &HostInfoImpl;
    host->Reserve = &HostReserveImpl;
    host->GetStats = &HostGetStatsImpl;
    host->AllocOnStream = &HostAllocOnStreamImpl;
    host->Shrink = &HostShrinkImpl;
    host->info.name = "Cpu";
    host->info.allocator_type = OrtDeviceAllocator;
    host->info.mem_type = OrtMemTypeDefault;
    host->info.alignment = kAlignment;
    return host;
  }();
  return *allocator;
}

void InstallMemoryApi(OrtApi& api, OrtEpApi& ep_api) {
  api.CreateMemoryInfo = &CreateMemoryInfoImpl;
  api.CreateMemoryInfo_V2 = &CreateMemoryInfoV2Impl;
  api.CreateCpuMemoryInfo = &CreateCpuMemoryInfoImpl;
  api.CompareMemoryInfo = &CompareMemoryInfoImpl;
  api.MemoryInfoGetName = &MemoryInfoGetNameImpl;
  api.MemoryInfoGetId = &MemoryInfoGetIdImpl;
  api.MemoryInfoGetMemType = &MemoryInfoGetMemTypeImpl;
  api.MemoryInfoGetType = &MemoryInfoGetTypeImpl;
  api.MemoryInfoGetDeviceType = &MemoryInfoGetDeviceTypeImpl;
  api.MemoryInfoGetDeviceMemType = &MemoryInfoGetDeviceMemTypeImpl;
  api.MemoryInfoGetVendorId = &MemoryInfoGetVendorIdImpl;
  api.ReleaseMemoryInfo = &ReleaseMemoryInfoImpl;
  api.GetAllocatorWithDefaultOptions = &GetAllocatorWithDefaultOptionsImpl;
  api.ReleaseAllocator = &ReleaseAllocatorImpl;
  api.AllocatorAlloc = &AllocatorAllocImpl;
  api.AllocatorFree = &AllocatorFreeImpl;
  api.AllocatorGetInfo = &AllocatorGetInfoImpl;
  api.AllocatorGetStats = &AllocatorGetStatsImpl;
  ep_api.MemoryInfo_GetMemoryDevice = &MemoryInfoGetMemoryDeviceImpl;
  ep_api.Value_GetMemoryDevice = &ValueGetMemoryDeviceImpl;
  ep_api.MemoryDevice_AreEqual = &MemoryDeviceAreEqualImpl;
  ep_api.MemoryDevice_GetDeviceType = &MemoryDeviceGetDeviceTypeImpl;
  ep_api.MemoryDevice_GetMemoryType = &MemoryDeviceGetMemoryTypeImpl;
  ep_api.MemoryDevice_GetVendorId = &MemoryDeviceGetVendorIdImpl;
  ep_api.MemoryDevice_GetDeviceId = &MemoryDeviceGetDeviceIdImpl;
}

}  // namespace nxrt::ort_plugin
