// ort_oracle/ort_run.cpp: `ort_run`, runs a model in ONNX Runtime 1.30 for comparing by hand.
//
// Layer: test tool over nxrt_ort_oracle and nxrt_ir (.npy/.pb files); not installed.
//   ort_run MODEL --random --seed 3 --dim N=1 --threads 2 --output-dir /tmp/ort
//   ort_run MODEL --input x=x.npy --no-opt --plugin build/plugins/libexample_ep.so:example
//   ort_run MODEL --bench --threads 2 --iterations 50 --json
//   ort_run DECODER --generate --prompt-tokens 16 --max-new-tokens 32 --threads 1 --json
// Inputs come from files (--input) or the fixed-seed generator (--random), through the input flags
// shared with `nxrt bench` (nxrt/input_generator.h); for the real models of
// tests/real_models.h (matched by file name) --random uses that table's shapes and ranges unless
// flags override them. It prints the model's inputs and outputs, each output's summary and the
// run times, and writes the outputs as .npy (.pb for bfloat16 and strings, which .npy cannot hold)
// with --output-dir.
// --bench measures like `nxrt bench` (nxrt/bench_report.h: warm-up, timed runs, session
// creation, latency statistics, peak RSS; the same JSON fields with --json). Its inputs follow the
// flags only (no real-model table), as nxrt bench's do, so the same flags feed the same bytes.
// --generate runs nxrt/generate.h's decode loop with ONNX Runtime as the engine (OrtApi::Run
// with pre-allocated outputs, the KV cache shared between past and present as ORT GenAI binds
// it) and prints what `nxrt generate` prints for the same flags (--seed seeds the prompt and the
// sampling; sampling when --temperature, --top-k or --top-p is given).
#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <map>
#include <set>
#include <sstream>

#include <unistd.h>

#include "ir/tensor_io.h"
#include "nxrt/bench_report.h"
#include "nxrt/generate.h"
#include "nxrt/input_generator.h"
#include "ort_oracle/ort_oracle.h"
#include "real_models.h"

