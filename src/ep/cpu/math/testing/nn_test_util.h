// ep/cpu/math/testing/nn_test_util.h: helpers shared by the nxrt_cpu_math tests (not part of the
// library).
//
// Fixed-seed random data and shapes, multi-index iteration for the tests' independent
// references, and tolerance comparisons. Every test reference is written from the ONNX operator
// definition, never by calling the code under test.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "nxrt/status.h"
#include "nxrt/tensor.h"

namespace nxrt::cpu::nn::testing {

// Values uniform in [lo, hi).
template <typename T>
std::vector<T> RandomVector(std::mt19937& rng, int64_t n, double lo = -1.0, double hi = 1.0) {
  std::uniform_real_distribution<double> dist(lo, hi);
  std::vector<T> v(static_cast<size_t>(n));
  for (auto& x : v) x = static_cast<T>(dist(rng));
  return v;
}

// Integers uniform in [lo, hi].
inline std::vector<int64_t> RandomInts(std::mt19937& rng, int64_t n, int64_t lo, int64_t hi) {
  std::uniform_int_distribution<int64_t> dist(lo, hi);
  std::vector<int64_t> v(static_cast<size_t>(n));
  for (auto& x : v) x = dist(rng);
  return v;
}

inline int64_t RandomInt(std::mt19937& rng, int64_t lo, int64_t hi) {
  return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
}

inline Shape RandomShape(std::mt19937& rng, int64_t rank, int64_t lo, int64_t hi) {
  Shape s(static_cast<size_t>(rank));
  for (auto& d : s) d = RandomInt(rng, lo, hi);
  return s;
}

inline int64_t Count(std::span<const int64_t> shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

// Calls f(index) for every multi-index of `shape` in row-major order.
template <typename F>
void ForEachIndex(std::span<const int64_t> shape, F&& f) {
  if (Count(shape) == 0) return;
  std::vector<int64_t> idx(shape.size(), 0);
  for (;;) {
    f(static_cast<const std::vector<int64_t>&>(idx));
    size_t k = shape.size();
    for (; k > 0; --k) {
      if (++idx[k - 1] < shape[k - 1]) break;
      idx[k - 1] = 0;
    }
    if (k == 0) return;
  }
}

// Row-major offset of `idx` in `shape`.
inline int64_t Offset(std::span<const int64_t> shape, std::span<const int64_t> idx) {
  int64_t off = 0;
  for (size_t k = 0; k < shape.size(); ++k) off = off * shape[k] + idx[k];
  return off;
}

// |a - b| <= atol + rtol * |b| for every element (NaN matching NaN, an infinity itself),
// reporting the first mismatch.
template <typename A, typename B>
::testing::AssertionResult AllClose(const std::vector<A>& actual, const std::vector<B>& expected,
                                    double rtol, double atol) {
  if (actual.size() != expected.size()) {
    return ::testing::AssertionFailure()
           << "sizes differ: " << actual.size() << " vs " << expected.size();
  }
  for (size_t i = 0; i < actual.size(); ++i) {
    const double a = static_cast<double>(actual[i]);
    const double b = static_cast<double>(expected[i]);
    if ((std::isnan(a) && std::isnan(b)) || a == b) continue;  // NaN or the same infinity
    if (!(std::fabs(a - b) <= atol + rtol * std::fabs(b))) {
      return ::testing::AssertionFailure() << "element " << i << ": " << a << " vs expected " << b
                                           << " (rtol " << rtol << ", atol " << atol << ")";
    }
  }
  return ::testing::AssertionSuccess();
}

// [N, C, H, W] data as [N, H, W, C] (channels-last kernels' layout).
template <typename T>
std::vector<T> ToNhwc(const Shape& nchw, const std::vector<T>& v) {
  const int64_t c = nchw[1], hw = nchw[2] * nchw[3];
  std::vector<T> out(v.size());
  for (int64_t n = 0; n < nchw[0]; ++n) {
    for (int64_t ch = 0; ch < c; ++ch) {
      for (int64_t i = 0; i < hw; ++i) out[(n * hw + i) * c + ch] = v[(n * c + ch) * hw + i];
    }
  }
  return out;
}

// [N, H, W, C] data back to [N, C, H, W]; `nchw` is the NCHW shape.
template <typename T>
std::vector<T> ToNchw(const Shape& nchw, const std::vector<T>& v) {
  const int64_t c = nchw[1], hw = nchw[2] * nchw[3];
  std::vector<T> out(v.size());
  for (int64_t n = 0; n < nchw[0]; ++n) {
    for (int64_t ch = 0; ch < c; ++ch) {
      for (int64_t i = 0; i < hw; ++i) out[(n * c + ch) * hw + i] = v[(n * hw + i) * c + ch];
    }
  }
  return out;
}

}  // namespace nxrt::cpu::nn::testing

// Asserts that a Status or Result is ok, printing its message otherwise.
#define NXRT_ASSERT_OK(expr)                                                             \
  do {                                                                                   \
    const auto& nxrt_test_r_ = (expr);                                                   \
    ASSERT_TRUE(nxrt_test_r_.ok()) << ::nxrt::detail::AsStatus(nxrt_test_r_).ToString(); \
  } while (0)

// Declares `lhs` from a Result, failing the test on an error.
#define NXRT_ASSERT_OK_AND_ASSIGN(lhs, expr)                       \
  auto NXRT_CONCAT_(nxrt_test_v_, __LINE__) = (expr);              \
  ASSERT_TRUE(NXRT_CONCAT_(nxrt_test_v_, __LINE__).ok())           \
      << NXRT_CONCAT_(nxrt_test_v_, __LINE__).status().ToString(); \
  lhs = std::move(NXRT_CONCAT_(nxrt_test_v_, __LINE__)).value()
