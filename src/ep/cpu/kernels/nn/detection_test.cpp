// ep/cpu/kernels/nn/detection_test.cpp: GridSample and NonMaxSuppression run as one-node models
// against references written in the test from the ONNX definitions (random grids and boxes,
// fixed seeds).
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "ep/cpu/kernels/tensor/single_op_test_util.h"
#include "ep/cpu/math/testing/nn_test_util.h"

namespace nxrt::cpu::kernels::testing {
namespace {

using nn::testing::AllClose;
using nn::testing::RandomInt;
using nn::testing::RandomVector;

// Bilinear (or nearest) sample of a [h, w] image at normalised (gx, gy), zeros or border padding.
double SampleRef(const std::vector<double>& img, int64_t h, int64_t w, double gx, double gy,
                 bool align, bool border, bool nearest) {
  auto denorm = [&](double g, int64_t size) {
    return align ? (g + 1) / 2 * double(size - 1) : ((g + 1) * double(size) - 1) / 2;
  };
  double x = denorm(gx, w), y = denorm(gy, h);
  if (border) {
    x = std::min(std::max(x, 0.0), double(w - 1));
    y = std::min(std::max(y, 0.0), double(h - 1));
  }
  auto at = [&](int64_t r, int64_t c) {
    if (r < 0 || r >= h || c < 0 || c >= w) return 0.0;
    return img[r * w + c];
  };
  if (nearest) return at(std::lrint(y), std::lrint(x));
  const int64_t x0 = std::floor(x), y0 = std::floor(y);
  const double dx = x - double(x0), dy = y - double(y0);
  return at(y0, x0) * (1 - dx) * (1 - dy) + at(y0, x0 + 1) * dx * (1 - dy) +
         at(y0 + 1, x0) * (1 - dx) * dy + at(y0 + 1, x0 + 1) * dx * dy;
}

TEST(GridSampleKernel, BilinearAndNearestWithZerosAndBorderMatchReference) {
  std::mt19937 rng(801);
  for (int iter = 0; iter < 24; ++iter) {
    const int64_t n = RandomInt(rng, 1, 2), c = RandomInt(rng, 1, 3), h = RandomInt(rng, 1, 5),
                  w = RandomInt(rng, 1, 5), oh = RandomInt(rng, 1, 4), ow = RandomInt(rng, 1, 4);
    const bool align = iter % 2 == 0, border = iter % 3 == 0, nearest = iter % 4 == 1;
    const std::vector<double> x = RandomVector<double>(rng, n * c * h * w);
    const std::vector<double> grid = RandomVector<double>(rng, n * oh * ow * 2, -1.3, 1.3);
    std::vector<double> expected;
    for (int64_t b = 0; b < n; ++b)
      for (int64_t ch = 0; ch < c; ++ch)
        for (int64_t p = 0; p < oh * ow; ++p) {
          const std::vector<double> img(x.begin() + (b * c + ch) * h * w,
                                        x.begin() + (b * c + ch + 1) * h * w);
          const double* g = &grid[(b * oh * ow + p) * 2];
          expected.push_back(SampleRef(img, h, w, g[0], g[1], align, border, nearest));
        }
    OpCase op{"GridSample", 16,
              {In(Tensor::FromVector<double>({n, c, h, w}, x).value()),
               In(Tensor::FromVector<double>({n, oh, ow, 2}, grid).value())},
              {IntAttr("align_corners", align ? 1 : 0),
               StringAttr("mode", nearest ? "nearest" : "bilinear"),
               StringAttr("padding_mode", border ? "border" : "zeros")}};
    NXRT_ASSERT_OK_AND_ASSIGN(std::vector<Tensor> y, RunOp(op));
    ASSERT_EQ(y[0].shape(), (Shape{n, c, oh, ow}));
    EXPECT_TRUE(AllClose(Values<double>(y[0]), expected, 1e-12, 1e-12)) << "iter " << iter;
  }
}

TEST(GridSampleKernel, ReflectionMirrorsOutOfRangeCoordinates) {
  // 1x4 image, align_corners=1: x = -0.5 in normalised units is pixel -0.75 → reflects to 0.75.
  OpCase op{"GridSample", 16,
            {In(Tensor::FromVector<float>({1, 1, 1, 4}, {0, 10, 20, 30}).value()),
             In(Tensor::FromVector<float>({1, 1, 1, 2}, {-1.5f, 0.0f}).value())},
            {IntAttr("align_corners", 1), StringAttr("padding_mode", "reflection")}};
  NXRT_ASSERT_OK_AND_ASSIGN(std::vector<Tensor> y, RunOp(op));
  EXPECT_NEAR(Values<float>(y[0])[0], 7.5f, 1e-5);
}

// Greedy NMS written from the spec: candidates above the score threshold by descending score.
std::vector<int64_t> NmsRef(const std::vector<float>& boxes, const std::vector<float>& scores,
                            int64_t n, int64_t limit, float iou_max, float score_min) {
  std::vector<int64_t> idx;
  for (int64_t i = 0; i < n; ++i) {
    if (scores[i] > score_min) idx.push_back(i);
  }
  std::stable_sort(idx.begin(), idx.end(), [&](int64_t a, int64_t b) { return scores[a] > scores[b]; });
  std::vector<int64_t> out;
  for (int64_t i : idx) {
    if (static_cast<int64_t>(out.size()) == limit) break;
    bool keep = true;
    for (int64_t j : out) {
      const float* a = &boxes[i * 4];
      const float* b = &boxes[j * 4];
      const float ay1 = std::min(a[0], a[2]), ay2 = std::max(a[0], a[2]);
      const float ax1 = std::min(a[1], a[3]), ax2 = std::max(a[1], a[3]);
      const float by1 = std::min(b[0], b[2]), by2 = std::max(b[0], b[2]);
      const float bx1 = std::min(b[1], b[3]), bx2 = std::max(b[1], b[3]);
      const float ih = std::max(0.0f, std::min(ay2, by2) - std::max(ay1, by1));
      const float iw = std::max(0.0f, std::min(ax2, bx2) - std::max(ax1, bx1));
      const float inter = ih * iw;
      const float uni = (ay2 - ay1) * (ax2 - ax1) + (by2 - by1) * (bx2 - bx1) - inter;
      if (uni > 0 && inter / uni > iou_max) keep = false;
    }
    if (keep) out.push_back(i);
  }
  return out;
}

TEST(NonMaxSuppressionKernel, RandomBoxesMatchGreedyReference) {
  std::mt19937 rng(802);
  for (int iter = 0; iter < 20; ++iter) {
    const int64_t batches = RandomInt(rng, 1, 2), classes = RandomInt(rng, 1, 3),
                  n = RandomInt(rng, 1, 12), limit = RandomInt(rng, 0, 6);
    const float iou = RandomVector<float>(rng, 1, 0.1, 0.7)[0];
    const float score = RandomVector<float>(rng, 1, 0, 0.5)[0];
    std::vector<float> boxes = RandomVector<float>(rng, batches * n * 4, 0, 4);
    const std::vector<float> scores = RandomVector<float>(rng, batches * classes * n, 0, 1);
    std::vector<int64_t> expected;
    for (int64_t b = 0; b < batches; ++b)
      for (int64_t c = 0; c < classes; ++c) {
        const std::vector<float> bb(boxes.begin() + b * n * 4, boxes.begin() + (b + 1) * n * 4);
        const std::vector<float> ss(scores.begin() + (b * classes + c) * n,
                                    scores.begin() + (b * classes + c + 1) * n);
        for (int64_t i : NmsRef(bb, ss, n, limit, iou, score)) {
          expected.insert(expected.end(), {b, c, i});
        }
      }
    OpCase op{"NonMaxSuppression", 11,
              {In(Tensor::FromVector<float>({batches, n, 4}, boxes).value()),
               In(Tensor::FromVector<float>({batches, classes, n}, scores).value()),
               Const(Tensor::FromVector<int64_t>({1}, {limit}).value()),
               Const(Tensor::FromVector<float>({1}, {iou}).value()),
               Const(Tensor::FromVector<float>({1}, {score}).value())}};
    NXRT_ASSERT_OK_AND_ASSIGN(std::vector<Tensor> y, RunOp(op));
    ASSERT_EQ(y[0].shape(), (Shape{static_cast<int64_t>(expected.size()) / 3, 3}));
    EXPECT_EQ(Values<int64_t>(y[0]), expected) << "iter " << iter;
  }
}

}  // namespace
}  // namespace nxrt::cpu::kernels::testing