namespace nxrt::oracle {
namespace {

namespace fs = std::filesystem;

struct Flags {
  std::string model;
  InputFlags inputs;
  bool random = false;
  int threads = 1;
  bool no_opt = false;
  std::string output_dir;
  std::vector<std::string> plugins;
  std::vector<std::string> config;
  std::string profile;
  int repeat = 1;
  bool info = false;
  bool bench = false;
  BenchConfig bench_config;
  bool json = false;
  bool generate = false;
  int64_t prompt_tokens = 0;
  std::vector<int64_t> prompt;
  int64_t max_new_tokens = 32;
  int64_t max_length = 0;
  float temperature = 1.0f;
  int64_t top_k = 0;
  float top_p = 1.0f;
  bool do_sample = false;
};

// "KEY=VALUE" split at the first '='.
Result<std::pair<std::string, std::string>> SplitConfigEntry(const std::string& text) {
  const size_t eq = text.find('=');
  if (eq == std::string::npos || eq == 0) {
    return MakeStatus(StatusCode::kInvalidArgument, "--config '", text, "': expected KEY=VALUE");
  }
  return std::pair(text.substr(0, eq), text.substr(eq + 1));
}

std::vector<nxrt::ValueInfo> NxrtInputs(const OracleSession& session) {
  std::vector<nxrt::ValueInfo> inputs;
  for (const ValueInfo& input : session.inputs()) inputs.push_back(ToNxrtValueInfo(input));
  return inputs;
}

// Inputs from the flags over the real-model table's specs when MODEL is one of them.
Result<std::vector<NamedTensor>> BuildInputs(const Flags& flags, const OracleSession& session) {
  std::vector<InputSpec> base;
  if (const RealModel* real = FindRealModel(fs::path(flags.model).stem().string())) {
    std::cout << "generated inputs follow tests/real_models.h for '" << real->name << "'\n";
    base = real->inputs;
  }
  return BuildInputsFromFlags(flags.inputs, NxrtInputs(session), flags.random, std::move(base));
}

double ElementAsDouble(const Tensor& t, int64_t i) {
  switch (t.dtype()) {
    case DataType::kFloat: return t.data<float>()[i];
    case DataType::kDouble: return t.data<double>()[i];
    case DataType::kFloat16: return static_cast<float>(t.data<Float16>()[i]);
    case DataType::kBFloat16: return static_cast<float>(t.data<BFloat16>()[i]);
    case DataType::kInt8: return t.data<int8_t>()[i];
    case DataType::kInt16: return t.data<int16_t>()[i];
    case DataType::kInt32: return t.data<int32_t>()[i];
    case DataType::kInt64: return static_cast<double>(t.data<int64_t>()[i]);
    case DataType::kUint8: return t.data<uint8_t>()[i];
    case DataType::kUint16: return t.data<uint16_t>()[i];
    case DataType::kUint32: return t.data<uint32_t>()[i];
    case DataType::kUint64: return static_cast<double>(t.data<uint64_t>()[i]);
    case DataType::kBool: return t.data<uint8_t>()[i];
    default: return 0.0;
  }
}

// "min -0.5  max 0.9  mean 0.1  first 0.25 -0.5 ..." for numbers, the first strings for strings.
std::string Summary(const Tensor& t) {
  std::ostringstream out;
  const int64_t count = t.element_count();
  const int64_t shown = std::min<int64_t>(count, 6);
  if (t.dtype() == DataType::kString) {
    out << "first";
    for (int64_t i = 0; i < shown; ++i) out << " \"" << t.data<std::string>()[i] << '"';
    return out.str();
  }
  if (t.dtype() == DataType::kComplex64 || t.dtype() == DataType::kComplex128) return "(complex)";
  if (count == 0) return "(no elements)";
  double low = ElementAsDouble(t, 0), high = low, sum = 0;
  for (int64_t i = 0; i < count; ++i) {
    const double v = ElementAsDouble(t, i);
    low = std::min(low, v);
    high = std::max(high, v);
    sum += v;
  }
  out << "min " << low << "  max " << high << "  mean " << sum / static_cast<double>(count)
      << "  first";
  for (int64_t i = 0; i < shown; ++i) out << ' ' << ElementAsDouble(t, i);
  if (count > shown) out << " ...";
  return out.str();
}

// A file stem from an output name: characters outside [A-Za-z0-9._-] become '_'.
std::string FileStem(const std::string& name) {
  std::string stem = name.empty() ? "output" : name;
  for (char& c : stem) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '_' && c != '-') c = '_';
  }
  return stem;
}

Status WriteOutputs(const std::string& folder, const std::vector<NamedTensor>& outputs) {
  std::error_code error;
  fs::create_directories(folder, error);
  if (error) {
    return MakeStatus(StatusCode::kIoError, "cannot create --output-dir '", folder,
                      "': ", error.message());
  }
  std::set<std::string> used;
  for (size_t i = 0; i < outputs.size(); ++i) {
    const Tensor& tensor = outputs[i].tensor;
    const bool npy = tensor.dtype() != DataType::kBFloat16 && tensor.dtype() != DataType::kString;
    std::string stem = FileStem(outputs[i].name);
    if (!used.insert(stem).second) stem += "_" + std::to_string(i);
    used.insert(stem);
    const fs::path path = fs::path(folder) / (stem + (npy ? ".npy" : ".pb"));
    NXRT_RETURN_IF_ERROR(npy ? ir::WriteNpy(path, tensor)
                             : ir::WriteTensorProtoFile(path, tensor, outputs[i].name));
    std::cout << "wrote '" << outputs[i].name << "' to " << path.string() << "\n";
  }
  return Status::Ok();
}

