// ep/cpu/math/elementwise/binary_test.cpp: binary, variadic and Where ops against a naive reference
// on random broadcast shapes (fixed seeds), plus hand-checked ONNX examples and defined edge cases.
#include "ep/cpu/math/elementwise/binary.h"

#include <gtest/gtest.h>

#include <bit>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "ep/cpu/math/elementwise/where.h"
#include "ep/cpu/math/testing/test_util.h"

namespace nxrt::cpu::math {
namespace {

using testing::AllNumericTypes;
using testing::BroadcastableTo;
using testing::BroadcastSource;
using testing::ExpectClose;
using testing::GetDouble;
using testing::GetInt;
using testing::Int128;
using testing::IsFloatType;
using testing::Make;
using testing::RandomShape;
using testing::RandomTensor;
using testing::RoundTo;
using testing::Unravel;
using testing::Values;
using testing::WrapTo;

// ---- naive references ----

double RefFloat(BinaryKind kind, double a, double b, bool fmod) {
  switch (kind) {
    case BinaryKind::kAdd: return a + b;
    case BinaryKind::kSub: return a - b;
    case BinaryKind::kMul: return a * b;
    case BinaryKind::kDiv: return a / b;
    case BinaryKind::kMod: {
      if (fmod) return std::fmod(a, b);
      return a - std::floor(a / b) * b;
    }
    case BinaryKind::kPow: return std::pow(a, b);
    case BinaryKind::kMax: return std::isnan(a) || std::isnan(b) ? NAN : std::max(a, b);
    case BinaryKind::kMin: return std::isnan(a) || std::isnan(b) ? NAN : std::min(a, b);
    case BinaryKind::kEqual: return a == b;
    case BinaryKind::kLess: return a < b;
    case BinaryKind::kLessOrEqual: return a <= b;
    case BinaryKind::kGreater: return a > b;
    case BinaryKind::kGreaterOrEqual: return a >= b;
    case BinaryKind::kPRelu: return a < 0 ? a * b : a;
    default: ADD_FAILURE() << "no float reference"; return 0;
  }
}

Int128 RefInt(BinaryKind kind, Int128 a, Int128 b, const BinaryAttrs& attrs, int bits) {
  switch (kind) {
    case BinaryKind::kAdd: return a + b;
    case BinaryKind::kSub: return a - b;
    case BinaryKind::kMul: return a * b;
    case BinaryKind::kDiv: return b == 0 ? 0 : a / b;  // C++ '/' truncates toward zero
    case BinaryKind::kMod: {
      if (b == 0) return 0;
      Int128 r = a % b;
      if (!attrs.fmod && r != 0 && ((r < 0) != (b < 0))) r += b;
      return r;
    }
    case BinaryKind::kMax: return std::max(a, b);
    case BinaryKind::kMin: return std::min(a, b);
    case BinaryKind::kEqual: return a == b;
    case BinaryKind::kLess: return a < b;
    case BinaryKind::kLessOrEqual: return a <= b;
    case BinaryKind::kGreater: return a > b;
    case BinaryKind::kGreaterOrEqual: return a >= b;
    case BinaryKind::kAnd: return a && b;
    case BinaryKind::kOr: return a || b;
    case BinaryKind::kXor: return (a != 0) != (b != 0);
    case BinaryKind::kBitShift:
      if (b >= bits) return 0;
      return attrs.shift_left ? (a << static_cast<int>(b)) : (a >> static_cast<int>(b));
    case BinaryKind::kBitwiseAnd: return a & b;
    case BinaryKind::kBitwiseOr: return a | b;
    case BinaryKind::kBitwiseXor: return a ^ b;
    case BinaryKind::kPRelu: return a < 0 ? a * b : a;
    case BinaryKind::kPow: {
      Int128 r = 1;
      for (Int128 i = 0; i < b; ++i) r = static_cast<Int128>(static_cast<uint64_t>(r * a));
      return r;
    }
    default: ADD_FAILURE() << "no int reference"; return 0;
  }
}

bool IsPredicate(BinaryKind k) {
  return k == BinaryKind::kEqual || k == BinaryKind::kLess || k == BinaryKind::kLessOrEqual ||
         k == BinaryKind::kGreater || k == BinaryKind::kGreaterOrEqual ||
         k == BinaryKind::kAnd || k == BinaryKind::kOr || k == BinaryKind::kXor;
}

int Bits(DataType t) { return static_cast<int>(DataTypeSize(t) * 8); }

int64_t g_compared_elements = 0;

// Runs `kind` on random broadcast shapes and compares every element with the reference.
void CheckRandom(BinaryKind kind, DataType type, const BinaryAttrs& attrs, double lo, double hi,
                 std::mt19937_64& rng, DataType b_type = DataType::kUndefined) {
  if (b_type == DataType::kUndefined) b_type = type;
  // One shape in ten may hold a zero dim.
  const int64_t min_dim = std::uniform_int_distribution<int>(0, 9)(rng) == 0 ? 0 : 1;
  const Shape out_shape = RandomShape(rng, 0, 5, min_dim, 5);
  const Shape a_shape = BroadcastableTo(rng, out_shape);
  const Shape b_shape =
      kind == BinaryKind::kPRelu ? BroadcastableTo(rng, a_shape) : BroadcastableTo(rng, out_shape);
  Tensor a = RandomTensor(rng, type, a_shape, lo, hi);
  Tensor b = RandomTensor(rng, b_type, b_shape, kind == BinaryKind::kPow ? 0 : lo,
                          kind == BinaryKind::kPow ? 4 : hi);
  if (kind == BinaryKind::kBitShift) b = RandomTensor(rng, b_type, b_shape, 0, Bits(type) + 1);
  Tensor out;
  const Status s = Binary(kind, a, b, &out, attrs);
  ASSERT_TRUE(s.ok()) << s.ToString();
  const Shape expected_shape = BroadcastShapes("t", a_shape, b_shape).value();
  ASSERT_EQ(out.shape(), expected_shape);
  const std::string what = std::string(BinaryKindName(kind)) + " " +
                           std::string(DataTypeName(type)) + " " + ShapeToString(a_shape) +
                           " with " + ShapeToString(b_shape);
  g_compared_elements += out.element_count();
  for (int64_t i = 0; i < out.element_count(); ++i) {
    const auto index = Unravel(expected_shape, i);
    const int64_t ia = BroadcastSource(a_shape, index);
    const int64_t ib = BroadcastSource(b_shape, index);
    const std::string where = what + " at " + std::to_string(i);
    if (IsFloatType(type)) {
      const double expected = RefFloat(kind, GetDouble(a, ia), GetDouble(b, ib), attrs.fmod);
      if (IsPredicate(kind)) {
        ASSERT_EQ(expected != 0, out.data<bool>()[i]) << where;
      } else {
        ExpectClose(type, RoundTo(type, expected), GetDouble(out, i), where);
      }
    } else {
      const Int128 expected = RefInt(kind, GetInt(a, ia), GetInt(b, ib), attrs, Bits(type));
      const Int128 wrapped = IsPredicate(kind) ? expected : WrapTo(type, expected);
      ASSERT_TRUE(wrapped == GetInt(out, i))
          << where << ": expected " << static_cast<int64_t>(wrapped) << ", got "
          << static_cast<int64_t>(GetInt(out, i));
    }
  }
}

struct RandomCase {
  BinaryKind kind;
  std::vector<DataType> types;
  BinaryAttrs attrs;
  double lo;
  double hi;
};

TEST(Binary, RandomShapesAllTypesMatchReference) {
  const std::vector<DataType> numeric = AllNumericTypes();
  const std::vector<DataType> floats = {DataType::kFloat, DataType::kDouble, DataType::kFloat16,
                                        DataType::kBFloat16};
  const std::vector<DataType> ints = {DataType::kInt8,  DataType::kInt16,  DataType::kInt32,
                                      DataType::kInt64, DataType::kUint8,  DataType::kUint16,
                                      DataType::kUint32, DataType::kUint64};
  const std::vector<DataType> uints = {DataType::kUint8, DataType::kUint16, DataType::kUint32,
                                       DataType::kUint64};
  BinaryAttrs fmod;
  fmod.fmod = true;
  BinaryAttrs right;
  right.shift_left = false;
  const std::vector<RandomCase> cases = {
      {BinaryKind::kAdd, numeric, {}, -100, 100},
      {BinaryKind::kSub, numeric, {}, -100, 100},
      {BinaryKind::kMul, numeric, {}, -100, 100},
      {BinaryKind::kDiv, numeric, {}, -100, 100},
      {BinaryKind::kMod, numeric, {}, -20, 20},
      {BinaryKind::kMod, numeric, fmod, -20, 20},
      {BinaryKind::kMax, numeric, {}, -100, 100},
      {BinaryKind::kMin, numeric, {}, -100, 100},
      {BinaryKind::kEqual, numeric, {}, -3, 3},
      {BinaryKind::kLess, numeric, {}, -3, 3},
      {BinaryKind::kLessOrEqual, numeric, {}, -3, 3},
      {BinaryKind::kGreater, numeric, {}, -3, 3},
      {BinaryKind::kGreaterOrEqual, numeric, {}, -3, 3},
      {BinaryKind::kAnd, {DataType::kBool}, {}, 0, 1},
      {BinaryKind::kOr, {DataType::kBool}, {}, 0, 1},
      {BinaryKind::kXor, {DataType::kBool}, {}, 0, 1},
      {BinaryKind::kBitShift, uints, {}, 0, 255},
      {BinaryKind::kBitShift, uints, right, 0, 255},
      {BinaryKind::kBitwiseAnd, ints, {}, -128, 127},
      {BinaryKind::kBitwiseOr, ints, {}, -128, 127},
      {BinaryKind::kBitwiseXor, ints, {}, -128, 127},
      {BinaryKind::kPRelu, floats, {}, -10, 10},
      {BinaryKind::kPRelu, {DataType::kInt32, DataType::kInt64, DataType::kUint32}, {}, -10, 10},
      {BinaryKind::kPow, {DataType::kFloat, DataType::kDouble, DataType::kFloat16}, {}, 0.5, 3},
      {BinaryKind::kPow, {DataType::kInt32, DataType::kInt64}, {}, -9, 9},
  };
  std::mt19937_64 rng(20240611);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  for (const RandomCase& c : cases) {
    for (DataType type : c.types) {
      // Unsigned types get non-negative operands.
      const double lo = testing::IsSignedType(type) || type == DataType::kBool ? c.lo : 0;
      for (int iter = 0; iter < 40 && std::chrono::steady_clock::now() < deadline; ++iter) {
        CheckRandom(c.kind, type, c.attrs, lo, c.hi, rng);
        if (HasFatalFailure()) return;
      }
    }
  }
  EXPECT_GT(g_compared_elements, 50000);
}

TEST(Binary, PowMixedBaseAndExponentTypes) {
  std::mt19937_64 rng(77);
  for (DataType exp_type : AllNumericTypes()) {
    for (int iter = 0; iter < 4; ++iter) {
      CheckRandom(BinaryKind::kPow, DataType::kFloat, {}, 0.5, 3, rng, exp_type);
      CheckRandom(BinaryKind::kPow, DataType::kInt64, {}, -5, 5, rng,
                  IsFloatType(exp_type) ? DataType::kInt32 : exp_type);
    }
  }
  // ONNX Pow examples: [1,2,3] ^ [4,5,6] and [1,2,3] ^ int64 2.
  Tensor out;
  ASSERT_TRUE(Binary(BinaryKind::kPow, Make<float>({3}, {1, 2, 3}), Make<float>({3}, {4, 5, 6}),
                     &out).ok());
  EXPECT_EQ(Values<float>(out), (std::vector<float>{1, 32, 729}));
  out = Tensor();
  ASSERT_TRUE(Binary(BinaryKind::kPow, Make<float>({3}, {1, 2, 3}), Make<int64_t>({1}, {2}),
                     &out).ok());
  EXPECT_EQ(Values<float>(out), (std::vector<float>{1, 4, 9}));
  // Integer base, float exponent: truncated real power; negative integer exponents.
  out = Tensor();
  ASSERT_TRUE(Binary(BinaryKind::kPow, Make<int32_t>({3}, {2, 3, 4}),
                     Make<float>({3}, {0.5f, 2.0f, -1.0f}), &out).ok());
  EXPECT_EQ(Values<int32_t>(out), (std::vector<int32_t>{1, 9, 0}));
  out = Tensor();
  ASSERT_TRUE(Binary(BinaryKind::kPow, Make<int64_t>({4}, {1, -1, -1, 2}),
                     Make<int64_t>({4}, {-3, -3, -2, -1}), &out).ok());
  EXPECT_EQ(Values<int64_t>(out), (std::vector<int64_t>{1, -1, 1, 0}));
}

TEST(Binary, IntegerDivTruncatesTowardZero) {
  Tensor out;
  ASSERT_TRUE(Binary(BinaryKind::kDiv, Make<int32_t>({4}, {8, -8, 7, -7}),
                     Make<int32_t>({4}, {-3, 3, -2, 2}), &out).ok());
  EXPECT_EQ(Values<int32_t>(out), (std::vector<int32_t>{-2, -2, -3, -3}));
}

TEST(Binary, IntegerDivEdgeCasesDoNotTrap) {
  constexpr int32_t kMin = std::numeric_limits<int32_t>::min();
  Tensor out;
  ASSERT_TRUE(Binary(BinaryKind::kDiv, Make<int32_t>({3}, {kMin, 5, -5}),
                     Make<int32_t>({3}, {-1, 0, 0}), &out).ok());
  EXPECT_EQ(Values<int32_t>(out), (std::vector<int32_t>{kMin, 0, 0}));
  out = Tensor();
  ASSERT_TRUE(Binary(BinaryKind::kMod, Make<int32_t>({2}, {kMin, 5}),
                     Make<int32_t>({2}, {-1, 0}), &out).ok());
  EXPECT_EQ(Values<int32_t>(out), (std::vector<int32_t>{0, 0}));
}

TEST(Binary, ModSignRules) {
  // ONNX Mod examples: mixed signs with fmod=0 take the divisor's sign.
  Tensor out;
  ASSERT_TRUE(Binary(BinaryKind::kMod, Make<int64_t>({6}, {-4, 7, 5, 4, -7, 8}),
                     Make<int64_t>({6}, {2, -3, 8, -2, 3, 5}), &out).ok());
  EXPECT_EQ(Values<int64_t>(out), (std::vector<int64_t>{0, -2, 5, 0, 2, 3}));
  // fmod=1 on floats: C fmod, the dividend's sign.
  BinaryAttrs fmod;
  fmod.fmod = true;
  out = Tensor();
  ASSERT_TRUE(Binary(BinaryKind::kMod, Make<float>({6}, {-4.3f, 7.2f, 5.0f, 4.3f, -7.2f, 8.0f}),
                     Make<float>({6}, {2.1f, -3.4f, 8.0f, -2.1f, 3.4f, 5.0f}), &out, fmod)
                  .ok());
  const std::vector<float> expected = {std::fmod(-4.3f, 2.1f), std::fmod(7.2f, -3.4f), 5.0f,
                                       std::fmod(4.3f, -2.1f), std::fmod(-7.2f, 3.4f), 3.0f};
  EXPECT_EQ(Values<float>(out), expected);
  EXPECT_LT(Values<float>(out)[0], 0);
  // fmod=1 on ints: [-4,7,5,4,-7,8] mod [2,-3,8,-2,3,5] = [0,1,5,0,-1,3].
  out = Tensor();
  ASSERT_TRUE(Binary(BinaryKind::kMod, Make<int32_t>({6}, {-4, 7, 5, 4, -7, 8}),
                     Make<int32_t>({6}, {2, -3, 8, -2, 3, 5}), &out, fmod).ok());
  EXPECT_EQ(Values<int32_t>(out), (std::vector<int32_t>{0, 1, 5, 0, -1, 3}));
}

TEST(Binary, BitShiftSpecExamples) {
  Tensor out;
  ASSERT_TRUE(Binary(BinaryKind::kBitShift, Make<uint8_t>({3}, {16, 4, 1}),
                     Make<uint8_t>({3}, {1, 2, 3}), &out).ok());
  EXPECT_EQ(Values<uint8_t>(out), (std::vector<uint8_t>{32, 16, 8}));
  BinaryAttrs right;
  right.shift_left = false;
  out = Tensor();
  ASSERT_TRUE(Binary(BinaryKind::kBitShift, Make<uint64_t>({3}, {16, 4, 1}),
                     Make<uint64_t>({3}, {1, 2, 3}), &out, right).ok());
  EXPECT_EQ(Values<uint64_t>(out), (std::vector<uint64_t>{8, 1, 0}));
}

TEST(Binary, Float16ResultsRoundToNearestEven) {
  // 1 + 2^-11 is halfway between 1 and the next half (1 + 2^-10): ties go to the even 1.
  // 1 + 3*2^-11 is halfway between 1 + 2^-10 and 1 + 2^-9: ties go to 1 + 2^-9.
  Tensor a = Make<Float16>({2}, {Float16(1.0f), Float16(1.0f)});
  Tensor b = Make<Float16>({2}, {Float16(std::ldexp(1.0f, -11)), Float16(3 * std::ldexp(1.0f, -11))});
  Tensor out;
  ASSERT_TRUE(Binary(BinaryKind::kAdd, a, b, &out).ok());
  EXPECT_EQ(static_cast<float>(out.data<Float16>()[0]), 1.0f);
  EXPECT_EQ(static_cast<float>(out.data<Float16>()[1]), 1.0f + std::ldexp(1.0f, -9));
}

TEST(Binary, MaxMinPropagateNan) {
  Tensor out;
  ASSERT_TRUE(Binary(BinaryKind::kMax, Make<float>({3}, {NAN, 1, 2}),
                     Make<float>({3}, {1, NAN, 3}), &out).ok());
  EXPECT_TRUE(std::isnan(out.data<float>()[0]));
  EXPECT_TRUE(std::isnan(out.data<float>()[1]));
  EXPECT_EQ(out.data<float>()[2], 3);
}

// The float PRelu loop (FloatSelect, both arms computed) against `x < 0 ? x * slope : x` bit for
// bit: every length 1..40 (vector bodies and tails), per-element and broadcast slopes, with NaN,
// the infinities and both zeros among x and the slopes (a positive x keeps its value even when its
// slope is inf or NaN).
TEST(Binary, FloatPReluOfEveryLengthWithSpecialValues) {
  std::mt19937 rng(19);
  std::uniform_real_distribution<float> dist(-5.0f, 5.0f);
  const float specials[] = {NAN, INFINITY, -INFINITY, 0.0f, -0.0f, 2.5f, -2.5f};
  for (int64_t n = 1; n <= 40; ++n) {
    for (bool broadcast : {false, true}) {
      std::vector<float> x(static_cast<size_t>(n));
      std::vector<float> slope(broadcast ? 1 : static_cast<size_t>(n));
      for (float& v : x) v = dist(rng);
      for (float& v : slope) v = dist(rng);
      for (int64_t i = 0; i < n; i += 3) x[i] = specials[(i / 3 + n) % 7];
      for (size_t i = 0; i < slope.size(); i += 2) slope[i] = specials[(i / 2 + n + 3) % 7];
      Tensor out;
      ASSERT_TRUE(Binary(BinaryKind::kPRelu, Make<float>({n}, x),
                         Make<float>({static_cast<int64_t>(slope.size())}, slope), &out)
                      .ok());
      for (int64_t i = 0; i < n; ++i) {
        const float s = slope[broadcast ? 0 : i];
        const float want = x[i] < 0 ? x[i] * s : x[i];
        const float got = out.data<float>()[i];
        ASSERT_TRUE(std::bit_cast<uint32_t>(want) == std::bit_cast<uint32_t>(got) ||
                    (std::isnan(want) && std::isnan(got)))
            << "n=" << n << " x=" << x[i] << " slope=" << s << ": want " << want << ", got "
            << got;
      }
    }
  }
}

TEST(Binary, EqualOnStrings) {
  Tensor out;
  ASSERT_TRUE(Binary(BinaryKind::kEqual, Make<std::string>({3}, {"a", "bc", ""}),
                     Make<std::string>({1}, {"bc"}), &out).ok());
  EXPECT_EQ(Values<bool>(out), (std::vector<bool>{false, true, false}));
}

TEST(Binary, Errors) {
  Tensor out;
  Status s = Binary(BinaryKind::kAdd, Make<float>({2, 3}, std::vector<float>(6)),
                    Make<float>({4}, std::vector<float>(4)), &out);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(), "Add: cannot broadcast [2,3] with [4] (dim -1: 3 vs 4)");

