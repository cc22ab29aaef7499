// runtime/input_generator_test.cpp: the fixed-seed generator is deterministic (golden values
// from an independent Python model of SplitMix64), respects ranges and types, and explains
// shapes it cannot resolve; the shared command-line input flags give the same bytes as the
// equivalent specs and name the flag in their errors.
//
// Layer: tests of nxrt_runtime.
#include "nxrt/input_generator.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <set>

namespace nxrt {
namespace {

// A declared tensor input of `dtype` with `dims` (nullopt: rank unknown).
ValueInfo Decl(std::string name, DataType dtype, std::optional<std::vector<DimInfo>> dims) {
  ValueInfo v;
  v.name = std::move(name);
  v.kind = ValueKind::kTensor;
  v.dtype = dtype;
  v.shape = std::move(dims);
  return v;
}


using ::testing::HasSubstr;
using ::testing::Not;

TEST(SplitMix64Test, MatchesTheReferenceSequence) {
  SplitMix64 random(0);
  EXPECT_EQ(random.Next(), 0xe220a8397b1dcdafULL);
  EXPECT_EQ(random.Next(), 0x6e789e6aa1b965f4ULL);
  EXPECT_EQ(random.Next(), 0x06c45d188009454fULL);
}

TEST(InputGeneratorTest, UniformFloatsAreGoldenValues) {
  Result<Tensor> t = GenerateTensor(DataType::kFloat, {4}, ValueDistribution::Uniform(-1, 1), 7);
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_EQ(std::vector<float>(t->span<float>().begin(), t->span<float>().end()),
            (std::vector<float>{-0.22034050524234772f, -0.9664233922958374f, 0.801521360874176f,
                                0.1658605933189392f}));
}

TEST(InputGeneratorTest, StreamsDependOnSeedAndNameOnly) {
  EXPECT_EQ(StreamSeed(1, "x"), 0x67e6ccb15c6ecef8ULL);
  EXPECT_NE(StreamSeed(1, "x"), StreamSeed(2, "x"));
  EXPECT_NE(StreamSeed(1, "x"), StreamSeed(1, "y"));

  const ValueInfo x = Decl("x", DataType::kFloat, std::vector<DimInfo>{DimInfo::Fixed(3)});
  const ValueInfo y = Decl("y", DataType::kFloat, std::vector<DimInfo>{DimInfo::Fixed(3)});
  GeneratorOptions options;
  options.seed = 1;
  Result<std::vector<NamedTensor>> both = GenerateInputs({x, y}, options);
  Result<std::vector<NamedTensor>> only_y = GenerateInputs({y}, options);
  ASSERT_TRUE(both.ok() && only_y.ok());
  const auto a = (*both)[1].tensor.span<float>();
  const auto b = (*only_y)[0].tensor.span<float>();
  EXPECT_TRUE(std::equal(a.begin(), a.end(), b.begin(), b.end()));
  const auto first = (*both)[0].tensor.span<float>();
  EXPECT_FALSE(std::equal(a.begin(), a.end(), first.begin(), first.end()));
}

TEST(InputGeneratorTest, UniformStaysInItsRange) {
  Result<Tensor> t =
      GenerateTensor(DataType::kFloat, {10000}, ValueDistribution::Uniform(-2.1, 2.6), 3);
  ASSERT_TRUE(t.ok());
  double sum = 0;
  for (float v : t->span<float>()) {
    ASSERT_GE(v, -2.1f);
    ASSERT_LE(v, 2.6f);
    sum += v;
  }
  EXPECT_NEAR(sum / 10000, 0.25, 0.05);
}

TEST(InputGeneratorTest, NormalHasItsMeanAndSpread) {
  Result<Tensor> t =
      GenerateTensor(DataType::kDouble, {20000}, ValueDistribution::Normal(3, 0.5), 11);
  ASSERT_TRUE(t.ok());
  double sum = 0, squares = 0;
  for (double v : t->span<double>()) {
    sum += v;
    squares += v * v;
  }
  const double mean = sum / 20000;
  EXPECT_NEAR(mean, 3.0, 0.02);
  EXPECT_NEAR(std::sqrt(squares / 20000 - mean * mean), 0.5, 0.02);
}

TEST(InputGeneratorTest, IntegerRangesAreInclusiveAndClampedToTheType) {
  Result<Tensor> t = GenerateTensor(DataType::kInt64, {8}, ValueDistribution::Uniform(-3, 3), 5);
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(std::vector<int64_t>(t->span<int64_t>().begin(), t->span<int64_t>().end()),
            (std::vector<int64_t>{-1, 2, -2, -3, -2, -1, 3, 0}));

  Result<Tensor> bytes =
      GenerateTensor(DataType::kUint8, {5000}, ValueDistribution::Uniform(-5, 300), 5);
  ASSERT_TRUE(bytes.ok());
  std::set<int> seen(bytes->span<uint8_t>().begin(), bytes->span<uint8_t>().end());
  EXPECT_EQ(seen.size(), 256u);

  Result<Tensor> empty =
      GenerateTensor(DataType::kUint8, {2}, ValueDistribution::Uniform(300, 400), 5);
  ASSERT_FALSE(empty.ok());
  EXPECT_THAT(empty.status().message(), HasSubstr("holds no value of type uint8"));

  Result<Tensor> wide =
      GenerateTensor(DataType::kUint64, {100}, ValueDistribution::Uniform(0, 1e30), 5);
  ASSERT_TRUE(wide.ok());
}

TEST(InputGeneratorTest, ConstantsBoolsAndHalfFloats) {
  Result<Tensor> sr = GenerateTensor(DataType::kInt64, {}, ValueDistribution::Constant(16000), 1);
  ASSERT_TRUE(sr.ok());
  EXPECT_EQ(sr->rank(), 0u);
  EXPECT_EQ(*sr->data<int64_t>(), 16000);

  Result<Tensor> flags = GenerateTensor(DataType::kBool, {64}, ValueDistribution::Uniform(0, 9), 1);
  ASSERT_TRUE(flags.ok());
  std::set<uint8_t> seen;
  for (int64_t i = 0; i < 64; ++i) seen.insert(flags->data<uint8_t>()[i]);
  EXPECT_EQ(seen, (std::set<uint8_t>{0, 1}));

  Result<Tensor> half =
      GenerateTensor(DataType::kFloat16, {100}, ValueDistribution::Uniform(-4, 4), 1);
  ASSERT_TRUE(half.ok());
  for (int64_t i = 0; i < 100; ++i) {
    const float v = static_cast<float>(half->data<Float16>()[i]);
    EXPECT_TRUE(v >= -4.0f && v <= 4.0f) << v;
  }

  Result<Tensor> words = GenerateTensor(DataType::kString, {10}, ValueDistribution{}, 1);
  ASSERT_TRUE(words.ok());
  for (const std::string& word : words->span<std::string>()) {
    EXPECT_TRUE(word.size() >= 1 && word.size() <= 8) << word;
  }
}

TEST(InputGeneratorTest, InvalidDistributionsAreRejected) {
  EXPECT_FALSE(GenerateTensor(DataType::kFloat, {1}, ValueDistribution::Uniform(2, 1), 1).ok());
  EXPECT_FALSE(GenerateTensor(DataType::kFloat, {1}, ValueDistribution::Normal(0, -1), 1).ok());
  EXPECT_FALSE(GenerateTensor(DataType::kUndefined, {1}, ValueDistribution{}, 1).ok());
}

TEST(InputGeneratorTest, SymbolicDimsComeFromTheMap) {
  const ValueInfo x =
      Decl("x", DataType::kFloat,
           std::vector<DimInfo>{DimInfo::Symbolic("N"), DimInfo::Fixed(3), DimInfo::Symbolic("H"),
                                DimInfo::Symbolic("W")});
  Result<Shape> shape = ResolveShape(x, {{"N", 1}, {"H", 480}, {"W", 640}});
  ASSERT_TRUE(shape.ok()) << shape.status().ToString();
  EXPECT_EQ(*shape, (Shape{1, 3, 480, 640}));

  Result<Shape> missing = ResolveShape(x, {{"N", 1}, {"H", 480}});
  ASSERT_FALSE(missing.ok());
  EXPECT_THAT(missing.status().message(), HasSubstr("dim 3 is the symbol 'W'"));
  EXPECT_THAT(missing.status().message(), HasSubstr("--dim W=1"));

  const ValueInfo unnamed = Decl("input", DataType::kFloat,
                                 std::vector<DimInfo>{DimInfo::Unknown(), DimInfo::Unknown()});
  Result<Shape> no_name = ResolveShape(unnamed, {});
  ASSERT_FALSE(no_name.ok());
  EXPECT_THAT(no_name.status().message(), HasSubstr("dim 0 is dynamic and unnamed"));
}

// Every size the generator lacks is named in one error, not one per attempt: Silero VAD v5's
// unnamed dims (input [?,?], state [2,?,128]), an input of unknown rank, and each symbol with
// the inputs that carry it; inputs given a whole shape are not listed.
TEST(InputGeneratorTest, MissingSizesAreAllListedAtOnce) {
  const std::vector<ValueInfo> inputs = {
      Decl("input", DataType::kFloat, std::vector<DimInfo>{DimInfo::Unknown(), DimInfo::Unknown()}),
      Decl("state", DataType::kFloat,
           std::vector<DimInfo>{DimInfo::Fixed(2), DimInfo::Unknown(), DimInfo::Fixed(128)}),
      Decl("sr", DataType::kInt64, std::vector<DimInfo>{}),
      Decl("any", DataType::kFloat, std::nullopt),
      Decl("x", DataType::kFloat, std::vector<DimInfo>{DimInfo::Symbolic("N"), DimInfo::Fixed(3)}),
      Decl("y", DataType::kFloat,
           std::vector<DimInfo>{DimInfo::Symbolic("N"), DimInfo::Symbolic("M")}),
      Decl("z", DataType::kFloat, std::vector<DimInfo>{DimInfo::Symbolic("K")}),
  };
  GeneratorOptions options;
  options.dims = {{"K", 4}};
  Result<std::vector<NamedTensor>> none = GenerateInputs(inputs, options);
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.status().code(), StatusCode::kInvalidArgument);
  const std::string& message = none.status().message();
  EXPECT_THAT(message, HasSubstr("'input' (float[?,?], dims 0 and 1 unnamed)"));
  EXPECT_THAT(message, HasSubstr("'state' (float[2,?,128], dim 1 unnamed)"));
  EXPECT_THAT(message, HasSubstr("'any' ("));
  EXPECT_THAT(message, HasSubstr("'M' (input 'y'), 'N' (inputs 'x', 'y')"));
  EXPECT_THAT(message, HasSubstr("--dim M=1"));
  EXPECT_THAT(message, Not(HasSubstr("'sr'")));
  EXPECT_THAT(message, Not(HasSubstr("'K'")));

