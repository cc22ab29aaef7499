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
// Maps (ONNX-ML's DictVectorizer and CastMap inputs) come from JSON files, --map-input
// NAME=FILE: {"key_type": "int64"|"string", "value_type": "int64"|"float"|"double"|"string",
// "keys": [...], "values": [...]}, or a list of such objects for a sequence of maps. Map and
// sequence-of-map outputs are printed as their type and written by --output-dir as FILE.json in
// the same form.
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
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <sstream>

#include <unistd.h>

#include <nlohmann/json.hpp>

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
  std::vector<std::string> map_inputs;
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

// The session's inputs, less those named in `skip` (given by --map-input).
std::vector<nxrt::ValueInfo> NxrtInputs(const OracleSession& session,
                                        const std::set<std::string>& skip = {}) {
  std::vector<nxrt::ValueInfo> inputs;
  for (const ValueInfo& input : session.inputs()) {
    if (!skip.count(input.name)) inputs.push_back(ToNxrtValueInfo(input));
  }
  return inputs;
}

Result<DataType> MapDtype(const nlohmann::json& object, const char* field) {
  const std::string name = object.value(field, "");
  for (DataType t : {DataType::kInt64, DataType::kFloat, DataType::kDouble, DataType::kString}) {
    if (name == DataTypeName(t)) return t;
  }
  return MakeStatus(StatusCode::kInvalidArgument, "\"", field, "\" is \"", name,
                    "\"; give int64, float, double or string");
}

Result<Tensor> MapTensor(const nlohmann::json& items, DataType dtype) {
  if (!items.is_array()) {
    return MakeStatus(StatusCode::kInvalidArgument, "\"keys\" and \"values\" must be arrays");
  }
  NXRT_ASSIGN_OR_RETURN(Tensor t, Tensor::Allocate(dtype, {static_cast<int64_t>(items.size())}));
  for (size_t i = 0; i < items.size(); ++i) {
    switch (dtype) {
      case DataType::kInt64: t.mutable_data<int64_t>()[i] = items[i].get<int64_t>(); break;
      case DataType::kFloat: t.mutable_data<float>()[i] = items[i].get<float>(); break;
      case DataType::kDouble: t.mutable_data<double>()[i] = items[i].get<double>(); break;
      default: t.mutable_data<std::string>()[i] = items[i].get<std::string>(); break;
    }
  }
  return t;
}

// One map of the --map-input JSON form.
Result<Value> MapFromJson(const nlohmann::json& object) {
  if (!object.is_object()) {
    return MakeStatus(StatusCode::kInvalidArgument, "a map is a JSON object with key_type, "
                      "value_type, keys and values");
  }
  NXRT_ASSIGN_OR_RETURN(DataType key, MapDtype(object, "key_type"));
  NXRT_ASSIGN_OR_RETURN(DataType value, MapDtype(object, "value_type"));
  NXRT_ASSIGN_OR_RETURN(Tensor keys, MapTensor(object.value("keys", nlohmann::json()), key));
  NXRT_ASSIGN_OR_RETURN(Tensor values, MapTensor(object.value("values", nlohmann::json()), value));
  return Value::Map(keys, values);
}

// --map-input NAME=FILE: a map, or a list of maps (a sequence of maps).
Result<NamedValue> ReadMapInput(const std::string& spec) {
  const size_t eq = spec.find('=');
  if (eq == std::string::npos || eq == 0) {
    return MakeStatus(StatusCode::kInvalidArgument, "--map-input '", spec,
                      "': expected NAME=FILE.json");
  }
  const std::string name = spec.substr(0, eq), file = spec.substr(eq + 1);
  std::ifstream in(file);
  if (!in) return MakeStatus(StatusCode::kIoError, "--map-input '", spec, "': cannot open ", file);
  const nlohmann::json json = nlohmann::json::parse(in, nullptr, false);
  Result<Value> value = [&]() -> Result<Value> {
    if (!json.is_array()) return MapFromJson(json);
    std::vector<Value> maps;
    for (const nlohmann::json& item : json) {
      NXRT_ASSIGN_OR_RETURN(Value map, MapFromJson(item));
      maps.push_back(std::move(map));
    }
    if (maps.empty()) {
      return MakeStatus(StatusCode::kInvalidArgument, "an empty list gives no map type");
    }
    const DataType key = maps.front().map_key_dtype(), element = maps.front().dtype();
    return Value::MapSequence(key, element, std::move(maps));
  }();
  if (!value.ok()) return value.status().WithContext("--map-input '" + spec + "'");
  return NamedValue{name, std::move(value).value()};
}

