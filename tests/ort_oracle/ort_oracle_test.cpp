// ort_oracle/ort_oracle_test.cpp: the ORT oracle runs tiny models (make_test_models.py) in real
// ONNX Runtime, hosts a plugin EP (idle_ep_plugin.cpp) and reports every kind of bad input as a
// clear Status.
//
// Layer: tests of nxrt_ort_oracle. Expected values are computed here, not taken from ORT.
#include "ort_oracle/ort_oracle.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <thread>

#include "nxrt/input_generator.h"
#include "ort_oracle/oracle_test_util.h"

#if !defined(NXRT_ORACLE_TEST_MODELS) || !defined(NXRT_IDLE_EP_PLUGIN)
#error "NXRT_ORACLE_TEST_MODELS and NXRT_IDLE_EP_PLUGIN must be defined by the build"
#endif

namespace nxrt::oracle {
namespace {

using ::testing::HasSubstr;

std::string TestModel(const std::string& file) {
  return (std::filesystem::path(NXRT_ORACLE_TEST_MODELS) / file).string();
}

Tensor FloatTensor(Shape shape, const std::vector<float>& values) {
  return Tensor::FromVector<float>(std::move(shape), values).value();
}

std::vector<float> FloatValues(const Tensor& tensor) {
  return std::vector<float>(tensor.span<float>().begin(), tensor.span<float>().end());
}

class OrtOracleTest : public OracleTest {};

TEST_F(OrtOracleTest, LoadsOrt130WithItsCpuEp) {
  EXPECT_FALSE(oracle().version().empty());
  if (std::getenv("NXRT_ORT_LIBRARY") == nullptr) {
    EXPECT_TRUE(oracle().version().starts_with("1.30")) << oracle().version();
  }
  Result<std::vector<EpDeviceInfo>> devices = oracle().EpDevices();
  ASSERT_TRUE(devices.ok()) << devices.status().ToString();
  bool has_cpu = false;
  for (const EpDeviceInfo& device : *devices) {
    has_cpu = has_cpu || (device.ep_name == "CPUExecutionProvider" && device.device_type == "cpu");
  }
  EXPECT_TRUE(has_cpu);
}

TEST_F(OrtOracleTest, LoadingTwiceSharesTheLibrary) {
  Result<OrtOracle> again = OrtOracle::Load(oracle().library_path());
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ(again->version(), oracle().version());
}

TEST_F(OrtOracleTest, AddModelMatchesValuesComputedHere) {
  const std::vector<float> a = {1.5f, -2.0f, 3.25f, 0.0f, 1e-3f, -7.0f};
  const std::vector<float> b = {0.5f, 2.0f, -1.25f, 4.0f, 1e-3f, 100.0f};
  Result<std::vector<NamedTensor>> outputs = oracle().Run(
      TestModel("add.onnx"), {{"A", FloatTensor({2, 3}, a)}, {"B", FloatTensor({2, 3}, b)}});
  ASSERT_TRUE(outputs.ok()) << outputs.status().ToString();
  ASSERT_EQ(outputs->size(), 1u);
  EXPECT_EQ((*outputs)[0].name, "C");
  EXPECT_EQ((*outputs)[0].tensor.shape(), (Shape{2, 3}));
  std::vector<float> expected;
  for (size_t i = 0; i < a.size(); ++i) expected.push_back(a[i] + b[i]);
  EXPECT_EQ(FloatValues((*outputs)[0].tensor), expected);
}

TEST_F(OrtOracleTest, EveryOptimizationLevelGivesTheSameSum) {
  const std::vector<float> a = {1, 2, 3};
  for (OptimizationLevel level : {OptimizationLevel::kDisableAll, OptimizationLevel::kBasic,
                                  OptimizationLevel::kExtended, OptimizationLevel::kAll}) {
    OracleOptions options;
    options.optimization = level;
    options.intra_op_threads = 2;
    Result<std::vector<NamedTensor>> outputs = oracle().Run(
        TestModel("add.onnx"), {{"A", FloatTensor({1, 3}, a)}, {"B", FloatTensor({1, 3}, a)}},
        options);
    ASSERT_TRUE(outputs.ok()) << OptimizationLevelName(level) << ": "
                              << outputs.status().ToString();
    EXPECT_EQ(FloatValues((*outputs)[0].tensor), (std::vector<float>{2, 4, 6}));
  }
}

TEST_F(OrtOracleTest, ReportsDeclaredInputsAndOutputsWithSymbolicDims) {
  Result<OracleSession> session = oracle().CreateSession(TestModel("dims.onnx"));
  ASSERT_TRUE(session.ok()) << session.status().ToString();
  ASSERT_EQ(session->inputs().size(), 1u);
  const ValueInfo& x = session->inputs()[0];
  EXPECT_EQ(x.name, "X");
  EXPECT_EQ(x.kind, ValueKind::kTensor);
  EXPECT_EQ(x.dtype, DataType::kFloat);
  EXPECT_TRUE(x.has_shape);
  EXPECT_EQ(x.dims, (std::vector<int64_t>{-1, -1, 4}));
  EXPECT_EQ(x.dim_names, (std::vector<std::string>{"batch", "", ""}));
  EXPECT_EQ(x.Description(), "float[batch,?,4]");
  ASSERT_EQ(session->outputs().size(), 2u);
  EXPECT_EQ(session->outputs()[0].Description(), "float[batch,?,4]");
  EXPECT_EQ(session->outputs()[1].name, "S");
  EXPECT_EQ(session->outputs()[1].Description(), "int64[3]");

  Result<OracleSession> scalar = oracle().CreateSession(TestModel("scalar.onnx"));
  ASSERT_TRUE(scalar.ok()) << scalar.status().ToString();
  EXPECT_EQ(scalar->inputs()[0].Description(), "int64[]");
}

TEST_F(OrtOracleTest, RunsDynamicDimsAndScalars) {
  Result<OracleSession> session = oracle().CreateSession(TestModel("dims.onnx"));
  ASSERT_TRUE(session.ok()) << session.status().ToString();
  std::vector<float> x(2 * 5 * 4);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i) - 7.5f;
  Result<std::vector<NamedTensor>> outputs = session->Run({{"X", FloatTensor({2, 5, 4}, x)}});
  ASSERT_TRUE(outputs.ok()) << outputs.status().ToString();
  std::vector<float> doubled;
  for (float v : x) doubled.push_back(2 * v);
  EXPECT_EQ(FloatValues((*outputs)[0].tensor), doubled);
  EXPECT_EQ((*outputs)[1].tensor.dtype(), DataType::kInt64);
  const auto shape = (*outputs)[1].tensor.span<int64_t>();
  EXPECT_EQ(std::vector<int64_t>(shape.begin(), shape.end()), (std::vector<int64_t>{2, 5, 4}));

