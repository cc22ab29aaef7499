// ep/cpu/math/elementwise/cast.cpp: element conversions of Cast, number formatting and string
// parsing.
//
// Layer: nxrt_cpu_math (framework-free reference math of the CPU EP).
// Numeric ↔ numeric goes through ConvertElement (element_types.h), instantiated per type pair;
// float16/bfloat16 ↔ float through the vectorised loops of half_convert.h (the same bits).
// Formatting finds the shortest round-trip digits with std::to_chars in scientific form and lays
// them out with NumPy's positional/scientific rule; parsing uses std::from_chars.
#include "ep/cpu/math/elementwise/cast.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <string_view>
#include <type_traits>

#include "ep/cpu/math/element_types.h"
#include "ep/cpu/math/half_convert.h"
#include "ep/cpu/math/shape_util.h"

namespace nxrt::cpu::math {
namespace {

using CastTypes = Concat<NumericAndBoolTypes, Float8Types, StringTypes>;
// What int4/uint4 convert to and from (not strings; Cast-21 lists no int4 <-> string).
using Int4PeerTypes = Concat<NumericAndBoolTypes, Float8Types>;

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

// Shortest scientific digits of `value` that read back as the same value of T.
template <typename T>
std::string ShortestScientific(double value) {
  char buf[64];
  if constexpr (kIsStorageFloat<T>) {
    const T target = ConvertElement<T>(value);
    for (int precision = 0; precision < 9; ++precision) {
      const auto r = std::to_chars(buf, buf + sizeof buf, static_cast<float>(value),
                                   std::chars_format::scientific, precision);
      double parsed = 0;
      std::from_chars(buf, r.ptr, parsed);
      if (ConvertElement<T>(parsed).bits == target.bits) return std::string(buf, r.ptr);
    }
    const auto r = std::to_chars(buf, buf + sizeof buf, static_cast<float>(value),
                                 std::chars_format::scientific);
    return std::string(buf, r.ptr);
  } else {
    const auto r = std::to_chars(buf, buf + sizeof buf, static_cast<T>(value),
                                 std::chars_format::scientific);
    return std::string(buf, r.ptr);
  }
}

// NumPy's layout of the shortest digits `scientific` ("d.ddde±x"): scientific notation when
// `use_scientific` (|x| < 1e-4 or |x| >= 1e16, decided on the value), positional otherwise.
std::string LayOut(const std::string& scientific, bool use_scientific) {
  std::string_view s = scientific;
  std::string sign;
  if (s.front() == '-') {
    sign = "-";
    s.remove_prefix(1);
  }
  const size_t e = s.find('e');
  std::string digits;
  for (char c : s.substr(0, e)) {
    if (c != '.') digits += c;
  }
  int exponent = 0;
  std::from_chars(s.data() + e + 1 + (s[e + 1] == '+' ? 1 : 0), s.data() + s.size(), exponent);
  while (digits.size() > 1 && digits.back() == '0') digits.pop_back();
  if (digits == "0") return sign + "0.0";
  if (use_scientific) {
    std::string out = sign + digits.substr(0, 1);
    if (digits.size() > 1) out += "." + digits.substr(1);
    const std::string exp_digits = std::to_string(std::abs(exponent));
    out += exponent < 0 ? "e-" : "e+";
    out += (exp_digits.size() < 2 ? "0" : "") + exp_digits;
    return out;
  }
  if (exponent < 0) {
    return sign + "0." + std::string(static_cast<size_t>(-exponent - 1), '0') + digits;
  }
  const size_t int_digits = static_cast<size_t>(exponent) + 1;
  if (digits.size() <= int_digits) {
    return sign + digits + std::string(int_digits - digits.size(), '0') + ".0";
  }
  return sign + digits.substr(0, int_digits) + "." + digits.substr(int_digits);
}

template <typename T>
std::string ToText(const T& value) {
  if constexpr (std::is_same_v<T, bool>) {
    return value ? "True" : "False";
  } else if constexpr (std::is_integral_v<T>) {
    return std::to_string(value);
  } else {
    const double v = static_cast<double>(Load(value));
    if (std::isnan(v)) return "NaN";
    if (std::isinf(v)) return v < 0 ? "-INF" : "INF";
    const double magnitude = std::fabs(v);
    return LayOut(ShortestScientific<T>(v), magnitude != 0 && (magnitude < 1e-4 || magnitude >= 1e16));
  }
}

// Reads `text` as a double with the Cast grammar; false when it is not a number. Magnitudes
// beyond double's range read as infinity or zero, as strtod would give them.
bool ParseReal(std::string_view text, double* value) {
  if (!text.empty() && text.front() == '+') {
    text.remove_prefix(1);
    if (!text.empty() && text.front() == '-') return false;
  }
  if (text.empty()) return false;
  const char* end = text.data() + text.size();
  const auto r = std::from_chars(text.data(), end, *value);
  if (r.ptr != end) return false;
  if (r.ec == std::errc::result_out_of_range) {
    *value = std::strtod(std::string(text).c_str(), nullptr);
    return true;
  }
  return r.ec == std::errc();
}

template <typename T>
Status FromText(const std::string& original, T* out) {
  std::string_view text = original;
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) {
    text.remove_prefix(1);
  }
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) {
    text.remove_suffix(1);
  }
  if constexpr (std::is_same_v<T, bool>) {
    if (EqualsIgnoreCase(text, "true")) {
      *out = true;
      return Status::Ok();
    }
    if (EqualsIgnoreCase(text, "false")) {
      *out = false;
      return Status::Ok();
    }
  } else if constexpr (std::is_integral_v<T>) {
    std::string_view digits = text;
    if (!digits.empty() && digits.front() == '+') digits.remove_prefix(1);
    using Wide = std::conditional_t<std::is_signed_v<T>, int64_t, uint64_t>;
    Wide wide = 0;
    const auto r = std::from_chars(digits.data(), digits.data() + digits.size(), wide);
    if (r.ec == std::errc() && r.ptr == digits.data() + digits.size() && !digits.empty()) {
      *out = static_cast<T>(wide);
      return Status::Ok();
    }
  }
  double value = 0;
  if (!ParseReal(text, &value)) {
    return MakeStatus(StatusCode::kInvalidArgument, "Cast: cannot read string '", original,
                      "' as ", DataTypeName(DataTypeOf<T>()));
  }
  *out = ConvertElement<T>(value);
  return Status::Ok();
}

