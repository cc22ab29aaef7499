// nxrt/input_generator.h: fixed-seed model inputs, identical on every machine.
//
// Public API (std only; implemented in src/runtime/input_generator.cpp). Used by `nxrt run
// --random`, `nxrt bench`, the tests and the benchmarks, so that nxrt and ONNX Runtime see the
// same inputs. The generator is SplitMix64 (own code, integer only),
// and values are derived from its bits with explicit arithmetic, so uniform values are bit-equal
// across compilers and standard libraries (std::uniform_real_distribution is not). Normal values
// use Box-Muller with std::log/std::cos/std::sqrt; glibc computes those to within an ulp of the
// exact value, and values are rounded to float, so they agree across hosts in all but rare ties.
//
// Each input draws from its own stream seeded by (seed, input name): adding, removing or
// reordering inputs leaves the values of the others unchanged.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "nxrt/status.h"
#include "nxrt/tensor.h"
#include "nxrt/node_info.h"
#include "nxrt/session.h"

namespace nxrt {

// SplitMix64 (Steele, Lea and Flood, "Fast splittable pseudorandom number generators", 2014).
class SplitMix64 {
 public:
  explicit SplitMix64(uint64_t seed) : state_(seed) {}
  // The next 64 random bits.
  uint64_t Next();
  // A double uniform in [0, 1) from the top 53 bits of Next().
  double NextUnit();

 private:
  uint64_t state_;
};

// The stream seed of the input `name` under the generator seed `seed`.
uint64_t StreamSeed(uint64_t seed, std::string_view name);

// How the values of one tensor are drawn.
struct ValueDistribution {
  enum class Kind { kUniform, kNormal, kConstant };
  Kind kind = Kind::kUniform;
  // kUniform: low; kNormal: mean; kConstant: the value.
  double a = -1.0;
  // kUniform: high (exclusive for floating types; inclusive for integer types, after rounding
  // low up and high down); kNormal: standard deviation; kConstant: unused.
  double b = 1.0;

  static ValueDistribution Uniform(double low, double high) { return {Kind::kUniform, low, high}; }
  static ValueDistribution Normal(double mean, double stddev) {
    return {Kind::kNormal, mean, stddev};
  }
  static ValueDistribution Constant(double value) { return {Kind::kConstant, value, 0.0}; }

