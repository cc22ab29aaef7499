// tests/contrib/generate_test.cpp: nxrt/generate.h on the generated decoders (make_decoder.py).
// Greedy tokens and every step's logits must equal ONNX Runtime 1.30's, computed here with ORT's
// own cache handling (each step's present fed back as the next past, no shared buffer); the
// same loop with ORT as the engine (pre-allocated outputs, past and present one buffer, as ORT
// GenAI binds them) must give the same tokens. Sampling is checked against the logits it drew
// from (top-k, top-p sets; the first token's frequencies against the softmax), seeds reproduce,
// and models or arguments outside the convention fail with errors naming the problem.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <memory>
#include <random>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "nxrt/generate.h"
#include "nxrt/session.h"
#include "ort_oracle/ort_oracle.h"

namespace nxrt {
namespace {

std::string ModelPath(const std::string& name) {
  return std::string(NXRT_DECODER_MODELS) + "/" + name + ".onnx";
}

std::vector<int64_t> Prompt(int length, int64_t vocab) {
  std::mt19937 rng(2260);
  std::vector<int64_t> ids;
  for (int i = 0; i < length; ++i) ids.push_back(static_cast<int64_t>(rng() % vocab));
  return ids;
}

GenerationOptions Options(int64_t max_length) {
  GenerationOptions options;
  options.max_length = max_length;
  return options;
}

SamplingOptions Sampled(float temperature, int64_t top_k, float top_p, uint64_t seed) {
  SamplingOptions s;
  s.do_sample = true;
  s.temperature = temperature;
  s.top_k = top_k;
  s.top_p = top_p;
  s.seed = seed;
  return s;
}

int64_t ArgMaxLast(const Tensor& logits) {
  const int64_t vocab = logits.shape().back();
  const float* last = logits.data<float>() + logits.element_count() - vocab;
  return std::max_element(last, last + vocab) - last;
}

// ORT's greedy decoding with ORT's own cache (past of the exact length, present copied out),
// and the last position's logits of each step.
struct OrtGreedy {
  std::vector<int64_t> tokens;
  std::vector<std::vector<float>> logits;
};

OrtGreedy RunOrtGreedy(const oracle::OracleSession& ort, std::vector<int64_t> prompt,
                       int new_tokens) {
  OrtGreedy out;
  std::vector<NamedTensor> pasts;
  for (const oracle::ValueInfo& input : ort.inputs()) {
    if (input.name.rfind("past_key_values.", 0) != 0) continue;
    pasts.push_back(
        {input.name,
         Tensor::Allocate(DataType::kFloat, {1, input.dims[1], 0, input.dims[3]}).value()});
  }
  std::vector<int64_t> ids = std::move(prompt);
  int64_t total = 0;
  for (int step = 0; step < new_tokens; ++step) {
    const auto s = static_cast<int64_t>(ids.size());
    total += s;
    std::vector<NamedTensor> feeds = {
        {"input_ids", Tensor::FromVector<int64_t>({1, s}, ids).value()},
        {"attention_mask",
         Tensor::FromVector<int64_t>({1, total}, std::vector<int64_t>(total, 1)).value()}};
    feeds.insert(feeds.end(), pasts.begin(), pasts.end());
    Result<std::vector<NamedTensor>> got = ort.Run(feeds);
    EXPECT_TRUE(got.ok()) << got.status().ToString();
    if (!got.ok()) return out;
    const Tensor& logits = (*got)[0].tensor;
    const int64_t vocab = logits.shape().back();
    const float* last = logits.data<float>() + logits.element_count() - vocab;
    out.logits.emplace_back(last, last + vocab);
    out.tokens.push_back(ArgMaxLast(logits));
    for (size_t p = 0; p < pasts.size(); ++p) pasts[p].tensor = (*got)[p + 1].tensor;
    ids = {out.tokens.back()};
  }
  return out;
}

class GenerateTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Result<oracle::OrtOracle> ort = oracle::OrtOracle::Load();
    ASSERT_TRUE(ort.ok()) << ort.status().ToString();
    ort_ = std::make_unique<oracle::OrtOracle>(*ort);
  }

  std::unique_ptr<Session> NxrtSession(const std::string& name, int threads = 1) {
    SessionOptions options;
    options.intra_op_threads = threads;
    Result<std::unique_ptr<Session>> session = Session::Create(ModelPath(name), options);
    EXPECT_TRUE(session.ok()) << session.status().ToString();
    return session.ok() ? std::move(*session) : nullptr;
  }

  std::unique_ptr<Generator> Make(Session& session, GenerationOptions options) {
    Result<std::unique_ptr<Generator>> g = Generator::Create(session, options);
    EXPECT_TRUE(g.ok()) << g.status().ToString();
    return g.ok() ? std::move(*g) : nullptr;
  }

