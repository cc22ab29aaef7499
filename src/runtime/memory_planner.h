// runtime/memory_planner.h: assigns arena offsets to buffers from their lifetimes.
//
// Layer: nxrt_runtime. The planner owns intermediate memory: the executor (runtime/executor.h)
// describes every buffer a run needs (an intermediate value from its producer to its last
// reader, a kernel's workspace for its own step) as a size and the range of plan steps during
// which it must stay intact; the planner packs them into one arena (runtime/arena.h) so that two
// buffers share bytes only when their step ranges do not intersect. It knows nothing of graphs,
// EPs or kernels, and is tested on its own (memory_planner_test.cpp).
//
// Algorithm: greedy by size (largest first, ties by first step then index, so the result is
// deterministic). Each buffer goes to the lowest aligned offset whose byte range overlaps no
// already-placed buffer that is live at the same time. This is the heuristic TFLite's arena
// planner and XNNPACK's planner use; it is within a few percent of the lower bound (the largest
// total of bytes live at one step) on real networks.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace nxrt::runtime {

inline constexpr int64_t kArenaAlignment = 64;  // bytes; every offset is a multiple

// One buffer: `size` bytes (>= 0; 0-byte buffers get offset 0 and take no space), live from step
// `first_step` to `last_step` inclusive (first_step <= last_step).
struct BufferLifetime {
  int64_t size = 0;
  int32_t first_step = 0;
  int32_t last_step = 0;
};

struct MemoryPlan {
  std::vector<int64_t> offsets;  // per buffer, in request order; multiples of kArenaAlignment
  int64_t arena_bytes = 0;       // bytes the arena needs (a multiple of kArenaAlignment)
};

// Plans `buffers`. Never fails: sizes are rounded up to kArenaAlignment.
MemoryPlan PlanMemory(std::span<const BufferLifetime> buffers);

// The largest total of (aligned) bytes live at any one step: no plan can use less.
int64_t PeakLiveBytes(std::span<const BufferLifetime> buffers);

}  // namespace nxrt::runtime
