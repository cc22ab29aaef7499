// ep/cpu/nn/matmul.h: MatMul and Gemm (ONNX) for the CPU EP: oneDNN matmul for float, a plain
// reference for the other dtypes.
//
// Layer: nxrt_cpu_nn (framework-free; no IR, no EP API). Prepare checks shapes, computes the
// output shape and, for float, creates the oneDNN primitive (kept in the plan and shared by its
// copies); compute only executes it on the given buffers. A plan may run from several threads
// at once. When oneDNN cannot take a float problem (too many dims, an unimplemented case), the
// plan falls back to the reference loops, so float always works.
//
// Reference dtypes: double and float accumulate in double, float16/bfloat16 in float, integer
// types in 64-bit wrap-around arithmetic (results wrap like the element type).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "nxrt/data_type.h"
#include "nxrt/status.h"
#include "nxrt/tensor.h"

namespace nxrt::cpu::nn {

// A created oneDNN matmul primitive; defined in matmul.cpp.
struct DnnlMatMulPrimitive;

struct MatMulPlan {
  DataType dtype = DataType::kUndefined;
  Shape output_shape;
  // Internal: per output batch, the element offsets of its A and B matrices; sizes M, N, K.
  int64_t m = 0;
  int64_t n = 0;
  int64_t k = 0;
  std::vector<int64_t> a_offsets;
  std::vector<int64_t> b_offsets;
  std::shared_ptr<const DnnlMatMulPrimitive> dnnl;  // null: reference loops
};

// MatMul (ONNX opset 1, 9, 13): NumPy matmul. A is [..., M, K] (rank 1: [K], promoted to [1, K]
// and the M dim dropped from the output), B is [..., K, N] (rank 1: [K] -> [K, 1], N dropped);
// batch dims broadcast. dtypes: float (oneDNN), double, float16, bfloat16, int32, int64, uint32,
// uint64. Zero-sized M, N or batch give an empty output; K = 0 gives zeros.
// Errors: kInvalidArgument printing both shapes when K differs or batch dims do not broadcast;
// kUnsupported for other dtypes.
Result<MatMulPlan> PrepareMatMul(DataType dtype, std::span<const int64_t> a_shape,
                                 std::span<const int64_t> b_shape);

// y (contiguous, output_shape) = a @ b.
Status MatMul(const MatMulPlan& plan, const void* a, const void* b, void* y);

struct GemmAttributes {
  bool trans_a = false;
  bool trans_b = false;
  float alpha = 1.0f;
  float beta = 1.0f;
};

// A created oneDNN matmul primitive with Gemm's scales; defined in matmul.cpp.
struct DnnlGemmPrimitive;

struct GemmPlan {
  DataType dtype = DataType::kUndefined;
  GemmAttributes attributes;
  Shape output_shape;  // [M, N]
  // Internal: sizes, whether C is used, and the strides that broadcast C to [M, N].
  int64_t m = 0;
  int64_t n = 0;
  int64_t k = 0;
  bool has_c = false;
  std::vector<int64_t> c_strides;
  std::shared_ptr<const DnnlGemmPrimitive> dnnl;  // null: reference loops
};

// Gemm (ONNX opset 1, 6, 7, 9, 11, 13): Y = alpha * A' @ B' + beta * C with A' = transpose(A) if
// trans_a, B' likewise. A and B have rank 2; `c_shape` (nullopt: no C; [] is a scalar C) must
// broadcast unidirectionally to [M, N]. dtypes as MatMul.
// Errors: kInvalidArgument printing the shapes (and the trans flags) when they do not fit.
Result<GemmPlan> PrepareGemm(DataType dtype, std::span<const int64_t> a_shape,
                             std::span<const int64_t> b_shape,
                             std::optional<std::span<const int64_t>> c_shape,
                             const GemmAttributes& attributes);

// y (contiguous [M, N]); `c` is ignored (may be null) when the plan has no C.
Status Gemm(const GemmPlan& plan, const void* a, const void* b, const void* c, void* y);

}  // namespace nxrt::cpu::nn
