// ep/cpu/kernels/quant/low_bit_test.cpp: the 4-bit and float8 element types through
// QuantizeLinear-21, DequantizeLinear-21 and Cast-21, run as one-node models in nxrt and in ONNX
// Runtime 1.30 on random shapes with odd element counts (fixed seeds): per-tensor, per-axis and
// blocked scales, with and without zero points, saturating and not. ONNX 1.12's backend test data
// has no case for these types, so ORT is the oracle; outputs must be equal element for element
// (NaN equal to NaN, whatever its encoding).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "ep/cpu/kernels/tensor/single_op_test_util.h"
#include "ep/cpu/math/element_types.h"
#include "ep/cpu/math/testing/nn_test_util.h"
#include "ort_oracle/ort_oracle.h"

namespace nxrt::cpu::kernels::testing {
namespace {

using nn::testing::Count;
using nn::testing::RandomInt;
using nn::testing::RandomShape;
using nn::testing::RandomVector;

const std::vector<DataType> kLowBitTypes = {
    DataType::kInt4,       DataType::kUint4,          DataType::kFloat8E4M3FN,
    DataType::kFloat8E4M3FNUZ, DataType::kFloat8E5M2, DataType::kFloat8E5M2FNUZ};

// Every element of `t` as a double (int4 nibbles by sign, float8 decoded; NaN stays NaN).
std::vector<double> Decoded(const Tensor& t) {
  std::vector<double> out;
  const auto* bytes = static_cast<const uint8_t*>(t.raw_data());
  for (int64_t i = 0; i < t.element_count(); ++i) {
    if (IsPacked4Bit(t.dtype())) {
      const int nibble = (bytes[i / 2] >> (4 * (i % 2))) & 0x0F;
      out.push_back(t.dtype() == DataType::kInt4 && nibble >= 8 ? nibble - 16 : nibble);
      continue;
    }
    bool done = math::VisitType(math::Concat<math::NumericTypesBf16, math::Float8Types>{},
                                t.dtype(), [&](auto tag) {
                                  using T = typename decltype(tag)::type;
                                  out.push_back(static_cast<double>(math::Load(t.data<T>()[i])));
                                });
    EXPECT_TRUE(done) << t.Description();
  }
  return out;
}

void ExpectSameValues(const Tensor& got, const Tensor& want, const std::string& what) {
  ASSERT_EQ(got.dtype(), want.dtype()) << what;
  ASSERT_EQ(got.shape(), want.shape()) << what;
  const std::vector<double> g = Decoded(got), w = Decoded(want);
  for (size_t i = 0; i < g.size(); ++i) {
    if (std::isnan(w[i])) {
      EXPECT_TRUE(std::isnan(g[i])) << what << " element " << i;
    } else {
      ASSERT_EQ(g[i], w[i]) << what << " element " << i;
    }
  }
  if (IsPacked4Bit(got.dtype()) && got.element_count() % 2 == 1) {
    // The unused high nibble of an odd count is 0.
    EXPECT_EQ(static_cast<const uint8_t*>(got.raw_data())[got.byte_size() - 1] >> 4, 0) << what;
  }
}

// A tensor of `dtype` with random bytes (random codes; the unused nibble of an odd int4 count 0).
Tensor RandomCodes(std::mt19937& rng, DataType dtype, Shape shape) {
  Tensor t = Tensor::Allocate(dtype, std::move(shape)).value();
  auto* bytes = static_cast<uint8_t*>(t.mutable_raw_data());
  for (size_t i = 0; i < t.byte_size(); ++i) bytes[i] = static_cast<uint8_t>(rng());
  if (IsPacked4Bit(dtype) && t.element_count() % 2 == 1) bytes[t.byte_size() - 1] &= 0x0F;
  return t;
}

Tensor Floats(std::mt19937& rng, const Shape& shape, double lo, double hi) {
  return Tensor::FromVector<float>(shape, RandomVector<float>(rng, Count(shape), lo, hi)).value();
}

class LowBitVsOrt : public ::testing::Test {
 protected:
  void SetUp() override {
    Result<oracle::OrtOracle> ort = oracle::OrtOracle::Load();
    ASSERT_TRUE(ort.ok()) << ort.status().ToString();
    ort_.emplace(std::move(ort).value());
  }

