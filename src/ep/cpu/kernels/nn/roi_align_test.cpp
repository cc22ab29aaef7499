// ep/cpu/kernels/nn/roi_align_test.cpp: RoiAlign run as a one-node model against a reference
// written in the test from the ONNX definition (opset 10, and 16 with both
// coordinate_transformation_modes; avg and max; random images, rois, output sizes, sampling
// ratios and scales; fixed seed).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "ep/cpu/kernels/tensor/single_op_test_util.h"
#include "ep/cpu/math/testing/nn_test_util.h"

namespace nxrt::cpu::kernels::testing {
namespace {

using nn::testing::AllClose;
using nn::testing::Count;
using nn::testing::RandomInt;
using nn::testing::RandomVector;

// The bilinear sample of plane `img` [h, w] at (y, x) as four weighted corners; a point outside
// [-1, h] x [-1, w] has none.
std::vector<double> Corners(const double* img, int64_t h, int64_t w, double y, double x) {
  if (y < -1 || y > static_cast<double>(h) || x < -1 || x > static_cast<double>(w)) {
    return {0, 0, 0, 0};
  }
  y = std::clamp(y, 0.0, static_cast<double>(h - 1));
  x = std::clamp(x, 0.0, static_cast<double>(w - 1));
  const int64_t y0 = static_cast<int64_t>(std::floor(y)), x0 = static_cast<int64_t>(std::floor(x));
  const int64_t y1 = std::min(y0 + 1, h - 1), x1 = std::min(x0 + 1, w - 1);
  const double ly = y - static_cast<double>(y0), lx = x - static_cast<double>(x0);
  return {(1 - ly) * (1 - lx) * img[y0 * w + x0], (1 - ly) * lx * img[y0 * w + x1],
          ly * (1 - lx) * img[y1 * w + x0], ly * lx * img[y1 * w + x1]};
}

TEST(RoiAlignKernel, RandomRoisMatchReference) {
  std::mt19937 rng(1301);
  for (int iter = 0; iter < 40; ++iter) {
    const int64_t n = RandomInt(rng, 1, 2), c = RandomInt(rng, 1, 3);
    const int64_t h = RandomInt(rng, 1, 7), w = RandomInt(rng, 1, 7);
    const int64_t rois = RandomInt(rng, 1, 4);
    const int64_t out_h = RandomInt(rng, 1, 3), out_w = RandomInt(rng, 1, 3);
    const int64_t ratio = RandomInt(rng, 0, 2);
    const float scale = std::vector<float>{0.5f, 1.0f, 0.25f}[RandomInt(rng, 0, 2)];
    const bool max_mode = RandomInt(rng, 0, 1) == 1;
    const int opset = RandomInt(rng, 0, 1) ? 16 : 10;
    const bool half_pixel = opset == 16 && RandomInt(rng, 0, 1) == 1;
    const std::vector<double> x = RandomVector<double>(rng, n * c * h * w, -2, 2);
    std::vector<double> boxes;
    std::vector<int64_t> batch;
    for (int64_t r = 0; r < rois; ++r) {
      const double x1 = RandomVector<double>(rng, 1, -1, 2.0 * w)[0];
      const double y1 = RandomVector<double>(rng, 1, -1, 2.0 * h)[0];
      boxes.insert(boxes.end(), {x1, y1, x1 + RandomVector<double>(rng, 1, 0, 2.0 * w)[0],
                                 y1 + RandomVector<double>(rng, 1, 0, 2.0 * h)[0]});
      batch.push_back(RandomInt(rng, 0, n - 1));
    }
    std::vector<double> expected;
    const double offset = half_pixel ? 0.5 : 0;
    for (int64_t r = 0; r < rois; ++r) {
      const double* b = &boxes[r * 4];
      const double sx = b[0] * scale - offset, sy = b[1] * scale - offset;
      double rw = b[2] * scale - offset - sx, rh = b[3] * scale - offset - sy;
      if (!half_pixel) rw = std::max(rw, 1.0), rh = std::max(rh, 1.0);
      const double bh = rh / out_h, bw = rw / out_w;
      const int64_t gh = ratio ? ratio : static_cast<int64_t>(std::ceil(rh / out_h));
      const int64_t gw = ratio ? ratio : static_cast<int64_t>(std::ceil(rw / out_w));
      for (int64_t ch = 0; ch < c; ++ch) {
        const double* img = &x[(batch[r] * c + ch) * h * w];
        for (int64_t i = 0; i < out_h; ++i)
          for (int64_t j = 0; j < out_w; ++j) {
            std::vector<double> samples;
            for (int64_t iy = 0; iy < gh; ++iy)
              for (int64_t ix = 0; ix < gw; ++ix) {
                const std::vector<double> k =
                    Corners(img, h, w, sy + i * bh + (iy + 0.5) * bh / gh,
                            sx + j * bw + (ix + 0.5) * bw / gw);
                samples.push_back(max_mode ? *std::max_element(k.begin(), k.end())
                                           : k[0] + k[1] + k[2] + k[3]);
              }
            double v = 0;
            if (max_mode && !samples.empty()) {
              v = *std::max_element(samples.begin(), samples.end());
            } else if (!max_mode) {
              for (double s : samples) v += s;
              v /= std::max<double>(1, samples.size());
            }
            expected.push_back(v);
          }
      }
    }
    std::vector<AttributeValue> attributes = {
        StringAttr("mode", max_mode ? "max" : "avg"), IntAttr("output_height", out_h),
        IntAttr("output_width", out_w), IntAttr("sampling_ratio", ratio),
        FloatAttr("spatial_scale", scale)};
    if (opset == 16) {
      attributes.push_back(StringAttr("coordinate_transformation_mode",
                                      half_pixel ? "half_pixel" : "output_half_pixel"));
    }
    OpCase op{"RoiAlign", opset,
              {In(Tensor::FromVector<double>({n, c, h, w}, x).value()),
               In(Tensor::FromVector<double>({rois, 4}, boxes).value()),
               In(Tensor::FromVector<int64_t>({rois}, batch).value())},
              attributes};
    NXRT_ASSERT_OK_AND_ASSIGN(std::vector<Tensor> y, RunOp(op));
    EXPECT_EQ(y[0].shape(), (Shape{rois, c, out_h, out_w}));
    EXPECT_TRUE(AllClose(Values<double>(y[0]), expected, 1e-9, 1e-9)) << "iter " << iter;
  }
}

TEST(RoiAlignKernel, BatchIndexOutOfRangeIsAnError) {
  OpCase op{"RoiAlign", 16,
            {In(Tensor::FromVector<float>({1, 1, 2, 2}, {1, 2, 3, 4}).value()),
             In(Tensor::FromVector<float>({1, 4}, {0, 0, 1, 1}).value()),
             In(Tensor::FromVector<int64_t>({1}, {1}).value())}};
  EXPECT_FALSE(RunOp(op).ok());
}

}  // namespace
}  // namespace nxrt::cpu::kernels::testing
