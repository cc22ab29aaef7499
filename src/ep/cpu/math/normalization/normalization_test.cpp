// ep/cpu/math/normalization/normalization_test.cpp: the normalisation ops against naive double
// references on random shapes (fixed seeds), plus spec formulas on small hand-checked inputs and
// the errors.
#include "ep/cpu/math/normalization/normalization.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cmath>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "ep/cpu/math/testing/test_util.h"

namespace nxrt::cpu::math {
namespace {

using testing::ExpectClose;
using testing::GetDouble;
using testing::Make;
using testing::RandomShape;
using testing::RandomTensor;
using testing::RoundTo;
using testing::Unravel;
using testing::Values;

const DataType kFloatTypes[] = {DataType::kFloat, DataType::kDouble, DataType::kFloat16,
                                DataType::kBFloat16};

// Mean and biased variance of `values`.
std::pair<double, double> Stats(const std::vector<double>& values) {
  double sum = 0;
  for (double v : values) sum += v;
  const double mean = sum / static_cast<double>(values.size());
  double sq = 0;
  for (double v : values) sq += (v - mean) * (v - mean);
  return {mean, sq / static_cast<double>(values.size())};
}

TEST(LayerNorm, RandomShapesAgainstReference) {
  std::mt19937_64 rng(17);
  for (DataType type : kFloatTypes) {
    for (int iter = 0; iter < 20; ++iter) {
      const Shape shape = RandomShape(rng, 1, 4, 1, 6);
      const auto rank = static_cast<int64_t>(shape.size());
      LayerNormAttrs attrs;
      attrs.axis = std::uniform_int_distribution<int64_t>(-rank, rank - 1)(rng);
      attrs.epsilon = 1e-3f;
      const auto a = static_cast<size_t>(attrs.axis < 0 ? attrs.axis + rank : attrs.axis);
      const Shape norm_shape(shape.begin() + static_cast<std::ptrdiff_t>(a), shape.end());
      const Tensor x = RandomTensor(rng, type, shape, -5, 5);
      const Tensor scale = RandomTensor(rng, type, norm_shape, -2, 2);
      const Tensor bias = RandomTensor(rng, type, norm_shape, -2, 2);
      const bool with_bias = iter % 2 == 0;
      Tensor y, mean, inv_std;
      const Status s = LayerNorm(x, scale, with_bias ? &bias : nullptr, attrs, &y, &mean, &inv_std);
      ASSERT_TRUE(s.ok()) << s.ToString();
      const int64_t cols = Product(norm_shape);
      const int64_t rows = x.element_count() / cols;
      Shape stats_shape = shape;
      for (size_t i = a; i < stats_shape.size(); ++i) stats_shape[i] = 1;
      ASSERT_EQ(mean.shape(), stats_shape);
      ASSERT_EQ(mean.dtype(), DataType::kFloat);
      for (int64_t r = 0; r < rows; ++r) {
        std::vector<double> row;
        for (int64_t k = 0; k < cols; ++k) row.push_back(GetDouble(x, r * cols + k));
        const auto [mu, var] = Stats(row);
        const double inv = 1 / std::sqrt(var + static_cast<double>(attrs.epsilon));
        ExpectClose(DataType::kFloat, RoundTo(DataType::kFloat, mu), GetDouble(mean, r), "mean");
        ExpectClose(DataType::kFloat, RoundTo(DataType::kFloat, inv), GetDouble(inv_std, r),
                    "inv_std");
        for (int64_t k = 0; k < cols; ++k) {
          const double expected = (row[static_cast<size_t>(k)] - mu) * inv * GetDouble(scale, k) +
                                  (with_bias ? GetDouble(bias, k) : 0);
          // The affine step runs in the compute type: allow its rounding on top of the output's.
          ExpectClose(type, RoundTo(type, expected), GetDouble(y, r * cols + k),
                      "LayerNorm " + ShapeToString(shape));
        }
      }
    }
  }
}

// The float path sums in float with partial sums: rows as wide as transformers' (hidden 768, and
// 1001 for a tail after the 8-wide blocks), offset from zero, stay within float rounding of the
// double reference (the error of a float mean of values near `offset`, relative to the spread).
TEST(LayerNorm, FloatWideRowsAgainstReference) {
  std::mt19937_64 rng(23);
  for (int64_t cols : {768, 1001}) {
    for (double offset : {0.0, 10.0}) {
      const Tensor x = RandomTensor(rng, DataType::kFloat, {4, cols}, offset - 1, offset + 1);
      const Tensor scale = RandomTensor(rng, DataType::kFloat, {cols}, -2, 2);
      const Tensor bias = RandomTensor(rng, DataType::kFloat, {cols}, -2, 2);
      LayerNormAttrs attrs;
      Tensor y, mean, inv_std;
      ASSERT_TRUE(LayerNorm(x, scale, &bias, attrs, &y, &mean, &inv_std).ok());
      double worst = 0;
      for (int64_t r = 0; r < 4; ++r) {
        std::vector<double> row;
        for (int64_t k = 0; k < cols; ++k) row.push_back(GetDouble(x, r * cols + k));
        const auto [mu, var] = Stats(row);
        const double inv = 1 / std::sqrt(var + static_cast<double>(attrs.epsilon));
        EXPECT_NEAR(GetDouble(mean, r), mu, 1e-6 * std::max(1.0, offset));
        EXPECT_NEAR(GetDouble(inv_std, r), inv, 1e-5 * inv);
        for (int64_t k = 0; k < cols; ++k) {
          const double expected = (row[static_cast<size_t>(k)] - mu) * inv * GetDouble(scale, k) +
                                  GetDouble(bias, k);
          worst = std::max(worst, std::fabs(GetDouble(y, r * cols + k) - expected));
        }
      }
      EXPECT_LT(worst, 2e-6 * std::max(1.0, offset)) << cols << " columns, offset " << offset;
    }
  }
}

TEST(LayerNorm, HandCheckedRow) {
  // Row [1, 2, 3, 4]: mean 2.5, var 1.25; epsilon 0 gives (x - 2.5) / sqrt(1.25).
  LayerNormAttrs attrs;
  attrs.epsilon = 0;
  Tensor y;
  ASSERT_TRUE(LayerNorm(Make<float>({1, 4}, {1, 2, 3, 4}), Make<float>({4}, {1, 1, 1, 1}), nullptr,
                        attrs, &y, nullptr, nullptr).ok());
  const double s = std::sqrt(1.25);
  const std::vector<float> expected = {static_cast<float>(-1.5 / s), static_cast<float>(-0.5 / s),
                                       static_cast<float>(0.5 / s), static_cast<float>(1.5 / s)};
  for (int i = 0; i < 4; ++i) EXPECT_NEAR(y.data<float>()[i], expected[i], 1e-6);
}

TEST(LayerNorm, Errors) {
  Tensor y;
  Status s = LayerNorm(Make<float>({2, 3}, std::vector<float>(6)), Make<float>({2}, {1, 1}),
                       nullptr, {}, &y, nullptr, nullptr);
  EXPECT_EQ(s.message(),
            "LayerNormalization: Scale has shape [2] (2 elements), expected 3 elements");
  s = LayerNorm(Make<float>({2, 3}, std::vector<float>(6)), Make<double>({3}, {1, 1, 1}), nullptr,
                {}, &y, nullptr, nullptr);
  EXPECT_EQ(s.message(), "LayerNormalization: Scale and B must have X's type float, got double");
}

TEST(BatchNorm, RandomAgainstReferenceWithMixedParamTypes) {
  std::mt19937_64 rng(23);
  for (DataType type : kFloatTypes) {
    for (DataType param_type : {type, DataType::kFloat}) {
      const Shape shape = RandomShape(rng, 2, 4, 1, 5);
      const int64_t c = shape[1];
      const Tensor x = RandomTensor(rng, type, shape, -3, 3);
      const Tensor scale = RandomTensor(rng, param_type, {c}, 0.5, 2);
      const Tensor bias = RandomTensor(rng, param_type, {c}, -1, 1);
      const Tensor mean = RandomTensor(rng, param_type, {c}, -1, 1);
      const Tensor var = RandomTensor(rng, param_type, {c}, 0.5, 2);
      Tensor y;
      ASSERT_TRUE(BatchNorm(x, scale, bias, mean, var, 1e-5f, &y).ok());
      for (int64_t i = 0; i < x.element_count(); ++i) {
        const int64_t ch = Unravel(shape, i)[1];
        const double expected = (GetDouble(x, i) - GetDouble(mean, ch)) /
                                    std::sqrt(GetDouble(var, ch) + static_cast<double>(1e-5f)) *
                                    GetDouble(scale, ch) +
                                GetDouble(bias, ch);
        ExpectClose(type, RoundTo(type, expected), GetDouble(y, i), "BatchNorm");
      }
    }
  }
}

TEST(BatchNorm, SpecExample) {
  // ONNX BatchNormalization example: x [[[[-1, 0, 1]], [[2, 3, 4]]]], s = [1, 1.5],
  // bias = [0, 1], mean = [0, 3], var = [1, 1.5], epsilon 1e-5.
  Tensor y;
  ASSERT_TRUE(BatchNorm(Make<float>({1, 2, 1, 3}, {-1, 0, 1, 2, 3, 4}), Make<float>({2}, {1, 1.5f}),
                        Make<float>({2}, {0, 1}), Make<float>({2}, {0, 3}),
                        Make<float>({2}, {1, 1.5f}), 1e-5f, &y).ok());
  const std::vector<float> expected = {-0.999995f, 0.0f, 0.999995f, -0.22474074f, 1.0f,
                                       2.2247407f};
  for (int i = 0; i < 6; ++i) EXPECT_NEAR(y.data<float>()[i], expected[i], 1e-5);
}

// Reference for Group/InstanceNorm: statistics over (n, group) blocks.
void CheckGroupNorm(const Tensor& x, const Tensor& scale, const Tensor& bias, int64_t groups,
                    float epsilon, const Tensor& y, bool per_channel) {
  const Shape& shape = x.shape();
  const int64_t n = shape[0], c = shape[1];
  const int64_t block = x.element_count() / n / groups;
  for (int64_t b = 0; b < n * groups; ++b) {
    std::vector<double> values;
    for (int64_t k = 0; k < block; ++k) values.push_back(GetDouble(x, b * block + k));
    const auto [mu, var] = Stats(values);
    for (int64_t k = 0; k < block; ++k) {
      const int64_t channel = (b % groups) * (c / groups) + k / (block / (c / groups));
      const int64_t p = per_channel ? channel : b % groups;
      const double expected =
          (values[static_cast<size_t>(k)] - mu) / std::sqrt(var + epsilon) * GetDouble(scale, p) +
          GetDouble(bias, p);
      ExpectClose(x.dtype(), RoundTo(x.dtype(), expected), GetDouble(y, b * block + k),
                  "GroupNorm " + ShapeToString(shape));
    }
  }
}

TEST(GroupNorm, PerGroupAndPerChannelParams) {
  std::mt19937_64 rng(29);
  for (DataType type : kFloatTypes) {
    for (int iter = 0; iter < 6; ++iter) {
      const int64_t groups = std::uniform_int_distribution<int64_t>(1, 3)(rng);
      const int64_t c = groups * std::uniform_int_distribution<int64_t>(1, 3)(rng);
      const Shape shape = {2, c, 3, std::uniform_int_distribution<int64_t>(1, 4)(rng)};
      const bool per_channel = iter % 2 == 0;
      const int64_t params = per_channel ? c : groups;
      const Tensor x = RandomTensor(rng, type, shape, -3, 3);
      const Tensor scale = RandomTensor(rng, type, {params}, -2, 2);
      const Tensor bias = RandomTensor(rng, type, {params}, -2, 2);
      Tensor y;
      ASSERT_TRUE(GroupNorm(x, scale, bias, groups, 1e-4f, &y).ok());
      CheckGroupNorm(x, scale, bias, groups, 1e-4f, y, per_channel || params == c);
    }
  }
}

TEST(InstanceNorm, RandomAgainstReference) {
  std::mt19937_64 rng(31);
  for (DataType type : kFloatTypes) {
    const Shape shape = {2, 3, 4, 5};
    const Tensor x = RandomTensor(rng, type, shape, -3, 3);
    const Tensor scale = RandomTensor(rng, type, {3}, -2, 2);
    const Tensor bias = RandomTensor(rng, type, {3}, -2, 2);
    Tensor y;
    ASSERT_TRUE(InstanceNorm(x, scale, bias, 1e-5f, &y).ok());
    CheckGroupNorm(x, scale, bias, 3, 1e-5f, y, true);
  }
}

// The float path (8 partial sums, normalization.cpp: SumFloat): group sizes around and past the
// 8-element blocks, an offset that a float sum must not lose, and rows (n, group) holding NaN
// or an infinity, which make the whole group NaN, as the double reference does. The rows are
// also run in two halves, as the kernel splits them over threads.
TEST(GroupNorm, FloatGroupsOfOddSizesWithOffsetNanAndInf) {
  std::mt19937_64 rng(37);
  for (int64_t spatial : {1, 7, 8, 9, 63, 1001}) {
    for (double offset : {0.0, 10.0}) {
      const int64_t groups = 2;
      const int64_t c = 4;
      const Shape shape = {3, c, spatial};
      Tensor x = RandomTensor(rng, DataType::kFloat, shape, offset - 1, offset + 1);
      const int64_t block = c / groups * spatial;
      float* xv = x.mutable_data<float>();
      xv[1 * block + block / 2] = NAN;
      xv[3 * block + block - 1] = INFINITY;
      xv[4 * block] = -INFINITY;
      const Tensor scale = RandomTensor(rng, DataType::kFloat, {c}, -2, 2);
      const Tensor bias = RandomTensor(rng, DataType::kFloat, {c}, -2, 2);
      Tensor y;
      ASSERT_TRUE(GroupNorm(x, scale, bias, groups, 1e-5f, &y).ok());
      Tensor halves = Tensor::Allocate(DataType::kFloat, shape).value();
      auto plan = PrepareGroupNorm(DataType::kFloat, shape, groups, {c}, {c}, 1e-5f);
      ASSERT_TRUE(plan.ok());
      RunGroupNorm(*plan, x.raw_data(), scale.raw_data(), bias.raw_data(),
                   halves.mutable_raw_data(), 0, 2);
      RunGroupNorm(*plan, x.raw_data(), scale.raw_data(), bias.raw_data(),
                   halves.mutable_raw_data(), 2, 3 * groups);
      for (int64_t r = 0; r < 3 * groups; ++r) {
        std::vector<double> row;
        for (int64_t k = 0; k < block; ++k) row.push_back(GetDouble(x, r * block + k));
        const auto [mu, var] = Stats(row);
        const double inv = 1 / std::sqrt(var + 1e-5);
        for (int64_t k = 0; k < block; ++k) {
          const int64_t channel = (r % groups) * (c / groups) + k / spatial;
          const double expected =
              (row[static_cast<size_t>(k)] - mu) * inv * GetDouble(scale, channel) +
              GetDouble(bias, channel);
          const double got = GetDouble(y, r * block + k);
          const std::string where = "spatial " + std::to_string(spatial) + " offset " +
                                    std::to_string(offset) + " row " + std::to_string(r);
          ASSERT_EQ(std::bit_cast<uint32_t>(y.data<float>()[r * block + k]),
                    std::bit_cast<uint32_t>(halves.data<float>()[r * block + k]))
              << where;
          if (std::isnan(expected)) {
            ASSERT_TRUE(std::isnan(got)) << where;
          } else {
            ASSERT_NEAR(got, expected, 4e-6 * std::max(1.0, offset)) << where;
          }
        }
      }
    }
  }
}

TEST(GroupNorm, Errors) {
  Tensor y;
  const Tensor x = Make<float>({1, 4, 2}, std::vector<float>(8));
  Status s = GroupNorm(x, Make<float>({4}, std::vector<float>(4)),
                       Make<float>({4}, std::vector<float>(4)), 3, 1e-5f, &y);
  EXPECT_EQ(s.message(),
            "GroupNormalization: num_groups 3 does not divide the 4 channels of input shape "
            "[1,4,2]");
  s = GroupNorm(x, Make<float>({3}, std::vector<float>(3)),
                Make<float>({3}, std::vector<float>(3)), 2, 1e-5f, &y);
  EXPECT_EQ(s.message(),
            "GroupNormalization: scale has shape [3], expected 4 (channels) or 2 (groups) "
            "elements");
}

TEST(LpNorm, RandomAgainstReferenceAndZeroNorm) {
  std::mt19937_64 rng(37);
  for (DataType type : kFloatTypes) {
    for (int iter = 0; iter < 10; ++iter) {
      const Shape shape = RandomShape(rng, 1, 4, 1, 5);
      const auto rank = static_cast<int64_t>(shape.size());
      const int64_t axis = std::uniform_int_distribution<int64_t>(-rank, rank - 1)(rng);
      const int64_t p = iter % 2 + 1;
      const Tensor x = RandomTensor(rng, type, shape, -3, 3);
      Tensor y;
      ASSERT_TRUE(LpNorm(x, axis, p, &y).ok());
      const auto a = static_cast<size_t>(axis < 0 ? axis + rank : axis);
      for (int64_t i = 0; i < x.element_count(); ++i) {
        auto index = Unravel(shape, i);
        double norm = 0;
        for (int64_t k = 0; k < shape[a]; ++k) {
          index[a] = k;
          int64_t linear = 0;
          for (size_t d = 0; d < shape.size(); ++d) linear = linear * shape[d] + index[d];
          const double v = GetDouble(x, linear);
          norm += p == 1 ? std::fabs(v) : v * v;
        }
        if (p == 2) norm = std::sqrt(norm);
        ExpectClose(type, RoundTo(type, norm == 0 ? 0 : GetDouble(x, i) / norm), GetDouble(y, i),
                    "LpNorm");
      }
    }
  }
  Tensor y;
  ASSERT_TRUE(LpNorm(Make<float>({2, 2}, {0, 0, 3, 4}), -1, 2, &y).ok());
  EXPECT_EQ(Values<float>(y), (std::vector<float>{0, 0, 0.6f, 0.8f}));
  EXPECT_EQ(LpNorm(Make<float>({2}, {1, 1}), 0, 3, &y).message(),
            "LpNormalization: p is 3, expected 1 or 2");
}

// y against (x - mean) / (std + 1e-9) of each element's group, in double.
void ExpectMvnMatchesReference(const Tensor& x, const std::vector<int64_t>& axes) {
  const Shape& shape = x.shape();
  const DataType type = x.dtype();
  std::vector<bool> mask(shape.size(), false);
  for (int64_t a : axes) mask[static_cast<size_t>(a)] = true;
  Tensor y;
  ASSERT_TRUE(Mvn(x, axes, &y).ok());
  for (int64_t i = 0; i < x.element_count(); ++i) {
    const auto index = Unravel(shape, i);
    std::vector<double> group;
    for (int64_t j = 0; j < x.element_count(); ++j) {
      const auto other = Unravel(shape, j);
      bool same = true;
      for (size_t d = 0; d < shape.size(); ++d) same = same && (mask[d] || other[d] == index[d]);
      if (same) group.push_back(GetDouble(x, j));
    }
    const auto [mu, var] = Stats(group);
    ExpectClose(type, RoundTo(type, (GetDouble(x, i) - mu) / (std::sqrt(var) + 1e-9)),
                GetDouble(y, i), "Mvn " + ShapeToString(shape) + " i=" + std::to_string(i));
    if (::testing::Test::HasFailure()) return;
  }
}

TEST(Mvn, RandomAxesAgainstReference) {
  std::mt19937_64 rng(41);
  for (DataType type : kFloatTypes) {
    for (int iter = 0; iter < 10; ++iter) {
      const Shape shape = RandomShape(rng, 1, 4, 1, 4);
      std::vector<int64_t> axes;
      for (size_t d = 0; d < shape.size(); ++d) {
        if (std::uniform_int_distribution<int>(0, 1)(rng) == 1) axes.push_back(static_cast<int64_t>(d));
      }
      // The ONNX default axes for NCHW inputs.
      if (iter == 0 && shape.size() == 4) axes = {0, 2, 3};
      ExpectMvnMatchesReference(RandomTensor(rng, type, shape, -3, 3), axes);
    }
  }
}

// The float path over contiguous runs (the innermost axis reduced): odd run lengths around the
// 8 partial sums, several runs per group, and a group holding NaN and one holding an infinity
// (both all NaN, as in the double formula).
TEST(Mvn, FloatRunsWithTailsAndSpecialValues) {
  std::mt19937_64 rng(4242);
  const std::vector<std::pair<Shape, std::vector<int64_t>>> cases = {
      {{2, 3, 5, 13}, {0, 2, 3}}, {{1, 3, 17, 9}, {3}},  {{3, 4, 7}, {0, 2}},
      {{2, 5, 33}, {1, 2}},       {{1, 2, 1, 71}, {0, 2, 3}}, {{4, 3, 3, 3}, {0, 2, 3}}};
  for (const auto& [shape, axes] : cases) {
    Tensor x = RandomTensor(rng, DataType::kFloat, shape, -3, 3);
    ExpectMvnMatchesReference(x, axes);
    testing::SetValue(&x, 1, std::numeric_limits<double>::quiet_NaN(), 0);
    testing::SetValue(&x, x.element_count() - 2, std::numeric_limits<double>::infinity(), 0);
    ExpectMvnMatchesReference(x, axes);
  }
}

}  // namespace
}  // namespace nxrt::cpu::math
