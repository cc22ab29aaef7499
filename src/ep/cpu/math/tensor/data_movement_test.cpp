// ep/cpu/math/tensor/data_movement_test.cpp: tests of Transpose, DepthToSpace/SpaceToDepth, Concat,
// Split, Slice, Tile, Expand and Pad against independent per-element references, ONNX spec examples
// and named error cases.
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "ep/cpu/math/tensor/concat_split.h"
#include "ep/cpu/math/tensor/pad.h"
#include "ep/cpu/math/tensor/slice.h"
#include "ep/cpu/math/tensor/tile_expand.h"
#include "ep/cpu/math/tensor/transpose.h"
#include "ep/cpu/math/testing/nn_test_util.h"

namespace nxrt::cpu::nn {
namespace {

using testing::Count;
using testing::ForEachIndex;
using testing::Offset;
using testing::RandomInt;
using testing::RandomShape;

std::vector<float> Iota(int64_t n) {
  std::vector<float> v(static_cast<size_t>(n));
  std::iota(v.begin(), v.end(), 0.0f);
  return v;
}

std::vector<std::string> IotaStrings(int64_t n) {
  std::vector<std::string> v;
  for (int64_t i = 0; i < n; ++i) v.push_back(std::to_string(i) + "s");
  return v;
}

TEST(TransposeTest, RandomPermutationsAllElementSizes) {
  std::mt19937 rng(11);
  for (int iter = 0; iter < 60; ++iter) {
    const int64_t rank = RandomInt(rng, 0, 5);
    const Shape in_shape = RandomShape(rng, rank, iter % 10 == 0 ? 0 : 1, 4);
    std::vector<int64_t> perm(rank);
    std::iota(perm.begin(), perm.end(), 0);
    std::shuffle(perm.begin(), perm.end(), rng);
    const int64_t n = Count(in_shape);
    const std::vector<float> in = Iota(n);
    NXRT_ASSERT_OK_AND_ASSIGN(PermutePlan plan, PrepareTranspose(DataType::kFloat, in_shape, perm));
    std::vector<float> out(n, -1.0f);
    NXRT_ASSERT_OK(Permute(plan, in.data(), out.data()));
    ForEachIndex(plan.output_shape, [&](const std::vector<int64_t>& o) {
      std::vector<int64_t> i(rank);
      for (int64_t k = 0; k < rank; ++k) i[perm[k]] = o[k];
      ASSERT_EQ(out[Offset(plan.output_shape, o)], in[Offset(in_shape, i)]);
    });
    // The same permutation moves 1-, 8-byte and string elements identically.
    std::vector<int8_t> in8(n), out8(n);
    for (int64_t j = 0; j < n; ++j) in8[j] = static_cast<int8_t>(j % 100);
    NXRT_ASSERT_OK_AND_ASSIGN(PermutePlan p8, PrepareTranspose(DataType::kInt8, in_shape, perm));
    NXRT_ASSERT_OK(Permute(p8, in8.data(), out8.data()));
    std::vector<std::string> ins = IotaStrings(n), outs(n);
    NXRT_ASSERT_OK_AND_ASSIGN(PermutePlan ps, PrepareTranspose(DataType::kString, in_shape, perm));
    NXRT_ASSERT_OK(Permute(ps, ins.data(), outs.data()));
    for (int64_t j = 0; j < n; ++j) {
      ASSERT_EQ(out8[j], static_cast<int8_t>(static_cast<int64_t>(out[j]) % 100));
      ASSERT_EQ(outs[j], std::to_string(static_cast<int64_t>(out[j])) + "s");
    }
  }
}

// NCHW <-> NHWC and other swaps of the innermost pair, at sizes past one 16x16 tile with
// remainders (the tiled plane copy, and the 8x8 register transposes of 4- and 2-byte elements),
// against the index formula; 2-byte elements move as the 4-byte ones do.
TEST(TransposeTest, LayoutTransposesAcrossTiles) {
  const std::vector<std::pair<Shape, std::vector<int64_t>>> cases = {
      {{2, 19, 5, 37}, {0, 2, 3, 1}}, {{2, 5, 37, 19}, {0, 3, 1, 2}},
      {{1, 33, 17, 18}, {0, 2, 3, 1}}, {{3, 40, 4}, {0, 2, 1}},
      {{7, 4, 6, 5}, {1, 0, 3, 2}},   {{17, 16}, {1, 0}}, {{1, 3, 40, 50}, {0, 2, 3, 1}},
      {{2, 300, 2}, {0, 2, 1}},       {{1, 64, 9, 8}, {0, 2, 3, 1}},
      {{1, 24, 40, 33}, {0, 2, 3, 1}}, {{3, 41, 72}, {0, 2, 1}}};
  for (const auto& [in_shape, perm] : cases) {
    SCOPED_TRACE(::testing::PrintToString(in_shape));
    const int64_t rank = static_cast<int64_t>(in_shape.size());
    const std::vector<float> in = Iota(Count(in_shape));
    NXRT_ASSERT_OK_AND_ASSIGN(PermutePlan plan, PrepareTranspose(DataType::kFloat, in_shape, perm));
    std::vector<float> out(in.size(), -1.0f);
    NXRT_ASSERT_OK(Permute(plan, in.data(), out.data()));
    ForEachIndex(plan.output_shape, [&](const std::vector<int64_t>& o) {
      std::vector<int64_t> i(rank);
      for (int64_t k = 0; k < rank; ++k) i[perm[k]] = o[k];
      ASSERT_EQ(out[Offset(plan.output_shape, o)], in[Offset(in_shape, i)]);
    });
    std::vector<uint16_t> in16(in.size()), out16(in.size());
    std::iota(in16.begin(), in16.end(), uint16_t{0});
    NXRT_ASSERT_OK_AND_ASSIGN(PermutePlan p16,
                              PrepareTranspose(DataType::kFloat16, in_shape, perm));
    NXRT_ASSERT_OK(Permute(p16, in16.data(), out16.data()));
    for (size_t j = 0; j < out.size(); ++j) ASSERT_EQ(out16[j], static_cast<uint16_t>(out[j]));
  }
}

// The copy split into parts (as threads run it) writes what the whole copy writes.
TEST(TransposeTest, PartsOfTheCopyMakeTheWhole) {
  const std::vector<std::pair<Shape, std::vector<int64_t>>> cases = {
      {{1, 24, 9, 11}, {0, 2, 3, 1}}, {{2, 9, 11, 24}, {0, 3, 1, 2}}, {{3, 5, 7}, {2, 0, 1}}};
  for (const auto& [in_shape, perm] : cases) {
    SCOPED_TRACE(::testing::PrintToString(in_shape));
    const std::vector<float> in = Iota(Count(in_shape));
    NXRT_ASSERT_OK_AND_ASSIGN(PermutePlan plan, PrepareTranspose(DataType::kFloat, in_shape, perm));
    ASSERT_GT(plan.units, 1);
    std::vector<float> whole(in.size(), -1.0f), parts(in.size(), -2.0f);
    NXRT_ASSERT_OK(Permute(plan, in.data(), whole.data()));
    for (int64_t begin = 0; begin < plan.units; begin += 3) {
      PermuteRange(plan, in.data(), parts.data(), begin, std::min(plan.units, begin + 3));
    }
    EXPECT_EQ(parts, whole);
  }
}

TEST(TransposeTest, DefaultPermReversesAxes) {
  NXRT_ASSERT_OK_AND_ASSIGN(PermutePlan plan, PrepareTranspose(DataType::kDouble, Shape{2, 3}, {}));
  EXPECT_EQ(plan.output_shape, (Shape{3, 2}));
  const std::vector<double> in = {1, 2, 3, 4, 5, 6};
  std::vector<double> out(6);
  NXRT_ASSERT_OK(Permute(plan, in.data(), out.data()));
  EXPECT_EQ(out, (std::vector<double>{1, 4, 2, 5, 3, 6}));
}

TEST(TransposeTest, RejectsBadPerm) {
  auto r = PrepareTranspose(DataType::kFloat, Shape{2, 3, 4}, std::vector<int64_t>{0, 0, 1});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("[0,0,1]"), std::string::npos) << r.status().message();
  EXPECT_FALSE(PrepareTranspose(DataType::kFloat, Shape{2, 3}, std::vector<int64_t>{1}).ok());
}

// ONNX DepthToSpace doc example, input arange(48) as [1,8,2,3], blocksize 2 (values from numpy).
TEST(DepthToSpaceTest, SpecExampleDcrAndCrd) {
  const std::vector<float> in = Iota(48);
  NXRT_ASSERT_OK_AND_ASSIGN(
      PermutePlan dcr,
      PrepareDepthToSpace(DataType::kFloat, Shape{1, 8, 2, 3}, 2, DepthToSpaceMode::kDcr));
  EXPECT_EQ(dcr.output_shape, (Shape{1, 2, 4, 6}));
  std::vector<float> out(48);
  NXRT_ASSERT_OK(Permute(dcr, in.data(), out.data()));
  EXPECT_EQ(out,
            (std::vector<float>{0,  12, 1,  13, 2,  14, 24, 36, 25, 37, 26, 38, 3,  15, 4,  16,
                                5,  17, 27, 39, 28, 40, 29, 41, 6,  18, 7,  19, 8,  20, 30, 42,
                                31, 43, 32, 44, 9,  21, 10, 22, 11, 23, 33, 45, 34, 46, 35, 47}));
  NXRT_ASSERT_OK_AND_ASSIGN(
      PermutePlan crd,
      PrepareDepthToSpace(DataType::kFloat, Shape{1, 8, 2, 3}, 2, DepthToSpaceMode::kCrd));
  NXRT_ASSERT_OK(Permute(crd, in.data(), out.data()));
  EXPECT_EQ(out,
            (std::vector<float>{0,  6,  1,  7,  2,  8,  12, 18, 13, 19, 14, 20, 3,  9,  4,  10,
                                5,  11, 15, 21, 16, 22, 17, 23, 24, 30, 25, 31, 26, 32, 36, 42,
                                37, 43, 38, 44, 27, 33, 28, 34, 29, 35, 39, 45, 40, 46, 41, 47}));
}

TEST(DepthToSpaceTest, RandomAgainstFormulaAndSpaceToDepthInverts) {
  std::mt19937 rng(12);
  for (int iter = 0; iter < 20; ++iter) {
    const int64_t b = RandomInt(rng, 1, 3);
    const int64_t n = RandomInt(rng, 1, 2), c = RandomInt(rng, 1, 3), h = RandomInt(rng, 1, 3),
                  w = RandomInt(rng, 1, 3);
    const Shape in_shape = {n, c * b * b, h, w};
    const std::vector<float> in = Iota(Count(in_shape));
    for (DepthToSpaceMode mode : {DepthToSpaceMode::kDcr, DepthToSpaceMode::kCrd}) {
      NXRT_ASSERT_OK_AND_ASSIGN(PermutePlan plan,
                                PrepareDepthToSpace(DataType::kFloat, in_shape, b, mode));
      std::vector<float> out(in.size());
      NXRT_ASSERT_OK(Permute(plan, in.data(), out.data()));
      ForEachIndex(plan.output_shape, [&](const std::vector<int64_t>& o) {
        const int64_t i = o[2] % b, j = o[3] % b;
        const int64_t ch =
            mode == DepthToSpaceMode::kDcr ? (i * b + j) * c + o[1] : o[1] * b * b + i * b + j;
        const int64_t src[] = {o[0], ch, o[2] / b, o[3] / b};
        ASSERT_EQ(out[Offset(plan.output_shape, o)], in[Offset(in_shape, src)]);
      });
      if (mode == DepthToSpaceMode::kDcr) {
        NXRT_ASSERT_OK_AND_ASSIGN(PermutePlan back,
                                  PrepareSpaceToDepth(DataType::kFloat, plan.output_shape, b));
        EXPECT_EQ(back.output_shape, in_shape);
        std::vector<float> round_trip(in.size());
        NXRT_ASSERT_OK(Permute(back, out.data(), round_trip.data()));
        EXPECT_EQ(round_trip, in);
      }
    }
  }
}

TEST(DepthToSpaceTest, RejectsIndivisibleChannels) {
  auto r = PrepareDepthToSpace(DataType::kFloat, Shape{1, 6, 2, 2}, 2, DepthToSpaceMode::kDcr);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("[1,6,2,2]"), std::string::npos);
  EXPECT_FALSE(PrepareSpaceToDepth(DataType::kFloat, Shape{1, 1, 3, 4}, 2).ok());
  EXPECT_FALSE(ParseDepthToSpaceMode("XYZ").ok());
}

