// ep/cpu/kernels/tensor/transpose_test.cpp: Transpose, DepthToSpace and SpaceToDepth kernels,
// run as one-node graphs against references written from the ONNX definitions.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <numeric>
#include <random>
#include <string>

#include "ep/cpu/kernels/tensor/single_op_test_util.h"
#include "ep/cpu/math/testing/nn_test_util.h"

namespace nxrt::cpu::kernels::testing {
namespace {

using nn::testing::Count;
using nn::testing::ForEachIndex;
using nn::testing::Offset;
using nn::testing::RandomShape;
using nn::testing::RandomVector;

// out[i] = in[j] with j[perm[k]] = i[k].
template <typename T>
std::vector<T> TransposeRef(const std::vector<T>& in, const Shape& shape,
                            const std::vector<int64_t>& perm) {
  Shape out_shape;
  for (int64_t p : perm) out_shape.push_back(shape[p]);
  std::vector<T> out(in.size());
  ForEachIndex(out_shape, [&](const std::vector<int64_t>& i) {
    std::vector<int64_t> j(shape.size());
    for (size_t k = 0; k < perm.size(); ++k) j[perm[k]] = i[k];
    out[Offset(out_shape, i)] = in[Offset(shape, j)];
  });
  return out;
}

TEST(TransposeKernel, RandomShapesAndPermsMatchReference) {
  std::mt19937 rng(11);
  for (int iter = 0; iter < 40; ++iter) {
    const int64_t rank = nn::testing::RandomInt(rng, 1, 5);
    const Shape shape = RandomShape(rng, rank, 1, 4);
    std::vector<int64_t> perm(rank);
    std::iota(perm.begin(), perm.end(), 0);
    std::shuffle(perm.begin(), perm.end(), rng);
    const std::vector<float> x = RandomVector<float>(rng, Count(shape));
    OpCase op{"Transpose", iter % 2 ? 13 : 1,
              {In(Tensor::FromVector<float>(shape, x).value())},
              {IntsAttr("perm", perm)}};
    NXRT_ASSERT_OK_AND_ASSIGN(std::vector<Tensor> y, RunOp(op));
    EXPECT_EQ(Values<float>(y[0]), TransposeRef(x, shape, perm)) << ShapeToString(shape);
  }
}

// The 4-byte layout transposes (math/nn_common.cpp: 8x8 register transposes on AVX2, the edges
// element by element) at one and two threads: NCHW <-> NHWC and last-two-axes swaps with sizes
// around the 8-element blocks and 32-element tiles, float with NaN payloads, infinities and -0
// (moved bit for bit), and int32.
TEST(TransposeKernel, FourByteLayoutTransposesAtOneAndTwoThreads) {
  std::mt19937 rng(12);
  const std::vector<std::pair<Shape, std::vector<int64_t>>> cases = {
      {{1, 64, 61, 67}, {0, 2, 3, 1}}, {{2, 13, 9, 17}, {0, 2, 3, 1}},
      {{1, 47, 33, 24}, {0, 3, 1, 2}}, {{12, 128, 64}, {0, 2, 1}},
      {{3, 9, 1031}, {0, 2, 1}},       {{8, 8}, {1, 0}},
      {{7, 300}, {1, 0}},              {{2, 5, 40, 8}, {1, 0, 3, 2}}};
  for (const auto& [shape, perm] : cases) {
    std::vector<float> x = RandomVector<float>(rng, Count(shape));
    std::vector<int32_t> xi(x.size());
    for (size_t i = 0; i < x.size(); ++i) {
      xi[i] = static_cast<int32_t>(rng());
      if (i % 97 == 3) x[i] = std::bit_cast<float>(0x7fc00000u | static_cast<uint32_t>(i));
      if (i % 89 == 5) x[i] = i % 2 ? INFINITY : -INFINITY;
      if (i % 83 == 7) x[i] = -0.0f;
    }
    const std::vector<float> want = TransposeRef(x, shape, perm);
    const std::vector<int32_t> want_int = TransposeRef(xi, shape, perm);
    for (int threads : {1, 2}) {
      SCOPED_TRACE(::testing::Message() << ShapeToString(shape) << " at " << threads
                                        << " thread(s)");
      OpCase op{"Transpose", 13, {In(Tensor::FromVector<float>(shape, x).value())},
                {IntsAttr("perm", perm)}};
      NXRT_ASSERT_OK_AND_ASSIGN(std::vector<Tensor> y, RunOp(op, AsWritten(threads)));
      const std::vector<float> got = Values<float>(y[0]);
      ASSERT_EQ(got.size(), want.size());
      EXPECT_EQ(std::memcmp(got.data(), want.data(), got.size() * sizeof(float)), 0);
      op.inputs = {In(Tensor::FromVector<int32_t>(shape, xi).value())};
      NXRT_ASSERT_OK_AND_ASSIGN(std::vector<Tensor> yi, RunOp(op, AsWritten(threads)));
      EXPECT_EQ(Values<int32_t>(yi[0]), want_int);
    }
  }
}

TEST(TransposeKernel, DefaultPermReversesAxesForStrings) {
  const std::vector<std::string> x = {"a", "b", "c", "d", "e", "f"};
  OpCase op{"Transpose", 13, {In(Tensor::FromVector<std::string>({2, 3}, x).value())}};
  NXRT_ASSERT_OK_AND_ASSIGN(std::vector<Tensor> y, RunOp(op));
  EXPECT_EQ(y[0].shape(), (Shape{3, 2}));
  EXPECT_EQ(Values<std::string>(y[0]), (std::vector<std::string>{"a", "d", "b", "e", "c", "f"}));
}

TEST(TransposeKernel, RepeatedAxisInPermIsAnError) {
  OpCase op{"Transpose", 13, {In(Tensor::Allocate(DataType::kFloat, {2, 3}).value())},
            {IntsAttr("perm", {0, 0})}};
  Result<std::vector<Tensor>> y = RunOp(op);
  ASSERT_FALSE(y.ok());
  EXPECT_NE(y.status().message().find("perm"), std::string::npos) << y.status().message();
}

TEST(TransposeKernel, Bfloat16NeedsOpset13) {
  OpCase op{"Transpose", 12, {In(Tensor::Allocate(DataType::kBFloat16, {2, 3}).value())}};
  Result<std::vector<Tensor>> y = RunOp(op);
  ASSERT_FALSE(y.ok());
  EXPECT_EQ(y.status().code(), StatusCode::kInvalidModel);  // the loader's schema check
  EXPECT_NE(y.status().message().find("bfloat16"), std::string::npos) << y.status().message();
  op.opset = 13;
  NXRT_ASSERT_OK(RunOp(op));
}

// DepthToSpace per the ONNX definition: DCR reads depth as (by, bx, c), CRD as (c, by, bx).
std::vector<float> DepthToSpaceRef(const std::vector<float>& x, const Shape& s, int64_t b,
                                   bool crd) {
  const int64_t n = s[0], c = s[1] / (b * b), h = s[2], w = s[3];
  const Shape out_shape = {n, c, h * b, w * b};
  std::vector<float> out(x.size());
  ForEachIndex(out_shape, [&](const std::vector<int64_t>& i) {
    const int64_t by = i[2] % b, bx = i[3] % b;
    const int64_t depth = crd ? (i[1] * b + by) * b + bx : (by * b + bx) * c + i[1];
    out[Offset(out_shape, i)] = x[Offset(s, std::vector<int64_t>{i[0], depth, i[2] / b,
                                                                   i[3] / b})];
  });
  return out;
}

TEST(DepthToSpaceKernel, DcrAndCrdMatchReference) {
  std::mt19937 rng(12);
  for (int iter = 0; iter < 12; ++iter) {
    const int64_t b = nn::testing::RandomInt(rng, 1, 3);
    const Shape shape = {nn::testing::RandomInt(rng, 1, 2), b * b * nn::testing::RandomInt(rng, 1, 3),
                         nn::testing::RandomInt(rng, 1, 4), nn::testing::RandomInt(rng, 1, 4)};
    const std::vector<float> x = RandomVector<float>(rng, Count(shape));
    const bool crd = iter % 2 == 1;
    OpCase op{"DepthToSpace", crd ? 13 : 11, {In(Tensor::FromVector<float>(shape, x).value())},
              {IntAttr("blocksize", b), StringAttr("mode", crd ? "CRD" : "DCR")}};
    NXRT_ASSERT_OK_AND_ASSIGN(std::vector<Tensor> y, RunOp(op));
    EXPECT_EQ(Values<float>(y[0]), DepthToSpaceRef(x, shape, b, crd));
  }
}

TEST(DepthToSpaceKernel, Opset1IsDcrAndRefusesMode) {
  std::mt19937 rng(13);
  const Shape shape = {1, 8, 2, 3};
  const std::vector<float> x = RandomVector<float>(rng, Count(shape));
  OpCase op{"DepthToSpace", 1, {In(Tensor::FromVector<float>(shape, x).value())},
            {IntAttr("blocksize", 2)}};
  NXRT_ASSERT_OK_AND_ASSIGN(std::vector<Tensor> y, RunOp(op));
  EXPECT_EQ(Values<float>(y[0]), DepthToSpaceRef(x, shape, 2, false));
  // `mode` came with opset 11; ONNX Runtime 1.30 refuses it before ("Unrecognized attribute").
  op.attributes.push_back(StringAttr("mode", "CRD"));
  Result<std::vector<Tensor>> refused = RunOp(op);
  EXPECT_EQ(refused.status().code(), StatusCode::kInvalidModel);
  EXPECT_NE(refused.status().message().find("Unrecognized attribute: mode"), std::string::npos)
      << refused.status().message();
}

TEST(DepthToSpaceKernel, AttributeErrorsNameTheAttribute) {
  OpCase op{"DepthToSpace", 13, {In(Tensor::Allocate(DataType::kFloat, {1, 4, 1, 1}).value())}};
  Result<std::vector<Tensor>> missing = RunOp(op);
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("'blocksize'"), std::string::npos);
  op.attributes = {IntAttr("blocksize", 2), StringAttr("mode", "XYZ")};
  Result<std::vector<Tensor>> mode = RunOp(op);
  ASSERT_FALSE(mode.ok());
  EXPECT_EQ(mode.status().code(), StatusCode::kInvalidModel);
  EXPECT_NE(mode.status().message().find("attribute 'mode' is 'XYZ'"), std::string::npos)
      << mode.status().message();
}

TEST(SpaceToDepthKernel, InvertsDepthToSpaceDcr) {
  std::mt19937 rng(14);
  for (int iter = 0; iter < 8; ++iter) {
    const int64_t b = nn::testing::RandomInt(rng, 1, 3);
    const Shape shape = {1, nn::testing::RandomInt(rng, 1, 3), b * nn::testing::RandomInt(rng, 1, 3),
                         b * nn::testing::RandomInt(rng, 1, 3)};
    const std::vector<float> x = RandomVector<float>(rng, Count(shape));
    OpCase op{"SpaceToDepth", 13, {In(Tensor::FromVector<float>(shape, x).value())},
              {IntAttr("blocksize", b)}};
    NXRT_ASSERT_OK_AND_ASSIGN(std::vector<Tensor> y, RunOp(op));
    const Shape depth_shape = y[0].shape();
    ASSERT_EQ(depth_shape, (Shape{1, shape[1] * b * b, shape[2] / b, shape[3] / b}));
    EXPECT_EQ(DepthToSpaceRef(Values<float>(y[0]), depth_shape, b, false), x);
  }
}

}  // namespace
}  // namespace nxrt::cpu::kernels::testing
