// ep/cpu/kernels/nn/conv_test.cpp: Conv and ConvTranspose kernels (1-D to 3-D, groups, strides,
// dilations, pads and auto_pad, bias, kernel_shape from the weights) against direct references
// written from the ONNX definitions; com.nxrt:FusedConv's channels_last form against its NCHW
// form.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "ep/cpu/kernels/tensor/single_op_test_util.h"
#include "ep/cpu/math/testing/nn_test_util.h"

namespace nxrt::cpu::kernels::testing {
namespace {

using nn::testing::AllClose;
using nn::testing::Count;
using nn::testing::ForEachIndex;
using nn::testing::Offset;
using nn::testing::RandomInt;
using nn::testing::RandomVector;
using nn::testing::ToNchw;
using nn::testing::ToNhwc;

struct ConvCase {
  Shape x, w;
  int64_t group = 1;
  std::vector<int64_t> strides, dilations, pads_begin, pads_end;
  bool bias = false;
};

// Direct convolution: y[n, m, o] = b[m] + sum x[n, g*Cg + c, o*s - p + k*d] * w[m, c, k].
std::vector<double> ConvRef(const ConvCase& c, const std::vector<double>& x,
                            const std::vector<double>& w, const std::vector<double>& b,
                            Shape& y_shape) {
  const size_t sp = c.x.size() - 2;
  const int64_t m_total = c.w[0], cg = c.w[1], mg = m_total / c.group;
  y_shape = {c.x[0], m_total};
  for (size_t d = 0; d < sp; ++d) {
    const int64_t dk = (c.w[2 + d] - 1) * c.dilations[d] + 1;
    y_shape.push_back((c.x[2 + d] + c.pads_begin[d] + c.pads_end[d] - dk) / c.strides[d] + 1);
  }
  const Shape kernel(c.w.begin() + 2, c.w.end());
  std::vector<double> y(Count(y_shape));
  ForEachIndex(y_shape, [&](const std::vector<int64_t>& o) {
    const int64_t g = o[1] / mg;
    double sum = c.bias ? b[o[1]] : 0.0;
    for (int64_t ch = 0; ch < cg; ++ch) {
      ForEachIndex(kernel, [&](const std::vector<int64_t>& k) {
        std::vector<int64_t> xi = {o[0], g * cg + ch};
        for (size_t d = 0; d < sp; ++d) {
          const int64_t pos = o[2 + d] * c.strides[d] - c.pads_begin[d] + k[d] * c.dilations[d];
          if (pos < 0 || pos >= c.x[2 + d]) return;
          xi.push_back(pos);
        }
        std::vector<int64_t> wi = {o[1], ch};
        wi.insert(wi.end(), k.begin(), k.end());
        sum += x[Offset(c.x, xi)] * w[Offset(c.w, wi)];
      });
    }
    y[Offset(y_shape, o)] = sum;
  });
  return y;
}

ConvCase RandomConv(std::mt19937& rng) {
  ConvCase c;
  const size_t sp = static_cast<size_t>(RandomInt(rng, 1, 3));
  c.group = RandomInt(rng, 1, 3);
  const int64_t cg = RandomInt(rng, 1, 3), mg = RandomInt(rng, 1, 3);
  c.x = {RandomInt(rng, 1, 2), c.group * cg};
  c.w = {c.group * mg, cg};
  for (size_t d = 0; d < sp; ++d) {
    const int64_t k = RandomInt(rng, 1, 3);
    c.strides.push_back(RandomInt(rng, 1, 2));
    c.dilations.push_back(RandomInt(rng, 1, 2));
    c.pads_begin.push_back(RandomInt(rng, 0, 1));
    c.pads_end.push_back(RandomInt(rng, 0, 1));
    c.w.push_back(k);
    c.x.push_back((k - 1) * c.dilations.back() + 1 + RandomInt(rng, 0, sp == 3 ? 2 : 5));
  }
  c.bias = RandomInt(rng, 0, 1);
  return c;
}

std::vector<int64_t> Concat(std::vector<int64_t> a, const std::vector<int64_t>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

TEST(ConvKernel, RandomGeometriesMatchReference) {
  std::mt19937 rng(101);
  for (int iter = 0; iter < 40; ++iter) {
    const ConvCase c = RandomConv(rng);
    const std::vector<double> x = RandomVector<double>(rng, Count(c.x));
    const std::vector<double> w = RandomVector<double>(rng, Count(c.w));
    const std::vector<double> b = RandomVector<double>(rng, c.w[0]);
    Shape y_shape;
    const std::vector<double> expected = ConvRef(c, x, w, b, y_shape);
    const bool use_double = iter % 4 == 3;
    auto make = [&](const Shape& s, const std::vector<double>& v) {
      return use_double ? Tensor::FromVector<double>(s, v).value()
                        : Tensor::FromVector<float>(s, std::vector<float>(v.begin(), v.end()))
                              .value();
    };
    OpCase op{"Conv", iter % 2 ? 1 : 11, {In(make(c.x, x)), Const(make(c.w, w))},
              {IntAttr("group", c.group), IntsAttr("strides", c.strides),
               IntsAttr("dilations", c.dilations),
               IntsAttr("pads", Concat(c.pads_begin, c.pads_end))}};
    if (iter % 3 == 0) op.attributes.push_back(IntsAttr("kernel_shape", Shape(c.w.begin() + 2,
                                                                             c.w.end())));
    if (c.bias) op.inputs.push_back(Const(make({c.w[0]}, b)));
    NXRT_ASSERT_OK_AND_ASSIGN(std::vector<Tensor> y, RunOp(op));
    ASSERT_EQ(y[0].shape(), y_shape);
    if (use_double) {
      EXPECT_TRUE(AllClose(Values<double>(y[0]), expected, 1e-12, 1e-12));
    } else {
      EXPECT_TRUE(AllClose(Values<float>(y[0]), expected, 1e-4, 1e-5)) << "iteration " << iter;
    }
  }
}

TEST(ConvKernel, AutoPadSameAndValid) {
  std::mt19937 rng(102);
  for (const char* mode : {"SAME_UPPER", "SAME_LOWER", "VALID"}) {
    ConvCase c;
    c.x = {1, 2, 7, 6};
    c.w = {3, 2, 3, 2};
    c.strides = {2, 1};
    c.dilations = {1, 1};
    for (size_t d = 0; d < 2; ++d) {
      const int64_t in = c.x[2 + d], s = c.strides[d], k = c.w[2 + d];
      const int64_t out = (std::string(mode) == "VALID") ? (in - k) / s + 1 : (in + s - 1) / s;
      const int64_t total = std::string(mode) == "VALID" ? 0
                                                          : std::max<int64_t>(0, (out - 1) * s + k - in);
      const int64_t small = total / 2;
      c.pads_begin.push_back(std::string(mode) == "SAME_LOWER" ? total - small : small);
      c.pads_end.push_back(total - c.pads_begin.back());
    }
    const std::vector<double> x = RandomVector<double>(rng, Count(c.x));
    const std::vector<double> w = RandomVector<double>(rng, Count(c.w));
    Shape y_shape;
    const std::vector<double> expected = ConvRef(c, x, w, {}, y_shape);
    OpCase op{"Conv", 11,
              {In(Tensor::FromVector<float>(c.x, std::vector<float>(x.begin(), x.end())).value()),
               Const(Tensor::FromVector<float>(c.w, std::vector<float>(w.begin(), w.end()))
                         .value())},
              {StringAttr("auto_pad", mode), IntsAttr("strides", c.strides)}};
    NXRT_ASSERT_OK_AND_ASSIGN(std::vector<Tensor> y, RunOp(op));
    ASSERT_EQ(y[0].shape(), y_shape) << mode;
    EXPECT_TRUE(AllClose(Values<float>(y[0]), expected, 1e-4, 1e-5)) << mode;
  }
}

TEST(ConvKernel, ChannelMismatchAndBadAutoPadAreErrors) {
  OpCase op{"Conv", 11,
            {In(Tensor::Allocate(DataType::kFloat, {1, 3, 5, 5}).value()),
             In(Tensor::Allocate(DataType::kFloat, {2, 2, 3, 3}).value())}};
  Result<std::vector<Tensor>> mismatch = RunOp(op);
  ASSERT_FALSE(mismatch.ok());
  EXPECT_NE(mismatch.status().message().find("[1,3,5,5]"), std::string::npos)
      << mismatch.status().message();
  op.attributes = {StringAttr("auto_pad", "SAME")};
  Result<std::vector<Tensor>> bad = RunOp(op);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("attribute 'auto_pad' is 'SAME'"), std::string::npos)
      << bad.status().message();
}

// Transposed convolution: y[n, g*Mg + m, i*s + k*d - p] += x[n, g*Cg + c, i] * w[g*Cg + c, m, k].
std::vector<double> ConvTransposeRef(const ConvCase& c, const std::vector<int64_t>& out_pad,
                                     const std::vector<double>& x, const std::vector<double>& w,
                                     const std::vector<double>& b, Shape& y_shape) {
  const size_t sp = c.x.size() - 2;
  const int64_t cg = c.x[1] / c.group, mg = c.w[1];
  y_shape = {c.x[0], mg * c.group};
  for (size_t d = 0; d < sp; ++d) {
    y_shape.push_back(c.strides[d] * (c.x[2 + d] - 1) + out_pad[d] +
                      (c.w[2 + d] - 1) * c.dilations[d] + 1 - c.pads_begin[d] - c.pads_end[d]);
  }
  std::vector<double> y(Count(y_shape));
  ForEachIndex(y_shape, [&](const std::vector<int64_t>& o) {
    y[Offset(y_shape, o)] = c.bias ? b[o[1]] : 0.0;
  });
  const Shape kernel(c.w.begin() + 2, c.w.end());
  ForEachIndex(c.x, [&](const std::vector<int64_t>& i) {
    const int64_t g = i[1] / cg;
    for (int64_t m = 0; m < mg; ++m) {
      ForEachIndex(kernel, [&](const std::vector<int64_t>& k) {
        std::vector<int64_t> yi = {i[0], g * mg + m};
        for (size_t d = 0; d < sp; ++d) {
          const int64_t pos = i[2 + d] * c.strides[d] + k[d] * c.dilations[d] - c.pads_begin[d];
          if (pos < 0 || pos >= y_shape[2 + d]) return;
          yi.push_back(pos);
        }
        std::vector<int64_t> wi = {i[1], m};
        wi.insert(wi.end(), k.begin(), k.end());
        y[Offset(y_shape, yi)] += x[Offset(c.x, i)] * w[Offset(c.w, wi)];
      });
    }
  });
  return y;
}

TEST(ConvTransposeKernel, RandomGeometriesMatchReference) {
  std::mt19937 rng(103);
  for (int iter = 0; iter < 30; ++iter) {
    ConvCase c = RandomConv(rng);
    // ConvTranspose weights are [C, M/group, k...]: reuse the random dims with C = x[1].
    c.w[1] = c.w[0] / c.group;
    c.w[0] = c.x[1];
    for (size_t d = 2; d < c.x.size(); ++d) c.x[d] = RandomInt(rng, 1, 4);
    std::vector<int64_t> out_pad;
    for (size_t d = 0; d < c.strides.size(); ++d) {
      out_pad.push_back(RandomInt(rng, 0, c.strides[d] - 1));
      const int64_t full = c.strides[d] * (c.x[2 + d] - 1) + out_pad[d] +
                           (c.w[2 + d] - 1) * c.dilations[d] + 1;
      if (full - c.pads_begin[d] - c.pads_end[d] < 1) c.pads_begin[d] = c.pads_end[d] = 0;
    }
    const std::vector<double> x = RandomVector<double>(rng, Count(c.x));
    const std::vector<double> w = RandomVector<double>(rng, Count(c.w));
    const std::vector<double> b = RandomVector<double>(rng, c.w[1] * c.group);
    Shape y_shape;
    const std::vector<double> expected = ConvTransposeRef(c, out_pad, x, w, b, y_shape);
    OpCase op{"ConvTranspose", 11,
              {In(Tensor::FromVector<float>(c.x, std::vector<float>(x.begin(), x.end())).value()),
               Const(Tensor::FromVector<float>(c.w, std::vector<float>(w.begin(), w.end()))
                         .value())},
              {IntAttr("group", c.group), IntsAttr("strides", c.strides),
               IntsAttr("dilations", c.dilations), IntsAttr("output_padding", out_pad),
               IntsAttr("pads", Concat(c.pads_begin, c.pads_end))}};
    if (c.bias) {
      op.inputs.push_back(Const(
          Tensor::FromVector<float>({c.w[1] * c.group}, std::vector<float>(b.begin(), b.end()))
              .value()));
    }
    NXRT_ASSERT_OK_AND_ASSIGN(std::vector<Tensor> y, RunOp(op));
    ASSERT_EQ(y[0].shape(), y_shape) << "iteration " << iter;
    EXPECT_TRUE(AllClose(Values<float>(y[0]), expected, 1e-4, 1e-5)) << "iteration " << iter;
  }
}

// Issue 20: output_padding must be smaller than its stride (ONNX spec; ONNX Runtime 1.30 refuses
// the rest). Below the stride the extra outputs are the spec formula's: zeros past the last tap.
TEST(ConvTransposeKernel, OutputPaddingNotBelowStrideIsRefused) {
  const std::vector<float> x = {1, 2, 3};
  const std::vector<float> w = {1, 1};
  struct Refused {
    int64_t output_padding, stride, dilation;
  };
  for (const Refused& r : {Refused{1, 1, 1}, Refused{2, 2, 1}, Refused{1, 1, 2}, Refused{3, 2, 2}}) {
    OpCase op{"ConvTranspose", 11,
              {In(Tensor::FromVector<float>({1, 1, 3}, x).value()),
               Const(Tensor::FromVector<float>({1, 1, 2}, w).value())},
              {IntsAttr("strides", {r.stride}), IntsAttr("dilations", {r.dilation}),
               IntsAttr("output_padding", {r.output_padding})}};
    Result<std::vector<Tensor>> y = RunOp(op);
    ASSERT_FALSE(y.ok()) << "output_padding " << r.output_padding << " stride " << r.stride;
    const std::string expected = "output_padding[0] = " + std::to_string(r.output_padding) +
                                 " must lie in [0, stride " + std::to_string(r.stride) + ")";
    EXPECT_NE(y.status().message().find(expected), std::string::npos) << y.status().message();
  }
  ConvCase c;
  c.x = {1, 1, 3};
  c.w = {1, 1, 2};
  c.strides = {2};
  c.dilations = {1};
  c.pads_begin = c.pads_end = {0};
  Shape y_shape;
  const std::vector<double> expected =
      ConvTransposeRef(c, {1}, {x.begin(), x.end()}, {w.begin(), w.end()}, {}, y_shape);
  OpCase op{"ConvTranspose", 11,
            {In(Tensor::FromVector<float>({1, 1, 3}, x).value()),
             Const(Tensor::FromVector<float>({1, 1, 2}, w).value())},
            {IntsAttr("strides", {2}), IntsAttr("output_padding", {1})}};
  NXRT_ASSERT_OK_AND_ASSIGN(std::vector<Tensor> y, RunOp(op));
  ASSERT_EQ(y[0].shape(), (Shape{1, 1, 7}));
  EXPECT_EQ(y_shape, (Shape{1, 1, 7}));
  EXPECT_TRUE(AllClose(Values<float>(y[0]), expected, 0, 0));
}

TEST(ConvTransposeKernel, OutputShapeAttributeSetsTheSpatialDims) {
  OpCase op{"ConvTranspose", 11,
            {In(Tensor::Allocate(DataType::kFloat, {1, 1, 3, 3}).value()),
             Const(Tensor::Allocate(DataType::kFloat, {1, 2, 3, 3}).value())},
            {IntsAttr("strides", {3, 2}), IntsAttr("output_shape", {10, 8})}};
  NXRT_ASSERT_OK_AND_ASSIGN(std::vector<Tensor> y, RunOp(op));
  EXPECT_EQ(y[0].shape(), (Shape{1, 2, 10, 8}));
}

// com.nxrt:FusedConv as a one-node model through the session, on two threads, with the graph
// passes off (the node under test stays as written).
Result<std::vector<Tensor>> RunFusedConv(const std::vector<OpInput>& inputs,
                                         const std::vector<AttributeValue>& attributes) {
  OpCase op{"FusedConv", 1, inputs, attributes};
  op.domain = "com.nxrt";
  return RunOp(op, AsWritten(2));
}

// FusedConv with channels_last 1 against channels_last 0 on the transposed X and Z: 3, 17 and 64
// channels, one group, depthwise and grouped, strides, dilations, pads and SAME_UPPER, with and
// without bias, sum and activation, constant and runtime weights; float and double.
TEST(FusedConvKernel, ChannelsLastMatchesNchw) {
  std::mt19937 rng(104);
  const int64_t channel_counts[] = {3, 17, 64};
  const char* activations[] = {"", "Relu", "LeakyRelu", "HardSwish"};
  for (int iter = 0; iter < 24; ++iter) {
    const int64_t c = channel_counts[iter % 3];
    const int64_t group = iter % 4 == 2 ? c : iter % 4 == 3 && c == 64 ? 4 : 1;
    const int64_t m = iter % 4 == 2 ? c : group * RandomInt(rng, 1, 2) * 8;
    const int64_t k = iter % 5 == 4 ? 1 : 3;
    const Shape xs = {RandomInt(rng, 1, 2), c, RandomInt(rng, 5, 10), RandomInt(rng, 5, 10)};
    const Shape ws = {m, c / group, k, k};
    std::vector<AttributeValue> attributes = {
        IntAttr("group", group), IntsAttr("strides", {RandomInt(rng, 1, 2), RandomInt(rng, 1, 2)}),
        IntsAttr("dilations", {RandomInt(rng, 1, 2), 1}),
        StringAttr("activation", activations[(iter / 2) % 4])};
    if (iter % 3 == 2) {
      attributes.push_back(StringAttr("auto_pad", "SAME_UPPER"));
    } else {
      attributes.push_back(IntsAttr("pads", {RandomInt(rng, 0, k - 1), RandomInt(rng, 0, k - 1),
                                             RandomInt(rng, 0, k - 1), RandomInt(rng, 0, k - 1)}));
    }
    const bool sum = iter % 2 == 1, bias = iter % 3 != 1, use_double = iter % 4 == 1;
    SCOPED_TRACE(::testing::Message() << "iteration " << iter << " X " << ShapeToString(xs)
                                      << " W " << ShapeToString(ws) << " group " << group);
    const std::vector<double> x = RandomVector<double>(rng, Count(xs));
    const std::vector<double> w = RandomVector<double>(rng, Count(ws));
    const std::vector<double> b = RandomVector<double>(rng, m);
    auto make = [&](const Shape& s, const std::vector<double>& v) {
      return use_double ? Tensor::FromVector<double>(s, v).value()
                        : Tensor::FromVector<float>(s, std::vector<float>(v.begin(), v.end()))
                              .value();
    };
    const OpInput weights = iter % 2 == 0 ? Const(make(ws, w)) : In(make(ws, w));
    const OpInput bias_input = bias ? Const(make({m}, b)) : Omitted();
    // The NCHW run first: its output shape gives Z's.
    std::vector<OpInput> nchw_inputs = {In(make(xs, x)), weights, bias_input};
    NXRT_ASSERT_OK_AND_ASSIGN(std::vector<Tensor> probe, RunFusedConv(nchw_inputs, attributes));
    const Shape ys = probe[0].shape();
    const Shape ys_nhwc = {ys[0], ys[2], ys[3], ys[1]};
    const std::vector<double> z = RandomVector<double>(rng, Count(ys));
    if (sum) nchw_inputs.push_back(In(make(ys, z)));
    NXRT_ASSERT_OK_AND_ASSIGN(std::vector<Tensor> want, RunFusedConv(nchw_inputs, attributes));
    std::vector<OpInput> nhwc_inputs = {In(make({xs[0], xs[2], xs[3], xs[1]},
                                                ToNhwc(xs, x))),
                                        weights, bias_input};
    if (sum) nhwc_inputs.push_back(In(make(ys_nhwc, ToNhwc(ys, z))));
    attributes.push_back(IntAttr("channels_last", 1));
    NXRT_ASSERT_OK_AND_ASSIGN(std::vector<Tensor> got, RunFusedConv(nhwc_inputs, attributes));
    ASSERT_EQ(got[0].shape(), ys_nhwc);
    if (use_double) {
      EXPECT_TRUE(AllClose(ToNchw(ys, Values<double>(got[0])), Values<double>(want[0]),
                           1e-12, 1e-12));
    } else {
      EXPECT_TRUE(AllClose(ToNchw(ys, Values<float>(got[0])), Values<float>(want[0]),
                           1e-4, 1e-5));
    }
  }
}

TEST(FusedConvKernel, ChannelsLastErrorsNameShapeAndAttribute) {
  const std::vector<OpInput> rank3 = {In(Tensor::Allocate(DataType::kFloat, {1, 5, 3}).value()),
                                      Const(Tensor::Allocate(DataType::kFloat, {4, 3, 3}).value())};
  Result<std::vector<Tensor>> wrong_rank = RunFusedConv(rank3, {IntAttr("channels_last", 1)});
  ASSERT_FALSE(wrong_rank.ok());
  EXPECT_NE(wrong_rank.status().message().find("X [1,5,3] must have rank 4"), std::string::npos)
      << wrong_rank.status().message();
  Result<std::vector<Tensor>> bad = RunFusedConv(rank3, {IntAttr("channels_last", 2)});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("attribute 'channels_last' is 2, expected 0 or 1"),
            std::string::npos)
      << bad.status().message();
}

}  // namespace
}  // namespace nxrt::cpu::kernels::testing
