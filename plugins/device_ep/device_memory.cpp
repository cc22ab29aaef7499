// plugins/device_ep/device_memory.cpp: the device allocator, the block registry and the data
// transfer of device_memory.h.
#include "device_ep/device_memory.h"

#include "device_ep/device_stream.h"

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <new>
#include <string>

namespace nxrt_device_ep {
namespace {

constexpr int kNumCounters = static_cast<int>(DeviceCounter::kCount);
std::atomic<uint64_t> g_counters[kNumCounters];

OrtStatus* DeviceStatus(const OrtApi& ort, OrtErrorCode code, const std::string& message) {
  return ort.CreateStatus(code, (std::string(kDeviceEpName) + ": " + message).c_str());
}

// Each block is [header | user bytes]; the header carries the tag that marks device memory.
constexpr size_t kAlignment = 64;
constexpr uint64_t kDeviceTag = 0xDE71CE00E1E1DE71ull;
struct alignas(kAlignment) BlockHeader {
  uint64_t tag;
  size_t size;  // user bytes
};

// Live blocks: user address -> user bytes.
std::mutex g_blocks_mutex;
std::map<uintptr_t, size_t> g_blocks;

struct DeviceAllocator : OrtAllocator {
  const OrtApi* ort = nullptr;
  const OrtMemoryInfo* info = nullptr;
  std::mutex stats_mutex;
  uint64_t num_allocs = 0;
  size_t in_use = 0;
  size_t max_in_use = 0;
  size_t total_allocated = 0;
};

// Null for size 0, as ORT's allocators do, and when out of memory.
void* AllocBlock(DeviceAllocator& allocator, size_t size) {
  if (size == 0 || size > SIZE_MAX - 2 * kAlignment) return nullptr;
  const size_t bytes = (sizeof(BlockHeader) + size + kAlignment - 1) / kAlignment * kAlignment;
  void* block = std::aligned_alloc(kAlignment, bytes);
  if (block == nullptr) return nullptr;
  auto* header = new (block) BlockHeader{kDeviceTag, size};
  void* data = header + 1;
  try {
    std::lock_guard<std::mutex> lock(g_blocks_mutex);
    g_blocks.emplace(reinterpret_cast<uintptr_t>(data), size);
  } catch (...) {
    std::free(block);
    return nullptr;
  }
  {
    std::lock_guard<std::mutex> lock(allocator.stats_mutex);
    ++allocator.num_allocs;
    allocator.in_use += size;
    allocator.total_allocated += size;
    if (allocator.in_use > allocator.max_in_use) allocator.max_in_use = allocator.in_use;
  }
  Increment(DeviceCounter::kAllocs);
  return data;
}

void* ORT_API_CALL Alloc(OrtAllocator* this_ptr, size_t size) noexcept {
  return AllocBlock(*static_cast<DeviceAllocator*>(this_ptr), size);
}

// Session-time allocations are served like run-time ones.
void* ORT_API_CALL Reserve(OrtAllocator* this_ptr, size_t size) noexcept {
  return AllocBlock(*static_cast<DeviceAllocator*>(this_ptr), size);
}

// The EP is not stream aware, so the stream (null from ORT) is not used.
void* ORT_API_CALL AllocOnStream(OrtAllocator* this_ptr, size_t size, OrtSyncStream*) noexcept {
  return AllocBlock(*static_cast<DeviceAllocator*>(this_ptr), size);
}

// A pointer that is not a live block's start is counted (kBadFrees) and left alone.
void ORT_API_CALL Free(OrtAllocator* this_ptr, void* p) noexcept {
  if (p == nullptr) return;
  auto& allocator = *static_cast<DeviceAllocator*>(this_ptr);
  size_t size = 0;
  {
    std::lock_guard<std::mutex> lock(g_blocks_mutex);
    auto it = g_blocks.find(reinterpret_cast<uintptr_t>(p));
    if (it == g_blocks.end()) {
      Increment(DeviceCounter::kBadFrees);
      return;
    }
    size = it->second;
    g_blocks.erase(it);
  }
  auto* header = static_cast<BlockHeader*>(p) - 1;
  header->tag = 0;
  std::free(header);
  {
    std::lock_guard<std::mutex> lock(allocator.stats_mutex);
    allocator.in_use -= size;
  }
  Increment(DeviceCounter::kFrees);
}

const OrtMemoryInfo* ORT_API_CALL Info(const OrtAllocator* this_ptr) noexcept {
  return static_cast<const DeviceAllocator*>(this_ptr)->info;
}

// The keys ORT documents for OrtAllocator::GetStats that a plain allocator has.
OrtStatus* ORT_API_CALL GetStats(const OrtAllocator* this_ptr, OrtKeyValuePairs** out) noexcept {
  auto& allocator = const_cast<DeviceAllocator&>(*static_cast<const DeviceAllocator*>(this_ptr));
  const OrtApi& ort = *allocator.ort;
  *out = nullptr;
  try {
    std::map<std::string, std::string> stats;
    {
      std::lock_guard<std::mutex> lock(allocator.stats_mutex);
      stats = {{"Limit", "-1"},
               {"InUse", std::to_string(allocator.in_use)},
               {"TotalAllocated", std::to_string(allocator.total_allocated)},
               {"MaxInUse", std::to_string(allocator.max_in_use)},
               {"NumAllocs", std::to_string(allocator.num_allocs)}};
    }
    OrtKeyValuePairs* pairs = nullptr;
    ort.CreateKeyValuePairs(&pairs);
    for (const auto& [key, value] : stats) ort.AddKeyValuePair(pairs, key.c_str(), value.c_str());
    *out = pairs;
    return nullptr;
  } catch (...) {
    return DeviceStatus(ort, ORT_FAIL, "allocator GetStats: out of memory");
  }
}

// Nothing is cached, so nothing can be given back.
OrtStatus* ORT_API_CALL Shrink(OrtAllocator*) noexcept { return nullptr; }

struct DeviceDataTransfer : OrtDataTransferImpl {
  HostApi api;
  const OrtMemoryDevice* device = nullptr;
};

enum class Side { kHost, kDevice, kOther };

// CPU memory, or host-accessible memory of the device's vendor, is host; the device memory is
// device; anything else (another EP's device) is neither.
Side SideOf(const DeviceDataTransfer& transfer, const OrtMemoryDevice* memory) {
  const OrtEpApi& ep = *transfer.api.ep;
  if (memory == nullptr) return Side::kOther;
  if (ep.MemoryDevice_AreEqual(memory, transfer.device)) return Side::kDevice;
  if (ep.MemoryDevice_GetDeviceType(memory) == OrtMemoryInfoDeviceType_CPU) return Side::kHost;
  if (ep.MemoryDevice_GetMemoryType(memory) == OrtDeviceMemoryType_HOST_ACCESSIBLE &&
      ep.MemoryDevice_GetVendorId(memory) == kDeviceVendorId) {
    return Side::kHost;
  }
  return Side::kOther;
}

void ORT_API_CALL ReleaseTransfer(OrtDataTransferImpl* this_ptr) noexcept {
  delete static_cast<DeviceDataTransfer*>(this_ptr);
}

// Host <-> device and device <-> device; host <-> host is the host's own business.
bool ORT_API_CALL CanCopy(const OrtDataTransferImpl* this_ptr, const OrtMemoryDevice* src,
                          const OrtMemoryDevice* dst) noexcept {
  const auto& transfer = *static_cast<const DeviceDataTransfer*>(this_ptr);
  const Side from = SideOf(transfer, src);
  const Side to = SideOf(transfer, dst);
  return from != Side::kOther && to != Side::kOther &&
         (from == Side::kDevice || to == Side::kDevice);
}

// Copies tensor i of `src` into tensor i of `dst` (same byte size; device-side data must lie in
// device blocks); a device → CPU copy with a stream of the stream EP is queued on it. Errors name
// the tensor index and both sides.
OrtStatus* CopyOne(const DeviceDataTransfer& transfer, const OrtValue* src, OrtValue* dst,
                   OrtSyncStream* stream, size_t index) {
  const OrtApi& ort = *transfer.api.ort;
  const OrtEpApi& ep = *transfer.api.ep;
  const Side from = SideOf(transfer, ep.Value_GetMemoryDevice(src));
  const Side to = SideOf(transfer, ep.Value_GetMemoryDevice(dst));
  const std::string which = "CopyTensors: tensor " + std::to_string(index);
  if (from == Side::kOther || to == Side::kOther || (from == Side::kHost && to == Side::kHost)) {
    return DeviceStatus(ort, ORT_INVALID_ARGUMENT,
                        which + " is not a copy between CPU and ExampleDevice memory; fix: only "
                                "call CopyTensors for memory devices CanCopy accepted");
  }
  size_t src_bytes = 0;
  size_t dst_bytes = 0;
  EXAMPLE_EP_RETURN_IF_ERROR(ort.GetTensorSizeInBytes(src, &src_bytes));
  EXAMPLE_EP_RETURN_IF_ERROR(ort.GetTensorSizeInBytes(dst, &dst_bytes));
  if (src_bytes != dst_bytes) {
    return DeviceStatus(ort, ORT_INVALID_ARGUMENT,
                        which + ": source has " + std::to_string(src_bytes) +
                            " bytes, destination " + std::to_string(dst_bytes) +
                            "; fix: give tensors of equal type and shape");
  }
  const void* from_data = nullptr;
  void* to_data = nullptr;
  EXAMPLE_EP_RETURN_IF_ERROR(ort.GetTensorData(src, &from_data));
  EXAMPLE_EP_RETURN_IF_ERROR(ort.GetTensorMutableData(dst, &to_data));
  if (src_bytes != 0) {
    if ((from == Side::kDevice && !DeviceMemoryContains(from_data)) ||
        (to == Side::kDevice && !DeviceMemoryContains(to_data))) {
      return DeviceStatus(ort, ORT_INVALID_ARGUMENT,
                          which + ": a value that claims ExampleDevice memory has data in no "
                                  "block of the device allocator; fix: allocate ExampleDevice "
                                  "tensors with the EP's allocator");
    }
    auto copy = [to_data, from_data, src_bytes] { std::memcpy(to_data, from_data, src_bytes); };
    if (to != Side::kHost || !Enqueue(transfer.api, stream, copy)) copy();
  }
  Increment(from == Side::kHost     ? DeviceCounter::kHostToDevice
            : to == Side::kHost     ? DeviceCounter::kDeviceToHost
                                    : DeviceCounter::kDeviceToDevice);
  return nullptr;
}

// memcpy, at once or (device → CPU, on a stream of the stream EP) when the stream runs.
OrtStatus* ORT_API_CALL CopyTensors(OrtDataTransferImpl* this_ptr, const OrtValue** src_tensors,
                                    OrtValue** dst_tensors, OrtSyncStream** streams,
                                    size_t num_tensors) noexcept {
  const auto& transfer = *static_cast<const DeviceDataTransfer*>(this_ptr);
  return nxrt_example_ep::Guarded(*transfer.api.ort, "CopyTensors", [&]() -> OrtStatus* {
    for (size_t i = 0; i < num_tensors; ++i) {
      OrtSyncStream* stream = streams != nullptr ? streams[i] : nullptr;
      EXAMPLE_EP_RETURN_IF_ERROR(CopyOne(transfer, src_tensors[i], dst_tensors[i], stream, i));
    }
    Increment(DeviceCounter::kCopyCalls);
    return nullptr;
  });
}

}  // namespace

void Increment(DeviceCounter counter) {
  g_counters[static_cast<int>(counter)].fetch_add(1, std::memory_order_relaxed);
}

uint64_t Read(DeviceCounter counter) {
  return g_counters[static_cast<int>(counter)].load(std::memory_order_relaxed);
}

void ResetDeviceCounters() {
  for (std::atomic<uint64_t>& counter : g_counters) counter.store(0, std::memory_order_relaxed);
}

bool DeviceMemoryContains(const void* data) {
  const auto address = reinterpret_cast<uintptr_t>(data);
  std::lock_guard<std::mutex> lock(g_blocks_mutex);
  auto it = g_blocks.upper_bound(address);
  if (it == g_blocks.begin()) return false;
  --it;
  const auto* header = reinterpret_cast<const BlockHeader*>(it->first) - 1;
  return header->tag == kDeviceTag && address < it->first + it->second;
}

OrtAllocator* NewDeviceAllocator(const HostApi& api, const OrtMemoryInfo* info) {
  auto* allocator = new (std::nothrow) DeviceAllocator();
  if (allocator == nullptr) return nullptr;
  allocator->version = ORT_API_VERSION;
  allocator->Alloc = Alloc;
  allocator->Free = Free;
  allocator->Info = Info;
  allocator->Reserve = Reserve;
  allocator->GetStats = GetStats;
  allocator->AllocOnStream = AllocOnStream;
  allocator->Shrink = Shrink;
  allocator->ort = api.ort;
  allocator->info = info;
  return allocator;
}

void DeleteDeviceAllocator(OrtAllocator* allocator) {
  delete static_cast<DeviceAllocator*>(allocator);
}

OrtDataTransferImpl* NewDeviceDataTransfer(const HostApi& api, const OrtMemoryDevice* device) {
  auto* transfer = new (std::nothrow) DeviceDataTransfer();
  if (transfer == nullptr) return nullptr;
  transfer->ort_version_supported = ORT_API_VERSION;
  transfer->Release = ReleaseTransfer;
  transfer->CanCopy = CanCopy;
  transfer->CopyTensors = CopyTensors;
  transfer->api = api;
  transfer->device = device;
  return transfer;
}

}  // namespace nxrt_device_ep
