// ort_ep/ep.cpp: options, GetCapability (nxrt's pipeline places the OrtGraph on its CPU EP),
// Compile (one nxrt Session per fused group), the compute infos, and the control-flow kernel
// registry of NxrtExecutionProvider.
#include "ort_ep/ep.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <new>
#include <optional>
#include <source_location>
#include <string>
#include <utility>

#include "ep/cpu/math/tensor/transpose.h"
#include "nxrt/session.h"
#include "optimizer/optimizer.h"
#include "ort_ep/graph_reader.h"
#include "runtime/control_flow.h"
#include "runtime/model_pipeline.h"

namespace nxrt::ort_ep {
namespace {

constexpr const char* kOptionPrefix = "ep.nxrtexecutionprovider.";
constexpr const char* kThreads = "threads";
constexpr const char* kOptLevel = "opt_level";
constexpr const char* kDisabledPasses = "disabled_passes";

OrtStatus* BadOption(const OrtApi& ort, const std::string& key, const std::string& value,
                     const std::string& allowed) {
  return MakeOrtStatus(ort, ORT_INVALID_ARGUMENT,
                       "session option " + key + "='" + value + "' is not allowed; " + allowed);
}

// A decimal integer in [low, high], or nullopt.
std::optional<int> ParseInt(const std::string& value, int low, int high) {
  if (value.empty() || value.size() > 6 ||
      !std::all_of(value.begin(), value.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    return std::nullopt;
  }
  const int parsed = std::stoi(value);
  if (parsed < low || parsed > high) return std::nullopt;
  return parsed;
}

// The optimizer's pass names that may be switched off (level 1 and 2), comma-separated.
std::string SwitchablePasses() {
  std::string names;
  for (const auto& pass : opt::AllPasses()) {
    if (pass->level() == 0) continue;
    names += (names.empty() ? "" : ", ") + std::string(pass->name());
  }
  return names;
}

OrtStatus* ParseDisabledPasses(const OrtApi& ort, const std::string& key, const std::string& value,
                               std::vector<std::string>* out) {
  out->clear();
  size_t begin = 0;
  while (begin <= value.size()) {
    size_t end = value.find(',', begin);
    if (end == std::string::npos) end = value.size();
    std::string item = value.substr(begin, end - begin);
    item.erase(0, item.find_first_not_of(' '));
    item.erase(item.find_last_not_of(' ') + 1);
    begin = end + 1;
    if (item.empty()) continue;
    const auto& passes = opt::AllPasses();
    const bool known = std::any_of(passes.begin(), passes.end(), [&](const auto& pass) {
      return pass->level() > 0 && pass->name() == item;
    });
    if (!known) {
      return BadOption(ort, key, value,
                       "'" + item + "' is no pass that can be switched off; allowed: a comma-"
                       "separated list of " + SwitchablePasses());
    }
    out->push_back(std::move(item));
  }
  return nullptr;
}

void Log(const OrtApi& ort, const OrtLogger* logger, OrtLoggingLevel level,
         const std::string& message, std::source_location where = std::source_location::current()) {
  if (logger == nullptr) return;
  const std::string text = std::string(kEpName) + ": " + message;
  if (OrtStatus* status = ort.Logger_LogMessage(logger, level, text.c_str(), where.file_name(),
                                                static_cast<int>(where.line()),
                                                where.function_name())) {
    ort.ReleaseStatus(status);
  }
}

struct NxrtEp : OrtEp {
  HostApi api;
  const OrtLogger* logger = nullptr;
  EpOptions options;
  OrtKernelRegistry* registry = nullptr;
};

const char* ORT_API_CALL GetName(const OrtEp*) noexcept { return kEpName; }

// ---- GetCapability ----

// The nodes of `graph` in Graph_GetNodes order (node id i of the read IR is nodes[i]).
Result<std::vector<const OrtNode*>> NodesOf(const OrtApi& ort, const OrtGraph* graph) {
  size_t count = 0;
  NXRT_RETURN_IF_ERROR(FromOrtStatus(ort, ort.Graph_GetNumNodes(graph, &count), "Graph_GetNumNodes"));
  std::vector<const OrtNode*> nodes(count);
  if (count > 0) {
    NXRT_RETURN_IF_ERROR(
        FromOrtStatus(ort, ort.Graph_GetNodes(graph, nodes.data(), count), "Graph_GetNodes"));
  }
  return nodes;
}

Status Capability(NxrtEp& ep, const OrtGraph* graph, OrtEpGraphSupportInfo* support) {
  const OrtApi& ort = *ep.api.ort;
  const OrtEpApi& ep_api = *ep.api.ep;
  NXRT_ASSIGN_OR_RETURN(ReadGraph read, ReadOrtGraph(ort, graph, InitializerData::kBorrow));
  NXRT_ASSIGN_OR_RETURN(std::vector<const OrtNode*> nodes, NodesOf(ort, graph));
  const std::string graph_name = read.model.graph->name;

  // Why a node is not offered to nxrt at all: another EP has it, or ORT cannot hand it over.
  std::vector<std::string> kept(nodes.size());
  for (size_t n = 0; n < nodes.size(); ++n) {
    const char* assigned = nullptr;
    NXRT_RETURN_IF_ERROR(FromOrtStatus(ort, ort.Node_GetEpName(nodes[n], &assigned), "Node_GetEpName"));
    if (assigned != nullptr && assigned[0] != '\0') {
      kept[n] = std::string("ONNX Runtime assigned it to ") + assigned + " already";
    } else {
      kept[n] = read.unreadable[n];
    }
  }

  SessionOptions options;
  options.providers.emplace_back().type = "cpu";
  options.intra_op_threads = 1;
  options.optimization_level = 0;  // claims name ORT's nodes: nothing may be rewritten first
  options.allow_fallback = false;
  NXRT_ASSIGN_OR_RETURN(std::unique_ptr<runtime::ModelPipeline> pipeline,
                        runtime::ModelPipeline::Prepare(std::move(read.model), options, graph_name));
  const ir::Graph* main = pipeline->model().graph.get();
  pipeline->set_node_filter([&](const ir::Graph& g, ir::NodeId n) -> std::optional<std::string> {
    if (&g != main || kept[n].empty()) return std::nullopt;
    return kept[n];
  });
  NXRT_ASSIGN_OR_RETURN(runtime::PlacedModel placed, pipeline->PlaceAll({}, true));
  const runtime::PlacedGraph& placed_main = placed.graphs.front();
  const ep::Placement& placement = placed_main.placement;

  OrtNodeFusionOptions fusion{};
  fusion.ort_version_supported = ORT_API_VERSION;
  fusion.drop_constant_initializers = true;  // Compile copies them into the group's session
  size_t fused = 0;
  size_t claimed = 0;
  for (const ep::PlacedClaim& claim : placement.claims) {
    std::vector<const OrtNode*> group;
    for (ir::NodeId n : claim.claim.nodes) group.push_back(nodes[n]);
    NXRT_RETURN_IF_ERROR(FromOrtStatus(
        ort, ep_api.EpGraphSupportInfo_AddNodesToFuse(support, group.data(), group.size(), &fusion),
        "EpGraphSupportInfo_AddNodesToFuse"));
    ++fused;
    claimed += group.size();
  }
  const ir::Graph& g = *main;
  auto decline = [&](ir::NodeId n, const std::string& reason) {
    Log(ort, ep.logger, ORT_LOGGING_LEVEL_INFO,
        "node '" + g.nodes[n].name + "' (" + g.nodes[n].op_type + ") not claimed: " + reason);
  };
  for (ir::NodeId n : placement.runtime) {
    const ir::Node& node = g.nodes[n];
    if (!kept[n].empty()) {
      decline(n, kept[n]);
      continue;
    }
    if (!runtime::IsClaimableControlFlowOp(node.domain, node.op_type)) {
      decline(n, "nxrt's runtime runs " + node.op_type +
                     " (sequences and optionals), and a plugin EP exchanges tensors only");
      continue;
    }
    const OrtKernelDef* def = nullptr;
    NXRT_RETURN_IF_ERROR(FromOrtStatus(
        ort, ep_api.EpGraphSupportInfo_LookUpKernel(support, nodes[n], &def),
        "EpGraphSupportInfo_LookUpKernel"));
    if (def == nullptr) {
      decline(n, "no control-flow kernel of the EP's registry matches its opset or types");
      continue;
    }
    NXRT_RETURN_IF_ERROR(FromOrtStatus(ort, ep_api.EpGraphSupportInfo_AddSingleNode(support, nodes[n]),
                                       "EpGraphSupportInfo_AddSingleNode"));
    ++claimed;
  }
  for (ir::NodeId n : placement.unplaced) {
    std::string reason;
    for (const ep::EpDecline& d : placement.declines[n]) {
      reason += (reason.empty() ? "" : "; ") + d.reason;
    }
    decline(n, reason.empty() ? "nxrt's CPU EP does not support it" : reason);
  }
  Log(ort, ep.logger, ORT_LOGGING_LEVEL_INFO,
      "graph '" + graph_name + "': claims " + std::to_string(claimed) + " of " +
          std::to_string(nodes.size()) + " nodes, " + std::to_string(fused) + " fused groups");
  return Status::Ok();
}

OrtStatus* ORT_API_CALL GetCapability(OrtEp* this_ptr, const OrtGraph* graph,
                                      OrtEpGraphSupportInfo* support) noexcept {
  auto& ep = *static_cast<NxrtEp*>(this_ptr);
  const OrtApi& ort = *ep.api.ort;
  return Guarded(ort, "GetCapability", [&] {
    return ToOrtStatus(ort, Capability(ep, graph, support).WithContext("GetCapability"));
  });
}

// ---- Compile and Compute ----

// One fused group: its nxrt session and the fused node's input and output names, in the order
// of the OrtKernelContext's inputs and outputs.
struct ComputeInfo : OrtNodeComputeInfo {
  const OrtApi* ort = nullptr;
  std::string name;
  std::unique_ptr<Session> session;
  std::vector<std::string> inputs;
  std::vector<bool> fed;  // per fused input: a session input (not a constant the session holds)
  std::vector<std::string> outputs;
};

// The state of one fused node kernel: ORT may call Compute on it from several runs at once; the
// session gives each concurrent run its own plan instance and arena.
struct ComputeState {
  ComputeInfo* info = nullptr;
};

OrtStatus* ORT_API_CALL CreateState(OrtNodeComputeInfo* this_ptr, OrtNodeComputeContext*,
                                    void** state) noexcept {
  auto* info = static_cast<ComputeInfo*>(this_ptr);
  auto* made = new (std::nothrow) ComputeState{info};
  if (made == nullptr) return MakeOrtStatus(*info->ort, ORT_FAIL, "CreateState: out of memory");
  *state = made;
  return nullptr;
}

void ORT_API_CALL ReleaseState(OrtNodeComputeInfo*, void* state) noexcept {
  delete static_cast<ComputeState*>(state);
}

// The tensor viewing an OrtValue's buffer. Its element type and dims are read in place
// (GetTensorElementTypeAndShapeDataReference, ORT 1.24+): no OrtTensorTypeAndShapeInfo is made
// and released per input and call. On the Compute path, error messages are built only on error.
Result<Tensor> BorrowTensor(const OrtApi& ort, const OrtValue* value, const std::string& name) {
  ONNXTensorElementDataType element = ONNX_TENSOR_ELEMENT_DATA_TYPE_UNDEFINED;
  const int64_t* dims = nullptr;
  size_t rank = 0;
  if (OrtStatus* status =
          ort.GetTensorElementTypeAndShapeDataReference(value, &element, &dims, &rank)) {
    return FromOrtStatus(ort, status, "the type and shape of input '" + name + "'");
  }
  const std::optional<DataType> dtype = DataTypeFromOnnx(element);
  if (!dtype || *dtype == DataType::kString) {
    return MakeStatus(StatusCode::kNotImplemented, "input '", name, "' has ONNX element type ",
                      static_cast<int>(element), "; the plugin takes numeric and bool tensors");
  }
  const void* data = nullptr;
  if (OrtStatus* status = ort.GetTensorData(value, &data)) {
    return FromOrtStatus(ort, status, "GetTensorData('" + name + "')");
  }
  return Tensor::Borrow(*dtype, rank > 0 ? Shape(dims, dims + rank) : Shape(),
                        const_cast<void*>(data));
}

// The OrtKernelContext's output `o` with `shape`, allocated by the host, and its bytes.
Result<void*> HostOutput(const OrtApi& ort, OrtKernelContext* context, size_t o,
                         const std::string& name, const Shape& shape) {
  OrtValue* output = nullptr;
  if (OrtStatus* status =
          ort.KernelContext_GetOutput(context, o, shape.data(), shape.size(), &output)) {
    return FromOrtStatus(ort, status, "KernelContext_GetOutput('" + name + "')");
  }
  void* data = nullptr;
  if (OrtStatus* status = ort.GetTensorMutableData(output, &data)) {
    return FromOrtStatus(ort, status, "GetTensorMutableData('" + name + "')");
  }
  return data;
}

// One fused call: the inputs are the host's buffers, borrowed; the session's kernels write the
// outputs straight into the buffers the host allocates (RunOptions::output_allocator). Only an
// output no kernel computes in this call (an input passed through, a constant) is copied.
Status RunFused(ComputeInfo& info, OrtKernelContext* context) {
  const OrtApi& ort = *info.ort;
  std::vector<NamedValue> feeds;
  feeds.reserve(info.inputs.size());
  for (size_t i = 0; i < info.inputs.size(); ++i) {
    if (!info.fed[i]) continue;
    const OrtValue* value = nullptr;
    NXRT_RETURN_IF_ERROR(
        FromOrtStatus(ort, ort.KernelContext_GetInput(context, i, &value), "KernelContext_GetInput"));
    if (value == nullptr) continue;
    NXRT_ASSIGN_OR_RETURN(Tensor tensor, BorrowTensor(ort, value, info.inputs[i]));
    feeds.push_back({info.inputs[i], Value(std::move(tensor))});
  }
  std::vector<void*> bound(info.outputs.size(), nullptr);
  RunOptions options;
  options.output_allocator = [&](const std::string& name, DataType dtype,
                                 const Shape& shape) -> Result<Tensor> {
    const auto it = std::find(info.outputs.begin(), info.outputs.end(), name);
    const size_t o = static_cast<size_t>(it - info.outputs.begin());
    if (it == info.outputs.end() || bound[o] != nullptr) return Tensor::Allocate(dtype, shape);
    NXRT_ASSIGN_OR_RETURN(bound[o], HostOutput(ort, context, o, name, shape));
    // The host owns the bytes; the tensor's owner handle only marks them as not nxrt's arena.
    return Tensor::Adopt(dtype, shape, bound[o], std::shared_ptr<const void>(bound[o], [](const void*) {}));
  };
  NXRT_ASSIGN_OR_RETURN(std::vector<NamedValue> results,
                        info.session->RunValues(feeds, info.outputs, options));
  for (size_t o = 0; o < results.size(); ++o) {
    if (!results[o].value.is_tensor()) {
      return MakeStatus(StatusCode::kNotImplemented, "output '", info.outputs[o], "' is ",
                        results[o].value.Description(), "; the plugin hands tensors only");
    }
    const Tensor& result = results[o].value.tensor();
    if (bound[o] == result.raw_data()) continue;
    if (bound[o] == nullptr) {
      NXRT_ASSIGN_OR_RETURN(bound[o], HostOutput(ort, context, o, info.outputs[o], result.shape()));
    }
    if (result.byte_size() > 0) std::memcpy(bound[o], result.raw_data(), result.byte_size());
  }
  return Status::Ok();
}

OrtStatus* ORT_API_CALL Compute(OrtNodeComputeInfo*, void* state,
                                OrtKernelContext* context) noexcept {
  ComputeInfo& info = *static_cast<ComputeState*>(state)->info;
  const OrtApi& ort = *info.ort;
  return Guarded(ort, "Compute", [&]() -> OrtStatus* {
    Status status = RunFused(info, context);
    if (status.ok()) return nullptr;
    return ToOrtStatus(ort, status.WithContext("fused node '" + info.name + "'"));
  });
}

// Names of the values `node` reads (Node_GetInputs) or writes (Node_GetOutputs).
Result<std::vector<std::string>> ValueNames(const OrtApi& ort, const OrtNode* node, bool outputs) {
  size_t count = 0;
  NXRT_RETURN_IF_ERROR(FromOrtStatus(
      ort, outputs ? ort.Node_GetNumOutputs(node, &count) : ort.Node_GetNumInputs(node, &count),
      "Node_GetNum*puts"));
  std::vector<const OrtValueInfo*> values(count);
  if (count > 0) {
    NXRT_RETURN_IF_ERROR(FromOrtStatus(ort,
                                       outputs ? ort.Node_GetOutputs(node, values.data(), count)
                                               : ort.Node_GetInputs(node, values.data(), count),
                                       "Node_Get*puts"));
  }
  std::vector<std::string> names;
  for (const OrtValueInfo* value : values) {
    const char* name = nullptr;
    if (value != nullptr) {
      NXRT_RETURN_IF_ERROR(FromOrtStatus(ort, ort.GetValueInfoName(value, &name), "GetValueInfoName"));
    }
    names.push_back(name != nullptr ? name : "");
  }
  return names;
}

Result<std::unique_ptr<ComputeInfo>> CompileGroup(const NxrtEp& ep, const OrtGraph* graph,
                                                  const OrtNode* fused_node) {
  const OrtApi& ort = *ep.api.ort;
  auto info = std::make_unique<ComputeInfo>();
  info->ort_version_supported = ORT_API_VERSION;
  info->CreateState = CreateState;
  info->Compute = Compute;
  info->ReleaseState = ReleaseState;
  info->ort = &ort;
  const char* name = nullptr;
  NXRT_RETURN_IF_ERROR(FromOrtStatus(ort, ort.Node_GetName(fused_node, &name), "Node_GetName"));
  info->name = name != nullptr ? name : "";
  NXRT_ASSIGN_OR_RETURN(info->inputs, ValueNames(ort, fused_node, false));
  NXRT_ASSIGN_OR_RETURN(info->outputs, ValueNames(ort, fused_node, true));
  NXRT_ASSIGN_OR_RETURN(ReadGraph read, ReadOrtGraph(ort, graph, InitializerData::kCopy));

  SessionOptions options;
  options.providers.emplace_back().type = "cpu";
  options.intra_op_threads = ep.options.threads;
  options.optimization_level = ep.options.opt_level;
  options.disabled_optimizers = ep.options.disabled_passes;
  NXRT_ASSIGN_OR_RETURN(info->session,
                        runtime::CreateSession(std::move(read.model), options, info->name));
  for (const std::string& input : info->inputs) {
    const auto& declared = info->session->inputs();
    info->fed.push_back(std::any_of(declared.begin(), declared.end(),
                                    [&](const ValueInfo& v) { return v.name == input; }));
  }
  return info;
}

void ORT_API_CALL ReleaseNodeComputeInfos(OrtEp*, OrtNodeComputeInfo** infos,
                                          size_t count) noexcept {
  for (size_t i = 0; i < count; ++i) delete static_cast<ComputeInfo*>(infos[i]);
}

OrtStatus* ORT_API_CALL Compile(OrtEp* this_ptr, const OrtGraph** graphs,
                                const OrtNode** fused_nodes, size_t count,
                                OrtNodeComputeInfo** compute_infos, OrtNode**) noexcept {
  auto& ep = *static_cast<NxrtEp*>(this_ptr);
  const OrtApi& ort = *ep.api.ort;
  for (size_t i = 0; i < count; ++i) compute_infos[i] = nullptr;
  return Guarded(ort, "Compile", [&]() -> OrtStatus* {
    for (size_t i = 0; i < count; ++i) {
      Result<std::unique_ptr<ComputeInfo>> info = CompileGroup(ep, graphs[i], fused_nodes[i]);
      if (!info.ok()) {
        ReleaseNodeComputeInfos(this_ptr, compute_infos, i);  // nothing half-built survives
        for (size_t j = 0; j < i; ++j) compute_infos[j] = nullptr;
        return ToOrtStatus(ort, info.status().WithContext("Compile"));
      }
      compute_infos[i] = info->release();
    }
    return nullptr;
  });
}

const char* ORT_API_CALL GetCompiledModelCompatibilityInfo(OrtEp*, const OrtGraph*) noexcept {
  return "";
}

// Session::Run may be called from several threads at once (nxrt/session.h).
OrtStatus* ORT_API_CALL IsConcurrentRunSupported(OrtEp*, bool* is_supported) noexcept {
  *is_supported = true;
  return nullptr;
}

OrtStatus* ORT_API_CALL GetKernelRegistry(OrtEp* this_ptr,
                                          const OrtKernelRegistry** registry) noexcept {
  *registry = static_cast<NxrtEp*>(this_ptr)->registry;
  return nullptr;
}

// ---- control flow: the host's If/Loop/Scan kernels with the EP's CPU helpers ----

struct LoopHelper : OrtLoopKernelHelper {
  const OrtApi* ort = nullptr;
};

// The Loop's scan output: each iteration's bytes after the other.
OrtStatus* ORT_API_CALL ConcatOutput(OrtLoopKernelHelper* this_ptr, void*,
                                     const OrtValue* const* per_iteration, size_t count,
                                     void* output, size_t output_bytes) noexcept {
  const OrtApi& ort = *static_cast<LoopHelper*>(this_ptr)->ort;
  size_t offset = 0;
  for (size_t i = 0; i < count; ++i) {
    size_t bytes = 0;
    const void* data = nullptr;
    NXRT_ORT_RETURN_IF_ERROR(ort.GetTensorSizeInBytes(per_iteration[i], &bytes));
    NXRT_ORT_RETURN_IF_ERROR(ort.GetTensorData(per_iteration[i], &data));
    if (offset + bytes > output_bytes) {
      return MakeOrtStatus(ort, ORT_INVALID_ARGUMENT,
                           "Loop ConcatOutput: the iterations hold more than the " +
                               std::to_string(output_bytes) + " bytes of the output");
    }
    if (bytes > 0) std::memcpy(static_cast<char*>(output) + offset, data, bytes);
    offset += bytes;
  }
  return nullptr;
}

void ORT_API_CALL ReleaseLoopHelper(OrtLoopKernelHelper* this_ptr) noexcept {
  delete static_cast<LoopHelper*>(this_ptr);
}

struct ScanHelper : OrtScanKernelHelper {
  const OrtApi* ort = nullptr;
};

// output = input with its axes permuted, by the CPU EP's Transpose math.
OrtStatus* ORT_API_CALL ScanTranspose(OrtScanKernelHelper* this_ptr, const size_t* permutation,
                                      size_t rank, const OrtValue* input, OrtSyncStream*,
                                      OrtValue* output) noexcept {
  const OrtApi& ort = *static_cast<ScanHelper*>(this_ptr)->ort;
  return Guarded(ort, "Scan Transpose", [&]() -> OrtStatus* {
    Result<Tensor> in = BorrowTensor(ort, input, "Scan input");
    if (!in.ok()) return ToOrtStatus(ort, in.status());
    std::vector<int64_t> perm(permutation, permutation + rank);
    Result<cpu::nn::PermutePlan> plan = cpu::nn::PrepareTranspose(in->dtype(), in->shape(), perm);
    if (!plan.ok()) return ToOrtStatus(ort, plan.status());
    void* out = nullptr;
    NXRT_ORT_RETURN_IF_ERROR(ort.GetTensorMutableData(output, &out));
    return ToOrtStatus(ort, cpu::nn::Permute(*plan, in->raw_data(), out));
  });
}

void ORT_API_CALL ReleaseScanHelper(OrtScanKernelHelper* this_ptr) noexcept {
  delete static_cast<ScanHelper*>(this_ptr);
}

OrtStatus* ORT_API_CALL CreateIf(void* state, const OrtKernelInfo* info,
                                 OrtKernelImpl** out) noexcept {
  return static_cast<const HostApi*>(state)->ep->CreateIfKernel(info, out);
}

OrtStatus* ORT_API_CALL CreateLoop(void* state, const OrtKernelInfo* info,
                                   OrtKernelImpl** out) noexcept {
  const auto& api = *static_cast<const HostApi*>(state);
  auto* helper = new (std::nothrow) LoopHelper();
  if (helper == nullptr) return MakeOrtStatus(*api.ort, ORT_FAIL, "CreateLoop: out of memory");
  helper->ort_version_supported = ORT_API_VERSION;
  helper->Release = ReleaseLoopHelper;
  helper->ConcatOutput = ConcatOutput;
  helper->ort = api.ort;
  OrtStatus* status = api.ep->CreateLoopKernel(info, helper, out);
  if (status != nullptr) delete helper;  // the host owns it only when the call succeeds
  return status;
}

OrtStatus* ORT_API_CALL CreateScan(void* state, const OrtKernelInfo* info,
                                   OrtKernelImpl** out) noexcept {
  const auto& api = *static_cast<const HostApi*>(state);
  auto* helper = new (std::nothrow) ScanHelper();
  if (helper == nullptr) return MakeOrtStatus(*api.ort, ORT_FAIL, "CreateScan: out of memory");
  helper->ort_version_supported = ORT_API_VERSION;
  helper->Release = ReleaseScanHelper;
  helper->Transpose = ScanTranspose;
  helper->ort = api.ort;
  OrtStatus* status = api.ep->CreateScanKernel(info, helper, out);
  if (status != nullptr) delete helper;
  return status;
}

struct ControlFlowDef {
  const char* op;
  int since;
  int until;
  std::vector<std::pair<const char*, std::vector<ONNXTensorElementDataType>>> constraints;
  std::vector<size_t> cpu_inputs;  // inputs the host's kernel reads on the CPU (OrtMemTypeCPUInput)
  OrtKernelCreateFunc create;
};

OrtStatus* AddControlFlowKernel(const HostApi& api, const ControlFlowDef& def,
                                OrtKernelRegistry* registry) {
  const OrtEpApi& ep = *api.ep;
  OrtKernelDefBuilder* builder = nullptr;
  NXRT_ORT_RETURN_IF_ERROR(ep.CreateKernelDefBuilder(&builder));
  OrtStatus* status = ep.KernelDefBuilder_SetOperatorType(builder, def.op);
  if (status == nullptr) status = ep.KernelDefBuilder_SetDomain(builder, "");
  if (status == nullptr) status = ep.KernelDefBuilder_SetSinceVersion(builder, def.since, def.until);
  if (status == nullptr) status = ep.KernelDefBuilder_SetExecutionProvider(builder, kEpName);
  for (size_t input : def.cpu_inputs) {
    if (status == nullptr) {
      status = ep.KernelDefBuilder_SetInputMemType(builder, input, OrtMemTypeCPUInput);
    }
  }
  for (const auto& [name, types] : def.constraints) {
    std::vector<const OrtDataType*> data_types;
    for (ONNXTensorElementDataType t : types) {
      const OrtDataType* type = nullptr;
      if (status == nullptr) status = ep.GetTensorDataType(t, &type);
      data_types.push_back(type);
    }
    if (status == nullptr) {
      status = ep.KernelDefBuilder_AddTypeConstraint(builder, name, data_types.data(),
                                                     data_types.size());
    }
  }
  OrtKernelDef* kernel_def = nullptr;
  if (status == nullptr) status = ep.KernelDefBuilder_Build(builder, &kernel_def);
  ep.ReleaseKernelDefBuilder(builder);
  if (status == nullptr) {
    status = ep.KernelRegistry_AddKernel(registry, kernel_def, def.create,
                                         const_cast<HostApi*>(&api));
    ep.ReleaseKernelDef(kernel_def);
  }
  return status;
}

// If, Loop and Scan of every opset. Their values ("V") are not constrained: the host's kernel
// only moves them between the node and its bodies, whose own nodes the EP claims or declines
// type by type, and a host whose type inference leaves a body's value untyped (nxrt's, for some
// nested If outputs) still matches the kernel.
OrtStatus* CreateControlFlowRegistry(const HostApi& api, OrtKernelRegistry** out) {
  const std::vector<ControlFlowDef> defs = {
      {"If", 1, 25, {{"B", {ONNX_TENSOR_ELEMENT_DATA_TYPE_BOOL}}}, {0}, CreateIf},
      {"Loop", 1, 25,
       {{"I", {ONNX_TENSOR_ELEMENT_DATA_TYPE_INT64}}, {"B", {ONNX_TENSOR_ELEMENT_DATA_TYPE_BOOL}}},
       {0, 1},
       CreateLoop},
      {"Scan", 9, 25, {}, {}, CreateScan},
  };
  OrtKernelRegistry* registry = nullptr;
  NXRT_ORT_RETURN_IF_ERROR(api.ep->CreateKernelRegistry(&registry));
  for (const ControlFlowDef& def : defs) {
    if (OrtStatus* status = AddControlFlowKernel(api, def, registry)) {
      api.ep->ReleaseKernelRegistry(registry);
      return status;
    }
  }
  *out = registry;
  return nullptr;
}

}  // namespace

OrtStatus* ReadEpOptions(const OrtApi& ort, const OrtSessionOptions* session_options,
                         EpOptions* options) {
  return Guarded(ort, "reading the session options", [&]() -> OrtStatus* {
    OrtKeyValuePairs* entries = nullptr;
    NXRT_ORT_RETURN_IF_ERROR(ort.GetSessionOptionsConfigEntries(session_options, &entries));
    const char* const* keys = nullptr;
    const char* const* values = nullptr;
    size_t count = 0;
    ort.GetKeyValuePairs(entries, &keys, &values, &count);
    const std::string prefix = kOptionPrefix;
    OrtStatus* status = nullptr;
    for (size_t i = 0; i < count && status == nullptr; ++i) {
      const std::string key = keys[i];
      const std::string value = values[i];
      if (key.rfind(prefix, 0) != 0) continue;
      const std::string name = key.substr(prefix.size());
      if (name == kThreads) {
        const std::optional<int> threads = ParseInt(value, 0, 1024);
        if (!threads) {
          status = BadOption(ort, key, value,
                             "allowed: an integer from 0 to 1024 (intra-op threads per fused "
                             "group; 0 = the number of cores)");
        } else {
          options->threads = *threads;
        }
      } else if (name == kOptLevel) {
        const std::optional<int> level = ParseInt(value, 0, opt::kMaxOptimizationLevel);
        if (!level) {
          status = BadOption(ort, key, value,
                             "allowed: 0 (none), 1 (basic) or 2 (extended, the default)");
        } else {
          options->opt_level = *level;
        }
      } else if (name == kDisabledPasses) {
        status = ParseDisabledPasses(ort, key, value, &options->disabled_passes);
      } else {
        status = BadOption(ort, key, value,
                           std::string("it is no option of ") + kEpName + "; allowed keys: " +
                               kOptionPrefix + kThreads + ", " + kOptionPrefix + kOptLevel +
                               ", " + kOptionPrefix + kDisabledPasses);
      }
    }
    ort.ReleaseKeyValuePairs(entries);
    return status;
  });
}

OrtStatus* NewNxrtEp(const HostApi& api, const OrtLogger* logger, EpOptions options, OrtEp** out) {
  *out = nullptr;
  auto* ep = new (std::nothrow) NxrtEp();  // value-initialised: later slots stay null
  if (ep == nullptr) return MakeOrtStatus(*api.ort, ORT_FAIL, "CreateEp: out of memory");
  ep->ort_version_supported = ORT_API_VERSION;
  ep->GetName = GetName;
  ep->GetCapability = GetCapability;
  ep->Compile = Compile;
  ep->ReleaseNodeComputeInfos = ReleaseNodeComputeInfos;
  ep->GetCompiledModelCompatibilityInfo = GetCompiledModelCompatibilityInfo;
  ep->GetKernelRegistry = GetKernelRegistry;
  ep->IsConcurrentRunSupported = IsConcurrentRunSupported;
  ep->api = api;
  ep->logger = logger;
  ep->options = std::move(options);
  if (OrtStatus* status = CreateControlFlowRegistry(ep->api, &ep->registry)) {
    delete ep;
    return status;
  }
  *out = ep;
  return nullptr;
}

void DeleteNxrtEp(OrtEp* ep) {
  auto* nxrt_ep = static_cast<NxrtEp*>(ep);
  if (nxrt_ep == nullptr) return;
  if (nxrt_ep->registry != nullptr) nxrt_ep->api.ep->ReleaseKernelRegistry(nxrt_ep->registry);
  delete nxrt_ep;
}

}  // namespace nxrt::ort_ep
