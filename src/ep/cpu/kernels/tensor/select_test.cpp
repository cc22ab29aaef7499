// ep/cpu/kernels/tensor/select_test.cpp: Trilu, Compress, ReverseSequence and OneHot run as
// one-node models, against references computed here from the ONNX definitions (fixed seeds,
// random shapes), plus the named edge cases (OneHot's negative and out-of-range indices).
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

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

TEST(TriluKernel, RandomShapesAndDiagonalsMatchReference) {
  std::mt19937 rng(141);
  for (int iter = 0; iter < 40; ++iter) {
    const int64_t r = RandomInt(rng, 2, 4);
    const Shape shape = RandomShape(rng, r, 1, 5);
    const bool upper = iter % 2 == 0;
    const int64_t k = RandomInt(rng, -6, 6);
    const std::vector<float> x = RandomVector<float>(rng, Count(shape));
    std::vector<OpInput> inputs;
    inputs.push_back(In(Tensor::FromVector<float>(shape, x).value()));
    // k = 0 is also the default: leave the input out then.
    if (k != 0) inputs.push_back(In(Tensor::Scalar<int64_t>(k)));
    OpCase op{"Trilu", 14, inputs, {IntAttr("upper", upper ? 1 : 0)}};
    std::vector<float> expected(x.size());
    ForEachIndex(shape, [&](const std::vector<int64_t>& i) {
      const int64_t diff = i[r - 1] - i[r - 2];
      const bool keep = upper ? diff >= k : diff <= k;
      expected[Offset(shape, i)] = keep ? x[Offset(shape, i)] : 0.0f;
    });
    NXRT_ASSERT_OK_AND_ASSIGN(std::vector<Tensor> y, RunOp(op));
    EXPECT_EQ(y[0].shape(), shape);
    EXPECT_EQ(Values<float>(y[0]), expected) << "iter " << iter << " k " << k;
  }
}

TEST(TriluKernel, StringsAreClearedToEmpty) {
  OpCase op{"Trilu", 14,
            {In(Tensor::FromVector<std::string>({2, 2}, {"a", "b", "c", "d"}).value())},
            {IntAttr("upper", 0)}};
  NXRT_ASSERT_OK_AND_ASSIGN(std::vector<Tensor> y, RunOp(op));
  EXPECT_EQ(Values<std::string>(y[0]), (std::vector<std::string>{"a", "", "c", "d"}));
}

TEST(TriluKernel, RankOneIsAnError) {
  OpCase op{"Trilu", 14, {In(Tensor::Allocate(DataType::kFloat, {3}).value())}};
  EXPECT_FALSE(RunOp(op).ok());
}

TEST(CompressKernel, RandomConditionsMatchReference) {
  std::mt19937 rng(142);
  for (int iter = 0; iter < 40; ++iter) {
    const int64_t r = RandomInt(rng, 1, 3);
    const Shape shape = RandomShape(rng, r, 1, 4);
    const bool has_axis = iter % 3 != 0;
    const int64_t axis = RandomInt(rng, 0, r - 1);
    const int64_t axis_dim = has_axis ? shape[axis] : Count(shape);
    // The condition may be shorter than the axis: the rest counts as false.
    const int64_t len = RandomInt(rng, 0, axis_dim);
    std::vector<bool> cond_bits(len);
    for (int64_t i = 0; i < len; ++i) cond_bits[i] = RandomInt(rng, 0, 1) == 1;
    Tensor cond = Tensor::Allocate(DataType::kBool, {len}).value();
    for (int64_t i = 0; i < len; ++i) cond.mutable_data<bool>()[i] = cond_bits[i];
    std::vector<int32_t> x(Count(shape));
    for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<int32_t>(i);
    std::vector<AttributeValue> attrs;
    // A negative axis (opset 11) names the same axis.
    if (has_axis) attrs.push_back(IntAttr("axis", iter % 2 ? axis : axis - r));
    OpCase op{"Compress", has_axis && iter % 2 == 0 ? 11 : 9,
              {In(Tensor::FromVector<int32_t>(shape, x).value()), In(cond)}, attrs};
    std::vector<int32_t> expected;
    Shape out_shape;
    if (!has_axis) {
      for (int64_t i = 0; i < len; ++i) {
        if (cond_bits[i]) expected.push_back(x[i]);
      }
      out_shape = {static_cast<int64_t>(expected.size())};
    } else {
      int64_t kept = 0;
      for (int64_t i = 0; i < len; ++i) kept += cond_bits[i] ? 1 : 0;
      out_shape = shape;
      out_shape[axis] = kept;
      ForEachIndex(shape, [&](const std::vector<int64_t>& i) {
        if (i[axis] < len && cond_bits[i[axis]]) expected.push_back(x[Offset(shape, i)]);
      });
    }
    NXRT_ASSERT_OK_AND_ASSIGN(std::vector<Tensor> y, RunOp(op));
    EXPECT_EQ(y[0].shape(), out_shape) << "iter " << iter;
    EXPECT_EQ(Values<int32_t>(y[0]), expected) << "iter " << iter;
  }
}

