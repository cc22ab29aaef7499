// ep/cpu/math/nn/max_roi_pool.h: MaxRoiPool (ONNX opset 1; onnx/defs/nn/defs.cc) for the CPU EP.
//
// Layer: nxrt_cpu_math (framework-free; no IR, no EP API). X [N, C, H, W] and rois [R, 5], each
// row (batch_index, x1, y1, x2, y2) in the input image's coordinates, → Y [R, C, pooled_h,
// pooled_w]. Per roi, as ONNX Runtime's CPU kernel computes it (Fast R-CNN's RoI pooling):
//   the corners are rounded half away from zero after scaling, start = round(x1 * spatial_scale),
//   end = round(x2 * spatial_scale) (and the same for y); the roi is (end - start + 1) pixels per
//   axis, at least 1; bin = roi / pooled size, in float; output cell p of an axis reads the pixels
//   [floor(p * bin), ceil((p + 1) * bin)) shifted by start and clipped to the image; the cell is
//   the largest of them (a NaN wins), or 0 when the clipped window is empty.
// The batch index is truncated toward zero. Float16 computes in float.
#pragma once

#include <cstdint>
#include <span>

#include "nxrt/data_type.h"
#include "nxrt/status.h"
#include "nxrt/tensor.h"

namespace nxrt::cpu::nn {

struct MaxRoiPoolAttributes {
  int64_t pooled_height = 1, pooled_width = 1;  // pooled_shape, both >= 1
  float spatial_scale = 1.0f;                   // > 0
};

struct MaxRoiPoolPlan {
  MaxRoiPoolAttributes attributes;
  int64_t n = 0, c = 0, h = 0, w = 0, rois = 0;
  Shape output_shape;
  void (*fn)(const MaxRoiPoolPlan&, const void* x, const void* rois, void* y, int64_t begin,
             int64_t end) = nullptr;
  Status (*check)(const MaxRoiPoolPlan&, const void* rois) = nullptr;
};

// Errors: kInvalidArgument for X not rank 4 or rois not [R, 5] (shapes printed), or attributes
// out of range (pooled sizes < 1, spatial_scale not > 0); kUnsupported for a dtype other than
// float16, float, double. X and rois share the dtype.
Result<MaxRoiPoolPlan> PrepareMaxRoiPool(DataType dtype, std::span<const int64_t> x_shape,
                                         std::span<const int64_t> rois_shape,
                                         const MaxRoiPoolAttributes& attributes);

// kRuntimeError naming the roi and the value when a batch index does not truncate into
// [0, N) or a scaled corner is not finite or beyond the int32 range.
Status CheckMaxRoiPoolRois(const MaxRoiPoolPlan& plan, const void* rois);

// Writes Y for rois [begin, end) (after CheckMaxRoiPoolRois); disjoint ranges may run
// concurrently.
void MaxRoiPool(const MaxRoiPoolPlan& plan, const void* x, const void* rois, void* y, int64_t begin,
                int64_t end);

}  // namespace nxrt::cpu::nn
