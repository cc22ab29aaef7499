// ep/cpu/math/nn/roi_align.h: RoiAlign (ONNX opsets 10, 16; onnx/defs/object_detection/defs.cc) for
// the CPU EP.
//
// Layer: nxrt_cpu_math (framework-free; no IR, no EP API). X [N, C, H, W], rois [R, 4] as
// (x1, y1, x2, y2) in the input image's coordinates, batch_indices [R] int64 → Y [R, C,
// output_height, output_width]. Per roi, with offset 0.5 for half_pixel (opset 16's default)
// and 0 for output_half_pixel (opset 10's only behaviour):
//   start = roi * spatial_scale - offset, extent = end - start (at least 1 without half_pixel),
//   bin = extent / output size; each bin samples a grid of sampling_ratio (or, when it is 0,
//   ceil(extent / output size)) points per axis at the grid cells' centres, bilinearly
//   interpolated: a point beyond [-1, size] on either axis reads 0, others clamp into the image.
//   avg: the mean of the samples; max: the largest of the samples' largest weighted corner
//   (w_k * x_k), as ONNX's reference implementation computes it.
// Computed in double (float16 loads as float).
#pragma once

#include <cstdint>
#include <span>

#include "nxrt/data_type.h"
#include "nxrt/status.h"
#include "nxrt/tensor.h"

namespace nxrt::cpu::nn {

struct RoiAlignAttributes {
  bool max_mode = false;
  bool half_pixel = true;
  int64_t output_height = 1, output_width = 1;
  int64_t sampling_ratio = 0;
  float spatial_scale = 1.0f;
};

struct RoiAlignPlan {
  RoiAlignAttributes attributes;
  int64_t n = 0, c = 0, h = 0, w = 0, rois = 0;
  Shape output_shape;
  void (*fn)(const RoiAlignPlan&, const void* x, const void* rois, const int64_t* batch_indices,
             void* y, int64_t begin, int64_t end) = nullptr;
};

// Errors: kInvalidArgument for X not rank 4, rois not [R, 4], batch_indices not [R] (shapes
// printed); kUnsupported for a dtype other than float, double, float16 (bfloat16 too, for
// opset 22). X and rois share the dtype.
Result<RoiAlignPlan> PrepareRoiAlign(DataType dtype, std::span<const int64_t> x_shape,
                                     std::span<const int64_t> rois_shape,
                                     std::span<const int64_t> batch_indices_shape,
                                     const RoiAlignAttributes& attributes);

// kRuntimeError naming the roi when a batch index lies outside [0, N).
Status CheckRoiBatchIndices(const RoiAlignPlan& plan, const int64_t* batch_indices);

// Writes Y for rois [begin, end); disjoint ranges may run concurrently.
void RoiAlign(const RoiAlignPlan& plan, const void* x, const void* rois,
              const int64_t* batch_indices, void* y, int64_t begin, int64_t end);

}  // namespace nxrt::cpu::nn