  s = Binary(BinaryKind::kAdd, Make<float>({1}, {1}), Make<int32_t>({1}, {1}), &out);
  EXPECT_EQ(s.message(), "Add: input types differ: float vs int32");

  s = Binary(BinaryKind::kAnd, Make<float>({1}, {1}), Make<float>({1}, {1}), &out);
  EXPECT_EQ(s.code(), StatusCode::kUnsupported);
  EXPECT_EQ(s.message(), "And does not support element type float (supported: bool)");

  s = Binary(BinaryKind::kPRelu, Make<float>({3}, {1, 2, 3}),
             Make<float>({2, 3}, std::vector<float>(6)), &out);
  EXPECT_EQ(s.message(), "PRelu: slope shape [2,3] does not broadcast to input shape [3]");

  Tensor wrong = Tensor::Allocate(DataType::kFloat, {5}).value();
  s = Binary(BinaryKind::kAdd, Make<float>({3}, {1, 2, 3}), Make<float>({1}, {1}), &wrong);
  EXPECT_EQ(s.message(), "Add: output is float[5], expected contiguous float[3]");
}

TEST(Binary, PreparedPlanRunsOnBoundBuffers) {
  auto plan = PrepareBinary(BinaryKind::kSub, DataType::kFloat, {2, 2}, DataType::kFloat, {2});
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan->out_shape, (Shape{2, 2}));
  const float a[] = {10, 20, 30, 40};
  const float b[] = {1, 2};
  float out[4];
  RunBinary(*plan, a, b, out);
  EXPECT_EQ(std::vector<float>(out, out + 4), (std::vector<float>{9, 18, 29, 38}));
}

