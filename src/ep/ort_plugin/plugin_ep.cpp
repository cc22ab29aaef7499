// ep/ort_plugin/plugin_ep.cpp: see plugin_ep.h.
#include "ep/ort_plugin/plugin_ep.h"

#include <algorithm>
#include <cstdio>
#include <unordered_map>
#include <utility>

#include "ep/ort_plugin/api_table.h"
#include "ep/ort_plugin/device_memory.h"
#include "ep/run_observer.h"

namespace nxrt::ort_plugin {
namespace {

uint32_t Effective(uint32_t declared) { return std::min<uint32_t>(declared, kStructApiVersion); }

// Forwards warnings and errors to stderr and, while capturing (during GetCapability), keeps
// every line so declines can be attributed to nodes.
class CapturingLogSink : public LogSink {
 public:
  explicit CapturingLogSink(std::string prefix)
      : stderr_(std::move(prefix), ORT_LOGGING_LEVEL_WARNING) {}
  void Log(OrtLoggingLevel severity, std::string_view message, const char* file, int line,
           const char* function) override {
    stderr_.Log(severity, message, file, line, function);
    std::lock_guard<std::mutex> lock(mutex_);
    if (capturing_) lines_.emplace_back(message);
  }
  void BeginCapture() {
    std::lock_guard<std::mutex> lock(mutex_);
    capturing_ = true;
    lines_.clear();
  }
  std::vector<std::string> EndCapture() {
    std::lock_guard<std::mutex> lock(mutex_);
    capturing_ = false;
    return std::move(lines_);
  }

 private:
  StderrLogSink stderr_;
  std::mutex mutex_;
  bool capturing_ = false;
  std::vector<std::string> lines_;
};

// One compiled claim: its compute info and state, shared by the kernels of every plan instance.
struct CompiledClaim {
  std::string fused_name;
  OrtNodeComputeInfo* info = nullptr;
  void* state = nullptr;
  bool has_state = false;
  // Fused-node input j is the claim's input input_map[j] (constants may have been dropped).
  std::vector<int32_t> input_map;
  ClaimProjection projection;  // keeps the fused node alive for the session
};

// The infos of one Compile call, released together.
struct CompiledBatch {
  std::vector<OrtNodeComputeInfo*> infos;
  std::vector<std::shared_ptr<CompiledClaim>> claims;
};

// The nxrt device of a factory's first device of its own EP name (the hardware type; id 0).
Device DeviceOf(const PluginLibrary::Factory& factory) {
  for (const OrtEpDevice* device : factory.devices) {
    if (device->ep_name != factory.name || device->device == nullptr) continue;
    switch (device->device->type) {
      case OrtHardwareDeviceType_GPU: return Device{DeviceType::kGpu, 0};
      case OrtHardwareDeviceType_NPU: return Device{DeviceType::kNpu, 0};
      default: return Device{};
    }
  }
  return Device{};
}

// Buffers one fused kernel reuses from call to call (a kernel instance is never computed by two
// threads at once).
struct CallBuffers {
  std::vector<OrtValue> inputs;
  std::vector<OrtValue> outputs;
  std::vector<Tensor> contiguous;     // gathered copies of strided inputs
  std::vector<void*> device_blocks;   // device memory of this call, freed after it
  std::vector<OrtValue> host_values;  // host sides of device copies
  std::vector<const OrtValue*> copy_src;
  std::vector<OrtValue*> copy_dst;
};

// OrtKernelContext over one nxrt ComputeContext. Inputs are views of the bound tensors (copies
// in the plugin's device memory when it has its own); an output is allocated when the plugin
// first asks for it (in device memory, copied back by FinishOutputs).
class KernelContextImpl final : public OrtKernelContext {
 public:
  KernelContextImpl(ComputeContext& ctx, const CompiledClaim& claim, const OrtLogger* logger,
                    const std::vector<DataType>& output_dtypes, PluginDeviceMemory* device,
                    CallBuffers& buffers)
      : ctx_(ctx),
        claim_(claim),
        logger_(logger),
        output_dtypes_(output_dtypes),
        device_(device),
        b_(buffers) {}
  ~KernelContextImpl() override {
    for (void* block : b_.device_blocks) device_->Free(block);
    b_.device_blocks.clear();
  }

