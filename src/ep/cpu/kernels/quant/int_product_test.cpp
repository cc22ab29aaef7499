// ep/cpu/kernels/quant/int_product_test.cpp: MatMulInteger, QLinearMatMul, ConvInteger and
// QLinearConv as one-node models, on random odd shapes (fixed seeds) in every pairing of int8 and
// uint8 operands, with per-tensor and per-channel zero points and scales, constant and runtime
// weights, at 1 and 2 threads, against a reference written here from ONNX Runtime's definition:
//   sum_k (a - za)(b - zb) = raw - za * sum_k b - zb * sum_k a + K za zb (int32, wrapping),
// where raw adds the products of the pairs k = (2j, 2j+1) into a saturating int16 when ORT's left
// operand is uint8 and its right one int8 on a CPU without VNNI (MLAS and oneDNN alike), and
// exactly otherwise; and
// requantization float(acc + bias) * (a_scale * b_scale / y_scale), rounded half to even, plus
// the zero point, saturated. Then the same models in ONNX Runtime 1.30: bit for bit.
// DynamicQuantizeLinear's edge cases (all zero, NaN, long inputs for the vector loops) likewise,
// and QuantizeLinear of float to int8/uint8 (per tensor and per axis, odd lengths, exact ties,
// NaN, infinities) against ONNX Runtime at 1 and 2 threads.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "core/cpu_features.h"
#include "ep/cpu/kernels/tensor/single_op_test_util.h"
#include "ep/cpu/math/testing/nn_test_util.h"
#include "ep/cpu/testing/single_op_model.h"
#include "ort_oracle/ort_oracle.h"

namespace nxrt::cpu::kernels::testing {
namespace {

using nn::testing::RandomInt;

constexpr DataType kU8 = DataType::kUint8;
constexpr DataType kS8 = DataType::kInt8;

int32_t Lowest(DataType t) { return t == kU8 ? 0 : -128; }
int32_t Highest(DataType t) { return t == kU8 ? 255 : 127; }

std::vector<int32_t> RandomValues(std::mt19937& rng, int64_t n, DataType t) {
  std::uniform_int_distribution<int32_t> d(Lowest(t), Highest(t));
  std::vector<int32_t> v(static_cast<size_t>(n));
  for (auto& x : v) x = d(rng);
  return v;
}

Tensor MakeInt8(DataType t, Shape shape, const std::vector<int32_t>& v) {
  if (t == kU8) {
    return Tensor::FromVector<uint8_t>(std::move(shape), std::vector<uint8_t>(v.begin(), v.end()))
        .value();
  }
  return Tensor::FromVector<int8_t>(std::move(shape), std::vector<int8_t>(v.begin(), v.end()))
      .value();
}

std::vector<int32_t> Ints(const Tensor& t) {
  std::vector<int32_t> v;
  for (int64_t i = 0; i < t.element_count(); ++i) {
    switch (t.dtype()) {
      case DataType::kUint8: v.push_back(t.data<uint8_t>()[i]); break;
      case DataType::kInt8: v.push_back(t.data<int8_t>()[i]); break;
      default: v.push_back(t.data<int32_t>()[i]); break;
    }
  }
  return v;
}

// ORT's sum over k of left[k] * right[k] (see the file comment), before zero points.
int64_t RawDot(const std::vector<int32_t>& left, const std::vector<int32_t>& right,
               bool saturate) {
  int64_t sum = 0;
  for (size_t k = 0; k < left.size(); k += 2) {
    int64_t pair = static_cast<int64_t>(left[k]) * right[k];
    if (k + 1 < left.size()) pair += static_cast<int64_t>(left[k + 1]) * right[k + 1];
    if (saturate) pair = std::clamp<int64_t>(pair, -32768, 32767);
    sum += pair;
  }
  return sum;
}

// The zero-point corrected sum of a left row and a right column, wrapped to int32.
int32_t Corrected(const std::vector<int32_t>& left, const std::vector<int32_t>& right,
                  int64_t zl, int64_t zr, bool saturate) {
  int64_t sl = 0, sr = 0;
  for (int32_t v : left) sl += v;
  for (int32_t v : right) sr += v;
  const int64_t k = static_cast<int64_t>(left.size());
  const int64_t acc = RawDot(left, right, saturate) - zl * sr - zr * sl + k * zl * zr;
  return static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint64_t>(acc)));
}

int32_t Requantize(int32_t acc, float multiplier, int32_t zero_point, DataType t) {
  const double v = std::nearbyint(static_cast<double>(static_cast<float>(acc) * multiplier)) +
                   zero_point;
  return static_cast<int32_t>(std::clamp<double>(v, Lowest(t), Highest(t)));
}

// ---- MatMul ----

struct MatMulCase {
  bool qlinear = false;
  DataType a_t = kU8, b_t = kS8, y_t = kU8;
  int64_t batch = 1, m = 1, k = 1, n = 1;
  bool b_batched = false, b_constant = true, a_zp_per_row = false, b_zp_per_column = false;
  bool no_zero_points = false;
  std::vector<int32_t> a, b, a_zp, b_zp;
  float a_scale = 1, y_scale = 1;
  std::vector<float> b_scale;
  int32_t y_zp = 0;
};