void PrintValues(std::string_view title, const std::vector<ValueInfo>& values) {
  std::cout << title << ":\n";
  for (const ValueInfo& value : values) {
    std::cout << "  '" << value.name << "' " << value.Description() << "\n";
  }
}

Result<OracleOptions> SessionOptionsFromFlags(const Flags& flags) {
  OracleOptions options;
  options.intra_op_threads = flags.threads;
  options.optimization = flags.no_opt ? OptimizationLevel::kDisableAll : OptimizationLevel::kAll;
  for (const std::string& spec : flags.plugins) {
    NXRT_ASSIGN_OR_RETURN(PluginEp plugin, ParsePluginSpec(spec));
    options.plugins.push_back(std::move(plugin));
  }
  for (const std::string& entry : flags.config) {
    NXRT_ASSIGN_OR_RETURN(auto pair, SplitConfigEntry(entry));
    options.config_entries.push_back(pair);
  }
  if (!flags.profile.empty()) {
    // ORT writes the trace when the session ends and says nothing if it cannot: check first.
    std::filesystem::path folder = std::filesystem::path(flags.profile).parent_path();
    if (folder.empty()) folder = ".";
    std::error_code error;
    if (!std::filesystem::is_directory(folder, error) || access(folder.c_str(), W_OK) != 0) {
      return MakeStatus(StatusCode::kInvalidArgument, "--profile '", flags.profile, "': folder '",
                        folder.string(), "' is not a writable directory; give a prefix in one, ",
                        "e.g. --profile /tmp/ort_profile");
    }
    options.profile_prefix = flags.profile;
  }
  return options;
}

// --bench: the loop and report of nxrt/bench_report.h, as `nxrt bench` measures.
Status RunBench(const Flags& flags) {
  using Clock = std::chrono::steady_clock;
  const Clock::time_point started = Clock::now();
  NXRT_ASSIGN_OR_RETURN(OrtOracle oracle, OrtOracle::Load());
  const double init_ms = std::chrono::duration<double, std::milli>(Clock::now() - started).count();
  NXRT_ASSIGN_OR_RETURN(OracleOptions options, SessionOptionsFromFlags(flags));
  const Clock::time_point created = Clock::now();
  NXRT_ASSIGN_OR_RETURN(OracleSession session, oracle.CreateSession(flags.model, options));
  BenchReport report;
  report.init_ms = init_ms;
  report.session_ms = std::chrono::duration<double, std::milli>(Clock::now() - created).count();
  NXRT_ASSIGN_OR_RETURN(
      std::vector<NamedTensor> inputs,
      BuildInputsFromFlags(flags.inputs, NxrtInputs(session), /*generate_missing=*/true));
  NXRT_ASSIGN_OR_RETURN(LatencyStats latency, TimeRuns(
                                                  [&]() -> Status {
                                                    Result<std::vector<NamedTensor>> outputs =
                                                        session.Run(inputs);
                                                    return outputs.status();
                                                  },
                                                  flags.bench_config));
  report.runtime = "onnxruntime";
  report.runtime_version = oracle.version();
  report.model = flags.model;
  report.threads = flags.threads;
  report.config = flags.bench_config;
  report.latency = latency;
  report.peak_rss_mib = PeakRssMib();
  report.inputs_digest = InputsDigest(inputs);
  std::cout << (flags.json ? BenchReportJson(report) + "\n" : BenchReportText(report));
  return Status::Ok();
}

