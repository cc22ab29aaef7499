// ep/cpu/math/quant/quant.cpp: linear quantization and the integer products (see quant.h).
#include "ep/cpu/math/quant/quant.h"

#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>

#include "core/cpu_features.h"
#include "ep/cpu/math/element_types.h"
#include "ep/cpu/math/nn_common.h"
#include "ep/cpu/math/quant/quantize_avx2.h"

namespace nxrt::cpu::nn {
namespace {

using math::TypeList;
using math::TypeTag;

// An int4 (kSigned) or uint4 element of a packed buffer: element i is nibble i % 2 (low first)
// of byte i / 2.
template <bool kSigned>
struct Nibble {};
using Int4 = Nibble<true>;
using Uint4 = Nibble<false>;

template <typename Q>
inline constexpr bool kIsNibble = std::is_same_v<Q, Int4> || std::is_same_v<Q, Uint4>;

using QuantTypes = TypeList<int8_t, uint8_t, int16_t, uint16_t>;
// What QuantizeLinear produces and DequantizeLinear reads besides int32: QuantTypes, the packed
// 4-bit integers (matched by DataType, as they have no C++ element type) and float8.
using Float8Types = math::Float8Types;
using ScaleTypes = TypeList<float, Float16, BFloat16>;

// Calls fn(TypeTag<Q>{}) for the quantized type Q of `dtype` among QuantTypes, Int4, Uint4 and
// the float8 types; false when `dtype` is none of them.
template <typename Fn>
bool VisitQuantized(DataType dtype, Fn&& fn) {
  if (dtype == DataType::kInt4) return fn(math::TypeTag<Int4>{}), true;
  if (dtype == DataType::kUint4) return fn(math::TypeTag<Uint4>{}), true;
  return math::VisitType(math::Concat<QuantTypes, Float8Types>{}, dtype, fn);
}

// Element i of a quantized integer buffer as int32.
template <typename Q>
int32_t LoadQuantized(const void* p, int64_t i) {
  if constexpr (kIsNibble<Q>) {
    const int32_t nibble = (static_cast<const uint8_t*>(p)[i / 2] >> (4 * (i % 2))) & 0x0F;
    return std::is_same_v<Q, Int4> && nibble >= 8 ? nibble - 16 : nibble;
  } else {
    return static_cast<int32_t>(static_cast<const Q*>(p)[i]);
  }
}

template <typename Q>
constexpr int32_t QuantMin() {
  if constexpr (kIsNibble<Q>) return std::is_same_v<Q, Int4> ? -8 : 0;
  else return std::numeric_limits<Q>::min();
}
template <typename Q>
constexpr int32_t QuantMax() {
  if constexpr (kIsNibble<Q>) return std::is_same_v<Q, Int4> ? 7 : 15;
  else return std::numeric_limits<Q>::max();
}

// Writes element i (already in range) of a quantized integer buffer; a nibble is written into
// its byte, keeping the other nibble.
template <typename Q>
void StoreQuantizedInt(void* p, int64_t i, int32_t v) {
  if constexpr (kIsNibble<Q>) {
    uint8_t& byte = static_cast<uint8_t*>(p)[i / 2];
    const int shift = 4 * static_cast<int>(i % 2);
    byte = static_cast<uint8_t>((byte & ~(0x0F << shift)) | ((v & 0x0F) << shift));
  } else {
    static_cast<Q*>(p)[i] = static_cast<Q>(v);
  }
}

template <typename T>
float ToFloat(T v) {
  return static_cast<float>(v);
}

// round-half-to-even(v) + zero_point, saturated to Q.
template <typename Q>
Q SaturateRound(float v, int32_t zero_point) {
  const float r = std::nearbyint(v) + static_cast<float>(zero_point);
  constexpr float lo = static_cast<float>(std::numeric_limits<Q>::min());
  constexpr float hi = static_cast<float>(std::numeric_limits<Q>::max());
  if (std::isnan(r)) return static_cast<Q>(zero_point);
  return static_cast<Q>(std::clamp(r, lo, hi));
}

// Calls fn(scale_index, x_begin, count) for every run of x elements in [begin, end) sharing one
// scale, in order.
template <typename Fn>
void ForEachScaleRun(const QuantGeometry& g, int64_t begin, int64_t end, Fn&& fn) {
  using Mode = QuantGeometry::Mode;
  if (begin >= end) return;
  if (g.mode == Mode::kPerTensor) {
    fn(int64_t{0}, begin, end - begin);
    return;
  }
  if (g.mode == Mode::kPerAxis) {
    for (int64_t row = begin / g.inner; row * g.inner < end; ++row) {
      const int64_t first = std::max(begin, row * g.inner);
      const int64_t last = std::min(end, (row + 1) * g.inner);
      fn(row % g.axis_dim, first, last - first);
    }
    return;
  }
  const int64_t blocks = (g.axis_dim + g.block - 1) / g.block;
  for (int64_t e = begin; e < end; ++e) {
    const int64_t i = e % g.inner, a = (e / g.inner) % g.axis_dim, o = e / g.inner / g.axis_dim;
    fn((o * blocks + a / g.block) * g.inner + i, e, int64_t{1});
  }
}

// MLAS's QuantizeLinear of float x to int8/uint8 (quantize_avx2.h): x / scale, clamped, rounded
// half to even, plus the zero point; a NaN gives Q's minimum.
template <typename Q>
__attribute__((target("avx2"))) int64_t QuantizeFloatsAvx2(const float* x, int64_t count,
                                                           float scale, int32_t zero_point, Q* y) {
  const math::QuantizeBounds<Q> bounds = math::MakeQuantizeBounds<Q>(zero_point);
  const __m256 vscale = _mm256_set1_ps(scale);
  int64_t i = 0;
  for (; i + 32 <= count; i += 32) {
    __m256i q[4];
    for (int j = 0; j < 4; ++j) {
      q[j] = math::QuantizeLanes(_mm256_div_ps(_mm256_loadu_ps(x + i + 8 * j), vscale), bounds);
    }
    math::StoreCodes(y + i, q[0], q[1], q[2], q[3]);
  }
  return i;
}

template <typename Q>
void QuantizeFloats(const float* x, int64_t count, float scale, int32_t zero_point, Q* y) {
  const int64_t done = CpuHasAvx2() ? QuantizeFloatsAvx2(x, count, scale, zero_point, y) : 0;
  for (int64_t i = done; i < count; ++i) y[i] = math::QuantizeScalar<Q>(x[i] / scale, zero_point);
}

template <typename X, typename S, typename Q>
void QuantizeTyped(const QuantizePlan& plan, const void* x_raw, const void* scale_raw,
                   const void* zp_raw, void* y_raw, int64_t range_begin, int64_t range_end) {
  const X* x = static_cast<const X*>(x_raw);
  const S* scale = static_cast<const S*>(scale_raw);
  ForEachScaleRun(plan.geometry, range_begin, range_end,
                  [&](int64_t s, int64_t begin, int64_t count) {
    const float sc = ToFloat(scale[s]);
    if constexpr (std::is_same_v<X, float> &&
                  (std::is_same_v<Q, int8_t> || std::is_same_v<Q, uint8_t>)) {
      const int32_t z = zp_raw != nullptr ? LoadQuantized<Q>(zp_raw, s) : 0;
      QuantizeFloats(x + begin, count, sc, z, static_cast<Q*>(y_raw) + begin);
    } else if constexpr (math::kIsFloat8<Q>) {
      // float8: x / scale + zero_point rounded to nearest even, saturated unless told not to.
      const float z = zp_raw != nullptr ? static_cast<float>(static_cast<const Q*>(zp_raw)[s]) : 0;
      Q* y = static_cast<Q*>(y_raw);
      for (int64_t i = begin; i < begin + count; ++i) {
        y[i] = Q(ToFloat(x[i]) / sc + z, plan.saturate);
      }
    } else {
      const int32_t z = zp_raw != nullptr ? LoadQuantized<Q>(zp_raw, s) : 0;
      constexpr auto lo = static_cast<float>(QuantMin<Q>());
      constexpr auto hi = static_cast<float>(QuantMax<Q>());
      for (int64_t i = begin; i < begin + count; ++i) {
        const float r = std::nearbyint(ToFloat(x[i]) / sc) + static_cast<float>(z);
        StoreQuantizedInt<Q>(y_raw, i,
                             std::isnan(r) ? z : static_cast<int32_t>(std::clamp(r, lo, hi)));
      }
    }
  });
  if constexpr (kIsNibble<Q>) {
    // An odd count leaves the last byte's high nibble unused: 0, as ONNX packs it.
    const QuantGeometry& g = plan.geometry;
    const int64_t n = g.outer * g.axis_dim * g.inner;
    if (n % 2 == 1 && range_end == n) static_cast<uint8_t*>(y_raw)[n / 2] &= 0x0F;
  }
}

template <typename X, typename S>
void DequantizeTyped(const DequantizePlan& plan, const void* x_raw, const void* scale_raw,
                     const void* zp_raw, void* y_raw, int64_t range_begin, int64_t range_end) {
  const S* scale = static_cast<const S*>(scale_raw);
  S* y = static_cast<S*>(y_raw);
  ForEachScaleRun(plan.geometry, range_begin, range_end,
                  [&](int64_t s, int64_t begin, int64_t count) {
    const float sc = ToFloat(scale[s]);
    if constexpr (math::kIsFloat8<X>) {
      const X* x = static_cast<const X*>(x_raw);
      const float z = zp_raw != nullptr ? static_cast<float>(static_cast<const X*>(zp_raw)[s]) : 0;
      for (int64_t i = begin; i < begin + count; ++i) {
        y[i] = S((static_cast<float>(x[i]) - z) * sc);
      }
    } else if constexpr (kIsNibble<X>) {
      const int32_t z = zp_raw != nullptr ? LoadQuantized<X>(zp_raw, s) : 0;
      for (int64_t i = begin; i < begin + count; ++i) {
        y[i] = S(static_cast<float>(LoadQuantized<X>(x_raw, i) - z) * sc);
      }
    } else {
      const X* x = static_cast<const X*>(x_raw);
      const X* zp = static_cast<const X*>(zp_raw);
      const int64_t z = zp != nullptr ? static_cast<int64_t>(zp[s]) : 0;
      for (int64_t i = begin; i < begin + count; ++i) {
        y[i] = S(static_cast<float>(static_cast<int64_t>(x[i]) - z) * sc);
      }
    }
  });
}


}  // namespace

Result<QuantGeometry> ResolveQuantGeometry(std::string_view op, std::span<const int64_t> x_shape,
                                           std::span<const int64_t> scale_shape, int64_t axis,
                                           int64_t block_size) {
  QuantGeometry g;
  g.outer = Product(x_shape);
  const int64_t rank = static_cast<int64_t>(x_shape.size());
  const bool scalar = scale_shape.empty() || (scale_shape.size() == 1 && scale_shape[0] == 1 &&
                                              block_size == 0);
  if (scalar && block_size == 0) return g;
  if (axis < -rank || axis >= rank) {
    return MakeStatus(StatusCode::kInvalidArgument, op, ": attribute 'axis' is ", axis,
                      ", out of range for x of rank ", rank, "; use a value in [", -rank, ", ",
                      rank - 1, "]");
  }
  const size_t a = static_cast<size_t>(axis < 0 ? axis + rank : axis);
  g.outer = Product(x_shape.subspan(0, a));
  g.axis_dim = x_shape[a];
  g.inner = Product(x_shape.subspan(a + 1));
  if (block_size <= 0) {
    if (scale_shape.size() != 1 || scale_shape[0] != g.axis_dim) {
      return MakeStatus(StatusCode::kInvalidArgument, op, ": scale has shape ", Str(scale_shape),
                        ", expected one element or [", g.axis_dim, "] (x shape ", Str(x_shape),
                        ", axis ", axis, ")");
    }
    g.mode = QuantGeometry::Mode::kPerAxis;
    return g;
  }
  Shape expected(x_shape.begin(), x_shape.end());
  expected[a] = (g.axis_dim + block_size - 1) / block_size;
  if (!std::equal(scale_shape.begin(), scale_shape.end(), expected.begin(), expected.end())) {
    return MakeStatus(StatusCode::kInvalidArgument, op, ": scale has shape ", Str(scale_shape),
                      ", expected ", ShapeToString(expected), " for x ", Str(x_shape),
                      " with block_size ", block_size, " on axis ", axis);
  }
  g.mode = QuantGeometry::Mode::kBlocked;
  g.block = block_size;
  return g;
}

Result<QuantizePlan> PrepareQuantize(DataType x_dtype, DataType scale_dtype, DataType y_dtype,
                                     QuantGeometry geometry, bool saturate) {
  QuantizePlan plan;
  plan.geometry = geometry;
  plan.saturate = saturate;
  using XTypes = TypeList<float, double, Float16, BFloat16, int32_t>;
  using STypes = TypeList<float, Float16, BFloat16, int32_t>;
  NXRT_RETURN_IF_ERROR(math::DispatchType<XTypes>(x_dtype, "QuantizeLinear input x", [&](auto xt) {
    using X = typename decltype(xt)::type;
    (void)math::DispatchType<STypes>(scale_dtype, "QuantizeLinear", [&](auto st) {
      using S = typename decltype(st)::type;
      VisitQuantized(y_dtype, [&](auto qt) {
        plan.fn = &QuantizeTyped<X, S, typename decltype(qt)::type>;
      });
    });
  }));
  if (plan.fn == nullptr) {
    return MakeStatus(StatusCode::kUnsupported, "QuantizeLinear: scale type ",
                      DataTypeName(scale_dtype), " with output type ", DataTypeName(y_dtype),
                      " is not supported (scale float/float16/bfloat16/int32, output int4, uint4, "
                      "int8, uint8, int16, uint16 or a float8 type)");
  }
  return plan;
}

void Quantize(const QuantizePlan& plan, const void* x, const void* scale, const void* zero_point,
              void* y, int64_t begin, int64_t end) {
  plan.fn(plan, x, scale, zero_point, y, begin, end);
}

Result<DequantizePlan> PrepareDequantize(DataType x_dtype, DataType scale_dtype,
                                         QuantGeometry geometry) {
  DequantizePlan plan;
  plan.geometry = geometry;
  const auto dispatch_scale = [&](auto xt) {
    using X = typename decltype(xt)::type;
    (void)math::DispatchType<ScaleTypes>(scale_dtype, "DequantizeLinear", [&](auto st) {
      plan.fn = &DequantizeTyped<X, typename decltype(st)::type>;
    });
  };
  if (!VisitQuantized(x_dtype, dispatch_scale) &&
      !math::VisitType(TypeList<int32_t>{}, x_dtype, dispatch_scale)) {
    return MakeStatus(StatusCode::kUnsupported, "DequantizeLinear does not support input x of type ",
                      DataTypeName(x_dtype),
                      " (supported: int4, uint4, int8, uint8, int16, uint16, int32, float8)");
  }
  if (plan.fn == nullptr) {
    return MakeStatus(StatusCode::kUnsupported, "DequantizeLinear: x_scale type ",
                      DataTypeName(scale_dtype),
                      " is not supported (use float, float16 or bfloat16)");
  }
  return plan;
}

void Dequantize(const DequantizePlan& plan, const void* x, const void* scale,
                const void* zero_point, void* y, int64_t begin, int64_t end) {
  plan.fn(plan, x, scale, zero_point, y, begin, end);
}

namespace {

// DynamicQuantizeLinear's two passes, as ONNX Runtime's MLAS runs them: the range ignores NaN
// (a NaN element never replaces the running min or max); y is QuantizeLinear's of the float x
// (QuantizeFloats: NaN to 0).
void MinMaxScalar(const float* x, int64_t count, float& lo, float& hi) {
  for (int64_t i = 0; i < count; ++i) {
    if (x[i] < lo) lo = x[i];
    if (x[i] > hi) hi = x[i];
  }
}

// The AVX2 build of the range pass, 16 floats a step; the tail goes to the scalar loop.
__attribute__((target("avx2"))) int64_t MinMaxAvx2(const float* x, int64_t count, float& lo,
                                                   float& hi) {
  __m256 vlo = _mm256_set1_ps(lo), vhi = _mm256_set1_ps(hi);
  __m256 vlo2 = vlo, vhi2 = vhi;
  int64_t i = 0;
  for (; i + 16 <= count; i += 16) {
    const __m256 a = _mm256_loadu_ps(x + i), b = _mm256_loadu_ps(x + i + 8);
    // min_ps(a, acc) returns acc when a is NaN.
    vlo = _mm256_min_ps(a, vlo);
    vhi = _mm256_max_ps(a, vhi);
    vlo2 = _mm256_min_ps(b, vlo2);
    vhi2 = _mm256_max_ps(b, vhi2);
  }
  vlo = _mm256_min_ps(vlo, vlo2);
  vhi = _mm256_max_ps(vhi, vhi2);
  alignas(32) float l[8], h[8];
  _mm256_store_ps(l, vlo);
  _mm256_store_ps(h, vhi);
  for (int j = 0; j < 8; ++j) {
    lo = std::min(lo, l[j]);
    hi = std::max(hi, h[j]);
  }
  return i;
}

}  // namespace

void DynamicQuantizeLinear(const float* x, int64_t count, uint8_t* y, float* scale,
                           uint8_t* zero_point) {
  const bool avx2 = CpuHasAvx2();
  float lo = 0, hi = 0;
  const int64_t done = avx2 ? MinMaxAvx2(x, count, lo, hi) : 0;
  MinMaxScalar(x + done, count - done, lo, hi);
  // ORT: scale 1 for an all-zero range; zero point round(clamp(0 - min / scale, 0, 255)).
  const float s = hi == lo ? 1.0f : (hi - lo) / 255.0f;
  *scale = s;
  const float initial = std::clamp(0.0f - lo / s, 0.0f, 255.0f);
  const uint8_t zp = static_cast<uint8_t>(std::nearbyint(initial));
  *zero_point = zp;
  QuantizeFloats<uint8_t>(x, count, s, zp, y);
}

}  // namespace nxrt::cpu::nn
