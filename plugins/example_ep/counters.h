// plugins/example_ep/counters.h: process-wide counters of the example EP's callbacks, read by
// tests through the libraries' exported NxrtExampleEp_* / NxrtDeviceEp_* functions.
//
// Layer: test plugin nxrt_example_ep (no ORT types). Each plugin library links its own copy of
// the core, so each library has its own counters; they count across all EPs and sessions of that
// library. Relaxed atomics: tests read them after the runs they count have returned.
#pragma once

#include <cstdint>

namespace nxrt_example_ep {

enum class Counter {
  kComputeCalls,           // Compute calls that succeeded
  kRunStarts,              // OrtEp::OnRunStart calls
  kRunEnds,                // OrtEp::OnRunEnd calls
  kComputeOverlaps,        // Compute calls that started while another Compute of the same EP ran
  kConcurrencyViolations,  // the overlaps of EPs created with concurrent_runs=0
};

void Increment(Counter counter);
uint64_t Read(Counter counter);
// Sets every counter to 0.
void ResetCounters();

}  // namespace nxrt_example_ep