TEST(ConcatTest, RandomAxesWithEmptyInputsAndStrings) {
  std::mt19937 rng(13);
  for (int iter = 0; iter < 40; ++iter) {
    const int64_t rank = RandomInt(rng, 1, 4);
    const Shape base = RandomShape(rng, rank, 1, 3);
    const int64_t axis = RandomInt(rng, -rank, rank - 1);
    const int64_t a = axis < 0 ? axis + rank : axis;
    const int64_t inputs = RandomInt(rng, 1, 4);
    std::vector<Shape> shapes;
    std::vector<std::vector<std::string>> data;
    for (int64_t i = 0; i < inputs; ++i) {
      Shape s = base;
      s[a] = RandomInt(rng, 0, 3);
      shapes.push_back(s);
      std::vector<std::string> d;
      for (int64_t j = 0; j < Count(s); ++j)
        d.push_back(std::to_string(i) + ":" + std::to_string(j));
      data.push_back(d);
    }
    NXRT_ASSERT_OK_AND_ASSIGN(ConcatPlan plan, PrepareConcat(DataType::kString, shapes, axis));
    std::vector<std::string> out(Count(plan.output_shape));
    std::vector<const void*> ptrs;
    for (auto& d : data) ptrs.push_back(d.data());
    NXRT_ASSERT_OK(Concat(plan, ptrs, out.data()));
    ForEachIndex(plan.output_shape, [&](const std::vector<int64_t>& o) {
      std::vector<int64_t> src = o;
      size_t i = 0;
      while (src[a] >= shapes[i][a]) src[a] -= shapes[i++][a];
      ASSERT_EQ(out[Offset(plan.output_shape, o)], data[i][Offset(shapes[i], src)]);
    });
  }
}

