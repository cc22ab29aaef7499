// ort_oracle/ort_oracle.cpp: the ONNX Runtime oracle over ORT's C API, loaded with dlopen.
//
// Layer: test support (nxrt_ort_oracle), over nxrt_core and ORT's C header (onnxruntime_c_api.h,
// API 29). Every OrtApi call goes through ORT_CALL, which turns an OrtStatus into an nxrt Status
// naming the function; every ORT object is held by an OrtPtr that releases it.
//
// Lifetime: a library, once loaded, stays loaded with its OrtEnv until the process ends (ORT does
// not support unloading itself, and plugin libraries registered in its env must outlive every
// session using them). Sessions hold the library handle, so no session can outlive its ORT.
//
// ONNX Runtime 1.30 itself leaks 14 bytes in CreateEnv (even after ReleaseEnv); this file gives
// LeakSanitizer a default suppression for allocations made inside libonnxruntime, so that
// sanitizer builds of every binary using the oracle report nxrt's leaks, not ORT's.
#include "ort_oracle/ort_oracle.h"

#include <dlfcn.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <mutex>
#include <set>

#include "onnxruntime_c_api.h"

#ifndef NXRT_ORT_DEFAULT_LIBRARY
#error "NXRT_ORT_DEFAULT_LIBRARY must name the default libonnxruntime.so.1 path"
#endif

namespace nxrt::oracle {
namespace detail {

// One dlopen'ed ONNX Runtime with its environment.
struct OrtLibrary {
  // A plugin library registered in `env`, and the devices it added (owned by the env; they
  // stay valid until the library is unregistered).
  struct Registration {
    std::string library_path;
    std::vector<const OrtEpDevice*> devices;
  };

  std::string path;
  void* handle = nullptr;
  const OrtApi* api = nullptr;
  OrtEnv* env = nullptr;
  OrtMemoryInfo* cpu_memory = nullptr;
  std::string version;

  std::mutex registration_mutex;
  std::map<std::string, Registration> registrations;  // guarded by registration_mutex
};

// A live OrtSession and what was read from it once.
struct OrtSessionHandle {
  std::shared_ptr<OrtLibrary> library;
  OrtSession* session = nullptr;
  std::string model_path;
  std::vector<ValueInfo> inputs;
  std::vector<ValueInfo> outputs;

