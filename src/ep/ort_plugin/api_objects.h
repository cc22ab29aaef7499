// ep/ort_plugin/api_objects.h: what nxrt's ORT host objects are. ONNX Runtime's C API declares
// its objects opaque (`struct OrtStatus;` ...); a host defines them. These are nxrt's
// definitions of the objects that are not graph objects (those are in graph_projection.h).
//
// Layer: nxrt_ort_plugin (internal). Every object handed to a plugin is one of these, created by
// the host API functions (api_*.cpp) or by the plugin host itself (plugin_library.cpp,
// plugin_ep.cpp). Objects the plugin creates are released through the matching Release*
// function, which accepts NULL; objects the host owns live as long as the documented owner.
// Source: onnxruntime_c_api.h / onnxruntime_ep_c_api.h at ORT_API_VERSION 29 (ORT 1.29/1.30).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ep/ort_plugin/ort_c_api.h"

// An error the host returns (or the plugin creates with OrtApi::CreateStatus). A null
// OrtStatus* means success; the receiver releases a non-null one with ReleaseStatus.
struct OrtStatus {
  OrtErrorCode code = ORT_FAIL;
  std::string message;
};

namespace nxrt::ort_plugin {

// Where a plugin's log lines go (OrtApi::Logger_LogMessage). Implementations are thread-safe.
class LogSink {
 public:
  virtual ~LogSink() = default;
  // One line at `severity` from the plugin's `file`:`line` in `function` (each may be null).
  virtual void Log(OrtLoggingLevel severity, std::string_view message, const char* file, int line,
                   const char* function) = 0;
};

}  // namespace nxrt::ort_plugin

// The logger handed to CreateEpFactories, CreateEp and kernels. `sink` is not owned and outlives
// the logger; lines below `min_severity` are dropped (Logger_GetLoggingSeverityLevel reports it).
struct OrtLogger {
  std::string id;
  OrtLoggingLevel min_severity = ORT_LOGGING_LEVEL_WARNING;
  nxrt::ort_plugin::LogSink* sink = nullptr;
};

// Ordered string pairs with unique keys (OrtApi::CreateKeyValuePairs, AddKeyValuePair ...).
// `key_ptrs`/`value_ptrs` mirror `entries` for GetKeyValuePairs and are rebuilt on each change.
// Copies and moves rebuild the pointers (they must never point into another instance).
struct OrtKeyValuePairs {
  std::vector<std::pair<std::string, std::string>> entries;
  std::vector<const char*> key_ptrs;
  std::vector<const char*> value_ptrs;

  OrtKeyValuePairs() = default;
  OrtKeyValuePairs(const OrtKeyValuePairs& other);
  OrtKeyValuePairs(OrtKeyValuePairs&& other);
  OrtKeyValuePairs& operator=(const OrtKeyValuePairs& other);
  OrtKeyValuePairs& operator=(OrtKeyValuePairs&& other);

  // Sets `key` to `value` (replacing an existing value in place) and refreshes the pointers.
  void Set(std::string_view key, std::string_view value);
  // Removes `key` if present and refreshes the pointers.
  void Remove(std::string_view key);
  // The value of `key`, or nullptr.
  const char* Find(std::string_view key) const;
  void RefreshPointers();
};

namespace nxrt::ort_plugin {
class PluginLibrary;
}  // namespace nxrt::ort_plugin

// Session options: what an application sets (OrtApi::CreateSessionOptions and the setters; src/capi
// turns them into nxrt::SessionOptions at CreateSession) and what a plugin sees in CreateEp (the
// config entries, where the user's EP options arrive as "ep.<ep_name, lower-cased>.<key>", and
// the settings plugins read). Defaults are ONNX Runtime's.
struct OrtSessionOptions {
  // An execution provider appended with SessionOptionsAppendExecutionProvider_V2 (or the CPU EP
  // by OrtSessionOptionsAppendExecutionProvider_CPU): `library` is null for nxrt's CPU EP.
  struct Provider {
    std::shared_ptr<nxrt::ort_plugin::PluginLibrary> library;
    std::string ep_name;
    std::vector<std::pair<std::string, std::string>> options;  // in the order given
  };

  OrtKeyValuePairs config;
  int intra_op_threads = 0;  // 0: the host's choice
  GraphOptimizationLevel optimization_level = ORT_ENABLE_ALL;
  ExecutionMode execution_mode = ORT_SEQUENTIAL;
  OrtLoggingLevel log_severity = ORT_LOGGING_LEVEL_WARNING;
  std::string log_id;
  bool enable_profiling = false;
  std::string profile_file_prefix;  // "onnxruntime_profile_" unless EnableProfiling set one
  bool mem_pattern = true;             // reported back by GetMemPatternEnabled
  bool per_session_threads = true;     // DisablePerSessionThreads clears it
  // AddFreeDimensionOverrideByName: symbolic dim name -> value, in the order given.
  std::vector<std::pair<std::string, int64_t>> free_dimension_overrides;
  std::vector<Provider> providers;  // in priority order
  OrtLoggingFunction logger = nullptr;  // SetUserLoggingFunction; null: the env's
  void* logger_param = nullptr;
};

