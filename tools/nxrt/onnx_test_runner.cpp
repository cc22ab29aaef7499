// tools/nxrt/onnx_test_runner.cpp: see onnx_test_runner.h.
#include "onnx_test_runner.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>
#include <sstream>

#include "ir/onnx_loader.h"
#include "ir/tensor_io.h"

namespace nxrt::cli {
namespace fs = std::filesystem;

namespace {

// Element i of a floating tensor as double.
double FloatAt(const Tensor& t, int64_t i) {
  switch (t.dtype()) {
    case DataType::kFloat: return t.data<float>()[i];
    case DataType::kDouble: return t.data<double>()[i];
    case DataType::kFloat16: return static_cast<float>(t.data<Float16>()[i]);
    case DataType::kBFloat16: return static_cast<float>(t.data<BFloat16>()[i]);
    default: return 0;
  }
}

bool IsFloating(DataType t) {
  return t == DataType::kFloat || t == DataType::kDouble || t == DataType::kFloat16 ||
         t == DataType::kBFloat16;
}

// "" when `got` matches `want`, otherwise what differs.
std::string Compare(const Tensor& got, const Tensor& want, const TestRunOptions& o) {
  std::ostringstream os;
  if (got.dtype() != want.dtype()) {
    os << "dtype " << DataTypeName(got.dtype()) << ", expected " << DataTypeName(want.dtype());
    return os.str();
  }
  if (got.shape() != want.shape()) {
    os << "shape " << ShapeToString(got.shape()) << ", expected " << ShapeToString(want.shape());
    return os.str();
  }
  const int64_t n = want.element_count();
  if (IsFloating(want.dtype())) {
    int64_t bad = 0, first = -1;
    double worst = 0;
    for (int64_t i = 0; i < n; ++i) {
      const double g = FloatAt(got, i), w = FloatAt(want, i);
      if (std::isnan(w) && std::isnan(g)) continue;
      if (std::isinf(w) && g == w) continue;
      const double err = std::fabs(g - w);
      if (!(err <= o.atol + o.rtol * std::fabs(w))) {
        if (first < 0) first = i;
        ++bad;
        worst = std::max(worst, err);
      }
    }
    if (bad == 0) return "";
    os << bad << " of " << n << " values differ (first at " << first << ": got "
       << FloatAt(got, first) << ", expected " << FloatAt(want, first) << "; max abs error "
       << worst << ")";
    return os.str();
  }
  if (want.dtype() == DataType::kString) {
    for (int64_t i = 0; i < n; ++i) {
      if (got.data<std::string>()[i] != want.data<std::string>()[i]) {
        os << "string " << i << " is '" << got.data<std::string>()[i] << "', expected '"
           << want.data<std::string>()[i] << "'";
        return os.str();
      }
    }
    return "";
  }
  const size_t bytes = want.byte_size();
  if (bytes > 0 && std::memcmp(got.raw_data(), want.raw_data(), bytes) != 0) {
    const size_t elem = DataTypeSize(want.dtype());
    for (int64_t i = 0; i < n; ++i) {
      if (std::memcmp(static_cast<const char*>(got.raw_data()) + i * elem,
                      static_cast<const char*>(want.raw_data()) + i * elem, elem) != 0) {
        os << "element " << i << " of " << n << " differs (exact comparison for "
           << DataTypeName(want.dtype()) << ")";
        return os.str();
      }
    }
  }
  return "";
}

ir::TypeInfo::Kind IrKind(ValueKind kind) {
  switch (kind) {
    case ValueKind::kSequence: return ir::TypeInfo::Kind::kSequence;
    case ValueKind::kOptional: return ir::TypeInfo::Kind::kOptional;
    default: return ir::TypeInfo::Kind::kTensor;
  }
}

TestResult Fail(TestResult r, TestOutcome outcome, std::string reason) {
  r.outcome = outcome;
  r.reason = std::move(reason);
  return r;
}

std::vector<fs::path> SortedFiles(const fs::path& dir, const std::string& prefix) {
  std::vector<fs::path> files;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    const std::string n = e.path().filename().string();
    if (n.rfind(prefix, 0) == 0 && e.path().extension() == ".pb") files.push_back(e.path());
  }
  // input_10.pb after input_9.pb: order by the number after the prefix.
  std::sort(files.begin(), files.end(), [&](const fs::path& a, const fs::path& b) {
    return std::stol(a.stem().string().substr(prefix.size())) <
           std::stol(b.stem().string().substr(prefix.size()));
  });
  return files;
}

}  // namespace

std::string_view TestOutcomeName(TestOutcome outcome) {
  switch (outcome) {
    case TestOutcome::kPass: return "pass";
    case TestOutcome::kFail: return "fail";
    case TestOutcome::kError: return "error";
    case TestOutcome::kSkip: return "skip";
  }
  return "?";
}