  // "uniform[-1,1)", "normal(0,1)", "constant 16000".
  std::string Description() const;
};

// What to generate for one input. Unset fields come from the model's declaration (dtype, shape
// with symbolic dims resolved) or from the GeneratorOptions defaults (values).
struct InputSpec {
  std::string name;
  std::optional<DataType> dtype;
  std::optional<Shape> shape;
  std::optional<ValueDistribution> values;
};

struct GeneratorOptions {
  uint64_t seed = 0;
  // Sizes of symbolic dims by name, e.g. {{"N", 1}, {"H", 480}}.
  std::map<std::string, int64_t> dims;
  // Defaults for inputs without their own `values`, by element type family. Bool inputs use
  // int_values clipped to [0, 1].
  ValueDistribution float_values = ValueDistribution::Uniform(-1.0, 1.0);
  ValueDistribution int_values = ValueDistribution::Uniform(0.0, 9.0);
  // Per-input overrides; each name must be an input of the model.
  std::vector<InputSpec> inputs;
};

// The concrete shape of `input`: declared fixed dims, symbolic ones from `dims`.
// Errors (kInvalidArgument) name the input, the dim index and the symbol to define; an unnamed
// dynamic dim or an undeclared rank needs an explicit InputSpec shape.
Result<Shape> ResolveShape(const ValueInfo& input, const std::map<std::string, int64_t>& dims);

// A tensor of `dtype` and `shape` with values from `values`, drawn from the stream `stream_seed`.
// Floating types (float, double, float16, bfloat16, both parts of complex) take the values as
// given; integer types round and clamp them to the type's range (an empty range is an error);
// bool uses integers clipped to [0, 1]; strings are lower-case words of 1 to 8 letters.
Result<Tensor> GenerateTensor(DataType dtype, const Shape& shape, const ValueDistribution& values,
                              uint64_t stream_seed);

// One tensor per input of `inputs` (the model's declared inputs, in order), following `options`.
// Errors (kInvalidArgument): a spec naming no input; one error listing every size missing at
// once: the inputs that need a whole shape (rank unknown, or dynamic dims without a name, as
// Silero VAD v5's input [?,?]) and each symbolic dim without a size with the inputs that carry
// it; kNotImplemented for an input that is not a tensor.
Result<std::vector<NamedTensor>> GenerateInputs(const std::vector<ValueInfo>& inputs,
                                                const GeneratorOptions& options);

// One tensor per spec, without model metadata: each spec needs dtype, shape and values.
Result<std::vector<NamedTensor>> GenerateInputs(const std::vector<InputSpec>& specs,
                                                uint64_t seed);

// ---- Input flags shared by command-line tools ---------------------------------------------------
//
// `nxrt bench` and `ort_run` (tests/ort_oracle) take the same input flags and turn them into
// inputs here, so the same flags give byte-identical inputs in nxrt and in ONNX Runtime:
//   --seed S              generator seed
//   --dim NAME=SIZE       size of a symbolic dim
//   --shape INPUT=D0,D1   an input's whole shape ("INPUT=" for a scalar)
//   --range INPUT=LO,HI   uniform values in [LO, HI)
//   --value INPUT=V       every element V
//   --input INPUT=FILE    the input read from FILE (.npy, or ONNX TensorProto .pb)
// A NAME=VALUE text splits at the '=' whose left part is a known name (names may hold '='), else
// at the last '='.
struct InputFlags {
  uint64_t seed = 1;
  std::vector<std::string> dims;
  std::vector<std::string> shapes;
  std::vector<std::string> ranges;
  std::vector<std::string> values;
  std::vector<std::string> files;
};

// Registers the flags above on a CLI11 app or subcommand (a template so that nxrt does not
// depend on CLI11; both tools pass a CLI::App).
template <typename App>
void AddInputFlags(App& app, InputFlags& flags) {
  app.add_option("--seed", flags.seed, "Seed of the generated inputs")->capture_default_str();
  app.add_option("--dim", flags.dims, "NAME=SIZE: size of a symbolic dim of generated inputs");
  app.add_option("--shape", flags.shapes, "INPUT=D0,D1,...: an input's shape (INPUT= a scalar)");
  app.add_option("--range", flags.ranges, "INPUT=LOW,HIGH: uniform values in [LOW, HIGH)");
  app.add_option("--value", flags.values, "INPUT=V: every element of the input is V");
  app.add_option("--input", flags.files, "INPUT=FILE: read the input from .npy or TensorProto .pb");
}

// The generator options the flags ask for (--input excluded). `base` specs (e.g. a known model's
// table) come first and the flags override them field by field. Errors (kInvalidArgument) name
// the flag and its text and say the expected form.
Result<GeneratorOptions> ParseGeneratorFlags(const InputFlags& flags,
                                             const std::vector<ValueInfo>& inputs,
                                             std::vector<InputSpec> base = {});

// One tensor per model input, in the order of `inputs`: read from its --input file when given,
// else generated from the flags. With `generate_missing` false only inputs a generator flag
// names (--shape, --range, --value) are generated, and the others without a file are one error
// listing them all, which says to pass --input, a generator flag or --random. Files naming no
// input are passed through, so the session reports the unknown name.
Result<std::vector<NamedTensor>> BuildInputsFromFlags(const InputFlags& flags,
                                                      const std::vector<ValueInfo>& inputs,
                                                      bool generate_missing,
                                                      std::vector<InputSpec> base = {});

// 16 hex digits of FNV-1a (64 bit) over each input's name, element type, shape and bytes (string
// elements with their lengths), in order: two tools that print the same digest fed the same
// inputs.
std::string InputsDigest(const std::vector<NamedTensor>& inputs);

}  // namespace nxrt