MatMulCase RandomMatMul(std::mt19937& rng, bool qlinear, DataType a_t, DataType b_t) {
  MatMulCase c;
  c.qlinear = qlinear;
  c.a_t = a_t;
  c.b_t = b_t;
  c.y_t = a_t;
  c.batch = RandomInt(rng, 1, 3);
  c.m = RandomInt(rng, 1, 40);
  c.k = RandomInt(rng, 1, 90);
  c.n = RandomInt(rng, 1, 40);
  c.b_batched = c.batch > 1 && RandomInt(rng, 0, 1) == 1;
  c.b_constant = RandomInt(rng, 0, 2) != 0;
  c.no_zero_points = !qlinear && RandomInt(rng, 0, 4) == 0;
  c.a_zp_per_row = !qlinear && RandomInt(rng, 0, 3) == 0;
  c.b_zp_per_column = RandomInt(rng, 0, 1) == 1;
  c.a = RandomValues(rng, c.batch * c.m * c.k, a_t);
  c.b = RandomValues(rng, (c.b_batched ? c.batch : 1) * c.k * c.n, b_t);
  c.a_zp = RandomValues(rng, c.a_zp_per_row ? c.m : 1, a_t);
  c.b_zp = RandomValues(rng, c.b_zp_per_column ? c.n : 1, b_t);
  if (qlinear) {
    std::uniform_real_distribution<float> s(0.002f, 0.02f);
    c.a_scale = s(rng);
    for (int64_t j = 0; j < (c.b_zp_per_column ? c.n : 1); ++j) c.b_scale.push_back(s(rng));
    c.y_scale = s(rng) * 40.0f;
    c.y_zp = RandomValues(rng, 1, c.y_t)[0];
  }
  return c;
}

std::vector<int32_t> MatMulReference(const MatMulCase& c) {
  const bool saturate = c.a_t == kU8 && c.b_t == kS8 && !CpuHasVnni();
  std::vector<int32_t> y;
  for (int64_t t = 0; t < c.batch; ++t) {
    const int64_t bt = c.b_batched ? t : 0;
    for (int64_t i = 0; i < c.m; ++i) {
      std::vector<int32_t> row(c.a.begin() + (t * c.m + i) * c.k,
                               c.a.begin() + (t * c.m + i) * c.k + c.k);
      for (int64_t j = 0; j < c.n; ++j) {
        std::vector<int32_t> column;
        for (int64_t kk = 0; kk < c.k; ++kk) column.push_back(c.b[(bt * c.k + kk) * c.n + j]);
        const int32_t za = c.no_zero_points ? 0 : c.a_zp[c.a_zp_per_row ? i : 0];
        const int32_t zb = c.no_zero_points ? 0 : c.b_zp[c.b_zp_per_column ? j : 0];
        const int32_t acc = Corrected(row, column, za, zb, saturate);
        if (!c.qlinear) {
          y.push_back(acc);
          continue;
        }
        const float multiplier = c.a_scale * c.b_scale[c.b_zp_per_column ? j : 0] / c.y_scale;
        y.push_back(Requantize(acc, multiplier, c.y_zp, c.y_t));
      }
    }
  }
  return y;
}

std::vector<OpInput> MatMulInputs(const MatMulCase& c) {
  const Shape a_shape = c.batch > 1 ? Shape{c.batch, c.m, c.k} : Shape{c.m, c.k};
  const Shape b_shape = c.b_batched ? Shape{c.batch, c.k, c.n} : Shape{c.k, c.n};
  const Shape azs = c.a_zp_per_row ? Shape{c.m} : Shape{};
  const Shape bzs = c.b_zp_per_column ? Shape{c.n} : Shape{};
  const Tensor b = MakeInt8(c.b_t, b_shape, c.b);
  const OpInput b_input = c.b_constant ? Const(b) : In(b);
  if (!c.qlinear) {
    if (c.no_zero_points) return {In(MakeInt8(c.a_t, a_shape, c.a)), b_input};
    return {In(MakeInt8(c.a_t, a_shape, c.a)), b_input, Const(MakeInt8(c.a_t, azs, c.a_zp)),
            Const(MakeInt8(c.b_t, bzs, c.b_zp))};
  }
  return {In(MakeInt8(c.a_t, a_shape, c.a)),
          Const(Tensor::Scalar(c.a_scale)),
          Const(MakeInt8(c.a_t, {}, c.a_zp)),
          b_input,
          Const(Tensor::FromVector<float>(bzs, c.b_scale).value()),
          Const(MakeInt8(c.b_t, bzs, c.b_zp)),
          Const(Tensor::Scalar(c.y_scale)),
          Const(MakeInt8(c.y_t, {}, {c.y_zp}))};
}

const char* OpName(bool qlinear, bool conv) {
  if (conv) return qlinear ? "QLinearConv" : "ConvInteger";
  return qlinear ? "QLinearMatMul" : "MatMulInteger";
}

