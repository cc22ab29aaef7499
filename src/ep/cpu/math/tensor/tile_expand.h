// ep/cpu/math/tensor/tile_expand.h: Tile and Expand (ONNX) as reference math.
//
// Layer: nxrt_cpu_math (framework-free; no IR, no EP API). Both are strided copies with zero
// strides over repeated dims, so every dtype works (strings included). Prepare computes shapes;
// compute only copies.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "nxrt/data_type.h"
#include "nxrt/status.h"
#include "nxrt/tensor.h"

namespace nxrt::cpu::nn {

// A prepared broadcast-style copy: the output is a contiguous copy of a strided input view.
struct RepeatPlan {
  DataType dtype = DataType::kUndefined;
  Shape output_shape;
  // Internal: the view (shape, input strides) and the contiguous output strides of that view.
  Shape view_shape;
  std::vector<int64_t> view_strides;
  std::vector<int64_t> output_strides;
};

// Tile (ONNX opset 1, 6, 13): `repeats` has one entry >= 0 per input dim;
// output_shape[i] = input_shape[i] * repeats[i]. Errors: kInvalidArgument for a repeats length
// other than the rank or a negative entry; kOutOfMemory when an output dim overflows int64.
Result<RepeatPlan> PrepareTile(DataType dtype, std::span<const int64_t> input_shape,
                               std::span<const int64_t> repeats);

// Expand (ONNX opset 8, 13): the output shape is the NumPy broadcast of `input_shape` and
// `shape` (either may have the larger rank; dims of 1 in `shape` keep the input dim).
// kInvalidArgument with both shapes when they do not broadcast.
Result<RepeatPlan> PrepareExpand(DataType dtype, std::span<const int64_t> input_shape,
                                 std::span<const int64_t> shape);

// Fills the contiguous `output` from the contiguous `input`.
Status Repeat(const RepeatPlan& plan, const void* input, void* output);

}  // namespace nxrt::cpu::nn
