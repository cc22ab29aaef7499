// ep/cpu/math/normalization/softmax_test.cpp: Softmax/LogSoftmax/Hardmax in both axis modes against
// a naive double reference on random shapes, plus the ONNX examples and the opset 11/13 edge case.
#include "ep/cpu/math/normalization/softmax.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <utility>
#include <vector>

#include "ep/cpu/math/shape_util.h"
#include "ep/cpu/math/testing/test_util.h"

namespace nxrt::cpu::math {
namespace {

using testing::ExpectClose;
using testing::GetDouble;
using testing::Make;
using testing::RandomShape;
using testing::RandomTensor;
using testing::RoundTo;
using testing::Values;

std::vector<double> Compute(SoftmaxKind kind, const Tensor& in, int64_t axis, int64_t opset) {
  Tensor out;
  const Status s = Softmax(kind, in, axis, SoftmaxAxisModeForOpset(opset), &out);
  EXPECT_TRUE(s.ok()) << s.ToString();
  std::vector<double> v;
  for (int64_t i = 0; i < out.element_count(); ++i) v.push_back(GetDouble(out, i));
  return v;
}

void ExpectValues(const std::vector<double>& actual, const std::vector<double>& expected,
                  double tol) {
  ASSERT_EQ(actual.size(), expected.size());
  for (size_t i = 0; i < actual.size(); ++i) EXPECT_NEAR(actual[i], expected[i], tol) << i;
}

TEST(Softmax, Opset11FlattensTrailingBlockOpset13UsesOneAxis) {
  const Tensor x = Make<float>({1, 2, 2}, {0, 1, 2, 3});
  ExpectValues(Compute(SoftmaxKind::kSoftmax, x, 1, 11), {0.032059, 0.087144, 0.236883, 0.643914},
               1e-6);
  ExpectValues(Compute(SoftmaxKind::kSoftmax, x, 1, 13), {0.119203, 0.119203, 0.880797, 0.880797},
               1e-6);
  ExpectValues(Compute(SoftmaxKind::kLogSoftmax, x, 1, 11),
               {std::log(0.0320586), std::log(0.0871443), std::log(0.2368828),
                std::log(0.6439142)},
               1e-5);
  ExpectValues(Compute(SoftmaxKind::kLogSoftmax, x, 1, 13),
               {std::log(0.1192029), std::log(0.1192029), std::log(0.8807971),
                std::log(0.8807971)},
               1e-5);
  ExpectValues(Compute(SoftmaxKind::kHardmax, x, 1, 11), {0, 0, 0, 1}, 0);
  ExpectValues(Compute(SoftmaxKind::kHardmax, x, 1, 13), {0, 0, 1, 1}, 0);
}

TEST(Softmax, SpecExamples) {
  // ONNX Softmax/LogSoftmax example: [[-1, 0, 1]].
  const Tensor x = Make<float>({1, 3}, {-1, 0, 1});
  ExpectValues(Compute(SoftmaxKind::kSoftmax, x, -1, 13), {0.09003058, 0.24472848, 0.66524094}, 1e-7);
  ExpectValues(Compute(SoftmaxKind::kLogSoftmax, x, -1, 13), {-2.4076061, -1.4076061, -0.40760612},
               1e-6);
  // Hardmax example with ties: the first maximum wins.
  const Tensor h = Make<float>({4, 4}, {3, 0, 1, 2, 2, 5, 1, 0, 0, 1, 3, 2, 0, 1, 2, 3});
  ExpectValues(Compute(SoftmaxKind::kHardmax, h, -1, 13),
               {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}, 0);
  const Tensor ties = Make<float>({1, 4}, {2, 2, 2, 1});
  ExpectValues(Compute(SoftmaxKind::kHardmax, ties, -1, 13), {1, 0, 0, 0}, 0);
}

TEST(Softmax, StableForLargeInputsAndNanRows) {
  const Tensor x = Make<float>({2, 2}, {1000, 1001, NAN, 1});
  const auto y = Compute(SoftmaxKind::kSoftmax, x, 1, 13);
  EXPECT_NEAR(y[0], 0.268941, 1e-6);
  EXPECT_NEAR(y[1], 0.731059, 1e-6);
  EXPECT_TRUE(std::isnan(y[2]));
  EXPECT_TRUE(std::isnan(y[3]));
}

// Float rows of every length around the 16-lane blocks of the AVX-512 path (taken on CPUs that
// have it) and rows with -inf, +inf, NaN (in a full block and in the tail) and huge magnitudes,
// against the same op in double: NaN where it gives NaN, else within float rounding.
TEST(Softmax, FloatRowsOfEveryLengthAndSpecialValues) {
  std::mt19937_64 rng(77);
  std::vector<std::vector<float>> rows;
  for (int64_t d : {1, 7, 15, 16, 17, 31, 128, 1000}) {
    std::uniform_real_distribution<float> u(-30.0f, 30.0f);
    for (int r = 0; r < 3; ++r) {
      std::vector<float> row(static_cast<size_t>(d));
      for (float& v : row) v = u(rng);
      rows.push_back(row);
    }
  }
  const float inf = std::numeric_limits<float>::infinity();
  std::vector<float> special(20, 0.5f);
  for (auto [at, value] : std::vector<std::pair<size_t, float>>{
           {3, -inf}, {5, inf}, {2, NAN}, {18, NAN}, {0, 1e30f}, {19, -1e30f}}) {
    std::vector<float> row = special;
    row[at] = value;
    rows.push_back(row);
  }
  rows.push_back(std::vector<float>(20, -inf));
  // Equal large values: LogSoftmax must keep -log(d) (adding log(d) to 1e7 first rounds it).
  rows.push_back(std::vector<float>(1000, 1e7f));
  rows.push_back(std::vector<float>(16, 3.4e38f));
  rows.push_back(std::vector<float>(5, -1e7f));
  rows.push_back({-inf, 1.0f, -inf, 2.0f, -inf, -inf, -inf, -inf, -inf, -inf, -inf, -inf, -inf,
                  -inf, -inf, -inf, -inf, 3.0f});
  for (const std::vector<float>& row : rows) {
    const auto d = static_cast<int64_t>(row.size());
    const Tensor x = Make<float>({1, d}, row);
    std::vector<double> wide(row.begin(), row.end());
    const Tensor xd = Make<double>({1, d}, wide);
    for (SoftmaxKind kind : {SoftmaxKind::kSoftmax, SoftmaxKind::kLogSoftmax}) {
      const std::vector<double> got = Compute(kind, x, -1, 13);
      const std::vector<double> want = Compute(kind, xd, -1, 13);
      for (size_t k = 0; k < got.size(); ++k) {
        SCOPED_TRACE(::testing::Message() << "kind " << static_cast<int>(kind) << " d " << d
                                          << " row[0] " << row[0] << " element " << k);
        if (std::isnan(want[k])) {
          EXPECT_TRUE(std::isnan(got[k])) << got[k];
        } else if (std::isinf(want[k])) {
          EXPECT_EQ(got[k], want[k]);
        } else {
          EXPECT_NEAR(got[k], want[k], 1e-6 + 1e-5 * std::fabs(want[k]));
        }
      }
    }
  }
}

// Naive reference: for every output element, scan the input for elements in the same
// normalisation group (same outer and inner index).
TEST(Softmax, RandomShapesBothModesAllFloatTypes) {
  std::mt19937_64 rng(1313);
  for (DataType type : {DataType::kFloat, DataType::kDouble, DataType::kFloat16,
                        DataType::kBFloat16}) {
    for (int iter = 0; iter < 40; ++iter) {
      const Shape shape = RandomShape(rng, 1, 4, 1, 5);
      const auto rank = static_cast<int64_t>(shape.size());
      const int64_t axis = std::uniform_int_distribution<int64_t>(-rank, rank - 1)(rng);
      const int64_t opset = iter % 2 == 0 ? 11 : 13;
      const auto kind = static_cast<SoftmaxKind>(iter % 3);
      const Tensor in = RandomTensor(rng, type, shape, -4, 4);
      const auto y = Compute(kind, in, axis, opset);
      const auto a = static_cast<size_t>(axis < 0 ? axis + rank : axis);
      const int64_t outer = Product(std::span(shape.data(), a));
      const int64_t inner = opset < 13 ? 1 : Product(std::span(shape.data() + a + 1, shape.size() - a - 1));
      const int64_t d = in.element_count() / outer / inner;
      for (int64_t o = 0; o < outer; ++o) {
        for (int64_t i = 0; i < inner; ++i) {
          std::vector<double> row;
          for (int64_t k = 0; k < d; ++k) row.push_back(GetDouble(in, (o * d + k) * inner + i));
          double m = row[0];
          size_t arg = 0;
          for (size_t k = 0; k < row.size(); ++k) {
            if (row[k] > m) {
              m = row[k];
              arg = k;
            }
          }
          double sum = 0;
          for (double v : row) sum += std::exp(v - m);
          for (int64_t k = 0; k < d; ++k) {
            const double v = row[static_cast<size_t>(k)];
            double expected = kind == SoftmaxKind::kSoftmax      ? std::exp(v - m) / sum
                              : kind == SoftmaxKind::kLogSoftmax ? v - m - std::log(sum)
                                                                 : (static_cast<size_t>(k) == arg);
            const int64_t at = (o * d + k) * inner + i;
            ExpectClose(type, RoundTo(type, expected), y[static_cast<size_t>(at)],
                        ShapeToString(shape) + " axis " + std::to_string(axis) + " opset " +
                            std::to_string(opset));
          }
        }
      }
    }
  }
}

TEST(Softmax, WideInnerBlocksAndInPlace) {
  std::mt19937_64 rng(2);
  Tensor x = RandomTensor(rng, DataType::kFloat, {2, 3, 150}, -3, 3);
  Tensor expected;
  ASSERT_TRUE(Softmax(SoftmaxKind::kSoftmax, x, 1, SoftmaxAxisMode::kSingleAxis, &expected).ok());
  for (int64_t i = 0; i < 150; ++i) {
    double sum = 0;
    for (int64_t k = 0; k < 3; ++k) sum += expected.data<float>()[k * 150 + i];
    EXPECT_NEAR(sum, 1.0, 1e-6);
  }
  auto plan = PrepareSoftmax(SoftmaxKind::kSoftmax, DataType::kFloat, x.shape(), 1,
                             SoftmaxAxisMode::kSingleAxis);
  ASSERT_TRUE(plan.ok());
  RunSoftmax(*plan, x.raw_data(), x.mutable_raw_data());
  EXPECT_EQ(Values<float>(x), Values<float>(expected));
}

TEST(Softmax, Errors) {
  Tensor out;
  Status s = Softmax(SoftmaxKind::kSoftmax, Make<float>({2, 2}, {0, 0, 0, 0}), 2,
                     SoftmaxAxisMode::kSingleAxis, &out);
  EXPECT_EQ(s.message(), "Softmax: axis 2 is out of range for rank 2 (accepted: [-2, 1])");
  s = Softmax(SoftmaxKind::kHardmax, Make<int32_t>({2}, {0, 0}), 0, SoftmaxAxisMode::kSingleAxis,
              &out);
  EXPECT_EQ(s.code(), StatusCode::kUnsupported);
}

}  // namespace
}  // namespace nxrt::cpu::math
