// plugins/faults/fault_ep.cpp: the fault fixtures, broken plugin EPs that nxrt's plugin host
// must survive with a clear message (docs/plugin_host.md, "Version gating and bad plugins").
//
// Layer: test plugins (ORT C headers only). This one source builds one MODULE library per
// fault, libnxrt_fault_<name>.so, compiled with -DNXRT_FAULT_<NAME> (plugins/CMakeLists.txt).
// Each library is the example EP (plugins/example_ep) under the EP name "fault_<name>" (its own
// messages still start "example_ep:") with exactly one thing broken: the fault replaces one slot
// of the example's factory, EP or compute info (keeping the original slot when it still needs
// it) or misbehaves in CreateEpFactories itself. plugins/README.md lists every fault, what it
// does, what ONNX Runtime 1.30 does with it and what nxrt's host must report. Every error status
// the fixture makes says "fault fixture <name>: ... on purpose".
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "example_ep/factory.h"

namespace {

enum class Fault {
  kNoCreateSymbol,
  kFactoriesError,
  kZeroFactories,
  kNullFactory,
  kFactoryVersion0,
  kFactoryVersion21,
  kCreateEpNullFn,
  kCreateEpFails,
  kCreateEpReturnsNull,
  kCapabilityFails,
  kGroupUnknownNode,
  kGroupNodeTwice,
  kGroupClaimsAll,
  kGroupNonConvex,
  kCompileFails,
  kCompileNullInfo,
  kCreateStateNullFn,
  kCreateStateFails,
  kComputeNullFn,
  kComputeFails,
  kApiVersionTooHigh,
  kRandomGroups,
};

#if defined(NXRT_FAULT_NO_CREATE_SYMBOL)
constexpr Fault kFault = Fault::kNoCreateSymbol;
#elif defined(NXRT_FAULT_FACTORIES_ERROR)
constexpr Fault kFault = Fault::kFactoriesError;
#elif defined(NXRT_FAULT_ZERO_FACTORIES)
constexpr Fault kFault = Fault::kZeroFactories;
#elif defined(NXRT_FAULT_NULL_FACTORY)
constexpr Fault kFault = Fault::kNullFactory;
#elif defined(NXRT_FAULT_FACTORY_VERSION_0)
constexpr Fault kFault = Fault::kFactoryVersion0;
#elif defined(NXRT_FAULT_FACTORY_VERSION_21)
constexpr Fault kFault = Fault::kFactoryVersion21;
#elif defined(NXRT_FAULT_CREATE_EP_NULL_FN)
constexpr Fault kFault = Fault::kCreateEpNullFn;
#elif defined(NXRT_FAULT_CREATE_EP_FAILS)
constexpr Fault kFault = Fault::kCreateEpFails;
#elif defined(NXRT_FAULT_CREATE_EP_RETURNS_NULL)
constexpr Fault kFault = Fault::kCreateEpReturnsNull;
#elif defined(NXRT_FAULT_CAPABILITY_FAILS)
constexpr Fault kFault = Fault::kCapabilityFails;
#elif defined(NXRT_FAULT_GROUP_UNKNOWN_NODE)
constexpr Fault kFault = Fault::kGroupUnknownNode;
#elif defined(NXRT_FAULT_GROUP_NODE_TWICE)
constexpr Fault kFault = Fault::kGroupNodeTwice;
#elif defined(NXRT_FAULT_GROUP_CLAIMS_ALL)
constexpr Fault kFault = Fault::kGroupClaimsAll;
#elif defined(NXRT_FAULT_GROUP_NON_CONVEX)
constexpr Fault kFault = Fault::kGroupNonConvex;
#elif defined(NXRT_FAULT_COMPILE_FAILS)
constexpr Fault kFault = Fault::kCompileFails;
#elif defined(NXRT_FAULT_COMPILE_NULL_INFO)
constexpr Fault kFault = Fault::kCompileNullInfo;
#elif defined(NXRT_FAULT_CREATE_STATE_NULL_FN)
constexpr Fault kFault = Fault::kCreateStateNullFn;
#elif defined(NXRT_FAULT_CREATE_STATE_FAILS)
constexpr Fault kFault = Fault::kCreateStateFails;
#elif defined(NXRT_FAULT_COMPUTE_NULL_FN)
constexpr Fault kFault = Fault::kComputeNullFn;
#elif defined(NXRT_FAULT_COMPUTE_FAILS)
constexpr Fault kFault = Fault::kComputeFails;
#elif defined(NXRT_FAULT_API_VERSION_TOO_HIGH)
constexpr Fault kFault = Fault::kApiVersionTooHigh;
#elif defined(NXRT_FAULT_RANDOM_GROUPS)
constexpr Fault kFault = Fault::kRandomGroups;
#else
#error "define one NXRT_FAULT_<NAME> (see plugins/CMakeLists.txt)"
#endif

// The fault's name as in the library file name (NXRT_FAULT_NAME comes from the build), and the
// name of its EP: "fault_<name>", so that a session may hold it next to example_ep.
constexpr const char* kFaultName = NXRT_FAULT_NAME;
constexpr const char* kFaultEpName = "fault_" NXRT_FAULT_NAME;

// The host's API 29 tables, set by CreateEpFactories before any other callback can run.
const OrtApi* g_ort = nullptr;
const OrtEpApi* g_ep_api = nullptr;

// The example's own slots that a wrapping slot calls first (the same functions in every
// factory, EP and compute info of this library).
decltype(OrtEpFactory::CreateEp) g_example_create_ep = nullptr;
decltype(OrtEp::Compile) g_example_compile = nullptr;

// Where group_unknown_node points: static storage that is no OrtNode of any graph. A host must
// find it unknown by lookup and never read it.
alignas(64) const unsigned char kNotANode[256] = {};

OrtStatus* OnPurpose(OrtErrorCode code, const char* what) {
  std::string message = std::string("fault fixture ") + kFaultName + ": " + what + " on purpose";
  return g_ort->CreateStatus(code, message.c_str());
}

// ---- compute info -------------------------------------------------------------------------

OrtStatus* ORT_API_CALL FailingCreateState(OrtNodeComputeInfo*, OrtNodeComputeContext*,
                                           void** state) noexcept {
  *state = nullptr;
  return OnPurpose(ORT_EP_FAIL, "CreateState fails");
}

OrtStatus* ORT_API_CALL FailingCompute(OrtNodeComputeInfo*, void*, OrtKernelContext*) noexcept {
  return OnPurpose(ORT_EP_FAIL, "Compute fails");
}

void BreakComputeInfo(OrtNodeComputeInfo* info) {
  if constexpr (kFault == Fault::kCreateStateNullFn) info->CreateState = nullptr;
  if constexpr (kFault == Fault::kCreateStateFails) info->CreateState = FailingCreateState;
  if constexpr (kFault == Fault::kComputeNullFn) info->Compute = nullptr;
  if constexpr (kFault == Fault::kComputeFails) info->Compute = FailingCompute;
}

// ---- OrtEp --------------------------------------------------------------------------------

OrtStatus* ORT_API_CALL FailingGetCapability(OrtEp*, const OrtGraph*,
                                             OrtEpGraphSupportInfo*) noexcept {
  return OnPurpose(ORT_EP_FAIL, "GetCapability fails");
}

// Every AddNodesToFuse call is made; the first error the host returns is passed on.
OrtStatus* AddGroups(OrtEpGraphSupportInfo* support,
                     const std::vector<std::vector<const OrtNode*>>& groups) {
  OrtNodeFusionOptions fusion{};
  fusion.ort_version_supported = ORT_API_VERSION;
  fusion.drop_constant_initializers = true;
  OrtStatus* first_error = nullptr;
  for (const std::vector<const OrtNode*>& group : groups) {
    OrtStatus* status =
        g_ep_api->EpGraphSupportInfo_AddNodesToFuse(support, group.data(), group.size(), &fusion);
    if (first_error == nullptr) {
      first_error = status;
    } else if (status != nullptr) {
      g_ort->ReleaseStatus(status);
    }
  }
  return first_error;
}

// The nodes of `graph` in the order the host gives them.
OrtStatus* GraphNodes(const OrtGraph* graph, std::vector<const OrtNode*>& nodes) {
  size_t num_nodes = 0;
  if (OrtStatus* status = g_ort->Graph_GetNumNodes(graph, &num_nodes)) return status;
  nodes.resize(num_nodes);
  return num_nodes == 0 ? nullptr : g_ort->Graph_GetNodes(graph, nodes.data(), num_nodes);
}

// The bad groups of the group_* faults, over the graph's nodes in topological order:
//   group_unknown_node  {node 0, kNotANode}
//   group_node_twice    {node 0, node 0}, then {node 1} twice (with at least 2 nodes)
//   group_claims_all    {every node}
//   group_non_convex    {node 0, node 2} (with at least 3 nodes; a chain A->B->C gives A, C)
OrtStatus* ORT_API_CALL BadGroupsGetCapability(OrtEp*, const OrtGraph* graph,
                                               OrtEpGraphSupportInfo* support) noexcept {
  std::vector<const OrtNode*> nodes;
  if (OrtStatus* status = GraphNodes(graph, nodes)) return status;
  const size_t num_nodes = nodes.size();
  if (num_nodes == 0) return nullptr;
  std::vector<std::vector<const OrtNode*>> groups;
  if constexpr (kFault == Fault::kGroupUnknownNode) {
    groups.push_back({nodes[0], reinterpret_cast<const OrtNode*>(kNotANode)});
  } else if constexpr (kFault == Fault::kGroupNodeTwice) {
    groups.push_back({nodes[0], nodes[0]});
    if (num_nodes >= 2) {
      groups.push_back({nodes[1]});
      groups.push_back({nodes[1]});
    }
  } else if constexpr (kFault == Fault::kGroupClaimsAll) {
    groups.push_back(nodes);
  } else if constexpr (kFault == Fault::kGroupNonConvex) {
    if (num_nodes >= 3) groups.push_back({nodes[0], nodes[2]});
  }
  return AddGroups(support, groups);
}

// splitmix64: the random_groups fault's generator (deterministic for a seed on every host).
uint64_t NextRandom(uint64_t& state) {
  uint64_t z = (state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// The nodes of the graph random_groups saw last (possibly a graph the host has freed since):
// pointers a host must find unknown by lookup, never dereference.
std::vector<const OrtNode*> g_previous_nodes;

// random_groups: 1 to 3 groups over the nodes in the order given, drawn from the seed in the
// environment variable NXRT_FAULT_SEED (default 1) mixed with the node count. Each group is a run
// of consecutive nodes (convex in a topological order), sometimes broken: a random subset
// (perhaps not convex), a node listed twice, kNotANode, a null entry, a node of the previous
// graph, or no node at all. drop_constant_initializers is random too. Groups may overlap. The
// first error the host returns is passed on, or (at random) ignored.
OrtStatus* ORT_API_CALL RandomGroupsGetCapability(OrtEp*, const OrtGraph* graph,
                                                  OrtEpGraphSupportInfo* support) noexcept {
  std::vector<const OrtNode*> nodes;
  if (OrtStatus* status = GraphNodes(graph, nodes)) return status;
  const size_t num_nodes = nodes.size();
  if (num_nodes == 0) return nullptr;
  const char* seed_text = std::getenv("NXRT_FAULT_SEED");
  uint64_t state = (seed_text != nullptr ? std::strtoull(seed_text, nullptr, 10) : 1) * 1000003u +
                   num_nodes;
  const size_t group_count = 1 + NextRandom(state) % 3;
  OrtStatus* first_error = nullptr;
  for (size_t g = 0; g < group_count; ++g) {
    const size_t first = NextRandom(state) % num_nodes;
    const size_t last = first + NextRandom(state) % (num_nodes - first);
    std::vector<const OrtNode*> group(nodes.begin() + first, nodes.begin() + last + 1);
    switch (NextRandom(state) % 9) {
      case 3:
        group.clear();
        for (const OrtNode* node : nodes) {
          if (NextRandom(state) % 2 == 0) group.push_back(node);
        }
        break;
      case 4: group.push_back(group.front()); break;
      case 5: group.push_back(reinterpret_cast<const OrtNode*>(kNotANode)); break;
      case 6: group.insert(group.begin(), nullptr); break;
      case 7:
        if (!g_previous_nodes.empty()) {
          group.push_back(g_previous_nodes[NextRandom(state) % g_previous_nodes.size()]);
        }
        break;
      case 8: group.clear(); break;
      default: break;  // a valid run of consecutive nodes
    }
    OrtNodeFusionOptions fusion{};
    fusion.ort_version_supported = ORT_API_VERSION;
    fusion.drop_constant_initializers = NextRandom(state) % 2 == 0;
    OrtStatus* status = g_ep_api->EpGraphSupportInfo_AddNodesToFuse(
        support, group.empty() ? nullptr : group.data(), group.size(), &fusion);
    if (first_error == nullptr) {
      first_error = status;
    } else if (status != nullptr) {
      g_ort->ReleaseStatus(status);
    }
  }
  g_previous_nodes = nodes;
  if (first_error != nullptr && NextRandom(state) % 2 == 0) {
    g_ort->ReleaseStatus(first_error);  // a plugin that ignores the host's refusals
    return nullptr;
  }
  return first_error;
}

OrtStatus* ORT_API_CALL FailingCompile(OrtEp*, const OrtGraph**, const OrtNode**, size_t count,
                                       OrtNodeComputeInfo** infos, OrtNode**) noexcept {
  for (size_t i = 0; i < count; ++i) infos[i] = nullptr;
  return OnPurpose(ORT_EP_FAIL, "Compile fails");
}

// Reports success but hands back no compute info at all.
OrtStatus* ORT_API_CALL NullInfoCompile(OrtEp*, const OrtGraph**, const OrtNode**, size_t count,
                                        OrtNodeComputeInfo** infos, OrtNode**) noexcept {
  for (size_t i = 0; i < count; ++i) infos[i] = nullptr;
  return nullptr;
}

OrtStatus* ORT_API_CALL CompileThenBreak(OrtEp* ep, const OrtGraph** graphs,
                                         const OrtNode** fused_nodes, size_t count,
                                         OrtNodeComputeInfo** infos,
                                         OrtNode** ep_context_nodes) noexcept {
  OrtStatus* status = g_example_compile(ep, graphs, fused_nodes, count, infos, ep_context_nodes);
  if (status != nullptr) return status;
  for (size_t i = 0; i < count; ++i) BreakComputeInfo(infos[i]);
  return nullptr;
}

void BreakEp(OrtEp* ep) {
  switch (kFault) {
    case Fault::kCapabilityFails:
      ep->GetCapability = FailingGetCapability;
      break;
    case Fault::kGroupUnknownNode:
    case Fault::kGroupNodeTwice:
    case Fault::kGroupClaimsAll:
    case Fault::kGroupNonConvex:
      ep->GetCapability = BadGroupsGetCapability;
      break;
    case Fault::kRandomGroups:
      ep->GetCapability = RandomGroupsGetCapability;
      break;
    case Fault::kCompileFails:
      ep->Compile = FailingCompile;
      break;
    case Fault::kCompileNullInfo:
      ep->Compile = NullInfoCompile;
      break;
    case Fault::kCreateStateNullFn:
    case Fault::kCreateStateFails:
    case Fault::kComputeNullFn:
    case Fault::kComputeFails:
      g_example_compile = ep->Compile;
      ep->Compile = CompileThenBreak;
      break;
    default:
      break;
  }
}

// ---- OrtEpFactory -------------------------------------------------------------------------

OrtStatus* ORT_API_CALL FailingCreateEp(OrtEpFactory*, const OrtHardwareDevice* const*,
                                        const OrtKeyValuePairs* const*, size_t,
                                        const OrtSessionOptions*, const OrtLogger*,
                                        OrtEp** ep) noexcept {
  *ep = nullptr;
  return OnPurpose(ORT_EP_FAIL, "CreateEp fails");
}

// Reports success but hands back no OrtEp.
OrtStatus* ORT_API_CALL NullCreateEp(OrtEpFactory*, const OrtHardwareDevice* const*,
                                     const OrtKeyValuePairs* const*, size_t,
                                     const OrtSessionOptions*, const OrtLogger*,
                                     OrtEp** ep) noexcept {
  *ep = nullptr;
  return nullptr;
}

OrtStatus* ORT_API_CALL CreateEpThenBreak(OrtEpFactory* factory,
                                          const OrtHardwareDevice* const* devices,
                                          const OrtKeyValuePairs* const* metadata,
                                          size_t num_devices, const OrtSessionOptions* options,
                                          const OrtLogger* logger, OrtEp** ep) noexcept {
  OrtStatus* status =
      g_example_create_ep(factory, devices, metadata, num_devices, options, logger, ep);
  if (status != nullptr) return status;
  BreakEp(*ep);
  return nullptr;
}

void BreakFactory(OrtEpFactory* factory) {
  switch (kFault) {
    case Fault::kFactoryVersion0:
      factory->ort_version_supported = 0;
      break;
    case Fault::kFactoryVersion21:
      factory->ort_version_supported = 21;
      break;
    case Fault::kCreateEpNullFn:
      factory->CreateEp = nullptr;
      break;
    case Fault::kCreateEpFails:
      factory->CreateEp = FailingCreateEp;
      break;
    case Fault::kCreateEpReturnsNull:
      factory->CreateEp = NullCreateEp;
      break;
    default:
      g_example_create_ep = factory->CreateEp;
      factory->CreateEp = CreateEpThenBreak;
      break;
  }
}

// CreateEpFactories of api_version_too_high: a plugin built for API 31, one past what ONNX
// Runtime 1.30 and nxrt serve, asks for it and fails through API 1 (CreateStatus exists since
// 1). Both hosts must answer NULL.
OrtStatus* CreateFactoriesNeedingApi31(const OrtApiBase* api_base, size_t* num_factories) {
  *num_factories = 0;
  const OrtApi* api_31 = api_base->GetApi(31);
  g_ort = api_base->GetApi(1);
  if (g_ort == nullptr) return nullptr;
  return OnPurpose(ORT_NOT_IMPLEMENTED,
                   api_31 == nullptr
                       ? "GetApi(31) gave NULL, so CreateEpFactories makes no factory and fails"
                       : "GetApi(31) gave a table (the host speaks API 31 or newer), yet "
                         "CreateEpFactories fails");
}

// CreateEpFactories: the example's, broken as kFault says.
OrtStatus* CreateFactories(const OrtApiBase* api_base, OrtEpFactory** factories,
                           size_t max_factories, size_t* num_factories) {
  if constexpr (kFault == Fault::kApiVersionTooHigh) {
    return CreateFactoriesNeedingApi31(api_base, num_factories);
  }
  *num_factories = 0;
  g_ort = api_base->GetApi(ORT_API_VERSION);
  if (g_ort == nullptr) return nullptr;
  g_ep_api = g_ort->GetEpApi();
  switch (kFault) {
    case Fault::kFactoriesError:
      return OnPurpose(ORT_FAIL, "CreateEpFactories fails");
    case Fault::kZeroFactories:
      return nullptr;
    case Fault::kNullFactory:
      if (max_factories < 1) return nullptr;
      factories[0] = nullptr;
      *num_factories = 1;
      return nullptr;
    default:
      break;
  }
  OrtStatus* status = nxrt_example_ep::CreateExampleEpFactories(
      api_base, kFaultEpName, factories, max_factories, num_factories);
  if (status == nullptr && *num_factories == 1) BreakFactory(factories[0]);
  return status;
}

}  // namespace

#define NXRT_FAULT_EXPORT extern "C" __attribute__((visibility("default")))

// no_create_symbol exports the entry point under a misspelt name (singular), so the library
// loads but has no CreateEpFactories.
#if defined(NXRT_FAULT_NO_CREATE_SYMBOL)
#define NXRT_FAULT_CREATE_SYMBOL CreateEpFactory
#else
#define NXRT_FAULT_CREATE_SYMBOL CreateEpFactories
#endif

NXRT_FAULT_EXPORT OrtStatus* NXRT_FAULT_CREATE_SYMBOL(const char*, const OrtApiBase* api_base,
                                                      const OrtLogger*, OrtEpFactory** factories,
                                                      size_t max_factories,
                                                      size_t* num_factories) {
  return CreateFactories(api_base, factories, max_factories, num_factories);
}

NXRT_FAULT_EXPORT OrtStatus* ReleaseEpFactory(OrtEpFactory* factory) {
  nxrt_example_ep::ReleaseExampleEpFactory(factory);
  return nullptr;
}
