// ep/cpu/kernels/signal/signal_test.cpp: the signal kernels run as one-node models against
// references written in the test from the ONNX definitions (opset 17): the three windows,
// DFT (real/complex, forward/inverse, one-sided, dft_length, axis), STFT with and without a
// window, and MelWeightMatrix on the ONNX example.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <numbers>
#include <random>
#include <vector>

#include "ep/cpu/kernels/tensor/single_op_test_util.h"
#include "ep/cpu/math/testing/nn_test_util.h"

namespace nxrt::cpu::kernels::testing {
namespace {

using nn::testing::AllClose;
using nn::testing::Count;
using nn::testing::RandomInt;
using nn::testing::RandomVector;
constexpr double kPi = std::numbers::pi;

TEST(WindowKernels, PeriodicAndSymmetricMatchDefinitions) {
  std::mt19937 rng(701);
  for (int iter = 0; iter < 12; ++iter) {
    const int64_t size = RandomInt(rng, 2, 40);
    const bool periodic = iter % 2 == 0;
    const char* op = iter % 3 == 0 ? "HannWindow" : iter % 3 == 1 ? "HammingWindow" : "BlackmanWindow";
    const double den = static_cast<double>(periodic ? size : size - 1);
    std::vector<double> expected;
    for (int64_t n = 0; n < size; ++n) {
      const double c1 = std::cos(2 * kPi * static_cast<double>(n) / den);
      const double c2 = std::cos(4 * kPi * static_cast<double>(n) / den);
      expected.push_back(iter % 3 == 0   ? 0.5 - 0.5 * c1
                         : iter % 3 == 1 ? 25.0 / 46 - 21.0 / 46 * c1
                                         : 0.42 - 0.5 * c1 + 0.08 * c2);
    }
    OpCase node{op, 17, {In(Tensor::Scalar(static_cast<int32_t>(size)))},
                {IntAttr("periodic", periodic ? 1 : 0), IntAttr("output_datatype", 11)}};
    NXRT_ASSERT_OK_AND_ASSIGN(std::vector<Tensor> y, RunOp(node));
    ASSERT_EQ(y[0].dtype(), DataType::kDouble);
    EXPECT_TRUE(AllClose(Values<double>(y[0]), expected, 1e-12, 1e-12)) << op << " " << size;
  }
}

// Naive DFT of the complex vector `x` (length n) to `length` bins, zero-padded or truncated.
std::vector<std::complex<double>> NaiveDft(const std::vector<std::complex<double>>& x,
                                           int64_t length, bool inverse) {
  std::vector<std::complex<double>> y(static_cast<size_t>(length));
  for (int64_t f = 0; f < length; ++f) {
    for (int64_t t = 0; t < std::min<int64_t>(length, static_cast<int64_t>(x.size())); ++t) {
      const double angle = (inverse ? 2 : -2) * kPi * static_cast<double>(f * t) /
                           static_cast<double>(length);
      y[f] += x[t] * std::polar(1.0, angle);
    }
    if (inverse) y[f] /= static_cast<double>(length);
  }
  return y;
}

TEST(DftKernel, RealAndComplexForwardInverseOnesidedMatchNaiveDft) {
  std::mt19937 rng(702);
  for (int iter = 0; iter < 20; ++iter) {
    const int64_t batch = RandomInt(rng, 1, 3), len = RandomInt(rng, 1, 12), inner = RandomInt(rng, 1, 3);
    const int64_t comps = iter % 2 == 0 ? 1 : 2;
    const bool inverse = iter % 4 == 3, onesided = comps == 1 && iter % 3 == 0;
    const int64_t length = iter % 5 == 0 ? RandomInt(rng, 1, 14) : len;
    const bool axis1 = iter % 2 == 0;  // transform dim 1 of [batch, len, inner, c], else dim 2
    const Shape shape = axis1 ? Shape{batch, len, inner, comps} : Shape{batch, inner, len, comps};
    const std::vector<double> x = RandomVector<double>(rng, Count(shape));
    const int64_t bins = onesided ? length / 2 + 1 : length;
    Shape out_shape = shape;
    out_shape[axis1 ? 1 : 2] = bins;
    out_shape[3] = 2;
    std::vector<double> expected(static_cast<size_t>(Count(out_shape)));
    for (int64_t b = 0; b < batch; ++b) {
      for (int64_t i = 0; i < inner; ++i) {
        std::vector<std::complex<double>> signal;
        for (int64_t t = 0; t < len; ++t) {
          const int64_t base = (axis1 ? (b * len + t) * inner + i : (b * inner + i) * len + t) * comps;
          signal.emplace_back(x[base], comps == 2 ? x[base + 1] : 0.0);
        }
        const std::vector<std::complex<double>> y = NaiveDft(signal, length, inverse);
        for (int64_t f = 0; f < bins; ++f) {
          const int64_t o = (axis1 ? (b * bins + f) * inner + i : (b * inner + i) * bins + f) * 2;
          expected[o] = y[f].real();
          expected[o + 1] = y[f].imag();
        }
      }
    }
    OpCase op{"DFT", 17,
              {In(Tensor::FromVector<double>(shape, x).value()),
               length != len ? Const(Tensor::Scalar(length)) : Omitted()},
              {IntAttr("axis", axis1 ? 1 : -2), IntAttr("inverse", inverse ? 1 : 0),
               IntAttr("onesided", onesided ? 1 : 0)}};
    NXRT_ASSERT_OK_AND_ASSIGN(std::vector<Tensor> y, RunOp(op));
    ASSERT_EQ(y[0].shape(), out_shape) << "iter " << iter;
    EXPECT_TRUE(AllClose(Values<double>(y[0]), expected, 1e-9, 1e-9)) << "iter " << iter;
  }
}

TEST(StftKernel, FramesWithAndWithoutWindowMatchNaiveDft) {
  std::mt19937 rng(703);
  for (int iter = 0; iter < 12; ++iter) {
    const int64_t batch = RandomInt(rng, 1, 2), signal_len = RandomInt(rng, 8, 40);
    const int64_t frame = RandomInt(rng, 2, 8), step = RandomInt(rng, 1, 5);
    const bool with_window = iter % 2 == 0, onesided = iter % 3 != 0;
    const std::vector<float> x = RandomVector<float>(rng, batch * signal_len);
    const std::vector<float> window = RandomVector<float>(rng, frame, 0, 1);
    const int64_t frames = (signal_len - frame) / step + 1;
    const int64_t bins = onesided ? frame / 2 + 1 : frame;
    std::vector<double> expected;
    for (int64_t b = 0; b < batch; ++b) {
      for (int64_t f = 0; f < frames; ++f) {
        std::vector<std::complex<double>> s;
        for (int64_t t = 0; t < frame; ++t) {
          s.emplace_back(x[b * signal_len + f * step + t] * (with_window ? window[t] : 1.0f), 0.0);
        }
        const std::vector<std::complex<double>> y = NaiveDft(s, frame, false);
        for (int64_t k = 0; k < bins; ++k) {
          expected.push_back(y[k].real());
          expected.push_back(y[k].imag());
        }
      }
    }
    OpCase op{"STFT", 17,
              {In(Tensor::FromVector<float>({batch, signal_len, 1}, x).value()),
               Const(Tensor::Scalar(step)),
               with_window ? Const(Tensor::FromVector<float>({frame}, window).value()) : Omitted(),
               with_window ? Omitted() : Const(Tensor::Scalar(frame))},
              {IntAttr("onesided", onesided ? 1 : 0)}};
    NXRT_ASSERT_OK_AND_ASSIGN(std::vector<Tensor> y, RunOp(op));
    ASSERT_EQ(y[0].shape(), (Shape{batch, frames, bins, 2})) << "iter " << iter;
    EXPECT_TRUE(AllClose(Values<float>(y[0]), expected, 1e-4, 1e-5)) << "iter " << iter;
  }
}

TEST(MelWeightMatrixKernel, OnnxExampleAndRandomTriangles) {
  std::mt19937 rng(704);
  for (int iter = 0; iter < 8; ++iter) {
    const int64_t mel = iter == 0 ? 8 : RandomInt(rng, 1, 10);
    const int64_t dft = iter == 0 ? 16 : RandomInt(rng, 8, 64);
    const int64_t rate = iter == 0 ? 8192 : RandomInt(rng, 8000, 16000);
    const float lower = iter == 0 ? 0.0f : RandomVector<float>(rng, 1, 0, 200)[0];
    const float upper = iter == 0 ? 4096.0f : static_cast<float>(rate) / 2;
    // The filter edges on the mel scale, mapped back to DFT bins.
    const auto mel_of = [](double hz) { return 2595 * std::log10(1 + hz / 700); };
    const double step = (mel_of(upper) - mel_of(lower)) / static_cast<double>(mel + 2);
    std::vector<int64_t> edge;
    for (int64_t i = 0; i < mel + 2; ++i) {
      const double hz = 700 * (std::pow(10, (static_cast<double>(i) * step + mel_of(lower)) / 2595) - 1);
      edge.push_back(static_cast<int64_t>(std::floor(static_cast<double>(dft + 1) * hz / static_cast<double>(rate))));
    }
    const int64_t rows = dft / 2 + 1;
    std::vector<double> expected(static_cast<size_t>(rows * mel), 0);
    for (int64_t m = 0; m < mel; ++m) {
      const int64_t l = edge[m], c = edge[m + 1], h = edge[m + 2];
      if (c == l) expected[c * mel + m] = 1;
      for (int64_t j = l; c != l && j <= c; ++j) expected[j * mel + m] = double(j - l) / double(c - l);
      for (int64_t j = c; j < h; ++j) expected[j * mel + m] = double(h - j) / double(h - c);
    }
    OpCase op{"MelWeightMatrix", 17,
              {Const(Tensor::Scalar(static_cast<int32_t>(mel))),
               Const(Tensor::Scalar(static_cast<int32_t>(dft))),
               Const(Tensor::Scalar(static_cast<int32_t>(rate))), Const(Tensor::Scalar(lower)),
               Const(Tensor::Scalar(upper))}};
    NXRT_ASSERT_OK_AND_ASSIGN(std::vector<Tensor> y, RunOp(op));
    ASSERT_EQ(y[0].shape(), (Shape{rows, mel}));
    EXPECT_TRUE(AllClose(Values<float>(y[0]), expected, 1e-6, 1e-6)) << "iter " << iter;
  }
}

}  // namespace
}  // namespace nxrt::cpu::kernels::testing