std::string Describe(const MatMulCase& c) {
  return std::string(OpName(c.qlinear, false)) + " " + std::string(DataTypeName(c.a_t)) + " x " +
         std::string(DataTypeName(c.b_t)) + " batch " + std::to_string(c.batch) + " m " +
         std::to_string(c.m) + " k " + std::to_string(c.k) + " n " + std::to_string(c.n) +
         (c.b_constant ? " constant B" : " runtime B") +
         (c.b_zp_per_column ? " per-column" : " per-tensor");
}

void ExpectMatMulsMatchReference(bool qlinear, uint32_t seed, int per_pairing) {
  std::mt19937 rng(seed);
  const std::vector<std::pair<DataType, DataType>> pairings =
      qlinear ? std::vector<std::pair<DataType, DataType>>{{kU8, kS8}, {kU8, kU8}, {kS8, kS8}}
              : std::vector<std::pair<DataType, DataType>>{
                    {kU8, kS8}, {kU8, kU8}, {kS8, kS8}, {kS8, kU8}};
  for (auto [a_t, b_t] : pairings) {
    for (int iter = 0; iter < per_pairing; ++iter) {
      const MatMulCase c = RandomMatMul(rng, qlinear, a_t, b_t);
      const std::vector<int32_t> expected = MatMulReference(c);
      for (int threads : {1, 2}) {
        const OpCase op{OpName(qlinear, false), 10, MatMulInputs(c)};
        NXRT_ASSERT_OK_AND_ASSIGN(std::vector<Tensor> y, RunOp(op, AsWritten(threads)));
        EXPECT_EQ(Ints(y[0]), expected) << Describe(c) << ", " << threads << " threads";
      }
    }
  }
}

TEST(MatMulIntegerKernel, EveryPairingAndZeroPointMatchesReference) {
  ExpectMatMulsMatchReference(false, 1601, 6);
}

TEST(QLinearMatMulKernel, EveryPairingAndScaleMatchesReference) {
  ExpectMatMulsMatchReference(true, 1602, 5);
}

// The exact pairings with every operand at an extreme of its type (all at the lowest, or a mix
// of both ends) over a K of about a thousand, where no pair and no sum may lose a bit: batched A,
// constant and runtime B, 1 and 2 threads.
TEST(MatMulIntegerKernel, ExactPairingsWithExtremeOperands) {
  std::mt19937 rng(1603);
  const std::vector<std::pair<DataType, DataType>> pairings = {
      {kU8, kU8}, {kS8, kS8}, {kS8, kU8}};
  for (auto [a_t, b_t] : pairings) {
    for (int64_t k : {1023, 1024, 1025}) {
      for (bool all_lowest : {true, false}) {
        MatMulCase c = RandomMatMul(rng, false, a_t, b_t);
        c.k = k;
        c.batch = 2;
        c.b_batched = false;
        c.no_zero_points = all_lowest;
        const auto extreme = [&](DataType t) {
          return all_lowest || RandomInt(rng, 0, 1) == 0 ? Lowest(t) : Highest(t);
        };
        c.a.resize(static_cast<size_t>(c.batch * c.m * c.k));
        for (int32_t& v : c.a) v = extreme(a_t);
        c.b.resize(static_cast<size_t>(c.k * c.n));
        for (int32_t& v : c.b) v = extreme(b_t);
        const std::vector<int32_t> expected = MatMulReference(c);
        for (int threads : {1, 2}) {
          const OpCase op{"MatMulInteger", 10, MatMulInputs(c)};
          NXRT_ASSERT_OK_AND_ASSIGN(std::vector<Tensor> y, RunOp(op, AsWritten(threads)));
          EXPECT_EQ(Ints(y[0]), expected) << Describe(c) << ", " << threads << " threads";
        }
      }
    }
  }
}

TEST(MatMulIntegerKernel, LargeProductSaturatesPairsAsOrtDoes) {
  // 255 * 127 twice is 64770, saturated to 32767 per pair: the result ORT gives without VNNI.
  MatMulCase c;
  c.m = 2;
  c.k = 5;
  c.n = 3;
  c.no_zero_points = true;
  c.a.assign(10, 255);
  c.b.assign(15, 127);
  NXRT_ASSERT_OK_AND_ASSIGN(std::vector<Tensor> y,
                            RunOp(OpCase{"MatMulInteger", 10, MatMulInputs(c)}));
  const int32_t pairs = CpuHasVnni() ? 4 * 255 * 127 : 2 * 32767;
  EXPECT_EQ(Ints(y[0]), std::vector<int32_t>(6, pairs + 255 * 127));
  c.b_t = kU8;
  c.b.assign(15, 255);
  NXRT_ASSERT_OK_AND_ASSIGN(y, RunOp(OpCase{"MatMulInteger", 10, MatMulInputs(c)}));
  EXPECT_EQ(Ints(y[0]), std::vector<int32_t>(6, 5 * 255 * 255));
}

// ---- Conv ----

