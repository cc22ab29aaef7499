// ort_oracle/ort_run.cpp: `ort_run`, runs a model in ONNX Runtime 1.30 for comparing by hand.
//
// Layer: test tool over nxrt_ort_oracle and nxrt_ir (.npy/.pb files); not installed.
//   ort_run MODEL --random --seed 3 --dim N=1 --threads 2 --output-dir /tmp/ort
//   ort_run MODEL --input x=x.npy --no-opt --plugin build/plugins/libexample_ep.so:example
// Inputs come from files (--input) or the fixed-seed generator (--random); for the real models of
// tests/real_models.h (matched by file name) --random uses that table's shapes and ranges. It
// prints the model's inputs and outputs, each output's summary and the run times, and writes the
// outputs as .npy (.pb for bfloat16 and strings, which .npy cannot hold) with --output-dir.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <map>
#include <set>
#include <sstream>

#include "ir/tensor_io.h"
#include "runtime/input_generator.h"
#include "ort_oracle/ort_oracle.h"
#include "real_models.h"

namespace nxrt::oracle {
namespace {

namespace fs = std::filesystem;

struct Flags {
  std::string model;
  std::vector<std::string> input_files;
  bool random = false;
  uint64_t seed = 1;
  std::vector<std::string> dims;
  std::vector<std::string> shapes;
  std::vector<std::string> ranges;
  std::vector<std::string> values;
  int threads = 1;
  bool no_opt = false;
  std::string output_dir;
  std::vector<std::string> plugins;
  std::vector<std::string> config;
  int repeat = 1;
  bool info = false;
};

// Splits "NAME=VALUE" at the '=' whose left part is one of `names` (names may contain '='),
// else at the last '='.
Result<std::pair<std::string, std::string>> SplitAssignment(const std::string& text,
                                                            const std::set<std::string>& names,
                                                            std::string_view flag) {
  for (size_t at = text.find('='); at != std::string::npos; at = text.find('=', at + 1)) {
    if (names.contains(text.substr(0, at)))
      return std::pair(text.substr(0, at), text.substr(at + 1));
  }
  const size_t last = text.rfind('=');
  if (last == std::string::npos || last == 0) {
    return MakeStatus(StatusCode::kInvalidArgument, flag, " '", text, "': expected NAME=VALUE");
  }
  return std::pair(text.substr(0, last), text.substr(last + 1));
}

Result<double> ParseNumber(const std::string& text, std::string_view what) {
  std::istringstream in(text);
  double value = 0;
  in >> value;
  if (!in || !in.eof()) {
    return MakeStatus(StatusCode::kInvalidArgument, what, ": '", text, "' is not a number");
  }
  return value;
}

// "1,3,480,640" (or "" for a scalar) -> Shape.
Result<Shape> ParseShape(const std::string& text, std::string_view what) {
  Shape shape;
  if (text.empty()) return shape;
  std::istringstream in(text);
  std::string part;
  while (std::getline(in, part, ',')) {
    NXRT_ASSIGN_OR_RETURN(double dim, ParseNumber(part, what));
    if (dim < 0 || dim != std::floor(dim)) {
      return MakeStatus(StatusCode::kInvalidArgument, what, ": dim '", part,
                        "' is not a size >= 0");
    }
    shape.push_back(static_cast<int64_t>(dim));
  }
  return shape;
}

InputSpec& SpecFor(std::vector<InputSpec>& specs, const std::string& name) {
  for (InputSpec& spec : specs) {
    if (spec.name == name) return spec;
  }
  specs.push_back({name, std::nullopt, std::nullopt, std::nullopt});
  return specs.back();
}

Result<Tensor> ReadTensorFile(const std::string& path) {
  if (path.ends_with(".pb")) return ir::ReadTensorProtoFile(path);
  return ir::ReadNpy(path);
}

// Generator options from the real-model table (when MODEL is one of them) and the flags.
Result<GeneratorOptions> BuildGeneratorOptions(const Flags& flags,
                                               const std::vector<ValueInfo>& inputs) {
  GeneratorOptions options;
  options.seed = flags.seed;
  std::set<std::string> input_names;
  std::set<std::string> dim_names;
  for (const ValueInfo& input : inputs) {
    input_names.insert(input.name);
    for (const std::string& dim : input.dim_names) {
      if (!dim.empty()) dim_names.insert(dim);
    }
  }
  if (const RealModel* real = FindRealModel(fs::path(flags.model).stem().string())) {
    std::cout << "generated inputs follow tests/real_models.h for '" << real->name << "'\n";
    options.inputs = real->inputs;
  }
  for (const std::string& text : flags.dims) {
    NXRT_ASSIGN_OR_RETURN(auto pair, SplitAssignment(text, dim_names, "--dim"));
    NXRT_ASSIGN_OR_RETURN(double size, ParseNumber(pair.second, "--dim " + text));
    options.dims[pair.first] = static_cast<int64_t>(size);
  }
  for (const std::string& text : flags.shapes) {
    NXRT_ASSIGN_OR_RETURN(auto pair, SplitAssignment(text, input_names, "--shape"));
    NXRT_ASSIGN_OR_RETURN(Shape shape, ParseShape(pair.second, "--shape " + text));
    SpecFor(options.inputs, pair.first).shape = shape;
  }
  for (const std::string& text : flags.ranges) {
    NXRT_ASSIGN_OR_RETURN(auto pair, SplitAssignment(text, input_names, "--range"));
    const size_t comma = pair.second.find(',');
    if (comma == std::string::npos) {
      return MakeStatus(StatusCode::kInvalidArgument, "--range '", text,
                        "': expected NAME=LOW,HIGH");
    }
    NXRT_ASSIGN_OR_RETURN(double low, ParseNumber(pair.second.substr(0, comma), "--range"));
    NXRT_ASSIGN_OR_RETURN(double high, ParseNumber(pair.second.substr(comma + 1), "--range"));
    SpecFor(options.inputs, pair.first).values = ValueDistribution::Uniform(low, high);
  }
  for (const std::string& text : flags.values) {
    NXRT_ASSIGN_OR_RETURN(auto pair, SplitAssignment(text, input_names, "--value"));
    NXRT_ASSIGN_OR_RETURN(double value, ParseNumber(pair.second, "--value " + text));
    SpecFor(options.inputs, pair.first).values = ValueDistribution::Constant(value);
  }
  return options;
}

Result<std::vector<NamedTensor>> BuildInputs(const Flags& flags, const OracleSession& session) {
  std::set<std::string> input_names;
  for (const ValueInfo& input : session.inputs()) input_names.insert(input.name);
  std::map<std::string, Tensor> from_files;
  for (const std::string& text : flags.input_files) {
    NXRT_ASSIGN_OR_RETURN(auto pair, SplitAssignment(text, input_names, "--input"));
    Result<Tensor> tensor = ReadTensorFile(pair.second);
    if (!tensor.ok()) return tensor.status().WithContext("--input " + text);
    from_files[pair.first] = std::move(tensor).value();
  }
  std::vector<nxrt::ValueInfo> to_generate;
  for (const ValueInfo& input : session.inputs()) {
    if (from_files.contains(input.name)) continue;
    if (!flags.random) {
      return MakeStatus(StatusCode::kInvalidArgument, "input '", input.name, "' ",
                        input.Description(), " is not given; pass --input ", input.name,
                        "=FILE.npy or --random");
    }
    to_generate.push_back(ToNxrtValueInfo(input));
  }
  NXRT_ASSIGN_OR_RETURN(GeneratorOptions options, BuildGeneratorOptions(flags, session.inputs()));
  std::erase_if(options.inputs,
                [&](const InputSpec& spec) { return from_files.contains(spec.name); });
  NXRT_ASSIGN_OR_RETURN(std::vector<NamedTensor> generated, GenerateInputs(to_generate, options));
  std::vector<NamedTensor> inputs;
  for (const ValueInfo& input : session.inputs()) {
    auto file = from_files.find(input.name);
    if (file != from_files.end()) {
      inputs.push_back({input.name, file->second});
      continue;
    }
    for (NamedTensor& tensor : generated) {
      if (tensor.name == input.name) inputs.push_back(std::move(tensor));
    }
  }
  for (const auto& [name, tensor] : from_files) {
    if (!input_names.contains(name)) {
      inputs.push_back({name, tensor});  // the session reports the unknown name
    }
  }
  return inputs;
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

Status RunTool(const Flags& flags) {
  NXRT_ASSIGN_OR_RETURN(OrtOracle oracle, OrtOracle::Load());
  OracleOptions options;
  options.intra_op_threads = flags.threads;
  options.optimization = flags.no_opt ? OptimizationLevel::kDisableAll : OptimizationLevel::kAll;
  for (const std::string& spec : flags.plugins) {
    NXRT_ASSIGN_OR_RETURN(PluginEp plugin, ParsePluginSpec(spec));
    options.plugins.push_back(std::move(plugin));
  }
  for (const std::string& entry : flags.config) {
    NXRT_ASSIGN_OR_RETURN(auto pair, SplitAssignment(entry, {}, "--config"));
    options.config_entries.push_back(pair);
  }
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
  app.add_option("--input", flags.input_files, "NAME=FILE (.npy or TensorProto .pb)");
  app.add_flag("--random", flags.random, "generate the inputs not given by --input");
  app.add_option("--seed", flags.seed, "generator seed")->capture_default_str();
  app.add_option("--dim", flags.dims, "NAME=SIZE for a symbolic dim");
  app.add_option("--shape", flags.shapes, "INPUT=D0,D1,... (INPUT= for a scalar)");
  app.add_option("--range", flags.ranges, "INPUT=LOW,HIGH: uniform values");
  app.add_option("--value", flags.values, "INPUT=V: every element V");
  app.add_option("--threads", flags.threads, "intra-op threads (0: ORT's default)")
      ->capture_default_str();
  app.add_flag("--no-opt", flags.no_opt, "disable graph optimisations (exact reference)");
  app.add_option("--output-dir", flags.output_dir, "write the outputs there");
  app.add_option("--plugin", flags.plugins, "PATH[:registration_name]: plugin EP, in order");
  app.add_option("--config", flags.config, "KEY=VALUE session config entry");
  app.add_option("--repeat", flags.repeat, "runs; the first is reported apart (warm-up)")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app.add_flag("--info", flags.info, "print the model's inputs and outputs only");
  CLI11_PARSE(app, argc, argv);

  const nxrt::Status status = nxrt::oracle::RunTool(flags);
  if (!status.ok()) {
    std::cout.flush();
    std::cerr << "ort_run: error: " << status.ToString() << "\n";
    return 1;
  }
  return 0;
}
