// runtime/generate.cpp: the decode loop of nxrt/generate.h: the GenAI convention read from the
// model's declarations, the shared past/present buffers, token choice, and the timed loop.
#include "nxrt/generate.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <optional>
#include <random>
#include <sstream>
#include <utility>

#include <nlohmann/json.hpp>

#include "core/thread_pool.h"

namespace nxrt {
namespace {

constexpr std::string_view kFix =
    "; the generator runs decoders in ONNX Runtime GenAI's form (input_ids, attention_mask, "
    "past_key_values.N.key/.value -> logits, present.N.key/.value): export the model with "
    "onnxruntime-genai's model builder (python -m onnxruntime_genai.models.builder) or rename "
    "its inputs and outputs so";

const ValueInfo* Find(const std::vector<ValueInfo>& values, const std::string& name) {
  for (const ValueInfo& v : values) {
    if (v.name == name) return &v;
  }
  return nullptr;
}

std::string Names(const std::vector<ValueInfo>& values) {
  std::string out;
  for (const ValueInfo& v : values) out += (out.empty() ? "" : ", ") + v.name;
  return out.empty() ? "(none)" : out;
}

// The declared value `name` of `values` (the model's `what`: "input" or "output"), a tensor of
// `dtype` and rank `rank`.
Result<const ValueInfo*> Require(const std::vector<ValueInfo>& values, std::string_view what,
                                 const std::string& name, DataType dtype, size_t rank,
                                 std::string_view form) {
  const ValueInfo* v = Find(values, name);
  if (v == nullptr) {
    return MakeStatus(StatusCode::kInvalidArgument, "the model has no ", what, " '", name, "' (",
                      form, "); its ", what, "s are ", Names(values), kFix);
  }
  if (v->kind != ValueKind::kTensor || v->dtype != dtype || v->rank() != rank) {
    return MakeStatus(StatusCode::kInvalidArgument, "the model's ", what, " ", v->ToString(),
                      " is not ", form, kFix);
  }
  return v;
}

std::optional<int64_t> FixedDim(const ValueInfo& v, size_t i) {
  const DimInfo& d = (*v.shape)[i];
  return d.is_fixed() ? std::optional<int64_t>(d.value) : std::nullopt;
}

Status CheckSampling(const SamplingOptions& s) {
  if (!s.do_sample) return Status::Ok();
  if (!(s.temperature > 0) || !std::isfinite(s.temperature)) {
    return MakeStatus(StatusCode::kInvalidArgument, "temperature is ", s.temperature,
                      "; use a finite number above 0 (1 leaves the logits as they are)");
  }
  if (s.top_k < 0) {
    return MakeStatus(StatusCode::kInvalidArgument, "top_k is ", s.top_k,
                      "; use 0 (every token) or more");
  }
  if (!(s.top_p > 0 && s.top_p <= 1)) {
    return MakeStatus(StatusCode::kInvalidArgument, "top_p is ", s.top_p,
                      "; use a number in (0, 1] (1 keeps every candidate)");
  }
  return Status::Ok();
}

// A uniform draw in [0, 1) from the generator's 53 high bits (the same on every platform).
double Uniform(std::mt19937_64& rng) { return static_cast<double>(rng() >> 11) * 0x1.0p-53; }

}  // namespace

struct Generator::Impl {
  DecoderRunFunction run;
  GenerationOptions options;
  bool has_position_ids = false;
  int64_t vocab = 0;
  std::vector<std::string> past_names;     // per layer: key, value
  std::vector<std::string> present_names;  // per layer: key, value
  std::vector<Tensor> caches;              // [1, Nkv, max_length, H], one per name
  Tensor attention_mask;                   // [1, max_length]
  Tensor step_ids;                         // [1, 1]
  Tensor step_positions;                   // [1, 1]
  Tensor step_logits;                      // [1, 1, V]
  Tensor last_logits;                      // the last step's logits
  std::vector<int64_t> tokens;
  std::mt19937_64 rng;
  std::vector<std::pair<float, int64_t>> candidates;  // scratch of Choose
  std::vector<NamedTensor> feeds, bound;              // reused by each step