TEST(ConcatTest, ShapeMismatchNamesBothShapes) {
  const std::vector<Shape> shapes = {{2, 3}, {2, 4}};
  auto r = PrepareConcat(DataType::kFloat, shapes, 0);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("[2,3]"), std::string::npos) << r.status().message();
  EXPECT_NE(r.status().message().find("[2,4]"), std::string::npos) << r.status().message();
  EXPECT_TRUE(PrepareConcat(DataType::kFloat, shapes, 1).ok());
  EXPECT_FALSE(PrepareConcat(DataType::kFloat, shapes, 2).ok());
}

TEST(SplitTest, SizesEqualAndUnevenLast) {
  const std::vector<float> in = Iota(14);  // [2, 7]
  NXRT_ASSERT_OK_AND_ASSIGN(SplitPlan sizes, PrepareSplit(DataType::kFloat, Shape{2, 7}, 1,
                                                          std::vector<int64_t>{2, 0, 5}, 0, false));
  ASSERT_EQ(sizes.output_shapes.size(), 3u);
  std::vector<float> a(4), b(0), c(10);
  std::vector<void*> outs = {a.data(), b.data(), c.data()};
  NXRT_ASSERT_OK(Split(sizes, in.data(), outs));
  EXPECT_EQ(a, (std::vector<float>{0, 1, 7, 8}));
  EXPECT_EQ(c, (std::vector<float>{2, 3, 4, 5, 6, 9, 10, 11, 12, 13}));

  // Opset 18 num_outputs=3 on 7 elements: 3, 3, 1.
  NXRT_ASSERT_OK_AND_ASSIGN(SplitPlan uneven,
                            PrepareSplit(DataType::kFloat, Shape{2, 7}, -1, {}, 3, true));
  EXPECT_EQ(uneven.output_shapes, (std::vector<Shape>{{2, 3}, {2, 3}, {2, 1}}));
  std::vector<float> x(6), y(6), z(2);
  outs = {x.data(), y.data(), z.data()};
  NXRT_ASSERT_OK(Split(uneven, in.data(), outs));
  EXPECT_EQ(y, (std::vector<float>{3, 4, 5, 10, 11, 12}));
  EXPECT_EQ(z, (std::vector<float>{6, 13}));

  NXRT_ASSERT_OK_AND_ASSIGN(SplitPlan equal,
                            PrepareSplit(DataType::kFloat, Shape{2, 7}, 0, {}, 2, false));
  EXPECT_EQ(equal.output_shapes, (std::vector<Shape>{{1, 7}, {1, 7}}));
}