  // Greedy: nxrt's tokens and logits at every step against ORT's own loop, and the generator
  // over ORT (shared past/present buffer) against the same tokens.
  void ExpectGreedyMatchesOrt(const std::string& name, int prompt_length, int new_tokens,
                              int threads) {
    oracle::OracleOptions ort_options;
    ort_options.intra_op_threads = 1;
    Result<oracle::OracleSession> ort = ort_->CreateSession(ModelPath(name), ort_options);
    ASSERT_TRUE(ort.ok()) << ort.status().ToString();
    std::unique_ptr<Session> session = NxrtSession(name, threads);
    ASSERT_NE(session, nullptr);
    // Room for a few tokens more than generated: rows past the sequence stay unused.
    const GenerationOptions options = Options(prompt_length + new_tokens + 5);
    std::unique_ptr<Generator> gen = Make(*session, options);
    ASSERT_NE(gen, nullptr);
    const std::vector<int64_t> prompt = Prompt(prompt_length, gen->vocab_size());
    const OrtGreedy want = RunOrtGreedy(*ort, prompt, new_tokens);
    ASSERT_EQ(want.tokens.size(), static_cast<size_t>(new_tokens));
    for (int step = 0; step < new_tokens; ++step) {
      Result<int64_t> token = step == 0 ? gen->Prefill(prompt) : gen->Next();
      ASSERT_TRUE(token.ok()) << name << " step " << step << ": " << token.status().ToString();
      std::span<const float> logits = gen->logits();
      ASSERT_EQ(logits.size(), want.logits[step].size());
      double worst = 0;
      for (size_t i = 0; i < logits.size(); ++i) {
        worst = std::max<double>(worst, std::fabs(logits[i] - want.logits[step][i]) /
                                    std::max(1.0, static_cast<double>(std::fabs(want.logits[step][i]))));
      }
      EXPECT_LT(worst, 2e-4) << name << " step " << step;
      ASSERT_EQ(*token, want.tokens[step]) << name << " step " << step;
    }
    EXPECT_EQ(gen->tokens().size(), prompt.size() + new_tokens);

    // The same loop with ORT as the engine, past and present bound to one buffer.
    std::vector<ValueInfo> inputs, outputs;
    for (const oracle::ValueInfo& v : ort->inputs()) inputs.push_back(oracle::ToNxrtValueInfo(v));
    for (const oracle::ValueInfo& v : ort->outputs()) outputs.push_back(oracle::ToNxrtValueInfo(v));
    const oracle::OracleSession& engine = *ort;
    Result<std::unique_ptr<Generator>> over_ort = Generator::Create(
        inputs, outputs,
        [&engine](const std::vector<NamedTensor>& in, const std::vector<NamedTensor>& out) {
          return engine.RunInto(in, out);
        },
        options);
    ASSERT_TRUE(over_ort.ok()) << over_ort.status().ToString();
    Result<GenerationReport> shared = Generate(**over_ort, prompt, new_tokens);
    ASSERT_TRUE(shared.ok()) << shared.status().ToString();
    EXPECT_EQ(shared->generated, want.tokens) << name << ": ORT with the shared buffer";
    // Generate over nxrt again: a second sequence starts clean.
    Result<GenerationReport> again = Generate(*gen, prompt, new_tokens);
    ASSERT_TRUE(again.ok()) << again.status().ToString();
    EXPECT_EQ(again->generated, want.tokens) << name << ": the second Generate";
    EXPECT_GT(again->decode_tokens_per_second, 0);
    EXPECT_GT(again->prefill_tokens_per_second, 0);
  }

  std::unique_ptr<oracle::OrtOracle> ort_;
};

TEST_F(GenerateTest, TinyGreedyMatchesOnnxRuntime) {
  ExpectGreedyMatchesOrt("decoder_tiny", 7, 40, 1);
}

TEST_F(GenerateTest, SmallGreedyMatchesOnnxRuntime) {
  ExpectGreedyMatchesOrt("decoder_small", 11, 33, 1);
}

TEST_F(GenerateTest, SmallGreedyMatchesOnnxRuntimeOnTwoThreads) {
  ExpectGreedyMatchesOrt("decoder_small", 5, 32, 2);
}

