// ep/ort_plugin/api_table.cpp: the OrtApiBase/OrtApi/OrtEpApi tables nxrt hands to plugins, the
// not-implemented stubs every slot starts with, and the OrtStatus <-> nxrt::Status conversions.
//
// Layer: nxrt_ort_plugin (internal). The slot list (api_slots.inc) is generated at build time
// from onnxruntime_c_api.h; each slot gets Stub<Table, Name, decltype(slot)>::Call, whose
// signature is deduced from the slot's own function pointer type. The api_*.cpp files then
// install what nxrt implements. To implement a function, set its slot in the Install* function
// of its group; coverage updates itself.
// Source: onnxruntime_c_api.h (OrtApiBase, OrtApi::GetEpApi, GetModelEditorApi, GetCompileApi,
// GetInteropApi, GetTrainingApi, GetBuildInfoString), onnxruntime_error_code.h.
#include "ep/ort_plugin/api_table.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <type_traits>

#include "ep/ort_plugin/api_internal.h"

namespace nxrt::ort_plugin {
namespace {

// A string literal as a template argument ("OrtApi", "CreateSession").
template <size_t N>
struct FixedString {
  char value[N];
  constexpr FixedString(const char (&text)[N]) { std::copy_n(text, N, value); }  // NOLINT
};

template <FixedString Table, FixedString Name, typename Slot>
struct Stub;

// The stub of slot `Table::Name` with signature R(Args...): an ORT_NOT_IMPLEMENTED status naming
// the function, nothing for void, a value-initialised R otherwise (null pointers, 0, false).
// Always noexcept, also for the few slots ORT declares without NO_EXCEPTION (the Release*
// functions, GetBuildInfoString, Get*Api): a noexcept function converts to either pointer type.
template <FixedString Table, FixedString Name, typename R, typename... Args>
struct StubOf {
  static R ORT_API_CALL Call(Args...) noexcept {
    if constexpr (std::is_same_v<R, OrtStatus*>) {
      return Guarded(Name.value, [] {
        return MakeOrtStatus(ORT_NOT_IMPLEMENTED, std::string(Table.value) + "::" + Name.value +
                                                      " is not implemented by the nxrt plugin host");
      });
    } else if constexpr (!std::is_void_v<R>) {
      return R{};
    }
  }
};
template <FixedString Table, FixedString Name, typename R, typename... Args>
struct Stub<Table, Name, R(ORT_API_CALL*)(Args...) noexcept> : StubOf<Table, Name, R, Args...> {};
template <FixedString Table, FixedString Name, typename R, typename... Args>
struct Stub<Table, Name, R(ORT_API_CALL*)(Args...)> : StubOf<Table, Name, R, Args...> {};

// Slot counts from the generated list; they must cover the structs exactly.
#define NXRT_ORT_API_SLOT(Name) +1
#define NXRT_ORT_EP_API_SLOT(Name)
constexpr size_t kOrtApiSlots = 0
#include "ep/ort_plugin/api_slots.inc"
    ;
#undef NXRT_ORT_API_SLOT
#undef NXRT_ORT_EP_API_SLOT
#define NXRT_ORT_API_SLOT(Name)
#define NXRT_ORT_EP_API_SLOT(Name) +1
constexpr size_t kOrtEpApiSlots = 0
#include "ep/ort_plugin/api_slots.inc"
    ;
#undef NXRT_ORT_API_SLOT
#undef NXRT_ORT_EP_API_SLOT
static_assert(kOrtApiSlots == sizeof(OrtApi) / sizeof(void*),
              "api_slots.inc does not list every OrtApi slot: check gen_api_slots.py");
static_assert(kOrtEpApiSlots == sizeof(OrtEpApi) / sizeof(void*),
              "api_slots.inc does not list every OrtEpApi slot: check gen_api_slots.py");
static_assert(sizeof(OrtApi) % sizeof(void*) == 0 && sizeof(OrtEpApi) % sizeof(void*) == 0);

// decltype(OrtApi::X) carries ORT's warn_unused_result/nonnull attributes, which are not part of
// the type and are rightly dropped here.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wignored-attributes"
void FillStubs(OrtApi& api, OrtEpApi& ep_api) {
#define NXRT_ORT_API_SLOT(Name) api.Name = &Stub<"OrtApi", #Name, decltype(OrtApi::Name)>::Call;
#define NXRT_ORT_EP_API_SLOT(Name) \
  ep_api.Name = &Stub<"OrtEpApi", #Name, decltype(OrtEpApi::Name)>::Call;
#include "ep/ort_plugin/api_slots.inc"
#undef NXRT_ORT_API_SLOT
#undef NXRT_ORT_EP_API_SLOT
}
#pragma GCC diagnostic pop

// Number of pointer-sized slots of `table` that differ from the same slot of `stubs`.
template <typename Table>
size_t CountDiffering(const Table& table, const Table& stubs) {
  size_t count = 0;
  for (size_t i = 0; i < sizeof(Table) / sizeof(void*); ++i) {
    if (std::memcmp(reinterpret_cast<const char*>(&table) + i * sizeof(void*),
                    reinterpret_cast<const char*>(&stubs) + i * sizeof(void*), sizeof(void*)) != 0) {
      ++count;
    }
  }
  return count;
}

const OrtApi* ORT_API_CALL GetApiImpl(uint32_t version) noexcept;
const char* ORT_API_CALL GetVersionStringImpl() noexcept { return "1.29.0"; }

// OrtApi::GetEpApi: the one OrtEpApi table.
const OrtEpApi* ORT_API_CALL GetEpApiImpl() noexcept { return &HostEpApi(); }

// OrtApi::GetBuildInfoString.
const char* ORT_API_CALL GetBuildInfoStringImpl() noexcept {
  return "nxrt plugin host: ONNX Runtime C API version 29 (reports 1.29.0), no ORT library inside";
}

// GetModelEditorApi, GetCompileApi, GetInteropApi, GetTrainingApi: nxrt builds no model through
// a plugin, compiles no EP context models, shares no external memory and does not train, so each
// returns NULL, as ORT documents for a build without that API. The stubs already return NULL;
// they stay stubs so that coverage does not count them.

struct Tables {
  OrtApi stub_api{};
  OrtEpApi stub_ep_api{};
  OrtApi api{};
  OrtEpApi ep_api{};
  OrtApiBase base{};
};

const Tables& GetTables() {
  static const Tables tables = [] {
    Tables t;
    FillStubs(t.stub_api, t.stub_ep_api);
    t.api = t.stub_api;
    t.ep_api = t.stub_ep_api;
    t.api.GetEpApi = &GetEpApiImpl;
    t.api.GetBuildInfoString = &GetBuildInfoStringImpl;
    InstallStatusAndLoggingApi(t.api);
    InstallConfigApi(t.api);
    InstallMemoryApi(t.api, t.ep_api);
    InstallValueAndTypeApi(t.api, t.ep_api);
    InstallDeviceApi(t.api, t.ep_api);
    InstallKernelApi(t.api, t.ep_api);
    InstallGraphApi(t.api, t.ep_api);
    t.base.GetApi = &GetApiImpl;
    t.base.GetVersionString = &GetVersionStringImpl;
    return t;
  }();
  return tables;
}

const OrtApi* ORT_API_CALL GetApiImpl(uint32_t version) noexcept {
  if (version >= 1 && version <= kHostApiVersion) return &GetTables().api;
  std::fprintf(stderr,
               "nxrt plugin host: OrtApiBase::GetApi(%u): ORT API version %u is not supported; "
               "this host supports versions 1..%u (ONNX Runtime 1.%u); rebuild the plugin against "
               "ONNX Runtime 1.%u headers\n",
               version, version, kHostApiVersion, kHostApiVersion, kHostApiVersion);
  return nullptr;
}

struct CodeNames {
  OrtErrorCode code;
  std::string_view name;
};
constexpr CodeNames kCodeNames[] = {
    {ORT_OK, "ORT_OK"},
    {ORT_FAIL, "ORT_FAIL"},
    {ORT_INVALID_ARGUMENT, "ORT_INVALID_ARGUMENT"},
    {ORT_NO_SUCHFILE, "ORT_NO_SUCHFILE"},
    {ORT_NO_MODEL, "ORT_NO_MODEL"},
    {ORT_ENGINE_ERROR, "ORT_ENGINE_ERROR"},
    {ORT_RUNTIME_EXCEPTION, "ORT_RUNTIME_EXCEPTION"},
    {ORT_INVALID_PROTOBUF, "ORT_INVALID_PROTOBUF"},
    {ORT_MODEL_LOADED, "ORT_MODEL_LOADED"},
    {ORT_NOT_IMPLEMENTED, "ORT_NOT_IMPLEMENTED"},
    {ORT_INVALID_GRAPH, "ORT_INVALID_GRAPH"},
    {ORT_EP_FAIL, "ORT_EP_FAIL"},
    {ORT_MODEL_LOAD_CANCELED, "ORT_MODEL_LOAD_CANCELED"},
    {ORT_MODEL_REQUIRES_COMPILATION, "ORT_MODEL_REQUIRES_COMPILATION"},
    {ORT_NOT_FOUND, "ORT_NOT_FOUND"},
    {ORT_DEVICE_RESET, "ORT_DEVICE_RESET"},
};

OrtErrorCode ToOrtErrorCode(StatusCode code) {
  switch (code) {
    case StatusCode::kOk: return ORT_OK;
    case StatusCode::kInvalidArgument: return ORT_INVALID_ARGUMENT;
    case StatusCode::kInvalidModel: return ORT_INVALID_GRAPH;
    case StatusCode::kNotFound: return ORT_NOT_FOUND;
    case StatusCode::kNotImplemented:
    case StatusCode::kUnsupported: return ORT_NOT_IMPLEMENTED;
    case StatusCode::kRuntimeError: return ORT_RUNTIME_EXCEPTION;
    case StatusCode::kIoError:
    case StatusCode::kFailedPrecondition:
    case StatusCode::kOutOfMemory:
    case StatusCode::kInternal: return ORT_FAIL;
  }
  return ORT_FAIL;
}

StatusCode FromOrtErrorCode(OrtErrorCode code) {
  switch (code) {
    case ORT_OK: return StatusCode::kOk;
    case ORT_INVALID_ARGUMENT: return StatusCode::kInvalidArgument;
    case ORT_NO_SUCHFILE:
    case ORT_NO_MODEL:
    case ORT_NOT_FOUND: return StatusCode::kNotFound;
    case ORT_INVALID_PROTOBUF:
    case ORT_INVALID_GRAPH: return StatusCode::kInvalidModel;
    case ORT_NOT_IMPLEMENTED: return StatusCode::kNotImplemented;
    case ORT_MODEL_LOADED:
    case ORT_MODEL_LOAD_CANCELED:
    case ORT_MODEL_REQUIRES_COMPILATION: return StatusCode::kFailedPrecondition;
    default: return StatusCode::kRuntimeError;  // ORT_FAIL, ENGINE_ERROR, EP_FAIL, ...
  }
}

}  // namespace

const OrtApiBase* HostApiBase() { return &GetTables().base; }
const OrtApi& HostApi() { return GetTables().api; }
const OrtEpApi& HostEpApi() { return GetTables().ep_api; }

ApiCoverage HostApiCoverage() {
  const Tables& t = GetTables();
  return {kOrtApiSlots, CountDiffering(t.api, t.stub_api), kOrtEpApiSlots,
          CountDiffering(t.ep_api, t.stub_ep_api)};
}

OrtStatus* MakeOrtStatus(OrtErrorCode code, std::string message) {
  return new OrtStatus{code, std::move(message)};
}

OrtStatus* ToOrtStatus(const Status& status) {
  if (status.ok()) return nullptr;
  return MakeOrtStatus(ToOrtErrorCode(status.code()), status.message());
}

Status TakeOrtStatus(OrtStatus* status, std::string_view context) {
  if (status == nullptr) return Status::Ok();
  const OrtErrorCode code = status->code;
  std::string message = status->message;
  HostApi().ReleaseStatus(status);
  // A plugin may return a non-null status made with ORT_OK; ORT reads the code, so do we.
  if (code == ORT_OK) return Status::Ok();
  return MakeStatus(FromOrtErrorCode(code), context, " (", OrtErrorCodeName(code), "): ", message);
}

std::string_view OrtErrorCodeName(OrtErrorCode code) {
  for (const CodeNames& entry : kCodeNames) {
    if (entry.code == code) return entry.name;
  }
  return "ORT_UNKNOWN_ERROR_CODE";
}

}  // namespace nxrt::ort_plugin