struct ConvCase {
  bool qlinear = false;
  DataType x_t = kU8, w_t = kS8, y_t = kU8;
  int64_t n = 1, c = 1, m = 1, group = 1;
  Shape spatial, kernel, strides, dilations, pads;  // pads: begin..., end...
  bool w_constant = true, w_per_channel = false, bias = false;
  std::vector<int32_t> x, w, w_zp, b;
  int32_t x_zp = 0, y_zp = 0;
  float x_scale = 1, y_scale = 1;
  std::vector<float> w_scale;
  Shape output;
};

ConvCase RandomConv(std::mt19937& rng, bool qlinear, DataType x_t, DataType w_t) {
  ConvCase c;
  c.qlinear = qlinear;
  c.x_t = x_t;
  c.w_t = w_t;
  c.y_t = x_t;
  const int64_t rank = RandomInt(rng, 0, 3) == 0 ? 1 : 2;
  c.group = RandomInt(rng, 0, 3) == 0 ? RandomInt(rng, 2, 3) : 1;
  c.n = RandomInt(rng, 1, 2);
  c.c = c.group * RandomInt(rng, 1, 9);
  c.m = c.group * RandomInt(rng, 1, 9);
  for (int64_t d = 0; d < rank; ++d) {
    c.kernel.push_back(RandomInt(rng, 1, 3));
    c.strides.push_back(RandomInt(rng, 1, 2));
    c.dilations.push_back(RandomInt(rng, 1, 2));
    c.spatial.push_back(RandomInt(rng, (c.kernel[d] - 1) * c.dilations[d] + 1, 9));
  }
  for (int64_t i = 0; i < 2 * rank; ++i) c.pads.push_back(RandomInt(rng, 0, 1));
  for (int64_t d = 0; d < rank; ++d) {
    const int64_t span = (c.kernel[d] - 1) * c.dilations[d] + 1;
    c.output.push_back((c.spatial[d] + c.pads[d] + c.pads[d + rank] - span) / c.strides[d] + 1);
  }
  c.w_constant = RandomInt(rng, 0, 3) != 0;
  c.w_per_channel = RandomInt(rng, 0, 1) == 1;
  c.bias = qlinear && RandomInt(rng, 0, 1) == 1;
  int64_t in_pixels = 1, taps = 1;
  for (int64_t d = 0; d < rank; ++d) {
    in_pixels *= c.spatial[d];
    taps *= c.kernel[d];
  }
  c.x = RandomValues(rng, c.n * c.c * in_pixels, x_t);
  c.w = RandomValues(rng, c.m * (c.c / c.group) * taps, w_t);
  c.x_zp = RandomValues(rng, 1, x_t)[0];
  // ORT's QLinearConv takes an int8 W's zero point as 0 only.
  c.w_zp = qlinear && w_t == kS8 ? std::vector<int32_t>(c.w_per_channel ? c.m : 1, 0)
                                 : RandomValues(rng, c.w_per_channel ? c.m : 1, w_t);
  if (qlinear) {
    std::uniform_real_distribution<float> s(0.002f, 0.02f);
    c.x_scale = s(rng);
    for (int64_t j = 0; j < (c.w_per_channel ? c.m : 1); ++j) c.w_scale.push_back(s(rng));
    c.y_scale = s(rng) * 40.0f;
    c.y_zp = RandomValues(rng, 1, c.y_t)[0];
    if (c.bias) {
      std::uniform_int_distribution<int32_t> d(-40000, 40000);
      for (int64_t j = 0; j < c.m; ++j) c.b.push_back(d(rng));
    }
  }
  return c;
}

std::vector<int32_t> ConvReference(const ConvCase& c) {
  const size_t rank = c.spatial.size();
  const int64_t cg = c.c / c.group, mg = c.m / c.group;
  int64_t in_pixels = 1, taps = 1, out_pixels = 1;
  for (size_t d = 0; d < rank; ++d) {
    in_pixels *= c.spatial[d];
    taps *= c.kernel[d];
    out_pixels *= c.output[d];
  }
  // ConvInteger: left W (k = channel, tap), right X; QLinearConv: left X (k = tap, channel),
  // except a depthwise one (one input and one output channel per group), which ORT computes
  // exactly.
  const bool depthwise = cg == 1 && mg == 1;
  const bool saturate = !CpuHasVnni() && (c.qlinear ? (c.x_t == kU8 && c.w_t == kS8 && !depthwise)
                                                    : (c.w_t == kU8 && c.x_t == kS8));
  std::vector<int32_t> y;
  for (int64_t n = 0; n < c.n; ++n) {
    for (int64_t m = 0; m < c.m; ++m) {
      const int64_t g = m / mg;
      for (int64_t o = 0; o < out_pixels; ++o) {
        // x (padding: x_zp) and w for every (channel, tap).
        std::vector<int32_t> xs(static_cast<size_t>(cg * taps)), ws(xs.size());
        for (int64_t ch = 0; ch < cg; ++ch) {
          for (int64_t t = 0; t < taps; ++t) {
            int64_t offset = 0, orem = o, trem = t;
            bool inside = true;
            std::vector<int64_t> od(rank), td(rank);
            for (size_t d = rank; d-- > 0;) {
              od[d] = orem % c.output[d];
              orem /= c.output[d];
              td[d] = trem % c.kernel[d];
              trem /= c.kernel[d];
            }
            for (size_t d = 0; d < rank; ++d) {
              const int64_t pos = od[d] * c.strides[d] - c.pads[d] + td[d] * c.dilations[d];
              inside = inside && pos >= 0 && pos < c.spatial[d];
              offset = offset * c.spatial[d] + pos;
            }
            const size_t at = static_cast<size_t>(c.qlinear ? t * cg + ch : ch * taps + t);
            xs[at] = inside ? c.x[static_cast<size_t>((n * c.c + g * cg + ch) * in_pixels + offset)]
                            : c.x_zp;
            ws[at] = c.w[static_cast<size_t>((m * cg + ch) * taps + t)];
          }
        }
        const int32_t wz = c.w_zp[c.w_per_channel ? m : 0];
        const int32_t acc = c.qlinear ? Corrected(xs, ws, c.x_zp, wz, saturate)
                                      : Corrected(ws, xs, wz, c.x_zp, saturate);
        if (!c.qlinear) {
          y.push_back(acc);
          continue;
        }
        const float multiplier = c.x_scale * c.w_scale[c.w_per_channel ? m : 0] / c.y_scale;
        const int32_t biased = static_cast<int32_t>(static_cast<uint32_t>(acc) +
                                                    static_cast<uint32_t>(c.bias ? c.b[m] : 0));
        y.push_back(Requantize(biased, multiplier, c.y_zp, c.y_t));
      }
    }
  }
  return y;
}