  Status BindInputs() {
    const OrtMemoryInfo* cpu = &DefaultCpuAllocator().info;
    const size_t n = claim_.input_map.size();
    b_.inputs.resize(n);
    b_.contiguous.resize(n);
    for (size_t j = 0; j < n; ++j) {
      const Tensor* t = ctx_.input(claim_.input_map[j]);
      OrtValue& v = b_.inputs[j];
      if (t == nullptr) {
        v = OrtValue{};
        continue;
      }
      if (!t->is_contiguous()) {
        NXRT_ASSIGN_OR_RETURN(b_.contiguous[j], t->Clone());
        t = &b_.contiguous[j];
      }
      v.element_type = ToOrtElementType(t->dtype());
      v.shape.assign(t->shape().begin(), t->shape().end());
      v.data = const_cast<void*>(t->raw_data());
      v.bytes = t->byte_size();
      v.memory_info = cpu;
    }
    b_.outputs.assign(ctx_.output_count(), OrtValue{});
    if (device_ == nullptr) return Status::Ok();
    // Move the inputs to the plugin's memory in one CopyTensors call.
    b_.host_values.assign(b_.inputs.begin(), b_.inputs.end());
    b_.copy_src.clear();
    b_.copy_dst.clear();
    for (size_t j = 0; j < n; ++j) {
      OrtValue& v = b_.inputs[j];
      if (v.data == nullptr) continue;
      NXRT_ASSIGN_OR_RETURN(void* block, device_->Allocate(v.bytes));
      b_.device_blocks.push_back(block);
      v.data = block;
      v.memory_info = device_->info();
      b_.copy_src.push_back(&b_.host_values[j]);
      b_.copy_dst.push_back(&v);
    }
    return device_->Copy(b_.copy_src, b_.copy_dst);
  }

  size_t InputCount() const override { return b_.inputs.size(); }
  size_t OutputCount() const override { return b_.outputs.size(); }
  const OrtValue* Input(size_t i) const override {
    return i < b_.inputs.size() && b_.inputs[i].data != nullptr ? &b_.inputs[i] : nullptr;
  }
  OrtStatus* Output(size_t i, const int64_t* shape, size_t rank, OrtValue** out) override {
    if (i >= b_.outputs.size()) {
      return MakeOrtStatus(ORT_INVALID_ARGUMENT,
                           "KernelContext_GetOutput: output index " + std::to_string(i) +
                               " is out of range; fused node '" + claim_.fused_name + "' has " +
                               std::to_string(b_.outputs.size()) + " outputs");
    }
    Shape dims(shape, shape + rank);
    for (int64_t d : dims) {
      if (d < 0) {
        return MakeOrtStatus(ORT_INVALID_ARGUMENT, "KernelContext_GetOutput: output " +
                                                       std::to_string(i) + " shape " +
                                                       ShapeToString(dims) + " has a negative dim");
      }
    }
    OrtValue& v = b_.outputs[i];
    if (v.data != nullptr) {
      if (v.shape != dims) {
        return MakeOrtStatus(ORT_INVALID_ARGUMENT,
                             "KernelContext_GetOutput: output " + std::to_string(i) +
                                 " was already allocated with shape " + ShapeToString(v.shape) +
                                 ", now asked for " + ShapeToString(dims));
      }
      *out = &v;
      return nullptr;
    }
    if (device_ != nullptr) {
      Result<int64_t> count = ElementCount(dims);
      if (!count.ok()) return ToOrtStatus(count.status());
      const size_t bytes = static_cast<size_t>(*count) * DataTypeSize(output_dtypes_[i]);
      Result<void*> block = device_->Allocate(bytes);
      if (!block.ok()) return ToOrtStatus(block.status());
      b_.device_blocks.push_back(*block);
      v.element_type = ToOrtElementType(output_dtypes_[i]);
      v.shape = std::move(dims);
      v.data = *block;
      v.bytes = bytes;
      v.memory_info = device_->info();
      *out = &v;
      return nullptr;
    }
    Result<Tensor*> t = ctx_.AllocateOutput(static_cast<int>(i), dims);
    if (!t.ok()) return ToOrtStatus(t.status());
    v.element_type = ToOrtElementType((*t)->dtype());
    v.shape = std::move(dims);
    v.data = (*t)->mutable_raw_data();
    v.bytes = (*t)->byte_size();
    v.memory_info = &DefaultCpuAllocator().info;
    *out = &v;
    return nullptr;
  }
  const OrtLogger* Logger() const override { return logger_; }
  OrtStatus* ParallelFor(void (*fn)(void*, size_t), size_t total, size_t num_batch,
                         void* data) override {
    if (total == 0) return nullptr;
    const size_t batches =
        std::max<size_t>(num_batch == 0 ? static_cast<size_t>(ctx_.thread_count()) : num_batch, 1);
    const int64_t chunk = static_cast<int64_t>((total + batches - 1) / batches);
    ctx_.ParallelFor(static_cast<int64_t>(total), std::max<int64_t>(chunk, 1),
                     [&](int64_t begin, int64_t end) {
                       for (int64_t i = begin; i < end; ++i) fn(data, static_cast<size_t>(i));
                     });
    return nullptr;
  }

