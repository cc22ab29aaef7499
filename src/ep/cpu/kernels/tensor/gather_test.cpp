// ep/cpu/kernels/tensor/gather_test.cpp: Gather, GatherElements and GatherND kernels against
// references written from the ONNX definitions, with negative and out-of-range indices.
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
using nn::testing::RandomInts;
using nn::testing::RandomShape;
using nn::testing::RandomVector;

int64_t Wrap(int64_t i, int64_t dim) { return i < 0 ? i + dim : i; }

TEST(GatherKernel, RandomAxesAndIndicesMatchReference) {
  std::mt19937 rng(41);
  for (int iter = 0; iter < 40; ++iter) {
    const int64_t r = RandomInt(rng, 1, 3);
    const Shape data_shape = RandomShape(rng, r, 1, 4);
    const int64_t axis = RandomInt(rng, -r, r - 1);
    const int64_t a = Wrap(axis, r);
    const Shape idx_shape = RandomShape(rng, RandomInt(rng, 0, 2), 0, 3);
    const int64_t dim = data_shape[a];
    const std::vector<int64_t> idx = RandomInts(rng, Count(idx_shape), -dim, dim - 1);
    const std::vector<float> x = RandomVector<float>(rng, Count(data_shape));
    const bool int32 = iter % 2 == 1;
    std::vector<int32_t> idx32(idx.begin(), idx.end());
    OpCase op{"Gather", 13,
              {In(Tensor::FromVector<float>(data_shape, x).value()),
               int32 ? In(Tensor::FromVector<int32_t>(idx_shape, idx32).value())
                     : In(Tensor::FromVector<int64_t>(idx_shape, idx).value())},
              {IntAttr("axis", axis)}};
    Shape out_shape(data_shape.begin(), data_shape.begin() + a);
    out_shape.insert(out_shape.end(), idx_shape.begin(), idx_shape.end());
    out_shape.insert(out_shape.end(), data_shape.begin() + a + 1, data_shape.end());
    std::vector<float> expected(Count(out_shape));
    const size_t q = idx_shape.size();
    ForEachIndex(out_shape, [&](const std::vector<int64_t>& i) {
      std::vector<int64_t> j(i.begin(), i.begin() + a);
      const std::vector<int64_t> k(i.begin() + a, i.begin() + a + q);
      j.push_back(Wrap(idx[Offset(idx_shape, k)], dim));
      j.insert(j.end(), i.begin() + a + q, i.end());
      expected[Offset(out_shape, i)] = x[Offset(data_shape, j)];
    });
    NXRT_ASSERT_OK_AND_ASSIGN(std::vector<Tensor> y, RunOp(op));
    EXPECT_EQ(y[0].shape(), out_shape);
    EXPECT_EQ(Values<float>(y[0]), expected);
  }
}

TEST(GatherKernel, IndexOutOfRangeIsARuntimeError) {
  OpCase op{"Gather", 13,
            {In(Tensor::FromVector<float>({3}, {1, 2, 3}).value()),
             In(Tensor::FromVector<int64_t>({2}, {0, 3}).value())}};
  Result<std::vector<Tensor>> y = RunOp(op);
  ASSERT_FALSE(y.ok());
  EXPECT_EQ(y.status().code(), StatusCode::kRuntimeError);
  EXPECT_NE(y.status().message().find("3"), std::string::npos) << y.status().message();
}

TEST(GatherElementsKernel, RandomAxesMatchReference) {
  std::mt19937 rng(42);
  for (int iter = 0; iter < 30; ++iter) {
    const int64_t r = RandomInt(rng, 1, 3);
    const Shape data_shape = RandomShape(rng, r, 1, 4);
    const int64_t axis = RandomInt(rng, -r, r - 1);
    const int64_t a = Wrap(axis, r);
    Shape idx_shape = data_shape;
    for (int64_t d = 0; d < r; ++d) {
      idx_shape[d] = d == a ? RandomInt(rng, 0, 4) : RandomInt(rng, 1, data_shape[d]);
    }
    const std::vector<int64_t> idx = RandomInts(rng, Count(idx_shape), -data_shape[a],
                                                data_shape[a] - 1);
    const std::vector<float> x = RandomVector<float>(rng, Count(data_shape));
    OpCase op{"GatherElements", iter % 2 ? 11 : 13,
              {In(Tensor::FromVector<float>(data_shape, x).value()),
               In(Tensor::FromVector<int64_t>(idx_shape, idx).value())},
              {IntAttr("axis", axis)}};
    std::vector<float> expected(Count(idx_shape));
    ForEachIndex(idx_shape, [&](const std::vector<int64_t>& i) {
      std::vector<int64_t> j = i;
      j[a] = Wrap(idx[Offset(idx_shape, i)], data_shape[a]);
      expected[Offset(idx_shape, i)] = x[Offset(data_shape, j)];
    });
    NXRT_ASSERT_OK_AND_ASSIGN(std::vector<Tensor> y, RunOp(op));
    EXPECT_EQ(y[0].shape(), idx_shape);
    EXPECT_EQ(Values<float>(y[0]), expected);
  }
}

