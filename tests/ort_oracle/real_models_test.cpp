// ort_oracle/real_models_test.cpp: every real model of docs/testing.md runs in ONNX Runtime on the
// shared table's fixed-seed inputs, with outputs as the model declares them.
//
// Layer: tests of nxrt_ort_oracle and of tests/real_models.h (the table the real-model suite
// and the benchmarks reuse). Prints ORT's median latency per model (informative, never
// asserted) and the largest gap between ORT with and without graph optimisations.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>
#include <iostream>
#include <set>

#include "ort_oracle/oracle_test_util.h"
#include "ort_oracle/reference_cache.h"
#include "real_models.h"

namespace nxrt::oracle {
namespace {

class RealModelTest : public OracleTest, public ::testing::WithParamInterface<std::string> {
 protected:
  void SetUp() override {
    OracleTest::SetUp();
    if (IsSkipped()) return;
    model_ = FindRealModel(GetParam());
    ASSERT_NE(model_, nullptr);
    std::error_code error;
    if (!std::filesystem::exists(model_->path(), error)) {
      GTEST_SKIP() << "model '" << model_->path().string()
                   << "' is missing: run scripts/bootstrap.sh";
    }
  }

  const RealModel* model_ = nullptr;
};

// Checks `shape` against a declared value: same rank, same fixed dims.
void ExpectFits(const ValueInfo& declared, const Shape& shape) {
  ASSERT_TRUE(declared.has_shape) << declared.name;
  ASSERT_EQ(shape.size(), declared.dims.size())
      << "'" << declared.name << "' " << ShapeToString(shape) << " vs " << declared.Description();
  for (size_t i = 0; i < shape.size(); ++i) {
    if (declared.dims[i] >= 0) {
      EXPECT_EQ(shape[i], declared.dims[i])
          << "'" << declared.name << "' " << ShapeToString(shape) << " vs "
          << declared.Description();
    }
  }
}

double MedianRunMilliseconds(const OracleSession& session, const std::vector<NamedTensor>& inputs) {
  using Clock = std::chrono::steady_clock;
  for (int i = 0; i < 2; ++i) EXPECT_TRUE(session.Run(inputs).ok());
  std::vector<double> times;
  const Clock::time_point deadline = Clock::now() + std::chrono::milliseconds(500);
  while (times.size() < 5 || (times.size() < 200 && Clock::now() < deadline)) {
    const Clock::time_point start = Clock::now();
    EXPECT_TRUE(session.Run(inputs).ok());
    times.push_back(std::chrono::duration<double, std::milli>(Clock::now() - start).count());
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

// The largest |a - b| over two float outputs, and whether all elements are within rtol/atol.
std::pair<double, bool> Compare(const Tensor& a, const Tensor& b, double rtol, double atol) {
  double max_gap = 0;
  bool close = true;
  for (int64_t i = 0; i < a.element_count(); ++i) {
    const double x = a.data<float>()[i];
    const double y = b.data<float>()[i];
    const double gap = std::abs(x - y);
    max_gap = std::max(max_gap, gap);
    close = close && gap <= atol + rtol * std::abs(y);
  }
  return {max_gap, close};
}

TEST_P(RealModelTest, RunsOnTheTableInputsWithDeclaredOutputs) {
  OracleOptions options;
  options.intra_op_threads = 1;
  Result<OracleSession> session = oracle().CreateSession(model_->path().string(), options);
  ASSERT_TRUE(session.ok()) << session.status().ToString();

  // The table lists every input, in order, with the declared type and a fitting shape.
  ASSERT_EQ(session->inputs().size(), model_->inputs.size());
  for (size_t i = 0; i < model_->inputs.size(); ++i) {
    const ValueInfo& declared = session->inputs()[i];
    const InputSpec& spec = model_->inputs[i];
    EXPECT_EQ(declared.name, spec.name);
    EXPECT_EQ(declared.dtype, spec.dtype.value());
    ExpectFits(declared, spec.shape.value());
  }

  Result<std::vector<NamedTensor>> inputs = RealModelInputs(*model_);
  ASSERT_TRUE(inputs.ok()) << inputs.status().ToString();
  Result<std::vector<NamedTensor>> outputs = session->Run(*inputs);
  ASSERT_TRUE(outputs.ok()) << outputs.status().ToString();
  ASSERT_EQ(outputs->size(), session->outputs().size());
  for (size_t i = 0; i < outputs->size(); ++i) {
    const ValueInfo& declared = session->outputs()[i];
    const Tensor& tensor = (*outputs)[i].tensor;
    EXPECT_EQ((*outputs)[i].name, declared.name);
    EXPECT_EQ(tensor.dtype(), declared.dtype);
    ExpectFits(declared, tensor.shape());
    EXPECT_GT(tensor.element_count(), 0);
    if (tensor.dtype() == DataType::kFloat) {
      for (float v : tensor.span<float>()) ASSERT_TRUE(std::isfinite(v)) << declared.name;
    }
  }

  // ORT with all optimisations against the exact (unoptimised) reference: shows the rounding
  // gap that optimisations alone introduce, a guide for the table's tolerances.
  Result<std::vector<NamedTensor>> reference =
      ReferenceOutputs(model_->path().string(), *inputs);
  ASSERT_TRUE(reference.ok()) << reference.status().ToString();
  ASSERT_EQ(reference->size(), outputs->size());
  for (size_t i = 0; i < outputs->size(); ++i) {
    ASSERT_EQ((*reference)[i].name, (*outputs)[i].name);
    ASSERT_EQ((*reference)[i].tensor.shape(), (*outputs)[i].tensor.shape());
    if ((*outputs)[i].tensor.dtype() != DataType::kFloat) continue;
    const auto [gap, close] = Compare((*outputs)[i].tensor, (*reference)[i].tensor,
                                      model_->rtol, model_->atol);
    std::cout << model_->name << " output '" << (*outputs)[i].name << "' "
              << (*outputs)[i].tensor.Description() << ": optimised vs unoptimised max |gap| "
              << gap << (close ? " (within" : " (OUTSIDE") << " rtol " << model_->rtol
              << ", atol " << model_->atol << ")\n";
  }

  const double one_thread = MedianRunMilliseconds(*session, *inputs);
  options.intra_op_threads = 2;
  Result<OracleSession> two = oracle().CreateSession(model_->path().string(), options);
  ASSERT_TRUE(two.ok()) << two.status().ToString();
  const double two_threads = MedianRunMilliseconds(*two, *inputs);
  std::cout << "ORT " << oracle().version() << " " << model_->name
            << " median latency: " << one_thread << " ms (1 thread), " << two_threads
            << " ms (2 threads)\n";
  RecordProperty("ort_median_ms_1_thread", std::to_string(one_thread));
  RecordProperty("ort_median_ms_2_threads", std::to_string(two_threads));
}

class StatefulRealModelTest : public RealModelTest {};

TEST_P(StatefulRealModelTest, StreamsWithStateFedBack) {
  Result<OracleSession> session = oracle().CreateSession(model_->path().string());
  ASSERT_TRUE(session.ok()) << session.status().ToString();
  // Chunk k uses seed k; each step's state outputs become the next step's state inputs.
  std::vector<float> probabilities;
  std::vector<NamedTensor> state;
  for (uint64_t chunk = 0; chunk < 20; ++chunk) {
    Result<std::vector<NamedTensor>> inputs = RealModelInputs(*model_, chunk);
    ASSERT_TRUE(inputs.ok()) << inputs.status().ToString();
    for (NamedTensor& input : *inputs) {
      for (const NamedTensor& carried : state) {
        if (carried.name == input.name) input.tensor = carried.tensor;
      }
    }
    Result<std::vector<NamedTensor>> outputs = session->Run(*inputs);
    ASSERT_TRUE(outputs.ok()) << "chunk " << chunk << ": " << outputs.status().ToString();
    state.clear();
    for (const auto& [output_name, input_name] : model_->state_feedback) {
      for (const NamedTensor& output : *outputs) {
        if (output.name == output_name) state.push_back({input_name, output.tensor});
      }
    }
    ASSERT_EQ(state.size(), model_->state_feedback.size());
    const float probability = (*outputs)[0].tensor.data<float>()[0];
    EXPECT_TRUE(probability >= 0.0f && probability <= 1.0f) << probability;
    probabilities.push_back(probability);
  }
  // The state carries information: the same chunk gives another answer after 19 others.
  Result<std::vector<NamedTensor>> fresh = session->Run(RealModelInputs(*model_, 19).value());
  ASSERT_TRUE(fresh.ok());
  EXPECT_NE((*fresh)[0].tensor.data<float>()[0], probabilities.back());
}

// The table and the bootstrap script's model list (scripts/models.txt) name the same models.
TEST(RealModelTableTest, CoversEveryModelTheBootstrapFetches) {
  std::ifstream list(std::filesystem::path(NXRT_SOURCE_DIR) / "scripts" / "models.txt");
  ASSERT_TRUE(list.good());
  std::set<std::string> fetched;
  for (std::string line; std::getline(list, line);) {
    if (!line.empty() && line[0] != '#') fetched.insert(line.substr(0, line.find(' ')));
  }
  std::set<std::string> tabled;
  for (const RealModel& model : RealModels()) {
    tabled.insert(model.name);
    for (const InputSpec& spec : model.inputs) {
      EXPECT_TRUE(spec.dtype && spec.shape && spec.values) << model.name << " " << spec.name;
    }
  }
  EXPECT_EQ(tabled, fetched);
}

std::vector<std::string> ModelNames(bool stateful_only) {
  std::vector<std::string> names;
  for (const RealModel& model : RealModels()) {
    if (!stateful_only || !model.state_feedback.empty()) names.push_back(model.name);
  }
  return names;
}

std::string ParamName(const ::testing::TestParamInfo<std::string>& info) { return info.param; }

INSTANTIATE_TEST_SUITE_P(TestData, RealModelTest, ::testing::ValuesIn(ModelNames(false)),
                         ParamName);
INSTANTIATE_TEST_SUITE_P(TestData, StatefulRealModelTest, ::testing::ValuesIn(ModelNames(true)),
                         ParamName);

}  // namespace
}  // namespace nxrt::oracle
