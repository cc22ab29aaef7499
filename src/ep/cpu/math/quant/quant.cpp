// ep/cpu/math/quant/quant.cpp: linear quantization and the integer products (see quant.h).
#include "ep/cpu/math/quant/quant.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>

#include "ep/cpu/math/element_types.h"

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
  if (dtype == DataType::kInt4) return fn(TypeTag<Int4>{}), true;
  if (dtype == DataType::kUint4) return fn(TypeTag<Uint4>{}), true;
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

int64_t Product(std::span<const int64_t> dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
}

// Calls fn(scale_index, x_begin, count) for every run of x elements sharing one scale.
template <typename Fn>
void ForEachScaleRun(const QuantGeometry& g, Fn&& fn) {
  using Mode = QuantGeometry::Mode;
  if (g.mode == Mode::kPerTensor) {
    fn(int64_t{0}, int64_t{0}, g.outer * g.axis_dim * g.inner);
    return;
  }
  const int64_t blocks = g.mode == Mode::kBlocked ? (g.axis_dim + g.block - 1) / g.block : 0;
  for (int64_t o = 0; o < g.outer; ++o) {
    for (int64_t a = 0; a < g.axis_dim; ++a) {
      const int64_t base = (o * g.axis_dim + a) * g.inner;
      if (g.mode == Mode::kPerAxis) {
        fn(a, base, g.inner);
      } else {
        for (int64_t i = 0; i < g.inner; ++i) {
          fn((o * blocks + a / g.block) * g.inner + i, base + i, int64_t{1});
        }
      }
    }
  }
}

