// ep/cpu/math/nn/grid_sample.h: GridSample (ONNX opset 16, 2-D; onnx/defs/tensor/defs.cc) for the
// CPU EP.
//
// Layer: nxrt_cpu_math (framework-free; no IR, no EP API). X [N, C, H, W] is sampled at the
// normalised grid [N, Ho, Wo, 2] ((x, y) in [-1, 1]) into Y [N, C, Ho, Wo]. A grid value g maps
// to the pixel coordinate ((g + 1) / 2) * (size - 1) with align_corners, else
// ((g + 1) * size - 1) / 2. Padding: zeros reads 0 outside the image; border clamps the
// coordinate into [0, size - 1]; reflection reflects it about the image's borders ([0, size - 1]
// with align_corners, [-0.5, size - 0.5] otherwise). Nearest rounds half to even; bilinear uses
// the 2x2 neighbours, bicubic the 4x4 with the cubic convolution kernel of A = -0.75.
#pragma once

#include <cstdint>
#include <span>

#include "nxrt/data_type.h"
#include "nxrt/status.h"
#include "nxrt/tensor.h"

namespace nxrt::cpu::nn {

enum class GridSampleMode { kBilinear, kNearest, kBicubic };
enum class GridPadding { kZeros, kBorder, kReflection };

struct GridSamplePlan {
  GridSampleMode mode = GridSampleMode::kBilinear;
  GridPadding padding = GridPadding::kZeros;
  bool align_corners = false;
  int64_t n = 0, c = 0, h = 0, w = 0, out_h = 0, out_w = 0;
  Shape output_shape;
  void (*fn)(const GridSamplePlan&, const void* x, const void* grid, void* y) = nullptr;
};

// Errors: kInvalidArgument for X not rank 4, grid not [N, Ho, Wo, 2] (both shapes printed);
// kUnsupported for X or grid types other than float, double, float16 (X and grid share it).
Result<GridSamplePlan> PrepareGridSample(DataType dtype, std::span<const int64_t> x_shape,
                                         std::span<const int64_t> grid_shape,
                                         GridSampleMode mode, GridPadding padding,
                                         bool align_corners);
void GridSample(const GridSamplePlan& plan, const void* x, const void* grid, void* y);

}  // namespace nxrt::cpu::nn
