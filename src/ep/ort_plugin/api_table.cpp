// ep/ort_plugin/api_table.cpp: the OrtApiBase/OrtApi/OrtEpApi/OrtModelEditorApi tables nxrt
// hands to plugins and applications, the not-implemented stubs every slot starts with, and the
// OrtStatus <-> nxrt::Status conversions.
//
// Layer: nxrt_ort_plugin (internal). The slot list (api_slots.inc) is generated at build time
// from onnxruntime_c_api.h and ort_api_v30.h; each slot gets Stub<Table, Name, decltype(slot)>::
// Call, whose signature is deduced from the slot's own function pointer type. The api_*.cpp
// files then install what nxrt implements, and src/capi adds the application-facing functions
// through ExtendHostApi. To implement a function, set its slot in the Install* function of its
// group (and drop its entry from api_not_implemented.cpp); coverage updates itself.
// Source: onnxruntime_c_api.h (OrtApiBase, OrtApi::GetEpApi, GetModelEditorApi, GetCompileApi,
// GetInteropApi, GetTrainingApi, GetBuildInfoString, OrtModelEditorApi), onnxruntime_error_code.h.
#include "ep/ort_plugin/api_table.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <type_traits>

#include "ep/ort_plugin/api_internal.h"
#include "ep/ort_plugin/editor_nodes.h"

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
// the function and the reason, nothing for void, a value-initialised R otherwise (null pointers,
// 0, false). Always noexcept, also for the few slots ORT declares without NO_EXCEPTION (the
// Release* functions, GetBuildInfoString, Get*Api): a noexcept function converts to either
// pointer type.
template <FixedString Table, FixedString Name, typename R, typename... Args>
struct StubOf {
  static R ORT_API_CALL Call(Args...) noexcept {
    if constexpr (std::is_same_v<R, OrtStatus*>) {
      return Guarded(Name.value, [] {
        return MakeOrtStatus(ORT_NOT_IMPLEMENTED,
                             std::string(Table.value) + "::" + Name.value +
                                 " is not implemented by nxrt: " +
                                 std::string(NotImplementedReason(Table.value, Name.value)));
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
#define NXRT_ORT_API30_SLOT(Name)
#define NXRT_ORT_EP_API_SLOT(Name)
#define NXRT_ORT_MODEL_EDITOR_API_SLOT(Name)
constexpr size_t kOrtApi29Slots = 0
#include "ep/ort_plugin/api_slots.inc"
    ;
#undef NXRT_ORT_API_SLOT
#undef NXRT_ORT_API30_SLOT
#define NXRT_ORT_API_SLOT(Name)
#define NXRT_ORT_API30_SLOT(Name) +1
constexpr size_t kOrtApi30Slots = 0
#include "ep/ort_plugin/api_slots.inc"
    ;
#undef NXRT_ORT_API30_SLOT
#undef NXRT_ORT_EP_API_SLOT
#define NXRT_ORT_API30_SLOT(Name)
#define NXRT_ORT_EP_API_SLOT(Name) +1
constexpr size_t kOrtEpApiSlots = 0
#include "ep/ort_plugin/api_slots.inc"
    ;
#undef NXRT_ORT_EP_API_SLOT
#undef NXRT_ORT_MODEL_EDITOR_API_SLOT
#define NXRT_ORT_EP_API_SLOT(Name)
#define NXRT_ORT_MODEL_EDITOR_API_SLOT(Name) +1
constexpr size_t kOrtModelEditorApiSlots = 0
#include "ep/ort_plugin/api_slots.inc"
    ;
#undef NXRT_ORT_API_SLOT
#undef NXRT_ORT_API30_SLOT
#undef NXRT_ORT_EP_API_SLOT
#undef NXRT_ORT_MODEL_EDITOR_API_SLOT
constexpr size_t kOrtApiSlots = kOrtApi29Slots + kOrtApi30Slots;
static_assert(kOrtApi29Slots == sizeof(OrtApi) / sizeof(void*),
              "api_slots.inc does not list every OrtApi slot: check gen_api_slots.py");
static_assert(kOrtApiSlots == sizeof(OrtApiVersion30) / sizeof(void*),
              "api_slots.inc does not list every OrtApiSince30 slot: check gen_api_slots.py");
static_assert(kOrtEpApiSlots == sizeof(OrtEpApi) / sizeof(void*),
              "api_slots.inc does not list every OrtEpApi slot: check gen_api_slots.py");
static_assert(kOrtModelEditorApiSlots == sizeof(OrtModelEditorApi) / sizeof(void*),
              "api_slots.inc does not list every OrtModelEditorApi slot: check gen_api_slots.py");
static_assert(sizeof(OrtApiVersion30) % sizeof(void*) == 0 &&
              sizeof(OrtEpApi) % sizeof(void*) == 0 &&
              sizeof(OrtModelEditorApi) % sizeof(void*) == 0);

// The slot names in struct order, for StubbedSlots.
constexpr const char* kOrtApiSlotNames[] = {
#define NXRT_ORT_API_SLOT(Name) #Name,
#define NXRT_ORT_API30_SLOT(Name) #Name,
#define NXRT_ORT_EP_API_SLOT(Name)
#define NXRT_ORT_MODEL_EDITOR_API_SLOT(Name)
#include "ep/ort_plugin/api_slots.inc"
#undef NXRT_ORT_API_SLOT
#undef NXRT_ORT_API30_SLOT
#undef NXRT_ORT_EP_API_SLOT
#undef NXRT_ORT_MODEL_EDITOR_API_SLOT
};
constexpr const char* kOrtEpApiSlotNames[] = {
#define NXRT_ORT_API_SLOT(Name)
#define NXRT_ORT_API30_SLOT(Name)
#define NXRT_ORT_EP_API_SLOT(Name) #Name,
#define NXRT_ORT_MODEL_EDITOR_API_SLOT(Name)
#include "ep/ort_plugin/api_slots.inc"
#undef NXRT_ORT_API_SLOT
#undef NXRT_ORT_API30_SLOT
#undef NXRT_ORT_EP_API_SLOT
#undef NXRT_ORT_MODEL_EDITOR_API_SLOT
};
constexpr const char* kOrtModelEditorApiSlotNames[] = {
#define NXRT_ORT_API_SLOT(Name)
#define NXRT_ORT_API30_SLOT(Name)
#define NXRT_ORT_EP_API_SLOT(Name)
#define NXRT_ORT_MODEL_EDITOR_API_SLOT(Name) #Name,
#include "ep/ort_plugin/api_slots.inc"
#undef NXRT_ORT_API_SLOT
#undef NXRT_ORT_API30_SLOT
#undef NXRT_ORT_EP_API_SLOT
#undef NXRT_ORT_MODEL_EDITOR_API_SLOT
};

// decltype(OrtApi::X) carries ORT's warn_unused_result/nonnull attributes, which are not part of
// the type and are rightly dropped here.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wignored-attributes"
void FillStubs(OrtApiVersion30& api, OrtEpApi& ep_api, OrtModelEditorApi& editor_api) {
#define NXRT_ORT_API_SLOT(Name) \
  api.v29.Name = &Stub<"OrtApi", #Name, decltype(OrtApi::Name)>::Call;
#define NXRT_ORT_API30_SLOT(Name) \
  api.v30.Name = &Stub<"OrtApi", #Name, decltype(OrtApiSince30::Name)>::Call;
#define NXRT_ORT_EP_API_SLOT(Name) \
  ep_api.Name = &Stub<"OrtEpApi", #Name, decltype(OrtEpApi::Name)>::Call;
#define NXRT_ORT_MODEL_EDITOR_API_SLOT(Name) \
  editor_api.Name = &Stub<"OrtModelEditorApi", #Name, decltype(OrtModelEditorApi::Name)>::Call;
#include "ep/ort_plugin/api_slots.inc"
#undef NXRT_ORT_API_SLOT
#undef NXRT_ORT_API30_SLOT
#undef NXRT_ORT_EP_API_SLOT
#undef NXRT_ORT_MODEL_EDITOR_API_SLOT
}
#pragma GCC diagnostic pop

// True when pointer-sized slot `i` of `a` and `b` differ.
template <typename Table>
bool SlotDiffers(const Table& a, const Table& b, size_t i) {
  return std::memcmp(reinterpret_cast<const char*>(&a) + i * sizeof(void*),
                     reinterpret_cast<const char*>(&b) + i * sizeof(void*), sizeof(void*)) != 0;
}

// Number of pointer-sized slots of `table` that differ from the same slot of `stubs`.
template <typename Table>
size_t CountDiffering(const Table& table, const Table& stubs) {
  size_t count = 0;
  for (size_t i = 0; i < sizeof(Table) / sizeof(void*); ++i) count += SlotDiffers(table, stubs, i);
  return count;
}

const OrtApi* ORT_API_CALL GetApiImpl(uint32_t version) noexcept;
const char* ORT_API_CALL GetVersionStringImpl() noexcept { return kOrtVersionString; }

// OrtApi::GetEpApi: the one OrtEpApi table.
const OrtEpApi* ORT_API_CALL GetEpApiImpl() noexcept { return &HostEpApi(); }

// OrtApi::GetBuildInfoString.
const char* ORT_API_CALL GetBuildInfoStringImpl() noexcept { return kBuildInfo; }

// OrtApi::GetModelEditorApi: the one OrtModelEditorApi table. Never NULL (plugins and
// applications built for a full ORT build dereference it): the type-info functions work, the
// graph, model and session builders answer ORT_NOT_IMPLEMENTED naming themselves.
const OrtModelEditorApi* ORT_API_CALL GetModelEditorApiImpl() noexcept;

// GetInteropApi, GetTrainingApi: nxrt shares no external memory and does not train, so each
// returns NULL, as ORT documents for a build without that API; so does GetCompileApi in a
// process that serves plugins only (applications get src/capi's OrtCompileApi). The stubs
// already return NULL; they stay stubs so that coverage does not count them.

struct Tables {
  OrtApiVersion30 stub_api{};
  OrtEpApi stub_ep_api{};
  OrtModelEditorApi stub_editor_api{};
  OrtApiVersion30 api{};
  OrtEpApi ep_api{};
  OrtModelEditorApi editor_api{};
  OrtApiBase base{};
  std::mutex extend_mutex;
  std::vector<ApiInstaller> installed;  // ExtendHostApi's installers already run
};

Tables& GetTables() {
  static Tables* const tables = [] {
    auto* t = new Tables();  // never freed: plugins and applications may hold it until exit
    FillStubs(t->stub_api, t->stub_ep_api, t->stub_editor_api);
    t->api = t->stub_api;
    t->ep_api = t->stub_ep_api;
    t->editor_api = t->stub_editor_api;
    t->api.v29.GetEpApi = &GetEpApiImpl;
    t->api.v29.GetModelEditorApi = &GetModelEditorApiImpl;
    t->api.v29.GetBuildInfoString = &GetBuildInfoStringImpl;
    InstallStatusAndLoggingApi(t->api.v29);
    InstallConfigApi(t->api.v29, t->ep_api);
    InstallMemoryApi(t->api.v29, t->ep_api);
    InstallValueAndTypeApi(t->api.v29, t->ep_api);
    InstallModelEditorTypeApi(t->editor_api);
    InstallContainerApi(t->api.v29);
    InstallDeviceApi(t->api.v29, t->ep_api);
    InstallKernelApi(t->api.v29, t->ep_api);
    InstallKernelApiSince30(t->api.v30);
    InstallGraphApi(t->api.v29, t->ep_api);
    InstallEditorNodeApi(t->api.v29, t->editor_api);
    InstallKernelRegistryApi(t->api.v29, t->ep_api);
    InstallStreamApi(t->api.v29, t->ep_api);
    t->base.GetApi = &GetApiImpl;
    t->base.GetVersionString = &GetVersionStringImpl;
    return t;
  }();
  return *tables;
}

const OrtModelEditorApi* ORT_API_CALL GetModelEditorApiImpl() noexcept {
  return &GetTables().editor_api;
}

const OrtApi* ORT_API_CALL GetApiImpl(uint32_t version) noexcept {
  if (version >= 1 && version <= kHostApiVersion) return &GetTables().api.v29;
  std::fprintf(stderr,
               "nxrt: OrtApiBase::GetApi(%u): ORT API version %u is not available; nxrt serves "
               "versions 1..%u (those of ONNX Runtime %s); build against ONNX Runtime headers of "
               "version %u or lower\n",
               version, version, kHostApiVersion, kOrtVersionString, kHostApiVersion);
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
    case StatusCode::kDeadlineExceeded:
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

const char* const kBuildInfo =
    "nxrt " NXRT_VERSION_STRING ": ONNX Runtime's C API (versions 1..30, GetVersionString "
    "\"1.30.0\") over nxrt's own runtime; no ONNX Runtime code inside";

const OrtApiBase* HostApiBase() { return &GetTables().base; }
const OrtApi& HostApi() { return GetTables().api.v29; }
const OrtApiVersion30& HostApiV30() { return GetTables().api; }
const OrtEpApi& HostEpApi() { return GetTables().ep_api; }
const OrtModelEditorApi& HostModelEditorApi() { return GetTables().editor_api; }

Status ExtendHostApi(ApiInstaller install) {
  Tables& t = GetTables();
  std::lock_guard<std::mutex> lock(t.extend_mutex);
  if (std::find(t.installed.begin(), t.installed.end(), install) != t.installed.end()) {
    return Status::Ok();
  }
  OrtApiVersion30 extended = t.api;
  install(extended);
  for (size_t i = 0; i < kOrtApiSlots; ++i) {
    if (SlotDiffers(extended, t.api, i) && SlotDiffers(t.api, t.stub_api, i)) {
      return MakeStatus(StatusCode::kInternal, "ExtendHostApi: OrtApi::", kOrtApiSlotNames[i],
                        " is implemented already; an application-facing group may only set "
                        "slots that hold their stub");
    }
  }
  t.api = extended;
  t.installed.push_back(install);
  return Status::Ok();
}

ApiCoverage HostApiCoverage() {
  const Tables& t = GetTables();
  return {kOrtApiSlots,
          CountDiffering(t.api, t.stub_api),
          kOrtEpApiSlots,
          CountDiffering(t.ep_api, t.stub_ep_api),
          kOrtModelEditorApiSlots,
          CountDiffering(t.editor_api, t.stub_editor_api)};
}

std::vector<StubbedSlot> StubbedSlots() {
  const Tables& t = GetTables();
  std::vector<StubbedSlot> slots;
  for (size_t i = 0; i < kOrtApiSlots; ++i) {
    if (SlotDiffers(t.api, t.stub_api, i)) continue;
    slots.push_back({std::string("OrtApi::") + kOrtApiSlotNames[i],
                     std::string(NotImplementedReason("OrtApi", kOrtApiSlotNames[i]))});
  }
  for (size_t i = 0; i < kOrtEpApiSlots; ++i) {
    if (SlotDiffers(t.ep_api, t.stub_ep_api, i)) continue;
    slots.push_back({std::string("OrtEpApi::") + kOrtEpApiSlotNames[i],
                     std::string(NotImplementedReason("OrtEpApi", kOrtEpApiSlotNames[i]))});
  }
  for (size_t i = 0; i < kOrtModelEditorApiSlots; ++i) {
    if (SlotDiffers(t.editor_api, t.stub_editor_api, i)) continue;
    slots.push_back(
        {std::string("OrtModelEditorApi::") + kOrtModelEditorApiSlotNames[i],
         std::string(NotImplementedReason("OrtModelEditorApi", kOrtModelEditorApiSlotNames[i]))});
  }
  return slots;
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