  // After Compute: the first output the plugin never asked for, or -1; with device memory,
  // copies every output back into the host tensors of the step.
  Result<int> FinishOutputs() {
    for (size_t i = 0; i < b_.outputs.size(); ++i) {
      if (b_.outputs[i].data == nullptr) return static_cast<int>(i);
    }
    if (device_ == nullptr) return -1;
    b_.host_values.assign(b_.outputs.size(), OrtValue{});
    b_.copy_src.clear();
    b_.copy_dst.clear();
    for (size_t i = 0; i < b_.outputs.size(); ++i) {
      const OrtValue& v = b_.outputs[i];
      NXRT_ASSIGN_OR_RETURN(Tensor * t, ctx_.AllocateOutput(static_cast<int>(i), v.shape));
      OrtValue& host = b_.host_values[i];
      host.element_type = v.element_type;
      host.shape = v.shape;
      host.data = t->mutable_raw_data();
      host.bytes = t->byte_size();
      host.memory_info = &DefaultCpuAllocator().info;
      b_.copy_src.push_back(&v);
      b_.copy_dst.push_back(&host);
    }
    NXRT_RETURN_IF_ERROR(device_->Copy(b_.copy_src, b_.copy_dst));
    return -1;
  }

 private:
  ComputeContext& ctx_;
  const CompiledClaim& claim_;
  const OrtLogger* logger_;
  const std::vector<DataType>& output_dtypes_;
  PluginDeviceMemory* device_;
  CallBuffers& b_;
};

class PluginEp final : public ExecutionProvider,
                       public ep::GraphClaimer,
                       public ep::RunObserver,
                       public PluginInfo {
 public:
  PluginEp(std::shared_ptr<PluginLibrary> library, const PluginLibrary::Factory& factory)
      : ExecutionProvider(factory.name, DeviceOf(factory)),
        library_(std::move(library)),
        factory_(factory),
        sink_(library_->label() + " ep '" + factory.name + "'"),
        label_(library_->label() + " ep '" + factory.name + "'") {
    logger_.id = factory.name;
    logger_.min_severity = ORT_LOGGING_LEVEL_VERBOSE;
    logger_.sink = &sink_;
  }
  ~PluginEp() override { Shutdown(); }

  // ---- ExecutionProvider
  Status Initialize(const EpConfig& config) override {
    for (const auto& [key, value] : config.options()) {
      if (key == kEpNameOption) continue;
      session_options_.config.Set("ep." + ep_name() + "." + key, value);
    }
    std::vector<const OrtHardwareDevice*> hardware;
    std::vector<const OrtKeyValuePairs*> metadata;
    for (OrtEpDevice* device : factory_.devices) {
      if (device->ep_name != ep_name()) continue;
      hardware.push_back(device->device);
      metadata.push_back(&device->ep_metadata);
      for (const auto& [key, value] : device->ep_options.entries) {
        const std::string full = "ep." + ep_name() + "." + key;
        if (session_options_.config.Find(full) == nullptr) session_options_.config.Set(full, value);
      }
    }
    if (hardware.empty()) {
      return MakeStatus(StatusCode::kNotFound, label(), ": the factory offers no device for EP '",
                        ep_name(), "'");
    }
    OrtEpFactory* factory = factory_.factory;
    if (factory->CreateEp == nullptr) {
      return MakeStatus(StatusCode::kFailedPrecondition, label(),
                        ": OrtEpFactory::CreateEp is null; fix the factory's function table");
    }
    OrtEp* ep = nullptr;
    OrtStatus* error = factory->CreateEp(factory, hardware.data(), metadata.data(), hardware.size(),
                                         &session_options_, &logger_, &ep);
    if (error != nullptr) {
      if (ep != nullptr && factory->ReleaseEp != nullptr) factory->ReleaseEp(factory, ep);
      return Status(StatusCode::kFailedPrecondition,
                    TakeOrtStatus(error, label() + ": OrtEpFactory::CreateEp failed").message() +
                        "; check the EP options given for '" + ep_name() + "'");
    }
    if (ep == nullptr) {
      return MakeStatus(StatusCode::kFailedPrecondition, label(),
                        ": OrtEpFactory::CreateEp succeeded but returned no OrtEp; fix the "
                        "plugin's CreateEp");
    }
    ep_ = ep;
    const uint32_t declared = ep->ort_version_supported;
    if (declared < 23 || ep->GetCapability == nullptr || ep->Compile == nullptr) {
      ReleaseEp();
      return MakeStatus(StatusCode::kFailedPrecondition, label(), ": the OrtEp declares version ",
                        declared,
                        declared < 23 ? " (GetCapability and Compile need 23)"
                                      : " but GetCapability or Compile is null",
                        "; fix by building the plugin against ORT 1.23 or newer headers");
    }
    ep_version_ = Effective(declared);
    // A plugin whose device memory is not host memory gets its inputs copied in and its outputs
    // copied out through its own allocator and data transfer (device_memory.h).
    for (OrtEpDevice* device : factory_.devices) {
      if (device->ep_name != ep_name()) continue;
      const OrtMemoryInfo* memory = device->MemoryInfo(OrtDeviceMemoryType_DEFAULT);
      if (memory == nullptr || memory->device.type == OrtMemoryInfoDeviceType_CPU) break;
      Result<std::unique_ptr<PluginDeviceMemory>> device_memory =
          PluginDeviceMemory::Create(factory, factory_.version, memory, label());
      if (!device_memory.ok()) {
        ReleaseEp();
        return device_memory.status();
      }
      device_memory_ = std::move(device_memory).value();
      break;
    }
    if (ep_version_ >= 24 && ep->IsConcurrentRunSupported != nullptr) {
      bool supported = true;
      OrtStatus* status = ep->IsConcurrentRunSupported(ep, &supported);
      if (status != nullptr) {
        HostApi().ReleaseStatus(status);
        supported = false;
      }
      concurrent_runs_ = supported;
    }
    return Status::Ok();
  }

  void Shutdown() override {
    if (ep_ == nullptr) return;
    for (auto it = batches_.rbegin(); it != batches_.rend(); ++it) ReleaseBatch(*it);
    batches_.clear();
    compiled_.clear();
    projections_.clear();
    device_memory_.reset();
    ReleaseEp();
  }

  KernelMatch Supports(const NodeInfo&) const override {
    return KernelMatch::Unsupported("ORT plugin EPs claim nodes through OrtEp::GetCapability");
  }
  Result<std::unique_ptr<Kernel>> CreateKernel(const NodeInfo& node) override {
    return node.Error(StatusCode::kUnsupported, label(),
                      " runs only fused groups; single-node kernels are not hosted");
  }
  Result<std::unique_ptr<Kernel>> CreateFusedKernel(const FusedNodeInfo& info) override;

  EpExtension* QueryExtension(std::string_view name) override {
    if (name == ep::GraphClaimer::kExtensionName) return static_cast<ep::GraphClaimer*>(this);
    if (name == ep::RunObserver::kExtensionName) return static_cast<ep::RunObserver*>(this);
    if (name == PluginInfo::kExtensionName) return static_cast<PluginInfo*>(this);
    return nullptr;
  }

  // ---- GraphClaimer
  Result<ep::GraphClaims> ProposeClaims(const ir::GraphView& view,
                                        const std::vector<bool>& unavailable) override;
  Status CompileClaims(const ir::GraphView& view, std::span<const ClaimToCompile> claims) override;

  // ---- RunObserver
  Status OnRunStart() override {
    if (!concurrent_runs_) run_mutex_.lock();
    if (ep_version_ >= 23 && ep_->OnRunStart != nullptr) {
      OrtStatus* error = ep_->OnRunStart(ep_, &run_options_);
      if (error != nullptr) {
        if (!concurrent_runs_) run_mutex_.unlock();
        return Status(StatusCode::kRuntimeError,
                      TakeOrtStatus(error, label() + ": OrtEp::OnRunStart failed").message());
      }
    }
    return Status::Ok();
  }
  Status OnRunEnd() override {
    Status status;
    if (ep_version_ >= 23 && ep_->OnRunEnd != nullptr) {
      OrtStatus* error = ep_->OnRunEnd(ep_, &run_options_, true);
      if (error != nullptr) {
        status = Status(StatusCode::kRuntimeError,
                        TakeOrtStatus(error, label() + ": OrtEp::OnRunEnd failed").message());
      }
    }
    if (!concurrent_runs_) run_mutex_.unlock();
    return status;
  }

  // ---- PluginInfo
  const PluginLibrary& library() const override { return *library_; }
  const std::string& ep_name() const override { return type_name(); }
  std::string device_label() const override { return device().ToString(); }
  int64_t compute_calls() const override { return calls_.load(std::memory_order_relaxed); }

  // For the kernels.
  // "plugin libexample_ep.so ep 'example_ep'": how messages name this EP.
  const std::string& label() const { return label_; }
  const OrtLogger* logger() const { return &logger_; }
  // The plugin's own device memory, or null when it computes in host memory.
  PluginDeviceMemory* device_memory() const { return device_memory_.get(); }
  void CountCall() { calls_.fetch_add(1, std::memory_order_relaxed); }

 private:
  void ReleaseEp() {
    if (ep_ != nullptr && factory_.factory->ReleaseEp != nullptr) {
      factory_.factory->ReleaseEp(factory_.factory, ep_);
    }
    ep_ = nullptr;
  }
  void ReleaseBatch(CompiledBatch& batch) {
    for (auto& claim : batch.claims) {
      if (claim->has_state && claim->info->ReleaseState != nullptr) {
        claim->info->ReleaseState(claim->info, claim->state);
      }
      claim->has_state = false;
    }
    std::vector<OrtNodeComputeInfo*> infos;
    for (OrtNodeComputeInfo* info : batch.infos) {
      if (info != nullptr) infos.push_back(info);
    }
    if (!infos.empty() && ep_->ReleaseNodeComputeInfos != nullptr) {
      ep_->ReleaseNodeComputeInfos(ep_, infos.data(), infos.size());
    }
    batch.infos.clear();
  }
  // The projection of `view`'s graph (created with its root graph's on first use).
  Result<const GraphProjection*> ProjectionFor(const ir::GraphView& view);
  struct RootProjection {
    std::unique_ptr<ir::GraphView> view;  // outlives `projection`, which borrows it
    std::unique_ptr<GraphProjection> projection;
  };

  std::shared_ptr<PluginLibrary> library_;
  PluginLibrary::Factory factory_;
  CapturingLogSink sink_;
  std::string label_;
  OrtLogger logger_;
  OrtSessionOptions session_options_;
  OrtRunOptions run_options_;
  OrtEp* ep_ = nullptr;
  uint32_t ep_version_ = 0;
  bool concurrent_runs_ = true;
  std::mutex run_mutex_;
  std::atomic<int64_t> calls_{0};
  std::unordered_map<const ir::Graph*, std::unique_ptr<RootProjection>> projections_;
  // Proposals that asked to drop constant initializers, by graph and sorted node ids.
  std::map<std::pair<const ir::Graph*, std::vector<ir::NodeId>>, bool> drop_constants_;
  std::unique_ptr<PluginDeviceMemory> device_memory_;
  std::vector<CompiledBatch> batches_;
  std::unordered_map<std::string, std::shared_ptr<CompiledClaim>> compiled_;
};

// The kernel of one fused claim in one plan instance.
class PluginFusedKernel final : public Kernel {
 public:
  PluginFusedKernel(PluginEp& ep, std::shared_ptr<CompiledClaim> claim,
                    std::vector<DataType> output_dtypes)
      : ep_(ep), claim_(std::move(claim)), output_dtypes_(std::move(output_dtypes)) {}