// OrtApi::CreateRunOptions: the config entries (AddRunConfigEntry / GetRunConfigEntry), the log
// settings and tag, and the terminate flag an application may set from another thread while
// runs that use these options are in progress (RunOptionsSetTerminate).
struct OrtRunOptions {
  OrtKeyValuePairs config;
  int log_verbosity = 0;
  int log_severity = ORT_LOGGING_LEVEL_WARNING;
  std::string tag;
  std::atomic<bool> terminate{false};
};

// A device memory kind: OrtEpApi::MemoryDevice_* read it. Equal kinds can share buffers.
struct OrtMemoryDevice {
  OrtMemoryInfoDeviceType type = OrtMemoryInfoDeviceType_CPU;
  OrtDeviceMemoryType memory_type = OrtDeviceMemoryType_DEFAULT;
  uint32_t vendor_id = 0;
  int32_t device_id = 0;
  bool operator==(const OrtMemoryDevice&) const = default;
};

// OrtApi::CreateMemoryInfo(_V2) / CreateCpuMemoryInfo.
struct OrtMemoryInfo {
  std::string name;  // "Cpu" for host memory
  int32_t id = 0;
  OrtAllocatorType allocator_type = OrtDeviceAllocator;
  OrtMemType mem_type = OrtMemTypeDefault;
  size_t alignment = 0;  // 0: the default
  OrtMemoryDevice device;
};

namespace nxrt::ort_plugin {

// The host's own allocators: an OrtAllocator (version ORT_API_VERSION, every slot set) over
// 64-byte aligned host memory, tagged with `info`. HostAllocator* converts to OrtAllocator*;
// the slots static_cast back. Stats are the keys OrtAllocator::GetStats documents.
struct HostAllocator : OrtAllocator {
  OrtMemoryInfo info;
  std::atomic<int64_t> in_use{0};
  std::atomic<int64_t> max_in_use{0};
  std::atomic<int64_t> total_allocated{0};
  std::atomic<int64_t> num_allocs{0};
  std::atomic<int64_t> num_reserves{0};
  std::atomic<int64_t> max_alloc_size{0};
};

// The process-wide CPU allocator (GetAllocatorWithDefaultOptions, KernelContext_GetAllocator).
HostAllocator& DefaultCpuAllocator();

}  // namespace nxrt::ort_plugin

// A value a plugin or an application reads or writes: a tensor, a sequence, a map, or an optional
// that holds nothing (`type`: ONNX_TYPE_TENSOR, _SEQUENCE, _MAP, _OPTIONAL).
// Tensors: `data` is `bytes` long, `shape` has every dim >= 0, and `memory_info` describes where
// `data` lives. String tensors (ONNX_TENSOR_ELEMENT_DATA_TYPE_STRING) hold one std::string per
// element at `data` (`bytes` = count * sizeof(std::string)), made and owned by the value. `owner`
// keeps the data alive when the value owns it (allocator memory, a mapped external file, an nxrt
// tensor) and may also hold the memory info the value points to (values made by
// CreateTensor*AsOrtValue copy the caller's memory info); it is empty for views of host buffers
// described by a long-lived memory info. Plugins get tensors only.
// Sequences hold their elements in order (tensors of one element type, or maps of one type);
// a sequence of tensors also keeps that `element_type`, so an empty one (a model's output) still
// has one. Maps hold two 1-D tensors of equal length, keys then values (OrtApi::CreateValue). Both
// own their elements, which nothing changes after the value is made.
struct OrtValue {
  ONNXType type = ONNX_TYPE_TENSOR;
  ONNXTensorElementDataType element_type = ONNX_TENSOR_ELEMENT_DATA_TYPE_UNDEFINED;
  std::vector<int64_t> shape;
  void* data = nullptr;
  size_t bytes = 0;
  const OrtMemoryInfo* memory_info = nullptr;
  std::shared_ptr<void> owner;
  std::vector<std::shared_ptr<const OrtValue>> elements;  // sequences and maps

  // A tensor with an element type (plugin inputs that are omitted have none).
  bool is_tensor() const {
    return type == ONNX_TYPE_TENSOR && element_type != ONNX_TENSOR_ELEMENT_DATA_TYPE_UNDEFINED;
  }
};

// OrtApi::GetTensorTypeAndShape, CreateTensorTypeAndShapeInfo. Dims are -1 where unknown;
// `symbolic_dims[i]` names dim i ("" when it has no name); `has_shape` is false when the rank is
// unknown (TensorTypeAndShape_HasShape).
struct OrtTensorTypeAndShapeInfo {
  ONNXTensorElementDataType element_type = ONNX_TENSOR_ELEMENT_DATA_TYPE_UNDEFINED;
  std::vector<int64_t> dims;
  std::vector<std::string> symbolic_dims;
  std::vector<const char*> symbolic_dim_ptrs;  // mirrors symbolic_dims
  bool has_shape = true;
};

