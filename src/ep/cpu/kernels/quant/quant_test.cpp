// ep/cpu/kernels/quant/quant_test.cpp: the quantization kernels run as one-node models against
// references written in the test from the ONNX definitions: per-tensor and per-axis
// (De)QuantizeLinear, DynamicQuantizeLinear, MatMulInteger, QLinearMatMul, ConvInteger and
// QLinearConv with random shapes, zero points and strides (fixed seeds).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "ep/cpu/kernels/tensor/single_op_test_util.h"
#include "ep/cpu/math/testing/nn_test_util.h"

namespace nxrt::cpu::kernels::testing {
namespace {

using nn::testing::AllClose;
using nn::testing::Count;
using nn::testing::RandomInt;
using nn::testing::RandomInts;
using nn::testing::RandomShape;
using nn::testing::RandomVector;

// Round half to even, written out: floor(v + 0.5), stepping back to even on an exact tie.
double RoundHalfEven(double v) {
  double r = std::floor(v + 0.5);
  if (r - v == 0.5 && std::fmod(r, 2.0) != 0) r -= 1;
  return r;
}

template <typename Q>
Q Saturate(double v) {
  return static_cast<Q>(std::clamp(v, static_cast<double>(std::numeric_limits<Q>::min()),
                                   static_cast<double>(std::numeric_limits<Q>::max())));
}

template <typename T>
Tensor Make(Shape shape, const std::vector<T>& values) {
  return Tensor::FromVector<T>(std::move(shape), values).value();
}

template <typename T>
std::vector<T> Cast(const std::vector<int64_t>& v) {
  return std::vector<T>(v.begin(), v.end());
}

TEST(QuantizeLinearKernel, RoundsHalfToEvenAndSaturates) {
  OpCase op{"QuantizeLinear", 13,
            {In(Make<float>({4}, {0.25f, 0.75f, 1.25f, 1.75f})), Const(Tensor::Scalar(0.5f)),
             Const(Tensor::Scalar(uint8_t{0}))}};
  NXRT_ASSERT_OK_AND_ASSIGN(std::vector<Tensor> y, RunOp(op));
  EXPECT_EQ(Values<uint8_t>(y[0]), (std::vector<uint8_t>{0, 2, 2, 4}));

  op.inputs[0] = In(Make<float>({4}, {-10.0f, 300.0f, 127.4f, -2.5f}));
  op.inputs[1] = Const(Tensor::Scalar(1.0f));
  NXRT_ASSERT_OK_AND_ASSIGN(y, RunOp(op));
  EXPECT_EQ(Values<uint8_t>(y[0]), (std::vector<uint8_t>{0, 255, 127, 0}));

  op.inputs[2] = Const(Tensor::Scalar(int8_t{0}));
  NXRT_ASSERT_OK_AND_ASSIGN(y, RunOp(op));
  EXPECT_EQ(Values<int8_t>(y[0]), (std::vector<int8_t>{-10, 127, 127, -2}));
}

TEST(QuantizeLinearKernel, PerTensorAndPerAxisMatchReference) {
  std::mt19937 rng(601);
  for (int iter = 0; iter < 30; ++iter) {
    const Shape shape = RandomShape(rng, RandomInt(rng, 1, 4), 1, 5);
    const int64_t rank = static_cast<int64_t>(shape.size());
    const bool per_axis = iter % 2 == 1;
    const int64_t axis = RandomInt(rng, -rank, rank - 1);
    const int64_t a = axis < 0 ? axis + rank : axis;
    const int64_t channels = per_axis ? shape[a] : 1;
    const std::vector<float> x = RandomVector<float>(rng, Count(shape), -300, 300);
    const std::vector<float> scale = RandomVector<float>(rng, channels, 0.5, 4);
    const bool signed_out = iter % 3 == 0;
    const std::vector<int64_t> zp = RandomInts(rng, channels, signed_out ? -20 : 0, signed_out ? 20 : 255);
    int64_t inner = 1;
    for (int64_t d = a + 1; d < rank; ++d) inner *= shape[d];
    std::vector<double> expected(x.size());
    for (size_t i = 0; i < x.size(); ++i) {
      const int64_t c = per_axis ? (static_cast<int64_t>(i) / inner) % channels : 0;
      const double v = RoundHalfEven(static_cast<double>(x[i] / scale[c])) + static_cast<double>(zp[c]);
      expected[i] = signed_out ? Saturate<int8_t>(v) : Saturate<uint8_t>(v);
    }
    const Shape param_shape = per_axis ? Shape{channels} : Shape{};
    OpCase op{"QuantizeLinear", 13,
              {In(Make<float>(shape, x)), Const(Make<float>(param_shape, scale)),
               signed_out ? Const(Make<int8_t>(param_shape, Cast<int8_t>(zp)))
                          : Const(Make<uint8_t>(param_shape, Cast<uint8_t>(zp)))},
              {IntAttr("axis", axis)}};
    NXRT_ASSERT_OK_AND_ASSIGN(std::vector<Tensor> y, RunOp(op));
    if (signed_out) {
      EXPECT_TRUE(AllClose(Values<int8_t>(y[0]), expected, 0, 0)) << "iter " << iter;
    } else {
      EXPECT_TRUE(AllClose(Values<uint8_t>(y[0]), expected, 0, 0)) << "iter " << iter;
    }
  }
}

TEST(QuantizeLinearKernel, PerAxisScaleOfTheWrongLengthIsAnError) {
  OpCase op{"QuantizeLinear", 13,
            {In(Make<float>({2, 3}, std::vector<float>(6, 1.0f))),
             Const(Make<float>({2}, {1.0f, 2.0f}))},
            {IntAttr("axis", 1)}};
  EXPECT_FALSE(RunOp(op).ok());
}

TEST(DequantizeLinearKernel, PerTensorAndPerAxisMatchReference) {
  std::mt19937 rng(602);
  for (int iter = 0; iter < 30; ++iter) {
    const Shape shape = RandomShape(rng, RandomInt(rng, 1, 4), 1, 5);
    const int64_t rank = static_cast<int64_t>(shape.size());
    const bool per_axis = iter % 2 == 0;
    const int64_t axis = RandomInt(rng, 0, rank - 1);
    const int64_t channels = per_axis ? shape[axis] : 1;
    const bool is_signed = iter % 3 == 0;
    const std::vector<int64_t> x =
        RandomInts(rng, Count(shape), is_signed ? -128 : 0, is_signed ? 127 : 255);
    const std::vector<int64_t> zp =
        RandomInts(rng, channels, is_signed ? -128 : 0, is_signed ? 127 : 255);
    const std::vector<float> scale = RandomVector<float>(rng, channels, 0.01, 2);
    int64_t inner = 1;
    for (int64_t d = axis + 1; d < rank; ++d) inner *= shape[d];
    std::vector<double> expected(x.size());
    for (size_t i = 0; i < x.size(); ++i) {
      const int64_t c = per_axis ? (static_cast<int64_t>(i) / inner) % channels : 0;
      expected[i] = static_cast<double>(x[i] - zp[c]) * scale[c];
    }
    const Shape ps = per_axis ? Shape{channels} : Shape{};
    OpCase op{"DequantizeLinear", 13, {}, {IntAttr("axis", axis)}};
    if (is_signed) {
      op.inputs = {In(Make<int8_t>(shape, Cast<int8_t>(x))), Const(Make<float>(ps, scale)),
                   Const(Make<int8_t>(ps, Cast<int8_t>(zp)))};
    } else {
      op.inputs = {In(Make<uint8_t>(shape, Cast<uint8_t>(x))), Const(Make<float>(ps, scale)),
                   Const(Make<uint8_t>(ps, Cast<uint8_t>(zp)))};
    }
    NXRT_ASSERT_OK_AND_ASSIGN(std::vector<Tensor> y, RunOp(op));
    EXPECT_TRUE(AllClose(Values<float>(y[0]), expected, 1e-6, 1e-6)) << "iter " << iter;
  }
}

TEST(DequantizeLinearKernel, Int32WithoutZeroPoint) {
  OpCase op{"DequantizeLinear", 10,
            {In(Make<int32_t>({3}, {-5, 0, 1000})), Const(Tensor::Scalar(0.5f))}};
  NXRT_ASSERT_OK_AND_ASSIGN(std::vector<Tensor> y, RunOp(op));
  EXPECT_EQ(Values<float>(y[0]), (std::vector<float>{-2.5f, 0.0f, 500.0f}));
}

TEST(DynamicQuantizeLinearKernel, MatchesReference) {
  std::mt19937 rng(603);
  for (int iter = 0; iter < 20; ++iter) {
    const Shape shape = RandomShape(rng, RandomInt(rng, 1, 3), 1, 6);
    const double lo = iter % 3 == 0 ? 0.5 : -4, hi = iter % 3 == 1 ? -0.5 : 3;
    const std::vector<float> x = RandomVector<float>(rng, Count(shape), lo, hi);
    float mn = 0, mx = 0;
    for (float v : x) {
      mn = std::min(mn, v);
      mx = std::max(mx, v);
    }
    const float scale = (mx - mn) / 255.0f;
    const double zp = Saturate<uint8_t>(RoundHalfEven(static_cast<double>((0.0f - mn) / scale)));
    std::vector<double> expected;
    for (float v : x) expected.push_back(Saturate<uint8_t>(RoundHalfEven(v / scale) + zp));
    OpCase op{"DynamicQuantizeLinear", 11, {In(Make<float>(shape, x))}, {}, 3};
    NXRT_ASSERT_OK_AND_ASSIGN(std::vector<Tensor> y, RunOp(op));
    EXPECT_TRUE(AllClose(Values<uint8_t>(y[0]), expected, 0, 0)) << "iter " << iter;
    EXPECT_FLOAT_EQ(*y[1].data<float>(), scale);
    EXPECT_EQ(*y[2].data<uint8_t>(), static_cast<uint8_t>(zp));
  }
}

// sum_k (a[m,k] - a_zp[m]) * (b[k,n] - b_zp[n]) for 2-D operands.
std::vector<int64_t> IntMatMulRef(const std::vector<int64_t>& a, const std::vector<int64_t>& b,
                                  const std::vector<int64_t>& a_zp,
                                  const std::vector<int64_t>& b_zp, int64_t m, int64_t k,
                                  int64_t n) {
  std::vector<int64_t> y(static_cast<size_t>(m * n), 0);
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      for (int64_t kk = 0; kk < k; ++kk) {
        y[i * n + j] += (a[i * k + kk] - a_zp[a_zp.size() == 1 ? 0 : i]) *
                        (b[kk * n + j] - b_zp[b_zp.size() == 1 ? 0 : j]);
      }
    }
  }
  return y;
}

