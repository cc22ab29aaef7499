// ep/cpu/math/nn/nhwc_pool.h: MaxPool, AveragePool and GlobalAveragePool on channels-last tensors
// (nxrt's com.nxrt:NhwcMaxPool, NhwcAveragePool and NhwcGlobalAveragePool).
//
// Layer: nxrt_cpu_math (framework-free; no IR, no EP API). X is [N, H, W, C], contiguous; Y is
// [N, H', W', C] (global: [N, 1, 1, C]). The windows, output dims and padding rules are those of
// the same pool on [N, C, H, W] (pool.h, window.h): Prepare builds that PoolPlan and keeps its
// per-dim tables, so the geometry has one implementation. Compute goes output pixel by output
// pixel and takes the max or the sum over the window's input pixels of C-long contiguous rows
// (the loops vectorise over C). Work is split over independent units: output rows (N * H') for
// the windowed pools, (image, block of channels) pairs for the global one. No heap allocation.
// MaxPool keeps pool.h's NaN rule (a window holding a NaN gives NaN) and a window with no input
// pixel gives the type's lowest value; AveragePool divides by the window's input pixels, or with
// count_include_pad by its positions inside the padded input.
#pragma once

#include <cstdint>
#include <span>

#include "ep/cpu/math/nn/pool.h"
#include "nxrt/data_type.h"
#include "nxrt/status.h"
#include "nxrt/tensor.h"

namespace nxrt::cpu::nn {

struct NhwcPoolPlan {
  DataType dtype = DataType::kUndefined;
  Shape output_shape;  // [N, H', W', C]
  // Internal.
  PoolPlan pool;  // the same pool over [N, C, H, W] (global: only kind and spatial dims)
  int64_t channels = 0;
  int64_t units = 0;          // independent units of work, split across threads by the caller
  int64_t work_per_unit = 0;  // elements read per unit (window taps x channels), for splitting
};

// NhwcMaxPool (kind kMax) and NhwcAveragePool (kAverage): `attributes` as PreparePool's (the
// attributes of MaxPool-12 and AveragePool-19; storage_order is not used). dtypes float, double.
// Errors: kInvalidArgument for X not of rank 4 (printing it) and PreparePool's errors, prefixed
// with the op name and printing X as [N, C, H, W]; kUnsupported for kLp and other dtypes.
Result<NhwcPoolPlan> PrepareNhwcPool(PoolKind kind, DataType dtype,
                                     std::span<const int64_t> x_shape,
                                     const PoolAttributes& attributes);

// NhwcGlobalAveragePool: Y[n, 0, 0, c] is the mean of X[n, :, :, c]. dtypes float, double.
// Errors: kInvalidArgument for X not of rank 4 or with a negative dim; kUnsupported dtypes.
Result<NhwcPoolPlan> PrepareNhwcGlobalAveragePool(DataType dtype,
                                                  std::span<const int64_t> x_shape);

// Runs units [unit_begin, unit_end) (clamped to [0, plan.units)) of a plan from the functions
// above; `x` and `y` are the whole tensors. Disjoint unit ranges write disjoint parts of Y, so
// callers run them on several threads. Cannot fail: the plan fixed the dtype.
void NhwcPoolUnits(const NhwcPoolPlan& plan, const void* x, void* y, int64_t unit_begin,
                   int64_t unit_end);

}  // namespace nxrt::cpu::nn
