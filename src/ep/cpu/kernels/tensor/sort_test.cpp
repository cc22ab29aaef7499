// ep/cpu/kernels/tensor/sort_test.cpp: TopK and Unique run as one-node models, against
// references computed here from the ONNX definitions (fixed seeds, random shapes).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <random>
#include <string>
#include <utility>
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

TEST(TopKKernel, RandomShapesMatchReference) {
  std::mt19937 rng(151);
  for (int iter = 0; iter < 40; ++iter) {
    const int64_t r = RandomInt(rng, 1, 3);
    const Shape shape = RandomShape(rng, r, 1, 6);
    const int64_t axis = RandomInt(rng, 0, r - 1);
    const int64_t k = RandomInt(rng, 0, shape[axis]);
    const bool largest = iter % 3 != 0;
    const int opset = iter % 4 == 0 ? 1 : (iter % 4 == 1 ? 10 : 11);
    // Few distinct values, so ties are common: they keep the lower index first.
    std::vector<float> x(Count(shape));
    for (float& v : x) v = static_cast<float>(RandomInt(rng, -3, 3));
    std::vector<OpInput> inputs;
    inputs.push_back(In(Tensor::FromVector<float>(shape, x).value()));
    std::vector<AttributeValue> attrs = {IntAttr("axis", opset >= 11 ? axis - r : axis)};
    if (opset == 1) {
      attrs.push_back(IntAttr("k", k));
    } else {
      inputs.push_back(In(Tensor::FromVector<int64_t>({1}, {k}).value()));
    }
    if (opset >= 11) attrs.push_back(IntAttr("largest", largest ? 1 : 0));
    const bool want_largest = opset < 11 || largest;
    OpCase op{"TopK", opset, inputs, attrs, 2};
    Shape out_shape = shape;
    out_shape[axis] = k;
    std::vector<float> values(Count(out_shape));
    std::vector<int64_t> indices(Count(out_shape));
    ForEachIndex(out_shape, [&](const std::vector<int64_t>& o) {
      if (o[axis] != 0) return;
      std::vector<std::pair<float, int64_t>> line;
      std::vector<int64_t> i = o;
      for (int64_t a = 0; a < shape[axis]; ++a) {
        i[axis] = a;
        line.push_back({x[Offset(shape, i)], a});
      }
      std::stable_sort(line.begin(), line.end(), [&](const auto& p, const auto& q) {
        return want_largest ? p.first > q.first : p.first < q.first;
      });
      for (int64_t j = 0; j < k; ++j) {
        i[axis] = j;
        values[Offset(out_shape, i)] = line[j].first;
        indices[Offset(out_shape, i)] = line[j].second;
      }
    });
    NXRT_ASSERT_OK_AND_ASSIGN(std::vector<Tensor> y, RunOp(op));
    EXPECT_EQ(y[0].shape(), out_shape);
    EXPECT_EQ(Values<float>(y[0]), values) << "iter " << iter;
    EXPECT_EQ(Values<int64_t>(y[1]), indices) << "iter " << iter;
  }
}

// Long rows (the heap of the k best with its plain-compare filter and its block scan): axes of
// 1..300 with k from 0 to the whole axis, inner > 1 and = 1, few distinct values (ties keep the
// lower index), NaN (greater than every number: first for largest, last for smallest) and the
// infinities; at 1 and 2 threads (130 rows of 300 split into two ranges).
TEST(TopKKernel, LongAxesWithTiesNanAndInfinities) {
  std::mt19937 rng(1616);
  const std::vector<std::pair<Shape, int64_t>> cases = {
      {{3, 300}, 1},  {{2, 257, 3}, 1}, {{1, 64}, 1}, {{129, 2}, 0},
      {{4, 31}, 1},   {{2, 1}, 1},      {{130, 300}, 1}};
  int iter = 0;
  for (const auto& [shape, axis] : cases) {
    for (int64_t k : {int64_t{0}, int64_t{1}, int64_t{5}, shape[axis] / 2, shape[axis]}) {
      if (k > shape[axis]) continue;
      for (bool largest : {true, false}) {
        std::vector<float> x(Count(shape));
        for (float& v : x) v = static_cast<float>(RandomInt(rng, -20, 20));
        if (++iter % 2 == 0) {
          for (size_t j = 3; j < x.size(); j += 37) x[j] = NAN;
          for (size_t j = 5; j < x.size(); j += 41) x[j] = j % 2 == 0 ? INFINITY : -INFINITY;
        }
        OpCase op{"TopK", 11,
                  {In(Tensor::FromVector<float>(shape, x).value()),
                   In(Tensor::FromVector<int64_t>({1}, {k}).value())},
                  {IntAttr("axis", axis), IntAttr("largest", largest ? 1 : 0)}, 2};
        Shape out_shape = shape;
        out_shape[axis] = k;
        std::vector<float> values(Count(out_shape));
        std::vector<int64_t> indices(Count(out_shape));
        // NaN orders above every number.
        const auto before = [largest](float p, float q) {
          if (std::isnan(p) || std::isnan(q)) return largest ? !std::isnan(q) : !std::isnan(p);
          return largest ? p > q : p < q;
        };
        ForEachIndex(out_shape, [&](const std::vector<int64_t>& o) {
          if (o[axis] != 0) return;
          std::vector<std::pair<float, int64_t>> line;
          std::vector<int64_t> i = o;
          for (int64_t a = 0; a < shape[axis]; ++a) {
            i[axis] = a;
            line.push_back({x[Offset(shape, i)], a});
          }
          std::stable_sort(line.begin(), line.end(),
                           [&](const auto& p, const auto& q) { return before(p.first, q.first); });
          for (int64_t j = 0; j < k; ++j) {
            i[axis] = j;
            values[Offset(out_shape, i)] = line[j].first;
            indices[Offset(out_shape, i)] = line[j].second;
          }
        });
        const std::string where = ::testing::PrintToString(shape) + " k " + std::to_string(k) +
                                  (largest ? " largest" : " smallest");
        for (int threads : {1, 2}) {
          SessionOptions options;
          options.intra_op_threads = threads;
          NXRT_ASSERT_OK_AND_ASSIGN(std::vector<Tensor> y, RunOp(op, options));
          ASSERT_EQ(y[0].shape(), out_shape) << where;
          EXPECT_EQ(Values<int64_t>(y[1]), indices) << where << " at " << threads;
          const std::vector<float> got = Values<float>(y[0]);
          for (size_t j = 0; j < got.size(); ++j) {
            ASSERT_TRUE(got[j] == values[j] || (std::isnan(got[j]) && std::isnan(values[j])))
                << where << " j=" << j << " at " << threads;
          }
        }
      }
    }
  }
}

