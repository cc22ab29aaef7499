// Tests of the host API tables (api_table.cpp) and of every non-graph function group, always
// called through the tables as a plugin would: status and logging, key-value pairs, session and
// run options, memory infos and allocators, tensors and type infos, devices, kernel context,
// support info and custom op domains.
#include "ep/ort_plugin/api_table.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "ep/ort_plugin/editor_nodes.h"
#include "ep/ort_plugin/ep_context.h"
#include "ep/ort_plugin/host_devices.h"
#include "ep/ort_plugin/kernel_registry.h"

namespace nxrt::ort_plugin {
namespace {

const OrtApi& Api() { return *HostApiBase()->GetApi(ORT_API_VERSION); }
const OrtEpApi& EpApi() { return *Api().GetEpApi(); }

// The status's code and message; releases it. {ORT_OK, ""} for null.
std::pair<OrtErrorCode, std::string> Take(OrtStatus* status) {
  if (status == nullptr) return {ORT_OK, ""};
  std::pair<OrtErrorCode, std::string> result{Api().GetErrorCode(status),
                                              Api().GetErrorMessage(status)};
  Api().ReleaseStatus(status);
  return result;
}

#define EXPECT_ORT_OK(expr)                      \
  do {                                           \
    auto taken_ = Take(expr);                    \
    EXPECT_EQ(taken_.first, ORT_OK) << taken_.second; \
  } while (0)

// An enum argument holding `raw`, as a C caller or plugin may pass any int; made from bytes, so
// the test itself converts no out-of-range int to the enum.
template <typename Enum>
Enum RawEnum(int32_t raw) {
  Enum value;
  std::memcpy(&value, &raw, sizeof value);
  return value;
}

// Expects the status CheckEnumArg gives (api_internal.h): `code`, the function, the argument,
// its value, its enum and the valid values, in that order.
void ExpectBadEnum(OrtStatus* status, OrtErrorCode code, const std::string& function,
                   const std::string& param, int32_t raw, const std::string& type,
                   const std::string& valid) {
  auto [got_code, message] = Take(status);
  EXPECT_EQ(got_code, code) << message;
  EXPECT_EQ(message, function + ": argument '" + param + "' is " + std::to_string(raw) +
                         ", which is not a valid " + type + "; pass one of " + valid);
}

template <typename Table>
void ExpectNoNullSlot(const Table& table, const char* name) {
  const size_t slots = sizeof(Table) / sizeof(void*);
  for (size_t i = 0; i < slots; ++i) {
    void* slot = nullptr;
    std::memcpy(&slot, reinterpret_cast<const char*>(&table) + i * sizeof(void*), sizeof(void*));
    EXPECT_NE(slot, nullptr) << name << " slot " << i << " of " << slots << " is null";
  }
}

TEST(OrtApiTable, EverySlotOfTheTablesIsSet) {
  ExpectNoNullSlot(Api(), "OrtApi");
  ExpectNoNullSlot(EpApi(), "OrtEpApi");
  ExpectNoNullSlot(*Api().GetModelEditorApi(), "OrtModelEditorApi");
  const ApiCoverage coverage = HostApiCoverage();
  EXPECT_EQ(coverage.ort_api_slots, 426u);  // API 30: 425 of API 29 and one more
  EXPECT_EQ(coverage.ep_api_slots, 74u);
  EXPECT_EQ(coverage.model_editor_api_slots, 20u);
  EXPECT_EQ(coverage.model_editor_api_implemented, 6u);  // the type-info builders, CreateNode
  EXPECT_GE(coverage.ort_api_implemented, 150u);
  EXPECT_GE(coverage.ep_api_implemented, 15u);
  std::printf("OrtApi: %zu of %zu implemented; OrtEpApi: %zu of %zu implemented\n",
              coverage.ort_api_implemented, coverage.ort_api_slots, coverage.ep_api_implemented,
              coverage.ep_api_slots);
}

TEST(OrtApiTable, GetApiServesVersionsOneToThirty) {
  const OrtApiBase* base = HostApiBase();
  EXPECT_EQ(base->GetApi(0), nullptr);
  EXPECT_EQ(base->GetApi(31), nullptr);
  for (uint32_t v = 1; v <= 30; ++v) EXPECT_EQ(base->GetApi(v), &HostApi()) << "version " << v;
  EXPECT_EQ(static_cast<const void*>(&HostApiV30()), static_cast<const void*>(&HostApi()));
  EXPECT_STREQ(base->GetVersionString(), "1.30.0");
  EXPECT_EQ(Api().GetEpApi(), &HostEpApi());
  EXPECT_NE(std::strstr(Api().GetBuildInfoString(), "nxrt"), nullptr);
  EXPECT_EQ(Api().GetModelEditorApi(), &HostModelEditorApi());
  EXPECT_EQ(Api().GetCompileApi(), nullptr);
  EXPECT_EQ(Api().GetInteropApi(), nullptr);
  EXPECT_EQ(Api().GetTrainingApi(ORT_API_VERSION), nullptr);
}

TEST(OrtApiTable, StubsReportNotImplementedByName) {
  OrtSession* session = nullptr;
  auto [code, message] = Take(Api().CreateSession(nullptr, "model.onnx", nullptr, &session));
  EXPECT_EQ(code, ORT_NOT_IMPLEMENTED);
  // Without src/capi in the process, the application-facing functions stay stubs.
  EXPECT_EQ(message, "OrtApi::CreateSession is not implemented by nxrt: " +
                         std::string(kDefaultNotImplementedReason));
  auto [lora_code, lora_message] = Take(Api().CreateLoraAdapter("a.onnx_adapter", nullptr, nullptr));
  EXPECT_EQ(lora_code, ORT_NOT_IMPLEMENTED);
  EXPECT_EQ(lora_message, "OrtApi::CreateLoraAdapter is not implemented by nxrt: nxrt applies no "
                          "LoRA adapters");
  Api().ReleaseSession(nullptr);  // a void stub does nothing
}

// Plugins dereference GetModelEditorApi: the table is there, its type builders work and the
// graph/model/session builders say what they are and why nxrt lacks them.
TEST(OrtApiTable, ModelEditorTypeInfosAndNamedStubs) {
  const OrtModelEditorApi& editor = *Api().GetModelEditorApi();
  OrtTensorTypeAndShapeInfo* tensor = nullptr;
  EXPECT_ORT_OK(Api().CreateTensorTypeAndShapeInfo(&tensor));
  const int64_t dims[] = {2, -1};
  EXPECT_ORT_OK(Api().SetTensorElementType(tensor, ONNX_TENSOR_ELEMENT_DATA_TYPE_INT64));
  EXPECT_ORT_OK(Api().SetDimensions(tensor, dims, 2));
  OrtTypeInfo* tensor_type = nullptr;
  EXPECT_ORT_OK(editor.CreateTensorTypeInfo(tensor, &tensor_type));
  Api().ReleaseTensorTypeAndShapeInfo(tensor);  // the type info keeps its own copy
  ONNXType onnx_type = ONNX_TYPE_UNKNOWN;
  EXPECT_ORT_OK(Api().GetOnnxTypeFromTypeInfo(tensor_type, &onnx_type));
  EXPECT_EQ(onnx_type, ONNX_TYPE_TENSOR);
  const OrtTensorTypeAndShapeInfo* read = nullptr;
  EXPECT_ORT_OK(Api().CastTypeInfoToTensorInfo(tensor_type, &read));
  int64_t got[2] = {};
  EXPECT_ORT_OK(Api().GetDimensions(read, got, 2));
  EXPECT_EQ(got[1], -1);

  OrtTypeInfo* map = nullptr;
  EXPECT_ORT_OK(editor.CreateMapTypeInfo(ONNX_TENSOR_ELEMENT_DATA_TYPE_STRING, tensor_type, &map));
  const OrtMapTypeInfo* map_info = nullptr;
  EXPECT_ORT_OK(Api().CastTypeInfoToMapTypeInfo(map, &map_info));
  ONNXTensorElementDataType key = ONNX_TENSOR_ELEMENT_DATA_TYPE_UNDEFINED;
  EXPECT_ORT_OK(Api().GetMapKeyType(map_info, &key));
  EXPECT_EQ(key, ONNX_TENSOR_ELEMENT_DATA_TYPE_STRING);
  auto [bad_key, bad_key_message] =
      Take(editor.CreateMapTypeInfo(ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT, tensor_type, &map));
  EXPECT_EQ(bad_key, ORT_INVALID_ARGUMENT);
  EXPECT_NE(bad_key_message.find("map_key_type 1"), std::string::npos) << bad_key_message;
  OrtTypeInfo* optional = nullptr;
  EXPECT_ORT_OK(editor.CreateOptionalTypeInfo(tensor_type, &optional));
  EXPECT_ORT_OK(Api().GetOnnxTypeFromTypeInfo(optional, &onnx_type));
  EXPECT_EQ(onnx_type, ONNX_TYPE_OPTIONAL);
  Api().ReleaseTypeInfo(optional);
  Api().ReleaseTypeInfo(map);
  Api().ReleaseTypeInfo(tensor_type);

  OrtGraph* graph = nullptr;
  auto [code, message] = Take(editor.CreateGraph(&graph));
  EXPECT_EQ(code, ORT_NOT_IMPLEMENTED);
  EXPECT_EQ(message.rfind("OrtModelEditorApi::CreateGraph is not implemented by nxrt: nxrt builds "
                          "no graphs or models", 0),
            0u)
      << message;
  EXPECT_EQ(graph, nullptr);
}

// GetEnvConfigEntries: the application's entries plus allow_virtual_devices while a library
// registered as "<name>.virtual" is loaded.
TEST(OrtApiConfig, EnvConfigEntries) {
  auto entries = [] {
    OrtKeyValuePairs* kvps = nullptr;
    EXPECT_ORT_OK(EpApi().GetEnvConfigEntries(&kvps));
    std::string text;
    for (const auto& [key, value] : kvps->entries) text += key + "=" + value + ";";
    Api().ReleaseKeyValuePairs(kvps);
    return text;
  };
  EXPECT_EQ(entries(), "");
  OrtKeyValuePairs app;
  app.Set("ep_factory.my_ep.mode", "fast");
  SetEnvConfigEntries(app);
  CountVirtualDeviceLibrary(true);
  EXPECT_EQ(entries(), "ep_factory.my_ep.mode=fast;allow_virtual_devices=1;");
  CountVirtualDeviceLibrary(false);
  SetEnvConfigEntries(OrtKeyValuePairs());
  EXPECT_EQ(entries(), "");
  EXPECT_EQ(Take(EpApi().GetEnvConfigEntries(nullptr)).first, ORT_INVALID_ARGUMENT);
}

TEST(OrtApiTable, StatusConversions) {
  EXPECT_EQ(ToOrtStatus(Status::Ok()), nullptr);
  auto [code, message] = Take(ToOrtStatus(Status(StatusCode::kInvalidModel, "bad graph")));
  EXPECT_EQ(code, ORT_INVALID_GRAPH);
  EXPECT_EQ(message, "bad graph");
  EXPECT_TRUE(TakeOrtStatus(nullptr, "ctx").ok());
  Status taken = TakeOrtStatus(MakeOrtStatus(ORT_EP_FAIL, "boom"), "plugin libx.so: Compile failed");
  EXPECT_EQ(taken.code(), StatusCode::kRuntimeError);
  EXPECT_EQ(taken.message(), "plugin libx.so: Compile failed (ORT_EP_FAIL): boom");
  EXPECT_EQ(TakeOrtStatus(MakeOrtStatus(ORT_NOT_IMPLEMENTED, "x"), "c").code(),
            StatusCode::kNotImplemented);
  EXPECT_EQ(OrtErrorCodeName(ORT_INVALID_ARGUMENT), "ORT_INVALID_ARGUMENT");
}

// ---- status and logging ----

struct RecordingSink : LogSink {
  std::vector<std::pair<OrtLoggingLevel, std::string>> lines;
  void Log(OrtLoggingLevel severity, std::string_view message, const char*, int,
           const char*) override {
    lines.emplace_back(severity, std::string(message));
  }
};

TEST(OrtApiStatus, CreateReadReleaseAndLog) {
  OrtStatus* status = Api().CreateStatus(ORT_FAIL, "it broke");
  EXPECT_EQ(Api().GetErrorCode(status), ORT_FAIL);
  EXPECT_STREQ(Api().GetErrorMessage(status), "it broke");
  Api().ReleaseStatus(status);
  Api().ReleaseStatus(nullptr);

  RecordingSink sink;
  OrtLogger logger{"test", ORT_LOGGING_LEVEL_WARNING, &sink};
  EXPECT_ORT_OK(Api().Logger_LogMessage(&logger, ORT_LOGGING_LEVEL_INFO, "dropped", "f.cc", 1, "f"));
  EXPECT_ORT_OK(Api().Logger_LogMessage(&logger, ORT_LOGGING_LEVEL_ERROR, "kept", "f.cc", 2, "f"));
  ASSERT_EQ(sink.lines.size(), 1u);
  EXPECT_EQ(sink.lines[0].second, "kept");
  OrtLoggingLevel level = ORT_LOGGING_LEVEL_FATAL;
  EXPECT_ORT_OK(Api().Logger_GetLoggingSeverityLevel(&logger, &level));
  EXPECT_EQ(level, ORT_LOGGING_LEVEL_WARNING);
  auto [code, message] = Take(Api().Logger_LogMessage(nullptr, ORT_LOGGING_LEVEL_ERROR, "m",
                                                      nullptr, 0, nullptr));
  EXPECT_EQ(code, ORT_INVALID_ARGUMENT);
  EXPECT_NE(message.find("OrtApi::Logger_LogMessage"), std::string::npos);
  EXPECT_NE(message.find("'logger'"), std::string::npos);
}

// ---- key-value pairs, session and run options ----

TEST(OrtApiConfig, KeyValuePairsReplaceAndRemove) {
  OrtKeyValuePairs* kvps = nullptr;
  Api().CreateKeyValuePairs(&kvps);
  ASSERT_NE(kvps, nullptr);
  Api().AddKeyValuePair(kvps, "a", "1");
  Api().AddKeyValuePair(kvps, "b", "2");
  Api().AddKeyValuePair(kvps, "a", "3");  // replaces in place
  Api().AddKeyValuePair(kvps, nullptr, "x");
  Api().AddKeyValuePair(kvps, "c", nullptr);
  EXPECT_STREQ(Api().GetKeyValue(kvps, "a"), "3");
  EXPECT_EQ(Api().GetKeyValue(kvps, "c"), nullptr);
  const char* const* keys = nullptr;
  const char* const* values = nullptr;
  size_t n = 0;
  Api().GetKeyValuePairs(kvps, &keys, &values, &n);
  ASSERT_EQ(n, 2u);
  EXPECT_STREQ(keys[0], "a");
  EXPECT_STREQ(values[0], "3");
  EXPECT_STREQ(keys[1], "b");
  Api().RemoveKeyValuePair(kvps, "a");
  Api().RemoveKeyValuePair(kvps, "missing");
  Api().GetKeyValuePairs(kvps, &keys, &values, &n);
  ASSERT_EQ(n, 1u);
  EXPECT_STREQ(keys[0], "b");
  EXPECT_STREQ(values[0], "2");
  OrtKeyValuePairs copy(*kvps);  // a copy's pointers are its own
  Api().ReleaseKeyValuePairs(kvps);
  EXPECT_STREQ(copy.key_ptrs[0], "b");
  Api().ReleaseKeyValuePairs(nullptr);
}

TEST(OrtApiConfig, SessionConfigEntryBufferProtocol) {
  OrtSessionOptions* options = nullptr;
  EXPECT_ORT_OK(Api().CreateSessionOptions(&options));
  EXPECT_ORT_OK(Api().AddSessionConfigEntry(options, "ep.example.mode", "fast"));
  int has = -1;
  EXPECT_ORT_OK(Api().HasSessionConfigEntry(options, "ep.example.mode", &has));
  EXPECT_EQ(has, 1);
  EXPECT_ORT_OK(Api().HasSessionConfigEntry(options, "nope", &has));
  EXPECT_EQ(has, 0);

  size_t size = 0;
  EXPECT_ORT_OK(Api().GetSessionConfigEntry(options, "ep.example.mode", nullptr, &size));
  EXPECT_EQ(size, 5u);  // "fast" + NUL
  char small[3] = {};
  size = sizeof(small);
  auto [code, message] = Take(Api().GetSessionConfigEntry(options, "ep.example.mode", small, &size));
  EXPECT_EQ(code, ORT_INVALID_ARGUMENT);
  EXPECT_EQ(size, 5u);
  EXPECT_NE(message.find("holds 3 bytes"), std::string::npos) << message;
  char buffer[16] = {};
  size = sizeof(buffer);
  EXPECT_ORT_OK(Api().GetSessionConfigEntry(options, "ep.example.mode", buffer, &size));
  EXPECT_STREQ(buffer, "fast");
  EXPECT_EQ(size, 5u);
  auto [missing_code, missing] = Take(Api().GetSessionConfigEntry(options, "nope", buffer, &size));
  EXPECT_EQ(missing_code, ORT_INVALID_ARGUMENT);
  EXPECT_NE(missing.find("'nope'"), std::string::npos);

  OrtKeyValuePairs* entries = nullptr;
  EXPECT_ORT_OK(Api().GetSessionOptionsConfigEntries(options, &entries));
  EXPECT_STREQ(Api().GetKeyValue(entries, "ep.example.mode"), "fast");
  Api().ReleaseKeyValuePairs(entries);

  EXPECT_ORT_OK(Api().SetSessionExecutionMode(options, ORT_PARALLEL));
  ExecutionMode mode = ORT_SEQUENTIAL;
  EXPECT_ORT_OK(Api().GetSessionExecutionMode(options, &mode));
  EXPECT_EQ(mode, ORT_PARALLEL);
  EXPECT_ORT_OK(Api().SetIntraOpNumThreads(options, 2));
  EXPECT_ORT_OK(Api().SetIntraOpNumThreads(options, -1));  // as ORT: the host's choice
  EXPECT_EQ(options->intra_op_threads, 0);
  EXPECT_ORT_OK(Api().SetIntraOpNumThreads(options, 2));
  EXPECT_ORT_OK(Api().SetSessionGraphOptimizationLevel(options, ORT_ENABLE_ALL));
  EXPECT_EQ(Take(Api().SetSessionGraphOptimizationLevel(options,
                                                        static_cast<GraphOptimizationLevel>(7)))
                .first,
            ORT_INVALID_ARGUMENT);
  EXPECT_ORT_OK(Api().SetSessionLogSeverityLevel(options, 3));

  OrtSessionOptions* clone = nullptr;
  EXPECT_ORT_OK(Api().CloneSessionOptions(options, &clone));
  Api().ReleaseSessionOptions(options);
  size = sizeof(buffer);
  EXPECT_ORT_OK(Api().GetSessionConfigEntry(clone, "ep.example.mode", buffer, &size));
  EXPECT_STREQ(buffer, "fast");
  EXPECT_EQ(clone->intra_op_threads, 2);
  Api().ReleaseSessionOptions(clone);
  Api().ReleaseSessionOptions(nullptr);
}

TEST(OrtApiConfig, RunOptionsEntries) {
  OrtRunOptions* run = nullptr;
  EXPECT_ORT_OK(Api().CreateRunOptions(&run));
  EXPECT_ORT_OK(Api().AddRunConfigEntry(run, "k", "v"));
  EXPECT_STREQ(Api().GetRunConfigEntry(run, "k"), "v");
  EXPECT_EQ(Api().GetRunConfigEntry(run, "other"), nullptr);
  EXPECT_EQ(Take(Api().AddRunConfigEntry(run, "", "v")).first, ORT_INVALID_ARGUMENT);
  Api().ReleaseRunOptions(run);
  Api().ReleaseRunOptions(nullptr);
}

// ---- memory infos, memory devices, allocators ----

TEST(OrtApiMemory, MemoryInfosAndDevices) {
  OrtMemoryInfo* cpu = nullptr;
  EXPECT_ORT_OK(Api().CreateCpuMemoryInfo(OrtDeviceAllocator, OrtMemTypeDefault, &cpu));
  OrtMemoryInfo* named = nullptr;
  EXPECT_ORT_OK(Api().CreateMemoryInfo("Cpu", OrtDeviceAllocator, 0, OrtMemTypeDefault, &named));
  int compare = 1;
  EXPECT_ORT_OK(Api().CompareMemoryInfo(cpu, named, &compare));
  EXPECT_EQ(compare, 0);
  const char* name = nullptr;
  EXPECT_ORT_OK(Api().MemoryInfoGetName(cpu, &name));
  EXPECT_STREQ(name, "Cpu");

  OrtMemoryInfo* gpu = nullptr;
  EXPECT_ORT_OK(Api().CreateMemoryInfo_V2("Gpu", OrtMemoryInfoDeviceType_GPU, 0x10DE, 1,
                                          OrtDeviceMemoryType_DEFAULT, 256, OrtDeviceAllocator,
                                          &gpu));
  OrtMemoryInfoDeviceType device_type = OrtMemoryInfoDeviceType_CPU;
  Api().MemoryInfoGetDeviceType(gpu, &device_type);
  EXPECT_EQ(device_type, OrtMemoryInfoDeviceType_GPU);
  EXPECT_EQ(Api().MemoryInfoGetVendorId(gpu), 0x10DEu);
  EXPECT_EQ(Api().MemoryInfoGetDeviceMemType(gpu), OrtDeviceMemoryType_DEFAULT);
  int id = -1;
  EXPECT_ORT_OK(Api().MemoryInfoGetId(gpu, &id));
  EXPECT_EQ(id, 1);
  EXPECT_ORT_OK(Api().CompareMemoryInfo(cpu, gpu, &compare));
  EXPECT_EQ(compare, -1);

  const OrtMemoryDevice* cpu_device = EpApi().MemoryInfo_GetMemoryDevice(cpu);
  const OrtMemoryDevice* named_device = EpApi().MemoryInfo_GetMemoryDevice(named);
  const OrtMemoryDevice* gpu_device = EpApi().MemoryInfo_GetMemoryDevice(gpu);
  EXPECT_TRUE(EpApi().MemoryDevice_AreEqual(cpu_device, named_device));
  EXPECT_FALSE(EpApi().MemoryDevice_AreEqual(cpu_device, gpu_device));
  EXPECT_FALSE(EpApi().MemoryDevice_AreEqual(cpu_device, nullptr));
  EXPECT_EQ(EpApi().MemoryDevice_GetDeviceType(gpu_device), OrtMemoryInfoDeviceType_GPU);
  EXPECT_EQ(EpApi().MemoryDevice_GetMemoryType(gpu_device), OrtDeviceMemoryType_DEFAULT);
  EXPECT_EQ(EpApi().MemoryDevice_GetVendorId(gpu_device), 0x10DEu);
  EXPECT_EQ(EpApi().MemoryDevice_GetDeviceId(gpu_device), 1u);

  OrtMemoryInfo* unknown = nullptr;
  auto [code, message] = Take(Api().CreateMemoryInfo("Tpu", OrtDeviceAllocator, 0,
                                                     OrtMemTypeDefault, &unknown));
  EXPECT_EQ(code, ORT_INVALID_ARGUMENT);
  EXPECT_NE(message.find("'Tpu'"), std::string::npos);
  EXPECT_EQ(Take(Api().CreateMemoryInfo_V2("x", OrtMemoryInfoDeviceType_GPU, 0, 0,
                                           OrtDeviceMemoryType_DEFAULT, 3, OrtDeviceAllocator,
                                           &unknown))
                .first,
            ORT_INVALID_ARGUMENT);
  Api().ReleaseMemoryInfo(cpu);
  Api().ReleaseMemoryInfo(named);
  Api().ReleaseMemoryInfo(gpu);
  Api().ReleaseMemoryInfo(nullptr);
}

TEST(OrtApiMemory, DefaultAllocatorIsAlignedAndCounts) {
  OrtAllocator* allocator = nullptr;
  EXPECT_ORT_OK(Api().GetAllocatorWithDefaultOptions(&allocator));
  ASSERT_NE(allocator, nullptr);
  EXPECT_EQ(allocator->version, static_cast<uint32_t>(ORT_API_VERSION));
  EXPECT_NE(allocator->Reserve, nullptr);
  EXPECT_NE(allocator->GetStats, nullptr);
  EXPECT_NE(allocator->AllocOnStream, nullptr);
  EXPECT_NE(allocator->Shrink, nullptr);
  std::vector<void*> blocks;
  for (size_t size : {1, 3, 64, 100, 4096}) {
    void* p = nullptr;
    EXPECT_ORT_OK(Api().AllocatorAlloc(allocator, size, &p));
    ASSERT_NE(p, nullptr);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % 64, 0u) << size << " bytes";
    std::memset(p, 0xAB, size);
    blocks.push_back(p);
  }
  OrtKeyValuePairs* stats = nullptr;
  EXPECT_ORT_OK(Api().AllocatorGetStats(allocator, &stats));
  EXPECT_STREQ(Api().GetKeyValue(stats, "Limit"), "-1");
  EXPECT_GE(std::stoll(Api().GetKeyValue(stats, "InUse")), 1 + 3 + 64 + 100 + 4096);
  EXPECT_GE(std::stoll(Api().GetKeyValue(stats, "MaxAllocSize")), 4096);
  Api().ReleaseKeyValuePairs(stats);
  for (void* p : blocks) EXPECT_ORT_OK(Api().AllocatorFree(allocator, p));
  const OrtMemoryInfo* info = nullptr;
  EXPECT_ORT_OK(Api().AllocatorGetInfo(allocator, &info));
  EXPECT_EQ(EpApi().MemoryDevice_GetDeviceType(EpApi().MemoryInfo_GetMemoryDevice(info)),
            OrtMemoryInfoDeviceType_CPU);
  Api().ReleaseAllocator(allocator);  // process-wide: stays usable
  Api().ReleaseAllocator(nullptr);
  void* again = nullptr;
  EXPECT_ORT_OK(Api().AllocatorAlloc(allocator, 8, &again));
  EXPECT_ORT_OK(Api().AllocatorFree(allocator, again));
}

// A plugin allocator of version 22 whose later slots hold garbage: the host must not call them.
struct OldAllocator : OrtAllocator {
  int allocs = 0;
};

TEST(OrtApiMemory, PluginAllocatorSlotsAreVersionGated) {
  OldAllocator old;
  old.version = 22;
  old.Alloc = [](OrtAllocator* self, size_t size) -> void* {
    ++static_cast<OldAllocator*>(self)->allocs;
    return std::malloc(size);
  };
  old.Free = [](OrtAllocator*, void* p) { std::free(p); };
  old.Info = [](const OrtAllocator*) -> const OrtMemoryInfo* {
    return &DefaultCpuAllocator().info;
  };
  std::memset(&old.Reserve, 0xFF, sizeof(void*) * 4);  // Reserve, GetStats, AllocOnStream, Shrink
  OrtKeyValuePairs* stats = nullptr;
  EXPECT_ORT_OK(Api().AllocatorGetStats(&old, &stats));
  ASSERT_NE(stats, nullptr);
  EXPECT_TRUE(stats->entries.empty());
  Api().ReleaseKeyValuePairs(stats);

  OrtValue* value = nullptr;
  const int64_t shape[] = {2, 3};
  EXPECT_ORT_OK(Api().CreateTensorAsOrtValue(&old, shape, 2, ONNX_TENSOR_ELEMENT_DATA_TYPE_INT32,
                                             &value));
  EXPECT_EQ(old.allocs, 1);
  Api().ReleaseValue(value);

  old.version = 0;
  void* p = nullptr;
  auto [code, message] = Take(Api().AllocatorAlloc(&old, 8, &p));
  EXPECT_EQ(code, ORT_INVALID_ARGUMENT);
  EXPECT_NE(message.find("version is 0"), std::string::npos);
}

// ---- values, tensor type and shape, type infos ----

TEST(OrtApiValues, AllocatorOwnedTensor) {
  OrtAllocator* allocator = nullptr;
  EXPECT_ORT_OK(Api().GetAllocatorWithDefaultOptions(&allocator));
  const int64_t shape[] = {2, 3, 4};
  OrtValue* value = nullptr;
  EXPECT_ORT_OK(Api().CreateTensorAsOrtValue(allocator, shape, 3,
                                             ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT, &value));
  int is_tensor = 0;
  EXPECT_ORT_OK(Api().IsTensor(value, &is_tensor));
  EXPECT_EQ(is_tensor, 1);
  int has_value = 0;
  EXPECT_ORT_OK(Api().HasValue(value, &has_value));
  EXPECT_EQ(has_value, 1);
  size_t bytes = 0;
  EXPECT_ORT_OK(Api().GetTensorSizeInBytes(value, &bytes));
  EXPECT_EQ(bytes, 96u);
  float* data = nullptr;
  EXPECT_ORT_OK(Api().GetTensorMutableData(value, reinterpret_cast<void**>(&data)));
  ASSERT_NE(data, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(data) % 64, 0u);
  data[23] = 1.5f;
  ONNXType onnx_type = ONNX_TYPE_UNKNOWN;
  EXPECT_ORT_OK(Api().GetValueType(value, &onnx_type));
  EXPECT_EQ(onnx_type, ONNX_TYPE_TENSOR);

  OrtTensorTypeAndShapeInfo* info = nullptr;
  EXPECT_ORT_OK(Api().GetTensorTypeAndShape(value, &info));
  size_t rank = 0;
  EXPECT_ORT_OK(Api().GetDimensionsCount(info, &rank));
  EXPECT_EQ(rank, 3u);
  int64_t dims[3] = {};
  EXPECT_ORT_OK(Api().GetDimensions(info, dims, 3));
  EXPECT_EQ(dims[2], 4);
  size_t count = 0;
  EXPECT_ORT_OK(Api().GetTensorShapeElementCount(info, &count));
  EXPECT_EQ(count, 24u);
  Api().ReleaseTensorTypeAndShapeInfo(info);

  ONNXTensorElementDataType elem = ONNX_TENSOR_ELEMENT_DATA_TYPE_UNDEFINED;
  const int64_t* shape_ref = nullptr;
  size_t shape_count = 0;
  EXPECT_ORT_OK(Api().GetTensorElementTypeAndShapeDataReference(value, &elem, &shape_ref,
                                                                &shape_count));
  EXPECT_EQ(elem, ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT);
  ASSERT_EQ(shape_count, 3u);
  EXPECT_EQ(shape_ref[0], 2);

  const OrtMemoryInfo* memory_info = nullptr;
  EXPECT_ORT_OK(Api().GetTensorMemoryInfo(value, &memory_info));
  EXPECT_TRUE(EpApi().MemoryDevice_AreEqual(EpApi().Value_GetMemoryDevice(value),
                                            EpApi().MemoryInfo_GetMemoryDevice(memory_info)));

  OrtTypeInfo* type_info = nullptr;
  EXPECT_ORT_OK(Api().GetTypeInfo(value, &type_info));
  const OrtTensorTypeAndShapeInfo* tensor_info = nullptr;
  EXPECT_ORT_OK(Api().CastTypeInfoToTensorInfo(type_info, &tensor_info));
  ASSERT_NE(tensor_info, nullptr);
  EXPECT_EQ(tensor_info->element_type, ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT);
  Api().ReleaseTypeInfo(type_info);
  Api().ReleaseValue(value);
  Api().ReleaseValue(nullptr);

  const int64_t negative[] = {2, -1};
  auto [code, message] = Take(Api().CreateTensorAsOrtValue(
      allocator, negative, 2, ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT, &value));
  EXPECT_EQ(code, ORT_FAIL);  // ONNX Runtime 1.30's code
  EXPECT_NE(message.find("dim 1"), std::string::npos);
  EXPECT_EQ(Take(Api().CreateTensorAsOrtValue(allocator, shape, 3,
                                              static_cast<ONNXTensorElementDataType>(99), &value))
                .first,
            ORT_NOT_IMPLEMENTED);
  EXPECT_ORT_OK(Api().CreateTensorAsOrtValue(allocator, shape, 3,
                                             ONNX_TENSOR_ELEMENT_DATA_TYPE_STRING, &value));
  Api().ReleaseValue(value);
}

TEST(OrtApiValues, BorrowedAndOwnedBuffers) {
  OrtMemoryInfo* cpu = nullptr;
  EXPECT_ORT_OK(Api().CreateCpuMemoryInfo(OrtDeviceAllocator, OrtMemTypeDefault, &cpu));
  std::vector<int64_t> buffer = {1, 2, 3, 4, 5, 6};
  const int64_t shape[] = {2, 3};
  OrtValue* view = nullptr;
  EXPECT_ORT_OK(Api().CreateTensorWithDataAsOrtValue(cpu, buffer.data(), 48, shape, 2,
                                                     ONNX_TENSOR_ELEMENT_DATA_TYPE_INT64, &view));
  Api().ReleaseMemoryInfo(cpu);  // the value keeps its own copy
  const OrtMemoryInfo* info = nullptr;
  EXPECT_ORT_OK(Api().GetTensorMemoryInfo(view, &info));
  const char* name = nullptr;
  EXPECT_ORT_OK(Api().MemoryInfoGetName(info, &name));
  EXPECT_STREQ(name, "Cpu");
  const void* data = nullptr;
  EXPECT_ORT_OK(Api().GetTensorData(view, &data));
  EXPECT_EQ(data, buffer.data());
  Api().ReleaseValue(view);
  EXPECT_EQ(buffer[5], 6);  // not freed by the value

  EXPECT_ORT_OK(Api().CreateCpuMemoryInfo(OrtDeviceAllocator, OrtMemTypeDefault, &cpu));
  auto [code, message] = Take(Api().CreateTensorWithDataAsOrtValue(
      cpu, buffer.data(), 40, shape, 2, ONNX_TENSOR_ELEMENT_DATA_TYPE_INT64, &view));
  EXPECT_EQ(code, ORT_INVALID_ARGUMENT);
  EXPECT_NE(message.find("needs 48"), std::string::npos) << message;
  Api().ReleaseMemoryInfo(cpu);

  OrtAllocator* allocator = &DefaultCpuAllocator();
  void* owned = nullptr;
  EXPECT_ORT_OK(Api().AllocatorAlloc(allocator, 24, &owned));
  const int64_t in_use_before = DefaultCpuAllocator().in_use.load();
  OrtValue* value = nullptr;
  EXPECT_ORT_OK(Api().CreateTensorWithDataAndDeleterAsOrtValue(
      allocator, owned, 24, shape, 2, ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT, &value));
  Api().ReleaseValue(value);  // frees `owned` through the allocator
  EXPECT_EQ(DefaultCpuAllocator().in_use.load(), in_use_before - 24);
}

TEST(OrtApiValues, TensorTypeAndShapeInfo) {
  OrtTensorTypeAndShapeInfo* info = nullptr;
  EXPECT_ORT_OK(Api().CreateTensorTypeAndShapeInfo(&info));
  EXPECT_FALSE(Api().TensorTypeAndShape_HasShape(info));
  EXPECT_ORT_OK(Api().SetTensorElementType(info, ONNX_TENSOR_ELEMENT_DATA_TYPE_INT8));
  const int64_t dims[] = {-1, 3, 4};
  EXPECT_ORT_OK(Api().SetDimensions(info, dims, 3));
  EXPECT_TRUE(Api().TensorTypeAndShape_HasShape(info));
  const char* names[] = {"batch", nullptr, ""};
  EXPECT_ORT_OK(Api().SetSymbolicDimensions(info, names, 3));
  const char* read[3] = {};
  EXPECT_ORT_OK(Api().GetSymbolicDimensions(info, read, 3));
  EXPECT_STREQ(read[0], "batch");
  EXPECT_STREQ(read[1], "");
  size_t count = 0;
  // Any unknown dim: ORT_FAIL, as ONNX Runtime 1.30 answers (its header says -1).
  EXPECT_EQ(Take(Api().GetTensorShapeElementCount(info, &count)).first, ORT_FAIL);
  const int64_t zero[] = {2, 0, 4};
  EXPECT_ORT_OK(Api().SetDimensions(info, zero, 3));
  EXPECT_ORT_OK(Api().GetTensorShapeElementCount(info, &count));
  EXPECT_EQ(count, 0u);
  EXPECT_ORT_OK(Api().SetDimensions(info, nullptr, 0));
  EXPECT_ORT_OK(Api().GetTensorShapeElementCount(info, &count));
  EXPECT_EQ(count, 1u);  // a scalar
  const int64_t huge[] = {int64_t{1} << 40, int64_t{1} << 40};
  EXPECT_ORT_OK(Api().SetDimensions(info, huge, 2));
  EXPECT_EQ(Take(Api().GetTensorShapeElementCount(info, &count)).first, ORT_FAIL);  // overflow
  ONNXTensorElementDataType type = ONNX_TENSOR_ELEMENT_DATA_TYPE_UNDEFINED;
  EXPECT_ORT_OK(Api().GetTensorElementType(info, &type));
  EXPECT_EQ(type, ONNX_TENSOR_ELEMENT_DATA_TYPE_INT8);
  auto [code, message] = Take(Api().GetDimensionsCount(nullptr, &count));
  EXPECT_EQ(code, ORT_INVALID_ARGUMENT);
  EXPECT_EQ(message, "OrtApi::GetDimensionsCount: argument 'info' is null; pass a valid pointer");
  Api().ReleaseTensorTypeAndShapeInfo(info);
  Api().ReleaseTensorTypeAndShapeInfo(nullptr);
}

TEST(OrtApiValues, ContainerTypeInfos) {
  OrtTypeInfo sequence;
  sequence.type = ONNX_TYPE_SEQUENCE;
  sequence.denotation = "IMAGE";
  sequence.element = std::make_unique<OrtTypeInfo>();
  sequence.element->type = ONNX_TYPE_TENSOR;
  sequence.element->tensor = std::make_unique<OrtTensorTypeAndShapeInfo>();
  sequence.element->tensor->element_type = ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT;

  const OrtTensorTypeAndShapeInfo* not_tensor = nullptr;
  EXPECT_ORT_OK(Api().CastTypeInfoToTensorInfo(&sequence, &not_tensor));
  EXPECT_EQ(not_tensor, nullptr);
  const OrtMapTypeInfo* not_map = nullptr;
  EXPECT_ORT_OK(Api().CastTypeInfoToMapTypeInfo(&sequence, &not_map));
  EXPECT_EQ(not_map, nullptr);
  const OrtSequenceTypeInfo* seq = nullptr;
  EXPECT_ORT_OK(Api().CastTypeInfoToSequenceTypeInfo(&sequence, &seq));
  ASSERT_NE(seq, nullptr);
  OrtTypeInfo* element = nullptr;
  EXPECT_ORT_OK(Api().GetSequenceElementType(seq, &element));
  ONNXType element_type = ONNX_TYPE_UNKNOWN;
  EXPECT_ORT_OK(Api().GetOnnxTypeFromTypeInfo(element, &element_type));
  EXPECT_EQ(element_type, ONNX_TYPE_TENSOR);
  Api().ReleaseTypeInfo(element);  // a copy
  const char* denotation = nullptr;
  size_t length = 0;
  EXPECT_ORT_OK(Api().GetDenotationFromTypeInfo(&sequence, &denotation, &length));
  EXPECT_STREQ(denotation, "IMAGE");
  EXPECT_EQ(length, 5u);

  OrtTypeInfo map;
  map.type = ONNX_TYPE_MAP;
  map.map_key = ONNX_TENSOR_ELEMENT_DATA_TYPE_INT64;
  map.element = std::make_unique<OrtTypeInfo>();
  map.element->type = ONNX_TYPE_TENSOR;
  const OrtMapTypeInfo* map_info = nullptr;
  EXPECT_ORT_OK(Api().CastTypeInfoToMapTypeInfo(&map, &map_info));
  ONNXTensorElementDataType key = ONNX_TENSOR_ELEMENT_DATA_TYPE_UNDEFINED;
  EXPECT_ORT_OK(Api().GetMapKeyType(map_info, &key));
  EXPECT_EQ(key, ONNX_TENSOR_ELEMENT_DATA_TYPE_INT64);
  OrtTypeInfo* map_value = nullptr;
  EXPECT_ORT_OK(Api().GetMapValueType(map_info, &map_value));
  Api().ReleaseTypeInfo(map_value);

  OrtTypeInfo optional;
  optional.type = ONNX_TYPE_OPTIONAL;
  const OrtOptionalTypeInfo* optional_info = nullptr;
  EXPECT_ORT_OK(Api().CastTypeInfoToOptionalTypeInfo(&optional, &optional_info));
  OrtTypeInfo* contained = nullptr;
  EXPECT_EQ(Take(Api().GetOptionalContainedTypeInfo(optional_info, &contained)).first,
            ORT_INVALID_ARGUMENT);  // the model gave no contained type
}

// ---- hardware and EP devices ----

struct FakeFactory : OrtEpFactory {
  FakeFactory() {
    std::memset(static_cast<OrtEpFactory*>(this), 0, sizeof(OrtEpFactory));
    ort_version_supported = ORT_API_VERSION;
    GetName = [](const OrtEpFactory*) noexcept -> const char* { return "ExampleEp"; };
    GetVendor = [](const OrtEpFactory*) noexcept -> const char* { return "Example"; };
  }
};

TEST(OrtApiDevices, HostCpuAndEpDevices) {
  const auto& devices = HostHardwareDevices();
  ASSERT_FALSE(devices.empty());
  const OrtHardwareDevice* cpu = devices[0];
  EXPECT_EQ(Api().HardwareDevice_Type(cpu), OrtHardwareDeviceType_CPU);
  EXPECT_EQ(Api().HardwareDevice_DeviceId(cpu), 0u);
  const std::string vendor = Api().HardwareDevice_Vendor(cpu);
  if (vendor == "Intel") {
    EXPECT_EQ(Api().HardwareDevice_VendorId(cpu), 0x8086u);
  } else if (vendor == "AMD") {
    EXPECT_EQ(Api().HardwareDevice_VendorId(cpu), 0x1022u);
  }
  EXPECT_NE(Api().HardwareDevice_Metadata(cpu), nullptr);
  size_t count = 0;
  EXPECT_ORT_OK(Api().GetNumHardwareDevices(nullptr, &count));
  EXPECT_EQ(count, devices.size());
  std::vector<const OrtHardwareDevice*> listed(count + 1, cpu);
  EXPECT_ORT_OK(Api().GetHardwareDevices(nullptr, listed.data(), listed.size()));
  EXPECT_EQ(listed[0], cpu);
  EXPECT_EQ(listed[count], nullptr);

  FakeFactory factory;
  OrtKeyValuePairs metadata;
  metadata.Set("version", "1.0");
  OrtKeyValuePairs options;
  options.Set("mode", "fast");
  OrtEpDevice* ep_device = nullptr;
  EXPECT_ORT_OK(EpApi().CreateEpDevice(&factory, cpu, &metadata, &options, &ep_device));
  metadata.Set("version", "changed");  // the EP device holds a copy
  EXPECT_STREQ(Api().EpDevice_EpName(ep_device), "ExampleEp");
  EXPECT_STREQ(Api().EpDevice_EpVendor(ep_device), "Example");
  EXPECT_STREQ(Api().GetKeyValue(Api().EpDevice_EpMetadata(ep_device), "version"), "1.0");
  EXPECT_STREQ(Api().GetKeyValue(Api().EpDevice_EpOptions(ep_device), "mode"), "fast");
  EXPECT_EQ(Api().EpDevice_Device(ep_device), cpu);
  EXPECT_EQ(ep_device->factory, &factory);
  EXPECT_EQ(Api().EpDevice_MemoryInfo(ep_device, OrtDeviceMemoryType_DEFAULT), nullptr);

  OrtMemoryInfo* device_memory = nullptr;
  EXPECT_ORT_OK(Api().CreateMemoryInfo_V2("ExampleGpu", OrtMemoryInfoDeviceType_GPU, 0x10DE, 0,
                                          OrtDeviceMemoryType_DEFAULT, 0, OrtDeviceAllocator,
                                          &device_memory));
  EXPECT_ORT_OK(EpApi().EpDevice_AddAllocatorInfo(ep_device, device_memory));
  EXPECT_ORT_OK(EpApi().EpDevice_AddAllocatorInfo(ep_device, device_memory));  // replaces
  EXPECT_EQ(ep_device->memory_infos.size(), 1u);
  const OrtMemoryInfo* registered = Api().EpDevice_MemoryInfo(ep_device, OrtDeviceMemoryType_DEFAULT);
  EXPECT_EQ(registered, device_memory);  // the plugin's own pointer, as ORT keeps it
  ASSERT_NE(registered, nullptr);
  EXPECT_EQ(registered->name, "ExampleGpu");
  OrtMemoryInfo* read_only_host = nullptr;
  EXPECT_ORT_OK(Api().CreateMemoryInfo_V2("Pinned", OrtMemoryInfoDeviceType_GPU, 0x10DE, 0,
                                          OrtDeviceMemoryType_HOST_ACCESSIBLE, 0,
                                          OrtReadOnlyAllocator, &read_only_host));
  EXPECT_EQ(Take(EpApi().EpDevice_AddAllocatorInfo(ep_device, read_only_host)).first,
            ORT_INVALID_ARGUMENT);
  Api().ReleaseMemoryInfo(device_memory);
  Api().ReleaseMemoryInfo(read_only_host);
  EpApi().ReleaseEpDevice(ep_device);
  EpApi().ReleaseEpDevice(nullptr);

  factory.ort_version_supported = 0;
  EXPECT_EQ(Take(EpApi().CreateEpDevice(&factory, cpu, nullptr, nullptr, &ep_device)).first,
            ORT_INVALID_ARGUMENT);

  OrtHardwareDevice* virtual_device = nullptr;
  EXPECT_ORT_OK(EpApi().CreateHardwareDevice(OrtHardwareDeviceType_NPU, 0x1234, 7, "Virt",
                                             &options, &virtual_device));
  EXPECT_EQ(Api().HardwareDevice_DeviceId(virtual_device), 7u);
  EXPECT_STREQ(Api().GetKeyValue(Api().HardwareDevice_Metadata(virtual_device), "mode"), "fast");
  EpApi().ReleaseHardwareDevice(virtual_device);
  EpApi().ReleaseHardwareDevice(const_cast<OrtHardwareDevice*>(cpu));  // host-owned: ignored
  EpApi().ReleaseHardwareDevice(nullptr);
  EXPECT_EQ(Api().HardwareDevice_Type(HostHardwareDevices()[0]), OrtHardwareDeviceType_CPU);
}

// ---- kernel context, support info, compute context, custom op domains ----

class FakeKernelContext : public OrtKernelContext {
 public:
  FakeKernelContext() {
    input_.element_type = ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT;
    input_.shape = {2};
    input_.data = input_data_;
    input_.bytes = sizeof(input_data_);
  }
  size_t InputCount() const override { return 2; }
  size_t OutputCount() const override { return 1; }
  const OrtValue* Input(size_t i) const override { return i == 0 ? &input_ : nullptr; }
  OrtStatus* Output(size_t i, const int64_t* shape, size_t rank, OrtValue** out) override {
    if (i != 0) return MakeOrtStatus(ORT_INVALID_ARGUMENT, "output index out of range");
    output_.element_type = ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT;
    output_.shape.assign(shape, shape + rank);
    allocated_ = true;
    *out = &output_;
    return nullptr;
  }
  OrtValue* AllocatedOutput(size_t i) const override {
    return i == 0 && allocated_ ? const_cast<OrtValue*>(&output_) : nullptr;
  }
  const OrtLogger* Logger() const override { return &logger_; }
  OrtStatus* ParallelFor(void (*fn)(void*, size_t), size_t total, size_t, void* data) override {
    for (size_t i = 0; i < total; ++i) fn(data, i);
    return nullptr;
  }