OpCase ConvOp(const ConvCase& c) {
  Shape x_shape = {c.n, c.c}, w_shape = {c.m, c.c / c.group};
  x_shape.insert(x_shape.end(), c.spatial.begin(), c.spatial.end());
  w_shape.insert(w_shape.end(), c.kernel.begin(), c.kernel.end());
  const Shape wzs = c.w_per_channel ? Shape{c.m} : Shape{};
  const Tensor w = MakeInt8(c.w_t, w_shape, c.w);
  const OpInput w_input = c.w_constant ? Const(w) : In(w);
  OpCase op{OpName(c.qlinear, true), 10, {}};
  op.attributes = {IntsAttr("strides", c.strides), IntsAttr("dilations", c.dilations),
                   IntsAttr("pads", c.pads), IntAttr("group", c.group)};
  if (!c.qlinear) {
    op.inputs = {In(MakeInt8(c.x_t, x_shape, c.x)), w_input, Const(MakeInt8(c.x_t, {}, {c.x_zp})),
                 Const(MakeInt8(c.w_t, wzs, c.w_zp))};
    return op;
  }
  op.inputs = {In(MakeInt8(c.x_t, x_shape, c.x)),
               Const(Tensor::Scalar(c.x_scale)),
               Const(MakeInt8(c.x_t, {}, {c.x_zp})),
               w_input,
               Const(Tensor::FromVector<float>(wzs, c.w_scale).value()),
               Const(MakeInt8(c.w_t, wzs, c.w_zp)),
               Const(Tensor::Scalar(c.y_scale)),
               Const(MakeInt8(c.y_t, {}, {c.y_zp}))};
  if (c.bias) op.inputs.push_back(Const(Tensor::FromVector<int32_t>({c.m}, c.b).value()));
  return op;
}

std::string Describe(const ConvCase& c) {
  return std::string(OpName(c.qlinear, true)) + " " + std::string(DataTypeName(c.x_t)) + " x " +
         std::string(DataTypeName(c.w_t)) + " N " + std::to_string(c.n) + " C " + std::to_string(c.c) +
         " M " + std::to_string(c.m) + " group " + std::to_string(c.group) + " spatial " +
         ShapeToString(c.spatial) + " kernel " + ShapeToString(c.kernel) + " strides " +
         ShapeToString(c.strides) + " dilations " + ShapeToString(c.dilations) + " pads " +
         ShapeToString(c.pads) + (c.w_constant ? " constant W" : " runtime W") +
         (c.w_per_channel ? " per-channel" : " per-tensor");
}

std::vector<std::pair<DataType, DataType>> ConvPairings(bool qlinear) {
  // ORT 1.30's QLinearConv takes uint8 X with uint8 or int8 W, and int8 X with int8 W.
  if (qlinear) return {{kU8, kS8}, {kU8, kU8}, {kS8, kS8}};
  return {{kU8, kS8}, {kU8, kU8}, {kS8, kS8}, {kS8, kU8}};
}

void ExpectConvsMatchReference(bool qlinear, uint32_t seed, int per_pairing) {
  std::mt19937 rng(seed);
  for (auto [x_t, w_t] : ConvPairings(qlinear)) {
    for (int iter = 0; iter < per_pairing; ++iter) {
      const ConvCase c = RandomConv(rng, qlinear, x_t, w_t);
      const std::vector<int32_t> expected = ConvReference(c);
      for (int threads : {1, 2}) {
        NXRT_ASSERT_OK_AND_ASSIGN(std::vector<Tensor> y, RunOp(ConvOp(c), AsWritten(threads)));
        Shape out_shape = {c.n, c.m};
        out_shape.insert(out_shape.end(), c.output.begin(), c.output.end());
        ASSERT_EQ(y[0].shape(), out_shape) << Describe(c);
        EXPECT_EQ(Ints(y[0]), expected) << Describe(c) << ", " << threads << " threads";
      }
    }
  }
}

