// plugins/example_ep/counters.cpp: the counters of counters.h.
#include "example_ep/counters.h"

#include <atomic>

namespace nxrt_example_ep {
namespace {

constexpr int kNumCounters = static_cast<int>(Counter::kConcurrencyViolations) + 1;
std::atomic<uint64_t> g_counters[kNumCounters];

}  // namespace

void Increment(Counter counter) {
  g_counters[static_cast<int>(counter)].fetch_add(1, std::memory_order_relaxed);
}

uint64_t Read(Counter counter) {
  return g_counters[static_cast<int>(counter)].load(std::memory_order_relaxed);
}

void ResetCounters() {
  for (std::atomic<uint64_t>& counter : g_counters) counter.store(0, std::memory_order_relaxed);
}

}  // namespace nxrt_example_ep
