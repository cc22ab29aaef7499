// ep/cpu/math/tensor/pad.h: Pad (ONNX) as reference math.
//
// Layer: nxrt_cpu_math (framework-free; no IR, no EP API). Pad is a gather through one index map
// per axis (-1 = the constant), so every dtype works, strings included. Prepare builds the maps;
// compute only reads and writes the given buffers.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "nxrt/data_type.h"
#include "nxrt/status.h"
#include "nxrt/tensor.h"

namespace nxrt::cpu::nn {

enum class PadMode { kConstant, kReflect, kEdge, kWrap };

// "constant", "reflect", "edge" or "wrap" (ONNX attribute spelling); kInvalidArgument otherwise.
Result<PadMode> ParsePadMode(std::string_view mode);

struct PadPlan {
  DataType dtype = DataType::kUndefined;
  Shape input_shape;
  Shape output_shape;
  // Internal: per output axis, the input index of each output index (-1: constant); none when
  // the output has no elements.
  std::vector<std::vector<int64_t>> maps;
};

// Pad (ONNX opset 1/2 attributes, 11, 13, 18 `axes`, 19 `wrap`). `pads` lists the begin pads of
// every padded axis, then the end pads: [b_0, b_1, ..., e_0, e_1, ...]. `axes` (empty: all axes
// in order) may be negative. Negative pads remove elements: the input is cropped first, then the
// positive pads are filled by `mode` from the cropped input (reflect mirrors without repeating the
// edge, edge repeats it, wrap continues periodically; any pad length works).
// Errors: kInvalidArgument for a pads length other than 2 * axes, a negative output dim, or
// reflect/edge/wrap padding of an axis whose (cropped) length is 0; kOutOfMemory when an output
// dim or the output's byte size overflows int64.
Result<PadPlan> PreparePad(DataType dtype, std::span<const int64_t> input_shape,
                           std::span<const int64_t> pads, std::span<const int64_t> axes,
                           PadMode mode);

// Writes the padded contiguous `output`. `constant_value` points at one element of the plan's
// dtype (a std::string for kString); null means 0 (or "").
Status Pad(const PadPlan& plan, const void* input, const void* constant_value, void* output);

}  // namespace nxrt::cpu::nn
