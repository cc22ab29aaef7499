// plugins/example_ep/factory.h: the example EP's OrtEpFactory and the body of its
// CreateEpFactories, shared by nxrt_example_ep (exports.cpp) and the fault fixtures
// (plugins/faults/fault_ep.cpp), which take this factory and break one slot of it.
//
// Layer: test plugin nxrt_example_ep (ORT C headers only).
#pragma once

#include <cstddef>

#include "example_ep/host_api.h"

namespace nxrt_example_ep {

// CreateEpFactories for one example factory whose EP is named `ep_name` (a string that outlives
// the factory): asks the host for API ORT_API_VERSION (29) and fills factories[0]. Errors: the host has no API 29 (ORT_NOT_IMPLEMENTED when it still gives
// API 1 to report it, else a null status with zero factories), no room in `factories`.
// The factory's every slot that ORT 1.30 calls is set, its version is ORT_API_VERSION, and
// ReleaseExampleEpFactory deletes it.
OrtStatus* CreateExampleEpFactories(const OrtApiBase* api_base, const char* ep_name,
                                    OrtEpFactory** factories, size_t max_factories,
                                    size_t* num_factories);

// Deletes a factory made by CreateExampleEpFactories (null is allowed).
void ReleaseExampleEpFactory(OrtEpFactory* factory);

}  // namespace nxrt_example_ep
