// ep/cpu/math/contrib/matmul_nbits.h: com.microsoft MatMulNBits, the product of a float matrix
// with a block-quantized 4- or 8-bit weight matrix (ONNX Runtime's docs/ContribOperators.md).
//
// Layer: nxrt_cpu_math (framework-free; no IR, no EP API).
//
// Semantics: A [..., K] float; the weight W [K, N] is stored transposed and quantized in blocks of
// `block_size` (a power of two >= 16) along K: B uint8 [N, k_blocks, blob_size] with
// k_blocks = ceil(K / block_size) and blob_size = block_size * bits / 8, element k of column n at
// bit offset bits * (k % block_size) of block k / block_size (4 bits: the low nibble first).
// scales [N, k_blocks] (float); zero points either packed like B (uint8 [N, ceil(k_blocks * bits /
// 8)]) or unpacked float [N, k_blocks], and 2^(bits - 1) when absent. g_idx (int32 [K], deprecated
// by ORT but still read) gives the block of the scale and zero point of each k instead of
// k / block_size. Then
//   W[k, n] = (q[n, k] - zero_point[n, g(k)]) * scale[n, g(k)],  Y = A @ W (+ bias [N]).
// Y is [..., N]. ONNX Runtime 1.30's CPU EP, the oracle, does not apply packed uint8 zero points
// when a g_idx is given (it uses 2^(bits - 1)); the kernel glue does the same
// (kernels/contrib/matmul_nbits.cpp), so outputs agree.
//
// Two ways to compute. Few rows (decode, up to 4) read the packed weights directly, a few
// columns at a time (4 for one row, 2 for two, so the FMA unit has independent chains), never
// making a float copy: each run of 8 packed values is unpacked and dequantized in AVX2 registers
// once for all the rows and multiplied with each (function-attribute build, used when the CPU has
// AVX2 and FMA; 4-bit weights 16 at a time in AVX-512 registers when the CPU has AVX-512), or in
// scalar code. More rows (prefill), or a g_idx that is not k / block_size,
// take a blocked GEMM (MatMulNBitsGemm): a panel of 16 columns by 256 k is dequantized once into
// a small buffer that stays in cache and multiplied with every row of A in register tiles, so
// the weights are expanded once per call and never as a whole.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>

#include "nxrt/data_type.h"
#include "nxrt/status.h"
#include "nxrt/tensor.h"

namespace nxrt::cpu::contrib {

struct MatMulNBitsAttributes {
  int64_t k = 0;
  int64_t n = 0;
  int64_t bits = 4;
  int64_t block_size = 0;
};

// Errors (kInvalidModel): K or N below 1, bits not 4 or 8, block_size not a power of two >= 16.
Status CheckMatMulNBitsAttributes(const MatMulNBitsAttributes& attributes);

enum class NBitsZeroPoint { kDefault, kPacked, kFloat };

struct MatMulNBitsPlan {
  MatMulNBitsAttributes attributes;
  int64_t m = 0;  // rows of A (the product of its leading dims)
  int64_t k_blocks = 0;
  int64_t blob_size = 0;
  int64_t zero_point_row_bytes = 0;  // packed zero points: bytes per column
  NBitsZeroPoint zero_point = NBitsZeroPoint::kDefault;
  bool g_idx = false;       // a g_idx other than k / block_size (checked at compute time)
  bool bias = false;
  bool direct = false;      // read the packed weights directly (few rows, no g_idx)
  Shape output_shape;
};

// Shapes of the optional inputs: nullopt when absent. Errors (kInvalidArgument) name the input,
// its shape and the expected one: A's last dim not K, B / scales / zero points / g_idx / bias
// without the element counts above; kUnsupported for a dtype other than float for A and scales
// or other than uint8 / float for zero points.
Result<MatMulNBitsPlan> PrepareMatMulNBits(const MatMulNBitsAttributes& attributes,
                                           DataType a_dtype, std::span<const int64_t> a_shape,
                                           std::span<const int64_t> b_shape,
                                           std::span<const int64_t> scales_shape,
                                           std::optional<DataType> zero_point_dtype,
                                           std::optional<Shape> zero_point_shape,
                                           std::optional<Shape> g_idx_shape,
                                           std::optional<Shape> bias_shape);

struct MatMulNBitsOperands {
  const float* a = nullptr;
  const uint8_t* b = nullptr;
  const float* scales = nullptr;
  const void* zero_points = nullptr;  // uint8 (packed) or float, per plan.zero_point
  const int32_t* g_idx = nullptr;
  const float* bias = nullptr;
  // [N, k_blocks]: every block's -zero_point * scale (MatMulNBitsOffsets), when the kernel made
  // them once from constant scales and zero points; null: made from them on every run.
  const float* offsets = nullptr;
};

// offsets [N * k_blocks] = -zero_point * scale of every block, from the scales and zero points
// of `operands` (its other fields unused): the table of MatMulNBitsOperands::offsets.
void MatMulNBitsOffsets(const MatMulNBitsPlan& plan, const MatMulNBitsOperands& operands,
                        float* offsets);

// Checks g_idx (every entry a block index in [0, k_blocks)); kRuntimeError naming the entry.
Status CheckGIdx(const MatMulNBitsPlan& plan, const int32_t* g_idx);

// Direct path: output columns [n_begin, n_end) of every row of y. Column ranges are independent
// (callers spread them over threads).
void MatMulNBitsDirect(const MatMulNBitsPlan& plan, const MatMulNBitsOperands& operands, float* y,
                       int64_t n_begin, int64_t n_end);

// Blocked path (more rows, or a g_idx): output columns go in panels of 16. The number of panels.
int64_t MatMulNBitsPanels(const MatMulNBitsPlan& plan);

// Blocked path: the output columns of panels [panel_begin, panel_end) for every row of y (plus
// bias). Per panel and run of 256 along K the weights are dequantized once into a 16 KB buffer
// on the stack and multiplied with all rows of A in register tiles: up to 12 rows x 16 columns
// with AVX-512 (one register per row), 6 x 16 with AVX2 and FMA (nn/sgemm_avx2.h's tile), or
// scalar code. Panel ranges are independent (callers spread them over threads).
void MatMulNBitsGemm(const MatMulNBitsPlan& plan, const MatMulNBitsOperands& operands, float* y,
                     int64_t panel_begin, int64_t panel_end);

}  // namespace nxrt::cpu::contrib