  OrtSessionHandle() = default;
  OrtSessionHandle(const OrtSessionHandle&) = delete;
  OrtSessionHandle& operator=(const OrtSessionHandle&) = delete;
  ~OrtSessionHandle() {
    if (session != nullptr) library->api->ReleaseSession(session);
  }
};

}  // namespace detail

namespace {

using detail::OrtLibrary;
using detail::OrtSessionHandle;

// Releases any ORT object through the API table it came from.
struct OrtReleaser {
  const OrtApi* api;
  void operator()(OrtValue* p) const { api->ReleaseValue(p); }
  void operator()(OrtSessionOptions* p) const { api->ReleaseSessionOptions(p); }
  void operator()(OrtTypeInfo* p) const { api->ReleaseTypeInfo(p); }
  void operator()(OrtTensorTypeAndShapeInfo* p) const { api->ReleaseTensorTypeAndShapeInfo(p); }
};
template <typename T>
using OrtPtr = std::unique_ptr<T, OrtReleaser>;

std::string_view OrtErrorCodeName(OrtErrorCode code) {
  switch (code) {
    case ORT_OK: return "ORT_OK";
    case ORT_FAIL: return "ORT_FAIL";
    case ORT_INVALID_ARGUMENT: return "ORT_INVALID_ARGUMENT";
    case ORT_NO_SUCHFILE: return "ORT_NO_SUCHFILE";
    case ORT_NO_MODEL: return "ORT_NO_MODEL";
    case ORT_ENGINE_ERROR: return "ORT_ENGINE_ERROR";
    case ORT_RUNTIME_EXCEPTION: return "ORT_RUNTIME_EXCEPTION";
    case ORT_INVALID_PROTOBUF: return "ORT_INVALID_PROTOBUF";
    case ORT_MODEL_LOADED: return "ORT_MODEL_LOADED";
    case ORT_NOT_IMPLEMENTED: return "ORT_NOT_IMPLEMENTED";
    case ORT_INVALID_GRAPH: return "ORT_INVALID_GRAPH";
    case ORT_EP_FAIL: return "ORT_EP_FAIL";
    case ORT_MODEL_LOAD_CANCELED: return "ORT_MODEL_LOAD_CANCELED";
    case ORT_MODEL_REQUIRES_COMPILATION: return "ORT_MODEL_REQUIRES_COMPILATION";
    case ORT_NOT_FOUND: return "ORT_NOT_FOUND";
    case ORT_DEVICE_RESET: return "ORT_DEVICE_RESET";
  }
  return "ORT error code out of range";
}

StatusCode StatusCodeFromOrt(OrtErrorCode code) {
  switch (code) {
    case ORT_INVALID_ARGUMENT: return StatusCode::kInvalidArgument;
    case ORT_NO_SUCHFILE:
    case ORT_NO_MODEL:
    case ORT_NOT_FOUND: return StatusCode::kNotFound;
    case ORT_INVALID_PROTOBUF:
    case ORT_INVALID_GRAPH: return StatusCode::kInvalidModel;
    case ORT_NOT_IMPLEMENTED: return StatusCode::kNotImplemented;
    case ORT_MODEL_LOADED: return StatusCode::kFailedPrecondition;
    default: return StatusCode::kRuntimeError;
  }
}

// Converts (and releases) an OrtStatus returned by OrtApi::<function>.
Status FromOrt(const OrtApi* api, OrtStatus* status, std::string_view function) {
  if (status == nullptr) return Status::Ok();
  const OrtErrorCode code = api->GetErrorCode(status);
  std::string message = api->GetErrorMessage(status);
  api->ReleaseStatus(status);
  return MakeStatus(StatusCodeFromOrt(code), "OrtApi::", function, " failed (",
                    OrtErrorCodeName(code), "): ", message);
}

// Calls api->fn(args...) and returns its result as a Status naming `fn`.
#define ORT_CALL(api, fn, ...) FromOrt((api), (api)->fn(__VA_ARGS__), #fn)

ValueKind ValueKindFromOrt(ONNXType type) {
  switch (type) {
    case ONNX_TYPE_TENSOR: return ValueKind::kTensor;
    case ONNX_TYPE_SEQUENCE: return ValueKind::kSequence;
    case ONNX_TYPE_MAP: return ValueKind::kMap;
    case ONNX_TYPE_OPTIONAL: return ValueKind::kOptional;
    case ONNX_TYPE_SPARSETENSOR: return ValueKind::kSparseTensor;
    default: return ValueKind::kOther;
  }
}

std::string ModelContext(const std::string& model_path) { return "model '" + model_path + "'"; }

// Reads the element type and shape of a tensor type.
Status ReadTensorShapeInfo(const OrtApi* api, const OrtTensorTypeAndShapeInfo* info,
                           ValueInfo& value) {
  ONNXTensorElementDataType element_type;
  NXRT_RETURN_IF_ERROR(ORT_CALL(api, GetTensorElementType, info, &element_type));
  value.onnx_element_type = static_cast<int32_t>(element_type);
  value.dtype = DataTypeFromOnnx(value.onnx_element_type).value_or(DataType::kUndefined);
  value.has_shape = api->TensorTypeAndShape_HasShape(info);
  size_t rank = 0;
  NXRT_RETURN_IF_ERROR(ORT_CALL(api, GetDimensionsCount, info, &rank));
  value.dims.assign(rank, -1);
  std::vector<const char*> names(rank, nullptr);
  NXRT_RETURN_IF_ERROR(ORT_CALL(api, GetDimensions, info, value.dims.data(), rank));
  NXRT_RETURN_IF_ERROR(ORT_CALL(api, GetSymbolicDimensions, info, names.data(), rank));
  value.dim_names.assign(rank, "");
  for (size_t i = 0; i < rank; ++i) {
    if (value.dims[i] < 0) value.dims[i] = -1;
    if (value.dims[i] < 0 && names[i] != nullptr) value.dim_names[i] = names[i];
  }
  return Status::Ok();
}

Result<ValueInfo> ReadValueInfo(const OrtApi* api, const OrtTypeInfo* type_info, std::string name) {
  ValueInfo value;
  value.name = std::move(name);
  ONNXType type;
  NXRT_RETURN_IF_ERROR(ORT_CALL(api, GetOnnxTypeFromTypeInfo, type_info, &type));
  value.kind = ValueKindFromOrt(type);
  if (value.kind != ValueKind::kTensor) {
    value.has_shape = false;
    return value;
  }
  const OrtTensorTypeAndShapeInfo* tensor_info = nullptr;
  NXRT_RETURN_IF_ERROR(ORT_CALL(api, CastTypeInfoToTensorInfo, type_info, &tensor_info));
  NXRT_RETURN_IF_ERROR(ReadTensorShapeInfo(api, tensor_info, value));
  return value;
}

// Reads the names and types of a session's inputs (`outputs` false) or outputs.
Result<std::vector<ValueInfo>> ReadSessionValues(const OrtApi* api, const OrtSession* session,
                                                 bool outputs) {
  size_t count = 0;
  if (outputs) {
    NXRT_RETURN_IF_ERROR(ORT_CALL(api, SessionGetOutputCount, session, &count));
  } else {
    NXRT_RETURN_IF_ERROR(ORT_CALL(api, SessionGetInputCount, session, &count));
  }
  OrtAllocator* allocator = nullptr;
  NXRT_RETURN_IF_ERROR(ORT_CALL(api, GetAllocatorWithDefaultOptions, &allocator));
  std::vector<ValueInfo> values;
  for (size_t i = 0; i < count; ++i) {
    char* raw_name = nullptr;
    OrtTypeInfo* raw_type = nullptr;
    if (outputs) {
      NXRT_RETURN_IF_ERROR(ORT_CALL(api, SessionGetOutputName, session, i, allocator, &raw_name));
    } else {
      NXRT_RETURN_IF_ERROR(ORT_CALL(api, SessionGetInputName, session, i, allocator, &raw_name));
    }
    std::string name = raw_name;
    NXRT_RETURN_IF_ERROR(ORT_CALL(api, AllocatorFree, allocator, raw_name));
    if (outputs) {
      NXRT_RETURN_IF_ERROR(ORT_CALL(api, SessionGetOutputTypeInfo, session, i, &raw_type));
    } else {
      NXRT_RETURN_IF_ERROR(ORT_CALL(api, SessionGetInputTypeInfo, session, i, &raw_type));
    }
    OrtPtr<OrtTypeInfo> type(raw_type, OrtReleaser{api});
    NXRT_ASSIGN_OR_RETURN(ValueInfo value, ReadValueInfo(api, type.get(), name));
    values.push_back(std::move(value));
  }
  return values;
}

std::string ListValues(const std::vector<ValueInfo>& values) {
  std::string out;
  for (const ValueInfo& value : values) {
    if (!out.empty()) out += ", ";
    out += "'" + value.name + "' " + value.Description();
  }
  return out.empty() ? "(none)" : out;
}

const ValueInfo* FindValue(const std::vector<ValueInfo>& values, const std::string& name) {
  for (const ValueInfo& value : values) {
    if (value.name == name) return &value;
  }
  return nullptr;
}

// An OrtValue over `tensor` (contiguous; numeric tensors are borrowed, strings copied).
Result<OrtPtr<OrtValue>> MakeOrtValue(const OrtLibrary& library, const Tensor& tensor) {
  const OrtApi* api = library.api;
  const auto element_type = static_cast<ONNXTensorElementDataType>(tensor.dtype());
  const Shape& shape = tensor.shape();
  OrtValue* raw = nullptr;
  if (tensor.dtype() == DataType::kString) {
    OrtAllocator* allocator = nullptr;
    NXRT_RETURN_IF_ERROR(ORT_CALL(api, GetAllocatorWithDefaultOptions, &allocator));
    NXRT_RETURN_IF_ERROR(ORT_CALL(api, CreateTensorAsOrtValue, allocator, shape.data(),
                                  shape.size(), element_type, &raw));
    OrtPtr<OrtValue> value(raw, OrtReleaser{api});
    std::vector<const char*> strings;
    for (const std::string& s : tensor.span<std::string>()) strings.push_back(s.c_str());
    NXRT_RETURN_IF_ERROR(
        ORT_CALL(api, FillStringTensor, value.get(), strings.data(), strings.size()));
    return value;
  }
  // ORT wants a non-null pointer even for a tensor with no elements.
  static uint64_t empty_storage = 0;
  void* data = tensor.element_count() == 0 ? &empty_storage
                                           : const_cast<void*>(tensor.raw_data());
  NXRT_RETURN_IF_ERROR(ORT_CALL(api, CreateTensorWithDataAsOrtValue, library.cpu_memory, data,
                                tensor.byte_size(), shape.data(), shape.size(), element_type,
                                &raw));
  return OrtPtr<OrtValue>(raw, OrtReleaser{api});
}

// An owned nxrt Tensor copied out of an ORT output value named `name`.
Result<Tensor> TensorFromOrtValue(const OrtApi* api, const OrtValue* value,
                                  const std::string& name) {
  ONNXType type;
  NXRT_RETURN_IF_ERROR(ORT_CALL(api, GetValueType, value, &type));
  if (type != ONNX_TYPE_TENSOR) {
    return MakeStatus(StatusCode::kNotImplemented, "output '", name, "' is not a tensor (ONNXType ",
                      static_cast<int>(type), "); the oracle returns tensors only");
  }
  OrtTensorTypeAndShapeInfo* raw_info = nullptr;
  NXRT_RETURN_IF_ERROR(ORT_CALL(api, GetTensorTypeAndShape, value, &raw_info));
  OrtPtr<OrtTensorTypeAndShapeInfo> info(raw_info, OrtReleaser{api});
  ValueInfo shape_info;
  NXRT_RETURN_IF_ERROR(ReadTensorShapeInfo(api, info.get(), shape_info));
  if (shape_info.dtype == DataType::kUndefined) {
    return MakeStatus(StatusCode::kNotImplemented, "output '", name,
                      "' has ONNX element type ", shape_info.onnx_element_type,
                      ", which nxrt has no DataType for");
  }
  NXRT_ASSIGN_OR_RETURN(Tensor tensor, Tensor::Allocate(shape_info.dtype, shape_info.dims));
  const auto count = static_cast<size_t>(tensor.element_count());
  if (count == 0) return tensor;
  if (tensor.dtype() == DataType::kString) {
    size_t total = 0;
    NXRT_RETURN_IF_ERROR(ORT_CALL(api, GetStringTensorDataLength, value, &total));
    std::string bytes(total, '\0');
    std::vector<size_t> offsets(count, 0);
    NXRT_RETURN_IF_ERROR(ORT_CALL(api, GetStringTensorContent, value, bytes.data(), total,
                                  offsets.data(), count));
    std::string* out = tensor.mutable_data<std::string>();
    for (size_t i = 0; i < count; ++i) {
      const size_t end = (i + 1 < count) ? offsets[i + 1] : total;
      out[i] = bytes.substr(offsets[i], end - offsets[i]);
    }
    return tensor;
  }
  const void* data = nullptr;
  NXRT_RETURN_IF_ERROR(ORT_CALL(api, GetTensorData, value, &data));
  std::memcpy(tensor.mutable_raw_data(), data, tensor.byte_size());
  return tensor;
}

// An ORT map or sequence made with OrtApi::CreateValue from `value` (a kMap or a non-empty
// kMapSequence); its keys and values are copied by ORT.
Result<OrtPtr<OrtValue>> MakeOrtMapValue(const OrtLibrary& library, const Value& value) {
  const OrtApi* api = library.api;
  if (value.is_map()) {
    NXRT_ASSIGN_OR_RETURN(OrtPtr<OrtValue> keys, MakeOrtValue(library, value.map_keys()));
    NXRT_ASSIGN_OR_RETURN(OrtPtr<OrtValue> values, MakeOrtValue(library, value.map_values()));
    const OrtValue* parts[] = {keys.get(), values.get()};
    OrtValue* raw = nullptr;
    NXRT_RETURN_IF_ERROR(ORT_CALL(api, CreateValue, parts, 2, ONNX_TYPE_MAP, &raw));
    return OrtPtr<OrtValue>(raw, OrtReleaser{api});
  }
  if (value.maps().empty()) {
    return MakeStatus(StatusCode::kNotImplemented,
                      "ORT's CreateValue makes no empty sequence; give at least one map");
  }
  std::vector<OrtPtr<OrtValue>> maps;
  std::vector<const OrtValue*> parts;
  for (const Value& map : value.maps()) {
    NXRT_ASSIGN_OR_RETURN(OrtPtr<OrtValue> m, MakeOrtMapValue(library, map));
    parts.push_back(m.get());
    maps.push_back(std::move(m));
  }
  OrtValue* raw = nullptr;
  NXRT_RETURN_IF_ERROR(
      ORT_CALL(api, CreateValue, parts.data(), parts.size(), ONNX_TYPE_SEQUENCE, &raw));
  return OrtPtr<OrtValue>(raw, OrtReleaser{api});
}

// An owned nxrt Value copied out of an ORT output: a tensor, a map (GetValue 0 is its keys, 1
// its values), or a sequence of tensors or maps.
Result<Value> ValueFromOrtValue(const OrtApi* api, const OrtValue* value, const std::string& name) {
  ONNXType type;
  NXRT_RETURN_IF_ERROR(ORT_CALL(api, GetValueType, value, &type));
  if (type == ONNX_TYPE_TENSOR) {
    NXRT_ASSIGN_OR_RETURN(Tensor t, TensorFromOrtValue(api, value, name));
    return Value(std::move(t));
  }
  if (type != ONNX_TYPE_MAP && type != ONNX_TYPE_SEQUENCE) {
    return MakeStatus(StatusCode::kNotImplemented, "output '", name, "' has ONNXType ",
                      static_cast<int>(type), "; the oracle returns tensors, maps and sequences");
  }
  OrtAllocator* allocator = nullptr;
  NXRT_RETURN_IF_ERROR(ORT_CALL(api, GetAllocatorWithDefaultOptions, &allocator));
  size_t count = 0;
  NXRT_RETURN_IF_ERROR(ORT_CALL(api, GetValueCount, value, &count));
  std::vector<Value> parts;
  for (size_t i = 0; i < count; ++i) {
    OrtValue* raw = nullptr;
    NXRT_RETURN_IF_ERROR(ORT_CALL(api, GetValue, value, static_cast<int>(i), allocator, &raw));
    OrtPtr<OrtValue> part(raw, OrtReleaser{api});
    NXRT_ASSIGN_OR_RETURN(Value v, ValueFromOrtValue(api, part.get(),
                                                     name + "[" + std::to_string(i) + "]"));
    parts.push_back(std::move(v));
  }
  if (type == ONNX_TYPE_MAP) return Value::Map(parts.at(0).tensor(), parts.at(1).tensor());
  if (!parts.empty() && parts.front().is_map()) {
    const DataType key = parts.front().map_key_dtype();
    const DataType element = parts.front().dtype();
    return Value::MapSequence(key, element, std::move(parts));
  }
  OrtTypeInfo* raw_type = nullptr;
  NXRT_RETURN_IF_ERROR(ORT_CALL(api, GetTypeInfo, value, &raw_type));
  OrtPtr<OrtTypeInfo> type_info(raw_type, OrtReleaser{api});
  const OrtSequenceTypeInfo* sequence_info = nullptr;
  NXRT_RETURN_IF_ERROR(
      ORT_CALL(api, CastTypeInfoToSequenceTypeInfo, type_info.get(), &sequence_info));
  OrtTypeInfo* raw_element = nullptr;
  NXRT_RETURN_IF_ERROR(ORT_CALL(api, GetSequenceElementType, sequence_info, &raw_element));
  OrtPtr<OrtTypeInfo> element(raw_element, OrtReleaser{api});
  ONNXType element_type;
  NXRT_RETURN_IF_ERROR(ORT_CALL(api, GetOnnxTypeFromTypeInfo, element.get(), &element_type));
  if (element_type == ONNX_TYPE_MAP) {  // an empty sequence of maps
    const OrtMapTypeInfo* map_info = nullptr;
    NXRT_RETURN_IF_ERROR(ORT_CALL(api, CastTypeInfoToMapTypeInfo, element.get(), &map_info));
    ONNXTensorElementDataType key = ONNX_TENSOR_ELEMENT_DATA_TYPE_UNDEFINED;
    NXRT_RETURN_IF_ERROR(ORT_CALL(api, GetMapKeyType, map_info, &key));
    OrtTypeInfo* raw_value = nullptr;
    NXRT_RETURN_IF_ERROR(ORT_CALL(api, GetMapValueType, map_info, &raw_value));
    OrtPtr<OrtTypeInfo> value_type(raw_value, OrtReleaser{api});
    const OrtTensorTypeAndShapeInfo* value_info = nullptr;
    NXRT_RETURN_IF_ERROR(ORT_CALL(api, CastTypeInfoToTensorInfo, value_type.get(), &value_info));
    ValueInfo map_values;
    NXRT_RETURN_IF_ERROR(ReadTensorShapeInfo(api, value_info, map_values));
    return Value::MapSequence(DataTypeFromOnnx(key).value_or(DataType::kUndefined),
                              map_values.dtype, {});
  }
  const OrtTensorTypeAndShapeInfo* tensor_info = nullptr;
  NXRT_RETURN_IF_ERROR(ORT_CALL(api, CastTypeInfoToTensorInfo, element.get(), &tensor_info));
  ValueInfo element_info;
  NXRT_RETURN_IF_ERROR(ReadTensorShapeInfo(api, tensor_info, element_info));
  std::vector<Tensor> tensors;
  for (Value& part : parts) tensors.push_back(part.tensor());
  return Value::Sequence(element_info.dtype, std::move(tensors));
}

std::string_view OrtDeviceTypeName(OrtHardwareDeviceType type) {
  switch (type) {
    case OrtHardwareDeviceType_CPU: return "cpu";
    case OrtHardwareDeviceType_GPU: return "gpu";
    case OrtHardwareDeviceType_NPU: return "npu";
  }
  return "unknown";
}

Result<std::vector<const OrtEpDevice*>> ListEpDevices(const OrtLibrary& library) {
  const OrtEpDevice* const* devices = nullptr;
  size_t count = 0;
  NXRT_RETURN_IF_ERROR(ORT_CALL(library.api, GetEpDevices, library.env, &devices, &count));
  return std::vector<const OrtEpDevice*>(devices, devices + count);
}

EpDeviceInfo DescribeEpDevice(const OrtApi* api, const OrtEpDevice* device) {
  EpDeviceInfo info;
  info.ep_name = api->EpDevice_EpName(device);
  info.ep_vendor = api->EpDevice_EpVendor(device);
  const OrtHardwareDevice* hardware = api->EpDevice_Device(device);
  info.device_type = OrtDeviceTypeName(api->HardwareDevice_Type(hardware));
  info.device_vendor = api->HardwareDevice_Vendor(hardware);
  return info;
}

// The plugin's registration name, defaulting to the library's file name without "lib" and
// extension.
std::string RegistrationName(const PluginEp& plugin) {
  if (!plugin.registration_name.empty()) return plugin.registration_name;
  std::string name = std::filesystem::path(plugin.library_path).filename().string();
  name = name.substr(0, name.find('.'));
  if (name.starts_with("lib") && name.size() > 3) name = name.substr(3);
  return name;
}

// Registers `plugin` in `library`'s env (once per name) and returns the devices it added. The
// caller holds library.registration_mutex.
Result<std::vector<const OrtEpDevice*>> RegisterPluginLocked(OrtLibrary& library,
                                                             const PluginEp& plugin) {
  const std::string registration_name = RegistrationName(plugin);
  const std::string context =
      "plugin EP library '" + plugin.library_path + "' (registered as '" + registration_name + "')";
  std::error_code error;
  const auto canonical = std::filesystem::weakly_canonical(plugin.library_path, error).string();
  auto found = library.registrations.find(registration_name);
  if (found != library.registrations.end()) {
    if (found->second.library_path != canonical) {
      return MakeStatus(StatusCode::kInvalidArgument, context, ": the name '", registration_name,
                        "' is already registered for '", found->second.library_path,
                        "'; choose another registration name (PATH:name)");
    }
    return found->second.devices;
  }
  if (!std::filesystem::exists(plugin.library_path, error)) {
    return MakeStatus(StatusCode::kNotFound, context, ": the file does not exist");
  }
  NXRT_ASSIGN_OR_RETURN(std::vector<const OrtEpDevice*> before, ListEpDevices(library));
  NXRT_RETURN_IF_ERROR(ORT_CALL(library.api, RegisterExecutionProviderLibrary, library.env,
                                registration_name.c_str(), plugin.library_path.c_str())
                           .WithContext(context));
  NXRT_ASSIGN_OR_RETURN(std::vector<const OrtEpDevice*> after, ListEpDevices(library));
  const std::set<const OrtEpDevice*> old_devices(before.begin(), before.end());
  std::vector<const OrtEpDevice*> added;
  for (const OrtEpDevice* device : after) {
    if (!old_devices.contains(device)) added.push_back(device);
  }
  library.registrations[registration_name] = {canonical, added};
  return added;
}

// Appends `plugin`'s EPs to `session_options`: one call per EP name (ORT takes the devices of one
// EP per call), in the order ORT lists the devices.
Status AppendPlugin(OrtLibrary& library, const PluginEp& plugin,
                    OrtSessionOptions* session_options) {
  std::vector<const OrtEpDevice*> devices;
  {
    std::lock_guard lock(library.registration_mutex);
    NXRT_ASSIGN_OR_RETURN(devices, RegisterPluginLocked(library, plugin));
  }
  const std::string context = "plugin EP library '" + plugin.library_path + "'";
  if (devices.empty()) {
    return MakeStatus(StatusCode::kNotFound, context,
                      ": its factories offered no device on this machine (GetSupportedDevices "
                      "returned none)");
  }
  std::vector<std::string> ep_names;
  for (const OrtEpDevice* device : devices) {
    std::string name = library.api->EpDevice_EpName(device);
    if (std::find(ep_names.begin(), ep_names.end(), name) == ep_names.end()) {
      ep_names.push_back(std::move(name));
    }
  }
  if (!plugin.ep_name.empty()) {
    if (std::find(ep_names.begin(), ep_names.end(), plugin.ep_name) == ep_names.end()) {
      std::string offered;
      for (const std::string& name : ep_names) {
        offered += (offered.empty() ? "'" : ", '") + name + "'";
      }
      return MakeStatus(StatusCode::kNotFound, context, ": it provides no EP named '",
                        plugin.ep_name, "'; it provides ", offered);
    }
    ep_names = {plugin.ep_name};
  }
  std::vector<const char*> keys;
  std::vector<const char*> values;
  for (const auto& [key, value] : plugin.ep_options) {
    keys.push_back(key.c_str());
    values.push_back(value.c_str());
  }
  for (const std::string& ep_name : ep_names) {
    std::vector<const OrtEpDevice*> selected;
    for (const OrtEpDevice* device : devices) {
      if (ep_name == library.api->EpDevice_EpName(device)) selected.push_back(device);
    }
    NXRT_RETURN_IF_ERROR(ORT_CALL(library.api, SessionOptionsAppendExecutionProvider_V2,
                                  session_options, library.env, selected.data(), selected.size(),
                                  keys.data(), values.data(), keys.size())
                             .WithContext(context + ", EP '" + ep_name + "'"));
  }
  return Status::Ok();
}

GraphOptimizationLevel ToOrtLevel(OptimizationLevel level) {
  switch (level) {
    case OptimizationLevel::kDisableAll: return ORT_DISABLE_ALL;
    case OptimizationLevel::kBasic: return ORT_ENABLE_BASIC;
    case OptimizationLevel::kExtended: return ORT_ENABLE_EXTENDED;
    case OptimizationLevel::kAll: return ORT_ENABLE_ALL;
  }
  return ORT_ENABLE_ALL;
}

// ORT's log level: $NXRT_ORT_LOG_LEVEL (verbose, info, warning, error, fatal), default error.
// Errors come back as Status values anyway; lower levels help when debugging a plugin EP.
OrtLoggingLevel LogLevelFromEnvironment() {
  const char* text = std::getenv("NXRT_ORT_LOG_LEVEL");
  const std::string_view level = text != nullptr ? text : "";
  if (level == "verbose") return ORT_LOGGING_LEVEL_VERBOSE;
  if (level == "info") return ORT_LOGGING_LEVEL_INFO;
  if (level == "warning") return ORT_LOGGING_LEVEL_WARNING;
  if (level == "fatal") return ORT_LOGGING_LEVEL_FATAL;
  return ORT_LOGGING_LEVEL_ERROR;
}

Result<std::shared_ptr<OrtLibrary>> OpenLibrary(const std::string& path) {
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* error = dlerror();
    return MakeStatus(StatusCode::kFailedPrecondition, "cannot load ONNX Runtime library '", path,
                      "': dlopen failed: ", error ? error : "(no reason given)");
  }
  using GetApiBaseFn = const OrtApiBase* (*)();
  auto get_api_base = reinterpret_cast<GetApiBaseFn>(dlsym(handle, "OrtGetApiBase"));
  if (get_api_base == nullptr) {
    dlclose(handle);
    return MakeStatus(StatusCode::kFailedPrecondition, "'", path,
                      "' is not ONNX Runtime: it exports no OrtGetApiBase");
  }
  const OrtApiBase* base = get_api_base();
  auto library = std::make_shared<OrtLibrary>();
  library->path = path;
  library->handle = handle;
  library->version = base->GetVersionString();
  library->api = base->GetApi(ORT_API_VERSION);
  if (library->api == nullptr) {
    dlclose(handle);
    return MakeStatus(StatusCode::kFailedPrecondition, "ONNX Runtime ", library->version, " at '",
                      path, "' does not provide C API version ", ORT_API_VERSION,
                      " (ONNX Runtime 1.", ORT_API_VERSION, " or newer is needed)");
  }
  const std::string context = "ONNX Runtime library '" + path + "'";
  NXRT_RETURN_IF_ERROR(ORT_CALL(library->api, CreateEnv, LogLevelFromEnvironment(),
                                "nxrt_ort_oracle", &library->env)
                           .WithContext(context));
  NXRT_RETURN_IF_ERROR(ORT_CALL(library->api, CreateCpuMemoryInfo, OrtArenaAllocator,
                                OrtMemTypeDefault, &library->cpu_memory)
                           .WithContext(context));
  return library;
}

}  // namespace