// OrtApi::GetOnnxTypeFromTypeInfo and the CastTypeInfoTo* family. `tensor` is set for
// ONNX_TYPE_TENSOR and ONNX_TYPE_SPARSETENSOR; `element` (the contained type) for sequences and
// optionals; `map_key`/`element` for maps. ONNX_TYPE_UNKNOWN when the model does not say.
struct OrtTypeInfo {
  ONNXType type = ONNX_TYPE_UNKNOWN;
  std::unique_ptr<OrtTensorTypeAndShapeInfo> tensor;
  std::unique_ptr<OrtTypeInfo> element;
  ONNXTensorElementDataType map_key = ONNX_TENSOR_ELEMENT_DATA_TYPE_UNDEFINED;
  std::string denotation;
};

// The host's hardware devices (GetSupportedDevices input; OrtApi::HardwareDevice_*).
struct OrtHardwareDevice {
  OrtHardwareDeviceType type = OrtHardwareDeviceType_CPU;
  uint32_t vendor_id = 0;
  uint32_t device_id = 0;
  std::string vendor;
  OrtKeyValuePairs metadata;
};

// An EP on a hardware device, made by a plugin's factory with OrtEpApi::CreateEpDevice and
// released by the host (ReleaseEpDevice) when the library is unloaded. `memory_infos` holds the
// memory infos added with EpDevice_AddAllocatorInfo (device memory, host-accessible memory): the
// plugin's own pointers, which it keeps alive while the device lives, as ORT requires. They are
// not copied, so that OrtEpFactory::CreateAllocator receives the very pointer the plugin
// registered (ORT 1.30 does the same; plugins compare it by address).
struct OrtEpDevice {
  std::string ep_name;
  std::string ep_vendor;
  const OrtHardwareDevice* device = nullptr;
  OrtKeyValuePairs ep_metadata;
  OrtKeyValuePairs ep_options;
  OrtEpFactory* factory = nullptr;
  std::vector<const OrtMemoryInfo*> memory_infos;
  // The memory info of `mem_type` (OrtDeviceMemoryType_DEFAULT or _HOST_ACCESSIBLE), or null.
  const OrtMemoryInfo* MemoryInfo(OrtDeviceMemoryType mem_type) const;
};

// What a fused kernel's Compute sees (OrtApi::KernelContext_*). The plugin host implements it
// per fused kernel call (plugin_ep.cpp); the API functions forward to these.
struct OrtKernelContext {
  virtual ~OrtKernelContext() = default;
  virtual size_t InputCount() const = 0;
  virtual size_t OutputCount() const = 0;
  // Input `i` or null when `i` is out of range or the input is omitted.
  virtual const OrtValue* Input(size_t i) const = 0;
  // Output `i` with `shape`, allocated on first request; later requests with the same shape
  // return the same value. Errors: an index out of range, a negative dim, another shape.
  virtual OrtStatus* Output(size_t i, const int64_t* shape, size_t rank, OrtValue** out) = 0;
  // Output `i` when it has a value already (Output allocated it during this call), else null.
  virtual OrtValue* AllocatedOutput(size_t i) const = 0;
  virtual const OrtLogger* Logger() const = 0;
  // Runs fn(data, i) for i in [0, total) on the host's intra-op threads, `num_batch` chunks at
  // most (0: the host's choice).
  virtual OrtStatus* ParallelFor(void (*fn)(void*, size_t), size_t total, size_t num_batch,
                                 void* data) = 0;
  // The run's stream of a stream-aware EP (sync_stream.h), or null.
  virtual OrtSyncStream* Stream() const { return nullptr; }
};

// OrtEpApi::EpGraphSupportInfo_AddNodesToFuse / AddSingleNode collect groups here during one
// GetCapability call; the host validates them afterwards. Nodes are stored as the plugin passed
// them (possibly unknown pointers); nothing is dereferenced before validation.
// EpGraphSupportInfo_LookUpKernel matches nodes of `graph` against `registry` (the EP's
// OrtEp::GetKernelRegistry, null when it has none) for EP `ep_name`.
struct OrtEpGraphSupportInfo {
  struct Group {
    std::vector<const OrtNode*> nodes;
    bool fused = true;                        // false: AddSingleNode
    bool drop_constant_initializers = false;  // from OrtNodeFusionOptions, version-gated
  };
  const OrtGraph* graph = nullptr;
  const OrtKernelRegistry* registry = nullptr;
  std::string ep_name;
  std::vector<Group> groups;
};

// OrtEpApi::NodeComputeContext_NodeName: the fused node's name, during CreateState.
struct OrtNodeComputeContext {
  std::string node_name;
};

// OrtApi::CreateCustomOpDomain. nxrt does not run custom ops; the domain keeps what the plugin
// added so it can be released.
struct OrtCustomOpDomain {
  std::string domain;
  std::vector<const OrtCustomOp*> ops;
};
