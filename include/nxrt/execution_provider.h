// nxrt/execution_provider.h: the interface every nxrt backend implements.
//
// Part of the EP author's API (std only). An execution provider (EP) answers three questions and
// owns one device's memory:
//   1. Supports(node)        can you run this node? → KernelMatch: Supported{cost} or
//                            Unsupported{reason a user can act on}.
//   2. CreateKernel(node)    a Kernel (prepare/compute, nxrt/kernel.h) for one node you support;
//      CreateFusedKernel     or one kernel for a claim of several nodes (fused; plugin EPs).
//   3. Allocate/Deallocate/Copy/CopyAsync/Sync   the device memory kernels read and write.
// Partitioning is not the EP's job: nxrt asks Supports for every node still unplaced, groups the
// supported ones into convex claims (src/ep/partitioner.h, docs/partitioning.md) and places
// claims EP by EP in the user's priority order; the CPU EP takes what is left.
//
// Lifecycle: construct → Initialize(config) once → Supports/CreateKernel/memory calls (from one
// thread during session creation; memory calls and kernels also while running) → Shutdown once
// → destroy. Supports and CreateKernel must not depend on call order.
//
// Extending: optional capabilities (graph-level claiming for plugin EPs, streams, tuning) are
// separate interfaces derived from EpExtension, found with GetExtension<T>(); the core interface
// stays small. The defaults below implement host memory, so a CPU-like EP overrides only
// Supports and CreateKernel. A worked example: docs/ep_api.md.
// Source: ONNX Runtime's IExecutionProvider (GetCapability/Compile, data transfer) and plugin
// OrtEp; TFLite's SimpleDelegateInterface (IsNodeSupportedByDelegate); ggml's supports_op.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "nxrt/ep_config.h"
#include "nxrt/kernel.h"
#include "nxrt/node_info.h"
#include "nxrt/status.h"

namespace nxrt {

enum class DeviceType : uint8_t { kCpu, kGpu, kNpu, kOther };

// "cpu", "gpu", "npu", "other".
std::string_view DeviceTypeName(DeviceType type);

// Where memory lives and kernels run: a type and an ordinal among devices of that type.
struct Device {
  DeviceType type = DeviceType::kCpu;
  int32_t id = 0;

  bool is_host() const { return type == DeviceType::kCpu; }
  // "cpu:0", "gpu:1".
  std::string ToString() const;
  bool operator==(const Device&) const = default;
};

// A range of device memory. Does not own: the EP that allocated it frees it with Deallocate.
// For host memory `data` is an ordinary pointer; for other devices it is the device address,
// meaningful only to that device's EP. Make a view of caller memory with Host().
struct DeviceBuffer {
  void* data = nullptr;
  size_t size = 0;  // bytes
  Device device;
  uint64_t handle = 0;  // EP-private bookkeeping (e.g. an allocation id); 0 for Host()

  // A view of `size` bytes of host memory at `data`.
  static DeviceBuffer Host(void* data, size_t size) { return {data, size, Device{}, 0}; }
  // The bytes [offset, offset + bytes) of this buffer; the range must lie inside it.
  DeviceBuffer Slice(size_t offset, size_t bytes) const;
};

// Completion of asynchronous device work (CopyAsync). A default-constructed Fence is already
// complete. Copies of a Fence share its state.
class Fence {
 public:
  // What an EP implements for its asynchronous work.
  class Signal {
   public:
    virtual ~Signal() = default;
    // Blocks until the work is done; its error when the work failed.
    virtual Status Wait() = 0;
    // True when the work is done (successfully or not); never blocks.
    virtual bool IsDone() const = 0;
  };

  Fence() = default;
  explicit Fence(std::shared_ptr<Signal> signal) : signal_(std::move(signal)) {}

  Status Wait() const { return signal_ ? signal_->Wait() : Status::Ok(); }
  bool IsDone() const { return signal_ ? signal_->IsDone() : true; }

 private:
  std::shared_ptr<Signal> signal_;
};

// An EP's answer to "can you run this node?".
class KernelMatch {
 public:
  // The EP can run the node. `cost` estimates one run in microseconds (>= 0; 0 = no estimate).
  // Placement follows the user's priority order; costs are reported with the placement.
  static KernelMatch Supported(double cost = 0.0) { return KernelMatch(true, cost, {}); }
  // The EP cannot run the node. `reason` says why in terms a user can act on, with the values
  // involved and, when there is one, the fix: "input 0 has type float64; this EP supports
  // float32 and float16 (cast the input, or run the node on the CPU EP)". Must not be empty.
  static KernelMatch Unsupported(std::string reason) {
    return KernelMatch(false, 0.0, std::move(reason));
  }

