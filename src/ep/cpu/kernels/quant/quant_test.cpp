// ep/cpu/kernels/quant/quant_test.cpp: the quantization kernels run as one-node models against
// references written in the test from the ONNX definitions: per-tensor and per-axis
// (De)QuantizeLinear and DynamicQuantizeLinear with random shapes and zero points (fixed seeds).
// The integer products are int_product_test.cpp's.
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

// Every fifth case has 8 Ki to 216 Ki elements, which the kernel splits over 2 threads in ranges
// that start inside a channel's run; each case runs at 1 and 2 threads.
TEST(DequantizeLinearKernel, PerTensorAndPerAxisMatchReference) {
  std::mt19937 rng(602);
  for (int iter = 0; iter < 30; ++iter) {
    const Shape shape = iter % 5 == 4 ? RandomShape(rng, 3, 20, 60)
                                      : RandomShape(rng, RandomInt(rng, 1, 4), 1, 5);
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
    for (int threads : {1, 2}) {
      SessionOptions options;
      options.intra_op_threads = threads;
      NXRT_ASSERT_OK_AND_ASSIGN(std::vector<Tensor> y, RunOp(op, options));
      EXPECT_TRUE(AllClose(Values<float>(y[0]), expected, 1e-6, 1e-6))
          << "iter " << iter << ", " << threads << " threads";
    }
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

}  // namespace
}  // namespace nxrt::cpu::kernels::testing