std::string_view OptimizationLevelName(OptimizationLevel level) {
  switch (level) {
    case OptimizationLevel::kDisableAll: return "disable";
    case OptimizationLevel::kBasic: return "basic";
    case OptimizationLevel::kExtended: return "extended";
    case OptimizationLevel::kAll: return "all";
  }
  return "unknown";
}

Result<PluginEp> ParsePluginSpec(std::string_view spec) {
  PluginEp plugin;
  const size_t colon = spec.rfind(':');
  plugin.library_path = std::string(spec.substr(0, colon));
  if (colon != std::string_view::npos)
    plugin.registration_name = std::string(spec.substr(colon + 1));
  if (plugin.library_path.empty() ||
      (colon != std::string_view::npos && plugin.registration_name.empty())) {
    return MakeStatus(StatusCode::kInvalidArgument, "plugin spec '", spec,
                      "' is malformed; expected PATH or PATH:registration_name");
  }
  return plugin;
}

std::string OrtOracle::DefaultLibraryPath() {
  const char* from_env = std::getenv("NXRT_ORT_LIBRARY");
  if (from_env != nullptr && from_env[0] != '\0') return from_env;
  return NXRT_ORT_DEFAULT_LIBRARY;
}

Result<OrtOracle> OrtOracle::Load(const std::string& library_path) {
  if (library_path.empty()) {
    return MakeStatus(StatusCode::kInvalidArgument, "the ONNX Runtime library path is empty");
  }
  std::error_code error;
  if (!std::filesystem::is_regular_file(library_path, error)) {
    return MakeStatus(StatusCode::kNotFound, "ONNX Runtime library '", library_path,
                      "' does not exist; run scripts/bootstrap.sh to fetch ONNX Runtime 1.30, or "
                      "set NXRT_ORT_LIBRARY to a libonnxruntime.so.1");
  }
  const std::string key = std::filesystem::canonical(library_path, error).string();
  // Loaded libraries live for the whole process (see the file comment): never destroyed.
  static auto* mutex = new std::mutex;
  static auto* loaded = new std::map<std::string, std::shared_ptr<OrtLibrary>>;
  std::lock_guard lock(*mutex);
  auto found = loaded->find(key);
  if (found != loaded->end()) return OrtOracle(found->second);
  NXRT_ASSIGN_OR_RETURN(std::shared_ptr<OrtLibrary> library, OpenLibrary(library_path));
  loaded->emplace(key, library);
  return OrtOracle(std::move(library));
}