TEST(MatMulIntegerKernel, ZeroPointsPerTensorRowAndColumnMatchReference) {
  std::mt19937 rng(604);
  for (int iter = 0; iter < 24; ++iter) {
    const int64_t m = RandomInt(rng, 1, 5), k = RandomInt(rng, 1, 7), n = RandomInt(rng, 1, 5);
    const int64_t batch = iter % 4 == 0 ? 3 : 1;
    const bool a_signed = iter % 2 == 0, b_signed = iter % 3 == 0;
    const std::vector<int64_t> a = RandomInts(rng, batch * m * k, a_signed ? -128 : 0, a_signed ? 127 : 255);
    const std::vector<int64_t> b = RandomInts(rng, k * n, b_signed ? -128 : 0, b_signed ? 127 : 255);
    const std::vector<int64_t> a_zp = RandomInts(rng, iter % 5 == 1 ? m : 1, a_signed ? -5 : 0, 10);
    const std::vector<int64_t> b_zp = RandomInts(rng, iter % 5 == 2 ? n : 1, b_signed ? -5 : 0, 10);
    std::vector<double> expected;
    for (int64_t bt = 0; bt < batch; ++bt) {
      const std::vector<int64_t> ab(a.begin() + bt * m * k, a.begin() + (bt + 1) * m * k);
      for (int64_t v : IntMatMulRef(ab, b, a_zp, b_zp, m, k, n)) expected.push_back(static_cast<double>(v));
    }
    const auto tensor = [](bool is_signed, Shape s, const std::vector<int64_t>& v) {
      return is_signed ? Make<int8_t>(std::move(s), Cast<int8_t>(v))
                       : Make<uint8_t>(std::move(s), Cast<uint8_t>(v));
    };
    const Shape a_shape = batch == 1 ? Shape{m, k} : Shape{batch, m, k};
    const Shape azs = a_zp.size() == 1 ? Shape{} : Shape{m};
    const Shape bzs = b_zp.size() == 1 ? Shape{} : Shape{n};
    OpCase op{"MatMulInteger", 10,
              {In(tensor(a_signed, a_shape, a)), Const(tensor(b_signed, {k, n}, b)),
               Const(tensor(a_signed, azs, a_zp)), Const(tensor(b_signed, bzs, b_zp))}};
    NXRT_ASSERT_OK_AND_ASSIGN(std::vector<Tensor> y, RunOp(op));
    Shape out_shape = a_shape;
    out_shape.back() = n;
    ASSERT_EQ(y[0].shape(), out_shape);
    EXPECT_TRUE(AllClose(Values<int32_t>(y[0]), expected, 0, 0)) << "iter " << iter;
  }
}

