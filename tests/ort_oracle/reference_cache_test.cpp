// ort_oracle/reference_cache_test.cpp: the reference cache stores ORT's outputs once and gives
// back identical bytes, without loading ORT, on later calls.
//
// Layer: tests of nxrt_ort_oracle (uses a private cache folder, never the user's).
#include "ort_oracle/reference_cache.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "nxrt/input_generator.h"
#include "ort_oracle/oracle_test_util.h"

namespace nxrt::oracle {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

std::string TestModel(const std::string& file) {
  return (fs::path(NXRT_ORACLE_TEST_MODELS) / file).string();
}

Tensor FloatTensor(Shape shape, const std::vector<float>& values) {
  return Tensor::FromVector<float>(std::move(shape), values).value();
}

void ExpectSameTensors(const std::vector<NamedTensor>& a, const std::vector<NamedTensor>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].name, b[i].name);
    EXPECT_EQ(a[i].tensor.dtype(), b[i].tensor.dtype());
    EXPECT_EQ(a[i].tensor.shape(), b[i].tensor.shape());
    ASSERT_EQ(a[i].tensor.byte_size(), b[i].tensor.byte_size());
    EXPECT_EQ(std::memcmp(a[i].tensor.raw_data(), b[i].tensor.raw_data(), a[i].tensor.byte_size()),
              0)
        << "output " << i << " differs";
  }
}