const std::string& OrtOracle::version() const { return library_->version; }
const std::string& OrtOracle::library_path() const { return library_->path; }

Result<OracleSession> OrtOracle::CreateSession(const std::string& model_path,
                                               const OracleOptions& options) const {
  const OrtApi* api = library_->api;
  const std::string context = ModelContext(model_path);
  std::error_code error;
  if (!std::filesystem::is_regular_file(model_path, error)) {
    return MakeStatus(StatusCode::kNotFound, context, ": the file does not exist");
  }
  if (options.intra_op_threads < 0) {
    return MakeStatus(StatusCode::kInvalidArgument, context, ": intra_op_threads is ",
                      options.intra_op_threads, "; use 0 (ORT's default) or a positive count");
  }
  OrtSessionOptions* raw_options = nullptr;
  NXRT_RETURN_IF_ERROR(ORT_CALL(api, CreateSessionOptions, &raw_options).WithContext(context));
  OrtPtr<OrtSessionOptions> session_options(raw_options, OrtReleaser{api});
  NXRT_RETURN_IF_ERROR(
      ORT_CALL(api, SetIntraOpNumThreads, session_options.get(), options.intra_op_threads)
          .WithContext(context));
  NXRT_RETURN_IF_ERROR(ORT_CALL(api, SetSessionGraphOptimizationLevel, session_options.get(),
                                ToOrtLevel(options.optimization))
                           .WithContext(context));
  if (!options.profile_prefix.empty()) {
    NXRT_RETURN_IF_ERROR(ORT_CALL(api, EnableProfiling, session_options.get(),
                                  options.profile_prefix.c_str())
                             .WithContext(context));
  }
  for (const auto& [key, value] : options.config_entries) {
    NXRT_RETURN_IF_ERROR(
        ORT_CALL(api, AddSessionConfigEntry, session_options.get(), key.c_str(), value.c_str())
            .WithContext(context + ": config entry '" + key + "'='" + value + "'"));
  }
  for (const PluginEp& plugin : options.plugins) {
    NXRT_RETURN_IF_ERROR(
        AppendPlugin(*library_, plugin, session_options.get()).WithContext(context));
  }
  auto handle = std::make_shared<OrtSessionHandle>();
  handle->library = library_;
  handle->model_path = model_path;
  NXRT_RETURN_IF_ERROR(ORT_CALL(api, CreateSession, library_->env, model_path.c_str(),
                                session_options.get(), &handle->session)
                           .WithContext(context));
  NXRT_ASSIGN_OR_RETURN(handle->inputs, ReadSessionValues(api, handle->session, false));
  NXRT_ASSIGN_OR_RETURN(handle->outputs, ReadSessionValues(api, handle->session, true));
  return OracleSession(std::move(handle));
}