TEST(ConvIntegerKernel, EveryPairingAndZeroPointMatchesReference) {
  ExpectConvsMatchReference(false, 1603, 6);
}

TEST(QLinearConvKernel, EveryPairingScaleAndBiasMatchesReference) {
  ExpectConvsMatchReference(true, 1604, 6);
}

// ---- ONNX Runtime ----

Result<std::vector<Tensor>> RunInOrt(const oracle::OrtOracle& ort, const OpCase& op,
                                     const std::string& path, int threads) {
  cpu::testing::SingleOpModel model(op.op_type, op.opset);
  std::vector<NamedTensor> feeds;
  for (size_t i = 0; i < op.inputs.size(); ++i) {
    model.AddInput(op.inputs[i]);
    if (!op.inputs[i].initializer) feeds.push_back({"x" + std::to_string(i), op.inputs[i].value});
  }
  for (const AttributeValue& a : op.attributes) model.AddAttribute(a);
  model.AddOutput(DataType::kUndefined);
  NXRT_ASSIGN_OR_RETURN(std::string bytes, model.Serialize());
  std::ofstream(path, std::ios::binary) << bytes;
  oracle::OracleOptions options;
  options.intra_op_threads = threads;
  NXRT_ASSIGN_OR_RETURN(oracle::OracleSession session, ort.CreateSession(path, options));
  NXRT_ASSIGN_OR_RETURN(std::vector<NamedTensor> outputs, session.Run(feeds));
  std::vector<Tensor> tensors;
  for (NamedTensor& t : outputs) tensors.push_back(std::move(t.tensor));
  return tensors;
}

