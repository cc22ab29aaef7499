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

using CastTypes = Concat<NumericAndBoolTypes, StringTypes>;

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
  if constexpr (kIsHalf<T>) {
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

template <typename From, typename To>
Status CastTyped(const void* in, void* out, int64_t count) {
  const auto* x = static_cast<const From*>(in);
  auto* y = static_cast<To*>(out);
  if constexpr (std::is_same_v<From, To>) {
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

}  // namespace

std::string FormatFloating(double value, DataType type) {
  std::string text = "unsupported type";
  VisitType(FloatTypesBf16{}, type, [&](auto tag) {
    using T = typename decltype(tag)::type;
    text = ToText(ConvertElement<T>(value));
  });
  return text;
}

Result<CastPlan> PrepareCast(DataType from, DataType to) {
  CastPlan plan;
  plan.from = from;
  plan.to = to;
  Status inner;
  NXRT_RETURN_IF_ERROR(DispatchType<CastTypes>(from, "Cast input", [&](auto from_tag) {
    using From = typename decltype(from_tag)::type;
    inner = DispatchType<CastTypes>(to, "Cast target", [&](auto to_tag) {
      plan.fn = &CastTyped<From, typename decltype(to_tag)::type>;
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