  Status Prepare(PrepareContext& ctx) override {
    for (int i = 0; i < ctx.output_count(); ++i) {
      NXRT_RETURN_IF_ERROR(ctx.SetOutputDynamic(i, output_dtypes_[i]));
    }
    return Status::Ok();
  }

  Status Compute(ComputeContext& ctx) override {
    KernelContextImpl kernel_context(ctx, *claim_, ep_.logger(), output_dtypes_,
                                     ep_.device_memory(), buffers_);
    NXRT_RETURN_IF_ERROR(kernel_context.BindInputs());
    OrtStatus* error = claim_->info->Compute(claim_->info, claim_->state, &kernel_context);
    if (error != nullptr) {
      return Status(StatusCode::kRuntimeError,
                    TakeOrtStatus(error, ep_.label() +
                                             ": OrtNodeComputeInfo::Compute of fused "
                                             "node '" +
                                             claim_->fused_name + "' failed")
                        .message());
    }
    NXRT_ASSIGN_OR_RETURN(int missing, kernel_context.FinishOutputs());
    if (missing >= 0) {
      return MakeStatus(StatusCode::kRuntimeError, ep_.label(), ": fused node '",
                        claim_->fused_name, "' returned without producing output ", missing,
                        " (KernelContext_GetOutput was never called for it)");
    }
    ep_.CountCall();
    return Status::Ok();
  }