TEST(IntegerProductsKernel, OneOpModelsMatchOnnxRuntimeBitForBit) {
  NXRT_ASSERT_OK_AND_ASSIGN(oracle::OrtOracle ort, oracle::OrtOracle::Load());
  const std::string path = ::testing::TempDir() + "nxrt_int_product_test.onnx";
  std::mt19937 rng(1605);
  for (bool qlinear : {false, true}) {
    const std::vector<std::pair<DataType, DataType>> pairings =
        qlinear ? std::vector<std::pair<DataType, DataType>>{{kU8, kS8}, {kU8, kU8}}
                : ConvPairings(false);
    for (auto [a_t, b_t] : pairings) {
      for (int iter = 0; iter < 3; ++iter) {
        const int threads = 1 + iter % 2;
        MatMulCase mc = RandomMatMul(rng, qlinear, a_t, b_t);
        // ORT's QLinearMatMul and MatMulInteger take per-tensor A parameters and B batches of
        // their own only with per-tensor B parameters.
        mc.a_zp_per_row = false;
        mc.a_zp.resize(1);
        mc.b_batched = false;
        mc.b.resize(static_cast<size_t>(mc.k * mc.n));
        const OpCase mop{OpName(qlinear, false), 10, MatMulInputs(mc)};
        NXRT_ASSERT_OK_AND_ASSIGN(std::vector<Tensor> expected,
                                  RunInOrt(ort, mop, path, threads));
        NXRT_ASSERT_OK_AND_ASSIGN(std::vector<Tensor> y, RunOp(mop, AsWritten(threads)));
        EXPECT_EQ(Ints(y[0]), Ints(expected[0])) << Describe(mc);

        ConvCase cc = RandomConv(rng, qlinear, a_t, b_t);
        if (!qlinear) {
          // ORT's ConvInteger takes a per-tensor w zero point only.
          cc.w_per_channel = false;
          cc.w_zp.resize(1);
        }
        const OpCase cop = ConvOp(cc);
        NXRT_ASSERT_OK_AND_ASSIGN(expected, RunInOrt(ort, cop, path, threads));
        NXRT_ASSERT_OK_AND_ASSIGN(y, RunOp(cop, AsWritten(threads)));
        EXPECT_EQ(Ints(y[0]), Ints(expected[0])) << Describe(cc);
      }
    }
  }
  // The shapes of the benchmark, once each: 64 channels, 3x3 (tall enough for several
  // bands of output rows and a shorter last one), and a 768-deep product.
  ConvCase big = RandomConv(rng, true, kU8, kS8);
  big.n = 1;
  big.c = big.m = 64;
  big.group = 1;
  big.spatial = {37, 120};
  big.kernel = {3, 3};
  big.strides = big.dilations = {1, 1};
  big.pads = {1, 1, 1, 1};
  big.w_constant = true;
  big.x = RandomValues(rng, 64 * 37 * 120, kU8);
  big.w = RandomValues(rng, 64 * 64 * 9, kS8);
  for (bool qlinear : {true, false}) {
    big.qlinear = qlinear;
    big.w_zp.assign(big.w_per_channel ? 64 : 1, 0);
    big.w_scale.assign(big.w_per_channel ? 64 : 1, 0.01f);
    big.b.assign(64, 1000);
    NXRT_ASSERT_OK_AND_ASSIGN(std::vector<Tensor> expected, RunInOrt(ort, ConvOp(big), path, 2));
    NXRT_ASSERT_OK_AND_ASSIGN(std::vector<Tensor> y, RunOp(ConvOp(big), AsWritten(2)));
    EXPECT_EQ(Ints(y[0]), Ints(expected[0])) << Describe(big);
  }
  // Depthwise, full-range values: ORT's depthwise kernel does not saturate.
  ConvCase depthwise = RandomConv(rng, true, kU8, kS8);
  depthwise.group = depthwise.c = depthwise.m = 8;
  depthwise.x = RandomValues(rng, depthwise.n * 8 * depthwise.spatial[0] *
                                      (depthwise.spatial.size() > 1 ? depthwise.spatial[1] : 1),
                             kU8);
  int64_t taps = 1;
  for (int64_t k : depthwise.kernel) taps *= k;
  depthwise.w = RandomValues(rng, 8 * taps, kS8);
  depthwise.w_zp.assign(depthwise.w_per_channel ? 8 : 1, 0);
  depthwise.w_scale.assign(depthwise.w_per_channel ? 8 : 1, 0.01f);
  depthwise.b.assign(8, 100);
  depthwise.y_scale = depthwise.x_scale * 0.01f * 500.0f;
  NXRT_ASSERT_OK_AND_ASSIGN(std::vector<Tensor> depthwise_ort,
                            RunInOrt(ort, ConvOp(depthwise), path, 1));
  NXRT_ASSERT_OK_AND_ASSIGN(std::vector<Tensor> depthwise_y, RunOp(ConvOp(depthwise)));
  EXPECT_EQ(Ints(depthwise_y[0]), Ints(depthwise_ort[0])) << Describe(depthwise);
  MatMulCase wide = RandomMatMul(rng, true, kU8, kS8);
  wide.batch = 1;
  wide.m = 17;
  wide.k = 768;
  wide.n = 300;
  wide.b_batched = false;
  wide.a = RandomValues(rng, wide.m * wide.k, kU8);
  wide.b = RandomValues(rng, wide.k * wide.n, kS8);
  wide.b_zp.assign(wide.b_zp_per_column ? wide.n : 1, 3);
  wide.b_scale.assign(wide.b_zp_per_column ? wide.n : 1, 0.01f);
  for (bool qlinear : {true, false}) {
    wide.qlinear = qlinear;
    const OpCase op{OpName(qlinear, false), 10, MatMulInputs(wide)};
    NXRT_ASSERT_OK_AND_ASSIGN(std::vector<Tensor> expected, RunInOrt(ort, op, path, 2));
    NXRT_ASSERT_OK_AND_ASSIGN(std::vector<Tensor> y, RunOp(op, AsWritten(2)));
    EXPECT_EQ(Ints(y[0]), Ints(expected[0])) << Describe(wide);
  }
  std::remove(path.c_str());
}

// ---- DynamicQuantizeLinear ----

std::vector<float> DynamicQuantizeReference(const std::vector<float>& x, float& scale,
                                            int32_t& zero_point) {
  float lo = 0, hi = 0;
  for (float v : x) {
    if (v < lo) lo = v;
    if (v > hi) hi = v;
  }
  scale = hi == lo ? 1.0f : (hi - lo) / 255.0f;
  zero_point = static_cast<int32_t>(std::nearbyint(std::clamp(0.0f - lo / scale, 0.0f, 255.0f)));
  std::vector<float> y;
  for (float v : x) {
    const float q = v / scale;
    if (std::isnan(q)) {
      y.push_back(0);
      continue;
    }
    y.push_back(std::clamp(std::nearbyint(q) + static_cast<float>(zero_point), 0.0f, 255.0f));
  }
  return y;
}

