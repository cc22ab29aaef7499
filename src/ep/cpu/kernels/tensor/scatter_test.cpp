// ep/cpu/kernels/tensor/scatter_test.cpp: ScatterElements, Scatter and ScatterND kernels with
// each reduction at the opset that introduced it, against references written from the ONNX
// definitions (updates applied in index order).
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

float Combine(const std::string& reduction, float a, float b) {
  if (reduction == "add") return a + b;
  if (reduction == "mul") return a * b;
  if (reduction == "max") return std::max(a, b);
  if (reduction == "min") return std::min(a, b);
  return b;
}

int64_t OpsetOf(const std::string& reduction) {
  if (reduction == "none") return 13;
  return reduction == "add" || reduction == "mul" ? 16 : 18;
}

TEST(ScatterElementsKernel, EveryReductionMatchesReference) {
  std::mt19937 rng(51);
  const std::string reductions[] = {"none", "add", "mul", "max", "min"};
  for (int iter = 0; iter < 40; ++iter) {
    const std::string& reduction = reductions[iter % 5];
    const int64_t r = RandomInt(rng, 1, 3);
    const Shape data_shape = RandomShape(rng, r, 1, 4);
    const int64_t a = RandomInt(rng, 0, r - 1);
    Shape idx_shape = data_shape;
    for (int64_t d = 0; d < r; ++d) idx_shape[d] = RandomInt(rng, 1, data_shape[d]);
    std::vector<int64_t> idx(Count(idx_shape));
    for (int64_t& i : idx) i = RandomInt(rng, -data_shape[a], data_shape[a] - 1);
    const std::vector<float> x = RandomVector<float>(rng, Count(data_shape));
    const std::vector<float> u = RandomVector<float>(rng, Count(idx_shape));
    OpCase op{"ScatterElements", OpsetOf(reduction),
              {In(Tensor::FromVector<float>(data_shape, x).value()),
               In(Tensor::FromVector<int64_t>(idx_shape, idx).value()),
               In(Tensor::FromVector<float>(idx_shape, u).value())},
              {IntAttr("axis", a - (iter % 2 ? r : 0))}};
    if (reduction != "none") op.attributes.push_back(StringAttr("reduction", reduction));
    std::vector<float> expected = x;
    ForEachIndex(idx_shape, [&](const std::vector<int64_t>& i) {
      std::vector<int64_t> j = i;
      const int64_t v = idx[Offset(idx_shape, i)];
      j[a] = v < 0 ? v + data_shape[a] : v;
      float& dst = expected[Offset(data_shape, j)];
      dst = Combine(reduction, dst, u[Offset(idx_shape, i)]);
    });
    NXRT_ASSERT_OK_AND_ASSIGN(std::vector<Tensor> y, RunOp(op));
    EXPECT_TRUE(nn::testing::AllClose(Values<float>(y[0]), expected, 1e-6, 1e-6)) << reduction;
  }
}

TEST(ScatterElementsKernel, MaxNeedsOpset18) {
  OpCase op{"ScatterElements", 16,
            {In(Tensor::Allocate(DataType::kFloat, {2}).value()),
             In(Tensor::FromVector<int64_t>({1}, {0}).value()),
             In(Tensor::Allocate(DataType::kFloat, {1}).value())},
            {StringAttr("reduction", "max")}};
  Result<std::vector<Tensor>> y = RunOp(op);
  ASSERT_FALSE(y.ok());
  EXPECT_EQ(y.status().code(), StatusCode::kInvalidModel);
  EXPECT_NE(y.status().message().find("needs opset 18"), std::string::npos)
      << y.status().message();
}