TestResult RunOnnxTest(const fs::path& folder, const std::string& name,
                       const TestRunOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  TestResult r;
  r.name = name;
  auto finish = [&](TestResult res) {
    res.seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return res;
  };
  const fs::path model_path = folder / "model.onnx";
  Result<ir::Model> model = ir::LoadModelFromFile(model_path);
  if (!model.ok()) return finish(Fail(r, TestOutcome::kError, model.status().message()));
  // Test data feeds the graph inputs that have no initializer, in order.
  std::vector<std::string> feed_names;
  for (ir::ValueId v : model->graph->inputs) {
    if (model->graph->FindInitializer(v) == nullptr) {
      feed_names.push_back(model->graph->values[v].name);
    }
  }
  Result<std::unique_ptr<Session>> session = Session::Create(model_path.string(), options.session);
  if (!session.ok()) {
    const bool unsupported = session.status().code() == StatusCode::kUnsupported ||
                             session.status().code() == StatusCode::kNotImplemented;
    return finish(Fail(r, unsupported ? TestOutcome::kFail : TestOutcome::kError,
                       session.status().message()));
  }
  Session& s = **session;

  std::vector<fs::path> data_sets;
  for (const auto& e : fs::directory_iterator(folder)) {
    if (e.is_directory() && e.path().filename().string().rfind("test_data_set_", 0) == 0) {
      data_sets.push_back(e.path());
    }
  }
  std::sort(data_sets.begin(), data_sets.end());
  if (data_sets.empty()) return finish(Fail(r, TestOutcome::kSkip, "no test_data_set_* folder"));

  for (const fs::path& ds : data_sets) {
    const std::string ds_name = ds.filename().string();
    std::vector<fs::path> in_files = SortedFiles(ds, "input_");
    std::vector<fs::path> out_files = SortedFiles(ds, "output_");
    if (in_files.size() > feed_names.size()) {
      return finish(Fail(r, TestOutcome::kError,
                         ds_name + ": " + std::to_string(in_files.size()) +
                             " input files for " + std::to_string(feed_names.size()) +
                             " model inputs"));
    }
    std::vector<NamedTensor> inputs;
    for (size_t i = 0; i < in_files.size(); ++i) {
      auto it = std::find_if(s.inputs().begin(), s.inputs().end(),
                             [&](const ValueInfo& v) { return v.name == feed_names[i]; });
      const ValueKind kind = it == s.inputs().end() ? ValueKind::kTensor : it->kind;
      Result<ir::OnnxValue> value = ir::ReadTestDataFile(in_files[i], IrKind(kind));
      if (!value.ok()) return finish(Fail(r, TestOutcome::kError, value.status().message()));
      if (value->kind != ir::OnnxValue::Kind::kTensor) {
        return finish(Fail(r, TestOutcome::kFail,
                           "input '" + feed_names[i] +
                               "' is a sequence or optional; nxrt runs feed tensors only"));
      }
      inputs.push_back({feed_names[i], value->tensor});
    }
    Result<std::vector<NamedTensor>> outputs = s.Run(inputs);
    if (!outputs.ok()) {
      return finish(Fail(r, TestOutcome::kFail, ds_name + ": " + outputs.status().message()));
    }
    if (out_files.size() != outputs->size()) {
      return finish(Fail(r, TestOutcome::kError,
                         ds_name + ": " + std::to_string(out_files.size()) +
                             " expected outputs, the model has " +
                             std::to_string(outputs->size())));
    }
    for (size_t k = 0; k < out_files.size(); ++k) {
      const ValueKind kind = s.outputs()[k].kind;
      Result<ir::OnnxValue> want = ir::ReadTestDataFile(out_files[k], IrKind(kind));
      if (!want.ok()) return finish(Fail(r, TestOutcome::kError, want.status().message()));
      if (want->kind != ir::OnnxValue::Kind::kTensor) {
        return finish(Fail(r, TestOutcome::kFail, "output " + std::to_string(k) +
                                                      " is a sequence or optional"));
      }
      const std::string diff = Compare((*outputs)[k].tensor, want->tensor, options);
      if (!diff.empty()) {
        return finish(Fail(r, TestOutcome::kFail,
                           ds_name + ": output '" + (*outputs)[k].name + "': " + diff));
      }
    }
  }
  r.outcome = TestOutcome::kPass;
  return finish(r);
}

std::vector<std::pair<std::string, fs::path>> FindOnnxTests(const fs::path& root) {
  std::vector<std::pair<std::string, fs::path>> tests;
  std::error_code ec;
  const fs::path clean = root.lexically_normal();
  const fs::path dir = clean.has_filename() ? clean : clean.parent_path();
  if (fs::exists(dir / "model.onnx", ec)) {
    tests.emplace_back(dir.parent_path().filename().string() + "/" + dir.filename().string(), dir);
    return tests;
  }
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    if (e.is_directory() && fs::exists(e.path() / "model.onnx", ec)) {
      tests.emplace_back(dir.filename().string() + "/" + e.path().filename().string(), e.path());
    }
  }
  std::sort(tests.begin(), tests.end());
  return tests;
}

Result<std::set<std::string>> ReadManifest(const fs::path& path) {
  std::ifstream in(path);
  if (!in) {
    return MakeStatus(StatusCode::kIoError, "cannot read manifest '", path.string(), "'");
  }
  std::set<std::string> names;
  std::string line;
  while (std::getline(in, line)) {
    const size_t hash = line.find('#');
    if (hash != std::string::npos) line.resize(hash);
    const size_t b = line.find_first_not_of(" \t\r");
    if (b == std::string::npos) continue;
    const size_t e = line.find_last_not_of(" \t\r");
    names.insert(line.substr(b, e - b + 1));
  }
  return names;
}

}  // namespace nxrt::cli
