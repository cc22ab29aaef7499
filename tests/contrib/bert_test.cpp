// tests/contrib/bert_test.cpp: the generated BERT encoders in ONNX Runtime's optimizer form
// (make_bert.py: EmbedLayerNormalization, Attention or MultiHeadAttention,
// SkipLayerNormalization, BiasGelu or FastGelu) run in nxrt and in ONNX Runtime 1.30 on batch and
// sequence shapes with odd lengths and padded attention masks. Both outputs must agree within
// fp32 tolerance, and nxrt's CPU EP must claim every node itself (fallback disabled, nothing
// declined), the com.microsoft nodes kept as the model has them.
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <string>
#include <vector>

#include "nxrt/placement.h"
#include "nxrt/session.h"
#include "ort_oracle/ort_oracle.h"
#include "ort_oracle/tensor_diff.h"

namespace nxrt {
namespace {

constexpr double kRtol = 1e-4, kAtol = 1e-5;

std::string ModelPath(const std::string& name) {
  return std::string(NXRT_BERT_MODELS) + "/" + name + ".onnx";
}

// One batch: per row, the half-open range [begin, end) of tokens the attention mask keeps.
struct Batch {
  int64_t sequence;
  std::vector<std::pair<int64_t, int64_t>> kept;
};

std::vector<NamedTensor> MakeInputs(const Batch& batch, uint32_t seed) {
  const auto b = static_cast<int64_t>(batch.kept.size()), s = batch.sequence;
  std::mt19937 rng(seed);
  std::vector<int64_t> ids, types, mask;
  for (int64_t row = 0; row < b; ++row) {
    for (int64_t t = 0; t < s; ++t) {
      const bool kept = t >= batch.kept[row].first && t < batch.kept[row].second;
      ids.push_back(kept ? static_cast<int64_t>(rng() % 101) : 0);  // every vocabulary > 100
      types.push_back(t >= s / 2 ? 1 : 0);
      mask.push_back(kept ? 1 : 0);
    }
  }
  const auto make = [&](const std::vector<int64_t>& v) {
    return Tensor::FromVector<int64_t>({b, s}, v).value();
  };
  return {{"input_ids", make(ids)}, {"token_type_ids", make(types)},
          {"attention_mask", make(mask)}};
}

// The com.microsoft op types of the main graph's claims on `ep`, counted.
std::map<std::string, int> ContribOpsClaimedBy(const PlacementReport& report,
                                               const std::string& ep) {
  std::map<std::string, int> ops;
  for (const PlacementClaim& claim : report.graphs[0].claims) {
    if (claim.ep != ep) continue;
    for (const PlacementNode& node : claim.nodes) {
      if (node.domain == "com.microsoft") ++ops[node.op_type];
    }
  }
  return ops;
}

void RunBert(const std::string& name, const std::map<std::string, int>& contrib_ops,
             const std::vector<Batch>& batches) {
  const std::string path = ModelPath(name);
  Result<oracle::OrtOracle> ort = oracle::OrtOracle::Load();
  ASSERT_TRUE(ort.ok()) << ort.status().ToString();
  Result<oracle::OracleSession> reference = ort->CreateSession(path, {});
  ASSERT_TRUE(reference.ok()) << reference.status().ToString();

  for (int threads : {1, 2}) {
    SessionOptions options;
    options.intra_op_threads = threads;
    options.allow_fallback = false;
    Result<std::unique_ptr<Session>> session = Session::Create(path, options);
    ASSERT_TRUE(session.ok()) << session.status().ToString();
    const PlacementReport placement = (*session)->Placement();
    ASSERT_EQ(placement.graphs.size(), 1u);
    EXPECT_TRUE(placement.complete()) << PlacementReportText(placement);
    EXPECT_TRUE(placement.graphs[0].declined.empty()) << PlacementReportText(placement);
    EXPECT_TRUE(placement.warnings.empty()) << PlacementReportText(placement);
    EXPECT_EQ(ContribOpsClaimedBy(placement, "cpu"), contrib_ops)
        << PlacementReportText(placement);

    uint32_t seed = 2270;
    for (const Batch& batch : batches) {
      const std::string where = name + " batch " + std::to_string(batch.kept.size()) +
                                " sequence " + std::to_string(batch.sequence) + " threads " +
                                std::to_string(threads);
      const std::vector<NamedTensor> inputs = MakeInputs(batch, seed++);
      Result<std::vector<NamedTensor>> got = (*session)->Run(inputs);
      ASSERT_TRUE(got.ok()) << where << ": " << got.status().ToString();
      Result<std::vector<NamedTensor>> want = reference->Run(inputs);
      ASSERT_TRUE(want.ok()) << where << ": " << want.status().ToString();
      ASSERT_EQ(got->size(), 2u);
      ASSERT_EQ(want->size(), 2u);
      for (size_t i = 0; i < got->size(); ++i) {
        ASSERT_EQ((*got)[i].name, (*want)[i].name);
        EXPECT_EQ(oracle::TensorDiff((*got)[i].tensor, (*want)[i].tensor, kRtol, kAtol), "")
            << where << " output " << (*got)[i].name;
      }
    }
  }
}

// Right padding only: Attention reads the key lengths EmbedLayerNormalization counts.
const std::vector<Batch> kRightPadded = {
    {7, {{0, 7}}},
    {16, {{0, 16}, {0, 9}}},
    {33, {{0, 33}, {0, 20}, {0, 1}}},
};
// MultiHeadAttention takes the mask itself: left padding and a masked middle too.
const std::vector<Batch> kAnyPadding = {
    {7, {{0, 7}}},
    {16, {{0, 16}, {5, 16}}},
    {33, {{0, 33}, {0, 20}, {12, 31}}},
};

const std::map<std::string, int> AttentionOps(int layers) {
  return {{"EmbedLayerNormalization", 1}, {"Attention", layers},
          {"SkipLayerNormalization", 2 * layers}, {"BiasGelu", layers}};
}

const std::map<std::string, int> MhaOps(int layers) {
  return {{"EmbedLayerNormalization", 1}, {"MultiHeadAttention", layers},
          {"SkipLayerNormalization", 2 * layers}, {"FastGelu", layers}};
}

TEST(GeneratedBert, AttentionTinyMatchesOnnxRuntime) {
  RunBert("bert_attention_tiny", AttentionOps(2), kRightPadded);
}

TEST(GeneratedBert, MultiHeadAttentionTinyMatchesOnnxRuntime) {
  RunBert("bert_mha_tiny", MhaOps(2), kAnyPadding);
}

TEST(GeneratedBert, AttentionSmallMatchesOnnxRuntime) {
  RunBert("bert_attention_small", AttentionOps(4), kRightPadded);
}

TEST(GeneratedBert, MultiHeadAttentionSmallMatchesOnnxRuntime) {
  RunBert("bert_mha_small", MhaOps(4), kAnyPadding);
}

}  // namespace
}  // namespace nxrt
