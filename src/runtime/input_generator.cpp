// runtime/input_generator.cpp: fixed-seed input generation (see nxrt/input_generator.h).
#include "nxrt/input_generator.h"

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdio>
#include <limits>
#include <map>
#include <numbers>
#include <set>
#include <sstream>

#include "nxrt/tensor_io.h"

namespace nxrt {
namespace {

// Draws doubles from a ValueDistribution; Box-Muller pairs are cached.
class DoubleSource {
 public:
  DoubleSource(const ValueDistribution& values, uint64_t seed) : values_(values), random_(seed) {}

  double Next() {
    switch (values_.kind) {
      case ValueDistribution::Kind::kConstant: return values_.a;
      case ValueDistribution::Kind::kUniform:
        return values_.a + (values_.b - values_.a) * random_.NextUnit();
      case ValueDistribution::Kind::kNormal: return values_.a + values_.b * NextStandardNormal();
    }
    return 0.0;
  }

  // An integer uniform in [low, high] (low <= high), by 128-bit multiply of 64 random bits.
  int64_t NextInteger(int64_t low, int64_t high) {
    const auto span = static_cast<unsigned __int128>(static_cast<__int128>(high) - low + 1);
    const auto offset = static_cast<unsigned __int128>(random_.Next()) * span >> 64;
    return static_cast<int64_t>(static_cast<__int128>(low) + static_cast<__int128>(offset));
  }

  SplitMix64& random() { return random_; }

 private:
  double NextStandardNormal() {
    if (has_spare_) {
      has_spare_ = false;
      return spare_;
    }
    // 1 - u lies in (0, 1], so the log is finite.
    const double radius = std::sqrt(-2.0 * std::log(1.0 - random_.NextUnit()));
    const double angle = 2.0 * std::numbers::pi * random_.NextUnit();
    spare_ = radius * std::sin(angle);
    has_spare_ = true;
    return radius * std::cos(angle);
  }

