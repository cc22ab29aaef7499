// ep/cpu/math/contrib/quant_matmul.h: com.microsoft MatMulIntegerToFloat and
// DynamicQuantizeMatMul (ONNX Runtime's docs/ContribOperators.md): an 8-bit integer product
// scaled back to float.
//
// Layer: nxrt_cpu_math (framework-free; no IR, no EP API).
//
//   Y[r, n] = a_scale * b_scale[n] * sum_k (A[r, k] - a_zero_point) * (B[k, n] - b_zero_point[n])
//             (+ bias[n])
// A int8/uint8 [..., K] (r runs over its leading dims), B int8/uint8 [K, N]; a_scale and
// a_zero_point per tensor; b_scale and b_zero_point per tensor or per column ([N]); zero points
// default 0. DynamicQuantizeMatMul first quantizes a float A to uint8 per tensor exactly as
// DynamicQuantizeLinear does (math/quant/quant.h), giving a_scale and a_zero_point. The product is
// math/quant/quant.h's integer MatMul with a float output: ONNX Runtime's sums (uint8 A times int8
// B adds pairs of products into a saturating int16 on CPUs without VNNI, as MLAS does) and its
// float(sum) * (a_scale * b_scale[n]) + bias[n].
#pragma once

#include <cstdint>
#include <optional>
#include <span>

#include "ep/cpu/math/quant/quant.h"
#include "nxrt/data_type.h"
#include "nxrt/status.h"
#include "nxrt/tensor.h"

namespace nxrt::cpu::contrib {

struct IntegerToFloatPlan {
  int64_t rows = 0, k = 0, n = 0;
  bool b_scale_per_column = false;
  bool b_zero_point_per_column = false;
  Shape output_shape;
  // A [rows, K] times B [K, N] with a float output; its b_param indexes per column when either the
  // b scale or the b zero point is per column (IntMatMul reads both through it, so the caller
  // widens the other to N values).
  nn::IntMatMulPlan product;
};

// `*_count` are element counts of the optional inputs (nullopt when absent). Errors
// (kInvalidArgument) name the input and the counts: B not 2-D, K mismatch, an A scale or zero
// point of more than one element, a B scale or zero point neither 1 nor N, a bias not N; and the
// integer product's (quant.h).
Result<IntegerToFloatPlan> PrepareIntegerToFloat(
    std::string_view op, DataType a_dtype, DataType b_dtype, std::span<const int64_t> a_shape,
    std::span<const int64_t> b_shape, int64_t a_scale_count, int64_t b_scale_count,
    std::optional<int64_t> a_zero_point_count, std::optional<int64_t> b_zero_point_count,
    std::optional<int64_t> bias_count, const nn::IntProductOptions& options);

}  // namespace nxrt::cpu::contrib
