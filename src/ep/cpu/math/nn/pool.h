// ep/cpu/math/nn/pool.h: MaxPool, AveragePool, LpPool and their Global forms (ONNX) as reference
// math.
//
// Layer: nxrt_cpu_math (framework-free; no IR, no EP API). X is [N, C, D...] (any spatial rank),
// contiguous; Y is [N, C, D'...] with D' from window.h (auto_pad, pads, strides, dilations,
// ceil_mode). Prepare resolves the geometry; compute finds each window's input taps per spatial
// dim from it (window.h TapsAt), so no table grows with output x kernel, and only reads X and
// writes Y (and MaxPool's Indices).
// Padding never contributes a value: MaxPool skips it, LpPool counts it as 0, AveragePool
// divides by the number of input elements in the window, or with count_include_pad by the
// window positions inside the padded input (a ceil_mode window that runs past the end padding
// does not count the part beyond it, so [1,2,3,4,5], kernel 2, stride 2, ceil_mode gives
// [1.5, 3.5, 5]).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "ep/cpu/math/nn/window.h"
#include "nxrt/data_type.h"
#include "nxrt/status.h"
#include "nxrt/tensor.h"

namespace nxrt::cpu::nn {

enum class PoolKind { kMax, kAverage, kLp };

struct PoolAttributes {
  std::vector<int64_t> kernel_shape;  // required (spatial)
  AutoPad auto_pad = AutoPad::kNotSet;
  std::vector<int64_t> strides;    // empty: 1
  std::vector<int64_t> dilations;  // empty: 1 (MaxPool opset 10+, LpPool 18, AveragePool 19)
  std::vector<int64_t> pads;       // [begin..., end...]; empty: 0
  bool ceil_mode = false;          // opset 10+ (LpPool 18)
  bool count_include_pad = false;  // AveragePool
  int64_t storage_order = 0;       // MaxPool Indices: 0 row major, 1 column major
  double p = 2.0;                  // LpPool
};

struct PoolPlan {
  DataType dtype = DataType::kUndefined;
  PoolKind kind = PoolKind::kMax;
  PoolAttributes attributes;
  Shape output_shape;
  // Internal: planes (N * C), spatial shapes and the window geometry.
  bool global = false;
  int64_t planes = 0;
  int64_t work_per_plane = 0;  // window taps per plane (outputs x kernel size), for splitting
  Shape input_spatial;
  WindowGeometry geometry;
};

// MaxPool (opset 1, 8, 10, 11, 12), AveragePool (1, 7, 10, 11, 19), LpPool (1, 2, 11, 18).
// dtypes: MaxPool float, double, float16, int8, uint8; the others float, double, float16.
// Errors: kInvalidArgument for X rank < 3, a kernel_shape of the wrong length, invalid
// strides/dilations/pads, p <= 0, storage_order not 0/1, or a kernel larger than the padded
// input (messages print the values); kUnsupported for other dtypes.
Result<PoolPlan> PreparePool(PoolKind kind, DataType dtype, std::span<const int64_t> x_shape,
                             const PoolAttributes& attributes);

// GlobalMaxPool, GlobalAveragePool (opset 1) and GlobalLpPool (opset 1 float p, 2 int p): the
// window is the whole spatial extent; Y is [N, C, 1, ...].
Result<PoolPlan> PrepareGlobalPool(PoolKind kind, DataType dtype, std::span<const int64_t> x_shape,
                                   double p = 2.0);

// Runs a plan. `indices` (MaxPool only, may be null) receives, per output, the flat index of the
// maximum in X (N and C included; spatial part row-major, or column-major with storage_order 1).
Status Pool(const PoolPlan& plan, const void* x, void* y, int64_t* indices);
// Runs planes [plane_begin, plane_end) of a plan (clamped to [0, planes)): each of the N * C
// planes is independent, so callers split the planes across threads. Same errors as Pool.
Status PoolPlanes(const PoolPlan& plan, const void* x, void* y, int64_t* indices,
                  int64_t plane_begin, int64_t plane_end);

}  // namespace nxrt::cpu::nn