 private:
  PluginEp& ep_;
  std::shared_ptr<CompiledClaim> claim_;
  std::vector<DataType> output_dtypes_;
  CallBuffers buffers_;
};

Result<const GraphProjection*> PluginEp::ProjectionFor(const ir::GraphView& view) {
  // Subgraphs are seen through their root's projection, so that their parent node and
  // outer-scope values are there; the root is projected over a view owned here, because the
  // caller's views may not outlive the session.
  const ir::Graph* root = &view.graph();
  while (root->parent != nullptr) root = root->parent;
  auto it = projections_.find(root);
  if (it == projections_.end()) {
    auto projected = std::make_unique<RootProjection>();
    NXRT_ASSIGN_OR_RETURN(ir::GraphView root_view, ir::GraphView::Create(view.model(), *root));
    projected->view = std::make_unique<ir::GraphView>(std::move(root_view));
    NXRT_ASSIGN_OR_RETURN(projected->projection,
                          GraphProjection::Create(view.model(), *projected->view));
    it = projections_.emplace(root, std::move(projected)).first;
  }
  const GraphProjection* projection = it->second->projection.get();
  if (root == &view.graph()) return projection;
  const GraphProjection* sub = projection->FindSubgraph(&view.graph());
  if (sub == nullptr) {
    return MakeStatus(StatusCode::kInternal, label(), ": subgraph '", view.graph().name,
                      "' is not part of its model's projection");
  }
  return sub;
}

Result<ep::GraphClaims> PluginEp::ProposeClaims(const ir::GraphView& view,
                                                const std::vector<bool>& unavailable) {
  (void)unavailable;
  NXRT_ASSIGN_OR_RETURN(const GraphProjection* projection, ProjectionFor(view));
  OrtEpGraphSupportInfo support;
  support.graph = projection->graph();
  sink_.BeginCapture();
  OrtStatus* error = ep_->GetCapability(ep_, projection->graph(), &support);
  std::vector<std::string> lines = sink_.EndCapture();
  if (error != nullptr) {
    return Status(StatusCode::kFailedPrecondition,
                  TakeOrtStatus(error, label() + ": OrtEp::GetCapability failed").message());
  }
  const ir::Graph& graph = view.graph();
  ep::GraphClaims out;
  for (size_t g = 0; g < support.groups.size(); ++g) {
    const OrtEpGraphSupportInfo::Group& group = support.groups[g];
    std::vector<ir::NodeId> ids;
    size_t unknown = 0;
    for (const OrtNode* node : group.nodes) {
      std::optional<ir::NodeId> id = projection->FindNode(node);
      if (id) {
        ids.push_back(*id);
      } else {
        ++unknown;
      }
    }
    const std::string which = "group " + std::to_string(g) + " of " + label();
    if (!group.fused) {
      out.rejected.push_back({ids, which + " came from EpGraphSupportInfo_AddSingleNode, which "
                                           "asks for a registered EP kernel; nxrt hosts only "
                                           "fused groups (AddNodesToFuse)"});
      continue;
    }
    if (group.nodes.empty()) {
      out.rejected.push_back({ids, which + " is empty"});
      continue;
    }
    if (unknown > 0) {
      out.rejected.push_back({ids, which + " names " + std::to_string(unknown) +
                                       " node pointer(s) that are not nodes of " +
                                       (graph.parent == nullptr ? std::string("the main graph")
                                                                : "subgraph '" + graph.name + "'") +
                                       "; fix the plugin's GetCapability"});
      continue;
    }
    std::vector<ir::NodeId> sorted = ids;
    std::sort(sorted.begin(), sorted.end());
    if (auto dup = std::adjacent_find(sorted.begin(), sorted.end()); dup != sorted.end()) {
      out.rejected.push_back({ids, which + " names node '" + graph.nodes[*dup].name +
                                       "' twice; fix the plugin's GetCapability"});
      continue;
    }
    drop_constants_[{&graph, sorted}] = group.drop_constant_initializers;
    out.claims.push_back(ep::ProposedClaim{std::move(ids), true});
  }
  // A log line quoting a node's name ('name') explains why that node was declined.
  std::unordered_map<std::string_view, ir::NodeId> by_name;
  for (ir::NodeId n = 0; n < static_cast<ir::NodeId>(graph.nodes.size()); ++n) {
    by_name.emplace(graph.nodes[n].name, n);
  }
  for (const std::string& line : lines) {
    for (size_t open = line.find('\''); open != std::string::npos;) {
      const size_t close = line.find('\'', open + 1);
      if (close == std::string::npos) break;
      auto it = by_name.find(std::string_view(line).substr(open + 1, close - open - 1));
      if (it != by_name.end()) {
        out.declined.emplace_back(it->second, label() + ": " + line);
        break;
      }
      open = line.find('\'', close + 1);
    }
  }
  return out;
}

Status PluginEp::CompileClaims(const ir::GraphView& view, std::span<const ClaimToCompile> claims) {
  if (claims.empty()) return Status::Ok();
  NXRT_ASSIGN_OR_RETURN(const GraphProjection* projection, ProjectionFor(view));
  CompiledBatch batch;
  std::vector<const OrtGraph*> graphs;
  std::vector<const OrtNode*> fused_nodes;
  for (const ClaimToCompile& c : claims) {
    std::vector<ir::NodeId> sorted = c.claim->nodes;
    std::sort(sorted.begin(), sorted.end());
    auto drop = drop_constants_.find({&view.graph(), sorted});
    auto compiled = std::make_shared<CompiledClaim>();
    compiled->fused_name = c.fused_name;
    NXRT_ASSIGN_OR_RETURN(compiled->projection,
                          projection->ProjectClaim(*c.claim, c.fused_name, ep_name(),
                                                   drop != drop_constants_.end() && drop->second));
    compiled->input_map = compiled->projection.claim_input_of_fused_input;
    graphs.push_back(compiled->projection.graph);
    fused_nodes.push_back(compiled->projection.fused_node);
    batch.claims.push_back(std::move(compiled));
  }
  const size_t n = claims.size();
  batch.infos.assign(n, nullptr);
  std::vector<OrtNode*> context_nodes(n, nullptr);
  OrtStatus* error = ep_->Compile(ep_, graphs.data(), fused_nodes.data(), n, batch.infos.data(),
                                  context_nodes.data());
  if (error != nullptr) {
    batch.infos.clear();  // on failure the plugin owns whatever it wrote
    return Status(StatusCode::kFailedPrecondition,
                  TakeOrtStatus(error, label() + ": OrtEp::Compile failed").message());
  }
  Status status;
  for (size_t i = 0; i < n && status.ok(); ++i) {
    CompiledClaim& claim = *batch.claims[i];
    OrtNodeComputeInfo* info = batch.infos[i];
    claim.info = info;
    const std::string which = label() + ": fused node '" + claim.fused_name + "'";
    if (info == nullptr) {
      status = MakeStatus(StatusCode::kFailedPrecondition, which,
                          ": OrtEp::Compile returned a null OrtNodeComputeInfo; fix the plugin's "
                          "Compile");
      break;
    }
    if (info->ort_version_supported < 23 || info->CreateState == nullptr ||
        info->Compute == nullptr) {
      status =
          MakeStatus(StatusCode::kFailedPrecondition, which, ": its OrtNodeComputeInfo (version ",
                     info->ort_version_supported, ") lacks ",
                     info->ort_version_supported < 23 ? "version 23"
                     : info->CreateState == nullptr   ? "CreateState"
                                                      : "Compute",
                     "; fix the plugin's Compile");
      break;
    }
    OrtNodeComputeContext context{claim.fused_name};
    void* state = nullptr;
    OrtStatus* state_error = info->CreateState(info, &context, &state);
    if (state_error != nullptr) {
      status = Status(
          StatusCode::kFailedPrecondition,
          TakeOrtStatus(state_error, which + ": OrtNodeComputeInfo::CreateState failed").message());
      break;
    }
    claim.state = state;
    claim.has_state = true;
  }
  if (!status.ok()) {
    ReleaseBatch(batch);
    return status;
  }
  for (auto& claim : batch.claims) compiled_[claim->fused_name] = claim;
  batches_.push_back(std::move(batch));
  return Status::Ok();
}

Result<std::unique_ptr<Kernel>> PluginEp::CreateFusedKernel(const FusedNodeInfo& info) {
  auto it = compiled_.find(info.name);
  if (it == compiled_.end()) {
    return MakeStatus(StatusCode::kInternal, label(), ": fused claim '", info.name,
                      "' was not compiled (CompileClaims must run first)");
  }
  std::vector<DataType> dtypes;
  for (const ValueInfo& output : info.outputs) {
    if (output.dtype == DataType::kUndefined) {
      return MakeStatus(StatusCode::kUnsupported, label(), ": output '", output.name,
                        "' of fused claim '", info.name,
                        "' has no element type in the model; add value_info for it");
    }
    dtypes.push_back(output.dtype);
  }
  return std::unique_ptr<Kernel>(new PluginFusedKernel(*this, it->second, std::move(dtypes)));
}

}  // namespace

Result<PluginSpec> ParsePluginSpec(std::string_view spec) {
  constexpr std::string_view kPrefix = "plugin:";
  if (!spec.starts_with(kPrefix) || spec.size() == kPrefix.size()) {
    return MakeStatus(StatusCode::kInvalidArgument, "'", spec,
                      "' is not a plugin EP; write plugin:/path/lib.so[:registration_name]");
  }
  std::string_view rest = spec.substr(kPrefix.size());
  PluginSpec out;
  const size_t slash = rest.rfind('/');
  const size_t colon = rest.find(':', slash == std::string_view::npos ? 0 : slash);
  if (colon != std::string_view::npos) {
    out.registration_name = std::string(rest.substr(colon + 1));
    rest = rest.substr(0, colon);
  }
  out.path = std::string(rest);
  if (out.path.empty()) {
    return MakeStatus(StatusCode::kInvalidArgument, "'", spec,
                      "' names no library; write plugin:/path/lib.so[:registration_name]");
  }
  return out;
}

Result<std::shared_ptr<ExecutionProvider>> MakePluginExecutionProvider(
    std::shared_ptr<PluginLibrary> library, std::string_view ep_name) {
  std::string offered;
  for (const PluginLibrary::Factory& factory : library->factories()) {
    if (factory.devices.empty()) continue;
    offered += (offered.empty() ? "'" : ", '") + factory.name + "'";
    if (ep_name.empty() || factory.name == ep_name) {
      return std::shared_ptr<ExecutionProvider>(new PluginEp(library, factory));
    }
  }
  if (ep_name.empty()) {
    return MakeStatus(StatusCode::kNotFound, library->label(),
                      ": no factory offers a device on this machine (GetSupportedDevices "
                      "returned none); the plugin cannot run here");
  }
  return MakeStatus(StatusCode::kNotFound, library->label(), ": no EP named '", ep_name,
                    "' with a device here; it offers ", offered.empty() ? "none" : offered);
}

}  // namespace nxrt::ort_plugin