TEST(ScatterKernel, Opset9IsScatterElementsWithoutReduction) {
  OpCase op{"Scatter", 9,
            {In(Tensor::FromVector<float>({1, 5}, {1, 2, 3, 4, 5}).value()),
             In(Tensor::FromVector<int32_t>({1, 2}, {1, 3}).value()),
             In(Tensor::FromVector<float>({1, 2}, {1.1f, 2.1f}).value())},
            {IntAttr("axis", 1)}};
  NXRT_ASSERT_OK_AND_ASSIGN(std::vector<Tensor> y, RunOp(op));
  EXPECT_EQ(Values<float>(y[0]), (std::vector<float>{1, 1.1f, 3, 2.1f, 5}));
  op.opset = 11;
  EXPECT_FALSE(RunOp(op).ok());  // deprecated from opset 11: ScatterElements replaces it
}

// Scatter-9/10 (ScatterElements before it had a name) on random shapes and axes, with int32 and
// int64 indices, negative ones included: updates written in index order.
TEST(ScatterKernel, RandomAxesAndIndicesMatchReference) {
  std::mt19937 rng(53);
  for (int iter = 0; iter < 30; ++iter) {
    const int64_t r = RandomInt(rng, 1, 3);
    const Shape data_shape = RandomShape(rng, r, 1, 4);
    const int64_t a = RandomInt(rng, 0, r - 1);
    Shape idx_shape = data_shape;
    for (int64_t d = 0; d < r; ++d) idx_shape[d] = RandomInt(rng, 1, data_shape[d]);
    std::vector<int64_t> idx(Count(idx_shape));
    for (int64_t& i : idx) i = RandomInt(rng, -data_shape[a], data_shape[a] - 1);
    const std::vector<float> x = RandomVector<float>(rng, Count(data_shape));
    const std::vector<float> u = RandomVector<float>(rng, Count(idx_shape));
    const bool int32 = iter % 2 == 0;
    const std::vector<int32_t> idx32(idx.begin(), idx.end());
    OpCase op{"Scatter", iter % 3 ? 9 : 10,
              {In(Tensor::FromVector<float>(data_shape, x).value()),
               int32 ? In(Tensor::FromVector<int32_t>(idx_shape, idx32).value())
                     : In(Tensor::FromVector<int64_t>(idx_shape, idx).value()),
               In(Tensor::FromVector<float>(idx_shape, u).value())},
              {IntAttr("axis", a - (iter % 4 < 2 ? r : 0))}};
    std::vector<float> expected = x;
    ForEachIndex(idx_shape, [&](const std::vector<int64_t>& i) {
      std::vector<int64_t> j = i;
      const int64_t v = idx[Offset(idx_shape, i)];
      j[a] = v < 0 ? v + data_shape[a] : v;
      expected[Offset(data_shape, j)] = u[Offset(idx_shape, i)];
    });
    NXRT_ASSERT_OK_AND_ASSIGN(std::vector<Tensor> y, RunOp(op));
    EXPECT_EQ(y[0].shape(), data_shape);
    EXPECT_EQ(Values<float>(y[0]), expected) << "case " << iter;
  }
}