TEST(GatherNDKernel, BatchDimsAndNegativeIndicesMatchReference) {
  std::mt19937 rng(43);
  for (int iter = 0; iter < 30; ++iter) {
    const int64_t b = iter % 3 == 0 ? 0 : RandomInt(rng, 0, 1);
    const int64_t r = RandomInt(rng, b + 1, 4);
    const Shape data_shape = RandomShape(rng, r, 1, 3);
    const int64_t k = RandomInt(rng, 1, r - b);
    Shape idx_shape(data_shape.begin(), data_shape.begin() + b);
    for (int64_t extra = RandomInt(rng, 0, 2); extra > 0; --extra) {
      idx_shape.push_back(RandomInt(rng, 1, 3));
    }
    idx_shape.push_back(k);
    std::vector<int64_t> idx(Count(idx_shape));
    for (size_t t = 0; t < idx.size(); ++t) {
      const int64_t dim = data_shape[b + static_cast<int64_t>(t) % k];
      idx[t] = RandomInt(rng, -dim, dim - 1);
    }
    const std::vector<float> x = RandomVector<float>(rng, Count(data_shape));
    OpCase op{"GatherND", b > 0 ? 12 : 11,
              {In(Tensor::FromVector<float>(data_shape, x).value()),
               In(Tensor::FromVector<int64_t>(idx_shape, idx).value())},
              {}};
    if (b > 0) op.attributes.push_back(IntAttr("batch_dims", b));
    Shape out_shape(idx_shape.begin(), idx_shape.end() - 1);
    out_shape.insert(out_shape.end(), data_shape.begin() + b + k, data_shape.end());
    std::vector<float> expected(Count(out_shape));
    const size_t lead = idx_shape.size() - 1;
    ForEachIndex(out_shape, [&](const std::vector<int64_t>& i) {
      std::vector<int64_t> tuple_at(i.begin(), i.begin() + lead);
      tuple_at.push_back(0);
      const int64_t base = Offset(idx_shape, tuple_at);
      std::vector<int64_t> j(i.begin(), i.begin() + b);
      for (int64_t t = 0; t < k; ++t) j.push_back(Wrap(idx[base + t], data_shape[b + t]));
      j.insert(j.end(), i.begin() + lead, i.end());
      expected[Offset(out_shape, i)] = x[Offset(data_shape, j)];
    });
    NXRT_ASSERT_OK_AND_ASSIGN(std::vector<Tensor> y, RunOp(op));
    EXPECT_EQ(y[0].shape(), out_shape);
    EXPECT_EQ(Values<float>(y[0]), expected);
  }
}

// Issue 6: an index out of range is an error, never a crash, in every gather.
TEST(GatherElementsKernel, IndexOutOfRangeIsARuntimeError) {
  OpCase op{"GatherElements", 13,
            {In(Tensor::FromVector<float>({2, 2}, {1, 2, 3, 4}).value()),
             In(Tensor::FromVector<int64_t>({1, 2}, {0, -3}).value())},
            {IntAttr("axis", 0)}};
  Result<std::vector<Tensor>> y = RunOp(op);
  ASSERT_FALSE(y.ok());
  EXPECT_EQ(y.status().code(), StatusCode::kRuntimeError);
  EXPECT_NE(y.status().message().find("-3"), std::string::npos) << y.status().message();
}