TEST(Variadic, SpecExamples) {
  const std::vector<Tensor> inputs = {Make<float>({3}, {3, 2, 1}), Make<float>({3}, {1, 4, 4}),
                                      Make<float>({3}, {2, 5, 3})};
  Tensor out;
  ASSERT_TRUE(Variadic(VariadicKind::kMax, inputs, &out).ok());
  EXPECT_EQ(Values<float>(out), (std::vector<float>{3, 5, 4}));
  out = Tensor();
  ASSERT_TRUE(Variadic(VariadicKind::kMin, inputs, &out).ok());
  EXPECT_EQ(Values<float>(out), (std::vector<float>{1, 2, 1}));
  out = Tensor();
  ASSERT_TRUE(Variadic(VariadicKind::kSum, inputs, &out).ok());
  EXPECT_EQ(Values<float>(out), (std::vector<float>{6, 11, 8}));
  out = Tensor();
  ASSERT_TRUE(Variadic(VariadicKind::kMean, inputs, &out).ok());
  EXPECT_NEAR(out.data<float>()[1], 11.0f / 3, 1e-6);
  out = Tensor();
  ASSERT_TRUE(Variadic(VariadicKind::kSum, std::span(inputs.data(), 1), &out).ok());
  EXPECT_EQ(Values<float>(out), (std::vector<float>{3, 2, 1}));
}

