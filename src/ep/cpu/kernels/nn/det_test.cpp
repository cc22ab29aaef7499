// ep/cpu/kernels/nn/det_test.cpp: Det run as a one-node model against a reference written in the
// test from the definition (Laplace expansion along the first row), on random batch shapes and
// matrix sizes 0-5 in double, float and float16, and against matrices of known determinant at
// sizes up to 33; fixed seeds.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <type_traits>
#include <vector>

#include "ep/cpu/kernels/tensor/single_op_test_util.h"
#include "ep/cpu/math/testing/nn_test_util.h"

namespace nxrt::cpu::kernels::testing {
namespace {

using nn::testing::AllClose;
using nn::testing::Count;
using nn::testing::RandomInt;
using nn::testing::RandomShape;
using nn::testing::RandomVector;

// det(a) = sum_j (-1)^j a[0][j] det(minor(0, j)); det of the 0 x 0 matrix is 1.
double Laplace(const std::vector<double>& a, int64_t m) {
  if (m == 0) return 1;
  double det = 0;
  for (int64_t j = 0; j < m; ++j) {
    std::vector<double> minor;
    for (int64_t r = 1; r < m; ++r) {
      for (int64_t c = 0; c < m; ++c) {
        if (c != j) minor.push_back(a[r * m + c]);
      }
    }
    det += (j % 2 ? -1.0 : 1.0) * a[j] * Laplace(minor, m - 1);
  }
  return det;
}

template <typename T>
double ToDouble(T v) {
  if constexpr (std::is_same_v<T, Float16>) {
    return static_cast<float>(v);
  } else {
    return static_cast<double>(v);
  }
}

template <typename T>
void RunRandomCases(uint32_t seed, double rtol, double atol) {
  std::mt19937 rng(seed);
  for (int iter = 0; iter < 30; ++iter) {
    Shape shape = RandomShape(rng, RandomInt(rng, 0, 2), 1, 3);
    const int64_t m = RandomInt(rng, 0, 5);
    shape.push_back(m);
    shape.push_back(m);
    const std::vector<double> x = RandomVector<double>(rng, Count(shape), -2, 2);
    std::vector<T> stored;
    for (double v : x) stored.push_back(static_cast<T>(static_cast<float>(v)));
    std::vector<double> expected;
    const int64_t batch = Count(Shape(shape.begin(), shape.end() - 2));
    for (int64_t b = 0; b < batch; ++b) {
      std::vector<double> a;
      for (int64_t k = 0; k < m * m; ++k) a.push_back(ToDouble(stored[b * m * m + k]));
      expected.push_back(Laplace(a, m));
    }
    OpCase op{"Det", 11, {In(Tensor::FromVector<T>(shape, stored).value())}};
    NXRT_ASSERT_OK_AND_ASSIGN(std::vector<Tensor> y, RunOp(op));
    EXPECT_EQ(y[0].shape(), Shape(shape.begin(), shape.end() - 2));
    std::vector<double> got;
    for (T v : Values<T>(y[0])) got.push_back(ToDouble(v));
    EXPECT_TRUE(AllClose(got, expected, rtol, atol)) << "iter " << iter;
  }
}

TEST(DetKernel, RandomBatchesDoubleMatchReference) { RunRandomCases<double>(1101, 1e-10, 1e-10); }
TEST(DetKernel, RandomBatchesFloatMatchReference) { RunRandomCases<float>(1102, 1e-5, 1e-5); }
TEST(DetKernel, RandomBatchesFloat16MatchReference) { RunRandomCases<Float16>(1103, 2e-3, 2e-3); }

// Larger odd sizes (the elimination's panels of 8 columns, full and partial, and its vectorised
// row updates with their tails; batches split over 2 threads): A = P·L·U
// with L unit lower-triangular, U upper-triangular and P a row permutation, so det A is the
// product of U's diagonal times the permutation's sign; in double, at 1 and 2 threads.
TEST(DetKernel, LargeOddMatricesOfKnownDeterminantAtOneAndTwoThreads) {
  std::mt19937 rng(1616);
  const int64_t batch = 6;
  for (int64_t m : {7, 13, 21, 33}) {
    std::vector<double> x;
    std::vector<double> expected;
    for (int64_t b = 0; b < batch; ++b) {
      std::vector<double> l = RandomVector<double>(rng, m * m, -1, 1);
      std::vector<double> u = RandomVector<double>(rng, m * m, -1, 1);
      double det = 1;
      for (int64_t i = 0; i < m; ++i) {
        for (int64_t j = 0; j < m; ++j) {
          if (j > i) l[i * m + j] = 0;
          if (j < i) u[i * m + j] = 0;
        }
        l[i * m + i] = 1;
        const double magnitude = 0.7 + 0.6 * RandomVector<double>(rng, 1, 0, 1)[0];
        u[i * m + i] = (RandomInt(rng, 0, 1) ? 1.0 : -1.0) * magnitude;
        det *= u[i * m + i];
      }
      std::vector<int64_t> perm(static_cast<size_t>(m));
      for (int64_t i = 0; i < m; ++i) perm[static_cast<size_t>(i)] = i;
      std::shuffle(perm.begin(), perm.end(), rng);
      // The sign of the permutation: (-1)^(m - number of cycles).
      std::vector<bool> seen(static_cast<size_t>(m), false);
      int64_t cycles = 0;
      for (int64_t i = 0; i < m; ++i) {
        if (seen[static_cast<size_t>(i)]) continue;
        ++cycles;
        for (int64_t j = i; !seen[static_cast<size_t>(j)]; j = perm[static_cast<size_t>(j)]) {
          seen[static_cast<size_t>(j)] = true;
        }
      }
      if ((m - cycles) % 2 != 0) det = -det;
      for (int64_t i = 0; i < m; ++i) {
        const int64_t row = perm[static_cast<size_t>(i)];
        for (int64_t j = 0; j < m; ++j) {
          double v = 0;
          for (int64_t k = 0; k < m; ++k) v += l[row * m + k] * u[k * m + j];
          x.push_back(v);
        }
      }
      expected.push_back(det);
    }
    for (int threads : {1, 2}) {
      SessionOptions options;
      options.intra_op_threads = threads;
      OpCase op{"Det", 11, {In(Tensor::FromVector<double>({batch, m, m}, x).value())}};
      NXRT_ASSERT_OK_AND_ASSIGN(std::vector<Tensor> y, RunOp(op, options));
      EXPECT_TRUE(AllClose(Values<double>(y[0]), expected, 1e-9, 1e-12))
          << "m " << m << " at " << threads << " thread(s)";
    }
  }
}

TEST(DetKernel, SingularMatrixIsZeroAndNonSquareIsRejected) {
  OpCase singular{"Det", 11,
                  {In(Tensor::FromVector<double>({3, 3}, {1, 2, 3, 2, 4, 6, 0, 1, 5}).value())}};
  NXRT_ASSERT_OK_AND_ASSIGN(std::vector<Tensor> y, RunOp(singular));
  EXPECT_EQ(Values<double>(y[0]), std::vector<double>{0});
  OpCase wide{"Det", 11, {In(Tensor::FromVector<float>({2, 3}, {1, 2, 3, 4, 5, 6}).value())}};
  EXPECT_FALSE(RunOp(wide).ok());
}

}  // namespace
}  // namespace nxrt::cpu::kernels::testing