TEST(GatherNDKernel, IndexOutOfRangeIsARuntimeError) {
  OpCase op{"GatherND", 13,
            {In(Tensor::FromVector<float>({2, 2}, {1, 2, 3, 4}).value()),
             In(Tensor::FromVector<int64_t>({1, 2}, {1, 2}).value())}};
  Result<std::vector<Tensor>> y = RunOp(op);
  ASSERT_FALSE(y.ok());
  EXPECT_EQ(y.status().code(), StatusCode::kRuntimeError);
}

// Issue 6: a negative index counts from the end of its axis, in every gather.
TEST(GatherKernel, Issue6NegativeIndicesCountFromTheEnd) {
  OpCase op{"Gather", 13,
            {In(Tensor::FromVector<float>({2, 3}, {1, 2, 3, 4, 5, 6}).value()),
             In(Tensor::FromVector<int64_t>({2}, {-1, -3}).value())},
            {IntAttr("axis", 1)}};
  NXRT_ASSERT_OK_AND_ASSIGN(std::vector<Tensor> y, RunOp(op));
  EXPECT_EQ(y[0].shape(), (Shape{2, 2}));
  EXPECT_EQ(Values<float>(y[0]), (std::vector<float>{3, 1, 6, 4}));
}

TEST(GatherElementsKernel, Issue6NegativeIndicesCountFromTheEnd) {
  OpCase op{"GatherElements", 13,
            {In(Tensor::FromVector<float>({2, 3}, {1, 2, 3, 4, 5, 6}).value()),
             In(Tensor::FromVector<int64_t>({2, 2}, {-1, -3, -2, 0}).value())},
            {IntAttr("axis", 1)}};
  NXRT_ASSERT_OK_AND_ASSIGN(std::vector<Tensor> y, RunOp(op));
  EXPECT_EQ(Values<float>(y[0]), (std::vector<float>{3, 1, 5, 4}));
}

TEST(GatherNDKernel, Issue6NegativeIndicesCountFromTheEnd) {
  OpCase op{"GatherND", 13,
            {In(Tensor::FromVector<float>({2, 3}, {1, 2, 3, 4, 5, 6}).value()),
             In(Tensor::FromVector<int64_t>({3, 2}, {-1, -1, -2, 0, 0, -2}).value())}};
  NXRT_ASSERT_OK_AND_ASSIGN(std::vector<Tensor> y, RunOp(op));
  EXPECT_EQ(Values<float>(y[0]), (std::vector<float>{6, 1, 2}));
}

// Issue 6: an index below -dim is out of range too (an error, not a read before the data).
TEST(GatherKernel, Issue6IndexBelowMinusDimIsARuntimeError) {
  for (bool int32 : {false, true}) {
    OpCase op{"Gather", 13,
              {In(Tensor::FromVector<float>({3}, {1, 2, 3}).value()),
               int32 ? In(Tensor::FromVector<int32_t>({2}, {-3, -4}).value())
                     : In(Tensor::FromVector<int64_t>({2}, {-3, -4}).value())}};
    Result<std::vector<Tensor>> y = RunOp(op);
    ASSERT_FALSE(y.ok()) << (int32 ? "int32" : "int64");
    EXPECT_EQ(y.status().code(), StatusCode::kRuntimeError);
    EXPECT_NE(y.status().message().find("-4"), std::string::npos) << y.status().message();
  }
}

TEST(GatherNDKernel, Issue6IndexBelowMinusDimIsARuntimeError) {
  OpCase op{"GatherND", 13,
            {In(Tensor::FromVector<float>({2, 2}, {1, 2, 3, 4}).value()),
             In(Tensor::FromVector<int64_t>({1, 2}, {0, -3}).value())}};
  Result<std::vector<Tensor>> y = RunOp(op);
  ASSERT_FALSE(y.ok());
  EXPECT_EQ(y.status().code(), StatusCode::kRuntimeError);
}

TEST(GatherNDKernel, Int32IndicesAreNotInTheSchema) {
  OpCase op{"GatherND", 13,
            {In(Tensor::Allocate(DataType::kFloat, {2}).value()),
             In(Tensor::FromVector<int32_t>({1, 1}, {0}).value())}};
  Result<std::vector<Tensor>> y = RunOp(op);
  ASSERT_FALSE(y.ok());
  EXPECT_EQ(y.status().code(), StatusCode::kInvalidModel);  // the loader's schema check
}

}  // namespace
}  // namespace nxrt::cpu::kernels::testing