TEST(SplitTest, Errors) {
  auto r = PrepareSplit(DataType::kFloat, Shape{2, 7}, 1, std::vector<int64_t>{2, 3}, 0, false);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("[2,3]"), std::string::npos) << r.status().message();
  EXPECT_NE(r.status().message().find("[2,7]"), std::string::npos) << r.status().message();
  EXPECT_FALSE(PrepareSplit(DataType::kFloat, Shape{2, 7}, 1, {}, 2, false).ok());
  EXPECT_FALSE(PrepareSplit(DataType::kFloat, Shape{2, 7}, 1, {}, 0, true).ok());
}

TEST(SliceTest, RandomStartsEndsStepsAgainstPythonSemantics) {
  std::mt19937 rng(14);
  for (int iter = 0; iter < 200; ++iter) {
    const int64_t rank = RandomInt(rng, 1, 4);
    const Shape in_shape = RandomShape(rng, rank, 0, 5);
    const std::vector<float> in = Iota(Count(in_shape));
    std::vector<int64_t> starts, ends, axes, steps;
    std::vector<int64_t> order(rank);
    std::iota(order.begin(), order.end(), 0);
    std::shuffle(order.begin(), order.end(), rng);
    const int64_t n = RandomInt(rng, 1, rank);
    for (int64_t i = 0; i < n; ++i) {
      axes.push_back(RandomInt(rng, 0, 1) ? order[i] : order[i] - rank);
      starts.push_back(RandomInt(rng, -7, 7));
      ends.push_back(RandomInt(rng, 0, 9) == 0 ? INT64_MAX : RandomInt(rng, -7, 7));
      int64_t step = RandomInt(rng, -3, 3);
      steps.push_back(step == 0 ? 1 : step);
    }
    NXRT_ASSERT_OK_AND_ASSIGN(SlicePlan plan,
                              PrepareSlice(DataType::kFloat, in_shape, starts, ends, axes, steps));
    // Reference: walk Python-style from the start, except that ONNX clamps a start before the
    // beginning to 0 for negative steps (Python would yield nothing).
    std::vector<std::vector<int64_t>> picks(rank);
    for (int64_t d = 0; d < rank; ++d) {
      for (int64_t j = 0; j < in_shape[d]; ++j) picks[d].push_back(j);
    }
    for (int64_t i = 0; i < n; ++i) {
      const int64_t d = axes[i] < 0 ? axes[i] + rank : axes[i];
      const int64_t dim = in_shape[d], step = steps[i];
      int64_t s = starts[i], e = ends[i];
      if (s < 0) s += dim;
      if (e < 0) e += dim;
      picks[d].clear();
      if (step > 0) {
        for (int64_t j = std::max<int64_t>(s, 0); j < std::min(e, dim); j += step) {
          picks[d].push_back(j);
        }
      } else {
        for (int64_t j = std::clamp<int64_t>(s, 0, std::max<int64_t>(dim - 1, 0));
             dim > 0 && j > std::max<int64_t>(e, -1); j += step) {
          picks[d].push_back(j);
        }
      }
    }
    Shape expected_shape;
    for (auto& p : picks) expected_shape.push_back(static_cast<int64_t>(p.size()));
    ASSERT_EQ(plan.output_shape, expected_shape);
    std::vector<float> out(Count(expected_shape));
    NXRT_ASSERT_OK(Slice(plan, in.data(), out.data()));
    ForEachIndex(expected_shape, [&](const std::vector<int64_t>& o) {
      std::vector<int64_t> src(rank);
      for (int64_t d = 0; d < rank; ++d) src[d] = picks[d][o[d]];
      ASSERT_EQ(out[Offset(expected_shape, o)], in[Offset(in_shape, src)]);
    });
  }
}