template <typename From, typename To, bool kSaturate = true>
Status CastTyped(const void* in, void* out, int64_t count) {
  const auto* x = static_cast<const From*>(in);
  auto* y = static_cast<To*>(out);
  if constexpr (kIsFloat8<To> && !std::is_same_v<From, std::string>) {
    for (int64_t i = 0; i < count; ++i) y[i] = ConvertElement<To>(x[i], kSaturate);
  } else if constexpr (std::is_same_v<From, To>) {
    if (in != out) std::copy(x, x + count, y);
  } else if constexpr (std::is_same_v<From, Float16> && std::is_same_v<To, float>) {
    HalfToFloat(x, y, count);
  } else if constexpr (std::is_same_v<From, float> && std::is_same_v<To, Float16>) {
    FloatToHalf(x, y, count);
  } else if constexpr (std::is_same_v<From, BFloat16> && std::is_same_v<To, float>) {
    BFloat16ToFloat(x, y, count);
  } else if constexpr (std::is_same_v<From, float> && std::is_same_v<To, BFloat16>) {
    FloatToBFloat16(x, y, count);
  } else if constexpr (std::is_same_v<To, std::string>) {
    for (int64_t i = 0; i < count; ++i) y[i] = ToText(x[i]);
  } else if constexpr (std::is_same_v<From, std::string>) {
    for (int64_t i = 0; i < count; ++i) NXRT_RETURN_IF_ERROR(FromText(x[i], &y[i]));
  } else {
    for (int64_t i = 0; i < count; ++i) y[i] = ConvertElement<To>(x[i]);
  }
  return Status::Ok();
}

// Element i of a packed int4 (kSigned) or uint4 buffer.
template <bool kSigned>
int32_t LoadNibble(const uint8_t* p, int64_t i) {
  const int32_t nibble = (p[i / 2] >> (4 * (i % 2))) & 0x0F;
  return kSigned && nibble >= 8 ? nibble - 16 : nibble;
}

template <bool kSigned, typename To>
Status CastFromInt4(const void* in, void* out, int64_t count) {
  const auto* x = static_cast<const uint8_t*>(in);
  auto* y = static_cast<To*>(out);
  for (int64_t i = 0; i < count; ++i) y[i] = ConvertElement<To>(LoadNibble<kSigned>(x, i));
  return Status::Ok();
}

