// ep/cpu/kernels/tensor/slice_test.cpp: the Slice kernel in its attribute (opset 1) and input
// (opset 10, 13) forms, against a reference written from the ONNX definition.
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
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

// The input indices one axis of length `dim` reads for (start, end, step), per the spec.
std::vector<int64_t> AxisIndices(int64_t dim, int64_t start, int64_t end, int64_t step) {
  if (start < 0) start += dim;
  if (end < 0) end += dim;
  if (step > 0) {
    start = std::clamp<int64_t>(start, 0, dim);
    end = std::clamp<int64_t>(end, 0, dim);
  } else {
    start = std::clamp<int64_t>(start, 0, dim - 1);
    end = std::clamp<int64_t>(end, -1, dim - 1);
  }
  std::vector<int64_t> out;
  for (int64_t i = start; step > 0 ? i < end : i > end; i += step) out.push_back(i);
  return out;
}

struct SliceArgs {
  std::vector<int64_t> starts, ends, axes, steps;
};

std::vector<int32_t> SliceRef(const std::vector<int32_t>& x, const Shape& shape,
                              const SliceArgs& a, Shape& out_shape) {
  std::vector<std::vector<int64_t>> maps(shape.size());
  for (size_t d = 0; d < shape.size(); ++d) {
    for (int64_t i = 0; i < shape[d]; ++i) maps[d].push_back(i);
  }
  for (size_t k = 0; k < a.starts.size(); ++k) {
    int64_t axis = a.axes.empty() ? static_cast<int64_t>(k) : a.axes[k];
    if (axis < 0) axis += static_cast<int64_t>(shape.size());
    maps[axis] = AxisIndices(shape[axis], a.starts[k], a.ends[k], a.steps.empty() ? 1 : a.steps[k]);
  }
  out_shape.clear();
  for (const auto& m : maps) out_shape.push_back(static_cast<int64_t>(m.size()));
  std::vector<int32_t> out(Count(out_shape));
  ForEachIndex(out_shape, [&](const std::vector<int64_t>& i) {
    std::vector<int64_t> j(i.size());
    for (size_t d = 0; d < i.size(); ++d) j[d] = maps[d][i[d]];
    out[Offset(out_shape, i)] = x[Offset(shape, j)];
  });
  return out;
}

// Random starts/ends/steps over a random subset of axes, including out-of-range and INT64 ends.
SliceArgs RandomArgs(std::mt19937& rng, const Shape& shape, bool with_steps) {
  SliceArgs a;
  const int64_t rank = static_cast<int64_t>(shape.size());
  std::vector<int64_t> axes(rank);
  for (int64_t i = 0; i < rank; ++i) axes[i] = i;
  std::shuffle(axes.begin(), axes.end(), rng);
  axes.resize(RandomInt(rng, 1, rank));
  for (int64_t axis : axes) {
    const int64_t dim = shape[axis];
    const int64_t step = with_steps ? (RandomInt(rng, 0, 1) ? 1 : -1) * RandomInt(rng, 1, 3) : 1;
    a.axes.push_back(RandomInt(rng, 0, 1) ? axis : axis - rank);
    a.starts.push_back(RandomInt(rng, -dim - 2, dim + 2));
    const int64_t pick = RandomInt(rng, 0, 5);
    a.ends.push_back(pick == 0   ? std::numeric_limits<int64_t>::max()
                     : pick == 1 ? std::numeric_limits<int64_t>::min()
                                 : RandomInt(rng, -dim - 2, dim + 2));
    a.steps.push_back(step);
  }
  return a;
}

TEST(SliceKernel, InputFormsMatchReference) {
  std::mt19937 rng(31);
  for (int iter = 0; iter < 60; ++iter) {
    const Shape shape = RandomShape(rng, RandomInt(rng, 1, 4), 1, 5);
    const std::vector<int32_t> x = [&] {
      std::vector<int32_t> v(Count(shape));
      for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<int32_t>(i);
      return v;
    }();
    const bool opset13 = iter % 2 == 0;
    const SliceArgs args = RandomArgs(rng, shape, opset13);
    OpCase op{"Slice", opset13 ? 13 : 10,
              {In(Tensor::FromVector<int32_t>(shape, x).value()), ConstInts(args.starts),
               In(Tensor::FromVector<int64_t>({static_cast<int64_t>(args.ends.size())}, args.ends)
                      .value()),
               ConstInts(args.axes)}};
    if (opset13) op.inputs.push_back(ConstInts(args.steps));
    Shape out_shape;
    const std::vector<int32_t> expected = SliceRef(x, shape, args, out_shape);
    NXRT_ASSERT_OK_AND_ASSIGN(std::vector<Tensor> y, RunOp(op));
    EXPECT_EQ(y[0].shape(), out_shape);
    EXPECT_EQ(Values<int32_t>(y[0]), expected);
  }
}

TEST(SliceKernel, OmittedAxesWithStepsSlicesLeadingAxes) {
  const std::vector<int32_t> x = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};
  OpCase op{"Slice", 13,
            {In(Tensor::FromVector<int32_t>({3, 4}, x).value()), ConstInts({2, 0}),
             ConstInts({-4, 4}), Omitted(), ConstInts({-1, 2})}};
  NXRT_ASSERT_OK_AND_ASSIGN(std::vector<Tensor> y, RunOp(op));
  // Axis 0: end -4 + 3 = -1 stays -1 (before the first row) for a negative step: rows 2, 1, 0.
  EXPECT_EQ(y[0].shape(), (Shape{3, 2}));
  EXPECT_EQ(Values<int32_t>(y[0]), (std::vector<int32_t>{8, 10, 4, 6, 0, 2}));
}

TEST(SliceKernel, Opset1ReadsAttributes) {
  const std::vector<int32_t> x = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};
  OpCase op{"Slice", 1, {In(Tensor::FromVector<int32_t>({3, 4}, x).value())},
            {IntsAttr("starts", {1}), IntsAttr("ends", {1000}), IntsAttr("axes", {1})}};
  NXRT_ASSERT_OK_AND_ASSIGN(std::vector<Tensor> y, RunOp(op));
  EXPECT_EQ(y[0].shape(), (Shape{3, 3}));
  EXPECT_EQ(Values<int32_t>(y[0]), (std::vector<int32_t>{1, 2, 3, 5, 6, 7, 9, 10, 11}));
  op.attributes.erase(op.attributes.begin());
  Result<std::vector<Tensor>> missing = RunOp(op);
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("'starts'"), std::string::npos);
}

TEST(SliceKernel, ZeroStepIsAnError) {
  OpCase op{"Slice", 13,
            {In(Tensor::Allocate(DataType::kFloat, {4}).value()), ConstInts({0}), ConstInts({4}),
             ConstInts({0}), ConstInts({0})}};
  Result<std::vector<Tensor>> y = RunOp(op);
  ASSERT_FALSE(y.ok());
  EXPECT_NE(y.status().message().find("step"), std::string::npos) << y.status().message();
}

}  // namespace
}  // namespace nxrt::cpu::kernels::testing