TEST(Variadic, RandomBroadcastMatchesReference) {
  std::mt19937_64 rng(99);
  for (int iter = 0; iter < 100; ++iter) {
    const Shape out_shape = RandomShape(rng, 0, 4, 0, 4);
    const int n = std::uniform_int_distribution<int>(1, 4)(rng);
    std::vector<Tensor> inputs;
    std::vector<Shape> shapes;
    for (int k = 0; k < n; ++k) {
      shapes.push_back(BroadcastableTo(rng, out_shape));
      inputs.push_back(RandomTensor(rng, DataType::kFloat, shapes.back(), -5, 5));
    }
    const Shape expected_shape = BroadcastShapes("t", shapes).value();
    for (VariadicKind kind :
         {VariadicKind::kMax, VariadicKind::kMin, VariadicKind::kSum, VariadicKind::kMean}) {
      Tensor out;
      ASSERT_TRUE(Variadic(kind, inputs, &out).ok());
      ASSERT_EQ(out.shape(), expected_shape);
      for (int64_t i = 0; i < out.element_count(); ++i) {
        const auto index = Unravel(expected_shape, i);
        double acc = kind == VariadicKind::kMax   ? -INFINITY
                     : kind == VariadicKind::kMin ? INFINITY
                                                  : 0;
        for (int k = 0; k < n; ++k) {
          const double v = GetDouble(inputs[k], BroadcastSource(shapes[k], index));
          acc = kind == VariadicKind::kMax   ? std::max(acc, v)
                : kind == VariadicKind::kMin ? std::min(acc, v)
                                             : acc + v;
        }
        if (kind == VariadicKind::kMean) acc /= n;
        ExpectClose(DataType::kFloat, acc, GetDouble(out, i), "variadic");
      }
    }
  }
}

