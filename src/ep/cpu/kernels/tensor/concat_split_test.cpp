// ep/cpu/kernels/tensor/concat_split_test.cpp: Concat and Split kernels at each opset form,
// run as one-node graphs against references written from the ONNX definitions.
#include <gtest/gtest.h>

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

TEST(ConcatKernel, RandomInputsAlongEveryAxisMatchReference) {
  std::mt19937 rng(21);
  for (int iter = 0; iter < 30; ++iter) {
    const int64_t rank = RandomInt(rng, 1, 4);
    const Shape base = RandomShape(rng, rank, 1, 3);
    const int64_t axis = RandomInt(rng, -rank, rank - 1);
    const int64_t a = axis < 0 ? axis + rank : axis;
    const int count = static_cast<int>(RandomInt(rng, 1, 4));
    OpCase op{"Concat", 13, {}, {IntAttr("axis", axis)}};
    std::vector<Shape> shapes;
    std::vector<std::vector<int64_t>> data;
    for (int i = 0; i < count; ++i) {
      Shape s = base;
      s[a] = RandomInt(rng, 0, 3);  // zero-length inputs included
      std::vector<int64_t> v = nn::testing::RandomInts(rng, Count(s), -100, 100);
      op.inputs.push_back(In(Tensor::FromVector<int64_t>(s, v).value()));
      shapes.push_back(s);
      data.push_back(v);
    }
    NXRT_ASSERT_OK_AND_ASSIGN(std::vector<Tensor> y, RunOp(op));
    Shape out_shape = base;
    out_shape[a] = 0;
    for (const Shape& s : shapes) out_shape[a] += s[a];
    ASSERT_EQ(y[0].shape(), out_shape);
    std::vector<int64_t> expected(Count(out_shape));
    ForEachIndex(out_shape, [&](const std::vector<int64_t>& i) {
      std::vector<int64_t> j = i;
      size_t input = 0;
      while (j[a] >= shapes[input][a]) j[a] -= shapes[input++][a];
      expected[Offset(out_shape, i)] = data[input][Offset(shapes[input], j)];
    });
    EXPECT_EQ(Values<int64_t>(y[0]), expected);
  }
}

// Issue 6: a zero-sized input adds nothing, wherever it stands, and all-empty inputs give an
// empty output.
TEST(ConcatKernel, Issue6EmptyInputAddsNothing) {
  const Tensor empty = Tensor::Allocate(DataType::kFloat, {2, 0}).value();
  const Tensor x = Tensor::FromVector<float>({2, 2}, {1, 2, 3, 4}).value();
  OpCase op{"Concat", 13, {In(empty), In(x), In(empty)}, {IntAttr("axis", 1)}};
  NXRT_ASSERT_OK_AND_ASSIGN(std::vector<Tensor> y, RunOp(op));
  EXPECT_EQ(y[0].shape(), (Shape{2, 2}));
  EXPECT_EQ(Values<float>(y[0]), (std::vector<float>{1, 2, 3, 4}));
  OpCase all_empty{"Concat", 13, {In(empty), In(empty)}, {IntAttr("axis", 0)}};
  NXRT_ASSERT_OK_AND_ASSIGN(std::vector<Tensor> z, RunOp(all_empty));
  EXPECT_EQ(z[0].shape(), (Shape{4, 0}));
}

TEST(ConcatKernel, Opset1DefaultsToAxis1AndLaterOpsetsNeedAxis) {
  const Tensor x = Tensor::FromVector<float>({1, 2}, {1, 2}).value();
  OpCase op{"Concat", 1, {In(x), In(x)}};
  NXRT_ASSERT_OK_AND_ASSIGN(std::vector<Tensor> y, RunOp(op));
  EXPECT_EQ(y[0].shape(), (Shape{1, 4}));
  op.opset = 11;
  Result<std::vector<Tensor>> missing = RunOp(op);
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("'axis'"), std::string::npos);
}

