// tools/nxrt/cmd_run.cpp: `nxrt run MODEL`: feed inputs from files or generate them, run, print
// each output's summary and the time, optionally write outputs as .npy.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <memory>
#include <sstream>

#include "commands.h"
#include "ep_flags.h"
#include "nxrt/input_generator.h"
#include "nxrt/session.h"
#include "nxrt/tensor_io.h"

namespace nxrt::cli {
namespace {

// "name=value" → (name, value). Errors name the flag and the text.
Result<std::pair<std::string, std::string>> SplitAssignment(const std::string& text,
                                                            std::string_view flag) {
  const size_t eq = text.rfind('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == text.size()) {
    return MakeStatus(StatusCode::kInvalidArgument, flag, " '", text,
                      "' is not of the form NAME=VALUE");
  }
  return std::make_pair(text.substr(0, eq), text.substr(eq + 1));
}

double ElementAsDouble(const Tensor& t, int64_t i) {
  switch (t.dtype()) {
    case DataType::kFloat: return t.data<float>()[i];
    case DataType::kDouble: return t.data<double>()[i];
    case DataType::kFloat16: return static_cast<float>(t.data<Float16>()[i]);
    case DataType::kBFloat16: return static_cast<float>(t.data<BFloat16>()[i]);
    case DataType::kInt8: return t.data<int8_t>()[i];
    case DataType::kUint8: return t.data<uint8_t>()[i];
    case DataType::kInt16: return t.data<int16_t>()[i];
    case DataType::kUint16: return t.data<uint16_t>()[i];
    case DataType::kInt32: return t.data<int32_t>()[i];
    case DataType::kUint32: return t.data<uint32_t>()[i];
    case DataType::kInt64: return static_cast<double>(t.data<int64_t>()[i]);
    case DataType::kUint64: return static_cast<double>(t.data<uint64_t>()[i]);
    case DataType::kBool: return t.data<bool>()[i] ? 1 : 0;
    default: return std::nan("");
  }
}

// "float[1,2] min -1 max 3 mean 0.5 first [..]".
std::string Summary(const Tensor& t) {
  std::ostringstream os;
  os << t.Description();
  const int64_t n = t.element_count();
  if (n == 0 || t.dtype() == DataType::kString) {
    if (t.dtype() == DataType::kString && n > 0) os << " first '" << t.data<std::string>()[0] << "'";
    return os.str();
  }
  double lo = INFINITY, hi = -INFINITY, sum = 0;
  int64_t nans = 0;
  for (int64_t i = 0; i < n; ++i) {
    const double v = ElementAsDouble(t, i);
    if (std::isnan(v)) {
      ++nans;
      continue;
    }
    lo = std::min(lo, v);
    hi = std::max(hi, v);
    sum += v;
  }
  os << std::setprecision(6) << "  min " << lo << "  max " << hi << "  mean "
     << (n > nans ? sum / static_cast<double>(n - nans) : NAN);
  if (nans) os << "  nan " << nans;
  os << "  first [";
  for (int64_t i = 0; i < std::min<int64_t>(n, 6); ++i) os << (i ? ", " : "") << ElementAsDouble(t, i);
  os << (n > 6 ? ", ...]" : "]");
  return os.str();
}

}  // namespace

void AddRunCommand(CLI::App& app, int& exit_code) {
  struct Options {
    std::string model;
    std::vector<std::string> inputs;
    std::vector<std::string> dims;
    std::vector<std::string> eps;
    std::string output_dir;
    uint64_t seed = 0;
    int threads = 0;
    int repeat = 1;
    double int_low = 0, int_high = 9;
    bool stats = false;
    bool random = false;
    bool no_fallback = false;
    std::string profile;
    OptimizerFlags optimizer;
  };
  auto o = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand("run", "Run a model and summarise its outputs");
  cmd->add_option("MODEL", o->model, "Path of the .onnx file")->required();
  cmd->add_option("--input", o->inputs,
                  "NAME=FILE (.npy or .pb) for an input; inputs not given are generated");
  cmd->add_flag("--random", o->random, "Generate every input not given with --input");
  cmd->add_option("--seed", o->seed, "Seed of the generated inputs");
  cmd->add_option("--dim", o->dims, "NAME=VALUE size of a symbolic dim of generated inputs");
  cmd->add_option("--int-low", o->int_low, "Lowest value of generated integer inputs");
  cmd->add_option("--int-high", o->int_high, "Highest value of generated integer inputs");
  cmd->add_option("--ep", o->eps,
                  "Execution providers in priority order, comma-separated: cpu, "
                  "plugin:/path/lib.so[:registration_name][;key=value...] (default cpu)");
  cmd->add_flag("--no-fallback", o->no_fallback,
                "Fail instead of letting the CPU EP run what the listed EPs do not claim");
  cmd->add_option("--profile", o->profile,
                  "Write a Chrome trace (chrome://tracing, Perfetto) of every step run here");
  cmd->add_option("--threads", o->threads, "Intra-op threads (0 = one per core)")
      ->check(NonNegative());
  cmd->add_option("--repeat", o->repeat, "Run this many times; the time printed is the last run")
      ->check(CLI::Range(1, 1000000000));
  cmd->add_option("--output-dir", o->output_dir, "Write each output as <name>.npy here");
  cmd->add_flag("--stats", o->stats, "Print per-kernel calls and time");
  AddOptimizerFlags(*cmd, o->optimizer);
  cmd->callback([o, &exit_code] {
    auto fail = [&](const Status& s) {
      std::cerr << "nxrt run: " << s.message() << "\n";
      exit_code = 1;
    };
    SessionOptions options;
    options.intra_op_threads = o->threads;
    options.allow_fallback = !o->no_fallback;
    options.enable_profiling = !o->profile.empty();
    options.optimization_level = o->optimizer.level;
    options.disabled_optimizers = o->optimizer.disabled;
    Result<std::vector<EpSpec>> specs = ParseEpFlags(o->eps);
    if (!specs.ok()) return fail(specs.status());
    options.providers = std::move(*specs);
    const auto t0 = std::chrono::steady_clock::now();
    Result<std::unique_ptr<Session>> session = Session::Create(o->model, options);
    if (!session.ok()) return fail(session.status());
    const double create_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    Session& s = **session;
    const size_t warnings_at_creation = s.Warnings().size();
    for (const std::string& warning : s.Warnings()) {
      std::cerr << "nxrt run: warning: " << warning << "\n";
    }

    std::vector<NamedTensor> feeds;
    for (const std::string& item : o->inputs) {
      Result<std::pair<std::string, std::string>> kv = SplitAssignment(item, "--input");
      if (!kv.ok()) return fail(kv.status());
      Result<Tensor> t = ReadTensorFile(kv->second);
      if (!t.ok()) return fail(t.status());
      feeds.push_back({kv->first, *t});
    }
    GeneratorOptions gen;
    gen.seed = o->seed;
    gen.int_values = ValueDistribution::Uniform(o->int_low, o->int_high);
    for (const std::string& item : o->dims) {
      Result<std::pair<std::string, std::string>> kv = SplitAssignment(item, "--dim");
      if (!kv.ok()) return fail(kv.status());
      char* end = nullptr;
      const long long v = std::strtoll(kv->second.c_str(), &end, 10);
      if (*end != '\0' || v < 0) {
        return fail(MakeStatus(StatusCode::kInvalidArgument, "--dim ", item,
                               ": the size must be a non-negative integer"));
      }
      gen.dims[kv->first] = v;
    }
    std::vector<ValueInfo> to_generate;
    for (const ValueInfo& in : s.inputs()) {
      const bool given = std::any_of(feeds.begin(), feeds.end(),
                                     [&](const NamedTensor& f) { return f.name == in.name; });
      if (given) continue;
      if (!o->random) {
        return fail(MakeStatus(StatusCode::kInvalidArgument, "input '", in.name, "' (",
                               in.ToString(), ") is not given; pass --input ", in.name,
                               "=FILE.npy or --random"));
      }
      to_generate.push_back(in);
    }
    Result<std::vector<NamedTensor>> generated = GenerateInputs(to_generate, gen);
    if (!generated.ok()) return fail(generated.status());
    for (NamedTensor& g : *generated) feeds.push_back(std::move(g));

    Result<std::vector<NamedTensor>> outputs = Status(StatusCode::kInternal, "not run");
    double run_ms = 0;
    for (int r = 0; r < o->repeat; ++r) {
      const auto start = std::chrono::steady_clock::now();
      outputs = s.Run(feeds);
      run_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                   .count();
      if (!outputs.ok()) return fail(outputs.status());
    }
    // A plugin EP dropped while running (its Compute failed; the run was repeated without it).
    const std::vector<std::string> warnings = s.Warnings();
    for (size_t i = warnings_at_creation; i < warnings.size(); ++i) {
      std::cerr << "nxrt run: warning: " << warnings[i] << "\n";
    }
    std::cout << "model " << o->model << "\n";
    std::cout << "inputs\n";
    for (const NamedTensor& f : feeds) std::cout << "  " << f.name << "  " << Summary(f.tensor) << "\n";
    std::cout << "outputs\n";
    for (const NamedTensor& out : *outputs) {
      std::cout << "  " << out.name << "  " << Summary(out.tensor) << "\n";
    }
    std::cout << std::fixed << std::setprecision(3) << "session created in " << create_ms
              << " ms; run took " << run_ms << " ms\n";
    if (o->stats) {
      std::cout << "kernels (calls, total ms, EP)\n";
      for (const KernelStats& k : s.Stats()) {
        std::cout << "  " << k.op_type << " " << k.name << "  " << k.calls << "  "
                  << k.total_us / 1000.0 << "  " << k.ep << "\n";
      }
    }
    if (!o->profile.empty()) {
      Result<std::string> trace = s.EndProfiling();
      if (!trace.ok()) return fail(trace.status());
      std::ofstream file(o->profile);
      file << *trace;
      if (!file) {
        return fail(MakeStatus(StatusCode::kIoError, "could not write the profile to '",
                               o->profile, "'; check that its folder exists and is writable"));
      }
      std::cout << "wrote profile " << o->profile << "\n";
    }
    if (!o->output_dir.empty()) {
      std::error_code ec;
      std::filesystem::create_directories(o->output_dir, ec);
      for (const NamedTensor& out : *outputs) {
        // Output names are opaque strings: keep file names safe.
        std::string file = out.name;
        for (char& c : file) {
          if (c == '/' || c == '\\' || c == ':' || c == '\0') c = '_';
        }
        const std::filesystem::path path = std::filesystem::path(o->output_dir) / (file + ".npy");
        Status st = WriteNpy(path.string(), out.tensor);
        if (!st.ok()) return fail(st);
        std::cout << "wrote " << path.string() << "\n";
      }
    }
  });
}

}  // namespace nxrt::cli
