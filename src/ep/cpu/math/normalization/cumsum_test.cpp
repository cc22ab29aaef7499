// ep/cpu/math/normalization/cumsum_test.cpp: CumSum against a naive reference on random shapes,
// axes and flags for every numeric type, plus the ONNX examples.
#include "ep/cpu/math/normalization/cumsum.h"

#include <gtest/gtest.h>

#include <cmath>

#include "ep/cpu/math/testing/test_util.h"

namespace nxrt::cpu::math {
namespace {

using testing::AllNumericTypes;
using testing::GetDouble;
using testing::GetInt;
using testing::Int128;
using testing::IsFloatType;
using testing::IsSignedType;
using testing::Make;
using testing::RandomShape;
using testing::RandomTensor;
using testing::Unravel;
using testing::Values;
using testing::WrapTo;

TEST(CumSum, SpecExamples) {
  const Tensor x = Make<double>({5}, {1, 2, 3, 4, 5});
  const auto run = [&](const Tensor& in, int64_t axis, bool exclusive, bool reverse) {
    Tensor out;
    EXPECT_TRUE(CumSum(in, axis, {exclusive, reverse}, &out).ok());
    return Values<double>(out);
  };
  EXPECT_EQ(run(x, 0, false, false), (std::vector<double>{1, 3, 6, 10, 15}));
  EXPECT_EQ(run(x, 0, true, false), (std::vector<double>{0, 1, 3, 6, 10}));
  EXPECT_EQ(run(x, 0, false, true), (std::vector<double>{15, 14, 12, 9, 5}));
  EXPECT_EQ(run(x, 0, true, true), (std::vector<double>{14, 12, 9, 5, 0}));
  const Tensor m = Make<double>({2, 3}, {1, 2, 3, 4, 5, 6});
  EXPECT_EQ(run(m, 0, false, false), (std::vector<double>{1, 2, 3, 5, 7, 9}));
  EXPECT_EQ(run(m, 1, false, false), (std::vector<double>{1, 3, 6, 4, 9, 15}));
  EXPECT_EQ(run(m, -1, false, false), (std::vector<double>{1, 3, 6, 4, 9, 15}));
}

TEST(CumSum, RandomAgainstReferenceAllTypes) {
  std::mt19937_64 rng(43);
  for (DataType type : AllNumericTypes()) {
    for (int iter = 0; iter < 12; ++iter) {
      const Shape shape = RandomShape(rng, 1, 4, 0, 6);
      const auto rank = static_cast<int64_t>(shape.size());
      const int64_t axis = std::uniform_int_distribution<int64_t>(-rank, rank - 1)(rng);
      const CumSumAttrs attrs{iter % 2 == 1, iter % 4 >= 2};
      const Tensor x = RandomTensor(rng, type, shape, IsSignedType(type) ? -50 : 0, 50);
      Tensor y;
      ASSERT_TRUE(CumSum(x, axis, attrs, &y).ok());
      const auto a = static_cast<size_t>(axis < 0 ? axis + rank : axis);
      for (int64_t i = 0; i < x.element_count(); ++i) {
        const auto index = Unravel(shape, i);
        double sum = 0;
        double magnitude = 0;
        Int128 isum = 0;
        for (int64_t k = 0; k < shape[a]; ++k) {
          const bool take = attrs.reverse ? (attrs.exclusive ? k > index[a] : k >= index[a])
                                          : (attrs.exclusive ? k < index[a] : k <= index[a]);
          if (!take) continue;
          auto source = index;
          source[a] = k;
          int64_t linear = 0;
          for (size_t d = 0; d < shape.size(); ++d) linear = linear * shape[d] + source[d];
          if (IsFloatType(type)) {
            sum += GetDouble(x, linear);
            magnitude += std::fabs(GetDouble(x, linear));
          } else {
            isum += GetInt(x, linear);
          }
        }
        if (IsFloatType(type)) {
          // Running sums round at every step: the error scales with the summed magnitudes.
          EXPECT_NEAR(sum, GetDouble(y, i), testing::Tolerance(type) * (magnitude + 1))
              << "CumSum " << ShapeToString(shape);
        } else {
          ASSERT_TRUE(WrapTo(type, isum) == GetInt(y, i)) << DataTypeName(type);
        }
      }
    }
  }
}

TEST(CumSum, RejectsScalarInput) {
  Tensor y;
  EXPECT_EQ(CumSum(Make<float>({}, {1}), 0, {}, &y).message(),
            "CumSum: axis 0 is out of range: the input is a scalar (rank 0) and has no axes");
}

}  // namespace
}  // namespace nxrt::cpu::math
