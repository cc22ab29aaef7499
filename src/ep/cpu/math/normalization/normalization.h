// ep/cpu/math/normalization/normalization.h: LayerNormalization, BatchNormalization (inference),
// InstanceNormalization, GroupNormalization, LpNormalization and MeanVarianceNormalization.
//
// Layer: nxrt_cpu_math (framework-free reference math of the CPU EP; no IR, no EP API).
// ONNX sources: LayerNormalization-17, BatchNormalization-15 (and 9/14: inference form, i.e.
// training_mode = 0), InstanceNormalization-6, GroupNormalization-18 and -21 (scale/bias per
// group or per channel), LpNormalization-1, MeanVarianceNormalization-13 (and 9).
//
// Shared rules: element types float, double, float16, bfloat16 (the 16-bit floats computed in
// float); means and variances accumulate in double (float LayerNormalization: in float with 8
// partial sums, which vectorises), two-pass (mean first, then the mean of squared deviations:
// the biased variance); all tensors contiguous. Each op has a Prepare that
// checks shapes/types and a Run on bound buffers (no allocation, cannot fail), and a Tensor
// wrapper that allocates undefined outputs.
#pragma once

#include <cstdint>
#include <span>

#include "ep/cpu/math/shape_util.h"
#include "nxrt/data_type.h"
#include "nxrt/status.h"
#include "nxrt/tensor.h"

