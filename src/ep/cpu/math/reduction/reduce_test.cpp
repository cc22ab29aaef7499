// ep/cpu/math/reduction/reduce_test.cpp: reductions and ArgMax/ArgMin against a brute-force
// reference (for each output, scan every input element and collect those that map to it) on random
// shapes and axes, plus ONNX examples, empty axes, zero-length axes and NaN.
#include "ep/cpu/math/reduction/reduce.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "ep/cpu/math/testing/test_util.h"

namespace nxrt::cpu::math {
namespace {

using testing::AllNumericTypes;
using testing::GetDouble;
using testing::GetInt;
using testing::Int128;
using testing::IsFloatType;
using testing::IsSignedType;
using testing::Make;
using testing::RandomShape;
using testing::RandomTensor;
using testing::Unravel;
using testing::Values;
using testing::WrapTo;

std::vector<ReduceKind> AllKinds() {
  return {
#define NXRT_REDUCE_KIND(name, reducer, types) ReduceKind::k##name,
#include "ep/cpu/math/reduction/reduce_kinds.inc"
#undef NXRT_REDUCE_KIND
  };
}

// For each input element, the linear index of the output element it contributes to.
std::vector<int64_t> OutputOf(const Shape& in_shape, const std::vector<bool>& reduced) {
  const int64_t n = Product(in_shape);
  std::vector<int64_t> map(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    const auto index = Unravel(in_shape, i);
    int64_t o = 0;
    for (size_t d = 0; d < in_shape.size(); ++d) {
      if (!reduced[d]) o = o * in_shape[d] + index[d];
    }
    map[static_cast<size_t>(i)] = o;
  }
  return map;
}

double RefFloat(ReduceKind kind, const std::vector<double>& v) {
  double r = 0;
  switch (kind) {
    case ReduceKind::kSum:
      for (double x : v) r += x;
      return r;
    case ReduceKind::kMean:
      for (double x : v) r += x;
      return r / static_cast<double>(v.size());
    case ReduceKind::kMax:
      r = -INFINITY;
      for (double x : v) r = std::isnan(x) || std::isnan(r) ? NAN : std::max(r, x);
      return r;
    case ReduceKind::kMin:
      r = INFINITY;
      for (double x : v) r = std::isnan(x) || std::isnan(r) ? NAN : std::min(r, x);
      return r;
    case ReduceKind::kProd:
      r = 1;
      for (double x : v) r *= x;
      return r;
    case ReduceKind::kL1:
      for (double x : v) r += std::fabs(x);
      return r;
    case ReduceKind::kL2:
      for (double x : v) r += x * x;
      return std::sqrt(r);
    case ReduceKind::kLogSum:
      for (double x : v) r += x;
      return std::log(r);
    case ReduceKind::kLogSumExp:
      for (double x : v) r += std::exp(x);
      return std::log(r);
    case ReduceKind::kSumSquare:
      for (double x : v) r += x * x;
      return r;
  }
  return 0;
}

Int128 RefInt(ReduceKind kind, DataType type, const std::vector<Int128>& v) {
  const auto wrap64 = [](Int128 x) { return static_cast<Int128>(static_cast<uint64_t>(x)); };
  Int128 r = 0;
  switch (kind) {
    case ReduceKind::kSum:
      for (Int128 x : v) r += x;
      return r;
    case ReduceKind::kMean:
      for (Int128 x : v) r += x;
      return v.empty() ? 0 : r / static_cast<Int128>(v.size());
    case ReduceKind::kMax:
      r = WrapTo(type, IsSignedType(type) ? (Int128{1} << (DataTypeSize(type) * 8 - 1)) : 0);
      for (Int128 x : v) r = std::max(r, x);
      return r;
    case ReduceKind::kMin:
      r = IsSignedType(type) ? (Int128{1} << (DataTypeSize(type) * 8 - 1)) - 1
                             : (Int128{1} << (DataTypeSize(type) * 8)) - 1;
      for (Int128 x : v) r = std::min(r, x);
      return r;
    case ReduceKind::kProd:
      r = 1;
      for (Int128 x : v) r = wrap64(r * x);
      return r;
    case ReduceKind::kL1:
      for (Int128 x : v) r += x < 0 ? -x : x;
      return r;
    case ReduceKind::kSumSquare:
      for (Int128 x : v) r += x * x;
      return r;
    default: {
      // Integer L2/LogSum/LogSumExp truncate the real result. (Callers skip non-finite results,
      // e.g. the log of an empty sum, whose integer value ONNX leaves undefined.)
      std::vector<double> d(v.begin(), v.end());
      return static_cast<Int128>(std::trunc(RefFloat(kind, d)));
    }
  }
}

// Range of random inputs per kind, inside each function's domain.
std::pair<double, double> Range(ReduceKind kind, DataType type) {
  double lo = kind == ReduceKind::kProd ? -2 : -10;
  double hi = kind == ReduceKind::kProd ? 2 : 10;
  if (kind == ReduceKind::kLogSum) lo = 0.5;
  if (kind == ReduceKind::kProd && IsFloatType(type)) lo = 0.5;
  if (!IsSignedType(type)) lo = std::max(lo, 0.0);
  if (kind == ReduceKind::kLogSum && !IsFloatType(type)) lo = 1;
  return {lo, hi};
}

void CheckReduce(ReduceKind kind, DataType type, const Tensor& in, const std::vector<int64_t>& axes,
                 const ReduceAttrs& attrs) {
  Tensor out;
  const Status s = Reduce(kind, in, axes, attrs, &out);
  ASSERT_TRUE(s.ok()) << s.ToString();
  const Shape& shape = in.shape();
  std::vector<bool> reduced(shape.size(), axes.empty() && !attrs.noop_with_empty_axes);
  for (int64_t a : axes) reduced[static_cast<size_t>(a < 0 ? a + static_cast<int64_t>(shape.size()) : a)] = true;
  Shape expected_shape;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (!reduced[d]) expected_shape.push_back(shape[d]);
    else if (attrs.keepdims) expected_shape.push_back(1);
  }
  ASSERT_EQ(out.shape(), expected_shape);
  const std::vector<int64_t> map = OutputOf(shape, reduced);
  const std::string what = std::string(ReduceKindName(kind)) + " " +
                           std::string(DataTypeName(type)) + " " + ShapeToString(shape) +
                           " axes " + ShapeToString(axes) + (attrs.keepdims ? " keep" : "") +
                           (attrs.noop_with_empty_axes ? " noop" : "");
  const bool noop = axes.empty() && attrs.noop_with_empty_axes;
  for (int64_t o = 0; o < out.element_count(); ++o) {
    std::vector<double> values;
    std::vector<Int128> ints;
    double magnitude = 0;
    for (int64_t i = 0; i < in.element_count(); ++i) {
      if (map[static_cast<size_t>(i)] != o) continue;
      values.push_back(GetDouble(in, i));
      magnitude += std::fabs(values.back()) * (kind == ReduceKind::kSumSquare ? std::fabs(values.back()) : 1);
      if (!IsFloatType(type)) ints.push_back(GetInt(in, i));
    }
    ASSERT_TRUE(!noop || values.size() == 1) << what;
    if (IsFloatType(type)) {
      const double expected = testing::RoundTo(type, RefFloat(kind, values));
      const double actual = GetDouble(out, o);
      if (std::isnan(expected) || std::isinf(expected)) {
        EXPECT_EQ(std::isnan(expected), std::isnan(actual)) << what << " at " << o;
        if (!std::isnan(expected)) {
          EXPECT_EQ(expected, actual) << what << " at " << o;
        }
      } else {
        const double tol = testing::Tolerance(type) * 4 * (std::fabs(expected) + magnitude + 1);
        EXPECT_NEAR(expected, actual, tol) << what << " at " << o;
      }
    } else {
      const bool real_valued = kind == ReduceKind::kL2 || kind == ReduceKind::kLogSum ||
                               kind == ReduceKind::kLogSumExp;
      if (real_valued && !std::isfinite(RefFloat(kind, values))) continue;
      const Int128 expected = WrapTo(type, RefInt(kind, type, ints));
      ASSERT_TRUE(expected == GetInt(out, o))
          << what << " at " << o << ": expected " << static_cast<int64_t>(expected) << ", got "
          << static_cast<int64_t>(GetInt(out, o));
    }
  }
}

TEST(Reduce, RandomShapesAxesAllTypesMatchReference) {
  std::mt19937_64 rng(31337);
  for (ReduceKind kind : AllKinds()) {
    for (DataType type : AllNumericTypes()) {
      for (int iter = 0; iter < 12; ++iter) {
        const int64_t min_dim = std::uniform_int_distribution<int>(0, 7)(rng) == 0 ? 0 : 1;
        const Shape shape = RandomShape(rng, 0, 4, min_dim, 6);
        std::vector<int64_t> axes;
        for (size_t d = 0; d < shape.size(); ++d) {
          if (std::uniform_int_distribution<int>(0, 1)(rng) == 1) {
            // Use both axis spellings.
            const bool negative = std::uniform_int_distribution<int>(0, 1)(rng) == 1;
            axes.push_back(negative ? static_cast<int64_t>(d) - static_cast<int64_t>(shape.size())
                                    : static_cast<int64_t>(d));
          }
        }
        std::shuffle(axes.begin(), axes.end(), rng);
        ReduceAttrs attrs;
        attrs.keepdims = std::uniform_int_distribution<int>(0, 1)(rng) == 1;
        attrs.noop_with_empty_axes = std::uniform_int_distribution<int>(0, 3)(rng) == 0;
        const auto [lo, hi] = Range(kind, type);
        const Tensor in = RandomTensor(rng, type, shape, lo, hi);
        CheckReduce(kind, type, in, axes, attrs);
        if (HasFatalFailure()) return;
      }
    }
  }
}

TEST(Reduce, LargeReductionsUseAllPaths) {
  // Long inner runs (partial accumulators) and wide kept inner axes (more than one lane block).
  std::mt19937_64 rng(4);
  // float16 runs and row segments are converted in bulk first (FoldHalfRun, segment).
  for (DataType type : {DataType::kFloat, DataType::kFloat16}) {
    for (ReduceKind kind : AllKinds()) {
      const Tensor in =
          RandomTensor(rng, type, {3, 150, 70}, kind == ReduceKind::kLogSum ? 0.5 : -1, 1);
      CheckReduce(kind, type, in, {2}, {});
      CheckReduce(kind, type, in, {1}, {});
      CheckReduce(kind, type, in, {0, 2}, {});
      CheckReduce(kind, type, in, {}, {});
    }
  }
  ReduceAttrs drop;
  drop.keepdims = false;
  CheckReduce(ReduceKind::kSum, DataType::kInt32,
              RandomTensor(rng, DataType::kInt32, {5, 4, 130}, -1000, 1000), {0, 1}, drop);
}

// Inner runs around the 32 partial results of FoldRun (reduce.cpp): below 64 (the plain loop),
// lane bodies with every kind of tail, for float, float16 and bfloat16 (past FoldHalfRun's
// blocks of 1024 too), with rows holding NaN or an
// infinity in the lanes and in the tail, +inf and -inf in one lane (whose partial sum of
// FoldExtremeRun is then NaN without a NaN element), and NaN in the last element only.
TEST(Reduce, LongRunsWithTailsNanAndInf) {
  std::mt19937_64 rng(43);
  for (int64_t run : {63, 64, 65, 95, 96, 127, 200, 1001, 2100}) {
    for (DataType type : {DataType::kFloat, DataType::kFloat16, DataType::kBFloat16}) {
      for (ReduceKind kind : AllKinds()) {
        const auto [lo, hi] = Range(kind, type);
        Tensor in = RandomTensor(rng, type, {6, run}, lo, hi);
        testing::SetValue(&in, 1 * run + 3, NAN, 0);
        testing::SetValue(&in, 2 * run + run - 1, INFINITY, 0);
        testing::SetValue(&in, 3 * run + run / 2, -INFINITY, 0);
        testing::SetValue(&in, 4 * run + 5, INFINITY, 0);
        testing::SetValue(&in, 4 * run + 37, -INFINITY, 0);
        testing::SetValue(&in, 5 * run + run - 1, NAN, 0);
        CheckReduce(kind, type, in, {1}, {});
        if (HasFatalFailure()) return;
      }
    }
  }
}

TEST(Reduce, SpecExampleKeepdims) {
  const Tensor data = Make<float>({3, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12});
  const int64_t axis1[] = {1};
  Tensor out;
  ASSERT_TRUE(Reduce(ReduceKind::kSum, data, axis1, {}, &out).ok());
  EXPECT_EQ(out.shape(), (Shape{3, 1, 2}));
  EXPECT_EQ(Values<float>(out), (std::vector<float>{4, 6, 12, 14, 20, 22}));
  ReduceAttrs drop;
  drop.keepdims = false;
  out = Tensor();
  ASSERT_TRUE(Reduce(ReduceKind::kMean, data, axis1, drop, &out).ok());
  EXPECT_EQ(out.shape(), (Shape{3, 2}));
  EXPECT_EQ(Values<float>(out), (std::vector<float>{2, 3, 6, 7, 10, 11}));
  // Default axes: everything.
  out = Tensor();
  ASSERT_TRUE(Reduce(ReduceKind::kMax, data, {}, {}, &out).ok());
  EXPECT_EQ(out.shape(), (Shape{1, 1, 1}));
  EXPECT_EQ(Values<float>(out), (std::vector<float>{12}));
}

TEST(Reduce, NoopWithEmptyAxesReturnsInput) {
  const Tensor data = Make<float>({2, 3}, {1, -2, 3, -4, 5, -6});
  ReduceAttrs noop;
  noop.noop_with_empty_axes = true;
  Tensor out;
  ASSERT_TRUE(Reduce(ReduceKind::kSum, data, {}, noop, &out).ok());
  EXPECT_EQ(out.shape(), (Shape{2, 3}));
  EXPECT_EQ(Values<float>(out), Values<float>(data));
  out = Tensor();
  ASSERT_TRUE(Reduce(ReduceKind::kSumSquare, data, {}, noop, &out).ok());
  EXPECT_EQ(Values<float>(out), (std::vector<float>{1, 4, 9, 16, 25, 36}));
}

TEST(Reduce, ZeroLengthAxisGivesIdentity) {
  const Tensor empty = Tensor::Allocate(DataType::kFloat, {2, 0, 3}).value();
  const int64_t axis1[] = {1};
  const std::vector<std::pair<ReduceKind, float>> cases = {
      {ReduceKind::kSum, 0},         {ReduceKind::kProd, 1},       {ReduceKind::kMax, -INFINITY},
      {ReduceKind::kMin, INFINITY},  {ReduceKind::kL1, 0},         {ReduceKind::kL2, 0},
      {ReduceKind::kSumSquare, 0},   {ReduceKind::kLogSum, -INFINITY},
      {ReduceKind::kLogSumExp, -INFINITY}};
  for (const auto& [kind, identity] : cases) {
    Tensor out;
    ASSERT_TRUE(Reduce(kind, empty, axis1, {}, &out).ok());
    EXPECT_EQ(out.shape(), (Shape{2, 1, 3}));
    EXPECT_EQ(Values<float>(out), std::vector<float>(6, identity)) << ReduceKindName(kind);
  }
  Tensor mean;
  ASSERT_TRUE(Reduce(ReduceKind::kMean, empty, axis1, {}, &mean).ok());
  EXPECT_TRUE(std::isnan(mean.data<float>()[0]));
  Tensor int_max;
  ASSERT_TRUE(Reduce(ReduceKind::kMax, Tensor::Allocate(DataType::kInt8, {0}).value(), {}, {},
                     &int_max).ok());
  EXPECT_EQ(Values<int8_t>(int_max), (std::vector<int8_t>{-128}));
  // Kept axes of length 0: an empty output.
  Tensor none;
  const int64_t axis2[] = {2};
  ASSERT_TRUE(Reduce(ReduceKind::kSum, empty, axis2, {}, &none).ok());
  EXPECT_EQ(none.shape(), (Shape{2, 0, 1}));
}

TEST(Reduce, PropagatesNan) {
  const Tensor data = Make<float>({2, 3}, {1, NAN, 3, 4, 5, 6});
  const int64_t axis1[] = {1};
  for (ReduceKind kind : {ReduceKind::kMax, ReduceKind::kMin, ReduceKind::kSum,
                          ReduceKind::kLogSumExp, ReduceKind::kProd}) {
    Tensor out;
    ASSERT_TRUE(Reduce(kind, data, axis1, {}, &out).ok());
    EXPECT_TRUE(std::isnan(out.data<float>()[0])) << ReduceKindName(kind);
    EXPECT_FALSE(std::isnan(out.data<float>()[1])) << ReduceKindName(kind);
  }
}

TEST(Reduce, LogSumExpIsStableForLargeValues) {
  const Tensor data = Make<float>({2}, {1000, 1000});
  Tensor out;
  ASSERT_TRUE(Reduce(ReduceKind::kLogSumExp, data, {}, {}, &out).ok());
  EXPECT_NEAR(out.data<float>()[0], 1000 + std::log(2.0f), 1e-3);
}

TEST(Reduce, BoolMaxMin) {
  const Tensor data = Make<bool>({2, 2}, {true, false, false, false});
  const int64_t axis1[] = {1};
  Tensor out;
  ASSERT_TRUE(Reduce(ReduceKind::kMax, data, axis1, {}, &out).ok());
  EXPECT_EQ(Values<bool>(out), (std::vector<bool>{true, false}));
  out = Tensor();
  ASSERT_TRUE(Reduce(ReduceKind::kMin, data, axis1, {}, &out).ok());
  EXPECT_EQ(Values<bool>(out), (std::vector<bool>{false, false}));
  out = Tensor();
  EXPECT_EQ(Reduce(ReduceKind::kSum, data, axis1, {}, &out).code(), StatusCode::kUnsupported);
}

TEST(Reduce, AxisErrors) {
  const Tensor data = Make<float>({2, 3}, std::vector<float>(6));
  Tensor out;
  const int64_t bad[] = {2};
  Status s = Reduce(ReduceKind::kSum, data, bad, {}, &out);
  EXPECT_EQ(s.message(), "ReduceSum: axis 2 is out of range for rank 2 (accepted: [-2, 1])");
  const int64_t repeated[] = {1, -1};
  s = Reduce(ReduceKind::kSum, data, repeated, {}, &out);
  EXPECT_EQ(s.message(), "ReduceSum: axis -1 is given twice in axes [1,-1]");
}

TEST(ArgReduce, SpecExamples) {
  const Tensor data = Make<float>({2, 2}, {2, 1, 3, 10});
  ArgReduceAttrs attrs;
  Tensor out;
  ASSERT_TRUE(ArgMax(data, attrs, &out).ok());
  EXPECT_EQ(out.shape(), (Shape{1, 2}));
  EXPECT_EQ(Values<int64_t>(out), (std::vector<int64_t>{1, 1}));
  attrs.axis = 1;
  attrs.keepdims = false;
  out = Tensor();
  ASSERT_TRUE(ArgMin(data, attrs, &out).ok());
  EXPECT_EQ(out.shape(), (Shape{2}));
  EXPECT_EQ(Values<int64_t>(out), (std::vector<int64_t>{1, 0}));
  // select_last_index on ties: [[2, 2], [3, 10]] along axis 1.
  const Tensor ties = Make<float>({2, 2}, {2, 2, 3, 10});
  attrs.keepdims = true;
  out = Tensor();
  ASSERT_TRUE(ArgMax(ties, attrs, &out).ok());
  EXPECT_EQ(Values<int64_t>(out), (std::vector<int64_t>{0, 1}));
  attrs.select_last_index = true;
  out = Tensor();
  ASSERT_TRUE(ArgMax(ties, attrs, &out).ok());
  EXPECT_EQ(Values<int64_t>(out), (std::vector<int64_t>{1, 1}));
}

TEST(ArgReduce, FirstNanWins) {
  const Tensor data = Make<float>({4}, {1, NAN, 3, NAN});
  Tensor out;
  ASSERT_TRUE(ArgMax(data, {}, &out).ok());
  EXPECT_EQ(Values<int64_t>(out), (std::vector<int64_t>{1}));
  out = Tensor();
  ASSERT_TRUE(ArgMin(data, {}, &out).ok());
  EXPECT_EQ(Values<int64_t>(out), (std::vector<int64_t>{1}));
}

TEST(ArgReduce, RandomMatchesReference) {
  std::mt19937_64 rng(21);
  for (DataType type : AllNumericTypes()) {
    for (int iter = 0; iter < 20; ++iter) {
      const Shape shape = RandomShape(rng, 1, 4, 1, 5);
      ArgReduceAttrs attrs;
      attrs.axis = std::uniform_int_distribution<int64_t>(-static_cast<int64_t>(shape.size()),
                                                          static_cast<int64_t>(shape.size()) - 1)(rng);
      attrs.select_last_index = iter % 2 == 1;
      attrs.keepdims = iter % 3 != 0;
      // Few distinct values so that ties happen.
      const Tensor in = RandomTensor(rng, type, shape, 0, 3);
      const bool is_max = iter % 4 < 2;
      Tensor out;
      ASSERT_TRUE((is_max ? ArgMax(in, attrs, &out) : ArgMin(in, attrs, &out)).ok());
      const size_t axis = static_cast<size_t>(attrs.axis < 0 ? attrs.axis + static_cast<int64_t>(shape.size()) : attrs.axis);
      std::vector<bool> reduced(shape.size(), false);
      reduced[axis] = true;
      const std::vector<int64_t> map = OutputOf(shape, reduced);
      std::vector<int64_t> best(static_cast<size_t>(out.element_count()), -1);
      std::vector<double> best_value(best.size());
      for (int64_t i = 0; i < in.element_count(); ++i) {
        const size_t o = static_cast<size_t>(map[static_cast<size_t>(i)]);
        const double v = GetDouble(in, i);
        const int64_t position = Unravel(shape, i)[axis];
        const bool better = best[o] < 0 || (is_max ? v > best_value[o] : v < best_value[o]) ||
                            (attrs.select_last_index && v == best_value[o]);
        if (better) {
          best[o] = position;
          best_value[o] = v;
        }
      }
      EXPECT_EQ(Values<int64_t>(out), best) << DataTypeName(type) << " " << ShapeToString(shape);
    }
  }
}

TEST(ArgReduce, ZeroLengthAxisIsAnError) {
  Tensor out;
  const Status s = ArgMax(Tensor::Allocate(DataType::kFloat, {2, 0}).value(), {1, true, false}, &out);
  EXPECT_EQ(s.message(), "ArgMax: axis 1 of input shape [2,0] has length 0, so there is no index to return");
}

}  // namespace
}  // namespace nxrt::cpu::math
