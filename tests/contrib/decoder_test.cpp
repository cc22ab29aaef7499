// tests/contrib/decoder_test.cpp: the generated decoders (make_decoder.py: GroupQueryAttention
// with rotary and a KV cache, int4 MatMulNBits, (Skip)SimplifiedLayerNormalization) run in nxrt and
// in ONNX Runtime 1.30 for a prompt and then greedy decode steps, each engine feeding its own
// present key/values back as the next step's past. Every step's logits and present key/values
// must agree within fp32 tolerance, and the greedy tokens must be the same.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "nxrt/session.h"
#include "ort_oracle/ort_oracle.h"

namespace nxrt {
namespace {

Tensor Int64s(Shape shape, const std::vector<int64_t>& values) {
  return Tensor::FromVector<int64_t>(std::move(shape), values).value();
}

// max |a - b| / max(1, |b|) over the elements of two float tensors of one shape.
double MaxRelativeError(const Tensor& a, const Tensor& b) {
  EXPECT_EQ(a.shape(), b.shape());
  double worst = 0;
  for (int64_t i = 0; i < std::min(a.element_count(), b.element_count()); ++i) {
    const double x = a.data<float>()[i], y = b.data<float>()[i];
    worst = std::max(worst, std::fabs(x - y) / std::max(1.0, std::fabs(y)));
  }
  return worst;
}

int64_t ArgMaxLast(const Tensor& logits) {
  const int64_t vocab = logits.shape().back();
  const float* last = logits.data<float>() + logits.element_count() - vocab;
  return std::max_element(last, last + vocab) - last;
}

void RunDecoder(const std::string& name, int prompt, int steps) {
  const std::string path = std::string(NXRT_DECODER_MODELS) + "/" + name + ".onnx";
  Result<oracle::OrtOracle> ort = oracle::OrtOracle::Load();
  ASSERT_TRUE(ort.ok()) << ort.status().ToString();
  oracle::OracleOptions ort_options;
  ort_options.intra_op_threads = 1;
  Result<oracle::OracleSession> reference_or = ort->CreateSession(path, ort_options);
  ASSERT_TRUE(reference_or.ok()) << reference_or.status().ToString();
  const oracle::OracleSession& reference = *reference_or;
  SessionOptions options;
  options.intra_op_threads = 1;
  Result<std::unique_ptr<Session>> session = Session::Create(path, options);
  ASSERT_TRUE(session.ok()) << session.status().ToString();

  // The past inputs, from the model's declarations: [batch, kv_heads, past, head_size].
  std::vector<std::pair<std::string, Shape>> pasts;
  for (const oracle::ValueInfo& input : reference.inputs()) {
    if (input.name.rfind("past_key_values.", 0) != 0) continue;
    pasts.emplace_back(input.name, Shape{1, input.dims[1], 0, input.dims[3]});
  }
  std::vector<NamedTensor> ours_past, theirs_past;
  for (const auto& [input, shape] : pasts) {
    ours_past.push_back({input, Tensor::Allocate(DataType::kFloat, shape).value()});
    theirs_past.push_back(ours_past.back());
  }

  std::mt19937 rng(2250);
  std::vector<int64_t> tokens;
  for (int i = 0; i < prompt; ++i) tokens.push_back(static_cast<int64_t>(rng() % 97));
  int64_t total = 0;
  std::vector<int64_t> step_ids = tokens;
  for (int step = 0; step <= steps; ++step) {
    const auto s = static_cast<int64_t>(step_ids.size());
    total += s;
    std::vector<NamedTensor> common = {{"input_ids", Int64s({1, s}, step_ids)},
                                       {"attention_mask",
                                        Int64s({1, total}, std::vector<int64_t>(total, 1))}};
    std::vector<NamedTensor> ours = common, theirs = common;
    ours.insert(ours.end(), ours_past.begin(), ours_past.end());
    theirs.insert(theirs.end(), theirs_past.begin(), theirs_past.end());
    Result<std::vector<NamedTensor>> got_or = (*session)->Run(ours);
    ASSERT_TRUE(got_or.ok()) << name << " step " << step << ": " << got_or.status().ToString();
    Result<std::vector<NamedTensor>> want_or = reference.Run(theirs);
    ASSERT_TRUE(want_or.ok()) << name << " step " << step << ": " << want_or.status().ToString();
    const std::vector<NamedTensor>& got = *got_or;
    const std::vector<NamedTensor>& want = *want_or;
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < got.size(); ++i) {
      ASSERT_EQ(got[i].name, want[i].name);
      EXPECT_LT(MaxRelativeError(got[i].tensor, want[i].tensor), 2e-4)
          << name << " step " << step << " output " << got[i].name;
    }
    const int64_t next = ArgMaxLast(want[0].tensor);
    EXPECT_EQ(ArgMaxLast(got[0].tensor), next) << name << " step " << step;
    // Each engine continues from its own cache.
    for (size_t p = 0; p < pasts.size(); ++p) {
      ours_past[p].tensor = got[p + 1].tensor;
      theirs_past[p].tensor = want[p + 1].tensor;
    }
    step_ids = {next};
  }
}

TEST(GeneratedDecoder, TinyMatchesOnnxRuntimeForThirtyTwoSteps) { RunDecoder("decoder_tiny", 7, 32); }

TEST(GeneratedDecoder, SmallMatchesOnnxRuntimeForThirtyTwoSteps) {
  RunDecoder("decoder_small", 11, 32);
}

}  // namespace
}  // namespace nxrt
