// ep/cpu/math/nn/pool_test.cpp: tests of MaxPool (with Indices), AveragePool, LpPool and the Global
// pools: the ONNX backend and pytorch cases (onnx_node_cases.inc), the issue-6 ceil_mode edge
// case, random configurations against a brute-force window reference, the 2-D MaxPool path
// without Indices against the general one (NaNs included), and errors.
#include "ep/cpu/math/nn/pool.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "ep/cpu/math/nn/testing/onnx_node_cases.h"
#include "ep/cpu/math/testing/nn_test_util.h"

namespace nxrt::cpu::nn {
namespace {

using testing::AllClose;
using testing::Count;
using testing::ForEachIndex;
using testing::NodeCase;
using testing::Offset;
using testing::RandomInt;

PoolAttributes PoolAttributesOf(const NodeCase& c) {
  PoolAttributes a;
  a.kernel_shape = c.Ints("kernel_shape");
  a.auto_pad = ParseAutoPad(c.String("auto_pad", "NOTSET")).value();
  a.strides = c.Ints("strides");
  a.dilations = c.Ints("dilations");
  a.pads = c.Ints("pads");
  a.ceil_mode = c.Int("ceil_mode", 0) != 0;
  a.count_include_pad = c.Int("count_include_pad", 0) != 0;
  a.storage_order = c.Int("storage_order", 0);
  a.p = static_cast<double>(c.Int("p", 2));
  return a;
}

template <typename T>
void RunCase(const NodeCase& c, PoolKind kind, bool global) {
  const auto& x = c.Input(0);
  const auto& y = c.Output(0);
  auto plan = global ? PrepareGlobalPool(kind, x.dtype(), x.shape)
                     : PreparePool(kind, x.dtype(), x.shape, PoolAttributesOf(c));
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  ASSERT_EQ(plan->output_shape, y.shape);
  std::vector<T> out(Count(y.shape));
  std::vector<int64_t> indices(out.size());
  NXRT_ASSERT_OK(Pool(*plan, x.As<T>().data(), out.data(), indices.data()));
  EXPECT_TRUE(AllClose(out, y.Values(), 1e-5, 1e-5));
  if (c.Output(1).present()) {
    EXPECT_EQ(indices, c.Output(1).As<int64_t>());
  }
}

TEST(PoolTest, OnnxBackendAndPytorchCases) {
  const std::pair<const char*, PoolKind> ops[] = {{"MaxPool", PoolKind::kMax},
                                                  {"AveragePool", PoolKind::kAverage},
                                                  {"GlobalMaxPool", PoolKind::kMax},
                                                  {"GlobalAveragePool", PoolKind::kAverage}};
  int count = 0;
  for (auto [op, kind] : ops) {
    const bool global = std::string(op).starts_with("Global");
    for (const NodeCase* c : testing::OnnxNodeCases(op)) {
      SCOPED_TRACE(c->name);
      ++count;
      if (c->Input(0).dtype() == DataType::kUint8) {
        RunCase<uint8_t>(*c, kind, global);
      } else {
        RunCase<float>(*c, kind, global);
      }
    }
  }
  EXPECT_GE(count, 30);
}

// Issue 6: AveragePool 1-D [1,2,3,4,5], kernel 2, stride 2, ceil_mode=1, no pads.
TEST(PoolTest, AveragePool1dCeilModeLastWindowCountsOnlyItsElements) {
  PoolAttributes attr;
  attr.kernel_shape = {2};
  attr.strides = {2};
  attr.ceil_mode = true;
  const std::vector<float> x = {1, 2, 3, 4, 5};
  for (bool include_pad : {false, true}) {
    attr.count_include_pad = include_pad;
    NXRT_ASSERT_OK_AND_ASSIGN(
        PoolPlan plan, PreparePool(PoolKind::kAverage, DataType::kFloat, Shape{1, 1, 5}, attr));
    EXPECT_EQ(plan.output_shape, (Shape{1, 1, 3}));
    std::vector<float> y(3);
    NXRT_ASSERT_OK(Pool(plan, x.data(), y.data(), nullptr));
    EXPECT_EQ(y, (std::vector<float>{1.5f, 3.5f, 5.0f}));
  }
}

TEST(PoolTest, RandomConfigurationsAgainstBruteForce) {
  std::mt19937 rng(61);
  for (int iter = 0; iter < 120; ++iter) {
    const PoolKind kind = static_cast<PoolKind>(iter % 3);
    const int64_t nsp = RandomInt(rng, 1, 3);
    PoolAttributes attr;
    attr.auto_pad = iter % 7 == 0 ? AutoPad::kSameUpper
                                  : (iter % 7 == 1 ? AutoPad::kSameLower : AutoPad::kNotSet);
    attr.ceil_mode = iter % 2 == 0;
    attr.count_include_pad = iter % 4 < 2;
    attr.storage_order = iter % 5 == 0;
    attr.p = iter % 6 == 2 ? 3.0 : (iter % 12 == 5 ? 1.0 : 2.0);  // LpPool (iter % 3 == 2): 3, 1, 2
    Shape xs = {RandomInt(rng, 1, 2), RandomInt(rng, 1, 2)};
    std::vector<int64_t> pads_end;
    for (int64_t i = 0; i < nsp; ++i) {
      attr.kernel_shape.push_back(RandomInt(rng, 1, 3));
      attr.strides.push_back(RandomInt(rng, 1, 3));
      attr.dilations.push_back(RandomInt(rng, 1, 2));
      attr.pads.push_back(RandomInt(rng, 0, attr.kernel_shape.back() - 1));
      pads_end.push_back(RandomInt(rng, 0, attr.kernel_shape.back() - 1));
      xs.push_back((attr.kernel_shape.back() - 1) * attr.dilations.back() + RandomInt(rng, 1, 5));
    }
    attr.pads.insert(attr.pads.end(), pads_end.begin(), pads_end.end());
    // Geometry from the spec formulas.
    Shape ys = {xs[0], xs[1]};
    std::vector<int64_t> pb(nsp), pe(nsp);
    for (int64_t i = 0; i < nsp; ++i) {
      const int64_t in = xs[2 + i], s = attr.strides[i];
      const int64_t dk = (attr.kernel_shape[i] - 1) * attr.dilations[i] + 1;
      if (attr.auto_pad == AutoPad::kNotSet) {
        pb[i] = attr.pads[i];
        pe[i] = attr.pads[nsp + i];
        const double span = static_cast<double>(in + pb[i] + pe[i] - dk) / static_cast<double>(s);
        int64_t out = static_cast<int64_t>(attr.ceil_mode ? std::ceil(span) : std::floor(span)) + 1;
        if (attr.ceil_mode && (out - 1) * s >= in + pb[i]) --out;
        ys.push_back(out);
      } else {
        const int64_t out = (in + s - 1) / s;
        const int64_t total = std::max<int64_t>(0, (out - 1) * s + dk - in);
        pb[i] = attr.auto_pad == AutoPad::kSameUpper ? total / 2 : total - total / 2;
        pe[i] = total - pb[i];
        ys.push_back(out);
      }
    }
    NXRT_ASSERT_OK_AND_ASSIGN(PoolPlan plan, PreparePool(kind, DataType::kDouble, xs, attr));
    ASSERT_EQ(plan.output_shape, ys) << "iteration " << iter;
    const std::vector<double> x = testing::RandomVector<double>(rng, Count(xs));
    std::vector<double> y(Count(ys));
    std::vector<int64_t> indices(y.size());
    NXRT_ASSERT_OK(Pool(plan, x.data(), y.data(), indices.data()));
    const Shape kernel(attr.kernel_shape.begin(), attr.kernel_shape.end());
    ForEachIndex(ys, [&](const std::vector<int64_t>& o) {
      double best = -INFINITY, sum = 0;
      int64_t best_index = -1, valid = 0, padded = 0;
      ForEachIndex(kernel, [&](const std::vector<int64_t>& k) {
        std::vector<int64_t> xi = {o[0], o[1]};
        bool inside = true, in_pad = true;
        for (int64_t i = 0; i < nsp; ++i) {
          const int64_t c = o[2 + i] * attr.strides[i] - pb[i] + k[i] * attr.dilations[i];
          inside = inside && c >= 0 && c < xs[2 + i];
          in_pad = in_pad && c >= -pb[i] && c < xs[2 + i] + pe[i];
          xi.push_back(c);
        }
        padded += in_pad;
        if (!inside) return;
        const double v = x[Offset(xs, xi)];
        ++valid;
        sum += kind == PoolKind::kLp ? std::pow(std::fabs(v), attr.p) : v;
        if (v > best) {
          best = v;
          if (attr.storage_order == 0) {
            best_index = Offset(xs, xi);
          } else {
            int64_t off = 0, stride = 1;
            for (int64_t i = 0; i < nsp; ++i, stride *= xs[2 + i - 1]) off += xi[2 + i] * stride;
            best_index = (o[0] * xs[1] + o[1]) * Count(std::span(xs).subspan(2)) + off;
          }
        }
      });
      const int64_t at = Offset(ys, o);
      if (kind == PoolKind::kMax) {
        ASSERT_EQ(y[at], best) << "iteration " << iter;
        ASSERT_EQ(indices[at], best_index) << "iteration " << iter;
      } else if (kind == PoolKind::kAverage) {
        const double want = sum / static_cast<double>(attr.count_include_pad ? padded : valid);
        ASSERT_NEAR(y[at], want, 1e-12) << "iteration " << iter;
      } else {
        ASSERT_NEAR(y[at], std::pow(sum, 1.0 / attr.p), 1e-12) << "iteration " << iter;
      }
    });
  }
}

// MaxPool without Indices takes a row-by-row path in 2-D; with Indices, the general one. Both
// must give the same bits, NaNs (first one of a window wins) included.
TEST(PoolTest, MaxPool2dWithoutIndicesMatchesGeneralPathWholeAndSplit) {
  std::mt19937 rng(97);
  for (int iter = 0; iter < 90; ++iter) {
    PoolAttributes attr;
    attr.ceil_mode = iter % 2 == 1;
    Shape xs = {RandomInt(rng, 1, 2), RandomInt(rng, 1, 3)};
    std::vector<int64_t> pads_end;
    for (int i = 0; i < 2; ++i) {
      attr.kernel_shape.push_back(RandomInt(rng, 1, 3));
      attr.strides.push_back(RandomInt(rng, 1, 3));
      attr.dilations.push_back(RandomInt(rng, 1, 2));
      attr.pads.push_back(RandomInt(rng, 0, attr.kernel_shape.back() - 1));
      pads_end.push_back(RandomInt(rng, 0, attr.kernel_shape.back() - 1));
      xs.push_back((attr.kernel_shape.back() - 1) * attr.dilations.back() + RandomInt(rng, 1, 6));
    }
    attr.pads.insert(attr.pads.end(), pads_end.begin(), pads_end.end());
    for (DataType dtype : {DataType::kFloat, DataType::kDouble}) {
      NXRT_ASSERT_OK_AND_ASSIGN(PoolPlan plan, PreparePool(PoolKind::kMax, dtype, xs, attr));
      std::vector<double> x = testing::RandomVector<double>(rng, Count(xs));
      // NaNs in a third of the runs (planes with a NaN take the exact tap order).
      for (double& v : x) {
        if (iter % 3 == 0 && RandomInt(rng, 0, 9) == 0) {
          v = std::numeric_limits<double>::quiet_NaN();
        }
      }
      auto check = [&](auto zero) {
        using T = decltype(zero);
        const std::vector<T> xt(x.begin(), x.end());
        std::vector<T> fast(Count(plan.output_shape)), general(fast.size());
        std::vector<int64_t> indices(fast.size());
        NXRT_ASSERT_OK(Pool(plan, xt.data(), fast.data(), nullptr));
        NXRT_ASSERT_OK(Pool(plan, xt.data(), general.data(), indices.data()));
        EXPECT_EQ(std::memcmp(fast.data(), general.data(), fast.size() * sizeof(T)), 0)
            << "iteration " << iter;
        // The planes split in two (as threads run them) give the same bits.
        std::vector<T> split(fast.size());
        const int64_t half = plan.planes / 2;
        NXRT_ASSERT_OK(PoolPlanes(plan, xt.data(), split.data(), nullptr, 0, half));
        NXRT_ASSERT_OK(PoolPlanes(plan, xt.data(), split.data(), nullptr, half, plan.planes));
        EXPECT_EQ(std::memcmp(split.data(), fast.data(), fast.size() * sizeof(T)), 0)
            << "iteration " << iter;
      };
      if (dtype == DataType::kFloat) {
        check(0.0f);
      } else {
        check(0.0);
      }
    }
  }
}

TEST(PoolTest, GlobalPoolsAndLp) {
  const std::vector<float> x = {1, -2, 3, -4, 5, 6, 7, 8};  // [1, 2, 2, 2]
  std::vector<float> y(2);
  NXRT_ASSERT_OK_AND_ASSIGN(
      PoolPlan avg, PrepareGlobalPool(PoolKind::kAverage, DataType::kFloat, Shape{1, 2, 2, 2}));
  EXPECT_EQ(avg.output_shape, (Shape{1, 2, 1, 1}));
  NXRT_ASSERT_OK(Pool(avg, x.data(), y.data(), nullptr));
  EXPECT_EQ(y, (std::vector<float>{-0.5f, 6.5f}));
  NXRT_ASSERT_OK_AND_ASSIGN(PoolPlan mx,
                            PrepareGlobalPool(PoolKind::kMax, DataType::kFloat, Shape{1, 2, 2, 2}));
  NXRT_ASSERT_OK(Pool(mx, x.data(), y.data(), nullptr));
  EXPECT_EQ(y, (std::vector<float>{3, 8}));
  NXRT_ASSERT_OK_AND_ASSIGN(
      PoolPlan lp, PrepareGlobalPool(PoolKind::kLp, DataType::kFloat, Shape{1, 2, 2, 2}, 1.0));
  NXRT_ASSERT_OK(Pool(lp, x.data(), y.data(), nullptr));
  EXPECT_EQ(y, (std::vector<float>{10, 26}));
  // NaN propagates through max pooling.
  const std::vector<float> nan = {1, NAN, 3, 2};
  NXRT_ASSERT_OK_AND_ASSIGN(PoolPlan mx1,
                            PrepareGlobalPool(PoolKind::kMax, DataType::kFloat, Shape{1, 1, 4}));
  NXRT_ASSERT_OK(Pool(mx1, nan.data(), y.data(), nullptr));
  EXPECT_TRUE(std::isnan(y[0]));
  PoolAttributes attr;
  attr.kernel_shape = {2};
  NXRT_ASSERT_OK_AND_ASSIGN(PoolPlan mp,
                            PreparePool(PoolKind::kMax, DataType::kFloat, Shape{1, 1, 4}, attr));
  std::vector<float> three(3);
  NXRT_ASSERT_OK(Pool(mp, nan.data(), three.data(), nullptr));
  EXPECT_TRUE(std::isnan(three[0]) && std::isnan(three[1]));
  EXPECT_EQ(three[2], 3.0f);
}

TEST(PoolTest, Errors) {
  PoolAttributes attr;
  attr.kernel_shape = {3};
  auto rank = PreparePool(PoolKind::kMax, DataType::kFloat, Shape{1, 1, 5, 5}, attr);
  ASSERT_FALSE(rank.ok());
  EXPECT_NE(rank.status().message().find("[1,1,5,5]"), std::string::npos);
  attr.kernel_shape = {7};
  EXPECT_FALSE(PreparePool(PoolKind::kMax, DataType::kFloat, Shape{1, 1, 5}, attr).ok());
  attr.kernel_shape = {2};
  attr.storage_order = 2;
  EXPECT_FALSE(PreparePool(PoolKind::kMax, DataType::kFloat, Shape{1, 1, 5}, attr).ok());
  attr.storage_order = 0;
  EXPECT_EQ(PreparePool(PoolKind::kAverage, DataType::kInt8, Shape{1, 1, 5}, attr).status().code(),
            StatusCode::kUnsupported);
  EXPECT_TRUE(PreparePool(PoolKind::kMax, DataType::kInt8, Shape{1, 1, 5}, attr).ok());
  EXPECT_FALSE(PrepareGlobalPool(PoolKind::kMax, DataType::kFloat, Shape{1, 1}).ok());
}

}  // namespace
}  // namespace nxrt::cpu::nn