  bool supported() const { return supported_; }
  double cost() const { return cost_; }
  // "" when supported.
  const std::string& reason() const { return reason_; }

 private:
  KernelMatch(bool supported, double cost, std::string reason)
      : supported_(supported), cost_(cost), reason_(std::move(reason)) {}
  bool supported_;
  double cost_;
  std::string reason_;
};

// A claim of several nodes handed to CreateFusedKernel: the nodes and the claim's boundary.
// The fused kernel's input i is inputs[i] and its output j is outputs[j].
struct FusedNodeInfo {
  std::string name;               // unique in the session, e.g. "example_ep_claim_0"
  std::vector<NodeInfo> nodes;    // in topological order
  std::vector<ValueInfo> inputs;  // values read from outside the claim, in first-use order
  // Values produced inside and read outside it (by another node or as graph outputs), in
  // producer order.
  std::vector<ValueInfo> outputs;
};

// Base of optional EP capabilities. Each derived interface has a unique
// `static constexpr std::string_view kExtensionName`.
class EpExtension {
 public:
  virtual ~EpExtension() = default;
};

class ExecutionProvider {
 public:
  // `type_name`: the EP's kind, e.g. "cpu" (the user may register several instances under
  // different names); `device`: where its kernels run and its memory lives.
  ExecutionProvider(std::string type_name, Device device)
      : type_name_(std::move(type_name)), device_(device) {}
  virtual ~ExecutionProvider() = default;
  ExecutionProvider(const ExecutionProvider&) = delete;
  ExecutionProvider& operator=(const ExecutionProvider&) = delete;

  const std::string& type_name() const { return type_name_; }
  Device device() const { return device_; }

  // Applies the user's options. Called once before any other call. Errors: kInvalidArgument for
  // an unknown key or a bad value (EpConfig::CheckKeys and the typed getters make the message),
  // kUnsupported when the device is absent. The default accepts only an empty config.
  virtual Status Initialize(const EpConfig& config);
  // Releases device resources. Called once, after every kernel of this EP is destroyed.
  virtual void Shutdown() {}

  // Whether this EP can run `node` (a node with subgraphs is asked like any other and, when
  // supported, runs alone). Must not fail; must be deterministic.
  virtual KernelMatch Supports(const NodeInfo& node) const = 0;

  // A kernel for one node that Supports accepted. Errors: kInvalidModel for attributes the op
  // cannot accept, kUnsupported for what Supports could not see, each naming the attribute.
  virtual Result<std::unique_ptr<Kernel>> CreateKernel(const NodeInfo& node) = 0;

  // One kernel running a whole claim (the claim's nodes were accepted by this EP). The default
  // fails with kNotImplemented: native EPs run claims node by node.
  virtual Result<std::unique_ptr<Kernel>> CreateFusedKernel(const FusedNodeInfo& claim);

  // `bytes` of device memory aligned to `alignment` (a power of two; at least 64 is honoured).
  // A 0-byte request returns an empty buffer. Errors: kOutOfMemory naming the size.
  // Default: host memory.
  virtual Result<DeviceBuffer> Allocate(size_t bytes, size_t alignment);
  // Frees a buffer from Allocate; an empty buffer is ignored.
  virtual void Deallocate(const DeviceBuffer& buffer);
  // Copies all src.size bytes into dst (dst.size >= src.size); either side may be host memory
  // or this EP's device. Returns when the copy is complete. Errors: kInvalidArgument when dst is
  // too small or a side is on a device this EP cannot reach (naming both devices).
  // Default: memcpy between host buffers.
  virtual Status Copy(const DeviceBuffer& src, const DeviceBuffer& dst);
  // Like Copy but may return before the copy completes; the Fence tells when. Both buffers must
  // stay valid until then. Default: Copy, then a completed Fence.
  virtual Result<Fence> CopyAsync(const DeviceBuffer& src, const DeviceBuffer& dst);
  // Blocks until all work queued on the device (copies, kernels) is complete. Default: ok.
  virtual Status Sync() { return Status::Ok(); }

  // The extension named `name` or nullptr. Default: none.
  virtual EpExtension* QueryExtension(std::string_view name) {
    (void)name;
    return nullptr;
  }
  // The extension T (derived from EpExtension, with T::kExtensionName), or nullptr.
  template <typename T>
  T* GetExtension() {
    return static_cast<T*>(QueryExtension(T::kExtensionName));
  }

 private:
  std::string type_name_;
  Device device_;
};

}  // namespace nxrt