Result<std::vector<NamedTensor>> OrtOracle::Run(const std::string& model_path,
                                                const std::vector<NamedTensor>& inputs,
                                                const OracleOptions& options) const {
  NXRT_ASSIGN_OR_RETURN(OracleSession session, CreateSession(model_path, options));
  return session.Run(inputs);
}

Result<std::vector<EpDeviceInfo>> OrtOracle::RegisterPlugin(const PluginEp& plugin) const {
  std::lock_guard lock(library_->registration_mutex);
  NXRT_ASSIGN_OR_RETURN(std::vector<const OrtEpDevice*> devices,
                        RegisterPluginLocked(*library_, plugin));
  std::vector<EpDeviceInfo> provided;
  for (const OrtEpDevice* device : devices) {
    provided.push_back(DescribeEpDevice(library_->api, device));
  }
  return provided;
}

Status OrtOracle::UnregisterPlugin(const std::string& registration_name) const {
  std::lock_guard lock(library_->registration_mutex);
  auto found = library_->registrations.find(registration_name);
  if (found == library_->registrations.end()) {
    return MakeStatus(StatusCode::kNotFound, "no plugin EP library is registered as '",
                      registration_name, "'");
  }
  NXRT_RETURN_IF_ERROR(ORT_CALL(library_->api, UnregisterExecutionProviderLibrary, library_->env,
                                registration_name.c_str())
                           .WithContext("plugin EP library '" + found->second.library_path + "'"));
  library_->registrations.erase(found);
  return Status::Ok();
}

