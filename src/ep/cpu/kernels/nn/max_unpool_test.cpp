// ep/cpu/kernels/nn/max_unpool_test.cpp: MaxUnpool run as a one-node model against a reference
// written in the test from the ONNX definition and reference implementation (opsets 9 and 11,
// random 1-3-D shapes, kernels, strides, pads and indices, with and without output_shape; fixed
// seed).
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <vector>

#include "ep/cpu/kernels/tensor/single_op_test_util.h"
#include "ep/cpu/math/testing/nn_test_util.h"

namespace nxrt::cpu::kernels::testing {
namespace {

using nn::testing::Count;
using nn::testing::ForEachIndex;
using nn::testing::Offset;
using nn::testing::RandomInt;
using nn::testing::RandomVector;

TEST(MaxUnpoolKernel, RandomShapesMatchReference) {
  std::mt19937 rng(1401);
  for (int iter = 0; iter < 30; ++iter) {
    const int64_t spatial = RandomInt(rng, 1, 3);
    Shape x_shape = {RandomInt(rng, 1, 2), RandomInt(rng, 1, 3)};
    std::vector<int64_t> kernel, strides, pads(2 * spatial);
    Shape out_shape = x_shape;
    for (int64_t d = 0; d < spatial; ++d) {
      x_shape.push_back(RandomInt(rng, 1, 3));
      kernel.push_back(RandomInt(rng, 1, 3));
      strides.push_back(RandomInt(rng, 1, 3));
      pads[d] = RandomInt(rng, 0, kernel[d] - 1);
      pads[d + spatial] = RandomInt(rng, 0, kernel[d] - 1);
    }
    for (int64_t d = 0; d < spatial; ++d) {
      out_shape.push_back((x_shape[d + 2] - 1) * strides[d] + kernel[d] - pads[d] -
                          pads[d + spatial]);
    }
    // A pooled X always comes from an input of positive size.
    if (std::any_of(out_shape.begin() + 2, out_shape.end(), [](int64_t d) { return d < 1; })) {
      continue;
    }
    const Shape unpooled = out_shape;
    if (Count(unpooled) < Count(x_shape)) continue;  // the indices must be distinct
    const bool with_shape = RandomInt(rng, 0, 1) == 1;
    if (with_shape) {
      for (int64_t d = 0; d < spatial; ++d) out_shape[d + 2] += RandomInt(rng, 0, 2);
    }
    // Distinct flat positions into the unpooled shape, as MaxPool's Indices would give.
    std::vector<int64_t> positions(static_cast<size_t>(Count(unpooled)));
    std::iota(positions.begin(), positions.end(), 0);
    std::shuffle(positions.begin(), positions.end(), rng);
    positions.resize(static_cast<size_t>(Count(x_shape)));
    const std::vector<float> x = RandomVector<float>(rng, Count(x_shape), -2, 2);
    // Unpool into the unpooled shape, then copy it to the origin of the output shape.
    std::vector<float> dense(static_cast<size_t>(Count(unpooled)), 0.0f);
    for (size_t k = 0; k < x.size(); ++k) dense[positions[k]] = x[k];
    std::vector<float> expected(static_cast<size_t>(Count(out_shape)), 0.0f);
    ForEachIndex(unpooled, [&](const std::vector<int64_t>& idx) {
      expected[Offset(out_shape, idx)] = dense[Offset(unpooled, idx)];
    });
    OpCase op{"MaxUnpool", RandomInt(rng, 0, 1) ? 11 : 9,
              {In(Tensor::FromVector<float>(x_shape, x).value()),
               In(Tensor::FromVector<int64_t>(x_shape, positions).value())},
              {IntsAttr("kernel_shape", kernel), IntsAttr("strides", strides),
               IntsAttr("pads", pads)}};
    if (with_shape) op.inputs.push_back(ConstInts(out_shape));
    NXRT_ASSERT_OK_AND_ASSIGN(std::vector<Tensor> y, RunOp(op));
    EXPECT_EQ(y[0].shape(), out_shape) << "iter " << iter;
    EXPECT_EQ(Values<float>(y[0]), expected) << "iter " << iter;
  }
}

TEST(MaxUnpoolKernel, IndexOutOfRangeIsAnError) {
  OpCase op{"MaxUnpool", 11,
            {In(Tensor::FromVector<float>({1, 1, 1, 1}, {5}).value()),
             In(Tensor::FromVector<int64_t>({1, 1, 1, 1}, {4}).value())},
            {IntsAttr("kernel_shape", {2, 2}), IntsAttr("strides", {2, 2})}};
  EXPECT_FALSE(RunOp(op).ok());
}

}  // namespace
}  // namespace nxrt::cpu::kernels::testing