  Result<std::vector<NamedTensor>> scalar =
      oracle().Run(TestModel("scalar.onnx"), {{"X", Tensor::Scalar<int64_t>(41)}});
  ASSERT_TRUE(scalar.ok()) << scalar.status().ToString();
  EXPECT_EQ((*scalar)[0].tensor.rank(), 0u);
  EXPECT_EQ(*(*scalar)[0].tensor.data<int64_t>(), 42);
}

// Every element type round-trips through ORT's Identity byte for byte (strings by value).
TEST_F(OrtOracleTest, IdentityRoundTripsEveryElementType) {
  const DataType types[] = {DataType::kFloat,  DataType::kDouble, DataType::kFloat16,
                            DataType::kBFloat16, DataType::kInt8,   DataType::kInt16,
                            DataType::kInt32,  DataType::kInt64,  DataType::kUint8,
                            DataType::kUint16, DataType::kUint32, DataType::kUint64,
                            DataType::kBool,   DataType::kString};
  for (DataType type : types) {
    SCOPED_TRACE(std::string(DataTypeName(type)));
    const ValueDistribution values = type == DataType::kBool ? ValueDistribution::Uniform(0, 1)
                                                             : ValueDistribution::Uniform(-50, 50);
    Result<Tensor> input = GenerateTensor(type, {2, 3}, values, 7);
    ASSERT_TRUE(input.ok()) << input.status().ToString();
    Result<std::vector<NamedTensor>> outputs = oracle().Run(
        TestModel("identity_" + std::string(DataTypeName(type)) + ".onnx"), {{"X", *input}});
    ASSERT_TRUE(outputs.ok()) << outputs.status().ToString();
    const Tensor& y = (*outputs)[0].tensor;
    ASSERT_EQ(y.dtype(), type);
    ASSERT_EQ(y.shape(), (Shape{2, 3}));
    if (type == DataType::kString) {
      for (int64_t i = 0; i < 6; ++i)
        EXPECT_EQ(y.data<std::string>()[i], input->data<std::string>()[i]);
    } else {
      EXPECT_EQ(std::memcmp(y.raw_data(), input->raw_data(), y.byte_size()), 0);
    }
  }
}

TEST_F(OrtOracleTest, KeepsOddOutputNamesAndSelectsOutputs) {
  Result<OracleSession> session = oracle().CreateSession(TestModel("two_outputs.onnx"));
  ASSERT_TRUE(session.ok()) << session.status().ToString();
  const std::vector<NamedTensor> inputs = {{"A", FloatTensor({2}, {5, 1})},
                                           {"B", FloatTensor({2}, {2, 3})}};
  Result<std::vector<NamedTensor>> all = session->Run(inputs);
  ASSERT_TRUE(all.ok()) << all.status().ToString();
  ASSERT_EQ(all->size(), 2u);
  EXPECT_EQ((*all)[0].name, "0");
  EXPECT_EQ((*all)[1].name, "{\"k\": 1}");
  Result<std::vector<NamedTensor>> one = session->Run(inputs, {"{\"k\": 1}"});
  ASSERT_TRUE(one.ok()) << one.status().ToString();
  ASSERT_EQ(one->size(), 1u);
  EXPECT_EQ(FloatValues((*one)[0].tensor), (std::vector<float>{3, -2}));
}

TEST_F(OrtOracleTest, GathersStridedInputs) {
  // A [3,2] buffer viewed transposed as [2,3].
  std::vector<float> storage = {1, 4, 2, 5, 3, 6};
  Tensor transposed =
      Tensor::BorrowStrided(DataType::kFloat, {2, 3}, {1, 2}, storage.data());
  ASSERT_FALSE(transposed.is_contiguous());
  Result<std::vector<NamedTensor>> outputs = oracle().Run(
      TestModel("add.onnx"), {{"A", transposed}, {"B", FloatTensor({2, 3}, {0, 0, 0, 0, 0, 0})}});
  ASSERT_TRUE(outputs.ok()) << outputs.status().ToString();
  EXPECT_EQ(FloatValues((*outputs)[0].tensor), (std::vector<float>{1, 2, 3, 4, 5, 6}));
}

TEST_F(OrtOracleTest, OneSessionRunsManyTimesFromSeveralThreads) {
  Result<OracleSession> session = oracle().CreateSession(TestModel("add.onnx"));
  ASSERT_TRUE(session.ok()) << session.status().ToString();
  std::vector<std::thread> threads;
  std::vector<int> failures(2, 0);
  for (int t = 0; t < 2; ++t) {
    threads.emplace_back([&, t] {
      for (int run = 0; run < 25; ++run) {
        const float base = static_cast<float>(t * 100 + run);
        Result<std::vector<NamedTensor>> outputs =
            session->Run({{"A", FloatTensor({1, 3}, {base, base, base})},
                          {"B", FloatTensor({1, 3}, {1, 2, 3})}});
        if (!outputs.ok() ||
            FloatValues((*outputs)[0].tensor) != std::vector<float>{base + 1, base + 2, base + 3}) {
          ++failures[t];
        }
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(failures, (std::vector<int>{0, 0}));
}

// ---- bad input ------------------------------------------------------------------------------

TEST(OrtOracleLoadTest, MissingLibrarySaysHowToGetIt) {
  Result<OrtOracle> loaded = OrtOracle::Load("/nonexistent/libonnxruntime.so.1");
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.status().code(), StatusCode::kNotFound);
  EXPECT_THAT(loaded.status().message(), HasSubstr("'/nonexistent/libonnxruntime.so.1'"));
  EXPECT_THAT(loaded.status().message(), HasSubstr("scripts/bootstrap.sh"));
}

TEST(OrtOracleLoadTest, FileThatIsNotALibraryFailsInDlopen) {
  Result<OrtOracle> loaded = OrtOracle::Load(TestModel("add.onnx"));
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_THAT(loaded.status().message(), HasSubstr("dlopen failed"));
}

TEST(OrtOracleLoadTest, EnvironmentVariableOverridesTheDefaultPath) {
  const char* previous = std::getenv("NXRT_ORT_LIBRARY");
  const std::string saved = previous ? previous : "";
  setenv("NXRT_ORT_LIBRARY", "/elsewhere/libonnxruntime.so.1", 1);
  EXPECT_EQ(OrtOracle::DefaultLibraryPath(), "/elsewhere/libonnxruntime.so.1");
  if (previous) {
    setenv("NXRT_ORT_LIBRARY", saved.c_str(), 1);
  } else {
    unsetenv("NXRT_ORT_LIBRARY");
  }
}

TEST_F(OrtOracleTest, WrongInputNameListsTheModelsInputs) {
  Result<std::vector<NamedTensor>> outputs = oracle().Run(
      TestModel("add.onnx"), {{"A", FloatTensor({1, 3}, {1, 2, 3})},
                              {"Z", FloatTensor({1, 3}, {1, 2, 3})}});
  ASSERT_FALSE(outputs.ok());
  EXPECT_EQ(outputs.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(outputs.status().message(), HasSubstr("add.onnx"));
  EXPECT_THAT(outputs.status().message(), HasSubstr("no input named 'Z'"));
  EXPECT_THAT(outputs.status().message(), HasSubstr("'A' float[N,3], 'B' float[N,3]"));
}

TEST_F(OrtOracleTest, WrongDtypeNamesBothTypes) {
  Result<std::vector<NamedTensor>> outputs = oracle().Run(
      TestModel("add.onnx"),
      {{"A", Tensor::FromVector<int64_t>({1, 3}, {1, 2, 3}).value()},
       {"B", FloatTensor({1, 3}, {1, 2, 3})}});
  ASSERT_FALSE(outputs.ok());
  EXPECT_EQ(outputs.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(outputs.status().message(),
              HasSubstr("input 'A' is int64[1,3] but the model declares it float[N,3]"));
}

TEST_F(OrtOracleTest, MissingAndDuplicateInputsAreNamed) {
  Result<std::vector<NamedTensor>> missing =
      oracle().Run(TestModel("add.onnx"), {{"A", FloatTensor({1, 3}, {1, 2, 3})}});
  ASSERT_FALSE(missing.ok());
  EXPECT_THAT(missing.status().message(), HasSubstr("input 'B' float[N,3] is missing"));

  const Tensor a = FloatTensor({1, 3}, {1, 2, 3});
  Result<std::vector<NamedTensor>> twice =
      oracle().Run(TestModel("add.onnx"), {{"A", a}, {"A", a}, {"B", a}});
  ASSERT_FALSE(twice.ok());
  EXPECT_THAT(twice.status().message(), HasSubstr("input 'A' is given twice"));
}

TEST_F(OrtOracleTest, OrtRuntimeErrorNamesTheFunctionAndModel) {
  Result<std::vector<NamedTensor>> outputs =
      oracle().Run(TestModel("add.onnx"), {{"A", FloatTensor({2, 3}, {1, 2, 3, 4, 5, 6})},
                                           {"B", FloatTensor({2, 2}, {1, 2, 3, 4})}});
  ASSERT_FALSE(outputs.ok());
  EXPECT_THAT(outputs.status().message(), HasSubstr("model '"));
  EXPECT_THAT(outputs.status().message(), HasSubstr("OrtApi::Run failed (ORT_"));
  std::cout << "ORT's error, as the oracle reports it: " << outputs.status().ToString() << "\n";
}

TEST_F(OrtOracleTest, UnknownOutputNameListsTheOutputs) {
  Result<OracleSession> session = oracle().CreateSession(TestModel("two_outputs.onnx"));
  ASSERT_TRUE(session.ok()) << session.status().ToString();
  Result<std::vector<NamedTensor>> outputs = session->Run(
      {{"A", FloatTensor({2}, {1, 2})}, {"B", FloatTensor({2}, {1, 2})}}, {"nope"});
  ASSERT_FALSE(outputs.ok());
  EXPECT_THAT(outputs.status().message(), HasSubstr("no output named 'nope'"));
  EXPECT_THAT(outputs.status().message(), HasSubstr("'0' float[2]"));
}

TEST_F(OrtOracleTest, MissingOrCorruptModelFilesAreReported) {
  Result<OracleSession> missing = oracle().CreateSession(TestModel("no_such_model.onnx"));
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
  EXPECT_THAT(missing.status().message(), HasSubstr("no_such_model.onnx"));

  const auto corrupt = std::filesystem::temp_directory_path() /
                       ("nxrt_oracle_corrupt_" + std::to_string(getpid()) + ".onnx");
  std::ofstream(corrupt) << "this is not a protobuf";
  Result<OracleSession> broken = oracle().CreateSession(corrupt.string());
  std::filesystem::remove(corrupt);
  ASSERT_FALSE(broken.ok());
  EXPECT_THAT(broken.status().message(), HasSubstr("OrtApi::CreateSession failed"));
  EXPECT_THAT(broken.status().message(), HasSubstr(corrupt.string()));
}

TEST_F(OrtOracleTest, NonTensorOutputIsNotImplemented) {
  Result<std::vector<NamedTensor>> outputs =
      oracle().Run(TestModel("sequence_out.onnx"), {{"A", FloatTensor({2}, {1, 2})}});
  ASSERT_FALSE(outputs.ok());
  EXPECT_EQ(outputs.status().code(), StatusCode::kNotImplemented);
  EXPECT_THAT(outputs.status().message(), HasSubstr("output 'S' is not a tensor"));
}

TEST_F(OrtOracleTest, BadOptionsAreRejected) {
  OracleOptions negative;
  negative.intra_op_threads = -2;
  Result<OracleSession> session = oracle().CreateSession(TestModel("add.onnx"), negative);
  ASSERT_FALSE(session.ok());
  EXPECT_THAT(session.status().message(), HasSubstr("intra_op_threads is -2"));

  OracleOptions missing_plugin;
  missing_plugin.plugins.push_back({"/nonexistent/libmy_ep.so", "", "", {}});
  session = oracle().CreateSession(TestModel("add.onnx"), missing_plugin);
  ASSERT_FALSE(session.ok());
  EXPECT_EQ(session.status().code(), StatusCode::kNotFound);
  EXPECT_THAT(session.status().message(),
              HasSubstr("plugin EP library '/nonexistent/libmy_ep.so' (registered as 'my_ep')"));
}

TEST_F(OrtOracleTest, LibraryWithoutEpFactoriesIsRejectedByOrt) {
  // ORT itself is a shared library without CreateEpFactories.
  PluginEp not_a_plugin;
  not_a_plugin.library_path = oracle().library_path();
  not_a_plugin.registration_name = "not_a_plugin";
  Result<std::vector<EpDeviceInfo>> devices = oracle().RegisterPlugin(not_a_plugin);
  ASSERT_FALSE(devices.ok());
  EXPECT_THAT(devices.status().message(),
              HasSubstr("OrtApi::RegisterExecutionProviderLibrary failed"));
  EXPECT_EQ(oracle().UnregisterPlugin("not_a_plugin").code(), StatusCode::kNotFound);
}

// ---- plugin EPs (idle_ep_plugin.cpp: offers the CPU, claims nothing) ------------------------

PluginEp IdlePlugin(const std::string& registration_name) {
  PluginEp plugin;
  plugin.library_path = NXRT_IDLE_EP_PLUGIN;
  plugin.registration_name = registration_name;
  return plugin;
}

TEST_F(OrtOracleTest, RegistersAPluginAndListsItsDevices) {
  Result<std::vector<EpDeviceInfo>> devices = oracle().RegisterPlugin(IdlePlugin("idle_list"));
  ASSERT_TRUE(devices.ok()) << devices.status().ToString();
  ASSERT_FALSE(devices->empty());
  EXPECT_EQ((*devices)[0].ep_name, "NxrtIdleEp");
  EXPECT_EQ((*devices)[0].ep_vendor, "nxrt tests");
  EXPECT_EQ((*devices)[0].device_type, "cpu");

  // Registering the same library under the same name again is a no-op.
  Result<std::vector<EpDeviceInfo>> again = oracle().RegisterPlugin(IdlePlugin("idle_list"));
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ(again->size(), devices->size());

  // The name is taken by another path.
  PluginEp other = IdlePlugin("idle_list");
  other.library_path = oracle().library_path();
  Result<std::vector<EpDeviceInfo>> clash = oracle().RegisterPlugin(other);
  ASSERT_FALSE(clash.ok());
  EXPECT_THAT(clash.status().message(), HasSubstr("'idle_list' is already registered"));

  ASSERT_TRUE(oracle().UnregisterPlugin("idle_list").ok());
  Result<std::vector<EpDeviceInfo>> after = oracle().EpDevices();
  ASSERT_TRUE(after.ok());
  for (const EpDeviceInfo& device : *after) EXPECT_NE(device.ep_name, "NxrtIdleEp");
}

TEST_F(OrtOracleTest, PluginFirstThenCpuFallbackRunsTheModel) {
  OracleOptions options;
  options.plugins.push_back(IdlePlugin("idle_fallback"));
  Result<std::vector<NamedTensor>> outputs = oracle().Run(
      TestModel("add.onnx"),
      {{"A", FloatTensor({1, 3}, {1, 2, 3})}, {"B", FloatTensor({1, 3}, {10, 20, 30})}}, options);
  ASSERT_TRUE(outputs.ok()) << outputs.status().ToString();
  EXPECT_EQ(FloatValues((*outputs)[0].tensor), (std::vector<float>{11, 22, 33}));
}

TEST_F(OrtOracleTest, DisablingCpuFallbackLeavesUnclaimedNodesAnError) {
  OracleOptions options;
  options.plugins.push_back(IdlePlugin("idle_no_fallback"));
  options.config_entries.push_back({"session.disable_cpu_ep_fallback", "1"});
  Result<OracleSession> session = oracle().CreateSession(TestModel("add.onnx"), options);
  ASSERT_FALSE(session.ok());
  EXPECT_THAT(session.status().message(), HasSubstr("OrtApi::CreateSession failed"));
  std::cout << "ORT's error without CPU fallback: " << session.status().ToString() << "\n";
}

TEST_F(OrtOracleTest, UnknownEpNameInAPluginListsTheOffered) {
  OracleOptions options;
  options.plugins.push_back(IdlePlugin("idle_named"));
  options.plugins.back().ep_name = "SomeOtherEp";
  Result<OracleSession> session = oracle().CreateSession(TestModel("add.onnx"), options);
  ASSERT_FALSE(session.ok());
  EXPECT_EQ(session.status().code(), StatusCode::kNotFound);
  EXPECT_THAT(session.status().message(),
              HasSubstr("provides no EP named 'SomeOtherEp'; it provides 'NxrtIdleEp'"));
}

TEST(ParsePluginSpecTest, SplitsPathAndRegistrationName) {
  Result<PluginEp> plain = ParsePluginSpec("/x/libexample_ep.so");
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ(plain->library_path, "/x/libexample_ep.so");
  EXPECT_EQ(plain->registration_name, "");
  Result<PluginEp> named = ParsePluginSpec("/x/libexample_ep.so:example");
  ASSERT_TRUE(named.ok());
  EXPECT_EQ(named->library_path, "/x/libexample_ep.so");
  EXPECT_EQ(named->registration_name, "example");
  EXPECT_FALSE(ParsePluginSpec("").ok());
  EXPECT_FALSE(ParsePluginSpec("/x/lib.so:").ok());
  EXPECT_FALSE(ParsePluginSpec(":name").ok());
}

}  // namespace
}  // namespace nxrt::oracle
