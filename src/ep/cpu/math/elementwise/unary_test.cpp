// ep/cpu/math/elementwise/unary_test.cpp: unary ops and Clip against straightforward
// double/__int128 formulas on random data for every supported type, plus ONNX doc examples and NaN
// behaviour.
#include "ep/cpu/math/elementwise/unary.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "ep/cpu/math/fast_math.h"
#include "ep/cpu/math/testing/test_util.h"

namespace nxrt::cpu::math {
namespace {

using testing::AllNumericTypes;
using testing::ExpectClose;
using testing::GetDouble;
using testing::GetInt;
using testing::Int128;
using testing::IsFloatType;
using testing::Make;
using testing::RandomShape;
using testing::RandomTensor;
using testing::RoundTo;
using testing::Values;
using testing::WrapTo;

double RoundHalfEven(double x) {
  const double r = std::floor(x);
  const double diff = x - r;
  if (diff > 0.5) return r + 1;
  if (diff < 0.5) return r;
  return std::fmod(r, 2.0) == 0 ? r : r + 1;
}

double RefFloat(UnaryKind kind, const UnaryAttrs& a, double x) {
  switch (kind) {
    case UnaryKind::kAbs: return std::fabs(x);
    case UnaryKind::kNeg: return -x;
    case UnaryKind::kSign: return x > 0 ? 1 : (x < 0 ? -1 : 0);
    case UnaryKind::kSqrt: return std::sqrt(x);
    case UnaryKind::kExp: return std::exp(x);
    case UnaryKind::kLog: return std::log(x);
    case UnaryKind::kErf: return std::erf(x);
    case UnaryKind::kTanh: return std::tanh(x);
    case UnaryKind::kSigmoid: return 1 / (1 + std::exp(-x));
    case UnaryKind::kRelu: return std::max(0.0, x);
    case UnaryKind::kLeakyRelu: return x >= 0 ? x : a.alpha * x;
    case UnaryKind::kElu: return x >= 0 ? x : a.alpha * (std::exp(x) - 1);
    case UnaryKind::kSelu:
      return x > 0 ? a.gamma * x : a.gamma * (a.alpha * std::exp(x) - a.alpha);
    case UnaryKind::kCelu:  // std::max and std::min would drop a NaN x
      return std::isnan(x) ? x
                           : std::max(0.0, x) + std::min(0.0, a.alpha * (std::exp(x / a.alpha) - 1));
    case UnaryKind::kHardSigmoid: return std::max(0.0, std::min(1.0, a.alpha * x + a.beta));
    case UnaryKind::kHardSwish: return x * std::max(0.0, std::min(1.0, x / 6 + 0.5));
    case UnaryKind::kSoftplus:
      return x > 0 ? x + std::log1p(std::exp(-x)) : std::log1p(std::exp(x));
    case UnaryKind::kSoftsign: return x / (1 + std::fabs(x));
    case UnaryKind::kGelu:
      if (a.gelu_tanh) {
        return 0.5 * x * (1 + std::tanh(std::sqrt(2 / M_PI) * (x + 0.044715 * std::pow(x, 3))));
      }
      return 0.5 * x * (1 + std::erf(x / std::sqrt(2.0)));
    case UnaryKind::kMish: return x * std::tanh(std::log(1 + std::exp(x)));
    case UnaryKind::kThresholdedRelu: return x > a.alpha ? x : 0;
    case UnaryKind::kShrink: return x < -a.lambd ? x + a.bias : (x > a.lambd ? x - a.bias : 0);
    case UnaryKind::kFloor: return std::floor(x);
    case UnaryKind::kCeil: return std::ceil(x);
    case UnaryKind::kRound: return RoundHalfEven(x);
    case UnaryKind::kReciprocal: return 1 / x;
    case UnaryKind::kSin: return std::sin(x);
    case UnaryKind::kCos: return std::cos(x);
    case UnaryKind::kTan: return std::tan(x);
    case UnaryKind::kAsin: return std::asin(x);
    case UnaryKind::kAcos: return std::acos(x);
    case UnaryKind::kAtan: return std::atan(x);
    case UnaryKind::kSinh: return std::sinh(x);
    case UnaryKind::kCosh: return std::cosh(x);
    case UnaryKind::kAsinh: return std::asinh(x);
    case UnaryKind::kAcosh: return std::acosh(x);
    case UnaryKind::kAtanh: return std::atanh(x);
    case UnaryKind::kIsNaN: return std::isnan(x);
    case UnaryKind::kIsInf: return std::isinf(x);
    default: ADD_FAILURE() << "no float reference for " << UnaryKindName(kind); return 0;
  }
}

Int128 RefInt(UnaryKind kind, const UnaryAttrs& a, Int128 x) {
  switch (kind) {
    case UnaryKind::kAbs: return x < 0 ? -x : x;
    case UnaryKind::kNeg: return -x;
    case UnaryKind::kSign: return x > 0 ? 1 : (x < 0 ? -1 : 0);
    case UnaryKind::kRelu: return x < 0 ? 0 : x;
    case UnaryKind::kErf: return static_cast<Int128>(std::trunc(std::erf(static_cast<double>(x))));
    case UnaryKind::kShrink: {
      const double v = static_cast<double>(x);
      if (v < -a.lambd) return static_cast<Int128>(std::trunc(v + a.bias));
      if (v > a.lambd) return static_cast<Int128>(std::trunc(v - a.bias));
      return 0;
    }
    case UnaryKind::kNot: return x == 0;
    case UnaryKind::kBitwiseNot: return ~x;
    default: ADD_FAILURE() << "no int reference for " << UnaryKindName(kind); return 0;
  }
}

// Input range per op: inside the domain, wide enough to cover both branches.
std::pair<double, double> Range(UnaryKind kind) {
  switch (kind) {
    case UnaryKind::kSqrt:
    case UnaryKind::kLog: return {0.01, 50};
    case UnaryKind::kAsin:
    case UnaryKind::kAcos:
    case UnaryKind::kAtanh: return {-0.99, 0.99};
    case UnaryKind::kAcosh: return {1, 20};
    case UnaryKind::kExp:
    case UnaryKind::kSinh:
    case UnaryKind::kCosh: return {-8, 8};
    case UnaryKind::kReciprocal: return {0.1, 10};
    case UnaryKind::kNot: return {0, 1};
    default: return {-6, 6};
  }
}

std::vector<UnaryKind> AllKinds() {
  return {
#define NXRT_UNARY_KIND(name, functor, types, out) UnaryKind::k##name,
#include "ep/cpu/math/elementwise/unary_kinds.inc"
#undef NXRT_UNARY_KIND
  };
}

TEST(Unary, RandomDataAllSupportedTypesMatchReference) {
  std::mt19937_64 rng(424242);
  std::vector<DataType> types = AllNumericTypes();
  types.push_back(DataType::kBool);
  int checked_pairs = 0;
  for (UnaryKind kind : AllKinds()) {
    UnaryAttrs attrs = DefaultUnaryAttrs(kind);
    if (kind == UnaryKind::kShrink) attrs.bias = 1.5f;
    for (DataType type : types) {
      auto plan = PrepareUnary(kind, type, attrs);
      if (!plan.ok()) {
        EXPECT_EQ(plan.status().code(), StatusCode::kUnsupported) << plan.status().ToString();
        continue;
      }
      ++checked_pairs;
      auto [lo, hi] = Range(kind);
      if (!testing::IsSignedType(type)) lo = std::max(lo, 0.0);
      if (!IsFloatType(type) && type != DataType::kBool) hi = std::max(hi, 100.0);
      for (int iter = 0; iter < 3; ++iter) {
        const Shape shape = RandomShape(rng, 0, 3, 0, 40);
        const Tensor in = RandomTensor(rng, type, shape, lo, hi);
        Tensor out;
        ASSERT_TRUE(Unary(kind, in, &out, attrs).ok());
        ASSERT_EQ(out.shape(), shape);
        for (int64_t i = 0; i < in.element_count(); ++i) {
          const std::string where = std::string(UnaryKindName(kind)) + " " +
                                    std::string(DataTypeName(type)) + " x=" +
                                    std::to_string(GetDouble(in, i));
          if (IsFloatType(type)) {
            const double expected = RefFloat(kind, attrs, GetDouble(in, i));
            if (plan->out_type == DataType::kBool) {
              ASSERT_EQ(expected != 0, out.data<bool>()[i]) << where;
            } else {
              ExpectClose(type, RoundTo(type, expected), GetDouble(out, i), where);
            }
          } else {
            const Int128 expected = WrapTo(type, RefInt(kind, attrs, GetInt(in, i)));
            ASSERT_TRUE(expected == GetInt(out, i))
                << where << ": expected " << static_cast<int64_t>(expected);
          }
        }
      }
    }
  }
  EXPECT_GT(checked_pairs, 150);
}

TEST(Unary, UnsupportedTypeNamesTheSupportedOnes) {
  Tensor out;
  const Status s = Unary(UnaryKind::kSqrt, Make<int32_t>({1}, {4}), &out);
  EXPECT_EQ(s.code(), StatusCode::kUnsupported);
  EXPECT_EQ(s.message(),
            "Sqrt does not support element type int32 (supported: float16, float, double, "
            "bfloat16)");
}

TEST(Unary, RoundIsHalfToEven) {
  // ONNX Round example.
  const std::vector<float> x = {0.1f, 0.5f, 0.9f, 1.2f, 1.5f, 1.8f, 2.3f, 2.5f,
                                2.7f, -1.1f, -1.5f, -1.9f, -2.2f, -2.5f, -2.8f};
  Tensor out;
  ASSERT_TRUE(Unary(UnaryKind::kRound, Make<float>({15}, x), &out).ok());
  EXPECT_EQ(Values<float>(out), (std::vector<float>{0, 0, 1, 1, 2, 2, 2, 2, 3, -1, -2, -2, -2,
                                                    -2, -3}));
}

TEST(Unary, GeluBothApproximations) {
  // ONNX Gelu examples (x = [-1, 0, 1]).
  const Tensor x = Make<float>({3}, {-1, 0, 1});
  Tensor out;
  ASSERT_TRUE(Unary(UnaryKind::kGelu, x, &out).ok());
  EXPECT_NEAR(out.data<float>()[0], -0.15865526f, 1e-6);
  EXPECT_NEAR(out.data<float>()[2], 0.8413447f, 1e-6);
  UnaryAttrs tanh = DefaultUnaryAttrs(UnaryKind::kGelu);
  tanh.gelu_tanh = true;
  out = Tensor();
  ASSERT_TRUE(Unary(UnaryKind::kGelu, x, &out, tanh).ok());
  EXPECT_NEAR(out.data<float>()[0], -0.158808f, 1e-6);
  EXPECT_NEAR(out.data<float>()[2], 0.841192f, 1e-6);
}

// The float paths of these ops use the approximations of fast_math.h and fast_exp.h; a dense sweep
// over [-60, 60], well past where each saturates (Mish switches to x above 20, Exp overflows past
// 88.7 only for the large specials, Asin and Acos are NaN outside [-1, 1]), plus NaN and the
// infinities.
constexpr UnaryKind kFastFloatKinds[] = {
    UnaryKind::kErf,  UnaryKind::kTanh, UnaryKind::kSigmoid, UnaryKind::kGelu,
    UnaryKind::kMish, UnaryKind::kExp,  UnaryKind::kAtan,    UnaryKind::kAsin,
    UnaryKind::kAcos, UnaryKind::kElu,  UnaryKind::kSelu,    UnaryKind::kCelu,
    UnaryKind::kHardSwish, UnaryKind::kLog, UnaryKind::kSin, UnaryKind::kCos,
    UnaryKind::kTan, UnaryKind::kSinh, UnaryKind::kCosh, UnaryKind::kSoftplus};

TEST(Unary, FloatTranscendentalsMatchDoubleOnDenseSweep) {
  std::vector<float> x;
  for (int i = -120000; i <= 120000; ++i) x.push_back(static_cast<float>(i) * 5e-4f);
  for (float v : {NAN, INFINITY, -INFINITY, 1e30f, -1e30f}) x.push_back(v);
  const Tensor in = Make<float>({static_cast<int64_t>(x.size())}, x);
  for (UnaryKind kind : kFastFloatKinds) {
    for (bool gelu_tanh : {false, true}) {
      if (gelu_tanh && kind != UnaryKind::kGelu) continue;
      UnaryAttrs attrs = DefaultUnaryAttrs(kind);
      attrs.gelu_tanh = gelu_tanh;
      Tensor out;
      ASSERT_TRUE(Unary(kind, in, &out, attrs).ok());
      for (size_t i = 0; i < x.size(); ++i) {
        const std::string where = std::string(UnaryKindName(kind)) + (gelu_tanh ? " tanh" : "") +
                                  " x=" + std::to_string(x[i]);
        ExpectClose(DataType::kFloat, RoundTo(DataType::kFloat, RefFloat(kind, attrs, x[i])),
                    out.data<float>()[i], where);
        if (::testing::Test::HasFailure()) return;
      }
    }
  }
}

// Every length 1..40 (the AVX-512 / AVX2 builds' vector bodies and scalar tails, simd_map.h) with
// NaN, +-inf and large values at the first, middle and last positions, against the double
// reference.
TEST(Unary, FloatVectorBodiesAndTailsOfEveryLength) {
  std::mt19937 rng(16);
  std::uniform_real_distribution<float> dist(-6.0f, 6.0f);
  const float specials[] = {NAN, INFINITY, -INFINITY, 1e30f, -1e30f, -0.0f};
  for (UnaryKind kind : kFastFloatKinds) {
    for (int64_t n = 1; n <= 40; ++n) {
      std::vector<float> x(static_cast<size_t>(n));
      for (float& v : x) v = dist(rng);
      x[0] = specials[n % 6];
      x[n / 2] = specials[(n + 2) % 6];
      x[n - 1] = specials[(n + 4) % 6];
      const Tensor in = Make<float>({n}, x);
      Tensor out;
      ASSERT_TRUE(Unary(kind, in, &out).ok());
      for (int64_t i = 0; i < n; ++i) {
        const std::string where = std::string(UnaryKindName(kind)) + " n=" + std::to_string(n) +
                                  " x=" + std::to_string(x[i]);
        ExpectClose(DataType::kFloat,
                    RoundTo(DataType::kFloat, RefFloat(kind, DefaultUnaryAttrs(kind), x[i])),
                    out.data<float>()[i], where);
        if (::testing::Test::HasFailure()) return;
      }
    }
  }
}

// Sin, Cos and Tan take their fast forms in blocks of 1024 whose every |x| is within
// kFastTrigLimit and std:: for the other elements of a block that is not: 3000 values (two
// blocks and a tail of 952) in [-300, 300], with values just inside and beyond the limit, an
// infinity and NaN in the middle block only; in float and float16.
TEST(Unary, TrigBlocksMixFastAndExactForms) {
  std::mt19937 rng(1616);
  std::uniform_real_distribution<float> dist(-300.0f, 300.0f);
  std::vector<float> x(3000);
  for (float& v : x) v = dist(rng);
  const float specials[] = {kFastTrigLimit, -kFastTrigLimit, 12801.0f, -5e5f, 3e7f,
                            INFINITY, -INFINITY, NAN};
  for (size_t k = 0; k < std::size(specials); ++k) x[1100 + 97 * k] = specials[k];
  std::vector<Float16> x16;
  for (float v : x) x16.push_back(Float16(v));
  for (DataType type : {DataType::kFloat, DataType::kFloat16}) {
    const Tensor typed =
        type == DataType::kFloat ? Make<float>({3000}, x) : Make<Float16>({3000}, x16);
    for (UnaryKind kind : {UnaryKind::kSin, UnaryKind::kCos, UnaryKind::kTan}) {
      Tensor out;
      ASSERT_TRUE(Unary(kind, typed, &out).ok());
      for (int64_t i = 0; i < 3000; ++i) {
        const double xi = GetDouble(typed, i);
        const std::string where = std::string(UnaryKindName(kind)) + " " +
                                  std::string(DataTypeName(type)) + " i=" + std::to_string(i) +
                                  " x=" + std::to_string(xi);
        ExpectClose(type, RoundTo(type, RefFloat(kind, DefaultUnaryAttrs(kind), xi)),
                    GetDouble(out, i), where);
        if (::testing::Test::HasFailure()) return;
      }
    }
  }
}

// Every length 1..40 with the infinities, NaN and finite values at every position mod 5, for
// each pair of detect flags: the vector bodies and tails of the branch-free loop.
TEST(Unary, IsInfOfEveryLengthAndFlagPair) {
  const float pattern[] = {INFINITY, 1.5f, NAN, -INFINITY, -3e38f};
  for (int flags = 0; flags < 4; ++flags) {
    UnaryAttrs attrs = DefaultUnaryAttrs(UnaryKind::kIsInf);
    attrs.detect_negative = (flags & 1) != 0;
    attrs.detect_positive = (flags & 2) != 0;
    for (int64_t n = 1; n <= 40; ++n) {
      std::vector<float> x(static_cast<size_t>(n));
      for (int64_t i = 0; i < n; ++i) x[i] = pattern[(i + n) % 5];
      Tensor out;
      ASSERT_TRUE(Unary(UnaryKind::kIsInf, Make<float>({n}, x), &out, attrs).ok());
      for (int64_t i = 0; i < n; ++i) {
        const bool expected = (attrs.detect_positive && x[i] == INFINITY) ||
                              (attrs.detect_negative && x[i] == -INFINITY);
        ASSERT_EQ(out.data<bool>()[i], expected) << "flags " << flags << " n=" << n << " i=" << i;
      }
    }
  }
}

TEST(Unary, IsInfDetectFlags) {
  const Tensor x = Make<float>({6}, {-1.2f, NAN, INFINITY, 2.8f, -INFINITY, INFINITY});
  Tensor out;
  ASSERT_TRUE(Unary(UnaryKind::kIsInf, x, &out).ok());
  EXPECT_EQ(Values<bool>(out), (std::vector<bool>{false, false, true, false, true, true}));
  UnaryAttrs negative_only = DefaultUnaryAttrs(UnaryKind::kIsInf);
  negative_only.detect_positive = false;
  out = Tensor();
  ASSERT_TRUE(Unary(UnaryKind::kIsInf, x, &out, negative_only).ok());
  EXPECT_EQ(Values<bool>(out), (std::vector<bool>{false, false, false, false, true, false}));
  out = Tensor();
  ASSERT_TRUE(Unary(UnaryKind::kIsNaN, x, &out).ok());
  EXPECT_EQ(Values<bool>(out), (std::vector<bool>{false, true, false, false, false, false}));
}

TEST(Unary, ShrinkSpecExamples) {
  const Tensor x = Make<float>({5}, {-2, -1, 0, 1, 2});
  UnaryAttrs a = DefaultUnaryAttrs(UnaryKind::kShrink);
  a.lambd = 1.5f;
  Tensor out;
  ASSERT_TRUE(Unary(UnaryKind::kShrink, x, &out, a).ok());
  EXPECT_EQ(Values<float>(out), (std::vector<float>{-2, 0, 0, 0, 2}));
  a.bias = 1.5f;
  out = Tensor();
  ASSERT_TRUE(Unary(UnaryKind::kShrink, x, &out, a).ok());
  EXPECT_EQ(Values<float>(out), (std::vector<float>{-0.5f, 0, 0, 0, 0.5f}));
}

TEST(Unary, ActivationsPropagateNan) {
  for (UnaryKind kind : {UnaryKind::kRelu, UnaryKind::kLeakyRelu, UnaryKind::kErf,
                         UnaryKind::kSigmoid, UnaryKind::kHardSigmoid, UnaryKind::kHardSwish,
                         UnaryKind::kElu, UnaryKind::kCelu, UnaryKind::kSign,
                         UnaryKind::kThresholdedRelu, UnaryKind::kShrink, UnaryKind::kGelu}) {
    for (DataType type : {DataType::kFloat, DataType::kFloat16}) {
      Tensor x = Tensor::Allocate(type, {1}).value();
      testing::SetValue(&x, 0, NAN, 0);
      Tensor out;
      ASSERT_TRUE(Unary(kind, x, &out).ok());
      EXPECT_TRUE(std::isnan(GetDouble(out, 0))) << UnaryKindName(kind);
    }
  }
}

TEST(Unary, IntegerAbsNegWrapAtMinimum) {
  Tensor out;
  ASSERT_TRUE(Unary(UnaryKind::kAbs, Make<int8_t>({2}, {-128, -5}), &out).ok());
  EXPECT_EQ(Values<int8_t>(out), (std::vector<int8_t>{-128, 5}));
  out = Tensor();
  ASSERT_TRUE(Unary(UnaryKind::kNeg, Make<int64_t>({2}, {std::numeric_limits<int64_t>::min(), 7}),
                    &out).ok());
  EXPECT_EQ(Values<int64_t>(out), (std::vector<int64_t>{std::numeric_limits<int64_t>::min(), -7}));
}

TEST(Clip, SpecExamplesAndBounds) {
  const Tensor x = Make<float>({3}, {-2, 0, 2});
  const Tensor lo = Make<float>({}, {-1});
  const Tensor hi = Make<float>({}, {1});
  Tensor out;
  ASSERT_TRUE(Clip(x, &lo, &hi, &out).ok());
  EXPECT_EQ(Values<float>(out), (std::vector<float>{-1, 0, 1}));
  // Only a max.
  out = Tensor();
  ASSERT_TRUE(Clip(x, nullptr, &hi, &out).ok());
  EXPECT_EQ(Values<float>(out), (std::vector<float>{-2, 0, 1}));
  // No bounds: identity.
  out = Tensor();
  ASSERT_TRUE(Clip(x, nullptr, nullptr, &out).ok());
  EXPECT_EQ(Values<float>(out), (std::vector<float>{-2, 0, 2}));
  // min > max: everything becomes max.
  const Tensor big = Make<float>({}, {5});
  out = Tensor();
  ASSERT_TRUE(Clip(x, &big, &hi, &out).ok());
  EXPECT_EQ(Values<float>(out), (std::vector<float>{1, 1, 1}));
  // NaN passes through.
  out = Tensor();
  ASSERT_TRUE(Clip(Make<float>({1}, {NAN}), &lo, &hi, &out).ok());
  EXPECT_TRUE(std::isnan(out.data<float>()[0]));
}

TEST(Clip, IntegerAndHalfTypes) {
  const Tensor x = Make<int64_t>({4}, {-100, -1, 3, 100});
  const Tensor lo = Make<int64_t>({1}, {-2});
  const Tensor hi = Make<int64_t>({1}, {50});
  Tensor out;
  ASSERT_TRUE(Clip(x, &lo, &hi, &out).ok());
  EXPECT_EQ(Values<int64_t>(out), (std::vector<int64_t>{-2, -1, 3, 50}));

  std::mt19937_64 rng(3);
  for (DataType type : AllNumericTypes()) {
    const Tensor in = RandomTensor(rng, type, {50}, testing::IsSignedType(type) ? -50 : 0, 100);
    const Tensor l = RandomTensor(rng, type, {}, 0, 10);
    const Tensor h = RandomTensor(rng, type, {}, 20, 40);
    Tensor y;
    ASSERT_TRUE(Clip(in, &l, &h, &y).ok());
    for (int64_t i = 0; i < 50; ++i) {
      const double expected =
          std::min(std::max(GetDouble(in, i), GetDouble(l, 0)), GetDouble(h, 0));
      EXPECT_EQ(expected, GetDouble(y, i)) << DataTypeName(type);
    }
  }
}

TEST(Clip, RejectsBoundOfWrongType) {
  Tensor out;
  const Tensor lo = Make<double>({}, {0});
  const Status s = Clip(Make<float>({1}, {1}), &lo, nullptr, &out);
  EXPECT_EQ(s.message(), "Clip: min is double[], expected one float element");
}

}  // namespace
}  // namespace nxrt::cpu::math