  // Runs `model` in nxrt and ORT with `x` fed as input 0 and compares output 0.
  void ExpectMatchesOrt(const cpu::testing::SingleOpModel& model, const Tensor& x,
                        const std::string& what) {
    // One file per test: CTest runs the tests of this suite in parallel processes.
    const std::string path = ::testing::TempDir() + "nxrt_low_bit_test_" +
                             ::testing::UnitTest::GetInstance()->current_test_info()->name() +
                             ".onnx";
    NXRT_ASSERT_OK_AND_ASSIGN(std::string bytes, model.Serialize());
    std::ofstream(path, std::ios::binary) << bytes;
    Result<std::vector<NamedTensor>> expected = ort_->Run(path, {{"x0", x}});
    std::remove(path.c_str());
    ASSERT_TRUE(expected.ok()) << what << ": " << expected.status().ToString();
    NXRT_ASSERT_OK_AND_ASSIGN(std::vector<Tensor> y, model.Run());
    ExpectSameValues(y[0], (*expected)[0].tensor, what);
    ++compared_;
  }

  std::optional<oracle::OrtOracle> ort_;
  int compared_ = 0;
};

// Scale (and zero point) shapes for x of `shape`: per tensor, per axis or blocked along `axis`.
struct ScaleLayout {
  std::string name;
  int64_t axis = 1;
  int64_t block = 0;
  Shape scale_shape;
};

ScaleLayout RandomLayout(std::mt19937& rng, const Shape& shape, int kind) {
  ScaleLayout l;
  const auto rank = static_cast<int64_t>(shape.size());
  l.axis = RandomInt(rng, 0, rank - 1);
  if (kind == 0) {
    l.name = "per tensor";
  } else if (kind == 1) {
    l.name = "per axis " + std::to_string(l.axis);
    l.scale_shape = {shape[static_cast<size_t>(l.axis)]};
  } else {
    // ORT takes a blocked scale of one element for a per-tensor one and refuses block_size then:
    // block a dim of 2 or more into at least 2 blocks.
    for (int64_t d = 0; d < rank && shape[static_cast<size_t>(l.axis)] < 2; ++d) l.axis = d;
    const int64_t dim = shape[static_cast<size_t>(l.axis)];
    if (dim < 2) {
      l.name = "per tensor (no dim to block)";
      return l;
    }
    l.block = RandomInt(rng, 1, dim - 1);
    l.name = "blocked axis " + std::to_string(l.axis) + " block " + std::to_string(l.block);
    l.scale_shape = shape;
    int64_t& d = l.scale_shape[static_cast<size_t>(l.axis)];
    d = (d + l.block - 1) / l.block;
  }
  return l;
}

TEST_F(LowBitVsOrt, QuantizeLinear21MatchesOrt) {
  std::mt19937 rng(2201);
  for (DataType type : kLowBitTypes) {
    for (int iter = 0; iter < 9; ++iter) {
      const Shape shape = RandomShape(rng, RandomInt(rng, 1, 3), 1, 7);
      const ScaleLayout layout = RandomLayout(rng, shape, iter % 3);
      const bool with_zero_point = iter % 2 == 0;
      const bool saturate = IsPacked4Bit(type) || iter % 4 != 3;
      const Tensor x = Floats(rng, shape, -40, 40);
      const Tensor scale = Floats(rng, layout.scale_shape, 0.25, 4);
      cpu::testing::SingleOpModel model("QuantizeLinear", 21);
      model.AddInput(In(x)).AddInput(Const(scale));
      if (with_zero_point) {
        // ONNX requires float8 zero points to be 0; 4-bit ones are random.
        Tensor zp = IsPacked4Bit(type) ? RandomCodes(rng, type, layout.scale_shape)
                                       : Tensor::Allocate(type, layout.scale_shape).value();
        model.AddInput(Const(zp));
      } else {
        model.AddAttribute(IntAttr("output_dtype", static_cast<int64_t>(type)));
      }
      model.AddOutput(type);
      model.AddAttribute(IntAttr("axis", layout.axis));
      if (layout.block > 0) model.AddAttribute(IntAttr("block_size", layout.block));
      if (!saturate) model.AddAttribute(IntAttr("saturate", 0));
      ExpectMatchesOrt(model, x,
                       std::string(DataTypeName(type)) + " " + layout.name + " x " +
                           ShapeToString(shape) + (with_zero_point ? " with zero point" : "") +
                           (saturate ? "" : " saturate=0"));
    }
  }
  EXPECT_EQ(compared_, 54);
}

TEST_F(LowBitVsOrt, DequantizeLinear21MatchesOrt) {
  std::mt19937 rng(2202);
  for (DataType type : kLowBitTypes) {
    for (int iter = 0; iter < 9; ++iter) {
      const Shape shape = RandomShape(rng, RandomInt(rng, 1, 3), 1, 7);
      const ScaleLayout layout = RandomLayout(rng, shape, iter % 3);
      const bool with_zero_point = iter % 2 == 0;
      const Tensor x = RandomCodes(rng, type, shape);
      cpu::testing::SingleOpModel model("DequantizeLinear", 21);
      model.AddInput(In(x)).AddInput(Const(Floats(rng, layout.scale_shape, 0.25, 4)));
      if (with_zero_point) {
        model.AddInput(Const(IsPacked4Bit(type)
                                 ? RandomCodes(rng, type, layout.scale_shape)
                                 : Tensor::Allocate(type, layout.scale_shape).value()));
      }
      model.AddOutput(DataType::kFloat);
      model.AddAttribute(IntAttr("axis", layout.axis));
      if (layout.block > 0) model.AddAttribute(IntAttr("block_size", layout.block));
      ExpectMatchesOrt(model, x,
                       std::string(DataTypeName(type)) + " " + layout.name + " x " +
                           ShapeToString(shape) + (with_zero_point ? " with zero point" : ""));
    }
  }
  EXPECT_EQ(compared_, 54);
}

TEST_F(LowBitVsOrt, Cast21ToAndFromFloatMatchesOrt) {
  std::mt19937 rng(2203);
  for (DataType type : kLowBitTypes) {
    for (int iter = 0; iter < 4; ++iter) {
      const Shape shape = RandomShape(rng, RandomInt(rng, 1, 3), 1, 9);
      // Values beyond every range (float8e5m2's 57344 included), fractions and ties.
      const double range = iter == 0 ? 1e5 : (iter == 1 ? 500 : 20);
      Tensor x = Floats(rng, shape, -range, range);
      if (iter == 3) {
        float* v = x.mutable_data<float>();
        for (int64_t i = 0; i < x.element_count(); ++i) v[i] = std::round(v[i] * 2) / 2;
      }
      for (const bool saturate : {true, false}) {
        if (IsPacked4Bit(type) && !saturate) continue;
        cpu::testing::SingleOpModel to("Cast", 21);
        to.AddInput(In(x)).AddOutput(type);
        to.AddAttribute(IntAttr("to", static_cast<int64_t>(type)));
        if (!saturate) to.AddAttribute(IntAttr("saturate", 0));
        ExpectMatchesOrt(to, x,
                         "float -> " + std::string(DataTypeName(type)) + " range " +
                             std::to_string(range) + (saturate ? "" : " saturate=0"));
      }
      const Tensor codes = RandomCodes(rng, type, shape);
      cpu::testing::SingleOpModel from("Cast", 21);
      from.AddInput(In(codes)).AddOutput(DataType::kFloat);
      from.AddAttribute(IntAttr("to", static_cast<int64_t>(DataType::kFloat)));
      ExpectMatchesOrt(from, codes, std::string(DataTypeName(type)) + " -> float");
    }
  }
  // float8: to (saturating and not) and from; int4/uint4: to and from.
  EXPECT_EQ(compared_, 4 * 4 * 3 + 2 * 4 * 2);
}

TEST(LowBitTypes, Int4CastRoundsWrapsAndZeroesTheLastNibble) {
  const Tensor x = Tensor::FromVector<float>({3}, {-9.5f, 3.7f, 100.0f}).value();
  cpu::testing::SingleOpModel model("Cast", 21);
  model.AddInput(In(x)).AddOutput(DataType::kInt4);
  model.AddAttribute(IntAttr("to", static_cast<int64_t>(DataType::kInt4)));
  NXRT_ASSERT_OK_AND_ASSIGN(std::vector<Tensor> y, model.Run());
  ASSERT_EQ(y[0].byte_size(), 2u);
  // -9.5 rounds to -10 and wraps to 6, 3.7 rounds to 4, 100 wraps to 4; the fourth nibble is
  // padding.
  EXPECT_EQ(static_cast<const uint8_t*>(y[0].raw_data())[0], 0x46);
  EXPECT_EQ(static_cast<const uint8_t*>(y[0].raw_data())[1], 0x04);
}

}  // namespace
}  // namespace nxrt::cpu::kernels::testing