// Split of `x` (shape) along `axis` into parts of `sizes`.
std::vector<std::vector<float>> SplitRef(const std::vector<float>& x, const Shape& shape,
                                         int64_t axis, const std::vector<int64_t>& sizes) {
  std::vector<std::vector<float>> out;
  int64_t begin = 0;
  for (int64_t size : sizes) {
    Shape part = shape;
    part[axis] = size;
    std::vector<float> v(Count(part));
    ForEachIndex(part, [&](const std::vector<int64_t>& i) {
      std::vector<int64_t> j = i;
      j[axis] += begin;
      v[Offset(part, i)] = x[Offset(shape, j)];
    });
    out.push_back(v);
    begin += size;
  }
  return out;
}

TEST(SplitKernel, AttributeInputAndEqualFormsMatchReference) {
  std::mt19937 rng(22);
  for (int iter = 0; iter < 30; ++iter) {
    const int64_t rank = RandomInt(rng, 1, 4);
    Shape shape = RandomShape(rng, rank, 1, 3);
    const int64_t axis = RandomInt(rng, 0, rank - 1);
    const int parts = static_cast<int>(RandomInt(rng, 1, 3));
    std::vector<int64_t> sizes(parts);
    shape[axis] = 0;
    for (int64_t& s : sizes) shape[axis] += (s = RandomInt(rng, 0, 3));
    const std::vector<float> x = RandomVector<float>(rng, Count(shape));
    const int form = iter % 3;  // 0: attribute (opset 11), 1: input (opset 13), 2: equal parts
    OpCase op{"Split", form == 0 ? 11 : 13, {In(Tensor::FromVector<float>(shape, x).value())},
              {IntAttr("axis", axis)}, parts};
    if (form == 0) op.attributes.push_back(IntsAttr("split", sizes));
    if (form == 1) op.inputs.push_back(ConstInts(sizes));
    if (form == 2) {
      shape[axis] = parts * RandomInt(rng, 0, 2);
      sizes.assign(parts, shape[axis] / parts);
      op.inputs[0] = In(Tensor::FromVector<float>(shape, RandomVector<float>(rng, Count(shape)))
                            .value());
    }
    const std::vector<float> data = Values<float>(op.inputs[0].value);
    NXRT_ASSERT_OK_AND_ASSIGN(std::vector<Tensor> y, RunOp(op));
    const auto expected = SplitRef(data, shape, axis, sizes);
    ASSERT_EQ(y.size(), expected.size());
    for (size_t i = 0; i < y.size(); ++i) EXPECT_EQ(Values<float>(y[i]), expected[i]);
  }
}

TEST(SplitKernel, Opset18NumOutputsLeavesASmallerLastPart) {
  std::vector<float> x(7);
  for (int i = 0; i < 7; ++i) x[i] = static_cast<float>(i);
  OpCase op{"Split", 18, {In(Tensor::FromVector<float>({7}, x).value())},
            {IntAttr("num_outputs", 3)}, 3};
  NXRT_ASSERT_OK_AND_ASSIGN(std::vector<Tensor> y, RunOp(op));
  EXPECT_EQ(Values<float>(y[0]), (std::vector<float>{0, 1, 2}));
  EXPECT_EQ(Values<float>(y[1]), (std::vector<float>{3, 4, 5}));
  EXPECT_EQ(Values<float>(y[2]), (std::vector<float>{6}));
  op.attributes = {IntAttr("num_outputs", 2)};
  Result<std::vector<Tensor>> mismatch = RunOp(op);
  ASSERT_FALSE(mismatch.ok());
  EXPECT_NE(mismatch.status().message().find("'num_outputs' is 2"), std::string::npos)
      << mismatch.status().message();
}

TEST(SplitKernel, SizesNotSummingToTheDimAreAnError) {
  OpCase op{"Split", 13, {In(Tensor::Allocate(DataType::kFloat, {5}).value()), ConstInts({2, 2})},
            {}, 2};
  Result<std::vector<Tensor>> y = RunOp(op);
  ASSERT_FALSE(y.ok());
  EXPECT_NE(y.status().message().find("[5]"), std::string::npos) << y.status().message();
}

}  // namespace
}  // namespace nxrt::cpu::kernels::testing
