// runtime/arena.cpp: an instance's planned block of memory (see arena.h).
#include "runtime/arena.h"

#include <algorithm>
#include <cstdlib>

#include "runtime/memory_planner.h"

namespace nxrt::runtime {

Result<std::shared_ptr<std::byte>> AlignedBuffer(size_t bytes) {
  if (bytes == 0) return std::shared_ptr<std::byte>();
  const size_t rounded = (bytes + kArenaAlignment - 1) / kArenaAlignment * kArenaAlignment;
  void* p = std::aligned_alloc(kArenaAlignment, rounded);
  if (p == nullptr) {
    return MakeStatus(StatusCode::kOutOfMemory, "cannot allocate ", bytes, " bytes");
  }
  return std::shared_ptr<std::byte>(static_cast<std::byte*>(p), [](std::byte* b) { std::free(b); });
}

Arena::Arena(size_t buffers) : offset_(buffers, -1), planned_(buffers, -1), seen_(buffers, -1) {}

void Arena::BeginRun() { std::fill(seen_.begin(), seen_.end(), -1); }

void Arena::Rebuild(std::span<const ArenaUse> uses) {
  std::vector<BufferLifetime> lifetimes;
  std::vector<size_t> ids;
  for (size_t b = 0; b < seen_.size(); ++b) {
    if (seen_[b] < 0 || uses[b].owner != b) continue;
    lifetimes.push_back({seen_[b], uses[b].first_step, uses[b].last_step});
    ids.push_back(b);
  }
  const MemoryPlan plan = PlanMemory(lifetimes);
  std::fill(offset_.begin(), offset_.end(), -1);
  std::fill(planned_.begin(), planned_.end(), -1);
  base_.reset();  // before the new block, so that the two are never held at once
  size_ = 0;
  stale_ = true;
  Result<std::shared_ptr<std::byte>> block = AlignedBuffer(static_cast<size_t>(plan.arena_bytes));
  if (!block.ok()) return;
  base_ = std::move(block).value();
  size_ = plan.arena_bytes;
  for (size_t k = 0; k < ids.size(); ++k) {
    offset_[ids[k]] = plan.offsets[k];
    planned_[ids[k]] = lifetimes[k].size;
  }
  for (size_t b = 0; b < seen_.size(); ++b) {
    if (seen_[b] >= 0 && uses[b].owner != b) {
      offset_[b] = offset_[uses[b].owner];
      planned_[b] = seen_[b];
    }
  }
  stale_ = false;
}

}  // namespace nxrt::runtime
