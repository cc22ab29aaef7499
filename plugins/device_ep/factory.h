// plugins/device_ep/factory.h: the device EP's factory: the example EP's factory (shared code in
// plugins/example_ep) whose EPs compute in emulated device memory (device_memory.h).
//
// Layer: test plugin nxrt_device_ep (ORT C headers only).
#pragma once

#include <cstddef>

#include "example_ep/host_api.h"

namespace nxrt_device_ep {

// CreateEpFactories for one factory named kDeviceEpName. Like the example factory (same ops,
// grouping, options, counters), plus: every OrtEpDevice (one per CPU hardware device) carries the
// ExampleDevice memory info (EpDevice_AddAllocatorInfo); CreateAllocator makes a device allocator
// for it; CreateDataTransfer makes the CPU <-> device transfer; Compute fails unless its inputs
// and outputs are in device memory. Errors: those of the example factory, and a failing
// CreateMemoryInfo_V2 (passed on with context).
OrtStatus* CreateDeviceEpFactories(const OrtApiBase* api_base, OrtEpFactory** factories,
                                   size_t max_factories, size_t* num_factories);

// Deletes a factory made by CreateDeviceEpFactories (null is allowed).
void ReleaseDeviceEpFactory(OrtEpFactory* factory);

}  // namespace nxrt_device_ep