// ONNX slice_neg_steps: x [20,10,5], starts [20,10,4], ends [0,0,1], steps [-1,-3,-2]
// gives x[20:0:-1, 10:0:-3, 4:1:-2], shape [19,3,2].
TEST(SliceTest, SpecNegativeStepsAndClamping) {
  const Shape shape = {20, 10, 5};
  const std::vector<float> in = Iota(1000);
  NXRT_ASSERT_OK_AND_ASSIGN(
      SlicePlan plan, PrepareSlice(DataType::kFloat, shape, std::vector<int64_t>{20, 10, 4},
                                   std::vector<int64_t>{0, 0, 1}, std::vector<int64_t>{0, 1, 2},
                                   std::vector<int64_t>{-1, -3, -2}));
  EXPECT_EQ(plan.output_shape, (Shape{19, 3, 2}));
  std::vector<float> out(19 * 3 * 2);
  NXRT_ASSERT_OK(Slice(plan, in.data(), out.data()));
  EXPECT_EQ(out[0], 19 * 50 + 9 * 5 + 4);
  EXPECT_EQ(out[1], 19 * 50 + 9 * 5 + 2);
  EXPECT_EQ(out.back(), 1 * 50 + 3 * 5 + 2);
  // slice_end_out_of_bounds: x[:, 1:1000] and slice_default_steps with INT64_MIN.
  NXRT_ASSERT_OK_AND_ASSIGN(SlicePlan wide,
                            PrepareSlice(DataType::kFloat, shape, std::vector<int64_t>{1},
                                         std::vector<int64_t>{1000}, std::vector<int64_t>{1}, {}));
  EXPECT_EQ(wide.output_shape, (Shape{20, 9, 5}));
  NXRT_ASSERT_OK_AND_ASSIGN(SlicePlan reversed,
                            PrepareSlice(DataType::kFloat, shape, std::vector<int64_t>{-1},
                                         std::vector<int64_t>{INT64_MIN}, std::vector<int64_t>{2},
                                         std::vector<int64_t>{INT64_MIN}));
  EXPECT_EQ(reversed.output_shape, (Shape{20, 10, 1}));
}

TEST(SliceTest, Errors) {
  auto r = PrepareSlice(DataType::kFloat, Shape{4}, std::vector<int64_t>{0},
                        std::vector<int64_t>{4}, {}, std::vector<int64_t>{0});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("zero step"), std::string::npos);
  EXPECT_FALSE(PrepareSlice(DataType::kFloat, Shape{4, 4}, std::vector<int64_t>{0, 0},
                            std::vector<int64_t>{1, 1}, std::vector<int64_t>{1, -1}, {})
                   .ok());
  EXPECT_FALSE(PrepareSlice(DataType::kFloat, Shape{4}, std::vector<int64_t>{0},
                            std::vector<int64_t>{1}, std::vector<int64_t>{1}, {})
                   .ok());
}