TEST(TopKKernel, KLargerThanTheAxisIsAnError) {
  OpCase op{"TopK", 11,
            {In(Tensor::Allocate(DataType::kInt32, {2, 3}).value()),
             In(Tensor::FromVector<int64_t>({1}, {4}).value())},
            {}, 2};
  EXPECT_FALSE(RunOp(op).ok());
}

TEST(UniqueKernel, RandomFlatInputsMatchReference) {
  std::mt19937 rng(152);
  for (int iter = 0; iter < 30; ++iter) {
    const Shape shape = RandomShape(rng, RandomInt(rng, 1, 3), 1, 5);
    const bool sorted = iter % 2 == 0;
    std::vector<int64_t> x(Count(shape));
    for (int64_t& v : x) v = RandomInt(rng, -4, 4);
    OpCase op{"Unique", 11, {In(Tensor::FromVector<int64_t>(shape, x).value())},
              {IntAttr("sorted", sorted ? 1 : 0)}, 4};
    // Reference: distinct values in first-occurrence order, then sorted when asked.
    std::vector<int64_t> distinct;
    for (int64_t v : x) {
      if (std::find(distinct.begin(), distinct.end(), v) == distinct.end()) distinct.push_back(v);
    }
    if (sorted) std::sort(distinct.begin(), distinct.end());
    std::vector<int64_t> first, counts, inverse;
    for (int64_t v : distinct) {
      first.push_back(std::find(x.begin(), x.end(), v) - x.begin());
      counts.push_back(std::count(x.begin(), x.end(), v));
    }
    for (int64_t v : x) {
      inverse.push_back(std::find(distinct.begin(), distinct.end(), v) - distinct.begin());
    }
    NXRT_ASSERT_OK_AND_ASSIGN(std::vector<Tensor> y, RunOp(op));
    EXPECT_EQ(Values<int64_t>(y[0]), distinct) << "iter " << iter;
    EXPECT_EQ(Values<int64_t>(y[1]), first);
    EXPECT_EQ(Values<int64_t>(y[2]), inverse);
    EXPECT_EQ(Values<int64_t>(y[3]), counts);
  }
}

TEST(UniqueKernel, RandomSlicesAlongAnAxisMatchReference) {
  std::mt19937 rng(153);
  for (int iter = 0; iter < 30; ++iter) {
    const int64_t r = RandomInt(rng, 1, 3);
    const Shape shape = RandomShape(rng, r, 1, 4);
    const int64_t axis = RandomInt(rng, 0, r - 1);
    // Few values (strings) so that whole slices repeat.
    std::vector<std::string> x(Count(shape));
    for (std::string& v : x) v = RandomInt(rng, 0, 1) ? "b" : "a";
    OpCase op{"Unique", 11, {In(Tensor::FromVector<std::string>(shape, x).value())},
              {IntAttr("axis", iter % 2 ? axis : axis - r)}, 4};
    // Reference: each slice as a vector of its elements in row-major order; sorted (default).
    std::map<std::vector<std::string>, std::vector<int64_t>> slices;  // slice → its positions
    for (int64_t a = 0; a < shape[axis]; ++a) {
      std::vector<std::string> slice;
      ForEachIndex(shape, [&](const std::vector<int64_t>& i) {
        if (i[axis] == a) slice.push_back(x[Offset(shape, i)]);
      });
      slices[slice].push_back(a);
    }
    Shape out_shape = shape;
    out_shape[axis] = static_cast<int64_t>(slices.size());
    std::vector<int64_t> first, counts, inverse(shape[axis]);
    std::vector<std::vector<std::string>> ordered;
    for (const auto& [slice, positions] : slices) {
      for (int64_t p : positions) inverse[p] = static_cast<int64_t>(first.size());
      first.push_back(positions.front());
      counts.push_back(static_cast<int64_t>(positions.size()));
      ordered.push_back(slice);
    }
    std::vector<std::string> expected(Count(out_shape));
    std::vector<size_t> cursor(ordered.size(), 0);
    ForEachIndex(out_shape, [&](const std::vector<int64_t>& i) {
      expected[Offset(out_shape, i)] = ordered[i[axis]][cursor[i[axis]]++];
    });
    NXRT_ASSERT_OK_AND_ASSIGN(std::vector<Tensor> y, RunOp(op));
    EXPECT_EQ(y[0].shape(), out_shape) << "iter " << iter;
    EXPECT_EQ(Values<std::string>(y[0]), expected) << "iter " << iter;
    EXPECT_EQ(Values<int64_t>(y[1]), first);
    EXPECT_EQ(Values<int64_t>(y[2]), inverse);
    EXPECT_EQ(Values<int64_t>(y[3]), counts);
  }
}

}  // namespace
}  // namespace nxrt::cpu::kernels::testing
