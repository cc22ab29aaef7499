// plugins/kernel_ep/ep.cpp: the kernel EP's OrtEp (GetCapability, GetKernelRegistry), its
// factory (the example EP's, with its own CreateEp/ReleaseEp) and its counters.
#include <algorithm>
#include <array>
#include <atomic>
#include <mutex>
#include <new>
#include <string>
#include <vector>

#include "example_ep/factory.h"
#include "kernel_ep/kernel_ep.h"

namespace nxrt_kernel_ep {
namespace {

std::array<std::atomic<uint64_t>, static_cast<size_t>(Counter::kCount)>& CounterArray() {
  static std::array<std::atomic<uint64_t>, static_cast<size_t>(Counter::kCount)> counters{};
  return counters;
}

std::mutex& ClaimsMutex() {
  static std::mutex mutex;
  return mutex;
}
std::vector<std::string>& ClaimList() {
  static std::vector<std::string> claims;
  return claims;
}

struct KernelEp : OrtEp {
  const OrtApi* ort = nullptr;
  const OrtEpApi* ep_api = nullptr;
  const char* name = nullptr;
  const OrtLogger* logger = nullptr;
  OrtKernelRegistry* registry = nullptr;
};

void Log(const KernelEp& ep, OrtLoggingLevel level, const std::string& message) {
  const std::string text = std::string(ep.name) + ": " + message;
  if (OrtStatus* status =
          ep.ort->Logger_LogMessage(ep.logger, level, text.c_str(), __FILE__, __LINE__, "kernel_ep")) {
    ep.ort->ReleaseStatus(status);
  }
}

const char* ORT_API_CALL GetName(const OrtEp* this_ptr) noexcept {
  return static_cast<const KernelEp*>(this_ptr)->name;
}

// Claims every node its registry has a kernel for (UNREGISTERED: every node).
OrtStatus* ORT_API_CALL GetCapability(OrtEp* this_ptr, const OrtGraph* graph,
                                      OrtEpGraphSupportInfo* support) noexcept {
  const auto& ep = *static_cast<KernelEp*>(this_ptr);
  const OrtApi& ort = *ep.ort;
  const char* graph_name = nullptr;
  size_t count = 0;
  if (OrtStatus* s = ort.Graph_GetName(graph, &graph_name)) return s;
  if (OrtStatus* s = ort.Graph_GetNumNodes(graph, &count)) return s;
  std::vector<const OrtNode*> nodes(count);
  if (count > 0) {
    if (OrtStatus* s = ort.Graph_GetNodes(graph, nodes.data(), count)) return s;
  }
  size_t claimed = 0;
  for (const OrtNode* node : nodes) {
    const char* node_name = nullptr;
    const char* op_type = nullptr;
    if (OrtStatus* s = ort.Node_GetName(node, &node_name)) return s;
    if (OrtStatus* s = ort.Node_GetOperatorType(node, &op_type)) return s;
#if !defined(NXRT_KERNEL_FAULT_UNREGISTERED)
    const OrtKernelDef* def = nullptr;
    if (OrtStatus* s = ep.ep_api->EpGraphSupportInfo_LookUpKernel(support, node, &def)) return s;
    if (def == nullptr) {
      Log(ep, ORT_LOGGING_LEVEL_INFO, std::string("node '") + node_name + "' (" + op_type +
                                          ") declined: no kernel in the registry matches it");
      continue;
    }
#endif
    if (OrtStatus* s = ep.ep_api->EpGraphSupportInfo_AddSingleNode(support, node)) return s;
    RecordClaim(std::string(graph_name) + "/" + node_name);
    ++claimed;
  }
  Log(ep, ORT_LOGGING_LEVEL_INFO, "graph '" + std::string(graph_name) + "': claims " +
                                      std::to_string(claimed) + " of " + std::to_string(count) +
                                      " nodes");
  return nullptr;
}

OrtStatus* ORT_API_CALL GetKernelRegistry(OrtEp* this_ptr,
                                          const OrtKernelRegistry** registry) noexcept {
  *registry = static_cast<KernelEp*>(this_ptr)->registry;
  return nullptr;
}

OrtStatus* ORT_API_CALL CreateEp(OrtEpFactory* this_ptr, const OrtHardwareDevice* const*,
                                 const OrtKeyValuePairs* const*, size_t num_devices,
                                 const OrtSessionOptions*, const OrtLogger* logger,
                                 OrtEp** out) noexcept {
  const auto* factory = static_cast<const nxrt_example_ep::ExampleEpFactory*>(this_ptr);
  const OrtApi& ort = *factory->api.ort;
  *out = nullptr;
  if (num_devices == 0) {
    return ort.CreateStatus(ORT_INVALID_ARGUMENT, "kernel_ep: CreateEp got no device");
  }
  auto* ep = new (std::nothrow) KernelEp();  // value-initialised: every slot null
  if (ep == nullptr) return ort.CreateStatus(ORT_FAIL, "kernel_ep: CreateEp: out of memory");
  ep->ort_version_supported = ORT_API_VERSION;
  ep->GetName = GetName;
  ep->GetCapability = GetCapability;
  ep->GetKernelRegistry = GetKernelRegistry;
  ep->ort = &ort;
  ep->ep_api = factory->api.ep;
  ep->name = factory->ep_name;
  ep->logger = logger;
  if (OrtStatus* status = CreateKernelRegistry(ort, *factory->api.ep, ep->name, &ep->registry)) {
    delete ep;
    return status;
  }
  *out = ep;
  return nullptr;
}

void ORT_API_CALL ReleaseEp(OrtEpFactory*, OrtEp* this_ptr) noexcept {
  auto* ep = static_cast<KernelEp*>(this_ptr);
  if (ep == nullptr) return;
  if (ep->registry != nullptr) ep->ep_api->ReleaseKernelRegistry(ep->registry);
  delete ep;
}

}  // namespace

void Increment(Counter counter) {
  CounterArray()[static_cast<size_t>(counter)].fetch_add(1, std::memory_order_relaxed);
}

uint64_t Read(Counter counter) {
  return CounterArray()[static_cast<size_t>(counter)].load(std::memory_order_relaxed);
}

void ResetCounters() {
  for (auto& c : CounterArray()) c.store(0, std::memory_order_relaxed);
  std::lock_guard<std::mutex> lock(ClaimsMutex());
  ClaimList().clear();
}

void RecordClaim(std::string claim) {
  std::lock_guard<std::mutex> lock(ClaimsMutex());
  ClaimList().push_back(std::move(claim));
}

std::string Claims() {
  std::lock_guard<std::mutex> lock(ClaimsMutex());
  std::vector<std::string> sorted = ClaimList();
  std::sort(sorted.begin(), sorted.end());
  std::string text;
  for (const std::string& c : sorted) text += (text.empty() ? "" : "\n") + c;
  return text;
}

OrtStatus* CreateKernelEpFactories(const OrtApiBase* api_base, const char* ep_name,
                                   OrtEpFactory** factories, size_t max_factories,
                                   size_t* num_factories) {
  OrtStatus* status = nxrt_example_ep::CreateExampleEpFactories(api_base, ep_name, factories,
                                                                 max_factories, num_factories);
  if (status != nullptr || *num_factories == 0) return status;
  factories[0]->CreateEp = CreateEp;
  factories[0]->ReleaseEp = ReleaseEp;
  return nullptr;
}

void ReleaseKernelEpFactory(OrtEpFactory* factory) {
  nxrt_example_ep::ReleaseExampleEpFactory(factory);
}

}  // namespace nxrt_kernel_ep