TEST(TileTest, RandomRepeats) {
  std::mt19937 rng(15);
  for (int iter = 0; iter < 40; ++iter) {
    const int64_t rank = RandomInt(rng, 0, 4);
    const Shape in_shape = RandomShape(rng, rank, 1, 3);
    const Shape repeats = RandomShape(rng, rank, 0, 3);
    const std::vector<float> in = Iota(Count(in_shape));
    NXRT_ASSERT_OK_AND_ASSIGN(RepeatPlan plan, PrepareTile(DataType::kFloat, in_shape, repeats));
    std::vector<float> out(Count(plan.output_shape));
    NXRT_ASSERT_OK(Repeat(plan, in.data(), out.data()));
    ForEachIndex(plan.output_shape, [&](const std::vector<int64_t>& o) {
      std::vector<int64_t> src(rank);
      for (int64_t d = 0; d < rank; ++d) src[d] = o[d] % in_shape[d];
      ASSERT_EQ(out[Offset(plan.output_shape, o)], in[Offset(in_shape, src)]);
    });
  }
  EXPECT_FALSE(PrepareTile(DataType::kFloat, Shape{2, 2}, Shape{2}).ok());
}

// A fuzzed Tile's output dims once wrapped to a negative value (its kernel was asked for
// [1099511627776,2199023255552,-4,4]); an output dim past int64 is refused as too large.
TEST(TileTest, OutputDimPastInt64IsRefused) {
  const int64_t big = int64_t{1} << 40;
  Result<RepeatPlan> plan = PrepareTile(DataType::kFloat, Shape{big, 2, 4, 4},
                                        std::vector<int64_t>{big, 1, 1, 1});
  ASSERT_FALSE(plan.ok());
  EXPECT_EQ(plan.status().code(), StatusCode::kOutOfMemory);
  EXPECT_NE(plan.status().message().find("axis 0 of input [1099511627776,2,4,4] repeated "
                                         "1099511627776 times overflows int64"),
            std::string::npos)
      << plan.status().message();
}

TEST(ExpandTest, RandomBroadcastsBothDirections) {
  std::mt19937 rng(16);
  for (int iter = 0; iter < 40; ++iter) {
    const int64_t out_rank = RandomInt(rng, 0, 4);
    const Shape target = RandomShape(rng, out_rank, 1, 3);
    const int64_t in_rank = RandomInt(rng, 0, out_rank);
    Shape in_shape(target.end() - in_rank, target.end());
    Shape shape_arg = target;
    for (auto& d : in_shape) d = RandomInt(rng, 0, 1) ? 1 : d;
    for (size_t k = 0; k < shape_arg.size(); ++k) {
      const size_t off = shape_arg.size() - in_shape.size();
      if (k >= off && in_shape[k - off] != 1 && RandomInt(rng, 0, 1)) shape_arg[k] = 1;
    }
    const std::vector<float> in = Iota(Count(in_shape));
    NXRT_ASSERT_OK_AND_ASSIGN(RepeatPlan plan,
                              PrepareExpand(DataType::kFloat, in_shape, shape_arg));
    EXPECT_EQ(plan.output_shape, target);
    std::vector<float> out(Count(target));
    NXRT_ASSERT_OK(Repeat(plan, in.data(), out.data()));
    ForEachIndex(target, [&](const std::vector<int64_t>& o) {
      std::vector<int64_t> src;
      for (size_t k = 0; k < in_shape.size(); ++k) {
        src.push_back(in_shape[k] == 1 ? 0 : o[target.size() - in_shape.size() + k]);
      }
      ASSERT_EQ(out[Offset(target, o)], in[Offset(in_shape, src)]);
    });
    // 2-byte elements (float16) are placed as the 4-byte ones.
    std::vector<uint16_t> in16(in.size()), out16(out.size());
    std::iota(in16.begin(), in16.end(), uint16_t{0});
    NXRT_ASSERT_OK_AND_ASSIGN(RepeatPlan p16,
                              PrepareExpand(DataType::kFloat16, in_shape, shape_arg));
    NXRT_ASSERT_OK(Repeat(p16, in16.data(), out16.data()));
    for (size_t j = 0; j < out.size(); ++j) ASSERT_EQ(out16[j], static_cast<uint16_t>(out[j]));
  }
}

TEST(ExpandTest, IncompatibleShapesNamesBoth) {
  auto r = PrepareExpand(DataType::kFloat, Shape{3, 2}, Shape{3, 4});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("[3,2]"), std::string::npos) << r.status().message();
  EXPECT_NE(r.status().message().find("[3,4]"), std::string::npos) << r.status().message();
}

