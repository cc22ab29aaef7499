// runtime/memory_planner.cpp: greedy-by-size arena planning (see memory_planner.h).
#include "runtime/memory_planner.h"

#include <algorithm>
#include <map>
#include <numeric>

namespace nxrt::runtime {
namespace {

int64_t AlignUp(int64_t n) { return (n + kArenaAlignment - 1) / kArenaAlignment * kArenaAlignment; }

bool LifetimesIntersect(const BufferLifetime& a, const BufferLifetime& b) {
  return a.first_step <= b.last_step && b.first_step <= a.last_step;
}

}  // namespace

MemoryPlan PlanMemory(std::span<const BufferLifetime> buffers) {
  const size_t n = buffers.size();
  MemoryPlan plan;
  plan.offsets.assign(n, 0);

  std::vector<size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    if (buffers[a].size != buffers[b].size) return buffers[a].size > buffers[b].size;
    if (buffers[a].first_step != buffers[b].first_step) {
      return buffers[a].first_step < buffers[b].first_step;
    }
    return a < b;
  });

  // Placed buffers sorted by offset, so the gap search is one sweep.
  struct Placed {
    int64_t offset;
    int64_t size;
    size_t index;
  };
  std::vector<Placed> placed;
  placed.reserve(n);
  for (size_t index : order) {
    const int64_t size = AlignUp(buffers[index].size);
    if (size == 0) continue;
    int64_t candidate = 0;
    for (const Placed& p : placed) {
      if (!LifetimesIntersect(buffers[p.index], buffers[index])) continue;
      if (p.offset >= candidate + size) break;  // the gap before p fits
      candidate = std::max(candidate, p.offset + p.size);
    }
    plan.offsets[index] = candidate;
    plan.arena_bytes = std::max(plan.arena_bytes, candidate + size);
    auto pos = std::upper_bound(placed.begin(), placed.end(), candidate,
                                [](int64_t off, const Placed& p) { return off < p.offset; });
    placed.insert(pos, Placed{candidate, size, index});
  }
  return plan;
}

int64_t PeakLiveBytes(std::span<const BufferLifetime> buffers) {
  // Sweep over step boundaries: +size at first_step, -size after last_step.
  std::map<int64_t, int64_t> delta;
  for (const BufferLifetime& b : buffers) {
    const int64_t size = AlignUp(b.size);
    delta[b.first_step] += size;
    delta[static_cast<int64_t>(b.last_step) + 1] -= size;
  }
  int64_t live = 0, peak = 0;
  for (const auto& [step, d] : delta) {
    live += d;
    peak = std::max(peak, live);
  }
  return peak;
}

}  // namespace nxrt::runtime