Result<std::vector<EpDeviceInfo>> OrtOracle::EpDevices() const {
  NXRT_ASSIGN_OR_RETURN(std::vector<const OrtEpDevice*> devices, ListEpDevices(*library_));
  std::vector<EpDeviceInfo> infos;
  for (const OrtEpDevice* device : devices)
    infos.push_back(DescribeEpDevice(library_->api, device));
  return infos;
}

const std::string& OracleSession::model_path() const { return handle_->model_path; }
const std::vector<ValueInfo>& OracleSession::inputs() const { return handle_->inputs; }
const std::vector<ValueInfo>& OracleSession::outputs() const { return handle_->outputs; }

namespace {

// A run's inputs as ORT values, checked against the session's declarations.
struct OrtFeeds {
  std::vector<const char*> names;  // the session's own names: they outlive the caller's values
  std::vector<Tensor> contiguous;  // keeps gathered copies alive during the run
  std::vector<OrtPtr<OrtValue>> values;
  std::vector<const OrtValue*> raw;
};

Status MakeFeeds(const OrtSessionHandle& handle, const std::vector<NamedValue>& inputs,
                 OrtFeeds& feeds) {
  const OrtLibrary& library = *handle.library;
  const std::string context = ModelContext(handle.model_path);
  feeds.contiguous.reserve(inputs.size());
  for (const NamedValue& input : inputs) {
    const ValueInfo* declared = FindValue(handle.inputs, input.name);
    if (declared == nullptr) {
      return MakeStatus(StatusCode::kInvalidArgument, context, ": it has no input named '",
                        input.name, "'; its inputs are ", ListValues(handle.inputs));
    }
    for (const char* seen : feeds.names) {
      if (input.name == seen) {
        return MakeStatus(StatusCode::kInvalidArgument, context, ": input '", input.name,
                          "' is given twice");
      }
    }
    if (!input.value.defined()) {
      return MakeStatus(StatusCode::kInvalidArgument, context, ": input '", input.name,
                        "' is an undefined (empty) tensor");
    }
    if (input.value.is_map() || input.value.is_map_sequence()) {
      const ValueKind kind = input.value.is_map() ? ValueKind::kMap : ValueKind::kSequence;
      if (declared->kind != kind) {
        return MakeStatus(StatusCode::kInvalidArgument, context, ": input '", input.name,
                          "' is ", input.value.Description(), " but the model declares it ",
                          declared->Description());
      }
      Result<OrtPtr<OrtValue>> value = MakeOrtMapValue(library, input.value);
      if (!value.ok()) return value.status().WithContext(context + ": input '" + input.name + "'");
      feeds.names.push_back(declared->name.c_str());
      feeds.values.push_back(std::move(value).value());
      continue;
    }
    if (declared->kind != ValueKind::kTensor || !input.value.is_tensor()) {
      return MakeStatus(StatusCode::kNotImplemented, context, ": input '", input.name, "' is a ",
                        declared->Description(), " given ", input.value.Description(),
                        "; the oracle feeds tensors, maps and sequences of maps only");
    }
    if (declared->dtype != input.value.dtype()) {
      return MakeStatus(StatusCode::kInvalidArgument, context, ": input '", input.name, "' is ",
                        input.value.Description(), " but the model declares it ",
                        declared->Description());
    }
    const Tensor* tensor = &input.value.tensor();
    if (!tensor->is_contiguous()) {
      NXRT_ASSIGN_OR_RETURN(Tensor copy, tensor->Clone());
      feeds.contiguous.push_back(std::move(copy));
      tensor = &feeds.contiguous.back();
    }
    Result<OrtPtr<OrtValue>> value = MakeOrtValue(library, *tensor);
    if (!value.ok()) return value.status().WithContext(context + ": input '" + input.name + "'");
    feeds.names.push_back(declared->name.c_str());
    feeds.values.push_back(std::move(value).value());
  }
  for (const ValueInfo& declared : handle.inputs) {
    bool given = false;
    for (const char* name : feeds.names) given = given || declared.name == name;
    if (!given) {
      return MakeStatus(StatusCode::kInvalidArgument, context, ": input '", declared.name, "' ",
                        declared.Description(), " is missing");
    }
  }
  for (const auto& value : feeds.values) feeds.raw.push_back(value.get());
  return Status::Ok();
}

std::vector<NamedValue> AsValues(const std::vector<NamedTensor>& tensors) {
  std::vector<NamedValue> values;
  values.reserve(tensors.size());
  for (const NamedTensor& t : tensors) values.push_back({t.name, Value(t.tensor)});
  return values;
}

// One ORT run: the names of the outputs asked for (all when `output_names` is empty) and ORT's
// values for them.
Result<std::pair<std::vector<const char*>, std::vector<OrtPtr<OrtValue>>>> RunOrt(
    const OrtSessionHandle& handle, const std::vector<NamedValue>& inputs,
    const std::vector<std::string>& output_names) {
  const OrtApi* api = handle.library->api;
  const std::string context = ModelContext(handle.model_path);
  OrtFeeds feeds;
  NXRT_RETURN_IF_ERROR(MakeFeeds(handle, inputs, feeds));

  std::vector<const char*> wanted;
  if (output_names.empty()) {
    for (const ValueInfo& output : handle.outputs) wanted.push_back(output.name.c_str());
  } else {
    for (const std::string& name : output_names) {
      if (FindValue(handle.outputs, name) == nullptr) {
        return MakeStatus(StatusCode::kInvalidArgument, context, ": it has no output named '",
                          name, "'; its outputs are ", ListValues(handle.outputs));
      }
      wanted.push_back(name.c_str());
    }
  }

  std::vector<OrtValue*> raw_outputs(wanted.size(), nullptr);
  Status run = ORT_CALL(api, Run, handle.session, nullptr, feeds.names.data(),
                        feeds.raw.data(), feeds.raw.size(), wanted.data(), wanted.size(),
                        raw_outputs.data());
  std::vector<OrtPtr<OrtValue>> output_values;
  for (OrtValue* value : raw_outputs) output_values.emplace_back(value, OrtReleaser{api});
  NXRT_RETURN_IF_ERROR(run.WithContext(context));
  return std::make_pair(std::move(wanted), std::move(output_values));
}

}  // namespace