// ONNX Pad doc examples; wrap values from numpy.pad(mode="wrap").
TEST(PadTest, SpecExamples) {
  const std::vector<float> x = {1.0f, 1.2f, 2.3f, 3.4f, 4.5f, 5.7f};
  const Shape shape = {3, 2};
  auto run = [&](std::vector<int64_t> pads, PadMode mode, float value) {
    auto plan = PreparePad(DataType::kFloat, shape, pads, {}, mode);
    EXPECT_TRUE(plan.ok()) << plan.status().ToString();
    std::vector<float> out(Count(plan->output_shape));
    EXPECT_TRUE(Pad(*plan, x.data(), &value, out.data()).ok());
    return out;
  };
  EXPECT_EQ(run({0, 2, 0, 0}, PadMode::kConstant, 0.0f),
            (std::vector<float>{0, 0, 1.0f, 1.2f, 0, 0, 2.3f, 3.4f, 0, 0, 4.5f, 5.7f}));
  // The spec's reflect example pads an axis of 2 by 2, which ONNX Runtime 1.30 (the oracle)
  // refuses: "Pad reflect: pre-pad (2) exceeds maximum allowed (1)"; nxrt refuses it too.
  EXPECT_FALSE(PreparePad(DataType::kFloat, shape, std::vector<int64_t>{0, 2, 0, 0}, {},
                          PadMode::kReflect)
                   .ok());
  EXPECT_EQ(
      run({0, 2, 0, 0}, PadMode::kEdge, 0.0f),
      (std::vector<float>{1.0f, 1.0f, 1.0f, 1.2f, 2.3f, 2.3f, 2.3f, 3.4f, 4.5f, 4.5f, 4.5f, 5.7f}));
  EXPECT_EQ(
      run({2, 1, 1, 1}, PadMode::kWrap, 0.0f),
      (std::vector<float>{3.4f, 2.3f, 3.4f, 2.3f, 5.7f, 4.5f, 5.7f, 4.5f, 1.2f, 1.0f, 1.2f, 1.0f,
                          3.4f, 2.3f, 3.4f, 2.3f, 5.7f, 4.5f, 5.7f, 4.5f, 1.2f, 1.0f, 1.2f, 1.0f}));
}

// Reflect reaches at most length - 1 out, as ONNX Runtime 1.30 requires: (4, 4) on [1..5] is
// numpy.pad's answer, (4, 6) is refused (numpy would keep mirroring).
TEST(PadTest, LongReflectAndNegativePadsAndAxes) {
  const std::vector<float> x = {1, 2, 3, 4, 5};
  NXRT_ASSERT_OK_AND_ASSIGN(
      PadPlan plan,
      PreparePad(DataType::kFloat, Shape{5}, std::vector<int64_t>{4, 4}, {}, PadMode::kReflect));
  std::vector<float> out(13);
  NXRT_ASSERT_OK(Pad(plan, x.data(), nullptr, out.data()));
  EXPECT_EQ(out, (std::vector<float>{5, 4, 3, 2, 1, 2, 3, 4, 5, 4, 3, 2, 1}));
  Result<PadPlan> past = PreparePad(DataType::kFloat, Shape{5}, std::vector<int64_t>{4, 6}, {},
                                    PadMode::kReflect);
  ASSERT_FALSE(past.ok());
  EXPECT_NE(past.status().message().find("reflect post-pad 6 exceeds the maximum 4"),
            std::string::npos)
      << past.status().message();

  // Negative begin crops, then edge mode repeats the cropped edge.
  NXRT_ASSERT_OK_AND_ASSIGN(
      PadPlan crop,
      PreparePad(DataType::kFloat, Shape{5}, std::vector<int64_t>{-2, 2}, {}, PadMode::kEdge));
  std::vector<float> cropped(5);
  NXRT_ASSERT_OK(Pad(crop, x.data(), nullptr, cropped.data()));
  EXPECT_EQ(cropped, (std::vector<float>{3, 4, 5, 5, 5}));

  // Opset 18 axes: pad only axis -1 of a [2,2] string tensor.
  const std::vector<std::string> s = {"a", "b", "c", "d"};
  NXRT_ASSERT_OK_AND_ASSIGN(PadPlan axes,
                            PreparePad(DataType::kString, Shape{2, 2}, std::vector<int64_t>{1, 0},
                                       std::vector<int64_t>{-1}, PadMode::kConstant));
  std::vector<std::string> padded(6);
  const std::string fill = "_";
  NXRT_ASSERT_OK(Pad(axes, s.data(), &fill, padded.data()));
  EXPECT_EQ(padded, (std::vector<std::string>{"_", "a", "b", "_", "c", "d"}));
}