TEST(QLinearMatMulKernel, RequantizedProductsMatchReference) {
  std::mt19937 rng(605);
  for (int iter = 0; iter < 20; ++iter) {
    const int64_t m = RandomInt(rng, 1, 4), k = RandomInt(rng, 1, 6), n = RandomInt(rng, 1, 4);
    const std::vector<int64_t> a = RandomInts(rng, m * k, 0, 255);
    const std::vector<int64_t> b = RandomInts(rng, k * n, -128, 127);
    const std::vector<int64_t> a_zp = RandomInts(rng, 1, 100, 150), b_zp = RandomInts(rng, 1, -3, 3);
    const std::vector<int64_t> y_zp = RandomInts(rng, 1, 100, 150);
    const float a_scale = RandomVector<float>(rng, 1, 0.005, 0.02)[0];
    const float b_scale = RandomVector<float>(rng, 1, 0.005, 0.02)[0];
    const float y_scale = RandomVector<float>(rng, 1, 0.01, 0.05)[0];
    std::vector<double> expected;
    for (int64_t v : IntMatMulRef(a, b, a_zp, b_zp, m, k, n)) {
      const double real = static_cast<double>(static_cast<float>(v) * (a_scale * b_scale / y_scale));
      expected.push_back(Saturate<uint8_t>(RoundHalfEven(real) + static_cast<double>(y_zp[0])));
    }
    OpCase op{"QLinearMatMul", 10,
              {In(Make<uint8_t>({m, k}, Cast<uint8_t>(a))), Const(Tensor::Scalar(a_scale)),
               Const(Tensor::Scalar(static_cast<uint8_t>(a_zp[0]))),
               Const(Make<int8_t>({k, n}, Cast<int8_t>(b))), Const(Tensor::Scalar(b_scale)),
               Const(Tensor::Scalar(static_cast<int8_t>(b_zp[0]))), Const(Tensor::Scalar(y_scale)),
               Const(Tensor::Scalar(static_cast<uint8_t>(y_zp[0])))}};
    NXRT_ASSERT_OK_AND_ASSIGN(std::vector<Tensor> y, RunOp(op));
    // One unit of slack: the test's float product may round a tie the other way.
    EXPECT_TRUE(AllClose(Values<uint8_t>(y[0]), expected, 0, 1)) << "iter " << iter;
  }
}