// --generate: nxrt/generate.h's loop over this ORT session, as `nxrt generate` runs it.
Status RunGenerate(const Flags& flags) {
  NXRT_ASSIGN_OR_RETURN(OrtOracle oracle, OrtOracle::Load());
  NXRT_ASSIGN_OR_RETURN(OracleOptions options, SessionOptionsFromFlags(flags));
  NXRT_ASSIGN_OR_RETURN(OracleSession session, oracle.CreateSession(flags.model, options));
  std::vector<nxrt::ValueInfo> outputs;
  for (const ValueInfo& output : session.outputs()) outputs.push_back(ToNxrtValueInfo(output));
  const int64_t prompt_length =
      flags.prompt.empty() ? flags.prompt_tokens : static_cast<int64_t>(flags.prompt.size());
  GenerationOptions generator_options;
  generator_options.max_length =
      flags.max_length > 0 ? flags.max_length : prompt_length + flags.max_new_tokens;
  generator_options.sampling = {flags.do_sample, flags.temperature, flags.top_k, flags.top_p,
                                flags.inputs.seed};
  NXRT_ASSIGN_OR_RETURN(
      std::unique_ptr<Generator> generator,
      Generator::Create(NxrtInputs(session), outputs,
                        [&session](const std::vector<NamedTensor>& in,
                                   const std::vector<NamedTensor>& out) {
                          return session.RunInto(in, out);
                        },
                        generator_options));
  const std::vector<int64_t> prompt =
      flags.prompt.empty()
          ? RandomPrompt(prompt_length, generator->vocab_size(), flags.inputs.seed)
          : flags.prompt;
  for (int i = 0; i < flags.bench_config.warmup; ++i) {
    NXRT_RETURN_IF_ERROR(Generate(*generator, prompt, flags.max_new_tokens).status());
  }
  NXRT_ASSIGN_OR_RETURN(GenerationReport report,
                        Generate(*generator, prompt, flags.max_new_tokens));
  report.runtime = "onnxruntime";
  report.runtime_version = oracle.version();
  report.model = flags.model;
  report.threads = flags.threads;
  if (flags.json) {
    std::cout << GenerationReportJson(report) << "\n";
    return Status::Ok();
  }
  std::cout << "tokens:";
  for (int64_t id : report.generated) std::cout << " " << id;
  std::cout << "\nprefill: " << prompt.size() << " tokens, time to first token "
            << report.time_to_first_token_ms << " ms, " << report.prefill_tokens_per_second
            << " tokens/s\ndecode: " << report.generated.size() - 1 << " tokens in "
            << report.decode_ms << " ms, " << report.decode_tokens_per_second << " tokens/s\n";
  return Status::Ok();
}

Status RunTool(const Flags& flags) {
  if (flags.bench) return RunBench(flags);
  if (flags.generate) return RunGenerate(flags);
  NXRT_ASSIGN_OR_RETURN(OrtOracle oracle, OrtOracle::Load());
  NXRT_ASSIGN_OR_RETURN(OracleOptions options, SessionOptionsFromFlags(flags));
  using Clock = std::chrono::steady_clock;
  const Clock::time_point created = Clock::now();
  NXRT_ASSIGN_OR_RETURN(OracleSession session, oracle.CreateSession(flags.model, options));
  const double create_ms =
      std::chrono::duration<double, std::milli>(Clock::now() - created).count();
  std::cout << "ONNX Runtime " << oracle.version() << " (" << oracle.library_path() << ")\n"
            << "model " << flags.model << ": session created in " << create_ms << " ms ("
            << options.intra_op_threads << " intra-op threads, optimisation "
            << OptimizationLevelName(options.optimization) << ")\n";
  PrintValues("inputs", session.inputs());
  PrintValues("outputs", session.outputs());
  if (flags.info) return Status::Ok();

  NXRT_ASSIGN_OR_RETURN(std::vector<NamedTensor> inputs, BuildInputs(flags, session));
  for (const NamedTensor& input : inputs) {
    std::cout << "input '" << input.name << "' " << input.tensor.Description() << "  "
              << Summary(input.tensor) << "\n";
  }
  std::vector<double> times;
  std::vector<NamedTensor> outputs;
  for (int run = 0; run < flags.repeat; ++run) {
    const Clock::time_point start = Clock::now();
    NXRT_ASSIGN_OR_RETURN(outputs, session.Run(inputs));
    times.push_back(std::chrono::duration<double, std::milli>(Clock::now() - start).count());
  }
  for (const NamedTensor& output : outputs) {
    std::cout << "output '" << output.name << "' " << output.tensor.Description() << "  "
              << Summary(output.tensor) << "\n";
  }
  std::cout << "first run: " << times.front() << " ms";
  if (times.size() > 1) {
    std::vector<double> later(times.begin() + 1, times.end());
    std::sort(later.begin(), later.end());
    std::cout << "; the " << later.size() << " later run(s): min " << later.front()
              << " ms, median " << later[later.size() / 2] << " ms";
  }
  std::cout << "\n";
  if (!flags.output_dir.empty()) NXRT_RETURN_IF_ERROR(WriteOutputs(flags.output_dir, outputs));
  return Status::Ok();
}

}  // namespace
}  // namespace nxrt::oracle