Result<std::vector<NamedTensor>> OracleSession::Run(
    const std::vector<NamedTensor>& inputs, const std::vector<std::string>& output_names) const {
  NXRT_ASSIGN_OR_RETURN(auto run, RunOrt(*handle_, AsValues(inputs), output_names));
  std::vector<NamedTensor> outputs;
  for (size_t i = 0; i < run.first.size(); ++i) {
    Result<Tensor> tensor = TensorFromOrtValue(handle_->library->api, run.second[i].get(),
                                               run.first[i]);
    if (!tensor.ok()) return tensor.status().WithContext(ModelContext(handle_->model_path));
    outputs.push_back({run.first[i], std::move(tensor).value()});
  }
  return outputs;
}

Result<std::vector<NamedValue>> OracleSession::RunValues(
    const std::vector<NamedValue>& inputs, const std::vector<std::string>& output_names) const {
  NXRT_ASSIGN_OR_RETURN(auto run, RunOrt(*handle_, inputs, output_names));
  std::vector<NamedValue> outputs;
  for (size_t i = 0; i < run.first.size(); ++i) {
    Result<Value> value = ValueFromOrtValue(handle_->library->api, run.second[i].get(),
                                            run.first[i]);
    if (!value.ok()) return value.status().WithContext(ModelContext(handle_->model_path));
    outputs.push_back({run.first[i], std::move(value).value()});
  }
  return outputs;
}

