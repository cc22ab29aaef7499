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
// DynamicQuantizeLinear does (math/quant/quant.h), giving a_scale and a_zero_point.
#pragma once

#include <cstdint>
#include <optional>
#include <span>

#include "nxrt/data_type.h"
#include "nxrt/status.h"
#include "nxrt/tensor.h"

namespace nxrt::cpu::contrib {

struct IntegerToFloatPlan {
  int64_t rows = 0, k = 0, n = 0;
  bool a_signed = false, b_signed = false;
  bool b_scale_per_column = false;
  bool b_zero_point_per_column = false;
  Shape output_shape;
};

// `*_count` are element counts of the optional inputs (nullopt when absent). Errors
// (kInvalidArgument) name the input and the counts: B not 2-D, K mismatch, an A scale or zero
// point of more than one element, a B scale or zero point neither 1 nor N, a bias not N.
Result<IntegerToFloatPlan> PrepareIntegerToFloat(
    std::string_view op, DataType a_dtype, DataType b_dtype, std::span<const int64_t> a_shape,
    std::span<const int64_t> b_shape, int64_t a_scale_count, int64_t b_scale_count,
    std::optional<int64_t> a_zero_point_count, std::optional<int64_t> b_zero_point_count,
    std::optional<int64_t> bias_count);

struct IntegerToFloatOperands {
  const void* a = nullptr;
  float a_scale = 1;
  int32_t a_zero_point = 0;
  const void* b = nullptr;
  const float* b_scale = nullptr;
  const void* b_zero_point = nullptr;  // null: 0
  const float* bias = nullptr;
};

// Rows [begin, end) of Y.
void IntegerToFloatRows(const IntegerToFloatPlan& plan, const IntegerToFloatOperands& operands,
                        float* y, int64_t begin, int64_t end);

}  // namespace nxrt::cpu::contrib
