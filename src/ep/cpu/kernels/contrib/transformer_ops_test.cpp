// ep/cpu/kernels/contrib/transformer_ops_test.cpp: the contrib normalisations, activations,
// RotaryEmbedding and GroupQueryAttention as one-node models against ONNX Runtime 1.30's CPU EP
// (BiasAdd, which ORT's CPU EP lacks, against its definition)
// on random shapes (fixed seeds; odd hidden sizes, optional inputs present and absent), within
// fp32 tolerance, and against references written here from the definitions
// (math/contrib/transformer_ops.h, attention.h) for the normalisations and the attention.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "ep/cpu/kernels/contrib/contrib_test_util.h"

namespace nxrt::cpu::kernels::testing {
namespace {

constexpr double kTolerance = 2e-5;

class ContribVsOrt : public ::testing::Test {
 protected:
  void SetUp() override {
    Result<oracle::OrtOracle> ort = oracle::OrtOracle::Load();
    ASSERT_TRUE(ort.ok()) << ort.status().ToString();
    ort_.emplace(std::move(ort).value());
  }
  std::optional<oracle::OrtOracle> ort_;
  std::mt19937 rng_{2230};
};

// (input + skip + bias) normalised per row, in double.
std::vector<double> NormReference(const std::vector<float>& s, int64_t hidden, bool simplified,
                                  const float* gamma, const float* beta, float epsilon) {
  std::vector<double> y(s.size());
  for (size_t r = 0; r < s.size() / static_cast<size_t>(hidden); ++r) {
    const float* row = &s[r * static_cast<size_t>(hidden)];
    double mean = 0, squares = 0;
    for (int64_t i = 0; i < hidden; ++i) mean += row[i];
    mean = simplified ? 0 : mean / static_cast<double>(hidden);
    for (int64_t i = 0; i < hidden; ++i) squares += (row[i] - mean) * (row[i] - mean);
    const double inv = 1 / std::sqrt(squares / static_cast<double>(hidden) + epsilon);
    for (int64_t i = 0; i < hidden; ++i) {
      y[r * static_cast<size_t>(hidden) + static_cast<size_t>(i)] =
          (row[i] - mean) * inv * gamma[i] + (beta != nullptr ? beta[i] : 0.0);
    }
  }
  return y;
}

TEST_F(ContribVsOrt, SkipLayerNormalizationBothFormsMatch) {
  for (int iter = 0; iter < 24; ++iter) {
    const bool simplified = iter % 2 == 1;
    const int64_t batch = RandomInt(rng_, 1, 3), seq = RandomInt(rng_, 1, 5);
    const int64_t hidden = RandomInt(rng_, 1, 70);
    const Shape shape = {batch, seq, hidden};
    const int skip_form = iter % 3;  // [B,S,H], [1,S,H], [S,H]
    const Shape skip_shape = skip_form == 0   ? shape
                             : skip_form == 1 ? Shape{1, seq, hidden}
                                              : Shape{seq, hidden};
    const bool beta = !simplified && iter % 4 == 0;
    const bool bias = iter % 5 < 3;
    const float epsilon = iter % 6 == 0 ? 1e-12f : 1e-5f;
    const Tensor x = RandomFloats(rng_, shape, -2, 2), skip = RandomFloats(rng_, skip_shape, -2, 2);
    const Tensor gamma = RandomFloats(rng_, {hidden}, 0.5, 1.5);
    const Tensor beta_t = RandomFloats(rng_, {hidden}, -1, 1);
    const Tensor bias_t = RandomFloats(rng_, {hidden}, -1, 1);
    cpu::testing::SingleOpModel model(
        simplified ? "SkipSimplifiedLayerNormalization" : "SkipLayerNormalization", 1,
        "com.microsoft");
    model.AddInput(In(x)).AddInput(In(skip)).AddInput(Const(gamma));
    if (!simplified) model.AddInput(beta ? Const(beta_t) : cpu::testing::Omitted());
    if (bias) model.AddInput(Const(bias_t));
    model.AddOutput(DataType::kFloat);
    if (!simplified) model.AddOutput(DataType::kFloat);  // mean
    if (!simplified) model.AddOutput(DataType::kFloat);  // inv_std_var
    if (!simplified) model.AddOutput(DataType::kFloat);  // input_skip_bias_sum
    if (epsilon != 1e-12f) model.AddAttribute(FloatAttr("epsilon", epsilon));
    const std::string what = std::string(simplified ? "simplified " : "") + ShapeToString(shape) +
                             " skip " + ShapeToString(skip_shape) + (beta ? " beta" : "") +
                             (bias ? " bias" : "");
    const std::vector<Tensor> y =
        ExpectMatchesOrt(*ort_, model, {{"x0", x}, {"x1", skip}}, kTolerance, what);
    ASSERT_FALSE(y.empty()) << what;
    std::vector<float> s(static_cast<size_t>(x.element_count()));
    const int64_t skip_rows = skip.element_count() / hidden;
    for (size_t i = 0; i < s.size(); ++i) {
      const int64_t r = static_cast<int64_t>(i) / hidden, c = static_cast<int64_t>(i) % hidden;
      s[i] = x.data<float>()[i] + skip.data<float>()[(r % skip_rows) * hidden + c] +
             (bias ? bias_t.data<float>()[c] : 0.0f);
    }
    ExpectClose(y[0],
                NormReference(s, hidden, simplified, gamma.data<float>(),
                              beta ? beta_t.data<float>() : nullptr, epsilon),
                kTolerance, what + " vs reference");
  }
}

TEST_F(ContribVsOrt, SimplifiedLayerNormalizationMatches) {
  for (int iter = 0; iter < 12; ++iter) {
    const Shape shape = {RandomInt(rng_, 1, 3), RandomInt(rng_, 1, 4), RandomInt(rng_, 1, 65)};
    const int64_t axis = iter % 3 == 2 ? 1 : -1;
    const int64_t hidden = axis == 1 ? shape[1] * shape[2] : shape[2];
    const Shape scale_shape = axis == 1 ? Shape{shape[1], shape[2]} : Shape{shape[2]};
    const Tensor x = RandomFloats(rng_, shape, -3, 3);
    const Tensor scale = RandomFloats(rng_, scale_shape, 0.5, 1.5);
    cpu::testing::SingleOpModel model("SimplifiedLayerNormalization", 17);
    model.AddInput(In(x)).AddInput(Const(scale));
    model.AddOutput(DataType::kFloat).AddOutput(DataType::kFloat);
    model.AddAttribute(IntAttr("axis", axis)).AddAttribute(FloatAttr("epsilon", 1e-6f));
    const std::string what = ShapeToString(shape) + " axis " + std::to_string(axis);
    const std::vector<Tensor> y = ExpectMatchesOrt(*ort_, model, {{"x0", x}}, kTolerance, what);
    ASSERT_FALSE(y.empty()) << what;
    std::vector<float> s(x.data<float>(), x.data<float>() + x.element_count());
    ExpectClose(y[0], NormReference(s, hidden, true, scale.data<float>(), nullptr, 1e-6f),
                kTolerance, what + " vs reference");
  }
}

TEST_F(ContribVsOrt, GeluFamilyAndBiasAddMatch) {
  for (int iter = 0; iter < 20; ++iter) {
    const Shape shape = {RandomInt(rng_, 1, 3), RandomInt(rng_, 1, 5), RandomInt(rng_, 1, 40)};
    const Tensor x = RandomFloats(rng_, shape, -5, 5);
    const Tensor bias = RandomFloats(rng_, {shape[2]}, -1, 1);
    const int op = iter % 5;
    const char* names[] = {"FastGelu", "BiasGelu", "Gelu", "QuickGelu", "BiasAdd"};
    cpu::testing::SingleOpModel model(names[op], 1, "com.microsoft");
    model.AddInput(In(x));
    if (op == 1 || op == 4 || (op == 0 && iter % 2 == 0)) model.AddInput(Const(bias));
    Tensor skip;
    if (op == 4) {
      skip = RandomFloats(rng_, shape, -1, 1);
      model.AddInput(In(skip));
    }
    if (op == 3 && iter % 2 == 1) model.AddAttribute(FloatAttr("alpha", 1.3f));
    model.AddOutput(DataType::kFloat);
    if (op == 4) {
      // ORT 1.30's CPU EP has no BiasAdd kernel: the definition, X + bias + skip.
      NXRT_ASSERT_OK_AND_ASSIGN(std::vector<Tensor> y, model.Run());
      std::vector<double> want;
      for (int64_t i = 0; i < x.element_count(); ++i) {
        want.push_back(static_cast<double>(x.data<float>()[i]) +
                       bias.data<float>()[i % shape[2]] + skip.data<float>()[i]);
      }
      ExpectClose(y[0], want, kTolerance, "BiasAdd " + ShapeToString(shape));
      continue;
    }
    ExpectMatchesOrt(*ort_, model, {{"x0", x}}, kTolerance,
                     std::string(names[op]) + " " + ShapeToString(shape));
  }
}

TEST_F(ContribVsOrt, EmbedLayerNormalizationMatches) {
  for (int iter = 0; iter < 12; ++iter) {
    const int64_t batch = RandomInt(rng_, 1, 3), seq = RandomInt(rng_, 1, 6);
    const int64_t hidden = RandomInt(rng_, 2, 33), vocab = RandomInt(rng_, 5, 30);
    const bool segments = iter % 2 == 0, mask = iter % 3 != 1, positions = iter % 4 == 3;
    const auto ids = [&](int64_t rows) {
      std::vector<int32_t> v;
      for (int64_t i = 0; i < batch * seq; ++i) v.push_back(static_cast<int32_t>(rng_() % rows));
      return Tensor::FromVector<int32_t>({batch, seq}, v).value();
    };
    const Tensor input_ids = ids(vocab), segment_ids = ids(2), mask_t = ids(2);
    const Tensor position_ids = ids(seq + 2);
    cpu::testing::SingleOpModel model("EmbedLayerNormalization", 1, "com.microsoft");
    model.AddInput(In(input_ids)).AddInput(segments ? In(segment_ids) : cpu::testing::Omitted());
    model.AddInput(Const(RandomFloats(rng_, {vocab, hidden}, -1, 1)));
    model.AddInput(Const(RandomFloats(rng_, {seq + 2, hidden}, -1, 1)));
    model.AddInput(segments ? Const(RandomFloats(rng_, {2, hidden}, -1, 1))
                            : cpu::testing::Omitted());
    model.AddInput(Const(RandomFloats(rng_, {hidden}, 0.5, 1.5)));
    model.AddInput(Const(RandomFloats(rng_, {hidden}, -0.5, 0.5)));
    model.AddInput(mask ? In(mask_t) : cpu::testing::Omitted());
    if (positions) model.AddInput(In(position_ids));
    model.AddOutput(DataType::kFloat).AddOutput(DataType::kInt32).AddOutput(DataType::kFloat);
    std::vector<NamedTensor> feeds = {{"x0", input_ids}};
    if (segments) feeds.push_back({"x1", segment_ids});
    if (mask) feeds.push_back({"x7", mask_t});
    if (positions) feeds.push_back({"x8", position_ids});
    std::string what = ShapeToString(Shape{batch, seq});
    what += " H=" + std::to_string(hidden);
    if (segments) what += " segments";
    if (mask) what += " mask";
    if (positions) what += " position_ids";
    Result<std::vector<Tensor>> want = RunOrt(*ort_, model, feeds);
    ASSERT_TRUE(want.ok()) << what << ": " << want.status().ToString();
    Result<std::vector<Tensor>> got = model.Run();
    ASSERT_TRUE(got.ok()) << what << ": " << got.status().ToString();
    ExpectClose((*got)[0], AsDoubles((*want)[0]), kTolerance, what + " output");
    ExpectClose((*got)[2], AsDoubles((*want)[2]), kTolerance, what + " embedding_sum");
    EXPECT_EQ(Values<int32_t>((*got)[1]), Values<int32_t>((*want)[1])) << what << " mask_index";
  }
}

TEST_F(ContribVsOrt, MultiHeadAttentionAndAttentionMatch) {
  for (int iter = 0; iter < 16; ++iter) {
    const bool fused = iter % 2 == 1;  // Attention, with its own projection
    const int64_t batch = RandomInt(rng_, 1, 2), seq = RandomInt(rng_, 1, 6);
    const int64_t kv_seq = fused ? seq : RandomInt(rng_, 1, 7);
    const int64_t heads = RandomInt(rng_, 1, 3), head_size = RandomInt(rng_, 1, 9);
    const int64_t d = heads * head_size;
    const int mask_kind = iter % 3;  // none, [B, L] 0/1, [B] lengths
    std::vector<int32_t> mask_values;
    for (int64_t b = 0; b < batch; ++b) {
      if (mask_kind == 2) mask_values.push_back(static_cast<int32_t>(RandomInt(rng_, 1, kv_seq)));
      for (int64_t j = 0; mask_kind == 1 && j < kv_seq; ++j) {
        mask_values.push_back(j == 0 || rng_() % 4 != 0 ? 1 : 0);
      }
    }
    const Tensor mask = mask_kind == 0 ? Tensor()
                        : Tensor::FromVector<int32_t>(
                              mask_kind == 1 ? Shape{batch, kv_seq} : Shape{batch}, mask_values)
                              .value();
    const bool unidirectional = fused && iter % 4 == 3;
    const bool attention_bias = iter % 5 == 2;
    const Tensor bias_t = RandomFloats(rng_, {1, heads, seq, kv_seq}, -1, 1);
    std::vector<NamedTensor> feeds;
    cpu::testing::SingleOpModel model(fused ? "Attention" : "MultiHeadAttention", 1,
                                      "com.microsoft");
    if (fused) {
      const int64_t din = RandomInt(rng_, 1, 12);
      const Tensor x = RandomFloats(rng_, {batch, seq, din}, -1, 1);
      model.AddInput(In(x)).AddInput(Const(RandomFloats(rng_, {din, 3 * d}, -1, 1)));
      model.AddInput(Const(RandomFloats(rng_, {3 * d}, -0.5, 0.5)));
      feeds.push_back({"x0", x});
    } else {
      const Tensor q = RandomFloats(rng_, {batch, seq, d}, -1, 1);
      const Tensor k = RandomFloats(rng_, {batch, kv_seq, d}, -1, 1);
      const Tensor v = RandomFloats(rng_, {batch, kv_seq, d}, -1, 1);
      model.AddInput(In(q)).AddInput(In(k)).AddInput(In(v));
      model.AddInput(iter % 4 == 0 ? Const(RandomFloats(rng_, {3 * d}, -0.5, 0.5))
                                   : cpu::testing::Omitted());
      feeds = {{"x0", q}, {"x1", k}, {"x2", v}};
    }
    model.AddInput(mask_kind == 0 ? cpu::testing::Omitted() : In(mask));
    if (mask_kind != 0) feeds.push_back({fused ? "x3" : "x4", mask});
    if (attention_bias) {
      if (fused) model.AddInput(cpu::testing::Omitted());  // past
      model.AddInput(In(bias_t));
      feeds.push_back({"x5", bias_t});
    }
    model.AddOutput(DataType::kFloat);
    model.AddAttribute(IntAttr("num_heads", heads));
    if (unidirectional) model.AddAttribute(IntAttr("unidirectional", 1));
    ExpectMatchesOrt(*ort_, model, feeds, 1e-4,
                     std::string(fused ? "Attention" : "MHA") + " B=" + std::to_string(batch) +
                         " S=" + std::to_string(seq) + " L=" + std::to_string(kv_seq) +
                         " N=" + std::to_string(heads) + " H=" + std::to_string(head_size) +
                         " mask " + std::to_string(mask_kind) +
                         (unidirectional ? " causal" : "") +
                         (attention_bias ? " attention_bias" : ""));
  }
}

TEST_F(ContribVsOrt, FusedMatMulMatches) {
  for (int iter = 0; iter < 16; ++iter) {
    const int64_t m = RandomInt(rng_, 1, 9), k = RandomInt(rng_, 1, 17), n = RandomInt(rng_, 1, 13);
    const bool trans_a = iter % 2 == 1, trans_b = iter % 4 >= 2;
    const int64_t batch = RandomInt(rng_, 1, 3);
    Shape a_shape = trans_a ? Shape{k, m} : Shape{m, k};
    Shape b_shape = trans_b ? Shape{n, k} : Shape{k, n};
    if (iter % 3 != 0) a_shape.insert(a_shape.begin(), batch);
    if (iter % 3 == 2) b_shape.insert(b_shape.begin(), batch);
    const Tensor a = RandomFloats(rng_, a_shape, -1, 1), b = RandomFloats(rng_, b_shape, -1, 1);
    cpu::testing::SingleOpModel model(iter % 5 == 4 ? "TransposeMatMul" : "FusedMatMul", 1,
                                      "com.microsoft");
    model.AddInput(In(a)).AddInput(In(b)).AddOutput(DataType::kFloat);
    model.AddAttribute(IntAttr("transA", trans_a)).AddAttribute(IntAttr("transB", trans_b));
    if (iter % 2 == 0) model.AddAttribute(FloatAttr("alpha", 0.75f));
    ExpectMatchesOrt(*ort_, model, {{"x0", a}, {"x1", b}}, kTolerance,
                     ShapeToString(a_shape) + " x " + ShapeToString(b_shape));
  }
}

// cos/sin caches of `positions` rows and `half` columns at RoPE's frequencies.
std::pair<Tensor, Tensor> RotaryCaches(int64_t positions, int64_t half) {
  std::vector<float> cos, sin;
  for (int64_t p = 0; p < positions; ++p) {
    for (int64_t i = 0; i < half; ++i) {
      const double angle = p / std::pow(10000.0, static_cast<double>(i) / half);
      cos.push_back(static_cast<float>(std::cos(angle)));
      sin.push_back(static_cast<float>(std::sin(angle)));
    }
  }
  return {Tensor::FromVector<float>({positions, half}, cos).value(),
          Tensor::FromVector<float>({positions, half}, sin).value()};
}

TEST_F(ContribVsOrt, RotaryEmbeddingMatches) {
  for (int iter = 0; iter < 16; ++iter) {
    const int64_t batch = RandomInt(rng_, 1, 2), seq = RandomInt(rng_, 1, 5);
    const int64_t heads = RandomInt(rng_, 1, 3), head_size = 2 * RandomInt(rng_, 2, 8);
    const int64_t rotary_dim = iter % 4 == 3 ? head_size / 2 - (head_size / 2) % 2 : head_size;
    const bool bnsh = iter % 2 == 1, interleaved = iter % 3 == 0;
    const bool single = iter % 5 == 2;
    const int64_t max_position = seq + 8;
    const auto [cos, sin] = RotaryCaches(max_position, rotary_dim / 2);
    const Shape shape = bnsh ? Shape{batch, heads, seq, head_size}
                             : Shape{batch, seq, heads * head_size};
    const Tensor x = RandomFloats(rng_, shape, -1, 1);
    std::vector<int64_t> positions;
    if (single) {
      positions.push_back(RandomInt(rng_, 0, 8));
    } else {
      for (int64_t i = 0; i < batch * seq; ++i) positions.push_back(RandomInt(rng_, 0, max_position - 1));
    }
    const Tensor pos = Tensor::FromVector<int64_t>(
        single ? Shape{1} : Shape{batch, seq}, positions).value();
    cpu::testing::SingleOpModel model("RotaryEmbedding", 1, "com.microsoft");
    model.AddInput(In(x)).AddInput(In(pos)).AddInput(Const(cos)).AddInput(Const(sin));
    model.AddOutput(DataType::kFloat);
    model.AddAttribute(IntAttr("interleaved", interleaved ? 1 : 0));
    if (!bnsh || rotary_dim != head_size) model.AddAttribute(IntAttr("num_heads", heads));
    if (rotary_dim != head_size) model.AddAttribute(IntAttr("rotary_embedding_dim", rotary_dim));
    ExpectMatchesOrt(*ort_, model, {{"x0", x}, {"x1", pos}}, kTolerance,
                     ShapeToString(shape) + " rotary " + std::to_string(rotary_dim) +
                         (interleaved ? " interleaved" : "") + (single ? " one position" : ""));
  }
}

struct GqaCase {
  int64_t batch, seq, heads, kv_heads, head_size, past, window;
  bool prompt, rotary, interleaved, packed;
  int threads = 1;
  std::string Describe() const {
    return "B=" + std::to_string(batch) + " S=" + std::to_string(seq) + " N=" +
           std::to_string(heads) + " Nkv=" + std::to_string(kv_heads) + " H=" +
           std::to_string(head_size) + " past=" + std::to_string(past) + " window=" +
           std::to_string(window) + (prompt ? " prompt" : "") + (rotary ? " rotary" : "") +
           (interleaved ? " interleaved" : "") + (packed ? " packed" : "") + " threads " +
           std::to_string(threads);
  }
};

// Output of the definition (attention.h), in double, from the inputs as given.
std::vector<double> GqaReference(const GqaCase& c, const Tensor& q, const Tensor& k,
                                 const Tensor& v, const Tensor& past_k, const Tensor& past_v,
                                 const Tensor& cos, const Tensor& sin) {
  const int64_t h = c.head_size, half = cos.defined() ? cos.shape()[1] : 0;
  const int64_t past = c.prompt ? 0 : c.past;
  const int64_t qw = c.packed ? (c.heads + 2 * c.kv_heads) * h : c.heads * h;
  const int64_t kw = c.packed ? qw : c.kv_heads * h;
  const float* kp = c.packed ? q.data<float>() + c.heads * h : k.data<float>();
  const float* vp = c.packed ? q.data<float>() + (c.heads + c.kv_heads) * h : v.data<float>();
  const auto rotate = [&](const float* x, int64_t pos) {
    std::vector<double> out(x, x + h);
    if (!c.rotary) return out;
    for (int64_t i = 0; i < half; ++i) {
      const int64_t a = c.interleaved ? 2 * i : i, b = c.interleaved ? 2 * i + 1 : i + half;
      const double co = cos.data<float>()[pos * half + i], si = sin.data<float>()[pos * half + i];
      out[a] = x[a] * co - x[b] * si;
      out[b] = x[b] * co + x[a] * si;
    }
    return out;
  };
  std::vector<double> y;
  for (int64_t b = 0; b < c.batch; ++b) {
    // Keys and values of every position of this entry, per kv head.
    std::vector<std::vector<std::vector<double>>> keys(c.kv_heads), values(c.kv_heads);
    for (int64_t n = 0; n < c.kv_heads; ++n) {
      for (int64_t j = 0; j < past; ++j) {
        const float* pk = past_k.data<float>() + ((b * c.kv_heads + n) * c.past + j) * h;
        const float* pv = past_v.data<float>() + ((b * c.kv_heads + n) * c.past + j) * h;
        keys[n].emplace_back(pk, pk + h);
        values[n].emplace_back(pv, pv + h);
      }
      for (int64_t s = 0; s < c.seq; ++s) {
        keys[n].push_back(rotate(kp + (b * c.seq + s) * kw + n * h, past + s));
        const float* pv = vp + (b * c.seq + s) * kw + n * h;
        values[n].emplace_back(pv, pv + h);
      }
    }
    for (int64_t s = 0; s < c.seq; ++s) {
      for (int64_t n = 0; n < c.heads; ++n) {
        const std::vector<double> qr = rotate(q.data<float>() + (b * c.seq + s) * qw + n * h,
                                              past + s);
        const int64_t kvh = n / (c.heads / c.kv_heads), p = past + s;
        const int64_t first = c.window > 0 ? std::max<int64_t>(0, p - c.window + 1) : 0;
        std::vector<double> w;
        double max_w = -1e300, sum = 0;
        for (int64_t j = first; j <= p; ++j) {
          double d = 0;
          for (int64_t i = 0; i < h; ++i) d += qr[i] * keys[kvh][j][i];
          w.push_back(d / std::sqrt(static_cast<double>(h)));
          max_w = std::max(max_w, w.back());
        }
        for (double& x : w) sum += (x = std::exp(x - max_w));
        for (int64_t i = 0; i < h; ++i) {
          double o = 0;
          for (int64_t j = first; j <= p; ++j) o += w[j - first] / sum * values[kvh][j][i];
          y.push_back(o);
        }
      }
    }
  }
  return y;
}

TEST_F(ContribVsOrt, GroupQueryAttentionMatches) {
  for (int iter = 0; iter < 24; ++iter) {
    GqaCase c;
    c.batch = iter % 6 == 5 ? 2 : 1;
    c.kv_heads = RandomInt(rng_, 1, 2);
    c.heads = c.kv_heads * RandomInt(rng_, 1, 3);
    c.rotary = iter % 2 == 0;
    // ORT wants head sizes that are multiples of 8, and of 16 with rotary embedding.
    c.head_size = (c.rotary ? 16 : 8) * RandomInt(rng_, 1, 3);
    c.prompt = iter % 3 == 0;
    // Some prompts longer than two 6-row tiles of the head products, some pasts longer than two
    // 16-key panels (nn/sgemm_avx2.h).
    c.seq = c.prompt ? RandomInt(rng_, 1, iter % 6 == 0 ? 20 : 6)
                     : (iter % 4 == 1 && c.batch == 1 ? 3 : 1);
    c.past = c.prompt ? 0 : RandomInt(rng_, 1, iter % 8 == 3 ? 40 : 7);
    c.threads = 1 + iter % 2;
    c.window = iter % 5 == 4 ? RandomInt(rng_, 1, 3) : -1;
    c.interleaved = c.rotary && iter % 4 == 2;
    c.packed = iter % 7 == 6;
    const int64_t h = c.head_size, total = c.past + c.seq;
    const Tensor q = RandomFloats(
        rng_, {c.batch, c.seq, (c.packed ? c.heads + 2 * c.kv_heads : c.heads) * h}, -1, 1);
    const Tensor k = RandomFloats(rng_, {c.batch, c.seq, c.kv_heads * h}, -1, 1);
    const Tensor v = RandomFloats(rng_, {c.batch, c.seq, c.kv_heads * h}, -1, 1);
    Tensor past_k, past_v;
    if (!c.prompt) {
      past_k = RandomFloats(rng_, {c.batch, c.kv_heads, c.past, h}, -1, 1);
      past_v = RandomFloats(rng_, {c.batch, c.kv_heads, c.past, h}, -1, 1);
    }
    const auto [cos, sin] = RotaryCaches(total + 4, h / 2);
    const Tensor seqlens =
        Tensor::FromVector<int32_t>({c.batch}, std::vector<int32_t>(c.batch, total - 1)).value();
    const Tensor total_t = Tensor::Scalar(static_cast<int32_t>(total));
    cpu::testing::SingleOpModel model("GroupQueryAttention", 1, "com.microsoft");
    model.AddInput(In(q));
    model.AddInput(c.packed ? cpu::testing::Omitted() : In(k));
    model.AddInput(c.packed ? cpu::testing::Omitted() : In(v));
    model.AddInput(c.prompt ? cpu::testing::Omitted() : In(past_k));
    model.AddInput(c.prompt ? cpu::testing::Omitted() : In(past_v));
    model.AddInput(In(seqlens)).AddInput(Const(total_t));
    if (c.rotary) model.AddInput(Const(cos)).AddInput(Const(sin));
    model.AddOutput(DataType::kFloat).AddOutput(DataType::kFloat).AddOutput(DataType::kFloat);
    model.AddAttribute(IntAttr("num_heads", c.heads)).AddAttribute(IntAttr("kv_num_heads", c.kv_heads));
    if (c.rotary) model.AddAttribute(IntAttr("do_rotary", 1));
    if (c.interleaved) model.AddAttribute(IntAttr("rotary_interleaved", 1));
    if (c.window > 0) model.AddAttribute(IntAttr("local_window_size", c.window));
    // smooth_softmax given as ORT 1.30 shows it to a plugin (its schema default, -1) or as 0:
    // both mean a plain softmax, in ORT and in nxrt.
    if (iter % 3 == 1) model.AddAttribute(IntAttr("smooth_softmax", iter % 2 == 1 ? -1 : 0));
    std::vector<NamedTensor> feeds = {{"x0", q}, {"x5", seqlens}};
    if (!c.packed) {
      feeds.push_back({"x1", k});
      feeds.push_back({"x2", v});
    }
    if (!c.prompt) {
      feeds.push_back({"x3", past_k});
      feeds.push_back({"x4", past_v});
    }
    SessionOptions options;
    options.intra_op_threads = c.threads;
    const std::vector<Tensor> y =
        ExpectMatchesOrt(*ort_, model, feeds, 1e-4, c.Describe(), options);
    ASSERT_FALSE(y.empty()) << c.Describe();
    ExpectClose(y[0], GqaReference(c, q, k, v, past_k, past_v, c.rotary ? cos : Tensor(),
                                   c.rotary ? sin : Tensor()),
                1e-4, c.Describe() + " vs reference");
  }
}

}  // namespace
}  // namespace nxrt::cpu::kernels::testing