// Direct 2-D convolution of (x - x_zp) and (w - w_zp[m]) with pads, strides and groups.
struct ConvCase {
  int64_t n, c, h, w, m, kh, kw, group, stride, pad;
};

std::vector<int64_t> IntConvRef(const ConvCase& p, const std::vector<int64_t>& x,
                                const std::vector<int64_t>& w, int64_t x_zp,
                                const std::vector<int64_t>& w_zp, int64_t& oh, int64_t& ow) {
  oh = (p.h + 2 * p.pad - p.kh) / p.stride + 1;
  ow = (p.w + 2 * p.pad - p.kw) / p.stride + 1;
  const int64_t cg = p.c / p.group, mg = p.m / p.group;
  std::vector<int64_t> y(static_cast<size_t>(p.n * p.m * oh * ow), 0);
  for (int64_t n = 0; n < p.n; ++n)
    for (int64_t m = 0; m < p.m; ++m)
      for (int64_t i = 0; i < oh; ++i)
        for (int64_t j = 0; j < ow; ++j) {
          int64_t sum = 0;
          for (int64_t c = 0; c < cg; ++c)
            for (int64_t u = 0; u < p.kh; ++u)
              for (int64_t v = 0; v < p.kw; ++v) {
                const int64_t r = i * p.stride - p.pad + u, s = j * p.stride - p.pad + v;
                if (r < 0 || r >= p.h || s < 0 || s >= p.w) continue;
                const int64_t ci = (m / mg) * cg + c;
                sum += (x[((n * p.c + ci) * p.h + r) * p.w + s] - x_zp) *
                       (w[((m * cg + c) * p.kh + u) * p.kw + v] - w_zp[w_zp.size() == 1 ? 0 : m]);
              }
          y[((n * p.m + m) * oh + i) * ow + j] = sum;
        }
  return y;
}

ConvCase RandomConv(std::mt19937& rng) {
  ConvCase p;
  p.group = RandomInt(rng, 1, 2);
  p.n = RandomInt(rng, 1, 2);
  p.c = p.group * RandomInt(rng, 1, 3);
  p.m = p.group * RandomInt(rng, 1, 3);
  p.h = RandomInt(rng, 3, 7);
  p.w = RandomInt(rng, 3, 7);
  p.kh = RandomInt(rng, 1, 3);
  p.kw = RandomInt(rng, 1, 3);
  p.stride = RandomInt(rng, 1, 2);
  p.pad = RandomInt(rng, 0, 1);
  return p;
}

std::vector<AttributeValue> ConvAttrs(const ConvCase& p) {
  return {IntsAttr("strides", {p.stride, p.stride}),
          IntsAttr("pads", {p.pad, p.pad, p.pad, p.pad}), IntAttr("group", p.group)};
}