namespace nxrt::cpu::math {

// ---- LayerNormalization ----
// X is viewed as [rows, cols] with cols = prod(shape[axis:]). Per row:
//   Y = (X - mean) / sqrt(var + epsilon) * Scale + B,
// Scale and B (optional) of X's type holding cols elements (shape e.g. shape[axis:]).
// Optional outputs Mean and InvStdDev have shape shape[:axis] + [1] * (rank - axis) and type
// stats_type (ONNX stash_type; float by default, any float type accepted).
struct LayerNormAttrs {
  int64_t axis = -1;
  float epsilon = 1e-5f;
  DataType stats_type = DataType::kFloat;
};

struct LayerNormPlan {
  DataType type = DataType::kUndefined;
  DataType stats_type = DataType::kFloat;
  int64_t rows = 0;
  int64_t cols = 0;
  float epsilon = 0;
  Shape stats_shape;
  void (*fn)(const LayerNormPlan& plan, const void* x, const void* scale, const void* bias,
             void* y, void* mean, void* inv_std_dev) = nullptr;
};

// Errors: kInvalidArgument for the axis or a scale/bias element count other than cols,
// kUnsupported for the types.
Result<LayerNormPlan> PrepareLayerNorm(DataType type, const Shape& x_shape,
                                       const Shape& scale_shape, const Shape* bias_shape,
                                       const LayerNormAttrs& attrs);
// `bias`, `mean` and `inv_std_dev` may be null.
void RunLayerNorm(const LayerNormPlan& plan, const void* x, const void* scale, const void* bias,
                  void* y, void* mean, void* inv_std_dev);
// `bias` may be null or undefined; `mean`/`inv_std_dev` may be null (not wanted).
Status LayerNorm(const Tensor& x, const Tensor& scale, const Tensor* bias,
                 const LayerNormAttrs& attrs, Tensor* y, Tensor* mean, Tensor* inv_std_dev);

// ---- BatchNormalization (inference) ----
// X: [N, C, D1, ...] (rank >= 2). Scale, B: [C] of a float type T1; mean, var: [C] of a float
// type T2 (T1/T2 may differ from X's type, as in BatchNormalization-15).
//   Y = (X - mean[c]) / sqrt(var[c] + epsilon) * scale[c] + B[c].
struct BatchNormPlan {
  DataType type = DataType::kUndefined;
  DataType param_type = DataType::kUndefined;  // scale, B
  DataType stats_type = DataType::kUndefined;  // mean, var
  int64_t batch = 0;
  int64_t channels = 0;
  int64_t spatial = 0;
  float epsilon = 0;
  void (*fn)(const BatchNormPlan& plan, const void* x, const void* scale, const void* bias,
             const void* mean, const void* var, void* y) = nullptr;
};

Result<BatchNormPlan> PrepareBatchNorm(DataType type, const Shape& x_shape, DataType param_type,
                                       DataType stats_type,
                                       std::span<const Shape> param_shapes /* scale, B, mean, var */,
                                       float epsilon);
void RunBatchNorm(const BatchNormPlan& plan, const void* x, const void* scale, const void* bias,
                  const void* mean, const void* var, void* y);
Status BatchNorm(const Tensor& x, const Tensor& scale, const Tensor& bias, const Tensor& mean,
                 const Tensor& var, float epsilon, Tensor* y);

// ---- InstanceNormalization and GroupNormalization ----
// X: [N, C, D1, ...] (rank >= 2). The statistics are taken per (n, group) over C / groups
// channels times all spatial positions; InstanceNormalization is the case groups = C.
//   Y = (X - mean) / sqrt(var + epsilon) * scale[k] + bias[k],
// where k is the channel when scale/bias hold C elements (InstanceNormalization,
// GroupNormalization-21) or the group when they hold `groups` elements (GroupNormalization-18).
struct GroupNormPlan {
  DataType type = DataType::kUndefined;
  int64_t batch = 0;
  int64_t channels = 0;
  int64_t groups = 0;
  int64_t spatial = 0;
  bool per_channel_params = true;
  float epsilon = 0;
  void (*fn)(const GroupNormPlan& plan, const void* x, const void* scale, const void* bias,
             void* y, int64_t begin, int64_t end) = nullptr;
};

// Errors: kInvalidArgument when C is not a multiple of groups or scale/bias hold neither C nor
// groups elements; kUnsupported for the types (scale and bias have X's type).
Result<GroupNormPlan> PrepareGroupNorm(DataType type, const Shape& x_shape, int64_t groups,
                                       const Shape& scale_shape, const Shape& bias_shape,
                                       float epsilon);
// Normalises the (n, group) rows [begin, end) of [0, batch * groups), row r = n * groups + group:
// X's and Y's elements [r * (C / groups) * spatial, (r + 1) * (C / groups) * spatial).
void RunGroupNorm(const GroupNormPlan& plan, const void* x, const void* scale, const void* bias,
                  void* y, int64_t begin, int64_t end);
Status GroupNorm(const Tensor& x, const Tensor& scale, const Tensor& bias, int64_t groups,
                 float epsilon, Tensor* y);
// InstanceNormalization: GroupNorm with groups = C and per-channel scale/bias.
Status InstanceNorm(const Tensor& x, const Tensor& scale, const Tensor& bias, float epsilon,
                    Tensor* y);

// ---- LpNormalization ----
// Y = X / ||X||_p along `axis` (p = 1 or 2). A zero norm gives 0 for the whole slice instead of
// the 0/0 NaN.
struct LpNormPlan {
  int64_t outer = 0;
  int64_t axis_dim = 0;
  int64_t inner = 0;
  int64_t p = 2;
  void (*fn)(const LpNormPlan& plan, const void* x, void* y) = nullptr;
};

// Errors: kInvalidArgument for the axis or p not in {1, 2}; kUnsupported for the type.
Result<LpNormPlan> PrepareLpNorm(DataType type, const Shape& shape, int64_t axis, int64_t p);
void RunLpNorm(const LpNormPlan& plan, const void* x, void* y);
Status LpNorm(const Tensor& x, int64_t axis, int64_t p, Tensor* y);

// ---- MeanVarianceNormalization ----
// Y = (X - mean) / (sqrt(var) + 1e-9), mean and var over `axes` (default [0, 2, 3]), exactly as
// the ONNX function body (the epsilon is added to the standard deviation, not the variance).
struct MvnPlan {
  AxesSplit split;
  void (*fn)(const AxesSplit& split, const void* x, void* y) = nullptr;
};

Result<MvnPlan> PrepareMvn(DataType type, const Shape& shape, std::span<const int64_t> axes);
void RunMvn(const MvnPlan& plan, const void* x, void* y);
Status Mvn(const Tensor& x, std::span<const int64_t> axes, Tensor* y);

}  // namespace nxrt::cpu::math