Status OracleSession::RunInto(const std::vector<NamedTensor>& inputs,
                              const std::vector<NamedTensor>& outputs) const {
  const OrtLibrary& library = *handle_->library;
  const std::string context = ModelContext(handle_->model_path);
  OrtFeeds feeds;
  NXRT_RETURN_IF_ERROR(MakeFeeds(*handle_, AsValues(inputs), feeds));
  std::vector<const char*> names;
  std::vector<OrtPtr<OrtValue>> values;
  std::vector<OrtValue*> raw;
  for (const NamedTensor& output : outputs) {
    const ValueInfo* declared = FindValue(handle_->outputs, output.name);
    if (declared == nullptr) {
      return MakeStatus(StatusCode::kInvalidArgument, context, ": it has no output named '",
                        output.name, "'; its outputs are ", ListValues(handle_->outputs));
    }
    if (!output.tensor.defined() || !output.tensor.is_contiguous() ||
        output.tensor.dtype() != declared->dtype) {
      return MakeStatus(StatusCode::kInvalidArgument, context, ": output '", output.name,
                        "' is bound to ", output.tensor.Description(),
                        "; it needs a contiguous tensor of ", declared->Description());
    }
    Result<OrtPtr<OrtValue>> value = MakeOrtValue(library, output.tensor);
    if (!value.ok()) return value.status().WithContext(context + ": output '" + output.name + "'");
    names.push_back(output.name.c_str());
    values.push_back(std::move(value).value());
    raw.push_back(values.back().get());
  }
  return ORT_CALL(library.api, Run, handle_->session, nullptr, feeds.names.data(),
                  feeds.raw.data(), feeds.raw.size(), names.data(), names.size(), raw.data())
      .WithContext(context);
}

}  // namespace nxrt::oracle

// Read by LeakSanitizer at startup (a weak hook in the sanitizer runtime; unused otherwise).
extern "C" const char* __lsan_default_suppressions() { return "leak:libonnxruntime.so\n"; }

// Read by AddressSanitizer at startup (a weak hook too). ONNX Runtime's library is not
// instrumented, so what ASan reports of it comes through an interceptor it calls: ORT 1.30's
// worker threads still copy a string (memcpy) that the exit handlers of the test process have
// freed, a heap-use-after-free inside ORT at exit with no nxrt frame in it (seen in
// ContribVsOrt.SkipLayerNormalizationBothFormsMatch under the asan preset).
extern "C" const char* __asan_default_suppressions() {
  return "interceptor_via_lib:libonnxruntime.so\n";
}