class ReferenceCacheTest : public OracleTest {
 protected:
  void SetUp() override {
    OracleTest::SetUp();
    if (IsSkipped()) return;
    cache_dir_ = fs::temp_directory_path() /
                 ("nxrt_reference_cache_test_" + std::to_string(getpid()) + "_" +
                  ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(cache_dir_);
  }
  void TearDown() override {
    std::error_code ignored;
    fs::remove_all(cache_dir_, ignored);
  }

  ReferenceOptions Options(std::string library_path = "") const {
    ReferenceOptions options;
    options.cache_dir = cache_dir_.string();
    options.library_path = std::move(library_path);
    return options;
  }

  fs::path cache_dir_;
};

TEST_F(ReferenceCacheTest, SecondCallReturnsIdenticalBytesWithoutOrt) {
  const std::vector<NamedTensor> inputs = {{"A", FloatTensor({2}, {1.25f, -3})},
                                           {"B", FloatTensor({2}, {0.5f, 7})}};
  const std::string model = TestModel("two_outputs.onnx");
  Result<std::vector<NamedTensor>> first = ReferenceOutputs(model, inputs, Options());
  ASSERT_TRUE(first.ok()) << first.status().ToString();

  Result<std::string> key = ReferenceKey(model, inputs, OptimizationLevel::kDisableAll);
  ASSERT_TRUE(key.ok()) << key.status().ToString();
  ASSERT_EQ(key->size(), 64u);
  const fs::path entry = cache_dir_ / *key;
  EXPECT_TRUE(fs::exists(entry / "input_0.pb"));
  EXPECT_TRUE(fs::exists(entry / "input_1.pb"));
  EXPECT_TRUE(fs::exists(entry / "output_1.pb"));
  std::ifstream manifest(entry / "reference.json");
  std::stringstream text;
  text << manifest.rdbuf();
  EXPECT_THAT(text.str(), HasSubstr("\"ort_version\": \"" + oracle().version() + "\""));
  EXPECT_THAT(text.str(), HasSubstr("\"outputs\": [\n    \"0\",\n    \"{\\\"k\\\": 1}\"\n  ]"));

  // A library path that cannot load proves the second answer comes from the files.
  Result<std::vector<NamedTensor>> second =
      ReferenceOutputs(model, inputs, Options("/nonexistent/libonnxruntime.so.1"));
  ASSERT_TRUE(second.ok()) << second.status().ToString();
  ExpectSameTensors(*first, *second);
  EXPECT_EQ((*second)[1].name, "{\"k\": 1}");

  Result<std::vector<NamedTensor>> direct = oracle().Run(model, inputs);
  ASSERT_TRUE(direct.ok()) << direct.status().ToString();
  ExpectSameTensors(*first, *direct);
}

TEST_F(ReferenceCacheTest, KeyIgnoresInputOrderButNotValuesOrOptimization) {
  const std::string model = TestModel("add.onnx");
  const Tensor a = FloatTensor({1, 3}, {1, 2, 3});
  const Tensor b = FloatTensor({1, 3}, {4, 5, 6});
  const Tensor b2 = FloatTensor({1, 3}, {4, 5, 6.0001f});
  const auto level = OptimizationLevel::kDisableAll;
  const std::string key = ReferenceKey(model, {{"A", a}, {"B", b}}, level).value();
  EXPECT_EQ(ReferenceKey(model, {{"B", b}, {"A", a}}, level).value(), key);
  EXPECT_NE(ReferenceKey(model, {{"A", a}, {"B", b2}}, level).value(), key);
  EXPECT_NE(ReferenceKey(model, {{"A", b}, {"B", a}}, level).value(), key);
  EXPECT_NE(ReferenceKey(model, {{"A", a}, {"B", b}}, OptimizationLevel::kAll).value(), key);
  EXPECT_NE(ReferenceKey(TestModel("two_outputs.onnx"), {{"A", a}, {"B", b}}, level).value(), key);
}

TEST_F(ReferenceCacheTest, StringAndHalfOutputsSurviveTheCache) {
  for (const char* type : {"string", "float16", "bfloat16", "bool"}) {
    SCOPED_TRACE(type);
    Result<Tensor> x = GenerateTensor(*DataTypeFromName(type), {2, 3},
                                      ValueDistribution::Uniform(0, 1), 3);
    ASSERT_TRUE(x.ok());
    const std::string model = TestModel(std::string("identity_") + type + ".onnx");
    Result<std::vector<NamedTensor>> first = ReferenceOutputs(model, {{"X", *x}}, Options());
    ASSERT_TRUE(first.ok()) << first.status().ToString();
    Result<std::vector<NamedTensor>> second = ReferenceOutputs(model, {{"X", *x}}, Options());
    ASSERT_TRUE(second.ok()) << second.status().ToString();
    if (x->dtype() == DataType::kString) {
      for (int64_t i = 0; i < 6; ++i) {
        EXPECT_EQ((*second)[0].tensor.data<std::string>()[i], x->data<std::string>()[i]);
      }
    } else {
      ExpectSameTensors(*first, *second);
    }
  }
}

TEST_F(ReferenceCacheTest, BrokenEntryAndMissingModelAreReported) {
  const std::string model = TestModel("add.onnx");
  const std::vector<NamedTensor> inputs = {{"A", FloatTensor({1, 3}, {1, 2, 3})},
                                           {"B", FloatTensor({1, 3}, {1, 2, 3})}};
  const std::string key = ReferenceKey(model, inputs, OptimizationLevel::kDisableAll).value();
  fs::create_directories(cache_dir_ / key);
  Result<std::vector<NamedTensor>> broken = ReferenceOutputs(model, inputs, Options());
  ASSERT_FALSE(broken.ok());
  EXPECT_THAT(broken.status().message(), HasSubstr((cache_dir_ / key).string()));
  EXPECT_THAT(broken.status().message(), HasSubstr("delete the folder"));

  Result<std::vector<NamedTensor>> missing =
      ReferenceOutputs(TestModel("no_such_model.onnx"), inputs, Options());
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), StatusCode::kIoError);
  EXPECT_THAT(missing.status().message(), HasSubstr("no_such_model.onnx"));
}

TEST_F(ReferenceCacheTest, OrtErrorsPassThroughAndStoreNothing) {
  Result<std::vector<NamedTensor>> failed = ReferenceOutputs(
      TestModel("add.onnx"), {{"A", FloatTensor({1, 3}, {1, 2, 3})}}, Options());
  ASSERT_FALSE(failed.ok());
  EXPECT_THAT(failed.status().message(), HasSubstr("input 'B' float[N,3] is missing"));
  EXPECT_FALSE(fs::exists(cache_dir_) && !fs::is_empty(cache_dir_));
}

}  // namespace
}  // namespace nxrt::oracle
