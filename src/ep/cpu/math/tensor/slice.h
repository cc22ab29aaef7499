// ep/cpu/math/tensor/slice.h: Slice (ONNX) as reference math.
//
// Layer: nxrt_cpu_math (framework-free; no IR, no EP API). Moves elements by size, so every dtype
// works, strings included. Prepare resolves starts/ends/steps into a strided view; compute copies.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "nxrt/data_type.h"
#include "nxrt/status.h"
#include "nxrt/tensor.h"

namespace nxrt::cpu::nn {

struct SlicePlan {
  DataType dtype = DataType::kUndefined;
  Shape output_shape;
  // Internal: offset of the first element read and the input strides per output dim.
  int64_t input_offset = 0;
  std::vector<int64_t> input_strides;
  std::vector<int64_t> output_strides;
};

// Slice (ONNX opset 1 attributes, 10, 11, 13 inputs). `starts` and `ends` have one entry per
// sliced axis; `axes` (empty: 0..n-1) may be negative (counted from the back) and must not
// repeat; `steps` (empty: all 1) must be non-zero. Per the spec, negative starts/ends add the
// dim, then starts/ends are clamped to [0, dim] for positive steps and to [0, dim-1] / [-1, dim-1]
// for negative steps; an empty range gives a zero dim. INT64_MAX / INT64_MIN work as "to the end".
// Errors: kInvalidArgument with the offending lists and the input shape.
Result<SlicePlan> PrepareSlice(DataType dtype, std::span<const int64_t> input_shape,
                               std::span<const int64_t> starts, std::span<const int64_t> ends,
                               std::span<const int64_t> axes, std::span<const int64_t> steps);

// Copies the slice of the contiguous `input` into the contiguous `output`.
Status Slice(const SlicePlan& plan, const void* input, void* output);

}  // namespace nxrt::cpu::nn
