// ep/cpu/math/broadcast_test.cpp: broadcast shapes, error messages and the collapsed geometry.
#include "ep/cpu/math/broadcast.h"

#include <gtest/gtest.h>

#include "ep/cpu/math/testing/test_util.h"

namespace nxrt::cpu::math {
namespace {

using testing::BroadcastableTo;
using testing::BroadcastSource;
using testing::RandomShape;
using testing::Unravel;

TEST(BroadcastShapes, SpecExamples) {
  // ONNX docs/Broadcasting.md examples.
  EXPECT_EQ(BroadcastShapes("Add", {2, 3, 4, 5}, {}).value(), (Shape{2, 3, 4, 5}));
  EXPECT_EQ(BroadcastShapes("Add", {2, 3, 4, 5}, {5}).value(), (Shape{2, 3, 4, 5}));
  EXPECT_EQ(BroadcastShapes("Add", {4, 5}, {2, 3, 4, 5}).value(), (Shape{2, 3, 4, 5}));
  EXPECT_EQ(BroadcastShapes("Add", {1, 4, 5}, {2, 3, 1, 1}).value(), (Shape{2, 3, 4, 5}));
  EXPECT_EQ(BroadcastShapes("Add", {3, 4, 5}, {2, 1, 1, 1}).value(), (Shape{2, 3, 4, 5}));
  EXPECT_EQ(BroadcastShapes("Add", {0, 3}, {1, 3}).value(), (Shape{0, 3}));
  EXPECT_EQ(BroadcastShapes("Add", {0}, {1}).value(), (Shape{0}));
}

TEST(BroadcastShapes, IncompatibleShapesNameBothShapes) {
  const auto r = BroadcastShapes("Add", {2, 3}, {4});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(r.status().message(), "Add: cannot broadcast [2,3] with [4] (dim -1: 3 vs 4)");

  const Shape three[] = {{2, 1}, {1, 5}, {3, 5}};
  const auto r3 = BroadcastShapes("Where", three);
  ASSERT_FALSE(r3.ok());
  EXPECT_EQ(r3.status().message(),
            "Where: cannot broadcast [2,1], [1,5] with [3,5] (dim -2: 2 vs 3)");

  EXPECT_FALSE(BroadcastShapes("Add", {0}, {2}).ok());
}

TEST(BroadcastGeometry, CollapsesSameShapeToOneRun) {
  const Shape shapes[] = {{2, 3, 4}, {2, 3, 4}};
  const auto g = MakeBroadcastGeometry("Add", {2, 3, 4}, shapes).value();
  EXPECT_EQ(g.dims, (std::vector<int64_t>{24}));
  EXPECT_EQ(g.inner_stride(0), 1);
  EXPECT_EQ(g.inner_stride(1), 1);
}

TEST(BroadcastGeometry, ScalarAndRowBroadcast) {
  const Shape scalar[] = {{2, 3, 4}, {}};
  auto g = MakeBroadcastGeometry("Add", {2, 3, 4}, scalar).value();
  EXPECT_EQ(g.dims, (std::vector<int64_t>{24}));
  EXPECT_EQ(g.inner_stride(1), 0);

  const Shape row[] = {{5, 3, 4}, {4}};
  g = MakeBroadcastGeometry("Add", {5, 3, 4}, row).value();
  EXPECT_EQ(g.dims, (std::vector<int64_t>{15, 4}));
  EXPECT_EQ(g.strides[0], (std::vector<int64_t>{4, 1}));
  EXPECT_EQ(g.strides[1], (std::vector<int64_t>{0, 1}));

  // Per-channel bias on NCHW: the inner run is H*W with the bias as a scalar.
  const Shape bias[] = {{2, 3, 4, 5}, {3, 1, 1}};
  g = MakeBroadcastGeometry("Add", {2, 3, 4, 5}, bias).value();
  EXPECT_EQ(g.dims, (std::vector<int64_t>{2, 3, 20}));
  EXPECT_EQ(g.strides[1], (std::vector<int64_t>{0, 1, 0}));
}

TEST(BroadcastGeometry, RejectsInputThatDoesNotBroadcastToOutput) {
  const Shape shapes[] = {{3, 4}};
  const auto r = MakeBroadcastGeometry("PRelu", {2, 4}, shapes);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            "PRelu: cannot broadcast input shape [3,4] to output shape [2,4] (dim -2: 3 vs 2)");
}

// Every run and offset of ForEachRun matches naive index arithmetic on random shapes.
TEST(BroadcastGeometry, RandomShapesMatchNaiveIndexing) {
  std::mt19937_64 rng(1234);
  for (int iter = 0; iter < 500; ++iter) {
    const Shape out = RandomShape(rng, 0, 5, 0, 4);
    const Shape a = BroadcastableTo(rng, out);
    const Shape b = BroadcastableTo(rng, out);
    const Shape shapes[] = {a, b};
    const Shape expected_out = BroadcastShapes("Add", a, b).value();
    const auto g = MakeBroadcastGeometry("Add", expected_out, shapes).value();
    int64_t position = 0;
    bool ok = true;
    ForEachRun<2>(g, [&](const std::array<int64_t, 2>& offsets, int64_t n) {
      for (int64_t i = 0; i < n; ++i, ++position) {
        const auto index = Unravel(expected_out, position);
        ok = ok && offsets[0] + i * g.inner_stride(0) == BroadcastSource(a, index) &&
             offsets[1] + i * g.inner_stride(1) == BroadcastSource(b, index);
      }
    });
    EXPECT_TRUE(ok) << ShapeToString(a) << " with " << ShapeToString(b);
    EXPECT_EQ(position, g.output_count);
  }
}

}  // namespace
}  // namespace nxrt::cpu::math