TEST_F(GenerateTest, SamplingIsSeededAndStaysInTheTopSets) {
  std::unique_ptr<Session> session = NxrtSession("decoder_small");
  ASSERT_NE(session, nullptr);
  const int new_tokens = 24;
  GenerationOptions greedy = Options(40);
  std::unique_ptr<Generator> g = Make(*session, greedy);
  ASSERT_NE(g, nullptr);
  const std::vector<int64_t> prompt = Prompt(8, g->vocab_size());
  Result<GenerationReport> greedy_run = Generate(*g, prompt, new_tokens);
  ASSERT_TRUE(greedy_run.ok()) << greedy_run.status().ToString();

  // top_k = 1 keeps only the largest logit: greedy, whatever the temperature and seed.
  GenerationOptions top1 = greedy;
  top1.sampling = Sampled(3.0f, 1, 1.0f, 77);
  std::unique_ptr<Generator> k1 = Make(*session, top1);
  ASSERT_NE(k1, nullptr);
  Result<GenerationReport> k1_run = Generate(*k1, prompt, new_tokens);
  ASSERT_TRUE(k1_run.ok());
  EXPECT_EQ(k1_run->generated, greedy_run->generated);

  // One seed, one sequence; another seed, another (hot sampling over 1001 tokens).
  GenerationOptions hot = greedy;
  hot.sampling = Sampled(2.0f, 0, 1.0f, 5);
  std::vector<std::vector<int64_t>> runs;
  for (uint64_t seed : {5, 5, 6}) {
    hot.sampling.seed = seed;
    std::unique_ptr<Generator> h = Make(*session, hot);
    ASSERT_NE(h, nullptr);
    Result<GenerationReport> r = Generate(*h, prompt, new_tokens);
    ASSERT_TRUE(r.ok());
    runs.push_back(r->generated);
  }
  EXPECT_EQ(runs[0], runs[1]);
  EXPECT_NE(runs[0], runs[2]);
  EXPECT_NE(runs[0], greedy_run->generated);

  // Every sampled token is among the top 5 logits it was drawn from, and within the top-p set
  // (the most likely tokens whose softmax reaches 0.6) computed here.
  GenerationOptions top_k = greedy;
  top_k.sampling = Sampled(1.5f, 5, 1.0f, 9);
  GenerationOptions top_p = greedy;
  top_p.sampling = Sampled(0.8f, 0, 0.6f, 10);
  for (const GenerationOptions& options : {top_k, top_p}) {
    std::unique_ptr<Generator> s = Make(*session, options);
    ASSERT_NE(s, nullptr);
    std::set<int64_t> distinct;
    for (int step = 0; step < new_tokens; ++step) {
      Result<int64_t> token = step == 0 ? s->Prefill(prompt) : s->Next();
      ASSERT_TRUE(token.ok()) << token.status().ToString();
      distinct.insert(*token);
      std::span<const float> logits = s->logits();
      std::vector<int64_t> order(logits.size());
      std::iota(order.begin(), order.end(), 0);
      std::stable_sort(order.begin(), order.end(),
                       [&](int64_t a, int64_t b) { return logits[a] > logits[b]; });
      std::vector<int64_t> allowed;
      if (options.sampling.top_k > 0) {
        allowed.assign(order.begin(), order.begin() + options.sampling.top_k);
      } else {
        double total = 0;
        for (float l : logits) total += std::exp((l - logits[order[0]]) / 0.8);
        double sum = 0;
        for (int64_t id : order) {
          allowed.push_back(id);
          sum += std::exp((logits[id] - logits[order[0]]) / 0.8);
          if (sum >= 0.6 * total) break;
        }
      }
      EXPECT_NE(std::find(allowed.begin(), allowed.end(), *token), allowed.end())
          << "step " << step << ": token " << *token << " outside the allowed set of "
          << allowed.size();
    }
    EXPECT_GT(distinct.size(), 1u) << "sampling drew one token only";
  }
}

TEST_F(GenerateTest, FirstTokenFrequenciesFollowTheSoftmax) {
  std::unique_ptr<Session> session = NxrtSession("decoder_tiny");
  ASSERT_NE(session, nullptr);
  const std::vector<int64_t> prompt = Prompt(6, 97);
  constexpr int kDraws = 1500;
  std::map<int64_t, int> counts;
  std::vector<float> logits;
  for (int seed = 1; seed <= kDraws; ++seed) {
    GenerationOptions options = Options(8);
    options.sampling = Sampled(0.5f, 0, 1.0f, static_cast<uint64_t>(seed));
    std::unique_ptr<Generator> g = Make(*session, options);
    ASSERT_NE(g, nullptr);
    Result<int64_t> token = g->Prefill(prompt);
    ASSERT_TRUE(token.ok()) << token.status().ToString();
    ++counts[*token];
    if (logits.empty()) logits.assign(g->logits().begin(), g->logits().end());
  }
  const float top = *std::max_element(logits.begin(), logits.end());
  double total = 0;
  for (float l : logits) total += std::exp((l - top) / 0.5);
  for (size_t id = 0; id < logits.size(); ++id) {
    const double p = std::exp((logits[id] - top) / 0.5) / total;
    const double freq = static_cast<double>(counts[static_cast<int64_t>(id)]) / kDraws;
    // Five binomial standard deviations, plus one draw.
    EXPECT_LE(std::fabs(freq - p), 5 * std::sqrt(p * (1 - p) / kDraws) + 1.0 / kDraws)
        << "token " << id << ": drawn " << freq << ", softmax " << p;
  }
}

