// ep/cpu/math/quant/quant.h: linear quantization math of the CPU EP: QuantizeLinear,
// DequantizeLinear, DynamicQuantizeLinear, and the integer products MatMulInteger, QLinearMatMul,
// ConvInteger and QLinearConv (ONNX opsets 10-21; onnx/defs/quantization/defs.cc, math/defs.cc,
// nn/defs.cc).
//
// Layer: nxrt_cpu_math (framework-free; no IR, no EP API). Each op has a Prepare function that
// checks shapes and dtypes and resolves a plan (the typed function, the geometry), and a compute
// function that runs the plan on raw contiguous buffers. Plans are immutable and may be run from
// several threads at once.
//
// Rounding everywhere is round-half-to-even (std::nearbyint in the default FE_TONEAREST mode),
// then saturation to the output type's range, as the spec states:
//   QuantizeLinear    y = saturate(round(x / scale) + zero_point)
//   DequantizeLinear  y = (x - zero_point) * scale
// Scales and zero points are per tensor (one element), per axis (1-D, length x.shape[axis]) or,
// from opset 21, blocked (x's rank, x.shape[axis] replaced by ceil(x.shape[axis] / block_size)).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "ep/cpu/math/nn/window.h"
#include "nxrt/data_type.h"
#include "nxrt/status.h"
#include "nxrt/tensor.h"