 private:
  float input_data_[2] = {1.f, 2.f};
  OrtValue input_;
  OrtValue output_;
  bool allocated_ = false;
  OrtLogger logger_{"kernel", ORT_LOGGING_LEVEL_WARNING, nullptr};

 public:
  OrtValue sentinel;  // a non-null value for out-parameters the host must overwrite
};

TEST(OrtApiKernel, ContextForwards) {
  FakeKernelContext context;
  size_t n = 0;
  EXPECT_ORT_OK(Api().KernelContext_GetInputCount(&context, &n));
  EXPECT_EQ(n, 2u);
  EXPECT_ORT_OK(Api().KernelContext_GetOutputCount(&context, &n));
  EXPECT_EQ(n, 1u);
  const OrtValue* input = nullptr;
  EXPECT_ORT_OK(Api().KernelContext_GetInput(&context, 0, &input));
  ASSERT_NE(input, nullptr);
  EXPECT_ORT_OK(Api().KernelContext_GetInput(&context, 1, &input));
  EXPECT_EQ(input, nullptr);  // omitted optional input
  auto [code, message] = Take(Api().KernelContext_GetInput(&context, 2, &input));
  EXPECT_EQ(code, ORT_INVALID_ARGUMENT);
  EXPECT_NE(message.find("input index 2"), std::string::npos);
  OrtValue* output = nullptr;
  const auto& v30 = HostApiV30().v30;
  OrtValue* preallocated = &context.sentinel;
  EXPECT_ORT_OK(v30.KernelContext_GetPreallocatedOutput(&context, 0, &preallocated));
  EXPECT_EQ(preallocated, nullptr);  // nothing allocated before GetOutput, as in ORT 1.30
  const int64_t shape[] = {3, 1};
  EXPECT_ORT_OK(Api().KernelContext_GetOutput(&context, 0, shape, 2, &output));
  ASSERT_NE(output, nullptr);
  EXPECT_EQ(output->shape, (std::vector<int64_t>{3, 1}));
  EXPECT_ORT_OK(v30.KernelContext_GetPreallocatedOutput(&context, 0, &preallocated));
  EXPECT_EQ(preallocated, output);  // the value GetOutput allocated
  EXPECT_EQ(Take(v30.KernelContext_GetPreallocatedOutput(&context, 1, &preallocated)).first,
            ORT_INVALID_ARGUMENT);
  const OrtLogger* logger = nullptr;
  EXPECT_ORT_OK(Api().KernelContext_GetLogger(&context, &logger));
  EXPECT_EQ(logger->id, "kernel");

  std::vector<int> hits(5, 0);
  EXPECT_ORT_OK(Api().KernelContext_ParallelFor(
      &context, [](void* data, size_t i) { (*static_cast<std::vector<int>*>(data))[i]++; }, 5, 0,
      &hits));
  EXPECT_EQ(hits, std::vector<int>(5, 1));

  OrtMemoryInfo* cpu = nullptr;
  EXPECT_ORT_OK(Api().CreateCpuMemoryInfo(OrtDeviceAllocator, OrtMemTypeDefault, &cpu));
  OrtAllocator* allocator = nullptr;
  EXPECT_ORT_OK(Api().KernelContext_GetAllocator(&context, cpu, &allocator));
  EXPECT_EQ(allocator, &DefaultCpuAllocator());
  void* scratch = nullptr;
  EXPECT_ORT_OK(Api().KernelContext_GetScratchBuffer(&context, cpu, 1000, &scratch));
  ASSERT_NE(scratch, nullptr);
  std::memset(scratch, 0, 1000);
  EXPECT_ORT_OK(Api().AllocatorFree(allocator, scratch));
  Api().ReleaseAllocator(allocator);
  EXPECT_ORT_OK(Api().KernelContext_GetScratchBuffer(&context, cpu, 0, &scratch));
  EXPECT_EQ(scratch, nullptr);
  OrtMemoryInfo* gpu = nullptr;
  EXPECT_ORT_OK(Api().CreateMemoryInfo("Cuda", OrtDeviceAllocator, 0, OrtMemTypeDefault, &gpu));
  EXPECT_EQ(Take(Api().KernelContext_GetAllocator(&context, gpu, &allocator)).first,
            ORT_INVALID_ARGUMENT);
  Api().ReleaseMemoryInfo(gpu);
  Api().ReleaseMemoryInfo(cpu);
  void* stream = &n;
  EXPECT_ORT_OK(Api().KernelContext_GetGPUComputeStream(&context, &stream));
  EXPECT_EQ(stream, nullptr);
}

TEST(OrtApiKernel, SupportInfoRecordsGroups) {
  OrtEpGraphSupportInfo support;
  // Node pointers are recorded, never dereferenced: any distinct addresses do.
  int storage[3];
  const OrtNode* nodes[] = {reinterpret_cast<const OrtNode*>(&storage[0]),
                            reinterpret_cast<const OrtNode*>(&storage[1])};
  EXPECT_ORT_OK(EpApi().EpGraphSupportInfo_AddNodesToFuse(&support, nodes, 2, nullptr));
  OrtNodeFusionOptions options{};
  options.ort_version_supported = ORT_API_VERSION + 5;  // newer plugin: clamped, not rejected
  options.drop_constant_initializers = true;
  EXPECT_ORT_OK(EpApi().EpGraphSupportInfo_AddNodesToFuse(&support, nodes + 1, 1, &options));
  EXPECT_ORT_OK(EpApi().EpGraphSupportInfo_AddSingleNode(
      &support, reinterpret_cast<const OrtNode*>(&storage[2])));
  ASSERT_EQ(support.groups.size(), 3u);
  EXPECT_EQ(support.groups[0].nodes.size(), 2u);
  EXPECT_TRUE(support.groups[0].fused);
  EXPECT_FALSE(support.groups[0].drop_constant_initializers);
  EXPECT_TRUE(support.groups[1].drop_constant_initializers);
  EXPECT_FALSE(support.groups[2].fused);

  options.ort_version_supported = 0;
  auto [code, message] = Take(EpApi().EpGraphSupportInfo_AddNodesToFuse(&support, nodes, 2, &options));
  EXPECT_EQ(code, ORT_INVALID_ARGUMENT);
  EXPECT_NE(message.find("ort_version_supported is 0"), std::string::npos);
  options.ort_version_supported = 22;  // the field came in 23: not read
  EXPECT_ORT_OK(EpApi().EpGraphSupportInfo_AddNodesToFuse(&support, nodes, 2, &options));
  EXPECT_FALSE(support.groups.back().drop_constant_initializers);
  const OrtNode* with_null[] = {nodes[0], nullptr};
  EXPECT_EQ(Take(EpApi().EpGraphSupportInfo_AddNodesToFuse(&support, with_null, 2, nullptr)).first,
            ORT_INVALID_ARGUMENT);
  EXPECT_EQ(Take(EpApi().EpGraphSupportInfo_AddNodesToFuse(&support, nodes, 0, nullptr)).first,
            ORT_INVALID_ARGUMENT);
  EXPECT_EQ(support.groups.size(), 4u);

  OrtNodeComputeContext compute{"fused_0"};
  EXPECT_STREQ(EpApi().NodeComputeContext_NodeName(&compute), "fused_0");
}

TEST(OrtApiKernel, CustomOpDomains) {
  OrtCustomOpDomain* domain = nullptr;
  EXPECT_ORT_OK(Api().CreateCustomOpDomain("com.example", &domain));
  OrtCustomOp op{};
  EXPECT_ORT_OK(Api().CustomOpDomain_Add(domain, &op));
  EXPECT_EQ(domain->ops.size(), 1u);
  EXPECT_EQ(Take(Api().CustomOpDomain_Add(domain, nullptr)).first, ORT_INVALID_ARGUMENT);
  Api().ReleaseCustomOpDomain(domain);
  Api().ReleaseCustomOpDomain(nullptr);
}

// The EPContext node a plugin makes (CreateOpAttr, OrtModelEditorApi::CreateNode) and the host
// takes from Compile: names, values and attributes as given; a node not made by CreateNode is
// refused; types ORT 1.30's CreateOpAttr refuses are refused.
TEST(OrtApiEditorNodes, CreateOpAttrCreateNodeAndTake) {
  const OrtModelEditorApi& editor = *Api().GetModelEditorApi();
  const int64_t embed = 1;
  const float scales[] = {0.5f, 2.0f};
  OrtOpAttr* attrs[3] = {};
  EXPECT_ORT_OK(Api().CreateOpAttr("embed_mode", &embed, 1, ORT_OP_ATTR_INT, &attrs[0]));
  EXPECT_ORT_OK(Api().CreateOpAttr("source", "vendor_ep_x", 9, ORT_OP_ATTR_STRING, &attrs[1]));
  EXPECT_ORT_OK(Api().CreateOpAttr("scales", scales, 2, ORT_OP_ATTR_FLOATS, &attrs[2]));
  OrtOpAttr* graph_attr = nullptr;
  auto [code, message] = Take(Api().CreateOpAttr("body", &embed, 1, ORT_OP_ATTR_GRAPH, &graph_attr));
  EXPECT_EQ(code, ORT_FAIL);
  EXPECT_NE(message.find("attribute 'body': OrtOpAttrType 7 is not supported"), std::string::npos)
      << message;
  const char* inputs[] = {"x", "w"};
  const char* outputs[] = {"y"};
  OrtNode* node = nullptr;
  EXPECT_ORT_OK(editor.CreateNode("EPContext", "com.microsoft", "fused_0", inputs, 2, outputs, 1,
                                  attrs, 3, &node));
  for (OrtOpAttr* attr : attrs) Api().ReleaseOpAttr(attr);  // CreateNode copied them
  const char* name = nullptr;
  EXPECT_ORT_OK(Api().Node_GetName(node, &name));
  EXPECT_STREQ(name, "fused_0");
  Result<ep::EpContextCompiler::ContextNode> taken = TakeEditorNode(node);
  ASSERT_TRUE(taken.ok()) << taken.status().ToString();
  EXPECT_EQ(taken->op_type, "EPContext");
  EXPECT_EQ(taken->domain, "com.microsoft");
  EXPECT_EQ(taken->inputs, (std::vector<std::string>{"x", "w"}));
  EXPECT_EQ(taken->outputs, (std::vector<std::string>{"y"}));
  ASSERT_EQ(taken->attributes.size(), 3u);
  EXPECT_EQ(taken->attributes[0].i, 1);
  EXPECT_EQ(taken->attributes[1].s, "vendor_ep");
  EXPECT_EQ(taken->attributes[2].floats, (std::vector<float>{0.5f, 2.0f}));
  // Taken once: the pointer is no node the host owns any more (looked up, never read).
  Result<ep::EpContextCompiler::ContextNode> again = TakeEditorNode(node);
  ASSERT_FALSE(again.ok());
  EXPECT_NE(again.status().message().find("not made by OrtModelEditorApi::CreateNode"),
            std::string::npos);
}

// ---- enum arguments out of range (CheckEnumArg), one test per function group ----

TEST(OrtApiStatus, EnumArgumentsOutOfRange) {
  OrtStatus* status = Api().CreateStatus(RawEnum<OrtErrorCode>(99), "plugin failed");
  EXPECT_EQ(Api().GetErrorCode(status), ORT_INVALID_ARGUMENT);
  EXPECT_STREQ(Api().GetErrorMessage(status),
               "OrtApi::CreateStatus: argument 'code' is 99, which is not a valid OrtErrorCode; "
               "pass one of 0..15; the status message was: plugin failed");
  Api().ReleaseStatus(status);
  RecordingSink sink;
  OrtLogger logger{"test", ORT_LOGGING_LEVEL_VERBOSE, &sink};
  ExpectBadEnum(Api().Logger_LogMessage(&logger, RawEnum<OrtLoggingLevel>(-1), "m", "f.cc", 1, "f"),
                ORT_INVALID_ARGUMENT, "OrtApi::Logger_LogMessage", "log_severity_level", -1,
                "OrtLoggingLevel", "0..4");
  EXPECT_TRUE(sink.lines.empty());
}

TEST(OrtApiConfig, EnumArgumentsOutOfRange) {
  OrtSessionOptions* options = nullptr;
  EXPECT_ORT_OK(Api().CreateSessionOptions(&options));
  for (int32_t level : {4, 98, -1}) {
    ExpectBadEnum(Api().SetSessionGraphOptimizationLevel(
                      options, RawEnum<GraphOptimizationLevel>(level)),
                  ORT_INVALID_ARGUMENT, "OrtApi::SetSessionGraphOptimizationLevel",
                  "graph_optimization_level", level, "GraphOptimizationLevel", "0..3, 99");
  }
  EXPECT_ORT_OK(Api().SetSessionGraphOptimizationLevel(options, ORT_ENABLE_LAYOUT));
  ExpectBadEnum(Api().SetSessionExecutionMode(options, RawEnum<ExecutionMode>(2)),
                ORT_INVALID_ARGUMENT, "OrtApi::SetSessionExecutionMode", "execution_mode", 2,
                "ExecutionMode", "0..1");
  Api().ReleaseSessionOptions(options);
}

TEST(OrtApiMemory, EnumArgumentsOutOfRange) {
  OrtMemoryInfo* info = nullptr;
  ExpectBadEnum(Api().CreateCpuMemoryInfo(RawEnum<OrtAllocatorType>(99), OrtMemTypeDefault, &info),
                ORT_INVALID_ARGUMENT, "OrtApi::CreateCpuMemoryInfo", "type", 99,
                "OrtAllocatorType", "-1..2");
  ExpectBadEnum(Api().CreateCpuMemoryInfo(OrtArenaAllocator, RawEnum<OrtMemType>(1), &info),
                ORT_INVALID_ARGUMENT, "OrtApi::CreateCpuMemoryInfo", "mem_type", 1, "OrtMemType",
                "-2..0");
  ExpectBadEnum(Api().CreateMemoryInfo("Cpu", OrtArenaAllocator, 0, RawEnum<OrtMemType>(-3), &info),
                ORT_INVALID_ARGUMENT, "OrtApi::CreateMemoryInfo", "mem_type", -3, "OrtMemType",
                "-2..0");
  ExpectBadEnum(Api().CreateMemoryInfo_V2("x", RawEnum<OrtMemoryInfoDeviceType>(4), 0, 0,
                                          OrtDeviceMemoryType_DEFAULT, 0, OrtDeviceAllocator,
                                          &info),
                ORT_INVALID_ARGUMENT, "OrtApi::CreateMemoryInfo_V2", "device_type", 4,
                "OrtMemoryInfoDeviceType", "0..3");
  ExpectBadEnum(Api().CreateMemoryInfo_V2("x", OrtMemoryInfoDeviceType_CPU, 0, 0,
                                          RawEnum<OrtDeviceMemoryType>(1), 0, OrtDeviceAllocator,
                                          &info),
                ORT_INVALID_ARGUMENT, "OrtApi::CreateMemoryInfo_V2", "mem_type", 1,
                "OrtDeviceMemoryType", "0, 5");
  ExpectBadEnum(Api().CreateMemoryInfo_V2("x", OrtMemoryInfoDeviceType_CPU, 0, 0,
                                          OrtDeviceMemoryType_DEFAULT, 0,
                                          RawEnum<OrtAllocatorType>(-2), &info),
                ORT_INVALID_ARGUMENT, "OrtApi::CreateMemoryInfo_V2", "allocator_type", -2,
                "OrtAllocatorType", "-1..2");
  EXPECT_EQ(info, nullptr);
}

TEST(OrtApiValues, EnumArgumentsOutOfRange) {
  OrtAllocator* allocator = nullptr;
  EXPECT_ORT_OK(Api().GetAllocatorWithDefaultOptions(&allocator));
  const int64_t shape[] = {2};
  float buffer[2] = {};
  OrtValue* value = nullptr;
  // ONNX Runtime 1.30 answers these with ORT_NOT_IMPLEMENTED ("tensor type 99 is not supported").
  ExpectBadEnum(Api().CreateTensorAsOrtValue(allocator, shape, 1,
                                             RawEnum<ONNXTensorElementDataType>(99), &value),
                ORT_NOT_IMPLEMENTED, "OrtApi::CreateTensorAsOrtValue", "type", 99,
                "ONNXTensorElementDataType", "0..26");
  OrtMemoryInfo* cpu = nullptr;
  EXPECT_ORT_OK(Api().CreateCpuMemoryInfo(OrtDeviceAllocator, OrtMemTypeDefault, &cpu));
  ExpectBadEnum(Api().CreateTensorWithDataAsOrtValue(
                    cpu, buffer, sizeof buffer, shape, 1, RawEnum<ONNXTensorElementDataType>(-1),
                    &value),
                ORT_NOT_IMPLEMENTED, "OrtApi::CreateTensorWithDataAsOrtValue", "type", -1,
                "ONNXTensorElementDataType", "0..26");
  Api().ReleaseMemoryInfo(cpu);
  ExpectBadEnum(Api().CreateTensorWithDataAndDeleterAsOrtValue(
                    allocator, buffer, sizeof buffer, shape, 1,
                    RawEnum<ONNXTensorElementDataType>(27), &value),
                ORT_NOT_IMPLEMENTED, "OrtApi::CreateTensorWithDataAndDeleterAsOrtValue", "type",
                27, "ONNXTensorElementDataType", "0..26");
  EXPECT_EQ(value, nullptr);

  OrtTensorTypeAndShapeInfo* info = nullptr;
  EXPECT_ORT_OK(Api().CreateTensorTypeAndShapeInfo(&info));
  EXPECT_ORT_OK(Api().SetTensorElementType(info, ONNX_TENSOR_ELEMENT_DATA_TYPE_INT8));
  ExpectBadEnum(Api().SetTensorElementType(info, RawEnum<ONNXTensorElementDataType>(99)),
                ORT_INVALID_ARGUMENT, "OrtApi::SetTensorElementType", "type", 99,
                "ONNXTensorElementDataType", "0..26");
  ONNXTensorElementDataType kept = ONNX_TENSOR_ELEMENT_DATA_TYPE_UNDEFINED;
  EXPECT_ORT_OK(Api().GetTensorElementType(info, &kept));
  EXPECT_EQ(kept, ONNX_TENSOR_ELEMENT_DATA_TYPE_INT8);

  const OrtModelEditorApi& editor = *Api().GetModelEditorApi();
  OrtTypeInfo* value_type = nullptr;
  EXPECT_ORT_OK(editor.CreateTensorTypeInfo(info, &value_type));
  OrtTypeInfo* map_type = nullptr;
  ExpectBadEnum(editor.CreateMapTypeInfo(RawEnum<ONNXTensorElementDataType>(1000), value_type,
                                         &map_type),
                ORT_INVALID_ARGUMENT, "OrtModelEditorApi::CreateMapTypeInfo", "map_key_type",
                1000, "ONNXTensorElementDataType", "0..26");
  EXPECT_EQ(map_type, nullptr);
  Api().ReleaseTypeInfo(value_type);
  Api().ReleaseTensorTypeAndShapeInfo(info);

  const OrtValue* none[] = {nullptr};
  ExpectBadEnum(Api().CreateValue(none, 1, RawEnum<ONNXType>(7), &value), ORT_INVALID_ARGUMENT,
                "OrtApi::CreateValue", "value_type", 7, "ONNXType", "0..6");
}

TEST(OrtApiDevices, EnumArgumentsOutOfRange) {
  OrtHardwareDevice* device = nullptr;
  ExpectBadEnum(EpApi().CreateHardwareDevice(RawEnum<OrtHardwareDeviceType>(3), 0, 0, "v",
                                             nullptr, &device),
                ORT_INVALID_ARGUMENT, "OrtEpApi::CreateHardwareDevice", "type", 3,
                "OrtHardwareDeviceType", "0..2");
  EXPECT_EQ(device, nullptr);
  FakeFactory factory;
  OrtEpDevice* ep_device = nullptr;
  EXPECT_ORT_OK(EpApi().CreateEpDevice(&factory, HostHardwareDevices()[0], nullptr, nullptr,
                                       &ep_device));
  OrtMemoryInfo* memory = nullptr;
  EXPECT_ORT_OK(Api().CreateMemoryInfo_V2("ExampleGpu", OrtMemoryInfoDeviceType_GPU, 0x10DE, 0,
                                          OrtDeviceMemoryType_DEFAULT, 0, OrtDeviceAllocator,
                                          &memory));
  EXPECT_ORT_OK(EpApi().EpDevice_AddAllocatorInfo(ep_device, memory));
  EXPECT_EQ(Api().EpDevice_MemoryInfo(ep_device, OrtDeviceMemoryType_DEFAULT), memory);
  EXPECT_EQ(Api().EpDevice_MemoryInfo(ep_device, RawEnum<OrtDeviceMemoryType>(99)), nullptr);
  EpApi().ReleaseEpDevice(ep_device);
  Api().ReleaseMemoryInfo(memory);
}

// The mirror case: an enum a plugin writes for the host. A factory whose
// ValidateCompiledModelCompatibilityInfo answers 99 fails the check by name, with no enum load.
TEST(OrtApiDevices, FactoryVerdictOutOfRangeIsAnError) {
  FakeFactory factory;
  factory.ValidateCompiledModelCompatibilityInfo =
      [](OrtEpFactory*, const OrtHardwareDevice* const*, size_t, const char*,
         OrtCompiledModelCompatibility* verdict) noexcept -> OrtStatus* {
    const int32_t ninety_nine = 99;
    std::memcpy(verdict, &ninety_nine, sizeof ninety_nine);
    return nullptr;
  };
  PluginLibrary::Factory entry;
  entry.factory = &factory;
  entry.version = 23;
  Result<ep::CompiledModelCompatibility> verdict =
      ValidateCompiledModelCompatibility(entry, "ExampleEp", "info", "plugin 'x'");
  ASSERT_FALSE(verdict.ok());
  EXPECT_EQ(verdict.status().message(),
            "plugin 'x': OrtEpFactory::ValidateCompiledModelCompatibilityInfo answered 99, which "
            "is no OrtCompiledModelCompatibility value; fix the factory");
}

TEST(OrtApiKernel, EnumArgumentsOutOfRange) {
  OrtKernelDefBuilder* builder = nullptr;
  EXPECT_ORT_OK(EpApi().CreateKernelDefBuilder(&builder));
  ExpectBadEnum(EpApi().KernelDefBuilder_SetInputMemType(builder, 0, RawEnum<OrtMemType>(99)),
                ORT_INVALID_ARGUMENT, "OrtEpApi::KernelDefBuilder_SetInputMemType", "mem_type", 99,
                "OrtMemType", "-2..0");
  ExpectBadEnum(EpApi().KernelDefBuilder_SetOutputMemType(builder, 0, RawEnum<OrtMemType>(-3)),
                ORT_INVALID_ARGUMENT, "OrtEpApi::KernelDefBuilder_SetOutputMemType", "mem_type",
                -3, "OrtMemType", "-2..0");
  EpApi().ReleaseKernelDefBuilder(builder);
  OrtKernelInfo info;
  OrtAllocator* allocator = nullptr;
  ExpectBadEnum(Api().KernelInfoGetAllocator(&info, RawEnum<OrtMemType>(5), &allocator),
                ORT_INVALID_ARGUMENT, "OrtApi::KernelInfoGetAllocator", "mem_type", 5,
                "OrtMemType", "-2..0");
  EXPECT_EQ(allocator, nullptr);
  const OrtDataType* type = nullptr;
  ExpectBadEnum(EpApi().GetTensorDataType(RawEnum<ONNXTensorElementDataType>(99), &type),
                ORT_NOT_IMPLEMENTED, "OrtEpApi::GetTensorDataType", "elem_type", 99,
                "ONNXTensorElementDataType", "0..26");
  auto [code, message] = Take(EpApi().GetTensorDataType(ONNX_TENSOR_ELEMENT_DATA_TYPE_UNDEFINED,
                                                        &type));
  EXPECT_EQ(code, ORT_NOT_IMPLEMENTED) << message;  // as ONNX Runtime 1.30
  EXPECT_EQ(type, nullptr);
}

TEST(OrtApiEditorNodes, EnumArgumentsOutOfRange) {
  const int64_t one = 1;
  OrtOpAttr* attr = nullptr;
  // ONNX Runtime 1.30 answers ORT_FAIL ("Attribute type not supported yet.").
  ExpectBadEnum(Api().CreateOpAttr("a", &one, 1, RawEnum<OrtOpAttrType>(99), &attr), ORT_FAIL,
                "OrtApi::CreateOpAttr", "type", 99, "OrtOpAttrType", "0..8");
  EXPECT_EQ(attr, nullptr);
  EXPECT_ORT_OK(Api().CreateOpAttr("a", &one, 1, ORT_OP_ATTR_INT, &attr));
  int64_t read = 0;
  size_t bytes = 0;
  ExpectBadEnum(Api().ReadOpAttr(attr, RawEnum<OrtOpAttrType>(-1), &read, sizeof read, &bytes),
                ORT_INVALID_ARGUMENT, "OrtApi::ReadOpAttr", "type", -1, "OrtOpAttrType", "0..8");
  EXPECT_ORT_OK(Api().ReadOpAttr(attr, ORT_OP_ATTR_INT, &read, sizeof read, &bytes));
  EXPECT_EQ(read, 1);
  Api().ReleaseOpAttr(attr);
}

}  // namespace
}  // namespace nxrt::ort_plugin