// To int4/uint4, as ONNX Runtime 1.30's Cast does (measured): floating values round half away
// from zero (NaN and infinities give 0), then every value keeps its low 4 bits (two's complement
// wrap, like Cast to the other integer types).
template <typename From>
uint8_t ToNibble(const From& value) {
  if constexpr (kIsFloating<From>) {
    const double d = static_cast<double>(Load(value));
    if (!std::isfinite(d)) return 0;
    return static_cast<uint8_t>(static_cast<uint64_t>(
                                    static_cast<int64_t>(std::round(std::fmod(d, 65536.0)))) &
                                0x0F);
  } else {
    return static_cast<uint8_t>(static_cast<uint64_t>(value) & 0x0F);
  }
}

template <typename From>
Status CastToInt4(const void* in, void* out, int64_t count) {
  const auto* x = static_cast<const From*>(in);
  auto* y = static_cast<uint8_t*>(out);
  std::fill(y, y + (count + 1) / 2, uint8_t{0});
  for (int64_t i = 0; i < count; ++i) {
    y[i / 2] = static_cast<uint8_t>(y[i / 2] | (ToNibble(x[i]) << (4 * (i % 2))));
  }
  return Status::Ok();
}

template <bool kFromSigned>
Status CastInt4ToInt4(const void* in, void* out, int64_t count) {
  const auto* x = static_cast<const uint8_t*>(in);
  auto* y = static_cast<uint8_t*>(out);
  std::fill(y, y + (count + 1) / 2, uint8_t{0});
  for (int64_t i = 0; i < count; ++i) {
    const uint8_t nibble = ToNibble(LoadNibble<kFromSigned>(x, i));
    y[i / 2] = static_cast<uint8_t>(y[i / 2] | (nibble << (4 * (i % 2))));
  }
  return Status::Ok();
}

// The conversions with int4/uint4 on one side or both.
Result<CastFn> PrepareInt4Cast(DataType from, DataType to) {
  CastFn fn = nullptr;
  const bool from_signed = from == DataType::kInt4;
  if (IsPacked4Bit(from) && IsPacked4Bit(to)) {
    fn = from_signed ? &CastInt4ToInt4<true> : &CastInt4ToInt4<false>;
    return fn;
  }
  if (IsPacked4Bit(from)) {
    NXRT_RETURN_IF_ERROR(DispatchType<Int4PeerTypes>(to, "Cast target", [&](auto tag) {
      using To = typename decltype(tag)::type;
      fn = from_signed ? &CastFromInt4<true, To> : &CastFromInt4<false, To>;
    }));
    return fn;
  }
  NXRT_RETURN_IF_ERROR(DispatchType<Int4PeerTypes>(from, "Cast input", [&](auto tag) {
    fn = &CastToInt4<typename decltype(tag)::type>;
  }));
  return fn;
}

}  // namespace

std::string FormatFloating(double value, DataType type) {
  std::string text = "unsupported type";
  VisitType(FloatTypesBf16{}, type, [&](auto tag) {
    using T = typename decltype(tag)::type;
    text = ToText(ConvertElement<T>(value));
  });
  return text;
}

Result<CastPlan> PrepareCast(DataType from, DataType to, bool saturate) {
  CastPlan plan;
  plan.from = from;
  plan.to = to;
  if (IsPacked4Bit(from) || IsPacked4Bit(to)) {
    NXRT_ASSIGN_OR_RETURN(plan.fn, PrepareInt4Cast(from, to));
    return plan;
  }
  Status inner;
  NXRT_RETURN_IF_ERROR(DispatchType<CastTypes>(from, "Cast input", [&](auto from_tag) {
    using From = typename decltype(from_tag)::type;
    inner = DispatchType<CastTypes>(to, "Cast target", [&](auto to_tag) {
      using To = typename decltype(to_tag)::type;
      plan.fn = saturate ? &CastTyped<From, To, true> : &CastTyped<From, To, false>;
    });
  }));
  NXRT_RETURN_IF_ERROR(inner);
  return plan;
}

Status RunCast(const CastPlan& plan, const void* in, void* out, int64_t count) {
  return plan.fn(in, out, count);
}

Status Cast(const Tensor& in, DataType to, Tensor* out) {
  NXRT_RETURN_IF_ERROR(CheckInput("Cast", "input", in));
  NXRT_ASSIGN_OR_RETURN(CastPlan plan, PrepareCast(in.dtype(), to));
  NXRT_RETURN_IF_ERROR(PrepareOutput("Cast", to, in.shape(), out));
  return RunCast(plan, in.raw_data(), out->mutable_raw_data(), in.element_count());
}

}  // namespace nxrt::cpu::math
