// plugins/example_ep/elementwise_test.cpp: the example EP's broadcasting math against values
// worked out by hand.
#include "example_ep/elementwise.h"

#include <gtest/gtest.h>

#include <cmath>

namespace nxrt_example_ep {
namespace {

TEST(ElementwiseTest, BroadcastDimsFollowsNumpy) {
  Dims out;
  ASSERT_TRUE(BroadcastDims({2, 1, 4}, {3, 1}, &out));
  EXPECT_EQ(out, (Dims{2, 3, 4}));
  ASSERT_TRUE(BroadcastDims({}, {5}, &out));
  EXPECT_EQ(out, (Dims{5}));
  ASSERT_TRUE(BroadcastDims({0, 3}, {1, 3}, &out));
  EXPECT_EQ(out, (Dims{0, 3}));
  EXPECT_FALSE(BroadcastDims({2, 3}, {4, 3}, &out));
}

TEST(ElementwiseTest, SubBroadcastsAColumnAgainstARow) {
  // a: [2,1] = {10, 20}; b: [3] = {1, 2, 3}; a - b: [2,3].
  const float a[] = {10, 20};
  const float b[] = {1, 2, 3};
  float out[6] = {};
  ApplyBinary(ElementwiseOp::kSub, a, {2, 1}, b, {3}, out, {2, 3});
  const float expected[] = {9, 8, 7, 19, 18, 17};
  for (int i = 0; i < 6; ++i) EXPECT_EQ(out[i], expected[i]) << i;
}

TEST(ElementwiseTest, DivByAScalarAndSameShapeMul) {
  const float a[] = {2, 4, 6};
  const float two[] = {2};
  float out[3] = {};
  ApplyBinary(ElementwiseOp::kDiv, a, {3}, two, {}, out, {3});
  EXPECT_EQ(out[0], 1);
  EXPECT_EQ(out[2], 3);
  ApplyBinary(ElementwiseOp::kMul, a, {3}, a, {3}, out, {3});
  EXPECT_EQ(out[1], 16);
}

TEST(ElementwiseTest, UnaryOps) {
  const float x[] = {-1.0f, 0.0f, 2.0f};
  float y[3] = {};
  ApplyUnary(ElementwiseOp::kRelu, x, y, 3);
  EXPECT_EQ(y[0], 0.0f);
  EXPECT_EQ(y[2], 2.0f);
  ApplyUnary(ElementwiseOp::kSigmoid, x, y, 3);
  EXPECT_FLOAT_EQ(y[1], 0.5f);
  EXPECT_FLOAT_EQ(y[2], 1.0f / (1.0f + std::exp(-2.0f)));
  ApplyUnary(ElementwiseOp::kTanh, x, y, 3);
  EXPECT_FLOAT_EQ(y[0], std::tanh(-1.0f));
}

TEST(ElementwiseTest, OpNamesRoundTrip) {
  for (ElementwiseOp op : kAllElementwiseOps) {
    EXPECT_EQ(ElementwiseOpFromName(ElementwiseOpName(op)), op);
  }
  EXPECT_FALSE(ElementwiseOpFromName("Conv").has_value());
}

}  // namespace
}  // namespace nxrt_example_ep
