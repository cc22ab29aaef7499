// ep/cpu/math/tensor/resize.h: Resize (ONNX opset 10-19) and Upsample as reference math.
//
// Layer: nxrt_cpu_math (framework-free; no IR, no EP API). Prepare resolves the output shape and,
// per axis, where every output coordinate reads from: an index map (nearest) or a list of taps
// with weights (linear, cubic, antialiased filters). Compute only reads the input and writes the
// output. N-D: every axis may be resized; axes whose mapping is the identity are copied.
//
// Coordinates are computed in double and, when `sizes` gives the output length, exactly: x / scale
// becomes x * in / out with one rounding, so ties such as 14.5 (nearest, half_pixel, 20 -> 6) stay
// ties and nearest_mode decides them as the spec says.
//
// Opset mapping for the kernel glue: Resize-10 and Upsample (7, 9) are "asymmetric" with nearest
// mode kLegacy (linear is n-linear); opset 11+ use the attributes (defaults below).
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "nxrt/data_type.h"
#include "nxrt/status.h"
#include "nxrt/tensor.h"

namespace nxrt::cpu::nn {

enum class ResizeMode { kNearest, kLinear, kCubic };
enum class ResizeCoordinateMode {
  kHalfPixel,
  kHalfPixelSymmetric,
  kPytorchHalfPixel,
  kAlignCorners,
  kAsymmetric,
  kTfHalfPixelForNn,
  kTfCropAndResize,
};
enum class ResizeNearestMode {
  kRoundPreferFloor,
  kRoundPreferCeil,
  kFloor,
  kCeil,
  // Resize-10 / Upsample, which had no nearest_mode: floor on an axis that is upsampled (or kept),
  // ceil on one that is downsampled (the Resize-10 doc example: 4 -> 2 at scale 0.6 reads 0, 2).
  kLegacy,
};
enum class KeepAspectRatioPolicy { kStretch, kNotLarger, kNotSmaller };

// Attribute spellings of ONNX ("nearest"/"linear"/"cubic"; opset 10 "bilinear"/"trilinear" are
// accepted as linear); kInvalidArgument naming the accepted values otherwise.
Result<ResizeMode> ParseResizeMode(std::string_view mode);
Result<ResizeCoordinateMode> ParseResizeCoordinateMode(std::string_view mode);
Result<ResizeNearestMode> ParseResizeNearestMode(std::string_view mode);
Result<KeepAspectRatioPolicy> ParseKeepAspectRatioPolicy(std::string_view policy);

struct ResizeAttributes {
  ResizeMode mode = ResizeMode::kNearest;
  ResizeCoordinateMode coordinate_transformation_mode = ResizeCoordinateMode::kHalfPixel;
  ResizeNearestMode nearest_mode = ResizeNearestMode::kRoundPreferFloor;
  double cubic_coeff_a = -0.75;
  bool exclude_outside = false;
  // Written where tf_crop_and_resize samples outside the input.
  double extrapolation_value = 0.0;
  // Opset 18: linear/cubic downscaling stretches the filter by 1/scale (ignored for nearest).
  bool antialias = false;
  // Opset 18, only with `sizes`.
  KeepAspectRatioPolicy keep_aspect_ratio_policy = KeepAspectRatioPolicy::kStretch;
  // Opset 18: the axes `roi`, `scales` and `sizes` refer to (empty: all; negative allowed).
  std::vector<int64_t> axes;
};

// Where one axis of the output reads from, for linear and cubic. Internal to the plan.
struct ResizeAxis {
  bool identity = false;         // out == in and every output reads its own index, weight 1
  int64_t taps = 0;              // entries per output coordinate
  std::vector<int64_t> index;    // [out * taps]: input index, clamped to the axis
  std::vector<double> weight;    // [out * taps]
  std::vector<uint8_t> outside;  // [out]: tf_crop_and_resize samples outside the input
};

struct ResizePlan {
  DataType dtype = DataType::kUndefined;
  ResizeAttributes attributes;
  Shape input_shape;
  Shape output_shape;
  // Internal. Nearest: one index map per dim (-1: extrapolate) and the extrapolation element.
  std::vector<std::vector<int64_t>> maps;
  alignas(16) unsigned char fill[16] = {};
  // Linear/cubic: one entry per dim.
  std::vector<ResizeAxis> axes;
  // Float linear/cubic that copies every axis but the last two and samples nothing outside the
  // input (an image resize): per output row of each plane, the weighted sum of its input rows,
  // then each output's weighted taps of that sum, in float (ONNX Runtime computes float Resize
  // in float), in simd_map.h's widest build. Its units (planes x output rows) are independent.
  bool planar = false;
  int64_t units = 1;
  std::vector<int64_t> row_index;  // [out_h * row_taps]
  std::vector<float> row_weight;
  int64_t column_taps = 0;  // 1 when the last axis is copied (its zero-weight taps dropped)
  std::vector<int32_t> column_index;  // [column_taps * out_w] (tap-major)
  std::vector<float> column_weight;
};

// Prepares Resize of a tensor of `input_shape` and `dtype`.
// - `scales` (one float > 0 per resized axis) or `sizes` (one int >= 0 per resized axis):
//   exactly one is non-empty. With scales the output dim is floor(in * scale); with sizes it is
//   the size (or, with keep_aspect_ratio_policy not_larger/not_smaller, round_half_up(in * s) for
//   the one scale s = min/max of size/in over the resized axes).
// - `roi` ([starts..., ends...] per resized axis, as double) is used by tf_crop_and_resize only;
//   empty means [0..., 1...].
// dtype: nearest moves elements by size (every dtype); linear and cubic need a numeric dtype and
// compute in double (integer outputs round half away from zero and saturate).
// Errors: kInvalidArgument naming the input shape and the offending scales/sizes/roi.
Result<ResizePlan> PrepareResize(DataType dtype, std::span<const int64_t> input_shape,
                                 const ResizeAttributes& attributes, std::span<const double> roi,
                                 std::span<const float> scales, std::span<const int64_t> sizes);

// Writes the contiguous output of a prepared Resize from the contiguous input.
Status Resize(const ResizePlan& plan, const void* input, void* output);

// The units [begin, end) of a planar plan (plan.planar; clamped to [0, plan.units)): disjoint
// ranges write disjoint output rows, so callers run them on several threads.
void ResizeUnits(const ResizePlan& plan, const void* input, void* output, int64_t begin,
                 int64_t end);

}  // namespace nxrt::cpu::nn
