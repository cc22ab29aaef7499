// ep/cpu/math/arg_best_test.cpp: ArgMax/ArgMin (reduce.h) and Hardmax (softmax.h), which find
// their indices with arg_best.h, against a plain scan written from the ONNX/NumPy rule, on rows
// and column blocks long and wide enough for the lane and block paths (rows of 1..99, column
// widths of 1..150), with few distinct values (ties), NaNs and infinities, in float, float16,
// double, int32 and int8.
#include "ep/cpu/math/arg_best.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "ep/cpu/math/normalization/softmax.h"
#include "ep/cpu/math/reduction/reduce.h"
#include "ep/cpu/math/testing/test_util.h"

namespace nxrt::cpu::math {
namespace {

using testing::GetDouble;
using testing::RandomTensor;
using testing::SetValue;
using testing::Values;

// The index of the best of `values` in order: the first (last) NaN if there is one, else the
// first (last) occurrence of the maximum (minimum).
int64_t Reference(const std::vector<double>& values, bool is_max, bool last) {
  int64_t nan_at = -1;
  for (size_t i = 0; i < values.size(); ++i) {
    if (std::isnan(values[i]) && (nan_at < 0 || last)) nan_at = static_cast<int64_t>(i);
  }
  if (nan_at >= 0) return nan_at;
  int64_t best = 0;
  for (size_t i = 1; i < values.size(); ++i) {
    const double v = values[i];
    const double b = values[static_cast<size_t>(best)];
    if ((is_max ? v > b : v < b) || (last && v == b)) best = static_cast<int64_t>(i);
  }
  return best;
}

// Expected indices of a [outer, axis_dim, inner] tensor reduced over its middle axis.
std::vector<int64_t> ReferenceIndices(const Tensor& x, bool is_max, bool last) {
  const int64_t outer = x.shape()[0];
  const int64_t axis_dim = x.shape()[1];
  const int64_t inner = x.shape()[2];
  std::vector<int64_t> out;
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t j = 0; j < inner; ++j) {
      std::vector<double> values;
      for (int64_t d = 0; d < axis_dim; ++d) {
        values.push_back(GetDouble(x, (o * axis_dim + d) * inner + j));
      }
      out.push_back(Reference(values, is_max, last));
    }
  }
  return out;
}

TEST(ArgBest, RowsAndColumnsWithTiesNanAndInfinities) {
  std::mt19937_64 rng(1616);
  const DataType types[] = {DataType::kFloat, DataType::kFloat16, DataType::kDouble,
                            DataType::kInt32, DataType::kInt8};
  const Shape shapes[] = {{3, 99, 1}, {2, 33, 1}, {1, 64, 1}, {5, 31, 1}, {1, 7, 150},
                          {2, 40, 65}, {3, 5, 1},  {1, 1, 70}, {1, 48, 3}};
  int checked = 0;
  for (DataType type : types) {
    const bool floating = testing::IsFloatType(type);
    for (const Shape& shape : shapes) {
      for (int variant = 0; variant < 3; ++variant) {
        // Few values (ties) or many; in float types NaN and the infinities at spread positions.
        Tensor x = RandomTensor(rng, type, shape, -3, variant == 0 ? 3 : 100);
        if (floating && variant > 0) {
          const int64_t n = x.element_count();
          const double inf = std::numeric_limits<double>::infinity();
          SetValue(&x, (n * 2) / 3, variant == 1 ? std::nan("") : inf, 0);
          SetValue(&x, n / 5, -inf, 0);
          SetValue(&x, n - 1, std::nan(""), 0);
          SetValue(&x, n / 2, variant == 2 ? std::nan("") : inf, 0);
        }
        for (bool is_max : {true, false}) {
          for (bool last : {false, true}) {
            ArgReduceAttrs attrs;
            attrs.axis = 1;
            attrs.keepdims = false;
            attrs.select_last_index = last;
            Tensor out;
            ASSERT_TRUE((is_max ? ArgMax(x, attrs, &out) : ArgMin(x, attrs, &out)).ok());
            EXPECT_EQ(Values<int64_t>(out), ReferenceIndices(x, is_max, last))
                << (is_max ? "ArgMax " : "ArgMin ") << DataTypeName(type) << " "
                << ShapeToString(shape) << " variant " << variant << (last ? " last" : "");
            ++checked;
          }
        }
        if (!floating) continue;
        // Hardmax over the middle axis: one 1 at the first maximum of each column.
        Tensor hard;
        ASSERT_TRUE(Softmax(SoftmaxKind::kHardmax, x, 1, SoftmaxAxisMode::kSingleAxis, &hard).ok());
        const std::vector<int64_t> arg = ReferenceIndices(x, true, false);
        const int64_t axis_dim = shape[1];
        const int64_t inner = shape[2];
        // And in place (input and output one buffer).
        Tensor in_place = x.Clone().value();
        const Result<SoftmaxPlan> plan = PrepareSoftmax(SoftmaxKind::kHardmax, type, shape, 1,
                                                        SoftmaxAxisMode::kSingleAxis);
        ASSERT_TRUE(plan.ok());
        RunSoftmax(*plan, in_place.raw_data(), in_place.mutable_raw_data());
        for (int64_t i = 0; i < hard.element_count(); ++i) {
          const int64_t o = i / (axis_dim * inner);
          const int64_t d = i / inner % axis_dim;
          const int64_t j = i % inner;
          const double want = arg[static_cast<size_t>(o * inner + j)] == d ? 1 : 0;
          ASSERT_EQ(GetDouble(hard, i), want) << "Hardmax " << DataTypeName(type) << " "
                                              << ShapeToString(shape) << " i=" << i;
          ASSERT_EQ(GetDouble(in_place, i), want) << "Hardmax in place " << DataTypeName(type)
                                                  << " " << ShapeToString(shape) << " i=" << i;
        }
      }
    }
  }
  EXPECT_EQ(checked, 5 * 9 * 3 * 4);
}

// The row walk directly, on lengths around its 16 lanes and its 2·16 threshold.
TEST(ArgBest, RowOfEveryLengthUpTo80) {
  std::mt19937 rng(80);
  std::uniform_int_distribution<int> value(0, 4);
  for (int64_t n = 1; n <= 80; ++n) {
    std::vector<float> x(static_cast<size_t>(n));
    for (float& v : x) v = static_cast<float>(value(rng));
    std::vector<double> as_double(x.begin(), x.end());
    for (bool last : {false, true}) {
      EXPECT_EQ(ArgBestRow<true>(x.data(), n, last), Reference(as_double, true, last))
          << "n=" << n << (last ? " last" : "");
      EXPECT_EQ(ArgBestRow<false>(x.data(), n, last), Reference(as_double, false, last))
          << "n=" << n << (last ? " last" : "");
    }
  }
}

}  // namespace
}  // namespace nxrt::cpu::math
