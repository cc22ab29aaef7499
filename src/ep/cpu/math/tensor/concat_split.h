// ep/cpu/math/tensor/concat_split.h: Concat and Split (ONNX) as reference math.
//
// Layer: nxrt_cpu_math (framework-free; no IR, no EP API). Both move contiguous blocks by element
// size and work for every dtype, strings included. Prepare computes shapes and checks; compute
// only copies between the given buffers.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "nxrt/data_type.h"
#include "nxrt/status.h"
#include "nxrt/tensor.h"

namespace nxrt::cpu::nn {

struct ConcatPlan {
  DataType dtype = DataType::kUndefined;
  Shape output_shape;
  // Internal: rows before the axis, and each input's contiguous block per row (elements).
  int64_t outer = 0;
  std::vector<int64_t> block;
};

// Concat (ONNX opset 1, 4, 11, 13): all inputs have the same rank >= 1 and equal dims except
// along `axis` (negative counts from the back, opset >= 11). Inputs with 0 elements along the
// axis are allowed. Errors name the first input whose shape differs and print both shapes.
Result<ConcatPlan> PrepareConcat(DataType dtype, std::span<const Shape> input_shapes, int64_t axis);

// `inputs[i]` is the contiguous buffer of input i; `output` holds the contiguous output.
Status Concat(const ConcatPlan& plan, std::span<const void* const> inputs, void* output);

struct SplitPlan {
  DataType dtype = DataType::kUndefined;
  std::vector<Shape> output_shapes;
  // Internal: rows before the axis, input block per row, and each output's block per row.
  int64_t outer = 0;
  int64_t input_block = 0;
  std::vector<int64_t> block;
};

// Split (ONNX opset 1, 2, 11, 13, 18) along `axis`:
// - `split` non-empty: the sizes of the outputs (each >= 0, summing to the axis dim);
// - otherwise `num_outputs` parts (the node's output count, or the opset-18 attribute). With
//   `uneven_last` (opset 18 `num_outputs`) each part has ceil(dim / num_outputs) elements and
//   the last is smaller; without it the dim must divide evenly.
// Errors print the input shape, the axis and the split sizes.
Result<SplitPlan> PrepareSplit(DataType dtype, std::span<const int64_t> input_shape, int64_t axis,
                               std::span<const int64_t> split, int64_t num_outputs,
                               bool uneven_last);

// `outputs[i]` receives output i (contiguous); a null entry is an omitted output (an empty name
// in the model) whose part is skipped.
Status Split(const SplitPlan& plan, const void* input, std::span<void* const> outputs);

}  // namespace nxrt::cpu::nn