TEST(Where, SpecExampleAndBroadcast) {
  Tensor out;
  ASSERT_TRUE(Where(Make<bool>({2, 2}, {true, false, true, true}), Make<float>({2, 2}, {1, 2, 3, 4}),
                    Make<float>({2, 2}, {9, 8, 7, 6}), &out).ok());
  EXPECT_EQ(Values<float>(out), (std::vector<float>{1, 8, 3, 4}));
  out = Tensor();
  ASSERT_TRUE(Where(Make<bool>({2, 1}, {true, false}), Make<int64_t>({3}, {1, 2, 3}),
                    Make<int64_t>({}, {0}), &out).ok());
  EXPECT_EQ(out.shape(), (Shape{2, 3}));
  EXPECT_EQ(Values<int64_t>(out), (std::vector<int64_t>{1, 2, 3, 0, 0, 0}));
  out = Tensor();
  ASSERT_TRUE(Where(Make<bool>({2}, {false, true}), Make<std::string>({2}, {"x", "y"}),
                    Make<std::string>({1}, {"z"}), &out).ok());
  EXPECT_EQ(Values<std::string>(out), (std::vector<std::string>{"z", "y"}));
}

// The masked pick (where.cpp) for each element size, every length 1..40 (vector bodies and
// tails), contiguous and with a scalar Y: the chosen side's bits exactly, NaN payloads included.
TEST(Where, EveryElementSizeAndLengthPicksTheBits) {
  std::mt19937_64 rng(41);
  for (DataType type :
       {DataType::kUint8, DataType::kFloat16, DataType::kFloat, DataType::kDouble}) {
    const size_t size = DataTypeSize(type);
    for (int64_t n = 1; n <= 40; ++n) {
      for (bool scalar_y : {false, true}) {
        const Shape y_shape = scalar_y ? Shape{} : Shape{n};
        Tensor c = RandomTensor(rng, DataType::kBool, {n}, 0, 1);
        Tensor x = Tensor::Allocate(type, {n}).value();
        Tensor y = Tensor::Allocate(type, y_shape).value();
        for (Tensor* t : {&x, &y}) {
          auto* bytes = static_cast<uint8_t*>(t->mutable_raw_data());
          for (size_t i = 0; i < static_cast<size_t>(t->element_count()) * size; ++i) {
            bytes[i] = static_cast<uint8_t>(rng());
          }
        }
        Tensor out;
        ASSERT_TRUE(Where(c, x, y, &out).ok());
        const auto* xb = static_cast<const uint8_t*>(x.raw_data());
        const auto* yb = static_cast<const uint8_t*>(y.raw_data());
        const auto* ob = static_cast<const uint8_t*>(out.raw_data());
        for (int64_t i = 0; i < n; ++i) {
          const uint8_t* want = c.data<bool>()[i] ? xb + i * size : yb + (scalar_y ? 0 : i * size);
          ASSERT_EQ(std::memcmp(ob + i * size, want, size), 0)
              << DataTypeName(type) << " n=" << n << " i=" << i << " scalar_y=" << scalar_y;
        }
      }
    }
  }
}