TEST(DynamicQuantizeLinearKernel, LongInputsZerosAndNanMatchReferenceAndOrt) {
  NXRT_ASSERT_OK_AND_ASSIGN(oracle::OrtOracle ort, oracle::OrtOracle::Load());
  const std::string path = ::testing::TempDir() + "nxrt_dynamic_quantize_test.onnx";
  std::mt19937 rng(1606);
  std::vector<std::vector<float>> inputs = {std::vector<float>(77, 0.0f)};
  for (int64_t count : {1, 31, 32, 33, 100, 1000, 4099}) {
    std::uniform_real_distribution<float> d(-3.0f, RandomInt(rng, 0, 1) == 1 ? 5.0f : -0.5f);
    std::vector<float> x(static_cast<size_t>(count));
    for (float& v : x) v = d(rng);
    inputs.push_back(x);
  }
  inputs.push_back(inputs.back());
  inputs.back()[5] = std::numeric_limits<float>::quiet_NaN();
  inputs.back()[40] = std::numeric_limits<float>::quiet_NaN();
  for (const std::vector<float>& x : inputs) {
    float scale = 0;
    int32_t zero_point = 0;
    const std::vector<float> expected = DynamicQuantizeReference(x, scale, zero_point);
    const int64_t n = static_cast<int64_t>(x.size());
    const OpCase op{"DynamicQuantizeLinear", 11,
                    {In(Tensor::FromVector<float>({n}, x).value())}, {}, 3};
    NXRT_ASSERT_OK_AND_ASSIGN(std::vector<Tensor> y, RunOp(op));
    std::vector<float> got;
    for (int32_t v : Ints(y[0])) got.push_back(static_cast<float>(v));
    EXPECT_EQ(got, expected) << "size " << n;
    EXPECT_EQ(*y[1].data<float>(), scale) << "size " << n;
    EXPECT_EQ(*y[2].data<uint8_t>(), zero_point) << "size " << n;

    cpu::testing::SingleOpModel model("DynamicQuantizeLinear", 11);
    model.AddInput(op.inputs[0]);
    for (int i = 0; i < 3; ++i) model.AddOutput(DataType::kUndefined);
    NXRT_ASSERT_OK_AND_ASSIGN(std::string bytes, model.Serialize());
    std::ofstream(path, std::ios::binary) << bytes;
    NXRT_ASSERT_OK_AND_ASSIGN(std::vector<NamedTensor> ort_y,
                              ort.Run(path, {{"x0", op.inputs[0].value}}));
    EXPECT_EQ(Ints(ort_y[0].tensor), Ints(y[0])) << "size " << n;
    EXPECT_EQ(*ort_y[1].tensor.data<float>(), *y[1].data<float>()) << "size " << n;
    EXPECT_EQ(*ort_y[2].tensor.data<uint8_t>(), *y[2].data<uint8_t>()) << "size " << n;
  }
  std::remove(path.c_str());
}

// Float x to int8/uint8, per tensor and per axis, with lengths around the vector steps and large
// enough to be split over 2 threads. x holds exact ties (multiples of half the scale, a power of
// two), values far outside the range, NaN and infinities.
TEST(QuantizeLinearKernel, FloatToInt8MatchesOrtBitForBit) {
  NXRT_ASSERT_OK_AND_ASSIGN(oracle::OrtOracle ort, oracle::OrtOracle::Load());
  const std::string path = ::testing::TempDir() + "nxrt_quantize_linear_test.onnx";
  std::mt19937 rng(1616);
  const std::vector<Shape> shapes = {{1}, {31}, {33}, {3, 7, 45}, {4099}, {3, 5, 20011}};
  for (size_t iter = 0; iter < 2 * shapes.size(); ++iter) {
    const Shape& shape = shapes[iter / 2];
    const DataType type = iter % 2 == 0 ? kU8 : kS8;
    const bool per_axis = shape.size() == 3 && iter % 4 < 2;
    const int64_t channels = per_axis ? shape[1] : 1;
    int64_t n = 1;
    for (int64_t d : shape) n *= d;
    std::vector<float> scales(static_cast<size_t>(channels));
    std::uniform_real_distribution<float> random_scale(0.01f, 2.0f);
    for (float& s : scales) s = iter % 3 == 0 ? 0.5f : random_scale(rng);
    std::vector<float> x(static_cast<size_t>(n));
    std::uniform_real_distribution<float> values(-400.0f, 400.0f);
    for (size_t i = 0; i < x.size(); ++i) {
      switch (RandomInt(rng, 0, 9)) {
        case 0: x[i] = 0.25f * static_cast<float>(RandomInt(rng, -600, 600)); break;  // ties
        case 1: x[i] = std::numeric_limits<float>::quiet_NaN(); break;
        case 2: x[i] = (i % 2 == 0 ? 1 : -1) * std::numeric_limits<float>::infinity(); break;
        case 3: x[i] = values(rng) * 1e6f; break;
        default: x[i] = values(rng); break;
      }
    }
    const std::vector<int32_t> zero_points = RandomValues(rng, channels, type);
    const Shape param_shape = per_axis ? Shape{channels} : Shape{};
    const OpCase op{"QuantizeLinear", 13,
                    {In(Tensor::FromVector<float>(shape, x).value()),
                     Const(Tensor::FromVector<float>(param_shape, scales).value()),
                     Const(MakeInt8(type, param_shape, zero_points))},
                    {IntAttr("axis", 1)}};
    for (int threads : {1, 2}) {
      NXRT_ASSERT_OK_AND_ASSIGN(std::vector<Tensor> expected, RunInOrt(ort, op, path, threads));
      NXRT_ASSERT_OK_AND_ASSIGN(std::vector<Tensor> y, RunOp(op, AsWritten(threads)));
      ASSERT_EQ(y[0].dtype(), type);
      EXPECT_EQ(Ints(y[0]), Ints(expected[0]))
          << DataTypeName(type) << ShapeToString(shape) << (per_axis ? " per axis" : "") << " at "
          << threads << " thread(s)";
    }
  }
  std::remove(path.c_str());
}

}  // namespace
}  // namespace nxrt::cpu::kernels::testing
