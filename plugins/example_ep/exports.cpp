// plugins/example_ep/exports.cpp: the symbols nxrt_example_ep exports: the plugin-EP entry
// points CreateEpFactories / ReleaseEpFactory, and the test counters a test reads by dlopen-ing
// the same library file (the loaded instance is shared, so it sees the host's calls):
//   uint64_t NxrtExampleEp_ComputeCalls(void)  successful Compute calls since load or reset
//   void NxrtExampleEp_ResetCounters(void)
#include "example_ep/factory.h"
#include "example_ep/program.h"

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
  return nxrt_example_ep::ComputeCalls();
}

NXRT_EXAMPLE_EP_EXPORT void NxrtExampleEp_ResetCounters(void) {
  nxrt_example_ep::ResetComputeCalls();
}
