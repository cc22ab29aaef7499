// ep/cpu/kernels/nn/pool_test.cpp: the pooling kernels at each opset form (attributes an opset
// has, MaxPool's Indices output, int8 from opset 12), issue 6's AveragePool ceil_mode case, and
// random windows against a reference written from the ONNX definitions.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>

#include "ep/cpu/kernels/tensor/single_op_test_util.h"
#include "ep/cpu/nn/nn_test_util.h"

namespace nxrt::cpu::kernels::testing {
namespace {

using nn::testing::AllClose;
using nn::testing::Count;
using nn::testing::ForEachIndex;
using nn::testing::Offset;
using nn::testing::RandomInt;
using nn::testing::RandomVector;

// Issue 6: AveragePool 1-D [1,2,3,4,5], kernel 2, stride 2, ceil_mode=1, no pads.
TEST(AveragePoolKernel, Issue6CeilModeLastWindowAveragesItsOneElement) {
  for (int64_t opset : {10, 11, 19}) {
    OpCase op{"AveragePool", opset,
              {In(Tensor::FromVector<float>({1, 1, 5}, {1, 2, 3, 4, 5}).value())},
              {IntsAttr("kernel_shape", {2}), IntsAttr("strides", {2}), IntAttr("ceil_mode", 1)}};
    NXRT_ASSERT_OK_AND_ASSIGN(std::vector<Tensor> y, RunOp(op));
    EXPECT_EQ(y[0].shape(), (Shape{1, 1, 3})) << "opset " << opset;
    EXPECT_EQ(Values<float>(y[0]), (std::vector<float>{1.5f, 3.5f, 5.0f})) << "opset " << opset;
  }
}

TEST(AveragePoolKernel, CeilModeIsNotAnAttributeBeforeOpset10) {
  OpCase op{"AveragePool", 7, {In(Tensor::FromVector<float>({1, 1, 5}, {1, 2, 3, 4, 5}).value())},
            {IntsAttr("kernel_shape", {2}), IntsAttr("strides", {2}), IntAttr("ceil_mode", 1)}};
  NXRT_ASSERT_OK_AND_ASSIGN(std::vector<Tensor> y, RunOp(op));
  EXPECT_EQ(Values<float>(y[0]), (std::vector<float>{1.5f, 3.5f}));
}

struct Window {
  Shape x;
  std::vector<int64_t> kernel, strides, dilations, pads_begin, pads_end;
  bool ceil_mode = false;
};

Window RandomWindow(std::mt19937& rng, bool dilated) {
  Window w;
  const size_t sp = static_cast<size_t>(RandomInt(rng, 1, 3));
  w.x = {RandomInt(rng, 1, 2), RandomInt(rng, 1, 3)};
  for (size_t d = 0; d < sp; ++d) {
    w.kernel.push_back(RandomInt(rng, 1, 3));
    w.strides.push_back(RandomInt(rng, 1, 2));
    w.dilations.push_back(dilated ? RandomInt(rng, 1, 2) : 1);
    // Pads smaller than the kernel, as the spec requires.
    w.pads_begin.push_back(RandomInt(rng, 0, w.kernel.back() - 1));
    w.pads_end.push_back(RandomInt(rng, 0, w.kernel.back() - 1));
    w.x.push_back((w.kernel.back() - 1) * w.dilations.back() + 1 + RandomInt(rng, 0, 4));
  }
  w.ceil_mode = RandomInt(rng, 0, 1);
  return w;
}

// Output dims per window.h: floor or ceil, a ceil window starting past the input and its begin
// padding dropped.
Shape OutputShape(const Window& w) {
  Shape y = {w.x[0], w.x[1]};
  for (size_t d = 0; d < w.kernel.size(); ++d) {
    const int64_t in = w.x[2 + d], dk = (w.kernel[d] - 1) * w.dilations[d] + 1;
    const int64_t span = in + w.pads_begin[d] + w.pads_end[d] - dk;
    int64_t out = (w.ceil_mode ? (span + w.strides[d] - 1) / w.strides[d] : span / w.strides[d]) + 1;
    if (w.ceil_mode && (out - 1) * w.strides[d] >= in + w.pads_begin[d]) --out;
    y.push_back(out);
  }
  return y;
}

std::vector<int64_t> Concat(std::vector<int64_t> a, const std::vector<int64_t>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

// kind: "max", "avg", "avg_pad" (count_include_pad), "lp1", "lp2". Indices: row-major flat index
// of each maximum.
std::vector<double> PoolRef(const Window& w, const std::string& kind, const std::vector<float>& x,
                            std::vector<int64_t>* indices) {
  const Shape y_shape = OutputShape(w);
  std::vector<double> y(Count(y_shape));
  ForEachIndex(y_shape, [&](const std::vector<int64_t>& o) {
    double acc = kind == "max" ? -INFINITY : 0.0;
    int64_t count = 0, padded = 0, best = -1;
    ForEachIndex(w.kernel, [&](const std::vector<int64_t>& k) {
      std::vector<int64_t> xi = {o[0], o[1]};
      bool inside = true, in_padded = true;
      for (size_t d = 0; d < w.kernel.size(); ++d) {
        const int64_t pos = o[2 + d] * w.strides[d] - w.pads_begin[d] + k[d] * w.dilations[d];
        inside = inside && pos >= 0 && pos < w.x[2 + d];
        in_padded = in_padded && pos < w.x[2 + d] + w.pads_end[d];
        xi.push_back(pos);
      }
      padded += in_padded;
      if (!inside) return;
      const int64_t at = Offset(w.x, xi);
      const double v = x[at];
      ++count;
      if (kind == "max") {
        if (v > acc) {
          acc = v;
          best = at;
        }
      } else if (kind == "lp1") {
        acc += std::fabs(v);
      } else if (kind == "lp2") {
        acc += v * v;
      } else {
        acc += v;
      }
    });
    double out = acc;
    if (kind == "avg") out = acc / count;
    if (kind == "avg_pad") out = acc / padded;
    if (kind == "lp2") out = std::sqrt(acc);
    y[Offset(y_shape, o)] = out;
    if (indices != nullptr) indices->push_back(best);
  });
  return y;
}

TEST(PoolKernels, RandomWindowsMatchReference) {
  std::mt19937 rng(111);
  const std::string kinds[] = {"max", "avg", "avg_pad", "lp1", "lp2"};
  for (int iter = 0; iter < 60; ++iter) {
    const std::string& kind = kinds[iter % 5];
    const bool lp = kind.rfind("lp", 0) == 0;
    const int64_t opset = kind == "max" ? 12 : lp ? 18 : 19;
    const Window w = RandomWindow(rng, true);
    const std::vector<float> x = RandomVector<float>(rng, Count(w.x));
    OpCase op{kind == "max" ? "MaxPool" : lp ? "LpPool" : "AveragePool", opset,
              {In(Tensor::FromVector<float>(w.x, x).value())},
              {IntsAttr("kernel_shape", w.kernel), IntsAttr("strides", w.strides),
               IntsAttr("dilations", w.dilations),
               IntsAttr("pads", Concat(w.pads_begin, w.pads_end)),
               IntAttr("ceil_mode", w.ceil_mode)},
              kind == "max" ? 2 : 1};
    if (kind == "avg_pad") op.attributes.push_back(IntAttr("count_include_pad", 1));
    if (lp) op.attributes.push_back(IntAttr("p", kind == "lp1" ? 1 : 2));
    std::vector<int64_t> indices;
    const std::vector<double> expected = PoolRef(w, kind, x, kind == "max" ? &indices : nullptr);
    NXRT_ASSERT_OK_AND_ASSIGN(std::vector<Tensor> y, RunOp(op));
    ASSERT_EQ(y[0].shape(), OutputShape(w)) << kind << " iteration " << iter;
    EXPECT_TRUE(AllClose(Values<float>(y[0]), expected, 1e-5, 1e-5)) << kind;
    if (kind == "max") EXPECT_EQ(Values<int64_t>(y[1]), indices);
  }
}

TEST(PoolKernels, GlobalPoolsReduceEverySpatialDim) {
  std::mt19937 rng(112);
  const Shape shape = {2, 3, 4, 5};
  const std::vector<float> x = RandomVector<float>(rng, Count(shape));
  for (const char* op_type : {"GlobalMaxPool", "GlobalAveragePool", "GlobalLpPool"}) {
    OpCase op{op_type, 2, {In(Tensor::FromVector<float>(shape, x).value())}};
    NXRT_ASSERT_OK_AND_ASSIGN(std::vector<Tensor> y, RunOp(op));
    ASSERT_EQ(y[0].shape(), (Shape{2, 3, 1, 1}));
    std::vector<double> expected;
    for (int64_t plane = 0; plane < 6; ++plane) {
      double max = -INFINITY, sum = 0, squares = 0;
      for (int64_t i = 0; i < 20; ++i) {
        const double v = x[plane * 20 + i];
        max = std::max(max, v);
        sum += v;
        squares += v * v;
      }
      expected.push_back(std::string(op_type) == "GlobalMaxPool"       ? max
                         : std::string(op_type) == "GlobalAveragePool" ? sum / 20
                                                                       : std::sqrt(squares));
    }
    EXPECT_TRUE(AllClose(Values<float>(y[0]), expected, 1e-5, 1e-5)) << op_type;
  }
}

TEST(MaxPoolKernel, Int8FromOpset12AndColumnMajorIndices) {
  OpCase op{"MaxPool", 12,
            {In(Tensor::FromVector<int8_t>({1, 1, 2, 2}, {1, 4, 3, 2}).value())},
            {IntsAttr("kernel_shape", {2, 2}), IntAttr("storage_order", 1)}, 2};
  NXRT_ASSERT_OK_AND_ASSIGN(std::vector<Tensor> y, RunOp(op));
  EXPECT_EQ(Values<int8_t>(y[0]), (std::vector<int8_t>{4}));
  // The maximum sits at (h 0, w 1): index 1 row-major, 0 + 1 * 2 = 2 column-major.
  EXPECT_EQ(Values<int64_t>(y[1]), (std::vector<int64_t>{2}));
  op.opset = 11;
  EXPECT_EQ(RunOp(op).status().code(), StatusCode::kUnsupported);
}

TEST(PoolKernels, MissingKernelShapeAndBadPNameTheAttribute) {
  OpCase op{"MaxPool", 12, {In(Tensor::Allocate(DataType::kFloat, {1, 1, 4}).value())}};
  Result<std::vector<Tensor>> missing = RunOp(op);
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("'kernel_shape'"), std::string::npos)
      << missing.status().message();
  OpCase lp{"LpPool", 11, {In(Tensor::Allocate(DataType::kFloat, {1, 1, 4}).value())},
            {IntsAttr("kernel_shape", {2}), IntAttr("p", 0)}};
  Result<std::vector<Tensor>> bad = RunOp(lp);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("attribute 'p' is 0"), std::string::npos)
      << bad.status().message();
}

}  // namespace
}  // namespace nxrt::cpu::kernels::testing
