// plugins/example_ep/exports.cpp: the symbols nxrt_example_ep exports: the plugin-EP entry
// points CreateEpFactories / ReleaseEpFactory, and the test counters a test reads by dlopen-ing
// the same library file (the loaded instance is shared, so it sees the host's calls). Each counts
// since load or the last reset, over all EPs and sessions:
//   uint64_t NxrtExampleEp_ComputeCalls(void)           successful Compute calls
//   uint64_t NxrtExampleEp_RunStarts(void)              OrtEp::OnRunStart calls
//   uint64_t NxrtExampleEp_RunEnds(void)                OrtEp::OnRunEnd calls
//   uint64_t NxrtExampleEp_ComputeOverlaps(void)        Compute calls that began while another
//                                                       Compute of the same EP was running
//   uint64_t NxrtExampleEp_ConcurrencyViolations(void)  such overlaps in EPs that answered
//                                                       IsConcurrentRunSupported with false
//   void NxrtExampleEp_ResetCounters(void)              sets them all to 0
#include "example_ep/counters.h"
#include "example_ep/factory.h"

#define NXRT_EXAMPLE_EP_EXPORT extern "C" __attribute__((visibility("default")))

NXRT_EXAMPLE_EP_EXPORT OrtStatus* CreateEpFactories(const char*, const OrtApiBase* api_base,
                                                    const OrtLogger*, OrtEpFactory** factories,
                                                    size_t max_factories, size_t* num_factories) {
  return nxrt_example_ep::CreateExampleEpFactories(api_base, nxrt_example_ep::kEpName, factories,
                                                   max_factories, num_factories);
}

NXRT_EXAMPLE_EP_EXPORT OrtStatus* ReleaseEpFactory(OrtEpFactory* factory) {
  nxrt_example_ep::ReleaseExampleEpFactory(factory);
  return nullptr;
}

NXRT_EXAMPLE_EP_EXPORT uint64_t NxrtExampleEp_ComputeCalls(void) {
  return nxrt_example_ep::Read(nxrt_example_ep::Counter::kComputeCalls);
}

NXRT_EXAMPLE_EP_EXPORT uint64_t NxrtExampleEp_RunStarts(void) {
  return nxrt_example_ep::Read(nxrt_example_ep::Counter::kRunStarts);
}

NXRT_EXAMPLE_EP_EXPORT uint64_t NxrtExampleEp_RunEnds(void) {
  return nxrt_example_ep::Read(nxrt_example_ep::Counter::kRunEnds);
}

NXRT_EXAMPLE_EP_EXPORT uint64_t NxrtExampleEp_ComputeOverlaps(void) {
  return nxrt_example_ep::Read(nxrt_example_ep::Counter::kComputeOverlaps);
}

NXRT_EXAMPLE_EP_EXPORT uint64_t NxrtExampleEp_ConcurrencyViolations(void) {
  return nxrt_example_ep::Read(nxrt_example_ep::Counter::kConcurrencyViolations);
}

NXRT_EXAMPLE_EP_EXPORT void NxrtExampleEp_ResetCounters(void) { nxrt_example_ep::ResetCounters(); }
