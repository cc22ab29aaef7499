// ep/ort_plugin/plugin_ep.cpp: see plugin_ep.h.
#include "ep/ort_plugin/plugin_ep.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <unordered_map>
#include <utility>

#include "ep/ort_plugin/api_table.h"
#include "ep/ort_plugin/device_memory.h"
#include "ep/ort_plugin/ep_context.h"
#include "ep/ort_plugin/kernel_context.h"
#include "ep/ort_plugin/kernel_registry.h"
#include "ep/ort_plugin/sync_stream.h"
#include "ep/device_values.h"
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

// The kernel the plugin's registry made for one node it claimed alone, shared by the kernels of
// every plan instance (ORT makes one per node and session, too). OrtKernelImpl::Release runs
// when the last plan instance using it and the EP let go of it, before OrtEp is released.
// The largest OrtKernelImpl::flags ORT 1.30 accepts from a plugin (its kOrtKernelImplFlags_MAX_VALUE,
// = kIsControlFlowKernelImpl); larger values mean the struct was left uninitialised.
constexpr uint32_t kMaxKernelImplFlags = 1;

struct RegistryKernel {
  ~RegistryKernel() {
    if (impl != nullptr) impl->Release(impl);
  }
  std::string name;  // "node 'x' (Op)"
  OrtKernelImpl* impl = nullptr;
  HostControlFlowKernel* control_flow = nullptr;  // `impl` when the host made it
  std::unique_ptr<OrtKernelInfo> info;
  std::vector<DataType> output_dtypes;
  std::vector<uint8_t> omitted_outputs;  // flags (a vector<bool> has no span)
  std::vector<uint8_t> cpu_inputs;
  std::vector<uint8_t> cpu_outputs;
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

class PluginEp final : public ExecutionProvider,
                       public ep::GraphClaimer,
                       public ep::RunObserver,
                       public ep::DeviceValues,
                       public ep::SessionConfigured,
                       public ep::EpContextCompiler,
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
    for (const auto& [key, value] : session_config_) session_options_.config.Set(key, value);
    const std::string prefix = EpOptionPrefix(ep_name());
    for (const auto& [key, value] : config.options()) {
      if (key == kEpNameOption) continue;
      session_options_.config.Set(prefix + key, value);
    }
    std::vector<const OrtHardwareDevice*> hardware;
    std::vector<const OrtKeyValuePairs*> metadata;
    for (OrtEpDevice* device : factory_.devices) {
      if (device->ep_name != ep_name()) continue;
      hardware.push_back(device->device);
      metadata.push_back(&device->ep_metadata);
      for (const auto& [key, value] : device->ep_options.entries) {
        const std::string full = prefix + key;
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
    if (declared < 23 || ep->GetCapability == nullptr) {
      ReleaseEp();
      return MakeStatus(StatusCode::kFailedPrecondition, label(), ": the OrtEp declares version ",
                        declared,
                        declared < 23 ? " (GetCapability needs 23)" : " but GetCapability is null",
                        "; fix by building the plugin against ORT 1.23 or newer headers and "
                        "setting OrtEp::GetCapability");
    }
    ep_version_ = Effective(declared);
    // ORT 1.30 reads OrtEp::GetName for the EP's type right after CreateEp, before it asks for
    // the kernel registry, and twice more after it (while it builds the EP's provider and arena
    // options): GetName, GetKernelRegistry, GetName, GetName, as it calls them.
    NXRT_RETURN_IF_ERROR(ReadEpName());
    // Kernel-registry plugins (ORT 1.24+) return their registry once; it is copied, as ORT does,
    // so that lookups never depend on the plugin keeping it unchanged.
    if (ep_version_ >= 24 && ep->GetKernelRegistry != nullptr) {
      const OrtKernelRegistry* registry = nullptr;
      if (OrtStatus* failed = ep->GetKernelRegistry(ep, &registry)) {
        ReleaseEp();
        return Status(StatusCode::kFailedPrecondition,
                      TakeOrtStatus(failed, label() + ": OrtEp::GetKernelRegistry failed").message());
      }
      if (registry != nullptr) registry_ = std::make_unique<OrtKernelRegistry>(*registry);
    }
    if (ep->Compile == nullptr && registry_ == nullptr) {
      ReleaseEp();
      return MakeStatus(StatusCode::kFailedPrecondition, label(),
                        ": the OrtEp has neither Compile nor a kernel registry "
                        "(OrtEp::GetKernelRegistry), so it cannot run any node; fix by setting "
                        "one of them");
    }
    NXRT_RETURN_IF_ERROR(ReadEpName());
    NXRT_RETURN_IF_ERROR(ReadEpName());
    if (ep_version_ >= 24 && ep->IsConcurrentRunSupported != nullptr) {
      bool supported = true;
      OrtStatus* status = ep->IsConcurrentRunSupported(ep, &supported);
      if (status != nullptr) {
        HostApi().ReleaseStatus(status);
        supported = false;
      }
      concurrent_runs_ = supported;
    }
    // ORT 1.30 asks every plugin EP's factory for its data transfer when it registers the EP
    // with the session (a CPU plugin's too; it copies between the memories the transfer says it
    // can), and releases it when the session ends.
    if (factory_.version >= 23 && factory->CreateDataTransfer != nullptr) {
      if (OrtStatus* failed = factory->CreateDataTransfer(factory, &transfer_)) {
        ReleaseEp();
        return Status(StatusCode::kFailedPrecondition,
                      TakeOrtStatus(failed, label() + ": OrtEpFactory::CreateDataTransfer failed")
                          .message());
      }
    }
    // A plugin whose device memory is not host memory gets its inputs copied in and its outputs
    // copied out through its own allocator and that data transfer (device_memory.h); ORT creates
    // the allocator after the transfer, for the session state.
    for (OrtEpDevice* device : factory_.devices) {
      if (device->ep_name != ep_name()) continue;
      const OrtMemoryInfo* memory = device->MemoryInfo(OrtDeviceMemoryType_DEFAULT);
      if (memory == nullptr || memory->device.type == OrtMemoryInfoDeviceType_CPU) break;
      Result<std::unique_ptr<PluginDeviceMemory>> device_memory = PluginDeviceMemory::Create(
          factory, factory_.version, memory, std::exchange(transfer_, nullptr), label());
      if (!device_memory.ok()) {
        ReleaseEp();
        return device_memory.status();
      }
      device_memory_ = std::move(device_memory).value();
      break;
    }
    return Status::Ok();
  }

  // In ORT 1.30's order when a session ends: the data transfer, the streams, the kernels
  // (ReleaseState of each non-null compute state, Release of each registry kernel), the
  // allocator, one ReleaseNodeComputeInfos with the compute infos of every Compile call, the
  // OrtEp.
  void Shutdown() override {
    if (ep_ == nullptr) return;
    if (device_memory_ != nullptr) device_memory_->ReleaseTransfer();
    ReleaseTransfer();
    idle_streams_.clear();
    for (CompiledBatch& batch : batches_) ReleaseStates(batch);
    compiled_.clear();
    registry_kernels_.clear();
    device_memory_.reset();
    ReleaseInfos(batches_);
    batches_.clear();
    projections_.clear();
    retired_projections_.clear();
    ReleaseEp();
  }

  KernelMatch Supports(const NodeInfo&) const override {
    return KernelMatch::Unsupported("ORT plugin EPs claim nodes through OrtEp::GetCapability");
  }

  void ModelRewritten(const ir::Graph& root) override {
    auto it = projections_.find(&root);
    if (it == projections_.end()) return;
    retired_projections_.push_back(std::move(it->second));
    projections_.erase(it);
  }
  Result<std::unique_ptr<Kernel>> CreateKernel(const NodeInfo& node) override {
    return node.Error(StatusCode::kInternal, label(),
                      ": kernels of single nodes come from CreateNodeKernel (ep/graph_claimer.h)");
  }
  Result<std::unique_ptr<Kernel>> CreateFusedKernel(const FusedNodeInfo& info) override;

  EpExtension* QueryExtension(std::string_view name) override {
    if (name == ep::GraphClaimer::kExtensionName) return static_cast<ep::GraphClaimer*>(this);
    if (name == ep::RunObserver::kExtensionName) return static_cast<ep::RunObserver*>(this);
    if (name == PluginInfo::kExtensionName) return static_cast<PluginInfo*>(this);
    if (name == ep::SessionConfigured::kExtensionName) {
      return static_cast<ep::SessionConfigured*>(this);
    }
    if (name == ep::EpContextCompiler::kExtensionName) {
      return static_cast<ep::EpContextCompiler*>(this);
    }
    if (name == ep::DeviceValues::kExtensionName && device_memory_ != nullptr) {
      return static_cast<ep::DeviceValues*>(this);
    }
    return nullptr;
  }

  // ---- GraphClaimer
  Result<ep::GraphClaims> ProposeClaims(const ir::GraphView& view,
                                        const std::vector<bool>& unavailable,
                                        const std::vector<std::string>& assigned) override;
  Status CompileClaims(const ir::GraphView& view, std::span<const ClaimToCompile> claims) override;
  Result<std::unique_ptr<Kernel>> CreateNodeKernel(const ir::Graph& graph,
                                                   ir::NodeId node) override;
  // IsStreamAware once per graph, as ORT 1.30 asks it in each session state (RegisterStream
  // Handlers, a CPU plugin's factory too); the last answer decides whether runs get a stream.
  Status BeginPlan(size_t graphs) override {
    OrtEpFactory* factory = factory_.factory;
    if (factory_.version < 23 || factory->IsStreamAware == nullptr) return Status::Ok();
    bool aware = false;
    for (size_t g = 0; g < graphs; ++g) aware = factory->IsStreamAware(factory);
    if (device_memory_ != nullptr) device_memory_->set_stream_aware(aware);
    return Status::Ok();
  }
  Result<ControlFlowHelpers> ControlFlowHelpersFor(const ir::Graph& graph,
                                                   ir::NodeId node) override;

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
    if (device_memory_ != nullptr && device_memory_->stream_aware()) {
      Result<std::unique_ptr<OrtSyncStream>> stream = AcquireStream();
      if (!stream.ok()) {
        if (!concurrent_runs_) run_mutex_.unlock();
        return stream.status();
      }
      RunStreams().emplace_back(this, stream->release());
    }
    return Status::Ok();
  }
  Status OnRunEnd() override {
    Status status;
    if (OrtSyncStream* stream = CurrentStream()) {
      status = EndRun(*stream, label());
      auto& streams = RunStreams();
      for (auto it = streams.begin(); it != streams.end(); ++it) {
        if (it->first != this) continue;
        std::lock_guard<std::mutex> lock(stream_mutex_);
        idle_streams_.emplace_back(it->second);
        streams.erase(it);
        break;
      }
    }
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

  // ---- DeviceValues (only for a plugin with device memory)
  // A fused step reads on the device the inputs its plugin takes; constants the plugin dropped
  // (drop_constant_initializers) are never read, so never copied.
  StepMemory FusedStepMemory(std::string_view fused_name, size_t inputs,
                             size_t outputs) const override {
    StepMemory memory{std::vector<uint8_t>(inputs, 0), std::vector<uint8_t>(outputs, 1)};
    auto it = compiled_.find(std::string(fused_name));
    if (it == compiled_.end()) return memory;
    for (int32_t input : it->second->input_map) {
      if (input >= 0 && static_cast<size_t>(input) < inputs) memory.inputs[input] = 1;
    }
    return memory;
  }
  StepMemory NodeStepMemory(const ir::Graph& graph, ir::NodeId node) const override {
    StepMemory memory;
    auto it = registry_kernels_.find({&graph, node});
    if (it == registry_kernels_.end()) return memory;
    for (uint8_t cpu : it->second->cpu_inputs) memory.inputs.push_back(cpu == 0);
    for (uint8_t cpu : it->second->cpu_outputs) memory.outputs.push_back(cpu == 0);
    return memory;
  }
  Result<Tensor> AllocateTensor(DataType dtype, Shape shape) override {
    NXRT_ASSIGN_OR_RETURN(int64_t count, ElementCount(shape));
    PluginDeviceMemory* memory = device_memory_.get();
    NXRT_ASSIGN_OR_RETURN(void* block,
                          memory->Allocate(DataTypeBytes(dtype, count)));
    std::shared_ptr<void> owner(block, [memory](void* p) { memory->Free(p); });
    return Tensor::Adopt(dtype, std::move(shape), block, std::move(owner));
  }
  Status CopyTensors(std::span<const Tensor* const> src, std::span<Tensor* const> dst,
                     bool to_device, bool wait) override {
    auto view = [&](const Tensor& t, bool on_device) {
      OrtValue v;
      v.element_type = ToOrtElementType(t.dtype());
      v.shape.assign(t.shape().begin(), t.shape().end());
      v.data = const_cast<void*>(t.raw_data());
      v.bytes = t.byte_size();
      v.memory_info = on_device ? device_memory_->info() : &DefaultCpuAllocator().info;
      return v;
    };
    std::vector<OrtValue> from;
    std::vector<OrtValue> into;
    for (size_t i = 0; i < src.size(); ++i) {
      from.push_back(view(*src[i], !to_device));
      into.push_back(view(*dst[i], to_device));
    }
    std::vector<const OrtValue*> sources;
    std::vector<OrtValue*> targets;
    for (size_t i = 0; i < from.size(); ++i) {
      sources.push_back(&from[i]);
      targets.push_back(&into[i]);
    }
    return device_memory_->Copy(sources, targets, CurrentStream(), !to_device && wait);
  }

  // ---- SessionConfigured, EpContextCompiler (ep/ep_context.h, ep_context.h)
  void SetSessionConfig(const std::vector<std::pair<std::string, std::string>>& entries) override {
    session_config_ = entries;
  }
  const ContextNode* ContextNodeFor(std::string_view fused_name) const override {
    auto it = context_nodes_.find(fused_name);
    return it == context_nodes_.end() ? nullptr : &it->second;
  }
  Result<std::string> CompatibilityInfo(const ir::Model& model) override {
    return CompiledModelCompatibilityInfo(ep_, ep_version_, model);
  }
  Result<ep::CompiledModelCompatibility> ValidateCompatibility(const std::string& info) override {
    return ValidateCompiledModelCompatibility(factory_, ep_name(), info, label());
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
  // The stream of this thread's run, when the plugin is stream aware; else null.
  OrtSyncStream* CurrentStream() const {
    for (const auto& [ep, stream] : RunStreams()) {
      if (ep == this) return stream;
    }
    return nullptr;
  }
  const OrtKeyValuePairs& config() const { return session_options_.config; }
  void CountCall() { calls_.fetch_add(1, std::memory_order_relaxed); }

 private:
  void ReleaseEp() {
    ReleaseTransfer();
    if (ep_ != nullptr && factory_.factory->ReleaseEp != nullptr) {
      factory_.factory->ReleaseEp(factory_.factory, ep_);
    }
    ep_ = nullptr;
  }
  // The data transfer of a plugin without device memory (device_memory_ owns the other's).
  void ReleaseTransfer() {
    if (transfer_ != nullptr && transfer_->Release != nullptr) transfer_->Release(transfer_);
    transfer_ = nullptr;
  }
  // Reads OrtEp::GetName. Errors: kFailedPrecondition when it is null or returns null (the EP
  // is released).
  Status ReadEpName() {
    if (ep_->GetName == nullptr || ep_->GetName(ep_) == nullptr) {
      ReleaseEp();
      return MakeStatus(StatusCode::kFailedPrecondition, label(),
                        ": OrtEp::GetName is null or returned null; fix the OrtEp to return its "
                        "EP name");
    }
    return Status::Ok();
  }
  // ReleaseState for each state CreateState made (ORT releases none it left null).
  static void ReleaseStates(CompiledBatch& batch) {
    for (auto& claim : batch.claims) {
      if (claim->has_state && claim->state != nullptr && claim->info->ReleaseState != nullptr) {
        claim->info->ReleaseState(claim->info, claim->state);
      }
      claim->has_state = false;
    }
  }
  // One ReleaseNodeComputeInfos with the non-null compute infos of `batches`, in Compile order.
  void ReleaseInfos(std::span<CompiledBatch> batches) {
    std::vector<OrtNodeComputeInfo*> infos;
    for (CompiledBatch& batch : batches) {
      for (OrtNodeComputeInfo* info : batch.infos) {
        if (info != nullptr) infos.push_back(info);
      }
      batch.infos.clear();
    }
    if (!infos.empty() && ep_->ReleaseNodeComputeInfos != nullptr) {
      ep_->ReleaseNodeComputeInfos(ep_, infos.data(), infos.size());
    }
  }
  // The streams of this thread's run, one per stream-aware plugin EP (set by OnRunStart, which
  // runs on the thread that runs the steps).
  static std::vector<std::pair<const PluginEp*, OrtSyncStream*>>& RunStreams() {
    thread_local std::vector<std::pair<const PluginEp*, OrtSyncStream*>> streams;
    return streams;
  }
  // An idle stream, or a new one from OrtEp::CreateSyncStreamForDevice (else the factory's) for
  // the device memory. ORT creates streams the same way, one per device and run.
  Result<std::unique_ptr<OrtSyncStream>> AcquireStream() {
    {
      std::lock_guard<std::mutex> lock(stream_mutex_);
      if (!idle_streams_.empty()) {
        std::unique_ptr<OrtSyncStream> stream = std::move(idle_streams_.back());
        idle_streams_.pop_back();
        return stream;
      }
    }
    const OrtMemoryDevice* device = &device_memory_->info()->device;
    OrtSyncStreamImpl* impl = nullptr;
    OrtStatus* error = nullptr;
    std::string function;
    if (ep_version_ >= 23 && ep_->CreateSyncStreamForDevice != nullptr) {
      function = "OrtEp::CreateSyncStreamForDevice";
      error = ep_->CreateSyncStreamForDevice(ep_, device, &impl);
    } else if (factory_.factory->CreateSyncStreamForDevice != nullptr) {
      function = "OrtEpFactory::CreateSyncStreamForDevice";
      error = factory_.factory->CreateSyncStreamForDevice(factory_.factory, device, nullptr, &impl);
    }
    if (error != nullptr) {
      return Status(StatusCode::kRuntimeError,
                    TakeOrtStatus(error, label() + ": " + function + " failed").message());
    }
    return MakeSyncStream(impl, label());
  }
  // Compiles the fused claims of `claims` (one OrtEp::Compile call).
  Status CompileFused(const ir::GraphView& view, const GraphProjection& projection,
                      std::span<const ClaimToCompile> claims);
  // Creates the registry kernel of `node` (a node of `projection`'s graph claimed alone).
  Result<std::shared_ptr<RegistryKernel>> CreateRegistryKernel(const GraphProjection& projection,
                                                               ir::NodeId node);
  // Offers each constant initializer input of `kernel`'s node to its OrtKernelImpl::PrePackWeight.
  Status PrePackRegistryKernel(const RegistryKernel& kernel);
  // The projection of `view`'s graph (created with its root graph's on first use).
  Result<GraphProjection*> ProjectionFor(const ir::GraphView& view);
  struct RootProjection {
    std::unique_ptr<ir::GraphView> view;  // outlives `projection`, which borrows it
    std::unique_ptr<GraphProjection> projection;
  };

  std::shared_ptr<PluginLibrary> library_;
  PluginLibrary::Factory factory_;
  CapturingLogSink sink_;
  std::string label_;
  OrtLogger logger_;
  std::vector<std::pair<std::string, std::string>> session_config_;
  OrtSessionOptions session_options_;
  OrtRunOptions run_options_;
  // EPContext nodes Compile returned (session config ep.context_enable = 1), by fused name.
  std::map<std::string, ContextNode, std::less<>> context_nodes_;
  OrtEp* ep_ = nullptr;
  OrtDataTransferImpl* transfer_ = nullptr;  // of a plugin without device memory; may be null
  uint32_t ep_version_ = 0;
  bool concurrent_runs_ = true;
  std::mutex run_mutex_;
  std::atomic<int64_t> calls_{0};
  std::unordered_map<const ir::Graph*, std::unique_ptr<RootProjection>> projections_;
  // Projections of graphs rewritten since (ModelRewritten), kept for the claims compiled from
  // them; never shown again.
  std::vector<std::unique_ptr<RootProjection>> retired_projections_;
  // Proposals that asked to drop constant initializers, by graph and sorted node ids.
  std::map<std::pair<const ir::Graph*, std::vector<ir::NodeId>>, bool> drop_constants_;
  std::unique_ptr<PluginDeviceMemory> device_memory_;
  std::vector<CompiledBatch> batches_;
  std::unordered_map<std::string, std::shared_ptr<CompiledClaim>> compiled_;
  std::unique_ptr<OrtKernelRegistry> registry_;  // null: the plugin has none
  std::mutex stream_mutex_;
  std::vector<std::unique_ptr<OrtSyncStream>> idle_streams_;  // of finished runs
  std::map<std::pair<const ir::Graph*, ir::NodeId>, std::shared_ptr<RegistryKernel>>
      registry_kernels_;
};

// The kernel of one fused claim in one plan instance.
class PluginFusedKernel final : public Kernel {
 public:
  PluginFusedKernel(PluginEp& ep, std::shared_ptr<CompiledClaim> claim,
                    std::vector<DataType> output_dtypes)
      : ep_(ep),
        claim_(std::move(claim)),
        output_dtypes_(std::move(output_dtypes)),
        name_("fused node '" + claim_->fused_name + "'") {
    spec_.name = name_;
    spec_.input_map = claim_->input_map;
  }

  Status Prepare(PrepareContext& ctx) override {
    for (int i = 0; i < ctx.output_count(); ++i) {
      NXRT_RETURN_IF_ERROR(ctx.SetOutputDynamic(i, output_dtypes_[i]));
    }
    return Status::Ok();
  }

  Status Compute(ComputeContext& ctx) override {
    HostKernelContext kernel_context(ctx, spec_, ep_.logger(), ep_.device_memory(),
                                     ep_.CurrentStream(), buffers_);
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
    const int missing = kernel_context.MissingOutput();
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
  std::string name_;
  KernelCallSpec spec_;
  KernelCallBuffers buffers_;
};

// The kernel of one node the plugin claimed alone, in one plan instance: the plugin's
// OrtKernelImpl, shared by every instance.
class PluginNodeKernel final : public Kernel {
 public:
  PluginNodeKernel(PluginEp& ep, std::shared_ptr<RegistryKernel> kernel)
      : ep_(ep), kernel_(std::move(kernel)) {
    spec_.name = kernel_->name;
    spec_.omitted_outputs = kernel_->omitted_outputs;
    spec_.cpu_inputs = kernel_->cpu_inputs;
    spec_.cpu_outputs = kernel_->cpu_outputs;
  }

  Status Prepare(PrepareContext& ctx) override {
    for (int i = 0; i < ctx.output_count(); ++i) {
      if (kernel_->omitted_outputs[i] != 0) continue;
      NXRT_RETURN_IF_ERROR(ctx.SetOutputDynamic(i, kernel_->output_dtypes[i]));
    }
    return Status::Ok();
  }

  Status Compute(ComputeContext& ctx) override {
    HostKernelContext kernel_context(ctx, spec_, ep_.logger(), ep_.device_memory(),
                                     ep_.CurrentStream(), buffers_);
    NXRT_RETURN_IF_ERROR(kernel_context.BindInputs());
    OrtStatus* error = kernel_->impl->Compute(kernel_->impl, &kernel_context);
    if (error != nullptr) {
      return Status(StatusCode::kRuntimeError,
                    TakeOrtStatus(error, ep_.label() + ": OrtKernelImpl::Compute of " +
                                             kernel_->name + " failed")
                        .message());
    }
    const int missing = kernel_context.MissingOutput();
    if (missing >= 0) {
      return MakeStatus(StatusCode::kRuntimeError, ep_.label(), ": ", kernel_->name,
                        " returned without producing output ", missing,
                        " (KernelContext_GetOutput was never called for it)");
    }
    ep_.CountCall();
    return Status::Ok();
  }

 private:
  PluginEp& ep_;
  std::shared_ptr<RegistryKernel> kernel_;
  KernelCallSpec spec_;
  KernelCallBuffers buffers_;
};

Result<GraphProjection*> PluginEp::ProjectionFor(const ir::GraphView& view) {
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
  GraphProjection* projection = it->second->projection.get();
  if (root == &view.graph()) return projection;
  GraphProjection* sub = projection->FindSubgraph(&view.graph());
  if (sub == nullptr) {
    return MakeStatus(StatusCode::kInternal, label(), ": subgraph '", view.graph().name,
                      "' is not part of its model's projection");
  }
  return sub;
}

Result<ep::GraphClaims> PluginEp::ProposeClaims(const ir::GraphView& view,
                                                const std::vector<bool>& unavailable,
                                                const std::vector<std::string>& assigned) {
  (void)unavailable;
  NXRT_ASSIGN_OR_RETURN(GraphProjection* projection, ProjectionFor(view));
  // ORT names its CPU EP CPUExecutionProvider; a plugin EP by its own name.
  for (size_t v = 0; v < assigned.size(); ++v) {
    if (assigned[v].empty()) continue;
    projection->SetNodeEpName(static_cast<ir::NodeId>(v),
                              assigned[v] == "cpu" ? "CPUExecutionProvider" : assigned[v]);
  }
  // ORT 1.30 asks no GetCapability for a graph without nodes (e.g. an If branch of Constants).
  if (projection->graph()->nodes.empty()) return ep::GraphClaims{};
  OrtEpGraphSupportInfo support;
  support.graph = projection->graph();
  support.registry = registry_.get();
  support.ep_name = ep_name();
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
      // EpGraphSupportInfo_AddSingleNode: one node, run by a kernel of the plugin's registry.
      if (unknown > 0 || ids.size() != 1) {
        out.rejected.push_back({ids, which + " (EpGraphSupportInfo_AddSingleNode) names a node "
                                             "pointer that is not a node of this graph; fix the "
                                             "plugin's GetCapability"});
        continue;
      }
      const OrtNode& node = *projection->node(ids[0]);
      std::string why;
      if (registry_ == nullptr) {
        why = "the plugin has no kernel registry (OrtEp::GetKernelRegistry is null or returned "
              "none); fix by returning one or by fusing the node with AddNodesToFuse";
      } else {
        Result<KernelLookup> found = FindKernel(*registry_, ep_name(), node);
        if (!found.ok()) {
          why = found.status().message();
        } else if (found->entry == nullptr) {
          why = "no kernel of the plugin's registry matches " + node.op_type + "-" +
                std::to_string(node.since_version) +
                (found->reason.empty() ? std::string(" (none is registered for the op)")
                                       : ": " + found->reason) +
                "; fix the plugin's kernel registry, or claim only nodes "
                "EpGraphSupportInfo_LookUpKernel finds a kernel for";
        }
      }
      if (!why.empty()) {
        out.rejected.push_back({ids, which + " (EpGraphSupportInfo_AddSingleNode of node '" +
                                         node.name + "'): " + why});
        continue;
      }
      out.claims.push_back(ep::ProposedClaim{std::move(ids), false});
      continue;
    }
    if (ep_->Compile == nullptr) {
      out.rejected.push_back({ids, which + " came from EpGraphSupportInfo_AddNodesToFuse, but "
                                           "OrtEp::Compile is null, so it cannot be compiled; fix "
                                           "the plugin: set Compile, or claim single nodes with "
                                           "AddSingleNode"});
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
  std::vector<ClaimToCompile> fused;
  std::vector<std::shared_ptr<RegistryKernel>> created;
  for (const ClaimToCompile& c : claims) {
    if (c.fused) {
      fused.push_back(c);
      continue;
    }
    for (ir::NodeId node : c.claim->nodes) {
      NXRT_ASSIGN_OR_RETURN(std::shared_ptr<RegistryKernel> kernel,
                            CreateRegistryKernel(*projection, node));
      created.push_back(kernel);
      registry_kernels_[{&view.graph(), node}] = std::move(kernel);
    }
  }
  // As ORT's session state: every kernel of the graph is created and checked before any is
  // offered its constant inputs, so a bad kernel fails the session before a pre-pack runs.
  for (const std::shared_ptr<RegistryKernel>& kernel : created) {
    NXRT_RETURN_IF_ERROR(PrePackRegistryKernel(*kernel));
  }
  if (fused.empty()) return Status::Ok();
  return CompileFused(view, *projection, fused);
}

Status PluginEp::CompileFused(const ir::GraphView& view, const GraphProjection& projection,
                              std::span<const ClaimToCompile> claims) {
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
                          projection.ProjectClaim(*c.claim, c.fused_name, ep_name(),
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
  std::vector<std::string> fused_names;
  for (const auto& claim : batch.claims) fused_names.push_back(claim->fused_name);
  Status status = TakeContextNodes(context_nodes, fused_names,
                                   EpContextEnabled(session_options_.config), label(),
                                   context_nodes_);
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
    ReleaseStates(batch);
    ReleaseInfos(std::span<CompiledBatch>(&batch, 1));
    return status;
  }
  for (auto& claim : batch.claims) compiled_[claim->fused_name] = claim;
  batches_.push_back(std::move(batch));
  return Status::Ok();
}

Result<std::shared_ptr<RegistryKernel>> PluginEp::CreateRegistryKernel(
    const GraphProjection& projection, ir::NodeId id) {
  const OrtNode& node = *projection.node(id);
  auto kernel = std::make_shared<RegistryKernel>();
  kernel->name = "node '" + node.name + "' (" + node.op_type + ")";
  const std::string which = label() + ": " + kernel->name;
  if (registry_ == nullptr) {
    return MakeStatus(StatusCode::kInternal, which, " was claimed alone, but the EP has no registry");
  }
  NXRT_ASSIGN_OR_RETURN(KernelLookup found, FindKernel(*registry_, ep_name(), node));
  if (found.entry == nullptr) {
    return MakeStatus(StatusCode::kFailedPrecondition, which,
                      ": no kernel of the plugin's registry matches it any more (", found.reason,
                      "); fix the plugin's kernel registry");
  }
  const OrtKernelDef& def = found.entry->def;
  kernel->info = std::make_unique<OrtKernelInfo>();
  kernel->info->node = &node;
  kernel->info->ep = ep_;
  kernel->info->logger = &logger_;
  kernel->info->config = &session_options_.config;
  kernel->info->device_allocator = device_memory_ ? device_memory_->allocator() : nullptr;
  OrtKernelImpl* impl = nullptr;
  if (OrtStatus* error = found.entry->create(found.entry->create_state, kernel->info.get(), &impl)) {
    if (impl != nullptr && impl->Release != nullptr) impl->Release(impl);
    return Status(StatusCode::kFailedPrecondition,
                  TakeOrtStatus(error, which + ": the OrtKernelCreateFunc of kernel " +
                                           DescribeKernelDef(def) + " failed")
                          .message() +
                      "; fix the plugin's kernel creation function, or leave the node to "
                      "another EP");
  }
  const std::string fix = "; fix the plugin's kernel creation function for " + node.op_type;
  if (impl == nullptr) {
    return MakeStatus(StatusCode::kFailedPrecondition, which,
                      ": the OrtKernelCreateFunc returned no OrtKernelImpl", fix);
  }
  kernel->control_flow = AsHostControlFlowKernel(impl);
  if (impl->Release != nullptr) kernel->impl = impl;  // released by ~RegistryKernel from here on
  // ORT 1.30's checks, in its order (PluginEpOpKernel::Create): flags within ORT's own
  // (kIsControlFlowKernelImpl = 1 is the largest), then Compute, then Release. The version is not
  // checked here; pre-packing asks for 24.
  if (kernel->control_flow == nullptr && impl->flags > kMaxKernelImplFlags) {
    return MakeStatus(StatusCode::kFailedPrecondition, which, ": its OrtKernelImpl has flags ",
                      impl->flags, " (ORT accepts at most ", kMaxKernelImplFlags,
                      "; a plugin sets 0, e.g. by value-initialising the struct)", fix);
  }
  if (kernel->control_flow == nullptr && impl->Compute == nullptr) {
    return MakeStatus(StatusCode::kFailedPrecondition, which,
                      ": its OrtKernelImpl has a null Compute", fix);
  }
  if (impl->Release == nullptr) {
    return MakeStatus(StatusCode::kFailedPrecondition, which,
                      ": its OrtKernelImpl has a null Release", fix);
  }
  if (node.graph != nullptr && !node.subgraphs.empty() && kernel->control_flow == nullptr) {
    return MakeStatus(StatusCode::kFailedPrecondition, which,
                      ": a node with subgraphs needs the kernel OrtEpApi::Create", node.op_type,
                      "Kernel makes (the host runs its subgraphs); the plugin made its own", fix);
  }
  for (size_t i = 0; i < node.inputs.size(); ++i) {
    kernel->cpu_inputs.push_back(def.InputMemType(i) == OrtMemTypeCPUInput);
  }
  for (size_t o = 0; o < node.outputs.size(); ++o) {
    const OrtValueInfo* output = node.outputs[o];
    kernel->omitted_outputs.push_back(output == nullptr);
    kernel->cpu_outputs.push_back(def.OutputMemType(o) == OrtMemTypeCPUOutput);
    DataType dtype = DataType::kUndefined;
    if (output != nullptr && output->type_info.tensor) {
      dtype = FromOrtElementType(output->type_info.tensor->element_type);
    }
    if (output != nullptr && dtype == DataType::kUndefined && kernel->control_flow == nullptr) {
      return MakeStatus(StatusCode::kUnsupported, which, ": output ", o, " '", output->name,
                        "' has no tensor element type nxrt knows; add value_info for it");
    }
    kernel->output_dtypes.push_back(dtype);
  }
  return kernel;
}

// As ORT at session creation: each constant initializer input is offered for pre-packing when the
// kernel declares version 24 and has PrePackWeight (no shared weight cache: ORT passes none
// without a prepacked-weights container).
Status PluginEp::PrePackRegistryKernel(const RegistryKernel& kernel) {
  OrtKernelImpl* impl = kernel.impl;
  if (kernel.control_flow != nullptr || impl->ort_version_supported < 24 ||
      impl->PrePackWeight == nullptr) {
    return Status::Ok();
  }
  const OrtNode& node = *kernel.info->node;
  for (size_t i = 0; i < node.inputs.size(); ++i) {
    const OrtValueInfo* input = node.inputs[i];
    if (input == nullptr || !input->is_constant_initializer || input->initializer == nullptr) {
      continue;
    }
    bool packed = false;
    if (OrtStatus* error = impl->PrePackWeight(impl, input->initializer, static_cast<int>(i),
                                               &DefaultCpuAllocator(), nullptr, &packed)) {
      return Status(StatusCode::kFailedPrecondition,
                    TakeOrtStatus(error, label() + ": " + kernel.name +
                                             ": OrtKernelImpl::PrePackWeight of input " +
                                             std::to_string(i) + " failed")
                        .message());
    }
  }
  return Status::Ok();
}

Result<std::unique_ptr<Kernel>> PluginEp::CreateNodeKernel(const ir::Graph& graph,
                                                           ir::NodeId node) {
  auto it = registry_kernels_.find({&graph, node});
  if (it == registry_kernels_.end()) {
    return MakeStatus(StatusCode::kInternal, label(), ": node ", node, " of graph '", graph.name,
                      "' was not compiled (CompileClaims must run first)");
  }
  if (it->second->control_flow != nullptr) {
    return MakeStatus(StatusCode::kInternal, label(), ": ", it->second->name,
                      " is control flow, which the runtime runs");
  }
  return std::unique_ptr<Kernel>(new PluginNodeKernel(*this, it->second));
}

// An OrtValue viewing `t` (host memory) for a helper call.
OrtValue HostView(const Tensor& t) {
  OrtValue v;
  v.element_type = ToOrtElementType(t.dtype());
  v.shape.assign(t.shape().begin(), t.shape().end());
  v.data = const_cast<void*>(t.raw_data());
  v.bytes = t.byte_size();
  v.memory_info = &DefaultCpuAllocator().info;
  return v;
}

Result<ep::GraphClaimer::ControlFlowHelpers> PluginEp::ControlFlowHelpersFor(const ir::Graph& graph,
                                                                             ir::NodeId node) {
  auto it = registry_kernels_.find({&graph, node});
  if (it == registry_kernels_.end() || it->second->control_flow == nullptr) {
    return MakeStatus(StatusCode::kInternal, label(), ": node ", node, " of graph '", graph.name,
                      "' has no control-flow kernel made by OrtEpApi::Create*Kernel");
  }
  std::shared_ptr<RegistryKernel> kernel = it->second;
  const std::string context = label() + ": " + kernel->name;
  ControlFlowHelpers helpers;
  if (kernel->control_flow->loop_helper != nullptr) {
    helpers.concat = [kernel, context](std::span<const Tensor* const> items, void* out,
                                       size_t bytes) -> Status {
      std::vector<OrtValue> values;
      values.reserve(items.size());
      for (const Tensor* t : items) values.push_back(HostView(*t));
      std::vector<const OrtValue*> pointers;
      for (const OrtValue& v : values) pointers.push_back(&v);
      OrtLoopKernelHelper* helper = kernel->control_flow->loop_helper;
      return TakeOrtStatus(helper->ConcatOutput(helper, nullptr, pointers.data(), pointers.size(),
                                                out, bytes),
                           context + ": OrtLoopKernelHelper::ConcatOutput failed");
    };
  }
  if (kernel->control_flow->scan_helper != nullptr) {
    helpers.transpose = [kernel, context](std::span<const size_t> perm, const Tensor& in,
                                          Tensor& out) -> Status {
      const OrtValue input = HostView(in);
      OrtValue output = HostView(out);
      OrtScanKernelHelper* helper = kernel->control_flow->scan_helper;
      return TakeOrtStatus(
          helper->Transpose(helper, perm.data(), perm.size(), &input, nullptr, &output),
          context + ": OrtScanKernelHelper::Transpose failed");
    };
  }
  return helpers;
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

std::string EpOptionPrefix(std::string_view ep_name) {
  std::string prefix = "ep.";
  for (char c : ep_name) prefix += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return prefix + ".";
}

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