int main(int argc, char** argv) {
  nxrt::oracle::Flags flags;
  CLI::App app{"Runs an ONNX model in ONNX Runtime 1.30 (NXRT_ORT_LIBRARY overrides the library)"};
  app.add_option("model", flags.model, "ONNX model file")->required();
  app.add_flag("--random", flags.random, "generate the inputs not given by --input");
  AddInputFlags(app, flags.inputs);
  app.add_option("--threads", flags.threads, "intra-op threads (0: ORT's default)")
      ->capture_default_str();
  app.add_flag("--no-opt", flags.no_opt, "disable graph optimisations (exact reference)");
  app.add_option("--output-dir", flags.output_dir, "write the outputs there");
  app.add_option("--plugin", flags.plugins, "PATH[:registration_name]: plugin EP, in order");
  app.add_option("--config", flags.config, "KEY=VALUE session config entry");
  app.add_option("--profile", flags.profile,
                 "PREFIX: ORT's own profile of every run, a Chrome trace PREFIX_<date>.json");
  app.add_option("--repeat", flags.repeat, "runs; the first is reported apart (warm-up)")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app.add_flag("--info", flags.info, "print the model's inputs and outputs only");
  app.add_flag("--bench", flags.bench,
               "time the model as `nxrt bench` does (inputs from the flags only)");
  app.add_option("--warmup", flags.bench_config.warmup, "--bench: untimed runs first")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  app.add_option("--iterations", flags.bench_config.iterations, "--bench: timed runs (at least)")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app.add_option("--min-seconds", flags.bench_config.min_seconds,
                 "--bench: keep running until the timed runs took this many seconds")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  app.add_flag("--json", flags.json,
               "--bench, --generate: print one JSON object instead of text");
  app.add_flag("--generate", flags.generate,
               "run nxrt's decode loop (nxrt/generate.h) over ORT, as `nxrt generate` does "
               "(--warmup untimed generations first)");
  app.add_option("--prompt-tokens", flags.prompt_tokens,
                 "--generate: prompt length, ids drawn with --seed");
  app.add_option("--prompt", flags.prompt, "--generate: the prompt's ids")->delimiter(',');
  app.add_option("--max-new-tokens", flags.max_new_tokens, "--generate: tokens to generate")
      ->capture_default_str();
  app.add_option("--max-length", flags.max_length,
                 "--generate: KV-cache length (0: prompt + new tokens)")
      ->capture_default_str();
  CLI::Option* temperature =
      app.add_option("--temperature", flags.temperature, "--generate: sample at this temperature");
  CLI::Option* top_k = app.add_option("--top-k", flags.top_k, "--generate: sample from the top K");
  CLI::Option* top_p = app.add_option("--top-p", flags.top_p, "--generate: nucleus sampling");
  CLI11_PARSE(app, argc, argv);
  flags.do_sample = temperature->count() + top_k->count() + top_p->count() > 0;

  const nxrt::Status status = nxrt::oracle::RunTool(flags);
  if (!status.ok()) {
    std::cout.flush();
    std::cerr << "ort_run: error: " << status.ToString() << "\n";
    return 1;
  }
  return 0;
}