template <typename X, typename S, typename Q>
void QuantizeTyped(const QuantizePlan& plan, const void* x_raw, const void* scale_raw,
                   const void* zp_raw, void* y_raw) {
  const X* x = static_cast<const X*>(x_raw);
  const S* scale = static_cast<const S*>(scale_raw);
  ForEachScaleRun(plan.geometry, [&](int64_t s, int64_t begin, int64_t count) {
    const float sc = ToFloat(scale[s]);
    if constexpr (math::kIsFloat8<Q>) {
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
    if (n % 2 == 1) static_cast<uint8_t*>(y_raw)[n / 2] &= 0x0F;
  }
}

template <typename X, typename S>
void DequantizeTyped(const DequantizePlan& plan, const void* x_raw, const void* scale_raw,
                     const void* zp_raw, void* y_raw) {
  const S* scale = static_cast<const S*>(scale_raw);
  S* y = static_cast<S*>(y_raw);
  ForEachScaleRun(plan.geometry, [&](int64_t s, int64_t begin, int64_t count) {
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

// Reads one element of an int8/uint8 buffer of `dtype` as int32.
int32_t LoadInt8(DataType dtype, const void* p, int64_t i) {
  if (p == nullptr) return 0;
  return dtype == DataType::kInt8 ? static_cast<const int8_t*>(p)[i]
                                  : static_cast<const uint8_t*>(p)[i];
}

// Reads one element of a float/float16/bfloat16 buffer as float.
float LoadScale(DataType dtype, const void* p, int64_t i) {
  float scale = 0;
  math::VisitType(ScaleTypes{}, dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    scale = static_cast<float>(static_cast<const T*>(p)[i]);
  });
  return scale;
}

void StoreQuantized(DataType dtype, void* y, int64_t i, float v, int32_t zero_point) {
  if (dtype == DataType::kInt8) {
    static_cast<int8_t*>(y)[i] = SaturateRound<int8_t>(v, zero_point);
  } else {
    static_cast<uint8_t*>(y)[i] = SaturateRound<uint8_t>(v, zero_point);
  }
}

// acc[j] += sum_k (a[k] - a_zp) * (b[k, j] - b_zp[j]) for j < n; b row-major [k, n], b_zp
// indexed by j * b_zp_stride.
template <typename A, typename B>
void AccumulateRow(const A* a, int32_t a_zp, const B* b, const void* b_zp, DataType b_dtype,
                   const QuantParamIndex& b_param, int64_t b_batch, int64_t k, int64_t n,
                   int32_t* acc) {
  std::fill(acc, acc + n, 0);
  for (int64_t kk = 0; kk < k; ++kk) {
    const int32_t av = static_cast<int32_t>(a[kk]) - a_zp;
    if (av == 0) continue;
    const B* brow = b + kk * n;
    for (int64_t j = 0; j < n; ++j) acc[j] += av * static_cast<int32_t>(brow[j]);
  }
  // Subtract av * b_zp[j] summed over k: sum_k (a[k] - a_zp) * b_zp[j].
  if (b_zp == nullptr) return;
  int32_t a_sum = 0;
  for (int64_t kk = 0; kk < k; ++kk) a_sum += static_cast<int32_t>(a[kk]) - a_zp;
  for (int64_t j = 0; j < n; ++j) {
    acc[j] -= a_sum * LoadInt8(b_dtype, b_zp, b_param.At(b_batch, j));
  }
}

template <typename A, typename B>
void IntMatMulTyped(const IntMatMulPlan& plan, const QuantOperands& q, void* y,
                    std::span<int32_t> row) {
  const A* a = static_cast<const A*>(q.a);
  const B* b = static_cast<const B*>(q.b);
  const int64_t m = plan.m, k = plan.k, n = plan.n;
  const bool requantize = plan.y_dtype != DataType::kInt32;
  for (size_t batch = 0; batch < plan.a_batch.size(); ++batch) {
    const int64_t ab = plan.a_batch[batch], bb = plan.b_batch[batch];
    for (int64_t i = 0; i < m; ++i) {
      const int64_t out_row = static_cast<int64_t>(batch) * m + i;
      int32_t* acc = requantize ? row.data() : static_cast<int32_t*>(y) + out_row * n;
      const int32_t a_zp = LoadInt8(plan.a_dtype, q.a_zero_point, plan.a_param.At(ab, i));
      AccumulateRow(a + (ab * m + i) * k, a_zp, b + bb * k * n, q.b_zero_point, plan.b_dtype,
                    plan.b_param, bb, k, n, acc);
      if (!requantize) continue;
      const float a_scale = LoadScale(q.scale_dtype, q.a_scale, plan.a_param.At(ab, i));
      for (int64_t j = 0; j < n; ++j) {
        const float b_scale = LoadScale(q.scale_dtype, q.b_scale, plan.b_param.At(bb, j));
        const int64_t yp = j * plan.y_param_stride;
        const float multiplier = a_scale * b_scale / LoadScale(q.scale_dtype, q.y_scale, yp);
        StoreQuantized(plan.y_dtype, y, out_row * n + j, static_cast<float>(acc[j]) * multiplier,
                       LoadInt8(plan.y_dtype, q.y_zero_point, yp));
      }
    }
  }
}

template <typename X>
void Im2Col(const IntConvPlan& p, const X* x, int32_t x_zp, int32_t* columns) {
  const WindowGeometry& g = p.geometry;
  const size_t rank = p.input_spatial.size();
  const int64_t kernel_size = Product(g.kernel);
  const int64_t channels = p.in_channels / p.group;
  const int64_t in_pixels = Product(p.input_spatial);
  std::vector<int64_t> kidx(rank), oidx(rank);
  for (int64_t c = 0; c < channels; ++c) {
    const X* xc = x + c * in_pixels;
    for (int64_t kk = 0; kk < kernel_size; ++kk) {
      int64_t rem = kk;
      for (size_t d = rank; d-- > 0;) {
        kidx[d] = rem % g.kernel[d];
        rem /= g.kernel[d];
      }
      int32_t* out = columns + (c * kernel_size + kk) * p.output_pixels;
      std::fill(oidx.begin(), oidx.end(), 0);
      for (int64_t o = 0; o < p.output_pixels; ++o) {
        int64_t offset = 0;
        bool inside = true;
        for (size_t d = 0; d < rank; ++d) {
          const int64_t pos = oidx[d] * g.strides[d] - g.pads_begin[d] + kidx[d] * g.dilations[d];
          if (pos < 0 || pos >= p.input_spatial[d]) {
            inside = false;
            break;
          }
          offset = offset * p.input_spatial[d] + pos;
        }
        out[o] = inside ? static_cast<int32_t>(xc[offset]) - x_zp : 0;
        for (size_t d = rank; d-- > 0;) {
          if (++oidx[d] < g.output[d]) break;
          oidx[d] = 0;
        }
      }
    }
  }
}

template <typename X, typename W>
void IntConvTyped(const IntConvPlan& p, const QuantOperands& q, void* y,
                  std::span<std::byte> workspace) {
  const X* x = static_cast<const X*>(q.a);
  const W* w = static_cast<const W*>(q.b);
  int32_t* columns = reinterpret_cast<int32_t*>(workspace.data());
  int32_t* acc_row = columns + p.columns_rows * p.output_pixels;
  const bool requantize = p.y_dtype != DataType::kInt32;
  const int32_t x_zp = LoadInt8(p.x_dtype, q.a_zero_point, 0);
  const int64_t in_pixels = Product(p.input_spatial);
  const int64_t channels_per_group = p.in_channels / p.group;
  const int64_t out_per_group = p.out_channels / p.group;
  float x_scale = 0, y_scale = 1;
  int32_t y_zp = 0;
  if (requantize) {
    x_scale = LoadScale(q.scale_dtype, q.a_scale, 0);
    y_scale = LoadScale(q.scale_dtype, q.y_scale, 0);
    y_zp = LoadInt8(p.y_dtype, q.y_zero_point, 0);
  }
  for (int64_t n = 0; n < p.batch; ++n) {
    for (int64_t g = 0; g < p.group; ++g) {
      Im2Col(p, x + (n * p.in_channels + g * channels_per_group) * in_pixels, x_zp, columns);
      for (int64_t mm = 0; mm < out_per_group; ++mm) {
        const int64_t m = g * out_per_group + mm;
        const int64_t out_offset = (n * p.out_channels + m) * p.output_pixels;
        int32_t* acc = requantize ? acc_row : static_cast<int32_t*>(y) + out_offset;
        std::fill(acc, acc + p.output_pixels, 0);
        const int32_t w_zp = LoadInt8(p.w_dtype, q.b_zero_point, m * p.w_param_stride);
        const W* wm = w + m * p.columns_rows;
        for (int64_t r = 0; r < p.columns_rows; ++r) {
          const int32_t wv = static_cast<int32_t>(wm[r]) - w_zp;
          if (wv == 0) continue;
          const int32_t* col = columns + r * p.output_pixels;
          for (int64_t o = 0; o < p.output_pixels; ++o) acc[o] += wv * col[o];
        }
        if (!requantize) continue;
        const int32_t bias = q.bias != nullptr ? q.bias[m] : 0;
        const float multiplier =
            x_scale * LoadScale(q.scale_dtype, q.b_scale, m * p.w_scale_stride) / y_scale;
        for (int64_t o = 0; o < p.output_pixels; ++o) {
          StoreQuantized(p.y_dtype, y, out_offset + o,
                         static_cast<float>(acc[o] + bias) * multiplier, y_zp);
        }
      }
    }
  }
}

std::string Dims(std::span<const int64_t> dims) { return ShapeToString(Shape(dims.begin(), dims.end())); }

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
      return MakeStatus(StatusCode::kInvalidArgument, op, ": scale has shape ", Dims(scale_shape),
                        ", expected one element or [", g.axis_dim, "] (x shape ", Dims(x_shape),
                        ", axis ", axis, ")");
    }
    g.mode = QuantGeometry::Mode::kPerAxis;
    return g;
  }
  Shape expected(x_shape.begin(), x_shape.end());
  expected[a] = (g.axis_dim + block_size - 1) / block_size;
  if (!std::equal(scale_shape.begin(), scale_shape.end(), expected.begin(), expected.end())) {
    return MakeStatus(StatusCode::kInvalidArgument, op, ": scale has shape ", Dims(scale_shape),
                      ", expected ", ShapeToString(expected), " for x ", Dims(x_shape),
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
              void* y) {
  plan.fn(plan, x, scale, zero_point, y);
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
                const void* zero_point, void* y) {
  plan.fn(plan, x, scale, zero_point, y);
}

void DynamicQuantizeLinear(const float* x, int64_t count, uint8_t* y, float* scale,
                           uint8_t* zero_point) {
  float lo = 0, hi = 0;
  for (int64_t i = 0; i < count; ++i) {
    lo = std::min(lo, x[i]);
    hi = std::max(hi, x[i]);
  }
  const float s = (hi - lo) / 255.0f;
  *scale = s;
  if (s == 0) {
    *zero_point = 0;
    std::fill(y, y + count, uint8_t{0});
    return;
  }
  const uint8_t zp = SaturateRound<uint8_t>((0.0f - lo) / s, 0);
  *zero_point = zp;
  for (int64_t i = 0; i < count; ++i) y[i] = SaturateRound<uint8_t>(x[i] / s, zp);
}

Result<IntMatMulPlan> PrepareIntMatMul(std::string_view op, DataType a_dtype, DataType b_dtype,
                                       std::span<const int64_t> a_shape,
                                       std::span<const int64_t> b_shape,
                                       std::span<const int64_t> a_param_shape,
                                       std::span<const int64_t> b_param_shape) {
  IntMatMulPlan plan;
  plan.a_dtype = a_dtype;
  plan.b_dtype = b_dtype;
  for (DataType t : {a_dtype, b_dtype}) {
    if (t != DataType::kInt8 && t != DataType::kUint8) {
      return MakeStatus(StatusCode::kUnsupported, op, ": operand type ", DataTypeName(t),
                        " is not supported (int8 or uint8)");
    }
  }
  if (a_shape.empty() || b_shape.empty()) {
    return MakeStatus(StatusCode::kInvalidArgument, op, ": operands of rank 0 (A ",
                      Dims(a_shape), ", B ", Dims(b_shape), "); MatMul needs rank >= 1");
  }
  Shape as(a_shape.begin(), a_shape.end()), bs(b_shape.begin(), b_shape.end());
  const bool a_vector = as.size() == 1, b_vector = bs.size() == 1;
  if (a_vector) as.insert(as.begin(), 1);
  if (b_vector) bs.push_back(1);
  plan.m = as[as.size() - 2];
  plan.k = as.back();
  plan.n = bs.back();
  if (bs[bs.size() - 2] != plan.k) {
    return MakeStatus(StatusCode::kInvalidArgument, op, ": A ", Dims(a_shape), " and B ",
                      Dims(b_shape), " disagree on K (", plan.k, " vs ", bs[bs.size() - 2], ")");
  }
  Shape ab(as.begin(), as.end() - 2), bb(bs.begin(), bs.end() - 2);
  const size_t rank = std::max(ab.size(), bb.size());
  Shape ap(rank - ab.size(), 1), bp(rank - bb.size(), 1);
  ap.insert(ap.end(), ab.begin(), ab.end());
  bp.insert(bp.end(), bb.begin(), bb.end());
  Shape batch(rank);
  for (size_t d = 0; d < rank; ++d) {
    if (ap[d] != bp[d] && ap[d] != 1 && bp[d] != 1) {
      return MakeStatus(StatusCode::kInvalidArgument, op, ": batch dims of A ", Dims(a_shape),
                        " and B ", Dims(b_shape), " do not broadcast");
    }
    batch[d] = ap[d] == 1 ? bp[d] : ap[d];
  }
  const int64_t batches = Product(batch);
  for (int64_t i = 0; i < batches; ++i) {
    int64_t rem = i, ai = 0, bi = 0, a_stride = 1, b_stride = 1;
    for (size_t d = rank; d-- > 0;) {
      const int64_t idx = rem % batch[d];
      rem /= batch[d];
      ai += (ap[d] == 1 ? 0 : idx) * a_stride;
      bi += (bp[d] == 1 ? 0 : idx) * b_stride;
      a_stride *= ap[d];
      b_stride *= bp[d];
    }
    plan.a_batch.push_back(ai);
    plan.b_batch.push_back(bi);
  }
  plan.output_shape = batch;
  if (!a_vector) plan.output_shape.push_back(plan.m);
  if (!b_vector) plan.output_shape.push_back(plan.n);

  const int64_t a_params = Product(a_param_shape), b_params = Product(b_param_shape);
  const int64_t a_batches = Product(ab), b_batches = Product(bb);
  if (a_params == plan.m && a_params != 1 && a_param_shape.size() <= 1) {
    plan.a_param = {0, 1};
  } else if (a_params == a_batches * plan.m && a_params != 1 && a_param_shape.size() == as.size() &&
             a_param_shape.back() == 1) {
    plan.a_param = {plan.m, 1};
  } else if (a_params != 1) {
    return MakeStatus(StatusCode::kInvalidArgument, op, ": A's zero point/scale has shape ",
                      Dims(a_param_shape), "; expected one element, [", plan.m,
                      "] or A's batch dims with [", plan.m, ", 1] (A ", Dims(a_shape), ")");
  }
  if (b_params == plan.n && b_params != 1 && b_param_shape.size() <= 1) {
    plan.b_param = {0, 1};
  } else if (b_params == b_batches * plan.n && b_params != 1 &&
             b_param_shape.size() == bs.size() && b_param_shape[b_param_shape.size() - 2] == 1) {
    plan.b_param = {plan.n, 1};
  } else if (b_params != 1) {
    return MakeStatus(StatusCode::kInvalidArgument, op, ": B's zero point/scale has shape ",
                      Dims(b_param_shape), "; expected one element, [", plan.n,
                      "] or B's batch dims with [1, ", plan.n, "] (B ", Dims(b_shape), ")");
  }
  return plan;
}

void IntMatMul(const IntMatMulPlan& plan, const QuantOperands& operands, void* y,
               std::span<int32_t> row) {
  const auto run = [&](auto at) {
    using A = typename decltype(at)::type;
    if (plan.b_dtype == DataType::kInt8) {
      IntMatMulTyped<A, int8_t>(plan, operands, y, row);
    } else {
      IntMatMulTyped<A, uint8_t>(plan, operands, y, row);
    }
  };
  if (plan.a_dtype == DataType::kInt8) {
    run(TypeTag<int8_t>{});
  } else {
    run(TypeTag<uint8_t>{});
  }
}

Result<IntConvPlan> PrepareIntConv(std::string_view op, DataType x_dtype, DataType w_dtype,
                                   DataType y_dtype, std::span<const int64_t> x_shape,
                                   std::span<const int64_t> w_shape,
                                   std::span<const int64_t> w_zero_point_shape,
                                   std::span<const int64_t> w_scale_shape,
                                   const IntConvAttributes& attributes) {
  IntConvPlan p;
  p.x_dtype = x_dtype;
  p.w_dtype = w_dtype;
  p.y_dtype = y_dtype;
  for (DataType t : {x_dtype, w_dtype}) {
    if (t != DataType::kInt8 && t != DataType::kUint8) {
      return MakeStatus(StatusCode::kUnsupported, op, ": input type ", DataTypeName(t),
                        " is not supported (int8 or uint8)");
    }
  }
  if (x_shape.size() < 3 || w_shape.size() != x_shape.size()) {
    return MakeStatus(StatusCode::kInvalidArgument, op, ": X ", Dims(x_shape), " and W ",
                      Dims(w_shape), " must have the same rank >= 3 ([N, C, D...], [M, C/group, "
                      "k...])");
  }
  p.group = attributes.group;
  p.batch = x_shape[0];
  p.in_channels = x_shape[1];
  p.out_channels = w_shape[0];
  if (p.group < 1 || p.in_channels != w_shape[1] * p.group || p.out_channels % p.group != 0) {
    return MakeStatus(StatusCode::kInvalidArgument, op, ": X ", Dims(x_shape), ", W ",
                      Dims(w_shape), " and group ", p.group,
                      " disagree (need C == W[1] * group and M divisible by group)");
  }
  const std::span<const int64_t> w_spatial = w_shape.subspan(2);
  if (!attributes.kernel_shape.empty() &&
      !std::equal(attributes.kernel_shape.begin(), attributes.kernel_shape.end(),
                  w_spatial.begin(), w_spatial.end())) {
    return MakeStatus(StatusCode::kInvalidArgument, op, ": attribute 'kernel_shape' ",
                      ShapeToString(attributes.kernel_shape), " differs from W's spatial dims ",
                      Dims(w_spatial));
  }
  p.input_spatial.assign(x_shape.begin() + 2, x_shape.end());
  WindowAttributes window;
  window.auto_pad = attributes.auto_pad;
  window.strides = attributes.strides;
  window.dilations = attributes.dilations;
  window.pads = attributes.pads;
  NXRT_ASSIGN_OR_RETURN(p.geometry,
                        ComputeWindowGeometry(op, p.input_spatial, w_spatial, window));
  // Per tensor (one element) or per output channel ([M]): the stride of the channel index.
  const auto channel_stride = [&](std::span<const int64_t> shape,
                                  const char* what) -> Result<int64_t> {
    const int64_t count = Product(shape);
    if (count == p.out_channels && count != 1 && shape.size() == 1) return int64_t{1};
    if (count == 1) return int64_t{0};
    return MakeStatus(StatusCode::kInvalidArgument, op, ": ", what, " has shape ", Dims(shape),
                      "; expected one element or [", p.out_channels, "]");
  };
  NXRT_ASSIGN_OR_RETURN(p.w_param_stride, channel_stride(w_zero_point_shape, "w zero point"));
  NXRT_ASSIGN_OR_RETURN(p.w_scale_stride, channel_stride(w_scale_shape, "w scale"));
  p.output_shape = {p.batch, p.out_channels};
  p.output_shape.insert(p.output_shape.end(), p.geometry.output.begin(), p.geometry.output.end());
  p.columns_rows = (p.in_channels / p.group) * Product(p.geometry.kernel);
  p.output_pixels = Product(p.geometry.output);
  p.workspace_bytes =
      static_cast<size_t>((p.columns_rows + 1) * p.output_pixels) * sizeof(int32_t);
  return p;
}

void IntConv(const IntConvPlan& plan, const QuantOperands& operands, void* y,
             std::span<std::byte> workspace) {
  const auto run = [&](auto xt) {
    using X = typename decltype(xt)::type;
    if (plan.w_dtype == DataType::kInt8) {
      IntConvTyped<X, int8_t>(plan, operands, y, workspace);
    } else {
      IntConvTyped<X, uint8_t>(plan, operands, y, workspace);
    }
  };
  if (plan.x_dtype == DataType::kInt8) {
    run(TypeTag<int8_t>{});
  } else {
    run(TypeTag<uint8_t>{});
  }
}

}  // namespace nxrt::cpu::nn