namespace nxrt::cpu::nn {

// Where the scale (and zero point) of each element of x is: x viewed as [outer, axis_dim, inner],
// the scale index of element (o, a, i) is
//   per tensor: 0;  per axis: a;  blocked: (o * ceil(axis_dim / block) + a / block) * inner + i.
struct QuantGeometry {
  enum class Mode { kPerTensor, kPerAxis, kBlocked };
  Mode mode = Mode::kPerTensor;
  int64_t outer = 1;
  int64_t axis_dim = 1;
  int64_t inner = 1;
  int64_t block = 0;  // kBlocked only
};

// The geometry of `scale_shape` against `x_shape`. `axis` may be negative (counts from the end);
// `block_size` 0 means no blocking. `op` names the caller in errors (kInvalidArgument): axis out
// of range, a 1-D scale whose length is not x.shape[axis], a blocked scale of the wrong shape, a
// scale of rank > 1 without block_size.
Result<QuantGeometry> ResolveQuantGeometry(std::string_view op, std::span<const int64_t> x_shape,
                                           std::span<const int64_t> scale_shape, int64_t axis,
                                           int64_t block_size);

// QuantizeLinear: x float/float16/bfloat16/double/int32, scale float/float16/bfloat16 (or int32
// at opset 19+), zero point and y int4/uint4 (packed two per byte), int8/uint8/int16/uint16 or
// float8 (any of the four formats). `zero_point` may be null (0). Integer outputs round x / scale
// half to even, add the zero point and clamp; float8 outputs are x / scale + zero_point converted
// to nearest even, saturating to the largest finite value when `saturate` (QuantizeLinear-19's
// attribute, default 1) and otherwise giving NaN (or infinity for float8e5m2), as in
// nxrt/data_type.h's Float8.
// Float x to int8/uint8 is MLAS's x86 QuantizeLinear (quantize_avx2.h): AVX2 loops when the CPU
// has them, and a NaN x gives the type's minimum, as in ONNX Runtime; other integer outputs give
// the zero point for a NaN.
struct QuantizePlan {
  QuantGeometry geometry;
  bool saturate = true;
  void (*fn)(const QuantizePlan&, const void* x, const void* scale, const void* zero_point,
             void* y, int64_t begin, int64_t end) = nullptr;
};
Result<QuantizePlan> PrepareQuantize(DataType x_dtype, DataType scale_dtype, DataType y_dtype,
                                     QuantGeometry geometry, bool saturate = true);
// Elements [begin, end) of y, so that callers may split y over threads; for 4-bit outputs (two
// elements a byte) begin and end must be even or end the tensor.
void Quantize(const QuantizePlan& plan, const void* x, const void* scale, const void* zero_point,
              void* y, int64_t begin, int64_t end);

// DequantizeLinear: x int4/uint4/int8/uint8/int16/uint16/int32 or float8, scale (and y)
// float/float16/bfloat16: y = (x - zero_point) * scale.
struct DequantizePlan {
  QuantGeometry geometry;
  void (*fn)(const DequantizePlan&, const void* x, const void* scale, const void* zero_point,
             void* y, int64_t begin, int64_t end) = nullptr;
};
Result<DequantizePlan> PrepareDequantize(DataType x_dtype, DataType scale_dtype,
                                         QuantGeometry geometry);
// Elements [begin, end) of y (any range: the output is float, a 4-bit x is read per element), so
// that callers may split y over threads.
void Dequantize(const DequantizePlan& plan, const void* x, const void* scale,
                const void* zero_point, void* y, int64_t begin, int64_t end);

// DynamicQuantizeLinear (opset 11): float x of `count` elements → uint8 y, float scale and uint8
// zero point, as ONNX Runtime 1.30 computes them: the range of x extended to include 0 (NaN
// elements ignored), scale = (max - min) / 255 (1 when the range is all 0), zero_point =
// round(clamp(0 - min / scale, 0, 255)), y = QuantizeLinear(x, scale, zero_point) (NaN x gives 0).
// Rounding is half to even. AVX2 loops when the CPU has them.
void DynamicQuantizeLinear(const float* x, int64_t count, uint8_t* y, float* scale,
                           uint8_t* zero_point);

// ---- integer matrix products ----
//
// MatMulInteger, QLinearMatMul, ConvInteger and QLinearConv run on oneDNN's u8 x s8 -> s32
// matmul (int_product.cpp), with the zero points applied afterwards through row and column sums:
//   sum_k (a - za)(b - zb) = sum_k a b - za sum_k b - zb sum_k a + K za zb.
// The results are ONNX Runtime 1.30's on the same CPU, bit for bit. Where ORT's integer GEMM
// (MLAS) multiplies a uint8 left operand by an int8 right operand on a CPU without AVX-VNNI, it
// adds the products of each pair of consecutive k (2j, 2j+1) into an int16 that saturates
// (vpmaddubsw); oneDNN's AVX2 kernel does the same, so these products go to it as they are. Every
// other pairing of dtypes is exact in ORT, and here too: an int8 left operand is offset by 128 into
// uint8, a uint8 right operand by -128 into int8, and, on a CPU without VNNI (where oneDNN's
// pairs saturate too), the int8 right operand is split into 2 * hi + lo with hi in [-64, 63] and
// lo in {0, 1}, two products that cannot saturate (with VNNI oneDNN's products are exact); where
// the split would be needed, a MatMul of an exact pairing whose B is a constant without batch dims
// instead multiplies the operands as they are in 16 bits (VPMADDWD, exact) on AVX2, at half the
// split's work. The left
// and right operands are ORT's: MatMul's A and B; ConvInteger's W and the im2col columns of X
// (k ordered as channel, kernel position); QLinearConv's X columns (k ordered as kernel position,
// channel) and W. QLinear outputs are requantized as ORT does: the int32 sum (plus the bias)
// converted to float, times the float multiplier a_scale * b_scale / y_scale, rounded half to
// even, plus the output zero point, saturated.

// Where the zero point (or scale) of an operand row/column is: index = batch * batch_stride +
// position * position_stride over the operand's own batch index (0 strides: per tensor).
struct QuantParamIndex {
  int64_t batch_stride = 0;
  int64_t position_stride = 0;
  int64_t At(int64_t batch, int64_t position) const {
    return batch * batch_stride + position * position_stride;
  }
};

// A created oneDNN u8 x s8 -> s32 matmul primitive, and a constant right operand laid out for
// it with its sums over k; defined in int_product.cpp.
struct IntGemm;
struct IntDirectConv;
struct PackedIntOperand;
struct Int16Operand;

// How to prepare an integer product (every field optional).
struct IntProductOptions {
  // Threads oneDNN and the loops around it may use (values < 1 mean 1).
  int threads = 1;
  // The contents of B (MatMul) or W (Conv) when it is a constant, read during Prepare only: it
  // is then converted and packed once and the compute functions ignore their b.
  const void* constant_b = nullptr;
};

// MatMulInteger and QLinearMatMul over NumPy-broadcast batches: A [..., M, K] (int8/uint8),
// B [..., K, N] (int8/uint8). A's zero point (and scale) is per tensor (1 element), per row
// ([M]) or per batch row ([..., M, 1] with A's batch dims); B's per tensor, per column ([N]) or
// [..., 1, N]. QLinearMatMul's y_scale and y_zero_point are per tensor or per column ([N]).
struct IntMatMulPlan {
  DataType a_dtype = DataType::kUndefined;
  DataType b_dtype = DataType::kUndefined;
  // int32 (MatMulInteger), int8/uint8 (QLinearMatMul) or float (com.microsoft
  // MatMulIntegerToFloat: float(sum) * (a_scale * b_scale) + float bias, math/contrib/quant_matmul.h)
  DataType y_dtype = DataType::kInt32;
  int64_t m = 0, k = 0, n = 0;
  Shape output_shape;
  std::vector<int64_t> a_batch;  // per output batch: A's batch index
  std::vector<int64_t> b_batch;  // per output batch: B's batch index
  QuantParamIndex a_param, b_param;
  int64_t y_param_stride = 0;  // QLinearMatMul: 1 for per-column y scale/zero point
  // Internal: the product (null when the output is empty), B packed per B batch when constant.
  int threads = 1;
  std::shared_ptr<const IntGemm> gemm;
  std::vector<std::shared_ptr<const PackedIntOperand>> packed_b;
  // Internal, instead of `gemm` for the exact pairings (not uint8 A with int8 B) with a constant B
  // without batch dims on AVX2: B in 16 bits, multiplied by nxrt's own VPMADDWD loop, where the
  // split into two int8 halves would double oneDNN's work.
  std::shared_ptr<const Int16Operand> int16_b;
  // Bytes of workspace IntMatMul needs (64-byte aligned).
  size_t workspace_bytes = 0;
};

// `a_param_shape`/`b_param_shape` are the zero points' (else the scales') shapes, empty when
// omitted. Errors (kInvalidArgument) print the shapes: rank 0 operands, K mismatch, batch dims
// that do not broadcast, zero-point shapes that fit none of the forms above; kUnsupported for
// operands that are not int8/uint8; oneDNN's failures (DnnlErrorStatus).
Result<IntMatMulPlan> PrepareIntMatMul(std::string_view op, DataType a_dtype, DataType b_dtype,
                                       std::span<const int64_t> a_shape,
                                       std::span<const int64_t> b_shape,
                                       std::span<const int64_t> a_param_shape,
                                       std::span<const int64_t> b_param_shape,
                                       const IntProductOptions& options = {});

// Operands of the integer products; zero points may be null (0), float scales are read as
// `scale_dtype` (float, float16 or bfloat16) and only by QLinear*.
struct QuantOperands {
  const void* a = nullptr;
  const void* a_zero_point = nullptr;
  const void* a_scale = nullptr;
  const void* b = nullptr;
  const void* b_zero_point = nullptr;
  const void* b_scale = nullptr;
  const void* y_scale = nullptr;
  const void* y_zero_point = nullptr;
  const int32_t* bias = nullptr;  // QLinearConv only, [M]
  const float* float_bias = nullptr;  // float outputs only, [N] (null: none)
  DataType scale_dtype = DataType::kFloat;
};

// MatMulInteger: y int32. QLinearMatMul: y int8/uint8 (plan.y_dtype) from the int32 sums. Float
// outputs: the int32 sums times a_scale * b_scale (in float, per column), plus float_bias.
// `workspace` holds plan.workspace_bytes. Errors: kInvalidArgument for a smaller workspace,
// oneDNN's failures.
Status IntMatMul(const IntMatMulPlan& plan, const QuantOperands& operands, void* y,
                 std::span<std::byte> workspace);

// ConvInteger and QLinearConv: X [N, C, D...] (int8/uint8), W [M, C/group, k...] (int8/uint8),
// x zero point per tensor, w zero point (and QLinearConv's w scale) per tensor or per output
// channel ([M]); y int32 (ConvInteger) or int8/uint8 (QLinearConv, with optional int32 bias [M]).
// Padding reads x's zero point, so it contributes 0 to the sums (and takes part in ORT's pairs).
struct IntConvPlan {
  DataType x_dtype = DataType::kUndefined;
  DataType w_dtype = DataType::kUndefined;
  DataType y_dtype = DataType::kInt32;
  Shape output_shape;
  int64_t batch = 0, in_channels = 0, out_channels = 0, group = 1;
  Shape input_spatial;
  WindowGeometry geometry;
  int64_t w_param_stride = 0;  // 1 for a per-channel w zero point
  int64_t w_scale_stride = 0;  // 1 for a per-channel w scale (QLinearConv)
  int64_t columns_rows = 0;    // k of one group's product: (C / group) * prod(kernel)
  int64_t output_pixels = 0;   // prod(output spatial)
  // Internal: oneDNN's int8 convolution over X padded with its zero point (2-D, one group,
  // constant W; for saturating pairs an even channel count, so that oneDNN's pairs of channels
  // are ORT's pairs of k), else the product per group over im2col columns (null when the output
  // is empty); W packed (per group) when constant; whether W is the product's left operand
  // (ConvInteger of uint8 W and int8 X).
  int threads = 1;
  bool weights_left = false;
  std::shared_ptr<const IntDirectConv> direct;
  std::shared_ptr<const IntGemm> gemm;
  std::vector<std::shared_ptr<const PackedIntOperand>> packed_w;
  size_t workspace_bytes = 0;  // 64-byte aligned
};

struct IntConvAttributes {
  AutoPad auto_pad = AutoPad::kNotSet;
  std::vector<int64_t> kernel_shape;  // empty: W's spatial dims
  std::vector<int64_t> strides, dilations, pads;
  int64_t group = 1;
};

// `w_zero_point_shape` and `w_scale_shape` are empty when absent. Errors (kInvalidArgument)
// print the shapes: X rank < 3, W rank != X rank, C != W[1] * group, M not divisible by group,
// kernel_shape not W's spatial dims, a w zero point or scale that is neither one element nor [M];
// oneDNN's failures.
Result<IntConvPlan> PrepareIntConv(std::string_view op, DataType x_dtype, DataType w_dtype,
                                   DataType y_dtype, std::span<const int64_t> x_shape,
                                   std::span<const int64_t> w_shape,
                                   std::span<const int64_t> w_zero_point_shape,
                                   std::span<const int64_t> w_scale_shape,
                                   const IntConvAttributes& attributes,
                                   const IntProductOptions& options = {});

// `workspace` holds plan.workspace_bytes. Errors as IntMatMul's.
Status IntConv(const IntConvPlan& plan, const QuantOperands& operands, void* y,
               std::span<std::byte> workspace);

}  // namespace nxrt::cpu::nn
