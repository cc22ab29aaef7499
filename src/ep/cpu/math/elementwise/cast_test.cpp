// ep/cpu/math/elementwise/cast_test.cpp: Cast between every pair of numeric/bool types against a
// reference, float16/bfloat16 rounding, out-of-range values, and string formatting/parsing.
// Expected strings and out-of-range results were computed with NumPy 1.24 (/usr/bin/python3):
// str(np.float32(x)), np.array(..., dtype=np.float32).astype(np.uint8), and so on.
#include "ep/cpu/math/elementwise/cast.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "ep/cpu/math/testing/test_util.h"

namespace nxrt::cpu::math {
namespace {

using testing::AllNumericTypes;
using testing::GetDouble;
using testing::IsFloatType;
using testing::IsSignedType;
using testing::Make;
using testing::RandomTensor;
using testing::RoundTo;
using testing::Values;

TEST(Cast, AllNumericPairsOnInRangeValues) {
  std::mt19937_64 rng(11);
  std::vector<DataType> types = AllNumericTypes();
  types.push_back(DataType::kBool);
  for (DataType from : types) {
    for (DataType to : types) {
      // Values every type of the pair represents: [-100, 100] or [0, 100] with an unsigned side.
      const bool both_signed = (IsSignedType(from) || from == DataType::kBool) &&
                               (IsSignedType(to) || to == DataType::kBool);
      const double lo = from == DataType::kBool ? 0 : (both_signed ? -100 : 0);
      const double hi = from == DataType::kBool ? 1 : 100;
      const Tensor in = RandomTensor(rng, from, {3, 17}, lo, hi);
      Tensor out;
      ASSERT_TRUE(Cast(in, to, &out).ok()) << DataTypeName(from) << " → " << DataTypeName(to);
      ASSERT_EQ(out.dtype(), to);
      for (int64_t i = 0; i < in.element_count(); ++i) {
        const double v = GetDouble(in, i);
        double expected;
        if (to == DataType::kBool) {
          expected = v != 0;
        } else if (IsFloatType(to)) {
          expected = RoundTo(to, v);
        } else {
          expected = std::trunc(v);
        }
        ASSERT_EQ(expected, GetDouble(out, i))
            << DataTypeName(from) << " " << v << " → " << DataTypeName(to);
      }
    }
  }
}

TEST(Cast, FloatToIntToBoolIsNotFloatToBool) {
  const Tensor x = Make<float>({5}, {-0.2f, -0.1f, 0.0f, 0.1f, 0.2f});
  Tensor as_int;
  ASSERT_TRUE(Cast(x, DataType::kInt32, &as_int).ok());
  Tensor as_bool;
  ASSERT_TRUE(Cast(as_int, DataType::kBool, &as_bool).ok());
  EXPECT_EQ(Values<bool>(as_bool), (std::vector<bool>{false, false, false, false, false}));
  Tensor direct;
  ASSERT_TRUE(Cast(x, DataType::kBool, &direct).ok());
  EXPECT_EQ(Values<bool>(direct), (std::vector<bool>{true, true, false, true, true}));
}

TEST(Cast, NanAndOutOfRangeMatchNumpy) {
  const Tensor f = Make<float>({5}, {NAN, 3e9f, -1.0f, 300.0f, -3e9f});
  Tensor out;
  ASSERT_TRUE(Cast(f, DataType::kInt32, &out).ok());
  EXPECT_EQ(Values<int32_t>(out),
            (std::vector<int32_t>{INT32_MIN, INT32_MIN, -1, 300, INT32_MIN}));
  out = Tensor();
  ASSERT_TRUE(Cast(Make<float>({4}, {NAN, 300.0f, -1.0f, 65543.0f}), DataType::kUint8, &out).ok());
  EXPECT_EQ(Values<uint8_t>(out), (std::vector<uint8_t>{0, 44, 255, 7}));
  out = Tensor();
  ASSERT_TRUE(Cast(Make<float>({3}, {NAN, -1.0f, 5e9f}), DataType::kUint32, &out).ok());
  EXPECT_EQ(Values<uint32_t>(out), (std::vector<uint32_t>{0, 4294967295u, 705032704u}));
  out = Tensor();
  ASSERT_TRUE(Cast(Make<double>({3}, {NAN, -1.0, 1e19}), DataType::kUint64, &out).ok());
  EXPECT_EQ(Values<uint64_t>(out), (std::vector<uint64_t>{9223372036854775808ull,
                                                          18446744073709551615ull,
                                                          10000000000000000000ull}));
  out = Tensor();
  ASSERT_TRUE(Cast(Make<float>({2}, {NAN, 1e19f}), DataType::kInt64, &out).ok());
  EXPECT_EQ(Values<int64_t>(out), (std::vector<int64_t>{INT64_MIN, INT64_MIN}));
}

TEST(Cast, Float16RoundsToNearestEvenOnce) {
  const float ulp = std::ldexp(1.0f, -10);
  const Tensor x = Make<float>({4}, {1 + ulp / 2, 1 + 3 * ulp / 2, 65519.0f, 65520.0f});
  Tensor out;
  ASSERT_TRUE(Cast(x, DataType::kFloat16, &out).ok());
  EXPECT_EQ(GetDouble(out, 0), 1.0);
  EXPECT_EQ(GetDouble(out, 1), 1 + 2 * ulp);
  EXPECT_EQ(GetDouble(out, 2), 65504.0);
  EXPECT_TRUE(std::isinf(GetDouble(out, 3)));
  // double → float16 rounds directly: 1 + 2^-11 + 2^-40 is above the tie (NumPy: 1.001), while
  // rounding through float would drop the 2^-40 and tie down to 1.0.
  out = Tensor();
  ASSERT_TRUE(Cast(Make<double>({1}, {1 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40)}),
                   DataType::kFloat16, &out).ok());
  EXPECT_EQ(GetDouble(out, 0), 1 + ulp);
  // bfloat16 keeps 8 bits: 1 + 2^-8 ties to 1, 1 + 3 * 2^-8 ties to 1 + 2^-6.
  out = Tensor();
  ASSERT_TRUE(Cast(Make<float>({2}, {1 + std::ldexp(1.0f, -8), 1 + 3 * std::ldexp(1.0f, -8)}),
                   DataType::kBFloat16, &out).ok());
  EXPECT_EQ(GetDouble(out, 0), 1.0);
  EXPECT_EQ(GetDouble(out, 1), 1 + std::ldexp(1.0, -6));
}

TEST(Cast, FloatToStringLikeNumpy) {
  const Tensor f = Make<float>({12}, {0.1f, 100.0f, 1e-5f, 1.5e16f, 123456789.0f, -0.0f, 0.0001f,
                                      1.0f / 3, 0.9767611f, 0.039187793f, NAN, -INFINITY});
  Tensor out;
  ASSERT_TRUE(Cast(f, DataType::kString, &out).ok());
  EXPECT_EQ(Values<std::string>(out),
            (std::vector<std::string>{"0.1", "100.0", "1e-05", "1.5e+16", "123456790.0", "-0.0",
                                      "1e-04", "0.33333334", "0.9767611", "0.039187793", "NaN",
                                      "-INF"}));
  EXPECT_EQ(FormatFloating(1.0 / 3, DataType::kDouble), "0.3333333333333333");
  EXPECT_EQ(FormatFloating(0.0001, DataType::kDouble), "0.0001");
  EXPECT_EQ(FormatFloating(9999999999999998.0, DataType::kDouble), "9999999999999998.0");
  EXPECT_EQ(FormatFloating(1e15, DataType::kFloat), "1000000000000000.0");
  EXPECT_EQ(FormatFloating(2.5e-45, DataType::kDouble), "2.5e-45");
  EXPECT_EQ(FormatFloating(2.5e-45, DataType::kFloat), "3e-45");
  EXPECT_EQ(FormatFloating(65504.0, DataType::kFloat16), "65500.0");
  EXPECT_EQ(FormatFloating(1.0 / 3, DataType::kFloat16), "0.3333");
  EXPECT_EQ(FormatFloating(0.00012345, DataType::kFloat16), "0.0001235");
  EXPECT_EQ(FormatFloating(INFINITY, DataType::kFloat), "INF");
}

TEST(Cast, IntegerAndBoolToString) {
  Tensor out;
  ASSERT_TRUE(Cast(Make<int64_t>({3}, {-7, 0, INT64_MAX}), DataType::kString, &out).ok());
  EXPECT_EQ(Values<std::string>(out),
            (std::vector<std::string>{"-7", "0", "9223372036854775807"}));
  out = Tensor();
  ASSERT_TRUE(Cast(Make<bool>({2}, {true, false}), DataType::kString, &out).ok());
  EXPECT_EQ(Values<std::string>(out), (std::vector<std::string>{"True", "False"}));
}

TEST(Cast, StringToFloat) {
  // ONNX cast_STRING_to_FLOAT test data plus scientific forms.
  const Tensor s = Make<std::string>(
      {9}, {"0.47892547", "NaN", "INF", "+INF", "-INF", "1e-5", "1E8", " 3.5 ", "infinity"});
  Tensor out;
  ASSERT_TRUE(Cast(s, DataType::kFloat, &out).ok());
  const auto v = Values<float>(out);
  EXPECT_EQ(v[0], 0.47892547f);
  EXPECT_TRUE(std::isnan(v[1]));
  EXPECT_EQ(v[2], INFINITY);
  EXPECT_EQ(v[3], INFINITY);
  EXPECT_EQ(v[4], -INFINITY);
  EXPECT_EQ(v[5], 1e-5f);
  EXPECT_EQ(v[6], 1e8f);
  EXPECT_EQ(v[7], 3.5f);
  EXPECT_EQ(v[8], INFINITY);
}

TEST(Cast, StringToIntegerBoolAndHalf) {
  Tensor out;
  ASSERT_TRUE(Cast(Make<std::string>({5}, {"100.5", "-42", "+7", "1e3", "9007199254740993"}),
                   DataType::kInt64, &out).ok());
  EXPECT_EQ(Values<int64_t>(out), (std::vector<int64_t>{100, -42, 7, 1000, 9007199254740993}));
  out = Tensor();
  ASSERT_TRUE(Cast(Make<std::string>({4}, {"True", "false", "0", "2.5"}), DataType::kBool, &out)
                  .ok());
  EXPECT_EQ(Values<bool>(out), (std::vector<bool>{true, false, false, true}));
  out = Tensor();
  ASSERT_TRUE(Cast(Make<std::string>({1}, {"0.1"}), DataType::kFloat16, &out).ok());
  EXPECT_EQ(out.data<Float16>()[0].bits, Float16(0.1f).bits);
}

TEST(Cast, UnparseableStringIsAnError) {
  Tensor out;
  const Status s = Cast(Make<std::string>({2}, {"1", "Hello World!"}), DataType::kFloat, &out);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(), "Cast: cannot read string 'Hello World!' as float");
  out = Tensor();
  EXPECT_FALSE(Cast(Make<std::string>({1}, {"+-1"}), DataType::kFloat, &out).ok());
  out = Tensor();
  EXPECT_FALSE(Cast(Make<std::string>({1}, {""}), DataType::kInt32, &out).ok());
}

TEST(Cast, StringRoundTripOfRandomFloats) {
  std::mt19937_64 rng(8);
  for (DataType type : {DataType::kFloat, DataType::kDouble, DataType::kFloat16,
                        DataType::kBFloat16}) {
    const Tensor x = RandomTensor(rng, type, {200}, -1e6, 1e6);
    Tensor text;
    ASSERT_TRUE(Cast(x, DataType::kString, &text).ok());
    Tensor back;
    ASSERT_TRUE(Cast(text, type, &back).ok());
    for (int64_t i = 0; i < 200; ++i) {
      ASSERT_EQ(GetDouble(x, i), GetDouble(back, i)) << text.data<std::string>()[i];
    }
  }
}

TEST(Cast, UnsupportedType) {
  const auto r = PrepareCast(DataType::kComplex64, DataType::kFloat);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kUnsupported);
}

}  // namespace
}  // namespace nxrt::cpu::math
