// ep/cpu/math/contrib/qlinear.h: the com.microsoft quantized elementwise ops ONNX Runtime's
// quantization tool emits: QLinearAdd, QLinearMul, QLinearSigmoid, QLinearGlobalAveragePool,
// QLinearConcat (ONNX Runtime's docs/ContribOperators.md), int8 or uint8 with per-tensor scales
// and zero points.
//
// Layer: nxrt_cpu_math (framework-free; no IR, no EP API).
//
// Every op dequantizes (x - zero_point) * scale in float, computes in float and quantizes the
// result as QuantizeLinear does: round half to even of value / y_scale, plus y_zero_point,
// saturated to the type's range.
//   QLinearAdd / QLinearMul: C = A + B / A * B with NumPy broadcasting.
//   QLinearSigmoid: Y = sigmoid(X).
//   QLinearGlobalAveragePool: Y[n, c] = mean over the spatial dims of X [N, C, ...] (or of
//     X [N, ..., C] when channels_last), Y of X's rank with spatial dims 1.
//   QLinearConcat: Y = Concat(X_i) along `axis`, each X_i requantized from its own scale and
//     zero point to Y's.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "ep/cpu/math/broadcast.h"
#include "nxrt/data_type.h"
#include "nxrt/status.h"
#include "nxrt/tensor.h"

namespace nxrt::cpu::contrib {

// One scale and zero point (the zero point read as int32 from an int8 or uint8 scalar).
struct QuantParams {
  float scale = 1;
  int32_t zero_point = 0;
};

// round-half-even(v / y.scale) + y.zero_point, saturated to int8 (`is_signed`) or uint8.
int32_t QuantizeValue(float v, const QuantParams& y, bool is_signed);

enum class QLinearBinaryKind { kAdd, kMul };

struct QLinearBinaryPlan {
  QLinearBinaryKind kind = QLinearBinaryKind::kAdd;
  bool is_signed = false;
  Shape output_shape;
  math::BroadcastGeometry geometry;
};

// Errors: the broadcast's (kInvalidArgument naming both shapes).
Result<QLinearBinaryPlan> PrepareQLinearBinary(QLinearBinaryKind kind, bool is_signed,
                                               const Shape& a_shape, const Shape& b_shape);

void QLinearBinary(const QLinearBinaryPlan& plan, const void* a, const QuantParams& a_params,
                   const void* b, const QuantParams& b_params, const QuantParams& c_params,
                   void* c);

// QLinearSigmoid over `count` elements.
void QLinearSigmoid(bool is_signed, const void* x, const QuantParams& x_params,
                    const QuantParams& y_params, void* y, int64_t count);

// QLinearGlobalAveragePool of X (`shape`, rank >= 3). Errors: rank below 3.
Result<Shape> QLinearGlobalAveragePoolShape(std::span<const int64_t> shape, bool channels_last);
void QLinearGlobalAveragePool(bool is_signed, const void* x, std::span<const int64_t> shape,
                              bool channels_last, const QuantParams& x_params,
                              const QuantParams& y_params, void* y);

// QLinearConcat along `axis` (normalised) of inputs with their params into y. Shapes were
// checked by the caller (equal but along axis).
void QLinearConcat(bool is_signed, std::span<const void* const> inputs,
                   std::span<const Shape> shapes, std::span<const QuantParams> params,
                   int64_t axis, const QuantParams& y_params, void* y);

}  // namespace nxrt::cpu::contrib