TEST(ScatterNDKernel, EveryReductionMatchesReference) {
  std::mt19937 rng(52);
  const std::string reductions[] = {"none", "add", "mul", "max", "min"};
  for (int iter = 0; iter < 40; ++iter) {
    const std::string& reduction = reductions[iter % 5];
    const int64_t r = RandomInt(rng, 1, 3);
    const Shape data_shape = RandomShape(rng, r, 1, 4);
    const int64_t k = RandomInt(rng, 1, r);
    Shape idx_shape = RandomShape(rng, RandomInt(rng, 0, 2), 1, 3);
    idx_shape.push_back(k);
    std::vector<int64_t> idx(Count(idx_shape));
    for (size_t t = 0; t < idx.size(); ++t) {
      const int64_t dim = data_shape[t % k];
      idx[t] = RandomInt(rng, -dim, dim - 1);
    }
    Shape upd_shape(idx_shape.begin(), idx_shape.end() - 1);
    upd_shape.insert(upd_shape.end(), data_shape.begin() + k, data_shape.end());
    const std::vector<float> x = RandomVector<float>(rng, Count(data_shape));
    const std::vector<float> u = RandomVector<float>(rng, Count(upd_shape));
    OpCase op{"ScatterND", OpsetOf(reduction),
              {In(Tensor::FromVector<float>(data_shape, x).value()),
               In(Tensor::FromVector<int64_t>(idx_shape, idx).value()),
               In(Tensor::FromVector<float>(upd_shape, u).value())}};
    if (reduction != "none") op.attributes.push_back(StringAttr("reduction", reduction));
    std::vector<float> expected = x;
    const size_t lead = idx_shape.size() - 1;
    ForEachIndex(upd_shape, [&](const std::vector<int64_t>& i) {
      std::vector<int64_t> at(i.begin(), i.begin() + lead);
      at.push_back(0);
      const int64_t base = Offset(idx_shape, at);
      std::vector<int64_t> j;
      for (int64_t t = 0; t < k; ++t) {
        const int64_t v = idx[base + t];
        j.push_back(v < 0 ? v + data_shape[t] : v);
      }
      j.insert(j.end(), i.begin() + lead, i.end());
      float& dst = expected[Offset(data_shape, j)];
      dst = Combine(reduction, dst, u[Offset(upd_shape, i)]);
    });
    NXRT_ASSERT_OK_AND_ASSIGN(std::vector<Tensor> y, RunOp(op));
    EXPECT_TRUE(nn::testing::AllClose(Values<float>(y[0]), expected, 1e-6, 1e-6)) << reduction;
  }
}

// Issue 6: a negative index counts from the end of its axis.
TEST(ScatterNDKernel, Issue6NegativeIndicesCountFromTheEnd) {
  OpCase op{"ScatterND", 13,
            {In(Tensor::FromVector<float>({2, 3}, {1, 2, 3, 4, 5, 6}).value()),
             In(Tensor::FromVector<int64_t>({2, 2}, {-1, -1, 0, -3}).value()),
             In(Tensor::FromVector<float>({2}, {60, 10}).value())}};
  NXRT_ASSERT_OK_AND_ASSIGN(std::vector<Tensor> y, RunOp(op));
  EXPECT_EQ(Values<float>(y[0]), (std::vector<float>{10, 2, 3, 4, 5, 60}));
}

// Issue 6: an index out of range, above or below, is an error, never a write outside the data.
TEST(ScatterElementsKernel, IndexOutOfRangeIsARuntimeError) {
  for (const char* op_type : {"ScatterElements", "Scatter"}) {
    for (int64_t bad : {2, -3}) {
      OpCase op{op_type, std::string(op_type) == "Scatter" ? 9 : 13,
                {In(Tensor::Allocate(DataType::kFloat, {2, 2}).value()),
                 In(Tensor::FromVector<int64_t>({1, 2}, {0, bad}).value()),
                 In(Tensor::Allocate(DataType::kFloat, {1, 2}).value())},
                {IntAttr("axis", 1)}};
      Result<std::vector<Tensor>> y = RunOp(op);
      ASSERT_FALSE(y.ok()) << op_type << " index " << bad;
      EXPECT_EQ(y.status().code(), StatusCode::kRuntimeError) << op_type << " index " << bad;
    }
  }
}

TEST(ScatterNDKernel, IndexOutOfRangeIsARuntimeError) {
  OpCase op{"ScatterND", 13,
            {In(Tensor::Allocate(DataType::kFloat, {4}).value()),
             In(Tensor::FromVector<int64_t>({1, 1}, {-5}).value()),
             In(Tensor::Allocate(DataType::kFloat, {1}).value())}};
  Result<std::vector<Tensor>> y = RunOp(op);
  ASSERT_FALSE(y.ok());
  EXPECT_EQ(y.status().code(), StatusCode::kRuntimeError);
}

}  // namespace
}  // namespace nxrt::cpu::kernels::testing
