// ep/execution_provider.cpp: the defaults of ExecutionProvider (host memory, no fused kernels),
// Device names, and ComputeContext's inline ParallelFor (nxrt/execution_provider.h, kernel.h).
//
// Layer: nxrt_ep.
#include "nxrt/execution_provider.h"

#include <cassert>
#include <cstdlib>
#include <cstring>

namespace nxrt {
namespace {

constexpr size_t kMinAlignment = 64;

bool IsPowerOfTwo(size_t x) { return x != 0 && (x & (x - 1)) == 0; }

}  // namespace

std::string_view DeviceTypeName(DeviceType type) {
  switch (type) {
    case DeviceType::kCpu:
      return "cpu";
    case DeviceType::kGpu:
      return "gpu";
    case DeviceType::kNpu:
      return "npu";
    case DeviceType::kOther:
      return "other";
  }
  return "other";
}

std::string Device::ToString() const {
  return std::string(DeviceTypeName(type)) + ":" + std::to_string(id);
}

DeviceBuffer DeviceBuffer::Slice(size_t offset, size_t bytes) const {
  assert(offset <= size && bytes <= size - offset && "DeviceBuffer::Slice out of range");
  return {static_cast<std::byte*>(data) + offset, bytes, device, handle};
}

void ComputeContext::ParallelFor(int64_t n, int64_t min_chunk,
                                 const std::function<void(int64_t, int64_t)>& fn) {
  (void)min_chunk;
  if (n > 0) fn(0, n);
}

Status ExecutionProvider::Initialize(const EpConfig& config) { return config.CheckKeys({}); }

Result<std::unique_ptr<Kernel>> ExecutionProvider::CreateFusedKernel(const FusedNodeInfo& claim) {
  return MakeStatus(StatusCode::kNotImplemented, "ep '", type_name_,
                    "' runs nodes one by one and cannot build a fused kernel for claim '",
                    claim.name, "' (", claim.nodes.size(), " nodes)");
}

Result<DeviceBuffer> ExecutionProvider::Allocate(size_t bytes, size_t alignment) {
  if (!IsPowerOfTwo(alignment)) {
    return MakeStatus(StatusCode::kInvalidArgument, "ep '", type_name_, "': alignment ", alignment,
                      " is not a power of two");
  }
  // The default hands out host memory, so label it as such even for a non-host EP.
  const Device where = device_.is_host() ? device_ : Device{};
  if (bytes == 0) return DeviceBuffer{nullptr, 0, where, 0};
  size_t align = alignment < kMinAlignment ? kMinAlignment : alignment;
  if (bytes > SIZE_MAX - align) {
    return MakeStatus(StatusCode::kOutOfMemory, "ep '", type_name_, "': cannot allocate ", bytes,
                      " bytes");
  }
  size_t rounded = (bytes + align - 1) / align * align;
  void* data = std::aligned_alloc(align, rounded);
  if (data == nullptr) {
    return MakeStatus(StatusCode::kOutOfMemory, "ep '", type_name_, "': cannot allocate ", bytes,
                      " bytes of host memory");
  }
  return DeviceBuffer{data, bytes, where, 0};
}

void ExecutionProvider::Deallocate(const DeviceBuffer& buffer) { std::free(buffer.data); }

Status ExecutionProvider::Copy(const DeviceBuffer& src, const DeviceBuffer& dst) {
  if (!src.device.is_host() || !dst.device.is_host()) {
    return MakeStatus(StatusCode::kInvalidArgument, "ep '", type_name_, "' (", device_.ToString(),
                      ") cannot copy from ", src.device.ToString(), " to ", dst.device.ToString(),
                      ": it only reaches host memory");
  }
  if (dst.size < src.size) {
    return MakeStatus(StatusCode::kInvalidArgument, "ep '", type_name_, "': copy of ", src.size,
                      " bytes into a buffer of ", dst.size, " bytes");
  }
  if (src.size > 0) std::memmove(dst.data, src.data, src.size);
  return Status::Ok();
}

Result<Fence> ExecutionProvider::CopyAsync(const DeviceBuffer& src, const DeviceBuffer& dst) {
  NXRT_RETURN_IF_ERROR(Copy(src, dst));
  return Fence();
}

}  // namespace nxrt
