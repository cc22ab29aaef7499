// ep/cpu/math/nn/sgemm_avx2_test.cpp: tests of the AVX2 GEMM (sgemm_avx2.h) on its own: B
// packed into 16-column panels by the test, read as stored or given transposed, random shapes
// with tails in M (the 6-row tile), K (the 256 block) and N (the 16-column panel and 256-column
// block), column ranges in pieces, bias or none, K = 0, and NaN/inf propagation; against a
// double-precision product written here. Runs on any CPU with AVX2 (AVX-512 or not).
#include "ep/cpu/math/nn/sgemm_avx2.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "core/cpu_features.h"
#include "ep/cpu/math/testing/nn_test_util.h"

namespace nxrt::cpu::nn {
namespace {

using testing::AllClose;

// B [k, n] row-major into 16-column panels `stride` floats apart (padding columns 0, the gap
// after each panel filled with NaN so that a read past K shows).
std::vector<float> PackPanels(const std::vector<float>& b, int64_t k, int64_t n, int64_t stride) {
  const int64_t panels = (n + kSgemmPanel - 1) / kSgemmPanel;
  std::vector<float> out(panels * stride, std::numeric_limits<float>::quiet_NaN());
  for (int64_t q = 0; q < panels; ++q) {
    for (int64_t p = 0; p < k; ++p) {
      for (int64_t c = 0; c < kSgemmPanel; ++c) {
        const int64_t j = q * kSgemmPanel + c;
        out[q * stride + p * kSgemmPanel + c] = j < n ? b[p * n + j] : 0.0f;
      }
    }
  }
  return out;
}

// y[m, n] = a[m, k] (row stride lda) @ b[k, n] (+ bias) in double.
std::vector<double> Product(const std::vector<float>& a, int64_t lda, const std::vector<float>& b,
                            const std::vector<float>* bias, int64_t m, int64_t k, int64_t n) {
  std::vector<double> y(m * n);
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      double s = bias != nullptr ? (*bias)[j] : 0.0;
      for (int64_t p = 0; p < k; ++p) s += double{a[i * lda + p]} * b[p * n + j];
      y[i * n + j] = s;
    }
  }
  return y;
}

TEST(SgemmAvx2Test, RandomShapesAgainstDoubleProduct) {
  if (!CpuHasAvx2()) GTEST_SKIP() << "the CPU has no AVX2";
  std::mt19937 rng(61);
  struct Case {
    int64_t m, k, n;
  };
  const Case cases[] = {{1, 1, 1},    {2, 5, 7},     {6, 16, 16},   {7, 17, 33},
                        {13, 255, 300}, {5, 257, 64}, {12, 513, 129}, {37, 300, 520}};
  for (const Case& c : cases) {
    for (bool with_bias : {false, true}) {
      SCOPED_TRACE(::testing::Message() << c.m << "x" << c.k << "x" << c.n << " bias "
                                        << with_bias);
      const int64_t lda = c.k + 3;  // rows of A not contiguous with each other
      const std::vector<float> a = testing::RandomVector<float>(rng, c.m * lda);
      const std::vector<float> b = testing::RandomVector<float>(rng, c.k * c.n);
      const std::vector<float> bias = testing::RandomVector<float>(rng, c.n);
      const int64_t stride = c.k * kSgemmPanel + 32;
      const std::vector<float> panels = PackPanels(b, c.k, c.n, stride);
      // B as stored: exactly k * n floats, so a read past a row's end would leave the buffer.
      const std::vector<float> plain(b);
      const std::vector<double> want =
          Product(a, lda, b, with_bias ? &bias : nullptr, c.m, c.k, c.n);
      std::vector<float> y(c.m * c.n, -7.0f);
      const SgemmB packed_b{panels.data(), stride, kSgemmPanel};
      SgemmAvx2(a.data(), lda, c.m, c.k, packed_b, with_bias ? bias.data() : nullptr, y.data(),
                c.n, 0, c.n);
      EXPECT_TRUE(AllClose(y, want, 1e-5, 1e-5)) << "whole";
      std::vector<float> from_plain(c.m * c.n, -7.0f);
      SgemmAvx2(a.data(), lda, c.m, c.k, SgemmB{plain.data(), kSgemmPanel, c.n},
                with_bias ? bias.data() : nullptr, from_plain.data(), c.n, 0, c.n);
      EXPECT_EQ(from_plain, y) << "B as stored";
      // B given transposed, [n, k] with a row stride past k (attention's keys in Q Kt): with
      // more than kSgemmDotRows rows the same panels, so the same sums in the same order; with
      // fewer, dot products. The last row holds exactly k floats, so a read past K leaves the
      // buffer; the gaps between rows are NaN, so a read of them shows.
      const int64_t ldt = c.k + 2;
      std::vector<float> transposed((c.n - 1) * ldt + c.k, std::numeric_limits<float>::quiet_NaN());
      for (int64_t p = 0; p < c.k; ++p) {
        for (int64_t j = 0; j < c.n; ++j) transposed[j * ldt + p] = b[p * c.n + j];
      }
      for (int64_t rows : {c.m, std::min<int64_t>(c.m, kSgemmDotRows)}) {
        std::vector<float> from_transposed(rows * c.n, -7.0f);
        SgemmAvx2(a.data(), lda, rows, c.k, SgemmB{transposed.data(), 0, ldt, true},
                  with_bias ? bias.data() : nullptr, from_transposed.data(), c.n, 0, c.n);
        const std::vector<float> head(y.begin(), y.begin() + rows * c.n);
        if (rows > kSgemmDotRows) {
          EXPECT_EQ(from_transposed, head) << "B transposed";
        } else {
          const std::vector<double> want_head(want.begin(), want.begin() + rows * c.n);
          EXPECT_TRUE(AllClose(from_transposed, want_head, 1e-5, 1e-5))
              << "B transposed, " << rows << " rows";
        }
      }
      // In pieces at panel boundaries, as threads split the columns.
      std::vector<float> pieces(c.m * c.n, -7.0f);
      const int64_t cut = std::min(c.n, ((c.n / 3) / kSgemmPanel + 1) * kSgemmPanel);
      SgemmAvx2(a.data(), lda, c.m, c.k, packed_b, with_bias ? bias.data() : nullptr,
                pieces.data(), c.n, cut, c.n);
      SgemmAvx2(a.data(), lda, c.m, c.k, packed_b, with_bias ? bias.data() : nullptr,
                pieces.data(), c.n, 0, cut);
      EXPECT_EQ(pieces, y) << "pieces cut at " << cut;
    }
  }
}

