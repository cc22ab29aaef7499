// tests/real_models_nxrt_test.cpp: the acceptance suite for real models (docs/testing.md): each
// model of docs/testing.md runs on nxrt's CPU EP and its outputs are compared with ONNX
// Runtime 1.30's for the same fixed-seed inputs (ORT with graph optimisations off, read from the
// reference cache after the first run). Floats within the model's rtol/atol, ints and bools
// exactly. Silero VAD v5 also streams 20 chunks feeding its state back, checked at every step;
// one session serves 4 threads × 50 runs with identical results.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <sstream>
#include <thread>

#include "nxrt/session.h"
#include "ort_oracle/ort_oracle.h"
#include "ort_oracle/reference_cache.h"
#include "ort_oracle/tensor_diff.h"
#include "real_models.h"

namespace nxrt {
namespace {

using oracle::RealModel;

class RealModelTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    model_ = oracle::FindRealModel(GetParam());
    ASSERT_NE(model_, nullptr);
    if (!std::filesystem::exists(model_->path())) {
      GTEST_SKIP() << model_->path() << " is missing: run scripts/bootstrap.sh";
    }
  }
  const RealModel* model_ = nullptr;
};

TEST_P(RealModelTest, MatchesOnnxRuntime) {
  auto inputs = oracle::RealModelInputs(*model_);
  ASSERT_TRUE(inputs.ok()) << inputs.status().ToString();
  auto want = oracle::ReferenceOutputs(model_->path().string(), *inputs);
  ASSERT_TRUE(want.ok()) << want.status().ToString();
  auto session = Session::Create(model_->path().string());
  ASSERT_TRUE(session.ok()) << session.status().ToString();
  auto got = (*session)->Run(*inputs);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  ASSERT_EQ(got->size(), want->size());
  for (size_t i = 0; i < want->size(); ++i) {
    EXPECT_EQ((*got)[i].name, (*want)[i].name);
    EXPECT_EQ(oracle::TensorDiff((*got)[i].tensor, (*want)[i].tensor, model_->rtol, model_->atol),
              "")
        << model_->name << " output '" << (*want)[i].name << "'";
  }
}

INSTANTIATE_TEST_SUITE_P(TestData, RealModelTest,
                         ::testing::Values("ppocrv4_det", "ppocrv4_rec", "silero_vad_v5",
                                           "silero_vad_v4_legacy", "oww_melspectrogram",
                                           "oww_embedding", "oww_hey_jarvis"));

// Streams `chunks` chunks through nxrt and ORT, feeding each one's state outputs back.
void ExpectStreamingMatches(const RealModel& model, int chunks) {
  auto ort = oracle::OrtOracle::Load();
  ASSERT_TRUE(ort.ok()) << ort.status().ToString();
  oracle::OracleOptions ort_options;
  ort_options.optimization = oracle::OptimizationLevel::kDisableAll;
  auto ort_session = ort->CreateSession(model.path().string(), ort_options);
  ASSERT_TRUE(ort_session.ok()) << ort_session.status().ToString();
  auto session = Session::Create(model.path().string());
  ASSERT_TRUE(session.ok()) << session.status().ToString();
  auto first = oracle::RealModelInputs(model, 1);
  ASSERT_TRUE(first.ok());
  std::vector<NamedTensor> ort_in = *first;
  std::vector<NamedTensor> nx_in = *first;
  for (int c = 0; c < chunks; ++c) {
    // A fresh audio chunk per step; the state comes from the previous step.
    auto fresh = oracle::RealModelInputs(model, 100 + static_cast<uint64_t>(c));
    ASSERT_TRUE(fresh.ok());
    for (size_t i = 0; i < ort_in.size(); ++i) {
      if (ort_in[i].name == "input") {
        ort_in[i].tensor = (*fresh)[i].tensor;
        nx_in[i].tensor = (*fresh)[i].tensor;
      }
    }
    auto want = ort_session->Run(ort_in);
    ASSERT_TRUE(want.ok()) << want.status().ToString();
    auto got = (*session)->Run(nx_in);
    ASSERT_TRUE(got.ok()) << "chunk " << c << ": " << got.status().ToString();
    ASSERT_EQ(got->size(), want->size());
    for (size_t i = 0; i < want->size(); ++i) {
      ASSERT_EQ(oracle::TensorDiff((*got)[i].tensor, (*want)[i].tensor, model.rtol, model.atol), "")
          << "chunk " << c << " output '" << (*want)[i].name << "'";
    }
    for (const auto& [out_name, in_name] : model.state_feedback) {
      for (size_t i = 0; i < want->size(); ++i) {
        if ((*want)[i].name != out_name) continue;
        for (size_t k = 0; k < ort_in.size(); ++k) {
          if (ort_in[k].name != in_name) continue;
          ort_in[k].tensor = (*want)[i].tensor;
          nx_in[k].tensor = (*got)[i].tensor;
        }
      }
    }
  }
}

TEST(RealModelStreaming, SileroVadV5TwentyChunksMatchOrtAtEveryStep) {
  const RealModel* model = oracle::FindRealModel("silero_vad_v5");
  ASSERT_NE(model, nullptr);
  if (!std::filesystem::exists(model->path())) GTEST_SKIP() << "run scripts/bootstrap.sh";
  ExpectStreamingMatches(*model, 20);
}

TEST(RealModelConcurrency, FourThreadsFiftyRunsEachAgree) {
  const RealModel* model = oracle::FindRealModel("oww_embedding");
  ASSERT_NE(model, nullptr);
  if (!std::filesystem::exists(model->path())) GTEST_SKIP() << "run scripts/bootstrap.sh";
  SessionOptions options;
  options.intra_op_threads = 2;
  auto session = Session::Create(model->path().string(), options);
  ASSERT_TRUE(session.ok()) << session.status().ToString();
  auto inputs = oracle::RealModelInputs(*model);
  ASSERT_TRUE(inputs.ok());
  auto reference = (*session)->Run(*inputs);
  ASSERT_TRUE(reference.ok()) << reference.status().ToString();
  std::vector<int> mismatches(4, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int run = 0; run < 50; ++run) {
        auto out = (*session)->Run(*inputs);
        if (!out.ok() || out->size() != reference->size()) {
          ++mismatches[t];
          continue;
        }
        for (size_t i = 0; i < out->size(); ++i) {
          const Tensor& a = (*out)[i].tensor;
          const Tensor& b = (*reference)[i].tensor;
          if (a.shape() != b.shape() ||
              std::memcmp(a.raw_data(), b.raw_data(), b.byte_size()) != 0) {
            ++mismatches[t];
          }
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  for (int t = 0; t < 4; ++t) EXPECT_EQ(mismatches[t], 0) << "thread " << t;
}

}  // namespace
}  // namespace nxrt
