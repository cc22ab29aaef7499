// tools/nxrt/onnx_test_runner.cpp: see onnx_test_runner.h.
#include "onnx_test_runner.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>
#include <memory>
#include <sstream>

#include "nodes_by_ep.h"
#include "nxrt/placement.h"
#include "nxrt/tensor_io.h"

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
    // bfloat16 is compared to one unit in its last place (2^-7 relative): the ONNX 1.12 data
    // truncates float to bfloat16 (test_cast_FLOAT_to_BFLOAT16), nxrt rounds to nearest even.
    const double rtol =
        want.dtype() == DataType::kBFloat16 ? std::max(o.rtol, 1.0 / 128) : o.rtol;
    int64_t bad = 0, first = -1;
    double worst = 0;
    for (int64_t i = 0; i < n; ++i) {
      const double g = FloatAt(got, i), w = FloatAt(want, i);
      if (std::isnan(w) && std::isnan(g)) continue;
      if (std::isinf(w) && g == w) continue;
      const double err = std::fabs(g - w);
      if (!(err <= o.atol + rtol * std::fabs(w))) {
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

// `t` read from a test-data file, as the dtype the model declares for it. The ONNX backend tests
// were written through numpy, which has no bfloat16: their .pb files store bfloat16 values as
// UINT16 tensors with the same bits. Such a tensor is reinterpreted (sharing its buffer); any other
// mismatch is left for the session or the comparison to report.
Tensor AsDeclared(const Tensor& t, DataType declared) {
  if (declared != DataType::kBFloat16 || t.dtype() != DataType::kUint16) return t;
  return Tensor::Borrow(DataType::kBFloat16, t.shape(), const_cast<void*>(t.raw_data()),
                        std::make_shared<Tensor>(t));
}

// What a random output is checked for, instead of its values.
enum class RandomCheck {
  kZeroOrOne,     // every value is 0 or 1 (Bernoulli draws)
  kDroppedOrKept, // value i is 0 or data[i] / (1 - ratio), data and ratio being inputs 0 and 1
  kTypeAndShape,  // dtype and shape only (Dropout's mask, which any draw may produce)
};

struct RandomOutputTest {
  std::string_view test;  // the test folder's name
  std::vector<RandomCheck> outputs;
  std::string_view reason;
};

// The tests whose outputs are random draws: NumPy's generator made the expected data, and no
// seed makes another generator reproduce it, so they are checked by property. Every other output
// (shape, dtype) is still compared exactly.
const std::vector<RandomOutputTest>& RandomOutputTests() {
  static const std::vector<RandomOutputTest> tests = {
      {"test_bernoulli", {RandomCheck::kZeroOrOne}, "Bernoulli draws at random"},
      {"test_bernoulli_double", {RandomCheck::kZeroOrOne}, "Bernoulli draws at random"},
      {"test_bernoulli_seed", {RandomCheck::kZeroOrOne},
       "Bernoulli draws at random; the seed is NumPy's"},
      {"test_bernoulli_expanded", {RandomCheck::kZeroOrOne},
       "RandomUniformLike (Bernoulli's function body) draws at random"},
      {"test_bernoulli_double_expanded", {RandomCheck::kZeroOrOne},
       "RandomUniformLike (Bernoulli's function body) draws at random"},
      {"test_bernoulli_seed_expanded", {RandomCheck::kZeroOrOne},
       "RandomUniformLike (Bernoulli's function body) draws at random; the seed is NumPy's"},
      {"test_training_dropout", {RandomCheck::kDroppedOrKept},
       "Dropout in training mode drops elements at random"},
      {"test_training_dropout_default", {RandomCheck::kDroppedOrKept},
       "Dropout in training mode drops elements at random"},
      {"test_training_dropout_mask", {RandomCheck::kDroppedOrKept, RandomCheck::kTypeAndShape},
       "Dropout in training mode drops elements at random"},
      {"test_training_dropout_default_mask",
       {RandomCheck::kDroppedOrKept, RandomCheck::kTypeAndShape},
       "Dropout in training mode drops elements at random"},
  };
  return tests;
}

const RandomOutputTest* FindRandomOutputTest(const std::string& name) {
  const std::string folder = name.substr(name.find('/') + 1);
  for (const RandomOutputTest& t : RandomOutputTests()) {
    if (t.test == folder) return &t;
  }
  return nullptr;
}

// "" when `got` has `want`'s dtype and shape and meets `check`, otherwise what fails.
// `inputs` are the data set's inputs (kDroppedOrKept reads data and ratio from them).
std::string CheckRandomOutput(const Tensor& got, const Tensor& want, RandomCheck check,
                              const std::vector<NamedTensor>& inputs) {
  std::ostringstream os;
  if (got.dtype() != want.dtype() || got.shape() != want.shape()) {
    os << DataTypeName(got.dtype()) << " " << ShapeToString(got.shape()) << ", expected "
       << DataTypeName(want.dtype()) << " " << ShapeToString(want.shape());
    return os.str();
  }
  if (check == RandomCheck::kTypeAndShape) return "";
  // The listed tests' checked outputs and dropout data are floating; anything else is a bug of
  // the list.
  if (!IsFloating(got.dtype()) ||
      (check == RandomCheck::kDroppedOrKept &&
       (inputs.empty() || !IsFloating(inputs[0].tensor.dtype())))) {
    return "the random-output check expects floating outputs (and dropout data)";
  }
  for (int64_t i = 0; i < got.element_count(); ++i) {
    const double g = FloatAt(got, i);
    if (check == RandomCheck::kZeroOrOne) {
      if (g != 0 && g != 1) {
        os << "value " << i << " is " << g << ", expected 0 or 1";
        return os.str();
      }
      continue;
    }
    const double ratio = inputs.size() > 1 && IsFloating(inputs[1].tensor.dtype())
                             ? FloatAt(inputs[1].tensor, 0)
                             : 0.5;
    const double kept = FloatAt(inputs[0].tensor, i) / (1 - ratio);
    if (g != 0 && std::fabs(g - kept) > 1e-5 * (1 + std::fabs(kept))) {
      os << "value " << i << " is " << g << ", expected 0 (dropped) or " << kept << " (kept)";
      return os.str();
    }
  }
  return "";
}

// "" when `got` (a sequence, none, or a tensor) matches the test data `want`, otherwise what
// differs; tensors are compared with Compare.
std::string CompareValue(const Value& got, const Value& want, const TestRunOptions& o) {
  if (want.is_none()) return got.is_none() ? "" : got.Description() + ", expected none";
  if (want.is_tensor()) {
    return got.is_tensor() ? Compare(got.tensor(), want.tensor(), o)
                           : got.Description() + ", expected a tensor";
  }
  if (!got.is_sequence() || got.sequence().size() != want.sequence().size()) {
    return got.Description() + ", expected " + want.Description();
  }
  for (size_t i = 0; i < want.sequence().size(); ++i) {
    const std::string diff = CompareValue(Value(got.sequence()[i]), Value(want.sequence()[i]), o);
    if (!diff.empty()) return "sequence element " + std::to_string(i) + ": " + diff;
  }
  return "";
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
  const fs::path model_path = folder / "model.onnx";
  Result<std::unique_ptr<Session>> session = Session::Create(model_path.string(), options.session);
  auto finish = [&](TestResult res) {
    res.seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (session.ok()) {
      res.nodes_by_ep = NodesByEp((*session)->Placement());
      res.warnings = (*session)->Warnings();
    }
    return res;
  };
  if (!session.ok()) {
    const bool unsupported = session.status().code() == StatusCode::kUnsupported ||
                             session.status().code() == StatusCode::kNotImplemented;
    return finish(Fail(r, unsupported ? TestOutcome::kFail : TestOutcome::kError,
                       session.status().message()));
  }
  Session& s = **session;
  // Test data feeds the graph inputs that have no initializer, in order: Session::inputs().
  const std::vector<ValueInfo>& feeds = s.inputs();
  const RandomOutputTest* random_test = FindRandomOutputTest(name);

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
    if (in_files.size() > feeds.size()) {
      return finish(Fail(r, TestOutcome::kError,
                         ds_name + ": " + std::to_string(in_files.size()) +
                             " input files for " + std::to_string(feeds.size()) +
                             " model inputs"));
    }
    std::vector<NamedTensor> inputs;
    std::vector<NamedValue> fed;  // `inputs` and the sequence and optional inputs
    for (size_t i = 0; i < in_files.size(); ++i) {
      Result<Value> value = ReadValueFile(in_files[i].string(), feeds[i].kind, feeds[i].dtype);
      if (!value.ok()) {
        const bool unsupported = value.status().code() == StatusCode::kNotImplemented;
        return finish(Fail(r, unsupported ? TestOutcome::kFail : TestOutcome::kError,
                           value.status().message()));
      }
      if (!value->is_tensor()) {
        fed.push_back({feeds[i].name, std::move(value).value()});
        continue;
      }
      inputs.push_back({feeds[i].name, AsDeclared(value->tensor(), feeds[i].dtype)});
      fed.push_back({feeds[i].name, inputs.back().tensor});
    }
    Result<std::vector<NamedValue>> outputs = s.RunValues(fed);
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
      const ValueInfo& declared = s.outputs()[k];
      Result<Value> want = ReadValueFile(out_files[k].string(), declared.kind, declared.dtype);
      if (!want.ok()) {
        const bool unsupported = want.status().code() == StatusCode::kNotImplemented;
        return finish(Fail(r, unsupported ? TestOutcome::kFail : TestOutcome::kError,
                           want.status().message()));
      }
      const Value& got = (*outputs)[k].value;
      const std::string diff =
          !want->is_tensor() || !got.is_tensor() ? CompareValue(got, *want, options)
          : random_test != nullptr && k < random_test->outputs.size()
              ? CheckRandomOutput(got.tensor(), AsDeclared(want->tensor(), declared.dtype),
                                  random_test->outputs[k], inputs)
              : Compare(got.tensor(), AsDeclared(want->tensor(), declared.dtype), options);
      if (!diff.empty()) {
        return finish(Fail(r, TestOutcome::kFail,
                           ds_name + ": output '" + (*outputs)[k].name + "': " + diff));
      }
    }
  }
  r.outcome = TestOutcome::kPass;
  if (random_test != nullptr) {
    r.reason = "checked by dtype, shape and allowed values, not against the data (" +
               std::string(random_test->reason) + ")";
  }
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
