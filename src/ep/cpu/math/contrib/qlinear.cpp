// ep/cpu/math/contrib/qlinear.cpp: see qlinear.h.
#include "ep/cpu/math/contrib/qlinear.h"

#include <algorithm>
#include <cmath>

namespace nxrt::cpu::contrib {
namespace {

inline float Dequantize(const void* p, int64_t i, bool is_signed, const QuantParams& q) {
  const int32_t v = is_signed ? static_cast<const int8_t*>(p)[i] : static_cast<const uint8_t*>(p)[i];
  return static_cast<float>(v - q.zero_point) * q.scale;
}

inline void Store(void* p, int64_t i, bool is_signed, int32_t v) {
  if (is_signed) {
    static_cast<int8_t*>(p)[i] = static_cast<int8_t>(v);
  } else {
    static_cast<uint8_t*>(p)[i] = static_cast<uint8_t>(v);
  }
}

}  // namespace

int32_t QuantizeValue(float v, const QuantParams& y, bool is_signed) {
  const float r = std::nearbyint(v / y.scale) + static_cast<float>(y.zero_point);
  const float lo = is_signed ? -128.0f : 0.0f, hi = is_signed ? 127.0f : 255.0f;
  if (std::isnan(r)) return y.zero_point;
  return static_cast<int32_t>(std::clamp(r, lo, hi));
}

Result<QLinearBinaryPlan> PrepareQLinearBinary(QLinearBinaryKind kind, bool is_signed,
                                               const Shape& a_shape, const Shape& b_shape) {
  QLinearBinaryPlan p;
  p.kind = kind;
  p.is_signed = is_signed;
  const char* op = kind == QLinearBinaryKind::kAdd ? "QLinearAdd" : "QLinearMul";
  NXRT_ASSIGN_OR_RETURN(p.output_shape, math::BroadcastShapes(op, a_shape, b_shape));
  const Shape shapes[] = {a_shape, b_shape};
  NXRT_ASSIGN_OR_RETURN(p.geometry, math::MakeBroadcastGeometry(op, p.output_shape, shapes));
  return p;
}

void QLinearBinary(const QLinearBinaryPlan& p, const void* a, const QuantParams& a_params,
                   const void* b, const QuantParams& b_params, const QuantParams& c_params,
                   void* c) {
  int64_t out = 0;
  const int64_t sa = p.geometry.inner_stride(0), sb = p.geometry.inner_stride(1);
  math::ForEachRun<2>(p.geometry, [&](const std::array<int64_t, 2>& offsets, int64_t n) {
    for (int64_t i = 0; i < n; ++i, ++out) {
      const float x = Dequantize(a, offsets[0] + i * sa, p.is_signed, a_params);
      const float y = Dequantize(b, offsets[1] + i * sb, p.is_signed, b_params);
      const float v = p.kind == QLinearBinaryKind::kAdd ? x + y : x * y;
      Store(c, out, p.is_signed, QuantizeValue(v, c_params, p.is_signed));
    }
  });
}

void QLinearSigmoid(bool is_signed, const void* x, const QuantParams& x_params,
                    const QuantParams& y_params, void* y, int64_t count) {
  // 256 inputs: one table.
  int32_t table[256];
  for (int32_t code = 0; code < 256; ++code) {
    const int32_t value = is_signed ? code - 128 : code;
    const float v = static_cast<float>(value - x_params.zero_point) * x_params.scale;
    table[code] = QuantizeValue(1.0f / (1.0f + std::exp(-v)), y_params, is_signed);
  }
  for (int64_t i = 0; i < count; ++i) {
    const int32_t code = is_signed ? static_cast<const int8_t*>(x)[i] + 128
                                   : static_cast<const uint8_t*>(x)[i];
    Store(y, i, is_signed, table[code]);
  }
}

Result<Shape> QLinearGlobalAveragePoolShape(std::span<const int64_t> shape, bool channels_last) {
  if (shape.size() < 3) {
    return MakeStatus(StatusCode::kInvalidArgument, "QLinearGlobalAveragePool: X has shape ",
                      ShapeToString(shape), "; expected rank >= 3 ([N, C, spatial...] or "
                      "[N, spatial..., C] with channels_last)");
  }
  Shape out(shape.size(), 1);
  out[0] = shape[0];
  out[channels_last ? shape.size() - 1 : 1] = channels_last ? shape.back() : shape[1];
  return out;
}

void QLinearGlobalAveragePool(bool is_signed, const void* x, std::span<const int64_t> shape,
                              bool channels_last, const QuantParams& x_params,
                              const QuantParams& y_params, void* y) {
  const int64_t n = shape[0], c = channels_last ? shape.back() : shape[1];
  int64_t spatial = 1;
  for (size_t i = 1; i < shape.size(); ++i) spatial *= shape[i];
  spatial /= std::max<int64_t>(c, 1);
  for (int64_t b = 0; b < n; ++b) {
    for (int64_t ch = 0; ch < c; ++ch) {
      int64_t sum = 0;
      for (int64_t s = 0; s < spatial; ++s) {
        const int64_t i = channels_last ? (b * spatial + s) * c + ch : (b * c + ch) * spatial + s;
        sum += is_signed ? static_cast<const int8_t*>(x)[i] : static_cast<const uint8_t*>(x)[i];
      }
      const float mean = static_cast<float>(sum - x_params.zero_point * spatial) * x_params.scale /
                         static_cast<float>(spatial);
      Store(y, b * c + ch, is_signed, QuantizeValue(mean, y_params, is_signed));
    }
  }
}

void QLinearConcat(bool is_signed, std::span<const void* const> inputs,
                   std::span<const Shape> shapes, std::span<const QuantParams> params,
                   int64_t axis, const QuantParams& y_params, void* y) {
  const Shape& first = shapes[0];
  int64_t outer = 1, inner = 1, total_axis = 0;
  for (int64_t i = 0; i < axis; ++i) outer *= first[static_cast<size_t>(i)];
  for (size_t i = static_cast<size_t>(axis) + 1; i < first.size(); ++i) inner *= first[i];
  for (const Shape& s : shapes) total_axis += s[static_cast<size_t>(axis)];
  int64_t offset = 0;
  for (size_t k = 0; k < inputs.size(); ++k) {
    const int64_t len = shapes[k][static_cast<size_t>(axis)] * inner;
    const bool same = params[k].scale == y_params.scale &&
                      params[k].zero_point == y_params.zero_point;
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t i = 0; i < len; ++i) {
        const int64_t src = o * len + i, dst = o * total_axis * inner + offset + i;
        if (same) {
          Store(y, dst, is_signed,
                is_signed ? static_cast<const int8_t*>(inputs[k])[src]
                          : static_cast<const uint8_t*>(inputs[k])[src]);
        } else {
          Store(y, dst, is_signed,
                QuantizeValue(Dequantize(inputs[k], src, is_signed, params[k]), y_params,
                              is_signed));
        }
      }
    }
    offset += len;
  }
}

}  // namespace nxrt::cpu::contrib