  options.dims = {{"K", 4}, {"N", 1}, {"M", 2}};
  options.inputs = {{"input", std::nullopt, Shape{1, 512}, std::nullopt},
                    {"state", std::nullopt, Shape{2, 1, 128}, std::nullopt},
                    {"any", std::nullopt, Shape{5}, std::nullopt}};
  Result<std::vector<NamedTensor>> all = GenerateInputs(inputs, options);
  ASSERT_TRUE(all.ok()) << all.status().ToString();
  EXPECT_EQ((*all)[1].tensor.shape(), (Shape{2, 1, 128}));
  EXPECT_EQ((*all)[5].tensor.shape(), (Shape{1, 2}));
}

TEST(InputGeneratorTest, SpecsOverrideShapesTypesAndValues) {
  const ValueInfo audio = Decl("input", DataType::kFloat,
                               std::vector<DimInfo>{DimInfo::Unknown(), DimInfo::Unknown()});
  const ValueInfo sr = Decl("sr", DataType::kInt64, std::vector<DimInfo>{});
  GeneratorOptions options;
  options.inputs = {{"input", std::nullopt, Shape{1, 512}, std::nullopt},
                    {"sr", DataType::kInt64, std::nullopt, ValueDistribution::Constant(16000)}};
  Result<std::vector<NamedTensor>> inputs = GenerateInputs({audio, sr}, options);
  ASSERT_TRUE(inputs.ok()) << inputs.status().ToString();
  EXPECT_EQ((*inputs)[0].tensor.shape(), (Shape{1, 512}));
  EXPECT_EQ(*(*inputs)[1].tensor.data<int64_t>(), 16000);

  options.inputs = {{"sr", DataType::kInt32, std::nullopt, std::nullopt}};
  Result<std::vector<NamedTensor>> wrong_type = GenerateInputs({sr}, options);
  ASSERT_FALSE(wrong_type.ok());
  EXPECT_THAT(wrong_type.status().message(), HasSubstr("given type int32"));

  options.inputs = {{"input", std::nullopt, Shape{512}, std::nullopt}};
  Result<std::vector<NamedTensor>> wrong_rank = GenerateInputs({audio}, options);
  ASSERT_FALSE(wrong_rank.ok());
  EXPECT_THAT(wrong_rank.status().message(), HasSubstr("does not fit the declared input: tensor(float)[?,?]"));

  options.inputs = {{"typo", std::nullopt, std::nullopt, std::nullopt}};
  Result<std::vector<NamedTensor>> typo = GenerateInputs({audio}, options);
  ASSERT_FALSE(typo.ok());
  EXPECT_THAT(typo.status().message(), HasSubstr("no model input is named 'typo'"));
}

TEST(InputGeneratorTest, CompleteSpecsNeedNoMetadata) {
  const std::vector<InputSpec> specs = {
      {"x", DataType::kFloat, Shape{2, 2}, ValueDistribution::Uniform(0, 1)}};
  Result<std::vector<NamedTensor>> first = GenerateInputs(specs, 9);
  Result<std::vector<NamedTensor>> second = GenerateInputs(specs, 9);
  ASSERT_TRUE(first.ok() && second.ok());
  EXPECT_EQ(std::memcmp((*first)[0].tensor.raw_data(), (*second)[0].tensor.raw_data(), 16), 0);
  Result<std::vector<NamedTensor>> incomplete = GenerateInputs(
      std::vector<InputSpec>{{"x", DataType::kFloat, std::nullopt, std::nullopt}}, 9);
  EXPECT_FALSE(incomplete.ok());
}

// Silero VAD v5's inputs as declared (input[?,?], state[?,?,?], sr scalar).
std::vector<ValueInfo> SileroInputs() {
  const DimInfo unknown{};
  return {Decl("input", DataType::kFloat, std::vector<DimInfo>{unknown, unknown}),
          Decl("state", DataType::kFloat, std::vector<DimInfo>{unknown, unknown, unknown}),
          Decl("sr", DataType::kInt64, std::vector<DimInfo>{})};
}

TEST(InputFlagsTest, FlagsGiveTheBytesOfTheEquivalentSpecs) {
  InputFlags flags;
  flags.seed = 3;
  flags.shapes = {"input=1,512", "state=2,1,128", "sr="};
  flags.ranges = {"input=-0.5,0.5"};
  flags.values = {"state=0", "sr=16000"};
  Result<std::vector<NamedTensor>> from_flags =
      BuildInputsFromFlags(flags, SileroInputs(), /*generate_missing=*/true);
  ASSERT_TRUE(from_flags.ok()) << from_flags.status().ToString();

  using V = ValueDistribution;
  const std::vector<InputSpec> specs = {
      {"input", DataType::kFloat, Shape{1, 512}, V::Uniform(-0.5, 0.5)},
      {"state", DataType::kFloat, Shape{2, 1, 128}, V::Constant(0.0)},
      {"sr", DataType::kInt64, Shape{}, V::Constant(16000)}};
  Result<std::vector<NamedTensor>> from_specs = GenerateInputs(specs, 3);
  ASSERT_TRUE(from_specs.ok());
  ASSERT_EQ(from_flags->size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    const Tensor& a = (*from_flags)[i].tensor;
    const Tensor& b = (*from_specs)[i].tensor;
    EXPECT_EQ((*from_flags)[i].name, (*from_specs)[i].name);
    ASSERT_EQ(a.shape(), b.shape());
    EXPECT_EQ(std::memcmp(a.raw_data(), b.raw_data(), a.byte_size()), 0) << i;
  }
  EXPECT_EQ(InputsDigest(*from_flags), InputsDigest(*from_specs));
  EXPECT_EQ((*from_flags)[2].tensor.data<int64_t>()[0], 16000);
}

TEST(InputFlagsTest, SymbolicDimsAndNamesHoldingEquals) {
  const std::vector<ValueInfo> inputs = {
      Decl("a=b", DataType::kFloat,
           std::vector<DimInfo>{DimInfo::Symbolic("batch=size"), DimInfo::Fixed(3)})};
  InputFlags flags;
  flags.dims = {"batch=size=4"};
  flags.values = {"a=b=2.5"};
  Result<std::vector<NamedTensor>> inputs_made = BuildInputsFromFlags(flags, inputs, true);
  ASSERT_TRUE(inputs_made.ok()) << inputs_made.status().ToString();
  EXPECT_EQ((*inputs_made)[0].tensor.shape(), (Shape{4, 3}));
  EXPECT_EQ((*inputs_made)[0].tensor.data<float>()[11], 2.5f);
}

TEST(InputFlagsTest, FlagsOverrideTheBaseSpecs) {
  InputFlags flags;
  flags.ranges = {"input=5,6"};
  std::vector<InputSpec> base = {{"input", std::nullopt, Shape{1, 4}, ValueDistribution::Constant(1)}};
  Result<GeneratorOptions> options = ParseGeneratorFlags(flags, SileroInputs(), base);
  ASSERT_TRUE(options.ok());
  ASSERT_EQ(options->inputs.size(), 1u);
  EXPECT_EQ(options->inputs[0].shape, (Shape{1, 4}));
  EXPECT_EQ(options->inputs[0].values->kind, ValueDistribution::Kind::kUniform);
  EXPECT_EQ(options->inputs[0].values->a, 5.0);
}

TEST(InputFlagsTest, ErrorsNameTheFlagAndTheText) {
  auto error = [](InputFlags flags) {
    Result<std::vector<NamedTensor>> made = BuildInputsFromFlags(flags, SileroInputs(), true);
    return made.ok() ? std::string("ok") : made.status().message();
  };
  InputFlags dim;
  dim.dims = {"N=two"};
  EXPECT_THAT(error(dim), HasSubstr("--dim 'N=two': 'two' is not a number"));
  InputFlags size;
  size.shapes = {"input=1,-2"};
  EXPECT_THAT(error(size), HasSubstr("--shape 'input=1,-2': '-2' is not a size"));
  InputFlags range;
  range.ranges = {"input=1"};
  EXPECT_THAT(error(range), HasSubstr("--range 'input=1': expected INPUT=LOW,HIGH"));
  InputFlags reversed;
  reversed.ranges = {"input=2,1"};
  EXPECT_THAT(error(reversed), HasSubstr("LOW 2 is above HIGH 1"));
  InputFlags no_name;
  no_name.values = {"=3"};
  EXPECT_THAT(error(no_name), HasSubstr("--value '=3': expected INPUT=V"));
  InputFlags typo;
  typo.values = {"inptu=3"};
  EXPECT_THAT(error(typo), HasSubstr("no model input is named 'inptu'"));
  InputFlags file;
  file.files = {"input=x.txt"};
  EXPECT_THAT(error(file), HasSubstr("must end in .npy"));

  // Without generating the rest, every input lacking a file or a generator flag is named at once;
  // an input a generator flag names is generated.
  Result<std::vector<NamedTensor>> missing =
      BuildInputsFromFlags(InputFlags{}, SileroInputs(), /*generate_missing=*/false);
  ASSERT_FALSE(missing.ok());
  EXPECT_THAT(missing.status().message(), HasSubstr("inputs not given: 'input' ("));
  EXPECT_THAT(missing.status().message(), HasSubstr("'state' ("));
  EXPECT_THAT(missing.status().message(), HasSubstr("'sr' ("));
  EXPECT_THAT(missing.status().message(), HasSubstr("--input NAME=FILE.npy"));
  InputFlags some;
  some.values = {"sr=16000"};
  some.shapes = {"sr="};
  Result<std::vector<NamedTensor>> partly =
      BuildInputsFromFlags(some, SileroInputs(), /*generate_missing=*/false);
  ASSERT_FALSE(partly.ok());
  EXPECT_THAT(partly.status().message(), Not(HasSubstr("'sr'")));
  some.shapes = {"sr=", "input=1,512", "state=2,1,128"};
  Result<std::vector<NamedTensor>> all =
      BuildInputsFromFlags(some, SileroInputs(), /*generate_missing=*/false);
  ASSERT_TRUE(all.ok()) << all.status().ToString();
  EXPECT_EQ((*all)[2].tensor.data<int64_t>()[0], 16000);
}

TEST(InputFlagsTest, DigestSeesEveryByteNameAndShape) {
  const std::vector<InputSpec> specs = {
      {"x", DataType::kFloat, Shape{2, 3}, ValueDistribution::Uniform(0, 1)}};
  Result<std::vector<NamedTensor>> a = GenerateInputs(specs, 1);
  Result<std::vector<NamedTensor>> b = GenerateInputs(specs, 1);
  ASSERT_TRUE(a.ok() && b.ok());
  const std::string digest = InputsDigest(*a);
  EXPECT_EQ(digest.size(), 16u);
  EXPECT_EQ(InputsDigest(*b), digest);
  (*b)[0].tensor.mutable_data<float>()[5] += 1.0f;
  EXPECT_NE(InputsDigest(*b), digest);
  Result<std::vector<NamedTensor>> renamed = GenerateInputs(specs, 1);
  (*renamed)[0].name = "y";
  EXPECT_NE(InputsDigest(*renamed), digest);
}

}  // namespace
}  // namespace nxrt
