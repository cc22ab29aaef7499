// ep/cpu/kernels/half_precision_test.cpp: float16 and bfloat16 nodes as the session runs them,
// in float32 islands (optimizer pass insert_cast), op by op.
//
// For each op of the table below, random problems from a fixed seed (odd sizes, lengths that
// leave tails past 16-lane blocks, NaN and infinities in elementwise inputs) are run three ways
// at 1 and 2 threads: (1) the half-precision one-node model as a session runs it by default;
// (2) the same model in float32 with the half values widened exactly, whose outputs rounded once
// to the half type are what (1) must give (an island is Cast to float32, the float32 kernel, Cast
// back), equal or one unit of the half type apart; (3) the half model with insert_cast switched off, i.e. the kernels' own
// half-precision reference loops, which (1) must match within the half type's rounding. In
// float16 at one thread and without NaN, (1) must also match ONNX Runtime 1.30 on the same model
// within the same tolerance (ORT's CPU EP runs these nodes in float32 between inserted Casts too).
// tests/fp16_int8_models_match_ort_test.py does the same on whole float16 models.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "ep/cpu/math/testing/nn_test_util.h"
#include "ep/cpu/testing/single_op_model.h"
#include "ort_oracle/ort_oracle.h"

namespace nxrt::cpu {
namespace {

using testing::FloatAttr;
using testing::Initializer;
using testing::Input;
using testing::IntAttr;
using testing::IntsAttr;
using testing::OpInput;
using testing::SingleOpModel;

// One input of a problem: a tensor of the half type (given in float32 before rounding), a
// float32 or int64 tensor whatever the problem's type (Resize's scales, ReduceSum's axes), or an
// omitted slot.
struct Operand {
  enum class Kind { kHalf, kFloat, kInt64, kOmitted };
  std::vector<int64_t> shape;
  std::vector<float> values;
  bool constant = false;
  Kind kind = Kind::kHalf;
  std::vector<int64_t> ints;
};

struct Problem {
  std::vector<Operand> inputs;
  std::vector<AttributeValue> attributes;
  int outputs = 1;
  DataType output_type = DataType::kUndefined;  // kUndefined: the half type
};

using Maker = std::function<Problem(std::mt19937&)>;

struct OpCaseDef {
  std::string op;
  Maker make;
  bool specials = false;  // NaN and infinities in the inputs
};

int64_t Count(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

int64_t Pick(std::mt19937& rng, int64_t lo, int64_t hi) {
  return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
}

Operand Uniform(std::mt19937& rng, std::vector<int64_t> shape, float lo = -2, float hi = 2,
                bool constant = false) {
  Operand o;
  o.shape = std::move(shape);
  o.constant = constant;
  std::uniform_real_distribution<float> dist(lo, hi);
  o.values.resize(static_cast<size_t>(Count(o.shape)));
  for (float& v : o.values) v = dist(rng);
  return o;
}

Operand Ints(std::vector<int64_t> values) {
  Operand o;
  o.shape = {static_cast<int64_t>(values.size())};
  o.kind = Operand::Kind::kInt64;
  o.constant = true;
  o.ints = std::move(values);
  return o;
}

// A random shape of rank 1..4 with 1..max_count elements, dims odd more often than not.
std::vector<int64_t> RandomShape(std::mt19937& rng, int64_t max_count = 3000) {
  const int rank = static_cast<int>(Pick(rng, 1, 4));
  std::vector<int64_t> shape;
  int64_t count = 1;
  for (int i = 0; i < rank; ++i) {
    const int64_t d = std::max<int64_t>(1, std::min<int64_t>(Pick(rng, 1, 37), max_count / count));
    shape.push_back(d);
    count *= d;
  }
  return shape;
}

Maker UnaryMaker(std::vector<AttributeValue> attributes = {},
                 DataType output = DataType::kUndefined) {
  return [attributes, output](std::mt19937& rng) {
    Problem p;
    p.inputs.push_back(Uniform(rng, RandomShape(rng), -4, 4));
    p.attributes = attributes;
    p.output_type = output;
    return p;
  };
}

// X and a Y broadcasting into it (some dims 1, or fewer dims).
Maker BinaryMaker(DataType output = DataType::kUndefined) {
  return [output](std::mt19937& rng) {
    Problem p;
    const std::vector<int64_t> a = RandomShape(rng);
    std::vector<int64_t> b(a.begin() + Pick(rng, 0, static_cast<int64_t>(a.size()) - 1), a.end());
    for (int64_t& d : b) {
      if (Pick(rng, 0, 2) == 0) d = 1;
    }
    p.inputs.push_back(Uniform(rng, a, -3, 3));
    p.inputs.push_back(Uniform(rng, b, 0.5f, 3, Pick(rng, 0, 1) == 0));
    p.output_type = output;
    return p;
  };
}

Problem ConvProblem(std::mt19937& rng) {
  Problem p;
  const int64_t n = Pick(rng, 1, 2), c = Pick(rng, 1, 9), h = Pick(rng, 3, 13),
                w = Pick(rng, 3, 13);
  const bool depthwise = Pick(rng, 0, 2) == 0;
  const int64_t m = depthwise ? c : Pick(rng, 1, 11), group = depthwise ? c : 1;
  const int64_t k = Pick(rng, 0, 1) == 0 ? 1 : 3, stride = Pick(rng, 1, 2), pad = k / 2;
  p.inputs.push_back(Uniform(rng, {n, c, h, w}));
  p.inputs.push_back(Uniform(rng, {m, c / group, k, k}, -0.5f, 0.5f, true));
  p.inputs.push_back(Uniform(rng, {m}, -0.5f, 0.5f, true));
  p.attributes = {IntAttr("group", group), IntsAttr("strides", {stride, stride}),
                  IntsAttr("pads", {pad, pad, pad, pad})};
  return p;
}

Problem ConvTransposeProblem(std::mt19937& rng) {
  Problem p;
  const int64_t c = Pick(rng, 1, 6), m = Pick(rng, 1, 6), h = Pick(rng, 2, 9);
  p.inputs.push_back(Uniform(rng, {1, c, h, h + 1}));
  p.inputs.push_back(Uniform(rng, {c, m, 4, 4}, -0.5f, 0.5f, true));
  p.attributes = {IntsAttr("strides", {2, 2}), IntsAttr("pads", {1, 1, 1, 1})};
  return p;
}

Problem MatMulProblem(std::mt19937& rng) {
  Problem p;
  const int64_t batch = Pick(rng, 1, 3), m = Pick(rng, 1, 33), k = Pick(rng, 1, 70),
                n = Pick(rng, 1, 41);
  const bool constant_b = Pick(rng, 0, 1) == 0;
  p.inputs.push_back(Uniform(rng, {batch, m, k}));
  p.inputs.push_back(constant_b ? Uniform(rng, {k, n}, -1, 1, true)
                                : Uniform(rng, {batch, k, n}));
  return p;
}

Problem GemmProblem(std::mt19937& rng) {
  Problem p;
  const int64_t m = Pick(rng, 1, 33), k = Pick(rng, 1, 70), n = Pick(rng, 1, 41);
  p.inputs.push_back(Uniform(rng, {m, k}));
  p.inputs.push_back(Uniform(rng, {n, k}, -1, 1, true));
  p.inputs.push_back(Uniform(rng, {n}, -1, 1, true));
  p.attributes = {IntAttr("transB", 1), FloatAttr("alpha", 0.5f)};
  return p;
}

Maker PoolMaker(std::vector<AttributeValue> attributes) {
  return [attributes](std::mt19937& rng) {
    Problem p;
    p.inputs.push_back(Uniform(rng, {Pick(rng, 1, 2), Pick(rng, 1, 7), Pick(rng, 2, 17),
                                     Pick(rng, 2, 17)}, -4, 4));
    p.attributes = attributes;
    return p;
  };
}

Maker LastAxisMaker(std::vector<AttributeValue> attributes, bool scale_bias) {
  return [attributes, scale_bias](std::mt19937& rng) {
    Problem p;
    const int64_t rows = Pick(rng, 1, 40), h = Pick(rng, 1, 100);
    p.inputs.push_back(Uniform(rng, {rows, h}, -4, 4));
    if (scale_bias) {
      p.inputs.push_back(Uniform(rng, {h}, 0.5f, 1.5f, true));
      p.inputs.push_back(Uniform(rng, {h}, -0.5f, 0.5f, true));
    }
    p.attributes = attributes;
    return p;
  };
}

Problem BatchNormProblem(std::mt19937& rng) {
  Problem p;
  const int64_t c = Pick(rng, 1, 9);
  p.inputs.push_back(Uniform(rng, {Pick(rng, 1, 2), c, Pick(rng, 1, 11), Pick(rng, 1, 11)}));
  p.inputs.push_back(Uniform(rng, {c}, 0.5f, 1.5f, true));
  p.inputs.push_back(Uniform(rng, {c}, -0.5f, 0.5f, true));
  p.inputs.push_back(Uniform(rng, {c}, -0.5f, 0.5f, true));
  p.inputs.push_back(Uniform(rng, {c}, 0.5f, 2, true));
  return p;
}

Problem InstanceNormProblem(std::mt19937& rng) {
  Problem p;
  const int64_t c = Pick(rng, 1, 9);
  p.inputs.push_back(Uniform(rng, {Pick(rng, 1, 2), c, Pick(rng, 2, 11), Pick(rng, 2, 11)}));
  p.inputs.push_back(Uniform(rng, {c}, 0.5f, 1.5f, true));
  p.inputs.push_back(Uniform(rng, {c}, -0.5f, 0.5f, true));
  return p;
}

Maker ReduceMaker(bool axes_input) {
  return [axes_input](std::mt19937& rng) {
    Problem p;
    p.inputs.push_back(Uniform(rng, {Pick(rng, 1, 3), Pick(rng, 1, 9), Pick(rng, 1, 17),
                                     Pick(rng, 1, 17)}));
    if (axes_input) {
      p.inputs.push_back(Ints({2, 3}));
    } else {
      p.attributes = {IntsAttr("axes", {2, 3})};
    }
    return p;
  };
}

Problem ResizeProblem(std::mt19937& rng) {
  Problem p;
  p.inputs.push_back(Uniform(rng, {1, Pick(rng, 1, 5), Pick(rng, 1, 9), Pick(rng, 1, 9)}));
  p.inputs.push_back(Operand{{}, {}, false, Operand::Kind::kOmitted, {}});  // roi
  p.inputs.push_back(Operand{{4}, {1, 1, 2, 2}, true, Operand::Kind::kFloat, {}});
  p.attributes = {testing::StringAttr("mode", "linear")};
  return p;
}

Problem ClipProblem(std::mt19937& rng) {
  Problem p;
  p.inputs.push_back(Uniform(rng, RandomShape(rng), -8, 8));
  p.inputs.push_back(Operand{{}, {0.0f}, true, Operand::Kind::kHalf, {}});
  p.inputs.push_back(Operand{{}, {6.0f}, true, Operand::Kind::kHalf, {}});
  return p;
}

const std::vector<OpCaseDef>& Cases() {
  static const std::vector<OpCaseDef> cases = {
      {"Relu", UnaryMaker(), true},
      {"Sigmoid", UnaryMaker(), true},
      {"Tanh", UnaryMaker(), true},
      {"Erf", UnaryMaker(), true},
      {"Exp", UnaryMaker(), true},
      {"Log", UnaryMaker(), true},
      {"Sqrt", UnaryMaker(), true},
      {"Softplus", UnaryMaker(), true},
      {"LeakyRelu", UnaryMaker({FloatAttr("alpha", 0.1f)}), true},
      {"HardSwish", UnaryMaker(), true},
      {"Elu", UnaryMaker(), true},
      {"Sign", UnaryMaker(), true},
      {"Sin", UnaryMaker(), true},
      {"IsNaN", UnaryMaker({}, DataType::kBool), true},
      {"Add", BinaryMaker(), true},
      {"Sub", BinaryMaker(), true},
      {"Mul", BinaryMaker(), true},
      {"Div", BinaryMaker(), true},
      {"Max", BinaryMaker(), true},
      {"Pow", BinaryMaker(), false},
      {"Less", BinaryMaker(DataType::kBool), true},
      {"Clip", ClipProblem, true},
      {"Conv", ConvProblem, false},
      {"ConvTranspose", ConvTransposeProblem, false},
      {"MatMul", MatMulProblem, false},
      {"Gemm", GemmProblem, false},
      {"MaxPool", PoolMaker({IntsAttr("kernel_shape", {2, 2}), IntsAttr("strides", {2, 2}),
                             IntAttr("ceil_mode", 1)}), true},
      {"AveragePool", PoolMaker({IntsAttr("kernel_shape", {3, 3}), IntsAttr("pads", {1, 1, 1, 1})}),
       false},
      {"GlobalAveragePool", PoolMaker({}), false},
      {"Softmax", LastAxisMaker({IntAttr("axis", -1)}, false), true},
      {"LogSoftmax", LastAxisMaker({IntAttr("axis", -1)}, false), false},
      {"LayerNormalization", LastAxisMaker({IntAttr("axis", -1)}, true), false},
      {"BatchNormalization", BatchNormProblem, false},
      {"InstanceNormalization", InstanceNormProblem, false},
      {"ReduceMean", ReduceMaker(false), false},
      {"ReduceMax", ReduceMaker(false), true},
      {"ReduceSum", ReduceMaker(true), false},
      {"Resize", ResizeProblem, false},
  };
  return cases;
}

float RoundTo(DataType type, float v) {
  return type == DataType::kFloat16 ? static_cast<float>(Float16(v))
                                    : static_cast<float>(BFloat16(v));
}

// NaN, +inf and -inf at a few places of each non-constant half input.
void AddSpecials(std::mt19937& rng, Problem& p) {
  const float specials[] = {std::numeric_limits<float>::quiet_NaN(),
                            std::numeric_limits<float>::infinity(),
                            -std::numeric_limits<float>::infinity()};
  for (Operand& o : p.inputs) {
    if (o.constant || o.kind != Operand::Kind::kHalf || o.values.empty()) continue;
    for (float s : specials) {
      o.values[static_cast<size_t>(Pick(rng, 0, static_cast<int64_t>(o.values.size()) - 1))] = s;
    }
  }
}

Tensor MakeTensor(const Operand& o, DataType type) {
  if (o.kind == Operand::Kind::kInt64) return Tensor::FromVector<int64_t>(o.shape, o.ints).value();
  if (o.kind == Operand::Kind::kFloat) type = DataType::kFloat;
  Tensor t = Tensor::Allocate(type, o.shape).value();
  for (size_t i = 0; i < o.values.size(); ++i) {
    const float v = o.values[i];
    if (type == DataType::kFloat16) {
      t.mutable_data<Float16>()[i] = Float16(v);
    } else if (type == DataType::kBFloat16) {
      t.mutable_data<BFloat16>()[i] = BFloat16(v);
    } else {
      t.mutable_data<float>()[i] = v;
    }
  }
  return t;
}

SingleOpModel MakeModel(const std::string& op, const Problem& p, DataType type) {
  SingleOpModel model(op, 17);
  for (const Operand& o : p.inputs) {
    if (o.kind == Operand::Kind::kOmitted) {
      model.AddInput(testing::Omitted());
      continue;
    }
    const Tensor t = MakeTensor(o, type);
    model.AddInput(o.constant ? Initializer(t) : Input(t));
  }
  for (const AttributeValue& a : p.attributes) model.AddAttribute(a);
  for (int i = 0; i < p.outputs; ++i) {
    model.AddOutput(p.output_type == DataType::kUndefined ? type : p.output_type);
  }
  return model;
}

// Element i of `t` as a float (half, float, bool).
float At(const Tensor& t, int64_t i) {
  switch (t.dtype()) {
    case DataType::kFloat16:
      return static_cast<float>(t.data<Float16>()[i]);
    case DataType::kBFloat16:
      return static_cast<float>(t.data<BFloat16>()[i]);
    case DataType::kBool:
      return t.data<bool>()[i] ? 1.0f : 0.0f;
    default:
      return t.data<float>()[i];
  }
}

bool SameFloat(float a, float b) { return (std::isnan(a) && std::isnan(b)) || a == b; }

SessionOptions Options(int threads, bool islands) {
  SessionOptions options;
  options.intra_op_threads = threads;
  if (!islands) options.disabled_optimizers = {"insert_cast"};
  return options;
}

// The runs of one problem (file comment); returns false when the CPU EP has no half kernel for
// it (bfloat16 Conv...), so nothing was compared.
bool CheckProblem(const OpCaseDef& c, const Problem& p, DataType type, int threads,
                  const std::string& where, const oracle::OrtOracle* ort) {
  const SingleOpModel half_model = MakeModel(c.op, p, type);
  if (!half_model.CpuSupports().supported()) return false;
  Result<std::vector<Tensor>> island = half_model.Run(Options(threads, true));
  EXPECT_TRUE(island.ok()) << where << ": " << island.status().ToString();
  if (!island.ok()) return true;
  Problem wide = p;
  for (Operand& o : wide.inputs) {
    if (o.kind != Operand::Kind::kHalf) continue;
    for (float& v : o.values) v = RoundTo(type, v);
  }
  Result<std::vector<Tensor>> fp32 = MakeModel(c.op, wide, DataType::kFloat).Run(Options(threads, true));
  EXPECT_TRUE(fp32.ok()) << where << ": " << fp32.status().ToString();
  if (!fp32.ok()) return true;
  Result<std::vector<Tensor>> loops = half_model.Run(Options(threads, false));
  EXPECT_TRUE(loops.ok()) << where << ": " << loops.status().ToString();
  if (!loops.ok()) return true;
  const Tensor& y = (*island)[0];
  const Tensor& y32 = (*fp32)[0];
  const Tensor& y_loops = (*loops)[0];
  EXPECT_EQ(y.element_count(), y32.element_count()) << where;
  EXPECT_EQ(y.element_count(), y_loops.element_count()) << where;
  if (y.element_count() != y32.element_count() || y.element_count() != y_loops.element_count()) {
    return true;
  }
  std::vector<NamedTensor> ort_out;
  if (ort != nullptr) {
    std::vector<NamedTensor> feeds;
    for (size_t i = 0; i < p.inputs.size(); ++i) {
      const Operand& o = p.inputs[i];
      if (!o.constant && o.kind != Operand::Kind::kOmitted) {
        feeds.push_back({"x" + std::to_string(i), MakeTensor(o, type)});
      }
    }
    // One file per op: ctest runs the ops' tests in parallel processes.
    const std::string path = ::testing::TempDir() + "nxrt_half_precision_" + c.op + ".onnx";
    Result<std::string> bytes = half_model.Serialize();
    EXPECT_TRUE(bytes.ok());
    std::ofstream(path, std::ios::binary) << *bytes;
    Result<std::vector<NamedTensor>> r = ort->Run(path, feeds);
    std::remove(path.c_str());
    EXPECT_TRUE(r.ok()) << where << ": " << r.status().ToString();
    if (r.ok()) ort_out = std::move(*r);
  }
  EXPECT_EQ(y.dtype(), p.output_type == DataType::kUndefined ? type : p.output_type) << where;
  const float rtol = type == DataType::kFloat16 ? 1.0f / 256 : 1.0f / 32;
  int bad = 0;
  for (int64_t i = 0; i < y.element_count() && bad < 5; ++i) {
    const float expected = y.dtype() == DataType::kBool ? At(y32, i) : RoundTo(type, At(y32, i));
    const float got = At(y, i);
    // One unit of the half type apart at most: a reduction's float32 sum may differ in its last
    // bit between two sessions when the thread pool was busy for one of them (loops run inline).
    const float unit = type == DataType::kFloat16 ? 1.0f / 1024 : 1.0f / 128;
    if (!SameFloat(got, expected) && !(std::fabs(got - expected) <= unit * std::fabs(expected))) {
      ++bad;
      ADD_FAILURE() << where << " element " << i << ": island " << got
                    << ", float32 rounded once " << expected;
    }
    const float loop = At(y_loops, i);
    const bool close = SameFloat(got, loop) ||
                       std::fabs(got - loop) <= rtol * (1 + std::fabs(loop));
    if (!close) {
      ++bad;
      ADD_FAILURE() << where << " element " << i << ": island " << got
                    << ", half-precision reference loop " << loop;
    }
    if (!ort_out.empty()) {
      const float theirs = At(ort_out[0].tensor, i);
      if (!SameFloat(got, theirs) && !(std::fabs(got - theirs) <= rtol * (1 + std::fabs(theirs)))) {
        ++bad;
        ADD_FAILURE() << where << " element " << i << ": island " << got << ", ONNX Runtime "
                      << theirs;
      }
    }
  }
  return true;
}

class HalfPrecision : public ::testing::TestWithParam<size_t> {};

TEST_P(HalfPrecision, IslandEqualsFloat32RoundedOnceAndMatchesTheHalfLoops) {
  const OpCaseDef& c = Cases()[GetParam()];
  std::mt19937 rng(1600 + static_cast<uint32_t>(GetParam()));
  NXRT_ASSERT_OK_AND_ASSIGN(oracle::OrtOracle ort, oracle::OrtOracle::Load());
  int float16_checked = 0;
  for (DataType type : {DataType::kFloat16, DataType::kBFloat16}) {
    for (int trial = 0; trial < 3; ++trial) {
      Problem p = c.make(rng);
      // NaN is compared with the float32 kernels and the loops only: ORT's MaxPool and ReduceMax
      // drop a NaN that nxrt's propagate (in float32 too).
      const bool with_specials = c.specials && trial == 2;
      if (with_specials) AddSpecials(rng, p);
      for (int threads : {1, 2}) {
        const bool checked = CheckProblem(
            c, p, type, threads,
            c.op + " " + std::string(DataTypeName(type)) + " trial " + std::to_string(trial) +
                " threads " + std::to_string(threads),
            type == DataType::kFloat16 && threads == 1 && !with_specials ? &ort : nullptr);
        float16_checked += checked && type == DataType::kFloat16 ? 1 : 0;
      }
    }
  }
  EXPECT_EQ(float16_checked, 6) << "the CPU EP's table has no float16 kernel for " << c.op;
}

INSTANTIATE_TEST_SUITE_P(Ops, HalfPrecision, ::testing::Range<size_t>(0, Cases().size()),
                         [](const ::testing::TestParamInfo<size_t>& info) {
                           return Cases()[info.param].op;
                         });

}  // namespace
}  // namespace nxrt::cpu