  ValueDistribution values_;
  SplitMix64 random_;
  bool has_spare_ = false;
  double spare_ = 0.0;
};

template <typename T>
void FillFloating(Tensor& tensor, DoubleSource& source) {
  T* out = tensor.mutable_data<T>();
  for (int64_t i = 0; i < tensor.element_count(); ++i) {
    out[i] = T(static_cast<float>(source.Next()));
  }
}

template <>
void FillFloating<double>(Tensor& tensor, DoubleSource& source) {
  double* out = tensor.mutable_data<double>();
  for (int64_t i = 0; i < tensor.element_count(); ++i) out[i] = source.Next();
}

template <typename T>
void FillComplex(Tensor& tensor, DoubleSource& source) {
  T* out = tensor.mutable_data<T>();
  for (int64_t i = 0; i < tensor.element_count(); ++i) {
    const double real = source.Next();
    const double imaginary = source.Next();
    out[i] = T(static_cast<typename T::value_type>(real),
               static_cast<typename T::value_type>(imaginary));
  }
}

// Fills an integer tensor of type T, values clamped to [type_low, type_high].
template <typename T>
Status FillInteger(Tensor& tensor, const ValueDistribution& values, DoubleSource& source,
                   double type_low, double type_high) {
  T* out = tensor.mutable_data<T>();
  const int64_t count = tensor.element_count();
  auto clamp = [&](double v) { return std::clamp(std::nearbyint(v), type_low, type_high); };
  if (values.kind == ValueDistribution::Kind::kUniform) {
    // Integers are drawn as int64: bound the range to it as well (this only narrows uint64).
    constexpr double kInt64High = 0x1.fffffffffffffp+62;
    const double low = std::max(std::ceil(values.a), type_low);
    const double high = std::min({std::floor(values.b), type_high, kInt64High});
    if (!(low <= high)) {
      return MakeStatus(StatusCode::kInvalidArgument, "the range ", values.Description(),
                        " holds no value of type ", DataTypeName(tensor.dtype()));
    }
    for (int64_t i = 0; i < count; ++i) {
      out[i] = static_cast<T>(
          source.NextInteger(static_cast<int64_t>(low), static_cast<int64_t>(high)));
    }
    return Status::Ok();
  }
  for (int64_t i = 0; i < count; ++i) out[i] = static_cast<T>(clamp(source.Next()));
  return Status::Ok();
}

template <typename T>
Status FillIntegerOfType(Tensor& tensor, const ValueDistribution& values, DoubleSource& source) {
  // Bounds as doubles that convert back to T exactly (2^63 - 1 is not a double; use the largest
  // double below it).
  const double low = static_cast<double>(std::numeric_limits<T>::min());
  const double high = std::numeric_limits<T>::digits > 53
                          ? std::nextafter(static_cast<double>(std::numeric_limits<T>::max()), 0.0)
                          : static_cast<double>(std::numeric_limits<T>::max());
  return FillInteger<T>(tensor, values, source, low, high);
}

void FillStrings(Tensor& tensor, DoubleSource& source) {
  std::string* out = tensor.mutable_data<std::string>();
  for (int64_t i = 0; i < tensor.element_count(); ++i) {
    const int64_t length = source.NextInteger(1, 8);
    std::string word;
    for (int64_t c = 0; c < length; ++c) word += static_cast<char>('a' + source.NextInteger(0, 25));
    out[i] = std::move(word);
  }
}

const InputSpec* FindSpec(const std::vector<InputSpec>& specs, const std::string& name) {
  for (const InputSpec& spec : specs) {
    if (spec.name == name) return &spec;
  }
  return nullptr;
}

bool IsFloating(DataType dtype) {
  switch (dtype) {
    case DataType::kFloat:
    case DataType::kDouble:
    case DataType::kFloat16:
    case DataType::kBFloat16:
    case DataType::kComplex64:
    case DataType::kComplex128: return true;
    default: return false;
  }
}

// Checks an explicit shape against the declared one (rank and fixed dims).
Status CheckShapeFits(const ValueInfo& input, const Shape& shape) {
  if (!input.shape) return Status::Ok();
  const std::vector<DimInfo>& dims = *input.shape;
  bool fits = shape.size() == dims.size();
  for (size_t i = 0; fits && i < shape.size(); ++i) {
    fits = !dims[i].is_fixed() || dims[i].value == shape[i];
  }
  if (!fits) {
    return MakeStatus(StatusCode::kInvalidArgument, "input '", input.name, "': shape ",
                      ShapeToString(shape), " does not fit the declared ", input.ToString());
  }
  return Status::Ok();
}

// Splits "NAME=VALUE" at the '=' whose left part is one of `names`, else at the last '='.
Result<std::pair<std::string, std::string>> SplitAssignment(const std::string& text,
                                                            const std::set<std::string>& names,
                                                            std::string_view flag,
                                                            std::string_view form) {
  for (size_t at = text.find('='); at != std::string::npos; at = text.find('=', at + 1)) {
    if (names.contains(text.substr(0, at))) {
      return std::pair(text.substr(0, at), text.substr(at + 1));
    }
  }
  const size_t last = text.rfind('=');
  if (last == std::string::npos || last == 0) {
    return MakeStatus(StatusCode::kInvalidArgument, flag, " '", text, "': expected ", form);
  }
  return std::pair(text.substr(0, last), text.substr(last + 1));
}

// The whole of `text` as a finite number; errors quote the flag's text.
Result<double> ParseNumber(const std::string& text, std::string_view flag,
                           const std::string& whole) {
  std::istringstream in(text);
  double value = 0;
  in >> value;
  if (text.empty() || !in || !in.eof() || !std::isfinite(value)) {
    return MakeStatus(StatusCode::kInvalidArgument, flag, " '", whole, "': '", text,
                      "' is not a number");
  }
  return value;
}

// A size >= 0 that is a whole number.
Result<int64_t> ParseSize(const std::string& text, std::string_view flag, const std::string& whole) {
  NXRT_ASSIGN_OR_RETURN(double size, ParseNumber(text, flag, whole));
  if (size < 0 || size != std::floor(size) || size > 0x1p62) {
    return MakeStatus(StatusCode::kInvalidArgument, flag, " '", whole, "': '", text,
                      "' is not a size (a whole number >= 0)");
  }
  return static_cast<int64_t>(size);
}

// Every input of `inputs` whose shape neither a spec nor `options.dims` fixes, in one error:
// the inputs that need a whole shape (no declared rank, or dynamic dims without a name), then
// the symbolic dims without a size with the inputs that carry them.
Status CheckSizesKnown(const std::vector<ValueInfo>& inputs, const GeneratorOptions& options) {
  std::vector<std::string> need_shape;
  std::map<std::string, std::vector<std::string>> need_dim;  // symbol → inputs
  for (const ValueInfo& input : inputs) {
    const InputSpec* spec = FindSpec(options.inputs, input.name);
    if (spec != nullptr && spec->shape.has_value()) continue;
    if (!input.shape) {
      need_shape.push_back("'" + input.name + "' (" + std::string(DataTypeName(input.dtype)) +
                           ", rank unknown)");
      continue;
    }
    std::vector<size_t> unnamed;
    for (size_t i = 0; i < input.shape->size(); ++i) {
      const DimInfo& dim = (*input.shape)[i];
      if (dim.is_fixed()) continue;
      if (dim.symbol.empty()) {
        unnamed.push_back(i);
      } else if (!options.dims.contains(dim.symbol)) {
        std::vector<std::string>& carriers = need_dim[dim.symbol];
        if (carriers.empty() || carriers.back() != input.name) carriers.push_back(input.name);
      }
    }
    if (unnamed.empty()) continue;
    // "'input' (float[?,?], dims 0 and 1 unnamed)"; appended piece by piece (GCC 12 warns,
    // wrongly, about "literal" + std::string&&).
    std::string item = "'";
    item += input.name;
    item += "' (";
    item += DataTypeName(input.dtype);
    item += '[';
    for (size_t i = 0; i < input.shape->size(); ++i) {
      if (i > 0) item += ',';
      item += (*input.shape)[i].ToString();
    }
    item += unnamed.size() > 1 ? "], dims " : "], dim ";
    for (size_t i = 0; i < unnamed.size(); ++i) {
      if (i > 0) item += i + 1 == unnamed.size() ? " and " : ", ";
      item += std::to_string(unnamed[i]);
    }
    item += " unnamed)";
    need_shape.push_back(std::move(item));
  }
  if (need_shape.empty() && need_dim.empty()) return Status::Ok();
  std::string message = "cannot size the generated inputs:";
  if (!need_shape.empty()) {
    message += " give the whole shape of input";
    message += need_shape.size() > 1 ? "s " : " ";
    for (size_t i = 0; i < need_shape.size(); ++i) {
      if (i > 0) message += ", ";
      message += need_shape[i];
    }
    message += " (--shape INPUT=D0,D1,...)";
  }
  if (!need_dim.empty()) {
    message += need_shape.empty() ? " give" : "; give";
    message += " the size of symbolic dim";
    message += need_dim.size() > 1 ? "s " : " ";
    bool first = true;
    for (const auto& [symbol, carriers] : need_dim) {
      message += first ? "'" : ", '";
      message += symbol;
      message += carriers.size() > 1 ? "' (inputs " : "' (input ";
      for (size_t i = 0; i < carriers.size(); ++i) {
        message += i > 0 ? ", '" : "'";
        message += carriers[i];
        message += '\'';
      }
      message += ')';
      first = false;
    }
    message += " (--dim NAME=SIZE, e.g. --dim ";
    message += need_dim.begin()->first;
    message += "=1)";
  }
  return Status(StatusCode::kInvalidArgument, message);
}

InputSpec& SpecFor(std::vector<InputSpec>& specs, const std::string& name) {
  for (InputSpec& spec : specs) {
    if (spec.name == name) return spec;
  }
  specs.push_back({name, std::nullopt, std::nullopt, std::nullopt});
  return specs.back();
}

class Fnv1a {
 public:
  void Add(const void* data, size_t size) {
    const auto* bytes = static_cast<const uint8_t*>(data);
    for (size_t i = 0; i < size; ++i) {
      hash_ ^= bytes[i];
      hash_ *= 0x100000001b3ULL;
    }
  }
  template <typename T>
  void AddValue(T value) {
    Add(&value, sizeof(value));
  }
  uint64_t hash() const { return hash_; }

