// nxrt/generate.h: a token-by-token decode loop over an LLM decoder in ONNX Runtime GenAI's form
// (the models its model builder writes), with the KV cache written in place.
//
// Public API (std only; src/runtime/generate.cpp).
//
//   auto session = nxrt::Session::Create("decoder.onnx", options);
//   auto gen = nxrt::Generator::Create(**session, {.max_length = 64});
//   auto report = nxrt::Generate(**gen, prompt_ids, /*max_new_tokens=*/32);
//
// The convention (ONNX Runtime GenAI's decoder I/O; batch 1 here):
//   inputs   input_ids int64 [1, S]; attention_mask int64 [1, max_length]; position_ids int64
//            [1, S] when the model has it; past_key_values.L.key / .value float [1, Nkv, P, H]
//            for L = 0, 1, ... (Nkv and H fixed dims)
//   outputs  logits float [1, S, V] (V a fixed dim); present.L.key / .value float
//            [1, Nkv, max(P, T), H]
// The generator binds each layer's past and present to one buffer [1, Nkv, max_length, H]
// (GenAI's past_present_share_buffer): GroupQueryAttention (com.microsoft) reads the past rows
// in place and writes each step's keys and values after them, so no step copies the cache. The
// attention mask is max_length long, 1 for the tokens so far and 0 after, which makes
// GroupQueryAttention's total_sequence_length (the mask's dim 1) max_length and its seqlens_k
// (the mask's sum - 1) the tokens so far - 1, as in GenAI. A step feeds the new tokens only: the
// prompt once (the prefill), then the last token chosen.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "nxrt/node_info.h"
#include "nxrt/session.h"
#include "nxrt/status.h"
#include "nxrt/tensor.h"

namespace nxrt {

// How the next token is chosen from the logits of the last position (ONNX Runtime GenAI's
// search options do_sample, temperature, top_k, top_p, random_seed).
struct SamplingOptions {
  // false: greedy, the token with the largest logit (the lowest id among equal ones); the other
  // fields are then not used.
  bool do_sample = false;
  // > 0: logits are divided by it before the softmax (below 1 sharpens, above 1 flattens).
  float temperature = 1.0f;
  // >= 0: only the top_k largest logits are candidates; 0 means every token.
  int64_t top_k = 0;
  // In (0, 1]: of the candidates, sorted by probability, only the smallest prefix whose
  // probabilities sum to at least top_p (of their total) is kept; 1 keeps all.
  float top_p = 1.0f;
  // Seed of the std::mt19937_64 the draws come from: one seed, one sequence of tokens.
  uint64_t seed = 1;
};

struct GenerationOptions {
  // Tokens the KV cache holds: the prompt plus every generated token, > 0. Memory:
  // 2 * layers * Nkv * max_length * H floats. Rotary caches of the model must have at least
  // this many rows (GroupQueryAttention fails a step naming the position otherwise).
  int64_t max_length = 0;
  SamplingOptions sampling;
};

// One call of the model: feed `inputs` and write the outputs named in `outputs` into the given
// tensors (contiguous, exact dtype and shape; an output may be an input's buffer, the shared
// past/present). What Generator::Create(Session&) does through RunOptions::output_allocator,
// and what an engine with IO binding does (ONNX Runtime: OrtApi::Run with pre-allocated outputs).
using DecoderRunFunction = std::function<Status(const std::vector<NamedTensor>& inputs,
                                                const std::vector<NamedTensor>& outputs)>;

class Generator {
 public:
  // A generator over `session`, which must outlive it. Creating it makes the process's OpenMP
  // workers (nxrt's intra-op threads) sleep as soon as a parallel region ends instead of
  // spinning, unless the environment sets KMP_BLOCKTIME: a step's many short regions are served
  // better so on a loaded machine. Errors (kInvalidArgument): a model that does not follow the
  // convention (naming the missing or unexpected input or output, its declared type, and the
  // fix), bad options (naming the option and its value).
  static Result<std::unique_ptr<Generator>> Create(Session& session,
                                                   const GenerationOptions& options);
  // A generator over any engine: the model's inputs and outputs as declared, and the call that
  // runs it. Errors: those of Create(Session&).
  static Result<std::unique_ptr<Generator>> Create(const std::vector<ValueInfo>& inputs,
                                                   const std::vector<ValueInfo>& outputs,
                                                   DecoderRunFunction run,
                                                   const GenerationOptions& options);
  ~Generator();
  Generator(const Generator&) = delete;
  Generator& operator=(const Generator&) = delete;

  // Starts a sequence (dropping any earlier one): runs the model on `prompt` (token ids, each in
  // [0, vocab_size())) and returns the first generated token, which tokens() then ends with.
  // Errors (kInvalidArgument): an empty prompt, one of max_length() tokens or more, an id out
  // of range (naming its index and value); the model's errors (kRuntimeError, naming the node);
  // kInvalidArgument when the model writes a present of another shape than the shared buffer
  // (its attention does not keep the cache in place).
  Result<int64_t> Prefill(std::span<const int64_t> prompt);
  // Feeds the last token and returns the next one. Errors: kFailedPrecondition before Prefill
  // or once tokens() holds max_length() tokens; the model's errors.
  Result<int64_t> Next();

  // The prompt and the generated tokens so far.
  const std::vector<int64_t>& tokens() const;
  // The logits [vocab_size()] of the last position of the last step: those the last token was
  // chosen from. Valid until the next Prefill or Next.
  std::span<const float> logits() const;
  int64_t vocab_size() const;
  int64_t max_length() const;
  // The number of past_key_values.L pairs.
  int64_t layers() const;

 private:
  struct Impl;
  explicit Generator(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// What Generate measured. Times are steady_clock wall times in milliseconds.
struct GenerationReport {
  std::string runtime;          // set by the caller: "nxrt", "onnxruntime"
  std::string runtime_version;  // set by the caller
  std::string model;            // set by the caller
  int threads = 0;              // set by the caller
  std::vector<int64_t> prompt;
  std::vector<int64_t> generated;  // max_new_tokens of them
  // Prefill: the prompt's run and the choice of the first token (time to first token).
  double time_to_first_token_ms = 0;
  double prefill_tokens_per_second = 0;  // prompt tokens / time to first token
  // The Next calls: generated.size() - 1 of them.
  double decode_ms = 0;
  double decode_tokens_per_second = 0;  // (generated.size() - 1) / decode time; 0 when none
};

// Prefill on `prompt`, then Next until `max_new_tokens` (>= 1) tokens are generated. Errors:
// kInvalidArgument when max_new_tokens < 1 or prompt + max_new_tokens exceeds max_length (naming
// the three numbers); those of Prefill and Next.
Result<GenerationReport> Generate(Generator& generator, std::span<const int64_t> prompt,
                                  int64_t max_new_tokens);

// `length` token ids uniform in [0, vocab) from std::mt19937_64(seed) (each the draw modulo
// vocab): the prompt `nxrt generate --prompt-tokens` and `ort_run --generate` make. Empty when
// length or vocab is below 1.
std::vector<int64_t> RandomPrompt(int64_t length, int64_t vocab, uint64_t seed);

// One JSON line: {"runtime", "runtime_version", "model", "threads", "prompt_tokens",
// "new_tokens", "time_to_first_token_ms", "prefill_tokens_per_second", "decode_ms",
// "decode_tokens_per_second", "prompt", "tokens"} (`nxrt generate --json`, `ort_run --generate
// --json`; bench/decode_side_by_side.py reads it).
std::string GenerationReportJson(const GenerationReport& report);

}  // namespace nxrt