// Inputs from the flags over the real-model table's specs when MODEL is one of them, then the
// --map-input maps.
Result<std::vector<NamedValue>> BuildInputs(const Flags& flags, const OracleSession& session) {
  std::vector<InputSpec> base;
  if (const RealModel* real = FindRealModel(fs::path(flags.model).stem().string())) {
    std::cout << "generated inputs follow tests/real_models.h for '" << real->name << "'\n";
    base = real->inputs;
  }
  std::vector<NamedValue> maps;
  std::set<std::string> map_names;
  for (const std::string& spec : flags.map_inputs) {
    NXRT_ASSIGN_OR_RETURN(NamedValue map, ReadMapInput(spec));
    map_names.insert(map.name);
    maps.push_back(std::move(map));
  }
  NXRT_ASSIGN_OR_RETURN(std::vector<NamedTensor> tensors,
                        BuildInputsFromFlags(flags.inputs, NxrtInputs(session, map_names),
                                             flags.random, std::move(base)));
  std::vector<NamedValue> inputs;
  for (NamedTensor& t : tensors) inputs.push_back({std::move(t.name), Value(std::move(t.tensor))});
  for (NamedValue& map : maps) inputs.push_back(std::move(map));
  return inputs;
}

nlohmann::json MapTensorJson(const Tensor& t) {
  nlohmann::json items = nlohmann::json::array();
  for (int64_t i = 0; i < t.element_count(); ++i) {
    switch (t.dtype()) {
      case DataType::kInt64: items.push_back(t.data<int64_t>()[i]); break;
      case DataType::kFloat: items.push_back(t.data<float>()[i]); break;
      case DataType::kDouble: items.push_back(t.data<double>()[i]); break;
      default: items.push_back(t.data<std::string>()[i]); break;
    }
  }
  return items;
}

// A map, or a sequence of maps, in the --map-input JSON form.
nlohmann::json MapJson(const Value& value) {
  if (value.is_map_sequence()) {
    nlohmann::json maps = nlohmann::json::array();
    for (const Value& map : value.maps()) maps.push_back(MapJson(map));
    return maps;
  }
  return {{"key_type", DataTypeName(value.map_key_dtype())},
          {"value_type", DataTypeName(value.dtype())},
          {"keys", MapTensorJson(value.map_keys())},
          {"values", MapTensorJson(value.map_values())}};
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

Status WriteOutputs(const std::string& folder, const std::vector<NamedValue>& outputs) {
  std::error_code error;
  fs::create_directories(folder, error);
  if (error) {
    return MakeStatus(StatusCode::kIoError, "cannot create --output-dir '", folder,
                      "': ", error.message());
  }
  std::set<std::string> used;
  for (size_t i = 0; i < outputs.size(); ++i) {
    std::string stem = FileStem(outputs[i].name);
    if (!used.insert(stem).second) stem += "_" + std::to_string(i);
    used.insert(stem);
    const Value& value = outputs[i].value;
    if (value.is_map() || value.is_map_sequence()) {
      const fs::path path = fs::path(folder) / (stem + ".json");
      std::ofstream(path) << MapJson(value).dump() << "\n";
      std::cout << "wrote '" << outputs[i].name << "' to " << path.string() << "\n";
      continue;
    }
    if (!value.is_tensor()) {
      return MakeStatus(StatusCode::kNotImplemented, "output '", outputs[i].name, "' is ",
                        value.Description(), "; ort_run writes tensors and maps");
    }
    const Tensor& tensor = value.tensor();
    const bool npy = tensor.dtype() != DataType::kBFloat16 && tensor.dtype() != DataType::kString;
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

  NXRT_ASSIGN_OR_RETURN(std::vector<NamedValue> inputs, BuildInputs(flags, session));
  // A value's type and shape, with a summary of a tensor's elements.
  auto describe = [](const Value& value) {
    return value.is_tensor() ? value.Description() + "  " + Summary(value.tensor())
                             : value.Description();
  };
  for (const NamedValue& input : inputs) {
    std::cout << "input '" << input.name << "' " << describe(input.value) << "\n";
  }
  std::vector<double> times;
  std::vector<NamedValue> outputs;
  for (int run = 0; run < flags.repeat; ++run) {
    const Clock::time_point start = Clock::now();
    NXRT_ASSIGN_OR_RETURN(outputs, session.RunValues(inputs));
    times.push_back(std::chrono::duration<double, std::milli>(Clock::now() - start).count());
  }
  for (const NamedValue& output : outputs) {
    std::cout << "output '" << output.name << "' " << describe(output.value) << "\n";
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
  app.add_option("--map-input", flags.map_inputs,
                 "NAME=FILE.json: a map input, or a list of maps (see the file's header)");
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
