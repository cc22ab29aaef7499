// ep/cpu/math/element_types.h: the element-type sets, the one dtype dispatch helper, and the
// scalar conversions every math family shares.
//
// Layer: nxrt_cpu_math (framework-free reference math of the CPU EP; no IR, no EP API).
// Type sets: ONNX's recurring type constraints, named as its schemas list them (FloatTypes is
// "tensor(float16), tensor(float), tensor(double)"; the Bf16 forms add bfloat16, as opset 13
// did). They are defined once, here: the math dispatches over them and the kernel tables
// (kernels/kernel_util.h) register their DataTypes(), so what a table entry admits and what its
// math computes are the same list.
// Dispatch: a kernel resolves its dtype once, at prepare time. `DispatchType<List>(dtype, op, fn)`
// calls `fn(TypeTag<T>{})` for the C++ element type T of `dtype` if T is in List (returning fn's
// Status when fn returns one), and otherwise returns kUnsupported naming the op, the type and the
// supported types. `fn` typically stores a pointer to a typed compute function, so compute never
// switches on dtypes again. `VisitType` is its primitive, for a dtype already checked. Ops that
// only move bytes dispatch on the element size instead (VisitElement, nn_common.h).
// Float16/BFloat16 are storage types: math loads them as float (`Compute<T>`), computes, and
// rounds back to nearest even on store.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "nxrt/data_type.h"
#include "nxrt/status.h"