  // Runs one step over `ids` / `positions` [1, S] into `logits` [1, S, V] and chooses the next
  // token from the last position.
  Result<int64_t> Step(const Tensor& ids, const Tensor& positions, const Tensor& logits) {
    feeds.clear();
    feeds.push_back({"input_ids", ids});
    feeds.push_back({"attention_mask", attention_mask});
    if (has_position_ids) feeds.push_back({"position_ids", positions});
    bound.clear();
    bound.push_back({"logits", logits});
    for (size_t i = 0; i < caches.size(); ++i) {
      feeds.push_back({past_names[i], caches[i]});
      bound.push_back({present_names[i], caches[i]});
    }
    NXRT_RETURN_IF_ERROR(run(feeds, bound));
    last_logits = logits;
    const int64_t token = Choose(LastLogits());
    tokens.push_back(token);
    return token;
  }

  std::span<const float> LastLogits() const {
    if (!last_logits.defined()) return {};
    const float* all = last_logits.data<float>();
    return {all + last_logits.element_count() - vocab, static_cast<size_t>(vocab)};
  }

  int64_t Choose(std::span<const float> logits) {
    const SamplingOptions& s = options.sampling;
    if (!s.do_sample) return std::max_element(logits.begin(), logits.end()) - logits.begin();
    candidates.clear();
    for (size_t i = 0; i < logits.size(); ++i) {
      candidates.emplace_back(logits[i] / s.temperature, static_cast<int64_t>(i));
    }
    auto larger = [](const std::pair<float, int64_t>& a, const std::pair<float, int64_t>& b) {
      return a.first > b.first || (a.first == b.first && a.second < b.second);
    };
    size_t keep = candidates.size();
    if (s.top_k > 0 && static_cast<size_t>(s.top_k) < keep) keep = static_cast<size_t>(s.top_k);
    if (keep < candidates.size() || s.top_p < 1) {
      std::partial_sort(candidates.begin(), candidates.begin() + static_cast<ptrdiff_t>(keep),
                        candidates.end(), larger);
      candidates.resize(keep);
    }
    const float top = std::max_element(candidates.begin(), candidates.end())->first;
    std::vector<double> weights(candidates.size());
    double total = 0;
    for (size_t i = 0; i < candidates.size(); ++i) {
      weights[i] = std::exp(static_cast<double>(candidates[i].first - top));
      total += weights[i];
    }
    if (s.top_p < 1) {  // candidates are sorted: keep the prefix reaching top_p of the total
      double sum = 0;
      size_t n = 0;
      while (n < weights.size() && sum < s.top_p * total) sum += weights[n++];
      weights.resize(std::max<size_t>(n, 1));
      total = sum > 0 ? sum : weights[0];
    }
    double u = Uniform(rng) * total;
    for (size_t i = 0; i < weights.size(); ++i) {
      if (u < weights[i]) return candidates[i].second;
      u -= weights[i];
    }
    return candidates[weights.size() - 1].second;  // rounding left u at the very end
  }
};

Generator::Generator(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Generator::~Generator() = default;

Result<std::unique_ptr<Generator>> Generator::Create(Session& session,
                                                     const GenerationOptions& options) {
  // A step opens a parallel region per large product with serial kernels between them; on a
  // loaded machine a spinning worker answers them late (core/thread_pool.h). Here, not in the
  // first step, whose time to first token would pay for starting the OpenMP runtime.
  SleepOpenMpWorkersBetweenRegions();
  Session* s = &session;
  // The present and logits buffers are handed to the kernels through the output allocator;
  // only logits is asked back (and is the bound buffer, unless no kernel computed it).
  DecoderRunFunction run = [s](const std::vector<NamedTensor>& inputs,
                               const std::vector<NamedTensor>& outputs) -> Status {
    std::vector<NamedValue> feeds;
    feeds.reserve(inputs.size());
    for (const NamedTensor& in : inputs) feeds.push_back({in.name, Value(in.tensor)});
    std::vector<char> written(outputs.size(), 0);
    RunOptions run_options;
    run_options.output_allocator = [&](const std::string& name, DataType dtype,
                                       const Shape& shape) -> Result<Tensor> {
      for (size_t i = 0; i < outputs.size(); ++i) {
        if (outputs[i].name != name) continue;
        const Tensor& t = outputs[i].tensor;
        if (t.dtype() != dtype || t.shape() != shape) {
          return MakeStatus(StatusCode::kInvalidArgument, "output '", name, "' is ",
                            DataTypeName(dtype), ShapeToString(shape), ", but the generator "
                            "bound ", t.Description(), " (with a past of max_length rows the "
                            "model must write present in place: GroupQueryAttention with a "
                            "shared past/present buffer)");
        }
        written[i] = 1;
        return t;
      }
      return Tensor::Allocate(dtype, shape);
    };
    NXRT_ASSIGN_OR_RETURN(std::vector<NamedValue> got,
                          s->RunValues(feeds, {outputs[0].name}, run_options));
    const Tensor& logits = got[0].value.tensor();
    if (!written[0]) {
      Tensor dst = outputs[0].tensor;
      if (logits.shape() != dst.shape() || logits.dtype() != dst.dtype()) {
        return MakeStatus(StatusCode::kInvalidArgument, "output '", outputs[0].name, "' is ",
                          logits.Description(), "; expected ", dst.Description());
      }
      std::copy_n(static_cast<const std::byte*>(logits.raw_data()), logits.byte_size(),
                  static_cast<std::byte*>(dst.mutable_raw_data()));
    }
    for (size_t i = 1; i < outputs.size(); ++i) {
      if (!written[i]) {
        return MakeStatus(StatusCode::kInvalidArgument, "output '", outputs[i].name,
                          "' was not written into the shared KV-cache buffer (no kernel step "
                          "computes it with a shape known before it runs)");
      }
    }
    return Status::Ok();
  };
  return Create(session.inputs(), session.outputs(), std::move(run), options);
}

Result<std::unique_ptr<Generator>> Generator::Create(const std::vector<ValueInfo>& inputs,
                                                     const std::vector<ValueInfo>& outputs,
                                                     DecoderRunFunction run,
                                                     const GenerationOptions& options) {
  if (options.max_length < 1) {
    return MakeStatus(StatusCode::kInvalidArgument, "max_length is ", options.max_length,
                      "; use the prompt length plus the tokens to generate");
  }
  NXRT_RETURN_IF_ERROR(CheckSampling(options.sampling));
  auto impl = std::make_unique<Impl>();
  impl->run = std::move(run);
  impl->options = options;
  impl->rng.seed(options.sampling.seed);
  NXRT_RETURN_IF_ERROR(
      Require(inputs, "input", "input_ids", DataType::kInt64, 2, "int64 [batch, sequence]")
          .status());
  NXRT_RETURN_IF_ERROR(Require(inputs, "input", "attention_mask", DataType::kInt64, 2,
                               "int64 [batch, total_sequence]")
                           .status());
  if (Find(inputs, "position_ids") != nullptr) {
    NXRT_RETURN_IF_ERROR(Require(inputs, "input", "position_ids", DataType::kInt64, 2,
                                 "int64 [batch, sequence]")
                             .status());
    impl->has_position_ids = true;
  }
  NXRT_ASSIGN_OR_RETURN(const ValueInfo* logits,
                        Require(outputs, "output", "logits", DataType::kFloat, 3,
                                "float [batch, sequence, vocab]"));
  const std::optional<int64_t> vocab = FixedDim(*logits, 2);
  if (!vocab || *vocab < 1) {
    return MakeStatus(StatusCode::kInvalidArgument, "the model's output ", logits->ToString(),
                      " does not fix the vocabulary size (dim 2); the generator binds logits "
                      "before the run and needs it");
  }
  impl->vocab = *vocab;
  const int64_t max_length = options.max_length;
  for (int64_t layer = 0;; ++layer) {
    const std::string prefix = "past_key_values." + std::to_string(layer) + ".";
    if (Find(inputs, prefix + "key") == nullptr) {
      if (layer > 0) break;
      NXRT_RETURN_IF_ERROR(Require(inputs, "input", prefix + "key", DataType::kFloat, 4,
                                   "float [batch, kv_heads, past_sequence, head_size]")
                               .status());
    }
    for (const char* part : {"key", "value"}) {
      NXRT_ASSIGN_OR_RETURN(const ValueInfo* past,
                            Require(inputs, "input", prefix + part, DataType::kFloat, 4,
                                    "float [batch, kv_heads, past_sequence, head_size]"));
      const std::string present_name = "present." + std::to_string(layer) + "." + part;
      NXRT_RETURN_IF_ERROR(Require(outputs, "output", present_name, DataType::kFloat, 4,
                                   "float [batch, kv_heads, total_sequence, head_size]")
                               .status());
      const std::optional<int64_t> heads = FixedDim(*past, 1), head_size = FixedDim(*past, 3);
      if (!heads || !head_size) {
        return MakeStatus(StatusCode::kInvalidArgument, "the model's input ", past->ToString(),
                          " does not fix kv_heads (dim 1) and head_size (dim 3); the generator "
                          "allocates the KV cache from them");
      }
      NXRT_ASSIGN_OR_RETURN(Tensor cache, Tensor::Allocate(DataType::kFloat,
                                                           {1, *heads, max_length, *head_size}));
      impl->past_names.push_back(past->name);
      impl->present_names.push_back(present_name);
      impl->caches.push_back(std::move(cache));
    }
  }
  for (const ValueInfo& in : inputs) {
    const bool known = in.name == "input_ids" || in.name == "attention_mask" ||
                       in.name == "position_ids" ||
                       std::find(impl->past_names.begin(), impl->past_names.end(), in.name) !=
                           impl->past_names.end();
    if (!known) {
      return MakeStatus(StatusCode::kInvalidArgument, "the model's input ", in.ToString(),
                        " is not one the generator feeds (input_ids, attention_mask, "
                        "position_ids, past_key_values.N.key/.value for N = 0 to ",
                        impl->past_names.size() / 2 - 1, ")", kFix);
    }
  }
  NXRT_ASSIGN_OR_RETURN(impl->attention_mask,
                        Tensor::Allocate(DataType::kInt64, {1, max_length}));
  NXRT_ASSIGN_OR_RETURN(impl->step_ids, Tensor::Allocate(DataType::kInt64, {1, 1}));
  NXRT_ASSIGN_OR_RETURN(impl->step_positions, Tensor::Allocate(DataType::kInt64, {1, 1}));
  NXRT_ASSIGN_OR_RETURN(impl->step_logits,
                        Tensor::Allocate(DataType::kFloat, {1, 1, impl->vocab}));
  return std::unique_ptr<Generator>(new Generator(std::move(impl)));
}

Result<int64_t> Generator::Prefill(std::span<const int64_t> prompt) {
  Impl& g = *impl_;
  const auto length = static_cast<int64_t>(prompt.size());
  if (length < 1 || length >= g.options.max_length) {
    return MakeStatus(StatusCode::kInvalidArgument, "the prompt has ", length, " tokens; use 1 to ",
                      g.options.max_length - 1, " (max_length ", g.options.max_length,
                      " leaves room for the tokens to generate)");
  }
  for (int64_t i = 0; i < length; ++i) {
    if (prompt[i] < 0 || prompt[i] >= g.vocab) {
      return MakeStatus(StatusCode::kInvalidArgument, "prompt token ", i, " is ", prompt[i],
                        "; token ids must be in [0, ", g.vocab, ") (the model's vocabulary)");
    }
  }
  g.tokens.assign(prompt.begin(), prompt.end());
  g.last_logits = Tensor();
  g.rng.seed(g.options.sampling.seed);
  int64_t* mask = g.attention_mask.mutable_data<int64_t>();
  std::fill(mask, mask + g.options.max_length, 0);
  std::fill(mask, mask + length, 1);
  NXRT_ASSIGN_OR_RETURN(Tensor ids, Tensor::FromVector<int64_t>({1, length}, g.tokens));
  std::vector<int64_t> positions(static_cast<size_t>(length));
  for (int64_t i = 0; i < length; ++i) positions[static_cast<size_t>(i)] = i;
  NXRT_ASSIGN_OR_RETURN(Tensor position_ids, Tensor::FromVector<int64_t>({1, length}, positions));
  NXRT_ASSIGN_OR_RETURN(Tensor logits, Tensor::Allocate(DataType::kFloat, {1, length, g.vocab}));
  Result<int64_t> token = g.Step(ids, position_ids, logits);
  if (!token.ok()) g.tokens.clear();
  return token;
}

Result<int64_t> Generator::Next() {
  Impl& g = *impl_;
  if (g.tokens.empty()) {
    return MakeStatus(StatusCode::kFailedPrecondition, "Next was called before Prefill");
  }
  const auto length = static_cast<int64_t>(g.tokens.size());
  if (length >= g.options.max_length) {
    return MakeStatus(StatusCode::kFailedPrecondition, "the sequence holds ", length,
                      " tokens, its max_length; make the generator with a larger max_length");
  }
  g.attention_mask.mutable_data<int64_t>()[length - 1] = 1;
  g.step_ids.mutable_data<int64_t>()[0] = g.tokens.back();
  g.step_positions.mutable_data<int64_t>()[0] = length - 1;
  Result<int64_t> token = g.Step(g.step_ids, g.step_positions, g.step_logits);
  if (!token.ok()) g.tokens.clear();  // the cache may hold part of the step: start again
  return token;
}

const std::vector<int64_t>& Generator::tokens() const { return impl_->tokens; }
std::span<const float> Generator::logits() const { return impl_->LastLogits(); }
int64_t Generator::vocab_size() const { return impl_->vocab; }
int64_t Generator::max_length() const { return impl_->options.max_length; }
int64_t Generator::layers() const { return static_cast<int64_t>(impl_->past_names.size() / 2); }

Result<GenerationReport> Generate(Generator& generator, std::span<const int64_t> prompt,
                                  int64_t max_new_tokens) {
  const auto length = static_cast<int64_t>(prompt.size());
  if (length < 1 || length >= generator.max_length()) return generator.Prefill(prompt).status();
  if (max_new_tokens < 1 || length + max_new_tokens > generator.max_length()) {
    return MakeStatus(StatusCode::kInvalidArgument, "max_new_tokens is ", max_new_tokens,
                      " after a prompt of ", length, " tokens; use 1 to ",
                      generator.max_length() - length, " (max_length ", generator.max_length(),
                      ")");
  }
  using Clock = std::chrono::steady_clock;
  GenerationReport report;
  report.prompt.assign(prompt.begin(), prompt.end());
  const Clock::time_point start = Clock::now();
  NXRT_ASSIGN_OR_RETURN(int64_t first, generator.Prefill(prompt));
  const Clock::time_point prefilled = Clock::now();
  report.generated.push_back(first);
  while (static_cast<int64_t>(report.generated.size()) < max_new_tokens) {
    NXRT_ASSIGN_OR_RETURN(int64_t next, generator.Next());
    report.generated.push_back(next);
  }
  const Clock::time_point done = Clock::now();
  report.time_to_first_token_ms =
      std::chrono::duration<double, std::milli>(prefilled - start).count();
  report.decode_ms = std::chrono::duration<double, std::milli>(done - prefilled).count();
  report.prefill_tokens_per_second =
      report.time_to_first_token_ms > 0
          ? static_cast<double>(length) * 1000 / report.time_to_first_token_ms
          : 0;
  const auto steps = static_cast<double>(report.generated.size() - 1);
  report.decode_tokens_per_second = steps > 0 && report.decode_ms > 0
                                        ? steps * 1000 / report.decode_ms
                                        : 0;
  return report;
}

std::vector<int64_t> RandomPrompt(int64_t length, int64_t vocab, uint64_t seed) {
  std::vector<int64_t> ids;
  if (length < 1 || vocab < 1) return ids;
  std::mt19937_64 rng(seed);
  for (int64_t i = 0; i < length; ++i) {
    ids.push_back(static_cast<int64_t>(rng() % static_cast<uint64_t>(vocab)));
  }
  return ids;
}

std::string GenerationReportJson(const GenerationReport& report) {
  nlohmann::ordered_json json;
  json["runtime"] = report.runtime;
  json["runtime_version"] = report.runtime_version;
  json["model"] = report.model;
  json["threads"] = report.threads;
  json["prompt_tokens"] = report.prompt.size();
  json["new_tokens"] = report.generated.size();
  json["time_to_first_token_ms"] = report.time_to_first_token_ms;
  json["prefill_tokens_per_second"] = report.prefill_tokens_per_second;
  json["decode_ms"] = report.decode_ms;
  json["decode_tokens_per_second"] = report.decode_tokens_per_second;
  json["prompt"] = report.prompt;
  json["tokens"] = report.generated;
  return json.dump();
}

}  // namespace nxrt
