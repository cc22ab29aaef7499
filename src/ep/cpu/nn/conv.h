// ep/cpu/nn/conv.h: Conv and ConvTranspose (ONNX) for the CPU EP: oneDNN for float, direct
// reference loops for double and float16 (and for float configurations oneDNN declines).
//
// Layer: nxrt_cpu_nn (framework-free; no IR, no EP API). 1-D, 2-D and 3-D (any spatial rank for
// the reference), groups including depthwise, dilations, strides, explicit pads and auto_pad,
// kernel_shape taken from the weights when absent, optional bias. Prepare computes the output
// shape and pads (window.h) and creates the oneDNN primitive; compute only executes it. A plan
// may run from several threads at once. Layouts are ONNX's: X [N, C, D...], Conv W
// [M, C/group, k...], ConvTranspose W [C, M/group, k...], B [M], Y [N, M, D'...], contiguous.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "ep/cpu/nn/window.h"
#include "nxrt/data_type.h"
#include "nxrt/status.h"
#include "nxrt/tensor.h"

namespace nxrt::cpu::nn {

struct ConvAttributes {
  AutoPad auto_pad = AutoPad::kNotSet;
  std::vector<int64_t> kernel_shape;  // empty: the weights' spatial dims
  std::vector<int64_t> strides;       // empty: 1
  std::vector<int64_t> dilations;     // empty: 1
  std::vector<int64_t> pads;          // [begin..., end...]; empty: 0
  int64_t group = 1;
  // ConvTranspose only.
  std::vector<int64_t> output_padding;  // empty: 0
  std::vector<int64_t> output_shape;    // spatial dims (or N, C and spatial); empty: computed
};

// A created oneDNN (de)convolution primitive; defined in conv.cpp.
struct DnnlConvPrimitive;

struct ConvPlan {
  DataType dtype = DataType::kUndefined;
  bool transpose = false;
  Shape output_shape;
  // Internal.
  int64_t batch = 0;
  int64_t in_channels = 0;
  int64_t out_channels = 0;
  int64_t group = 1;
  bool has_bias = false;
  Shape input_spatial;
  WindowGeometry geometry;  // kernel, strides, dilations, pads, output (spatial)
  std::shared_ptr<const DnnlConvPrimitive> dnnl;  // null: reference loops
};

// Conv (ONNX opset 1, 11): output spatial dims per window.h. dtypes float (oneDNN), double,
// float16. `b_shape` is nullopt without bias. Errors (kInvalidArgument) print the shapes and
// attributes involved: X rank < 3, W rank != X rank, C != W[1] * group, M not divisible by
// group, kernel_shape different from W's spatial dims, bias not [M], kernel larger than the
// padded input.
Result<ConvPlan> PrepareConv(DataType dtype, std::span<const int64_t> x_shape,
                             std::span<const int64_t> w_shape,
                             std::optional<std::span<const int64_t>> b_shape,
                             const ConvAttributes& attributes);

// ConvTranspose (ONNX opset 1, 11): M = W[1] * group output channels and spatial dims
//   out = stride * (in - 1) + output_padding + (k - 1) * dilation + 1 - pad_begin - pad_end.
// With `output_shape`, pads come from total = max(0, stride * (in - 1) + output_padding +
// (k - 1) * dilation + 1 - out): SAME_UPPER puts total/2 first, otherwise total - total/2 first;
// an output larger than that formula extends at the end. auto_pad SAME_* without output_shape
// means out = in * stride. dtypes as Conv.
Result<ConvPlan> PrepareConvTranspose(DataType dtype, std::span<const int64_t> x_shape,
                                      std::span<const int64_t> w_shape,
                                      std::optional<std::span<const int64_t>> b_shape,
                                      const ConvAttributes& attributes);

// Runs a plan from PrepareConv or PrepareConvTranspose. `b` is ignored without bias.
Status Conv(const ConvPlan& plan, const void* x, const void* w, const void* b, void* y);

}  // namespace nxrt::cpu::nn
