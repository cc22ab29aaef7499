// ep/cpu/kernels/reduction/reduction_test.cpp: the reduction family run through the session as
// one-node models, against the math library's reference on random shapes and axes with fixed
// seeds.
//
// Layer: tests of nxrt_ep_cpu (testing/single_op_model.h). Each reduction runs in its three
// forms: axes attribute (opset 13), axes input as an initializer and as a fed value input (opset
// 18), plus noop_with_empty_axes, ArgMax/ArgMin with ties, a large input split over threads, and
// a named negative case.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "ep/cpu/math/reduction/reduce.h"
#include "ep/cpu/math/testing/test_util.h"
#include "ep/cpu/testing/expect_tensor.h"
#include "ep/cpu/testing/single_op_model.h"

namespace nxrt::cpu {
namespace {

using math::ReduceKind;
using math::testing::RandomShape;
using math::testing::RandomTensor;
using testing::ExpectSameTensor;
using testing::Initializer;
using testing::Input;
using testing::SingleOpModel;

std::vector<ReduceKind> AllReduceKinds() {
  return {
#define NXRT_REDUCE_KIND(name, reducer, types) ReduceKind::k##name,
#include "ep/cpu/math/reduction/reduce_kinds.inc"
#undef NXRT_REDUCE_KIND
  };
}

// A random subset of the axes of a rank-`rank` tensor, some written negative.
std::vector<int64_t> RandomAxes(std::mt19937_64& rng, int64_t rank) {
  std::vector<int64_t> axes;
  for (int64_t axis = 0; axis < rank; ++axis) {
    if (rng() % 2 == 0) continue;
    axes.push_back(rng() % 3 == 0 ? axis - rank : axis);
  }
  std::shuffle(axes.begin(), axes.end(), rng);
  return axes;
}

Tensor Int64s(const std::vector<int64_t>& values) {
  return Tensor::FromVector<int64_t>({static_cast<int64_t>(values.size())}, values).value();
}

void ExpectRunsTo(const SingleOpModel& model, const Tensor& expected, const std::string& where,
                  const SessionOptions& options = {}) {
  Result<std::vector<Tensor>> outputs = model.Run(options);
  ASSERT_TRUE(outputs.ok()) << where << ": " << outputs.status().ToString();
  ExpectSameTensor(expected, outputs->front(), where);
}

TEST(ReductionKernelsTest, ReductionsMatchTheReferenceInEveryAxesForm) {
  std::mt19937_64 rng(1807);
  int cases = 0;
  for (ReduceKind kind : AllReduceKinds()) {
    const std::string op(math::ReduceKindName(kind));
    for (DataType type : {DataType::kFloat, DataType::kDouble, DataType::kFloat16,
                          DataType::kInt32, DataType::kInt64, DataType::kUint8}) {
      for (int form = 0; form < 3; ++form) {
        const Shape shape = RandomShape(rng, 1, 4, 1, 5);
        const std::vector<int64_t> axes = RandomAxes(rng, static_cast<int64_t>(shape.size()));
        math::ReduceAttrs attrs;
        attrs.keepdims = rng() % 2 == 0;
        Tensor x = RandomTensor(rng, type, shape, 0, 4);
        Tensor expected;
        ASSERT_TRUE(math::Reduce(kind, x, axes, attrs, &expected).ok());
        // form 0: opset 13 (attribute, or ReduceSum's input); 1: opset 18 initializer axes;
        // 2: opset 18 axes fed at run time (a value input).
        const bool attribute_axes = form == 0 && kind != ReduceKind::kSum;
        const int64_t opset = form == 0 ? 13 : 18;
        SingleOpModel model(op, opset);
        model.AddAttribute(testing::IntAttr("keepdims", attrs.keepdims ? 1 : 0));
        model.AddInput(Input(x));
        if (attribute_axes) {
          if (!axes.empty()) model.AddAttribute(testing::IntsAttr("axes", axes));
        } else if (!axes.empty()) {
          model.AddInput(form == 2 ? Input(Int64s(axes)) : Initializer(Int64s(axes)));
        }
        model.AddOutput(type);
        if (!model.CpuSupports().supported()) continue;  // a type the op's schema lacks
        ExpectRunsTo(model, expected,
                     op + " " + std::string(DataTypeName(type)) + " " + ShapeToString(shape) +
                         " axes " + ShapeToString(axes) + " form " + std::to_string(form));
        ++cases;
      }
    }
  }
  EXPECT_GE(cases, 150);  // 10 reductions, 5 or 6 types, 3 forms
}

TEST(ReductionKernelsTest, EmptyAxesWithNoopLeaveTheInput) {
  std::mt19937_64 rng(4);
  Tensor x = RandomTensor(rng, DataType::kFloat, {2, 3}, -1, 1);
  math::ReduceAttrs attrs;
  attrs.noop_with_empty_axes = true;
  Tensor expected;
  ASSERT_TRUE(math::Reduce(ReduceKind::kSumSquare, x, {}, attrs, &expected).ok());
  SingleOpModel model("ReduceSumSquare", 18);
  model.AddAttribute(testing::IntAttr("noop_with_empty_axes", 1));
  model.AddInput(Input(x)).AddInput(Initializer(Int64s({}))).AddOutput(DataType::kFloat);
  ExpectRunsTo(model, expected, "ReduceSumSquare noop");
}

// Issue 6: ReduceSum-13 with noop_with_empty_axes=1 returns its input unchanged, whether the axes
// input is an empty tensor or absent.
TEST(ReductionKernelsTest, Issue6ReduceSumNoopWithEmptyOrAbsentAxesReturnsTheInput) {
  const Tensor x = Tensor::FromVector<float>({2, 3}, {1, -2, 3, -4, 5, -6}).value();
  for (bool absent : {false, true}) {
    for (int64_t keepdims : {0, 1}) {
      SingleOpModel model("ReduceSum", 13);
      model.AddAttribute(testing::IntAttr("noop_with_empty_axes", 1))
          .AddAttribute(testing::IntAttr("keepdims", keepdims))
          .AddInput(Input(x));
      if (!absent) model.AddInput(Initializer(Int64s({})));
      model.AddOutput(DataType::kFloat);
      ExpectRunsTo(model, x,
                   std::string(absent ? "absent" : "empty") + " axes, keepdims " +
                       std::to_string(keepdims));
    }
  }
}

// Issue 6: reductions propagate NaN, whatever else the reduced values hold, in float, double and
// float16.
TEST(ReductionKernelsTest, Issue6NanPropagatesThroughEveryReduction) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (DataType type : {DataType::kFloat, DataType::kDouble, DataType::kFloat16}) {
    Tensor x = Tensor::Allocate(type, {2, 3}).value();
    const double values[] = {1, nan, 3, 4, 5, nan};
    for (int64_t i = 0; i < 6; ++i) math::testing::SetValue(&x, i, values[i], 0);
    for (ReduceKind kind : AllReduceKinds()) {
      const std::string where =
          std::string(math::ReduceKindName(kind)) + " " + std::string(DataTypeName(type));
      SingleOpModel model(std::string(math::ReduceKindName(kind)), 18);
      model.AddAttribute(testing::IntAttr("keepdims", 0))
          .AddInput(Input(x))
          .AddInput(Initializer(Int64s({1})))
          .AddOutput(type);
      Result<std::vector<Tensor>> outputs = model.Run();
      ASSERT_TRUE(outputs.ok()) << where << ": " << outputs.status().ToString();
      const Tensor& y = outputs->front();
      ASSERT_EQ(y.element_count(), 2) << where;
      for (int64_t i = 0; i < 2; ++i) {
        const double v = math::testing::GetDouble(y, i);
        EXPECT_TRUE(std::isnan(v)) << where << ", element " << i << " is " << v;
      }
    }
  }
}

// Issue 6: a reduction over a zero-length axis gives the op's identity element (ONNX 1.15,
// onnx/onnx#5568): ReduceSum, ReduceSumSquare, ReduceL1, ReduceL2 0; ReduceProd 1; ReduceMax the
// lowest value of the type (-inf for float), ReduceMin the highest (+inf); ReduceLogSum and
// ReduceLogSumExp -inf. ReduceMean of nothing is undefined in the spec and is not checked.
TEST(ReductionKernelsTest, Issue6EmptyAxisGivesTheIdentityElement) {
  const float inf = std::numeric_limits<float>::infinity();
  const std::pair<const char*, float> cases[] = {
      {"ReduceSum", 0.0f},       {"ReduceSumSquare", 0.0f}, {"ReduceL1", 0.0f},
      {"ReduceL2", 0.0f},        {"ReduceProd", 1.0f},      {"ReduceMax", -inf},
      {"ReduceMin", inf},        {"ReduceLogSum", -inf},    {"ReduceLogSumExp", -inf}};
  for (auto [op, identity] : cases) {
    SingleOpModel model(op, 18);
    model.AddAttribute(testing::IntAttr("keepdims", 1))
        .AddInput(Input(Tensor::Allocate(DataType::kFloat, {2, 0}).value()))
        .AddInput(Initializer(Int64s({1})))
        .AddOutput(DataType::kFloat);
    ExpectRunsTo(model, Tensor::FromVector<float>({2, 1}, {identity, identity}).value(), op);
  }
  const int32_t lowest = std::numeric_limits<int32_t>::min();
  SingleOpModel max_int("ReduceMax", 18);
  max_int.AddAttribute(testing::IntAttr("keepdims", 0))
      .AddInput(Input(Tensor::Allocate(DataType::kInt32, {0, 2}).value()))
      .AddInput(Initializer(Int64s({0})))
      .AddOutput(DataType::kInt32);
  ExpectRunsTo(max_int, Tensor::FromVector<int32_t>({2}, {lowest, lowest}).value(),
               "ReduceMax int32");
  SingleOpModel min_int("ReduceMin", 18);
  min_int.AddAttribute(testing::IntAttr("keepdims", 0))
      .AddInput(Input(Tensor::Allocate(DataType::kInt32, {0, 2}).value()))
      .AddInput(Initializer(Int64s({0})))
      .AddOutput(DataType::kInt32);
  const int32_t highest = std::numeric_limits<int32_t>::max();
  ExpectRunsTo(min_int, Tensor::FromVector<int32_t>({2}, {highest, highest}).value(),
               "ReduceMin int32");
  SingleOpModel prod_int("ReduceProd", 18);
  prod_int.AddAttribute(testing::IntAttr("keepdims", 0))
      .AddInput(Input(Tensor::Allocate(DataType::kInt64, {3, 0}).value()))
      .AddInput(Initializer(Int64s({-1})))
      .AddOutput(DataType::kInt64);
  ExpectRunsTo(prod_int, Int64s({1, 1, 1}), "ReduceProd int64");
  // Axes absent and noop_with_empty_axes=0: all axes, so an empty tensor sums to one 0.
  SingleOpModel sum_all("ReduceSum", 13);
  sum_all.AddInput(Input(Tensor::Allocate(DataType::kFloat, {0, 3}).value()))
      .AddOutput(DataType::kFloat);
  ExpectRunsTo(sum_all, Tensor::FromVector<float>({1, 1}, {0.0f}).value(), "ReduceSum all");
}

TEST(ReductionKernelsTest, ReduceMaxTakesBoolFromOpset20) {
  std::mt19937_64 rng(20);
  Tensor x = RandomTensor(rng, DataType::kBool, {3, 4}, 0, 1);
  Tensor expected;
  ASSERT_TRUE(math::Reduce(ReduceKind::kMax, x, std::vector<int64_t>{1}, {}, &expected).ok());
  SingleOpModel model("ReduceMax", 20);
  model.AddInput(Input(x)).AddInput(Initializer(Int64s({1}))).AddOutput(DataType::kBool);
  ExpectRunsTo(model, expected, "ReduceMax bool");
}

TEST(ReductionKernelsTest, ArgMaxAndArgMinMatchTheReference) {
  std::mt19937_64 rng(12);
  for (bool is_max : {true, false}) {
    for (DataType type : {DataType::kFloat, DataType::kFloat16, DataType::kInt32,
                          DataType::kUint8}) {
      for (int c = 0; c < 4; ++c) {
        const Shape shape = RandomShape(rng, 1, 4, 1, 5);
        const auto rank = static_cast<int64_t>(shape.size());
        math::ArgReduceAttrs attrs;
        attrs.axis = static_cast<int64_t>(rng() % (2 * rank)) - rank;
        attrs.keepdims = c % 2 == 0;
        attrs.select_last_index = c >= 2;
        Tensor x = RandomTensor(rng, type, shape, 0, 3);  // few values: many ties
        Tensor expected;
        ASSERT_TRUE((is_max ? math::ArgMax(x, attrs, &expected) : math::ArgMin(x, attrs, &expected))
                        .ok());
        SingleOpModel model(is_max ? "ArgMax" : "ArgMin", 13);
        model.AddAttribute(testing::IntAttr("axis", attrs.axis))
            .AddAttribute(testing::IntAttr("keepdims", attrs.keepdims))
            .AddAttribute(testing::IntAttr("select_last_index", attrs.select_last_index))
            .AddInput(Input(x))
            .AddOutput(DataType::kInt64);
        ExpectRunsTo(model, expected,
                     std::string(is_max ? "ArgMax " : "ArgMin ") +
                         std::string(DataTypeName(type)) + " " + ShapeToString(shape) +
                         " axis " + std::to_string(attrs.axis));
      }
    }
  }
}

TEST(ReductionKernelsTest, LargeReductionsSplitOverThreadsGiveTheSameResult) {
  std::mt19937_64 rng(77);
  SessionOptions options;
  options.intra_op_threads = 4;
  Tensor x = RandomTensor(rng, DataType::kFloat, {384, 96, 4}, -1, 1);
  for (const std::vector<int64_t>& axes : {std::vector<int64_t>{1}, std::vector<int64_t>{0, 2},
                                           std::vector<int64_t>{2}}) {
    Tensor expected;
    ASSERT_TRUE(math::Reduce(ReduceKind::kMean, x, axes, {}, &expected).ok());
    SingleOpModel model("ReduceMean", 18);
    model.AddInput(Input(x)).AddInput(Initializer(Int64s(axes))).AddOutput(DataType::kFloat);
    ExpectRunsTo(model, expected, "large ReduceMean axes " + ShapeToString(axes), options);
  }
  // Max and Min over long inner runs (FoldRun's partial results), rows cut over 1 and 2 threads
  // (160k values: two parts of at least MinItemsPerPart(kStreamNsPerElement) = 64 Ki), one row
  // holding NaN.
  Tensor runs = RandomTensor(rng, DataType::kFloat, {160, 1001}, -1, 1);
  runs.mutable_data<float>()[5 * 1001 + 700] = NAN;
  for (ReduceKind kind : {ReduceKind::kMax, ReduceKind::kMin}) {
    Tensor expected;
    ASSERT_TRUE(math::Reduce(kind, runs, std::vector<int64_t>{1}, {}, &expected).ok());
    for (int threads : {1, 2}) {
      SessionOptions at;
      at.intra_op_threads = threads;
      const std::string op(math::ReduceKindName(kind));
      SingleOpModel model(op, 18);
      model.AddInput(Input(runs)).AddInput(Initializer(Int64s({1}))).AddOutput(DataType::kFloat);
      ExpectRunsTo(model, expected, op + " at " + std::to_string(threads) + " thread(s)", at);
    }
  }
  math::ArgReduceAttrs attrs;
  attrs.axis = 1;
  Tensor expected;
  ASSERT_TRUE(math::ArgMax(x, attrs, &expected).ok());
  SingleOpModel model("ArgMax", 13);
  model.AddAttribute(testing::IntAttr("axis", 1)).AddInput(Input(x)).AddOutput(DataType::kInt64);
  ExpectRunsTo(model, expected, "large ArgMax", options);
}

// ArgMax/ArgMin tasks are column ranges of the outer blocks (axis 1 of [2, 200, 301]: ranges of
// 128 columns and a tail of 45) or whole rows (axis 1 of [300, 97]), at 1 and 2 threads, with
// NaN and the infinities inside, both tie rules.
TEST(ReductionKernelsTest, ArgMaxColumnRangesAndRowsOverThreads) {
  std::mt19937_64 rng(1616);
  for (const Shape& shape : {Shape{2, 200, 301}, Shape{300, 97}}) {
    Tensor x = RandomTensor(rng, DataType::kFloat, shape, 0, 20);
    const int64_t n = x.element_count();
    for (int64_t i : {n / 7, n / 3, n - 5}) {
      math::testing::SetValue(&x, i, std::numeric_limits<double>::quiet_NaN(), 0);
      math::testing::SetValue(&x, i + 3, std::numeric_limits<double>::infinity(), 0);
      math::testing::SetValue(&x, i + 4, -std::numeric_limits<double>::infinity(), 0);
    }
    for (bool is_max : {true, false}) {
      for (bool last : {false, true}) {
        math::ArgReduceAttrs attrs;
        attrs.axis = 1;
        attrs.select_last_index = last;
        Tensor expected;
        ASSERT_TRUE(
            (is_max ? math::ArgMax(x, attrs, &expected) : math::ArgMin(x, attrs, &expected)).ok());
        for (int threads : {1, 2}) {
          SessionOptions at;
          at.intra_op_threads = threads;
          SingleOpModel model(is_max ? "ArgMax" : "ArgMin", 13);
          model.AddAttribute(testing::IntAttr("axis", 1))
              .AddAttribute(testing::IntAttr("select_last_index", last))
              .AddInput(Input(x))
              .AddOutput(DataType::kInt64);
          ExpectRunsTo(model, expected,
                       std::string(is_max ? "ArgMax " : "ArgMin ") + ShapeToString(shape) +
                           (last ? " last" : "") + " at " + std::to_string(threads) +
                           " thread(s)",
                       at);
        }
      }
    }
  }
}

TEST(ReductionKernelsTest, AnAxisOutOfRangeIsNamed) {
  SingleOpModel model("ReduceMean", 18);
  model.AddInput(Input(Tensor::Allocate(DataType::kFloat, {2, 3}).value()))
      .AddInput(Initializer(Int64s({2})))
      .AddOutput(DataType::kFloat);
  Result<std::vector<Tensor>> outputs = model.Run();
  ASSERT_FALSE(outputs.ok());
  const std::string message = outputs.status().message();
  EXPECT_NE(message.find("node 'node' (ReduceMean, opset 18)"), std::string::npos) << message;
  EXPECT_NE(message.find("axis 2 is out of range for rank 2"), std::string::npos) << message;
}

}  // namespace
}  // namespace nxrt::cpu
