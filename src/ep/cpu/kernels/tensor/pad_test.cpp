// ep/cpu/kernels/tensor/pad_test.cpp: the Pad kernel in its attribute (opset 1, 2) and input
// (opset 11, 18 axes, 19 wrap) forms and every mode, against a reference written from the ONNX
// definition.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>

#include "ep/cpu/kernels/tensor/single_op_test_util.h"
#include "ep/cpu/math/testing/nn_test_util.h"

namespace nxrt::cpu::kernels::testing {
namespace {

using nn::testing::Count;
using nn::testing::ForEachIndex;
using nn::testing::Offset;
using nn::testing::RandomInt;
using nn::testing::RandomShape;
using nn::testing::RandomVector;

// The input index output index `o` of one axis reads (-1: the constant). Negative pads crop.
int64_t SourceIndex(const std::string& mode, int64_t dim, int64_t begin, int64_t end, int64_t o) {
  const int64_t first = std::max<int64_t>(0, -begin);
  const int64_t len = dim - first - std::max<int64_t>(0, -end);
  const int64_t t = o - std::max<int64_t>(0, begin);
  if (t >= 0 && t < len) return first + t;
  if (mode == "constant") return -1;
  if (mode == "edge") return first + std::clamp<int64_t>(t, 0, len - 1);
  if (mode == "wrap") return first + ((t % len) + len) % len;
  if (len == 1) return first;
  const int64_t period = 2 * (len - 1);
  const int64_t m = ((t % period) + period) % period;
  return first + (m < len ? m : period - m);
}

// Pads `x` on the axes `axes` with pads [begins..., ends...].
std::vector<float> PadRef(const std::vector<float>& x, const Shape& shape,
                          const std::vector<int64_t>& pads, const std::vector<int64_t>& axes,
                          const std::string& mode, float value, Shape& out_shape) {
  const size_t r = shape.size();
  std::vector<int64_t> begin(r, 0), end(r, 0);
  for (size_t k = 0; k < axes.size(); ++k) {
    const size_t a = static_cast<size_t>(axes[k] < 0 ? axes[k] + static_cast<int64_t>(r) : axes[k]);
    begin[a] = pads[k];
    end[a] = pads[k + axes.size()];
  }
  out_shape = shape;
  for (size_t a = 0; a < r; ++a) out_shape[a] += begin[a] + end[a];
  std::vector<float> out(Count(out_shape));
  ForEachIndex(out_shape, [&](const std::vector<int64_t>& i) {
    std::vector<int64_t> j(r);
    bool constant = false;
    for (size_t a = 0; a < r; ++a) {
      j[a] = SourceIndex(mode, shape[a], begin[a], end[a], i[a]);
      constant = constant || j[a] < 0;
    }
    out[Offset(out_shape, i)] = constant ? value : x[Offset(shape, j)];
  });
  return out;
}

TEST(PadKernel, EveryModeAndFormMatchesReference) {
  std::mt19937 rng(71);
  const std::string modes[] = {"constant", "reflect", "edge", "wrap"};
  for (int iter = 0; iter < 60; ++iter) {
    const std::string& mode = modes[iter % 4];
    const int64_t r = RandomInt(rng, 1, 3);
    const Shape shape = RandomShape(rng, r, 3, 5);
    const int64_t opset = mode == "wrap" ? 19 : std::vector<int64_t>{2, 11, 18}[iter % 3];
    std::vector<int64_t> axes;
    for (int64_t a = 0; a < r; ++a) axes.push_back(a);
    if (opset >= 18 && r > 1) axes = {RandomInt(rng, 0, 1) ? -1 : r - 1, 0};
    std::vector<int64_t> pads;
    // Reflect reaches at most len - 1 out (PadKernel.ReflectRulesOfOrt130); dims are >= 3.
    const int64_t most = mode == "reflect" ? 1 : 4;
    for (size_t k = 0; k < 2 * axes.size(); ++k) pads.push_back(RandomInt(rng, -1, most));
    const std::vector<float> x = RandomVector<float>(rng, Count(shape));
    const float value = mode == "constant" ? 2.5f : 0.0f;
    OpCase op{"Pad", opset, {In(Tensor::FromVector<float>(shape, x).value())},
              {StringAttr("mode", mode)}};
    if (opset < 11) {
      op.attributes.push_back(IntsAttr("pads", pads));
      op.attributes.push_back(FloatAttr("value", value));
    } else {
      op.inputs.push_back(ConstInts(pads));
      op.inputs.push_back(iter % 2 ? In(Tensor::Scalar<float>(value)) : Omitted());
      if (opset >= 18) op.inputs.push_back(ConstInts(axes));
    }
    const float fill = opset < 11 || iter % 2 ? value : 0.0f;
    Shape out_shape;
    const std::vector<float> expected = PadRef(x, shape, pads, axes, mode, fill, out_shape);
    NXRT_ASSERT_OK_AND_ASSIGN(std::vector<Tensor> y, RunOp(op));
    EXPECT_EQ(y[0].shape(), out_shape) << mode << " opset " << opset;
    EXPECT_EQ(Values<float>(y[0]), expected) << mode << " opset " << opset;
  }
}

// Every (begin, end) pad pair in [-4, 4] on [0, 1, 2, 3] in reflect mode: accepted exactly when
// the cropped axis keeps at least 2 elements and each positive pad is at most its length - 1 (what
// ONNX Runtime 1.30 accepts), then equal to the ONNX definition (SourceIndex); mixed pads crop
// first: [-3, 3] leaves [3] and is refused, where nxrt once gave [3, 3, 3, 3]. ORT 1.30's values
// for two of them: [2, 1] -> [2, 1, 0, 1, 2, 3, 2], [-1, 2] -> [1, 2, 3, 2, 1].
TEST(PadKernel, ReflectRulesOfOrt130) {
  const std::vector<float> x = {0, 1, 2, 3};
  int refused = 0;
  for (int64_t begin = -4; begin <= 4; ++begin) {
    for (int64_t end = -4; end <= 4; ++end) {
      const int64_t len = 4 - std::max<int64_t>(0, -begin) - std::max<int64_t>(0, -end);
      if (len < 0) continue;  // crops past the axis: a different error
      const bool pads = begin > 0 || end > 0;
      const bool valid = !pads || (len >= 2 && begin <= len - 1 && end <= len - 1);
      OpCase op{"Pad", 13, {In(Tensor::FromVector<float>({4}, x).value()), ConstInts({begin, end})},
                {StringAttr("mode", "reflect")}};
      Result<std::vector<Tensor>> y = RunOp(op);
      if (!valid) {
        ++refused;
        ASSERT_FALSE(y.ok()) << begin << "," << end;
        const std::string& m = y.status().message();
        EXPECT_TRUE(m.find(len == 0 ? "no elements to repeat" : "reflect") != std::string::npos) << m;
        continue;
      }
      ASSERT_TRUE(y.ok()) << begin << "," << end << ": " << y.status().ToString();
      std::vector<float> expected;
      const int64_t out = 4 + begin + end;
      for (int64_t o = 0; o < out; ++o) expected.push_back(x[SourceIndex("reflect", 4, begin, end, o)]);
      EXPECT_EQ(Values<float>((*y)[0]), expected) << begin << "," << end;
    }
  }
  EXPECT_GT(refused, 0);
  OpCase ort_a{"Pad", 13, {In(Tensor::FromVector<float>({4}, x).value()), ConstInts({2, 1})},
               {StringAttr("mode", "reflect")}};
  NXRT_ASSERT_OK_AND_ASSIGN(std::vector<Tensor> a, RunOp(ort_a));
  EXPECT_EQ(Values<float>(a[0]), (std::vector<float>{2, 1, 0, 1, 2, 3, 2}));
  OpCase ort_b{"Pad", 13, {In(Tensor::FromVector<float>({4}, x).value()), ConstInts({-1, 2})},
               {StringAttr("mode", "reflect")}};
  NXRT_ASSERT_OK_AND_ASSIGN(std::vector<Tensor> b, RunOp(ort_b));
  EXPECT_EQ(Values<float>(b[0]), (std::vector<float>{1, 2, 3, 2, 1}));
}

TEST(PadKernel, Opset1ReadsPaddingsAndConvertsTheValue) {
  OpCase op{"Pad", 1, {In(Tensor::FromVector<double>({2}, {1, 2}).value())},
            {IntsAttr("paddings", {1, 2}), FloatAttr("value", -1.5f)}};
  NXRT_ASSERT_OK_AND_ASSIGN(std::vector<Tensor> y, RunOp(op));
  EXPECT_EQ(Values<double>(y[0]), (std::vector<double>{-1.5, 1, 2, -1.5, -1.5}));
}

TEST(PadKernel, StringsPadWithTheConstantInput) {
  OpCase op{"Pad", 13,
            {In(Tensor::FromVector<std::string>({2}, {"a", "b"}).value()), ConstInts({1, 0}),
             In(Tensor::Scalar<std::string>("z"))}};
  NXRT_ASSERT_OK_AND_ASSIGN(std::vector<Tensor> y, RunOp(op));
  EXPECT_EQ(Values<std::string>(y[0]), (std::vector<std::string>{"z", "a", "b"}));
}

TEST(PadKernel, WrapNeedsOpset19AndBadModesNameTheAttribute) {
  OpCase op{"Pad", 18, {In(Tensor::Allocate(DataType::kFloat, {2}).value()), ConstInts({1, 1})},
            {StringAttr("mode", "wrap")}};
  Result<std::vector<Tensor>> wrap = RunOp(op);
  ASSERT_FALSE(wrap.ok());
  EXPECT_NE(wrap.status().message().find("opset 19"), std::string::npos);
  op.attributes = {StringAttr("mode", "mirror")};
  Result<std::vector<Tensor>> bad = RunOp(op);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidModel);
  EXPECT_NE(bad.status().message().find("attribute 'mode' is 'mirror'"), std::string::npos)
      << bad.status().message();
}

TEST(PadKernel, PadsOfTheWrongLengthAreAnError) {
  OpCase op{"Pad", 13, {In(Tensor::Allocate(DataType::kFloat, {2, 2}).value()), ConstInts({1, 1})}};
  EXPECT_FALSE(RunOp(op).ok());
}

}  // namespace
}  // namespace nxrt::cpu::kernels::testing
