// ep/cpu/math/tensor/resize_test.cpp: tests of Resize: the ONNX backend node tests (values
// generated from libonnx-testdata by resize_onnx_cases.py), the exact-tie edge cases of issue 6,
// antialiasing and N-D linear against independent references written from the spec formulas,
// opset-18 keep_aspect_ratio_policy and axes, tf_crop_and_resize extrapolation, and errors.
#include "ep/cpu/math/tensor/resize.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "ep/cpu/math/tensor/testing/resize_onnx_cases.h"
#include "ep/cpu/math/testing/nn_test_util.h"

namespace nxrt::cpu::nn {
namespace {

using testing::AllClose;
using testing::Count;
using testing::ForEachIndex;
using testing::Offset;
using testing::RandomInt;

using OnnxCase = testing::ResizeOnnxCase;

TEST(ResizeTest, OnnxBackendNodeTests) {
  for (const OnnxCase& c : testing::kResizeOnnxCases) {
    SCOPED_TRACE(c.name);
    ResizeAttributes attr;
    attr.mode = c.mode;
    attr.coordinate_transformation_mode = c.coordinate_mode;
    attr.nearest_mode = c.nearest_mode;
    attr.cubic_coeff_a = c.cubic_coeff_a;
    attr.exclude_outside = c.exclude_outside != 0;
    attr.extrapolation_value = c.extrapolation_value;
    NXRT_ASSERT_OK_AND_ASSIGN(ResizePlan plan, PrepareResize(DataType::kFloat, c.input_shape, attr,
                                                             c.roi, c.scales, c.sizes));
    ASSERT_EQ(plan.output_shape, c.output_shape);
    std::vector<float> out(Count(plan.output_shape));
    NXRT_ASSERT_OK(Resize(plan, c.input.data(), out.data()));
    EXPECT_TRUE(AllClose(out, c.output, 1e-5, 1e-5));
  }
}

// Issue 6: nearest, half_pixel, sizes [1,1,1,6] from [1,1,1,20] with x[i] = i/19.
std::vector<float> NearestFrom20To6(ResizeNearestMode nearest_mode) {
  std::vector<float> x(20);
  for (int i = 0; i < 20; ++i) x[i] = static_cast<float>(i) / 19.0f;
  ResizeAttributes attr;
  attr.mode = ResizeMode::kNearest;
  attr.coordinate_transformation_mode = ResizeCoordinateMode::kHalfPixel;
  attr.nearest_mode = nearest_mode;
  auto plan = PrepareResize(DataType::kFloat, Shape{1, 1, 1, 20}, attr, {}, {},
                            std::vector<int64_t>{1, 1, 1, 6});
  EXPECT_TRUE(plan.ok()) << plan.status().ToString();
  std::vector<float> out(6);
  EXPECT_TRUE(Resize(*plan, x.data(), out.data()).ok());
  std::vector<float> indices;
  for (float v : out) indices.push_back(std::round(v * 19.0f));
  return indices;
}

// Resize-10 doc example (resize_downsample_nearest): asymmetric, legacy nearest mode.
TEST(ResizeTest, Opset10DownsampleNearestUsesCeil) {
  const std::vector<float> x = {1, 2, 3, 4, 5, 6, 7, 8};
  ResizeAttributes attr;
  attr.coordinate_transformation_mode = ResizeCoordinateMode::kAsymmetric;
  attr.nearest_mode = ResizeNearestMode::kLegacy;
  NXRT_ASSERT_OK_AND_ASSIGN(ResizePlan plan,
                            PrepareResize(DataType::kFloat, Shape{1, 1, 2, 4}, attr, {},
                                          std::vector<float>{1, 1, 0.6f, 0.6f}, {}));
  EXPECT_EQ(plan.output_shape, (Shape{1, 1, 1, 2}));
  std::vector<float> out(2);
  NXRT_ASSERT_OK(Resize(plan, x.data(), out.data()));
  EXPECT_EQ(out, (std::vector<float>{1, 3}));
}

TEST(ResizeTest, NearestHalfPixelRoundPreferCeilExactTie) {
  EXPECT_EQ(NearestFrom20To6(ResizeNearestMode::kRoundPreferCeil),
            (std::vector<float>{1, 5, 8, 11, 15, 18}));
}

TEST(ResizeTest, NearestHalfPixelRoundPreferFloorExactTie) {
  EXPECT_EQ(NearestFrom20To6(ResizeNearestMode::kRoundPreferFloor),
            (std::vector<float>{1, 4, 8, 11, 14, 18}));
}

// Spec formula for one axis, written independently: the filter k(t), stretched by 1/s when
// antialiasing a downscale, summed over every input position it reaches (edge-clamped), and
// normalised when antialiasing.
double ReferenceFilter1D(const std::vector<double>& in, double x, ResizeMode mode, double a,
                         double s, bool antialias) {
  auto k = [&](double t) {
    t = std::fabs(t);
    if (mode == ResizeMode::kLinear) return t < 1 ? 1 - t : 0.0;
    if (t <= 1) return (a + 2) * t * t * t - (a + 3) * t * t + 1;
    if (t < 2) return a * t * t * t - 5 * a * t * t + 8 * a * t - 4 * a;
    return 0.0;
  };
  const int64_t n = static_cast<int64_t>(in.size());
  double sum = 0, norm = 0;
  for (int64_t j = static_cast<int64_t>(std::floor(x)) - 64; j <= std::floor(x) + 64; ++j) {
    const double w = k(s * (static_cast<double>(j) - x));
    sum += w * in[std::clamp<int64_t>(j, 0, n - 1)];
    norm += w;
  }
  return antialias ? sum / norm : sum;
}

TEST(ResizeTest, AntialiasDownscaleMatchesStretchedFilter) {
  std::mt19937 rng(31);
  for (int iter = 0; iter < 40; ++iter) {
    const ResizeMode mode = iter % 2 ? ResizeMode::kCubic : ResizeMode::kLinear;
    const int64_t in_len = RandomInt(rng, 2, 30);
    const int64_t out_len = RandomInt(rng, 1, 12);
    std::vector<double> in = testing::RandomVector<double>(rng, in_len, -2, 2);
    ResizeAttributes attr;
    attr.mode = mode;
    attr.antialias = true;
    attr.axes = {0};
    NXRT_ASSERT_OK_AND_ASSIGN(ResizePlan plan,
                              PrepareResize(DataType::kDouble, Shape{in_len}, attr, {}, {},
                                            std::vector<int64_t>{out_len}));
    std::vector<double> out(out_len), expected(out_len);
    NXRT_ASSERT_OK(Resize(plan, in.data(), out.data()));
    const double scale = static_cast<double>(out_len) / static_cast<double>(in_len);
    for (int64_t o = 0; o < out_len; ++o) {
      const double x = (static_cast<double>(o) + 0.5) / scale - 0.5;
      expected[o] = ReferenceFilter1D(in, x, mode, -0.75, std::min(scale, 1.0), true);
    }
    EXPECT_TRUE(AllClose(out, expected, 1e-12, 1e-12)) << "in " << in_len << " out " << out_len;
  }
}

TEST(ResizeTest, RandomNdLinearAndCubicWithAxesAgainstSeparableReference) {
  std::mt19937 rng(32);
  for (int iter = 0; iter < 30; ++iter) {
    const ResizeMode mode = iter % 3 == 0 ? ResizeMode::kCubic : ResizeMode::kLinear;
    const Shape in_shape = testing::RandomShape(rng, 3, 1, 5);
    ResizeAttributes attr;
    attr.mode = mode;
    attr.coordinate_transformation_mode =
        iter % 2 ? ResizeCoordinateMode::kAlignCorners : ResizeCoordinateMode::kAsymmetric;
    attr.axes = {-1, 1};  // resize dims 2 and 1; dim 0 is copied
    const std::vector<int64_t> sizes = {RandomInt(rng, 1, 7), RandomInt(rng, 1, 7)};
    std::vector<double> in = testing::RandomVector<double>(rng, Count(in_shape));
    NXRT_ASSERT_OK_AND_ASSIGN(ResizePlan plan,
                              PrepareResize(DataType::kDouble, in_shape, attr, {}, {}, sizes));
    const Shape out_shape = {in_shape[0], sizes[1], sizes[0]};
    ASSERT_EQ(plan.output_shape, out_shape);
    std::vector<double> out(Count(out_shape));
    NXRT_ASSERT_OK(Resize(plan, in.data(), out.data()));
    // Reference: resize dim 2, then dim 1, each with the 1-D spec formula.
    auto coord = [&](int64_t x, int64_t in_len, int64_t out_len) {
      if (attr.coordinate_transformation_mode == ResizeCoordinateMode::kAsymmetric) {
        return static_cast<double>(x) * static_cast<double>(in_len) / static_cast<double>(out_len);
      }
      return out_len == 1 ? 0.0
                          : static_cast<double>(x) * static_cast<double>(in_len - 1) /
                                static_cast<double>(out_len - 1);
    };
    const Shape mid_shape = {in_shape[0], in_shape[1], sizes[0]};
    std::vector<double> mid(Count(mid_shape));
    ForEachIndex(mid_shape, [&](const std::vector<int64_t>& o) {
      std::vector<double> line;
      for (int64_t j = 0; j < in_shape[2]; ++j)
        line.push_back(in[Offset(in_shape, {{o[0], o[1], j}})]);
      mid[Offset(mid_shape, o)] =
          ReferenceFilter1D(line, coord(o[2], in_shape[2], sizes[0]), mode, -0.75, 1.0, false);
    });
    std::vector<double> expected(out.size());
    ForEachIndex(out_shape, [&](const std::vector<int64_t>& o) {
      std::vector<double> line;
      for (int64_t j = 0; j < in_shape[1]; ++j)
        line.push_back(mid[Offset(mid_shape, {{o[0], j, o[2]}})]);
      expected[Offset(out_shape, o)] =
          ReferenceFilter1D(line, coord(o[1], in_shape[1], sizes[1]), mode, -0.75, 1.0, false);
    });
    EXPECT_TRUE(AllClose(out, expected, 1e-12, 1e-12));
  }
}

// The planar float path (image resizes: linear, cubic, antialiased) against the separable
// reference: half_pixel, random up- and downscales of odd sizes (vector tails), in float; and,
// with NaN, +inf and -inf in the input, against the double path of the same plan (which takes
// the same taps, so NaN and infinities land on the same outputs). ResizeUnits over parts writes
// what the whole does.
TEST(ResizeTest, PlanarFloatMatchesSeparableReferenceAndDoublePath) {
  std::mt19937 rng(33);
  for (int iter = 0; iter < 40; ++iter) {
    ResizeAttributes attr;
    attr.mode = iter % 3 == 2 ? ResizeMode::kCubic : ResizeMode::kLinear;
    attr.antialias = iter % 4 == 3;
    const Shape in_shape = {RandomInt(rng, 1, 2), RandomInt(rng, 1, 3), RandomInt(rng, 1, 13),
                            RandomInt(rng, 1, 41)};
    // Downscales by at most 8, so the reference's +-64 taps cover the stretched cubic filter.
    const std::vector<int64_t> sizes = {in_shape[0], in_shape[1],
                                        RandomInt(rng, (in_shape[2] + 7) / 8, 29),
                                        RandomInt(rng, (in_shape[3] + 7) / 8, 83)};
    SCOPED_TRACE(::testing::Message() << "iteration " << iter << " " << ShapeToString(in_shape)
                                      << " -> " << ShapeToString(sizes));
    NXRT_ASSERT_OK_AND_ASSIGN(ResizePlan plan,
                              PrepareResize(DataType::kFloat, in_shape, attr, {}, {}, sizes));
    ASSERT_TRUE(plan.planar);
    std::vector<double> in = testing::RandomVector<double>(rng, Count(in_shape), -2, 2);
    const std::vector<float> inf(in.begin(), in.end());
    std::vector<float> out(Count(plan.output_shape));
    NXRT_ASSERT_OK(Resize(plan, inf.data(), out.data()));
    // Reference: the last axis, then the one before, each with the 1-D formula.
    const int64_t h = in_shape[2], w = in_shape[3], oh = sizes[2], ow = sizes[3];
    const auto coordinate = [](int64_t o, int64_t n, int64_t m) {
      return (static_cast<double>(o) + 0.5) * static_cast<double>(n) / static_cast<double>(m) -
             0.5;
    };
    // The filter's scale: the downscale factor when antialiasing, else 1.
    const auto stretch = [&](int64_t m, int64_t n) {
      return attr.antialias ? std::min(1.0, static_cast<double>(m) / static_cast<double>(n)) : 1.0;
    };
    for (int64_t plane = 0; plane < in_shape[0] * in_shape[1]; ++plane) {
      std::vector<std::vector<double>> mid(h, std::vector<double>(ow));
      for (int64_t r = 0; r < h; ++r) {
        const std::vector<double> line(inf.begin() + plane * h * w + r * w,
                                       inf.begin() + plane * h * w + (r + 1) * w);
        for (int64_t c = 0; c < ow; ++c) {
          mid[r][c] = ReferenceFilter1D(line, coordinate(c, w, ow), attr.mode, -0.75,
                                        stretch(ow, w), attr.antialias);
        }
      }
      for (int64_t c = 0; c < ow; ++c) {
        std::vector<double> column(h);
        for (int64_t r = 0; r < h; ++r) column[r] = mid[r][c];
        for (int64_t r = 0; r < oh; ++r) {
          const double want = ReferenceFilter1D(column, coordinate(r, h, oh), attr.mode, -0.75,
                                                stretch(oh, h), attr.antialias);
          ASSERT_NEAR(out[(plane * oh + r) * ow + c], want, 1e-5 * (1 + std::fabs(want)))
              << "plane " << plane << " row " << r << " column " << c;
        }
      }
    }
    // Parts of the units, as threads run them, make the whole.
    std::vector<float> parts(out.size(), -1.0f);
    for (int64_t begin = 0; begin < plan.units; begin += 7) {
      ResizeUnits(plan, inf.data(), parts.data(), begin, begin + 7);
    }
    EXPECT_EQ(parts, out);
    // NaN and infinities against the double path.
    for (size_t i = 0; i < in.size(); ++i) {
      if (i % 17 == 3) in[i] = std::vector<double>{NAN, INFINITY, -INFINITY}[i % 3];
    }
    const std::vector<float> special(in.begin(), in.end());
    NXRT_ASSERT_OK(Resize(plan, special.data(), out.data()));
    NXRT_ASSERT_OK_AND_ASSIGN(ResizePlan wide,
                              PrepareResize(DataType::kDouble, in_shape, attr, {}, {}, sizes));
    ASSERT_FALSE(wide.planar);
    std::vector<double> want(out.size());
    NXRT_ASSERT_OK(Resize(wide, in.data(), want.data()));
    for (size_t i = 0; i < out.size(); ++i) {
      if (std::isnan(want[i])) {
        ASSERT_TRUE(std::isnan(out[i])) << "output " << i << ": " << out[i];
      } else if (std::isinf(want[i])) {
        ASSERT_EQ(out[i], want[i]) << "output " << i;
      } else {
        ASSERT_NEAR(out[i], want[i], 1e-5 * (1 + std::fabs(want[i]))) << "output " << i;
      }
    }
  }
}

// Opset 18 keep_aspect_ratio_policy: [2,2] -> sizes [7,8] on axes [2,3] of [1,1,2,2].
TEST(ResizeTest, KeepAspectRatioPolicy) {
  const std::vector<float> x = {1, 2, 3, 4};
  ResizeAttributes attr;
  attr.axes = {2, 3};
  attr.keep_aspect_ratio_policy = KeepAspectRatioPolicy::kNotLarger;
  const std::vector<int64_t> sizes = {7, 8};
  NXRT_ASSERT_OK_AND_ASSIGN(
      ResizePlan smaller, PrepareResize(DataType::kFloat, Shape{1, 1, 2, 2}, attr, {}, {}, sizes));
  EXPECT_EQ(smaller.output_shape, (Shape{1, 1, 7, 7}));
  std::vector<float> out(49);
  NXRT_ASSERT_OK(Resize(smaller, x.data(), out.data()));
  // Scale 3.5: (o + 0.5) / 3.5 - 0.5 rounds (prefer floor) to 0,0,0,0,1,1,1.
  EXPECT_EQ(std::vector<float>(out.begin(), out.begin() + 7),
            (std::vector<float>{1, 1, 1, 1, 2, 2, 2}));
  EXPECT_EQ(out[48], 4);
  attr.keep_aspect_ratio_policy = KeepAspectRatioPolicy::kNotSmaller;
  NXRT_ASSERT_OK_AND_ASSIGN(
      ResizePlan larger, PrepareResize(DataType::kFloat, Shape{1, 1, 2, 2}, attr, {}, {}, sizes));
  EXPECT_EQ(larger.output_shape, (Shape{1, 1, 8, 8}));
}

TEST(ResizeTest, TfCropAndResizeNearestExtrapolatesIntegersAndStrings) {
  // roi [0.5, 1.5] on a length-3 axis: coordinates 1, 2, 3 (outside), 4 (outside).
  ResizeAttributes attr;
  attr.mode = ResizeMode::kNearest;
  attr.coordinate_transformation_mode = ResizeCoordinateMode::kTfCropAndResize;
  attr.extrapolation_value = 300.0;
  const std::vector<double> roi = {0.5, 2.0};
  const std::vector<uint8_t> in = {10, 20, 30};
  NXRT_ASSERT_OK_AND_ASSIGN(ResizePlan plan, PrepareResize(DataType::kUint8, Shape{3}, attr, roi,
                                                           {}, std::vector<int64_t>{4}));
  std::vector<uint8_t> out(4);
  NXRT_ASSERT_OK(Resize(plan, in.data(), out.data()));
  EXPECT_EQ(out, (std::vector<uint8_t>{20, 30, 255, 255}));  // 300 saturates to 255

  const std::vector<std::string> words = {"a", "b", "c"};
  NXRT_ASSERT_OK_AND_ASSIGN(ResizePlan splan, PrepareResize(DataType::kString, Shape{3}, attr, roi,
                                                            {}, std::vector<int64_t>{4}));
  std::vector<std::string> sout(4);
  NXRT_ASSERT_OK(Resize(splan, words.data(), sout.data()));
  EXPECT_EQ(sout, (std::vector<std::string>{"b", "c", "", ""}));
}

// Issue 20: align_corners (and tf_crop_and_resize) with a scale whose product with the input
// length is not whole. The output length is floor(in * scale) and the last output maps onto the
// last input: x_original = x * (in - 1) / (out - 1), as ONNX Runtime 1.30 computes it. [0, 1, 2]
// at scale 2.5 gave [0, 0.31, ..., 1.85] (dividing by in * scale - 1 = 6.5).
TEST(ResizeTest, AlignCornersWithFractionalScaleAlignsTheLastOutput) {
  const std::vector<double> in = {0, 1, 2};
  for (ResizeMode mode : {ResizeMode::kLinear, ResizeMode::kCubic}) {
    for (ResizeCoordinateMode coordinates :
         {ResizeCoordinateMode::kAlignCorners, ResizeCoordinateMode::kTfCropAndResize}) {
      ResizeAttributes attr;
      attr.mode = mode;
      attr.coordinate_transformation_mode = coordinates;
      const std::vector<double> roi =
          coordinates == ResizeCoordinateMode::kTfCropAndResize ? std::vector<double>{0, 1}
                                                                : std::vector<double>{};
      NXRT_ASSERT_OK_AND_ASSIGN(
          ResizePlan plan, PrepareResize(DataType::kDouble, Shape{3}, attr, roi,
                                         std::vector<float>{2.5f}, {}));
      ASSERT_EQ(plan.output_shape, Shape{7});
      std::vector<double> out(7);
      NXRT_ASSERT_OK(Resize(plan, in.data(), out.data()));
      std::vector<double> expected;
      for (int64_t x = 0; x < 7; ++x) {
        expected.push_back(ReferenceFilter1D(in, static_cast<double>(x) * 2 / 6, mode, -0.75,
                                             1.0, false));
      }
      EXPECT_TRUE(AllClose(out, expected, 1e-12, 1e-12));
      EXPECT_DOUBLE_EQ(out.back(), 2.0);
    }
  }
  // The two ONNX 1.12 node tests this changes, with ONNX Runtime 1.30's outputs (the test data
  // holds 3.142857 and 2.3952, 3.7903, ... from in * scale - 1).
  ResizeAttributes attr;
  attr.mode = ResizeMode::kLinear;
  attr.coordinate_transformation_mode = ResizeCoordinateMode::kAlignCorners;
  const std::vector<float> x8 = {1, 2, 3, 4, 5, 6, 7, 8};
  NXRT_ASSERT_OK_AND_ASSIGN(ResizePlan linear,
                            PrepareResize(DataType::kFloat, Shape{1, 1, 2, 4}, attr, {},
                                          std::vector<float>{1, 1, 0.6f, 0.6f}, {}));
  std::vector<float> out2(2);
  NXRT_ASSERT_OK(Resize(linear, x8.data(), out2.data()));
  EXPECT_EQ(out2, (std::vector<float>{1, 4}));
  attr.mode = ResizeMode::kCubic;
  std::vector<float> x16(16);
  for (int i = 0; i < 16; ++i) x16[i] = static_cast<float>(i + 1);
  NXRT_ASSERT_OK_AND_ASSIGN(ResizePlan cubic,
                            PrepareResize(DataType::kFloat, Shape{1, 1, 4, 4}, attr, {},
                                          std::vector<float>{1, 1, 0.8f, 0.8f}, {}));
  std::vector<float> out9(9);
  NXRT_ASSERT_OK(Resize(cubic, x16.data(), out9.data()));
  EXPECT_TRUE(AllClose(out9, std::vector<float>{1, 2.5f, 4, 7, 8.5f, 10, 13, 14.5f, 16}, 1e-5,
                       1e-5));
}

TEST(ResizeTest, LinearOnIntegersRoundsAndSaturates) {
  ResizeAttributes attr;
  attr.mode = ResizeMode::kLinear;
  attr.coordinate_transformation_mode = ResizeCoordinateMode::kAlignCorners;
  const std::vector<int8_t> in = {-128, 127};
  NXRT_ASSERT_OK_AND_ASSIGN(ResizePlan plan, PrepareResize(DataType::kInt8, Shape{2}, attr, {}, {},
                                                           std::vector<int64_t>{5}));
  std::vector<int8_t> out(5);
  NXRT_ASSERT_OK(Resize(plan, in.data(), out.data()));
  // -128 + k * 63.75: -128, -64.25, -0.5, 63.25, 127 -> round half away from zero.
  EXPECT_EQ(out, (std::vector<int8_t>{-128, -64, -1, 63, 127}));
}

TEST(ResizeTest, Float16ComputesInFloat) {
  ResizeAttributes attr;
  attr.mode = ResizeMode::kLinear;
  const std::vector<Float16> in = {Float16(0.0f), Float16(1.0f)};
  NXRT_ASSERT_OK_AND_ASSIGN(ResizePlan plan, PrepareResize(DataType::kFloat16, Shape{2}, attr, {},
                                                           std::vector<float>{2.0f}, {}));
  std::vector<Float16> out(4);
  NXRT_ASSERT_OK(Resize(plan, in.data(), out.data()));
  // half_pixel coordinates -0.25, 0.25, 0.75, 1.25 -> 0, 0.25, 0.75, 1.
  EXPECT_EQ(static_cast<float>(out[1]), 0.25f);
  EXPECT_EQ(static_cast<float>(out[2]), 0.75f);
  EXPECT_EQ(static_cast<float>(out[3]), 1.0f);
}

TEST(ResizeTest, Errors) {
  ResizeAttributes attr;
  auto both = PrepareResize(DataType::kFloat, Shape{1, 2}, attr, {}, std::vector<float>{1, 2},
                            std::vector<int64_t>{1, 4});
  ASSERT_FALSE(both.ok());
  EXPECT_NE(both.status().message().find("exactly one"), std::string::npos);
  auto count = PrepareResize(DataType::kFloat, Shape{1, 2}, attr, {}, std::vector<float>{2}, {});
  ASSERT_FALSE(count.ok());
  EXPECT_NE(count.status().message().find("[1,2]"), std::string::npos);
  EXPECT_FALSE(
      PrepareResize(DataType::kFloat, Shape{4}, attr, {}, std::vector<float>{-1.0f}, {}).ok());
  attr.mode = ResizeMode::kLinear;
  EXPECT_FALSE(
      PrepareResize(DataType::kString, Shape{4}, attr, {}, std::vector<float>{2}, {}).ok());
  EXPECT_FALSE(ParseResizeMode("area").ok());
  EXPECT_FALSE(ParseResizeCoordinateMode("center").ok());
  EXPECT_FALSE(ParseResizeNearestMode("nearest").ok());
  EXPECT_FALSE(ParseKeepAspectRatioPolicy("fit").ok());
}

}  // namespace
}  // namespace nxrt::cpu::nn