TEST(SgemmAvx2Test, ZeroKWritesBiasOrZeros) {
  if (!CpuHasAvx2()) GTEST_SKIP() << "the CPU has no AVX2";
  const std::vector<float> bias = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17};
  std::vector<float> y(3 * 17, -1.0f);
  SgemmAvx2(nullptr, 0, 3, 0, SgemmB{}, bias.data(), y.data(), 17, 0, 17);
  for (int64_t i = 0; i < 3; ++i) {
    for (int64_t j = 0; j < 17; ++j) EXPECT_EQ(y[i * 17 + j], bias[j]);
  }
  SgemmAvx2(nullptr, 0, 3, 0, SgemmB{}, nullptr, y.data(), 17, 0, 17);
  for (float v : y) EXPECT_EQ(v, 0.0f);
}

// A NaN or inf in A reaches exactly the outputs of its row (inf * 0 from a zero column of B
// gives NaN there, as in the plain product).
TEST(SgemmAvx2Test, NanAndInfPropagate) {
  if (!CpuHasAvx2()) GTEST_SKIP() << "the CPU has no AVX2";
  const int64_t m = 8, k = 300, n = 20;
  std::mt19937 rng(62);
  std::vector<float> a = testing::RandomVector<float>(rng, m * k, 0.5, 1.0);
  std::vector<float> b = testing::RandomVector<float>(rng, k * n, 0.5, 1.0);
  a[2 * k + 280] = std::numeric_limits<float>::quiet_NaN();  // row 2, second K block
  a[7 * k + 3] = std::numeric_limits<float>::infinity();     // row 7, first K block
  const std::vector<float> panels = PackPanels(b, k, n, k * kSgemmPanel);
  std::vector<float> y(m * n);
  SgemmAvx2(a.data(), k, m, k, SgemmB{panels.data(), k * kSgemmPanel, kSgemmPanel}, nullptr,
            y.data(), n, 0, n);
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      const float v = y[i * n + j];
      if (i == 2) {
        EXPECT_TRUE(std::isnan(v)) << i << "," << j;
      } else if (i == 7) {
        EXPECT_EQ(v, std::numeric_limits<float>::infinity()) << i << "," << j;
      } else {
        EXPECT_TRUE(std::isfinite(v)) << i << "," << j;
      }
    }
  }
}

}  // namespace
}  // namespace nxrt::cpu::nn
