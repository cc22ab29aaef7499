// Tests of the C API in-process, through the table an application gets (capi::ApiBase): what
// the differential suite (tests/capi, against ONNX Runtime) cannot check because ORT itself
// crashes or words things its own way: null arguments, messages naming the argument and the
// function, the not-implemented list, and the one-table rule.
#include "capi/capi.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "ep/ort_plugin/api_table.h"

namespace nxrt::capi {
namespace {

const OrtApi& Api() { return *ApiBase()->GetApi(ORT_API_VERSION); }

std::pair<OrtErrorCode, std::string> Take(OrtStatus* status) {
  if (status == nullptr) return {ORT_OK, ""};
  std::pair<OrtErrorCode, std::string> result{Api().GetErrorCode(status),
                                              Api().GetErrorMessage(status)};
  Api().ReleaseStatus(status);
  return result;
}

// Expects ORT_INVALID_ARGUMENT with a message naming `function` and `argument`.
void ExpectNullArgument(OrtStatus* status, const std::string& function, const std::string& argument) {
  auto [code, message] = Take(status);
  EXPECT_EQ(code, ORT_INVALID_ARGUMENT) << function << ": " << message;
  EXPECT_NE(message.find("OrtApi::" + function), std::string::npos) << message;
  EXPECT_NE(message.find("'" + argument + "'"), std::string::npos) << message;
}

std::string Model(const char* name) { return std::string(NXRT_CAPI_TEST_MODELS) + "/" + name; }

TEST(CApiTable, OneTableServesVersionsOneToThirty) {
  const OrtApiBase* base = ApiBase();
  EXPECT_EQ(base, ort_plugin::HostApiBase());
  for (uint32_t v = 1; v <= 30; ++v) EXPECT_EQ(base->GetApi(v), &ort_plugin::HostApi()) << v;
  EXPECT_EQ(base->GetApi(0), nullptr);
  EXPECT_EQ(base->GetApi(31), nullptr);
  EXPECT_STREQ(base->GetVersionString(), "1.30.0");
  EXPECT_NE(std::strstr(Api().GetBuildInfoString(), "nxrt"), nullptr);
  // API 30's slot, right after the 425 of API 29.
  const auto* v30 = reinterpret_cast<const OrtApiVersion30*>(base->GetApi(30));
  OrtValue* output = nullptr;
  auto [code, message] = Take(v30->v30.KernelContext_GetPreallocatedOutput(nullptr, 0, &output));
  EXPECT_EQ(code, ORT_INVALID_ARGUMENT);
  EXPECT_NE(message.find("'context'"), std::string::npos) << message;
}

TEST(CApiTable, ApplicationFunctionsReplaceOnlyStubs) {
  // An installer that sets a slot the plugin host implements is refused; the table is unchanged.
  auto replace_status = [](OrtApiVersion30& api) { api.v29.CreateStatus = nullptr; };
  Status refused = ort_plugin::ExtendHostApi(replace_status);
  EXPECT_EQ(refused.code(), StatusCode::kInternal);
  EXPECT_NE(refused.message().find("OrtApi::CreateStatus"), std::string::npos);
  EXPECT_NE(Api().CreateStatus, nullptr);
}

TEST(CApiTable, CoverageAndEveryStubHasItsReason) {
  ApiBase();
  const ort_plugin::ApiCoverage coverage = ort_plugin::HostApiCoverage();
  EXPECT_EQ(coverage.ort_api_slots, 426u);
  EXPECT_EQ(coverage.ep_api_slots, 74u);
  EXPECT_EQ(coverage.model_editor_api_slots, 20u);
  std::printf("OrtApi (version 30): %zu of %zu functions implemented; OrtEpApi: %zu of %zu; "
              "OrtModelEditorApi: %zu of %zu\n",
              coverage.ort_api_implemented, coverage.ort_api_slots, coverage.ep_api_implemented,
              coverage.ep_api_slots, coverage.model_editor_api_implemented,
              coverage.model_editor_api_slots);
  for (const ort_plugin::StubbedSlot& stub : ort_plugin::StubbedSlots()) {
    std::printf("  %s: %s\n", stub.name.c_str(), stub.reason.c_str());
    EXPECT_NE(stub.reason, ort_plugin::kDefaultNotImplementedReason) << stub.name << " has no reason";
  }
  EXPECT_EQ(ort_plugin::UnusedNotImplementedReasons(), std::vector<std::string>{});
}

TEST(CApiTable, StubsNameTheFunctionAndTheReason) {
  OrtSessionOptions* options = nullptr;
  ASSERT_EQ(Take(Api().CreateSessionOptions(&options)).first, ORT_OK);
  auto [code, message] = Take(Api().SessionOptionsAppendExecutionProvider_OpenVINO(options, nullptr));
  EXPECT_EQ(code, ORT_NOT_IMPLEMENTED);
  EXPECT_NE(message.find("OrtApi::SessionOptionsAppendExecutionProvider_OpenVINO is not implemented "
                         "by nxrt: nxrt has no such built-in execution provider"),
            std::string::npos)
      << message;
  Api().ReleaseSessionOptions(options);
}

// ORT 1.30 crashes on these null pointers; nxrt answers ORT_INVALID_ARGUMENT naming them.
TEST(CApiArguments, NullPointersAreInvalidArguments) {
  ExpectNullArgument(Api().CreateEnv(ORT_LOGGING_LEVEL_WARNING, "x", nullptr), "CreateEnv", "out");
  ExpectNullArgument(Api().CreateSessionOptions(nullptr), "CreateSessionOptions", "out");
  ExpectNullArgument(Api().SetIntraOpNumThreads(nullptr, 1), "SetIntraOpNumThreads", "options");
  ExpectNullArgument(Api().EnableProfiling(nullptr, "p"), "EnableProfiling", "options");
  ExpectNullArgument(Api().DisableMemPattern(nullptr), "DisableMemPattern", "options");
  ExpectNullArgument(Api().CreateRunOptions(nullptr), "CreateRunOptions", "out");
  ExpectNullArgument(Api().RunOptionsSetTerminate(nullptr), "RunOptionsSetTerminate", "options");
  ExpectNullArgument(Api().Run(nullptr, nullptr, nullptr, nullptr, 0, nullptr, 0, nullptr), "Run",
                     "session");
  ExpectNullArgument(Api().SessionGetInputCount(nullptr, nullptr), "SessionGetInputCount", "session");
  ExpectNullArgument(Api().CreateIoBinding(nullptr, nullptr), "CreateIoBinding", "session");
  ExpectNullArgument(Api().GetEpDevices(nullptr, nullptr, nullptr), "GetEpDevices", "env");
  ExpectNullArgument(Api().CreateValue(nullptr, 0, ONNX_TYPE_SEQUENCE, nullptr), "CreateValue", "in");
  ExpectNullArgument(Api().FillStringTensor(nullptr, nullptr, 0), "FillStringTensor", "value");

  OrtEnv* env = nullptr;
  ASSERT_EQ(Take(Api().CreateEnv(ORT_LOGGING_LEVEL_WARNING, "capi_test", &env)).first, ORT_OK);
  const std::string model = Model("add.onnx");
  ExpectNullArgument(Api().CreateSession(env, model.c_str(), nullptr, nullptr), "CreateSession", "out");
  ExpectNullArgument(Api().CreateSession(nullptr, model.c_str(), nullptr, nullptr), "CreateSession",
                     "env");
  OrtSession* session = nullptr;
  ASSERT_EQ(Take(Api().CreateSession(env, model.c_str(), nullptr, &session)).first, ORT_OK);
  ExpectNullArgument(Api().SessionGetInputName(session, 0, nullptr, nullptr), "SessionGetInputName",
                     "allocator");
  const char* names[1] = {"A"};
  ExpectNullArgument(Api().Run(session, nullptr, names, nullptr, 1, names, 0, nullptr), "Run",
                     "inputs");
  Api().ReleaseSession(session);
  Api().ReleaseEnv(env);
}

// CreateEnvWithOptions: its config entries (copied) are what plugins read with
// OrtEpApi::GetEnvConfigEntries until the env is released.
TEST(CApiEnv, CreateEnvWithOptionsGivesPluginsItsConfigEntries) {
  auto env_entries = [] {
    OrtKeyValuePairs* kvps = nullptr;
    EXPECT_EQ(Take(Api().GetEpApi()->GetEnvConfigEntries(&kvps)).first, ORT_OK);
    const char* value = Api().GetKeyValue(kvps, "ep_factory.probe.mode");
    std::string text = value != nullptr ? value : "(none)";
    Api().ReleaseKeyValuePairs(kvps);
    return text;
  };
  OrtKeyValuePairs* entries = nullptr;
  Api().CreateKeyValuePairs(&entries);
  Api().AddKeyValuePair(entries, "ep_factory.probe.mode", "fast");
  OrtEnvCreationOptions options{};
  options.version = 23;
  options.logging_severity_level = ORT_LOGGING_LEVEL_WARNING;
  options.log_id = "capi_test";
  options.config_entries = entries;
  OrtEnv* env = nullptr;
  auto [code, message] = Take(Api().CreateEnvWithOptions(&options, &env));
  EXPECT_EQ(code, ORT_INVALID_ARGUMENT);
  EXPECT_NE(message.find("version is 23"), std::string::npos) << message;
  options.version = ORT_API_VERSION;
  ASSERT_EQ(Take(Api().CreateEnvWithOptions(&options, &env)).first, ORT_OK);
  Api().ReleaseKeyValuePairs(entries);
  EXPECT_EQ(env_entries(), "fast");
  Api().ReleaseEnv(env);
  EXPECT_EQ(env_entries(), "(none)");
}

// Enum arguments outside their enum (a C caller may pass any int) are ORT_INVALID_ARGUMENT
// naming the function, the argument, the value and the valid values (ort_plugin::CheckEnumArg);
// none of them creates or changes anything.
TEST(CApiEnv, EnumArgumentsOutOfRange) {
  auto raw = [](auto type_tag, int32_t value) {
    decltype(type_tag) e;
    std::memcpy(&e, &value, sizeof e);
    return e;
  };
  auto expect_bad = [](OrtStatus* status, const std::string& function, const std::string& param,
                       int32_t value, const std::string& type, const std::string& valid) {
    auto [code, message] = Take(status);
    EXPECT_EQ(code, ORT_INVALID_ARGUMENT) << message;
    EXPECT_EQ(message, function + ": argument '" + param + "' is " + std::to_string(value) +
                           ", which is not a valid " + type + "; pass one of " + valid);
  };
  const OrtLoggingLevel level99 = raw(OrtLoggingLevel{}, 99);
  OrtEnv* env = nullptr;
  expect_bad(Api().CreateEnv(level99, "x", &env), "OrtApi::CreateEnv", "log_severity_level", 99,
             "OrtLoggingLevel", "0..4");
  OrtThreadingOptions* threading = nullptr;
  ASSERT_EQ(Take(Api().CreateThreadingOptions(&threading)).first, ORT_OK);
  expect_bad(Api().CreateEnvWithGlobalThreadPools(raw(OrtLoggingLevel{}, -1), "x", threading, &env),
             "OrtApi::CreateEnvWithGlobalThreadPools", "log_severity_level", -1,
             "OrtLoggingLevel", "0..4");
  Api().ReleaseThreadingOptions(threading);
  OrtEnvCreationOptions options{};
  options.version = ORT_API_VERSION;
  options.logging_severity_level = 5;
  expect_bad(Api().CreateEnvWithOptions(&options, &env), "OrtApi::CreateEnvWithOptions",
             "OrtEnvCreationOptions::logging_severity_level", 5, "OrtLoggingLevel", "0..4");
  EXPECT_EQ(env, nullptr);

  ASSERT_EQ(Take(Api().CreateEnv(ORT_LOGGING_LEVEL_WARNING, "capi_test", &env)).first, ORT_OK);
  expect_bad(Api().UpdateEnvWithCustomLogLevel(env, level99), "OrtApi::UpdateEnvWithCustomLogLevel",
             "log_severity_level", 99, "OrtLoggingLevel", "0..4");
  expect_bad(Api().SetLanguageProjection(env, raw(OrtLanguageProjection{}, 7)),
             "OrtApi::SetLanguageProjection", "projection", 7, "OrtLanguageProjection", "0..6");
  OrtSessionOptions* session_options = nullptr;
  ASSERT_EQ(Take(Api().CreateSessionOptions(&session_options)).first, ORT_OK);
  const OrtCompileApi& compile = *Api().GetCompileApi();
  OrtModelCompilationOptions* compile_options = nullptr;
  ASSERT_EQ(Take(compile.CreateModelCompilationOptionsFromSessionOptions(env, session_options,
                                                                         &compile_options))
                .first,
            ORT_OK);
  expect_bad(compile.ModelCompilationOptions_SetGraphOptimizationLevel(
                 compile_options, raw(GraphOptimizationLevel{}, 98)),
             "OrtCompileApi::ModelCompilationOptions_SetGraphOptimizationLevel",
             "graph_optimization_level", 98, "GraphOptimizationLevel", "0..3, 99");
  compile.ReleaseModelCompilationOptions(compile_options);
  Api().ReleaseSessionOptions(session_options);
  Api().ReleaseEnv(env);
}

// A run stops when another thread sets the terminate flag, with ORT_FAIL naming the cause; the
// session runs again once the flag is unset.
TEST(CApiRun, TerminateFromAnotherThread) {
  OrtEnv* env = nullptr;
  ASSERT_EQ(Take(Api().CreateEnv(ORT_LOGGING_LEVEL_WARNING, "capi_test", &env)).first, ORT_OK);
  OrtSession* session = nullptr;
  const std::string model = Model("add.onnx");
  ASSERT_EQ(Take(Api().CreateSession(env, model.c_str(), nullptr, &session)).first, ORT_OK);
  OrtAllocator* allocator = nullptr;
  ASSERT_EQ(Take(Api().GetAllocatorWithDefaultOptions(&allocator)).first, ORT_OK);
  const int64_t shape[2] = {1, 3};
  OrtValue* a = nullptr;
  ASSERT_EQ(Take(Api().CreateTensorAsOrtValue(allocator, shape, 2, ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT,
                                              &a)).first,
            ORT_OK);
  OrtRunOptions* run_options = nullptr;
  ASSERT_EQ(Take(Api().CreateRunOptions(&run_options)).first, ORT_OK);
  std::thread([&] { EXPECT_EQ(Take(Api().RunOptionsSetTerminate(run_options)).first, ORT_OK); }).join();
  const char* in[2] = {"A", "B"};
  const OrtValue* values[2] = {a, a};
  const char* out[1] = {"C"};
  OrtValue* result = nullptr;
  auto [code, message] = Take(Api().Run(session, run_options, in, values, 2, out, 1, &result));
  EXPECT_EQ(code, ORT_FAIL);
  EXPECT_NE(message.find("terminated"), std::string::npos) << message;
  EXPECT_EQ(result, nullptr);
  ASSERT_EQ(Take(Api().RunOptionsUnsetTerminate(run_options)).first, ORT_OK);
  EXPECT_EQ(Take(Api().Run(session, run_options, in, values, 2, out, 1, &result)).first, ORT_OK);
  Api().ReleaseValue(result);
  Api().ReleaseRunOptions(run_options);
  Api().ReleaseValue(a);
  Api().ReleaseSession(session);
  Api().ReleaseEnv(env);
}

}  // namespace
}  // namespace nxrt::capi
