// tools/nxrt/cmd_generate.cpp: `nxrt generate MODEL`: a prompt (given, or drawn from --seed),
// then greedy or sampled decoding through nxrt/generate.h, printing the token ids and the
// prefill and decode speeds (time to first token, tokens per second), as text or one JSON line.
//
// `ort_run --generate` (tests/ort_oracle/ort_run.cpp) runs the same loop over ONNX Runtime, with
// the same flags and JSON; bench/decode_side_by_side.py runs the two alternately.
#include <iostream>
#include <memory>

#include "nxrt/generate.h"
#include "nxrt/session.h"
#include "nxrt/version.h"
#include "session_flags.h"
#include "stats_format.h"
#include "verb.h"

namespace nxrt::cli {
namespace {

struct GenerateFlags {
  std::string model;
  SessionFlags flags;
  int64_t prompt_tokens = 0;
  int64_t max_new_tokens = 32;
  int64_t max_length = 0;
  std::vector<int64_t> prompt;
  float temperature = 1.0f;
  int64_t top_k = 0;
  float top_p = 1.0f;
  uint64_t seed = 1;
  int warmup = 1;
  const CLI::App* command = nullptr;
};

bool Given(const GenerateFlags& o, const char* flag) { return o.command->count(flag) > 0; }

int RunGenerate(const GenerateFlags& o) {
  const SessionFlags& f = o.flags;
  if (!o.prompt.empty() && o.prompt_tokens != 0 &&
      o.prompt_tokens != static_cast<int64_t>(o.prompt.size())) {
    return Fail("generate", MakeStatus(StatusCode::kInvalidArgument, "--prompt-tokens is ",
                                       o.prompt_tokens, " but --prompt gives ", o.prompt.size(),
                                       " ids; give one of the two"));
  }
  if (o.prompt.empty() && o.prompt_tokens < 1) {
    return Fail("generate", MakeStatus(StatusCode::kInvalidArgument,
                                       "no prompt: give --prompt-tokens N (N >= 1 ids drawn "
                                       "from --seed) or --prompt ID,ID,..."));
  }
  Result<SessionOptions> options = MakeSessionOptions(f);
  if (!options.ok()) return Fail("generate", options.status());
  Result<std::unique_ptr<Session>> session = Session::Create(o.model, *options);
  if (!session.ok()) return Fail("generate", session.status());

  const int64_t prompt_length =
      o.prompt.empty() ? o.prompt_tokens : static_cast<int64_t>(o.prompt.size());
  GenerationOptions generator_options;
  generator_options.max_length = o.max_length > 0 ? o.max_length : prompt_length + o.max_new_tokens;
  SamplingOptions& sampling = generator_options.sampling;
  sampling.do_sample = Given(o, "--temperature") || Given(o, "--top-k") || Given(o, "--top-p");
  sampling.temperature = o.temperature;
  sampling.top_k = o.top_k;
  sampling.top_p = o.top_p;
  sampling.seed = o.seed;
  Result<std::unique_ptr<Generator>> generator = Generator::Create(**session, generator_options);
  if (!generator.ok()) return Fail("generate", generator.status().WithContext(o.model));

  const std::vector<int64_t> prompt =
      o.prompt.empty() ? RandomPrompt(prompt_length, (*generator)->vocab_size(), o.seed)
                       : o.prompt;
  for (int i = 0; i < o.warmup; ++i) {
    Result<GenerationReport> warm = nxrt::Generate(**generator, prompt, o.max_new_tokens);
    if (!warm.ok()) return Fail("generate", warm.status().WithContext(o.model));
  }
  Result<GenerationReport> report = nxrt::Generate(**generator, prompt, o.max_new_tokens);
  if (!report.ok()) return Fail("generate", report.status().WithContext(o.model));
  report->runtime = "nxrt";
  report->runtime_version = GetVersionInfo().nxrt;
  report->model = o.model;
  report->threads = f.threads;
  const ExitCode fallback = ReportFallback(f, (*session)->Warnings());
  Status profiled = WriteProfile(f, **session);
  if (!profiled.ok()) return Fail("generate", profiled);
  const int64_t runs = (o.warmup + 1) * o.max_new_tokens;
  if (f.json) {
    std::string json = GenerationReportJson(*report);
    if (f.stats) {
      nlohmann::ordered_json j = nlohmann::ordered_json::parse(json);
      j["stats"] = StatsJson((*session)->Stats(), (*session)->Placement(), runs);
      json = j.dump();
    }
    std::cout << json << "\n";
    return fallback;
  }
  std::cout << "nxrt generate " << o.model << ": " << prompt.size() << " prompt tokens, "
            << report->generated.size() << " new, "
            << (sampling.do_sample ? "sampled" : "greedy") << ", " << f.threads
            << " intra-op thread" << (f.threads == 1 ? "" : "s") << " (0 = one per core)\n";
  std::cout << "prompt:";
  for (int64_t id : prompt) std::cout << " " << id;
  std::cout << "\ntokens:";
  for (int64_t id : report->generated) std::cout << " " << id;
  std::cout << "\nprefill: " << prompt.size() << " tokens, time to first token "
            << report->time_to_first_token_ms << " ms, " << report->prefill_tokens_per_second
            << " tokens/s\ndecode: " << report->generated.size() - 1 << " tokens in "
            << report->decode_ms << " ms, " << report->decode_tokens_per_second
            << " tokens/s\n";
  if (f.stats) std::cout << StatsText((*session)->Stats(), (*session)->Placement(), runs);
  if (!f.profile.empty()) std::cout << "wrote profile " << f.profile << "\n";
  return fallback;
}

}  // namespace

void AddGenerateCommand(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<GenerateFlags>();
  CLI::App* cmd = app.add_subcommand(
      "generate",
      "Decode tokens from an LLM decoder in ONNX Runtime GenAI's form: token ids, prefill and "
      "decode tokens/s, time to first token");
  o->command = cmd;
  cmd->add_option("MODEL", o->model, "Path of the .onnx file")->required();
  cmd->add_option("--prompt-tokens", o->prompt_tokens,
                  "Prompt length: ids drawn uniformly from the vocabulary with --seed")
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 40));
  cmd->add_option("--prompt", o->prompt, "The prompt's token ids, comma-separated")
      ->delimiter(',');
  cmd->add_option("--max-new-tokens", o->max_new_tokens, "Tokens to generate")
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 40))
      ->capture_default_str();
  cmd->add_option("--max-length", o->max_length,
                  "Tokens the KV cache holds (prompt + generated); 0 = exactly those")
      ->check(NonNegative())
      ->capture_default_str();
  cmd->add_option("--temperature", o->temperature,
                  "Sample with this temperature (> 0) instead of greedy decoding")
      ->capture_default_str();
  cmd->add_option("--top-k", o->top_k, "Sample from the K most likely tokens (0 = all)")
      ->check(NonNegative())
      ->capture_default_str();
  cmd->add_option("--top-p", o->top_p,
                  "Sample from the most likely tokens whose probabilities reach P, in (0, 1]")
      ->capture_default_str();
  cmd->add_option("--seed", o->seed, "Seed of the generated prompt and of the sampling")
      ->capture_default_str();
  cmd->add_option("--warmup", o->warmup, "Untimed generations first (same prompt)")
      ->check(NonNegative())
      ->capture_default_str();
  AddSessionFlags(*cmd, o->flags, "generate", kSessionGroup | kOutputGroup);
  cmd->callback([o, &exit_code] { exit_code = RunGenerate(*o); });
}

}  // namespace nxrt::cli