 private:
  uint64_t hash_ = 0xcbf29ce484222325ULL;
};

}  // namespace

uint64_t SplitMix64::Next() {
  state_ += 0x9e3779b97f4a7c15ULL;
  uint64_t z = state_;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

double SplitMix64::NextUnit() { return static_cast<double>(Next() >> 11) * 0x1.0p-53; }

uint64_t StreamSeed(uint64_t seed, std::string_view name) {
  // FNV-1a over the name, then one SplitMix64 step over (seed, hash) to spread the bits.
  uint64_t hash = 0xcbf29ce484222325ULL;
  for (char c : name) {
    hash ^= static_cast<uint8_t>(c);
    hash *= 0x100000001b3ULL;
  }
  return SplitMix64(seed ^ hash).Next();
}

std::string ValueDistribution::Description() const {
  std::ostringstream out;
  switch (kind) {
    case Kind::kUniform: out << "uniform[" << a << "," << b << ")"; break;
    case Kind::kNormal: out << "normal(" << a << "," << b << ")"; break;
    case Kind::kConstant: out << "constant " << a; break;
  }
  return out.str();
}

Result<Shape> ResolveShape(const ValueInfo& input, const std::map<std::string, int64_t>& dims) {
  if (!input.shape) {
    return MakeStatus(StatusCode::kInvalidArgument, "input '", input.name,
                      "' declares no shape; give its whole shape explicitly");
  }
  const std::vector<DimInfo>& declared = *input.shape;
  Shape shape;
  for (size_t i = 0; i < declared.size(); ++i) {
    if (declared[i].is_fixed()) {
      shape.push_back(declared[i].value);
      continue;
    }
    const std::string& symbol = declared[i].symbol;
    if (symbol.empty()) {
      return MakeStatus(StatusCode::kInvalidArgument, "input '", input.name, "' ",
                        input.ToString(), ": dim ", i,
                        " is dynamic and unnamed; give the input's whole shape explicitly");
    }
    auto found = dims.find(symbol);
    if (found == dims.end()) {
      return MakeStatus(StatusCode::kInvalidArgument, "input '", input.name, "' ",
                        input.ToString(), ": dim ", i, " is the symbol '", symbol,
                        "', which has no size; define it (e.g. --dim ", symbol, "=1)");
    }
    if (found->second < 0) {
      return MakeStatus(StatusCode::kInvalidArgument, "symbolic dim '", symbol, "' is given as ",
                        found->second, "; sizes must be >= 0");
    }
    shape.push_back(found->second);
  }
  return shape;
}

Result<Tensor> GenerateTensor(DataType dtype, const Shape& shape, const ValueDistribution& values,
                              uint64_t stream_seed) {
  if (values.kind == ValueDistribution::Kind::kUniform && !(values.a <= values.b)) {
    return MakeStatus(StatusCode::kInvalidArgument, "the range ", values.Description(),
                      " is empty (low > high)");
  }
  if (values.kind == ValueDistribution::Kind::kNormal && !(values.b >= 0.0)) {
    return MakeStatus(StatusCode::kInvalidArgument, "the distribution ", values.Description(),
                      " has a negative standard deviation");
  }
  NXRT_ASSIGN_OR_RETURN(Tensor tensor, Tensor::Allocate(dtype, shape));
  DoubleSource source(values, stream_seed);
  Status fill_status;
  switch (dtype) {
    case DataType::kFloat: FillFloating<float>(tensor, source); break;
    case DataType::kDouble: FillFloating<double>(tensor, source); break;
    case DataType::kFloat16: FillFloating<Float16>(tensor, source); break;
    case DataType::kBFloat16: FillFloating<BFloat16>(tensor, source); break;
    case DataType::kFloat8E4M3FN: FillFloating<Float8E4M3FN>(tensor, source); break;
    case DataType::kFloat8E4M3FNUZ: FillFloating<Float8E4M3FNUZ>(tensor, source); break;
    case DataType::kFloat8E5M2: FillFloating<Float8E5M2>(tensor, source); break;
    case DataType::kFloat8E5M2FNUZ: FillFloating<Float8E5M2FNUZ>(tensor, source); break;
    case DataType::kComplex64: FillComplex<std::complex<float>>(tensor, source); break;
    case DataType::kComplex128: FillComplex<std::complex<double>>(tensor, source); break;
    case DataType::kInt8: fill_status = FillIntegerOfType<int8_t>(tensor, values, source); break;
    case DataType::kInt16: fill_status = FillIntegerOfType<int16_t>(tensor, values, source); break;
    case DataType::kInt32: fill_status = FillIntegerOfType<int32_t>(tensor, values, source); break;
    case DataType::kInt64: fill_status = FillIntegerOfType<int64_t>(tensor, values, source); break;
    case DataType::kUint8: fill_status = FillIntegerOfType<uint8_t>(tensor, values, source); break;
    case DataType::kUint16:
      fill_status = FillIntegerOfType<uint16_t>(tensor, values, source);
      break;
    case DataType::kUint32:
      fill_status = FillIntegerOfType<uint32_t>(tensor, values, source);
      break;
    case DataType::kUint64:
      fill_status = FillIntegerOfType<uint64_t>(tensor, values, source);
      break;
    case DataType::kBool: fill_status = FillInteger<bool>(tensor, values, source, 0.0, 1.0); break;
    case DataType::kString: FillStrings(tensor, source); break;
    case DataType::kUint4:
    case DataType::kInt4:
      return MakeStatus(StatusCode::kUnsupported, "cannot generate values of type ",
                        DataTypeName(dtype), " (packed 4-bit); give the input as a TensorProto "
                        ".pb file");
    case DataType::kUndefined:
      return MakeStatus(StatusCode::kInvalidArgument, "cannot generate values of type undefined");
  }
  NXRT_RETURN_IF_ERROR(fill_status);
  return tensor;
}

Result<std::vector<NamedTensor>> GenerateInputs(const std::vector<ValueInfo>& inputs,
                                                const GeneratorOptions& options) {
  for (const InputSpec& spec : options.inputs) {
    bool known = false;
    for (const ValueInfo& input : inputs) known = known || input.name == spec.name;
    if (!known) {
      std::string names;
      for (const ValueInfo& input : inputs)
        names += (names.empty() ? "'" : ", '") + input.name + "'";
      return MakeStatus(StatusCode::kInvalidArgument, "no model input is named '", spec.name,
                        "'; the inputs are ", names.empty() ? "(none)" : names);
    }
  }
  // Before sizes: a map or sequence input has no shape to ask for.
  for (const ValueInfo& input : inputs) {
    if (input.kind != ValueKind::kTensor || input.dtype == DataType::kUndefined) {
      return MakeStatus(StatusCode::kNotImplemented, "input '", input.name, "' is ",
                        input.ToString(),
                        "; only tensors of nxrt's element types are generated");
    }
  }
  NXRT_RETURN_IF_ERROR(CheckSizesKnown(inputs, options));
  std::vector<NamedTensor> tensors;
  for (const ValueInfo& input : inputs) {
    const InputSpec* spec = FindSpec(options.inputs, input.name);
    if (spec != nullptr && spec->dtype.has_value() && *spec->dtype != input.dtype) {
      return MakeStatus(StatusCode::kInvalidArgument, "input '", input.name, "' is given type ",
                        DataTypeName(*spec->dtype), " but the model declares ",
                        input.ToString());
    }
    Shape shape;
    if (spec != nullptr && spec->shape.has_value()) {
      shape = *spec->shape;
      NXRT_RETURN_IF_ERROR(CheckShapeFits(input, shape));
    } else {
      NXRT_ASSIGN_OR_RETURN(shape, ResolveShape(input, options.dims));
    }
    ValueDistribution values = IsFloating(input.dtype) ? options.float_values : options.int_values;
    if (spec != nullptr && spec->values.has_value()) values = *spec->values;
    Result<Tensor> tensor =
        GenerateTensor(input.dtype, shape, values, StreamSeed(options.seed, input.name));
    if (!tensor.ok()) return tensor.status().WithContext("input '" + input.name + "'");
    tensors.push_back({input.name, std::move(tensor).value()});
  }
  return tensors;
}

Result<std::vector<NamedTensor>> GenerateInputs(const std::vector<InputSpec>& specs,
                                                uint64_t seed) {
  std::vector<NamedTensor> tensors;
  for (const InputSpec& spec : specs) {
    if (!spec.dtype.has_value() || !spec.shape.has_value() || !spec.values.has_value()) {
      return MakeStatus(StatusCode::kInvalidArgument, "input '", spec.name,
                        "': a spec without model metadata needs dtype, shape and values");
    }
    Result<Tensor> tensor =
        GenerateTensor(*spec.dtype, *spec.shape, *spec.values, StreamSeed(seed, spec.name));
    if (!tensor.ok()) return tensor.status().WithContext("input '" + spec.name + "'");
    tensors.push_back({spec.name, std::move(tensor).value()});
  }
  return tensors;
}

Result<GeneratorOptions> ParseGeneratorFlags(const InputFlags& flags,
                                             const std::vector<ValueInfo>& inputs,
                                             std::vector<InputSpec> base) {
  GeneratorOptions options;
  options.seed = flags.seed;
  options.inputs = std::move(base);
  std::set<std::string> input_names;
  std::set<std::string> dim_names;
  for (const ValueInfo& input : inputs) {
    input_names.insert(input.name);
    if (!input.shape) continue;
    for (const DimInfo& dim : *input.shape) {
      if (!dim.is_fixed() && !dim.symbol.empty()) dim_names.insert(dim.symbol);
    }
  }
  for (const std::string& text : flags.dims) {
    NXRT_ASSIGN_OR_RETURN(auto pair, SplitAssignment(text, dim_names, "--dim", "NAME=SIZE"));
    NXRT_ASSIGN_OR_RETURN(options.dims[pair.first], ParseSize(pair.second, "--dim", text));
  }
  for (const std::string& text : flags.shapes) {
    NXRT_ASSIGN_OR_RETURN(auto pair,
                          SplitAssignment(text, input_names, "--shape", "INPUT=D0,D1,..."));
    Shape shape;
    std::istringstream in(pair.second);
    std::string part;
    while (std::getline(in, part, ',')) {
      NXRT_ASSIGN_OR_RETURN(int64_t dim, ParseSize(part, "--shape", text));
      shape.push_back(dim);
    }
    if (!pair.second.empty() && pair.second.back() == ',') {
      return MakeStatus(StatusCode::kInvalidArgument, "--shape '", text,
                        "': a dim is missing after the last ','");
    }
    SpecFor(options.inputs, pair.first).shape = shape;
  }
  for (const std::string& text : flags.ranges) {
    NXRT_ASSIGN_OR_RETURN(auto pair, SplitAssignment(text, input_names, "--range", "INPUT=LOW,HIGH"));
    const size_t comma = pair.second.find(',');
    if (comma == std::string::npos) {
      return MakeStatus(StatusCode::kInvalidArgument, "--range '", text,
                        "': expected INPUT=LOW,HIGH (e.g. --range x=-1,1)");
    }
    NXRT_ASSIGN_OR_RETURN(double low, ParseNumber(pair.second.substr(0, comma), "--range", text));
    NXRT_ASSIGN_OR_RETURN(double high,
                          ParseNumber(pair.second.substr(comma + 1), "--range", text));
    if (!(low <= high)) {
      return MakeStatus(StatusCode::kInvalidArgument, "--range '", text, "': LOW ", low,
                        " is above HIGH ", high, "; give LOW first");
    }
    SpecFor(options.inputs, pair.first).values = ValueDistribution::Uniform(low, high);
  }
  for (const std::string& text : flags.values) {
    NXRT_ASSIGN_OR_RETURN(auto pair, SplitAssignment(text, input_names, "--value", "INPUT=V"));
    NXRT_ASSIGN_OR_RETURN(double value, ParseNumber(pair.second, "--value", text));
    SpecFor(options.inputs, pair.first).values = ValueDistribution::Constant(value);
  }
  return options;
}

Result<std::vector<NamedTensor>> BuildInputsFromFlags(const InputFlags& flags,
                                                      const std::vector<ValueInfo>& inputs,
                                                      bool generate_missing,
                                                      std::vector<InputSpec> base) {
  std::set<std::string> input_names;
  for (const ValueInfo& input : inputs) input_names.insert(input.name);
  std::map<std::string, Tensor> from_files;
  for (const std::string& text : flags.files) {
    NXRT_ASSIGN_OR_RETURN(auto pair, SplitAssignment(text, input_names, "--input", "INPUT=FILE"));
    Result<Tensor> tensor = ReadTensorFile(pair.second);
    if (!tensor.ok()) return tensor.status().WithContext("--input " + text);
    from_files[pair.first] = std::move(tensor).value();
  }
  NXRT_ASSIGN_OR_RETURN(GeneratorOptions options,
                        ParseGeneratorFlags(flags, inputs, std::move(base)));
  std::vector<ValueInfo> to_generate;
  std::string not_given;
  for (const ValueInfo& input : inputs) {
    if (from_files.contains(input.name)) continue;
    if (!generate_missing && FindSpec(options.inputs, input.name) == nullptr) {
      not_given += (not_given.empty() ? "'" : ", '") + input.name + "' (" + input.ToString() + ")";
      continue;
    }
    to_generate.push_back(input);
  }
  if (!not_given.empty()) {
    return MakeStatus(StatusCode::kInvalidArgument, "inputs not given: ", not_given,
                      "; pass --input NAME=FILE.npy for each, a generator flag (--shape, --range, "
                      "--value) or --random");
  }
  std::erase_if(options.inputs,
                [&](const InputSpec& spec) { return from_files.contains(spec.name); });
  NXRT_ASSIGN_OR_RETURN(std::vector<NamedTensor> generated, GenerateInputs(to_generate, options));
  std::vector<NamedTensor> result;
  for (const ValueInfo& input : inputs) {
    auto file = from_files.find(input.name);
    if (file != from_files.end()) {
      result.push_back({input.name, file->second});
      continue;
    }
    for (NamedTensor& tensor : generated) {
      if (tensor.name == input.name) result.push_back(std::move(tensor));
    }
  }
  for (const auto& [name, tensor] : from_files) {
    if (!input_names.contains(name)) result.push_back({name, tensor});
  }
  return result;
}

std::string InputsDigest(const std::vector<NamedTensor>& inputs) {
  Fnv1a fnv;
  for (const NamedTensor& input : inputs) {
    fnv.Add(input.name.data(), input.name.size() + 1);
    const Tensor& tensor = input.tensor;
    fnv.AddValue(static_cast<int32_t>(tensor.dtype()));
    fnv.AddValue(static_cast<uint64_t>(tensor.shape().size()));
    for (int64_t dim : tensor.shape()) fnv.AddValue(dim);
    if (!tensor.defined()) continue;
    Tensor contiguous = tensor;
    if (!tensor.is_contiguous()) {
      Result<Tensor> copy = tensor.Clone();
      if (copy.ok()) contiguous = std::move(copy).value();
    }
    if (tensor.dtype() == DataType::kString) {
      for (const std::string& s : contiguous.span<std::string>()) {
        fnv.AddValue(static_cast<uint64_t>(s.size()));
        fnv.Add(s.data(), s.size());
      }
    } else if (contiguous.element_count() > 0) {
      fnv.Add(contiguous.raw_data(), contiguous.byte_size());
    }
  }
  char text[17];
  std::snprintf(text, sizeof(text), "%016llx", static_cast<unsigned long long>(fnv.hash()));
  return text;
}

}  // namespace nxrt
