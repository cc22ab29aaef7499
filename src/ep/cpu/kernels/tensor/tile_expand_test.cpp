// ep/cpu/kernels/tensor/tile_expand_test.cpp: Tile and Expand kernels, their value inputs read
// at prepare time, against references written from the ONNX definitions.
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

TEST(TileKernel, RandomRepeatsMatchReference) {
  std::mt19937 rng(61);
  for (int iter = 0; iter < 30; ++iter) {
    const int64_t r = RandomInt(rng, 1, 4);
    const Shape shape = RandomShape(rng, r, 1, 3);
    const std::vector<int64_t> repeats = nn::testing::RandomInts(rng, r, 0, 3);
    const std::vector<double> x = RandomVector<double>(rng, Count(shape));
    // The repeats arrive as a runtime tensor: the kernel lists input 1 as a value input.
    OpCase op{"Tile", iter % 2 ? 6 : 13,
              {In(Tensor::FromVector<double>(shape, x).value()),
               In(Tensor::FromVector<int64_t>({r}, repeats).value())}};
    Shape out_shape(r);
    for (int64_t d = 0; d < r; ++d) out_shape[d] = shape[d] * repeats[d];
    std::vector<double> expected(Count(out_shape));
    ForEachIndex(out_shape, [&](const std::vector<int64_t>& i) {
      std::vector<int64_t> j(r);
      for (int64_t d = 0; d < r; ++d) j[d] = i[d] % shape[d];
      expected[Offset(out_shape, i)] = x[Offset(shape, j)];
    });
    NXRT_ASSERT_OK_AND_ASSIGN(std::vector<Tensor> y, RunOp(op));
    EXPECT_EQ(y[0].shape(), out_shape);
    EXPECT_EQ(Values<double>(y[0]), expected);
  }
}

TEST(TileKernel, RepeatsOfTheWrongLengthAreAnError) {
  OpCase op{"Tile", 13, {In(Tensor::Allocate(DataType::kFloat, {2, 2}).value()), ConstInts({2})}};
  EXPECT_FALSE(RunOp(op).ok());
}

TEST(ExpandKernel, BroadcastsEitherWayMatchReference) {
  std::mt19937 rng(62);
  for (int iter = 0; iter < 30; ++iter) {
    const int64_t r = RandomInt(rng, 1, 4);
    const Shape full = RandomShape(rng, r, 1, 3);
    // The input keeps a suffix of `full` with some dims set to 1; the target shape drops
    // others to 1 (the input's dim wins) or lengthens the rank.
    const int64_t in_rank = RandomInt(rng, 1, r);
    Shape in_shape(full.end() - in_rank, full.end());
    for (int64_t& d : in_shape) {
      if (RandomInt(rng, 0, 2) == 0) d = 1;
    }
    Shape target = full;
    for (int64_t d = 0; d < in_rank; ++d) {
      if (in_shape[d] != 1 && RandomInt(rng, 0, 2) == 0) target[r - in_rank + d] = 1;
    }
    const std::vector<std::string> x = [&] {
      std::vector<std::string> v(Count(in_shape));
      for (size_t i = 0; i < v.size(); ++i) v[i] = std::to_string(i);
      return v;
    }();
    OpCase op{"Expand", iter % 2 ? 8 : 13,
              {In(Tensor::FromVector<std::string>(in_shape, x).value()), ConstInts(target)}};
    std::vector<std::string> expected(Count(full));
    ForEachIndex(full, [&](const std::vector<int64_t>& i) {
      std::vector<int64_t> j(in_rank);
      for (int64_t d = 0; d < in_rank; ++d) j[d] = in_shape[d] == 1 ? 0 : i[r - in_rank + d];
      expected[Offset(full, i)] = x[Offset(in_shape, j)];
    });
    NXRT_ASSERT_OK_AND_ASSIGN(std::vector<Tensor> y, RunOp(op));
    EXPECT_EQ(y[0].shape(), full);
    EXPECT_EQ(Values<std::string>(y[0]), expected);
  }
}

TEST(ExpandKernel, IncompatibleShapeIsAnErrorPrintingBoth) {
  OpCase op{"Expand", 13, {In(Tensor::Allocate(DataType::kFloat, {3}).value()), ConstInts({2, 4})}};
  Result<std::vector<Tensor>> y = RunOp(op);
  ASSERT_FALSE(y.ok());
  EXPECT_NE(y.status().message().find("[3]"), std::string::npos) << y.status().message();
  EXPECT_NE(y.status().message().find("[2,4]"), std::string::npos) << y.status().message();
}

}  // namespace
}  // namespace nxrt::cpu::kernels::testing
