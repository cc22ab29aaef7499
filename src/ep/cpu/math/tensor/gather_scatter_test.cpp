// ep/cpu/math/tensor/gather_scatter_test.cpp: tests of Gather, GatherElements, GatherND,
// ScatterElements and ScatterND against independent references, the ONNX operator doc examples, and
// the out-of-range index errors (never a crash).
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "ep/cpu/math/tensor/gather.h"
#include "ep/cpu/math/tensor/scatter.h"
#include "ep/cpu/math/testing/nn_test_util.h"

namespace nxrt::cpu::nn {
namespace {

using testing::AllClose;
using testing::Count;
using testing::ForEachIndex;
using testing::Offset;
using testing::RandomInt;
using testing::RandomShape;

TEST(GatherTest, SpecExampleAxis0) {
  const std::vector<float> data = {1.0f, 1.2f, 2.3f, 3.4f, 4.5f, 5.7f};
  const std::vector<int64_t> indices = {0, 1, 1, 2};
  NXRT_ASSERT_OK_AND_ASSIGN(GatherPlan plan, PrepareGather(DataType::kFloat, Shape{3, 2},
                                                           DataType::kInt64, Shape{2, 2}, 0));
  EXPECT_EQ(plan.output_shape, (Shape{2, 2, 2}));
  std::vector<float> out(8);
  NXRT_ASSERT_OK(Gather(plan, data.data(), indices.data(), out.data()));
  EXPECT_EQ(out, (std::vector<float>{1.0f, 1.2f, 2.3f, 3.4f, 2.3f, 3.4f, 4.5f, 5.7f}));
}

TEST(GatherTest, RandomAxesNegativeIndicesBothIndexTypes) {
  std::mt19937 rng(21);
  for (int iter = 0; iter < 40; ++iter) {
    const int64_t rank = RandomInt(rng, 1, 4);
    const Shape data_shape = RandomShape(rng, rank, 1, 4);
    const int64_t axis = RandomInt(rng, -rank, rank - 1);
    const int64_t a = axis < 0 ? axis + rank : axis;
    const Shape idx_shape = RandomShape(rng, RandomInt(rng, 0, 2), 0, 3);
    const std::vector<int64_t> idx64 =
        testing::RandomInts(rng, Count(idx_shape), -data_shape[a], data_shape[a] - 1);
    const std::vector<int32_t> idx32(idx64.begin(), idx64.end());
    std::vector<double> data(Count(data_shape));
    for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<double>(i);
    for (DataType it : {DataType::kInt32, DataType::kInt64}) {
      NXRT_ASSERT_OK_AND_ASSIGN(GatherPlan plan,
                                PrepareGather(DataType::kDouble, data_shape, it, idx_shape, axis));
      std::vector<double> out(Count(plan.output_shape));
      const void* idx = it == DataType::kInt32 ? static_cast<const void*>(idx32.data())
                                               : static_cast<const void*>(idx64.data());
      NXRT_ASSERT_OK(Gather(plan, data.data(), idx, out.data()));
      const int64_t q = static_cast<int64_t>(idx_shape.size());
      ForEachIndex(plan.output_shape, [&](const std::vector<int64_t>& o) {
        std::vector<int64_t> ii(o.begin() + a, o.begin() + a + q);
        int64_t k = idx64[Offset(idx_shape, ii)];
        if (k < 0) k += data_shape[a];
        std::vector<int64_t> src(o.begin(), o.begin() + a);
        src.push_back(k);
        src.insert(src.end(), o.begin() + a + q, o.end());
        ASSERT_EQ(out[Offset(plan.output_shape, o)], data[Offset(data_shape, src)]);
      });
    }
  }
}

TEST(GatherTest, OutOfRangeIndexIsAnError) {
  const std::vector<float> data = {1, 2, 3};
  const std::vector<int64_t> indices = {0, 3};
  NXRT_ASSERT_OK_AND_ASSIGN(
      GatherPlan plan, PrepareGather(DataType::kFloat, Shape{3}, DataType::kInt64, Shape{2}, 0));
  std::vector<float> out(2);
  Status s = Gather(plan, data.data(), indices.data(), out.data());
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("index 3 at position 1"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("size 3"), std::string::npos) << s.message();
  EXPECT_FALSE(PrepareGather(DataType::kFloat, Shape{3}, DataType::kFloat, Shape{2}, 0).ok());
}

TEST(GatherElementsTest, SpecExamples) {
  const std::vector<float> d2 = {1, 2, 3, 4};
  const std::vector<int64_t> i2 = {0, 0, 1, 0};
  NXRT_ASSERT_OK_AND_ASSIGN(
      GatherElementsPlan p2,
      PrepareGatherElements(DataType::kFloat, Shape{2, 2}, DataType::kInt64, Shape{2, 2}, 1));
  std::vector<float> out(4);
  NXRT_ASSERT_OK(GatherElements(p2, d2.data(), i2.data(), out.data()));
  EXPECT_EQ(out, (std::vector<float>{1, 1, 4, 3}));

  const std::vector<float> d3 = {1, 2, 3, 4, 5, 6, 7, 8, 9};
  const std::vector<int32_t> i3 = {1, 2, 0, 2, 0, 0};
  NXRT_ASSERT_OK_AND_ASSIGN(
      GatherElementsPlan p3,
      PrepareGatherElements(DataType::kFloat, Shape{3, 3}, DataType::kInt32, Shape{2, 3}, 0));
  std::vector<float> out3(6);
  NXRT_ASSERT_OK(GatherElements(p3, d3.data(), i3.data(), out3.data()));
  EXPECT_EQ(out3, (std::vector<float>{4, 8, 3, 7, 2, 3}));

  // gather_elements_negative_indices.
  const std::vector<int32_t> neg = {-1, -2, 0, -2, 0, 0};
  NXRT_ASSERT_OK(GatherElements(p3, d3.data(), neg.data(), out3.data()));
  EXPECT_EQ(out3, (std::vector<float>{7, 5, 3, 4, 2, 3}));

  const std::vector<int32_t> bad = {1, 2, 3, 0, 0, 0};
  Status s = GatherElements(p3, d3.data(), bad.data(), out3.data());
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("index 3"), std::string::npos) << s.message();
}

TEST(GatherElementsTest, RandomAgainstDefinition) {
  std::mt19937 rng(22);
  for (int iter = 0; iter < 40; ++iter) {
    const int64_t rank = RandomInt(rng, 1, 4);
    const Shape data_shape = RandomShape(rng, rank, 1, 4);
    const int64_t axis = RandomInt(rng, 0, rank - 1);
    Shape idx_shape = data_shape;
    for (int64_t d = 0; d < rank; ++d) {
      idx_shape[d] = d == axis ? RandomInt(rng, 0, 5) : RandomInt(rng, 1, data_shape[d]);
    }
    const std::vector<int64_t> idx =
        testing::RandomInts(rng, Count(idx_shape), -data_shape[axis], data_shape[axis] - 1);
    std::vector<std::string> data;
    for (int64_t i = 0; i < Count(data_shape); ++i) data.push_back(std::to_string(i));
    NXRT_ASSERT_OK_AND_ASSIGN(
        GatherElementsPlan plan,
        PrepareGatherElements(DataType::kString, data_shape, DataType::kInt64, idx_shape, axis));
    std::vector<std::string> out(Count(idx_shape));
    NXRT_ASSERT_OK(GatherElements(plan, data.data(), idx.data(), out.data()));
    ForEachIndex(idx_shape, [&](const std::vector<int64_t>& o) {
      std::vector<int64_t> src = o;
      const int64_t k = idx[Offset(idx_shape, o)];
      src[axis] = k < 0 ? k + data_shape[axis] : k;
      ASSERT_EQ(out[Offset(idx_shape, o)], data[Offset(data_shape, src)]);
    });
  }
}

TEST(GatherNDTest, SpecExamples) {
  const std::vector<int32_t> d22 = {0, 1, 2, 3};
  const std::vector<int32_t> d222 = {0, 1, 2, 3, 4, 5, 6, 7};
  struct Case {
    const std::vector<int32_t>* data;
    Shape data_shape;
    std::vector<int64_t> indices;
    Shape indices_shape;
    int64_t batch_dims;
    Shape out_shape;
    std::vector<int32_t> out;
  };
  const Case cases[] = {
      {&d22, {2, 2}, {0, 0, 1, 1}, {2, 2}, 0, {2}, {0, 3}},
      {&d22, {2, 2}, {1, 0}, {2, 1}, 0, {2, 2}, {2, 3, 0, 1}},
      {&d222, {2, 2, 2}, {0, 1, 1, 0}, {2, 2}, 0, {2, 2}, {2, 3, 4, 5}},
      {&d222, {2, 2, 2}, {0, 1, 1, 0}, {2, 1, 2}, 0, {2, 1, 2}, {2, 3, 4, 5}},
      {&d222, {2, 2, 2}, {1, 0}, {2, 1}, 1, {2, 2}, {2, 3, 4, 5}},
  };
  for (const Case& c : cases) {
    NXRT_ASSERT_OK_AND_ASSIGN(GatherNDPlan plan,
                              PrepareGatherND(DataType::kInt32, c.data_shape, DataType::kInt64,
                                              c.indices_shape, c.batch_dims));
    EXPECT_EQ(plan.output_shape, c.out_shape);
    std::vector<int32_t> out(Count(plan.output_shape));
    NXRT_ASSERT_OK(GatherND(plan, c.data->data(), c.indices.data(), out.data()));
    EXPECT_EQ(out, c.out);
  }
  // Negative indices count from the end; out of range is an error.
  NXRT_ASSERT_OK_AND_ASSIGN(GatherNDPlan plan, PrepareGatherND(DataType::kInt32, Shape{2, 2},
                                                               DataType::kInt64, Shape{1, 2}, 0));
  std::vector<int32_t> out(1);
  const std::vector<int64_t> neg = {-1, -2};
  NXRT_ASSERT_OK(GatherND(plan, d22.data(), neg.data(), out.data()));
  EXPECT_EQ(out[0], 2);
  const std::vector<int64_t> bad = {0, 2};
  EXPECT_FALSE(GatherND(plan, d22.data(), bad.data(), out.data()).ok());
  EXPECT_FALSE(
      PrepareGatherND(DataType::kInt32, Shape{2, 2}, DataType::kInt64, Shape{1, 3}, 0).ok());
}

TEST(ScatterElementsTest, SpecExamples) {
  std::vector<float> data(9, 0.0f);
  const std::vector<int64_t> idx = {1, 0, 2, 0, 2, 1};
  const std::vector<float> upd = {1.0f, 1.1f, 1.2f, 2.0f, 2.1f, 2.2f};
  NXRT_ASSERT_OK_AND_ASSIGN(
      ScatterElementsPlan plan,
      PrepareScatterElements(DataType::kFloat, Shape{3, 3}, DataType::kInt64, Shape{2, 3},
                             Shape{2, 3}, 0, ScatterReduction::kNone));
  std::vector<float> out(9);
  NXRT_ASSERT_OK(ScatterElements(plan, data.data(), idx.data(), upd.data(), out.data()));
  EXPECT_EQ(out, (std::vector<float>{2.0f, 1.1f, 0.0f, 1.0f, 0.0f, 2.2f, 0.0f, 2.1f, 1.2f}));

  const std::vector<float> row = {1, 2, 3, 4, 5};
  const std::vector<float> two = {1.1f, 2.1f};
  auto run = [&](std::vector<int64_t> indices, ScatterReduction r) {
    auto p = PrepareScatterElements(DataType::kFloat, Shape{1, 5}, DataType::kInt64, Shape{1, 2},
                                    Shape{1, 2}, 1, r);
    EXPECT_TRUE(p.ok()) << p.status().ToString();
    std::vector<float> o(5);
    EXPECT_TRUE(ScatterElements(*p, row.data(), indices.data(), two.data(), o.data()).ok());
    return o;
  };
  EXPECT_EQ(run({1, 3}, ScatterReduction::kNone), (std::vector<float>{1, 1.1f, 3, 2.1f, 5}));
  EXPECT_EQ(run({1, -3}, ScatterReduction::kNone), (std::vector<float>{1, 1.1f, 2.1f, 4, 5}));
  EXPECT_TRUE(
      AllClose(run({1, 1}, ScatterReduction::kAdd), std::vector<float>{1, 5.2f, 3, 4, 5}, 1e-6, 0));
  EXPECT_TRUE(AllClose(run({1, 1}, ScatterReduction::kMul), std::vector<float>{1, 4.62f, 3, 4, 5},
                       1e-6, 0));
  EXPECT_EQ(run({1, 1}, ScatterReduction::kMax), (std::vector<float>{1, 2.1f, 3, 4, 5}));
  EXPECT_EQ(run({1, 1}, ScatterReduction::kMin), (std::vector<float>{1, 1.1f, 3, 4, 5}));
}

TEST(ScatterElementsTest, RandomReductionsAgainstDefinitionInPlace) {
  std::mt19937 rng(23);
  const ScatterReduction reductions[] = {ScatterReduction::kNone, ScatterReduction::kAdd,
                                         ScatterReduction::kMul, ScatterReduction::kMax,
                                         ScatterReduction::kMin};
  for (int iter = 0; iter < 50; ++iter) {
    const ScatterReduction r = reductions[iter % 5];
    const int64_t rank = RandomInt(rng, 1, 3);
    const Shape data_shape = RandomShape(rng, rank, 1, 4);
    const int64_t axis = RandomInt(rng, 0, rank - 1);
    Shape idx_shape = data_shape;
    for (int64_t d = 0; d < rank; ++d) idx_shape[d] = RandomInt(rng, 0, data_shape[d]);
    // Unique destinations along the axis for reduction none (duplicates are unspecified there).
    std::vector<int64_t> idx(Count(idx_shape));
    ForEachIndex(idx_shape, [&](const std::vector<int64_t>& o) {
      idx[Offset(idx_shape, o)] = r == ScatterReduction::kNone
                                      ? data_shape[axis] - 1 - o[axis]
                                      : RandomInt(rng, -data_shape[axis], data_shape[axis] - 1);
    });
    std::vector<int64_t> data = testing::RandomInts(rng, Count(data_shape), -5, 5);
    const std::vector<int64_t> upd = testing::RandomInts(rng, Count(idx_shape), -5, 5);
    std::vector<int64_t> expected = data;
    ForEachIndex(idx_shape, [&](const std::vector<int64_t>& o) {
      std::vector<int64_t> dst = o;
      const int64_t k = idx[Offset(idx_shape, o)];
      dst[axis] = k < 0 ? k + data_shape[axis] : k;
      int64_t& e = expected[Offset(data_shape, dst)];
      const int64_t u = upd[Offset(idx_shape, o)];
      switch (r) {
        case ScatterReduction::kNone:
          e = u;
          break;
        case ScatterReduction::kAdd:
          e += u;
          break;
        case ScatterReduction::kMul:
          e *= u;
          break;
        case ScatterReduction::kMax:
          e = std::max(e, u);
          break;
        case ScatterReduction::kMin:
          e = std::min(e, u);
          break;
      }
    });
    NXRT_ASSERT_OK_AND_ASSIGN(ScatterElementsPlan plan,
                              PrepareScatterElements(DataType::kInt64, data_shape, DataType::kInt64,
                                                     idx_shape, idx_shape, axis, r));
    NXRT_ASSERT_OK(ScatterElements(plan, data.data(), idx.data(), upd.data(), data.data()));
    EXPECT_EQ(data, expected);
  }
}

TEST(ScatterElementsTest, Errors) {
  auto shape_err = PrepareScatterElements(DataType::kFloat, Shape{3, 3}, DataType::kInt64,
                                          Shape{2, 3}, Shape{3, 2}, 0, ScatterReduction::kNone);
  ASSERT_FALSE(shape_err.ok());
  EXPECT_NE(shape_err.status().message().find("[2,3]"), std::string::npos);
  EXPECT_NE(shape_err.status().message().find("[3,2]"), std::string::npos);
  EXPECT_FALSE(PrepareScatterElements(DataType::kString, Shape{3}, DataType::kInt64, Shape{1},
                                      Shape{1}, 0, ScatterReduction::kAdd)
                   .ok());
  EXPECT_FALSE(ParseScatterReduction("sum").ok());
  NXRT_ASSERT_OK_AND_ASSIGN(ScatterElementsPlan plan,
                            PrepareScatterElements(DataType::kFloat, Shape{3}, DataType::kInt64,
                                                   Shape{1}, Shape{1}, 0, ScatterReduction::kNone));
  std::vector<float> data(3), out(3);
  const std::vector<int64_t> bad = {-4};
  const std::vector<float> upd = {1};
  EXPECT_FALSE(ScatterElements(plan, data.data(), bad.data(), upd.data(), out.data()).ok());
}

TEST(ScatterNDTest, SpecExamplesAndReductions) {
  const std::vector<float> data = {1, 2, 3, 4, 5, 6, 7, 8};
  const std::vector<int64_t> idx = {4, 3, 1, 7};
  const std::vector<float> upd = {9, 10, 11, 12};
  NXRT_ASSERT_OK_AND_ASSIGN(ScatterNDPlan plan,
                            PrepareScatterND(DataType::kFloat, Shape{8}, DataType::kInt64,
                                             Shape{4, 1}, Shape{4}, ScatterReduction::kNone));
  std::vector<float> out(8);
  NXRT_ASSERT_OK(ScatterND(plan, data.data(), idx.data(), upd.data(), out.data()));
  EXPECT_EQ(out, (std::vector<float>{1, 11, 3, 10, 9, 6, 7, 12}));

  // scatternd_add / scatternd_multiply / max / min with a repeated index.
  const std::vector<int64_t> dup = {4, 4};
  const std::vector<float> u2 = {9, 10};
  const std::pair<ScatterReduction, float> expected[] = {{ScatterReduction::kAdd, 24},
                                                         {ScatterReduction::kMul, 450},
                                                         {ScatterReduction::kMax, 10},
                                                         {ScatterReduction::kMin, 5}};
  for (auto [r, want] : expected) {
    NXRT_ASSERT_OK_AND_ASSIGN(
        ScatterNDPlan p,
        PrepareScatterND(DataType::kFloat, Shape{8}, DataType::kInt64, Shape{2, 1}, Shape{2}, r));
    NXRT_ASSERT_OK(ScatterND(p, data.data(), dup.data(), u2.data(), out.data()));
    EXPECT_EQ(out[4], want);
  }

  // 3-D spec example: slices [0] and [2] of a [4,4,4] tensor replaced.
  std::vector<float> cube(64, 1.0f), slabs(32);
  for (int i = 0; i < 32; ++i) slabs[i] = static_cast<float>(i);
  const std::vector<int64_t> sidx = {0, 2};
  NXRT_ASSERT_OK_AND_ASSIGN(ScatterNDPlan p3,
                            PrepareScatterND(DataType::kFloat, Shape{4, 4, 4}, DataType::kInt64,
                                             Shape{2, 1}, Shape{2, 4, 4}, ScatterReduction::kNone));
  NXRT_ASSERT_OK(ScatterND(p3, cube.data(), sidx.data(), slabs.data(), cube.data()));
  EXPECT_EQ(cube[0], 0.0f);
  EXPECT_EQ(cube[16], 1.0f);
  EXPECT_EQ(cube[32], 16.0f);
  EXPECT_EQ(cube[63], 1.0f);
}

TEST(ScatterNDTest, Errors) {
  auto r = PrepareScatterND(DataType::kFloat, Shape{4, 4}, DataType::kInt64, Shape{2, 1},
                            Shape{2, 3}, ScatterReduction::kNone);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("expected [2,4]"), std::string::npos) << r.status().message();
  NXRT_ASSERT_OK_AND_ASSIGN(ScatterNDPlan plan,
                            PrepareScatterND(DataType::kFloat, Shape{4}, DataType::kInt64,
                                             Shape{1, 1}, Shape{1}, ScatterReduction::kNone));
  std::vector<float> data(4), upd(1);
  const std::vector<int64_t> bad = {4};
  EXPECT_FALSE(ScatterND(plan, data.data(), bad.data(), upd.data(), data.data()).ok());
}

}  // namespace
}  // namespace nxrt::cpu::nn