TEST(ConvIntegerKernel, PadsStridesGroupsMatchReference) {
  std::mt19937 rng(606);
  for (int iter = 0; iter < 20; ++iter) {
    const ConvCase p = RandomConv(rng);
    const std::vector<int64_t> x = RandomInts(rng, p.n * p.c * p.h * p.w, 0, 255);
    const std::vector<int64_t> w = RandomInts(rng, p.m * (p.c / p.group) * p.kh * p.kw, -128, 127);
    const int64_t x_zp = RandomInt(rng, 0, 255);
    const std::vector<int64_t> w_zp = RandomInts(rng, iter % 2 == 0 ? p.m : 1, -4, 4);
    int64_t oh = 0, ow = 0;
    std::vector<double> expected;
    for (int64_t v : IntConvRef(p, x, w, x_zp, w_zp, oh, ow)) expected.push_back(static_cast<double>(v));
    OpCase op{"ConvInteger", 10,
              {In(Make<uint8_t>({p.n, p.c, p.h, p.w}, Cast<uint8_t>(x))),
               Const(Make<int8_t>({p.m, p.c / p.group, p.kh, p.kw}, Cast<int8_t>(w))),
               Const(Tensor::Scalar(static_cast<uint8_t>(x_zp))),
               Const(Make<int8_t>(w_zp.size() == 1 ? Shape{} : Shape{p.m}, Cast<int8_t>(w_zp)))},
              ConvAttrs(p)};
    NXRT_ASSERT_OK_AND_ASSIGN(std::vector<Tensor> y, RunOp(op));
    ASSERT_EQ(y[0].shape(), (Shape{p.n, p.m, oh, ow}));
    EXPECT_TRUE(AllClose(Values<int32_t>(y[0]), expected, 0, 0)) << "iter " << iter;
  }
}

TEST(QLinearConvKernel, RequantizedWithBiasMatchesReference) {
  std::mt19937 rng(607);
  for (int iter = 0; iter < 16; ++iter) {
    const ConvCase p = RandomConv(rng);
    const std::vector<int64_t> x = RandomInts(rng, p.n * p.c * p.h * p.w, -128, 127);
    const std::vector<int64_t> w = RandomInts(rng, p.m * (p.c / p.group) * p.kh * p.kw, -128, 127);
    const int64_t x_zp = RandomInt(rng, -10, 10), y_zp = RandomInt(rng, -10, 10);
    const std::vector<int64_t> w_zp(1, 0);
    const std::vector<int64_t> bias = RandomInts(rng, p.m, -2000, 2000);
    const std::vector<float> w_scale = RandomVector<float>(rng, p.m, 0.001, 0.01);
    const float x_scale = 0.02f, y_scale = 0.5f;
    int64_t oh = 0, ow = 0;
    const std::vector<int64_t> acc = IntConvRef(p, x, w, x_zp, w_zp, oh, ow);
    std::vector<double> expected;
    for (size_t i = 0; i < acc.size(); ++i) {
      const int64_t m = (static_cast<int64_t>(i) / (oh * ow)) % p.m;
      const float real = static_cast<float>(acc[i] + bias[m]) * (x_scale * w_scale[m] / y_scale);
      expected.push_back(Saturate<int8_t>(RoundHalfEven(real) + static_cast<double>(y_zp)));
    }
    std::vector<int32_t> bias32(bias.begin(), bias.end());
    OpCase op{"QLinearConv", 10,
              {In(Make<int8_t>({p.n, p.c, p.h, p.w}, Cast<int8_t>(x))),
               Const(Tensor::Scalar(x_scale)), Const(Tensor::Scalar(static_cast<int8_t>(x_zp))),
               Const(Make<int8_t>({p.m, p.c / p.group, p.kh, p.kw}, Cast<int8_t>(w))),
               Const(Make<float>({p.m}, w_scale)), Const(Tensor::Scalar(int8_t{0})),
               Const(Tensor::Scalar(y_scale)), Const(Tensor::Scalar(static_cast<int8_t>(y_zp))),
               Const(Make<int32_t>({p.m}, bias32))},
              ConvAttrs(p)};
    NXRT_ASSERT_OK_AND_ASSIGN(std::vector<Tensor> y, RunOp(op));
    ASSERT_EQ(y[0].shape(), (Shape{p.n, p.m, oh, ow}));
    EXPECT_TRUE(AllClose(Values<int8_t>(y[0]), expected, 0, 1)) << "iter " << iter;
  }
}

}  // namespace
}  // namespace nxrt::cpu::kernels::testing
