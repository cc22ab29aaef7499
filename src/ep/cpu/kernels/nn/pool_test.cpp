// ep/cpu/kernels/nn/pool_test.cpp: the pooling kernels at each opset form (attributes an opset
// has, MaxPool's Indices output, int8 from opset 12), issue 6's AveragePool ceil_mode case,
// random windows against a reference written from the ONNX definitions, and com.nxrt's
// channels-last pools against the NCHW pools on the transposed input.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "ep/cpu/kernels/tensor/single_op_test_util.h"
#include "ep/cpu/math/testing/nn_test_util.h"

namespace nxrt::cpu::kernels::testing {
namespace {

using nn::testing::AllClose;
using nn::testing::Count;
using nn::testing::ForEachIndex;
using nn::testing::Offset;
using nn::testing::RandomInt;
using nn::testing::RandomVector;
using nn::testing::ToNhwc;

// Issue 6: AveragePool 1-D [1,2,3,4,5], kernel 2, stride 2, ceil_mode=1, no pads.
TEST(AveragePoolKernel, Issue6CeilModeLastWindowAveragesItsOneElement) {
  for (int64_t opset : {10, 11, 19}) {
    OpCase op{"AveragePool", opset,
              {In(Tensor::FromVector<float>({1, 1, 5}, {1, 2, 3, 4, 5}).value())},
              {IntsAttr("kernel_shape", {2}), IntsAttr("strides", {2}), IntAttr("ceil_mode", 1)}};
    NXRT_ASSERT_OK_AND_ASSIGN(std::vector<Tensor> y, RunOp(op));
    EXPECT_EQ(y[0].shape(), (Shape{1, 1, 3})) << "opset " << opset;
    EXPECT_EQ(Values<float>(y[0]), (std::vector<float>{1.5f, 3.5f, 5.0f})) << "opset " << opset;
  }
}

TEST(AveragePoolKernel, CeilModeIsNotAnAttributeBeforeOpset10) {
  OpCase op{"AveragePool", 7, {In(Tensor::FromVector<float>({1, 1, 5}, {1, 2, 3, 4, 5}).value())},
            {IntsAttr("kernel_shape", {2}), IntsAttr("strides", {2})}};
  NXRT_ASSERT_OK_AND_ASSIGN(std::vector<Tensor> y, RunOp(op));
  EXPECT_EQ(Values<float>(y[0]), (std::vector<float>{1.5f, 3.5f}));
  // As ONNX Runtime 1.30: "Unrecognized attribute: ceil_mode for operator AveragePool".
  op.attributes.push_back(IntAttr("ceil_mode", 1));
  EXPECT_EQ(RunOp(op).status().code(), StatusCode::kInvalidModel);
}

struct Window {
  Shape x;
  std::vector<int64_t> kernel, strides, dilations, pads_begin, pads_end;
  bool ceil_mode = false;
};

Window RandomWindow(std::mt19937& rng, bool dilated) {
  Window w;
  const size_t sp = static_cast<size_t>(RandomInt(rng, 1, 3));
  w.x = {RandomInt(rng, 1, 2), RandomInt(rng, 1, 3)};
  for (size_t d = 0; d < sp; ++d) {
    w.kernel.push_back(RandomInt(rng, 1, 3));
    w.strides.push_back(RandomInt(rng, 1, 2));
    w.dilations.push_back(dilated ? RandomInt(rng, 1, 2) : 1);
    // Pads smaller than the kernel, as the spec requires.
    w.pads_begin.push_back(RandomInt(rng, 0, w.kernel.back() - 1));
    w.pads_end.push_back(RandomInt(rng, 0, w.kernel.back() - 1));
    w.x.push_back((w.kernel.back() - 1) * w.dilations.back() + 1 + RandomInt(rng, 0, 4));
  }
  w.ceil_mode = RandomInt(rng, 0, 1);
  return w;
}

// Output dims per window.h: floor or ceil, a ceil window starting past the input and its begin
// padding dropped.
Shape OutputShape(const Window& w) {
  Shape y = {w.x[0], w.x[1]};
  for (size_t d = 0; d < w.kernel.size(); ++d) {
    const int64_t in = w.x[2 + d], dk = (w.kernel[d] - 1) * w.dilations[d] + 1;
    const int64_t span = in + w.pads_begin[d] + w.pads_end[d] - dk;
    int64_t out = (w.ceil_mode ? (span + w.strides[d] - 1) / w.strides[d] : span / w.strides[d]) + 1;
    if (w.ceil_mode && (out - 1) * w.strides[d] >= in + w.pads_begin[d]) --out;
    y.push_back(out);
  }
  return y;
}

std::vector<int64_t> Concat(std::vector<int64_t> a, const std::vector<int64_t>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

// kind: "max", "avg", "avg_pad" (count_include_pad), "lp1", "lp2". Indices: row-major flat index
// of each maximum.
std::vector<double> PoolRef(const Window& w, const std::string& kind, const std::vector<float>& x,
                            std::vector<int64_t>* indices) {
  const Shape y_shape = OutputShape(w);
  std::vector<double> y(Count(y_shape));
  ForEachIndex(y_shape, [&](const std::vector<int64_t>& o) {
    double acc = kind == "max" ? -INFINITY : 0.0;
    int64_t count = 0, padded = 0, best = -1;
    ForEachIndex(w.kernel, [&](const std::vector<int64_t>& k) {
      std::vector<int64_t> xi = {o[0], o[1]};
      bool inside = true, in_padded = true;
      for (size_t d = 0; d < w.kernel.size(); ++d) {
        const int64_t pos = o[2 + d] * w.strides[d] - w.pads_begin[d] + k[d] * w.dilations[d];
        inside = inside && pos >= 0 && pos < w.x[2 + d];
        in_padded = in_padded && pos < w.x[2 + d] + w.pads_end[d];
        xi.push_back(pos);
      }
      padded += in_padded;
      if (!inside) return;
      const int64_t at = Offset(w.x, xi);
      const double v = x[at];
      ++count;
      if (kind == "max") {
        if (v > acc) {
          acc = v;
          best = at;
        }
      } else if (kind == "lp1") {
        acc += std::fabs(v);
      } else if (kind == "lp2") {
        acc += v * v;
      } else {
        acc += v;
      }
    });
    double out = acc;
    if (kind == "avg") out = acc / count;
    if (kind == "avg_pad") out = acc / padded;
    if (kind == "lp2") out = std::sqrt(acc);
    y[Offset(y_shape, o)] = out;
    if (indices != nullptr) indices->push_back(best);
  });
  return y;
}

TEST(PoolKernels, RandomWindowsMatchReference) {
  std::mt19937 rng(111);
  const std::string kinds[] = {"max", "avg", "avg_pad", "lp1", "lp2"};
  for (int iter = 0; iter < 60; ++iter) {
    const std::string& kind = kinds[iter % 5];
    const bool lp = kind.rfind("lp", 0) == 0;
    const int64_t opset = kind == "max" ? 12 : lp ? 18 : 19;
    const Window w = RandomWindow(rng, true);
    const std::vector<float> x = RandomVector<float>(rng, Count(w.x));
    OpCase op{kind == "max" ? "MaxPool" : lp ? "LpPool" : "AveragePool", opset,
              {In(Tensor::FromVector<float>(w.x, x).value())},
              {IntsAttr("kernel_shape", w.kernel), IntsAttr("strides", w.strides),
               IntsAttr("dilations", w.dilations),
               IntsAttr("pads", Concat(w.pads_begin, w.pads_end)),
               IntAttr("ceil_mode", w.ceil_mode)},
              kind == "max" ? 2 : 1};
    if (kind == "avg_pad") op.attributes.push_back(IntAttr("count_include_pad", 1));
    if (lp) op.attributes.push_back(IntAttr("p", kind == "lp1" ? 1 : 2));
    std::vector<int64_t> indices;
    const std::vector<double> expected = PoolRef(w, kind, x, kind == "max" ? &indices : nullptr);
    NXRT_ASSERT_OK_AND_ASSIGN(std::vector<Tensor> y, RunOp(op));
    ASSERT_EQ(y[0].shape(), OutputShape(w)) << kind << " iteration " << iter;
    EXPECT_TRUE(AllClose(Values<float>(y[0]), expected, 1e-5, 1e-5)) << kind;
    if (kind == "max") {
      EXPECT_EQ(Values<int64_t>(y[1]), indices);
    }
  }
}

TEST(PoolKernels, GlobalPoolsReduceEverySpatialDim) {
  std::mt19937 rng(112);
  const Shape shape = {2, 3, 4, 5};
  const std::vector<float> x = RandomVector<float>(rng, Count(shape));
  for (const char* op_type : {"GlobalMaxPool", "GlobalAveragePool", "GlobalLpPool"}) {
    OpCase op{op_type, 2, {In(Tensor::FromVector<float>(shape, x).value())}};
    NXRT_ASSERT_OK_AND_ASSIGN(std::vector<Tensor> y, RunOp(op));
    ASSERT_EQ(y[0].shape(), (Shape{2, 3, 1, 1}));
    std::vector<double> expected;
    for (int64_t plane = 0; plane < 6; ++plane) {
      double max = -INFINITY, sum = 0, squares = 0;
      for (int64_t i = 0; i < 20; ++i) {
        const double v = x[plane * 20 + i];
        max = std::max(max, v);
        sum += v;
        squares += v * v;
      }
      expected.push_back(std::string(op_type) == "GlobalMaxPool"       ? max
                         : std::string(op_type) == "GlobalAveragePool" ? sum / 20
                                                                       : std::sqrt(squares));
    }
    EXPECT_TRUE(AllClose(Values<float>(y[0]), expected, 1e-5, 1e-5)) << op_type;
  }
}

TEST(MaxPoolKernel, Int8FromOpset12AndColumnMajorIndices) {
  OpCase op{"MaxPool", 12,
            {In(Tensor::FromVector<int8_t>({1, 1, 2, 2}, {1, 4, 3, 2}).value())},
            {IntsAttr("kernel_shape", {2, 2}), IntAttr("storage_order", 1)}, 2};
  NXRT_ASSERT_OK_AND_ASSIGN(std::vector<Tensor> y, RunOp(op));
  EXPECT_EQ(Values<int8_t>(y[0]), (std::vector<int8_t>{4}));
  // The maximum sits at (h 0, w 1): index 1 row-major, 0 + 1 * 2 = 2 column-major.
  EXPECT_EQ(Values<int64_t>(y[1]), (std::vector<int64_t>{2}));
  op.opset = 11;
  EXPECT_EQ(RunOp(op).status().code(), StatusCode::kInvalidModel);  // int8 from opset 12
}

TEST(PoolKernels, MissingKernelShapeAndBadPNameTheAttribute) {
  OpCase op{"MaxPool", 12, {In(Tensor::Allocate(DataType::kFloat, {1, 1, 4}).value())}};
  Result<std::vector<Tensor>> missing = RunOp(op);
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("'kernel_shape'"), std::string::npos)
      << missing.status().message();
  OpCase lp{"LpPool", 11, {In(Tensor::Allocate(DataType::kFloat, {1, 1, 4}).value())},
            {IntsAttr("kernel_shape", {2}), IntAttr("p", 0)}};
  Result<std::vector<Tensor>> bad = RunOp(lp);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("attribute 'p' is 0"), std::string::npos)
      << bad.status().message();
}

// ONNX Runtime 1.30 refuses a pad as large as its kernel size (checked there with a MaxPool of
// kernel [2, 2] and pads [2, 0, 0, 0]): each pool names the pad, its position and the kernel size.
// A pad one smaller runs.
TEST(PoolKernels, PadAsLargeAsTheKernelIsRefusedAsInOnnxRuntime) {
  const Tensor x = Tensor::Allocate(DataType::kFloat, {1, 1, 4, 4}).value();
  for (const char* op_type : {"MaxPool", "AveragePool", "LpPool"}) {
    SCOPED_TRACE(op_type);
    OpCase op{op_type, 18, {In(x)},
              {IntsAttr("kernel_shape", {2, 3}), IntsAttr("pads", {0, 0, 0, 3})}};
    Result<std::vector<Tensor>> refused = RunOp(op);
    ASSERT_FALSE(refused.ok());
    EXPECT_EQ(refused.status().code(), StatusCode::kInvalidModel);
    EXPECT_NE(refused.status().message().find(
                  "'pads' has 3 at position 3, not smaller than kernel_shape[1] = 3"),
              std::string::npos)
        << refused.status().message();
    op.attributes[1] = IntsAttr("pads", {1, 2, 1, 2});
    NXRT_ASSERT_OK_AND_ASSIGN(std::vector<Tensor> y, RunOp(op));
    EXPECT_EQ(y[0].shape(), (Shape{1, 1, 5, 6}));
  }
}

// A kernel of 2^20 taps padded by 2^20 - 1 on each side of one input value: 2^20 windows, each
// reading that value once. The pools find each window's taps per dim from the geometry; a table
// per (output, tap) would hold 2^40 entries (9 TB, what a fuzzed model once asked for under
// ASan). Every window holds x, so MaxPool, LpPool and AveragePool give x, and AveragePool with
// count_include_pad divides by the 2^20 positions inside the padded input. 1-D and 2-D (a
// window this much wider than the input takes the general path, not the row-buffer one).
TEST(PoolKernels, KernelWiderThanInputOverPaddingReadsOnlyTheInput) {
  constexpr int64_t kTaps = int64_t{1} << 20;
  for (const Shape& x_shape : {Shape{1, 1, 1}, Shape{1, 1, 1, 1}}) {
    const bool two_d = x_shape.size() == 4;
    const std::vector<int64_t> kernel = two_d ? std::vector<int64_t>{1, kTaps}
                                              : std::vector<int64_t>{kTaps};
    const std::vector<int64_t> pads = two_d ? std::vector<int64_t>{0, kTaps - 1, 0, kTaps - 1}
                                            : std::vector<int64_t>{kTaps - 1, kTaps - 1};
    Shape y_shape = x_shape;
    y_shape.back() = kTaps;
    const Tensor x = Tensor::FromVector<float>(x_shape, {3.5f}).value();
    const std::vector<AttributeValue> window = {IntsAttr("kernel_shape", kernel),
                                                IntsAttr("pads", pads)};
    struct Expect {
      OpCase op;
      float value;
    };
    std::vector<Expect> cases = {{{"MaxPool", 12, {In(x)}, window}, 3.5f},
                                 {{"LpPool", 18, {In(x)}, window}, 3.5f},
                                 {{"AveragePool", 19, {In(x)}, window}, 3.5f},
                                 {{"AveragePool", 19, {In(x)}, window}, 3.5f / kTaps}};
    cases.back().op.attributes.push_back(IntAttr("count_include_pad", 1));
    for (const Expect& e : cases) {
      SCOPED_TRACE(::testing::Message() << e.op.op_type << " X " << x_shape.size() << "-D");
      NXRT_ASSERT_OK_AND_ASSIGN(std::vector<Tensor> y, RunOp(e.op));
      ASSERT_EQ(y[0].shape(), y_shape);
      EXPECT_EQ(Values<float>(y[0]), std::vector<float>(kTaps, e.value));
    }
  }
}

// The float 2-D MaxPool (no Indices), AveragePool and LpPool (p = 1, 2) rows and the float Global
// pools
// (math/nn/pool.cpp, simd_map.h builds) against the definitions on random windows: odd widths
// (vector tails), strides 1 to 3, ceil_mode, pads, dilations, count_include_pad; inputs with NaN,
// +inf and -inf; planes enough that two threads split them. A window holding a NaN gives NaN; an
// average of +inf and -inf is NaN; a max of -inf only is float's lowest (the pools start there).
bool SameOrBothNan(double got, double want, double tolerance) {
  if (std::isnan(want)) return std::isnan(got);
  if (std::isinf(want)) return got == want;
  return std::fabs(got - want) <= tolerance * (1 + std::fabs(want));
}

TEST(PoolKernels, FloatRowsAndGlobalPoolsMatchDefinitionWithNanInfAtOneAndTwoThreads) {
  std::mt19937 rng(115);
  const float specials[] = {NAN, INFINITY, -INFINITY};
  for (int iter = 0; iter < 36; ++iter) {
    const bool max = iter % 2 == 0, big = iter % 6 == 0;
    const int special_kind = iter % 4;  // 0: none, else one of specials
    Window w;
    w.x = {RandomInt(rng, 1, 2), big ? 24 : RandomInt(rng, 1, 5), RandomInt(rng, 3, big ? 61 : 19),
           RandomInt(rng, 3, big ? 59 : 37)};
    for (int d = 0; d < 2; ++d) {
      w.kernel.push_back(RandomInt(rng, 1, 3));
      w.strides.push_back(RandomInt(rng, 1, 3));
      w.dilations.push_back(RandomInt(rng, 1, 2));
      w.pads_begin.push_back(RandomInt(rng, 0, w.kernel.back() - 1));
      w.pads_end.push_back(RandomInt(rng, 0, w.kernel.back() - 1));
    }
    w.x[2] = std::max(w.x[2], (w.kernel[0] - 1) * w.dilations[0] + 1);
    w.x[3] = std::max(w.x[3], (w.kernel[1] - 1) * w.dilations[1] + 1);
    w.ceil_mode = iter % 3 == 1;
    const bool include_pad = !max && iter % 4 == 1;
    std::vector<float> x = RandomVector<float>(rng, Count(w.x));
    if (special_kind > 0) {
      for (float& v : x) {
        if (RandomInt(rng, 0, 40) == 0) v = specials[special_kind - 1];
      }
    }
    SCOPED_TRACE(::testing::Message() << "iteration " << iter << " X " << ShapeToString(w.x));
    // The definition, with NaN and infinities: the window's taps in double.
    const Shape y_shape = OutputShape(w);
    std::vector<double> want(Count(y_shape));
    ForEachIndex(y_shape, [&](const std::vector<int64_t>& o) {
      double acc = max ? -std::numeric_limits<double>::infinity() : 0.0;
      bool nan = false;
      int64_t count = 0;
      ForEachIndex(w.kernel, [&](const std::vector<int64_t>& k) {
        std::vector<int64_t> xi = {o[0], o[1]};
        bool inside = true, in_padded = true;
        for (size_t d = 0; d < 2; ++d) {
          const int64_t pos = o[2 + d] * w.strides[d] - w.pads_begin[d] + k[d] * w.dilations[d];
          inside = inside && pos >= 0 && pos < w.x[2 + d];
          in_padded = in_padded && pos < w.x[2 + d] + w.pads_end[d];
          xi.push_back(pos);
        }
        count += include_pad ? in_padded : inside;
        if (!inside) return;
        const double v = x[Offset(w.x, xi)];
        nan = nan || std::isnan(v);
        acc = max ? std::max(acc, v) : acc + v;
      });
      double out = max ? std::max<double>(acc, std::numeric_limits<float>::lowest())
                       : (count > 0 ? acc / static_cast<double>(count) : 0.0);
      if (nan) out = NAN;
      want[Offset(y_shape, o)] = out;
    });
    // LpPool over the same windows, p = 2 on even iterations and 1 on odd ones: the sum of x² (or
    // |x|) over the window's inputs, then its square root; NaN wins, an infinity gives +inf.
    const double lp_p = iter % 2 == 0 ? 2.0 : 1.0;
    std::vector<double> want_lp(Count(y_shape));
    ForEachIndex(y_shape, [&](const std::vector<int64_t>& o) {
      double sum = 0;
      ForEachIndex(w.kernel, [&](const std::vector<int64_t>& k) {
        std::vector<int64_t> xi = {o[0], o[1]};
        bool inside = true;
        for (size_t d = 0; d < 2; ++d) {
          const int64_t pos = o[2 + d] * w.strides[d] - w.pads_begin[d] + k[d] * w.dilations[d];
          inside = inside && pos >= 0 && pos < w.x[2 + d];
          xi.push_back(pos);
        }
        if (inside) sum += std::pow(std::fabs(static_cast<double>(x[Offset(w.x, xi)])), lp_p);
      });
      want_lp[Offset(y_shape, o)] = std::pow(sum, 1.0 / lp_p);
    });
    std::vector<AttributeValue> attributes = {
        IntsAttr("kernel_shape", w.kernel), IntsAttr("strides", w.strides),
        IntsAttr("dilations", w.dilations), IntsAttr("pads", Concat(w.pads_begin, w.pads_end)),
        IntAttr("ceil_mode", w.ceil_mode)};
    std::vector<AttributeValue> lp_attributes = attributes;
    lp_attributes.push_back(IntAttr("p", static_cast<int64_t>(lp_p)));
    if (include_pad) attributes.push_back(IntAttr("count_include_pad", 1));
    const Tensor input = Tensor::FromVector<float>(w.x, x).value();
    for (int threads : {1, 2}) {
      SCOPED_TRACE(::testing::Message() << threads << " thread(s)");
      OpCase lp{"LpPool", 18, {In(input)}, lp_attributes};
      NXRT_ASSERT_OK_AND_ASSIGN(std::vector<Tensor> ly, RunOp(lp, AsWritten(threads)));
      ASSERT_EQ(ly[0].shape(), y_shape);
      const std::vector<float> lp_got = Values<float>(ly[0]);
      for (size_t i = 0; i < lp_got.size(); ++i) {
        ASSERT_TRUE(SameOrBothNan(lp_got[i], want_lp[i], 1e-6))
            << "LpPool p " << lp_p << " at " << i << ": " << lp_got[i] << " vs " << want_lp[i];
      }
      OpCase op{max ? "MaxPool" : "AveragePool", 19, {In(input)}, attributes};
      if (max) op.opset = 12;
      NXRT_ASSERT_OK_AND_ASSIGN(std::vector<Tensor> y, RunOp(op, AsWritten(threads)));
      ASSERT_EQ(y[0].shape(), y_shape);
      const std::vector<float> got = Values<float>(y[0]);
      for (size_t i = 0; i < got.size(); ++i) {
        ASSERT_TRUE(SameOrBothNan(got[i], want[i], 1e-6)) << "at " << i << ": " << got[i]
                                                          << " vs " << want[i];
      }
      // The Global form over the same input: max (NaN wins) and mean of each plane.
      OpCase global{max ? "GlobalMaxPool" : "GlobalAveragePool", 1, {In(input)}};
      NXRT_ASSERT_OK_AND_ASSIGN(std::vector<Tensor> g, RunOp(global, AsWritten(threads)));
      const int64_t plane = w.x[2] * w.x[3];
      const std::vector<float> gy = Values<float>(g[0]);
      ASSERT_EQ(static_cast<int64_t>(gy.size()), w.x[0] * w.x[1]);
      for (int64_t p = 0; p < w.x[0] * w.x[1]; ++p) {
        double acc = max ? std::numeric_limits<float>::lowest() : 0.0;
        bool nan = false;
        for (int64_t i = 0; i < plane; ++i) {
          const double v = x[p * plane + i];
          nan = nan || std::isnan(v);
          acc = max ? std::max(acc, v) : acc + v;
        }
        const double expected = nan ? NAN : max ? acc : acc / static_cast<double>(plane);
        ASSERT_TRUE(SameOrBothNan(gy[p], expected, 1e-6)) << "plane " << p << ": " << gy[p]
                                                            << " vs " << expected;
      }
    }
  }
}

// `op` of `domain` on `x` as a one-node model through the session, on two threads, with the
// graph passes off (the node under test stays as written).
Result<std::vector<Tensor>> RunNode(const std::string& op, int64_t opset,
                                    const std::string& domain, const Tensor& x,
                                    const std::vector<AttributeValue>& attributes) {
  OpCase node{op, opset, {In(x)}, attributes};
  node.domain = domain;
  return RunOp(node, AsWritten(2));
}

template <typename T>
void ExpectNhwcMatches(const Tensor& nhwc, const Tensor& nchw, double tolerance) {
  const Shape& s = nchw.shape();
  ASSERT_EQ(nhwc.shape(), (Shape{s[0], s[2], s[3], s[1]}));
  EXPECT_TRUE(AllClose(Values<T>(nhwc), ToNhwc(s, Values<T>(nchw)), tolerance, tolerance));
}

// com.nxrt:NhwcMaxPool and NhwcAveragePool against MaxPool-12 and AveragePool-19 on the
// transposed input: 3, 17 and 64 channels, strides, pads, dilations, ceil_mode, SAME_UPPER,
// count_include_pad, storage_order (accepted, not used); float and double.
TEST(NhwcPoolKernels, MatchNchwPools) {
  std::mt19937 rng(113);
  const int64_t channel_counts[] = {3, 17, 64};
  for (int iter = 0; iter < 24; ++iter) {
    const bool max = iter % 2 == 0, use_double = iter % 4 == 1;
    const std::vector<int64_t> kernel = {RandomInt(rng, 1, 3), RandomInt(rng, 2, 3)};
    std::vector<AttributeValue> attributes = {
        IntsAttr("kernel_shape", kernel),
        IntsAttr("strides", {RandomInt(rng, 1, 2), RandomInt(rng, 1, 2)}),
        IntsAttr("dilations", {1, RandomInt(rng, 1, 2)})};
    if (iter % 3 == 2) {
      attributes.push_back(StringAttr("auto_pad", "SAME_UPPER"));
    } else {
      attributes.push_back(IntsAttr("pads", {RandomInt(rng, 0, kernel[0] - 1),
                                             RandomInt(rng, 0, kernel[1] - 1),
                                             RandomInt(rng, 0, kernel[0] - 1),
                                             RandomInt(rng, 0, kernel[1] - 1)}));
      attributes.push_back(IntAttr("ceil_mode", iter % 4 < 2));
    }
    if (max) attributes.push_back(IntAttr("storage_order", iter % 4 == 0));
    if (!max) attributes.push_back(IntAttr("count_include_pad", iter % 4 == 3));
    const Shape xs = {RandomInt(rng, 1, 2), channel_counts[iter % 3], RandomInt(rng, 4, 12),
                      RandomInt(rng, 4, 12)};
    const Shape x_nhwc = {xs[0], xs[2], xs[3], xs[1]};
    SCOPED_TRACE(::testing::Message() << "iteration " << iter << " X " << ShapeToString(xs));
    const std::vector<double> x = RandomVector<double>(rng, Count(xs));
    const std::vector<float> xf(x.begin(), x.end());
    const Tensor nchw = use_double ? Tensor::FromVector<double>(xs, x).value()
                                   : Tensor::FromVector<float>(xs, xf).value();
    const Tensor nhwc = use_double ? Tensor::FromVector<double>(x_nhwc, ToNhwc(xs, x)).value()
                                   : Tensor::FromVector<float>(x_nhwc, ToNhwc(xs, xf)).value();
    NXRT_ASSERT_OK_AND_ASSIGN(
        std::vector<Tensor> want,
        RunNode(max ? "MaxPool" : "AveragePool", max ? 12 : 19, "", nchw, attributes));
    NXRT_ASSERT_OK_AND_ASSIGN(
        std::vector<Tensor> got,
        RunNode(max ? "NhwcMaxPool" : "NhwcAveragePool", 1, "com.nxrt", nhwc, attributes));
    if (use_double) {
      ExpectNhwcMatches<double>(got[0], want[0], 1e-12);
    } else {
      ExpectNhwcMatches<float>(got[0], want[0], 1e-6);
    }
  }
}

TEST(NhwcPoolKernels, GlobalAverageMatchesGlobalAveragePool) {
  std::mt19937 rng(114);
  for (const Shape& xs : {Shape{2, 3, 5, 4}, Shape{1, 17, 7, 7}, Shape{1, 512, 7, 7}}) {
    const std::vector<float> x = RandomVector<float>(rng, Count(xs));
    NXRT_ASSERT_OK_AND_ASSIGN(
        std::vector<Tensor> want,
        RunNode("GlobalAveragePool", 1, "", Tensor::FromVector<float>(xs, x).value(), {}));
    NXRT_ASSERT_OK_AND_ASSIGN(
        std::vector<Tensor> got,
        RunNode("NhwcGlobalAveragePool", 1, "com.nxrt",
                Tensor::FromVector<float>({xs[0], xs[2], xs[3], xs[1]}, ToNhwc(xs, x)).value(),
                {}));
    ExpectNhwcMatches<float>(got[0], want[0], 1e-6);
  }
}

TEST(NhwcPoolKernels, ErrorsNameShapeAndAttribute) {
  const Tensor rank3 = Tensor::Allocate(DataType::kFloat, {1, 4, 3}).value();
  Result<std::vector<Tensor>> wrong_rank =
      RunNode("NhwcMaxPool", 1, "com.nxrt", rank3, {IntsAttr("kernel_shape", {2, 2})});
  ASSERT_FALSE(wrong_rank.ok());
  EXPECT_NE(wrong_rank.status().message().find("X [1,4,3] must have rank 4"), std::string::npos)
      << wrong_rank.status().message();
  const Tensor x = Tensor::Allocate(DataType::kFloat, {1, 4, 4, 3}).value();
  Result<std::vector<Tensor>> missing = RunNode("NhwcAveragePool", 1, "com.nxrt", x, {});
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("'kernel_shape'"), std::string::npos)
      << missing.status().message();
}

}  // namespace
}  // namespace nxrt::cpu::kernels::testing
