// plugins/example_ep/factory.h: the example EP's OrtEpFactory and the body of its
// CreateEpFactories, shared by nxrt_example_ep (exports.cpp) and the fault fixtures
// (plugins/faults/fault_ep.cpp), which take this factory and break one slot of it.
//
// Layer: test plugin nxrt_example_ep (ORT C headers only).
#pragma once

#include <cstddef>

#include "example_ep/host_api.h"
#include "example_ep/program.h"

namespace nxrt_example_ep {

// The example EP's factory. A variant (the device EP, plugins/device_ep) derives from it, fills
// it with InitExampleEpFactory and then replaces the slots it does differently.
struct ExampleEpFactory : OrtEpFactory {
  HostApi api;
  const char* ep_name = kEpName;  // outlives the factory
  // When it has an info, GetSupportedDevices adds it to every OrtEpDevice and the EPs' Compute
  // requires it; the example EP has none.
  DeviceMemory device_memory;
};

// Resolves the host's API 29 into `api`. When the host has none, api->ort stays null and the
// result is what CreateEpFactories returns: ORT_NOT_IMPLEMENTED made through the host's API 1,
// or null when the host has no API at all.
OrtStatus* GetHostApi(const OrtApiBase* api_base, HostApi* api);

// Sets `factory`'s api and ep_name, its version to ORT_API_VERSION and every slot ORT 1.30 calls
// to the example EP's callbacks; CreateAllocator, CreateDataTransfer and
// CreateSyncStreamForDevice answer "none" (host memory).
void InitExampleEpFactory(ExampleEpFactory* factory, const HostApi& api, const char* ep_name);

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