TEST_F(GenerateTest, BadModelsAndArgumentsAreNamed) {
  std::unique_ptr<Session> session = NxrtSession("decoder_tiny");
  ASSERT_NE(session, nullptr);
  auto no_run = [](const std::vector<NamedTensor>&, const std::vector<NamedTensor>&) {
    return Status::Ok();
  };
  auto expect_error = [](const Status& status, StatusCode code,
                         const std::vector<std::string>& parts) {
    EXPECT_EQ(status.code(), code) << status.ToString();
    for (const std::string& part : parts) {
      EXPECT_NE(status.message().find(part), std::string::npos)
          << "'" << part << "' not in: " << status.message();
    }
  };
  const std::vector<ValueInfo>& inputs = session->inputs();
  const std::vector<ValueInfo>& outputs = session->outputs();
  const GenerationOptions options = Options(16);

  // Without input_ids: the missing input, the model's inputs and the fix.
  std::vector<ValueInfo> renamed = inputs;
  renamed[0].name = "tokens";
  expect_error(Generator::Create(renamed, outputs, no_run, options).status(),
               StatusCode::kInvalidArgument,
               {"no input 'input_ids'", "tokens", "model builder"});
  // A present output missing.
  std::vector<ValueInfo> fewer = outputs;
  fewer.pop_back();
  expect_error(Generator::Create(inputs, fewer, no_run, options).status(),
               StatusCode::kInvalidArgument, {"no output 'present.1.value'"});
  // An input the convention does not have.
  std::vector<ValueInfo> more = inputs;
  more.push_back(inputs[0]);
  more.back().name = "token_type_ids";
  expect_error(Generator::Create(more, outputs, no_run, options).status(),
               StatusCode::kInvalidArgument, {"token_type_ids", "not one the generator feeds"});
  // A past of another dtype.
  std::vector<ValueInfo> half = inputs;
  for (ValueInfo& v : half) {
    if (v.name == "past_key_values.0.key") v.dtype = DataType::kFloat16;
  }
  expect_error(Generator::Create(half, outputs, no_run, options).status(),
               StatusCode::kInvalidArgument, {"past_key_values.0.key", "float16"});
  // Options.
  expect_error(Generator::Create(*session, Options(0)).status(),
               StatusCode::kInvalidArgument, {"max_length is 0"});
  GenerationOptions cold = options;
  cold.sampling = Sampled(0.0f, 0, 1.0f, 1);
  expect_error(Generator::Create(*session, cold).status(), StatusCode::kInvalidArgument,
               {"temperature is 0"});
  GenerationOptions wide = options;
  wide.sampling = Sampled(1.0f, 0, 1.5f, 1);
  expect_error(Generator::Create(*session, wide).status(), StatusCode::kInvalidArgument,
               {"top_p is 1.5", "(0, 1]"});

  std::unique_ptr<Generator> g = Make(*session, options);
  ASSERT_NE(g, nullptr);
  expect_error(g->Next().status(), StatusCode::kFailedPrecondition, {"before Prefill"});
  const std::vector<int64_t> long_prompt(16, 3);
  expect_error(g->Prefill(long_prompt).status(), StatusCode::kInvalidArgument,
               {"16 tokens", "use 1 to 15"});
  expect_error(g->Prefill(std::vector<int64_t>{1, 97}).status(), StatusCode::kInvalidArgument,
               {"prompt token 1 is 97", "[0, 97)"});
  expect_error(Generate(*g, std::vector<int64_t>(10, 1), 7).status(),
               StatusCode::kInvalidArgument, {"max_new_tokens is 7", "use 1 to 6"});
  // The cache is full after max_length tokens.
  ASSERT_TRUE(Generate(*g, std::vector<int64_t>(10, 1), 6).ok());
  expect_error(g->Next().status(), StatusCode::kFailedPrecondition, {"16 tokens"});

  // A cache longer than the model's rotary caches (128 rows): the kernel names the position.
  std::unique_ptr<Generator> too_long = Make(*session, Options(200));
  ASSERT_NE(too_long, nullptr);
  expect_error(too_long->Prefill(std::vector<int64_t>(130, 1)).status(),
               StatusCode::kRuntimeError, {"position 128", "rotary"});
}

}  // namespace
}  // namespace nxrt
