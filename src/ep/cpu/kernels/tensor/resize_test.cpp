// ep/cpu/kernels/tensor/resize_test.cpp: the Resize and Upsample kernels in every opset form:
// the ONNX backend node cases through the opset-13 kernel, issue 6's tie case, the legacy forms
// (Upsample 7 and 9, Resize 10) against a nearest reference, opset 11's empty inputs and opset
// 18's axes and keep_aspect_ratio_policy.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>

#include "ep/cpu/kernels/tensor/single_op_test_util.h"
#include "ep/cpu/math/tensor/resize.h"
#include "ep/cpu/math/tensor/testing/resize_onnx_cases.h"
#include "ep/cpu/math/testing/nn_test_util.h"

namespace nxrt::cpu::kernels::testing {
namespace {

using nn::ResizeCoordinateMode;
using nn::ResizeMode;
using nn::ResizeNearestMode;
using nn::testing::AllClose;
using nn::testing::Count;
using nn::testing::ForEachIndex;
using nn::testing::Offset;
using nn::testing::RandomVector;

using OnnxCase = nn::testing::ResizeOnnxCase;

// The attribute spellings of the math's enums.
std::string ModeName(ResizeMode m) {
  return m == ResizeMode::kNearest ? "nearest" : m == ResizeMode::kLinear ? "linear" : "cubic";
}
std::string CoordinateName(ResizeCoordinateMode m) {
  switch (m) {
    case ResizeCoordinateMode::kHalfPixel:
      return "half_pixel";
    case ResizeCoordinateMode::kHalfPixelSymmetric:
      return "half_pixel_symmetric";
    case ResizeCoordinateMode::kPytorchHalfPixel:
      return "pytorch_half_pixel";
    case ResizeCoordinateMode::kAlignCorners:
      return "align_corners";
    case ResizeCoordinateMode::kAsymmetric:
      return "asymmetric";
    case ResizeCoordinateMode::kTfHalfPixelForNn:
      return "tf_half_pixel_for_nn";
    case ResizeCoordinateMode::kTfCropAndResize:
      return "tf_crop_and_resize";
  }
  return "";
}
std::string NearestName(ResizeNearestMode m) {
  switch (m) {
    case ResizeNearestMode::kRoundPreferFloor:
      return "round_prefer_floor";
    case ResizeNearestMode::kRoundPreferCeil:
      return "round_prefer_ceil";
    case ResizeNearestMode::kFloor:
      return "floor";
    case ResizeNearestMode::kCeil:
      return "ceil";
    case ResizeNearestMode::kLegacy:
      break;
  }
  return "";
}

OpInput FloatInput(const std::vector<float>& v) {
  return Const(Tensor::FromVector<float>({static_cast<int64_t>(v.size())}, v).value());
}

TEST(ResizeKernel, OnnxBackendNodeCasesThroughOpset13) {
  for (const OnnxCase& c : nn::testing::kResizeOnnxCases) {
    SCOPED_TRACE(c.name);
    if (c.nearest_mode == ResizeNearestMode::kLegacy) continue;  // Upsample: the next test
    std::vector<float> roi(c.roi.begin(), c.roi.end());
    OpCase op{"Resize", 13,
              {In(Tensor::FromVector<float>(c.input_shape, c.input).value()),
               roi.empty() ? Omitted() : FloatInput(roi),
               c.scales.empty() ? Omitted() : FloatInput(c.scales),
               c.sizes.empty() ? Omitted() : ConstInts(c.sizes)},
              {StringAttr("mode", ModeName(c.mode)),
               StringAttr("coordinate_transformation_mode", CoordinateName(c.coordinate_mode)),
               StringAttr("nearest_mode", NearestName(c.nearest_mode)),
               FloatAttr("cubic_coeff_a", static_cast<float>(c.cubic_coeff_a)),
               IntAttr("exclude_outside", c.exclude_outside),
               FloatAttr("extrapolation_value", static_cast<float>(c.extrapolation_value))}};
    NXRT_ASSERT_OK_AND_ASSIGN(std::vector<Tensor> y, RunOp(op));
    ASSERT_EQ(y[0].shape(), c.output_shape);
    EXPECT_TRUE(AllClose(Values<float>(y[0]), c.output, 1e-5, 1e-5));
  }
}

TEST(ResizeKernel, OnnxUpsampleNearestCaseThroughUpsample9) {
  int ran = 0;
  for (const OnnxCase& c : nn::testing::kResizeOnnxCases) {
    if (c.nearest_mode != ResizeNearestMode::kLegacy) continue;
    SCOPED_TRACE(c.name);
    OpCase op{"Upsample", 9,
              {In(Tensor::FromVector<float>(c.input_shape, c.input).value()),
               FloatInput(c.scales)},
              {StringAttr("mode", ModeName(c.mode))}};
    NXRT_ASSERT_OK_AND_ASSIGN(std::vector<Tensor> y, RunOp(op));
    ASSERT_EQ(y[0].shape(), c.output_shape);
    EXPECT_TRUE(AllClose(Values<float>(y[0]), c.output, 1e-5, 1e-5));
    ++ran;
  }
  EXPECT_GT(ran, 0);
}

// Issue 6: nearest, half_pixel, sizes [1,1,1,6] from [1,1,1,20] with x[i] = i/19; 14.5 is an
// exact tie that nearest_mode decides.
std::vector<float> NearestFrom20To6(const std::string& nearest_mode) {
  std::vector<float> x(20);
  for (int i = 0; i < 20; ++i) x[i] = static_cast<float>(i) / 19.0f;
  OpCase op{"Resize", 13,
            {In(Tensor::FromVector<float>({1, 1, 1, 20}, x).value()), Omitted(), Omitted(),
             ConstInts({1, 1, 1, 6})},
            {StringAttr("mode", "nearest"), StringAttr("nearest_mode", nearest_mode)}};
  Result<std::vector<Tensor>> y = RunOp(op);
  EXPECT_TRUE(y.ok()) << y.status().ToString();
  if (!y.ok()) return {};
  return Values<float>((*y)[0]);
}

std::vector<float> Over19(std::vector<int> indices) {
  std::vector<float> out;
  for (int i : indices) out.push_back(static_cast<float>(i) / 19.0f);
  return out;
}

TEST(ResizeKernel, Issue6NearestTieRoundPreferCeil) {
  EXPECT_EQ(NearestFrom20To6("round_prefer_ceil"), Over19({1, 5, 8, 11, 15, 18}));
}

TEST(ResizeKernel, Issue6NearestTieRoundPreferFloor) {
  EXPECT_EQ(NearestFrom20To6("round_prefer_floor"), Over19({1, 4, 8, 11, 14, 18}));
}

// Opset 7-10 nearest: out dim floor(in * scale), source o / scale (asymmetric) rounded down on an
// upsampled or kept axis and up on a downsampled one (the Resize-10 example: 4 -> 2 at 0.6 reads
// 0 and 2), clamped to the axis.
std::vector<float> LegacyNearestRef(const std::vector<float>& x, const Shape& shape,
                                    const std::vector<float>& scales, Shape& out_shape) {
  out_shape.clear();
  for (size_t d = 0; d < shape.size(); ++d) {
    out_shape.push_back(static_cast<int64_t>(std::floor(shape[d] * static_cast<double>(scales[d]))));
  }
  std::vector<float> out(Count(out_shape));
  ForEachIndex(out_shape, [&](const std::vector<int64_t>& i) {
    std::vector<int64_t> j(i.size());
    for (size_t d = 0; d < i.size(); ++d) {
      const double x = i[d] / static_cast<double>(scales[d]);
      j[d] = std::min<int64_t>(shape[d] - 1, static_cast<int64_t>(scales[d] < 1.0f ? std::ceil(x)
                                                                                  : std::floor(x)));
    }
    out[Offset(out_shape, i)] = x[Offset(shape, j)];
  });
  return out;
}

TEST(ResizeKernel, LegacyNearestFormsMatchReference) {
  std::mt19937 rng(81);
  const float choices[] = {0.5f, 1.0f, 1.5f, 2.0f, 3.0f, 0.75f};
  for (int iter = 0; iter < 24; ++iter) {
    const Shape shape = {1, nn::testing::RandomInt(rng, 1, 2), nn::testing::RandomInt(rng, 2, 5),
                         nn::testing::RandomInt(rng, 2, 5)};
    const std::vector<float> scales = {1.0f, 1.0f, choices[iter % 6], choices[(iter / 6) % 6]};
    const std::vector<float> x = nn::testing::RandomVector<float>(rng, Count(shape));
    const Tensor input = Tensor::FromVector<float>(shape, x).value();
    OpCase op;
    switch (iter % 3) {
      case 0:
        op = {"Upsample", 7, {In(input)}, {FloatsAttr("scales", scales)}};
        break;
      case 1:
        op = {"Upsample", 9, {In(input), FloatInput(scales)}, {StringAttr("mode", "nearest")}};
        break;
      default:
        op = {"Resize", 10, {In(input), FloatInput(scales)}};
        break;
    }
    Shape out_shape;
    const std::vector<float> expected = LegacyNearestRef(x, shape, scales, out_shape);
    NXRT_ASSERT_OK_AND_ASSIGN(std::vector<Tensor> y, RunOp(op));
    EXPECT_EQ(y[0].shape(), out_shape) << op.op_type << " " << op.opset;
    EXPECT_EQ(Values<float>(y[0]), expected) << op.op_type << " " << op.opset;
  }
}

TEST(ResizeKernel, Opset10LinearIsAsymmetric) {
  // [1, 2] upsampled by 2 with asymmetric coordinates: x(o) = o / 2 -> 1, 1.5, 2, 2 (clamped).
  OpCase op{"Resize", 10,
            {In(Tensor::FromVector<float>({1, 2}, {1, 2}).value()), FloatInput({1, 2})},
            {StringAttr("mode", "linear")}};
  NXRT_ASSERT_OK_AND_ASSIGN(std::vector<Tensor> y, RunOp(op));
  EXPECT_EQ(Values<float>(y[0]), (std::vector<float>{1, 1.5f, 2, 2}));
}

TEST(ResizeKernel, Opset11EmptyRoiAndScalesWithSizes) {
  OpCase op{"Resize", 11,
            {In(Tensor::FromVector<float>({1, 1, 2, 2}, {1, 2, 3, 4}).value()),
             Const(Tensor::Allocate(DataType::kFloat, {0}).value()),
             Const(Tensor::Allocate(DataType::kFloat, {0}).value()), ConstInts({1, 1, 4, 4})},
            {StringAttr("mode", "linear")}};
  NXRT_ASSERT_OK_AND_ASSIGN(std::vector<Tensor> y, RunOp(op));
  EXPECT_EQ(Values<float>(y[0]), (std::vector<float>{1, 1.25f, 1.75f, 2, 1.5f, 1.75f, 2.25f,
                                                     2.5f, 2.5f, 2.75f, 3.25f, 3.5f, 3,
                                                     3.25f, 3.75f, 4}));
}

// The float image resize (math/tensor/resize.h's planar plan, output rows split across threads)
// at one and two threads against the same op in double (the reference path, tested against the
// spec formulas): linear up, cubic down, antialiased linear down; odd sizes; NaN, +inf and -inf
// in the input land on the same outputs.
TEST(ResizeKernel, FloatImageResizeMatchesDoubleAtOneAndTwoThreads) {
  std::mt19937 rng(41);
  struct Case {
    const char* mode;
    bool antialias;
    Shape x;
    std::vector<int64_t> sizes;
  };
  const Case cases[] = {{"linear", false, {1, 24, 37, 41}, {1, 24, 75, 83}},
                        {"cubic", false, {2, 5, 61, 53}, {2, 5, 29, 31}},
                        {"linear", true, {1, 7, 64, 96}, {1, 7, 21, 37}}};
  for (const Case& c : cases) {
    std::vector<double> x = RandomVector<double>(rng, Count(c.x), -2, 2);
    const double specials[] = {NAN, INFINITY, -INFINITY};
    for (size_t i = 0; i < x.size(); i += 211) x[i] = specials[i % 3];
    const std::vector<float> xf(x.begin(), x.end());
    std::vector<AttributeValue> attributes = {StringAttr("mode", c.mode)};
    if (c.antialias) attributes.push_back(IntAttr("antialias", 1));
    const auto op = [&](Tensor input) {
      return OpCase{"Resize", 18,
                    {In(std::move(input)), Omitted(), Omitted(), ConstInts(c.sizes)}, attributes};
    };
    NXRT_ASSERT_OK_AND_ASSIGN(std::vector<Tensor> wide,
                              RunOp(op(Tensor::FromVector<double>(c.x, x).value())));
    const std::vector<double> want = Values<double>(wide[0]);
    for (int threads : {1, 2}) {
      SCOPED_TRACE(::testing::Message() << c.mode << " " << ShapeToString(c.x) << " at "
                                        << threads << " thread(s)");
      NXRT_ASSERT_OK_AND_ASSIGN(
          std::vector<Tensor> y,
          RunOp(op(Tensor::FromVector<float>(c.x, xf).value()), AsWritten(threads)));
      ASSERT_EQ(y[0].shape(), Shape(c.sizes.begin(), c.sizes.end()));
      const std::vector<float> got = Values<float>(y[0]);
      for (size_t i = 0; i < got.size(); ++i) {
        if (std::isnan(want[i])) {
          ASSERT_TRUE(std::isnan(got[i])) << "output " << i << ": " << got[i];
        } else if (std::isinf(want[i])) {
          ASSERT_EQ(got[i], want[i]) << "output " << i;
        } else {
          ASSERT_NEAR(got[i], want[i], 1e-5 * (1 + std::fabs(want[i]))) << "output " << i;
        }
      }
    }
  }
}

TEST(ResizeKernel, Opset18AxesAndKeepAspectRatioPolicy) {
  const Tensor x = Tensor::Allocate(DataType::kFloat, {1, 1, 4, 8}).value();
  OpCase op{"Resize", 18,
            {In(x), Omitted(), Omitted(), ConstInts({2, 2})},
            {IntsAttr("axes", {-2, 3}), StringAttr("keep_aspect_ratio_policy", "not_larger")}};
  NXRT_ASSERT_OK_AND_ASSIGN(std::vector<Tensor> y, RunOp(op));
  EXPECT_EQ(y[0].shape(), (Shape{1, 1, 1, 2}));
  op.attributes[1] = StringAttr("keep_aspect_ratio_policy", "not_smaller");
  NXRT_ASSERT_OK_AND_ASSIGN(std::vector<Tensor> larger, RunOp(op));
  EXPECT_EQ(larger[0].shape(), (Shape{1, 1, 2, 4}));
}

TEST(ResizeKernel, BadAttributesNameTheAttribute) {
  OpCase op{"Resize", 13,
            {In(Tensor::Allocate(DataType::kFloat, {1, 2}).value()), Omitted(), FloatInput({1, 2})},
            {StringAttr("coordinate_transformation_mode", "corners")}};
  Result<std::vector<Tensor>> y = RunOp(op);
  ASSERT_FALSE(y.ok());
  EXPECT_EQ(y.status().code(), StatusCode::kInvalidModel);
  EXPECT_NE(y.status().message().find("attribute 'coordinate_transformation_mode' is 'corners'"),
            std::string::npos)
      << y.status().message();
}

TEST(ResizeKernel, UpsampleIsNotDefinedAtOpset10) {
  OpCase op{"Upsample", 10,
            {In(Tensor::Allocate(DataType::kFloat, {1, 2}).value()), FloatInput({1, 2})}};
  Result<std::vector<Tensor>> y = RunOp(op);
  ASSERT_FALSE(y.ok());
  EXPECT_EQ(y.status().code(), StatusCode::kInvalidModel);  // deprecated: the schema check
}

}  // namespace
}  // namespace nxrt::cpu::kernels::testing
