// plugins/example_ep/ep.h: the example EP's OrtEp and its session options.
//
// Layer: test plugin nxrt_example_ep (ORT C headers only). GetCapability claims maximal convex
// groups of float32 Add/Mul/Sub/Div/Relu/Sigmoid/Tanh (domain "") and logs, at INFO, why it
// declines every other node. Compile turns each group into a Program (program.h).
#pragma once

#include <cstddef>
#include <vector>

#include "example_ep/elementwise.h"
#include "example_ep/host_api.h"
#include "example_ep/program.h"

namespace nxrt_example_ep {

// Options, read from the session config entries "ep.<EP name, lower-cased>.<key>" (where ORT
// puts the options of SessionOptionsAppendExecutionProvider_V2):
//   max_group_size   non-negative integer, 0 (default) = no limit: nodes per fused group
//   claim_ops        comma list of op types, default all seven: the ops the EP may claim
//   concurrent_runs  0 or 1 (default): the EP's answer to IsConcurrentRunSupported
struct EpOptions {
  size_t max_group_size = 0;
  std::vector<ElementwiseOp> claim_ops{std::begin(kAllElementwiseOps),
                                       std::end(kAllElementwiseOps)};
  bool concurrent_runs = true;
};

// Reads the options. Errors (ORT_INVALID_ARGUMENT) name the key, the value and the fix: an
// unknown key, a malformed max_group_size, an empty claim_ops or one naming an op the EP lacks,
// a concurrent_runs other than 0 or 1.
OrtStatus* ReadEpOptions(const OrtApi& ort, const char* ep_name,
                         const OrtSessionOptions* session_options, EpOptions* options);

// A new OrtEp named `ep_name` (which must outlive it), version ORT_API_VERSION, logging through
// `logger` (the session's, may be null), or nullptr when out of memory. Its Compute checks that
// inputs and outputs are in `device_memory` when that has an info (the device EP); its pointers
// must outlive the EP. OnRunStart/OnRunEnd count runs (counters.h). Release with DeleteExampleEp.
OrtEp* NewExampleEp(const HostApi& api, const char* ep_name, const OrtLogger* logger,
                    EpOptions options, const DeviceMemory& device_memory);
void DeleteExampleEp(OrtEp* ep);

// The runtime the compute infos of `ep` (made by NewExampleEp) share: what NewComputeInfo takes
// for a program a variant builds itself (the EPContext EP, plugins/epctx_ep).
EpRuntime* ExampleEpRuntime(OrtEp* ep);

}  // namespace nxrt_example_ep