TEST(PadTest, RandomModesAgainstFoldingReference) {
  std::mt19937 rng(17);
  for (int iter = 0; iter < 60; ++iter) {
    const int64_t rank = RandomInt(rng, 1, 3);
    const Shape in_shape = RandomShape(rng, rank, 1, 4);
    std::vector<int64_t> pads(2 * rank);
    for (int64_t d = 0; d < rank; ++d) {
      pads[d] = RandomInt(rng, -in_shape[d] / 2, 5);
      pads[rank + d] = RandomInt(rng, -in_shape[d] / 2, 5);
    }
    const PadMode mode = static_cast<PadMode>(iter % 4);
    if (mode == PadMode::kReflect) {
      // Reflect: positive pads reach at most the cropped length - 1, an axis padded keeps 2 or
      // more elements (PadTest.LongReflectAndNegativePadsAndAxes); others are refused.
      for (int64_t d = 0; d < rank; ++d) {
        const int64_t len = in_shape[d] - std::max<int64_t>(0, -pads[d]) -
                            std::max<int64_t>(0, -pads[rank + d]);
        for (int64_t* p : {&pads[d], &pads[rank + d]}) {
          if (*p > 0) *p = len >= 2 ? std::min(*p, len - 1) : 0;
        }
      }
    }
    const std::vector<float> in = Iota(Count(in_shape));
    NXRT_ASSERT_OK_AND_ASSIGN(PadPlan plan, PreparePad(DataType::kFloat, in_shape, pads, {}, mode));
    std::vector<float> out(Count(plan.output_shape));
    const float fill = -7.0f;
    NXRT_ASSERT_OK(Pad(plan, in.data(), &fill, out.data()));
    ForEachIndex(plan.output_shape, [&](const std::vector<int64_t>& o) {
      std::vector<int64_t> src(rank);
      bool constant = false;
      for (int64_t d = 0; d < rank; ++d) {
        // Position in the cropped input, folded back into range one reflection at a time.
        const int64_t lo = std::max<int64_t>(0, -pads[d]);
        const int64_t len = in_shape[d] - lo - std::max<int64_t>(0, -pads[rank + d]);
        int64_t j = o[d] - std::max<int64_t>(0, pads[d]);
        while (j < 0 || j >= len) {
          if (mode == PadMode::kConstant) {
            constant = true;
            break;
          }
          if (mode == PadMode::kEdge) j = j < 0 ? 0 : len - 1;
          if (mode == PadMode::kWrap) j = j < 0 ? j + len : j - len;
          if (mode == PadMode::kReflect) j = len == 1 ? 0 : (j < 0 ? -j : 2 * (len - 1) - j);
        }
        src[d] = lo + j;
      }
      const float want = constant ? fill : in[Offset(in_shape, src)];
      ASSERT_EQ(out[Offset(plan.output_shape, o)], want);
    });
  }
}

TEST(PadTest, Errors) {
  auto r =
      PreparePad(DataType::kFloat, Shape{2, 3}, std::vector<int64_t>{1, 1}, {}, PadMode::kConstant);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("expected 4"), std::string::npos) << r.status().message();
  EXPECT_FALSE(
      PreparePad(DataType::kFloat, Shape{2}, std::vector<int64_t>{-2, -1}, {}, PadMode::kConstant)
          .ok());
  EXPECT_FALSE(
      PreparePad(DataType::kFloat, Shape{0}, std::vector<int64_t>{1, 0}, {}, PadMode::kReflect)
          .ok());
  EXPECT_FALSE(ParsePadMode("mirror").ok());
}

// Pads whose output cannot exist are refused before any per-index work (a fuzzed [1,2,4,4] input
// with 2e9 pads on two axes had Prepare fill 16 GB of index maps), and an empty output needs none.
TEST(PadTest, OutputsTooLargeAreRefusedAndEmptyOutputsCostNothing) {
  const int64_t big = 2'000'000'000;
  Result<PadPlan> huge =
      PreparePad(DataType::kFloat, Shape{1, 2, 4, 4},
                 std::vector<int64_t>{0, 0, -1, 7, 0, 0, big, big}, {}, PadMode::kConstant);
  ASSERT_FALSE(huge.ok());
  EXPECT_EQ(huge.status().code(), StatusCode::kOutOfMemory);
  EXPECT_NE(huge.status().message().find("byte size overflows"), std::string::npos)
      << huge.status().message();
  const int64_t max = std::numeric_limits<int64_t>::max();
  Result<PadPlan> wraps = PreparePad(DataType::kFloat, Shape{3}, std::vector<int64_t>{max, 1},
                                     {}, PadMode::kConstant);
  ASSERT_FALSE(wraps.ok());
  EXPECT_NE(wraps.status().message().find("overflows int64"), std::string::npos)
      << wraps.status().message();

  NXRT_ASSERT_OK_AND_ASSIGN(PadPlan empty, PreparePad(DataType::kFloat, Shape{0, 3},
                                                      std::vector<int64_t>{0, big, 0, big}, {},
                                                      PadMode::kConstant));
  EXPECT_EQ(empty.output_shape, (Shape{0, 3 + 2 * big}));
  NXRT_ASSERT_OK(Pad(empty, nullptr, nullptr, nullptr));
}

}  // namespace
}  // namespace nxrt::cpu::nn
