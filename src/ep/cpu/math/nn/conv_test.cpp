// ep/cpu/math/nn/conv_test.cpp: tests of Conv and ConvTranspose: the ONNX backend and pytorch cases
// (onnx_node_cases.inc) on the oneDNN float path and the double reference path, random
// configurations against direct loops written in the test (a scatter form for ConvTranspose, also
// for strided float ConvTranspose's GEMM + col2im at 1 and 2 threads), prepacked weights and
// fused post-ops (sum, activations) against the unfused result, channels_last against NCHW,
// Winograd for constant weights, and shape errors.
#include "ep/cpu/math/nn/conv.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "core/cpu_features.h"
#include "ep/cpu/math/nn/testing/onnx_node_cases.h"
#include "ep/cpu/math/nn_common.h"
#include "ep/cpu/math/testing/nn_test_util.h"

namespace nxrt::cpu::nn {
namespace {

using testing::AllClose;
using testing::Count;
using testing::ForEachIndex;
using testing::NodeCase;
using testing::Offset;
using testing::RandomInt;
using testing::ToNchw;
using testing::ToNhwc;

ConvAttributes AttributesOf(const NodeCase& c) {
  ConvAttributes a;
  a.auto_pad = ParseAutoPad(c.String("auto_pad", "NOTSET")).value();
  a.kernel_shape = c.Ints("kernel_shape");
  a.strides = c.Ints("strides");
  a.dilations = c.Ints("dilations");
  a.pads = c.Ints("pads");
  a.group = c.Int("group", 1);
  a.output_padding = c.Ints("output_padding");
  a.output_shape = c.Ints("output_shape");
  return a;
}

void RunOnnxCases(const std::string& op) {
  const auto cases = testing::OnnxNodeCases(op);
  ASSERT_FALSE(cases.empty());
  for (const NodeCase* c : cases) {
    SCOPED_TRACE(c->name);
    const auto& x = c->Input(0);
    const auto& w = c->Input(1);
    const auto& b = c->Input(2);
    const auto& y = c->Output(0);
    const std::optional<std::span<const int64_t>> b_shape =
        b.present() ? std::optional<std::span<const int64_t>>(b.shape) : std::nullopt;
    for (DataType dtype : {DataType::kFloat, DataType::kDouble}) {
      auto plan = op == "Conv"
                      ? PrepareConv(dtype, x.shape, w.shape, b_shape, AttributesOf(*c))
                      : PrepareConvTranspose(dtype, x.shape, w.shape, b_shape, AttributesOf(*c));
      ASSERT_TRUE(plan.ok()) << plan.status().ToString();
      ASSERT_EQ(plan->output_shape, y.shape);
      if (dtype == DataType::kFloat) {
        std::vector<float> out(Count(y.shape));
        NXRT_ASSERT_OK(Conv(*plan, x.As<float>().data(), w.As<float>().data(), b.As<float>().data(),
                            out.data()));
        EXPECT_TRUE(AllClose(out, y.Values(), 1e-4, 1e-5))
            << "float, oneDNN " << (plan->dnnl != nullptr);
      } else {
        std::vector<double> out(Count(y.shape));
        NXRT_ASSERT_OK(Conv(*plan, x.data.data(), w.data.data(), b.data.data(), out.data()));
        EXPECT_TRUE(AllClose(out, y.Values(), 1e-4, 1e-5)) << "double reference";
      }
    }
  }
}

TEST(ConvTest, OnnxBackendAndPytorchCases) { RunOnnxCases("Conv"); }

TEST(ConvTransposeTest, OnnxBackendAndPytorchCases) { RunOnnxCases("ConvTranspose"); }

// Direct Conv from the definition: every output reads the dilated window of the zero-padded
// input of its group.
std::vector<double> DirectConv(const Shape& xs, const std::vector<double>& x, const Shape& ws,
                               const std::vector<double>& w, const std::vector<double>* b,
                               const Shape& ys, int64_t group, const std::vector<int64_t>& s,
                               const std::vector<int64_t>& d, const std::vector<int64_t>& pb) {
  std::vector<double> y(Count(ys), 0.0);
  const int64_t cg = xs[1] / group, mg = ws[0] / group;
  const Shape kernel(ws.begin() + 2, ws.end());
  ForEachIndex(ys, [&](const std::vector<int64_t>& o) {
    const int64_t g = o[1] / mg;
    double acc = b ? (*b)[o[1]] : 0.0;
    for (int64_t c = 0; c < cg; ++c) {
      ForEachIndex(kernel, [&](const std::vector<int64_t>& k) {
        std::vector<int64_t> xi = {o[0], g * cg + c};
        for (size_t i = 0; i < k.size(); ++i) {
          const int64_t p = o[2 + i] * s[i] - pb[i] + k[i] * d[i];
          if (p < 0 || p >= xs[2 + i]) return;
          xi.push_back(p);
        }
        std::vector<int64_t> wi = {o[1], c};
        wi.insert(wi.end(), k.begin(), k.end());
        acc += x[Offset(xs, xi)] * w[Offset(ws, wi)];
      });
    }
    y[Offset(ys, o)] = acc;
  });
  return y;
}

// Direct ConvTranspose in scatter form: every input element adds its weighted kernel into the
// output at stride * i - pad_begin + dilation * k.
std::vector<double> DirectConvTranspose(const Shape& xs, const std::vector<double>& x,
                                        const Shape& ws, const std::vector<double>& w,
                                        const std::vector<double>* b, const Shape& ys,
                                        int64_t group, const std::vector<int64_t>& s,
                                        const std::vector<int64_t>& d,
                                        const std::vector<int64_t>& pb) {
  std::vector<double> y(Count(ys), 0.0);
  const int64_t cg = xs[1] / group, mg = ws[1];
  const Shape kernel(ws.begin() + 2, ws.end());
  ForEachIndex(xs, [&](const std::vector<int64_t>& i) {
    const int64_t g = i[1] / cg;
    for (int64_t m = 0; m < mg; ++m) {
      ForEachIndex(kernel, [&](const std::vector<int64_t>& k) {
        std::vector<int64_t> yi = {i[0], g * mg + m};
        for (size_t a = 0; a < k.size(); ++a) {
          const int64_t p = i[2 + a] * s[a] - pb[a] + k[a] * d[a];
          if (p < 0 || p >= ys[2 + a]) return;
          yi.push_back(p);
        }
        std::vector<int64_t> wi = {i[1], m};
        wi.insert(wi.end(), k.begin(), k.end());
        y[Offset(ys, yi)] += x[Offset(xs, i)] * w[Offset(ws, wi)];
      });
    }
  });
  if (b) {
    ForEachIndex(ys, [&](const std::vector<int64_t>& o) { y[Offset(ys, o)] += (*b)[o[1]]; });
  }
  return y;
}

TEST(ConvTest, RandomConfigurationsAgainstDirectLoops) {
  std::mt19937 rng(51);
  int dnnl_plans = 0;
  for (int iter = 0; iter < 80; ++iter) {
    const int64_t nsp = RandomInt(rng, 1, 3);
    const int64_t group = iter % 5 == 0 ? 3 : RandomInt(rng, 1, 2);
    const int64_t cg = iter % 5 == 0 ? 1 : RandomInt(rng, 1, 3);  // iter % 5 == 0: depthwise
    const int64_t mg = RandomInt(rng, 1, 3);
    Shape xs = {RandomInt(rng, 1, 2), cg * group};
    Shape ws = {mg * group, cg};
    ConvAttributes attr;
    attr.group = group;
    attr.auto_pad = static_cast<AutoPad>(iter % 4);
    std::vector<int64_t> pads_end;
    for (int64_t i = 0; i < nsp; ++i) {
      ws.push_back(RandomInt(rng, 1, 3));
      attr.strides.push_back(RandomInt(rng, 1, 2));
      attr.dilations.push_back(RandomInt(rng, 1, 2));
      attr.pads.push_back(RandomInt(rng, 0, 2));
      pads_end.push_back(RandomInt(rng, 0, 2));
      xs.push_back((ws.back() - 1) * attr.dilations.back() + RandomInt(rng, 1, 5));
    }
    attr.pads.insert(attr.pads.end(), pads_end.begin(), pads_end.end());
    if (iter % 3 == 0) attr.kernel_shape.assign(ws.begin() + 2, ws.end());
    const bool bias = iter % 2 == 0;
    const std::vector<double> x = testing::RandomVector<double>(rng, Count(xs));
    const std::vector<double> w = testing::RandomVector<double>(rng, Count(ws));
    const std::vector<double> b = testing::RandomVector<double>(rng, ws[0]);
    const Shape bs = {ws[0]};
    const auto b_shape = bias ? std::optional<std::span<const int64_t>>(bs) : std::nullopt;
    NXRT_ASSERT_OK_AND_ASSIGN(ConvPlan plan, PrepareConv(DataType::kFloat, xs, ws, b_shape, attr));
    // Expected geometry from the spec formulas, independently of window.cpp.
    Shape ys = {xs[0], ws[0]};
    std::vector<int64_t> pb(nsp);
    for (int64_t i = 0; i < nsp; ++i) {
      const int64_t in = xs[2 + i], s = attr.strides[i];
      const int64_t dk = (ws[2 + i] - 1) * attr.dilations[i] + 1;
      if (attr.auto_pad == AutoPad::kNotSet || attr.auto_pad == AutoPad::kValid) {
        pb[i] = attr.auto_pad == AutoPad::kNotSet ? attr.pads[i] : 0;
        const int64_t pe = attr.auto_pad == AutoPad::kNotSet ? attr.pads[nsp + i] : 0;
        ys.push_back((in + pb[i] + pe - dk) / s + 1);
      } else {
        const int64_t out = (in + s - 1) / s;
        const int64_t total = std::max<int64_t>(0, (out - 1) * s + dk - in);
        pb[i] = attr.auto_pad == AutoPad::kSameUpper ? total / 2 : (total + 1) / 2;
        ys.push_back(out);
      }
    }
    ASSERT_EQ(plan.output_shape, ys) << "iteration " << iter;
    dnnl_plans += plan.dnnl != nullptr;
    const std::vector<double> want =
        DirectConv(xs, x, ws, w, bias ? &b : nullptr, ys, group, attr.strides, attr.dilations, pb);
    std::vector<float> y(Count(ys));
    const std::vector<float> xf(x.begin(), x.end()), wf(w.begin(), w.end()), bf(b.begin(), b.end());
    NXRT_ASSERT_OK(Conv(plan, xf.data(), wf.data(), bf.data(), y.data()));
    EXPECT_TRUE(AllClose(y, want, 1e-4, 1e-5)) << "iteration " << iter;
    // The reference path (double) on the same problem.
    NXRT_ASSERT_OK_AND_ASSIGN(ConvPlan ref, PrepareConv(DataType::kDouble, xs, ws, b_shape, attr));
    std::vector<double> yd(Count(ys));
    NXRT_ASSERT_OK(Conv(ref, x.data(), w.data(), b.data(), yd.data()));
    EXPECT_TRUE(AllClose(yd, want, 1e-12, 1e-12)) << "iteration " << iter;
  }
  EXPECT_EQ(dnnl_plans, 80);
}

// Wide grouped convolutions on NCHW tensors (Silero VAD v4's 1-D depthwise over 258 channels, a
// 2-D one over 40, a 1-D grouped one), which the plan runs on oneDNN's channels-last kernels
// with reorders at both ends, against the direct loops.
TEST(ConvTest, WideGroupedConvolutionsAgainstDirectLoops) {
  struct Problem {
    Shape xs, ws;
    int64_t group;
  };
  const std::vector<Problem> problems = {{{1, 258, 8}, {258, 1, 5}, 258},
                                         {{2, 40, 9, 7}, {40, 1, 3, 3}, 40},
                                         {{1, 48, 11}, {24, 4, 3}, 12}};
  std::mt19937 rng(83);
  for (const Problem& pr : problems) {
    SCOPED_TRACE(Str(pr.xs));
    const size_t nsp = pr.xs.size() - 2;
    ConvAttributes attr;
    attr.group = pr.group;
    attr.pads.assign(2 * nsp, pr.ws.back() / 2);
    const std::vector<double> x = testing::RandomVector<double>(rng, Count(pr.xs));
    const std::vector<double> w = testing::RandomVector<double>(rng, Count(pr.ws));
    const std::vector<double> b = testing::RandomVector<double>(rng, pr.ws[0]);
    const Shape bs = {pr.ws[0]};
    NXRT_ASSERT_OK_AND_ASSIGN(ConvPlan plan, PrepareConv(DataType::kFloat, pr.xs, pr.ws, bs, attr));
    ASSERT_NE(plan.dnnl, nullptr);
    const std::vector<double> want =
        DirectConv(pr.xs, x, pr.ws, w, &b, plan.output_shape, pr.group,
                   std::vector<int64_t>(nsp, 1), std::vector<int64_t>(nsp, 1),
                   std::vector<int64_t>(nsp, pr.ws.back() / 2));
    std::vector<float> y(Count(plan.output_shape));
    const std::vector<float> xf(x.begin(), x.end()), wf(w.begin(), w.end()), bf(b.begin(), b.end());
    NXRT_ASSERT_OK(Conv(plan, xf.data(), wf.data(), bf.data(), y.data()));
    EXPECT_TRUE(AllClose(y, want, 1e-4, 1e-5));
  }
}

TEST(ConvTransposeTest, RandomConfigurationsAgainstScatterLoops) {
  std::mt19937 rng(52);
  int fast_plans = 0;  // oneDNN or GEMM + col2im
  for (int iter = 0; iter < 60; ++iter) {
    const int64_t nsp = RandomInt(rng, 1, 3);
    const int64_t group = RandomInt(rng, 1, 2);
    const int64_t cg = RandomInt(rng, 1, 3), mg = RandomInt(rng, 1, 3);
    Shape xs = {RandomInt(rng, 1, 2), cg * group};
    Shape ws = {cg * group, mg};
    ConvAttributes attr;
    attr.group = group;
    std::vector<int64_t> pads_end;
    for (int64_t i = 0; i < nsp; ++i) {
      xs.push_back(RandomInt(rng, 1, 4));
      ws.push_back(RandomInt(rng, 1, 3));
      attr.strides.push_back(RandomInt(rng, 1, 3));
      attr.dilations.push_back(RandomInt(rng, 1, 2));
      attr.pads.push_back(RandomInt(rng, 0, 1));
      pads_end.push_back(RandomInt(rng, 0, 1));
      attr.output_padding.push_back(RandomInt(rng, 0, attr.strides.back() - 1));
    }
    attr.pads.insert(attr.pads.end(), pads_end.begin(), pads_end.end());
    Shape ys = {xs[0], mg * group};
    std::vector<int64_t> pb(nsp);
    const int variant = iter % 3;  // 0: explicit pads, 1: output_shape, 2: SAME_UPPER/LOWER
    if (variant == 2) attr.auto_pad = iter % 2 ? AutoPad::kSameUpper : AutoPad::kSameLower;
    for (int64_t i = 0; i < nsp; ++i) {
      const int64_t natural = attr.strides[i] * (xs[2 + i] - 1) + attr.output_padding[i] +
                              (ws[2 + i] - 1) * attr.dilations[i] + 1;
      if (variant == 0) {
        pb[i] = attr.pads[i];
        ys.push_back(natural - attr.pads[i] - attr.pads[nsp + i]);
      } else {
        const int64_t out =
            variant == 1 ? natural + RandomInt(rng, -2, 1) : xs[2 + i] * attr.strides[i];
        const int64_t total = std::max<int64_t>(0, natural - out);
        pb[i] = attr.auto_pad == AutoPad::kSameUpper ? total / 2 : total - total / 2;
        ys.push_back(out);
        if (variant == 1) attr.output_shape.push_back(out);
      }
    }
    if (Count(ys) == 0 || *std::min_element(ys.begin() + 2, ys.end()) < 1) continue;
    const bool bias = iter % 2 == 1;
    const std::vector<double> x = testing::RandomVector<double>(rng, Count(xs));
    const std::vector<double> w = testing::RandomVector<double>(rng, Count(ws));
    const std::vector<double> b = testing::RandomVector<double>(rng, ys[1]);
    const Shape bs = {ys[1]};
    const auto b_shape = bias ? std::optional<std::span<const int64_t>>(bs) : std::nullopt;
    const std::vector<double> want = DirectConvTranspose(xs, x, ws, w, bias ? &b : nullptr, ys,
                                                         group, attr.strides, attr.dilations, pb);
    for (DataType dtype : {DataType::kFloat, DataType::kDouble}) {
      NXRT_ASSERT_OK_AND_ASSIGN(ConvPlan plan, PrepareConvTranspose(dtype, xs, ws, b_shape, attr));
      ASSERT_EQ(plan.output_shape, ys) << "iteration " << iter;
      if (dtype == DataType::kFloat) {
        fast_plans += ConvImplementation(plan) != "reference";
        const std::vector<float> xf(x.begin(), x.end()), wf(w.begin(), w.end()),
            bf(b.begin(), b.end());
        std::vector<float> y(Count(ys));
        NXRT_ASSERT_OK(Conv(plan, xf.data(), wf.data(), bf.data(), y.data()));
        EXPECT_TRUE(AllClose(y, want, 1e-4, 1e-5)) << "iteration " << iter;
      } else {
        std::vector<double> y(Count(ys));
        NXRT_ASSERT_OK(Conv(plan, x.data(), w.data(), b.data(), y.data()));
        EXPECT_TRUE(AllClose(y, want, 1e-12, 1e-12)) << "iteration " << iter;
      }
    }
  }
  EXPECT_GT(fast_plans, 30);
}

// Strided float ConvTranspose runs as GEMM + col2im (conv_transpose_gemm.h): random 1-D to 3-D
// configurations with odd sizes, strides 2 to 4, dilations, pads, output_padding and groups, some
// large enough for several channel blocks and two threads, a NaN and an infinity in X; each at 1
// and 2 threads against the scatter loops in double.
TEST(ConvTransposeTest, StridedFloatGemmCol2ImMatchesScatterLoops) {
  std::mt19937 rng(16);
  int two_thread_plans = 0;
  for (int iter = 0; iter < 40; ++iter) {
    const bool large = iter % 8 == 0;
    const int64_t nsp = large ? 2 : RandomInt(rng, 1, 3);
    const int64_t group = RandomInt(rng, 1, 3);
    const int64_t cg = RandomInt(rng, 1, large ? 9 : 4);
    const int64_t mg = large ? RandomInt(rng, 9, 40) : RandomInt(rng, 1, 5);
    Shape xs = {RandomInt(rng, 1, 2), cg * group};
    Shape ws = {cg * group, mg};
    ConvAttributes attr;
    attr.group = group;
    std::vector<int64_t> pads_end;
    for (int64_t i = 0; i < nsp; ++i) {
      xs.push_back(large ? RandomInt(rng, 20, 33) : RandomInt(rng, 1, 7));
      ws.push_back(RandomInt(rng, 1, 5));
      attr.strides.push_back(RandomInt(rng, i == 0 ? 2 : 1, 4));
      attr.dilations.push_back(RandomInt(rng, 1, 2));
      attr.pads.push_back(RandomInt(rng, 0, 2));
      pads_end.push_back(RandomInt(rng, 0, 2));
      attr.output_padding.push_back(RandomInt(rng, 0, attr.strides.back() - 1));
    }
    attr.pads.insert(attr.pads.end(), pads_end.begin(), pads_end.end());
    Shape ys = {xs[0], mg * group};
    std::vector<int64_t> pb(attr.pads.begin(), attr.pads.begin() + nsp);
    for (int64_t i = 0; i < nsp; ++i) {
      ys.push_back(attr.strides[i] * (xs[2 + i] - 1) + attr.output_padding[i] +
                   (ws[2 + i] - 1) * attr.dilations[i] + 1 - attr.pads[i] - attr.pads[nsp + i]);
    }
    if (*std::min_element(ys.begin() + 2, ys.end()) < 1) continue;
    std::vector<double> x = testing::RandomVector<double>(rng, Count(xs));
    if (iter % 3 == 1) {
      x[RandomInt(rng, 0, Count(xs) - 1)] = NAN;
      x[RandomInt(rng, 0, Count(xs) - 1)] = -INFINITY;
    }
    const std::vector<double> w = testing::RandomVector<double>(rng, Count(ws));
    const std::vector<double> b = testing::RandomVector<double>(rng, ys[1]);
    const Shape bs = {ys[1]};
    const bool bias = iter % 2 == 0;
    const auto b_shape = bias ? std::optional<std::span<const int64_t>>(bs) : std::nullopt;
    const std::vector<double> want = DirectConvTranspose(xs, x, ws, w, bias ? &b : nullptr, ys,
                                                         group, attr.strides, attr.dilations, pb);
    const std::vector<float> xf(x.begin(), x.end()), wf(w.begin(), w.end()),
        bf(b.begin(), b.end());
    for (int threads : {1, 2}) {
      ConvOptions options;
      options.threads = threads;
      NXRT_ASSERT_OK_AND_ASSIGN(ConvPlan plan,
                                PrepareConvTranspose(DataType::kFloat, xs, ws, b_shape, attr,
                                                     options));
      ASSERT_EQ(plan.output_shape, ys) << "iteration " << iter;
      EXPECT_EQ(ConvImplementation(plan), "gemm_col2im") << "iteration " << iter;
      two_thread_plans += plan.threads == 2;
      std::vector<float> y(Count(ys), std::nanf(""));
      NXRT_ASSERT_OK(Conv(plan, xf.data(), wf.data(), bf.data(), y.data()));
      EXPECT_TRUE(AllClose(y, want, 1e-4, 1e-4))
          << "iteration " << iter << ", " << threads << " threads, X " << ShapeToString(xs)
          << ", W " << ShapeToString(ws) << ", group " << group;
    }
  }
  EXPECT_GE(two_thread_plans, 3);
}

TEST(ConvTest, Float16ReferenceMatchesFloat) {
  std::mt19937 rng(53);
  const Shape xs = {1, 2, 5, 5}, ws = {3, 2, 3, 3};
  const std::vector<double> x = testing::RandomVector<double>(rng, Count(xs));
  const std::vector<double> w = testing::RandomVector<double>(rng, Count(ws));
  std::vector<Float16> xh, wh;
  for (double v : x) xh.push_back(Float16(static_cast<float>(v)));
  for (double v : w) wh.push_back(Float16(static_cast<float>(v)));
  ConvAttributes attr;
  attr.pads = {1, 1, 1, 1};
  NXRT_ASSERT_OK_AND_ASSIGN(ConvPlan plan,
                            PrepareConv(DataType::kFloat16, xs, ws, std::nullopt, attr));
  EXPECT_EQ(plan.dnnl, nullptr);
  std::vector<Float16> y(Count(plan.output_shape));
  NXRT_ASSERT_OK(Conv(plan, xh.data(), wh.data(), nullptr, y.data()));
  std::vector<double> xr, wr;
  for (Float16 v : xh) xr.push_back(static_cast<float>(v));
  for (Float16 v : wh) wr.push_back(static_cast<float>(v));
  const std::vector<double> want =
      DirectConv(xs, xr, ws, wr, nullptr, plan.output_shape, 1, {1, 1}, {1, 1}, {1, 1});
  std::vector<float> got;
  for (Float16 v : y) got.push_back(static_cast<float>(v));
  EXPECT_TRUE(AllClose(got, want, 2e-3, 2e-3));
}

// Prepacked weights and each post-op, on blocked (64 channels), plain-friendly (3 channels),
// depthwise, pointwise (plain layout) and ConvTranspose problems: the float oneDNN result
// against the plain convolution (double reference loops) followed by the post-ops written here.
// Z aliases Y in half the runs.
TEST(ConvTest, PackedWeightsAndPostOpsMatchUnfused) {
  struct Problem {
    bool transpose;
    Shape xs, ws;
    int64_t group;
    int64_t pad;
    int64_t stride = 1;
    int64_t dilation = 1;
  };
  const std::vector<Problem> problems = {{false, {1, 64, 9, 9}, {32, 64, 3, 3}, 1, 1},
                                         {false, {2, 3, 11, 7}, {16, 3, 3, 3}, 1, 1},
                                         {false, {1, 32, 8, 8}, {32, 1, 3, 3}, 32, 1},
                                         {false, {2, 24, 5, 7}, {40, 24, 1, 1}, 1, 0},
                                         {true, {1, 16, 5, 5}, {16, 8, 3, 3}, 1, 1},
                                         // Pads as wide as the (dilated) kernel, strided 1x1
                                         // with pads: whole output rows in the padding.
                                         {false, {1, 16, 5, 6}, {16, 16, 3, 3}, 1, 3},
                                         {false, {1, 24, 6, 5}, {16, 24, 1, 1}, 1, 1},
                                         {false, {1, 24, 7, 5}, {16, 24, 1, 1}, 1, 1, 2},
                                         {false, {1, 32, 12, 10}, {64, 32, 3, 3}, 1, 3, 2},
                                         {false, {1, 32, 12, 10}, {32, 32, 3, 3}, 1, 4, 1, 2}};
  const std::vector<ConvPostOps> post_ops = {
      {false, ConvActivation::kNone, 0, 0},       {true, ConvActivation::kNone, 0, 0},
      {true, ConvActivation::kRelu, 0, 0},        {false, ConvActivation::kLeakyRelu, 0.1f, 0},
      {false, ConvActivation::kClip, -0.5f, 0.5f}, {true, ConvActivation::kHardSigmoid, 0.2f, 0.5f},
      {false, ConvActivation::kSigmoid, 0, 0},     {true, ConvActivation::kTanh, 0, 0},
      {false, ConvActivation::kHardSwish, 0, 0},   {true, ConvActivation::kSwish, 1.5f, 0}};
  std::mt19937 rng(71);
  int run = 0;
  for (const Problem& pr : problems) {
    SCOPED_TRACE(::testing::Message() << "X " << Str(pr.xs) << " W " << Str(pr.ws));
    ConvAttributes attr;
    attr.group = pr.group;
    attr.pads = {pr.pad, pr.pad, pr.pad, pr.pad};
    attr.strides = {pr.stride, pr.stride};
    attr.dilations = {pr.dilation, pr.dilation};
    const int64_t m = pr.transpose ? pr.ws[1] * pr.group : pr.ws[0];
    const Shape bs = {m};
    const std::vector<double> x = testing::RandomVector<double>(rng, Count(pr.xs));
    const std::vector<double> w = testing::RandomVector<double>(rng, Count(pr.ws));
    const std::vector<double> b = testing::RandomVector<double>(rng, m);
    const std::vector<float> xf(x.begin(), x.end()), wf(w.begin(), w.end()), bf(b.begin(), b.end());
    auto prepare = [&](DataType dtype, const ConvPostOps& po) {
      ConvOptions options;
      options.post_ops = po;
      options.threads = 2;
      return pr.transpose ? PrepareConvTranspose(dtype, pr.xs, pr.ws, bs, attr, options)
                          : PrepareConv(dtype, pr.xs, pr.ws, bs, attr, options);
    };
    NXRT_ASSERT_OK_AND_ASSIGN(ConvPlan plain, prepare(DataType::kDouble, {}));
    std::vector<double> conv(Count(plain.output_shape));
    NXRT_ASSERT_OK(Conv(plain, x.data(), w.data(), b.data(), conv.data()));
    const std::vector<double> z = testing::RandomVector<double>(rng, conv.size());
    for (const ConvPostOps& po : post_ops) {
      SCOPED_TRACE(::testing::Message() << "activation " << static_cast<int>(po.activation)
                                        << " sum " << po.sum);
      std::vector<double> want(conv.size());
      for (size_t i = 0; i < conv.size(); ++i) {
        double v = conv[i] + (po.sum ? z[i] : 0.0);
        switch (po.activation) {
          case ConvActivation::kNone: break;
          case ConvActivation::kRelu: v = std::max(v, 0.0); break;
          case ConvActivation::kLeakyRelu: v = v < 0 ? v * po.alpha : v; break;
          case ConvActivation::kClip: v = std::clamp<double>(v, po.alpha, po.beta); break;
          case ConvActivation::kHardSigmoid:
            v = std::clamp<double>(po.alpha * v + po.beta, 0.0, 1.0);
            break;
          case ConvActivation::kSigmoid: v = 1.0 / (1.0 + std::exp(-v)); break;
          case ConvActivation::kTanh: v = std::tanh(v); break;
          case ConvActivation::kHardSwish: v = v * std::clamp(v / 6 + 0.5, 0.0, 1.0); break;
          case ConvActivation::kSwish: v = v / (1.0 + std::exp(-po.alpha * v)); break;
        }
        want[i] = v;
      }
      // The double reference with the post-ops.
      NXRT_ASSERT_OK_AND_ASSIGN(ConvPlan ref, prepare(DataType::kDouble, po));
      std::vector<double> yd = z;
      ConvBuffers dio;
      dio.x = x.data();
      dio.w = w.data();
      dio.b = b.data();
      dio.sum = yd.data();
      dio.y = yd.data();
      NXRT_ASSERT_OK(Conv(ref, dio));
      EXPECT_TRUE(AllClose(yd, want, 1e-12, 1e-12)) << "double reference";
      // oneDNN, weights packed or not.
      for (const bool pack : {false, true}) {
        NXRT_ASSERT_OK_AND_ASSIGN(ConvPlan plan, prepare(DataType::kFloat, po));
        ASSERT_NE(plan.dnnl, nullptr);
        const size_t unpacked_bytes = plan.workspace_bytes;
        if (pack) {
          NXRT_ASSERT_OK(PackConvWeights(plan, wf.data()));
          EXPECT_LE(plan.workspace_bytes, unpacked_bytes);
        }
        std::vector<std::byte> workspace(plan.workspace_bytes + 64);
        void* base = workspace.data();
        size_t space = workspace.size();
        std::align(64, plan.workspace_bytes, base, space);
        std::vector<float> zf(z.begin(), z.end());
        std::vector<float> y(conv.size(), 7.0f);
        const bool in_place = ++run % 2 == 0;
        ConvBuffers io;
        io.x = xf.data();
        // Plans holding packed weights must not read W: hand them a buffer of garbage.
        std::vector<float> garbage(wf.size(), 1e30f);
        io.w = plan.packed_weights != nullptr ? garbage.data() : wf.data();
        io.b = bf.data();
        io.sum = in_place ? y.data() : zf.data();
        if (in_place) y = zf;
        io.y = y.data();
        io.workspace = std::span<std::byte>(static_cast<std::byte*>(base), plan.workspace_bytes);
        NXRT_ASSERT_OK(Conv(plan, io));
        EXPECT_TRUE(AllClose(y, want, 1e-4, 1e-4)) << "pack " << pack << " in place " << in_place;
      }
    }
  }
}

// Runs `plan` on the given buffers with a workspace of its size; `z` null without a sum.
template <typename T>
void RunWithWorkspace(const ConvPlan& plan, const std::vector<T>& x, const std::vector<T>& w,
                      const std::vector<T>& b, const T* z, std::vector<T>& y) {
  std::vector<std::byte> storage(plan.workspace_bytes + 64);
  void* base = storage.data();
  size_t space = storage.size();
  std::align(64, plan.workspace_bytes, base, space);
  ConvBuffers io;
  io.x = x.data();
  io.w = w.data();
  io.b = b.data();
  io.sum = z;
  io.y = y.data();
  io.workspace = std::span<std::byte>(static_cast<std::byte*>(base), plan.workspace_bytes);
  NXRT_ASSERT_OK(Conv(plan, io));
}

// channels_last (X [N, H, W, C], Z and Y [N, H', W', M]) against the NCHW plan on the transposed
// tensors: 3, 17 and 64 channels, plain, grouped and depthwise, strides, dilations, pads and
// SAME_UPPER, with and without sum (aliasing Y in some runs) and activation; float on oneDNN and
// the double reference loops (which transpose through the workspace).
TEST(ConvTest, ChannelsLastMatchesNchw) {
  std::mt19937 rng(81);
  const int64_t channel_counts[] = {3, 17, 64};
  const ConvActivation activations[] = {ConvActivation::kNone, ConvActivation::kRelu,
                                        ConvActivation::kHardSwish, ConvActivation::kClip};
  for (int iter = 0; iter < 36; ++iter) {
    const int64_t c = channel_counts[iter % 3];
    // iter % 4: 0 and 1 one group, 2 depthwise, 3 grouped (C/group channels per group).
    const int64_t group = iter % 4 == 2 ? c : iter % 4 == 3 ? (c == 64 ? 4 : c) : 1;
    const int64_t m = iter % 4 == 2 ? c : group * RandomInt(rng, 1, 3) * (c == 64 ? 8 : 1);
    const int64_t k = RandomInt(rng, 1, 3);
    ConvAttributes attr;
    attr.group = group;
    attr.strides = {RandomInt(rng, 1, 2), RandomInt(rng, 1, 2)};
    attr.dilations = {RandomInt(rng, 1, 2), 1};
    const int64_t kw = k == 1 ? 1 : 3;
    if (iter % 3 == 2) {
      attr.auto_pad = AutoPad::kSameUpper;
    } else {
      // Pads up to past the kernel: whole output rows in the padding, where the sum post-op
      // alone makes the output.
      attr.pads = {RandomInt(rng, 0, k + 1), RandomInt(rng, 0, kw), RandomInt(rng, 0, k + 1),
                   RandomInt(rng, 0, kw)};
    }
    const Shape xs = {RandomInt(rng, 1, 2), c, RandomInt(rng, 5, 12), RandomInt(rng, 5, 12)};
    const Shape ws = {m, c / group, k, kw};
    const Shape x_nhwc = {xs[0], xs[2], xs[3], xs[1]};
    const Shape bs = {m};
    ConvOptions options;
    options.threads = 2;
    options.post_ops.sum = iter % 2 == 1;
    options.post_ops.activation = activations[(iter / 2) % 4];
    options.post_ops.alpha = -0.5f;
    options.post_ops.beta = 0.5f;
    SCOPED_TRACE(::testing::Message() << "iteration " << iter << " X " << Str(xs) << " W "
                                      << Str(ws) << " group " << group);
    const std::vector<double> x = testing::RandomVector<double>(rng, Count(xs));
    const std::vector<double> w = testing::RandomVector<double>(rng, Count(ws));
    const std::vector<double> b = testing::RandomVector<double>(rng, m);
    NXRT_ASSERT_OK_AND_ASSIGN(ConvPlan nchw, PrepareConv(DataType::kDouble, xs, ws, bs, attr,
                                                         options));
    const Shape& ys = nchw.output_shape;
    const std::vector<double> z = testing::RandomVector<double>(rng, Count(ys));
    std::vector<double> want(Count(ys));
    RunWithWorkspace(nchw, x, w, b, options.post_ops.sum ? z.data() : nullptr, want);
    options.channels_last = true;
    for (DataType dtype : {DataType::kFloat, DataType::kDouble}) {
      NXRT_ASSERT_OK_AND_ASSIGN(ConvPlan plan, PrepareConv(dtype, x_nhwc, ws, bs, attr, options));
      ASSERT_EQ(plan.output_shape, (Shape{ys[0], ys[2], ys[3], ys[1]}));
      const bool in_place = iter % 4 == 3;
      if (dtype == DataType::kFloat) {
        EXPECT_NE(plan.dnnl, nullptr);
        const std::vector<float> xf = ToNhwc(xs, std::vector<float>(x.begin(), x.end()));
        const std::vector<float> zf = ToNhwc(ys, std::vector<float>(z.begin(), z.end()));
        const std::vector<float> wf(w.begin(), w.end()), bf(b.begin(), b.end());
        std::vector<float> y = in_place ? zf : std::vector<float>(zf.size(), 7.0f);
        RunWithWorkspace(plan, xf, wf, bf,
                         !options.post_ops.sum ? nullptr : in_place ? y.data() : zf.data(), y);
        EXPECT_TRUE(AllClose(ToNchw(ys, y), want, 1e-4, 1e-5)) << "float";
      } else {
        const std::vector<double> zd = ToNhwc(ys, z);
        std::vector<double> y = in_place ? zd : std::vector<double>(zd.size(), 7.0);
        RunWithWorkspace(plan, ToNhwc(xs, x), w, b,
                         !options.post_ops.sum ? nullptr : in_place ? y.data() : zd.data(), y);
        EXPECT_TRUE(AllClose(ToNchw(ys, y), want, 1e-12, 1e-12)) << "double";
      }
    }
  }
}

// The channels_last depthwise, grouped and 1x1 plans, which give oneDNN the NHWC tensors when a
// direct JIT kernel takes them, against the definition (DirectConv) at one and two threads:
// channel counts off the 8- and 16-lane blocks, odd sizes, strides, pads, and a NaN and an
// infinity in X (the outputs whose window reads them are NaN or infinite, the others finite).
TEST(ConvTest, ChannelsLastGroupedAndPointwiseMatchDefinitionWithNanInf) {
  std::mt19937 rng(83);
  for (int iter = 0; iter < 18; ++iter) {
    const int64_t c = std::vector<int64_t>{12, 24, 40}[iter % 3];
    const int kind = iter % 3;  // 0 depthwise, 1 grouped (4 groups), 2 pointwise
    const int64_t group = kind == 0 ? c : kind == 1 ? 4 : 1;
    const int64_t m = kind == 0 ? c : kind == 1 ? 4 * RandomInt(rng, 2, 5) : RandomInt(rng, 5, 21);
    const int64_t k = kind == 2 ? 1 : 3;
    ConvAttributes attr;
    attr.group = group;
    attr.strides = kind == 2 ? std::vector<int64_t>{1, 1}
                             : std::vector<int64_t>{RandomInt(rng, 1, 2), RandomInt(rng, 1, 2)};
    attr.dilations = {1, 1};
    attr.pads = kind == 2 ? std::vector<int64_t>{0, 0, 0, 0} : std::vector<int64_t>{1, 1, 1, 1};
    const Shape xs = {RandomInt(rng, 1, 2), c, RandomInt(rng, 3, 17), RandomInt(rng, 3, 23)};
    const Shape ws = {m, c / group, k, k};
    std::vector<double> x = testing::RandomVector<double>(rng, Count(xs));
    x[RandomInt(rng, 0, Count(xs) - 1)] = NAN;
    x[RandomInt(rng, 0, Count(xs) - 1)] = INFINITY;
    const std::vector<double> w = testing::RandomVector<double>(rng, Count(ws));
    const std::vector<double> b = testing::RandomVector<double>(rng, m);
    const std::vector<float> xf = ToNhwc(xs, std::vector<float>(x.begin(), x.end()));
    const std::vector<float> wf(w.begin(), w.end()), bf(b.begin(), b.end());
    for (int threads : {1, 2}) {
      SCOPED_TRACE(::testing::Message() << "iteration " << iter << " X " << Str(xs) << " W "
                                        << Str(ws) << " at " << threads << " thread(s)");
      ConvOptions options;
      options.threads = threads;
      options.channels_last = true;
      const Shape x_nhwc = {xs[0], xs[2], xs[3], xs[1]};
      const Shape bs = {m};
      NXRT_ASSERT_OK_AND_ASSIGN(ConvPlan plan,
                                PrepareConv(DataType::kFloat, x_nhwc, ws, bs, attr, options));
      ASSERT_NE(plan.dnnl, nullptr);
      const Shape& yn = plan.output_shape;
      const Shape ys = {yn[0], yn[3], yn[1], yn[2]};
      const std::vector<double> want = DirectConv(xs, x, ws, w, &b, ys, group, attr.strides,
                                                  attr.dilations, {attr.pads[0], attr.pads[1]});
      std::vector<float> y(Count(ys), 7.0f);
      RunWithWorkspace<float>(plan, xf, wf, bf, nullptr, y);
      const std::vector<float> got = ToNchw(ys, y);
      for (size_t i = 0; i < got.size(); ++i) {
        if (std::isnan(want[i])) {
          ASSERT_TRUE(std::isnan(got[i])) << "output " << i << ": " << got[i];
        } else if (std::isinf(want[i])) {
          ASSERT_EQ(got[i], want[i]) << "output " << i;
        } else {
          ASSERT_NEAR(got[i], want[i], 1e-4 * (1 + std::fabs(want[i]))) << "output " << i;
        }
      }
    }
  }
}

// Constant weights let a 3x3 stride-1 convolution of >= 64 channels take oneDNN's Winograd
// algorithm (AVX-512 machines): NCHW and channels_last, pads 1 and 0, in and out channel counts
// that differ, bias, sum (in place on Y) and Relu, against the double reference loops. Without
// constant_weights the same plan stays on the direct kernels.
TEST(ConvTest, WinogradWithConstantWeightsMatchesReference) {
  struct Problem {
    Shape xs, ws;
    int64_t pad;
    bool channels_last;
    bool sum;
  };
  const std::vector<Problem> problems = {{{1, 64, 14, 14}, {64, 64, 3, 3}, 1, false, false},
                                         {{1, 64, 14, 14}, {64, 64, 3, 3}, 1, true, true},
                                         {{2, 128, 9, 11}, {64, 128, 3, 3}, 0, true, false},
                                         {{1, 64, 7, 7}, {128, 64, 3, 3}, 1, false, true}};
  std::mt19937 rng(91);
  for (const Problem& pr : problems) {
    SCOPED_TRACE(::testing::Message() << "X " << Str(pr.xs) << " W " << Str(pr.ws) << " pad "
                                      << pr.pad << " channels_last " << pr.channels_last);
    ConvAttributes attr;
    attr.pads = {pr.pad, pr.pad, pr.pad, pr.pad};
    const Shape bs = {pr.ws[0]};
    ConvOptions options;
    options.threads = 2;
    options.post_ops.sum = pr.sum;
    options.post_ops.activation = ConvActivation::kRelu;
    const std::vector<double> x = testing::RandomVector<double>(rng, Count(pr.xs));
    const std::vector<double> w = testing::RandomVector<double>(rng, Count(pr.ws));
    const std::vector<double> b = testing::RandomVector<double>(rng, pr.ws[0]);
    NXRT_ASSERT_OK_AND_ASSIGN(ConvPlan ref,
                              PrepareConv(DataType::kDouble, pr.xs, pr.ws, bs, attr, options));
    const Shape& ys = ref.output_shape;
    const std::vector<double> z = testing::RandomVector<double>(rng, Count(ys));
    std::vector<double> want(Count(ys));
    RunWithWorkspace(ref, x, w, b, pr.sum ? z.data() : nullptr, want);

    const Shape xs = pr.channels_last ? Shape{pr.xs[0], pr.xs[2], pr.xs[3], pr.xs[1]} : pr.xs;
    const auto layout = [&](const Shape& nchw, const std::vector<float>& v) {
      return pr.channels_last ? ToNhwc(nchw, v) : v;
    };
    options.channels_last = pr.channels_last;
    NXRT_ASSERT_OK_AND_ASSIGN(ConvPlan direct,
                              PrepareConv(DataType::kFloat, xs, pr.ws, bs, attr, options));
    EXPECT_EQ(ConvImplementation(direct).find("wino"), std::string::npos)
        << ConvImplementation(direct);
    options.constant_weights = true;
    NXRT_ASSERT_OK_AND_ASSIGN(ConvPlan plan,
                              PrepareConv(DataType::kFloat, xs, pr.ws, bs, attr, options));
    if (CpuHasAvx512()) {
      EXPECT_NE(ConvImplementation(plan).find("wino"), std::string::npos)
          << ConvImplementation(plan);
    }
    const std::vector<float> wf(w.begin(), w.end()), bf(b.begin(), b.end());
    NXRT_ASSERT_OK(PackConvWeights(plan, wf.data()));
    const std::vector<float> xf = layout(pr.xs, std::vector<float>(x.begin(), x.end()));
    std::vector<float> y = layout(ys, std::vector<float>(z.begin(), z.end()));
    RunWithWorkspace(plan, xf, wf, bf, pr.sum ? y.data() : nullptr, y);
    const std::vector<float> got = pr.channels_last ? ToNchw(ys, y) : y;
    EXPECT_TRUE(AllClose(got, want, 1e-4, 1e-4));
  }
}

TEST(ConvTest, ChannelsLastIsTwoDimensionalConvOnly) {
  ConvOptions options;
  options.channels_last = true;
  auto rank3 = PrepareConv(DataType::kFloat, Shape{1, 5, 3}, Shape{4, 3, 3}, std::nullopt, {},
                           options);
  ASSERT_FALSE(rank3.ok());
  EXPECT_EQ(rank3.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(rank3.status().message().find("X [1,5,3] must have rank 4"), std::string::npos)
      << rank3.status().message();
  // Shape errors print X as [N, C, H, W] under the op name that says so.
  auto channels = PrepareConv(DataType::kFloat, Shape{1, 5, 5, 3}, Shape{4, 2, 3, 3},
                              std::nullopt, {}, options);
  ASSERT_FALSE(channels.ok());
  EXPECT_NE(channels.status().message().find("Conv (channels_last): X [1,3,5,5]"),
            std::string::npos)
      << channels.status().message();
  EXPECT_EQ(PrepareConvTranspose(DataType::kFloat, Shape{1, 5, 5, 3}, Shape{3, 2, 3, 3},
                                 std::nullopt, {}, options)
                .status()
                .code(),
            StatusCode::kInvalidArgument);
}

TEST(ConvTest, ShapeErrorsNameShapes) {
  auto channels =
      PrepareConv(DataType::kFloat, Shape{1, 3, 5, 5}, Shape{4, 2, 3, 3}, std::nullopt, {});
  ASSERT_FALSE(channels.ok());
  EXPECT_NE(channels.status().message().find("[1,3,5,5]"), std::string::npos);
  EXPECT_NE(channels.status().message().find("[4,2,3,3]"), std::string::npos);
  ConvAttributes attr;
  attr.kernel_shape = {2, 2};
  EXPECT_FALSE(
      PrepareConv(DataType::kFloat, Shape{1, 2, 5, 5}, Shape{4, 2, 3, 3}, std::nullopt, attr).ok());
  const Shape bad_bias = {3};
  EXPECT_FALSE(
      PrepareConv(DataType::kFloat, Shape{1, 2, 5, 5}, Shape{4, 2, 3, 3}, bad_bias, {}).ok());
  auto big = PrepareConv(DataType::kFloat, Shape{1, 1, 2, 2}, Shape{1, 1, 3, 3}, std::nullopt, {});
  ASSERT_FALSE(big.ok());
  EXPECT_NE(big.status().message().find("larger than the padded input"), std::string::npos);
  EXPECT_EQ(PrepareConv(DataType::kInt32, Shape{1, 1, 3, 3}, Shape{1, 1, 1, 1}, std::nullopt, {})
                .status()
                .code(),
            StatusCode::kUnsupported);
  EXPECT_FALSE(
      PrepareConvTranspose(DataType::kFloat, Shape{1, 3, 5, 5}, Shape{2, 2, 3, 3}, std::nullopt, {})
          .ok());
  EXPECT_FALSE(ParseAutoPad("SAME").ok());
}

}  // namespace
}  // namespace nxrt::cpu::nn
