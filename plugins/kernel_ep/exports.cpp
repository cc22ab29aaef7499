// plugins/kernel_ep/exports.cpp: the symbols nxrt_kernel_ep (and each kernel fault library)
// exports: CreateEpFactories / ReleaseEpFactory, and the counters tests read by dlopen-ing the
// library the host loaded (kernel_ep.h), each since load or the last reset:
//   uint64_t NxrtKernelEp_ComputeCalls(void), _KernelsCreated, _KernelsReleased,
//            _ControlFlowKernels, _ConcatCalls, _TransposeCalls, _HelpersReleased,
//            _PrePackCalls
//   const char* NxrtKernelEp_Claims(void)  every claimed "<graph>/<node>", sorted, '\n'-joined;
//                                          valid until the next call
//   void NxrtKernelEp_ResetCounters(void)
#include <string>

#include "kernel_ep/kernel_ep.h"

#define NXRT_KERNEL_EP_EXPORT extern "C" __attribute__((visibility("default")))

#if defined(NXRT_KERNEL_FAULT_NAME)
#define NXRT_KERNEL_EP_NAME "kernel_fault_" NXRT_KERNEL_FAULT_NAME
#else
#define NXRT_KERNEL_EP_NAME "kernel_ep"
#endif

NXRT_KERNEL_EP_EXPORT OrtStatus* CreateEpFactories(const char*, const OrtApiBase* api_base,
                                                   const OrtLogger*, OrtEpFactory** factories,
                                                   size_t max_factories, size_t* num_factories) {
  return nxrt_kernel_ep::CreateKernelEpFactories(api_base, NXRT_KERNEL_EP_NAME, factories,
                                                 max_factories, num_factories);
}

NXRT_KERNEL_EP_EXPORT OrtStatus* ReleaseEpFactory(OrtEpFactory* factory) {
  nxrt_kernel_ep::ReleaseKernelEpFactory(factory);
  return nullptr;
}

#define NXRT_KERNEL_EP_COUNTER(Name)                                     \
  NXRT_KERNEL_EP_EXPORT uint64_t NxrtKernelEp_##Name(void) {             \
    return nxrt_kernel_ep::Read(nxrt_kernel_ep::Counter::k##Name);       \
  }
NXRT_KERNEL_EP_COUNTER(ComputeCalls)
NXRT_KERNEL_EP_COUNTER(KernelsCreated)
NXRT_KERNEL_EP_COUNTER(KernelsReleased)
NXRT_KERNEL_EP_COUNTER(ControlFlowKernels)
NXRT_KERNEL_EP_COUNTER(ConcatCalls)
NXRT_KERNEL_EP_COUNTER(TransposeCalls)
NXRT_KERNEL_EP_COUNTER(HelpersReleased)
NXRT_KERNEL_EP_COUNTER(PrePackCalls)

NXRT_KERNEL_EP_EXPORT const char* NxrtKernelEp_Claims(void) {
  static thread_local std::string claims;
  claims = nxrt_kernel_ep::Claims();
  return claims.c_str();
}

NXRT_KERNEL_EP_EXPORT void NxrtKernelEp_ResetCounters(void) { nxrt_kernel_ep::ResetCounters(); }