TEST(ReverseSequenceKernel, RandomLengthsMatchReference) {
  std::mt19937 rng(143);
  for (int iter = 0; iter < 30; ++iter) {
    const int64_t r = RandomInt(rng, 2, 4);
    const Shape shape = RandomShape(rng, r, 1, 4);
    const bool time_first = iter % 2 == 0;
    const int64_t time_axis = time_first ? 0 : 1;
    const int64_t batch_axis = 1 - time_axis;
    std::vector<int64_t> lens(shape[batch_axis]);
    for (int64_t& l : lens) l = RandomInt(rng, 0, shape[time_axis]);
    std::vector<std::string> x(Count(shape));
    for (size_t i = 0; i < x.size(); ++i) x[i] = std::string("s").append(std::to_string(i));
    OpCase op{"ReverseSequence", 10,
              {In(Tensor::FromVector<std::string>(shape, x).value()),
               In(Tensor::FromVector<int64_t>({shape[batch_axis]}, lens).value())},
              {IntAttr("batch_axis", batch_axis), IntAttr("time_axis", time_axis)}};
    std::vector<std::string> expected(x.size());
    ForEachIndex(shape, [&](const std::vector<int64_t>& i) {
      std::vector<int64_t> from = i;
      const int64_t len = lens[i[batch_axis]];
      if (i[time_axis] < len) from[time_axis] = len - 1 - i[time_axis];
      expected[Offset(shape, i)] = x[Offset(shape, from)];
    });
    NXRT_ASSERT_OK_AND_ASSIGN(std::vector<Tensor> y, RunOp(op));
    EXPECT_EQ(Values<std::string>(y[0]), expected) << "iter " << iter;
  }
}

TEST(ReverseSequenceKernel, LengthBeyondTheTimeAxisIsAnError) {
  OpCase op{"ReverseSequence", 10,
            {In(Tensor::Allocate(DataType::kFloat, {3, 2}).value()),
             In(Tensor::FromVector<int64_t>({2}, {1, 4}).value())}};
  EXPECT_FALSE(RunOp(op).ok());
}

// OneHot's reference: output[..., d, ...] = on when the (adjusted) index equals d, else off.
std::vector<float> OneHotReference(const Shape& indices_shape, const std::vector<int64_t>& idx,
                                   int64_t depth, int64_t axis, bool negative, float off,
                                   float on, Shape* out_shape) {
  const int64_t r = static_cast<int64_t>(indices_shape.size());
  const int64_t a = axis < 0 ? axis + r + 1 : axis;
  *out_shape = indices_shape;
  out_shape->insert(out_shape->begin() + a, depth);
  std::vector<float> out(Count(*out_shape));
  ForEachIndex(*out_shape, [&](const std::vector<int64_t>& o) {
    std::vector<int64_t> i = o;
    i.erase(i.begin() + a);
    int64_t v = idx[Offset(indices_shape, i)];
    if (v < 0 && negative) v += depth;
    out[Offset(*out_shape, o)] = v == o[a] ? on : off;
  });
  return out;
}

TEST(OneHotKernel, RandomIndicesAndAxesMatchReference) {
  std::mt19937 rng(144);
  for (int iter = 0; iter < 40; ++iter) {
    const int64_t r = RandomInt(rng, 1, 3);
    const Shape shape = RandomShape(rng, r, 1, 4);
    const int64_t depth = RandomInt(rng, 1, 6);
    const int64_t axis = RandomInt(rng, -r - 1, r);
    const int opset = iter % 2 ? 9 : 11;
    // Indices in [-depth - 1, depth]: in range, negative, and out of range at both ends.
    std::vector<int64_t> idx(Count(shape));
    for (int64_t& v : idx) v = RandomInt(rng, -depth - 1, depth);
    std::vector<float> idx_float(idx.begin(), idx.end());
    Shape out_shape;
    const std::vector<float> expected =
        OneHotReference(shape, idx, depth, axis, opset >= 11, -1.0f, 3.0f, &out_shape);
    // Indices and depth of other numeric types: float indices, an int32 depth.
    OpCase op{"OneHot", opset,
              {In(Tensor::FromVector<float>(shape, idx_float).value()),
               Const(Tensor::Scalar<int32_t>(static_cast<int32_t>(depth))),
               In(Tensor::FromVector<float>({2}, {-1.0f, 3.0f}).value())},
              {IntAttr("axis", axis)}};
    NXRT_ASSERT_OK_AND_ASSIGN(std::vector<Tensor> y, RunOp(op));
    EXPECT_EQ(y[0].shape(), out_shape);
    EXPECT_EQ(Values<float>(y[0]), expected) << "iter " << iter;
  }
}

// Named edge case (issue 6): negative indices count from the end of the depth (opset 11); an index
// outside [-depth, depth) gives an all-off row, as the ONNX spec defines it, never a crash.
TEST(OneHotKernel, NegativeIndicesCountFromTheEndAndOutOfRangeIsAllOff) {
  OpCase op{"OneHot", 11,
            {In(Tensor::FromVector<int64_t>({4}, {-1, -3, 3, -4}).value()),
             Const(Tensor::FromVector<int64_t>({1}, {3}).value()),
             In(Tensor::FromVector<int64_t>({2}, {0, 1}).value())}};
  NXRT_ASSERT_OK_AND_ASSIGN(std::vector<Tensor> y, RunOp(op));
  EXPECT_EQ(y[0].shape(), (Shape{4, 3}));
  EXPECT_EQ(Values<int64_t>(y[0]),
            (std::vector<int64_t>{0, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0}));
}

TEST(OneHotKernel, NonPositiveDepthAndBadValuesAreErrors) {
  const auto run = [](int64_t depth, Shape values_shape) {
    OpCase op{"OneHot", 11,
              {In(Tensor::FromVector<int64_t>({2}, {0, 1}).value()),
               Const(Tensor::FromVector<int64_t>({1}, {depth}).value()),
               In(Tensor::Allocate(DataType::kFloat, values_shape).value())}};
    return RunOp(op).ok();
  };
  EXPECT_TRUE(run(2, {2}));
  EXPECT_FALSE(run(0, {2}));
  EXPECT_FALSE(run(-2, {2}));
  EXPECT_FALSE(run(2, {3}));
}

}  // namespace
}  // namespace nxrt::cpu::kernels::testing