TEST(Where, RandomThreeWayBroadcast) {
  std::mt19937_64 rng(5);
  for (int iter = 0; iter < 200; ++iter) {
    const Shape out_shape = RandomShape(rng, 0, 4, 0, 4);
    const Shape shapes[] = {BroadcastableTo(rng, out_shape), BroadcastableTo(rng, out_shape),
                            BroadcastableTo(rng, out_shape)};
    const Tensor c = RandomTensor(rng, DataType::kBool, shapes[0], 0, 1);
    const Tensor x = RandomTensor(rng, DataType::kInt16, shapes[1], -100, 100);
    const Tensor y = RandomTensor(rng, DataType::kInt16, shapes[2], -100, 100);
    Tensor out;
    ASSERT_TRUE(Where(c, x, y, &out).ok());
    const Shape expected_shape = BroadcastShapes("t", shapes).value();
    ASSERT_EQ(out.shape(), expected_shape);
    for (int64_t i = 0; i < out.element_count(); ++i) {
      const auto index = Unravel(expected_shape, i);
      const Int128 expected = c.data<bool>()[BroadcastSource(shapes[0], index)]
                                  ? GetInt(x, BroadcastSource(shapes[1], index))
                                  : GetInt(y, BroadcastSource(shapes[2], index));
      ASSERT_TRUE(expected == GetInt(out, i));
    }
  }
}

}  // namespace
}  // namespace nxrt::cpu::math
