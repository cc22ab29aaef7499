// ep/cpu/kernels/nn/max_roi_pool_test.cpp: MaxRoiPool run as a one-node model against a
// reference written in the test from the definition (math/nn/max_roi_pool.h) on random images,
// rois, pooled shapes and scales (fixed seed) in float16, float and double, and in float against
// ONNX Runtime 1.30.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "ep/cpu/kernels/tensor/single_op_test_util.h"
#include "ep/cpu/math/testing/nn_test_util.h"
#include "ep/cpu/testing/single_op_model.h"
#include "ort_oracle/ort_oracle.h"

namespace nxrt::cpu::kernels::testing {
namespace {

using nn::testing::RandomInt;

constexpr double kInf = std::numeric_limits<double>::infinity();

// One random problem; every value a multiple of 1/64 (coordinates of 1/4) within a few units, so
// float16, float and double hold it exactly and scaled corners round the same way in each.
struct Problem {
  int64_t n, c, h, w, rois, pooled_h, pooled_w;
  float scale;
  std::vector<double> x;      // [n, c, h, w]
  std::vector<double> boxes;  // [rois, 5]
};

Problem RandomProblem(std::mt19937& rng) {
  Problem p;
  p.n = RandomInt(rng, 1, 2);
  p.c = RandomInt(rng, 1, 3);
  p.h = RandomInt(rng, 1, 8);
  p.w = RandomInt(rng, 1, 8);
  p.rois = RandomInt(rng, 1, 4);
  p.pooled_h = RandomInt(rng, 1, 4);
  p.pooled_w = RandomInt(rng, 1, 4);
  p.scale = std::vector<float>{0.25f, 0.5f, 1.0f, 2.0f}[RandomInt(rng, 0, 3)];
  for (int64_t i = 0; i < p.n * p.c * p.h * p.w; ++i)
    p.x.push_back(RandomInt(rng, -128, 128) / 64.0);
  for (int64_t r = 0; r < p.rois; ++r) {
    p.boxes.push_back(static_cast<double>(RandomInt(rng, 0, p.n - 1)));
    // Corners from before the image to past its far side, in image pixels before scaling.
    const double extent = std::max(p.h, p.w) / p.scale;
    for (int k = 0; k < 4; ++k) p.boxes.push_back(RandomInt(rng, -8, 4 * extent + 8) / 4.0);
  }
  return p;
}

// Y of the definition.
std::vector<double> Reference(const Problem& p) {
  std::vector<double> y;
  for (int64_t r = 0; r < p.rois; ++r) {
    const double* b = &p.boxes[r * 5];
    const auto corner = [&](double v) { return static_cast<int64_t>(std::round(v * p.scale)); };
    const int64_t x1 = corner(b[1]), y1 = corner(b[2]), x2 = corner(b[3]), y2 = corner(b[4]);
    const float bin_h = static_cast<float>(std::max<int64_t>(y2 - y1 + 1, 1)) / p.pooled_h;
    const float bin_w = static_cast<float>(std::max<int64_t>(x2 - x1 + 1, 1)) / p.pooled_w;
    for (int64_t ch = 0; ch < p.c; ++ch) {
      const double* image = &p.x[(static_cast<int64_t>(b[0]) * p.c + ch) * p.h * p.w];
      for (int64_t i = 0; i < p.pooled_h; ++i) {
        for (int64_t j = 0; j < p.pooled_w; ++j) {
          const auto clip = [](int64_t v, int64_t size) { return std::clamp<int64_t>(v, 0, size); };
          const int64_t top = clip(y1 + static_cast<int64_t>(std::floor(i * bin_h)), p.h);
          const int64_t bottom = clip(y1 + static_cast<int64_t>(std::ceil((i + 1) * bin_h)), p.h);
          const int64_t left = clip(x1 + static_cast<int64_t>(std::floor(j * bin_w)), p.w);
          const int64_t right = clip(x1 + static_cast<int64_t>(std::ceil((j + 1) * bin_w)), p.w);
          double v = top < bottom && left < right ? -kInf : 0.0;
          for (int64_t yy = top; yy < bottom; ++yy) {
            for (int64_t xx = left; xx < right; ++xx) v = std::max(v, image[yy * p.w + xx]);
          }
          y.push_back(v);
        }
      }
    }
  }
  return y;
}

template <typename T>
Tensor Make(const Shape& shape, const std::vector<double>& values) {
  std::vector<T> typed;
  for (double v : values) typed.push_back(static_cast<T>(static_cast<float>(v)));
  return Tensor::FromVector<T>(shape, typed).value();
}

template <typename T>
std::vector<double> AsDoubles(const Tensor& t) {
  std::vector<double> out;
  for (const T v : Values<T>(t)) out.push_back(static_cast<double>(static_cast<float>(v)));
  return out;
}

cpu::testing::SingleOpModel Model(const Problem& p, const Tensor& x, const Tensor& rois) {
  cpu::testing::SingleOpModel model("MaxRoiPool", 1);
  model.AddInput(In(x)).AddInput(In(rois)).AddOutput(x.dtype());
  model.AddAttribute(IntsAttr("pooled_shape", {p.pooled_h, p.pooled_w}));
  model.AddAttribute(FloatAttr("spatial_scale", p.scale));
  return model;
}

template <typename T>
void ExpectMatchesReference(std::mt19937& rng, int iterations) {
  for (int iter = 0; iter < iterations; ++iter) {
    const Problem p = RandomProblem(rng);
    const Tensor x = Make<T>({p.n, p.c, p.h, p.w}, p.x);
    NXRT_ASSERT_OK_AND_ASSIGN(std::vector<Tensor> y,
                              Model(p, x, Make<T>({p.rois, 5}, p.boxes)).Run());
    ASSERT_EQ(y[0].shape(), (Shape{p.rois, p.c, p.pooled_h, p.pooled_w}));
    EXPECT_EQ(AsDoubles<T>(y[0]), Reference(p))
        << DataTypeName(x.dtype()) << " iter " << iter;
  }
}

TEST(MaxRoiPoolKernel, RandomRoisMatchReferenceInEveryType) {
  std::mt19937 rng(2207);
  ExpectMatchesReference<float>(rng, 40);
  ExpectMatchesReference<double>(rng, 20);
  ExpectMatchesReference<Float16>(rng, 20);
}

TEST(MaxRoiPoolKernel, FloatMatchesOnnxRuntime) {
  NXRT_ASSERT_OK_AND_ASSIGN(oracle::OrtOracle ort, oracle::OrtOracle::Load());
  std::mt19937 rng(2208);
  const std::string path = ::testing::TempDir() + "nxrt_max_roi_pool_test.onnx";
  for (int iter = 0; iter < 20; ++iter) {
    const Problem p = RandomProblem(rng);
    const Tensor x = Make<float>({p.n, p.c, p.h, p.w}, p.x);
    const Tensor rois = Make<float>({p.rois, 5}, p.boxes);
    const cpu::testing::SingleOpModel model = Model(p, x, rois);
    NXRT_ASSERT_OK_AND_ASSIGN(std::string bytes, model.Serialize());
    std::ofstream(path, std::ios::binary) << bytes;
    NXRT_ASSERT_OK_AND_ASSIGN(std::vector<NamedTensor> expected,
                              ort.Run(path, {{"x0", x}, {"x1", rois}}));
    NXRT_ASSERT_OK_AND_ASSIGN(std::vector<Tensor> y, model.Run());
    EXPECT_EQ(AsDoubles<float>(expected[0].tensor), Reference(p)) << "iter " << iter;
    EXPECT_EQ(AsDoubles<float>(y[0]), AsDoubles<float>(expected[0].tensor)) << "iter " << iter;
  }
  std::remove(path.c_str());
}

TEST(MaxRoiPoolKernel, BatchIndexOutsideTheImagesNamesTheRoi) {
  OpCase op{"MaxRoiPool",
            1,
            {In(Tensor::FromVector<float>({1, 1, 2, 2}, {1, 2, 3, 4}).value()),
             In(Tensor::FromVector<float>({2, 5}, {0, 0, 0, 1, 1, 1, 0, 0, 1, 1}).value())},
            {IntsAttr("pooled_shape", {1, 1})}};
  const Result<std::vector<Tensor>> y = RunOp(op);
  ASSERT_FALSE(y.ok());
  EXPECT_NE(y.status().message().find("rois[1] has batch index 1 but X has 1 images"),
            std::string::npos)
      << y.status().ToString();
}

TEST(MaxRoiPoolKernel, BadAttributesAreInvalidModels) {
  for (const std::vector<AttributeValue>& attributes :
       {std::vector<AttributeValue>{IntsAttr("pooled_shape", {2})},
        std::vector<AttributeValue>{IntsAttr("pooled_shape", {2, 0})},
        std::vector<AttributeValue>{IntsAttr("pooled_shape", {2, 2}),
                                    FloatAttr("spatial_scale", 0.0f)}}) {
    OpCase op{"MaxRoiPool",
              1,
              {In(Tensor::FromVector<float>({1, 1, 2, 2}, {1, 2, 3, 4}).value()),
               In(Tensor::FromVector<float>({1, 5}, {0, 0, 0, 1, 1}).value())},
              attributes};
    const Result<std::vector<Tensor>> y = RunOp(op);
    ASSERT_FALSE(y.ok());
    EXPECT_NE(y.status().message().find("pooled_shape"), std::string::npos)
        << y.status().ToString();
  }
}

}  // namespace
}  // namespace nxrt::cpu::kernels::testing