namespace nxrt::cpu::math {

template <typename... Ts>
struct TypeList {};

template <typename T>
struct TypeTag {
  using type = T;
};

template <typename... Lists>
struct ConcatTypeLists;
template <typename... As>
struct ConcatTypeLists<TypeList<As...>> {
  using type = TypeList<As...>;
};
template <typename... As, typename... Bs, typename... Rest>
struct ConcatTypeLists<TypeList<As...>, TypeList<Bs...>, Rest...> {
  using type = typename ConcatTypeLists<TypeList<As..., Bs...>, Rest...>::type;
};
template <typename... Lists>
using Concat = typename ConcatTypeLists<Lists...>::type;

// float16, float, double.
using FloatTypes = TypeList<Float16, float, double>;
// float16, float, double, bfloat16.
using FloatTypesBf16 = Concat<FloatTypes, TypeList<BFloat16>>;
using SignedIntTypes = TypeList<int8_t, int16_t, int32_t, int64_t>;
using UnsignedIntTypes = TypeList<uint8_t, uint16_t, uint32_t, uint64_t>;
// int8..int64, uint8..uint64.
using IntTypes = Concat<SignedIntTypes, UnsignedIntTypes>;
// IntTypes + FloatTypes (no bfloat16).
using NumericTypes = Concat<IntTypes, FloatTypes>;
// IntTypes + FloatTypesBf16.
using NumericTypesBf16 = Concat<IntTypes, FloatTypesBf16>;
// SignedIntTypes + FloatTypesBf16.
using SignedNumericTypesBf16 = Concat<SignedIntTypes, FloatTypesBf16>;
using BoolTypes = TypeList<bool>;
using StringTypes = TypeList<std::string>;
// NumericTypesBf16 + bool (the "all numeric and bool" of Cast, EyeLike, ConstantOfShape).
using NumericAndBoolTypes = Concat<NumericTypesBf16, BoolTypes>;
// The four float8 formats of ONNX 1.14 (opset 19).
using Float8Types = TypeList<Float8E4M3FN, Float8E4M3FNUZ, Float8E5M2, Float8E5M2FNUZ>;

// An elementwise op's output element type: its input's T (kSame) or bool (kBool).
enum class OutKind { kSame, kBool };

// The DataTypes of `List`, in its order (what a kernel table entry admits).
template <typename... Ts>
std::vector<DataType> DataTypes(TypeList<Ts...>) {
  return {DataTypeOf<Ts>()...};
}

// "float, double, float16, ..." for the types of `List` (error messages).
template <typename... Ts>
std::string TypeListNames(TypeList<Ts...>) {
  std::string names;
  ((names += (names.empty() ? "" : ", "), names += DataTypeName(DataTypeOf<Ts>())), ...);
  return names;
}

// Calls fn(TypeTag<T>{}) for the T of `List` whose DataType is `dtype`; false when none is.
template <typename... Ts, typename Fn>
bool VisitType(TypeList<Ts...>, DataType dtype, Fn&& fn) {
  return ((dtype == DataTypeOf<Ts>() && (fn(TypeTag<Ts>{}), true)) || ...);
}

// Calls fn(TypeTag<T>{}) for the element type T of `dtype` and returns fn's Status (Ok when fn
// returns void), or returns kUnsupported:
// "<op> does not support element type string (supported: float16, float, double, ...)".
template <typename List, typename Fn>
Status DispatchType(DataType dtype, std::string_view op, Fn&& fn) {
  Status status = Status::Ok();
  const bool found = VisitType(List{}, dtype, [&](auto tag) {
    if constexpr (std::is_void_v<decltype(fn(tag))>) {
      fn(tag);
    } else {
      status = fn(tag);
    }
  });
  if (found) return status;
  return MakeStatus(StatusCode::kUnsupported, op, " does not support element type ",
                    DataTypeName(dtype), " (supported: ", TypeListNames(List{}), ")");
}

template <typename T>
inline constexpr bool kIsHalf = std::is_same_v<T, Float16> || std::is_same_v<T, BFloat16>;

template <typename T>
inline constexpr bool kIsFloat8 =
    std::is_same_v<T, Float8E4M3FN> || std::is_same_v<T, Float8E4M3FNUZ> ||
    std::is_same_v<T, Float8E5M2> || std::is_same_v<T, Float8E5M2FNUZ>;

// The storage-only floats, computed in float: float16, bfloat16 and the float8 formats.
template <typename T>
inline constexpr bool kIsStorageFloat = kIsHalf<T> || kIsFloat8<T>;

template <typename T>
inline constexpr bool kIsFloating = std::is_floating_point_v<T> || kIsStorageFloat<T>;

// The type arithmetic on T happens in: float for the storage floats, T otherwise.
template <typename T>
using Compute = std::conditional_t<kIsStorageFloat<T>, float, T>;

// Storage → compute value.
template <typename T>
inline decltype(auto) Load(const T& value) {
  if constexpr (kIsStorageFloat<T>) {
    return static_cast<float>(value);
  } else {
    return value;
  }
}

// Compute value → storage (storage floats round to nearest even; float8 saturates).
template <typename T>
inline T Store(Compute<T> value) {
  if constexpr (kIsStorageFloat<T>) {
    return T(value);
  } else {
    return value;
  }
}

// Wrapping (two's complement) integer arithmetic without signed-overflow UB. Narrow unsigned
// types are widened to unsigned int first so that integer promotion cannot overflow `int`.
template <typename T>
using WrapType = std::conditional_t<(sizeof(T) < sizeof(unsigned)), unsigned,
                                    std::make_unsigned_t<T>>;
template <typename T>
inline T WrapAdd(T a, T b) {
  return static_cast<T>(static_cast<WrapType<T>>(a) + static_cast<WrapType<T>>(b));
}
template <typename T>
inline T WrapSub(T a, T b) {
  return static_cast<T>(static_cast<WrapType<T>>(a) - static_cast<WrapType<T>>(b));
}
template <typename T>
inline T WrapMul(T a, T b) {
  return static_cast<T>(static_cast<WrapType<T>>(a) * static_cast<WrapType<T>>(b));
}

// True for a NaN of a floating compute type; always false for other types.
template <typename C>
inline bool IsNan(C v) {
  if constexpr (std::is_floating_point_v<C>) {
    return std::isnan(v);
  } else {
    return false;
  }
}

// NaN-propagating max/min: a NaN operand wins (ONNX Max/Min/Clip/ReduceMax propagate NaN).
template <typename C>
inline C MaxPropagateNan(C a, C b) {
  return (a > b || a != a) ? a : b;
}
template <typename C>
inline C MinPropagateNan(C a, C b) {
  return (a < b || a != a) ? a : b;
}

// Floating value → integer type I, truncating toward zero, with the results NumPy gives on
// x86-64 (which is also what ONNX Runtime produces): 8/16-bit targets go through int32 and wrap
// (-1.0 → uint8 255, 300.0 → uint8 44); int32 targets and uint32/int64 (through int64) give the
// "integer indefinite" minimum for NaN and out-of-range values; uint64 covers [0, 2^64) exactly
// and otherwise follows the int64 route. ONNX leaves out-of-range casts undefined.
template <typename I>
inline I FloatToInt(double value) {
  static_assert(std::is_integral_v<I>);
  const auto to_int32 = [](double v) -> int32_t {
    if (!(v > -2147483649.0 && v < 2147483648.0)) return std::numeric_limits<int32_t>::min();
    return static_cast<int32_t>(v);
  };
  const auto to_int64 = [](double v) -> int64_t {
    if (!(v >= -9223372036854775808.0 && v < 9223372036854775808.0)) {
      return std::numeric_limits<int64_t>::min();
    }
    return static_cast<int64_t>(v);
  };
  if constexpr (std::is_same_v<I, bool>) {
    return value != 0;
  } else if constexpr (sizeof(I) < 4 || std::is_same_v<I, int32_t>) {
    return static_cast<I>(to_int32(value));
  } else if constexpr (std::is_same_v<I, uint64_t>) {
    if (value >= 9223372036854775808.0 && value < 18446744073709551616.0) {
      return static_cast<uint64_t>(value);
    }
    return static_cast<uint64_t>(to_int64(value));
  } else {
    return static_cast<I>(to_int64(value));
  }
}

// `value` rounded to float with round-to-odd: exact values stay, inexact ones get the odd float
// next to them toward zero. Rounding that float to a 16-bit float (nearest even) then equals
// rounding `value` directly, avoiding the double-rounding error of double → float → float16.
inline float RoundToOddFloat(double value) {
  float f = static_cast<float>(value);
  if (!std::isfinite(f) || static_cast<double>(f) == value) return f;
  if (std::fabs(static_cast<double>(f)) > std::fabs(value)) f = std::nextafter(f, 0.0f);
  uint32_t bits;
  std::memcpy(&bits, &f, sizeof bits);
  bits |= 1u;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

// Converts one element between any two numeric/bool element types with ONNX Cast semantics:
// to bool is `!= 0` (NaN is true), from bool is 0/1, floating → integer as FloatToInt,
// integer → integer wraps, floating → floating rounds to nearest even (once: 64-bit sources
// round to odd float first), saturating into float8 unless `saturate` is false.
template <typename To, typename From>
inline To ConvertElement(From value, bool saturate = true) {
  if constexpr (std::is_same_v<To, From>) {
    return value;
  } else if constexpr (std::is_same_v<To, bool>) {
    return Load(value) != 0;
  } else if constexpr (kIsFloat8<To> && (std::is_same_v<From, double> || sizeof(From) == 8)) {
    return To(RoundToOddFloat(static_cast<double>(value)), saturate);
  } else if constexpr (kIsFloat8<To>) {
    return To(static_cast<float>(Load(value)), saturate);
  } else if constexpr (kIsHalf<To> && (std::is_same_v<From, double> || sizeof(From) == 8)) {
    return To(RoundToOddFloat(static_cast<double>(value)));
  } else if constexpr (kIsHalf<To>) {
    return To(static_cast<float>(Load(value)));
  } else if constexpr (std::is_floating_point_v<To>) {
    return static_cast<To>(Load(value));
  } else if constexpr (kIsFloating<From>) {
    return FloatToInt<To>(static_cast<double>(Load(value)));
  } else {
    return static_cast<To>(value);
  }
}

}  // namespace nxrt::cpu::math
