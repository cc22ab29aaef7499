// ep/cpu/math/contrib/qlinear.h: the com.microsoft quantized elementwise ops ONNX Runtime's
// quantization tool emits: QLinearAdd, QLinearMul, QLinearSigmoid, QLinearGlobalAveragePool,
// QLinearConcat (ONNX Runtime's docs/ContribOperators.md), int8 or uint8 with per-tensor scales
// and zero points.
//
// Layer: nxrt_cpu_math (framework-free; no IR, no EP API).
//
// Each op computes in float and quantizes its result as ONNX Runtime's MLAS does on x86
// (math/quant/quantize_avx2.h): round half to even, plus the output zero point, saturated to the
// type's range (a NaN becomes the type's minimum); QLinearAdd and QLinearMul fold the zero point
// into the float value before rounding, as MLAS's QLinearAdd does:
//   QLinearAdd: C = (A - a_zp) * (a_scale / c_scale) + (B - b_zp) * (b_scale / c_scale) + c_zp,
//     NumPy broadcasting, as fused multiply-adds A * ra + (B * rb + (c_zp - (a_zp * ra +
//     b_zp * rb))).
//   QLinearMul: C = (A - a_zp) * (B - b_zp) * (a_scale * b_scale / c_scale) + c_zp (fused).
//   QLinearSigmoid: Y = sigmoid(X), through a 256-entry table of codes.
//   QLinearGlobalAveragePool: Y[n, c] = (sum over the spatial dims of X [N, C, ...] (or of
//     X [N, ..., C] when channels_last) - x_zp * size) * (x_scale / (y_scale * size)), Y of X's
//     rank with spatial dims 1.
//   QLinearConcat: Y = Concat(X_i) along `axis`, each X_i requantized from its own scale and
//     zero point to Y's through a 256-entry table (copied when they are Y's).
// The compute functions take a range of the output (elements, or QLinearGlobalAveragePool's
// [N * C] values), so that callers may split an output over threads; AVX2 loops when the CPU has
// them, their results the scalar loops' bit for bit.
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

// Output elements [begin, end) of C.
void QLinearBinary(const QLinearBinaryPlan& plan, const void* a, const QuantParams& a_params,
                   const void* b, const QuantParams& b_params, const QuantParams& c_params,
                   void* c, int64_t begin, int64_t end);

// QLinearSigmoid over elements [begin, end).
void QLinearSigmoid(bool is_signed, const void* x, const QuantParams& x_params,
                    const QuantParams& y_params, void* y, int64_t begin, int64_t end);

// QLinearGlobalAveragePool of X (`shape`, rank >= 3). Errors: rank below 3.
Result<Shape> QLinearGlobalAveragePoolShape(std::span<const int64_t> shape, bool channels_last);
// Outputs [begin, end) of the N * C.
void QLinearGlobalAveragePool(bool is_signed, const void* x, std::span<const int64_t> shape,
                              bool channels_last, const QuantParams& x_params,
                              const QuantParams& y_params, void* y, int64_t begin, int64_t end);

// QLinearConcat along `axis` (normalised) of inputs with their params into output elements
// [begin, end) of y. Shapes were checked by the caller (equal but along axis).
void QLinearConcat(bool is_signed, std::span<const void* const> inputs,
                   std::span<const Shape> shapes, std::span<const QuantParams> params,
                   int64_t axis, const QuantParams& y_params, void* y, int64_t begin, int64_t end);

}  // namespace nxrt::cpu::contrib
