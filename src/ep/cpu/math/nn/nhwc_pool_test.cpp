// ep/cpu/math/nn/nhwc_pool_test.cpp: tests of the channels-last pools against the NCHW pools of
// pool.h on the transposed tensors: random windows (3, 17 and 64 channels, strides, pads,
// dilations, ceil_mode, SAME_UPPER, count_include_pad; NaNs for MaxPool), float and double, the
// units run in several ranges; the global average; and errors.
#include "ep/cpu/math/nn/nhwc_pool.h"

#include <gtest/gtest.h>

#include <limits>
#include <random>
#include <string>
#include <vector>

#include "ep/cpu/math/nn_common.h"
#include "ep/cpu/math/testing/nn_test_util.h"

namespace nxrt::cpu::nn {
namespace {

using testing::AllClose;
using testing::Count;
using testing::RandomInt;
using testing::ToNhwc;

Shape NhwcOf(const Shape& nchw) { return {nchw[0], nchw[2], nchw[3], nchw[1]}; }

// The NHWC plan run in three unit ranges, as threads would.
template <typename T>
std::vector<T> RunNhwc(const NhwcPoolPlan& plan, const std::vector<T>& x) {
  std::vector<T> y(Count(plan.output_shape), static_cast<T>(7));
  const int64_t third = plan.units / 3;
  NhwcPoolUnits(plan, x.data(), y.data(), 0, third);
  NhwcPoolUnits(plan, x.data(), y.data(), third, 2 * third);
  NhwcPoolUnits(plan, x.data(), y.data(), 2 * third, plan.units);
  return y;
}

template <typename T>
void CheckWindows(DataType dtype, uint32_t seed) {
  std::mt19937 rng(seed);
  const int64_t channel_counts[] = {3, 17, 64};
  for (int iter = 0; iter < 48; ++iter) {
    const PoolKind kind = iter % 2 == 0 ? PoolKind::kMax : PoolKind::kAverage;
    PoolAttributes attr;
    attr.kernel_shape = {RandomInt(rng, 1, 3), RandomInt(rng, 1, 3)};
    attr.strides = {RandomInt(rng, 1, 2), RandomInt(rng, 1, 3)};
    attr.dilations = {RandomInt(rng, 1, 2), 1};
    if (iter % 5 == 4) {
      attr.auto_pad = AutoPad::kSameUpper;
    } else {
      // Pads smaller than the kernel, as the spec requires.
      attr.pads = {RandomInt(rng, 0, attr.kernel_shape[0] - 1),
                   RandomInt(rng, 0, attr.kernel_shape[1] - 1),
                   RandomInt(rng, 0, attr.kernel_shape[0] - 1),
                   RandomInt(rng, 0, attr.kernel_shape[1] - 1)};
      attr.ceil_mode = iter % 3 == 0;
    }
    attr.count_include_pad = iter % 4 == 3;
    attr.storage_order = iter % 8 == 0;  // accepted and not used
    const Shape xs = {RandomInt(rng, 1, 2), channel_counts[iter % 3], RandomInt(rng, 4, 11),
                      RandomInt(rng, 4, 11)};
    SCOPED_TRACE(::testing::Message()
                 << "iteration " << iter << " X " << Str(xs) << " kernel "
                 << Str(attr.kernel_shape) << " strides " << Str(attr.strides) << " pads "
                 << Str(attr.pads) << " ceil " << attr.ceil_mode);
    std::vector<T> x = testing::RandomVector<T>(rng, Count(xs));
    if (kind == PoolKind::kMax && iter % 4 == 0) {  // 3, 17 and 64 channels
      for (int i = 0; i < 5; ++i) {
        x[RandomInt(rng, 0, Count(xs) - 1)] = std::numeric_limits<T>::quiet_NaN();
      }
    }
    NXRT_ASSERT_OK_AND_ASSIGN(PoolPlan nchw, PreparePool(kind, dtype, xs, attr));
    std::vector<T> want(Count(nchw.output_shape));
    NXRT_ASSERT_OK(Pool(nchw, x.data(), want.data(), nullptr));
    NXRT_ASSERT_OK_AND_ASSIGN(NhwcPoolPlan plan,
                              PrepareNhwcPool(kind, dtype, NhwcOf(xs), attr));
    ASSERT_EQ(plan.output_shape, NhwcOf(nchw.output_shape));
    const std::vector<T> y = RunNhwc(plan, ToNhwc(xs, x));
    if (kind == PoolKind::kMax) {
      EXPECT_TRUE(AllClose(y, ToNhwc(nchw.output_shape, want), 0, 0)) << "max";
    } else {
      EXPECT_TRUE(AllClose(y, ToNhwc(nchw.output_shape, want), 1e-6, 1e-7)) << "average";
    }
  }
}

TEST(NhwcPoolTest, RandomWindowsMatchNchwFloat) { CheckWindows<float>(DataType::kFloat, 91); }

TEST(NhwcPoolTest, RandomWindowsMatchNchwDouble) { CheckWindows<double>(DataType::kDouble, 92); }

// Windows holding only -inf give what the NCHW pool gives (its max starts from the lowest
// float), at 20 channels: one full block of 16 and a tail.
TEST(NhwcPoolTest, MaxOfMinusInfinityMatchesNchw) {
  const Shape xs = {1, 20, 4, 4};
  PoolAttributes attr;
  attr.kernel_shape = {2, 2};
  attr.strides = {2, 2};
  const std::vector<float> x(Count(xs), -std::numeric_limits<float>::infinity());
  NXRT_ASSERT_OK_AND_ASSIGN(PoolPlan nchw, PreparePool(PoolKind::kMax, DataType::kFloat, xs, attr));
  std::vector<float> want(Count(nchw.output_shape));
  NXRT_ASSERT_OK(Pool(nchw, x.data(), want.data(), nullptr));
  NXRT_ASSERT_OK_AND_ASSIGN(NhwcPoolPlan plan,
                            PrepareNhwcPool(PoolKind::kMax, DataType::kFloat, NhwcOf(xs), attr));
  EXPECT_EQ(RunNhwc(plan, ToNhwc(xs, x)), ToNhwc(nchw.output_shape, want));
}

TEST(NhwcPoolTest, GlobalAverageMatchesNchw) {
  std::mt19937 rng(93);
  // 300 channels: two channel blocks, the second partial.
  for (const Shape& xs : {Shape{2, 3, 5, 4}, Shape{1, 17, 7, 7}, Shape{3, 64, 2, 9},
                          Shape{1, 300, 3, 3}}) {
    SCOPED_TRACE(Str(xs));
    const std::vector<float> x = testing::RandomVector<float>(rng, Count(xs));
    NXRT_ASSERT_OK_AND_ASSIGN(PoolPlan nchw,
                              PrepareGlobalPool(PoolKind::kAverage, DataType::kFloat, xs));
    std::vector<float> want(Count(nchw.output_shape));
    NXRT_ASSERT_OK(Pool(nchw, x.data(), want.data(), nullptr));
    NXRT_ASSERT_OK_AND_ASSIGN(NhwcPoolPlan plan,
                              PrepareNhwcGlobalAveragePool(DataType::kFloat, NhwcOf(xs)));
    ASSERT_EQ(plan.output_shape, (Shape{xs[0], 1, 1, xs[1]}));
    // [N, C, 1, 1] and [N, 1, 1, C] hold the same order.
    EXPECT_TRUE(AllClose(RunNhwc(plan, ToNhwc(xs, x)), want, 1e-6, 1e-7));
  }
}

TEST(NhwcPoolTest, ErrorsNameTheOpAndShape) {
  PoolAttributes attr;
  attr.kernel_shape = {2, 2};
  auto rank3 = PrepareNhwcPool(PoolKind::kMax, DataType::kFloat, Shape{1, 4, 3}, attr);
  ASSERT_FALSE(rank3.ok());
  EXPECT_NE(rank3.status().message().find("NhwcMaxPool: X [1,4,3] must have rank 4"),
            std::string::npos)
      << rank3.status().message();
  attr.kernel_shape = {2};
  auto kernel = PrepareNhwcPool(PoolKind::kAverage, DataType::kFloat, Shape{1, 4, 4, 3}, attr);
  ASSERT_FALSE(kernel.ok());
  EXPECT_NE(kernel.status().message().find("NhwcAveragePool (X read as [N, C, H, W]): "),
            std::string::npos)
      << kernel.status().message();
  EXPECT_NE(kernel.status().message().find("[1,3,4,4]"), std::string::npos);
  EXPECT_EQ(PrepareNhwcPool(PoolKind::kLp, DataType::kFloat, Shape{1, 4, 4, 3}, attr)
                .status()
                .code(),
            StatusCode::kUnsupported);
  EXPECT_EQ(PrepareNhwcGlobalAveragePool(DataType::kInt8, Shape{1, 4, 4, 3}).status().code(),
            StatusCode::kUnsupported);
  EXPECT_FALSE(PrepareNhwcGlobalAveragePool(DataType::kFloat, Shape{1, 4, 3}).ok());
}

}  // namespace
}  // namespace nxrt::cpu::nn
